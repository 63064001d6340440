"""Session 47X2 fix: index arrays whose values are known while compiling
(np.arange with static bounds, and arithmetic on it) index as static index
arrays: their bounds are checked at compile time, not by a runtime check
each.  A wavefront DP over a 21x21 table compiled in ~17 s (39 unrolled
diagonals, 8 chained runtime checks each); now in ~3 s."""
import warnings

import numpy as np
import pytest

import tpucc
from conftest import assert_same, same, same_each


def antidiag(a, b):
    n, m = len(a), len(b)
    H = np.zeros((n + 1, m + 1), np.int32)
    for d in range(2, n + m + 1):
        i = np.arange(max(1, d - m), min(n, d - 1) + 1)
        j = d - i
        s = np.where(a[i - 1] == b[j - 1], 2, -1)
        H[i, j] = np.maximum(H[i - 1, j - 1] + s, H[i - 1, j] - 1)
    return H.max(), H


def _quiet(fn, *args):
    """same(), the UnrollWarning of a long unrolled loop silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tpucc.UnrollWarning)
        return same(fn, *args)


def _ir(fn, *args) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tpucc.UnrollWarning)
        return tpucc.compile(fn, cache=False).lower(*args).ir()


@pytest.mark.parametrize("n, m, dtype", [(6, 4, np.uint8), (5, 7, np.int64), (3, 3, np.int16)])
def test_wavefront_dp_matches_numpy(n, m, dtype):
    a = (np.arange(n) % 4).astype(dtype)
    b = (np.arange(m)[::-1] % 3).astype(dtype)
    _quiet(antidiag, a, b)


def test_wavefront_dp_has_no_runtime_bounds_checks():
    a = np.arange(6, dtype=np.uint8) % 4
    text = _ir(antidiag, a, a[::-1].copy())
    assert "in_bounds" not in text and "check(" not in text, text


def test_wavefront_dp_float_table_and_argument_state():
    def smith_waterman(a, b, H):
        n, m = len(a), len(b)
        for d in range(2, n + m + 1):
            i = np.arange(max(1, d - m), min(n, d - 1) + 1)
            j = d - i
            s = np.where(a[i - 1] == b[j - 1], 1.5, -0.5)
            H[i, j] = np.maximum.reduce([H[i - 1, j - 1] + s, H[i - 1, j] - 1.0,
                                         H[i, j - 1] - 1.0, np.zeros(len(i))])
        return H.max()
    a = np.array([1, 2, 3, 1, 2], np.int32)
    b = np.array([2, 3, 1, 1], np.int32)
    _quiet(smith_waterman, a, b, np.zeros((6, 5), np.float64))


def test_constant_index_arrays_of_other_spellings():
    def gathers(x):
        k = np.arange(2, 8, 2)
        return (x[k], x[k - 1], x[-1 - np.arange(3)], x[np.arange(3, dtype=np.uint8)],
                x[np.arange(6).reshape(2, 3)], x[::-1][np.arange(4) * 2 + 1],
                x[np.array([4, 0, 4])])
    same_each(gathers, (np.arange(10, dtype=np.float32) * 1.5,),
              (np.arange(10, 20, dtype=np.int16),))


def test_constant_index_arrays_store_and_accumulate():
    def stores(x, y):
        x[np.arange(3) + 1] = 7
        x[np.arange(3) - 3] = x[np.arange(3)] * 2       # negative positions: the last three
        y[np.arange(2), 2 - np.arange(2)] += 1.5
        np.add.at(x, np.arange(6) // 2, 1)             # repeated positions accumulate
        return x.sum(), y
    same(stores, np.arange(8, dtype=np.int64), np.zeros((3, 3), np.float32))


def test_gather_at_constant_indices_is_a_copy():
    def copy_then_change(x):
        y = x[np.arange(3)]
        y += 100
        return y, x
    same(copy_then_change, np.arange(5.0))


def test_constant_index_array_in_a_runtime_loop():
    def loop(x, n):
        acc = 0.0
        idx = np.arange(1, 4)
        for _ in range(n):
            acc += x[idx].sum() + x[idx * 2].max()
            x[idx] += 1.0
        return acc, x
    same_each(loop, (np.arange(8.0), 3), (np.arange(8.0), 0))


def test_out_of_bounds_constant_index_raises_numpys_index_error():
    def read(x):
        return x[np.arange(5) + 3]
    with pytest.raises(IndexError, match="index 6 is out of bounds for axis 0 with size 6"):
        tpucc.compile(read, cache=False)(np.arange(6.0))

    def write(x):
        x[np.arange(3) - 9] = 0.0
        return x
    with pytest.raises(IndexError, match="index -9 is out of bounds for axis 0 with size 6"):
        tpucc.compile(write, cache=False)(np.arange(6.0))


def test_out_of_bounds_constant_index_caught_by_the_program():
    def guarded(x):
        try:
            return x[np.arange(4) * 3]
        except IndexError:
            return x[:4]
    same_each(guarded, (np.arange(6.0),), (np.arange(12.0),))


def test_out_of_bounds_constant_index_on_a_path_not_taken():
    def maybe(x):
        if x[0] > 0:
            return x[np.arange(3) + 5].sum()     # out of bounds: raises only if it runs
        return x.sum()
    compiled = same(maybe, np.array([0.0, 1, 2, 3, 4, 5]))
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 6"):
        compiled(np.array([1.0, 1, 2, 3, 4, 5]))


def test_index_arrays_from_runtime_values_keep_their_checks():
    def shifted(x, off):
        return x[np.arange(3) + off]
    compiled = same(shifted, np.arange(6.0), np.array(2))
    with pytest.raises(IndexError):
        compiled(np.arange(6.0), np.array(4))
