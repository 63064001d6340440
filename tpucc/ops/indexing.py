"""Indexing: x[key] and x[key] = v.

A key is normalized into a static description (ints, slices, None,
Ellipsis, and slots for runtime integer index arrays) plus the runtime index
arrays themselves.  Static ints are bounds-checked at compile time as NumPy
would at run time.  A runtime boolean mask as the whole key gives a
data-dependent shape: `x[mask]` is a Selection and `x[mask] = v` a select
(see masked.py); so is a mask among static ints, slices and None (X[m, 0],
n[m, None]: _mask_among_basic); behind a slice (X[:, colmask]) it is a
boxes.Box, which keeps the other axes; among index arrays it is refused.

Basic indexing gives views, as in NumPy: with static keys, and with runtime
integer *scalars* (a loop counter, an argmax), which NumPy also reads as
basic indices (`row = x[i]; row += 1` writes into x).  A view's index keeps
such a scalar as the SSA Value it had when the view was made.
"""
from __future__ import annotations

import enum
import functools
import operator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import DTypeError, ShapeError, StaticValueError, UnsupportedError, UserCodeError
from ..ir import AVal, Value
from . import boxes, elementwise, masked
from .registry import (NUMPY, broadcast_shapes, define_range, define_vjp, implements, register,
                       unsafe_cast_operand)

ARRAY = "array"   # marker in a normalized key for "the next runtime index array"
# A normalized key's (DSLICE, length): a step-1 slice of static length whose
# start is the next runtime index array (fixed_length_slice).
DSLICE = "dslice"


def _is_runtime(x) -> bool:
    return isinstance(x, Array)


def fixed_length_slice(item, n: int):
    """(start, length) for a slice x[i:i + c] of an axis of size n whose
    bounds are runtime ints known to differ by a static c and to lie in
    [0, n] (values.Span: a counted loop's counter times and plus constants), so the
    slice has that static length; else None."""
    if not isinstance(item, slice) or not (item.step is None or type(item.step) is int
                                           and item.step == 1):
        return None
    a, b = getattr(item.start, "span", None), getattr(item.stop, "span", None)
    if a is None or b is None or a.scale != b.scale or not _same_token(a.token, b.token):
        return None
    # (inside `if i < T:`, or a loop's body whose test is `i < T and ...`)
    a, b = guarded_ranges.narrowed(a), guarded_ranges.narrowed(b)
    length = b.offset - a.offset
    if length < 0 or not guarded_ranges.in_range(a.bounds()[0], b.bounds()[1], n):
        return None
    return item.start, length


def _same_token(a, b) -> bool:
    """Whether two spans' tokens are one runtime int: the same Value, or two
    made alike (`x[np.clip(o, 0, 2):np.clip(o, 0, 2) + 4]`, the start
    written twice inline, where a variable holding it gives one Value)."""
    return a is b or isinstance(a, Value) and isinstance(b, Value) and masked.same_value(a, b)


def _item_axes(items, ndim: int) -> list:
    """The axis of x each key item indexes (None for None and `...`)."""
    consumed = sum(1 for i in items if i is not None and i is not Ellipsis)
    axes, axis = [], 0
    for item in items:
        if item is Ellipsis:
            axes.append(None)
            axis += ndim - consumed
        elif item is None:
            axes.append(None)
        else:
            axes.append(axis)
            axis += 1
    return axes


def normalize_key(key, shape):
    """-> (static key tuple, runtime index arrays).  Raises for bad static keys."""
    items = key if isinstance(key, tuple) else (key,)
    static, arrays = [], []
    known = {}                      # position in `static` -> a static index array
    axes = _item_axes(items, len(shape))
    for item, axis in zip(items, axes):
        if isinstance(item, list):
            item = array_like(item)     # x[[i, 0]] with a runtime i: an index array
        if isinstance(item, masked.Selection):
            raise masked.refusal("indexing with x[mask] as an index array", item)
        item = _constant_index_array(item)
        if _is_runtime(item):
            if item.dtype == np.bool_:
                raise ShapeError("a boolean mask among other indices gives a data-dependent "
                                 "shape", hint="index with the mask alone (x[mask]), or use "
                                 "np.where(mask, x, fill) to keep the shape")
            if item.dtype.kind not in "iu":
                raise _invalid_index(item)
            if item.weak and item.held_int is not None:
                from ..infer import held_ints
                held_ints.require_int_index(item)
            static.append(ARRAY)
            arrays.append(item)
        elif isinstance(item, slice):
            item = slice(*(known_integer(v) for v in (item.start, item.stop, item.step)))
            fixed = (fixed_length_slice(item, shape[axis])
                     if axis is not None and axis < len(shape) else None)
            if fixed is not None:
                static.append((DSLICE, fixed[1]))
                arrays.append(fixed[0])
            elif any(_is_runtime(v) for v in (item.start, item.stop, item.step)):
                raise StaticValueError(
                    "slice bounds that depend on runtime values give a data-dependent shape",
                    hint="runtime slices beside static and runtime ints and static slices "
                         "(x[:i], x[i:j, 0], A[k:, :j]; a negative or runtime step on the "
                         "first axis only, no index arrays) compile when reduced (x[:i].sum()) "
                         "or assigned (x[i::k] = 0); elsewhere slice with static bounds, or "
                         "keep the shape with np.where(np.arange(n) < i, x, fill)")
            else:
                static.append(("slice", item.start, item.stop, item.step))
        elif item is None or item is Ellipsis:
            static.append(item)
        elif isinstance(item, (int, np.integer)):
            static.append(int(item))
        elif isinstance(item, (list, range, np.ndarray)):      # (p[range(n), labels])
            arr = np.asarray(item)
            if arr.dtype.kind not in "biu" and (arr.size or isinstance(item, np.ndarray)):
                raise _invalid_index(item)      # ([] and range(0): empty integer indices)
            if arr.dtype == np.bool_:
                arr = _static_mask_indices(arr, axis, shape)
            known[len(static)] = arr
            static.append(ARRAY)
            arrays.append(arr.astype(np.int64))
        elif all(hasattr(item, a) for a in ("start", "stop", "step")):   # a runtime range
            raise StaticValueError(
                "a range() with runtime bounds as an index gives a data-dependent shape",
                hint="index with a slice (x[a:b]) where the result is reduced or assigned, "
                     "or keep the shape with np.where(np.arange(n) < b, x, fill)")
        else:
            raise _invalid_index(item)
    _check_static_indices(static, shape, known)
    _check_index_shapes(static, arrays, len(shape))
    return tuple(static), arrays


def _constant_index_array(item):
    """An integer index array whose values are known while compiling (`i =
    np.arange(lo, hi)` with static bounds, `d - i`, `i - 1`: values.
    known_constant) as that NumPy array, indexing as a static list does:
    its bounds are checked now rather than by a runtime check each, and the
    lowering sees a constant (a wavefront DP indexes with dozens of them).
    Any other item as it is."""
    if not isinstance(item, Array) or not item.ndim or item.dtype.kind not in "iu":
        return item
    known = known_constant(item)
    return item if known is None else known


def _check_index_shapes(static, arrays, ndim: int) -> None:
    """NumPy's IndexError for index arrays whose shapes do not broadcast
    together (`D[r, c] = v` with r and c of different lengths)."""
    shapes = [np.shape(a) for a, (_, entry) in zip(arrays, _indexed_axes(static, ndim))
              if entry == ARRAY and np.ndim(a)]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise UserCodeError("IndexError: shape mismatch: indexing arrays could not be "
                            "broadcast together with shapes "
                            + "".join(f"{_shape_text(s)} " for s in shapes)) from None


def _shape_text(shape: tuple) -> str:
    return f"({shape[0]},)" if len(shape) == 1 else str(shape).replace(" ", "")


