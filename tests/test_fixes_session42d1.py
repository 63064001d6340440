"""Session 42d1: objects' state (sweep 42D, bugs 11, 12, 13, 15, 16).

- `o.__class__ = B` on an object made inside the compiled code changes its
  class (method lookup, type(), isinstance), not a `__class__` key of its dict;
- len(obj) is a Python int whatever integer __len__ returns;
- a user __setattr__ runs (traced) at each store on an argument object too,
  and the write-back after the call does not run it again;
- a 0-d array attribute rebound on one runtime path only keeps its kind
  (0-d array or NumPy scalar) as the path taken decides;
- a written-back tuple holds the argument arrays themselves, and one array
  stored in two places is one NumPy array.
"""
import copy
import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import tpucc
from conftest import assert_same, raises_at, same_deep, same_with_objects


def compiled(fn):
    return tpucc.compile(fn, cache=False)


def same_with_objects_each(fn, *arg_tuples):
    """same_with_objects for each tuple of arguments, through one compiled
    fn: the inputs differ in values only, so one executable serves them all."""
    f = compiled(fn)
    for args in arg_tuples:
        eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
        expected = fn(*eager_args)
        actual = f(*comp_args)
        same_deep(expected, actual)
        same_deep(eager_args, comp_args)


def same_on_one_object(fn, make, xs):
    """fn(make(), x) eager and compiled for each x, through one compiled fn.
    An object argument is told apart by identity (a new one compiles again),
    so the compiled calls share one object, whose attributes are reset to a
    new make()'s before each call; the eager calls get a new one each."""
    f = compiled(fn)
    obj = make()
    for x in xs:
        vars(obj).clear()
        vars(obj).update(vars(make()))
        eager_obj, eager_x, comp_x = make(), copy.deepcopy(x), copy.deepcopy(x)
        expected = fn(eager_obj, eager_x)
        actual = f(obj, comp_x)
        same_deep(expected, actual)
        same_deep((eager_obj, eager_x), (obj, comp_x))


# --- bug 11: obj.__class__ = B ----------------------------------------------

class Base:
    def f(self, x):
        return x + 1


class Child(Base):
    def f(self, x):
        return x * 10


class Other:
    def f(self, x):
        return x - 5


class Slotted:
    __slots__ = ("a",)


class Hooked(Base):
    def __setattr__(self, k, v):
        object.__setattr__(self, k, v)


def class_swap(x):
    o = Base()
    o.__class__ = Child
    return o.f(x), type(o).__name__, isinstance(o, Child)


def class_swap_unrelated(x):
    o = Base()
    o.__class__ = Other
    return o.f(x), type(o) is Other, isinstance(o, Base)


def class_swap_back_and_forth(x):
    o = Base()
    o.y = x
    o.__class__ = Child
    a = o.f(o.y)
    o.__class__ = Base
    return a, o.f(x), o.__class__.__name__, o.y


def class_swap_in_static_loop(x):
    o = Base()
    for i in range(3):
        x = o.f(x)
        o.__class__ = Child if i % 2 == 0 else Base
    return x, type(o).__name__


def class_swap_made_in_loop(x):
    for _ in range(2):
        o = Base()
        o.__class__ = Other
        x = o.f(x)
    return x


def class_swap_through_own_setattr(x):
    o = Hooked()
    o.__class__ = Child
    return o.f(x), type(o) is Child


def class_swap_same_on_both_paths(x):
    o = Base()
    o.__class__ = Child
    if x.sum() > 0:
        o.__class__ = Child
    return o.f(x)


def all_class_swaps(x):
    # (the checks of one input in one program: each is its own compile otherwise)
    return (class_swap(x), class_swap_unrelated(x), class_swap_back_and_forth(x),
            class_swap_in_static_loop(x), class_swap_made_in_loop(x),
            class_swap_through_own_setattr(x), class_swap_same_on_both_paths(x))


