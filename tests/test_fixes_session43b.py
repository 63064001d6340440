"""Session 43b's fixes (sweep 43: variable-length and padded data), each
checked against eager NumPy: values, dtypes and the arguments after the call."""
import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import raises_at, same, same_each


N2, N3 = np.int64(2), np.int64(3)


# --- bug_02: out[a:b] = s, s of a static length other than 1 -----------------------------
# (was E200 "an array of shape (2,) would have to match the length of a slice with
# runtime bounds", whose hint said x[i:j] = v compiles)

def _pack(seqs, offsets):
    out = np.zeros(6)
    for i, s in enumerate(seqs):
        out[offsets[i]:offsets[i + 1]] = s
    return out


def _window_write(x, a, s):
    x[a:a + 2] = s              # (a float value into an int array: cast as NumPy casts)
    return x


def _list_into_prefix(x, n):
    x[:n] = [7, 8, 9]
    return x


def _rows_into_prefix(x, n, rows):
    x[n:] = rows
    return x.sum(axis=1)


def _backward(x, a):
    x[a::-1] = np.array([1.0, 2.0, 3.0])
    return x


def test_a_slice_with_runtime_bounds_takes_an_array_of_a_static_length():
    same_each(_pack, ([np.arange(1.0, 3.0), np.arange(1.0, 4.0)], np.array([0, 2, 5])),
              ([np.arange(1.0, 3.0), np.arange(1.0, 4.0)], np.array([1, 3, 9])))   # (clipped)
    same(_window_write, np.zeros(5, np.int32), N2, np.array([1.5, 2.5]))
    same(_window_write, np.zeros(5, np.float32), np.int64(-3), np.array([1, 2]))
    same(_list_into_prefix, np.zeros(5), N3)
    same(_rows_into_prefix, np.zeros((5, 3)), N3, np.arange(6.0).reshape(2, 3))
    same(_backward, np.zeros(5), N2)


def test_a_length_that_does_not_match_raises_numpys_valueerror_when_the_call_returns():
    compiled = tpucc.compile(_list_into_prefix, cache=False)
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,\) "
                                         r"into shape \(2,\)"):
        compiled(np.zeros(5), N2)
    with pytest.raises(ValueError):
        _list_into_prefix(np.zeros(5), N2)


# --- bug_04: .T of a result computed from x[i:j]'s rows --------------------------------

def _prefix_cov(X, n):
    Z = X[:n] - X[:n].mean(axis=0)
    return Z.T @ Z / (n - 1)


def _transposed_scaled(X, n):
    Z = np.transpose(X[1:n] * 2)
    return (Z * 3).sum(axis=1), Z.shape[1]


def _masked_gram(X):
    Z = X[X[:, 0] > 2] - 1
    return Z.T @ Z


def test_the_transpose_of_math_on_a_runtime_slice_compiles():
    X = np.arange(12.0).reshape(4, 3) ** 1.5
    same(_prefix_cov, X, N3)
    same(_prefix_cov, X.astype(np.float32), np.int64(4))
    same(_transposed_scaled, X, N3)
    same(_masked_gram, X)


# --- bug_06: x[:n] broadcast against a column --------------------------------------------

def _masked_loss(err, lengths, n):
    m = np.arange(err.shape[1])[:n] < lengths[:, None]
    return (err[:, :n] * m).sum() / m.sum()


def _mask_rows(lengths, n):
    m = lengths[:, None] >= np.arange(5)[:n]
    return m.sum(axis=1), np.where(m, 1.0, 0.0).sum()


def _scaled(x, w, n):
    return (x[:n] * w).sum(axis=1)          # w: (2, 1) against (k,)


def _new_axis_first(x, lengths, n):
    r = x[:n][None, :]
    return (r < lengths[:, None]).sum(), (r * 2).sum(axis=1), r.shape


def test_a_runtime_slice_broadcasts_against_a_column():
    same(_new_axis_first, np.arange(5.0), np.array([1.0, 3.0]), N3)
    same(_new_axis_first, np.arange(5, dtype=np.int32), np.array([4, 0, 2]), np.int64(-1))
    same(_masked_loss, np.arange(12.0).reshape(3, 4), np.array([1, 3, 2]), N3)
    same(_masked_loss, np.arange(12.0, dtype=np.float32).reshape(3, 4),
         np.array([0, 4, 2], np.int32), np.int64(4))
    same(_mask_rows, np.array([1, 3, 0, 4]), N3)
    same(_scaled, np.arange(6.0), np.array([[1.0], [2.0]]), N3)


# --- bug_07: np.tril / np.triu / np.eye with a runtime k -----------------------------------

def _window_mask(scores, w):
    keep = np.triu(np.tril(np.ones_like(scores, dtype=bool)), -w)
    return np.where(keep, scores, -np.inf)


def _bands(x, k):
    return (np.eye(4, 5, k), np.eye(3, k=k, dtype=np.int32), np.tril(x, k), np.triu(x, -k),
            np.tril(x[0], k), np.eye(3, k=1))


