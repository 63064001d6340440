"""Array creation: full (zeros/ones/full/empty and their *_like), arange, eye.
These become ops rather than constants, so a large zeros() costs nothing in
the module.  linspace and array literals are computed by NumPy at compile
time and embedded as constants."""
from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import ShapeError, UserCodeError
from ..ir import AVal
from .registry import implements, register, static_index


def _emit(*a, **k):
    return emit(*a, **k)


def _shape(shape) -> tuple:
    shape = known_integer(shape) if not isinstance(shape, (tuple, list)) else \
        tuple(known_integer(d) for d in shape)     # (np.zeros((cy, cx)) of constants)
    if isinstance(shape, Array) or (isinstance(shape, (tuple, list)) and any(
            isinstance(d, Array) for d in shape)):
        masked.refuse_length_as_size(shape if isinstance(shape, (tuple, list)) else (shape,),
                                     "in an array's shape")
        raise ShapeError("an array's shape depends on runtime values (data-dependent shape)",
                         hint="shapes must come from other shapes or Python values")
    dims = _static_dims(shape)
    if any(d < 0 for d in dims):
        raise ShapeError(f"negative dimensions are not allowed: {dims}")
    return dims


def _static_dims(shape) -> tuple:
    """A static shape argument read as NumPy reads it (one int, or a
    sequence of ints), with NumPy's TypeError for anything else; a float
    (`np.zeros(n / 2)`) also says how to make the int."""
    try:
        if isinstance(shape, (int, np.integer)):
            return (static_index(shape),)
        if shape is None:
            raise TypeError("Use () not None as shape arguments")
        if not hasattr(shape, "__iter__"):
            raise TypeError(f"expected a sequence of integers or a single integer, got '{shape!r}'")
        return tuple(static_index(d) for d in shape)
    except TypeError as e:
        floats = isinstance(shape, (float, np.floating)) or hasattr(shape, "__iter__") and any(
            isinstance(d, (float, np.floating)) for d in shape)
        raise UserCodeError(f"TypeError: {e}", hint="a shape is made of ints: divide it with "
                            "// (`n // 2`), or convert with int()" if floats else None) from None


def _lower_full(lc, shape, dtype, value):
    # A constant out of the dtype's range (1e300 merged with a float32) is
    # inf, as NumPy's cast makes it: jax casts it with NumPy, whose overflow
    # warning would reach the user from jax's code while compiling.
    with np.errstate(over="ignore"):
        return lax.full(shape, value, dtype)


register("full", lambda avals, shape, dtype, value: AVal(dtype, shape, False), _lower_full,
         numpy=lambda shape, dtype, value: np.full(shape, value, dtype))


