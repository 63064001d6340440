"""Bugs found by session 26's adversarial sweep: each program now gives eager
NumPy's (and Python's) result, raises Python's error where Python raises
(at compile time where static values decide it, else as a runtime check),
or is refused with an error that names the line."""
import datetime
import enum
import fractions
import math
import warnings

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at


# --- list/tuple * runtime int: Python's repetition, not an elementwise product ---------

def test_sequence_times_runtime_int_is_refused():
    x = np.array([3.0, 7.0])
    raises_at(lambda x: (1, 2) * int(x[0]), (x,), E.StaticValueError,
              "repeating a tuple a runtime number of times", line_of="(1, 2) *")
    raises_at(lambda x: len([0] * int(x[0])), (x,), E.StaticValueError,
              "repeating a list", line_of="[0] *")
    raises_at(lambda x: int(x[0]) * [x[0], x[1]], (x,), E.StaticValueError,
              "repeating a list", line_of="int(x[0]) *")
    raises_at(lambda x: [1, 2] * np.int64(int(x[0])), (x,), E.StaticValueError,
              "repeating a list", line_of="np.int64")

    def in_place(x):
        s = [1, 2]
        s *= int(x[0])
        return s
    raises_at(in_place, (x,), E.StaticValueError, "repeating a list", line_of="s *=")

    def in_place_count(x):
        n = int(x[0])
        n *= [1, 2]
        return n
    raises_at(in_place_count, (x,), E.StaticValueError, "repeating a list", line_of="n *=")


def test_sequence_times_runtime_float_is_pythons_type_error():
    x = np.array([3.0, 7.0])
    raises_at(lambda x: [1, 2] * float(x[0]), (x,), E.UserCodeError,
              "can't multiply sequence by non-int of type 'float'")
    raises_at(lambda x: [1, 2] * x[0], (x,), E.UserCodeError,
              "non-int of type 'numpy.float64'")
    raises_at(lambda x: [1, 2] * (x[0] > 1), (x,), E.UserCodeError,
              "non-int of type 'numpy.bool'")


def test_sequence_times_array_stays_elementwise():
    x = np.array([3.0, 7.0])
    check(lambda x: [1, 2] * x, x)
    check(lambda x: (1.5, 2) * x[..., 0], x)
    check(lambda x: [1, 2] * 3 + [int(x[0])], x)


# --- Python numbers: ZeroDivisionError and negative shift counts ------------------------

