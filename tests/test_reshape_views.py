"""reshape, ravel, expand_dims and squeeze give views as NumPy does: a write
through the result changes the array it was made from, and the result sees
later writes to that array.  NumPy copies instead when the source is not
C-contiguous (a transpose, a column slice), and flatten always copies:
there a write must not go through.  Each program runs eagerly and compiled
on copies of the same arguments (conftest.check compares results and the
arguments' final contents)."""
import numpy as np
import pytest

import tpucc
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


# Arguments that are not C-contiguous: NumPy's reshape copies a transposed
# array, and copies or views a strided one depending on its strides; tpucc
# asks NumPy about the array passed, and re-checks the layout at each call
# (a different layout recompiles).  Each argument is made twice, as copying
# a strided view would make it contiguous.
LAYOUTS = {
    "C-contiguous": lambda: np.arange(12.0).reshape(2, 6)[:, :3].copy(),
    "transposed (copies)": lambda: np.arange(6.0).reshape(3, 2).T,
    "every other column (a view)": lambda: np.arange(12.0).reshape(2, 6)[:, ::2],
    "a column slice (copies)": lambda: np.arange(8.0).reshape(2, 4)[:, 1:],
}


def _check_fresh(fn, make, compiled=None):
    eager, passed = make(), make()
    expected = fn(eager)
    compiled = compiled or tpucc.compile(fn, cache=False)
    actual = compiled(passed)
    np.testing.assert_array_equal(actual, expected)
    np.testing.assert_array_equal(passed, eager)            # written back as NumPy did
    return compiled


def reshape_written_then_read(x):
    flat = x.reshape(-1)
    flat[0] = 100.0
    x[1, 2] = -1.0
    return flat * 1.0


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("fn", [write_through_reshape, update_through_ravel,
                                reshape_written_then_read], ids=lambda f: f.__name__)
def test_arguments_in_any_memory_layout(fn, layout):
    _check_fresh(fn, LAYOUTS[layout])


def test_a_new_layout_recompiles():
    compiled = tpucc.compile(reshape_written_then_read, cache=False)
    for name in sorted(LAYOUTS) * 2:
        _check_fresh(reshape_written_then_read, LAYOUTS[name], compiled)
    assert len(compiled._cache) == 1


class Holder:
    def __init__(self, w):
        self.w = w

    def bump(self):
        self.w.reshape(-1)[1] += 10.0
        return self.w.sum()


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_captured_arrays_in_any_memory_layout(layout):
    eager, compiled = Holder(LAYOUTS[layout]()), Holder(LAYOUTS[layout]())
    step = tpucc.compile(compiled.bump, cache=False)
    for _ in range(2):
        assert step() == eager.bump()
        np.testing.assert_array_equal(compiled.w, eager.w)


def zero_d_views(x):
    a = np.array(x[0, 0])           # a 0-d array (not a NumPy scalar)
    t, r, e = a.T, a.reshape(()), a.reshape(1)
    a[...] = 5.0                    # seen through every view
    e[0] += 1.0                     # and written through one
    return t, r, e, a, np.float64(x[1, 1]).T


def test_views_of_a_zero_d_array_see_its_writes():
    check(zero_d_views, np.arange(6.0).reshape(2, 3))
