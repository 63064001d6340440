"""`for i in reversed(range(n))` (backward substitution, backprop through
time), `for r in reversed(xs)`, `zip(range(n), range(...))` and
`enumerate(range(a, b))` are loops over indices, as `range(n - 1, -1, -1)`
and `xs[::-1]` are: a long one is one counted While; results equal NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check


def backward_substitution(u, b):
    n = len(b)
    x = np.zeros(n)
    for i in reversed(range(n)):
        x[i] = (b[i] - u[i, i + 1:] @ x[i + 1:]) / u[i, i]
    return x


def reversed_rows(x):
    s, out = np.zeros(x.shape[1]), []
    for r in reversed(x):
        s = s * 0.5 + r
        out.append(s.sum())
    return s, out


def reversed_rows_written(x):
    for r in reversed(x):
        x[0] = x[0] + r             # each row is read when the loop gets to it
    return x


def zipped_ranges(x):
    s = 0.0
    for i, j in zip(range(len(x)), range(len(x) - 1, -1, -1)):
        s = s + x[i, 0] * x[j, 1]
    return s


def enumerated_range(x):
    s = 0.0
    for k, i in enumerate(range(2, len(x))):
        s = s + k * x[i, 0]
    return s


def reversed_iterator_used_by_hand(x):
    it = reversed(range(len(x)))
    first = next(it)                # not straight into a loop: Python's iterator
    return first, [x[i, 0] for i in it][:3]


N = 60


@pytest.mark.parametrize("fn", [reversed_rows, reversed_rows_written, zipped_ranges,
                                enumerated_range, reversed_iterator_used_by_hand])
def test_loops_over_indices_match_numpy(fn):
    check(fn, np.random.default_rng(5).standard_normal((N, 3)))


@pytest.mark.parametrize("fn", [reversed_rows, reversed_rows_written, zipped_ranges,
                                enumerated_range])
def test_long_ones_are_one_while(fn):
    ir = tpucc.compile(fn).lower(np.ones((N, 3))).ir()
    assert ir.count("= while(") == 1


def test_backward_substitution():
    rng = np.random.default_rng(6)
    u = np.triu(rng.standard_normal((N, N))) + np.eye(N) * N
    b = rng.standard_normal(N)
    check(backward_substitution, u, b, rtol=1e-10)
