"""Bugs of sweep 43H (variable-length and padded data) fixed in session 43a:
each test compares compiled with eager NumPy (values, dtypes, argument state),
or checks a refusal's message and line.

- bug_10: np.clip's out= (a runtime-bounded slice dropped the write) and dtype=;
- bug_12: np.std / np.var read a positional ddof as keepdims;
- bug_13: positional arguments bound by NumPy's signatures (np.clip(x, 0, 2,
  None), np.stack(xs, 1, None), np.max(x, 1, None, True), ufunc outputs by
  position on a runtime slice);
- bug_03: np.empty(n, dtype=object) refused naming np.empty, not `full`;
- bug_05: a list indexed at a runtime position gives its item as it is
  (no promotion), or E300;
- bug_09: a user __iter__ generator over a runtime range: the `yield` refusal.
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same

A = np.int64(2)


# --- bug_10: np.clip out= and dtype= --------------------------------------------------------

def clip_tail(x, a):
    y = x[a:]
    np.clip(y, 2, 4, out=y)
    return x


def clip_window(x, i):
    np.clip(x[i:i + 2], 0, 2, out=x[i:i + 2])
    return x


def clip_into_other(x, a):
    z = np.zeros_like(x)
    np.clip(x[a:], 0, 2, out=z[a:])
    return z


def clip_rows(X, a):
    np.clip(X[a:, 1:], 2, 4, out=X[a:, 1:])
    return X


@pytest.mark.parametrize("fn", [clip_tail, clip_window, clip_into_other])
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float32])
def test_clip_out_runtime_slice_is_written(fn, dtype):
    same(fn, np.arange(8).astype(dtype), A)


def test_clip_out_runtime_rows_is_written():
    same(clip_rows, np.arange(12.0).reshape(3, 4), np.int64(1))


def test_clip_out_whole_array_and_method():
    same(lambda x: np.clip(x, 2, 4, out=x), np.arange(8.0))
    same(lambda x: (np.clip(x, 2, 4, out=x), x)[1], np.arange(8, dtype=np.int16))
    same(lambda x: x.clip(2, 4, out=x), np.arange(8.0))
    same(lambda x: x.clip(2, 4, x), np.arange(8.0))
    same(lambda x, y: np.clip(x, 2, 4, out=y), np.arange(8), np.zeros(8))
    same(lambda x: np.clip(x, 2, 4, out=x, where=x > 5), np.arange(8.0))


def test_clip_out_casting_refused_as_numpy():
    raises_at(lambda x, y: np.clip(x, 2, 4, out=y), (np.arange(8.0), np.zeros(8, np.int64)),
              match="Cannot cast ufunc 'clip' output", line_of="np.clip")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16])
def test_clip_dtype(dtype):
    same(lambda x: np.clip(x, 0, 2, dtype=dtype), np.arange(4))
    same(lambda x: np.clip(x, 1, None, dtype=dtype), np.arange(4, dtype=np.int8))
    same(lambda x: np.clip(x, None, None, dtype=dtype), np.arange(4, dtype=np.int8))
    same(lambda x: np.clip(x, min=1, max=2, dtype=dtype), np.arange(4, dtype=np.int8))


def test_clip_dtype_float_to_int_refused_as_numpy():
    raises_at(lambda x: np.clip(x, 0, 2, dtype=np.int32), (np.arange(4.0),),
              match="Cannot cast ufunc 'clip' input 0", line_of="np.clip")


def test_clip_dtype_of_runtime_slice():
    same(lambda x, a: np.clip(x[a:], 2, 4, dtype=np.float32).sum(), np.arange(8), A)


# --- bug_12: positional ddof of std / var ----------------------------------------------

X = np.arange(12.0).reshape(3, 4) ** 2


def test_std_var_positional_ddof():
    same(lambda x: np.std(x, 0, None, None, 1), X)
    same(lambda x: np.var(x, 0, None, None, 1), X)
    same(lambda x: np.var(x, 1, np.float32, None, 2), X)
    same(lambda x: np.std(x, None, None, None, 1, True), X)
    same(lambda x: x.var(0, None, None, 1), X)
    same(lambda x: x.std(1, np.float32, None, 1, True), X)
    same(lambda x: np.var(x.astype(np.float32), 0, None, None, 1), X)


# --- bug_13: positional arguments bound as NumPy binds them -------------------------------

@pytest.mark.parametrize("fn", [
    lambda x: np.clip(x, 0, 2, None),
    lambda x: np.stack([x, x], 1, None),
    lambda x: np.concatenate([x, x], 1, None),
    lambda x: np.var(x, None, None, None, 0, True),
    lambda x: np.max(x, 1, None, True),
    lambda x: np.min(x, 0, None, False),
    lambda x: np.any(x > 3, 0, None, True),
    lambda x: np.all(x > 3, 1, None, True),
    lambda x: np.sum(x, 1, np.float32, None, True),
    lambda x: np.mean(x, 0, np.float32, None, True),
    lambda x: np.argmax(x, 1, None, keepdims=True),
    lambda x: np.cumsum(x, 1, np.float32, None),
    lambda x: np.round(x, 1, None),
    lambda x: np.take(x, [0, 2], 1, None),
    lambda x: np.nanstd(x, 0, None, None, 1),
    lambda x: x.min(1, None, True),
    lambda x: x.max(0, None, True),
    lambda x: x.sum(1, np.float32, None, True),
    lambda x: x.any(0, None, None, True),
    lambda x: x.std(None, None, None, 1, True),
    lambda x: np.copy(x, "C", False),           # (subok=False: what leaving it out gives)
    lambda x: x.take([0, 1], 1, None, "clip"),
])
def test_positional_arguments_as_numpy_binds_them(fn):
    same(fn, np.arange(12.0).reshape(3, 4))


def test_ufunc_output_by_position_on_runtime_slice():
    def add_tail(x, a):
        np.add(x[a:], 1, x[a:])
        return x
    same(add_tail, np.arange(4.0), np.int64(1))
    same(add_tail, np.arange(6, dtype=np.int32), np.int64(3))


def test_out_by_position_still_refused_where_unsupported():
    raises_at(lambda x, o: np.max(x, 1, o), (X, np.zeros(3)),
              match=r"np.max\(out=...\) is not supported", line_of="np.max")
    raises_at(lambda x, o: np.cumsum(x, 1, None, o), (X, X.copy()),
              match=r"np.cumsum\(out=...\) is not supported", line_of="np.cumsum")


def test_bad_positional_calls_raise_numpys_typeerror_naming_the_function():
    err = raises_at(lambda x: np.clip(x, 0, 1, None, None), (X,), tpucc.UserCodeError,
                    match=r"TypeError: np.clip\(\) takes from 1 to 4 positional arguments "
                          "but 5 were given", line_of="np.clip")
    assert "_reduction" not in str(err)
    raises_at(lambda x: np.var(x, 0, axis=1), (X,), tpucc.UserCodeError,
              match=r"TypeError: var\(\) got multiple values for argument 'axis'",
              line_of="np.var")
    raises_at(lambda x: np.var(x, 0, None, None, 0, True, 1), (X,), tpucc.UserCodeError,
              match=r"np.var\(\) takes from 1 to 6", line_of="np.var")


def test_c_functions_keep_their_positional_arguments():
    # (np.arange's text signature ends at step; it takes dtype by position too)
    same(lambda: np.arange(1, 7, 2, np.int32))
    same(lambda x: np.add.reduce(x, 1, np.float32, None, True), X)


# --- bug_03: np.empty(dtype=object) names np.empty ----------------------------------------

def test_object_array_refusal_names_the_function_called():
    def obj_arr(seqs):
        a = np.empty(len(seqs), dtype=object)
        for i, s in enumerate(seqs):
            a[i] = s
        return a
    err = raises_at(obj_arr, ([np.arange(2.0), np.arange(3.0)],), tpucc.DTypeError,
                    match=r"np.empty: would give an array of dtype object", line_of="np.empty")
    assert "full" not in str(err).splitlines()[0]
    raises_at(lambda n: np.zeros(n, dtype=object), (3,), tpucc.DTypeError,
              match=r"np.zeros: would give an array of dtype object", line_of="np.zeros")
    raises_at(lambda x: np.full_like(x, 1, dtype=object), (X,), tpucc.DTypeError,
              match=r"np.full_like: .*would give an array of dtype object", line_of="np.full_like")


# --- bug_05: a list's item at a runtime position ------------------------------------------

def pick(seqs, i):
    return seqs[i]


@pytest.mark.parametrize("items", [
    [np.arange(2.0), np.arange(2.0) + 1],
    [np.arange(3, dtype=np.int32), np.arange(3, dtype=np.int32) * 2],
    [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)],
    [np.array([2 ** 53 + 1]), np.array([3])],
])
@pytest.mark.parametrize("i", [0, -1])
def test_list_item_at_runtime_position_as_it_is(items, i):
    same(pick, items, np.int64(i))


def test_list_of_numbers_at_runtime_position_keeps_their_type():
    same(lambda x, i: x * [np.float32(0.5), np.float32(3.0)][i], np.ones(2, np.float32),
         np.int64(1))
    same(lambda i: [np.float32(0.5), np.float32(2.0)][i], np.int64(0))
    same(lambda i: [np.int32(3), np.int32(4)][i], np.int64(1))
    same(lambda x, i: [x.sum(), x.max()][i], np.arange(3, dtype=np.float32), np.int64(1))
    same(lambda x, i: x * [0.5, 3.0][i], np.ones(2, np.float32), np.int64(1))
    same(lambda i: [1, 2, 3][i], np.int64(2))


@pytest.mark.parametrize("items, shown", [
    ([np.arange(2.0), np.arange(2, dtype=np.int32)], r"f64\[2\], i32\[2\]"),
    ([np.arange(3, dtype=np.uint8), np.array([-1, 5, 300], np.int16)], r"u8\[3\], i16\[3\]"),
    ([np.array([2 ** 53 + 1]), np.array([0.5])], r"i64\[1\], f64\[1\]"),
])
def test_list_items_of_different_dtypes_refused(items, shown):
    raises_at(pick, (items, np.int64(0)), tpucc.MergeError,
              match="indexing a list with a runtime value .* different dtypes \\(" + shown,
              line_of="return seqs[i]")


def test_list_of_numpy_scalars_of_different_dtypes_refused():
    raises_at(lambda x, i: x * [np.float32(0.5), np.float64(3.0)][i],
              (np.ones(2, np.float32), np.int64(1)), tpucc.MergeError,
              match="different dtypes", line_of="x * [")


def test_ragged_list_at_runtime_position_refused_with_its_hint():
    def ragged(seqs, i):
        return seqs[i].sum()
    err = raises_at(ragged, ([np.arange(2.0), np.arange(3.0)], np.int64(1)), tpucc.MergeError,
                    match=r"different shapes \(f64\[2\], f64\[3\]\)", line_of="seqs[i]")
    assert "all input arrays must have the same shape" not in str(err)
    assert "ragged list" in err.hint


# --- bug_09: a user __iter__ generator over a runtime range -------------------------------

class PaddedSeq:
    def __init__(self, data, n):
        self.data, self.n = data, n

    def __len__(self):
        return int(self.n)

    def __iter__(self):
        for i in range(len(self)):
            yield self.data[i]


def test_runtime_length_generator_iter_refused_at_its_yield():
    def total(data, n):
        t = 0.0
        for v in PaddedSeq(data, n):
            t += v
        return t
    err = raises_at(total, (np.arange(6.0), np.int64(4)), tpucc.UnsupportedError,
                    match="`yield` under a runtime condition or loop")
    assert "yield self.data[i]" in str(err)
    assert "int() of an array" not in str(err)


def test_static_length_generator_iter_still_compiles():
    def total(data):
        t = 0.0
        for v in PaddedSeq(data, 4):
            t += v
        return t
    same(total, np.arange(6.0))
