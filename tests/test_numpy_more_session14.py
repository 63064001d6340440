"""NumPy functions a user sweep found refused (E100) on runtime arrays
(session 14): np.unravel_index, np.ravel_multi_index, np.searchsorted,
np.digitize, np.fill_diagonal, np.cov, np.corrcoef; and the ones refused
with a reason (np.partition, np.argpartition, np.bincount).  Each is
compared with eager NumPy; NumPy's errors on runtime values are runtime
checks that raise NumPy's exception class at the user's line."""
import numpy as np
import pytest

import tpucc
from conftest import check, raises_at

INT_DTYPES = [np.int8, np.uint8, np.int32, np.int64]


# --- np.unravel_index / np.ravel_multi_index ------------------------------------------------

def position_of_max(x):
    return np.unravel_index(np.argmax(x), x.shape)


def unravel_both_orders(i):
    return np.unravel_index(i, (3, 4)), np.unravel_index(i, (3, 4), order="F")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.bool_])
def test_unravel_index_of_argmax(dtype):
    x = (np.arange(24) * 7 % 11).reshape(2, 3, 4).astype(dtype)
    check(lambda x, x0: (position_of_max(x), position_of_max(x0)), x, x[0])  # np.int64 scalars


def test_unravel_index_of_index_arrays():
    check(lambda *i: tuple(unravel_both_orders(k) for k in i),
          np.array([0, 5, 11], np.int32), np.array([[7], [2]], np.uint8),
          np.array([], np.int64), np.array(7), np.int16(3), np.array([True, False]))


def unravel_one(i):
    return np.unravel_index(i, 12), np.unravel_index(i, (2, 1, 6))


def test_unravel_index_one_dimension_and_unit_axes():
    check(unravel_one, np.array([0, 11, 6]))


def unravel_out_of_range(i):
    r, c = np.unravel_index(i, (3, 4))
    return r + c


@pytest.mark.parametrize("i", [np.array([3, 12]), np.array([-1, 0]), np.array(12)])
def test_unravel_index_out_of_range_is_a_runtime_value_error(i):
    with pytest.raises(ValueError, match="out of bounds"):
        unravel_out_of_range(i)
    err = raises_at(unravel_out_of_range, (i,), ValueError, match="out of bounds for array with "
                    "size 12", line_of="np.unravel_index")
    assert err.code == "E910"


def test_unravel_index_of_float_indices_is_a_type_error():
    raises_at(unravel_out_of_range, (np.array([1.0]),), tpucc.errors.UserCodeError,
              match="TypeError: only int indices", line_of="np.unravel_index")


def unravel_in_loop(x, n):
    # a runtime loop counter (a weak Python int) as the index
    total = np.zeros(2, np.int64)
    for k in range(n):
        r, c = np.unravel_index(k, x.shape)
        total[0] += r * x[r, c]
        total[1] += c
    return total


def test_unravel_index_in_a_runtime_loop():
    check(unravel_in_loop, np.arange(12).reshape(3, 4), 9,
          compile_kwargs={"runtime_args": ("n",)})


def ravel_modes(i, j):
    return (np.ravel_multi_index((i, j), (3, 4)),
            np.ravel_multi_index((i, j), (3, 4), order="F"),
            np.ravel_multi_index((i % 3, j), (3, 4), mode=("raise", "clip")))


def ravel_wrapped(i, j):
    return np.ravel_multi_index((i, j), (3, 4), mode="wrap"), np.ravel_multi_index(
        (i, j), (3, 4), mode="clip")


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_ravel_multi_index(dtype):
    check(lambda i, j, ib, jb, si, sj: (ravel_modes(i, j), ravel_modes(ib, jb),
                                        ravel_modes(si, sj)),
          np.array([0, 2, 1], dtype), np.array([3, 0, 1], dtype),
          np.array([[0], [2]], dtype), np.array([3, 0, 1], dtype),      # broadcast
          dtype(2), dtype(3))                                           # scalars


def test_ravel_multi_index_wrap_and_clip():
    check(ravel_wrapped, np.array([-4, 7, 1]), np.array([5, -1, 9]))


def test_ravel_multi_index_out_of_range_is_a_runtime_value_error():
    args = (np.array([0, 3]), np.array([1, 1]))
    with pytest.raises(ValueError, match="invalid entry"):
        ravel_modes(*args)
    raises_at(ravel_modes, args, ValueError, match="invalid entry in coordinates array",
              line_of="np.ravel_multi_index((i, j), (3, 4)),")


# --- np.searchsorted ------------------------------------------------------------------------

def search(a, v):
    return np.searchsorted(a, v), np.searchsorted(a, v, side="right"), a.searchsorted(v, "right")


