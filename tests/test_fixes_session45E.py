"""Fixes from sweep 45E (training small CNNs and MLPs with tpucc.nn and
tpucc.grad): generators whose items and consumers both index with runtime
values; frozen dataclasses bound on one runtime path only; nn pooling and
conv options computed from shapes through a small NumPy array; the message
of a runtime-bounded slice fed to an nn loss; np.roll with a runtime array
of shifts; a window slice whose start is written twice inline."""
import dataclasses

import numpy as np
import pytest

import tpucc
from tpucc import nn
from conftest import raises_at, same


# --- bug_02: a generator and its consumer both index with runtime values -----------

def test_generator_with_runtime_index_consumed_by_a_runtime_index():
    def f(z, y, perm):
        s = 0.0
        for yi in (y[p] for p in perm):
            s += z[yi]
        return s
    same(f, np.arange(5.0), np.array([3, 1]), np.array([1, 0]))
    same(f, np.arange(5, dtype=np.float32), np.array([4, 0, 2], np.int32), np.array([2, 0, 1]))


def test_generator_of_int_items_and_of_a_runtime_scalar_index():
    def ints(z, y, perm):
        return sum(z[v] for v in [int(y[p]) for p in perm]) + \
            sum(z[v] for v in (int(y[p]) for p in perm))

    def scalar(z, y, k):
        s = 0
        for yi in (y[k] for _ in range(2)):
            s += z[yi]
        return s
    same(ints, np.arange(5.0), np.array([3, 1]), np.array([1, 0]))
    same(scalar, np.arange(5), np.array([3, 1]), np.int64(1))


def test_shuffled_minibatch_generator_feeds_a_gradient_step():
    def loss(w, xb, yb):
        return nn.cross_entropy(xb @ w, yb)

    def batches(x, y, bs, perm):
        for i in range(0, x.shape[0], bs):
            idx = perm[i:i + bs]
            yield x[idx], y[idx]

    def train(w, x, y, perm):
        for xb, yb in batches(x, y, 3, perm):
            w = w - 0.1 * tpucc.grad(loss)(w, xb, yb)
        return w

    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(6, 4)), rng.normal(size=(4, 3))
    y, perm = np.array([0, 2, 1, 1, 0, 2]), rng.permutation(6)
    got = tpucc.compile(train, cache=False)(w.copy(), x, y, perm)
    expected = w.copy()
    for i in range(0, 6, 3):      # the gradient of the mean cross entropy, by hand
        xb, yb = x[perm[i:i + 3]], y[perm[i:i + 3]]
        z = xb @ expected
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        p[np.arange(3), yb] -= 1
        expected = expected - 0.1 * xb.T @ p / 3
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert got.dtype == expected.dtype


def test_map_and_pair_generators_over_a_permutation():
    def pairs(x, y, perm):
        s = 0.0
        for xi, yi in ((x[i], y[i]) for i in perm):
            s += xi[yi]
        return s

    def mapped(x, y, perm):
        out = []
        for xb, yb in map(lambda idx: (x[idx], y[idx]), perm.reshape(2, 2)):
            out.append(xb[np.arange(2), yb].sum())
        return out
    x, y = np.arange(12.0).reshape(4, 3), np.array([2, 0, 1, 2])
    same(pairs, x, y, np.array([3, 1, 0, 2]))
    same(mapped, x, y, np.array([3, 1, 0, 2]))


def test_generator_partly_consumed_with_runtime_index_checks():
    # the index checks in the generator are no change of outside state, so
    # leaving it by a runtime break is no refusal
    def f(z, y, perm):
        s = 0.0
        for yi in (y[p] for p in perm):
            if z[yi] > 2.5:
                break
            s += z[yi]
        return s
    same(f, np.arange(5.0), np.array([1, 3, 2]), np.array([0, 1, 2]))


def test_generator_reading_an_array_written_in_place_is_still_refused():
    def f(z, y, perm):
        g = (y[p] for p in perm)
        y[0] = 4
        s = 0.0
        for yi in g:
            s += z[yi]
        return s
    raises_at(f, (np.arange(5.0), np.array([3, 1]), np.array([1, 0])),
              tpucc.SideEffectError, match="written in place", line_of="for yi in g")
