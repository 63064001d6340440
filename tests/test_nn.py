"""tpucc.nn: each function compiled by tpucc against its eager NumPy
implementation (and the window ops against a direct loop-based reference),
over shapes, strides, paddings, dilations and groups."""
import numpy as np
import pytest

import tpucc
from tpucc import nn
from tpucc.ops import OPS

from conftest import check


def _r(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def conv_reference(x, w, b, stride, pads, dilation, groups):
    """Direct definition of the convolution: a loop over output positions."""
    (sh, sw), ((pt, pb), (pl, pr)), (dh, dw) = stride, pads, dilation
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    oh = (h + pt + pb - (kh - 1) * dh - 1) // sh + 1
    ow = (wd + pl + pr - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * sh, i * sh + (kh - 1) * dh + 1, dh)
            cols = slice(j * sw, j * sw + (kw - 1) * dw + 1, dw)
            patch = xp[:, :, rows, cols]
            for g in range(groups):
                pg = patch[:, g * cg:(g + 1) * cg]
                wg = w[g * og:(g + 1) * og]
                out[:, g * og:(g + 1) * og, i, j] = np.einsum("nchw,ochw->no", pg, wg)
    if b is not None:
        out += b[None, :, None, None]
    return out


CONV_CASES = [
    # x shape, w shape, stride, padding, dilation, groups
    ((1, 1, 5, 5), (1, 1, 3, 3), 1, 0, 1, 1),
    ((2, 3, 8, 8), (4, 3, 3, 3), 1, 1, 1, 1),
    ((2, 3, 9, 7), (5, 3, 3, 2), 2, (1, 0), 1, 1),
    ((1, 4, 10, 10), (6, 2, 3, 3), 1, "SAME", 1, 2),
    ((2, 4, 11, 9), (4, 1, 3, 3), (2, 1), "SAME", 1, 4),      # depthwise, strided SAME
    ((1, 2, 12, 12), (3, 2, 3, 3), 1, 2, 2, 1),               # dilated
    ((1, 2, 12, 10), (3, 2, 2, 3), (3, 2), "VALID", (2, 1), 1),
    ((1, 3, 6, 6), (2, 3, 1, 1), 1, 0, 1, 1),                 # 1x1
    ((1, 2, 7, 7), (2, 2, 4, 4), 1, ((1, 2), (0, 3)), 1, 1),  # asymmetric padding
    # Inputs smaller than the kernel window (lowered with explicit padding on
    # the CPU, see tpucc/ops/nn.py `convolution`):
    ((2, 3, 2, 2), (4, 3, 3, 3), 1, 1, 1, 1),                 # 2x2 under 3x3
    ((1, 2, 1, 3), (3, 2, 3, 3), 1, 1, 1, 1),                 # one row
    ((1, 2, 3, 3), (2, 2, 3, 3), 1, 2, 2, 1),                 # under a dilated window
    ((1, 4, 2, 2), (4, 2, 3, 3), 1, 1, 1, 2),                 # grouped
]


@pytest.mark.parametrize("xs,ws,stride,padding,dilation,groups", CONV_CASES)
def test_conv2d(xs, ws, stride, padding, dilation, groups):
    x, w, b = _r(xs, 1), _r(ws, 2), _r(ws[0], 3)

    def f(x, w, b):
        return nn.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation,
                         groups=groups)

    check(f, x, w, b, rtol=1e-5, atol=1e-5)
    cfg = nn.conv2d_config(xs, ws, stride, padding, dilation, groups)
    ref = conv_reference(x, w, b, cfg["stride"], cfg["padding"], cfg["dilation"], groups)
    np.testing.assert_allclose(f(x, w, b), ref, rtol=1e-5, atol=1e-5)


def test_conv2d_no_bias_float64_and_mixed():
    x, w = _r((1, 2, 6, 6), 1, np.float64), _r((3, 2, 3, 3), 2)
    check(lambda x, w: nn.conv2d(x, w, padding=1), x, w)                  # f64 x f32 -> f64
    check(lambda x, w: nn.conv2d(x.astype(np.float32), w) * 2, x, w, rtol=1e-5, atol=1e-5)


def test_conv2d_is_one_op():
    x, w = _r((1, 2, 6, 6)), _r((3, 2, 3, 3))
    ir = tpucc.compile(lambda x, w: nn.conv2d(x, w, padding="SAME")).lower(x, w).ir()
    assert ir.count("conv2d(") == 1
    assert "precision='highest'" in ir


