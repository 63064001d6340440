"""Fixes from sweep 45A (array reshaping and restructuring): einsum's Python
number operands and 0-d results; reshape's copy=; np.roll by a runtime int64
shift past int32's range; expand_dims/squeeze/tile given NumPy integers and
integer arrays; integer arrays known at compile time as transpose axes, roll
shifts and axes, einsum sublists."""
import numpy as np
import pytest

import tpucc
from conftest import raises_at


def _compiled(f):
    return tpucc.compile(f, cache=False)


def _same(expected, got):
    """Values, dtypes and Python types alike, item by item of a tuple."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for e, g in zip(expected, got):
            _same(e, g)
        return
    assert type(got) is type(expected), (type(got), type(expected))
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    assert np.asarray(got).shape == np.asarray(expected).shape
    np.testing.assert_array_equal(got, expected)


def _check(f, *args):
    _same(f(*args), _compiled(f)(*args))


# --- bug_02: einsum reads a Python number with asarray, not as a weak scalar ------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint8, np.int32])
def test_einsum_python_number_operand_is_a_strong_array(dtype):
    a = np.arange(1, 5, dtype=dtype).reshape(2, 2)
    _check(lambda a, s: (np.einsum(",ij->ij", s, a), np.einsum("ij,->", a, s)), a, 3.0)
    _check(lambda a: np.einsum("ij,->ij", a, 2), a)
    _check(lambda a: np.einsum("ij,->i", a, True), a)


def test_einsum_python_number_operand_with_dtype_and_complex():
    a = np.ones(3, np.float32)
    _check(lambda a: np.einsum("i,->i", a, 2.5, dtype=np.float32, casting="same_kind"), a)
    f = lambda a: np.einsum("i,->i", a, 2.5, dtype=np.float32)     # noqa: E731
    with pytest.raises(TypeError):      # float64 to float32 is not a 'safe' cast
        f(a)
    raises_at(f, (a,), TypeError, match="cannot cast", line_of="np.einsum", cache=False)
    _check(lambda a: np.einsum("i,->i", a, 1j), a)


def test_einsum_runtime_python_number_argument_is_strong():
    f = lambda a, s: np.einsum("i,->i", a, s)   # noqa: E731
    a = np.arange(3, dtype=np.float32)
    got = tpucc.compile(f, cache=False, runtime_args=("s",))(a, 2.0)
    _same(f(a, 2.0), got)


# --- bug_10: a 0-d result of one operand is a NumPy scalar ---------------------------------

@pytest.mark.parametrize("s", [np.float32(2.5), np.array(2.5), np.array(7, np.int16),
                               np.complex64(1 + 2j)])
@pytest.mark.parametrize("spec", ["->", "", "...", "...->..."])
def test_einsum_of_one_0d_operand_is_a_scalar(s, spec):
    _check(lambda s: np.einsum(spec, s), s)


def test_einsum_of_a_python_number_alone_is_a_scalar():
    _check(lambda x: np.einsum("->", 1.5) + x, np.float32(1))


def test_einsum_views_of_one_operand_still_write_through():
    def f(x):
        v = np.einsum("ij->ji", x)
        v[0, 1] = -1.0
        d = np.einsum("ii->i", x)
        d[0] = 5.0
        return x
    x = np.arange(4.0).reshape(2, 2)
    _same(f(x.copy()), _compiled(f)(x.copy()))


# --- bug_04: reshape's copy= ------------------------------------------------------------

def _run_both(f, x):
    """f on a copy of x eagerly and compiled: (results, the argument after)."""
    a, b = x.copy(), x.copy()
    return (f(a), a), (_compiled(f)(b), b)


@pytest.mark.parametrize("f", [
    lambda x: x.reshape(-1, copy=True),
    lambda x: np.reshape(x, (2, -1), copy=True),
    lambda x: x.T.reshape((x.size,), order="F", copy=True),
    lambda x: np.reshape(x, x.shape, copy=True),
])
def test_reshape_copy_true_is_a_copy(f):
    def g(x):
        v = f(x)
        v.flat[0] = 9
        return v
    for x in (np.arange(4.0), np.arange(6, dtype=np.int32).reshape(2, 3)):
        (e, ex), (c, cx) = _run_both(g, x)
        _same(e, c)
        _same(ex, cx)       # the argument untouched


@pytest.mark.parametrize("f", [
    lambda x: x.reshape(-1, copy=False),
    lambda x: np.reshape(x, (-1, 1), copy=False),
    lambda x: x.T.reshape((x.size,), order="F", copy=False),
    lambda x: x[:, ::2].reshape(-1, copy=False),
    lambda x: x.reshape(x.shape[::-1], copy=None),
])
def test_reshape_copy_false_is_a_view_where_one_exists(f):
    def g(x):
        v = f(x)
        v.flat[1] = -3
        return v
    (e, ex), (c, cx) = _run_both(g, np.arange(12.0).reshape(3, 4))
    _same(e, c)
    _same(ex, cx)       # the write reached the argument, as NumPy's


@pytest.mark.parametrize("f", [
    lambda x: np.reshape(x.T, (12,), copy=False),
    lambda x: x.T.reshape(-1, copy=False),
    lambda x: x[:, ::-1].reshape(6, 2, copy=False),
    lambda x: x.reshape(12, order="F", copy=False),
])
def test_reshape_copy_false_where_a_copy_is_needed_raises(f):
    x = np.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="Unable to avoid creating a copy"):
        f(x)
    raises_at(f, (x,), ValueError, match="Unable to avoid creating a copy while reshaping",
              line_of="lambda x", cache=False)


# --- bug_05: np.roll by a runtime shift beyond int32 ------------------------------------

@pytest.mark.parametrize("k", [2**31, 2**31 - 1, -2**31 - 1, 2**62 + 5, -2**62, 2**63 - 1,
                               -2**63, 7, -3, 0])
def test_roll_by_a_runtime_int64_shift(k):
    x = np.arange(5)
    k = np.int64(k)
    _check(lambda x, k: np.roll(x, k), x, k)
    if k != -2**63:     # (-k overflows)
        _check(lambda x, k: np.roll(x, -k)[:2], x, k)


def test_roll_by_large_runtime_shifts_along_axes():
    x = np.arange(24.0).reshape(4, 6)
    _check(lambda x, k: np.roll(x, k, axis=1), x, np.int64(2**40 + 3))
    _check(lambda x, k: np.roll(x, k, axis=(0, 1)), x, np.int64(-(2**33) - 1))
    _check(lambda x, k: np.roll(x, k, axis=-1), x.astype(np.float32), np.uint64(2**63 + 1))


def test_roll_by_a_runtime_array_of_shifts():
    x = np.arange(24.0).reshape(4, 6)
    _check(lambda x, k: np.roll(x, k, axis=(0, 1)), x, np.array([5, 2**33 + 1]))
    _check(lambda x, k: np.roll(x, k, axis=(1, 1)), x, np.array([2, -1], np.int32))


def test_roll_by_a_two_dimensional_shift_raises_as_numpy():
    x = np.arange(6.0).reshape(2, 3)

    def f(x):
        return np.roll(x, np.array([[1]]), axis=0)
    with pytest.raises(ValueError):
        f(x)
    raises_at(f, (x,), ValueError, match="scalars or 1D sequences", line_of="np.roll",
              cache=False)


# --- bug_15 and bug_13: expand_dims / squeeze / tile axes and counts -------------------

@pytest.mark.parametrize("f", [
    lambda x: np.expand_dims(x, np.array([0, 2])),
    lambda x: np.expand_dims(x, np.array([1])),
    lambda x: np.squeeze(x[None], np.array([0])),
    lambda x: x[None, :, None].squeeze(np.array([0, 2])),
])
def test_expand_dims_and_squeeze_refuse_an_integer_array_axis(f):
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError, match="only integer scalar arrays"):
        f(x)
    raises_at(f, (x,), TypeError, match="only integer scalar arrays", line_of="lambda x",
              cache=False)


# (made inside the function: an array read from a closure is a runtime input)
@pytest.mark.parametrize("axis", [lambda: np.int64(0), lambda: np.int32(-1), lambda: np.uint8(1),
                                  lambda: np.array(0), lambda: np.argmax(np.array([0, 5])),
                                  lambda: (np.int64(0), 2)])
def test_expand_dims_and_squeeze_with_numpy_integer_axes(axis):
    x = np.arange(3.0)
    _check(lambda x: np.expand_dims(x, axis()), x)
    _check(lambda x: np.squeeze(np.expand_dims(x, axis()), axis()), x)
    _check(lambda x: np.expand_dims(x, [np.int16(1)]), x)


@pytest.mark.parametrize("reps", [lambda: np.int64(3), lambda: np.int32(2), lambda: np.uint8(0),
                                  lambda: np.array(2), lambda: (np.int64(2), 1),
                                  lambda: np.array([2, 2]), lambda: np.array([3])])
def test_tile_with_numpy_integer_reps(reps):
    for x in (np.arange(3.0), np.arange(6, dtype=np.int16).reshape(2, 3)):
        _check(lambda x: np.tile(x, reps()), x)


def test_tile_with_reps_computed_at_compile_time():
    _check(lambda x: np.tile(x, np.ceil(7 / x.size).astype(int)), np.arange(3.0))
    _check(lambda x: np.tile(x, (np.int64(x.shape[0]) // 1, 2)), np.arange(4, dtype=np.uint8))


def test_tile_with_runtime_reps_is_refused_naming_reps():
    raises_at(lambda x, n: np.tile(x, n), (np.arange(3.0), np.int64(2)), tpucc.StaticValueError,
              match="reps", line_of="np.tile", cache=False)


# --- bug_14: integer arrays known at compile time as axes, shifts and sublists --------

X3 = np.arange(24).reshape(2, 3, 4)


def test_transpose_axes_from_argsort_of_a_permutation():
    def undo_perm(x):
        perm = (2, 0, 1)
        return np.transpose(np.transpose(x, perm), np.argsort(perm))
    _check(undo_perm, X3)
    _check(undo_perm, X3.astype(np.float32))


@pytest.mark.parametrize("f", [
    lambda x: np.transpose(x, np.array([1, 0, 2])),
    lambda x: np.permute_dims(x, np.array([2, 0, 1])),
    lambda x: x.transpose(np.array([0, 2, 1])),
    lambda x: x.transpose(np.arange(3)[::-1]),
    lambda x: np.transpose(x, np.array([-1, 0, 1])),
])
def test_transpose_by_a_compile_time_integer_array(f):
    _check(f, X3)


def test_transpose_by_a_compile_time_array_is_a_view():
    def f(x):
        v = np.transpose(x, np.argsort((1, 0)))
        v[0, 1] = -1
        return x
    x = np.arange(6.0).reshape(2, 3)
    _same(f(x.copy()), _compiled(f)(x.copy()))


def test_transpose_and_roll_axes_by_a_runtime_array_are_refused_naming_them():
    p = np.array([1, 0, 2])
    raises_at(lambda x, p: np.transpose(x, p), (X3, p), tpucc.StaticValueError,
              match="`axes` of np.transpose", line_of="np.transpose", cache=False)
    raises_at(lambda x, p: x.transpose(p), (X3, p), tpucc.StaticValueError,
              match="`axes` of x.transpose", line_of="x.transpose", cache=False)
    raises_at(lambda x, p: np.roll(x, 1, axis=p), (X3, p[:2]), tpucc.StaticValueError,
              match="`axis` of np.roll", line_of="np.roll", cache=False)
    raises_at(lambda x, p: np.einsum(x, p, [1, 0]), (X3[0], p[:2]), tpucc.StaticValueError,
              match="sublist of np.einsum", line_of="np.einsum", cache=False)


@pytest.mark.parametrize("f", [
    lambda x: np.roll(x, np.array([1, 2]), axis=(0, 1)),
    lambda x: np.roll(x, 1, axis=np.array([0, 1])),
    lambda x: np.roll(x, np.array([1, -2]), axis=np.array([1, 1])),
    lambda x: np.roll(x, np.array(3)),
    lambda x: np.roll(x, np.array([2]), axis=np.int64(0)),
    lambda x: np.roll(x, np.arange(2) + 1, axis=(-1, 0)),
])
def test_roll_by_compile_time_integer_arrays(f):
    _check(f, np.arange(6.0).reshape(2, 3))
    _check(f, np.arange(12, dtype=np.int8).reshape(3, 4))


@pytest.mark.parametrize("f", [
    lambda x: np.einsum(x, np.array([0, 1]), np.array([1, 0])),
    lambda x: np.einsum(x, np.array([0, 1]), x, np.arange(2), [0]),
    lambda x: np.einsum(x, [0, 1], x, np.array([2, 1])),
    lambda x: np.einsum(x, np.array([0, 1]), np.array([0])),
])
def test_einsum_sublists_given_as_compile_time_arrays(f):
    _check(f, np.arange(6.0).reshape(2, 3))
    _check(f, np.arange(6, dtype=np.int32).reshape(2, 3))


# --- bug_11: returned views of another returned array share its memory ---------------

def _leaves(r):
    if isinstance(r, dict):
        return [y for x in r.values() for y in _leaves(x)]
    if isinstance(r, (list, tuple)):
        return [y for x in r for y in _leaves(x)]
    return [r]


def _check_sharing(f, *args):
    """Values, dtypes, writeability and which results share memory, alike."""
    eager, compiled = _leaves(f(*args)), _leaves(_compiled(f)(*args))
    assert len(eager) == len(compiled)
    for e, c in zip(eager, compiled):
        _same(e, c)
        assert c.flags.writeable == e.flags.writeable
    sharing = lambda rs: [[np.shares_memory(a, b) for b in rs] for a in rs]   # noqa: E731
    assert sharing(compiled) == sharing(eager)
    return eager, compiled


def test_returned_reshape_of_a_new_array_shares_its_memory():
    def make_canvas(h, w, fill):
        flat = np.full(h * w, fill)
        img = flat.reshape(h, w)
        return flat, img
    for fn in (make_canvas, _compiled(make_canvas)):
        flat, img = fn(2, 3, np.float64(0.0))
        img[1, 2] = 7.0
        assert np.shares_memory(flat, img) and flat[-1] == 7.0


@pytest.mark.parametrize("f", [
    lambda x: (lambda a: (a, a[1:], a.T, a[::2, 1], a.reshape(-1)))(x * 2),
    lambda x: (lambda a: (a.reshape(3, 2).T, a))(x + 1),             # the base after the view
    lambda x: (lambda a: ([a[0], a[1]], a))(x + 1),
    lambda x: (lambda a: {"a": a, "col": a[:, 0]})(x - 1),
    lambda x: (lambda a: (a, np.broadcast_to(a, (4, 2, 3))))(x + 1),   # read-only, as NumPy's
    lambda x: (lambda a: (a, a.real, np.einsum("ij->ji", a)))(x.copy()),
    lambda x: (lambda a: (a, np.expand_dims(a, 0), a[None], a[..., ::-1], a.view(np.int64)))(x + 1),
    lambda x: (lambda a: (a[0], a[1]))(x + 1),          # views of an array not returned: apart
])
def test_returned_views_of_a_returned_array(f):
    _check_sharing(f, np.arange(6.0).reshape(2, 3))


def test_returned_view_after_updates_of_its_base():
    def written(x):
        a = x + 1
        v = a[0]
        a[1] = 5
        return a, v

    def rebound(x):
        a = x + 1
        v = a[0]
        a = a * 2           # a new array: v views the old one
        return a, v
    x = np.arange(6.0).reshape(2, 3)
    _check_sharing(written, x)
    _check_sharing(rebound, x)
    _, (a, v) = written(x), _compiled(written)(x)
    v[0] = -9
    assert a[0, 0] == -9


def test_returned_view_chosen_by_a_runtime_branch_has_the_right_values():
    # (a view whose base a runtime condition picks comes back as its own
    # array: README, Returned arrays)
    def f(x, c):
        a = x * 3
        b = a[1:] if c > 0 else a[:-1]
        return a, b
    x = np.arange(4.0)
    for c in (1, -1):
        _check(f, x, np.int64(c))


def test_returned_view_of_an_argument_still_the_callers():
    def f(x):
        a = x + 1
        return x.T, a, a[0]
    x = np.arange(6.0).reshape(2, 3)
    (_, (t, a, r)) = _check_sharing(f, x)
    assert np.shares_memory(t, x)
