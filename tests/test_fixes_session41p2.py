"""Session 41p (second round, sweep K): Python builtins and iteration
features that were refused or mis-handled around arrays.

- unbound ndarray methods used as functions (map(np.ndarray.sum, rows));
- itertools.chain.from_iterable;
- calls Python rejects (len/reversed/subscript of iterators, max(a, b,
  default=), sorted's positional key, sum of strings, reduce(initial=),
  calling a non-callable) raise Python's TypeError, naming Python's types;
- a `match` on a runtime bool with `case True:` and `case False:` (and
  `if c: ... elif not c:`): the path where neither holds never runs;
- sum/max/min of a range with a runtime length (closed forms) and
  enumerate() of one in a loop;
"""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import tpucc

from conftest import assert_same, raises_at


def check(f, *args):
    expected = f(*args)
    assert_same(expected, tpucc.compile(f, cache=False)(*args))


def check_each(f, *xs):
    """`check` for each argument x, through ONE compiled f (inputs that
    differ in values only share one executable)."""
    compiled = tpucc.compile(f, cache=False)
    for x in xs:
        assert_same(f(x), compiled(x))


def check_type_error(f, *args):
    """Eager raises TypeError: so does the compiled call, with its message."""
    with pytest.raises(TypeError) as eager:
        f(*args)
    with pytest.raises(tpucc.TpuccError) as compiled:
        tpucc.compile(f, cache=False)(*args)
    assert f"TypeError: {eager.value}" in str(compiled.value)
    assert "SeqIter" not in str(compiled.value) and "RangeIter" not in str(compiled.value)


# --- unbound ndarray methods ---------------------------------------------------------------

