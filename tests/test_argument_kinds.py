"""Every kind of array argument the issue names is a runtime value."""
import jax.numpy as jnp
import numpy as np

import tpucc
from conftest import assert_same, check


def scale(x, s):
    return x * s + 1


def test_numpy_scalar_and_zero_d_arguments():
    check(scale, np.ones(3, np.float32), np.float32(2.5))
    check(scale, np.ones(3, np.float32), np.array(2.5))          # 0-d float64 array
    check(scale, np.int32(3), np.int64(2))


def test_jax_array_arguments_are_runtime_inputs():
    f = tpucc.compile(scale)
    x = jnp.arange(3.0, dtype=jnp.float32)
    assert_same(scale(np.asarray(x), np.float32(2)), f(x, np.float32(2)))
    assert "argument x (array)" in f.lower(x, np.float32(2)).ir()


def test_python_scalar_is_static_unless_declared_runtime():
    f = tpucc.compile(scale)
    assert "argument s" not in f.lower(np.ones(3), 2.0).ir()      # folded into the module
    g = tpucc.compile(scale, runtime_args=("s",))
    ir = g.lower(np.ones(3), 2.0).ir()
    assert "argument s (Python scalar named in runtime_args)" in ir
    assert_same(scale(np.ones(3), 3.0), g(np.ones(3), 3.0))
    assert len(g._cache) == 1 and g(np.ones(3), 4.0) is not None and len(g._cache) == 1
