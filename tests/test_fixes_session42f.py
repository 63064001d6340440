"""np.fromfunction with a function closing over the program's variables
(its cells were handed to NumPy's own loop: E700 naming tpucc's OwnedCell)
runs as NumPy's definition, interpreted; np.einsum_path, which depends on
the operands' shapes only, gives NumPy's answer."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import same


def hilbert(scale):
    return np.fromfunction(lambda i, j: scale / (i + j + 1), (3, 4))


def scaled_by_argument(x):
    return np.fromfunction(lambda i, j: x[0] / (i + j + 1), (3, 3))


def integer_grid(x):
    offset = x.shape[0]
    return np.fromfunction(lambda i, j, k: i * 100 + j * 10 + k + offset, (2, 3, 2), dtype=int)


def keyword_passed_on(x):
    return np.fromfunction(lambda i, power: i ** power * x.sum(), (4,), power=2)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_fromfunction_with_a_closure(dtype):
    same(hilbert, 2.0)
    same(scaled_by_argument, np.array([2, 3], dtype))
    same(integer_grid, np.zeros(5, dtype))
    same(keyword_passed_on, np.arange(3, dtype=dtype))


def contraction(a, b, c):
    path, report = np.einsum_path("ij,jk,kl->il", a, b, c, optimize="greedy")
    return np.einsum("ij,jk,kl->il", a, b, c, optimize=path), path, report


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_einsum_path_of_runtime_operands(dtype):
    a, b, c = (np.arange(n * m, dtype=dtype).reshape(n, m) for n, m in ((3, 4), (4, 5), (5, 2)))
    got, path, report = tpucc.compile(contraction, cache=False)(a, b, c)
    want, want_path, want_report = contraction(a, b, c)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert got.dtype == want.dtype and path == want_path and report == want_report
