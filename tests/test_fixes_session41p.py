"""Session 41p: np.poly1d in compiled code.  Calling one (`P(x)`) compiled,
as np.polyval of its coefficients; a poly1d made from constants in the
compiled function is NumPy's object; and the array a NumPy property hands
out (`P.coeffs`) is a runtime input read at every call, as an attribute
holding an array is, so an update in place between calls is seen."""
from __future__ import annotations


import numpy as np
import pytest

import tpucc

from conftest import assert_same, raises_at, same

P = np.poly1d([1.0, -2.0, 3.0])
Q = np.poly1d(np.array([2, 0, 1], dtype=np.int32))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_calling_a_global_poly1d(dtype):
    x = np.arange(5).astype(dtype)
    same(lambda x: P(x), x)
    same(lambda x: Q(x), x)
    same(lambda x: (P(x[0]), Q(3), P(2.5)), x)


def test_poly1d_made_from_constants_in_compiled_code():
    def f(x):
        p = np.poly1d([1.0, 2.0, 0.5])
        return p(x) + p.order, p[1] * x, p.coeffs.sum()
    same(f, np.linspace(0, 1, 7))


def test_poly1d_argument_and_arithmetic():
    same(lambda x, p: p(x) + p.c.sum(), np.linspace(0, 1, 5), P)
    same(lambda x: ((P * 2)(x), P.order, P[1] * x), np.linspace(0, 1, 5))


def test_coefficients_updated_in_place_between_calls_are_seen():
    p = np.poly1d([1.0, -2.0, 3.0])

    def f(x):
        return p(x), np.polyval(p.coeffs, x)
    compiled = tpucc.compile(f, cache=False)
    x = np.ones(3)
    assert_same(compiled(x), f(x))
    p.coeffs[0] = 10.0
    assert_same(compiled(x), f(x))
    assert compiled(x)[0][0] == 11.0


def test_poly1d_of_runtime_coefficients_is_refused_at_the_line():
    def f(x, c):
        return np.poly1d(c)(x)
    raises_at(f, (np.ones(3), np.array([1.0, 2.0])), tpucc.errors.UnsupportedError,
              match="trim_zeros", line_of="np.poly1d(c)", cache=False)


# --- complex division by a number known while compiling --------------------------------
SPECIAL = np.array([1 + 2j, -0.0 + 0j, 0j, -0.0 - 0.0j, np.inf + 1j, 1 + np.inf * 1j,
                    np.nan + 0j, 3.3 - 1.7j, -np.inf - np.inf * 1j, 1e308 + 1e308j, 0.1 + 0.7j])


def _bitwise_same(expected, got):
    assert expected.dtype == got.dtype
    for e, g in zip(np.r_[expected.real, expected.imag], np.r_[got.real, got.imag]):
        assert (np.isnan(e) and np.isnan(g)) or (e == g and np.signbit(e) == np.signbit(g)), \
            (expected, got)


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
@pytest.mark.parametrize("divisor", [4, 3, 0.1, 7.0, 2 + 1j, 1j, -3j, 0, 0j, -0.0, 1e300,
                                     np.inf, 0.5 - 0.25j])
def test_complex_division_by_a_constant_is_numpys_bit_for_bit(dtype, divisor):
    def f(z):
        return z / divisor
    z = SPECIAL.astype(dtype)
    with np.errstate(all="ignore"):
        expected = f(z)
    _bitwise_same(expected, tpucc.compile(f, cache=False)(z))


def test_complex_division_by_a_constant_is_a_few_operations():
    """Smith's branch is chosen while compiling: no compare/select pairs for
    the divisor's parts, as the division by a runtime divisor needs."""
    from conftest import count_hlo, hlo
    z = SPECIAL.astype(np.complex128)
    by_constant = hlo(tpucc.compile(lambda z: z / 4, cache=False), z)
    by_runtime = hlo(tpucc.compile(lambda z, d: z / d, cache=False), z, np.complex128(4))
    assert count_hlo(by_constant, "select") == 0
    assert count_hlo(by_runtime, "select") > 0
