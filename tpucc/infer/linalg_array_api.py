"""NumPy 2's np.linalg functions of the array API that stand for np.*
functions tpucc compiles (np.linalg.trace is np.trace over the last two
axes, ...), written in Python that the interpreter runs as the program's
own code: NumPy's argument checks and conventions, then the np.* call.
Registered in builtins_impl."""
from __future__ import annotations

import numpy as np


def svdvals(x, /):
    return np.linalg.svd(x, compute_uv=False)


def trace(x, /, *, offset=0, dtype=None):
    return np.trace(x, offset=offset, axis1=-2, axis2=-1, dtype=dtype)


def diagonal(x, /, *, offset=0):
    return np.diagonal(x, offset=offset, axis1=-2, axis2=-1)


def outer(x1, x2, /):
    if np.ndim(x1) != 1 or np.ndim(x2) != 1:
        raise ValueError("Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={np.ndim(x1)} and x2.ndim={np.ndim(x2)}.")
    return np.outer(x1, x2)


def matmul(x1, x2, /):
    return np.matmul(x1, x2)


def vecdot(x1, x2, /, *, axis=-1):
    return np.vecdot(x1, x2, axis=axis)


def cross(x1, x2, /, *, axis=-1):
    if np.shape(x1)[axis] != 3 or np.shape(x2)[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they are {np.shape(x1)[axis]} and {np.shape(x2)[axis]} "
                         "dimensional instead.")
    return np.cross(x1, x2, axis=axis)


def tensordot(x1, x2, /, *, axes=2):
    return np.tensordot(x1, x2, axes=axes)


def tensorinv(a, ind=2):
    """The inverse of `a` as a map from its first `ind` axes' elements to
    the others', shaped (a.shape[ind:] + a.shape[:ind])."""
    a = np.asarray(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    rows = 1
    for n in a.shape[ind:]:
        rows *= n
    inverse = np.linalg.inv(a.reshape(rows, -1))
    return inverse.reshape(a.shape[ind:] + a.shape[:ind])


def tensorsolve(a, b, axes=None):
    """x with np.tensordot(a, x, axes=x.ndim) == b: `a`'s trailing axes (after
    moving `axes` last) are x's shape, solved as one square system."""
    a, b = np.asarray(a), np.asarray(b)
    if axes is not None:
        order = [k for k in range(a.ndim) if k not in [ax % a.ndim for ax in axes]]
        a = a.transpose(order + [ax % a.ndim for ax in axes])
    shape = a.shape[b.ndim:]
    n = 1
    for k in shape:
        n *= k
    if a.size != n * n:
        raise np.linalg.LinAlgError(
            "Input arrays must satisfy the requirement "
            "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return np.linalg.solve(a.reshape(n, n), b.ravel()).reshape(shape)
