"""Fixes from sweep 45G (sparse matrices as plain index arrays): Python-number
accumulators collected from a counted loop; np.add.at / np.take /
np.searchsorted / a boolean mask / `@` of bool through a runtime-bounded
slice; f-string messages calling functions; NumPy's IndexError text for an
empty axis and mismatched index arrays; the compile time of a static CSR
pattern's row-slice matvec.

PYTEST_DONT_REWRITE: compiled functions here use `assert`, which pytest
would rewrite into calls of its own.
"""
import copy

import numpy as np
import pytest

import tpucc
from conftest import raises_at


def _same(eager, got, path="result"):
    """Values, dtypes and Python types alike (lists and tuples item by item)."""
    assert type(eager) is type(got), f"{path}: {type(eager)} vs {type(got)}"
    if isinstance(eager, (list, tuple)):
        assert len(eager) == len(got), path
        for k, (a, b) in enumerate(zip(eager, got)):
            _same(a, b, f"{path}[{k}]")
    elif isinstance(eager, (np.ndarray, np.generic)):
        assert eager.dtype == got.dtype, f"{path}: {eager.dtype} vs {got.dtype}"
        np.testing.assert_allclose(got, eager, rtol=1e-12, atol=1e-12, err_msg=path)
    else:
        assert eager == got, path


def _check(f, *args):
    """Compiled f equals eager f: the result, and the arguments after the call."""
    eager_args, compiled_args = copy.deepcopy(args), copy.deepcopy(args)
    eager = f(*eager_args)
    got = tpucc.compile(f, cache=False)(*compiled_args)
    _same(eager, got)
    for a, b in zip(eager_args, compiled_args):
        if isinstance(a, np.ndarray):
            _same(a, b, "argument")
    return got


def _check_each(f, *arg_tuples):
    """`_check` for each tuple of arguments through ONE compiled f (inputs that
    differ in values only share one executable)."""
    compiled = tpucc.compile(f, cache=False)
    for args in arg_tuples:
        eager_args, compiled_args = copy.deepcopy(args), copy.deepcopy(args)
        _same(f(*eager_args), compiled(*compiled_args))
        for a, b in zip(eager_args, compiled_args):
            if isinstance(a, np.ndarray):
                _same(a, b, "argument")


# --- bug_07: a Python-number accumulator collected by a counted loop ----------------

def _row_sums(start):
    def row_sums(data, indptr):
        out = []
        for i in range(len(indptr) - 1):
            s = start
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k]
            out.append(s)
        return out
    return row_sums


@pytest.mark.parametrize("start,dtype", [(0.0, np.float64), (0, np.int32), (0, np.uint8),
                                         (0.0, np.float32)])
def test_empty_rows_keep_the_python_number_in_an_appended_list(start, dtype):
    data = np.array([1, 2, 3, 4], dtype)
    got = _check(_row_sums(start), data, np.array([0, 2, 2, 3, 3, 4]))
    assert type(got[1]) is type(start) and type(got[3]) is type(start)


def test_empty_rows_keep_the_python_number_in_a_long_loop():
    indptr = np.repeat(np.arange(0, 40, 2), 2)      # every other row empty
    _check(_row_sums(0.0), np.arange(40.0), indptr)


def test_empty_rows_keep_the_python_number_in_a_comprehension():
    def row_last(indices, indptr):
        def last(i):
            c = -1
            k = indptr[i]
            while k < indptr[i + 1]:
                c = indices[k]
                k += 1
            return c
        return [last(i) for i in range(len(indptr) - 1)]
    _check(row_last, np.array([3, 1, 2], np.int32), np.array([0, 2, 2, 3, 3]))


def test_empty_rows_keep_the_python_number_in_appended_tuples():
    def pairs(data, indptr):
        out = []
        for i in range(4):
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k]
            out.append((i, s))
        return out
    _check(pairs, np.array([1.0, 2.0, 3.0]), np.array([0, 2, 2, 3, 3]))


# --- bug_01: np.add.at / np.take through a runtime-bounded or masked index selection -

