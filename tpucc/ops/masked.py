"""Boolean-mask selections: `y[mask]` with a runtime boolean mask of y's
leading axes.

NumPy's `y[mask]` has as many rows as the mask has True values: a shape
known only at run time.  So it is not an Array here but a `Selection`: the
full-size values (a copy of y, as advanced indexing copies) and the mask's
Value when it was read.  A selection has shape (k,) + rest, where k is the
runtime count and rest is y.shape[mask.ndim:].  What has a static meaning
compiles:

- `x[mask] = v` and `x[mask] OP= v` (OP= reads x[mask], updates that
  selection, stores it back): a select of the new values where the mask holds;
  v is a scalar, an array that broadcasts to rest, or a selection by the same
  mask (`x[m] = y[m]`; the same mask object, or an equal expression such as
  `x[x > 2] = y[x > 2]`);
- elementwise operators and ufuncs between a selection, scalars, arrays of
  its trailing shape and selections by the same mask: a selection (a tuple
  of them for np.frexp); so do NumPy functions and array methods made of
  elementwise ops only (np.round, np.nan_to_num, np.where, x[m].clip());
- reductions over the whole selection or axes that include its first
  (sum prod mean max min any all count_nonzero, also with where= and
  initial=), with the unselected elements replaced by the reduction's
  identity; `len()`, `.size` and `.shape[0]` as runtime ints;
- NumPy's statistics and norms built from those reductions (var std ptp
  average, np.linalg.norm, a dot written as einsum or tensordot): see
  masked_statistics.py;
- its rows in order: a slice of them (`x[k:][1:]`), np.diff, np.cumsum:
  see masked_rows.py.

Anything else (returning it, indexing it again, np.concatenate of it, ...)
is an E200 that says so.  max/min of an empty selection raise NumPy's
ValueError when the call returns (a runtime check).
"""
from __future__ import annotations

import functools
import os

import numpy as np

from ..errors import ShapeError, UnsupportedError, UserCodeError
from ..ir import Value
from . import reductions
from .elementwise import (COMPARISONS, OPERATORS, UNARY_OPERATORS, astype, check_astype,
                          store_inplace)
from .registry import METHODS as ARRAY_METHODS
from .registry import NUMPY, broadcast_shapes, maps_elements, normalize_axes, writes_out
from .shape import reshape, where

_HINT = ("x[mask] = v, x[mask] += y[mask] (the same mask), elementwise math on x[mask] and "
         "its reductions (sum prod mean max min any all var std ptp average, np.linalg.norm, "
         "len) compile; otherwise keep the shape with np.where(mask, x, fill)")


_SLICE_HINT = ("a window x[i:i + k] has k rows where i is known to lie in [0, n - k]: "
               "j = np.clip(i, 0, n - k) (or min(max(i, 0), n - k)), then x[j:j + k]; "
               "reductions of x[i:j] (sum prod mean max min any all var std ptp average, "
               "np.linalg.norm, len), elementwise math on it and x[i:j] = v, x[i:j] += v "
               "compile; otherwise slice with static bounds, or "
               "keep the shape with np.where((i <= np.arange(n)) & (np.arange(n) < j), x, fill)")


# Where the program goes through a slice's rows one by one, an index does it.
_SLICE_ROWS_HINT = ("go through the rows by index, a runtime loop: `for k in range(i, j): v = "
                    "x[k]` (`for k in range(n)` for x[:n]); rows by an int or an index "
                    "array compile (x[i:j][k], x[:n][-1], x[i:j][idx], np.take(x[i:j], idx)), "
                    "and np.sum(x[i:j]), x[i:j].max() and the other "
                    "reductions compile as they are")


def refusal(what: str, sel: "Selection | None" = None, by_rows: bool = False) -> ShapeError:
    """The E200 for a use of a selection whose result shape is data-dependent;
    `sel` names a slice with runtime bounds as such (`by_rows`: a use that
    takes its rows one by one, which indices can do)."""
    if sel is not None and sel.sliced:
        what = what.replace("x[mask]", "x[i:j]").replace("y[mask]", "x[i:j]").replace(
            "selections", "slices")
        return ShapeError(f"{what}: a slice with runtime bounds, x[i:j], has a data-dependent "
                          "shape (one row per index in the range)",
                          hint=_SLICE_ROWS_HINT if by_rows else _SLICE_HINT)
    what = what.replace("x[i:j, k:l]", "x[:, mask]")     # (a boxes.Box of a mask's)
    return ShapeError(f"{what}: x[mask] has a data-dependent shape (one row per True in the "
                      "mask)", hint=_HINT)


class Selection:
    """y[mask]: `data` holds y's values (mask.shape + rest), `mask` the mask's
    Value.  In-place operators update `data`, an Array of its own, so runtime
    regions merge the update as they merge any array's.  `view`: the slice,
    for a slice with runtime bounds (see `select_slice`), whose `data` is a
    view of y, as NumPy's slice is: y's later changes show in it, its updates
    go into y.  None for a mask.  `sliced`: made from such a slice (`x[:i] <
    c`, a copy): errors name the slice, not a mask.  `descending`: whether
    its rows run from the last selected to the first (a slice with a
    negative step: x[k::-1]), False, True or a runtime bool; it orders the
    rows where two selections pair them (`_aligned`).  `made_at`: the line
    that made it, where an error about keeping it names (made_at)."""
    __slots__ = ("data", "mask", "view", "sliced", "descending", "made_at")

    def __init__(self, data, mask: Value, view: slice | None = None, sliced=False,
                 descending=False):
        self.data, self.mask, self.view = data, mask, view
        self.sliced = sliced or view is not None
        self.descending = descending
        self.made_at = ctx().loc

    def like(self, data) -> "Selection":
        """A selection of `data` (full-size values of the same rows) by the
        same mask, in the same order: a result computed from this one."""
        return Selection(data, self.mask, sliced=self.sliced, descending=self.descending)

    @property
    def rank(self) -> int:
        return self.mask.aval.ndim

    @property
    def rest(self) -> tuple:
        return self.data.shape[self.rank:]

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    def __repr__(self):
        if self.view is not None:
            return f"a slice with runtime bounds of {self.data.aval}"
        return f"a boolean-mask selection of {self.data.aval}"

    __hash__ = object.__hash__

    def __getitem__(self, key):
        """x[i:j][:, k], f[:, None]: basic indexing of the trailing axes
        (the selected rows stay whole) selects the same rows of the indexed
        values, a view of them as NumPy's is."""
        from .indexing import getitem
        if isinstance(key, Selection) and not isinstance(key, boxes.Box) and \
                key.dtype == np.bool_:
            _require_same_mask(key, self.mask, "y[mask] with y and the mask selections")
            return self._masked_again(key)
        row = self._row_key(key)
        if row is not None:
            return scalar_if_numpy_would(self.data, row, getitem(self.data, row))
        if rows.is_row_slice(self, key):
            return rows.take_rows(self, key)
        items = self._trailing_key(key)
        if items is None and self._new_leading_axes(key):
            return self._moved_rows(key)
        if items is None:
            raise refusal("indexing x[mask] again", self, by_rows=True)
        return Selection(getitem(self.data, items), self.mask, view=self.view,
                         sliced=self.sliced, descending=self.descending)

    def __setitem__(self, key, value):
        """x[i:j][:, k] = v (and `x[i:j][:, k] *= 2`): into the same rows of
        the indexed values, which are a view: through a slice's, into x."""
        from .indexing import getitem, setitem
        if key is Ellipsis:
            key = slice(None)
        if _is_mask_of(key, self):
            write_through(self, lambda a: setitem(a, key.data, value))
            return
        row = self._row_key(key)
        if row is not None:
            setitem(self.data, row, value)
            return
        if rows.is_row_slice(self, key):
            target = rows.take_rows(self, key)
            assign(target.data, Array(target.mask), value, bounds=self.sliced,
                   descending=target.descending)
            return
        items = self._trailing_key(key)
        if items is None:
            raise refusal("assigning into an item of x[mask]", self)
        assign(getitem(self.data, items), Array(self.mask), value, bounds=self.sliced,
               descending=self.descending)

    def _masked_again(self, key: "Selection") -> "Selection":
        """x[i:j][m] with m a bool selection of the same rows (`data[lo:hi]
        [indices[lo:hi] < i]`, a CSR row's strictly lower part): the rows
        both keep, a copy as NumPy's mask gives, in the same order.  (m's
        values at the other rows are anything: the mask drops them.)"""
        if key.rest:
            raise refusal("indexing x[mask] again with a mask of more than its rows", self)
        both = NUMPY[np.logical_and](Array(self.mask), key.data)
        return Selection(Array(self.data.var), both.var, descending=self.descending)

    def _new_leading_axes(self, key) -> int:
        """How many `None`s lead a key that then keeps the rows whole and
        indexes the trailing axes (`x[:n][None, :]`), else 0."""
        items = key if isinstance(key, tuple) else (key,)
        lead = next((n for n, i in enumerate(items) if i is not None), len(items))
        if not lead or self.rank != 1 or self.descending is not False:
            return 0
        return lead if self._trailing_key(items[lead:] or (slice(None),)) is not None else 0

    def _moved_rows(self, key):
        """x[:n][None, :]: the rows on a later axis, a boxes.Box of the
        indexed values with the mask there."""
        from .indexing import getitem
        lead = self._new_leading_axes(key)
        data = getitem(self.data, key)
        masks = (None,) * lead + (Array(self.mask),) + (None,) * (data.ndim - lead - 1)
        return boxes.boxed(data, masks, view=self.view, sliced=self.sliced)

    def _row_key(self, key):
        """x[k:][0], v[-1], x[k:][idx] (an int or an integer index array
        first, then basic items): the key of the data for those rows of the
        selection, whose positions are found at run time (NumPy's
        IndexError when the call returns if it has no such row); None for a
        key that starts otherwise.  An index array's result has its shape
        whatever the selection's length: rows picked one by one."""
        items = key if isinstance(key, tuple) else (key,)
        if not items or self.rank != 1 or not all(_basic_item(i) for i in items[1:]):
            return None
        first = _row_indices(items[0])
        if first is None and (not _basic_item(items[0]) or items[0] is None or
                              items[0] is Ellipsis or isinstance(items[0], slice)):
            return None
        return (_row_position(self, items[0] if first is None else first),) + tuple(items[1:])

    def _trailing_key(self, key):
        """The key as a tuple where it indexes only the trailing axes (the
        rows whole, then None, `...`, ints or slices), else None."""
        items = key if isinstance(key, tuple) else (key,)
        lead = items[:self.rank]
        if len(lead) < self.rank or not all(_whole(i) for i in lead) or \
                not all(_basic_item(i) for i in items[self.rank:]):
            return None
        return items

    def __iter__(self):
        raise refusal("iterating over x[mask]", self, by_rows=True)

    def __len__(self):
        raise refusal("len() of x[mask] as a static number", self)

    def __bool__(self):
        raise refusal("the truth value of x[mask]", self)

    def __array__(self, *a, **k):
        raise refusal("using x[mask] as an array", self)

    def __index__(self):
        raise refusal("using x[mask] as a number", self)

    def __format__(self, spec):
        raise refusal("formatting x[mask] as text", self)

    def __str__(self):
        raise refusal("formatting x[mask] as text", self)

    __int__ = __float__ = __complex__ = __index__


