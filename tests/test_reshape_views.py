"""reshape, ravel, expand_dims and squeeze give views as NumPy does: a write
through the result changes the array it was made from, and the result sees
later writes to that array.  NumPy copies instead when the source is not
C-contiguous (a transpose, a column slice), and flatten always copies:
there a write must not go through.  Each program runs eagerly and compiled
on copies of the same arguments (conftest.check compares results and the
arguments' final contents)."""
import numpy as np
import pytest

from conftest import check


def write_through_reshape(x):
    y = x.reshape(-1)
    y[0] = 5.0
    return x.sum()


def update_through_ravel(x):
    r = x.ravel()
    r[1:3] += 1.0
    return x


def reshape_sees_later_writes(x):
    y = x.reshape(2, 3)
    x[0, 0] = 7.0
    return y


def flatten_copies(x):
    f = x.flatten()
    f[0] = 9.0
    return f


def reshape_of_a_transpose_copies(x):
    t = x.T.reshape(-1)
    t[0] = 9.0
    return t


def reshape_of_a_column_slice_copies(x):
    c = x[:, 1:].reshape(-1)
    c[0] = 9.0
    return c


def reshape_of_a_row_slice_is_a_view(x):
    r = x[1:].reshape(-1)
    r[0] = 9.0
    return r


def expand_dims_and_squeeze_are_views(x):
    e = np.expand_dims(x, 0)
    e[0, 1, 0] = 4.0
    s = e.squeeze(0)
    s[2, 1] = -1.0
    return e.shape, s


def view_of_a_view(x):
    rows = x.reshape(3, 2)[1:]          # a slice of a reshape: still x's memory
    rows.reshape(-1)[:] = 0.0
    return x


def updates_in_a_runtime_loop(x, n):
    flat = x.reshape(-1)
    for i in range(n):
        flat[i] += i
    return x


def reshape_under_a_runtime_branch(x, flag):
    if flag > 0:
        y = x.reshape(-1)
        y *= 2.0
    return x


PROGRAMS = [write_through_reshape, update_through_ravel, reshape_sees_later_writes,
            flatten_copies, reshape_of_a_transpose_copies, reshape_of_a_column_slice_copies,
            reshape_of_a_row_slice_is_a_view, expand_dims_and_squeeze_are_views, view_of_a_view]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_reshape_views_as_numpy(fn):
    check(fn, np.arange(6.0).reshape(3, 2))


def test_views_under_runtime_control_flow():
    for n in (0, 4, 6):
        check(updates_in_a_runtime_loop, np.arange(6.0).reshape(2, 3), np.int64(n))
    for flag in (-1, 1):
        check(reshape_under_a_runtime_branch, np.arange(6.0).reshape(2, 3), np.int64(flag))
