"""Session 46, found while trimming the suite: a runtime `while` under
tpucc.grad searched 10,000 trial iterations for a static trip count.
(`x is not None` of an object chosen at run time, refused in between, is
test_exceptions_sweep's suppress_multiple.)"""
import numpy as np

import tpucc
from tpucc.infer import loops


def halvings(w, x):
    m, k = x.max(), 0
    while m >= 1:               # a runtime test; the Python counter changes every trip
        m = m / 2
        k += 1
    return (w * w).sum() * k


def _walks(monkeypatch, fn, *args) -> int:
    calls = []
    walk = loops.walk
    monkeypatch.setattr(loops, "walk", lambda *a, **k: calls.append(1) or walk(*a, **k))
    tpucc.compile(fn, cache=False).lower(*args)
    return len(calls)


def test_a_runtime_while_under_grad_tries_a_bounded_number_of_iterations(monkeypatch):
    grad = lambda w, x: tpucc.grad(halvings)(w, x)      # noqa: E731
    assert _walks(monkeypatch, grad, np.ones(3), np.array([3.0, 9.0, 1.0])) \
        <= 2 * loops.RUNTIME_TEST_TRIALS
    for x in (np.array([3.0, 9.0, 1.0]), np.array([0.5, 0.25, 0.0])):
        w = np.array([1.0, 2.0, 0.3])
        k = 0 if x.max() < 1 else int(np.floor(np.log2(x.max()))) + 1
        np.testing.assert_allclose(tpucc.compile(grad, cache=False)(w, x), 2 * w * k)
