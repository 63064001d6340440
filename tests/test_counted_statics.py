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
        x = x * 0.99        # (a loop of numbers alone runs while compiling: number_loops)
    return x * n


def test_a_number_used_at_run_time_keeps_the_loop_one_while():
    check(sum_used_at_run_time, np.full(2, 1.5))
    assert whiles(sum_used_at_run_time, np.full(2, 1.5)) == 1


def too_long_to_unroll(x):
    n = 0
    for i in range(20_000):
        n += 1
    return np.zeros(n % 7) + x


def test_a_loop_too_long_to_unroll_is_named_in_the_error():
    with pytest.raises(tpucc.errors.ShapeError, match=r"`n` is a runtime value: the loop at "
                       r"line \d+ runs as one runtime `while` \(20000 iterations") as info:
        tpucc.compile(too_long_to_unroll)(1.5)
    assert info.value.loc.line == too_long_to_unroll.__code__.co_firstlineno + 4


def heavy_loop(x, w):
    n = 0
    for i in range(1000):
        x = np.tanh(w @ x)
        n += 1
    return np.zeros(n // 100) + x[0]


def test_a_loop_too_big_to_unroll_quickly_is_named_with_the_option():
    x, w = np.ones(4), np.eye(4) * 0.5
    with pytest.raises(tpucc.errors.ShapeError, match=r"its 1000 copies would be \d+ ops, slow "
                       r"to compile\); .* pass unroll=1000 to tpucc.compile"):
        tpucc.compile(heavy_loop)(x, w)


def static_while(x):
    i = 0
    while i < 40:
        i += 1
        x = x * 0.5
    return np.zeros(i) + x[0]


def test_a_static_while_past_the_budget_is_unrolled_where_its_count_is_a_shape():
    check(static_while, np.ones(2))


class Counter:
    def __init__(self):
        self.n = 0


def counted_in_an_attribute(x):
    c = Counter()
    for i in range(40):
        c.n += 1
    return np.zeros(c.n) + x


def test_a_count_in_an_attribute_can_be_a_shape():
    check(counted_in_an_attribute, 1.5)


def then_raises(x):
    n = 0
    for i in range(40):
        n += 1
    y = np.zeros(n) + x
    raise ValueError("boom")


def test_the_unrolled_trace_reports_the_programs_own_error():
    with pytest.raises(tpucc.errors.UserCodeError, match="ValueError: boom"):
        tpucc.compile(then_raises)(1.5)


def left_at_run_time(x):
    n = 0
    for i in range(20_000):
        if x > 1e9:
            break
        n += 1
    return np.zeros(n % 5)


def test_a_count_a_runtime_break_decides_is_not_blamed_on_the_length():
    with pytest.raises(tpucc.errors.ShapeError) as info:
        tpucc.compile(left_at_run_time)(np.array(1.5))
    assert "iterations" not in str(info.value)
