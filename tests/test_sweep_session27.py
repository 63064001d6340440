"""Programs from session 27's sweeps that compiled wrongly, slowly or not at
all; each compared with eager NumPy."""
import collections

import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo


# --- zip over the program's tuples --------------------------------------------------------

def test_zip_over_tuples_of_arrays_pairs_the_arrays():
    def add_pairs(a, b):
        return [x + y for x, y in zip((a, b), (b, a))]

    def sgd(params, grads):
        return [p - 0.1 * g for p, g in zip(params, grads)]
    a, b = np.ones(2), np.arange(2.0)
    check(add_pairs, a, b)
    check(sgd, (a, b), (b, a))


def test_zip_of_an_array_and_a_tuple():
    def f(x, t):
        return [row * k for row, k in zip(x, t)]
    check(f, np.arange(6.0).reshape(3, 2), (1.0, 2.0, 3.0))


# --- batch windows b * bs : (b + 1) * bs ----------------------------------------------------

def evaluate(x, w, y):
    bs, correct = 8, 0
    for b in range(x.shape[0] // bs):
        logits = x[b * bs:(b + 1) * bs] @ w
        correct += int((logits.argmax(1) == y[b * bs:(b + 1) * bs]).sum())
    return correct


def test_batch_window_of_counter_times_size_is_one_while():
    rng = np.random.default_rng(0)
    x, w, y = rng.standard_normal((400, 3)), rng.standard_normal((3, 4)), rng.integers(0, 4, 400)
    compiled = check(evaluate, x, w, y)
    assert count_hlo(hlo(compiled, x, w, y), "while") == 1


def test_scaled_counter_windows_and_writes():
    def f(x):
        out = np.zeros(x.shape[0] // 2)
        for k in range(x.shape[0] // 4):
            out[2 * k:2 * k + 2] = x[4 * k + 1:4 * k + 3] * 2     # both scaled windows
            x[200 - 4 * k - 4:200 - 4 * k] += 1                  # a reversed window
        return out
    x = np.arange(200.0)
    compiled = check(f, x)
    assert count_hlo(hlo(compiled, x), "while") == 1


# --- namedtuple arguments: tuples of runtime leaves ---------------------------------------

P = collections.namedtuple("P", "w b")


def test_a_new_namedtuple_each_call_compiles_once():
    compiled = tpucc.compile(lambda p, x: x @ p.w + p.b)
    x = np.ones((2, 3))
    for i in range(4):
        p = P(np.full(3, float(i)), np.array(0.5))
        np.testing.assert_array_equal(compiled(p, x), x @ p.w + p.b)
    assert len(compiled._cache) == 1


def decay(p, n):
    for _ in range(n):
        p = P(p.w * 0.9, p.b + 1)
    return p


def test_namedtuple_argument_rebound_in_a_long_static_loop_is_one_while():
    p = P(np.ones(3), np.array(0.3))
    compiled = check(decay, p, 1000)
    assert count_hlo(hlo(compiled, p, 1000), "while") == 1


def test_namedtuple_argument_rebound_in_a_runtime_loop():
    check(decay, P(np.ones(3), np.array(0.3)), 10, compile_kwargs={"runtime_args": ("n",)})


def test_namedtuple_argument_arrays_updated_in_place_are_written_back():
    def f(p):
        p.w[0] = 7.0
        p.b[...] += 1
        return p.w.sum()
    check(f, P(np.ones(3), np.zeros(())))


def test_namedtuples_of_static_numbers_still_specialize():
    Cfg = collections.namedtuple("Cfg", "scale steps")

    def f(x, cfg):
        for _ in range(cfg.steps):
            x = x * cfg.scale
        return x
    compiled = tpucc.compile(f)
    for cfg in (Cfg(2.0, 3), Cfg(0.5, 2), Cfg(2, 3)):
        out = compiled(np.ones(2), cfg)
        np.testing.assert_array_equal(out, f(np.ones(2), cfg))
        assert out.dtype == f(np.ones(2), cfg).dtype
