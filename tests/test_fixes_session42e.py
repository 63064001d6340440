"""`enumerate(it)` and `zip(it, xs)` over an iterator the program holds (a
generator, iter(x)), straight in a `for` loop: the loop advances that
iterator as it takes each item, so a static `break` leaves the rest of it
where Python's leaves it (the whole iterator was drained, silently)."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc.errors as E
from conftest import raises_at, same


def doubled(a):
    for v in a:
        yield v * 2


def enumerate_then_rest(a):
    g = doubled(a)
    for i, v in enumerate(g):
        if i == 2:
            break
    return np.array(list(g))


def enumerate_from_a_start(a):
    g = doubled(a)
    next(g)
    out = []
    for i, v in enumerate(g, 10):
        out.append(i * v)
        if i == 12:
            break
    return np.array(out), np.array(list(g))


def enumerate_array_iterator(a):
    it = iter(a)
    next(it)
    for i, v in enumerate(it):
        if i == 1:
            break
    return np.array(list(it))


def enumerate_to_the_end(a):
    g = doubled(a)
    s = a[0] * 0
    for i, v in enumerate(g):
        s += i * v
    return s, list(g)


def enumerate_zip_then_rest(a):
    g = (v + 1 for v in a)
    for i, (x, y) in enumerate(zip(g, a)):
        if i == 2:
            break
    return np.array(list(g))


def zip_shorter_array(a):
    g = doubled(a)
    next(g)
    s = a[0] * 0
    for x, y in zip(g, a[:3]):
        s += x * y
    return s, np.array(list(g))


def zip_with_itself(a):
    g = doubled(a)
    t = a[0] * 0
    for x, y in zip(g, g):
        t += x - y
    return t


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_held_iterator_stands_where_the_loop_left_it(dtype):
    a = np.arange(7, dtype=dtype)
    for fn in (enumerate_then_rest, enumerate_from_a_start, enumerate_array_iterator,
               enumerate_to_the_end, enumerate_zip_then_rest, zip_shorter_array,
               zip_with_itself):
        same(fn, a)


def runtime_break_then_rest(a):
    g = doubled(a)
    for i, v in enumerate(g):
        if v > 4:
            break
    return np.array(list(g))


def test_runtime_break_leaves_it_where_only_the_run_knows():
    raises_at(runtime_break_then_rest, (np.arange(6.0),), E.StaticValueError,
              match="advanced under a runtime condition", line_of="np.array(list(g))")
