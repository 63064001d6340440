"""Shape and layout ops: reshape, transpose, broadcast_to, concatenate, flip,
roll, select (np.where, np.select), and the NumPy functions built from them (stack,
squeeze, expand_dims, ravel, swapaxes, moveaxis, clip, ...)."""
from __future__ import annotations

import math
import operator

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import ShapeError, UnsupportedError, UserCodeError
from ..ir import AVal
from .registry import (CONCATENATE_WEIGHT, METHODS, NUMPY, all_weak, as_array_operand, broadcast,
                       broadcast_shapes, broadcast_value, cast, define_range, define_vjp,
                       implements, normalize_axes, normalize_axis, register, result_type,
                       static_index)


def _emit(*a, **k):
    return emit(*a, **k)


def _same_dtype(a: AVal, shape) -> AVal:
    return AVal(a.dtype, tuple(shape), a.weak)


# --- reshape -------------------------------------------------------------------

def resolve_shape(newshape, size: int) -> tuple:
    newshape = tuple(static_index(d) for d in newshape)
    if newshape.count(-1) > 1:
        raise ShapeError("can only specify one unknown dimension")
    known = math.prod(d for d in newshape if d != -1)
    if -1 in newshape:
        if known == 0 or size % known:
            raise ShapeError(f"cannot reshape array of size {size} into shape {newshape}")
        newshape = tuple(size // known if d == -1 else d for d in newshape)
    elif known != size:
        raise ShapeError(f"cannot reshape array of size {size} into shape {newshape}")
    return newshape


register("reshape", lambda avals, shape: _same_dtype(avals[0], shape),
         lambda lc, x, shape: lax.reshape(x, shape), numpy=lambda x, shape: x.reshape(shape))
define_vjp("reshape", lambda lc, operands, perms, out, ct, shape:
           (lax.reshape(ct, lc.in_avals[0].shape),))


@implements(np.reshape)
def reshape_function(a, shape=None, order="C", *, newshape=None, copy=None):
    """np.reshape takes one shape argument: np.reshape(a, 2, 3) is an error
    (order=3), while the method a.reshape(2, 3) is not."""
    if not isinstance(order, str):
        raise UserCodeError(f"TypeError: np.reshape: order must be str, not "
                            f"{type(order).__name__}", hint="pass the shape as one tuple")
    shape = newshape if shape is None else shape
    if shape is None:
        raise UserCodeError("TypeError: np.reshape() missing the required argument 'shape'")
    return reshape(a, shape, order=order, copy=copy)


@implements(method="reshape")
def reshape(a, *shape, order="C", newshape=None, copy=None, **kw):
    """NumPy's reshape: a view where the strides allow one, else a copy;
    copy=True always copies (writes to the result leave `a` alone),
    copy=False raises where a view is impossible."""
    shape = shape or (newshape if newshape is not None else kw.pop("shape"),)
    if len(shape) == 1 and (isinstance(shape[0], (tuple, list)) or
                            isinstance(shape[0], np.ndarray) and shape[0].ndim == 1):
        shape = tuple(shape[0])     # (a 1-d array of sizes too, as NumPy reads it)
    shape = resolve_shape(shape, _aval(a).size)
    f_order = _reads_in_f_order(a, order, "reshape", ("C", "F", "A"))
    # (F order is NumPy's own definition: a.T reshaped to the reversed shape,
    # transposed back; a view exactly where NumPy's reshape is)
    source, target = (transpose(a), shape[::-1]) if f_order else (a, shape)
    view = isinstance(source, Array) and indexing.reshape_is_view(source, target)
    if copy is not None and not copy and not view and isinstance(a, Array) and not a.immutable:
        raise UserCodeError("ValueError: Unable to avoid creating a copy while reshaping.",
                            hint="drop copy=False to let reshape copy, or make the array "
                                 "contiguous first (np.ascontiguousarray) and reshape that")
    out = _reshaped(source, target, view and not copy)
    return transpose(out) if f_order else out


def _reshaped(a, shape: tuple, view: bool):
    """a reshaped: a view of a runtime array when `view` (NumPy gives one
    when no copy is needed: writes through it change `a`), else a new array."""
    out = _emit("reshape", a, shape=shape)
    if view and isinstance(a, Array) and not a.immutable:
        return Array(out.var, base=a, index=indexing.Reshaped(shape))
    return out


def _aval(a) -> AVal:
    return to_value(a).aval


@implements(np.ravel, method="ravel")
def ravel(a, order="C"):
    """A view only of a C-contiguous array: NumPy's ravel copies any other,
    even one that reshape(-1) would view (x[:, ::2])."""
    if _reads_in_f_order(a, order, "ravel", ("C", "F", "A", "K")):
        return ravel(transpose(a))
    from .indexing import is_c_contiguous
    return _reshaped(a, (_aval(a).size,), isinstance(a, Array) and is_c_contiguous(a))


@implements(method="flatten")
def flatten(a, order="C"):
    """Always a copy, unlike ravel."""
    if _reads_in_f_order(a, order, "flatten", ("C", "F", "A", "K")):
        return flatten(transpose(a))
    return _reshaped(a, (_aval(a).size,), view=False)


def _reads_in_f_order(a, order, name, orders) -> bool:
    """Whether `order` reads `a` in Fortran order: 'F'; 'A' of an array that
    is F- and not C-contiguous; 'K' of one that is either (memory order).
    The F order reading of x is x.T's in C order, transposed back."""
    order = "C" if order is None else order.upper() if isinstance(order, str) else order
    if order not in ("C", "F", "A", "K"):
        raise UserCodeError(f"ValueError: order must be one of 'C', 'F', 'A', or 'K' "
                            f"(got {order!r})")
    if order not in orders:
        raise UserCodeError(f"ValueError: order {order!r} is not permitted for reshaping")
    if order in ("C", "F"):
        return order == "F"
    c = not isinstance(a, Array) or indexing.is_c_contiguous(a)
    f = isinstance(a, Array) and indexing.is_f_contiguous(a)
    if order == "A" or c or f:
        return f and not c
    raise UnsupportedError(f"{name}(order='K') of an array that is neither C- nor "
                           "F-contiguous is not supported: NumPy reads it in the order of "
                           "its strides", hint="pass order='C' or order='F'")


@implements(np.expand_dims)
def expand_dims(a, axis):
    shape = list(_aval(a).shape)
    axes = _axis_sequence(axis)
    nd = len(shape) + len(axes)
    axes = sorted(normalize_axis(x, nd) for x in axes)
    if len(set(axes)) != len(axes):
        raise ShapeError(f"repeated axis in expand_dims: {axis}")
    for ax in axes:
        shape.insert(ax, 1)
    return _reshaped(a, tuple(shape), view=True)


def _axis_sequence(axis, sequences=(tuple, list)) -> tuple:
    """The axes of expand_dims (squeeze: a tuple only) as NumPy reads them:
    a sequence of axes, or else ONE axis read with operator.index, so
    np.int64(0) is an axis and an integer array (even a known one) is the
    TypeError NumPy raises, not a sequence."""
    if type(axis) in sequences:
        return tuple(axis)
    if isinstance(axis, (Array, np.ndarray)) and axis.ndim:
        raise UserCodeError("TypeError: only integer scalar arrays can be converted to a "
                            "scalar index", hint="pass the axes as a tuple of ints")
    return (axis,)


@implements(np.squeeze, method="squeeze")
def squeeze(a, axis=None):
    shape = _aval(a).shape
    axes = None if axis is None else normalize_axes(_axis_sequence(axis, (tuple,)), len(shape))
    if axes is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    for ax in axes:
        if shape[ax] != 1:
            raise ShapeError("cannot select an axis to squeeze out which has size not equal to one")
    return _reshaped(a, tuple(d for i, d in enumerate(shape) if i not in axes), view=True)


# --- transpose -----------------------------------------------------------------

def _transpose_abstract(avals, perm):
    a = avals[0]
    if sorted(perm) != list(range(a.ndim)):
        raise ShapeError(f"axes {perm} don't match array of dimension {a.ndim}")
    return _same_dtype(a, [a.shape[p] for p in perm])


register("transpose", _transpose_abstract, lambda lc, x, perm: lax.transpose(x, perm),
         numpy=lambda x, perm: np.transpose(x, perm))
define_vjp("transpose", lambda lc, operands, perms, out, ct, perm:
           (lax.transpose(ct, tuple(np.argsort(perm))),))


@implements(np.transpose)
def transpose_function(a, axes=None):
    """np.transpose(a, axes): one axes argument, unlike the method a.transpose(1, 0)."""
    return transpose(a, axes)


@implements(method="transpose")
def transpose(a, *axes):
    nd = _aval(a).ndim
    if len(axes) == 1 and (axes[0] is None or _is_sequence(axes[0])):
        axes = axes[0]
    if axes is None or len(axes) == 0:
        perm = tuple(reversed(range(nd)))
    else:
        perm = tuple(normalize_axis(x, nd) for x in _items(axes, static=True))
    if len(perm) != nd:             # (NumPy's words)
        raise ShapeError("axes don't match array", hint=f"give all {nd} axes, each once")
    if len(set(perm)) != nd:
        raise ShapeError("repeated axis in transpose", hint=f"give all {nd} axes, each once")
    return _transposed(a, perm)


def _is_sequence(x) -> bool:
    """Whether an axes argument is a sequence of axes: a tuple, a list, or
    an array of at least one axis (np.argsort(perm), a constant: its items
    are static ints)."""
    return isinstance(x, (tuple, list)) or (isinstance(x, (Array, np.ndarray)) and x.ndim > 0)


def _transposed(a, perm):
    """A transposed view of a runtime array (NumPy's transpose is always a
    view: `x.T[0] = 1` writes into x), a new array for a constant."""
    from .indexing import Permuted
    out = _emit("transpose", a, perm=perm)
    if isinstance(a, Array) and not a.immutable:
        return Array(out.var, base=a, index=Permuted(perm))
    return out


@implements(np.swapaxes, method="swapaxes")
def swapaxes(a, axis1, axis2):
    nd = _aval(a).ndim
    perm = list(range(nd))
    i, j = normalize_axis(axis1, nd), normalize_axis(axis2, nd)
    perm[i], perm[j] = perm[j], perm[i]
    return _transposed(a, tuple(perm))


@implements(np.moveaxis)
def moveaxis(a, source, destination):
    nd = _aval(a).ndim
    src = _axis_tuple(source, nd, "source")
    dst = _axis_tuple(destination, nd, "destination")
    if len(src) != len(dst):
        raise ShapeError("`source` and `destination` arguments must have the same number "
                         "of elements")
    order = [n for n in range(nd) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _transposed(a, tuple(order))


def _axis_tuple(axes, nd: int, argument: str) -> tuple:
    """NumPy's normalize_axis_tuple: each axis in range, none twice."""
    out = tuple(normalize_axis(x, nd) for x in np.atleast_1d(axes).tolist())
    if len(set(out)) != len(out):
        raise ShapeError(f"repeated axis in `{argument}` argument",
                         hint="name each axis once")
    return out


@implements(np.rollaxis)
def rollaxis(a, axis, start=0):
    """The axis moved to before `start` (NumPy's older spelling of
    np.moveaxis): a transposed view; a[...] where it stays put."""
    nd = _aval(a).ndim
    axis = normalize_axis(axis, nd)
    start = static_index(start)
    if start < 0:
        start += nd
    if not 0 <= start < nd + 1:
        raise ShapeError(f"'start' arg requires {-nd} <= start < {nd + 1}, but {start} was "
                         "passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return indexing.getitem(a, Ellipsis)
    order = [n for n in range(nd) if n != axis]
    order.insert(start, axis)
    return _transposed(a, tuple(order))


# --- broadcast_to ----------------------------------------------------------------

def _broadcast_abstract(avals, shape):
    a = avals[0]
    if len(a.shape) > len(shape):       # (NumPy's words, not a type string of ours)
        raise ShapeError("input operand has more dimensions than allowed by the axis "
                         "remapping", hint=f"the target shape needs at least {len(a.shape)} "
                                           f"dimensions for an array of shape {a.shape}")
    if all(n >= 0 for n in shape) and any(d not in (1, n) for d, n in zip(a.shape[::-1],
                                                                        tuple(shape)[::-1])):
        def text(s):
            return "(" + ",".join(map(str, s)) + ")"
        raise ShapeError("operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {text(a.shape)}  and requested shape "
                         f"{text(shape)}", hint="each axis of the array must be 1 or the "
                                                "size asked for it (aligned from the end)")
    if broadcast_shapes(a.shape, shape) != tuple(shape):
        raise ShapeError(f"cannot broadcast shape {a.shape} to {shape}")
    return _same_dtype(a, shape)


register("broadcast_to", _broadcast_abstract,
         lambda lc, x, shape: broadcast_value(x, tuple(shape)),
         numpy=lambda x, shape: np.broadcast_to(x, shape))


@implements(np.broadcast_to)
def broadcast_to(a, shape):
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    out = _emit("broadcast_to", a, shape=shape)
    if isinstance(a, Array):    # NumPy's view: a later write into `a` shows through it
        out = Array(out.var, base=a, index=indexing.Broadcast((shape,)))
    return read_only(out)


def _broadcast(a, shape):
    """np.broadcast_to's values, for a function whose result is a new,
    writeable array (np.tile, np.repeat), not a read-only view."""
    return _emit("broadcast_to", a, shape=tuple(shape))


def read_only(x, kind=None):
    """x, made read-only as NumPy makes the views np.broadcast_to and
    np.diagonal return: writing into one raises (E500 here, saying why as
    `kind` tells: READ_ONLY by default)."""
    if isinstance(x, Array):
        x.frozen = kind or READ_ONLY
    elif isinstance(x, np.ndarray):
        x.flags.writeable = False
    return x


def diagonal_view(a, k: int, axis1: int, axis2: int):
    """The k-th diagonal of axes axis1, axis2 (normalized, distinct) as the
    last axis (NumPy's layout), a view of `a` whatever its layout
    (indexing.Diagonal; np.diagonal makes it read-only, einsum('ii->i')
    gives it writeable)."""
    values = diagonal_values(a, k, axis1, axis2)
    if isinstance(a, Array) and not a.immutable:
        return Array(values.var, base=a, index=indexing.Diagonal((k, axis1, axis2)))
    return values


def diagonal_values(a, k: int, axis1: int, axis2: int):
    """The k-th diagonal's values, a new array: the matrix flattened to
    (..., n*m), every (m + 1)-th element (a strided slice, no gather)."""
    perm, flat_shape, cut = _diagonal_plan(_aval(a).shape, k, axis1, axis2)
    flat = _emit("reshape", _emit("transpose", a, perm=perm), shape=flat_shape)
    static, arrays = indexing.normalize_key((Ellipsis, cut), flat_shape)
    return _emit("getitem", flat, *arrays, key=static)


def with_diagonal(a, k: int, axis1: int, axis2: int, value):
    """Array `a` with its k-th diagonal replaced by `value` (a write
    through a diagonal view)."""
    perm, flat_shape, cut = _diagonal_plan(a.shape, k, axis1, axis2)
    moved = _emit("transpose", a, perm=perm)
    flat = _emit("reshape", moved, shape=flat_shape)
    static, arrays = indexing.normalize_key((Ellipsis, cut), flat_shape)
    flat = _emit("setitem", flat, value, *arrays, key=static)
    moved = _emit("reshape", flat, shape=moved.shape)
    return _emit("transpose", moved, perm=tuple(int(i) for i in np.argsort(perm)))


def _diagonal_plan(shape: tuple, k: int, axis1: int, axis2: int):
    """(the transpose moving axis1, axis2 last, the shape merging them, the
    slice of the merged axis that is the k-th diagonal)."""
    perm = tuple(i for i in range(len(shape)) if i not in (axis1, axis2)) + (axis1, axis2)
    n, m = shape[axis1], shape[axis2]
    start, length = (k, min(n, m - k)) if k >= 0 else (-k * m, min(n + k, m))
    flat_shape = tuple(shape[i] for i in perm[:-2]) + (n * m,)
    if length <= 0:
        return perm, flat_shape, slice(0, 0)
    return perm, flat_shape, slice(start, start + (length - 1) * (m + 1) + 1, m + 1)


# --- concatenate / stack -------------------------------------------------------------

def _concat_abstract(avals, axis):
    first = avals[0]
    if first.ndim == 0:
        raise ShapeError("zero-dimensional arrays cannot be concatenated")
    for k, a in enumerate(avals[1:], 1):
        if a.ndim != first.ndim:    # (NumPy's words)
            raise ShapeError(f"all the input arrays must have same number of dimensions, but "
                             f"the array at index 0 has {first.ndim} dimension(s) and the "
                             f"array at index {k} has {a.ndim} dimension(s)",
                             hint="give every array the same number of dimensions, e.g. "
                                  "x[None, :] or x.reshape(1, -1) for a row")
        for i, (x, y) in enumerate(zip(first.shape, a.shape)):
            if i != axis and x != y:
                raise ShapeError("all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but along dimension {i}, the array "
                                 f"at index 0 has size {x} and the array at index {k} has "
                                 f"size {y}",
                                 hint="the arrays may differ only along the axis they are "
                                      "joined on")
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in avals)
    return AVal(result_type(*avals), tuple(shape), all_weak(avals))


def _concat_lower(lc, *xs, axis):
    dt = lc.out_avals[0].dtype
    return lax.concatenate([lax.convert_element_type(x, dt) for x in xs], axis)


register("concatenate", _concat_abstract, _concat_lower,
         numpy=lambda *xs, axis: np.concatenate(xs, axis), compile_weight=CONCATENATE_WEIGHT)


@implements(np.concatenate)
def concatenate(arrays, axis=0, dtype=None, *, casting="same_kind"):
    arrays = [as_array_operand(a) for a in arrays]
    nd = _aval(arrays[0]).ndim
    if axis is not None:
        axis = normalize_axis(axis, nd) if nd else 0
    joined = many_pieces.concatenated(arrays, axis)
    if joined is not None:          # (the pieces all have the dtype of their source)
        return joined if dtype is None else cast_operands("concatenate", [joined], dtype,
                                                          casting)[0]
    if dtype is not None:
        arrays = cast_operands("concatenate", arrays, dtype, casting)
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    return _emit("concatenate", *arrays, axis=axis)


def cast_operands(name, operands, dtype, casting) -> list:
    """The operands of np.<name>(..., dtype=, casting=) cast to `dtype`, which
    NumPy allows only under the casting rule (else a TypeError)."""
    dtype = np.dtype(dtype)
    for x in operands:
        src = _aval(x).dtype
        if not np.can_cast(src, dtype, casting):
            raise UserCodeError(f"TypeError: np.{name}: cannot cast array data from "
                                f"dtype('{src}') to dtype('{dtype}') according to the rule "
                                f"'{casting}'")
    return [astype(x, dtype, copy=False) for x in operands]


@implements(np.stack)
def stack(arrays, axis=0, *, dtype=None, casting="same_kind"):
    arrays = list(arrays)           # (an ndarray: its rows, views NumPy stacks again)
    if not arrays:
        raise UserCodeError("ValueError: need at least one array to stack")
    shapes = {_aval(as_array_operand(a)).shape for a in arrays}
    if len(shapes) != 1:
        raise ShapeError("all input arrays must have the same shape")
    nd = len(shapes.pop()) + 1
    axis = normalize_axis(axis, nd)
    rows = _stacked_rows(arrays, dtype)
    if rows is not None:
        if dtype is not None:
            rows = cast_operands("stack", [rows], dtype, casting)[0]
        return rows if axis == 0 else Array(moveaxis(rows, 0, axis).var)
    arrays = [as_array_operand(a) for a in arrays]
    if dtype is not None:
        arrays = cast_operands("stack", arrays, dtype, casting)
    return concatenate([expand_dims(a, axis) for a in arrays], axis)


def _stacked_rows(arrays, dtype):
    """np.stack(arrays) on axis 0 as one array, where the items are rows
    of one buffer or views of one array (many_pieces), else None."""
    whole = many_pieces.stacked_rows(arrays, dtype)
    if whole is not None:               # the items of a list a counted loop grew
        return whole
    runs = stacking.buffer_runs(arrays, dtype)
    if runs is not None:
        # ... or stretches of them among other items (the last iteration of a
        # loop over a list, a trajectory's first state): slices, concatenated
        return concatenate([_buffer_rows(p) if isinstance(p, stacking.Run)
                            else expand_dims(as_array_operand(p), 0) for p in runs], 0)
    return None


def _buffer_rows(run):
    whole = Array(run.buffer)
    if run.count == _aval(whole).shape[0] and run.step == 1:
        return whole
    return indexing.getitem(whole, run.rows())


@implements(np.vstack)
def vstack(arrays):
    arrays = [as_array_operand(a) for a in arrays]
    return concatenate([a if _aval(a).ndim >= 2 else reshape(a, 1, -1) for a in arrays], 0)


@implements(np.hstack)
def hstack(arrays):
    arrays = [as_array_operand(a) for a in arrays]
    arrays = [a if _aval(a).ndim >= 1 else reshape(a, 1) for a in arrays]
    return concatenate(arrays, 0 if _aval(arrays[0]).ndim == 1 else 1)


# --- flip / roll --------------------------------------------------------------------

@implements(np.flip)
def flip(m, axis=None):
    """A view, as NumPy's (writes through it change `m`): `m` indexed with
    reversed slices along `axis`."""
    m = asarray(m)
    nd = _aval(m).ndim
    axes = tuple(range(nd)) if axis is None else normalize_axes(axis, nd)
    return m[tuple(slice(None, None, -1) if ax in axes else slice(None) for ax in range(nd))]


@implements(np.fliplr)
def fliplr(m):
    return flip(m, 1)


@implements(np.flipud)
def flipud(m):
    return flip(m, 0)


register("roll", lambda avals, shift, axis: avals[0],
         lambda lc, x, shift, axis: jnp.roll(x, shift, axis),
         numpy=lambda x, shift, axis: np.roll(x, shift, axis))
# The same with the shift a runtime int operand (jnp.roll: a dynamic slice
# of the axis joined to itself).
register("roll_by", lambda avals, axis: avals[0],
         lambda lc, x, shift, axis: jnp.roll(x, _shift_within(shift, x.shape[axis]), axis),
         numpy=lambda x, shift, axis: np.roll(x, shift, axis))


def _shift_within(shift, n: int):
    """A runtime integer shift as the same rotation in [0, n): jnp.roll
    converts its shift to int32 before taking it modulo n, so a shift
    beyond int32's range (2**31, a step counter) would rotate wrongly."""
    n = np.asarray(max(n, 1), shift.dtype)
    return lax.rem(lax.rem(shift, n) + n, n)


@implements(np.roll)
def roll(a, shift, axis=None):
    """NumPy's: the flat array rolled for axis=None; else each axis rolled
    by the sum of the shifts given for it (shift and axis broadcast
    against each other).  A shift known only at run time (a loop counter)
    rolls its axis by a dynamic slice."""
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), _aval(a).shape)
    nd = _aval(a).ndim
    shifts, axes = _roll_pairs(shift, axis)
    totals: dict = {}
    for s, ax in zip(shifts, axes):
        ax = normalize_axis(ax, nd)
        if isinstance(s, Array) and (s.dtype.kind == "b" or s.dtype.kind == "u"
                                     and s.dtype.itemsize < 8):
            # (NumPy sums int(shift)s: two uint8 ones do not wrap; a uint64
            # is reduced in its own type, _rolled_at_run_time)
            s = astype(s, np.int64)
        totals[ax] = totals[ax] + s if ax in totals else s
    static = {ax: int(s) for ax, s in totals.items() if not isinstance(s, Array)}
    out = _emit("roll", a, shift=tuple(static.values()), axis=tuple(static))
    for ax, s in totals.items():
        if isinstance(s, Array):
            out = _rolled_at_run_time(out, s, ax)
    return out


