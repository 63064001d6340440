"""tpucc's own API, found by sweep 42E: one function declared several
@entry builds each; @entry on a method in a class body says so whatever its
specs; build_file takes one name or target as a str; an artifact file that
grew is not called truncated; a generator differentiated is named so; a
device_cache=True copy of weights a compiled training step updates in place
is uploaded again."""
from __future__ import annotations

import os
import textwrap

import numpy as np
import pytest

import tpucc
from tpucc import aot
from tpucc.aot.errors import ArtifactError, BuildError
from tpucc.errors import GradError

TWO_BATCH_SIZES = textwrap.dedent("""
    import numpy as np
    from tpucc.aot import entry

    def predict(x):
        return np.tanh(x).sum(axis=1)

    predict_b8 = entry("f32[8,4]", name="predict_b8")(predict)
    predict_b16 = entry("f32[16,4]", name="predict_b16")(predict)

    class Model:
        def __init__(self):
            self.w = np.full(4, 0.5, np.float32)

        def forward(self, x):
            return x @ self.w

    model = Model()
    fwd_b2 = entry("f32[2,4]", name="fwd_b2")(model.forward)
    fwd_b3 = entry("f32[3,4]", name="fwd_b3")(model.forward)
""")


def test_one_function_declared_two_entries_builds_both(tmp_path):
    model = tmp_path / "two42.py"
    model.write_text(TWO_BATCH_SIZES)
    built = aot.build_file(str(model), str(tmp_path), names="predict_b8")   # (one name: a str)
    assert [os.path.basename(b.path) for b in built] == ["predict_b8.tpucc"]
    built = aot.build_file(str(model), str(tmp_path), targets="cpu")
    assert sorted(os.path.basename(b.path) for b in built) == [
        "fwd_b2.tpucc", "fwd_b3.tpucc", "predict_b16.tpucc", "predict_b8.tpucc"]
    x = np.linspace(-1, 1, 64, dtype=np.float32).reshape(16, 4)
    for name, rows in (("predict_b8", 8), ("predict_b16", 16)):
        got = aot.load(str(tmp_path / f"{name}.tpucc"))(x[:rows])
        np.testing.assert_allclose(got, np.tanh(x[:rows]).sum(axis=1), rtol=1e-6)
    got = aot.load(str(tmp_path / "fwd_b3.tpucc"))(x[:3])
    np.testing.assert_allclose(got, x[:3] @ np.full(4, 0.5, np.float32), rtol=1e-6)


METHOD_IN_CLASS_BODY = textwrap.dedent("""
    import numpy as np
    from tpucc.aot import entry

    class Model:
        def __init__(self):
            self.w = np.ones(2, np.float32)

        @entry("f32[2]")
        def forward(self, x):
            return x * self.w
""")


def test_entry_on_a_method_with_the_specs_after_self_says_how_to_declare_it(tmp_path):
    model = tmp_path / "method42.py"
    model.write_text(METHOD_IN_CLASS_BODY)
    with pytest.raises(BuildError, match="@entry on the method Model.forward") as info:
        aot.build_file(str(model), str(tmp_path))
    assert "forward = entry(<the specs after self>" in info.value.hint


def test_a_file_of_an_artifact_that_grew_has_the_wrong_size(tmp_path):
    model = tmp_path / "grew42.py"
    model.write_text(TWO_BATCH_SIZES)
    aot.build_file(str(model), str(tmp_path), names=["predict_b8"])
    binary = tmp_path / "predict_b8.tpucc" / "executable.cpu.bin"
    size = binary.stat().st_size
    with open(binary, "ab") as f:
        f.write(b"\0" * 8)
    with pytest.raises(ArtifactError, match=f"has the wrong size: {size + 8} bytes, the "
                                            f"manifest says {size}"):
        tpucc.load(str(tmp_path / "predict_b8.tpucc"))
    with open(binary, "r+b") as f:
        f.truncate(size - 4)
    with pytest.raises(ArtifactError, match="is truncated"):
        tpucc.load(str(tmp_path / "predict_b8.tpucc"))


def losses(w):
    yield np.sum(w ** 2)


def test_a_differentiated_generator_is_named_a_generator():
    with pytest.raises(GradError, match="it returned a generator object"):
        tpucc.grad(losses)(np.ones(2))


class Linear:
    def __init__(self):
        self.w = np.ones(3)

    def predict(self, x):
        return np.sum(self.w * x)

    def loss(self, x):
        return np.sum((self.w * x) ** 2)

    def step(self, x):
        g = tpucc.grad(Linear.loss)(self, x)
        self.w -= 0.1 * g.w


def test_device_cache_sees_a_compiled_step_update_the_weights():
    m, x = Linear(), np.array([1.0, 2.0, 3.0])
    predict = tpucc.compile(m.predict, device_cache=True, cache=False)
    step = tpucc.compile(m.step, cache=False)
    assert predict(x) == m.predict(x)
    for _ in range(3):
        step(x)
        assert predict(x) == pytest.approx(m.predict(x), rel=1e-12)
    m.w = m.w.copy()            # (another array: identity tells)
    step(x)
    assert predict(x) == pytest.approx(m.predict(x), rel=1e-12)
