"""Bugs from sweep 47F (user classes with dunder methods), fixed in session 47:
Python's checks on what __int__/__float__/__index__/__complex__, __iter__,
__init__ and __len__ return (bug_03, bug_10); `in` on a __contains__ that
returns an array (bug_11); list.remove of objects with a user __eq__ over
runtime data (bug_04); sorting objects whose __lt__ compares runtime values,
and dict lookups whose key's __eq__ does (bug_06)."""
import operator
import re

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each
from tpucc.errors import RuntimeRaiseError, StaticValueError, UserCodeError


def eager_and_compiled_raise(fn, args, error, message, line_of):
    """fn raises `error` with `message` eagerly, and compiled: a tpucc error
    at the line holding `line_of` that is also an instance of `error`."""
    with pytest.raises(error, match=re.escape(message)):
        fn(*args)
    err = raises_at(fn, args, match=re.escape(message), line_of=line_of, cache=False)
    assert isinstance(err, error)
    return err


# --- bug_03: what conversion methods return ----------------------------------------------

class Num:
    def __init__(self, v):
        self.v = v

    def __int__(self):
        return self.v

    def __float__(self):
        return self.v

    def __index__(self):
        return self.v

    def __complex__(self):
        return self.v


def int_of(x):
    return int(Num(x.argmax()))


def float_of(x):
    return float(Num(x[0]))


def index_of(x):
    return [10, 20, 30][Num(x.argmax())]


def operator_index_of(x):
    return operator.index(Num(x.argmax()))


def range_of(x):
    return list(range(Num(np.int64(2))))


def slice_of(x):
    return x[:Num(np.int64(2))]


def complex_of(x):
    return complex(Num(x[0]))


@pytest.mark.parametrize("fn, message, line_of", [
    (int_of, "__int__ returned non-int (type numpy.int64)", "int(Num"),
    (float_of, "Num.__float__ returned non-float (type numpy.float32)", "float(Num"),
    (index_of, "__index__ returned non-int (type numpy.int64)", "[10, 20, 30]"),
    (operator_index_of, "__index__ returned non-int (type numpy.int64)", "operator.index"),
    (range_of, "__index__ returned non-int (type numpy.int64)", "range(Num"),
    (slice_of, "__index__ returned non-int (type numpy.int64)", "x[:Num"),
    (complex_of, "__complex__ returned non-complex (type numpy.float32)", "complex(Num"),
])
def test_conversion_methods_returning_numpy_scalars_raise_typeerror(fn, message, line_of):
    eager_and_compiled_raise(fn, (np.array([1.0, 5.0, 2.0], np.float32),), TypeError,
                             message, line_of)


def float_of_float64(x):
    return float(Num(x[0]))


def float_of_python_float(x):
    return float(Num(float(x[0]))), float(Num(2.5))


def int_of_python_ints(x):
    return int(Num(int(x[1]))), operator.index(Num(int(x.argmax()))), x[:Num(2)]


def int_of_bool(x):
    return int(Num(bool(x[0] > 0))), int(Num(True))


def complex_of_complex(x):
    return complex(Num(complex(x[0])))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("fn", [float_of_float64, float_of_python_float, int_of_python_ints,
                                int_of_bool, complex_of_complex])
def test_conversion_methods_returning_their_type_or_a_subclass(fn):
    # (an np.float64 from __float__, a bool from __int__: converted, as Python does)
    same_each(fn, (np.array([1.0, 5.0, 2.0]),), (np.array([-3.0, 0.5, 7.0]),))


def test_float_of_float64_is_a_python_float():
    out = tpucc.compile(float_of_float64, cache=False)(np.array([1.5, 2.0]))
    assert type(out) is float and out == 1.5


# --- bug_03: __iter__ and __init__ --------------------------------------------------------

class Iterable:
    def __init__(self, it):
        self.it = it

    def __iter__(self):
        return self.it


def iter_list(x):
    return [v for v in Iterable([1, 2, 3])]


def iter_array(x):
    return [v for v in Iterable(x)]


def iter_caught(x):
    try:
        for v in Iterable([x[0], x[1]]):
            pass
    except TypeError:
        return "TypeError"
    return "no error"


