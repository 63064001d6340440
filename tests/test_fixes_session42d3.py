"""Session 42d3: refusals of sweep 42D (bugs 3, 4, 8, 10, 14, 18; 42B bug 6).

- `ndarray op obj` follows NumPy's rules about obj's class: a higher
  __array_priority__ (without __array_ufunc__) defers to obj's reflected
  method, a Python __array_ufunc__ gets the operator's ufunc, and __array__
  converts obj (it was E210 "NumPy would make an object array");
- a NamedTuple read from an outside object's attribute merges under a
  runtime `if` (and is carried by a loop) with one the program makes;
- an item of a list or dict argument rebound to a NamedTuple of arrays is
  written back, and `vs[0] *= 2` whose __imul__ returns the item is no change;
- copy.copy / copy.deepcopy of a user object or dataclass holding arrays
  copies it as the copy module does, a user __copy__ / __deepcopy__ interpreted;
- an attribute or outside item rebound to a NamedTuple of arrays under a
  runtime `if` is merged item by item (and, since session 43N, carried by
  a runtime loop item by item too), and an IntEnum member chosen at run time stays
  refused, with a hint that works.
"""
import copy
import dataclasses
import enum
from typing import NamedTuple

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import assert_same, raises_at, same_with_objects


def compiled(fn):
    return tpucc.compile(fn, cache=False)


# --- bug 8 (and 42B bug 6): NumPy's operator rules about a user object -------

class Prio:
    __array_priority__ = 1000

    def __init__(self, v):
        self.v = v

    def __rmul__(self, o):
        return Prio(o * self.v)

    def __radd__(self, o):
        return Prio(o + self.v)

    def __rsub__(self, o):
        return Prio(o - self.v)


class Wrapped:
    def __init__(self, a):
        self.a = a

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        ins = [i.a if isinstance(i, Wrapped) else i for i in inputs]
        return Wrapped(getattr(ufunc, method)(*ins, **kw))


class Mat:
    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return self.a


class LowPrio:
    __array_priority__ = 10

    def __init__(self, v):
        self.v = v


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_a_higher_array_priority_makes_an_ndarray_defer_to_the_reflected_method(dtype):
    def f(x):
        return (x * Prio(x)).v, (x + Prio(x)).v, (x - Prio(x)).v, (x[0] * Prio(x)).v

    same_with_objects(f, np.arange(1, 4, dtype=dtype))


def test_an_inplace_operator_defers_to_a_higher_priority_too():
    def f(x):
        y = x
        y *= Prio(x)
        return y.v, x

    same_with_objects(f, np.arange(3.0))


def test_a_priority_without_the_reflected_method_raises_pythons_type_error():
    def f(x):
        return x * LowPrio(x)
    raises_at(f, (np.arange(3.0),), E.UserCodeError,
              r"unsupported operand type\(s\) for \*: 'numpy.ndarray' and 'LowPrio'",
              line_of="return x * LowPrio")


@pytest.mark.parametrize("op", ["mul", "add", "radd", "pow"])
def test_an_operator_with_an_array_ufunc_object_gives_it_the_ufunc(op):
    fns = {"mul": lambda x: (x * Wrapped(x)).a, "add": lambda x: (x + Wrapped(2 * x)).a,
           "radd": lambda x: (Wrapped(x) + x).a, "pow": lambda x: (x ** Wrapped(x)).a}
    same_with_objects(fns[op], np.arange(1.0, 4.0))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_an_operand_with_array_is_converted_by_it(dtype):
    def f(a, v):
        w = v.copy()
        w += Mat(a[0])
        return v @ Mat(a), v + Mat(a), Mat(a) - v, Mat(a) @ v, w

    same_with_objects(f, np.eye(2, dtype=dtype) * 3, np.ones(2, dtype=dtype))


def test_mixed_dtypes_through_array_promote_as_numpy_does():
    def f(x):
        return x.astype(np.float32) * Mat(x.astype(np.int32)), x.astype(np.int8) + Mat(x)

    same_with_objects(f, np.arange(3.0))


# --- bug 4: a NamedTuple read from an attribute, merged ----------------------

