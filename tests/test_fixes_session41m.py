"""Session 41m: max()/min() of many arrays or numbers by runtime keys compiled
in time quadratic in their number (a chain of selects XLA fuses at a cost
growing with its square: 200 rows by key took 53 s).  Past 8 items the
best key's position is found on the stacked keys; past the unroll budget a
keyed pick is one While, the key traced once.  Python's rules hold: the
first best wins, a NaN key never beats the running best, and nothing beats
a NaN in front."""
from __future__ import annotations


import numpy as np
import pytest

import tpucc

from conftest import count_hlo, hlo, same


def by_sum_max(m):
    return max(m, key=lambda r: r.sum())


def by_first_min(m):
    return min(list(m), key=lambda r: float(r[0]))


def by_int_key(m):
    return max([r for r in m], key=lambda r: int(abs(r.sum()) * 10) % 7)


def sums_and_firsts(m):
    return max([r.sum() for r in m]), min([r[0] for r in m])


def rows(n, case):
    m = np.random.default_rng(n).random((n, 3))
    if case == "nan_first":
        m[0] = np.nan
    elif case == "nan_inside":
        m[4] = np.nan
        m[n // 2] = m[n - 2] = [5, 5, 5]        # ties: the first wins
    elif case == "all_nan_after":
        m[3:] = np.nan
    elif case == "equal":
        m[:] = -1.0
    return m


@pytest.mark.parametrize("n", [12, 40])
@pytest.mark.parametrize("case", ["plain", "nan_first", "nan_inside", "all_nan_after", "equal"])
@pytest.mark.parametrize("fn", [by_sum_max, by_first_min, sums_and_firsts])
def test_python_picks_of_many_rows(fn, n, case):
    same(fn, rows(n, case))


@pytest.mark.parametrize("n", [12, 40])
def test_integer_keys(n):
    same(by_int_key, rows(n, "plain"))
    same(lambda m: max(list((m * 10).astype(np.int32)), key=lambda r: int(r[1])),
         rows(n, "plain"))


def test_many_rows_by_key_is_one_while_with_the_key_traced_once():
    m = rows(60, "plain")
    text = hlo(same(by_sum_max, m), m)
    assert count_hlo(text, "while") == 1
    assert count_hlo(text, "reduce") <= 3       # (the first item's key, the loop's, np.any)


def test_a_dozen_numbers_pick_without_a_chain_of_selects():
    """As many selects for 24 numbers as for 12: none per item."""
    counts = []
    for n in (12, 24):
        m = rows(n, "nan_inside")
        counts.append(count_hlo(hlo(same(sums_and_firsts, m), m), "select"))
    assert counts[0] == counts[1]