_FLOAT_INDEX_HINT = ("an index must be an integer, and `/` always makes a float: use integer "
                     "division `//` (mid = (lo + hi) // 2), or convert with int(...)")
_FLOAT_INDICES_HINT = ("index arrays must be of an integer dtype: compute them with `//` "
                       "rather than `/`, or convert with .astype(np.int64)")


def _invalid_index(item) -> UserCodeError:
    """NumPy's IndexError for an index of another kind than an integer,
    slice, None, `...` or integer or boolean array (the program's error:
    its own `except IndexError` catches it).  A float is mostly a `/`
    that was meant as `//` (a binary search's midpoint): the hint says so."""
    is_array = isinstance(item, (Array, np.ndarray)) and not (
        item.shape == () and (getattr(item, "weak", False) or getattr(item, "immutable", None)))
    message = ("arrays used as indices must be of integer (or boolean) type" if is_array else
               "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
               "integer or boolean arrays are valid indices")
    kind = np.asarray(item).dtype.kind if not isinstance(item, Array) else item.dtype.kind
    hint = (_FLOAT_INDICES_HINT if is_array else _FLOAT_INDEX_HINT) if kind in "fc" else None
    return UserCodeError(f"IndexError: {message}", hint=hint)


_FLOAT_SLICE_HINT = ("a slice bound must be an integer, and `/` always makes a float: use "
                     "integer division `//` (x[:n // 2]), or convert with int(...)")


def _constant_bounds(key):
    """The key with slice bounds that are Arrays holding a constant
    (`x[:np.array(2)]`, `cy` of `cy, cx = np.array(F.shape) // 2`) as the
    ints they are: a slice of static length, as eagerly."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(isinstance(i, slice) and any(isinstance(v, Array) for v in (i.start, i.stop, i.step))
               for i in items):
        return key
    fixed = tuple(slice(*(known_integer(v) for v in (i.start, i.stop, i.step)))
                  if isinstance(i, slice) else i for i in items)
    return fixed if isinstance(key, tuple) else fixed[0]


def _known_masks(key):
    """The key with boolean index arrays whose values are known while
    compiling (`keep = np.arange(n) != t` with a static t, a literal
    np.array([True, False, True])) as those NumPy masks: they select a
    static set of positions, as eagerly, not a data-dependent count."""
    items = key if isinstance(key, tuple) else (key,)
    known = [known_constant(i) if isinstance(i, Array) and i.ndim and i.dtype == np.bool_
             else None for i in items]
    if all(k is None for k in known):
        return key
    # NumPy reads a k-d mask as the k index arrays np.nonzero(mask) gives
    fixed = tuple(part for i, k in zip(items, known)
                  for part in ((i,) if k is None else np.nonzero(k)))
    return fixed if isinstance(key, tuple) or len(fixed) > 1 else fixed[0]


def check_slice_bounds(key) -> None:
    """NumPy's TypeError for a slice bound or step that is not an integer,
    None or an object with __index__ (x[:n / 2]), raised before anything
    reads the bound: a static float would otherwise fail inside the shape
    rule, and a runtime one be converted silently by the lowering."""
    for item in key if isinstance(key, tuple) else (key,):
        if isinstance(item, slice):
            for bound in (item.start, item.stop, item.step):
                _check_slice_bound(bound)


def _check_slice_bound(bound) -> None:
    if bound is None or isinstance(bound, (int, np.integer)):
        return
    if isinstance(bound, (Array, np.ndarray)):
        kind = bound.dtype.kind
        if bound.ndim == 0 and kind in "iu":
            return
        scalar = bound.ndim == 0 and (getattr(bound, "weak", False)
                                      or getattr(bound, "immutable", None))
    else:
        if hasattr(type(bound), "__index__"):
            return
        kind, scalar = np.asarray(bound).dtype.kind, True
    # NumPy's two messages: a NumPy or Python scalar has no __index__, an
    # array is not an integer scalar array (np.array(2.0) included).
    message = ("slice indices must be integers or None or have an __index__ method" if scalar
               else "only integer scalar arrays can be converted to a scalar index")
    raise UserCodeError(f"TypeError: {message}", hint=_FLOAT_SLICE_HINT if kind in "fc" else None)


def _static_mask_indices(mask: np.ndarray, axis, shape) -> np.ndarray:
    """x[[True, False, True]]: a static 1-d mask indexes as the positions of
    its True items (NumPy reads a boolean index as np.nonzero of it)."""
    if mask.ndim != 1 or axis is None or axis >= len(shape):
        raise ShapeError("indexing with a static boolean mask of more than one axis is not "
                         "supported", hint="index with np.nonzero(mask) (the same elements), "
                         "or use np.where(mask, x, fill) to keep the shape")
    if mask.shape[0] != shape[axis]:
        raise UserCodeError(f"IndexError: boolean index did not match indexed array along axis "
                            f"{axis}; size of axis is {shape[axis]} but size of corresponding "
                            f"boolean axis is {mask.shape[0]}")
    return np.flatnonzero(mask)


def _check_static_indices(static, shape, known):
    """Static ints and static index lists are bounds-checked now, as NumPy
    would at run time (the lowering would clamp them)."""
    dims = [known.get(i, x) for i, x in enumerate(static) if x is not None]
    if any(x is Ellipsis for x in dims):
        at = next(i for i, x in enumerate(dims) if x is Ellipsis)
        dims = dims[:at] + [None] * (len(shape) - len(dims) + 1) + dims[at + 1:]
    # NumPy raises IndexError, which the program's own `except IndexError`
    # catches while compiling, as eagerly (a UserCodeError holding one).
    if len(dims) > len(shape):
        raise UserCodeError(f"IndexError: too many indices for array: array is "
                            f"{len(shape)}-dimensional, but {len(dims)} were indexed")
    for axis, item in enumerate(dims):
        if isinstance(item, np.ndarray) and item.size:
            item = next((int(v) for v in item.ravel()
                         if not -shape[axis] <= v < shape[axis]), None)
        if isinstance(item, int) and not -shape[axis] <= item < shape[axis]:
            message = f"index {item} is out of bounds for axis {axis} with size {shape[axis]}"
            if not _under_runtime_condition():
                raise UserCodeError(f"IndexError: {message}")
            # Under a runtime `if` or in a runtime loop, NumPy raises only if
            # the line runs (a queue's `q[tail] = v` on a 1-node graph): a
            # check that fails whenever it does (the lowering clamps meanwhile).
            from ..infer import checks
            checks.require(Array(const_value(np.False_)), message)
            if not shape[axis]:
                raise EmptyAxisIndex(message)


class EmptyAxisIndex(UserCodeError):
    """An int index into an empty axis, on a path under a runtime condition
    (checked there): a store there is no store; a read stays refused."""

    def __init__(self, message):
        super().__init__(f"IndexError: {message}")


def _under_runtime_condition() -> bool:
    return ctx().runtime_depth > 0


def require_in_bounds(static, arrays, shape) -> bool:
    """Runtime integer indices must lie in [-n, n) for an axis of size n, or
    NumPy raises IndexError; XLA would clamp them.  A runtime check each
    (infer/checks.py).  Static ones were checked by normalize_key.  Whether
    an index array with elements indexes an empty axis (a CSR matrix with
    no columns): every one of them is out of bounds, so the call raises
    NumPy's IndexError, and XLA could not even gather (_empty_axes_widened)."""
    from ..infer import checks
    empty = False
    for index, (axis, entry) in zip(arrays, _indexed_axes(static, len(shape))):
        if not isinstance(index, Array) or entry != ARRAY:     # a DSLICE is in range
            continue
        n = shape[axis]
        if n == 0 and index.size:
            _require_no_index(index, axis)
            empty = True
            continue
        if index.span is not None and -n <= index.span.bounds()[0] and \
                index.span.bounds()[1] < n:                     # np.clip(i, 0, n - 1), i % n
            continue
        checks.require(emit("in_bounds", index, n=n),
                       f"an index is out of bounds for axis {axis} with size {n}",
                       hint="NumPy raises IndexError here; compiled code checks every "
                            "runtime index and raises when the call returns")
    return empty


