"""functools.cache / lru_cache in compiled code (sweep 42C): unhashable
arguments, cache_info / cache_clear / cache_parameters of a cache made in
the function, answers reused across the iterations of unrolled loops,
maxsize honoured, side effects refused where only run time knows whether
the cache answers, and the compile time of recursion inside loops."""
from __future__ import annotations

import functools
import time
from functools import cache, lru_cache

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same


# --- bug_01: an array argument is unhashable, as eagerly ---------------------------------

@functools.lru_cache(maxsize=None)
def _doubled(a):
    return a * 2


@functools.cache
def _halved(a):
    return a / 2


def test_array_argument_of_a_module_level_cache_raises_type_error():
    def f(x):
        return _doubled(x)

    def g(x):
        return _halved(x=x[1:])

    def in_tuple(x):
        return _doubled((1, x))
    for fn, x in ((f, np.arange(3)), (g, np.ones((2, 2), np.float32)), (in_tuple, np.ones(2))):
        with pytest.raises(TypeError):
            fn(x)
        raises_at(fn, (x,), TypeError, match="unhashable type: 'numpy.ndarray'",
                  line_of="return _", cache=False)


def test_array_argument_of_a_local_cache_raises_type_error():
    def f(x):
        @lru_cache(maxsize=None)
        def g(a):
            return a + 1
        return g(x)

    def list_of_arrays(x):
        @cache
        def g(a):
            return a[0]
        return g([x, x])
    for fn in (f, list_of_arrays):
        with pytest.raises(TypeError):
            fn(np.arange(3.0))
        raises_at(fn, (np.arange(3.0),), TypeError, match="unhashable type",
                  line_of="return g(", cache=False)


def test_runtime_scalar_arguments_stay_hashable():
    def f(x):
        @cache
        def g(v):
            return v * 3
        return g(x[0]) + g(int(x[1])) + g(float(x[2]))
    same(f, np.array([1.5, 2.0, 3.0]))
    same(f, np.array([1, 2, 3], np.int32))


# --- bug_02: cache_info, cache_clear, cache_parameters of a cache made in the function --

def test_cache_info_of_a_local_cache():
    def info(x, n=10):
        @functools.lru_cache(maxsize=None)
        def fib(k):
            return k if k < 2 else fib(k - 1) + fib(k - 2)
        v = fib(n)
        i = fib.cache_info()
        return x + v, i.hits, i.misses, i.currsize, i.maxsize is None

    def bounded(x):
        @lru_cache(maxsize=2)
        def sq(k):
            return k * k
        sq(1), sq(2), sq(1), sq(3)
        return x * sq.cache_info().currsize, tuple(sq.cache_info()), sq.cache_parameters()
    same(info, np.arange(3))
    same(bounded, np.ones(2, np.float32))


def test_cache_clear_of_a_local_cache():
    def clear(x):
        @functools.cache
        def sq(k):
            return x * k
        a = sq(7)
        sq.cache_clear()
        return a + sq(7), sq.cache_info().misses

    def counted(x):
        n = 0

        @cache
        def f(k):
            nonlocal n
            n += 1
            return k
        f(1)
        f(1)
        f.cache_clear()
        f(1)
        return x + n
    same(clear, np.arange(3.0))
    same(counted, np.zeros(2, np.int32))


def test_missing_attribute_of_a_local_cache_names_functools_wrapper():
    def f(x):
        @cache
        def g(k):
            return k
        return x + g.nope
    raises_at(f, (np.ones(2),), match="'functools._lru_cache_wrapper' object has no attribute",
              line_of="g.nope", cache=False)


def test_cache_info_after_a_runtime_branch_is_refused():
    def f(x):
        @cache
        def g(k):
            return k * 2
        v = g(1) if x[0] > 0 else 0
        return v, g.cache_info().misses
    raises_at(f, (np.ones(2),), tpucc.UnsupportedError, match="cache_info",
              line_of="cache_info()", cache=False)


