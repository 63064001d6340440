"""Slices with runtime bounds on an axis other than the first, or on two
axes (tpucc/ops/boxes.py): Q[:, :j], L[j + 1:, :j], A[k + 1:, k + 1:].
Each program is compared with eager NumPy for bounds in range, at the
edges, out of range and negative, and the textbook loops that use them
must be one While."""
import warnings

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import assert_same, check, count_hlo, hlo, raises_at

RT = {"runtime_args": ("i", "j")}


def _matrix(shape=(5, 6), seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# --- reading: reductions, elementwise math, products --------------------------------------

def _reductions(a, i, j):
    b = a[i:, j:]
    return (b.sum(), np.sum(b * 2 + 1), b.sum(axis=(0, 1)), np.abs(b).sum(), b.mean(),
            np.prod(b[:, :, None] * 0 + 1.5), (b > 0).any(), (b > -10).all(),
            np.min(b, axis=0).sum(), np.minimum(b, 0).sum())


def _axis_reductions(a, i, j):
    # a reduction over one axis keeps the other's mask: reduce it again, or
    # combine it with a slice of the same bounds
    b = a[:, i:j]
    rows = b.sum(axis=1)            # one value per row: an Array
    cols = b.max(axis=0)            # one per selected column: a slice again
    return rows, cols.sum(), (cols - a[0, i:j]).min(initial=5.0), b.mean(axis=1), \
        b.sum(axis=1, keepdims=True)


def _transposes(a, i, j):
    b = a[i:, :j]
    return ((b.T * 2).sum(axis=0).sum(), np.transpose(b).sum(axis=1).max(initial=-9.0),
            b.T.shape, b.shape, len(b), b.transpose(1, 0).sum(axis=1).min(initial=9.0))


def _shape_and_size(a, i, j):
    b = a[i:, :j]
    r, c = b.shape
    return r, c, b.size, b.ndim


def _products(a, i, j):
    q = a[:, :j]
    v = a[:, 0]
    coeff = q.T @ v                 # one per selected column
    proj = q @ coeff                # contracts the selected columns: an Array
    rows = a[i:, :j] @ a[0, :j]     # Cholesky's L[j + 1:, :j] @ L[j, :j]
    gram = q.T @ q                  # both axes selected
    return proj, rows.sum(), gram.sum(), np.dot(a[i:, :j], a[0, :j]).max()


def _outer_products(a, i, j):
    x = a[:, 0]
    o1 = np.outer(x[i:], x[j:])
    o2 = np.outer(x, x[j:])         # the selection on the right: columns
    o3 = np.outer(x[i:], x)
    return o1.sum(), o2.sum(axis=0).sum(), o2.sum(axis=1), o3.max()


READERS = (_reductions, _axis_reductions, _transposes, _shape_and_size, _products,
           _outer_products)


def _all_readers(a, i, j):
    # (every reader as one program: one compile for all the bounds)
    return tuple(program(a, i, j) for program in READERS)


@pytest.mark.parametrize("i, j", [(1, 3), (0, 6), (4, 1), (-2, -3), (2, 100), (-100, 2)])
def test_reading_a_box_matches_numpy(i, j):
    check(_all_readers, _matrix(), i, j, rtol=1e-12, atol=1e-12, compile_kwargs=RT)


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.complex64, np.bool_])
def test_box_dtypes(dtype):
    def f(a, i, j):
        b = a[i:, :j]
        return b.sum(), (b * b).sum(axis=0).sum(), b.astype(np.float64).mean()
    a = (np.arange(30).reshape(5, 6) % 4).astype(dtype)
    check(f, a, 1, 4, compile_kwargs=RT)


# --- writing: assignment and in-place operators --------------------------------------------

def _assign_scalar(a, i, j):
    a[i:, :j] = 7.0
    return a


def _assign_row(a, i, j):
    a[i:, j:] = a[0, j:]            # a row of the same columns, repeated
    return a


def _assign_column(a, i, j):
    a[:, i:j] = a[:, :1] * 2        # a column broadcast over the selected columns
    return a


def _update_in_place(a, i, j):
    a[i:, j:] -= np.outer(a[i:, 0], a[0, j:])
    a[:i, :j] *= 2
    return a


def _update_through_view(a, i, j):
    b = a[i:, :j]
    b += 1                          # b is a view: a changes
    return a, b.sum()


def _int_into_float_and_back(a, i, j):
    ints = np.zeros(a.shape, np.int64)
    ints[i:, :j] = a[i:, :j] * 10    # cast as NumPy's assignment casts
    return ints


WRITERS = (_assign_scalar, _assign_row, _assign_column, _update_in_place, _update_through_view,
           _int_into_float_and_back)


