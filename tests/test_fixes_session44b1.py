"""Session 44b1 fixes (sweep 44B: optimization algorithms).

- A Python float (or int) merged with a NumPy float by a runtime `if`, a
  loop, min() or max() was held as the NumPy float on every path, so a
  float32 array times it silently became float64 where eager NumPy keeps
  float32 (NEP 50: the Python float is weak).  It now carries a runtime bool
  saying whether the path taken held the Python number, as Python ints
  beside NumPy integers already did (infer/held_ints.py): the caller gets
  the Python float there, and arithmetic whose dtype differs for it raises
  E910 (TypeError) on that path, naming the line.
- np.bincount of an index array known while compiling with runtime weights
  was refused as if its length depended on runtime values.
- np.add.reduceat (and the other .reduce ufuncs') with static start
  indices was refused.
- np.gradient(y, x) with a coordinate array was refused.
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc.errors import RuntimeRaiseError, UnsupportedError

from conftest import assert_same, raises_at, same

G32 = np.array([0.1, -2.0, 3.0], np.float32)


# --- bug_06: a Python float merged with a NumPy float keeps its type on its path ------------

def clip_min(g, c):
    norm = np.sqrt(np.sum(g.astype(np.float64) ** 2))
    scale = min(1.0, c / norm)
    return g * scale


def clip_if(g, c):
    norm = np.linalg.norm(g.astype(np.float64))
    scale = 1.0
    if norm > c:
        scale = c / norm
    return g * scale, scale


def clip_scale(g, c):
    norm = np.linalg.norm(g.astype(np.float64))
    return min(1.0, c / norm)


def project_ball(x, r):
    return x / max(1, np.linalg.norm(x.astype(np.float64)) / r)


def halve_in_loop(x, n):
    lr = 0.1
    for i in range(n):
        if x.sum() > i:
            lr = lr * np.float64(0.5)
    return x * lr, lr * 2


def backtrack(x):
    t = 1.0
    while np.sum(x * t) > 100.0:
        t = t * np.float64(0.5)
    return x * t, t


def half_scale(x, thr):
    t = 1.0
    if x.sum() > thr:
        t = np.float32(0.5)
    return x * t


def is_python_float(x, thr):
    t = 1.0
    if x.sum() > thr:
        t = np.float64(0.5)
    return isinstance(t, float), t + 1.0, t > 0.7


@pytest.mark.parametrize("fn", [clip_min, clip_if])
def test_float32_gradient_clipping_that_takes_the_python_float_raises_at_its_line(fn):
    # eager: float32 (g * 1.0); compiled code holds `scale` as float64
    err = raises_at(fn, (G32, 100.0), error=RuntimeRaiseError,
                    match=r"Python float arithmetic held in a NumPy float \(\*\).*NumPy gives "
                          r"float32, where compiled code computes float64",
                    line_of="g * scale", cache=False)
    assert isinstance(err, TypeError) and err.code == "E910"
    assert "float(min(1.0, c / norm))" in err.hint


@pytest.mark.parametrize("fn", [clip_min, clip_if])
def test_clipping_on_the_numpy_path_or_of_float64_gradients_compiles(fn):
    same(fn, G32, 1.0)                      # clipped: float64 in both
    same(fn, G32.astype(np.float64), 100.0)     # float64 whichever path
    same(fn, G32.astype(np.float64), 1.0)


def test_the_merged_scalar_comes_back_as_the_python_float_on_its_path():
    for c in (100.0, 1.0):
        same(clip_scale, G32, c)
        same(is_python_float, G32, 100.0 if c == 100.0 else -100.0)
    assert type(tpucc.compile(clip_scale, cache=False)(G32, 100.0)) is float


def test_a_python_int_picked_by_max_beside_a_numpy_float():
    raises_at(project_ball, (np.array([0.3, 0.4], np.float32), 1.0), error=RuntimeRaiseError,
              match="Python int arithmetic held in a NumPy float", line_of="max(1",
              cache=False)
    same(project_ball, np.array([3.0, 4.0], np.float32), 1.0)     # np.float64 path
    same(project_ball, np.array([0.3, 0.4]), 1.0)


def test_learning_rate_halved_in_an_unrolled_loop():
    same(halve_in_loop, G32, 3)                 # halved: float64
    same(halve_in_loop, -G32.astype(np.float64), 3)     # never halved: Python float
    raises_at(halve_in_loop, (-G32, 3), error=RuntimeRaiseError, line_of="x * lr",
              cache=False)


def test_backtracking_loop_that_runs_zero_times():
    raises_at(backtrack, (G32,), error=RuntimeRaiseError, line_of="x * t", cache=False)
    same(backtrack, G32.astype(np.float64))
    same(backtrack, G32.astype(np.float64) * 1000)
    same(backtrack, G32 * 1000)                 # ran: float64 on that path


def test_float16_array_beside_a_python_float_or_np_float32():
    h = np.ones(2, np.float16)
    raises_at(half_scale, (h, 100.0), error=RuntimeRaiseError,
              match="NumPy gives float16, where compiled code computes float32",
              line_of="x * t", cache=False)
    same(half_scale, h, 0.0)
    same(half_scale, G32, 0.0)
    same(half_scale, G32, 100.0)


# --- bug_07: np.bincount of a static index array -------------------------------------------

def group_norms_bincount(w):
    groups = np.repeat(np.arange(3), 2)
    return np.sqrt(np.bincount(groups, weights=w ** 2))


def bincount_literal(w):
    return np.bincount(np.array([0, 0, 1, 1, 2, 2]), w, minlength=5)


def bincount_list(w):
    return np.bincount([0, 3, 1, 1, 2, 2], weights=w.astype(np.float32))


def bincount_too_short(w):
    return np.bincount(np.array([0, 0, 1, 1, 2, 2]), w[:5])


def bincount_negative(w):
    return np.bincount(np.array([0, -1, 1, 1, 2, 2]), w)


def bincount_runtime(x):
    return np.bincount(x, weights=np.ones(x.shape))


W = np.array([1.0, 2.0, 3.0, 4.0, 0.0, 5.0])


@pytest.mark.parametrize("fn", [group_norms_bincount, bincount_literal, bincount_list])
def test_bincount_of_a_static_index_array_with_runtime_weights(fn):
    same(fn, W)
    same(fn, W.astype(np.float32))


def test_bincount_of_a_static_index_array_raises_numpy_errors():
    raises_at(bincount_too_short, (W,), match="same length", line_of="np.bincount",
              cache=False)
    raises_at(bincount_negative, (W,), match="negative", line_of="np.bincount", cache=False)


def test_bincount_of_a_runtime_index_array_is_still_refused():
    raises_at(bincount_runtime, (np.array([0, 2, 1]),), error=UnsupportedError,
              match="depends on the values", line_of="np.bincount", cache=False)


# --- bug_08: ufunc.reduceat with static start indices ---------------------------------------

def group_norms_reduceat(w):
    return np.sqrt(np.add.reduceat(w ** 2, [0, 2, 5]))


def product_not_increasing(w):
    return np.multiply.reduceat(w, np.array([0, 4, 1]))


def maximum_along_rows(w):
    return np.maximum.reduceat(w.reshape(2, 3), (0, 2), axis=1)


def int8_sums(w):
    return np.add.reduceat(w.astype(np.int8), [0, 2, 5])


def bool_counts(w):
    return np.add.reduceat(w > 1, [0, 3], dtype=np.int32), np.logical_or.reduceat(w > 3, [0, 3])


def reduceat_past_the_end(w):
    return np.add.reduceat(w, [0, 7])


def reduceat_runtime_starts(w):
    return np.add.reduceat(w, np.array([0, 2]) + (w[:1] > 0).astype(np.int64))


@pytest.mark.parametrize("fn", [group_norms_reduceat, product_not_increasing,
                                maximum_along_rows, int8_sums, bool_counts])
def test_reduceat_with_static_starts(fn):
    same(fn, W)
    same(fn, W.astype(np.float32)[::-1].copy())


def test_reduceat_errors():
    raises_at(reduceat_past_the_end, (W,), match="IndexError: index 7 out-of-bounds",
              line_of="reduceat", cache=False)
    raises_at(reduceat_runtime_starts, (W,), error=UnsupportedError,
              match="known only at run time", line_of="reduceat", cache=False)


# --- bug_04: np.gradient with coordinate arrays ---------------------------------------------

Y = np.array([0.0, 1.0, 4.0, 9.0, 16.0])


def slope_linspace(y):
    t = np.linspace(0.0, 1.0, y.size)
    return np.gradient(y, t)


def slope_uneven(y):
    return np.gradient(y, np.array([0.0, 0.1, 0.3, 0.6, 1.0]))


def slope_int_list_second_order(y):
    return np.gradient(y, [0, 1, 3, 6, 10], edge_order=2)


def slope_runtime(y, x):
    return np.gradient(y, x)


def slope_runtime_second_order(y, x):
    return np.gradient(y, x, edge_order=2)


def slope_2d(y):
    grid = np.outer(y, y[:3]).astype(np.float32)
    return np.gradient(grid, np.array([0.0, 0.5, 1.5, 2.0, 4.0]), 2.0)


def slope_wrong_length(y):
    return np.gradient(y, np.arange(4.0))


@pytest.mark.parametrize("fn", [slope_linspace, slope_uneven, slope_int_list_second_order,
                                slope_2d])
def test_gradient_with_static_coordinates(fn):
    same(fn, Y)
    same(fn, Y.astype(np.float32))


@pytest.mark.parametrize("fn", [slope_runtime, slope_runtime_second_order])
@pytest.mark.parametrize("x", [np.array([0.0, 0.1, 0.3, 0.6, 1.0]), np.linspace(0, 2, 5),
                               np.arange(5), np.array([0.0, 0.5, 1.5, 2.0, 4.0], np.float32)])
def test_gradient_with_runtime_coordinates(fn, x):
    same(fn, Y, x)          # evenly spaced: NumPy's uniform formula, decided at run time
    same(fn, Y.astype(np.float32), x)


def test_gradient_coordinates_of_the_wrong_length():
    raises_at(slope_wrong_length, (Y,), match="must match the length", line_of="np.gradient",
              cache=False)
    compiled = tpucc.compile(slope_runtime, cache=False)
    with pytest.raises(tpucc.TpuccError, match="must match the length"):
        compiled(Y, np.arange(3.0))
    assert_same(np.gradient(Y, np.arange(5.0)), compiled(Y, np.arange(5.0)))


def scaled_bound(x, r):
    s = max(1, np.linalg.norm(x.astype(np.float64)) / r)
    s2 = s * 2
    return s2, s + 0.5, x.astype(np.float64) / s2


def test_python_int_picked_by_max_stays_a_python_number_through_arithmetic():
    same(scaled_bound, np.array([0.3, 0.4], np.float32), 1.0)     # the int 1 picked
    same(scaled_bound, np.array([3.0, 4.0], np.float32), 1.0)