@pytest.mark.parametrize("fn, kind", [(iter_list, "list"), (iter_array, "numpy.ndarray")])
def test_iter_returning_a_non_iterator_raises_typeerror(fn, kind):
    eager_and_compiled_raise(fn, (np.arange(3.0),), TypeError,
                             f"iter() returned non-iterator of type '{kind}'", "Iterable(")


def iter_iterators(x):
    a = [v * 2 for v in Iterable(iter(x))]
    b = list(Iterable(v + 1 for v in x))
    c = list(Iterable(zip(x, x)))
    return a, b, c


def test_iter_returning_iterators_compiles():
    same(iter_caught, np.arange(3.0))
    same(iter_iterators, np.arange(3.0))


class InitReturns:
    def __init__(self, v):
        self.v = v
        return v


class InitReturnsNone:
    def __init__(self, v):
        self.v = v
        return None


def init_returns_array(x):
    return InitReturns(x).v


def init_returns_number(x):
    return InitReturns(3).v + x


def init_returns_caught(x):
    try:
        InitReturns(x[0])
    except TypeError:
        return "TypeError"
    return "no error"


@pytest.mark.parametrize("fn, kind", [(init_returns_array, "numpy.ndarray"),
                                      (init_returns_number, "int")])
def test_init_returning_a_value_raises_typeerror(fn, kind):
    eager_and_compiled_raise(fn, (np.arange(3.0),), TypeError,
                             f"__init__() should return None, not '{kind}'", "InitReturns(")


def init_returns_none(x):
    return InitReturnsNone(x).v * 2


def test_init_returning_none_and_caught_typeerror():
    same(init_returns_none, np.arange(3.0))
    same(init_returns_caught, np.arange(3.0, dtype=np.float32))


# --- bug_10: a negative length known only at run time ----------------------------------------

class Sized:
    def __init__(self, a):
        self.a = a

    def __len__(self):
        return int(self.a.sum())


class SizedCount:
    def __init__(self, a):
        self.a = a

    def __len__(self):
        return self.a.sum()         # an np.int64: len() takes its __index__


def len_of(x):
    return len(Sized(x))


def truth_of(x):
    return bool(Sized(x)), not Sized(x)


def len_of_count(x):
    return len(SizedCount(x))


@pytest.mark.parametrize("fn, line_of", [(len_of, "len(Sized"), (truth_of, "bool(Sized")])
def test_negative_runtime_len_raises_valueerror_at_run_time(fn, line_of):
    compiled = tpucc.compile(fn, cache=False)
    for x in (np.array([1, 3]), np.array([0, 0], np.int32)):
        same(fn, x)
    with pytest.raises(ValueError, match=re.escape("__len__() should return >= 0")):
        fn(np.array([1, -3]))
    with pytest.raises(RuntimeRaiseError, match=re.escape("__len__() should return >= 0")) \
            as info:
        compiled(np.array([1, -3]))
    assert isinstance(info.value, ValueError)


def test_runtime_len_of_a_numpy_count():
    same_each(len_of_count, (np.array([1, 3]),), (np.array([5, 0, 2], np.int32),))
    with pytest.raises(RuntimeRaiseError, match=re.escape("__len__() should return >= 0")):
        tpucc.compile(len_of_count, cache=False)(np.array([1, -3]))


class FloatLen:
    def __init__(self, a):
        self.a = a

    def __len__(self):
        return float(self.a[0])


def len_of_float(x):
    return len(FloatLen(x))


def test_len_returning_a_runtime_float_raises_typeerror():
    eager_and_compiled_raise(len_of_float, (np.arange(3.0),), TypeError,
                             "'float' object cannot be interpreted as an integer", "len(")


# --- bug_11: `in` of a __contains__ returning an array ------------------------------------

class Holder:
    def __init__(self, a):
        self.a = a

    def __contains__(self, v):
        return self.a == v


def contains_many(x):
    return 1.0 in Holder(x)


def not_contains_many(x):
    return 1.0 not in Holder(x)


@pytest.mark.parametrize("fn", [contains_many, not_contains_many])
def test_contains_returning_an_array_raises_valueerror(fn):
    eager_and_compiled_raise(fn, (np.array([1.0, 2.0]),), ValueError,
                             "The truth value of an array with more than one element is "
                             "ambiguous", "in Holder")


