"""Gradients of tpucc.nn.

1. Each NumPy reference VJP (tpucc/nn_grad.py) against central finite
   differences of the NumPy forward, in float64, over the ops' options.
2. tpucc's gradients (tpucc.grad / tpucc.value_and_grad, reverse mode of the
   compiled program) of sum(op(...) * g) against the NumPy VJP, in float32 and
   float64.
"""
import numpy as np
import pytest

import tpucc
from tpucc import nn


def _r(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _distinct(shape, seed=0):
    """Values at least 0.01 apart: no ties a finite-difference step could flip
    (near-ties make max-pool gradients differ between correct implementations)."""
    n = int(np.prod(shape))
    return np.random.default_rng(seed).permutation(n).reshape(shape) * 0.01 - n * 0.005


def _away_from_zero(shape, seed=0):
    x = _r(shape, seed)
    return np.where(np.abs(x) < 0.05, 0.05 + np.abs(x), x)


def numeric_grad(loss, arr, step=1e-6):
    """d loss() / d arr by central differences, perturbing arr in place."""
    grad = np.zeros(arr.shape)
    flat = arr.reshape(-1)
    assert np.shares_memory(flat, arr)
    for i in range(flat.size):
        saved = flat[i]
        flat[i] = saved + step
        up = loss()
        flat[i] = saved - step
        down = loss()
        flat[i] = saved
        grad.flat[i] = (up - down) / (2 * step)
    return grad


def assert_fd(forward, arrays, g, grads, names):
    """grads[k] == d sum(forward(*arrays) * g) / d arrays[k], for each name."""
    def loss():
        return float(np.sum(forward(*arrays) * g))
    for arr, grad, name in zip(arrays, grads, names):
        assert grad.shape == arr.shape and grad.dtype == arr.dtype, name
        np.testing.assert_allclose(grad, numeric_grad(loss, arr), rtol=1e-6, atol=1e-8,
                                   err_msg=name)


# --- 1. NumPy VJPs against finite differences ------------------------------------------

CONV_CASES = [
    # x shape, w shape, stride, padding, dilation, groups
    ((2, 3, 5, 5), (4, 3, 3, 3), 1, 0, 1, 1),
    ((1, 2, 7, 6), (3, 2, 3, 2), 2, (1, 0), 1, 1),
    ((1, 4, 6, 6), (6, 2, 3, 3), 1, "SAME", 1, 2),            # groups
    ((2, 4, 7, 5), (4, 1, 3, 3), (2, 1), "SAME", 1, 4),       # depthwise, odd SAME padding
    ((1, 2, 8, 8), (3, 2, 3, 3), 1, 2, 2, 1),                 # dilated
    ((1, 2, 9, 8), (2, 2, 2, 3), (3, 2), "VALID", (2, 1), 1),  # last rows/cols unused
    ((1, 2, 6, 6), (2, 2, 4, 4), 1, ((1, 2), (0, 3)), 1, 1),  # asymmetric padding
    ((1, 3, 4, 4), (2, 3, 1, 1), 1, 0, 1, 1),                 # 1x1
    # Inputs (or strided cotangents) smaller than the kernel window: tpucc
    # pads them before the convolution on the CPU (tpucc/ops/nn.py)
    ((2, 3, 2, 2), (4, 3, 3, 3), 1, 1, 1, 1),
    ((1, 2, 2, 3), (3, 2, 3, 3), 2, 1, 1, 1),                 # 1x2 cotangent, dilated by 2
    ((1, 2, 3, 3), (2, 2, 3, 3), 1, 2, 2, 1),
]


@pytest.mark.parametrize("xs,ws,stride,padding,dilation,groups", CONV_CASES)
def test_conv2d_vjp(xs, ws, stride, padding, dilation, groups):
    x, w, b = _r(xs, 1), _r(ws, 2), _r(ws[0], 3)
    opts = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    g = _r(nn.conv2d(x, w, b, **opts).shape, 4)
    grads = nn.conv2d_vjp(x, w, b, g, **opts)
    assert_fd(lambda x, w, b: nn.conv2d(x, w, b, **opts), (x, w, b), g, grads,
              ("dx", "dw", "db"))


def test_conv2d_vjp_no_bias_and_dtypes():
    x, w = _r((1, 2, 5, 5), 1), _r((3, 2, 3, 3), 2)
    g = _r((1, 3, 5, 5), 3)
    dx, dw, db = nn.conv2d_vjp(x, w, None, g, padding=1)
    assert db is None
    assert_fd(lambda x, w: nn.conv2d(x, w, padding=1), (x, w), g, (dx, dw), ("dx", "dw"))
    # each gradient has its input's dtype; the work is done in the forward's dtype
    dx32, dw64, db32 = nn.conv2d_vjp(x.astype(np.float32), w, np.zeros(3, np.float32), g,
                                     padding=1)
    assert (dx32.dtype, dw64.dtype, db32.dtype) == (np.float32, np.float64, np.float32)
    np.testing.assert_allclose(dw64, dw, rtol=1e-6, atol=1e-6)    # x rounded to f32
    with pytest.raises(ValueError, match="g has shape"):
        nn.conv2d_vjp(x, w, None, g)


POOL_CASES = [
    # x shape, kernel, stride, padding
    ((1, 2, 4, 4), 2, None, 0),
    ((2, 1, 7, 5), 2, None, 0),            # odd sizes: the last row/column is unused
    ((1, 2, 6, 6), 3, 1, 1),               # overlapping windows, padding
    ((1, 2, 8, 7), (3, 2), (2, 3), (1, 0)),
    ((1, 1, 7, 7), 3, 2, "SAME"),
    ((1, 1, 5, 5), 5, None, 0),            # global pooling
]


@pytest.mark.parametrize("xs,kernel,stride,padding", POOL_CASES)
def test_max_pool2d_vjp(xs, kernel, stride, padding):
    x = _distinct(xs, 1)
    g = _r(nn.max_pool2d(x, kernel, stride, padding).shape, 2)
    dx = nn.max_pool2d_vjp(x, g, kernel, stride, padding)
    assert_fd(lambda x: nn.max_pool2d(x, kernel, stride, padding), (x,), g, (dx,), ("dx",))


def test_max_pool2d_vjp_ties_go_to_the_first_maximum():
    x = np.array([[[[1., 3., 0., 0.],
                    [3., 2., 0., 0.]]]])
    dx = nn.max_pool2d_vjp(x, np.array([[[[10., 20.]]]]), 2)
    np.testing.assert_array_equal(dx[0, 0], [[0, 10, 20, 0], [0, 0, 0, 0]])
    # overlapping windows: a maximum shared by several windows sums their gradients
    x = np.arange(9.).reshape(1, 1, 3, 3)
    dx = nn.max_pool2d_vjp(x, np.ones((1, 1, 2, 2)), 2, 1)
    np.testing.assert_array_equal(dx[0, 0], [[0, 0, 0], [0, 1, 1], [0, 1, 1]])
    # padding (-inf) never wins, even over negative values
    dx = nn.max_pool2d_vjp(-x - 1, np.ones((1, 1, 2, 2)), 2, 2, 1)
    np.testing.assert_array_equal(dx[0, 0], [[1, 1, 0], [1, 1, 0], [0, 0, 0]])


@pytest.mark.parametrize("xs,kernel,stride,padding", POOL_CASES)
@pytest.mark.parametrize("include", [True, False])
def test_avg_pool2d_vjp(xs, kernel, stride, padding, include):
    x = _r(xs, 1)
    opts = dict(stride=stride, padding=padding, count_include_pad=include)
    g = _r(nn.avg_pool2d(x, kernel, **opts).shape, 2)
    dx = nn.avg_pool2d_vjp(x, g, kernel, **opts)
    assert_fd(lambda x: nn.avg_pool2d(x, kernel, **opts), (x,), g, (dx,), ("dx",))


def test_pool_vjp_dtypes_and_errors():
    x, g = _distinct((1, 1, 4, 4)).astype(np.float32), np.ones((1, 1, 2, 2), np.float32)
    assert nn.max_pool2d_vjp(x, g, 2).dtype == np.float32
    assert nn.avg_pool2d_vjp(x, g, 2).dtype == np.float32
    with pytest.raises(TypeError, match="floating-point"):
        nn.max_pool2d_vjp(x.astype(np.int32), g, 2)
    with pytest.raises(ValueError, match="g has shape"):
        nn.avg_pool2d_vjp(x, g, 3)


def test_relu_vjp():
    x = _away_from_zero((3, 5), 1)
    g = _r(x.shape, 2)
    assert_fd(nn.relu, (x,), g, (nn.relu_vjp(x, g),), ("dx",))
    # 0 at x == 0, as PyTorch
    np.testing.assert_array_equal(nn.relu_vjp(np.array([-1., 0., 2.]), np.ones(3)), [0, 0, 1])


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [-1, 0])
def test_softmax_vjps(name, axis):
    forward, vjp = getattr(nn, name), getattr(nn, name + "_vjp")
    x = _r((3, 4), 1) * 3
    g = _r(x.shape, 2)
    assert_fd(lambda x: forward(x, axis=axis), (x,), g, (vjp(x, g, axis=axis),), ("dx",))


