"""Containers from outside read at every level by native code: NumPy and
library calls (`np.asarray(ROWS)`, `json.dumps`), Python's comparisons,
operators and formatting (`cfg == {...}`, `d | {...}`, `f"{rows}"`) and
min/max over lists of lists.  The inner lists and dicts are guarded too
(calls.guard_contents_deeply): changing one compiles again instead of
running the stale program (session 19's sweep, tests/known_gaps_session19.py).
Each test calls, changes the inner container, calls again, and compares
both calls with eager NumPy."""
import json

import numpy as np
import pytest

import tpucc

X = np.arange(4, dtype=np.float32)


def calls_match(fn, change):
    compiled = tpucc.compile(fn)
    for step in range(2):
        if step:
            change()
        got, want = compiled(X), fn(X)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_np_asarray_of_a_list_of_lists():
    rows = [[1.0, 2.0], [3.0, 4.0]]
    calls_match(lambda x: x[:2] @ np.asarray(rows, np.float32),
                lambda: rows[1].__setitem__(1, 40.0))


def test_json_of_a_dict_of_lists():
    doc = {"a": [1, 2]}
    calls_match(lambda x: x * len(json.dumps(doc)), lambda: doc["a"].append(333))


def test_fstring_of_a_list_of_lists():
    rows = [[1.0]]
    calls_match(lambda x: x * len(f"{rows}"), lambda: rows[0].append(10.0))


def test_comparing_a_dict_of_lists():
    cfg = {"a": [1.0]}
    calls_match(lambda x: x * (cfg == {"a": [1.0]}), lambda: cfg["a"].append(2.0))


def test_max_of_max_of_a_list_of_lists():
    rows = [[1.0], [2.0]]
    calls_match(lambda x: x + max(max(rows)), lambda: rows[0].__setitem__(0, 99.0))


@pytest.mark.parametrize("op", ["or", "keys_and"])
def test_dict_operators(op):
    d = {"a": 1.0}
    if op == "or":
        fn = lambda x: x * (d | {"c": 1.0})["a"]      # noqa: E731
    else:
        fn = lambda x: x * len(d.keys() & {"a", "b"})  # noqa: E731
    calls_match(fn, lambda: d.update(b=60.0) if op == "keys_and" else d.update(a=60.0))


def test_a_large_structure_is_guarded_on_its_first_containers():
    """(calls.MAX_DEEP_GUARDS bounds the walk; a structure past it is
    guarded on the containers the walk reached first.)"""
    from tpucc.infer.calls import MAX_DEEP_GUARDS
    table = [[float(i)] for i in range(MAX_DEEP_GUARDS + 50)]
    calls_match(lambda x: x + np.asarray(table, np.float32).sum(),
                lambda: table[-1].__setitem__(0, -1.0))
