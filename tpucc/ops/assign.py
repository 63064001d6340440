"""Writing into arrays and reading one element out: `a.fill(v)`,
np.copyto(dst, src), np.fill_diagonal(a, val), np.put(a, ind, v) (and
`a.put`), np.putmask(a, mask, v), np.place(a, mask, v),
np.put_along_axis(arr, idx, v, axis) and `a.flat[k] = v` update their array in place (every alias and view sees it,
and an argument is written back, as with `x[...] = v`); `a.item()` gives a
Python scalar, held at run time; `a.flat` is a FlatIter.

Flat writes (np.put, `a.flat[k] = v`, np.fill_diagonal) all end in one
place, `_put_flat`: positions in a's C order, one value each.  A repeated
position keeps its last value, as NumPy's loop writes them in turn: static
positions are thinned at compile time, runtime ones by a scatter-max of
each write's number (which one wins), then one select.
"""
from __future__ import annotations

import numpy as np

from ..errors import (DTypeError, LimitError, ShapeError, StaticValueError, UnsupportedError,
                      UserCodeError)
from .creation import check_python_int_fits, full_of
from .elementwise import astype
from .logic import python_scalar
from .manipulation import as_array
from .registry import NUMPY, const_aval, implements, normalize_axis, weak_key
from .shape import broadcast_to, clip, flatten, ravel, reshape
from .shape import where as select


def _is_array(x) -> bool:
    return isinstance(x, Array)


def _updatable(a, what):
    if not _is_array(a) or a.weak or a.immutable:
        raise UnsupportedError(f"{what}: only an array can be updated in place, not a scalar "
                               "or a Python value")
    return a


@implements(method="fill")
def fill(a, value):
    """The value is converted to a's dtype as an assignment converts it
    (unsafe: 2.7 fills an int array with 2)."""
    a = _updatable(a, "a.fill()")
    if (value.ndim if _is_array(value) else np.ndim(value)):
        raise ShapeError("setting an array element with a sequence.")
    check_python_item(value, a.dtype)
    value = astype(value, a.dtype) if _is_array(value) else np.asarray(value).astype(a.dtype)
    a.set(full_of(a.shape, value, a.dtype).var)


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    dst = _updatable(dst, "np.copyto")
    src_aval = src.aval if _is_array(src) else const_aval(src)
    if not np.can_cast(weak_key(src_aval), dst.dtype, casting=casting):
        what = "scalar" if src_aval.weak else "array data"
        raise DTypeError(f"Cannot cast {what} from {src_aval.dtype!r} to {dst.dtype!r} "
                         f"according to the rule '{casting}'")
    check_python_int_fits(src, dst.dtype)
    value = broadcast_to(astype(src, dst.dtype), dst.shape)
    if where is not True:
        value = select(where, value, dst)
        if value.shape != dst.shape:
            raise ShapeError(f"could not broadcast where mask from shape {as_array(where).shape} "
                             f"into shape {dst.shape}")
    dst.set(value.var)


