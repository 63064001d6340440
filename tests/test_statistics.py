"""np.median (tpucc/ops/statistics.py) against eager NumPy: values, dtypes,
NumPy-scalar vs 0-d array results, NaN slices, every axis form, keepdims."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc

from conftest import check

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
    for axis in _axes(x):
        for keepdims in (False, True):
            check(lambda v, a=axis, k=keepdims: np.median(v, axis=a, keepdims=k), x)


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
