"""Fixes from sweep 47I (hand-written RNGs and Monte Carlo): generators and
itertools iterators.  any(), all() and np.fromiter(count=) that stop early
over a generator changing outside state; a read, between making a
generator and consuming it, of state the generator changes; list() / tuple()
of a zip over itertools.count(), repeat() or cycle(); next() of an itertools
iterator under a runtime `if` or in a runtime loop."""
import itertools

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same


def bump(st):
    st[0] = st[0] + 1
    return st[0]


class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return self.n


# --- bug_01: consumers that stop early over a generator with side effects ----------

def test_any_over_a_generator_that_changes_state_is_refused():
    def f(st):
        return any(bump(st) > 1 for _ in range(5))
    raises_at(f, (np.array([0]),), tpucc.SideEffectError, match="any\\(\\) or all\\(\\)",
              line_of="return any", cache=False)


def test_all_over_a_generator_that_changes_state_is_refused():
    def f(st):
        return all(bump(st) < 2 for _ in range(5))
    raises_at(f, (np.array([0], np.uint32),), tpucc.SideEffectError, line_of="return all",
              cache=False)


def test_any_over_a_generator_changing_an_attribute_or_a_list_is_refused():
    def attribute(x):
        o = Counter()
        hit = any(o.bump() + x[0] > 1 for _ in range(5))
        return hit, o.n
    raises_at(attribute, (np.array([0.5]),), tpucc.SideEffectError, cache=False)

    def logged(x):
        log = []

        def h(v):
            log.append(v)
            return v
        hit = any(h(v) > 1 for v in x)
        return hit, len(log)
    raises_at(logged, (np.array([0.5, 2.0, 3.0]),), tpucc.SideEffectError, cache=False)


def test_any_over_a_map_whose_function_changes_state_is_refused():
    def f(st):
        return any(map(lambda _: bump(st) > 1, range(6)))
    raises_at(f, (np.array([0]),), tpucc.SideEffectError, match="any\\(\\) or all\\(\\)",
              line_of="return any", cache=False)


def test_any_and_all_of_pure_generators_and_maps_still_compile():
    def f(x):
        g = (v * 2 for v in x)
        return (any(v > 1 for v in x), all(v > 0 for v in g),
                any(map(lambda v: v > 2.5, x)), all(v > 0 for v in ()))
    same(f, np.array([0.5, 2.0, 3.0]))
    same(f, np.array([-1.0, 0.25], np.float32))


def test_any_decided_by_a_static_item_over_a_generator_that_changes_state_is_refused():
    # a static truth value decides at compile time, after one item: the
    # generator's changes for the other four would never happen in Python
    def f(st):
        any(bump(st) is not None for _ in range(5))
        return st
    raises_at(f, (np.array([0]),), tpucc.SideEffectError, match="consumed only 1 item",
              cache=False)


def test_any_of_a_map_decided_by_a_static_item_makes_only_the_items_before():
    def f(st):
        hit = any(map(lambda _: bump(st) is not None, range(5)))
        return hit, st
    same(f, np.array([0]))
    same(f, np.array([7], np.int32))


def test_fromiter_with_count_over_a_generator():
    def fewer(st):
        return np.fromiter((bump(st) for _ in range(5)), dtype=np.int64, count=3)
    raises_at(fewer, (np.array([0]),), tpucc.SideEffectError, match="consumed only 3",
              cache=False)

    def all_of_it(st):
        return np.fromiter((bump(st) for _ in range(3)), dtype=np.float32, count=3)
    same(all_of_it, np.array([0]))

    def pure(x):
        return np.fromiter((v * 2 for v in x), dtype=np.float32, count=2)
    same(pure, np.array([0.5, 2.0, 3.0]))
    same(pure, np.array([1, 2, 3], np.int16))


def test_fromiter_with_count_leaves_the_rest_of_a_held_generator():
    def f(x):
        g = (v + 1 for v in x)
        head = np.fromiter(g, dtype=np.float64, count=2)
        return head, list(g)
    same(f, np.array([0.5, 2.0, 3.0, 4.0]))


# --- bug_02: a read of what a generator changes, before it is consumed -------------

def gen(st):
    for _ in range(3):
        st[0] += 1
        yield st[0]


def counted(c):
    for _ in range(3):
        c.n += 1
        yield c.n


def test_reading_an_array_a_generator_writes_before_consuming_it_is_refused():
    def f(st):
        g = gen(st)
        before = int(st[0])
        return before, sum(g)
    raises_at(f, (np.array([0]),), tpucc.SideEffectError, match="is read here, but a generator",
              line_of="before = int", cache=False)

    def expression(st):
        g = (bump(st) for _ in range(3))
        before = st[0].copy()
        return before, sum(g)
    raises_at(expression, (np.array([0], np.int32),), tpucc.SideEffectError,
              line_of="before = st", cache=False)

    def partly(st):
        g = gen(st)
        first = next(g)
        return first, st[0] + 0, sum(g)
    raises_at(partly, (np.array([0]),), tpucc.SideEffectError, line_of="return first",
              cache=False)


