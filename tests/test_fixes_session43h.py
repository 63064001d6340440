"""Session 43h: views of views.

bug_01: the diagonal of a non-contiguous array (np.einsum('ii->i', A[1:, 1:]),
A.T.diagonal(), np.diag(A[:, ::-1]), x.diagonal() of a Fortran-ordered
argument) was a detached copy: writes through it never reached A, and it
missed later writes into A.  A diagonal is now a view of its own kind
(indexing.Diagonal), as NumPy's strides make it whatever the layout.
bug_04: a view of a view (A[1:][0], A.T[2], np.einsum('ii->i', A)) updated
or read inside a runtime loop was refused as "reached by another name".
bug_05: x[k:][idx] with a runtime k was refused as a data-dependent shape.
bug_11: writing into a np.broadcast_arrays result was refused saying NumPy
raises ValueError; NumPy 2 writes with a DeprecationWarning.
"""

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each


# --- bug_01: diagonals of any layout are views ------------------------------------------

def _einsum_block(A):
    d = np.einsum('ii->i', A[1:, 1:])
    d[:] = 9
    return A


def _einsum_strided(A):
    np.einsum('ii->i', A[::2, ::2])[:] = 7
    return A


def _anti_diagonal(A):
    d = np.einsum('ii->i', A[:, ::-1])
    d += 1
    return A, d


def _batched(B):
    np.einsum('iji->ij', B)[...] = -1
    return B


def _batched_block(B):
    d = np.einsum('jii->ji', B[:, 1:, 1:])
    d *= 2
    return B


def _in_static_loop(A):
    for k in range(2):
        d = np.einsum('ii->i', A[k:, k:])
        d += 1
    return A


def _transposed_diagonal_sees_write(A):
    d = A.T.diagonal()
    A[1, 1] = 100
    return d.copy()


def _offset_diagonal_sees_write(A):
    d = A.T.diagonal(1)
    A += 1
    return d.copy(), d.dtype


def _diag_of_flipped(A):
    d = np.diag(A[:, ::-1])
    A[0, -1] = 5
    return d.sum()


def _diagonal_of_reversed(A):
    d = np.diagonal(A[::-1])
    A[-1, 0] = -3
    return d.copy()


def _block_diagonal_then_update(A):
    d = A[1:, 1:].diagonal()
    A += 1
    return d * 2


def _fortran_diagonal(x):
    d = x.diagonal()
    x[0, 0] = 42
    return d.copy()


def _view_argument_sum(v):
    np.einsum('ii->i', v)[:] = 3
    return v.sum()


def _ridge(K, lam, n):
    np.einsum('ii->i', K[:n, :n])[:] += lam
    return np.linalg.solve(K[:n, :n], K[:n, n])


def _trace_after_write(A):
    np.einsum('ii->i', A[:-1, 1:])[:] = 1   # the first diagonal above the main one
    return np.trace(A, 1), A


def _returned_diagonal(A):
    return np.einsum('ii->i', A[1:, 1:])


@pytest.mark.parametrize("fn", [_einsum_block, _einsum_strided, _anti_diagonal,
                                _in_static_loop, _transposed_diagonal_sees_write,
                                _offset_diagonal_sees_write, _diag_of_flipped,
                                _diagonal_of_reversed, _block_diagonal_then_update,
                                _trace_after_write])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex64])
def test_diagonal_of_a_strided_view_is_a_view(fn, dtype):
    same(fn, np.arange(16).reshape(4, 4).astype(dtype))


@pytest.mark.parametrize("fn", [_batched, _batched_block])
def test_diagonal_of_a_3d_array(fn):
    same(fn, np.arange(27.0).reshape(3, 3, 3))
    same(fn, np.arange(27, dtype=np.int16).reshape(3, 3, 3))


def test_diagonal_of_a_fortran_ordered_argument():
    same(_fortran_diagonal, np.asfortranarray(np.arange(12.0).reshape(3, 4)))
    same(_fortran_diagonal, np.arange(12.0).reshape(4, 3).T)


def test_diagonal_written_through_a_view_argument():
    base = np.arange(25.0).reshape(5, 5)
    expected_base, actual_base = base.copy(), base.copy()
    expected = _view_argument_sum(expected_base[::2, ::2])
    actual = tpucc.compile(_view_argument_sum, cache=False)(actual_base[::2, ::2])
    assert actual == expected
    np.testing.assert_array_equal(actual_base, expected_base)


def test_ridge_on_a_leading_block():
    K = np.array([[2.0, 1.0, 1.0], [1.0, 3.0, 2.0], [0.0, 0.0, 1.0]])
    same(_ridge, K, 0.1, 2)


