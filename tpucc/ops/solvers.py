"""np.linalg.inv, solve, det and cholesky: one op each, lowered to
jax.numpy.linalg / lax.linalg (LAPACK on CPU, cuSOLVER on GPU), batched over
leading axes as NumPy's gufuncs are.  det (and slogdet, in decompositions)
follow NumPy's own recipe, lu_slogdet below, not jax's closed forms.

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

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import DTypeError, ShapeError
from ..ir import AVal
from .libm import exp_like_glibc, hypot_like_glibc, log_like_glibc
from .manipulation import as_array
from .registry import SOLVER_WEIGHT, broadcast_shapes, implements, register, target_platforms

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


def in_numpy_precision(fn):
    """fn(x) run in the precision NumPy's linalg runs LAPACK in: double
    (_commonType computes float32 and complex64 in double and casts the
    results back), so single-precision results round as NumPy's do (det of a
    float32 matrix of integers is 13.0, not 13.000002; complex64 eigenvalues
    come in complex128's order).  The caller casts the results back.  TPUs
    have no fast float64 (nor LU / eig in it): single stays single there."""
    def run(x, **attrs):
        if "tpu" in target_platforms():
            return fn(x, **attrs)
        return fn(x.astype(np.promote_types(x.dtype, np.float64)), **attrs)
    return run


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


def adjoint(x):
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
    return tri + adjoint(tri) + eye * diagonal[..., None, :]


def _cholesky(x, upper):
    """NumPy reads only the lower triangle (the upper one for upper=True),
    where jnp.linalg.cholesky would average a with its transpose first."""
    lower = lax.linalg.cholesky(hermitian_from_triangle(x, lower=not upper),
                                symmetrize_input=False)
    return adjoint(lower) if upper else lower


# --- determinants, as NumPy's umath_linalg computes them -----------------------------------
# jnp.linalg.det uses closed forms for 2x2 and 3x3 (a*d - b*c), which overflow,
# underflow or cancel where NumPy's LU answer is finite (det 1e306 -> -inf; a
# singular matrix -> 3e-18 instead of 0.0), and its 2x2 slogdet goes through that
# product too.  NumPy, for every size: LU with partial pivoting (getrf), an exact
# zero pivot -> (0, -inf); else sign = pivot parity times the signs (phases) of the
# diagonal and logdet = the sum of log|u_ii|, accumulated in order; and det is
# sign * exp(logdet), not the product of the diagonal (so det([[-2, -4], [-1, 5]])
# is -13.999999999999996, as int() sees it).

_IN_ORDER_MAX = 64   # beyond, one op per element costs more than LU rounding already differs


def _in_order(values, step, start):
    """Fold the last axis left to right as NumPy's C loop does; a reduction
    may reassociate, which changes the last bits of a sum of logs."""
    if values.shape[-1] > _IN_ORDER_MAX:
        reduce = jnp.sum if step is lax.add else jnp.prod    # (or the complex product)
        return step(start, reduce(values, axis=-1))
    acc = start
    for i in range(values.shape[-1]):
        acc = step(acc, values[..., i])
    return acc


def _modulus(diag):
    """|u_ii| as NumPy's C loop takes it (glibc's hypot for complex)."""
    if jnp.iscomplexobj(diag):
        return hypot_like_glibc(jnp.real(diag), jnp.imag(diag))
    return jnp.abs(diag)


def _phase_product(diag, magnitude, parity_sign):
    """The complex sign: the product of u_ii / |u_ii|, times -1 per row swap."""
    phases = lax.complex(jnp.real(diag) / magnitude, jnp.imag(diag) / magnitude)
    return _in_order(phases, lax.mul, parity_sign.astype(diag.dtype))


def _lu_slogdet_values(x):
    """(sign, logabsdet) of the square matrices x[..., n, n], n >= 1."""
    lu, pivots, _ = lax.linalg.lu(x)
    diag = jnp.diagonal(lu, axis1=-2, axis2=-1)
    swaps = jnp.sum(pivots != jnp.arange(x.shape[-1], dtype=pivots.dtype), axis=-1)
    parity_sign = jnp.where(swaps % 2 == 1, -1, 1)
    magnitude = _modulus(diag)
    if jnp.iscomplexobj(x):
        sign = _phase_product(diag, magnitude, parity_sign)
    else:
        negatives = jnp.sum(diag < 0, axis=-1)
        sign = jnp.where((swaps + negatives) % 2 == 1, -1, 1).astype(x.dtype)
    logs = log_like_glibc(magnitude)
    logdet = _in_order(logs, lax.add, jnp.zeros(logs.shape[:-1], logs.dtype))
    singular = jnp.any(diag == 0, axis=-1)   # getrf's info > 0
    return (jnp.where(singular, jnp.zeros_like(sign), sign),
            jnp.where(singular, -jnp.inf, logdet))


@jax.custom_jvp
def lu_slogdet(x):
    """NumPy's slogdet.  The derivative is jax's (trace(solve(x, dx))):
    differentiating through the LU pivots and log|u_ii| would be undefined at
    a singular matrix."""
    if x.shape[-1] == 0:
        real = jnp.abs(jnp.zeros((), x.dtype)).dtype
        return jnp.ones(x.shape[:-2], x.dtype), jnp.zeros(x.shape[:-2], real)
    return _lu_slogdet_values(x)


@lu_slogdet.defjvp
def _lu_slogdet_jvp(primals, tangents):
    return lu_slogdet(*primals), tuple(jax.jvp(jnp.linalg.slogdet, primals, tangents)[1])


@jax.custom_jvp
def lu_det(x):
    """NumPy's det: sign * exp(logabsdet) of the LU factors."""
    sign, logdet = lu_slogdet(x)
    magnitude = exp_like_glibc(logdet)    # XLA's exp misses glibc's last bit in 15%
    if jnp.iscomplexobj(x):    # NumPy multiplies by exp(logdet) + 0j
        return lax.complex(jnp.real(sign) * magnitude, jnp.imag(sign) * magnitude)
    return sign * magnitude


@lu_det.defjvp
def _lu_det_jvp(primals, tangents):
    return lu_det(*primals), jax.jvp(jnp.linalg.det, primals, tangents)[1]


# name -> (shape rule, lowering, NumPy reference)
LINALG_OPS = {
    "linalg_inv": (_matrices_shape, jnp.linalg.inv, np.linalg.inv),
    "linalg_det": (_det_shape, in_numpy_precision(lu_det), np.linalg.det),
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
