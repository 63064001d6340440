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


# --- bug_06: np.histogram with bin edges, np.histogramdd, np.histogram of x[mask] -----------

def histogram_of_listed_edges(x):
    return np.histogram(x, bins=[0.0, 0.1, 0.5, 1.0])


def histogram_of_int_edges(x):
    return np.histogram(x, bins=(0, 1, 5)), np.histogram_bin_edges(x, [0, 2, 3])


def histogram_of_edges(x, edges):
    counts, got = np.histogram(x, bins=edges)
    return counts, got, got is edges


def histogram_of_edges_density(x, edges):
    return np.histogram(x, bins=edges, density=True)


def histogram_of_edges_weighted(x, edges, w):
    return np.histogram(x, bins=edges, weights=w)


def histogram_of_runtime_listed_edges(x):
    return np.histogram(x, bins=[0.0, np.median(x), 1.0])


def thresholds_histogram(x):
    thresholds = np.array([-1.0, -0.25, 0.0, 0.25, 1.0])       # a quantizer's
    counts, _ = np.histogram(np.clip(x, -1, 1), bins=thresholds)
    return counts


_VALUES = np.array([0.05, 0.2, 0.7, 0.3, 1.0, 0.1, 0.5, -0.2, np.nan, 1.5])


def test_histogram_with_listed_edges():
    same_each(histogram_of_listed_edges, (_VALUES,), (np.array([0.1, 0.1, 1.0, 0.0]),),
              (np.zeros(0),))
    same_each(histogram_of_int_edges, (np.arange(-1, 7),), (np.array([0.5, 2.0, 2.5, 5.0]),))
    same(histogram_of_runtime_listed_edges, np.linspace(0, 1, 9) ** 2)
    same(thresholds_histogram, np.sin(np.arange(50.0)))


@pytest.mark.parametrize("x_dtype, edge_dtype", [
    (np.float64, np.float64), (np.float32, np.float64), (np.float64, np.float32),
    (np.int64, np.float64), (np.int32, np.int64), (np.uint8, np.int8), (np.bool_, np.float64)])
def test_histogram_with_edge_arrays(x_dtype, edge_dtype):
    x = (np.arange(24) % 7 - 1).astype(x_dtype)
    edges = np.array([-1, 0, 2, 3, 5], dtype=edge_dtype)
    same_each(histogram_of_edges, (x, edges), (x[::-1].copy(), np.array([0, 1], edge_dtype)))
    same(histogram_of_edges_density, x, edges)


@pytest.mark.parametrize("w_dtype", [np.float64, np.float32, np.int32, np.uint8, np.complex128])
def test_histogram_with_edges_and_weights(w_dtype):
    x = np.array([0.05, 0.2, 0.7, 0.3, 1.0, 0.1, 0.5, -0.2, 0.2])
    w = (np.arange(9) % 4 + 1).astype(w_dtype)
    same(histogram_of_edges_weighted, x, np.array([0.0, 0.2, 0.5, 1.0]), w)


def test_histogram_edge_errors_are_numpys():
    x = np.array([0.1, 0.6])
    with pytest.raises(ValueError, match="increase monotonically"):
        histogram_of_edges(x, np.array([0.0, 1.0, 0.5]))
    raises_at(histogram_of_edges, (x, np.array([0.0, 1.0, 0.5])), ValueError,
              match="increase monotonically", line_of="np.histogram(", cache=False)

    def decreasing(x):
        return np.histogram(x, bins=[0, 2, 1])
    raises_at(decreasing, (x,), ValueError, match="increase monotonically",
              line_of="np.histogram(", cache=False)

    def bool_weights(x, w):
        return np.histogram(x, bins=[0, 0.5, 1], weights=w)
    with pytest.raises(TypeError):
        bool_weights(x, np.ones(2, bool))
    raises_at(bool_weights, (x, np.ones(2, bool)), TypeError, match="Cannot cast ufunc 'add'",
              line_of="np.histogram(", cache=False)

    def estimated(x):
        return np.histogram(x, bins="auto")
    raises_at(estimated, (x,), tpucc.errors.UnsupportedError, match="array of edges",
              line_of="np.histogram(", cache=False)


def histogramdd_of_columns(x):
    return np.histogramdd(x, bins=3)


def histogramdd_of_pairs(xy, w):
    return (np.histogramdd(xy, bins=(2, 3), range=[(0, 1), (0, 1)], weights=w),
            np.histogramdd(xy, bins=[np.array([0.0, 0.5, 1.0]), 2], density=True))


def histogramdd_of_a_sequence(x, y):
    return np.histogramdd((x, y * 2), bins=[2, np.array([0.0, 1.0, 2.0])])


def test_histogramdd():
    rng = np.random.default_rng(0)
    same_each(histogramdd_of_columns, (rng.random(20),), (np.arange(7),),
              (rng.random((15, 3)),))
    same(histogramdd_of_pairs, rng.random((30, 2)), rng.random(30))
    same(histogramdd_of_a_sequence, rng.random(10), rng.random(10))


def masked_histogram(x):
    return np.histogram(x[x > 0.1], bins=4, range=(0, 1))


def masked_histogram_of_edges(x, lo):
    return np.histogram(x[x >= lo], bins=[0, 0.5, 0.75, 1.0], density=True)


def masked_weighted_histogram(x, w):
    m = np.abs(x) > 0.2
    return (np.histogram(x[m], bins=3, range=(-1, 1), weights=w[m]),
            np.histogram(x[m], bins=[-1, 0, 1], weights=w[m]))


def masked_rows_histogram(x):
    return np.histogram(x[x[:, 0] > 0], bins=2, range=(-1.0, 1.0))


def sliced_histogram(x, n):
    return np.histogram(x[:n], bins=5, range=(0, 1))


def test_histogram_of_a_mask_selection():
    x = np.array([0.05, 0.2, 0.7, 0.3, 1.0, 0.1, 0.5, -0.2, 0.95])
    same_each(masked_histogram, (x,), (np.zeros(9),))
    same(masked_histogram_of_edges, x, 0.25)
    same(masked_weighted_histogram, np.sin(np.arange(12.0)), np.arange(12) % 5)
    same(masked_rows_histogram, np.cos(np.arange(12.0)).reshape(6, 2))
    same_each(sliced_histogram, (x, 4), (x, 0))


def test_histogram_of_a_mask_selection_without_range_is_refused():
    def autodetected(x):
        return np.histogram(x[x > 0], bins=4)
    raises_at(autodetected, (np.arange(3.0),), tpucc.errors.ShapeError,
              match=r"without range=.*\n(.*\n)*.*hint: pass range=\(lo, hi\)",
              line_of="np.histogram(", cache=False)

    def other_mask_weights(x, w):
        return np.histogram(x[x > 0], bins=2, range=(0, 1), weights=w[w > 0])
    raises_at(other_mask_weights, (np.arange(3.0), np.ones(3)), tpucc.errors.ShapeError,
              line_of="np.histogram(", cache=False)
