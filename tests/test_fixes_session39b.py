"""Session 39b's fixes: Python ints known only at run time, held in int64,
never wrap silently; hints for 64-bit hashes point to np.uint64."""
import warnings

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


# --- Python int arithmetic past int64 raises OverflowError (E910; ops/python_ints.py) -----

def lcg_mix(x, seed):
    return x + (seed * 6364136223846793005 + 1) % 1000000007


def test_a_promoted_seed_argument_gives_the_exact_result_from_its_third_value():
    # (the third seed made `seed` a runtime int64, whose product wrapped silently)
    f, x = tpucc.compile(lcg_mix), np.array([1, 2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in (1, 2, 3, 4):
            np.testing.assert_array_equal(f(x, seed), lcg_mix(x, seed))
    assert any("seed" in str(w.message) and "int64" in str(w.message) for w in caught)


def scramble(x, seed):
    return x ^ np.uint64(seed)


def test_a_promoted_seed_from_2_63_up_is_read_at_compile_time_again():
    f, x = tpucc.compile(scramble), np.array([1, 2], np.uint64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tpucc.RecompileWarning)
        for seed in (1, 2, 3, 2 ** 63 + 5, 7):
            np.testing.assert_array_equal(f(x, seed), scramble(x, seed))


def test_a_runtime_args_seed_from_2_63_up_names_np_uint64():
    f = tpucc.compile(scramble, runtime_args=("seed",))
    x = np.array([1, 2], np.uint64)
    with pytest.raises(tpucc.DTypeError) as info:
        f(x, 2 ** 63 + 5)
    assert "np.uint64(n)" in info.value.hint and "float" not in info.value.hint.split(";")[0]
    # the hint works
    np.testing.assert_array_equal(f(x, np.uint64(2 ** 63 + 5)), scramble(x, 2 ** 63 + 5))


def _mul(x):
    return int(x[0]) * int(x[1])


def _add(x):
    return int(x[0]) + int(x[1])


def _sub(x):
    return int(x[0]) - int(x[1])


def _neg(x):
    return -int(x[0])


def _abs(x):
    return abs(int(x[0]))


def _shift(x):
    return int(x[0]) << 3


def _cube(x):
    return int(x[0]) ** 3


def _mul_const(x):
    return 6364136223846793005 * int(x[0])


WITHIN = [(_mul, [3, -4]), (_mul, [2 ** 32, 2 ** 31 - 1]), (_mul, [-2 ** 62, 2]),
          (_mul, [-2 ** 63, 1]), (_mul, [0, -2 ** 63]), (_add, [2 ** 62, 2 ** 62 - 1]),
          (_add, [-2 ** 63, 2 ** 63 - 1]), (_sub, [-1, 2 ** 63 - 1]), (_neg, [2 ** 63 - 1, 0]),
          (_abs, [-2 ** 63 + 1, 0]), (_shift, [-2 ** 60, 0]), (_cube, [-2 ** 21, 0]),
          (_cube, [2097151, 0]), (_mul_const, [1, 0])]
PAST = [(_mul, [2 ** 32, 2 ** 31], r"\*"), (_mul, [-1, -2 ** 63], r"\*"),
        (_add, [2 ** 62, 2 ** 62], r"\+"), (_sub, [-2 ** 63, 1], "-"),
        (_neg, [-2 ** 63, 0], "unary -"), (_abs, [-2 ** 63, 0], r"abs\(\)"),
        (_shift, [2 ** 60, 0], "<<"), (_cube, [2097152, 0], r"\*\*"),
        (_mul_const, [2, 0], r"\*")]


@pytest.mark.parametrize("fn, pair", WITHIN)
def test_python_int_arithmetic_within_int64_is_exact(fn, pair):
    check(fn, np.array(pair))


@pytest.mark.parametrize("fn, pair, symbol", PAST)
def test_python_int_arithmetic_past_int64_raises_overflow_error(fn, pair, symbol):
    err = raises_at(fn, (np.array(pair),), tpucc.errors.RuntimeRaiseError,
                    match=f"past int64 \\({symbol}\\)", line_of="return")
    assert isinstance(err, OverflowError) and "np.uint64" in err.hint


def powers(x, n):
    b, out = int(x[0]), 0
    for e in range(n):
        out = b ** e
    return out


def powers_of_minus_two(x, n):
    out = 0
    for e in range(n):
        out = (-2) ** e
    return x + out


@pytest.mark.parametrize("b, n", [(3, 40), (-2, 64), (-8, 22), (1, 1000), (-1, 77), (0, 70)])
def test_runtime_powers_that_fit_are_exact(b, n):
    check(powers, np.array([b]), np.int64(n))


@pytest.mark.parametrize("b, n", [(3, 41), (2, 64), (-3, 41)])
def test_runtime_powers_past_int64_raise_overflow_error(b, n):
    with pytest.raises(OverflowError, match="past int64"):
        tpucc.compile(powers)(np.array([b]), np.int64(n))


def test_a_static_base_to_a_counter_power():
    check(powers_of_minus_two, np.zeros(2, np.int64), np.int64(64))      # (-2) ** 63 fits
    with pytest.raises(OverflowError, match="past int64"):
        tpucc.compile(powers_of_minus_two)(np.zeros(2, np.int64), np.int64(65))


def caught(x):
    k = int(x[0])
    try:
        y = k * 3
    except OverflowError:       # (never raised eagerly: Python's int grows)
        y = -1
    return y


def test_the_check_is_not_refused_inside_a_try():
    check(caught, np.array([5]))


def counted(x, n):
    k = 0
    for i in range(n):
        k = k + 100
        x = x + i
    return x + k


def test_a_counter_and_a_range_position_need_no_check():
    ir = tpucc.compile(counted).lower(np.ones(3), np.int64(2)).ir()
    assert "check(" not in ir
    check(counted, np.ones(3), np.int64(4))


# --- .bit_count() of a NumPy uint64 from 2**63 up (pynumbers._count_bits) ----------------

def popcount(h):
    return h[0].bit_count(), h[1].bit_count()


def test_bit_count_of_a_uint64_from_2_63_up():
    # (converted to a Python int first: E910 "a uint64 value from 2**63 up")
    check(popcount, np.array([2 ** 64 - 1, 2 ** 63 + 6], np.uint64))
    check(popcount, np.array([-2 ** 63, -7], np.int64))


# --- hints for 64-bit hash constants name np.uint64 --------------------------------------

def fib_hash(keys):
    return (keys * 0x9E3779B97F4A7C15) >> 58


def fib_hash_as_hinted(keys):
    return (keys.astype(np.uint64) * 0x9E3779B97F4A7C15) >> 58


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_a_uint64_hash_constant_on_a_signed_array_hints_uint64(dtype):
    keys = np.arange(4, dtype=dtype)
    err = raises_at(fib_hash, (keys,), OverflowError, match="out of bounds",
                    line_of="0x9E3779B97F4A7C15")
    assert "x.astype(np.uint64)" in err.hint
    check(fib_hash_as_hinted, keys)


def fnv1a64(data):
    h = 14695981039346656037
    for i in range(data.shape[0]):
        h = (h ^ int(data[i])) * 1099511628211 & 0xFFFFFFFFFFFFFFFF
    return h


def fnv1a64_as_hinted(data):
    h = np.uint64(14695981039346656037)
    for i in range(data.shape[0]):
        h = (h ^ int(data[i])) * 1099511628211 & 0xFFFFFFFFFFFFFFFF
    return h


def test_a_python_int_hash_past_int64_hints_uint64():
    data = np.frombuffer(b"hello", np.uint8).copy()
    err = raises_at(fnv1a64, (data,), tpucc.UnsupportedError, match="no int64 holds",
                    line_of="h = (h ^")
    assert "np.uint64(14695981039346656037)" in err.hint and "float" not in err.hint
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # (NumPy's scalar overflow)
        check(fnv1a64_as_hinted, data)


# --- a refused library call names what it got at run time (calls._runtime_what) ---------

def hashed(x):
    return hash(int(x[0]))


def test_hash_of_a_runtime_python_int_says_python_number():
    # (was "hash() is not supported on runtime arrays" for an int)
    raises_at(hashed, (np.array([3]),), tpucc.UnsupportedError,
              match=r"hash\(\) is not supported on a Python number known only at run time",
              line_of="hash(")
