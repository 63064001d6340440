"""Calls bound by the called library function's own signature: tpucc's
implementations (tpucc/ops, builtins_impl) name and order their parameters
as suits them, so a call is first read as NumPy or Python would read it.

NumPy, arguments by position: the reductions share one implementation whose
order is (a, axis, dtype, out, keepdims), where np.var's is (a, axis, dtype,
out, ddof, keepdims) and np.max's (a, axis, out, keepdims).  Passed on by
position, np.std(x, 0, None, None, 1) would read ddof=1 as keepdims.  So an
argument given by position is passed on by the name NumPy gives it, from
the first position where the two signatures part ways; out= always by name,
so the out= checks see it (function_call, method_call).

NumPy, arguments by keyword: those its signature rejects
(np.concatenate(arrays=...), np.reshape(a=x, ...) positional-only,
x.reshape(shape=...)) raise NumPy's TypeError, as eagerly, where an
implementation might take them (refuse_rejected_keywords).

Builtins: a call that passes Python's names by keyword (pow(x, exp=2),
int(s, base=16), enumerate(iterable=xs)) is bound to Python's signature and
handed to the replacement by position (as_impl_takes).

The signatures are inspect.signature's (NumPy 2 and CPython give their C
functions one; a C function's text signature may leave parameters out, so
those are not rebound by position); a TypeError's message is the library's
own, got by calling it with stand-ins for the runtime values: such a call
fails while the library reads its arguments, before it computes anything.
"""
from __future__ import annotations

import functools
import inspect
import types

import numpy as np
from numpy._core import _methods

from ..errors import UserCodeError
from .values import Array

# ndarray methods that call a Python function of numpy._core._methods
_PYTHON_METHODS = {"max": "_amax", "min": "_amin", "sum": "_sum", "prod": "_prod",
                   "mean": "_mean", "var": "_var", "std": "_std", "any": "_any", "all": "_all",
                   "clip": "_clip", "ptp": "_ptp"}
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def function_call(fn, impl, name: str, args: list, kwargs: dict):
    """(args, kwargs) for impl of the NumPy function `fn` called as the
    program wrote fn(*args, **kwargs)."""
    params = _function_params(fn)
    if params is None:
        return args, kwargs
    numpy_params, varargs = params
    if len(args) > len(numpy_params) and not varargs:
        required = sum(p.default is p.empty for p in numpy_params)
        raise UserCodeError(f"TypeError: {name}() takes from {required} to {len(numpy_params)} "
                            f"positional arguments but {len(args)} were given")
    for p in numpy_params[:len(args)]:
        if p.name in kwargs and p.kind is not p.POSITIONAL_ONLY:
            raise UserCodeError(f"TypeError: {name}() got multiple values for argument "
                                f"'{p.name}'")
    return _bound(numpy_params, impl, args, kwargs)


def method_call(method: str, impl, args: list, kwargs: dict):
    """(args, kwargs) for impl of the array method x.<method>, called with
    the array first, as x.<method>(*args[1:], **kwargs)."""
    params = _method_params(method)
    if params is None:
        return args, kwargs
    return _bound(params, impl, args, kwargs)


def _bound(numpy_params: tuple, impl, args: list, kwargs: dict):
    impl_params = _impl_params(impl)
    if impl_params is None:
        return args, kwargs
    accepted, takes_any = impl_params[1], impl_params[2]
    kept = _positions_kept(numpy_params, impl_params[0], len(args))
    moved = dict(kwargs)
    for p, value in zip(numpy_params[kept:], args[kept:]):
        if takes_any or p.name in accepted or not _is_default(p, value):
            moved[p.name] = value   # (one the implementation lacks: its E100 names it)
    return list(args[:kept]), moved


def _positions_kept(numpy_params: tuple, impl_positional: tuple, given: int) -> int:
    """How many leading arguments go on by position: the array operand, and
    those whose parameter has the same name in both signatures (or no name
    to give: positional-only), up to the first out=."""
    for i in range(1, min(given, len(numpy_params))):
        p = numpy_params[i]
        if p.name == "out":
            return i
        mine = impl_positional[i] if i < len(impl_positional) else None
        if p.kind is p.POSITIONAL_ONLY or (mine is not None and mine.kind is mine.POSITIONAL_ONLY):
            continue
        if mine is None or mine.name != p.name:
            return i
    return given


def _is_default(p, value) -> bool:
    """Whether `value` is what leaving the argument out would give (None for
    out=, False for subok=): such an argument the implementation lacks is
    dropped."""
    if value is None:
        return p.default is None or p.default is np._NoValue
    return type(value) in (bool, int, float, str) and type(value) is type(p.default) and \
        value == p.default


@functools.lru_cache(maxsize=None)
def _impl_params(impl):
    """(positional parameters, keyword names, takes **kw) of an
    implementation; None where it has no signature to read."""
    try:
        params = tuple(inspect.signature(impl).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = []
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            break
        if p.kind in _POSITIONAL:
            positional.append(p)
    keywords = frozenset(p.name for p in params
                         if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    return tuple(positional), keywords, any(p.kind is p.VAR_KEYWORD for p in params)


def _function_params(fn):
    """NumPy's positional parameters of `fn` and whether it takes *args;
    None for a ufunc (its operands and outputs are bound elsewhere) and for
    what has no signature to read."""
    if isinstance(fn, np.ufunc) or isinstance(fn, (types.BuiltinFunctionType,
                                                   types.BuiltinMethodType)):
        return None     # (a C function's text signature is not all it takes: np.arange's dtype)
    try:
        return _signature_params(fn)
    except TypeError:           # (unhashable)
        return None


@functools.lru_cache(maxsize=None)
def _signature_params(fn):
    try:
        params = tuple(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    positional = tuple(p for p in params if p.kind in _POSITIONAL)
    return positional, any(p.kind is p.VAR_POSITIONAL for p in params)


@functools.lru_cache(maxsize=None)
def _method_params(method: str):
    """The positional parameters of ndarray.<method>, the array first.  The
    reductions are NumPy's Python functions in numpy._core._methods (x.any
    takes a dtype by position, which ndarray.any's text signature leaves
    out).  Other text signatures hide their tail in **kwargs: where the
    NumPy function of that name takes the same parameters after its array,
    and more, its list is the method's."""
    if method in _PYTHON_METHODS:
        return _signature_params(getattr(_methods, _PYTHON_METHODS[method]))[0]
    own = _signature_params(getattr(np.ndarray, method, None))
    if own is None or own[1]:
        return None             # (x.reshape(*shape): nothing to name)
    if not _hides_tail(getattr(np.ndarray, method)):
        return own[0]
    function = getattr(np, method, None)
    longer = _signature_params(function) if callable(function) and \
        not isinstance(function, np.ufunc) else None
    if longer is not None and not longer[1] and len(longer[0]) > len(own[0]) and \
            [p.name for p in longer[0][1:len(own[0])]] == [p.name for p in own[0][1:]]:
        return longer[0]
    return own[0]


def _hides_tail(method) -> bool:
    """Whether a method's text signature ends in **kwargs."""
    return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(method).parameters.values())


# --- NumPy keywords and builtins -------------------------------------------------------

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
