"""Limits that must not hang: long static loops, deep call chains, huge
static lists, static recursion.  Each either compiles in bounded time (and
matches NumPy) or stops with a LimitError naming the line.  (A strict
xfail would mark a limit found broken; the ones found so far are fixed.)
"""
from __future__ import annotations

import importlib.util
import time

import numpy as np
import pytest

import tpucc
from tpucc.infer.calls import MAX_INLINE_DEPTH
from conftest import check, count_hlo

SECONDS = 30        # a generous bound for one compilation, even on a loaded machine


def timed_lower(fn, *args):
    """(Lowered, seconds) for tracing, lowering and XLA-compiling fn."""
    t0 = time.perf_counter()
    lowered = tpucc.compile(fn).lower(*args)
    lowered.compile()
    return lowered, time.perf_counter() - t0


# --------------------------------------------------------------------------
# A million-iteration static loop is one counted While, not an unrolling
# --------------------------------------------------------------------------

MILLION = 1_000_000


def triangular_sum(x):
    acc = x * 0
    for i in range(MILLION):
        acc = acc + i
    return acc


@pytest.mark.timeout(120)
def test_million_iteration_static_loop_is_a_counted_while():
    x = np.array([1.0, -2.0])
    lowered, seconds = timed_lower(triangular_sum, x)
    assert seconds < SECONDS, f"compiling took {seconds:.1f} s"
    assert count_hlo(lowered.as_text(), "while") == 1
    # Running it eagerly takes seconds; the sum has a closed form, exact in float64
    # (and NumPy's dtype: float64 array + Python int).
    out = tpucc.compile(triangular_sum)(x)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.full(2, MILLION * (MILLION - 1) / 2))


def triangular_sum_short(x):
    acc = x * 0
    for i in range(1000):
        acc = acc + i * x
    return acc


def test_counted_loop_matches_numpy():
    check(triangular_sum_short, np.array([1.0, -2.0]))


def static_while_million(x):
    i = 0
    while i < MILLION:          # static: unrolled 32 times, then a While on a promoted i
        i += 1
    return x + i


@pytest.mark.timeout(120)
def test_long_static_while_becomes_a_runtime_while():
    x = np.array([0.5])
    lowered, seconds = timed_lower(static_while_million, x)
    assert seconds < SECONDS and count_hlo(lowered.as_text(), "while") == 1
    out = tpucc.compile(static_while_million)(x)
    np.testing.assert_array_equal(out, x + MILLION)
    assert out.dtype == np.float64


# (rows of different lengths: a list of strings picked at a runtime position is
# a runtime choice since session 48, test_fixes_session48X5)
ROWS = [[1], [1, 2], [1, 2, 3]]


def unrolls_past_the_limit(x):
    total = 0
    for i in range(20_000):     # ROWS[i % 3] needs i static: the loop must unroll
        total += len(ROWS[i % 3])
    return x + total


@pytest.mark.timeout(120)
def test_unrolling_stops_at_the_limit_with_its_line():
    t0 = time.perf_counter()
    with pytest.raises(tpucc.LimitError) as info:
        tpucc.compile(unrolls_past_the_limit)(np.ones(2))
    assert time.perf_counter() - t0 < SECONDS
    err = info.value
    assert "loop unrolled 10000 times" in err.message
    assert ("with 10000 iterations left; it is unrolled because its body needs a static value "
            "(indexing a Python container with a runtime value)") in err.message, str(err)
    assert err.loc.line == unrolls_past_the_limit.__code__.co_firstlineno + 2, str(err)


# --------------------------------------------------------------------------
# Deep call chains and recursion
# --------------------------------------------------------------------------

def _call_chain_module(tmp_path, depth):
    """A module of functions f0 .. f{depth-1}, each calling the next and
    adding 1.0; returns (module, source lines)."""
    lines = []
    for k in range(depth - 1):
        lines += [f"def f{k}(x):", f"    return f{k + 1}(x) + 1.0", ""]
    lines += [f"def f{depth - 1}(x):", "    return x", ""]
    path = tmp_path / f"chain{depth}.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location(f"chain{depth}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, lines


