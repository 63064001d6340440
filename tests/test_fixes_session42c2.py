"""Session 42c2: recursion and dynamic programming (sweep C).

- A recursion whose end only runtime ints decide (a recursive binary
  search, a quicksort with a runtime pivot) is refused at its first repeat
  with the explicit-stack hint (it inlined 100 levels, 6 s, then gave a
  hint about summing list items): the runtime ints each level computes
  (`mid + 1`) are compared by how they relate to the other arguments.
- A memoized top-down dynamic program refused for its work (E600) says
  that its cache does not help there and how to write the table bottom-up.
- An exception raised by a generator that max()/min() read is raised as
  Python raises it (it became "max() arg is an empty sequence").
- `T[i] = max(T[i], T[i - 1] + w[i])` of an int32 table and int64 weights
  compiles (E300): only the store's cast is seen of the picked item.
"""
from __future__ import annotations

import copy
import functools
import inspect

import numpy as np
import pytest

import tpucc
from tpucc.errors import LimitError, MergeError, UserCodeError

from conftest import assert_same, raises_at


def refused_in(callee, text, fn, args, error, match):
    """raises_at for an error at the line of `callee` (called by `fn`)
    that holds `text`."""
    err = raises_at(fn, args, error, match, cache=False)
    lines, start = inspect.getsourcelines(callee)
    assert err.loc.line in [start + i for i, l in enumerate(lines) if text in l], str(err)
    return err


def same(fn, *args):
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    assert_same(fn(*eager_args), tpucc.compile(fn, cache=False)(*comp_args))
    assert_same(eager_args, comp_args)


# --- bug_03: recursion that only runtime ints could end ----------------------

def bs(x, v, lo, hi):
    if lo >= hi:
        return lo
    mid = (lo + hi) // 2
    if x[mid] < v:
        return bs(x, v, mid + 1, hi)
    return bs(x, v, lo, mid)


def search(x, v, n):
    return bs(x, v, 0, n)


def search_from_runtime_lo(x, v, n):
    return bs(x, v, n - n, n)


def lower_bound_left_first(x, v, lo, hi):
    if hi - lo < 1:
        return lo
    mid = (lo + hi) // 2
    if x[mid] >= v:
        return lower_bound_left_first(x, v, lo, mid)
    return lower_bound_left_first(x, v, mid + 1, hi)


def search_left_first(x, v, n):
    return lower_bound_left_first(x, v, 0, n)


def search_static_bounds(x, v):
    return lower_bound_left_first(x, v, 0, x.shape[0])


def partition(a, lo, hi):
    p = a[hi]
    i = lo
    for j in range(lo, hi):
        if a[j] < p:
            a[i], a[j] = a[j], a[i]
            i += 1
    a[i], a[hi] = a[hi], a[i]
    return i


def quicksort_rec(a, lo, hi):
    if lo < hi:
        p = partition(a, lo, hi)
        quicksort_rec(a, lo, p - 1)
        quicksort_rec(a, p + 1, hi)


def quicksort(a):
    quicksort_rec(a, 0, len(a) - 1)
    return a


@pytest.mark.parametrize("fn, args, line", [
    (search, (np.array([1, 3, 5, 7, 9]), 6, np.int64(5)), "return bs(x, v, mid + 1, hi)"),
    (search, (np.array([0.5, 1.5]), np.float64(1.0), np.int32(2)),
     "return bs(x, v, mid + 1, hi)"),
    (search_from_runtime_lo, (np.arange(6), 2, np.int64(6)), "return bs(x, v, mid + 1, hi)"),
])
def test_binary_search_on_runtime_bounds_refused_at_once(fn, args, line):
    err = refused_in(bs, line, fn, args, LimitError, "only runtime data could end this recursion")
    assert "stack" in err.hint
    assert "total = 0.0" not in err.hint


