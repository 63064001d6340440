"""Session 39k: np.polynomial's evaluations polyval, chebval and legval
compile on runtime coefficients, with NumPy's values and dtypes (a Python
number x stays weak; integer and bool coefficients become float64); the
rest of np.polynomial is refused with a hint naming what compiles."""
import numpy as np
import pytest

from tpucc import errors as E
from conftest import check, hlo, raises_at

import tpucc

P = np.polynomial
SERIES = [P.polynomial.polyval, P.chebyshev.chebval, P.legendre.legval]
COEFFICIENTS = [np.array([1.0, 2.0, 3.0, -1.5, 0.25]), np.array([1.5, -2.0], np.float32),
                np.array([3.0], np.float32), np.array([1, 2, 3]),
                np.array([True, False, True]), np.linspace(-1, 1, 7).astype(np.float32)]
POINTS = [np.linspace(-1, 1, 5), np.linspace(-1, 1, 6).astype(np.float32).reshape(2, 3),
          np.arange(4), np.float32(0.25)]


@pytest.mark.parametrize("series", SERIES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("c", COEFFICIENTS, ids=lambda c: f"{c.dtype}{c.shape}")
@pytest.mark.parametrize("x", POINTS, ids=lambda x: f"{x.dtype}{np.shape(x)}")
def test_series_evaluation_on_runtime_coefficients(series, c, x):
    check(lambda x, c: series(x, c), x, c, rtol=1e-5)   # float32: XLA may fuse a*b+c


@pytest.mark.parametrize("series", SERIES, ids=lambda f: f.__name__)
def test_python_number_x_stays_weak(series):
    # float32 coefficients at a Python float: float32, as NumPy (NEP 50)
    c = np.array([1.0, -2.0, 0.5, 3.0], np.float32)
    check(lambda c: (series(0.5, c), series(2, c), series([0.5, 1.0], c)), c)


@pytest.mark.parametrize("series", SERIES, ids=lambda f: f.__name__)
def test_2d_coefficients_tensor_true_and_false(series):
    c = np.arange(6.0).reshape(3, 2)
    x = np.array([0.5, 2.0])
    check(lambda x, c: (series(x, c), series(x, c, tensor=False), series(0.5, c)), x, c)


def test_series_inside_a_runtime_loop():
    def f(c, n):
        s = 0.0
        for i in range(n):
            s += P.chebyshev.chebval(i * 0.1, c) + P.legendre.legval(i * 0.1, c)
        return s
    c = np.array([1.0, 0.5, -0.25, 2.0])
    n = np.array(5)            # a runtime trip count: one while loop
    check(f, c, n)
    assert " while(" in hlo(tpucc.compile(f), c, n)


def test_empty_coefficients_raise_numpys_index_error():
    def f(x, c):
        return P.polynomial.polyval(x, c[:0])
    raises_at(f, (np.ones(3), np.ones(3)), match="IndexError", line_of="polyval")


def test_other_polynomial_functions_name_what_compiles():
    def f(c):
        return P.polynomial.polymul(c, c)
    raises_at(f, (np.ones(3),), error=E.UnsupportedError,
              match="compiles only the evaluations np.polynomial.polynomial.polyval",
              line_of="polymul")
