"""Python numbers read from outside the compiled code (an attribute, a
global, a closure variable, an item of an outside dict or list) that the
user's code changes between calls: a learning-rate schedule setting
`opt.lr` before each step.  The first change compiles again with the number
read as a runtime input (scalar_state.changed_places); later changes
compile nothing.  A number the program needs while compiling (a shape)
stays static, with one RecompileWarning.  A number argument is read at
run time from its third value on.  A signature keeps up to 8 programs
that differ in what they read (a flag toggled between calls).  Each test
compares every call with eager NumPy and counts the builds."""
import warnings

import numpy as np
import pytest

import tpucc
from tpucc.infer.scalar_state import RecompileWarning

W = np.linspace(-1.0, 1.0, 6, dtype=np.float32)
SCALE = 0.5
CONFIG = {"scale": 0.5, "steps": 3}
FACTORS = [0.5, 2.0]


class SGD:
    def __init__(self, lr=0.1):
        self.lr = lr


def run_calls(compiled, eager, setters, *args):
    """Calls `compiled` and `eager` after each setter; same results."""
    for set_value in setters:
        set_value()
        want, got = eager(*args), compiled(*args)
        assert type(got) is type(want)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_attribute_schedule_compiles_twice(builds):
    opt = SGD()

    def step(w, g):
        return w - opt.lr * g

    f = tpucc.compile(step)
    setters = [lambda i=i: setattr(opt, "lr", 0.1 / (i + 1)) for i in range(6)]
    run_calls(f, step, setters, W, W * 2)
    assert builds[0] == 2


def test_global_changed_between_calls(builds):
    def scaled(x):
        return x * SCALE

    f = tpucc.compile(scaled)

    def set_scale(v):
        global SCALE
        SCALE = v
    try:
        run_calls(f, scaled, [lambda v=v: set_scale(v) for v in (0.5, 1.5, 2.5, -1.0)], W)
    finally:
        set_scale(0.5)
    assert builds[0] == 2


def test_closure_variable_changed_between_calls(builds):
    temperature = 1.0

    def softmax(x):
        z = x / temperature
        e = np.exp(z - z.max())
        return e / e.sum()

    def set_temperature(v):
        nonlocal temperature
        temperature = v

    f = tpucc.compile(softmax)
    run_calls(f, softmax, [lambda v=v: set_temperature(v) for v in (1.0, 0.5, 2.0, 4.0)], W)
    assert builds[0] == 2


def test_outside_dict_and_list_items(builds):
    def scaled(x):
        return x * CONFIG["scale"] + FACTORS[1]

    f = tpucc.compile(scaled)

    def set_both(s, k):
        CONFIG["scale"], FACTORS[1] = s, k
    try:
        run_calls(f, scaled, [lambda s=s, k=k: set_both(s, k)
                              for s, k in ((0.5, 2.0), (1.0, 3.0), (2.0, 4.0), (3.0, 5.0))], W)
    finally:
        set_both(0.5, 2.0)
    assert builds[0] == 2


def test_numpy_scalar_keeps_its_dtype(builds):
    """A new np.float32 object at every call (even of the same value) used
    to recompile each time; read at run time it stays a strong float32."""
    opt = SGD(np.float32(0.1))

    def step(w):
        return w * opt.lr

    f = tpucc.compile(step)
    setters = [lambda v=v: setattr(opt, "lr", np.float32(v)) for v in (0.1, 0.1, 0.2, 0.3)]
    run_calls(f, step, setters, W.astype(np.float16))
    assert f(W.astype(np.float16)).dtype == np.float32
    assert builds[0] == 2


def test_loop_bound_becomes_a_runtime_loop(builds):
    class Smoother:
        def __init__(self):
            self.steps = 2

        def __call__(self, x):
            for _ in range(self.steps):
                x = 0.5 * (x + np.roll(x, 1))
            return x

    model = Smoother()
    f = tpucc.compile(model.__call__)
    run_calls(f, model.__call__, [lambda n=n: setattr(model, "steps", n) for n in (2, 3, 0, 5)], W)
    assert builds[0] == 2
    assert "while" in f.lower(W).as_text()


def test_number_needed_while_compiling_stays_static(builds):
    """A shape cannot be a runtime value: each new value compiles again,
    as before, with one warning that names the line needing it."""
    class Padder:
        def __init__(self):
            self.width = 2

        def __call__(self, x):
            return np.concatenate([x, np.zeros(self.width, x.dtype)])

    model = Padder()
    f = tpucc.compile(model.__call__)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_calls(f, model.__call__, [lambda n=n: setattr(model, "width", n)
                                      for n in (2, 3, 4, 5)], W)
    messages = [w for w in caught if issubclass(w.category, RecompileWarning)]
    assert len(messages) == 1, [str(w.message) for w in caught]
    assert "`.width` of Padder objects changed between calls" in str(messages[0].message)
    assert messages[0].filename == __file__
    assert builds[0] == 5      # the failed promotion's trace, then one per value


