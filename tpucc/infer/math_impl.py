"""The math module on runtime values: `math.cos(math.pi * step / total)`
with a runtime `step`, as a learning-rate schedule writes it.

A math function takes a Python number, or anything float() takes (a NumPy
scalar, a size-1 array), and gives a Python float (an int for floor, ceil
and trunc; a bool for isnan, isinf, isfinite and isclose).  On a runtime
value the argument is converted as float() converts it, the NumPy ufunc of
the same meaning computes on that weak float64 (so the result mixes with a
float32 array as a Python float does), and where math raises (its domain
and range errors, CPython's rules below) the call raises the same error
when the program runs (a runtime check, infer/checks.py).  Static
arguments are math's own business: Python computes them now.
"""
from __future__ import annotations

import math
import operator

import numpy as np

from ..errors import StaticValueError, UserCodeError
from ..ops import python_ints
from ..ops.registry import NUMPY
from . import builtins_impl, checks, pynumbers
from .builder import emit
from .builtins_impl import BUILTINS, to_python_number, to_python_scalar
from .values import Array

# CPython's math_1: a NaN from a non-NaN argument is a domain error
# (ValueError); an infinity from a finite one is a range error
# (OverflowError) for the functions that can overflow, else a domain error
# (log(0.0) is -inf).
_UNARY = {math.sqrt: np.sqrt, math.exp: np.exp, math.expm1: np.expm1, math.log2: np.log2,
          math.log10: np.log10, math.log1p: np.log1p, math.sin: np.sin, math.cos: np.cos,
          math.tan: np.tan, math.asin: np.arcsin, math.acos: np.arccos, math.atan: np.arctan,
          math.sinh: np.sinh, math.cosh: np.cosh, math.tanh: np.tanh, math.asinh: np.arcsinh,
          math.acosh: np.arccosh, math.atanh: np.arctanh, math.fabs: np.fabs}
if hasattr(math, "cbrt"):                   # Python 3.11
    _UNARY.update({math.cbrt: np.cbrt, math.exp2: np.exp2})
_CAN_OVERFLOW = {math.exp, math.expm1, math.sinh, math.cosh, getattr(math, "exp2", math.exp)}
_DOMAIN, _RANGE = "math domain error", "math range error"


def _math(fn):
    def register(impl):
        def call(interp, *args, **kwargs):
            args = _user_numbers(interp, fn, args)
            if isinstance(args, _Rounded):
                return args.value
            if any(isinstance(a, Array) for a in (*args, *kwargs.values())):
                return impl(*args, **kwargs)
            return fn(*args, **kwargs)
        BUILTINS[fn] = call
        return impl
    return register


class _Rounded:
    """What a user class's __floor__, __ceil__ or __trunc__ gave."""
    def __init__(self, value):
        self.value = value


_ROUNDING = {math.floor: "__floor__", math.ceil: "__ceil__", math.trunc: "__trunc__"}


def _user_numbers(interp, fn, args):
    """The arguments with each instance of a user class as the number its
    interpreted __float__ (or __index__) gives, as math converts them; for
    floor, ceil and trunc of one, what its own method gives (_Rounded)."""
    from . import dunders
    if not any(dunders.involves_user(a, depth=0) for a in args):
        return args
    if fn in _ROUNDING and len(args) == 1:
        method = interp.user_dunder(args[0], _ROUNDING[fn])
        if method is not None:
            return _Rounded(interp.inline(method, [args[0]], {}))
        if fn is math.trunc:        # (floor and ceil fall back to __float__, trunc does not)
            _refuse_trunc(type(args[0]))
    converted = [dunders.conversion(interp, float, a) for a in args]
    return tuple(a if c is dunders.NATIVE else c for a, c in zip(args, converted))


def _ufunc(fn, *args):
    return NUMPY[fn](*args)


def _python(result, dtype=np.float64):
    """A ufunc's result as the Python float (or bool) math returns, which
    NumPy's dtype rules then treat as weak."""
    return to_python_scalar(result, dtype) if isinstance(result, Array) else result


def as_float(x, fn) -> Array:
    """float(x) for a runtime x, as math converts its argument."""
    if x.dtype.kind == "c":
        raise StaticValueError(f"math.{fn.__name__}() must be given a real number, not complex",
                               hint="use cmath's function, or np.abs / x.real first")
    return to_python_number(x, np.float64)


def _runtime_float(x, fn):
    return as_float(x, fn) if isinstance(x, Array) else float(x)


