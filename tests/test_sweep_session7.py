"""Ordinary Python + NumPy that compiled wrongly or crashed (a sweep of
boolean masks, lists of runtime values, runtime index checks, integer edge
cases, device_cache and Python structure; session 7), each pinned by a test
against eager NumPy."""
import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


# --- runtime indices narrower than int64 -------------------------------------------

def read_at(x, i):
    return x[i]


def write_at(x, i):
    x[i] = -1.0
    return x


def take_both(x, i):
    return np.take(x, i), np.take_along_axis(x, i, 0)


@pytest.mark.parametrize("index", [np.int8(-128), np.int8(-100), np.uint8(255),
                                   np.int16(-300), np.array([-128, 127], np.int8)])
def test_narrow_index_into_a_longer_axis(index):
    # int8 -128 into 300 rows read row 0 (the negative index was wrapped by
    # adding 300 in int8); an int8 index array failed with E700/E999.
    x = np.arange(300.0)
    check(read_at, x, index)
    check(write_at, x, index)


def test_narrow_index_array_in_take():
    check(take_both, np.arange(300.0), np.array([-128, 127, 0], np.int8))


def test_narrow_index_out_of_bounds_still_raises():
    with pytest.raises(tpucc.errors.RuntimeIndexError):
        tpucc.compile(read_at)(np.arange(5.0), np.int8(-6))


# --- integer ** negative integer --------------------------------------------------------

def inverse_power(a):
    return a ** -1


def inverse_power_in_place(a):
    a **= -2
    return a


@pytest.mark.parametrize("fn", [inverse_power, inverse_power_in_place])
def test_integer_to_negative_power_is_refused_like_numpy(fn):
    # It failed in lowering with E999 (jax's integer_pow of a negative exponent).
    with pytest.raises(ValueError):
        fn(np.array([1, 2, 3]))
    raises_at(fn, (np.array([1, 2, 3]),), tpucc.errors.UserCodeError,
              match="Integers to negative integer powers", line_of="**")


def test_float_to_negative_integer_power_compiles():
    check(inverse_power, np.array([1.0, 2.0, 4.0], np.float32))
