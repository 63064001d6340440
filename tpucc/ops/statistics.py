"""Statistics composed of other ops: np.median, np.percentile, np.quantile,
their NaN-ignoring forms np.nanmedian, np.nanpercentile, np.nanquantile,
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
from .sorting import sort, take_along_axis


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


@implements(np.nanmedian)
def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median of each slice's numbers, NaN ignored (all NaN: NaN).  The
    sort puts NaN last, so a slice's c numbers come first and its middle
    ones are at the runtime positions (c - 1) // 2 and c // 2, read with
    take_along_axis and averaged as np.median does."""
    if out is not None:
        raise UnsupportedError("np.nanmedian(out=...) is not supported", hint="assign the result")
    a = as_array(a)
    if a.dtype.kind != "f":         # no NaN to ignore (complex: median's refusal)
        return median(a, axis, keepdims=keepdims)
    if a.size == 0:                 # NumPy's own shortcut: nanmean's NaN
        return NUMPY[np.nanmean](a, axis, keepdims=keepdims)
    x, kept_shape = _reduced_to_last_axis(a, axis)
    ordered, count = sort(x, axis=-1), _numbers_per_slice(x)
    n = x.shape[-1]
    low = _at_positions(ordered, (count - 1) // 2, n)
    high = _at_positions(ordered, count // 2, n)
    mean = NUMPY[np.mean](NUMPY[np.concatenate]([low, high], axis=-1), axis=-1)
    odd = reshape(count % 2 == 1, mean.shape)
    result = where(reshape(count == 0, mean.shape), np.nan,
                   where(odd, reshape(low, mean.shape), mean))
    result = astype(result, mean.dtype, copy=False)
    result.immutable = mean.immutable       # np.mean's kind: a NumPy scalar if 0-d
    return reshape(result, kept_shape) if keepdims else result


def _numbers_per_slice(x):
    """How many elements of each last-axis slice are not NaN (keepdims)."""
    return NUMPY[np.sum](NUMPY[np.logical_not](NUMPY[np.isnan](x)), axis=-1, dtype=np.int64,
                         keepdims=True)


def _at_positions(ordered, positions, n):
    """ordered[..., positions] along the last axis, positions clipped into
    the slice (those of an all-NaN slice are replaced by NaN afterwards)."""
    return take_along_axis(ordered, NUMPY[np.clip](positions, 0, max(n - 1, 0)), axis=-1)


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


@implements(np.nanpercentile)
def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    weak = type(q) in (int, float)
    qs = np.true_divide(_static_quantiles(q, "nanpercentile"), 100)
    if not _in_unit_range(qs):
        raise UserCodeError("ValueError: Percentiles must be in the range [0, 100]")
    return _quantile(a, qs, weak, axis, out, method, keepdims, weights, interpolation,
                     skip_nan=True)


@implements(np.quantile)
def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    weak = type(q) in (int, float)
    qs = np.asanyarray(_static_quantiles(q, "quantile"))
    if not _in_unit_range(qs):
        raise UserCodeError("ValueError: Quantiles must be in the range [0, 1]")
    return _quantile(a, qs, weak, axis, out, method, keepdims, weights, interpolation)


@implements(np.nanquantile)
def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    weak = type(q) in (int, float)
    qs = np.asanyarray(_static_quantiles(q, "nanquantile"))
    if not _in_unit_range(qs):
        raise UserCodeError("ValueError: Quantiles must be in the range [0, 1]")
    return _quantile(a, qs, weak, axis, out, method, keepdims, weights, interpolation,
                     skip_nan=True)


def _static_quantiles(q, name):
    known = known_constant(q)
    if known is not None:
        return known
    if isinstance(q, Array) or isinstance(q, (list, tuple)) and any(
            isinstance(v, Array) for v in q):
        raise UnsupportedError(f"np.{name} with quantiles known only at run time is not "
                               "supported", hint="pass q as Python numbers or a list of them (a NumPy "
                               "array the function reads is a runtime input)")
    return np.asanyarray(q)


def _in_unit_range(qs) -> bool:
    return bool(np.all((qs >= 0) & (qs <= 1))) if qs.size else True


def _quantile(a, qs, weak, axis, out, method, keepdims, weights, interpolation,
              skip_nan=False):
    for name, value, default in (("out", out, None), ("weights", weights, None),
                                 ("interpolation", interpolation, None),
                                 ("method", method, "linear")):
        if value != default if isinstance(value, str) else value is not default:
            raise UnsupportedError(f"np.percentile/np.quantile({name}=...) is not supported",
                                   hint="the default method, 'linear', compiles")
    if qs.ndim > 2:                     # (NumPy's own limit, for now it says)
        raise UserCodeError("ValueError: q must be a scalar or 1d")
    if qs.ndim == 2:    # the quantiles of its rows one after another, q's shape in front
        flat = _quantile(a, qs.reshape(-1), weak, axis, out, method, keepdims, weights,
                         interpolation, skip_nan)
        return reshape(flat, qs.shape + flat.shape[1:])
    a = as_array(a)
    if a.dtype.kind == "c":
        raise UserCodeError("TypeError: a must be an array of real numbers")
    skip_nan = skip_nan and a.dtype.kind == "f"
    if skip_nan and a.size == 0:        # NumPy's own shortcut: nanmean's NaN
        return NUMPY[np.nanmean](a, axis, keepdims=keepdims)
    x, kept_shape = _reduced_to_last_axis(a, axis)
    n = x.shape[-1]
    ordered = sort(x, axis=-1)
    last = x.ndim - 1
    if skip_nan:
        result = _nan_quantile(x, ordered, qs, weak)
        return reshape(result, qs.shape + kept_shape) if keepdims else result
    virtual = (n - 1) * qs            # NumPy's "linear" get_virtual_index
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


def _nan_quantile(x, ordered, qs, weak):
    """The quantiles of each last-axis slice's numbers, NaN ignored, as
    NumPy computes each slice's after removing its NaN: the slice's count c
    is known at run time, so the virtual index (c - 1) q, its neighbours and
    the weights are runtime arrays (quantiles on a last axis), then moved
    first as NumPy lays them out.  An all-NaN slice gives NaN."""
    n = x.shape[-1]
    count = _numbers_per_slice(x)
    q = qs.reshape(-1)
    # NumPy's per-slice loop multiplies q by a Python int count, so a float
    # q keeps its own dtype (float32 q: float32 index and result)
    last = astype(count - 1, q.dtype) if q.dtype.kind == "f" else count - 1
    virtual = last * q                      # (rest..., Q), NumPy's dtypes
    if np.issubdtype(q.dtype, np.integer):
        result = _at_positions(ordered, virtual, n)
    else:
        below = NUMPY[np.floor](virtual)
        at_end = virtual >= astype(count - 1, virtual.dtype)
        below = where(at_end, astype(count - 1, below.dtype), below)   # NumPy's -1: the last
        above = where(at_end, below, below + 1)
        gamma = where(at_end, virtual + 1, virtual - below)         # virtual - (-1) there
        low = _at_positions(ordered, astype(below, np.int64), n)
        high = _at_positions(ordered, astype(above, np.int64), n)
        result = _runtime_lerp(low, high, gamma, weak)
    result = where(count == 0, np.nan, result)
    if qs.ndim:
        result = moveaxis(result, -1, 0)
    result = reshape(result, qs.shape + x.shape[:-1])
    if result.ndim == 0:
        result.immutable = True             # a NumPy scalar, as NumPy's
    return result


def _runtime_lerp(a, b, t, weak):
    """NumPy's _lerp with a runtime float64 t.  A weak (Python number) q
    makes t a Python float in NumPy, so the products are computed in a's
    dtype, t and 1 - t rounded to it."""
    upper, one_minus = t >= 0.5, 1 - t
    diff = b - a
    dtype = a.dtype if weak else np.result_type(diff.dtype, t.dtype)
    diff, t, one_minus = (astype(v, dtype, copy=False) for v in (diff, t, one_minus))
    # each product rounded before the sum, as NumPy's (no fused multiply-add)
    lerp = a + emit("rounded_product", diff, t)
    return where(upper, astype(b - emit("rounded_product", diff, one_minus), lerp.dtype), lerp)


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
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array, known_constant  # noqa: E402
