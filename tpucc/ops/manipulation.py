"""Array manipulation composed of other ops (no op of its own): the split
family, atleast_1d/2d/3d, broadcast_arrays, column_stack, dstack, meshgrid,
rot90, diff, append, insert, delete, block, unstack, choose, np.r_ / np.c_, and
np.broadcast's shape object.

What NumPy returns as a view (the pieces of a split, atleast_*) is a basic
indexing view here too, so a write into it reaches the array it came from.
"""
from __future__ import annotations

from itertools import accumulate

import numpy as np

from ..errors import ShapeError, UnsupportedError, UserCodeError
from .registry import (NUMPY, as_array_operand, broadcast_shapes, implements, normalize_axis,
                       static_index)
from .shape import (broadcast_to, concatenate, flip, moveaxis, ravel, read_only, reshape, transpose,
                    where)


def as_array(x):
    """np.asanyarray inside compiled code: an Array, the same one if it is one."""
    return asarray(x)


def along(axis: int, item) -> tuple:
    """The index that applies `item` to axis `axis` and keeps the others."""
    return (slice(None),) * axis + (item,)


# --- split ------------------------------------------------------------------------------

def _is_index_list(spec) -> bool:
    """NumPy's test: a spec with a length is a list of split points, anything
    else a number of sections (a 0-d array has no length)."""
    try:
        len(spec)
    except TypeError:
        return False
    return True


def _axis_length(ary, axis) -> int:
    if ary.ndim == 0:
        raise ShapeError("cannot split a 0-d array (it has no axis to split along)")
    return ary.shape[normalize_axis(axis, ary.ndim)]


def _split_points(spec, length: int) -> list:
    if _is_index_list(spec):
        return [0] + [static_index(i) for i in spec] + [length]
    sections = int(spec)    # NumPy: int() of the count, so 2.0 (and 2.5) mean 2
    if sections <= 0:
        raise ShapeError("number sections must be larger than 0.")
    each, extra = divmod(length, sections)
    return list(accumulate([0] + [each + 1] * extra + [each] * (sections - extra)))


