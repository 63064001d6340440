"""Session 44a1's fix: a Python number merged with a NumPy scalar by a
runtime `if` or loop (held_ints: `total = 0.0`, then `total += v` of a
NumPy v only under a runtime `if`) raises Python's ZeroDivisionError for
/ // % divmod and 0 to a negative power on the path that kept the Python
number, as eager code does (it returned nan, inf or 0).  Beside a NumPy
scalar, or on the paths that hold the NumPy scalar, NumPy's inf / 0 / NaN
stay."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc

from conftest import raises_at, same


def eager_error(fn, *args):
    """The ZeroDivisionError (or ValueError) eager code raises."""
    with np.errstate(all="ignore"):
        try:
            fn(*args)
        except (ZeroDivisionError, ValueError) as e:
            return e
    raise AssertionError("eager code raised nothing")


def same_error(fn, *args, line_of):
    """Compiled raises what eager raises: its class (a subclass of it) and
    its message, at the line of `line_of`."""
    expected = eager_error(fn, *args)
    err = raises_at(fn, args, type(expected), line_of=line_of, cache=False)
    assert str(expected) in str(err), (str(expected), str(err))


# --- a float total and an int count kept in a loop -------------------------------------------

def mean_above(x, thr):
    total = 0.0
    n = 0
    for v in x:
        if v > thr:
            total += v
            n += 1
    return total / n


def mean_above_inplace(x, thr):
    total = 0.0
    n = 0
    for v in x:
        if v > thr:
            total += v
            n += 1
    total /= n
    return total


def floor_and_mod_of_total(x, thr):
    total = 0.0
    n = 0
    for v in x:
        if v > thr:
            total += v
            n += 1
    return total // n, total % n


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("fn", [mean_above, mean_above_inplace])
def test_mean_of_none_raises(fn, dtype):
    same_error(fn, np.array([3, -1, 4], dtype), 100, line_of="/")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn", [mean_above, mean_above_inplace, floor_and_mod_of_total])
def test_mean_of_some_computes(fn, dtype):
    same(fn, np.array([3, -1, 4], dtype), 0)


def test_floor_division_of_total_raises():
    same_error(floor_and_mod_of_total, np.array([3.0, -1, 4]), 100.0, line_of="//")


# --- an int count set under a runtime `if` ------------------------------------------------------

def per_event(x, thr):
    cnt = 0
    if x.max() > thr:
        cnt = (x > thr).sum()
    return 100 // cnt


def modulo_count(x, thr):
    cnt = 0
    if x.max() > thr:
        cnt = (x > thr).sum()
    return 7 % cnt


def divide_by_count(x, thr):
    cnt = 0
    if x.max() > thr:
        cnt = (x > thr).sum()
    return 7 / cnt


def divmod_count(x, thr):
    cnt = 0
    if x.max() > thr:
        cnt = (x > thr).sum()
    return divmod(7, cnt)


def narrow_count(x, thr):
    cnt = 0
    if x.max() > thr:
        cnt = np.int32((x > thr).sum())
    return 100 // cnt


COUNTS = [per_event, modulo_count, divide_by_count, divmod_count, narrow_count]
SYMBOL = {per_event: "//", modulo_count: "%", divide_by_count: "/", divmod_count: "divmod",
          narrow_count: "//"}


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.uint8])
@pytest.mark.parametrize("fn", COUNTS)
def test_count_kept_zero_raises(fn, dtype):
    same_error(fn, np.array([3, 1, 4], dtype), 100, line_of=SYMBOL[fn])


@pytest.mark.parametrize("fn", COUNTS)
def test_count_set_computes(fn):
    same(fn, np.array([3, 1, 4]), 2)


def numpy_zero_count(x, thr):
    cnt = 0
    if x.max() > thr:
        cnt = (x > 2 * thr).sum()
    return 100 // cnt, 7 % cnt, 7 / cnt, divmod(7, cnt)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_numpy_zero_count_gives_numpy_result(dtype):
    """The NumPy path's zero count divides as NumPy does (0, or inf)."""
    same(numpy_zero_count, np.array([3, 1, 4], dtype), 2)