def test_add_at_scatters_a_csc_column_with_duplicate_rows():
    def csc_matvec(data, indices, indptr, x):
        y = np.zeros(3, data.dtype)
        for j in range(len(indptr) - 1):
            lo, hi = indptr[j], indptr[j + 1]
            np.add.at(y, indices[lo:hi], data[lo:hi] * x[j])
        return y
    for dtype in (np.float64, np.float32, np.int32):
        _check(csc_matvec, np.array([1, 2, 3, 4], dtype), np.array([1, 1, 2, 1]),
               np.array([0, 3, 3, 4]), np.array([1, 2, 3], dtype))


@pytest.mark.parametrize("ufunc", [np.add, np.subtract, np.multiply, np.maximum, np.minimum])
def test_ufunc_at_through_a_runtime_slice(ufunc):
    def f(y, idx, v, lo, hi):
        ufunc.at(y, idx[lo:hi], v[lo:hi])
        return y
    idx, v = np.array([2, 0, 2, -1, 1]), np.array([1.5, -2.0, 3.0, 4.0, 0.5])
    _check_each(f, *[(np.ones(4), idx, v, np.int64(lo), np.int64(hi))
                     for lo, hi in ((0, 5), (1, 4), (3, 3), (4, 2))])


def test_add_at_through_a_runtime_slice_with_a_scalar_and_rounding_values():
    def f(y, idx, lo, hi):
        np.add.at(y, idx[lo:hi], 1e-4)      # float16 rounds at every update, as NumPy
        return y
    _check(f, np.ones(3, np.float16), np.array([0, 0, 0, 2]), np.int64(0), np.int64(3))
    _check(f, np.ones(3), np.array([0, 0, 0, 2]), np.int64(1), np.int64(4))

    def g(y, idx, lo, hi):
        np.add.at(y, idx[lo:hi], np.float64(1e-4))
        return y
    _check(g, np.ones(3, np.float32), np.array([0, 0, 0, 2]), np.int64(0), np.int64(4))


def test_add_at_through_a_mask():
    def f(d, r, c, v):
        m = r == c
        np.add.at(d, r[m], v[m])
        return d
    _check(f, np.zeros(3), np.array([0, 1, 1, 2]), np.array([0, 1, 1, 0]), np.arange(4.0))
    _check(f, np.zeros(3, np.int64), np.array([0, 1, 1, 2]), np.array([5, 5, 5, 5]),
           np.arange(4))


def test_add_at_through_a_selection_into_rows():
    def f(Y, idx, lo, hi):
        np.add.at(Y, idx[lo:hi], np.array([1.0, 2.0]))
        return Y
    _check(f, np.zeros((3, 2)), np.array([2, 2, 0]), np.int64(0), np.int64(2))


def test_add_at_through_a_selection_checks_the_selected_indices():
    def f(y, idx, lo, hi):
        np.add.at(y, idx[lo:hi], 1.0)
        return y
    _check(f, np.zeros(3), np.array([0, 7, 1]), np.int64(2), np.int64(3))    # 7 not taken
    with pytest.raises(IndexError, match="out of bounds"):
        tpucc.compile(f, cache=False)(np.zeros(3), np.array([0, 7, 1]), np.int64(0),
                                      np.int64(3))


def test_take_through_a_runtime_slice_or_a_mask():
    def row(x, indices, lo, hi):
        return np.take(x, indices[lo:hi]).sum()
    _check(row, np.arange(4.0), np.array([0, 2, 2, 1]), np.int64(1), np.int64(3))
    _check(row, np.arange(6, dtype=np.int32).reshape(2, 3), np.array([0, 5, 4]), np.int64(0),
           np.int64(3))

    def rows(X, indices, lo, hi):
        return np.take(X, indices[lo:hi], axis=0).sum(axis=0)
    _check(rows, np.arange(6.0).reshape(3, 2), np.array([2, 0, 2]), np.int64(1), np.int64(3))

    def method(x, indices, m):
        return x.take(indices[m]).max()
    _check(method, np.arange(5.0), np.array([4, 1, 3]), np.array([False, True, True]))