def _is_mask_of(key, sel: Selection) -> bool:
    """`y[y > 3] = v` with y = x[i:j]: a bool selection by the same rows."""
    if not isinstance(key, Selection) or isinstance(key, boxes.Box) or key.dtype != np.bool_:
        return False
    _require_same_mask(key, sel.mask, "y[mask] = v with y and the mask selections")
    return True


def write_through(sel: Selection, write) -> None:
    """An in-place write of NumPy's (a.fill, np.copyto, np.putmask, a
    masked assignment) into a selection: `write` updates a scratch copy of
    the full-size values, and only the selected elements take the result,
    so through a view's `data` the rows outside the slice stay as they are."""
    scratch = Array(sel.data.var)
    write(scratch)
    sel.data.set(where(_expanded(sel.mask, len(sel.rest)), scratch, sel.data).var)


def _fill(sel: Selection, value):
    write_through(sel, lambda a: ARRAY_METHODS["fill"](a, value))


def _copyto(dst, src, casting="same_kind", where=True):
    """np.copyto(x[i:j], src, where=w): src and w are scalars, arrays of the
    trailing shape, or selections by the same rows."""
    if not isinstance(dst, Selection):
        return _refuse_call(np.copyto, (dst, src))
    src, where = (_by_rows(v, dst, "np.copyto") for v in (src, where))
    write_through(dst, lambda a: NUMPY[np.copyto](a, src, casting=casting, where=where))


def _putmask(a, mask, values):
    """np.putmask(x[i:j], x[i:j] > c, v): the mask a selection by the same
    rows; the values a scalar or such a selection (NumPy cycles an array of
    values over the slice's runtime length)."""
    if not isinstance(a, Selection):
        return _refuse_call(np.putmask, (a, mask))
    if not isinstance(mask, Selection) or \
            not isinstance(values, Selection) and np.ndim(values) != 0:
        raise refusal("np.putmask of x[mask] other than with a mask and values that are "
                      "selections by the same rows (or scalar values)", a)
    mask, values = (_by_rows(v, a, "np.putmask") for v in (mask, values))
    write_through(a, lambda data: NUMPY[np.putmask](data, mask, values))


def _by_rows(v, sel: Selection, what: str):
    """An operand beside a selection written into, as full-size values: a
    selection by the same rows gives its own; a scalar or an array of the
    trailing shape stays."""
    if isinstance(v, Selection):
        _require_same_mask(v, sel.mask, f"{what} of selections")
        return v.data
    if isinstance(v, bool):
        return v
    return _operand(_as_operand(v), len(sel.rest), what.removeprefix("np."), sel)[0]


def _row_indices(item):
    """An integer index array (runtime, or a static list or ndarray of
    ints) as an Array, else None."""
    from ..infer import builder
    if isinstance(item, (list, np.ndarray)):
        item = np.asarray(item)
        if item.dtype.kind not in "iu" or item.ndim == 0:
            return None
        return Array(builder.const_value(item))
    if isinstance(item, Array) and item.ndim and item.dtype.kind in "iu":
        return item
    return None


def _row_position(sel: Selection, i):
    """Where in sel.data its i-th row (in its order, negative from its end)
    is: past the rows before it among the selected, as NumPy counts."""
    return position(Array(sel.mask), i, sel.descending)


def position(mask: Array, i, descending=False, axis: int = 0):
    """Where along a 1-d mask's axis the i-th selected index (in order,
    negative from the end; `descending`: counted from the last) is, with
    NumPy's IndexError when the call returns where there is none.  An
    immutable int Array: a scalar index, which gives views."""
    from .elementwise import _require
    count = ARRAY_METHODS["sum"](mask, dtype=np.int64)
    index = astype(i, np.int64) if isinstance(i, Array) else int(i)
    wrapped = where(index < 0, index + count, index)
    many = isinstance(index, Array) and index.ndim > 0     # an index array: x[k:][idx]
    inside = (wrapped >= 0) & (wrapped < count)
    which = ("an index",) if many else ("index ", index if isinstance(index, Array) else str(index))
    _require(ARRAY_METHODS["all"](inside) if many else inside,
             which + (f" is out of bounds for axis {axis} with size ", count), "IndexError",
             "the slice has fewer rows than that")
    number = _in_order(wrapped + 1, descending, count)     # from 1, ascending
    taken = NUMPY[np.cumsum](astype(mask, np.int64))
    found = NUMPY[np.searchsorted](taken, number)
    found = NUMPY[np.minimum](found, mask.shape[0] - 1)
    # a scalar index: x[k:][0] of a matrix is a view of a row (an index
    # array's picks are a copy, as NumPy's advanced indexing)
    found.immutable = not many
    return found


def _whole(item) -> bool:
    return isinstance(item, slice) and item == slice(None)


def _basic_item(item) -> bool:
    """None, `...` (after the rows), a static or runtime int, or a slice:
    an index of the trailing axes that leaves the rows as they are."""
    if item is None or item is Ellipsis or isinstance(item, slice):
        return True
    if isinstance(item, Array):
        return item.ndim == 0 and item.dtype.kind in "iu"
    return isinstance(item, (int, np.integer)) and not isinstance(item, bool)


def holds_selection(args, kwargs) -> bool:
    """Whether a call's arguments (or their nested lists and tuples) hold a y[mask]."""
    return holds([*args, *kwargs.values()], Selection)


# --- reading and writing x[mask] -------------------------------------------------------

def gathers_by_selection(x, key) -> bool:
    """x[sel] with sel an integer selection (`x[indices[a:b]]`, a CSR row's
    neighbours; `x[idx[mask]]`) of a runtime array with rows to gather."""
    return isinstance(key, Selection) and key.dtype.kind in "iu" and \
        isinstance(x, Array) and x.ndim > 0 and x.shape[0] > 0


def gather(x, sel: Selection) -> Selection:
    """x[sel]: NumPy's gather is elementwise in the indices, so it is x
    gathered at every full-size index, selected by sel's mask, in sel's
    order.  The unselected rows gather row 0: their indices may be
    anything (a slice's neighbours, the -1 of a masked-out row) and must
    not fail the bounds check that the selected ones get."""
    from .indexing import getitem
    safe = where(_expanded(sel.mask, len(sel.rest)), sel.data, np.zeros((), sel.dtype))
    return Selection(getitem(x, safe), sel.mask, sliced=sel.sliced, descending=sel.descending)


def scatter(x, sel: Selection, value) -> None:
    """x[sel] = value: a scatter at every full-size index (scatter_key)."""
    from ..infer.builder import emit
    static, dropped, value = scatter_key(x, sel, value, "x[sel] = y[sel]")
    x.set(emit("setitem", x, value, dropped, key=static).var)


def scatter_key(x, sel: Selection, value, what: str):
    """x[sel] = value, np.add.at(x, sel, value): the scatter's (static key,
    index array, value) at every full-size index, the unselected ones moved
    past x's end, where the scatter drops them (their indices may be
    anything).  The selected ones get NumPy's bounds check.  The value: a
    number or an array of the trailing shape of x[sel]'s rows, or a
    selection by the same mask (its full-size rows); `what` names the use
    where the masks differ."""
    from .indexing import normalize_key, require_in_bounds
    if isinstance(value, Selection):
        _require_same_mask(value, sel.mask, what)
        value = value.data
    elif np.ndim(value) > len(sel.rest) + x.ndim - 1:
        raise refusal("assigning an array into x[idx[mask]] (an index array of runtime "
                      "length)", sel)
    mask = _expanded(sel.mask, len(sel.rest))
    index = astype(sel.data, np.int64)
    static, checked = normalize_key((where(mask, index, np.int64(0)),), x.shape)
    require_in_bounds(static, checked, x.shape)
    n = np.int64(x.shape[0])
    wrapped = where(index < 0, index + n, index)
    return static, where(mask, wrapped, n), value


