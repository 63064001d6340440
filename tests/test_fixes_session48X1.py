"""Session 48X1: Python numbers returned by the hundred were one module
output each, and XLA took seconds per few hundred outputs (bug 48X/01): a
list-of-lists DP table held as one array while its loops ran, returned
whole (17 s), or `(x * 2.0).tolist()` of 800 elements (17 s).  Elements of
one array are now returned as that array, one output, and split into
Python numbers on the host (infer.RowOf); values, Python types and NumPy
kinds equal eager NumPy's, in a compiled call, a replayed trace record and
a loaded artifact."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

import tpucc
from tpucc.cli import main
from conftest import assert_same


def _n_results(fn, *args) -> int:
    """The executable's outputs, less the error code of its runtime checks."""
    traced = tpucc.compile(fn, cache=False).lower(*args).traced
    return len(traced.result_avals) - bool(traced.checks)


def _check(fn, *args):
    expected = fn(*args)
    compiled = tpucc.compile(fn, cache=False)
    assert_same(expected, compiled(*args))
    assert_same(expected, compiled(*args))          # the builder's second call
    return compiled


# --- a DP table a loop held as one array -------------------------------------------------------

def edit_table(a, b):
    n, m = len(a), len(b)
    D = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        D[i][0] = i
    for j in range(m + 1):
        D[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            D[i][j] = min(D[i - 1][j] + 1, D[i][j - 1] + 1, D[i - 1][j - 1] + cost)
    return D


def edit_table_and_distance(a, b):
    D = edit_table(a, b)
    return D[-1][-1], D


def float_path_table(w):
    n, m = w.shape
    best = [[0.0] * m for _ in range(n)]
    for i in range(n):
        for j in range(m):
            up = best[i - 1][j] if i > 0 else 0.0
            left = best[i][j - 1] if j > 0 else 0.0
            best[i][j] = max(up, left) + float(w[i, j])
    return best


def coin_ways(coins, total):
    ways = [0] * (total + 1)
    ways[0] = 1
    for c in coins:
        for t in range(int(c), total + 1):
            ways[t] += ways[t - int(c)]
    return ways


def _ab(n, m):
    rng = np.random.default_rng(0)
    return rng.integers(0, 4, n), rng.integers(0, 4, m)


@pytest.mark.parametrize("fn, args", [
    (edit_table, _ab(30, 25)), (edit_table, _ab(3, 2)), (edit_table_and_distance, _ab(12, 9)),
    (float_path_table, (np.random.default_rng(1).random((9, 7)),)),
    (float_path_table, (np.random.default_rng(1).random((6, 5)).astype(np.float32),)),
    (coin_ways, (np.array([1, 2, 5]), 60)),
])
def test_a_held_table_returned_equals_numpy(fn, args):
    _check(fn, *args)


def test_a_held_table_is_one_output():
    a, b = _ab(30, 25)
    assert _n_results(edit_table, a, b) == 1
    assert _n_results(float_path_table, np.ones((9, 7))) == 1
    assert _n_results(edit_table_and_distance, a, b) == 1     # D[-1][-1]: an element too


def test_a_held_table_changed_after_its_loop():
    def f(a, b):
        D = edit_table(a, b)
        D[0][0] = 99                        # a constant among the array's elements
        D[1][1] = D[2][2] * 3               # a number of its own
        D[2].append(-1)
        return D
    _check(f, *_ab(8, 6))


# --- tolist() ---------------------------------------------------------------------------------

def scaled_list(x):
    return (x * 2).tolist()


@pytest.mark.parametrize("x", [
    np.random.default_rng(0).random(800), np.random.default_rng(0).random(50).astype(np.float32),
    np.arange(-20, 20, dtype=np.int32), np.arange(30, dtype=np.uint8),
    np.arange(12, dtype=np.uint64), np.random.default_rng(0).random(10) > 0.5,
    np.arange(5) * (1 + 2j), np.random.default_rng(0).random((6, 5)),
    np.arange(24, dtype=np.int16).reshape(2, 3, 4), np.arange(3.0), np.float64(2.5),
])
def test_tolist_returned_equals_numpy(x):
    _check(scaled_list, x)


def test_tolist_is_one_output():
    assert _n_results(scaled_list, np.ones(800)) == 1
    assert _n_results(scaled_list, np.ones(3)) == 3         # below ROW_GROUP_MIN


def test_tolist_among_other_results_and_changed():
    def f(x):
        items = x.tolist()
        items[0] = -1.0
        items[3] = items[3] + 10.0
        items.append(float(x.sum()))
        return x.max(), items, (x + 1).tolist()
    _check(f, np.random.default_rng(2).random(40))


def test_tolist_then_the_array_changes():
    def f(x):
        y = x * 1.0
        items = y.tolist()
        y[0] = 100.0                        # the list keeps the values at tolist()
        return items, y
    _check(f, np.arange(10.0))


def test_tolist_of_a_uint64_past_int64_still_raises():
    x = np.array([1, 2, 3, 2 ** 63 + 5], dtype=np.uint64)
    with pytest.raises(OverflowError):
        tpucc.compile(lambda x: x.tolist(), cache=False)(x)


def test_a_replayed_trace_record_splits_the_array(tmp_path, monkeypatch):
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")       # store even a fast compile
    a, b = _ab(10, 8)
    tpucc.compile(edit_table, cache=str(tmp_path))(a, b)
    again = tpucc.compile(edit_table, cache=str(tmp_path))
    assert_same(edit_table(a, b), again(a, b))
    (entry,) = again._cache.values()
    assert entry.times.replayed


MODEL = textwrap.dedent("""
    import numpy as np
    from tpucc.aot import entry

    @entry("f32[40]")
    def halves(x):
        return (x / 2).tolist()
""")


def test_an_artifact_returns_the_elements(tmp_path):
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    result = CliRunner().invoke(main, ["build", str(model), "--entry", "halves", "--out",
                                       str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    x = np.random.default_rng(3).random(40).astype(np.float32)
    got = tpucc.load(str(tmp_path / "out" / "halves.tpucc"))(x)
    assert_same((x / 2).tolist(), got)


def test_an_n_d_tolist_is_one_output():
    assert _n_results(scaled_list, np.ones((6, 5))) == 1
    assert _n_results(scaled_list, np.ones((2, 3, 4), np.int16)) == 1
    assert _n_results(lambda x: (x.tolist(), x[1:].tolist()), np.ones((5, 4))) == 2


def test_sum_of_a_row_of_an_n_d_tolist():
    def f(x):
        rows = x.tolist()
        return sum(rows[1]), max(rows[2]), rows
    _check(f, np.random.default_rng(4).random((5, 6)))
