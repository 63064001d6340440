"""Write-back results reuse the buffers of the previous call's (outputs.OutputPool):
the executable takes them as donated extra inputs, XLA writes the new results
into them, and the user's arrays still get every update."""
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tpucc
from tpucc import driver, outputs
from tests.runtime_raise_programs import positive_sqrt_in_place


class Model:
    def __init__(self):
        self.w = np.arange(12, dtype=np.float32).reshape(3, 4)
        self.b = np.ones(4, np.float32)

    def step(self, x, lr):
        g = x.T @ (x @ self.w + self.b)
        self.w -= lr * g
        self.b *= 0.5
        return np.sum(self.w)


@pytest.fixture(autouse=True)
def recycle_small_arrays(monkeypatch):
    """These tests' arrays are small, which are not recycled by default."""
    monkeypatch.setattr(outputs, "RECYCLE_MIN_BYTES", 0)


@pytest.fixture
def pools(monkeypatch):
    """The OutputPools made while compiling, recording the buffers each call
    was given and gave back (addresses: donated buffers cannot be asked)."""
    made = []

    class Recording(outputs.OutputPool):
        def __init__(self, *a):
            super().__init__(*a)
            self.passed, self.returned = [], []
            made.append(self)

        def call(self, call, inputs):
            self.passed.append([_pointer(a) if a is not None else None for a in self._free[-1]]
                               if self._free else None)
            return super().call(call, inputs)

        def give_back(self, written, inputs, dropped=None):
            self.returned.append([_pointer(a) for a in written])
            super().give_back(written, inputs, dropped)
    monkeypatch.setattr(outputs, "OutputPool", Recording)
    monkeypatch.setattr(outputs, "_POOLS", weakref.WeakValueDictionary())
    return made


def _pointer(a) -> int:
    return a.unsafe_buffer_pointer()


def test_updates_are_written_into_the_last_calls_buffers(pools):
    m, ref = Model(), Model()
    step = tpucc.compile(m.step, runtime_args=("lr",), cache=False)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    for lr in (0.1, 0.01, 0.001, 0.02):
        assert np.isclose(step(x, lr), ref.step(x, lr), rtol=1e-6)
        np.testing.assert_allclose(m.w, ref.w, rtol=1e-6)
        np.testing.assert_array_equal(m.b, ref.b)
    (pool,) = pools
    assert [tuple(a.shape) for a in pool.avals] == [(3, 4), (4,)]
    assert pool.passed[0] is None                 # the first call: NumPy placeholders
    assert pool.passed[1:] == pool.returned[:-1]       # each call donates the last one's
    for passed, returned in zip(pool.passed[1:], pool.returned[1:]):
        # XLA wrote this call's results where the donated buffers were.
        assert sorted(returned) == sorted(passed)


def test_the_module_donates_one_extra_input_per_write_back():
    m = Model()
    step = tpucc.compile(m.step, runtime_args=("lr",), cache=False)
    x = np.ones((2, 3), np.float32)
    text = step.lower(x, 0.1).as_text("stablehlo")
    main = text[text.index("func.func public @main"):].split("\n")[0]
    assert main.count("tf.aliasing_output") == 2
    assert main.count("%arg") == 2 + 2 + 2         # x, lr, w, b, then the two recycled


def test_small_write_backs_are_not_recycled_large_ones_are(monkeypatch):
    """Memory for a small result is already mapped (malloc's arena), and
    donating its buffer would cost the call more than it saves."""
    monkeypatch.undo()
    assert outputs.RECYCLE_MIN_BYTES == 128 * 1024

    def update(x, y):
        x += 1.0
        y *= 2.0
        return x[0]
    f = tpucc.compile(update, cache=False)
    small, large = np.ones(8, np.float32), np.ones(32 * 1024, np.float32)   # 128 KiB
    for args, aliased in [((small, small[:4].copy()), 0), ((large, small), 2)]:
        main = f.lower(*args).as_text("stablehlo")
        main = main[main.index("func.func public @main"):].split("\n")[0]
        assert main.count("tf.aliasing_output") == aliased
        expected = [a.copy() for a in args]
        for _ in range(3):                  # the pool's buffers (or none) each call
            assert f(*args) == update(*expected)
        for a, e in zip(args, expected):
            np.testing.assert_array_equal(a, e)


def test_programs_without_write_backs_take_no_extra_inputs():
    f = tpucc.compile(lambda x: x * 2, cache=False)
    text = f.lower(np.ones(3)).as_text("stablehlo")
    assert "tf.aliasing_output" not in text


def test_a_write_back_that_forwards_an_input_is_not_recycled(pools):
    """`m.w[...] = m.b` makes w's new value b itself: jax may return the
    input array for it, which must not be donated at the next call (with
    device_cache, b is the cached copy)."""
    class Copy:
        def __init__(self):
            self.w = np.zeros(4, np.float32)
            self.b = np.arange(4, dtype=np.float32)

        def step(self):
            self.w[...] = self.b
            return np.sum(self.w)
    for options in ({}, {"device_cache": True}):
        c = Copy()
        step = tpucc.compile(c.step, cache=False, **options)
        for k in range(4):
            c.b += 1                 # device_cache would not see this: b is read-only here
            total = step()
            expected = np.arange(4) + (1 + k if not options else 1)
            np.testing.assert_array_equal(c.w, expected)
            assert total == expected.sum()


