"""NumPy's number-theoretic and floating-point ufuncs whose jax versions
differ from NumPy's (gcd, lcm, spacing, frexp, modf), and the math functions
NumPy writes in Python (sinc, i0, the window functions), composed of other
ops step by step with NumPy's own expressions so that the roundings are
NumPy's.

Dtype rule of the ufuncs: NumPy's loop resolution (see elementwise.py).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax
# NumPy's Chebyshev coefficients of i0 (Cephes), taken from NumPy itself so
# that the series is NumPy's to the last bit.
from numpy.lib import _function_base_impl as _fb

from ..errors import ShapeError, UnsupportedError, UserCodeError
from ..ir import AVal
from .elementwise import _abstract, _ufunc_impl, astype, emit_ufunc
from .manipulation import as_array
from .registry import NUMPY, cast, define_range, implements, loop_keys, register, ufunc_loop
from .shape import where


# --- gcd / lcm --------------------------------------------------------------------------------
# NumPy takes absolute values into the unsigned type of the same width (so
# gcd(int8(-128), 0) is 128, which wraps back to -128), runs Euclid's
# algorithm there and casts back; lcm is a / gcd * b in that unsigned type.
# jnp.gcd loops forever on the most negative integer.

def _unsigned_abs(x, dtype):
    unsigned = np.dtype(f"u{dtype.itemsize}")
    if dtype.kind == "u":
        return x, unsigned
    as_u = lax.convert_element_type(x, unsigned)     # two's complement: wraps
    return jnp.where(x < 0, jnp.negative(as_u), as_u), unsigned


def _euclid(a, b):
    """gcd of unsigned arrays, elementwise; stops when every pair is done."""
    a, b = jnp.broadcast_arrays(a, b)

    def step(ab):
        a, b = ab
        going = a != 0
        safe = jnp.where(going, a, 1)
        return jnp.where(going, b % safe, 0), jnp.where(going, a, b)
    _, g = lax.while_loop(lambda ab: jnp.any(ab[0] != 0), step, (a, b))
    return g


def _gcd_lcm_lower(which):
    def lower(lc, x, y):
        dtype = ufunc_loop(getattr(np, which), loop_keys(lc.in_avals))[0]
        (ux, unsigned), (uy, _) = (_unsigned_abs(cast(v, dtype), dtype) for v in (x, y))
        g = _euclid(ux, uy)
        if which == "lcm":
            g = jnp.where(g == 0, jnp.zeros((), unsigned), (ux // jnp.where(g == 0, 1, g)) * uy)
        return lax.convert_element_type(g, lc.out_avals[0].dtype)
    return lower


# --- Python's pow(base, exponent, mod) with a runtime exponent -------------------------------
# Square and multiply, one bit of the exponent per step of a while loop: the
# products stay below mod**2, exact in int64 for |mod| <= 2**31.  A negative
# exponent (Python 3.8+) raises the inverse of the base to its magnitude.

def _modular_power_lower(lc, base, exponent, mod):
    m = abs(mod)
    b = jnp.remainder(base, m)                          # in [0, m)
    negative = exponent < 0
    b = jnp.where(negative, _modular_inverse(b, m), b)
    # The magnitude as unsigned: -(-2**63) does not fit an int64.
    e = lax.convert_element_type(exponent, np.uint64)
    e = jnp.where(negative, jnp.negative(e), e)
    one = np.uint64(1)

    def step(state):
        r, b, e = state
        r = jnp.where((e & one) == one, r * b % m, r)
        return r, b * b % m, e >> one
    r, _, _ = lax.while_loop(lambda state: state[2] != 0, step,
                             (jnp.remainder(jnp.ones_like(base), m), b, e))
    return r if mod > 0 else jnp.where(r == 0, r, r + mod)     # Python's: mod's sign


def _modular_inverse(a, m):
    """t with t * a % m == 1 where gcd(a, m) == 1 (extended Euclid, every
    value within m); the caller checks that gcd."""
    def step(state):
        r0, r1, t0, t1 = state
        q = r0 // r1
        return r1, r0 - q * r1, t1, t0 - q * t1
    zero = jnp.zeros_like(a)
    _, _, t, _ = lax.while_loop(lambda state: state[1] != 0, step, (zero + m, a, zero, zero + 1))
    return jnp.remainder(t, m)


register("modular_power", lambda avals, mod: avals[0], _modular_power_lower,
         numpy=lambda base, exponent, mod: np.asarray(pow(int(base), int(exponent), mod),
                                                      base.dtype))
define_range("modular_power", lambda avals, bounds, mod: (0, mod - 1) if mod > 0 else (mod + 1, 0))


# --- spacing ----------------------------------------------------------------------------------

def _spacing_lower(lc, x):
    dtype = lc.out_avals[0].dtype
    x = cast(x, dtype)
    if dtype == np.float16:
        return _half_spacing(x)
    return _spacing_from_bits(x, dtype)


def _spacing_from_bits(x, dtype):
    """NumPy's spacing of float32/float64: the distance to the next float
    away from zero, with x's sign (+0 and -0 give the smallest positive
    subnormal; the largest float gives inf; inf and NaN give NaN).  Built
    from the exponent's bits, not by subtracting neighbours: XLA:CPU
    flushes a subnormal difference, so jnp.spacing of 2.5e-300 gives
    5e-324 where the gap is 3.3e-316."""
    info = np.finfo(dtype)
    uint = np.dtype(f"uint{info.bits}")
    mantissa_bits, u = info.nmant, (lambda v: np.asarray(v, uint))
    bits = lax.bitcast_convert_type(x, uint)
    exponent = (bits >> u(mantissa_bits)) & u(2 ** (info.bits - 1 - mantissa_bits) - 1)
    gap = jnp.where(exponent > u(mantissa_bits), (exponent - u(mantissa_bits)) << u(mantissa_bits),
                    jnp.where(exponent > u(0), u(1) << (exponent - u(1)), u(1)))
    as_bits = lambda v: np.asarray(v, dtype).view(uint)      # noqa: E731
    sign = u(1) << u(info.bits - 1)
    magnitude = bits & ~sign
    gap = jnp.where(magnitude == as_bits(info.max), as_bits(np.inf), gap)
    gap = jnp.where(magnitude >= as_bits(np.inf), as_bits(np.nan), gap)     # inf and NaN
    # The sign and every value kept as bits: XLA:CPU reads a subnormal as 0
    # in a comparison and may flush one it negates.
    return lax.bitcast_convert_type(jnp.where(magnitude != u(0), gap | (bits & sign), gap), dtype)


def _half_spacing(x):
    """NumPy's npy_half_spacing, bit for bit: always positive, NaN for
    inf/NaN, inf only for the largest half; a negative power of two gets the
    spacing below it."""
    h = lax.bitcast_convert_type(x, np.uint16)
    u = lambda v: np.uint16(v)       # noqa: E731
    exp, sig = h & u(0x7C00), h & u(0x03FF)
    normal_or_sub = jnp.where(exp > u(0x2800), exp - u(0x2800),
                              jnp.where(exp > u(0x0400),
                                        u(1) << ((exp >> u(10)) - u(1)), u(1)))
    boundary = jnp.where(exp > u(0x2C00), exp - u(0x2C00),
                         jnp.where(exp > u(0x0400), u(1) << ((exp >> u(10)) - u(2)), u(1)))
    bits = jnp.where(((h & u(0x8000)) != 0) & (sig == 0), boundary, normal_or_sub)
    bits = jnp.where(h == u(0x7BFF), u(0x7C00), bits)             # +inf
    bits = jnp.where(exp == u(0x7C00), u(0x7E00), bits)           # NaN
    return lax.bitcast_convert_type(bits, np.float16)


for _name, _lower in (("gcd", _gcd_lcm_lower("gcd")), ("lcm", _gcd_lcm_lower("lcm")),
                      ("spacing", _spacing_lower)):
    _uf = getattr(np, _name)
    register(_name, _abstract(_uf), _lower, numpy=_uf, layout="elementwise")
    NUMPY[_uf] = _ufunc_impl(_name)


# --- frexp: the ufunc with two outputs --------------------------------------------------------

def _frexp_abstract(avals):
    (x,) = avals
    mantissa, exponent = np.frexp.resolve_dtypes((loop_keys(avals)[0], None, None))[1:]
    return AVal(mantissa, x.shape, False), AVal(exponent, x.shape, False)


def _frexp_lower(lc, x):
    m, e = jnp.frexp(cast(x, lc.out_avals[0].dtype))     # float16 computed as float16
    return m, lax.convert_element_type(e, lc.out_avals[1].dtype)


register("frexp", _frexp_abstract, _frexp_lower, numpy=np.frexp)


@implements(np.frexp)
def frexp(x, out=None, **kw):
    if out is not None or kw:
        raise UnsupportedError("np.frexp: the out=/where= arguments are not supported",
                               hint="assign the results")
    mantissa, exponent = emit("frexp", array_like(x))
    if mantissa.ndim == 0:      # NumPy scalars, as every ufunc gives for 0-d operands
        mantissa.immutable = exponent.immutable = True
    return mantissa, exponent


# --- modf / fix: the fractional and integral parts ------------------------------------------

@implements(np.modf)
def modf(x, out=None, **kw):
    """C's modf: both parts carry x's sign (modf(-3.0) is (-0.0, -3.0)), and
    an infinity's fractional part is a zero.  Integers and bools compute in
    the float dtype NumPy's loop picks (int8 -> float16)."""
    if out is not None or kw:
        raise UnsupportedError("np.modf: the out=/where= arguments are not supported",
                               hint="assign the results")
    x = array_like(x)
    loop = ufunc_loop(np.modf, loop_keys([x.aval]))
    if loop[0].kind not in "f":
        raise UserCodeError(f"TypeError: ufunc 'modf' not supported for the input types ({x.dtype})")
    x = astype(x, loop[0], copy=False)
    whole = emit_ufunc("trunc", x)
    rest = where(emit_ufunc("isinf", x), 0.0, x - whole)
    fraction = emit_ufunc("copysign", rest, x)
    if fraction.ndim == 0:      # NumPy scalars, as every ufunc gives for 0-d operands
        fraction.immutable = whole.immutable = True
    return fraction, whole


