"""A `for` loop over a held map, filter or zip (`m = map(f, a)` ...
`for v in m:`) steps the iterator: a static `break` leaves the rest of it
for a later list(m) or next(m) (the loop drained it: silently []); a
runtime `break` leaves it where only the run knows (E400 where it is read
again); a write in the loop to an array its function reads is refused
(E500), as for a generator."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc.errors as E
from conftest import raises_at, same


def map_after_break(a):
    m = map(lambda v: v * 2, a)
    for v in m:
        break
    return np.array(list(m))


def map_enumerated(a):
    m = map(lambda v: v + 1, a)
    for i, v in enumerate(m):
        if i == 1:
            break
    return next(m), np.array(list(m))


def zip_enumerated(a):
    z = zip(a, a * 2)
    for i, (u, v) in enumerate(z):
        if i == 1:
            break
    return len(list(z))


def two_loops(a):
    m = map(lambda v: v - 1, a)
    first = []
    for v in m:
        first.append(v)
        if len(first) == 2:
            break
    rest = [v * 10 for v in m]
    return np.array(first), np.array(rest)


def filter_zipped(a, b):
    kept = filter(lambda p: p[0] != 2, zip(a, b))
    out = []
    for u, v in kept:
        out.append(u * v)
        if len(out) == 2:
            break
    return np.array(out), len(list(kept))


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_held_iterators_stand_where_the_loop_left_them(dtype):
    a = np.arange(6, dtype=dtype)
    for fn in (map_after_break, map_enumerated, zip_enumerated, two_loops):
        same(fn, a)
    same(filter_zipped, [1, 2, 3, 4, 5], [5, 4, 3, 2, 1])


def runtime_break(a):
    m = map(lambda v: v + 1, a)
    for v in m:
        if v > 2.5:
            break
    return np.array(list(m))


def body_writes_what_map_reads(a):
    m = map(lambda v: v * 3, a)
    out = []
    for i, v in enumerate(m):
        out.append(v)
        if i + 1 < len(a):
            a[i + 1] = -1
    return np.array(out)


def test_what_compiled_code_cannot_match_is_refused():
    a = np.arange(6.0)
    raises_at(runtime_break, (a,), E.StaticValueError, match="advanced under a runtime",
              line_of="np.array(list(m))")
    raises_at(body_writes_what_map_reads, (a,), E.SideEffectError,
              match="an array \\(written in place\\) that a map iterator", line_of="for i, v in")
