"""Fixes from sweep 45A: concatenating / stacking many pieces compiles fast
(bug_06), np.stack of an ndarray (bug_03), np.pad with a dict pad_width
(bug_01), np.rollaxis (bug_07), NumPy's errors for repeated axes and
broadcast_to (bug_09), np.pad(mode='linear_ramp') with runtime end_values
(bug_12)."""
import re

import numpy as np
import pytest

import tpucc
from conftest import raises_at

RNG = np.random.default_rng(45)


def check(f, *args):
    """Compiled equals eager: values, dtype, shape; returns the result."""
    want = f(*args)
    got = tpucc.compile(f, cache=False)(*args)
    assert type(got) is type(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    return got


def concatenates(f, *args) -> list:
    """The operand counts of the concatenates in f's HLO."""
    text = tpucc.compile(f, cache=False).lower(*args).as_text()
    return [line.split(" concatenate(", 1)[1].split(")", 1)[0].count(",") + 1
            for line in text.splitlines() if " concatenate(" in line]


# --- bug_06: many pieces joined ---------------------------------------------

def cat_rows(x):
    return np.concatenate([x[i] for i in range(x.shape[0])])


def hstack_scaled_columns(x):
    return np.hstack([x[:, j:j + 1] * 2 for j in range(x.shape[1])])


def split_reversed(x):
    return np.concatenate(np.split(x, x.shape[0] // 2)[::-1])


def loop_appended(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * i)
    return np.concatenate(out)


def patchify(img):
    return np.stack([img[i:i + 2, j:j + 2] for i in range(0, img.shape[0], 2)
                     for j in range(0, img.shape[1], 2)])


def stack_pairs_of_rows(x):
    return np.stack([x[i:i + 2] for i in range(0, x.shape[0], 2)])


def cat_columns_of_transpose(x):
    return np.concatenate([x.T[j] for j in range(x.shape[1])])


def stack_rows_on_axis_1(x):
    return np.stack([x[i] for i in range(0, x.shape[0], 3)], axis=1)


def cat_rows_as_float32(x):
    return np.concatenate([x[i] for i in range(x.shape[0])], dtype=np.float32)


def cat_flattened_blocks(x):
    return np.concatenate([x[i:i + 2, :2] for i in range(x.shape[0] - 1)], axis=None)


def cat_rows_on_axis_1(x):
    return np.concatenate([x[i][:, None] for i in range(x.shape[0])], axis=1)


@pytest.mark.parametrize("f, shape", [
    (cat_rows, (300, 3)), (hstack_scaled_columns, (40, 120)), (split_reversed, (200, 3)),
    (loop_appended, (300, 3)), (patchify, (32, 32)), (stack_pairs_of_rows, (200, 3)),
    (cat_columns_of_transpose, (5, 60)), (stack_rows_on_axis_1, (100, 4)),
    (cat_rows_as_float32, (50, 3)), (cat_flattened_blocks, (40, 3)),
    (cat_rows_on_axis_1, (60, 3))])
def test_many_pieces_join_without_a_concatenate_per_piece(f, shape):
    x = RNG.random(shape)
    check(f, x)
    assert all(n <= 4 for n in concatenates(f, x)), concatenates(f, x)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.complex64, np.bool_])
def test_many_pieces_keep_the_dtype(dtype):
    x = (RNG.random((40, 6)) * 10).astype(dtype)
    check(cat_rows, x)
    check(patchify, x[:8])
    check(hstack_scaled_columns, x)


def test_joined_pieces_are_a_new_array():
    def f(x):
        y = np.concatenate([x[i] for i in range(x.shape[0])])
        y[0] = -1.0
        z = np.stack([x[i:i + 1] for i in range(x.shape[0])], axis=1)
        z[0, 0, 1] = -2.0
        return y, z, x
    x = RNG.random((20, 3))
    want = f(x.copy())
    arg = x.copy()
    got = tpucc.compile(f, cache=False)(arg)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(arg, x)


def test_pieces_read_after_a_write_into_their_source():
    def f(x):
        rows = [x[i] for i in range(x.shape[0])]
        x[3] = 7.0          # the views see it, as NumPy's do
        return np.concatenate(rows), np.stack(rows[::-1])
    x = RNG.random((20, 2))
    want = f(x.copy())
    got = tpucc.compile(f, cache=False)(x.copy())
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_a_few_pieces_stay_a_concatenate():
    def f(x):
        return np.concatenate([x[2:], x[:2]])
    check(f, np.arange(6.0))


def test_mixed_pieces_of_two_arrays():
    def f(x, y):
        return np.concatenate([x[i] if i % 2 else y[i] for i in range(x.shape[0])])
    check(f, RNG.random((20, 3)), RNG.random((20, 3)))


# --- bug_03: np.stack of an ndarray ------------------------------------------

@pytest.mark.parametrize("f", [
    lambda x: np.stack(x), lambda x: np.stack(x.T), lambda x: np.stack(x[::-1]),
    lambda x: np.stack(x, dtype=np.float32), lambda x: np.stack(x, axis=1),
    lambda x: np.stack(x, axis=-1), lambda x: np.stack(x[0]), lambda x: np.stack(x, 0)[1]])
def test_stack_of_an_ndarray(f):
    check(f, np.arange(6.0).reshape(2, 3))
    check(f, np.arange(24, dtype=np.int16).reshape(4, 6))


def test_stack_of_an_ndarray_is_a_copy():
    def f(x):
        y = np.stack(x)
        y[0, 0] = 9
        return y, x
    x = np.arange(6).reshape(2, 3)
    y, after = tpucc.compile(f, cache=False)(x.copy())
    assert y[0, 0] == 9 and after[0, 0] == 0


# --- bug_01: np.pad with a dict pad_width ------------------------------------

@pytest.mark.parametrize("f", [
    lambda x: np.pad(x, {1: (1, 2)}), lambda x: np.pad(x, {-1: 3}, mode="edge"),
    lambda x: np.pad(x, {0: 1, 1: (0, 2)}, mode="reflect"), lambda x: np.pad(x, {}),
    lambda x: np.pad(x, {0: (2, 0)}, constant_values=7),
    lambda x: np.pad(x, {1: 2}, mode="linear_ramp", end_values=5),
    lambda x: np.pad(x, {0: 1}, mode="maximum")])
def test_pad_with_a_dict(f):
    check(f, np.arange(6).reshape(2, 3))
    check(f, np.arange(12.0, dtype=np.float32).reshape(3, 4))


def test_pad_with_a_bad_dict():
    def f(x):
        return np.pad(x, {1: np.int64(2)})
    with pytest.raises(AssertionError):
        f(np.zeros((2, 3)))
    raises_at(f, (np.zeros((2, 3)),), match="AssertionError", line_of="np.pad", cache=False)

    def g(x):
        return np.pad(x, {2: 1})
    with pytest.raises(IndexError):
        g(np.zeros((2, 3)))
    raises_at(g, (np.zeros((2, 3)),), match="IndexError", line_of="np.pad", cache=False)


# --- bug_07: np.rollaxis -----------------------------------------------------

@pytest.mark.parametrize("args", [(2,), (2, 0), (0, 3), (1, 1), (-1, 1), (0, -1), (1, 3)])
def test_rollaxis(args):
    check(lambda x: np.rollaxis(x, *args), np.arange(24.0).reshape(2, 3, 4))
    check(lambda x: np.rollaxis(x, *args) * 2, np.arange(24, dtype=np.int8).reshape(2, 3, 4))


def test_rollaxis_is_a_view():
    def f(img):
        chw = np.rollaxis(img, 2)
        chw[0] = -1
        same = np.rollaxis(img, 1, 2)   # (axis stays: a[...], still a view)
        same[0, 0, 0] = 5
        return img
    img = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(tpucc.compile(f, cache=False)(img.copy()), f(img.copy()))


def test_rollaxis_start_out_of_range():
    def f(x):
        return np.rollaxis(x, 0, 4)
    raises_at(f, (np.zeros((2, 3)),), match=re.escape("'start' arg requires -2 <= start < 3"),
              line_of="np.rollaxis", cache=False)


# --- bug_09: NumPy's words for repeated axes and broadcast_to ----------------

@pytest.mark.parametrize("f, words", [
    (lambda x: np.moveaxis(x, [0, 0], [1, 2]), "repeated axis in `source` argument"),
    (lambda x: np.moveaxis(x, [0, 1], [2, 2]), "repeated axis in `destination` argument"),
    (lambda x: np.moveaxis(x, [0, 1], [2]), "must have the same number of elements"),
    (lambda x: np.transpose(x, (0, 0, 1)), "repeated axis in transpose"),
    (lambda x: x.transpose(1, 0), "axes don't match array"),
    (lambda x: np.broadcast_to(x, (3,)), "more dimensions than allowed"),
    (lambda x: np.broadcast_to(x, (5, 3, 4)), re.escape("(2,3,4)  and requested shape (5,3,4)"))])
def test_axis_errors_in_numpy_words(f, words):
    x = np.zeros((2, 3, 4))
    with pytest.raises(ValueError, match=words):
        f(x)
    with pytest.raises(tpucc.TpuccError, match=words) as info:
        tpucc.compile(f, cache=False)(x)
    assert "f64[" not in str(info.value)


# --- bug_12: linear_ramp with runtime end_values -----------------------------

@pytest.mark.parametrize("f, x, v", [
    (lambda x, v: np.pad(x, 2, mode="linear_ramp", end_values=v), np.arange(3.0), 10.0),
    (lambda x, v: np.pad(x, 2, mode="linear_ramp", end_values=v), np.arange(3), 10.5),
    (lambda x, v: np.pad(x, 2, mode="linear_ramp", end_values=v),
     np.arange(3, dtype=np.uint8), np.int64(200)),
    (lambda x, v: np.pad(x, 3, mode="linear_ramp", end_values=v),
     np.arange(3, dtype=np.float32), np.float32(2.5)),
    (lambda x, v: np.pad(x, ((1, 2), (3, 0)), mode="linear_ramp",
                         end_values=((v, 1), (2, -v))), np.arange(6.0).reshape(2, 3), 7.5),
    (lambda x, v: np.pad(x, (2, 1), mode="linear_ramp", end_values=(0, v)),
     np.arange(4, dtype=np.int32), np.int32(9)),
    (lambda x, v: np.pad(x, 3, mode="linear_ramp", end_values=v),
     np.arange(4.0).reshape(2, 2), np.array([1.0, 5.0]))])
def test_linear_ramp_with_runtime_end_values(f, x, v):
    if isinstance(v, float):
        v = np.float64(v)       # (a runtime argument)
    check(f, x, v)


# --- bug_08: a write through the loop item before a runtime `break` ----------

def test_write_through_loop_item_before_break_says_why():
    def f(x, thr):
        for row in x:
            if row.sum() > thr:
                row[:] = -1
                break
        return x
    raises_at(f, (np.arange(12.0).reshape(3, 4), 15.0), tpucc.SideEffectError,
              match="`row` is bound inside this loop, which a runtime `break` or `return` "
                    "leaves", line_of="row[:] = -1", cache=False)

    def g(x, thr):
        for row in x:
            if row.sum() > thr:
                row[:] = -1
                return x, True
        return x, False
    raises_at(g, (np.arange(12.0).reshape(3, 4), 15.0), tpucc.SideEffectError,
              match="x\\[i\\] = ...", line_of="row[:] = -1", cache=False)


def test_write_by_index_before_break_compiles():
    def f(x, thr):
        for i in range(x.shape[0]):
            if x[i].sum() > thr:
                x[i] = -1
                break
        return x
    x = np.arange(12.0).reshape(3, 4)
    want = f(x.copy(), 15.0)
    arg = x.copy()
    np.testing.assert_array_equal(tpucc.compile(f, cache=False)(arg, 15.0), want)
    np.testing.assert_array_equal(arg, want)


def test_many_views_stacked_with_a_dtype():
    def f(x):
        return np.stack([x[i] for i in range(0, 40, 2)], dtype=np.float32, axis=1)
    check(f, RNG.random((40, 3)))

    def g(x):
        return np.stack([x[i] for i in range(0, 40, 2)], dtype=np.int32)
    with pytest.raises(TypeError):
        g(RNG.random((40, 3)))
    raises_at(g, (RNG.random((40, 3)),), match="cannot cast", line_of="np.stack", cache=False)


def test_gradient_through_patches():
    def loss(x):
        p = np.stack([x[i:i + 2, j:j + 2] for i in range(0, 8, 2) for j in range(0, 8, 2)])
        return (p * np.arange(p.size).reshape(p.shape)).sum()
    weights = np.arange(64.0).reshape(16, 2, 2)
    want = np.zeros((8, 8))
    for k, (i, j) in enumerate((i, j) for i in range(0, 8, 2) for j in range(0, 8, 2)):
        want[i:i + 2, j:j + 2] = weights[k]
    np.testing.assert_allclose(tpucc.grad(loss)(RNG.random((8, 8))), want)
