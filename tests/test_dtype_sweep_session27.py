"""Bugs found by session 27's dtype sweep: signed zeros, float16 accumulation,
Python ints at the edge of 64 bits, integer reciprocals, complex edge values
and float64 -> float16 rounding now give eager NumPy's results exactly."""
import itertools
import warnings

import numpy as np
import pytest

import tpucc
from conftest import check

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _assert_exact(expected, actual):
    """Bit-exact floats (signed zeros included; any NaN equals any NaN)."""
    if isinstance(expected, (tuple, list)):
        for e, a in zip(expected, actual, strict=True):
            _assert_exact(e, a)
        return
    e, a = np.asarray(expected), np.asarray(actual)
    assert e.dtype == a.dtype and e.shape == a.shape, (e, a)
    if e.dtype.kind == "c":
        _assert_exact(e.real, a.real), _assert_exact(e.imag, a.imag)
    elif e.dtype.kind == "f":
        same = (e == a) & (np.signbit(e) == np.signbit(a)) | np.isnan(e) & np.isnan(a)
        assert same.all(), f"expected {e!r}, got {a!r}"
    else:
        np.testing.assert_array_equal(a, e)


def check_exact(fn, *args, **compile_kwargs):
    check(fn, *args, compile_kwargs=compile_kwargs or None)
    _assert_exact(fn(*args), tpucc.compile(fn, **compile_kwargs)(*args))