@pytest.mark.parametrize("g", [1.0, 0.25])
def test_cross_entropy_vjp(g):
    logits, labels = _r((5, 4), 1) * 3, np.array([0, 3, 1, 1, 2])
    dlogits = nn.cross_entropy_vjp(logits, labels, g)
    assert_fd(lambda z: nn.cross_entropy(z, labels), (logits,), g, (dlogits,), ("dlogits",))


@pytest.mark.parametrize("xs", [(4, 6), (2, 3, 6), (6,)])
def test_linear_vjp(xs):
    x, w, b = _r(xs, 1), _r((6, 5), 2), _r(5, 3)
    g = _r(nn.linear(x, w, b).shape, 4)
    grads = nn.linear_vjp(x, w, b, g)
    assert_fd(nn.linear, (x, w, b), g, grads, ("dx", "dw", "db"))
    assert nn.linear_vjp(x, w, None, g)[2] is None


@pytest.mark.parametrize("start_dim", [0, 1, 2])
def test_flatten_vjp(start_dim):
    x = _r((2, 3, 4), 1)
    g = _r(nn.flatten(x, start_dim).shape, 2)
    assert_fd(lambda x: nn.flatten(x, start_dim), (x,), g,
              (nn.flatten_vjp(x, g, start_dim),), ("dx",))


