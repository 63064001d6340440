"""Session 32's sweep of realistic programs: max()/min() of tuples holding
runtime numbers (no key=) compare them as Python does, at run time;
sorted() of such tuples is refused saying so; math.gcd, math.lcm and
math.isqrt take runtime Python ints."""
from __future__ import annotations

import math

import numpy as np
import pytest

import tpucc
from conftest import check


def best_of_tuples(x):
    best = max((v, i) for i, v in enumerate(x))
    least = min((v, -i) for i, v in enumerate(x))
    mixed = max([(x[0], 1.5), (x[1], 0.5), (x[1], 2.5)])
    return best, least, mixed


@pytest.mark.parametrize("x", [[1.0, 3.0, 2.0, 3.0], [2.0, 2.0, 1.0, 0.0], [5.0, -1.0, 5.0, 5.0]])
def test_max_and_min_of_tuples_compare_at_run_time(x):
    compiled = check(best_of_tuples, np.array(x))
    (v, i), _, _ = compiled(np.array(x))
    assert type(i) is int and isinstance(v, np.float64)


def sorted_tuples(x):
    return sorted([(x[1], "b"), (x[0], "a")])


def test_sorted_of_tuples_with_runtime_numbers_is_refused_with_a_way_out():
    with pytest.raises(tpucc.StaticValueError, match="sorted\\(\\) of runtime values") as e:
        tpucc.compile(sorted_tuples)(np.ones(2))
    assert "np.lexsort" in str(e.value)


def integer_math(x):
    a, b = int(x[0]), int(x[1])
    return (math.gcd(a, b), math.lcm(a, b, 3), math.gcd(a), math.isqrt(a),
            math.isqrt(b * b - 1), math.gcd(x[0], -x[1]))


@pytest.mark.parametrize("x", [[12, 8], [0, 7], [99999999999, 3037000499]])
def test_gcd_lcm_isqrt_of_runtime_ints(x):
    x = np.array(x)
    if x[0] > 2 ** 32:              # an lcm past int64, compiled code's Python int
        with pytest.raises(OverflowError):
            tpucc.compile(integer_math)(x)
        return
    compiled = check(integer_math, x)
    assert all(type(v) is int for v in compiled(x))


def test_isqrt_of_a_negative_int_raises_value_error():
    with pytest.raises(ValueError, match="isqrt\\(\\) argument must be nonnegative"):
        tpucc.compile(lambda x: math.isqrt(int(x[0])))(np.array([-4]))


def isqrt_near_the_top(x):
    return math.isqrt(int(x[0])), math.isqrt(int(x[1]))


def test_isqrt_of_ints_near_two_to_the_63():
    check(isqrt_near_the_top, np.array([2 ** 63 - 1, 3037000499 ** 2], dtype=np.int64))


def test_an_lcm_past_int64_raises_overflow_error():
    # runtime Python ints are 64-bit: past that, OverflowError, not a wrapped value
    with pytest.raises(OverflowError, match="does not fit 64 bits"):
        tpucc.compile(lambda x: math.lcm(int(x[0]), int(x[1])))(
            np.array([10 ** 18, 10 ** 18 - 1]))


def max_of_unlike_tuples(x):
    return max((float(x[0]), 1), (2, 0))


def test_max_of_unlike_tuples_says_what_differs():
    with pytest.raises(tpucc.StaticValueError, match="must be alike") as e:
        tpucc.compile(max_of_unlike_tuples)(np.array([1.0, 3.0]))
    assert "key=lambda t: t[0]" in str(e.value)


def counter_test_past_int64(x):
    log = []
    for ep in range(120):
        x = x * 0.99
        if (ep * 10 ** 18) % 7 == 3:        # Python's ints do not wrap
            log.append(ep)
    return log, x


def test_a_counter_condition_that_would_wrap_is_unrolled_exactly():
    check(counter_test_past_int64, np.arange(4.0))


def min_of_products(x):
    losses = [float(x[0]), float(x[1]) * 2]
    return min((v, i) for i, v in enumerate(losses))


def test_python_floats_made_differently_are_alike():
    check(min_of_products, np.array([3.0, 1.0]))


def best_of_many(x):
    losses = [float(v) for v in x]
    return max((v, i) for i, v in enumerate(losses)), min((v, -i) for i, v in enumerate(losses))


def test_max_of_many_tuples_is_one_loop():
    # Python's own loop, interpreted: a While over the pairs (was one pick per pair: 24 s for 1000)
    x = np.random.default_rng(0).standard_normal(100)
    x[7] = x.max()                  # a tie: the first wins, by its index
    x[50] = np.nan                  # never chosen, as in Python's loop
    compiled = check(best_of_many, x)
    assert compiled.lower(x).ir().count("= while(") >= 2
