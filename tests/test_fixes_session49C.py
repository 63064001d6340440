"""Numerical linear algebra written from scratch (session 49, sweep C).

bug_01: np.unravel_index of the argmax of a slice with runtime bounds
(complete pivoting's `i, j = np.unravel_index(np.argmax(sub), sub.shape)`
of `sub = np.abs(A[k:, k:])`) was refused (E100, "dimensions known only at
run time"), so the elimination loop could not run as one `while` (unrolled
with a warning, or refused where it had to be runtime).  Runtime dimensions
now unravel by the same integer arithmetic (ops/searching.py).

bug_02: index arrays beside a slice with runtime bounds, the textbook LU
with a permutation matrix's `U[[k, i], k:] = U[[i, k], k:]` and
`L[[k, i], :k] = L[[i, k], :k]`, were refused (E400, data-dependent shape),
so that loop was unrolled too.  Such a key is the gathered rows sliced; an
assignment gathers the rows, assigns their slice and puts them back
(ops/indexing.py).

bug_03: sorted() by a runtime key, `sorted(range(n), key=lambda i:
abs(A[i, k]), reverse=True)`, was refused (E400) although the items are
numbers: they are now picked by a stable argsort of the keys, reverse=True
as CPython's (equal keys keep their order).

bug_04: a runtime loop whose runtime `break` comes before the first binding
of a slice with runtime bounds (column-pivoted QR's `if norms[p] < tol:
break`, then `x = R[k:, k]`) was refused with an E300 naming no variable
("changes the structure of a variable"): the body's end restored the dead
variable from the loop's entry but not its bound flag (infer/loops.py).
"""
import numpy as np
import pytest

import tpucc
from conftest import assert_same, count_hlo, hlo, same_each


def _same_runtime(fn, names, *arg_tuples):
    """same_each with the arguments `names` runtime values: one compile."""
    return same_each(fn, *arg_tuples, compile_kwargs={"runtime_args": names})


_RNG = np.random.default_rng(49)
_A6 = _RNG.standard_normal((6, 6))


# --- bug_01: np.unravel_index by a runtime-bounded slice's shape ---------------------------

def _pivot_of_trailing_block(A, k):
    sub = np.abs(A[k:, k:])
    i, j = np.unravel_index(np.argmax(sub), sub.shape)
    return i + k, j + k, np.unravel_index(1, (sub.shape[0], 2))


def test_unravel_index_by_runtime_slice_shape():
    _same_runtime(_pivot_of_trailing_block, ("k",), (_A6, 2), (_A6.T.copy(), 0), (_A6, 5))


def _complete_pivoting(A, steps, tol=1e-12):
    A = A.copy()
    n = A.shape[0]
    rows, cols = np.arange(n), np.arange(n)
    rank = n
    for k in range(steps):
        sub = np.abs(A[k:, k:])
        i, j = np.unravel_index(np.argmax(sub), sub.shape)
        i += k
        j += k
        if abs(A[i, j]) < tol:
            rank = k
            break
        A[[k, i]] = A[[i, k]]
        A[:, [k, j]] = A[:, [j, k]]
        rows[[k, i]] = rows[[i, k]]
        cols[[k, j]] = cols[[j, k]]
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A, rows, cols, rank


def test_complete_pivoting_runs_as_one_while():
    singular = _A6.copy()
    singular[:, 3] = singular[:, 1] + singular[:, 2]
    compiled = _same_runtime(_complete_pivoting, ("steps",), (_A6, 6), (singular, 6), (_A6, 3))
    assert count_hlo(hlo(compiled, _A6, 6), "while") >= 1


def test_unravel_index_by_runtime_shape_checks_the_index():
    def f(A, k):
        return np.unravel_index(30, np.abs(A[k:, k:]).shape)
    compiled = tpucc.compile(f, cache=False, runtime_args=("k",))
    assert_same(f(_A6, 0), compiled(_A6, 0))
    with pytest.raises(ValueError):
        f(_A6, 2)
    with pytest.raises(ValueError, match="out of bounds"):
        compiled(_A6, 2)


# --- bug_02: index arrays beside a slice with runtime bounds --------------------------------