# --- bug_04: answers reused across the iterations of an unrolled loop ---------------------

def test_local_cache_reused_across_unrolled_iterations():
    def counter(x):
        n = 0

        @cache
        def f(k):
            nonlocal n
            n += 1
            return k + 1
        s = 0
        for i in range(3):
            s += f(1)
        return x + s, n

    def stale(x):
        scale = 1

        @cache
        def f(k):
            return k * scale
        tot = 0
        for i in range(3):
            tot += f(2)
            scale += 1
        return x + tot

    def stale_generator(x):
        scale = 2

        @lru_cache(maxsize=None)
        def f(k):
            return k * scale
        tot = 0
        for i in range(3):
            tot += sum(f(j) for j in range(2))
            scale += 1
        return x * tot
    same(counter, np.zeros(2))
    same(stale, np.zeros(1, np.int64))
    same(stale, np.zeros(3, np.float32))
    same(stale_generator, np.ones(2))


def test_top_down_dp_with_a_loop_over_choices_compiles_fast():
    def b(x):
        @cache
        def s(n):
            if n == 0:
                return 1
            t = 0
            for k in range(n):
                t += s(k)
            return t
        return x + s(12)

    def matrix_chain(dims):
        d = (3, 5, 2, 7, 4, 6, 3, 5)

        @cache
        def cost(i, j):
            if i == j:
                return 0
            return min(cost(i, k) + cost(k + 1, j) + d[i] * d[k + 1] * d[j + 1]
                       for k in range(i, j))
        return dims * cost(0, len(d) - 2)

    def egg(x):
        @cache
        def d(e, f):
            if f <= 1 or e == 1:
                return f
            return 1 + min(max(d(e - 1, k - 1), d(e, f - k)) for k in range(1, f + 1))
        return x + d(2, 20)
    start = time.time()
    same(b, np.zeros(2, np.int64))
    same(matrix_chain, np.ones(2, np.int32))
    same(egg, np.zeros(2, np.int8))
    assert time.time() - start < 60


# --- bug_05: maxsize honoured ------------------------------------------------------------

def test_lru_cache_maxsize_evicts_as_eagerly():
    def one(x):
        log = []

        @lru_cache(maxsize=1)
        def sq(k):
            log.append(k)
            return k * k
        a = sq(1) + sq(2) + sq(1) + sq(2)
        return x + a, log

    def two(x):
        log = []

        @lru_cache(2)
        def sq(k):
            log.append(k)
            return k * k
        a = sq(1) + sq(2) + sq(1) + sq(3) + sq(2) + sq(1)
        return x + a, log

    def none_kept(x):
        n = 0

        @lru_cache(maxsize=0)
        def f(k):
            nonlocal n
            n += 1
            return k
        return x + f(1) + f(1) + f(1), n

    def mutated_answer(x):
        @lru_cache(maxsize=1)
        def row(k):
            return [k]
        a = row(1)
        a.append(5)
        row(2)
        return x + len(row(1)), len(a)
    same(one, np.zeros(2))
    same(two, np.zeros(3, np.int32))
    same(none_kept, np.zeros(2))
    same(mutated_answer, np.zeros(1))


# --- bug_08: side effects refused where only run time knows whether the cache answers ----

def test_side_effect_of_a_cached_function_in_a_runtime_loop_is_refused():
    def nonlocal_count(x):
        n = 0

        @cache
        def g(k):
            nonlocal n
            n += 1
            return k * 2
        s = 0.0
        while s < x[0]:
            s += g(3)
        return s, n

    def item_count(x):
        counts = {"n": 0}

        @lru_cache(maxsize=None)
        def g(k):
            counts["n"] += 1
            return k * 2
        s = 0.0
        while s < x[0]:
            s += g(3)
        return s, counts
    for fn in (nonlocal_count, item_count):
        raises_at(fn, (np.array([20.0]),), tpucc.SideEffectError,
                  match="cached function .* changes outside state", line_of="s += g(3)",
                  cache=False)


