"""Python buffers in the arguments (bytes, bytearray, array.array) read as
NumPy arrays: `np.frombuffer(data, np.uint8)`, `np.asarray(ba)`.

NumPy reads such a buffer in place: the array is a view of the caller's
memory (read-only for bytes), so writes through it reach a bytearray, and
every call sees the buffer's current contents.  Folded in at compile time,
the buffer was a snapshot: writes were lost, a later call after the caller
changed the buffer answered from the old bytes, and a large one was a
constant XLA folded for seconds.

So a buffer argument that the trace reads this way is a runtime input:
the first trace raises PromoteScalars for its place ("buffer", root, keys),
and from then on driver.signature_key passes the buffer's memory
(`memory_of`) as a leaf, bound here to an Array (`bind`); the static object
stays in the argument for everything else the program does with it
(len(data), data[0], data.decode()), keyed as before.  An update of that
Array is written back into the caller's memory, as NumPy's view would.
"""
from __future__ import annotations

import array
import sys
from typing import NamedTuple

import numpy as np

from ..errors import UnsupportedError
from .builder import refuse_byte_order
from .scalar_state import PromoteScalars
from .values import ASSEMBLED, READ_ONLY, SNAPSHOT, Array

BUFFER_TYPES = (bytes, bytearray, array.array)

# NumPy functions that read a buffer object in place (a view of its memory),
# and np.array, which copies it.
_VIEWING = (np.frombuffer, np.asarray, np.asanyarray, np.ascontiguousarray)
READERS = (*_VIEWING, np.array)


def buffer_key(root, keys: tuple) -> tuple:
    """The scalar_state place of a buffer argument read as a runtime array."""
    return ("buffer", root, keys)


def is_buffer(x) -> bool:
    """A buffer whose memory NumPy reads as an array of numbers (not an
    array.array of characters, typecode 'u' or 'w')."""
    return isinstance(x, BUFFER_TYPES) and not (
        isinstance(x, array.array) and x.typecode in "uw")


class BoundBuffer(NamedTuple):
    """A buffer argument read as a runtime array: the Array of its memory,
    the module parameter, and its place in the arguments."""
    array: object
    param: object
    root: object
    keys: tuple


def memory_of(x) -> np.ndarray:
    """The NumPy view of buffer x's memory: uint8 for bytes and bytearray,
    the typecode's dtype for an array.array; read-only for bytes."""
    return np.frombuffer(x, np.uint8) if isinstance(x, (bytes, bytearray)) else np.asarray(x)


def leaf_of(x) -> np.ndarray:
    """What a call passes for buffer x: bytes' read-only memory itself, a
    copy of a bytearray's or array.array's.  (jax keeps a reference to an
    input array after the call; a view would keep the caller's bytearray
    exported, and `ba.append(...)` would then raise BufferError.)  Updates
    go back through write_back."""
    return np.frombuffer(x, np.uint8) if isinstance(x, bytes) else np.array(x)


def write_back(x, value: np.ndarray):
    """The program's update of buffer argument x's memory, into x (a
    NumPy view made and dropped here, so x stays resizable)."""
    np.copyto(memory_of(x), value)


def reads_buffer(fn, args) -> bool:
    """Whether the NumPy call `fn(*args)` reads a buffer object's memory."""
    return bool(args) and any(fn is r for r in READERS) and is_buffer(args[0]) and not (
        isinstance(args[0], bytes) and fn is not np.frombuffer)  # (np.asarray(b"ab"): |S2)


def runtime_memory(interp, x):
    """The Array bound to buffer argument x's memory; raises PromoteScalars
    (the trace runs again with it bound) for an argument buffer not bound
    yet; None for a buffer from elsewhere (made by the program, a global:
    folded in as NumPy reads it now) or one kept static."""
    bound = interp.bound_buffers.get(id(x))
    if bound is not None:
        return bound.array
    place = interp.argument_buffers.get(id(x))
    if place is None:
        return None
    key = buffer_key(*place[:2])
    if key in interp.scalars.static:
        return None
    raise PromoteScalars(key, f"the buffer of argument {place[2]}")


