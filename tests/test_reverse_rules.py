"""Reverse mode on the IR (tpucc/lower/reverse.py) against jax's reverse
mode of the same lowered region, which the rest of the suite checks against
NumPy.  Each program's gradients are computed both ways; the registry's vjp
rules must give the same values and dtypes, in every layout the lowering
chooses (conv nets run channels-last), with broadcasting, mixed dtypes and
ties, and must hand the cases they do not cover (strided convolutions,
overlapping pools, batched products, indexing) to jax.vjp of the op."""
import re

import numpy as np
import pytest

import tpucc
from tpucc import nn
from tpucc.lower import reverse
from tpucc.ops import linalg, registry


def _r(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.fixture
def both_ways(monkeypatch):
    """grads(loss, *args) -> (value, grads) by the rules and by jax; asserts
    that the rules handled the region, and which ops they left to jax.vjp."""
    calls, fallbacks = [], []
    by_rules, by_jax_vjp = reverse.value_and_grad, reverse._by_jax_vjp

    def spy(*a):
        out = by_rules(*a)
        calls.append(out is not None)
        return out

    def spy_fallback(op, *a):
        fallbacks.append(op.name)
        return by_jax_vjp(op, *a)

    def run(loss, *args, argnums=0, fallback=()):
        monkeypatch.setattr(reverse, "value_and_grad", spy)
        monkeypatch.setattr(reverse, "_by_jax_vjp", spy_fallback)
        ours = tpucc.compile(lambda *a: tpucc.value_and_grad(loss, argnums=argnums)(*a),
                             cache=False)(*args)
        assert calls == [True], "the region went to jax's reverse mode"
        assert set(fallbacks) == set(fallback), f"ops differentiated by jax.vjp: {fallbacks}"
        monkeypatch.setattr(reverse, "value_and_grad", lambda *a: None)
        theirs = tpucc.compile(lambda *a: tpucc.value_and_grad(loss, argnums=argnums)(*a),
                               cache=False)(*args)
        return ours, theirs
    return run


def _assert_same(ours, theirs, rtol=1e-12, atol=1e-12):
    (v1, g1), (v2, g2) = ours, theirs
    np.testing.assert_allclose(v1, v2, rtol=rtol, atol=atol)
    g1 = g1 if isinstance(g1, tuple) else (g1,)
    g2 = g2 if isinstance(g2, tuple) else (g2,)
    for a, b in zip(g1, g2):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


ELEMENTWISE = {
    "broadcast arithmetic": lambda a, b: np.sum((a * b[0] + a / (b[1] + 3.0) - b) ** 1 * 2.0),
    "lower-rank operand": lambda a, b: np.sum(a[0] * b[0, 0] - b[0, 0, 1]),
    "unary chain": lambda a, b: np.sum(np.tanh(a) * np.exp(b * 0.1) + np.sqrt(a * a + 1.0)
                                       - np.log(b * b + 2.0) + (-a)),
    "scalar operand": lambda a, b: np.sum(a * 3.0 - 1.5) + np.sum(2.0 / (b * b + 1.0)),
    "size-1 axes": lambda a, b: np.sum(a[:, :1] * b[:1, :]),
    "trigonometric and friends": lambda a, b: np.sum(
        np.sin(a) * np.cos(b) + np.tan(a * 0.3) + np.sinh(b * 0.5) - np.cosh(a * 0.2)
        + np.arctan(a) + np.arcsin(np.tanh(b) * 0.9) - np.arccos(np.tanh(a) * 0.8)
        + np.arcsinh(b) + np.arctanh(np.tanh(a) * 0.7) + np.deg2rad(a) - np.rad2deg(b)),
    "logs, powers and steps": lambda a, b: np.sum(
        np.log1p(a * a) + np.expm1(b * 0.1) + np.exp2(a * 0.5) + np.log2(b * b + 1)
        - np.log10(a * a + 2) + np.square(b) + np.reciprocal(a * a + 1) + np.cbrt(b * b + 1)
        + np.fabs(a) * np.floor(b) + np.ceil(a) + np.sign(b) * a + +b + np.trunc(a) * np.rint(b)),
    "max, min and their ties": lambda a, b: np.sum(np.maximum(a, b) * 3.0 + np.minimum(a, 0.5)
                                                   + np.maximum(np.round(a), np.round(b))),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_rules(both_ways, name):
    a, b = _r((2, 3, 4), 1), _r((2, 3, 4), 2)
    _assert_same(*both_ways(ELEMENTWISE[name], a, b, argnums=(0, 1)))


def test_select_reductions_and_reshapes(both_ways):
    def loss(x, w):
        y = np.where(x > 0, x, 0.1 * x)                   # leaky relu: both branches
        z = np.where(y <= 0, 0, y)                         # relu: a constant branch
        s = z.sum(axis=1, keepdims=True) + y.mean(axis=(0, 2), keepdims=True).reshape(1, 3, 1)
        t = np.transpose(s * w, (2, 0, 1)).reshape(-1)
        return t.mean() + z.max() - np.min(y, axis=0).sum() + x.T.sum()
    x, w = _r((2, 3, 4), 3), _r((1, 3, 4), 4)
    _assert_same(*both_ways(loss, x, w, argnums=(0, 1)))


def test_max_and_min_share_ties_as_jax_does(both_ways):
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, -1.0]])
    _assert_same(*both_ways(lambda x: np.max(x, axis=1).sum() + np.min(x) * 2.0 + x.max(), x))


