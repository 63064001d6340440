"""np.histogram and np.histogram_bin_edges (a static number of equal bins,
or the bins' edges), and np.histogram2d and np.histogramdd (static bin
counts or edge arrays per axis), following NumPy's _histograms_impl step
by step.

Equal bins: the edges are np.linspace(first, last, bins + 1) in NumPy's
bin dtype: with a static `range` NumPy computes them here; without, first
and last are the array's runtime min and max (widened by 0.5 when equal)
and the linspace is NumPy's expression for expression.  Each value's bin
is NumPy's: the scaled offset truncated, then moved down or up one where
the edges disagree; the counts are a scatter-add (np.bincount's, in
float64 for weights).  Edges given: the edges are the array itself (its
dtype, static or runtime), and the counts NumPy's cumulative histogram
(the last bin closed on the right).  NumPy's errors on runtime values (a
non-finite autodetected range, too many bins for it, edges that decrease)
are runtime checks that raise ValueError.  np.histogram of x[mask]
(masked_statistics.py) counts the selected values only.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np
from jax import lax
from numpy.lib import _histograms_impl as _np_hist

from ..errors import UnsupportedError, UserCodeError
from ..ir import AVal
from .elementwise import astype
from .manipulation import as_array
from .registry import NUMPY, implements, register
from .searching import searchsorted
from .shape import ravel, where


def _is_array(x) -> bool:
    return isinstance(x, Array)


def _require(ok, message):
    from ..infer import checks
    checks.require(ok, message, raises="ValueError",
                   hint="NumPy raises ValueError here; compiled code checks and raises when "
                        "the call returns")


@implements(np.histogram_bin_edges)
def histogram_bin_edges(a, bins=10, range=None, weights=None):
    a, weights = _ravel_and_check_weights(a, weights)
    if _is_edge_array(bins):
        return _given_edges(bins)
    return _bin_edges(a, bins, range)[0]


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    a, weights = _ravel_and_check_weights(a, weights)
    return histogram_of_selected(a, None, bins, range, density, weights)


def histogram_of_selected(a, selected, bins, range, density, weights):
    """np.histogram of the 1-d a's values where the bool `selected` holds
    (None: all of them; x[mask]'s, masked_statistics.py), `weights` of a's
    shape or None."""
    if _is_edge_array(bins):
        edges = _given_edges(bins)
        counts = _counts_by_edges(a, selected, weights, edges)
    else:
        if selected is not None and range is None:
            raise _selection_needs_a_range()
        edges, (first, last, n, denom) = _bin_edges(a, bins, range)
        if weights is not None and weights.dtype.kind == "c":
            raise UnsupportedError("np.histogram with complex weights and a number of bins is "
                                   "not supported", hint="histogram the real and imaginary "
                                   "parts apart, or pass the bins' edges (bins=np.linspace(lo, "
                                   "hi, K + 1))")
        ntype = np.dtype(np.int64) if weights is None else weights.dtype
        counts = _counts(a, selected, weights, edges, first, last, n, denom, ntype)
    if density:
        widths = astype(NUMPY[np.diff](edges), np.float64)
        return counts / widths / NUMPY[np.sum](counts), edges
    return counts, edges


def _selection_needs_a_range():
    from .masked import refusal
    error = refusal("np.histogram of x[mask] without range= (edges from the selected values' "
                    "min and max, or (0, 1) where none is selected)")
    error.hint = ("pass range=(lo, hi) (the bins of x[mask] then do not depend on which "
                  "values the mask selects) or the bins' edges (bins=[e0, e1, ...])")
    return error


def _ravel_and_check_weights(a, weights):
    a = as_array(a)
    if a.dtype == np.bool_:     # NumPy warns and converts
        a = astype(a, np.uint8)
    if weights is not None:
        weights = as_array(weights)
        if weights.shape != a.shape:
            raise UserCodeError("ValueError: weights should have the same shape as a.")
        weights = ravel(weights)
    return ravel(a), weights


def _static_bins(bins) -> int:
    if isinstance(bins, str) or _is_array(bins) or np.ndim(bins) != 0:
        if _is_array(bins) and bins.ndim == 0:
            raise UnsupportedError("np.histogram with a number of bins known only at run time "
                                   "is not supported: it decides the result's shape",
                                   hint="pass bins=K, a Python int, or an array of edges")
        if not isinstance(bins, str):
            raise UserCodeError("ValueError: `bins` must be 1d, when an array")
        raise UnsupportedError(f"np.histogram: bins={bins!r} picks a number of bins from the "
                               "values; only a static integer number of bins or an array of "
                               "edges is supported",
                               hint="pass bins=K, a Python int (and range=(lo, hi) for edges "
                                    "known at compile time), or an array of edges")
    try:
        n = operator.index(bins)
    except TypeError:
        raise UserCodeError("TypeError: `bins` must be an integer, a string, or an array") \
            from None
    if n < 1:
        raise UserCodeError("ValueError: `bins` must be positive, when an integer")
    return n


def _is_edge_array(bins) -> bool:
    """Whether `bins` is a sequence of edges (np.ndim(bins) == 1), static or
    runtime; a list may hold runtime numbers ([lo, mid, hi])."""
    if _is_array(bins):
        return bins.ndim == 1
    if isinstance(bins, (list, tuple)):
        return all(_is_array(b) and b.ndim == 0 or not _is_array(b) and np.ndim(b) == 0
                   for b in bins)
    return not isinstance(bins, str) and np.ndim(bins) == 1


def _given_edges(bins):
    """NumPy's np.asarray(bins) (a runtime array is returned itself, as
    NumPy returns the same array), which must not decrease: checked now
    for static edges, when the call returns for runtime ones."""
    if not _is_array(bins) and not any(_is_array(b) for b in bins):
        edges = np.asarray(bins)
        if np.any(edges[:-1] > edges[1:]):
            raise UserCodeError("ValueError: `bins` must increase monotonically, when an array")
        return edges
    edges = NUMPY[np.asarray](bins)
    _require(NUMPY[np.logical_not](NUMPY[np.any](edges[:-1] > edges[1:])),
             "`bins` must increase monotonically, when an array (np.histogram)")
    return edges


def _bin_edges(a, bins, range):
    """(edges, (first, last, n, NumPy's norm_denom)); edges and the rest
    static with a range (or an empty a), runtime without."""
    n = _static_bins(bins)
    if range is not None and any(_is_array(r) for r in range):
        return _given_runtime_edges(a, n, range)
    if range is not None or a.size == 0:
        try:
            first, last = _np_hist._get_outer_edges(np.empty(0, a.dtype), range)
            edges, _ = _np_hist._get_bin_edges(np.empty(0, a.dtype), n, (first, last), None)
        except (ValueError, TypeError) as e:
            raise UserCodeError(f"{type(e).__name__}: {e}") from None
        return edges, (first, last, n, _np_hist._unsigned_subtract(last, first))
    return _runtime_edges(a, n)


def _outer_edges(a, what="np.histogram"):
    """NumPy's _get_outer_edges without a range: the runtime min and max,
    widened by 0.5 each side when equal (floats keep a's dtype, integers
    give float64, which is what np.linspace makes of them); a non-finite
    one raises ValueError when the call returns.  -> (first, last, lo, hi,
    same)."""
    lo, hi = NUMPY[np.min](a), NUMPY[np.max](a)
    if a.dtype.kind in "fc":
        finite = NUMPY[np.isfinite](lo) & NUMPY[np.isfinite](hi)
        _require(finite, f"autodetected range is not finite ({what})")
    same = lo == hi
    if a.dtype.kind == "f":
        first, last = where(same, lo - 0.5, lo), where(same, hi + 0.5, hi)
        first, last = astype(first, a.dtype), astype(last, a.dtype)
    else:
        lo64, hi64 = astype(lo, np.float64), astype(hi, np.float64)
        first, last = where(same, lo64 - 0.5, lo64), where(same, hi64 + 0.5, hi64)
    return first, last, lo, hi, same


def _given_runtime_edges(a, n, range):
    """NumPy's _get_outer_edges and _get_bin_edges for a range given with
    an end known only at run time (`range=(0.0, np.abs(x).max())`, the
    calibration histogram): its ValueErrors are runtime checks, equal ends
    are widened by 0.5 each side, and the edges are np.linspace over the
    range in NumPy's bin dtype (the ends' and a's, float where integer)."""
    lo, hi = range
    _require(NUMPY[np.logical_not](NUMPY[np.greater](lo, hi)),
             "max must be larger than min in range parameter. (np.histogram)")
    _require(NUMPY[np.isfinite](lo) & NUMPY[np.isfinite](hi),
             "supplied range is not finite (np.histogram)")
    bin_type = np.result_type(_sample(lo), _sample(hi), np.empty(0, a.dtype))
    if bin_type.kind in "iub":
        bin_type = np.result_type(bin_type, float)
    same = NUMPY[np.equal](lo, hi)
    first, last = _widened(lo, same, -0.5), _widened(hi, same, 0.5)
    edges = astype(linspace(first, last, n + 1), bin_type)
    _require(NUMPY[np.all](edges[:-1] < edges[1:]),
             f"Too many bins for data range. Cannot create {n} finite-sized bins. "
             "(np.histogram)")
    return edges, (first, last, n, _unsigned_subtract(last, first))


def _widened(end, same, by: float):
    """`end + by if same else end`, as NumPy's outer edge: a Python number
    stays one (weak: NumPy's promotion sees a Python float)."""
    moved = where(same, end + by, end)
    if _is_array(end) and not end.weak:
        return moved
    from ..infer.builtins_impl import to_python_scalar
    return to_python_scalar(moved, np.float64)


def _unsigned_subtract(last, first):
    """NumPy's _unsigned_subtract of the outer edges: integers subtract in
    their unsigned type (no overflow), floats in theirs."""
    dt = np.result_type(_sample(last), _sample(first))
    if dt.kind not in "iu":
        return NUMPY[np.subtract](last, first)
    unsigned = np.dtype(f"u{dt.itemsize}")
    return NUMPY[np.subtract](astype(as_array(last), unsigned), astype(as_array(first), unsigned))


def _runtime_edges(a, n):
    """The autodetected range and np.linspace over it, in NumPy's dtypes:
    integers give float64 edges; the range's width is the unsigned
    difference (NumPy's _unsigned_subtract)."""
    first, last, lo, hi, same = _outer_edges(a)
    if a.dtype.kind == "f":
        denom = NUMPY[np.subtract](last, first)
    else:
        unsigned = np.dtype(f"u{a.dtype.itemsize}")
        width = astype(astype(hi, unsigned) - astype(lo, unsigned), np.float64)
        denom = where(same, last - first, width)
    edges = _linspace(first, last, n + 1)
    _require(NUMPY[np.all](edges[:-1] < edges[1:]),
             f"Too many bins for data range. Cannot create {n} finite-sized bins. "
             "(np.histogram)")
    return edges, (first, last, n, denom)


# --- histogram2d ------------------------------------------------------------------------------
# NumPy's histogramdd of the sample [x, y]: each axis's edges (a static count
# of equal bins over the range or the runtime min and max, or an array of
# edges), each value's bin by searchsorted(edges, v, 'right') with a value on
# the last edge moved into the last bin, counts over the bins plus an outlier
# bin each side (a scatter-add, float64), the outliers cut off.

@implements(np.histogram2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    x, y = as_array(x), as_array(y)
    if x.ndim != 1 or y.ndim != 1:
        raise UnsupportedError("np.histogram2d of x and y other than 1-d arrays is not "
                               "supported", hint="pass 1-d arrays (x.ravel())")
    if x.shape[0] != y.shape[0]:
        raise UserCodeError("ValueError: x and y must have the same length.")
    if _is_array(bins) and bins.ndim == 0:
        raise UnsupportedError("np.histogram2d with a number of bins known only at run time",
                               hint="pass bins as a Python int (or arrays of edges)")
    count = bins.shape[0] if _is_array(bins) else (len(bins) if isinstance(
        bins, (list, tuple)) or np.ndim(bins) else 1)
    if count not in (1, 2):
        bins = [bins, bins]
    hist, edges = _histogramdd([x, y], bins, range, density, weights, "np.histogram2d")
    return hist, edges[0], edges[1]


@implements(np.histogramdd)
def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """NumPy's histogramdd of an (N, D) array, or of what np.atleast_2d
    makes (N, D) by its transpose: a sequence of D 1-d arrays (the
    columns), a 1-d array (one column)."""
    if not (_is_array(sample) and sample.ndim == 2):
        sample = NUMPY[np.transpose](NUMPY[np.atleast_2d](as_array(sample)))
    if sample.ndim != 2:
        raise UserCodeError("ValueError: too many values to unpack (expected 2)")
    if sample.shape[1] == 0:
        raise UnsupportedError("np.histogramdd of a sample with no dimensions is not supported",
                               hint="pass at least one column")
    columns = [sample[:, i] for i in builtins.range(sample.shape[1])]
    hist, edges = _histogramdd(columns, bins, range, density, weights, "np.histogramdd")
    return hist, list(edges)


def _histogramdd(samples, bins, range, density, weights, name):
    dtype = np.result_type(*(s.dtype for s in samples))
    if dtype == np.bool_ or dtype.kind == "c":
        raise UnsupportedError(f"{name} of {dtype} values is not supported",
                               hint="histogram real numbers")
    samples = [astype(s, dtype, copy=False) for s in samples]
    d = len(samples)
    if isinstance(bins, (list, tuple)) or _is_array(bins) or np.ndim(bins):
        if len(bins) != d:
            raise UserCodeError("ValueError: The dimension of bins must be equal to the "
                                "dimension of the sample x.")
    else:
        bins = [bins] * d
    ranges = (None,) * d if range is None else range
    if len(ranges) != d:
        raise UserCodeError("ValueError: range argument must have one entry per dimension")
    edges = [_axis_edges(s, bins[i], ranges[i], i, name) for i, s in enumerate(samples)]
    nbin = [e.shape[0] + 1 for e in edges]          # an outlier bin each side
    flat = None
    for s, e, size in zip(samples, edges, nbin):
        at = searchsorted(e, s, side="right")
        at = where(s == e[-1], at - 1, at)          # the last edge is in the last bin
        flat = at if flat is None else flat * size + at
    total = int(np.prod(nbin))
    if weights is None:
        hist, values = NUMPY[np.zeros](total, np.int64), 1
    else:
        weights = as_array(weights)
        if weights.dtype.kind == "c":
            raise UserCodeError("TypeError: Cannot cast array data from dtype('complex128') to "
                                "dtype('float64') according to the rule 'safe'")
        if weights.shape != samples[0].shape:
            raise UserCodeError("ValueError: The weights and list don't have the same length.")
        hist, values = NUMPY[np.zeros](total, np.float64), astype(weights, np.float64)
    NUMPY[np.add.at](hist, flat, values)
    hist = astype(NUMPY[np.reshape](hist, tuple(nbin)), np.float64, copy=False)
    hist = hist[(slice(1, -1),) * d]
    if density:
        total_count = NUMPY[np.sum](hist)
        for i, e in enumerate(edges):
            shape = tuple(size - 2 if j == i else 1 for j, size in enumerate(nbin))
            hist = hist / NUMPY[np.reshape](NUMPY[np.diff](e), shape)
        hist = hist / total_count
    return hist, edges


def _axis_edges(sample, bins, range, i, name):
    """One axis's edges: np.linspace over its range for a count, or the
    array given (which must increase: checked when the call returns for a
    runtime one)."""
    if _is_array(bins) and bins.ndim == 1 or not _is_array(bins) and np.ndim(bins) == 1:
        edges = bins if _is_array(bins) else np.asarray(bins)
        if not _is_array(edges):
            if np.any(edges[:-1] > edges[1:]):
                raise UserCodeError(f"ValueError: `bins[{i}]` must be monotonically "
                                    "increasing, when an array")
        else:
            _require(NUMPY[np.all](edges[:-1] <= edges[1:]),
                     f"`bins[{i}]` must be monotonically increasing, when an array "
                     f"({name})")
        return edges
    if _is_array(bins) or np.ndim(bins) != 0:
        if _is_array(bins):
            raise UnsupportedError(f"{name} with a number of bins known only at run time",
                                   hint="pass bins as a Python int (or arrays of edges)")
        raise UserCodeError(f"ValueError: `bins[{i}]` must be a scalar or 1d array")
    if bins < 1:
        raise UserCodeError(f"ValueError: `bins[{i}]` must be positive, when an integer")
    try:
        n = operator.index(bins)
    except TypeError:
        raise UserCodeError(f"TypeError: `bins[{i}]` must be an integer, when a scalar") \
            from None
    if range is not None or sample.size == 0:
        if range is not None and any(_is_array(r) for r in range):
            raise UnsupportedError(f"{name} with a range known only at run time",
                                   hint="pass range=[(lo, hi), ...] as Python numbers")
        try:
            first, last = _np_hist._get_outer_edges(np.empty(0, sample.dtype), range)
        except (ValueError, TypeError) as e:
            raise UserCodeError(f"{type(e).__name__}: {e}") from None
        return np.linspace(first, last, n + 1)
    first, last = _outer_edges(sample, name)[:2]
    return _linspace(first, last, n + 1)


def _linspace(start, stop, num, endpoint=True):
    """np.linspace(start, stop, num) with a step (div > 0) of runtime
    endpoints of one float dtype, 0-d or arrays (the samples run along a
    new first axis): NumPy's steps, arange * (delta / div) + start, or
    arange / div * delta where any step is 0 (NumPy's denormal guard
    decides for the whole array), the last row stop itself with `endpoint`."""
    div = num - 1 if endpoint else num
    delta = stop - start
    shape = (num,) + delta.shape
    step = delta / div
    y = _sample_numbers(num, delta.ndim, start.dtype)
    by_step = emit("rounded_product", NUMPY[np.broadcast_to](y, shape),
                   NUMPY[np.broadcast_to](step, shape))
    y = where(NUMPY[np.any](step == 0), y / div * delta, by_step) + start
    if not endpoint:
        return y
    last = NUMPY[np.reshape](NUMPY[np.broadcast_to](stop, delta.shape), (1,) + delta.shape)
    return NUMPY[np.concatenate]([y[:-1], last])


def _sample_numbers(num, ndim, dtype):
    """0, 1, ..., num - 1 down a first axis, shaped to broadcast against
    endpoints of `ndim` dimensions (NumPy's arange(...).reshape(-1, 1, ...))."""
    return NUMPY[np.reshape](NUMPY[np.arange](0, num, dtype=dtype), (num,) + (1,) * ndim)


@implements(np.linspace)
def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """np.linspace with runtime endpoints (static ones: NumPy computes it
    while compiling) and a static count.  Endpoints may be arrays (a point
    sampled along an edge): they broadcast together and the samples run
    along `axis`.  NumPy's dtype (theirs with a float), its steps
    (_linspace); an integer dtype= floors."""
    num = operator.index(num)
    if num < 0:
        raise UserCodeError(f"ValueError: Number of samples, {num}, must be non-negative.")
    dt = np.result_type(_sample(start), _sample(stop), float(num))
    start, stop = astype(as_array(start), dt), astype(as_array(stop), dt)
    try:
        np.broadcast_shapes(start.shape, stop.shape)
    except ValueError as e:
        raise UserCodeError(f"ValueError: {e}") from None
    div = num - 1 if endpoint else num
    if div > 0:
        y = _linspace(start, stop, num, endpoint)
    else:       # NumPy: arange * delta + start (0 * inf is nan, as there)
        delta = stop - start
        y = _sample_numbers(num, delta.ndim, dt) * delta + start
    if axis != 0:
        y = NUMPY[np.moveaxis](y, 0, axis)
    if dtype is not None and np.issubdtype(dtype, np.integer):
        y = NUMPY[np.floor](y)
    y = astype(y, np.dtype(dtype) if dtype is not None else dt)
    if retstep:     # NumPy's step is undefined, a Python nan, without a gap
        return y, (stop - start) / div if div > 0 else float("nan")
    return y


def _sample(x):
    """What np.result_type sees of x: a Python number for a Python number
    (runtime or not), else an array of x's dtype."""
    if isinstance(x, (bool, int, float, complex)):
        return x
    if isinstance(x, Array):
        return x.dtype.type(0).item() if x.weak else np.zeros((), x.dtype)
    return np.zeros((), np.asarray(x).dtype)


def _rounded_product_lower(lc, x, y):
    """x * y (y 0-d or of x's shape, one dtype), rounded before the addition
    that follows.  XLA:CPU contracts x * y + z in one kernel into a fused
    multiply-add (one rounding, NumPy's two), which moves an edge by an ulp
    and a value lying on it to the next bin (and a quantile's interpolation
    by an ulp).  A conditional on a runtime predicate (y's first element ==
    itself, both branches the product) keeps the product out of the add's
    kernel."""
    if y.size == 0:
        return lax.mul(x, y)
    first = lax.reshape(lax.slice(lax.reshape(y, (y.size,)), (0,), (1,)), ())
    return lax.cond(lax.eq(first, first), lambda: lax.mul(x, y), lambda: lax.mul(x, y))


register("rounded_product", lambda avals: AVal(avals[0].dtype, avals[0].shape, False),
         _rounded_product_lower, numpy=lambda x, y: x * y)


def _counts(a, selected, weights, edges, first, last, n, denom, ntype):
    keep = (a >= first) & (a <= last)
    if selected is not None:
        keep = keep & selected
    x = astype(a, edges.dtype, copy=False)
    diff_dtype = np.result_type(np.empty(0, edges.dtype), _sample(first))
    offset = NUMPY[np.subtract](x, first, dtype=diff_dtype)
    scaled = offset / denom * n
    take = NUMPY[np.take]
    index = NUMPY[np.clip](astype(where(keep, scaled, 0), np.int64), 0, n)
    index = where(index == n, index - 1, index)
    index = where(x < take(edges, index, mode="clip"), index - 1, index)
    up = (x >= take(edges, index + 1, mode="clip")) & (index != n - 1)
    index = where(up, index + 1, index)
    index = where(keep, NUMPY[np.clip](index, 0, n - 1), n)     # the dropped: a spare bin
    if weights is None:
        totals, values = NUMPY[np.zeros](n + 1, np.int64), 1
    else:                   # np.bincount sums the weights as float64
        totals, values = NUMPY[np.zeros](n + 1, np.float64), astype(weights, np.float64)
    NUMPY[np.add.at](totals, index, values)
    return astype(totals[:n], ntype, copy=False)


def _counts_by_edges(a, selected, weights, edges):
    """NumPy's cumulative histogram for edges given: with the values
    sorted, how many lie below each edge (the last one: at or below it,
    so the last bin is closed), differenced; with weights, the running
    sum of the sorted weights at those positions, in the weights' dtype.
    Unselected values weigh 0.  (NumPy sums in blocks of 65536 values, and
    its sort is not stable: float weights of equal values, or of more than
    65536 values, may differ in the last bits.)"""
    if weights is None and selected is None:
        return NUMPY[np.diff](_search_sorted_inclusive(NUMPY[np.sort](a), edges))
    ntype = np.dtype(np.int64) if weights is None else weights.dtype
    try:        # NumPy's cum_n += cw[...]: bool weights' running sums do not cast back
        totals = np.zeros(1, ntype)
        totals += np.cumsum(np.zeros(1, ntype))
    except TypeError as e:
        raise UserCodeError(f"{type(e).__name__}: {e}", raised=e) from None
    if weights is None:
        weights = NUMPY[np.ones](a.shape, np.int64)
    if selected is not None:
        weights = where(selected, weights, NUMPY[np.zeros]((), ntype))
    order = NUMPY[np.argsort](a)
    take = NUMPY[np.take]
    sums = NUMPY[np.cumsum](take(weights, order))
    sums = NUMPY[np.concatenate]([NUMPY[np.zeros](1, ntype), sums])
    at_edges = take(sums, _search_sorted_inclusive(take(a, order), edges))
    return NUMPY[np.diff](astype(at_edges, ntype))


def _search_sorted_inclusive(sorted_values, edges):
    """NumPy's: the positions of the edges in the sorted values, the last
    edge's after the values equal to it."""
    return NUMPY[np.concatenate]([searchsorted(sorted_values, edges[:-1], "left"),
                                  searchsorted(sorted_values, edges[-1:], "right")])


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array  # noqa: E402
