"""Fixes from sweep 40E (data wrangling): uint64 compared with a signed
integer array of another rank, np.lexsort with keys of different dtypes,
np.putmask with NumPy scalar values, np.place and np.extract (now
compiled), the refusals of NumPy 2's unique_* functions, the set operations
and np.trim_zeros, and the compile time of np.searchsorted on a long array.
Each compiled result is compared with eager NumPy (values, dtypes, NumPy
scalar vs array, the arguments' final contents)."""
import time
import warnings

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at

NOCACHE = {"cache": False}


def same(fn, *args):
    return check(fn, *args, compile_kwargs=NOCACHE)


# --- bug_04: uint64 against a signed integer array of another rank -------------------------

SIGNED = [np.int8, np.int16, np.int32, np.int64]


def compare_all(a, b):
    return (a[:, None] == b, a[:, None] != b, a[:, None] < b, a[:, None] <= b,
            b > a[:, None], b >= a[:, None])


@pytest.mark.parametrize("signed", SIGNED)
def test_uint64_compared_with_signed_of_another_rank(signed):
    a = np.array([3, 1, 2**63 + 5], dtype=np.uint64)
    b = np.array([-1, 1, 3, 127], dtype=signed)
    same(compare_all, a, b)


def test_uint64_compared_with_a_signed_scalar_array_and_a_higher_rank():
    a = np.array([[0, 7], [2**64 - 1, 1]], dtype=np.uint64)
    same(lambda a, b, s: (a == b[:, None, None], a < s, np.equal(b, a[..., None])),
         a, np.array([-3, 7]), np.array(-1, np.int32))


def test_uint64_outer_comparisons_and_isin():
    a = np.array([3, 1, 2**63], dtype=np.uint64)
    b = np.array([-1, 1, 3])
    same(lambda a, b: (np.equal.outer(a, b), np.less.outer(a, b), np.greater_equal.outer(b, a),
                       np.isin(a, b), np.isin(a, [1, 2]), np.isin(b, a, invert=True)), a, b)


# --- bug_05: np.lexsort sorts each key in its own dtype ------------------------------------

def test_lexsort_int64_keys_beyond_float64_with_a_float_key():
    same(lambda ids, score: np.lexsort((ids, score)),
         np.array([2**53 + 1, 2**53, 3, 2**53 + 1]), np.array([0.0, 0.0, 1.0, -1.0]))


@pytest.mark.parametrize("first, second", [
    (np.array([2**63 + 1, 2**63, 5], dtype=np.uint64), np.array([0, 0, -1], np.int8)),
    (np.array([2**62 + 1, 2**62, 2**62 + 1]), np.array([2**63, 2**63, 1], dtype=np.uint64)),
    (np.array([True, False, True]), np.array([2**60 + 1, 2**60 + 1, 2**60])),
])
def test_lexsort_mixed_dtype_pairs(first, second):
    same(lambda a, b: (np.lexsort((a, b)), np.lexsort([b, a])), first, second)


def test_lexsort_on_2d_keys_along_each_axis_and_a_key_array():
    ids = np.array([[2**53 + 1, 2**53], [7, 7]])
    score = np.array([[0.5, 0.5], [1.0, 0.0]])
    same(lambda i, s, k: (np.lexsort((i, s)), np.lexsort((i, s), axis=0),
                          np.lexsort(k), np.lexsort(np.array([7]))),
         ids, score, np.array([[3, 1, 2], [0, 0, 1]]))


def test_lexsort_errors_stay_numpys():
    raises_at(lambda a, b: np.lexsort((a, b)), (np.zeros(3), np.zeros(2)), tpucc.UserCodeError,
              "all keys need to be the same shape", line_of="np.lexsort")
    raises_at(lambda a: np.lexsort(a), (np.zeros((0, 3)),), tpucc.UserCodeError,
              "need sequence of keys", line_of="np.lexsort")


# --- bug_08: np.putmask takes NumPy scalars as NumPy does ------------------------------------

def test_putmask_numpy_scalar_of_a_wider_dtype():
    def f(a, b):
        np.putmask(a, a > 2, b.max())          # an np.float64 into float32
        return a
    same(f, np.arange(6, dtype=np.float32), np.arange(3.0))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float32, np.bool_])
def test_putmask_static_and_runtime_numpy_scalars(dtype):
    def f(a, b, i):
        np.putmask(a, a == 0, np.int64(7))
        np.putmask(a[1:], a[1:] == 1, np.float64(1.5))
        np.putmask(a, a == 2, b[i])             # a runtime NumPy scalar
        np.putmask(a, a == 3, [2.5, 1])         # a list converts as an assignment does
        return a
    same(f, np.array([0, 1, 2, 3, 1, 0], dtype), np.array([4.5, 9.25]), 1)


def test_putmask_arrays_are_still_cast_safe():
    err = raises_at(lambda a, v: np.putmask(a, a > 0, v), (np.ones(3, np.float32), np.ones(3)),
                    tpucc.DTypeError, r"Cannot cast array data from dtype\('float64'\)",
                    line_of="np.putmask")
    assert "astype" in err.hint
    raises_at(lambda a, v: np.putmask(a, a > 0, v), (np.ones(3, np.int32), np.array(1.5)),
              tpucc.DTypeError, "Cannot cast scalar from", line_of="np.putmask")


# --- bug_06: np.place and np.extract compile -----------------------------------------------

def places(a, m, v):
    np.place(a, m, v)                           # values cycled over the chosen places
    np.place(a[:, 1:], a[:, 1:] > 100, 7)       # a view, a Python number
    return a


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64])
def test_place(dtype):
    m = np.array([[True, False, True], [True, True, False]])
    same(places, np.arange(6).reshape(2, 3).astype(dtype), m, np.array([101, 5], dtype))