def _require_no_index(index: Array, axis: int) -> None:
    """A failing check with NumPy's message for the first of `index` (all
    are out of bounds of an empty axis), raised when the call returns."""
    from ..infer import checks, messages
    first = getitem(index, (0,) * index.ndim) if index.ndim else index
    checks.require(Array(const_value(np.False_)), messages.Message((
        "index ", messages.Field(first, None, ""),
        f" is out of bounds for axis {axis} with size 0")))


def _empty_axes_widened(x, static):
    """x with each empty axis an index array reads widened to one row of
    zeros: the gather's shape is the same, and its values are never seen
    (the call raises: require_in_bounds)."""
    from .creation import full
    shape = list(x.shape)
    for axis, entry in _indexed_axes(static, x.ndim):
        if entry == ARRAY and shape[axis] == 0:
            shape[axis] = 1
    return full(tuple(shape), 0, dtype=x.dtype)


def _indexed_axes(static, ndim) -> list:
    """(axis of x, entry) for each runtime index array of `static`, in
    order: an ARRAY or a DSLICE entry."""
    consumed = sum(1 for s in static if s is not None and s is not Ellipsis)
    axes, axis = [], 0
    for s in static:
        if s is Ellipsis:
            axis += ndim - consumed
        elif s is not None:
            if _takes_array(s):
                axes.append((axis, s if s == ARRAY else DSLICE))
            axis += 1
    return axes


def _takes_array(entry) -> bool:
    return isinstance(entry, str) and entry == ARRAY or _is_dslice(entry)


def _is_dslice(entry) -> bool:
    return isinstance(entry, tuple) and entry[0] == DSLICE


def _is_static_slice(entry) -> bool:
    """A slice with static bounds in a view's index: ("slice", start, stop, step)."""
    return isinstance(entry, tuple) and entry[0] == "slice"


def _wide_index(i):
    """An int8/int16/int32/uint8... index array as int64, the intp NumPy
    indexes with: jax wraps a negative index by adding the axis size in the
    index's own dtype, which overflows (int8 -128 into 300 rows read row 0)."""
    dtype = np.dtype(i.dtype)
    return i.astype(np.int64) if dtype.kind in "iu" and dtype.itemsize < 8 else i


def _materialize(static, arrays):
    it = iter(arrays)
    out = []
    for s in static:
        if isinstance(s, str) and s == ARRAY:
            out.append(_wide_index(next(it)))
        elif _is_dslice(s):                     # (NumPy: a number; jax: _dynamic_slices)
            start = int(next(it))
            out.append(slice(start, start + s[1]))
        elif isinstance(s, tuple):
            out.append(slice(*s[1:]))
        else:
            out.append(s)
    return tuple(out)


def _eval_shape(fn, avals):
    with jax.enable_x64(True):
        return jax.eval_shape(fn, *(jax.ShapeDtypeStruct(a.shape, a.dtype) for a in avals))


def _getitem_abstract(avals, key):
    x = avals[0]
    shape = _indexed_shape(x, key, avals[1:])
    return AVal(x.dtype, shape, x.weak)


def _indexed_shape(x: AVal, key, idx_avals) -> tuple:
    """The shape of x[key]: worked out here for basic indexing (a loop's
    x[i], x[i, j] = v: 1.3 ms a time through jax.eval_shape, hundreds of
    times in a merge sort), by jax otherwise."""
    shape = _basic_shape(tuple(x.shape), key, idx_avals)
    if shape is None:
        shape = tuple(_eval_shape(lambda v, *idx: _indexed_value(v, key, idx),
                                  (x, *idx_avals)).shape)
    return shape


def _basic_shape(shape: tuple, key, idx_avals) -> tuple | None:
    """x[key]'s shape when every entry of the normalized key is a static
    int in range, a static slice, None, `...`, a 0-d integer index array
    (an axis goes, as for an int) or a fixed-length dynamic slice; else
    None."""
    arrays = iter(idx_avals)
    entries = []
    for s in key:
        if isinstance(s, str) and s == ARRAY:
            a = next(arrays)
            if a.shape != () or a.dtype.kind not in "iu":
                return None             # (advanced indexing, a mask)
            entries.append(_RUNTIME_INT)
        elif _is_dslice(s):
            next(arrays)
            entries.append(s)
        elif isinstance(s, tuple):
            entries.append(slice(*s[1:]))
        elif s is None or s is Ellipsis or type(s) is int:
            entries.append(s)
        else:
            return None
    consumed = sum(e is not None and e is not Ellipsis for e in entries)
    if consumed > len(shape) or entries.count(Ellipsis) > 1:
        return None
    out, axis = [], 0
    for e in entries:
        if e is None:
            out.append(1)
        elif e is Ellipsis:
            out.extend(shape[axis:axis + len(shape) - consumed])
            axis += len(shape) - consumed
        elif isinstance(e, slice):
            out.append(len(range(*e.indices(shape[axis]))))
            axis += 1
        elif _is_dslice(e):
            if e[1] > shape[axis]:
                return None
            out.append(e[1])
            axis += 1
        elif e is _RUNTIME_INT or -shape[axis] <= e < shape[axis]:
            axis += 1
        else:
            return None                 # (out of range: jax's error, as before)
    return tuple(out) + shape[axis:]


_RUNTIME_INT = object()


def _getitem_lower(lc, x, *idx, key):
    return _indexed_value(x, key, idx)


def _indexed_value(x, key, idx):
    """x[key] of jax values, its DSLICE entries taken first as dynamic slices."""
    x, key, idx = _dynamic_slices(x, key, idx)
    return _readable(x, key, idx)[_materialize(key, idx)]


def _readable(x, key, idx):
    """x, or zeros of its dtype where a runtime integer scalar indexes one
    of its axes of length 0 (each such axis made length 1).  jax refuses
    that index while tracing (there is no element to read), but the read
    runs only where it never shows: its bounds check fails (E900, as NumPy's
    IndexError), or it sits in a runtime branch that does not run (`if lo <
    hi: pivot = a[hi]` on an empty array).  Like _set's empty target."""
    if 0 not in x.shape:
        return x
    shape = list(x.shape)
    for (axis, _), i in zip(_indexed_axes(key, x.ndim), idx):
        if jnp.ndim(i) == 0 and shape[axis] == 0:
            shape[axis] = 1
    return x if shape == list(x.shape) else jnp.zeros(shape, x.dtype)


def _dynamic_slices(x, key, idx):
    """(x, key, idx) with each DSLICE entry applied to x as a dynamic slice
    and replaced by a whole-axis slice in the key."""
    if not any(_is_dslice(s) for s in key):
        return x, key, idx
    axes = iter(_indexed_axes(key, x.ndim))
    starts = iter(idx)
    key_out, idx_out = [], []
    for s in key:
        if not _takes_array(s):
            key_out.append(s)
            continue
        axis, _ = next(axes)
        start = next(starts)
        if s == ARRAY:
            key_out.append(s)
            idx_out.append(start)
        else:
            x = lax.dynamic_slice_in_dim(x, start, s[1], axis)
            key_out.append(("slice", None, None, None))
    return x, tuple(key_out), tuple(idx_out)


register("getitem", _getitem_abstract, _getitem_lower,
         numpy=lambda x, *idx, key: x[_materialize(key, idx)])
# The elements picked are x's: np.clip(pos, 0, n - k)[0] lies in [0, n - k] too,
# so int() of it still bounds a window x[y:y + k] (indexing.fixed_length_slice).
define_range("getitem", lambda avals, bounds, key: bounds[0])


