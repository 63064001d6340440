"""`with warnings.catch_warnings():` and the filters set inside it
(warnings.simplefilter / filterwarnings / resetwarnings) in compiled code.

The compiled program gives none of NumPy's RuntimeWarnings (XLA does not
warn: nanmean of an all-NaN window is NaN, silently), so at run time such a
block changes nothing.  The warnings that compiled code does give come while
compiling (warnings.warn, NumPy's on folded values: see
builtins_impl.warn), so the block is entered and left while compiling, as
np.errstate is (interpreter.BEFORE_WITH), and its filters apply to those.

A filter set outside such a block would change the program's warning
filters for good when run eagerly, but here only while compiling (the
compile restores them): refused, naming the line.  So is
`catch_warnings(record=True)`, whose list would hold the compile's
warnings, not the run's.
"""
from __future__ import annotations

import warnings
import weakref

from ..errors import SideEffectError, StaticValueError, UnsupportedError
from .builtins_impl import BUILTINS, holds_array

_MOVE_OUT = ("call it before the compiled function, or inside `with warnings.catch_warnings():` "
             "in it (which compiled code honours: its NumPy operations give no RuntimeWarning "
             "at run time, so the block only filters the warnings given while compiling)")

# For each interpreter (one compile), the filter lists of the blocks it has
# entered and not yet left: a filter call may change only the innermost.
_OPEN_BLOCKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class CompileTimeFilters(warnings.catch_warnings):
    """warnings.catch_warnings() entered and left while compiling."""

    def __init__(self, interp, **kwargs):
        super().__init__(**kwargs)
        self._interp = interp

    def __enter__(self):
        out = super().__enter__()
        _OPEN_BLOCKS.setdefault(self._interp, []).append(warnings.filters)
        return out

    def __exit__(self, *exc_info):
        blocks = _OPEN_BLOCKS.get(self._interp, [])
        if blocks:
            blocks.pop()
        return super().__exit__(*exc_info)


def _catch_warnings(interp, *args, **kwargs):
    if args or kwargs.get("record"):
        raise UnsupportedError(
            "warnings.catch_warnings(record=True) in compiled code would record the warnings "
            "given while compiling, not those of a call (compiled NumPy operations give no "
            "RuntimeWarning)", hint="put the `with` block around the call of the compiled "
                                    "function")
    _refuse_runtime(kwargs.values(), "catch_warnings")
    return CompileTimeFilters(interp, **kwargs)


def _filter_call(fn):
    """warnings.<fn> inside a compiled `with warnings.catch_warnings():`."""
    def call(interp, *args, **kwargs):
        _refuse_runtime([*args, *kwargs.values()], fn.__name__)
        blocks = _OPEN_BLOCKS.get(interp, [])
        if not blocks or blocks[-1] is not warnings.filters:
            raise SideEffectError(
                f"warnings.{fn.__name__}() outside a `with warnings.catch_warnings():` block "
                "of the compiled function would change the warning filters only while "
                "compiling, not at each call", hint=_MOVE_OUT)
        fn(*args, **kwargs)
    return call


def _refuse_runtime(values, name: str):
    if any(holds_array(v) for v in values):
        raise StaticValueError(f"warnings.{name}() needs its arguments at compile time",
                               hint="pass Python values (an action string, a category class)")


BUILTINS[warnings.catch_warnings] = _catch_warnings
for _fn in (warnings.simplefilter, warnings.filterwarnings, warnings.resetwarnings):
    BUILTINS[_fn] = _filter_call(_fn)
