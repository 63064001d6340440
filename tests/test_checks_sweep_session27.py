"""Sweep 27: NumPy's checks on a value stored into an integer array
(OverflowError / ValueError) made at run time for runtime scalars, and the
static OverflowError of `uint8_array + 300` caught by the program."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tests.conftest import check, raises_at


def put(x, k):
    x[0] = k
    return x


def put_slice(x, k):
    x[:] = k
    return x


def put_mask(x, k):
    x[x == 0] = k
    return x


def put_fancy(x, k):
    x[[0, 1]] = k
    return x


def fill(x, k):
    x.fill(k)
    return x


def full(x, k):
    return np.full(2, k, dtype=x.dtype)


def full_like(x, k):
    return np.full_like(x, k)


def listed(x, k):
    return np.array([k, 1], dtype=x.dtype)


def insert(x, k):
    return np.insert(x, 0, k)


STORES = [put, put_slice, put_mask, put_fancy, fill, full, full_like, listed, insert]


def _compare(fn, x, k, runtime_python):
    """Eager and compiled (k a runtime argument) raise the same built-in
    exception with NumPy's message, or give the same array."""
    kw = {"runtime_args": ("k",)} if runtime_python else {}
    compiled = tpucc.compile(fn, **kw)
    try:
        expected = fn(x.copy(), k)
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e)) as info:
            compiled(x.copy(), k)
        assert isinstance(info.value, tpucc.errors.RuntimeRaiseError)
        assert str(e) in str(info.value) or "Python int" in str(e), (str(e), str(info.value))
        return
    np.testing.assert_array_equal(compiled(x.copy(), k), expected)


@pytest.mark.parametrize("fn", STORES)
@pytest.mark.parametrize("dtype, k", [(np.uint8, 300), (np.uint8, -1), (np.int8, -129),
                                      (np.uint64, -1), (np.uint8, 255), (np.int32, 7)])
def test_runtime_python_int_store_checked(fn, dtype, k):
    _compare(fn, np.zeros(2, dtype), k, True)


@pytest.mark.parametrize("fn", STORES)
@pytest.mark.parametrize("dtype, k", [(np.int32, float("nan")), (np.uint8, float("inf")),
                                      (np.int32, 3e9), (np.uint8, -1.5), (np.int64, 1e30),
                                      (np.int32, -2.7)])
def test_runtime_python_float_store_checked(fn, dtype, k):
    _compare(fn, np.zeros(2, dtype), k, True)


@pytest.mark.parametrize("fn", STORES)
@pytest.mark.parametrize("k", [np.float64("nan"), np.float32("inf"), np.float64(3e9),
                               np.int64(300), np.float64(-2.5)])
def test_numpy_scalar_store_into_signed_array(fn, k):
    # NumPy converts a NumPy scalar with int() where it stores one item, a
    # slice or a fill value (raising), and casts it in a fancy or masked
    # store, np.full and np.insert.
    _compare(fn, np.zeros(2, np.int8 if isinstance(k, np.integer) else np.int32), k, False)


def quantize(x, v, n):
    for i in range(n):
        x[i] = v[i]
    return x


def test_float_array_elements_into_int_array_in_runtime_loop():
    check(quantize, np.zeros(3, np.int32), np.array([0.5, 1.5, -2.5]), 3)
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        tpucc.compile(quantize)(np.zeros(3, np.int32), np.array([1.0, np.nan, 1e30]), 3)
    with pytest.raises(OverflowError, match="Python integer 3000000000 out of bounds for int32"):
        tpucc.compile(quantize)(np.zeros(3, np.int32), np.array([1.0, 3e9, 1.0]), 3)


def uint8_of(k):
    return np.uint8(k)


def test_numpy_integer_of_runtime_float():
    for k in (float("nan"), 300.5, float("inf")):
        with pytest.raises((ValueError, OverflowError)) as eager:
            uint8_of(k)
        with pytest.raises(type(eager.value), match=str(eager.value)):
            tpucc.compile(uint8_of, runtime_args=("k",))(k)
    check(uint8_of, 255.9, compile_kwargs={"runtime_args": ("k",)})


def safe_add(x, k=300):
    try:
        y = x + k
    except OverflowError:
        y = x.astype(np.int64) + k
    return y


def safe_store(x):
    try:
        x[0] = 300
    except OverflowError as e:
        return str(e)
    return "stored"


def safe_fill(x):
    try:
        x.fill(float("nan"))
    except ValueError:
        x.fill(-1)
    return x


@pytest.mark.parametrize("fn", [safe_add, safe_store, safe_fill])
def test_static_overflow_is_caught_by_the_program(fn):
    check(fn, np.arange(3, dtype=np.uint8 if fn is not safe_fill else np.int32))


def test_static_overflow_uncaught_is_numpy_error():
    # As `int_array ** -1`'s ValueError: the program's exception, E700.
    raises_at(lambda x: x + 300, (np.zeros(2, np.uint8),), tpucc.errors.UserCodeError,
              match="OverflowError: Python integer 300 out of bounds for uint8", line_of="x + 300")


def roll_by(a, s):
    return np.roll(a, s)


def roll_axis(a, s):
    return np.roll(a, s, axis=1), np.roll(a, -s, axis=0), np.roll(a, (s, 1), axis=(1, 0))


def roll_same_axis_twice(a, s):
    return np.roll(a, (s, 2, s), axis=(0, 0, -1))


def autocorr(x, maxlag):
    out = np.zeros(4)
    k = 0
    while k < maxlag:            # runtime trip count, runtime lag
        out[k] = (x * np.roll(x, k)).sum()
        k += 1
    return out


def roll_in_try(a, s):
    try:
        return np.roll(a, s)
    except IndexError:
        return a


@pytest.mark.parametrize("s", [np.int64(2), np.int64(-7), np.int64(13), np.int32(0)])
def test_roll_runtime_shift(s):
    check(roll_by, np.arange(5), s)
    check(roll_by, np.arange(12.0).reshape(3, 4), s)      # axis=None: the flat array
    check(roll_axis, np.arange(12).reshape(3, 4), s)
    check(roll_same_axis_twice, np.arange(12).reshape(3, 4), s)
    check(roll_in_try, np.arange(5), s)     # no runtime index check to refuse
    check(roll_by, np.arange(4), int(s), compile_kwargs={"runtime_args": ("s",)})


def test_roll_runtime_shift_in_runtime_loop():
    check(autocorr, np.arange(6.0), np.int64(3))


def test_roll_of_empty_axis_runtime_shift():
    check(roll_axis, np.zeros((0, 3)), np.int64(2))
