"""Session 40e1: boolean masks among other indices (sweep 40E).

bug_11: a mask behind a slice (X[:, m], X[1:, m], A[..., m]) was a flat
1-d selection: axis reductions, len, shape and in-place updates were
wrong.  bug_02: n[nz, None] was refused.  bug_10: X[m].sum(axis=1) could
not be reduced again.  bug_03: a mask of the wrong length behind a slice
gave an internal broadcast_to message."""
from __future__ import annotations

import functools

import numpy as np
import pytest

import tpucc

from conftest import check, raises_at

check = functools.partial(check, compile_kwargs={"cache": False})

COLS = np.array([True, False, True, True])


def _x(dtype=np.float64):
    return np.arange(12).reshape(3, 4).astype(dtype)


# --- bug_11: a column mask keeps the rows --------------------------------------------------

def column_axis_reductions(X, c):
    return (X[:, c].sum(axis=1), X[:, c].max(axis=-1), X[:, c].mean(axis=1),
            X[:, c].sum(axis=0).sum(), X[:, c].sum(axis=0)[0], X[:, c].min(axis=0).max(),
            X[:, c].sum())


def column_shape(X, c):
    s = X[:, c]
    return len(s), s.shape, s.ndim, s.size, s.shape[0] * 10


def column_logic(X, c):
    big = X[:, c] > 3
    return (big.any(axis=1), big.all(axis=-1), np.count_nonzero(big, axis=1),
            np.count_nonzero(big), np.count_nonzero(big, axis=0).sum())


def column_statistics(X, c):
    s = X[:, c]
    return (s.std(axis=1), s.var(axis=0).sum(), s.std(), np.ptp(s, axis=1), np.ptp(s),
            np.average(s, axis=1), np.argmax(s), s.argmin(), s.argmax(axis=0).sum(),
            s.std(axis=1, keepdims=True), s.mean(axis=1, keepdims=True))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("fn", [column_axis_reductions, column_shape, column_logic,
                                column_statistics])
def test_a_column_mask_keeps_the_rows(fn, dtype):
    check(fn, _x(dtype), COLS.copy())


def after_slices_and_ellipsis(X, A, c, idx):
    return (X[1:, c].sum(axis=1), X[1:, c].sum(axis=0).sum(), A[:, :, c].sum(axis=-1),
            A[..., c].sum(axis=-1), A[..., c].mean(axis=(0, 2)), A[0, :, c].sum(axis=0),
            X[idx][:, c].sum(axis=1), X[::2, c].max(axis=1), len(A[:, 1:, c]),
            A[:, 1:, c].shape)


def test_a_mask_behind_slices_and_ellipsis():
    A = np.arange(24.).reshape(2, 3, 4)
    check(after_slices_and_ellipsis, _x(), A, COLS.copy(), np.array([2, 0]))


def middle_axis_mask(A, m):
    return (A[:, m].sum(axis=(1, 2)), A[:, m].sum(axis=(0, 2)).sum(), A[:, m, 1:].sum(axis=1),
            A[:, m].shape, len(A[:, m]))


def ints_apart_from_the_mask(A, B, m, c):
    # (NumPy puts the mask's axis first where a slice stands between it and an int)
    return (A[0, :, c].sum(axis=0), A[0, :, c].shape, B[:, m, :, 0].sum(axis=(0, 2)),
            B[:, m, :, 0].shape, B[0, m, :, 0].sum(axis=0), A[:, 0, c].sum(axis=1),
            A[0, None, m].shape)


def stores_apart_from_the_int(A, c):
    A[0, :, c] = 5
    A[1, :, c] += A[0, :, c] * 2
    return A


def test_a_mask_on_a_middle_axis():
    m = np.array([True, False, True])
    check(middle_axis_mask, np.arange(24).reshape(2, 3, 4), m)
    check(ints_apart_from_the_mask, np.arange(24).reshape(2, 3, 4),
          np.arange(120).reshape(2, 3, 4, 5), m, np.array([True, True, False, True]))
    check(stores_apart_from_the_int, np.arange(24).reshape(2, 3, 4), COLS.copy())


