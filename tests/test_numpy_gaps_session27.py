"""NumPy functions refused (E100) until session 27, each compared with eager
NumPy (values, dtypes, NumPy scalar vs array, the arguments' final
contents): np.put / a.put, np.putmask, np.put_along_axis and `a.flat`
(in-place writes, into views too, with runtime indices and masks), np.ix_,
np.compress, np.nanmedian / nanpercentile / nanquantile, np.histogram2d;
and their errors."""
import warnings

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at, sample

DTYPES = [np.bool_, np.int8, np.int64, np.float32, np.float64, np.complex64]


def each(fn, k):
    """fn on each group of k consecutive arguments, the results in a tuple:
    several dtypes' checks in one program (one XLA compile)."""
    return lambda *args: tuple(fn(*args[j:j + k]) for j in range(0, len(args), k))


# --- np.put ---------------------------------------------------------------------------------

def puts(a, i, v):
    np.put(a, i, v)                         # runtime indices, runtime values
    np.put(a, [0, -1], 1)                   # static indices, a Python number
    np.put(a[1:], [0, 0, 2], [5, 6, 7])     # a view; a repeated index keeps its last value
    a.put(i[:1], v[::-1])                   # the method; more values than indices
    return a.sum(), a


def test_put():
    # every dtype of DTYPES in one program
    check(each(puts, 3), *[x for dtype in DTYPES for x in
                           (sample((2, 3), dtype), np.array([4, -2, 4]), sample((3,), dtype, seed=1))])


def put_modes(a, i):
    np.put(a, i, [10, 20, 30], mode="wrap")
    b = a.copy()
    np.put(b, i, np.array([1.5, 2.5]), mode="clip")      # floats into ints: truncated
    return a, b


def test_put_modes_wrap_and_clip():
    check(put_modes, np.arange(6).reshape(2, 3), np.array([7, -9, 13, -1]))
    check(put_modes, np.arange(5.0), np.array([[5, -6], [2, 100]]))


def put_repeated(a, i, v):
    np.put(a, i, v)
    return a


def test_put_repeated_runtime_indices_keep_the_last_value():
    i = np.array([3, 1, 3, 3, 0, 1])
    check(put_repeated, np.zeros(5), i, np.arange(6.0))
    check(put_repeated, np.zeros((2, 2), np.int32), np.array([-1, 3, 0, 0]), np.array([1, 2, 3, 4]))


def test_put_into_views_and_0d_and_empty():
    check(lambda a, i: (np.put(a.T, i, [5, 6]), a)[1], np.zeros((3, 2)), np.array([1, 2]))
    check(lambda a, i: (np.put(a[:, ::2], i, 9.5), a)[1], np.zeros((3, 4)), np.array([0, 5]))
    check(lambda a, i: (np.put(a, i, [1, 2]), a)[1], np.array(0.0), np.array([0, -1]))
    check(lambda a, i: (np.put(a, i, []), np.put(a, [], [1]), a)[2], np.arange(3), np.array([1]))


def put_in_loop(a, i, n):
    for k in range(n):
        np.put(a, i + k, k)
        if a.sum() > 10:
            a.put(0, -1)
    return a


def test_put_in_runtime_control_flow():
    check(put_in_loop, np.zeros(6, np.int64), np.array([0, 2]), 4)


def test_put_out_of_bounds_raises():
    f = tpucc.compile(put_repeated)
    assert np.array_equal(f(np.zeros(3), np.array([2, -3]), np.ones(2)), np.ones(3) * [1, 0, 1])
    with pytest.raises(IndexError):
        np.put(np.zeros(3), np.array([3]), [1.0])
    a = np.zeros(3)
    with pytest.raises(tpucc.RuntimeIndexError, match="out of bounds for size 3"):
        f(a, np.array([0, 3]), np.ones(2))
    assert not a.any()                      # nothing written back
    raises_at(lambda a: np.put(a, [7], 1.0), (np.zeros(6),), tpucc.UserCodeError,
              "IndexError: index 7 is out of bounds", line_of="np.put")
    raises_at(lambda a, i: np.put(a, i, 1, mode="bad"), (np.zeros(3), np.array([0])),
              tpucc.UserCodeError, "clipmode must be one of", line_of="np.put")
    raises_at(lambda a, i: np.put(a, i, 1, mode="clip"), (np.zeros(0), np.array([0])),
              tpucc.UserCodeError, "cannot replace elements of an empty array", line_of="np.put")
    raises_at(lambda a, i: np.put(a, i, 300), (np.zeros(3, np.int8), np.array([0])),
              tpucc.UserCodeError, "out of bounds for int8", line_of="np.put")


