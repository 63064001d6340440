"""Session 48X3 fixes (sweep 48X, bug_03).

- bug_03: Python types merged across runtime paths, where a slot holds
  three: `r = np.int64(0)`, then `r = 1` or `r = True` under runtime `if`s,
  came back as 1 where eager Python gives True; and a Python bool merged into
  a Python float (`r = 0.5`, then `r = True`) came back as 1.0.  A held
  value's one bool (Array.held_int) tells the Python int (or float) from the
  slot's own type; a Python bool beside them now has a second bool
  (Array.held_bool, held_ints.needs_bool_flag), carried by runtime `if`s,
  loops (variables, attributes, container items) and stacked lists, and read
  by the caller, print(), isinstance() and `is True`.  A Python bool in a
  Python float slot (or a NumPy float one) is held as in an int slot.
  Python's operators give the int's result on the bool's path but for & | ^
  of Python bools (a Python bool); NumPy promotion that differs for the bool
  (`mask + r` of a bool array) raises on its path (E910).
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc.errors import RuntimeRaiseError

from conftest import raises_at, same_each

# x[0] > 0 takes the first branch, else x[1] > 0 the second, else neither
PATHS = [(np.array(v),) for v in ([-1.0, 1.0], [1.0, 1.0], [-1.0, -1.0], [2.0, -1.0])]


def each(fn, inputs=PATHS):
    return same_each(fn, *inputs)


# --- the sweep's repro ----------------------------------------------------------------------

def three_way(x):
    r = np.int64(0)
    if x[0] > 0:
        r = 1
    elif x[1] > 0:
        r = True
    return r


def bool_in_float(x):
    r = 0.5
    if x[0] > 0:
        r = True
    return r


def test_repro():
    compiled = tpucc.compile(three_way, cache=False)
    got = compiled(np.array([-1.0, 1.0]))
    assert got is True
    assert type(compiled(np.array([1.0, 1.0]))) is int
    assert type(compiled(np.array([-1.0, -1.0]))) is np.int64
    assert tpucc.compile(bool_in_float, cache=False)(np.array([1.0, 1.0])) is True
    each(three_way)
    each(bool_in_float)


# --- other spellings, dtypes and orders -----------------------------------------------------

def int32_bool_then_int(x):
    r = np.int32(7)
    if x[0] > 0:
        r = True
    elif x[1] > 0:
        r = 1
    return r


def uint8_slot(x):
    r = np.uint8(3)
    if x[0] > 0:
        r = 2
    elif x[1] > 0:
        r = False
    return r


def numpy_bool_slot(x):
    r = x[0] > 5            # a NumPy bool
    if x[0] > 0:
        r = 1
    elif x[1] > 0:
        r = True
    return r


def numpy_float_slot(x):
    r = x[0] * 0.5          # a NumPy float64
    if x[0] > 0:
        r = 1.5
    elif x[1] > 0:
        r = True
    return r


def float32_slot(x):
    r = np.float32(0.25)
    if x[0] > 0:
        r = 3
    elif x[1] > 0:
        r = True
    return r


def numpy_float_and_bool(x):
    # (two types: a Python bool held in a NumPy float, once 1.0)
    r = x[0] * 0.5
    if x[1] > 0:
        r = True
    return r


def python_float_int_bool(x):
    r = 0.5
    if x[0] > 0:
        r = 1
    elif x[1] > 0:
        r = True
    return r


def python_float_bool_int(x):
    r = 0.5
    if x[0] > 0:
        r = False
    elif x[1] > 0:
        r = 4
    return r


def python_int_bool_float(x):
    r = 0
    if x[0] > 0:
        r = True
    elif x[1] > 0:
        r = 2.5
    return r


def bool_in_int_then_numpy(x):
    # (a Python int slot holding a bool, merged with a NumPy integer after)
    r = 0
    if x[0] > 0:
        r = True
    if x[1] > 0:
        r = np.int64(5)
    return r


def bool_in_int_then_float(x):
    r = 0
    if x[0] > 0:
        r = True
    if x[1] > 0:
        r = 0.25
    return r


@pytest.mark.parametrize("fn", [int32_bool_then_int, uint8_slot, numpy_bool_slot,
                                numpy_float_slot, float32_slot, numpy_float_and_bool,
                                python_float_int_bool, python_float_bool_int,
                                python_int_bool_float, bool_in_int_then_numpy,
                                bool_in_int_then_float])
def test_three_types_in_one_slot(fn):
    each(fn)


# --- what reads the type --------------------------------------------------------------------

def operators(x):
    r = np.int64(0)
    if x[0] > 0:
        r = 1
    elif x[1] > 0:
        r = True
    return (r & True, r | False, r ^ True, r & 1, r + 1, r + True, -r, r * 2.0, r == 1,
            r > 0)


def type_tests(x):
    r = np.int64(0)
    if x[0] > 0:
        r = 1
    elif x[1] > 0:
        r = True
    return (isinstance(r, bool), isinstance(r, int), isinstance(r, np.integer),
            r is True, r is False, r is not True)


def float_slot_reads(x):
    s = 0.5
    if x[0] > 0:
        s = 1
    elif x[1] > 0:
        s = True
    return (s + 1, s * 2.0, s / 2, -s, isinstance(s, bool), isinstance(s, int),
            isinstance(s, float), s is True)


def test_operators_and_type_tests():
    each(operators)
    each(type_tests)
    each(float_slot_reads)


def printed(x):
    r = np.int64(0)
    if x[0] > 0:
        r = 1
    elif x[1] > 0:
        r = True
    s = 0.5
    if x[0] > 0:
        s = 1
    elif x[1] > 0:
        s = True
    t = 0.5
    if x[1] > 0:
        t = True
    print(r, s, t, f"{r}|{s}")
    return 0


@pytest.mark.parametrize("x", [v for (v,) in PATHS])
def test_print_shows_the_bool(x, capfd):
    compiled = tpucc.compile(printed, cache=False)
    printed(x)
    want = capfd.readouterr().out
    compiled(x)
    assert capfd.readouterr().out == want


# --- loops and lists ------------------------------------------------------------------------

def in_a_runtime_loop(x, n):
    r = np.int64(0)
    for i in range(n):
        if x[i] > 1:
            r = 1
        elif x[i] > 0:
            r = True
    return r


def in_a_while_loop(x, n):
    r = np.int64(0)
    i = 0
    while i < n:
        if x[i] > 1:
            r = 1
        elif x[i] > 0:
            r = True
        i += 1
    return r


def merged_before_a_loop(x, n):
    r = np.int64(0)
    if x[0] > 1:
        r = 1
    elif x[0] > 0:
        r = True
    for i in range(n):
        if x[i] > 100:
            r = np.int64(7)
    return r


def python_float_in_a_loop(x, n):
    r = 0.5
    for i in range(n):
        if x[i] > 1:
            r = 1
        elif x[i] > 0:
            r = True
    return r


class Holder:
    def __init__(self):
        self.r = np.int64(0)


def attribute_in_a_loop(x, n):
    h = Holder()
    for i in range(n):
        if x[i] > 1:
            h.r = 1
        elif x[i] > 0:
            h.r = True
    return h.r


def dict_item_in_a_loop(x, n):
    d = {"r": np.int64(0)}
    for i in range(n):
        if x[i] > 1:
            d["r"] = 1
        elif x[i] > 0:
            d["r"] = True
    return d["r"], d


def appended(x, n):
    out = []
    for i in range(n):
        r = np.int64(0)
        if x[i] > 1:
            r = 1
        elif x[i] > 0:
            r = True
        out.append(r)
    return out


LOOP_INPUTS = [(np.array(v + [0.0] * 40), n) for v, n in
               (([-1.0], 30), ([0.5], 30), ([2.0], 30), ([0.5, 2.0, 0.5], 30), ([0.5], 0))]


@pytest.mark.parametrize("fn", [in_a_runtime_loop, in_a_while_loop, merged_before_a_loop,
                                python_float_in_a_loop, attribute_in_a_loop,
                                dict_item_in_a_loop])
def test_loops_carry_the_bool(fn):
    same_each(fn, *LOOP_INPUTS)


def test_stacked_list_items_keep_their_type():
    x = np.array([0.5, 2.0, -1.0, 0.5] * 30)
    same_each(appended, (x, 7), (x, 100))


# --- NumPy promotion that differs for the bool ----------------------------------------------

def mask_plus(x, mask):
    r = np.int64(0)
    if x[0] > 1:
        r = 1
    elif x[0] > 0:
        r = True
    return mask + r


def test_numpy_promotion_that_differs_for_the_bool_raises_on_its_path():
    mask = np.array([True, False])
    same_each(mask_plus, (np.array([2.0]), mask), (np.array([-1.0]), mask))
    raises_at(mask_plus, (np.array([0.5]), mask), RuntimeRaiseError,
              match=r"a Python bool held beside a Python int \(\+\).*gives bool",
              line_of="mask + r", cache=False)


def python_bool_in_a_python_float_plus(x, a):
    s = 0.5
    if x[0] > 0:
        s = True
    return a + s


def test_python_bool_in_a_python_float_beside_numpy():
    # float32 + True, + 0.5: float32 either way; int64 + True is int64, + 0.5 float64
    f32 = np.arange(3.0, dtype=np.float32)
    same_each(python_bool_in_a_python_float_plus, (np.array([1.0]), f32),
              (np.array([-1.0]), f32))
    err = raises_at(python_bool_in_a_python_float_plus, (np.array([1.0]), np.arange(3)),
                    RuntimeRaiseError, match=r"a Python bool held in a Python float \(\+\)",
                    line_of="a + s", cache=False)
    assert "float(flag)" in err.hint


# --- min(), max() and type() ----------------------------------------------------------------

def picked(x):
    r = np.int64(0)
    if x[0] > 1:
        r = 1
    elif x[0] > 0:
        r = True
    return max(r, 0), min(r, 5), max(int(x[1]), x[0] > 1, True)


def test_min_max_pick_the_bool():
    each(picked, [(np.array(v),) for v in ([-1.0, 0.0], [0.5, 1.0], [2.0, 3.0])])


def type_of(x):
    r = np.int64(0)
    if x[0] > 1:
        r = 1
    elif x[0] > 0:
        r = True
    return type(r)


def test_type_of_three_types_is_refused_with_isinstance_bool():
    from tpucc.errors import StaticValueError
    err = raises_at(type_of, (np.array([0.5]),), StaticValueError,
                    match="a Python int or bool on some runtime paths", line_of="type(r)",
                    cache=False)
    assert "isinstance(y, bool)" in err.hint
