"""Statistics composed of other ops: np.median, np.percentile, np.quantile,
np.average, np.cov, np.corrcoef.

NumPy's own recipe: sort along the axis (NaN sorts last), take the middle
element or the two middle ones, and np.mean them, so the dtype rule is
np.mean's (float32 stays float32, integers give float64); a slice holding a
NaN gives NaN.  Several axes are merged into one last axis first, as NumPy
does.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, UnsupportedError, UserCodeError
from .elementwise import astype
from .manipulation import along, as_array
from .registry import NUMPY, implements, normalize_axis
from .shape import moveaxis, ravel, reshape, where
from .sorting import sort


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    if out is not None:
        raise UnsupportedError("np.median(out=...) is not supported", hint="assign the result")
    a = as_array(a)
    if a.dtype.kind not in "biuf":
        raise DTypeError(f"np.median of {a.dtype} arrays is not supported",
                         hint="take the median of the real and imaginary parts apart")
    x, kept_shape = _reduced_to_last_axis(a, axis)
    n = x.shape[-1]
    ordered = sort(x, axis=-1)
    middle = ordered[along(x.ndim - 1, slice((n - 1) // 2, n // 2 + 1))]
    result = NUMPY[np.mean](middle, axis=-1)
    if a.dtype.kind == "f" and n:
        last = ordered[along(x.ndim - 1, n - 1)]
        with_nan = where(NUMPY[np.isnan](last), np.nan, result)
        with_nan.immutable = result.immutable       # np.mean's kind: a NumPy scalar if 0-d
        result = with_nan
    return reshape(result, kept_shape) if keepdims else result


def _reduced_to_last_axis(a, axis):
    """(a with the reduced axes merged into its last axis, the shape keepdims
    gives)."""
    axes = tuple(range(a.ndim)) if axis is None else (
        tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    axes = tuple(sorted({normalize_axis(ax, a.ndim) for ax in axes}))
    kept_shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
    if axis is None:
        return ravel(a), kept_shape
    x = moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    rest = tuple(d for i, d in enumerate(a.shape) if i not in axes)
    merged = int(np.prod([a.shape[i] for i in axes], dtype=np.int64))    # (no -1: 0 rows)
    return reshape(x, rest + (merged,)), kept_shape


# --- percentile / quantile ---------------------------------------------------------------
# NumPy's "linear" method (Hyndman & Fan's 7th), step by step with its dtype
# rules: the quantiles are static, so the positions in the sorted slice and
# the interpolation weights are computed here with NumPy's own expressions;
# the runtime part is a sort, two static gathers and NumPy's _lerp.  A q that
# is a Python number is weak (the result keeps a float array's dtype); a q
# array gives float64.  A slice holding a NaN gives NaN.

@implements(np.percentile)
def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    weak = type(q) in (int, float)
    qs = np.true_divide(_static_quantiles(q, "percentile"), 100)
    if not _in_unit_range(qs):
        raise UserCodeError("ValueError: Percentiles must be in the range [0, 100]")
    return _quantile(a, qs, weak, axis, out, method, keepdims, weights, interpolation)


@implements(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    weak = type(q) in (int, float)
    qs = np.asanyarray(_static_quantiles(q, "quantile"))
    if not _in_unit_range(qs):
        raise UserCodeError("ValueError: Quantiles must be in the range [0, 1]")
    return _quantile(a, qs, weak, axis, out, method, keepdims, weights, interpolation)


def _static_quantiles(q, name):
    if isinstance(q, Array) or isinstance(q, (list, tuple)) and any(
            isinstance(v, Array) for v in q):
        raise UnsupportedError(f"np.{name} with quantiles known only at run time is not "
                               "supported", hint="pass q as Python numbers or a list of them (a NumPy "
                               "array the function reads is a runtime input)")
    return np.asanyarray(q)


def _in_unit_range(qs) -> bool:
    return bool(np.all((qs >= 0) & (qs <= 1))) if qs.size else True


def _quantile(a, qs, weak, axis, out, method, keepdims, weights, interpolation):
    for name, value, default in (("out", out, None), ("weights", weights, None),
                                 ("interpolation", interpolation, None),
                                 ("method", method, "linear")):
        if value != default if isinstance(value, str) else value is not default:
            raise UnsupportedError(f"np.percentile/np.quantile({name}=...) is not supported",
                                   hint="the default method, 'linear', compiles")
    if qs.ndim > 1:
        raise UserCodeError("ValueError: q must be a scalar or 1d")
    a = as_array(a)
    if a.dtype.kind == "c":
        raise UserCodeError("TypeError: a must be an array of real numbers")
    x, kept_shape = _reduced_to_last_axis(a, axis)
    n = x.shape[-1]
    ordered = sort(x, axis=-1)
    last = x.ndim - 1
    virtual = n * qs + (1 + qs * (1 - 1 - 1)) - 1        # NumPy's _compute_virtual_index
    if np.issubdtype(virtual.dtype, np.integer):
        result = _taken(ordered, virtual, last)
    else:
        below, above = _neighbours(virtual, n)
        gamma = np.asanyarray(virtual - below, dtype=virtual.dtype)
        t = float(gamma) if weak else gamma.reshape(qs.shape + (1,) * last)
        result = _lerp(_taken(ordered, below, last), _taken(ordered, above, last), t)
    if a.dtype.kind == "f" and n:
        nan_last = ordered[along(last, n - 1)]
        with_nan = where(NUMPY[np.isnan](nan_last), astype(nan_last, result.dtype), result)
        with_nan.immutable = result.immutable
        result = with_nan
    if keepdims:
        result = reshape(result, qs.shape + kept_shape)
    return result


def _neighbours(virtual, n):
    """NumPy's _get_indexes: the sorted positions each side of a virtual
    index, clamped to the slice."""
    below = np.array(np.floor(virtual))     # (0-d arrays: assignable)
    above = np.array(below + 1)
    below[virtual >= n - 1] = -1
    above[virtual >= n - 1] = -1
    below[virtual < 0] = 0
    above[virtual < 0] = 0
    return below.astype(np.intp), above.astype(np.intp)


def _taken(ordered, positions, last):
    """ordered[..., positions], with the quantile axes first (NumPy's layout)."""
    picked = ordered[along(last, positions if positions.ndim else int(positions))]
    if positions.ndim:
        picked = moveaxis(picked, last, 0)
    return picked


def _lerp(a, b, t):
    """NumPy's _lerp: a + (b - a) t, and b - (b - a)(1 - t) where t >= 0.5,
    computed in the first one's dtype."""
    diff = b - a
    lerp = a + diff * t
    high = np.asarray(t) >= 0.5
    if not high.any():
        return lerp
    upper = astype(b - diff * (1 - t), lerp.dtype)
    if high.all():
        upper.immutable = lerp.immutable
        return upper
    return where(high, upper, lerp)


# --- cov / corrcoef ------------------------------------------------------------------------
# NumPy's recipe step by step (without weights): rows are variables (columns
# with rowvar=False), the dtype is result_type(m, y, float64), each row has
# its mean taken away, c = X @ X.T.conj() times 1 / (n - ddof).

@implements(np.cov)
def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    if fweights is not None or aweights is not None:
        raise UnsupportedError("np.cov with fweights= or aweights= is not supported",
                               hint="weight the observations yourself: np.average(X, axis=1, "
                                    "weights=w) and (X * w) @ X.T")
    if isinstance(ddof, Array) or isinstance(bias, Array):
        raise UnsupportedError("np.cov with ddof or bias known only at run time",
                               hint="pass Python numbers: the normalization is static")
    if ddof is not None and ddof != int(ddof):
        raise UserCodeError("ValueError: ddof must be integer")
    m = as_array(m)
    if m.ndim > 2:
        raise UserCodeError("ValueError: m has more than 2 dimensions")
    if y is not None:
        y = as_array(y)
        if y.ndim > 2:
            raise UserCodeError("ValueError: y has more than 2 dimensions")
    if dtype is None:
        dtype = np.result_type(m.dtype, *(() if y is None else (y.dtype,)), np.float64)
    X = _as_rows(m, dtype, transpose=not rowvar and m.ndim != 1)
    if X.shape[0] == 0:
        return NUMPY[np.zeros]((0, 0))
    if y is not None:
        Y = _as_rows(y, dtype, transpose=False)
        if not rowvar and Y.shape[0] != 1:
            Y = NUMPY[np.transpose](Y)
        X = NUMPY[np.concatenate]((X, Y), axis=0)
    ddof = (0 if bias else 1) if ddof is None else int(ddof)
    fact = X.shape[1] - ddof
    if fact <= 0:       # (NumPy warns "Degrees of freedom <= 0 for slice")
        fact = 0.0
    X = X - reshape(NUMPY[np.mean](X, axis=1), (-1, 1))
    X_T = NUMPY[np.transpose](X)
    if X.dtype.kind == "c":
        X_T = NUMPY[np.conjugate](X_T)
    c = NUMPY[np.dot](X, X_T)
    with np.errstate(divide="ignore"):
        # `c *= 1 / fact` as NumPy: by the reciprocal, in float64, kept in c's dtype
        c = astype(c * np.true_divide(1, fact), c.dtype)
    return NUMPY[np.squeeze](c)


def _as_rows(m, dtype, transpose):
    """np.array(m, ndmin=2, dtype=dtype), transposed if asked."""
    x = astype(m, dtype)
    if x.ndim < 2:
        x = reshape(x, (1,) * (2 - x.ndim) + x.shape)
    return NUMPY[np.transpose](x) if transpose else x


@implements(np.corrcoef)
def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    c = cov(x, y, rowvar, dtype=dtype)
    if c.dtype.kind == "c":
        raise UnsupportedError("np.corrcoef of complex arrays is not supported",
                               hint="np.cov of complex arrays compiles")
    if c.ndim != 2:         # NumPy's diag fails on a scalar covariance: c / c
        return c / c
    stddev = NUMPY[np.sqrt](NUMPY[np.diagonal](c))
    c = c / reshape(stddev, (-1, 1))
    c = c / reshape(stddev, (1, -1))
    return NUMPY[np.clip](c, -1, 1)


# --- average --------------------------------------------------------------------------------
# NumPy's recipe: without weights np.mean (and the static count per result
# as the scale); with weights sum(a * w) / sum(w), both in result_type(a, w)
# (at least float64 for integer a), w reshaped to broadcast along `axis`.

@implements(np.average)
def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    a = as_array(a)
    if axis is not None:
        axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
        axis = tuple(normalize_axis(ax, a.ndim) for ax in axes)
        if len(set(axis)) != len(axis):
            raise UserCodeError("ValueError: repeated axis in `axis` argument")
    if weights is None:
        avg = NUMPY[np.mean](a, axis=axis, keepdims=keepdims)
        if avg.size == 0:
            raise UserCodeError("ZeroDivisionError: division by zero (np.average of an "
                                "empty result)")
        scale = avg.dtype.type(a.size / avg.size)
    else:
        avg, scale = _weighted_average(a, axis, as_array(weights), keepdims)
    if not returned:
        return avg
    if np.shape(scale) != avg.shape:
        scale = NUMPY[np.copy](NUMPY[np.broadcast_to](scale, avg.shape))
    return avg, scale


def _weighted_average(a, axis, w, keepdims):
    if a.shape != w.shape:
        if axis is None:
            raise UserCodeError("TypeError: Axis must be specified when shapes of a and "
                                "weights differ.")
        if w.shape != tuple(a.shape[ax] for ax in axis):
            raise UserCodeError("ValueError: Shape of weights must be consistent with shape "
                                "of a along specified axis.")
        w = NUMPY[np.transpose](w, tuple(int(i) for i in np.argsort(axis)))
        w = reshape(w, tuple(d if ax in axis else 1 for ax, d in enumerate(a.shape)))
    if a.dtype.kind in "biu":
        dtype = np.result_type(a.dtype, w.dtype, "f8")
    else:
        dtype = np.result_type(a.dtype, w.dtype)
    scale = NUMPY[np.sum](w, axis=axis, dtype=dtype, keepdims=keepdims)
    from ..infer import checks
    checks.require(NUMPY[np.all](scale != 0.0), "Weights sum to zero, can't be normalized",
                   raises="ZeroDivisionError",
                   hint="NumPy raises ZeroDivisionError here; compiled code checks the weights' "
                        "sums and raises when the call returns")
    total = NUMPY[np.sum](NUMPY[np.multiply](a, w, dtype=dtype), axis=axis, keepdims=keepdims)
    return total / scale, scale


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.values import Array  # noqa: E402