def numpy_read(interp, fn, args, kwargs):
    """fn(x, ...) of a buffer argument x, on its runtime memory; None where
    it is left to NumPy at compile time: a buffer not from the arguments
    (made by the program, a global: then guarded, and read-only if mutable,
    see `snapshot`), bytes read otherwise than np.frombuffer reads them."""
    x = args[0]
    memory = runtime_memory(interp, x)
    if memory is not None and fn is np.frombuffer:
        return _frombuffer(interp, x, memory, args, kwargs)
    if memory is not None and len(args) <= 2 and not set(kwargs) - {"dtype", "copy", "order"}:
        dtype = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        copy = kwargs.get("copy", fn is np.array)     # (order: one axis, C and F alike)
        out = interp.call(np.copy, [memory], {}) if copy else memory
        if dtype is not None and np.dtype(dtype) != memory.dtype:
            return interp.call(interp.getattr(out, "astype"), [np.dtype(dtype)], {})
        return out
    if not isinstance(x, bytes):
        interp.guard_contents(x)    # NumPy reads it now: changed contents compile again
    return None


def snapshot(x, out):
    """The constant NumPy made now of buffer x (not an argument's, or read
    in a way compiled code does not): a bytearray or array.array view the
    program could write into, which would not reach x, refuses writes."""
    if isinstance(out, Array) and not isinstance(x, bytes) and out.frozen is None:
        out.frozen = SNAPSHOT
    return out


def _frombuffer(interp, x, memory, args, kwargs):
    """np.frombuffer(x, dtype, count, offset): the slice of x's memory it
    views, reinterpreted when the dtype differs; numbers wider than the
    bytes of a bytes or bytearray assembled from them."""
    names = ("dtype", "count", "offset")
    options = dict(zip(names, args[1:]), **kwargs)
    if set(options) - set(names):
        return None
    view = np.frombuffer(x, **options)      # NumPy's errors and length, now (no copy)
    dtype, size = view.dtype, memory.dtype.itemsize
    offset = options.get("offset", 0)
    if not dtype.isnative:
        refuse_byte_order(dtype, "np.frombuffer would give an array")
    if dtype.kind in "iuf" and memory.dtype.kind in "iuf":
        if dtype.itemsize == size and offset % size == 0:
            start = offset // size
            out = interp.getitem(memory, slice(start, start + len(view)))
            return out if dtype == memory.dtype else \
                interp.call(interp.getattr(out, "view"), [dtype], {})
        if size == 1:
            octets = interp.getitem(memory, slice(offset, offset + view.nbytes))
            return _assembled(interp, octets, dtype)
    if isinstance(x, bytes):
        return None     # immutable: NumPy's array now is exact (and keyed by the bytes)
    kind = "an array.array" if isinstance(x, array.array) else f"a {type(x).__name__}"
    raise UnsupportedError(
        f"np.frombuffer of {kind} argument as {dtype}, at byte offset {offset} (its items "
        f"are {memory.dtype}), is not supported in compiled code: only its own item size, "
        "at a multiple of it, or numbers assembled from the bytes of a bytearray",
        hint=f"read it with its own item type, np.frombuffer(data, np.{memory.dtype.name}), and "
             "convert that array (.astype), or pass a NumPy array")


def _assembled(interp, octets, dtype):
    """np.frombuffer(b, dtype) for a dtype of k > 1 bytes: each run of k
    bytes made into one number, in the machine's byte order, as NumPy reads
    them.  A copy: writes cannot reach the buffer (values.ASSEMBLED)."""
    k = dtype.itemsize
    unsigned = np.dtype(f"u{k}")

    def method(x, name, *args):
        return interp.call(interp.getattr(x, name), list(args), {})
    columns = method(method(octets, "reshape", -1, k), "astype", unsigned)
    order = range(k) if sys.byteorder == "little" else range(k - 1, -1, -1)
    number = None
    for shift, j in enumerate(order):
        part = interp.call(np.left_shift, [interp.getitem(columns, (slice(None), j)),
                                           unsigned.type(8 * shift)], {})
        number = part if number is None else interp.call(np.bitwise_or, [number, part], {})
    out = number if dtype == unsigned else method(number, "view", dtype)
    out.frozen = READ_ONLY if octets.frozen == READ_ONLY else ASSEMBLED
    return out


