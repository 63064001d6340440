"""Attributes and methods of a runtime Python number.

A weak 0-d Array (`float(x[0])`, `int(n)`, `x.item()`, a promoted number
attribute) is a Python bool, int, float or complex to the program, never an
ndarray: `f.imag` is the float 0.0, `f.conjugate()` a float, `n.bit_length()`
an int, as Python's own methods give them.  A method of that Python type that
compiled code does not compute is refused by name (E100); a name the type
lacks is Python's AttributeError.
"""
from __future__ import annotations

import builtins as py
import math
import operator

import numpy as np

from ..errors import UnsupportedError, UserCodeError
from ..ops.registry import NUMPY
from .values import Array


class BoundNumberMethod:
    """`f.conjugate` of a runtime Python number, before it is called."""
    __slots__ = ("number", "name")

    def __init__(self, number: Array, name: str):
        self.number, self.name = number, name


def is_python_number(x) -> bool:
    return isinstance(x, Array) and x.weak and x.ndim == 0


def python_type(x: Array) -> type:
    from . import _py_type
    return _py_type(x.aval)


def attribute(interp, x: Array, name: str):
    """x.name of a runtime Python number x."""
    pytype = python_type(x)
    if not hasattr(pytype(), name):     # (an instance's: the class has type's __call__ too)
        raise UserCodeError(f"AttributeError: '{pytype.__name__}' object has no attribute "
                            f"'{name}'")
    if name in ("real", "imag"):
        return part(x, name)
    if name in ("numerator", "denominator"):        # (an int's: itself over 1)
        return _as_int(x) if name == "numerator" else 1
    if name in _METHODS or name in _SAME_AS or callable(getattr(pytype, name)):
        return BoundNumberMethod(x, name)       # (hasattr(x, "hex") is True; a call says)
    raise _unsupported(name, pytype)


def numpy_scalar_attribute(x: Array, name: str):
    """x.name of a NumPy scalar that ndarray lacks: the methods of Python's
    numbers NumPy's scalar types have too (np.float64 is a float; NumPy 2
    gives np.floating and np.integer is_integer, as_integer_ratio...)."""
    kind = x.dtype.type
    if not hasattr(np.zeros((), x.dtype)[()], name):    # (an instance's, as attribute's)
        raise UserCodeError(f"AttributeError: 'numpy.{kind.__name__}' object has no attribute "
                            f"'{name}'")
    if not callable(getattr(kind, name)):
        raise _unsupported(name, kind)
    return BoundNumberMethod(x, name)


def _unsupported(name: str, kind: type) -> UnsupportedError:
    where = f"a NumPy {kind.__name__}" if issubclass(kind, np.generic) else \
        f"a Python {kind.__name__}"
    return UnsupportedError(f"`.{name}` of {where} known only at run time is not supported "
                            "in compiled code", hint="compute it outside the compiled function, "
                                                     "or use NumPy functions on the value")


def call(interp, method: BoundNumberMethod, args, kwargs):
    x, name = method.number, method.name
    if name in _SAME_AS:        # f.__round__(1) is round(f, 1)
        return interp.call(_SAME_AS[name], [x, *args], kwargs)
    if name not in _METHODS:
        raise _unsupported(f"{name}()", x.dtype.type if not x.weak else python_type(x))
    if args or kwargs:
        raise UserCodeError(f"TypeError: {python_type(x).__name__}.{name}() takes no arguments "
                            f"({len(args) + len(kwargs)} given)")
    return _METHODS[name](x)


def _as_int(x: Array) -> Array:
    """An int's value (True.real is the int 1)."""
    from .builtins_impl import to_python_scalar
    # (a NumPy scalar's too: np.int16(5).as_integer_ratio() is (5, 1) of ints)
    if x.dtype == np.bool_ or not x.weak:
        return to_python_scalar(x, np.int64)
    if x.held_int is not None:      # (a Python bool on some paths, held_ints.py: an int on all)
        return Array(x.var)
    return x


def index_method(x: Array):
    """x.__index__ of a runtime value: ndarray's method, or a NumPy scalar
    type's (np.float32 has none: AttributeError)."""
    if x.immutable is True and not x.shape:
        return numpy_scalar_attribute(x, "__index__")
    return BoundNumberMethod(x, "__index__")


