"""Session 48K1's fixes (sweep 48K bug_01, bug_03, bug_06): the Python or
NumPy kind of scalar results.

- bug_01: `1j + x[0]` of an np.float64 gave np.complex128; Python's complex
  operators take np.float64 (a float subclass) first, so NumPy gives a
  Python complex (and Python's ZeroDivisionError for `1j / 0.0`).
- bug_03: np.power of two NumPy float scalars (a runtime exponent) gave a
  0-d array; a ufunc's 0-d result is a NumPy scalar.
- bug_06: np.imag of a real NumPy scalar gave a 0-d array; np.imag(v) is
  v.imag, of v's own kind (a Python number's is Python's 0 or 0.0).
"""
from __future__ import annotations

import copy
import functools
import operator

import numpy as np
import pytest

import tpucc

from conftest import assert_same


def _leaf_types(x):
    if isinstance(x, (tuple, list)):
        return type(x), [_leaf_types(v) for v in x]
    return type(x)


def same_kinds(fn, *arg_tuples):
    """assert_same for each tuple of arguments through one compiled fn, and
    the same Python type for each leaf: a Python complex and an
    np.complex128 (or a NumPy scalar and a 0-d array) differ."""
    compiled = tpucc.compile(fn, cache=False)
    for args in arg_tuples:
        eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
        with np.errstate(all="ignore"):
            expected = fn(*eager_args)
        actual = compiled(*comp_args)
        assert _leaf_types(actual) == _leaf_types(expected), (expected, actual)
        assert_same(expected, actual)
        assert_same(tuple(eager_args), tuple(comp_args))


# --- bug_01: a Python complex on the left of an np.float64 ------------------------

C = np.array([1.5, 2.0, -0.5])


def test_static_complex_operators_with_float64():
    def f(c):
        z = 1.5 - 2j
        return (1j + c[0], (2 + 1j) - c[1], z * c[1], 1j / c[0], (1 + 1j) ** c[1],
                (1.5 + 0j) == c[0], 1j != c[0])
    same_kinds(f, (C,), (C * 3,))


def test_float64_on_the_left_stays_numpy():
    def f(c):
        return c[0] + 1j, c[1] * (2 - 1j), c[0] == 1.5 + 0j, 2.0 + c[0], c[0] - 1j
    same_kinds(f, (C,))


def test_horner_with_complex_accumulator():
    def f(c, z):
        acc = 0j
        for k in range(len(c)):
            acc = acc * z + c[k]
        return acc
    same_kinds(f, (C, 0.5 + 1j), (np.array([2.0, -1.0, 0.25, 3.0]), 1j))


def test_runtime_loop_and_in_place():
    def f(c):
        acc = 0j
        k = 0
        while k < int(c[1]):
            acc = acc * 1j + c[k]
            k += 1
        acc += c[2]
        acc *= c[0]
        return acc
    same_kinds(f, (C,), (np.array([0.5, 3.0, 2.0]),))


def test_runtime_python_complex_with_float64():
    def f(c):
        z = complex(c[0], 1.0)
        return z + c[1], z * c[1], z - c[1], z / c[1], z ** c[1], z == c[0]
    same_kinds(f, (C,))


def test_builtins_that_add():
    def f(c):
        return (sum([1j, c[0]]), functools.reduce(operator.add, [c[0], c[1]], 1j),
                operator.mul(2j, c[1]), [1j * v for v in (c[0], c[1])], 1j + c.sum())
    same_kinds(f, (C,))


def test_not_python_floats_keep_numpy_kinds():
    # np.float32 is no float subclass, a 0-d array is no float, and an
    # np.complex128 on the left is NumPy's: NumPy's operators run for these.
    def f(c):
        return (1j + c[0].astype(np.float32), 1j * np.float32(c[1]),
                1j + c[0:1].reshape(()), np.complex128(1j) + c[0], 1j + c.astype(np.int64)[1])
    same_kinds(f, (C,))


def test_complex_division_by_float64_zero_raises():
    def f(c):
        return 1j / c[2]
    with pytest.raises(ZeroDivisionError):
        f(np.array([1.0, 2.0, 0.0]))
    compiled = tpucc.compile(f, cache=False)
    with pytest.raises(ZeroDivisionError, match="complex division by zero"):
        compiled(np.array([1.0, 2.0, 0.0]))
    assert compiled(C) == f(C) and type(compiled(C)) is complex