def _roll_pairs(shift, axis) -> tuple:
    """np.roll's shift and axis as equal-length tuples (a scalar repeated).
    An array of shifts or axes is a sequence as a tuple is: its items are
    static ints where it holds a constant (np.array([1, 2])), else runtime
    shifts each rolled by a dynamic slice."""
    shifts = tuple(known_integer(s) for s in _items(shift))
    axes = tuple(known_integer(a) for a in _items(axis, static=True))
    if any(getattr(v, "ndim", 0) for v in shifts + axes):
        raise UserCodeError("ValueError: 'shift' and 'axis' should be scalars or 1D sequences")
    if len(shifts) == 1:
        shifts *= len(axes)
    elif len(axes) == 1:
        axes *= len(shifts)
    elif len(shifts) != len(axes):
        raise UserCodeError("ValueError: shape mismatch: objects cannot be broadcast to a "
                            "single shape.  Mismatch is between arg 0 with shape "
                            f"({len(shifts)},) and arg 1 with shape ({len(axes)},).")
    return shifts, axes


def _items(v, static=False) -> tuple:
    """A tuple, list or array of at least one axis as a tuple of its items;
    anything else as the one item.  `static`: an array known only at run
    time is refused as the argument it is (NeedsStatic names its
    parameter), not as one of its items."""
    if isinstance(v, (tuple, list)) or (isinstance(v, (Array, np.ndarray)) and v.ndim):
        if static and isinstance(v, Array) and known_constant(v) is None:
            raise NeedsStatic("an array of axes", v)
        return tuple(v)
    return (v,)


