"""np.histogram and np.histogram_bin_edges with a static number of equal
bins, following NumPy's _histograms_impl step by step.

The edges are np.linspace(first, last, bins + 1) in NumPy's bin dtype: with
a static `range` NumPy computes them here; without, first and last are the
array's runtime min and max (widened by 0.5 when equal) and the linspace is
NumPy's expression for expression.  Each value's bin is NumPy's: the scaled
offset truncated, then moved down or up one where the edges disagree; the
counts are a scatter-add (np.bincount's, in float64 for weights).  NumPy's
errors on runtime values (a non-finite autodetected range, too many bins for
it) are runtime checks that raise ValueError.
"""
from __future__ import annotations

import operator

import numpy as np
from jax import lax
from numpy.lib import _histograms_impl as _np_hist

from ..errors import UnsupportedError, UserCodeError
from ..ir import AVal
from .elementwise import astype
from .manipulation import as_array
from .registry import NUMPY, implements, register
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
    return _bin_edges(a, bins, range)[0]


@implements(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    a, weights = _ravel_and_check_weights(a, weights)
    edges, (first, last, n, denom) = _bin_edges(a, bins, range)
    if weights is not None and weights.dtype.kind == "c":
        raise UnsupportedError("np.histogram with complex weights is not supported",
                               hint="histogram the real and imaginary parts apart")
    ntype = np.dtype(np.int64) if weights is None else weights.dtype
    counts = _counts(a, weights, edges, first, last, n, denom, ntype)
    if density:
        widths = astype(NUMPY[np.diff](edges), np.float64)
        return counts / widths / NUMPY[np.sum](counts), edges
    return counts, edges


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
        raise UnsupportedError("np.histogram: only a static integer number of bins is "
                               "supported", hint="pass bins=K, a Python int (and range=(lo, "
                               "hi) for edges known at compile time)")
    try:
        n = operator.index(bins)
    except TypeError:
        raise UserCodeError("TypeError: `bins` must be an integer, a string, or an array") \
            from None
    if n < 1:
        raise UserCodeError("ValueError: `bins` must be positive, when an integer")
    return n


def _bin_edges(a, bins, range):
    """(edges, (first, last, n, NumPy's norm_denom)); edges and the rest
    static with a range (or an empty a), runtime without."""
    n = _static_bins(bins)
    if range is not None or a.size == 0:
        if range is not None and any(_is_array(r) for r in range):
            raise UnsupportedError("np.histogram with a range known only at run time",
                                   hint="pass range=(lo, hi) as Python numbers, or no range")
        try:
            first, last = _np_hist._get_outer_edges(np.empty(0, a.dtype), range)
            edges, _ = _np_hist._get_bin_edges(np.empty(0, a.dtype), n, (first, last), None)
        except (ValueError, TypeError) as e:
            raise UserCodeError(f"{type(e).__name__}: {e}") from None
        return edges, (first, last, n, _np_hist._unsigned_subtract(last, first))
    return _runtime_edges(a, n)


def _runtime_edges(a, n):
    """The autodetected range and np.linspace over it, in NumPy's dtypes:
    integers give float64 edges; the range's width is the unsigned
    difference (NumPy's _unsigned_subtract)."""
    lo, hi = NUMPY[np.min](a), NUMPY[np.max](a)
    if a.dtype.kind in "fc":
        finite = NUMPY[np.isfinite](lo) & NUMPY[np.isfinite](hi)
        _require(finite, "autodetected range is not finite (np.histogram)")
    same = lo == hi
    if a.dtype.kind == "f":
        first, last = where(same, lo - 0.5, lo), where(same, hi + 0.5, hi)
        first, last = astype(first, a.dtype), astype(last, a.dtype)
        denom = NUMPY[np.subtract](last, first)
    else:
        lo64, hi64 = astype(lo, np.float64), astype(hi, np.float64)
        first, last = where(same, lo64 - 0.5, lo64), where(same, hi64 + 0.5, hi64)
        unsigned = np.dtype(f"u{a.dtype.itemsize}")
        width = astype(astype(hi, unsigned) - astype(lo, unsigned), np.float64)
        denom = where(same, last - first, width)
    edges = _linspace(first, last, n + 1)
    _require(NUMPY[np.all](edges[:-1] < edges[1:]),
             f"Too many bins for data range. Cannot create {n} finite-sized bins. "
             "(np.histogram)")
    return edges, (first, last, n, denom)


def _linspace(start, stop, num):
    """np.linspace(start, stop, num) of runtime 0-d floats, NumPy's steps:
    arange * (delta / div) + start (arange / div * delta where the step is
    0), the last one stop itself."""
    div = num - 1
    delta = stop - start
    step = delta / div
    y = NUMPY[np.arange](0, num, dtype=start.dtype)
    y = where(step == 0, y / div * delta, emit("rounded_product", y, step)) + start
    return NUMPY[np.concatenate]([y[:-1], NUMPY[np.reshape](stop, (1,))])


def _rounded_product_lower(lc, x, y):
    """x * y (0-d y), rounded before the addition that follows.  XLA:CPU
    contracts x * y + z in one kernel into a fused multiply-add (one
    rounding, NumPy's two), which moves an edge by an ulp and a value lying
    on it to the next bin.  A conditional on a runtime predicate (y == y,
    both branches the product) keeps the product out of the add's kernel."""
    return lax.cond(lax.eq(y, y), lambda: lax.mul(x, y), lambda: lax.mul(x, y))


register("rounded_product", lambda avals: AVal(avals[0].dtype, avals[0].shape, False),
         _rounded_product_lower, numpy=lambda x, y: x * y)


def _counts(a, weights, edges, first, last, n, denom, ntype):
    keep = (a >= first) & (a <= last)
    x = astype(a, edges.dtype, copy=False)
    diff_dtype = (np.result_type(np.empty(0, edges.dtype), first) if not _is_array(first)
                  else edges.dtype)
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


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array  # noqa: E402
