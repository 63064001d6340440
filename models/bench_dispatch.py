"""Per-call dispatch overhead of a cached tpucc function vs a hand-written
jax.jit of the same computation, called the same way: NumPy arrays in,
NumPy arrays out (`np.asarray` of jax's outputs).  Tiny inputs, so the time
is almost all dispatch.

    .venv/bin/python models/bench_dispatch.py [--calls 100] [--rounds 300]

Each case runs both implementations round-robin in many short rounds (so
both see the same machine load) and reports, per implementation, the best
round's mean time per call: noise from other processes only ever adds time,
so on a shared machine the minimum is the stable estimate (as timeit
advises).  Rounds are short (100 calls) so that some run undisturbed.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax                      # noqa: E402

import tpucc                    # noqa: E402

# Nothing to gain from the persistent cache here (and nothing to leave in it).
COMPILE_OPTIONS = {"cache": False} if "cache" in tpucc.api.DEFAULT_OPTIONS else {}
BIAS = np.linspace(0.0, 1.0, 8, dtype=np.float32)   # a captured global (re-read every call)


def np_axpy(x, y):
    return 2.0 * x + y


def jax_axpy(x, y):
    return 2.0 * x + y


def np_two_out(x):
    return x.sum(), x * x


def jax_two_out(x):
    return x.sum(), x * x


def np_bias(x):
    return x + BIAS


def jax_bias(x, b):
    return x + b


def np_update(x):
    x += 1.0
    return x[0]


def jax_update(x):
    x = x + 1.0
    return x[0], x


def run_jax_axpy(f):
    return lambda x, y: np.asarray(f(x, y))


def run_jax_two_out(f):
    def call(x):
        s, sq = f(x)
        return np.asarray(s)[()], np.asarray(sq)
    return call


def run_jax_bias(f):
    return lambda x: np.asarray(f(x, BIAS))


def run_jax_update(f):
    def call(x):
        first, new = f(x)
        np.copyto(x, np.asarray(new))
        return np.asarray(first)[()]
    return call


def cases():
    # float32, so that jax.jit needs no 64-bit mode (the global jax
    # configuration is left alone, as tpucc leaves it).
    x = np.arange(8, dtype=np.float32)
    y = np.ones(8, dtype=np.float32)
    jitted = {name: jax.jit(f) for name, f in
              [("axpy", jax_axpy), ("two_out", jax_two_out), ("bias", jax_bias),
               ("update", jax_update)]}
    compile_ = functools.partial(tpucc.compile, **COMPILE_OPTIONS)
    return [
        ("axpy(x, y)", compile_(np_axpy), run_jax_axpy(jitted["axpy"]), (x, y)),
        ("sum and square", compile_(np_two_out), run_jax_two_out(jitted["two_out"]), (x,)),
        ("captured global", compile_(np_bias), run_jax_bias(jitted["bias"]), (x,)),
        ("in-place update", compile_(np_update), run_jax_update(jitted["update"]),
         (x.copy(),)),
    ]


def per_call_us(fn, args, calls) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(calls):
        fn(*args)
    return (time.perf_counter_ns() - t0) / calls / 1e3


def measure(rounds=300, calls=100) -> dict:
    """{case: {"tpucc": us, "jax.jit": us, "ratio": tpucc / jax.jit}}, each
    the best round's time per call."""
    out = {}
    for name, tp, jx, args in cases():
        tp_args = args
        jx_args = tuple(np.copy(v) for v in args)
        _check_same(tp(*[np.copy(v) for v in args]), jx(*[np.copy(v) for v in args]), name)
        for f, xs in ((tp, tp_args), (jx, jx_args)):
            per_call_us(f, xs, 200)                     # warm up
        t_tp, t_jx = [], []
        for _ in range(rounds):
            t_tp.append(per_call_us(tp, tp_args, calls))
            t_jx.append(per_call_us(jx, jx_args, calls))
        mt, mj = min(t_tp), min(t_jx)
        out[name] = {"tpucc": mt, "jax.jit": mj, "ratio": mt / mj}
    return out


def print_table(results: dict, indent=""):
    print(f"{indent}{'case':<18} {'tpucc us':>9} {'jax.jit us':>11} {'ratio':>6}")
    for name, r in results.items():
        print(f"{indent}{name:<18} {r['tpucc']:9.2f} {r['jax.jit']:11.2f} {r['ratio']:6.2f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=100, help="calls per round")
    p.add_argument("--rounds", type=int, default=300)
    a = p.parse_args(argv)
    print(f"jax {jax.__version__} on {jax.default_backend()}; {a.rounds} rounds of "
          f"{a.calls} calls, best round's time per call")
    print_table(measure(a.rounds, a.calls))


def _check_same(a, b, name):
    a_leaves = a if isinstance(a, tuple) else (a,)
    b_leaves = b if isinstance(b, tuple) else (b,)
    for u, v in zip(a_leaves, b_leaves):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), err_msg=name)


if __name__ == "__main__":
    main()
