"""`in`, list.count and list.index over lists of runtime numbers (argmaxes,
losses): each item `is` the value or `==` it at run time, so the answer is
a runtime Python bool or int, as eager Python's; index() of a value no item
equals raises Python's ValueError when the call returns."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


def static_probes(x):
    picks = [int(r.argmax()) for r in x]
    return 2 in picks, 7 in picks, 1 not in picks, picks.count(2), picks.count(9)


def runtime_probes(x):
    vals = [float(v) for v in x[0]]
    return x[0, 1] in vals, x[1, 1] in vals, vals.count(x[0, 2]), vals.index(x[0, 2])


def index_when_present(x):
    picks = [int(r.argmax()) for r in x]
    return picks.index(0) if 0 in picks else -1


def first_of_equal_items(x):
    picks = tuple(int(v) for v in x[0])
    return picks.index(3), picks.count(3)


def same_object(x):
    v = x[0, 0]
    items = [x[1, 0], v, x[2, 0]]
    return v in items, items.index(v)


@pytest.mark.parametrize("fn", [static_probes, runtime_probes, index_when_present,
                                same_object])
def test_membership_over_runtime_numbers_matches_python(fn):
    x = np.random.default_rng(0).normal(size=(6, 3))
    check(fn, x)


def test_index_finds_the_first_equal_item():
    x = np.array([[3, 1, 3], [0, 0, 0]])
    check(first_of_equal_items, x)
    assert tpucc.compile(first_of_equal_items)(x) == (0, 2)


def missing(x):
    picks = [int(v) for v in x[0]]
    return picks.index(5)


def test_index_of_a_missing_value_raises_valueerror_when_the_call_returns():
    f = tpucc.compile(missing)
    assert f(np.array([[4, 5, 6]])) == 1
    with pytest.raises(ValueError, match="5 is not in list") as e:
        f(np.array([[1, 2, 3]]))
    assert isinstance(e.value, tpucc.TpuccError) and "test_runtime_membership.py" in str(e.value)


def whole_arrays(x):
    rows = [x[0], x[1]]
    return x[0] * 2 in rows


def test_an_array_item_needs_a_truth_value_as_in_python():
    raises_at(whole_arrays, (np.ones((2, 3)),), tpucc.TpuccError, "ValueError: The truth value of an array",
              line_of="in rows")


def index_within_bounds(x):
    picks = [int(v) for v in x.ravel()]
    return picks.index(2, 3), picks.index(2, -4), picks.index(2, 1, 5)


def compared_lists(x):
    a = [int(r.argmax()) for r in x]
    b = [int(r.argmax()) for r in x[::-1]][::-1]
    c = a[:-1] + [a[-1] + 1]
    return a == b, a != b, a == c, a != c, a == a[:-1], tuple(a) < tuple(c), (1, a[0]) <= (1, a[0])


def tuples_searched(x):
    history = [(i, float(r[0])) for i, r in enumerate(x)]
    return (3, float(x[3, 0])) in history, (3, 0.5) in history, history.index((2, float(x[2, 0])))


@pytest.mark.parametrize("fn", [compared_lists, tuples_searched])
def test_sequences_of_runtime_numbers_compare_as_in_python(fn):
    check(fn, np.random.default_rng(6).normal(size=(6, 3)))


def test_index_with_start_and_stop():
    x = np.array([[2, 0, 1], [2, 5, 2], [0, 2, 7]])
    check(index_within_bounds, x)
    assert tpucc.compile(index_within_bounds)(x) == (3, 5, 3)
