"""Tuples, named tuples, lists and dicts a long counted loop appends
(`history.append({"step": i, "loss": float(loss)})`): one counted While
with a buffer per leaf, the structures rebuilt row by row after it
(infer/stacking.py), where 300 rows used to be unrolled (10-16 s).  A list
or dict must be the iteration's own, appended once and held by nothing
the next iteration sees; otherwise the loop is unrolled, exactly."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import tpucc
from conftest import check

N = 40          # more than the unroll budget (32)
Record = collections.namedtuple("Record", "loss best")


def whiles(fn, *args) -> int:
    return tpucc.compile(fn).lower(*args).ir().count("= while(")


def dicts(x):
    history = []
    for i, r in enumerate(x):
        history.append({"step": i, "loss": float(r.sum()), "w": r * 2, "tag": "train"})
    return history


def named_tuples(x):
    history = []
    for r in x:
        history.append(Record(r.sum(), float(r.max())))
    return history, np.array([h.loss for h in history])


def nested(x):
    out = []
    for r in x:
        out.append((r.sum(), (r.max(), [r * 2, {"m": r.min()}])))
    return out


def lists_updated_after(x):
    out = []
    for r in x:
        out.append([r.sum(), r * 3])
    out[3][0] = -1.0                # one row's list, as in NumPy
    out[4][1][0] = 50.0
    out[5].append("extra")
    return out


def a_comprehension_of_dicts(x):
    return [{"a": r[0], "b": (r[1], r[2])} for r in x]


def returned_leaves(x):
    history = dicts(x)
    return [h["loss"] for h in history], np.stack([h["w"] for h in history])


@pytest.mark.parametrize("fn", [dicts, named_tuples, nested, lists_updated_after,
                                a_comprehension_of_dicts, returned_leaves])
def test_appended_structures_are_one_while_and_match_numpy(fn):
    x = np.random.default_rng(0).normal(size=(N, 3))
    check(fn, x)
    # (and one more for the loop over the list: tests/test_list_loops.py)
    assert whiles(fn, x) == (2 if fn is named_tuples else 1)


def test_rebuilt_structures_keep_their_types():
    x = np.random.default_rng(1).normal(size=(N, 3))
    history, _ = tpucc.compile(named_tuples)(x)
    assert type(history[7]) is Record and type(history[7].best) is float
    items = tpucc.compile(dicts)(x)
    assert list(items[3]) == ["step", "loss", "w", "tag"] and items[3]["step"] == 3


# --- lists and dicts that other names reach: unrolled, NumPy's semantics -----------------------

def held_by_the_next_iteration(x):
    history = []
    last = {"v": np.zeros(3)}
    for r in x:
        last["v"] += 1.0            # into the dict the previous iteration appended
        d = {"v": r * 2}
        history.append(d)
        last = d
    return history


def appended_twice(x):
    a, b = [], []
    for r in x:
        d = {"v": r.sum()}
        a.append(d)
        b.append(d)
    a[0]["v"] = 7.0                 # b[0] is the same dict
    return a[:3], b[:3]


def from_before_the_loop(x):
    config = {"lr": 0.1}
    out = []
    for r in x:
        out.append(config)
    out[0]["lr"] = 0.5              # every item is config
    return out[-1], len(out)


class Holder:
    pass


def held_by_an_object(x):
    holder = Holder()
    holder.last = None
    out = []
    for r in x:
        d = {"v": r * 2}
        out.append(d)
        holder.last = d
    holder.last["v"] = np.ones(3)   # out[-1] is holder.last
    return out[-1]["v"], out[-2]["v"]


@pytest.mark.parametrize("fn", [held_by_the_next_iteration, appended_twice,
                                from_before_the_loop, held_by_an_object])
def test_shared_structures_keep_numpy_semantics(fn):
    check(fn, np.random.default_rng(2).normal(size=(N, 3)))