def _getitem_vjp(lc, operands, perms, out, ct, key):
    """The cotangent scattered back to the indexed elements: a pad for a
    static window (as jax transposes a slice), else a scatter-add."""
    x, *idx = operands
    none = (None,) * len(idx)
    if not lc.wants(0):
        return (None, *none)
    if any(_is_dslice(s) for s in key):
        return NotImplemented           # (jax.vjp of the lowering)
    index = _materialize(key, idx)
    window = _static_window(index, x.shape)
    if window is None:
        return (jnp.zeros(x.shape, ct.dtype).at[index].add(ct), *none)
    starts, sizes = window
    widths = [(lo, n - lo - size, 0) for lo, size, n in zip(starts, sizes, x.shape)]
    return (lax.pad(lax.reshape(ct, sizes), np.zeros((), ct.dtype), widths), *none)


define_vjp("getitem", _getitem_vjp)


def _setitem_abstract(avals, key):
    x, v = avals[0], avals[1]
    target = _setitem_target(avals, key)
    try:
        shape = _value_shape(v.shape, len(target))
        if broadcast_shapes(shape, target) != target:
            raise ValueError
    except ValueError:
        raise ShapeError(f"could not broadcast input array from shape {v.shape} into shape "
                         f"{target}") from None
    return x


def _setitem_target(avals, key) -> tuple:
    """The shape of x[key] (avals: x's, the value's, the index arrays')."""
    return _indexed_shape(avals[0], key, avals[2:])


def _value_shape(shape: tuple, ndim: int) -> tuple:
    """The value's shape as x[key] = value broadcasts it: NumPy first drops
    leading axes of length 1 beyond the target's (x[0] = v[None])."""
    shape = tuple(shape)
    while len(shape) > ndim and shape[0] == 1:
        shape = shape[1:]
    return shape


def _setitem_lower(lc, x, v, *idx, key):
    ndim = len(_setitem_target(lc.in_avals, key))
    if v.ndim > ndim:
        v = lax.reshape(v, _value_shape(v.shape, ndim))
    return _set(x, unsafe_cast_operand(v, lc.in_avals[1], lc.out_avals[0].dtype), key, idx)


def _set(x, v, key, idx):
    """x with x[key] = v, of jax values (v of x's dtype).  Through a DSLICE
    entry: the window it takes, updated, put back."""
    if 0 in x.shape:
        return x        # (no element to store into: an index there fails its check)
    if any(_is_dslice(s) for s in key):
        at = next(k for k, s in enumerate(key) if _is_dslice(s))
        k_idx = sum(1 for s in key[:at] if _takes_array(s))
        (axis, _), length = _indexed_axes(key, x.ndim)[k_idx], key[at][1]
        start = idx[k_idx]
        window = lax.dynamic_slice_in_dim(x, start, length, axis)
        rest = key[:at] + (("slice", None, None, None),) + key[at + 1:]
        window = _set(window, v, rest, idx[:k_idx] + idx[k_idx + 1:])
        return lax.dynamic_update_slice_in_dim(x, window, start, axis)
    index = _materialize(key, idx)
    window = _static_window(index, x.shape)
    if window is not None:
        return _update_window(x, v, index, *window)
    return jnp.asarray(x).at[index].set(v)      # x may be a NumPy constant


def _static_window(index, shape):
    """(starts, sizes) when the index is static ints and step-1 slices: the
    update is one window, lowered as dynamic_update_slice rather than a
    scatter (XLA:CPU has aborted compiling a reverse of a scatter that
    covers its whole array).  None otherwise."""
    if len(index) > len(shape):
        return None
    starts, sizes = [], []
    for i, n in zip(index, shape):
        if isinstance(i, slice):
            start, stop, step = i.indices(n)
            if step != 1:
                return None
            starts.append(start)
            sizes.append(max(stop - start, 0))
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool) and -n <= i < n:
            starts.append(int(i) % n)
            sizes.append(1)
        else:
            return None
    pad = len(shape) - len(index)
    return tuple(starts) + (0,) * pad, tuple(sizes) + tuple(shape[len(index):])


def _update_window(x, v, index, starts, sizes):
    target_shape = tuple(n for i, n in zip(index, sizes) if isinstance(i, slice))
    target_shape += sizes[len(index):]
    update = jnp.broadcast_to(v, target_shape).reshape(sizes)
    return lax.dynamic_update_slice(x, update, starts)


def _setitem_numpy(x, v, *idx, key):
    out = x.copy()
    out[_materialize(key, idx)] = v
    return out


register("setitem", _setitem_abstract, _setitem_lower, numpy=_setitem_numpy)


# --- the Array-level entry points ---------------------------------------------------

def _is_basic(static) -> bool:
    return not any(isinstance(s, str) and s == ARRAY for s in static)


def getitem(x, key):
    """x[key]: a view Array for basic keys (as NumPy), a new Array otherwise."""
    check_slice_bounds(key)
    key = _known_masks(_constant_bounds(key))
    flag = _bool_scalar_key(key, x.ndim)
    if flag is not None:
        key, empty_axis = flag
        out = getitem(x, key)
        return out if empty_axis is None else getitem(out, _empty_at(empty_axis))
    if _is_mask(key):
        return masked.select(x, key)
    if masked.gathers_by_selection(x, key):
        return masked.gather(x, key)
    view_key = _ints_beside_selection(x, key)
    if view_key is not None:
        return getitem(getitem(x, view_key), _the_selection(key))
    gathered = _gather_under_one_mask(x, key)
    if gathered is not None:
        return gathered
    among = _mask_among_basic(x, key)
    if among is not None:
        return _select_among(*among)
    split = _runtime_slice_first(key, x.shape)
    if split is not None:
        slc, rest = split
        return masked.select_slice(getitem(x, (slice(None),) + rest) if rest else x, slc)
    lead = _integers_before_runtime_slice(key)
    if lead and lead < x.ndim:
        return getitem(getitem(x, key[:lead]), _after(key, lead))
    rows = _rows_then_runtime_slices(x, key)
    if rows is not None:
        return getitem(getitem(x, rows[0]), rows[1])
    if boxes.runtime_slice_key(key, x.shape) is not None:
        return boxes.select(x, key)
    static, arrays = normalize_key(key, x.shape)
    if require_in_bounds(static, arrays, x.shape):
        x = _empty_axes_widened(x, static)
    return _indexed(x, static, arrays)


def _ints_beside_selection(x, key):
    """A[i, idx[a:b]], A[idx[mask], j]: one integer selection among integer
    indices.  NumPy broadcasts those ints with it, which is indexing the
    view A[i, :] (the ints taken, a whole axis at the selection) by the
    selection alone; that view's key, else None."""
    if not isinstance(key, tuple) or len(key) > getattr(x, "ndim", 0):
        return None
    selections = [i for i in key if isinstance(i, masked.Selection)]
    if len(selections) != 1 or selections[0].dtype.kind not in "iu":
        return None
    if not all(isinstance(i, masked.Selection) or _integer_scalar(i) for i in key):
        return None
    return tuple(slice(None) if isinstance(i, masked.Selection) else i for i in key)


def _integer_scalar(i) -> bool:
    if isinstance(i, Array):
        return i.ndim == 0 and i.dtype.kind in "iu" and _scalar_index(i)
    return isinstance(i, (int, np.integer)) and not isinstance(i, bool)


def _the_selection(key):
    return next(i for i in key if isinstance(i, masked.Selection))


def _gather_under_one_mask(x, key):
    """img[yi[m], xi[m]] (an inverse-mapping warp: out[m] = img[yi[m], xi[m]])
    with every index a selection by one mask m: the selection by m of
    img[yi', xi'], where yi' is yi at m and 0 elsewhere (a position that
    is read and dropped), so the rows NumPy gathers are those m keeps, in
    order.  None for any other key."""
    items = key if isinstance(key, tuple) else (key,)
    if not items or not all(isinstance(i, masked.Selection) for i in items):
        return None
    first = items[0]
    if any(i.mask is not first.mask or i.view is not None or i.sliced or i.rest
           or i.descending is not False or i.dtype.kind not in "iu" for i in items) \
            or len(items) > x.ndim:
        return None
    mask = Array(first.mask)
    safe = tuple(NUMPY[np.where](mask, i.data, np.zeros((), i.dtype)) for i in items)
    return first.like(getitem(x, safe))


