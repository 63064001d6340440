"""np.linalg decompositions and what NumPy builds on them: eigh, eigvalsh,
svd, qr, slogdet, eig, eigvals (complex matrices), lstsq, pinv,
matrix_rank, cond and matrix_power.  One op each, lowered to
jax.numpy.linalg / lax.linalg (LAPACK on CPU, cuSOLVER on GPU), batched over
leading axes as NumPy's gufuncs are (lstsq: 2-d, as NumPy).

Dtypes follow solvers.linalg_dtype (NumPy's _commonType): float32 and
complex64 results stay single precision (slogdet and eig compute in double,
as NumPy does: solvers.in_numpy_precision), integers and bools in float64,
float16 is refused as NumPy refuses it.  Eigenvalues of hermitian matrices,
singular values, residuals and log-determinants are real (float32 for
complex64).  Results are NumPy's named tuples (EighResult, SVDResult,
QRResult, SlogdetResult, EigResult).

Eigenvectors and singular vectors are determined up to a phase (a sign for
real matrices): LAPACK builds differ there, so compare them through A @ v ==
v * w and U @ diag(s) @ Vh == A, not element by element.

Data-dependent results and what is done about them:
- np.linalg.eig / eigvals of a real matrix: NumPy returns real arrays when
  every eigenvalue is real and complex ones otherwise, a dtype known only at
  run time: refused (use eigh / eigvalsh for symmetric matrices, or pass
  `a.astype(complex)`, whose results are complex whatever the values).
- np.linalg.lstsq's residuals are empty when rank < N: for M > N the compiled
  call returns the (K,) residuals of a full-rank matrix and checks at run
  time that the rank is N; a rank-deficient matrix raises a
  RuntimeRaiseError (a LinAlgError-like ValueError) when the call returns,
  if the program read the residuals (their value, or their shape).
- NumPy raises LinAlgError when a factorization does not converge; the
  compiled program gives the NaN that the factorization produces.

TPU targets: SVDs (jax_svd) and eig are refused, see there.
"""
from __future__ import annotations

import functools
import operator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import ShapeError, StaticValueError, UnsupportedError, UserCodeError
from ..ir import AVal
from .manipulation import as_array
from .registry import (SOLVER_WEIGHT, NUMPY, differentiated, implements, register,
                       target_platforms)
from .solvers import adjoint, hermitian_from_triangle, in_numpy_precision, linalg_dtype, lu_slogdet

_linalg = np.linalg._linalg      # NumPy's result types (EighResult, SVDResult, ...)


def _emit(*a, **k):
    return emit(*a, **k)


def real_dtype(dt: np.dtype) -> np.dtype:
    return np.finfo(dt).dtype


def _matrix(a: AVal) -> tuple:
    if a.ndim < 2:
        raise ShapeError(f"{a.ndim}-dimensional array given. Array must be at least "
                         "two-dimensional")
    return a.shape[-2:]


def _square(a: AVal) -> int:
    m, n = _matrix(a)
    if m != n:
        raise ShapeError("Last 2 dimensions of the array must be square")
    return n


def _aval(dtype, shape) -> AVal:
    return AVal(np.dtype(dtype), tuple(shape), False)


def _register(name, abstract, lower, numpy=None):
    """An op of one matrix operand: `lower(x, **attrs)` gets it in the
    computation dtype (linalg_dtype), its results are cast to the abstract's."""
    def lowering(lc, *xs, **attrs):
        dt = linalg_dtype(lc.in_avals[:1])
        xs = [lax.convert_element_type(x, dt) for x in xs[:1]] + list(xs[1:])
        outs = lower(*xs, **attrs)
        if isinstance(outs, tuple):
            return tuple(lax.convert_element_type(o, a.dtype) for o, a in zip(outs, lc.out_avals))
        return lax.convert_element_type(outs, lc.out_avals[0].dtype)
    register(name, abstract, lowering, numpy=numpy, compile_weight=SOLVER_WEIGHT)