def test_mixed_dtypes_cast_cotangents_back(both_ways):
    def loss(a, b):
        return (a.astype(np.float64) * b).sum() + np.sum(a * np.float32(2.0))
    a, b = _r((3, 4), 5, np.float32), _r((3, 4), 6)
    ours, theirs = both_ways(loss, a, b, argnums=(0, 1))
    assert ours[1][0].dtype == np.float32
    _assert_same(ours, theirs, rtol=1e-6, atol=1e-6)


def test_products(both_ways):
    def loss(a, b, v, t):
        return (np.sum((a @ b) ** 2) + np.dot(a, b).sum() + (a @ v).sum()    # 2-D and 1-D
                + np.sum(t @ t.transpose(0, 2, 1)))                           # batched
    a, b, v, t = _r((3, 4), 7), _r((4, 5), 8), _r((4,), 9), _r((2, 3, 4), 10)
    _assert_same(*both_ways(loss, a, b, v, t, argnums=(0, 1, 2, 3)))


def _cpu_product_form(rows, b_size=30) -> tuple:
    """(dot_generals, optimization barriers) of a @ b.T with `rows` rows on
    the CPU: one per row up to 8; above, b transposed first, unless it is
    large and the rows fewer than 64; one dot for a single row."""
    if 1 < rows <= linalg.ROW_PRODUCT_MAX_M:
        return rows, 0
    transposed = rows >= linalg.TRANSPOSE_FIRST_MIN_M or b_size <= linalg.SMALL_B_MAX_SIZE
    return 1, int(rows > 1 and transposed)


def _products(fn, args, platforms) -> tuple:
    with registry.lowering_for(platforms):
        text = tpucc.compile(fn, cache=False).lower(*args).as_text()
    # (barriers of a transposed operand: a product's operands are behind one
    # too, registry.hidden_from_simplifier)
    return len(re.findall(r"\bdot\(", text)), len(re.findall(r"\bopt-barrier\(transpose", text))


@pytest.mark.parametrize("rows", [1, 2, 8, 9, 64])
def test_classifier_input_gradient_on_the_cpu(rows):
    """ct @ W.T (XLA:CPU's dot is slow for it): one matrix-vector product
    per row for a few rows, W transposed first for many, one dot_general
    for other targets; the gradient is NumPy's in every form."""
    x, w, ct = _r((rows, 6), 1, np.float32), _r((6, 5), 2, np.float32), _r((rows, 5), 3, np.float32)

    def loss(x, w):
        return np.sum((x @ w) * ct)
    step = lambda x, w: tpucc.value_and_grad(loss)(x, w)      # noqa: E731
    value, grad = tpucc.compile(step, cache=False)(x, w)
    np.testing.assert_allclose(value, np.sum((x @ w) * ct), rtol=1e-5)
    want = ct @ w.T
    # (atol: an element that cancels to 1e-3 of the largest differs in its
    # last float32 bits between summation orders: NumPy's BLAS and XLA's)
    np.testing.assert_allclose(grad, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())
    assert grad.dtype == np.float32
    dots, barriers = _cpu_product_form(rows)
    assert _products(step, (x, w), ("cpu",)) == (1 + dots, barriers)     # 1: the forward
    assert _products(step, (x, w), ("cuda",)) == (2, 0)


