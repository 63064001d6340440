"""Sweep 27: NumPy's checks on a value stored into an integer array
(OverflowError / ValueError) made at run time for runtime scalars, and the
static OverflowError of `uint8_array + 300` caught by the program."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tests.conftest import assert_same, check, raises_at


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


def _slots3(fn):
    def stores(x0, x1, x2, k0, k1, k2):
        return fn(x0, k0), fn(x1, k1), fn(x2, k2)
    return stores


def _slots4(fn):
    def stores(x0, x1, x2, x3, k0, k1, k2, k3):
        return fn(x0, k0), fn(x1, k1), fn(x2, k2), fn(x3, k3)
    return stores


def _compare_each(fn, cases, runtime_python):
    """For each (dtype, k): eager and compiled (k a runtime argument) raise
    the same built-in exception with NumPy's message, or give the same array.
    One program holds a slot per kind of (dtype, type(k)); each call puts its
    k in its kind's slot and a harmless 0 in the others, so the calls differ
    in values only: one XLA compile for all the cases."""
    kinds = list(dict.fromkeys((np.dtype(d), type(k)) for d, k in cases))
    g = {3: _slots3, 4: _slots4}[len(kinds)](fn)
    names = tuple(f"k{i}" for i in range(len(kinds)))
    compiled = tpucc.compile(g, cache=False,
                             **({"runtime_args": names} if runtime_python else {}))
    for dtype, k in cases:
        slot = kinds.index((np.dtype(dtype), type(k)))
        xs = [np.zeros(2, d) for d, _ in kinds]
        ks = [k if i == slot else t(0) for i, (_, t) in enumerate(kinds)]
        try:
            expected = g(*[x.copy() for x in xs], *ks)
        except (ValueError, OverflowError) as e:
            with pytest.raises(type(e)) as info:
                compiled(*[x.copy() for x in xs], *ks)
            assert isinstance(info.value, tpucc.errors.RuntimeRaiseError)
            assert str(e) in str(info.value) or "Python int" in str(e), (str(e), str(info.value))
            continue
        actual = compiled(*[x.copy() for x in xs], *ks)
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("fn", STORES)
def test_runtime_python_int_store_checked(fn):
    _compare_each(fn, [(np.uint8, 300), (np.uint8, -1), (np.int8, -129),
                       (np.uint64, -1), (np.uint8, 255), (np.int32, 7)], True)


@pytest.mark.parametrize("fn", STORES)
def test_runtime_python_float_store_checked(fn):
    _compare_each(fn, [(np.int32, float("nan")), (np.uint8, float("inf")),
                       (np.int32, 3e9), (np.uint8, -1.5), (np.int64, 1e30),
                       (np.int32, -2.7)], True)


@pytest.mark.parametrize("fn", STORES)
def test_numpy_scalar_store_into_signed_array(fn):
    # NumPy converts a NumPy scalar with int() where it stores one item, a
    # slice or a fill value (raising), and casts it in a fancy or masked
    # store, np.full and np.insert.
    ks = [np.float64("nan"), np.float32("inf"), np.float64(3e9), np.int64(300), np.float64(-2.5)]
    _compare_each(fn, [(np.int8 if isinstance(k, np.integer) else np.int32, k) for k in ks], False)


def quantize(x, v, n):
    for i in range(n):
        x[i] = v[i]
    return x


def test_float_array_elements_into_int_array_in_runtime_loop():
    f = tpucc.compile(quantize, cache=False)    # one executable: the inputs differ in values
    x, v = np.zeros(3, np.int32), np.array([0.5, 1.5, -2.5])
    expected = quantize(x.copy(), v.copy(), 3)
    xc = x.copy()
    assert_same(expected, f(xc, v.copy(), 3))
    assert_same(expected, xc)                   # written back
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        f(np.zeros(3, np.int32), np.array([1.0, np.nan, 1e30]), 3)
    with pytest.raises(OverflowError, match="Python integer 3000000000 out of bounds for int32"):
        f(np.zeros(3, np.int32), np.array([1.0, 3e9, 1.0]), 3)


def uint8_of(k):
    return np.uint8(k)


def test_numpy_integer_of_runtime_float():
    f = tpucc.compile(uint8_of, runtime_args=("k",), cache=False)     # one executable
    for k in (float("nan"), 300.5, float("inf")):
        with pytest.raises((ValueError, OverflowError)) as eager:
            uint8_of(k)
        with pytest.raises(type(eager.value), match=str(eager.value)):
            f(k)
    assert_same(uint8_of(255.9), f(255.9))


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


SHIFTS = [np.int64(2), np.int64(-7), np.int64(13), np.int32(0)]


def _each_shift(fn, a, shifts, **compile_kwargs):
    """check for each shift through ONE compiled fn (shifts of one type
    differ in value only: one executable)."""
    compiled = tpucc.compile(fn, cache=False, **compile_kwargs)
    for s in shifts:
        expected = fn(a.copy(), s)
        ac = a.copy()
        assert_same(expected, compiled(ac, s))
        assert_same(a, ac)


@pytest.mark.parametrize("case", ["1d", "2d flat", "axis", "same axis twice", "try", "python int"])
def test_roll_runtime_shift(case):
    if case == "1d":
        _each_shift(roll_by, np.arange(5), SHIFTS)
    elif case == "2d flat":
        _each_shift(roll_by, np.arange(12.0).reshape(3, 4), SHIFTS)   # axis=None: the flat array
    elif case == "axis":
        _each_shift(roll_axis, np.arange(12).reshape(3, 4), SHIFTS)
    elif case == "same axis twice":
        _each_shift(roll_same_axis_twice, np.arange(12).reshape(3, 4), SHIFTS)
    elif case == "try":
        _each_shift(roll_in_try, np.arange(5), SHIFTS)     # no runtime index check to refuse
    else:
        _each_shift(roll_by, np.arange(4), [int(s) for s in SHIFTS], runtime_args=("s",))


def test_roll_runtime_shift_in_runtime_loop():
    check(autocorr, np.arange(6.0), np.int64(3))


def test_roll_of_empty_axis_runtime_shift():
    check(roll_axis, np.zeros((0, 3)), np.int64(2))