def centered_columns(X, c):
    X[:, c] -= X[:, c].mean(axis=0)
    return X


def scaled_columns(X, c):
    X[:, c] = X[:, c] / X[:, c].std(axis=0)
    return X


def stores_into_columns(X, c):
    X[:, c] = 0
    X[1:, c] += np.array([[1], [2]])
    X[..., c] *= 3
    X[0, :, ][c] += 1
    return X


def a_copy_of_columns(X, c):
    t = X[:, c]
    t += 100
    return X, t.sum(axis=1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn", [centered_columns, scaled_columns, stores_into_columns,
                                a_copy_of_columns])
def test_updating_the_selected_columns(fn, dtype):
    check(fn, _x(dtype) + 1, COLS.copy())


def test_integer_columns_updated():
    check(stores_into_columns, _x(np.int64), COLS.copy())
    check(a_copy_of_columns, _x(np.int32), COLS.copy())


def two_axis_mask_behind_a_slice(A, m):
    s = A[:, m]
    return s.sum(axis=1), s.shape, len(s), s.max(axis=0).sum(), s.sum()


def stores_by_a_two_axis_mask(A, m):
    A[:, m] = -1
    A[1:, m] *= 2
    return A


def test_a_two_axis_mask_behind_a_slice():
    A = np.arange(24.).reshape(2, 3, 4)
    m = (np.arange(12).reshape(3, 4) % 3) == 0
    check(two_axis_mask_behind_a_slice, A, m)
    check(stores_by_a_two_axis_mask, A, m)


def returns_column_sums(X, c):
    return X[:, c].sum(axis=0)


def stores_a_full_block(X, c):
    X[:, c] = np.ones((3, 4))
    return X


def test_what_has_a_data_dependent_shape_is_still_refused():
    raises_at(returns_column_sums, (_x(), COLS.copy()), tpucc.ShapeError,
              match="returning x", line_of="return X[:, c]", cache=False)
    raises_at(stores_a_full_block, (_x(), COLS.copy()), tpucc.ShapeError,
              match=r"array of values of shape \(3, 4\).*number of True values",
              line_of="X[:, c] =", cache=False)


# --- bug_02: None beside the mask ------------------------------------------------------------

def centroid_update(C, S, n):
    nz = n > 0
    C[nz] = S[nz] / n[nz, None]
    return C


def none_beside_a_mask(n, X, m):
    return (n[m, None].sum(), n[None, m].sum(axis=1), n[m, None].shape[1],
            (X[m, None] * 2).sum(axis=(1, 2)).sum(), X[None, m, 1:].sum(axis=(0, 1)),
            n[None, :][:, m].sum())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_none_beside_a_mask(dtype):
    check(centroid_update, np.zeros((3, 2), dtype), np.ones((3, 2), dtype),
          np.array([2.0, 0.0, 4.0], dtype))
    check(none_beside_a_mask, np.array([2.0, 0.0, 4.0], dtype), _x(dtype)[:, :3],
          np.array([True, False, True]))


def stores_beside_none(n, m):
    n[m, None] = 7
    n[None, m] += 1
    return n


def test_stores_beside_none():
    check(stores_beside_none, np.arange(4), np.array([True, False, False, True]))


# --- bug_10: a row-wise reduction of x[mask] reduced again -------------------------------------

def row_sums_averaged(X, m):
    return (X[m].sum(axis=1).mean(), X[m].max(axis=-1).sum(), np.std(X[m], axis=1).max(),
            X[m].mean(axis=1, keepdims=True).sum(), np.ptp(X[m], axis=1).min(),
            (X[m].argmax(axis=1) + 1).sum(), np.count_nonzero(X[m] > 4, axis=1).sum(),
            np.average(X[m], axis=1).sum(), X[m].sum(axis=1, where=X[m] > 2).sum())


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int16])
def test_row_wise_reductions_of_a_selection(dtype):
    X = np.arange(12).reshape(4, 3).astype(dtype)
    check(row_sums_averaged, X, np.array([True, False, True, True]))


