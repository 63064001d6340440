"""Session 48J2's fix (sweep 48J bug_05): an IntEnum member (or an instance
of a user's `class Day(int)` / `class M(float)`) meeting a runtime NumPy
scalar: `x[0] == WD.SAT` gave False (a Python bool), `!=` and `in` the
opposite of NumPy's answer, and `<`, `>=`, `+`, `-`, `%`, `&`, divmod()
raised a false E700 TypeError.  NumPy converts such a number as the int
(int64) or float (float64) it is and ignores the subclass's methods; tpucc
took it for an object NumPy cannot convert.  With a runtime Python number
(`int(x) == WD.SAT`) the value was right but the type np.True_, where
Python's own int methods give True; and `M(2.5) + x[0]` of a float64 is
float's method, a Python float."""
from __future__ import annotations

import enum

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import assert_same, raises_at, same_each


class WD(enum.IntEnum):
    MON = 0
    SAT = 5
    SUN = 6


class Flags(enum.IntFlag):
    A = 1
    B = 2


class Day(int):
    pass


class Meters(float):
    pass


class Phase(complex):
    pass


def exact(expected, actual):
    """assert_same, and the same Python type at every leaf (it lets a Python
    bool pass for np.bool_, a float for np.float64)."""
    assert_same(expected, actual)
    if isinstance(expected, tuple):
        assert type(actual) is tuple and len(actual) == len(expected)
        for e, a in zip(expected, actual):
            exact(e, a)
    else:
        assert type(expected) is type(actual), f"expected {expected!r}, got {actual!r}"


def each(fn, *args):
    same_each(fn, *((a,) for a in args), compare=exact)


INTS = (np.int64(5), np.int64(6), np.int64(0))
SCALARS = {
    "int64": INTS,
    "int8": tuple(np.int8(v) for v in INTS),
    "uint8": tuple(np.uint8(v) for v in INTS),
    "float32": (np.float32(5), np.float32(2.5)),
    "float64": (np.float64(5), np.float64(-2.5)),
}


# --- an IntEnum member and a runtime NumPy scalar -----------------------------------------

def compared_and_combined(wd):
    return (wd == WD.SAT, wd != WD.SAT, wd >= WD.SAT, WD.SAT > wd,
            wd + WD.SAT, wd - WD.SUN, WD.SUN - wd, wd * WD.SAT, wd / WD.SAT)


@pytest.mark.parametrize("dtype", list(SCALARS))
def test_int_enum_member_meets_numpy_scalar(dtype):
    each(compared_and_combined, *SCALARS[dtype])


def test_int_enum_repro():
    """The sweep's repro: np.True_ as NumPy gives it, not False or an E700."""
    is_sat = tpucc.compile(lambda wd: wd == WD.SAT, cache=False)
    weekend = tpucc.compile(lambda wd: wd >= WD.SAT, cache=False)
    exact(np.True_, is_sat(np.int64(5)))
    exact(np.True_, weekend(np.int64(5)))


def remainders(wd):
    return wd % WD.SUN, WD.SUN % wd, wd // WD.SAT, WD.SUN // wd


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float64"])
def test_int_enum_remainder_and_floor_division(dtype):
    each(remainders, *(v for v in SCALARS[dtype] if v != 0))


def bits(wd):
    return wd & WD.SUN, WD.SAT | wd, wd ^ WD.SUN, wd << WD.SAT, WD.SUN >> wd


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8"])
def test_int_enum_bitwise_operators(dtype):
    each(bits, *SCALARS[dtype])


def divmods(wd):
    return divmod(wd, WD.SAT), divmod(WD.SUN, wd)


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_int_enum_divmod(dtype):
    each(divmods, *(v for v in SCALARS[dtype] if v != 0))


def membership(wd):
    return (wd in (WD.SAT, 6), wd in {WD.SAT, WD.SUN}, wd in [WD.MON, WD.SUN],
            wd not in (WD.SAT, WD.SUN))


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_int_enum_membership(dtype):
    each(membership, *SCALARS[dtype])


def power(wd):
    return wd ** WD.SAT


def test_int_enum_power():
    each(power, np.int64(2), np.int64(-3), np.float32(1.5))


def element_is_sat(days):
    return days[0] == WD.SAT, days[1] < WD.SAT, days[-1] + WD.SUN


def test_int_enum_member_and_array_element():
    each(element_is_sat, np.array([5, 3, 6]), np.array([0.0, 9.5, 5.0], np.float32))


def weekend_branch(wd):
    if wd >= WD.SAT:
        return wd - WD.SAT
    return wd + WD.SAT


def test_int_enum_comparison_decides_a_runtime_branch():
    each(weekend_branch, np.int64(6), np.int64(2))


def in_place(wd):
    wd += WD.SAT
    wd -= WD.MON
    return wd


