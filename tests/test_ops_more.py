"""Differential tests of the NumPy functions composed in tpucc/ops/manipulation.py,
matrix.py, sorting.py, logic.py, assign.py and solvers.py: each program runs
eagerly with NumPy and compiled, and `check` compares values, dtypes, shapes,
the kind of 0-d results and the arguments' final contents (in-place updates
and writes through views).  Then refusals (error class, message and the
user's line) and gradients through sort, norm, tril, split and the solvers
against central finite differences.
"""
import copy

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import assert_same, check, raises_at
from test_grad import numeric_grad

FLOATS = [np.float32, np.float64]
NUMBERS = [np.float32, np.float64, np.int32, np.int64]
ALL = NUMBERS + [np.bool_]


def _r(shape, dtype=np.float64, seed=0, lo=-4, hi=5):
    """Small integers (as floats for float dtypes, so sums are exact) or bools."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    return rng.integers(lo, hi, size=shape).astype(dt)


def _distinct(shape, dtype=np.float64, seed=0):
    """A permutation of 0..n-1 (so no ties), shifted to include negatives."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) - n // 2).reshape(shape).astype(dtype)


def _specials(dtype):
    x = np.array([2.5, np.nan, -1.0, np.inf, 0.0, -np.inf, 3.0, np.nan, -0.5], dtype)
    return x


# --- split family ------------------------------------------------------------------------

def splits(x):
    return (np.split(x, 2), np.split(x, [1, 3]), np.array_split(x, 4),
            np.array_split(x, [2, 100, 1, -1]), np.split(x, []), np.hsplit(x, 2),
            np.array_split(x, 2.0))


def splits_2d(x):
    return (np.split(x, 3, axis=-1), np.array_split(x, 4, axis=1), np.vsplit(x, [1]),
            np.hsplit(x, [2, 4]), np.split(x, 2, axis=0))


def splits_3d(x):
    return np.dsplit(x, 2), np.array_split(x, 3, axis=1), np.vsplit(x, 2)


def splits_1d_2d_3d(v, m, t):
    # (one program for the three: each check is an XLA compile)
    return splits(v), splits_2d(m), splits_3d(t)


@pytest.mark.parametrize("dtype", ALL)
def test_split(dtype):
    check(splits_1d_2d_3d, _r((6,), dtype), _r((4, 6), dtype), _r((2, 3, 4), dtype))


def split_pieces_are_views(x):
    top, bottom = np.split(x, 2)
    top[0] = 99.0               # writes into x, as NumPy's views do
    left, right = np.hsplit(x, 2)
    right += 1.0
    return top, bottom, left, right


def test_split_pieces_are_views():
    check(split_pieces_are_views, _r((4, 6)))


def split_unequal(x):
    return np.split(x, 4)  # <- here


def split_zero_sections(x):
    return np.array_split(x, 0)  # <- here


def vsplit_vector(x):
    return np.vsplit(x, 2)  # <- here


def split_scalar(x):
    return np.split(x[0], 1)  # <- here


