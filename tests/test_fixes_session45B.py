"""Session 45B's fixes, each checked against eager NumPy: np.linspace with
array endpoints (points sampled along a mesh edge) compiles, bit for bit;
np.add.at (and the other ufunc.at) with indices selected by a runtime mask
(`np.add.at(cnt, F[L > maxlen], 1.0)`) compiles as an update by every index
whose unselected ones leave their element as it is."""
import copy

import numpy as np
import pytest

import tpucc
from conftest import assert_same, raises_at


def exact(fn, *args):
    """fn compiled (no cache) and eager on copies of `args`: the same
    results bit for bit (dtypes, Python types) and argument contents."""
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    with np.errstate(all="ignore"):
        expected = fn(*eager_args)
    assert_same(expected, tpucc.compile(fn, cache=False)(*comp_args), rtol=0, atol=0)
    assert_same(eager_args, comp_args, rtol=0, atol=0)


# --- bug_02: np.linspace with array endpoints ----------------------------------------------

V = np.array([[0.0, 0, 0], [1, 2, 3], [4, 4, 4], [0.1, -7.3, 1e-3]])


def _edge(V, i, j):
    return np.linspace(V[i], V[j], 5)


def _edge_forms(V, i, j):
    return (np.linspace(V[i], V[j], 4, endpoint=False), np.linspace(V[i], V[j], 3, axis=-1),
            np.linspace(V[i], V[j], 7, retstep=True), np.linspace(V[i], V[j], 1),
            np.linspace(V[i], V[j], 0), np.linspace(V[i], V[j], 1, retstep=True),
            np.linspace(V[i], V[j], 6, dtype=np.int32), np.linspace(V[i], 2.5, 3))


def _broadcast_endpoints(V, t):
    return (np.linspace(V[:, :1], V[0], 3), np.linspace(t, V[1:3], 4, axis=1),
            np.linspace(V[:2], V[2:], 5, axis=-2))


def _equal_endpoints(V, i):      # every step 0: NumPy's other formula, for the whole array
    return np.linspace(V[i], V[i] * np.array([1.0, 1.0, 2.0]), 4)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int8])
def test_linspace_of_array_endpoints_is_numpys(dtype):
    exact(_edge, V.astype(dtype), 0, 1)
    exact(_edge_forms, V.astype(dtype), 3, 1)


def test_linspace_of_broadcast_endpoints_and_axes():
    exact(_broadcast_endpoints, V, 0.25)
    exact(_broadcast_endpoints, V.astype(np.float32), np.float32(0.25))
    exact(_equal_endpoints, V, 0)
    exact(_equal_endpoints, V, 1)


def test_linspace_of_complex_and_bool_dtype():
    exact(lambda z: np.linspace(z[0], z[1], 4), np.array([[1 + 2j, 0], [3 - 1j, 2j]]))
    exact(lambda t: np.linspace(t[0], t[1], 5, dtype=bool), np.array([0.0, 1.0]))


def test_linspace_of_endpoints_that_do_not_broadcast_is_numpys_error():
    def f(V):
        return np.linspace(V[0, :2], V[1], 3)
    raises_at(f, (V,), match="ValueError", line_of="np.linspace")


# --- bug_03: ufunc.at with indices selected by a runtime mask ------------------------------

F = np.array([[0, 1, 4], [1, 2, 4], [2, 3, 4]])
L = np.array([[0.1, 0.9, 0.2], [0.8, 0.7, 0.1], [0.3, 0.2, 0.95]])


def _long_edge_count(L, F, maxlen):
    cnt = np.zeros(5)
    np.add.at(cnt, F[L > maxlen], 1.0)
    return cnt


def _weighted(L, F, maxlen, acc):
    keep = L > maxlen
    np.add.at(acc, F[keep], L[keep])            # values selected by the same mask
    np.subtract.at(acc, F[keep], 0.5)
    return acc


def _extremes(L, F, maxlen):
    hi = np.full(5, -1.0)
    lo = np.full(5, 9, dtype=np.int32)
    np.maximum.at(hi, F[L > maxlen], L[L > maxlen])
    np.minimum.at(lo, F[L > maxlen], 3)
    prod = np.ones(5)
    np.multiply.at(prod, F[L > maxlen], 2.0)
    return hi, lo, prod


def _rows(L, F, maxlen, W):
    acc = np.zeros((5, 2))
    rows = L.max(axis=1) > maxlen
    np.add.at(acc, F[rows], W)                  # W: one row of the indexed part
    np.add.at(acc, F[rows, 0], np.ones((1, 2)))
    return acc


def _pairs(L, F, maxlen):
    M = np.zeros((5, 5), np.int64)
    keep = L[:, 0] > maxlen
    np.add.at(M, (F[keep, 0], F[keep, 1]), 1)
    return M


def _negative_and_stale_indices(F, keep):
    cnt = np.zeros(5, np.int16)
    np.add.at(cnt, F[keep], 1)      # unselected entries may be out of range
    return cnt


def _slice_indices(F, k):
    cnt = np.zeros(5, np.int64)
    np.add.at(cnt, F.ravel()[k:], 2)
    return cnt


@pytest.mark.parametrize("maxlen", [0.5, 0.0, 2.0])
def test_add_at_of_masked_indices_is_numpys(maxlen):
    exact(_long_edge_count, L, F, maxlen)
    exact(_weighted, L, F, maxlen, np.zeros(5))
    exact(_weighted, L.astype(np.float32), F, maxlen, np.full(5, -0.0, np.float32))
    exact(_extremes, L, F, maxlen)
    exact(_rows, L, F, maxlen, np.array([1.0, 3.0]))
    exact(_pairs, L, F, maxlen)


def test_add_at_of_masked_indices_leaves_unselected_elements_and_checks_only_selected():
    bad = np.array([[0, -1, 4], [7, 2, -5], [2, 3, 99]])
    keep = np.array([[True, True, True], [False, True, True], [True, True, False]])
    exact(_negative_and_stale_indices, bad, keep)
    exact(_slice_indices, F.astype(np.int32), 4)
    exact(_slice_indices, F, 9)


def test_add_at_of_masked_index_out_of_range_raises_numpys_index_error():
    keep = np.array([[True, False, False], [False, False, False], [False, False, True]])
    bad = np.array([[0, 1, 4], [1, 2, 4], [2, 3, 5]])
    with pytest.raises(IndexError):
        tpucc.compile(_negative_and_stale_indices, cache=False)(bad, keep)


def test_add_at_of_masked_indices_with_values_per_selected_row_is_refused_with_a_rewrite():
    def f(L, F):
        cnt = np.zeros(5)
        np.add.at(cnt, F[L > 0.5], np.ones(4))
        return cnt
    raises_at(f, (L, F), tpucc.ShapeError, match=r"v\[mask\]", line_of="np.add.at",
              cache=False)
