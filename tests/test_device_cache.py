"""device_cache=True: captured arrays are uploaded once, rebinding is seen."""
import numpy as np

import tpucc


def aligned_arange(shape):
    """A 64-byte-aligned array: the case where the CPU's device_put could
    alias NumPy memory (in-place edits would then leak into the cache)."""
    n = int(np.prod(shape))
    buf = np.empty(n + 16)
    start = (-buf.ctypes.data % 64) // 8
    a = buf[start:start + n].reshape(shape)
    a[...] = np.arange(n).reshape(shape)
    return a


class Layer:
    def __init__(self):
        self.w = aligned_arange((2, 3))

    def __call__(self, x):
        return x @ self.w


def test_device_cache_sees_rebinding_not_in_place_changes():
    layer = Layer()
    f = tpucc.compile(lambda x: layer(x), device_cache=True)
    x = np.ones((1, 2))
    np.testing.assert_allclose(f(x), x @ layer.w)
    layer.w = layer.w * 2                       # a new array object: seen
    np.testing.assert_allclose(f(x), x @ layer.w)
    old = layer.w.copy()
    layer.w[0, 0] = 100.0                       # in place: documented as not seen
    np.testing.assert_allclose(f(x), x @ old)


def test_default_reads_captured_arrays_every_call():
    layer = Layer()
    f = tpucc.compile(lambda x: layer(x))
    x = np.ones((1, 2))
    layer.w[0, 0] = 100.0
    np.testing.assert_allclose(f(x), x @ layer.w)
