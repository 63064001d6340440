"""Session 41f: a nest of static range loops over Python numbers (Floyd-Warshall
on lists of lists) spent nearly all its compile time trying to make each
inner loop, at each of its entries, a counted While, refused alike every
time (24 nodes: 50 s).  After two refusals a loop is unrolled at once."""
from __future__ import annotations

import copy
import math

import pytest

import tpucc
from tpucc.infer import loops

from conftest import assert_same


def floyd_lists(W):
    n = len(W)
    D = [row[:] for row in W]
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if D[i][k] + D[k][j] < D[i][j]:
                    D[i][j] = D[i][k] + D[k][j]
    return D


def weights(n):
    return [[0.0 if i == j else (1.0 + (i * 7 + j * 3) % 9 if (i + 2 * j) % 3 == 0 else math.inf)
             for j in range(n)] for i in range(n)]


@pytest.mark.parametrize("n", [6, 12])
def test_floyd_warshall_on_lists_is_numpys_and_tries_few_whiles(n, monkeypatch):
    trials = []
    real = loops._try_counted

    def counting(*args, **kwargs):
        trials.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(loops, "_try_counted", counting)
    W = weights(n)
    got = tpucc.compile(floyd_lists, cache=False)(copy.deepcopy(W))
    assert_same(floyd_lists(copy.deepcopy(W)), got)
    # (was 2 per inner loop entry: 2 n ** 2; since 45C1 a static loop unrolled
    # for its structure retries one While after 2, 4, 8 and 16 iterations)
    assert len(trials) <= 12, len(trials)
