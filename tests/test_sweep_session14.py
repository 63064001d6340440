"""Realistic NumPy programs that compiled wrongly, crashed or were refused
without reason (a sweep of numerical methods, data processing, ML pieces and
Python structure; session 14), each pinned by a test against eager NumPy."""
import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


# --- Python's min/max of runtime values -------------------------------------------------

def larger_total(x, y):
    return max(x.sum(), y.sum())


def builtin_max_of_arrays(x, y):
    return max(x, y)


def clamp_below(x):
    return max(x.max(), 0.5), min(x.min(), 3)


def test_builtin_max_of_two_dtypes_is_refused():
    # max(int64, float64) returned float64 6.0 where Python returns the
    # int64 item 6: a select promoted the items.  The dtype of the result
    # depends on which item wins, so it is refused as an `if` giving a
    # variable two dtypes is.
    raises_at(larger_total, (np.arange(4), np.arange(3.0)), tpucc.errors.MergeError,
              match=r"items of max\(\) have different types", line_of="return max")


def test_builtin_max_of_arrays_is_ambiguous_as_in_python():
    # max(x, y) of two (3,) arrays gave their elementwise maximum; Python
    # raises NumPy's "truth value ... is ambiguous".
    with pytest.raises(ValueError, match="ambiguous"):
        builtin_max_of_arrays(np.arange(3.0), np.ones(3))
    raises_at(builtin_max_of_arrays, (np.arange(3.0), np.ones(3)), tpucc.errors.UserCodeError,
              match="ambiguous.*np.maximum", line_of="return max")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_builtin_max_with_python_numbers_still_compiles(dtype):
    check(clamp_below, np.arange(1, 5).astype(dtype))


# --- shape and dtype facts of runtime arrays ----------------------------------------------

def box_filter(img, k):
    # out's dtype from the operands', as a user writes a generic kernel
    H, W = np.shape(img)
    kh, kw = k.shape
    out = np.zeros((H - kh + 1, W - kw + 1), dtype=np.result_type(img, k))
    for i in range(kh):
        for j in range(kw):
            out += k[i, j] * img[i:i + H - kh + 1, j:j + W - kw + 1]
    return out, np.ndim(img), np.size(img), np.size(img, 1), img.itemsize, out.nbytes


def scaled(x, lr):
    return (x * lr).astype(np.result_type(x, lr)), np.iscomplexobj(x), np.isrealobj(x)


def test_shape_and_dtype_functions_of_runtime_arrays():
    # np.shape, np.ndim, np.size, np.result_type, np.iscomplexobj/isrealobj
    # and .itemsize/.nbytes were refused (E100) on runtime arrays, whose
    # shapes and dtypes are known at compile time.
    img = np.arange(42, dtype=np.uint8).reshape(6, 7)
    check(box_filter, img, np.array([[1, 0, -1]] * 3, np.int16))
    check(box_filter, img.astype(np.float32), np.ones((3, 3)) / 9)


def test_result_type_of_a_runtime_python_scalar_is_weak():
    x = np.arange(3, dtype=np.float32)
    check(scaled, x, 0.5, compile_kwargs={"runtime_args": ("lr",)})
    check(scaled, x.astype(np.int8), 2, compile_kwargs={"runtime_args": ("lr",)})


# --- divmod and .conj() -------------------------------------------------------------------

def division_parts(a, b):
    return np.divmod(a, b), divmod(a, b), divmod(a.sum(), 3), np.fmod(a, b)


def power_spectrum(z):
    return (z.conj() * z).real, z.conjugate(), np.abs(z)


@pytest.mark.parametrize("dtype", [np.int32, np.float64])
def test_divmod(dtype):
    # np.divmod (a ufunc with two outputs) and the builtin divmod of arrays were E100.
    check(division_parts, np.array([7, -7, 7, -7], dtype), np.array([2, 2, -2, -3], dtype))


def test_conj_method():
    # z.conj() / z.conjugate() were E100 though np.conj(z) compiled.
    check(power_spectrum, np.array([1 + 2j, -3j, 2.0]))
    check(power_spectrum, np.array([1.5, -2.0], np.float32))


# --- ufunc methods: np.add.at, reduce, accumulate, outer ----------------------------------

def histogram(vals, nbins):
    idx = np.clip((vals * nbins).astype(np.int64), 0, nbins - 1)
    h = np.zeros(nbins, dtype=np.int64)
    np.add.at(h, idx, 1)
    return h


def group_stats(vals, groups, n):
    sums, counts = np.zeros(n), np.zeros(n, np.int32)
    top, low = np.full(n, -np.inf), np.full(n, np.inf)
    np.add.at(sums, groups, vals)
    np.add.at(counts, groups, 1)
    np.maximum.at(top, groups, vals)
    np.minimum.at(low, groups, vals)
    return sums / np.maximum(counts, 1), counts, top, low


def scatter_rows(a, rows, v):
    np.add.at(a, rows, v)               # rows of a: v broadcast to each
    np.subtract.at(a, (rows, 0), 1)
    return a