def test_flags_are_not_promoted(builds):
    """A bool keeps its own program per value (train / eval): no runtime
    branch, and toggling it runs the program kept for each value."""
    class Dropoutish:
        def __init__(self):
            self.training = True

        def __call__(self, x):
            return x * 0.5 if self.training else x

    model = Dropoutish()
    f = tpucc.compile(model.__call__)
    run_calls(f, model.__call__, [lambda t=t: setattr(model, "training", t)
                                  for t in (True, False, True, False, True)], W)
    assert builds[0] == 2
    assert "conditional" not in f.lower(W).as_text()


def test_another_type_compiles_again(builds):
    """An int replaced by a float is another program (its dtype rules
    differ): compiled again, not promoted."""
    opt = SGD(2)

    def step(w):
        return w * opt.lr

    f = tpucc.compile(step)
    run_calls(f, step, [lambda v=v: setattr(opt, "lr", v) for v in (2, 0.5)], W.astype(np.int32))
    assert builds[0] == 2
    assert f._places.promoted == frozenset()


def test_training_loop_with_schedule_matches_eager(builds):
    """The whole pattern: weights updated in place, lr from a schedule."""
    class Model:
        def __init__(self):
            self.w = np.ones((3, 2), np.float32)
            self.lr = 0.1

        def step(self, x, y):
            err = x @ self.w - y
            self.w -= self.lr * (x.T @ err)
            return float((err ** 2).mean())

    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 10
    y = np.ones((4, 2), np.float32)
    eager, compiled = Model(), Model()
    f = tpucc.compile(compiled.step)
    for i in range(6):
        eager.lr = compiled.lr = 0.1 * 0.5 ** i
        assert f(x, y) == pytest.approx(eager.step(x, y), rel=1e-5)
    np.testing.assert_allclose(compiled.w, eager.w, rtol=1e-5)
    assert builds[0] == 2


def test_number_argument_read_at_run_time_after_three_values(builds):
    """jax traces a Python-number argument; tpucc folds it (so `if n > 2:`
    and `range(n)` need nothing), and from its third value on reads it at
    run time: a schedule passed as an argument compiles three programs."""
    def step(w, g, lr):
        return w - lr * g

    f = tpucc.compile(step)
    for i in range(8):
        want, got = step(W, W, 0.1 / (i + 1)), f(W, W, 0.1 / (i + 1))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert builds[0] == 3
    for lr in (0.01, 0.02, 0.03):   # by keyword: another signature, lr at run time
        np.testing.assert_allclose(f(W, W, lr=lr), step(W, W, lr), rtol=1e-6)
    assert builds[0] == 4


def test_two_values_of_an_argument_keep_a_program_each(builds):
    def total(x, axis):
        return x.reshape(2, 3).sum(axis=axis)

    f = tpucc.compile(total)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for axis in (0, 1, 0, 1):
            np.testing.assert_allclose(f(W, axis), total(W, axis), rtol=1e-6)
    assert builds[0] == 2


def test_argument_needed_while_compiling_stays_static(builds):
    def pad(x, n):
        return np.concatenate([x, np.zeros(n, x.dtype)])

    f = tpucc.compile(pad)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in (1, 2, 3, 4, 1):
            np.testing.assert_array_equal(f(W, n), pad(W, n))
    messages = [str(w.message) for w in caught if issubclass(w.category, RecompileWarning)]
    assert len(messages) == 1 and "the argument `n` changed between calls" in messages[0]
    assert builds[0] == 5       # n = 1, 2, 3 (and the failed runtime trace), 4; 1 is cached


def test_varying_int_argument_as_loop_bound(builds):
    def smooth(x, steps):
        for _ in range(steps):
            x = 0.5 * (x + np.roll(x, 1))
        return x

    f = tpucc.compile(smooth)
    for steps in (1, 2, 3, 0, 7):
        np.testing.assert_allclose(f(W, steps), smooth(W, steps), rtol=1e-6)
    assert builds[0] == 3
    assert "while" in f.lower(W, 4).as_text()


