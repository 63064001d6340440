"""NumPy's statistics and norms of selections (masked.py): `x[mask]` and a
slice with runtime bounds `x[i:j]`.

Each is NumPy's own recipe written with the selection's reductions (the
unselected elements replaced by the reduction's identity, the runtime
count where NumPy divides by the number of elements), so a loop over
`x[:j]` that takes its variance or its norm stays one `while`:

- np.var, np.std (ddof=, dtype=), over everything or axes that include
  the first; np.ptp; np.average (weights= a selection by the same mask);
- np.linalg.norm of any order that is a reduction (vector orders, the
  matrix orders 1, -1, inf, -inf and 'fro'), of the full-size values with
  the unselected rows replaced by values that change nothing;
- np.einsum('i,i', a, b) and np.tensordot(a, b, 1) of two 1-d selections:
  their dot product;
- np.histogram with range= or bin edges: the counts of the selected values.

- np.median, np.percentile, np.quantile and their nan- forms, over
  everything or axes that include the first: NumPy's NaN-ignoring recipe
  (sort, NaN last, then pick by the runtime count of numbers) on the
  full-size values with the unselected rows made NaN, so an expanding
  median `np.median(x[:i + 1])` in a loop stays one `while` too;
- np.nansum, nanprod, nanmean, nanvar, nanstd, nanmax, nanmin the same
  way: the unselected rows made NaN, which they leave out (a seasonal
  profile `np.nanmean(x[k::period])` over the phases k stays a `while`).
  Both take a mask of several axes (`np.median(D[D > 0])`) as the 1-D
  mask of the raveled rows (_one_mask_axis).

What would need the selected elements laid out in a row of runtime length
(np.sort, ...) stays an E200; what counts them in order (a
slice of the rows, np.diff, np.cumsum) is masked_rows.py's.
"""
from __future__ import annotations

import numpy as np

from ..errors import UnsupportedError, UserCodeError
from ..infer.values import Array
from .elementwise import astype
from .masked import (Selection, _astype, _count, _expanded, _reduce, _reduced_axes, _refuse_call,
                     product, reduce, refusal)
from .registry import NUMPY, normalize_axes, normalize_axis
from .shape import reshape, where


def variance(name: str, sel: Selection, axis=None, dtype=None, out=None, ddof=0,
             keepdims=False, **kw):
    """np.var / np.std of a selection, NumPy's _var step by step: the mean
    as the sum (in dtype=, float64 for integers and bools) divided by the
    runtime count, the deviations from it squared and summed, divided by
    max(count - ddof, 0) (so ddof >= count gives inf or nan, as NumPy's)."""
    if out is not None or kw:
        raise UnsupportedError(f"np.{name} of x[mask]: unsupported arguments "
                               f"{sorted(kw) + (['out'] if out is not None else [])}")
    dtype = None if dtype is None else np.dtype(dtype)
    if dtype is not None and dtype.kind not in "fc":
        raise UnsupportedError(f"np.{name} of x[mask] with dtype={dtype}",
                               hint="leave dtype= out, or give a float dtype")
    if dtype is None and sel.dtype.kind in "biu":
        dtype = np.dtype(np.float64)
    axes = _reduced_axes(sel, axis)
    mean_dtype = sel.dtype if dtype is None else dtype
    mean = _divided(_reduce("sum", sel, axis, mean_dtype, True), _count(sel, axes), mean_dtype)
    deviations = sel - mean
    if deviations.dtype.kind == "c":    # |x - mean| ** 2, real, as NumPy's x * conj(x)
        squares = Selection(NUMPY[np.real](deviations.data * NUMPY[np.conjugate](
            deviations.data)), sel.mask, sliced=sel.sliced)
    else:
        squares = deviations * deviations
    total = _reduce("sum", squares, axis, dtype, keepdims)
    divisor = NUMPY[np.maximum](_count(sel, axes) - ddof, 0)
    result = _divided(total, divisor, total.dtype)
    if name == "std":
        result = NUMPY[np.sqrt](result)
    if result.ndim == 0:
        result.immutable = True     # a NumPy scalar, as NumPy's var gives
    return result


def _divided(total, count, dtype):
    """NumPy's true_divide(total, count, casting='unsafe') into `dtype`, count
    an integer: computed in float64 for float16 (and float32, where the one
    rounding of float64's quotient is float32's own), then cast; a complex
    total divided by the count as a complex number."""
    if dtype == np.float64 or dtype.kind == "c":
        return total / astype(count, dtype)
    wide = astype(total, np.float64) / astype(count, np.float64)
    return astype(wide, dtype, copy=False)


