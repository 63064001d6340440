"""print() in compiled code: printed by the compiled program when it runs,
in program order (static text and values alike), each value as eager
Python prints it."""
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


def _show(fmt, kinds, *values):
    # str() as print() takes it: format() of a NumPy float32 gives a Python
    # float's digits.
    print(fmt.format(*(str(_printed(k, v)) for k, v in zip(kinds, values))), end="")


def _print_lower(lc, *xs, fmt, kinds):
    # One ordered callback per print: prints keep the program's order (two
    # unordered callbacks, static text and values, came out swapped).
    jax.debug.callback(functools.partial(_show, fmt, kinds), *xs, ordered=True)
    return ()


register("print", lambda avals, fmt, kinds: (), _print_lower, numpy=None)