def checked_mask(shape: tuple, mask, first_axis: int = 0):
    """NumPy's IndexErrors for a mask that does not fit the leading axes of
    `shape`, which are the axes of the indexed array from `first_axis` on
    (X[:, m]: 1), as NumPy's message numbers them."""
    if mask.ndim > len(shape):
        raise ShapeError(f"too many indices for array: array is {len(shape)}-dimensional, "
                         f"but {mask.ndim} were indexed")
    for axis, (n, m) in enumerate(zip(shape, mask.shape), first_axis):
        if n != m:
            raise ShapeError(f"boolean index did not match indexed array along axis {axis}; "
                             f"size of axis is {n} but size of corresponding boolean axis is {m}")
    return mask.var


def select(x, mask) -> Selection:
    """x[mask]: a selection holding a copy of x's values."""
    return Selection(Array(x.var), checked_mask(x.shape, mask))


def select_slice(x, slc: slice) -> Selection:
    """x[i:j:k] with runtime bounds: the selection of the rows of axis 0 the
    slice takes, as a view of x."""
    from .indexing import getitem
    return Selection(getitem(x, slice(None)), slice_mask(slc, x.shape[0]).var, view=slc,
                     descending=select_slice_order(slc))


def select_slice_order(slc: slice):
    """Whether a slice's rows run backwards: its step is negative (static,
    or a runtime bool)."""
    step = slc.step
    if step is None:
        return False
    return step < 0 if isinstance(step, Array) else bool(step < 0)


def assign_slice(x, slc: slice, value) -> None:
    """x[i:j:k] = value with runtime bounds: x[mask] = value.  A value that
    is a slice of the same bounds (x[:i] += 1 reads x[:i], updates it and
    stores it back) is known to have the same mask."""
    n = x.shape[0]
    if isinstance(value, Selection) and isinstance(value.view, slice) and \
            value.data.shape[0] == n and _same_bounds(value.view, slc):
        mask = Array(value.mask)
    else:
        mask = slice_mask(slc, n)
    assign(x, mask, value, bounds=True, descending=select_slice_order(slc))


def _same_bounds(a: slice, b: slice) -> bool:
    for p, q in ((a.start, b.start), (a.stop, b.stop), (a.step, b.step)):
        if isinstance(p, Array) or isinstance(q, Array):
            if not (isinstance(p, Array) and isinstance(q, Array) and same_value(p.var, q.var)):
                return False
        elif p != q:
            return False
    return True


def slice_mask(slc: slice, n: int):
    """A bool Array of length n: which indices of an axis of length n the
    slice takes, with Python's rules for bounds (slice.indices), whose
    start, stop and step may be runtime ints.  A runtime step of zero
    raises ValueError when the call returns, as NumPy does at once."""
    from ..infer import checks
    step = 1 if slc.step is None else slc.step
    if not isinstance(step, Array):
        return _slice_mask(slc.start, slc.stop, step, n, step > 0)
    checks.require(step != 0, "slice step cannot be zero", raises="ValueError")
    up = _slice_mask(slc.start, slc.stop, step, n, True)
    down = _slice_mask(slc.start, slc.stop, step, n, False)
    return where(step > 0, up, down)


def _slice_mask(start, stop, step, n: int, up: bool):
    """slice_mask for a step known to be positive (`up`) or negative."""
    from ..infer import builder
    lo, hi = (0, n) if up else (-1, n - 1)      # where PySlice_AdjustIndices clamps
    start = (lo if up else hi) if start is None else _clamped(start, n, lo, hi)
    stop = (hi if up else lo) if stop is None else _clamped(stop, n, lo, hi)
    j = Array(builder.const_value(np.arange(n)))
    inside = (start <= j) & (j < stop) if up else (stop < j) & (j <= start)
    return inside & ((j - start) % step == 0)


def _clamped(bound, n: int, lo: int, hi: int):
    """A slice bound as slice.indices adjusts it: negative counts from the
    end, then clamped to [lo, hi]."""
    if not isinstance(bound, Array):
        bound = int(bound)
        return min(max(bound + n if bound < 0 else bound, lo), hi)
    bound = astype(bound, np.int64)
    bound = where(bound < 0, bound + n, bound)
    return where(bound < lo, lo, where(bound > hi, hi, bound))


def assign(x, mask, value, bounds=False, descending=False) -> None:
    """x[mask] = value, as a select of the new values where the mask holds
    (`bounds`: the mask is a slice's with runtime bounds, x[i:j] = value,
    whose rows run backwards where `descending`)."""
    mask_value = checked_mask(x.shape, mask)
    rest = x.shape[mask.ndim:]
    if isinstance(value, boxes.Box):
        if mask.ndim != 1 or descending is not False:
            raise refusal("assigning x[i:j, k:l] into a selection by a multi-axis mask or a "
                          "backward slice", value)
        boxes.store(x, (mask,) + (None,) * len(rest), value)
        return
    if bounds and mask.ndim == 1 and _has_rows(value, len(rest)):
        value = _all_rows(value)
    if isinstance(value, Selection):
        if len(value.rest) != len(rest):
            raise refusal(f"assigning a selection of shape (k,)+{value.rest} into one of shape "
                          f"(k,)+{rest}", value)
        what = "x[mask] = y[other_mask]"
        target = _target_of(Selection(x, mask_value, descending=descending))
        if not _same_rows(value, target):
            target = _joined_target(target, value, _STORE, rest)
        new = _aligned(value, target, what, _STORE)
        value_rest = value.rest
    else:
        new = _as_operand(value)
        new, value_rest = _assigned_value(new, len(rest), sliced=bounds)
    if not _broadcasts_into(value_rest, rest):
        raise ShapeError(f"could not broadcast input array from shape (k,)+{value_rest} into "
                         f"shape (k,)+{rest} (x[mask] = values)")
    x.set(where(_expanded(mask_value, len(rest)), astype(new, x.dtype), x).var)


def _has_rows(value, ndim: int) -> bool:
    """Whether `x[i:j] = value` (ndim: len(rest)) pairs the slice's rows with
    the value's, a leading axis of static length other than 1 (`out[a:b] = s`,
    packing a ragged list): as many as the slice has, checked at run time."""
    if isinstance(value, Selection):
        return False
    shape = _shape(_as_operand(value))
    return len(shape) == ndim + 1 and shape[0] > 1


def _all_rows(value) -> Selection:
    """A value with a leading axis of static length as a selection of all
    its rows, to pair with a slice's in order (see `_aligned`)."""
    from ..infer.builder import const_value
    value = _as_operand(value)
    data = value if isinstance(value, Array) else Array(const_value(np.asarray(value)))
    return Selection(data, const_value(np.ones(data.shape[0], bool)))


def _as_operand(v):
    """A scalar or an array operand: Arrays and static scalars stay, lists
    become arrays (np.asarray)."""
    v = array_like(v)
    if isinstance(v, (list, tuple)):
        v = np.asarray(v)
    return v


def _shape(v) -> tuple:
    return tuple(v.shape) if hasattr(v, "shape") else ()


