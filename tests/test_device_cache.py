"""device_cache=True: captured arrays are uploaded once, rebinding is seen;
the default ("auto"): conv weights kept transposed while their bytes stay."""
import jax
import numpy as np
import pytest

import tpucc
import tpucc.nn

from conftest import assert_same


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


# --- stored layouts: conv weights kept on the device HWIO -------------------------------------

class ConvNet:
    """Two convolutions (OIHW weights, as PyTorch stores them) and a
    weight that is also read by something other than a convolution."""
    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.w1 = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
        self.w2 = rng.standard_normal((5, 4, 3, 3)).astype(np.float32)
        self.b2 = rng.standard_normal(5).astype(np.float32)
        self.w3 = rng.standard_normal((2, 5, 1, 1)).astype(np.float32)

    def __call__(self, x):
        y = tpucc.nn.relu(tpucc.nn.conv2d(x, self.w1, padding=1))
        y = tpucc.nn.conv2d(y, self.w2, self.b2, stride=2)
        y = tpucc.nn.conv2d(y, self.w3)
        return y, self.w3.sum()                 # w3 is read as a plain array too


def _x(shape=(2, 3, 9, 9)):
    return np.linspace(-2, 2, int(np.prod(shape)), dtype=np.float32).reshape(shape)


def test_conv_weights_only_read_by_convolutions_are_kept_hwio():
    net = ConvNet()
    f = tpucc.compile(lambda x: net(x), device_cache=True)
    x = _x()
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    lowered = f.lower(x)
    layouts = lowered._entry.traced.input_layouts
    assert sorted(layouts.values()) == [(2, 3, 1, 0)] * 2       # w1 and w2, not w3 nor b2
    hlo = lowered.as_text()
    assert "f32[3,3,3,4]" in hlo and "f32[3,3,4,5]" in hlo      # HWIO parameters
    assert "f32[4,3,3,3]" not in hlo and "f32[2,5,1,1]" in hlo


def test_stored_layouts_see_rebinding_and_not_with_device_cache_false():
    net = ConvNet()
    f = tpucc.compile(lambda x: net(x), device_cache=True)
    plain = tpucc.compile(lambda x: net(x), device_cache=False)
    x = _x()
    f(x)
    net.w1 = net.w1[::-1].copy()                # a new array: uploaded again, transposed
    net.w2 = np.asfortranarray(net.w2)          # any memory order
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    assert_same(net(x), plain(x), rtol=1e-5, atol=1e-5)
    assert plain.lower(x)._entry.traced.input_layouts == {}


# --- the default, device_cache="auto": the transposed copy, kept while the bytes stay -----------

# On accelerators "auto" keeps nothing (driver.cached_input_layouts).
cpu_only = pytest.mark.skipif(jax.default_backend() != "cpu", reason="device_cache='auto' "
                              "keeps transposed weights on the CPU only")


@cpu_only
def test_default_keeps_conv_weights_hwio_on_the_cpu():
    net = ConvNet()
    f = tpucc.compile(lambda x: net(x))
    x = _x()
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    lowered = f.lower(x)
    assert sorted(lowered._entry.traced.input_layouts.values()) == [(2, 3, 1, 0)] * 2
    assert "f32[3,3,3,4]" in lowered.as_text()                  # w1 arrives HWIO


def _uploads(f, monkeypatch):
    """Counts the copies the compiled function's DeviceCache makes."""
    calls = []
    real = tpucc.driver.jax.device_put
    monkeypatch.setattr(tpucc.driver.jax, "device_put", lambda v: calls.append(v) or real(v))
    return calls


@cpu_only
def test_default_sees_every_in_place_change(monkeypatch):
    """NumPy's semantics: the kept copy is used only while the weight holds
    the same bits; each kind of in-place change below is seen."""
    net = ConvNet()
    f = tpucc.compile(lambda x: net(x))
    x = _x()
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    uploads = _uploads(f, monkeypatch)
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    assert uploads == []                                        # unchanged: the kept copy
    changes = [
        lambda w: w.__setitem__((3, 2, 2, 2), w[3, 2, 2, 2] + 1),  # one element, the last slice
        lambda w: w.__setitem__(Ellipsis, w[::-1]),              # a permutation (same sum)
        lambda w: w.__setitem__((0, 0, 0, 0), np.nan),           # NaN, then NaN again: unchanged
        lambda w: w.__setitem__((0, 0, 0, 0), -0.0),             # 0.0 -> -0.0: other bits
        lambda w: w.__setitem__((0, 0, 0, 0), 0.0),
    ]
    expected_uploads = [1, 1, 1, 1, 1]
    for change, n in zip(changes, expected_uploads):
        uploads.clear()
        change(net.w1)
        assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
        assert len(uploads) == n
        uploads.clear()
        assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
        assert uploads == []                                    # NaN stays NaN: still kept


@cpu_only
def test_default_keeps_a_copy_equal_in_content_across_new_arrays(monkeypatch):
    net = ConvNet()
    f = tpucc.compile(lambda x: net(x))
    x = _x()
    f(x)
    uploads = _uploads(f, monkeypatch)
    net.w2 = net.w2.copy()                      # reloaded weights, same values
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    assert uploads == []
    net.w2 = net.w2 * 2
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    assert len(uploads) == 1


