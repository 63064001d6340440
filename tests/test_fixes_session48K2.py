"""Session 48K2: the cmath module compiles on runtime values (the quadratic
formula's cmath.sqrt was E100); np.polyval of a 2-d p (one polynomial per
column) compiles (was E700, as if the program raised); np.polydiv and
np.real_if_close are refused with a hint that says why and what compiles;
compiled np.sqrt of a complex keeps the sign of a -0.0 imaginary part."""
import cmath
import math

import numpy as np
import pytest

import tpucc
from conftest import assert_same, raises_at, same, same_each


def close(expected, actual):
    """assert_same, with Python complex numbers compared as two floats
    (cmath's results may differ from XLA's in the last digits)."""
    if isinstance(expected, tuple):
        assert type(actual) is tuple and len(actual) == len(expected), actual
        for e, a in zip(expected, actual):
            close(e, a)
    elif type(expected) is complex:
        assert type(actual) is complex, f"expected complex, got {type(actual).__name__}"
        assert_same((expected.real, expected.imag), (actual.real, actual.imag), 1e-13, 1e-300)
    else:
        assert_same(expected, actual, 1e-13, 1e-300)


# --- bug_02: cmath on runtime values ---------------------------------------------------------

def quad_roots(a, b, c):
    sq = cmath.sqrt(b * b - 4 * a * c)
    return (-b + sq) / (2 * a), (-b - sq) / (2 * a)


def test_quadratic_formula_with_cmath_sqrt():
    same_each(quad_roots, (np.float64(1.0), np.float64(0.0), np.float64(1.0)),
              (np.float64(1.0), np.float64(-3.0), np.float64(2.0)),
              (np.float64(2.0), np.float64(1.0), np.float64(5.0)), compare=close)


def test_quadratic_formula_of_array_elements_and_python_floats():
    def roots(p):
        a, b, c = float(p[0]), float(p[1]), float(p[2])
        sq = cmath.sqrt(b * b - 4 * a * c)
        return (-b + sq) / (2 * a), (-b - sq) / (2 * a)
    same_each(roots, (np.array([1.0, 2.0, 5.0]),), (np.array([1.0, -3.0, 2.0]),), compare=close)


UNARY = [cmath.sqrt, cmath.exp, cmath.log, cmath.log10, cmath.sin, cmath.cos, cmath.tan,
         cmath.asin, cmath.acos, cmath.atan, cmath.sinh, cmath.cosh, cmath.tanh, cmath.asinh,
         cmath.acosh, cmath.atanh, cmath.phase, cmath.polar, cmath.isnan, cmath.isinf,
         cmath.isfinite]
# Finite points off the axes, where XLA's and C99's signs of zero agree
POINTS = [complex(0.5, 2.0), complex(-2.0, 0.5), complex(-3.5, -1.0), complex(2.0, -8.0),
          complex(0.25, 0.75)]


@pytest.mark.parametrize("fn", UNARY, ids=lambda f: f.__name__)
def test_cmath_function_of_a_runtime_complex(fn):
    same_each(lambda z: fn(z[0]), *[(np.array([p]),) for p in POINTS], compare=close)


@pytest.mark.parametrize("fn", [cmath.sqrt, cmath.exp, cmath.log, cmath.acos, cmath.phase,
                                cmath.polar], ids=lambda f: f.__name__)
def test_cmath_of_real_values_of_each_kind(fn):
    # complex() converts each: np.float64 (a float), np.float32 and np.int64
    # (__float__ / __index__), a 0-d array, np.complex64 (__complex__)
    def f(x, y, k, a, w):
        return fn(x), fn(y), fn(k), fn(a), fn(w)
    args = (np.float64(-4.0), np.float32(2.5), np.int64(9), np.array(0.5), np.complex64(1 - 2j))
    expected = f(*args)
    close(expected, tpucc.compile(f, cache=False)(*args))


def test_cmath_result_is_a_python_complex_that_stays_weak():
    # a Python complex times a complex64 array stays complex64 (NEP 50)
    def f(x, z):
        return x * cmath.exp(z[0]), cmath.sqrt(z[0]) + 1
    same(f, np.ones(3, np.complex64), np.array([0.5 + 0.25j]))


def test_cmath_log_with_a_base_and_rect():
    def f(z, r, phi):
        return cmath.log(z[0], 2), cmath.log(8.0, z[0]), cmath.rect(r, phi), \
            cmath.rect(2.0, phi), cmath.log(z[0], z[0] + 1)
    for args in [(np.array([1 + 1j]), np.float64(2.0), np.float64(0.5)),
                 (np.array([-3 + 0.5j]), np.float64(-1.5), np.float64(-2.0))]:
        close(f(*args), tpucc.compile(f, cache=False)(*args))


