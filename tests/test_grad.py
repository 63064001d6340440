"""tpucc.grad / tpucc.value_and_grad: gradients against central finite
differences of the eager NumPy function (float64), over pytrees of
parameters, through static loops, counted loops (a scan) and runtime
branches; a whole training step as one executable; refusals with E350."""
from collections import namedtuple

import numpy as np
import pytest

import tpucc
import inspect

from tests.conftest import count_hlo, numeric_grad

RNG = np.random.default_rng(0)


def assert_grad(f, x, *rest, rtol=1e-6, atol=1e-8):
    g = tpucc.grad(f)(x, *rest)
    expect = numeric_grad(lambda v: f(v, *rest), x)
    assert g.dtype == x.dtype and g.shape == x.shape
    np.testing.assert_allclose(g, expect, rtol=rtol, atol=atol)


# --- functions of one array --------------------------------------------------------------

def tanh_matmul(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def softplus_mean(x):
    return np.mean(np.log1p(np.exp(x)) * x)


def piecewise(x):
    y = np.where(x > 0, x ** 2, -x)
    return y.sum() + np.max(x) * 0.5


def reductions_and_shapes(x):
    y = x.reshape(2, 6).T @ x.reshape(2, 6)
    return np.sum(y[1:, ::2]) + np.prod(x[:3]) + np.std(x)


@pytest.mark.parametrize("f,shape,extra", [
    (tanh_matmul, (3, 2), lambda: (RNG.standard_normal((4, 3)),)),
    (softplus_mean, (5,), tuple),
    (piecewise, (7,), tuple),
    (reductions_and_shapes, (12,), tuple),
])
def test_gradient_equals_finite_differences(f, shape, extra):
    x = RNG.standard_normal(shape) + 0.1
    assert_grad(f, x, *extra())


def test_float32_gradient_keeps_dtype():
    w = RNG.standard_normal((3, 2)).astype(np.float32)
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    g = tpucc.grad(tanh_matmul)(w, x)
    assert g.dtype == np.float32
    expect = numeric_grad(lambda v: tanh_matmul(v, x.astype(np.float64)), w)
    np.testing.assert_allclose(g, expect, rtol=1e-3, atol=1e-4)


def test_python_float_argument():
    g = tpucc.grad(lambda x: x * x * x)(2.0)
    assert type(g) is float and g == pytest.approx(12.0)


def test_second_derivative():
    def d_cube(x):
        return tpucc.grad(lambda y: np.sum(y ** 3))(x).sum()
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(tpucc.grad(d_cube)(x), 6 * x)


# --- parameters in containers and objects ------------------------------------------------

def mlp_loss(params, x):
    h = x
    for layer in params["layers"]:
        h = np.maximum(h @ layer[0] + layer[1], 0.01 * h @ layer[0])
    return np.mean(h ** 2) * params["scale"]


def test_dict_of_lists_of_tuples():
    params = {"layers": [(RNG.standard_normal((3, 4)), RNG.standard_normal(4)),
                         (RNG.standard_normal((4, 2)), RNG.standard_normal(2))],
              "scale": 3}
    x = RNG.standard_normal((5, 3))
    loss, g = tpucc.value_and_grad(mlp_loss)(params, x)
    assert loss == pytest.approx(mlp_loss(params, x))
    assert g["scale"] is None                               # an int: a constant
    assert isinstance(g["layers"], list) and isinstance(g["layers"][0], tuple)
    for i in range(2):
        for j in range(2):
            def f(v, i=i, j=j):
                p = {"layers": [list(t) for t in params["layers"]], "scale": 3}
                p["layers"][i][j] = v
                return mlp_loss(p, x)
            np.testing.assert_allclose(g["layers"][i][j],
                                       numeric_grad(f, params["layers"][i][j]),
                                       rtol=1e-5, atol=1e-8)


Pair = namedtuple("Pair", "w b")


def test_namedtuple_and_argnums_tuple():
    def f(p, x, c):
        return np.sum((x @ p.w + p.b) * c)
    p = Pair(RNG.standard_normal((3, 2)), RNG.standard_normal(2))
    x, c = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2))
    gp, gc = tpucc.grad(f, argnums=(0, 2))(p, x, c)
    assert isinstance(gp, Pair)
    np.testing.assert_allclose(gp.w, x.T @ c)
    np.testing.assert_allclose(gp.b, c.sum(0))
    np.testing.assert_allclose(gc, x @ p.w + p.b)