def test_returned_diagonal_is_a_view_of_the_argument():
    A = np.arange(9.0).reshape(3, 3)
    d = tpucc.compile(_returned_diagonal, cache=False)(A)
    np.testing.assert_array_equal(d, [4.0, 8.0])
    d[:] = -1                   # NumPy's einsum view: writes reach A
    np.testing.assert_array_equal(np.diag(A), [0.0, -1.0, -1.0])


def test_np_diagonal_stays_read_only():
    def f(A):
        d = A[:, ::-1].diagonal()
        d[0] = 1
        return A
    raises_at(f, (np.zeros((3, 3)),), match="read-only", line_of="d[0] = 1", cache=False)


def test_einsum_diagonal_of_a_non_square_matrix_is_refused_as_numpy_does():
    def f(A):
        return np.einsum('ii->i', A)
    with pytest.raises(ValueError):
        f(np.zeros((2, 3)))
    raises_at(f, (np.zeros((2, 3)),), match="does not match", line_of="einsum", cache=False)


# --- bug_04: a view of a view in a runtime loop -------------------------------------------

_CHAINED_VIEWS = {
    "A[1:][0]": lambda A: A[1:][0],
    "A.T[2]": lambda A: A.T[2],
    "A.T[:, 1]": lambda A: A.T[:, 1],
    "A[::-1][0]": lambda A: A[::-1][0],
    "np.flip(A)[0]": lambda A: np.flip(A)[0],
    "np.swapaxes(A, 0, 1)[0]": lambda A: np.swapaxes(A, 0, 1)[0],
    "np.moveaxis(A, 0, 1)[1]": lambda A: np.moveaxis(A, 0, 1)[1],
    "np.rot90(A)[0]": lambda A: np.rot90(A)[0],
    "A.T.T[0]": lambda A: A.T.T[0],
    "A[:, ::-1][1]": lambda A: A[:, ::-1][1],
    "A[1][::2]": lambda A: A[1][::2],
    "A.reshape(-1)[::2]": lambda A: A.reshape(-1)[::2],
    "np.squeeze(A[None])[0]": lambda A: np.squeeze(A[None])[0],
    "A[None][0, 1]": lambda A: A[None][0, 1],
    "einsum('ii->i', A)": lambda A: np.einsum('ii->i', A),
    "einsum('ii->i', A[1:, 1:])": lambda A: np.einsum('ii->i', A[1:, 1:]),
    "A.T[1:][0]": lambda A: A.T[1:][0],
}


@pytest.mark.parametrize("name", list(_CHAINED_VIEWS))
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_view_of_a_view_updated_in_a_runtime_loop(name, dtype):
    view = _CHAINED_VIEWS[name]

    def f(A, n):
        v = view(A)
        for i in range(n):
            v += i
        return A
    same_each(f, (np.arange(9).reshape(3, 3).astype(dtype), np.int64(3)),
              (np.arange(9).reshape(3, 3).astype(dtype), np.int64(0)))


def test_view_of_a_view_in_a_while_on_runtime_data():
    def f(A, limit):
        v = A.T[1]
        while v.sum() < limit:
            v *= 2
        return A, v.copy()
    same(f, np.arange(1.0, 10.0).reshape(3, 3), 200.0)


def test_view_of_a_view_read_after_writes_to_its_base():
    def f(A, n):
        c = A.T[0]
        s = 0.0
        for i in range(n):
            A[i, 0] += 1
            s += c.sum()
        return s, A
    same(f, np.arange(12.0).reshape(4, 3), np.int64(3))


def test_view_of_a_view_and_its_base_both_written():
    def f(A, n):
        v = A[:, ::-1][0]
        for i in range(n):
            v[0] += 1               # A[0, -1]
            A[0] *= 2
        return A, v.sum()
    same(f, np.ones((2, 3), np.float32), np.int64(3))


def test_view_of_a_view_rebound_in_the_loop():
    def f(A, n):
        v = A.T[0]
        for i in range(n):
            v = v + 1               # rebinds: A unchanged
        return A, v
    same(f, np.arange(6.0).reshape(2, 3), np.int64(4))


def test_base_rebound_while_a_view_of_a_view_is_written():
    # (refused as for a one-step view, A[1]: which array the update goes
    # into changes after the first iteration)
    def f(A, n):
        v = A[1:][0]
        for i in range(n):
            v += 1
            A = A * 2
        return A, v.copy()
    raises_at(f, (np.arange(6.0).reshape(3, 2), np.int64(3)),
              match="updated in place and then rebound", line_of="for i in range(n)", cache=False)


# --- bug_05: rows of a runtime slice picked by an index array ----------------------------

