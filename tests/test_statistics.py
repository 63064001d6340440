"""np.median, np.percentile and np.quantile (tpucc/ops/statistics.py)
against eager NumPy: values, dtypes, NumPy-scalar vs 0-d array results, NaN
slices, every axis form, keepdims."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc

from conftest import check, same_each

RNG = np.random.default_rng(7)
ARRAYS = {
    "f32 odd": (RNG.standard_normal(7) * 10).astype(np.float32),
    "f64 even": RNG.standard_normal(6) * 10,
    "i64 2d": RNG.integers(-50, 50, (3, 4)),
    "i8 3d": RNG.integers(-50, 50, (2, 3, 5)).astype(np.int8),
    "bool": RNG.integers(0, 2, (4, 3)).astype(bool),
    "f16": (RNG.standard_normal((3, 4)) * 10).astype(np.float16),
    "0-d": np.array(2.5),
    "nan": np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]]),
}


def _axes(x):
    return [None] + list(range(-x.ndim, x.ndim)) + ([(0, x.ndim - 1)] if x.ndim > 1 else [])


@pytest.mark.parametrize("name", sorted(ARRAYS))
def test_median_matches_numpy(name):
    x = ARRAYS[name]
    # every axis form and keepdims in one program: one compile per array
    forms = [(a, k) for a in _axes(x) for k in (False, True)]
    check(lambda v: tuple(np.median(v, axis=a, keepdims=k) for a, k in forms), x)


def test_median_inside_a_runtime_loop():
    def running_medians(x, n):
        out = np.zeros(4)
        for k in range(n):
            out[k] = np.median(x + k)
        return out
    check(running_medians, ARRAYS["f64 even"], np.int64(3))
    assert "while" in tpucc.compile(running_medians).lower(ARRAYS["f64 even"], np.int64(3)).as_text()


def test_median_refusals_name_the_line():
    with pytest.raises(tpucc.DTypeError, match="complex"):
        tpucc.compile(lambda v: np.median(v))(np.ones(3, np.complex64))
    with pytest.raises(tpucc.UnsupportedError, match="out=") as info:
        tpucc.compile(lambda v, o: np.median(v, out=o))(np.ones(3), np.zeros(()))
    assert info.value.loc is not None and info.value.loc.file == __file__


# --- np.percentile / np.quantile ----------------------------------------------------------

QS = {"percentile": [50, 37.5, 100.0, [10, 90], [0.0, 33.3, 100]],
      "quantile": [0.25, 1, [0.1, 0.9], [0, 1]]}


def _reference_or_error(fn):
    try:
        return fn(), None
    except (TypeError, ValueError) as e:
        return None, e


@pytest.mark.parametrize("name", sorted(set(ARRAYS) - {"bool", "0-d"}))
@pytest.mark.parametrize("func", ["percentile", "quantile"])
def test_percentile_and_quantile_match_numpy(name, func):
    """Values, dtypes (a Python-number q keeps a float array's dtype, a list
    gives float64, integer q of quantile keeps integers), scalar kinds, NaN
    slices, every axis form, keepdims."""
    x = ARRAYS[name]
    fn = getattr(np, func)
    # Each axis form once (a negative axis is the same code as its positive
    # one), keepdims on the whole array and on the last form: each is a compile.
    forms = [None] + list(range(x.ndim)) + ([-1, (0, x.ndim - 1)] if x.ndim > 1 else [])
    pairs = [(a, False) for a in forms] + [(None, True), (forms[-1], True)]
    # every q and every axis form in one program: one compile
    check(lambda v: tuple(fn(v, q, axis=a, keepdims=k) for a, k in pairs for q in QS[func]), x)


def test_percentile_errors_are_numpys_and_runtime_q_is_refused():
    x = np.arange(5.0)
    with pytest.raises(tpucc.errors.UserCodeError, match="Percentiles must be in the range"):
        tpucc.compile(lambda v: np.percentile(v, 101))(x)
    with pytest.raises(tpucc.errors.UserCodeError, match="Quantiles must be in the range"):
        tpucc.compile(lambda v: np.quantile(v, [0.5, -0.1]))(x)
    with pytest.raises(tpucc.errors.UnsupportedError, match="known only at run time"):
        tpucc.compile(lambda v, q: np.percentile(v, q))(x, np.array([50.0]))
    with pytest.raises(tpucc.errors.UnsupportedError, match="method"):
        tpucc.compile(lambda v: np.percentile(v, 50, method="nearest"))(x)


def test_percentiles_of_runtime_slices_in_a_loop():
    def spread(x, n):
        total = 0.0
        for k in range(n):
            lo, hi = np.percentile(x * k - x[k], [25, 75])
            total += hi - lo
        return total
    x = np.array([3.0, 1.0, 4.0, 1.5, 9.0])
    same_each(spread, *[(x, np.int64(n)) for n in (1, 3, 4)])
