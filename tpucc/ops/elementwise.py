"""Elementwise ops: every NumPy ufunc we compile, one row each.

Dtype rule: NumPy's own ufunc loop resolution (`ufunc.resolve_dtypes`, NEP 50
aware), so results have exactly NumPy 2's dtypes.  Shape rule: broadcasting.
Lowering: cast operands to the loop's input dtypes, apply the jax.numpy
function of the same name (which implements NumPy's semantics, e.g. Python's
floor division and modulo), cast to the loop's output dtype.
"""
from __future__ import annotations

import operator

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..ir import AVal
from .registry import METHODS, NUMPY, all_weak, broadcast, loop_keys, register, ufunc_loop

BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder",
          "power", "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot",
          "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
          "bitwise_xor", "left_shift", "right_shift", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "copysign", "logaddexp", "float_power",
          "fmod", "heaviside"]
UNARY = ["negative", "positive", "absolute", "sign", "sqrt", "cbrt", "exp", "exp2", "expm1",
         "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
         "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc",
         "rint", "square", "reciprocal", "logical_not", "invert", "isnan", "isinf",
         "isfinite", "signbit", "conjugate", "deg2rad", "rad2deg", "fabs"]

# NumPy aliases that are the same ufunc object under another name.
ALIASES = {"divide": "true_divide", "mod": "remainder", "abs": "absolute", "conj": "conjugate",
           "bitwise_not": "invert", "pow": "power", "degrees": "rad2deg", "radians": "deg2rad",
           "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
           "bitwise_right_shift": "right_shift", "asin": "arcsin", "acos": "arccos",
           "atan": "arctan", "atan2": "arctan2", "asinh": "arcsinh", "acosh": "arccosh",
           "atanh": "arctanh"}

_JNP_NAME = {"true_divide": "true_divide", "conjugate": "conjugate"}


def _abstract(ufunc):
    def abstract(avals):
        loop = ufunc_loop(ufunc, loop_keys(avals))
        return AVal(loop[-1], broadcast(*avals), all_weak(avals))
    return abstract


def _lower(ufunc):
    fn = getattr(jnp, _JNP_NAME.get(ufunc.__name__, ufunc.__name__))

    def lower(lc, *args):
        loop = ufunc_loop(ufunc, loop_keys(lc.in_avals))
        args = [lax.convert_element_type(x, dt) for x, dt in zip(args, loop)]
        out = fn(*args)
        return lax.convert_element_type(out, lc.out_avals[0].dtype)
    return lower


def _ufunc_impl(name):
    from ..infer.builder import emit

    def impl(*args, out=None, dtype=None, where=True, **kw):
        _no_extra(name, out, where, kw)
        result = emit(name, *args)
        if result.weak:     # np.add(1, 2) is np.int64(3): NumPy functions give strong values
            result = astype(result, result.dtype)
        return result if dtype is None else astype(result, dtype)
    return impl


def _no_extra(name, out, where, kw):
    from ..errors import UnsupportedError
    if out is not None or where is not True or kw:
        raise UnsupportedError(f"np.{name}: the out=/where=/casting= arguments are not supported",
                               hint="assign the result instead of using out=")


for _name in BINARY + UNARY:
    _uf = getattr(np, _name)
    register(_name, _abstract(_uf), _lower(_uf), numpy=_uf)
    NUMPY[_uf] = _ufunc_impl(_name)


# --- astype -------------------------------------------------------------------

def _astype_abstract(avals, dtype):
    return AVal(np.dtype(dtype), avals[0].shape, False)


def _astype_lower(lc, x, dtype):
    src, dst = lc.in_avals[0].dtype, np.dtype(dtype)
    if dst == np.bool_ and src != np.bool_:
        return x != 0
    if dst.kind in "iu" and src.kind == "f":
        x = jnp.trunc(x)
    return lax.convert_element_type(x, dst)


register("convert", _astype_abstract, _astype_lower,
         numpy=lambda x, dtype: x.astype(dtype))


def astype(x, dtype, copy=True, casting="unsafe"):
    from ..infer.builder import emit
    from ..infer.values import Array
    dtype = np.dtype(dtype)
    if isinstance(x, Array) and x.dtype == dtype and not x.weak and not copy:
        return x
    return emit("convert", x, dtype=dtype)


METHODS["astype"] = astype


# --- Python operators on Arrays ------------------------------------------------

OPERATORS = {  # dunder stem -> ufunc name
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift",
    "matmul": None,
}
COMPARISONS = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
               "eq": "equal", "ne": "not_equal"}