def contains_one(x):
    return 1.0 in Holder(x), 2 in Holder(x), 5.0 not in Holder(x[:1])


def test_contains_returning_a_one_element_array():
    same_each(contains_one, (np.array([1.0]),), (np.array([2.0]),))
    same_each(contains_one, (np.array([[1]], np.int32),), (np.array([[3]], np.int32),))


def contains_empty(x):
    return 1.0 in Holder(x[:0])


def test_contains_returning_an_empty_array_raises_valueerror():
    eager_and_compiled_raise(contains_empty, (np.array([1.0, 2.0]),), ValueError,
                             "The truth value of an empty array is ambiguous", "in Holder")


# --- bug_04: list.remove of objects whose __eq__ compares runtime data --------------------------

class Vec:
    def __init__(self, d):
        self.d = d

    def __eq__(self, o):
        return bool(np.array_equal(self.d, o.d))


def remove_runtime_equal(x):
    vs = [Vec(x), Vec(x + 1)]
    vs.remove(Vec(x + 1))
    return len(vs)


def remove_runtime_equal_array_eq(x):
    vs = [Vec(x[0]), Vec(x[1])]
    vs.remove(Vec(x[1]))
    return vs[0].d


def test_remove_by_a_runtime_eq_is_refused_by_name():
    for fn in (remove_runtime_equal, remove_runtime_equal_array_eq):
        err = raises_at(fn, (np.arange(3.0),), StaticValueError, line_of=".remove(",
                        match=r"list\.remove\(\) of a Vec object: whether item 0 equals it "
                              "depends on runtime values", cache=False)
        assert "not in list" not in str(err) and "0x" not in str(err)
        assert "del lst[i]" in err.hint


class Tag:
    def __init__(self, name, d):
        self.name, self.d = name, d

    def __eq__(self, o):
        return self.name == o.name


def remove_static_equal(x):
    ts = [Tag("a", x), Tag("b", x * 2), Tag("c", x + 1)]
    ts.remove(Tag("b", x))
    return [t.name for t in ts], ts[1].d


def remove_missing(x):
    ts = [Tag("a", x)]
    ts.remove(Tag("z", x))


def remove_identity(x):
    v = Vec(x)
    vs = [v, Vec(x + 1)]
    vs.remove(v)
    return len(vs), vs[0].d


def test_remove_by_a_static_eq_compiles():
    same_each(remove_static_equal, (np.arange(3.0),), (np.ones(2, np.float32),))
    same(remove_identity, np.arange(3.0))
    eager_and_compiled_raise(remove_missing, (np.arange(3.0),), ValueError,
                             "list.remove(x): x not in list", ".remove(")


# --- bug_06: sorting objects by a runtime __lt__; dict lookups by a runtime __eq__ ---------------

class Item:
    def __init__(self, w, name="i"):
        self.w, self.name = w, name

    def __lt__(self, o):
        return self.w < o.w


class Greater:
    def __init__(self, w):
        self.w = w

    def __gt__(self, o):
        return self.w > o.w


def with_sorted(x):
    return [i.w for i in sorted([Item(x[0]), Item(x[1])])]


def with_list_sort(x):
    items = [Item(x[0]), Item(x[1]), Item(x[2])]
    items.sort(reverse=True)
    return [i.w for i in items]


def with_tuples(x):
    return [t[1] for t in sorted([(Item(x[0]), 1), (Item(x[1]), 2)])]


def with_object_keys(x):
    return [i.w for i in sorted([Item(x[0]), Item(x[1])], key=lambda i: Item(-i.w))]


def with_reflected_lt(x):
    return [g.w for g in sorted([Greater(x[0]), Greater(x[1])])]


@pytest.mark.parametrize("fn, line_of, named", [
    (with_sorted, "sorted(", "Item"), (with_list_sort, "items.sort(", "Item"),
    (with_tuples, "sorted(", "Item"), (with_object_keys, "sorted(", "Item"),
    (with_reflected_lt, "sorted(", "Greater")])
