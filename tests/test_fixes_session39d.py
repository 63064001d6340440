"""Session 39d's fixes, each checked against eager NumPy or for its message."""
import itertools

import numpy as np
import pytest

from tpucc import errors as E
from conftest import check, count_hlo, hlo, raises_at


# --- a loop over static numbers past the budget is one counted While ------------------------

def _sweep_ndindex(u):
    for i, j in np.ndindex(u.shape[0] - 2, u.shape[1] - 2):
        u[i + 1, j + 1] = 0.25 * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2])
    return u


def _sweep_product(u):
    for i, j in itertools.product(range(u.shape[0] - 2), range(u.shape[1] - 2)):
        u[i + 1, j + 1] = 0.25 * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2])
    return u


def _sweep_pairs(u):
    pairs = [(i, j) for i in range(u.shape[0] - 2) for j in range(u.shape[1] - 2)]
    for i, j in pairs:
        u[i + 1, j + 1] = 0.25 * (u[i, j + 1] + u[i + 2, j + 1] + u[i + 1, j] + u[i + 1, j + 2])
    return u, i, j          # (the last pair itself, Python ints, as eagerly)


@pytest.mark.parametrize("sweep", [_sweep_ndindex, _sweep_product, _sweep_pairs])
def test_a_pointwise_sweep_over_static_index_pairs_is_one_while(sweep):
    """100 pairs were 100 unrolled copies of the body (20-35 s of XLA at
    12 x 12); as nested range loops, they are one counted While."""
    u = np.random.default_rng(0).random((12, 12))
    compiled = check(sweep, u)
    assert count_hlo(hlo(compiled, u), "while") == 1


def _sums_numbers(x):
    s = 0
    for i, j in np.ndindex(10, 10):
        s += i * j
    return x[:s % 7], s


def _count_used_as_a_shape(x):
    n = 0
    for i, j in np.ndindex(10, 10):
        n += 1
        x = x + i * j
    return np.zeros(n), x


def _numbers_as_shapes(x):
    out = []
    for i, j in np.ndindex(6, 7):
        out.append(np.ones((i + 1, j + 1)).sum() * x.sum())
    return out


@pytest.mark.parametrize("program", [_sums_numbers, _count_used_as_a_shape,
                                     _numbers_as_shapes])
def test_a_loop_needing_its_numbers_at_compile_time_is_still_unrolled(program):
    """As a range loop: numbers only (their sum a slice bound), a count a
    later line needs as a shape, the items as shapes in the body."""
    check(program, np.arange(5.0))


# --- E300 for a loop that changes a variable's structure names it ---------------------------

def _rebinds_a_longer_tuple(x, tol):
    shape = (1,)
    while x.sum() > tol:
        x = x * 0.5
        shape = x.shape + (1,)
    return x, shape


def _grows_an_inner_tuple(x, tol):
    s = (x, ())
    while x.sum() > tol:
        x = x * 0.5
        s = (x, s[1] + (1,))
    return x, s


def _branches_give_lists_of_other_lengths(x):
    d = {"a": x, "b": [x]}
    if x.sum() > 0:
        d = {"a": x, "b": [x, x]}
    return d


def test_a_loop_changing_a_structure_names_the_variable_and_both_structures():
    raises_at(_rebinds_a_longer_tuple, (np.ones(3), 0.1), E.MergeError,
              r"changes the structure of `shape`: a tuple of 1 item before it, "
              r"a tuple of 2 items after it", line_of="while")
    raises_at(_grows_an_inner_tuple, (np.ones(3), 0.1), E.MergeError,
              r"changes the structure of `s\[1\]`: a tuple of 0 items before it, "
              r"a tuple of 1 item after it", line_of="while")


def test_branches_giving_a_structure_name_the_innermost_item_that_differs():
    raises_at(_branches_give_lists_of_other_lengths, (np.ones(3),), E.MergeError,
              r"give `d\['b'\]` different structures: a list of (2 items and a list of 1 item|"
              r"1 item and a list of 2 items)", line_of="if x.sum()")
