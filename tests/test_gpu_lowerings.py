"""Lowerings chosen for GPUs, checked on this CPU machine: what the H200 run
of session 29 found.  Each program is lowered with tpucc's GPU formulations
(registry.lowering_for) and run here, or exported for cuda and read."""
from __future__ import annotations

import functools
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

import tpucc
from tpucc.cli import main
from tpucc.ops import debug, registry

from conftest import assert_same


def _on_gpu_lowering(fn, *args):
    """fn compiled with the lowerings tpucc picks for cuda, run on the CPU."""
    with registry.lowering_for(("cuda",)):
        return tpucc.compile(fn, cache=False)(*args)


def pooled_means(x):
    return (tpucc.nn.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
            x / x.sum(axis=(2, 3), keepdims=True))


def test_divisions_broadcast_their_operands_for_a_gpu():
    """On a GPU the division is lax.div without the CPU's barrier; its
    operands were not broadcast there (avg_pool2d without padded cells
    counted: E999 'arrays must have the same number of dimensions')."""
    x = np.random.default_rng(0).random((2, 3, 7, 7), np.float32) + 0.5
    got = _on_gpu_lowering(pooled_means, x)
    for g, want in zip(got, tpucc.compile(pooled_means)(x)):
        np.testing.assert_allclose(g, want, rtol=1e-6)


def cumulative(x):
    return (np.nancumsum(x, axis=0), np.nancumprod(x, axis=1), np.cumsum(x[0]),
            np.cumsum(x, axis=-1), np.add.accumulate(x, axis=0), np.cumsum(x > 1))


def test_cumulative_sums_for_a_gpu_equal_numpy():
    x = np.array([[1.5, np.nan, 3.0, -2.0], [np.nan] * 4, [4.0, 0.25, np.nan, 8.0]])
    with np.errstate(invalid="ignore"):
        want = cumulative(x)
    for g, w in zip(_on_gpu_lowering(cumulative, x), want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-12)


MODEL = textwrap.dedent("""
    import numpy as np
    import tpucc
    from tpucc.aot import entry

    @entry("f32[3,4]")
    def running(x):
        return np.nancumsum(x, axis=0), np.nancumprod(x, axis=1), np.cumsum(x)

    @entry("f32[2,3,7,7]")
    def pooled(x):
        return tpucc.nn.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)
""")


def test_cuda_export_has_no_chlo_scan(tmp_path):
    """jax 0.11 lowers cumsum for GPUs to chlo.scan (CUB); on an H200 a
    program of nancumsum(x, axis=0) and nancumprod(x, axis=1) returned one
    of the two results in both outputs.  tpucc's cumsum for GPUs is an
    associative scan of XLA's own ops."""
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    for name in ("running", "pooled"):
        result = CliRunner().invoke(main, ["build", str(model), "--entry", name, "--target",
                                           "cuda", "--emit", "stablehlo",
                                           "--out", str(tmp_path / "out")])
        assert result.exit_code == 0, result.output
        text = (tmp_path / "out" / f"{name}.tpucc" / "module.mlir").read_text()
        assert "chlo.scan" not in text and "func.func public @main" in text


def prints_its_total(x):
    print("total", x.sum())
    return x * 2


def test_print_without_a_cpu_backend_is_refused_at_compile_time(monkeypatch):
    """jax's host callbacks place their inputs on a CPU device: with
    JAX_PLATFORMS=cuda every call failed inside the executable."""
    monkeypatch.setattr(debug, "_host_backend_missing", lambda: True)
    with pytest.raises(tpucc.errors.UnsupportedError, match="CPU backend") as info:
        tpucc.compile(prints_its_total, cache=False)(np.ones(3, np.float32))
    assert info.value.loc is not None and info.value.loc.line == \
        prints_its_total.__code__.co_firstlineno + 1
    assert "JAX_PLATFORMS=cuda,cpu" in str(info.value)


def test_a_new_single_dispatch_function_compiles_before_any_eager_call():
    """functools.singledispatch caches its choice per class in a dict of its
    own; a class it had not seen yet made compiled code write that dict
    (E500).  Dispatch now runs natively while compiling."""
    @functools.singledispatch
    def scaled(v):
        return v

    @scaled.register(np.ndarray)
    def _(v):
        return v * 10

    @scaled.register(float)
    def _(v):
        return v + 0.5

    def fn(x):
        return scaled(x), scaled(float(x[1])), scaled("text"), scaled(x[0])
    x = np.arange(4.0)
    got = tpucc.compile(fn, cache=False)(x)       # before the eager call, which fills the cache
    assert_same(fn(x), got)


def test_a_new_single_dispatch_method_compiles_before_any_eager_call():
    class Scaler:
        @functools.singledispatchmethod
        def apply(self, v):
            return v

        @apply.register
        def _(self, v: float):
            return v * 10

    def fn(x):
        return Scaler().apply(float(x[0])), Scaler().apply(x)
    x = np.arange(1.0, 4.0)
    got = tpucc.compile(fn, cache=False)(x)
    assert_same(fn(x), got)
