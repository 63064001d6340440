"""Session 47X1's fix, checked against eager NumPy: a DP table kept as a list
of lists (or a list) of Python numbers, read and written at loop counters
(`dp[i][j] = min(dp[i - 1][j] + 1, ...)`), is held as one array while the
loop runs, so the loops are runtime Whiles instead of n * m unrolled copies
of the body (a 16 x 14 edit distance took 15 s to compile); the list gets
its items back after the loop, with their Python types."""
import copy
import warnings

import numpy as np
import pytest

import tpucc
from conftest import assert_same, count_hlo, hlo


# A small unroll budget: small tables take the path of big ones (XLA
# compiles an unrolled table slowly, and the suite's time is mostly XLA).
SMALL_BUDGET = 3


def _as_whiles(fn, *args, unroll=SMALL_BUDGET):
    """fn compiled and eager on copies of `args`: equal results and argument
    state, with no loop unrolled (an UnrollWarning fails) and at least one
    While in the module.  Returns the compiled fn."""
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    compiled = tpucc.compile(fn, cache=False, unroll=unroll)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)
        actual = compiled(*comp_args)
    assert_same(fn(*eager_args), actual)
    assert_same(eager_args, comp_args)
    assert count_hlo(hlo(compiled, *args), "while") >= 1
    return compiled


def _same_anyway(fn, *args):
    """fn compiled and eager: equal results and argument state, however the
    loops were compiled (a table that cannot be held is unrolled as before)."""
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", tpucc.UnrollWarning)
        actual = tpucc.compile(fn, cache=False, unroll=SMALL_BUDGET)(*comp_args)
    assert_same(fn(*eager_args), actual)
    assert_same(eager_args, comp_args)


# --- bug_01: a list-of-lists DP table held as a 2-d array -----------------------------------

def _edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        dp[i][0] = i
    for j in range(m + 1):
        dp[0][j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            dp[i][j] = min(dp[i - 1][j] + 1, dp[i][j - 1] + 1, dp[i - 1][j - 1] + cost)
    return dp[n][m]


def test_edit_distance_table_runs_as_whiles():
    """The sweep's repro, with the default unroll budget."""
    a, b = np.arange(16) % 5, np.arange(14) % 3
    compiled = _as_whiles(_edit_distance, a, b, unroll=32)
    assert type(compiled(a, b)) is int


@pytest.mark.parametrize("dtype", [np.int32, np.uint8])
def test_edit_distance_other_dtypes(dtype):
    a, b = (np.arange(6) % 5).astype(dtype), (np.arange(5) % 3).astype(dtype)
    _as_whiles(_edit_distance, a, b)


def _lcs_with_last_row(a, b):
    n, m = len(a), len(b)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp[n][m], dp[-1], len(dp), dp[0]


def test_lcs_table_gives_its_rows_back_as_lists_of_python_ints():
    _as_whiles(_lcs_with_last_row, np.arange(7) % 4, np.arange(5) % 3)


def _min_path(grid):
    n, m = grid.shape
    dp = [[0.0] * m for _ in range(n)]
    dp[0][0] = float(grid[0, 0])
    for i in range(n):
        for j in range(m):
            if i == 0 and j == 0:
                continue
            up = dp[i - 1][j] if i > 0 else float("inf")
            left = dp[i][j - 1] if j > 0 else float("inf")
            dp[i][j] = min(up, left) + float(grid[i, j])
    return dp[-1][-1]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16])
def test_float_table_min_path(dtype):
    grid = (np.arange(30).reshape(6, 5) % 7).astype(dtype)
    _as_whiles(_min_path, grid)