def test_put_values_wrap_as_an_assignment():
    check(lambda a, i, v: (np.put(a, i, v), a)[1], np.zeros(3, np.int8), np.array([0, 1]),
          np.array([300, -129]))


# --- np.putmask ------------------------------------------------------------------------------

def putmasks(a, m, v):
    np.putmask(a, m, v)                     # runtime mask and values, cycled over a
    np.putmask(a, ~m, 2)
    np.putmask(a[1:], m[:1], v[:1])         # a view, a mask of another shape, same size
    return a


def test_putmask():
    # every dtype of DTYPES in one program
    check(each(putmasks, 3), *[x for dtype in DTYPES for x in
                               (sample((2, 3), dtype), sample((2, 3), dtype, seed=1) > 0,
                                sample((4,), dtype, seed=2))])


def test_putmask_into_a_transposed_view_and_int_masks():
    def f(a, m, v):
        np.putmask(a.T, m, v)
        np.putmask(a, np.arange(6).reshape(3, 2) % 3, -1.0)
        return a
    check(f, np.zeros((3, 2)), np.array([[1, 0, 1], [0, 0, 1]], bool), np.arange(6.0))
    check(lambda a, m: (np.putmask(a, m, []), a)[1], np.ones(3), np.array([True, False, True]))


def test_putmask_errors():
    m = np.array([True, False, True])
    raises_at(lambda a, m: np.putmask(a, m[:2], 1), (np.zeros(3), m), tpucc.UserCodeError,
              "mask and data must be the same size", line_of="np.putmask")
    raises_at(lambda a, m, v: np.putmask(a, m, v), (np.zeros(3, np.int64), m, np.ones(3)),
              tpucc.DTypeError, "rule 'safe'", line_of="np.putmask")
    raises_at(lambda a, m: np.putmask(a, m, 300), (np.zeros(3, np.int8), m),
              tpucc.UserCodeError, "out of bounds for int8", line_of="np.putmask")


# --- np.put_along_axis -----------------------------------------------------------------------

def puts_along(a, i, v):
    np.put_along_axis(a, i, v, axis=1)
    np.put_along_axis(a, i[:, :1] * 0, 7, axis=-1)
    np.put_along_axis(a.T, np.array([[0, 1]]), v[:1, :1], axis=0)     # a view
    return a


def put_max_along(a, i):
    np.put_along_axis(a, i, np.max(a, axis=1, keepdims=True) * 2, 1)
    return a


def test_put_along_axis():
    # both checks, for each dtype, in one program (b: a separate copy of a)
    args = []
    for dtype in [np.int8, np.float32, np.complex128]:
        a = sample((2, 4), dtype)
        args += [a, np.array([[0, 3], [-1, 1]]), sample((2, 2), dtype, seed=1),
                 a.copy(), np.argsort(a.real, axis=1)[:, :1]]
    check(each(lambda a, i, v, b, j: (puts_along(a, i, v), put_max_along(b, j)), 5), *args)


def test_put_along_axis_none_and_errors():
    check(lambda a, i: (np.put_along_axis(a, i, [7, 8], None), a)[1], np.zeros((2, 3)),
          np.array([0, 5]))
    f = tpucc.compile(lambda a, i: (np.put_along_axis(a, i, 1.0, 1), a)[1])
    with pytest.raises(tpucc.RuntimeIndexError):
        f(np.zeros((2, 3)), np.array([[0], [3]]))
    raises_at(lambda a, i: np.put_along_axis(a, i, 1, 1), (np.zeros((2, 3)), np.zeros((2, 1))),
              tpucc.UserCodeError, "must be an integer array", line_of="np.put_along_axis")
    raises_at(lambda a, i: np.put_along_axis(a, i, 1, 1), (np.zeros((2, 3)), np.array([0])),
              tpucc.UserCodeError, "same number of dimensions", line_of="np.put_along_axis")