# np.fix is np.trunc in NumPy 2 (integers stay integers)
NUMPY[np.fix] = NUMPY[np.trunc]


# --- sinc / i0 (NumPy's Python code, op for op) -------------------------------------------------

@implements(np.sinc)
def sinc(x):
    x = as_array(x) * np.pi
    if x.dtype.kind == "c":
        raise UserCodeError("TypeError: np.sinc of complex values is not supported by tpucc")
    eps = np.finfo(x.dtype).eps         # a NumPy scalar of x's dtype: strong
    y = where(x != 0, x, eps)
    return emit_ufunc("sin", y) / y


@implements(np.i0)
def i0(x):
    x = as_array(x)
    if x.dtype.kind == "c":
        raise UserCodeError("TypeError: i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = astype(x, np.float64)
    x = abs(x)
    small = emit_ufunc("exp", x) * _chbevl(x / 2.0 - 2, _fb._i0A)
    large = emit_ufunc("exp", x) * _chbevl(32.0 / x - 2.0, _fb._i0B) / emit_ufunc("sqrt", x)
    out = where(x <= 8.0, small, large)        # np.piecewise: an array, also 0-d
    return astype(out, x.dtype, copy=False)


def _chbevl(x, vals):
    """NumPy's Chebyshev series evaluation, with its Python-float weak operands."""
    b0, b1, b2 = vals[0], 0.0, 0.0
    for v in vals[1:]:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + v
    return 0.5 * (b0 - b2)


# --- window functions: hanning hamming blackman bartlett kaiser --------------------------------
# With static arguments NumPy computes them at compile time (a library call);
# these run when an argument is runtime.  The length M is the result's shape.

def _window_length(M, name: str):
    """A window's length: static (np.hanning(len(x))), or an error that
    says why, not that the function is unknown."""
    M = known_integer(M)
    if isinstance(M, Array):
        raise ShapeError(f"np.{name}: the window's length M depends on runtime values "
                         "(data-dependent shape)",
                         hint=f"shapes must come from other shapes or Python values "
                              f"(np.{name}(len(x)))")
    return M


def _fixed_window(fn):
    def window(M):
        return as_array(fn(_window_length(M, fn.__name__)))    # NumPy's, now
    return window


for _fn in (np.hanning, np.hamming, np.blackman, np.bartlett):
    implements(_fn)(_fixed_window(_fn))


@implements(np.kaiser)
def kaiser(M, beta):
    """A runtime beta: NumPy's i0(beta * sqrt(1 - ((n - a) / a)**2)) / i0(beta),
    the square root (static) computed by NumPy now, as NumPy computes it."""
    M = _window_length(M, "kaiser")
    beta = as_array(beta)
    if beta.ndim:
        raise UserCodeError("ValueError: setting an array element with a sequence. The "
                            "requested array has an inhomogeneous shape after 1 dimensions. "
                            "The detected shape was (3,) + inhomogeneous part.")
    try:
        values = np.array([0.0, M, np.zeros((), beta.dtype)])  # NumPy's dtype: float64, complex
        M = values[1]
        if M == 1:
            return as_array(np.ones(1, dtype=values.dtype))
        n = np.arange(0, M)
        alpha = (M - 1) / 2.0
        root = np.sqrt(1 - ((n - alpha) / alpha)**2.0)
    except (TypeError, ValueError) as e:
        raise UserCodeError(f"{type(e).__name__}: {e}") from None
    beta = astype(beta, values.dtype)
    return i0(beta * as_array(root)) / i0(beta)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array, array_like, known_integer  # noqa: E402