class Dense:
    def __init__(self, n_in, n_out, rng):
        self.weight = rng.standard_normal((n_in, n_out)).astype(np.float32)
        self.bias = np.zeros(n_out, np.float32)
        self.activation = "relu"

    def __call__(self, x):
        return np.maximum(x @ self.weight + self.bias, 0)


class Net:
    def __init__(self, rng):
        self.layers = [Dense(3, 8, rng), Dense(8, 1, rng)]

    def loss(self, x, y):
        for layer in self.layers:
            x = layer(x)
        return np.mean((x[:, 0] - y) ** 2)


def test_object_gradient_is_an_object_of_the_same_class():
    net = Net(np.random.default_rng(1))
    x = RNG.standard_normal((6, 3)).astype(np.float32)
    y = RNG.standard_normal(6).astype(np.float32)
    g = tpucc.grad(Net.loss)(net, x, y)
    assert type(g) is Net and type(g.layers[1]) is Dense
    assert g.layers[0].activation is None
    w = net.layers[1].weight

    def f(v):
        net.layers[1].weight = v.astype(np.float32)
        try:
            return float(net.loss(x, y))
        finally:
            net.layers[1].weight = w
    np.testing.assert_allclose(g.layers[1].weight, numeric_grad(f, w, eps=1e-3),
                               rtol=2e-2, atol=1e-3)


class Tied:
    def __init__(self, w):
        self.encode, self.decode = Pair(w, 0.0), Pair(w, 1.0)    # one array, two places


def test_tied_weights_share_one_gradient():
    w = RNG.standard_normal((3, 3))
    g = tpucc.grad(lambda m: np.sum(m.encode.w @ m.decode.w))(Tied(w))
    np.testing.assert_array_equal(g.encode.w, g.decode.w)
    expect = numeric_grad(lambda v: np.sum(v @ v), w)
    np.testing.assert_allclose(g.encode.w, expect, rtol=1e-6)


class Module:
    """PyTorch-style: __setattr__ registers arrays and submodules in dicts,
    so every parameter and child is reachable twice."""
    def __init__(self):
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_children", {})

    def __setattr__(self, name, value):
        if isinstance(value, np.ndarray):
            self._params[name] = value
        elif isinstance(value, Module):
            self._children[name] = value
        object.__setattr__(self, name, value)

    def parameters(self):
        out = list(self._params.values())
        for child in self._children.values():
            out += child.parameters()
        return out


class Affine(Module):
    def __init__(self, w):
        super().__init__()
        self.w, self.b = w, np.zeros(w.shape[1])

    def __call__(self, x):
        return x @ self.w + self.b


class TwoLayers(Module):
    def __init__(self, rng):
        super().__init__()
        self.first = Affine(rng.standard_normal((3, 4)))
        self.second = Affine(rng.standard_normal((4, 2)))

    def loss(self, x):
        return np.sum(self.second(np.tanh(self.first(x))) ** 2)


def test_registry_module_gradient_keeps_its_structure():
    """A child met twice (registry and attribute) gets its gradient at both
    places (it was None at the second), and a constant container (the
    parent's empty `_params`) stays a container, so the gradient's own
    parameters() works."""
    net, x = TwoLayers(np.random.default_rng(4)), RNG.standard_normal((5, 3))
    for g in (tpucc.grad(TwoLayers.loss)(net, x),
              tpucc.compile(lambda n, v: tpucc.grad(TwoLayers.loss)(n, v))(net, x)):
        assert g._params == {} and type(g._children["first"]) is Affine
        np.testing.assert_array_equal(g._children["first"].w, g.first.w)
        np.testing.assert_array_equal(g.first._params["w"], g.first.w)
        for p, gp in zip(net.parameters(), g.parameters()):
            saved = p.copy()

            def f(v, p=p, saved=saved):
                p[...] = v
                try:
                    return net.loss(x)
                finally:
                    p[...] = saved
            np.testing.assert_allclose(gp, numeric_grad(f, saved), rtol=1e-5, atol=1e-7)


