"""Session 44P: math.comb / math.perm of runtime ints compile fast.

Each was 33 (20) unrolled steps of checked int64 arithmetic: 1100 lines of
HLO and ~2 s of XLA:CPU compile per call.  Now each is one While over its
runtime step count (ops python_int_comb / python_int_perm), with the same
results and the same runtime errors.  perm(n, k) with k > n >= 21 gave
OverflowError; it is 0, as Python's.
"""
from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import tpucc
from conftest import assert_same, raises_at

INT64_MAX = 2**63 - 1


def _comb_perm(a, b):
    n, k = int(a), int(b)
    return math.comb(n, k), math.perm(n, k)


@functools.lru_cache(maxsize=None)
def _compiled(fn):
    return tpucc.compile(fn, cache=False)


def _capped(fn, n: int, k: int):
    """math.comb / math.perm of n, k, or None where it passes int64,
    computed factor by factor and stopped there (the exact number of
    perm(2**62, 2**61) does not fit a machine's memory)."""
    if k > n:
        return 0
    steps = min(k, n - k) if fn is math.comb else k
    result = 1
    for i in range(1, steps + 1):
        result = result * (n - steps + i) // i if fn is math.comb else result * (n - i + 1)
        if result > INT64_MAX:
            return None
    return result


# (n, k): small ones, k > n, the last results within int64 and the first past
# it, and n near int64's ends (the steps' own overflow checks).
CASES = [(0, 0), (1, 0), (5, 2), (3, 5), (21, 22), (30, 40), (20, 20), (20, 21), (21, 21),
         (66, 33), (67, 33), (68, 34), (62, 31), (61, 30), (100, 3), (1000, 997),
         (10**6, 3), (10**6, 4), (3037000500, 2), (3037000501, 2), (2**62, 1), (2**62, 2),
         (INT64_MAX, 1), (INT64_MAX, INT64_MAX - 1), (INT64_MAX, INT64_MAX), (2**40, 2**39)]


@pytest.mark.parametrize("n,k", CASES)
def test_comb_and_perm_of_runtime_ints_match_python(n, k):
    for fn, compiled in ((math.comb, _compiled(_comb)), (math.perm, _compiled(_perm))):
        expected = _capped(fn, n, k)
        if expected is None:
            with pytest.raises(OverflowError, match="does not fit 64 bits"):
                compiled(np.int64(n), np.int64(k))
        else:
            assert_same(expected, compiled(np.int64(n), np.int64(k)))
    if n < 100:     # (both at once, Python's own)
        expected = _comb_perm(np.int64(n), np.int64(k))
        if all(v <= INT64_MAX for v in expected):
            assert_same(expected, _compiled(_comb_perm)(np.int64(n), np.int64(k)))


def _comb(a, b):
    return math.comb(int(a), int(b))


def _perm(a, b):
    return math.perm(int(a), int(b))


def _one_static(a):
    """One operand static, the other runtime, each way round; NumPy
    integers of other widths and a uint64 taken as math takes them."""
    n = int(a)
    return (math.comb(n, 3), math.comb(40, n), math.perm(n, 2), math.perm(19, n),
            math.comb(np.int32(a), 2), math.perm(np.uint8(a), np.int16(2)))


@pytest.mark.parametrize("n", [0, 2, 3, 7, 20, 40, 41])
def test_comb_and_perm_with_one_static_operand(n):
    assert_same(_one_static(np.int64(n)), _compiled(_one_static)(np.int64(n)))


def _from_arrays(x, y):
    return math.comb(x[0], y[1]), math.perm(int(x[1]), y[0]), math.comb(int(x.sum()), 2)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint16", "uint64"])
def test_comb_and_perm_of_array_items(dtype):
    x, y = np.array([9, 12], dtype), np.array([4, 5], dtype)
    f = tpucc.compile(_from_arrays, cache=False)
    assert_same(_from_arrays(x, y), f(x.copy(), y.copy()))


def _row_sum(a):
    """sum of C(n, i) over i < n + 1 (2**n) and of perm(n, i): the loop
    inside a runtime loop."""
    n = int(a)
    total, perms = 0, 0
    for i in range(n + 1):
        total += math.comb(n, i)
        perms += math.perm(n, i)
    return total, perms


@pytest.mark.parametrize("n", [0, 1, 5, 12, 20])
def test_comb_and_perm_in_a_runtime_loop(n):
    assert_same(_row_sum(np.int64(n)), _compiled(_row_sum)(np.int64(n)))


def test_comb_and_perm_are_one_loop_each_not_unrolled():
    """The HLO of comb and perm stays small (it was 1100 lines): a While
    whose body is a step, not 33 copies of it."""
    for fn in (_comb, _perm):
        lowered = tpucc.compile(fn, cache=False).lower(np.int64(5), np.int64(2))
        text = lowered.as_text()
        assert "while" in text, text
        assert len(text.splitlines()) < 300, len(text.splitlines())


@pytest.mark.parametrize("fn,args,error,message", [
    (_comb, (-1, 2), ValueError, "n must be a non-negative integer"),
    (_comb, (5, -1), ValueError, "k must be a non-negative integer"),
    (_perm, (5, -2), ValueError, "k must be a non-negative integer"),
    (_comb, (67, 33), OverflowError, "does not fit 64 bits"),
    (_comb, (2**62, 3), OverflowError, "does not fit 64 bits"),
    (_perm, (3037000501, 2), OverflowError, "does not fit 64 bits"),
    (_perm, (INT64_MAX, 21), OverflowError, "does not fit 64 bits")])
def test_comb_and_perm_errors_at_run_time(fn, args, error, message):
    args = tuple(np.int64(a) for a in args)
    raises_at(fn, args, error=error, match=message, line_of="math.", cache=False)
    if error is ValueError:
        with pytest.raises(error, match=message):
            fn(*args)