def _subset_sum(x, target):
    n = len(x)
    dp = [[False] * (target + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        dp[i][0] = True
    for i in range(1, n + 1):
        for s in range(1, target + 1):
            dp[i][s] = dp[i - 1][s]
            if s >= x[i - 1] and dp[i - 1][s - x[i - 1]]:
                dp[i][s] = True
    return dp[n][target], dp[n][target - 1]


@pytest.mark.parametrize("target", [9, 8])
def test_bool_table_subset_sum(target):
    _same_anyway(_subset_sum, np.array([3, 34, 4, 2]), target)


def _knapsack(weights, values, capacity):
    dp = [0] * (capacity + 1)
    for k in range(len(weights)):
        w_k, v_k = int(weights[k]), int(values[k])
        for w in range(capacity, w_k - 1, -1):
            dp[w] = max(dp[w], dp[w - w_k] + v_k)
    return dp[capacity], dp


def test_flat_list_table_knapsack_with_runtime_bounds():
    _as_whiles(_knapsack, np.array([3, 4, 5, 2]), np.array([4, 5, 6, 3]), 9)


def _prefix_best(a):
    n = a.shape[0]
    dp = [0] * (n + 1)
    for i in range(1, n + 1):
        dp[i] = max(dp[i - 1], dp[i - 1] + int(a[i - 1]))
    return dp[n]


def test_flat_list_table_of_a_long_static_loop():
    _as_whiles(_prefix_best, np.arange(12) % 7 - 3)


def _rows_by_name(a):
    n = len(a)
    dp = [[0] * 6 for _ in range(6)]
    for i in range(1, 6):
        row, prev = dp[i], dp[i - 1]        # the rows themselves, not copies
        for j in range(6):
            row[j] = prev[j] + int(a[(i + j) % n])
    return dp[5][5], dp[3][4]


def test_a_row_bound_to_a_name_writes_into_the_table():
    _as_whiles(_rows_by_name, np.arange(7))


def _numpy_scalar_items(a):
    n = len(a)
    dp = [[np.int32(0)] * 6 for _ in range(6)]
    for i in range(1, 6):
        for j in range(1, 6):
            dp[i][j] = dp[i - 1][j] + a[(i * j) % n]
    return dp[5][5], dp[5][0]


def test_numpy_scalar_items_keep_their_dtype():
    _as_whiles(_numpy_scalar_items, np.arange(7, dtype=np.int32))


# --- tables that cannot be held stay exact (unrolled as before) -----------------------------

def _float_into_int_table(a):
    dp = [[0] * 6 for _ in range(6)]
    for i in range(1, 6):
        for j in range(1, 6):
            dp[i][j] = (dp[i - 1][j] + dp[i][j - 1]) * 0.5 + int(a[j % 3])
    return dp[5][5], dp[5][0], dp[1][1]


def _aliased_rows(a):
    dp = [[0] * 6] * 6           # one row, 6 times: Python's aliasing
    for i in range(1, 6):
        for j in range(1, 6):
            dp[i][j] = dp[i - 1][j - 1] + int(a[j % 3])
    return dp[5][5], dp[0]


def _row_reached_elsewhere(a):
    dp = [[0] * 6 for _ in range(6)]
    first = dp[1]
    for i in range(1, 6):
        for j in range(1, 6):
            dp[i][j] = dp[i - 1][j] + int(a[j % 3]) + first[j]
    return dp[5][5], first


def _table_in_a_tuple(a):
    dp = [[0] * 6 for _ in range(6)]
    both = (dp, 1)
    for i in range(1, 6):
        for j in range(1, 6):
            dp[i][j] = dp[i - 1][j] + int(a[j % 3]) + both[0][0][j]
    return both[0][5][5]


class _Keeper:
    __slots__ = ("row",)


def _row_in_a_slotted_object(a):
    dp = [[0] * 6 for _ in range(6)]
    keeper = _Keeper()
    keeper.row = dp[1]
    for i in range(1, 6):
        for j in range(1, 6):
            dp[i][j] = dp[i - 1][j] + int(a[j % 3]) + keeper.row[j]
    return dp[5][5], keeper.row


def _argument_table(a, dp):
    for i in range(1, 6):
        for j in range(1, 6):
            dp[i][j] = dp[i - 1][j] + int(a[j % 3])
    return dp[5][5]


@pytest.mark.parametrize("fn", [_float_into_int_table, _aliased_rows, _row_reached_elsewhere,
                                _table_in_a_tuple, _row_in_a_slotted_object])
def test_tables_that_cannot_be_held_stay_exact(fn):
    _same_anyway(fn, np.array([1, 2, 3]))


def test_a_table_passed_as_an_argument_is_written_back():
    _same_anyway(_argument_table, np.array([1, 2, 3]), [[0] * 6 for _ in range(6)])


def _row_read_past_the_end(a, k):
    dp = [[0] * 6 for _ in range(6)]
    for i in range(1, 6):
        for j in range(1, 6):
            dp[i][j] = dp[i - 1][j] + int(a[j % 3])
    total = 0
    for i in range(k):
        total += dp[i][0]
    return total, dp[5][5]


def test_a_read_past_the_end_raises_index_error_at_run_time():
    compiled = tpucc.compile(_row_read_past_the_end, cache=False, runtime_args=("k",),
                             unroll=SMALL_BUDGET)
    a = np.array([1, 2, 3])
    assert_same(_row_read_past_the_end(a, 6), compiled(a, 6))
    with pytest.raises(IndexError):
        _row_read_past_the_end(a, 7)
    with pytest.raises(IndexError):
        compiled(a, 7)