@pytest.mark.parametrize("fn, match", [
    (lambda x: int(x[0]) // 0, "ZeroDivisionError: integer division or modulo by zero"),
    (lambda x: int(x[0]) % 0, "ZeroDivisionError: integer modulo by zero"),
    (lambda x: int(x[0]) / 0, "ZeroDivisionError: division by zero"),
    (lambda x: float(x[0]) / 0.0, "ZeroDivisionError: float division by zero"),
    (lambda x: divmod(int(x[0]), 0), "ZeroDivisionError"),
    (lambda x: 1 << (int(x[0]) + 1) >> -1, "ValueError: negative shift count"),
])
def test_python_number_by_static_zero_raises_at_compile_time(fn, match):
    """Python raises whatever the runtime dividend: a compile-time error
    at the line (the program's own: an except clause catches it)."""
    raises_at(fn, (np.array([3.0]),), E.UserCodeError, match, line_of="lambda")


def test_static_zero_division_is_caught_by_the_program():
    def f(x):
        try:
            return int(x[0]) % 0
        except ZeroDivisionError:
            return -1

    def g(x):
        n = int(x[0])
        try:
            n //= 0
        except ZeroDivisionError as e:
            return str(e)
        return "no"
    check(f, np.array([3.0]))
    check(g, np.array([3.0]))


def test_static_zero_division_under_a_runtime_if_is_a_runtime_check():
    def f(x):
        if x[0] > 5:
            return int(x[0]) // 0
        return 1
    compiled = tpucc.compile(f)
    assert compiled(np.array([3.0])) == 1
    with pytest.raises(E.RuntimeRaiseError, match="integer division or modulo by zero"):
        compiled(np.array([7.0]))


def test_numpy_scalars_divided_by_zero_do_not_raise():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        check(lambda x: (x[0] / 0, x[0] // 0, x[0] % 0, np.int64(3) // 0, x // 0), np.array([3.0, 0.0]))
        check(lambda x: (np.int64(int(x[0])) << -1, x.astype(int) >> -1), np.array([3.0, -1.0]))


def test_zero_to_a_negative_power_raises_at_run_time():
    f = tpucc.compile(lambda x: 0.0 ** (float(x[0]) - 5))
    assert f(np.array([7.0])) == 0.0
    with pytest.raises(E.RuntimeRaiseError, match="0.0 cannot be raised to a negative power") as info:
        f(np.array([3.0]))
    assert isinstance(info.value, ZeroDivisionError)
    g = tpucc.compile(lambda x: (float(x[1]) ** float(x[0]), float(x[2]) ** -1))
    assert g(np.array([-1.0, 2.0, 4.0])) == (0.5, 0.25)
    with pytest.raises(ZeroDivisionError):
        g(np.array([-1.0, 0.0, 4.0]))
    with pytest.raises(ZeroDivisionError):
        g(np.array([1.0, 2.0, 0.0]))
    check(lambda x: (float(x[0]) ** float(x[1]), 0.0 ** float(x[2])), np.array([0.0, 0.0, np.nan]))


def test_negative_shift_count_of_python_ints_raises_at_run_time():
    for fn in (lambda x: 1 << (int(x[0]) - 5), lambda x: 64 >> (int(x[0]) - 5)):
        compiled = tpucc.compile(fn)
        assert compiled(np.array([7.0])) == fn(np.array([7.0]))
        with pytest.raises(E.RuntimeRaiseError, match="negative shift count") as info:
            compiled(np.array([3.0]))
        assert isinstance(info.value, ValueError)

    def shifts(x):
        n = int(x[0])
        n <<= int(x[1])
        return n, -8 >> int(x[1])
    check(shifts, np.array([3.0, 2.0]))
    with pytest.raises(ValueError, match="negative shift count"):
        tpucc.compile(shifts)(np.array([3.0, -2.0]))


# --- reductions with an integer dtype= convert floats as astype does ---------------------

@pytest.mark.parametrize("fn", [
    lambda x: x.sum(dtype=np.int8), lambda x: np.cumsum(x, dtype=np.int8),
    lambda x: x.prod(dtype=np.int8), lambda x: x.mean(dtype=np.int8),
    lambda x: np.cumprod(x, dtype=np.uint8), lambda x: np.var(x, dtype=np.int8),
    lambda x: np.sum(x, dtype=np.uint8, where=x > 150), lambda x: np.nansum(x, dtype=np.int8),
    lambda x: np.sum(x[:, None] * 1e30, axis=1, dtype=np.int32),
])
def test_reduction_int_dtype_of_floats_wraps(fn):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        check(fn, np.array([100.0, 200.0, 300.0, -1.5]))


def test_reduction_dtype_of_complex_keeps_the_real_part():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda c: (np.sum(c, dtype=float), np.sum(c, dtype=np.int8)),
              np.array([1 + 2j, 300 + 1j]))


# --- a Python complex into a real array: NumPy's TypeError -----------------------------

def _assign_complex(x):
    x[0] = 1.5 + 2j
    return x


def _fill_complex(x):
    x.fill(1.5 + 2j)
    return x


def _assign_runtime_complex(x):
    x[1:] = complex(x[0])
    return x


def _assign_list_with_complex(x):
    x[:] = [1, 2j, 3]
    return x


@pytest.mark.parametrize("fn, line", [(_assign_complex, "x[0] ="), (_fill_complex, "x.fill"),
                                      (_assign_runtime_complex, "x[1:] ="),
                                      (_assign_list_with_complex, "x[:] =")])
def test_python_complex_into_a_real_array_is_refused(fn, line):
    raises_at(fn, (np.ones(3),), E.DTypeError, "not 'complex'", line_of=line)
    raises_at(fn, (np.ones(3, np.int32),), E.DTypeError, "int\\(\\) argument", line_of=line)


def test_numpy_complex_into_a_real_array_drops_the_imaginary_part():
    def f(x, z):
        x[0] = z[0]
        b = np.zeros(2, bool)
        b[0] = 1 + 2j               # a bool array takes a Python complex
        return x, b, np.full_like(x, 1j), np.pad(x, 1, constant_values=1j)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(f, np.ones(3), np.array([2 + 3j]))


def test_initial_python_complex_into_a_real_reduction_is_refused():
    raises_at(lambda x: np.sum(x, initial=1j), (np.ones(3),), E.DTypeError, "not 'complex'")


# --- np.matrix is refused as masked arrays are ------------------------------------------

with warnings.catch_warnings():
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    M = np.matrix([[1.0, 2.0], [3.0, 4.0]])


def test_matrix_argument_is_refused():
    with pytest.raises(E.UnsupportedError, match=r"NumPy matrix \(np.matrix\) argument"):
        tpucc.compile(lambda x: x * x)(M)
    with pytest.raises(E.UnsupportedError, match="masked array argument"):
        tpucc.compile(lambda x: x * x)(np.ma.masked_array([1.0]))


def test_matrix_global_is_refused():
    def f(x):
        return x * M
    raises_at(f, (np.ones((2, 2)),), E.UnsupportedError, "global `M`", line_of="x * M")


# --- int() / float() / complex() of arrays with axes: NumPy 2.4's TypeError ------------

def _only_0d() -> bool:
    try:
        float(np.ones(1))
    except TypeError:
        return True
    return False


@pytest.mark.skipif(not _only_0d(), reason="this NumPy converts size-1 arrays")
@pytest.mark.parametrize("fn", [lambda x: float(x), lambda x: int(x * 2), lambda x: complex(x),
                                lambda x: math.floor(x), lambda x: math.sqrt(x)])
@pytest.mark.parametrize("shape", [(1,), (1, 1), (3,)])
def test_python_number_of_an_array_with_axes_is_a_type_error(fn, shape):
    raises_at(fn, (np.ones(shape),), E.UserCodeError,
              "TypeError: only 0-dimensional arrays can be converted", line_of="lambda")


def test_python_number_of_0d_values_and_truth_of_size_1():
    check(lambda x: (float(x[0]), int(x.sum()), complex(x[0]), bool(x), x.item(),
                     math.floor(x[0])), np.ones(1))
    check(lambda x: (float(x), int(x)), np.array(2.5))

    def caught(x):
        try:
            return int(x)
        except TypeError:
            return -1
    check(caught, np.ones(1))


def test_round_of_an_array_with_axes_is_a_type_error():
    raises_at(lambda x: round(x), (np.ones(1),), E.UserCodeError,
              "type numpy.ndarray doesn't define __round__ method")


# --- astype: casting= and order= ---------------------------------------------------------

def test_astype_casting_is_checked():
    x = np.ones(3)
    raises_at(lambda x: x.astype(np.int32, casting="safe"), (x,), E.UserCodeError,
              r"TypeError: Cannot cast array data from dtype\('float64'\) to "
              r"dtype\('int32'\) according to the rule 'safe'", line_of="astype")
    raises_at(lambda x: x[0].astype(np.int32, casting="same_kind"), (x,), E.UserCodeError,
              "TypeError: Cannot cast scalar from")
    raises_at(lambda x: x.astype(np.int32, casting="bogus"), (x,), E.UserCodeError,
              "ValueError: casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe'")
    raises_at(lambda x: x[x > 0].astype(np.int8, casting="safe"), (x,), E.UserCodeError,
              "Cannot cast array data")
    check(lambda x: (x.astype(np.float32, casting="same_kind"),
                     x.astype(np.int32, "C", "unsafe", True, False),
                     x.astype(np.complex128, casting="safe"), x[0].astype(int, casting="unsafe")),
          x)


def test_astype_order():
    x = np.arange(6.0).reshape(2, 3)
    check(lambda x: (x.astype(np.int64, order="C"), x.astype(np.int64, order="K"),
                     x.astype(np.float32, order="A"), x[0].astype(int, order="F"),
                     x.astype(int, subok=False)), x)
    check(lambda x: (x.astype(np.float64, order="F"), x.astype(int, order="F").ravel("K")), x)
    raises_at(lambda x: x.astype(np.float64, order="X"), (x,), E.UserCodeError,
              "ValueError: order must be one of")


# --- round() of a runtime inf / nan raises as int() does ---------------------------------

def test_round_of_runtime_nonfinite_raises():
    f = tpucc.compile(lambda x: round(float(x[0]) * x[1]))
    with pytest.raises(E.RuntimeRaiseError, match="cannot convert float infinity to integer") \
            as info:
        f(np.array([3.0, math.inf]))
    assert isinstance(info.value, OverflowError)
    with pytest.raises(E.RuntimeRaiseError, match="cannot convert float NaN to integer") as info:
        f(np.array([3.0, math.nan]))
    assert isinstance(info.value, ValueError)
    check(lambda x: (round(float(x[0])), round(x[1]), round(x[2]), round(float(x[0]), 1)),
          np.array([2.5, -3.5, 7.49], np.float32))


# --- np.sign of -0.0 is +0.0 -------------------------------------------------------------

@pytest.mark.parametrize("x", [np.array([-0.0, 0.0, -2.0, 3.0, np.nan]),
                               np.array([-0.0, 0.0, -2.0], np.float32),
                               np.array([complex(-0.0, -0.0), complex(0.0, -0.0),
                                         complex(-0.0, 0.0), 3 - 4j])])
def test_sign_of_negative_zero_is_positive_zero(x):
    expected = np.sign(x)
    compiled = tpucc.compile(lambda v: np.sign(v))(x)
    check(lambda v: np.sign(v), x)
    np.testing.assert_array_equal(np.signbit(compiled.real), np.signbit(expected.real))
    np.testing.assert_array_equal(np.signbit(compiled.imag), np.signbit(expected.imag))


# --- np.full_like / np.full fill values as NumPy converts them ---------------------------

@pytest.mark.parametrize("fn", [
    lambda x: np.full_like(x, "1.5"), lambda x: np.full_like(x, None),
    lambda x: np.full_like(x, [1, 2, 3]), lambda x: np.full_like(x, (1, 2, 3), dtype=np.int8),
    lambda x: np.full((2, 3), [1.5, 2, 3], dtype=int), lambda x: np.full(3, [1, 2, 3]),
    lambda x: np.full_like(x, [x[0], 2.0, 3.0]), lambda x: np.full_like(x, np.nan, dtype=int),
    lambda x: np.full_like(x, np.array([300, 2, 1]), dtype=np.int8),
])
def test_full_like_fill_values(fn):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        check(fn, np.ones(3))


def test_full_like_fill_values_numpy_refuses():
    raises_at(lambda x: np.full_like(x, "abc"), (np.ones(3),), E.UserCodeError,
              "ValueError: could not convert string to float", line_of="full_like")
    raises_at(lambda x: np.full_like(x, -1, dtype=np.uint8), (np.ones(3),), E.UserCodeError,
              "Python integer -1 out of bounds for uint8")
    raises_at(lambda x: np.full(3, None), (np.ones(3),), E.DTypeError, "object")


# --- runtime values into library classes -------------------------------------------------

class Mode(enum.IntEnum):
    A = 1
    B = 2


class Level(enum.Enum):
    LOW = 0.5
    HIGH = 1.0


@pytest.mark.parametrize("fn, name", [
    # (an enum of ints looked up by a runtime int is a choice: test_fixes_session49A.py)
    (lambda x: Level(float(x[0])), "Level"),
    (lambda x: fractions.Fraction(int(x[0])), "fractions.Fraction"),
    (lambda x: datetime.timedelta(seconds=float(x[0])), "datetime.timedelta"),
])
def test_runtime_value_into_a_library_class_is_refused_cleanly(fn, name):
    err = raises_at(fn, (np.ones(3),), E.StaticValueError,
                    rf"{name}\(\) of a runtime value", line_of="lambda")
    assert "Array(" not in str(err)


def test_library_containers_still_hold_runtime_values():
    import collections
    import functools

    def f(x):
        scale = functools.partial(np.multiply, x[0])
        d = collections.OrderedDict(a=x[1])
        return scale(x), d["a"], Mode(2), fractions.Fraction(3, 4) * 2
    check(f, np.array([2.0, 3.0]))


# --- NumPy-heavy sweep: views of slices, setitem values, static masks ---------------------

def test_ravel_and_reshape_of_a_column_slice_are_copies():
    """x[:, 1:] is not C-contiguous: NumPy's ravel/reshape copy it (writes
    must not reach x, and later writes to x must not reach the copy)."""
    def copies(x):
        r = x[:, 1:].ravel()
        r[0] = -5.0
        q = np.ravel(x[:, ::2])
        q += 100
        s = x[:, 1:].reshape(-1)
        x[0, 1] = 99
        return x, s

    def views(x):
        r = x[1:].ravel()
        r[0] = -7.0
        s = x[1, :].reshape(2, 2)
        s += 1
        return x
    check(copies, np.arange(12.0).reshape(3, 4))
    check(views, np.arange(12.0).reshape(3, 4))


def test_setitem_value_with_extra_leading_unit_axes():
    def f(x, v, i):
        x[0] = v                # (1, 2) into (2,)
        x[1:3] = v[None]        # (1, 1, 2) into (2, 2)
        x[i] = v[None, None]    # a runtime row
        return x
    check(f, np.zeros((4, 2)), np.array([[1.0, 2.0]]), np.int64(3))

    def wrong(x, v):
        x[0] = v                # (2, 2) into (2,): NumPy's ValueError
        return x
    raises_at(wrong, (np.zeros((3, 2)), np.ones((2, 2))), tpucc.errors.ShapeError,
              match=r"from shape \(2, 2\) into shape \(2,\)", line_of="x[0] = v")


def test_static_boolean_list_index():
    def f(x):
        a = x[[True, False, True]]
        b = x[:, [False, True]]
        c = x[[True, True, False], 1]
        x[[False, True, False]] = -1
        return a, b, c, x
    check(f, np.arange(6.0).reshape(3, 2))
    raises_at(lambda x: x[[True, False]], (np.arange(6.0).reshape(3, 2),),
              match="boolean index did not match indexed array along axis 0")


def test_reshape_of_a_view_is_a_view_exactly_when_numpys_is():
    """NumPy reshapes without a copy when the view's strides allow it,
    whether or not the view is contiguous."""
    def reshapes(x):
        z = x.reshape(2, 3, 4)
        v = z[:, :, 1:].reshape(6, 3)       # a view
        v[0, 0] = -1
        w = z[:, 1:].reshape(2, 8)          # a view
        w[0, 0] = -2
        u = z[:, 1:].reshape(4, 4)          # a copy
        u[0, 0] = -3
        t = z.transpose(1, 0, 2).reshape(3, 8)      # a copy
        t[0, 0] = -4
        s = z[1].T.reshape(-1)              # a copy
        s[1] = -5
        c = x.reshape(6, 4)[:, 1:2].reshape(-1)     # one column: a view
        c[2] = -6
        return x

    def runtime_rows(x, i):
        r = x[i].reshape(2, 2)
        r += 10
        c = x[:, i].reshape(-1)
        c += 1
        return x
    check(reshapes, np.arange(24.0))
    check(runtime_rows, np.arange(12.0).reshape(3, 4), np.int64(1))


def test_sign_of_complex_numbers_with_an_infinite_part():
    z = np.array([complex(np.inf, 1), complex(np.inf, np.inf), complex(-np.inf, 0),
                  complex(1, np.inf), complex(1, -np.inf), complex(np.nan, 1), 0j,
                  complex(3, 4), complex(np.inf, np.nan), complex(np.nan, np.inf)])
    for dtype in (np.complex128, np.complex64):
        check(np.sign, z.astype(dtype))


def python_powers(x):
    return float(x[0]) ** 0.5, float(x[1]) ** 2.0, float(x[0]) ** float(x[2]), \
        (-2.0) ** float(x[2]), float(x[0]) ** float("inf")


def test_a_negative_python_float_to_a_fractional_power_raises():
    """Python gives a complex number there (NumPy's floats give NaN):
    compiled code, which computes a float, raises when the call returns."""
    check(python_powers, np.array([4.0, -3.0, 2.0]))
    with pytest.raises(tpucc.errors.TpuccError, match="a negative number to a fractional "
                                                      "power is a complex number in Python"):
        tpucc.compile(python_powers)(np.array([-4.0, -3.0, 0.5]))
    with np.errstate(invalid="ignore"):
        check(lambda x: np.float64(x[0]) ** 0.5, np.array([-4.0]))
