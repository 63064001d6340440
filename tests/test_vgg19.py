"""models/vgg19.py: the compiled forward pass equals eager NumPy, is one
XLA module, and the weights round-trip through save/load."""
import collections
import os
import re
import sys

import numpy as np
import pytest

import tpucc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "models"))
from vgg19 import VGG19, forward_flops  # noqa: E402


@pytest.fixture(scope="module")
def model():
    m = VGG19(image_size=32, num_classes=10, hidden=64, seed=0)
    rng = np.random.default_rng(7)
    for layer in m.layers:           # non-zero biases, so that they are checked too
        if hasattr(layer, "bias"):
            layer.bias = (rng.standard_normal(layer.bias.shape) * 0.1).astype(np.float32)
    return m


@pytest.fixture(scope="module")
def x():
    return np.random.default_rng(1).standard_normal((1, 3, 32, 32), dtype=np.float32)


@pytest.fixture(scope="module")
def compiled(model):
    return tpucc.compile(model.forward)


def test_forward_matches_numpy(model, x, compiled):
    expected = model.forward(x)
    actual = compiled(x)
    assert actual.shape == expected.shape == (1, 10)
    assert actual.dtype == expected.dtype == np.float32
    np.testing.assert_allclose(actual, expected, rtol=1e-4,
                               atol=1e-5 * float(np.max(np.abs(expected))))


def test_one_module(model, x, compiled):
    text = compiled.lower(x).as_text()
    assert text.count("ENTRY") == 1
    assert "while" not in text and "conditional" not in text
    assert text.count("convolution(") == 16
    # the weights are module inputs, not constants baked in: 16 convs + 3 linears, w and b
    entry = text[text.index("ENTRY"):]
    assert entry.count(" parameter(") == 1 + 2 * 19


def test_biases_are_reshaped_into_the_conv_layout(model, x, compiled):
    """Each bias, (C,) reshaped to (1, C, 1, 1), is reshaped straight into
    its conv's channels-last layout rather than reshaped and transposed:
    the one transpose left is the flatten's (there were 17), so jax has
    fewer equations to lower."""
    ops = re.findall(r"stablehlo\.([a-z_]+)", compiled.lower(x).as_text(dialect="stablehlo"))
    assert ops.count("convolution") == 16
    assert ops.count("transpose") == 1


def test_compiling_again_runs_no_import_statement(model, x, compiled, monkeypatch):
    """An import statement inside a function costs ~2.6 us at every call
    (resolving the package, then sys.modules); the forward's trace made
    1043 of them, a fifth of its infer stage.  Once tpucc is loaded, its
    stages import nothing.  (An `import` statement calls builtins.__import__
    whenever that has been replaced.)"""
    import builtins
    def compile_both():
        tpucc.compile(model.forward, cache=False).lower(x)
        tpucc.compile(model.train_step, cache=False).lower(x, np.array([3]), 0.1)
    compile_both()                              # whatever loads lazily, loaded
    imports = []
    real_import = builtins.__import__

    def counting_import(name, globals=None, locals=None, fromlist=(), level=0):
        if (globals or {}).get("__name__", "").startswith("tpucc"):
            imports.append(f"{globals['__name__']}: {'.' * level}{name} {fromlist}")
        return real_import(name, globals, locals, fromlist, level)
    monkeypatch.setattr(builtins, "__import__", counting_import)
    compile_both()
    monkeypatch.undo()
    assert len(imports) <= 20, collections.Counter(imports)   # 11: a few per compile


def test_numpy_constants_are_cast_by_numpy_where_both_round_alike():
    """Lowering casts constants with NumPy (no jax bind) where NumPy and
    XLA agree; a float cast to an integer (NaN, overflow) stays XLA's."""
    from tpucc.ops.registry import cast
    zero = cast(np.array(0), np.dtype(np.float32))
    assert type(zero) is np.ndarray and zero.dtype == np.float32
    assert type(cast(np.array(2.5), np.dtype(np.complex64))) is np.ndarray
    assert type(cast(np.array(np.nan), np.dtype(np.int32))) is not np.ndarray