BN_SHAPES = [(4, 3, 5, 5), (6, 3), (3, 2, 7)]


@pytest.mark.parametrize("xs", BN_SHAPES)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_vjp(xs, training):
    c = xs[1]
    x, weight, bias = _r(xs, 1) * 2 + 1, _r(c, 2), _r(c, 3)
    mean, var = _r(c, 4), np.abs(_r(c, 5)) + 0.5
    g = _r(xs, 6)

    def forward(x, weight, bias):       # on copies: training updates the running stats
        return nn.batch_norm(x, weight, bias, mean.copy(), var.copy(), training=training)
    grads = nn.batch_norm_vjp(x, weight, bias, mean, var, g, training=training)
    assert_fd(forward, (x, weight, bias), g, grads, ("dx", "dweight", "dbias"))


def test_batch_norm_vjp_without_affine():
    x, g = _r((4, 3, 2, 2), 1), _r((4, 3, 2, 2), 2)
    dx, dweight, dbias = nn.batch_norm_vjp(x, None, None, None, None, g, training=True)
    assert dweight is None and dbias is None
    assert_fd(lambda x: nn.batch_norm(x, None, None, None, None, training=True), (x,), g,
              (dx,), ("dx",))


# --- 2. tpucc's gradients against the NumPy VJPs -----------------------------------------

# (rtol, atol relative to the largest gradient) per dtype: float32 sums of a few
# hundred terms, computed in another order than NumPy's
TOLERANCE = {np.float32: (2e-5, 2e-6), np.float64: (1e-10, 1e-12)}


def tpucc_grads(forward, arrays, g):
    """tpucc's gradient of sum(forward(*arrays) * g) with respect to every array."""
    def loss(*args):
        return np.sum(forward(*args[:-1]) * args[-1])
    return tpucc.grad(loss, argnums=tuple(range(len(arrays))))(*arrays, g)


