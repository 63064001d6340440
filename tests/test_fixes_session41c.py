"""Slow compiles found by sweeps 41H-K: loops unrolled item by item (or copy
by copy) that are now one While.  Each test compares with eager NumPy
(values, dtypes) and checks the HLO's structure (its While count), not
timings."""
from __future__ import annotations

import itertools
import operator

import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo

NOCACHE = {"cache": False}


def whiles(fn, *args) -> int:
    return count_hlo(hlo(tpucc.compile(fn, cache=False), *args), "while")


# --- a short static loop of solvers: its cost, not its length, makes it one While -----------

def regressions(S, K, disc):
    cf = np.maximum(K - S[:, -1], 0.0)
    for t in range(S.shape[1] - 2, -1, -1):
        x = S[:, t]
        A = np.vander(x, 3)
        c1 = np.linalg.lstsq(A, cf, rcond=None)[0]
        c2 = np.linalg.lstsq(A, x * cf, rcond=None)[0]
        cf = np.where(K - x > A @ (c1 + c2), K - x, cf) * disc
    return cf.mean()


def weighted_polyfits(S, K):
    cf = np.maximum(K - S[:, -1], 0.0)
    for t in range(S.shape[1] - 2, 0, -1):
        x = S[:, t]
        itm = (K - x > 0).astype(x.dtype)
        c = np.polyfit(x, cf, 2, w=itm + 0.1)
        cf = np.where(np.polyval(c, x) < K - x, K - x, cf * 0.99)
    return cf


def solves(A, b):
    x = b
    for _ in range(24):
        x = np.linalg.solve(A, x) + b
    return x