# --- a float scale set under a runtime `if` ---------------------------------------------------

def reciprocal(x, thr):
    s = 0.0
    if x.max() > thr:
        s = x.sum()
    return 1.0 / s


def negative_power(x, thr):
    s = 0.0
    if x.max() > thr:
        s = x.sum()
    return s ** -1


def int_over_float(x, thr):     # a Python int on one path, a NumPy float on the other
    s = 0
    if x.max() > thr:
        s = x.sum()
    return 7 // s


def divided_by_static_zero(x, thr):
    s = 1.0
    if x.max() > thr:
        s = x.sum()
    return s / 0


def divided_by_numpy_zero(x, thr):   # beside a NumPy scalar, NumPy's rules on every path
    s = 0.0
    if x.max() > thr:
        s = x.sum()
    return s / np.float64(0), np.float64(0) / s


SCALES = {reciprocal: "/", negative_power: "**", int_over_float: "//",
          divided_by_static_zero: "/"}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn", list(SCALES))
def test_scale_kept_raises(fn, dtype):
    same_error(fn, np.array([3, -1, 4], dtype), 100, line_of=SCALES[fn])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn", list(SCALES) + [divided_by_numpy_zero])
def test_scale_set_computes(fn, dtype):
    same(fn, np.array([3, -1, 4], dtype), 0)


def test_numpy_zero_beside_held_number():
    same(divided_by_numpy_zero, np.array([3.0, -1, 4]), 100.0)


def test_negative_shift_of_held_int():
    """The other Python error of the same operand checks: a negative
    shift count (NumPy's shift gives 0)."""
    def shift(x, thr):
        s = 1
        if x.max() > thr:
            s = (x > thr).sum()
        return s << -1
    same_error(shift, np.array([3, -1, 4]), 100, line_of="<<")
    same(shift, np.array([3, -1, 4]), 0)


def test_caught_zero_division_is_refused():
    """An `except ZeroDivisionError` around the check is refused, as for
    a Python number on every path (compiled code raises when it returns)."""
    def caught(x, thr):
        cnt = 0
        if x.max() > thr:
            cnt = (x > thr).sum()
        try:
            return 100 // cnt
        except ZeroDivisionError:
            return -1
    with pytest.raises(tpucc.TpuccError):
        tpucc.compile(caught, cache=False)(np.array([3, -1, 4]), 100)


def test_division_by_zero_messages_are_pythons():
    """The messages are this Python's own (it words them per version)."""
    for fn, args in [(mean_above, (np.array([1.0]), 5.0)), (per_event, (np.array([1]), 5)),
                     (modulo_count, (np.array([1]), 5))]:
        with pytest.raises(ZeroDivisionError) as info:
            tpucc.compile(fn, cache=False)(*args)
        assert str(eager_error(fn, *args)) in str(info.value)


# --- a Python int held in a NumPy float dtype, to a negative power ----------------------------

def int_scale_to_negative_power(x, thr, start):
    s = start
    if x.max() > thr:
        s = x.sum()             # a NumPy float here, the Python int `start` otherwise
    return s ** -1, s ** -2


def test_held_int_zero_to_negative_power_raises():
    same_error(int_scale_to_negative_power, np.array([3.0, -1, 4]), 100.0, 0, line_of="** -1")


@pytest.mark.parametrize("start", [2, -4])
@pytest.mark.parametrize("thr", [100.0, 0.0])
def test_held_int_to_negative_power_is_a_float(thr, start):
    """Python's int ** -1 is a float (0.5), where the merged value's dtype
    rules said an int (compiled code gave 0)."""
    x = np.array([3.0, -1, 4])
    expected = int_scale_to_negative_power(x, thr, start)
    got = tpucc.compile(int_scale_to_negative_power, cache=False)(x, thr, start)
    assert got == expected and [type(v) for v in got] == [type(v) for v in expected]