# --- float // and %: NumPy's (Python's) signed zeros and infinities --------------------

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.5, -4.0, 0.3, -0.3, 1e300, -1e300,
            np.inf, -np.inf, np.nan, 7.0, 1e16 + 2]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_float_floor_divide_and_remainder_match_numpy_bits(dtype):
    a, b = (np.array(v, dtype) for v in zip(*itertools.product(_SPECIAL, _SPECIAL)))
    check_exact(lambda a, b: (a // b, a % b, np.divmod(a, b)), a, b)


def test_float_remainder_with_scalars_and_python_floats():
    a = np.array([-4.0, 4.0, -0.0, -0.0, -5.0, 5.0])
    b = np.array([2.0, -2.0, 1.0, -1.0, np.inf, -np.inf])
    check_exact(lambda a, b: (a % 2.0, a // -1.0, -0.0 // b, 3.0 % b, a // np.inf), a, b)

    def python_floats(a, b):
        x, y = float(a[0]), float(b[0])
        return x % y, float(a[1]) % float(b[1]), float(a[2]) // float(b[2]), \
            float(a[3]) // float(b[3]), float(a[4]) % float(b[4]), float(a[4]) // float(b[4])
    check_exact(python_floats, a, b)


# --- float64 -> float16: rounded once ----------------------------------------------------

def _near_float16_halfway_points():
    halves = np.arange(0x3c00, 0x3c40, dtype=np.uint16).view(np.float16).astype(np.float64)
    mid = halves + 2.0 ** -11
    return np.concatenate([mid + 2.0 ** -40, mid - 2.0 ** -40, -mid - 2.0 ** -40, mid,
                           [0.0, -0.0, np.inf, np.nan, 65519.99, 65520.0, 2.0 ** -25 + 2.0 ** -60]])


def test_float64_to_float16_rounds_once():
    x = _near_float16_halfway_points()

    def to_half(x, h):
        h[0] = x[0]
        return x.astype(np.float16), np.float16(x[1]), h, x.astype(np.complex128).astype(np.float16)
    check_exact(to_half, x, np.zeros(2, np.float16))


def test_runtime_python_float_meets_float16_array_rounded_once():
    k = 1 + 2.0 ** -11 + 2.0 ** -40
    check_exact(lambda h, k: h * k, np.ones(3, np.float16), k, runtime_args=("k",))


# --- mean, var and std: NumPy's accumulation dtypes -------------------------------------

def test_float16_var_std_accumulate_in_float32():
    x = np.linspace(0, 10, 17).astype(np.float16)
    y = np.random.default_rng(0).normal(5, 2, (3, 2500)).astype(np.float16)
    check_exact(lambda x, y: (x.var(), x.std(), np.var(y, axis=1, ddof=1), y.std(axis=-1)), x, y)


def test_float16_mean_with_dtype_float16_rounds_the_sum_first():
    x = np.random.default_rng(0).normal(5, 2, 100).astype(np.float16)
    y = np.full(3000, 1.7, np.float16)
    w = np.random.default_rng(1).normal(5, 2, 100)

    def means(x, y, w):
        return (np.mean(x, dtype=np.float16), x.mean(), y.mean(dtype=np.float16), y.mean(),
                w.mean(dtype=np.float16), np.mean(x, dtype=np.float16, where=x > 4))
    check_exact(means, x, y, w)


def test_complex_var_std_with_a_real_dtype_use_the_real_mean():
    x = np.array([1 + 1j, 2, 3j])
    rng = np.random.default_rng(0)
    z = rng.normal(size=(2, 5)) + 1j * rng.normal(size=(2, 5))

    def stats(x, z):
        return (x.std(dtype=np.float32), x.var(dtype=np.float64), x.var(),
                x.std(dtype=np.complex64),
                np.var(z, axis=1, dtype=np.float32), np.var(x.real, dtype=np.complex128))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        check(stats, x, z)


def test_complex_mean_multiplies_by_the_reciprocal_count_as_numpy():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(3, 300)) + 1j * rng.normal(size=(3, 300))
    check_exact(lambda z: (z.mean(axis=0), z.astype(np.complex64).mean(axis=0)), z)


# --- integers compared with Python ints just beyond their range --------------------------

def test_int64_and_uint64_compare_exactly_with_python_ints_beyond_their_range():
    x = np.array([2**63 - 1, -2**63, 0], np.int64)
    u = np.array([2**64 - 1, 0], np.uint64)
    b = np.array([127, -128], np.int8)

    def fits(x, u, b):
        return (x == 2**63, x < 2**63, x[1] > -2**63 - 1, 2**63 > x, x != -2**63 - 1,
                u[0] < 2**64, u.max() == 2**64, u >= -1, -1 < u, u <= 2**70, x > -2**70,
                b == 128, b > -129, np.less(x, 2**63), np.equal(u, 2**64 + 1), x >= 2**63 - 1)
    check(fits, x, u, b)


def test_runtime_python_int_compares_with_big_ints():
    def f(x):
        n = int(x[0])
        return n < 2**63, n == 2**64, n > -2**63 - 1, n < 2**70
    check(f, np.array([2**63 - 1], np.int64))


# --- integer reciprocal, and floats to uint32 / uint64 as NumPy on x86 -------------------

@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                   np.int64, np.uint64])
def test_integer_reciprocal_of_zero_is_numpys(dtype):
    x = np.array([0, 1, 2, 3, 100] + ([-1, -2] if np.dtype(dtype).kind == "i" else []), dtype)
    check_exact(lambda x: (np.reciprocal(x), np.reciprocal(x[0])), x)


_BEYOND = [np.inf, -np.inf, np.nan, 1e300, -1e300, 2.0 ** 63, 2.0 ** 64, 2.0 ** 32 + 5, 3e9,
           -3e9, 2.0 ** 31, -2.0 ** 31 - 5, -2.0 ** 40, 4294967295.0, 1.8e19, -1.0, 3.7, -3.7]


@pytest.mark.parametrize("source", [np.float64, np.float32, np.float16])
def test_floats_beyond_uint32_and_uint64_convert_as_numpy(source):
    x = np.array(_BEYOND).astype(source)
    check_exact(lambda x: (x.astype(np.uint32), x.astype(np.uint64)), x)


# --- float arrays with Python ints beyond 64 bits: converted to the float dtype ----------

def test_float_array_with_a_python_int_beyond_64_bits():
    x = np.array([1.5, 2.5])

    def scale(x, h):
        return (x / 2**64, x * 2**100, 2**64 / x, h + 2**64, x.astype(np.float32) * 2**200,
                np.float32(x[0]) * 2**100, x.astype(np.complex64) * 2**100,
                np.array([3], np.int64) / 2**64, x % 2**64, np.arctan2(x, 2**70))
    check(scale, x, np.ones(2, np.float16))


def test_python_int_too_large_for_a_float_raises_overflowerror():
    def catches(x):
        try:
            return x * 2**2000
        except OverflowError:
            return -x
    check(catches, np.ones(2))

    def compares(x):
        try:
            return x > 2**2000
        except OverflowError:
            return x < 0
    check(compares, np.ones(2))
    with pytest.raises(tpucc.TpuccError, match="OverflowError"):
        tpucc.compile(lambda x: x + 2**2000)(np.ones(2))


# --- complex division, reciprocal and power: NumPy's algorithms --------------------------

def test_complex_divided_by_a_static_zero():
    z = np.array([1 + 2j, -3 + 0j, 0j, 1 - 1j])

    def divide(z, k):
        return z / 0.0, z / 0, z / np.float64(0), z / -0.0, z / k, z.astype(np.complex64) / 0.0
    check_exact(divide, z, 0.0, runtime_args=("k",))


def test_complex_division_and_reciprocal_edge_values():
    a = np.array([1 + 2j, np.inf + 0j, 1e300 + 1e300j, 0j, 3 - 4j, np.nan + 1j])
    b = np.array([0j, 2 + 0j, 1e300 - 1e300j, 0j, 0.5 + 1e-300j, 1 + 1j])
    check_exact(lambda a, b: (a / b, np.reciprocal(a), np.reciprocal(b), 1 / b), a, b)


def test_complex_zero_to_a_complex_power():
    z = np.array([0j, 0j, 0j, 0j, 1 + 1j, 2 - 1j])
    w = np.array([1 + 1j, 0.5 - 2j, -1 + 1j, 0j, 4 + 0j, -3 + 0j])

    def power(z, w):
        return z ** w, z ** -1, z[0] ** (1 + 1j), np.power(z, 0), np.power(z, -2), z ** 4, \
            np.float_power(z, w)
    check_exact(power, z, w)


def test_ndarray_power_fast_paths_as_numpy():
    x = np.array([-0.0, -np.inf, 4.0])
    z = np.array([1.5 + 0j, 0j, -2 - 1j])

    def powers(x, z, b):
        w = z.copy()
        w **= -1
        return (x ** 0.5, z ** -1, z ** 2, b ** 2, x[0] ** 0.5, float(x[0]) ** 0.5, z[0] ** -1,
                w, np.array(1.5 + 0j) ** -1, np.power(z, -1))
    check_exact(powers, x, z, np.array([True, False]))
