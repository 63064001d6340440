"""Bugs of sweep 44F (inference utilities for neural nets) fixed in session 44F:
each test compares compiled with eager NumPy (values, dtypes, argument state),
or checks a refusal's message and line.

- bug_02: a window x[:, i:i + 1] of a `while` loop's counter that the loop's
  own test keeps in range (`while i < T and not done.all():`, a `break`, an
  early `return`), or a runtime `if i < T:` around it, compiles;
- bug_05: `acc = acc + x[i:i + 1]` of a really runtime-bounded slice carried
  by a runtime loop: the E200 of the slice, at its line, with the window hint;
- bug_01: enumerate(zip(...)) / enumerate(reversed(...)) / enumerate(map(...))
  left by a runtime `break`, the counter read after the loop;
- bug_03: np.histogram with a range whose ends are known only at run time;
- bug_04: np.matmul(..., out=buf).
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same

NOISE = np.arange(12.0).reshape(3, 4) / 10


# --- bug_02: windows of a counter that the loop's tests keep in range ----------------------

def decode_and(noise, done):
    T = noise.shape[1]
    acc = np.zeros((noise.shape[0], 1))
    i = 0
    while i < T and not done.all():
        acc += noise[:, i:i + 1]
        done |= acc[:, 0] > 1.5
        i += 1
    return acc, i


def decode_break(noise, done):
    T = noise.shape[1]
    acc = np.zeros(noise.shape[0], noise.dtype)
    i = 0
    while i < T:
        if done.all():
            break
        acc += noise[:, i:i + 1][:, 0]
        done |= acc > 1.5
        i += 1
    return acc, i


def decode_return(noise, limit):
    T = noise.shape[1]
    acc = np.zeros((noise.shape[0], 1))
    i = 0
    while i < T:
        acc = acc + noise[:, i:i + 1]
        if acc.sum() > limit:
            return acc * 2
        i += 1
    return acc


def test_window_in_a_loop_with_a_second_exit():
    same(decode_and, NOISE, np.zeros(3, bool))
    same(decode_and, NOISE, np.ones(3, bool))           # no iteration: i stays 0
    same(decode_and, NOISE * 0, np.zeros(3, bool))      # every iteration: i ends at T
    same(decode_break, NOISE.astype(np.float32), np.zeros(3, bool))
    same(decode_return, NOISE, 0.5)
    same(decode_return, NOISE, 100.0)


def test_window_test_order_and_two_bounds():
    def not_first(noise, done):                 # the counter's test second, width 2
        T = noise.shape[1]
        acc = np.zeros((noise.shape[0], 2), np.float32)
        i = 0
        while not done.all() and i < T - 1:
            acc = acc + noise[:, i:i + 2]
            done |= acc[:, 0] > 1.5
            i += 1
        return acc, i

    def two_limits(x, lim):
        i, s = 0, 0.0
        while i < x.shape[0] and i < lim:
            s += x[i:i + 1].sum()
            i += 1
        return s, i

    def by_two(x, t):                           # steps of 2, the test on i + 2
        i = 1
        out = np.zeros(2, x.dtype)
        while i + 2 <= x.shape[0] and x[i] < t:
            out = out + x[i:i + 2]
            i += 2
        return out, i

    same(not_first, NOISE.astype(np.float32), np.zeros(3, bool))
    same(two_limits, np.arange(6.0), 3)
    same(two_limits, np.arange(6.0), 10)
    same(by_two, np.arange(7, dtype=np.int32), 4)
    same(by_two, np.arange(7, dtype=np.int32), 100)


def test_window_under_a_runtime_if_on_the_counter():
    def shifted_rows(x, t):
        acc = np.zeros((1, x.shape[1]), x.dtype)
        i = 0
        while acc.sum() < t:
            if i < x.shape[0] - 1:      # i + 2 <= 4 inside
                acc = acc + x[i + 1:i + 2]
            i += 1
        return acc, i

    same(shifted_rows, np.arange(12, dtype=np.int64).reshape(4, 3), 20)
    same(shifted_rows, np.arange(12.0).reshape(4, 3), 5.0)


def test_a_loop_that_does_not_keep_the_counter_in_range_is_still_refused():
    def wraps_around(x, t):         # the path back to the header passes no `i < n`
        i = 0
        acc = np.zeros(1)
        while acc[0] < t:
            acc += x[i:i + 1]
            i += 1
        return acc

    raises_at(wraps_around, (np.array([1.0, 2, 3]), 4.0), tpucc.TpuccError,
              match=r"E200.*slice with runtime bounds", line_of="acc += x[i:i + 1]",
              cache=False)


# --- bug_05: a runtime-bounded slice carried by a loop ---------------------------------------

def carried_slice(x, start):
    acc = np.zeros((1, x.shape[1]))
    i = start
    while i < 3:
        acc = acc + x[i:i + 1]
        i += 1
    return acc


def carried_maximum(x, k):
    acc = np.zeros((1, x.shape[1]), x.dtype)
    while acc.sum() < 100:
        acc = np.maximum(acc, x[k:k + 1])
        k += 1
    return acc


def test_carried_runtime_slice_names_the_slice_line():
    x = np.arange(12.0).reshape(4, 3) / 10
    err = raises_at(carried_slice, (x, np.int64(1)), tpucc.TpuccError,
                    match=r"E200.*carrying `acc` into the loop's next iteration: a slice with "
                          r"runtime bounds", line_of="acc = acc + x[i:i + 1]", cache=False)
    assert "Selection" not in str(err) and "window" in str(err)
    err = raises_at(carried_maximum, (np.arange(8, dtype=np.float32).reshape(4, 2),
                                      np.int64(1)),
                    tpucc.TpuccError, match=r"E200.*carrying `acc`.*runtime bounds",
                    line_of="acc = np.maximum(acc, x[k:k + 1])", cache=False)
    assert "Selection" not in str(err) and "Box" not in str(err)


def test_carried_window_of_an_early_exit_loop_compiles():
    def plus_cols(x, done):
        acc = np.zeros((x.shape[0], 1))
        i = 0
        while i < x.shape[1] and not done.all():
            acc = acc + x[:, i:i + 1]
            done |= acc[:, 0] > 1.5
            i += 1
        return acc

    same(plus_cols, (np.arange(12.0).reshape(4, 3) / 10).T.copy(), np.zeros(3, bool))


# --- bug_01: enumerate over another iterator, left by a runtime break ------------------------

def exit_layer(ws, bs, x):
    for i, (w, b) in enumerate(zip(ws, bs)):
        x = x * w + b
        if x.sum() > 6:
            break
    return i, x


def exit_reversed(ws, x):
    for i, w in enumerate(reversed(ws), start=1):
        x = x * w
        if x.sum() > 10:
            break
    return i, w


def exit_mapped(ws, x):
    for i, w in enumerate(map(float, ws)):
        x = x * w
        if x.sum() > 10:
            break
    return i


def last_eos(toks, eos):
    for i, t in enumerate(reversed(toks)):
        if t == eos:
            break
    return i, t


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_enumerate_of_an_iterator_left_by_a_runtime_break(dtype):
    same(exit_layer, [2.0, 3.0, 4.0], [0.0, 1.0, 2.0], np.ones(3, dtype))
    same(exit_layer, [0.1, 0.1, 0.1], [0.0, 0.0, 0.0], np.ones(3, dtype))   # no break
    same(exit_reversed, [2.0, 3.0, 4.0], np.ones(3, dtype))
    same(exit_mapped, [2.0, 3.0, 4.0], np.ones(3, dtype))
    same(exit_mapped, [1.0, 1.0], np.ones(3, dtype))


def test_enumerate_reversed_array():
    same(last_eos, np.array([4, 2, 0, 3]), 0)
    same(last_eos, np.array([4, 2, 0, 3], np.int32), 9)


def test_an_iterator_a_runtime_break_left_is_still_refused_when_read_again():
    def rest_after(ws, x):
        it = zip(ws, ws)
        for i, (w, _) in enumerate(it):
            x = x * w
            if x.sum() > 10:
                break
        return i, len(list(it))

    raises_at(rest_after, ([2.0, 3.0, 4.0], np.ones(3)), tpucc.TpuccError,
              match=r"E400.*advanced under a runtime condition", cache=False)


# --- bug_03: np.histogram with a runtime range -----------------------------------------------

def calibration(x):
    amax = np.abs(x).max()
    return np.histogram(np.abs(x), bins=8, range=(0.0, amax))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_histogram_runtime_range(dtype):
    x = np.linspace(-2, 3, 25).astype(dtype)
    # every form in one program (one compile, not six)
    same(lambda x, lo, w: (
        calibration(x),
        np.histogram(x, bins=5, range=(lo, x.max())),
        np.histogram(x, bins=4, range=(x.min(), 3.0), weights=w, density=True),
        np.histogram(x, 6, (0.0, float(x.max()))),
        np.histogram_bin_edges(x, bins=3, range=(0, x.max())),
        np.histogram(x, bins=4, range=(x.max(), x.max()))),                  # widened by 0.5
        x, -1.0, np.ones(25, dtype))


def test_histogram_runtime_range_of_integers():
    same(lambda x, lo, y: (np.histogram(x, bins=5, range=(lo, x.max())),
                           np.histogram_bin_edges(y, bins=3, range=(0, y.max()))),
         np.arange(20) % 7, 2, np.arange(10))


def test_histogram_runtime_range_errors_raise_when_the_call_returns():
    f = tpucc.compile(lambda x: np.histogram(x, bins=4, range=(x.max(), 0.0)), cache=False)
    with pytest.raises(ValueError, match="max must be larger than min"):
        f(np.linspace(0, 1, 5))
    g = tpucc.compile(lambda x, lo: np.histogram(x, bins=4, range=(lo, x.max())), cache=False)
    with pytest.raises(ValueError, match="not finite"):
        g(np.linspace(0, 1, 5), -np.inf)
    counts, edges = g(np.linspace(0, 1, 5), 0.0)
    np.testing.assert_array_equal(counts, np.histogram(np.linspace(0, 1, 5), 4, (0.0, 1.0))[0])


# --- bug_04: np.matmul(..., out=) ------------------------------------------------------------

def linear_into(x, W, buf):
    np.matmul(x, W, out=buf)
    return buf.sum()


def test_matmul_out():
    f32 = np.float32
    same(linear_into, np.ones((2, 3), f32), np.ones((3, 4), f32), np.zeros((2, 4), f32))
    same(lambda x, W, b: np.matmul(x, W, out=b) is b, np.ones((2, 3)), np.ones((3, 4)),
         np.zeros((2, 4)))
    same(lambda x, W, b: (np.matmul(x, W, b), b)[1], np.arange(6, dtype=f32).reshape(2, 3),
         np.ones((3, 4), f32), np.zeros((2, 4)))                    # by position, into float64

    def into_itself(x):
        np.matmul(x, x, out=x)
        return x

    def into_a_view(x, W, buf):
        np.matmul(x, W, out=buf[1])
        return buf

    same(into_itself, np.arange(4.0).reshape(2, 2))
    same(into_a_view, np.arange(6).reshape(2, 3), np.ones((3, 4), np.int64),
         np.zeros((3, 2, 4), np.int64))
    same(lambda x, W, b: np.matmul(x, W, out=b), np.ones((2, 3)), np.ones((3, 4)),
         np.zeros((5, 2, 4)))                                       # broadcast over a batch


def test_matmul_out_refusals_are_numpys():
    def cast(x, W, b):
        return np.matmul(x, W, out=b)

    raises_at(cast, (np.ones((2, 3)), np.ones((3, 4)), np.zeros((2, 4), np.int64)),
              tpucc.TpuccError, match="Cannot cast ufunc 'matmul' output", cache=False)
    raises_at(cast, (np.ones((2, 3)), np.ones((3, 4)), np.zeros((2, 5))),
              tpucc.TpuccError, match="non-broadcastable output operand", cache=False)