# --- a.flat ----------------------------------------------------------------------------------

def flat_reads(a, i, m):
    return (a.flat[2], a.flat[-1], a.flat[i], a.flat[1:4], a.T.flat[[0, 1]], a.flat[i[0]],
            a.flat[...], len(a.flat), a.flat.base is a, a.flat.copy(), np.sum(a.flat),
            a.flat[m].sum())


def test_flat_reads():
    # every dtype of DTYPES in one program
    check(each(flat_reads, 3), *[x for dtype in DTYPES for x in
                                 (sample((2, 3), dtype), np.array([[0, 4], [5, 1]]),
                                  np.arange(6) % 2 == 0)])


def flat_writes(a, i, m):
    a.flat[i] = [1, 2, 3]           # cycled; a repeated index keeps its last value
    a.flat[0] += 10
    a.flat[i[-1]] = -1              # a runtime scalar index
    a.T.flat[m] = a.flat[:2]        # a boolean mask of a.size: the values in turn
    a.flat[::4] = 9
    a.flat[...] = a.flat[::-1] * 2          # every element
    return a


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.complex64])
def test_flat_writes(dtype):
    check(flat_writes, sample((2, 3), dtype), np.array([1, 1, 5, 2]),
          np.array([True, False, True, False, False, True]))


def test_flat_assignment_and_views():
    def f(a, v):
        a.flat = v                  # every element, v cycled
        b = a[:, 1:]
        b.flat[[0, 3]] = 0.5        # into a view of a
        return a
    check(f, np.zeros((2, 3)), np.array([1.0, 2.0]))


def flat_loop(a):
    total = 0.0
    for v in a.T.flat:              # NumPy scalars, C order of the transposed view
        total = total * 0.5 + v
        a[0, 0] = v                 # the loop reads each element when it gets there
    return total, a, list(a.flat)[:3], [v * 2 for v in a.flat][-1]


# Within the unroll budget, and beyond it (8 elements past unroll=4, the
# path of 40 past the default 32 at a fifth of the unrolled program): the
# loop writes the array it iterates, so it is unrolled there too, exactly.
@pytest.mark.parametrize("shape, unroll", [((2, 3), 32), ((2, 4), 4)])
def test_flat_iteration(shape, unroll):
    check(flat_loop, np.arange(np.prod(shape), dtype=np.float64).reshape(shape),
          compile_kwargs={"unroll": unroll})


def test_flat_errors():
    f = tpucc.compile(lambda a, i: a.flat[i[0]])
    with pytest.raises(tpucc.RuntimeIndexError):
        f(np.zeros(3), np.array([3]))
    raises_at(lambda a: a.flat[6], (np.zeros((2, 3)),), tpucc.UserCodeError,
              "IndexError", line_of="a.flat")

    def past_the_end(a, v):
        a.flat[7] = v
    raises_at(past_the_end, (np.zeros((2, 3)), 1.0), tpucc.UserCodeError,
              "index 7 is out of bounds", line_of="a.flat")
    raises_at(lambda a: a.flat, (np.zeros(3),), tpucc.UnsupportedError, "returning a.flat")
    raises_at(lambda a: a.flat.coords, (np.zeros(3),), tpucc.UnsupportedError,
              r"a\.flat\.coords", line_of="a.flat")

    def bool_list(a):
        a.flat[[True, False]] = 1.0         # NumPy 2 refuses a list of bools here
    raises_at(bool_list, (np.zeros(2),), tpucc.UserCodeError, "boolean indices for iterators",
              line_of="a.flat")

    def zero_d_index(a):
        a.flat[()] = 1.0
    raises_at(zero_d_index, (np.zeros(2),), tpucc.UserCodeError, "0-D index", line_of="a.flat")

    def two_indices(a, i):
        a.flat[i, i] = 1.0
    raises_at(two_indices, (np.zeros(2), np.array([0])), tpucc.UserCodeError,
              "too many indices for flat iterator", line_of="a.flat")

    def masked(a, m):
        a.flat[m] = 1.0
    raises_at(masked, (np.zeros((2, 3)), np.ones(2, bool)), tpucc.UserCodeError,
              "boolean index did not match", line_of="a.flat[m]")