def test_programs_kept_per_signature_are_bounded(builds):
    """A string setting cycling through more values than a signature keeps
    programs for compiles again, and stays right."""
    from tpucc.api import PROGRAMS_PER_SIGNATURE
    modes = [f"mode{i}" for i in range(PROGRAMS_PER_SIGNATURE + 2)]

    class Config:
        mode = modes[0]

    def scaled(x):
        return x * (modes.index(Config.mode) + 1)

    f = tpucc.compile(scaled)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecompileWarning)   # (its own test, below)
        for mode in modes + modes[-PROGRAMS_PER_SIGNATURE:]:
            Config.mode = mode
            np.testing.assert_allclose(f(W), scaled(W), rtol=1e-6)
    assert builds[0] == len(modes)         # the last 8 were kept
    Config.mode = modes[0]                 # dropped: compiles again
    np.testing.assert_allclose(f(W), scaled(W), rtol=1e-6)
    assert builds[0] == len(modes) + 1


def test_module_attribute_changed_between_calls(builds):
    """`config.LR` read through a module, as a global is."""
    import types
    config = types.ModuleType("user_config")
    config.LR = 0.1

    def step(w):
        return w * config.LR

    f = tpucc.compile(step)
    run_calls(f, step, [lambda v=v: setattr(config, "LR", v) for v in (0.1, 0.2, 0.3, 0.4)], W)
    assert builds[0] == 2


def test_equal_new_values_run_the_same_program(builds):
    """Guards compare by identity; an equal string, tuple or number that is
    another object (`cfg.mode = load_mode()`) runs the program compiled for
    that value instead of compiling again."""
    class Cfg:
        mode = "sum"
        dims = (0,)

    def reduce(x):
        x = x.reshape(2, 3)
        return x.sum(axis=Cfg.dims) if Cfg.mode == "sum" else x.max(axis=Cfg.dims)

    f = tpucc.compile(reduce)
    for mode in ("sum", "max", "max"):
        for _ in range(3):
            Cfg.mode = "".join(list(mode))          # an equal, new string
            Cfg.dims = tuple([int("0")])            # an equal, new tuple
            np.testing.assert_allclose(f(W), reduce(W), rtol=1e-6)
    assert builds[0] == 2


def test_recompiles_log_says_why(monkeypatch, capsys):
    monkeypatch.setenv("TPUCC_LOG", "recompiles")

    class Cfg:
        scale = "double"

    def scaled(x):
        return x * 2 if Cfg.scale == "double" else x * 3

    f = tpucc.compile(scaled)
    f(W)
    Cfg.scale = "triple"
    f(W)
    f(W.astype(np.float64))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3, err
    assert err[0].startswith("tpucc: compiling test_recompiles_log_says_why.<locals>.scaled (")
    assert err[0].endswith("): new argument signature (float32[6])")
    assert err[1].endswith(": `.scale` of Cfg: 'double' -> 'triple'")
    assert err[2].endswith(": new argument signature (float64[6])")


def test_a_signature_that_keeps_changing_warns_once():
    from tpucc.api import PROGRAMS_PER_SIGNATURE

    class Cfg:
        tag = "t0"

    def tagged(x):
        return x + len(Cfg.tag)

    f = tpucc.compile(tagged)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(PROGRAMS_PER_SIGNATURE + 3):
            Cfg.tag = f"t{i}"
            f(W)
    messages = [str(w.message) for w in caught if issubclass(w.category, RecompileWarning)]
    assert len(messages) == 1, messages
    assert f"has compiled {PROGRAMS_PER_SIGNATURE} programs for one argument signature" \
        in messages[0] and "`.tag` of Cfg: 't7' -> 't8'" in messages[0]


def test_class_attribute_changed_between_calls(builds):
    """`Config.lr` read through the class or through an instance that has
    none of its own; an instance that later sets its own is read then."""
    class Config:
        lr = 0.1

    class Derived(Config):
        pass

    cfg = Derived()

    def step(w):
        return w * Config.lr + w * cfg.lr

    f = tpucc.compile(step)
    run_calls(f, step, [lambda v=v: setattr(Config, "lr", v) for v in (0.1, 0.2, 0.3, 0.4)], W)
    assert builds[0] == 2
    cfg.lr = 5.0                    # the instance's own now hides the class's
    np.testing.assert_allclose(f(W), step(W), rtol=1e-6)


def test_new_unhashable_objects_as_arguments_warn_once():
    """A plain object passed as an argument is keyed by identity: a new
    one at each call compiles each time (results stay right), and after
    IDENTITY_WARN_AFTER programs one RecompileWarning says how to avoid it."""
    from tpucc.api import IDENTITY_WARN_AFTER

    class Options:
        def __init__(self, scale):
            self.scale = scale

    f = tpucc.compile(lambda x, opts: x * opts.scale)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(IDENTITY_WARN_AFTER + 2):
            np.testing.assert_allclose(f(W, Options(2.0)), W * 2.0)
    found = [w for w in caught if issubclass(w.category, tpucc.RecompileWarning)]
    assert len(found) == 1
    assert "new Options objects passed as `opts`" in str(found[0].message)
    assert "dataclasses.dataclass(frozen=True)" in str(found[0].message)
