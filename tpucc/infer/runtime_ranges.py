"""Builtins over a range whose length is known only at run time
(calls.RuntimeRange: `range(n)` with n = int(x.sum())): its items are not
known while compiling, but sum(), max(), min() of them have closed forms,
exact in integers, and enumerate() of one is a loop over positions as the
range's own loop is.  The arithmetic is on weak int64 scalars, as Python
ints are in compiled code."""
from __future__ import annotations

import numpy as np

from ..errors import StaticValueError
from ..ops.elementwise import emit_ufunc
from ..ops.registry import NUMPY
from . import checks, iterators
from .iterators import RangeIter
from .values import Array


def length(r):
    """How many items r has (a runtime int; Python's len(range(...)))."""
    if r.rows is not None:      # (a runtime step: positions 0 .. stop - 1)
        return r.stop
    toward = 1 if r.step > 0 else -1
    return emit_ufunc("maximum", emit_ufunc("floor_divide", emit_ufunc(
        "add", emit_ufunc("subtract", r.stop, r.start), r.step - toward), r.step), 0)


def _first_and_step(r):
    if isinstance(r.rows, iterators.Stepped):
        return r.rows.start, r.rows.step
    return r.start, r.step


def total(r):
    """sum(r): count * first + step * count * (count - 1) / 2, where the
    product of two neighbours is even (exact, as Python's int sum is)."""
    count = length(r)
    first, step = _first_and_step(r)
    pairs = emit_ufunc("floor_divide", emit_ufunc(
        "multiply", count, emit_ufunc("subtract", count, 1)), 2)
    return emit_ufunc("add", emit_ufunc("multiply", count, first),
                      emit_ufunc("multiply", step, pairs))


def extreme(r, name: str, *default):
    """max(r) or min(r): its last or first item, as the step's sign says.
    An empty range raises Python's ValueError at run time, or gives
    `default` (an int: the result is one either way)."""
    count = length(r)
    first, step = _first_and_step(r)
    last = emit_ufunc("add", first, emit_ufunc("multiply", emit_ufunc("subtract", count, 1),
                                               step))
    if isinstance(step, int):
        value = last if (step > 0) == (name == "max") else first
    else:
        rising = emit_ufunc("greater", step, 0)
        value = _chosen(rising, last, first) if name == "max" else \
            _chosen(rising, first, last)
    some = emit_ufunc("greater", count, 0)
    if not default:
        checks.require(some, f"{name}() arg is an empty sequence", raises="ValueError")
        return value
    (default,) = default
    if type(default) is not int and not _runtime_int(default):
        raise StaticValueError(
            f"{name}() of a range with a runtime length gives an int, or default= where the "
            f"range is empty: here the default is a {type(default).__name__}, so the result's "
            "type would be known only at run time", hint="give an int default (-1), or test "
                                                         "the range's length first")
    return _chosen(some, value, default)


def _chosen(cond, a, b):
    """`a if cond else b` of Python ints: a Python int (np.where's is a 0-d array)."""
    from .builtins_impl import to_python_scalar
    return to_python_scalar(NUMPY[np.where](cond, a, b), np.int64)


def _runtime_int(v) -> bool:
    return isinstance(v, Array) and v.weak and v.dtype.kind in "iu" and v.shape == ()


def enumerated(r, start) -> RangeIter:
    """`for i, v in enumerate(range(n))`: a loop over the positions, each
    item (start + position, the range's item there), one runtime While as
    `for v in range(n)` is."""
    count = iterators.Counting(start)
    items = r.rows if r.rows is not None else iterators.Stepped(r.start, r.step)
    return RangeIter(0, length(r), 1, rows=(count, items))
