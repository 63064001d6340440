"""Bugs from sweeps 37b, 37c and 37d, fixed in session 37b.

PYTEST_DONT_REWRITE: compiled functions here use `assert`, which pytest
would rewrite into calls of its own.
"""
import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


def test_chained_comparison_assert_is_a_runtime_check():
    # `0 <= a < n` fails through a POP_TOP block (0 <= a false) and a JUMP
    # block (a < n false): both lead to the raise, which becomes a check
    def act(a, n):
        assert 0 <= a < n, f"invalid action {a}"   # <- here
        return a * 2

    def act_nomsg(a, n):
        assert 0 <= a < n
        return a * 2

    def act_raise(a, n):
        if not (0 <= a < n):
            raise ValueError(f"invalid action {a}")
        return a * 2
    for f in (act, act_nomsg, act_raise):
        check(f, np.int64(2), 4)
    for a in (-1, 7):
        raises_at(act, (np.int64(a), 4), AssertionError, f"invalid action {a}",
                  line_of="<- here")
    with pytest.raises(AssertionError):
        tpucc.compile(act_nomsg)(np.int64(4), 4)
    with pytest.raises(ValueError, match="invalid action -3"):
        tpucc.compile(act_raise)(np.int64(-3), 4)