def paths(steps, n=20, seed=11, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return (100 * np.exp(np.cumsum(0.04 * rng.standard_normal((n, steps)), axis=1))).astype(dtype)


def test_lstsq_per_step_is_one_while():
    S = paths(21)
    check(regressions, S, 100.0, 0.99, rtol=1e-8, atol=1e-8, compile_kwargs=NOCACHE)
    assert whiles(regressions, S, 100.0, 0.99) == 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_weighted_polyfit_per_step_is_one_while(dtype):
    S = paths(26, dtype=dtype)
    tol = 1e-8 if dtype == np.float64 else 1e-3
    check(weighted_polyfits, S, dtype(100.0), rtol=tol, atol=tol, compile_kwargs=NOCACHE)
    assert whiles(weighted_polyfits, S, dtype(100.0)) == 1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_solve_per_step_is_one_while(dtype):
    A = (np.eye(4) * 4 + np.arange(16).reshape(4, 4) * 0.01).astype(dtype)
    b = np.arange(4.0, dtype=dtype)
    check(solves, A, b, rtol=1e-5, atol=1e-5, compile_kwargs=NOCACHE)
    assert whiles(solves, A, b) == 1


def few_cheap_steps(x):
    for _ in range(24):
        x = x * 0.5 + 1.0
    return x


def test_cheap_short_loop_stays_unrolled():
    check(few_cheap_steps, np.arange(3.0), compile_kwargs=NOCACHE)
    assert whiles(few_cheap_steps, np.arange(3.0)) == 0


# --- iterator combinations over arrays: one While like a plain loop over rows ---------------

def zip_longest_sum(a, b):
    return np.array([p + q for p, q in itertools.zip_longest(a, b, fillvalue=0.0)])


def zip_longest_int_fill(a, b):
    return [p * q for p, q in itertools.zip_longest(a, b, fillvalue=2)]


def enumerate_reversed(a):
    return np.array([i * v for i, v in enumerate(reversed(a))])


def starmapped(a, b):
    return np.array(list(itertools.starmap(operator.mul, list(zip(a, b)))))


def starmapped_zip(a, b):
    return np.array(list(itertools.starmap(operator.mul, zip(a, b))))


def starmap_held_then_written(a, b):
    # (the zip reads a's rows as starmap takes them: the write is seen)
    m = itertools.starmap(lambda u, v: u - v, zip(a, b))
    first = next(m)
    a[5] = 100
    return first, np.array(list(m)), type(m).__name__


def map_held_then_written(a, b):
    m = map(lambda u, v: u - v, a, b)
    first = next(m)
    a[5] = 100
    return first, np.array(list(m))


def starmap_three_rows(a, b, c):
    total = 0.0
    for s in itertools.starmap(lambda u, v, w: u * v + w, zip(a, b, c)):
        total += s
    return total


def starmap_rows(m):
    return [float(s) for s in itertools.starmap(lambda u, v: u - v, m)]


def islice_every_other(a):
    return np.array([v * 2 for v in itertools.islice(a, 1, None, 2)])


def compressed(a, keep):
    return np.array([v + 1 for v in itertools.compress(a, keep)])


def reversed_rows(m):
    return np.stack([r * 2 for r in reversed(m)])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_zip_longest_is_one_while_per_run(dtype):
    # (the pairs and the rest each over the unroll budget of 32)
    a, b = np.arange(70, dtype=dtype), np.arange(36, dtype=dtype) * 3
    check(zip_longest_sum, a, b, compile_kwargs=NOCACHE)
    assert whiles(zip_longest_sum, a, b) == 2       # (the pairs, then a's rows with 0.0)
    check(zip_longest_sum, b, a, compile_kwargs=NOCACHE)
    check(zip_longest_int_fill, a, b, compile_kwargs=NOCACHE)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_enumerate_reversed_is_one_while(dtype):
    a = np.arange(40, dtype=dtype)      # (over the unroll budget of 32)
    check(enumerate_reversed, a, compile_kwargs=NOCACHE)
    assert whiles(enumerate_reversed, a) == 1


def test_reversed_rows_of_a_matrix():
    m = np.arange(240.0).reshape(80, 3)
    check(reversed_rows, m, compile_kwargs=NOCACHE)
    assert whiles(reversed_rows, m) == 1


@pytest.mark.parametrize("dtype", [np.float64, np.int16])
def test_starmap_is_one_while(dtype):
    a, b = np.arange(100, dtype=dtype), np.arange(100, dtype=dtype)[::-1].copy()
    check(starmapped, a, b, compile_kwargs=NOCACHE)
    assert whiles(starmapped, a, b) == 1
    check(starmapped_zip, a, b, compile_kwargs=NOCACHE)
    assert whiles(starmapped_zip, a, b) == 1        # (as map(operator.mul, a, b))
    m = np.arange(160.0).reshape(80, 2)
    check(starmap_rows, m, compile_kwargs=NOCACHE)
    assert whiles(starmap_rows, m) == 2     # (starmap's own loop, then the comprehension's)


def test_starmap_over_a_zip_takes_rows_when_consumed():
    a, b = np.arange(100.0), np.arange(100.0)[::-1].copy()
    check(starmap_held_then_written, a[:40], b[:40], compile_kwargs=NOCACHE)
    check(map_held_then_written, a[:40], b[:40], compile_kwargs=NOCACHE)
    c = np.linspace(0, 1, 60)
    check(starmap_three_rows, a[:80], b, c, compile_kwargs=NOCACHE)
    assert whiles(starmap_three_rows, a[:80], b, c) == 2     # (starmap's loop, then the for's)


def test_short_starmap_is_unrolled_as_before():
    check(starmapped, np.arange(5.0), np.ones(5), compile_kwargs=NOCACHE)


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_islice_and_compress_are_one_while(dtype):
    a = np.arange(150, dtype=dtype)
    check(islice_every_other, a, compile_kwargs=NOCACHE)
    assert whiles(islice_every_other, a) == 1
    keep = np.random.default_rng(3).integers(0, 2, 150).astype(bool).tolist()
    check(compressed, a, keep, compile_kwargs=NOCACHE)
    assert whiles(compressed, a, keep) == 1
    mod3 = [i % 3 == 0 for i in range(150)]
    check(compressed, a, mod3, compile_kwargs=NOCACHE)


def elements_returned(a):
    items = list(reversed(a))
    return items, np.array(items[::2]), sum(items)


def test_elements_of_an_array_stacked_again():
    check(elements_returned, np.arange(50.0), compile_kwargs=NOCACHE)
    check(elements_returned, np.arange(50, dtype=np.int32), compile_kwargs=NOCACHE)


# --- an inner loop unrolled for a list table warns by what all its runs cost -----------------

def dag_longest_path(W):
    n = W.shape[0]
    best = [0.0] * n
    for u in range(n):
        for v in range(u + 1, n):
            if W[u, v] > 0:
                best[v] = max(best[v], best[u] + W[u, v])
    return best


def dag_weights(n, dtype=np.float64):
    return np.triu((np.arange(n * n).reshape(n, n) % 3).astype(dtype), 1)


def test_inner_loop_of_a_list_table_warns_for_all_its_runs():
    # (the warning comes from tpucc's stages: lower() shows it without
    # XLA's compile of the 190 copies; the values of the same unrolled
    # program at a size under the warning, in float64, below, and in
    # float32 in the next test)
    W = dag_weights(20)
    with pytest.warns(tpucc.UnrollWarning, match=r"each time it runs, \d+ so far in all.*"
                                                 r"np\.zeros\(n\), not a list"):
        hlo(tpucc.compile(dag_longest_path, cache=False), W)
    check(dag_longest_path, dag_weights(6), compile_kwargs=NOCACHE)


def test_short_list_table_compiles_without_warning():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)
        check(dag_longest_path, dag_weights(8, np.float32), compile_kwargs=NOCACHE)