def block_sums(A, m):
    return A[m].sum(axis=(1, 2)).mean(), A[m].sum(axis=2).max(axis=0).sum()


def rows_of_a_runtime_slice(X, k):
    return X[:k].sum(axis=1).sum(), X[k:].min(axis=1).max()


def test_row_wise_reductions_of_blocks_and_slices():
    check(block_sums, np.arange(24.).reshape(2, 3, 4), np.array([True, True]))
    check(rows_of_a_runtime_slice, np.arange(12.).reshape(4, 3), 2)


# --- bug_03: a mask of the wrong length behind a slice ---------------------------------------

def reads_by_a_short_mask(A, m):
    return A[:, m].sum()


def stores_by_a_short_mask(A, m):
    A[:, m] = 0
    return A


def reads_deeper(A, m):
    return A[0, :, m].sum()


def reads_after_an_int(A, m):
    return A[0, m].sum()


@pytest.mark.parametrize("fn, axis, size", [(reads_by_a_short_mask, 1, 4),
                                            (stores_by_a_short_mask, 1, 4)])
def test_a_mask_of_the_wrong_length_says_so(fn, axis, size):
    raises_at(fn, (np.arange(12).reshape(3, 4), np.array([True, False, True])),
              tpucc.ShapeError, line_of="A[:, m]", cache=False,
              match=f"boolean index did not match indexed array along axis {axis}; size of "
                    f"axis is {size} but size of corresponding boolean axis is 3")


def test_the_wrong_length_names_the_axis_of_the_indexed_array():
    A = np.arange(24).reshape(2, 3, 4)
    raises_at(reads_deeper, (A, np.array([True, False])), tpucc.ShapeError,
              match="along axis 2; size of axis is 4 but size of corresponding boolean axis "
                    "is 2", line_of="A[0, :, m]", cache=False)
    raises_at(reads_after_an_int, (A, np.array([True, False])), tpucc.ShapeError,
              match="along axis 1; size of axis is 3 but size of corresponding boolean axis "
                    "is 2", line_of="A[0, m]", cache=False)


def zero_d_mask_reads(X, b):
    return (X[:, b].sum(axis=(0, 2)).sum(), X[:, b].shape, X[b, 1:].sum(),
            X[1:, b, 2].sum(axis=0).sum())


def zero_d_mask_stores(X, b):
    X[:, b] = 7
    X[1:, b, :2] += 1
    return X


@pytest.mark.parametrize("flag", [True, False])
def test_a_0d_mask_among_slices_is_a_new_axis(flag):
    check(zero_d_mask_reads, _x(), np.array(flag))
    check(zero_d_mask_stores, _x(), np.array(flag))


# --- bug_07: results of ops on F-ordered arrays keep NumPy's memory order ------------------

def read_in_memory_order(A):
    return ((A + 1).ravel('K'), np.sort(A, axis=0).ravel('K'), A.astype(float).ravel('K'),
            np.copy(A).ravel('K'), A.copy().flatten('K'), (A * A).ravel('A'),
            np.maximum(A, 2).flatten('K'), (A.T * 2).ravel('K'), np.sort(A.T, axis=1).ravel('K'),
            (A + 1).ravel(), (-A + A).ravel('K'), A.copy(order='C').ravel('K'))


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
@pytest.mark.parametrize("order", ["F", "C"])
def test_results_keep_their_operands_memory_order(order, dtype):
    A = np.array([[3, 1, 2], [0, 9, 4]], dtype=dtype, order=order)
    check(read_in_memory_order, A)


def mixed_orders(A, B, r):
    grid = r[:, None] + np.arange(3.0)[None, :]
    return (grid + A).ravel('K'), (A + 1 + A).ravel('K'), (A + 1).reshape(6)[:2]


def test_mixed_and_broadcast_operands():
    A = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    check(mixed_orders, A, A.copy(), np.arange(2.0))