@pytest.mark.parametrize("x", [np.arange(3), np.linspace(-1.0, 1.0, 4, dtype=np.float32)])
def test_assigning_class_changes_the_object_class(x):
    same_with_objects(all_class_swaps, x)


def class_to_int(x):
    o = Base()
    o.__class__ = int
    return x


def class_to_other_layout(x):
    o = Base()
    o.__class__ = Slotted
    return x


@pytest.mark.parametrize("fn, match", [(class_to_int, "only supported for mutable types"),
                                       (class_to_other_layout, "layout differs")])
def test_assigning_an_impossible_class_raises_python_type_error(fn, match):
    with pytest.raises(TypeError, match=match):
        fn(np.arange(2))
    raises_at(compiled(fn), (np.arange(2),), tpucc.TpuccError, match=f"TypeError: .*{match}",
              line_of="o.__class__ =")


def class_chosen_at_run_time(x):
    o = Base()
    if x.sum() > 0:
        o.__class__ = Child
    return o.f(x)


def test_a_class_chosen_by_a_runtime_if_is_refused_at_its_line():
    raises_at(class_chosen_at_run_time, (np.arange(3),), tpucc.TpuccError,
              match="__class__", line_of="if x.sum() > 0")


# --- bug 12: len(obj) is a Python int -----------------------------------------

class Sized:
    def __init__(self, a, how):
        self.a, self.how = a, how

    def __len__(self):
        if self.how == "np.int64":
            return np.int64(self.a.shape[0])
        if self.how == "np.uint8":
            return np.uint8(self.a.shape[0])
        if self.how == "bool":
            return self.a.shape[0] > 0
        if self.how == "0-d":
            return np.array(self.a.shape[0])
        if self.how == "count":
            return (self.a > 0).sum()
        if self.how == "count32":
            return (self.a > 0).sum(dtype=np.int32)
        return self.a.shape[0]


@pytest.mark.parametrize("how", ["np.int64", "np.uint8", "bool", "0-d", "count", "count32",
                                 "int"])
@pytest.mark.parametrize("x", [np.array([1, -1, 2]), np.arange(5.0) - 2])
def test_len_is_a_python_int(how, x):
    def length_and_use(x):
        length = len(Sized(x, how))
        n = len(Sized(x, how))
        return length, (x[:1] * n, n + 1)

    same_with_objects(length_and_use, x)


class FloatLen:
    def __init__(self, a):
        self.a = a

    def __len__(self):
        return self.a.sum()


def float_len(x):
    return len(FloatLen(x))


def test_len_of_a_float_count_raises_type_error_at_the_call():
    with pytest.raises(TypeError):
        float_len(np.ones(2))
    raises_at(float_len, (np.ones(2),), tpucc.TpuccError,
              match="cannot be interpreted as an integer", line_of="return len(")


# --- bug 13: a user __setattr__ on an argument object --------------------------

class Counted:
    def __init__(self):
        object.__setattr__(self, "n", 0)
        object.__setattr__(self, "a", np.zeros(2))

    def __setattr__(self, k, v):
        object.__setattr__(self, "n", self.n + 1)
        object.__setattr__(self, k, v)


class SuperCounted:
    def __init__(self):
        self.n = 0
        self.a = np.zeros(2)

    def __setattr__(self, k, v):
        if k != "n":
            super().__setattr__("n", self.n + 1)
        super().__setattr__(k, v)


class Logged:
    def __init__(self):
        object.__setattr__(self, "log", [])
        object.__setattr__(self, "a", np.zeros(2))

    def __setattr__(self, k, v):
        self.log.append(k)
        object.__setattr__(self, k, v)


class Registry:
    """PyTorch-style: __setattr__ registers arrays in a dict too."""
    def __init__(self, w):
        object.__setattr__(self, "_params", {})
        self.w = w

    def __setattr__(self, name, value):
        if isinstance(value, np.ndarray):
            self._params[name] = value
        object.__setattr__(self, name, value)