def split_runtime_sections(x):
    return np.split(x, x.shape[0] // 2 + x[0].astype(np.int64))  # <- here


# --- np.linalg.norm -------------------------------------------------------------------------

def vector_norms(v):
    return (np.linalg.norm(v), np.linalg.norm(v, 2), np.linalg.norm(v, 1),
            np.linalg.norm(v, -1), np.linalg.norm(v, 0), np.linalg.norm(v, np.inf),
            np.linalg.norm(v, -np.inf), np.linalg.norm(v, 3), np.linalg.norm(v, 0.5),
            np.linalg.norm(v, keepdims=True), np.linalg.norm(v, 1, axis=0, keepdims=True))


def matrix_norms(m):
    return (np.linalg.norm(m), np.linalg.norm(m, "fro"), np.linalg.norm(m, 1),
            np.linalg.norm(m, -1), np.linalg.norm(m, np.inf), np.linalg.norm(m, -np.inf),
            np.linalg.norm(m, axis=0), np.linalg.norm(m, 1, axis=1),
            np.linalg.norm(m, np.inf, axis=-1, keepdims=True),
            np.linalg.norm(m, 1, axis=(1, 0), keepdims=True),
            np.linalg.norm(m, keepdims=True), np.linalg.norm(m, "f", axis=(0, 1)))


def stacked_norms(t):
    return (np.linalg.norm(t), np.linalg.norm(t, axis=(0, 2)), np.linalg.norm(t, 1, axis=(2, 0)),
            np.linalg.norm(t, -np.inf, axis=(1, 2), keepdims=True), np.linalg.norm(t, 4, axis=1),
            np.linalg.norm(t, axis=1.0))


def all_norms(v, m, t):
    # (one program for the three: each check is an XLA compile)
    return vector_norms(v), matrix_norms(m), stacked_norms(t)


@pytest.mark.parametrize("dtype", ALL)
def test_norm(dtype):
    # values away from zero: |x| ** 0.5 and ** -1 are defined
    check(all_norms, _r((7,), dtype, lo=1) if dtype != np.bool_ else np.ones(7, bool),
          _r((3, 5), dtype), _r((2, 3, 4), dtype), rtol=1e-5)


def empty_and_scalar_norms(e, s):
    return (np.linalg.norm(e, np.inf), np.linalg.norm(e), np.linalg.norm(e, 1),
            np.linalg.norm(s), np.linalg.norm(s, keepdims=True),
            np.linalg.norm(e.reshape(0, 3), 1, axis=(0, 1)),
            np.linalg.norm(e.reshape(3, 0), np.inf, axis=(0, 1)))


def test_norm_empty_and_scalar():
    check(empty_and_scalar_norms, np.zeros(0), np.array(-2.5))


def singular_value_norms(m):
    return np.linalg.norm(m, 2), np.linalg.norm(m, -2), np.linalg.norm(m, "nuc", axis=(1, 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_norm_by_singular_values(dtype):
    """ord 2, -2 and 'nuc' of matrices (session 15: through np.linalg.svd)."""
    check(singular_value_norms, _r((3, 5), dtype), rtol=1e-5)


def norm_bad_matrix_ord(m):
    return np.linalg.norm(m, 3, axis=(0, 1))  # <- here


def norm_fro_vector(m):
    return np.linalg.norm(m, "fro", axis=0)  # <- here


def norm_three_axes(t):
    return np.linalg.norm(t, 1)  # <- here


def norm_duplicate_axes(m):
    return np.linalg.norm(m, 1, axis=(1, -1))  # <- here


def norm_list_axis(m):
    return np.linalg.norm(m, axis=[0, 1])  # <- here


def test_norm_float16_keeps_dtype():
    check(lambda v: (np.linalg.norm(v), np.linalg.norm(v, 1)), _r((5,), np.float16), rtol=2e-3)


# --- sort / argsort --------------------------------------------------------------------------

def sorts(x):
    return (np.sort(x), np.sort(x, axis=0), np.sort(x, axis=None), np.sort(x, kind="stable"),
            np.sort(x, stable=True), np.sort(x, kind="heapsort", axis=-2))


def argsorts(x):
    return (np.argsort(x), np.argsort(x, axis=0), np.argsort(x, axis=None), x.argsort(axis=1),
            np.argsort(x, kind="mergesort"))


def sorts_and_argsorts(x, d):
    # (one program for the two checks of a dtype: each check is an XLA compile)
    return sorts(x), argsorts(d)


@pytest.mark.parametrize("dtype", ALL + [np.int8, np.uint8, np.float16])
def test_sort(dtype):
    if dtype in (np.bool_, np.uint8):
        check(sorts, _r((3, 4, 5), dtype))
    else:
        # with the argsorts of NUMBERS, int8 and float16 (one program): NumPy's
        # default (quicksort) orders ties as it likes, so distinct values there
        check(sorts_and_argsorts, _r((3, 4, 5), dtype), _distinct((3, 4, 5), dtype))


def stable_argsorts(x):
    return np.argsort(x, kind="stable"), np.argsort(x, axis=0, stable=True)


def stable_and_default_argsorts(x):
    return stable_argsorts(x), np.argsort(x)


@pytest.mark.parametrize("dtype", ALL)
def test_argsort_ties_are_stable(dtype):
    x = _r((6, 40), dtype, lo=0, hi=3)       # many ties
    # the default kind is stable too (NumPy's quicksort may order ties
    # differently): compared with NumPy's stable sort, in the same program
    arg = x.copy()
    stable, default = tpucc.compile(stable_and_default_argsorts)(arg)
    assert_same(stable_argsorts(x.copy()), stable)
    assert_same(np.argsort(x, kind="stable"), default)
    assert_same(x, arg)


def nan_sorts(x):
    return np.sort(x), np.argsort(x, kind="stable"), np.sort(x.reshape(3, 3), axis=0)


def zero_d_sorts(x):
    return np.sort(x, axis=None), np.argsort(x), np.argsort(x, axis=0), x.argsort(axis=None)


def nan_and_zero_d_sorts(x, s):
    return nan_sorts(x), zero_d_sorts(s)


@pytest.mark.parametrize("dtype", FLOATS + [np.float16])
def test_sort_puts_nan_last_and_sorts_zero_d(dtype):
    if dtype == np.float64:     # with the sorts of a 0-d array: one program
        check(nan_and_zero_d_sorts, _specials(dtype), np.array(2.5))
    else:
        check(nan_sorts, _specials(dtype))


def sort_in_place(x, y):
    alias = x
    x.sort()                        # in place: `alias` sees it, and x is written back
    y[1].sort()                     # a row, through a view of y
    y[:, ::2].sort(axis=0)
    return alias, x.sort()


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.bool_])
def test_sort_method_in_place(dtype):
    check(sort_in_place, _r((3, 5), dtype), _r((3, 4), dtype, seed=1))


def in_place_under_runtime_control(x, n):
    y = x.copy()
    for i in range(n):              # a runtime trip count: a while loop
        y[1:].sort(axis=1)
        y[0].fill(y[1, 0] + i)
        y[:, 2:].sort(axis=0)
    if x[0, 0] > 0:                 # a runtime branch
        np.copyto(y[0], x[0], where=x[0] > 1)
    return y


def check_each(fn, *arg_tuples):
    """check() for each tuple of arguments, through one compiled fn: the
    inputs differ in values only, so one executable serves them all."""
    compiled = tpucc.compile(fn)
    for args in arg_tuples:
        eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
        expected = fn(*eager_args)
        assert_same(expected, compiled(*comp_args))
        assert_same(eager_args, comp_args)


def test_in_place_updates_under_runtime_control_flow():
    x = _r((4, 5), seed=3)
    x[0, 0] = 1.0
    y = x.copy()
    y[0, 0] = -1.0
    check_each(in_place_under_runtime_control, (x, np.int64(2)), (y, np.int64(3)))


def sort_kind_invalid(x):
    return np.sort(x, kind="bubble")  # <- here


def sort_order(x):
    return np.sort(x, order="a")  # <- here


def sort_zero_d_axis(x):
    return np.sort(x[0])  # <- here


def sort_method_axis_none(x):
    x.sort(axis=None)  # <- here
    return x


def sort_kind_and_stable(x):
    return np.argsort(x, kind="stable", stable=True)  # <- here


# --- take / take_along_axis ------------------------------------------------------------------

def takes(x):
    return (np.take(x, 5), np.take(x, [0, -1, 3]), np.take(x, np.array([[1, 2], [0, 0]])),
            np.take(x, 1, axis=0), np.take(x, [2, -4], axis=1), np.take(x, [[1]], axis=-1),
            np.take(x, [7, -9], axis=1, mode="wrap"), np.take(x, [7, -9], axis=1, mode="clip"),
            x.take([1, 1], axis=0), np.take(x, [], axis=1), np.take(x, [True, False], axis=0))


def takes_and_along_axis(x):
    return takes(x), along_axis(x)


@pytest.mark.parametrize("dtype", ALL)
def test_take_and_take_along_axis(dtype):
    # (the two checks of one input in one program: each check is an XLA compile)
    check(takes_and_along_axis, _r((3, 4), dtype))


def take_runtime(x, i):
    return (np.take(x, i), np.take(x, i, axis=1), np.take(x, i + 5, axis=1, mode="wrap"),
            np.take(x, i - 3, axis=1, mode="clip"), np.take(x, i[0], axis=0))


def test_take_runtime_indices():
    check(take_runtime, _r((3, 4)), np.array([0, 3, -1, 2]))


def take_result_is_a_copy(x):
    row = np.take(x, 1, axis=0)
    row[0] = 100.0                  # NumPy's take copies: x is unchanged
    return row, np.take(np.float64(2.5) * x[0, 0], 0)


def test_take_result_is_a_copy():
    check(take_result_is_a_copy, _r((3, 4)))


def along_axis(x):
    order = np.argsort(x, axis=1, kind="stable")
    return (np.take_along_axis(x, order, axis=1), np.take_along_axis(x, order[:, :1], axis=-1),
            np.take_along_axis(x, np.argsort(x, axis=0, kind="stable")[:2], axis=0),
            np.take_along_axis(x, np.array([[0], [3], [1]]), 1),
            np.take_along_axis(x, np.array([[2, 0, 1, 1]]), axis=0),
            np.take_along_axis(x, np.array([11, -1, 0]), axis=None))


def take_out_of_bounds(x):
    return np.take(x, [0, 4], axis=1)  # <- here


def take_float_index(x):
    return np.take(x, np.array([1.5]))  # <- here


def along_axis_float(x):
    return np.take_along_axis(x, x, axis=0)  # <- here


def along_axis_ndim(x):
    return np.take_along_axis(x, np.array([0]), axis=0)  # <- here


def along_axis_mismatch(x):
    return np.take_along_axis(x, np.array([[0, 2]]), axis=0)  # <- here


# --- diff, tril, triu, diag, diagonal, trace ---------------------------------------------------

def diffs(x):
    return (np.diff(x), np.diff(x, 2), np.diff(x, axis=0), np.diff(x, 9, axis=1),
            np.diff(x, prepend=x[:, :1]), np.diff(x, append=0, axis=0),
            np.diff(x, 2, prepend=1, append=x[:, -2:]), np.diff(x, 0) is x)


@pytest.mark.parametrize("dtype", ALL + [np.uint8, np.int8])
def test_diff(dtype):
    check(diffs, _r((3, 5), dtype, lo=0) if dtype == np.uint8 else _r((3, 5), dtype))


def diff_scalar(x):
    return np.diff(x[0])  # <- here


def diff_negative(x):
    return np.diff(x, -1)  # <- here


def triangles(x):
    return (np.tril(x), np.triu(x), np.tril(x, 1), np.triu(x, -2), np.tril(x, -10),
            np.triu(x, 10), np.tril(x[0]), np.triu(x[0], 1))


def triangles_of_shapes(a, b, c):
    # (one program for the shapes: each check is an XLA compile)
    return triangles(a), triangles(b), triangles(c)


@pytest.mark.parametrize("dtype", ALL)
def test_tril_triu(dtype):
    check(triangles_of_shapes,
          *[_r(shape, dtype) if len(shape) == 3 else _r((1,) + shape, dtype)[0]
            for shape in [(4, 4), (3, 5), (2, 4, 3)]])


def diagonals(m, v):
    return (np.diag(m), np.diag(m, 2), np.diag(m, -1), np.diag(m, 9), np.diag(m, -3),
            np.diag(v), np.diag(v, 2), np.diag(v, -3), np.diagonal(m), m.diagonal(1),
            np.trace(m), np.trace(m, -1), m.trace(offset=3), np.trace(m, dtype=np.float32))


def diagonals_and_stacked(m, v, t):
    return diagonals(m, v), stacked_diagonals(t)


@pytest.mark.parametrize("dtype", ALL)
def test_diag_and_trace(dtype):
    if dtype == np.int32:       # with the stacks' diagonals of int32: one program
        check(diagonals_and_stacked, _r((3, 5), dtype), _r((4,), dtype, seed=1),
              _r((2, 3, 4), np.int32))
    else:
        check(diagonals, _r((3, 5), dtype), _r((4,), dtype, seed=1))


def stacked_diagonals(t):
    return (np.diagonal(t, 0, 1, 2), np.diagonal(t, 1, -1, 0), np.trace(t, axis1=1, axis2=2),
            np.trace(t, -1, 2, 0), np.diagonal(t, 5, 0, 2))


def diag_3d(x):
    return np.diag(x)  # <- here


def trace_vector(x):
    return np.trace(x[0, 0])  # <- here


def diagonal_same_axes(x):
    return np.diagonal(x, 0, 1, 1)  # <- here


# --- isclose, allclose, count_nonzero, nan reductions ------------------------------------------

def closeness(a, b):
    return (np.isclose(a, b), np.isclose(a, b, rtol=0.0, atol=0.5), np.isclose(a, 1),
            np.isclose(2.0, b), np.isclose(a, b, equal_nan=True), np.isclose(a[0], b[0]),
            np.allclose(a, a), np.allclose(a, b), np.allclose(a, b, equal_nan=True, atol=10.0))


@pytest.mark.parametrize("dtypes", [(np.float64, np.float64), (np.float32, np.float64),
                                    (np.int32, np.float32), (np.int64, np.int64),
                                    (np.bool_, np.bool_), (np.float16, np.int8)])
def test_isclose_allclose(dtypes):
    a = _r((2, 6), dtypes[0])
    b = (a.astype(np.float64) + np.array([0, 1e-9, 1e-3, 0.3, 1.0, -2.0])).astype(dtypes[1])
    if np.dtype(dtypes[0]).kind == "f" and np.dtype(dtypes[1]).kind == "f":
        a[0, :3] = [np.nan, np.inf, -np.inf]
        b[0, :4] = [np.nan, np.inf, np.inf, np.nan]
    check(closeness, a, b)


def allclose_branch(a, b):
    if np.allclose(a, b):           # a runtime Python bool: a runtime branch
        return a * 2
    return a - b


def test_allclose_is_a_python_bool_in_conditions():
    a = _r((3,))
    check_each(allclose_branch, (a, a + 1e-12), (a, a + 1))


def counts(x):
    return (np.count_nonzero(x), np.count_nonzero(x, axis=0), np.count_nonzero(x, axis=(0, 2)),
            np.count_nonzero(x, axis=-1, keepdims=True), np.count_nonzero(x, keepdims=True),
            np.count_nonzero(x[0, 0, 0]))




def nan_reductions(x):
    return (np.nansum(x), np.nansum(x, axis=0), np.nansum(x, axis=1, keepdims=True),
            np.nanprod(x, axis=1), np.nanmax(x), np.nanmax(x, axis=1), np.nanmin(x, axis=0),
            np.nanmin(x, keepdims=True), np.nanmean(x), np.nanmean(x, axis=1),
            np.nanmean(x, axis=0, keepdims=True), np.nanmax(x[0, 0]), np.nanmean(x[1, 1]))


def counts_and_nan_reductions(c, x):
    return counts(c), nan_reductions(x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy warns about all-NaN slices
@pytest.mark.parametrize("dtype", ALL + [np.float16])
def test_count_nonzero_and_nan_reductions(dtype):
    x = _r((3, 4), dtype)
    if np.dtype(dtype).kind == "f":
        x[0, 1] = x[2, 3] = np.nan
        x[1, :] = np.nan            # an all-NaN row
        x[2, 0] = -np.inf
    if dtype == np.float16:
        check(nan_reductions, x, rtol=2e-3)
        return
    c = _r((2, 3, 4), dtype, lo=-1, hi=2)
    if np.dtype(dtype).kind == "f":
        c[0, 0, :2] = [np.nan, -0.0]
    check(counts_and_nan_reductions, c, x)   # (one program: each check is an XLA compile)


def nan_reductions_with_dtype(x):
    return np.nansum(x, dtype=np.float64), np.nanmean(x, axis=0, dtype=np.float64), \
        np.nanmean(np.nan_to_num(x).astype(np.int32), dtype=np.float32)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_reductions_dtype():
    x = _r((3, 4), np.float32)
    x[0, 0] = np.nan
    check(nan_reductions_with_dtype, x)


def nanmean_int_dtype(x):
    return np.nanmean(x, dtype=np.int64)  # <- here


def nanmax_empty(x):
    return np.nanmax(x[:0])  # <- here


def nansum_where(x):
    return np.nansum(x, where=x > 0)  # <- here


# --- atleast_*, broadcast_arrays, column_stack, dstack, meshgrid, kron, rot90 -------------------

def atleasts(s, v, m, t):
    return (np.atleast_1d(s), np.atleast_1d(v, m), np.atleast_2d(s), np.atleast_2d(v, m, t),
            np.atleast_3d(s), np.atleast_3d(v), np.atleast_3d(m), np.atleast_3d(t),
            np.atleast_2d(2.5), np.atleast_1d(s, 3))


@pytest.mark.parametrize("dtype", ALL)
def test_atleast(dtype):
    # (with np.rot90's checks of the dtype: one program, each check is an XLA compile)
    check(atleasts_and_rotations, _r((), dtype), _r((3,), dtype), _r((2, 3), dtype),
          _r((2, 1, 3), dtype), _r((2, 3), dtype), _r((2, 3, 4), dtype, seed=1))


def atleast_views(v, m):
    row = np.atleast_2d(v)
    row[0, 1] = 7.0                 # a view: v changes
    cube = np.atleast_3d(m)
    cube[..., 0] *= 2.0
    return row, cube, np.atleast_1d(v) is v


def test_atleast_returns_views():
    check(atleast_views, _r((3,)), _r((2, 3)))


def stacking(a, b, c, s):
    return (np.broadcast_arrays(a, b), np.broadcast_arrays(a, a), np.broadcast_arrays(s, b, c),
            np.column_stack([a, b]), np.column_stack((a, c[:, :1], b)),
            np.dstack([a, b]), np.dstack((c, c[:, ::-1])), np.column_stack([s]),
            np.dstack([s, s]))


@pytest.mark.parametrize("dtype", ALL)
def test_broadcast_and_stacking(dtype):
    # (with np.meshgrid's and np.kron's checks of the dtype: one program)
    check(stacking_grids_krons, _r((3,), dtype), _r((3,), np.int64, seed=1),
          _r((3, 3), dtype, seed=2), _r((), dtype, seed=3),
          _r((4,), dtype), _r((3,), dtype, seed=1), _r((2,), np.float32, seed=2),
          _r((2, 3), dtype), _r((2, 2, 2), dtype, seed=1), _r((), dtype, seed=2))


def grids(x, y, z):
    return (np.meshgrid(x, y), np.meshgrid(x, y, indexing="ij"), np.meshgrid(x, y, z),
            np.meshgrid(x, y, z, indexing="ij", sparse=True), np.meshgrid(x),
            np.meshgrid(x, y, sparse=True, copy=False), np.meshgrid(z.reshape(1, 2), y))




def krons(a, b, s):
    return (np.kron(a, b), np.kron(b, a), np.kron(a[0], b), np.kron(a, b[0, 0]),
            np.kron(s, s), np.kron(a, 2), np.kron(a[0], b[0]), np.kron(b, a.astype(np.float32)))


def stacking_grids_krons(a, b, c, s, x, y, z, ka, kb, ks):
    return stacking(a, b, c, s), grids(x, y, z), krons(ka, kb, ks)


def rotations(m, t):
    return (np.rot90(m), np.rot90(m, 2), np.rot90(m, 3), np.rot90(m, 4), np.rot90(m, -1),
            np.rot90(m, 5, axes=(1, 0)), np.rot90(t, 1, (1, 2)), np.rot90(t, 3, axes=(2, -3)),
            np.rot90(m, 0))


def atleasts_and_rotations(s, v, m, t, rm, rt):
    return atleasts(s, v, m, t), rotations(rm, rt)


def rot90_same_axes(m):
    return np.rot90(m, 1, (1, 1))  # <- here


def rot90_out_of_range(m):
    return np.rot90(m, 1, (0, 3))  # <- here


def meshgrid_bad_indexing(x):
    return np.meshgrid(x, x, indexing="yx")  # <- here


# --- fill, copyto, item ------------------------------------------------------------------------

def fills(x, v):
    y = x.copy()
    alias = y
    y.fill(2.7)                     # unsafe conversion: 2 in an integer array
    x[1].fill(v[0])                 # a runtime value, into a view of the argument
    z = np.zeros((2, 2), dtype=x.dtype)
    z.fill(True)
    return alias, z, y.fill(0)




def copies(dst, src, mask):
    alias = dst
    np.copyto(dst, src)                         # broadcast, same_kind cast
    out = np.zeros(4, dst.dtype)
    np.copyto(out, True, where=mask)
    np.copyto(dst[0], src[::-1])
    return alias, out, np.copyto(out, out[::-1])


@pytest.mark.parametrize("dtypes", [(np.float64, np.float32), (np.float32, np.float64),
                                    (np.int32, np.int64), (np.int64, np.bool_),
                                    (np.bool_, np.bool_)])
def test_copyto(dtypes):
    check(copies, _r((3, 4), dtypes[0]), _r((4,), dtypes[1], seed=1),
          np.array([True, False, True, False]))


def copyto_unsafe(x):
    np.copyto(x, 1.5)  # <- here
    return x


def copyto_array_unsafe(x):
    np.copyto(x, x.astype(np.float64))  # <- here
    return x


def copyto_overflow(x):
    np.copyto(x, 300)  # <- here
    return x


def copyto_shape(x):
    np.copyto(x, np.ones(5))  # <- here
    return x


def fill_overflow(x):
    x.fill(300)  # <- here
    return x


def fill_sequence(x):
    x.fill(np.array([1.0, 2.0]))  # <- here
    return x


def items(x, s):
    return (x.item(5), x.item(-1), x.item(1, 2), x.item((2, 3)), x[1:2, 2:3].item(),
            s.item(), x[0].item(np.int64(1)))


def fills_and_items(x, v, y, s):
    return fills(x, v), items(y, s)


@pytest.mark.parametrize("dtype", ALL + [np.float16, np.uint8])
def test_fill_and_item_gives_python_scalars(dtype):
    if dtype in ALL:            # with the fills of the dtype: one program
        check(fills_and_items, _r((3, 4), dtype), _r((2,), np.float64, seed=1),
              _r((3, 4), dtype), _r((), dtype, seed=1)[()])
    else:
        check(items, _r((3, 4), dtype), _r((), dtype, seed=1)[()])


def item_runtime_index(x, i):
    return x.item(i), x.item(i, 1) + 1


def test_item_runtime_index():
    check(item_runtime_index, _r((3, 4)), np.int64(2))


def item_not_size_one(x):
    return x.item()  # <- here


def item_out_of_bounds(x):
    return x.item(12)  # <- here


# --- linalg: inv, solve, det, cholesky ---------------------------------------------------------

def _well_conditioned(shape, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (a + 4 * np.eye(shape[-1])).astype(dtype)


def _spd(shape, dtype, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def solvers(a, b, spd):
    return (np.linalg.inv(a), np.linalg.det(a), np.linalg.solve(a, b),
            np.linalg.solve(a, b[..., None] * np.ones(2)), np.linalg.cholesky(spd),
            np.linalg.cholesky(spd, upper=True), np.linalg.det(a[..., :0, :0]),
            np.linalg.inv(a[..., :0, :0]))


def solvers_unbatched_and_batched(a, b, spd, a2, b2, spd2):
    # (one program for both: each check is an XLA compile)
    return solvers(a, b, spd), solvers(a2, b2, spd2)


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_solvers(dtype):
    args = []
    for batch in [(), (2,)]:
        a = _well_conditioned(batch + (4, 4), np.float64)
        a = np.round(a * 4).astype(dtype) if np.dtype(dtype).kind == "i" else a.astype(dtype)
        b = np.arange(4.0).astype(dtype)
        args += [a, b, _spd(batch + (4, 4), dtype)]
    tol = 1e-4 if dtype == np.float32 else 1e-10
    check(solvers_unbatched_and_batched, *args, rtol=tol, atol=tol)


def mixed_solvers(a32, b64, bools):
    return (np.linalg.solve(a32, b64), np.linalg.solve(a32, a32[0]), np.linalg.inv(bools),
            np.linalg.solve(a32, np.ones((3, 3, 2), np.float32)), np.linalg.det(a32 > 0))


def test_solver_dtypes_and_broadcasting():
    check(mixed_solvers, _well_conditioned((3, 3), np.float32), np.arange(3.0),
          np.eye(3, dtype=bool), rtol=1e-5, atol=1e-6)


def cholesky_reads_one_triangle(a):
    return np.linalg.cholesky(a), np.linalg.cholesky(a, upper=True)


def test_cholesky_reads_one_triangle():
    """NumPy reads only the lower (upper) triangle of a non-symmetric input."""
    a = _spd((3, 3), np.float64)
    a[0, 2] += 0.3
    a[2, 1] -= 0.2
    check(cholesky_reads_one_triangle, a, rtol=1e-10)


def singular_inverse(a):
    return np.linalg.inv(a)


def test_singular_matrix_gives_inf_or_nan():
    """NumPy raises LinAlgError at run time; compiled code cannot: documented."""
    out = tpucc.compile(singular_inverse)(np.ones((2, 2)))
    assert not np.isfinite(out).all()


def inv_float16(a):
    return np.linalg.inv(a)  # <- here


def inv_vector(a):
    return np.linalg.inv(a[0])  # <- here


def det_not_square(a):
    return np.linalg.det(a[:, :2])  # <- here


def solve_mismatch(a):
    return np.linalg.solve(a, np.ones(4))  # <- here


def solve_batched_vector(a):
    return np.linalg.solve(np.stack([a, a]), np.ones((2, 3)))  # <- here


REFERENCE_CASES = [
    ("sort", (_r((3, 5)),), {"axis": 1}), ("argsort", (_r((3, 5), lo=0, hi=2),), {"axis": 0}),
    ("linalg_inv", (_well_conditioned((2, 3, 3), np.float64),), {}),
    ("linalg_det", (_well_conditioned((3, 3), np.float32),), {}),
    ("linalg_cholesky", (_spd((3, 3), np.float64),), {"upper": True}),
    ("linalg_solve", (_well_conditioned((3, 3), np.float64), np.arange(3.0)), {})]


@pytest.mark.parametrize("name,args,attrs", REFERENCE_CASES, ids=[c[0] for c in REFERENCE_CASES])
def test_registry_reference(name, args, attrs):
    """Each new op's NumPy reference in the registry agrees with its lowering."""
    import jax
    from tpucc.ops import OPS
    from tpucc.ops.registry import LowerCtx, const_aval
    op = OPS[name]
    avals = tuple(const_aval(a) for a in args)
    out = op.abstract(avals, **attrs)
    with jax.enable_x64(True):
        got = jax.jit(lambda *xs: op.lower(LowerCtx(avals, (out,), attrs), *xs, **attrs))(*args)
    ref = op.numpy(*args, **attrs)
    assert ref.dtype == out.dtype == got.dtype and ref.shape == out.shape == got.shape
    np.testing.assert_allclose(got, ref, rtol=1e-5)


# --- data-dependent shapes stay refused ---------------------------------------------------------

def unique(x):
    return np.unique(x)  # <- here


def nonzero(x):
    return np.nonzero(x)  # <- here


# --- refusals: the error class, a piece of its message, at the line marked `# <- here` ------

REFUSALS = [
    (split_unequal, (_r((6,)),), E.ShapeError, "does not result in an equal division"),
    (split_zero_sections, (_r((6,)),), E.ShapeError, "number sections must be larger than 0"),
    (vsplit_vector, (_r((6,)),), E.ShapeError, "vsplit only works on arrays of 2 or more"),
    (split_scalar, (_r((6,)),), E.ShapeError, "0-d"),
    (split_runtime_sections, (_r((6,)),), E.StaticValueError,
     "`indices_or_sections` of np.split must be known"),
    (norm_bad_matrix_ord, (_r((3, 3)),), E.UserCodeError, "Invalid norm order for matrices"),
    (norm_fro_vector, (_r((3, 3)),), E.UserCodeError, "Invalid norm order 'fro' for vectors"),
    (norm_three_axes, (_r((2, 2, 2)),), E.ShapeError, "Improper number of dimensions"),
    (norm_duplicate_axes, (_r((3, 3)),), E.ShapeError, "Duplicate axes"),
    (norm_list_axis, (_r((3, 3)),), E.UserCodeError, "'axis' must be None, an integer or a tuple"),
    (sort_kind_invalid, (_r((4,)),), E.UserCodeError, "sort kind must be one of"),
    (sort_order, (_r((4,)),), E.UnsupportedError, "order="),
    (sort_zero_d_axis, (_r((4,)),), E.ShapeError, "out of bounds"),
    (sort_method_axis_none, (_r((4,)),), E.UserCodeError, "NoneType"),
    (sort_kind_and_stable, (_r((4,)),), E.UserCodeError, "can't be provided at the same time"),
    (take_out_of_bounds, (_r((3, 4)),), E.UserCodeError, "index 4 is out of bounds for axis 1"),
    (take_float_index, (_r((3, 4)),), E.ShapeError, "indices must be integers"),
    (along_axis_float, (_r((3, 4)),), E.ShapeError, "must be an integer array"),
    (along_axis_ndim, (_r((3, 4)),), E.ShapeError, "same number of dimensions"),
    (along_axis_mismatch, (_r((3, 4)),), E.UserCodeError, "IndexError: shape mismatch"),
    (diff_scalar, (_r((4,)),), E.ShapeError, "at least one dimensional"),
    (diff_negative, (_r((4,)),), E.ShapeError, "order must be non-negative"),
    (diag_3d, (_r((2, 2, 2)),), E.ShapeError, "Input must be 1- or 2-d"),
    (trace_vector, (_r((2, 2, 2)),), E.ShapeError, "at least two dimensions"),
    (diagonal_same_axes, (_r((2, 2, 2)),), E.ShapeError, "cannot be the same"),
    (nanmean_int_dtype, (_r((3,)),), E.DTypeError, "dtype must be inexact"),
    (nanmax_empty, (_r((3,)),), E.ShapeError, "zero-size array"),
    (nansum_where, (_r((3,)),), E.UnsupportedError, "where="),
    (rot90_same_axes, (_r((2, 3)),), E.ShapeError, "Axes must be different"),
    (rot90_out_of_range, (_r((2, 3)),), E.ShapeError, "out of range"),
    (meshgrid_bad_indexing, (_r((2, 3))[0],), E.UserCodeError, "Valid values for `indexing`"),
    (copyto_unsafe, (np.zeros(4, np.int8),), E.DTypeError,
     r"Cannot cast scalar from dtype\('float64'\) to dtype\('int8'\)"),
    (copyto_array_unsafe, (np.zeros(4, np.int8),), E.DTypeError, "Cannot cast array data"),
    (copyto_overflow, (np.zeros(4, np.int8),), E.UserCodeError, "300 out of bounds for int8"),
    (copyto_shape, (np.zeros(4),), E.ShapeError, "broadcast"),
    (fill_overflow, (np.zeros(4, np.int8),), E.UserCodeError, "300 out of bounds"),
    (fill_sequence, (np.zeros(4),), E.ShapeError, "with a sequence"),
    (item_not_size_one, (_r((3, 4)),), E.ShapeError, "size 1"),
    (item_out_of_bounds, (_r((3, 4)),), E.UserCodeError, "IndexError: index 12 is out of bounds"),
    (inv_float16, (np.eye(3, dtype=np.float16),), E.DTypeError, "float16 is unsupported in linalg"),
    (inv_vector, (np.eye(3),), E.ShapeError, "1-dimensional array given"),
    (det_not_square, (np.eye(3),), E.ShapeError, "must be square"),
    (solve_mismatch, (np.eye(3),), E.ShapeError, "does not match"),
    (solve_batched_vector, (np.eye(3),), E.ShapeError, "does not match"),
    (unique, (_r((4,)),), E.UnsupportedError, "np.unique of a runtime array"),
    (nonzero, (_r((4,)),), E.UnsupportedError, "np.nonzero of a runtime array"),
]


@pytest.mark.parametrize("fn,args,error,match", REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_refused(fn, args, error, match):
    raises_at(fn, args, error, match, line_of="# <- here")


# --- gradients ----------------------------------------------------------------------------

WEIGHTS = np.linspace(-1.0, 2.0, 12).reshape(3, 4)


def sort_loss(x):
    return np.sum(np.sort(x, axis=1) * WEIGHTS) + np.sum(np.sort(x, axis=None)[:5])


def norm_loss(x):
    return np.linalg.norm(x) + np.linalg.norm(x, 1, axis=0).sum() + np.linalg.norm(x, 3, axis=1)[0]


def tril_loss(x):
    return np.sum(np.tril(x, -1) ** 2) + np.sum(np.triu(x) * WEIGHTS) + np.trace(x) * 3


def split_loss(x):
    a, b = np.split(x, 2, axis=1)
    c, d, e = np.array_split(x, 3)
    return np.sum(a * b) + np.sum(c) * np.sum(e ** 2) + np.diff(x, axis=1).max()


def solver_loss(x):
    a = x[:, :3] + 4 * np.eye(3)
    return np.linalg.det(a) + np.sum(np.linalg.inv(a)) + np.sum(np.linalg.solve(a, x[:, 3]))


@pytest.mark.parametrize("f", [sort_loss, norm_loss, tril_loss, split_loss, solver_loss],
                         ids=lambda f: f.__name__)
def test_gradient(f):
    x = _distinct((3, 4), np.float64) / 3 + 0.05     # no ties, no zeros: differentiable
    g = tpucc.grad(f)(x)
    assert g.dtype == x.dtype and g.shape == x.shape
    np.testing.assert_allclose(g, numeric_grad(f, x), rtol=1e-6, atol=1e-6)
