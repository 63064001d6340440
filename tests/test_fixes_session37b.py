"""Bugs from sweeps 37b, 37c and 37d, fixed in session 37b.

PYTEST_DONT_REWRITE: compiled functions here use `assert`, which pytest
would rewrite into calls of its own.
"""
import functools
import warnings

import numpy as np
import pytest

import tpucc
from conftest import assert_same, check, raises_at


def test_chained_comparison_assert_is_a_runtime_check():
    # `0 <= a < n` fails through a POP_TOP block (0 <= a false) and a JUMP
    # block (a < n false): both lead to the raise, which becomes a check
    def act(a, n):
        assert 0 <= a < n, f"invalid action {a}"   # <- here
        return a * 2

    def act_nomsg(a, n):
        assert 0 <= a < n
        return a * 2

    def act_raise(a, n):
        if not (0 <= a < n):
            raise ValueError(f"invalid action {a}")
        return a * 2
    for f in (act, act_nomsg, act_raise):
        check(f, np.int64(2), 4)
    for a in (-1, 7):
        raises_at(act, (np.int64(a), 4), AssertionError, f"invalid action {a}",
                  line_of="<- here")
    with pytest.raises(AssertionError):
        tpucc.compile(act_nomsg)(np.int64(4), 4)
    with pytest.raises(ValueError, match="invalid action -3"):
        tpucc.compile(act_raise)(np.int64(-3), 4)


def test_runtime_number_in_a_range():
    # range.__contains__: between the ends and on the step's grid; a float
    # equal to an item is in it; no wrapping of small unsigned dtypes
    def valid(a, r):
        return a in r, a not in r
    # (one compiled fn per range: the numbers of one dtype share its program)
    for r in (range(4), range(0), range(2, 11, 3), range(10, -5, -4), range(-3, 9, 3)):
        compiled = tpucc.compile(valid, cache=False)
        for a in (np.int64(2), np.int64(5), np.int64(-3), np.float64(2.0), np.float64(2.5),
                  np.uint8(2), np.int64(10), np.float32(np.nan), np.int32(-2)):
            assert_same(valid(a, r), compiled(a, r))

    def step(a):
        if a in range(4):
            return a + 1
        return a - 1
    compiled = tpucc.compile(step, cache=False)
    for a in (np.int64(2), np.int64(7)):
        assert_same(step(a), compiled(a))


def test_range_of_a_one_element_array_or_numpy_bool_is_a_type_error():
    # eager: ndarray.__index__ wants a 0-d array, and numpy.bool has no __index__
    def total(x, n):
        s = 0
        for i in range(n):   # <- here
            s += x[i]
        return s
    x = np.arange(1, 11)
    raises_at(total, (x, np.array([3])), TypeError, "only integer scalar arrays",
              line_of="<- here")
    raises_at(total, (x, np.bool_(True)), TypeError, "'numpy.bool' object cannot be",
              line_of="<- here")
    check(total, x, np.array(3))
    check(total, x, np.int32(3))

    def hinted(x, n, flag):     # the hints' forms, and a Python bool
        s = 0
        for i in range(n[0]):
            s += x[i]
        for i in range(int(flag)):
            s += x[i]
        for i in range(bool(n.sum())):
            s += x[i]
        return s
    check(hinted, x, np.array([3]), np.bool_(True))


def test_np_isscalar_of_runtime_values():
    # a NumPy scalar (x.sum(), x[0]) or a Python number is one, an array or a
    # 0-d array is not; a kind runtime branches chose is read at run time
    def f(x, c):
        s = x.sum()
        z = np.zeros(())
        chosen = x[0] if c > 0 else z
        return (np.isscalar(s), np.isscalar(x), np.isscalar(x[0]), np.isscalar(z),
                np.isscalar(float(x[0])), np.isscalar(x[:1]), np.isscalar(z[()]),
                np.isscalar(chosen), s * 2 if np.isscalar(s) else s)
    for c in (1, -1):
        check(f, np.ones(3), np.int64(c))


def test_cache_made_inside_the_function_memoizes_the_recursion():
    # a cache made in the call dies with it: no state outlives the call;
    # fib(30) interprets 31 calls, not 1.6 million
    def scaled(x):
        @functools.cache
        def fib(k):
            return k if k < 2 else fib(k - 1) + fib(k - 2)
        return x * fib(30)
    check(scaled, np.arange(3.0))

    def edit_distance(a, b):
        @functools.lru_cache(maxsize=None)
        def go(i, j):
            if i == 0 or j == 0:
                return i + j
            cost = np.where(a[i - 1] == b[j - 1], 0, 1)
            return min(go(i - 1, j) + 1, go(i, j - 1) + 1, go(i - 1, j - 1) + cost)
        return go(len(a), len(b))
    check(edit_distance, np.array([1, 2, 3, 4, 5]), np.array([1, 3, 4, 6]))


def test_local_cache_answers_are_reused_only_where_their_values_exist():
    # g(1) first computed in the runtime `if`'s arm is computed again after
    # it; runtime arguments trace each call; typed= and __wrapped__ work
    def branchy(x, c):
        @functools.lru_cache
        def g(k):
            return x[k] * 2
        r = g(1) + g(1) if c > 0 else g(1) - g(2)
        return r + g(1) + g.__wrapped__(0)

    def runtime_argument(x, n):
        @functools.cache
        def sq(k):
            return x[k] * k
        return sq(n) + sq(n)

    def typed(x):
        @functools.lru_cache(typed=True)
        def f(k):
            return x * k
        return f(1), f(1.0), f(True)
    for c in (1, -1):
        check(branchy, np.arange(3.0), np.int64(c))
    check(runtime_argument, np.arange(3.0), np.int64(2))
    check(typed, np.arange(3.0))


