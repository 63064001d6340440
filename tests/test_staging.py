"""Large NumPy inputs XLA:CPU cannot read in place (misaligned or strided)
are copied into aligned buffers the compiled function keeps (tpucc/staging.py):
results and in-place updates stay those of eager NumPy whatever the input's
alignment, a changed input is re-copied at every call, and the buffers are
reused rather than reallocated."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import tpucc
from tpucc import staging

from conftest import assert_same

N = staging.STAGE_MIN_BYTES // 4 + 16          # float32 elements: above the threshold


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TPUCC_CACHE", "0")


def misaligned(values: np.ndarray, offset: int = 16) -> np.ndarray:
    """A copy of `values` whose data starts `offset` bytes past a 64-byte boundary."""
    raw = np.empty(values.nbytes + 128, np.uint8)
    start = -raw.ctypes.data % 64 + offset
    out = raw[start:start + values.nbytes].view(values.dtype).reshape(values.shape)
    out[...] = values
    return out


def test_misaligned_input_recopied_at_every_call():
    f = tpucc.compile(lambda x: x * 2.0 + x.sum())
    x = misaligned(np.arange(N, dtype=np.float32))
    assert not staging.readable_in_place(x)
    for k in range(3):
        x[...] = np.arange(N, dtype=np.float32) * (k + 1)      # new contents, same array
        assert_same(x * 2.0 + x.sum(), f(x))


def test_strided_input():
    f = tpucc.compile(lambda x: x[::2] - x.mean())
    base = np.arange(2 * N, dtype=np.float32).reshape(2, N)
    view = base.T                                   # not C-contiguous
    assert_same(view[::2] - view.mean(), f(view))


def step(w, g):
    w -= 0.5 * g
    return w.sum()


def test_in_place_update_of_a_misaligned_argument():
    w = misaligned(np.linspace(0, 1, N, dtype=np.float32))
    g = misaligned(np.ones(N, np.float32), offset=32)
    eager_w = w.copy()
    f = tpucc.compile(step)
    for _ in range(3):
        expected = step(eager_w, g)
        assert_same(expected, f(w, g))
        assert_same(eager_w, w)


class Layer:
    def __init__(self):
        self.weight = misaligned(np.full(N, 3.0, np.float32))

    def forward(self, x):
        return (self.weight * x).sum()


def test_misaligned_weight_read_through_an_attribute():
    layer = Layer()
    f = tpucc.compile(layer.forward)
    x = np.float32(2.0)
    assert_same(layer.forward(x), f(x))
    layer.weight[:10] = -1.0                        # edited in place between calls
    assert_same(layer.forward(x), f(x))


def recording_call(record):
    def call(*inputs):
        record.append(inputs)
        return [np.float32(0)]
    return call


def test_buffers_are_reused_and_aligned_inputs_pass_through():
    record = []
    big = staging.STAGE_MIN_BYTES // 4
    avals = [np.zeros(big, np.float32), np.zeros(4, np.float32)]
    call = staging.staged_caller(recording_call(record), avals)
    aligned = staging.aligned_empty((big,), np.float32)
    small = np.zeros(4, np.float32)
    call(aligned, small)
    assert record[-1][0] is aligned and record[-1][1] is small
    x = misaligned(np.arange(big, dtype=np.float32))
    call(x, small)
    first = record[-1][0]
    assert first is not x and staging.readable_in_place(first)
    np.testing.assert_array_equal(first, x)
    x += 1
    call(x, small)
    assert record[-1][0] is first                    # the same buffer, refilled
    np.testing.assert_array_equal(first, x)


def test_busy_buffers_fall_back_to_the_input():
    """A call from a second thread while the first holds the buffers passes
    its input as is (PJRT copies it) instead of waiting or sharing them."""
    record, release, inside = [], threading.Event(), threading.Event()
    big = staging.STAGE_MIN_BYTES // 4

    def slow_call(*inputs):
        record.append(inputs)
        if len(record) == 1:
            inside.set()
            release.wait(5)
        return [np.float32(0)]
    call = staging.staged_caller(slow_call, [np.zeros(big, np.float32)])
    x, y = misaligned(np.ones(big, np.float32)), misaligned(np.zeros(big, np.float32))
    first = threading.Thread(target=call, args=(x,))
    first.start()
    assert inside.wait(5)
    call(y)
    release.set()
    first.join()
    assert record[0][0] is not x and record[1][0] is y