def _fill_dtype(value, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    return np.asarray(value).dtype if not isinstance(value, bool) else np.dtype(bool)


def full_of(shape, value, dtype):
    """An array of `shape` filled with a static or runtime `value`: a scalar,
    or an array-like broadcast to `shape` (np.full's copyto)."""
    value = array_like(value)
    dtype = np.dtype(dtype)
    if dtype.kind == "V":
        elementwise.refuse_bfloat16(dtype)
    check_python_int_fits(value, dtype)
    if isinstance(value, Array):
        return _emit("broadcast_to", _emit("convert", value, dtype=np.dtype(dtype)),
                     shape=_shape(shape))
    value = _converted_fill(value, np.dtype(dtype))
    if value.ndim:
        return _emit("broadcast_to", value, shape=_shape(shape))
    return _emit("full", shape=_shape(shape), dtype=np.dtype(dtype), value=value[()])


def _converted_fill(value, dtype) -> np.ndarray:
    """A static fill value converted to `dtype` now, as NumPy's
    copyto(..., casting='unsafe') converts it: 1j is 0.0 in a float array,
    '1.5' is 1.5 and None NaN; a list stays an array (broadcast by the
    caller); what NumPy refuses ('abc' into a float array) raises its
    error."""
    try:
        source = np.asarray(value)
        converted = np.empty(source.shape, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # (ComplexWarning: as eager code, silently here)
            np.copyto(converted, source, casting="unsafe")
    except (TypeError, ValueError) as e:
        raise UserCodeError(f"{type(e).__name__}: {e}") from None
    return converted


def check_python_int_fits(value, dtype):
    """NumPy 2 refuses a Python int fill value outside an integer dtype's
    range (np.full(2, -1, dtype=np.uint8), np.copyto(x, 300) raise
    OverflowError) instead of wrapping it; a NumPy integer wraps, a float
    is cast unsafely.  An int known only at run time is checked then."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu":
        return
    if isinstance(value, Array):
        if value.weak and value.dtype.kind in "iu" and value.ndim == 0:
            elementwise.require_int_fits(value, dtype)
    elif type(value) is int and not np.iinfo(dtype).min <= value <= np.iinfo(dtype).max:
        raise elementwise.python_int_out_of_bounds(value, dtype)


@implements(np.zeros)
def zeros(shape, dtype=float, order="C"):
    return full_of(shape, 0, dtype if dtype is not None else float)


@implements(np.empty)
def empty(shape, dtype=float, order="C"):
    return zeros(shape, dtype)


@implements(np.ones)
def ones(shape, dtype=None, order="C"):
    return full_of(shape, 1, dtype if dtype is not None else float)


@implements(np.full)
def full(shape, fill_value, dtype=None, order="C"):
    if dtype is None and isinstance(fill_value, Array):
        fill_value = held_ints.numpy_array_of(fill_value)   # (its dtype: the array's)
    dt = dtype if dtype is not None else (fill_value.dtype if isinstance(fill_value, Array)
                                          else _fill_dtype(fill_value, None))
    return full_of(shape, fill_value, dt)


def _like(value):
    def like(a, dtype=None, shape=None, **kw):
        aval = to_value(_prototype(a, dtype)).aval
        return full_of(aval.shape if shape is None else shape, value, dtype or aval.dtype)
    return like


def _prototype(a, dtype):
    """The `a` of np.zeros_like(a) (full_like ...), whose dtype the result
    takes where `dtype` is None: a value holding a Python number on some
    runtime paths is checked to have it there (held_ints.numpy_array_of)."""
    return held_ints.numpy_array_of(a) if dtype is None and isinstance(a, Array) else a


implements(np.zeros_like)(_like(0))
implements(np.ones_like)(_like(1))
implements(np.empty_like)(_like(0))


@implements(np.full_like)
def full_like(a, fill_value, dtype=None, shape=None, **kw):
    aval = to_value(_prototype(a, dtype)).aval
    return full_of(aval.shape if shape is None else shape, fill_value, dtype or aval.dtype)


register("arange", lambda avals, start, step, num, dtype: AVal(dtype, (num,), False),
         lambda lc, start, step, num, dtype: (start + step * lax.iota(np.int64, num)).astype(dtype)
         if np.dtype(dtype).kind in "iub" else
         (start + step * lax.iota(dtype, num)).astype(dtype),
         numpy=lambda start, step, num, dtype: np.arange(num, dtype=dtype) * step + start)


@implements(np.arange)
def arange(start, stop=None, step=None, dtype=None):
    if any(isinstance(v, Array) for v in (start, stop, step)):
        masked.refuse_length_as_size((start, stop, step), "as np.arange's bound")
        raise ShapeError("np.arange with a runtime bound or step: the array's length depends on "
                         "runtime values (data-dependent shape)",
                         hint="use a static length and add the runtime part: "
                              "start + step * np.arange(n)")
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    ref = np.arange(start, stop, step, dtype=dtype)[:0]   # NumPy's own dtype and length rule
    num = len(range(0, int(np.ceil((stop - start) / step)))) if step else 0
    if ref.dtype.kind in "fc" and 0 < num <= EXACT_ARANGE:
        # NumPy fills start + i * ((start + step) - start), rounded in the
        # dtype, which start + i * step (and XLA contracting it into an FMA)
        # misses by an ulp: a short one is NumPy's own array.
        return Array(const_value(np.arange(start, stop, step, dtype=ref.dtype)))
    return _emit("arange", start=start, step=step, num=max(num, 0), dtype=ref.dtype)


EXACT_ARANGE = 1 << 16      # elements of a float np.arange computed at compile time


register("eye", lambda avals, n, m, k, dtype: AVal(dtype, (n, m), False),
         lambda lc, n, m, k, dtype: jnp.eye(n, m, k, dtype=dtype),
         numpy=lambda n, m, k, dtype: np.eye(n, m, k, dtype))


@implements(np.eye)
def eye(N, M=None, k=0, dtype=float, order="C"):
    n, m = _shape((N, N if M is None else M))
    k = diagonal_offset(k)
    if isinstance(k, Array):        # (the shape does not depend on k: a band mask's width)
        return elementwise.astype(diagonals(n, m) == k, np.dtype(dtype))
    return _emit("eye", n=n, m=m, k=k, dtype=np.dtype(dtype))


def diagonal_offset(k):
    """The k of np.eye, np.tril and np.triu: a static int, or a runtime
    integer scalar (an int64 Array), as it selects values without changing
    any shape."""
    if isinstance(k, Array) and k.ndim == 0 and k.dtype.kind in "iu":
        return elementwise.astype(k, np.int64)
    return static_index(k)


def diagonals(n: int, m: int):
    """An (n, m) int64 array of column - row: which diagonal each element is on."""
    return arange(m)[None, :] - arange(n)[:, None]


@implements(np.identity)
def identity(n, dtype=float):
    return eye(n, dtype=dtype)


register("const", lambda avals, value: AVal(value.array.dtype, value.array.shape, False),
         lambda lc, value: _const_lower(value, lc.out_avals[0].dtype),
         numpy=lambda value: value)


def _const_lower(value, dtype):
    """A scalar stays a NumPy scalar array: jax makes it a literal where it
    is used, for less than a bind costs (0-d constants are most of them:
    `x <= 0`, `lr * g`).  An array converted inside the trace is one
    constant of the module, however often it is used."""
    value = np.asarray(value, dtype)
    return value if value.ndim == 0 else lax.convert_element_type(value, dtype)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import const_value, emit  # noqa: E402
from ..infer.values import Array, array_like, known_integer, to_value  # noqa: E402
from ..infer import held_ints  # noqa: E402
from . import elementwise, masked  # noqa: E402