@implements(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    ary = as_array(ary)
    points = _split_points(indices_or_sections, _axis_length(ary, axis))
    axis = normalize_axis(axis, ary.ndim)
    return [ary[along(axis, slice(lo, hi))] for lo, hi in zip(points, points[1:])]


@implements(np.split)
def split(ary, indices_or_sections, axis=0):
    ary = as_array(ary)
    if not _is_index_list(indices_or_sections):
        if _axis_length(ary, axis) % indices_or_sections:
            raise ShapeError("array split does not result in an equal division",
                             hint="use np.array_split for unequal pieces")
    return array_split(ary, indices_or_sections, axis)


def _directional_split(name, min_ndim, axis_of):
    def split_along(ary, indices_or_sections):
        ary = as_array(ary)
        if ary.ndim < min_ndim:
            raise ShapeError(f"{name} only works on arrays of {min_ndim} or more dimensions")
        return split(ary, indices_or_sections, axis_of(ary.ndim))
    return split_along


implements(np.hsplit)(_directional_split("hsplit", 1, lambda nd: 1 if nd > 1 else 0))
implements(np.vsplit)(_directional_split("vsplit", 2, lambda nd: 0))
implements(np.dsplit)(_directional_split("dsplit", 3, lambda nd: 2))


# --- atleast_*d -----------------------------------------------------------------------------

# The basic index that gives a view with the dimensions atleast_Nd adds, by
# the input's ndim (NumPy's own placement: a 1-d array becomes a row (1, n)
# for 2d and (1, n, 1) for 3d).
_ATLEAST_KEYS = {
    1: {0: (None,)},
    2: {0: (None, None), 1: (None, slice(None))},
    3: {0: (None, None, None), 1: (None, slice(None), None), 2: (Ellipsis, None)},
}


def _atleast(n):
    def atleast(*arys):
        out = []
        for a in arys:
            a = as_array(a)
            key = _ATLEAST_KEYS[n].get(a.ndim)
            out.append(a if key is None else a[key])
        return out[0] if len(out) == 1 else tuple(out)
    return atleast


atleast_1d = implements(np.atleast_1d)(_atleast(1))
atleast_2d = implements(np.atleast_2d)(_atleast(2))
atleast_3d = implements(np.atleast_3d)(_atleast(3))


# --- broadcast, broadcast_arrays, column_stack, dstack, meshgrid --------------------------

@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    arrays = [as_array(a) for a in args]
    shape = broadcast_shapes(*(a.shape for a in arrays))
    # (NumPy 2 makes these writeable, with a warning on write: not read-only)
    return tuple(a if a.shape == shape else read_only(broadcast_to(a, shape), BROADCAST_ARRAYS)
                 for a in arrays)


class Broadcast:
    """np.broadcast(a, b) of runtime arrays: what NumPy's object tells of the
    broadcast shape (shape, ndim, nd, size, numiter, index), all static.
    Its iteration (and `.iters`) would read the elements one at a time,
    which compiled code does not do: refused, not run on stand-ins."""
    __slots__ = ("shape", "numiter")

    def __init__(self, shapes):
        if len(shapes) > 64:
            raise UserCodeError("ValueError: Need at least 0 and at most 64 array objects.")
        self.shape = broadcast_shapes(*shapes) if shapes else ()
        self.numiter = len(shapes)

    ndim = nd = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    index = property(lambda self: 0)    # nothing iterated yet

    def reset(self):
        """Back to the first element, where it always is."""

    def __iter__(self):
        raise _refuse_broadcast_iteration()

    def __next__(self):
        raise _refuse_broadcast_iteration()

    @property
    def iters(self):
        raise _refuse_broadcast_iteration()


def _refuse_broadcast_iteration():
    return UnsupportedError("iterating np.broadcast(...) of runtime arrays (or its .iters) is "
                            "not supported: it reads the elements one at a time",
                            hint="compute on whole arrays: x, y = np.broadcast_arrays(a, b); "
                                 "its .shape, .ndim and .size compile")


@implements(np.broadcast)
def broadcast(*args):
    return Broadcast([a.shape if isinstance(a, Array) else np.shape(a) for a in args])


@implements(np.column_stack)
def column_stack(tup):
    columns = []
    for a in tup:
        a = as_array(a)
        columns.append(a if a.ndim >= 2 else reshape(a, -1, 1))
    return concatenate(columns, 1)


@implements(np.dstack)
def dstack(tup):
    arrays = atleast_3d(*tup)
    return concatenate(arrays if isinstance(arrays, tuple) else [arrays], 2)


@implements(np.meshgrid)
def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise UserCodeError("ValueError: Valid values for `indexing` are 'xy' and 'ij'.")
    n = len(xi)
    shapes = [(1,) * i + (-1,) + (1,) * (n - i - 1) for i in range(n)]
    if indexing == "xy" and n > 1:     # the first two axes swapped: x varies along columns
        shapes[0], shapes[1] = shapes[1], shapes[0]
    grids = [reshape(as_array(x), s) for x, s in zip(xi, shapes)]
    if not sparse:
        grids = broadcast_arrays(*grids)
    return tuple(copy_array(g) for g in grids) if copy else tuple(grids)


# --- rot90 -------------------------------------------------------------------------------

@implements(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    m = as_array(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ShapeError("len(axes) must be 2.")
    a, b = (static_index(x) for x in axes)
    if a == b or abs(a - b) == m.ndim:
        raise ShapeError("Axes must be different.")
    if not (-m.ndim <= a < m.ndim and -m.ndim <= b < m.ndim):
        raise ShapeError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = static_index(k) % 4
    if k == 0:
        return m[:]
    if k == 2:
        return flip(flip(m, a), b)
    perm = list(range(m.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(flip(m, b), perm) if k == 1 else flip(transpose(m, perm), b)


# --- diff ----------------------------------------------------------------------------------

_NO_VALUE = object()


@implements(np.diff)
def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    n = static_index(n)
    if n == 0:
        return a        # NumPy returns its argument itself
    if n < 0:
        raise ShapeError(f"order must be non-negative but got {n}")
    a = as_array(a)
    if a.ndim == 0:
        raise ShapeError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, a.ndim)
    ends = [_diff_end(v, a, axis) for v in (prepend, append)]
    if any(e is not None for e in ends):
        a = concatenate([x for x in (ends[0], a, ends[1]) if x is not None], axis)
    # booleans differ by not_equal: NumPy has no bool subtract
    step = (lambda hi, lo: hi != lo) if a.dtype == np.bool_ else (lambda hi, lo: hi - lo)
    for _ in range(n):
        a = step(a[along(axis, slice(1, None))], a[along(axis, slice(None, -1))])
    return a


def _diff_end(value, a, axis):
    """prepend= / append=: a scalar is broadcast to one slice along `axis`."""
    if value is _NO_VALUE:
        return None
    value = as_array(value)
    if value.ndim == 0:
        value = broadcast_to(value, a.shape[:axis] + (1,) + a.shape[axis + 1:])
    return value


# --- append / insert / delete --------------------------------------------------------------

@implements(np.append)
def append(arr, values, axis=None):
    arr = as_array(as_array_operand(arr))
    if axis is None:
        arr = arr if arr.ndim == 1 else ravel(arr)
        return concatenate([arr, ravel(as_array(as_array_operand(values)))], 0)
    return concatenate([arr, values], axis)


def _axis_plan(arr, obj, axis):
    """NumPy's start of insert and delete: axis=None works on the flat
    array; positions holding runtime values are an array of them."""
    arr = as_array(as_array_operand(arr))
    obj = known_integer(array_like(obj))
    if axis is None:
        return (arr if arr.ndim == 1 else ravel(arr)), obj, 0
    return arr, obj, normalize_axis(axis, arr.ndim)


def _runtime_position(obj, name, n: int, axis: int, end: bool):
    """np.insert / np.delete at ONE runtime integer position (a 0-d index,
    or a list or array of one): the result's shape is known whatever its
    value, so it is the position as an int64 0-d Array in [0, n) ([0, n]
    where `end`: np.insert may append), with NumPy's IndexError checked
    at run time.  None for static positions, which NumPy itself places."""
    if not isinstance(obj, Array):
        return None
    if obj.dtype.kind not in "biu":
        raise UserCodeError("IndexError: arrays used as indices must be of integer (or "
                            "boolean) type")
    if obj.size != 1 or obj.ndim > 1 or obj.dtype.kind == "b":
        raise UnsupportedError(f"np.{name} with several runtime indices or a runtime mask: the "
                               "result's shape would depend on their values",
                               hint=f"np.{name} at one runtime position at a time, or keep the "
                                    "shape and mask instead (`keep = np.arange(n) != i`, then "
                                    "`x.mean(where=keep)` or `np.where(keep, x, 0)`)")
    index = astype(reshape(obj, ()), np.int64)
    top = n if end else n - 1
    lo, hi = int_bounds(obj)
    if not -n <= lo <= hi <= top:
        _require((index >= -n) & (index <= top),
                 ("index ", index, f" is out of bounds for axis {axis} with size {n}"),
                 "IndexError", "NumPy raises IndexError here; compiled code checks the runtime "
                               "index and raises when the call returns")
    return where(index < 0, index + n, index)


def _gathered(arr, axis: int, source, size: int):
    """arr's slices along `axis` in the order `source` gives: static
    positions, or runtime ones that lie in [0, size) by construction (no
    bounds check of their own)."""
    if isinstance(source, Array):
        source.span = ranged_span(source.var, source.dtype, (0, size - 1))
    return arr[along(axis, source)]


@implements(np.insert)
def insert(arr, obj, values, axis=None):
    """The new array gathered (a permutation) from `arr` followed by the
    inserted values broadcast to their slot; NumPy itself, run on the
    positions 0..N-1, says where each goes (and raises what it raises).
    At one runtime position the shape is the same whatever it is: the
    gather's source is computed at run time."""
    arr, obj, axis = _axis_plan(arr, obj, axis)
    n = arr.shape[axis]
    position = _runtime_position(obj, "insert", n, axis, end=True)
    if position is not None:
        indices = np.zeros(obj.shape, np.int64)     # (its shape is all the layout needs)
    else:
        indices = np.arange(*obj.indices(n)) if isinstance(obj, slice) else np.asarray(obj)
    values = _as_dtype(values, arr.dtype)
    if indices.size == 1:           # one position: a block of values, as NumPy's own path
        values = values[(None,) * (arr.ndim - values.ndim)] if values.ndim < arr.ndim else values
        if indices.ndim == 0:
            values = moveaxis(values, 0, axis)
        count = values.shape[axis] if values.ndim else 1
    else:
        count = indices.size
    slot = arr.shape[:axis] + (count,) + arr.shape[axis + 1:]
    if position is None:
        source = np.insert(np.arange(n), obj, n + np.arange(count))
    else:                           # before it arr's own, then the count new ones, then the rest
        k = asarray(np.arange(n + count))
        source = where(k < position, k, where(k < position + count, n + k - position, k - count))
    joined = concatenate([arr, broadcast_to(values, slot)], axis)
    return _gathered(joined, axis, source, n + count)


def _as_dtype(values, dtype):
    """The inserted values as NumPy converts them (np.array(values, dtype)):
    static ones by NumPy now (its overflow errors included), runtime ones
    as np.array converts them (a runtime Python int must fit too)."""
    if isinstance(values, Array) or holds_runtime(values):
        return asarray(values, dtype)
    return asarray(np.array(values, dtype=dtype))


@implements(np.delete)
def delete(arr, obj, axis=None):
    """The slices kept, gathered: NumPy says which for static positions; at
    one runtime position (a leave-one-out loop's counter) the n - 1 kept
    are those before it, then those after it."""
    arr, obj, axis = _axis_plan(arr, obj, axis)
    n = arr.shape[axis]
    position = _runtime_position(obj, "delete", n, axis, end=False)
    if position is None:
        keep = np.delete(np.arange(n), obj)
    else:
        k = asarray(np.arange(max(n - 1, 0)))
        keep = k + astype(k >= position, np.int64)
    return _gathered(arr, axis, keep, n)


# --- block / unstack --------------------------------------------------------------------

@implements(np.block)
def block(arrays):
    """Nested lists of arrays: the innermost lists are joined along the
    last axis, the next ones along the one before, ...; every leaf first
    gets leading unit axes up to the result's ndim."""
    depth, leaves = _block_depth(arrays, ())
    ndim = max([depth] + [as_array(as_array_operand(x)).ndim for x in leaves])

    def joined(x, level):
        if isinstance(x, list):
            return concatenate([joined(y, level + 1) for y in x], level - depth)
        x = as_array(as_array_operand(x))
        return reshape(x, (1,) * (ndim - x.ndim) + x.shape)
    out = joined(arrays, 0)
    return copy_array(out) if depth == 0 else out


def _block_depth(x, index) -> tuple:
    """(nesting depth, leaves) of np.block's argument, with NumPy's errors."""
    if type(x) is tuple:
        raise UserCodeError(f"TypeError: arrays{''.join(f'[{i}]' for i in index)} is a tuple. "
                            "Only lists can be used to arrange blocks, and np.block does not "
                            "allow implicit conversion from tuple to ndarray.")
    if not isinstance(x, list):
        return 0, [x]
    if not x:
        raise UserCodeError(f"ValueError: List at arrays{''.join(f'[{i}]' for i in index)} "
                            "cannot be empty")
    parts = [_block_depth(y, index + (i,)) for i, y in enumerate(x)]
    if len({d for d, _ in parts}) != 1:
        raise UserCodeError("ValueError: List depths are mismatched in np.block")
    return parts[0][0] + 1, [leaf for _, ls in parts for leaf in ls]


@implements(np.unstack)
def unstack(x, *, axis=0):
    x = as_array(x)
    if x.ndim == 0:
        raise UserCodeError("ValueError: Input array must be at least 1-d.")
    axis = normalize_axis(axis, x.ndim)
    # NumPy iterates the moved array: the items of a 1-d one are NumPy scalars
    return tuple(scalar_if_numpy_would(x, along(axis, i), x[along(axis, i)])
                 for i in range(x.shape[axis]))


# --- choose ----------------------------------------------------------------------------------

@implements(np.choose, method="choose")
def choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i] for the broadcast shape: one select per choice.  An
    index out of range raises when the call returns (mode='raise'), wraps
    or clips."""
    if out is not None:
        raise UnsupportedError("np.choose(out=...) is not supported", hint="assign the result")
    if mode not in ("raise", "wrap", "clip"):
        raise UserCodeError(f"ValueError: clipmode must be one of 'clip', 'raise', or 'wrap' "
                            f"(got {mode!r})")
    a = as_array(as_array_operand(a))
    if a.dtype.kind not in "biu":
        raise UserCodeError(f"TypeError: Cannot cast array data from dtype('{a.dtype}') to "
                            "dtype('int64') according to the rule 'safe'")
    choices = [c if type(c) in (bool, int, float, complex) else as_array(c)
               for c in _choices(choices)]
    n = len(choices)
    if n == 0:
        raise UserCodeError("ValueError: 0-length sequence.")
    a = astype(a, np.int64)
    if mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = NUMPY[np.clip](a, 0, n - 1)
    else:
        checks.require(NUMPY[np.all]((a >= 0) & (a < n)), "invalid entry in choice array",
                       raises="ValueError")
    dtype = NUMPY[np.result_type](*choices)
    shape = broadcast_shapes(a.shape, *(np.shape(c) if not isinstance(c, Array) else c.shape
                                        for c in choices))
    result = broadcast_to(astype(asarray(choices[0]), dtype), shape)
    for k in range(1, n):
        result = where(a == k, astype(asarray(choices[k]), dtype), result)
    result = copy_array(result)
    if result.ndim == 0:
        result.immutable = True     # a NumPy scalar: NumPy's choose ends in PyArray_Return
    return result


def _choices(choices):
    if isinstance(choices, Array):      # a stacked array: its rows
        return [choices[i] for i in range(choices.shape[0])]
    return list(choices)


# --- np.r_ / np.c_ -------------------------------------------------------------------------

def index_trick(obj, key):
    """`np.r_[a, b]` / `np.c_[a, b]` on arrays and numbers, as NumPy's
    AxisConcatenator: each item made an array of at least `ndmin` axes (a
    1-d one placed as `trans1d` says), all in the result_type of the items
    (numbers weak), then concatenated along `axis`.  Slices and directive
    strings are refused."""
    items = key if isinstance(key, tuple) else (key,)
    if obj.matrix or any(isinstance(k, (str, slice)) for k in items):
        raise UnsupportedError(f"np.{type(obj).__name__[0].lower()}_[...] with a slice or a "
                               "directive string is not supported on runtime arrays",
                               hint="use np.concatenate / np.column_stack, and np.arange")
    ndmin, trans1d = obj.ndmin, obj.trans1d
    objs, kinds = [], []
    for item in items:
        scalar = type(item) in np.ScalarType or (isinstance(item, Array) and (
            item.weak or item.immutable))
        x = as_array(as_array_operand(item))
        kinds.append(item if scalar else x)     # numbers count weak (NEP 50)
        nd = x.ndim
        x = reshape(x, (1,) * max(ndmin - nd, 0) + x.shape)
        if not scalar and trans1d != -1 and nd < ndmin:
            k2, k1 = ndmin - nd, trans1d if trans1d >= 0 else trans1d + ndmin - nd + 1
            axes = list(range(ndmin))
            x = transpose(x, axes[:k1] + axes[k2:] + axes[k1:k2])
        objs.append(x)
    dtype = NUMPY[np.result_type](*kinds)
    for item in items:      # NumPy makes each one np.array(item, dtype=dtype)
        if _python_integer(item):
            check_python_number_fits(item, np.dtype(dtype), numpy_scalars=False)
    return concatenate([astype(x, dtype) for x in objs], obj.axis)


def _python_integer(item) -> bool:
    """A Python int, static or known at run time: np.array(-1, np.uint8)
    raises OverflowError where astype would wrap (a NumPy integer is strong,
    so the result dtype holds it already)."""
    if isinstance(item, Array):
        return item.weak and item.dtype.kind in "iu"
    return type(item) is int


# --- packbits / unpackbits: the bits of uint8 bytes along an axis ------------------------

# The bit each of a byte's 8 positions holds, by bitorder.
_BIT_SHIFTS = {"big": np.arange(7, -1, -1, dtype=np.uint8), "little": np.arange(8, dtype=np.uint8)}


def _bit_order(bitorder, unpacking: bool) -> np.ndarray:
    """The shifts for NumPy's spelling: packbits reads "big..." or
    "little...", unpackbits only the first letter."""
    if not isinstance(bitorder, str):
        raise UserCodeError(f"TypeError: {'un' if unpacking else ''}pack() argument "
                            f"{4 if unpacking else 3} must be str, not {type(bitorder).__name__}")
    for name in _BIT_SHIFTS:
        if bitorder.startswith(name[0] if unpacking else name):
            return _BIT_SHIFTS[name]
    raise UserCodeError("ValueError: 'order' must begin with 'l' or 'b'" if unpacking else
                        "ValueError: 'order' must be either 'little' or 'big'")


@implements(np.unpackbits)
def unpackbits(a, axis=None, count=None, bitorder="big"):
    """Each byte as 8 uint8 bits along `axis` (the flattened array's where
    None); `count` keeps that many bits (padding with zeros), or drops
    -count from the end."""
    a = as_array(a)
    if a.dtype != np.uint8:
        raise UserCodeError("TypeError: Expected an input array of unsigned byte data type")
    shifts = _bit_order(bitorder, unpacking=True)
    if axis is None or a.ndim == 0:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, a.ndim)
    bits = (a[..., None] >> shifts) & np.uint8(1)         # (..., n, ..., 8)
    bits = moveaxis(bits, -1, axis + 1)
    shape = a.shape[:axis] + (8 * a.shape[axis],) + a.shape[axis + 1:]
    bits = reshape(bits, shape)
    return bits if count is None else _bits_counted(bits, axis, count)


def _bits_counted(bits, axis: int, count: int):
    total = bits.shape[axis]
    keep = count if count >= 0 else total + count
    if keep < 0:
        raise UserCodeError("ValueError: -count larger than number of elements")
    if keep <= total:
        return bits[along(axis, slice(0, keep))]
    zeros = NUMPY[np.zeros](bits.shape[:axis] + (keep - total,) + bits.shape[axis + 1:],
                            np.uint8)
    return concatenate([bits, zeros], axis)


@implements(np.packbits)
def packbits(a, axis=None, bitorder="big"):
    """Groups of 8 elements along `axis` (nonzero: a 1 bit) as uint8 bytes,
    the last group padded with zeros."""
    a = as_array(a)
    if a.dtype.kind not in "biu":
        raise UserCodeError("TypeError: Expected an input array of integer or boolean data "
                            "type")
    shifts = _bit_order(bitorder, unpacking=False)
    if axis is None or a.ndim == 0:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    bits = astype(a != 0, np.uint8)
    if n % 8:
        pad = [(0, 0)] * a.ndim
        pad[axis] = (0, 8 - n % 8)
        bits = NUMPY[np.pad](bits, pad)
    groups = reshape(bits, a.shape[:axis] + (-(-n // 8), 8) + a.shape[axis + 1:])
    groups = moveaxis(groups, axis + 1, -1)
    return NUMPY[np.sum](groups << shifts, axis=-1, dtype=np.uint8)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer import checks  # noqa: E402
from ..infer.values import (BROADCAST_ARRAYS, Array, array_like, holds_runtime, int_bounds,  # noqa: E402
                            known_integer, ranged_span, scalar_if_numpy_would)
from .elementwise import _require, astype, asarray, copy as copy_array  # noqa: E402
from .indexing import check_python_number_fits  # noqa: E402
