"""Session 38c's fixes (math module, log/cbrt accuracy, logaddexp's
derivative), each checked against eager NumPy/Python or for its message."""
import math

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at


# --- logaddexp's derivative where both operands are -inf ------------------------------------

def _log_space(p):
    a = p - np.inf                      # -inf, depending on p
    b = np.logaddexp(a, a)              # -inf: its cotangent below is 0
    return np.sum(np.logaddexp(b, p)) + np.sum(np.logaddexp2(b, 2 * p))


def _log_space_in_a_loop(p):
    total = 0.0
    for _ in range(300):                # a scanned loop: jax differentiates the lowering
        total = total + _log_space(p)
    return total


@pytest.mark.parametrize("fn, scale", [(_log_space, 1), (_log_space_in_a_loop, 300)])
def test_grad_through_logaddexp_of_two_minus_infinities_is_not_nan(fn, scale):
    p = np.array([0.5, -1.0])
    np.testing.assert_allclose(tpucc.grad(fn)(p), [3.0 * scale] * 2)


def test_grad_of_logaddexp_is_each_operands_share():
    def f(x, y):
        return np.sum(np.logaddexp(x, y) + np.logaddexp2(y, x))
    x, y = np.array([0.0, 3.0, -np.inf, 2.0]), np.array([1.0, -2.0, 0.5, 2.0])
    gx, gy = tpucc.grad(f, argnums=(0, 1))(x, y)
    share = 1 / (1 + np.exp(y - x))
    share2 = 1 / (1 + np.exp2(x - y))
    np.testing.assert_allclose(gx, share + 1 - share2)
    np.testing.assert_allclose(gy, 1 - share + share2)


# --- log2 and log10 exact at exact powers ----------------------------------------------------

def test_log10_and_log2_of_exact_powers_are_the_exponents():
    def digits(x, y, x32, y32):
        return (math.floor(math.log10(float(x[0]))), int(math.log2(float(y[0]))),
                np.log10(x), np.log2(y), np.log10(x32), np.log2(y32))
    x = np.array([float(f"1e{k}") for k in range(-307, 309)])
    y = 2.0 ** np.arange(-1022, 1024)
    x[0], y[0] = 1e15, 2.0 ** -52
    x32 = np.array([f"1e{k}" for k in range(-37, 39)], np.float32)
    y32 = (2.0 ** np.arange(-126, 128)).astype(np.float32)
    args = (x, y, x32, y32)
    expected, compiled = digits(*args), tpucc.compile(digits)(*args)
    assert compiled[:2] == expected[:2] == (15, -52)
    for e, c in zip(expected[2:], compiled[2:]):
        assert c.dtype == e.dtype
        # The exponents themselves.  NumPy's float32 log10 on a CPU with
        # AVX-512 (its own vector code) is an ulp off at some of them:
        # -37.000004 for 1e-37 on an AMD EPYC Zen 4; glibc's is exact.
        np.testing.assert_array_equal(c, np.round(c))
        np.testing.assert_array_max_ulp(c, e, maxulp=1)


# --- cbrt in a loop --------------------------------------------------------------------------

def test_cbrt_of_an_element_written_in_a_loop_is_within_a_few_ulps():
    def elements(x):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = np.cbrt(x[i])
        return out, [math.cbrt(float(v)) for v in x], np.cbrt(x)
    x = np.full(40, 27.0)
    x[:6] = [1e-300, 1e-200, -0.1, 1e300, -8.0, 0.0]
    for got in tpucc.compile(elements)(x):
        got = np.asarray(got)
        ulps = np.abs(got - np.cbrt(x)) / np.spacing(np.abs(np.cbrt(x)))
        assert ulps.max() <= 3, ulps
        assert got[4] == -2.0 and got[6] == 3.0 and got[5] == 0.0


# --- math.isclose with tolerances computed from the data -------------------------------------

def _close(x, tol):
    return (math.isclose(float(x[0]), float(x[1]), rel_tol=float(tol[0])),
            math.isclose(float(x[0]), float(x[1]), abs_tol=1e-3 * float(abs(x).max())))


def test_isclose_with_runtime_tolerances():
    check(_close, np.array([1.0, 1.001]), np.array([1e-2]))
    check(_close, np.array([1.0, 1.01]), np.array([1e-3]))


def test_isclose_with_a_negative_runtime_tolerance_raises_when_it_runs():
    compiled = tpucc.compile(_close)
    with pytest.raises(ValueError, match="tolerances must be non-negative"):
        compiled(np.array([1.0, 1.001]), np.array([-1e-2]))


# --- math.remainder on runtime floats --------------------------------------------------------

def test_math_remainder_of_runtime_floats_is_ieees():
    def remainders(x, y):
        return [math.remainder(float(a), float(b)) for a, b in zip(x, y)]
    x = np.array([0.5, 2.5, 3.5, -2.5, 7.0, -7.0, 1e300, 5e-324 * 0, 3.0, -0.0, np.nan, 1.0,
                  0.3, 1e-3, 17.25])
    y = np.array([0.7, 1.0, 1.0, 1.0, -2.0, 2.0, 3.0, 1.0, np.inf, 1.0, 1.0, np.nan,
                  0.1, 7.0, -0.5])
    expected = remainders(x, y)
    got = tpucc.compile(remainders)(x, y)
    for e, g in zip(expected, got):
        assert g == e or (math.isnan(g) and math.isnan(e)), (g, e)
        assert math.copysign(1, g) == math.copysign(1, e)


@pytest.mark.parametrize("x, y", [(np.inf, 1.0), (1.0, 0.0)])
def test_math_remainder_domain_errors(x, y):
    def f(v):
        return math.remainder(float(v[0]), float(v[1]))
    with pytest.raises(ValueError, match="math domain error"):
        tpucc.compile(f)(np.array([x, y]))


# --- math.trunc of a NumPy scalar other than float64 -----------------------------------------

def test_math_trunc_of_a_float32_scalar_is_pythons_type_error():
    def t(x):
        return math.trunc(x[0] * np.float32(1.5))
    err = raises_at(t, (np.array([8.0], np.float32),), E.UserCodeError,
                    "TypeError: type numpy.float32 doesn't define __trunc__ method",
                    line_of="math.trunc")
    assert isinstance(err, TypeError)


def test_math_trunc_of_python_numbers_and_float64_scalars():
    def t(x, i):
        return math.trunc(x[0]), math.trunc(float(x[1])), math.trunc(int(i[0])), \
            math.trunc(x[1] * 2)
    check(t, np.array([-2.5, 7.75]), np.array([3]))