def _rolled_at_run_time(a, shift, axis):
    """`a` rolled by a runtime `shift` along `axis`."""
    if shift.dtype.kind not in "iub":
        raise UserCodeError(f"TypeError: slice indices must be integers or None or have an "
                            f"__index__ method (np.roll shift of {shift.dtype})")
    if shift.dtype.kind not in "iu":
        shift = astype(shift, np.int64)
    return _emit("roll_by", a, shift, axis=axis)    # (a uint64 past int64's range stays one)


# --- where / clip ----------------------------------------------------------------------

def _select_abstract(avals, weak_result=False):
    """np.where's dtype rule sees weak Python scalars (NEP 50), but its result
    is an ndarray, strong even when every operand is a Python number:
    f32_array * np.where(k > 0, k, 0.5) is float64 for a Python int k.  The
    builtins min and max of Python numbers give a Python number
    (weak_result=True), whatever compared them (`min(range(3), key=lambda i:
    losses[i])` is a Python int though its condition compares NumPy floats)."""
    c, x, y = avals
    return AVal(result_type(x, y), broadcast(c, x, y), weak_result and all_weak((x, y)))


def _select_lower(lc, c, x, y, weak_result=False):
    # lax.select_n rather than jnp.where: no nested jit to trace and lower.
    # Shapes come from the operands, which may be in a physical layout.
    dtype = lc.out_avals[0].dtype
    operands = [cast(c, np.dtype(bool))] + [cast(v, dtype) for v in (x, y)]
    shape = broadcast_shapes(*(np.shape(v) for v in operands))
    c, x, y = (broadcast_value(v, shape) for v in operands)
    return lax.select_n(c, y, x)


