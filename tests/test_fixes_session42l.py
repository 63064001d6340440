"""NumPy 2's np.linalg array-API functions (svdvals, trace, diagonal,
outer, matmul, vecdot, cross, tensordot) and tensorinv/tensorsolve compile
as the np.* functions they stand for (infer/linalg_array_api.py): values
and dtypes as NumPy's, its errors as NumPy raises them."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import same


def _matrix(dtype, shape=(3, 3), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, shape).astype(dtype)
    return a + np.eye(shape[-1], dtype=dtype) * 6 if a.shape[-1] == a.shape[-2] else a


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.complex64])
def test_array_api_functions_match_numpy(dtype):
    a = _matrix(dtype, (2, 3, 3))
    same(lambda a: np.linalg.trace(a), a)
    same(lambda a: np.linalg.trace(a, offset=1), a)
    same(lambda a: np.linalg.diagonal(a, offset=-1), a)
    same(lambda a: np.linalg.outer(a[0, 0], a[1, 1]), a)
    same(lambda a: np.linalg.matmul(a, a), a)
    same(lambda a: np.linalg.vecdot(a, a), a)
    same(lambda a: np.linalg.vecdot(a, a, axis=0), a)
    same(lambda a: np.linalg.cross(a, a[::-1]), a)
    same(lambda a: np.linalg.tensordot(a[0], a[1]), a)
    same(lambda a: np.linalg.tensordot(a, a[0], axes=1), a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_svdvals_and_tensor_solvers(dtype):
    a = _matrix(dtype, (4, 3))
    np.testing.assert_allclose(tpucc.compile(lambda a: np.linalg.svdvals(a), cache=False)(a),
                               np.linalg.svdvals(a), rtol=1e-5)
    t = _matrix(dtype, (6, 6)).reshape(2, 3, 6)
    got = tpucc.compile(lambda t: np.linalg.tensorinv(t), cache=False)(t)
    assert got.dtype == np.linalg.tensorinv(t).dtype and got.shape == (6, 2, 3)
    np.testing.assert_allclose(got, np.linalg.tensorinv(t), rtol=1e-4, atol=1e-6)
    sq = _matrix(dtype, (6, 6)).reshape(2, 3, 6)
    b = np.arange(6, dtype=dtype).reshape(2, 3)
    got = tpucc.compile(lambda a, b: np.linalg.tensorsolve(a, b), cache=False)(sq, b)
    np.testing.assert_allclose(got, np.linalg.tensorsolve(sq, b), rtol=1e-4, atol=1e-5)
    four = _matrix(dtype, (6, 6)).reshape(2, 3, 2, 3)
    got = tpucc.compile(lambda a, b: np.linalg.tensorsolve(a, b, axes=(0,)), cache=False)(four, b)
    np.testing.assert_allclose(got, np.linalg.tensorsolve(four, b, axes=(0,)), rtol=1e-4,
                               atol=1e-5)


def test_numpy_errors_are_raised():
    a = np.ones((3, 3))
    with pytest.raises(ValueError, match="must be one-dimensional"):
        tpucc.compile(lambda a: np.linalg.outer(a, a), cache=False)(a)
    with pytest.raises(ValueError, match="3-dimensional vectors"):
        tpucc.compile(lambda a: np.linalg.cross(a[:, :2], a[:, :2]), cache=False)(a)
