"""Calls checked against the called library function's own signature.

NumPy: arguments its signature rejects (np.concatenate(arrays=...),
np.reshape(a=x, ...) positional-only, x.reshape(shape=...)).  tpucc's
implementations (tpucc/ops) have their own parameter names, which may take
such a call; NumPy raises a TypeError for it, and so must compiled code, or
a program written under tpucc breaks when run eagerly.

Builtins: tpucc's replacements (builtins_impl: pow_, round_, the int()
conversion) name their parameters as they like; a call that passes Python's
names by keyword (pow(x, exp=2), int(s, base=16), enumerate(iterable=xs))
is bound to Python's signature first and handed to the replacement by
position.

The signatures are inspect.signature's (NumPy 2 and CPython give their C
functions one); a TypeError's message is the library's own, got by calling
it with stand-ins for the runtime values: such a call fails while the
library reads its arguments, before it computes anything.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ..errors import UserCodeError
from .values import Array


def refuse_rejected_keywords(fn, args, kwargs, name: str) -> None:
    """Python's TypeError where NumPy's `fn` (called `name`) does not bind
    `args` and `kwargs`.  Only calls with keywords are checked: tpucc's
    implementations already refuse positional arguments NumPy would."""
    if not kwargs:
        return
    signature = _signature(fn)
    if signature is None:
        return
    try:
        signature.bind(*args, **kwargs)
    except TypeError as error:
        message = _library_message(fn, [_array_stand_in(a) for a in args],
                                   {k: _array_stand_in(v) for k, v in kwargs.items()})
        if message is _ACCEPTED:        # (its signature says less than NumPy takes)
            return
        raise UserCodeError(f"TypeError: {message or f'{name}() {error}'}") from None


def as_impl_takes(fn, impl, args, kwargs, stand_in):
    """(args, kwargs) for `impl`, tpucc's replacement of the library
    function `fn`: as given where impl binds them, else bound to fn's own
    signature, its positional parameters passed by position.  Arguments
    fn rejects raise its TypeError (`stand_in`: a static value of a runtime
    one's type, for the call that gets its message)."""
    if _binds(_signature(impl), (None, *args), kwargs):
        return args, kwargs
    signature = _signature(fn) or _FALLBACK_SIGNATURES.get(fn)
    if signature is None:
        return args, kwargs
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as error:
        message = _library_message(fn, [stand_in(a) for a in args],
                                   {k: stand_in(v) for k, v in kwargs.items()})
        if message is _ACCEPTED:
            return args, kwargs
        name = getattr(fn, "__name__", "function")
        raise UserCodeError(f"TypeError: {message or f'{name}() {error}'}") from None
    return list(bound.args), dict(bound.kwargs)


def _binds(signature, args, kwargs) -> bool:
    if signature is None:
        return True         # (unknown: left to the call)
    try:
        signature.bind(*args, **kwargs)
        return True
    except TypeError:
        return False


def _signature(fn):
    try:
        return _cached_signature(fn)
    except TypeError:                   # (unhashable)
        return None


@functools.lru_cache(maxsize=1024)
def _cached_signature(fn):
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):     # (a C function without one)
        return None


# Builtins inspect gives no signature, as Python parses their arguments
_FALLBACK_SIGNATURES = {
    int: inspect.signature(lambda x=0, /, base=10: None),
    complex: inspect.signature(lambda real=0, imag=0: None),
}

_ACCEPTED = object()


def _library_message(fn, args, kwargs):
    """The message of the TypeError `fn` raises for the call of stand-ins;
    _ACCEPTED where fn takes it, None where it raises another error (the
    stand-ins', not the call's)."""
    try:
        fn(*args, **kwargs)
    except TypeError as error:
        return str(error)
    except Exception:       # noqa: BLE001
        return None
    return _ACCEPTED


def _array_stand_in(v):
    """An empty array of a runtime array's dtype and dimensions (lists and
    tuples of them too)."""
    if isinstance(v, Array):
        return np.zeros((0,) * v.ndim, v.dtype)
    if type(v) in (list, tuple):
        return type(v)(_array_stand_in(x) for x in v)
    return v
