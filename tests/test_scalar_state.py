"""Python numbers and arrays the compiled code rebinds in places that outlive
the call: object attributes (`self.t += 1`) and the items of dict and list
arguments (`state["t"] += 1`, `state["m"][k] = new`).  Each test runs the
same code eagerly and compiled for several calls and compares the results
and the state left behind, values and Python types; where the number
changes at every call, it checks that the function compiled once."""
import copy
import warnings

import numpy as np
import pytest

import tpucc


def assert_same_state(a, b):
    """Same structure, same Python types, equal numbers and arrays."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert_same_state(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same_state(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    elif hasattr(a, "__dict__"):
        assert_same_state(vars(a), vars(b))
    else:
        assert a == b or (a != a and b != b), (a, b)


class Adam:
    def __init__(self, shapes, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
        self.lr, self.b1, self.b2, self.eps = lr, b1, b2, eps
        self.t = 0
        self.m = {k: np.zeros(s, np.float32) for k, s in shapes.items()}
        self.v = {k: np.zeros(s, np.float32) for k, s in shapes.items()}

    def update(self, params, grads):
        self.t += 1
        for k in params:
            self.m[k] *= self.b1
            self.m[k] += (1 - self.b1) * grads[k]
            self.v[k] *= self.b2
            self.v[k] += (1 - self.b2) * grads[k] ** 2
            mhat = self.m[k] / (1 - self.b1 ** self.t)
            vhat = self.v[k] / (1 - self.b2 ** self.t)
            params[k] -= self.lr * mhat / (np.sqrt(vhat) + self.eps)
        return self.t


def _params(seed=0):
    rng = np.random.default_rng(seed)
    return {"w": rng.standard_normal((3, 4)).astype(np.float32),
            "b": rng.standard_normal(4).astype(np.float32)}


def test_optimizer_step_counter_attribute_compiles_once(builds):
    shapes = {"w": (3, 4), "b": (4,)}
    eager_opt, opt = Adam(shapes), Adam(shapes)
    eager_p, p = _params(), _params()
    step = tpucc.compile(Adam.update)
    for i in range(5):
        g = _params(seed=i + 1)
        assert step(opt, p, g) == Adam.update(eager_opt, eager_p, g)
    assert_same_state(opt, eager_opt)
    assert_same_state(p, eager_p)
    assert type(opt.t) is int and opt.t == 5
    assert builds[0] == 1


def adam_functional(params, grads, state, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    state["t"] += 1
    t = state["t"]
    for k in params:
        state["m"][k] = b1 * state["m"][k] + (1 - b1) * grads[k]
        state["v"][k] = b2 * state["v"][k] + (1 - b2) * grads[k] ** 2
        mhat = state["m"][k] / (1 - b1 ** t)
        vhat = state["v"][k] / (1 - b2 ** t)
        params[k] = params[k] - lr * mhat / (np.sqrt(vhat) + eps)
    return params


def _adam_state(params):
    return {"t": 0, "m": {k: np.zeros_like(v) for k, v in params.items()},
            "v": {k: np.zeros_like(v) for k, v in params.items()}}


def test_dict_argument_items_rebound_are_written_back(builds):
    p, eager_p = _params(), _params()
    state, eager_state = _adam_state(p), _adam_state(p)
    step = tpucc.compile(adam_functional)
    for i in range(4):
        g = _params(seed=10 + i)
        out = step(p, g, state)
        eager_out = adam_functional(eager_p, g, eager_state)
        assert_same_state(out, eager_out)
    assert_same_state(state, eager_state)
    assert_same_state(p, eager_p)
    assert builds[0] == 1
    ir = step.lower(p, _params(seed=20), state).ir()
    assert "state['t'] (Python number the function rebinds)" in ir


def test_keyword_argument_and_list_items():
    def count(x, *, stats):
        stats["calls"] += 1
        stats["total"] = stats["total"] + float(x.sum())
        stats["hist"][0] += 1
        stats["hist"][1] = stats["hist"][1] * 2
        return x * stats["calls"]

    f = tpucc.compile(count)
    stats = {"calls": 0, "total": 0.0, "hist": [0, 1]}
    eager = copy.deepcopy(stats)
    for i in range(3):
        x = np.arange(4.0) + i
        np.testing.assert_array_equal(f(x, stats=stats), count(x, stats=eager))
    assert_same_state(stats, eager)


def test_runtime_number_rebound_keeps_python_type():
    class Tracker:
        def __init__(self):
            self.best = float("inf")
            self.calls = 0

        def observe(self, loss):
            self.calls += 1
            self.best = min(self.best, float(loss.mean()))
            return self.best

    t, eager = Tracker(), Tracker()
    f = tpucc.compile(Tracker.observe)
    for v in [3.0, 1.0, 2.0, 0.5]:
        x = np.full(3, v)
        assert f(t, x) == Tracker.observe(eager, x)
    assert_same_state(t, eager)
    assert type(t.best) is float


def test_counter_in_a_runtime_loop_is_carried_by_the_while():
    class Solver:
        def __init__(self):
            self.iterations = 0

        def halve(self, x):
            while x.max() > 1.0:
                x = x / 2
                self.iterations += 1
            return x

    s, eager = Solver(), Solver()
    f = tpucc.compile(Solver.halve)
    for scale in [10.0, 3.0, 100.0]:
        x = np.arange(1.0, 5.0) * scale
        np.testing.assert_array_equal(f(s, x), Solver.halve(eager, x))
        assert s.iterations == eager.iterations
    assert "while" in f.lower(s, np.ones(4)).as_text().lower()


def test_same_value_written_again_changes_nothing(builds):
    class Net:
        def __init__(self):
            self.training = True
            self.w = np.ones(3)

        def forward(self, x):
            self.training = True
            return x * self.w

    n = Net()
    f = tpucc.compile(Net.forward)
    for _ in range(3):
        f(n, np.ones(3))
    assert builds[0] == 1 and n.training is True
    assert f.lower(n, np.ones(3)).traced.writebacks == []


def test_flag_set_once_recompiles_once_without_warning(builds):
    class Lazy:
        def __init__(self):
            self.ready = False

        def run(self, x):
            if not self.ready:
                self.ready = True
                return x + 1
            return x * 2

    obj, eager = Lazy(), Lazy()
    f = tpucc.compile(Lazy.run)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            x = np.arange(3.0)
            np.testing.assert_array_equal(f(obj, x), Lazy.run(eager, x))
    assert obj.ready is True
    assert builds[0] == 2


def test_number_needed_at_compile_time_warns_and_recompiles(builds):
    class Grower:
        def __init__(self):
            self.n = 1

        def make(self):
            self.n += 1
            return np.zeros(self.n)

    g, eager = Grower(), Grower()
    f = tpucc.compile(Grower.make)
    with pytest.warns(tpucc.RecompileWarning, match=r"\.n` of Grower objects.*compile time") \
            as caught:
        out = f(g)
    # placed at the user's line that needs the number
    assert caught[0].filename == __file__
    assert caught[0].lineno == Grower.make.__code__.co_firstlineno + 2
    np.testing.assert_array_equal(out, Grower.make(eager))
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # said once; later traces start static
        for _ in range(2):
            np.testing.assert_array_equal(f(g), Grower.make(eager))
    assert g.n == eager.n == 4
    assert builds[0] == 3


def test_user_changing_the_type_recompiles():
    class Counter:
        def __init__(self):
            self.t = 0

        def tick(self, x):
            self.t += 1
            return x * self.t

    c, eager = Counter(), Counter()
    f = tpucc.compile(Counter.tick)
    x = np.ones(2)
    f(c, x), Counter.tick(eager, x)
    c.t = eager.t = 2.5
    np.testing.assert_array_equal(f(c, x), Counter.tick(eager, x))
    assert c.t == 3.5 and type(c.t) is float


def _branch_counts(x, state):
    if x.sum() > 0:
        state["positive"] += 1
        state["last"] = x * 2
    return x


def test_argument_items_rebound_in_a_runtime_branch(builds):
    f = tpucc.compile(_branch_counts)
    state = {"positive": 0, "last": np.zeros(2)}
    eager = copy.deepcopy(state)
    for x in ([1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]):
        x = np.array(x)
        f(x, state), _branch_counts(x, eager)
        assert_same_state(state, eager)
    assert builds[0] == 1
    assert "conditional" in f.lower(np.ones(2), state).as_text()


def adam_steps(params, grads_of, state, steps, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    for _ in range(steps):              # a runtime trip count: a While
        grads = grads_of(params)
        state["t"] += 1
        for k in params:
            state["m"][k] = b1 * state["m"][k] + (1 - b1) * grads[k]
            state["v"][k] = b2 * state["v"][k] + (1 - b2) * grads[k] ** 2
            mhat = state["m"][k] / (1 - b1 ** state["t"])
            vhat = state["v"][k] / (1 - b2 ** state["t"])
            params[k] -= lr * mhat / (np.sqrt(vhat) + eps)
    return params["w"].sum()


def _quadratic_grads(params):
    return {k: 2 * (v - 1.0) for k, v in params.items()}


def test_adam_state_carried_by_a_runtime_loop(builds):
    f = tpucc.compile(adam_steps)
    p, eager_p = _params(), _params()
    state, eager_state = _adam_state(p), _adam_state(p)
    for steps in (3, 0, 5):
        out = f(p, _quadratic_grads, state, np.int64(steps))
        np.testing.assert_allclose(out, adam_steps(eager_p, _quadratic_grads, eager_state,
                                                   np.int64(steps)), rtol=1e-5)
        assert_same_state(state, eager_state)
        assert_same_state(p, eager_p)
    assert state["t"] == 8 and builds[0] == 1
    assert "while" in f.lower(p, _quadratic_grads, state, np.int64(1)).as_text()


def test_adding_an_item_to_an_argument_is_still_refused():
    def f(x, state):
        state["new"] = x.sum()
        return x

    with pytest.raises(tpucc.SideEffectError, match="changing a dict passed as an argument"):
        tpucc.compile(f)(np.ones(2), {})


def test_tpucc_build_refuses_argument_item_writes(tmp_path):
    from tpucc import aot
    from tpucc.aot.errors import BuildError

    model = tmp_path / "model.py"
    model.write_text(
        "from tpucc.aot import entry\n"
        "@entry('f32[2]', {'t': 0})\n"
        "def step(x, state):\n"
        "    state['t'] += 1\n"
        "    return x * state['t']\n")
    with pytest.raises(BuildError, match=r"assigns the item \['t'\] of its argument `state`"):
        aot.build_file(str(model), str(tmp_path))


def test_flag_set_in_a_runtime_branch_becomes_runtime():
    class Monitor:
        def __init__(self):
            self.converged = False
            self.w = np.zeros(2)

        def step(self, x, tol):
            if np.abs(x).max() < tol:
                self.converged = True
            self.w = self.w + x
            return self.w

    m, eager = Monitor(), Monitor()
    f = tpucc.compile(Monitor.step)
    for scale in [1.0, 0.01, 2.0]:
        x = np.array([0.5, -0.25]) * scale
        np.testing.assert_array_equal(f(m, x, 0.1), Monitor.step(eager, x, 0.1))
        assert m.converged is eager.converged


def test_closure_counter_from_outside(builds):
    def make():
        calls = 0
        total = 0.0

        def f(x):
            nonlocal calls, total
            calls += 1
            total += float(x.sum())
            return x * calls

        def read():
            return calls, total
        return f, read

    f, read = make()
    eager, eager_read = make()
    compiled = tpucc.compile(f)
    for i in range(4):
        x = np.arange(3.0) + i
        np.testing.assert_array_equal(compiled(x), eager(x))
    assert read() == eager_read() and type(read()[0]) is int
    assert builds[0] == 1


STEP = 0
LOSS_SUM = 0.0


def _train_with_global_counters(x):
    global STEP, LOSS_SUM
    STEP += 1
    while x.max() > 1:
        x = x / 2
        LOSS_SUM += float(x.sum())
    return x * STEP


def test_global_counters(builds):
    global STEP, LOSS_SUM
    f = tpucc.compile(_train_with_global_counters)
    xs = [np.arange(4.0) * s for s in (1, 3, 10)]
    STEP, LOSS_SUM = 0, 0.0
    compiled = [f(x) for x in xs]
    got = (STEP, LOSS_SUM)
    STEP, LOSS_SUM = 0, 0.0
    eager = [_train_with_global_counters(x) for x in xs]
    for c, e in zip(compiled, eager):
        np.testing.assert_array_equal(c, e)
    assert got == (STEP, LOSS_SUM) and type(got[0]) is int and type(got[1]) is float
    assert builds[0] == 1


class _Counted:
    def __init__(self):
        self.evaluations = 0
        self.w = np.array([1.0, -2.0])

    def loss(self, w, x):
        self.evaluations += 1  # <- here
        return ((x @ w) ** 2).sum()

    def step(self, x):
        g = tpucc.grad(self.loss)(self.w, x)
        self.w -= 0.1 * g
        return self.w


def test_counter_inside_a_differentiated_function_is_refused_at_its_line():
    with pytest.raises(tpucc.SideEffectError,
                       match="inside a function differentiated by tpucc.grad") as e:
        tpucc.compile(_Counted.step)(_Counted(), np.ones((3, 2)))
    assert e.value.loc.line == _Counted.loss.__code__.co_firstlineno + 1
    assert "has_aux=True" in e.value.hint


class _MomentumSGD:
    """torch.optim style: per-parameter buffers and a step count in dicts
    the optimizer holds."""
    def __init__(self, params, lr=0.1, mu=0.9):
        self.lr, self.mu = lr, mu
        self.velocity = {k: np.zeros_like(v) for k, v in params.items()}
        self.state = {"step": 0, "lr_scale": 1.0}
        self.history = [0.0, 0.0]

    def step(self, params, grads):
        self.state["step"] += 1
        self.state["lr_scale"] *= 0.5
        for k in params:
            self.velocity[k] = self.mu * self.velocity[k] + grads[k]
            params[k] -= self.lr * self.state["lr_scale"] * self.velocity[k]
        self.history[0] = self.history[1]
        self.history[1] = float(params["w"].sum())
        return sum(v.sum() for v in self.velocity.values()) + self.velocity.get("b").sum()


def test_items_of_dicts_and_lists_an_object_holds(builds):
    rng = np.random.default_rng(3)
    p = {"w": rng.standard_normal((3, 2)), "b": rng.standard_normal(2)}
    eager_p = copy.deepcopy(p)
    opt, eager_opt = _MomentumSGD(p), _MomentumSGD(eager_p)
    f = tpucc.compile(_MomentumSGD.step)
    for _ in range(4):
        g = {k: rng.standard_normal(v.shape) for k, v in p.items()}
        np.testing.assert_allclose(f(opt, p, g), _MomentumSGD.step(eager_opt, eager_p, g))
    assert_same_state(opt, eager_opt)
    assert_same_state(p, eager_p)
    assert builds[0] == 1
    ir = f.lower(opt, p, g).ir()
    assert "item ['step'] of a dict" in ir


def test_runtime_python_bools_follow_python_arithmetic():
    """A runtime Python bool (here runtime_args) is an int in arithmetic,
    as in Python (True + True == 2, ~True == -2, -True == -1), and stays a
    bool under &, | and ^."""
    def f(a, b):
        return a + b, a * 3, ~a, -b, a & b, a | b, a ^ b, a - b

    g = tpucc.compile(f, runtime_args=("a", "b"))
    for a in (True, False):
        for b in (True, False):
            got, want = g(a, b), f(a, b)
            for x, y in zip(got, want):
                assert x == y and type(x) is type(y), (a, b, got, want)