def test_binary_search_left_call_first_refused_at_once():
    refused_in(lower_bound_left_first, "return lower_bound_left_first(x, v, lo, mid)",
               search_left_first, (np.array([1, 3, 5, 7]), np.int64(4), np.int64(4)),
               LimitError, "only runtime data could end this recursion")


@pytest.mark.parametrize("v", [0, 4, 9])
def test_binary_search_on_static_bounds_compiles(v):
    same(search_static_bounds, np.array([1, 3, 5, 7]), np.int64(v))


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_quicksort_with_runtime_pivot_refused_at_once(dtype):
    refused_in(quicksort_rec, "quicksort_rec(a, lo, p - 1)", quicksort,
               (np.array([3, 1, 2, 5], dtype),), LimitError,
               "only runtime data could end this recursion")


def down(a, lo, hi):
    if lo < hi:
        a[lo] += 1
        down(a, lo + 1, hi)


def count_up(a, k):
    down(a, 0, k)
    return a


def test_static_counter_against_runtime_bound_gets_the_stack_hint():
    # (a static lo could end it, so it is left to the depth budget; the
    # message then says each call sat inside a runtime `if`)
    err = refused_in(down, "down(a, lo + 1, hi)", count_up, (np.zeros(4, np.int64), np.int64(2)),
                     LimitError, "down calls itself, 99 calls deep, each call inside a runtime `if`")
    assert "array used as a stack" in err.hint
    assert "total = 0.0" not in err.hint


def walk(x, k, n):
    if n == 0:
        return x + k
    if x[0] > k:                # k + 1: a runtime int each level makes
        return walk(x - 1, k + 1, n - 1)
    return walk(x + 1, k + 2, n - 1)


def walks(x, k):
    return walk(x, k, 5)


@pytest.mark.parametrize("x", [np.full(2, 9.0), -np.ones(2)])
def test_runtime_int_counted_beside_static_depth_compiles(x):
    same(walks, x, np.int64(1))


def fib(x, n):
    if n < 2:
        return x
    if x[0] > 0:
        return fib(x + 1, n - 1)
    return fib(x - 1, n - 2)


@pytest.mark.parametrize("x", [np.ones(1), -np.ones(1)])
def test_static_recursion_under_runtime_if_still_compiles(x):
    same(fib, x, 8)


# --- bug_06: memoized top-down DP under a runtime `if` -----------------------

def jump(x):
    n = len(x)

    @functools.cache
    def best(i):
        if i >= n:
            return 0.0
        if x[i] > 0:
            return x[i] + best(i + 1)
        return best(i + 2) - 1.0
    return best(0)


def jump_lru(x):
    n = len(x)

    @functools.lru_cache(maxsize=None)
    def best(i, bonus):
        if i >= n:
            return bonus
        if x[i] > 0:
            return x[i] + best(i + 1, bonus)
        return best(i + 2, bonus) - 1.0
    return best(0, 0.5)


@pytest.mark.parametrize("fn", [jump, jump_lru])
def test_memoized_dp_over_runtime_branches_says_to_fill_a_table(fn):
    err = raises_at(fn, (np.sin(np.arange(16) * 1.3),), LimitError,
                    r"its cache \(functools.cache / lru_cache\) does not help", cache=False)
    assert "bottom-up" in err.hint and "dp[i]" in err.hint


def test_module_level_cache_of_an_array_argument_raises_as_eagerly():
    # (functools.cache hashes its arguments: an array is unhashable, session 42c1)
    raises_at(jump_module_cache, (np.sin(np.arange(16) * 1.3),), UserCodeError,
              "unhashable type: 'numpy.ndarray'", cache=False)


@functools.cache
def best_of(x, i):
    if i >= x.shape[0]:
        return 0.0
    if x[i] > 0:
        return x[i] + best_of(x, i + 1)
    return best_of(x, i + 2) - 1.0


def jump_module_cache(x):
    return best_of(x, 0)


