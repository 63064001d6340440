"""Session 40: a list from outside the call that the program appends to,
returned, is the caller's own list with the appended items (it was a copy
made while tracing, without them)."""
import numpy as np

import tpucc

HISTORY = []


class Log:
    def __init__(self):
        self.best = []


def append_and_return(b, x):
    b.best.append(int(x[0]))
    return b.best


def test_returned_attribute_list_is_the_callers_list_after_each_call():
    b = Log()
    f = tpucc.compile(append_and_return, cache=False)
    r = f(b, np.arange(3))
    assert r is b.best and r == [0]
    r2 = f(b, np.arange(5, 8))
    assert r2 is b.best and b.best == [0, 5]
    assert type(b.best[1]) is int


def append_global(x):
    HISTORY.append(float(x.sum()))
    return x * 2, {"history": HISTORY}


def test_returned_global_list_inside_a_tuple_and_dict():
    HISTORY.clear()
    f = tpucc.compile(append_global, cache=False)
    y, d = f(np.arange(3.0))
    np.testing.assert_array_equal(y, np.arange(3.0) * 2)
    assert d["history"] is HISTORY and HISTORY == [3.0]
    _, d2 = f(np.ones(2))
    assert d2["history"] is HISTORY and HISTORY == [3.0, 2.0]
    assert type(HISTORY[0]) is float


def extend_and_return_twice(b, x):
    b.best.extend([x.max(), x.min()])
    return b.best, b.best


def test_extended_list_returned_twice_is_one_object():
    expected_b, b = Log(), Log()
    extend_and_return_twice(expected_b, np.array([3, 1, 2]))
    r1, r2 = tpucc.compile(extend_and_return_twice, cache=False)(b, np.array([3, 1, 2]))
    assert r1 is r2 is b.best
    assert [type(v) for v in b.best] == [type(v) for v in expected_b.best]
    assert b.best == expected_b.best == [3, 1]