def test_has_aux_with_grad_and_value_and_grad():
    def f(x):
        y = np.tanh(x)
        return np.sum(y), {"y": y, "n": 2}
    x = RNG.standard_normal(4)
    g, aux = tpucc.grad(f, has_aux=True)(x)
    np.testing.assert_allclose(g, 1 - np.tanh(x) ** 2)
    np.testing.assert_allclose(aux["y"], np.tanh(x))
    assert aux["n"] == 2
    (v, aux2), g2 = tpucc.value_and_grad(f, has_aux=True)(x)
    assert v == pytest.approx(np.sum(np.tanh(x)))
    np.testing.assert_allclose(g2, g)


# --- control flow ------------------------------------------------------------------------

def static_loop(x):
    for i in range(5):
        x = np.sin(x) + 0.1 * i
    return x.sum()


def counted_loop(x):
    for i in range(200):        # above the unroll budget: a counted While (a scan)
        x = 0.99 * x + 0.01 * np.cos(x)
    return x.sum()


def runtime_branch(x):
    if x.sum() > 0:
        y = x ** 3
    else:
        y = -x * 2
    return y.sum()


@pytest.mark.parametrize("f", [static_loop, counted_loop, runtime_branch])
def test_gradient_through_control_flow(f):
    for x in (RNG.standard_normal(4) + 1, RNG.standard_normal(4) - 1):
        assert_grad(f, x, rtol=1e-5)


def test_counted_loop_is_a_while_in_hlo():
    text = tpucc.grad(counted_loop).lower(np.ones(4)).as_text()
    assert count_hlo(text, "while") >= 1


def test_runtime_branch_is_a_conditional_in_hlo():
    text = tpucc.grad(runtime_branch).lower(np.ones(4)).as_text()
    assert count_hlo(text, "conditional") >= 1


def runtime_while(x):
    s = x.sum()
    while s > 1:                                # <- E350
        s = s / 2
    return s


def runtime_range(x, n):
    for i in range(n):                          # <- E350
        x = x * 0.5
    return x.sum()


def marked_line(fn) -> int:
    lines, start = inspect.getsourcelines(fn)
    return next(start + i for i, text in enumerate(lines) if "# <- E350" in text)


def test_runtime_loop_is_refused_at_its_line():
    with pytest.raises(tpucc.GradError, match="known only at run time") as info:
        tpucc.grad(runtime_while)(np.ones(3))
    assert info.value.code == "E350" and info.value.loc.line == marked_line(runtime_while)


def test_runtime_range_is_refused_at_its_line():
    f = tpucc.compile(lambda x, n: tpucc.grad(runtime_range)(x, n), runtime_args=("n",))
    with pytest.raises(tpucc.GradError, match="known only at run time") as info:
        f(np.ones(3), 4)
    assert info.value.loc.line == marked_line(runtime_range)


def test_runtime_loop_outside_the_differentiated_function_is_fine():
    @tpucc.compile
    def descend(x):
        steps = 0
        while np.sum(x ** 2) > 0.01:            # runtime: a While around the gradient
            x = x - 0.25 * tpucc.grad(lambda v: np.sum(v ** 2))(x)
            steps += 1
        return x, steps
    x, steps = descend(np.array([1.0, -2.0]))
    assert steps == 5 and np.allclose(x, [1 / 32, -2 / 32])    # 5 / 4**k <= 0.01
    assert count_hlo(descend.lower(np.ones(2)).as_text(), "while") >= 1


# --- errors ------------------------------------------------------------------------------

def test_non_scalar_loss_is_refused():
    with pytest.raises(tpucc.GradError, match="must return a float scalar"):
        tpucc.grad(lambda x: x * 2)(np.ones(3))


def test_integer_argument_is_refused():
    with pytest.raises(tpucc.GradError, match="only float arrays"):
        tpucc.grad(lambda x: np.sum(x * 1.5))(np.arange(3))


def test_has_aux_needs_a_pair():
    with pytest.raises(tpucc.GradError, match="must return a pair"):
        tpucc.grad(lambda x: np.sum(x), has_aux=True)(np.ones(3))


def test_bad_argnums():
    with pytest.raises(tpucc.GradError, match="argnums"):
        tpucc.grad(lambda x: np.sum(x), argnums=3)(np.ones(3))


OUTER = np.zeros(3)


def updates_outer(x):
    OUTER[0] = 1.0
    return np.sum(x * OUTER)


def test_in_place_updates_of_outer_arrays_happen_once_and_are_not_differentiated():
    OUTER[:] = 0.0
    g = tpucc.grad(updates_outer)(np.full(3, 2.0))
    np.testing.assert_array_equal(OUTER, [1.0, 0.0, 0.0])     # written back, like eager code
    np.testing.assert_array_equal(g, [1.0, 0.0, 0.0])


