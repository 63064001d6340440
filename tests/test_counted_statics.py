"""A static loop longer than the unroll budget runs as one counted While,
which makes the Python numbers it computes runtime values.  Where a later
line needs such a number at compile time (a shape), the function is traced
again with that loop unrolled, which is exact (infer.trace); where the loop
is too long to unroll, the error names it."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check


def whiles(fn, *args) -> int:
    return tpucc.compile(fn).lower(*args).ir().count("= while(")


def sum_as_a_shape(x):
    n = 0
    for i in range(100):
        n += i
    return np.zeros(n % 7) + x


def sizes_then_arrays(x):
    total, acc = 0, np.zeros(3)
    for i in range(60):
        total += 2
        acc = acc * 0.5 + x * i
    return np.ones(total // 10) * acc.sum(), acc


def two_loops(x):
    a = 0
    for i in range(50):
        a += 1
    b = 0
    for j in range(70):
        b += a
    return np.arange(b % 5 + a % 3) * x


def inner_loop_in_a_function(x):
    return np.zeros(_count(80)) + x


def _count(n):
    c = 0
    for _ in range(n):
        c += 1
    return c


@pytest.mark.parametrize("fn", [sum_as_a_shape, sizes_then_arrays, two_loops,
                                inner_loop_in_a_function])
def test_a_number_a_long_loop_computes_can_be_a_shape(fn):
    check(fn, 1.5)
    assert whiles(fn, 1.5) == 0         # (unrolled: the numbers are static)


def sum_used_at_run_time(x):
    n = 0
    for i in range(100):
        n += i
    return x * n


def test_a_number_used_at_run_time_keeps_the_loop_one_while():
    check(sum_used_at_run_time, 1.5)
    assert whiles(sum_used_at_run_time, 1.5) == 1


def too_long_to_unroll(x):
    n = 0
    for i in range(20_000):
        n += 1
    return np.zeros(n % 7) + x


def test_a_loop_too_long_to_unroll_is_named_in_the_error():
    with pytest.raises(tpucc.errors.ShapeError, match=r"`n` is a runtime value: the loop at "
                       r"line \d+ has 20000 iterations") as info:
        tpucc.compile(too_long_to_unroll)(1.5)
    assert info.value.loc.line == too_long_to_unroll.__code__.co_firstlineno + 4
