"""bisect's and heapq's C functions run as the pure-Python versions those
modules ship (infer/pure_stdlib.py): a binary search of a runtime value
compiles (it was refused: C code cannot read runtime values), and a heap of
Python numbers known at compile time is ordered while compiling."""
from __future__ import annotations

import bisect
import heapq

import numpy as np
import pytest

import tpucc
from conftest import same


def positions(a, xs):
    return [bisect.bisect_left(a, x) + 10 * bisect.bisect_right(a, x) for x in xs]


def position_in_list(x):
    grid = [1.0, 2.0, 2.0, 4.0, 8.0]
    return bisect.bisect(grid, x), bisect.bisect_left(grid, x, lo=1, hi=4)


def keyed(a, x):
    return bisect.bisect_left(a, x, key=lambda v: -v)


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.uint8])
def test_bisect_of_runtime_values(dtype):
    a = np.array([1, 3, 3, 5, 7, 9], dtype)
    same(positions, a, np.array([0, 3, 4, 9, 10], dtype))
    same(position_in_list, np.float64(2.0))
    same(position_in_list, 5)
    same(keyed, a[::-1].copy(), dtype(4))


def static_heap(x):
    h = [5, 1, 4, 2]
    heapq.heapify(h)
    heapq.heappush(h, 0)
    smallest = [heapq.heappop(h) for _ in range(3)]
    return x * smallest[0] + x.sum() * smallest[2], h


def test_heap_of_static_numbers():
    same(static_heap, np.arange(4.0))


def runtime_heap(x):
    h = [x[0], x[1], x[2]]
    heapq.heapify(h)
    return h[0]


def test_heap_of_runtime_values_is_refused_at_the_call():
    with pytest.raises(tpucc.TpuccError, match="heapq.heapify on items whose order depends on "
                                                 "runtime values"):
        tpucc.compile(runtime_heap, cache=False)(np.array([5, 1, 4]))