def _assigned_value(v, ndim: int, sliced=False):
    """The value of `x[mask] = v` with at most `ndim` (= len(rest)) axes, as
    NumPy's assignment broadcasts it into (k,) + rest: leading axes of length
    1 go (only a 0-d or 1-d value for a 1-d selection); a leading axis of
    another length would have to equal the runtime count k (`sliced`: the
    length of x[i:j] with runtime bounds)."""
    shape = _shape(v)
    if ndim == 0 and len(shape) > 1:
        raise ShapeError("NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                         f"input, input has {len(shape)} dimensions")
    drop = 0
    while len(shape) - drop > ndim and shape[drop] == 1:
        drop += 1
    return _drop_axes(v, shape, drop, ndim, "x[mask] = values", sliced=sliced)


def _operand(v, ndim: int, name: str, sel=None):
    """An operand of a ufunc on (k,) + rest (ndim = len(rest)) with at most
    ndim axes; one more leading axis of length 1 broadcasts against k."""
    shape = _shape(v)
    drop = 1 if len(shape) == ndim + 1 and shape[0] == 1 else 0
    return _drop_axes(v, shape, drop, ndim, f"np.{name} of x[mask] and an array", sel)


def _drop_axes(v, shape, drop: int, ndim: int, what: str, sel=None, sliced=False):
    if len(shape) - drop > ndim:
        if sliced or sel is not None and sel.sliced:
            raise ShapeError(f"{what.replace('x[mask]', 'x[i:j]')}: an array of shape {shape} "
                             "would have to match the length of a slice with runtime bounds, "
                             "which is data-dependent", hint=_SLICE_HINT)
        raise ShapeError(f"{what}: an array of shape {shape} would have to match the number "
                         "of True values in the mask, which is data-dependent",
                         hint="give the values the full shape and select with "
                              "x = np.where(mask, values, x)")
    return (reshape(v, shape[drop:]) if drop else v), shape[drop:]


def _expanded(mask: Value, extra: int):
    """The mask with `extra` trailing axes of length 1, to broadcast over rest."""
    m = Array(mask)
    return reshape(m, m.shape + (1,) * extra) if extra else m


# --- the same mask, or rows paired in order ---------------------------------------------

def _tail(rest: tuple) -> str:
    """The end of a shape (k,) + rest as NumPy's messages print it."""
    return ",)" if not rest else "," + ",".join(map(str, rest)) + ")"


# How the rows of selections by different masks pair: _BROADCAST (a ufunc:
# a one-row selection repeats against a longer one, on either side), _STORE
# (into the first: `y[k:] = x[j:]`, `y[k:] += x[j:]`, whose length stays;
# one row repeats), _EQUAL (np.dot: the lengths must be equal).
_BROADCAST, _STORE, _EQUAL = "broadcast", "store", "equal"


def _target_of(sel: Selection) -> tuple:
    """(mask Value, descending, row count) of the rows a result takes."""
    return sel.mask, sel.descending, _count(sel, ())


def _same_rows(sel: Selection, target: tuple) -> bool:
    return same_value(sel.mask, target[0]) and sel.descending is target[1]


def _joined_target(target: tuple, sel: Selection, how: str, rest: tuple) -> tuple:
    """The rows of the result of an operation on selections by `target` and
    by `sel`, as NumPy broadcasts (k,) against (1,): the longer's, or (how
    is _STORE or _EQUAL) target's; lengths that cannot pair raise NumPy's
    ValueError when the call returns (`rest`: the target's trailing shape,
    for its message)."""
    from .elementwise import _require
    mask, descending, count = target
    other = _count(sel, ())
    if how == _EQUAL:
        _require(count == other, ("shapes (", count, ",) and (", other, ",) not aligned: ",
                                  count, " (dim 0) != ", other, " (dim 0)"),
                 "ValueError", "the slices must have the same length")
        return target
    fits = (count == other) | (other == 1)
    if how == _STORE:
        _require(fits, ("could not broadcast input array from shape (", other,
                        _tail(sel.rest), " into shape (", count, _tail(rest)),
                 "ValueError", "the slices must have the same length, or one row")
        return target
    _require(fits | (count == 1), ("operands could not be broadcast together with shapes (",
                                   count, _tail(rest), " (", other, _tail(sel.rest)),
             "ValueError", "the slices must have the same length, or one row")
    longer = (count == 1) & (other != 1)
    if sel.descending is descending:
        order = descending
    else:
        order = where(longer, sel.descending, descending)
    mask, other_mask = padded_to_one_length(Array(mask), Array(sel.mask))
    return where(longer, other_mask, mask).var, order, where(longer, other, count)


def padded_to_one_length(*masks):
    """1-d masks of axes of different lengths (`x[:k] + y[:k]`, x longer than
    y) as masks of one length, the longest: the positions past an axis's end
    are never selected."""
    from .shape import concatenate
    n = max(m.shape[0] for m in masks)
    return tuple(m if m.shape[0] == n else
                 concatenate([m, np.zeros(n - m.shape[0], bool)])
                 for m in masks)


def _aligned(sel: Selection, target: tuple, what: str, how=_BROADCAST):
    """sel's full-size values with its rows where the target's are: the
    same values where the mask and order are the same; else sel's t-th row
    (in its order) where the target has its t-th, as NumPy pairs the rows of
    two arrays of one length (`x[:n - k] * x[k:]`, `y[k:] = x[:n - k]`,
    `np.dot(x[i::-1], h[:i + 1])`), its only row everywhere where it has
    one (broadcast)."""
    if _same_rows(sel, target):
        return sel.data
    if sel.rank != 1 or Array(target[0]).ndim != 1:
        _require_same_mask(sel, target[0], what)
    from .indexing import getitem
    return getitem(sel.data, rows_in_order((sel.mask, sel.descending, _count(sel, ())), target,
                                           repeat_one=how != _EQUAL))


def rows_in_order(own: tuple, target: tuple, repeat_one: bool):
    """For each position of the target's mask, the index (along the mask's
    axis) of the selected element of `own` that pairs with it: the t-th in
    own's order where the target has its t-th in its order (`repeat_one`:
    own's only element everywhere when it has one, as broadcasting repeats
    it).  own and target: (mask Value, descending, count); their axes may
    have different lengths.  Unselected positions of the target get some
    index in range, whose value never shows."""
    mask, descending, count = target
    own_mask, own_descending, own_count = own
    number = _numbers(Array(mask), descending, count)     # the target's rows, from 1
    if repeat_one:
        number = where(own_count == 1, 1, number)
    # own's element of that number, counted from its first selected position
    ascending = _in_order(number, own_descending, own_count)
    taken = NUMPY[np.cumsum](astype(Array(own_mask), np.int64))
    rows = NUMPY[np.searchsorted](taken, ascending)
    return NUMPY[np.minimum](rows, Array(own_mask).shape[0] - 1)   # (past its last: unselected)


def _numbers(mask, descending, count):
    """Each selected position's row number, from 1, in the selection's order."""
    up = NUMPY[np.cumsum](astype(mask, np.int64))
    return _in_order(up, descending, count)


def _in_order(number, descending, count):
    """Row numbers counted from the other end where the rows run backwards:
    the t-th of k from the first is the (k + 1 - t)-th from the last."""
    if descending is False:
        return number
    down = count + 1 - number
    return down if descending is True else where(descending, down, number)


def _require_same_mask(sel: Selection, mask: Value, what: str) -> None:
    if not same_value(sel.mask, mask):
        differ = ("with different runtime bounds (such as x[:n - k] and x[k:])"
                  if sel.sliced else "with two different masks (or a mask changed in between)")
        raise refusal(f"{what} {differ}", sel)


def same_value(a: Value, b: Value, depth: int = 40, memo: dict | None = None) -> bool:
    """Whether two Values are equal by construction: the same Value, or made
    by the same op with the same attributes from equal inputs (SSA values
    never change, and registry ops are pure).  `x > 2` written twice gives
    two Values that are the same mask (a runtime slice's mask, x[:i] and
    y[:i], is 9 ops deep; bounds such as `n - 2 * (t + 1) - 1` add theirs).  `memo`: pairs already compared, so that
    an input used several times is compared once."""
    if a is b:
        return True
    memo = {} if memo is None else memo
    if (id(a), id(b)) not in memo:
        memo[id(a), id(b)] = _same_value(a, b, depth, memo)
    return memo[id(a), id(b)]


def _same_value(a: Value, b: Value, depth: int, memo: dict) -> bool:
    if depth == 0 or a.aval != b.aval:
        return False
    op_a, op_b = _producer(a), _producer(b)
    if op_a is None or op_b is None or op_a.name != op_b.name or op_a.regions or op_b.regions:
        return False
    if op_a.name == "const":
        x, y = op_a.attr("value").array, op_b.attr("value").array
        return x.dtype == y.dtype and x.shape == y.shape and bool(np.all(
            (x == y) | (x != x) & (y != y)))
    if op_a.attrs != op_b.attrs or len(op_a.inputs) != len(op_b.inputs):
        return False
    if op_a.outputs.index(a) != op_b.outputs.index(b):
        return False
    return all(same_value(p, q, depth - 1, memo) for p, q in zip(op_a.inputs, op_b.inputs))


def _producer(value: Value):
    """The op of an open region that defines `value` (None for a parameter).
    A linear search, done only when two masks are different Values."""
    from ..infer import builder
    for region in reversed(builder.ctx().regions):
        for op in reversed(region.ops):
            if any(o is value for o in op.outputs):
                return op
    return None


# --- elementwise ------------------------------------------------------------------------

def elementwise(fn, operands: tuple, kwargs=None, how=_BROADCAST, what: str | None = None):
    """A ufunc on selections, scalars and arrays of their trailing shape:
    the ufunc on the full-size values, selected by the same mask; the rows
    of selections by other masks paired in order (`_aligned`; `how`: as
    there, _STORE for an in-place operator, _EQUAL for a product).  A
    selection among the keywords (np.clip(a, a_max=y[m])) pairs alike.  A
    function that is not a ufunc (np.round, np.nan_to_num, np.where, or an
    array method's implementation, x[m].round) is applied the same way
    where it turns out to be elementwise (`_elementwise_result`), else its
    E200 names it as `what` says (default: np.<name> of x[mask]).  A
    ufunc of several outputs (np.frexp) gives a tuple of selections."""
    kwargs = kwargs or {}
    arguments = (*operands, *kwargs.values())
    if any(isinstance(v, boxes.Box) for v in arguments):
        if how != _BROADCAST:
            raise refusal("updating x[i:j] in place by a slice with runtime bounds on another "
                          "axis", first_selection(operands))
        return boxes.elementwise(fn, operands, kwargs)
    sel = next(v for v in arguments if isinstance(v, Selection))
    if how == _BROADCAST and any(_widens(v, sel) for v in operands):
        return boxes.elementwise(fn, operands, kwargs)
    name = getattr(fn, "__name__", "the operation")
    what = what or f"np.{name} of x[mask]"
    target = _target_of(sel)
    for v in arguments:
        if isinstance(v, Selection):
            if len(v.rest) != len(sel.rest):
                raise refusal(f"np.{name} of selections of shapes (k,)+{sel.rest} and "
                              f"(k,)+{v.rest}", sel)
            if not _same_rows(v, target):
                if v.rank != 1 or sel.rank != 1:
                    _require_same_mask(v, target[0], f"np.{name} of selections")
                target = _joined_target(target, v, how, sel.rest)
    ufunc = isinstance(fn, np.ufunc)

    def value(v):
        if isinstance(v, Selection):
            return _aligned(v, target, f"np.{name} of selections", how)
        if ufunc:
            return _operand(_as_operand(v), len(sel.rest), name, sel)[0]
        if not _fits_rows(v, len(sel.rest)):
            raise refusal(what, sel)
        return v

    if not ufunc and kwargs.get("out") is not None:    # (out=x[m]: _ufunc_into)
        raise refusal(f"{what} with out= an array of another shape", sel)
    values = [value(v) for v in operands]
    keywords = {k: value(v) if isinstance(v, Selection) or not ufunc else v
                for k, v in kwargs.items()}
    if ufunc:
        result = NUMPY[fn](*values, **keywords)
    else:
        result = _elementwise_result(NUMPY[fn] if _hashable(fn) and fn in NUMPY else fn, values,
                                     keywords)
        if result is None:
            raise refusal(what, sel)
    return _selected_like(result, target, sel)


def _selected_like(result, target: tuple, sel: Selection):
    """The full-size result (a tuple of them: np.frexp, np.divmod) selected
    by the target's rows."""
    if isinstance(result, tuple):
        return tuple(_selected_like(r, target, sel) for r in result)
    return Selection(result, target[0], sliced=sel.sliced, descending=target[1])


def _fits_rows(v, ndim: int) -> bool:
    """Whether an argument beside a selection of (k,) + rest (ndim =
    len(rest)) broadcasts against its rows' trailing shape: a number or
    anything else that is not an array, or an array of at most ndim axes
    after a leading 1.  (A longer one would have to match the runtime k.)"""
    if not isinstance(v, (Array, np.ndarray, list, tuple)):
        return True
    shape = _shape(_as_operand(v))
    drop = 1 if len(shape) == ndim + 1 and shape[0] == 1 else 0
    return len(shape) - drop <= ndim


def _elementwise_result(impl, values: list, kwargs: dict):
    """impl (a NumPy function's or array method's implementation) on the
    full-size values, where it is elementwise as a ufunc is: every op it
    emits computes each element from the same elements of its operands
    (registry.maps_elements: np.round, np.nan_to_num, np.isclose and
    np.where are made of ufuncs, selects and casts), and each result has
    the operands' broadcast shape.  Then the result selected by the mask is
    impl of the selection, whatever the unselected values hold.  None where
    it is not: a sort, a sum or a cumulative op reads other elements, a
    check would test the unselected ones, a reshape moves them.  An error
    about the full-size values' shape or contents (np.split of n rows, not
    of k) is none of the selection's: None too; one about dtypes stands."""
    ops = ctx().region.ops
    start = len(ops)
    try:
        result = impl(*values, **kwargs)
    except (ShapeError, UserCodeError) as error:
        if error.message.startswith("TypeError"):
            raise
        return None
    shapes = [v.shape for v in (*values, *kwargs.values()) if isinstance(v, (Array, np.ndarray))]
    try:
        shape = broadcast_shapes(*shapes)
    except ValueError:
        return None
    results = result if isinstance(result, tuple) else (result,)
    if not results or not all(isinstance(r, Array) and r.shape == shape for r in results):
        return None
    if not all(maps_elements(op.name) and not op.regions for op in ops[start:]):
        return None
    return result


def _widens(v, sel: Selection) -> bool:
    """Whether v, beside the selection in a ufunc, has more axes than it and
    not just a leading 1: `x[:n] < lengths[:, None]` broadcasts to (B, k),
    the selected axis no longer first, so the result is a boxes.Box."""
    if isinstance(v, Selection):
        return False
    shape = _shape(_as_operand(v))
    extra = len(shape) - 1 - len(sel.rest)
    return extra > 0 and any(n != 1 for n in shape[:extra])


def install_operators():
    """Python operators on selections; `s OP= v` updates the selection's own
    values with NumPy's same_kind rule.  And the array methods of their own
    (x[m].round(2), x[m].clip(0, 1)), now that every op module has defined
    its Array methods."""
    install_on(Selection, elementwise, _inplace_operator, product, _inplace_matmul)
    for name in ARRAY_METHODS:
        METHODS.setdefault(name, _elementwise_method(name))


def _elementwise_method(name: str):
    """x[m].<name>(...): the array method's implementation where it is
    elementwise on the full-size values (elementwise), else the E200 of
    x[mask].<name>.  (Its signature is the implementation's, by which the
    call's arguments are bound as an array's.)"""
    impl = ARRAY_METHODS[name]

    @functools.wraps(impl)
    def call(sel, *args, **kwargs):
        return elementwise(impl, (sel, *args), kwargs, what=f"x[mask].{name}")
    return call


def install_on(cls, apply, inplace, multiply, inplace_matmul):
    """Python's array operators on a class of selections (this module's, or
    boxes.Box): `apply(ufunc, operands)`, `inplace(ufunc, a, b)` for OP=,
    `multiply(np.matmul, a, b)` for @ and `inplace_matmul(a, b)` for @=."""
    for stem, ufname in OPERATORS.items():
        if ufname is not None:
            uf = getattr(np, ufname)
            setattr(cls, f"__{stem}__", lambda a, b, uf=uf: apply(uf, (a, b)))
            setattr(cls, f"__r{stem}__", lambda a, b, uf=uf: apply(uf, (b, a)))
            setattr(cls, f"__i{stem}__", lambda a, b, uf=uf: inplace(uf, a, b))
    for stem, ufname in COMPARISONS.items():
        setattr(cls, f"__{stem}__", lambda a, b, uf=getattr(np, ufname): apply(uf, (a, b)))
    for stem, ufname in UNARY_OPERATORS.items():
        setattr(cls, f"__{stem}__", lambda a, uf=getattr(np, ufname): apply(uf, (a,)))
    cls.__matmul__ = lambda a, b: multiply(np.matmul, a, b)
    cls.__rmatmul__ = lambda a, b: multiply(np.matmul, b, a)
    cls.__imatmul__ = inplace_matmul


def _inplace_operator(uf, a: Selection, b):
    """`s OP= v`: the selection's values updated; through a view only the
    selected elements of the array it views change."""
    result = elementwise(uf, (a, b), how=_STORE).data
    if a.view is not None:
        result = where(_expanded(a.mask, len(a.rest)), result, a.data)
    store_inplace(a.data, result, uf.__name__)
    return a


def _inplace_matmul(a: Selection, b):
    """`rows @= M` (rows = x[k:], a view): the selected rows of x become
    their products with M, whose result must keep their shape, as NumPy's
    in-place matmul requires."""
    result = product(np.matmul, a, b)
    if not isinstance(result, Selection) or isinstance(result, boxes.Box) or \
            result.data.shape != a.data.shape:
        raise ShapeError("inplace matrix multiplication: the product must keep the shape of "
                         f"the selected rows, (k,)+{a.rest}")
    store_inplace(a.data, where(_expanded(a.mask, len(a.rest)), result.data, a.data), "matmul")
    return a


# --- products ---------------------------------------------------------------------------

def product(fn, a, b):
    """x[:i] @ y[:i], np.dot of two 1-d selections by one mask: the sum of
    the selected products (forward substitution's `L[i][:i] @ x[:i]`);
    rows x[:i] (k, m) @ w: the selection of the rows' products; np.dot of
    a selection and a scalar: their product."""
    if boxes.involves_box(a, b):
        return boxes.product(fn, a, b)
    sa, sb = isinstance(a, Selection), isinstance(b, Selection)
    sel = a if sa else b
    if sa and sb and not a.rest and not b.rest:
        if a.dtype == np.bool_ and b.dtype == np.bool_:
            # NumPy's dot of bools: whether any pair is both True (a pattern
            # row times a pattern vector)
            return reduce("any", elementwise(np.logical_and, (a, b), how=_EQUAL))
        if fn is np.vdot:               # the first conjugated (a real one is itself)
            a = elementwise(np.conjugate, (a,))
        products = elementwise(np.multiply, (a, b), how=_EQUAL)
        return reduce("sum", products, dtype=products.dtype)    # (a dot keeps int32)
    if fn is np.dot and (np.ndim(b) == 0 if sa else np.ndim(a) == 0):
        return elementwise(np.multiply, (a, b))
    if sa and not sb and a.rest and fn is not np.vdot and np.ndim(b) in (1, 2):
        return a.like(NUMPY[fn](a.data, b))
    return _refuse_call(fn, (a, b))


def outer(a, b, out=None):
    """np.outer(x[i:], row) (Gaussian elimination's rank-one update): the
    rows of the outer product of the full-size values that the mask
    selects; other slices' (boxes.outer) select columns too."""
    if isinstance(b, Selection) or isinstance(a, boxes.Box) or not isinstance(a, Selection):
        return boxes.outer(a, b, out)
    if not isinstance(a, Selection) or a.rest or a.rank != 1 or out is not None or \
            isinstance(b, Selection):
        return _refuse_call(np.outer, (a, b))
    return a.like(NUMPY[np.outer](a.data, b))


# --- reductions -------------------------------------------------------------------------

def _identity(name: str, dtype: np.dtype):
    """The value that leaves the reduction unchanged, in `dtype`."""
    if name in ("max", "min"):
        if dtype.kind == "c":
            raise UnsupportedError(f"np.{name} of a complex selection x[mask] is not supported")
        if dtype.kind == "b":
            return np.bool_(name == "min")
        if dtype.kind == "f":
            return dtype.type(-np.inf if name == "max" else np.inf)
        info = np.iinfo(dtype)
        return dtype.type(info.min if name == "max" else info.max)
    return dtype.type(1 if name in ("prod", "all") else 0)


def _reduced_axes(sel: Selection, axis):
    """None (the whole selection) or the axes of `sel.data` that a reduction
    over `axis` (an int or a tuple of the selection's axes) reduces: the
    mask's axes for its first, the trailing ones after them.  The first axis
    must be among them, else the result would keep the selected rows."""
    ndim = 1 + len(sel.rest)
    axes = normalize_axes(axis, ndim)
    if axes is None or len(axes) == ndim:
        return None
    if axes[0] != 0:
        raise refusal(f"reducing x[mask] over axis {axis} (the result keeps the selected rows)",
                      sel)
    return tuple(range(sel.rank)) + tuple(sel.rank - 1 + a for a in axes[1:])


def _filled(sel: Selection, name: str):
    return where(_expanded(sel.mask, len(sel.rest)), sel.data, _identity(name, sel.dtype))


def _count(sel: Selection, axes):
    """The number of elements each result element reduces (an int64 Array)."""
    rows = ARRAY_METHODS["sum"](Array(sel.mask), dtype=np.int64)
    shape = sel.data.shape
    per_row = int(np.prod([shape[a] for a in range(sel.rank, len(shape))
                           if axes is None or a in axes], dtype=np.int64))
    return rows * per_row if per_row != 1 else rows


def _keepdims(sel: Selection, out, axes):
    kept = tuple(1 if axes is None or sel.rank + i in axes else n
                 for i, n in enumerate(sel.rest))
    return reshape(out, (1,) + kept)


def reduce(name: str, sel: Selection, axis=None, *, dtype=None, out=None, keepdims=False,
           **kw):
    """np.<name>(x[mask], axis) over everything or axes that include the
    first: the reduction of the full-size values with the unselected ones
    replaced by its identity.  `where=` (a selection by the same mask, or an
    array of the trailing shape) replaces more of them."""
    if isinstance(sel, boxes.Box):
        return boxes.reduce(name, sel, axis, dtype=dtype, out=out, keepdims=keepdims, **kw)
    initial = kw.pop("initial", None) if name in _WITH_INITIAL else None
    wanted = kw.pop("where", True) if name != "count_nonzero" else True
    if out is not None or kw:
        raise UnsupportedError(f"np.{name} of x[mask]: unsupported arguments "
                               f"{sorted(kw) + (['out'] if out is not None else [])}")
    where_values = None
    if wanted is not True:
        sel, where_values = _where_selected(name, sel, wanted, initial)
    if initial is not None:         # as if one more element held it
        from .indexing import check_python_item
        result = _reduce(name, sel, axis, dtype, keepdims, where_values)
        # NumPy converts it as an item of the result's dtype: 300 into uint8,
        # 1e30, inf or NaN into an integer raise (OverflowError, ValueError)
        check_python_item(initial, result.dtype)
        initial = (astype(initial, result.dtype) if isinstance(initial, Array)
                   else np.asarray(initial).astype(result.dtype))
        return NUMPY[_WITH_INITIAL[name]](result, initial)
    if name in ("max", "min"):
        from ..infer import checks
        checks.require(_count(sel, None) > 0, "zero-size array to reduction operation "
                       f"{_UFUNC_NAMES[name]} which has no identity", raises="ValueError")
    return _reduce(name, sel, axis, dtype, keepdims, where_values)


def _where_selected(name: str, sel: Selection, wanted, initial):
    """x[:i].sum(where=w): the selection with the elements w leaves out
    replaced by the reduction's identity, and w's full-size values (by which
    a mean counts)."""
    if name in ("max", "min") and initial is None:
        raise UserCodeError(f"ValueError: reduction operation '{_UFUNC_NAMES[name]}' does not "
                            "have an identity, so to use a where mask one has to specify "
                            "'initial'")
    if isinstance(wanted, Selection):
        _require_same_mask(wanted, sel.mask, f"np.{name}(where=...) of selections")
        values = wanted.data
    else:
        values = _operand(_as_operand(wanted), len(sel.rest), name, sel)[0]
    kind = values.dtype if hasattr(values, "dtype") else np.asarray(values).dtype
    if kind != np.bool_:
        raise UserCodeError(f"TypeError: Cannot cast array data from dtype('{kind}') to "
                            "dtype('bool') according to the rule 'safe' (where=)")
    values = NUMPY[np.broadcast_to](values, sel.data.shape)
    data = where(values, sel.data, _identity(name, sel.dtype))
    return sel.like(data), values


def _reduce(name, sel, axis, dtype, keepdims, where_values=None):
    axes = _reduced_axes(sel, axis)
    if name == "mean":
        result = _mean(sel, axes, dtype, where_values)
    elif name == "count_nonzero":
        result = NUMPY[np.count_nonzero](_filled(sel, name), axis=axes)
    else:
        extra = {"dtype": dtype} if name in ("sum", "prod") else {}
        result = ARRAY_METHODS[name](_filled(sel, name), axis=axes, **extra)
    return _keepdims(sel, result, axes) if keepdims else result


def _mean(sel: Selection, axes, dtype, where_values=None):
    """NumPy's mean: the sum in the accumulation dtype (float32 for float16),
    divided by the count in that dtype, cast to the result dtype.  With
    where=, the count is of the selected elements it keeps."""
    out = reductions._np_dtype(np.mean, sel.dtype, None if dtype is None else np.dtype(dtype))
    acc = np.dtype(np.float32) if out == np.float16 else out
    total = ARRAY_METHODS["sum"](_filled(sel, "sum"), axis=axes, dtype=acc)
    if where_values is None:
        count = _count(sel, axes)
    else:
        kept = NUMPY[np.logical_and](_expanded(sel.mask, len(sel.rest)), where_values)
        count = ARRAY_METHODS["sum"](kept, axis=axes, dtype=np.int64)
    result = astype(total / astype(count, acc), out, copy=False)
    if result.ndim == 0:
        result.immutable = True     # a NumPy scalar, as NumPy's mean gives
    return result


_UFUNC_NAMES = {"max": "maximum", "min": "minimum"}

# Reductions whose `initial=` joins the result by their own ufunc.
_WITH_INITIAL = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}