def test_map_unbound_sum_over_rows():
    def f(m):
        return [float(s) for s in map(np.ndarray.sum, m)]
    check(f, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_unbound_methods_called_directly(dtype):
    def f(m):
        return np.ndarray.mean(m, axis=0), np.ndarray.max(m), np.ndarray.tolist(m[0])
    check(f, np.array([[3, 4, 1], [0, 1, 2]], dtype=dtype))


def test_unbound_method_as_key():
    def f(m):
        return max(m, key=np.ndarray.sum), min(list(m), key=np.ndarray.max)
    check(f, np.array([[3.0, 4, 1], [0, 1, 9], [2, 2, 2]]))


def test_unbound_method_map_tolist():
    def f(m):
        return list(map(np.ndarray.tolist, m))
    check(f, np.arange(4, dtype=np.int64).reshape(2, 2))


# --- itertools.chain.from_iterable ---------------------------------------------------------

def test_chain_from_iterable_of_array_rows():
    def f(m):
        return [int(v) for v in itertools.chain.from_iterable(m)]
    check(f, np.arange(6).reshape(2, 3))


def test_chain_from_iterable_of_lists_and_generators():
    def f(x):
        a = list(itertools.chain.from_iterable([[x[0], x[1]], [x[2]]]))
        b = sum(itertools.chain.from_iterable(x.reshape(2, 2)))
        c = [v * 2 for v in itertools.chain.from_iterable(r for r in x.reshape(2, 2))]
        return a, b, c
    check(f, np.arange(4.0))
    check(f, np.arange(4, dtype=np.float32))


# --- Python's TypeErrors -------------------------------------------------------------------

@pytest.mark.parametrize("f", [
    lambda x: len(v for v in x),
    lambda x: len(map(abs, x)),
    lambda x: len(zip(x, x)),
    lambda x: len(enumerate(x)),
    lambda x: len(iter([x[0], x[1]])),
    lambda x: len(iter(range(3))),
    lambda x: list(reversed(enumerate(x))),
    lambda x: list(reversed(zip(x, x))),
    lambda x: list(reversed(map(abs, x))),
    lambda x: list(reversed(v for v in x)),
    lambda x: zip(x, x)[0],
    lambda x: map(abs, x)[1],
    lambda x: max(x[0], x[1], default=0),
    lambda x: min(x[0], x[1], default=0),
    lambda x: max(),
    lambda x: sorted([2, -1], abs),
    lambda x: sorted(list(x), None, True),
    lambda x: sum(["a", "b"], ""),
    lambda x: sum([b"a"], b""),
    lambda x: functools.reduce(lambda a, b: a + b, x, initial=0),
    lambda x: list(map(3, x)),
], ids=lambda f: f.__code__.co_firstlineno)
def test_calls_python_rejects(f):
    check_type_error(f, np.arange(3.0))


def test_valid_spellings_still_work():
    def f(x):
        return (len(list(v for v in x)), list(reversed(list(enumerate(x)))),
                max(x[0], x[1]), max([], default=0), sorted([2, -1], key=abs),
                functools.reduce(lambda a, b: a + b, x, 0))
    check(f, np.arange(3.0))


# --- match on a runtime bool ---------------------------------------------------------------

def test_match_runtime_bool_exhaustive():
    def f(x):
        match bool(x.any()):
            case True:
                return 1
            case False:
                return 0
    check_each(f, np.array([0, 1]), np.array([0, 0]))


def test_match_runtime_bool_false_first_binds_in_each_case():
    def f(x):
        match bool(x.any()):
            case False:
                y = x * 2
            case True:
                y = x * 3
        return y
    check_each(f, np.array([0, 1], np.int32), np.array([0, 0], np.int32))


def test_match_on_not_and_is_tests():
    def f(x):
        flag = not x.all()
        match flag:
            case True:
                return 1.5
            case False:
                return -2.5

    def g(x):
        c = bool(x[0] > 1)
        if c is True:
            return 1
        if c is False:
            return 2
    # (both in one program, compared as a tuple)
    check_each(lambda x: (f(x), g(x)), np.array([0.0, 1.0]), np.array([2.0, 2.0]))


def test_if_elif_not_same_condition():
    def f(x):
        c = x.sum() > 0
        if c:
            return x + 1
        elif not c:
            return x - 1
    check_each(f, np.array([1.0, 2.0]), np.array([-3.0, 1.0]))


def test_non_exhaustive_match_returns_none_where_no_case_matches():
    def f(x):
        match int(x[0]) % 3:
            case 0:
                return 1
            case 1:
                return 2
    # (None on one path, ints on the others: a runtime choice among the objects)
    check_each(f, np.array([1, 2]), np.array([2, 2]), np.array([3, 2]))


# --- builtins over a range with a runtime length -------------------------------------------

def test_sum_of_runtime_ranges():
    def f(x):
        n = int(x.sum())
        return sum(range(n)), sum(range(2, n, 3), 10), sum(range(n, 0, -2)), sum(range(n), 0.5)
    check_each(f, np.array([2, 3]), np.array([0, 1]), np.array([-4, 1]))


def test_max_min_of_runtime_ranges():
    def f(x):
        n = int(x[0])
        return (max(range(n)), min(range(1, n)), max(range(n, -3, -2)), min(range(n, -3, -2)),
                max(range(n - 5), default=-1), min(range(n - 5), default=7))
    check_each(f, np.array([7, 3]), np.array([2, 1]))


def test_runtime_step_ranges():
    def f(x):
        n, k = int(x[0]), int(x[1])
        t = 0
        for v in reversed(range(1, n, k)):
            t = t * 10 + v
        return sum(range(1, n, k)), max(range(1, n, k)), min(range(n, 0, -k)), t
    check_each(f, np.array([7, 3]), np.array([2, 1]), np.array([9, 2]))


def test_max_of_empty_runtime_range_raises_value_error():
    def f(x):
        return max(range(int(x[0]) - 100))
    with pytest.raises(ValueError, match="empty"):
        tpucc.compile(f, cache=False)(np.array([3]))


def test_max_of_runtime_range_with_non_int_default_refused():
    def f(x):
        return max(range(int(x[0])), default=None)
    raises_at(f, (np.array([3]),), tpucc.TpuccError, match="default", line_of="default=None",
              cache=False)


def test_enumerate_runtime_range():
    def f(x):
        n = int(x[0])
        t = 0
        for i, v in enumerate(range(n)):
            t += i * v
        return t

    def g(x):
        n = int(x[0])
        t = 0.0
        for i, v in enumerate(range(3, n, 2), 1):
            t += i * v * x[1]
        return t
    # (both in one program, compared as a tuple)
    check_each(lambda x: (f(x), g(x)), np.array([7.0, 0.5]), np.array([2.0, 3.0]))


# --- next() in long static loops -----------------------------------------------------------

def _manual_protocol(x):
    it = iter(x)
    s = 0.0
    while True:
        try:
            v = next(it)
        except StopIteration:
            break
        s = s + v
    return s


@pytest.mark.parametrize("n", [31, 32, 33, 100])
def test_manual_next_loop_past_the_unroll_budget(n):
    check(_manual_protocol, np.arange(float(n)))


def test_next_twice_per_iteration_of_a_long_static_loop():
    def f(x):
        it = iter(x)
        s = 0.0
        for _ in range(len(x) // 2):
            a = next(it)
            b = next(it)
            s += a * b
        return s
    check(f, np.arange(200.0))
    check(f, np.arange(80, dtype=np.float32))


def test_walrus_next_default_loop():
    def f(x):
        it = iter(x)
        s = 0
        while (v := next(it, None)) is not None:
            s += v
        return s
    check(f, np.arange(100))


def test_next_in_a_runtime_while_refused_at_its_line():
    def f(x):
        it = iter(x)
        s = 0.0
        while s < x[0] + 10:
            s += next(it)
        return s
    raises_at(f, (np.arange(100.0),), tpucc.TpuccError, match="runtime",
              line_of="s += next(it)", cache=False)


# --- np.apply_along_axis and np.piecewise with Python callables ----------------------------

def _same_outputs(f, *args, compiled=None):
    expected = f(*args)
    actual = (compiled or tpucc.compile(f, cache=False))(*args)
    for e, a in zip(expected, actual):
        assert type(e) is type(a) and np.asarray(e).dtype == np.asarray(a).dtype
        np.testing.assert_allclose(a, e)


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_apply_along_axis(dtype):
    def f(m):
        return (np.apply_along_axis(lambda r: r.max() - r.min(), 0, m),
                np.apply_along_axis(lambda r: r[::-1] * 2, 1, m),
                np.apply_along_axis(np.sum, -1, m),
                np.apply_along_axis(lambda r, k: np.array([r.sum(), r[0] * k]), 1, m, 3))
    _same_outputs(f, np.arange(12, dtype=dtype).reshape(3, 4))


def test_apply_along_axis_3d_and_matrix_results():
    def f(t):
        return (np.apply_along_axis(lambda r: np.outer(r, r), 1, t),
                np.apply_along_axis(lambda r: r.mean(), 2, t))
    _same_outputs(f, np.arange(24.0).reshape(2, 3, 4))


def test_apply_along_axis_many_rows():
    def f(m):
        return (np.apply_along_axis(lambda r: r.max(), 1, m),)
    _same_outputs(f, np.arange(400.0).reshape(100, 4))


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_piecewise_with_callables(dtype):
    def f(x):
        return (np.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v ** 2]),
                np.piecewise(x, [x < 0, x > 1], [-1, lambda v: v * 10, 0.5]),
                np.piecewise(x, x > 0, [lambda v: v + 1, 7]),
                np.piecewise(x, [x < 0], [lambda v, k: v * k], 4))
    _same_outputs(f, np.array([-2, 0, 3], dtype=dtype))


