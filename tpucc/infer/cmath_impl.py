"""The cmath module on runtime values: `cmath.sqrt(b * b - 4 * a * c)` in
the quadratic formula, as a polynomial root finder writes it.

A cmath function converts its argument as complex() does (a Python number,
a NumPy scalar, a size-1 array, a user class's __complex__ or __float__),
the NumPy ufunc of the same meaning computes on that weak complex128, and
the result is a Python complex (phase: a float; polar: a tuple of floats;
isnan, isinf, isfinite, isclose: a bool), so it mixes with NumPy values as
a Python complex does.  Where cmath raises, the call raises the same error
when the program runs (a runtime check, infer/checks.py): CPython's rule,
checked against its special-value tables, is math's (math_impl.py): an
infinity from a finite argument is a range error (OverflowError) for the
functions that overflow and a domain error (ValueError) for the others
(log(0), atanh(1)), and a NaN from an argument without one a domain error.
Static arguments are cmath's own business: Python computes them now.
"""
from __future__ import annotations

import cmath
import math

import numpy as np

from ..errors import UserCodeError
from ..ops.registry import NUMPY
from . import checks
from .builtins_impl import BUILTINS, to_python_scalar
from .values import Array

_UNARY = {cmath.sqrt: np.sqrt, cmath.exp: np.exp, cmath.log10: np.log10, cmath.sin: np.sin,
          cmath.cos: np.cos, cmath.tan: np.tan, cmath.asin: np.arcsin, cmath.acos: np.arccos,
          cmath.atan: np.arctan, cmath.sinh: np.sinh, cmath.cosh: np.cosh, cmath.tanh: np.tanh,
          cmath.asinh: np.arcsinh, cmath.acosh: np.arccosh, cmath.atanh: np.arctanh}
# (sin and cos of a complex overflow as cosh and sinh of its imaginary part do)
_CAN_OVERFLOW = {cmath.exp, cmath.sinh, cmath.cosh, cmath.sin, cmath.cos}
_DOMAIN, _RANGE = "math domain error", "math range error"


def _ufunc(fn, *args):
    return NUMPY[fn](*args)


def _cmath(fn):
    """Register impl as fn on runtime arguments (each converted as complex()
    converts it: impl gets weak complex128 values or static numbers)."""
    def register(impl):
        def call(interp, *args, **kwargs):
            args = tuple(_as_complex(interp, a) for a in args)
            if any(isinstance(a, Array) for a in (*args, *kwargs.values())):
                return impl(*args, **kwargs)
            return fn(*args, **kwargs)
        BUILTINS[fn] = call
        return impl
    return register


def _as_complex(interp, x):
    """complex(x) for a runtime value or an instance of a user class (its
    interpreted __complex__, __float__ or __index__); other static values
    as they are, for cmath's own conversion (and its TypeError)."""
    from . import dunders
    if isinstance(x, Array) or dunders.involves_user(x, depth=0):
        return BUILTINS[complex](interp, x)
    return x


def _python(result, dtype=np.complex128):
    """A ufunc's result as the Python complex (float, bool) cmath returns."""
    return to_python_scalar(result, dtype) if isinstance(result, Array) else result


def _raise_where(failed, message: str, error: str) -> None:
    """The call raises error(message) when the runtime bool `failed` holds."""
    checks.require(_ufunc(np.logical_not, failed), message, raises=error)


def _any_part(test, z):
    return _ufunc(test, _ufunc(np.real, z)) | _ufunc(test, _ufunc(np.imag, z))


def _check(fn, z, result) -> None:
    """CPython's errors of fn(z) = result (see the module docstring)."""
    infinite = _any_part(np.isinf, result) & _ufunc(np.isfinite, z)
    if fn in _CAN_OVERFLOW:
        _raise_where(infinite, _RANGE, "OverflowError")
    else:
        _raise_where(infinite, _DOMAIN, "ValueError")
    nan = _any_part(np.isnan, result) & ~_any_part(np.isnan, z)
    _raise_where(nan & ~infinite, _DOMAIN, "ValueError")   # (exp(710) overflows, not NaN's)


def _unary(fn, np_fn):
    @_cmath(fn)
    def impl(z):
        result = _ufunc(np_fn, z)
        if fn is not cmath.sqrt:        # (defined everywhere: no error to raise)
            _check(fn, z, result)
        return _python(result)


for _fn, _np_fn in _UNARY.items():
    _unary(_fn, _np_fn)


