"""Session 43g: higher-order and functional Python (sweep K).

- **kwargs of the compiled function keep the caller's order (were sorted);
- iterators made in compiled code are, to type() and isinstance(), the
  Python types they stand for (generator, list_iterator, enumerate, flatiter,
  filter, zip), not tpucc's SeqIter/RangeIter/FlatIter;
- a closure's cell read by other than the interpreter holds the value, not
  tpucc's OwnedCell (cell_contents, re.sub's callback);
- a functools.wraps wrapper of a NumPy function is the user's code;
- NumPy calls with keyword names NumPy rejects raise NumPy's TypeError;
- builtins take Python's keyword names (pow(x, exp=2), int(s, base=16));
- callable(v) and hasattr(v, "__call__") of runtime values;
- an array's operator methods (x.__mul__, np.ndarray.__add__, a.__iadd__)."""
from __future__ import annotations

import collections.abc
import copy
import functools
import inspect
import re
import types

import numpy as np
import pytest

import tpucc

from conftest import assert_same, raises_at


def same(fn, *args, **kwargs):
    eager = copy.deepcopy((args, kwargs))
    comp = copy.deepcopy((args, kwargs))
    expected = fn(*eager[0], **eager[1])
    actual = tpucc.compile(fn, cache=False)(*comp[0], **comp[1])
    assert_same(expected, actual)
    assert_same(eager, comp)
    return actual


# --- bug_11: **kwargs in the caller's order ------------------------------------------