@implements(np.fill_diagonal)
def fill_diagonal(a, val, wrap=False):
    """NumPy writes `a.flat[:end:step] = val`: the positions are static, so
    this is `a[rows, cols, ...] = values` with static index arrays.  An
    array `val` is flattened and repeated (or cut) to the diagonal's length,
    as a flat assignment does; its values are cast unsafely (2.7 -> 2)."""
    a = _updatable(a, "np.fill_diagonal")
    if a.ndim < 2:
        raise UserCodeError("ValueError: array must be at least 2-d")
    end = None
    if a.ndim == 2:
        step = a.shape[1] + 1
        if not wrap:        # a tall matrix's diagonal does not wrap
            end = a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise UserCodeError("ValueError: All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
    flat = np.arange(a.size)[:end:step]
    value = val if _is_array(val) else np.asarray(val)
    if value.ndim:
        if value.size == 0 or flat.size == 0:
            return None     # NumPy writes nothing
        value = take(value, np.arange(flat.size) % value.size)    # flat order, cycled
    elif not _is_array(val):
        value = val         # a Python scalar keeps NumPy's range checks (300 into int8)
    if flat.size:
        setitem(a, np.unravel_index(flat, a.shape), value)
    return None


@implements(method="item")
def item(a, *args):
    """The element as the Python scalar of its kind (float32 gives a float)."""
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if not args:
        if a.size != 1:
            raise ShapeError("can only convert an array of size 1 to a Python scalar")
        element = a if a.ndim == 0 else reshape(a, ())    # (a 0-d keeps its known range)
    elif len(args) == 1:
        element = ravel(a)[args[0]]       # one index counts in the flattened array
    elif len(args) == a.ndim:
        element = a[args]
    else:
        raise ShapeError("incorrect number of indices for array")
    return python_scalar(element, _PYTHON_TYPE[a.dtype.kind])


_PYTHON_TYPE = {"b": bool, "i": int, "u": int, "f": float, "c": complex}

# Each element of tolist() is a value of its own in the compiled program.
TOLIST_MAX_ELEMENTS = 4096


@implements(method="tolist")
def tolist(a):
    """Nested lists of the elements as Python scalars (item()'s kinds); a
    0-d array gives one scalar, as in NumPy."""
    if a.size > TOLIST_MAX_ELEMENTS:
        raise LimitError(f"tolist() of an array of {a.size} elements: compiled code makes each "
                         f"element a value of its own (at most {TOLIST_MAX_ELEMENTS})",
                         hint="index the elements you need, or keep the array")
    if a.ndim == 0:
        return item(a)
    rows = [a[i] for i in range(a.shape[0])]
    elements = [tolist(row) for row in rows]
    if a.ndim == 1:
        element_lists.record(elements, a)
    else:
        element_lists.record_rows(rows, a)
    return elements


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced in a copy (in x itself with copy=False)."""
    x = array(x, copy=copy)
    if x.dtype.kind == "c":     # each part on its own, as NumPy does
        parts = [nan_to_num(emit(part, x), True, nan, posinf, neginf) for part in ("real", "imag")]
        x.set(emit("complex", *parts).var)
    elif x.dtype.kind == "f":
        info = np.finfo(x.dtype)
        # every mask is taken before the first replacement, as NumPy does
        replacements = [(nan, emit_ufunc("isnan", x)),
                        (info.max if posinf is None else posinf, x == np.inf),
                        (info.min if neginf is None else neginf, x == -np.inf)]
        for value, mask in replacements:
            copyto(x, value, where=mask)
    return x[()] if x.ndim == 0 else x


# --- np.put / np.putmask / np.put_along_axis / a.flat --------------------------------------

def _flat_target(a, what):
    """The array a flat write goes into: NumPy takes only an ndarray."""
    if not _is_array(a):
        raise UserCodeError(f"TypeError: {what}: first argument must be an array")
    return _updatable(a, what)


def _flat_values(value, dtype, count=None):
    """`value` as np.put and flat assignment read it: flattened, converted
    to `dtype` as an assignment converts (unsafe: 1.7 -> 1; a Python int
    must fit), cycled or cut to `count` items (if given).  None when it is
    empty (NumPy then writes nothing)."""
    check_python_item(value, dtype)
    value = array_like(value)
    if _is_array(value):
        flat = ravel(astype(value, dtype))
    else:
        flat = np.asarray(value).astype(dtype).ravel()
    if flat.shape[0] == 0:
        return None
    if count is not None and flat.shape[0] != count:
        flat = flat[np.arange(count) % flat.shape[0]]
    return flat


def _flat_index(index, n, mode, what):
    """An index operand of a flat write as a 1-d int64 array of positions
    in [0, n) (static, or a runtime Array), after NumPy's modes: 'raise'
    (negative ones count from the end; out of range raises IndexError, at
    compile time or when the call returns), 'wrap', 'clip' (a negative one
    is 0)."""
    index = array_like(index)
    if _is_array(index):
        index = ravel(astype(index, np.int64))
    else:
        index = np.asarray(index).ravel()
        index = index.astype(np.int64) if index.size else np.zeros(0, np.int64)
    if index.shape[0] == 0:
        return index
    if n == 0 and mode != "raise":
        raise UserCodeError("IndexError: cannot replace elements of an empty array")
    if mode == "wrap":
        return index % n
    if mode == "clip":
        return clip(index, 0, n - 1)
    if not _is_array(index):
        bad = index[(index < -n) | (index >= n)]
        if bad.size:
            raise UserCodeError(f"IndexError: index {bad[0]} is out of bounds for axis 0 with "
                                f"size {n}")
        return index % max(n, 1)
    from ..infer import checks
    checks.require(NUMPY[np.all]((index >= -n) & (index < n)),
                   f"an index is out of bounds for size {n} ({what})",
                   hint="NumPy raises IndexError here; compiled code checks every runtime "
                        "index and raises when the call returns")
    return select(index < 0, index + n, index)


def _put_flat(a, index, values):
    """a.flat[index] = values: `index` positions in [0, a.size) (static or
    runtime), `values` as many, of a's dtype.  The last write to a
    position wins."""
    k = index.shape[0]
    if k == 0 or values is None:
        return
    if not _is_array(index):
        _, first_reversed = np.unique(index[::-1], return_index=True)
        last = np.sort(k - 1 - first_reversed)      # each position's last write
        if last.size != k:
            index, values = index[last], values[last]
        key = np.unravel_index(index, a.shape) if a.ndim else ()
        setitem(a, key, values if a.ndim else values[-1])
        return
    winner = full_of((a.size,), -1, np.int64)       # the number of each position's last write
    winner = emit("scatter_at", winner, np.arange(k), index, key=(ARRAY,), how="max")
    chosen = row(as_array(values), clip(winner, 0, k - 1))     # (in range: no check)
    new = select(winner >= 0, chosen, ravel(a))
    a.set(reshape(new, a.shape).var)


_PUT_MODES = ("raise", "wrap", "clip")


@implements(np.put, method="put")
def put(a, ind, v, mode="raise"):
    a = _flat_target(a, "np.put")
    if mode not in _PUT_MODES:
        raise UserCodeError(f"ValueError: clipmode must be one of 'clip', 'raise', or 'wrap' "
                            f"(got {mode!r})")
    index = _flat_index(ind, a.size, mode, "np.put")
    _put_flat(a, index, _flat_values(v, a.dtype, index.shape[0]))


@implements(np.putmask)
def putmask(a, mask, values):
    """a.flat[n] = values.flat[n % len(values)] where mask.flat[n]: the
    values cycled over all of a, then np.copyto where the mask holds.
    Array values cast 'safe'; a Python number or a NumPy scalar is
    converted as an assignment converts it (NumPy checks only arrays)."""
    if not _is_array(a):
        raise UserCodeError("TypeError: putmask: first argument must be an array")
    a = _updatable(a, "np.putmask")
    mask = astype(as_array(mask), np.bool_, copy=False)
    if mask.size != a.size:
        raise UserCodeError("ValueError: putmask: mask and data must be the same size")
    _check_values_cast(values, a.dtype, "np.putmask")
    flat = _flat_values(values, a.dtype, a.size)
    if flat is None:
        return None
    copyto(a, reshape(flat, a.shape), casting="unsafe", where=reshape(mask, a.shape))
    return None


def _check_values_cast(values, dtype, what) -> None:
    """NumPy's TypeError for array values np.putmask and np.place cannot
    cast 'safe'.  Only an array is checked: NumPy converts a Python number,
    a NumPy scalar (np.float64(1.5), b.max()) or a list as an assignment
    converts it."""
    if isinstance(values, np.ndarray):
        aval = const_aval(values)
    elif _is_array(values) and not values.weak and not compile_time_kind(values.immutable):
        aval = values.aval      # (a kind known only at run time counts as a NumPy scalar)
    else:
        return
    if not np.can_cast(aval.dtype, dtype, "safe"):
        kind = "scalar" if len(aval.shape) == 0 else "array data"
        raise DTypeError(f"Cannot cast {kind} from {aval.dtype!r} to {dtype!r} "
                         f"according to the rule 'safe' ({what})",
                         hint=f"cast the values first (v.astype(np.{dtype})), as NumPy asks")


@implements(np.place)
def place(arr, mask, vals):
    """The k-th place where mask.flat holds gets vals.flat[k % len(vals)]:
    `arr.flat[mask.ravel()] = vals`, with np.putmask's casting (np.putmask
    takes vals.flat[n] for the n-th element instead)."""
    if not _is_array(arr):
        raise UserCodeError(f"TypeError: place() argument 1 must be numpy.ndarray, not "
                            f"{type(arr).__name__}")
    arr = _updatable(arr, "np.place")
    mask = ravel(astype(as_array(mask), np.bool_, copy=False))
    if mask.size != arr.size:
        raise UserCodeError("ValueError: place: mask and data must be the same size")
    _check_values_cast(vals, arr.dtype, "np.place")
    if _flat_values(vals, arr.dtype) is None:       # nothing to cycle: no place may be chosen
        _require_no_place(mask)
        return None
    FlatIter(arr)._set_masked(mask, vals)
    return None


def _require_no_place(mask) -> None:
    """np.place with no values raises ValueError where the mask chooses a
    place: a check when the call returns."""
    from ..infer import checks
    checks.require(~NUMPY[np.any](mask), "Cannot insert from an empty array!", raises="ValueError",
                   hint="give np.place at least one value, or a mask that chooses nothing")


@implements(np.put_along_axis)
def put_along_axis(arr, indices, values, axis):
    """NumPy's definition, arr[the index take_along_axis reads] = values
    (values broadcast; a repeated index as x[idx] = v writes it); axis=None
    writes arr.flat."""
    arr, indices = _updatable(arr, "np.put_along_axis"), as_array(indices)
    if indices.dtype.kind not in "iu":
        raise UserCodeError("IndexError: `indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise UserCodeError("ValueError: when axis=None, `indices` must have a single "
                                "dimension.")
        if _is_array(values) or np.ndim(values):      # broadcast, as x[idx] = v (not cycled)
            values = broadcast_to(values, indices.shape)
        FlatIter(arr)[indices] = values
        return None
    if indices.ndim != arr.ndim:
        raise UserCodeError("ValueError: `indices` and `arr` must have the same number of "
                            "dimensions")
    setitem(arr, along_axis_key(arr.shape, indices, normalize_axis(axis, arr.ndim)), values)
    return None


class FlatIter:
    """`a.flat`: a's elements in C order.  Reading `a.flat[k]` is
    `a.ravel()[k]` (an element a NumPy scalar, anything else a copy, as
    NumPy's); writing `a.flat[k] = v` goes into a, v flattened and cycled
    (np.put with mode 'raise'; a 1-d boolean key of a.size selects the
    positions, v cycled over the selected ones); `for x in a.flat` reads
    each element when the loop gets to it (interpreter.GET_ITER).  It is
    not an array: np.asarray(a.flat) and the like are a 1-d copy.  As
    NumPy's, it is an iterator: next() takes the element at `pos`
    (`advance`), where a loop over it starts (`looped`)."""
    __slots__ = ("base", "pos", "depth")

    def __init__(self, base):
        self.base = base
        self.pos = 0                # None once a loop went over it: where it left, unknown
        self.depth = builder.ctx().runtime_depth

    def advance(self, *default):
        """next(a.flat[, default]): the element where it stands, read now."""
        self._check_position("next() of a.flat")
        if self.pos >= self.base.size:
            if default:
                return default[0]
            raise UserCodeError("StopIteration", raised=StopIteration())
        self.pos += 1
        return self.item_at(self.pos - 1)

    def looped(self) -> int:
        """Where a for loop over it starts (after the elements next() took);
        where a `break` leaves it is not followed: it takes no more items."""
        self._check_looped("a for loop over a.flat")
        start, self.pos = self.pos, None
        return start

    def _check_looped(self, what: str) -> None:
        if self.pos is None:
            raise UnsupportedError(f"{what} after a for loop over the same a.flat iterator is "
                                   "not supported (where the loop left it is not followed)",
                                   hint="index it where the loop left it: a.flat[k]")

    def _check_position(self, what: str) -> None:
        self._check_looped(what)
        if builder.ctx().runtime_depth != self.depth and self.pos < self.base.size:
            raise StaticValueError(
                f"{what} under a runtime condition or in a runtime loop, the iterator made "
                "outside it: where it stands would be known only at run time",
                hint="index it with a counter instead: a.flat[k]")

    def __repr__(self):
        return f"a.flat of {self.base.aval}"

    def __len__(self):
        return self.base.size

    def as_array(self):
        return flatten(self.base)

    def _key(self, key):
        if isinstance(key, tuple) and len(key) == 1 and not _is_array(key[0]):
            key = key[0]
        return key

    def __getitem__(self, key):
        key = self._key(key)
        flat = ravel(self.base)
        out = scalar_if_numpy_would(flat, key, getitem(flat, key))
        return NUMPY[np.copy](out) if _is_array(out) and out.base is not None else out

    def item_at(self, pos):
        """The element at a position known to be in range (a loop's)."""
        return scalar_if_numpy_would(self.base, (0,) * self.base.ndim,
                                     row(ravel(self.base), pos))

    def __setitem__(self, key, value):
        a = _updatable(self.base, "a.flat[...] = v")
        key = self._key(key)
        n = a.size
        if isinstance(key, tuple) or key is Ellipsis:
            if key == ():
                raise UserCodeError("IndexError: Assigning to a flat iterator with a 0-D index "
                                    "is not supported")
            if key is not Ellipsis:
                raise UserCodeError(f"IndexError: too many indices for flat iterator: flat "
                                    f"iterator is 1-dimensional, but {len(key)} were indexed")
            key = slice(None)
        if isinstance(key, slice):
            check_slice_bounds(key)
            if any(_is_array(b) for b in (key.start, key.stop, key.step)):
                raise StaticValueError("a.flat[i:j] = v with runtime bounds is not supported",
                                       hint="slice with static bounds, or write "
                                            "a.flat[np.arange(n)[...]] = v")
            key = np.arange(n)[key]
        if isinstance(key, list) and key and all(isinstance(k, (bool, np.bool_)) for k in key):
            raise UserCodeError("IndexError: boolean indices for iterators are not supported "
                                "because of previous behavior that was confusing (valid "
                                "boolean indices are expected to work in the future)")
        key = array_like(key)
        if not _is_array(key):
            key = np.asarray(key)
        if key.dtype == np.bool_ and key.ndim:
            self._set_masked(key, value)
            return
        if key.dtype.kind not in "iu" and (key.size or _is_array(key)):
            raise UserCodeError("IndexError: only integers, slices (`:`), ellipsis (`...`) and "
                                "integer or boolean arrays are valid indices")
        index = _flat_index(key, n, "raise", "a.flat[...] = v")
        _put_flat(a, index, _flat_values(value, a.dtype, index.shape[0]))

    def _set_masked(self, mask, value):
        """a.flat[mask] = v: the k-th selected position gets v's k-th value
        (cycled), counted at run time for a runtime mask."""
        a = self.base
        if mask.ndim != 1 or mask.shape[0] != a.size:
            raise UserCodeError(f"IndexError: boolean index did not match indexed flat iterator "
                                f"along axis 0; size of axis is {a.size} but size of "
                                f"corresponding boolean axis is {mask.shape[-1]}")
        if not _is_array(mask):
            index = np.flatnonzero(mask)
            _put_flat(a, index, _flat_values(value, a.dtype, index.size))
            return
        flat = _flat_values(value, a.dtype)
        if flat is None:
            return
        rank = NUMPY[np.cumsum](mask) - 1               # the selected position's number
        chosen = row(as_array(flat), rank % flat.shape[0])
        a.set(reshape(select(mask, chosen, ravel(a)), a.shape).var)

    def __iter__(self):
        """Its elements from where it stands, all read now (list(it), sum(it))."""
        start = self.looped()
        self.pos = self.base.size
        return (self.item_at(k) for k in range(start, self.base.size))

    def __array__(self, *args, **kwargs):
        raise UnsupportedError("a.flat used as an array", hint="use a.ravel() or a.flat[:]")


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer import builder, element_lists  # noqa: E402
from ..infer.values import Array, compile_time_kind  # noqa: E402
from .elementwise import array, emit_ufunc  # noqa: E402
from .indexing import (ARRAY, check_python_item, check_slice_bounds, getitem,  # noqa: E402
                       row, setitem)
from .sorting import along_axis_key, take  # noqa: E402
from ..infer.builder import emit  # noqa: E402
from ..infer.values import array_like, scalar_if_numpy_would  # noqa: E402