def test_runtime_branch_choosing_a_runtime_slice_names_it_and_its_hint_works():
    def part_sum(x, n, c):
        seg = x[:n] if c > 0 else x[n:]   # <- here
        return seg.sum()

    def hinted(x, n, c):
        s = x[:n].sum() if c > 0 else x[n:].sum()
        ar = np.arange(len(x))
        lo, hi = (0, n) if c > 0 else (n, len(x))
        return s, np.where((lo <= ar) & (ar < hi), x, 0).sum()
    args = (np.arange(10.0), np.int64(4), np.int64(1))
    err = raises_at(part_sum, args, tpucc.MergeError,
                    r"x\[i:j\], a slice with runtime bounds, on some path", line_of="<- here")
    assert "Selection" not in str(err) and "attributes" not in err.hint
    check(hinted, *args)
    check(hinted, np.arange(10.0), np.int64(4), np.int64(-1))


def test_ufunc_out_into_a_slice_with_runtime_bounds():
    # the 0/1 knapsack row update: out= overlapping an input reads it whole
    # first (NumPy buffers), and the call returns out
    def knap01(dp, w, v):
        n = dp.shape[0]
        for k in range(w.shape[0]):
            np.maximum(dp[w[k]:], dp[:n - w[k]] + v[k], out=dp[w[k]:])
        return dp
    check(knap01, np.zeros(10, np.int64), np.array([2, 3]), np.array([5, 7]))

    def returned(x, n):
        r = np.multiply(x[n:], 2, out=x[n:])
        s = np.add(x[x > 3], 1, out=x[x > 3])       # a copy: x keeps its values
        return r.sum(), s.sum(), x
    check(returned, np.arange(6.0), np.int64(2))

    def widening(x, n):
        np.add(x[n:], 0.5, out=x[n:])   # <- here
        return x
    raises_at(widening, (np.arange(6), np.int64(2)), tpucc.DTypeError, "same_kind",
              line_of="<- here")


def test_rows_of_a_runtime_slice_one_by_one_hint_the_index_loop_that_compiles():
    def sq_sum(dp, n):
        s = 0
        for v in dp[:n]:   # <- here
            s += v * v
        return s

    def last(dp, n):
        return dp[:n][-1]   # <- here

    def hinted(dp, n):
        s = 0
        for k in range(n):
            v = dp[k]
            s += v * v
        return s, dp[n - 1], np.sum(dp[:n]), dp[:n].max()
    args = (np.array([3, 1, 4, 1, 5, 9, 2]), np.int64(5))
    err = raises_at(sq_sum, args, tpucc.ShapeError, "iterating over x", line_of="<- here")
    assert "for k in range(n)" in err.hint
    check(hinted, *args)
    check(last, *args)          # one row by an int: compiles (its position found at run time)


def test_generator_over_a_runtime_range_hints_the_loop():
    # (sum() of it is one runtime loop now: test_fixes_session48N3; list() is refused)
    def refused(x, n):
        return list(x[i] for i in range(int(n)))

    def hinted(x, n):
        acc = 0
        for i in range(n):
            acc += x[i]
        return acc, np.where(np.arange(len(x)) < n, x, 0).sum()
    err = raises_at(refused, (np.arange(40.0), np.int64(30)), tpucc.UnsupportedError,
                    "a generator expression whose `for` or `if` depends on runtime values")
    assert "for i in range(n): acc += x[i]" in err.hint and "np.where(c" not in err.hint
    check(hinted, np.arange(40.0), np.int64(30))


def test_update_after_a_zero_trip_while_names_the_loop_not_an_if():
    # CPython compiles a `while`'s first test as an `if` before the loop
    def f(x, n):
        r = x
        i = 0
        while i < n:
            r = r * 2
            i += 1
        r[0] = 5   # <- here
        return r
    err = raises_at(f, (np.ones(3), np.int64(2)), tpucc.SideEffectError,
                    r"from before the `while` loop of line \d+", line_of="<- here")
    assert "`if`" not in err.message

    def g(x, c):        # an `if` is still called one
        r = x
        if c > 0:
            r = r * 2
        r[0] = 5
        return r
    raises_at(g, (np.ones(3), np.int64(2)), tpucc.SideEffectError, "before the `if`")


def test_huge_constant_cast_to_float32_while_compiling_warns_nothing():
    # 1e300 in float32 is inf; NumPy's overflow warning from jax's (or
    # tpucc's) cast of the constant used to reach the user while compiling
    def merged(x):
        y = 1e300
        if x.sum() > 0:
            y = x.sum()
        return y

    def added(x):
        return np.where(x > 0, x, 1e300)
    x = np.ones(3, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        out = tpucc.compile(added, cache=False)(x)
        with pytest.raises(tpucc.MergeError, match="E300"):   # (1e300 does not fit float32)
            tpucc.compile(merged, cache=False)(x)
    with np.errstate(over="ignore"):
        assert_same(added(x), out)
