"""Range analysis (OpDef.value_range, values.Span): integers known to lie in
[lo, hi] because np.clip, `% n`, max()/min(), argmax or np.where made them.
An index known in range needs no runtime bounds check, and a window
x[j:j + k] whose start is known to lie in [0, n - k] has a static length.
What is not known in range keeps its check, and NumPy's IndexError."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc

from conftest import assert_same, check, hlo


def checks_of(fn, *args) -> int:
    """The number of runtime checks (infer/checks.py) in fn's program."""
    return len(tpucc.compile(fn).lower(*args).traced.checks)


# --- windows of a static length ----------------------------------------------------------

def clipped_window(x, w, i):
    j = np.clip(i, 0, x.shape[0] - 3)
    return x[j:j + 3] * w


def builtin_window(x, w, i):
    j = min(max(i, 0), len(x) - 3)
    return x[j:j + 3] * w, x[j + 1:j + 3]


def rows_window(x, i):
    j = np.clip(i - 1, 0, x.shape[0] - 2)
    return x[j:j + 2] @ np.ones(x.shape[1])


@pytest.mark.parametrize("i", [-5, 0, 2, 5, 6, 40])
def test_a_clipped_start_gives_a_window_of_static_length(i):
    x, w = np.arange(8.0) ** 2, np.array([1.0, 2.0, 3.0])
    check(clipped_window, x, w, np.int64(i))
    check(builtin_window, x, w, np.int64(i))
    check(rows_window, np.arange(12.0).reshape(6, 2), np.int64(i))


def windows_in_a_loop(x, steps):
    t, total = 0, np.zeros(3)
    while t < steps:                                  # runtime: one While
        j = np.clip(t * 2 - 1, 0, x.shape[0] - 3)
        total = total + x[j:j + 3]
        t += 1
    return total


def test_windows_in_a_runtime_loop():
    x = np.arange(10.0)
    compiled = check(windows_in_a_loop, x, np.int64(7))
    assert "while(" in hlo(compiled, x, np.int64(7))


def unclipped_window(x, w, i):
    return x[i:i + 3] * w


def test_an_unknown_start_is_refused_with_the_clip_as_hint():
    with pytest.raises(tpucc.errors.ShapeError, match=r"x\[i:j\].*length of a slice") as info:
        tpucc.compile(unclipped_window)(np.arange(8.0), np.ones(3), np.int64(2))
    assert "np.clip(i, 0, n - k)" in info.value.hint


# --- indices known in range: no bounds check ----------------------------------------------

def periodic(x, i):
    n = x.shape[0]
    return x[(i + 1) % n] - x[(i - 1) % n] + x[i % -n]


def clipped(x, i):
    return x[np.clip(i, 0, len(x) - 1)] + x[min(max(i, -len(x)), len(x) - 1)]


def argmax_of_other(x, y):
    return x[np.argmax(y)], x[np.argmin(y, axis=0)], x[np.where(y > 0, np.argmax(y), 0)]


def taken(x, idx):
    return np.take(x, idx, mode="clip"), np.take(x, idx, mode="wrap"), x.take(idx % 5)


def cast_index(x, i):
    return x[np.clip(i, 0, 4).astype(np.int8)]


def reordered(x, y):
    return x[np.argsort(y)], x[np.searchsorted(np.sort(y), y) - 1], x[(y > 0).argsort()]


def halved(x, i):
    return x[np.clip(i, 0, 2 * len(x) - 1) // 2], x[np.clip(i, -9, 9) // -2]


CASES = [
    (periodic, (np.arange(5.0), np.int64(7))),
    (periodic, (np.arange(5.0), np.int64(-13))),
    (clipped, (np.arange(5.0), np.int64(99))),
    (clipped, (np.arange(5.0), np.int64(-99))),
    (argmax_of_other, (np.arange(4.0), np.array([0.5, -1.0, 3.0, 2.0]))),
    (taken, (np.arange(5) * 10, np.array([-7, 0, 4, 5, 12]))),
    (cast_index, (np.arange(5.0), np.int64(300))),
    (reordered, (np.arange(4.0), np.array([0.5, -1.0, 3.0, 2.0]))),
    (halved, (np.arange(5.0), np.int64(7))),
    (halved, (np.arange(5.0), np.int64(-9))),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{fn.__name__}-{k}" for k, (fn, _) in
                                                  enumerate(CASES)])
def test_indices_known_in_range_need_no_check(fn, args):
    check(fn, *args)
    assert checks_of(fn, *args) == 0


def test_a_histogram_checks_nothing_at_run_time():
    a = np.random.default_rng(0).normal(size=50)
    check(lambda a: np.histogram(a, bins=4, range=(-1, 1)), a)
    assert checks_of(lambda a: np.histogram(a, bins=4, range=(-1, 1)), a) == 0


# --- what is not known in range keeps its check --------------------------------------------

def off_by_one(x, i):
    return x[np.clip(i, 0, len(x))]             # len(x) itself is out of bounds


def shifted(x, i):
    j = np.clip(i, 0, 2)
    j += 3                                      # [3, 5]: 5 is out of bounds of 5
    return x[j]


def updated_in_place(x, a):
    idx = np.clip(a, 0, 2)
    idx[0] = 7                                  # the update forgets the range
    return x[idx]


def wrapped(x, a):
    return x[np.clip(a, 0, 100) + 100]          # int8: 100 + 100 wraps to -56


def unknown_divisor(x, i, n):
    return x[i % n]


def test_indices_not_known_in_range_are_checked():
    x = np.arange(5.0)
    assert checks_of(off_by_one, x, np.int64(1)) == 1
    check(off_by_one, x, np.int64(4))
    with pytest.raises(IndexError):
        off_by_one(x, np.int64(9))
    with pytest.raises(tpucc.TpuccError, match="out of bounds"):
        tpucc.compile(off_by_one)(x, np.int64(9))
    assert checks_of(shifted, x, np.int64(0)) == 1
    check(shifted, x, np.int64(1))
    with pytest.raises(tpucc.TpuccError, match="out of bounds"):
        tpucc.compile(shifted)(x, np.int64(2))
    a = np.array([0, 1, 2])
    assert checks_of(updated_in_place, x, a) == 1
    with pytest.raises(tpucc.TpuccError, match="out of bounds"):
        tpucc.compile(updated_in_place)(x, a)
    big = np.arange(300.0)
    assert checks_of(wrapped, big, np.array([1, 50], np.int8)) == 1
    check(wrapped, big, np.array([1, 50], np.int8))
    assert checks_of(unknown_divisor, x, np.int64(3), np.int64(2)) == 1


def test_results_equal_numpy_where_the_check_was_dropped():
    """Negative indices in range (x[i % -n]) still count from the end."""
    x = np.arange(5.0) * 3
    for i in range(-12, 12):
        assert_same(periodic(x, np.int64(i)), tpucc.compile(periodic)(x, np.int64(i)))
