"""NumPy functions a breadth sweep found refused (E100) on runtime arrays
although their output shapes are static (session 15).  Each is compared
with eager NumPy, values and dtypes, over dtypes, shapes, axes, Python
scalars (NEP 50 weak typing) and the error cases."""
import warnings

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int32, np.int64]
REALS = [np.bool_, np.int32, np.int64, np.float32, np.float64]
SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 1e-30, 3.25, 6e4])


def exact(fn, *args, **kw):
    """check() with bit-exact float values (NaN equal to NaN)."""
    return check(fn, *args, rtol=0, atol=0, **kw)


# --- ufuncs: gcd lcm nextafter spacing ldexp frexp logaddexp2 ------------------------------------

def number_theory(a, b):
    return np.gcd(a, b), np.lcm(a, b), np.gcd(a, 6), np.lcm(4, b)


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm_including_the_extremes(dtype):
    info = np.iinfo(dtype)
    a = np.array([0, 6, 12, 7, 9, 1, 0], dtype)
    b = np.array([0, 4, 8, 7, 6, 1, 5], dtype)
    with np.errstate(all="ignore"):
        exact(number_theory, a, b)
        ext = np.array([info.min, info.max, info.min, 0, info.max], dtype)
        exact(number_theory, ext, ext[::-1])      # |min| wraps, as in NumPy
        if info.min < 0:
            exact(number_theory, -a, b)


def gcd_float(a):
    return np.gcd(a, a)


@pytest.mark.parametrize("x", [np.ones(2), np.ones(2, bool)])
def test_gcd_of_floats_and_bools_is_a_type_error(x):
    with pytest.raises(TypeError):
        gcd_float(x)
    raises_at(gcd_float, (x,), tpucc.errors.DTypeError, line_of="np.gcd")


def float_bits(x, y, n):
    return (np.nextafter(x, y), np.spacing(x), np.ldexp(x, n), np.frexp(x),
            np.logaddexp2(x, y), np.nextafter(x, 1), np.ldexp(x, 3))


@pytest.mark.parametrize("dtype", FLOATS)
def test_nextafter_spacing_ldexp_frexp_logaddexp2(dtype):
    x = SPECIAL.astype(dtype)
    y = np.array([1.0, -1.0, 0.0, np.inf, 0.0, np.nan, 1.0, -1.0, 3.25, np.inf], dtype)
    n = np.array([0, 1, -3, 200, -2000, 5, 1, 1, 0, 1], np.int32)
    with np.errstate(all="ignore"):
        exact(float_bits, x, y, n)
        exact(float_bits, x[3], y[3], n[3])      # NumPy scalars in, scalars out
        for m in (np.int64, np.int8):
            exact(float_bits, x, y, n.astype(m))


def test_spacing_of_every_float16():
    every = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)
    exact(np.spacing, every)


def ints_to_floats(a):
    return np.frexp(a), np.ldexp(a, 2), np.logaddexp2(a, a), np.spacing(a)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.int64])
def test_float_bit_ufuncs_of_integers(dtype):
    exact(ints_to_floats, np.array([0, 1, 5, 3], dtype))


def ldexp_float_exponent(x):
    return np.ldexp(x, 1.5)


def test_ldexp_with_a_float_exponent_is_a_type_error():
    with pytest.raises(TypeError):
        ldexp_float_exponent(np.ones(2))
    raises_at(ldexp_float_exponent, (np.ones(2),), tpucc.errors.DTypeError, line_of="np.ldexp")


# --- sinc / i0 --------------------------------------------------------------------------------

def sinc_i0(x):
    return np.sinc(x), np.i0(x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.bool_])
def test_sinc_and_i0(dtype):
    x = np.array([0, 1, -2, 3, 0.5, -7.75, 8, 8.5, 30, -100], np.float64)
    if np.dtype(dtype).kind != "f":
        x = np.trunc(x)
    x = x.astype(dtype)
    with np.errstate(all="ignore"):
        # NumPy's own expressions op for op: sin, exp and sqrt are XLA's, a few ulps off libm
        check(sinc_i0, x, rtol=4e-3 if dtype is np.float16 else 2e-6 if dtype is np.float32
              else 1e-14, atol=0)
        check(sinc_i0, x[4], rtol=1e-6, atol=0)