_REDUCTIONS = {np.sum: "sum", np.prod: "prod", np.max: "max", np.amax: "max", np.min: "min",
               np.amin: "min", np.mean: "mean", np.any: "any", np.all: "all",
               np.count_nonzero: "count_nonzero"}


# --- attributes, methods and NumPy functions ----------------------------------------------

def length(sel: Selection):
    """len(x[mask]): the runtime number of True values, a Python int."""
    if isinstance(sel, boxes.Box):
        return boxes.length(sel)
    from ..infer.builtins_impl import to_python_scalar
    n = to_python_scalar(_count(sel, ()), np.int64)
    ctx().selection_lengths[n.var] = sel
    return n


def refuse_length_as_size(values, what: str) -> None:
    """Where one of `values`, needed as a static size (`what`: "as
    np.arange's bound"), is the runtime length of a selection
    (`np.arange(logits.shape[0])` in nn.cross_entropy of a minibatch
    x[i:i + 2]): the selection's E200, placed at the line that made it,
    which is the one to change (to a window with a clipped start), rather
    than blaming the size's user."""
    c = ctx()
    for v in values:
        sel = c.selection_lengths.get(v.var) if isinstance(v, Array) else None
        if sel is not None:
            raise refusal(f"x[mask], made here, has its length used {what} {_used_at(c)}",
                          sel).with_loc(sel.made_at)


