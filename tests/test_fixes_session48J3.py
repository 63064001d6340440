"""Fixes from sweep 48J (bug_07): a list of lists of numbers indexed at a
runtime position (`T[leap][m - 1]` of a month table) was refused (E400)
where the same table as a tuple of tuples compiled.  The row is picked as
a copy; what would make the copy differ from Python's row is refused."""
import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each


# --- the month table: a list of lists, as the tuple of tuples -------------------------------

def month_length(y, m):
    T = [[31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
         [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]]
    return T[int(y % 4 == 0)][m - 1]


def month_length_by_row(y, m):
    T = [[31, 28, 31, 30], [31, 29, 31, 30]]
    row = T[int(y % 4 == 0)]
    return row[m - 1], len(row), sum(row), row[-1]


def test_month_table_as_a_list_of_lists_compiles():
    same_each(month_length, (np.int64(2024), np.int64(2)), (np.int64(2023), np.int64(2)),
              (np.int64(2000), np.int64(12)), (np.int64(1999), np.int64(1)))


def test_a_row_taken_at_a_runtime_position_reads_as_the_list():
    same_each(month_length_by_row, (np.int64(2024), np.int64(2)),
              (np.int64(2023), np.int64(4)))


# --- other kinds of numbers and spellings --------------------------------------------------

GRID = [[1.5, 2.5, 3.5], [4.5, 5.5, 6.5], [7.5, 8.5, 9.5]]


def global_float_table(i, j):
    return GRID[i][j]


def numpy_scalar_table(i, j):
    T = [[np.float32(1), np.float32(2)], [np.float32(3), np.float32(4)]]
    return T[i][j] * 2


def int32_scalar_table(i):
    T = [[np.int32(7), np.int32(-3)], [np.int32(5), np.int32(9)]]
    return T[i][1] + T[i][0]


def negative_position(i):
    T = [[1, 2], [3, 4], [5, 6]]
    return T[-i][0]


def tuple_of_lists(i, j):
    T = ([1, 2], [3, 4])
    return T[i][j]


def runtime_numbers_table(a, i):
    T = [[a[0], a[1]], [a[2], a[3]]]
    return T[i][1] * 2


def inside_a_runtime_if(x, i):
    T = [[1.0, 2.0], [3.0, 4.0]]
    if x > 0:
        v = T[i][1]
    else:
        v = -1.0
    return v


@pytest.mark.parametrize("fn, arg_tuples", [
    (global_float_table, [(np.int64(1), np.int64(2)), (np.int64(2), np.int64(0))]),
    (numpy_scalar_table, [(np.int64(1), np.int64(0)), (np.int64(0), np.int64(1))]),
    (int32_scalar_table, [(np.int64(0),), (np.int64(1),)]),
    (negative_position, [(np.int64(1),), (np.int64(3),)]),
    (tuple_of_lists, [(np.int64(1), np.int64(0)), (np.int64(0), np.int64(1))]),
    (runtime_numbers_table, [(np.arange(4.0), np.int64(1)),
                             (np.arange(4.0) * 3, np.int64(0))]),
    (inside_a_runtime_if, [(np.float64(1.0), np.int64(1)), (np.float64(-1.0), np.int64(0))]),
])
def test_number_tables_of_other_kinds(fn, arg_tuples):
    same_each(fn, *arg_tuples)


def leap_days_in_a_while(y, n):
    T = [[31, 28, 31, 30], [31, 29, 31, 30]]
    s = 0
    k = 0
    while k < n:
        s += T[int((y + k) % 4 == 0)][k % 4]
        k += 1
    return s


def leap_days_in_a_for(y, n):
    T = [[31, 28, 31, 30], [31, 29, 31, 30]]
    s = 0
    for k in range(n):
        s += T[int((y + k) % 4 == 0)][k % 4]
    return s


@pytest.mark.parametrize("fn", [leap_days_in_a_while, leap_days_in_a_for])
def test_the_table_read_in_a_runtime_loop(fn):
    same_each(fn, (np.int64(2023), np.int64(7)), (np.int64(2024), np.int64(0)))


# --- what a copy would get wrong is refused; what it would not, compiles ---------------------

def change_the_picked_row(i):
    T = [[1, 2], [3, 4]]
    r = T[i]
    r[0] = 9
    return T[0][0]


def change_a_row_while_the_copy_is_held(i):
    T = [[1, 2], [3, 4]]
    r = T[i]
    T[0][0] = 9
    return r[0]


def append_to_a_row_while_the_copy_is_held(i):
    T = [[1, 2], [3, 4]]
    keep = [T[i]]
    T[1].append(7)
    return len(keep[0])


def test_changing_the_picked_row_is_refused():
    raises_at(change_the_picked_row, (np.int64(0),), tpucc.SideEffectError,
              match="chosen at run time", line_of="r[0] = 9", cache=False)


@pytest.mark.parametrize("fn, line", [
    (change_a_row_while_the_copy_is_held, "T[0][0] = 9"),
    (append_to_a_row_while_the_copy_is_held, "T[1].append(7)")])
def test_changing_a_row_while_its_copy_is_in_use_is_refused(fn, line):
    err = raises_at(fn, (np.int64(0),), tpucc.SideEffectError,
                    match="changing a row of a table of lists or dicts while a copy of it", line_of=line,
                    cache=False)
    assert "np.array(T)" in err.hint


def change_after_reading_an_item(i, j):
    T = [[1, 2], [3, 4]]
    v = T[i][j]         # (the row's copy is read at once and dropped)
    T[1][1] = 9
    T[0].append(5)
    T[1].append(6)
    return v, T[i][j], T[i][2], len(T[0])


def change_before_reading(i):
    T = [[1, 2], [3, 4]]
    T[1][1] = 40
    return T[i][1]


def test_a_table_changed_before_or_after_an_item_read_compiles():
    same_each(change_after_reading_an_item, (np.int64(1), np.int64(1)),
              (np.int64(0), np.int64(0)))
    same_each(change_before_reading, (np.int64(1),), (np.int64(0),))


def lcs_lists(a, b):
    n, m = len(a), len(b)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp[n][m]


def test_a_dp_table_a_loop_writes_is_still_held_as_one_array():
    # (a runtime loop holds the table, rows read and written in place; a picked
    # copy would refuse the writes)
    rng = np.random.default_rng(0)
    same(lcs_lists, rng.integers(0, 4, 40), rng.integers(0, 4, 45))