def test_piecewise_of_a_scalar():
    def f(x):
        return (np.piecewise(x[0], [x[0] < 0, x[0] >= 0], [lambda v: -v, lambda v: v + 1]),)
    compiled = tpucc.compile(f, cache=False)       # one executable for both values
    for x in (np.array([-2.5, 1.0]), np.array([2.5, 1.0])):
        _same_outputs(f, x, compiled=compiled)


# --- a function chosen at run time ---------------------------------------------------------

def _relu(v):
    return np.maximum(v, 0)


def _leaky(v):
    return np.where(v > 0, v, 0.1 * v)


def test_lambda_chosen_in_each_arm():
    def f(x):
        if x.sum() > 0:
            g = lambda v: v + 1     # noqa: E731
        else:
            g = lambda v: v - 1     # noqa: E731
        return g(x)

    def h(x):
        if x[0] > 0:
            g = lambda v: v + 1     # noqa: E731
        else:
            g = lambda v: v * 2.5   # noqa: E731
        return g(x[1])              # a Python float either way
    # (both in one program, compared as a tuple)
    check_each(lambda x: (f(x), h(x)), np.array([1.0, 2.0]), np.array([-1.0, 2.0]))


@pytest.mark.parametrize("x", [np.array([1.0, -2.0], np.float32), np.array([3.0, -2.0])])
def test_function_chosen_by_conditional_expression_and_rebinding(x):
    def f(x):
        g = np.sin if x[0] > 2 else np.cos
        act = _relu
        if x.sum() > 0:
            act = _leaky
        return g(x), act(x) * 2
    check(f, x)


def test_function_from_a_list_at_a_runtime_position():
    def f(x):
        fs = [np.sin, np.cos, np.tanh]
        return fs[int(x[0]) % 3](x), fs[-1 - int(x[1] > 0)](x), (_relu, _leaky)[int(x[1] > 0)](x)
    check_each(f, np.array([0.0, 1.0]), np.array([4.0, -1.0]), np.array([5.0, 1.0]))


def test_function_position_out_of_range_raises():
    def f(x):
        return (_relu, _leaky)[int(x[0])](x)
    with pytest.raises(IndexError):
        tpucc.compile(f, cache=False)(np.array([3.0, 1.0]))


def test_function_or_none_still_refused_naming_it():
    def f(x):
        g = None
        if x[0] > 0:
            g = _relu
        return g
    raises_at(f, (np.array([1.0]),), tpucc.TpuccError, match="_relu", cache=False)