def test_weights_are_reread(model, x, compiled):
    """Weights are module inputs, re-read at every call: changing one changes the result."""
    before = compiled(x)
    last = model.layers[-1]
    saved = last.bias
    try:
        last.bias = saved + np.float32(1)
        np.testing.assert_allclose(compiled(x), before + 1, rtol=1e-5, atol=1e-5)
    finally:
        last.bias = saved


def test_loss_matches_numpy(model, x):
    labels = np.array([3])
    expected = model.loss(x, labels)
    actual = tpucc.compile(model.loss)(x, labels)
    np.testing.assert_allclose(actual, expected, rtol=1e-4)


def test_save_load_roundtrip(model, tmp_path):
    path = tmp_path / "vgg19.npz"
    model.save(path)
    other = VGG19(image_size=32, num_classes=10, hidden=64, seed=1)
    assert not np.array_equal(other.layers[0].weight, model.layers[0].weight)
    other.load(path)
    for (k, a), (k2, b) in zip(model.parameters().items(), other.parameters().items()):
        assert k == k2 and a.dtype == b.dtype == np.float32
        np.testing.assert_array_equal(a, b)
    wrong = VGG19(image_size=64, num_classes=10, hidden=64)
    with pytest.raises(ValueError, match="shape"):
        wrong.load(path)


def test_copy_is_independent_and_aligned(model):
    clone = model.copy()
    for (k, a), b in zip(model.parameters().items(), clone.parameters().values()):
        np.testing.assert_array_equal(a, b)
        assert b.ctypes.data % 64 == 0 and not np.shares_memory(a, b), k
    clone.layers[0].weight[...] = 0
    assert np.any(model.layers[0].weight != 0)


def test_seeded_init_and_flops():
    a, b = VGG19(image_size=32, num_classes=10, hidden=16, seed=3), \
        VGG19(image_size=32, num_classes=10, hidden=16, seed=3)
    for p, q in zip(a.parameters().values(), b.parameters().values()):
        np.testing.assert_array_equal(p, q)
    assert len([k for k in a.parameters() if k.endswith("weight")]) == 19
    assert forward_flops(224) == pytest.approx(39.26e9, rel=1e-3)
    assert a.flops(batch=2) == 2 * forward_flops(32, 10, 16)


def small_vgg(seed=0):
    return VGG19(image_size=32, num_classes=10, hidden=32, seed=seed)


def test_training_step_is_one_executable_and_matches_numpy_backprop():
    """One compiled step (forward, backward, SGD) against the same step with
    the gradients of hand-written NumPy backpropagation.  The inputs are
    random normals, so max-pool windows have no near-ties."""
    compiled_model, ref = small_vgg(), small_vgg()
    x = np.random.default_rng(2).standard_normal((2, 3, 32, 32), dtype=np.float32)
    labels = np.array([3, 8])
    step = tpucc.compile(compiled_model.train_step, runtime_args=("lr",))
    loss = step(x, labels, 0.01)
    ref_loss, grads = ref.numpy_loss_and_grads(x, labels)
    assert loss.dtype == np.float32 and loss == pytest.approx(ref_loss, rel=1e-5)
    params = compiled_model.parameters()
    for key, before in ref.parameters().items():
        expected = before - np.float32(0.01) * grads[key]
        np.testing.assert_allclose(params[key], expected, rtol=1e-4, atol=1e-6,
                                   err_msg=key)
    assert step(x, labels, 0.002) != loss       # the weights moved; lr is a runtime value
    assert len(step._cache) == 1
    (entry,) = step._cache.values()             # the module that ran (lower() would trace again)
    text = entry.lowered.as_text(dialect="hlo")
    assert text.count("ENTRY") == 1 and "convolution" in text