# Elementwise in layout: np.where(x <= 0, 0, x) after a convolution keeps its
# channels-last result channels-last.
register("select", _select_abstract, _select_lower,
         numpy=lambda c, x, y, weak_result=False: np.where(c, x, y), layout="elementwise")


def _select_vjp(lc, operands, perms, out, ct, weak_result=False):
    """The cotangent goes to the branch each element was taken from."""
    c, x, y = operands
    c = broadcast_value(cast(c, np.dtype(bool)), tuple(ct.shape))
    zeros = lax.full(ct.shape, 0, ct.dtype)
    return (None,
            unbroadcast(lax.select_n(c, zeros, ct), np.shape(x)) if lc.wants(1) else None,
            unbroadcast(lax.select_n(c, ct, zeros), np.shape(y)) if lc.wants(2) else None)


define_vjp("select", _select_vjp)
define_range("select", lambda avals, bounds, weak_result=False: None if None in bounds[1:] else (
    min(bounds[1][0], bounds[2][0]), max(bounds[1][1], bounds[2][1])))


@implements(np.where)
def where(condition, x=None, y=None):
    if x is None and y is None:
        raise ShapeError("np.where(condition) returns data-dependent shapes and cannot be compiled",
                         hint="the one-argument np.where is np.nonzero: np.argmax(cond) is the "
                         "first position where cond holds (0 where none does: test cond.any()), "
                         "np.argsort(~cond, kind='stable')[:K] the first K for a known K, and "
                         "np.where(cond, x, y) with both branches keeps the shape")
    return _emit("select", condition, x, y)