class St(NamedTuple):
    h: np.ndarray
    c: np.ndarray


class Cell:
    def __init__(self, n, dtype=np.float64):
        self.h = np.zeros(n, dtype)
        self.state = St(np.zeros(n, dtype), np.zeros(n, dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("scale", [3.0, 0.1])
def test_a_named_tuple_read_from_an_attribute_merges_under_a_runtime_if(dtype, scale):
    def f(cell, x):
        s = cell.state
        if x.sum() > 1:
            s = St(x, x)
        return s.h, s

    same_with_objects(f, Cell(2, dtype), np.full(2, scale, dtype))


def test_a_named_tuple_read_from_an_attribute_is_carried_by_a_runtime_loop():
    def f(cell, x):
        s = cell.state
        while s.h.sum() < 10:
            s = St(s.h + x, s.c - x)
        cell.state = s
        return s.h

    same_with_objects(f, Cell(2), np.ones(2))


def test_a_tuple_read_from_an_attribute_is_the_same_tuple_and_sees_new_values_each_call():
    class Box:
        def __init__(self):
            self.t = (np.zeros(2), np.ones(2))

    def f(b, x):
        s = b.t
        if x.sum() > 0:
            s = (s[0] + x, s[1])
        return s[0], b.t is b.t

    fc, box = compiled(f), Box()
    assert_same(f(box, np.ones(2)), fc(box, np.ones(2)))
    box.t = (np.full(2, 5.0), np.ones(2))           # a new tuple: read again
    assert_same(f(box, np.ones(2)), fc(box, np.ones(2)))
    box.t[0][:] = 7.0                               # its array updated in place
    assert_same(f(box, -np.ones(2)), fc(box, -np.ones(2)))


# --- bug 10: a list or dict argument's item rebound to a NamedTuple ----------

class P(NamedTuple):
    pos: np.ndarray
    vel: np.ndarray


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_a_list_arguments_item_rebound_to_a_named_tuple_is_written_back(dtype):
    def f(ps, dt):
        for i in range(len(ps)):
            ps[i] = ps[i]._replace(pos=ps[i].pos + dt * ps[i].vel)
        return ps[0].pos

    same_with_objects(f, [P(np.zeros(2, dtype), np.ones(2, dtype)),
                          P(np.ones(3, dtype), np.full(3, 2, dtype))], 0.5)


def test_a_dict_arguments_item_rebound_to_a_tuple_is_written_back_each_call():
    def f(d, x):
        d["a"] = d["a"]._replace(pos=d["a"].pos + x)
        d["t"] = (x * 2, d["t"][1])
        return d["a"].pos

    same_with_objects(f, {"a": P(np.zeros(2), np.ones(2)), "t": (np.zeros(2), 1)},
                      np.arange(2.0))
    fc, d = compiled(f), {"a": P(np.zeros(2), np.ones(2)), "t": (np.zeros(2), 1)}
    vel = d["a"].vel
    for _ in range(3):
        fc(d, np.ones(2))
    assert type(d["a"]) is P and d["a"].vel is vel     # (the argument's own array)
    np.testing.assert_array_equal(d["a"].pos, [3.0, 3.0])
    assert d["t"][1] == 1 and type(d["t"][1]) is int


@pytest.mark.parametrize("x", [np.ones(2), -np.ones(2)])
def test_a_list_arguments_item_rebound_under_a_runtime_if(x):
    def f(ps, x):
        if x.sum() > 0:
            ps[0] = P(x, ps[0].vel)
        return ps[0].pos

    same_with_objects(f, [P(np.zeros(2), np.ones(2))], x)


class V:
    def __init__(self, a):
        self.a = a

    def __imul__(self, k):
        self.a = self.a * k
        return self


def test_an_augmented_item_assignment_keeping_the_object_is_no_change():
    def on_list(vs):
        vs[0] *= 2
        return vs[0].a

    def on_dict(d, k):
        d["v"] *= k
        return d["v"].a

    same_with_objects(on_list, [V(np.ones(2))])
    same_with_objects(on_dict, {"v": V(np.arange(3))}, 3)


# --- bug 18: copy.copy / copy.deepcopy of user objects -----------------------

class UserCopies:
    def __init__(self, w):
        self.w = w

    def __copy__(self):
        return UserCopies(self.w)

    def __deepcopy__(self, memo):
        return UserCopies(self.w.copy() * 2)


@dataclasses.dataclass
class D:
    w: np.ndarray
    n: int = 0
    hist: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass(frozen=True)
class Frozen:
    w: np.ndarray


class Shared:
    def __init__(self, a):
        self.a = a
        self.b = a
        self.me = self


class Slotted:
    __slots__ = ("w", "k", "unset")

    def __init__(self, w):
        self.w = w
        self.k = 3


class MemoUser:
    def __init__(self, w):
        self.w = w

    def __deepcopy__(self, memo):
        return MemoUser(copy.deepcopy(self.w, memo))


def test_a_user_deepcopy_and_copy_are_interpreted():
    def deep(p, x):
        b = copy.deepcopy(p)
        b.w += x
        return b.w, p.w

    def shallow(p, x):
        b = copy.copy(p)
        b.w += x                    # the same array: p.w too
        return b.w, p.w, b is p

    same_with_objects(deep, UserCopies(np.zeros(2)), np.ones(2))
    same_with_objects(shallow, UserCopies(np.zeros(2)), np.ones(2))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_a_deepcopy_of_a_dataclass_is_a_snapshot(dtype):
    def snapshot(d, x):
        snap = copy.deepcopy(d)
        d.w += x
        d.n = 7
        return snap.w, d.w, snap.n, snap.hist, type(snap).__name__

    same_with_objects(snapshot, D(np.zeros(2, dtype), 4, [0]), np.ones(2, dtype))


def test_a_shallow_copy_of_a_dataclass_shares_its_values():
    def shallow(d, x):
        s = copy.copy(d)
        s.w += x
        s.n = 5
        return s.w, d.w, d.n, s.n, s.hist is d.hist

    same_with_objects(shallow, D(np.zeros(2), 1), np.ones(2))


def test_a_deepcopy_shares_what_the_original_shares():
    def f(x):
        o = Shared(x.copy())
        c = copy.deepcopy(o)
        c.a += 1
        return c.b, c.me is c, o.a, c.a is c.b, c is o

    same_with_objects(f, np.arange(3.0))


def test_copies_of_slotted_frozen_and_listed_objects():
    def slotted(x):
        s = copy.deepcopy(Slotted(x))
        s.w += 1
        return s.w, s.k, x, hasattr(s, "unset")     # (an empty slot: was E000)

    def frozen(f, x):
        g = copy.deepcopy(f)
        return g.w + x, g is f, type(g).__name__

    def listed(ds, x):
        snap = copy.deepcopy(ds)
        ds[0].w += x
        return snap[0].w, ds[0].w

    def memo(x):
        m = MemoUser(x)
        out = copy.deepcopy([m, x, m])
        return out[0].w, out[0] is out[2], out[0].w is out[1]

    same_with_objects(slotted, np.arange(3, dtype=np.int32))
    same_with_objects(frozen, Frozen(np.ones(2)), np.ones(2))
    same_with_objects(listed, [D(np.zeros(2, np.float32))], np.ones(2, np.float32))
    same_with_objects(memo, np.arange(3.0))


def test_a_copy_rebound_under_a_runtime_if():
    def f(d, x):
        s = copy.copy(d)
        if x.sum() > 0:
            s.w = s.w + x
        return s.w, d.w

    same_with_objects(f, D(np.zeros(2)), np.ones(2))
    same_with_objects(f, D(np.zeros(2)), -np.ones(2))


def test_a_copy_of_an_object_pickled_its_own_way_is_still_refused():
    class Reduced:
        def __init__(self, w):
            self.w = w

        def __reduce__(self):
            return Reduced, (self.w,)

    def f(x):
        return copy.copy(Reduced(x)).w
    raises_at(f, (np.ones(2),), E.UnsupportedError, r"copy\.copy\(\) of a Reduced object",
              line_of="return copy.copy")


# --- bug 3: an attribute rebound to a NamedTuple in a runtime region ---------

class Held:
    def __init__(self, n, dtype=np.float64):
        self.state = St(np.zeros(n, dtype), np.zeros(n, dtype))
        self.pair = (np.zeros(n, dtype), (np.ones(n, dtype), 3))
        self.d = {"a": St(np.zeros(n, dtype), np.ones(n, dtype))}


@pytest.mark.parametrize("x", [np.full(2, 3.0), np.zeros(2)])
def test_an_arguments_attribute_rebound_to_a_named_tuple_under_a_runtime_if(x):
    def one_path(cell, x):
        if x.sum() > 1:
            cell.state = St(x, cell.state.c)
        return x

    def both_paths(cell, x):
        if x.sum() > 1:
            cell.state = St(x, x)
            cell.pair = (x, (x * 2, 3))
        else:
            cell.state = cell.state._replace(c=cell.state.c - x)
        return cell.state.h

    def dict_item(cell, x):
        if x.sum() > 1:
            cell.d["a"] = cell.d["a"]._replace(h=x)
        return cell.d["a"].h

    for f in (one_path, both_paths, dict_item):
        same_with_objects(f, Held(2), x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("scale", [3.0, 0.0])
def test_a_local_objects_attribute_rebound_to_a_named_tuple_under_a_runtime_if(dtype, scale):
    def f(x):
        c = Held(2, dtype)
        if x.sum() > 1:
            c.state = St(x, x)
            c.pair = (c.pair[0] + 1, (x, 3))
        return c.state, c.pair

    same_with_objects(f, np.full(2, scale, dtype))


def test_a_named_tuple_attribute_merged_keeps_the_argument_arrays_each_call():
    def f(cell, x):
        if x.sum() > 1:
            cell.state = St(x, cell.state.c)
        return x

    fc, cell = compiled(f), Held(2)
    c0 = cell.state.c
    for k in range(3):
        fc(cell, np.full(2, 3.0 + k))
    assert type(cell.state) is St and cell.state.c is c0
    np.testing.assert_array_equal(cell.state.h, [5.0, 5.0])
    fc(cell, np.zeros(2))
    np.testing.assert_array_equal(cell.state.h, [5.0, 5.0])


def test_a_named_tuple_leaf_of_another_dtype_is_named():
    def f(x):
        c = Held(2, np.float32)
        if x.sum() > 1:
            c.state = St(x, x)
        return c.state
    raises_at(f, (np.ones(2),), E.MergeError, r"`\.state\.h` different dtypes",
              line_of="if x.sum()")


def test_an_attribute_rebound_to_a_named_tuple_in_a_runtime_loop_is_carried():
    # (refused until session 43N, with the advice `as_hinted` follows:
    # a runtime loop now carries the attribute item by item, as a variable)
    def rebound(cell, x):
        while cell.state.h.sum() < 10:
            cell.state = St(cell.state.h + x, cell.state.c)
        return cell.state.h

    def as_hinted(cell, x):
        s = cell.state
        while s.h.sum() < 10:
            s = St(s.h + x, s.c)
        cell.state = s
        return cell.state.h

    for f in (rebound, as_hinted):
        same_with_objects(f, Cell(2), np.ones(2))


# --- bug 14: an IntEnum chosen at run time ------------------------------------

class Lvl(enum.IntEnum):
    LOW = 1
    HIGH = 5


def test_an_intenum_chosen_at_run_time_is_refused_with_a_hint_that_works():
    def chosen(x):
        return x * (Lvl.HIGH if x.mean() > 0 else Lvl.LOW)

    def as_hinted(xs):
        st = int(Lvl.LOW)
        for v in xs:
            if v > 0:
                st = int(Lvl.HIGH)
        return xs * st, st == int(Lvl.HIGH)

    # (the member is a runtime choice between the two: `*` needs its number)
    err = raises_at(chosen, (np.ones(2),), E.MergeError,
                    r"the operator `\*` needs the object itself", line_of="Lvl.HIGH if")
    assert "carry a number that tells the paths apart" in err.hint
    same_with_objects(as_hinted, np.array([-1.0, 2.0]))
    same_with_objects(as_hinted, np.array([-1.0, -2.0]))