@_cmath(cmath.log)
def log(z, base=None):
    """log(z), or log(z) / log(base) as CPython computes it: only the base's
    logarithm's error counts (log(0, 2) is -inf+nanj), and a base of 1
    divides by zero, a domain error."""
    if base is None:
        result = _ufunc(np.log, z)
        _check(cmath.log, z, result)
        return _python(result)
    numerator = _ufunc(np.log, z)
    if not isinstance(base, Array):
        if cmath.log(base) == 0:        # (cmath.log raises its own errors now)
            raise UserCodeError(f"ValueError: {_DOMAIN}")
        return _python(numerator / cmath.log(base))
    denominator = _ufunc(np.log, base)
    _check(cmath.log, base, denominator)
    _raise_where(denominator == 0, _DOMAIN, "ValueError")
    return _python(numerator / denominator)


@_cmath(cmath.phase)
def phase(z):
    return _python(_ufunc(np.angle, z), np.float64)


@_cmath(cmath.polar)
def polar(z):
    """(abs(z), phase(z)); abs overflows where hypot does, a range error."""
    modulus = _ufunc(np.absolute, z)
    _raise_where(_ufunc(np.isinf, modulus) & _ufunc(np.isfinite, z), _RANGE, "OverflowError")
    return _python(modulus, np.float64), phase(z)


for _fn in (cmath.isnan, cmath.isinf, cmath.isfinite):
    _cmath(_fn)(lambda z, _np_fn=getattr(np, _fn.__name__): _python(_ufunc(_np_fn, z), np.bool_))


def isclose(interp, a, b, *, rel_tol=1e-09, abs_tol=0.0):
    """CPython's rule: equal, or neither infinite and |a - b| within
    max(rel_tol * max(|a|, |b|), abs_tol)."""
    a, b = _as_complex(interp, a), _as_complex(interp, b)
    rel_tol, abs_tol = (_as_float(interp, t) for t in (rel_tol, abs_tol))
    if not any(isinstance(v, Array) for v in (a, b, rel_tol, abs_tol)):
        return cmath.isclose(a, b, rel_tol=rel_tol, abs_tol=abs_tol)
    for tol in (rel_tol, abs_tol):
        if isinstance(tol, Array):      # (computed from the data: checked when it runs)
            _raise_where(tol < 0, "tolerances must be non-negative", "ValueError")
        elif tol < 0:
            raise UserCodeError("ValueError: tolerances must be non-negative")
    diff = _ufunc(np.absolute, a - b)
    close = (diff <= rel_tol * _ufunc(np.absolute, b)) | \
        (diff <= rel_tol * _ufunc(np.absolute, a)) | (diff <= abs_tol)
    finite = ~_any_part(np.isinf, a) & ~_any_part(np.isinf, b)
    return _python((a == b) | (finite & close), np.bool_)


def _as_float(interp, x):
    """float(x) for cmath's real arguments (rect's, isclose's tolerances),
    as Python converts them (np.complex128's __float__ drops the imaginary
    part, with NumPy's warning; a complex 0-d array is a TypeError)."""
    from . import dunders
    if isinstance(x, Array) or dunders.involves_user(x, depth=0):
        return BUILTINS[float](interp, x)
    return x


def rect(interp, r, phi):
    """r * (cos(phi) + i sin(phi)), with CPython's special values where r
    or phi is not finite (its table, written out), and its domain error
    for a nonzero r with an infinite phi."""
    r, phi = _as_float(interp, r), _as_float(interp, phi)
    if not (isinstance(r, Array) or isinstance(phi, Array)):
        return cmath.rect(r, phi)
    isinf, isnan, where = (NUMPY[f] for f in (np.isinf, np.isnan, np.where))
    _raise_where((r != 0) & ~isnan(r) & isinf(phi), _DOMAIN, "ValueError")
    zero_r = (r == 0) & ~_ufunc(np.isfinite, phi)           # rect(0, inf) is 0j
    real = where(zero_r, 0.0, where(isinf(r) & isnan(phi), math.inf, r * _ufunc(np.cos, phi)))
    # phi == 0: the imaginary part is r * phi (a signed zero; 0 for r inf or NaN)
    zero_imag = where(isnan(r), 0.0, phi * _ufunc(np.copysign, 1.0, r))
    imag = where(zero_r, 0.0, where(phi == 0, zero_imag, r * _ufunc(np.sin, phi)))
    return _complex(real, imag)


def _complex(real, imag) -> Array:
    """The Python complex of two runtime float parts, put together part by
    part (real + imag * 1j would turn an infinite part into NaN)."""
    from .builder import emit
    parts = [to_python_scalar(p, np.float64) if isinstance(p, Array) else float(p)
             for p in (real, imag)]
    return to_python_scalar(emit("complex", *parts), np.complex128)


BUILTINS[cmath.rect] = rect
BUILTINS[cmath.isclose] = isclose