def row(x, i):
    """x[i] for an index i known to be in range (a loop over x's rows gives
    it), so a runtime one needs no bounds check."""
    static, arrays = normalize_key((i,), x.shape)
    return _indexed(x, static, arrays)


@implements(np.ndenumerate)
def ndenumerate(arr):
    """np.ndenumerate of a runtime array: its (index tuple, element) pairs in
    C order, each element a NumPy scalar as NumPy's iterator gives; an
    iterator, as NumPy's (next() takes the first), over static items."""
    from ..infer.iterators import held_iterator
    from ..infer.values import scalar_if_numpy_would
    return held_iterator((idx, scalar_if_numpy_would(arr, idx, getitem(arr, idx)))
                         for idx in np.ndindex(*arr.shape))


def _indexed(x, static, arrays):
    # A Python int (weak: `int(i)`, `i.item()`, a counter) is always a
    # scalar index, whatever kind a runtime branch gave the value it came from.
    kinds = [(True if a.weak else a.immutable) if a.ndim == 0 else False for a in arrays]
    # (basic indexing, or by NumPy scalars: a view; a DSLICE's start is no index array)
    if _is_basic(static) or all(k is True for k in kinds):
        with view_made():
            out = emit("getitem", x, *arrays, key=static)
        return Array(out.var, base=x, index=_view_index(static, arrays))
    out = emit("getitem", x, *arrays, key=static)
    if any(isinstance(k, RuntimeKind) for k in kinds):
        # A NumPy scalar on some paths, a 0-d array (advanced indexing: a copy)
        # on others: whether `out` is a view of x is decided at runtime.
        out.alias_note = ("it is a view of the indexed array when the index is a NumPy "
                          "scalar, and a copy when it is a 0-d array, which runtime branches "
                          "decided")
    return out


def _view_index(static, arrays) -> tuple:
    """The `index` of a view (see _view_key) from a normalized key."""
    values = iter([a.var for a in arrays])
    return tuple(next(values) if s is ARRAY else s + (next(values),) if _is_dslice(s) else s
                 for s in static)


def _view_key(index):
    """A view's index -> (normalized key, runtime index arrays): a runtime
    index is held as its Value, a DSLICE as (DSLICE, length, start Value)."""
    static = tuple(ARRAY if isinstance(s, Value) else s[:2] if _is_dslice(s) else s
                   for s in index)
    return static, [Array(s if isinstance(s, Value) else s[2]) for s in index
                    if isinstance(s, Value) or _is_dslice(s)]


def _runtime_slice_first(key, shape: tuple):
    """(slice, rest) when the key is a slice with a runtime bound or step on
    the first axis, then only static ints, static slices and `...`: such a
    slice takes a runtime number of rows, a selection (masked.select_slice).
    None for any other key, and for a slice of static length
    (fixed_length_slice)."""
    items = key if isinstance(key, tuple) else (key,)
    if not items or not shape or not isinstance(items[0], slice) or not any(
            _is_runtime(v) for v in (items[0].start, items[0].stop, items[0].step)):
        return None
    if fixed_length_slice(items[0], shape[0]) is not None:
        return None
    rest = items[1:]
    axes = _item_axes(rest, len(shape) - 1)
    plain = all(i is Ellipsis or _integer_scalar(i)
                or isinstance(i, slice) and not any(_is_runtime(v) for v in
                                                    (i.start, i.stop, i.step))
                # a window of static length (`A[k + 1:, k:k + 1]`)
                or axis is not None and fixed_length_slice(i, shape[1 + axis]) is not None
                for i, axis in zip(rest, axes))
    return (items[0], tuple(rest)) if plain else None


def _integer_scalar(i) -> bool:
    """An int index, static or runtime (`A[k:, k]` with k a loop's counter)."""
    if isinstance(i, Array):
        return i.ndim == 0 and i.dtype.kind in "iu"
    return isinstance(i, (int, np.integer)) and not isinstance(i, bool)


def _integers_before_runtime_slice(key) -> int:
    """How many int indices lead a key whose next item is a slice with a
    runtime bound or a runtime boolean mask: `L[i, :i]` is `L[i][:i]`, the
    row's runtime slice, and `out[i, m]` is `out[i][m]` (with a counter i,
    in a While: a mask beside a runtime int has no other lowering)."""
    if not isinstance(key, tuple):
        return 0
    for n, item in enumerate(key):
        if isinstance(item, slice):
            runtime = any(_is_runtime(v) for v in (item.start, item.stop, item.step))
            return n if runtime else 0
        if _is_mask(item):
            return n
        if not _integer_scalar(item):
            return 0
    return 0


def _after(key: tuple, lead: int):
    """The key's items from `lead` on; one item alone (a mask is a key of its own)."""
    rest = key[lead:]
    return rest[0] if len(rest) == 1 else rest


def _rows_then_runtime_slices(x, key):
    """LU's row swap of the trailing columns, `U[[k, p], k:] = U[[p, k], k:]`:
    integer index arrays (adjacent ones, whose axes NumPy keeps in place)
    beside slices, some with runtime bounds.  NumPy's x[key] is the
    gathered rows (a copy) sliced, so -> (the key with each runtime slice
    taken whole, the key that then slices the gathered array: its runtime
    slices on their axes, `:` elsewhere); None for any other key."""
    if not isinstance(key, tuple) or len(key) > x.ndim:
        return None
    arrays = [n for n, item in enumerate(key) if _integer_index_array(item)]
    if not arrays or arrays != list(range(arrays[0], arrays[-1] + 1)):
        return None
    others = [(n, item) for n, item in enumerate(key) if n not in arrays]
    if not all(isinstance(item, slice) for _, item in others):
        return None
    runtime = {n for n, item in others if _runtime_bounds(item)
               and fixed_length_slice(item, x.shape[n]) is None}
    if not runtime:
        return None
    gather = tuple(slice(None) if n in runtime else item for n, item in enumerate(key))
    depth = max(1 if isinstance(key[n], list) else key[n].ndim for n in arrays)  # their axes
    kept = [key[n] if n in runtime else slice(None) for n in range(len(key))]
    return gather, tuple(kept[:arrays[0]] + [slice(None)] * depth + kept[arrays[-1] + 1:])


def _integer_index_array(item) -> bool:
    """A list of ints (static or runtime) or an integer array of 1 or more
    dimensions: an index array, not a mask."""
    if isinstance(item, list):
        return bool(item) and all(_integer_scalar(i) for i in item)
    if isinstance(item, (np.ndarray, Array)):
        return item.ndim > 0 and item.dtype.kind in "iu"
    return False


def _runtime_bounds(item: slice) -> bool:
    return any(_is_runtime(v) for v in (item.start, item.stop, item.step))


def _is_advanced(key) -> bool:
    """Whether `key` indexes with an array or list (fancy or mask indexing)."""
    return any(isinstance(k, (list, np.ndarray)) or isinstance(k, Array) and (
        k.ndim or k.dtype == np.bool_) for k in (key if isinstance(key, tuple) else (key,)))


def _is_mask(key) -> bool:
    return _is_runtime(key) and key.dtype == np.bool_