def search_pairs(*p):
    # search() of (a, v) argument pairs, in one program
    return tuple(search(p[k], p[k + 1]) for k in range(0, len(p), 2))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.float16,
                                   np.float32, np.float64])
def test_searchsorted_with_ties(dtype):
    a = np.array([0, 1, 1, 1, 3, 5, 5, 8, 9, 9, 9, 12, 20], dtype)
    check(search_pairs, a, np.array([[0, 0, 1], [2, 5, 9], [12, 20, 21]], dtype),
          a, np.arange(0 if np.dtype(dtype).kind == "u" else -2, 23).astype(dtype))


def test_searchsorted_nan_sorts_last_and_signed_zeros_are_equal():
    a = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan, np.nan])
    check(search_pairs, a, np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, 3.0]),
          a.astype(np.float32), np.array([np.nan, 0.0], np.float32))


def test_searchsorted_sizes_and_scalars():
    args = []
    for n in (0, 1, 2, 7, 8, 9, 64):     # the search's step count is n's bit length
        args += [np.arange(n) * 2, np.arange(-1, 2 * n + 1)]
    check(search_pairs, *args,
          np.arange(5), np.int64(3),           # a NumPy scalar
          np.arange(5), np.array(3),           # a 0-d array: a scalar too
          np.arange(5), np.array([], np.int64),
          np.array([False, True, True]), np.array([True, False]))


def search_mixed(a):
    # NumPy converts v with np.asarray: 0.1 is float64, -1 and 300 int64
    return np.searchsorted(a, 0.1), np.searchsorted(a, -1), np.searchsorted(a, 300, "right")


def test_searchsorted_python_scalars_are_not_weak():
    check(lambda a, b: (search_mixed(a), search_mixed(b)), np.array([0.1, 0.2, 0.3], np.float32),
          np.array([0, 1, 250], np.uint8))


def search_sorter(a, v):
    order = np.argsort(a, kind="stable")
    return np.searchsorted(a, v, sorter=order), np.searchsorted(a, v, "right", order)


def search_given_sorter(a, v, s):
    return np.searchsorted(a, v, sorter=s)


def test_searchsorted_with_sorter():
    check(lambda a, v, b, w, c, u, s: (search_sorter(a, v), search_sorter(b, w),
                                       search_given_sorter(c, u, s)),
          np.array([3.0, 1, 2, 2, np.nan, -1]), np.array([0, 1, 2, 2.5, 9, np.nan]),
          np.array([5, 1, 4], np.int8), np.arange(7, dtype=np.int8),
          np.array([3, 2, 1]), np.array([0, 2, 4]), np.array([2, 1, 0]))


def test_searchsorted_sorter_out_of_range_is_a_runtime_value_error():
    # NumPy raises when its search reads the bad entry; tpucc checks every entry
    args = (np.array([1.0, 2, 3]), np.array([0, 1.5, 4]), np.array([0, 1, 3]))
    with pytest.raises(ValueError, match="Sorter index out of range"):
        search_given_sorter(*args)
    raises_at(search_given_sorter, args, ValueError, match="Sorter index out of range",
              line_of="np.searchsorted")
    raises_at(search_given_sorter, (np.array([3, 2, 1]), np.array([0]), np.array([0, 1])),
              tpucc.errors.UserCodeError, match="sorter.size must equal a.size",
              line_of="np.searchsorted")


def search_side(a, v, side):
    return np.searchsorted(a, v, side=side)


def test_searchsorted_errors():
    raises_at(search, (np.ones((2, 2)), np.ones(2)), tpucc.errors.UserCodeError,
              match="object too deep", line_of="return np.searchsorted")
    raises_at(search_side, (np.ones(3), np.ones(2), "middle"), tpucc.errors.UserCodeError,
              match="search side must be", line_of="return np.searchsorted")
    raises_at(search, (np.ones(3, complex), np.ones(2)), tpucc.errors.UnsupportedError,
              match="complex128", line_of="return np.searchsorted")


def count_below(grid, queries, n):
    # a runtime loop: insert positions of shifted queries
    out = np.zeros(queries.shape, np.int64)
    for k in range(n):
        out += np.searchsorted(grid, queries + k)
    return out


def test_searchsorted_in_a_runtime_loop():
    check(count_below, np.linspace(0, 10, 11), np.array([0.5, 3.0, 9.5]), 4,
          compile_kwargs={"runtime_args": ("n",)})


# --- np.digitize ----------------------------------------------------------------------------

def bin_of(x, bins):
    return np.digitize(x, bins), np.digitize(x, bins, right=True)


