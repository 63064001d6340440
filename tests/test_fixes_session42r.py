"""`lst.sort()` and `lst.reverse()` of a list passed in (numbers, runtime
or not) rebind its items, as the item writes they are: written back to the
caller's list (refused before: E500 'changing a list passed as an
argument')."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import same


def sort_argument(xs):
    xs.sort()
    return xs[0]


def reverse_argument(xs):
    xs.reverse()
    return xs[0] + xs[-1]


def sort_descending_by_key(xs):
    xs.sort(key=lambda v: -v, reverse=False)
    return len(xs)


def sort_then_append_locally(xs):
    ys = list(xs)
    ys.sort(reverse=True)
    xs.reverse()
    return ys


def sort_under_a_runtime_if(xs, flag):
    if flag > 0:
        xs.sort()
    return xs[1]


@pytest.mark.parametrize("make", [float, np.float32, np.int64, int])
def test_sort_and_reverse_of_a_list_argument(make):
    values = [make(v) for v in (3, 1, 2, 5)]
    same(sort_argument, list(values))
    same(reverse_argument, list(values))
    if make in (float, int):    # (a key= of runtime numbers: sorted()'s refusal, E400)
        same(sort_descending_by_key, list(values))
    same(sort_then_append_locally, list(values))


def test_runtime_numbers_and_a_runtime_branch():
    x = np.array([4.0, -1.0, 2.5])
    same(sort_argument, [x[0], x[1], x[2]])
    same(sort_under_a_runtime_if, [3.0, 1.0, 2.0], np.int64(1))
    same(sort_under_a_runtime_if, [3.0, 1.0, 2.0], np.int64(0))
