"""Writing into arrays and reading one element out: `a.fill(v)`,
np.copyto(dst, src) and np.fill_diagonal(a, val) update their array in place (every alias and view sees
it, and an argument is written back, as with `x[...] = v`); `a.item()`
gives a Python scalar, held at run time.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, LimitError, ShapeError, UnsupportedError, UserCodeError
from .creation import full_of
from .elementwise import astype
from .logic import python_scalar
from .manipulation import as_array
from .registry import const_aval, implements, weak_key
from .shape import broadcast_to, ravel, reshape
from .shape import where as select


def _is_array(x) -> bool:
    return isinstance(x, Array)


def _updatable(a, what):
    if not _is_array(a) or a.weak or a.immutable:
        raise UnsupportedError(f"{what}: only an array can be updated in place, not a scalar "
                               "or a Python value")
    return a


def _check_fits(value, dtype):
    """NumPy 2 refuses an integer that the target's integer dtype cannot hold
    (a.fill(300) on int8 raises OverflowError) instead of wrapping it."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and \
            dtype.kind in "iu" and not np.iinfo(dtype).min <= int(value) <= np.iinfo(dtype).max:
        raise DTypeError(f"Python integer {int(value)} out of bounds for {dtype}")


@implements(method="fill")
def fill(a, value):
    """The value is converted to a's dtype as an assignment converts it
    (unsafe: 2.7 fills an int array with 2)."""
    a = _updatable(a, "a.fill()")
    if (value.ndim if _is_array(value) else np.ndim(value)):
        raise ShapeError("setting an array element with a sequence.")
    check_python_item(value, a.dtype)
    if not _is_array(value):
        value = np.asarray(value).astype(a.dtype)
    a.set(full_of(a.shape, value, a.dtype).var)


@implements(np.copyto)
def copyto(dst, src, casting="same_kind", where=True):
    dst = _updatable(dst, "np.copyto")
    src_aval = src.aval if _is_array(src) else const_aval(src)
    if not np.can_cast(weak_key(src_aval), dst.dtype, casting=casting):
        what = "scalar" if src_aval.weak else "array data"
        raise DTypeError(f"Cannot cast {what} from {src_aval.dtype!r} to {dst.dtype!r} "
                         f"according to the rule '{casting}'")
    _check_fits(src, dst.dtype)
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
        element = reshape(a, ())
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
    return [tolist(a[i]) for i in range(a.shape[0])]


@implements(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN and infinities replaced in a copy (in x itself with copy=False)."""
    x = array(x, copy=copy)
    if x.dtype.kind == "c":
        raise UnsupportedError("np.nan_to_num of complex arrays is not supported")
    if x.dtype.kind == "f":
        info = np.finfo(x.dtype)
        # every mask is taken before the first replacement, as NumPy does
        replacements = [(nan, emit_ufunc("isnan", x)),
                        (info.max if posinf is None else posinf, x == np.inf),
                        (info.min if neginf is None else neginf, x == -np.inf)]
        for value, mask in replacements:
            copyto(x, value, where=mask)
    return x[()] if x.ndim == 0 else x


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.values import Array  # noqa: E402
from .elementwise import array, emit_ufunc  # noqa: E402
from .indexing import check_python_item, setitem  # noqa: E402
from .sorting import take  # noqa: E402
