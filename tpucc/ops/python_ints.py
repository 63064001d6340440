"""Python int arithmetic on ints known only at run time, checked for int64.

Python's ints grow without bound.  Compiled code holds a Python int known
only at run time (a `runtime_args` or promoted number, `int(x[i])`, a
counter a runtime loop changes) in an int64, whose arithmetic wraps past
2**63.  So the result of each `+ - * << ** //`, unary `-` and `abs()` of such
ints is checked at run time to be the exact one: where it is not, the call
raises OverflowError (E910) when it returns, instead of giving a wrapped
number eager Python never gives.  NumPy's own integers (np.int64(n), an
int64 array) wrap as NumPy's do, unchecked.

Where one operand is static, the result fits exactly when the runtime one
lies in a static range (`_range_keeping_exact`): one or two comparisons,
and none where what is known of it (values.int_bounds: a counted loop's
counter) lies inside.
"""
from __future__ import annotations

import contextlib
import contextvars
import math

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..infer.builder import const_value, emit
from ..infer.values import Array, int_bounds
from ..ir import AVal
from .registry import register

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1

# The message of the check (api.py recognizes it: a number argument read at
# run time because it changed is read at compile time again instead).
PAST_INT64 = "Python int arithmetic past int64"

HINT = ("compiled code holds a Python int known only at run time (int(x[i]), a runtime_args "
         "argument, a number a runtime loop changes) in an int64; for arithmetic modulo 2**64 "
         "(hashes, masks, seeds) use NumPy integers, which wrap as eagerly: np.uint64(n); "
         "else keep the numbers within int64 (reduce modulo first)")

_SYMBOLS = {"add": "+", "subtract": "-", "multiply": "*", "left_shift": "<<", "power": "**",
            "floor_divide": "//", "negative": "unary -", "absolute": "abs()"}


# Inside `unchecked()`: arithmetic of tpucc's own on runtime ints.
_UNCHECKED = contextvars.ContextVar("python_ints_unchecked", default=False)


@contextlib.contextmanager
def unchecked():
    """Operators on runtime ints that are tpucc's own, not the program's (a
    range iterator's position and items: Python's never overflow, and the
    int64 ones wrap back into the range), are not checked."""
    token = _UNCHECKED.set(True)
    try:
        yield
    finally:
        _UNCHECKED.reset(token)


def checked(result, ufname: str, *operands):
    """`result` of the Python operator `ufname` on `operands` (in the
    operator's order), checked to be exact where it is Python int
    arithmetic held in int64 (module docstring)."""
    if ufname not in _SYMBOLS or not _is_runtime_python_int(result) or \
            not any(isinstance(x, Array) for x in operands) or _UNCHECKED.get():
        return result
    ok = _fits(ufname, operands, result)
    if ok is not True:
        from ..infer import checks
        checks.require(ok, f"{PAST_INT64} ({_SYMBOLS[ufname]}): Python's int would grow "
                           "beyond 64 bits", hint=HINT, raises="OverflowError", tpucc_limit=True)
    return result


def _is_runtime_python_int(x) -> bool:
    return isinstance(x, Array) and x.weak and x.ndim == 0 and x.dtype == np.int64


def _fits(ufname: str, operands, result):
    """True, or a runtime bool: whether the int64 `result` is exact."""
    if ufname == "floor_divide":
        return _floor_divide_exact(*operands)
    runtime = [i for i, x in enumerate(operands) if isinstance(x, Array)]
    if len(runtime) == 1:
        (k,) = runtime
        x = operands[k]
        lo, hi = _range_keeping_exact(ufname, operands, k)
        known_lo, known_hi = int_bounds(x)
        checks = ([emit("greater_equal", x, lo)] if known_lo < lo else []) + \
                 ([emit("less_equal", x, hi)] if known_hi > hi else [])
        return True if not checks else checks[0] if len(checks) == 1 else \
            emit("logical_and", *checks)
    a, b = operands
    if ufname in ("add", "subtract", "multiply") and _corners_fit(ufname, a, b):
        return True
    return _EXACT_AT_RUN_TIME[ufname](a, b, result)