def test_int_enum_in_place_operators():
    each(in_place, np.int64(4), np.int8(4))


def test_int_enum_arrays_unchanged():
    each(compared_and_combined, np.array([5, 0, 6]), np.array([[2.5], [5.0]], np.float32))


SAT_TODAY = np.int64(5)


def static_numpy_scalar():
    return SAT_TODAY == WD.SAT, SAT_TODAY < WD.SUN, SAT_TODAY + WD.SUN


def test_static_numpy_scalar_meets_int_enum_member():
    exact(static_numpy_scalar(), tpucc.compile(static_numpy_scalar, cache=False)())


# --- a plain int, float or complex subclass -------------------------------------------------

def subclasses(x):
    return (x == Day(5), x >= Day(5), x + Day(1), Day(7) - x,
            x < Meters(2.5), x * Meters(2.0), Meters(1.0) + x)


@pytest.mark.parametrize("dtype", ["int64", "int8", "float32", "float64"])
def test_int_and_float_subclass_meets_numpy_scalar(dtype):
    each(subclasses, *SCALARS[dtype])


def float_method_first(x):
    # float's own method goes first (Meters is not a base of np.float64) and
    # takes a float64, a float: Python floats and bools
    return Meters(2.5) + x, Meters(2.5) == x, Meters(2.5) < x, Meters(1.0) / x, \
        Phase(1 + 2j) * x


def test_float_subclass_first_takes_float64_as_a_float():
    each(float_method_first, np.float64(2.5), np.float64(-4.0))


def float_method_in_place(x):
    m = Meters(2.5)
    m += x
    m *= x
    return m


def test_float_subclass_in_place_takes_float64_as_a_float():
    each(float_method_in_place, np.float64(2.5), np.float64(-1.0))


def numpy_method_first(x):
    # a float32 is not a float: NumPy's method, float64 results
    return Meters(2.5) + x, Meters(2.5) == x


def test_float_subclass_meets_float32():
    each(numpy_method_first, np.float32(2.5), np.float32(1.0))


# --- a runtime Python number ------------------------------------------------------------------

def python_numbers(wd):
    n = int(wd)
    return n == WD.SAT, WD.SAT != n, n < WD.SUN, n + WD.SAT, WD.SUN - n, n / WD.SAT, \
        float(wd) * WD.SAT, n + Meters(0.5), n == Day(5), divmod(n, WD.SAT)


def test_runtime_python_number_meets_int_enum_member():
    """Python's int methods read the member as its number: Python types."""
    each(python_numbers, np.int64(5), np.int64(3), np.float64(6.0))


def python_int_in_place(x):
    n = int(x)
    n += WD.SAT
    n *= WD.SUN
    w = WD.SAT
    w += x
    return n, w


def test_runtime_python_int_in_place_with_int_enum_member():
    each(python_int_in_place, np.int64(3), np.int8(-2))


def runtime_bool(x):
    b = bool(x)
    return b + WD.SAT, b == WD.MON


def test_runtime_python_bool_meets_int_enum_member():
    each(runtime_bool, np.int64(0), np.int64(3))


def test_runtime_python_int_argument():
    f = tpucc.compile(lambda n: (n == WD.SAT, n + WD.SUN), cache=False, runtime_args=("n",))
    exact((True, 11), f(5))
    exact((False, 9), f(3))


# --- the subclass's own methods -----------------------------------------------------------------

class Reflecting(int):
    def __radd__(self, other):
        return other, "radd"

    def __eq__(self, other):
        return "eq"

    __hash__ = int.__hash__


class Prioritized(int):
    __array_priority__ = 100

    def __radd__(self, other):
        return other, "radd"


def own_methods(x):
    return int(x) + Reflecting(1), x + Reflecting(1), x == Reflecting(5), \
        Reflecting(5) == x, x + Prioritized(1)


def test_subclass_methods_python_calls_and_numpy_ignores():
    """Python calls a subclass's __radd__ first for an int operand; NumPy's
    scalar ignores it, except where __array_priority__ makes NumPy defer."""
    each(own_methods, np.int64(5), np.int64(1))


def flag_and(x):
    return x & Flags.B, Flags.B & x, x | Flags.A


def test_int_flag_member_meets_numpy_scalar():
    each(flag_and, np.int64(5), np.int64(2), np.int8(3))


def flag_of_runtime_int(x):
    return int(x) & Flags.B


def test_int_flag_of_runtime_python_int_refused_at_the_line():
    """`int(x) & Flags.B` is Flags.__rand__: a Flags member made from a
    runtime value, which compiled code cannot make (not a wrong np.int64)."""
    raises_at(flag_of_runtime_int, (np.int64(5),), E.StaticValueError,
              match="runtime value", line_of="int(x) & Flags.B", cache=False)
