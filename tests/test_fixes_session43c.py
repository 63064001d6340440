"""Session 43c (sweep 43 J, indexing and broadcasting): fixes.

- np.piecewise calls each function on x[cond], as NumPy does (it called them
  on the whole of x: t / t.sum(), t - t.mean(), len(t), np.cumsum were
  silently wrong), and not at all where the selection is empty;
- np.choose (and the new .choose()) of a 0-d index gives a NumPy scalar;
- ufunc.at: integer values into any integer array (int64 into uint32,
  int16 into uint8) compile, computed in NumPy's loop dtype and wrapped;
  an integer max/min that wraps is applied one update at a time, as NumPy's
  loop; complex arrays compile (add, subtract, multiply);
- `.mT`, np.broadcast(...).shape/.ndim/.size/.numiter, np.diag_indices_from;
- np.take with an object that has __index__ (or a list of them).
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc

from conftest import assert_same, raises_at, same


# --- np.piecewise: each function gets x[cond] --------------------------------------------------

def piece_normalized(x):
    return np.piecewise(x, [x > 0], [lambda t: t / t.sum(), 0.0])


def piece_centered(x):
    return np.piecewise(x, [x > 0, x <= 0], [lambda t: t - t.mean(), lambda t: t - t.max()])


def piece_len(x):
    return np.piecewise(x, [x > 0], [lambda t: len(t), -1])


def piece_cumsum(x):
    return np.piecewise(x, [x > 0, x <= 0], [np.cumsum, lambda t: t])


def piece_first(x):
    return np.piecewise(x, x < 0, [lambda t: t[0], lambda t: t * 2])


def piece_ones_like(x):
    return np.piecewise(x, [x < 0], [lambda t: np.ones_like(t) * t.size, 0.5])


def piece_with_args(x):
    return np.piecewise(x, [x > 0], [lambda t, k: t * k - t.max(), 0], 3)


@pytest.mark.parametrize("fn", [piece_normalized, piece_centered, piece_len, piece_cumsum,
                                piece_first, piece_ones_like, piece_with_args])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_piecewise_function_sees_the_selection(fn, dtype):
    same(fn, np.array([1, -2, 3, -4, 5, -6], dtype=dtype))


def test_piecewise_of_a_2d_array_and_of_a_static_condition():
    def f(X):
        return (np.piecewise(X, [X > 0], [lambda t: t / t.sum(), lambda t: t - t.min()]),
                np.piecewise(X, [np.array([[True, False, True], [False, True, False]])],
                             [lambda t: t.sum() + 0 * t, 1.0]))
    same(f, np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]))


def test_piecewise_calls_no_function_on_an_empty_selection():
    # NumPy skips the call: the max of nothing would raise ValueError
    def f(x):
        return np.piecewise(x, [x > 100], [lambda t: t - t.max(), 1.0])
    same(f, np.array([1.0, 2.0, 3.0]))


def test_piecewise_of_a_scalar_and_in_a_loop():
    def f(x, n):
        out = np.piecewise(x[0], [x[0] < 0, x[0] >= 0], [lambda v: -v, lambda v: v + 1])
        for i in range(n):
            x = np.piecewise(x, [x > i], [lambda t: t / t.sum(), lambda t: t])
        return out, x
    same(f, np.array([-2.5, 1.0, 3.0]), np.int64(2))


def test_piecewise_gradient_sees_the_selection():
    def loss(w):
        return np.piecewise(w, [w > 0], [lambda t: t ** 2 / t.sum(), lambda t: -t]).sum()
    w = np.array([0.5, -1.0, 2.0])
    eps = 1e-6
    expected = [(loss(w + eps * e) - loss(w - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(tpucc.grad(loss)(w), expected, rtol=1e-5)


def test_piecewise_function_that_needs_more_than_the_selection_is_refused():
    def f(x):
        return np.piecewise(x, [x > 0], [lambda t: np.sort(t), 0])
    raises_at(f, (np.array([3.0, -1.0, 2.0]),), tpucc.errors.ShapeError,
              match="np.sort of x\\[mask\\]", line_of="np.sort", cache=False)


# --- np.choose of a 0-d index, .choose() ------------------------------------------------------

def test_choose_of_a_0d_index_is_a_numpy_scalar():
    def f(i):
        return (np.choose(i, [10, 20, 30]),
                np.choose(i, [np.float32(1), np.float32(2)], mode="clip"),
                np.choose(i, [np.int8(3), np.int8(4), np.int8(5)], mode="wrap"),
                np.choose(i, [np.array([1.0, 2.0]), np.array([3.0, 4.0])], mode="clip"))
    same(f, np.int64(1))
    same(f, np.array(2))


def test_choose_method():
    def f(i, a, b):
        return i.choose([a, b]), (i + 3).choose((a, b), mode="wrap"), i[0].choose([a, b])
    same(f, np.array([0, 1]), np.array([1.5, 2.5]), np.array([3.0, 4.0]))
    same(f, np.array([1, 0]), np.array([1, 2], np.int32), np.array([3, 4], np.int32))


# --- ufunc.at: integer values into any integer array, complex arrays -------------------------

def add_at(a, idx, v):
    np.add.at(a, idx, v)
    return a


def subtract_at(a, idx, v):
    np.subtract.at(a, idx, v)
    return a


def multiply_at(a, idx, v):
    np.multiply.at(a, idx, v)
    return a


def maximum_at(a, idx, v):
    np.maximum.at(a, idx, v)
    return a


def minimum_at(a, idx, v):
    np.minimum.at(a, idx, v)
    return a


@pytest.mark.parametrize("fn,array,values", [
    (add_at, np.zeros(4, np.uint32), np.ones(3, np.int64)),
    (add_at, np.zeros(4, np.uint8), np.array([200, 100, -1], np.int16)),
    (subtract_at, np.zeros(4, np.uint8), np.array([200, 100, -1], np.int16)),
    (add_at, np.zeros(4, np.uint8), np.int64(200)),
    (add_at, np.zeros(4, np.int8), np.array([100, 100, 7], np.int64)),
    (multiply_at, np.full(4, 5, np.uint8), np.array([-1, 3, 7], np.int8)),
    (maximum_at, np.zeros(4, np.uint8), np.array([-1, 3, 2], np.int8)),
    (minimum_at, np.zeros(4, np.uint8), np.array([-1, 3, 2], np.int8)),
    (maximum_at, np.zeros(4, np.int8), np.array([200, 50, 1], np.int64)),
    (minimum_at, np.zeros(4, np.int8), np.array([-200, -50, 1], np.int64)),
    (add_at, np.zeros(4, np.uint16), np.array([True, True, False])),
])
def test_ufunc_at_integers_into_an_integer_array(fn, array, values):
    same(fn, array, np.array([0, 0, 3]), values)


@pytest.mark.parametrize("fn,array,values", [
    (add_at, np.zeros(3, complex), np.array([1j, 2.0, 1 + 1j])),
    (add_at, np.zeros(3, np.complex64), np.array([1j, 2.0, 1 + 1j], np.complex64)),
    (add_at, np.zeros(3, np.complex64), np.array([1j, 2.0, 1 + 1j]) / 3),
    (add_at, np.zeros(3, np.complex64), 1j),
    (subtract_at, np.ones(3, complex), np.array([1j, 2.0, 1 + 1j])),
    (subtract_at, np.ones(3, complex), 2.0),
    (multiply_at, np.ones(3, complex), np.array([1j, 2.0, 1 + 1j])),
    (add_at, np.zeros(3, complex), np.array([1.5, 2, 3], np.float32)),
])
def test_ufunc_at_complex_array(fn, array, values):
    same(fn, array, np.array([0, 0, 2]), values)


def test_ufunc_at_complex_rows():
    def f(a, idx):
        np.add.at(a, idx, np.exp(1j * np.arange(3.0)))
        return a
    same(f, np.zeros((3, 3), complex), np.array([2, 2, 0]))


def test_ufunc_at_refusals_say_why():
    raises_at(add_at, (np.zeros(3, np.int32), np.array([0]), np.array([1.5])),
              tpucc.errors.DTypeError, match="float64 into a int32 array .NumPy truncates",
              line_of="np.add.at", cache=False)
    raises_at(add_at, (np.zeros(3, np.float64), np.array([0]), np.array([1j])),
              tpucc.errors.DTypeError, match="discards the imaginary part",
              line_of="np.add.at", cache=False)
    raises_at(add_at, (np.zeros(3, np.uint64), np.array([0]), np.array([1])),
              tpucc.errors.DTypeError, match="computes in float64",
              line_of="np.add.at", cache=False)
    raises_at(maximum_at, (np.zeros(3, complex), np.array([0]), np.array([1j])),
              tpucc.errors.UnsupportedError, match="np.maximum.at on a complex128 array",
              line_of="np.maximum.at", cache=False)


# --- .mT, np.broadcast, np.diag_indices_from ---------------------------------------------------

def test_mT_is_a_view():
    def f(x):
        t = x.mT
        t[..., 0, 1] = -1.0
        return t, x.mT.shape
    same(f, np.arange(12.0).reshape(2, 2, 3))
    same(f, np.arange(6, dtype=np.int32).reshape(2, 3))


def test_mT_of_a_vector_raises_numpys_error():
    def f(x):
        try:
            return x.mT
        except ValueError:
            return x * 0
    same(f, np.arange(3.0))


def test_broadcast_object():
    def f(a, b):
        bc = np.broadcast(a, b)
        return bc.shape, bc.ndim, bc.nd, bc.size, bc.numiter, bc.index, np.broadcast(a, 1.0).shape
    same(f, np.zeros((3, 1)), np.zeros(4))
    same(f, np.zeros((2, 1, 5), np.int8), np.zeros((4, 1)))


def test_broadcast_of_shapes_that_do_not_broadcast_raises_numpys_error():
    def f(a, b):
        try:
            return np.broadcast(a, b).shape
        except ValueError:
            return ()
    same(f, np.zeros(3), np.zeros(4))


def test_iterating_np_broadcast_is_refused():
    def f(a, b):
        s = 0.0
        for u, v in np.broadcast(a, b):
            s += u * v
        return s
    raises_at(f, (np.zeros((3, 1)), np.zeros(4)), tpucc.errors.UnsupportedError,
              match="iterating np.broadcast", line_of="for u, v", cache=False)


def test_diag_indices_from():
    def f(A):
        A[np.diag_indices_from(A)] += 10
        return A, A[np.diag_indices_from(A)]
    same(f, np.zeros((3, 3)))
    same(f, np.arange(8, dtype=np.int32).reshape(2, 2, 2))


def test_diag_indices_from_raises_numpys_errors():
    def f(A):
        try:
            return np.diag_indices_from(A)
        except ValueError:
            return None
    for a in (np.zeros(3), np.zeros((2, 3))):
        assert_same(f(a), tpucc.compile(f, cache=False)(a))


# --- np.take with __index__ objects -------------------------------------------------------------

class Idx:
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_take_with_index_objects():
    def f(x):
        return (np.take(x, Idx(1)), np.take(x, [Idx(1), Idx(-1)]), x.take(Idx(2)),
                np.take(x, indices=[[Idx(0)], [Idx(3)]]), np.take(x, [Idx(1), 2], mode="clip"))
    same(f, np.arange(5.0))
    same(f, np.arange(5, dtype=np.int16))