def _all_writers(a0, a1, a2, a3, a4, a5, i, j):
    # (every writer as one program, each on its own argument, whose final
    # contents `check` compares: one compile for all the bounds)
    return tuple(program(a, i, j) for program, a in zip(WRITERS, (a0, a1, a2, a3, a4, a5)))


@pytest.mark.parametrize("i, j", [(1, 3), (0, 6), (5, 0), (-2, -3), (2, 100)])
def test_writing_a_box_matches_numpy(i, j):
    arrays = [_matrix() for _ in WRITERS]       # distinct arrays, not one aliased six times
    check(_all_writers, *arrays, i, j, rtol=1e-12, atol=1e-12, compile_kwargs=RT)


def test_a_third_axis_and_an_ellipsis():
    def f(x, i, j):
        y = x[..., i:, :j]
        x[:, i:, 1:j] += 1
        return y.sum(axis=(1, 2)), x, x[0, :, i:].sum(axis=0).sum()
    x = np.arange(60.0).reshape(3, 4, 5)
    check(f, x, 1, 3, compile_kwargs=RT)
    check(f, x, 0, 5, compile_kwargs=RT)


def test_a_static_index_and_new_axes_around_the_slices():
    def f(a, i, j):
        b = a[i:, None, :j]
        return b.sum(axis=2).sum(axis=0), a[None, i:, j:].sum(axis=(0, 1)).sum(), a[i:, :j][None].max()
    check(f, _matrix(), 2, 4, compile_kwargs=RT)


# --- the textbook loops: one While each ---------------------------------------------------

def _cholesky(a):
    n = a.shape[0]
    low = np.zeros_like(a)
    for j in range(n):
        low[j, j] = np.sqrt(a[j, j] - np.dot(low[j, :j], low[j, :j]))
        low[j + 1:, j] = (a[j + 1:, j] - low[j + 1:, :j] @ low[j, :j]) / low[j, j]
    return low


def _lu_in_place(a):
    n = a.shape[0]
    for k in range(n - 1):
        a[k + 1:, k] /= a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return a


def _gram_schmidt(a):
    m, n = a.shape
    q = np.zeros_like(a)
    for j in range(n):
        v = a[:, j] - q[:, :j] @ (q[:, :j].T @ a[:, j])
        q[:, j] = v / np.linalg.norm(v)
    return q


def _upper_triangle_sums(a):
    n = a.shape[0]
    out = np.zeros(n)
    for k in range(n):
        out[k] = a[k:, k:].sum() - a[:k, :k].sum()
    return out


def _householder_qr(a):
    m, n = a.shape
    for k in range(n):
        v = a[k:, k].copy()
        v[0] += np.sign(v[0]) * np.linalg.norm(v)       # the slice's first element
        v /= np.linalg.norm(v)
        a[k:, k:] -= 2.0 * np.outer(v, v @ a[k:, k:])
    return a


def _modified_gram_schmidt(a):
    m, n = a.shape
    q, r = np.zeros_like(a), np.zeros((n, n))
    for k in range(n):
        r[k, k] = np.linalg.norm(a[:, k])
        q[:, k] = a[:, k] / r[k, k]
        r[k, k + 1:] = q[:, k] @ a[:, k + 1:]
        a[:, k + 1:] -= np.outer(q[:, k], r[k, k + 1:])
    return q, r


def _crout(a):
    n = a.shape[0]
    low, up = np.zeros_like(a), np.eye(n)
    for j in range(n):
        low[j:, j] = a[j:, j] - low[j:, :j] @ up[:j, j]
        up[j, j + 1:] = (a[j, j + 1:] - low[j, :j] @ up[:j, j + 1:]) / low[j, j]
    return low, up


def _back_substitution_of_many(a):
    n = a.shape[0]
    u, b = np.triu(a), a[:, :3]
    x = np.zeros_like(b)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - u[i, i + 1:] @ x[i + 1:]) / u[i, i]
    return x


@pytest.mark.parametrize("program", [_cholesky, _lu_in_place, _gram_schmidt,
                                     _upper_triangle_sums, _householder_qr,
                                     _modified_gram_schmidt, _crout,
                                     _back_substitution_of_many])
def test_textbook_loops_over_two_axis_slices_are_one_while(program):
    m = np.random.default_rng(5).standard_normal((9, 9))
    a = m @ m.T + 9 * np.eye(9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)     # not unrolled
        compiled = check(program, a, rtol=1e-10, atol=1e-10, compile_kwargs={"unroll": 2})
    assert count_hlo(hlo(compiled, a), "while") == 1
    np.testing.assert_allclose(_cholesky(a.copy()) @ _cholesky(a.copy()).T, a, rtol=1e-10)


