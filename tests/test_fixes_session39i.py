"""Session 39i's fixes (numerical methods without SciPy: polynomials,
quadrature, interpolation), each checked against eager NumPy or for its
message."""
import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


# --- np.trapezoid: a 2-d x beside a 1-d y takes its differences along its own last axis -------

def _trapezoid(y, x):
    return np.trapezoid(y, x)


def _trapezoid_axis0(y, x):
    return np.trapezoid(y, x, axis=0)


def _trapezoid_axis_neg2(y, x):
    return np.trapezoid(y, x, axis=-2)


@pytest.mark.parametrize("fn, y, x", [
    (_trapezoid, np.arange(3.0), np.arange(6.0).reshape(2, 3) ** 2),     # one row per curve
    (_trapezoid_axis0, np.arange(3.0), np.arange(6.0).reshape(3, 2) ** 2),
    (_trapezoid_axis_neg2, np.arange(12.0).reshape(4, 3), np.arange(4.0).reshape(4, 1) ** 2),
    (_trapezoid, np.arange(12.0).reshape(4, 3), np.arange(3.0).reshape(1, 3)),
])
def test_trapezoid_with_sample_points_of_other_rank(fn, y, x):
    check(fn, y, x)


# --- np.interp: left / right are one real number, as NumPy's C code reads them ----------------

def _interp_fill(x, xp, fp, fill):
    return np.interp(x, xp, fp, left=fill, right=7.0)


@pytest.mark.parametrize("fill, match", [
    (np.array([-7.0]), "only 0-dimensional arrays"),
    (1j, "must be real number, not complex"),
    ([1.0], "must be real number, not list"),
])
def test_interp_refuses_a_fill_value_numpy_refuses(fill, match):
    args = (np.array([-1.0, 0.5, 9.0]), np.arange(3.0), np.arange(3.0), fill)
    with pytest.raises(TypeError, match=match):
        _interp_fill(*args)
    raises_at(_interp_fill, args, TypeError, match=match, line_of="np.interp")


def test_interp_fill_values_still_compile():
    check(_interp_fill, np.array([-1.0, 0.5, 9.0]), np.arange(3.0), np.arange(3.0),
          np.array(-7.0))
    check(_interp_fill, np.array([-1.0, 0.5, 9.0]), np.arange(3.0), np.arange(3.0),
          np.float32(-7.0))


# --- np.polyder / polyint / polyadd / polysub compile on runtime coefficients -----------------

def _derivatives(p):
    return np.polyder(p), np.polyder(p, 2), np.polyder(p, 0), np.polyder(p, 5)


def _integrals(p):
    return (np.polyint(p), np.polyint(p, 2), np.polyint(p, 0), np.polyint(p, 2, k=[1, 2]),
            np.polyint(p, 3, k=4))


@pytest.mark.parametrize("p", [np.array([1.0, 2, 3, 4]), np.array([1, 2, 3, 4], np.float32),
                               np.array([1, 2, 3, 4]), [1.0, 2], np.array([1 + 2j, 3])])
def test_polyder_and_polyint(p):
    check(_derivatives, p)
    check(_integrals, p)


def _integral_constants(p, k):
    return np.polyint(p, k=k), np.polyint(p, 2, k=np.array([k, 2 * k]))


def test_polyint_with_runtime_constants():
    check(_integral_constants, np.array([1.0, 2, 3]), 2.5)
    check(_integral_constants, np.array([1.0, 2, 3], np.float32), np.float32(2.5))


def _sums(a, b):
    return np.polyadd(a, b), np.polysub(a, b), np.polyadd(b, a), np.polysub(b, a)


@pytest.mark.parametrize("a, b", [
    (np.array([1.0, 2]), np.array([1.0, 2, 3])),
    (np.array([1, 2], np.int8), np.array([1.0, 2, 3], np.float32)),
    (np.array([1, 2]), 3),
    (np.array([1, 2], np.uint8), [3, 4]),
])
def test_polyadd_and_polysub(a, b):
    check(_sums, a, b)


def _newton_with_polyder(p, x, tol):
    dp = np.polyder(p)
    for _ in range(50):
        step = np.polyval(p, x) / np.polyval(dp, x)
        x = x - step
        if abs(step) < tol:
            break
    return x


def test_newton_iteration_on_polyder():
    compiled = check(_newton_with_polyder, np.array([1.0, 0, -2]), 1.0, 1e-12)
    text = compiled.lower(np.array([1.0, 0, -2]), 1.0, 1e-12).as_text()
    assert " while(" in text or "conditional" in text


def _derivative_order(p):
    return np.polyder(p, -1)


def _scalar_derivative(p):
    return np.polyder(p)


def test_polyder_errors_are_numpys():
    raises_at(_derivative_order, (np.array([1.0]),), ValueError,
              match="Order of derivative must be positive", line_of="np.polyder")
    raises_at(_scalar_derivative, (np.array(3.0),), TypeError,
              match="len\\(\\) of unsized object", line_of="np.polyder")


# --- what stays refused says what compiles instead ---------------------------------------------

def _product(a, b):
    return np.polymul(a, b)


def _poly1d_value(a, x):
    return np.poly1d(a)(x)


def _roots(a):
    return np.roots(a)


def test_value_dependent_polynomials_say_what_compiles():
    raises_at(_product, (np.ones(2), np.ones(3)), tpucc.UnsupportedError,
              match="np.convolve\\(a1, a2\\)", line_of="np.polymul")
    raises_at(_poly1d_value, (np.ones(2), 2.0), tpucc.UnsupportedError,
              match="leading zero coefficients.*np.polyval", line_of="np.poly1d")
    raises_at(_roots, (np.ones(3),), tpucc.UnsupportedError,
              match="companion matrix", line_of="np.roots")
