"""A loop body that updates a variable's array in place and then rebinds
the variable (`vel += g; vel = np.where(...)`, a particle simulation's step)
is one While when the array the variable holds at the loop's entry is
reachable by that variable only (infer/privacy.py): its first iteration's
write into that array cannot be observed.  A static loop whose entry array
is the caller's runs its first iteration unrolled (the write reaches the
caller) and the rest as one While.  Where something else also reaches the
array, the loop is unrolled (exact) or, with a runtime trip count,
refused with a hint."""
import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo


def bounce(vel, steps):
    for _ in range(steps):
        vel += 0.5
        vel = np.where(vel > 3, -vel, vel)
    return vel


def test_argument_updated_then_rebound_is_one_while_after_a_peeled_iteration():
    vel = np.arange(3.0)
    for steps in (1, 2, 40, 1000):
        compiled = check(bounce, vel, steps)
    assert count_hlo(hlo(compiled, vel.copy(), 1000), "while") == 1


def test_fresh_array_updated_then_rebound_in_a_runtime_loop():
    def f(x, n):
        vel = x * 1.0               # made by the program: nobody else reaches it
        for _ in range(n):
            vel += 0.5
            vel = np.where(vel > 3, -vel, vel)
        return vel
    compiled = check(f, np.arange(3.0), 9, compile_kwargs={"runtime_args": ("n",)})
    assert count_hlo(hlo(compiled, np.arange(3.0), 9), "while") == 1


def test_while_loop_on_a_fresh_array():
    def f(x, tol):
        v = x + 0.0
        while v.sum() < tol:
            v *= 1.5
            v = v + 1
        return v
    compiled = check(f, np.arange(3.0), 100.0)
    assert count_hlo(hlo(compiled, np.arange(3.0), 100.0), "while") == 1


def test_particle_simulation_compiles_to_one_while():
    def sim(pos, vel, steps):
        g = np.array([0.0, -9.81])
        bounces = 0
        for step in range(steps):
            vel += g * 0.05
            pos += vel * 0.05
            out = (pos < 0) | (pos > 10.0)
            bounces += int(out.sum())
            vel = np.where(out, -vel * 0.9, vel)
            pos = np.clip(pos, 0, 10.0)
        return pos, vel, bounces
    rng = np.random.default_rng(8)
    pos, vel = rng.random((20, 2)) * 10, rng.standard_normal((20, 2))
    compiled = check(sim, pos, vel, 100)
    assert count_hlo(hlo(compiled, pos.copy(), vel.copy(), 100), "while") == 1


# --- another name reaches the entry array: exact, not one While -----------------------

def test_second_variable_holding_the_array_sees_the_update():
    def f(v, n):
        keep = v * 1.0
        v = keep
        for _ in range(n):
            v += 1.0
            v = v * 2.0
        return v, keep              # keep got the first iteration's += 1
    check(f, np.arange(3.0), 50)


def test_attribute_holding_the_array_sees_the_update():
    class State:
        pass

    def f(s, v, n):
        v = v * 1.0
        s.first = v
        for _ in range(n):
            v += 1.0
            v = v * 2.0
        return v, s.first
    _check_with_object(f, State, "first")


def test_list_item_and_view_holding_the_array_see_the_update():
    def in_list(v, n):
        v = v * 1.0
        box = [v]
        for _ in range(n):
            v += 1.0
            v = v * 0.5
        return v, box[0]

    def view(v, n):
        v = v * 1.0
        tail = v[1:]
        for _ in range(n):
            v += 1.0
            v = v * 0.5
        return v, tail
    check(in_list, np.arange(3.0), 50)
    check(view, np.arange(3.0), 50)


def test_array_stored_on_the_first_iteration_only():
    class Log:
        pass

    def f(log, v, n):
        first = True
        for _ in range(n):
            v += 1.0
            v = v * 0.5
            if first:
                log.v = v           # holds the array the second iteration updates
                first = False
        return v
    _check_with_object(f, Log, "v")


def _check_with_object(f, cls, attr):
    """f(obj, v, 50) compiled and eagerly: same results, same obj.<attr>."""
    results = []
    for run in (f, tpucc.compile(f)):
        obj = cls()
        setattr(obj, attr, np.zeros(3))
        results.append((run(obj, np.arange(3.0), 50), getattr(obj, attr)))
    (expected, expected_attr), (actual, actual_attr) = results
    np.testing.assert_array_equal(actual_attr, expected_attr)
    for e, a in zip(expected if isinstance(expected, tuple) else (expected,),
                    actual if isinstance(actual, tuple) else (actual,)):
        np.testing.assert_array_equal(a, e)


def test_runtime_loop_over_the_callers_array_is_refused_with_a_hint():
    with pytest.raises(tpucc.errors.SideEffectError, match="copy it before the loop"):
        tpucc.compile(bounce, runtime_args=("steps",))(np.arange(3.0), 5)