def test_a_runtime_diagonal_offset_compiles():
    same(_window_mask, np.arange(16.0).reshape(4, 4), np.int64(1))
    same(_window_mask, np.arange(16.0, dtype=np.float32).reshape(4, 4), np.int32(0))
    x = np.arange(24).reshape(2, 3, 4)
    same_each(_bands, (x, np.int64(1)), (x, np.int64(7)))   # (values only: one program)
    for k in (np.int32(-2), np.uint8(0)):
        same(_bands, x, k)


# --- bug_08: ufunc.reduce of x[:n] ---------------------------------------------------------

def _reduces(x, n):
    return (np.maximum.reduce(x[:n]), np.add.reduce(x[:n]), np.minimum.reduce(x[1:n]),
            np.multiply.reduce(x[:n], dtype=np.float64))


def _logical(x, n):
    return np.logical_or.reduce(x[:n] > 2), np.logical_and.reduce(x[:n] > 0)


def _rows(X, n):
    return np.add.reduce(X[:n]), np.maximum.reduce(X[:n], axis=0, keepdims=True), \
        np.add.reduce(X[:n], axis=None)


def test_ufunc_reduce_of_a_runtime_slice_compiles():
    same(_reduces, np.arange(1.0, 7.0), N3)
    same(_reduces, np.arange(1, 7, dtype=np.int32), np.int64(5))    # (add.reduce: int64)
    same_each(_logical, (np.arange(6), N3), (np.arange(6), np.int64(0)))
    same(_rows, np.arange(12.0).reshape(4, 3), N3)


def test_maximum_reduce_of_an_empty_slice_raises_numpys_valueerror():
    compiled = tpucc.compile(_reduces, cache=False)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        compiled(np.arange(1.0, 7.0), np.int64(0))


# --- bug_11: writes through x[i:j] other than = and op= ------------------------------------

def _fill_tail(x, a):
    x[a:].fill(1.0)
    return x


def _zero_big_tail(x, a):
    y = x[a:]
    y[y > 3] = 0
    return x


def _copyto_tail(x, a, v):
    np.copyto(x[a:], v)
    return x


def _copyto_where(x, a):
    y = x[:a]
    np.copyto(y, y * 10, where=y > 2)
    return x


def _putmask_tail(x, a):
    y = x[a:]
    np.putmask(y, y > 3, -1)
    return x


def _ellipsis_write(x, a):
    y = x[a:]
    y[...] = 7
    return x


def _rows_fill(X, a):
    X[a:].fill(2)
    X[:a][X[:a] > 4] = -1
    return X


def test_writes_through_a_runtime_slice_view():
    x = np.array([5.0, 1, 4, 2, 7, 3, 6])
    for f in (_fill_tail, _zero_big_tail, _putmask_tail, _ellipsis_write, _copyto_where):
        same(f, x, N2)
        same(f, x.astype(np.int32), np.int64(-3))
    same(_copyto_tail, x, N2, 9.5)
    same(_copyto_tail, x.reshape(7, 1) * np.ones(2), N3, np.array([1.0, 2.0]))
    same(_rows_fill, np.arange(12).reshape(4, 3), N2)


def _putmask_array_values(x, a):
    y = x[a:]
    np.putmask(y, y > 3, np.array([1.0, 2.0]))
    return x


def _copyto_cast(x, a):
    np.copyto(x[a:], 1.5)
    return x


def test_what_the_writes_through_a_runtime_slice_still_refuse():
    # (NumPy cycles array values over the slice's runtime length)
    raises_at(_putmask_array_values, (np.arange(5.0), N2), E.ShapeError,
              "np.putmask of x\\[i:j\\]", line_of="np.putmask")
    # (np.copyto's own same_kind rule)
    raises_at(_copyto_cast, (np.arange(5), N2), E.DTypeError, "same_kind",
              line_of="np.copyto")


# --- bug_01: a short loop over a ragged list left by a runtime return or break ---------------

def _first_big_mean(seqs, thresh):
    for s in seqs:
        if s.sum() > thresh:
            return s.mean()
    return 0.0


def _first_big_mean_break(seqs, thresh):
    res = 0.0
    for s in seqs:
        y = s * 2
        if y.sum() > thresh:
            res = y.mean()
            break
    return res


def _first_big_array(seqs, thresh):
    r = seqs[0]
    for s in seqs:
        if s.sum() > thresh:
            r = s
            break
    return r.sum(), len(r)


RAGGED = [np.arange(2.0), np.arange(5.0), np.arange(3.0)]


@pytest.mark.parametrize("thresh", [-1.0, 2.0, 5.0, 100.0])
def test_a_loop_over_a_ragged_list_left_early_compiles(thresh):
    for f in (_first_big_mean, _first_big_mean_break, _first_big_array):
        same(f, RAGGED, thresh)


def _first_big_std(seqs, thresh):
    res = np.float32(0)
    for s in seqs:
        if s.sum() > thresh:
            res = s.std()
            break
    return res


def test_a_longer_ragged_loop_left_early():
    seqs = [np.arange(float(k % 5 + 1), dtype=np.float32) for k in range(10)]
    for thresh in (6.0, 1e9):
        same(_first_big_std, seqs, thresh)