def test_a_call_that_raises_loses_its_buffers_and_the_next_starts_afresh(pools):
    x = np.array([4.0, 9.0])
    f = tpucc.compile(positive_sqrt_in_place, cache=False)
    f(x)
    np.testing.assert_array_equal(x, [2.0, 3.0])
    bad = np.array([4.0, -1.0])
    with pytest.raises(tpucc.TpuccError):
        f(bad)
    np.testing.assert_array_equal(bad, [4.0, -1.0])          # nothing written back
    y = np.array([16.0, 25.0])
    f(y)
    np.testing.assert_array_equal(y, [4.0, 5.0])
    (pool,) = pools
    assert pool.passed[1] == pool.returned[0]       # the raising call got the first's
    assert pool.passed[2] is None                   # and lost them


def test_signatures_with_the_same_write_backs_share_one_pool(pools):
    """A training step at two batch sizes keeps one copy of its weights."""
    m, ref = Model(), Model()
    step = tpucc.compile(m.step, runtime_args=("lr",), cache=False)
    for rows in (2, 5, 2, 5):
        x = np.linspace(-1, 1, rows * 3, dtype=np.float32).reshape(rows, 3)
        assert np.isclose(step(x, 0.01), ref.step(x, 0.01), rtol=1e-6)
        np.testing.assert_allclose(m.w, ref.w, rtol=1e-6)
    assert len(step._cache) == 2 and len(pools) == 1
    (pool,) = pools
    assert pool.passed[1:] == pool.returned[:-1]


def test_on_an_accelerator_every_host_copy_starts_before_the_first_is_read(monkeypatch):
    """Off the CPU the write-back results are on the device: their copies to
    the host are all queued first (copy_to_host_async), then read.  The CPU
    backend stands in for the accelerator here; the values must not change."""
    started = []
    start = driver._start_host_copies
    monkeypatch.setattr(driver.jax, "default_backend", lambda: "gpu")
    monkeypatch.setattr(driver, "_start_host_copies",
                        lambda values: (started.append(len(values)), start(values)))
    m, ref = Model(), Model()
    step = tpucc.compile(m.step, cache=False)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    for _ in range(3):
        np.testing.assert_allclose(step(x, 0.01), ref.step(x, 0.01), rtol=1e-6)
    np.testing.assert_allclose(m.w, ref.w, rtol=1e-6)
    np.testing.assert_array_equal(m.b, ref.b)
    assert started == [2, 2, 2]


class JaxModel:
    """Model's step on weights that are jax arrays: `self.w -= ...` rebinds
    them to the step's results (outputs.kept_writebacks)."""
    def __init__(self):
        m = Model()
        self.w, self.b = jnp.asarray(m.w), jnp.asarray(m.b)

    step = Model.step


def test_jax_weights_a_step_replaces_take_the_next_steps_results(pools):
    # On the CPU a result in fresh memory is paged in as it is written
    # (VGG19's step with jax weights: 37K page faults); the replaced arrays
    # nothing else holds are donated to the next call instead.
    m, ref = JaxModel(), Model()
    step = tpucc.compile(m.step, runtime_args=("lr",), cache=False)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    replaced = []
    for lr in (0.1, 0.01, 0.001, 0.02, 0.05):
        replaced.append([_pointer(m.w), _pointer(m.b)])
        assert np.isclose(step(x, lr), ref.step(x, lr), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(m.w), ref.w, rtol=1e-6)
        np.testing.assert_array_equal(np.asarray(m.b), ref.b)
        assert isinstance(m.w, jax.Array) and not m.w.is_deleted()
    (pool,) = pools
    assert [tuple(a.shape) for a in pool.avals] == [(3, 4), (4,)]
    # Each call got the arrays the call before replaced (from the third:
    # the trace holds the first weights too).
    assert pool.passed[0] is None
    assert pool.passed[2:] == replaced[1:-1]


def test_a_replaced_jax_weight_still_held_elsewhere_is_never_recycled():
    m = JaxModel()
    step = tpucc.compile(m.step, runtime_args=("lr",), cache=False)
    x = np.ones((2, 3), np.float32)
    step(x, 0.1)
    held, kept_b = m.w, [m.b]               # the user's own references
    values = np.asarray(held).copy(), np.asarray(kept_b[0]).copy()
    for _ in range(4):
        step(x, 0.1)
    assert not held.is_deleted() and not kept_b[0].is_deleted()
    np.testing.assert_array_equal(np.asarray(held), values[0])
    np.testing.assert_array_equal(np.asarray(kept_b[0]), values[1])