def _pick(x, k, idx):
    return x[k:][idx]


def _pick_store(x, k, idx):
    x[k:][idx] = -1
    return x


def _pick_add(x, k, idx):
    x[k:][idx] += 1             # duplicates add once, as in NumPy
    return x


def _take(x, k, idx):
    return np.take(x[k:], idx)


def _take_method(x, k, idx):
    return x[k:].take(idx), x[k:].take(idx, axis=0).dtype


def _take_axis0(x, k, idx):
    return np.take(x.reshape(3, 2)[k - 1:], idx[::2], axis=0)


def _add_at(x, k, idx):
    np.add.at(x[k:], idx, 1)    # duplicates add each time
    return x


def _backwards(x, k, idx):
    return x[k::-1][idx]


def _head(x, k, idx):
    return x[:k + 2][idx]


def _matrix_rows(x, k, idx):
    m = x.reshape(3, 2)
    return m[k - 1:][idx[::2], 1], m[k - 1:][idx[::2]]


def _masked(x, k, idx):
    return x[x > k][idx]


def _static_list(x, k, idx):
    return x[k:][[1, 0]]


def _reads(x, k, idx):
    # (the reads of the same arguments in one program: each is its own compile otherwise)
    return (_pick(x, k, idx), _take(x, k, idx), _take_method(x, k, idx), _take_axis0(x, k, idx),
            _backwards(x, k, idx), _head(x, k, idx), _matrix_rows(x, k, idx), _masked(x, k, idx),
            _static_list(x, k, idx))


@pytest.mark.parametrize("fn", [_reads, _pick_store, _pick_add, _add_at])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_runtime_slice_indexed_by_an_array(fn, dtype):
    x = np.arange(6).astype(dtype)
    same(fn, x, np.int64(2), np.array([0, 2, -1]))
    same(fn, x, np.int64(1), np.array([0, 0, 1], np.int32))


def test_runtime_slice_indexed_by_a_2d_array():
    same(_pick, np.arange(6.0), np.int64(1), np.array([[0, 1], [2, 3]]))


def test_runtime_slice_index_out_of_range_raises_index_error():
    with pytest.raises(IndexError):
        _pick(np.arange(6.0), np.int64(4), np.array([0, 2]))
    with pytest.raises(IndexError):
        tpucc.compile(_pick, cache=False)(np.arange(6.0), np.int64(4), np.array([0, 2]))


# --- bug_11: writing into np.broadcast_arrays' result ------------------------------------

def test_write_into_broadcast_arrays_result_names_the_deprecation():
    def f(a, b):
        x, y = np.broadcast_arrays(a, b)
        y[0] = 5
        return y
    raises_at(f, (np.arange(3.0), np.zeros((2, 1))), match="DeprecationWarning.*broadcast|"
              "broadcast_arrays.*DeprecationWarning", line_of="y[0] = 5", cache=False)
    err = raises_at(f, (np.arange(3.0), np.zeros((2, 1))), cache=False)
    assert "raises ValueError" not in str(err) and "copy()" in str(err)


def test_broadcast_arrays_result_still_reads():
    def f(a, b):
        x, y = np.broadcast_arrays(a, b)
        z = y.copy()
        z[0] = 5
        return x + z, x.shape
    same(f, np.arange(3.0), np.zeros((2, 1), np.float32))


# --- diagonal views under runtime control flow and AD ---------------------------------------

def test_anti_diagonal_written_under_a_runtime_if():
    def f(A, c):
        d = np.einsum('ii->i', A[:, ::-1])
        if c > 0:
            d += 1
        else:
            A[0, 2] = 50
        return A, d.copy()
    same(f, np.zeros((3, 3)), 1.0)
    same(f, np.zeros((3, 3)), -1.0)


def test_transposed_diagonal_read_in_a_runtime_loop():
    def f(A, n):
        d = A.T.diagonal()
        s = 0.0
        for i in range(n):
            A[i, i] += 1
            s += d.sum()
        return s, A
    same(f, np.zeros((3, 3)), np.int64(3))


def test_gradient_through_diagonals_of_views():
    def loss(A):
        return np.trace(A[:, ::-1] @ A) + np.einsum('ii->i', A[1:, 1:]).sum() ** 2
    A = np.arange(9.0).reshape(3, 3) / 10
    eps, numeric = 1e-6, np.zeros_like(A)
    for i in np.ndindex(A.shape):
        up, down = A.copy(), A.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (loss(up) - loss(down)) / (2 * eps)
    np.testing.assert_allclose(tpucc.grad(loss)(A), numeric, rtol=1e-5, atol=1e-6)