def jump_plain(x):
    n = len(x)

    def best(i):
        if i >= n:
            return 0.0
        if x[i] > 0:
            return x[i] + best(i + 1)
        return best(i + 2) - 1.0
    return best(0)


def test_unmemoized_recursion_keeps_the_stack_hint():
    err = raises_at(jump_plain, (np.sin(np.arange(16) * 1.3),), LimitError,
                    "more than the 8000", cache=False)
    assert "does not help" not in str(err)
    assert "used as a stack" in err.hint


def jump_table(x):
    """The bottom-up table the hint describes."""
    n = len(x)
    dp = np.zeros(n + 2)
    for i in range(n - 1, -1, -1):
        dp[i] = np.where(x[i] > 0, x[i] + dp[i + 1], dp[i + 2] - 1.0)
    return dp[0]


@pytest.mark.parametrize("n", [16, 40])
def test_bottom_up_table_of_the_hint_compiles(n):
    x = np.sin(np.arange(n) * 1.3)
    assert jump_table(x) == pytest.approx(jump(x))
    same(jump_table, x)


# --- bug_09: a generator's exception inside max()/min() ----------------------

def boom(v):
    raise KeyError(v)


def late(v):
    if v > 1:
        raise KeyError(v)
    return v


def caught_max(x):
    try:
        return x * max(boom(v) for v in (1, 2))
    except KeyError:
        return x - 1


def caught_min(x):
    try:
        return x * min(boom(v) for v in (1, 2))
    except KeyError:
        return x - 1


def caught_keyed(x):
    try:
        return x * max((boom(v) for v in (1, 2)), key=abs)
    except KeyError:
        return x - 1


def caught_with_default(x):
    try:
        return x * min((boom(v) for v in (1, 2)), default=0)
    except KeyError:
        return x - 1


def caught_after_items(x):
    try:
        return x * max(x[0] + late(v) for v in (0, 1, 2))
    except KeyError as e:
        return x - e.args[0]


def caught_runtime_items(x):
    try:
        return x * min(x[i] * boom(i) for i in range(2))
    except KeyError as e:
        return x + e.args[0]


@pytest.mark.parametrize("fn", [caught_max, caught_min, caught_keyed, caught_with_default,
                                caught_after_items, caught_runtime_items])
@pytest.mark.parametrize("x", [np.ones(2), np.arange(3, dtype=np.float32)])
def test_generator_exception_inside_max_min_is_caught(fn, x):
    same(fn, x)


def tree_depth(t, d):
    if not isinstance(t, tuple):
        if t < 0:
            raise ValueError("negative leaf")
        return d
    return max(tree_depth(c, d + 1) for c in t)


def checked_depth(x, t):
    try:
        return x + tree_depth(t, 0)
    except ValueError:
        return x - 1


@pytest.mark.parametrize("t", [((1, 2), (3, (4, 5))), ((1, -2), 3), (-1,)])
def test_recursive_max_over_generator_aborted_by_raise(t):
    same(checked_depth, np.zeros(2), t)


def uncaught(x):
    return x * max(boom(v) for v in (1, 2))


def test_uncaught_generator_exception_names_it():
    with pytest.raises(tpucc.TpuccError) as info:
        tpucc.compile(uncaught, cache=False)(np.ones(2))
    assert "KeyError" in str(info.value)
    assert "empty sequence" not in str(info.value)


def empty_max(x):
    return x * max(v for v in ())


def test_empty_generator_still_raises_python_error():
    raises_at(empty_max, (np.ones(2),), tpucc.TpuccError, "max\\(\\) arg is an empty sequence",
              cache=False)


# --- bug_07: max()/min() of mixed dtypes stored into an array ----------------

def relax_max(T, w):
    for i in range(1, len(T)):
        T[i] = max(T[i], T[i - 1] + w[i])
    return T


def relax_min(T, w):
    for i in range(1, len(T)):
        T[i] = min(T[i], T[i - 1] + w[i])
    return T