# --- a list read while it grows: the warning's advice fits it ------------------------------------

def equity_list(r, start):
    eq = [start]
    for x in r:
        eq.append(eq[-1] * (1 + float(x)))
    return eq


def aliased_equity_list(r):
    eq = [1.0]
    also = eq               # (another name reaches the list: unrolled, as before)
    for x in r:
        eq.append(eq[-1] * (1 + float(x)))
    return also


def test_list_read_while_growing_warns_with_a_fitting_hint():
    r = np.sin(np.arange(300) * 0.37) * 0.01
    with pytest.warns(tpucc.UnrollWarning) as record:
        hlo(tpucc.compile(aliased_equity_list, cache=False), r)     # (tpucc's stages warn)
    text = str(record[0].message)
    assert "preallocated array" in text and "percentile" not in text
    # the values of the same unrolled loop, over the unroll budget, under the warning
    check(aliased_equity_list, r[:40], rtol=1e-12, atol=0, compile_kwargs=NOCACHE)


# --- a list appended to and read only as lst[-1]: one While carrying the last item ----------------

def nav_two_per_step(r):
    nav = [np.float32(1.0)]
    for x in r:
        nav.append(nav[-1] * np.float32(1.0 + x))
        nav.append(nav[-1] - np.float32(0.001))
    return nav, len(nav)


def int_start(r):
    eq = [1]
    for x in r:
        eq.append(eq[-1] * (1 + x))
    return eq


def ranged_with_floor(r, start):
    eq = [start]
    for i in range(r.shape[0]):
        eq.append(max(eq[-1] * (1 + r[i]), 0.5))
    return eq[-1], eq


def two_items_before(r):
    eq = [3.0, 1.0]
    for x in r:
        eq.append(eq[-1] * (1 + float(x)))
    return eq


def returns(n, dtype=np.float64):
    return (np.sin(np.arange(n) * 0.37) * 0.01).astype(dtype)


@pytest.mark.parametrize("start", [1.0, np.float64(2.0), 3])
def test_equity_curve_list_is_one_while(start):
    r = returns(400)
    check(equity_list, r, start, rtol=1e-12, atol=0, compile_kwargs=NOCACHE)
    assert whiles(equity_list, r, start) == 1


def test_equity_curve_list_float32():
    r = returns(300, np.float32)
    check(equity_list, r, np.float32(1.0), rtol=1e-6, atol=0, compile_kwargs=NOCACHE)
    check(nav_two_per_step, r, rtol=1e-5, atol=0, compile_kwargs=NOCACHE)
    assert whiles(nav_two_per_step, r) == 1


def test_last_item_lists_other_spellings():
    r = returns(200)
    check(int_start, r, rtol=1e-12, atol=0, compile_kwargs=NOCACHE)
    r40 = r[:40] * 100      # (over the unroll budget of 32; its 41 items returned)
    check(ranged_with_floor, r40, 1.0, rtol=1e-12, atol=0, compile_kwargs=NOCACHE)
    assert whiles(ranged_with_floor, r40, 1.0) == 1
    check(two_items_before, r, rtol=1e-12, atol=0, compile_kwargs=NOCACHE)
    assert whiles(two_items_before, r) == 1


# --- a long loop over a str's characters: unrolled (a str is static), with an UnrollWarning ------

def embed_chars(s, E):
    h = np.zeros(E.shape[1], E.dtype)
    for c in s:
        h = 0.5 * h + E[ord(c) - 97]
    return h


def embed_codes(s, E):
    h = np.zeros(E.shape[1], E.dtype)
    for code in s.encode():
        h = 0.5 * h + E[code - 97]
    return h


TEXT = "".join(np.random.default_rng(0).choice(list("abc"), 700))


def test_long_str_loop_warns_with_the_codes_advice():
    E = np.arange(12.0).reshape(3, 4)
    with pytest.warns(tpucc.UnrollWarning, match=r"characters of a str.*s\.encode\(\)"):
        hlo(tpucc.compile(embed_chars, cache=False), TEXT, E)   # (tpucc's stages warn)
    # the values of the same unrolled loop: test_short_str_loop_does_not_warn


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_loop_over_str_codes_is_one_while(dtype):
    E = np.arange(12.0, dtype=dtype).reshape(3, 4)
    check(embed_codes, TEXT, E, compile_kwargs=NOCACHE)
    assert whiles(embed_codes, TEXT, E) == 1


def test_short_str_loop_does_not_warn():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)
        check(embed_chars, "abcabcab" * 5, np.ones((3, 2)), compile_kwargs=NOCACHE)
