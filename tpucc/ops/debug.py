"""print() of runtime values: printed by the compiled program when it runs."""
from __future__ import annotations

import jax

from .registry import register

register("print", lambda avals, fmt: (),
         lambda lc, *xs, fmt: (jax.debug.print(fmt, *xs), ())[1],
         numpy=None)
