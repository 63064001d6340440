"""A generator runs when it is made (infer/generator_runs.py): one that reads
an array written in place before the generator is consumed would give the
values from before the write, where Python's generator reads them when
consumed.  Such a write is refused at the consumer's line (E500); views the
generator yields, written by the consumer, and writes after the generator
is consumed are fine."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc.errors as E
from conftest import raises_at, same

STALE = "an array \\(written in place\\) that a generator made at line [0-9]+ reads changed"


def doubled(a):
    for v in a:
        yield v * 2


def rows_of(img):
    for r in img:
        yield r


def written_between_next_calls(a):
    g = doubled(a)
    first = next(g)
    a[5] = 100
    return first, np.array(list(g))


def expression_written_before_list(a):
    g = (v * 2 for v in a)
    first = next(g)
    a[5] = 100
    return first, np.array(list(g))


def written_before_the_loop(a):
    g = doubled(a)
    a[5] = 100
    out = []
    for v in g:
        out.append(v)
    return np.array(out)


def written_through_a_view(m):
    g = (r.sum() for r in m)
    row = m[3]
    row += 1
    return [float(s) for s in g]


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_array_written_before_the_generator_is_consumed_is_refused(dtype):
    a = np.arange(10, dtype=dtype)
    raises_at(written_between_next_calls, (a,), E.SideEffectError, match=STALE,
              line_of="np.array(list(g))")
    raises_at(expression_written_before_list, (a,), E.SideEffectError, match=STALE,
              line_of="np.array(list(g))")
    raises_at(written_before_the_loop, (a,), E.SideEffectError, match=STALE,
              line_of="for v in g")
    raises_at(written_through_a_view, (np.ones((5, 2), dtype),), E.SideEffectError,
              match=STALE, line_of="for s in g")


def views_written_by_the_consumer(img):
    for r in rows_of(img):
        r[:] = r * 2
    return img


def views_updated_in_place(img):
    for i, r in enumerate(rows_of(img)):
        r += i
    return img.sum()


def written_after_consumed(a):
    items = list(doubled(a))
    a[0] = 7
    return np.array(items), a


def other_array_written(a, b):
    g = doubled(a)
    first = next(g)
    b[0] = 3
    return first, np.array(list(g)), b


def generator_fills_its_own_buffer(a):
    def running(x):
        acc = np.zeros(2, x.dtype)
        for v in x:
            acc[0] += v
            acc[1] = v
            yield acc.copy()
    return np.stack(list(running(a)))


@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_generators_over_arrays_still_compile(dtype):
    img = np.arange(12, dtype=dtype).reshape(6, 2)
    same(views_written_by_the_consumer, img)
    same(views_updated_in_place, img)
    a = np.arange(10, dtype=dtype)
    same(written_after_consumed, a)
    same(other_array_written, a, np.zeros(3, dtype))
    same(generator_fills_its_own_buffer, a)
