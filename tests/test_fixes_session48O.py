"""Session 48 O: scheduling and greedy algorithms.

bug_01: an object picked at a runtime position of a list (`max(tasks,
key=...)`, `tasks[int(np.argmax(p))]`) came back holding tpucc's internal
Array values.  It is returned as a new object of its class built from the
picked attributes, where the caller cannot tell it from the list's object
(the program made the list's objects and returns none of them beside it);
else it is refused (E400) at the `return`.

bug_02: an object built in both arms of a runtime `if` came back with its
attributes in sorted, not set, order (`vars(obj)`).  The merged copy keeps
the order the arms set them in; arms that set them in different orders are
refused (E300), naming the orders.

bug_03: "first bin that fits, else None" as a loop (`for b in range(n): if
fits: return b` then `return None`) was refused (E300: an int and None),
though the same code as explicit `if`s compiled.  The loop variable, a
runtime int the loop's range bounds, now joins a choice with None.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import assert_same, raises_at


def _copy(a):
    return np.copy(a) if isinstance(a, np.ndarray) else a


def _compiled(fn, *args):
    return tpucc.compile(fn, cache=False)(*[_copy(a) for a in args])


def _same_object(expected, actual):
    """Same class, same attributes in the same order, same values and kinds."""
    assert type(actual) is type(expected)
    assert list(vars(actual)) == list(vars(expected))
    assert_same(tuple(vars(expected).values()), tuple(vars(actual).values()))


# --- bug_01: an object picked at a runtime position, returned -------------------------

@dataclass
class Task:
    deadline: float
    profit: float


class Machine:
    def __init__(self, loads):
        self.loads = loads.copy()
        self.name = "m"


def best_by_max(d, p):
    tasks = [Task(d[i], p[i]) for i in range(len(d))]
    return max(tasks, key=lambda t: t.profit)


def worst_by_min(d, p):
    tasks = [Task(d[i], p[i]) for i in range(len(d))]
    return min(tasks, key=lambda t: t.profit)


def best_by_argmax(d, p):
    tasks = [Task(d[i], p[i]) for i in range(len(d))]
    return tasks[int(np.argmax(p))]


def best_in_tuple(d, p):
    tasks = [Task(d[i], p[i]) for i in range(len(d))]
    b = tasks[int(np.argmax(p))]
    return b, 1


def best_in_list(d, p):
    tasks = [Task(d[i], p[i]) for i in range(len(d))]
    return [max(tasks, key=lambda t: t.deadline), len(tasks)]


def least_loaded(x):
    ms = [Machine(x[i]) for i in range(x.shape[0])]
    return ms[int(np.argmin(x.sum(axis=1)))]


@pytest.mark.parametrize("fn", [best_by_max, worst_by_min, best_by_argmax])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_picked_object_returned(fn, dtype):
    d = np.array([3, 1, 2, 7], dtype)
    p = np.array([10, 30, 20, 5], dtype)
    _same_object(fn(d, p), _compiled(fn, d, p))


@pytest.mark.parametrize("fn", [best_in_tuple, best_in_list])
def test_picked_object_in_returned_container(fn):
    d, p = np.array([3., 1., 2.]), np.array([10., 30., 20.])
    expected, actual = fn(d, p), _compiled(fn, d, p)
    assert type(actual) is type(expected) and len(actual) == len(expected)
    _same_object(expected[0], actual[0])
    assert actual[1] == expected[1] and type(actual[1]) is type(expected[1])


def test_picked_plain_object_with_array_attribute():
    x = np.array([[3., 1.], [0.5, 0.2], [2., 2.]])
    expected, actual = least_loaded(x), _compiled(least_loaded, x)
    _same_object(expected, actual)
    actual.loads[0] = 9.0          # the caller's own array, writable
    assert actual.loads[0] == 9.0


def test_picked_object_read_attribute_still_works():
    def deadline_of_best(d, p):
        tasks = [Task(d[i], p[i]) for i in range(len(d))]
        return max(tasks, key=lambda t: t.profit).deadline
    d, p = np.array([3., 1., 2.]), np.array([10., 30., 20.])
    assert_same(deadline_of_best(d, p), _compiled(deadline_of_best, d, p))


def picked_from_argument(tasks, p):
    return tasks[int(np.argmax(p))]


def picked_beside_its_list(d, p):
    tasks = [Task(d[i], p[i]) for i in range(len(d))]
    return tasks, max(tasks, key=lambda t: t.profit)


def test_picked_object_of_callers_list_refused():
    tasks = [Task(1.0, 2.0), Task(3.0, 4.0)]
    raises_at(picked_from_argument, (tasks, np.array([1., 5.])), E.StaticValueError,
              match="from outside the compiled function", line_of="return tasks[",
              cache=False)


def test_picked_object_returned_with_its_list_refused():
    raises_at(picked_beside_its_list, (np.array([3., 1.]), np.array([1., 5.])),
              E.StaticValueError, match="holds the list's objects too",
              line_of="return tasks, max", cache=False)


# --- bug_02: attribute order of an object merged after a runtime `if` -------------------

class Slot:
    def __init__(self, s, e):
        self.s = s
        self.e = e


class State:
    def __init__(self, t, q, done):
        self.t = t
        self.q = q
        self.done = done


def make_slot(s, e):
    if s[0] < e[0]:
        sl = Slot(s[0], e[0])
    else:
        sl = Slot(e[0], s[0])
    return sl


def _step(st, x):
    if x[0] > 0:
        return State(st.t + 1, st.q * 2, False)
    return State(st.t, st.q, True)


def run_state(x):
    st = State(0.0, x[1], False)
    return _step(st, x)


class Zed:
    def __init__(self, z, a):
        self.z = z
        self.a = a

    def __add__(self, other):
        return Zed(self.z + other.z, self.a + other.a)


def carried_in_loop(v):
    p = Zed(v[0], v[1])
    for _ in range(40):
        p = p + Zed(v[1], v[0])
    return p


@pytest.mark.parametrize("s, e", [([3.], [2.]), ([1.], [2.]), ([1], [5])])
def test_merged_object_keeps_attribute_order(s, e):
    s, e = np.array(s), np.array(e)
    _same_object(make_slot(s, e), _compiled(make_slot, s, e))


@pytest.mark.parametrize("x", [[1., 2.], [-1., 2.]])
def test_object_from_helper_with_runtime_if_keeps_order(x):
    x = np.array(x)
    _same_object(run_state(x), _compiled(run_state, x))


def test_object_carried_by_loop_keeps_order():
    v = np.array([1., 2.])
    _same_object(carried_in_loop(v), _compiled(carried_in_loop, v))


class Either:
    def __init__(self, s, e, e_first):
        if e_first:
            self.e = e
            self.s = s
        else:
            self.s = s
            self.e = e


def orders_differ(s, e):
    if s[0] < e[0]:
        sl = Either(s[0], e[0], False)
    else:
        sl = Either(e[0], s[0], True)
    return sl


def test_arms_setting_attributes_in_other_orders_refused():
    raises_at(orders_differ, (np.array([3.]), np.array([2.])), E.MergeError,
              match="different orders", line_of="if s[0] < e[0]", cache=False)


# --- bug_03: "first bin that fits, else None" as a loop --------------------------------

def first_fit_tuple(bins, w):
    for b in (0, 1):
        if bins[b] + w <= 1.0:
            return b
    return None


def first_fit_range(bins, w):
    for b in range(3):
        if bins[b] + w <= 1.0:
            return b
    return None


def first_fit_len(bins, w):
    for b in range(len(bins)):
        if bins[b] + w <= 1.0:
            return b
    return None


def first_fit_enumerate(bins, w):
    for i, level in enumerate(bins):
        if level + w <= 1.0:
            return i
    return None


def first_fit_from(bins, w):
    for b in range(2, len(bins), 2):
        if bins[b] + w <= 1.0:
            return b
    return "full"


def place(bins, w):
    b = first_fit_len(bins, w)
    if b is None:
        return -1
    return b * 10


@pytest.mark.parametrize("fn", [first_fit_tuple, first_fit_range, first_fit_len,
                                first_fit_enumerate, first_fit_from, place])
@pytest.mark.parametrize("levels", [[0.9, 0.8, 0.3, 0.9, 0.2, 0.95],
                                    [0.9, 0.4, 0.3, 0.9, 0.9, 0.95],
                                    [0.1, 0.8, 0.7, 0.6, 0.6, 0.95],
                                    [0.9, 0.8, 0.7, 0.6, 0.6, 0.95]])
def test_first_fit_else_none(fn, levels):
    bins = np.array(levels)
    expected = fn(bins, 0.5)
    actual = _compiled(fn, bins, 0.5)
    assert type(actual) is type(expected) and actual == expected


@pytest.mark.parametrize("n", [40, 300])
def test_first_fit_else_none_long(n):
    rng = np.random.default_rng(n)
    compiled = tpucc.compile(first_fit_len, cache=False)
    for fits_at in (None, 0, n // 2, n - 1):
        bins = rng.uniform(0.6, 1.0, n)
        if fits_at is not None:
            bins[fits_at] = 0.1
        expected, actual = first_fit_len(bins, 0.5), compiled(bins, 0.5)
        assert type(actual) is type(expected) and actual == expected


def test_first_fit_float32_bins():
    bins = np.array([0.9, 0.3, 0.8], np.float32)
    for w in (0.5, 0.95):
        expected = first_fit_len(bins, np.float32(w))
        actual = _compiled(first_fit_len, bins, np.float32(w))
        assert type(actual) is type(expected) and actual == expected


def test_array_or_none_still_refused():
    def level_or_none(bins, w):
        for b in range(len(bins)):
            if bins[b] + w <= 1.0:
                return bins[b]
        return None
    raises_at(level_or_none, (np.array([0.9, 0.4]), 0.5), E.MergeError,
              match="None", line_of="return None", cache=False)