X = np.array([-1, 0, 0.5, 1, 1.5, 2, 2.5, 3, np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("bins", [
    [0.0, 1, 2], [2.0, 1, 0], [1.0, 1, 1], [1.0, 1, 2, 2], [2.0, 2, 1, 1], [], [1.0],
    [np.nan, 1, 0], [0, 1, np.nan], [-np.inf, 0, np.inf]],
    ids=lambda b: str(b))
def test_digitize_increasing_decreasing_and_flat_bins(bins):
    check(lambda x, b, x32, b32: (bin_of(x, b), bin_of(x32, b32)), X, np.array(bins),
          X.astype(np.float32), np.array(bins, np.float32))


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_digitize_integer_inputs(dtype):
    x = np.arange(-3, 12).astype(dtype) if np.dtype(dtype).kind == "i" else np.arange(12, dtype=dtype)
    check(lambda x, up, down, x3, b3, x2, b2: (bin_of(x, up), bin_of(x, down), bin_of(x3, b3),
                                               bin_of(x2, b2)),
          x, np.array([1, 4, 4, 9], dtype), np.array([9, 4, 4, 1], dtype),
          x[3], np.array([1, 4, 9]),         # a NumPy scalar in, a scalar out
          x.reshape(3, -1), np.array([2.5, 7.5]))


def test_digitize_non_monotonic_bins_are_a_runtime_value_error():
    args = (X, np.array([0.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match="monotonically"):
        bin_of(*args)
    raises_at(bin_of, args, ValueError, match="bins must be monotonically increasing or "
              "decreasing", line_of="return np.digitize")


def test_digitize_errors():
    raises_at(bin_of, (np.ones(2, complex), np.arange(3.0)), tpucc.errors.UserCodeError,
              match="x may not be complex", line_of="return np.digitize")
    raises_at(bin_of, (np.ones(2), np.ones((2, 2))), tpucc.errors.UserCodeError,
              match="object too deep", line_of="return np.digitize")


# --- refused with the reason ----------------------------------------------------------------

def partitioned(x):
    return np.partition(x, 2)


def argpartitioned(x):
    return np.argpartition(x, 2)


def partitioned_in_place(x):
    x.partition(2)
    return x


@pytest.mark.parametrize("fn", [partitioned, argpartitioned, partitioned_in_place])
def test_partition_is_refused_with_the_reason(fn):
    # NumPy leaves each side of kth in its selection algorithm's order: no
    # compiled order can equal it, and a full sort is not NumPy's answer.
    raises_at(fn, (np.array([5.0, 1, 4, 2, 3, 0]),), tpucc.errors.UnsupportedError,
              match="partition.*cannot reproduce", line_of="partition(")


def counts(x):
    return np.bincount(x)


def test_bincount_refusal_suggests_add_at():
    err = raises_at(counts, (np.array([0, 2, 2]),), tpucc.errors.UnsupportedError,
                    match="depends on the values", line_of="np.bincount")
    assert "np.add.at(counts, x, 1)" in str(err)


def counts_with_add_at(x):
    c = np.zeros(4, np.int64)
    np.add.at(c, x, 1)
    return c


def test_the_suggested_bincount_replacement_compiles():
    x = np.array([0, 2, 2, 3, 0, 2])
    assert np.array_equal(np.bincount(x, minlength=4), counts_with_add_at(x))
    check(counts_with_add_at, x)


# --- np.fill_diagonal -------------------------------------------------------------------------

def fill_diag(a, val):
    np.fill_diagonal(a, val)        # in place: the argument is written back


def fill_diag_wrapped(a, val):
    np.fill_diagonal(a, val, wrap=True)
    return a.sum()


def fill_diag_pairs(*p):
    # fill_diag() of (a, val) argument pairs, in one program
    return tuple(fill_diag(p[k], p[k + 1]) for k in range(0, len(p), 2))


def fill_diag_both(*p):
    # fill_diag() and fill_diag_wrapped() of (a, val, b, wval) arguments, in one program
    return tuple((fill_diag(p[k], p[k + 1]), fill_diag_wrapped(p[k + 2], p[k + 3]))
                 for k in range(0, len(p), 4))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.float64, np.bool_])
def test_fill_diagonal_in_place(dtype):
    args = []
    for shape in [(4, 4), (7, 3), (3, 7), (3, 3, 3), (0, 3), (1, 1)]:
        args += [np.zeros(shape, dtype), 1, np.zeros(shape, dtype), np.array([1, 0, 1], dtype)]
    check(fill_diag_both, *args)


def test_fill_diagonal_values_are_flattened_and_cycled():
    check(fill_diag_pairs,
          np.zeros((4, 4)), np.array([1.5, -2.0]),          # repeated
          np.zeros((3, 5)), np.arange(9.0).reshape(3, 3),   # cut
          np.zeros((3, 3)), np.array([]),                   # nothing written
          np.zeros((4, 4), np.int8), np.array([300, -2]),   # unsafe casts
          np.zeros((4, 4), np.int8), np.array([2.7, -2.7]),
          np.zeros((4, 4), np.float32), [1, 2],             # a static list
          np.zeros((2, 2), complex), 1j)


def fill_diag_of_view(a, val):
    np.fill_diagonal(a[1:, ::2], val)     # a view: writes go through to a
    b = a.T
    np.fill_diagonal(b, -1.0)
    return a


def test_fill_diagonal_of_views():
    check(fill_diag_of_view, np.zeros((5, 6)), np.array(7.0))


def identity_rows(n, x):
    # a runtime loop filling the diagonal with a runtime value
    out = np.zeros((3, 3))
    for k in range(n):
        np.fill_diagonal(out, x[k])
        out[0] += out[1]
    return out


def test_fill_diagonal_in_a_runtime_loop():
    check(identity_rows, 3, np.array([1.0, 2.0, 3.0]), compile_kwargs={"runtime_args": ("n",)})


def test_fill_diagonal_errors():
    raises_at(fill_diag, (np.zeros(3), 1.0), tpucc.errors.UserCodeError,
              match="at least 2-d", line_of="np.fill_diagonal")
    raises_at(fill_diag, (np.zeros((2, 2, 3)), 1.0), tpucc.errors.UserCodeError,
              match="equal length", line_of="np.fill_diagonal")
    with pytest.raises(OverflowError):
        fill_diag(np.zeros((2, 2), np.int8), 300)
    raises_at(fill_diag, (np.zeros((2, 2), np.int8), 300), tpucc.errors.UserCodeError,
              match="300 out of bounds for int8", line_of="np.fill_diagonal")


# --- np.cov / np.corrcoef ---------------------------------------------------------------------

def covariances(m):
    return (np.cov(m), np.cov(m, rowvar=False), np.cov(m, bias=True), np.cov(m, ddof=0),
            np.corrcoef(m), np.corrcoef(m, rowvar=False))


def covariances_with(m, y):
    return np.cov(m, y), np.corrcoef(m, y), np.cov(m, y, ddof=2)


def covariances_with_columns(m, y):
    return np.cov(m, y, rowvar=False), np.corrcoef(m, y, rowvar=False)


RNG = np.random.default_rng(14)
OBS = RNG.normal(size=(3, 6))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint8, np.bool_])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")      # bool: a constant row's 0 / 0
def test_cov_and_corrcoef(dtype):
    m = (OBS * 4 + 5).astype(dtype)
    # float32 and integers give float64, as NumPy's; m0: one variable, a 0-d
    # covariance, a scalar correlation
    check(lambda m, m0, y, mt, y1: (covariances(m), covariances(m0), covariances_with(m, y),
                                    covariances_with_columns(mt, y1)),
          m, m[0], m[:2] * 2, m.T, m[1])