def relax_grid(T, w):
    for i in range(1, T.shape[0]):
        for j in range(1, T.shape[1]):
            T[i, j] = max(T[i - 1, j], T[i, j - 1] + w[i])
    return T


def relax_keyed(T, w):
    for i in range(1, len(T)):
        T[i] = max(T[i], w[i], key=abs)
    return T


def relax_three(T, w):
    for i in range(2, len(T)):
        T[i] = max(T[i - 1], T[i - 2] + w[i], 0)
    return T


def relax_in_closure(T, w):
    def relax(i):
        T[i] = min(T[i], T[i - 1] + w[i])
    for i in range(1, len(T)):
        relax(i)
    return T


W = np.array([0, 3, -1, 2])


@pytest.mark.parametrize("fn", [relax_max, relax_min, relax_in_closure])
@pytest.mark.parametrize("table, w", [
    (np.zeros(4, np.int32), W),
    (np.zeros(4, np.int64), W.astype(np.int32)),
    (np.full(4, 250, np.uint8), np.array([0, 300, -1, 2], np.int16)),
    (np.zeros(4, np.float32), np.array([0.5, -1.25, 2.0, -3.0])),
    (np.zeros(4, np.int32), np.array([0.5, -1.25, 2.0, -3.0])),
    (np.zeros(4, np.float32), W),
])
def test_mixed_dtype_relaxation_stored_into_table(fn, table, w):
    same(fn, table, w)


def test_mixed_dtype_relaxation_grid_keyed_and_three_items():
    same(relax_grid, np.zeros((3, 4), np.int16), W.astype(np.int64))
    same(relax_keyed, np.array([0, -5, 2, -1], np.int32), W)
    same(relax_three, np.zeros(5, np.int16), np.array([0, 1, 7, -3, 2]))


def bound_first(T, w):
    for i in range(1, len(T)):
        v = max(T[i], T[i - 1] + w[i])
        T[i] = v
    return T


def computed_on(T, w):
    for i in range(1, len(T)):
        T[i] = max(T[i], T[i - 1] + w[i]) + 1
    return T


def into_list(T, w):
    out = [0] * len(T)
    for i in range(1, len(T)):
        out[i] = max(T[i], T[i - 1] + w[i])
    return out


@pytest.mark.parametrize("fn, line", [
    (bound_first, "v = max(T[i], T[i - 1] + w[i])"),
    (computed_on, "T[i] = max(T[i], T[i - 1] + w[i]) + 1"),
    (into_list, "out[i] = max(T[i], T[i - 1] + w[i])"),
])
def test_mixed_dtype_max_whose_type_is_seen_refused_with_cast_hint(fn, line):
    err = raises_at(fn, (np.zeros(4, np.int32), W), MergeError,
                    "the items of max\\(\\) have different types", line_of=line, cache=False)
    assert "max(int(a), int(b))" in err.hint and "np.maximum(a, b)" in err.hint


def test_int64_beside_float64_stays_refused_stored_or_not():
    # (float64 does not hold every int64: the promoted value could differ)
    err = raises_at(relax_min, (np.zeros(4, np.int64), W.astype(np.uint64)), MergeError,
                    "different types", line_of="T[i] = min(T[i], T[i - 1] + w[i])", cache=False)
    assert "min(float(a), float(b))" in err.hint


def test_cast_spellings_of_the_hint_compile():
    def as_ints(T, w):
        for i in range(1, len(T)):
            v = max(int(T[i]), int(T[i - 1] + w[i]))
            T[i] = v
        return T

    def as_maximum(T, w):
        for i in range(1, len(T)):
            v = np.maximum(T[i], T[i - 1] + w[i])
            T[i] = v
        return T
    same(as_ints, np.zeros(4, np.int32), W)
    same(as_maximum, np.zeros(4, np.int32), W)
