"""Polynomials and discrete convolution: np.vander, np.polyval, np.polyder,
np.polyint, np.polyadd, np.polysub, np.polyfit, np.convolve and np.correlate (and the `correlate` op they are made of);
of np.polynomial, the evaluations polyval, chebval and legval.

vander and polyval are NumPy's loops unrolled (the number of columns and
of coefficients is static), so every product rounds where NumPy's does.
convolve is one op: a correlation of the longer array, zero-padded as
NumPy pads it for each mode, with the reversed shorter one.

polyfit is NumPy's: the Vandermonde columns scaled to unit norm, then
np.linalg.lstsq.  Its RankWarning (a rank below deg + 1, known only at run
time) is not given; with full=True or cov=True (scaled by the residuals)
the residuals follow lstsq's rule (see decompositions.py: a rank-deficient
fit raises at run time where NumPy would return empty residuals).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import UnsupportedError, UserCodeError
from ..ir import AVal
from .elementwise import astype, emit_ufunc
from .manipulation import as_array
from .registry import METHODS, NUMPY, as_array_operand, implements, register, static_index
from .shape import reshape, stack


# --- vander / polyval -------------------------------------------------------------------------

@implements(np.vander)
def vander(x, N=None, increasing=False):
    x = as_array(x)
    if x.ndim != 1:
        raise UserCodeError("ValueError: x must be a one-dimensional array or sequence.")
    n = x.shape[0] if N is None else static_index(N)
    if n < 0:
        raise UserCodeError("ValueError: negative dimensions are not allowed")
    dtype = np.promote_types(x.dtype, int)
    x = astype(x, dtype, copy=False)
    # NumPy's multiply.accumulate along the row: x, x*x, (x*x)*x, ...
    columns, power = [], None
    for k in range(n):
        power = NUMPY[np.ones](x.shape, dtype) if k == 0 else x if k == 1 else power * x
        columns.append(power)
    if not increasing:
        columns = columns[::-1]
    if not columns:
        return NUMPY[np.zeros]((x.shape[0], 0), dtype)
    return stack(columns, axis=1)


@implements(np.polyval)
def polyval(p, x):
    """Horner's scheme as NumPy's loop `for pv in p: y = y * x + pv`, from
    y = zeros_like(x): each coefficient is a NumPy scalar (strong) of p's
    dtype, or, for a p of more axes, a row p[i] that broadcasts with x (a
    2-d p holds one polynomial per column)."""
    p, x = as_array(p), as_array(as_array_operand(x))
    if p.ndim == 0:
        raise UserCodeError("TypeError: iteration over a 0-d array")
    y = NUMPY[np.zeros_like](x)
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


# --- np.polynomial: polyval / chebval / legval ------------------------------------------------
# NumPy's code (lowest power first), its loops unrolled over the static
# number of coefficients.  Unlike np.polyval, x is not converted: a Python
# number stays weak (NEP 50), so float32 coefficients give float32.

def _series_operands(x, c, tensor):
    """NumPy's prologue: c at least 1-d, bools and integers as float64; a
    list x as an array; with tensor=True and an array x, c gets x.ndim
    trailing axes, so each coefficient (c[i], of shape c.shape[1:]) meets
    every x."""
    c = as_array(c)
    if c.ndim == 0:
        c = reshape(c, (1,))
    if c.dtype.kind in "biu":
        c = astype(c, np.float64)
    if isinstance(x, (list, tuple, np.ndarray, np.generic)):  # (a NumPy scalar is strong too)
        x = as_array(x)
    if tensor and getattr(x, "ndim", 0):                      # (a Python number has none)
        c = reshape(c, c.shape + (1,) * x.ndim)
    return x, c


@implements(np.polynomial.polynomial.polyval)
def series_polyval(x, c, tensor=True):
    """Horner's scheme, from the highest power: c0 = c[-i] + c0 * x."""
    x, c = _series_operands(x, c, tensor)
    c0 = c[-1] + x * 0
    for i in range(2, len(c) + 1):
        c0 = c[-i] + c0 * x
    return c0


