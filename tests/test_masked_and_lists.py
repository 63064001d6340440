"""Boolean-mask updates and selections (`x[mask] += v`, `x[m] = y[m]`,
`y[m].sum()`), and NumPy functions given Python lists of runtime values
(`np.mean([a.sum(), b.sum()])`).

Programs that compile are differential (`check`: eager NumPy vs compiled,
values, dtypes, result kinds and the arguments' final contents); programs
that stay refused name their error class, a piece of the message and the
line.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at


def _f(n=6, dtype=np.float64):
    return (np.arange(n) - 2.5).astype(dtype) * 1.5


def _i(dtype=np.int64):
    return np.array([3, -1, 4, 1, -5, 9, 2, 6]).astype(dtype)


def _grid(dtype=np.float64):
    return (np.arange(12).reshape(3, 4) - 5).astype(dtype)


ROWS = np.array([True, False, True])


# --------------------------------------------------------------------------
# x[mask] OP= v
# --------------------------------------------------------------------------

def adds_to_positives(x):
    x[x > 0] += 1.0
    return x


def subtracts(x):
    x[x > 0] -= 2
    return x


def multiplies(x):
    x[x < 0] *= 2
    return x


def divides(x):
    x[x != 0] /= 4.0
    return x


def floor_divides(x):
    x[x > 1] //= 2
    return x


def takes_remainder(x):
    x[x > 1] %= 3
    return x


def powers(x):
    x[x > 0] **= 2
    return x


def ands(x):
    x[x > 0] &= 6
    return x


def ors(x):
    x[x < 0] |= 1
    return x


def xors(x):
    x[x > 2] ^= 5
    return x


def shifts(x):
    x[x > 0] <<= 1
    x[x > 4] >>= 2
    return x


def flips_bools(b):
    b[b] ^= True
    return b


def ors_bools(b, c):
    b[c] |= True
    return b


@pytest.mark.parametrize("fn,args", [
    (adds_to_positives, lambda: (_f(),)),
    (adds_to_positives, lambda: (_f(dtype=np.float32),)),       # stays float32
    (adds_to_positives, lambda: (_f(dtype=np.float16),)),
    (subtracts, lambda: (_f(),)),
    (subtracts, lambda: (_i(np.int8),)),                         # stays int8
    (subtracts, lambda: (_i(np.uint32) % 7,)),
    (multiplies, lambda: (_f(),)),
    (multiplies, lambda: (_i(),)),
    (divides, lambda: (_f(dtype=np.float32),)),
    (floor_divides, lambda: (_i(),)),
    (floor_divides, lambda: (_f(),)),
    (takes_remainder, lambda: (_i(np.int16),)),
    (powers, lambda: (_f(),)),
    (powers, lambda: (_i(),)),
    (ands, lambda: (_i(),)),
    (ors, lambda: (_i(np.int32),)),
    (xors, lambda: (_i(np.uint8) % 8,)),
    (shifts, lambda: (_i(),)),
    (flips_bools, lambda: (np.array([True, False, True, True]),)),
    (ors_bools, lambda: (np.array([True, False, False]), np.array([False, True, False]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_inplace_operators_on_a_mask(fn, args):
    check(fn, *args())


def complex_scaled(z):
    z[z.real > 0] *= 1j
    return z


def test_complex_values():
    check(complex_scaled, np.array([1 + 2j, -1 - 1j, 3 + 0j]))


# --------------------------------------------------------------------------
# x[mask] = v with scalars, arrays of the trailing shape, and y[mask]
# --------------------------------------------------------------------------

def copies_where(x, y):
    x[x > 0] = y[x > 0]             # two equal expressions: the same mask
    return x


def copies_by_name(x, y):
    m = x > 0
    x[m] = y[m]
    return x


def adds_selection(x, y):
    m = (x > 0) & (y < 3)
    x[m] += y[m]
    return x


def combines_selections(x, y):
    m = x < y
    x[m] = y[m] * 2 + x[m] - np.sqrt(np.abs(y[m]))
    return x


def float_into_int(xi, y):
    m = xi > 0
    xi[m] = y[m]                    # assignment casts (truncates), as NumPy's
    return xi


def scalar_of_other_dtype(x):
    x[x > 1] = np.float32(0.25)
    x[x < -1] = True
    return x


def runtime_scalar_value(x, y):
    x[x > 0] = y.max()
    x[x < 0] = y[0]
    return x


def size_one_value(x, y):
    x[x > 0] = y[:1]
    x[x < 0] += y[1:2]
    return x


def leading_ones(grid, rows, v):
    grid[rows] = v.reshape(1, 1, 4)     # leading length-1 axes broadcast away
    grid[~rows] += v.reshape(1, 4)
    return grid


def assigns_static_list(grid):
    grid[grid[:, 0] > 0] = [1, 2, 3, 4]
    return grid


def rows_by_mask(grid, rows):
    grid[rows] += 1
    grid[rows] = grid[rows] * 0.5
    return grid


def row_vector_into_rows(grid, rows, v):
    grid[rows] = v
    grid[~rows] -= v
    return grid


def rows_from_other(grid, rows):
    other = grid * 10
    grid[rows] = other[rows]
    return grid


def column_into_rows(grid, rows):
    col = grid[:, :1] * 3           # (3, 1): broadcasts along the rows' trailing axis
    grid[rows] = col[rows]
    return grid


def full_mask_2d(grid):
    grid[grid % 3 == 0] = -1
    grid[grid > 2] += grid[grid > 2] * 2
    return grid


def zero_d_mask(x):
    x[x.sum() > 0] = 7
    return x


@pytest.mark.parametrize("fn,args", [
    (copies_where, lambda: (_f(), _f()[::-1].copy())),
    (copies_where, lambda: (_i(), _i()[::-1] * 10)),
    (copies_by_name, lambda: (_f(dtype=np.float32), _f()[::-1].copy())),   # f64 into f32
    (adds_selection, lambda: (_f(), _f()[::-1].copy())),
    (combines_selections, lambda: (_f(), _f()[::-1].copy())),
    (float_into_int, lambda: (_i()[:6].copy(), _f())),
    (scalar_of_other_dtype, lambda: (_f(),)),
    (runtime_scalar_value, lambda: (_f(), _f()[::-1].copy())),
    (size_one_value, lambda: (_f(), _f()[::-1].copy())),
    (assigns_static_list, lambda: (_grid(),)),
    (rows_by_mask, lambda: (_grid(), ROWS.copy())),
    (row_vector_into_rows, lambda: (_grid(), ROWS.copy(), np.arange(4.0))),
    (row_vector_into_rows, lambda: (_grid(np.int32), ROWS.copy(), np.int64(2))),
    (leading_ones, lambda: (_grid(), ROWS.copy(), np.arange(4.0))),
    (rows_from_other, lambda: (_grid(), ROWS.copy())),
    (column_into_rows, lambda: (_grid(), ROWS.copy())),
    (full_mask_2d, lambda: (_grid(np.int64),)),
    (zero_d_mask, lambda: (_f(),)),
    (zero_d_mask, lambda: (_f() - 10,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_assignments(fn, args):
    check(fn, *args())


def constant_mask(x):
    m = np.array([True, False] * 3)     # a NumPy array made while compiling
    x[m] += 1
    return x[m].sum(), x


def row_of_view(grid):
    row = grid[1]                   # a view: the masked write goes into grid
    row[row > -2] = 0
    row[row < 0] -= 10
    return row.sum()


def test_through_a_view():
    check(row_of_view, _grid())


def test_constant_mask():
    check(constant_mask, _f())


def argument_never_returned(x, y):
    x[x > 0] += y[x > 0]
    return None


def test_argument_written_back():
    check(argument_never_returned, _f(), np.ones(6))


# --------------------------------------------------------------------------
# Reductions, counts and elementwise math on y[mask]
# --------------------------------------------------------------------------

def reductions(x, y):
    m = x > 0
    return (y[m].sum(), y[m].prod(), y[m].mean(), y[m].max(), y[m].min(),
            y[m].any(), (y[m] > 0).all())


def numpy_reductions(x, y):
    m = x > -2
    return (np.sum(y[m]), np.prod(y[m]), np.mean(y[m]), np.max(y[m]), np.amin(y[m]),
            np.any(y[m]), np.all(y[m]), np.count_nonzero(y[m] > 1))


def reduction_options(x, y):
    m = x > 0
    return (y[m].sum(dtype=np.float32), np.mean(y[m], dtype=np.float64),
            y[m].sum(keepdims=True), y[m].max(axis=0), y[m].astype(np.int32).sum())


def counts(x):
    s = x[x > 0]
    return len(s), s.size, s.shape, s.ndim, s.dtype


def row_reductions(grid, rows):
    s = grid[rows]
    return (s.sum(axis=0), s.mean(0), s.max(axis=-2), s.min(), s.mean(), len(s), s.size,
            s.shape, np.sum(s, axis=0, keepdims=True))


def ufuncs(x, y):
    m = x != 0
    return (np.maximum(y[m], 0).sum(), np.sqrt(np.abs(x[m])).mean(), (-x[m]).max(),
            abs(x[m] - y[m]).min(), np.add(x[m], 1, dtype=np.float32).sum(),
            (1 / x[m]).sum(), (x[m] > y[m]).sum())


def empty_mean(x):
    return x[x > 100].mean(), x[x > 100].sum(), len(x[x > 100])


@pytest.mark.parametrize("fn,args", [
    (reductions, lambda: (_f(), _f()[::-1].copy())),
    (reductions, lambda: (_f(), _i()[:6].copy())),
    (reductions, lambda: (_f(), _f(dtype=np.float32))),
    (reductions, lambda: (_f(), _i(np.uint8)[:6].copy())),
    (reductions, lambda: (_f(), _f() > 0)),
    (numpy_reductions, lambda: (_f(), _f()[::-1].copy())),
    (numpy_reductions, lambda: (_f(), _i(np.int16)[:6].copy())),
    (numpy_reductions, lambda: (_f(), _f(dtype=np.float16))),
    (reduction_options, lambda: (_f(), _f()[::-1].copy())),
    (counts, lambda: (_f(),)),
    (row_reductions, lambda: (_grid(), ROWS.copy())),
    (row_reductions, lambda: (_grid(np.int32), np.array([False, True, True]))),
    (ufuncs, lambda: (_f(), _f()[::-1].copy())),
], ids=lambda v: getattr(v, "__name__", ""))
def test_selections(fn, args):
    check(fn, *args())


def test_empty_selection():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # NumPy warns on the mean of nothing
        check(empty_mean, _f())


# --------------------------------------------------------------------------
# Inside runtime loops and branches
# --------------------------------------------------------------------------

def clamps_in_while(x):
    while x.max() > 1:
        x[x > 1] -= 1.5
    return x


def in_runtime_for(x, n):
    for i in range(n):
        x[x > i] *= 0.5
        x[x < -i] = i           # a runtime loop counter as the value
    return x


def in_runtime_if(x, y):
    if x.sum() > 0:
        x[x > 0] = y[x > 0]
    else:
        x[x < 0] += 1
    return x


def selection_updated_in_branch(x, y):
    m = x > 0
    s = y[m]
    if y.sum() > 0:
        s += 1                  # updates the selection's own values
    x[m] = s
    return x, s.sum()


def selection_updated_in_loop(x, y, n):
    m = x > 0
    s = y[m]
    for _ in range(n):
        s *= 2
    x[m] = s
    return x


def counts_in_loop(x, n):
    total = 0
    for i in range(n):
        total += len(x[x > i])
    return total


def in_unrolled_for(x):
    for i in range(3):
        x[x > i] -= 0.25 * i
    return x


@pytest.mark.parametrize("fn,args,kw", [
    (in_unrolled_for, lambda: (_f(),), {}),
    (clamps_in_while, lambda: (_f(),), {}),
    (in_runtime_for, lambda: (_f(), 3), {"runtime_args": ("n",)}),
    (in_runtime_if, lambda: (_f(), _f()[::-1].copy()), {}),
    (in_runtime_if, lambda: (_f() - 5, _f()), {}),
    (selection_updated_in_branch, lambda: (_f(), _f()[::-1].copy()), {}),
    (selection_updated_in_branch, lambda: (_f(), _f() - 9), {}),
    (selection_updated_in_loop, lambda: (_f(), _f()[::-1].copy(), 3), {"runtime_args": ("n",)}),
    (counts_in_loop, lambda: (_f(), 4), {"runtime_args": ("n",)}),
], ids=lambda v: getattr(v, "__name__", "") if callable(v) and hasattr(v, "__code__") else "")
def test_in_runtime_regions(fn, args, kw):
    check(fn, *args(), compile_kwargs=kw)


def masked_loss(w, x):
    m = x > 0
    return (w[m] ** 2).sum() + w[m].mean()


def eager_masked_loss_grad(w, x):
    m = x > 0
    return np.where(m, 2 * w + 1 / m.sum(), 0.0)


def test_gradient_through_a_selection():
    w, x = _f(), _f()[::-1].copy()
    g = tpucc.grad(masked_loss)(w, x)
    np.testing.assert_allclose(g, eager_masked_loss_grad(w, x), rtol=1e-12)


# --------------------------------------------------------------------------
# What stays refused
# --------------------------------------------------------------------------

def returns_selection(x):
    return x[x > 0]


def returns_selection_in_tuple(x):
    return x.sum(), [x[x > 0]]


def array_of_values(x, y):
    x[x > 0] = y[:2]
    return x


def full_shape_operand(x, y):
    return (x[x > 0] + y).sum()


def concatenates(x, y):
    return np.concatenate([x[x > 0], y])


def indexes_again(x):
    # (by an index array it compiles: session 43h; by a mask of the same
    # rows, x[x > 0][x[x > 0] > 1], too: session 45G)
    return x[x > 0][x[x < 0] > 1]


def argsorted(x):
    return x[x > 0].argsort()


def into_whole_array(x, y):
    x += y[y > 0]
    return x


def mask_among_indices(grid):
    grid[grid[:, 0] > 0, [0]] = 1     # (among static ints and slices it compiles)
    return grid


def reduces_inner_axis(grid, rows):
    return grid[rows].sum(axis=1)


def wrong_mask_shape(x):
    m = np.ones(4, bool) & (x[:4] > 0)
    x[m] = 0
    return x


def two_d_value_into_flat_selection(x, y):
    x[x > 0] = y.reshape(1, 6)[:, :1]
    return x


def extra_axis_operand(grid, rows, v):
    return (grid[rows] * v.reshape(1, 1, 4)).sum()


def as_a_number(x):
    return float(x[x > 0])


def float_into_int_inplace(xi):
    xi[xi > 2] += 0.5
    return xi


def python_int_too_big(xi):
    xi[xi > 2] += 300
    return xi


def different_selections_merge(x, y):
    if x.sum() > 0:
        s = x[x > 0]
    else:
        s = y[y > 0]
    return s.sum()


@pytest.mark.parametrize("fn,args,error,text,line_of", [
    (returns_selection, lambda: (_f(),), E.ShapeError, "returning x[mask]", "return"),
    (returns_selection_in_tuple, lambda: (_f(),), E.ShapeError, "returning x[mask]", "return"),
    (array_of_values, lambda: (_f(), _f()), E.ShapeError,
     "an array of shape (2,) would have to match the number of True values", "x[x > 0] ="),
    (full_shape_operand, lambda: (_f(), _f()), E.ShapeError,
     "an array of shape (6,) would have to match", "x[x > 0] + y"),
    (concatenates, lambda: (_f(), _f()), E.ShapeError, "np.concatenate of x[mask]",
     "np.concatenate"),
    (indexes_again, lambda: (_f(),), E.ShapeError, "y[mask] with y and the mask selections "
     "with two different masks", "> 1]"),
    (argsorted, lambda: (_f(),), E.ShapeError, "x[mask].argsort", "argsort"),
    (into_whole_array, lambda: (_f(), _f()), E.ShapeError, "x[mask] has a data-dependent shape",
     "x += y"),
    (mask_among_indices, lambda: (_grid(),), E.ShapeError, "a boolean mask among other indices",
     "grid[grid"),
    # (a reduction over the inner axes is x[mask]'s rows reduced, itself a
    # selection: it compiles, returning it does not)
    (reduces_inner_axis, lambda: (_grid(), ROWS.copy()), E.ShapeError,
     "returning x[mask]", "sum(axis=1)"),
    (wrong_mask_shape, lambda: (_f(),), E.ShapeError,
     "boolean index did not match indexed array along axis 0; size of axis is 6 but size of "
     "corresponding boolean axis is 4", "x[m] = 0"),
    (as_a_number, lambda: (_f(),), E.ShapeError, "using x[mask] as a number", "float("),
    (two_d_value_into_flat_selection, lambda: (_f(), _f()), E.ShapeError,
     "requires a 0 or 1-dimensional input, input has 2 dimensions", "x[x > 0] ="),
    (extra_axis_operand, lambda: (_grid(), ROWS.copy(), np.ones(4)), E.ShapeError,
     "an array of shape (1, 1, 4) would have to match", "grid[rows] *"),
    (float_into_int_inplace, lambda: (_i(),), E.DTypeError,
     "Cannot cast ufunc 'add' output from float64 to int64", "+= 0.5"),
    (python_int_too_big, lambda: (_i(np.int8),), E.UserCodeError,
     "Python integer 300 out of bounds for int8", "+= 300"),
    (different_selections_merge, lambda: (_f(), _f()), E.MergeError,
     "a runtime branch cannot choose it", "if x.sum()"),
], ids=lambda v: getattr(v, "__name__", "") if callable(v) and hasattr(v, "__code__") else "")
def test_refused(fn, args, error, text, line_of):
    err = raises_at(fn, args(), error=error, line_of=line_of)
    assert text in err.message, err.message
    if error is E.ShapeError:
        assert err.code == "E200"


def test_refusal_shows_what_compiles():
    err = raises_at(returns_selection, (_f(),), error=E.ShapeError, line_of="return")
    assert "np.where(mask, x, fill)" in err.hint and "x[mask] += y[mask]" in err.hint


# --------------------------------------------------------------------------
# NumPy functions given lists of runtime values
# --------------------------------------------------------------------------

def mean_of_sums(x, y):
    return np.mean([x.sum(), y.sum()])


def max_of_arrays(x, y):
    return np.max([x, y], axis=0)


def sum_of_rows(x, y):
    return np.sum([x, y], axis=1)


def tuple_argument(x, y):
    return np.min((x, y), axis=0), np.any((x > 0, y > 0)), np.all([x > -9, y > -9], axis=0)


def numpy_and_python_scalars(x, y):
    # np.array's dtype for the list: a Python float or int counts as float64 / int64
    return (np.mean([x.sum(), 1]), np.sum([x.max(), 2.5]), np.max([x.max(), y.max()]),
            np.sum([len(x), x.argmax()]))


def ufuncs_of_lists(x, y):
    return np.add([x, y], 1), np.maximum([x.sum(), y.sum()], 0.0), x + [y, y], [y, y] * x


def other_functions(x, y):
    i, j = x.argmax(), y.argmin()
    return (np.argmax([x.sum(), y.sum()]), np.cumsum([x.min(), y.min()]),
            np.take(x, [i, j]), np.clip([x, y], -1, 1), np.where([True, False, True] * 2, x, y),
            np.var([x.sum(), y.sum()]), np.dot([x.sum(), y.sum()], [1.0, 2.0]),
            np.linalg.norm([x.sum(), y.sum()]), np.sort([y.max(), x.max()]))


def nested_list(x, y):
    return np.sum([[x.sum(), y.sum()], [x.max(), y.min()]], axis=0)


def list_in_runtime_loop(x, n):
    best = x.sum() * 0
    for i in range(n):
        best = np.max([best, (x * i).sum()])
        x = np.mean([x, x * 0.5], axis=0)
    return best, x, np.array([i, best]) if n > 0 else None


def list_in_runtime_loop_counter(x, n):
    s = x.sum()
    for i in range(n):
        s = np.mean([s, i])         # i: a Python int held at run time
    return s


@pytest.mark.parametrize("fn,args,kw", [
    (mean_of_sums, lambda: (_f(), _f(dtype=np.float32)), {}),
    (mean_of_sums, lambda: (_i(), _i(np.int32)), {}),
    (max_of_arrays, lambda: (_f(), _f()[::-1].copy()), {}),
    (max_of_arrays, lambda: (_i(np.int8), _i(np.int16)), {}),
    (sum_of_rows, lambda: (_f(dtype=np.float32), _f(dtype=np.float32)), {}),
    (tuple_argument, lambda: (_f(), _f()[::-1].copy()), {}),
    (numpy_and_python_scalars, lambda: (_f(dtype=np.float32), _f(dtype=np.float32)), {}),
    (numpy_and_python_scalars, lambda: (_i(np.int32), _i(np.int32)), {}),
    (ufuncs_of_lists, lambda: (_f(dtype=np.float32), _f(dtype=np.float32)), {}),
    (other_functions, lambda: (_f(), _f()[::-1].copy()), {}),
    (nested_list, lambda: (_f(), _f(dtype=np.float32)), {}),
    (list_in_runtime_loop, lambda: (_f(), 3), {}),
    (list_in_runtime_loop_counter, lambda: (_f(), 4), {"runtime_args": ("n",)}),
], ids=lambda v: getattr(v, "__name__", "") if callable(v) and hasattr(v, "__code__") else "")
def test_lists_of_runtime_values(fn, args, kw):
    check(fn, *args(), compile_kwargs=kw)


def ragged_list(x, y):
    return np.mean([x, y[:2]])


def test_ragged_list_is_refused():
    err = raises_at(ragged_list, (_f(), _f()), error=E.ShapeError, line_of="np.mean")
    assert "inhomogeneous shape" in err.message