UNARY_OPERATORS = {"neg": "negative", "pos": "positive", "abs": "absolute", "invert": "invert"}


def _install_operators():
    from ..infer.builder import emit
    from ..infer.values import Array

    def binary(ufname):
        return (lambda a, b: emit(ufname, a, b)), (lambda a, b: emit(ufname, b, a))

    for stem, ufname in OPERATORS.items():
        if ufname is None:
            continue
        fwd, rev = binary(ufname)
        setattr(Array, f"__{stem}__", fwd)
        setattr(Array, f"__r{stem}__", rev)
        setattr(Array, f"__i{stem}__", _inplace(ufname))
    for stem, ufname in COMPARISONS.items():
        setattr(Array, f"__{stem}__", binary(ufname)[0])
    for stem, ufname in UNARY_OPERATORS.items():
        setattr(Array, f"__{stem}__", (lambda u: lambda a: emit(u, a))(ufname))


def _inplace(ufname):
    """`a += b`: NumPy computes into `a`, casting with the 'same_kind' rule."""
    def iop(a, b):
        from ..errors import DTypeError
        from ..infer.builder import emit
        result = emit(ufname, a, b)
        if a.weak or a.immutable:
            return result       # Python and NumPy scalars are immutable: `x += 1` rebinds
        if result.dtype != a.dtype:
            if not np.can_cast(result.dtype, a.dtype, casting="same_kind"):
                raise DTypeError(
                    f"Cannot cast ufunc '{ufname}' output from {result.dtype} to {a.dtype} "
                    "with casting rule 'same_kind' (in-place operation)",
                    hint=f"write `a = a {_SYMBOL.get(ufname, ufname)} b` to get a new "
                         f"{result.dtype} array, or cast b first")
            result = emit("convert", result, dtype=a.dtype)
        if result.shape != a.shape:
            from ..errors import ShapeError
            raise ShapeError(f"non-broadcastable output operand with shape {a.shape} doesn't "
                             f"match the broadcast shape {result.shape} (in-place operation)")
        a.set(result.var)
        return a
    return iop


_SYMBOL = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/"}

PY_BINARY = {  # BINARY_OP names -> Python operator functions
    "ADD": operator.add, "SUBTRACT": operator.sub, "MULTIPLY": operator.mul,
    "TRUE_DIVIDE": operator.truediv, "FLOOR_DIVIDE": operator.floordiv,
    "REMAINDER": operator.mod, "POWER": operator.pow, "AND": operator.and_,
    "OR": operator.or_, "XOR": operator.xor, "LSHIFT": operator.lshift,
    "RSHIFT": operator.rshift, "MATRIX_MULTIPLY": operator.matmul,
}
PY_INPLACE = {
    "INPLACE_ADD": operator.iadd, "INPLACE_SUBTRACT": operator.isub,
    "INPLACE_MULTIPLY": operator.imul, "INPLACE_TRUE_DIVIDE": operator.itruediv,
    "INPLACE_FLOOR_DIVIDE": operator.ifloordiv, "INPLACE_REMAINDER": operator.imod,
    "INPLACE_POWER": operator.ipow, "INPLACE_AND": operator.iand, "INPLACE_OR": operator.ior,
    "INPLACE_XOR": operator.ixor, "INPLACE_LSHIFT": operator.ilshift,
    "INPLACE_RSHIFT": operator.irshift, "INPLACE_MATRIX_MULTIPLY": operator.imatmul,
}
PY_COMPARE = {"LT": operator.lt, "LE": operator.le, "GT": operator.gt, "GE": operator.ge,
              "EQ": operator.eq, "NE": operator.ne}


# --- round / copy ----------------------------------------------------------------------

register("round", lambda avals, decimals: AVal(avals[0].dtype, avals[0].shape, avals[0].weak),
         lambda lc, x, decimals: jnp.round(x, decimals),
         numpy=lambda x, decimals: np.round(x, decimals))


def round_(a, decimals=0, out=None):
    from ..infer.builder import emit
    return emit("round", a, decimals=int(decimals))


def copy(a, order="K"):
    from ..infer.values import Array, to_value
    return Array(to_value(a))


NUMPY[np.round] = NUMPY[np.around] = METHODS["round"] = round_
NUMPY[np.copy] = METHODS["copy"] = copy
NUMPY[np.asarray] = NUMPY[np.array] = lambda a, dtype=None, copy=None: (
    astype(a, dtype) if dtype is not None else a)
