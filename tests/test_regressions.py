"""Bugs found by review, the fuzzer or the AOT work, each pinned by a test."""
import numpy as np

import tpucc
from conftest import check


def two_keywords(x, a=None, b=None):
    return x + a.sum() * 2 + b.sum()


def test_keyword_arrays_passed_out_of_order():
    # Call-time leaves are collected in sorted keyword order; tracing must bind
    # them the same way (this once silently swapped a and b).
    a, b = np.full(2, 10.0), np.full(2, 3.0)
    check(two_keywords, np.ones(2), b=b, a=a)
    check(two_keywords, np.ones(2), a=a, b=b)


def loop_reads_arguments(w, x, n):
    i = 0
    while i < n:
        x = np.tanh(x @ w)
        i += 1
    return x


def test_loop_invariant_arguments_are_not_written_back():
    f = check(loop_reads_arguments, np.eye(2), np.ones((1, 2)), np.int64(3))
    traced = f.lower(np.eye(2), np.ones((1, 2)), np.int64(3)).traced
    assert traced.writebacks == []