def test_side_effect_after_a_runtime_if_that_may_have_called_it_is_refused():
    def f(x):
        n = 0

        @cache
        def g(k):
            nonlocal n
            n += 1
            return k
        a = g(1) if x[0] > 0 else 0
        b = g(1)
        return x + a + b, n
    raises_at(f, (np.ones(2),), tpucc.SideEffectError, match="changes outside state",
              line_of="b = g(1)", cache=False)


_LOG = []


@cache
def _logged(k):
    _LOG.append(k)
    return k * 2


def test_side_effect_of_a_cache_called_with_runtime_arguments_is_refused():
    def module_level(x):
        s = 0
        for i in range(3):
            s += _logged(int(x[i]))
        return s

    def local(x):
        seen = {}

        @cache
        def g(k):
            seen["last"] = k
            return k
        return g(x[0])
    raises_at(module_level, (np.array([1, 1, 1]),), tpucc.SideEffectError,
              match="changes outside state", line_of="_logged(", cache=False)
    assert _LOG == []
    raises_at(local, (np.array([1, 2]),), tpucc.SideEffectError,
              match="changes outside state", line_of="return g(", cache=False)


def test_pure_cached_functions_still_compile_under_runtime_control_flow():
    def loop(x):
        @cache
        def g(k):
            return x[k] * 2
        s = 0.0
        while s < 20.0:
            s += g(1)
        return s

    def branch(x):
        @lru_cache(maxsize=1)
        def g(k):
            return x[k] + 1
        a = g(0) if x[1] > 0 else g(1)
        return a + g(0) + g(1)

    def runtime_arg(x):
        @cache
        def g(k):
            return x * k
        return g(x[0]) + g(x[1])
    same(loop, np.array([1.0, 3.0]))
    for x in (np.array([1.0, 3.0]), np.array([1.0, -3.0])):
        same(branch, x)
    same(runtime_arg, np.array([2, 3]))


def test_cached_function_made_inside_a_runtime_loop_runs_its_effects_each_iteration():
    def f(x):
        total = 0.0
        calls = 0
        while total < x[0]:
            n = 0

            @cache
            def g(k):
                nonlocal n
                n += 1
                return k
            total += g(2) + g(2) + n
            calls += 1
        return total, calls
    same(f, np.array([10.0]))


# --- bug_10: recursion inside a static loop compiles fast --------------------------------

def test_top_down_tsp_over_four_cities_compiles_fast():
    def tsp(D):
        n = D.shape[0]

        def go(mask, last):
            if mask == (1 << n) - 1:
                return D[last, 0]
            best = np.inf
            for k in range(n):
                if not mask & (1 << k):
                    best = np.minimum(best, D[last, k] + go(mask | (1 << k), k))
            return best
        return go(1, 0)

    def tsp_cached(D):
        n = D.shape[0]

        @cache
        def go(mask, last):
            if mask == (1 << n) - 1:
                return D[last, 0]
            best = np.inf
            for k in range(n):
                if not mask & (1 << k):
                    best = np.minimum(best, D[last, k] + go(mask | (1 << k), k))
            return best
        return go(1, 0)
    D = np.random.default_rng(4).random((4, 4))
    start = time.time()
    same(tsp, D)
    same(tsp_cached, D.astype(np.float32))
    assert time.time() - start < 60


def test_generator_rebinding_a_nonlocal_and_consumed_in_part_is_refused():
    # run to its end when made, it would count 3 where Python's counts 1
    def partly(x):
        count = 0

        def gen():
            nonlocal count
            for i in range(3):
                count += 1
                yield i
        g = gen()
        return x + next(g), count

    def fully(x):
        count = 0

        def gen():
            nonlocal count
            for i in range(3):
                count += 1
                yield i
        return x + sum(gen()), count
    raises_at(partly, (np.ones(2),), tpucc.SideEffectError, match="`nonlocal` or global",
              cache=False)
    same(fully, np.ones(2))