@implements(np.select)
def select(condlist, choicelist, default=0):
    """NumPy's select: the default everywhere, then each choice where its
    condition holds, the last first so that the first condition wins.  The
    dtype is result_type of the choices and the default, Python numbers weak
    (NEP 50); the shape broadcasts every condition and choice."""
    if len(condlist) != len(choicelist):
        raise UserCodeError("ValueError: list of cases must be same length as list of "
                            "conditions")
    if len(condlist) == 0:
        raise UserCodeError("ValueError: select with an empty condition list is not possible")
    choices = [v if type(v) in (int, float, complex) else
               v if isinstance(v, Array) else np.asarray(v) for v in (*choicelist, default)]
    avals = [_aval(v) if isinstance(v, Array) else
             AVal(np.asarray(v).dtype, (), True) if type(v) in (int, float, complex) else
             AVal(v.dtype, v.shape, False) for v in choices]
    try:
        dtype = result_type(*avals)
    except TypeError as e:
        raise UserCodeError(f"TypeError: Choicelist and default value do not have a common "
                            f"dtype: {e}") from None
    conds = [c if isinstance(c, Array) else np.asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise UserCodeError(f"TypeError: invalid entry {i} in condlist: should be boolean "
                                "ndarray")
    for choice in choices[:-1]:
        # NumPy's np.copyto of each choice, an array by then (a Python int an
        # int64 one), casts 'same_kind': 255 into a uint8 result is refused
        strong = choice.dtype if isinstance(choice, Array) else np.asarray(choice).dtype
        if not np.can_cast(strong, dtype, "same_kind"):
            raise UserCodeError(f"TypeError: Cannot cast array data from {strong!r} to "
                                f"{dtype!r} according to the rule 'same_kind'")
    shape = broadcast(*(AVal(v.dtype, v.shape, False) for v in conds), *avals)
    # NumPy copies each choice into the result with unsafe casting: a
    # Python int out of an int8 result's range wraps (default=1000: -24).
    result = _emit("full", shape=shape, dtype=dtype,
                   value=np.asarray(choices[-1]).astype(dtype)[()]) \
        if not isinstance(choices[-1], Array) else broadcast_to(astype(choices[-1], dtype), shape)
    for cond, choice in zip(conds[::-1], choices[-2::-1]):
        value = astype(choice, dtype) if isinstance(choice, Array) else \
            np.asarray(choice).astype(dtype)
        result = _emit("select", cond, value, result)
    return result


@implements(np.clip, method="clip")
def clip(a, a_min=None, a_max=None, out=None, *, dtype=None, where=True, casting="same_kind",
         **kw):
    """np.clip is NumPy's `clip` ufunc underneath: it takes the ufunc's out=,
    where=, dtype= and casting= (registry.WRITES_OUT lets out= reach here)."""
    a_min = kw.pop("min", a_min)
    a_max = kw.pop("max", a_max)
    elementwise.no_extra("clip", out, where, kw)
    elementwise.check_casting("clip", np.clip, (a, a_min, a_max), out, casting, dtype=dtype)
    if dtype is not None:       # computed in the loop NumPy picks for that output dtype
        # (a missing bound stands in as `a` itself, which changes no loop)
        loop = elementwise.loop_with_output(_CLIP_UFUNC, "np.clip",
                                            tuple(a if b is None else b for b in (a, a_min, a_max)),
                                            np.dtype(dtype), casting)
        a, a_min, a_max = (None if b is None else elementwise.astype(b, loop[-1], copy=False)
                           for b in (a, a_min, a_max))
    result = _clipped(a, a_min, a_max)
    return result if out is None else elementwise.store_out("clip", result, out, where, casting)


# The ufunc np.clip calls (not in NumPy's namespace): its dtype= resolution.
_CLIP_UFUNC = np._core.umath.clip


def _clipped(a, a_min, a_max):
    a = as_array_operand(a)     # np.clip(1, 0, 2) is np.int64(1): a Python number turns strong
    a_min, a_max = _drop_unreachable_int_bounds(_aval(a).dtype, a_min, a_max)
    a_min = _runtime_int_bound(_aval(a).dtype, a_min, "maximum")
    a_max = _runtime_int_bound(_aval(a).dtype, a_max, "minimum")
    if a_min is None and a_max is None:
        return _emit("positive", a)     # a new array, as NumPy's (never `a` itself)
    out = a
    if a_min is not None:
        out = _emit("maximum", out, a_min)
    if a_max is not None:
        out = _emit("minimum", out, a_max)
    return out


def _runtime_int_bound(dtype, bound, towards: str):
    """A runtime Python int bound of an integer array's clip, as NumPy takes
    it: one beyond the dtype's range on its own side (a low bound under the
    minimum) changes nothing, so it is moved to the range's end (`towards`:
    "maximum" for a low bound, "minimum" for a high one); one beyond the
    other end raises NumPy's OverflowError, a runtime check.  (Converted to
    the array's dtype as it was, -1000 into int8 clipped everything to 24.)"""
    if dtype.kind not in "iu" or not (isinstance(bound, Array) and bound.weak and
                                       bound.ndim == 0 and bound.dtype.kind in "iu"):
        return bound
    info = np.iinfo(dtype)
    end = int(info.min) if towards == "maximum" else int(info.max)
    moved = _emit(towards, bound, end)
    elementwise.require_int_fits(moved, dtype)
    return moved


def _drop_unreachable_int_bounds(dtype, a_min, a_max):
    """NumPy's clip ignores Python int bounds beyond an integer dtype's range
    (np.clip(uint8_array, -1, None) leaves the array as it is) instead of
    converting them to the dtype."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if type(a_min) is int and a_min <= info.min:
            a_min = None
        if type(a_max) is int and a_max >= info.max:
            a_max = None
    return a_min, a_max


# --- pad / tile / repeat -------------------------------------------------------------

register("pad", lambda avals, widths, value: _same_dtype(
            avals[0], [d + lo + hi for d, (lo, hi) in zip(avals[0].shape, widths)]),
         lambda lc, x, widths, value: jnp.pad(x, widths, constant_values=value),
         numpy=lambda x, widths, value: np.pad(x, widths, constant_values=value))


# Modes whose every output element is one element of the input: each axis
# reads from NumPy's own np.pad of its positions.
_INDEXED_PAD_MODES = ("edge", "wrap", "reflect", "symmetric")


# Modes whose pad is a statistic of the `stat_length` items next to it.
_STAT_PAD_MODES = {"maximum": np.max, "minimum": np.min, "mean": np.mean, "median": np.median}
# The keywords NumPy's np.pad takes with each mode (any other is its ValueError).
_PAD_KEYWORDS = {"constant": {"constant_values"}, "edge": set(), "wrap": set(), "empty": set(),
                 "linear_ramp": {"end_values"}, "reflect": {"reflect_type"},
                 "symmetric": {"reflect_type"}, **{m: {"stat_length"} for m in _STAT_PAD_MODES}}
_UNSET = object()


@implements(np.pad)
def pad(array, pad_width, mode="constant", constant_values=_UNSET, reflect_type=_UNSET,
        stat_length=_UNSET, end_values=_UNSET):
    given = {k: v for k, v in (("constant_values", constant_values),
                               ("reflect_type", reflect_type), ("stat_length", stat_length),
                               ("end_values", end_values)) if v is not _UNSET}
    extra = set(given) - _PAD_KEYWORDS.get(mode, set(given)) if isinstance(mode, str) else None
    if extra:
        raise UserCodeError(f"ValueError: unsupported keyword arguments for mode '{mode}': "
                            f"{extra}")
    constant_values = given.get("constant_values", 0)
    reflect_type = given.get("reflect_type", "even")
    if mode in _INDEXED_PAD_MODES and reflect_type == "even":
        return _indexed_pad(array, _pad_widths(array, pad_width), mode)
    if isinstance(mode, str) and mode in _STAT_PAD_MODES:
        return _stat_pad(array, _pad_widths(array, pad_width), mode, given.get("stat_length"))
    if isinstance(mode, str) and mode == "linear_ramp":
        return _ramp_pad(array, _pad_widths(array, pad_width), given.get("end_values", 0))
    if mode != "constant":
        odd = f", reflect_type={reflect_type!r}" if reflect_type != "even" else ""
        raise UnsupportedError(f"np.pad(mode={mode!r}{odd}) is not supported",
                               hint="the modes compiled are 'constant', 'edge', 'wrap', "
                                    "'reflect' and 'symmetric' (reflect_type='even'), "
                                    "'linear_ramp', 'maximum', 'minimum', 'mean' and 'median'")
    widths = _pad_widths(array, pad_width)
    if any(isinstance(v, Array) for v in _leaves(constant_values)):
        return _pad_with_runtime_value(array, widths, constant_values)
    if _aval(array).ndim == 0:     # NumPy returns a 0-d array unchanged (a copy)
        return _emit("convert", array, dtype=_aval(array).dtype)
    return _emit("pad", array, widths=tuple(map(tuple, widths.tolist())),
                 value=_numpy_pad_values(_aval(array), constant_values))


def _numpy_pad_values(aval, constant_values) -> tuple:
    """Each side's value, ((before, after) per axis), as NumPy pads with it:
    read off NumPy's own padding of a one-element array of the dtype, so its
    casts (300 pads a uint8 image with 44, -1 with 255) and its errors (an
    OverflowError for 1000 into int8) are NumPy's."""
    probe = np.zeros((1,) * aval.ndim, aval.dtype)
    try:
        padded = np.pad(probe, 1, constant_values=constant_values)
    except (ValueError, TypeError, OverflowError) as e:
        raise UserCodeError(f"{type(e).__name__}: {e}") from None
    sides = []
    for axis in range(aval.ndim):
        at = [1] * aval.ndim
        pair = []
        for end in (0, 2):
            at[axis] = end
            pair.append(padded[tuple(at)].item())
        sides.append(tuple(pair))
    return tuple(sides)


def _pad_with_runtime_value(array, widths, value):
    """np.pad(x, widths, constant_values=v) with v known only at run time:
    v everywhere, then x written into the middle."""
    if not (isinstance(value, Array) and value.ndim == 0):
        raise UnsupportedError("np.pad with per-side constant_values known only at run time "
                               "is not supported", hint="pad with one value per call")
    aval = _aval(array)
    if aval.dtype.kind in "iu":     # NumPy stores it as an item: it must fit (OverflowError)
        if value.weak and value.dtype.kind in "iu":
            elementwise.require_int_fits(value, aval.dtype)
        elif value.dtype.kind == "f":
            elementwise.require_int_conversion(value, aval.dtype)
    widths = widths.tolist()
    shape = tuple(d + lo + hi for d, (lo, hi) in zip(aval.shape, widths))
    out = _emit("convert", broadcast_to(astype(value, aval.dtype), shape), dtype=aval.dtype)
    indexing.setitem(out, tuple(slice(lo, lo + d) for d, (lo, _) in zip(aval.shape, widths)),
                     array)
    return out


def _leaves(value) -> list:
    """The items of nested tuples and lists (pad's constant_values)."""
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _indexed_pad(array, widths, mode):
    """np.pad by gathering: the source position of every output position of
    an axis is np.pad(np.arange(n), width, mode), NumPy's own answer."""
    out = array = asarray(array)
    for axis, (lo, hi) in enumerate(widths.tolist()):
        if lo == hi == 0:
            continue
        try:
            source = np.pad(np.arange(_aval(array).shape[axis]), (lo, hi), mode=mode)
        except ValueError as e:         # an empty axis cannot be extended
            raise UserCodeError(f"ValueError: {e}") from None
        out = indexing.getitem(out, (slice(None),) * axis + (source,))
    return out if out is not array else _emit("convert", array, dtype=_aval(array).dtype)


def _stat_pad(array, widths, mode, stat_length):
    """np.pad(mode='maximum' / 'minimum' / 'mean' / 'median'), axis by axis
    as NumPy pads: each side is the statistic of the `stat_length` items
    next to it (all of the axis by default), over what earlier axes padded,
    rounded to an integer dtype as NumPy rounds it."""
    out = array = asarray(array)
    dtype = _aval(array).dtype
    lengths = _pad_pairs(stat_length, _aval(array).ndim, as_index=True)
    for axis, (lo, hi) in enumerate(widths.tolist()):
        if lo == hi == 0:
            continue
        n = _refuse_empty_pad_axis(out, axis)
        sides = []
        for width, length, at_end in ((lo, lengths[axis][0], False),
                                      (hi, lengths[axis][1], True)):
            k = n if length is None else min(length, n)
            if k == 0 and mode in ("maximum", "minimum"):
                raise UserCodeError("ValueError: stat_length of 0 yields no value for padding")
            window = slice(n - k, n) if at_end else slice(0, k)
            stat = NUMPY[_STAT_PAD_MODES[mode]](
                indexing.getitem(out, (slice(None),) * axis + (window,)), axis=axis,
                keepdims=True)
            if dtype.kind in "iu":
                stat = NUMPY[np.round](stat)
            sides.append(_pad_side(astype(stat, dtype), axis, width))
        out = NUMPY[np.concatenate]([sides[0], out, sides[1]], axis=axis)
    return out if out is not array else _emit("convert", array, dtype=dtype)


def _ramp_pad(array, widths, end_values):
    """np.pad(mode='linear_ramp'): each side is NumPy's np.linspace from its
    end value to the edge item (endpoint=False), the after side reversed."""
    out = array = asarray(array)
    dtype = _aval(array).dtype
    ends = _end_value_pairs(end_values, _aval(array).ndim)
    for axis, (lo, hi) in enumerate(widths.tolist()):
        if lo == hi == 0:
            continue
        n = _refuse_empty_pad_axis(out, axis)
        at = (slice(None),) * axis
        before = _ramp(ends[axis][0], indexing.getitem(out, at + (slice(0, 1),)), lo, axis,
                       dtype)
        after = _ramp(ends[axis][1], indexing.getitem(out, at + (slice(n - 1, n),)), hi, axis,
                      dtype)
        out = NUMPY[np.concatenate]([before, out, flip(after, axis)], axis=axis)
    return out if out is not array else _emit("convert", array, dtype=dtype)


def _end_value_pairs(end_values, ndim: int) -> list:
    """_pad_pairs of end_values whose numbers may be known only at run time
    (`end_values=v`, `(lo, v)`, a runtime array of them): NumPy's pairing
    is worked out on the numbers' positions, then each gets its number."""
    numbers = []

    def positions(x):
        if isinstance(x, (tuple, list)):
            return [positions(v) for v in x]
        if isinstance(x, Array) and x.ndim:
            return [positions(v) for v in x]
        numbers.append(x)
        return len(numbers) - 1

    placed = positions(end_values)
    if not any(isinstance(v, Array) for v in numbers):
        return _pad_pairs(end_values, ndim)
    return [tuple(numbers[int(k)] for k in pair) for pair in _pad_pairs(placed, ndim)]


def _ramp_dtype(start, edge) -> np.dtype:
    """np.linspace(start, edge)'s dtype (start: a static number or a 0-d
    runtime array, Python-weak or not)."""
    if isinstance(start, Array):
        start = ({"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[start.dtype.kind]
                 if start.weak else np.zeros((), start.dtype))
    return np.linspace(start, np.zeros((), _aval(edge).dtype), 2).dtype


def _ramp(start, edge, num: int, axis: int, dtype):
    """np.linspace(start, edge.squeeze(axis), num, endpoint=False,
    dtype=dtype, axis=axis) for an edge known at run time, in NumPy's steps
    and dtype (the step is an array: where any of it is 0, every item is
    arange / num * delta)."""
    dt = _ramp_dtype(start, edge)
    shape = list(_aval(edge).shape)
    shape[axis] = num
    if num == 0:
        return astype(broadcast_to(edge, tuple(shape)), dtype)
    first = astype(start, dt) if isinstance(start, Array) else np.asarray(start).astype(dt)
    delta = astype(edge, dt) - first
    step = broadcast_to(delta / num, tuple(shape))
    counts = np.arange(num, dtype=dt).reshape([num if a == axis else 1
                                               for a in range(len(shape))])
    whole = broadcast_to(delta, tuple(shape))
    # (each product rounded before the add, as NumPy's two steps: no fused multiply-add)
    y = where(NUMPY[np.any](step == 0),
              emit("rounded_product", broadcast_to(asarray(counts / num), tuple(shape)), whole),
              emit("rounded_product", broadcast_to(asarray(counts), tuple(shape)), step)) + first
    if np.dtype(dtype).kind in "iu":
        y = NUMPY[np.floor](y)
    return astype(y, dtype)


def _pad_side(value, axis: int, width: int):
    """A statistic (1 along `axis`) repeated `width` times along it."""
    shape = list(_aval(value).shape)
    shape[axis] = width
    return broadcast_to(value, tuple(shape))


def _refuse_empty_pad_axis(x, axis: int) -> int:
    n = _aval(x).shape[axis]
    if n == 0:
        raise UserCodeError(f"ValueError: can't extend empty axis {axis} using modes other "
                            "than 'constant' or 'empty'")
    return n


def _pad_pairs(x, ndim: int, as_index=False) -> list:
    """np.pad's reading of stat_length or end_values (NumPy's _as_pairs):
    one value for every side, a (before, after) pair for every axis, or a
    pair per axis; None (stat_length's default) for all of an axis."""
    if x is None:
        return [(None, None)] * ndim
    x = np.array(x)
    if as_index:
        x = np.round(x).astype(np.intp)
    if x.ndim >= 3:
        raise UserCodeError(f"ValueError: input array has {x.ndim} dimensions, expected 2")
    if as_index and (x < 0).any():
        raise UserCodeError("ValueError: index can't contain negative values")
    if x.size == 1:
        x = x.ravel()
        return [(x[0], x[0])] * ndim
    if x.size == 2 and x.shape != (2, 1):
        x = x.ravel()
        return [(x[0], x[1])] * ndim
    try:
        return np.broadcast_to(x, (ndim, 2)).tolist()
    except ValueError as e:
        raise UserCodeError(f"ValueError: {e}") from None


def _pad_widths(array, pad_width):
    if isinstance(pad_width, dict):
        pad_width = _pad_widths_by_axis(pad_width, _aval(array).ndim)
    if np.asarray(pad_width).dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")     # NumPy's error, not a cast
    nd = _aval(array).ndim
    given = np.asarray(pad_width, dtype=np.int64)
    # NumPy's reading: one number for every side, a pair for every axis, or
    # one row (`(n,)`, `(before, after)`) per axis, broadcast to (ndim, 2)
    if given.size == 1:
        given = given.ravel()[:1]
    elif given.size == 2 and given.shape != (2, 1):
        given = given.ravel()
    try:
        widths = np.broadcast_to(given, (nd, 2))
    except ValueError as e:
        raise UserCodeError(f"ValueError: {e}") from None
    if (widths < 0).any():
        raise ShapeError(f"np.pad: negative pad widths {pad_width!r}")
    return widths


def _pad_widths_by_axis(pad_width: dict, ndim: int) -> list:
    """NumPy >= 2.3's dict pad_width, {axis: width or (before, after)}, as a
    pair per axis (0 for the axes it leaves out), read as NumPy reads it:
    Python ints only (a NumPy integer is its AssertionError), list indexing
    of the axes (-1 the last, out of range an IndexError)."""
    widths = [(0, 0)] * ndim
    for axis, width in pad_width.items():
        if isinstance(width, int):
            pair = (width, width)
        elif type(width) is tuple and len(width) == 2 and all(isinstance(w, int) for w in width):
            pair = width
        else:
            raise UserCodeError(f"AssertionError: Expected code to be unreachable, but got: "
                                f"{width!r}", hint="give each axis an int or an (int, int) "
                                                   "pair of Python ints")
        try:
            widths[axis] = pair
        except (IndexError, TypeError) as e:
            raise UserCodeError(f"{type(e).__name__}: {e}") from None
    return widths


@implements(np.tile)
def tile(a, reps):
    reps = _reps_tuple(reps)
    if any(r < 0 for r in reps):    # (NumPy's reason, before broadcast_to's)
        raise ShapeError(f"np.tile: negative dimensions are not allowed (reps={reps})",
                         hint="reps must be >= 0; 0 gives an empty axis")
    shape = _aval(a).shape
    nd = max(len(shape), len(reps))
    shape = (1,) * (nd - len(shape)) + shape
    reps = (1,) * (nd - len(reps)) + reps
    x = reshape(a, shape)
    expanded = reshape(x, tuple(v for d in shape for v in (1, d)))
    big = _broadcast(expanded, tuple(v for r, d in zip(reps, shape) for v in (r, d)))
    return reshape(big, tuple(r * d for r, d in zip(reps, shape)))


def _reps_tuple(reps) -> tuple:
    """np.tile's reps as NumPy reads them: a sequence, or else one count
    (`tuple(reps)` failing: np.int64(3), a 0-d array), each an int."""
    try:
        reps = tuple(reps)
    except TypeError:
        reps = (reps,)
    return tuple(operator.index(r) for r in reps)


@implements(np.repeat, method="repeat")
def repeat(a, repeats, axis=None):
    known = known_constant(repeats)
    if known is not None:           # np.repeat(x, np.array([1, 2, 0]))
        repeats = known if known.ndim else known[()]
    if isinstance(repeats, Array) and repeats.ndim == 0:
        raise ShapeError("np.repeat: the number of repetitions depends on runtime values "
                         "(data-dependent shape)", hint="pass a Python int")
    if isinstance(repeats, Array):
        raise ShapeError("np.repeat with runtime repeats: the result's length is their sum "
                         "(data-dependent shape)",
                         hint="pass static repeats (an int or a Python list); to give each element of a CSR matrix its "
                              "row, np.searchsorted(indptr, np.arange(nnz), side='right') - 1 "
                              "compiles")
    if axis is None:
        a, axis = ravel(a), 0
    shape = _aval(a).shape
    axis = normalize_axis(axis, len(shape))
    if not isinstance(repeats, (int, np.integer)):
        return _repeat_each(a, np.asarray(repeats), axis, shape[axis])
    repeats = int(repeats)
    if repeats < 0:     # (else broadcast_to's refusal, naming an op the user never called)
        raise ShapeError(f"np.repeat: negative dimensions are not allowed (repeats={repeats})",
                         hint="repeats must be >= 0; 0 gives an empty axis")
    x = expand_dims(a, axis + 1)
    target = shape[:axis + 1] + (repeats,) + shape[axis + 1:]
    x = _broadcast(x, target)
    return reshape(x, shape[:axis] + (shape[axis] * repeats,) + shape[axis + 1:])


def _repeat_each(a, repeats: np.ndarray, axis: int, n: int):
    """np.repeat with static per-element repeats: a gather of static
    indices, NumPy's own repeat of arange(n) telling which (and raising
    NumPy's errors for repeats that do not fit)."""
    try:
        index = np.repeat(np.arange(n), repeats)
    except (ValueError, TypeError) as e:
        raise ShapeError(f"np.repeat: {e}") from None
    return NUMPY[np.take](a, index, axis=axis)


@implements(np.resize)
def resize(a, new_shape):
    """np.resize: a's elements in C order, repeated cyclically to fill
    new_shape (a new array): a tile of the flat array cut to length; zeros
    when a or the result is empty, as NumPy gives.  The result's shape is
    static, NumPy's own answer for an array of a's size (with its errors)."""
    a = as_array_operand(a)
    size = _aval(a).size
    try:
        shape = np.resize(np.zeros(size, np.int8), new_shape).shape
    except (ValueError, TypeError) as e:
        raise ShapeError(f"np.resize: {e}",
                         hint="pass the new shape as non-negative Python ints") from None
    n = math.prod(shape)
    if size == 0 or n == 0:
        return NUMPY[np.zeros_like](a, shape=shape)
    repeated = tile(ravel(a), -(-n // size))     # (always a copy: tile broadcasts)
    return reshape(indexing.getitem(repeated, slice(0, n)), shape)


@implements(np.lib.stride_tricks.sliding_window_view)
def sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    """NumPy's view of every window, as a gather: each windowed axis taken
    at the static indices start + offset (the axis becomes (starts, window)),
    its window axis moved to the end.  Read-only, as NumPy's view is; a
    writeable=True one is read as well, and a write through it refused
    (the copy holds each element once per window it is in)."""
    x = as_array_operand(x)
    shape = _aval(x).shape
    try:    # NumPy checks the arguments, on an array of this shape that holds nothing
        np.lib.stride_tricks.sliding_window_view(
            np.broadcast_to(np.zeros((), np.int8), shape), window_shape, axis)
    except (ValueError, TypeError) as e:
        raise ShapeError(f"sliding_window_view: {e}") from None
    sizes = tuple(np.atleast_1d(window_shape).tolist())
    axes = tuple(normalize_axis(ax, len(shape)) for ax in
                 (range(len(shape)) if axis is None else np.atleast_1d(axis).tolist()))
    # NumPy's view: a later write into x shows through it
    out = Array(windows(x, sizes, axes).var, base=x, index=indexing.Windowed((sizes, axes)))
    return read_only(out, WINDOWS if writeable else READ_ONLY)


def windows(x, sizes, axes):
    """sliding_window_view's values: each windowed axis taken at the static
    indices start + offset, its window axis moved to the end."""
    for ax, w in zip(axes, sizes):
        index = np.arange(_aval(x).shape[ax] - w + 1)[:, None] + np.arange(w)
        x = moveaxis(NUMPY[np.take](x, index, axis=ax), ax + 1, -1)
    return x


# --- facts about an array that are known at compile time ----------------------
# Shapes and dtypes are static: NumPy's functions of them are answered by
# NumPy itself, on the operands' static description.

@implements(np.shape)
def shape_of(a):
    return _aval(a).shape


@implements(np.ndim)
def ndim_of(a):
    return _aval(a).ndim


@implements(np.size)
def size_of(a, axis=None):
    shape = _aval(a).shape
    return int(np.prod(shape, dtype=np.int64)) if axis is None else shape[normalize_axis(axis, len(shape))]


@implements(np.iterable)
def iterable(y):
    """np.iterable: whether iter(y) works.  An array iterates over its first
    axis, so it is iterable when it has one; the lists, tuples and dicts that
    hold runtime values always are."""
    return _aval(y).ndim > 0 if isinstance(y, Array) else True


@implements(np.isscalar)
def isscalar(element):
    """np.isscalar: a Python or NumPy scalar, not a 0-d array.  tpucc knows
    which of the two a runtime 0-d value is (Array.immutable: a NumPy
    scalar's `+=` rebinds); where runtime branches chose the kind, it is
    read at run time."""
    if not isinstance(element, Array):
        return np.isscalar(element)
    if element.ndim or element.weak:
        return not element.ndim
    if isinstance(element.immutable, RuntimeKind):
        from ..infer.builtins_impl import to_python_scalar
        return to_python_scalar(Array(element.immutable.var), np.bool_)
    return element.immutable is not False


@implements(np.iscomplexobj)
def iscomplexobj(x):
    return _aval(x).dtype.kind == "c"


@implements(np.isrealobj)
def isrealobj(x):
    return _aval(x).dtype.kind != "c"


@implements(np.result_type)
def result_type_of(*arrays_and_dtypes):
    """A runtime array counts by its dtype; a weak one (a promoted Python
    scalar) as a Python number of its kind, which NEP 50 lets adapt."""

    def described(x):
        if not isinstance(x, Array):
            return x
        return x.dtype.type(0).item() if x.weak else x.dtype
    return np.result_type(*map(described, arrays_and_dtypes))


def _as_numpy_sees(x):
    """A runtime array as a dtype-only NumPy query sees it: an empty array of
    its dtype (only the dtype matters to can_cast and common_type); a weak one
    (a promoted Python scalar) as a Python number, which NumPy refuses there
    exactly as it refuses the eager Python number."""
    if not isinstance(x, Array):
        return x
    return x.dtype.type(0).item() if x.weak else np.empty(0, x.dtype)


@implements(np.can_cast)
def can_cast_of(from_, to, casting="safe"):
    """np.can_cast(array, dtype): NumPy 2 answers from the array's dtype alone
    (NEP 50 dropped value-based casting), so the answer is static."""
    return np.can_cast(_as_numpy_sees(from_), _as_numpy_sees(to), casting)


@implements(np.common_type)
def common_type_of(*arrays):
    """np.common_type: a scalar type chosen from the arrays' dtypes alone."""
    return np.common_type(*map(_as_numpy_sees, arrays))


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer import stacking  # noqa: E402
from ..infer.values import (Array, READ_ONLY, WINDOWS, NeedsStatic, RuntimeKind,  # noqa: E402
                            known_constant, known_integer, to_value)
from . import elementwise  # noqa: E402
from .elementwise import asarray, astype  # noqa: E402
from . import indexing  # noqa: E402  (which imports this module while loading)
from . import many_pieces  # noqa: E402
from ..lower.reverse import unbroadcast  # noqa: E402