# --- what stays refused, and the errors NumPy raises ----------------------------------------

def test_max_of_an_empty_box_raises_numpys_value_error():
    def f(a, i, j):
        return a[i:, :j].max()
    compiled = tpucc.compile(f, runtime_args=("i", "j"))
    assert compiled(_matrix(), 1, 2) == f(_matrix(), 1, 2)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        compiled(_matrix(), 1, 0)


def test_what_a_box_refuses():
    def full_array_on_a_masked_axis(a, i, j):
        return (a[:, :j] + a).sum()

    def row_of_it(a, i, j):
        return a[i:, :j][[0, 1]]

    def returned(a, i, j):
        return a[i:, :j]
    a = _matrix()
    raises_at(full_array_on_a_masked_axis, (a, 1, 2), E.ShapeError,
              "would have to match the length of a slice", line_of="+ a)",
              runtime_args=("i", "j"))
    raises_at(row_of_it, (a, 1, 2), E.ShapeError, "indexing x\\[i:j, k:l\\] again",
              line_of="[[0, 1]]", runtime_args=("i", "j"))
    raises_at(returned, (a, 1, 2), E.ShapeError, "returning", line_of="return",
              runtime_args=("i", "j"))


def test_norms_of_a_box():
    def f(a, i, j):
        b = a[i:, :j]
        return (np.linalg.norm(b), np.linalg.norm(b, axis=1).sum(), np.linalg.norm(b, axis=0).sum(),
                np.linalg.norm(b, "fro"), np.linalg.norm((b * 10).astype(np.int64)))
    for i, j in [(1, 4), (0, 6), (5, 0)]:
        check(f, _matrix(), i, j, rtol=1e-12, atol=1e-12, compile_kwargs=RT)


def test_gradient_through_two_axis_slices():
    from conftest import numeric_grad

    def loss(a, k):
        return (a[k:, :k + 1] ** 2).sum() + (a[:, k:] @ a[k, k:]).sum()

    @tpucc.compile(runtime_args=("k",))
    def grad(a, k):
        return tpucc.grad(loss)(a, k)
    a = _matrix()
    for k in (0, 2, 4):
        np.testing.assert_allclose(grad(a, k), numeric_grad(lambda x: loss(x, k), a),
                                   rtol=1e-6, atol=1e-6)


# --- an int index of a runtime slice: its row, found at run time -------------------------

def test_a_row_of_a_runtime_slice():
    def f(x, a, k):
        v = x[k:].copy()
        v[0] += 100.0               # its first element (a copy: x stays)
        v[-1] = -1.0
        a[k:][0][1] = 7.0           # a view of a's row k: a changes
        back = x[k::-1]
        return v.sum(), x[k:][1], back[0], back[-1], a, x[x > 0][0]
    x = np.arange(6.0) - 2
    a = np.arange(12.0).reshape(4, 3)
    for k in (0, 2, 3):
        check(f, x, a, k, compile_kwargs={"runtime_args": ("k",)})
    compiled = tpucc.compile(f, runtime_args=("k",))
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        compiled(x, a, 5)


def test_a_window_of_static_length_beside_a_runtime_slice():
    def f(a, n):
        out = 0.0
        for k in range(n - 1):      # windows of two rows or columns beside runtime slices
            out += a[:k + 1, k:k + 2].sum() + a[k + 1:, k:k + 2].max(axis=1).sum() + \
                a[k:k + 2, :k + 1].sum() + a[k:k + 2, k + 1:].max(axis=0).sum()
        return out
    a = _matrix((6, 6))
    compiled = check(f, a, 6, rtol=1e-12, atol=1e-12, compile_kwargs={"runtime_args": ("n",)})
    assert count_hlo(hlo(compiled, a, 6), "while") == 1


def test_a_ufunc_out_into_a_box():
    def f(a, i, j):
        np.add(a[i:, :j], 1.0, out=a[i:, :j])
        r = np.multiply(a[i:, j:], 2, out=a[i:, j:])
        return a, r.sum()
    for i, j in [(1, 4), (0, 6), (5, 0)]:
        check(f, _matrix(), i, j, compile_kwargs=RT)


# --- sweep 37g: views through names, ints on sliced axes, in-place products -----------------

def test_writes_through_a_named_view_of_a_box():
    def f(a, i, j):
        b = a[i:, :j]
        b[:] = 0.5                  # into a
        b[:, 0] += 1                # (a Selection of b's rows: still a view)
        c = a[i:, :j].astype(a.dtype, copy=False)
        c *= 2                      # the same array: a view
        d = a[:, j:]
        d[0] = -1.0                 # its first row: sliced by an int
        return a, b.sum()
    for i, j in [(1, 4), (0, 6), (5, 2), (2, 1)]:
        check(f, _matrix(), i, j, compile_kwargs=RT)


