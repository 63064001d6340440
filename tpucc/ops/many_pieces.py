"""np.concatenate / np.stack of many pieces, built from the array the
pieces come from instead of one `concatenate` of all of them.

XLA:CPU compiles a concatenate of n computed operands (slices of an array,
each reshaped or multiplied) as one loop whose every element picks its
operand: ~50 ms of compile per operand, superlinear in LLVM.  A list
comprehension of 400 rows concatenated was 18 s; 1024 image patches
stacked, 52 s.  When the pieces are

- views of one array at static positions (`x[i]`, `x[:, j:j+2]`,
  `np.split(x, k)`, patches `img[i:i+p, j:j+p]`), the result is that
  array's elements in an order known here: one reshape when they come in
  memory order, else one gather with a constant index (the positions are
  worked out by NumPy itself, on an arange of the array's shape);
- the rows of a buffer a counted loop filled (`[x[:, j] * 2 for j in
  range(200)]`, infer/stacking.py), stacking is that buffer, and
  concatenating on axis k is the buffer with its rows moved to axis k,
  merged with it (a transpose and a reshape).
"""
from __future__ import annotations

import numpy as np

from ..infer import builder, stacking
from ..infer.values import Array
from . import indexing

# Fewer views than this are concatenated as they are: a concatenate of a
# few slices compiles fast and runs without a gather.
MANY_VIEWS = 16
# A gather's constant index beyond this many elements would bloat the
# module more than the concatenate it replaces costs.
_MAX_GATHER_INDEX = 1 << 22


def stacked_rows(arrays, dtype):
    """np.stack(arrays) on axis 0 as one array made from the pieces'
    source (see the module docstring), or None.  The result is new (never
    a view of the source): NumPy's stack copies.  Its dtype may differ from
    `dtype` (views: their source's); the caller casts."""
    arrays = list(arrays)
    whole = stacking.whole_buffer(arrays, dtype)
    if whole is not None:
        return whole
    if len(arrays) < MANY_VIEWS:
        return None
    if len({getattr(a, "shape", None) for a in arrays}) != 1:
        return None
    return _gathered_views(arrays, lambda idx: np.stack(idx))


def concatenated(arrays, axis: int | None):
    """np.concatenate(arrays, axis) made from the pieces' source, or None
    (dtypes are the caller's business: the pieces all have the source's)."""
    arrays = list(arrays)
    if not arrays or any(not isinstance(a, Array) or not a.shape for a in arrays):
        return None
    if axis is not None and len({a.shape for a in arrays}) == 1:
        rows = stacking.whole_buffer(arrays)
        if rows is not None:
            return _rows_merged_into(rows, axis)
    if len(arrays) < MANY_VIEWS:
        return None
    return _gathered_views(arrays, lambda idx: np.concatenate(idx, axis=axis))


def _rows_merged_into(rows, axis: int):
    """Stacked pieces (n, *s) concatenated on axis k of s: row t's slab
    lands at t * s[k] on axis k, which is moving axis 0 to just before k
    and merging the two."""
    n, piece = rows.shape[0], rows.shape[1:]
    perm = tuple(range(1, axis + 1)) + (0,) + tuple(range(axis + 1, len(piece) + 1))
    moved = builder.emit("transpose", rows, perm=perm)
    shape = piece[:axis] + (n * piece[axis],) + piece[axis + 1:]
    return Array(builder.emit("reshape", moved, shape=shape).var)


def _gathered_views(arrays, join):
    """The pieces, views of one array, joined as `join` joins their
    positions in it; None when they are not such views."""
    root = _common_root(arrays)
    if root is None or not all(type(d) is int for d in root.shape) \
            or root.size > _MAX_GATHER_INDEX:
        return None
    positions = np.arange(root.size).reshape(root.shape)
    picked = [_positions_in_root(a, positions) for a in arrays]
    if any(p is None for p in picked):
        return None
    index = join(picked)
    if index.size > _MAX_GATHER_INDEX:
        return None
    flat = builder.emit("reshape", root, shape=(root.size,))
    if np.array_equal(index.ravel(), np.arange(root.size)):
        return Array(builder.emit("reshape", flat, shape=index.shape).var)
    small = index.astype(np.int32 if root.size < 2 ** 31 else np.int64)
    return Array(indexing.getitem(flat, small).var)


def _common_root(arrays):
    root = None
    for a in arrays:
        r = a
        while r.base is not None:
            r = r.base
        if r is a or root is not None and r is not root:
            return None
        root = r
    return root


def _positions_in_root(view, positions):
    """The positions in its root of each element of `view` (a view at
    static positions: basic indexing, transposes, reshapes), as NumPy
    finds them by applying the same views to `positions`; else None."""
    chain = []
    while view.base is not None:
        chain.append(view.index)
        view = view.base
    out = positions
    for index in reversed(chain):
        out = _apply_view(out, index)
        if out is None:
            return None
    return out


def _apply_view(values, index):
    if type(index) is indexing.Permuted:
        return values.transpose(tuple(index))
    if type(index) is indexing.Reshaped:
        return values.reshape(tuple(index))
    if type(index) is not tuple:
        return None
    key = [_static_key_item(i) for i in index]
    return None if any(k is _RUNTIME for k in key) else values[tuple(key)]


_RUNTIME = object()


def _static_key_item(item):
    """A view index's entry (indexing.normalize_key's) as NumPy's key, or
    _RUNTIME for one known only at run time."""
    if item is None or item is Ellipsis or type(item) is int:
        return item
    if type(item) is tuple and item[0] == "slice" \
            and all(v is None or type(v) is int for v in item[1:]):
        return slice(*item[1:])
    return _RUNTIME