def _range_keeping_exact(ufname: str, operands, k: int) -> tuple:
    """(lo, hi): the values of the runtime operand `k` for which the result,
    the other operand static, stays within int64."""
    if ufname in ("negative", "absolute"):
        return INT64_MIN + 1, INT64_MAX
    c = operands[1 - k]
    if ufname == "add":
        return INT64_MIN - c, INT64_MAX - c
    if ufname == "subtract":
        return (INT64_MIN + c, INT64_MAX + c) if k == 0 else (c - INT64_MAX, c - INT64_MIN)
    if ufname == "multiply":
        if c == 0:
            return INT64_MIN, INT64_MAX
        ends = (INT64_MIN, INT64_MAX) if c > 0 else (INT64_MAX, INT64_MIN)
        return -(-ends[0] // c), ends[1] // c       # (ceil, floor)
    if ufname == "left_shift":
        return _shifted_range(c) if k == 0 else (INT64_MIN, _most_shift(c))
    return _power_base_range(c) if k == 0 else (INT64_MIN, _most_exponent(c))


def _shifted_range(count: int) -> tuple:
    """The ints x with x << count in int64 (a negative count raises anyway)."""
    if count >= 64:
        return 0, 0
    return (INT64_MIN >> count, INT64_MAX >> count) if count >= 0 else (INT64_MIN, INT64_MAX)


def _most_shift(value: int) -> int:
    """The largest count with value << count in int64 (any, for 0)."""
    if value == 0:
        return INT64_MAX
    return 63 - (value.bit_length() if value > 0 else (-value - 1).bit_length())


def _power_base_range(exponent: int) -> tuple:
    """The ints x with x ** exponent in int64 (exponent >= 0 here: a
    negative one made the base a float, elementwise._python_int_power_base)."""
    if exponent <= 1:
        return INT64_MIN, INT64_MAX
    top = _int_root(INT64_MAX, exponent)
    return -(_int_root(-INT64_MIN, exponent) if exponent % 2 else top), top


def _int_root(n: int, k: int) -> int:
    """The largest m >= 0 with m ** k <= n."""
    m = int(round(n ** (1.0 / k)))
    while m ** k > n:
        m -= 1
    while (m + 1) ** k <= n:
        m += 1
    return m


def _most_exponent(base: int) -> int:
    """The largest e with base ** e in int64 (any, for -1, 0 and 1)."""
    if -1 <= base <= 1:
        return INT64_MAX
    e = 1
    while INT64_MIN <= base ** (e + 1) <= INT64_MAX:
        e += 1
    return e


def _corners_fit(ufname: str, a, b) -> bool:
    """Whether what is known of two runtime ints keeps a + b, a - b or a * b
    within int64 (the extremes are at the corners of their ranges)."""
    (alo, ahi), (blo, bhi) = int_bounds(a), int_bounds(b)
    op = {"add": int.__add__, "subtract": int.__sub__, "multiply": int.__mul__}[ufname]
    corners = [op(x, y) for x in (alo, ahi) for y in (blo, bhi)]
    return INT64_MIN <= min(corners) and max(corners) <= INT64_MAX


def _floor_divide_exact(a, b):
    """True, or a runtime bool: a // b leaves int64 only as -2**63 // -1
    (2**63, wrapped to -2**63; divmod's quotient too).  No check where
    what is known of a or b rules that out."""
    a_may, b_may = (_may_be(x, v) for x, v in ((a, INT64_MIN), (b, -1)))
    if not (a_may and b_may):
        return True
    differs = [emit("not_equal", x, v) for x, v in ((a, INT64_MIN), (b, -1))
               if isinstance(x, Array)]
    return differs[0] if len(differs) == 1 else emit("logical_or", *differs)


def _may_be(x, value: int) -> bool:
    """Whether the int x (static, or runtime within its int_bounds) may
    equal `value`."""
    bounds = int_bounds(x) if isinstance(x, Array) or isinstance(x, (int, np.integer)) else None
    return bounds is None or bounds[0] <= value <= bounds[1]


def _add_exact(a, b, r):
    """No overflow unless a and b have one sign and r the other."""
    both = emit("bitwise_and", emit("bitwise_xor", a, r), emit("bitwise_xor", b, r))
    return emit("greater_equal", both, 0)


def _subtract_exact(a, b, r):
    """No overflow unless a and b differ in sign and r has b's."""
    both = emit("bitwise_and", emit("bitwise_xor", a, b), emit("bitwise_xor", a, r))
    return emit("greater_equal", both, 0)


def _multiply_exact(a, b, r):
    """r // a == b exactly when r is a * b (else r is off by a multiple of
    2**64, at least 2 * |a|); a == -1 wraps only for b == -2**63, and
    a == 0 never (divided by 1 instead: no division by zero, nor -2**63 // -1)."""
    from .shape import where
    unsafe = emit("logical_or", emit("equal", a, 0), emit("equal", a, -1))
    divided = emit("equal", emit("floor_divide", r, where(unsafe, 1, a)), b)
    return where(emit("equal", a, 0), True,
                 where(emit("equal", a, -1), emit("not_equal", b, INT64_MIN), divided))


def _shift_exact(a, n, r):
    """Shifting back gives a exactly when no bit fell off (a count from 64
    up gives 0: exact for a == 0 only; a negative one raises anyway)."""
    return emit("equal", emit("right_shift", r, emit("minimum", n, 63)), a)


def _power_exact(a, e, r):
    """a within the exponent's range (_power_base_range), read from a table
    by the exponent (from 64 up: -1, 0 and 1 only)."""
    from .registry import NUMPY
    ranges = [_power_base_range(k) if k < 64 else (-1, 1) for k in range(65)]
    lo, hi = (NUMPY[np.take](Array(const_value(np.array(column, np.int64))), e, mode="clip")
              for column in zip(*ranges))
    return emit("logical_and", emit("greater_equal", a, lo), emit("less_equal", a, hi))


_EXACT_AT_RUN_TIME = {"add": _add_exact, "subtract": _subtract_exact, "multiply": _multiply_exact,
                      "left_shift": _shift_exact, "power": _power_exact}


# --- int / int: the exact quotient rounded once ------------------------------------------
#
# CPython divides two ints exactly and rounds the quotient once; float(a) /
# float(b) rounds a and b first, so past 2**53 it can be an ulp off (a
# nanosecond timestamp / 10**9).  Where both are within 2**53 the two agree
# (IEEE division of exact operands is the rounded quotient).  Past it, long
# division of the magnitudes gives the quotient's leading 55 bits or more
# and a sticky bit for the remainder, which convert rounds to the double.

_EXACT_FLOAT = 2**53
_QUOTIENT_BITS = np.uint64(2**54)       # 55 bits: 53 kept, one to round by, one sticky


def is_python_int(x) -> bool:
    """A Python int (not bool) held in int64: static, or known at run time."""
    if isinstance(x, Array):
        return x.weak and x.dtype == np.int64
    return type(x) is int and INT64_MIN <= x <= INT64_MAX


def true_divide(a, b) -> Array:
    """`a / b` of two Python ints, one known only at run time, as CPython."""
    return emit("python_int_true_divide", a, b)


def _true_divide_abstract(avals):
    from .registry import broadcast
    return AVal(np.dtype(np.float64), broadcast(*avals), all(a.weak for a in avals))


def _true_divide_lower(lc, a, b):
    from .registry import broadcast_shapes, broadcast_value, divide
    shape = broadcast_shapes(np.shape(a), np.shape(b))
    a, b = (broadcast_value(lax.convert_element_type(v, np.int64), shape) for v in (a, b))
    rounded_first = divide(lax.convert_element_type(a, np.float64),
                           lax.convert_element_type(b, np.float64))
    past = lambda v: (v < -_EXACT_FLOAT) | (v > _EXACT_FLOAT)  # noqa: E731
    exact = _rounded_quotient(_magnitude(a), _magnitude(b), past(a) | past(b))
    negative = (a < 0) != (b < 0)
    exact = lax.select(negative, -exact, exact)
    return lax.select((past(a) | past(b)) & (a != 0) & (b != 0), exact, rounded_first)


def _magnitude(v):
    """|v| as a uint64 (|-2**63| too)."""
    u = lax.convert_element_type(v, np.uint64)
    return lax.select(v < 0, -u, u)


def _rounded_quotient(ua, ub, needed):
    """ua / ub rounded to a double, where `needed` (elsewhere: any value)."""
    ub = lax.select(ub == 0, lax.full_like(ub, 1), ub)    # (the caller checks b != 0)
    n, r = ua // ub, ua % ub
    one, zero = lax.full_like(ub, 1), lax.full_like(ub, 0)
    n = lax.select(needed & (ua != 0), n, lax.full_like(n, _QUOTIENT_BITS))
    s = lax.full(n.shape, 0, np.int64)

    def short(state):
        return jnp.any(state[0] < _QUOTIENT_BITS)

    def next_bit(state):        # one more bit of the quotient: r < ub <= 2**63, so 2r fits
        n, r, s = state
        more = n < _QUOTIENT_BITS
        r2 = lax.shift_left(r, one)
        bit = r2 >= ub
        r2 = r2 - lax.select(bit, ub, zero)
        n2 = lax.shift_left(n, one) | lax.convert_element_type(bit, np.uint64)
        return (lax.select(more, n2, n), lax.select(more, r2, r),
                s + lax.convert_element_type(more, np.int64))
    n, r, s = lax.while_loop(short, next_bit, (n, r, s))
    m = n | lax.convert_element_type(r != 0, np.uint64)
    scale = lax.bitcast_convert_type(lax.shift_left(1023 - s, lax.full_like(s, 52)), np.float64)
    return lax.convert_element_type(m, np.float64) * scale      # (exact: a power of two)


def _true_divide_numpy(a, b):
    divide = np.vectorize(lambda x, y: int(x) / int(y), otypes=[np.float64])
    return np.asarray(divide(a, b))


register("python_int_true_divide", _true_divide_abstract, _true_divide_lower,
         numpy=_true_divide_numpy)


# --- math.comb and math.perm of runtime ints: one loop of exact steps ------------------------
# Each is a While over its runtime step count, returning the result and
# whether it fits int64 (the caller raises OverflowError where it does
# not), and stopping at the first step past int64.  Unrolled (33 and 20
# masked steps of checked arithmetic) they were 1100 lines of HLO and
# seconds of XLA:CPU compile per call; the loop is a few dozen lines.
# Every loop ends within 34 steps: past that the result passes int64.

def _times_fits(a, b):
    """Whether a * b fits int64, for a, b >= 0."""
    return a <= INT64_MAX // jnp.maximum(b, 1)


def _comb_lower(lc, n, k):
    """C(n, k) as C(n - s + i, i) for i = 1..s, s = min(k, n - k): each
    step exact and no larger than the result, r * m / i split as
    (r // i) * m + (r % i) * m // i (the second term is whole too).  With
    s >= 34 the step i = 34 reaches C(n - s + 34, 34) >= C(68, 34) > 2**63
    (n - s >= s), so the loop stops there."""
    steps = jnp.maximum(jnp.minimum(k, n - k), 0)

    def going(state):
        i, _, fits = state
        return (i <= steps) & fits

    def step(state):
        i, r, _ = state
        m = n - steps + i
        quotient, rest = r // i, r % i
        # (rest * m overflows only where m > 2**63 / i: then C(m, i >= 2) does too)
        rest_fits = (rest == 0) | (m <= INT64_MAX // i)
        part = jnp.where(rest_fits, rest * m, 0) // i
        fits = rest_fits & _times_fits(quotient, m) & (quotient * m <= INT64_MAX - part)
        return i + 1, quotient * m + part, fits
    one = jnp.ones_like(n)
    _, result, fits = lax.while_loop(going, step, (one, one, jnp.ones_like(n, bool)))
    return jnp.where(k > n, 0, result), fits


def _perm_lower(lc, n, k):
    """n * (n - 1) * ... * (n - k + 1), factor by factor; any 21 factors
    multiply to at least 21! > 2**63, so the loop stops by then.  With
    k > n a factor is 0: no steps (perm(21, 22) is 0, not 21! * 0)."""
    steps = jnp.where(k > n, 0, k)

    def going(state):
        i, _, fits = state
        return (i < steps) & fits

    def step(state):
        i, r, _ = state
        factor = n - i
        return i + 1, r * factor, _times_fits(r, factor)
    _, result, fits = lax.while_loop(going, step, (jnp.zeros_like(n), jnp.ones_like(n),
                                                   jnp.ones_like(n, bool)))
    return jnp.where(k > n, 0, result), fits


def _counted_abstract(avals):
    """(the int64 Python int, whether it fits int64) of two non-negative
    scalar Python ints (the caller checks the signs)."""
    assert all(a.shape == () for a in avals), avals
    return AVal(np.dtype(np.int64), (), True), AVal(np.dtype(bool), ())


def _exact_numpy(fn):
    def reference(n, k):
        exact = fn(int(n), int(k))
        fits = exact <= INT64_MAX
        return np.asarray(exact if fits else 0, np.int64), np.asarray(fits)
    return reference

register("python_int_comb", _counted_abstract, _comb_lower, numpy=_exact_numpy(math.comb))
register("python_int_perm", _counted_abstract, _perm_lower, numpy=_exact_numpy(math.perm))