# --- bug_08: a static CSR pattern in Python lists, sliced row by row ----------------

_N8 = 40
_PTR8 = list(range(0, 4 * _N8 + 1, 4))
_IDX8 = [(7 * k) % _N8 for k in range(4 * _N8)]


def test_a_list_slice_with_runtime_bounds_says_so():
    def f(x, lo):
        return x[_IDX8[lo:lo + 4]].sum()
    raises_at(f, (np.arange(_N8, dtype=float), np.int64(3)), tpucc.StaticValueError,
              match="the length of a list slice", line_of="_IDX8[lo:lo + 4]", cache=False)


def test_the_unroll_advice_for_a_list_slice_names_an_array():
    from tpucc.infer import loops
    why = ("its body needs a static value (the length of a list slice (a Python list sliced "
           "with runtime bounds) is needed at compile time, but it depends on runtime values)")
    assert "np.array(IDX)" in loops._unroll_advice(why)


def test_row_slices_of_an_array_pattern_run_as_one_loop():
    idx = np.array(_IDX8)

    def matvec(data, x):
        y = np.zeros(_N8)
        for i in range(_N8):
            lo, hi = _PTR8[i], _PTR8[i + 1]
            y[i] = data[lo:hi] @ x[idx[lo:hi]]
        return y
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)
        _check(matvec, np.linspace(0.0, 1.0, 4 * _N8), np.arange(_N8, dtype=float))


def test_a_list_slice_reads_the_items_it_takes():
    items = [np.float64(k) for k in range(6)]

    def f(x):
        part = items[1:5:2]
        return [x * v for v in part] + items[-2:]
    _check(f, np.arange(3.0))


# --- bug_03: np.searchsorted in a runtime-bounded row slice ------------------------

def _csr_get(data, indices, indptr, i, j):
    lo, hi = indptr[i], indptr[i + 1]
    k = lo + np.searchsorted(indices[lo:hi], j)
    if k < hi and indices[k] == j:
        return data[k]
    return 0.0


def test_searchsorted_finds_a_csr_entry():
    indptr, indices = np.array([0, 2, 3, 3, 5]), np.array([0, 2, 1, 0, 3])
    _check_each(_csr_get, *[(np.array([4.0, 1, 3, 2, 5]), indices, indptr, i, j)
                            for i, j in [(0, 2), (0, 1), (1, 1), (2, 0), (3, 3), (3, 4)]])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_of_a_runtime_slice_sides_dtypes_and_keys(side):
    def f(a, lo, hi, v):
        return a[lo:hi].searchsorted(v, side=side)
    a = np.array([5, 1, 2, 2, 4, 0])
    _check_each(f, *[(a, np.int64(1), np.int64(5), v) for v in (2, 0, 9)])
    for v in (2.5, np.int8(4), np.array([[2, 3], [0, 7]])):
        _check(f, a, np.int64(1), np.int64(5), v)
    _check(f, a.astype(np.float32), np.int64(1), np.int64(4), 2.0)
    _check(f, np.array([1.0, np.nan, np.nan]), np.int64(0), np.int64(3), np.nan)
    _check(f, np.array([1.0, 3.0, np.nan]), np.int64(0), np.int64(3), np.array([np.nan, 2.0]))
    _check(f, a, np.int64(4), np.int64(4), 3)       # an empty slice: 0


def test_searchsorted_of_a_masked_selection():
    def f(a, m, v):
        return np.searchsorted(a[m], v, side="right")
    _check(f, np.array([1, 9, 3, 5]), np.array([True, False, True, True]), 3)


# --- bug_05: a boolean mask applied to a runtime-bounded slice ---------------------

_D5, _C5 = np.array([4.0, -1, 3, 2, 5]), np.array([0, 1, 2, 1, 0])