def test_place_into_a_transposed_view_with_a_mask_of_another_shape():
    def f(a, m, v):
        np.place(a.T, m, v[::-1])
        np.place(a, np.ones(6), np.float32(2.5))     # a number mask, a NumPy scalar
        return a
    same(f, np.zeros((2, 3)), np.array([1, 0, 1, 1, 0, 1]).reshape(3, 2), np.arange(3.0))
    same(lambda a, m: (np.place(a, m, [1.5, 2]), a)[1], np.zeros(4, np.int8),
         np.array([True, True, False, True]))


def test_place_errors():
    m = np.array([True, False, True])
    raises_at(lambda a, m: np.place(a, m[:2], 1), (np.zeros(3), m), tpucc.UserCodeError,
              "mask and data must be the same size", line_of="np.place")
    raises_at(lambda a, m, v: np.place(a, m, v), (np.zeros(3, np.int64), m, np.ones(2)),
              tpucc.DTypeError, "rule 'safe'", line_of="np.place")
    raises_at(lambda a, m: np.place(a, m, []), (np.zeros(3), m), tpucc.TpuccError,
              "Cannot insert from an empty array", line_of="np.place")
    same(lambda a, m: (np.place(a, m, []), a)[1], np.zeros(3), np.zeros(3, bool))


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_extract_compiles_where_a_mask_selection_does(dtype):
    c = np.array([[1, 0, 2], [0, 0, 3]])
    x = np.arange(6).reshape(2, 3).astype(dtype)
    same(lambda c, x: (np.extract(c, x).sum(), np.extract(c > 1, x).mean(),
                       (np.extract(c, x) * 2).max(), len(np.extract(c, x)),
                       np.extract(c.ravel()[:4], x).sum()), c, x)


def test_extract_returned_is_refused_with_the_mask_hint():
    raises_at(lambda c, x: np.extract(c, x), (np.array([1, 0]), np.arange(2.0)),
              tpucc.ShapeError, "data-dependent shape", line_of="np.extract")


# --- bug_06: specific refusals of the data-dependent functions -----------------------------

@pytest.mark.parametrize("fn, hint", [
    (lambda x, y: np.unique_values(x), "np.isin"),
    (lambda x, y: np.unique_counts(x), "np.add.at"),
    (lambda x, y: np.unique_inverse(x), "np.searchsorted"),
    (lambda x, y: np.unique_all(x), "np.isin"),
    (lambda x, y: np.intersect1d(x, y), "np.isin"),
    (lambda x, y: np.union1d(x, y), "np.concatenate"),
    (lambda x, y: np.setdiff1d(x, y), "invert=True"),
    (lambda x, y: np.setxor1d(x, y), "invert=True"),
    (lambda x, y: np.trim_zeros(x), "np.cumsum"),
])
def test_data_dependent_refusals_say_why_and_what_compiles(fn, hint):
    err = raises_at(fn, (np.array([0, 2, 2, 5]), np.array([2, 7])), tpucc.UnsupportedError,
                    "depends on the values", line_of="lambda")
    assert hint in err.hint


def test_data_dependent_functions_of_constants_still_fold():
    same(lambda x: (np.unique_values(np.array([3, 1, 3])) + x,
                    np.intersect1d(np.array([1, 2, 5]), np.array([5, 1])) * x,
                    np.trim_zeros(np.array([0, 4, 0])) + x), 2)


def test_the_hints_compile():
    def f(x):
        counts = np.zeros(6, np.int64)
        np.add.at(counts, x, 1)                       # unique_counts
        nz = x != 0                                   # trim_zeros
        kept = (np.cumsum(nz) > 0) & (np.cumsum(nz[::-1])[::-1] > 0)
        return (counts, counts > 0, np.searchsorted(np.sort(x), x), kept,
                np.isin(x, np.array([2, 5]), invert=True))
    same(f, np.array([0, 2, 2, 5, 0]))


# --- bug_09: np.searchsorted on a long array compiles quickly ------------------------------

def test_searchsorted_results_on_a_long_array():
    s = np.sort(np.random.default_rng(0).standard_normal(5000))
    s[10:20] = s[10]                                  # ties
    v = np.concatenate([s[::997], [-np.inf, np.inf, np.nan, 0.0]])
    same(lambda s, v: (np.searchsorted(s, v), np.searchsorted(s, v, side="right"),
                       np.digitize(v, s), np.searchsorted(s, v[0])), s, v)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 7, 8, 9])
def test_searchsorted_short_arrays(n):
    s = np.arange(n, dtype=np.int32) // 2
    same(lambda s, v: (np.searchsorted(s, v), np.searchsorted(s, v, side="right")),
         s, np.arange(-1, 6))


def test_searchsorted_on_a_long_array_is_not_an_unrolled_search():
    def f(s, v):
        return (np.searchsorted(s, v) + np.searchsorted(s, v + 1, side="right")
                + np.searchsorted(s, 2 * v) + np.digitize(v, s))
    s = np.sort(np.random.default_rng(1).standard_normal(200_000))
    v = np.linspace(-1, 1, 10)
    start = time.perf_counter()
    out = tpucc.compile(f, cache=False)(s, v)
    took = time.perf_counter() - start
    np.testing.assert_array_equal(out, f(s, v))
    assert took < 15, f"four searches took {took:.1f} s to compile (about 20 s unrolled)"


def test_interp_with_a_long_xp():
    xp = np.sort(np.random.default_rng(2).standard_normal(50_000))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda x, xp, fp: np.interp(x, xp, fp), np.linspace(-2, 2, 9), xp, np.cos(xp))
