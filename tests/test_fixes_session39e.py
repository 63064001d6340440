"""Session 39e's fixes, each checked against eager NumPy/Python."""
import numpy as np
import pytest

from conftest import check

# --- a runtime `return` from loops over tuples nested with range loops ---------------------
# (winner checks: "for each player / direction, scan the board, return the first hit")

DIRECTIONS = [(0, 1), (1, 0)]


def _return_in_inner_tuple_loop(board):
    for r in range(2):
        for d in (0, 1):
            if board[r, d] == 1:
                return 1
    return 0


def _return_in_inner_list_of_pairs(board):
    for r in range(2):
        for dr, dc in DIRECTIONS:
            if board[r + dr, dc] == 1:
                return r
    return -1


def _return_in_inner_enumerate(board):
    for r in range(2):
        for k, d in enumerate((0, 1)):
            if board[r, d] == 1:
                return k
    return -1


def _return_under_outer_tuple_loop(board):
    for p in (1, 2):
        for r in range(2):
            if board[r, 0] == p:
                return p
    return 0


def _return_under_outer_zip(board):
    for p, c in zip((1, 2), (0, 1)):
        for r in range(board.shape[0]):     # (a runtime-length loop: one While)
            if board[r, c] == p:
                return p
    return -1


def _return_in_three_nested_loops(board):
    for p in [1, 2]:
        for r in range(2):
            for c in (0, 1):
                if board[r, c] == p:
                    return p * 10 + c
    return 0


BOARDS = [np.eye(3, dtype=np.int8), np.zeros((3, 3), np.int8),
          np.array([[0, 0, 0], [2, 0, 0], [0, 0, 0]], np.int8),
          np.array([[0, 1, 0], [0, 2, 0], [1, 0, 0]], np.int8)]


@pytest.mark.parametrize("fn", [_return_in_inner_tuple_loop, _return_in_inner_list_of_pairs,
                                _return_in_inner_enumerate, _return_under_outer_tuple_loop,
                                _return_under_outer_zip, _return_in_three_nested_loops])
@pytest.mark.parametrize("board", range(len(BOARDS)))
def test_runtime_return_from_nested_loops_over_tuples_and_ranges(fn, board):
    check(fn, BOARDS[board])


# --- NumPy's warnings while folding static values: at the program's line ----------------------

def _lcg(s):
    return s * np.uint32(1664525) + np.uint32(1013904223)      # overflows: a RuntimeWarning


def _lcg_steps(b, seed):
    s = _lcg(np.uint32(seed))
    return b + s % np.uint32(4)


def test_compile_time_numpy_warning_is_shown_at_the_programs_line():
    import inspect
    import warnings
    b = np.zeros(3, np.uint32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(_lcg_steps, b, 4000000000)
    lines, start = inspect.getsourcelines(_lcg)
    at = {(w.filename, w.lineno) for w in caught if issubclass(w.category, RuntimeWarning)}
    assert at == {(__file__, start + 1)}, at


def test_compile_time_numpy_warning_made_an_error_is_the_programs_error():
    import warnings
    import tpucc
    from tpucc import errors as E
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(E.UserCodeError, match="overflow") as info:
            tpucc.compile(_lcg_steps, cache=False)(np.zeros(3, np.uint32), 4000000000)
    assert info.value.loc.line == _lcg.__code__.co_firstlineno + 1


# --- a window of the outer loop's counter inside an inner loop: both loops stay Whiles --------

def _column_sums_of_windows(m):
    k = np.array([1, 2, 1])
    p = np.pad(m, 1)
    out = np.zeros_like(m)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            out[i, j] = (p[i:i + 3, j + 1] * k).sum()     # i: the outer counter
    return out


def test_outer_counters_window_inside_an_inner_loop_keeps_both_loops_whiles():
    import warnings
    from conftest import count_hlo, hlo
    m = np.arange(40 * 40).reshape(40, 40)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # (no UnrollWarning: nothing unrolled)
        compiled = check(_column_sums_of_windows, m)
    assert count_hlo(hlo(compiled, m), "while") == 2


def _outer_counter_changed_inside(m):
    out = np.zeros(m.shape[0], m.dtype)
    for i in range(m.shape[0] - 2):
        for j in range(m.shape[1]):
            if m[i, j] > 100:
                i = i + 1                       # no longer the range it entered with
        out[i] += m[i:i + 2, 0].sum()
    return out


def test_outer_counter_rebound_inside_an_inner_loop_is_still_exact():
    check(_outer_counter_changed_inside, np.arange(40 * 40).reshape(40, 40) % 150)
