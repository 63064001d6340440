"""Slices with runtime bounds on an axis other than the first, or on more
than one axis: `Q[:, :j]` (Gram-Schmidt), `L[j + 1:, :j]` (Cholesky),
`A[k + 1:, k + 1:]` (LU's trailing update).

Such a slice has a runtime length on each axis it slices with runtime
bounds, so, like `x[i:j]` (masked.py), it is not an Array but a `Box`: the
full-size values (a view of x, as NumPy's slice is) and, for each axis,
the mask of the indices the slice takes there (None for an axis it keeps
as it is: a static slice or index already applied to the view).  Each
selected element sits where it sits in x, so what compiles is what keeps
that correspondence, and the unselected elements never show:

- elementwise math between boxes, scalars, arrays that broadcast along the
  masked axes (length 1 there), and `x[i:j]` selections of the first axis;
  on an axis masked by different bounds (or the same bounds over axes of
  different lengths) the selected elements pair in order, as NumPy pairs
  two arrays of one length: all but the result's own are gathered to its
  positions (`_paired_in_order`);
- `A[k + 1:, k + 1:] = v` and `A[...] -= v` (only the selected elements
  change); `np.outer(x[k + 1:], y[k + 1:])`, whose masks are the two
  vectors';
- `@`, np.dot and np.matmul of 1-d and 2-d boxes, contracting axes masked
  on both sides (paired in order; the unselected products are zeros), the
  other axes' masks carried to the result; a product that contracts all of them is an
  Array;
- reductions (sum prod mean max min any all) over any axes, `.T`, `.shape`,
  `len()`, `astype`, `copy`, np.linalg.norm, and NumPy functions of those;
- `box[...]` keeping the sliced axes whole, or taking one selected index
  of a sliced axis by an int (masked.position: found at run time), and
  writes through it (`b = A[i:, :j]; b[:] = 0`).

Anything else is masked.refusal's E200 for a slice with runtime bounds.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from . import masked
from .elementwise import _require, astype, check_astype, store_inplace
from .registry import METHODS as ARRAY_METHODS
from .registry import NUMPY, normalize_axes, writes_out
from .shape import reshape, transpose, where


class Box(masked.Selection):
    """A slice with runtime bounds on some axes (see the module's text):
    `data` full-size values, `masks` one bool Array per axis of data, or
    None for an axis taken whole.  The Selection it extends has no `mask`
    (None): masked.py hands every Box to this module."""
    __slots__ = ("masks",)

    def __init__(self, data, masks, view=None, sliced=True):
        super().__init__(data, None, view=view, sliced=sliced)
        self.masks = tuple(masks)

    def __repr__(self):
        return f"a slice with runtime bounds on several axes of {self.data.aval}"

    @property
    def ndim(self) -> int:
        return self.data.ndim

    def __getitem__(self, key):
        return index(self, key)

    def __setitem__(self, key, value):
        assign_item(self, key, value)


def boxed(data, masks, view=None, sliced=True):
    """The value of data restricted by masks: an Array where no axis is
    masked, x[i:j]'s Selection where only the first is, else a Box.
    `sliced`: the masks are slices' with runtime bounds, not a boolean
    mask's (X[:, m]), which errors name."""
    if all(m is None for m in masks):
        return data
    if all(m is None for m in masks[1:]):       # (a view's rows in order: as of `x[:]`)
        return masked.Selection(data, masks[0].var, view=None if view is None else slice(None),
                                sliced=sliced)
    return Box(data, masks, view=view, sliced=sliced)


# --- making one ---------------------------------------------------------------------------

def runtime_slice_key(key, shape: tuple):
    """(view key, per-axis items) for a key of basic items (ints, static
    slices, None, `...`, slices of static length) with a slice of runtime
    bounds and positive step on some axis other than the first, or on two
    or more; None for any other key.  The view key is the key with each
    runtime slice replaced by `:`."""
    from ..infer.values import known_integer
    from .indexing import _integer_scalar, _is_runtime, _item_axes, fixed_length_slice
    items = key if isinstance(key, tuple) else (key,)
    # (a bound that is a runtime Array holding a constant is static: `cy, cx = ... // 2`)
    items = tuple(slice(*(known_integer(v) for v in (i.start, i.stop, i.step)))
                  if isinstance(i, slice) else i for i in items)
    if sum(1 for i in items if i is Ellipsis) > 1:
        return None
    axes = _item_axes(items, len(shape))
    runtime = []
    for n, (item, axis) in enumerate(zip(items, axes)):
        if isinstance(item, slice):
            if axis >= len(shape):
                return None         # (too many indices: NumPy's IndexError, from indexing)
            bounds = (item.start, item.stop, item.step)
            if not any(_is_runtime(v) for v in bounds) or \
                    fixed_length_slice(item, shape[axis]) is not None:
                continue
            if _is_runtime(item.step) or item.step is not None and item.step <= 0:
                return None         # (rows that run backwards pair only on the first axis)
            runtime.append(n)
        elif not (item is None or item is Ellipsis or _integer_scalar(item)):
            return None
    if not runtime:
        return None
    view_key = tuple(slice(None) if n in runtime else item for n, item in enumerate(items))
    return view_key, items


def select(x, key) -> "Box | masked.Selection":
    """x[key] for a runtime_slice_key key: the view of x by the key's static
    items, each runtime slice's mask on the axis of the view it became."""
    from .indexing import getitem
    view_key, items = runtime_slice_key(key, x.shape)
    view = getitem(x, view_key)
    masks = _view_masks(items, view_key, x.shape, view.ndim)
    if all(m is None for m in masks[1:]):         # (x[k:, None]: a selection of rows)
        first = next(i for i, v in zip(items, view_key) if i is not v)
        return masked.Selection(view, masks[0].var, view=first)
    return Box(view, masks, view=view_key)


def _view_masks(items, view_key, shape: tuple, ndim: int) -> list:
    """The mask of each axis of the view: a runtime slice's (an item the
    view key replaced) over the axis of x it slices, None elsewhere."""
    from .indexing import _item_axes
    masks, out = [None] * ndim, 0
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    for item, kept, axis in zip(items, view_key, _item_axes(items, len(shape))):
        if item is Ellipsis:
            out += len(shape) - consumed
        elif item is None:
            out += 1
        elif isinstance(item, slice):
            if item is not kept:
                masks[out] = masked.slice_mask(item, shape[axis])
            out += 1
    return masks


def assign(x, key, value) -> None:
    """x[key] = value for a runtime_slice_key key."""
    target = select(x, key)
    store(target.data, _parts(target)[1], value)


def store(data, masks, value) -> None:
    """The selected elements of `data` (a view, whose writes go into the
    array it views) by per-axis `masks` take the value's, cast to its dtype
    as NumPy's assignment casts them."""
    target = Box(data, masks)
    new = _aligned_operands((target, value), "x[i:j, k:l] = values", store=True)[1][1]
    data.set(where(_full_mask(masks, data.ndim), astype(new, data.dtype), data).var)


# --- operands -----------------------------------------------------------------------------

def _parts(v):
    """(values, per-axis masks) of a box, a selection of the first axis by
    a slice or 1-d mask in order, an array or a scalar."""
    if isinstance(v, Box):
        return v.data, v.masks
    if isinstance(v, masked.Selection):
        if v.rank != 1 or v.descending is not False:
            raise masked.refusal("combining x[i:j, k:l] with a selection by a multi-axis mask "
                                 "or a backward slice", v)
        return v.data, (masked.Array(v.mask),) + (None,) * len(v.rest)
    v = masked._as_operand(v)
    return v, (None,) * np.ndim(v)


def _same_mask(a, b) -> bool:
    return a is b or masked.same_value(a.var, b.var)


def _aligned_operands(operands, what: str, store=False):
    """-> (masks of the result, [values of each operand]): per axis (aligned
    from the last, as broadcasting aligns shapes), the operands masked there
    pair their selected elements in order, and an operand without a mask on
    a masked axis has length 1 there.  `store`: the first operand is the
    target, whose shape the others broadcast into."""
    parts = [_parts(v) for v in operands]
    ndim = max(len(masks) for _, masks in parts)
    if store and len(parts[0][1]) < ndim:
        raise ShapeError(f"{what}: a value of {ndim} dimensions does not fit a slice of "
                         f"{len(parts[0][1])}")
    values = [value for value, _ in parts]
    result = []
    for axis in range(-ndim, 0):
        holders = [n for n, (_, m) in enumerate(parts) if len(m) >= -axis and m[axis] is not None]
        mask = parts[holders[0]][1][axis] if holders else None
        if mask is not None:
            for value, m in parts:
                if len(m) >= -axis and m[axis] is None and np.shape(value)[axis] != 1:
                    raise masked.refusal(f"{what} with an array of shape {np.shape(value)}: its "
                                         f"axis {ndim + axis} would have to match the length of "
                                         "a slice with runtime bounds",
                                         _first_sliced(operands))
            if any(not _same_mask(parts[n][1][axis], mask) for n in holders[1:]):
                mask = _paired_in_order(parts, values, holders, axis, store)
        result.append(mask)
    return tuple(result), values


def _paired_in_order(parts, values, holders, axis: int, store: bool):
    """The mask of `axis` (counted from the end) of the result of operands
    masked there by different bounds (`x[:, :n - k] * x[:, k:]`), or by the
    same bounds on axes of different lengths (`U[:, :k] * s[:k]` with U
    wider): their selected elements pair in order, as NumPy pairs those of
    two arrays of one length, one element repeating against many.  The
    values of `holders` (indices into parts and values) are gathered along
    the axis to the result mask's positions; lengths that cannot pair raise
    NumPy's ValueError when the call returns."""
    masks = [parts[n][1][axis] for n in holders]
    counts = [ARRAY_METHODS["sum"](m, dtype=np.int64) for m in masks]
    target, count = masks[0], counts[0]
    for n, m, c in zip(holders[1:], masks[1:], counts[1:]):
        shapes = (_shape_text(parts[0]), _shape_text(parts[n]))
        if store:
            _require((c == count) | (c == 1),
                     ("could not broadcast input array from shape ",) + shapes[1] +
                     (" into shape ",) + shapes[0], "ValueError",
                     "the slices must have the same length on each axis, or one element")
            continue
        _require((c == count) | (c == 1) | (count == 1),
                 ("operands could not be broadcast together with shapes ",) + shapes[0] +
                 (" ",) + shapes[1], "ValueError",
                 "the slices must have the same length on each axis, or one element")
        longer = (count == 1) & (c != 1)
        target, m = masked.padded_to_one_length(target, m)
        target, count = where(longer, m, target), where(longer, c, count)
    for n, m, c in zip(holders, masks, counts):
        if m is not target:
            rows = masked.rows_in_order((m.var, False, c), (target.var, False, count), True)
            values[n] = NUMPY[np.take](values[n], rows, axis=len(parts[n][1]) + axis)
    return target


def _shape_text(part) -> tuple:
    """A box's runtime shape as message parts: `(3,` k `)`."""
    value, masks = part
    pieces = ["("]
    for n, m in zip(np.shape(value), masks):
        pieces.append(str(n) if m is None else ARRAY_METHODS["sum"](m, dtype=np.int64))
        pieces.append(",")
    if len(masks) > 1:
        pieces.pop()
    pieces = pieces + [")"]
    # consecutive text joined, so that the runtime values alone are fields
    out = []
    for p in pieces:
        if out and isinstance(p, str) and isinstance(out[-1], str):
            out[-1] += p
        else:
            out.append(p)
    return tuple(out)


def _first_sliced(values):
    return next((v for v in values if isinstance(v, masked.Selection)), None)


def _full_mask(masks, ndim: int):
    """One bool Array over all axes (broadcast): where every axis's mask holds."""
    full = None
    for axis, m in enumerate(masks):
        if m is None:
            continue
        shaped = reshape(m, tuple(-1 if a == axis else 1 for a in range(ndim)))
        full = shaped if full is None else full & shaped
    return full


# --- elementwise --------------------------------------------------------------------------

def elementwise(fn, operands: tuple, kwargs=None):
    """A ufunc of boxes, selections, scalars and arrays; or a NumPy
    function that turns out elementwise on their full-size values
    (masked._elementwise_result: np.where, np.clip, np.round), else its
    E200.  A ufunc of several outputs (np.modf) gives a tuple of boxes."""
    name = getattr(fn, "__name__", "the operation")
    masks, values = _aligned_operands(operands, f"np.{name} of slices")
    sliced = any(isinstance(v, masked.Selection) and v.sliced for v in operands)
    if isinstance(fn, np.ufunc):
        result = NUMPY[fn](*values, **(kwargs or {}))
    else:
        result = masked._elementwise_result(NUMPY[fn], values, kwargs or {})
        if result is None:
            raise masked.refusal(f"np.{name} of x[mask]", _first_sliced(operands))
    if isinstance(result, tuple):
        return tuple(boxed(r, masks, sliced=sliced) for r in result)
    return boxed(result, masks, sliced=sliced)


def inplace(fn, box: Box, other):
    """box OP= other: only the selected elements of the values (of the
    array the box views) change."""
    result = NUMPY[fn](*_aligned_operands((box, other), f"np.{fn.__name__} of slices",
                                          store=True)[1])
    result = where(_full_mask(box.masks, box.data.ndim), result, box.data)
    store_inplace(box.data, result, fn.__name__)
    return box


def install_operators():
    masked.install_on(Box, elementwise, inplace, product, _inplace_matmul)


def _inplace_matmul(box: Box, other):
    """`A[i:, :j] @= M` through a view: its selected elements become the
    product's, which must keep the box's shape (its last axis taken whole,
    M square), as NumPy's in-place matmul requires."""
    result = product(np.matmul, box, other)
    if not isinstance(result, Box) or result.data.shape != box.data.shape or \
            any((m is None) != (n is None) for m, n in zip(result.masks, box.masks)):
        raise masked.refusal("an in-place matrix product of x[i:j, k:l] that would change its "
                             "shape", box)
    store_inplace(box.data, where(_full_mask(box.masks, box.data.ndim), result.data, box.data),
                  "matmul")
    return box


# --- products -----------------------------------------------------------------------------

def involves_box(a, b) -> bool:
    """Whether a product of a and b is this module's: a box among them, or
    a selection of rows (x[i:j] of a matrix) with another selection."""
    if isinstance(a, Box) or isinstance(b, Box):
        return True
    both = isinstance(a, masked.Selection) and isinstance(b, masked.Selection)
    return both and bool(a.rest or b.rest)


def product(fn, a, b):
    """a @ b (np.dot, np.matmul) of 1-d and 2-d operands, one of them a box
    or a selection: the product of the full-size values with the
    unselected elements of the contracted axis zeroed (so each sum takes
    the selected products only, as the slices' product does), the result
    masked by the axes that remain."""
    what = f"np.{fn.__name__} of slices"
    (da, ma), (db, mb) = _parts(a), _parts(b)
    if fn not in (np.dot, np.matmul) or not (1 <= len(ma) <= 2 and 1 <= len(mb) <= 2):
        if fn is np.dot and (np.ndim(da) == 0 or np.ndim(db) == 0):
            return elementwise(np.multiply, (a, b))
        raise masked.refusal(f"{what} (other than of 1-d and 2-d operands by np.dot, "
                             "np.matmul or @)", _first_sliced((a, b)))
    ka, kb = ma[-1], mb[0] if len(mb) == 1 else mb[-2]
    axis_b = 0 if len(mb) == 1 else len(mb) - 2
    if (ka is None) != (kb is None):
        raise masked.refusal(f"{what} contracting an axis sliced with runtime bounds on one "
                             "side only", _first_sliced((a, b)))
    if ka is not None and not _same_mask(ka, kb):
        db, kb = _contracted_in_order(fn, (da, ma), (db, mb), axis_b), ka
    if ka is not None:
        da = where(reshape(ka, (-1,)), da, np.zeros((), da.dtype))
        db = where(reshape(kb, (-1,) + (1,) * (len(mb) - 1 - axis_b)), db,
                   np.zeros((), db.dtype))
    masks = tuple(ma[:-1]) + tuple(m for n, m in enumerate(mb) if n != axis_b)
    return boxed(NUMPY[fn](da, db), masks)


def _contracted_in_order(fn, a, b, axis_b: int):
    """b's values with the selected elements of its contracted axis
    (`axis_b`) moved to where a's contracted axis (its last) has them, in
    order (`x[:, :n - k] @ y[k:]`, or `U[:, :k] @ Vt[:k]` with U wider than
    Vt is tall); different counts raise NumPy's ValueError at run time."""
    (da, ma), (db, mb) = a, b
    ka, kb = ma[-1], mb[axis_b]
    count_a = ARRAY_METHODS["sum"](ka, dtype=np.int64)
    count_b = ARRAY_METHODS["sum"](kb, dtype=np.int64)
    if fn is np.dot:
        message = (("shapes ",) + _shape_text(a) + (" and ",) + _shape_text(b) +
                   (" not aligned: ", count_a, f" (dim {len(ma) - 1}) != ", count_b,
                    f" (dim {axis_b})"))
    else:
        message = ("matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                   "gufunc signature (n?,k),(k,m?)->(n?,m?) (size ", count_b,
                   " is different from ", count_a, ")")
    _require(count_a == count_b, message, "ValueError", "the slices must have the same length")
    rows = masked.rows_in_order((kb.var, False, count_b), (ka.var, False, count_a), False)
    return NUMPY[np.take](db, rows, axis=axis_b)


def outer(a, b, out=None):
    """np.outer of two 1-d operands, slices among them: the outer product
    of the full-size values, masked by the first's rows and the second's
    columns."""
    (da, ma), (db, mb) = _parts(a), _parts(b)
    if out is not None or len(ma) != 1 or len(mb) != 1:
        raise masked.refusal("np.outer of x[i:j] (other than of 1-d slices)",
                             _first_sliced((a, b)))
    return boxed(NUMPY[np.outer](da, db), (ma[0], mb[0]))


# --- reductions ---------------------------------------------------------------------------

_IDENTITY_REDUCTIONS = ("sum", "prod", "max", "min", "any", "all")


def reduce(name: str, box: Box, axis=None, *, dtype=None, out=None, keepdims=False, **kw):
    """np.<name>(box, axis): the reduction of the full-size values with the
    unselected ones replaced by its identity (a mean divides by the count
    of selected ones), the masks of the axes kept carried to the result."""
    if out is not None or kw or name not in _IDENTITY_REDUCTIONS + ("mean",):
        raise masked.refusal(f"np.{name} of x[i:j, k:l] with "
                             f"{sorted(kw) + (['out'] if out is not None else []) or name}",
                             box)
    ndim = box.data.ndim
    axes = normalize_axes(axis, ndim)
    axes = tuple(range(ndim)) if axes is None else tuple(axes)
    count = _count(box, axes)
    if name in ("max", "min") and isinstance(count, masked.Array):
        from ..infer import checks
        checks.require(count > 0, "zero-size array to reduction operation "
                       f"{masked._UFUNC_NAMES[name]} which has no identity", raises="ValueError")
    filler = masked._identity("sum" if name == "mean" else name, box.dtype)
    filled = where(_full_mask(box.masks, ndim), box.data, filler)
    if name == "mean":
        return _mean(box, filled, axes, dtype, keepdims, count)
    extra = {"dtype": dtype} if name in ("sum", "prod") else {}
    result = ARRAY_METHODS[name](filled, axis=axes, keepdims=keepdims, **extra)
    return _kept(box, result, axes, keepdims)


def _mean(box: Box, filled, axes, dtype, keepdims, count):
    from . import reductions
    out = reductions._np_dtype(np.mean, box.dtype, None if dtype is None else np.dtype(dtype))
    acc = np.dtype(np.float32) if out == np.float16 else out
    total = ARRAY_METHODS["sum"](filled, axis=axes, keepdims=keepdims, dtype=acc)
    count = astype(count, acc) if isinstance(count, masked.Array) else acc.type(count)
    result = astype(total / count, out, copy=False)
    if result.ndim == 0:
        result.immutable = True     # a NumPy scalar, as NumPy's mean gives
    return _kept(box, result, axes, keepdims)


def _kept(box: Box, result, axes, keepdims):
    """The result of reducing `axes`, masked by the axes that remain (kept
    axes of length 1 take no mask)."""
    if result.ndim == 0:
        result.immutable = True
        return result
    masks = tuple(None if n in axes else m for n, m in enumerate(box.masks)
                  if keepdims or n not in axes)
    return boxed(result, masks, sliced=box.sliced)


def _count(box: Box, axes):
    """How many selected elements each result element reduces (int64)."""
    total = 1
    for n in axes:
        m = box.masks[n]
        total = total * (box.data.shape[n] if m is None else
                         ARRAY_METHODS["sum"](m, dtype=np.int64))
    return total


# --- attributes, methods, indexing and NumPy functions --------------------------------------

def shape(box: Box) -> tuple:
    from ..infer.builtins_impl import to_python_scalar
    return tuple(n if m is None else to_python_scalar(ARRAY_METHODS["sum"](m, dtype=np.int64),
                                                      np.int64)
                 for n, m in zip(box.data.shape, box.masks))


def length(box: Box):
    return shape(box)[0]


def _transposed(box: Box, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    ndim = box.data.ndim
    order = tuple(int(a) % ndim for a in axes) if axes else tuple(reversed(range(ndim)))
    if sorted(order) != list(range(ndim)):
        raise ShapeError(f"axes {tuple(axes)} don't match array of {ndim} dimensions")
    return boxed(transpose(box.data, order), tuple(box.masks[a] for a in order),
                 sliced=box.sliced)


def attribute(box: Box, name: str):
    from ..infer.builtins_impl import to_python_scalar
    from ..infer.calls import BoundArrayMethod
    if name == "dtype":
        return box.dtype
    if name == "ndim":
        return box.data.ndim
    if name == "shape":
        return shape(box)
    if name == "size":
        return to_python_scalar(_count(box, tuple(range(box.data.ndim))), np.int64)
    if name == "T":
        return _transposed(box)
    if name in METHODS:
        return BoundArrayMethod(box, name)
    if name in masked._PARTS:
        return elementwise(masked._PARTS[name], (box,))
    raise masked.refusal(f"x[i:j, k:l].{name}", box)


def index(box: Box, key):
    """box[key] with None, `...`, ints and static slices on the axes taken
    whole, and `:` or an int on the sliced ones (an int: the selected index
    of that rank, found at run time): the same elements, indexed (a view)."""
    from ..infer.values import scalar_if_numpy_would
    from .indexing import getitem
    items, masks = _indexed(box, key)
    return boxed(scalar_if_numpy_would(box.data, items, getitem(box.data, items)), masks,
                 view=box.view, sliced=box.sliced)


def assign_item(box: Box, key, value) -> None:
    """box[key] = value (`b[:] = 0`, `b[0] = v`): into the same elements of
    the values the box views."""
    from .indexing import getitem, setitem
    items, masks = _indexed(box, key)
    if all(m is None for m in masks):
        setitem(box.data, items, value)
    else:
        store(getitem(box.data, items), masks, value)


def _indexed(box: Box, key) -> tuple:
    """(key of box.data, masks of the result) for box[key]."""
    from .indexing import _item_axes
    items = list(key) if isinstance(key, tuple) else [key]
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise masked.refusal("indexing x[i:j, k:l] with more than one `...`", box)
    masks = []
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    covered = 0
    for n, (item, axis) in enumerate(zip(list(items), _item_axes(items, box.data.ndim))):
        if item is Ellipsis:
            count = box.data.ndim - consumed
            masks.extend(box.masks[covered:covered + count])
            covered += count
        elif item is None:
            masks.append(None)
        elif axis >= box.data.ndim:
            raise ShapeError(f"too many indices for array: array is {box.data.ndim}-dimensional, "
                             f"but {consumed} were indexed")
        else:
            covered += 1
            mask = box.masks[axis]
            if mask is not None and masked._whole(item):
                masks.append(mask)
            elif mask is not None and masked._basic_item(item) and \
                    not isinstance(item, slice):
                items[n] = masked.position(mask, item, axis=axis)     # A[i:, :j][0]
            elif mask is not None:
                raise masked.refusal("indexing x[i:j, k:l] again on an axis sliced with "
                                     "runtime bounds (other than by `:` or an int)", box)
            elif isinstance(item, slice):
                if any(isinstance(v, masked.Array) for v in (item.start, item.stop, item.step)):
                    raise masked.refusal("indexing x[i:j, k:l] again with runtime bounds", box)
                masks.append(None)
            elif not masked._basic_item(item):
                raise masked.refusal("indexing x[i:j, k:l] with an array", box)
    masks.extend(box.masks[covered:])
    return tuple(items), masks


def _astype(box: Box, dtype, order="K", casting="unsafe", subok=True, copy=True):
    check_astype(box.data, dtype, order, casting)
    if not copy and np.dtype(dtype) == box.dtype:
        return box                  # NumPy's own array: a view stays a view
    return boxed(astype(box.data, dtype), box.masks, sliced=box.sliced)


def _copy(box: Box, order="K"):
    return boxed(masked.Array(box.data.var), box.masks, sliced=box.sliced)


METHODS = {name: (lambda n: lambda box, *a, **k: reduce(n, box, *a, **k))(name)
           for name in _IDENTITY_REDUCTIONS + ("mean",)}
METHODS.update({name: (lambda f: lambda box, *a, **k: _statistic(f, box, *a, **k))(f)
                for name, f in (("var", np.var), ("std", np.std), ("argmax", np.argmax),
                                ("argmin", np.argmin))})
METHODS.update(astype=_astype, copy=_copy, transpose=_transposed,
               dot=lambda box, b: product(np.dot, box, b),
               conj=lambda box: elementwise(np.conjugate, (box,)),
               conjugate=lambda box: elementwise(np.conjugate, (box,)))


def _norm(box: Box, ord=None, axis=None, keepdims=False):
    """np.linalg.norm's Euclidean (Frobenius) norm, over everything or
    `axis`: the square root of the sum of the selected squared magnitudes."""
    if ord not in (None, 2 if axis is not None and np.ndim(axis) == 0 else "fro"):
        raise masked.refusal(f"np.linalg.norm of x[i:j, k:l] with ord={ord!r}", box)
    magnitude = elementwise(np.abs, (box,))
    if magnitude.dtype.kind in "iub":
        magnitude = _astype(magnitude, np.float64) if isinstance(magnitude, Box) else \
            masked._astype(magnitude, np.float64)
    squares = elementwise(np.multiply, (magnitude, magnitude))
    total = reduce("sum", squares, axis, keepdims=keepdims) if isinstance(squares, Box) else \
        masked.reduce("sum", squares, axis, keepdims=keepdims)
    return NUMPY[np.sqrt](total) if not isinstance(total, masked.Selection) else \
        elementwise(np.sqrt, (total,))


# --- statistics: through a selection of the first axis --------------------------------------

def _statistic(fn, box: Box, axis=None, *args, **kwargs):
    """np.var, np.std, np.ptp, np.average, np.count_nonzero, np.argmax and
    np.argmin of a box, as masked.py computes them for x[mask]: over
    everything, of the selected elements in C order (NumPy's order of the
    box's elements) as one row; over axes that no mask is on (X[:, m].std(
    axis=0)), of the full-size values, the masks of the kept axes carried
    to the result; over axes that include the one masked axis, of x[mask]
    with that axis moved first."""
    if masked.holds_selection(args, kwargs):
        raise masked.refusal(f"np.{fn.__name__} of x[i:j, k:l] and another selection", box)
    ndim = box.data.ndim
    masked_axes = [n for n, m in enumerate(box.masks) if m is not None]
    if axis is None:
        return masked.numpy_call(fn, (_raveled(box), None) + args, kwargs)
    axes = normalize_axes(axis, ndim)
    if not set(axes) & set(masked_axes):
        result = NUMPY[fn](box.data, axes if len(axes) > 1 else axes[0], *args, **kwargs)
        keep = kwargs.get("keepdims", False)
        return boxed(result, tuple(None if n in axes else m for n, m in enumerate(box.masks)
                                   if keep or n not in axes), sliced=box.sliced)
    if len(masked_axes) != 1:
        raise masked.refusal(f"np.{fn.__name__} of x[i:j, k:l] over axes {axis}", box)
    (first,) = masked_axes
    from .shape import expand_dims, moveaxis
    rows = masked.Selection(moveaxis(box.data, first, 0), box.masks[first].var,
                            sliced=box.sliced)
    moved = tuple(0 if a == first else a + (a < first) for a in axes)
    keep = kwargs.pop("keepdims", False)
    result = masked.numpy_call(fn, (rows, moved) + args, kwargs)
    return expand_dims(result, axes) if keep else result


def _raveled(box: Box) -> masked.Selection:
    """The box's selected elements in C order as one row: x[mask] of the
    raveled values by the raveled full mask."""
    full = NUMPY[np.broadcast_to](_full_mask(box.masks, box.data.ndim), box.data.shape)
    return masked.Selection(reshape(box.data, (-1,)), reshape(full, (-1,)).var,
                            sliced=box.sliced)


_STATISTICS = (np.var, np.std, np.ptp, np.average, np.count_nonzero, np.argmax, np.argmin,
               np.median, np.nanmedian)


def _ufunc_into(fn, args, kwargs):
    """np.add(a, b, out=A[i:, :j]): the result stored as `A[i:, :j] =`
    stores it, with the ufunc's cast (casting=, 'same_kind'); the call returns out."""
    from .elementwise import check_output_cast
    out = kwargs["out"]
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    rest = {k: v for k, v in kwargs.items() if k != "out"}
    casting = rest.get("casting", "same_kind")     # (the operands' casts: checked by the ufunc)
    if not writes_out(fn) or not isinstance(out, Box) or \
            rest.get("where", True) is not True:
        raise masked.refusal(f"np.{getattr(fn, '__name__', fn)}(out=...) with x[i:j, k:l]",
                             _first_sliced((*args, out)))
    result = elementwise(fn, tuple(args), rest)
    check_output_cast(result.dtype, out.dtype, fn.__name__, casting)
    store(out.data, out.masks, result)
    return out


def numpy_call(fn, args, kwargs):
    """A NumPy function given a box."""
    if "out" in kwargs:
        return _ufunc_into(fn, args, kwargs)
    if fn in (np.dot, np.matmul) and len(args) == 2 and not kwargs:
        return product(fn, *args)
    if isinstance(fn, np.ufunc) and fn in NUMPY:
        return elementwise(fn, tuple(args), kwargs)
    if any(fn is f for f in _STATISTICS) and args and isinstance(args[0], Box):
        return _statistic(fn, *args, **kwargs)
    name = next((n for f, n in masked._REDUCTIONS.items() if f is fn), None)
    if name is not None and args and isinstance(args[0], Box) and \
            not masked.holds_selection(args[1:], kwargs):
        return reduce(name, *args, **kwargs)
    if fn is np.outer:
        return outer(*args, **kwargs)
    if fn is np.linalg.norm and args and isinstance(args[0], Box):
        return _norm(*args, **kwargs)
    if fn is np.transpose and args and isinstance(args[0], Box):
        return _transposed(*args, **kwargs)
    if fn is np.copy and args and isinstance(args[0], Box):
        return _copy(*args, **kwargs)
    if masked._maybe_elementwise(fn, args, kwargs):
        return elementwise(fn, tuple(args), kwargs)
    return masked._refuse_call(fn, args)