def running_mean_loss(x, stats):
    stats[...] = 0.9 * stats + 0.1 * x.mean()               # not differentiated
    return np.sum(x ** 2)


def test_updates_of_an_argument_inside_a_compiled_step():
    @tpucc.compile
    def step(x, stats):
        return tpucc.grad(running_mean_loss)(x, stats)
    stats = np.zeros(1)
    g = step(np.array([1.0, 3.0]), stats)
    np.testing.assert_array_equal(g, [2.0, 6.0])
    np.testing.assert_allclose(stats, [0.2])


# --- a training step: one executable -----------------------------------------------------

def test_training_step_is_one_executable_and_matches_eager_sgd():
    rng = np.random.default_rng(3)
    net, ref = Net(rng), Net(np.random.default_rng(3))
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = rng.standard_normal(8).astype(np.float32)
    loss_grad = tpucc.value_and_grad(Net.loss)

    @tpucc.compile
    def train_step(net, x, y, lr):
        loss, g = loss_grad(net, x, y)
        for layer, gl in zip(net.layers, g.layers):
            layer.weight -= lr * gl.weight
            layer.bias -= lr * gl.bias
        return loss

    losses = [train_step(net, x, y, 0.05) for _ in range(3)]
    assert len(train_step._cache) == 1 and loss_grad._compiled is None
    text = train_step.lower(net, x, y, 0.05).as_text()
    assert text.count("ENTRY") == 1
    # The same three steps with gradients taken one call at a time.
    for expected in losses:
        loss, g = loss_grad(ref, x, y)
        assert loss == pytest.approx(expected, rel=1e-5)
        for layer, gl in zip(ref.layers, g.layers):
            layer.weight = layer.weight - np.float32(0.05) * gl.weight
            layer.bias = layer.bias - np.float32(0.05) * gl.bias
    for a, b in zip(net.layers, ref.layers):
        np.testing.assert_allclose(a.weight, b.weight, rtol=1e-5, atol=1e-6)
    assert losses[2] < losses[0]


def test_compiling_a_gradient_function_directly():
    """tpucc.compile(tpucc.grad(f)): the compiled function is the gradient
    (compile used to copy the GradFunction's attributes, `fn` among them,
    over its own and compiled f instead)."""
    f = tpucc.compile(tpucc.grad(lambda x: np.sum(x * x)))
    np.testing.assert_array_equal(f(np.arange(3.0)), [0.0, 2.0, 4.0])
    vg = tpucc.compile(tpucc.value_and_grad(lambda x: np.sum(x ** 3)))
    value, grad = vg(np.array([1.0, 2.0]))
    assert value == 9.0 and list(grad) == [3.0, 12.0]


def test_relu_gradient_at_zero_is_zero():
    """tpucc.nn.relu's derivative at 0 is 0, as relu_vjp and PyTorch say
    (np.maximum(x, 0) would split it: 1/2)."""
    from tpucc import nn
    g = tpucc.grad(lambda x: np.sum(nn.relu(x)))(np.array([-1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 0.0, 1.0])
    r = tpucc.compile(nn.relu)(np.array([np.nan, -np.inf, -0.0, 3.0]))
    np.testing.assert_array_equal(r, [np.nan, 0.0, 0.0, 3.0])


# --- eager gradients of functions a loop defines ------------------------------------------------

def _loss_of(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def test_a_function_defined_in_a_loop_compiles_once_and_reads_its_closure(builds):
    rng = np.random.default_rng(5)
    w = rng.normal(size=3)
    for k in range(4):
        x = rng.normal(size=(6, 3)) * (k + 1)
        got = tpucc.grad(lambda w: _loss_of(w, x) * 2.0)(w)     # a new lambda each time
        np.testing.assert_allclose(got, tpucc.grad(_loss_of)(w, x) * 2.0, rtol=1e-12)
    assert builds[0] == 2           # the lambda once, _loss_of once
    for k in range(2):              # defaults made anew: functions of their own
        x = rng.normal(size=(6, 3))
        got = tpucc.grad(lambda w, x=x: _loss_of(w, x))(w)
        np.testing.assert_allclose(got, tpucc.grad(_loss_of)(w, x), rtol=1e-12)
    assert builds[0] == 4