@dataclasses.dataclass(frozen=True)
class Frozen:
    a: np.ndarray


def store_once(t, x):
    t.a = x.sum() * np.ones(2)
    return t.n


def store_twice(t, x):
    t.a = x * 2
    t.a = t.a + 1
    return t.n, t.a


def store_in_static_loop(t, x):
    for _ in range(3):
        t.a = t.a + x
    return t.n


def store_in_runtime_loop(t, x):
    while t.a.sum() < 5:
        t.a = t.a + x
    return t.n


def store_under_runtime_if(t, x):
    if x.sum() > 0:
        t.a = t.a + x
    return t.n


@pytest.mark.parametrize("cls", [Counted, SuperCounted])
@pytest.mark.parametrize("fn", [store_once, store_twice, store_in_static_loop,
                                store_in_runtime_loop, store_under_runtime_if])
def test_user_setattr_counts_each_store_on_an_argument(cls, fn):
    xs = [np.ones(2), -np.ones(2)]
    if fn is store_in_runtime_loop:
        xs = [np.ones(2)]   # (-x: the eager loop never ends)
    same_on_one_object(fn, cls, xs)


def test_user_setattr_runs_once_per_store_over_several_calls():
    f = compiled(store_twice)
    eager, comp = Counted(), Counted()
    for _ in range(3):
        expected, actual = store_twice(eager, np.ones(2)), f(comp, np.ones(2))
        assert_same(expected, actual)
        assert comp.n == eager.n and type(comp.n) is int
        assert_same(eager.a, comp.a)


def logged_stores(t, x):
    t.a = x * 2
    t.a = t.a + 1
    return t.a


def test_user_setattr_appends_to_a_list_once_per_store():
    same_with_objects(logged_stores, Logged(), np.ones(2))


def logged_under_runtime_if(t, x):
    if x.sum() > 0:
        t.a = x
    return x


def logged_in_runtime_loop(t, x):
    while t.a.sum() < 5:
        t.a = t.a + x
    return x


@pytest.mark.parametrize("fn", [logged_under_runtime_if, logged_in_runtime_loop])
def test_user_setattr_appending_under_runtime_control_flow_is_refused(fn):
    """(It was run once, natively, at the write-back: 1 item where Python
    appends 0 or 5.)"""
    err = raises_at(fn, (Logged(), np.ones(2)), tpucc.SideEffectError, match="appending")
    assert "self.log.append(k)" in str(err) and "called from" in str(err)
    assert f"(in {fn.__name__})\n    t.a = " in str(err)


def sgd_step(m, x):
    m.w = m.w - 0.1 * x
    return m.w.sum()


def test_registry_setattr_keeps_the_registered_array_the_attribute():
    f = compiled(sgd_step)
    eager, comp = Registry(np.ones(3)), Registry(np.ones(3))
    for _ in range(2):
        assert_same(sgd_step(eager, np.ones(3)), f(comp, np.ones(3)))
        assert_same(eager.w, comp.w)
        assert comp._params["w"] is comp.w
        assert list(comp._params) == ["w"]


def assign_frozen(f, x):
    f.a = x
    return x


def test_frozen_dataclass_argument_refuses_the_store_at_its_line():
    raises_at(assign_frozen, (Frozen(np.ones(2)), np.ones(2)), tpucc.TpuccError,
              match="FrozenInstanceError", line_of="f.a = x")


# --- bug 15: a 0-d array attribute rebound on one runtime path ------------------

class Holder:
    def __init__(self, t):
        self.t = t


def bump_in_while(s, x):
    while x.sum() > 1:
        x = x * 0.5
        s.t = s.t + 1
    return x


def bump_under_if(s, x):
    if x.sum() > 1:
        s.t = s.t + 1
    return x


def bump_nested(s, x):
    if x.sum() > 0:
        if x.sum() > 1:
            s.t = s.t - 1
    return x