def _raise_where(failed, message: str, error: str, **options) -> None:
    """The call raises error(message) when the runtime bool `failed` holds
    (`options`: checks.require's hint and tpucc_limit)."""
    checks.require(_ufunc(np.logical_not, failed), message, raises=error, **options)


def _is_nan(x):
    return _ufunc(np.isnan, x)


def _check_unary(fn, x, result) -> None:
    _raise_where(_is_nan(result) & ~_is_nan(x), _DOMAIN, "ValueError")
    overflowed = _ufunc(np.isinf, result) & _ufunc(np.isfinite, x)
    if fn in _CAN_OVERFLOW:
        _raise_where(overflowed, _RANGE, "OverflowError")
    else:
        _raise_where(overflowed, _DOMAIN, "ValueError")


def _unary(fn, np_fn):
    @_math(fn)
    def impl(x):
        x = as_float(x, fn)
        result = _ufunc(np_fn, x)
        if fn is not math.fabs:
            _check_unary(fn, x, result)
        return _python(result)


for _fn, _np_fn in _UNARY.items():
    _unary(_fn, _np_fn)


@_math(math.erf)
def erf(x):
    return _python(emit("erf", as_float(x, math.erf)))


@_math(math.log)
def log(x, base=None):
    """log(x), or log(x) / log(base) as CPython computes it (a base of 1
    divides by zero)."""
    x = _runtime_float(x, math.log)
    result = _ufunc(np.log, x)
    if isinstance(x, Array):
        _check_unary(math.log, x, result)
    if base is None:
        return _python(result)
    base = _runtime_float(base, math.log)
    denominator = _ufunc(np.log, base)
    if isinstance(base, Array):
        _check_unary(math.log, base, denominator)
    if not isinstance(denominator, Array):
        if denominator == 0:
            raise UserCodeError("ZeroDivisionError: float division by zero")
    else:
        _raise_where(denominator == 0, "float division by zero", "ZeroDivisionError")
    return _python(result / denominator)


@_math(math.pow)
def pow_(x, y):
    """CPython's math.pow: C's pow for non-finite arguments (pow(1, nan) is
    1); for finite ones a NaN is a domain error and an infinity a range
    error, or a domain error when x is 0 (0.0 ** -1.0)."""
    x, y = _runtime_float(x, math.pow), _runtime_float(y, math.pow)
    result = _ufunc(np.power, x, y)
    finite = _ufunc(np.isfinite, x) & _ufunc(np.isfinite, y)
    _raise_where(finite & _is_nan(result), _DOMAIN, "ValueError")
    infinite = finite & _ufunc(np.isinf, result)
    _raise_where(infinite & (x == 0), _DOMAIN, "ValueError")
    _raise_where(infinite & (x != 0), _RANGE, "OverflowError")
    return _python(result)


@_math(math.fmod)
def fmod(x, y):
    x, y = _runtime_float(x, math.fmod), _runtime_float(y, math.fmod)
    result = _ufunc(np.fmod, x, y)
    _raise_where(_is_nan(result) & ~_is_nan(x) & ~_is_nan(y), _DOMAIN, "ValueError")
    return _python(result)


@_math(math.remainder)
def remainder(x, y):
    """CPython's m_remainder, IEEE 754's remainder: x - n * y for the
    integer n nearest x / y (ties to even), in [-|y| / 2, |y| / 2]; computed
    exactly from fmod (np.remainder is Python's %, floored: another
    function).  An infinite x or a zero y is a domain error."""
    x, y = _runtime_float(x, math.remainder), _runtime_float(y, math.remainder)
    ax, ay = abs(x), abs(y)
    m = _ufunc(np.fmod, ax, ay)
    c = ay - m                          # (exact)
    tie = m - 2.0 * _ufunc(np.fmod, 0.5 * (ax - m), ay)     # the even n of the two
    r = _ufunc(np.where, m < c, m, _ufunc(np.where, m > c, -c, tie))
    r = _ufunc(np.copysign, 1.0, x) * r
    r = _ufunc(np.where, y == 0, np.nan, r)
    # C's special values: a NaN propagates, remainder(inf, y) is NaN, remainder(x, inf) is x
    undefined = _is_nan(x) | _is_nan(y) | _ufunc(np.isinf, x)
    finite = _ufunc(np.isfinite, x) & _ufunc(np.isfinite, y)
    result = _ufunc(np.where, finite, r, _ufunc(np.where, undefined, np.nan, x))
    _raise_where(_is_nan(result) & ~_is_nan(x) & ~_is_nan(y), _DOMAIN, "ValueError")
    return _python(result)


@_math(math.atan2)
def atan2(y, x):
    return _python(_ufunc(np.arctan2, _runtime_float(y, math.atan2),
                          _runtime_float(x, math.atan2)))