@pytest.mark.parametrize("image,kernel,padding,barriers", [
    (2, 3, 1, 1),       # smaller than the window: padded first, behind a barrier
    (4, 5, 2, 1),
    (3, 3, 1, 0),       # as large as the window: XLA's own convolution padding
    (8, 3, 1, 0),
])
def test_small_inputs_are_padded_before_the_convolution(image, kernel, padding, barriers):
    """XLA:CPU runs a convolution whose input is smaller than its window as a
    slow loop (40-80x slower than its convolution library); tpucc pads such
    an input first, forward and in both gradients, with the same results."""
    x, w = _r((2, 8, image, image), 1), _r((8, 8, kernel, kernel), 2)

    def f(x, w):
        return nn.conv2d(x, w, padding=padding)
    hlo = tpucc.compile(f).lower(x, w).as_text()
    assert hlo.count("opt-barrier(") == barriers
    check(f, x, w, rtol=1e-5, atol=1e-5)
    step = tpucc.compile(tpucc.grad(lambda x, w: np.sum(f(x, w) ** 2), argnums=(0, 1)))
    assert step.lower(x, w).as_text().count("opt-barrier(") >= barriers
    got = step(x, w)
    expected = nn.conv2d_vjp(x, w, None, 2 * f(x, w), padding=padding)[:2]
    for a, e in zip(got, expected):
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4 * np.abs(e).max())


def test_conv2d_precision_option():
    x, w = _r((1, 2, 6, 6)), _r((3, 2, 3, 3))
    f = tpucc.compile(lambda x, w: nn.conv2d(x, w), matmul_precision="default")
    assert "precision='default'" in f.lower(x, w).ir()
    np.testing.assert_allclose(f(x, w), nn.conv2d(x, w), rtol=1e-2, atol=1e-2)


def test_conv2d_shape_errors():
    x, w = _r((1, 3, 6, 6)), _r((4, 2, 3, 3))
    with pytest.raises(tpucc.ShapeError, match="groups"):
        tpucc.compile(lambda x, w: nn.conv2d(x, w))(x, w)
    with pytest.raises(tpucc.ShapeError, match="larger than the padded"):
        tpucc.compile(lambda x, w: nn.conv2d(x, w))(_r((1, 2, 2, 2)), w)
    with pytest.raises(ValueError, match="groups"):
        nn.conv2d(x, w)


POOL_CASES = [
    # x shape, kernel, stride, padding
    ((1, 1, 4, 4), 2, None, 0),
    ((2, 3, 9, 7), 2, None, 0),           # odd sizes floor
    ((2, 3, 8, 8), 3, 1, 1),
    ((1, 2, 10, 9), (3, 2), (2, 3), (1, 0)),
    ((1, 2, 7, 7), 3, 2, "SAME"),
    ((1, 1, 6, 6), 6, None, 0),           # global pooling
]


@pytest.mark.parametrize("xs,kernel,stride,padding", POOL_CASES)
def test_max_pool2d(xs, kernel, stride, padding):
    check(lambda x: nn.max_pool2d(x, kernel, stride, padding), _r(xs))


@pytest.mark.parametrize("xs,kernel,stride,padding", POOL_CASES)
@pytest.mark.parametrize("include", [True, False])
def test_avg_pool2d(xs, kernel, stride, padding, include):
    check(lambda x: nn.avg_pool2d(x, kernel, stride, padding, count_include_pad=include),
          _r(xs), rtol=1e-5, atol=1e-6)


def test_pool_reference_values():
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(nn.max_pool2d(x, 2)[0, 0], [[5, 7], [13, 15]])
    np.testing.assert_array_equal(nn.avg_pool2d(x, 2)[0, 0], [[2.5, 4.5], [10.5, 12.5]])
    # padding: -inf for max, zeros counted (or not) for avg
    np.testing.assert_array_equal(nn.max_pool2d(-x - 1, 3, 1, 1)[0, 0, 0, 0], -1)
    assert nn.avg_pool2d(x, 3, 1, 1)[0, 0, 0, 0] == (0 + 1 + 4 + 5) / 9
    assert nn.avg_pool2d(x, 3, 1, 1, count_include_pad=False)[0, 0, 0, 0] == (0 + 1 + 4 + 5) / 4


def test_pool_dtypes():
    xi = np.arange(2 * 3 * 6 * 6, dtype=np.int32).reshape(2, 3, 6, 6) % 7
    check(lambda x: nn.max_pool2d(x, 2), xi)                   # int32 stays int32
    check(lambda x: nn.avg_pool2d(x, 2), xi)                   # int -> float64, like np.mean
    check(lambda x: nn.max_pool2d(x, 3, 2, 1), _r((1, 2, 7, 7), dtype=np.float64))


