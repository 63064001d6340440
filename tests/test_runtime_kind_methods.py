"""A 0-d value whose kind (NumPy scalar or 0-d array) only the run decides:
branches or loop iterations that disagree carry a runtime flag, and the
methods NumPy runs on a 0-d array and converts back (s.copy(), s.T,
s.reshape(())) keep the operand's kind from that flag."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import assert_same


def copied_after_a_runtime_if(x, c):
    h = np.zeros(())
    if c > 0:
        h = h + x           # a NumPy float64 on this path, the 0-d array on the other
    return h.copy(), h.T, h.reshape(())


def copied_in_a_counted_loop(x):
    h = np.zeros(())
    g = h
    for r in x:             # 40 iterations: one counted While
        g = h.copy()
        h = h + r.sum()
    return g, h


@pytest.mark.parametrize("c", [1, -1])
def test_methods_keep_a_kind_decided_at_run_time(c):
    compiled = tpucc.compile(copied_after_a_runtime_if, runtime_args=("c",))
    assert_same(copied_after_a_runtime_if(1.0, c), compiled(1.0, c))
    if c > 0:
        assert type(compiled(1.0, c)[0]) is np.float64


def test_a_copy_in_a_loop_keeps_its_kind():
    x = np.ones((40, 2))
    got = tpucc.compile(copied_in_a_counted_loop)(x)
    want = copied_in_a_counted_loop(x)
    assert_same(want, got)
    assert type(got[0]) is np.float64


def updated_with_an_operator(x):
    v = np.zeros(())
    if x[0] > 0:
        v = x.sum()         # a NumPy scalar on this path
    w = v.copy()
    w += 1                  # the 0-d array: updated in place, still a 0-d array
    v *= 2
    return w, v


@pytest.mark.parametrize("first", [-1.0, 1.0])
def test_augmented_operators_keep_a_kind_decided_at_run_time(first):
    x = np.array([first, 2.0])
    assert_same(updated_with_an_operator(x.copy()), tpucc.compile(updated_with_an_operator)(x))
