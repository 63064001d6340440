"""sum() of a generator expression over a long range or an array's rows:
the generator's loop is one counted While whose items go into a buffer
(its yields are a list only it appends to: infer/stacking.py), and sum()
adds the buffer's rows in Python's order with one scan (ops `fold_add`),
where 300 rows used to be 300 unrolled bodies and 300 additions (1.7 s
to lower, 1.5 s of XLA; now 0.2 s and 0.2 s).  Results equal Python's
sum over NumPy values: same order of additions, bit for bit."""
from __future__ import annotations

import re

import numpy as np
import pytest

import tpucc
from conftest import assert_same, check

N = 40          # more than the unroll budget (32)


def squares_over_range(x):
    return sum(x[i] ** 2 for i in range(x.shape[0]))


def rows_doubled(x):
    return sum(r * 2.0 for r in x)


def python_floats(x):
    return sum(float(r.sum()) for r in x)


def numpy_scalars(x):
    return sum(r.max() for r in x)


def python_ints(x):
    return sum(int(np.argmax(r)) for r in x)


def bools(x):
    return sum(r > 0 for r in x)


def with_a_start(x):
    return sum((np.abs(r) for r in x), np.ones(3))


def float32_rows(x):
    return sum(r.astype(np.float32) * np.float32(0.1) for r in x)


def a_list_comprehension(x):
    return sum([np.tanh(r) for r in x])


def broadcast_into_the_start(x):
    return sum((r.sum() for r in x), np.zeros((2, 3)))


CASES = [squares_over_range, rows_doubled, python_floats, numpy_scalars, python_ints, bools,
         with_a_start, float32_rows, a_list_comprehension, broadcast_into_the_start]


@pytest.mark.parametrize("fn", CASES)
def test_sums_of_generators_match_python_bit_for_bit(fn):
    x = np.random.default_rng(0).normal(size=(N, 3)) * 1e3
    check(fn, x, rtol=0, atol=0)


@pytest.mark.parametrize("fn", [squares_over_range, rows_doubled, python_floats, bools,
                                a_list_comprehension])
def test_a_long_generator_sum_is_one_loop(fn):
    x = np.random.default_rng(1).normal(size=(300, 3))
    ir = tpucc.compile(fn).lower(x).ir()
    assert ir.count("= while(") == 1 and "trip_count=300" in ir
    # (Python floats under Python 3.12 and later: fold_add_compensated, the first two
    # rows added with their error terms: float_sums.py)
    assert len(re.findall(r"fold_add(_compensated)?\(", ir)) == 1
    assert ir.count("add(") - ir.count("fold_add(") <= 8        # not one addition per row
    assert "while" in tpucc.compile(fn).lower(x).as_text()


def test_result_kinds_are_pythons():
    x = np.random.default_rng(2).normal(size=(N, 3))
    assert type(tpucc.compile(python_floats)(x)) is float
    assert type(tpucc.compile(python_ints)(x)) is int
    assert type(tpucc.compile(numpy_scalars)(x)) is np.float64
    assert tpucc.compile(float32_rows)(x).dtype == np.float32


def energy(w, x):
    return sum(np.sum(np.tanh(r * w) ** 2) for r in x)


def test_gradient_through_a_generator_sum():
    rng = np.random.default_rng(3)
    w, x = rng.normal(size=3), rng.normal(size=(N, 3))
    g = tpucc.compile(tpucc.grad(energy))(w, x)
    eps, num = 1e-6, np.zeros_like(w)
    for i in range(3):
        d = np.zeros_like(w)
        d[i] = eps
        num[i] = (energy(w + d, x) - energy(w - d, x)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


# --- other consumers of a long generator: values as NumPy's ------------------------------

def consumed_by_a_loop(x):
    total = np.zeros(3)
    for v in (r * 2 for r in x):
        total = total * 0.5 + v
    return total


def listed(x):
    ys = list(np.exp(r) for r in x)
    return np.stack(ys), ys[5]


def largest(x):
    return max(float(r.sum()) for r in x)


def short_generator(x):
    return sum(r for r in x[:3])


@pytest.mark.parametrize("fn", [consumed_by_a_loop, listed, largest, short_generator])
def test_other_generator_consumers_match_numpy(fn):
    check(fn, np.random.default_rng(4).normal(size=(N, 3)))


def filtered(x):
    return sum(r for r in x if r.sum() > 0)


def test_a_runtime_filter_in_a_generator_is_still_refused():
    with pytest.raises(tpucc.TpuccError) as e:
        tpucc.compile(filtered)(np.ones((N, 3)))
    assert "test_generator_sums.py" in str(e.value)


def pairs_into_a_dict(x):
    table = dict((i, float(r[0])) for i, r in enumerate(x))
    return table[5], sorted(table)[:3], [k for k in (i for i in range(N))][-1]


def test_the_counter_in_stacked_items_stays_a_python_int():
    # (keys of a dict: the unrolled loop's were static, so are the stacked ones)
    check(pairs_into_a_dict, np.random.default_rng(7).normal(size=(N, 3)))
    ir = tpucc.compile(pairs_into_a_dict).lower(np.zeros((N, 3))).ir()
    assert ir.count("= while(") >= 1


def from_an_iterator(x):
    return (np.fromiter((float(r[0]) for r in x), dtype=np.float64),
            np.fromiter((r.sum() for r in x), np.float32, count=3),
            np.fromiter(range(4), dtype=np.int8))


def test_fromiter_of_a_generator():
    check(from_an_iterator, np.random.default_rng(8).normal(size=(N, 3)))


def too_short(x):
    return np.fromiter((r[0] for r in x), dtype=float, count=10)


def test_fromiter_of_too_few_items_is_numpys_error():
    from conftest import raises_at
    raises_at(too_short, (np.ones((4, 3)),), tpucc.TpuccError, "iterator too short",
              line_of="np.fromiter")


# --- rows of an array yielded as they are: views, no buffer ------------------------------------

def sum_of_rows(x):
    return sum(r for r in x), sum(x[i] for i in range(x.shape[0])), sum(x[i] for i in range(1, N, 2))


def rows_then_written(x):
    rows = [x[i] for i in range(x.shape[0])]
    x[3, 0] = 100.0                 # NumPy's items are views of x's rows
    return rows[3], np.stack(rows), len(rows)


def rows_of_a_rebound_array(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i])            # a row of this iteration's x
        x = x * 0.5
    return np.stack(out)


@pytest.mark.parametrize("fn", [sum_of_rows, rows_then_written, rows_of_a_rebound_array])
def test_rows_of_an_array_match_numpy(fn):
    check(fn, np.random.default_rng(9).normal(size=(N, 3)), rtol=0, atol=0)


def test_a_sum_of_plain_rows_is_one_loop():
    x = np.random.default_rng(10).normal(size=(300, 3))
    ir = tpucc.compile(sum_of_rows).lower(x).ir()
    # (the third, 20 rows unrolled: its rows x[1::2], one slice, added by one fold too)
    assert ir.count("= while(") == 2 and ir.count("fold_add(") == 3