def test_relu_softmax_log_softmax():
    x = _r((3, 5)) * 10

    def f(x):
        return (nn.relu(x), nn.softmax(x), nn.softmax(x, axis=0), nn.log_softmax(x),
                nn.log_softmax(x, axis=0))
    check(f, x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(nn.softmax(x).sum(-1), 1, rtol=1e-6)


def test_relu_special_values_and_dtypes():
    """Compiled relu is one max against zero for real floats; its values,
    sign of zero included, match the NumPy definition where(x <= 0, 0, x)."""
    x = np.array([-0.0, 0.0, -1.5, np.nan, -np.inf, np.inf, 2.0], np.float32)
    compiled = tpucc.compile(nn.relu)
    np.testing.assert_array_equal(compiled(x), nn.relu(x))
    np.testing.assert_array_equal(np.signbit(compiled(x)), np.signbit(nn.relu(x)))
    for v in (np.array([3, -2, 0]), np.array([True, False]), np.array([1 - 2j, -1 + 1j]),
              np.arange(-3, 3, dtype=np.float64)):
        check(nn.relu, v)
    check(lambda x: nn.relu(x[0] * 2.0), np.array([1.5, -2.0]))       # a NumPy scalar
    text = tpucc.compile(nn.relu).lower(np.ones((2, 3), np.float32)).as_text()
    assert "maximum" in text and "select" not in text


def test_relu_gradient_is_zero_at_zero():
    x = np.array([-1.0, 0.0, -0.0, 1.0, 2.0], np.float32)
    g = tpucc.compile(tpucc.grad(lambda x: np.sum(nn.relu(x) * np.arange(5))))(x)
    np.testing.assert_array_equal(g, nn.relu_vjp(x, np.arange(5, dtype=np.float32)))


def test_cross_entropy():
    logits, labels = _r((6, 4)) * 3, np.array([0, 3, 1, 1, 2, 0])
    check(nn.cross_entropy, logits, labels, rtol=1e-5, atol=1e-6)
    expected = -np.mean([np.log(nn.softmax(logits[i].astype(np.float64))[labels[i]])
                         for i in range(6)])
    np.testing.assert_allclose(nn.cross_entropy(logits, labels), expected, rtol=1e-5)


def test_linear_flatten():
    x, w, b = _r((2, 3, 4, 5)), _r((60, 7), 1), _r(7, 2)
    check(lambda x, w, b: nn.linear(nn.flatten(x), w, b), x, w, b, rtol=1e-5, atol=1e-5)
    check(lambda x, w: nn.linear(x, w), _r((4, 60)), w, rtol=1e-5, atol=1e-5)
    check(lambda x: (nn.flatten(x, 2), nn.flatten(x, 0)), x)


def test_small_cnn_loss():
    """A whole small CNN (conv, pools, linear, loss) as one compiled program."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 16, 16)).astype(np.float32)
    w1, b1 = _r((8, 3, 3, 3), 1) * 0.3, _r(8, 2) * 0.1
    w2, b2 = _r((16, 8, 3, 3), 3) * 0.2, _r(16, 4) * 0.1
    wl, bl = _r((16 * 4 * 4, 10), 5) * 0.1, _r(10, 6) * 0.1
    labels = np.array([1, 9, 0, 4])

    def loss(x, labels):
        h = nn.max_pool2d(nn.relu(nn.conv2d(x, w1, b1, padding=1)), 2)
        h = nn.avg_pool2d(nn.relu(nn.conv2d(h, w2, b2, stride=1, padding="SAME")), 2)
        return nn.cross_entropy(nn.linear(nn.flatten(h), wl, bl), labels)
    check(loss, x, labels, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["conv2d", "max_pool2d", "avg_pool2d"])
def test_registry_reference(name):
    """The registry's NumPy reference agrees with the lowering on explicit attrs."""
    import jax
    from tpucc.ops.registry import LowerCtx
    op = OPS[name]
    x = _r((1, 4, 7, 8))
    if name == "conv2d":
        args = (x, _r((6, 2, 3, 2), 1))
        attrs = dict(stride=(2, 1), padding=((1, 0), (2, 1)), dilation=(1, 2), groups=2,
                     precision="highest")
    else:
        args = (x,)
        attrs = dict(kernel=(3, 2), stride=(2, 2), padding=((1, 1), (0, 0)))
    avals = tuple(tpucc.ops.registry.const_aval(a) for a in args)
    out = op.abstract(avals, **attrs)
    lc = LowerCtx(avals, (out,), attrs)
    got = jax.jit(lambda *xs: op.lower(lc, *xs, **attrs))(*args)
    ref = op.numpy(*args, **attrs)
    assert ref.shape == out.shape == got.shape
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)