def test_sorting_objects_by_runtime_lt_is_refused_by_name(fn, line_of, named):
    err = raises_at(fn, (np.array([2.0, 1.0, 3.0]),), StaticValueError, line_of=line_of,
                    match=rf"sorting {named} objects.*`<`.*compares runtime values here",
                    cache=False)
    assert "truth value of an array" not in str(err)
    assert "key=" in err.hint and "np.sort" in err.hint


def sorted_statically(x):
    items = [Item(2.0, "b"), Item(1.0, "a"), Item(3.0, "c")]
    items.sort()
    by_name = sorted([Item(x[0], "b"), Item(x[1], "a")], key=lambda i: i.name)
    return [i.name for i in items], [i.w for i in by_name]


def test_sorting_objects_by_static_comparisons_compiles():
    same_each(sorted_statically, (np.array([2.0, 1.0]),), (np.array([5, 7], np.int32),))


class Key:
    def __init__(self, name, v):
        self.name, self.v = name, v

    def __hash__(self):
        return hash(self.name)

    def __eq__(self, o):
        return self.name == o.name and self.v == o.v


def dict_get(x):
    d = {Key("a", 1.0): 10, Key("b", 2.0): 20}
    return d.get(Key("a", x[0]))


def dict_subscript(x):
    d = {Key("a", 1.0): 10, Key("b", 2.0): 20}
    return d[Key("b", x[0])]


def dict_in(x):
    d = {Key("a", 1.0): 10}
    return Key("a", x[0]) in d


def dict_store(x):
    d = {Key("a", 1.0): 10}
    d[Key("a", x[0])] = 5
    return len(d)


def set_in(x):
    s = {Key("a", 1.0)}
    return Key("a", x[0]) in s


def dict_pop(x):
    d = {Key("a", 1.0): 10}
    return d.pop(Key("a", x[0]), 0)


@pytest.mark.parametrize("fn, what", [(dict_get, "a dict key"), (dict_subscript, "a dict key"),
                                      (dict_in, "a dict key"), (dict_store, "a dict key"),
                                      (set_in, "a set item"), (dict_pop, "a dict key")])
def test_dict_lookup_by_runtime_eq_is_refused_by_name(fn, what):
    err = raises_at(fn, (np.array([1.0]),), StaticValueError, line_of="Key(\"a\", x[0])"
                    if fn is not dict_subscript else "Key(\"b\", x[0])",
                    match=rf"a Key object as {what}: .* by Key\.__eq__, which compares "
                          "runtime values here", cache=False)
    assert "truth value of an array" not in str(err)


def dict_static_keys(x):
    d = {Key("a", 1.0): x, Key("b", 2.0): x * 2}
    return d[Key("b", 2.0)], Key("a", 1.0) in d, d.get(Key("c", 1.0), 0)


def test_dict_lookup_by_static_eq_compiles():
    same(dict_static_keys, np.arange(3.0))


class ValueKey:
    def __init__(self, v):
        self.v = v

    def __hash__(self):
        return hash(self.v)

    def __eq__(self, o):
        return self.v == o.v


def dict_by_runtime_hash(x):
    d = {ValueKey(1.0): 10}
    return d.get(ValueKey(x[0]), -1)


def set_by_runtime_hash(x):
    return ValueKey(float(x[0])) in {ValueKey(1.0)}


@pytest.mark.parametrize("fn, what", [(dict_by_runtime_hash, "a dict key"),
                                      (set_by_runtime_hash, "a set item")])
def test_dict_lookup_by_runtime_hash_is_refused_not_missed(fn, what):
    # (hashed natively, the runtime value's stand-in was never found: -1, False)
    raises_at(fn, (np.array([1.0]),), StaticValueError, line_of="ValueKey(",
              match=rf"a ValueKey object as {what}: .* hashes it by ValueKey\.__hash__, which "
                    "hashes runtime values here", cache=False)


def dict_by_static_hash(x):
    d = {ValueKey(1.0): x, ValueKey(2): x + 1}
    return d[ValueKey(2)], d.get(ValueKey(3.0), 0), ValueKey(1.0) in {ValueKey(1.0)}


def test_dict_lookup_by_static_hash_compiles():
    same(dict_by_static_hash, np.arange(3.0))
