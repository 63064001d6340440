"""A short static range loop (within the unroll budget) whose copies would
be thousands of ops runs its first iteration unrolled and the rest as one
counted While (infer/loops._too_big_to_unroll); small bodies stay unrolled."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check

STEPS = 25


def f(y):
    return np.array([y[1], -np.sin(y[0]) - 0.1 * y[1], np.cos(y[2]) * y[0]])


def rk4_of(steps):
    def rk4(y, h):
        for _ in range(steps):
            k1 = f(y)
            k2 = f(y + h / 2 * k1)
            k3 = f(y + h / 2 * k2)
            k4 = f(y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        return y
    return rk4


rk4 = rk4_of(STEPS)


def small_body(x):
    for _ in range(STEPS):
        x = x * 0.5 + 1.0
    return x


# (a name, not the function: `(np.tanh, np.sin)[i % 2]` is a choice at run time now,
# and so is `{"tanh": np.tanh, "sin": np.sin}[name]`: test_fixes_session49A.py)
ORDER = ("tanh", "sin")


def needs_static_counter_of(steps):
    def needs_static_counter(y, h):
        for i in range(steps):
            k1 = f(y)
            k2 = f(y + h * getattr(np, ORDER[i % 2])(k1))    # which name: i must be static
            k3 = f(y + h / 2 * k2)
            y = y + h / 6 * (k1 + 4 * k2 + k3)
        return y
    return needs_static_counter


needs_static_counter = needs_static_counter_of(STEPS)


def whiles(fn, *args, **options) -> int:
    return tpucc.compile(fn, **options).lower(*args).ir().count("= while(")


Y0 = np.array([1.0, 0.0, 0.5])


def test_a_big_body_runs_as_one_while():
    check(rk4, Y0, 0.01)
    assert whiles(rk4, Y0, 0.01) == 1


def test_a_small_body_stays_unrolled():
    check(small_body, np.ones(3))
    assert whiles(small_body, np.ones(3)) == 0


def test_a_larger_unroll_budget_unrolls_the_big_body():
    # (lowered only: XLA takes 3 s for the 2000 unrolled ops; the values of
    # an unrolled loop are checked by test_a_body_that_needs_the_counter...)
    assert whiles(rk4, Y0, 0.01, unroll=1000) == 0


def test_a_body_that_needs_the_counter_is_unrolled_exactly():
    # (tpucc's stages decide: the structure from lower(); the values of the
    # same decision on 6 steps under a budget of 6, where the RK4 body is
    # as big for the budget (one While) and XLA compiles 6 copies, not 25)
    # (ORDER[i % 2] at a runtime i is a runtime choice among the names; a
    # dict lookup by it needs the name itself, so the loop is unrolled)
    with pytest.warns(tpucc.UnrollWarning, match="needs the object itself"):
        assert whiles(needs_static_counter, Y0, 0.01) == 0
    assert whiles(rk4_of(6), Y0, 0.01, unroll=6) == 1
    short = needs_static_counter_of(6)
    check(short, Y0, 0.01, compile_kwargs={"unroll": 6})
    assert whiles(short, Y0, 0.01, unroll=6) == 0


def final_energy(y):
    out = rk4(y, 0.01)
    return np.sum(out ** 2)


@pytest.mark.parametrize("y0", [Y0, np.array([0.3, -0.2, 1.1])])
def test_gradient_through_the_while(y0):
    g = tpucc.compile(tpucc.grad(final_energy))(y0)
    eps, num = 1e-6, np.zeros(3)
    for i in range(3):
        d = np.zeros(3)
        d[i] = eps
        num[i] = (final_energy(y0 + d) - final_energy(y0 - d)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-8)
