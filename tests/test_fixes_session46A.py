"""Session 46A: ODE time stepping.

bug_03: a 20-step RK4 loop whose right-hand side builds its state with
np.stack (or np.array of runtime scalars) was unrolled and took XLA 3.5 s of
CPU (11-13 s on a loaded machine), where 40 steps as one While took 0.3 s:
each concatenation ends a fusion, and XLA:CPU compiles by the kernel.  A
concatenation now weighs CONCATENATE_WEIGHT small ops in the unroll budget.
bug_01: tpucc.grad through a short RK4 loop compiled in 1 / 4 / 11.6 s of
CPU at 4 / 8 / 12 steps (over 120 s wall at 20): the unrolled forward and
reverse chains.  Under tpucc.grad a body's ops weigh REVERSE_MODE_WEIGHT
times more, so such a loop is one counted While (a scan in reverse mode).
bug_02: type(y) after a 40-step loop on a 0-d array was refused as known
only at run time: the counted While carried the scalar-or-0-d kind as a
bool, as if the loop might not run.  A loop of a static positive trip count
with no runtime exit leaves the kind its body gives.
"""

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each


def whiles(fn, *args) -> int:
    return tpucc.compile(fn, cache=False).lower(*args).ir().count("= while(")


# --- bug_03: stacking right-hand sides weigh what XLA takes to compile them ------------

def _pend(s):
    return np.stack([s[1], -np.sin(s[0])])


def _rk4_pendulum(s, steps):
    h = 0.05
    for i in range(steps):
        k1 = _pend(s); k2 = _pend(s + h / 2 * k1); k3 = _pend(s + h / 2 * k2)
        k4 = _pend(s + h * k3)
        s = s + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return s


def _rk4_array_rhs(y, steps):
    h = np.float32(0.1)
    f = lambda u: np.array([u[1], -u[0] - np.float32(0.2) * u[1]])
    for _ in range(steps):
        k1 = f(y); k2 = f(y + h / 2 * k1); k3 = f(y + h / 2 * k2); k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def _rolling(x):
    for i in range(8):
        x = np.concatenate([x[1:], x[:1]]) * 2
    return x


@pytest.mark.parametrize("steps", [12, 20])
def test_a_stacking_rk4_loop_runs_as_one_while(steps):
    s0 = np.linspace(0.0, 1.5, 32).reshape(2, 16)
    same(_rk4_pendulum, s0, steps)
    assert whiles(_rk4_pendulum, s0, steps) == 1


def test_a_float32_rhs_of_runtime_scalars_runs_as_one_while():
    y0 = np.array([1.0, 0.5], np.float32)
    same(_rk4_array_rhs, y0, 20)
    assert whiles(_rk4_array_rhs, y0, 20) == 1


def test_a_short_loop_with_one_concatenation_stays_unrolled():
    x = np.arange(5.0)
    same(_rolling, x)
    assert whiles(_rolling, x) == 0


# --- bug_01: tpucc.grad through a short RK4 loop is one scan ---------------------------

def _oscillator_loss(k, y0, n):
    y = y0
    h = 0.05
    f = lambda u: np.array([u[1], -k * u[0]])
    for i in range(n):
        k1 = f(y); k2 = f(y + h / 2 * k1); k3 = f(y + h / 2 * k2); k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return np.sum(y ** 2)


def _pendulum_loss(s0, steps):
    return np.sum(_rk4_pendulum(s0, steps) ** 2)


def _central_difference(fn, x, *rest, eps=1e-6):
    x = np.asarray(x, np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (fn(x + step, *rest) - fn(x - step, *rest)) / (2 * eps)
    return grad


@pytest.mark.parametrize("n", [4, 12, 20])
def test_grad_through_a_short_rk4_loop(n):
    k, y0 = np.array(2.0), np.array([1.0, 0.0])
    got = tpucc.compile(tpucc.grad(_oscillator_loss), cache=False)(k, y0, n)
    assert np.asarray(got).dtype == np.float64 and np.shape(got) == ()
    np.testing.assert_allclose(got, _central_difference(_oscillator_loss, k, y0, n),
                               rtol=1e-6, atol=1e-9)
    assert whiles(tpucc.grad(_oscillator_loss), k, y0, n) >= 1


def test_grad_of_a_stacking_loop_by_its_initial_state():
    s0 = np.linspace(0.1, 0.8, 8).reshape(2, 4)
    got = tpucc.compile(tpucc.grad(_pendulum_loss), cache=False)(s0, 8)
    assert got.dtype == np.float64 and got.shape == (2, 4)
    np.testing.assert_allclose(got, _central_difference(_pendulum_loss, s0, 8),
                               rtol=1e-5, atol=1e-8)
    assert whiles(tpucc.grad(_pendulum_loss), s0, 8) >= 1


def _decay_loss(k, n):
    y = np.array(1.0)
    for i in range(n):
        y = y - k * y
    return y * y


def test_grad_of_a_small_body_stays_unrolled():
    k = np.array(0.1)
    got = tpucc.compile(tpucc.grad(_decay_loss), cache=False)(k, 10)
    np.testing.assert_allclose(got, _central_difference(_decay_loss, k, 10), rtol=1e-6)
    assert whiles(tpucc.grad(_decay_loss), k, 10) == 0


# --- bug_02: a counted loop that surely ran leaves its body's kind ---------------------

def _type_after_loop(y, n):
    for i in range(n):
        y = y - 0.1 * y * y
    return type(y).__name__


def _type_and_value(y, n):
    for i in range(n):
        y = y * np.float32(0.5) + 1
    return type(y).__name__, y


class _State:
    def __init__(self, y):
        self.y = y


def _attribute_kind(y, n):
    s = _State(y)
    for i in range(n):
        s.y = s.y * 0.5 + 1
    return type(s.y).__name__, isinstance(s.y, np.ndarray), s.y


def test_type_of_a_0d_array_after_a_long_loop():
    same_each(_type_after_loop, (np.array(1.0), 40), (np.array(0.5), 40))
    same(_type_after_loop, np.array(1.0, np.float32), 40)


def test_type_and_value_after_a_long_loop():
    same(_type_and_value, np.array(3.0, np.float32), 40)
    same(_type_and_value, np.array(3, np.int64), 50)


def test_kind_of_an_attribute_after_a_long_loop():
    same(_attribute_kind, np.array(2.0), 40)


def _runtime_trips(y, n):
    for i in range(n):
        y = y - 0.1 * y * y
    return type(y).__name__


def test_a_loop_that_may_not_run_still_refuses_type():
    # (n == 0 leaves the 0-d array: which type y is is a runtime question)
    raises_at(_runtime_trips, (np.array(1.0), np.int64(40)), tpucc.StaticValueError,
              match="known only at run time", line_of="type(y)")