def _used_at(c) -> str:
    """`at line 7`, the program's line being run, and the library line
    under it that runs now, if any (`in nn.py:256`)."""
    placed = [f for f in c.frames if f.placed and f.current is not None]
    user = placed[-1].current.loc if placed else c.loc
    if user is None:
        return "here"
    where = f"at line {user.line}"
    inner = c.frames[-1] if c.frames else None
    if inner is not None and not inner.placed and inner.current is not None:
        where += f" (in {os.path.basename(inner.current.loc.file)}:{inner.current.loc.line})"
    return where


def attribute(sel: Selection, name: str):
    """x[mask].<name>: static facts, runtime counts, or a method to call."""
    if isinstance(sel, boxes.Box):
        return boxes.attribute(sel, name)
    from ..infer.builtins_impl import to_python_scalar
    from ..infer.calls import BoundArrayMethod
    if name == "dtype":
        return sel.dtype
    if name == "ndim":
        return 1 + len(sel.rest)
    if name == "size":
        return to_python_scalar(_count(sel, None), np.int64)
    if name == "shape":
        return (length(sel),) + sel.rest
    if name == "T" and _transposable(sel):
        return transposed_slice(sel)
    if name in METHODS:
        return BoundArrayMethod(sel, name)
    if name in _PARTS:
        return elementwise(_PARTS[name], (sel,))
    if not hasattr(np.ndarray, name):      # x[m].ptp (gone in NumPy 2): what NumPy raises
        raise UserCodeError(f"AttributeError: 'numpy.ndarray' object has no attribute '{name}'")
    raise refusal(f"x[mask].{name}", sel)


def _sliced_rows(x) -> bool:
    """x[i:j] of a runtime slice (a view of x's rows), not x[mask]."""
    return isinstance(x, Selection) and not isinstance(x, boxes.Box) and \
        isinstance(x.view, slice)


def _transposable(x) -> bool:
    """x[i:j] (a view), or a result computed from its rows in order
    (x[:n] - m): its transpose is a Box with the rows' mask on its last axis."""
    return _sliced_rows(x) or isinstance(x, Selection) and not isinstance(x, boxes.Box) and \
        x.rank == 1 and x.descending is False


def _transpose_method(sel, *axes):
    if axes not in ((), (None,)) or not _transposable(sel):
        raise refusal("x[mask].transpose(axes)", sel)
    return transposed_slice(sel)


def transposed_slice(sel: Selection):
    """x[i:j].T with runtime bounds: the view x.T[..., i:j], the runtime
    slice on the last axis (a boxes.Box, as NumPy's transpose of the view)."""
    from .indexing import getitem
    if not sel.rest:
        return sel
    flipped = ARRAY_METHODS["transpose"](sel.data)
    if not _sliced_rows(sel):       # a copy: its values by the rows' mask, now the last axis
        return boxes.boxed(flipped, (None,) * len(sel.rest) + (Array(sel.mask),),
                           sliced=sel.sliced)
    return getitem(flipped, (slice(None),) * len(sel.rest) + (sel.view,))


# x[:k].real and .imag: the parts of the selected values (copies here: a
# write into one is refused, as assigning into x[mask]'s attributes is).
_PARTS = {"real": np.real, "imag": np.imag}


def _astype(sel: Selection, dtype, order="K", casting="unsafe", subok=True, copy=True):
    check_astype(sel.data, dtype, order, casting)
    if not copy and np.dtype(dtype) == sel.dtype:
        return sel                  # NumPy's own array: a view stays a view
    return sel.like(astype(sel.data, dtype))


