"""Session 38e's fixes, each checked against eager NumPy or for its message."""
import warnings

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, count_hlo, hlo, raises_at, same_each


# --- recursion under runtime `if`s: a budget of inlined ops, not calls (recursion.py) -----

def _build(depth, idx=0):
    if depth == 0:
        return float(idx)
    return (idx % 3, 0.1 * (idx % 7) - 0.3, _build(depth - 1, 2 * idx + 1),
            _build(depth - 1, 2 * idx + 2))


_TREE = _build(7)


def _predict(node, x):
    if isinstance(node, float):
        return node
    f, t, left, right = node
    if x[f] < t:
        return _predict(left, x)
    return _predict(right, x)


def _tree(x):
    return _predict(_TREE, x)


def test_a_small_deep_tree_walk_compiles():
    # (254 calls of 3 ops under runtime `if`s: refused when the budget counted 100 calls)
    # (one compile for the three inputs: they differ in values only)
    same_each(_tree, *[(np.array(x),) for x in ([0.1, -0.2, 0.3], [-0.5, 0.4, 0.0],
                                                [0.3, 0.3, -0.3])])


# --- `2 ** k` of a counter bumped under a runtime `if` or in an inner loop (counters.py) --

def _bumped_in_if(x):
    k = 0
    i = 0
    while i < int(x[0]):
        if x[i % 4] > 0.5:
            k += 1
        i += 1
    return 2 ** k


def _reset_to_start(x):
    k = 0
    i = 0
    while i < int(x[0]):
        k += 1
        if k > 3:
            k = 0
        i += 1
    return 2 ** k


def _bumped_in_inner_loop(x):
    k = 0
    i = 0
    while i < int(x[0]):
        j = 0
        while j < i:
            k += 1
            j += 1
        i += 1
    return 2 ** k


@pytest.mark.parametrize("fn", [_bumped_in_if, _reset_to_start, _bumped_in_inner_loop])
def test_a_counter_counting_up_on_some_paths_keeps_its_sign(fn):
    # (one compile for the three inputs: they differ in values only)
    compiled = same_each(fn, *[(np.array(x),) for x in ([5.0, 0.7, 0.2, 0.9],
                                                        [0.0, 0.7, 0.2, 0.9],
                                                        [7.0, 0.1, 0.6, 0.9])])
    assert type(compiled(np.array([5.0, 0.7, 0.2, 0.9]))) is int


def test_a_counter_reset_below_its_start_in_a_branch_is_still_refused():
    def reset_below(x):
        k = 0
        i = 0
        while i < int(x[0]):
            k += 1
            if x[i % 4] > 0.5:
                k = -1
            i += 1
        return 2 ** k
    raises_at(reset_below, (np.array([5.0, 0.7, 0.2, 0.9]),), E.StaticValueError,
              match="depending on the exponent's sign", line_of="return 2 ** k")


# --- the array a runtime `if` kept, appended: the list's last item, a view (stacking.py) --

def _kept(us, d):
    x = np.zeros((2, 2))
    out = []
    for i in range(len(us)):
        if us[i] > 0.5:
            x = x + d[i]
        out.append(x)
    return out, x


def _args(n=100):
    rng = np.random.default_rng(3)
    return rng.uniform(size=n), rng.normal(size=n)


def test_updating_the_last_kept_item_names_the_append():
    def last_item(us, d):
        out, x = _kept(us, d)
        out[-1][0, 0] = 7.0
        return np.array(out)
    err = raises_at(last_item, _args(), E.SideEffectError,
                    match="a loop appended the array `x` held", line_of="out[-1][0, 0] = 7.0")
    assert ".append(x.copy())" in err.hint

    def update_x(us, d):        # (x after the loop is the list's last item)
        out, x = _kept(us, d)
        x[0, 0] = 7.0
        return np.array(out)
    err = raises_at(update_x, _args(), E.SideEffectError,
                    match="after the loop `x` is the list's last item", line_of="x[0, 0] = 7.0")
    assert "x = x.copy()" in err.hint and ".append(x.copy())" in err.hint

    def copied_x(us, d):        # the hint's fix for x
        out, x = _kept(us, d)
        x = x.copy()
        x[0, 0] = 7.0
        return np.array(out), x
    check(copied_x, *_args())


def _rows(us, d):
    x = np.zeros((2, 2))
    out = []
    for i in range(len(us)):
        if us[i] > 0.5:
            x = x + d[i]
        out.append(x[0])
    return np.array(out), out[0], out[-1], x


def test_appending_a_view_of_the_kept_array_is_one_while():
    # (was unrolled: 400 iterations, 36 s to compile)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)
        compiled = check(_rows, *_args(400))
    assert count_hlo(hlo(compiled, *_args(400)), "while") == 1


def test_updating_an_appended_view_of_the_kept_array_is_refused():
    def update_row(us, d):
        x = np.zeros((2, 2))
        out = []
        for i in range(len(us)):
            if us[i] > 0.5:
                x = x + d[i]
            out.append(x[0])
        out[3][0] = 7.0         # (NumPy: every row of the kept array that is x[0] changes)
        return np.array(out)
    err = raises_at(update_row, _args(), E.SideEffectError,
                    match="a loop appended a view of the array `x` held",
                    line_of="out[3][0] = 7.0")
    assert ".append(x[0].copy())" in err.hint

    def copied_rows(us, d):     # the hint's fix
        x = np.zeros((2, 2))
        out = []
        for i in range(len(us)):
            if us[i] > 0.5:
                x = x + d[i]
            out.append(x[0].copy())
        out[3][0] = 7.0
        return np.array(out)
    check(copied_rows, *_args())