def test_reading_an_attribute_a_generator_changes_before_consuming_it_is_refused():
    def f(x):
        c = Counter()
        g = counted(c)
        snap = c.n
        return snap, sum(g)
    raises_at(f, (np.array([0]),), tpucc.SideEffectError, match="attribute `.n`",
              line_of="snap = c.n", cache=False)


def test_reading_what_a_generator_changed_after_consuming_it_compiles():
    def f(st):
        g = gen(st)
        total = sum(g)
        return int(st[0]), total
    same(f, np.array([0]))
    same(f, np.array([5], np.int64))

    def before_made(st):
        before = int(st[0])
        g = gen(st)
        return before, list(g), st[0] * 2
    same(before_made, np.array([2]))

    def attribute(x):
        c = Counter()
        items = list(counted(c))
        return c.n, items
    same(attribute, np.array([0]))


def test_a_generator_of_its_own_buffer_still_compiles():
    def f(x):
        def rows(x):
            buf = np.zeros(2)
            for v in x:
                buf[0] = v
                buf[1] = 2 * v
                yield buf.sum()
        return [r for r in rows(x)]
    same(f, np.array([0.5, 2.0, 3.0]))


# --- bug_03: list() / tuple() of a zip over an endless itertools iterator ----------

def test_list_of_zip_with_count_repeat_cycle():
    def f(x):
        return (list(zip(itertools.count(), x)), list(zip(itertools.repeat(0.5), x)),
                tuple(zip(itertools.cycle([0, 1]), x)), list(zip(itertools.count(1, 2), x,
                                                                  itertools.repeat(x[0]))))
    same(f, np.array([0.25, 0.5]))
    same(f, np.array([1, 2, 3], np.int32))


def test_map_and_dict_of_zip_with_count():
    def f(x):
        names = ("a", "b", "c")
        return (list(map(lambda p: p[0] * p[1], zip(itertools.count(), x))),
                dict(zip(names, itertools.count(10))))
    same(f, np.array([0.25, 0.5, 4.0]))


def test_iter_of_an_endless_iterator_is_itself():
    def f(x):
        it = iter(itertools.count(5))
        a = next(it)
        return a, next(it), x[0] * a
    same(f, np.array([2.0]))


def test_loop_over_count_still_compiles():
    def f(x):
        tot = 0.0
        for i, v in zip(itertools.count(), x):
            tot += i * v
        return tot
    same(f, np.array([0.25, 0.5, 4.0]))


# --- bug_04: next() of an itertools iterator under a runtime condition --------------

def test_next_of_count_under_a_runtime_if_is_refused():
    def ids(x):
        c = itertools.count()
        out = np.zeros(len(x), np.int64)
        for i in range(len(x)):
            if x[i] > 0:
                out[i] = next(c)
        return out
    raises_at(ids, (np.array([1.0, -1.0, 2.0, 3.0]),), tpucc.StaticValueError,
              match="advanced under a runtime condition", line_of="out[i] = next(c)",
              cache=False)


@pytest.mark.parametrize("make", [
    lambda: itertools.cycle([1.0, -1.0]),
    lambda: itertools.repeat(5, 2),
    lambda: itertools.islice(itertools.count(1), 8),
    lambda: itertools.accumulate([1, 2, 3, 4, 5]),
    lambda: itertools.chain([1], [2, 3, 4, 5]),
    lambda: itertools.count(1, 2),
])
def test_next_of_itertools_iterators_under_a_runtime_if_is_refused(make):
    def f(x):
        it = make()
        tot = 0.0
        for v in x:
            if v > 0:
                tot += next(it, 0) * v
        return tot
    raises_at(f, (np.array([1.0, -1.0, 2.0, 3.0]),), tpucc.StaticValueError,
              match="advanced under a runtime condition", line_of="tot += next", cache=False)


def test_next_of_count_in_runtime_loops_is_refused():
    def in_while(x):
        c = itertools.count()
        k = 0
        while x[k] > 0:
            next(c)
            k += 1
        return next(c)
    raises_at(in_while, (np.array([1.0, -1.0, 2.0]),), tpucc.StaticValueError,
              line_of="next(c)", cache=False)

    def runtime_length(x, n):
        c = itertools.count()
        k = -1
        for _ in range(int(n[0])):
            k = next(c)
        return k
    raises_at(runtime_length, (np.array([1.0]), np.array([3])), tpucc.StaticValueError,
              line_of="k = next(c)", cache=False)


def test_next_of_itertools_iterators_outside_runtime_conditions_still_compiles():
    def f(x):
        c, cyc = itertools.count(3), itertools.cycle([1.0, -1.0])
        out = []
        for v in x:
            out.append(next(c) * v * next(cyc))
        extra = 0.0
        if x[0] > 0:
            d = itertools.count(10)         # made and advanced under one condition
            extra = x[1] * (next(d) + next(d))
        return out, extra
    same(f, np.array([1.0, -1.0, 2.0]))