# --- batch_norm ---------------------------------------------------------------------------

def batch_norm_reference(x, weight, bias, mean, var, eps=1e-5):
    """Channel by channel, in float64, from given statistics."""
    y = np.empty(x.shape)
    for c in range(x.shape[1]):
        y[:, c] = (x[:, c] - mean[c]) / np.sqrt(var[c] + eps) * weight[c] + bias[c]
    return y


def _bn_args(xs, dtype=np.float32, stats_dtype=np.float32):
    c = xs[1]
    return (_r(xs, 1, dtype) * 2 + 1, _r(c, 2, dtype), _r(c, 3, dtype), _r(c, 4, stats_dtype),
            np.abs(_r(c, 5, stats_dtype)) + 0.5)


@pytest.mark.parametrize("xs", [(4, 3, 5, 5), (6, 3), (3, 2, 7)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_training(xs, dtype):
    """Batch statistics; running stats updated in place with the unbiased variance."""
    x, w, b, rm, rv = _bn_args(xs, dtype)

    def f(x, w, b, rm, rv):
        return nn.batch_norm(x, w, b, rm, rv, training=True, momentum=0.3, eps=1e-3)
    check(f, x, w, b, rm, rv, rtol=1e-5, atol=1e-5)
    axes = (0,) + tuple(range(2, x.ndim))
    mean, var = x.mean(axis=axes, dtype=np.float64), x.var(axis=axes, dtype=np.float64)
    rm2, rv2 = rm.copy(), rv.copy()
    y = f(x, w, b, rm2, rv2)
    assert y.dtype == dtype and rm2.dtype == rv2.dtype == np.float32
    np.testing.assert_allclose(y, batch_norm_reference(x, w, b, mean, var, 1e-3),
                               rtol=1e-5, atol=1e-5)
    unbiased = x.var(axis=axes, ddof=1, dtype=np.float64)
    np.testing.assert_allclose(rm2, 0.7 * rm + 0.3 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv2, 0.7 * rv + 0.3 * unbiased, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("xs", [(4, 3, 5, 5), (6, 3)])
def test_batch_norm_inference(xs):
    x, w, b, rm, rv = _bn_args(xs)
    f = check(lambda *a: nn.batch_norm(*a), x, w, b, rm, rv, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(f(x, w, b, rm, rv), batch_norm_reference(x, w, b, rm, rv),
                               rtol=1e-5, atol=1e-5)
    x64 = x.astype(np.float64)             # float64 input, float32 statistics -> float64
    check(lambda *a: nn.batch_norm(*a), x64, w, b, rm, rv)


def test_batch_norm_options():
    x, w, b, rm, rv = _bn_args((4, 3, 2, 2), np.float64)
    # no affine transform, no running statistics to update
    check(lambda x: nn.batch_norm(x, None, None, None, None, training=True), x)
    check(lambda x, rm, rv: nn.batch_norm(x, None, None, rm, rv), x, rm, rv)
    # float64 batch statistics written into float32 running statistics
    check(lambda x, rm, rv: nn.batch_norm(x, w, b, rm, rv, training=True), x, rm, rv)


def test_batch_norm_running_stats_as_attributes():
    """A layer object's running statistics are updated by every compiled call."""
    class BatchNorm:
        def __init__(self, c):
            self.weight, self.bias = np.ones(c, np.float32), np.zeros(c, np.float32)
            self.running_mean, self.running_var = np.zeros(c, np.float32), np.ones(c, np.float32)

        def __call__(self, x, training):
            return nn.batch_norm(x, self.weight, self.bias, self.running_mean,
                                 self.running_var, training=training)

    compiled_layer, eager_layer = BatchNorm(3), BatchNorm(3)
    step = tpucc.compile(lambda x, training: compiled_layer(x, training))
    for seed, training in [(1, True), (2, True), (3, False)]:
        x = _r((4, 3, 3, 3), seed) + seed
        np.testing.assert_allclose(step(x, training), eager_layer(x, training), rtol=1e-5,
                                   atol=1e-5)
        np.testing.assert_allclose(compiled_layer.running_mean, eager_layer.running_mean,
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(compiled_layer.running_var, eager_layer.running_var,
                                   rtol=1e-5, atol=1e-6)
    assert eager_layer.running_mean[0] != 0


def test_batch_norm_one_value_per_channel():
    x = _r((1, 3))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        nn.batch_norm(x, None, None, None, None, training=True)
    with pytest.raises(tpucc.UserCodeError, match="more than 1 value per channel"):
        tpucc.compile(lambda x: nn.batch_norm(x, None, None, None, None, training=True))(x)
