"""jax arrays from the caller are immutable values, as in Python: `x -= g`
on one makes a new array (an attribute rebound that way stays a jax array,
on the device), item assignment is refused as jax refuses it; NumPy arrays
whose writeable flag is off refuse every update, as NumPy does."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tpucc
from conftest import raises_at
from tpucc import driver, outputs


class JaxModel:
    """Weights as jax arrays (e.g. kept on a GPU), a NumPy step counter."""

    def __init__(self):
        self.w = jnp.linspace(-1.0, 1.0, 12, dtype=jnp.float32).reshape(3, 4)
        self.steps = np.zeros(1, np.float32)

    def step(self, x, lr):
        g = x.T @ (x @ self.w)
        self.w -= lr * g
        self.steps += 1
        return np.sum(self.w * self.w)


def test_a_jax_weight_rebound_by_a_step_stays_a_jax_array():
    eager, compiled = JaxModel(), JaxModel()
    step = tpucc.compile(compiled.step, cache=False)
    x = np.linspace(0.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
    counter = compiled.steps
    history = []
    for _ in range(3):
        np.testing.assert_allclose(step(x, 0.1), eager.step(x, 0.1), rtol=1e-6)
        history.append(compiled.w)
    assert isinstance(compiled.w, jax.Array) and compiled.w.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(compiled.w), np.asarray(eager.w), rtol=1e-6)
    assert compiled.steps is counter and counter[0] == 3        # NumPy: updated in place
    # Each call's weights are the user's now: none was recycled as a later
    # call's output buffer (a donated array would be deleted).
    assert len({id(w) for w in history}) == 3
    assert all(np.isfinite(np.asarray(w)).all() for w in history)


def add_to_view(w):
    v = w[1:]
    v += 1.0
    return w, v


def test_in_place_operators_on_a_jax_argument_rebind():
    """`v += 1` on a slice of a jax array makes a new array: `w` (and the
    caller's array) keep their values, where NumPy would write through."""
    w = jnp.arange(4.0, dtype=jnp.float32)
    out_w, out_v = tpucc.compile(add_to_view, cache=False)(w)
    ref_w, ref_v = add_to_view(w)
    np.testing.assert_array_equal(out_w, np.asarray(ref_w))
    np.testing.assert_array_equal(out_v, np.asarray(ref_v))
    np.testing.assert_array_equal(np.asarray(w), [0.0, 1.0, 2.0, 3.0])


def set_first(w):
    w[0] = 5.0
    return w


def test_item_assignment_into_a_jax_array_is_refused_at_its_line():
    w = jnp.zeros(3, jnp.float32)
    with pytest.raises(TypeError):
        set_first(w)                        # what jax says eagerly
    raises_at(set_first, (w,), tpucc.errors.SideEffectError, match="jax arrays are immutable",
              line_of="w[0] = 5.0")


def bump_tail(x):
    tail = x[1:]
    tail += 1
    return x


def test_a_read_only_numpy_array_refuses_updates_at_their_line():
    x = np.zeros(3)
    x.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        bump_tail(x)
    raises_at(bump_tail, (x,), tpucc.errors.SideEffectError, match="read-only",
              line_of="tail += 1")


def test_a_read_only_array_that_is_only_read_compiles():
    x = np.arange(3.0)
    x.flags.writeable = False
    np.testing.assert_array_equal(tpucc.compile(lambda a: a * 2, cache=False)(x), x * 2)


def test_results_handed_over_are_not_recycled(monkeypatch):
    """The NumPy counter's result buffer goes back to the next call as a
    donated output buffer; the jax weight's result belongs to the user, and
    only the weight it replaced, when nothing else holds that, is donated
    (on the CPU: driver.recycles_replaced)."""
    monkeypatch.setattr(outputs, "RECYCLE_MIN_BYTES", 0)   # (these arrays are small)
    m = JaxModel()
    step = tpucc.compile(m.step, cache=False)
    x = np.ones((2, 3), np.float32)
    step(x, 0.1)
    (entry,) = step._cache.values()
    assert [a.shape for a in driver.recycled_avals(entry.traced)] == [(1,), (3, 4)]
    assert sorted(driver.kept_writebacks(entry.traced)) == [False, True]
    results = []
    for _ in range(3):
        step(x, 0.1)
        results.append(m.w)                 # the user keeps every result
    assert not any(w.is_deleted() for w in results)


def test_a_replayed_trace_hands_jax_results_over_too(tmp_path, monkeypatch):
    """A second compile of the same step finds it on disk and skips infer
    (snapshot.rebind): which results are handed over must survive that."""
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")       # store even a fast compile
    x = np.linspace(0.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
    first = JaxModel()
    tpucc.compile(first.step, cache=str(tmp_path))(x, 0.1)
    again, eager = JaxModel(), JaxModel()
    step = tpucc.compile(again.step, cache=str(tmp_path))
    kept = []
    for _ in range(3):
        np.testing.assert_allclose(step(x, 0.1), eager.step(x, 0.1), rtol=1e-6)
        kept.append(again.w)
    (entry,) = step._cache.values()
    assert entry.times.replayed
    assert isinstance(again.w, jax.Array) and again.steps[0] == 3
    assert all(np.isfinite(np.asarray(w)).all() for w in kept)      # none donated


TOTALS = np.zeros(3)
JAX_TOTALS = jnp.zeros(3)


def accumulate(x):
    global TOTALS
    TOTALS += x                 # NumPy: in place, then stored back to the same name
    return TOTALS.sum()


def accumulate_jax(x):
    global JAX_TOTALS
    JAX_TOTALS += x             # a jax array: a new array bound to the global
    return JAX_TOTALS.sum()


def test_a_global_numpy_array_updated_in_place_with_a_global_statement(monkeypatch):
    monkeypatch.setattr(__import__(__name__), "TOTALS", np.zeros(3))
    original = TOTALS
    step = tpucc.compile(accumulate, cache=False)
    x = np.array([1.0, 2.0, 3.0])
    assert step(x) == 6.0 and step(x) == 12.0
    assert TOTALS is original
    np.testing.assert_array_equal(TOTALS, [2.0, 4.0, 6.0])


def test_rebinding_a_global_is_refused_at_its_line():
    raises_at(accumulate_jax, (np.ones(3),), tpucc.errors.UnsupportedError,
              match="assigning the global `JAX_TOTALS`", line_of="JAX_TOTALS += x")