# --- eigh / eigvalsh ---------------------------------------------------------------------

def _eigh_abstract(avals, UPLO, vectors):
    a, = avals
    _square(a)
    dt = linalg_dtype(avals)
    w = _aval(real_dtype(dt), a.shape[:-1])
    return (w, _aval(dt, a.shape)) if vectors else w


def _eigh_lower(x, UPLO, vectors):
    if x.shape[-1] == 0:
        w = jnp.zeros(x.shape[:-1], real_dtype(x.dtype))
        return (w, x) if vectors else w
    w, v = jnp.linalg.eigh(hermitian_from_triangle(x, lower=UPLO == "L"),
                           symmetrize_input=False)
    return (w, v) if vectors else w


def _eigh_numpy(a, UPLO, vectors):
    return tuple(np.linalg.eigh(a, UPLO)) if vectors else np.linalg.eigvalsh(a, UPLO)


_register("linalg_eigh", _eigh_abstract, _eigh_lower, _eigh_numpy)


def _uplo(UPLO) -> str:
    if UPLO not in ("L", "U"):
        raise UserCodeError("ValueError: UPLO argument must be 'L' or 'U'")
    return UPLO


@implements(np.linalg.eigh)
def eigh(a, UPLO="L"):
    w, v = _emit("linalg_eigh", as_array(a), UPLO=_uplo(UPLO), vectors=True)
    return _linalg.EighResult(w, v)


@implements(np.linalg.eigvalsh)
def eigvalsh(a, UPLO="L"):
    return _emit("linalg_eigh", as_array(a), UPLO=_uplo(UPLO), vectors=False)


def _scalars(*arrays):
    """NumPy gives scalars, not 0-d arrays, for the 0-d results of these
    gufuncs (slogdet of one matrix, lstsq's rank, cond of one matrix)."""
    for x in arrays:
        if x.ndim == 0:
            x.immutable = True
    return arrays if len(arrays) > 1 else arrays[0]


def _eye_like(shape, dt):
    """The identity matrices of a (..., m, n) stack."""
    return jnp.broadcast_to(jnp.eye(shape[-2], shape[-1], dtype=dt), shape)


# --- svd -----------------------------------------------------------------------------------

def jax_svd(x, full_matrices=True, compute_uv=True):
    """jnp.linalg.svd, except for TPU targets: jax 0.10.2's TPU SVD under
    x64 (which tpucc lowers under) aborts libtpu's compiler (`Check failed:
    buffer != nullptr` in shape.h, the whole process), so it is refused."""
    if "tpu" in target_platforms():
        raise UnsupportedError(
            "singular values (np.linalg.svd, pinv, lstsq, matrix_rank, cond, norm 2/-2/'nuc', "
            "polyfit) cannot be compiled for TPU: jax's TPU SVD aborts libtpu's compiler "
            "with 64-bit types enabled", hint="compute them on the CPU or GPU; for a hermitian "
            "matrix, np.linalg.eigh gives them (|eigenvalues|)")
    return jnp.linalg.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)


def _svd_abstract(avals, full_matrices, compute_uv, hermitian):
    a, = avals
    m, n = _matrix(a)
    if hermitian:
        _square(a)
    dt, k = linalg_dtype(avals), min(m, n)
    s = _aval(real_dtype(dt), a.shape[:-2] + (k,))
    if not compute_uv:
        return s
    ucols, vrows = (m, n) if full_matrices else (k, k)
    return (_aval(dt, a.shape[:-2] + (m, ucols)), s, _aval(dt, a.shape[:-2] + (vrows, n)))