def _copy(sel: Selection, order="K"):
    return sel.like(Array(sel.data.var))


# New arrays of an array's shape: of a selection, as many rows (np.ones_like(t)
# in a np.piecewise function, which gets x[cond]).
_LIKE = (np.zeros_like, np.ones_like, np.empty_like, np.full_like)


def _like(fn, sel: Selection, *args, **kwargs):
    return sel.like(NUMPY[fn](sel.data, *args, **kwargs))


METHODS = {name: (lambda n: lambda sel, *a, **k: reduce(n, sel, *a, **k))(name)
           for name in ("sum", "prod", "max", "min", "mean", "any", "all")}
METHODS.update(astype=_astype, copy=_copy, dot=lambda sel, b: product(np.dot, sel, b),
               conj=lambda sel: elementwise(np.conjugate, (sel,)),
               conjugate=lambda sel: elementwise(np.conjugate, (sel,)))
METHODS.update(fill=_fill)
METHODS.update(argmax=lambda sel, *a, **k: arg_extreme("argmax", sel, *a, **k),
               argmin=lambda sel, *a, **k: arg_extreme("argmin", sel, *a, **k))


def arg_extreme(name: str, sel: Selection, axis=None, out=None, *, keepdims=False):
    """np.argmax(x[:i]) (the pivot search of Gaussian elimination), of a 1-d
    selection: the position, among the selected elements in order, of the
    first largest (or smallest; NaN first, as NumPy's).  Unselected
    elements are filled with the reduction's identity, and if every
    selected one equals it, the first selected wins.  A selection whose
    rows run backwards (x[k::-1]) looks for it from the last position.  An
    empty selection raises NumPy's ValueError when the call returns."""
    from ..infer import checks
    if axis not in (None, 0, -1) or out is not None or keepdims or sel.rest or sel.rank != 1:
        raise refusal(f"np.{name} of x[mask] (other than of a 1-d selection)", sel)
    count = _count(sel, None)
    checks.require(count > 0, f"attempt to get {name} of an empty sequence",
                   raises="ValueError")
    mask = Array(sel.mask)
    filled = where(mask, sel.data, _identity(name[3:], sel.dtype))
    taken = NUMPY[np.cumsum](astype(mask, np.int64))    # each position's number, from 1
    if sel.descending is not True:
        forward = taken[_first_extreme(name, filled, mask)] - 1
    if sel.descending is not False:
        flip = NUMPY[np.flip]
        last = mask.shape[0] - 1 - _first_extreme(name, flip(filled), flip(mask))
        backward = count - taken[last]
    index = forward if sel.descending is False else backward if sel.descending is True \
        else where(sel.descending, backward, forward)
    index.immutable = True          # a NumPy scalar, as NumPy's argmax gives
    return index


def _first_extreme(name: str, filled, mask):
    """Where np.<name> of the filled values is, or the first selected
    position where every selected value is the filling identity."""
    position = NUMPY[getattr(np, name)](filled)
    return where(mask[position], position, NUMPY[np.argmax](mask))


def numpy_call(fn, args, kwargs):
    """A NumPy function given a selection: ufuncs and the reductions above."""
    if holds([*args, *kwargs.values()], boxes.Box):
        return boxes.numpy_call(fn, args, kwargs)
    if fn in _PRODUCTS and len(args) == 2 and not kwargs:     # (matmul and vecdot: ufuncs)
        return product(fn, *args)
    if writes_out(fn) and isinstance(_only_out(kwargs), Selection):
        return _ufunc_into(fn, args, kwargs)
    if isinstance(fn, np.ufunc) and fn in NUMPY:
        return elementwise(fn, tuple(args), kwargs)
    if any(fn is f for f in _ROW_WISE.values()) and args and isinstance(args[0], Selection):
        kept = _rows_kept(fn, args[0], args[1:], kwargs)
        if kept is not None:
            return kept
    name = next((n for f, n in _REDUCTIONS.items() if f is fn), None)    # fn may be unhashable
    if name is not None and args and isinstance(args[0], Selection) and \
            not holds_selection(args[1:], {k: v for k, v in kwargs.items() if k != "where"}):
        return reduce(name, *args, **kwargs)
    if _is_ufunc_at(fn) and args and isinstance(args[0], Selection):
        return _at_rows(fn, args, kwargs)
    if _is_ufunc_at(fn) and len(args) == 3 and not kwargs and holds_selection(args[1:2], {}):
        return NUMPY[fn](*args)         # np.add.at(a, idx[mask], v): ufuncs.py, at_selected
    taken = _taken_by_selection(fn, args, kwargs)
    if taken is not None:
        return taken
    picked = _rows_picked(fn, args, kwargs)
    if picked is not None:
        return picked
    ufunc = getattr(fn, "__self__", None)
    if isinstance(ufunc, np.ufunc) and fn.__name__ == "reduce" and args and \
            isinstance(args[0], Selection):
        from . import ufuncs        # (it imports indexing, which imports this module)
        if ufuncs.reduces_as_reduction(ufunc):
            return ufuncs.reduce_by(ufunc, _call_on_selections)(*args, **kwargs)
    if fn is np.copyto:
        return _copyto(*args, **kwargs)
    if fn is np.putmask:
        return _putmask(*args, **kwargs)
    if isinstance(ufunc, np.ufunc) and ufunc in rows.ACCUMULATING and \
            fn.__name__ == "accumulate" and args and \
            isinstance(args[0], Selection):
        return rows.accumulate(ufunc, *args, **kwargs)
    in_order = next((r for f, r in rows.FUNCTIONS.items() if f is fn), None)
    if in_order is not None and args and isinstance(args[0], Selection):
        return in_order(*args, **kwargs)
    statistic = next((s for f, s in statistics.FUNCTIONS.items() if f is fn), None)
    if statistic is not None and args and isinstance(args[0], (Selection, str)):   # (einsum)
        return statistic(*args, **kwargs)
    if fn is np.copy and args and isinstance(args[0], Selection):
        return _copy(*args, **kwargs)
    if any(fn is f for f in _LIKE) and args and isinstance(args[0], Selection) and \
            kwargs.get("shape") is None and not holds_selection(args[1:], kwargs):
        return _like(fn, *args, **kwargs)
    if fn is np.outer:
        return outer(*args, **kwargs)
    if fn is np.transpose and len(args) == 1 and not kwargs and _transposable(args[0]):
        return transposed_slice(args[0])
    if fn in (np.argmax, np.argmin) and args and isinstance(args[0], Selection):
        return arg_extreme(fn.__name__, *args, **kwargs)
    if fn is np.concatenate:
        return _concatenated(args, kwargs)
    if _maybe_elementwise(fn, args, kwargs):
        return elementwise(fn, tuple(args), kwargs)     # (or its refusal: np.sort of x[mask])
    return _refuse_call(fn, args)


def _maybe_elementwise(fn, args, kwargs) -> bool:
    """Whether a NumPy function given a selection may be elementwise, as
    tpucc's implementation of it shows when applied (elementwise): a
    function of NumPy's own (not a ufunc's method, nor tpucc.nn's) with a
    selection among its arguments, not inside a list (np.stack([x[m]]))."""
    return _hashable(fn) and fn in NUMPY and not isinstance(fn, np.ufunc) and \
        not isinstance(getattr(fn, "__self__", None), np.ufunc) and \
        getattr(fn, "__module__", "") != "tpucc.nn" and \
        any(isinstance(v, Selection) for v in (*args, *kwargs.values()))


def _concatenated(args, kwargs):
    """np.concatenate([x[h:], x[:h]]) has n rows (masked_rows.joined);
    other joins of runtime-length pieces have data-dependent shapes."""
    result = rows.joined(*args, **kwargs) if "out" not in kwargs else None
    if result is not None:
        return result
    error = refusal("np.concatenate of x[mask]", first_selection(args))
    if error.hint == _SLICE_HINT:
        error.hint = ("a ring buffer in time order is np.concatenate([x[h:], x[:h]]) (two "
                      "pieces split at the same runtime h: it compiles) or np.roll(x, -h); "
                      + _SLICE_HINT)
    raise error


_PRODUCTS = (np.dot, np.matmul, np.inner, np.vdot, np.vecdot)


def _call_on_selections(fn, args, kwargs):
    """NumPy's fn: this module's where a selection is among the arguments."""
    if holds_selection(args, kwargs):
        return numpy_call(fn, args, kwargs)
    return NUMPY[fn](*args, **kwargs)


def _hashable(fn) -> bool:
    return getattr(fn, "__hash__", None) is not None


def _is_ufunc_at(fn) -> bool:
    return isinstance(getattr(fn, "__self__", None), np.ufunc) and fn.__name__ == "at"


def _at_rows(fn, args, kwargs):
    """np.add.at(x[k:], idx, v): the update at the rows' positions in the
    full-size values (a view: through a slice's, into x), as
    _rows_picked finds them."""
    key = args[0]._row_key(args[1]) if len(args) > 1 and \
        not holds_selection(args[1:], kwargs) else None
    if key is None:
        return _refuse_call(fn, args)
    return NUMPY[fn](args[0].data, key, *args[2:], **kwargs)


