"""Bugs from sweep 46C (quantization, histograms), fixed in session 46C2:
np.array(list a loop grew, dtype=...) slow to compile (a cast and a check
per item), and np.histogram with bin edges, np.histogramdd with integer
bins and np.histogram of x[mask] refused."""
import re

import numpy as np
import pytest

import tpucc
from conftest import hlo, raises_at, same, same_each


# --- bug_02: np.array(list of runtime scalars, dtype=...) -------------------------------------

def _grown(convert, dtype):
    def grown(x):
        out = []
        for i in range(len(x)):
            out.append(convert(x[i] * 2))
        return np.array(out, dtype=dtype)
    return grown


def _numpy_scalar(v):
    return v


def _positive(v):
    return v > 0


def _hlo_lines(fn, x) -> int:
    return len(hlo(tpucc.compile(fn, cache=False), x).splitlines())


@pytest.mark.parametrize("convert", [_numpy_scalar, float, _positive])
@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8, np.float32, np.float64])
def test_array_of_a_grown_list_with_a_dtype(convert, dtype):
    x = np.linspace(-30, 30, 200)
    if convert is float and dtype == np.uint8:
        x = np.abs(x)           # (a Python float below 0 does not fit uint8: tested below)
    if dtype == np.int8 and convert is not _positive:
        x = x / 2
    same_each(_grown(convert, dtype), (x,), (x[::-1].copy(),))


@pytest.mark.parametrize("dtype", [np.int64, np.uint8, np.float32])
def test_array_of_a_grown_list_compiles_to_one_cast(dtype):
    """The module does not grow with the list: one cast of the loop's buffer
    and one check, not a cast, a check and a stacked piece per item."""
    f = _grown(_numpy_scalar, dtype)
    short, long = _hlo_lines(f, np.linspace(0, 30, 100)), _hlo_lines(f, np.linspace(0, 30, 400))
    assert long == short


def test_array_of_a_grown_list_of_ints_and_bools():
    def quantize(x):
        bits = []
        for v in x:
            bits.append(v > 0)
        return np.array(bits, dtype=np.uint8)

    def as_ints(x):
        out = []
        for i in range(len(x)):
            out.append(int(x[i]))
        return np.array(out, dtype=np.int16), np.array(out, dtype=np.float32)
    x = np.sin(np.arange(300) / 7) * 100
    same(quantize, x)
    same(as_ints, x)
    assert _hlo_lines(quantize, x) == _hlo_lines(quantize, x[:120])


@pytest.mark.parametrize("dtype, bad, error, message", [
    (np.int64, [(150, np.nan), (250, np.inf)], ValueError, "cannot convert float NaN"),
    (np.int8, [(150, 70.0), (250, np.nan)], OverflowError, "Python integer 140 out of bounds"),
    (np.int32, [(150, -np.inf), (250, np.nan)], OverflowError, "cannot convert float infinity"),
    (np.int64, [(150, 1e30)], OverflowError, "too large to convert to C long"),
])
def test_array_of_a_grown_list_raises_at_the_first_item_numpy_raises_at(dtype, bad, error, message):
    x = np.linspace(0, 30, 300)
    for i, v in bad:
        x[i] = v
    f = _grown(_numpy_scalar, dtype)
    with pytest.raises(error, match=message):
        f(x)
    raises_at(f, (x,), error, match=message, line_of="np.array(out", cache=False)
    same(f, np.linspace(0, 30, 300))


def test_array_of_a_grown_list_of_python_ints_checks_each_fits():
    f = _grown(int, np.uint8)
    x = np.linspace(0, 100, 300)
    x[200] = -3.0
    with pytest.raises(OverflowError, match="Python integer -6 out of bounds for uint8"):
        f(x)
    raises_at(f, (x,), OverflowError, match="Python integer -6 out of bounds for uint8",
              line_of="np.array(out", cache=False)


def test_array_of_grown_pairs_with_a_dtype():
    def pairs(x):
        out = []
        for i in range(len(x)):
            out.append((x[i] > 0, i))
        return np.array(out, dtype=np.uint8), np.array(out, dtype=np.float32)
    same(pairs, np.cos(np.arange(200.0)))