def first_keyword_scales(x, **kw):
    first = next(iter(kw.values()))
    return x * first, list(kw), tuple(kw.items())[-1][0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_kwargs_keep_callers_order(dtype):
    x = np.arange(3).astype(dtype)
    same(first_keyword_scales, x, b=3, a=2)
    same(first_keyword_scales, x, a=2, b=3)
    same(first_keyword_scales, x, z=np.int8(2), m=1.5, a=2)


def test_each_order_is_its_own_signature():
    c = tpucc.compile(first_keyword_scales, cache=False)
    x = np.ones(2)
    for order in (dict(b=3.0, a=2.0), dict(a=2.0, b=3.0), dict(b=3.0, a=2.0)):
        assert_same(first_keyword_scales(x, **order), c(x, **order))


def test_kwargs_with_array_values_in_order():
    def f(x, **kw):
        return [k for k in kw], sum(v * i for i, v in enumerate(kw.values()))
    same(f, np.ones(2), q=np.arange(2.0), p=np.full(2, 5.0))


def test_kwargs_order_with_runtime_args():
    def f(x, **kw):
        return list(kw), x * next(iter(kw.values()))
    c = tpucc.compile(f, cache=False, runtime_args=("s",))
    assert_same(f(np.ones(2), s=2.0, r=1.0), c(np.ones(2), s=2.0, r=1.0))
    assert_same(f(np.ones(2), r=1.0, s=2.0), c(np.ones(2), r=1.0, s=2.0))


# --- bug_13: iterators are the Python types they stand for ----------------------------

def _total(data):
    if isinstance(data, collections.abc.Iterator):      # a generator: materialize it
        data = np.stack(list(data))
    return data.sum(axis=0)


def test_generator_is_an_iterator_to_a_helper():
    same(lambda x: _total(r * 2 for r in x), np.arange(6.0).reshape(3, 2))
    same(lambda x: _total(x), np.arange(6.0).reshape(3, 2))
    same(lambda x: _total(iter(x)), np.arange(6, dtype=np.int32).reshape(2, 3))


_MAKERS = {
    "generator": lambda x: (v for v in x),
    "array iterator": iter,
    "list_iterator": lambda x: iter([1, 2]),
    "tuple_iterator": lambda x: iter((x, x)),
    "dict_keyiterator": lambda x: iter({"a": x}),
    "range_iterator": lambda x: iter(range(3)),
    "enumerate": enumerate,
    "list_reverseiterator": lambda x: reversed([x, 1]),
    "flatiter": lambda x: x.flat,
    "filter": lambda x: filter(None, [1, 0, 2]),
    "zip": lambda x: zip([1], x),
    "map": lambda x: map(abs, [1, -2]),
}


@pytest.mark.parametrize("kind", sorted(_MAKERS))
def test_iterator_type_and_isinstance(kind):
    make = _MAKERS[kind]

    def f(x):
        it = make(x)
        return (type(it).__name__, isinstance(it, collections.abc.Iterator),
                isinstance(it, collections.abc.Iterable), isinstance(it, types.GeneratorType),
                isinstance(it, (collections.abc.Generator, int)), type(it) is type(make(x)))
    same(f, np.arange(4.0).reshape(2, 2))


def test_inspect_isgenerator_and_filter_still_filters():
    def f(x):
        kept = filter(lambda v: v > 1, [0, 1, 2, 3])
        return inspect.isgenerator(v for v in x), list(kept), callable(kept)
    same(f, np.arange(3.0))


def test_isinstance_of_an_iterator_with_a_bad_class_raises_pythons_type_error():
    def f(x):
        return isinstance((v for v in x), 3)
    raises_at(f, (np.arange(3.0),), match="TypeError: isinstance", line_of="isinstance",
              cache=False)


# --- bug_04: closure cells hold values, not OwnedCell ---------------------------------

def test_cell_contents_is_the_value():
    def f(x):
        k = 3
        scale = x * 2
        g = lambda v: v * k + scale     # noqa: E731
        return [c.cell_contents for c in g.__closure__], g.__code__.co_freevars
    same(f, np.arange(3.0))


def test_cell_contents_after_rebinding():
    def f(x):
        k = 1
        g = lambda: k   # noqa: E731
        k = x.sum()
        return g.__closure__[0].cell_contents
    same(f, np.arange(4, dtype=np.int32))


@pytest.mark.parametrize("k", [3, 2.5])
def test_native_callback_reads_closure(k):
    def f(x):
        s = re.sub(r"\d", lambda m: str(int(m.group()) * k), "a1b2")
        return x * len(s), s
    same(f, np.ones(2))


def test_native_callback_through_keyword_and_sort_key():
    def f(x):
        offset = 10
        words = sorted(["bb", "a", "ccc"], key=lambda w: offset - len(w))
        return x + len(words[0]), re.sub(pattern=r"a", repl=lambda m: "x" * offset, string="ab")
    same(f, np.zeros(2))


# --- bug_01: a functools.wraps wrapper of a NumPy function is user code ----------------

_CALLS = {"n": 0}


def _counted(fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        _CALLS["n"] += 1
        return fn(*a, **k)
    return wrapper


_mytanh, _myzeros, _mysum = _counted(np.tanh), _counted(np.zeros), _counted(np.sum)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_wrapped_numpy_function_is_interpreted(dtype):
    same(lambda x: _mytanh(x), np.linspace(-1, 1, 5).astype(dtype))
    same(lambda x: _mysum(x, axis=0), np.arange(6).reshape(2, 3).astype(dtype))


def test_wrapper_side_effect_runs_at_every_call():
    def g(x):
        return x + _myzeros(3)
    c = tpucc.compile(g, cache=False)
    _CALLS["n"] = 0
    for _ in range(3):
        c(np.arange(3.0))
    assert _CALLS["n"] == 3


# --- bug_12: keyword names NumPy rejects ----------------------------------------------

@pytest.mark.parametrize("fn, match, line", [
    (lambda x: np.concatenate(arrays=[x, x]),
     r"TypeError: concatenate\(\) got an unexpected keyword argument 'arrays'", "concatenate"),
    (lambda x: np.reshape(a=x, shape=(2, 2)), r"positional-only arguments.*'a'", "reshape"),
    (lambda x: x.reshape(shape=(4,)), r"TypeError: 'shape' is an invalid keyword", "reshape"),
    (lambda x: np.tanh(x=x), r"TypeError: tanh\(\)", "tanh"),
    (lambda x: np.sum(x, axs=0), r"unexpected keyword argument 'axs'", "sum"),
    (lambda x: np.where(condition=x > 1), r"positional-only.*'condition'", "where"),
])
def test_keywords_numpy_rejects_raise_its_type_error(fn, match, line):
    with pytest.raises(TypeError):
        fn(np.arange(4.0))
    raises_at(fn, (np.arange(4.0),), match=match, line_of=line, cache=False)


def test_keywords_numpy_takes_still_compile():
    def f(x):
        return (np.concatenate([x, x], axis=0, dtype=np.float32), np.reshape(x, shape=(2, 2)),
                x.reshape((4,), order="C"), np.sum(x, axis=0, keepdims=True),
                np.add(x, 1, dtype=np.float32), np.clip(x, a_min=1, a_max=2))
    same(f, np.arange(4.0))


# --- bug_06: builtins with Python's keyword names -------------------------------------

@pytest.mark.parametrize("x", [np.arange(3.0), np.arange(3, dtype=np.int32)])
def test_pow_with_keywords(x):
    same(lambda v: functools.partial(pow, exp=2)(v), x)
    same(lambda v: pow(base=v, exp=3), x)


def test_int_round_enumerate_with_keywords():
    def f(x):
        v = float(x[1])
        pairs = [(i, r) for i, r in enumerate(iterable=x, start=1)]
        return (x + int("ff", base=16), round(number=v, ndigits=1), round(number=2.5),
                pairs, int("11", 2), complex(real=1.0, imag=2.0))
    same(f, np.array([0.25, 1.26, 2.0]))


def test_builtin_keyword_python_rejects_raises_pythons_type_error():
    def f(x):
        return pow(x, exponent=2)
    raises_at(f, (np.arange(3.0),), match="TypeError: pow\\(\\)", line_of="pow(", cache=False)

    def g(x):
        return x + int("ff", bse=16)
    raises_at(g, (np.arange(3.0),), match="TypeError: .*'bse'", line_of="int(", cache=False)


# --- bug_03: callable() and hasattr(v, "__call__") of runtime values -------------------

def _resolve(v, x):
    return v(x) if callable(v) else v


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_callable_of_runtime_values(dtype):
    def f(x):
        return (_resolve(np.sin, x) + _resolve(x * 2, x), callable(x[0]), callable(float(x[0])),
                callable(x.sum), callable(float(x[1]).hex), callable(lambda: 0))
    same(f, np.arange(3).astype(dtype))


def test_hasattr_call_and_dict_of_runtime_values():
    def f(x):
        s, p = x[0], float(x[1])
        return (hasattr(x, "__call__"), hasattr(x, "__dict__"), hasattr(s, "__call__"),
                hasattr(p, "__call__"), hasattr(x, "sum"), hasattr(x, "foo"), hasattr(p, "hex"))
    same(f, np.arange(3.0))


# --- bug_10: an array's operator methods ----------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_operator_methods_as_functions(dtype):
    def f(x):
        return (list(map(x.__mul__, [1, 2, 3])), x.__radd__(1), x.__rsub__(10), x.__neg__(),
                x.__lt__(2), x.__abs__(), x.__pow__(2), x.__rtruediv__(1.0),
                x.__matmul__(x), x.__eq__(x).all(), x[1].__float__(), x.__divmod__(2))
    same(f, np.arange(1, 4).astype(dtype))


def test_unbound_operator_methods_in_reduce():
    def g(xs):
        return (functools.reduce(np.ndarray.__add__, xs), functools.reduce(np.ndarray.__mul__, xs),
                np.ndarray.__rsub__(xs[0], 5))
    same(g, [np.ones(2), np.arange(2.0), np.full(2, 3.0)])
    same(g, [np.ones(3, np.int32), np.arange(3, dtype=np.int32)])


def test_inplace_operator_method_updates_the_argument():
    def h(xs):
        bump = lambda a: a.__iadd__(1)     # noqa: E731
        for a in xs:
            bump(a)
        scaled = xs[0].__imul__(3)
        return xs, scaled is xs[0]
    same(h, [np.zeros(2), np.arange(3.0)])
    same(h, [np.zeros(2, np.int32)])


def test_missing_array_attribute_is_still_attribute_error():
    def f(x):
        return x.__call__()
    raises_at(f, (np.arange(3.0),), match="AttributeError.*__call__", line_of="__call__",
              cache=False)


def test_itertools_iterators_keep_their_types():
    import itertools

    def f(x):
        m = itertools.starmap(lambda a, b: a * b, zip(x, x))
        it = itertools.chain([1], [2])
        for _ in it:
            break
        return (type(m).__name__, isinstance(m, itertools.starmap), type(it).__name__,
                isinstance(it, itertools.chain), isinstance(it, collections.abc.Iterator), list(m))
    same(f, np.arange(3.0))
