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


# --- an iterator from outside advanced by `in`, __next__(), extend(), or NumPy's own -----------

def _contains(x, it):
    return x + (2.0 in it)


def _not_contains(x, it):
    return x + (2.0 not in it)


def _dunder_next(x, it):
    return x + it.__next__()


def _extends(x, it):
    items = [0.0]
    items.extend(it)
    return x + len(items)


def _counts(x, it):
    return x + sum(1 for _ in it)


@pytest.mark.parametrize("fn, make, line", [
    (_contains, lambda: iter([1.0, 2.0, 3.0]), "2.0 in it"),
    (_not_contains, lambda: iter([1.0, 2.0, 3.0]), "2.0 not in it"),
    (_dunder_next, lambda: iter([1.0, 2.0, 3.0]), "it.__next__()"),
    (_extends, lambda: iter([1.0, 2.0, 3.0]), "items.extend(it)"),
    (_counts, lambda: np.ndindex(2, 2), "sum(1 for _ in it)"),
    (_dunder_next, lambda: np.arange(3.0).flat, "it.__next__()")])
def test_an_iterator_from_outside_advanced_inside_is_refused(fn, make, line):
    # (was folded: every call reused the items read while compiling)
    raises_at(fn, (np.zeros(1), make()), match=r"E100.*iterator from outside the compiled",
              line_of=line)


def _contains_in_a_list(x, items):
    return x + (2.0 in items)


def test_in_of_a_list_from_outside_still_compiles():
    check(_contains_in_a_list, np.zeros(1), [1.0, 2.0])


# --- next() of np.ndindex, a.flat and np.ndenumerate made inside (were a fake E700 TypeError) ---

def _first_index(x):
    nd = np.ndindex(*x.shape)
    first = next(nd)
    return x[first], [x[i] for i in nd]


def _flat_next_then_loop(x):
    it = x.flat
    first, second = next(it), next(it)
    rest = 0.0
    for v in it:
        rest += v
    return first + second, rest


def _flat_next_then_sum(x):
    it = x.flat
    next(it)
    return sum(it), list(it), next(it, -1.0)


def _ndenumerate_next(x):
    it = np.ndenumerate(x)
    idx, v = next(it)
    return idx, v, [(j, w * 2) for j, w in it]


@pytest.mark.parametrize("fn", [_first_index, _flat_next_then_loop, _flat_next_then_sum,
                                _ndenumerate_next])
def test_next_of_numpy_iterators_made_inside(fn):
    check(fn, np.arange(6.0).reshape(2, 3))


def _flat_next_after_a_loop(x):
    it = x.flat
    for v in it:
        if v > 0:
            break
    return next(it)


def _flat_next_in_a_runtime_if(x):
    it = x.flat
    if x.sum() > 0:
        return next(it)
    return x[0, 0]


def test_next_of_a_flat_where_it_stands_is_not_followed_is_refused():
    raises_at(_flat_next_after_a_loop, (np.arange(6.0),), match=r"E100.*after a for loop",
              line_of="return next(it)")
    raises_at(_flat_next_in_a_runtime_if, (np.arange(6.0),), match=r"E400.*runtime condition",
              line_of="return next(it)")


# --- a captured ndarray subclass: the hint converts it where it is made -------------------------

SUBCLASS_GLOBAL = np.matrix([[1.0, 2.0]])


def _reads_global_matrix(x):
    return x + np.asarray(SUBCLASS_GLOBAL)


def test_a_global_matrix_hint_converts_it_outside_and_works(monkeypatch):
    # (the hint was "use np.asarray(m)", which np.asarray(M) inside the function did not satisfy)
    err = raises_at(_reads_global_matrix, (np.ones((1, 2)),), match=r"E100.*np\.matrix",
                    line_of="np.asarray(SUBCLASS_GLOBAL)")
    assert "SUBCLASS_GLOBAL = np.asarray(SUBCLASS_GLOBAL)" in str(err)
    monkeypatch.setitem(globals(), "SUBCLASS_GLOBAL", np.asarray(SUBCLASS_GLOBAL))
    check(_reads_global_matrix, np.ones((1, 2)))


# --- a NumPy function run at compile time given a runtime int: E400 naming the parameter ------

def _lower_part(x, k):
    return x[np.tril_indices(x.shape[0], k)]


def _upper_part(x, k):
    return x[np.triu_indices(x.shape[0], k)]


@pytest.mark.parametrize("fn, name", [(_lower_part, "tril_indices"),
                                      (_upper_part, "triu_indices")])
def test_tril_indices_with_a_runtime_k_names_k(fn, name):
    # (was "[E100] numpy.tril_indices() is not supported on ... runtime": only k must be static)
    raises_at(fn, (np.arange(9.0).reshape(3, 3), 0), tpucc.errors.StaticValueError,
              match=rf"`k` of np\.{name} must be known at compile time", line_of=f"np.{name}(",
              runtime_args=("k",))
    check(fn, np.arange(9.0).reshape(3, 3), 0)


def _format_runtime_float(x, f):
    return x + len(np.format_float_positional(f))


def test_a_runtime_float_for_a_numpy_function_stays_unsupported():
    raises_at(_format_runtime_float, (np.zeros(1), 1.0), tpucc.errors.UnsupportedError,
              runtime_args=("f",))


# --- a long loop over static big ints stays unrolled: exact, as Python (list_loops.BIG_INT) -----

def _sum_of_big_ints(x):
    s = x * 0
    for v in [2 ** 62 + k for k in range(40)]:
        s = s + v * 4
    return s


def _pairs_with_big_ints(x):
    for a, b in [(k, 2 ** 40 * k) for k in range(40)]:
        x = x + (a * b * b) % 1000      # 2**80 * k**3, exact in Python
    return x


def _small_ints_still_one_while(x):
    s = x * 0
    for v in [3 * k for k in range(40)]:
        s = s + v * 4
    return s


@pytest.mark.parametrize("fn", [_sum_of_big_ints, _pairs_with_big_ints])
def test_a_long_loop_over_big_static_ints_is_exact(fn):
    # (was one While picking the items as int64: 1.8e19 instead of 7.4e20, then E910)
    check(fn, np.zeros(1))


def test_a_long_loop_over_small_static_ints_is_still_one_while():
    from conftest import count_hlo, hlo
    compiled = check(_small_ints_still_one_while, np.zeros(1))
    assert count_hlo(hlo(compiled, np.zeros(1)), "while") == 1


# --- zip() with an endless user iterator pulls only the items zip takes (was E600) ---------------

class _Endless:
    def __init__(self):
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.i += 1
        return float(self.i)


def _zip_with_endless(x):
    return x + sum(v for _, v in zip(range(2), _Endless()))


def _zip_then_next(x):
    counter = _Endless()
    pairs = list(zip(range(3), counter))
    return x + pairs[-1][1], next(counter)


def _zip_one_iterator_twice(x):
    counter = _Endless()
    return x, list(zip(counter, counter, range(2)))


@pytest.mark.parametrize("fn", [_zip_with_endless, _zip_then_next, _zip_one_iterator_twice])
def test_zip_with_a_user_iterator_pulls_only_what_zip_takes(fn):
    check(fn, np.zeros(1))
