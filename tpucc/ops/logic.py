"""Comparisons and counts composed of other ops: isclose, allclose,
array_equal, array_equiv, isposinf, isneginf, count_nonzero, and the
NaN-ignoring reductions nansum, nanprod, nanmax, nanmin, nanmean, nanvar,
nanstd, nancumsum, nancumprod.

The NaN-ignoring reductions replace NaN by a neutral value and reduce, as
NumPy's nanfunctions do; integer and bool arrays have no NaN and reduce as
they are.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, UnsupportedError, UserCodeError
from .elementwise import astype, emit_ufunc, real
from .manipulation import as_array
from .registry import METHODS, NUMPY, broadcast_shapes, implements
from .shape import where


def _is_python_number(x) -> bool:
    """A Python number, static or held at run time: NumPy keeps it weak."""
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
    # (also a runtime Python int: as an int8 array's dtype it did not fit)
    if isinstance(y, Array) or not _is_python_number(y):
        y = astype(y, np.result_type(y.dtype, 1.0), copy=False)
    elif type(y) is int:
        y = float(y)
    # NumPy's less_equal / equal, not Python's <= / ==: two Python numbers (a
    # runtime one against a constant) compare to np.bool_, not to a bool
    within = NUMPY[np.less_equal](abs(x - y), atol + rtol * abs(y))
    result = within & emit_ufunc("isfinite", y) | NUMPY[np.equal](x, y)
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


def _nan_arg_extreme(name, sentinel):
    """nanargmax/nanargmin: NumPy's, the index of the extreme with NaN
    replaced by -inf/inf; an all-NaN slice raises ValueError (when the call
    returns, as a runtime check)."""
    def arg_without_nan(a, axis=None, out=None, *, keepdims=False):
        from ..infer import checks
        _no_extras(name, out, {})
        a = as_array(a)
        arg = METHODS[name[3:]]
        if a.dtype.kind not in "fc":
            return arg(a, axis=axis, keepdims=keepdims)
        nan = emit_ufunc("isnan", a)
        all_nan = METHODS["any"](METHODS["all"](nan, axis=axis))
        checks.require(~all_nan, "All-NaN slice encountered", raises="ValueError")
        return arg(where(nan, sentinel, a), axis=axis, keepdims=keepdims)
    return arg_without_nan


implements(np.nanargmax)(_nan_arg_extreme("nanargmax", -np.inf))
implements(np.nanargmin)(_nan_arg_extreme("nanargmin", np.inf))


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


def _divided_by_count(x, n):
    """NumPy's _divide_by_count: x / n with n an integer array, computed in
    float64 (complex128) and cast back to x's dtype (casting='unsafe')."""
    wide = np.result_type(x.dtype, np.int64)
    return astype(astype(x, wide) / astype(n, wide), x.dtype)


@implements(np.nanvar)
def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **extras):
    """NumPy's nanvar step by step: the mean of the non-NaN elements (a
    keepdims sum over the count), deviations cast back to a's dtype, their
    squares summed and divided by count - ddof; NaN where that is <= 0."""
    _no_extras("nanvar", out, extras)
    a = as_array(a)
    if a.dtype.kind not in "fc":
        return METHODS["var"](a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    nan = emit_ufunc("isnan", a)
    arr = where(nan, 0, a)
    count = METHODS["sum"](~nan, axis=axis, dtype=np.int64, keepdims=True)
    avg = _divided_by_count(METHODS["sum"](arr, axis=axis, dtype=dtype, keepdims=True), count)
    dev = where(nan, 0, astype(arr - avg, arr.dtype))
    squares = (real(dev * emit_ufunc("conjugate", dev)) if dev.dtype.kind == "c"
               else dev * dev)
    var = METHODS["sum"](squares, axis=axis, dtype=dtype, keepdims=keepdims)
    dof = NUMPY[np.reshape](count, var.shape) - ddof
    result = where(dof <= 0, np.nan, _divided_by_count(var, dof))
    return _kind_of(astype(result, var.dtype, copy=False), var)


@implements(np.nanstd)
def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **extras):
    var = nanvar(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims, **extras)
    return _kind_of(astype(emit_ufunc("sqrt", var), var.dtype, copy=False), var)


def _nan_cumulative(name):
    """nancumsum/nancumprod: NaN replaced by 0 / 1, then the cumulative op."""
    def accumulate_without_nan(a, axis=None, dtype=None, out=None):
        _no_extras(name, out, {})
        a = as_array(a)
        if a.dtype.kind in "fc":
            a = where(emit_ufunc("isnan", a), 0 if name == "nancumsum" else 1, a)
        return METHODS[name[3:]](a, axis=axis, dtype=dtype)
    return accumulate_without_nan


implements(np.nancumsum)(_nan_cumulative("nancumsum"))
implements(np.nancumprod)(_nan_cumulative("nancumprod"))


# --- array_equal / array_equiv, isposinf / isneginf ------------------------------------------

@implements(np.array_equal)
def array_equal(a1, a2, equal_nan=False):
    """A Python bool, as NumPy's; False at compile time when the shapes differ."""
    a1, a2 = as_array(a1), as_array(a2)
    if a1.shape != a2.shape:
        return False
    same = a1 == a2
    if equal_nan and (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        # NumPy: the NaNs must be at the same places, and the rest equal
        same = same | (NUMPY[np.isnan](a1) & NUMPY[np.isnan](a2))
    return python_scalar(NUMPY[np.all](same), bool)


@implements(np.array_equiv)
def array_equiv(a1, a2):
    a1, a2 = as_array(a1), as_array(a2)
    try:
        broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return python_scalar(NUMPY[np.all](a1 == a2), bool)


def _signed_infinity(name, negative: bool):
    def test(x, out=None):
        if out is not None:
            raise UnsupportedError(f"np.{name}(out=...) is not supported",
                                   hint="assign the result")
        if _operand_dtype(x).kind == "c":
            raise UserCodeError(f"TypeError: This operation is not supported for complex "
                                f"values because it would be ambiguous. (np.{name})")
        sign = NUMPY[np.signbit](x)
        return NUMPY[np.logical_and](NUMPY[np.isinf](x),
                                     sign if negative else NUMPY[np.logical_not](sign))
    return test


def _operand_dtype(x) -> np.dtype:
    return x.dtype if isinstance(x, Array) else np.asarray(x).dtype


implements(np.isposinf)(_signed_infinity("isposinf", False))
implements(np.isneginf)(_signed_infinity("isneginf", True))


# --- isreal / iscomplex ----------------------------------------------------------------------

# NumPy's own definitions: the imaginary part tested against 0, elementwise
# (a real dtype's imaginary part is zeros: all real, none complex; a NaN
# imaginary part is not 0, so complex).
@implements(np.isreal)
def isreal(x):
    return emit_ufunc("equal", NUMPY[np.imag](x), 0)


@implements(np.iscomplex)
def iscomplex(x):
    # (of an array of x: np.iscomplex(2.5) is np.False_, where isreal's
    # `imag(2.5) == 0` is Python's True)
    return emit_ufunc("not_equal", NUMPY[np.imag](NUMPY[np.asanyarray](x)), 0)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.values import Array  # noqa: E402
