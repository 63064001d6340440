"""Which iterations of a counted loop take a branch that tests the counter
alone, known at compile time.

`if ep % 100 == 0: log.append(float(loss))` in a 1000-epoch training loop
appends on ten iterations.  Inside the loop's While the counter is a
runtime value, so the `if` is a runtime branch, and an append under it
used to make the loop unroll (1000 copies of the body, minutes of XLA).
But its condition is computed from the counter and constants only, so
which iterations take it is known here: evaluated with NumPy over all the
counter's values at once, from the ops that compute it (`mask`).  The
loop's Growth (stacking.py) then writes the appended value into its
buffer inside the branch, and after the loop the list gets the rows of
the iterations that took it.

Only the integer and comparison ops such conditions are made of are
evaluated; any other op (a value from the body's state, a call) answers
None, and the loop is unrolled as before.
"""
from __future__ import annotations

import numpy as np


class _NotFromCounter(Exception):
    pass


def _binary(fn):
    return lambda op, a, b: fn(a, b)


def _reshaped(op, x):
    if op.attr("shape") != ():
        raise _NotFromCounter
    return x        # (a 0-d condition: here, one value per iteration)


def _full(op):
    if op.attr("shape") != ():
        raise _NotFromCounter
    return np.asarray(getattr(op.attr("value"), "array", op.attr("value")), op.attr("dtype"))


_EVAL = {
    "const": lambda op: np.asarray(getattr(op.attr("value"), "array", op.attr("value"))),
    "full": _full,
    "convert": lambda op, x: np.asarray(x).astype(op.attr("dtype")),
    "reshape": _reshaped,
    "logical_not": lambda op, x: np.logical_not(x),
    "invert": lambda op, x: np.invert(x),
    "negative": lambda op, x: np.negative(x),
    "absolute": lambda op, x: np.absolute(x),
    "select": lambda op, c, a, b: np.where(c, a, b),
    **{name: _binary(getattr(np, name)) for name in (
        "add", "subtract", "multiply", "floor_divide", "remainder", "fmod", "true_divide",
        "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
        "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
        "bitwise_xor", "minimum", "maximum")},
}


def mask(guards, ops, counter, positions: np.ndarray) -> np.ndarray | None:
    """For each of the counter's values `positions`, whether the branches
    `guards` ((condition Value, the arm taken: True for the `if` arm), outermost
    first) are all taken; None when a condition is not computed by `ops`
    from `counter` (a Value) and constants alone."""
    made = {id(out): op for op in ops for out in op.outputs}
    known = {id(counter): positions.astype(object)}

    def value(v):
        if id(v) not in known:
            op = made.get(id(v))
            fn = _EVAL.get(op.name) if op is not None and len(op.outputs) == 1 else None
            if fn is None or op.regions:
                raise _NotFromCounter
            known[id(v)] = _in_int64(fn(op, *(value(x) for x in op.inputs)))
        return known[id(v)]

    taken = np.ones(len(positions), dtype=bool)
    try:
        with np.errstate(all="ignore"):
            for condition, arm in guards:
                cond = np.broadcast_to(np.asarray(value(condition)).astype(bool), taken.shape)
                taken &= cond if arm else ~cond
    except (_NotFromCounter, TypeError, ValueError, ArithmeticError):
        return None
    return taken


def _in_int64(result):
    """`result` as Python computes it (the counter's values are Python ints
    in object arrays, so nothing wraps), when it is integers that each fit
    int64, or bools: then the compiled loop's branch computes the same.
    Else (a float, which XLA may compute otherwise: a fused multiply-add,
    a tiny value flushed to zero; an int past int64) the loop is unrolled,
    which is exact."""
    result = np.asarray(result)
    if result.dtype.kind == "b":
        return result
    if result.dtype.kind not in "iuO" or result.dtype == object and any(
            type(v) is not int and not isinstance(v, (bool, np.bool_, np.integer))
            or not -2 ** 63 <= v < 2 ** 63 for v in result.flat):
        raise _NotFromCounter
    return result
