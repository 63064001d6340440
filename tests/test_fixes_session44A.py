"""Fixes of sweep 44A (time series and rolling windows): a ring buffer read
in time order, fmax/fmin/logical_or/logical_and.accumulate, warnings filters
inside the compiled function, and loops that used to unroll (expanding
median, seasonal profile by phase, runtime-if-heavy short loops)."""
import numpy as np
import pytest

import tpucc
from conftest import raises_at, same


# --- bug_03: np.concatenate([buf[h:], buf[:h]]) with a runtime h --------------------------

def _ring_read(buf, k):
    h = int(k[0])
    return np.concatenate([buf[h:], buf[:h]])


def _ring_in_order(buf, k):
    h = int(k[0])
    return np.concatenate((buf[:h], buf[h:]))


def _two_arrays(a, b, k):
    h = int(k[0])
    return np.concatenate([a[h:], b[:h]])


def _ring_rows(m, k):
    h = int(k[0])
    return np.concatenate([m[h:], m[:h]], axis=0)


def _ring_dtype(buf, k):
    h = int(k[0])
    return np.concatenate([buf[h:], buf[:h]], dtype=np.float32)


@pytest.mark.parametrize("h", [-7, -5, -2, 0, 1, 3, 5, 9])
def test_ring_buffer_read_in_time_order(h):
    k = np.array([h])
    same(_ring_read, np.arange(5.), k)
    same(_ring_in_order, np.arange(5, dtype=np.int32), k)
    same(_two_arrays, np.arange(5.), np.arange(10, 15, dtype=np.int64), k)
    same(_ring_rows, np.arange(15.).reshape(5, 3), k)
    same(_ring_dtype, np.arange(5, dtype=np.int64), k)


def test_ring_buffer_one_compile_several_heads():
    f = tpucc.compile(_ring_read, cache=False)
    buf = np.arange(6.)
    for h in range(-6, 8):
        np.testing.assert_array_equal(f(buf, np.array([h])), _ring_read(buf, np.array([h])))


def test_ring_buffer_of_an_object_in_a_loop():
    class Ring:
        def __init__(self, n):
            self.buf, self.pos = np.zeros(n), 0

        def push(self, v):
            self.buf[self.pos] = v
            self.pos = (self.pos + 1) % self.buf.shape[0]

        def ordered(self):
            return np.concatenate([self.buf[self.pos:], self.buf[:self.pos]])

    def run(x):
        r = Ring(4)
        out = np.zeros((x.shape[0], 4))
        for t in range(x.shape[0]):
            r.push(x[t])
            out[t] = r.ordered()
        return out
    same(run, np.arange(1., 60.))


def test_concatenate_of_unrelated_runtime_pieces_names_np_roll():
    def f(buf, k):
        h = int(k[0])
        return np.concatenate([buf[h:], buf[:h + 1]])
    err = raises_at(f, (np.arange(5.), np.array([2])), tpucc.ShapeError,
                    match="slice with runtime bounds", line_of="np.concatenate")
    assert "np.roll(x, -h)" in err.hint
