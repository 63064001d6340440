"""The small models of models/: an MLP trained until a runtime loss threshold
(a While around forward + backward + update), an RNN over a runtime-length
sequence and a GPT trained with Adam; compiled results against the same
Python run eagerly."""
import os
import sys

import numpy as np
import pytest

import tpucc
from tests.conftest import count_hlo

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "models"))
import gpt                      # noqa: E402
import mlp                      # noqa: E402
from rnn import RNN, train_step as rnn_train_step   # noqa: E402


# --- MLP ---------------------------------------------------------------------------------

def test_mlp_gradient_equals_numpy_backprop():
    model = mlp.MLP([2, 8, 8, 1], seed=1)
    x, y = mlp.two_moons(32)
    loss, g = tpucc.value_and_grad(mlp.MLP.loss)(model, x, y)
    ref_loss, ref = mlp.numpy_loss_and_grads(model, x, y)
    assert loss == pytest.approx(ref_loss, rel=1e-5)
    for layer, (dw, db) in zip(g.layers, ref):
        np.testing.assert_allclose(layer.weight, dw, rtol=1e-4, atol=1e-6)
        np.testing.assert_allclose(layer.bias, db, rtol=1e-4, atol=1e-6)


def test_train_until_threshold_is_one_while_and_matches_eager():
    x, y = mlp.two_moons(64)
    compiled, eager = mlp.MLP([2, 8, 1], seed=0), mlp.MLP([2, 8, 1], seed=0)
    train = tpucc.compile(mlp.train_until)
    loss, steps = train(compiled, x, y, 0.3, 0.2, 500)
    ref_loss, ref_steps = mlp.train_until(eager, x, y, 0.3, 0.2, 500)
    assert 0 < steps < 500 and steps == ref_steps
    assert loss == pytest.approx(ref_loss, rel=1e-4) and loss <= 0.3
    for a, b in zip(compiled.layers, eager.layers):     # weights updated in place
        np.testing.assert_allclose(a.weight, b.weight, rtol=1e-4, atol=1e-5)
    text = train.lower(compiled, x, y, 0.3, 0.2, 500).as_text()
    assert text.count("ENTRY") == 1 and count_hlo(text, "while") >= 1
    assert len(train._cache) == 1


# --- RNN ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rnn():
    return RNN(3, 6, 3, seed=0)


XS = np.random.default_rng(0).standard_normal((40, 2, 3)).astype(np.float32)


def test_rnn_forward_over_runtime_lengths_uses_one_executable(rnn):
    run = tpucc.compile(rnn.forward, runtime_args=("length",))
    for length in (0, 1, 17, 40):
        out = run(XS, length)
        expected = rnn.forward(XS, length)
        assert out.dtype == expected.dtype
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    assert len(run._cache) == 1
    assert count_hlo(run.lower(XS, 5).as_text(), "while") == 1


def test_rnn_masked_forward_equals_the_runtime_loop(rnn):
    for length in (0, 9, 40):
        np.testing.assert_allclose(rnn.forward_masked(XS, length), rnn.forward(XS, length),
                                   rtol=1e-6)


