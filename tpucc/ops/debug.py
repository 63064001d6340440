"""print() in compiled code: printed by the compiled program when it runs,
in program order (static text and values alike), each value as eager
Python prints it, f-string fields (f"{loss:.4f}") formatted as eager Python
formats them."""
from __future__ import annotations

import functools
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import UnsupportedError
from .registry import register

# How eager Python holds each printed value (infer.builtins_impl.print_):
# a Python scalar, a NumPy scalar or an ndarray ("array"), or a Python int
# that is a bool on some runtime paths ("int or bool"), or a Python float
# that is an int on some ("int or float"), a NumPy bool that is a Python
# int on some ("bool or int"); "KIND|bool": one of those (or a plain kind),
# or a Python bool where its last bool is true.
PYTHON_TYPES = {"bool": bool, "int": int, "float": float, "complex": complex}


def _printed(kind, value):
    value = np.asarray(value)
    if "|" in kind:     # "KIND|TYPE": [value, ..., is a TYPE] (builtins_impl._printed_held_kind)
        kind, last = kind.rsplit("|", 1)
        if value[-1]:
            return PYTHON_TYPES[last](value[0].item())
        return _printed(kind, value[:-1] if len(value) > 2 else value[0])
    if kind == "int or bool":       # [value, is a bool] (builtins_impl._printed_value)
        return bool(value[0]) if value[1] else int(value[0])
    if kind == "int or float":      # [value, is an int]
        return int(value[0]) if value[1] else float(value[0])
    if kind == "bool or int":       # [value, is an int]
        return int(value[0]) if value[1] else bool(value[0])
    if kind in PYTHON_TYPES:
        return PYTHON_TYPES[kind](value.item())
    if kind == "scalar":
        return value[()]
    return value


_CONVERT = {"s": str, "r": repr, "a": ascii}


def _show(fmt, kinds, formats, wires, stream, *values):
    values = [_unwired(v, wire) for v, wire in zip(values, wires)]
    print(fmt.format(*(_text(_printed(k, v), how) for k, v, how in zip(kinds, values, formats))),
          end="", file=sys.stderr if stream == "stderr" else sys.stdout)


# 64-bit values cross to the host as uint32 words: jax gives a callback its
# operands canonicalized to 32 bits when it runs outside 64-bit mode, which a
# callback still running after the call returned does (a float64 loss was
# printed with float32 digits).
def _wired(x):
    """(x as the callback gets it, how to read it back: None or (dtype, shape))."""
    dtype = np.dtype(x.dtype)
    if dtype.itemsize < 8:
        return x, None
    if dtype.kind == "c":
        x = jnp.stack([lax.real(x), lax.imag(x)], axis=-1)
    return lax.bitcast_convert_type(x, np.uint32), (dtype.str, tuple(x.shape))


def _unwired(v, wire):
    if wire is None:
        return v
    dtype, shape = np.dtype(wire[0]), wire[1]
    words = np.ascontiguousarray(np.asarray(v, np.uint32))
    if dtype.kind == "c":           # (real, imag) pairs: the bits of each part, -0.0 and inf kept
        shape = shape[:-1]
        return words.reshape(shape + (-1,)).view(dtype).reshape(shape)
    return words.view(dtype).reshape(shape)


def _text(value, how) -> str:
    """A value printed as an argument of print() (`how` None: str(), as
    print takes it; format() of a NumPy float32 gives a Python float's
    digits), or as a field of an f-string: (conversion, spec), format() as
    the f-string does."""
    if how is None:
        return str(value)
    conversion, spec = how
    if conversion:
        value = _CONVERT[conversion](value)
    return format(value, spec)


@functools.cache
def _host_backend_missing() -> bool:
    """Whether jax runs with no CPU backend (JAX_PLATFORMS=cuda): its host
    callbacks place their inputs on a CPU device, and without one every
    call of the program fails inside the executable."""
    try:
        jax.devices("cpu")
    except RuntimeError:
        return True
    return False


def _print_lower(lc, *xs, fmt, kinds, formats=None, stream="stdout"):
    if _host_backend_missing():
        raise UnsupportedError(
            "print() of runtime values needs jax's CPU backend, which this process "
            "left out (JAX_PLATFORMS)",
            hint="list cpu there too (JAX_PLATFORMS=cuda,cpu), or print the results "
                 "after the call")
    # One ordered callback per print: prints keep the program's order (two
    # unordered callbacks, static text and values, came out swapped).
    formats = formats or (None,) * len(xs)
    wired = [_wired(x) for x in xs]
    jax.debug.callback(functools.partial(_show, fmt, kinds, formats, [w for _, w in wired],
                                         stream), *(v for v, _ in wired), ordered=True)
    return ()


register("print", lambda avals, fmt, kinds, formats=None, stream="stdout": (), _print_lower,
         numpy=None)
