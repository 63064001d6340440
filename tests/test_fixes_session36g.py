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


def test_returned_status_text_is_the_string_of_the_path_taken():
    def solve(b, maxit):
        x = np.zeros_like(b)
        for _ in range(maxit):
            if np.abs(b - x).max() < 1e-8:
                return x, "converged"
            x += 0.2 * (b - x)
        return x, "maxit"
    check(solve, np.ones(3), 500)
    check(solve, np.ones(3), 5)


def test_ternary_on_counter_of_a_while_loop_hint_works():
    # j > 0 is runtime once the loop (40 > unroll budget, with a runtime
    # break) is one While: the hint's np.where form compiles
    def refused(V, beta, m):
        w = np.zeros(V.shape[1])
        for j in range(m):
            w = w - (beta[j - 1] * V[j - 1] if j > 0 else 0)   # <- here
            if w[0] < -1e9:
                break
        return w

    def hinted(V, beta, m):
        w = np.zeros(V.shape[1])
        for j in range(m):
            w = w - np.where(j > 0, beta[j - 1] * V[j - 1], 0)
            if w[0] < -1e9:
                break
        return w
    V, beta = np.arange(160.0).reshape(40, 4), np.linspace(0, 1, 40)
    err = raises_at(refused, (V, beta, 40), tpucc.MergeError, "different shapes",
                    line_of="<- here")
    assert "np.where(c, a, 0)" in err.hint and "unroll=" in err.hint
    check(hinted, V, beta, 40)
    check(refused, V, beta, 40, compile_kwargs={"unroll": 40})