def ptp(sel: Selection, axis=None, out=None, keepdims=False):
    """np.ptp(x[:i]): max - min, in the selection's dtype (an empty one
    raises NumPy's ValueError when the call returns, as its max does)."""
    if out is not None:
        raise UnsupportedError("np.ptp(out=...) is not supported", hint="assign the result")
    return NUMPY[np.subtract](reduce("max", sel, axis, keepdims=keepdims),
                              reduce("min", sel, axis, keepdims=keepdims))


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """np.average(x[:i]): the mean, and the count as its scale; with
    weights w[:i] (a selection by the same mask, of a's shape, or 1-d along
    the rows with axis=0): sum(a * w) / sum(w) in result_type(a, w)
    (float64 at least for integers), raising NumPy's ZeroDivisionError when
    the weights sum to zero."""
    if not isinstance(a, Selection) or weights is not None and not isinstance(weights, Selection):
        return _refuse_call(np.average, (a, weights))
    axes = _reduced_axes(a, axis)
    if weights is None:
        avg = reduce("mean", a, axis, keepdims=keepdims)
        scale = astype(_count(a, axes), avg.dtype)
    else:
        avg, scale = _weighted_average(a, axis, _weights(a, weights, axes), keepdims)
    if not returned:
        return avg
    if scale.shape != avg.shape:
        scale = NUMPY[np.copy](NUMPY[np.broadcast_to](scale, avg.shape))
    elif scale.ndim == 0:
        scale.immutable = True      # a NumPy scalar, as NumPy's
    return avg, scale


def _weights(a: Selection, w: Selection, axes) -> Selection:
    """w as it broadcasts against a: the same shape, or 1-d weights of the
    rows (axis=0) spread along a's trailing axes."""
    if w.rest == a.rest:
        return w
    if w.rest or axes != tuple(range(a.rank)):
        raise refusal(f"np.average of x[mask] of shape (k,)+{a.rest} with weights of shape "
                      f"(k,)+{w.rest}", a)
    from .shape import reshape
    return Selection(reshape(w.data, w.data.shape + (1,) * len(a.rest)), w.mask,
                     sliced=w.sliced)


def _weighted_average(a: Selection, axis, w: Selection, keepdims):
    from ..infer import checks
    if a.dtype.kind in "biu":
        dtype = np.result_type(a.dtype, w.dtype, "f8")
    else:
        dtype = np.result_type(a.dtype, w.dtype)
    scale = reduce("sum", w, axis, dtype=dtype, keepdims=keepdims)
    checks.require(NUMPY[np.all](scale != 0.0), "Weights sum to zero, can't be normalized",
                   raises="ZeroDivisionError",
                   hint="NumPy raises ZeroDivisionError here; compiled code checks the weights' "
                        "sums and raises when the call returns")
    total = reduce("sum", a * _astype(w, dtype), axis, dtype=dtype, keepdims=keepdims)
    return total / scale, scale


# --- np.linalg.norm ---------------------------------------------------------------------------

def norm(sel: Selection, ord=None, axis=None, keepdims=False):
    """np.linalg.norm(x[:i]): NumPy's norm (matrix.py) of the full-size
    values, the unselected rows replaced by values that change nothing:
    zeros where the rows are summed or their largest taken, inf where the
    smallest is (which, as NumPy's minimum, raises ValueError when the call
    returns if nothing is selected).  Over axes without the rows, the
    norms of the selected rows: a selection.  Orders that need singular
    values (2, -2 and 'nuc' of a matrix) are an E200."""
    from .matrix import norm as full_norm
    if sel.rank != 1:       # (the rows of a 2-d mask are not the data's rows)
        if ord is None and axis is None and not keepdims and sel.dtype.kind != "c":
            return _two_norm(sel)
        return _refuse_call(np.linalg.norm, (sel,))
    ndim = 1 + len(sel.rest)
    axes = tuple(range(ndim)) if axis is None else tuple(
        normalize_axis(a, ndim) for a in (axis if isinstance(axis, tuple) else (axis,)))
    data = sel.data if sel.dtype.kind in "fc" else astype(sel.data, np.float64)
    if 0 not in axes:
        return sel.like(full_norm(data, ord, axis, keepdims))
    if len(axes) == 2 and (ord in (2, -2) or ord == "nuc"):
        raise refusal(f"np.linalg.norm(x[mask], ord={ord!r}) (singular values of x[mask])", sel)
    least = _least_over_rows(ord, axes)
    if least and (len(axes) == 2 or ord == -np.inf):    # (a sum of |x| ** -p may be empty)
        from ..infer import checks
        checks.require(_count(sel, None) > 0, "zero-size array to reduction operation minimum "
                       "which has no identity", raises="ValueError")
    fill = np.array(np.inf if least else 0, data.dtype)[()]
    return full_norm(NUMPY[np.where](_expanded(sel.mask, len(sel.rest)), data, fill), ord, axis,
                     keepdims)