def assert_grads_match(forward, arrays, vjp, dtype, names):
    """tpucc's gradients of forward at `arrays` (cast to dtype) == vjp(*arrays, g)."""
    arrays = tuple(a.astype(dtype) for a in arrays)
    g = _r(np.shape(forward(*arrays)), 99, dtype)
    got, expected = tpucc_grads(forward, arrays, g), vjp(*arrays, g)
    expected = expected if isinstance(expected, tuple) else (expected,)
    rtol, atol = TOLERANCE[dtype]
    for a, e, name in zip(got, expected, names):
        assert a.dtype == e.dtype == dtype and a.shape == e.shape, name
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol * np.abs(e).max(), err_msg=name)


def assert_all_grads_match(cases, dtype):
    """assert_grads_match for each case (label, forward, arrays, vjp, names),
    through ONE tpucc.grad of the sum of the cases' losses (each an XLA
    compilation otherwise): every case has arguments of its own, so each
    gradient is its own case's alone."""
    specs, args = [], []
    for label, forward, arrays, vjp, names in cases:
        arrays = tuple(a.astype(dtype) for a in arrays)
        g = _r(np.shape(forward(*arrays)), 99, dtype)
        specs.append((label, forward, len(args), len(arrays), vjp, names, arrays, g))
        args.extend(arrays)
    n_arrays = len(args)
    args.extend(spec[-1] for spec in specs)

    def loss(*args):
        total = 0.0
        for k, (_, forward, start, n, _, _, _, _) in enumerate(specs):
            total = total + np.sum(forward(*args[start:start + n]) * args[n_arrays + k])
        return total
    got = tpucc.grad(loss, argnums=tuple(range(n_arrays)))(*args)
    rtol, atol = TOLERANCE[dtype]
    for label, forward, start, n, vjp, names, arrays, g in specs:
        expected = vjp(*arrays, g)
        expected = expected if isinstance(expected, tuple) else (expected,)
        for a, e, name in zip(got[start:start + n], expected, names):
            assert a.dtype == e.dtype == dtype and a.shape == e.shape, (label, name)
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol * np.abs(e).max(),
                                       err_msg=f"{label}: {name}")


DTYPES = [np.float32, np.float64]


def with_dtypes(cases, float32_every=2):
    """Every case in float64, every `float32_every`-th also in float32: the
    dtype changes no gradient formula, and each case costs an XLA compilation."""
    return ([(*case, np.float64) for case in cases]
            + [(*case, np.float32) for case in cases[::float32_every]])


@pytest.mark.parametrize("xs,ws,stride,padding,dilation,groups,dtype", with_dtypes(CONV_CASES))
def test_tpucc_conv2d_grad(xs, ws, stride, padding, dilation, groups, dtype):
    opts = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    assert_grads_match(lambda x, w, b: nn.conv2d(x, w, b, **opts),
                       (_r(xs, 1), _r(ws, 2), _r(ws[0], 3)),
                       lambda x, w, b, g: nn.conv2d_vjp(x, w, b, g, **opts), dtype,
                       ("dx", "dw", "db"))


@pytest.mark.parametrize("xs,kernel,stride,padding,dtype", with_dtypes(POOL_CASES))
def test_tpucc_max_pool2d_grad(xs, kernel, stride, padding, dtype):
    assert_grads_match(lambda x: nn.max_pool2d(x, kernel, stride, padding), (_distinct(xs),),
                       lambda x, g: nn.max_pool2d_vjp(x, g, kernel, stride, padding), dtype,
                       ("dx",))


@pytest.mark.parametrize("xs,kernel,stride,padding,dtype",
                         [(*case, np.float64) for case in POOL_CASES]
                         + [(*POOL_CASES[k], np.float32) for k in (0, 1, 3, 4)])
def test_tpucc_avg_pool2d_grad(xs, kernel, stride, padding, dtype):
    # count_include_pad True and False on the same input: one tpucc.grad
    cases = []
    for include in (True, False):
        opts = dict(stride=stride, padding=padding, count_include_pad=include)
        cases.append((f"count_include_pad={include}",
                      lambda x, opts=opts: nn.avg_pool2d(x, kernel, **opts), (_r(xs),),
                      lambda x, g, opts=opts: nn.avg_pool2d_vjp(x, g, kernel, **opts), ("dx",)))
    assert_all_grads_match(cases, dtype)