def test_a_mask_of_a_runtime_slice_reduces():
    def lower_sum(data, indices, lo, hi, i):
        return data[lo:hi][indices[lo:hi] < i].sum()

    def lower_max(data, indices, lo, hi, i):
        part = data[lo:hi][indices[lo:hi] < i]
        return len(part), np.abs(part).max(initial=0.0)
    cases = [(0, 3, 2), (0, 5, 1), (3, 5, 1), (2, 2, 1), (0, 5, 0)]
    _check_each(lower_sum, *[(_D5, _C5, np.int64(lo), np.int64(hi), i) for lo, hi, i in cases])
    _check_each(lower_sum, *[(_D5.astype(np.float32), _C5, np.int64(lo), np.int64(hi), i)
                             for lo, hi, i in cases])
    _check_each(lower_max, *[(_D5, _C5, np.int64(lo), np.int64(hi), i) for lo, hi, i in cases])


def test_a_mask_of_a_runtime_slice_in_a_lower_triangular_matvec():
    def lower_matvec(data, indices, indptr, x):
        y = np.zeros(len(indptr) - 1)
        for i in range(len(indptr) - 1):
            lo, hi = indptr[i], indptr[i + 1]
            m = indices[lo:hi] < i
            y[i] = data[lo:hi][m] @ x[indices[lo:hi][m]]
        return y
    _check(lower_matvec, np.array([4.0, -1, 3, 2, 5, 7]), np.array([0, 1, 0, 2, 1, 0]),
           np.array([0, 1, 3, 6]), np.array([1.0, 2.0, 3.0]))


def test_a_mask_of_a_runtime_slice_by_other_bounds_is_refused():
    def f(data, indices, lo, hi):
        return data[lo:hi][indices[lo + 1:hi + 1] > 0].sum()
    raises_at(f, (_D5, _C5, np.int64(0), np.int64(3)), tpucc.ShapeError,
              match="different runtime bounds", line_of="data[lo:hi][", cache=False)


def test_a_mask_of_a_mask_selection_by_the_same_rows():
    def f(x):
        return x[x > 0][x[x > 0] > 1].sum(), len(x[x > 0][x[x > 0] > 1])
    _check(f, np.array([3.0, -1.0, 0.5, 2.0]))


# --- bug_06: a raise/assert message calling a reduction of a runtime value ---------

def _check_cols(indices, ncols):
    if indices.max() >= ncols:
        raise ValueError(f"column index {indices.max()} out of range")
    return indices.sum()


def _check_cols_assert(indices, ncols):
    assert np.max(indices) < ncols, f"column {np.argmax(indices)} is {np.max(indices)}"
    return indices.sum()


def _check_mean(x, lo):
    if x.mean() < lo:
        raise ValueError(f"mean {x.mean():.2f} below {lo}, spread {x.std(0):.1f}")
    return x.mean()


@pytest.mark.parametrize("f", [_check_cols, _check_cols_assert])
def test_a_message_calling_a_reduction_compiles_and_formats_when_it_raises(f):
    _check(f, np.array([0, 1]), 3)
    _check(f, np.array([0, 2], np.int32), 3)
    error = AssertionError if f is _check_cols_assert else ValueError
    text = "column 1 is 5" if f is _check_cols_assert else "column index 5 out of range"
    with pytest.raises(error, match=text):
        tpucc.compile(f, cache=False)(np.array([0, 5]), 3)


def test_a_message_with_formatted_method_calls():
    _check(_check_mean, np.array([1.0, 2.0, 4.0]), 1.0)
    with pytest.raises(ValueError, match=r"mean 2\.33 below 3\.0, spread 1\.2"):
        tpucc.compile(_check_mean, cache=False)(np.array([1.0, 2.0, 4.0]), 3.0)


class _Counter:
    def __init__(self):
        self.n = 0

    def bump(self, x):
        self.n += 1
        return x


def test_a_message_calling_an_objects_method_on_a_runtime_value_is_still_refused():
    c = _Counter()

    def f(x):
        if x.sum() > 10:
            raise ValueError(f"too big: {c.bump(x.sum())}")
        return x
    raises_at(f, (np.arange(3.0),), tpucc.StaticValueError, match="formatting a runtime value",
              line_of="too big", cache=False)


