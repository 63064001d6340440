"""Session 34's sweeps: programs users write that the VGG19 path never
exercises (a model zoo, NumPy's wider API, the ahead-of-time path)."""
from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import tpucc

from conftest import check, count_hlo, hlo


def weighted_until(x):
    weights = [0.5 * i for i in range(100)]
    s = np.float32(0)
    for w in weights:
        s = s + w * x[0]
        if s > 50:
            break
    return s, w


def first_over(x, n):
    for i, k in enumerate(list(range(3, 90))):
        if k * x[0] > n:
            return i, k
    return -1, -1


@pytest.mark.parametrize("scale", [1.0, 0.01])
def test_a_long_loop_over_static_numbers_that_a_runtime_break_leaves_is_one_while(scale):
    # (100 numbers: too many to unroll under the exits; was refused with an
    # E400 about the truth value of an array)
    x = np.array([scale], np.float32)
    compiled = check(weighted_until, x)
    assert count_hlo(hlo(compiled, x), "while") == 1
    for n in (10.0, 1000.0):
        check(first_over, x, n)


@dataclasses.dataclass(frozen=True)
class Dense:
    w: np.ndarray
    b: np.ndarray


@dataclasses.dataclass(frozen=True)
class Net:
    layers: tuple
    scale: float = 1.0


def net_loss(net, x, y):
    h = x
    for layer in net.layers:
        h = np.tanh(h @ layer.w + layer.b)
    return np.mean((net.scale * h - y) ** 2)


def sgd_step(net, x, y):
    loss, g = tpucc.value_and_grad(net_loss)(net, x, y)
    layers = tuple(dataclasses.replace(p, w=p.w - 0.1 * q.w, b=p.b - 0.1 * q.b)
                   for p, q in zip(net.layers, g.layers))
    return dataclasses.replace(net, layers=layers), loss


def make_net(seed):
    rng = np.random.default_rng(seed)
    return Net((Dense(rng.standard_normal((3, 4)), np.zeros(4)),
                Dense(rng.standard_normal((4, 1)), np.zeros(1))))


def test_frozen_dataclass_parameters_are_runtime_inputs():
    # (Flax-style: a new frozen dataclass each step; every call compiled
    # again, its arrays read as constants of the object compiled for)
    x = np.linspace(-1, 1, 15).reshape(5, 3)
    y = np.sin(x[:, :1])
    compiled = tpucc.compile(sgd_step)
    net, want = make_net(0), make_net(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no RecompileWarning
        for _ in range(12):
            net, loss = compiled(net, x, y)
            want, want_loss = sgd_step(want, x, y)
            assert type(net) is Net and type(net.layers[1]) is Dense
            np.testing.assert_allclose(loss, want_loss, rtol=1e-12)
            for p, q in zip(net.layers, want.layers):
                np.testing.assert_allclose(p.w, q.w, rtol=1e-12)
                np.testing.assert_allclose(p.b, q.b, rtol=1e-12)
    assert len(compiled._cache) == 1
    other = make_net(1)
    np.testing.assert_allclose(tpucc.compile(net_loss)(other, x, y), net_loss(other, x, y),
                               rtol=1e-12)


@dataclasses.dataclass(frozen=True)
class Config:
    steps: int
    rate: float


def relax(cfg, x):
    for _ in range(cfg.steps):
        x = x - cfg.rate * (x - x.mean())
    return x, cfg


def test_a_frozen_dataclass_of_numbers_stays_static():
    compiled = check(relax, Config(3, 0.5), np.arange(4.0))
    check(relax, Config(5, 0.25), np.arange(4.0))
    assert count_hlo(hlo(compiled, Config(3, 0.5), np.arange(4.0)), "while") == 0


def test_an_entry_given_a_frozen_dataclass_of_arrays_says_to_pass_a_dict(tmp_path):
    from tpucc import aot
    from test_sweep_session33b import DATACLASS_PARAMS
    model = tmp_path / "frozen_params.py"
    model.write_text(DATACLASS_PARAMS.replace("@dataclasses.dataclass",
                                              "@dataclasses.dataclass(frozen=True)"))
    with pytest.raises(tpucc.TpuccError, match="argument p holds a DParams object") as info:
        aot.build_file(str(model), str(tmp_path))
    assert "dataclasses.asdict" in info.value.hint