def _svd_lower(x, full_matrices, compute_uv, hermitian):
    m, n = x.shape[-2:]
    batch = x.shape[:-2]
    if min(m, n) == 0:
        s = jnp.zeros(batch + (0,), real_dtype(x.dtype))
        if not compute_uv:
            return s
        ucols, vrows = (m, n) if full_matrices else (0, 0)
        return _eye_like(batch + (m, ucols), x.dtype), s, _eye_like(batch + (vrows, n), x.dtype)
    if hermitian:
        return _hermitian_svd(x, compute_uv)
    out = jax_svd(x, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def _hermitian_svd(x, compute_uv):
    """NumPy's: the eigendecomposition (of the lower triangle), |w| in
    decreasing order."""
    x = hermitian_from_triangle(x, lower=True)
    if not compute_uv:
        w = jnp.linalg.eigh(x, symmetrize_input=False)[0]
        return jnp.flip(jnp.sort(jnp.abs(w), axis=-1), axis=-1)
    w, u = jnp.linalg.eigh(x, symmetrize_input=False)
    order = jnp.flip(jnp.argsort(jnp.abs(w), axis=-1), axis=-1)
    sgn = jnp.take_along_axis(jnp.sign(w), order, axis=-1)
    s = jnp.take_along_axis(jnp.abs(w), order, axis=-1)
    u = jnp.take_along_axis(u, order[..., None, :], axis=-1)
    vt = jnp.conj(jnp.swapaxes(u * sgn[..., None, :].astype(u.dtype), -1, -2))
    return u, s, vt


def _svd_numpy(a, full_matrices, compute_uv, hermitian):
    out = np.linalg.svd(a, full_matrices, compute_uv, hermitian)
    return tuple(out) if compute_uv else out


_register("linalg_svd", _svd_abstract, _svd_lower, _svd_numpy)


@implements(np.linalg.svd)
def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    out = _emit("linalg_svd", as_array(a), full_matrices=bool(full_matrices),
                compute_uv=bool(compute_uv), hermitian=bool(hermitian))
    return _linalg.SVDResult(*out) if compute_uv else out


def singular_values(a):
    """np.linalg.svd(a, compute_uv=False) of an Array (norm, cond)."""
    return _emit("linalg_svd", a, full_matrices=False, compute_uv=False, hermitian=False)


# --- qr ------------------------------------------------------------------------------------

_QR_MODES = ("reduced", "complete", "r")


def _qr_abstract(avals, mode):
    a, = avals
    m, n = _matrix(a)
    dt, k = linalg_dtype(avals), min(m, n)
    rows = m if mode == "complete" else k
    r = _aval(dt, a.shape[:-2] + (rows, n))
    return r if mode == "r" else (_aval(dt, a.shape[:-2] + (m, rows)), r)


def _qr_lower(x, mode):
    m, n = x.shape[-2:]
    if min(m, n) == 0:
        rows = m if mode == "complete" else 0
        r = jnp.zeros(x.shape[:-2] + (rows, n), x.dtype)
        return r if mode == "r" else (_eye_like(x.shape[:-2] + (m, rows), x.dtype), r)
    out = jnp.linalg.qr(x, mode=mode)
    return out if mode == "r" else tuple(out)


def _qr_numpy(a, mode):
    out = np.linalg.qr(a, mode)
    return out if mode == "r" else tuple(out)


_register("linalg_qr", _qr_abstract, _qr_lower, _qr_numpy)


@implements(np.linalg.qr)
def qr(a, mode="reduced"):
    if mode == "raw" or mode in ("full", "f", "economic", "e"):
        raise UnsupportedError(f"np.linalg.qr(mode={mode!r}) is not supported: LAPACK's "
                               "Householder form (and the deprecated modes) differ between "
                               "LAPACK builds", hint="use mode='reduced', 'complete' or 'r'")
    if mode not in _QR_MODES:
        raise UserCodeError(f"ValueError: Unrecognized mode '{mode}'")
    out = _emit("linalg_qr", as_array(a), mode=mode)
    return out if mode == "r" else _linalg.QRResult(*out)


# --- slogdet -------------------------------------------------------------------------------

def _slogdet_abstract(avals):
    a, = avals
    _square(a)
    dt = linalg_dtype(avals)
    return _aval(dt, a.shape[:-2]), _aval(real_dtype(dt), a.shape[:-2])


_register("linalg_slogdet", _slogdet_abstract,
          in_numpy_precision(lambda x: tuple(lu_slogdet(x))),
          lambda a: tuple(np.linalg.slogdet(a)))


@implements(np.linalg.slogdet)
def slogdet(a):
    return _linalg.SlogdetResult(*_scalars(*_emit("linalg_slogdet", as_array(a))))


# --- eig / eigvals (complex matrices) ------------------------------------------------------

def _eig_abstract(avals, vectors):
    a, = avals
    _square(a)
    dt = linalg_dtype(avals)
    w = _aval(dt, a.shape[:-1])
    return (w, _aval(dt, a.shape)) if vectors else w


def _eig_lower(x, vectors):
    if "tpu" in target_platforms():
        raise UnsupportedError("np.linalg.eig / eigvals have no TPU implementation (jax's "
                               "nonsymmetric eigendecomposition runs on CPU and GPU)",
                               hint="np.linalg.eigh / eigvalsh for hermitian matrices")
    if x.shape[-1] == 0:
        w = jnp.zeros(x.shape[:-1], x.dtype)
        return (w, x) if vectors else w
    if not vectors:     # (no eigenvectors: jax differentiates the eigenvalues then)
        return jnp.linalg.eigvals(x)
    return tuple(jnp.linalg.eig(x))


# (in double, as NumPy: LAPACK's complex64 QR iteration can converge to the
# eigenvalues in another order than its complex128 one)
_register("linalg_eig", _eig_abstract, in_numpy_precision(_eig_lower),
          lambda a, vectors: tuple(np.linalg.eig(a)) if vectors else np.linalg.eigvals(a))


def _eig(name, a, vectors):
    a = as_array(a)
    if a.dtype.kind != "c":
        raise UnsupportedError(
            f"np.linalg.{name} of a real matrix: NumPy returns real arrays when every "
            "eigenvalue is real and complex ones otherwise, a dtype known only at run time",
            hint=f"for a symmetric matrix use np.linalg.{'eigh' if vectors else 'eigvalsh'}; "
                 f"otherwise np.linalg.{name}(a.astype(complex)) (or np.complex64), whose "
                 "results are complex whatever the values")
    return _emit("linalg_eig", a, vectors=vectors)


@implements(np.linalg.eig)
def eig(a):
    return _linalg.EigResult(*_eig("eig", a, True))


@implements(np.linalg.eigvals)
def eigvals(a):
    return _eig("eigvals", a, False)


# --- lstsq ---------------------------------------------------------------------------------

_HIGHEST = lax.Precision.HIGHEST


def _lstsq_abstract(avals, rcond):
    a, b = avals
    if a.ndim != 2 or b.ndim not in (1, 2):
        bad = a if a.ndim != 2 else b
        raise ShapeError(f"{bad.ndim}-dimensional array given. Array must be two-dimensional"
                         if bad is a else f"lstsq: b must be 1- or 2-dimensional, got {b.ndim}")
    (m, n), k = a.shape, b.shape[1:]
    if b.shape[0] != m:
        raise ShapeError(f"lstsq: a of shape {a.shape} and b of shape {b.shape}: "
                         "Incompatible dimensions")
    dt = linalg_dtype(avals)
    rdt = real_dtype(dt)
    residuals = (k or (1,)) if m > n else (0,)
    return (_aval(dt, (n,) + k), _aval(rdt, residuals), _aval(np.int32, ()),
            _aval(rdt, (min(m, n),)))


def _lstsq_lower(lc, a, b, rcond):
    """LAPACK's gelsd, as NumPy calls it: the minimum-norm solution through
    the SVD, singular values at or below rcond * s[0] taken as zero; the
    residuals (M > N, full rank) are the squared norms of b's part outside
    a's range, b - U U^H b."""
    dt, rdt = lc.out_avals[0].dtype, lc.out_avals[1].dtype
    a, b = lax.convert_element_type(a, dt), lax.convert_element_type(b, dt)
    (m, n), vector = a.shape, b.ndim == 1
    b2 = b[:, None] if vector else b
    if min(m, n) == 0:
        x = jnp.zeros((n, b2.shape[1]), dt)
        rank, s = jnp.int32(0), jnp.zeros((0,), rdt)
        outside = b2
    else:
        u, s, vh = jax_svd(a, full_matrices=False)     # (the full U has no derivative)
        eps = np.finfo(rdt).eps     # NumPy's default rcond; LAPACK's for a negative one
        large = s > (eps * max(m, n) if rcond is None else eps if rcond < 0 else rcond) * s[0]
        rank = jnp.sum(large, dtype=np.int32)
        inverse = jnp.where(large, 1 / jnp.where(large, s, 1), 0).astype(rdt)
        ub = jnp.matmul(jnp.conj(u).T, b2, precision=_HIGHEST)
        x = jnp.matmul(jnp.conj(vh).T, inverse[:, None].astype(dt) * ub, precision=_HIGHEST)
        outside = b2 - jnp.matmul(u, ub, precision=_HIGHEST) if m > n else None
    if m > n:
        residuals = jnp.sum(jnp.real(outside * jnp.conj(outside)), axis=0).astype(rdt)
    else:
        residuals = jnp.zeros((0,), rdt)
    return (x[:, 0] if vector else x), residuals, rank, s


def _lstsq_numpy(a, b, rcond):
    return tuple(np.linalg.lstsq(a, b, rcond))


register("linalg_lstsq", _lstsq_abstract, _lstsq_lower, numpy=_lstsq_numpy,
         compile_weight=SOLVER_WEIGHT)


@implements(np.linalg.lstsq)
def lstsq(a, b, rcond=None):
    return lstsq_arrays(as_array(a), as_array(b), rcond, residuals=True)


def lstsq_arrays(a, b, rcond, residuals):
    """lstsq; without `residuals` (the caller drops them: polyfit) no
    runtime check of the rank."""
    rcond = None if rcond is None else float(rcond)
    x, resids, rank, s = _emit("linalg_lstsq", a, b, rcond=rcond)
    if residuals and a.ndim == 2 and a.shape[0] > a.shape[1]:
        resids = _full_rank_residuals(resids, rank, a.shape[1])
    return x, resids, _scalars(rank), s


def _full_rank_residuals(resids, rank, n):
    """NumPy's residuals are empty for a rank-deficient matrix, a shape known
    only at run time: the compiled call returns those of a full-rank matrix
    and checks that it is one, if the program reads them (not after
    `lstsq(a, b)[0]`: the solution is right whatever the rank)."""
    from ..infer import checks
    return checks.require_if_read(
        resids, rank == n, f"np.linalg.lstsq: the matrix has rank < {n} (its number of "
        "columns), where NumPy returns empty residuals: a shape tpucc cannot know "
        "when compiling", raises="ValueError",
        hint="make the columns independent, or compute the solution with "
             "np.linalg.pinv(a) @ b")


# --- pinv, matrix_rank ---------------------------------------------------------------------

def _pinv_abstract(avals, hermitian):
    a, rcond = avals
    m, n = _matrix(a)
    np.broadcast_shapes(rcond.shape, a.shape[:-2])
    if a.size == 0:         # NumPy's empty result keeps the dtype (an int stays int)
        return _aval(a.dtype, a.shape[:-2] + (n, m))
    return _aval(linalg_dtype(avals[:1]), a.shape[:-2] + (n, m))


def _pinv_lower(lc, x, rcond, hermitian):
    dt, shape = lc.out_avals[0].dtype, lc.out_avals[0].shape
    if x.size == 0:
        return jnp.zeros(shape, dt)
    x = lax.convert_element_type(x, dt)
    if differentiated():
        return _differentiable_pinv(x, jnp.asarray(rcond), hermitian)
    return _pinv_by_svd(x, rcond, hermitian)


def _pinv_by_svd(x, rcond, hermitian):
    """NumPy's pinv: V diag(1/s) U^H, singular values at or below
    rcond * max(s) taken as zero."""
    u, s, vt = _svd_lower(jnp.conj(x), False, True, hermitian)
    cutoff = jnp.asarray(rcond)[..., None] * jnp.max(s, axis=-1, keepdims=True)
    large = s > cutoff
    s = jnp.where(large, 1 / jnp.where(large, s, 1), 0).astype(s.dtype)
    return jnp.matmul(jnp.swapaxes(vt, -1, -2),
                      s[..., None].astype(x.dtype) * jnp.swapaxes(u, -1, -2), precision=_HIGHEST)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def _differentiable_pinv(x, rcond, hermitian):
    """_pinv_by_svd whose derivative is written in terms of pinv itself, as
    jnp.linalg.pinv's: jax's SVD derivative divides by s_i**2 - s_j**2, so
    through the SVD a repeated singular value (any matrix near the
    identity) gives a NaN gradient."""
    return _pinv_by_svd(x, rcond, hermitian)


@_differentiable_pinv.defjvp
def _pinv_jvp(hermitian, primals, tangents):
    """Golub and Pereyra (1973), for a matrix of locally constant rank; the
    cutoff rcond has no derivative.  A hermitian pinv reads only the lower
    triangle (NumPy's eigh), so its derivative sees that triangle's matrix."""
    (a, rcond), (da, _) = primals, tangents
    p = _differentiable_pinv(a, rcond, hermitian)
    if hermitian:
        a, da = hermitian_from_triangle(a, lower=True), hermitian_from_triangle(da, lower=True)
    mm = functools.partial(jnp.matmul, precision=_HIGHEST)
    ph, dah = adjoint(p), adjoint(da)
    m, n = a.shape[-2:]
    if m >= n:      # (the order of the products keeps the intermediates n x m)
        s, t = mm(mm(p, ph), dah), mm(mm(dah, ph), p)
        dp = -mm(mm(p, da), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
    else:
        s, t = mm(p, mm(ph, dah)), mm(dah, mm(ph, p))
        dp = -mm(p, mm(da, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t))
    return p, dp


register("linalg_pinv", _pinv_abstract, _pinv_lower,
         numpy=lambda a, rcond, hermitian: np.linalg.pinv(a, rcond, hermitian),
         compile_weight=SOLVER_WEIGHT)

_UNSET = object()


@implements(np.linalg.pinv)
def pinv(a, rcond=None, hermitian=False, *, rtol=_UNSET):
    a = as_array(a)
    if rcond is None:
        if rtol is _UNSET:
            rcond = 1e-15
        elif rtol is None:
            if a.dtype.kind not in "fc":
                raise UserCodeError(f"ValueError: data type {a.dtype.type} not inexact")
            rcond = max(a.shape[-2:]) * np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _UNSET:
        raise UserCodeError("ValueError: `rtol` and `rcond` can't be both set.")
    if type(rcond) in (int, float):
        rcond = np.asarray(rcond)       # NumPy's asarray: float64, not a weak scalar
    return _emit("linalg_pinv", a, rcond, hermitian=bool(hermitian))


def _rank_abstract(avals, relative, hermitian):
    a, tol = avals
    _square(a) if hermitian else _matrix(a)
    linalg_dtype(avals[:1])
    return _aval(np.int64, np.broadcast_shapes(a.shape[:-2], tol.shape))


def _rank_lower(lc, x, tol, relative, hermitian):
    dt = linalg_dtype(lc.in_avals[:1])
    s = _svd_lower(lax.convert_element_type(x, dt), False, False, hermitian)
    tol = tol[..., None]
    if relative:
        tol = jnp.max(s, axis=-1, keepdims=True, initial=0) * tol
    return jnp.sum(s > tol, axis=-1, dtype=np.int64)


register("linalg_matrix_rank", _rank_abstract, _rank_lower,
         numpy=lambda a, tol, relative, hermitian: np.linalg.matrix_rank(
             a, None if relative else tol, hermitian, rtol=tol if relative else None),
         compile_weight=SOLVER_WEIGHT)


@implements(np.linalg.matrix_rank)
def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    if rtol is not None and tol is not None:
        raise UserCodeError("ValueError: `tol` and `rtol` can't be both set.")
    A = as_array(A)
    if A.ndim < 2:
        from ..infer.builtins_impl import to_python_scalar
        return to_python_scalar(NUMPY[np.any](A != 0), np.int64)
    if tol is None and rtol is None:
        # NumPy's rtol is then a Python float: weak, in the singular values' dtype
        eps = np.finfo(real_dtype(linalg_dtype((A.aval,)))).eps
        return _scalars(_emit("linalg_matrix_rank", A, max(A.shape[-2:]) * float(eps),
                              relative=True, hermitian=bool(hermitian)))
    relative = tol is None
    bound = rtol if relative else tol
    if type(bound) in (int, float):
        bound = np.asarray(bound)
    return _scalars(_emit("linalg_matrix_rank", A, bound, relative=relative,
                          hermitian=bool(hermitian)))


# --- cond ----------------------------------------------------------------------------------

_COND_ORDERS = (None, 2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf)


def _cond_abstract(avals, p):
    a, = avals
    m, n = _matrix(a)
    dt = linalg_dtype(avals)
    if a.size == 0:
        raise UserCodeError("LinAlgError: cond is not defined on empty arrays")
    if p not in (None, 2, -2):
        _square(a)
    return _aval(real_dtype(dt), a.shape[:-2])


def _cond_lower(x, p):
    if p in (None, 2, -2):
        s = jax_svd(x, compute_uv=False)
        r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        if p == "nuc":
            jax_svd(x, compute_uv=False)    # (the TPU check)
        norm = lambda y: jnp.linalg.norm(y, ord=p, axis=(-2, -1))    # noqa: E731
        r = norm(x) * norm(jnp.linalg.inv(x))
    # NaN (a singular matrix) is inf unless the matrix holds NaN, as NumPy
    return jnp.where(jnp.isnan(r) & ~jnp.any(jnp.isnan(x), axis=(-2, -1)), jnp.inf, r)


_register("linalg_cond", _cond_abstract, _cond_lower, lambda a, p: np.linalg.cond(a, p))


@implements(np.linalg.cond)
def cond(x, p=None):
    if p not in _COND_ORDERS:
        raise UserCodeError("ValueError: Invalid norm order for matrices.")
    p = p if isinstance(p, str) or p is None else (float(p) if abs(p) == np.inf else int(p))
    return _scalars(_emit("linalg_cond", as_array(x), p=p))


# --- matrix_power --------------------------------------------------------------------------

@implements(np.linalg.matrix_power)
def matrix_power(a, n):
    """NumPy's: repeated squaring, so results round as NumPy's do; an
    integer matrix stays integer (n >= 0), n = 1 returns `a` itself."""
    a = as_array(a)
    _square(a.aval)
    if isinstance(n, Array):
        raise StaticValueError("np.linalg.matrix_power needs an exponent known at compile time",
                               hint="pass a Python int (a loop over a runtime count can "
                                    "multiply the matrices itself)")
    try:
        n = operator.index(n)
    except TypeError:
        raise UserCodeError("TypeError: exponent must be an integer") from None
    if n == 0:
        eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
        return _emit("convert", np.ascontiguousarray(eye), dtype=a.dtype)
    if n < 0:
        a, n = inv(a), -n
    if n == 1:
        return a
    if n == 2:
        return matmul(a, a)
    if n == 3:
        return matmul(matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array  # noqa: E402
from .linalg import matmul  # noqa: E402
from .solvers import inv  # noqa: E402