@implements(np.polynomial.chebyshev.chebval)
def chebval(x, c, tensor=True):
    """Clenshaw's recurrence for T_k: T_{k+1} = 2x T_k - T_{k-1}."""
    x, c = _series_operands(x, c, tensor)
    if len(c) <= 2:
        c0, c1 = c[0], (c[1] if len(c) == 2 else 0)
    else:
        x2 = 2 * x
        c0, c1 = c[-2], c[-1]
        for i in range(3, len(c) + 1):
            c0, c1 = c[-i] - c1, c0 + c1 * x2
    return c0 + c1 * x


@implements(np.polynomial.legendre.legval)
def legval(x, c, tensor=True):
    """Clenshaw's recurrence for P_k: (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1};
    the ratios are Python floats (weak), computed as NumPy computes them."""
    x, c = _series_operands(x, c, tensor)
    if len(c) <= 2:
        c0, c1 = c[0], (c[1] if len(c) == 2 else 0)
    else:
        nd = len(c)
        c0, c1 = c[-2], c[-1]
        for i in range(3, len(c) + 1):
            nd = nd - 1
            c0, c1 = c[-i] - c1 * ((nd - 1) / nd), c0 + c1 * x * ((2 * nd - 1) / nd)
    return c0 + c1 * x


# --- polyder / polyint / polyadd / polysub ------------------------------------------------------
# NumPy's code, on coefficient arrays of static length (highest power first).
# polymul and np.poly1d are not here: both drop leading zero coefficients
# (np.trim_zeros), a length that depends on the values.

@implements(np.polyder)
def polyder(p, m=1):
    m = int(m)
    if m < 0:
        raise UserCodeError("ValueError: Order of derivative must be positive (see polyint)")
    p = as_array(p)
    if p.ndim == 0:
        raise UserCodeError("TypeError: len() of unsized object")
    for level in range(m + 1):
        # NumPy's recursion also differentiates the last result and drops
        # it: a 2-d p whose rows do not broadcast raises there, as here
        y = p[:-1] * NUMPY[np.arange](len(p) - 1, 0, -1)   # int64: float32 p gives float64
        if level < m:
            p = y
    return p


@implements(np.polyint)
def polyint(p, m=1, k=None):
    """Each integral divides by the powers and appends the next constant of
    `k` (zeros by default; one number serves every order)."""
    m = int(m)
    if m < 0:
        raise UserCodeError("ValueError: Order of integral must be positive (see polyder)")
    k = NUMPY[np.zeros](m, float) if k is None else NUMPY[np.atleast_1d](k)
    if len(k) == 1 and m > 1:
        k = k[0] * NUMPY[np.ones](m, float)
    if len(k) < m:
        raise UserCodeError("ValueError: k must be a scalar or a rank-1 array of length 1 "
                            "or >m.")
    p = as_array(p)
    if p.ndim == 0 and m > 0:
        raise UserCodeError("TypeError: len() of unsized object")
    for i in range(m):
        p = NUMPY[np.concatenate]([p / NUMPY[np.arange](len(p), 0, -1), k[i:i + 1]])
    return p


def _aligned(a1, a2):
    """a1 and a2 as NumPy's polyadd lines them up: the shorter one with
    zeros of its own dtype in front."""
    a1, a2 = NUMPY[np.atleast_1d](a1), NUMPY[np.atleast_1d](a2)
    diff = len(a2) - len(a1)
    if diff > 0:
        a1 = NUMPY[np.concatenate]([NUMPY[np.zeros](diff, a1.dtype), a1])
    elif diff < 0:
        a2 = NUMPY[np.concatenate]([NUMPY[np.zeros](-diff, a2.dtype), a2])
    return a1, a2


@implements(np.polyadd)
def polyadd(a1, a2):
    a1, a2 = _aligned(a1, a2)
    return a1 + a2


@implements(np.polysub)
def polysub(a1, a2):
    a1, a2 = _aligned(a1, a2)
    return a1 - a2


# --- polyfit ---------------------------------------------------------------------------------

def _plus_zero(x):
    """NumPy's `asarray(x) + 0.0`: integers become float64, floats keep their dtype."""
    return as_array(x) + 0.0