LABELS = np.array([0, 3, 1, 1, 2])
ELEMENTWISE_CASES = {
    # name: (forward, input shapes, vjp)
    "relu": (nn.relu, [(3, 5)], nn.relu_vjp),
    "softmax": (nn.softmax, [(3, 4)], nn.softmax_vjp),
    "softmax_axis0": (lambda x: nn.softmax(x, axis=0), [(3, 4)],
                      lambda x, g: nn.softmax_vjp(x, g, axis=0)),
    "log_softmax": (nn.log_softmax, [(3, 4)], nn.log_softmax_vjp),
    "log_softmax_axis0": (lambda x: nn.log_softmax(x, axis=0), [(3, 4)],
                          lambda x, g: nn.log_softmax_vjp(x, g, axis=0)),
    "cross_entropy": (lambda z: nn.cross_entropy(z, LABELS), [(5, 4)],
                      lambda z, g: nn.cross_entropy_vjp(z, LABELS, g)),
    "linear": (nn.linear, [(4, 6), (6, 5), (5,)], nn.linear_vjp),
    "linear_3d_no_bias": (nn.linear, [(2, 3, 6), (6, 5)],
                          lambda x, w, g: nn.linear_vjp(x, w, None, g)[:2]),
    "flatten": (nn.flatten, [(2, 3, 4)], nn.flatten_vjp),
    "flatten_2": (lambda x: nn.flatten(x, 2), [(2, 3, 4)],
                  lambda x, g: nn.flatten_vjp(x, g, 2)),
}


@pytest.mark.parametrize("dtype", DTYPES)
def test_tpucc_grad_of_other_ops(dtype):
    cases = []
    for name, (forward, shapes, vjp) in ELEMENTWISE_CASES.items():
        arrays = tuple(_away_from_zero(s, k) * 2 for k, s in enumerate(shapes))
        cases.append((name, forward, arrays, vjp, [f"d{k}" for k in range(len(arrays))]))
    assert_all_grads_match(cases, dtype)


