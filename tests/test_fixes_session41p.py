"""Session 41p: np.poly1d in compiled code.  Calling one (`P(x)`) compiled,
as np.polyval of its coefficients; a poly1d made from constants in the
compiled function is NumPy's object; and the array a NumPy property hands
out (`P.coeffs`) is a runtime input read at every call, as an attribute
holding an array is, so an update in place between calls is seen."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import tpucc

from conftest import assert_same, raises_at

P = np.poly1d([1.0, -2.0, 3.0])
Q = np.poly1d(np.array([2, 0, 1], dtype=np.int32))


def same(fn, *args):
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    compiled = tpucc.compile(fn, cache=False)
    assert_same(fn(*eager_args), compiled(*comp_args))
    assert_same(eager_args, comp_args)
    return compiled


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
