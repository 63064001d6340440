"""Session 44 D: results at NaN, inf, overflow and integer wrap-around that
XLA's algebraic simplifier changed (log(exp(x)) -> x, exp(a) * exp(b) ->
exp(a + b), x * float(mask) -> a select, abs(x) >= 0 and x * x < 0 folded to
constants), np.power's scalar-exponent shortcuts (np.power(-0.0, 0.5) is
-0.0), and np.isclose of a runtime Python number giving a Python bool."""

import numpy as np
import pytest

import tpucc
from conftest import same, same_each


def _bits_equal(expected, actual, path="out"):
    """Equal values to the bit where it matters here: the sign of zeros and
    where the NaNs are, as well as the dtype and the Python / NumPy type."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected), (expected, actual)
        for i, (e, a) in enumerate(zip(expected, actual)):
            _bits_equal(e, a, f"{path}[{i}]")
        return
    assert type(actual) is type(expected), f"{path}: {type(expected)} expected, got {type(actual)}"
    e, a = np.asarray(expected), np.asarray(actual)
    assert e.dtype == a.dtype and e.shape == a.shape, (path, e.dtype, a.dtype, e.shape, a.shape)
    if e.dtype.kind == "f":
        assert np.array_equal(np.isnan(e), np.isnan(a)), f"{path}: NaNs {e} vs {a}"
        assert np.array_equal(np.signbit(e) | np.isnan(e), np.signbit(a) | np.isnan(a)), (
            f"{path}: signs {e} vs {a}")
        np.testing.assert_allclose(a, e, rtol=1e-6, atol=0, err_msg=path)
    else:
        np.testing.assert_array_equal(a, e, err_msg=path)


def exact(fn, *args):
    """fn compiled and eager on copies of args: bit-equal results (sign of
    zero and NaN included) and argument contents."""
    exact_each(fn, args)


def exact_each(fn, *arg_tuples):
    """`exact` for each tuple of arguments through ONE compiled fn (inputs that
    differ in values only share one executable)."""
    same_each(fn, *arg_tuples, compare=_bits_equal)


# --- bug_06: log(exp(x)), sqrt(x * x), exp(a) * exp(b) rewritten past an overflow --------------

def _logs_of_overflows(x):
    return np.log(np.exp(x)), np.log2(np.exp2(x)), np.sqrt(x * x), (x ** 2) ** 0.5


def _products_of_overflows(a, b):
    return np.exp(a) * np.exp(b), np.log(a ** b), np.log10(a ** b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_overflow_inside_log_and_sqrt_is_kept(dtype):
    big = np.finfo(dtype).max
    exact(_logs_of_overflows, np.array([100.0, 200.0, 800.0, 1e20, big, -0.0, -3.0], dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_overflow_inside_a_product_of_exponentials_is_kept(dtype):
    a = np.array([400.0, 50.0, 800.0, 2.0], dtype)
    b = np.array([-400.0, -60.0, -800.0, 3.0], dtype)
    exact(_products_of_overflows, a, b)


def test_sqrt_of_a_square_overflows_as_numpy_in_a_reduction():
    exact(lambda x: (np.sqrt(np.square(x)).sum(), np.sqrt(x * x).max()),
          np.array([1e200, -3.0, 2.0]))


# --- bug_07: comparisons of abs(x), x * x, exp(x) with 0 folded to constants -------------------

def _nonnegative_looking(x):
    return (np.abs(x) >= 0, x * x >= 0, np.exp(x) >= 0, 0 <= np.abs(x), np.abs(x) < 0,
            np.square(x) >= 0, x ** 2 >= 0, (np.abs(x) >= 0).sum(), (np.abs(x) >= 0).all())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_comparisons_with_zero_see_nan(dtype):
    exact(_nonnegative_looking, np.array([np.nan, -1.0, 0.0, np.inf], dtype))


def _overflow_checks(i):
    return (np.abs(i) >= 0, (i * i < 0).any(), i * i < 0, np.multiply(i, i) >= 0,
            np.square(i) < 0, i ** 2 < 0)


@pytest.mark.parametrize("values, dtype", [([-128, 12, 5], np.int8),
                                           ([-32768, 200, 3], np.int16),
                                           ([-2 ** 31, 50000, 7], np.int32),
                                           ([-2 ** 63, 2 ** 32, 9], np.int64)])
def test_integer_overflow_checks_fire(values, dtype):
    exact(_overflow_checks, np.array(values, dtype))


def test_an_overflow_check_in_a_runtime_branch():
    def guarded(i):
        sq = i * i
        if (sq < 0).any():
            return sq.astype(np.int64) * 0 - 1
        return sq.astype(np.int64)
    exact_each(guarded, (np.array([12, 3], np.int8),), (np.array([2, 3], np.int8),))


# --- bug_08: x * float(mask) turned into a select ----------------------------------------------

def _masked_products(x, m):
    return (x * (x > 0), (x * m.astype(x.dtype)).sum(), x * np.isfinite(x), x * ~np.isnan(x),
            m.astype(float) * x, np.multiply(x, m), x * m[:, None],
            x * m + x[::-1] * ~m)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mask_products_keep_nan_and_negative_zero(dtype):
    x = np.array([np.nan, -np.inf, -3.0, 2.0], dtype)
    exact(_masked_products, x, np.array([False, False, False, True]))


def test_mask_products_of_integers_unchanged():
    same(lambda x, m: (x * m, x * (x > 0), m.astype(int) * x),
         np.array([-3, 0, 7, 2]), np.array([True, False, True, False]))


def test_hidden_operands_still_fuse_into_one_loop():
    """The barrier that keeps XLA's simplifier off is gone after it, so an
    elementwise chain is still one fused loop (the claim hidden_from_simplifier
    makes, and what makes it cheap)."""
    def chain(x, i):
        return np.log(np.exp(x) * x) * (x > 0) + np.sqrt(x * x), (i * i < 0).any()
    args = (np.arange(1.0, 9.0), np.arange(8, dtype=np.int8))
    text = tpucc.compile(chain, cache=False).lower(*args).compile().as_text()
    assert "opt-barrier" not in text
    exact(chain, *args)


# --- bug_09: np.power with a scalar exponent takes NumPy's loop shortcuts ----------------------

_BASES = np.array([-0.0, -np.inf, np.inf, 4.0, 2.0, -4.0, np.nan, 1e-3])


_EXPONENTS = (0.5, 2.0, -1.0, 1.5, 2, -1, np.float64(0.5), np.float32(0.5), np.array(0.5))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_power_by_a_scalar_as_numpy(dtype):
    # (each exponent a compile-time constant, all in one program: one compile per dtype)
    exact(lambda x: tuple((np.power(x, e), x ** e) for e in _EXPONENTS), _BASES.astype(dtype))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_power_by_a_runtime_scalar(dtype):
    e = np.array([0.5, 3.0, 2.0], dtype)
    exact(lambda x, e: (np.power(x, e[0]), np.power(x, e[1]), np.power(x, float(e[0])),
                        x ** e[0], np.power(x, e[2])), _BASES.astype(dtype), e)


def test_power_by_an_array_of_halves_is_pow():
    exact(lambda x: np.power(x, np.full(x.shape, 0.5)), _BASES)


def test_power_in_place_and_into_out():
    def inplace(x):
        y = x.copy()
        y **= 0.5
        out = np.empty_like(x)
        np.power(x, 0.5, out=out)
        return y, out
    exact(inplace, _BASES)


def test_power_of_scalars_is_pow_for_operators_and_the_ufunc_for_np_power():
    # np.float64(-0.0) ** 0.5 is scalar math (pow: +0.0); np.power runs the loop (-0.0)
    exact(lambda x: (x[0] ** 0.5, x[1] ** 0.5, np.power(x[0], 0.5), np.power(x[1], 0.5),
                     float(x[0]) ** 0.5, np.power(float(x[1]), 0.5)), _BASES)


def test_power_of_integers_by_float_scalars():
    exact(lambda i: (np.power(i, 0.5), np.power(i, 2.0), np.power(i, -1.0), i ** 0.5,
                     np.power(i.astype(np.int8), 0.5), np.power(i, 2)),
          np.array([4, 9, 0, -4]))


def test_power_of_complex_by_a_half_is_pow():
    same(lambda z: np.power(z, 0.5), np.array([4 + 0j, -4 + 0j, 1j]))


# --- bug_03: np.isclose(runtime Python number, constant) -----------------------------------------

def _isclose_of_python_numbers(x):
    v, n = float(x[0]), int(x[1])
    return (np.isclose(v, 1.0), np.isclose(n, 1), np.isclose(v, 1.0, rtol=0.1),
            np.isclose(v, 2.0), np.isclose(2.0, v), np.isclose(v, float(x[1])),
            np.isclose(v, np.nan, equal_nan=True), np.isclose(float(x[2]), np.nan, equal_nan=True),
            np.isclose(v, 1), np.isclose(n, 1.0 + 1e-9))


def test_isclose_of_a_runtime_python_number_is_a_numpy_bool():
    exact_each(_isclose_of_python_numbers, (np.array([1.0, 1.0, np.nan]),),
               (np.array([1.5, 3.0, 0.0]),))


def test_isclose_of_arrays_unchanged():
    same(lambda a, b: (np.isclose(a, b), np.isclose(a, 1.0), np.isclose(a[0], b[0]),
                       np.isclose(a, b, equal_nan=True)),
         np.array([1.0, np.nan, np.inf, 2.0]), np.array([1.0 + 1e-9, np.nan, np.inf, 3.0]))
