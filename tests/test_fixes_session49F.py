"""Session 49F: a variable that runtime `if`s leave a Python int on some paths,
a Python float on others and a NumPy float on others (`v = 1`, then `v = 2.5`
or `v = x[1]`) came back as a float where eager Python keeps the int (1.0 for
1): compiled code holds the Python numbers of a NumPy float slot by one bool,
as one type, so such a merge is refused now (E300, at the merge's line, with a
hint), in an `if` chain and in an unrolled loop alike."""
import numpy as np
import pytest

import tpucc
from conftest import raises_at, same_each


def int_float_then_numpy(x):
    v = 1
    if x[0] > 0:
        v = 2.5
    if x[1] > 0:
        v = x[1]
    return v


def int_numpy_then_float(x):
    v = 1
    if x[1] > 0:
        v = x[1]
    elif x[0] > 0:
        v = 2.5
    return v


def float_int_numpy_chain(x):
    v = 1.5
    if x[0] > 0:
        v = 2
    elif x[1] > 0:
        v = x[1]
    return v


def three_kinds_in_a_loop(x):
    v = 1
    for i in range(len(x)):
        if x[i] > 0:
            v = 2.5
        elif x[i] < -5:
            v = x[i]
    return v


@pytest.mark.parametrize("fn, line_of", [(int_float_then_numpy, "if x[1] > 0"),
                                         (int_numpy_then_float, "if x[1] > 0"),
                                         (float_int_numpy_chain, "if x[0] > 0"),
                                         (three_kinds_in_a_loop, "if x[i] > 0")])
def test_int_float_and_numpy_float_in_one_variable_is_refused(fn, line_of):
    raises_at(fn, (np.array([-1.0, -2.0, -3.0]),), tpucc.TpuccError,
              match=r"E300.*Python int.*Python float.*NumPy float64", line_of=line_of, cache=False)
