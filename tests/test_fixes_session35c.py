"""Session 35's fixes (c): bugs found by the session 35 sweeps, each with
the program that showed it."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc

from conftest import assert_same, check, raises_at


def guarded_normalize(x):
    info = np.finfo(x.dtype)
    return x / (x.sum() + info.tiny), info.resolution, x * info.epsneg


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_finfo_tiny_a_cached_property_of_numpy_is_a_static_fact(dtype):
    # (was refused as a user's functools.cached_property whose cache would
    # outlive the call, unless the process had read it eagerly before)
    # (the fields are computed on first reading, as a process that has not
    # read them yet sees them)
    for name in ("tiny", "resolution", "epsneg"):
        vars(np.finfo(dtype)).pop(name, None)
    x = np.arange(4, dtype=dtype)
    compiled = tpucc.compile(guarded_normalize)(x)
    assert_same(guarded_normalize(x), compiled)