def check_python_number_fits(value, dtype, numpy_scalars=True):
    """x[i] = 300 with x int8 raises OverflowError in NumPy 2 (no wrapping),
    and so does x[i] = -1.7 with x uint8: a Python float goes in as int()
    makes it (-1); x[i] = np.inf or np.nan with x an integer array raises
    too.  Each item of a list or tuple is converted alike.  A value known
    only at run time is checked at run time: a Python number, and with
    `numpy_scalars` a NumPy scalar going into a signed integer array,
    which NumPy converts as int() too where it stores one item, a slice or
    a fill value (a fancy or masked store, np.insert cast it instead)."""
    if dtype.kind not in "iu":
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            check_python_number_fits(item, dtype, numpy_scalars)
        return
    if isinstance(value, Array):
        _require_runtime_number_fits(value, dtype, numpy_scalars)
        return
    if isinstance(value, float) and not np.isfinite(value):
        what = "NaN" if np.isnan(value) else "infinity"
        raise UserCodeError(f"{'ValueError' if what == 'NaN' else 'OverflowError'}: cannot "
                            f"convert float {what} to integer",
                            hint=f"an element of a {dtype} array: use a float array, or a "
                                 "sentinel integer")
    if type(value) is float:
        value = int(value)
    if type(value) is int and not np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
        raise elementwise.python_int_out_of_bounds(value, dtype)


def check_each_python_number_fits(rows: Array, item: Array, dtype):
    """check_python_number_fits of each item of a list whose items are the
    rows of `rows`, in order, each of `item`'s kind (a list a counted loop
    grew: stacking.py), as ONE check: of the first row that fails, which is
    where NumPy's item-by-item conversion raises.  A check per item is a
    chain through the error code that XLA compiles in time superlinear in
    the items (a minute for 300)."""
    dtype = np.dtype(dtype)
    if not checked_as_numbers(item, dtype):
        return
    fits = elementwise.int_conversion_fits(rows, dtype) if rows.dtype.kind == "f" \
        else elementwise.int_fits(rows, dtype)
    if fits is None:
        return
    first_misfit = NUMPY[np.argmax](emit("logical_not", fits))
    picked = getitem(rows, first_misfit)        # (row 0 where every row fits)
    if rows.dtype.kind == "f":
        elementwise.require_int_conversion(picked, dtype)
    else:
        elementwise.require_int_fits(picked, dtype)


def checked_as_numbers(value, dtype) -> bool:
    """Whether np.array([value, ...], dtype) checks that `value` fits."""
    return np.dtype(dtype).kind in "iu" and _converted_as_a_number(value, dtype)


def _converted_as_a_number(value, dtype) -> bool:
    """Whether a store of `value` into a `dtype` array (an integer one)
    converts it as int() does, with checks, rather than casting it."""
    if not isinstance(value, Array) or value.ndim or value.dtype.kind not in "iuf":
        return False    # an array's items are cast (unsafely), not converted one by one
    # a NumPy scalar into an unsigned array, or a fancy store: cast
    return bool(value.weak or dtype.kind == "i" and value.immutable is True)


def _require_runtime_number_fits(value, dtype, numpy_scalars):
    if not _converted_as_a_number(value, dtype) or not (numpy_scalars or value.weak):
        return
    if value.dtype.kind == "f":
        elementwise.require_int_conversion(value, dtype)
    else:
        elementwise.require_int_fits(value, dtype)


def check_python_item(value, dtype, numpy_scalars=True):
    """A Python number (or a list of them) going into an array as its items
    (x[i] = v, a.fill(v), initial=v), which NumPy converts with float() or
    int(): a Python complex into a real array raises TypeError there (a
    NumPy complex only warns and drops its imaginary part), and integers
    must fit (check_python_number_fits)."""
    if dtype.kind in "iuf" and _holds_python_complex(value):
        conversion = ("float() argument must be a string or a real number" if dtype.kind == "f"
                      else "int() argument must be a string, a bytes-like object or a real "
                           "number")
        raise DTypeError(f"{conversion}, not 'complex' (an element of a {dtype} array)",
                         hint="use a complex array, or assign the real part (v.real)")
    check_python_number_fits(value, dtype, numpy_scalars)


def _holds_python_complex(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_python_complex(item) for item in value)
    return type(value) is complex or isinstance(value, Array) and value.weak and \
        value.dtype.kind == "c"


def setitem(x, key, value):
    check_slice_bounds(key)
    key = _known_masks(_constant_bounds(key))
    flag = _bool_scalar_key(key, x.ndim)
    if flag is not None:
        key, empty_axis = flag
        if empty_axis is None:
            setitem(x, key, value)
        else:               # (nothing is stored; the value must still broadcast)
            setitem(getitem(x, key), _empty_at(empty_axis), value)
        return
    check_python_item(value, x.dtype, numpy_scalars=not _is_advanced(key))
    if _is_mask(key):
        masked.assign(x, key, value)
        return
    if masked.gathers_by_selection(x, key):
        masked.scatter(x, key, value)
        return
    view_key = _ints_beside_selection(x, key)
    if view_key is not None:
        setitem(getitem(x, view_key), _the_selection(key), value)   # (into a view of x)
        return
    among = _mask_among_basic(x, key)
    if among is not None:
        _assign_among(x, *among, value)
        return
    split = _runtime_slice_first(key, x.shape)
    if split is not None:
        slc, rest = split
        target = getitem(x, (slice(None),) + rest) if rest else x     # a view: writes go to x
        masked.assign_slice(target, slc, value)
        return
    lead = _integers_before_runtime_slice(key)
    if lead and lead < x.ndim and all(_scalar_index(i) for i in key[:lead]):
        setitem(getitem(x, key[:lead]), _after(key, lead), value)    # into a view of x's row
        return
    rows = _rows_then_runtime_slices(x, key)
    if rows is not None:            # (the rows gathered, their slice assigned, put back)
        gathered = getitem(x, rows[0])
        setitem(gathered, rows[1], value)
        setitem(x, rows[0], gathered)
        return
    if boxes.runtime_slice_key(key, x.shape) is not None:
        boxes.assign(x, key, value)
        return
    try:
        static, arrays = normalize_key(key, x.shape)
    except EmptyAxisIndex:
        return          # (an array without elements: nothing to store)
    if require_in_bounds(static, arrays, x.shape):
        return          # (likewise; the call raises NumPy's IndexError)
    x.set(emit("setitem", x, value, *arrays, key=static).var)


def _bool_scalar_key(key, ndim):
    """x[..., True] / x[None, False]: a static bool scalar indexes as a 0-d
    mask, a new axis of length 1 (True) or 0 (False) where it stands.
    -> (the key with None for it, that axis of the result where False, else
    None); None when the key has no bool scalar.  Beside slices, None and
    Ellipsis only: with ints or index arrays NumPy broadcasts it as an
    advanced index, which this does not follow."""
    items = key if isinstance(key, tuple) else (key,)
    found = [i for i, item in enumerate(items) if isinstance(item, (bool, np.bool_))]
    if not found:
        return None
    if len(found) > 1 or not all(i in found or item is None or item is Ellipsis or
                                 isinstance(item, slice) for i, item in enumerate(items)):
        raise UnsupportedError(
            "a boolean scalar index beside integer or array indices is not supported",
            hint="write the new axis as None (x[None] for x[True]) and index it apart, "
                 "e.g. x[0][None] for x[0, True]")
    at = found[0]
    out_axis = sum(ndim - (len(items) - 1 - items.count(None) - items.count(Ellipsis))
                   if item is Ellipsis else 1 for item in items[:at])
    return items[:at] + (None,) + items[at + 1:], None if items[at] else out_axis


def _empty_at(axis: int) -> tuple:
    return (slice(None),) * axis + (slice(0, 0),)