@pytest.mark.timeout(120)
def test_call_chain_under_the_limit_compiles(tmp_path):
    module, _ = _call_chain_module(tmp_path, MAX_INLINE_DEPTH - 10)
    t0 = time.perf_counter()
    check(module.f0, np.array([1.0, 2.0]))
    assert time.perf_counter() - t0 < SECONDS


@pytest.mark.timeout(120)
def test_call_chain_over_the_limit_stops_at_the_call(tmp_path):
    module, lines = _call_chain_module(tmp_path, 150)
    t0 = time.perf_counter()
    with pytest.raises(tpucc.LimitError) as info:
        tpucc.compile(module.f0)(np.array([1.0, 2.0]))
    assert time.perf_counter() - t0 < SECONDS
    err = info.value
    assert f"calls nested more than {MAX_INLINE_DEPTH} deep" in err.message
    # f{MAX-1} is inlined at depth MAX-1; its call of f{MAX} is the one refused.
    expected = lines.index(f"    return f{MAX_INLINE_DEPTH}(x) + 1.0") + 1
    assert (err.loc.file, err.loc.line) == (module.__file__, expected), str(err)


def factorial_times(x, n):
    if n <= 1:
        return x
    return n * factorial_times(x, n - 1)


def static_recursion(x):
    return factorial_times(x, 60)       # static depth 60: one inlined call per level


@pytest.mark.timeout(120)
def test_recursion_with_static_depth_compiles():
    t0 = time.perf_counter()
    check(static_recursion, np.array([1.0, -0.5]))
    assert time.perf_counter() - t0 < SECONDS


# --------------------------------------------------------------------------
# Huge static Python lists
# --------------------------------------------------------------------------

def folds_a_huge_list(x):
    values = list(range(100_000))
    return x + len(values) + sum(values) + values[-1]


@pytest.mark.timeout(120)
def test_huge_static_list_is_folded():
    t0 = time.perf_counter()
    f = check(folds_a_huge_list, np.array([1.0]))
    assert time.perf_counter() - t0 < SECONDS
    assert "while" not in f.lower(np.array([1.0])).as_text()


def squares_comprehension(x):
    squares = [i * i for i in range(100)]
    return x + sum(squares)


def squares_append_loop(x):
    squares = []
    for i in range(100):
        squares.append(i * i)
    return x + sum(squares)


@pytest.mark.parametrize("fn", [squares_comprehension, squares_append_loop])
def test_static_list_building_loop_past_the_unroll_budget_compiles(fn):
    check(fn, np.array([1.0]))


def huge_comprehension(x):
    squares = [i * i for i in range(100_000)]
    return x + sum(squares)


@pytest.mark.timeout(120)
def test_huge_static_comprehension_compiles_or_hits_the_limit():
    t0 = time.perf_counter()
    try:
        check(huge_comprehension, np.array([1.0]))
    except tpucc.LimitError as err:
        assert err.loc.line == huge_comprehension.__code__.co_firstlineno + 1, str(err)
    assert time.perf_counter() - t0 < SECONDS


LONG_TABLE = [float(i) * 0.5 for i in range(300)]


def picks_from_long_table(x, i):
    return x + LONG_TABLE[i]


def test_runtime_index_into_long_static_list_matches_numpy():
    check(picks_from_long_table, np.array([1.0, 2.0]), np.array(7))


def test_runtime_index_into_long_static_list_is_one_constant():
    ir = tpucc.compile(picks_from_long_table).lower(np.array([1.0]), np.array(7)).ir()
    ops = [line for line in ir.splitlines() if line.startswith("%")]
    assert len(ops) < 10, f"{len(ops)} ops for one lookup"
