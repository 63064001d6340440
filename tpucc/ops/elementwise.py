"""Elementwise ops: every NumPy ufunc we compile, one row each.

Dtype rule: NumPy's own ufunc loop resolution (`ufunc.resolve_dtypes`, NEP 50
aware), so results have exactly NumPy 2's dtypes.  Shape rule: broadcasting.
Lowering: cast operands to the loop's input dtypes, apply the jax.numpy
function of the same name (which implements NumPy's semantics, e.g. Python's
floor division and modulo), cast to the loop's output dtype.
"""
from __future__ import annotations

import builtins
import collections
import functools
import math
import operator

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import DTypeError, ShapeError, StaticValueError, UnsupportedError, UserCodeError
from ..ir import AVal
from .registry import (METHODS, NUMPY, PYTHON_BOOL_KEEPING, all_weak, broadcast, broadcast_shapes,
                       broadcast_value, cast, cast_operand, const_aval, define_range, define_vjp,
                       differentiated, divide, float_to_int, heavier_when_complex,
                       hidden_from_simplifier, implements, loop_keys, register, static_index,
                       trunc, ufunc_loop, unfolded, unsafe_cast_operand)

BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder",
          "power", "maximum", "minimum", "fmax", "fmin", "arctan2", "hypot",
          "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
          "bitwise_xor", "left_shift", "right_shift", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "copysign", "logaddexp", "float_power",
          "fmod", "heaviside", "logaddexp2", "nextafter", "ldexp"]
UNARY = ["negative", "positive", "absolute", "sign", "sqrt", "cbrt", "exp", "exp2", "expm1",
         "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
         "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc",
         "rint", "square", "reciprocal", "logical_not", "invert", "isnan", "isinf",
         "isfinite", "signbit", "conjugate", "deg2rad", "rad2deg", "fabs", "bitwise_count"]

# NumPy's other names for those ufuncs: mostly the same object, and where
# not (np.degrees is a ufunc of its own), the same function.
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


# Ufuncs that are one lax primitive on integer and floating operands of one
# dtype (as jax.numpy implements them).  Lowered directly: a jax.numpy
# function is a nested jit whose tracing, for every new shape, costs several
# times the primitive's own (VGG19's forward lowered 25% faster).
_LAX = {"add": lax.add, "subtract": lax.sub, "multiply": lax.mul, "maximum": lax.max,
        "minimum": lax.min, "equal": lax.eq, "not_equal": lax.ne, "less": lax.lt,
        "less_equal": lax.le, "greater": lax.gt, "greater_equal": lax.ge,
        "negative": lax.neg, "exp": lax.exp, "log": lax.log, "tanh": lax.tanh,
        "sqrt": lax.sqrt}


# --- float formulas more accurate than XLA's ---------------------------------------------
# XLA computes exp2(x) as exp(x * ln 2), sinh and cosh of large x as
# exp(x + ln(1/2)) and atanh near 0.41 with a cancellation: measured against
# NumPy's (glibc's) results, up to 67 / 85 ulps off in float32 / float64 for
# exp2, 25 / 496 for sinh and cosh, 129 for float64 atanh.  These formulas
# are within 5 ulps (tests/test_math_module.py).  Each branch is computed on
# an input the branch accepts, so no overflow in a branch not taken reaches
# a gradient (0 * inf) when jax differentiates the lowering.

def _exp2(x):
    return lax.pow(np.array(2, x.dtype), x)         # C's pow: within 1 ulp


def _unless(cond, x, safe):
    """x, or the constant `safe` where `cond` holds (NaN keeps x: a branch
    gets its inputs this way, so that NaN flows through it)."""
    return lax.select(cond, lax.full_like(x, safe), x)


def _sinh(x):
    a = lax.abs(x)
    small, large = lax.lt(a, _const(1, a)), lax.ge(a, _const(20, a))
    e = lax.exp(_unless(large, a, 0))
    middle = lax.mul(_const(0.5, a), lax.sub(e, lax.div(_const(1, a), e)))
    value = lax.select(small, lax.sinh(_unless(lax.bitwise_not(small), a, 0)),
                       lax.select(large, _half_exp(a), middle))
    return _odd(x, value)


def _cosh(x):
    a = lax.abs(x)
    large = lax.ge(a, _const(20, a))
    e = lax.exp(_unless(large, a, 0))
    middle = lax.add(lax.mul(_const(0.5, a), e), lax.div(_const(0.5, a), e))
    return lax.select(large, _half_exp(a), middle)


def _half_exp(a):
    """e^a / 2 as (e^(a/2) / 2) e^(a/2): finite wherever the result is."""
    h = lax.exp(lax.mul(a, _const(0.5, a)))
    return lax.mul(lax.mul(h, _const(0.5, a)), h)


def _arctanh(x):
    """glibc's: 1/2 log1p(2a + 2a^2 / (1 - a)) below 1/2, 1/2 log1p(2a / (1 - a)) above."""
    a = lax.abs(x)
    small = lax.lt(a, _const(0.5, a))
    s, b = _unless(lax.bitwise_not(small), a, 0), _unless(small, a, 0.5)
    t = lax.add(s, s)
    below = lax.log1p(lax.add(t, lax.div(lax.mul(t, s), lax.sub(_const(1, a), s))))
    above = lax.log1p(lax.div(lax.add(b, b), lax.sub(_const(1, a), b)))
    return _odd(x, lax.mul(_const(0.5, a), lax.select(small, below, above)))


def _odd(x, value):
    """An odd function's value at |x| given, x's sign restored: x itself at
    0 and -0.0 (the sign of zero, and slope 1 where jax differentiates)."""
    return lax.select(lax.eq(x, _const(0, x)), x,
                      lax.select(lax.lt(x, _const(0, x)), lax.neg(value), value))


def _sign(x):
    """NumPy's sign: +0 at both zeros (lax.sign keeps the zero's sign, and
    1 / sign(-0.0) would be -inf); real or complex."""
    out = _unless(lax.eq(x, _const(0, x)), lax.sign(x), 0)
    return _complex_sign_at_infinity(x, out) if jnp.iscomplexobj(x) else out


def _complex_sign_at_infinity(z, out):
    """NumPy's sign of a complex number with one infinite part: the unit
    toward that infinity (sign(inf+1j) and sign(inf+nanj) are 1+0j), where
    z / |z| is NaN."""
    re, im = lax.real(z), lax.imag(z)
    re_inf, im_inf = _is_inf(re), _is_inf(im)
    zero = lax.full_like(re, 0)
    unit = lax.complex(lax.select(re_inf, lax.sign(re), zero),
                       lax.select(im_inf, lax.sign(im), zero))
    return lax.select(lax.ne(re_inf, im_inf), unit, out)


def _is_inf(x):
    return lax.bitwise_and(lax.bitwise_not(lax.is_finite(x)), lax.eq(x, x))



# --- cbrt, log2 and log10 where an exact answer exists --------------------------------------
# XLA:CPU's cbrt fused into a dynamic-update-slice (an element written in a
# loop: `out[i] = np.cbrt(x[i])`) is another code path than its vectorized
# one, up to 118 ulps off (cbrt(1e-300)); where it runs is fusion's choice.
# One Newton step on the exact residual x - y**3 gives the correctly
# rounded root from either (glibc's, which NumPy calls, is up to 2.5 ulps
# off it: within 3 of NumPy's, and 3.0 for 27.0).  XLA's log2 and log10 are
# log(x) / log(base), 1 ulp off at exact powers, where NumPy's are exact:
# floor(log10(1e15)) would be 14.

