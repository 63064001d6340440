"""Session 47X5 fixes (sweep 47X, bug_05).

- bug_05 (1): a Python int merged into a Python float slot by a runtime
  `if` or loop (`r = 0; if x.sum() > 0: r = 0.5; return r`, and the common
  `best = 0; for v in x: if v > best: best = float(v)`) came back as the
  float 0.0 where eager Python gives the int 0.  The slot is still a
  runtime Python float (it holds the int's value), now with a runtime bool
  saying where the path left the Python int (infer/held_ints.py), as a
  Python bool in a Python int slot has: the caller gets an int there,
  print() shows 0, isinstance() answers at run time, and + - * // % ** of
  Python ints stay ints on their paths (/ and float operands give floats).
  Where NumPy promotes the int differently from the float (an int64 array
  + r), the call raises on the int's path (E910).
- bug_05 (2, 3): the Python int 0 (1) merged with a NumPy bool (`r = 0; if
  c: r = x[1] > 3`) came back as np.False_ where eager gives 0, and a
  Python bool merged with a NumPy integer (`r = x[0]; if c: r = True`) as
  np.int64(1) where eager gives True.  The held value's Python type is now
  a static property of the slot (Array.held_type, chosen from its paths:
  held_ints.held_python_type), so one bool carries either: the caller gets
  the Python type of the path taken, and Python's operators give Python's
  types there.  (A slot holding all three, a NumPy int, a Python int and a
  Python bool, holds the bool by a second bool since session 48X3.)
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import tpucc
from tpucc.errors import RuntimeRaiseError, StaticValueError

from conftest import raises_at, same_each

POSITIVE, NEGATIVE, MIXED = np.arange(5.0), -np.arange(5.0) - 1, np.array([3.0, -2, 1, 0, 5])
INPUTS = [(POSITIVE,), (NEGATIVE,), (MIXED,), (np.zeros(5),)]


def each(fn, inputs=INPUTS):
    return same_each(fn, *inputs)


# --- the sweep's repro ----------------------------------------------------------------------

def set_under_if(x):
    r = 0
    if x.sum() > 0:
        r = 0.5
    return r


def best_of_a_loop(x):
    best = 0
    for v in x:
        if v > best:
            best = float(v)
    return best


def best_of_a_list(x):
    best = 0
    for v in x.tolist():
        if v > best:
            best = v
    return best


def best_in_a_while(x, n):
    best, i = 0, 0
    while i < n:
        if x[i] > best:
            best = float(x[i])
        i += 1
    return best


@pytest.mark.parametrize("fn", [set_under_if, best_of_a_loop, best_of_a_list])
def test_an_int_merged_into_a_float_slot_is_the_int_on_its_path(fn):
    each(fn)


def test_an_int_list_keeps_ints_on_every_path():
    each(best_of_a_list, [(np.arange(5),), (-np.arange(5),)])


def test_a_runtime_while_carries_the_int():
    same_each(best_in_a_while, (-np.ones(300), 300), (np.arange(300.0), 300),
              (np.arange(300.0), 0))


def in_a_loop_with_other_state(x):
    best, count, total = 0, 0, 0
    for row in x:
        m = 0
        for v in row:
            if v > m:
                m = float(v)
        total = total + m
        best = max(best, m)
        count += 1
    return best, count, total


def test_nested_loops_and_max_of_merged_values():
    each(in_a_loop_with_other_state, [(-np.ones((3, 3)),), (np.arange(9.0).reshape(3, 3) - 4,)])


def runtime_int_or_float(x, n):
    r = n
    if x.sum() > 0:
        r = n / 2
    return r, r * 2


def test_a_runtime_int_merged_with_a_float():
    same_each(runtime_int_or_float, (NEGATIVE, 5), (POSITIVE, 5))


def chained_merges(x):
    r = 0
    if x[0] > 0:
        r = 0.5
    t = r
    if x[1] > 0:
        t = 7
    return t, r


def test_merges_of_merged_values():
    each(chained_merges, [(np.array(v),) for v in ([1., 1.], [-1., 1.], [1., -1.], [-1., -1.])])


class Box:
    def __init__(self):
        self.v = 0


def in_an_attribute_and_a_list(x):
    b, items = Box(), [0, 1]
    if x.sum() > 0:
        b.v = 0.5
        items[0] = 2.5
    return b.v, items, {"r": b.v}


def test_attributes_and_list_items():
    each(in_an_attribute_and_a_list)


# --- what Python's operators give on each path ---------------------------------------------

def python_arithmetic(x):
    r = 7
    if x.sum() > 0:
        r = 7.5
    return (r + 1, r - 2, r * 3, r // 2, r % 3, -r, +r, abs(r), r ** 2, r / 2, r * 1.5,
            r + True, 1 - r, divmod(r, 2), max(r, 1), min(r, 100), r.real, r > 7, r == 7)


def powers(x, n):
    r = 2
    if x.sum() > 0:
        r = 0.5
    return r ** n, r ** -1


def test_python_operators_give_each_paths_type():
    each(python_arithmetic)
    same_each(powers, (NEGATIVE, 3), (NEGATIVE, -2), (POSITIVE, 2), (POSITIVE, -1))


def conversions(x):
    r = 3
    if x.sum() > 0:
        r = 2.5
    return (isinstance(r, int), isinstance(r, float), round(r), int(r), float(r), bool(r),
            math.floor(r), np.sqrt(r))


def test_conversions_and_isinstance():
    each(conversions)


def printed(x):
    r = 3
    if x.sum() > 0:
        r = 2.5
    print(r, r + 1, r / 2)
    print(f"{r} {r!r} {r:>5}")
    return r


@pytest.mark.parametrize("x,shown", [(NEGATIVE, "3 4 1.5\n3 3     3\n"),
                                     (POSITIVE, "2.5 3.5 1.25\n2.5 2.5   2.5\n")])
def test_print_shows_the_int(x, shown, capfd):
    f = tpucc.compile(printed, cache=False)
    assert f(x) == printed(x)
    capfd.readouterr()
    f(x)
    assert capfd.readouterr().out == shown


# --- beside NumPy values -------------------------------------------------------------------

def beside_float_arrays(x):
    r = 0
    if x.sum() > 0:
        r = 0.5
    return x * r, x.astype(np.float32) + r, np.float32(2) * r, (x * r).sum()


def test_numpy_floats_beside_it_are_the_same_either_way():
    each(beside_float_arrays)


def int_array_plus_it(x):
    r = 0
    if x.sum() > 0:
        r = 0.5
    return x + r


def numpy_int_plus_it(x):
    r = 0
    if x.sum() > 0:
        r = 0.5
    return np.int64(3) + r


def arange_times_it(x):
    r = 1
    if x.sum() > 0:
        r = 2.5
    return np.arange(3, dtype=np.int32) * r


@pytest.mark.parametrize("fn,line,args", [
    (int_array_plus_it, "x + r", (np.array([-1, -2]), np.array([1, 2]))),
    (numpy_int_plus_it, "np.int64(3) + r", (NEGATIVE, POSITIVE)),
    (arange_times_it, "* r", (NEGATIVE, POSITIVE))])
def test_numpy_promotion_that_differs_for_an_int_raises_on_its_path(fn, line, args):
    int_path, float_path = args
    same_each(fn, (float_path,))            # the float's path: NumPy's float64
    err = raises_at(fn, (int_path,), RuntimeRaiseError,
                    match=r"Python int held in a Python float .*NumPy gives int",
                    line_of=line, cache=False)
    assert "r = 0.0" in err.hint


def type_of_it(x):
    r = 0
    if x.sum() > 0:
        r = 0.5
    return type(r)


def test_type_of_it_is_refused_at_compile_time_naming_both_types():
    raises_at(type_of_it, (POSITIVE,), StaticValueError,
              match="a Python int on some runtime paths and a Python float on others",
              line_of="type(r)", cache=False)


# --- bug_05 (2): a Python int held in a NumPy bool ----------------------------------------

PAIRS = [(np.array(v),) for v in ([-1.0, 5.0], [1.0, 5.0], [1.0, 2.0])]


def int_or_numpy_bool(x):
    r = 0
    if x[0] > 0:
        r = x[1] > 3
    return r, r + 1, r * 2, not r, r == 0, isinstance(r, int), isinstance(r, np.bool_)


def one_or_numpy_bool(x):
    r = 1
    if x[0] > 0:
        r = x[1] > 3
    return r, x * r, x[1:] + r


def numpy_bool_in_a_loop(x):
    r = 0
    for v in x:
        if v > 2:
            r = v > 3
    return r


def test_a_python_int_held_in_a_numpy_bool():
    each(int_or_numpy_bool, PAIRS)
    each(one_or_numpy_bool, PAIRS)
    each(numpy_bool_in_a_loop, [(np.array(v),) for v in ([1.0, 1], [3.0, 1], [4.0, 1])])


def printed_int_or_bool(x):
    r = 0
    if x[0] > 0:
        r = x[1] > 3
    print(r, r + 1)
    return r


@pytest.mark.parametrize("x,shown", [(np.array([-1.0, 5]), "0 1\n"),
                                     (np.array([1.0, 5]), "True 2\n")])
def test_print_shows_the_int_held_in_a_bool(x, shown, capfd):
    f = tpucc.compile(printed_int_or_bool, cache=False)
    capfd.readouterr()
    assert f(x) == printed_int_or_bool(x)
    assert capfd.readouterr().out == shown * 2


def int_and_it(x):
    r = 0
    if x[0] > 0:
        r = x[1] > 3
    return r & True


def test_an_operator_whose_type_differs_for_the_int_raises_on_its_path():
    same_each(int_and_it, (np.array([1.0, 5]),))      # np.True_ & True: a NumPy bool
    err = raises_at(int_and_it, (np.array([-1.0, 5]),), RuntimeRaiseError,
                    match=r"Python int arithmetic held in a NumPy bool \(&\)",
                    line_of="r & True", cache=False)
    assert "r = False" in err.hint


# --- bug_05 (3): a Python bool held in a NumPy integer -------------------------------------

INTS = [(np.array(v),) for v in ([3, 1], [1, 1], [2, 9])]


def bool_or_numpy_int(x):
    r = x[0]
    if x[0] > 2:
        r = True
    return (r, r + 1, r * 2, r == 1, r is True, r > 0, isinstance(r, bool),
            isinstance(r, np.integer), int(r), x[1:] * r)


def bool_in_a_loop(x):
    r = x[0]
    for v in x:
        if v > 5:
            r = True
    return r


def bool_or_numpy_uint8(x):
    r = x[0]
    if x[0] > 2:
        r = False
    return r, r + 1


def test_a_python_bool_held_in_a_numpy_int():
    each(bool_or_numpy_int, INTS)
    each(bool_in_a_loop, [(np.array(v),) for v in ([3, 1], [1, 7])])
    each(bool_or_numpy_uint8, [(np.array(v, np.uint8),) for v in ([3, 1], [1, 1])])


def float32_times_it(x):
    r = x[0]
    if x[0] > 2:
        r = True
    return x.astype(np.float32) * r


def test_numpy_promotion_that_differs_for_the_bool_raises_on_its_path():
    same_each(float32_times_it, (np.array([1, 1]),))   # float32 * np.int64: float64
    err = raises_at(float32_times_it, (np.array([3, 1]),), RuntimeRaiseError,
                    match=r"Python bool arithmetic held in a NumPy integer \(\*\).*float32",
                    line_of="* r", cache=False)
    assert "np.int64(True)" in err.hint


def three_types(x):
    r = x[0]
    if x[0] > 2:
        r = True
    if x[1] > 2:
        r = 5
    return r


def test_three_types_in_one_slot_keep_the_int_and_the_numpy_int():
    # (the path that leaves True gives True: a second bool, session 48X3)
    each(three_types, [(np.array(v),) for v in ([1, 1], [3, 3], [1, 3], [3, 1])])
