"""Trace records (tpucc.snapshot): a later process that compiles the same
function for the same arguments skips infer, lower and XLA when nothing the
trace could have read has changed, and retraces when anything has.

A "new process" is simulated by importing the model module again under a
fresh name (new module, new functions, new classes, new objects), which is
what another process sees; one test uses real processes."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import threading

import jax
import numpy as np
import pytest

import tpucc
from tpucc import cache, driver, snapshot

from conftest import assert_same

MODEL = """
import numpy as np
import tpucc

SCALE = 2.0


def act(y):
    return np.maximum(y, 0)


class Layer:
    def __init__(self, n, relu=True):
        self.w = (np.arange(n * n, dtype=np.float32).reshape(n, n) - 4) / 8
        self.relu = relu

    def __call__(self, x):
        y = x @ self.w
        return act(y) if self.relu else y


class Model:
    def __init__(self):
        self.layers = [Layer(4), Layer(4, relu=False)]
        self.steps = np.zeros((), np.int32)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x) * SCALE
        self.steps += 1
        return x, abs(x).sum()
"""

X = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
_count = [0]


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("TPUCC_CACHE_DIR", str(root))
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")
    monkeypatch.delenv("TPUCC_CACHE", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    cache.reset_stats()
    return root


def load(tmp_path, source=MODEL):
    """The model module as a new process would import it (a fresh module
    object under a new name, from a file of the same name)."""
    _count[0] += 1
    name = f"snapshot_model_{_count[0]}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    return importlib.import_module(name)


def process(tmp_path, source=MODEL):
    """(module, model, compiled forward) of a simulated process.  Every
    process imports the same file name, so module names agree as they would."""
    path = tmp_path / "snapshot_model.py"
    path.write_text(textwrap.dedent(source))
    sys.modules.pop("snapshot_model", None)
    importlib.invalidate_caches()
    module = importlib.import_module("snapshot_model")
    model = module.Model()
    return module, model, tpucc.compile(model.forward)


def eager(module, model, x):
    """The eager result (on a copy of the model's updated state)."""
    return model.forward(x)


def no_infer(monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("infer ran")
    monkeypatch.setattr(driver, "run_infer", refuse)


def test_second_process_skips_every_stage(tmp_path, monkeypatch):
    module, model, f = process(tmp_path)
    first = f(X)
    assert cache.stats()["trace_stores"] == 1
    assert os.listdir(tmp_path / "cache" / snapshot.FORMAT)

    module2, model2, f2 = process(tmp_path)
    with monkeypatch.context() as m:
        no_infer(m)
        second = f2(X)
    assert cache.stats()["trace_hits"] == 1
    (entry,) = f2._cache.values()
    assert entry.times.cache == "hit" and entry.times.replayed
    assert entry.traced.program is None and "infer skipped" in str(entry.times)
    assert_same(first, second)
    assert_same(eager(module, module.Model(), X), second)
    assert model2.steps == 1                     # the in-place update is written back
    f2(X)
    assert model2.steps == 2


def test_guards_still_hold_after_a_replay(tmp_path, monkeypatch):
    process(tmp_path)[2](X)
    module, model, f = process(tmp_path)
    f(X)
    assert cache.stats()["trace_hits"] == 1
    module.SCALE = 3.0                           # rebinding a global recompiles
    model.layers[1].relu = True                  # and so does a static attribute
    reference = module.Model()
    reference.layers[1].relu = True
    assert_same(reference.forward(X), f(X))


def test_captured_arrays_are_reread_after_a_replay(tmp_path):
    process(tmp_path)[2](X)
    module, model, f = process(tmp_path)
    f(X)
    model.layers[0].w[...] = 1.0                 # weights are runtime inputs
    reference = module.Model()
    reference.layers[0].w[...] = 1.0
    assert_same(reference.forward(X), f(X))
    model.layers[1].w = np.eye(4, dtype=np.float32)   # rebinding the array too
    reference.layers[1].w = np.eye(4, dtype=np.float32)
    assert_same(reference.forward(X), f(X))


CHANGES = {
    "global constant": lambda s: s.replace("SCALE = 2.0", "SCALE = 0.5"),
    "helper code": lambda s: s.replace("np.maximum(y, 0)", "np.minimum(y, 0)"),
    "method code": lambda s: s.replace("y = x @ self.w", "y = x @ self.w + 1"),
    "static attribute": lambda s: s.replace("Layer(4, relu=False)", "Layer(4, relu=True)"),
    "list length": lambda s: s.replace("Layer(4, relu=False)]", "Layer(4), Layer(4)]"),
    "array dtype": lambda s: s.replace("np.zeros((), np.int32)", "np.zeros((), np.int64)"),
    "builtin shadowed": lambda s: s + "\n\ndef abs(v):\n    return v * 10\n",
    "default argument": lambda s: s.replace("def act(y):", "def act(y, k=2):").replace(
        "np.maximum(y, 0)", "np.maximum(y, 0) * k"),
    "tied weights": lambda s: s.replace(
        "self.steps = np.zeros", "self.layers[1].w = self.layers[0].w\n        self.steps = np.zeros"),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_retraces(tmp_path, monkeypatch, change):
    process(tmp_path)[2](X)
    source = CHANGES[change](textwrap.dedent(MODEL))
    module, model, f = process(tmp_path, source)
    actual = f(X)
    assert_same(module.Model().forward(X), actual)
    assert cache.stats()["trace_hits"] == 0


def test_unchanged_world_with_other_line_numbers_hits(tmp_path):
    process(tmp_path)[2](X)
    module, model, f = process(tmp_path, "\n\n# a comment\n" + MODEL)
    f(X)
    assert cache.stats()["trace_hits"] == 1


def test_unreplayable_world_traces_as_before(tmp_path):
    source = MODEL + "\nLOCK = threading.Lock()\n"
    source = source.replace("import numpy as np", "import threading\nimport numpy as np")
    source = source.replace("self.steps = np.zeros", "self.lock = LOCK\n        self.steps = np.zeros")
    process(tmp_path, source)[2](X)
    assert cache.stats()["trace_unreplayable"] == 1
    module, model, f = process(tmp_path, source)
    assert_same(module.Model().forward(X), f(X))
    assert cache.stats()["trace_hits"] == 0


def test_damaged_record_is_a_miss(tmp_path):
    process(tmp_path)[2](X)
    folder = tmp_path / "cache" / snapshot.FORMAT
    for name in os.listdir(folder):
        (folder / name).write_bytes(b'{"material": ')
    module, model, f = process(tmp_path)
    assert_same(module.Model().forward(X), f(X))
    assert cache.stats()["trace_hits"] == 0


def test_record_is_json_naming_objects_by_walk_index(tmp_path):
    process(tmp_path)[2](X)
    folder = tmp_path / "cache" / snapshot.FORMAT
    (name,) = os.listdir(folder)
    record = json.loads((folder / name).read_text())["record"]
    assert ["snapshot_model", "SCALE"] in record["module_reads"]
    assert ["snapshot_model", "abs"] in record["module_reads"]     # read, absent: a builtin
    owners = {c["owner"][0] for c in record["trace"]["captured"]}
    assert owners == {"object"}
    assert record["trace"]["writebacks"] == [["captured", 2]]


def test_walk_digest_sees_identity_and_values():
    a = np.zeros(3, np.float32)

    def digest(*roots):
        w = snapshot.Walk()
        for r in roots:
            w.visit(r)
        return w.digest()

    assert digest([a, a]) != digest([a, a.copy()])          # aliasing counts
    assert digest([a, 1.0]) == digest([a.copy(), 1.0])      # array values do not
    assert digest({"k": 1}) != digest({"k": 2})
    assert digest(np.float32(1)) != digest(np.float64(1))
    with pytest.raises(snapshot.NotReplayable):
        digest(threading.Lock())

    class Scale(float):
        pass
    assert digest(Scale(2.0)) != digest(Scale(3.0))         # a subclass's value counts


def test_string_hashes_are_not_replayed():
    """hash() of a string, and the order of a set of strings, differ
    between processes (Python salts str hashes): no trace record."""
    names = {"alpha", "beta", "gamma"}
    for fn in (lambda x: x + hash("abc") % 97, lambda x: x * len([n for n in names][0])):
        traced = driver.run_infer(fn, (np.ones(2),), {}, tpucc.api.DEFAULT_OPTIONS)
        assert traced.process_local is not None
        with pytest.raises(snapshot.NotReplayable):
            snapshot.describe(traced, snapshot.Walk())


def test_grad_object_returned_after_replay(tmp_path):
    source = MODEL + textwrap.dedent("""

        def loss(model, x):
            y, _ = model.forward(x)
            return (y * y).mean()


        class Trainer:
            def __init__(self):
                self.model = Model()

            def grads(self, x):
                return tpucc.grad(loss)(self.model, x)
        """)
    source = source.replace("        self.steps += 1\n", "")
    (tmp_path / "snapshot_model.py").write_text(source)

    def run():
        sys.modules.pop("snapshot_model", None)
        importlib.invalidate_caches()
        module = importlib.import_module("snapshot_model")
        trainer = module.Trainer()
        return module, tpucc.compile(trainer.grads)(X)

    _, first = run()
    module, second = run()
    assert cache.stats()["trace_hits"] == 1
    assert type(second).__name__ == "Model" and type(second) is module.Model
    for a, b in zip(first.layers, second.layers):
        np.testing.assert_allclose(a.w, b.w, rtol=1e-6)


SCRIPT = """
import sys, numpy as np, tpucc
sys.path.insert(0, {folder!r})
import snapshot_model
model = snapshot_model.Model()
x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
out = tpucc.compile(model.forward)(x)
stats = tpucc.cache.stats()
print(repr(float(out[1])), stats["trace_hits"], stats["trace_stores"])
"""


def test_real_processes(tmp_path):
    (tmp_path / "snapshot_model.py").write_text(textwrap.dedent(MODEL))
    env = {**os.environ, "TPUCC_CACHE_DIR": str(tmp_path / "cache"),
           "TPUCC_CACHE_MIN_COMPILE_S": "0", "JAX_PLATFORMS": "cpu"}
    script = SCRIPT.format(folder=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=env, timeout=300) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr[-2000:]
    (v1, hits1, stores1), (v2, hits2, stores2) = (r.stdout.split() for r in runs)
    assert (hits1, stores1, hits2, stores2) == ("0", "1", "1", "0")
    assert v1 == v2


RUNTIME_LR = """
import numpy as np

W = np.ones(3, np.float32)


def step(x, lr):
    W[...] -= lr * x
    return W.sum()
"""


def test_runtime_args_count_by_type(tmp_path):
    (tmp_path / "snapshot_lr.py").write_text(textwrap.dedent(RUNTIME_LR))

    def run(lr):
        sys.modules.pop("snapshot_lr", None)
        importlib.invalidate_caches()
        module = importlib.import_module("snapshot_lr")
        out = tpucc.compile(module.step, runtime_args=("lr",))(np.ones(3, np.float32), lr)
        return module, out

    run(0.5)
    module, out = run(0.25)                    # another value: the same program
    assert cache.stats()["trace_hits"] == 1
    assert out == np.float32(2.25) and module.W[0] == np.float32(0.75)
    run(1)                                     # another type: another program
    assert cache.stats()["trace_hits"] == 1


def test_trace_records_can_be_turned_off(tmp_path, monkeypatch):
    """TPUCC_CACHE_TRACES=0: executables still come from the cache, infer runs."""
    process(tmp_path)[2](X)
    monkeypatch.setenv("TPUCC_CACHE_TRACES", "0")
    module, model, f = process(tmp_path)
    assert_same(module.Model().forward(X), f(X))
    (entry,) = f._cache.values()
    assert entry.times.cache == "hit" and not entry.times.replayed
    assert cache.stats()["trace_hits"] == 0


KINDS = '''
import numpy as np

class Model:
    def forward(self, x):
        if x.sum() > 0:
            r = np.zeros((), x.dtype)
        else:
            r = x.sum()
        return r
'''


def test_runtime_kind_after_a_replay(tmp_path, monkeypatch):
    """The output that decides a 0-d result's kind is named in the record."""
    process(tmp_path, KINDS)[2](X)
    module, model, f = process(tmp_path, KINDS)
    with monkeypatch.context() as m:
        no_infer(m)
        for x in (X + 1, X - 1):
            assert_same(model.forward(x), f(x))
    assert cache.stats()["trace_hits"] == 1


CONV = '''
import numpy as np
import tpucc.nn


class Model:
    def __init__(self):
        self.w = (np.arange(4 * 2 * 9, dtype=np.float32).reshape(4, 2, 3, 3) - 30) / 40

    def forward(self, x):
        return tpucc.nn.conv2d(x, self.w, padding=1)
'''


def test_stored_layouts_after_a_replay(tmp_path, monkeypatch):
    """A conv weight kept on the device HWIO (device_cache=True): the record
    says so, or a replay would pass it OIHW."""
    x = np.linspace(-1, 1, 2 * 2 * 5 * 5, dtype=np.float32).reshape(2, 2, 5, 5)
    model = process(tmp_path, CONV)[1]
    tpucc.compile(model.forward, device_cache=True)(x)
    module, model, _ = process(tmp_path, CONV)
    f = tpucc.compile(model.forward, device_cache=True)
    with monkeypatch.context() as m:
        no_infer(m)
        assert_same(model.forward(x), f(x))
    assert cache.stats()["trace_hits"] == 1
    (entry,) = f._cache.values()
    assert entry.traced.input_layouts == {1: (2, 3, 1, 0)}


LOOKUP = '''
import numpy as np


class Model:
    def __init__(self):
        self.table = np.arange(6, dtype=np.float32)

    def forward(self, i):
        return self.table[i] * 2
'''


def test_runtime_checks_after_a_replay(tmp_path, monkeypatch):
    """The record keeps the runtime index checks: a replayed executable
    still raises for an index past the end."""
    process(tmp_path, LOOKUP)[2](np.int64(1))
    module, model, f = process(tmp_path, LOOKUP)
    with monkeypatch.context() as m:
        no_infer(m)
        assert f(np.int64(5)) == 10.0
        with pytest.raises(tpucc.RuntimeIndexError, match="size 6"):
            f(np.int64(6))
    assert cache.stats()["trace_hits"] == 1


def test_jax_and_numpy_weights_get_their_own_traces(tmp_path):
    # The trace of a model whose weights are jax arrays (immutable: `+=`
    # rebinds) was replayed for the same class holding NumPy arrays (or
    # read-only ones), and the call failed with E000 ("changed its shape or
    # dtype while the function was being compiled"); an array's kind and
    # strides are now part of the fingerprint.
    module = load(tmp_path, MODEL.replace("self.steps += 1", "self.layers[0].w += 1"))
    on_device = module.Model()
    on_device.layers[0].w = jax.numpy.asarray(on_device.layers[0].w)
    read_only = module.Model()
    read_only.layers[1].w.flags.writeable = False
    for model in (on_device, module.Model(), read_only):
        reference = module.Model()
        reference.layers[1].w.flags.writeable = model.layers[1].w.flags.writeable \
            if isinstance(model.layers[1].w, np.ndarray) else True
        expected = reference.forward(X)
        assert_same(expected, tpucc.compile(model.forward)(X))
        np.testing.assert_array_equal(np.asarray(model.layers[0].w), reference.layers[0].w)
    assert cache.stats()["trace_hits"] == 0


CLOSURE_MODEL = """
import numpy as np


def make(scale):
    def set_scale(v):
        nonlocal scale
        scale = v
    return (lambda x: x * scale), set_scale


apply, set_scale = make(2.0)
"""


def test_closure_guard_after_a_replay(tmp_path, monkeypatch):
    """A closure variable's number is guarded (infer.calls.CellGuardView):
    the record names its cell, and the replayed entry still recompiles when
    a setter rebinds it."""
    def closure_process():
        path = tmp_path / "closure_model.py"
        path.write_text(CLOSURE_MODEL)
        sys.modules.pop("closure_model", None)
        importlib.invalidate_caches()
        return importlib.import_module("closure_model")

    tpucc.compile(closure_process().apply)(X)
    module = closure_process()
    f = tpucc.compile(module.apply)
    with monkeypatch.context() as m:
        no_infer(m)
        assert_same(f(X), X * 2.0)
    assert cache.stats()["trace_hits"] == 1
    module.set_scale(3.0)
    assert_same(f(X), X * 3.0)


def test_list_contents_guard_after_a_replay(tmp_path, monkeypatch):
    """The layers list is read as a whole (iterated): the record keeps that
    guard (infer/contents.py), so a layer appended in the replaying process
    recompiles instead of running the stale program."""
    process(tmp_path)[2](X)
    module, model, f = process(tmp_path)
    with monkeypatch.context() as m:
        no_infer(m)
        f(X)
    assert cache.stats()["trace_hits"] == 1
    model.layers.append(module.Layer(4))
    reference = module.Model()
    reference.layers.append(module.Layer(4))
    reference.forward(X)
    assert_same(reference.forward(X), f(X))