def test_rnn_generate_stops_on_a_runtime_condition(rnn):
    gen = tpucc.compile(rnn.generate)
    x0 = np.ones((2, 3), np.float32)
    for stop in (0.05, 0.5, 2.0):
        out, steps = gen(x0, 30, stop)
        ref_out, ref_steps = rnn.generate(x0, 30, stop)
        assert steps == ref_steps
        np.testing.assert_allclose(out, ref_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(x0, 1.0)             # the input is not touched


def test_rnn_training_step_backpropagates_through_time():
    compiled, eager = RNN(3, 6, 3, seed=2), RNN(3, 6, 3, seed=2)
    step = tpucc.compile(rnn_train_step, runtime_args=("length", "lr"))
    targets = np.full((2, 3), 0.5, np.float32)
    for length in (7, 12, 40):       # runtime lengths, one executable
        loss = step(compiled, XS, length, targets, 0.1)
        ref = rnn_train_step(eager, XS, length, targets, 0.1)
        assert loss == pytest.approx(ref, rel=1e-5)
    np.testing.assert_allclose(compiled.w_hh, eager.w_hh, rtol=1e-5, atol=1e-6)
    assert len(step._cache) == 1


def test_rnn_gradient_equals_finite_differences():
    model = RNN(2, 3, 2, seed=3, dtype=np.float64)
    xs = np.random.default_rng(1).standard_normal((5, 1, 2))
    targets = np.ones((1, 2))
    g = tpucc.grad(RNN.loss)(model, xs, 3, targets)
    w = model.w_hh.copy()
    numeric = np.zeros_like(w)
    for i in np.ndindex(w.shape):
        for sign in (1, -1):
            model.w_hh = w.copy()
            model.w_hh[i] += sign * 1e-6
            numeric[i] += sign * model.loss(xs, 3, targets) / 2e-6
    model.w_hh = w
    np.testing.assert_allclose(g.w_hh, numeric, rtol=1e-5, atol=1e-9)


def test_gradient_through_the_runtime_length_loop_is_refused(rnn):
    with pytest.raises(tpucc.GradError, match="known only at run time") as info:
        tpucc.grad(lambda m, xs, n: np.sum(m.forward(xs, n)))(rnn, XS, np.int64(4))
    assert info.value.loc.file.endswith("rnn.py")


# --- GPT ---------------------------------------------------------------------------------

GPT_CFG = gpt.GPTConfig(vocab=16, context=8, width=16, heads=2, layers=2)
# One block for the Adam steps: the compiled step (forward, backward, clipping,
# Adam over every leaf) and the eager step's own gradient compile are the
# test's two compiles, and each block adds to both; two blocks' gradients are
# test_gpt_gradient_equals_finite_differences's.
GPT_ADAM_CFG = gpt.GPTConfig(vocab=16, context=8, width=16, heads=2, layers=1)


def test_gpt_adam_steps_match_eager_and_are_one_executable():
    cfg = GPT_ADAM_CFG
    tokens, targets = gpt.copy_task(cfg, batch=4)
    params, eager_params = gpt.init_params(cfg, 0), gpt.init_params(cfg, 0)
    state, eager_state = gpt.adam_state(params), gpt.adam_state(eager_params)
    step = tpucc.compile(gpt.adam_step)
    for _ in range(3):
        loss, norm = step(params, state, tokens, targets, 1e-2, cfg.heads)
        ref_loss, ref_norm = gpt.adam_step(eager_params, eager_state, tokens, targets, 1e-2,
                                           cfg.heads)
        assert loss == pytest.approx(ref_loss, rel=1e-5)
        assert norm == pytest.approx(ref_norm, rel=1e-4)
    assert state["step"] == eager_state["step"] == 3
    for a, b in zip(gpt.leaves(params) + state["m"], gpt.leaves(eager_params) + eager_state["m"]):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-6)
    assert len(step._cache) == 1
    (entry,) = step._cache.values()             # the module that ran (lower() would trace again)
    assert entry.lowered.as_text(dialect="hlo").count("ENTRY") == 1


def test_gpt_gradient_equals_finite_differences():
    """tpucc's gradient of the loss (float64) at a few entries of every kind
    of parameter against central differences."""
    tokens, targets = gpt.copy_task(GPT_CFG, batch=2, seed=1)
    params = gpt.init_params(GPT_CFG, seed=2, dtype=np.float64)
    grads = gpt.leaves(tpucc.grad(gpt.loss)(params, tokens, targets, GPT_CFG.heads))
    rng = np.random.default_rng(3)
    for p, g in zip(gpt.leaves(params), grads):
        for flat in rng.choice(p.size, 2, replace=False):
            index = np.unravel_index(flat, p.shape)
            saved, h = p[index], 1e-6
            p[index] = saved + h
            up = gpt.loss(params, tokens, targets, GPT_CFG.heads)
            p[index] = saved - h
            down = gpt.loss(params, tokens, targets, GPT_CFG.heads)
            p[index] = saved
            assert g[index] == pytest.approx((up - down) / (2 * h), rel=1e-4, abs=1e-8)