def index_value(x: Array, hint: str = "convert it first: operator.index(int(v))") -> Array:
    """operator.index(x): an integer's value as a Python int, as a
    subscript or range() reads it; NumPy's and Python's TypeError for a
    float, a NumPy bool (NumPy 2 dropped its __index__) or an array with
    axes."""
    if x.shape or (x.dtype.kind not in "iu" and not (x.weak and x.dtype.kind == "b")):
        raise UserCodeError(f"TypeError: {_not_an_index(x)}", hint=hint)
    return _as_int(x)


def _not_an_index(x: Array) -> str:
    if x.shape or x.immutable is not True and not x.weak:
        return "only integer scalar arrays can be converted to a scalar index"
    name = python_type(x).__name__ if x.weak else f"numpy.{x.dtype.type.__name__}"
    return f"'{name}' object cannot be interpreted as an integer"


def part(x: Array, name: str):
    """x.real or x.imag of a runtime Python number x: Python's (True.imag
    is the int 0, 2.5.imag the float 0.0)."""
    pytype = python_type(x)
    if pytype is complex:
        return NUMPY[getattr(np, name)](x)      # (a weak float64: a Python float)
    if name == "imag":
        return pytype(0) if pytype is float else 0
    return _as_int(x) if pytype is not float else x


def _conjugate(x: Array):
    from .builtins_impl import to_python_scalar
    if x.dtype.kind != "c":
        return _as_int(x) if x.dtype.kind != "f" else x
    return to_python_scalar(NUMPY[np.conjugate](x), np.complex128)


def _is_integer(x: Array):
    """float.is_integer: finite and whole (int.is_integer, Python 3.12: True)."""
    from .builtins_impl import to_python_scalar
    if x.dtype.kind != "f":
        return True
    whole = NUMPY[np.logical_and](NUMPY[np.isfinite](x), NUMPY[np.equal](NUMPY[np.trunc](x), x))
    return to_python_scalar(whole, np.bool_)


def _bit_length(x: Array):
    """int.bit_length: how many of the powers 2**0 .. 2**63 are at most |x|
    (|x| taken as uint64, so that -2**63 has 64 bits, as in Python)."""
    return _count_bits(x, NUMPY[np.greater_equal])


def _bit_count(x: Array):
    """int.bit_count: how many of those powers are bits of |x|."""
    return _count_bits(x, lambda magnitude, power: NUMPY[np.not_equal](
        NUMPY[np.bitwise_and](magnitude, power), 0))


def _count_bits(x: Array, test):
    from ..ops.elementwise import astype
    from .builtins_impl import to_python_scalar
    # (a NumPy unsigned scalar is its own magnitude: made a Python int first,
    # a uint64 from 2**63 up would not fit compiled code's int64)
    magnitude = astype(x if x.dtype.kind == "u" and not x.weak else
                       NUMPY[np.absolute](_as_int(x)), np.uint64)
    powers = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
    count = NUMPY[np.sum](astype(test(magnitude, powers), np.int64))
    return to_python_scalar(count, np.int64)


def _integer_ratio(x: Array):
    if x.dtype.kind == "f":
        raise UnsupportedError("float.as_integer_ratio() of a float known only at run time is "
                               "not supported in compiled code (its numbers can exceed 64 bits)",
                               hint="compute it outside the compiled function")
    return _as_int(x), 1


# Methods computed here: each of the number alone.
_METHODS = {"conjugate": _conjugate, "is_integer": _is_integer, "bit_length": _bit_length,
            "bit_count": _bit_count, "as_integer_ratio": _integer_ratio,
            "__index__": index_value}

# Dunders that are a builtin or an operator of the number (with the same
# arguments): compiled as that call is.
_SAME_AS = {"__round__": py.round, "__abs__": py.abs, "__trunc__": math.trunc,
            "__floor__": math.floor, "__ceil__": math.ceil, "__int__": py.int,
            "__float__": py.float, "__complex__": py.complex, "__bool__": py.bool,
            "__neg__": operator.neg, "__pos__": operator.pos, "__invert__": operator.invert}


def refuse_setattr(x: Array, name: str):
    """`f.real = 1` of a Python number: Python's AttributeError."""
    pytype = python_type(x).__name__
    if name in ("real", "imag", "numerator", "denominator"):
        raise UserCodeError(f"AttributeError: attribute '{name}' of '{pytype}' objects is not "
                            "writable")
    raise UserCodeError(f"AttributeError: '{pytype}' object has no attribute '{name}'")
