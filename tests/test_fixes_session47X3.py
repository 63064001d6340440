"""Session 47X3 fixes (sweep 47X, bug_03).

- bug_03: a Python bool merged into a Python int slot by a runtime `if` or
  loop (`r = 0; if x.sum() > 0: r = True; return r`, `n = 0; for v in x:
  if v > 1: n = flag`) came back as the int 1 (or 0) where eager Python
  gives True (False).  The slot is still a runtime Python int (True is 1
  there), now with a runtime bool saying where the path left the Python bool
  (infer/held_ints.py), as a Python int held in a NumPy dtype has: the
  caller gets a bool there, print() shows True, isinstance() and `is True`
  answer at run time, and & | ^ of Python bools stay bools on their paths.
  Arithmetic gives the same int for True as for 1.  What NumPy treats
  differently (a bool mask + r, an array indexed by r: a[True] is a new
  axis) raises on the path that holds the bool.
"""
from __future__ import annotations

import math
import operator
import re

import numpy as np
import pytest

import tpucc
from tpucc.errors import RuntimeRaiseError, StaticValueError

from conftest import raises_at, same_each

POSITIVE, NEGATIVE, MIXED = np.arange(5.0), -np.arange(5.0), np.array([3.0, 2, 1, 0, 5])
INPUTS = [(POSITIVE,), (NEGATIVE,), (MIXED,), (np.zeros(5),)]


def each(fn, inputs=INPUTS):
    return same_each(fn, *inputs)


# --- the sweep's repro ----------------------------------------------------------------------

def set_under_if(x):
    r = 0
    if x.sum() > 0:
        r = True
    return r


def rebound_to_a_bool_in_a_loop(x):
    flag = False
    n = 0
    for v in x:
        if v > 1:
            n = flag
    return n


def rebound_to_a_numpy_bool_in_a_loop(x):
    r = 0
    for v in x:
        if v > 2:
            r = v > 3
    return r


@pytest.mark.parametrize("fn", [set_under_if, rebound_to_a_bool_in_a_loop])
def test_sweep_repro_returns_the_python_type_of_the_path_taken(fn):
    each(fn)


def test_sweep_repro_numpy_bool_where_the_loop_rebinds_it():
    # (a NumPy bool slot: where no iteration rebinds it, eager gives the int
    # 0, compiled np.False_, a gap of its own left open: see the report)
    each(rebound_to_a_numpy_bool_in_a_loop, [(POSITIVE,), (MIXED,)])


# --- other spellings: bool first, runtime bools, elif, while, loops that may not run -------

def bool_first_then_int(x):
    r = True
    if x.sum() > 0:
        r = 7
    return r


def runtime_bool_else_int(x):
    if x[0] > 1:
        r = bool(x[1] > 2)
    elif x[1] < 0:
        r = -3
    else:
        r = 2
    return r


def int_ops_after_a_loop(x):
    r = False
    for v in x:
        if v > 2:
            r = r + 1
    return r


def while_loop(x):
    r = 0
    i = 0
    while i < x.shape[0] and x[i] < 3:
        r = bool(x[i] > 1)
        i += 1
    return r, i


def merged_twice(x):
    r = True
    if x.sum() > 0:
        r = 7
    s = r
    if x[0] > 1:
        s = False
    return r, s


def appended_in_a_counted_loop(x):
    out = []
    r = 0
    for v in x:
        if v > 2:
            r = True
        out.append(r)
    return out


def an_int_in_a_bool_loop_slot(x):
    best = False
    i = 0
    while i < len(x):
        if x[i] > 3:
            best = i
        i += 1
    return best


@pytest.mark.parametrize("fn", [bool_first_then_int, runtime_bool_else_int, int_ops_after_a_loop,
                                while_loop, merged_twice, appended_in_a_counted_loop,
                                an_int_in_a_bool_loop_slot])
def test_merges_of_python_bools_and_ints(fn):
    each(fn)


def float32_input(x):
    r = 0
    if x[0] > 0:
        r = x[1] > 0
        r = bool(r)
    return r, r + x[2]


def rebound_in_a_runtime_range(x, m):
    n = 0
    for i in range(m):
        if x[i] > 50:
            n = True
        elif x[i] > 40:
            n = n + 1
    return n


def test_loops_that_run_as_whiles():
    # (300 iterations: past the unroll budget; range(m): a runtime bound)
    each(rebound_to_a_bool_in_a_loop, [(np.arange(300.0),), (-np.arange(300.0),)])
    each(rebound_in_a_runtime_range, [(np.arange(100.0), 80), (np.arange(100.0), 45),
                                      (np.arange(100.0), 20)])


