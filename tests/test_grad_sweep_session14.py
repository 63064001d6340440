"""Session 14's sweep of gradients and training code as users write it:
each test is a program that was wrong or refused, checked against central
finite differences in float64 or a hand-written NumPy gradient."""
import copy
import dataclasses

import numpy as np
import pytest

import tpucc
from tpucc import nn
from conftest import numeric_grad

RNG = np.random.default_rng(14)


# --- optimizer state in dicts held by an object --------------------------------------------

class AdamModel:
    def __init__(self, seed):
        rng = np.random.default_rng(seed)
        self.params = {"w1": rng.standard_normal((4, 8)) * 0.5, "b1": np.zeros(8),
                       "w2": rng.standard_normal((8, 3)) * 0.5}
        self.opt = {"m": {k: np.zeros_like(v) for k, v in self.params.items()},
                    "v": {k: np.zeros_like(v) for k, v in self.params.items()}}
        self.t = np.zeros(())


def adam_loss(params, x, labels):
    h = np.tanh(x @ params["w1"] + params["b1"])
    return nn.cross_entropy(h @ params["w2"], labels)


def adam_step(model, x, labels):
    loss, g = tpucc.value_and_grad(adam_loss)(model.params, x, labels)
    model.t += 1
    for k in model.params:
        model.opt["m"][k] *= 0.9                      # in place in a dict of an attribute
        model.opt["m"][k] += 0.1 * g[k]
        model.opt["v"][k][...] = 0.999 * model.opt["v"][k] + 0.001 * g[k] ** 2
        mhat = model.opt["m"][k] / (1 - 0.9 ** model.t)
        vhat = model.opt["v"][k] / (1 - 0.999 ** model.t)
        model.params[k] -= 0.01 * mhat / (np.sqrt(vhat) + 1e-8)
    return loss


def adam_reference(model, x, labels):
    """The same step with the gradient by hand, in NumPy."""
    p = model.params
    h = np.tanh(x @ p["w1"] + p["b1"])
    z = h @ p["w2"]
    s = np.exp(z - z.max(1, keepdims=True))
    s /= s.sum(1, keepdims=True)
    loss = -np.mean(np.log(s[np.arange(len(labels)), labels]))
    dz = s.copy()
    dz[np.arange(len(labels)), labels] -= 1
    dz /= len(labels)
    dpre = (dz @ p["w2"].T) * (1 - h ** 2)
    g = {"w1": x.T @ dpre, "b1": dpre.sum(0), "w2": h.T @ dz}
    model.t += 1
    for k in p:
        model.opt["m"][k] = 0.9 * model.opt["m"][k] + 0.1 * g[k]
        model.opt["v"][k] = 0.999 * model.opt["v"][k] + 0.001 * g[k] ** 2
        mhat = model.opt["m"][k] / (1 - 0.9 ** model.t)
        vhat = model.opt["v"][k] / (1 - 0.999 ** model.t)
        p[k] = p[k] - 0.01 * mhat / (np.sqrt(vhat) + 1e-8)
    return loss