# --- bug_02: products of boolean runtime-bounded slices -----------------------------

@pytest.mark.parametrize("fn", [np.dot, np.matmul, np.inner, np.vdot, np.vecdot])
def test_products_of_boolean_runtime_slices(fn):
    def f(m, x, lo, hi):
        return fn(m[lo:hi], x[lo:hi])
    b = np.array([True, False, True, True])
    c = np.array([False, True, True, False])
    bounds = ((0, 3), (0, 1), (2, 2), (3, 4))
    _check_each(f, *[(b, c, np.int64(lo), np.int64(hi)) for lo, hi in bounds])
    _check_each(f, *[(b, c.astype(np.int32), np.int64(lo), np.int64(hi)) for lo, hi in bounds])
    _check_each(f, *[(c.astype(np.float32), b, np.int64(lo), np.int64(hi)) for lo, hi in bounds])


def test_matmul_operator_of_boolean_masked_selections():
    def f(m, x, keep):
        return m[keep] @ x[keep], (m[keep] @ x[keep].astype(np.uint8))
    _check_each(f, (np.array([True, False, True]), np.array([True, True, False]),
                    np.array([True, True, False])),
                (np.array([True, False, True]), np.array([True, True, True]),
                 np.array([False, True, False])))


# --- bug_04: NumPy's IndexError for an empty axis and mismatched index arrays ------

def test_an_index_array_into_an_empty_axis_raises_numpys_index_error():
    def gather(x, idx):
        return x[idx]

    def columns(X, idx):
        return X[:, idx].sum()

    def acc(y, idx):
        np.add.at(y, idx, 1.0)
        return y

    def store(y, idx):
        y[idx] = 2.0
        return y
    cases = [(gather, np.zeros(0), np.array([0, 0]), "index 0 is out of bounds for axis 0"),
             (gather, np.zeros((0, 2), np.int32), np.array([[-2, 1]]), "index -2 is out of"),
             (columns, np.zeros((3, 0)), np.array([1]), "index 1 is out of bounds for axis 1"),
             (acc, np.zeros(0), np.array([0]), "index 0 is out of bounds for axis 0 with size 0"),
             (store, np.zeros(0), np.array([4, 0]), "index 4 is out of bounds for axis 0")]
    for f, x, idx, text in cases:
        with pytest.raises(IndexError, match=text) as info:
            tpucc.compile(f, cache=False)(x, idx)
        assert "gather op" not in str(info.value) and "Slice size" not in str(info.value)
        assert info.value.loc is not None


def test_empty_index_arrays_into_an_empty_axis_and_untaken_paths_compile():
    def gather(x, idx):
        return x[idx], x[idx[:0]]

    def maybe(x, idx, flag):
        if flag > 0:
            return x[idx].sum()
        return 0.0
    _check(gather, np.zeros(0), np.zeros(0, np.int64))
    _check(maybe, np.zeros(0), np.array([0]), np.int64(0))
    with pytest.raises(IndexError, match="index 0 is out of bounds"):
        tpucc.compile(maybe, cache=False)(np.zeros(0), np.array([0]), np.int64(1))


def test_index_arrays_that_do_not_broadcast_raise_numpys_index_error():
    def coo_set(D, r, c):
        D[r, c] = 1.0
        return D

    def coo_get(D, r, c):
        return D[0, r, c]
    text = r"shape mismatch: indexing arrays could not be broadcast together with shapes " \
           r"\(2,\) \(3,\) \n"
    for f, D in ((coo_set, np.zeros((2, 2))), (coo_get, np.zeros((2, 2, 2)))):
        err = raises_at(f, (D, np.array([0, 1]), np.array([0, 1, 1])), IndexError, match=text,
                        line_of="r, c]", cache=False)
        assert "i64" not in str(err)
    _check(coo_get, np.arange(8.0).reshape(2, 2, 2), np.array([[0], [1]]), np.array([0, 1, 1]))
