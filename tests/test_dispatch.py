"""The cached-call path (driver.signature_key and the per-entry runner):
every call still checks the guards, re-reads captured arrays, writes in-place
updates back and converts outputs as eager NumPy returns them, whichever
specialization the runner took (with or without 64-bit mode, one output or
a structure)."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tpucc

from conftest import assert_same, check


@pytest.fixture(autouse=True)
def no_disk_cache(monkeypatch):
    monkeypatch.setenv("TPUCC_CACHE", "0")


def calls(fn, arg_sets, **options):
    """Compiles once, calls on each argument set; compares every result
    (and the arguments afterwards) with eager NumPy on copies."""
    compiled = tpucc.compile(fn, **options)
    for args in arg_sets:
        eager = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
        expected = fn(*eager)
        assert_same(expected, compiled(*args))
        assert_same(eager, list(args))
    return compiled


def narrow_inputs_wide_outputs(x, b):
    return x.astype(np.float64).sum() * 1.5, np.argmax(x), x * 2, b & True


def test_32_bit_inputs_with_64_bit_outputs():
    x = np.arange(8, dtype=np.float32)
    calls(narrow_inputs_wide_outputs, [(x, np.array([True, False]))] * 3)


def test_64_bit_inputs():
    calls(lambda x, i: (x * i, i.sum()), [(np.linspace(0, 1, 5), np.arange(5))] * 2)


def scaled(x, lr):
    return x * lr, lr + 1


def test_runtime_python_scalars_do_not_recompile():
    compiled = calls(scaled, [(np.arange(3), 0.5), (np.arange(3), 2.0), (np.arange(3), -1.5)],
                     runtime_args=("lr",))
    assert len(compiled._cache) == 1


def test_jax_array_inputs():
    with jax.enable_x64(True):
        x = jnp.arange(4.0)
    out = tpucc.compile(lambda v: v * 2)(x)
    assert isinstance(out, np.ndarray) and out.dtype == np.float64
    np.testing.assert_array_equal(out, np.arange(4.0) * 2)


SCALE = 2


def uses_scale(x):
    return x * SCALE


def test_guards_are_checked_on_every_call():
    global SCALE
    x = np.arange(3)
    compiled = tpucc.compile(uses_scale)
    assert_same(x * 2, compiled(x))
    SCALE = 5
    try:
        assert_same(x * 5, compiled(x))
    finally:
        SCALE = 2


TABLE = np.arange(4.0)


def adds_table(x):
    return x + TABLE


def test_captured_arrays_are_reread_on_every_call():
    global TABLE
    x = np.ones(4)
    compiled = tpucc.compile(adds_table)
    assert_same(x + np.arange(4.0), compiled(x))
    TABLE[0] = 100.0                                  # an in-place change is seen
    assert_same(x + TABLE, compiled(x))
    saved, TABLE = TABLE, np.arange(4, dtype=np.float32)   # rebinding to a new dtype
    try:
        assert_same(x + TABLE, compiled(x))
    finally:
        TABLE = saved
        TABLE[0] = 0.0


def test_a_captured_array_rebound_to_another_kind_is_seen():
    """The reader of arrays the program only reads checks their type, shape
    and dtype per call; a jax array or a read-only array in their place
    takes the full checks (and compiles again where the trace depends on it)."""
    global TABLE
    x = np.ones(4)
    compiled = tpucc.compile(adds_table)
    compiled(x)
    saved = TABLE
    try:
        with jax.enable_x64(True):
            TABLE = jnp.asarray(np.arange(4.0) * 2)
        assert_same(x + np.asarray(TABLE), compiled(x))
        TABLE = np.arange(4.0) * 3
        TABLE.flags.writeable = False
        assert_same(x + TABLE, compiled(x))
        TABLE = np.arange(4.0).reshape(2, 2)              # another shape
        with pytest.raises(ValueError):                   # as eager NumPy broadcasts
            adds_table(x)
        with pytest.raises(tpucc.TpuccError):
            compiled(x)
    finally:
        TABLE = saved


def accumulate(acc, x):
    acc += x
    return acc.sum()


def test_write_backs_on_every_call():
    acc = np.zeros(3, np.float32)
    calls(accumulate, [(acc, np.ones(3, np.float32))] * 3)
    np.testing.assert_array_equal(acc, [3.0, 3.0, 3.0])


def structured(x):
    n = 0
    for v in x:
        if v > 1:
            n += 1                   # a Python int promoted to a runtime value
    return {"a": x + 1, "static": 3, "pair": (x.sum(), "text"), "count": n}


def test_structured_outputs_with_static_leaves():
    check(structured, np.arange(4.0))
    compiled = calls(structured, [(np.arange(4.0),)] * 2)
    out = compiled(np.arange(4.0))
    assert type(out["count"]) is int and type(out["pair"][0]) is np.float64


def test_outputs_are_fresh_writeable_arrays():
    compiled = tpucc.compile(lambda x: x + 1)
    a, b = compiled(np.zeros(3)), compiled(np.zeros(3))
    assert a.flags.writeable and not np.shares_memory(a, b)
    a[0] = 7.0
    assert b[0] == 1.0


def bump(x):
    x += 1
    return x * 2


def test_numpy_scalars_and_0d_arrays_are_different_signatures():
    """A NumPy scalar is immutable (`+=` rebinds) while a 0-d array is
    updated in place: the 0-d array must be written back even when the
    scalar was compiled first."""
    compiled = tpucc.compile(bump)
    assert_same(np.float64(4.0), compiled(np.float64(1.0)))
    a = np.array(1.0)
    assert_same(np.float64(4.0), compiled(a))
    assert a == 2.0


def test_static_negative_zero_is_not_zero():
    compiled = tpucc.compile(lambda x, s: x + np.copysign(1.0, s))
    x = np.zeros(2)
    assert_same(np.ones(2), compiled(x, 0.0))
    assert_same(-np.ones(2), compiled(x, -0.0))


def two(x, y=None):
    return x if y is None else x - y


def test_keyword_and_positional_arguments():
    compiled = tpucc.compile(two)
    x, y = np.arange(3.0), np.ones(3)
    assert_same(x - y, compiled(x, y))
    assert_same(x - y, compiled(x, y=y))
    assert_same(x, compiled(x))


def test_executables_without_the_private_fast_path_still_run():
    """driver calls jax's C++ callable directly when it can find it, and the
    public Compiled.__call__ otherwise."""
    from tpucc import driver

    class Opaque:
        def __call__(self, *xs):
            return xs
    opaque = Opaque()
    assert driver._direct_call(opaque) is opaque


class Model:
    def __init__(self):
        self.w = np.ones(3)
        self.last = np.zeros(3)

    def step(self, x):
        self.w -= 0.5 * x               # an in-place update of a captured array
        self.last = x * 2               # a new array stored into an attribute
        return self.w.sum(), self.last[0]


def test_captured_and_attribute_write_backs_on_every_call():
    import copy
    compiled_model, eager_model = Model(), Model()
    step = tpucc.compile(compiled_model.step)
    for i in range(3):
        x = np.full(3, float(i))
        assert_same(eager_model.step(x.copy()), step(x))
        assert_same(copy.deepcopy(vars(eager_model)), copy.deepcopy(vars(compiled_model)))


def test_device_cache_rebinding_is_seen():
    model = Model()
    read = tpucc.compile(lambda x: x + model.w, device_cache=True)
    x = np.ones(3)
    assert_same(x + 1.0, read(x))
    model.w = np.full(3, 5.0)
    assert_same(x + 5.0, read(x))