def written(interp, x) -> bool:
    """Whether the program wrote into buffer argument x through a NumPy
    view: its contents are then known only at run time."""
    bound = interp.bound_buffers.get(id(x)) if is_buffer(x) else None
    return bound is not None and bound.array.var is not bound.param


def refuse_stale_read(interp, x, how: str):
    """A static read (`how`) of buffer argument x after the program wrote
    into it through a NumPy view would give its bytes from before."""
    if written(interp, x):
        raise UnsupportedError(
            f"reading a {type(x).__name__} argument ({how}) after writing into it through a "
            "NumPy view is not supported in compiled code: its new contents are known only "
            "at run time, and reading it this way happens at compile time",
            hint="read the array instead (a = np.frombuffer(data, np.uint8); a[i], a.sum(), "
                 "...), or do the reading outside the compiled function")


def refuse_bytes_of_runtime(interp, cls, args):
    """bytes(x) / bytearray(x) where x is a runtime array, or a buffer
    argument the program wrote into through a NumPy view: the Python
    object would be built from values known only at run time."""
    if not args or cls not in (bytes, bytearray):
        return
    x = args[0]
    if isinstance(x, Array) or written(interp, x):
        what = "a runtime array" if isinstance(x, Array) else \
            "a buffer the program wrote into through a NumPy view (its new bytes are " \
            "known only at run time)"
        raise UnsupportedError(
            f"{cls.__name__}() of {what} is not supported in compiled code: a Python "
            f"{cls.__name__} object is made at compile time",
            hint=f"return the uint8 array (x.astype(np.uint8) for another dtype) and call "
                 f"{cls.__name__}() on it outside the compiled function")
    if _holds_runtime_items(x):
        # (else each item's __index__ asks for a compile-time int, and the
        # refusal would speak of an index where nothing is indexed)
        raise UnsupportedError(
            f"{cls.__name__}() of a {type(x).__name__} of runtime values is not supported in "
            f"compiled code: a Python {cls.__name__} object is made at compile time",
            hint=f"return np.array(items, np.uint8) and call {cls.__name__}() on it outside "
                 f"the compiled function")


def refuse_runtime_store(interp, x, values) -> None:
    """A runtime value (or position) stored into a bytearray or array.array
    the program made (bytearray(n), array.array('B', ...)): such an object
    is Python's, its items known at compile time, and no runtime memory
    stands for it (an argument's does: item_write).  (One from outside is
    refused as any outside container is.)"""
    if type(x) not in (bytearray, array.array) or id(x) not in interp.fresh_ids or \
            not any(map(_holds_runtime, values)):
        return
    kind = "a bytearray" if type(x) is bytearray else "an array.array"
    dtype = "np.uint8" if type(x) is bytearray else f"np.dtype('{x.typecode}')"
    remake = "bytearray(buf)" if type(x) is bytearray else f"array.array('{x.typecode}', buf)"
    raise UnsupportedError(
        f"storing a runtime value in {kind} that the compiled function made is not "
        f"supported: such a Python object holds items known at compile time",
        hint=f"build the items in a NumPy array (buf = np.zeros(n, {dtype}); buf[i] = v), return "
             f"it and make {remake} after the call; or pass {kind} in as an argument, "
             "whose items take runtime values")


def _holds_runtime(v) -> bool:
    return isinstance(v, Array) or _holds_runtime_items(v)


