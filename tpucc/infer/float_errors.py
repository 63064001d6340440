"""NumPy's floating-point error handling under `with np.errstate(...='raise')`
in compiled code: runtime checks (checks.py) that raise FloatingPointError
when the call returns, with NumPy's message.

XLA sets no floating-point flags that a program could read, so each event
is recognized from values instead, per ufunc call (the operators and
np.<ufunc>(...)), as IEEE 754 signals it:
  invalid  a NaN made from operands that hold none (0/0, sqrt(-1), inf - inf);
  divide   an exact infinity made from finite operands: x/0 for x != 0, and
           the poles of log (0), log1p (-1), arctanh (+-1), reciprocal and
           power (0 ** negative); an integer division or remainder by 0;
  over     an infinity made from finite operands, where not a division by 0.
`under` (a result rounded to a subnormal or to zero) is not checked: a
program under np.errstate(under='raise') gets the rounded value.

The errstate settings the compiled code entered are a stack in the trace's
context (a `with` inside a `with` changes only what it names), with their
managers, which builder.compiling leaves if the trace ends inside one (a
compile error: NumPy's own state must not keep them); np.seterr
and errstates entered outside the compiled function are not read (the
compiled program does not depend on them)."""
from __future__ import annotations

import numpy as np

from . import builder
from .values import Array

KINDS = ("divide", "over", "invalid")   # the ones checked (see above)


def enter(manager: np.errstate) -> None:
    """A `with np.errstate(...)` begins: the kinds that raise from now on."""
    stack = builder.ctx().raised_float_errors
    raised = set(stack[-1][1]) if stack else set()
    everything = getattr(manager, "_all", None)
    for kind in KINDS:
        setting = getattr(manager, f"_{kind}", None)
        setting = everything if setting is None else setting
        if setting is not None:
            (raised.add if setting == "raise" else raised.discard)(kind)
    stack.append((manager, frozenset(raised)))


def leave() -> None:
    builder.ctx().raised_float_errors.pop()


def check(ufname: str, operands, result, scalar: bool = False) -> None:
    """The checks of a ufunc's result under the current np.errstate (none
    outside one).  `scalar`: NumPy's scalar math made it (an operator on
    NumPy scalars), whose messages say "in scalar divide"."""
    stack = builder.ctx().raised_float_errors
    raised = stack[-1][1] if stack else ()
    if not raised or not isinstance(result, Array) or result.dtype.kind not in "biufc":
        return
    xs = [_operand(x) for x in operands]
    if any(x is None for x in xs):
        return
    name = ("scalar " if scalar else "") + getattr(np, ufname).__name__
    divided = _divide_event(ufname, xs, result)
    # (in NumPy's order: of several kinds in one call, the first raises)
    for kind, bad in (("divide", lambda: divided), ("over", lambda: _overflow(xs, result, divided)),
                      ("invalid", lambda: _invalid(xs, result))):
        event = bad() if kind in raised else None
        if event is not None:
            _require_none(event, f"{_TEXT[kind]} encountered in {name}")


_TEXT = {"divide": "divide by zero", "over": "overflow", "invalid": "invalid value"}


def _require_none(event: Array, message: str) -> None:
    from . import checks
    emit = builder.emit
    ok = emit("logical_not", event)
    if ok.ndim:
        ok = emit("all", ok, axes=None, keepdims=False)
    checks.require(ok, message, raises="FloatingPointError",
                   hint="NumPy raises this under np.errstate(...='raise'): compiled code "
                        "checks the values and raises when the call returns")


def _operand(x):
    """x as an Array (a static number made a constant), or None where it
    cannot be one (an int beyond 64 bits)."""
    if isinstance(x, Array):
        return x
    try:
        value = np.asarray(x)
    except OverflowError:
        return None
    if value.dtype.kind not in "biufc":
        return None
    return Array(builder.const_value(value))


def _any_of(events):
    events = [e for e in events if e is not None]
    if not events:
        return None
    out = events[0]
    for e in events[1:]:
        out = builder.emit("logical_or", out, e)
    return out


def _all_of(*conditions):
    conditions = [c for c in conditions if c is not None]
    out = conditions[0]
    for c in conditions[1:]:
        out = builder.emit("logical_and", out, c)
    return out


def _inexact(x) -> bool:
    return x.dtype.kind in "fc"


def _nan(x):
    return builder.emit("isnan", x) if _inexact(x) else None


def _finite(x):
    return builder.emit("isfinite", x) if _inexact(x) else None


def _equals(x, value):
    return builder.emit("equal", x, value)


def _invalid(xs, result):
    """A NaN result where no operand is NaN."""
    if not _inexact(result):
        return None
    made = _nan(result)
    had = _any_of([_nan(x) for x in xs])
    return made if had is None else _all_of(made, builder.emit("logical_not", had))


def _overflow(xs, result, divided):
    """An infinite result from finite operands that no division by zero made."""
    if not _inexact(result):
        return None
    emit = builder.emit
    event = _all_of(emit("isinf", result), *[_finite(x) for x in xs])
    if divided is not None:
        event = _all_of(event, emit("logical_not", divided))
    return event


def _divide_event(ufname, xs, result):
    """Where the ufunc divided by zero (None: nowhere it can)."""
    emit = builder.emit
    if ufname in ("true_divide", "divide", "floor_divide") and len(xs) == 2:
        x, y = xs
        if not (_inexact(x) or _inexact(y) or _inexact(result)):
            return _equals(y, 0)                    # an integer division by zero
        return _all_of(_equals(y, 0), emit("not_equal", x, 0), _finite(x))
    if ufname in ("remainder", "fmod") and len(xs) == 2:
        return _equals(xs[1], 0) if not _inexact(result) else None    # (floats: NaN, invalid)
    if len(xs) != 1 and ufname not in ("power", "float_power"):
        return None
    x = xs[0]
    if not _inexact(result):
        return None
    if ufname in ("log", "log2", "log10", "reciprocal"):
        return _equals(x, 0)
    if ufname == "log1p":
        return _equals(x, -1)
    if ufname == "arctanh":
        return _equals(emit("absolute", x), 1)
    if ufname in ("power", "float_power") and result.dtype.kind == "f":
        return _all_of(_equals(x, 0), emit("less", xs[1], 0))
    return None