def _least_over_rows(ord, axes) -> bool:
    """Whether NumPy's norm takes a minimum over the rows (axis 0) before
    summing them: a vector's negative orders (-inf: its least |x|; -p: the
    sum of |x| ** -p, to which inf adds nothing); a matrix's -1 (the least
    column sum, over axes[1]) and -inf (the least row sum, over axes[0])."""
    if isinstance(ord, str) or ord is None:
        return False
    if len(axes) == 1:
        return ord < 0
    return (ord == -1 and axes[1] == 0) or (ord == -np.inf and axes[0] == 0)


def _two_norm(sel: Selection):
    """sqrt of the sum of the selected squares (NumPy's sqrt(x . x)), in
    floating point: a selection of any mask."""
    if sel.dtype.kind not in "f":
        sel = _astype(sel, np.float64)
    return NUMPY[np.sqrt](reduce("sum", sel * sel))


# --- products written as einsum and tensordot -------------------------------------------------

def einsum(subscripts, *operands, **kwargs):
    """np.einsum('i,i', a, b) (or 'i,i->') of two 1-d selections: a . b."""
    if isinstance(subscripts, str) and not kwargs and len(operands) == 2 and \
            _is_vector_pair(operands):
        inputs, arrow, output = subscripts.replace(" ", "").partition("->")
        left, comma, right = inputs.partition(",")
        if comma and len(left) == 1 and left == right and left.isalpha() and not output:
            return product(np.dot, *operands)
    return _refuse_call(np.einsum, operands)


def tensordot(a, b, axes=2):
    """np.tensordot(a, b, 1) (or axes=([0], [0])) of two 1-d selections: a . b."""
    if _is_vector_pair((a, b)) and _contracts_first_axes(axes):
        return product(np.dot, a, b)
    return _refuse_call(np.tensordot, (a, b))


def _contracts_first_axes(axes) -> bool:
    """Whether tensordot's `axes` of two 1-d operands sums over both."""
    if isinstance(axes, (int, np.integer)):
        return axes == 1
    try:
        first, second = axes
    except (TypeError, ValueError):
        return False
    return all(list(np.atleast_1d(np.asarray(p))) in ([0], [-1]) for p in (first, second))


def _is_vector_pair(operands) -> bool:
    return all(isinstance(v, Selection) and not v.rest for v in operands)


def _one_mask_axis(sel: Selection) -> Selection:
    """x[mask] with a mask of several axes (`D[D > 0]`, a 2-D mask) is the
    same rows, in the same C order, as x.reshape(n, *rest)[mask.ravel()]:
    a selection by a 1-D mask, which the recipes below take."""
    if sel.rank == 1 or sel.view is not None:
        return sel
    n = int(np.prod(sel.mask.aval.shape, dtype=np.int64))
    return Selection(reshape(sel.data, (n,) + sel.rest), reshape(Array(sel.mask), (n,)).var,
                     sliced=sel.sliced, descending=sel.descending)


# --- median, percentile, quantile --------------------------------------------------------------

_NAN_FORM = {np.median: np.nanmedian, np.percentile: np.nanpercentile,
             np.quantile: np.nanquantile}


def order_statistic(fn):
    """np.median / percentile / quantile (fn, or its nan- form) of a
    selection.  The unselected rows become NaN, which the nan- form's sort
    puts last and its runtime count of numbers leaves out; integers and
    bools are ordered as float64, the dtype NumPy gives their median and
    quantiles.  The plain form is NaN where a selected element is NaN, and
    a percentile of no element raises NumPy's IndexError (the median of
    none is NaN, as NumPy's)."""
    import inspect
    nan_form = _NAN_FORM.get(fn, fn)
    signature = inspect.signature(fn)

    def call(sel: Selection, *args, **kwargs):
        sel = _one_mask_axis(sel)
        bound = signature.bind(sel, *args, **kwargs).arguments
        axis, keepdims = bound.get("axis"), bound.get("keepdims", False)
        axes = normalize_axes(axis, 1 + len(sel.rest))
        kind = sel.dtype.kind
        if sel.rank != 1 or (axes is not None and 0 not in axes) or kind not in "biuf" or \
                bound.get("out") is not None:
            return _refuse_call(fn, (sel,))
        if kind == "b" and fn is not np.median and fn is not np.nanmedian:
            raise UserCodeError("TypeError: numpy boolean subtract, the `-` operator, is not "
                                "supported, use the bitwise_xor, the `^` operator, or the "
                                "logical_xor function instead.")
        selected = _expanded(sel.mask, len(sel.rest))
        data = sel.data if kind == "f" else astype(sel.data, np.float64)
        result = NUMPY[nan_form](where(selected, data, np.nan), *args, **kwargs)
        if fn is not np.median and fn is not np.nanmedian:
            _require_an_element(sel)
        if fn is nan_form or kind != "f":
            return result
        has_nan = NUMPY[np.any](NUMPY[np.isnan](sel.data) & selected, axis=axis,
                                keepdims=keepdims)
        with_nan = astype(where(has_nan, np.nan, result), result.dtype, copy=False)
        with_nan.immutable = result.immutable       # a NumPy scalar if 0-d, as NumPy's
        return with_nan
    return call