def _holds_runtime_items(x) -> bool:
    """A list or tuple with a runtime value among its items."""
    return isinstance(x, (list, tuple)) and any(isinstance(item, Array) for item in x)


# --- ba[i] = v and ba[i] on a bytearray argument ------------------------------------
# The same memory np.frombuffer(ba, np.uint8) views: an item written is
# written back into the caller's bytearray after the call, and an item read
# after a write is read from it (before one, ba[i] is a static int, guarded).

def item_write(interp, x, key, value) -> bool:
    """ba[key] = value on bytearray argument x, into its runtime memory;
    False where x is no bytearray argument (or kept static: the caller's
    refusal stands).  Python's TypeError, ValueError and IndexError are
    raised now where the index and value say so."""
    if type(x) is not bytearray:
        return False
    memory = runtime_memory(interp, x)
    if memory is None:
        return False
    if isinstance(key, slice):
        _write_slice(interp, x, key, value)
        return True
    _check_like_python(x, key, value)
    if isinstance(value, Array) and value.dtype not in (np.uint8, np.bool_):
        from . import checks
        checks.require(interp.call(np.logical_and, [interp.call(np.greater_equal, [value, 0], {}),
                                                    interp.call(np.less, [value, 256], {})], {}),
                       "byte must be in range(0, 256)", raises="ValueError")
    interp.setitem(memory, key, interp.call(np.uint8, [value], {})
                   if isinstance(value, Array) else np.uint8(value))
    return True


def _check_like_python(x, key, value) -> None:
    """Raises now what `x[key] = value` raises eagerly, as far as compile
    time tells: an index or value of a type bytearray refuses, a static byte
    out of range(256), a static index past the end (a runtime index or
    value is tried as a zero of its eager type)."""
    from ..errors import UserCodeError
    target = bytearray(1) if isinstance(key, Array) else bytearray(len(x))
    try:
        target[_stand_in(key)] = _stand_in(value)
    except (TypeError, ValueError, IndexError) as e:
        raise UserCodeError(f"{type(e).__name__}: {e}") from None


def _stand_in(v):
    """A static value of the eager type of runtime v (0 of a Python int,
    an np.int64, a size-1 array of its rank): v itself where static."""
    from .builtins_impl import python_sample
    if not isinstance(v, Array):
        return v
    sample = python_sample(v)
    return np.zeros((1,) * v.ndim, v.dtype) if isinstance(sample, np.ndarray) else sample


def _write_slice(interp, x, key: slice, value) -> None:
    """ba[i:j] = items, item by item where as many are given as the slice
    holds; one that would resize the bytearray is refused."""
    if isinstance(value, Array) or not hasattr(value, "__iter__"):
        _check_like_python(x, key, value)       # `ba[0:2] = 5`, an array: Python's TypeError
    items = interp.static_items(value)
    positions = range(*key.indices(len(x)))
    if len(items) != len(positions):
        if key.step not in (None, 1):           # an extended slice: Python's ValueError
            _check_like_python(x, key, bytes(len(items)))
        raise UnsupportedError(
            f"assigning {len(items)} item(s) to a slice of {len(positions)} of a bytearray "
            "argument would resize it, which compiled code does not support: its memory is "
            "a runtime array of a fixed length",
            hint="assign as many bytes as the slice holds, or build a new bytes object "
                 "and return it (resize the caller's bytearray outside)")
    for position, item in zip(positions, items):
        item_write(interp, x, position, item)


def item_read(interp, x, key):
    """ba[key] after the program wrote into bytearray argument x: the
    byte as a runtime Python int, read from its memory; None where it is
    not so (a slice of it, or no write yet: a static read)."""
    if type(x) is not bytearray or not written(interp, x) or isinstance(key, slice):
        return None
    from .builtins_impl import to_python_scalar
    _check_like_python(x, key, 0)           # (Python's IndexError or TypeError, now)
    return to_python_scalar(interp.getitem(interp.bound_buffers[id(x)].array, key), np.int64)