@pytest.mark.parametrize("r", [0.0, -0.0, 2.0, -2.0, math.inf, -math.inf, math.nan])
def test_cmath_rect_special_values(r):
    def f(r, phi):
        return cmath.rect(r, phi)
    compiled = tpucc.compile(f, cache=False)
    for phi in [-1.0, -0.0, 0.0, 1.0, math.inf, math.nan]:
        args = (np.float64(r), np.float64(phi))
        try:
            expected = f(*args)
        except ValueError:
            with pytest.raises(ValueError, match="math domain error"):
                compiled(*args)
            continue
        actual = compiled(*args)
        assert type(actual) is complex
        assert repr(actual) == repr(expected), (r, phi)


def test_cmath_isclose():
    def f(a, b, tol):
        return cmath.isclose(a[0], b[0]), cmath.isclose(a[0], b[0], rel_tol=tol), \
            cmath.isclose(a[0], b[0], abs_tol=1e-3)
    same_each(f, (np.array([1 + 1j]), np.array([1 + 1.0000001j]), np.float64(1e-6)),
              (np.array([complex(math.inf, 1)]), np.array([complex(math.inf, 1)]),
               np.float64(0.5)), (np.array([0j]), np.array([1e-4j]), np.float64(0.1)))


@pytest.mark.parametrize("fn, z, error", [
    (cmath.log, 0j, ValueError), (cmath.log10, 0j, ValueError),
    (cmath.atanh, 1 + 0j, ValueError), (cmath.exp, 710 + 0j, OverflowError),
    (cmath.cosh, 1000 + 0j, OverflowError), (cmath.sin, 1000j, OverflowError),
    (cmath.exp, complex(0, math.inf), ValueError), (cmath.sin, complex(math.inf, 0), ValueError),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_cmath_domain_and_range_errors_raise_when_the_call_returns(fn, z, error):
    def f(z):
        return fn(z[0])
    with pytest.raises(error) as eager:
        f(np.array([z]))
    with pytest.raises(error, match=str(eager.value)):
        tpucc.compile(f, cache=False)(np.array([z]))


def test_cmath_log_base_one_raises_and_zero_base():
    def f(b):
        return cmath.log(2.0, b[0])
    compiled = tpucc.compile(f, cache=False)
    close(f(np.array([3.0])), compiled(np.array([3.0])))
    for base in (1.0, 0.0):
        with pytest.raises(ValueError, match="math domain error"):
            compiled(np.array([base]))


def test_cmath_of_a_user_class_with_complex():
    class Z:
        def __init__(self, v):
            self.v = v

        def __complex__(self):
            return complex(self.v, 1.0)

    def f(x):
        return cmath.sqrt(Z(x[0])), cmath.phase(Z(x[1]))
    same_each(f, (np.array([3.0, -2.0]),), compare=close)


def test_cmath_of_an_array_with_axes_is_numpy_typeerror():
    def f(x):
        return cmath.sqrt(x)
    raises_at(f, (np.ones(3),), match="TypeError", line_of="cmath.sqrt")


def test_cmath_rect_converts_as_float_does():
    # np.complex128's __float__ drops the imaginary part, with NumPy's warning
    def f(z):
        return cmath.rect(z[0], 0.5), cmath.rect(2, z[0])
    with pytest.warns(np.exceptions.ComplexWarning):
        expected = f(np.array([3 + 1j]))
    close(expected, tpucc.compile(f, cache=False)(np.array([3 + 1j])))


def test_cmath_on_static_values_is_python_s():
    def f(x):
        return x * cmath.sqrt(-4), cmath.phase(-1)
    same(f, np.arange(3.0))


def test_complex_sqrt_keeps_the_sign_of_a_negative_zero_imaginary_part():
    z = np.array([complex(-4, -0.0), complex(-4, 0.0), complex(-0.0, -0.0), complex(9, -0.0),
                  complex(-1, -2), complex(math.nan, -0.0), complex(1.5, -math.inf)])
    same(lambda z: (np.sqrt(z), cmath.sqrt(z[0]), np.sqrt(z.astype(np.complex64))), z)
    compiled = tpucc.compile(lambda z: np.sqrt(z), cache=False)
    assert repr(compiled(z[:4])) == repr(np.sqrt(z[:4]))


SIGNED = [complex(a, b) for a in (-math.inf, -2.0, -0.5, -0.0, 0.0, 0.5, 2.0, math.inf)
          for b in (-math.inf, -2.0, -0.0, 0.0, 0.5, math.inf)]


@pytest.mark.parametrize("ufunc", [np.arcsin, np.arccos, np.arctan, np.arcsinh, np.arccosh,
                                   np.arctanh, np.sqrt], ids=lambda f: f.__name__)
def test_complex_inverse_functions_take_the_side_of_the_branch_cut_a_zero_s_sign_picks(ufunc):
    # XLA's ignore the sign of a zero part (asin(-2-0j) was -pi/2 + 1.317j)
    z = np.array(SIGNED)
    compiled = tpucc.compile(lambda z: (ufunc(z), ufunc(z.astype(np.complex64))), cache=False)
    with np.errstate(all="ignore"):
        expected = (ufunc(z), ufunc(z.astype(np.complex64)))
    for e, a in zip(expected, compiled(z)):
        assert e.dtype == a.dtype
        np.testing.assert_allclose(a, e, rtol=1e-6)
        assert (np.signbit(a.real) == np.signbit(e.real)).all(), (z, a, e)
        assert (np.signbit(a.imag) == np.signbit(e.imag)).all(), (z, a, e)


@pytest.mark.parametrize("fn", [cmath.asin, cmath.acos, cmath.atan, cmath.asinh, cmath.acosh,
                                cmath.atanh, cmath.sqrt, cmath.log], ids=lambda f: f.__name__)
def test_cmath_inverse_functions_on_their_branch_cuts(fn):
    def f(z):
        return fn(z[0])
    compiled = tpucc.compile(f, cache=False)
    for point in SIGNED:
        z = np.array([point])
        try:
            expected = f(z)
        except ValueError:
            with pytest.raises(ValueError, match="math domain error"):
                compiled(z)
            continue
        actual = compiled(z)
        assert type(actual) is complex
        close(expected, actual)
        assert [math.copysign(1, v) for v in (actual.real, actual.imag)] == \
            [math.copysign(1, v) for v in (expected.real, expected.imag)], (point, actual)


# --- bug_04: np.polyval of a 2-d p -----------------------------------------------------------

@pytest.mark.parametrize("p, x", [
    (np.arange(6.0).reshape(3, 2), np.array([1.0, 2.0])),          # one polynomial per column
    (np.arange(6.0).reshape(3, 2), np.float64(0.5)),
    (np.arange(6, dtype=np.float32).reshape(2, 3), np.array([[1.0], [2.0]], np.float32)),
    (np.arange(12).reshape(3, 2, 2), np.array([1.0, -1.5])),
    (np.arange(6).reshape(3, 2), np.array([2, 3])),
    (np.ones((0, 2)), np.array([1.0, 2.0])),
], ids=["columns", "scalar-x", "float32-broadcast", "3d", "int", "no-coefficients"])
def test_polyval_of_a_2d_p(p, x):
    same(lambda p, x: np.polyval(p, x), p, x)


def test_polyval_of_a_2d_p_with_a_python_x():
    same(lambda p: (np.polyval(p, 2.0), np.polyval(p, [1, 2])), np.arange(6.0).reshape(3, 2))


def test_polyval_of_a_0d_p_is_numpy_typeerror():
    def f(p, x):
        return np.polyval(p, x)
    raises_at(f, (np.float64(2.0), np.ones(2)), match="TypeError: iteration over a 0-d array",
              line_of="np.polyval")


# --- bug_05: np.polydiv and np.real_if_close refused with a hint -------------------------------

def test_polydiv_refusal_says_why_and_what_compiles():
    def f(a, b):
        return np.polydiv(a, b)
    err = raises_at(f, (np.array([1.0, -6, 11, -6]), np.array([1.0, -1])),
                    error=tpucc.errors.UnsupportedError, match=r"E100.*np\.polydiv",
                    line_of="np.polydiv")
    assert "len(u) - len(v) + 1" in err.hint and "remainder" in err.hint


def test_polydiv_hint_s_long_division_compiles_and_gives_numpy_s_quotient():
    def divide(u, v):       # the hint's loop
        q = np.zeros(len(u) - len(v) + 1)
        r = u.astype(float)
        for k in range(len(q)):
            q[k] = (1.0 / v[0]) * r[k]
            r[k:k + len(v)] -= q[k] * v
        return q, r[len(q):]
    for u, v in [(np.array([1.0, -6, 11, -6]), np.array([1.0, -1])),
                 (np.array([3.0, 5.0, 2.0, 7.0]), np.array([2.0, 1.0, -3.0]))]:
        same(divide, u, v)
        q, _ = tpucc.compile(divide, cache=False)(u, v)
        np.testing.assert_array_equal(q, np.polydiv(u, v)[0])


def test_real_if_close_refusal_says_why():
    def f(a):
        return np.real_if_close(a)
    err = raises_at(f, (np.array([1 + 1e-20j]),), error=tpucc.errors.UnsupportedError,
                    match="real_if_close", line_of="np.real_if_close")
    assert "a.real" in err.hint