def _swap_trailing(U, k, i):
    U[[k, i], k:] = U[[i, k], k:]
    U[:, [k, i]][1:k] *= 2              # (a copy: NumPy changes nothing)
    return U, U[[k, i], :k].sum(axis=1), U[k:, [i, k]].max()


def test_index_arrays_beside_runtime_slices():
    _same_runtime(_swap_trailing, ("k", "i"), (_A6, 2, 4), (_A6, 3, 3), (_A6, 0, 5))


def _inplace_on_gathered_block(U, k, i):
    U[[k, i], k:] *= 2
    U[np.array([[k], [i]]), :k] = -1.0
    return U


def test_inplace_update_of_index_arrays_beside_runtime_slices():
    _same_runtime(_inplace_on_gathered_block, ("k", "i"), (_A6, 2, 4), (_A6, 4, 4))


def _lu_with_permutation_matrix(A, steps):
    n = A.shape[0]
    U = A.copy()
    L = np.eye(n)
    P = np.eye(n)
    for k in range(steps):
        i = np.argmax(abs(U[k:, k])) + k
        if U[i, k] == 0:
            break
        U[[k, i], k:n] = U[[i, k], k:n]
        L[[k, i], :k] = L[[i, k], :k]
        P[[k, i], :] = P[[i, k], :]
        for j in range(k + 1, n):
            L[j, k] = U[j, k] / U[k, k]
            U[j, k:n] = U[j, k:n] - L[j, k] * U[k, k:n]
    return P, L, U


def test_lu_with_permutation_matrix_runs_as_one_while():
    compiled = _same_runtime(_lu_with_permutation_matrix, ("steps",), (_A6, 5),
                             (_A6.T.copy(), 5), (_A6, 2))
    assert count_hlo(hlo(compiled, _A6, 5), "while") >= 1


# --- bug_03: sorted() by runtime keys -------------------------------------------------------

def _pivot_order(A):
    order = sorted(range(len(A)), key=lambda i: abs(A[i, 0]), reverse=True)
    ascending = sorted(range(len(A)), key=A[:, 1].__getitem__)
    scaled = sorted([0.5, 1.5, 2.5, 3.5], key=lambda v: A[int(v), 2])
    return A[order], order, ascending, scaled


def test_sorted_numbers_by_runtime_keys():
    ties = np.array([[1.0, 2, 0], [-3, 2, 1], [3, 0, 1], [0, -1, 0]])
    same_each(_pivot_order, (ties,), (_A6[:4, :3].copy(),))


def test_sorted_by_runtime_keys_keeps_runtime_items_their_kind():
    def f(x):
        vals = [float(v) for v in x[:3]]
        return sorted(vals, key=abs), sorted(list(x), key=lambda v: -v, reverse=True)
    same_each(f, (np.array([1.0, -3.0, 2.0, 0.5]),), (np.array([-1.0, 1.0, -1.0, 2.0]),))


# --- bug_04: a runtime break before a runtime slice's first binding -------------------------

def _qr_column_pivoting(A, steps, tol=1e-12):
    R = A.copy()
    n = R.shape[1]
    perm = np.arange(n)
    norms = np.sum(R ** 2, axis=0)
    rank = n
    for k in range(steps):
        p = k + int(np.argmax(norms[k:]))
        if norms[p] < tol:
            rank = k
            break
        R[:, [k, p]] = R[:, [p, k]]
        perm[[k, p]] = perm[[p, k]]
        x = R[k:, k]
        v = x.copy()
        v[0] += np.copysign(np.linalg.norm(x), x[0])
        v /= np.linalg.norm(v)
        R[k:, k:] -= 2.0 * np.outer(v, v @ R[k:, k:])
        norms[k + 1:] = np.sum(R[k + 1:, k + 1:] ** 2, axis=0)
    return R, perm, rank


def test_break_before_a_runtime_slice_is_bound():
    deficient = _A6[:, :4].copy()
    deficient[:, 2] = 2 * deficient[:, 0]
    compiled = _same_runtime(_qr_column_pivoting, ("steps",), (_A6[:, :4].copy(), 4),
                             (deficient, 4), (_A6[:, :4].copy(), 1))
    assert count_hlo(hlo(compiled, deficient, 4), "while") >= 1