@_math(math.copysign)
def copysign(x, y):
    return _python(_ufunc(np.copysign, _runtime_float(x, math.copysign),
                          _runtime_float(y, math.copysign)))


@_math(math.hypot)
def hypot(*coordinates):
    """Two coordinates: C's hypot; more: the square root of the sum of
    squares (CPython scales to avoid overflow; this may differ in the last
    digit, or overflow where CPython does not)."""
    values = [_runtime_float(c, math.hypot) for c in coordinates]
    if len(values) == 2:
        return _python(_ufunc(np.hypot, *values))
    total = 0.0
    for v in values:
        total = total + v * v
    return _python(_ufunc(np.sqrt, total))


def dist(interp, p, q, /):
    """math.dist: hypot of the coordinate differences (each point any
    iterable of numbers: a tuple of Python floats, a 1-D array), so it
    rounds as hypot does."""
    p, q = interp.static_items(p), interp.static_items(q)
    if not any(isinstance(v, Array) for v in (*p, *q)):
        return math.dist(p, q)
    if len(p) != len(q):
        raise UserCodeError("ValueError: both points must have the same number of dimensions")
    return hypot(*(_runtime_float(a, math.dist) - _runtime_float(b, math.dist)
                   for a, b in zip(p, q)))


BUILTINS[math.dist] = dist


@_math(math.degrees)
def degrees(x):
    return as_float(x, math.degrees) * (180.0 / math.pi)      # CPython's constant


@_math(math.radians)
def radians(x):
    return as_float(x, math.radians) * (math.pi / 180.0)


def _predicate(fn, np_fn):
    @_math(fn)
    def impl(x):
        return _python(_ufunc(np_fn, as_float(x, fn)), np.bool_)


for _fn, _np_fn in ((math.isnan, np.isnan), (math.isinf, np.isinf), (math.isfinite, np.isfinite)):
    _predicate(_fn, _np_fn)


@_math(math.isclose)
def isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0):
    """CPython's rule: equal, or both finite and |a - b| within
    max(rel_tol * max(|a|, |b|), abs_tol)."""
    rel_tol, abs_tol = (_runtime_float(t, math.isclose) for t in (rel_tol, abs_tol))
    for tol in (rel_tol, abs_tol):
        if isinstance(tol, Array):      # (computed from the data: checked when it runs)
            _raise_where(tol < 0, "tolerances must be non-negative", "ValueError")
        elif tol < 0:
            raise UserCodeError("ValueError: tolerances must be non-negative")
    a, b = _runtime_float(a, math.isclose), _runtime_float(b, math.isclose)
    diff = abs(a - b)
    close = (diff <= abs(rel_tol * b)) | (diff <= abs(rel_tol * a)) | (diff <= abs_tol)
    finite = _ufunc(np.isfinite, a) & _ufunc(np.isfinite, b)
    return _python((a == b) | (finite & close), np.bool_)


