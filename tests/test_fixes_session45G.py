"""Fixes from sweep 45G (sparse matrices as plain index arrays): Python-number
accumulators collected from a counted loop; np.add.at / np.take /
np.searchsorted / a boolean mask / `@` of bool through a runtime-bounded
slice; f-string messages calling functions; NumPy's IndexError text for an
empty axis and mismatched index arrays; the compile time of a static CSR
pattern's row-slice matvec."""
import copy

import numpy as np
import pytest

import tpucc
from conftest import raises_at


def _same(eager, got, path="result"):
    """Values, dtypes and Python types alike (lists and tuples item by item)."""
    assert type(eager) is type(got), f"{path}: {type(eager)} vs {type(got)}"
    if isinstance(eager, (list, tuple)):
        assert len(eager) == len(got), path
        for k, (a, b) in enumerate(zip(eager, got)):
            _same(a, b, f"{path}[{k}]")
    elif isinstance(eager, (np.ndarray, np.generic)):
        assert eager.dtype == got.dtype, f"{path}: {eager.dtype} vs {got.dtype}"
        np.testing.assert_allclose(got, eager, rtol=1e-12, atol=1e-12, err_msg=path)
    else:
        assert eager == got, path


def _check(f, *args):
    """Compiled f equals eager f: the result, and the arguments after the call."""
    eager_args, compiled_args = copy.deepcopy(args), copy.deepcopy(args)
    eager = f(*eager_args)
    got = tpucc.compile(f, cache=False)(*compiled_args)
    _same(eager, got)
    for a, b in zip(eager_args, compiled_args):
        if isinstance(a, np.ndarray):
            _same(a, b, "argument")
    return got


# --- bug_07: a Python-number accumulator collected by a counted loop ----------------

def _row_sums(start):
    def row_sums(data, indptr):
        out = []
        for i in range(len(indptr) - 1):
            s = start
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k]
            out.append(s)
        return out
    return row_sums


@pytest.mark.parametrize("start,dtype", [(0.0, np.float64), (0, np.int32), (0, np.uint8),
                                         (0.0, np.float32)])
def test_empty_rows_keep_the_python_number_in_an_appended_list(start, dtype):
    data = np.array([1, 2, 3, 4], dtype)
    got = _check(_row_sums(start), data, np.array([0, 2, 2, 3, 3, 4]))
    assert type(got[1]) is type(start) and type(got[3]) is type(start)


def test_empty_rows_keep_the_python_number_in_a_long_loop():
    indptr = np.repeat(np.arange(0, 40, 2), 2)      # every other row empty
    _check(_row_sums(0.0), np.arange(40.0), indptr)


def test_empty_rows_keep_the_python_number_in_a_comprehension():
    def row_last(indices, indptr):
        def last(i):
            c = -1
            k = indptr[i]
            while k < indptr[i + 1]:
                c = indices[k]
                k += 1
            return c
        return [last(i) for i in range(len(indptr) - 1)]
    _check(row_last, np.array([3, 1, 2], np.int32), np.array([0, 2, 2, 3, 3]))


def test_empty_rows_keep_the_python_number_in_appended_tuples():
    def pairs(data, indptr):
        out = []
        for i in range(4):
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                s += data[k]
            out.append((i, s))
        return out
    _check(pairs, np.array([1.0, 2.0, 3.0]), np.array([0, 2, 2, 3, 3]))
