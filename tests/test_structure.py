"""Program structure: helper calls, arguments, closures, lambdas, classes,
dataclasses, comprehensions, static recursion, globals, pytree arguments.

Module-level functions are the test programs; `check` runs each eagerly and
compiled and compares the results.  The tests at the end check that arrays
read from globals, closures and object attributes are runtime inputs of the
compiled module (changing them changes the result of the same compiled
function), and that a changed global Python scalar is seen (recompiled)."""
import dataclasses
import functools
import math

import numpy as np
import pytest

import tpucc
from conftest import assert_same, check


def _r(shape, dtype=np.float64, seed=0, lo=-2.0, hi=2.0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        return rng.integers(int(lo), int(hi), size=shape).astype(dt)
    return rng.uniform(lo, hi, size=shape).astype(dt)


# --------------------------------------------------------------------------
# Helper functions, arguments
# --------------------------------------------------------------------------

def _affine(x, w, b=0.5, *, scale=1.0):
    return (x @ w + b) * scale


def call_helper_defaults(x, w):
    return _affine(x, w), _affine(x, w, 1.0), _affine(x, w, b=-1.0, scale=2.0), _affine(x=x, w=w)


def _total(*xs, **weights):
    out = 0.0
    for i, v in enumerate(xs):
        out = out + v * weights.get(f"w{i}", 1.0)
    return out


def star_args_kwargs(a, b, c):
    parts = (a, b, c)
    opts = {"w1": 2.0, "w2": -1.0}
    return _total(*parts, **opts), _total(a, b), _total(*[c], w0=3.0), _total(**{"w0": 3.0})


def static_kwargs(x, n=2, mode="relu"):
    # n and mode are static Python values passed to the compiled function
    for _ in range(n):
        x = x * 1.5
    return np.maximum(x, 0) if mode == "relu" else np.tanh(x)


def _scale_shift(x, scale, shift=0.0):
    return x * scale + shift


def partial_call(x):
    f = functools.partial(_scale_shift, scale=2.0)
    g = functools.partial(_scale_shift, shift=-1.0)
    return f(x), g(x, 3.0), f(x, shift=0.5)


# --------------------------------------------------------------------------
# Closures, lambdas, nested functions
# --------------------------------------------------------------------------

def _make_scaler(s):
    def scale(v):
        return v * s
    return scale


def closure_over_scalar(x):
    double = _make_scaler(2.0)
    return double(x), _make_scaler(-1)(x), _make_scaler(double(3))(x)


def _make_shift(w):
    return lambda v: v + w


SHIFT_BY_ARRAY = _make_shift(np.arange(4.0))


def closure_over_array(x):
    return SHIFT_BY_ARRAY(x), _make_shift(x)(x)


def lambdas(x):
    sq = lambda v: v * v                    # noqa: E731
    add = lambda u, v=1.0: u + v            # noqa: E731
    fs = [sq, np.tanh, lambda v: -v]
    return add(sq(x)), add(x, x), [f(x) for f in fs], (lambda: x.sum())()


def nested_functions(x, y):
    def inner(v):
        return v * y + x        # closes over the outer function's runtime arrays
    def outer(v):
        return inner(inner(v))
    return outer(x)


def nonlocal_counter(x):
    count = 0
    def bump(v):
        nonlocal count
        count += 1
        return v + count
    y = bump(bump(x))
    return y, count


def _relu(v):
    return np.maximum(v, 0.0)


def map_builtin(xs):
    ys = list(map(_relu, xs))
    return ys, list(map(lambda a, b: a * b, xs, ys))


# --------------------------------------------------------------------------
# Classes
# --------------------------------------------------------------------------

class Dense:
    def __init__(self, w, b, act=None):
        self.w = w
        self.b = b
        self.act = act

    def __call__(self, x):
        y = x @ self.w + self.b
        return self.act(y) if self.act is not None else y

    @property
    def out_features(self):
        return self.w.shape[1]


class MLP:
    def __init__(self, layers):
        self.layers = list(layers)

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    @property
    def depth(self):
        return len(self.layers)


GLOBAL_MLP = MLP([
    Dense(_r((4, 8), seed=1), _r(8, seed=2), _relu),
    Dense(_r((8, 8), seed=3), _r(8, seed=4), np.tanh),
    Dense(_r((8, 3), seed=5), _r(3, seed=6)),
])


def class_call_property(x, w, b):
    layer = Dense(w, b, _relu)
    return layer(x), layer.out_features, Dense(w, b)(x) * 2, getattr(layer, "b") + 1


def global_model_in_loop(x):
    return GLOBAL_MLP(x), GLOBAL_MLP.depth


def model_built_inside(x, w1, b1, w2, b2):
    model = MLP([Dense(w1, b1, _relu), Dense(w2, b2)])
    return model(x), model.depth


class Base:
    scale = 2.0     # class attribute

    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return x * self.w

    @staticmethod
    def act(v):
        return np.maximum(v, 0)

    @classmethod
    def make(cls, w):
        return cls(w)


class Child(Base):
    def forward(self, x):
        return self.act(super().forward(x)) * self.scale


def inheritance_static_class_methods(x, w):
    return Child.make(w).forward(x), Base(w).forward(x), Base.act(x), isinstance(Child(w), Base)


class Counter:
    """An object whose Python state is mutated at compile time."""
    def __init__(self):
        self.calls = 0

    def apply(self, x):
        self.calls += 1
        return x + self.calls


def object_state_static(x):
    c = Counter()
    y = c.apply(c.apply(x))
    return y, c.calls


# --------------------------------------------------------------------------
# Dataclasses
# --------------------------------------------------------------------------

@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: np.ndarray
    scale: float = 1.0

    def apply(self, x):
        return (x @ self.w + self.b) * self.scale


@dataclasses.dataclass(frozen=True)
class Config:
    hidden: int = 4
    act: str = "tanh"


GLOBAL_PARAMS = Params(_r((3, 4), seed=7), _r(4, seed=8), scale=0.5)


def dataclass_prog(x, w, b):
    p = Params(w, b, scale=0.5)
    cfg = Config()
    h = p.apply(x)
    h = np.tanh(h) if cfg.act == "tanh" else h
    return h, GLOBAL_PARAMS.apply(x), cfg.hidden, Config(hidden=2).hidden * h.shape[-1]


# --------------------------------------------------------------------------
# Comprehensions, generators, zip / enumerate / range
# --------------------------------------------------------------------------

def list_comprehension(x):
    ys = [x * i for i in range(1, 4)]
    evens = [y.sum() for i, y in enumerate(ys) if i % 2 == 0]
    return np.stack(ys), evens, [[i * j for j in range(2)] for i in range(2)]


def dict_comprehension(x, y):
    d = {name: v * 2 for name, v in zip(("a", "b"), (x, y))}
    return {k: v + 1 for k, v in d.items()}, len(d)


def generator_sum(xs):
    return sum(v * v for v in xs), sum(v.sum() for v in xs), max(len(v) for v in xs)


def zip_enumerate_range(x, w):
    acc = np.zeros(4)
    for i, (row, c) in enumerate(zip(x, [1.0, -2.0, 0.5])):
        acc = acc + row * c * i
    for k in range(0, 4, 2):
        acc[k] = acc[k] + w[k]
    for k in reversed(range(3)):
        acc = acc * 0.5 + k
    return acc


def unpacking(xs):
    first, *rest = xs
    a, b = rest[-1], first
    a, b = b, a
    return first, np.stack(rest), len(rest), a - b


def _as_array(v):
    return v if isinstance(v, np.ndarray) else np.full(3, v)


def isinstance_dispatch(x):
    return _as_array(x) + _as_array(2.0), isinstance(x, np.ndarray), type(x.shape) is tuple


# --------------------------------------------------------------------------
# Static recursion, imports inside functions, print
# --------------------------------------------------------------------------

def _power(x, n):
    if n == 0:
        return np.ones_like(x)
    half = _power(x, n // 2)
    return half * half * (x if n % 2 else 1)


def recursion_depth(x, n):
    # n is a static Python int: the recursion is unfolded at compile time
    return _power(x, n)


def _tree_sum(t):
    if isinstance(t, (list, tuple)):
        return sum(_tree_sum(s) for s in t)
    return t.sum()


def recursive_pytree(x, y, z):
    return _tree_sum([x, (y, [z, x])])


def import_inside(x):
    import math
    import numpy as np
    return np.sin(x) * math.pi + math.sqrt(2.0), np.float32(math.e) * x


def prints_runtime(x):
    y = x * 2
    print("y is", y)
    print("sum", y.sum(), "shape", y.shape)
    return y + 1


def uses_math_module(x):
    return x * math.cos(0.5) + math.floor(2.7), math.prod(x.shape)


# --------------------------------------------------------------------------
# Pytree arguments
# --------------------------------------------------------------------------

def tuple_arg(pair):
    a, b = pair
    return a + b, a * b


def dict_arg(params, x):
    return x @ params["w"] + params["b"]


def nested_pytree_arg(tree):
    return tree["a"][0] + tree["a"][1]["c"] * tree["b"], sorted(tree)


def list_arg(xs):
    return [v + i for i, v in enumerate(xs)], len(xs)


# --------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------

F32 = dict(rtol=1e-5, atol=1e-6)

CASES = [
    (call_helper_defaults, (_r((2, 3)), _r((3, 4), seed=1)), {}, {}),
    (star_args_kwargs, (_r(3, np.float32), _r(3, np.float32, 1), _r(3, np.float32, 2)), {}, F32),
    (static_kwargs, (_r(4),), {}, {}),
    (static_kwargs, (_r(4),), {"n": 3, "mode": "tanh"}, {}),
    (partial_call, (_r(4),), {}, {}),
    (closure_over_scalar, (_r(4, np.float32),), {}, F32),
    (closure_over_array, (_r(4),), {}, {}),
    (lambdas, (_r(4, np.float32),), {}, F32),
    (nested_functions, (_r(4), _r(4, seed=1)), {}, {}),
    (nonlocal_counter, (_r(3, np.int32),), {}, {}),
    (map_builtin, ([_r(3), _r(3, seed=1)],), {}, {}),
    (class_call_property, (_r((2, 3)), _r((3, 4), seed=1), _r(4, seed=2)), {}, {}),
    (global_model_in_loop, (_r((2, 4)),), {}, {}),
    (model_built_inside, (_r((2, 3), np.float32), _r((3, 5), np.float32, 1), _r(5, np.float32, 2),
                          _r((5, 2), np.float32, 3), _r(2, np.float32, 4)), {}, F32),
    (inheritance_static_class_methods, (_r(4), _r(4, seed=1)), {}, {}),
    (object_state_static, (_r(3),), {}, {}),
    (dataclass_prog, (_r((2, 3)), _r((3, 4), seed=1), _r(4, seed=2)), {}, {}),
    (list_comprehension, (_r(3, np.int32, 0, -5, 5),), {}, {}),
    (dict_comprehension, (_r(3), _r(3, np.float32, 1)), {}, {}),
    (generator_sum, ((_r(3, np.float32), _r(3, np.float32, 1), _r(3, np.float32, 2)),), {}, F32),
    (zip_enumerate_range, (_r((3, 4)), _r(4, seed=1)), {}, {}),
    (unpacking, ((_r(3), _r(3, seed=1), _r(3, seed=2)),), {}, {}),
    (isinstance_dispatch, (_r(3),), {}, {}),
    (recursion_depth, (_r(4), 5), {}, {}),
    (recursion_depth, (_r(4, np.float32), 0), {}, {}),
    (recursive_pytree, (_r(3), _r(2, seed=1), _r(4, seed=2)), {}, {}),
    (import_inside, (_r(4, np.float32),), {}, F32),
    (prints_runtime, (_r(3),), {}, {}),
    (uses_math_module, (_r((2, 3), np.float32),), {}, F32),
    (tuple_arg, ((_r(3), _r(3, seed=1)),), {}, {}),
    (dict_arg, ({"w": _r((3, 2)), "b": _r(2, seed=1)}, _r((4, 3), seed=2)), {}, {}),
    (nested_pytree_arg, ({"a": (_r(3), {"c": _r(3, seed=1)}), "b": _r(3, seed=2)},), {}, {}),
    (list_arg, ([_r(2), _r(2, np.float32, 1), _r(2, np.int32, 2)],), {}, {}),
]


def _ids():
    seen, out = {}, []
    for fn, *_ in CASES:
        n = seen.get(fn.__name__, 0)
        seen[fn.__name__] = n + 1
        out.append(fn.__name__ if n == 0 else f"{fn.__name__}-{n}")
    return out


@pytest.mark.parametrize("fn,args,kwargs,tol", CASES, ids=_ids())
def test_program(fn, args, kwargs, tol):
    check(fn, *args, **tol, **kwargs)


def test_decorator_form():
    @tpucc.compile
    def decorated(x, y):
        return _affine(x, y, scale=3.0)

    x, w = _r((2, 3)), _r((3, 4), seed=1)
    assert_same(_affine(x, w, scale=3.0), decorated(x, w))


def test_print_shows_runtime_value(capsys):
    x = np.array([1.0, 2.0, 3.0])
    f = tpucc.compile(prints_runtime)
    assert_same(prints_runtime(x.copy()), f(x.copy()))
    out = capsys.readouterr().out
    assert "y is" in out


# --------------------------------------------------------------------------
# Globals, closures and attributes: arrays are runtime inputs, scalars static
# --------------------------------------------------------------------------

G_TABLE = np.arange(6, dtype=np.float32).reshape(2, 3)


def reads_global_array(x):
    return x * G_TABLE + G_TABLE.sum()


def test_global_array_mutated_in_place():
    x = _r((2, 3), np.float32)
    saved = G_TABLE.copy()
    f = tpucc.compile(reads_global_array)
    try:
        assert_same(reads_global_array(x), f(x), 1e-5)
        G_TABLE[...] = G_TABLE * 10 + 1
        second = f(x)                       # same compiled object, new values
        assert_same(reads_global_array(x), second, 1e-5)
        assert not np.allclose(second, x * saved + saved.sum())
    finally:
        G_TABLE[...] = saved


def test_global_array_rebound():
    global G_TABLE
    x = _r((2, 3), np.float32)
    saved = G_TABLE
    f = tpucc.compile(reads_global_array)
    try:
        assert_same(reads_global_array(x), f(x), 1e-5)
        G_TABLE = (saved[::-1] * 3 - 2).copy()  # same shape and dtype, new object
        assert_same(reads_global_array(x), f(x), 1e-5)
    finally:
        G_TABLE = saved


def _make_reader(w):
    def read(x):
        return x @ w
    return read


def test_closure_array_is_runtime_input():
    w = _r((3, 2), seed=1)
    x = _r((4, 3))
    read = _make_reader(w)
    f = tpucc.compile(read)
    first = f(x)
    assert_same(x @ w, first)
    w *= 2.0                                  # the closure cell sees the new values
    second = f(x)
    assert_same(x @ w, second)
    np.testing.assert_allclose(second, 2 * first, rtol=1e-12)


def test_object_attribute_arrays_are_runtime_inputs():
    x = _r((2, 4))
    f = tpucc.compile(global_model_in_loop)
    assert_same(global_model_in_loop(x), f(x))
    layer = GLOBAL_MLP.layers[-1]
    saved_w, saved_b = layer.w.copy(), layer.b
    try:
        layer.w[...] = layer.w * -0.5            # in place
        layer.b = saved_b + 1.0                  # attribute rebound
        assert_same(global_model_in_loop(x), f(x))
    finally:
        layer.w[...] = saved_w
        layer.b = saved_b


def test_dataclass_global_mutated():
    x = _r((2, 3))
    f = tpucc.compile(dataclass_prog)
    args = (x, _r((3, 4), seed=1), _r(4, seed=2))
    assert_same(dataclass_prog(*args), f(*args))
    saved = GLOBAL_PARAMS.b.copy()
    try:
        GLOBAL_PARAMS.b += 5.0
        assert_same(dataclass_prog(*args), f(*args))
    finally:
        GLOBAL_PARAMS.b[...] = saved


G_SCALE = 2.0


def reads_global_scalar(x):
    return x * G_SCALE


def test_global_scalar_change_recompiles():
    global G_SCALE
    x = _r(4, np.int32, 0, -5, 5)
    f = tpucc.compile(reads_global_scalar)
    try:
        first = f(x)
        assert_same(x * 2.0, first)               # int32 * 2.0 -> float64
        G_SCALE = 3                                # a Python int: int32 * 3 -> int32
        second = f(x)
        assert_same(x * 3, second)
        assert second.dtype == np.int32
        G_SCALE = 0.25
        assert_same(x * 0.25, f(x))
    finally:
        G_SCALE = 2.0


def test_same_compiled_function_new_shapes():
    # one compiled object called with different shapes/dtypes (re-specializes)
    f = tpucc.compile(call_helper_defaults)
    for shape, dtype in [((2, 3), np.float64), ((5, 3), np.float32)]:
        x, w = _r(shape, dtype), _r((3, 4), dtype, 1)
        assert_same(call_helper_defaults(x, w), f(x, w), 1e-5)
