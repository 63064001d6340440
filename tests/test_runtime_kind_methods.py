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


def reduced_by_methods(x):
    v = np.zeros(())
    if x[0] > 0:
        v = x.sum()
    return v.sum(), v.max(), v.any(), v.argmax(), v.copy()


@pytest.mark.parametrize("first", [-1.0, 1.0])
def test_reductions_of_such_a_value_are_numpy_scalars(first):
    x = np.array([first, 2.0])
    assert_same(reduced_by_methods(x.copy()), tpucc.compile(reduced_by_methods)(x))


def assigns_into_a_copy(x):
    v = np.zeros(())
    if x[0] > 0:
        v = x.sum()         # a NumPy scalar: item assignment is Python's TypeError
    c = v.copy()
    c[...] = 5
    return c


def test_item_assignment_into_a_number_is_a_type_error():
    compiled = tpucc.compile(assigns_into_a_copy)
    assert_same(assigns_into_a_copy(np.array([-1.0, 2.0])), compiled(np.array([-1.0, 2.0])))
    with pytest.raises(TypeError, match="'numpy.float64' object does not support item"):
        compiled(np.array([1.0, 2.0]))

    def static_scalar(x):
        s = x.sum()
        s[...] = 5
        return s
    with pytest.raises(tpucc.TpuccError, match="TypeError: 'numpy.float64' object does not"):
        tpucc.compile(static_scalar)(np.ones(2))
