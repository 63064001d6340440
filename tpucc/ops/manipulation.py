"""Array manipulation composed of other ops (no op of its own): the split
family, atleast_1d/2d/3d, broadcast_arrays, column_stack, dstack, meshgrid,
rot90, diff.

What NumPy returns as a view (the pieces of a split, atleast_*) is a basic
indexing view here too, so a write into it reaches the array it came from.
"""
from __future__ import annotations

from itertools import accumulate

import numpy as np

from ..errors import ShapeError, UserCodeError
from .registry import broadcast_shapes, implements, normalize_axis, static_index
from .shape import broadcast_to, concatenate, flip, reshape, transpose


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


# --- broadcast_arrays, column_stack, dstack, meshgrid ------------------------------------

@implements(np.broadcast_arrays)
def broadcast_arrays(*args, subok=False):
    arrays = [as_array(a) for a in args]
    shape = broadcast_shapes(*(a.shape for a in arrays))
    return tuple(a if a.shape == shape else broadcast_to(a, shape) for a in arrays)


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


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from .elementwise import asarray, copy as copy_array  # noqa: E402
