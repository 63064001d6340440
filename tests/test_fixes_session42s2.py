"""Runtime-length selections beside integer indices and transposed:
A[i, idx[lo:hi]] (read, write, +=) and A[idx[lo:hi], j] are A[i][...] and
A[:, j][...] (they were refused E200 while A[i][idx[lo:hi]] compiled);
Vt[r:].T, np.transpose(Vt[r:]) and Vt[r:].transpose() are the view
Vt.T[:, r:] (refused E200 before)."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import same


def csr_to_dense(indptr, indices, data, n):
    A = np.zeros((len(indptr) - 1, n), data.dtype)
    for i in range(len(indptr) - 1):
        A[i, indices[indptr[i]:indptr[i + 1]]] = data[indptr[i]:indptr[i + 1]]
    return A


def csr_accumulate(A, indptr, indices, data):
    for i in range(len(indptr) - 1):
        A[i, indices[indptr[i]:indptr[i + 1]]] += data[indptr[i]:indptr[i + 1]]
    return A.sum()


def row_gather(X, indptr, indices):
    s = X[0, 0] * 0
    for i in range(len(indptr) - 1):
        s += X[i, indices[indptr[i]:indptr[i + 1]]].sum()
    return s


def column_gather(X, indices, k, j):
    return X[indices[:k], j].sum() + X[indices[k:], j].max(initial=-100)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_integers_beside_a_runtime_selection(dtype):
    indptr, indices = np.array([0, 2, 3, 3, 5]), np.array([0, 2, 1, 0, 3])
    data = np.arange(1, 6, dtype=dtype)
    same(csr_to_dense, indptr, indices, data, 4)
    same(csr_accumulate, np.ones((4, 4), dtype), indptr, indices, data)
    X = np.arange(16, dtype=dtype).reshape(4, 4)
    same(row_gather, X, indptr, indices)
    same(column_gather, X, indices, np.int64(2), np.int64(1))


def null_space_residual(Vt, A, r):
    return np.abs(A @ Vt[r:].T).max()


def transposes(Vt, r):
    return np.transpose(Vt[r:]).sum(axis=1), Vt[r:].transpose().prod(axis=1), Vt[:r].T.sum()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_transpose_of_a_runtime_slice(dtype):
    A = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]], dtype)
    Vt = np.linalg.svd(A)[2]
    same(null_space_residual, Vt, A, np.int64(1))
    same(transposes, np.arange(12, dtype=dtype).reshape(4, 3), np.int64(1))
    same(transposes, np.arange(12, dtype=dtype).reshape(4, 3), np.int64(4))
