"""Bugs found by session 27's sweeps: generators' returned values and
`yield from`, endless itertools iterators left by a static `break`,
runtime choices between static strings and objects, and the messages of
refusals under runtime conditions."""
import itertools

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


# --- a generator's `return value` and `yield from` ----------------------------------------

def _summing(x):
    total = 0.0
    for i in range(3):
        total += float(x[i])
        yield x[i]
    return total


def test_generator_return_value_is_stop_iteration_value():
    def f(x):
        g = _summing(x)
        acc = np.zeros(1)
        while True:
            try:
                acc = acc + next(g)
            except StopIteration as e:
                ret = e.value
                break
        return acc, ret
    check(f, np.array([1.0, 2.0, 0.5]))


def test_only_the_first_stop_iteration_holds_the_returned_value():
    def f(x):
        g = _summing(x)
        for _ in g:
            pass
        try:
            next(g)                 # the for loop met the StopIteration with the value
        except StopIteration as e:
            late = e.value, e.args
        return late
    check(f, np.array([1.0, 2.0, 0.5]))


def test_returned_runtime_value_survives_a_runtime_loop():
    def gen(x):
        total = x * 0
        for i in range(3):
            total = total + x[i]
            yield x[i]
        return total

    def f(x):
        g = gen(x)
        y = x
        first = next(g)
        while y.sum() < 100:
            y = y * 2 + first
        a, b = next(g), next(g)
        try:
            next(g)
        except StopIteration as e:
            r = e.value
        return y, a, b, r
    check(f, np.array([1.0, 2.0, 3.0]))


def test_yield_from_yields_the_items_and_gives_the_returned_value():
    def outer(x):
        s = yield from _summing(x)
        yield s
        yield from [x[0], x[1]]
        r = yield from (v + 1 for v in x)
        return r

    def f(x):
        return list(outer(x)), sum(outer(x))
    check(f, np.array([1.0, 2.0, 3.0]))


def test_yield_from_an_exhausted_generator_gives_none():
    def outer(g):
        r = yield from g
        yield r

    def f(x):
        g = _summing(x)
        list(g)
        return list(outer(g))
    check(f, np.array([1.0, 2.0, 3.0]))


def test_yield_from_under_a_runtime_condition_is_refused():
    def gen(x):
        if x.sum() > 0:
            yield from (x, x)   # <- here
        yield x

    def f(x):
        return list(gen(x))
    raises_at(f, (np.ones(2),), tpucc.UnsupportedError, "runtime condition")