def _halves(a):
    """Veltkamp's split of an array: a == hi + lo, each with half the
    mantissa's bits (_split below is the one for 0-d doubles)."""
    t = lax.mul(_const(2.0 ** ((np.finfo(a.dtype).nmant + 2) // 2) + 1, a), a)
    hi = lax.sub(t, lax.sub(t, a))
    return hi, lax.sub(a, hi)


def _exact_product(a, b):
    """(a * b rounded, its rounding error): a * b == p + err exactly."""
    p = lax.mul(a, b)
    (ah, al), (bh, bl) = _halves(a), _halves(b)
    err = lax.add(lax.add(lax.add(lax.sub(lax.mul(ah, bh), p), lax.mul(ah, bl)),
                          lax.mul(al, bh)), lax.mul(al, bl))
    return p, err


def _cbrt(x):
    """XLA's cbrt, corrected by y + (x - y**3) / (3 y**2) with the residual
    computed exactly; |x| far from 1 is scaled by 2**(-+3k) first, so that
    y**3 and its rounding errors stay normal floats (XLA flushes subnormals)."""
    k = 3 * (np.finfo(x.dtype).maxexp // 6)
    big, small = lax.gt(lax.abs(x), _const(2.0 ** k, x)), lax.lt(lax.abs(x), _const(2.0 ** -k, x))
    scale = lax.select(big, lax.full_like(x, 2.0 ** -k),
                       lax.select(small, lax.full_like(x, 2.0 ** k), lax.full_like(x, 1)))
    unscale = lax.select(big, lax.full_like(x, 2.0 ** (k // 3)),
                         lax.select(small, lax.full_like(x, 2.0 ** -(k // 3)), lax.full_like(x, 1)))
    xs = lax.mul(x, scale)
    y = lax.cbrt(xs)
    square, square_error = _exact_product(y, y)
    cube, cube_error = _exact_product(square, y)
    residual = lax.sub(lax.sub(lax.sub(xs, cube), cube_error), lax.mul(square_error, y))
    step = lax.div(residual, lax.mul(_const(3, x), square))
    corrected = lax.mul(lax.add(y, lax.stop_gradient(step)), unscale)   # (jax's derivative: y's)
    defined = lax.is_finite(x) & lax.ne(x, _const(0, x))      # 0, inf and NaN: y itself
    return lax.select(defined, corrected, lax.cbrt(x))


def _exact_at_powers(base: int, log_fn):
    """log_fn (jnp.log2 or jnp.log10), exactly k where x is the float
    nearest base**k (its true logarithm rounds to k, as glibc's does)."""
    tables = {}

    def powers(dtype):
        if dtype not in tables:
            fi = np.finfo(dtype)            # normal powers only: XLA flushes the others to 0
            lo, hi = ((fi.minexp, fi.maxexp - 1) if base == 2 else
                      (math.ceil(math.log10(fi.tiny)), math.floor(math.log10(fi.max))))
            # (Python parses a decimal power of ten correctly rounded)
            values = [float(f"1e{k}") if base == 10 else 2.0 ** k for k in range(lo, hi + 1)]
            tables[dtype] = lo, np.array(values, dtype)
        return tables[dtype]

    def log(x):
        y = log_fn(x)
        if x.dtype not in (np.float32, np.float64):
            return y
        lo, table = powers(np.dtype(x.dtype))
        k = lax.clamp(_const(lo, y), lax.round(y), _const(lo + len(table) - 1, y))
        k = lax.select(lax.eq(k, k), k, lax.full_like(k, lo))          # NaN: any row
        power = jnp.asarray(table)[lax.convert_element_type(k, np.int32) - lo]
        exact = lax.select(lax.eq(power, x), lax.sub(k, y), lax.full_like(y, 0))
        return lax.add(y, lax.stop_gradient(exact))                  # (jax's derivative: y's)
    return log



# --- logaddexp's derivative -----------------------------------------------------------------
# d logaddexp(x, y) / dx is x's share of the sum, 1 / (1 + e**(y - x)): jax's
# rule, exp(x - out), is -inf - -inf = NaN where both are -inf (a log-space
# recursion's impossible states), which a 0 cotangent does not cancel.

def _share(x, other, log_base):
    """x's share of base**x + base**other, in [0, 1]: 1/2 where the two are
    equal, also both infinite (the limit along x == other)."""
    shape = broadcast_shapes(np.shape(x), np.shape(other))
    x, other = broadcast_value(x, shape), broadcast_value(other, shape)
    share = lax.logistic(lax.mul(lax.sub(x, other), _const(log_base, x)))
    return lax.select(lax.eq(x, other), lax.full_like(share, 0.5), share)


def _logaddexp_with_shares(fn, log_base):
    """fn (jnp.logaddexp or logaddexp2) whose jax derivative is _share's,
    where jax differentiates the lowering (a region with loops)."""
    @jax.custom_jvp
    def differentiable(x, y):
        return fn(x, y)

    @differentiable.defjvp
    def jvp(primals, tangents):
        (x, y), (tx, ty) = primals, tangents
        return fn(x, y), lax.add(lax.mul(tx, _share(x, y, log_base)),
                                 lax.mul(ty, _share(y, x, log_base)))

    def lower(x, y):
        if not differentiated():
            return fn(x, y)
        shape = broadcast_shapes(np.shape(x), np.shape(y))
        return differentiable(broadcast_value(x, shape), broadcast_value(y, shape))
    return lower


# --- float floor division and remainder ---------------------------------------
# NumPy's npy_divmod (the same as CPython's float // and %): fmod, moved to
# the divisor's side; a zero remainder takes the divisor's sign (-4.0 % 2.0
# is 0.0) and a zero quotient the sign of a / b (-0.0 // 1.0 is -0.0).
# jax.numpy gives a zero the dividend's sign, and rounds the quotient where
# NumPy floors it.

def _float_divmod(a, b):
    """(a // b, a % b) for floats of one dtype, exactly as NumPy."""
    shape = broadcast_shapes(np.shape(a), np.shape(b))
    a, b = broadcast_value(a, shape), broadcast_value(b, shape)
    zero, one = _const(0, a), _const(1, a)
    fmod = lax.rem(a, b)
    div = divide(lax.sub(a, fmod), b)       # very nearly an integer
    wrong_side = lax.ne(lax.lt(b, zero), lax.lt(fmod, zero)) & lax.ne(fmod, zero)
    mod = lax.select(lax.eq(fmod, zero), _zero_signed_as(b),
                     lax.select(wrong_side, lax.add(fmod, b), fmod))
    div = lax.select(wrong_side, lax.sub(div, one), div)
    floor = lax.floor(div)
    floor = lax.select(lax.gt(lax.sub(div, floor), _const(0.5, a)), lax.add(floor, one), floor)
    quotient = divide(a, b)
    floordiv = lax.select(lax.eq(div, zero), _zero_signed_as(quotient), floor)
    by_zero = lax.eq(b, zero)           # NumPy: a / 0 and fmod(a, 0) (NaN)
    return lax.select(by_zero, quotient, floordiv), lax.select(by_zero, fmod, mod)


def _zero_signed_as(x):
    """0.0, or -0.0 where x's sign bit is set."""
    bits = lax.bitcast_convert_type(x, np.dtype(f"int{x.dtype.itemsize * 8}"))
    zero = lax.full_like(x, 0)
    return lax.select(lax.lt(bits, np.zeros((), bits.dtype)), lax.neg(zero), zero)


# Keyed by ufunc.__name__: np.true_divide is named "divide" in NumPy 2.
def _rad2deg(x):
    """NumPy multiplies by 180/pi computed in the loop's precision (float32:
    180.0f / NPY_PIf, one ulp below float32(180 / pi), which jnp uses)."""
    dt = np.dtype(x.dtype)
    return lax.mul(x, np.asarray(dt.type(180) / dt.type(np.pi), dt))


_LAX_FLOAT = {"divide": divide,             # integer division rounds: jnp's rule
              "add": unfolded(lax.add), "subtract": unfolded(lax.sub),
              "multiply": unfolded(lax.mul),
              # (XLA makes x ** 3.0 x * x * x, two roundings: libm's pow, as NumPy)
              "power": unfolded(lax.pow),
              "exp2": _exp2, "sinh": _sinh, "cosh": _cosh, "arctanh": _arctanh,
              "rad2deg": lambda x: _rad2deg(x),
              "cbrt": _cbrt, "log2": _exact_at_powers(2, jnp.log2),
              "log10": _exact_at_powers(10, jnp.log10),
              "logaddexp": _logaddexp_with_shares(jnp.logaddexp, 1.0),
              "logaddexp2": _logaddexp_with_shares(jnp.logaddexp2, math.log(2)),
              "sign": _sign,
              "floor_divide": lambda a, b: _float_divmod(a, b)[0],
              "remainder": lambda a, b: _float_divmod(a, b)[1]}


# --- complex maximum and minimum ------------------------------------------------------
# NumPy orders complex numbers lexicographically (real part, then imaginary)
# and maximum/minimum propagate a NaN in either part; fmax/fmin prefer the
# number without one.  XLA's complex max and min do neither.

def complex_isnan(x):
    return lax.ne(lax.real(x), lax.real(x)) | lax.ne(lax.imag(x), lax.imag(x))


def complex_before(x, y, greater: bool):
    """(x ordered strictly before y: x > y for greater, else x < y,
    lexicographically; x equal to y).  Meaningless where either is NaN."""
    xr, xi, yr, yi = lax.real(x), lax.imag(x), lax.real(y), lax.imag(y)
    strict = lax.gt if greater else lax.lt
    same_real = lax.eq(xr, yr)
    return strict(xr, yr) | (same_real & strict(xi, yi)), same_real & lax.eq(xi, yi)


def _complex_extreme(greater: bool, propagate_nan: bool):
    def pick(x, y):
        shape = broadcast_shapes(np.shape(x), np.shape(y))
        x, y = broadcast_value(x, shape), broadcast_value(y, shape)
        before, equal = complex_before(x, y, greater)
        x_nan, y_nan = complex_isnan(x), complex_isnan(y)
        first = (before | equal) & ~y_nan
        first = (x_nan | first) if propagate_nan else (y_nan | (~x_nan & first))
        return lax.select(first, x, y)
    return pick


# --- complex division, reciprocal and power: NumPy's algorithms ------------------------
# XLA's complex division differs from NumPy's (Smith's) in the last bit, and
# by a constant it becomes a multiplication by the reciprocal (z / 0.0 is
# NaN everywhere; NumPy gives inf+infj for 1+2j).  NumPy's power of complex
# numbers (npy_cpow) multiplies for small integer exponents and defines
# zero bases; XLA's is exp(b log a) throughout.

def _parts(*zs):
    shape = broadcast_shapes(*(np.shape(z) for z in zs))
    return [p for z in zs for p in (lax.real(broadcast_value(z, shape)),
                                    lax.imag(broadcast_value(z, shape)))]


def _complex_multiply(a, b):
    """NumPy's cmul: the schoolbook formula (inf * (1+0j) is inf+nanj)."""
    ar, ai, br, bi = _parts(a, b)
    return lax.complex(ar * br - ai * bi, ar * bi + ai * br)


def _complex_divide(a, b):
    """NumPy's complex division (Smith's method): by the part of b larger in
    magnitude; by zero, each part divided by |0| (inf, -inf or nan).  The
    branch is chosen on the operands, so one Smith branch is computed: with
    both computed and selected after, a chain of divisions (an unrolled
    complex filter) made XLA:CPU copy each branch's shared operands into
    every consumer, 5 s of compile for 16 steps (jax.jit: 0.2 s)."""
    if isinstance(b, (np.ndarray, np.generic)) and np.ndim(b) == 0:
        return _complex_divide_by_constant(a, b)
    ar, ai, br, bi = _parts(a, b)
    use_real = lax.ge(lax.abs(br), lax.abs(bi))
    # Both branches on (b's major part p, minor q, a's parts u, v swapped
    # alike): the real part (u + v*rat) * scl; the imaginary part's
    # difference the other way round in the imaginary-major branch, as
    # NumPy subtracts (ai*rat - ar, not a negated ar - ai*rat: 0 - 0 is +0).
    p, q = lax.select(use_real, br, bi), lax.select(use_real, bi, br)
    u, v = lax.select(use_real, ar, ai), lax.select(use_real, ai, ar)
    rat = divide(q, p)
    scl = divide(_const(1, p), p + q * rat)
    real = (u + v * rat) * scl
    u_rat = u * rat
    imag = lax.select(use_real, v - u_rat, u_rat - v) * scl
    by_zero = divide(ar, lax.abs(br)), divide(ai, lax.abs(br))
    is_zero = lax.eq(br, _const(0, br)) & lax.eq(bi, _const(0, bi))
    return lax.complex(lax.select(is_zero, by_zero[0], real), lax.select(is_zero, by_zero[1], imag))


def _complex_divide_by_constant(a, b):
    """a / b for a number b known now (`z / n`, `z / (2 + 1j)`): Smith's
    branch and its two constants computed now in b's precision, as NumPy's
    loop computes them, which leaves XLA 6 operations of the 40 above (a
    recursive FFT divides at every level)."""
    ar, ai = _parts(a)
    br, bi = np.real(b)[()], np.imag(b)[()]
    mul, add, sub = unfolded(lax.mul), unfolded(lax.add), unfolded(lax.sub)
    with np.errstate(all="ignore"):
        if br == 0 and bi == 0:
            return lax.complex(divide(ar, np.abs(br)), divide(ai, np.abs(br)))
        if np.abs(br) >= np.abs(bi):
            rat = bi / br
            scl = br.dtype.type(1) / (br + bi * rat)
            return lax.complex(mul(add(ar, mul(ai, rat)), scl),
                               mul(sub(ai, mul(ar, rat)), scl))
        rat = br / bi
        scl = bi.dtype.type(1) / (bi + br * rat)
        return lax.complex(mul(add(mul(ar, rat), ai), scl),
                           mul(sub(mul(ai, rat), ar), scl))


def _complex_reciprocal(z):
    """NumPy's complex reciprocal loop (1 / 0j is nan+nanj)."""
    zr, zi = _parts(z)
    one = _const(1, zr)
    r = divide(zi, zr)
    d = zr + zi * r
    real_major = divide(one, d), divide(lax.neg(r), d)
    r = divide(zr, zi)
    d = zr * r + zi
    imag_major = divide(r, d), divide(lax.neg(one), d)
    use_real = lax.le(lax.abs(zi), lax.abs(zr))
    return lax.complex(*(lax.select(use_real, r, i) for r, i in zip(real_major, imag_major)))


def _complex_power(a, b):
    """NumPy's npy_cpow: a ** 0 is 1; 0 ** b is 0 where b's real part is
    positive, else nan+nanj; a whole real b with |b| < 100 by repeated
    multiplication (a division for b < 0), others XLA's exp(b log a)."""
    shape = broadcast_shapes(np.shape(a), np.shape(b))
    a, b = broadcast_value(a, shape), broadcast_value(b, shape)
    ar, ai, br, bi = _parts(a, b)
    zero, one = _const(0, br), lax.full_like(a, 1)
    whole = lax.eq(bi, zero) & lax.eq(br, lax.floor(br)) & lax.lt(lax.abs(br), _const(100, br))
    n = lax.convert_element_type(lax.select(whole, lax.abs(br), lax.full_like(br, 0)), np.int32)
    product, square = one, a
    for bit in range(7):            # |n| < 100 < 2**7
        has_bit = lax.ne(lax.bitwise_and(n, np.int32(1 << bit)), np.int32(0))
        product = lax.select(has_bit, _complex_multiply(product, square), product)
        square = _complex_multiply(square, square)
    a2 = _complex_multiply(a, a)
    product = lax.select(lax.eq(br, _const(2, br)), a2, product)
    product = lax.select(lax.eq(br, _const(3, br)), _complex_multiply(a, a2), product)
    product = lax.select(lax.eq(br, _const(1, br)), a, product)
    product = lax.select(lax.lt(br, zero), _complex_divide(one, product), product)
    out = lax.select(whole, product, lax.pow(a, b))
    nan = lax.full_like(a, complex(np.nan, np.nan))
    base_zero = lax.eq(ar, zero) & lax.eq(ai, zero)
    out = lax.select(base_zero, lax.select(lax.gt(br, zero), lax.full_like(a, 0), nan), out)
    return lax.select(lax.eq(br, zero) & lax.eq(bi, zero), one, out)


def _complex_abs(z):
    """|z| as NumPy's (C99's hypot): inf where either part is infinite, even
    where the other is NaN, for which XLA's gives NaN."""
    return lax.select(_any_part_infinite(z), lax.full_like(lax.real(z), np.inf), lax.abs(z))


def _any_part_infinite(z):
    inf = lax.full_like(lax.real(z), np.inf)
    return lax.bitwise_or(lax.eq(lax.abs(lax.real(z)), inf), lax.eq(lax.abs(lax.imag(z)), inf))


def _complex_sqrt(z):
    """C99's csqrt (NumPy's): x ± i∞ is +∞ ± i∞ for every x, NaN included,
    where XLA's gives NaN + NaN i for a NaN x; and the imaginary part has
    the sign of z's, -0.0 included (sqrt(-4-0j) is -2j, below the branch
    cut), where XLA's is +2j."""
    im = lax.imag(z)
    inf = lax.full_like(im, np.inf)
    root = lax.sqrt(z)
    root = lax.complex(lax.real(root), jnp.copysign(lax.imag(root), im))
    return lax.select(lax.eq(lax.abs(im), inf), lax.complex(inf, im), root)


def _log_at_infinity(log):
    """C99's clog/clog1p (NumPy's): the real part is +∞ wherever a part is
    infinite, the other NaN included (log|z|, |z| as hypot), where XLA's
    gives NaN for NaN ± ∞i."""
    def complex_log(z):
        out = log(z)
        at_infinity = lax.complex(lax.full_like(lax.real(z), np.inf), lax.imag(out))
        return lax.select(_any_part_infinite(z), at_infinity, out)
    return complex_log


# --- complex inverse functions on their branch cuts -------------------------------------------
# C99 (NumPy) makes casin, casinh, catan and catanh odd, and these and cacos,
# cacosh conjugate-symmetric (f(conj z) = conj f(z)), so the sign of a zero
# part picks the side of a branch cut: asin(-2-0j) is -pi/2 - 1.317j.  XLA's
# ignore it (+1.317j, the other side's value) and give a zero part of the
# result either sign (atan(2+0j): -0j).  The symmetries fix each part's sign
# (the magnitudes are the same on both sides), so XLA's values with the
# signs C99 gives them are NumPy's.

def _signed_parts(f, real_sign, imag_sign):
    """f(z) with its real part given the sign of real_sign(z) (None: as
    f gave it) and its imaginary part the sign of imag_sign(z)."""
    def complex_f(z):
        w = f(z)
        re = lax.real(w) if real_sign is None else jnp.copysign(lax.real(w), real_sign(z))
        return lax.complex(re, jnp.copysign(lax.imag(w), imag_sign(z)))
    return complex_f


def _odd_and_symmetric(f):
    return _signed_parts(f, lax.real, lax.imag)


_INVERSE_COMPLEX = {
    "arcsin": _odd_and_symmetric(jnp.arcsin), "arcsinh": _odd_and_symmetric(jnp.arcsinh),
    "arctan": _odd_and_symmetric(jnp.arctan), "arctanh": _odd_and_symmetric(jnp.arctanh),
    # (acos: [0, pi] real, an imaginary part of the sign opposite to z's)
    "arccos": _signed_parts(jnp.arccos, None, lambda z: lax.neg(lax.imag(z))),
    "arccosh": _signed_parts(jnp.arccosh, None, lax.imag)}

_LAX_COMPLEX = {**_INVERSE_COMPLEX, "sqrt": _complex_sqrt, "log": _log_at_infinity(lax.log),
                "log1p": _log_at_infinity(lax.log1p),
                "absolute": _complex_abs, "maximum": _complex_extreme(True, True), "minimum": _complex_extreme(False, True),
                "fmax": _complex_extreme(True, False), "fmin": _complex_extreme(False, False),
                "sign": _sign, "divide": _complex_divide, "reciprocal": _complex_reciprocal,
                "power": _complex_power, "float_power": _complex_power}


def complex_pick(ufunc_name: str):
    """NumPy's complex maximum, minimum, fmax or fmin of two jax values."""
    return _LAX_COMPLEX[ufunc_name]


def _lower(ufunc):
    name = ufunc.__name__
    fn = getattr(jnp, _JNP_NAME.get(name, name))
    direct, direct_float = _LAX.get(name), _LAX_FLOAT.get(name)

    def lower(lc, *args):
        loop = ufunc_loop(ufunc, loop_keys(lc.in_avals))
        # An operand of another dtype (a weak Python float: float16_x * np.pi)
        # is rounded to the loop's dtype first, as NumPy converts it, and
        # only then widened to the compute dtype.
        args = [cast_operand(x, a, dt) if name in _NATIVE_FLOAT16 else
                cast(cast_operand(x, a, dt), _compute_dtype(dt))
                for x, a, dt in zip(args, lc.in_avals, loop)]
        if len(args) == 2 and loop[0] != loop[1] and name != "ldexp":       # uint64 vs int64 comparisons
            return _mixed_sign_compare(ufunc, direct, args, loop)
        kind = loop[0].kind
        if name in _SIMPLIFIER_UNSAFE and kind in "iuf":
            args = hidden_from_simplifier(args)
        prim = direct if kind in "iuf" else None
        if kind == "f" and direct_float is not None:
            prim = direct_float
        if kind == "c":
            prim = _LAX_COMPLEX.get(name)
        if kind in "iu" and name == "reciprocal":
            prim = _int_reciprocal
        if kind in "iu" and name == "power":
            prim = _int_power
        if prim is not None:
            out = prim(*_to_common_rank(args))
        else:
            out = fn(*args)
        if name == "floor_divide" and kind in "biu":
            out = jnp.where(args[1] == 0, jnp.zeros_like(out), out)   # NumPy: x // 0 == 0
        return cast(out, lc.out_avals[0].dtype)
    return lower


# Ufuncs whose operands XLA's algebraic simplifier would look through,
# rewriting the op into one that gives other results at NaN, inf, overflow
# or integer wrap-around (registry.hidden_from_simplifier): log(exp(x)),
# log(a ** b), sqrt(x * x), exp(a) * exp(b), x * float(mask), and any
# comparison of abs(x), x * x or exp(x) with 0.
_SIMPLIFIER_UNSAFE = {"multiply", "log", "log2", "log10", "sqrt", "equal", "not_equal",
                      "less", "less_equal", "greater", "greater_equal"}


def _to_common_rank(args):
    """lax broadcasts scalars (a constant one stays a literal) and size-1
    axes itself; only an operand of a lower rank needs a broadcast."""
    shape = broadcast_shapes(*(np.shape(x) for x in args))
    return [x if np.ndim(x) in (0, len(shape)) else broadcast_value(x, shape) for x in args]


def _int_power(base, exponent):
    """NumPy's integer power: square-and-multiply over every bit of the
    exponent, wrapping.  jnp.power (and XLA's integer pow) look at its low 6
    bits only, assuming any larger power overflows, so 3 ** 64 came out as
    3 ** 0 == 1 where NumPy gives 3 ** 64 mod 2 ** 64; odd bases never reach 0.
    A negative exponent raises ValueError (_check_negative_integer_power), so
    the sign bit is not looked at."""
    shape = broadcast_shapes(np.shape(base), np.shape(exponent))
    base, exponent = (broadcast_value(v, shape) for v in (base, exponent))
    bits = np.iinfo(exponent.dtype).bits - (exponent.dtype.kind == "i")
    one = _const(1, exponent)
    acc = lax.full_like(base, 1)
    for bit in range(bits):
        has_bit = lax.ne(lax.bitwise_and(lax.shift_right_logical(exponent, _const(bit, exponent)),
                                         one), _const(0, exponent))
        acc = lax.select(has_bit, lax.mul(acc, base), acc)
        if bit + 1 < bits:
            base = lax.mul(base, base)
    return acc


def _int_reciprocal(x):
    """NumPy's integer reciprocal: 1.0 / x converted back to x's type, so
    1 / 0 is inf converted as x86 converts it (int32: -2**31, int8: 0)."""
    inverse = divide(np.ones((), np.float64), lax.convert_element_type(x, np.float64))
    return float_to_int(trunc(inverse), x.dtype)


def _mixed_sign_compare(ufunc, compare, args, loop):
    """NumPy 2 compares uint64 with int64 exactly (its loop takes both as
    they are; lax needs one dtype): where the signed operand is negative the
    answer is the one for (-1 vs 0), elsewhere both compare as uint64."""
    signed = 0 if loop[0].kind == "i" else 1
    args = _to_common_rank(args)          # lax's comparisons need one rank
    negative = lax.lt(args[signed], np.array(0, loop[signed]))
    positive = jnp.asarray(compare(*(jnp.asarray(x).astype(np.uint64) for x in args)))
    when_negative = bool(ufunc(*(-1 if i == signed else 0 for i in range(2))))
    return jnp.where(negative, when_negative, positive)


# Ufuncs on the bits of the float (the neighbour of x, x * 2**n): a float16
# computed in float32 would give float32's answer.
_NATIVE_FLOAT16 = {"nextafter", "ldexp"}


def _compute_dtype(dt: np.dtype) -> np.dtype:
    """NumPy's float16 loops compute in float32 and round the result; XLA's
    float16 transcendentals are less accurate (exp2(9) is 514), so do the same.
    For + - * / sqrt the float32 result rounds to the correctly rounded float16."""
    return np.dtype(np.float32) if dt == np.float16 else dt


# NumPy 2 compares a Python int with an integer array exactly, whatever its
# value; every other ufunc converts it to the array's dtype and raises
# OverflowError when it does not fit.
_EXACT_INT_UFUNCS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}


def _check_python_ints(ufname, operands) -> tuple:
    """The operands, a static Python int beyond 64 bits as the float NumPy
    (or Python) converts it to where the loop is a float one (x / 2**64:
    no 64-bit integer is involved); raises where
    NumPy raises (an int out of an integer loop's range) and where Python
    ints would need more than 64 bits."""
    if ufname in _EXACT_INT_UFUNCS or not any(_is_python_int(x) for x in operands):
        return operands
    if all(_is_python_int(x) or _is_runtime_python_int(x) for x in operands) and any(
            _is_python_int(x) and not _INT64_MIN <= x <= _INT64_MAX for x in operands):
        wide = next(x for x in operands if _is_python_int(x) and not _INT64_MIN <= x <= _INT64_MAX)
        raise UnsupportedError(
            f"arithmetic ({ufname}) of a Python int known only at run time and the Python int "
            f"{wide}, which no int64 holds: compiled code holds Python ints in 64 bits",
            hint=_wide_python_int_hint(wide))
    try:
        # A Python int is an `int` to NumPy's resolution, also one only a
        # float holds (2**64): int64_array * 2**64 raises, int64_array / 2**64 not.
        keys = loop_keys([_operand_aval(x) for x in operands])
        if not all_weak([_operand_aval(x) for x in operands]):
            keys = tuple(int if _is_python_int(x) else k for x, k in zip(operands, keys))
        loop = ufunc_loop(getattr(np, ufname), keys)
    except TypeError:
        return operands     # no loop for these dtypes: emit reports it as a DTypeError
    converted = list(operands)
    for k, (x, dt) in enumerate(zip(operands, loop)):
        if _is_python_int(x) and dt.kind in "iu" and not (
                np.iinfo(dt).min <= x <= np.iinfo(dt).max):
            held = _held_python_ints(operands)
            if held is None:
                raise python_int_out_of_bounds(x, dt)
            return _on_the_python_int_path(held, operands, x, dt)
        if _is_python_int(x) and not _INT64_MIN <= x <= _UINT64_MAX and dt.kind in "fc":
            converted[k] = _int_as_float(x)     # as NumPy (and Python) convert it
            continue
        if _is_python_int(x) and not _INT64_MIN <= x <= _UINT64_MAX:
            raise UnsupportedError(f"np.{ufname} of an array and the Python integer {x}, "
                                   "which no 64-bit integer holds, is not supported",
                                   hint="write it as a float (e.g. 2.0**64)")
    return tuple(converted)


def _held_python_ints(operands) -> list | None:
    """The operands that are a Python int on some runtime paths and a NumPy
    integer on others (infer/held_ints.py), where every other operand is a
    Python int: on the paths that hold the ints, Python int arithmetic."""
    held = [x for x in operands if isinstance(x, Array) and x.held_int is not None
            and not x.weak and held_ints.python_type(x) is int and x.dtype.kind in "iu"]
    others_python = all(_is_python_int(x) or _is_runtime_python_int(x) or
                        any(x is h for h in held) for x in operands)
    return held if held and others_python else None


def _on_the_python_int_path(held: list, operands, value: int, dtype) -> tuple:
    """`find(parent, 0) + 1000` of a uint8 `parent`: where the held value
    is the NumPy integer, NumPy raises OverflowError for the Python int
    `value` that `dtype` cannot hold, when the program runs on that path
    (E910); where it is the Python int (the loop did not run), the result
    is Python's: the operands as Python ints."""
    from ..infer import checks, held_ints
    on_int_path = functools.reduce(lambda a, b: emit("logical_and", a, b),
                                   [Array(x.held_int) for x in held])
    checks.require(on_int_path, f"Python integer {value} out of bounds for {dtype}",
                   hint=_wider_hint(dtype, value), raises="OverflowError")
    return tuple(held_ints.as_python_number(x) if any(x is h for h in held) else x
                 for x in operands)


def _wide_python_int_hint(value: int) -> str:
    """What to do about a Python int past int64 in arithmetic with runtime
    Python ints: one uint64 holds is most likely 64 bits of a hash, mask or
    seed, which NumPy's uint64 computes modulo 2**64 (a float would lose
    the low bits, and has no `^ & >>`)."""
    if 0 <= value <= _UINT64_MAX:
        return (f"for 64-bit hashes, masks and seeds hold the numbers as NumPy uint64 "
                f"(h = np.uint64({value}), np.uint64(int(x[i])) or x.astype(np.uint64)): its "
                "arithmetic wraps modulo 2**64, as a `& 0xFFFFFFFFFFFFFFFF` mask does; else "
                "keep the numbers within int64")
    return "use a float, or keep the numbers within int64"


def _int_as_float(x: int) -> float:
    """float(x), its OverflowError one the program may catch (NumPy raises it)."""
    try:
        return float(x)
    except OverflowError:
        raise UserCodeError("OverflowError: int too large to convert to float",
                            hint="write the number as a float") from None


_INT64_MIN = int(np.iinfo(np.int64).min)
_INT64_MAX = int(np.iinfo(np.int64).max)
_UINT64_MAX = int(np.iinfo(np.uint64).max)


def _is_python_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def emit_ufunc(ufname, *operands):
    """Emits a ufunc op, first checking Python int operands as NumPy does."""
    operands = tuple(array_like(x) for x in operands)    # np.add([a, b], 1)
    if ufname in _EXACT_INT_UFUNCS:
        operands = _widen_for_exact_comparison(operands)
    else:
        operands = _check_python_ints(ufname, operands)
        _check_runtime_python_ints(ufname, operands)
    if ufname == "power":
        _check_negative_integer_power(operands)
    return kept_layout(emit(ufname, *operands), operands)


def kept_layout(result, operands):
    """`result`, a new array NumPy lays out in the memory order of its array
    operands (order 'K': `(A + 1).ravel('K')` of an F-ordered A reads it in
    F order): they are noted, for indexing._numpy_layout to ask if needed."""
    if not isinstance(result, Array) or result.ndim < 2:
        return result
    found = {}
    for x in operands:
        if isinstance(x, Array) and x.shape == result.shape:
            # (an operand made so itself stands for its own operands: a chain
            # of a thousand `x = x * 2` is asked one step deep)
            for source in (x.layout_of if x.base is None and x.layout_of else (x,)):
                found[id(source)] = source
    result.layout_of = tuple(found.values())
    return result


def _is_runtime_python_int(x) -> bool:
    """A Python int that became a runtime value (a counter updated in a
    runtime loop): weak, so NumPy's rules are those of the int it holds."""
    return isinstance(x, Array) and x.weak and x.dtype.kind in "iu"


def _check_runtime_python_ints(ufname, operands):
    """NumPy converts a Python int operand to an integer array's dtype and
    raises OverflowError when it does not fit (`int8_array + 300`).  For an
    int known only at run time that is a runtime check (infer/checks.py)."""
    if not any(_is_runtime_python_int(x) for x in operands):
        return
    avals = [_operand_aval(x) for x in operands]
    if all_weak(avals):
        return
    try:
        loop = ufunc_loop(getattr(np, ufname), loop_keys(avals))
    except TypeError:
        return
    for x, dt in zip(operands, loop):
        if _is_runtime_python_int(x):
            require_int_fits(x, dt)


_WIDER_HINT = "cast the array to a wider dtype first, e.g. x.astype(np.int64)"


def python_int_out_of_bounds(value: int, dtype) -> UserCodeError:
    """NumPy 2's OverflowError for a static Python int that an integer
    dtype cannot hold (`uint8_array + 300`, x[0] = 300, np.full(2, -1,
    dtype=np.uint8)): the program's exception, which its `except
    OverflowError` catches."""
    return UserCodeError(f"OverflowError: Python integer {value} out of bounds for {dtype}",
                         hint=_wider_hint(dtype, value))


def _wider_hint(dtype, value: int | None = None) -> str:
    """What to do about a Python int (`value`, where known) that `dtype`
    cannot hold: from 2**63 up one uint64 holds is most likely a hash or
    mask constant (Fibonacci hashing's 0x9E3779B97F4A7C15), whose
    arithmetic NumPy's uint64 does modulo 2**64 (float64 would lose the low
    bits, and has no `^ >>`; int64 holds no such number)."""
    if value is not None and _INT64_MAX < value <= _UINT64_MAX:
        return ("cast the array to uint64 first (x.astype(np.uint64)), which holds the number "
                "and computes modulo 2**64 as hashes and masks do; or compute in float64 "
                "(x.astype(np.float64)), rounding to 53 bits")
    if np.dtype(dtype) in (np.dtype(np.int64), np.dtype(np.uint64)):
        return ("no integer dtype is wider: compute in float64 (x.astype(np.float64)), or "
                "keep the number within the dtype's range")
    return _WIDER_HINT


def require_int_fits(x, dtype, hint: str | None = None):
    """The same OverflowError for an integer known only at run time going
    into `dtype` (a Python int: a counter of a runtime loop, a runtime
    argument; or a NumPy integer stored as NumPy stores one into a signed
    array, through int()): a runtime check (infer/checks.py) naming the
    value, as NumPy's message does.  Compiled code holds Python ints in
    int64.  `hint`: why it must fit where NumPy itself would not raise."""
    dtype = np.dtype(dtype)
    if dtype.kind not in "iu" or np.can_cast(x.dtype, dtype):
        return
    _require(int_fits(x, dtype), ("Python integer ", x, f" out of bounds for {dtype}"),
             "OverflowError", hint or "NumPy raises OverflowError here; " + _wider_hint(dtype))


def int_fits(x, dtype):
    """Elementwise: whether each integer of x lies in `dtype`'s range (what
    require_int_fits requires); None where every value of x's dtype does."""
    dtype = np.dtype(dtype)
    if np.can_cast(x.dtype, dtype):
        return None
    source, target = np.iinfo(x.dtype), np.iinfo(dtype)
    checks = []     # (each bound lies in x's range where compared: no overflow)
    if source.min < target.min:
        checks.append(emit("greater_equal", x, int(target.min)))
    if source.max > target.max:
        checks.append(emit("less_equal", x, int(target.max)))
    return checks[0] if len(checks) == 1 else emit("logical_and", *checks)


def require_int_conversion(x, dtype):
    """A runtime float stored into an integer array as NumPy stores a
    Python float (x[i] = v): as int(v), which raises on NaN (ValueError) and
    infinities (OverflowError), and the int must fit the dtype
    (OverflowError; one beyond 64 bits does not fit a C long)."""
    dtype = np.dtype(dtype)
    whole = emit_ufunc("trunc", x)
    hint = "NumPy raises here storing the value into an integer array; use np.where, or a " \
           "float array"
    _require(emit("logical_not", emit_ufunc("isnan", whole)),
             ("cannot convert float NaN to integer",), "ValueError", hint)
    _require(emit("logical_not", emit_ufunc("isinf", whole)),
             ("cannot convert float infinity to integer",), "OverflowError", hint)
    top = 2.0 ** 64 if dtype == np.uint64 else 2.0 ** 63
    _require(emit("logical_and", emit_ufunc("greater_equal", whole, -2.0 ** 63),
                  emit_ufunc("less", whole, top)),
             ("Python int too large to convert to C long",), "OverflowError", hint)
    if dtype.itemsize < 8 or dtype == np.uint64:
        # The bounds min and max + 1 are powers of two (or small): exact in any float.
        info = np.iinfo(dtype)
        fits = emit("logical_and", emit_ufunc("greater_equal", whole, float(info.min)),
                    emit_ufunc("less", whole, float(info.max) + 1))
        from .logic import python_scalar
        _require(fits, ("Python integer ", python_scalar(whole, int), f" out of bounds for {dtype}"),
                 "OverflowError", hint)


def int_conversion_fits(x, dtype):
    """Elementwise: whether each float of x passes every check of
    require_int_conversion (NaN fails both comparisons, each infinity one)."""
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    top = 2.0 ** 64 if dtype == np.uint64 else 2.0 ** 63       # (a C long's, or uint64's)
    low, high = max(-2.0 ** 63, float(info.min)), min(top, float(info.max) + 1)
    whole = emit_ufunc("trunc", x)
    return emit("logical_and", emit_ufunc("greater_equal", whole, low),
                emit_ufunc("less", whole, high))


def _require(ok, parts, raises, hint):
    """A runtime check whose message is `parts`: text, and runtime values
    shown as the program's values are."""
    from ..infer import checks, messages
    message = messages.Message(tuple(p if isinstance(p, str) else messages.Field(p, None, "")
                                     for p in parts))
    checks.require(ok, message if len(parts) > 1 else parts[0], raises=raises, hint=hint)


def _check_negative_integer_power(operands):
    """`int_array ** -1` raises ValueError in NumPy; jax cannot lower it.  A
    runtime exponent is checked at run time (infer/checks.py)."""
    base, exponent = operands
    static = isinstance(exponent, (int, np.integer)) and not isinstance(exponent, bool)
    if not (static and exponent < 0 or isinstance(exponent, Array)
            and exponent.dtype.kind == "i"):
        return
    try:
        loop = ufunc_loop(np.power, loop_keys([_operand_aval(x) for x in operands]))
    except TypeError:
        return
    if loop[0].kind not in "iu":
        return
    message, hint = ("Integers to negative integer powers are not allowed.",
                     "use a float base or exponent (x ** -1.0, 1 / x)")
    if static:
        raise UserCodeError(f"ValueError: {message}", hint=hint)
    from ..infer import checks
    ok = emit("greater_equal", exponent, 0)
    if exponent.ndim:
        ok = emit("all", ok, axes=None, keepdims=False)
    checks.require(ok, message, raises="ValueError", hint=hint)


def _widen_for_exact_comparison(operands):
    """`uint8_array > -1` is True everywhere in NumPy 2; converting -1 to
    uint8 (255) would make it False.  A Python int that does not fit an
    integer array's dtype compares as the infinity of its sign with the array
    as float64: exactly (int64 (2**63 - 1) < 2**63, where float64 rounds
    both to 2**63)."""
    if any(_is_runtime_python_int(x) for x in operands):
        # An int known only at run time may not fit: compare in int64.
        operands = tuple(astype(x, np.int64) if isinstance(x, Array) and not x.weak
                         and x.dtype.kind in "iu" and x.dtype.itemsize < 8 else x
                         for x in operands)
    ints = [x for x in operands if _is_python_int(x)]
    if not ints:
        return operands
    arrays = [x for x in operands if isinstance(x, Array) and not x.weak and x.dtype.kind in "iu"]

    def beyond(i) -> bool:      # outside an integer array's range: the answer is known
        return any(not np.iinfo(a.dtype).min <= i <= np.iinfo(a.dtype).max for a in arrays)
    widened = []
    for x in operands:
        if any(x is a for a in arrays) and any(beyond(i) for i in ints):
            x = astype(x, np.float64)       # finite: an infinity stands for the int
        elif _is_python_int(x) and beyond(x):
            x = float("inf") if x > 0 else float("-inf")
        elif _is_python_int(x) and not _INT64_MIN <= x <= _UINT64_MAX:
            x = _int_as_float(x)        # against a float, which NumPy converts it to
        widened.append(x)
    return tuple(widened)


def _ufunc_impl(name):
    def impl(*args, out=None, dtype=None, where=True, casting="same_kind", **kw):
        no_extra(name, out, where, kw)
        check_casting(name, getattr(np, name), args, out, casting, dtype=dtype)
        if dtype is not None:
            result = _ufunc_with_dtype(name, args, np.dtype(dtype), casting)
        elif name == "power" and len(args) == 2:
            result = power_ufunc(*args)
        else:
            result = emit_ufunc(name, *args)
        float_errors.check(name, args, result)
        if out is not None:
            return store_out(name, result, out, where, casting)
        if dtype is not None:
            return result
        if result.weak:     # np.add(1, 2) is np.int64(3): NumPy functions give strong values
            result = astype(result, result.dtype)
            result.immutable = True     # and a NumPy scalar, not a 0-d array
        return held_ints.checked_operator(name, args, result, python_operator=False)
    return impl


def _ufunc_with_dtype(name, operands, dtype, casting="same_kind"):
    """np.add(a, b, dtype=dt): NumPy picks the loop whose output is `dt`,
    casting the inputs to it under the `casting` rule (or refuses), and
    computes in that loop's dtype."""
    loop = loop_with_output(getattr(np, name), f"np.{name}", operands, dtype, casting)
    result = emit_ufunc(name, *cast_to_loop(operands, loop))
    return result if result.dtype == loop[-1] else astype(result, loop[-1])


def loop_with_output(ufunc, name: str, operands, dtype, casting="same_kind") -> tuple:
    """The dtypes (inputs..., output) of the loop NumPy picks for
    ufunc(*operands, dtype=dtype), under the `casting` rule."""
    keys = loop_keys([_operand_aval(x) for x in operands])
    try:
        return ufunc.resolve_dtypes(keys + (None,) * ufunc.nout,
                                    signature=(None,) * ufunc.nin + (dtype,) * ufunc.nout,
                                    casting=casting)
    except TypeError as e:
        raise DTypeError(f"{name}(..., dtype={dtype}): {e}",
                         hint="cast the inputs with .astype(...) first") from None


def cast_to_loop(operands, loop) -> tuple:
    """The operands converted to the loop's input dtypes, as NumPy converts
    them (a runtime Python int that does not fit raises NumPy's error)."""
    for x, dt in zip(operands, loop):
        if _is_runtime_python_int(x):
            require_int_fits(x, dt)
    return tuple(astype(x, dt, copy=False) for x, dt in zip(operands, loop))


def _operand_aval(x) -> AVal:
    """The abstract value of an operand, without emitting a constant for it."""
    return x.aval if isinstance(x, Array) else const_aval(x)


def no_extra(name, out, where, kw):
    if kw:
        raise UnsupportedError(f"np.{name}: the {'/'.join(f'{k}=' for k in kw)} arguments "
                               "are not supported", hint="leave them out (dtype= chooses the loop's dtype)")
    if where is not True and out is None:
        raise UnsupportedError(f"np.{name}(where=...) without out=: NumPy leaves the other "
                               "elements uninitialized", hint="use np.where(mask, "
                               f"np.{name}(...), fill), or pass out= an array to update")


CASTING_RULES = ("no", "equiv", "safe", "same_kind", "unsafe")


def check_casting(name, numpy_fn, operands, out, casting, **options):
    """np.<name>(..., casting=rule): NumPy checks each cast the call makes
    (operands into the loop's dtypes, the result into out's) under the
    rule, and raises UFuncTypeError for one it does not allow.  Which casts
    those are depends on dtypes only (NEP 50), so the check is made here,
    at compile time, by NumPy itself: `numpy_fn` called on empty stand-ins
    of the operands and of out (its rules have quirks: under 'equiv' even
    a Python int into a uint8 array is refused, under 'no' it is not).
    The default rule, 'same_kind', is checked where the casts are made."""
    if casting not in CASTING_RULES:
        raise UserCodeError(f"ValueError: casting must be one of {', '.join(map(repr, CASTING_RULES))} "
                            f"(got {casting!r})")
    if casting == "same_kind":
        return
    stand_ins = [_empty_stand_in(x) for x in operands]
    if any(x is _NO_STAND_IN for x in stand_ins) or not (out is None or isinstance(out, Array)):
        return                      # (a box, a selection: cast as they cast)
    if out is not None:
        options["out"] = np.empty(0, out.dtype)
    try:
        with np.errstate(all="ignore"):
            numpy_fn(*stand_ins, casting=casting, **options)
    except TypeError as e:          # (NumPy's UFuncTypeError; others are checked where made)
        output = "output" in str(e)
        raise DTypeError(f"np.{name}: {e}", hint=(
            "pass casting='unsafe' to convert the result as .astype does, or store "
            "`out[...] = result.astype(out.dtype)`" if output else
            "cast the operands with .astype(...) first, or pass a rule that allows "
            "the cast (casting='same_kind', the default)")) from None


_NO_STAND_IN = object()


def _empty_stand_in(x):
    """What NumPy's casting rules see of operand x, with no elements: an
    empty array of its dtype, or for a Python number (weak), one of its type
    (its value matters only for an int out of the array's range, an
    OverflowError the call itself raises)."""
    if isinstance(x, Array):
        return x.dtype.type(0).item() if x.weak else np.empty(0, x.dtype)
    if x is None or isinstance(x, (bool, int, float, complex, np.generic)):
        return x
    if isinstance(x, (list, tuple)):
        try:
            return np.empty(0, np.asarray(x).dtype)
        except (ValueError, TypeError):
            return _NO_STAND_IN
    return _NO_STAND_IN


def store_out(name, result, out, where, casting="same_kind"):
    """np.<ufunc>(..., out=a[, where=m]): the result written into `a` (where
    m holds) with NumPy's cast under `casting` (check_casting), broadcast to
    a's shape; the call returns `a` itself."""
    target = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if not isinstance(target, Array):
        raise UnsupportedError(f"np.{name}(out=...): out must be an array, not "
                               f"{type(target).__name__}")
    if result.shape != target.shape:
        try:
            fits = broadcast_shapes(result.shape, target.shape) == target.shape
        except ValueError:
            fits = False
        if not fits:
            raise ShapeError(f"np.{name}: non-broadcastable output operand with shape "
                             f"{target.shape} doesn't match the broadcast shape {result.shape}")
        result = broadcast_to(result, target.shape)
    if where is not True:
        result = select(where, result, target)
    store_inplace(target, result, name, casting)
    return target


# The ufuncs whose complex algorithm branches (registry.heavier_when_complex).
_BRANCHING_FOR_COMPLEX = ("true_divide", "reciprocal", "sqrt")
for _name in BINARY + UNARY:
    _uf = getattr(np, _name)
    register(_name, _abstract(_uf), _lower(_uf), numpy=_uf, layout="elementwise",
             compile_weight=heavier_when_complex if _name in _BRANCHING_FOR_COMPLEX else 1)
    NUMPY[_uf] = _ufunc_impl(_name)
for _alias, _name in ALIASES.items():
    # (most are the same object; np.degrees and np.radians are ufuncs of their own)
    if hasattr(np, _alias):
        NUMPY.setdefault(getattr(np, _alias), NUMPY[getattr(np, _name)])
def conjugate_method(a):
    """a.conj(): a real array's is the array itself (NumPy's ndarray.conjugate
    returns self: writes through either name are seen by the other)."""
    if isinstance(a, Array) and a.dtype.kind != "c" and not a.weak:
        return a
    return NUMPY[np.conjugate](a)


METHODS["conj"] = METHODS["conjugate"] = conjugate_method


@implements(np.divmod)
def divmod_(a, b, **kw):
    """NumPy's one ufunc with two outputs here: its two binary ufuncs."""
    return NUMPY[np.floor_divide](a, b, **kw), NUMPY[np.remainder](a, b, **kw)


# --- reverse mode (lower/reverse.py) --------------------------------------------
# Partial derivatives times the cotangent, in the float dtype the ufunc
# computed in; operands as the lowering got them (maybe a physical layout,
# maybe broadcast): each cotangent is summed back to its operand's shape.
_CHAIN = {
    "add": (lambda ct, out, x, y: ct, lambda ct, out, x, y: ct),
    "subtract": (lambda ct, out, x, y: ct, lambda ct, out, x, y: lax.neg(ct)),
    "multiply": (lambda ct, out, x, y: lax.mul(ct, y), lambda ct, out, x, y: lax.mul(ct, x)),
    "true_divide": (lambda ct, out, x, y: divide(ct, y),
                    lambda ct, out, x, y: lax.neg(divide(lax.mul(ct, out), y))),
    "negative": (lambda ct, out, x: lax.neg(ct),),
    "exp": (lambda ct, out, x: lax.mul(ct, out),),
    "log": (lambda ct, out, x: lax.div(ct, x),),
    "tanh": (lambda ct, out, x: lax.mul(ct, lax.sub(np.ones((), out.dtype), lax.mul(out, out))),),
    "sqrt": (lambda ct, out, x: lax.div(lax.mul(ct, np.full((), 0.5, out.dtype)), out),),
    "power": (lambda ct, out, x, y: lax.mul(ct, _power_base_partial(out, x, y)),
              lambda ct, out, x, y: lax.mul(ct, _power_exponent_partial(out, x, y))),
    "absolute": (lambda ct, out, x: lax.mul(ct, lax.sign(x)),),
    "fabs": (lambda ct, out, x: lax.mul(ct, lax.sign(x)),),
    "positive": (lambda ct, out, x: ct,),
    "square": (lambda ct, out, x: lax.mul(ct, lax.mul(_const(2, out), x)),),
    "reciprocal": (lambda ct, out, x: lax.neg(lax.mul(ct, lax.mul(out, out))),),
    "cbrt": (lambda ct, out, x: lax.div(ct, lax.mul(_const(3, out), lax.mul(out, out))),),
    "expm1": (lambda ct, out, x: lax.mul(ct, lax.add(out, _const(1, out))),),
    "exp2": (lambda ct, out, x: lax.mul(ct, lax.mul(out, _const(np.log(2), out))),),
    "log1p": (lambda ct, out, x: lax.div(ct, lax.add(x, _const(1, out))),),
    "log2": (lambda ct, out, x: lax.div(ct, lax.mul(x, _const(np.log(2), out))),),
    "log10": (lambda ct, out, x: lax.div(ct, lax.mul(x, _const(np.log(10), out))),),
    "sin": (lambda ct, out, x: lax.mul(ct, lax.cos(x)),),
    "cos": (lambda ct, out, x: lax.neg(lax.mul(ct, lax.sin(x))),),
    "tan": (lambda ct, out, x: lax.mul(ct, lax.add(_const(1, out), lax.mul(out, out))),),
    "sinh": (lambda ct, out, x: lax.mul(ct, lax.cosh(x)),),
    "cosh": (lambda ct, out, x: lax.mul(ct, lax.sinh(x)),),
    "arctan": (lambda ct, out, x: lax.div(ct, lax.add(_const(1, out), lax.mul(x, x))),),
    "arcsin": (lambda ct, out, x: lax.mul(ct, lax.rsqrt(lax.sub(_const(1, out), lax.mul(x, x)))),),
    "arccos": (lambda ct, out, x: lax.neg(lax.mul(ct, lax.rsqrt(lax.sub(_const(1, out),
                                                                        lax.mul(x, x))))),),
    "arcsinh": (lambda ct, out, x: lax.mul(ct, lax.rsqrt(lax.add(lax.mul(x, x), _const(1, out)))),),
    "arctanh": (lambda ct, out, x: lax.div(ct, lax.sub(_const(1, out), lax.mul(x, x))),),
    "deg2rad": (lambda ct, out, x: lax.mul(ct, _const(np.pi / 180, out)),),
    "rad2deg": (lambda ct, out, x: lax.mul(ct, _const(180 / np.pi, out)),),
    # Piecewise constant: no gradient (as jax).
    **{name: (lambda ct, out, x: None,) for name in ("floor", "ceil", "trunc", "rint", "sign")},
    "maximum": (lambda ct, out, x, y: lax.mul(ct, _chosen(x, out, y)),
                lambda ct, out, x, y: lax.mul(ct, _chosen(y, out, x))),
    "logaddexp": (lambda ct, out, x, y: lax.mul(ct, _share(x, y, 1.0)),
                  lambda ct, out, x, y: lax.mul(ct, _share(y, x, 1.0))),
    "logaddexp2": (lambda ct, out, x, y: lax.mul(ct, _share(x, y, math.log(2))),
                   lambda ct, out, x, y: lax.mul(ct, _share(y, x, math.log(2)))),
    "minimum": (lambda ct, out, x, y: lax.mul(ct, _chosen(x, out, y)),
                lambda ct, out, x, y: lax.mul(ct, _chosen(y, out, x))),
}


def _const(value, like):
    return np.asarray(value, like.dtype)


def _chosen(x, out, other):
    """1 where max/min chose x, 1/2 where x and `other` tie, else 0 (jax's
    rule, so both reverse modes agree)."""
    shape = tuple(out.shape)
    x, other = (broadcast_value(v, shape) for v in (x, other))
    one, half, zero = (np.full(shape, v, out.dtype) for v in (1.0, 0.5, 0.0))
    picked = lax.eq(x, out)
    return lax.select_n(picked, zero, lax.select_n(lax.eq(other, out), one, half))


def _power_base_partial(out, x, y):
    """y * x**(y - 1), and 0 where y == 0 (as jax: no 0 * inf at x == 0)."""
    x, y = (broadcast_value(v, tuple(out.shape)) for v in (x, y))
    one, zero = np.ones((), out.dtype), np.zeros((), out.dtype)
    partial = lax.mul(y, lax.pow(x, lax.sub(y, one)))
    return lax.select_n(lax.eq(y, zero), partial, lax.full_like(partial, 0))


def _power_exponent_partial(out, x, y):
    """x**y * log(x), with log(1) where x == 0 (as jax: 0, not 0 * -inf)."""
    x = broadcast_value(x, tuple(out.shape))
    safe = lax.select_n(lax.eq(x, np.zeros((), out.dtype)), x, lax.full_like(x, 1))
    return lax.mul(out, lax.log(safe))


def _ufunc_vjp(name):
    partials = _CHAIN[name]

    def vjp(lc, operands, perms, out, ct):
        dt = lc.out_avals[0].dtype
        if dt.kind != "f":
            return NotImplemented
        shape = tuple(ct.shape)      # lax broadcasts scalars and size-1 axes, not ranks
        args = [cast(x if np.ndim(x) in (0, len(shape)) else broadcast_value(x, shape), dt)
                for x in operands]
        cts = [partial(ct, out, *args) if lc.wants(k) else None
               for k, partial in enumerate(partials)]
        if name not in _BOUNDED_PARTIALS:
            cts = [None if g is None else _none_without_cotangent(ct, g) for g in cts]
        return tuple(None if g is None else unbroadcast(g, np.shape(x))
                     for g, x in zip(cts, operands))
    return vjp


# Ufuncs whose partial derivatives stay finite where their operands are.
_BOUNDED_PARTIALS = frozenset({
    "add", "subtract", "negative", "positive", "deg2rad", "rad2deg", "sin", "cos", "tanh",
    "arctan", "absolute", "fabs", "maximum", "minimum", "floor", "ceil", "trunc", "rint",
    "sign", "logaddexp", "logaddexp2"})


def _none_without_cotangent(ct, g):
    """0 where the cotangent is 0, whatever the partial derivative is there:
    through the branch np.where does not take, `p * np.log(p)` at p == 0
    would give 0 * -inf = NaN (jax's and PyTorch's answer), where the
    function's own derivative is 0."""
    zero = lax.full_like(g, 0)
    return lax.select(lax.eq(ct, lax.full_like(ct, 0)), zero, g)


for _name in _CHAIN:
    define_vjp(_name, _ufunc_vjp(_name))


# --- value ranges (OpDef.value_range) --------------------------------------------------------

def _extreme_range(pick):
    def rule(avals, bounds, **_):
        a, b = bounds
        return None if a is None or b is None else (pick(a[0], b[0]), pick(a[1], b[1]))
    return rule


def _remainder_range(avals, bounds, **_):
    """An integer x % n takes n's sign: in [0, n - 1] for n > 0, whatever x."""
    n = bounds[1]
    if n is not None and n[0] > 0:
        return 0, n[1] - 1
    if n is not None and n[1] < 0:
        return n[0] + 1, 0
    return None


def _floor_divide_range(avals, bounds, **_):
    """i // k for a static k: floor division is monotonic in i."""
    a, k = bounds
    if a is None or k is None or k[0] != k[1] or k[0] == 0:
        return None
    ends = (a[0] // k[0], a[1] // k[0])
    return min(ends), max(ends)


# np.clip is maximum then minimum: np.clip(i, 0, n - 1) lies in [0, n - 1].
define_range("maximum", _extreme_range(max))
define_range("minimum", _extreme_range(min))
define_range("remainder", _remainder_range)
define_range("floor_divide", _floor_divide_range)


# --- astype -------------------------------------------------------------------

def _astype_abstract(avals, dtype):
    return AVal(np.dtype(dtype), avals[0].shape, False)


def _astype_lower(lc, x, dtype):
    return unsafe_cast_operand(x, lc.in_avals[0], dtype)     # (np.float32(k) of a Python int)


register("convert", _astype_abstract, _astype_lower,
         numpy=lambda x, dtype: x.astype(dtype))
# A float-to-float cast passes the cotangent through (cast back by reverse.py).
define_vjp("convert", lambda lc, operands, perms, out, ct, dtype:
           (ct if lc.in_avals[0].dtype.kind == "f" and out.dtype.kind == "f" else None,))


def _convert_range(avals, bounds, dtype, **_):
    """An integer cast keeps the values where they fit the new dtype."""
    b = bounds[0]
    if b is None or np.dtype(dtype).kind not in "iu":
        return None
    info = np.iinfo(dtype)
    return b if info.min <= b[0] and b[1] <= info.max else None


define_range("convert", _convert_range)


def astype(x, dtype, copy=True, casting="unsafe"):
    dtype = np.dtype(dtype)
    if dtype.kind == "V":
        refuse_bfloat16(dtype)
    if isinstance(x, Array) and x.dtype == dtype and not x.weak and not copy:
        return x
    return emit("convert", x, dtype=dtype)


def refuse_bfloat16(dtype: np.dtype):
    """A cast to bfloat16 (ml_dtypes rounds every result to it; XLA:CPU
    computes in float32 and would not), refused as a bfloat16 argument is."""
    from ..aot.spec import BFLOAT16
    if dtype.name == "bfloat16":
        raise DTypeError("a cast to bfloat16 in compiled code", hint=BFLOAT16)


def astype_method(x, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """`x.astype(dtype)`: a NumPy scalar's astype gives a NumPy scalar, a 0-d
    array's a 0-d array (np.asarray(x, dtype) always gives an array)."""
    check_astype(x, dtype, order, casting)
    f_order = order == "F" and isinstance(x, Array) and x.ndim > 1
    out = astype(x, dtype, copy or f_order and not indexing.is_f_contiguous(x))
    if f_order and out is not x:
        out = in_f_order(out)
    elif out is not x and _memory_order(order) == "K":
        kept_layout(out, (x,))
    if out is not x and out.ndim == 0:
        kind = getattr(x, "immutable", False)
        # (a kind decided at run time, RuntimeKind, stays one: the same bool says it)
        out.immutable = kind if isinstance(kind, RuntimeKind) else bool(kind)
    return out


METHODS["astype"] = astype_method


def _astype_castings() -> tuple:
    """The casting rules this NumPy's astype takes (2.4 adds 'same_value')."""
    castings = ("no", "equiv", "safe", "same_kind", "unsafe")
    try:
        np.zeros(1).astype(np.float32, casting="same_value")
    except (ValueError, TypeError):
        return castings
    return castings + ("same_value",)


_ASTYPE_CASTINGS = _astype_castings()


def check_astype(x, dtype, order, casting) -> None:
    """x.astype's order= and casting=, checked as NumPy checks them (the
    dtypes are known, so a cast the rule refuses is refused now)."""
    if order not in ("K", "A", "C", "F"):
        raise UserCodeError(f"ValueError: order must be one of 'C', 'F', 'A', or 'K' "
                            f"(got {order!r})")
    if casting not in _ASTYPE_CASTINGS:
        raise UserCodeError(f"ValueError: casting must be one of "
                            f"{', '.join(map(repr, _ASTYPE_CASTINGS))} (got {casting!r})")
    if casting == "same_value":
        raise UnsupportedError("x.astype(casting='same_value') is not supported: whether "
                               "every value survives the cast is known only at run time",
                               hint="cast with the default casting='unsafe', and compare the "
                                    "result cast back with x if you need the check")
    dtype = np.dtype(dtype)
    if not np.can_cast(x.dtype, dtype, casting):
        what = "scalar" if compile_time_kind(x.immutable) else "array data"
        raise UserCodeError(f"TypeError: Cannot cast {what} from {x.dtype!r} to {dtype!r} "
                            f"according to the rule '{casting}'")


@implements(np.astype)
def astype_function(x, dtype, /, *, copy=True, device=None):
    """np.astype (NumPy 2): the method, for arrays and NumPy scalars only."""
    if not isinstance(x, Array) or x.weak:
        raise UserCodeError(f"TypeError: Input should be a NumPy array or scalar. It is a "
                            f"{'Python number' if isinstance(x, Array) else type(x).__name__} "
                            "instead.")
    if device not in (None, "cpu"):
        raise UserCodeError(f"ValueError: Device not understood. Only \"cpu\" is allowed, but "
                            f"received: {device}")
    return astype_method(x, dtype, copy=copy)


# --- x.view(dtype) --------------------------------------------------------------
# The same bytes read as another dtype of the same size: a bitcast, and a view
# (writes through it reach x, cast back).  Between sizes NumPy changes the
# last axis, in the machine's byte order, which XLA leaves to the device.

register("bitcast", _astype_abstract,
         lambda lc, x, dtype: lax.bitcast_convert_type(x, np.dtype(dtype)),
         numpy=lambda x, dtype: x.view(dtype))


def view_method(x, dtype=None, type=None):
    """`x.view(np.int8)`: x's bytes as that dtype; `x.view()` and
    `x.view(np.ndarray)`: x itself, a view."""
    if isinstance(dtype, builtins.type) and issubclass(dtype, np.ndarray):
        dtype, type = None, dtype
    if type not in (None, np.ndarray):
        raise UnsupportedError(f"x.view({type.__name__}): compiled code has no ndarray "
                               "subclasses", hint="use x.view() or np.asarray(x)")
    target = x.dtype if dtype is None else np.dtype(dtype)
    if target.itemsize != x.dtype.itemsize or "b" in (target.kind, x.dtype.kind) \
            or "c" in (target.kind, x.dtype.kind) or target.kind not in "iuf":
        raise UnsupportedError(
            f"x.view({target}) of a {x.dtype} array is not supported: only a dtype of the same "
            "size, integer or float (not bool or complex), reinterprets the bytes in compiled "
            "code", hint="view as an integer of the same size and take its bytes apart with "
            "shifts and masks, e.g. uint16 from uint8 pairs: (a[..., 1::2].astype(np.uint16) "
            "<< 8) | a[..., ::2] (little-endian)")
    out = emit("bitcast", x, dtype=target)
    if x.immutable or x.weak:       # a NumPy scalar's view is a new scalar
        out.immutable = x.immutable
        return out
    return Array(out.var, base=x, index=indexing.Retyped((target.str,)))


METHODS["view"] = view_method


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
    from .masked import Selection

    def binary(ufname):
        # With y[mask] on the other side, Python asks the Selection instead.
        as_ints = ufname not in _BOOL_KEEPING

        def fwd(a, b):
            if isinstance(b, Selection):
                return NotImplemented
            if ufname == "multiply":
                _refuse_sequence_repeat(b, a)
            if as_ints and _python_bool(a) and _python_bool(b):
                a, b = _as_python_int(a), _as_python_int(b)
            _check_python_operands(ufname, a, b)
            if ufname == "power":
                fast = _fast_power(a, b)
                if fast:
                    return _checked_fast_power(fast, a)
                a = _python_int_power_base(a, b)
            return _spanned(python_ints.checked(_python_operator(ufname, a, b), ufname, a, b),
                            ufname, a, b)

        def rev(a, b):
            if isinstance(b, Selection):
                return NotImplemented
            if ufname == "multiply":
                _refuse_sequence_repeat(b, a)
            if as_ints and _python_bool(a) and _python_bool(b):
                a, b = _as_python_int(a), _as_python_int(b)
            _check_python_operands(ufname, b, a)
            if ufname == "power":
                b = _python_int_power_base(b, a)
            return _spanned(python_ints.checked(_python_operator(ufname, b, a), ufname, b, a),
                            ufname, a, b, reflected=True)
        return fwd, rev

    def unary(ufname):
        def op(a):
            a = _as_python_int(a) if _python_bool(a) else a
            result = python_ints.checked(emit(ufname, a), ufname, a)
            return held_ints.checked_operator(ufname, (a,), result)
        return op

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
        setattr(Array, f"__{stem}__", unary(ufname))


def _python_operator(ufname, a, b):
    """`a <op> b` of the Python operator: NumPy's ufunc, but for an int / int
    division, which Python rounds once from the exact quotient."""
    if ufname == "true_divide" and python_ints.is_python_int(a) and \
            python_ints.is_python_int(b):
        return python_ints.true_divide(a, b)
    if ufname == "power" and (_is_ndarray(a) or _is_ndarray(b)):
        result = power_ufunc(a, b)          # ndarray.__pow__ runs the ufunc
    else:
        result = emit_ufunc(ufname, a, b)
    if not _python_numbers(a, b):   # (Python's own arithmetic: errstate does not apply)
        float_errors.check(ufname, (a, b), result, scalar=_scalar_math(a, b))
    if ufname == "power":
        _check_python_power_overflow(a, b, result)
    return held_ints.checked_operator(ufname, (a, b), result)


def _python_numbers(*operands) -> bool:
    return all(not isinstance(x, Array) or x.weak for x in operands)


def _scalar_math(*operands) -> bool:
    """Whether NumPy computes an operator on these with its scalar math
    (NumPy scalars and Python numbers, no array): its floating-point
    errors then say "in scalar divide"."""
    return all(not isinstance(x, Array) or x.weak or
               (not x.shape and compile_time_kind(x.immutable) is True) for x in operands)


def _checked_fast_power(fast, a):
    """`x ** 2`, `x ** -1`, `x ** 0.5` of an array: the ufunc NumPy computes
    it with (_fast_power), whose name its floating-point errors give."""
    result = emit_ufunc(fast, a)
    float_errors.check(fast, (a,), result)
    return result


def _refuse_sequence_repeat(seq, count) -> None:
    """`seq * count` of a list, tuple or str and a runtime scalar: Python
    repeats the sequence when the count is an int (a Python int or a NumPy
    integer scalar, which defer to the sequence), whose length would then
    depend on a runtime value, and raises TypeError for a float.  (An
    ndarray count takes the sequence as an array: elementwise.)"""
    if not isinstance(seq, (list, tuple, str, bytes)) or count.ndim or not (
            count.weak or compile_time_kind(count.immutable)):
        return
    if count.dtype.kind not in ("biu" if count.weak else "iu"):     # (np.bool_ has no __index__)
        name = _py_type_name(count)
        raise UserCodeError(f"TypeError: can't multiply sequence by non-int of type '{name}'")
    raise StaticValueError(
        f"repeating a {type(seq).__name__} a runtime number of times: the length of the "
        "result would depend on a runtime value", hint="repeat it a static number of times, "
        "or make an array of it and use np.tile(np.array(seq), n) with a static n")


def _py_type_name(x) -> str:
    """The type(x).__name__ Python shows for a runtime scalar: 'float' for a
    Python number, 'numpy.float64' for a NumPy scalar."""
    if not isinstance(x, Array):
        return type(x).__name__
    if x.weak:
        return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[x.dtype.kind]
    return f"numpy.{x.dtype.type.__name__}"


def _zero_division_message(op, zero) -> str:
    """What this Python says dividing by zero (it words it per version)."""
    try:
        op(1, zero)
    except ZeroDivisionError as e:
        return str(e)
    raise AssertionError("no ZeroDivisionError")


# Python numbers divided by a runtime zero raise ZeroDivisionError (NumPy's
# scalars and arrays give inf or 0 instead): ufunc -> (message for ints,
# message for floats), Python's own.
_PYTHON_DIVISIONS = {
    ufname: (_zero_division_message(op, 0), _zero_division_message(op, 0.0))
    for ufname, op in (("true_divide", operator.truediv), ("floor_divide", operator.floordiv),
                       ("remainder", operator.mod))}


def _check_python_operands(ufname, left, right) -> None:
    """Python's own errors of `left <op> right` on two Python numbers, one
    known only at run time (a promoted counter, int() of an array, a runtime
    range's index), where NumPy's scalars and arrays give inf, 0 or NaN:
    raised now where a static operand decides them, else checked in the
    executable (raised when the call returns)."""
    if ufname in _ORDERINGS and (_is_python_complex(left) and _is_python_scalar(right) or
                                 _is_python_complex(right) and _is_python_scalar(left)):
        raise UserCodeError(f"TypeError: '{_ORDERINGS[ufname]}' not supported between "
                            f"instances of '{_py_type_name(left)}' and '{_py_type_name(right)}'")
    if _held_python_number(left) or _held_python_number(right):
        _check_held_python_operands(ufname, left, right)
        return
    if _is_python_complex(left) and _is_python_scalar(right) or \
            _is_python_complex(right) and _is_python_scalar(left):
        _check_python_complex_operands(ufname, left, right)
        return
    if not (_is_python_number(left) and _is_python_number(right)):
        return
    if ufname in _PYTHON_DIVISIONS:
        _check_python_division(ufname, left, right)
    elif ufname in ("left_shift", "right_shift"):
        _check_python_shift(left, right)
    elif ufname == "power" and not (_python_int(left) and _python_int(right)):
        _check_python_float_power(left, right)    # (ints: _python_int_power_base)
        _check_python_real_power(left, right)


def _held_python_number(x) -> bool:
    """A Python number on some runtime paths, a NumPy scalar on others (held_ints;
    not a Python int that is a bool on some paths: a Python number on all)."""
    return isinstance(x, Array) and x.held_int is not None and not x.weak


def _check_held_python_operands(ufname, left, right) -> None:
    """Python's errors of `left <op> right` where an operand is a Python
    number on some runtime paths only (`total = 0.0`, then `total += v` of
    a NumPy v under a runtime `if`): checked on the paths where every
    operand is a Python number (`total / n` raises ZeroDivisionError
    there), not where one is a NumPy scalar, which gives inf, 0 or NaN."""
    operands = (left, right)
    if not all(_held_python_number(x) or _is_python_number(x) for x in operands):
        return
    paths = [Array(x.held_int) for x in operands if _held_python_number(x)]
    on_python_path = paths[0] if len(paths) == 1 else emit("logical_and", *paths)
    from ..infer import checks
    python = [held_ints.as_python_number(x) if _held_python_number(x) else x for x in operands]
    with checks.only_where(on_python_path):
        _check_python_operands(ufname, *python)
        if ufname == "power" and all(map(_python_int, python)):
            # (0 ** -1 of two Python ints raises too: _python_int_power_base
            # checks it for ints on every path)
            _check_python_float_power(*python)


def _check_python_division(ufname, num, den) -> None:
    """`num / den` (or // or %): ZeroDivisionError when `den` is 0."""
    floats = any(isinstance(x, float) or isinstance(x, Array) and x.dtype.kind == "f"
                 for x in (num, den))
    _python_raises_unless(emit("not_equal", den, 0) if isinstance(den, Array) else den != 0,
                          _PYTHON_DIVISIONS[ufname][floats], "ZeroDivisionError")


def _check_python_shift(value, count) -> None:
    """`value << count` (or >>) of Python ints: ValueError for a negative
    count (NumPy's integer shifts give 0 or -1 instead)."""
    _python_raises_unless(emit("greater_equal", count, 0) if isinstance(count, Array)
                          else count >= 0, "negative shift count", "ValueError")


def _check_python_float_power(base, exponent) -> None:
    """`base ** exponent` of Python numbers, one a float (or ints, one held
    on some paths only): 0 to a negative power raises ZeroDivisionError (a
    NaN exponent gives NaN)."""
    if not isinstance(base, Array) and base != 0 or \
            not isinstance(exponent, Array) and not exponent < 0:
        return
    # What is left to know at run time (a static operand here is 0 / negative)
    ok = [emit("not_equal", base, 0)] if isinstance(base, Array) else []
    if isinstance(exponent, Array):
        ok.append(emit("logical_not", emit("less", exponent, 0)))
    _python_raises_unless(ok[0] if len(ok) == 1 else emit("logical_or", *ok),
                          _ZERO_POWER_MESSAGE, "ZeroDivisionError")


def _check_python_real_power(base, exponent) -> None:
    """`base ** exponent` of real Python numbers: a negative base to a
    finite fractional power is a complex number in Python ((-8.0) ** 0.5),
    where NumPy's floats give NaN.  Compiled code computes a float, so the
    call raises instead of returning NaN or a value of another type."""
    if any(isinstance(x, complex) or isinstance(x, Array) and x.dtype.kind == "c"
           for x in (base, exponent)):
        return
    if not isinstance(base, Array) and not base < 0 or not isinstance(exponent, Array) and (
            not np.isfinite(exponent) or float(exponent).is_integer()):
        return
    ok = []
    if isinstance(base, Array):
        ok.append(emit("logical_not", emit("less", base, 0)))
    if isinstance(exponent, Array):
        ok.append(emit("equal", emit("floor", exponent), exponent))
        ok.append(emit("logical_not", emit("isfinite", exponent)))
    while len(ok) > 1:
        ok[-2:] = [emit("logical_or", ok[-2], ok[-1])]
    _python_raises_unless(ok[0], "a negative number to a fractional power is a complex "
                          "number in Python, which compiled code computes as a float",
                          "ValueError")


def _check_python_complex_operands(ufname, left, right) -> None:
    """`left <op> right` of Python numbers, one a complex: CPython's complex
    division by zero and 0j to a negative or complex power raise
    ZeroDivisionError (its c_quot and c_pow set EDOM), where NumPy's
    complex numbers give inf or NaN."""
    if ufname == "true_divide":
        _python_raises_unless(_nonzero(right), _COMPLEX_DIVISION_MESSAGE, "ZeroDivisionError")
    elif ufname == "power":
        real, imag = _complex_parts(right)
        positive_real = not real < 0 if not isinstance(real, Array) else \
            emit("logical_not", emit("less", real, 0))
        real_exponent = imag == 0 if not isinstance(imag, Array) else emit("equal", imag, 0)
        _python_raises_unless(_any_true(_nonzero(left), _all_true(real_exponent, positive_real)),
                              _COMPLEX_ZERO_POWER_MESSAGE, "ZeroDivisionError")


def _nonzero(x):
    return emit("not_equal", x, 0) if isinstance(x, Array) else x != 0


def _complex_parts(x) -> tuple:
    """(x.real, x.imag) of a Python number, static or a runtime Array."""
    if not isinstance(x, Array):
        return complex(x).real, complex(x).imag
    if x.dtype.kind != "c":
        return x, 0
    return emit("real", x), emit("imag", x)


def _any_true(a, b):
    """a or b, each a static bool or a runtime one."""
    if not isinstance(a, Array) or not isinstance(b, Array):
        static, other = (a, b) if not isinstance(a, Array) else (b, a)
        return True if static else other
    return emit("logical_or", a, b)


def _all_true(a, b):
    """a and b, each a static bool or a runtime one."""
    if not isinstance(a, Array) or not isinstance(b, Array):
        static, other = (a, b) if not isinstance(a, Array) else (b, a)
        return other if static else False
    return emit("logical_and", a, b)


def _check_python_power_overflow(base, exponent, result) -> None:
    """`base ** exponent` of Python numbers, a float or a complex among
    them: CPython raises OverflowError where finite operands give an
    infinite result (float_pow's and complex_pow's ERANGE), where NumPy's
    scalars and arrays give inf.  (Ints overflow as python_ints checks;
    infinite or NaN operands give what they give, with no error.)"""
    if not (_is_python_scalar(base) and _is_python_scalar(exponent)) or \
            not isinstance(result, Array) or result.dtype.kind not in "fc":
        return
    if any(not isinstance(x, Array) and not np.isfinite(x) for x in (base, exponent)):
        return
    complex_power = result.dtype.kind == "c"
    finite_result = emit("isfinite", result) if complex_power else \
        emit("logical_not", emit("isinf", result))
    infinite_operands = [emit("logical_not", emit("isfinite", x))
                         for x in (base, exponent) if isinstance(x, Array)]
    ok = finite_result
    for infinite in infinite_operands:
        ok = emit("logical_or", ok, infinite)
    from ..infer import checks
    checks.require(ok, _COMPLEX_POWER_OVERFLOW if complex_power else _FLOAT_POWER_OVERFLOW,
                   raises="OverflowError")


def _python_raises_unless(ok, message: str, error: str) -> None:
    """Python raises error(message) unless `ok`: a runtime bool (checked in
    the executable) or a static one, a static operand deciding it: then the
    error is raised now, at the line, or, inside a runtime `if` or loop
    (which eagerly may not get here), checked as a runtime False."""
    from ..infer import builder, checks
    if ok is True:
        return
    if not isinstance(ok, Array) and builder.ctx().runtime_depth == 0 and \
            not checks.on_some_paths():
        raise UserCodeError(f"{error}: {message}")
    if not isinstance(ok, Array):
        ok = Array(const_value(np.bool_(False)))
    checks.require(ok, message, raises=error)


def _python_int(x) -> bool:
    return type(x) is int or isinstance(x, Array) and x.weak and x.shape == () and \
        x.dtype.kind in "iu"


def _fast_power(base, exponent) -> str | None:
    """The ufunc NumPy's ndarray.__pow__ computes `x ** e` with for a Python
    int or float e of -1, 2 or 0.5 (its fast_scalar_power): np.square(x) for
    any x (a bool x gives int8, np.power int64); np.reciprocal(x) and
    np.sqrt(x) for float and complex x (complex 1.5 ** -1 is 0.667-0j,
    sqrt(-0.0) is -0.0).  NumPy scalars use np.power."""
    if not (isinstance(base, Array) and base.immutable is False and not base.weak) or \
            type(exponent) not in (int, float):
        return None
    if type(exponent) is int and exponent == 2:
        return "square"
    if base.dtype.kind not in "fc":
        return None
    if type(exponent) is int and exponent == -1:
        return "reciprocal"
    return "sqrt" if type(exponent) is float and exponent == 0.5 else None


# NumPy's float32 and float64 power loops (not float16's, longdouble's or
# complex's) compute a scalar exponent of -1, 0.5 or 2 with 1 / x, sqrt(x)
# or x * x instead of pow: np.power(-0.0, 0.5) is -0.0 and np.power(-inf,
# 0.5) NaN, where pow gives +0.0 and inf.
_POWER_LOOP_SHORTCUTS = {-1.0: "reciprocal", 0.5: "sqrt", 2.0: "square"}


def power_ufunc(base, exponent):
    """np.power(base, exponent): the ufunc, as np.power and the ** of an
    ndarray (where __pow__ did not take its own shortcut, _fast_power) run
    it.  (A NumPy scalar's or a Python number's ** is pow, shortcut-free.)"""
    dtype = _power_shortcut_dtype(base, exponent)
    if dtype is None:
        return emit_ufunc("power", base, exponent)
    if isinstance(exponent, Array):     # a scalar known at run time: sqrt where it is 0.5
        root = emit_ufunc("equal", exponent, 0.5)       # (the others differ in rounding only)
        chosen = emit("select", root, emit_ufunc("sqrt", astype(base, dtype, copy=False)),
                      emit_ufunc("power", base, exponent))
        chosen.immutable = not chosen.shape     # a ufunc's 0-d result is a NumPy scalar
        return chosen
    name = _POWER_LOOP_SHORTCUTS.get(float(exponent))
    if name is None:
        return emit_ufunc("power", base, exponent)
    return emit_ufunc(name, astype(base, dtype, copy=False))


def _power_shortcut_dtype(base, exponent):
    """The loop's dtype where NumPy's power loop may take a shortcut: a real
    scalar exponent (a stride-0 operand) and a float32 or float64 loop."""
    if isinstance(exponent, (bool, np.bool_)) or np.ndim(exponent) != 0 or not isinstance(
            exponent, (Array, int, float, np.integer, np.floating, np.ndarray)):
        return None
    try:
        loop = ufunc_loop(np.power, loop_keys([_operand_aval(x) for x in (base, exponent)]))
    except TypeError:
        return None
    if loop[-1] not in (np.dtype(np.float32), np.dtype(np.float64)) or \
            isinstance(exponent, Array) and exponent.dtype.kind not in "iuf":
        return None
    return loop[-1]


def _is_ndarray(x) -> bool:
    """A runtime ndarray, not a NumPy scalar nor a Python number."""
    return isinstance(x, Array) and x.immutable is False and not x.weak


def _python_int_power_base(base, exponent):
    """`base ** exponent` of two Python ints, one known only at run time:
    Python gives a float for a negative exponent (2 ** -1 == 0.5) where
    NumPy's integer power refuses, so the base becomes a Python float then
    (and 0 to a negative power raises ZeroDivisionError, as Python's does).
    Whether a runtime exponent is negative is known only at run time, and
    with it the result's type: refused."""
    if not (_python_int(base) and _python_int(exponent)) or not (
            isinstance(base, Array) or isinstance(exponent, Array)):
        return base
    if isinstance(exponent, Array) and (int_bounds(exponent) or (-1, 0))[0] >= 0:
        return base     # (never negative: a range's counter, `2 ** k`)
    if isinstance(exponent, Array):
        raise StaticValueError(
            "a Python int to the power of a runtime Python int is an int or a float, "
            "depending on the exponent's sign (known only at run time)",
            # (not a ** abs(b): a Python int held in 64 bits has abs(-2**63) < 0)
            hint="write float(a) ** b for a float, or np.int64(a) ** b for an int "
                 "(NumPy's integer power: a negative b raises ValueError at run time)")
    if exponent >= 0:
        return base
    from ..infer import checks
    checks.require(emit("not_equal", base, 0), _ZERO_POWER_MESSAGE, raises="ZeroDivisionError")
    (v,) = emit_op("convert", (base.var,), {"dtype": np.dtype(np.float64)},
                   (AVal(np.dtype(np.float64), (), True),))
    return Array(v)


def _zero_power_message() -> str:
    try:
        operator.pow(0, -1)
    except ZeroDivisionError as e:
        return str(e)
    raise AssertionError("no ZeroDivisionError")


_ZERO_POWER_MESSAGE = _zero_power_message()


def _python_error_message(compute, error) -> str:
    """What this Python says raising `error` from `compute()` (it words
    some per version)."""
    try:
        compute()
    except error as e:
        return str(e)
    raise AssertionError(f"no {error.__name__}")


_COMPLEX_DIVISION_MESSAGE = _python_error_message(lambda: 1j / 0j, ZeroDivisionError)
_COMPLEX_ZERO_POWER_MESSAGE = _python_error_message(lambda: 0j ** -1, ZeroDivisionError)
_FLOAT_POWER_OVERFLOW = _python_error_message(lambda: 10.0 ** 400, OverflowError)
_COMPLEX_POWER_OVERFLOW = _python_error_message(lambda: 10j ** 400, OverflowError)


# Python orders no complex numbers (NumPy's complex arrays and scalars it
# orders lexicographically).
_ORDERINGS = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">="}


def _is_python_complex(x) -> bool:
    """A Python complex, known now or at run time (a weak complex scalar)."""
    if isinstance(x, Array):
        return x.weak and x.shape == () and x.dtype.kind == "c"
    return type(x) is complex


def _is_python_scalar(x) -> bool:
    return _is_python_number(x) or _is_python_complex(x)


def _is_python_number(x) -> bool:
    """A Python int, float or bool, known now or at run time (a weak scalar)."""
    if isinstance(x, Array):
        return x.weak and x.shape == () and x.dtype.kind in "biuf"
    return type(x) in (int, float, bool)


# A runtime Python bool (a weak bool: a promoted flag, a runtime_args bool)
# follows Python's rules in operators (registry.PYTHON_BOOL_KEEPING).
_BOOL_KEEPING = PYTHON_BOOL_KEEPING


def _python_bool(x) -> bool:
    return type(x) is bool or isinstance(x, Array) and x.weak and x.dtype == np.bool_


def _as_python_int(x):
    """A Python bool, static or runtime, as the Python int it is."""
    if type(x) is bool:
        return int(x)
    (v,) = emit_op("convert", (x.var,), {"dtype": np.dtype(np.int64)},
                   (AVal(np.dtype(np.int64), x.shape, True),))
    return Array(v)


def _spanned(result, ufname, a, b, reflected=False):
    """`result` of `a + b`, `a - b` or `a * b` (`b - a`... when reflected),
    an Array `a` and a Python int `b`, with what is known of a (values.Span)
    carried over: the counter of a counted loop times and plus constants
    (the batch bounds b * bs and (b + 1) * bs)."""
    span = getattr(a, "span", None)
    if span is not None and ufname in _EXACT_INT_UFUNCS and not reflected:
        guarded_ranges.note_test(result, ufname, a, b)     # (`if i < T:` bounds i inside)
    if span is None or type(b) is not int or not isinstance(result, Array) \
            or result.dtype.kind not in "iu":
        return result
    if ufname == "add":
        result.span = span.shifted(b)
    elif ufname == "subtract":
        result.span = span.scaled(-1).shifted(b) if reflected else span.shifted(-b)
    elif ufname == "multiply" and b != 0:
        result.span = span.scaled(b)
    if result.span is not None and not result.span.fits(result.dtype):
        result.span = None          # the values wrapped around
    return result


def _inplace(ufname):
    """`a += b`: NumPy computes into `a`, casting with the 'same_kind' rule."""
    def iop(a, b):
        if rebinds_in_place(a):
            # scalars and jax arrays are immutable: `x += 1` rebinds
            if ufname == "multiply":
                _refuse_sequence_repeat(b, a)       # n *= [0]
            _check_python_operands(ufname, a, b)
            result = python_ints.checked(_python_operator(ufname, a, b), ufname, a, b)
            return _kept_runtime_kind(a, _spanned(result, ufname, a, b))
        fast = _fast_power(a, b) if ufname == "power" else None
        if fast:
            result = _checked_fast_power(fast, a)
        else:
            result = power_ufunc(a, b) if ufname == "power" else emit_ufunc(ufname, a, b)
            float_errors.check(ufname, (a, b), result)
        return store_inplace(a, result, ufname)
    return iop


def _kept_runtime_kind(a, result):
    """`v += 1` on a 0-d value whose kind a runtime branch decided: a NumPy
    scalar gives a new scalar, a 0-d array is updated in place and stays
    one, so the result has v's kind, where both paths give v's dtype."""
    if isinstance(a, Array) and isinstance(a.immutable, RuntimeKind) \
            and isinstance(result, Array) and not result.shape and result.dtype == a.dtype:
        result.immutable = a.immutable
    return result


def store_inplace(a, result, ufname, casting="same_kind"):
    """Writes `result` into the array `a` as NumPy's in-place operators do:
    'same_kind' casting (or the `casting` rule a ufunc's out= was given)
    into a's dtype, and no change of a's shape."""
    if result.dtype != a.dtype:
        check_output_cast(result.dtype, a.dtype, ufname, casting)
        result = emit("convert", result, dtype=a.dtype)
    if result.shape != a.shape:
        raise ShapeError(f"non-broadcastable output operand with shape {a.shape} doesn't "
                         f"match the broadcast shape {result.shape} (in-place operation)")
    a.set(result.var)
    return a


def check_output_cast(result_dtype, out_dtype, ufname, casting="same_kind"):
    """NumPy's error for a ufunc's output that `casting` (for an in-place
    operator 'same_kind') cannot write into an array of `out_dtype` (an
    in-place operator, out=)."""
    if not np.can_cast(result_dtype, out_dtype, casting=casting):
        shown = getattr(getattr(np, ufname, None), "__name__", ufname)    # true_divide: 'divide'
        raise DTypeError(
            f"Cannot cast ufunc '{shown}' output from {result_dtype} to {out_dtype} "
            f"with casting rule '{casting}' (in-place operation)",
            hint=(f"write `a = a {_SYMBOL[ufname]} b`" if ufname in _SYMBOL else
                  f"assign the result instead (`a = np.{ufname}(...)`)")
            + f" to get a new {result_dtype} array; or, to store it converted as .astype "
            f"does, `np.{ufname}(..., out=a, casting='unsafe')`")


_SYMBOL = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/", "divide": "/",
           "power": "**", "floor_divide": "//", "remainder": "%"}

PY_BINARY = {  # BINARY_OP names -> Python operator functions
    "ADD": operator.add, "SUBTRACT": operator.sub, "MULTIPLY": operator.mul,
    "TRUE_DIVIDE": operator.truediv, "FLOOR_DIVIDE": operator.floordiv,
    "REMAINDER": lambda a, b: _mod(operator.mod, a, b), "POWER": operator.pow, "AND": operator.and_,
    "OR": operator.or_, "XOR": operator.xor, "LSHIFT": operator.lshift,
    "RSHIFT": operator.rshift, "MATRIX_MULTIPLY": operator.matmul,
}
PY_INPLACE = {
    "INPLACE_ADD": operator.iadd, "INPLACE_SUBTRACT": operator.isub,
    "INPLACE_MULTIPLY": operator.imul, "INPLACE_TRUE_DIVIDE": operator.itruediv,
    "INPLACE_FLOOR_DIVIDE": operator.ifloordiv,
    "INPLACE_REMAINDER": lambda a, b: _mod(operator.imod, a, b),
    "INPLACE_POWER": operator.ipow, "INPLACE_AND": operator.iand, "INPLACE_OR": operator.ior,
    "INPLACE_XOR": operator.ixor, "INPLACE_LSHIFT": operator.ilshift,
    "INPLACE_RSHIFT": operator.irshift, "INPLACE_MATRIX_MULTIPLY": operator.imatmul,
}


def _mod(op, a, b):
    """`a % b`; for a string `a` that is printf-style formatting, which would
    format tpucc's Array box instead of the value."""
    if isinstance(a, (str, bytes)):
        from ..infer.builtins_impl import refuse_runtime_text
        refuse_runtime_text((b,))
    return op(a, b)


PY_COMPARE = {"LT": operator.lt, "LE": operator.le, "GT": operator.gt, "GE": operator.ge,
              "EQ": operator.eq, "NE": operator.ne}


# --- round / copy ----------------------------------------------------------------------

def _round_abstract(avals, decimals, weak_result=False):
    """np.round of a Python number is a NumPy scalar (np.round(3) is
    np.int64(3)): strong.  The builtin round keeps Python numbers Python
    (weak_result=True)."""
    (a,) = avals
    if a.dtype == np.bool_:     # NumPy rounds booleans through rint's float16 loop
        if decimals != 0:
            raise DTypeError(f"np.round of a bool array with decimals={decimals}: NumPy has "
                             "no loop for it", hint="cast to a float dtype first")
        return AVal(np.dtype(np.float16), a.shape, False)
    return AVal(a.dtype, a.shape, weak_result and a.weak)


def _round_lower(lc, x, decimals, weak_result=False):
    out = lc.out_avals[0].dtype
    x = lax.convert_element_type(x, out)
    if out.kind == "c":
        part = np.empty(0, out).real.dtype
        return lax.complex(_round_float(lax.real(x), decimals, part),
                           _round_float(lax.imag(x), decimals, part))
    if out.kind == "f":
        return _round_float(x, decimals, out)
    if decimals >= 0:
        return x
    # NumPy rounds integers to tens, hundreds, ... as rint(x / 10**-d) * 10**-d in float64
    return float_to_int(
        _round_float(lax.convert_element_type(x, np.float64), decimals, np.dtype(np.float64)), out)


def _power_of_ten(n: int) -> float:
    """10**n as NumPy's round computes it: exact to 1e8, then 1e9 times ten
    n - 9 times, each product rounded (above 1e22 it differs from 10.0**n,
    and so do the rounded values)."""
    if n < 9:
        return float(10 ** n)
    power = 1e9
    for _ in range(n - 9):
        power *= 10.0
    return power


def _round_float(x, decimals, dtype):
    """NumPy's np.round: rint(x * 10**d) / 10**d, or rint(x / 10**-d) *
    10**-d for d < 0, each step one ufunc in x's dtype (float16 computed in
    float32 and rounded back, as NumPy's float16 loops), the factor a weak
    Python float (inf where the dtype overflows, as in NumPy).  jnp.round
    scales by 10**d in both cases, which rounds some halves differently."""
    even = lambda v: lax.round(v, lax.RoundingMethod.TO_NEAREST_EVEN)   # noqa: E731
    if decimals == 0:
        return even(x)
    compute = _compute_dtype(dtype)
    with np.errstate(over="ignore"):
        factor = np.asarray(np.asarray(_power_of_ten(abs(decimals)), dtype), compute)

    def step(op, v):
        return cast(op(cast(v, compute), factor), dtype)
    scale, unscale = (lax.mul, divide) if decimals > 0 else (divide, lax.mul)
    return step(unscale, even(step(scale, x)))


register("round", _round_abstract, _round_lower,
         numpy=lambda x, decimals, weak_result=False: np.round(x, decimals))
define_vjp("round", lambda lc, operands, perms, out, ct, decimals, weak_result=False:
           (None,))   # flat: zero


def round_(a, decimals=0, out=None):
    if isinstance(decimals, Array):
        raise runtime_digits("np.round's decimals")
    if isinstance(a, Array):
        a = held_ints.numpy_array_of(a)     # (np.round(0.5, 1) is an np.float64)
    return emit("round", a, decimals=static_index(decimals))


def runtime_digits(what: str) -> StaticValueError:
    """The refusal of a number of decimals known only at run time (np.round's
    `decimals`, round()'s `ndigits`): the ops take it as a static parameter.
    Scaling by a runtime power of ten rounds as np.round does."""
    return StaticValueError(
        f"{what} must be known at compile time; here it is a runtime value",
        hint="pass a Python int (a literal, or computed from shapes); for a number of digits "
             "known only at run time, scale instead: np.rint(v * 10.0 ** n) / 10.0 ** n")


# --- Python's round(x, ndigits) of a float ------------------------------------------------

def _python_round_lower(lc, x, ndigits):
    """CPython's round(x, n) for 0 <= n <= 22: x's exact value rounded half
    to even at n decimals, then the double nearest that decimal.  NumPy's
    rint(x * 10**n) / 10**n rounds the product first (2.675 * 100 is
    267.5, so round(2.675, 2) would be 2.68; 2.675 is 2.67499999...).
    Here the product's rounding error comes exactly from Dekker's two-
    product, and decides the ties that rounding made.  The products whose
    rounding matters are kept apart from the subtractions after them
    (_rounded_mul): XLA:CPU would fuse them into one FMA."""
    scale = 10.0 ** ndigits                             # exact up to 1e22
    p = _rounded_mul(x, scale)
    x_hi, x_lo = _split(x)
    s_hi, s_lo = _split_constant(scale)
    # x * scale == p + error exactly; every product here is exact.
    error = lax.add(lax.add(lax.add(lax.sub(lax.mul(x_hi, _c(s_hi, x)), p),
                                    lax.mul(x_hi, _c(s_lo, x))),
                            lax.mul(x_lo, _c(s_hi, x))),
                    lax.mul(x_lo, _c(s_lo, x)))
    k = lax.round(p, lax.RoundingMethod.TO_NEAREST_EVEN)
    half = lax.sub(p, k)                                # exact: |p - k| <= 0.5
    zero, one, point5 = _c(0.0, x), _c(1.0, x), _c(0.5, x)
    k = lax.select(lax.bitwise_and(lax.eq(half, point5), lax.gt(error, zero)),
                   lax.add(k, one), k)
    k = lax.select(lax.bitwise_and(lax.eq(half, lax.neg(point5)), lax.lt(error, zero)),
                   lax.sub(k, one), k)
    # 2**52 <= |p| < 2**53: p is whole and the error may be a tie itself.
    odd = lax.ne(lax.rem(k, _c(2.0, x)), zero)
    k = lax.select(lax.bitwise_and(lax.eq(lax.abs(error), point5), odd),
                   lax.add(k, lax.sign(error)), k)
    # Not finite, or |x * 10**n| >= 2**53: the decimal is closer to x than
    # a quarter of its ulp, so x is the double nearest it.
    whole = lax.bitwise_not(lax.lt(lax.abs(p), _c(2.0 ** 53, x)))
    # (a divisor XLA sees as a constant becomes a product with its reciprocal)
    divisor = _kept_apart(x, lambda: _c(scale, x))
    return lax.select(whole, x, lax.div(k, divisor))


def _c(value, like):
    return lax.full((), value, like.dtype)


def _rounded_mul(x, c: float):
    """x * c rounded to a double before anything adds to it."""
    return _kept_apart(x, lambda: lax.mul(x, _c(c, x)))


def _kept_apart(x, make):
    """make() as a value XLA can neither fold into the ops that use it (a
    constant) nor fuse with them (a product into an FMA): a conditional on a
    runtime predicate about the 0-d x, both branches make()."""
    return lax.cond(lax.eq(x, x), make, make)


def _split(a):
    """Veltkamp's split of a double into two 26-bit halves, a == hi + lo."""
    c = _rounded_mul(a, 134217729.0)                    # 2**27 + 1
    hi = lax.sub(c, lax.sub(c, a))
    return hi, lax.sub(a, hi)


def _split_constant(value: float) -> tuple:
    c = value * 134217729.0
    hi = c - (c - value)
    return hi, value - hi


register("python_round", lambda avals, ndigits: avals[0], _python_round_lower,
         numpy=lambda x, ndigits: np.asarray(round(float(x), ndigits), x.dtype))


# --- complex parts --------------------------------------------------------------

def _part_abstract(avals):
    (x,) = avals
    return AVal(np.empty(0, x.dtype).real.dtype, x.shape, x.weak)


register("real", _part_abstract, lambda lc, x: lax.real(x), numpy=np.real)
register("imag", _part_abstract, lambda lc, x: lax.imag(x), numpy=np.imag)


def _complex_numpy(re, im):
    out = np.empty(np.shape(re), np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im         # (re + 1j * im would turn an inf part into NaN)
    return out


# math.erf of a runtime float (NumPy has no erf).  XLA's float64 erf gave
# CPython's bits on 30000 arguments (session 29); its erfc and lgamma were
# up to hundreds of ulps off there, so math.erfc and math.lgamma stay refused.
register("erf", lambda avals: avals[0], lambda lc, x: lax.erf(x),
         numpy=np.vectorize(math.erf, otypes=[np.float64]))


# The complex array with these parts: what a write into x.real or x.imag makes of x.
register("complex", lambda avals: AVal(np.result_type(avals[0].dtype, np.complex64),
                                       avals[0].shape, False),
         lambda lc, re, im: lax.complex(re, im), numpy=_complex_numpy)


# np.real(v) and np.imag(v) are v.real and v.imag, so each gives what the
# attribute of v's own type gives: a NumPy scalar's part is a NumPy scalar,
# a 0-d array's a 0-d array, and a Python number's Python's.


def real(val):
    """The real part: the array itself for a real one (NumPy's view of it);
    of a complex array, a view (writes into it change the array)."""
    x = val if isinstance(val, Array) else Array(to_value(val))
    if x.weak and x.dtype.kind != "c":
        return pynumbers.part(x, "real")        # (True.real is the int 1)
    return _part_view(x, "real") if x.dtype.kind == "c" else x


def imag(val):
    """The imaginary part: a view of a complex array; zeros of the dtype
    for a real array, of its kind (a NumPy scalar's is a NumPy scalar)."""
    x = val if isinstance(val, Array) else Array(to_value(val))
    if x.dtype.kind == "c":
        return _part_view(x, "imag")
    if x.weak:
        return pynumbers.part(x, "imag")        # a static 0 (0.0 for a float)
    zeros = emit("full", shape=x.shape, dtype=x.dtype, value=0)     # +0, never -0
    zeros.immutable = x.immutable       # (a kind decided at run time stays that one)
    return zeros


def _part_view(x, part):
    out = emit(part, x)
    if x.immutable or x.weak:       # a NumPy scalar's part is a new scalar
        return out
    return Array(out.var, base=x, index=indexing.ComplexPart((part,)))


def angle(z, deg=False):
    # (NumPy's asanyarray(z) first: np.angle(2.5) is np.float64(0.0), not 0.0)
    z = NUMPY[np.asanyarray](z)
    # NumPy's own: arctan2 of a Python 0 for a real z (bool z gives float64).
    out = emit_ufunc("arctan2", imag(z) if z.dtype.kind == "c" else 0, real(z))
    return emit_ufunc("multiply", out, 180 / np.pi) if deg else out


NUMPY.update({np.real: real, np.imag: imag, np.angle: angle})


def copy(a, order="K"):
    out = Array(to_value(a))
    order = _memory_order(order)
    return in_f_order(out) if order == "F" else kept_layout(out, (a,)) if order == "K" else out


def in_f_order(a: Array) -> Array:
    """A new array's values laid out in Fortran order, as a transposed view
    of a C-contiguous array: its layout then answers as NumPy's does
    (ravel('K') reads it in F order, a reshape views it where NumPy's
    would); XLA folds the two transposes away."""
    if a.ndim < 2:
        return a
    return transpose(emit("transpose", a, perm=tuple(reversed(range(a.ndim)))))


def _memory_order(order) -> str:
    """NumPy's order= of a new array, upper case; None is 'K'."""
    order = "K" if order is None else order.upper() if isinstance(order, str) else order
    if order not in ("K", "A", "C", "F"):
        raise UserCodeError(f"ValueError: order must be one of 'C', 'F', 'A', or 'K' "
                            f"(got {order!r})")
    return order


NUMPY[np.round] = NUMPY[np.around] = METHODS["round"] = round_
NUMPY[np.copy] = copy


def copy_method(a, order="C"):
    """a.copy(): its order is 'C' (np.copy's is 'K'): an F-ordered array's
    copy is C-ordered."""
    return copy(a, order)


METHODS["copy"] = copy_method


# --- np.array / np.asarray ----------------------------------------------------------

def array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    """np.array: a new array; nested lists and tuples of arrays and numbers are
    stacked, with the dtype NumPy gives them."""
    return _to_array("np.array", obj, dtype, copy, order, ndmin, like)


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """np.asarray: the array itself when no conversion is needed (no copy)."""
    return _to_array("np.asarray", a, dtype, copy, order, 0, like)


def ascontiguousarray(a, dtype=None, *, like=None):
    return _to_array("np.ascontiguousarray", a, dtype, None, "C", 1, like)


def asfortranarray(a, dtype=None, *, like=None):
    return _to_array("np.asfortranarray", a, dtype, None, "F", 1, like)


def _copy_mode(copy):
    """NumPy's copy= as True (always), None (if needed) or False (never): it
    also takes np._CopyMode's members (SciPy passes IF_NEEDED) and any other
    object by its truth, but no string."""
    if copy is None or isinstance(copy, bool):
        return copy
    if isinstance(copy, np._CopyMode):
        return {np._CopyMode.ALWAYS: True, np._CopyMode.IF_NEEDED: None,
                np._CopyMode.NEVER: False}[copy]
    if isinstance(copy, str):
        raise UserCodeError("ValueError: strings are not allowed for 'copy' keyword. Use "
                            "True/False/None instead.")
    if isinstance(copy, Array):
        raise StaticValueError("copy= of a runtime value: whether np.array copies must be "
                               "known at compile time", hint="pass True, False or None")
    return bool(copy)


def _to_array(name, obj, dtype, copy, order, ndmin, like):
    if like is not None:
        raise UnsupportedError(f"{name}: like= is not supported",
                               hint="drop like= (compiled code's arrays are NumPy's)")
    order = _memory_order(order)
    copy = _copy_mode(copy)
    dtype = None if dtype is None else np.dtype(dtype)
    if isinstance(obj, Array) and dtype is None:
        obj = held_ints.numpy_array_of(obj)     # (a Python number on some paths: its dtype)
    if isinstance(obj, Array):
        # not `dtype in (None, obj.dtype)`: np.dtype("float64") == None is True
        same_dtype = dtype is None or dtype == obj.dtype
        # order="C" of a view that is not C-contiguous (a.T, a[:, ::2], the
        # zero strides of np.broadcast_to's read-only view): a copy
        laid_out = order not in ("C", "F") or obj.frozen != READ_ONLY and (
            indexing.is_c_contiguous(obj) if order == "C" else indexing.is_f_contiguous(obj))
        if not (copy or obj.weak or obj.immutable) and same_dtype and laid_out:
            out = obj       # NumPy returns the same array: updates through it are seen
        elif copy is False:
            raise UserCodeError("ValueError: Unable to avoid copy while creating an array as "
                                "requested.")
        elif same_dtype and not obj.weak:
            out = Array(obj.var)    # a new array holding the same values
        else:
            if dtype is not None:   # np.array(k, dtype=np.uint8): OverflowError for 300
                indexing.check_python_number_fits(obj, dtype, numpy_scalars=False)
            out = astype(obj, dtype or obj.dtype)
    elif copy is False:
        raise UserCodeError("ValueError: Unable to avoid copy while creating an array as "
                            "requested.")
    else:
        out = _stack_nested(obj, dtype)
    if out.ndim < ndmin:
        out = emit("reshape", out, shape=(1,) * (ndmin - out.ndim) + out.shape)
    return in_f_order(out) if order == "F" and out is not obj else out


def _stack_nested(obj, dtype):
    """Nested lists/tuples of arrays and numbers as one array, as np.array
    makes it: NumPy itself picks the dtype from one sample per item (a Python
    number counts as its default dtype there, not as a weak scalar)."""
    leaves: list = []
    _nested_shape(obj, leaves, ())          # refuses ragged nesting, as NumPy does
    samples = [_dtype_sample(v) for v in leaves]
    if dtype is None:
        _require_held_leaves_dtype(leaves, samples)
    dtype = np.array(samples, dtype=dtype).dtype
    return _build_nested(obj, dtype)


def _require_held_leaves_dtype(leaves, samples) -> None:
    """np.array([a[0], z]) of a `z` that is a Python float on some runtime
    paths and an np.float32 on others: NumPy's dtype differs with the path
    (float64 there), which the call checks (held_ints.require_numpy_dtype).
    The dtype with one leaf's sample replaced depends only on that leaf's
    own sample: one NumPy discovery per kind of leaf."""
    if not any(held_ints.held_paths(v) for v in leaves):
        return
    counts = collections.Counter(map(_sample_key, samples))
    found = {}

    def dtype_with(i, sample):
        key = (_sample_key(samples[i]), _sample_key(sample))
        if key not in found:
            if counts[key[0]] > 1:      # (another leaf has this sample: it stays)
                found[key] = np.array(samples + [sample]).dtype
            else:
                found[key] = np.array(samples[:i] + [sample] + samples[i + 1:]).dtype
        return found[key]
    held_ints.require_numpy_dtype(leaves, dtype_with, np.array(samples).dtype, "np.array")


def _sample_key(sample):
    return type(sample), getattr(sample, "dtype", None)


def _nested_shape(obj, leaves, prefix) -> tuple:
    if isinstance(obj, (list, tuple)):
        shapes = {_nested_shape(v, leaves, prefix + (len(obj),)) for v in obj}
        if len(shapes) > 1:
            raise ShapeError(
                "setting an array element with a sequence. The requested array has an "
                f"inhomogeneous shape after {len(prefix) + 1} dimensions: its items have "
                f"the shapes {sorted(shapes)}", hint="give every item the same shape")
        return (len(obj),) + (shapes.pop() if shapes else ())
    if not isinstance(obj, (Array, np.ndarray, np.generic, bool, int, float, complex)):
        raise UnsupportedError(f"np.array of a sequence holding a {type(obj).__name__} and "
                               "runtime arrays is not supported",
                               hint="pass nested lists or tuples of arrays and numbers")
    leaves.append(obj)
    return obj.shape if isinstance(obj, Array) else tuple(np.shape(obj))


def _dtype_sample(v):
    """What NumPy's dtype discovery sees for one item."""
    if isinstance(v, Array):
        if v.weak:          # a Python scalar held at run time
            return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[v.dtype.kind]
        return np.zeros((), v.dtype)
    if isinstance(v, np.ndarray):
        return np.zeros((), v.dtype)
    return v


def _build_nested(obj, dtype):
    whole = _whole_buffer_converted(obj, dtype) if isinstance(obj, (list, tuple)) else None
    if whole is not None:               # the items of a list a counted loop grew
        return whole
    columns = _buffer_columns(obj, dtype) if isinstance(obj, (list, tuple)) else None
    if columns is not None:
        return columns
    if isinstance(obj, (list, tuple)) and obj:
        return stack([_build_nested(v, dtype) for v in obj])
    if isinstance(obj, Array):
        # Items are converted as stored one by one (x[i] = v): np.array([k], dtype=np.int8)
        indexing.check_python_number_fits(obj, dtype)
        # (an item holding a Python number on some paths, checked: now an element)
        return astype(obj, dtype, copy=obj.held_int is not None)
    return Array(const_value(np.asarray(obj, dtype=dtype)))    # a number, or an empty list


def _whole_buffer_converted(items, dtype):
    """The buffer whose rows `items` are (stacking.whole_buffer), its values
    converted to `dtype` as NumPy converts the items one by one: one cast
    and one check of the first that fails, not a cast, check and stacked
    piece per item (minutes of XLA for a few hundred).  None where the
    items are not such rows, or not all of one kind (Python numbers or
    NumPy scalars), which decides how each converts."""
    whole = stacking.whole_buffer(items)
    if whole is None or whole.dtype == dtype:
        return whole
    kinds = {(v.weak, v.immutable) for v in items}
    if len(kinds) > 1:
        return None
    indexing.check_each_python_number_fits(whole, items[0], dtype)
    return astype(whole, dtype, copy=False)


def _buffer_columns(obj, dtype):
    """np.array of a list a counted loop grew k values per iteration, as
    tuples (`pairs.append((i, v))`, `[(v, v * v) for v in x]`) or flat
    (`out.extend([a, -a])`): the j-th values are the rows of one buffer
    (stacking.py), or static numbers; the columns stacked on a new axis 1
    (then merged into axis 0 for the flat list), where item by item would
    be n * k stacked pieces (seconds of XLA for a few hundred).  None where
    `obj` is not so."""
    if len(obj) < 2:
        return None
    if all(type(v) in (list, tuple) for v in obj):
        k = len(obj[0])
        if not k or any(len(v) != k for v in obj):
            return None
        columns, flat = [[v[j] for v in obj] for j in range(k)], False
    else:
        k = stacking.interleaved_width(obj)
        if k is None:
            return None
        columns, flat = [obj[j::k] for j in range(k)], True
    built = []
    for c in columns:
        built.append(_column(c, dtype))
        if built[-1] is None:
            return None
    if all(c is _STATIC_COLUMN for c in built):
        return None
    built = [Array(const_value(np.asarray(c, dtype=dtype))) if b is _STATIC_COLUMN else b
             for c, b in zip(columns, built)]
    out = stack(built, axis=1)
    return emit("reshape", out, shape=(out.shape[0] * k, *out.shape[2:])) if flat else out


_STATIC_COLUMN = object()


def _column(items, dtype):
    """One column of _buffer_columns as an array: the buffer whose rows the
    items are (cast to `dtype` where no value can change), _STATIC_COLUMN
    for static numbers (a constant), else None."""
    if not any(isinstance(v, Array) for v in items):
        return _STATIC_COLUMN if all(isinstance(v, (bool, int, float, complex, np.generic))
                                     for v in items) else None
    whole = stacking.whole_buffer(items)
    if whole is None or not np.can_cast(whole.dtype, dtype, "safe") and \
            any(indexing.checked_as_numbers(v, dtype) for v in items):
        return None     # (checked column by column, another item than NumPy's could raise)
    return astype(whole, dtype, copy=False)


NUMPY[np.array] = array
NUMPY[np.asarray] = NUMPY[np.asanyarray] = asarray
NUMPY[np.ascontiguousarray] = ascontiguousarray
NUMPY[np.asfortranarray] = asfortranarray


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import const_value, emit, emit_op  # noqa: E402
from ..infer import float_errors, guarded_ranges, held_ints, pynumbers, stacking  # noqa: E402
from ..infer.values import (READ_ONLY, Array, RuntimeKind, array_like,  # noqa: E402
                            compile_time_kind, int_bounds, rebinds_in_place, to_value)
from .shape import broadcast_to, stack, transpose, where as select  # noqa: E402
from ..lower.reverse import unbroadcast  # noqa: E402
from . import indexing  # noqa: E402  (which imports this module while loading)
from . import python_ints  # noqa: E402
