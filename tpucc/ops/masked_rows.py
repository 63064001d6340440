"""The rows of a selection in order (masked.py): `x[i:j]` with runtime
bounds, or `x[mask]`, taken again by a slice, differenced, or summed up
cumulatively.

A selection keeps its rows where they sit in the full-size values, so what
needs them in order counts them: the t-th selected row (in the selection's
order) is the one where the running count of the mask reaches t.  Then:

- `s[a:b:c]` (and `x[k:][1:]`, `d[:-1]`; the bounds static or runtime, the
  step static) is the selection of the rows whose number the slice takes,
  with slice.indices' rules for the runtime row count; a view, as NumPy's
  slice of a slice is: writes through it reach what `s` views;
- np.diff of a 1-d selection, or of the rows of a wider one, is
  `s[1:] - s[:-1]` (their rows pair in order), n times; along a trailing
  axis it is np.diff of the values;
- np.cumsum and np.cumprod (and the methods), np.cumulative_sum / prod and
  the accumulate of add, multiply, maximum and minimum along the rows: the
  running result of the values with the unselected rows replaced by the
  identity, in the selection's order (from its last row for a backward
  slice).

And `np.concatenate([y[h:], z[:h]])` (a ring buffer read in time order) or
`[y[:h], z[h:]]` of two arrays of n rows: the pieces have runtime lengths,
but they add up to n, so the result has a static shape (`joined`).
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .elementwise import astype
from .masked import Selection, _count, _expanded, _numbers, elementwise, refusal
from .registry import NUMPY, normalize_axis
from .shape import reshape, where

# `view` of a selection whose rows another selection's slice took: its data
# is still a view (in-place updates change its selected elements only), but
# not of a slice that masked.assign_slice could compare bounds with.
ROWS_OF_A_SELECTION = "rows of a selection"


def is_row_slice(sel: Selection, key) -> bool:
    """Whether `key` slices a 1-d selection's rows (not `:` alone), then
    indexes its trailing axes by basic items."""
    from .masked import _basic_item
    items = key if isinstance(key, tuple) else (key,)
    rows = items[0] if items else None
    # (compared by identity: `==` of a runtime bound with None would be an array's)
    return (sel.rank == 1 and isinstance(rows, slice)
            and not (rows.start is None and rows.stop is None and rows.step is None)
            and all(_basic_item(i) for i in items[1:]))


def _static_step(step):
    if step is None:
        return 1
    if isinstance(step, (int, np.integer)) and not isinstance(step, bool):
        return int(step)
    return None


def take_rows(sel: Selection, key) -> Selection:
    """sel[a:b:c, ...] for a key is_row_slice accepts: a view."""
    from .indexing import getitem
    items = key if isinstance(key, tuple) else (key,)
    rows, trailing = items[0], items[1:]
    step = _static_step(rows.step)
    if step is None:
        raise refusal("a slice of x[i:j]'s rows with a runtime step (its rows' order would "
                      "be known only at run time)", sel)
    if step == 0:
        raise ShapeError("slice step cannot be zero")
    count = _count(sel, ())
    number = _numbers(sel_mask(sel), sel.descending, count)    # from 1, in order
    kept = _in_slice(number - 1, count, rows.start, rows.stop, step)
    data = getitem(sel.data, (slice(None),) + tuple(trailing)) if trailing else sel.data
    return Selection(data, (sel_mask(sel) & kept).var, view=ROWS_OF_A_SELECTION,
                     sliced=sel.sliced, descending=_order(sel.descending, step))


def sel_mask(sel: Selection):
    from ..infer.values import Array
    return Array(sel.mask)


def _order(descending, step: int):
    """A slice with a negative step runs the rows the other way."""
    if step > 0:
        return descending
    if isinstance(descending, bool):
        return not descending
    return NUMPY[np.logical_not](descending)


def _in_slice(position, count, start, stop, step: int):
    """Whether each row position (from 0, in order) is one the slice takes
    of `count` rows, with slice.indices' rules (negative bounds count from
    the end, then clamp)."""
    if step > 0:
        lo = 0 if start is None else _clamped(start, count, 0, count)
        hi = count if stop is None else _clamped(stop, count, 0, count)
        return (lo <= position) & (position < hi) & ((position - lo) % step == 0)
    first = count - 1 if start is None else _clamped(start, count, -1, count - 1)
    past = -1 if stop is None else _clamped(stop, count, -1, count - 1)
    return (past < position) & (position <= first) & ((first - position) % -step == 0)


def _clamped(bound, count, lo, hi):
    bound = astype(bound, np.int64) if hasattr(bound, "dtype") else int(bound)
    bound = where(bound < 0, bound + count, bound)
    return where(bound < lo, lo, where(bound > hi, hi, bound))


# --- np.diff, np.cumsum, np.cumprod ---------------------------------------------------------

def diff(a: Selection, n=1, axis=-1, prepend=None, append=None):
    """np.diff(x[i:j]): along the rows, the differences of neighbours in
    order (`s[1:] - s[:-1]`); along a trailing axis, of the values."""
    if prepend is not None or append is not None:
        raise refusal("np.diff of x[mask] with prepend= or append=", a)
    axis = normalize_axis(axis, 1 + len(a.rest))
    if axis != 0:
        return a.like(NUMPY[np.diff](a.data, n, axis=axis + a.rank - 1))
    subtract = np.not_equal if a.dtype == np.bool_ else np.subtract
    for _ in range(int(n)):
        a = elementwise(subtract, (take_rows(a, slice(1, None)), take_rows(a, slice(None, -1))))
    return a


def cumulative(name: str, sel: Selection, axis=None, dtype=None, out=None):
    """np.cumsum / np.cumprod of a selection: along its rows (axis None of a
    1-d one, or 0), or along a trailing axis."""
    if axis is None and sel.rest:
        raise refusal(f"np.{name} of x[mask] (other than along an axis, without out=)", sel)
    ufunc = np.add if name == "cumsum" else np.multiply
    return accumulate(ufunc, sel, 0 if axis is None else axis, dtype, out, f"np.{name}")


def cumulative_function(ufunc):
    """np.cumulative_sum / cumulative_prod (NumPy 2) of a selection: the
    accumulation, which include_initial would make one row longer."""
    name = f"np.cumulative_{'sum' if ufunc is np.add else 'prod'}"

    def call(sel: Selection, *, axis=None, dtype=None, out=None, include_initial=False):
        if include_initial:
            raise refusal(f"{name}(include_initial=True) of x[mask]", sel)
        if axis is None and sel.rest:
            raise ShapeError("ValueError: For arrays which have more than one dimension "
                             "``axis`` argument is required.")
        return accumulate(ufunc, sel, 0 if axis is None else axis, dtype, out, name)
    return call


def accumulate(ufunc, sel: Selection, axis=0, dtype=None, out=None, what=None):
    """ufunc.accumulate of a selection (np.add, multiply, maximum, minimum):
    along its rows, the running result of the values with the unselected
    rows replaced by the ufunc's identity (the lowest value for a running
    maximum), in the selection's order (from its last row for a backward
    slice); along a trailing axis, of the values."""
    what = what or f"np.{ufunc.__name__}.accumulate"
    if out is not None or sel.rank != 1 or axis is None:
        raise refusal(f"{what} of x[mask] (other than along an axis, without out=)", sel)
    running = NUMPY[ufunc.accumulate]
    axis = normalize_axis(axis, 1 + len(sel.rest))
    if axis != 0:
        return sel.like(running(sel.data, axis=axis, dtype=dtype))
    filled = where(_expanded(sel.mask, len(sel.rest)), sel.data, _identity(ufunc, sel.dtype))
    forward = running(filled, axis=0, dtype=dtype)
    if sel.descending is False:
        return sel.like(forward)
    flip = NUMPY[np.flip]
    backward = flip(running(flip(filled, 0), axis=0, dtype=dtype), 0)
    return sel.like(backward if sel.descending is True else
                    where(sel.descending, backward, forward))


def _identity(ufunc, dtype: np.dtype):
    """The value an unselected row holds so that it changes no running
    result: 0 for a sum, 1 for a product, the dtype's lowest value for a
    maximum (and highest for a minimum; a NaN in the rows still wins)."""
    if ufunc.identity is not None:
        return np.asarray(ufunc.identity).astype(dtype)[()]
    lowest = ufunc is np.maximum
    if dtype.kind == "b":
        return np.bool_(not lowest)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return dtype.type(info.min if lowest else info.max)
    infinity = -np.inf if lowest else np.inf
    return dtype.type(complex(infinity, infinity) if dtype.kind == "c" else infinity)


# --- complementary pieces: np.concatenate([y[h:], z[:h]]) -----------------------------------

def joined(arrays, axis=0, dtype=None, casting="same_kind"):
    """np.concatenate of two slices with runtime bounds, y[h:] and z[:h] (or
    y[:h] and z[h:]; y and z of n rows each, often the same array): n rows
    whatever h is, since the pieces split n at the same point.  None for
    anything else.  With h' = h clamped as slice.indices does, row t is
    y[h' + t] for t < n - h', else z[h' + t - n]: row (h' + t) % n of
    where(rows >= h', y, z).  In the other order, where(rows < h', y, z)."""
    if not isinstance(arrays, (list, tuple)) or len(arrays) != 2:
        return None
    first, second = arrays
    if not (_sliced_at_one_point(first) and _sliced_at_one_point(second)) or \
            first.data.shape != second.data.shape or \
            not (axis == 0 or axis is None and first.data.ndim == 1 or
                 axis == -first.data.ndim):
        return None
    order = _split_order(first.view, second.view)
    if order is None:
        return None
    from .shape import cast_operands
    y, z = first.data, second.data
    if dtype is not None:
        y, z = cast_operands("concatenate", [y, z], dtype, casting)
    n = y.shape[0]
    head = _clamped(order[1], n, 0, n)
    rows = _expanded(_positions(n).var, len(y.shape) - 1)
    if order[0] == "in order":
        return where(rows < head, y, z)
    return NUMPY[np.take]((where(rows >= head, y, z)), (_positions(n) + head) % max(n, 1), axis=0)


def _sliced_at_one_point(a) -> bool:
    """Whether `a` is x[h:] or x[:h] with a runtime h (a step of 1)."""
    view = getattr(a, "view", None)
    return (isinstance(a, Selection) and isinstance(view, slice) and a.sliced and
            a.descending is False and view.step in (None, 1) and
            (view.start is None) != (view.stop is None))


def _split_order(a: slice, b: slice):
    """("rotated", h) for a = [h:] and b = [:h]; ("in order", h) for a = [:h]
    and b = [h:]; None where the bounds are not the same runtime value."""
    from ..infer.values import Array
    from .masked import same_value
    if a.stop is None and b.start is None:
        order, p, q = "rotated", a.start, b.stop
    elif a.start is None and b.stop is None:
        order, p, q = "in order", a.stop, b.start
    else:
        return None
    if isinstance(p, Array) and isinstance(q, Array) and same_value(p.var, q.var):
        return order, p
    return None


def _positions(n: int):
    from ..infer import builder
    from ..infer.values import Array
    return Array(builder.const_value(np.arange(n)))


# --- np.searchsorted ------------------------------------------------------------------------

def searchsorted(sel: Selection, v, side="left", sorter=None):
    """np.searchsorted(x[lo:hi], v) (a CSR row's column j, found as scipy
    finds A[i, j]): in sorted rows, v's insertion point is how many of them
    come before it in NumPy's order (NaN last): a[k] < v on the left side,
    a[k] <= v on the right.  That count, over the selected full-size values,
    needs no rows in order, and its shape is v's."""
    from .searching import _scalar_kind, search_operands
    if sorter is not None or sel.rank != 1 or sel.rest or sel.descending is not False:
        raise refusal("np.searchsorted of x[mask] (other than of a 1-d selection in order, "
                      "without sorter=)", sel)
    v, common = search_operands(sel.dtype, v, side)
    rows = astype(sel.data, common)
    keys = reshape(astype(v, common), v.shape + (1,))      # against every row
    before = _sorted_before(rows, keys) if side == "left" else \
        NUMPY[np.logical_not](_sorted_before(keys, rows))
    taken = NUMPY[np.logical_and](before, sel_mask(sel))
    return _scalar_kind(NUMPY[np.sum](astype(taken, np.int64), axis=-1), v)


def _sorted_before(x, y):
    """x before y in NumPy's sort order: x < y, or y NaN and x not."""
    less = NUMPY[np.less](x, y)
    if x.dtype.kind != "f":
        return less
    isnan = NUMPY[np.isnan]
    return NUMPY[np.logical_or](less, NUMPY[np.logical_and](
        isnan(y), NUMPY[np.logical_not](isnan(x))))


FUNCTIONS = {np.diff: diff,
             np.cumsum: lambda sel, *a, **k: cumulative("cumsum", sel, *a, **k),
             np.cumprod: lambda sel, *a, **k: cumulative("cumprod", sel, *a, **k),
             np.cumulative_sum: cumulative_function(np.add),
             np.cumulative_prod: cumulative_function(np.multiply),
             np.searchsorted: searchsorted}
# ufunc.accumulate, found by its ufunc (each read of np.add.accumulate is a new
# bound method, never `is` the last)
ACCUMULATING = (np.add, np.multiply, np.maximum, np.minimum)
METHODS = {"cumsum": FUNCTIONS[np.cumsum], "cumprod": FUNCTIONS[np.cumprod],
           "searchsorted": searchsorted}
