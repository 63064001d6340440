"""print() in compiled code: printed by the compiled program when it runs."""
from __future__ import annotations

import functools

import jax

from .registry import register


def _print_lower(lc, *xs, fmt):
    if xs:
        jax.debug.print(fmt, *xs)
    else:
        # Static text only (jax.debug.print would not format it: `{{` stays).
        jax.debug.callback(functools.partial(print, fmt.format()))
    return ()


register("print", lambda avals, fmt: (), _print_lower, numpy=None)