def test_adam_state_updated_in_place_in_dicts_of_an_object():
    """`model.opt["m"][k] *= 0.9` stores the (same) array back into a dict
    reached through an attribute: that store was refused (E500, "mutating
    a container that exists outside") although the array is updated in
    place, as it is for a dict passed as an argument."""
    x = RNG.standard_normal((6, 4))
    labels = np.array([0, 1, 2, 2, 1, 0])
    model, ref = AdamModel(1), AdamModel(1)
    m_before = model.opt["m"]["w1"]
    step = tpucc.compile(adam_step)
    for _ in range(3):
        loss = step(model, x, labels)
        np.testing.assert_allclose(loss, adam_reference(ref, x, labels), rtol=1e-12)
    assert model.opt["m"]["w1"] is m_before          # the same array, updated in place
    assert float(model.t) == 3.0
    for k in model.params:
        np.testing.assert_allclose(model.params[k], ref.params[k], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(model.opt["v"][k], ref.opt["v"][k], rtol=1e-10, atol=1e-14)


# --- the kind of a scalar parameter's gradient ---------------------------------------------

@pytest.mark.parametrize("s", [np.float64(2.0), np.float32(2.0)])
def test_numpy_scalar_parameter_gets_a_numpy_scalar_gradient(s):
    """A Python float's gradient is a float; a NumPy scalar's was a 0-d
    array (its kind was dropped), also inside compiled code, where a static
    np.float64 was even taken for a Python float (it subclasses float)."""
    def f(s):
        return s * s * 3
    for g in (tpucc.grad(f)(s), tpucc.compile(lambda s: tpucc.grad(f)(s))(s),
              tpucc.value_and_grad(f)(s)[1]):
        assert type(g) is type(s) and g == 12.0
    g = tpucc.compile(lambda x: tpucc.grad(lambda p, x: p["s"] * np.sum(x))(
        {"s": np.float64(2.0) * 1}, x))(np.ones(3))
    assert type(g["s"]) is np.float64 and g["s"] == 3.0
    assert type(tpucc.grad(f)(np.array(2.0))) is np.ndarray       # a 0-d array stays one


# --- objects with __slots__ ----------------------------------------------------------------

@dataclasses.dataclass(slots=True)
class SlotLinear:
    w: np.ndarray
    b: np.ndarray
    n: int = 2


class SlotNet:
    __slots__ = ("first", "scale", "unset")

    def __init__(self, first, scale):
        self.first, self.scale = first, scale        # `unset` is never assigned


def slot_loss(net, x):
    return np.sum(np.tanh(x @ net.first.w + net.first.b) ** 2) * net.scale * net.first.n


def test_objects_with_slots_are_differentiated():
    """A `@dataclass(slots=True)` has no __dict__: it was taken for a
    constant and refused (E350 "only float arrays ... can be
    differentiated"); its gradient is an object of its class, as for other
    objects, returned from compiled code too."""
    x = RNG.standard_normal((5, 3))
    net = SlotNet(SlotLinear(RNG.standard_normal((3, 2)), RNG.standard_normal(2)), 0.5)
    for g in (tpucc.grad(slot_loss)(net, x),
              tpucc.compile(lambda n, v: tpucc.grad(slot_loss)(n, v))(net, x)):
        assert type(g) is SlotNet and type(g.first) is SlotLinear and g.first.n is None
        assert type(g.scale) is float                  # a Python float: differentiated
        for name in ("w", "b"):
            saved = getattr(net.first, name)

            def f(v, name=name):
                setattr(net.first, name, v)
                try:
                    return slot_loss(net, x)
                finally:
                    setattr(net.first, name, saved)
            np.testing.assert_allclose(getattr(g.first, name), numeric_grad(f, saved),
                                       rtol=1e-6, atol=1e-9)


def test_sgd_step_on_a_slotted_model():
    x = RNG.standard_normal((5, 3))
    net = SlotNet(SlotLinear(RNG.standard_normal((3, 2)), RNG.standard_normal(2)), 1.0)
    w0, b0 = net.first.w.copy(), net.first.b.copy()

    @tpucc.compile
    def step(net, x):
        loss, g = tpucc.value_and_grad(slot_loss)(net, x)
        net.first.w -= 0.1 * g.first.w
        net.first.b -= 0.1 * g.first.b
        return loss
    loss = step(net, x)
    ref = SlotNet(SlotLinear(w0, b0), 1.0)
    assert loss == pytest.approx(slot_loss(ref, x), rel=1e-12)
    g = tpucc.grad(slot_loss)(ref, x)
    np.testing.assert_allclose(net.first.w, w0 - 0.1 * g.first.w, rtol=1e-12)
    np.testing.assert_allclose(net.first.b, b0 - 0.1 * g.first.b, rtol=1e-12)


# --- a parameter the loss updates in place is the caller's array ---------------------------

def doubles_then_squares(w):
    w *= 2
    return np.sum(w ** 2)


def zeroes_then_cubes(p):
    p["w"][0] = 0.0
    return np.sum(p["w"] ** 3)


def step_doubling(w):
    return tpucc.grad(doubles_then_squares)(w)


def test_a_parameter_the_loss_updates_in_place_is_written_back():
    # The gradient was right but the caller's array kept its old value,
    # where calling the loss itself updates it.
    w = np.array([1.0, 2.0])
    np.testing.assert_array_equal(tpucc.grad(doubles_then_squares)(w), [8.0, 16.0])
    np.testing.assert_array_equal(w, [2.0, 4.0])
    p = {"w": np.array([1.0, 2.0, 3.0])}
    np.testing.assert_array_equal(tpucc.grad(zeroes_then_cubes)(p)["w"], [0.0, 12.0, 27.0])
    np.testing.assert_array_equal(p["w"], [0.0, 2.0, 3.0])
    compiled = tpucc.compile(step_doubling)
    w = np.array([1.0, 2.0])
    np.testing.assert_array_equal(compiled(w), [8.0, 16.0])
    np.testing.assert_array_equal(w, [2.0, 4.0])