def _require_an_element(sel: Selection):
    """NumPy's percentile of no element indexes position -1 of nothing."""
    from ..infer import checks
    checks.require(_count(sel, ()) > 0, "index -1 is out of bounds for axis 0 with size 0",
                   raises="IndexError")


# --- the nan- reductions ---------------------------------------------------------------------

_NAN_REDUCTIONS = {np.nansum: np.sum, np.nanprod: np.prod, np.nanmean: np.mean,
                   np.nanvar: np.var, np.nanstd: np.std, np.nanmax: np.max, np.nanmin: np.min}


def nan_reduction(fn):
    """np.nansum, nanmean, nanmax, ... (fn) of a selection: fn of the
    full-size values with the unselected rows made NaN, which fn leaves
    out as it leaves out the NaN; the max or min of no element raises
    NumPy's ValueError when the call returns.  Integers and bools hold no
    NaN: the plain reduction of the selection (its dtype rules too)."""
    import inspect
    from .masked import holds_selection, numpy_call
    plain, signature = _NAN_REDUCTIONS[fn], inspect.signature(fn)

    def call(sel: Selection, *args, **kwargs):
        sel = _one_mask_axis(sel)
        bound = signature.bind(sel, *args, **kwargs).arguments
        axes = normalize_axes(bound.get("axis"), 1 + len(sel.rest))
        if sel.rank != 1 or (axes is not None and 0 not in axes) or \
                holds_selection(args, kwargs) or bound.get("out") is not None:
            return _refuse_call(fn, (sel,))
        if sel.dtype.kind not in "fc":
            return numpy_call(plain, (sel, *args), kwargs)
        if plain in (np.max, np.min) and "initial" not in kwargs:
            from ..infer import checks
            checks.require(_count(sel, ()) > 0, "zero-size array to reduction operation "
                           f"{'fmax' if plain is np.max else 'fmin'} which has no identity",
                           raises="ValueError")
        selected = _expanded(sel.mask, len(sel.rest))
        return NUMPY[fn](where(selected, sel.data, np.nan), *args, **kwargs)
    return call


# --- np.histogram ----------------------------------------------------------------------------

def histogram(a, bins=10, range=None, density=None, weights=None):
    """np.histogram(x[mask], bins, range=(lo, hi)) (or bins= edges): the
    full-size values with the unselected ones left out of the counts,
    which have the static shape of the bins; weights= a selection by the
    same mask.  Without range= the edges would come from the selected
    values' min and max (and (0, 1) for none): refused (histograms.py)."""
    from .histograms import _ravel_and_check_weights, histogram_of_selected
    from .masked import _same_rows, _target_of
    if not isinstance(a, Selection) or weights is not None and not (
            isinstance(weights, Selection) and weights.data.shape == a.data.shape
            and _same_rows(weights, _target_of(a))):
        return _refuse_call(np.histogram, (a, weights))
    values, weights = _ravel_and_check_weights(a.data, None if weights is None else weights.data)
    selected = NUMPY[np.broadcast_to](_expanded(a.mask, len(a.rest)), a.data.shape)
    return histogram_of_selected(values, NUMPY[np.ravel](selected), bins, range, density,
                                 weights)


FUNCTIONS = {np.var: lambda *a, **k: variance("var", *a, **k),
             np.std: lambda *a, **k: variance("std", *a, **k),
             np.ptp: ptp, np.average: average, np.linalg.norm: norm,
             np.einsum: einsum, np.tensordot: tensordot, np.histogram: histogram,
             **{f: order_statistic(f) for f in (*_NAN_FORM, *_NAN_FORM.values())},
             **{f: nan_reduction(f) for f in _NAN_REDUCTIONS}}

METHODS = {"var": FUNCTIONS[np.var], "std": FUNCTIONS[np.std]}
