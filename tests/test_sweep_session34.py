"""Session 34's sweeps: programs users write that the VGG19 path never
exercises (a model zoo, NumPy's wider API, the ahead-of-time path)."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc

from conftest import check, count_hlo, hlo


def weighted_until(x):
    weights = [0.5 * i for i in range(100)]
    s = np.float32(0)
    for w in weights:
        s = s + w * x[0]
        if s > 50:
            break
    return s, w


def first_over(x, n):
    for i, k in enumerate(list(range(3, 90))):
        if k * x[0] > n:
            return i, k
    return -1, -1


@pytest.mark.parametrize("scale", [1.0, 0.01])
def test_a_long_loop_over_static_numbers_that_a_runtime_break_leaves_is_one_while(scale):
    # (100 numbers: too many to unroll under the exits; was refused with an
    # E400 about the truth value of an array)
    x = np.array([scale], np.float32)
    compiled = check(weighted_until, x)
    assert count_hlo(hlo(compiled, x), "while") == 1
    for n in (10.0, 1000.0):
        check(first_over, x, n)