def _batch_norm_case(xs, training, dtype):
    c = xs[1]
    mean, var = _r(c, 4, dtype), np.abs(_r(c, 5, dtype)) + 0.5

    def forward(x, weight, bias):       # training mode: batch statistics, nothing updated
        return nn.batch_norm(x, weight, bias, None if training else mean,
                             None if training else var, training=training)

    def vjp(x, weight, bias, g):
        return nn.batch_norm_vjp(x, weight, bias, mean, var, g, training=training)
    return (f"{xs} training={training}", forward, (_r(xs, 1) * 2 + 1, _r(c, 2), _r(c, 3)), vjp,
            ("dx", "dweight", "dbias"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_tpucc_batch_norm_grad(dtype):
    # every shape, training and not: one tpucc.grad
    assert_all_grads_match([_batch_norm_case(xs, training, dtype)
                            for xs in BN_SHAPES for training in (True, False)], dtype)


# --- 3. a training step: tpucc.value_and_grad inside @tpucc.compile vs the VJP chain ------

def cnn_loss(params, x, labels):
    h = nn.conv2d(x, params["w1"], params["b1"], padding=1)
    h = nn.batch_norm(h, params["gamma"], params["beta"], None, None, training=True)
    h = nn.avg_pool2d(nn.conv2d(nn.relu(h), params["w2"], stride=2, padding="SAME"), 2)
    h = nn.flatten(nn.max_pool2d(h, 2, 1))
    return nn.cross_entropy(nn.linear(h, params["wl"], params["bl"]), labels)


def cnn_numpy_value_and_grad(params, x, labels):
    """The eager NumPy backward: the forward keeping its intermediates, then
    the VJPs in reverse order."""
    p = params
    h1 = nn.conv2d(x, p["w1"], p["b1"], padding=1)
    h2 = nn.batch_norm(h1, p["gamma"], p["beta"], None, None, training=True)
    h3 = nn.relu(h2)
    h4 = nn.conv2d(h3, p["w2"], stride=2, padding="SAME")
    h5 = nn.avg_pool2d(h4, 2)
    h6 = nn.max_pool2d(h5, 2, 1)
    h7 = nn.flatten(h6)
    z = nn.linear(h7, p["wl"], p["bl"])
    d = {}
    dz = nn.cross_entropy_vjp(z, labels)
    dh7, d["wl"], d["bl"] = nn.linear_vjp(h7, p["wl"], p["bl"], dz)
    dh5 = nn.max_pool2d_vjp(h5, nn.flatten_vjp(h6, dh7), 2, 1)
    dh3, d["w2"], _ = nn.conv2d_vjp(h3, p["w2"], None, nn.avg_pool2d_vjp(h4, dh5, 2),
                                    stride=2, padding="SAME")
    dh1, d["gamma"], d["beta"] = nn.batch_norm_vjp(h1, p["gamma"], p["beta"], None, None,
                                                   nn.relu_vjp(h2, dh3), training=True)
    _, d["w1"], d["b1"] = nn.conv2d_vjp(x, p["w1"], p["b1"], dh1, padding=1)
    return nn.cross_entropy(z, labels), d


@pytest.mark.parametrize("dtype", DTYPES)
def test_training_step_matches_numpy_backward(dtype):
    shapes = dict(w1=(4, 3, 3, 3), b1=(4,), gamma=(4,), beta=(4,), w2=(6, 4, 3, 3),
                  wl=(6 * 1 * 1, 5), bl=(5,))
    params = {k: _r(s, seed, dtype) * 0.5 for seed, (k, s) in enumerate(shapes.items())}
    params["gamma"] += 1
    x, labels = _r((3, 3, 8, 8), 7, dtype), np.array([0, 4, 2])

    step = tpucc.compile(lambda p, x, y: tpucc.value_and_grad(cnn_loss)(p, x, y))
    loss, grads = step(params, x, labels)
    expected_loss, expected = cnn_numpy_value_and_grad(params, x, labels)
    rtol, atol = TOLERANCE[dtype]
    assert loss.dtype == dtype
    np.testing.assert_allclose(loss, expected_loss, rtol=rtol)
    assert sorted(grads) == sorted(expected)
    # b1's gradient is 0 up to rounding (batch_norm removes the mean): atol on the
    # scale of all the gradients
    scale = max(np.abs(e).max() for e in expected.values())
    for k in expected:
        assert grads[k].dtype == dtype, k
        np.testing.assert_allclose(grads[k], expected[k], rtol=rtol, atol=atol * scale,
                                   err_msg=k)


def test_training_step_updates_running_stats_through_aux():
    """A differentiated function may not update outer arrays in place (E500), so
    a training step updates copies of the running statistics, returns them as aux
    and stores them after tpucc.grad."""
    x, weight, bias = _r((4, 3, 2, 2), 1), _r(3, 2) + 1, _r(3, 3)
    mean, var = _r(3, 4), np.abs(_r(3, 5)) + 0.5

    def loss(weight, bias, x, mean, var):
        mean, var = mean.copy(), var.copy()
        y = nn.batch_norm(x, weight, bias, mean, var, training=True, momentum=0.2)
        return np.sum(y * x), (mean, var)

    @tpucc.compile
    def step(weight, bias, x, mean, var):
        grads, (new_mean, new_var) = tpucc.grad(loss, argnums=(0, 1), has_aux=True)(
            weight, bias, x, mean, var)
        mean[...] = new_mean
        var[...] = new_var
        return grads

    eager_mean, eager_var = mean.copy(), var.copy()
    nn.batch_norm(x, weight, bias, eager_mean, eager_var, training=True, momentum=0.2)
    dweight, dbias = step(weight, bias, x, mean, var)
    _, expected_dweight, expected_dbias = nn.batch_norm_vjp(x, weight, bias, None, None, x,
                                                            training=True)
    np.testing.assert_allclose(dweight, expected_dweight, rtol=1e-10)
    np.testing.assert_allclose(dbias, expected_dbias, rtol=1e-10)
    np.testing.assert_allclose(mean, eager_mean, rtol=1e-12)
    np.testing.assert_allclose(var, eager_var, rtol=1e-12)


# --- max pooling with tiling windows (stride = kernel, no padding) lowers to a
#     reshape + max with its own gradient (tpucc/ops/nn.py _tiled_max); others
#     stay reduce_window / select_and_scatter.

def _ties(shape, seed=0):
    """Small integers: windows with several equal maxima everywhere."""
    return np.random.default_rng(seed).integers(-2, 3, shape).astype(np.float32)


@pytest.mark.parametrize("xs,kernel", [((2, 3, 6, 8), 2), ((1, 2, 7, 9), 2), ((1, 2, 9, 8), (3, 2)),
                                       ((1, 1, 4, 6), (1, 3))])
def test_tiled_max_pool_gradient_routes_ties_to_the_first_maximum(xs, kernel):
    x, g = _ties(xs), _r(nn.max_pool2d(_ties(xs), kernel).shape, 5, np.float32)
    got = tpucc.grad(lambda x, g: np.sum(nn.max_pool2d(x, kernel) * g))(x, g)
    np.testing.assert_array_equal(got, nn.max_pool2d_vjp(x, g, kernel))


def test_tiled_max_pool_after_a_conv_runs_channels_last_with_the_same_ties():
    """conv -> relu -> pool: the pool runs on the conv's channels-last
    layout; integer data makes exact ties, routed as the NumPy VJPs do."""
    x, w = _ties((2, 3, 8, 10), 1), _ties((4, 3, 3, 3), 2)
    b = np.zeros(4, np.float32)
    g = _r((2, 4, 4, 5), 3, np.float32)

    def loss(x, w):
        return np.sum(nn.max_pool2d(nn.relu(nn.conv2d(x, w, b, padding=1)), 2) * g)

    dx, dw = tpucc.grad(loss, argnums=(0, 1))(x, w)
    y = nn.conv2d(x, w, b, padding=1)
    dy = nn.relu_vjp(y, nn.max_pool2d_vjp(nn.relu(y), g, 2))
    ex, ew, _ = nn.conv2d_vjp(x, w, b, dy, padding=1)
    np.testing.assert_allclose(dx, ex, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(dw, ew, rtol=1e-6, atol=1e-5)
    hlo = tpucc.compile(tpucc.value_and_grad(loss)).lower(x, w).as_text()
    assert "select-and-scatter" not in hlo and "reduce-window" not in hlo


def test_overlapping_max_pool_keeps_reduce_window():
    hlo = tpucc.compile(tpucc.value_and_grad(lambda x: np.sum(nn.max_pool2d(x, 3, 2)))).lower(
        _ties((1, 1, 7, 7))).as_text()
    assert "reduce-window" in hlo and "select-and-scatter" in hlo


def test_tiled_max_pool_of_integers_and_bools():
    f = tpucc.compile(lambda x: nn.max_pool2d(x, 2))
    for x in (np.arange(48, dtype=np.int32).reshape(1, 3, 4, 4) % 7,
              np.arange(48).reshape(1, 3, 4, 4) % 3 == 0):
        np.testing.assert_array_equal(f(x), nn.max_pool2d(x, 2))


@pytest.mark.parametrize("perm", [(0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 2, 1), (3, 1, 0, 2)])
def test_tiled_max_pool_gradient_in_any_physical_layout(perm):
    """The lowering's max pool on a physical layout (the layout pass hands
    it channels-last arrays; here also W before H): ties still go to the
    first maximum in row-major (h, w) window order."""
    import jax
    import jax.numpy as jnp
    from tpucc.ops.nn import _tiled_max
    x, g = _ties((2, 3, 6, 9)), _r((2, 3, 3, 3), 1, np.float32)
    axes = (perm.index(2), perm.index(3))
    gp = np.transpose(g, perm)
    dx = jax.grad(lambda v: jnp.sum(_tiled_max(v, (2, 3), axes) * gp))(np.transpose(x, perm))
    np.testing.assert_array_equal(np.transpose(np.asarray(dx), np.argsort(perm)),
                                  nn.max_pool2d_vjp(x, g, (2, 3)))
