"""Session 39h's fixes, each checked against eager NumPy/Python."""
import numpy as np
import pytest

import tpucc
from conftest import check


# --- Python int floor division of runtime ints past int64: -2**63 // -1 ----------------------

def _floor_divided(x):
    return int(x[0]) // int(x[1])


def _divmod_of(x):
    return divmod(int(x[0]), int(x[1]))


def _divided_by_minus_one(x):
    return int(x[0]) // -1


def _minimum_divided(x):
    return -2**63 // int(x[1])


@pytest.mark.parametrize("fn", [_floor_divided, _divmod_of, _divided_by_minus_one,
                                _minimum_divided])
@pytest.mark.parametrize("pair", [(7, -2), (-2**63 + 1, 3), (2**63 - 1, 2)])
def test_python_int_floor_division_within_int64_is_exact(fn, pair):
    check(fn, np.array(pair, np.int64))


def test_minus_two_to_the_63_divided_by_another_int_is_exact():
    for pair in [(-2**63, 1), (-2**63, -2), (2**62, -1)]:
        check(_floor_divided, np.array(pair, np.int64))
        check(_divmod_of, np.array(pair, np.int64))


@pytest.mark.parametrize("fn", [_floor_divided, _divmod_of, _divided_by_minus_one,
                                _minimum_divided])
def test_python_int_floor_division_past_int64_raises_overflow_error(fn):
    """-2**63 // -1 is 2**63 in Python: int64 wrapped it to -2**63 silently."""
    with pytest.raises(OverflowError, match=r"past int64 \(//\)"):
        tpucc.compile(fn)(np.array([-2**63, -1], np.int64))
