"""np.linalg.inv, solve, det and cholesky: one op each, lowered to
jax.numpy.linalg / lax.linalg (LAPACK on CPU, cuSOLVER on GPU), batched over
leading axes as NumPy's gufuncs are.

Dtype rule (NumPy's _commonType): float32 and complex64 operands stay
single precision, everything else computes in double precision (integers
and bools too); float16 has no LAPACK routine and is refused as NumPy
refuses it.

NumPy raises LinAlgError for a singular matrix (inv, solve) or one that is
not positive definite (cholesky) after looking at its values; a compiled
program has no values at compile time and cannot raise at run time, so these
give the inf / NaN that the factorization produces instead.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import DTypeError, ShapeError
from ..ir import AVal
from .manipulation import as_array
from .registry import SOLVER_WEIGHT, broadcast_shapes, implements, register

_SINGLE = frozenset(np.dtype(d) for d in ("float32", "complex64"))
_DOUBLE = frozenset(np.dtype(d) for d in ("float64", "complex128"))


def _emit(*a, **k):
    return emit(*a, **k)


def linalg_dtype(avals) -> np.dtype:
    for a in avals:
        if a.dtype.kind not in "biu" and a.dtype not in _SINGLE | _DOUBLE:
            raise DTypeError(f"array type {a.dtype} is unsupported in linalg",
                             hint="cast to float32 or float64 first")
    complex_ = any(a.dtype.kind == "c" for a in avals)
    if all(a.dtype in _SINGLE for a in avals):
        return np.dtype(np.complex64 if complex_ else np.float32)
    return np.dtype(np.complex128 if complex_ else np.float64)


def _square(a: AVal) -> int:
    if a.ndim < 2:
        raise ShapeError(f"{a.ndim}-dimensional array given. Array must be at least "
                         "two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise ShapeError("Last 2 dimensions of the array must be square")
    return a.shape[-1]


def _solve_shape(a: AVal, b: AVal) -> tuple:
    """NumPy 2: a 1-d b is one vector (solved against every matrix of a);
    otherwise b is a stack of (m, n) matrices broadcast against a's stack."""
    m = _square(a)
    core = b.shape[-1:] if b.ndim == 1 else b.shape[-2:]
    if b.ndim == 0 or core[0] != m:
        raise ShapeError(f"solve: b of shape {b.shape} does not match the {m}x{m} "
                         "matrices of a")
    if b.ndim == 1:
        return a.shape[:-1]
    return broadcast_shapes(a.shape[:-2], b.shape[:-2]) + core


def _matrices_shape(a: AVal) -> tuple:
    _square(a)
    return a.shape


def _det_shape(a: AVal) -> tuple:
    _square(a)
    return a.shape[:-2]


def _adjoint(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def hermitian_from_triangle(x, lower: bool):
    """The hermitian matrix LAPACK sees when it reads only one triangle of
    x (and the real part of its diagonal): the same values, and the
    derivative of NumPy's function, which is zero for the triangle it never
    reads.  jax's cholesky and eigh derivatives assume a hermitian tangent;
    fed x itself they give a full matrix, wrong above the diagonal."""
    tri = jnp.tril(x, -1) if lower else jnp.triu(x, 1)
    diagonal = jnp.real(jnp.diagonal(x, axis1=-2, axis2=-1)).astype(x.dtype)
    eye = jnp.eye(x.shape[-1], dtype=x.dtype)
    return tri + _adjoint(tri) + eye * diagonal[..., None, :]


def _cholesky(x, upper):
    """NumPy reads only the lower triangle (the upper one for upper=True),
    where jnp.linalg.cholesky would average a with its transpose first."""
    lower = lax.linalg.cholesky(hermitian_from_triangle(x, lower=not upper),
                                symmetrize_input=False)
    return _adjoint(lower) if upper else lower


# name -> (shape rule, lowering, NumPy reference)
LINALG_OPS = {
    "linalg_inv": (_matrices_shape, jnp.linalg.inv, np.linalg.inv),
    "linalg_det": (_det_shape, jnp.linalg.det, np.linalg.det),
    "linalg_cholesky": (_matrices_shape, _cholesky,
                        lambda a, upper: np.linalg.cholesky(a, upper=upper)),
    "linalg_solve": (_solve_shape, jnp.linalg.solve, np.linalg.solve),
}


def _abstract(shape_rule):
    def abstract(avals, **attrs):
        return AVal(linalg_dtype(avals), tuple(shape_rule(*avals)), False)
    return abstract


def _lower(fn):
    def lower(lc, *xs, **attrs):
        dtype = lc.out_avals[0].dtype
        return lax.convert_element_type(fn(*(lax.convert_element_type(x, dtype) for x in xs),
                                           **attrs), dtype)
    return lower


for _name, (_rule, _fn, _reference) in LINALG_OPS.items():
    register(_name, _abstract(_rule), _lower(_fn), numpy=_reference,
             compile_weight=SOLVER_WEIGHT)


@implements(np.linalg.inv)
def inv(a):
    return _emit("linalg_inv", as_array(a))


@implements(np.linalg.det)
def det(a):
    return _emit("linalg_det", as_array(a))


@implements(np.linalg.cholesky)
def cholesky(a, /, *, upper=False):
    return _emit("linalg_cholesky", as_array(a), upper=bool(upper))


@implements(np.linalg.solve)
def solve(a, b):
    return _emit("linalg_solve", as_array(a), as_array(b))


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