def max_drawdown(prices):
    growth = np.cumprod(prices[1:] / prices[:-1])
    return (growth / np.maximum.accumulate(growth) - 1).min()


def ufunc_methods(x):
    return (np.add.reduce(x), np.multiply.reduce(x, axis=None), np.logical_or.reduce(x > 3, axis=1),
            np.add.accumulate(x, axis=1), np.minimum.accumulate(x), np.subtract.outer(x[0], x[1]),
            np.equal.outer(x[:, 0], x[0]))


def test_histogram_with_add_at():
    # ufunc.at, .reduce, .accumulate and .outer were all E100 on runtime arrays.
    check(histogram, np.random.default_rng(0).random(50), 8)


def test_group_statistics_with_ufunc_at():
    rng = np.random.default_rng(1)
    check(group_stats, rng.random(20), rng.integers(0, 4, 20), 4)


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8])
def test_ufunc_at_repeated_rows_accumulate(dtype):
    check(scatter_rows, np.zeros((3, 2), dtype), np.array([2, 2, 0, -1]), np.ones(2, dtype))


def test_ufunc_at_index_out_of_bounds_raises():
    with pytest.raises(tpucc.errors.RuntimeIndexError):
        tpucc.compile(scatter_rows)(np.zeros((3, 2)), np.array([3]), np.ones(2))


def test_ufunc_at_float_values_into_int_array_is_refused():
    raises_at(scatter_rows, (np.zeros((3, 2), np.int32), np.array([0]), np.ones(2)),
              tpucc.errors.DTypeError, match="cast the values", line_of="np.add.at")


def test_running_maximum():
    check(max_drawdown, np.array([100., 101, 99, 105, 103, 110]))


@pytest.mark.parametrize("x", [np.arange(6, dtype=np.int16).reshape(2, 3),
                               np.array([[1., np.nan, 0.], [3., 2., 5.]], np.float32)])
def test_ufunc_reduce_accumulate_outer(x):
    check(ufunc_methods, x)


# --- a runtime raise whose message is an f-string of static values -------------------------

from runtime_raise_programs import bounded  # noqa: E402


def test_runtime_raise_with_an_f_string_of_static_values():
    # f"value too large (limit {lim})" with a Python `lim` was refused (E100):
    # only a single constant message was recognised.
    x = np.arange(3.0)
    check(bounded, x, 5.0)
    f = tpucc.compile(bounded)
    with pytest.raises(ValueError, match=r"value too large \(limit 1.5\)") as info:
        f(x, 1.5)
    assert isinstance(info.value, tpucc.errors.RuntimeRaiseError)
    with pytest.raises(AssertionError, match=r"negative entries in an array of shape \(3,\)"):
        f(-x, 5.0)


def message_of_a_runtime_value(x):
    if x.max() > 1:
        raise ValueError(f"value too large: {x.max()}")
    return x


def test_runtime_raise_formatting_a_runtime_value_shows_it():
    # Refused (E400) until session 45, which let a message call a reduction.
    raises_at(message_of_a_runtime_value, (np.arange(3.0),), tpucc.errors.RuntimeRaiseError,
              match="value too large: 2.0", line_of="raise ValueError")
    check(message_of_a_runtime_value, np.arange(3.0) / 2)


# --- a loop whose types do not settle says why, at the loop's line -------------------------

def carried_type_changes(x, n):
    acc = 0
    y = x
    for _ in range(n):
        y = np.where(y > 0, y, acc)     # float32 beside the Python int 0, float64 beside int64
        acc = np.sum(y > 1).astype(np.int64)
    return acc


def test_a_loop_whose_types_do_not_settle_names_the_slot_that_changed_them():
    # Found by the fuzzer (seed 185546): the error had no location, and its
    # hint (cast with .astype) pointed at `y`, which the user never changed.
    err = raises_at(carried_type_changes, (np.arange(3.0, dtype=np.float32), np.array(2)),
                    tpucc.errors.MergeError, match="give `y` different dtypes",
                    line_of="for _ in range(n)")
    assert "`acc` (int 0 before the loop, i64[] after an iteration)" in err.hint
    assert "np.int64(0) rather than 0" in err.hint


def test_a_temporary_bound_before_it_is_read_need_not_settle():
    # (`y` is bound afresh by every iteration: the loop does not carry it)
    def f(x, n):
        acc = 0
        for _ in range(n):
            y = np.where(x > 0, x, acc)
            acc = np.sum(y > 1).astype(np.int64)
        return acc
    check(f, np.arange(3.0, dtype=np.float32), 2, compile_kwargs={"runtime_args": ("n",)})


def carried_type_fixed(x, n):
    acc = np.int64(0)                   # what the hint says: its later type from the start
    for _ in range(n):
        y = np.where(x > 0, x, acc)
        acc = np.sum(y > 1).astype(np.int64)
    return acc, y


def test_the_hint_of_a_loop_whose_types_do_not_settle_works():
    check(carried_type_fixed, np.arange(3.0, dtype=np.float32), np.array(2))