@cpu_only
def test_default_keeps_jax_weights_by_identity(monkeypatch):
    net = ConvNet()
    net.w1 = jax.device_put(net.w1)
    f = tpucc.compile(lambda x: net(x))
    x = _x()
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    uploads = _uploads(f, monkeypatch)
    f(x)
    assert uploads == []
    net.w1 = net.w1 * 2                         # a new jax array
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    assert len(uploads) == 1


def test_device_cache_option_is_checked():
    with pytest.raises(TypeError, match="device_cache must be True, False or \"auto\""):
        tpucc.compile(lambda x: x, device_cache="yes")


def _loss(net, w1, x):
    y = tpucc.nn.relu(tpucc.nn.conv2d(x, w1, padding=1))
    return (tpucc.nn.conv2d(y, net.w2, net.b2, stride=2) ** 2).sum()


def test_weights_updated_in_place_stay_logical():
    """A training step: w1 is differentiated and updated (logical); w2, read
    only by a convolution inside the differentiated function, is HWIO."""
    net = ConvNet()

    def step(x, lr):
        loss, g = tpucc.value_and_grad(_loss, argnums=1)(net, net.w1, x)
        net.w1 -= lr * g
        return loss

    f = tpucc.compile(step, device_cache=True)
    eager_net = ConvNet()
    x = _x()
    loss = f(x, 0.01)
    expected_loss, g = tpucc.value_and_grad(_loss, argnums=1)(eager_net, eager_net.w1, x)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-5)
    np.testing.assert_allclose(net.w1, eager_net.w1 - 0.01 * g, rtol=1e-5, atol=1e-5)
    assert list(f.lower(x, 0.01)._entry.traced.input_layouts.values()) == [(2, 3, 1, 0)]


class ViewOfUpdated:
    """A conv weight that is a view of an array the function updates in place."""
    def __init__(self):
        self.big = np.linspace(-1, 1, 2 * 4 * 3 * 3 * 3, dtype=np.float32).reshape(2, 4, 3, 3, 3)
        self.w = self.big[0]

    def __call__(self, x):
        self.big[0] *= 2                            # NumPy: the convolution sees this
        return tpucc.nn.conv2d(x, self.w)


@pytest.mark.parametrize("mode", [False, "auto", True])
def test_a_kept_weight_sharing_memory_with_an_updated_array_is_refused(mode):
    """The shared-memory check reads the arrays themselves, not the copies a
    cache keeps (which hid the sharing: a silent wrong result)."""
    net = ViewOfUpdated()
    f = tpucc.compile(lambda x: net(x), device_cache=mode)
    with pytest.raises(tpucc.SideEffectError, match="shares memory with attribute `.w`"):
        f(_x((1, 3, 5, 5)))


def _functional(params, x):
    w1, w2, b2 = params
    y = tpucc.nn.relu(tpucc.nn.conv2d(x, w1, padding=1))
    return tpucc.nn.conv2d(y, w2, b2, stride=2)


@cpu_only
def test_default_keeps_weights_passed_as_arguments(monkeypatch):
    """forward(params, x): the weights are arguments, kept and compared the same way."""
    net = ConvNet()
    params = [net.w1, net.w2, net.b2]
    f = tpucc.compile(_functional)
    x = _x()
    assert_same(_functional(params, x), f(params, x), rtol=1e-5, atol=1e-5)
    assert sorted(f.lower(params, x)._entry.traced.input_layouts) == [0, 1]
    uploads = _uploads(f, monkeypatch)
    assert_same(_functional(params, x), f(params, x), rtol=1e-5, atol=1e-5)
    assert uploads == []
    params[1][0, 0, 0, 0] += 1.0                        # in place: seen
    assert_same(_functional(params, x), f(params, x), rtol=1e-5, atol=1e-5)
    assert len(uploads) == 1
    other = [p * 0.5 for p in params]                   # other arrays: seen
    assert_same(_functional(other, x), f(other, x), rtol=1e-5, atol=1e-5)


def _update_then_conv(w, x):
    w *= 2                                              # an argument updated in place
    return tpucc.nn.conv2d(x, w)


@cpu_only
def test_an_argument_updated_in_place_is_not_kept():
    w = ConvNet().w1
    f = tpucc.compile(_update_then_conv)
    x = _x()
    w_eager = w.copy()
    assert_same(_update_then_conv(w_eager, x), f(w, x), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(w, w_eager)
    assert f.lower(w.copy(), x)._entry.traced.input_layouts == {}


@cpu_only
def test_default_sees_in_place_changes_to_a_memmap(tmp_path):
    net = ConvNet()
    mm = np.lib.format.open_memmap(tmp_path / "w1.npy", mode="w+", dtype=np.float32,
                                   shape=net.w1.shape)
    mm[...] = net.w1
    net.w1 = mm
    f = tpucc.compile(lambda x: net(x))
    x = _x()
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
    mm[1] *= -3                                         # in place, through the memmap
    assert_same(net(x), f(x), rtol=1e-5, atol=1e-5)