# --- np.ix_ ----------------------------------------------------------------------------------

def test_ix():
    check(lambda a, i, j: (a[np.ix_(i, j)], np.ix_(i, [0, 1]), np.ix_([True, False, True], j)),
          np.arange(12.0).reshape(3, 4), np.array([2, 0]), np.array([3, 3, 1]))
    check(lambda a, i: (a[np.ix_(i, [1])], np.ix_(i.astype(np.int8))[0].dtype), np.ones((3, 2)),
          np.array([1, -1]))

    def writes(a, i):
        a[np.ix_(i, [0, 2])] = 7
        return a
    check(writes, np.zeros((3, 3)), np.array([0, 2]))
    raises_at(lambda m: np.ix_(m), (np.array([True, False]),), tpucc.UnsupportedError,
              "np.ix_ of a runtime boolean", line_of="np.ix_")
    raises_at(lambda i: np.ix_(i), (np.zeros((2, 2), np.int64),), tpucc.UserCodeError,
              "Cross index must be 1 dimensional", line_of="np.ix_")


# --- np.compress -----------------------------------------------------------------------------

def compresses(a):
    return (np.compress([0, 1, 2], a), np.compress([0.0, 1.5], a, axis=1),
            a.compress([False, True], 0), np.compress([True, False, False, False], a, axis=1),
            np.compress([True], a[0, 0]))


def test_compress_static_condition():
    # every dtype of DTYPES in one program
    check(each(compresses, 1), *[sample((2, 3), dtype) for dtype in DTYPES])


def compress_runtime(a, c, r):
    rows = np.compress(r, a, axis=0)        # a boolean-mask selection: reduced
    flat = a.compress(c)                    # the flattened array
    return rows.sum(axis=0), rows.max(), flat.mean(), len(flat), (flat * 2).sum()


def test_compress_runtime_condition():
    a = np.arange(12.0).reshape(3, 4)
    check(compress_runtime, a, np.arange(12) % 3 == 0, np.array([True, False, True]))
    check(compress_runtime, a, np.array([True, True]), np.array([False, True]))   # shorter


def test_compress_errors():
    a = np.arange(6.0).reshape(2, 3)
    f = tpucc.compile(lambda a, c: np.compress(c, a, axis=0).sum())
    assert f(a, np.array([False, True, False])) == 12.0
    with pytest.raises(tpucc.RuntimeIndexError):
        f(a, np.array([True, False, True]))             # a True past the axis: IndexError
    raises_at(lambda a, c: np.compress(c, a, axis=1).sum(), (a, np.array([True, False, True])),
              tpucc.ShapeError, "axis other than the first", line_of="np.compress")
    raises_at(lambda a, c: np.compress(c, a), (a, np.array([True])), tpucc.ShapeError,
              "returning x\\[mask\\]")
    raises_at(lambda a: np.compress([[True]], a), (a,), tpucc.UserCodeError,
              "condition must be a 1-d array", line_of="np.compress")
    raises_at(lambda a: np.compress([True, False, False, True], a, axis=1), (a,),
              tpucc.UserCodeError, "index 3 is out of bounds", line_of="np.compress")


# --- nanmedian / nanpercentile / nanquantile -------------------------------------------------

def with_nans(shape, dtype, seed=0):
    a = (np.random.default_rng(seed).normal(size=shape) * 10).astype(dtype)
    if a.dtype.kind == "f":
        a[0, 1] = a[1, :] = a[2, 3] = a[2, 5] = np.nan
        a[3, 2] = np.inf
    return a


def nan_medians(a):
    return (np.nanmedian(a), np.nanmedian(a, axis=1), np.nanmedian(a, axis=0, keepdims=True),
            np.nanmedian(a[0]), np.nanmedian(a, axis=(0, 1)))


def nan_quantiles(a):
    return (np.nanpercentile(a, 30), np.nanpercentile(a, [30, 70.5], axis=1),
            np.nanquantile(a, 0.3, axis=0, keepdims=True), np.nanquantile(a[0], [0, 1]),
            np.nanquantile(a, 1, axis=1), np.nanpercentile(a[2], 50.0))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16])
