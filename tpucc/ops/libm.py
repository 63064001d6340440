"""exp and log computed as glibc's (NumPy's libm) compute them, for the few
places where the last bit decides what the program does.

XLA's exp is its own approximation: measured on float64, 15% of its results
are an ulp or more from glibc's, which is almost always the correctly rounded
value (worst case 0.509 ulp).  That is documented for np.exp itself (README,
"Values"), but NumPy's det is sign * exp(sum of log|u_ii|), so for a matrix of
small integers the last bit is the difference between det -13.999999999999996
(int(det) == -13, as in NumPy) and -14.0.

exp_like_glibc follows glibc's algorithm (sysdeps/ieee754/dbl-64/e_exp.c, from
ARM's optimized-routines): x = k ln2/128 + r, 2**(k/128) from a table as
scale * (1 + tail), and exp(r) - 1 by a degree-5 polynomial, so the result
is scale + scale * tmp with |tmp| < 0.003: rounded once, like glibc's.
Single precision (glibc's expf / logf compute in double and round once) is the
double result rounded to float32.
"""
from __future__ import annotations

import decimal
import functools

import jax.numpy as jnp
import numpy as np
from jax import lax

_TABLE_BITS = 7
_N = 1 << _TABLE_BITS
_INV_LN2_N = float.fromhex("0x1.71547652b82fep0") * _N
_NEG_LN2_HI_N = -float.fromhex("0x1.62e42fefa0000p-8")
_NEG_LN2_LO_N = -float.fromhex("0x1.cf79abc9e3b3ap-47")
_C2, _C3, _C4, _C5 = (float.fromhex(h) for h in (
    "0x1.ffffffffffdbdp-2", "0x1.555555555543cp-3", "0x1.55555cf172b91p-5",
    "0x1.1111167a4d017p-7"))
# Beyond this |x| the scale 2**(k/128) leaves the normal range (overflow to inf,
# underflow to subnormals, which XLA:CPU flushes anyway): XLA's exp there.
_TABLE_RANGE = 708.0


@functools.lru_cache(maxsize=None)
def _powers_of_two():
    """2**(i/128) = hi[i] * (1 + tail[i]) for i < 128, hi the nearest double."""
    with decimal.localcontext() as context:
        context.prec = 40
        exact = [decimal.Decimal(2) ** (decimal.Decimal(i) / _N) for i in range(_N)]
        hi = [float(e) for e in exact]
        tail = [float(e / decimal.Decimal(h) - 1) for e, h in zip(exact, hi)]
    return np.array(hi), np.array(tail)


def _power_of_two(k):
    """2.0 ** k for int64 k in the normal range, built from its exponent bits."""
    return lax.bitcast_convert_type(lax.shift_left(k + 1023, jnp.int64(52)), jnp.float64)


def _exp_float64(x):
    hi, tail = (jnp.asarray(t) for t in _powers_of_two())
    kd = lax.round(x * _INV_LN2_N, lax.RoundingMethod.TO_NEAREST_EVEN)
    r = x + kd * _NEG_LN2_HI_N + kd * _NEG_LN2_LO_N
    k = kd.astype(jnp.int64)
    index = jnp.bitwise_and(k, _N - 1)                 # k mod 128, also for k < 0
    scale = hi[index] * _power_of_two(lax.shift_right_arithmetic(k, jnp.int64(_TABLE_BITS)))
    r2 = r * r
    tmp = tail[index] + r + r2 * (_C2 + r * _C3) + r2 * r2 * (_C4 + r * _C5)
    inside = jnp.abs(x) < _TABLE_RANGE
    safe = jnp.where(inside, scale + scale * tmp, 1.0)
    return jnp.where(inside, safe, lax.exp(x))


def exp_like_glibc(x):
    """exp(x) of a float32 or float64 array, as glibc's exp / expf."""
    if x.dtype == np.float32:
        return _exp_float64(x.astype(jnp.float64)).astype(jnp.float32)
    return _exp_float64(x)


def log_like_glibc(x):
    """log(x): XLA's float64 log is within glibc's last bit (measured: 0.03%
    differ); its float32 one differs in 5%, so float32 goes through float64."""
    if x.dtype == np.float32:
        return lax.log(x.astype(jnp.float64)).astype(jnp.float32)
    return lax.log(x)


# Beyond these the squares in hypot would overflow or lose bits to underflow.
_HYPOT_SAFE = (2.0 ** -450, 2.0 ** 450)


def hypot_like_glibc(re, im):
    """|re + i im| as glibc's hypot, correctly rounded but for near-ties.
    XLA's complex abs is within an ulp but not always the nearest double
    (|-1 + 5j|: an ulp above sqrt(26) rounded).  float32 parts: the exact
    sum of squares in float64, rounded once, as glibc's hypotf."""
    if re.dtype == np.float32:
        wide = re.astype(jnp.float64), im.astype(jnp.float64)
        return lax.sqrt(wide[0] * wide[0] + wide[1] * wide[1]).astype(jnp.float32)
    h = lax.sqrt(re * re + im * im)
    # One Newton step on h**2 = re**2 + im**2, its residual from exact squares.
    (rr, rr_err), (ii, ii_err), (hh, hh_err) = (
        exact_product(v, v) for v in (re, im, h))
    residual = ((rr - hh) + ii) + ((rr_err + ii_err) - hh_err)
    corrected = h + residual / (2.0 * h)
    big = jnp.maximum(jnp.abs(re), jnp.abs(im))
    safe = (big > _HYPOT_SAFE[0]) & (big < _HYPOT_SAFE[1])
    return jnp.where(safe, corrected, lax.abs(lax.complex(re, im)))


from .elementwise import _exact_product as exact_product  # noqa: E402
