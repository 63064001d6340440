"""Session 39c1's fixes, each checked against eager NumPy or for its message."""
import itertools

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at


# --- an iterator from outside the call, advanced inside: refused (iterators.py) ------------

def _step(w, batches):
    x = next(batches)                   # <- here
    w -= 0.1 * x
    return w.sum()


def test_an_iterator_argument_advanced_inside_is_refused_at_its_line():
    it = iter([np.ones(2), np.full(2, 10.0)])
    raises_at(_step, (np.zeros(2), it), E.UnsupportedError, line_of="next(batches)",
              match=r"argument batches \(a list_iterator\) is an iterator from outside")
    assert np.array_equal(next(it), np.ones(2))     # compiling did not advance it


def test_the_hint_passing_the_item_compiles():
    def step(w, x):
        w -= 0.1 * x
        return w.sum()
    it = iter([np.ones(2), np.full(2, 10.0)])
    check(step, np.zeros(2), next(it))


def _loop_over(x, gen):
    s = x
    for v in gen:                       # <- here
        s = s + v
    return s


def _gen():
    yield np.ones(2)


def test_a_generator_argument_looped_over_is_refused():
    raises_at(_loop_over, (np.ones(2), _gen()), E.UnsupportedError, line_of="for v in gen",
              match="argument gen .a generator.")


_COUNTER = itertools.count()


def _next_of_global(x):
    return x * next(_COUNTER)


def test_a_global_iterator_and_a_library_call_consuming_one_are_refused():
    with pytest.raises(E.UnsupportedError, match="global `_COUNTER` .a count."):
        tpucc.compile(_next_of_global)(np.ones(2))
    with pytest.raises(E.UnsupportedError, match=r"argument it \(a list_iterator\)"):
        tpucc.compile(lambda x, it: x * sum(itertools.islice(it, 2)))(np.ones(2),
                                                                       iter([1.0, 2.0]))


def test_iterators_made_inside_still_compile():
    def f(x):
        it = iter([1.0, 2.0])
        a = next(it)
        return x * a + sum(itertools.islice(itertools.count(), 3)) + next(map(float, [1]))
    check(f, np.ones(2))


# --- ndarray subclasses other than np.memmap: refused, as np.matrix is (values.py) ----------

class _Scaled(np.ndarray):
    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        inputs = [np.asarray(i) for i in inputs]
        return getattr(ufunc, method)(*inputs, **kw) * 10


def test_an_ndarray_subclass_argument_is_refused():
    x = np.arange(2.0).view(_Scaled)
    with pytest.raises(E.UnsupportedError, match=r"ndarray subclass \(_Scaled\) argument"):
        tpucc.compile(lambda a: a + 1)(x)
    check(lambda a: a + 1, np.asarray(x))             # the hint


_W = np.arange(2.0).view(_Scaled)


def test_an_ndarray_subclass_global_is_refused():
    with pytest.raises(E.UnsupportedError, match=r"ndarray subclass \(_Scaled\) global `_W`"):
        tpucc.compile(lambda a: a + _W)(np.ones(2))


def test_a_memmap_argument_still_compiles(tmp_path):
    mm = np.lib.format.open_memmap(tmp_path / "w.npy", mode="w+", dtype=np.float64, shape=(3,))
    mm[:] = [1.0, 2.0, 3.0]
    assert np.array_equal(tpucc.compile(lambda a: a * 2)(mm), [2.0, 4.0, 6.0])


# --- views of one array that share no element are separate arguments (driver.shares_elements) -----

def _add_into(a, b):
    a += b
    return a.sum()


def test_disjoint_strided_views_run():
    base = np.arange(8.0)
    eager = base.copy()
    expected = _add_into(eager[::2], eager[1::2])
    assert tpucc.compile(_add_into)(base[::2], base[1::2]) == expected
    assert np.array_equal(base, eager)


def test_two_columns_run_and_overlapping_slices_are_still_refused():
    m = np.arange(12.0).reshape(4, 3)
    eager = m.copy()
    f = tpucc.compile(_add_into)
    assert f(m[:, 0], m[:, 1]) == _add_into(eager[:, 0], eager[:, 1])
    assert np.array_equal(m, eager)
    x = np.arange(8.0)
    with pytest.raises(E.SideEffectError, match="shares memory with argument b"):
        f(x[1:], x[:-1])


# --- a NumPy string argument is a static string, as str is (infer.is_runtime_leaf) ----------

def _act(x, mode):
    if mode == "relu":
        return np.maximum(x, 0)
    return np.tanh(x)


def test_a_numpy_string_argument_is_static():
    modes = np.array(["relu", "tanh"])
    x = np.array([-1.0, 1.0])
    f = check(_act, x, modes[0])
    np.testing.assert_allclose(f(x, modes[1]), np.tanh(x))     # another value: its program


# --- a memoryview argument: a tpucc refusal, not a raw ValueError (driver._key) -------------

def test_a_memoryview_argument_is_refused_naming_it():
    mv = memoryview(np.arange(3.0))
    with pytest.raises(E.UnsupportedError, match="argument b is a memoryview"):
        tpucc.compile(lambda b: np.asarray(b) * 2)(mv)
    check(lambda b: np.asarray(b) * 2, np.asarray(mv))    # the hint


# --- a Python int beyond int64 rebound at run time: said so (state.unify) -------------------

def _total(x, k):
    s = 0
    i = 0
    while x[i] < 100 and i < 2:
        s += k                          # <- here (the first pass runs unrolled)
        i += 1
    return s


def test_a_big_python_int_in_a_runtime_loop_names_the_int_not_numpy_values():
    err = raises_at(_total, (np.arange(3.0), 2 ** 70), E.MergeError, line_of="s += k",
                    match=r"`s` the Python int \d{22}: a Python int that "
                          "changes at run time is an int64")
    assert "NumPy values" not in str(err) and "start `s` at 0.0" in err.hint


def test_the_hint_a_float_accumulator_compiles():
    def total(x, k):
        s = 0.0
        i = 0
        while x[i] < 100 and i < 2:
            s += k                          # <- here (the first pass runs unrolled)
            i += 1
        return s
    check(total, np.arange(3.0), 2 ** 70)