def _mask_among_basic(x, key):
    """x[..., mask, ...] with static ints, slices and None around one runtime
    mask (X[m, 0], X[m, 1:], n[m, None], X[:, colmask], A[..., m]):
    (a view of x by the other items, that key with `:` for the mask's axes,
    the mask, the axis of the view where the mask's axes start); None for
    other keys.  The mask's length is checked here, as NumPy checks it,
    against the axes of x it indexes."""
    items = key if isinstance(key, tuple) else (key,)
    found = [i for i, item in enumerate(items) if _is_mask(item)]
    if len(items) < 2 or len(found) != 1 or not all(
            i in found or item is Ellipsis or item is None or _static_basic(item)
            for i, item in enumerate(items)):
        return None
    mask = items[found[0]]
    others = sum(1 for item in items if item is not None and item is not Ellipsis) - 1
    free = x.ndim - others - mask.ndim
    if free < 0:
        return None         # (too many indices: normalize_key says so)
    wide = []
    for item in items:
        if item is Ellipsis:
            wide.extend([slice(None)] * free)
            free = 0
        elif item is mask:
            start = len(wide)
            wide.extend([slice(None)] * mask.ndim if mask.ndim else [None])
        else:
            wide.append(item)
    before = wide[:start]
    x_axis = sum(1 for item in before if item is not None)
    masked.checked_mask(x.shape[x_axis:], mask, first_axis=x_axis)
    if mask.ndim == 0:      # a new axis of length 1 that it keeps or not, as NumPy's
        mask = _raveled(mask)
    at = sum(1 for item in before if item is None or isinstance(item, slice))
    view = getitem(x, tuple(wide))
    if at and _ints_apart_from_mask(wide, start, mask.ndim):
        from .shape import moveaxis        # (a view: writes through it go into x)
        view = moveaxis(view, tuple(range(at, at + mask.ndim)), tuple(range(mask.ndim)))
        at = 0
    return view, tuple(wide), mask, at


def _ints_apart_from_mask(wide: list, start: int, ndim: int) -> bool:
    """Whether a slice or None stands between an int and the mask (at
    wide[start:start + ndim]): NumPy's ints are advanced indices beside a
    mask, and advanced indices that are not side by side put their axis
    first (A[0, :, m] has shape (k, A.shape[1]))."""
    ints = [n for n, item in enumerate(wide) if not (item is None or isinstance(item, slice))]
    if not ints:
        return False
    first, last = min(ints + [start]), max(ints + [start + ndim - 1])
    return any(item is None or isinstance(item, slice)
               for n, item in enumerate(wide[first:last + 1], first)
               if not start <= n < start + ndim)


def _select_among(view, wide, mask, at):
    """x[key] for a _mask_among_basic key.  Where the mask's axes lead the
    view it is x[mask] of the view (masked.Selection); behind whole axes
    (X[:, m], of shape (n, k)) it is a boxes.Box, which keeps the axes
    before and after the selected one, as NumPy's result has them: a 1-d
    mask on its axis, a mask of several axes raveled over them merged
    into one (NumPy's result has one axis for them).  A copy, as NumPy's
    mask indexing copies."""
    if at == 0:
        return masked.select(view, mask)
    merged = _merged_mask_axes(view, mask, at)
    masks = [None] * merged.ndim
    masks[at] = mask if mask.ndim == 1 else _raveled(mask)
    return boxes.boxed(Array(merged.var), masks, sliced=False)


def _assign_among(x, view, wide, mask, at, value):
    """x[key] = value for a _mask_among_basic key: into the view's selected
    elements (X[:, m] = 0, X[:, m] -= X[:, m].mean(axis=0))."""
    if at == 0:
        masked.assign(view, mask, value)
        return
    after = view.ndim - at - mask.ndim       # NumPy's result: (at axes, k, after axes)
    shape = np.shape(value) if not isinstance(value, masked.Selection) else ()
    if len(shape) > after and shape[len(shape) - after - 1] != 1:
        raise ShapeError(
            f"x[:, mask] = values with an array of values of shape {shape}: its axis "
            f"{len(shape) - after - 1} would have to match the number of True values in the "
            "mask, which is data-dependent",
            hint="assign a scalar or an array of length 1 on that axis, or keep the shape: "
                 "x[...] = np.where(mask, new, x[...]) with `new` of that shape")
    masks = [None] * (at + 1 + after)
    masks[at] = mask if mask.ndim == 1 else _raveled(mask)
    if mask.ndim == 1:
        boxes.store(view, masks, value)         # (a view: the writes go into x)
        return
    merged = _merged_mask_axes(view, mask, at)  # (a reshape: a copy, written back)
    boxes.store(merged, masks, value)
    from .shape import reshape
    setitem(x, wide, reshape(merged, view.shape))


def _merged_mask_axes(view, mask, at):
    """The view with the mask's axes merged into one (a 2-d mask behind `:`)."""
    if mask.ndim == 1:
        return view
    from .shape import reshape
    return reshape(view, view.shape[:at] + (-1,) + view.shape[at + mask.ndim:])


def _raveled(mask):
    from .shape import reshape
    return reshape(mask, (-1,))


def _static_basic(item) -> bool:
    """A static int or a slice with static bounds."""
    if isinstance(item, slice):
        return not any(_is_runtime(v) for v in (item.start, item.stop, item.step))
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _scalar_index(i) -> bool:
    """An int index that NumPy's basic indexing takes (a view), not a 0-d
    integer array (advanced indexing: a copy)."""
    return not isinstance(i, Array) or i.weak or i.immutable is True


_PY_NUMBERS = (bool, int, float, complex)


def static_number_table(items):
    """A static list of numbers indexed by a runtime position, as one constant
    (None if the items are not all numbers).  Its dtype is NumPy's for the list;
    it is weak when every item is a Python number, as the item Python returns is.
    (An IntEnum member is no number here: the item is the member.)"""
    from ..infer import builder
    if not (isinstance(items, (list, tuple)) and items and
            all(isinstance(v, _PY_NUMBERS + (np.generic,)) and not isinstance(v, enum.Enum)
                for v in items)):
        return None
    try:
        table = np.asarray(items)
    except (OverflowError, ValueError):
        return None
    if table.dtype.kind not in "biufc":
        return None         # e.g. Python ints beyond 64 bits
    value = builder.const_value(table)
    if not any(isinstance(v, np.generic) for v in items):
        aval = AVal(table.dtype, table.shape, True)
        (value,) = builder.emit_op("convert", (value,), {"dtype": table.dtype}, (aval,))
    return Array(value)


class _ViewIndex(tuple):
    """The `index` of a view that is not basic indexing: equal only to an
    index of the same kind and contents."""
    __slots__ = ()

    def __eq__(self, other):
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self), tuple(self)))


class Permuted(_ViewIndex):
    """The `index` of a transposed view (x.T, np.transpose, swapaxes,
    moveaxis): its axes permutation.  NumPy returns a view, so writes into
    it go through to the base."""
    __slots__ = ()


class Reshaped(_ViewIndex):
    """The `index` of a reshaped view (reshape or ravel of a C-contiguous
    array, expand_dims, squeeze): the view's shape.  Writes go through."""
    __slots__ = ()


class ComplexPart(_ViewIndex):
    """The `index` of x.real or x.imag of a complex array: ("real",) or
    ("imag",).  Writes go through: the base gets the other part kept."""
    __slots__ = ()


class Retyped(_ViewIndex):
    """The `index` of x.view(dtype), the same bytes as a dtype of the same
    size: (the dtype's str,).  Writes go through, cast back."""
    __slots__ = ()


class Broadcast(_ViewIndex):
    """The `index` of np.broadcast_to's read-only view: (its shape,).  A
    later write into the base shows through it, as in NumPy."""
    __slots__ = ()


class Diagonal(_ViewIndex):
    """The `index` of a diagonal view (np.diagonal, x.diagonal(),
    einsum('ii->i')): (offset, axis1, axis2).  NumPy's diagonal steps by the
    sum of the two axes' strides, so it views any array, whatever its
    layout (a slice, a transpose, a Fortran-ordered argument): writes go
    through, and a later write into the base shows through."""
    __slots__ = ()