def test_other_dtypes():
    each(float32_input, [(np.array(v, np.float32),) for v in ([1, 1, 2], [1, -1, 2], [-1, 1, 2])])
    each(set_under_if, [(np.array(v, np.int32),) for v in ([1, 2], [-3, 1])])


# --- Python's operators on it -------------------------------------------------------------

def arithmetic(x):
    r = 0
    if x.sum() > 0:
        r = True
    return r + 1, -r, ~r, abs(r), +r, r * 2.5, r == 1, r // 1, r ** 2, r << 2, r / 2


def bitwise(x):
    r = 0
    if x.sum() > 0:
        r = True
    flag = bool(x[1] > 0)
    return r & True, r | 1, r ^ False, True & r, 1 | r, r & flag, r ^ r


def identity_and_types(x):
    r = 5
    if x.sum() > 0:
        r = bool(x[0] > 0)
    return (r is True, r is False, r is not True, isinstance(r, bool), isinstance(r, int),
            int(r), bool(r), float(r))


def number_methods(x):
    r = 0
    if x.sum() > 0:
        r = True
    return (r.real, r.conjugate(), r.numerator, operator.index(r), math.floor(r), math.trunc(r),
            r.imag, r.bit_length(), round(r), r.__int__(), r.__bool__())


def picks_and_containers(x):
    r = 0
    if x.sum() > 0:
        r = True
    return max(r, 0), min(r, 2), max(r, False), [r], {"k": r}, (r, 1)


def python_sequences_indexed(x):
    r = 0
    if x.sum() > 0:
        r = True
    items = [x[0], x[1]]
    return [1, 2][r], (3, 4)[r], items[r], x[r + 1], x + r, x * r


@pytest.mark.parametrize("fn", [arithmetic, bitwise, identity_and_types, number_methods,
                                picks_and_containers, python_sequences_indexed])
def test_python_operators_follow_the_path(fn):
    each(fn)


def printed(x):
    r = 0
    if x.sum() > 0:
        r = True
    print(r, f"<{r}>", repr(r), [r])
    return r


def test_print_shows_true_where_eager_does(capfd):
    compiled = tpucc.compile(printed, cache=False)
    for x in (POSITIVE, NEGATIVE):
        printed(x)
        expected = capfd.readouterr().out
        compiled(x)
        assert capfd.readouterr().out == expected


# --- what NumPy tells apart: raised on the path that holds the bool ------------------------

def bool_mask_plus_it(x, mask):
    r = 0
    if x.sum() > 0:
        r = True
    return mask + r


def bool_mask_and_it(x, mask):
    r = 0
    if x.sum() > 0:
        r = True
    return mask & r


def numpy_bool_plus_it(x, mask):
    r = 0
    if x.sum() > 0:
        r = True
    return mask[0] + r


@pytest.mark.parametrize("fn,symbol", [(bool_mask_plus_it, "+"), (bool_mask_and_it, "&"),
                                       (numpy_bool_plus_it, "+")])
def test_numpy_promotion_that_differs_for_a_bool_raises_on_its_path(fn, symbol):
    mask = np.array([True, False, True])
    same_each(fn, (NEGATIVE[:3], mask))          # the int's path: NumPy's int64
    err = raises_at(fn, (POSITIVE[:3] + 1, mask), RuntimeRaiseError,
                    match=rf"Python bool held in a Python int \({re.escape(symbol)}\).*NumPy "
                          r"gives bool", line_of="+ r" if symbol == "+" else "& r", cache=False)
    assert "r = int(flag)" in err.hint


def array_indexed_by_it(x):
    r = 0
    if x.sum() > 0:
        r = True
    return x[r]


def array_item_set_by_it(x):
    r = 0
    if x.sum() > 0:
        r = True
    y = x.copy()
    y[r] = 7.0
    return y


@pytest.mark.parametrize("fn,line", [(array_indexed_by_it, "x[r]"),
                                     (array_item_set_by_it, "y[r] = 7.0")])
def test_array_indexed_by_it_raises_where_it_is_the_bool(fn, line):
    same_each(fn, (NEGATIVE,))
    raises_at(fn, (POSITIVE,), RuntimeRaiseError, match=r"a\[True\] is a\[None\]",
              line_of=line, cache=False)


def type_of_it(x):
    r = 0
    if x.sum() > 0:
        r = True
    return type(r)


def test_type_of_it_is_refused_at_compile_time_naming_both_types():
    raises_at(type_of_it, (POSITIVE,), StaticValueError,
              match="a Python bool on some runtime paths and a Python int on others",
              line_of="type(r)", cache=False)