# --- bug_03: np.power of NumPy scalars ----------------------------------------------

def test_power_of_numpy_scalars_is_a_scalar():
    def f(x, k):
        return np.power(x, k), np.pow(x, k), x ** k
    same_kinds(f, (np.float64(3.0), np.float64(2.0)), (np.float64(4.0), np.float64(0.5)),
               (np.float64(2.0), np.float64(-1.0)))
    same_kinds(f, (np.float32(3.0), np.int64(2)))
    same_kinds(f, (np.float32(4.0), np.float32(0.5)), (np.float32(2.0), np.float32(3.0)))
    same_kinds(f, (np.float16(3.0), np.float16(2.0)))
    same_kinds(f, (np.complex128(1 + 1j), np.float64(2.0)))


def test_power_of_0d_arrays_and_mixed():
    def f(x, k):
        return np.power(x[()], k[()]), np.power(x, k), x ** k[()]
    same_kinds(f, (np.array(3.0), np.array(0.5)), (np.array(-0.0), np.array(0.5)))

    def g(x, k):
        return np.power(x, k), np.power(x, float(k)), np.power(float(x), float(k))
    same_kinds(g, (np.float64(3.0), np.float64(2.0)), (np.float64(2.0), np.float64(0.5)))

    def h(x, k):
        return np.power(x, k), x ** k
    same_kinds(h, (np.float64(3.0), np.array([2.0, 0.5])))
    same_kinds(h, (np.array([3.0, 4.0]), np.float64(0.5)))


def test_power_sqrt_shortcut_keeps_negative_zero():
    def f(x, k):
        return np.power(x, k)
    compiled = tpucc.compile(f, cache=False)
    out = compiled(np.float64(-0.0), np.float64(0.5))
    assert type(out) is np.float64 and np.signbit(out) == np.signbit(f(np.float64(-0.0), 0.5))


def test_in_place_power_of_0d_array_stays_array():
    def f(x, k):
        y = np.asarray(x).copy()
        y **= k
        return y
    same_kinds(f, (np.float64(3.0), np.float64(2.0)))


# --- bug_06: np.imag / np.real keep the kind of their operand -----------------------

@pytest.mark.parametrize("x", [np.float64(0.3), np.float32(0.3), np.int64(3), np.bool_(True),
                               np.complex64(1 + 2j), np.complex128(-1 - 0.5j)])
def test_imag_and_real_of_numpy_scalars(x):
    def f(x):
        return np.imag(x), np.real(x), x.imag, x.real
    same_kinds(f, (x,))


def test_imag_of_arrays_and_computed_scalars():
    def f(x):
        return (np.imag(x), np.imag(x[()]) if x.ndim == 0 else np.imag(x[0]),
                np.imag(x.sum()), np.imag(x.max()) + x.sum())
    same_kinds(f, (np.array(0.3),), (np.array([0.3, 1.0]),))
    same_kinds(f, (np.array([1, 2], np.int32),))


def test_imag_and_real_of_python_numbers():
    def f(x):
        v, n, b, z = float(x[0]), int(x[0]), bool(x[0]), complex(x[0], 2.0)
        return (np.imag(v), np.imag(n), np.imag(b), np.imag(z),
                np.real(v), np.real(n), np.real(b), np.real(z))
    same_kinds(f, (np.array([1.5]),), (np.array([0.0]),))


def test_imag_in_a_loop_keeps_scalar():
    def f(x):
        s = x[0]
        for _ in range(3):
            s = np.imag(s) + s
        return s
    same_kinds(f, (np.array([1.0, 2.0]),))


def test_isreal_iscomplex_angle_of_python_and_numpy_scalars():
    def f(x):
        v = float(x[0])
        return (np.isreal(v), np.iscomplex(v), np.isreal(x[0]), np.iscomplex(x[0]),
                np.angle(v), np.angle(bool(x[0])), np.angle(x[0]), np.angle(complex(v, 1.0)))
    same_kinds(f, (np.array([1.5]),), (np.array([-2.0]),))