class Windowed(_ViewIndex):
    """The `index` of sliding_window_view's read-only view: (the window
    shape, the windowed axes).  A later write into the base shows through."""
    __slots__ = ()


def reshape_is_view(a, shape) -> bool:
    """Whether NumPy's reshape of Array `a` to `shape` is a view: when its
    strides allow one (x[:, 1:] of a (3, 2) array, one column, merges into
    a flat view; of a (3, 4) array it does not), as NumPy decides."""
    if a.base is None and a.layout_of is None:
        view = reshape_of_input_is_view(a, shape)
        if view is not None:
            return view
        return True
    layout = _numpy_layout(a)
    try:
        layout.reshape(shape, copy=False)       # a view, or ValueError: never copies
        return True
    except (ValueError, TypeError):
        return False


def is_c_contiguous(a) -> bool:
    """Whether NumPy's array for Array `a` is C-contiguous, so that ravel
    gives a view.  Arrays the program makes are; an input is if the array
    passed is (the call re-checks it: builder.is_c_contiguous_root); a view
    is if the strides of its base's layout indexed as it was are."""
    if a.base is None and a.layout_of is None:
        return is_c_contiguous_root(a)
    return bool(_numpy_layout(a).flags.c_contiguous)


def is_f_contiguous(a) -> bool:
    """Whether NumPy's array for Array `a` is F-contiguous (a.T of a
    C-contiguous one; a 1-d contiguous one is both)."""
    return bool(_numpy_layout(a).flags.f_contiguous)


def _numpy_layout(a) -> np.ndarray:
    """A NumPy array with the shape and strides NumPy's array for Array `a`
    has (its data is never read: only its layout is asked): the input's own
    array, a C-contiguous stand-in for one the program makes, and for a view
    its base's layout indexed, transposed or reshaped as the view was."""
    if a.base is None:
        strided = input_stand_in(a)
        if strided is not None:
            return strided
        dtype = np.dtype(a.dtype)
        axes = range(a.ndim) if _keeps_f_order(a) else range(a.ndim - 1, -1, -1)
        strides, step = [0] * a.ndim, dtype.itemsize
        for axis in axes:           # (from the axis whose elements are adjacent)
            strides[axis] = step
            step *= max(a.shape[axis], 1)
        return np.lib.stride_tricks.as_strided(np.zeros(1, dtype), a.shape, tuple(strides))
    base, index = _numpy_layout(a.base), a.index
    if type(index) is Reshaped:
        return base.reshape(tuple(index), copy=False)
    if type(index) is Permuted:
        return base.transpose(tuple(index))
    if type(index) is ComplexPart:
        return getattr(base, index[0])
    if type(index) is Retyped:
        return base.view(index[0])
    if type(index) is Broadcast:
        return np.broadcast_to(base, index[0])
    if type(index) is Windowed:
        return np.lib.stride_tricks.sliding_window_view(base, index[0], index[1])
    if type(index) is Diagonal:
        return np.diagonal(base, *index)
    return base[tuple(_layout_key(k) for k in index)]


def _keeps_f_order(a) -> bool:
    """Whether NumPy lays out new array `a` (made with order 'K' from the
    arrays in a.layout_of: `A + 1`, `A.astype(float)`) in Fortran order:
    where those of its shape are F- and not C-contiguous (np.asfortranarray's,
    a.T).  Where they differ, NumPy's choice follows their strides in ways
    this does not: C order, as before."""
    sources = [s for s in a.layout_of or () if s.shape == a.shape]
    return a.ndim > 1 and bool(sources) and all(
        is_f_contiguous(s) and not is_c_contiguous(s) for s in sources)


def _layout_key(k):
    """One entry of a basic view's index as a NumPy index of the same
    layout: a runtime int as 0, a runtime window as one at 0."""
    if _is_dslice(k):
        return slice(0, k[1])
    if _is_static_slice(k):
        return slice(*k[1:])
    return 0 if isinstance(k, Value) else k


def numpy_view(index):
    """The NumPy function making the view a static view `index` describes
    (of the caller's array, after a call), or None for a runtime one."""
    if type(index) is Permuted:
        return functools.partial(np.transpose, axes=tuple(index))
    if type(index) is Reshaped:
        return functools.partial(np.reshape, shape=tuple(index))
    if type(index) is ComplexPart:
        return operator.attrgetter(index[0])
    if type(index) is Retyped:
        return operator.methodcaller("view", index[0])
    if type(index) is Broadcast:
        return functools.partial(np.broadcast_to, shape=index[0])
    if type(index) is Windowed:
        return functools.partial(np.lib.stride_tricks.sliding_window_view,
                                 window_shape=index[0], axis=index[1])
    if type(index) is Diagonal:
        return functools.partial(_writeable_diagonal, offset=index[0], axes=tuple(index[1:]))
    if any(_is_dslice(k) or isinstance(k, Value) for k in index):
        return None
    key = tuple(slice(*k[1:]) if _is_static_slice(k) else k for k in index)
    return operator.itemgetter(key)


def _writeable_diagonal(array, offset, axes):
    """np.diagonal's view of `array`, writeable as einsum('ii->i')'s is:
    the same shape and strides from the diagonal's first element."""
    diagonal = np.diagonal(array, offset, *axes)
    moved = np.moveaxis(array, axes, (-2, -1))
    first = moved[..., max(-offset, 0):, max(offset, 0):]
    return np.lib.stride_tricks.as_strided(first, diagonal.shape, diagonal.strides)


def chained_view(views: list):
    """One function making NumPy's view through `views` in turn (a view
    of a view: `a[1:][::2]`), None for none."""
    if len(views) <= 1:
        return views[0] if views else None
    return functools.partial(_apply_views, tuple(views))


def _apply_views(views: tuple, array):
    for view in views:
        array = view(array)
    return array


def basic_index_value(base, index):
    """The current value of a view: its base's value indexed again."""
    if type(index) is Permuted:
        return emit("transpose", base, perm=tuple(index)).var
    if type(index) is Reshaped:
        return emit("reshape", base, shape=tuple(index)).var
    if type(index) is ComplexPart:
        return emit(index[0], base).var
    if type(index) is Retyped:
        return emit("bitcast", base, dtype=np.dtype(index[0])).var
    if type(index) is Broadcast:
        return emit("broadcast_to", base, shape=index[0]).var
    if type(index) is Windowed:
        from .shape import windows
        return windows(base, *index).var
    if type(index) is Diagonal:
        from .shape import diagonal_values
        return diagonal_values(base, *index).var
    static, arrays = _view_key(index)
    return emit("getitem", base, *arrays, key=static).var


def write_through(base, index, value):
    """A write to a view writes into its base."""
    if type(index) is Permuted:
        inverse = tuple(int(i) for i in np.argsort(index))
        base.set(emit("transpose", Array(value), perm=inverse).var)
        return
    if type(index) is Reshaped:
        base.set(emit("reshape", Array(value), shape=base.shape).var)
        return
    if type(index) is ComplexPart:
        parts = (Array(value), emit("imag", base)) if index[0] == "real" else \
            (emit("real", base), Array(value))
        base.set(emit("complex", *parts).var)
        return
    if type(index) is Retyped:
        base.set(emit("bitcast", Array(value), dtype=base.dtype).var)
        return
    if type(index) is Diagonal:
        from .shape import with_diagonal
        base.set(with_diagonal(base, *index, value).var)
        return
    static, arrays = _view_key(index)
    base.set(emit("setitem", base, value, *arrays, key=static).var)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer import guarded_ranges  # noqa: E402
from ..infer.builder import (const_value, ctx, emit, input_stand_in,  # noqa: E402
                             is_c_contiguous_root, reshape_of_input_is_view)
from ..infer.values import (Array, RuntimeKind, array_like, known_constant,  # noqa: E402
                             known_integer, view_made)
