"""Session 33's sweep (numerical methods, simulations, algorithms): a runtime
Python int indexes as NumPy's basic indexing does (a view), and loops whose
names come to share an array, or swap the caller's array in, are refused
where the compiled loop could not follow NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc.errors import SideEffectError

from conftest import check, count_hlo, hlo


# --- a runtime Python int index is a view ------------------------------------------------

def chained(Q, i):
    Q[int(i)][0] = 5.0
    return Q


def row_alias(Q, i):
    row = Q[int(i)]
    row *= 2
    return Q


def row_sees_write(Q, i):
    k = i.item()
    row = Q[k]
    Q[k, 1] = -1.0
    return row


def argmax_row(Q):
    row = Q[int(np.argmax(Q[:, 0]))]
    row += 100.0
    return Q


def range_start(Q, s):
    acc = 0.0
    for k in range(s, Q.shape[0]):
        r = Q[k]
        Q[k, 0] = 99.0
        acc += r[0]
    return acc


def shift_rows(Q, s):
    for k in range(s, Q.shape[0]):
        Q[k] += 1.0
    return Q


@pytest.mark.parametrize("fn", [chained, row_alias, row_sees_write, range_start, shift_rows])
def test_a_runtime_python_int_index_is_a_view(fn):
    check(fn, np.arange(12.0).reshape(4, 3), np.int64(2))


def test_a_row_picked_by_argmax_is_updated_in_place():
    check(argmax_row, np.array([[1.0, 2.0], [7.0, 0.0], [3.0, 3.0]]))


def eliminate(Q):
    n = Q.shape[0]
    for j in range(n):
        for k in range(j + 1, n):
            Q[k] -= 0.01 * Q[j]
    return Q


def test_row_updates_in_a_triangular_loop_stay_two_whiles():
    Q = np.random.default_rng(0).standard_normal((40, 40))
    compiled = check(eliminate, Q, rtol=1e-12, atol=1e-12)
    assert count_hlo(hlo(compiled, Q), "while") == 2


# --- names that come to share an array inside a loop -------------------------------------

def track_best(u, steps):
    best = u.copy()
    best_val = np.inf
    for t in range(steps):
        u *= 0.9
        u += np.sin(t)
        val = np.abs(u).sum()
        if val < best_val:
            best_val = val
            best = u                # the argument itself, which later steps update
    return best, best_val


def snapshot(x, tol):
    u = x.copy()
    snap = np.zeros_like(u)
    it = 0
    while np.abs(u).max() > tol:
        u *= 0.5
        if it == 2:
            snap = u
        it += 1
    return snap, it


def joined(init, n):
    y = init.copy()
    x = np.zeros_like(y)
    for _ in range(n):
        x += 1.0
        y *= 2.0
        x = y                       # from the second iteration on, x += 1 updates y
    return y


@pytest.mark.parametrize("fn, args, name", [
    (track_best, (np.array([0.5, -1.2, 2.0]), np.int64(40)), "best"),
    (snapshot, (np.array([0.0, 3.0, -2.0]), 1e-3), "snap"),
    (joined, (np.array([1.0, 2.0, 3.0]), np.int64(5)), "x"),
])
def test_names_joined_by_the_body_are_refused_at_the_loop(fn, args, name):
    with pytest.raises(SideEffectError, match=f"`{name}`") as info:
        tpucc.compile(fn)(*args)
    assert ".copy()" in info.value.hint
    assert info.value.loc.source_line().lstrip().startswith(("for ", "while "))


@pytest.mark.parametrize("n", [5, 40])
def test_names_joined_in_a_static_loop_follow_numpy(n):
    check(joined, np.array([1.0, 2.0, 3.0]), n)


def previous_is_current(x, n):
    for _ in range(n):
        prev = x                    # (NumPy: the same array, so d is 0)
        x += 1.0
        d = np.abs(x - prev).max()
    return x, prev, d


def difference_then_join(x, n):
    prev = x.copy()
    for _ in range(n):
        d = x - prev
        prev = x
        x += 1.0
    return x, prev, d


@pytest.mark.parametrize("fn", [previous_is_current, difference_then_join])
def test_a_name_joined_before_the_update_compiles(fn):
    check(fn, np.zeros(3), np.int64(7))
    check(fn, np.zeros(3), 40)


# --- a double buffer that swaps the caller's array in ------------------------------------

def jacobi(u, tol):
    un = u.copy()
    err = tol + 1
    while err > tol:
        un[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
        err = np.abs(un - u).max()
        u, un = un, u
    return u


def jacobi_copied(u, tol):
    return jacobi(u.copy(), tol)


def test_a_runtime_double_buffer_over_the_callers_array_is_refused():
    u0 = np.zeros((8, 8))
    u0[0] = 1.0
    with pytest.raises(SideEffectError, match="gives it the array of `u`") as info:
        tpucc.compile(jacobi)(u0.copy(), 1e-3)
    assert "u = u.copy()" in info.value.hint
    check(jacobi_copied, u0, 1e-3)
