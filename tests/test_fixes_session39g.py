"""Session 39g's fixes, each checked against eager NumPy or for its message."""
import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


# --- a view of a view of an argument is returned as NumPy's view (infer._input_alias) ----------

def _tail_every_other(a):
    return a[1:][::2]


def _every_other_tail(a):
    return a[::2][1:]


def _transposed_twice(a):
    return a.T.T


def _column_tail(a):
    return a[:, 0][1:]


def _reshaped_column(a):
    return a.reshape(3, 2)[:, 1]


def _named_view_viewed(a):
    v = a[1:]
    v += 1.0
    return v[1:], v


G = np.arange(6.0)


def _global_view_of_view(a):
    return a + G[1:][::2].sum(), G[1:][::2]


def _writes_through(results, *arrays):
    for r in results if isinstance(results, tuple) else (results,):
        r[...] = -1.0
    return [a.copy() for a in arrays]


@pytest.mark.parametrize("fn, shape", [(_tail_every_other, (6,)), (_every_other_tail, (6,)),
                                       (_transposed_twice, (2, 3)), (_column_tail, (3, 2)),
                                       (_reshaped_column, (6,)), (_named_view_viewed, (6,))])
def test_a_view_of_a_view_of_an_argument_is_the_callers_view(fn, shape):
    # (was a new array: writes into it did not reach the caller's array)
    eager_arg, compiled_arg = np.arange(6.0).reshape(shape), np.arange(6.0).reshape(shape)
    compiled = check(fn, np.arange(6.0).reshape(shape))
    expected = _writes_through(fn(eager_arg), eager_arg)
    actual = _writes_through(compiled(compiled_arg), compiled_arg)
    np.testing.assert_array_equal(actual, expected)


def test_a_view_of_a_view_of_a_global_is_the_globals_view():
    result = tpucc.compile(_global_view_of_view)(np.zeros(1))[1]
    assert np.shares_memory(result, G)
    np.testing.assert_array_equal(result, np.arange(6.0)[1:][::2])