# NumPy warns (one observation, zero variance); the values (inf, NaN) are compared.
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_cov_edge_cases():
    check(lambda *ms: tuple(covariances(m) for m in ms),
          np.zeros((2, 4)),                               # zero variance: NaN correlations
          np.array([[1.0, np.nan, 2.0], [1.0, 2.0, 4.0]]),
          np.zeros((0, 3)),                               # no variables: a (0, 0) array
          OBS[:, :2])


def typed_cov(m):
    return np.cov(m, dtype=np.float32), np.corrcoef(m, dtype=np.float32)


def complex_cov(z):
    return np.cov(z), np.cov(z, bias=True)


def test_cov_dtype_and_complex():
    check(lambda m, z: (typed_cov(m), complex_cov(z)), OBS, OBS + 1j * OBS[::-1])


def weighted_cov(m, w):
    return np.cov(m, aweights=w)


def deep_cov(m):
    return np.cov(m)


def complex_corrcoef(z):
    return np.corrcoef(z)


def test_cov_errors():
    raises_at(weighted_cov, (OBS, np.ones(6)), tpucc.errors.UnsupportedError,
              match="aweights", line_of="np.cov")
    raises_at(deep_cov, (np.ones((2, 2, 2)),), tpucc.errors.UserCodeError,
              match="more than 2 dimensions", line_of="np.cov")
    raises_at(complex_corrcoef, (OBS + 1j,), tpucc.errors.UnsupportedError,
              match="complex", line_of="np.corrcoef")


def scaled_covariance(x, y, n):
    # a runtime loop: the covariance of a rescaled series
    total = np.zeros(())
    for k in range(n):
        total = total + np.cov(x * k, y)[0, 1] + np.corrcoef(x + k, y)[0, 1]
    return total


def test_cov_in_a_runtime_loop():
    check(scaled_covariance, OBS[0], OBS[1], 3, compile_kwargs={"runtime_args": ("n",)})