def at_selected(name: str, indices, values, shape: tuple, identity):
    """np.add.at(a, idx[mask], v) (counting only the selected indices, a
    filtered histogram), for an `a` of `shape`: every full-size index
    updates a, so the update has a static shape, and the unselected ones
    apply the ufunc's `identity` (a 0-d array of the update's loop dtype),
    which leaves their elements as they are.  Their indices become 0: what
    they hold (a -1 of a missing neighbour) must not fail the bounds check
    that the selected ones get.  `indices`: a selection of integers, or a
    tuple of them by the same mask (one per leading axis of a); `values`:
    a number or an array that broadcasts against the selected part without
    its row axis, or a selection whose rows pair with the indices' rows.
    Returns the full-size (indices, values) for the ufunc's own .at."""
    what = f"np.{name}.at(a, idx[mask], v)"
    items = indices if isinstance(indices, tuple) else (indices,)
    sel = items[0] if items else None
    if not all(isinstance(i, Selection) and not isinstance(i, boxes.Box) and
               i.dtype.kind in "iu" and i.rest == sel.rest and i.descending is sel.descending
               for i in items):
        raise refusal(f"np.{name}.at with an index other than integer selections by one "
                      "mask (idx[mask] or (i[mask], j[mask]))", first_selection(items))
    for other in items[1:]:
        _require_same_mask(other, sel.mask, f"{what} with index arrays selected")
    rest = sel.rest + tuple(shape[len(items):])     # of each selected row of a[idx]
    mask = _expanded(sel.mask, len(rest))
    full = tuple(where(_expanded(sel.mask, len(sel.rest)), i.data, np.zeros((), i.dtype))
                 for i in items)
    values = _values_per_row(values, sel, rest, name)
    return (full if isinstance(indices, tuple) else full[0]), where(mask, values, identity)


def _broadcasts_into(shape: tuple, target: tuple) -> bool:
    """Whether values of `shape` broadcast to exactly `target` (a row of the
    part a selection stores into)."""
    try:
        return broadcast_shapes(shape, target) == target
    except ValueError:
        return False


def _values_per_row(v, sel: Selection, rest: tuple, name: str):
    """The values of a ufunc.at by the selection `sel` of indices, as they
    broadcast against the full-size indexed part: a selection's rows
    paired with sel's (as `x[mask] = y[other]` pairs them), or a plain
    value without a leading axis of the rows' runtime count."""
    what = f"np.{name}.at(a, idx[mask], v)"
    if isinstance(v, Selection) and not isinstance(v, boxes.Box):
        if len(v.rest) != len(rest):
            raise refusal(f"{what} with values of shape (k,)+{v.rest} for a part of shape "
                          f"(k,)+{rest}", v)
        target = _target_of(sel)
        if not _same_rows(v, target):
            if v.rank != 1 or sel.rank != 1:
                _require_same_mask(v, target[0], what)
            target = _joined_target(target, v, _STORE, rest)
        data, v_rest = _aligned(v, target, what, _STORE), v.rest
    else:
        v = _as_operand(v)
        shape = _shape(v)
        drop = 1 if len(shape) == len(rest) + 1 and shape[0] == 1 else 0
        if len(shape) - drop > len(rest):
            raise ShapeError(f"{what}: values of shape {shape} would have to match the number "
                             "of True values in the mask, which is data-dependent",
                             hint="select the values by the same mask, "
                                  f"np.{name}.at(a, idx[mask], v[mask]), or "
                                  "give v a row of the indexed part's shape")
        data, v_rest = (reshape(v, shape[drop:]) if drop else v), shape[drop:]
    if not _broadcasts_into(v_rest, rest):
        raise ShapeError(f"{what}: operands could not be broadcast together: the indexed part "
                         f"has shape (k,)+{rest}, the values (k,)+{v_rest}")
    return data


def _taken_by_selection(fn, args, kwargs):
    """np.take(x, idx[lo:hi]) (flattened, or along axis 0): x[idx[lo:hi]],
    the gather of `gather`.  None for other calls."""
    if fn is not np.take or not 2 <= len(args) <= 3 or set(kwargs) - {"axis", "mode"} or \
            isinstance(args[0], Selection) or not isinstance(args[1], Selection) or \
            kwargs.get("mode", "raise") != "raise":
        return None
    x, sel = args[:2]
    axis = args[2] if len(args) == 3 else kwargs.get("axis")
    if not isinstance(x, Array) or axis not in (None, 0, -x.ndim) or holds_selection(args[2:], {}):
        return None
    x = reshape(x, (x.size,)) if axis is None else x
    return gather(x, sel) if gathers_by_selection(x, sel) else None


def _rows_picked(fn, args, kwargs):
    """np.take(x[k:], idx): rows of a slice with runtime bounds picked by
    index (x[k:][idx]), which have the index's shape whatever the slice's
    length: np.take of the full-size values at the rows' positions (found
    at run time, with NumPy's IndexError where the slice has no such row).
    None for other calls."""
    if fn is not np.take or not 2 <= len(args) <= 3 or set(kwargs) - {"axis", "mode"} or \
            not isinstance(args[0], Selection) or holds_selection(args[1:], kwargs):
        return None
    sel, indices = args[:2]
    axis = args[2] if len(args) == 3 else kwargs.get("axis")
    whole_rows = axis == 0 or (axis in (None, -1) and not sel.rest)   # (None: flattened)
    key = sel._row_key(indices) if whole_rows and kwargs.get("mode", "raise") == "raise" else None
    return None if key is None else NUMPY[np.take](sel.data, key[0], axis=0)


# Reductions and statistics that work on each row alone where their axes
# leave the selected axis out (X[m].sum(axis=1)); methods by their names.
_ROW_WISE = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min,
             "any": np.any, "all": np.all, "var": np.var, "std": np.std,
             "argmax": np.argmax, "argmin": np.argmin, "amax": np.amax, "amin": np.amin,
             "count_nonzero": np.count_nonzero, "ptp": np.ptp, "average": np.average}


def _rows_kept(fn, sel: Selection, args: tuple, kwargs: dict):
    """np.<fn>(x[mask], axis) over axes that leave the first out
    (X[m].sum(axis=1), X[m].std(axis=-1)): each selected row reduced on its
    own, so the result is the same rows of fn of the full-size values, a
    selection by the same mask that later math and reductions take
    (X[m].sum(axis=1).mean()).  None for other axes."""
    axis = kwargs.get("axis", args[0] if args else None)
    axes = normalize_axes(axis, 1 + len(sel.rest))
    if axes is None or 0 in axes or "out" in kwargs:
        return None
    data_axes = tuple(sel.rank - 1 + a for a in axes)
    kwargs = {k: _row_operand(fn, sel, v) for k, v in kwargs.items() if k != "axis"}
    args = tuple(_row_operand(fn, sel, v) for v in args[1:])
    result = NUMPY[fn](sel.data, data_axes if len(data_axes) > 1 else data_axes[0], *args,
                       **kwargs)
    if isinstance(result, tuple):                       # np.average(..., returned=True)
        return tuple(sel.like(r) for r in result)
    return sel.like(result)


def _row_operand(fn, sel: Selection, v):
    """An argument beside x[mask] of a row-wise reduction: where= or
    weights= by the same mask as its full-size values; others as they are."""
    if not isinstance(v, Selection):
        return v
    _require_same_mask(v, sel.mask, f"np.{fn.__name__} of selections")
    return v.data


def _only_out(kwargs):
    out = kwargs.get("out")
    return out[0] if isinstance(out, tuple) and len(out) == 1 else out


def _ufunc_into(fn, args, kwargs):
    """np.maximum(a, b, out=x[i:j]) (a knapsack's row update): the result
    written as x[i:j] = result is, with the ufunc's cast (casting=, 'same_kind'); the
    call returns out.  (NumPy buffers inputs that overlap out, as this
    computes the whole result first.)"""
    from .elementwise import check_output_cast
    out = _only_out(kwargs)
    kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    casting = kwargs.get("casting", "same_kind")   # (the operands' casts: checked by the ufunc)
    if kwargs.get("where", True) is not True:
        raise refusal(f"np.{fn.__name__}(out=x[mask], where=...)", out)
    result = numpy_call(fn, args, kwargs) if holds_selection(args, kwargs) else \
        NUMPY[fn](*args, **kwargs)
    check_output_cast(result.dtype, out.dtype, fn.__name__, casting)
    assign(out.data, Array(out.mask), result, bounds=out.view is not None,
           descending=out.descending)
    return out


def _refuse_call(fn, args):
    name = getattr(fn, "__name__", "this function")
    ufunc = getattr(fn, "__self__", None)
    if isinstance(ufunc, np.ufunc):     # np.add.reduceat, not "np.reduceat"
        name = f"{ufunc.__name__}.{name}"
    # (tpucc.nn's functions reach here too: name them as the program does)
    module = "nn" if getattr(fn, "__module__", "") == "tpucc.nn" else "np"
    raise refusal(f"{module}.{name} of x[mask]", first_selection(args))


def first_selection(values) -> "Selection | None":
    """The first selection among `values` (and their nested lists and tuples)."""
    stack = list(values)[::-1]
    while stack:
        v = stack.pop()
        if isinstance(v, Selection):
            return v
        if isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
    return None


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import ctx  # noqa: E402
from ..infer.values import Array, array_like, holds, scalar_if_numpy_would  # noqa: E402
from . import masked_statistics as statistics  # noqa: E402
from . import masked_rows as rows  # noqa: E402
from . import boxes  # noqa: E402


def methods_of(sel: Selection) -> dict:
    """The array methods a selection has (a Box's are its module's)."""
    return boxes.METHODS if isinstance(sel, boxes.Box) else METHODS

METHODS.update(statistics.METHODS)
METHODS.update(rows.METHODS)
METHODS["transpose"] = _transpose_method
METHODS["take"] = lambda sel, *args, **kwargs: numpy_call(np.take, (sel, *args), kwargs)


def _row_wise_method(name: str, method):
    def call(sel, *args, **kwargs):
        kept = _rows_kept(_ROW_WISE[name], sel, args, kwargs)
        return method(sel, *args, **kwargs) if kept is None else kept
    return call


METHODS.update({name: _row_wise_method(name, METHODS[name]) for name in _ROW_WISE
                if name in METHODS})