# How each of math.floor, math.ceil, math.trunc and round() (half to even,
# as rint) rounds a float to the int it returns.
_ROUNDINGS = {"floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.rint}


def to_python_int(x: Array, fn_name: str) -> Array:
    """int of a runtime float rounded by `fn_name` (floor, ceil, trunc,
    round), as Python converts it: NaN raises ValueError, an infinity
    OverflowError.  Python's ints are unbounded, compiled code's are 64-bit:
    a value outside int64 raises OverflowError too."""
    if x.dtype.kind in "biu":
        return to_python_scalar(x, np.int64)
    rounded = _ufunc(_ROUNDINGS[fn_name], as_float(x, getattr(math, fn_name, round)))
    _raise_where(_is_nan(rounded), "cannot convert float NaN to integer", "ValueError")
    _raise_where(_ufunc(np.isinf, rounded), "cannot convert float infinity to integer",
                 "OverflowError")
    fits = (rounded >= -2.0 ** 63) & (rounded < 2.0 ** 63)
    # Eager Python gives the exact big int (int(1e19)): a limit of compiled
    # code's, not an error of the program's, so no `except` is refused for it.
    _raise_where(~fits | _is_nan(rounded),
                 "the integer does not fit 64 bits, compiled code's Python int", "OverflowError",
                 hint=_too_big_for_int_hint(fn_name), tpucc_limit=True)
    return to_python_scalar(rounded, np.int64)


def _too_big_for_int_hint(fn_name: str) -> str:
    rounding = _ROUNDINGS[fn_name].__name__
    return (f"compiled code holds a Python int known only at run time in 64 bits, and this "
            f"float is from 2**63 up (or below -2**63); keep it a float rounded by NumPy "
            f"(np.{rounding}(v)), or keep the numbers within int64")


for _name in ("floor", "ceil"):
    _math(getattr(math, _name))(lambda x, _name=_name: to_python_int(x, _name))


@_math(math.trunc)
def trunc(x):
    """math.trunc calls the argument's __trunc__, which Python's numbers and
    np.float64 (a float) have and other NumPy scalars and arrays do not:
    math.trunc(np.float32(1.5)) is a TypeError (np.trunc is NumPy's)."""
    sample = builtins_impl.python_sample(x)
    if not hasattr(type(sample), "__trunc__"):
        _refuse_trunc(type(sample))
    return to_python_int(x, "trunc")


def _refuse_trunc(cls):
    name = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"
    raise UserCodeError(f"TypeError: type {name} doesn't define __trunc__ method",
                        hint="math.trunc(float(x)), or np.trunc(x) for a NumPy value")


# --- integer functions ----------------------------------------------------------------------
# On runtime ints (int(x[0]), a NumPy integer scalar): Python ints, 64-bit
# here as every runtime Python int (README).

def _runtime_int(x, fn) -> Array:
    """x as the Python int math's integer functions take: its __index__, as
    operator.index reads it, so that a float, a NumPy bool (NumPy 2 dropped
    its __index__) or an array with axes is Python's TypeError."""
    hint = f"convert it first: math.{fn.__name__}(int(v), ...)"
    if isinstance(x, Array):
        return pynumbers.index_value(x, hint=hint)
    try:
        return operator.index(x)
    except TypeError as e:
        raise UserCodeError(f"TypeError: {e}", hint=hint) from None


def _python_int_exponent(i, fn):
    """ldexp's exponent: a Python int (or bool) only; math checks the type,
    not __index__, so a NumPy integer is a TypeError too."""
    if isinstance(i, Array) and i.weak and i.dtype.kind in "biu" or isinstance(i, int):
        return _runtime_int(i, fn)
    raise UserCodeError(f"TypeError: Expected an int as second argument to {fn.__name__}.",
                        hint=f"math.{fn.__name__}(x, int(i))")


_INT64_MAX = 2 ** 63 - 1


def _gcd_or_lcm(fn, np_fn, empty):
    @_math(fn)
    def impl(*ints):
        result = empty
        for x in ints:
            x = _runtime_int(x, fn)
            if np_fn is np.lcm:             # |a| // gcd * |b| must fit 64 bits
                part = _ufunc(np.floor_divide, _ufunc(np.absolute, result),
                              _ufunc(np.maximum, _ufunc(np.gcd, result, x), 1))
                fits = (part == 0) | (_ufunc(np.absolute, x) <=
                                      _ufunc(np.floor_divide, _INT64_MAX,
                                             _ufunc(np.maximum, part, 1)))
                _raise_where(~fits, "the integer does not fit 64 bits, compiled code's "
                             "Python int", "OverflowError", hint=python_ints.HINT,
                             tpucc_limit=True)
            result = _ufunc(np_fn, result, x)
        return _python(result, np.int64)


_gcd_or_lcm(math.gcd, np.gcd, 0)
_gcd_or_lcm(math.lcm, np.lcm, 1)


@_math(math.isqrt)
def isqrt(n):
    """The floor of the square root, exact: float64's sqrt, corrected by
    one where rounding put it past (ints beyond 2**53 are not exact
    floats)."""
    n = _runtime_int(n, math.isqrt)
    _raise_where(n < 0, "isqrt() argument must be nonnegative", "ValueError")
    root = to_python_scalar(_ufunc(np.floor, _ufunc(np.sqrt, as_float(n, math.isqrt))),
                            np.int64)
    root = _ufunc(np.minimum, root, math.isqrt(_INT64_MAX))    # (root * root fits)
    root = root - (root * root > n)
    return _python(root + (root + 1 <= n // (root + 1)), np.int64)


# --- factorial, comb, perm: exact in int64 ---------------------------------------------------
# Their results pass int64 soon (21!, comb(68, 34), perm(n, 21) for any n >
# 20): factorial is a table, comb and perm a loop of at most 34 exact steps,
# and a larger result raises OverflowError as every runtime Python int does.

_FACTORIALS = [math.factorial(n) for n in range(21)]       # 20! < 2**63 < 21!


def _int_overflow_where(failed) -> None:
    _raise_where(failed, "the integer does not fit 64 bits, compiled code's Python int",
                 "OverflowError", hint=python_ints.HINT, tpucc_limit=True)


def _nonnegative(x, fn, message: str):
    x = _runtime_int(x, fn)
    if isinstance(x, Array):
        _raise_where(x < 0, message, "ValueError")
    elif x < 0:
        raise UserCodeError(f"ValueError: {message}")
    return x


@_math(math.factorial)
def factorial(n):
    n = _nonnegative(n, math.factorial, "factorial() not defined for negative values")
    _int_overflow_where(n >= len(_FACTORIALS))
    index = _ufunc(np.minimum, n, len(_FACTORIALS) - 1)
    return _python(NUMPY[np.take](np.array(_FACTORIALS, np.int64), index), np.int64)


@_math(math.comb)
def comb(n, k):
    n = _nonnegative(n, math.comb, "n must be a non-negative integer")
    k = _nonnegative(k, math.comb, "k must be a non-negative integer")
    return _counted_product("python_int_comb", n, k)


@_math(math.perm)
def perm(n, k=None):
    if k is None:
        return factorial(n)
    n = _nonnegative(n, math.perm, "n must be a non-negative integer")
    k = _nonnegative(k, math.perm, "k must be a non-negative integer")
    return _counted_product("python_int_perm", n, k)


def _counted_product(op: str, n, k):
    """comb or perm of non-negative Python ints, one at least known only at
    run time: the op's loop (ops/python_ints.py) gives the result and
    whether it fits int64."""
    result, fits = emit(op, n, k)
    _int_overflow_where(~fits)
    return _python(result, np.int64)


# --- a float's parts -----------------------------------------------------------------------------

@_math(math.frexp)
def frexp(x):
    """(m, e) with x == m * 2**e, 0.5 <= |m| < 1: NumPy's frexp, the same
    C function's (inf and NaN give (x, 0), as math's)."""
    mantissa, exponent = NUMPY[np.frexp](as_float(x, math.frexp))
    return _python(mantissa), _python(exponent, np.int64)


@_math(math.modf)
def modf(x):
    """(fractional part, integral part), both with x's sign: NumPy's modf,
    C's, as math's (modf(inf) is (0.0, inf))."""
    fraction, whole = NUMPY[np.modf](as_float(x, math.modf))
    return _python(fraction), _python(whole)


@_math(math.ldexp)
def ldexp(x, i):
    """x * 2**i, exact (NumPy's ldexp); a finite x that overflows is
    math's range error."""
    x, i = _runtime_float(x, math.ldexp), _python_int_exponent(i, math.ldexp)
    result = _ufunc(np.ldexp, x, _ufunc(np.clip, i, -(2 ** 31), 2 ** 31 - 1))
    _raise_where(_ufunc(np.isinf, result) & _ufunc(np.isfinite, x), _RANGE, "OverflowError")
    return _python(result)


@_math(math.nextafter)
def nextafter(x, y, steps=None):
    if steps is not None:
        from ..errors import UnsupportedError
        raise UnsupportedError("math.nextafter(..., steps=) is not supported on runtime values",
                               hint="call it once per step, or use np.nextafter in a loop")
    return _python(_ufunc(np.nextafter, _runtime_float(x, math.nextafter),
                          _runtime_float(y, math.nextafter)))


@_math(math.ulp)
def ulp(x):
    """The gap from |x| to the next float away from 0 (np.spacing); at the
    largest float, the gap below it (math's), as there is none above."""
    x = _ufunc(np.absolute, as_float(x, math.ulp))
    largest = float(np.finfo(np.float64).max)
    gap = _ufunc(np.where, x == largest, x - _ufunc(np.nextafter, x, 0.0), _ufunc(np.spacing, x))
    return _python(_ufunc(np.where, _ufunc(np.isinf, x), x, gap))


def prod(interp, iterable, /, *, start=1):
    """math.prod: start times each item, left to right, as sum() adds them
    (a list of runtime Python floats compounds to a Python float; NumPy
    scalars multiply as NumPy's)."""
    from . import dunders, generator_folds, interpreted
    from .calls import RuntimeRange
    if isinstance(iterable, generator_folds.FoldedTotal):  # (a generator made for it)
        return iterable.total
    if isinstance(iterable, RuntimeRange):      # (no closed form: one runtime loop)
        return interp.call(interpreted.reduced, [operator.mul, iterable, start], {})
    items = interp.static_items(iterable)
    if not any(isinstance(v, Array) for v in (start, *items)):
        return math.prod(items, start=start)
    total = start
    for v in items:
        total = dunders.apply(interp, operator.mul, total, v)   # (a user __rmul__ too)
    return total


BUILTINS[math.prod] = prod
