"""Session 39d's fixes, each checked against eager NumPy or for its message."""
import numpy as np
import pytest

from tpucc import errors as E
from conftest import check, count_hlo, hlo, raises_at


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
