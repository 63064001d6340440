"""Comparisons and counts composed of other ops: isclose, allclose,
count_nonzero, and the NaN-ignoring reductions nansum, nanprod, nanmax,
nanmin, nanmean.

The NaN-ignoring reductions replace NaN by a neutral value and reduce, as
NumPy's nanfunctions do; integer and bool arrays have no NaN and reduce as
they are.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, UnsupportedError
from .elementwise import astype, emit_ufunc
from .manipulation import as_array
from .registry import METHODS, implements
from .shape import where


def _is_python_number(x) -> bool:
    """A Python number, static or held at run time: NumPy keeps it weak."""
    from ..infer.values import Array
    return isinstance(x, (bool, int, float, complex)) or (isinstance(x, Array) and x.weak)


def python_scalar(x, pytype):
    """bool(x), int(x), float(x) or complex(x) of a size-1 runtime array: a
    runtime Python scalar (weak), as the builtins make it."""
    from ..infer.builtins_impl import to_python_scalar
    return to_python_scalar(x, _PYTHON_DTYPE[pytype])


_PYTHON_DTYPE = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}


# --- isclose / allclose -----------------------------------------------------------------------

@implements(np.isclose)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y, atol, rtol = (v if _is_python_number(v) else as_array(v) for v in (a, b, atol, rtol))
    # NumPy compares in at least a float dtype of y's: y = asarray(y, result_type(y, 1.0))
    if not _is_python_number(y):
        y = astype(y, np.result_type(y.dtype, 1.0), copy=False)
    elif type(y) is int:
        y = float(y)
    result = (abs(x - y) <= atol + rtol * abs(y)) & emit_ufunc("isfinite", y) | (x == y)
    if equal_nan:
        result = result | (emit_ufunc("isnan", x) & emit_ufunc("isnan", y))
    return result


@implements(np.allclose)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """A Python bool in NumPy 2, so a runtime Python bool here."""
    close = isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return python_scalar(METHODS["all"](close), bool)


# --- count_nonzero ------------------------------------------------------------------------

@implements(np.count_nonzero)
def count_nonzero(a, axis=None, *, keepdims=False):
    nonzero = astype(as_array(a), np.bool_)
    return METHODS["sum"](nonzero, axis=axis, dtype=np.int64, keepdims=keepdims)


# --- NaN-ignoring reductions -------------------------------------------------------------------

def _no_extras(name, out, extras):
    if extras.get("where", True) is True:
        extras.pop("where", None)       # the default: every element
    if out is not None or extras:
        raise UnsupportedError(f"np.{name}: the out=/initial=/where= arguments are not "
                               "supported", hint="assign the result; mask with np.where first")


def _kind_of(result, reference):
    """A 0-d result built with a select is a 0-d array; NumPy's is a scalar
    exactly where the reduction's is."""
    if result.ndim == 0:
        result.immutable = reference.immutable
    return result


def _nan_replaced(name, fill):
    def reduce_without_nan(a, axis=None, dtype=None, out=None, keepdims=False, **extras):
        _no_extras(name, out, extras)
        a = as_array(a)
        if a.dtype.kind in "fc":
            a = where(emit_ufunc("isnan", a), fill, a)
        return METHODS[name[3:]](a, axis=axis, dtype=dtype, keepdims=keepdims)
    return reduce_without_nan


implements(np.nansum)(_nan_replaced("nansum", 0))
implements(np.nanprod)(_nan_replaced("nanprod", 1))


def _nan_extreme(name, sentinel):
    """nanmax/nanmin: NumPy's fmax/fmin reduction; an all-NaN slice gives NaN."""
    def reduce_without_nan(a, axis=None, out=None, keepdims=False, **extras):
        _no_extras(name, out, extras)
        a = as_array(a)
        reduce = METHODS[name[3:]]
        if a.dtype.kind not in "fc":
            return reduce(a, axis=axis, keepdims=keepdims)
        nan = emit_ufunc("isnan", a)
        best = reduce(where(nan, sentinel, a), axis=axis, keepdims=keepdims)
        all_nan = METHODS["all"](nan, axis=axis, keepdims=keepdims)
        return _kind_of(where(all_nan, np.nan, best), best)
    return reduce_without_nan


implements(np.nanmax)(_nan_extreme("nanmax", -np.inf))
implements(np.nanmin)(_nan_extreme("nanmin", np.inf))


@implements(np.nanmean)
def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, **extras):
    _no_extras("nanmean", out, extras)
    a = as_array(a)
    if a.dtype.kind not in "fc":
        return METHODS["mean"](a, axis=axis, dtype=dtype, keepdims=keepdims)
    if dtype is not None and np.dtype(dtype).kind not in "fc":
        raise DTypeError("If a is inexact, then dtype must be inexact")
    nan = emit_ufunc("isnan", a)
    count = METHODS["sum"](~nan, axis=axis, dtype=np.int64, keepdims=keepdims)
    total = METHODS["sum"](where(nan, 0, a), axis=axis, dtype=dtype, keepdims=keepdims)
    # NumPy divides into the total itself (casting='unsafe'): the float64
    # quotient rounded to the total's dtype
    return _kind_of(astype(total / count, total.dtype), total)