def test_nan_median_and_quantiles_exact(dtype):
    a = with_nans((4, 7), dtype)
    warnings.simplefilter("ignore", RuntimeWarning)      # NumPy's All-NaN slice warnings
    check(lambda a: (nan_medians(a), nan_quantiles(a)), a, rtol=0, atol=0)


def test_percentiles_match_numpy_exactly():
    arrays = []
    for n in [7, 10, 11, 33, 100]:
        a = np.random.default_rng(n).normal(size=n)
        a[::3] = np.nan
        arrays.append(a)
    warnings.simplefilter("ignore", RuntimeWarning)
    # every length in one program
    check(each(lambda a: (np.percentile(a, 30), np.quantile(a, [0.3, 0.7, 0.1]),
                          np.percentile(a[1::3], 30), np.nanpercentile(a, 30),
                          np.nanquantile(a, [0.3, 0.7, 0.1]), np.nanmedian(a)), 1),
          *arrays, rtol=0, atol=0)


def test_nan_median_edge_cases():
    warnings.simplefilter("ignore", RuntimeWarning)
    check(lambda a: (np.nanmedian(a), np.nanpercentile(a, 50)), np.array([np.nan, np.nan]))
    check(lambda a: (np.nanmedian(a), np.nanmedian(a, axis=1)), np.ones((2, 0)))
    check(lambda a: np.nanmedian(a), np.array([np.finfo(np.float32).max, np.nan], np.float32))
    raises_at(lambda a: np.nanpercentile(a, 120), (np.ones(3),), tpucc.UserCodeError,
              "Percentiles must be in the range", line_of="np.nanpercentile")
    raises_at(lambda a, q: np.nanquantile(a, q), (np.ones(3), np.array([0.5])), tpucc.UnsupportedError,
              "quantiles known only at run time", line_of="np.nanquantile")


# --- histogram2d ------------------------------------------------------------------------------

def samples(n=50, seed=0):
    rng = np.random.default_rng(seed)
    x, y = rng.normal(size=n), rng.normal(size=n) * 3
    x[3], y[4] = x.max(), y.min()
    return x, y


def test_histogram2d():
    x, y = samples()
    w = np.random.default_rng(1).random(50)
    # the same x, y: one program
    check(lambda x, y, w, e: (
        np.histogram2d(x, y),
        np.histogram2d(x, y, bins=(3, 5), range=[(-1, 1), (-2, 2)], weights=w),
        np.histogram2d(x, y, bins=[np.array([-1.0, 0, 1]), 4], density=True),
        np.histogram2d(x, y, bins=e)), x, y, w, np.array([-3.0, -1, 0, 0.5, 3]))
    # other dtypes and data: one program
    check(lambda x1, y1, x2, y2, x3, y3, x4, y4: (
        np.histogram2d(x1, y1, bins=4), np.histogram2d(x2, y2, bins=4),
        np.histogram2d(x3, y3, bins=[2, 3]),
        np.histogram2d(x4, y4, bins=3, range=[(0, 2), (0, 2)])),
          x.astype(np.float32), y.astype(np.int8),
          (x * 10).astype(np.int64), (y * 10).astype(np.int16),
          np.ones(5), np.arange(5.0),
          np.array([1.0, np.nan, 2]), np.ones(3))            # NaN: an outlier


def test_histogram2d_errors():
    x, y = samples(5)
    raises_at(lambda x, y: np.histogram2d(x, y), (x, y[:4]), tpucc.UserCodeError,
              "x and y must have the same length", line_of="np.histogram2d")
    raises_at(lambda x, y: np.histogram2d(x, y, bins=0), (x, y), tpucc.UserCodeError,
              "must be positive", line_of="np.histogram2d")
    raises_at(lambda x, y: np.histogram2d(x, y, bins=[[0, 1], [3, 1]]), (x, y),
              tpucc.UserCodeError, "monotonically increasing", line_of="np.histogram2d")
    f = tpucc.compile(lambda x, y, e: np.histogram2d(x, y, bins=[e, e]))
    with pytest.raises(tpucc.RuntimeRaiseError, match="monotonically increasing"):
        f(x, y, np.array([3.0, 1]))
    g = tpucc.compile(lambda x, y: np.histogram2d(x, y))
    with pytest.raises(tpucc.RuntimeRaiseError, match="not finite"):
        g(np.array([1.0, np.inf]), np.arange(2.0))