def bump_on_both_paths(s, x):
    if x.sum() > 1:
        s.t = s.t + 1
    else:
        s.t = s.t * 2
    return x


def bump_twice(s, x):
    if x.sum() > 1:
        s.t = s.t + 1
    if x.sum() > 2:
        s.t = s.t + 1
    return x


def bump_then_use(s, x):
    if x.sum() > 1:
        s.t = s.t * 2
    return s.t + x, s.t


def bump_then_loop(s, x):
    if x.sum() > 1:
        s.t = s.t + 1
    for _ in range(3):
        x = x + s.t
    return x


def bump_local_object(x):
    s = Holder(np.array(3, dtype=np.int16))
    if x.sum() > 1:
        s.t = s.t + 1
    return s.t


def bump_local_object_loop(x):
    s = Holder(np.array(1.5))
    while x.sum() > 1:
        x = x * 0.5
        s.t = s.t + 1
    return s.t, x


@pytest.mark.parametrize("fn", [bump_in_while, bump_under_if, bump_nested, bump_on_both_paths,
                                bump_twice, bump_then_use, bump_then_loop])
@pytest.mark.parametrize("t", [np.array(0), np.array(2.5), np.array(3, dtype=np.int8),
                               np.float64(1.0)])
def test_zero_d_attribute_keeps_the_kind_of_the_path_taken(fn, t):
    # one executable, both paths taken at run time
    same_on_one_object(fn, lambda: Holder(copy.deepcopy(t)), [np.array([0.1]), np.array([5.0])])


@pytest.mark.parametrize("fn", [bump_local_object, bump_local_object_loop])
def test_zero_d_attribute_of_a_local_object_keeps_its_kind(fn):
    same_with_objects_each(fn, (np.array([0.1]),), (np.array([5.0]),))


# --- bug 16: written-back tuples hold the arrays themselves ---------------------

class Pair(NamedTuple):
    a: np.ndarray
    b: np.ndarray


@dataclasses.dataclass(frozen=True)
class FrozenPair:
    a: np.ndarray
    b: np.ndarray


class State:
    def __init__(self):
        self.a = np.zeros(2)
        self.w = np.arange(4.0)
        self.t = (np.zeros(2), np.zeros(2))


def store_tuple(o, x):
    o.a = x
    o.t = (x, x)


def store_named_tuple(o, x):
    o.t = Pair(x, x * 2)


def store_frozen_dataclass(o, x):
    o.t = FrozenPair(x, x)


def store_new_array_twice(o, x):
    h = x + 1
    o.t = (h, h)


def store_a_view(o, x):
    o.t = (x[::2], x)


def store_an_attribute_array(o, x):
    o.t = (o.w, x)


def store_one_array_in_two_attributes(o, x):
    h = x * 3
    o.a = h
    o.w = h


def _parts(t):
    return list(t) if isinstance(t, tuple) else [t.a, t.b]


def _identities(o, x, w0):
    parts = _parts(o.t)
    return ([p is x for p in parts], [p is w0 for p in parts], parts[0] is parts[1],
            o.a is o.w, o.a is x, type(o.t))


@pytest.mark.parametrize("fn", [store_tuple, store_named_tuple, store_frozen_dataclass,
                                store_new_array_twice, store_a_view, store_an_attribute_array,
                                store_one_array_in_two_attributes])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_written_back_values_keep_what_they_alias(fn, dtype):
    f = compiled(fn)
    seen = []
    for run in (fn, f, f):          # (the second compiled call reuses the executable)
        o, x = State(), np.arange(4, dtype=dtype) + 1
        w0 = o.w
        run(o, x)
        seen.append((_identities(o, x, w0), [np.asarray(p).tolist() for p in _parts(o.t)]))
        _parts(o.t)[0][...] = 7         # an update in place afterwards reaches what it aliases
        seen[-1] += (x.tolist(), w0.tolist())
    assert seen[1] == seen[0]
    assert seen[2] == seen[0]
