"""print() in compiled code: printed by the compiled program when it runs,
in program order (static text and values alike), each value as eager
Python prints it, f-string fields (f"{loss:.4f}") formatted as eager Python
formats them."""
from __future__ import annotations

import functools

import jax
import numpy as np

from .registry import register

# How eager Python holds each printed value (infer.builtins_impl.print_):
# a Python scalar, a NumPy scalar or an ndarray ("array").
PYTHON_TYPES = {"bool": bool, "int": int, "float": float, "complex": complex}


def _printed(kind, value):
    value = np.asarray(value)
    if kind in PYTHON_TYPES:
        return PYTHON_TYPES[kind](value.item())
    if kind == "scalar":
        return value[()]
    return value


_CONVERT = {"s": str, "r": repr, "a": ascii}


def _show(fmt, kinds, formats, *values):
    print(fmt.format(*(_text(_printed(k, v), how) for k, v, how in zip(kinds, values, formats))),
          end="")


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


def _print_lower(lc, *xs, fmt, kinds, formats=None):
    # One ordered callback per print: prints keep the program's order (two
    # unordered callbacks, static text and values, came out swapped).
    formats = formats or (None,) * len(xs)
    jax.debug.callback(functools.partial(_show, fmt, kinds, formats), *xs, ordered=True)
    return ()


register("print", lambda avals, fmt, kinds, formats=None: (), _print_lower, numpy=None)