@implements(np.polyfit)
def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    order = int(deg) + 1
    x, y = _plus_zero(x), _plus_zero(y)
    if deg < 0:
        raise UserCodeError("ValueError: expected deg >= 0")
    if x.ndim != 1:
        raise UserCodeError("TypeError: expected 1D vector for x")
    if x.size == 0:
        raise UserCodeError("TypeError: expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise UserCodeError("TypeError: expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise UserCodeError("TypeError: expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * np.finfo(x.dtype).eps     # a NumPy scalar, as full=True returns it
    lhs, rhs = vander(x, order), y
    if w is not None:
        w = _plus_zero(w)
        if w.ndim != 1:
            raise UserCodeError("TypeError: expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise UserCodeError("TypeError: expected w and y to have the same length")
        # NumPy's in-place `lhs *= w[:, newaxis]` keeps lhs's dtype
        lhs = astype(lhs * w[:, None], lhs.dtype, copy=False)
        rhs = astype(rhs * (w[:, None] if rhs.ndim == 2 else w), rhs.dtype, copy=False)
    scale = emit_ufunc("sqrt", METHODS["sum"](lhs * lhs, axis=0))
    lhs = astype(lhs / scale, lhs.dtype, copy=False)
    scaled_cov = cov and cov != "unscaled" and not full
    c, resids, rank, s = lstsq_arrays(lhs, rhs, rcond, residuals=full or scaled_cov)
    c = METHODS["transpose"](METHODS["transpose"](c) / scale)
    if full:
        return c, resids, rank, s, rcond
    if cov:
        return c, _covariance(lhs, scale, resids, x.shape[0], order, y.ndim, scaled_cov)
    return c


def _covariance(lhs, scale, resids, points, order, y_ndim, scaled):
    """NumPy's: inv(lhs.T @ lhs) / outer(scale, scale), times the residuals
    per degree of freedom unless cov="unscaled"."""
    transpose = METHODS["transpose"]
    base = inv(dot(transpose(lhs), lhs))
    base = astype(base / outer(scale, scale), base.dtype, copy=False)     # NumPy's in-place /=
    if not scaled:
        fac = 1
    else:
        if points <= order:
            raise UserCodeError("ValueError: the number of data points must exceed order to "
                                "scale the covariance matrix")
        fac = resids / (points - order)
    if y_ndim == 1:
        return base * fac
    return base[:, :, None] * fac


# --- convolve ---------------------------------------------------------------------------------

def _correlate_abstract(avals, pad):
    a, v = avals
    dtype = np.result_type(a.dtype, v.dtype)
    return AVal(dtype, (a.shape[0] + sum(pad) - v.shape[0] + 1,), False)


def _correlate_lower(lc, a, v, pad):
    """out[i] = sum_k a_padded[i + k] * v[k].  Integers compute in 64 bits
    and wrap to the result's width as NumPy's running sum does; float16 in
    float32 (NumPy's half dot); bools are an OR of ANDs."""
    out = lc.out_avals[0].dtype
    compute = {"b": np.dtype(np.int64), "i": np.dtype(np.int64), "u": np.dtype(np.uint64)}.get(
        out.kind, np.dtype(np.float32) if out == np.float16 else out)
    a, v = (lax.convert_element_type(x, compute) for x in (a, v))
    a = jnp.pad(a, pad)
    if compute.kind in "iu":
        # XLA:CPU's integer convolution saturates where NumPy's sum wraps:
        # the windows gathered, multiplied and summed (64-bit integer ops wrap).
        n, m = a.shape[0] - v.shape[0] + 1, v.shape[0]
        windows = a[np.arange(n)[:, None] + np.arange(m)[None, :]]
        r = jnp.sum(windows * v[None, :], axis=1, dtype=compute)
    else:
        r = jnp.correlate(a, v, mode="valid", precision=lax.Precision.HIGHEST)
    if out == np.bool_:
        return r != 0
    return lax.convert_element_type(r, out)


register("correlate", _correlate_abstract, _correlate_lower,
         numpy=lambda a, v, pad: np.correlate(np.pad(a, pad), v, "valid"))


@implements(np.poly)
def poly(seq_of_roots):
    """NumPy's loop over 1-d real roots: a = [1], then a = convolve(a,
    [1, -r]) for each root r, in float64 (float32 stays float32).  Complex
    roots are refused: NumPy's result is real where they come in conjugate
    pairs, a dtype that depends on the values (so is a square matrix's,
    through its eigenvalues)."""
    roots = as_array(as_array_operand(seq_of_roots))
    if roots.ndim == 2 and roots.shape[0] == roots.shape[1] and roots.shape[0] != 0:
        raise UnsupportedError(
            "np.poly of a matrix (its characteristic polynomial, through its eigenvalues) "
            "is not supported on runtime arrays: NumPy's result is real or complex "
            "depending on the eigenvalues' values",
            hint="pass the roots when they are known to be real: np.poly(r) of a real 1-d "
                 "array compiles")
    if roots.ndim == 0:     # (NumPy's dispatcher iterates over its argument)
        raise UserCodeError("TypeError: dispatcher for __array_function__ did not return an "
                            "iterable")
    if roots.ndim != 1:
        raise UserCodeError("ValueError: input must be 1d or non-empty square 2d array.")
    if roots.dtype.kind == "c":
        raise UnsupportedError(
            "np.poly of complex roots is not supported on runtime arrays: NumPy's result is "
            "real where the roots come in conjugate pairs and complex otherwise, a dtype that "
            "depends on the values",
            hint="multiply the factors with np.convolve (a = np.array([1 + 0j]), then "
                 "a = np.convolve(a, np.array([1, -r])) for each root) and take a.real where "
                 "you know the roots pair up")
    if roots.shape[0] == 0:
        return 1.0
    dtype = np.dtype(np.float32 if roots.dtype == np.float32 else np.float64)
    roots = astype(roots, dtype)
    coefficients = NUMPY[np.ones]((1,), dtype)
    for k in range(roots.shape[0]):
        factor = stack([NUMPY[np.ones]((), dtype), -roots[k]])
        coefficients = convolve(coefficients, factor)
    return coefficients


@implements(np.convolve)
def convolve(a, v, mode="full"):
    a, v = (_at_least_1d(as_array(as_array_operand(x))) for x in (a, v))
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    if a.shape[0] == 0:
        raise UserCodeError("ValueError: a cannot be empty")
    if v.shape[0] == 0:
        raise UserCodeError("ValueError: v cannot be empty")
    if a.ndim > 1 or v.ndim > 1:
        raise UserCodeError("ValueError: object too deep for desired array")
    v = v[::-1]
    if v.dtype.kind == "c":     # the op conjugates its second operand: undone
        v = emit_ufunc("conjugate", v)
    return emit("correlate", a, v, pad=_pads(v.shape[0], mode))


@implements(np.correlate)
def correlate(a, v, mode="valid"):
    """NumPy's correlate2: sum_k a[i + k] * conj(v[k]).  With `a` the shorter
    NumPy swaps the two, and the result is reversed and conjugated."""
    a, v = (as_array(as_array_operand(x)) for x in (a, v))
    if a.ndim != 1 or v.ndim != 1:
        depth = "deep" if max(a.ndim, v.ndim) > 1 else "small depth"
        raise UserCodeError(f"ValueError: object too {depth} for desired array")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise UserCodeError(f"ValueError: {'a' if a.shape[0] == 0 else 'v'} cannot be empty")
    pads = _pads(min(a.shape[0], v.shape[0]), mode)
    if a.shape[0] >= v.shape[0]:
        return emit("correlate", a, v, pad=pads)
    out = emit("correlate", v, a, pad=pads)[::-1]
    return emit_ufunc("conjugate", out) if out.dtype.kind == "c" else out


def _pads(m: int, mode):
    """The zeros around the longer operand, for a shorter one of length m."""
    pads = {"full": (m - 1, m - 1), "same": (m // 2, m - m // 2 - 1), "valid": (0, 0)}
    mode = {0: "valid", 1: "same", 2: "full"}.get(mode, mode) if type(mode) is int else mode
    if mode not in pads:
        raise UserCodeError(f"ValueError: mode must be one of 'valid', 'same', or 'full' "
                            f"(got {mode!r})")
    return pads[mode]


def _at_least_1d(x):
    return reshape(x, (1,)) if x.ndim == 0 else x


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from .decompositions import lstsq_arrays  # noqa: E402
from .linalg import dot, outer  # noqa: E402
from .solvers import inv  # noqa: E402
