"""Bugs from sweeps 36j and 36m, fixed in session 36g."""
import itertools

import numpy as np

import tpucc
from conftest import check, raises_at


def test_count_loop_left_only_by_return_has_no_fall_through_path():
    # itertools.count() never ends: a While over it has no path that runs
    # out of items and returns None, as `while True:` has none
    def f(x):
        for it in itertools.count(5, 2):
            x = x * 0.5
            if x.max() < 1e-3:
                return x, it
    check(f, np.ones(3))


def test_returned_status_text_hint_says_return_a_code():
    def solve(b, maxit):
        x = np.zeros_like(b)
        for _ in range(maxit):
            if np.abs(b - x).max() < 1e-8:
                return x, "converged"   # <- here
            x += 0.2 * (b - x)
        return x, "maxit"
    err = raises_at(solve, (np.ones(3), 500), tpucc.MergeError,
                    r"`<return>\[1\]` incompatible values: str")
    assert "print" not in err.hint and "return a number or bool" in err.hint