@pytest.mark.parametrize("rows", [9, 63, 64])
def test_a_large_transposed_weight_is_transposed_only_for_many_rows(rows):
    """Below 64 rows, transposing a weight of over 2048 x 2048 elements
    costs XLA:CPU about what it saves (lowered only, not run)."""
    x, w = np.zeros((rows, 4096), np.float32), np.zeros((1025, 4096), np.float32)

    def linear(x, w):
        return x @ w.T
    assert w.size > linalg.SMALL_B_MAX_SIZE
    assert _products(linear, (x, w), ("cpu",)) == _cpu_product_form(rows, w.size) == \
        (1, int(rows >= 64))


def test_dense_layer_over_sequences(both_ways):
    """(batch, time, k) @ (k, n): its gradients as products of matrices,
    the leading axes folded into rows (here 2 * 40 = 80: W transposed first)."""
    def loss(x, w):
        return np.sum(np.tanh(x @ w) ** 2)
    x, w = _r((2, 40, 6), 6), _r((6, 5), 7)
    _assert_same(*both_ways(loss, x, w, argnums=(0, 1)), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("rows", [1, 3, 9, 64])
def test_forward_product_with_a_transposed_weight_on_the_cpu(rows):
    """x @ w.T (PyTorch's linear layer, w stored (out, in)) reads through the
    transpose and takes the CPU's forms of a @ b.T, as ct @ W.T does."""
    x, w = _r((rows, 6), 4, np.float32), _r((5, 6), 5, np.float32)

    def linear(x, w):
        return np.maximum(x @ w.T, 0.0) + w.T.sum()
    compiled = tpucc.compile(linear, cache=False)
    np.testing.assert_allclose(compiled(x, w), linear(x, w), rtol=1e-5)
    assert _products(linear, (x, w), ("cpu",)) == _cpu_product_form(rows)
    assert _products(linear, (x, w), ("cuda",)) == (1, 0)

    def loss(x, w):
        return np.sum(linear(x, w) ** 2)
    grads = tpucc.compile(lambda x, w: tpucc.grad(loss, argnums=(0, 1))(x, w), cache=False)(x, w)
    for a, b in zip(grads, _numpy_linear_grads(x, w)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def _numpy_linear_grads(x, w):
    y = x @ w.T
    out = np.maximum(y, 0.0) + w.T.sum()
    g = 2 * out * (y > 0)
    return g @ w, g.T @ x + 2 * out.sum()


# (each case compiles two training steps, ~5 s: one per kind of padding,
# stride and dilation, combined where they can be)
CONVS = [dict(padding=1), dict(padding="SAME"), dict(padding=((0, 1), (2, 0))),
         dict(stride=3, padding=0), dict(stride=(2, 3), padding=(1, 2)),
         dict(stride=2, dilation=2, padding=1), dict(groups=2, padding=1)]


@pytest.mark.parametrize("cfg", CONVS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_conv_net_in_channels_last(both_ways, cfg):
    """conv -> bias -> relu -> pool -> conv ..., kept NHWC by the lowering:
    the rules see physical operands; grouped convs and overlapping max pools
    fall back to jax.vjp of the op."""
    def loss(w1, b1, w2, x):
        y = nn.relu(nn.conv2d(x, w1, b1, **cfg))
        y = nn.max_pool2d(y, 2)
        y = nn.relu(nn.conv2d(y, w2, padding=1))
        y = nn.max_pool2d(y, 3, stride=1) + nn.avg_pool2d(y, 3, stride=1)
        return np.mean(nn.flatten(y) ** 2)
    x = _r((2, 4, 24, 24), 11)
    w1, b1, w2 = _r((4, 4 // cfg.get("groups", 1), 3, 3), 12), _r((4,), 13), _r((3, 4, 3, 3), 14)
    fallback = {"max_pool2d"} | ({"conv2d"} if "groups" in cfg else set())
    _assert_same(*both_ways(loss, w1, b1, w2, x, argnums=(0, 1, 2, 3), fallback=fallback),
                 rtol=1e-10, atol=1e-10)


def test_conv_with_an_even_kernel_and_weights_in_float32(both_ways):
    def loss(w, x):
        return np.sum(nn.conv2d(x, w, padding="SAME") ** 2)
    w, x = _r((5, 3, 2, 4), 15, np.float32), _r((2, 3, 7, 6), 16, np.float32)
    _assert_same(*both_ways(loss, w, x, argnums=(0, 1)), rtol=2e-5, atol=1e-5)


def test_classifier_with_a_label_lookup(both_ways):
    """cross_entropy's label lookup: a gather whose cotangent is a scatter-add."""
    def loss(params, x, labels):
        h = nn.relu(nn.linear(x, params["w1"], params["b1"]))
        return nn.cross_entropy(nn.linear(h, params["w2"], params["b2"]), labels)
    params = {"w1": _r((6, 8), 17), "b1": _r((8,), 18), "w2": _r((8, 5), 19), "b2": _r((5,), 20)}
    ours, theirs = both_ways(loss, params, _r((4, 6), 21), np.array([0, 4, 2, 2]))
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    for k in params:
        np.testing.assert_allclose(ours[1][k], theirs[1][k], rtol=1e-12, atol=1e-12)


def test_regions_with_control_flow_use_jax(monkeypatch):
    """A static loop longer than the unroll budget is a scan in the region:
    not the rules' case."""
    taken = []
    by_rules = reverse.value_and_grad
    monkeypatch.setattr(reverse, "value_and_grad",
                        lambda *a: taken.append(by_rules(*a)) or taken[-1])

    def loss(w, x):
        for _ in range(40):
            x = np.tanh(x @ w)
        return x.sum()
    w, x = _r((3, 3), 22), _r((2, 3), 23)
    value, grad = tpucc.compile(lambda w, x: tpucc.value_and_grad(loss)(w, x), cache=False)(w, x)
    assert grad.shape == (3, 3)
    assert taken in ([], [None])


def test_batched_and_vector_products(both_ways):
    def loss(a, b, v, s, u):
        return (np.sum((a @ b) ** 2) + np.sum(v @ a) + np.sum(b @ s)       # stacks; vector @ stack
                + np.sum(s @ b[0].T) + s @ u + np.sum(a[0] @ b))          # vector @ vector; broadcast
    args = _r((2, 3, 4), 24), _r((2, 4, 5), 25), _r((3,), 26), _r((5,), 27), _r((5,), 28)
    _assert_same(*both_ways(loss, *args, argnums=(0, 1, 2, 3, 4)))


def test_power_and_indexing(both_ways):
    def loss(x, e, idx):
        y = x ** 3 + np.abs(x) ** e + x[1:, ::2].sum() * x[0, 1] + (x[idx] ** 2).sum()
        z = x[:, None, :2] * e[:2]                   # a new axis: not a window, a scatter-add
        return y.sum() + z.sum() + x[-1].sum() + 0.0 ** e[0]
    x, e = _r((3, 4), 30), np.array([2.0, 0.0, 1.5, 3.0])
    _assert_same(*both_ways(loss, x, e, np.array([2, 0, 2]), argnums=(0, 1)))


@pytest.mark.parametrize("cfg", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                 dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
                                 dict(kernel_size=(2, 3), stride=(1, 2)),
                                 dict(kernel_size=3, stride=3)],
                         ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_average_pooling(both_ways, cfg):
    def loss(x):
        return np.sum(nn.avg_pool2d(x * x, **cfg) * np.arange(1.0, 3.0)[:, None, None])
    _assert_same(*both_ways(loss, _r((3, 2, 8, 7), 31)))