def test_an_int_on_a_sliced_axis_of_a_box():
    def f(a, i, j):
        b = a[i:, :j]
        return b[0].sum(), b[:, -1].sum(), b[-1, 0], b[0][1]
    for i, j in [(1, 4), (4, 3)]:
        check(f, _matrix(), i, j, compile_kwargs=RT)
    compiled = tpucc.compile(f, runtime_args=("i", "j"))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        compiled(_matrix(), 5, 3)


def test_a_runtime_row_of_a_runtime_slice():
    def f(x, k, j):
        v = x[k:]
        return v[j], x[k:][-j - 1]
    x = np.arange(6.0) * 1.5
    check(f, x, 1, 2, compile_kwargs={"runtime_args": ("k", "j")})


def test_in_place_matrix_product_of_runtime_rows():
    def f(a, m, k):
        rows = a[k:]
        rows @= m                   # a view: a's rows k on change
        return a
    a, m = _matrix((5, 3)), _matrix((3, 3), seed=1)
    for k in (0, 2, 5):
        check(f, a, m, k, rtol=1e-12, atol=1e-12, compile_kwargs={"runtime_args": ("k",)})


def test_the_same_bound_written_out_twice_deep():
    def f(a, t):
        n = a.shape[1]
        return (a[:, n - 2 * (t + 1) - 1:] * a[:, n - 2 * (t + 1) - 1:]).sum()
    check(f, _matrix(), 1, compile_kwargs={"runtime_args": ("t",)})


# --- slices by different bounds, or on axes of different lengths, pair in order -------------

def _columns_by_different_bounds(a, i, j):
    n = a.shape[1]
    return (a[:, :n - j] * a[:, j:]).sum(axis=1), (a[i:, :n - j] - a[i:, j:]).sum()


def _rows_and_columns_by_different_bounds(a, i, j):
    return (a[i:, :j] * a[:i, :j]).sum(), (a[i:, :j] + a[i:, j:2 * j]).sum(axis=0).sum()


def _rank_k_reconstruction(a, i, j):
    u, s, vt = np.linalg.svd(a)             # full_matrices: u is 5x5, s has 5, vt 6x6
    return (u[:, :i] * s[:i]) @ vt[:i, :], (u[:, -i:] * s[-i:]) @ vt[-i:]


def _stored_from_a_wider_array(a, i, j):
    b = np.zeros((5, 4))
    b[:, :j] = a[:, :j]
    b[1:, j:] += a[1:, :4 - j] * 2
    return b


def _contracted_by_different_bounds(a, i, j):
    n = a.shape[1]
    return a[:, :n - j] @ a[0, j:], a[:2, j:] @ a[:, :n - j].T


@pytest.mark.parametrize("program", [_columns_by_different_bounds,
                                     _rows_and_columns_by_different_bounds,
                                     _rank_k_reconstruction, _stored_from_a_wider_array,
                                     _contracted_by_different_bounds])
@pytest.mark.parametrize("i, j", [(1, 2), (3, 1), (0, 4), (4, 0), (5, 3), (2, 2)])
def test_slices_by_different_bounds_pair_in_order(program, i, j):
    a = _matrix()
    try:
        want = program(a.copy(), i, j)
    except ValueError as e:                 # lengths that do not pair: NumPy's error, at run time
        with pytest.raises(ValueError, match=str(e).split(":")[0].strip()[:30]):
            tpucc.compile(program, **RT)(a.copy(), i, j)
        return
    check(program, a, i, j, compile_kwargs=RT)


def test_one_element_repeats_against_a_runtime_slice():
    def f(a, i, j):
        return (a[:, i:i + 1] * a[:, :j]).sum(axis=1), (a[:, :j] - a[:, j:j + 1]).sum()
    for i, j in [(1, 3), (2, 1), (5, 4)]:
        check(f, _matrix(), i, j, compile_kwargs=RT)


def test_one_dimensional_slices_of_arrays_of_different_lengths():
    def f(x, y, k):
        return (x[:k] + y[:k]).sum(), np.dot(x[-k:], y[-k:])
    compiled = tpucc.compile(f, runtime_args=("k",))
    x, y = np.arange(4.0), np.arange(6.0) * 2
    for k in (1, 2, 4):
        assert_same(f(x, y, k), compiled(x, y, k))
    with pytest.raises(ValueError, match=r"broadcast together with shapes \(4,\) \(5,\)"):
        compiled(x, y, 5)
