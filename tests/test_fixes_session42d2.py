"""Bugs of sweep 42D (user classes, operator overloading, NamedTuples, enums)
fixed in session 42d2: each test compares compiled with eager NumPy (values,
dtypes, argument state), or checks a refusal's message and line.

- a user __array_ufunc__ reached through a ufunc method (np.add.reduce, ...);
- numpy.lib.mixins.NDArrayOperatorsMixin operators;
- a base class's @property read through super();
- old-style iteration (only __getitem__) ended by NumPy's own IndexError;
- `v in it` for iterables without __contains__ (user __iter__, generators,
  iterators, dict.values());
- namedtuple._make of runtime values, a NamedTuple called with a field missing;
- the "compiled 8 programs for new X objects" warning naming the right class.
"""
from __future__ import annotations

import enum
import warnings
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest
from numpy.lib.mixins import NDArrayOperatorsMixin

import tpucc
from conftest import raises_at, same


# --- bug_02: __array_ufunc__ reached through a ufunc's method ----------------------------

class Tensor:
    def __init__(self, a):
        self.a = a

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        ins = [i.a if isinstance(i, Tensor) else i for i in inputs]
        if "out" in kw:
            kw["out"] = tuple(o.a if isinstance(o, Tensor) else o for o in kw["out"])
        return Tensor(getattr(ufunc, method)(*ins, **kw))


class Logged:
    """Returns what NumPy handed it, to compare the arguments' normal form."""
    def __init__(self, a):
        self.a = a

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        return ufunc.__name__, method, len(inputs), sorted(kw)


class Declines:
    def __init__(self, a):
        self.a = a

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        return NotImplemented


def ufunc_reduce(x):
    return np.add.reduce(Tensor(x)).a


def ufunc_reduce_axis(x):
    return np.maximum.reduce(Tensor(x), 1).a, np.multiply.reduce(Tensor(x), axis=0).a


def ufunc_accumulate(x):
    return np.add.accumulate(Tensor(x)).a, np.maximum.accumulate(Tensor(x), axis=1).a


def ufunc_outer(x):
    return np.subtract.outer(Tensor(x[0]), x[1]).a


def ufunc_reduce_keywords(x):
    return np.add.reduce(Tensor(x), 0, None, None, True).a


@pytest.mark.parametrize("fn", [ufunc_reduce, ufunc_reduce_axis, ufunc_accumulate, ufunc_outer,
                                ufunc_reduce_keywords])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_array_ufunc_through_ufunc_methods(fn, dtype):
    same(fn, np.arange(12).reshape(3, 4).astype(dtype))


def ufunc_arguments_as_numpy_gives_them(x):
    t = Logged(x)
    return (np.add.reduce(t), np.add.reduce(t, 0, None, None), np.add.accumulate(t, 0),
            np.add.outer(t, x), np.add(t, 1, x), np.add(t, 1, out=None))


def test_array_ufunc_gets_numpys_arguments():
    """NumPy hands __array_ufunc__ the positional options as keywords, out=
    as a tuple, and never out=None."""
    same(ufunc_arguments_as_numpy_gives_them, np.arange(3.0))


def ufunc_reduce_declined(x):
    return np.add.reduce(Declines(x))


def test_array_ufunc_declining_a_method_is_pythons_type_error():
    raises_at(ufunc_reduce_declined, (np.arange(3.0),), TypeError, match="NotImplemented",
              line_of="np.add.reduce", cache=False)


# --- bug_17: NDArrayOperatorsMixin ----------------------------------------------------------

class Wrapped(NDArrayOperatorsMixin):
    def __init__(self, v):
        self.v = v

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        args = [i.v if isinstance(i, Wrapped) else i for i in inputs]
        return Wrapped(getattr(ufunc, method)(*args, **kw))


def mixin_arithmetic(x):
    return (Wrapped(x) * 2 + 1).v, (3 - Wrapped(x)).v, (Wrapped(x) ** 2 / Wrapped(x + 1)).v


def mixin_unary_and_compare(x):
    return (-Wrapped(x)).v, abs(Wrapped(x) - 2).v, (Wrapped(x) > 1).v, (Wrapped(x) == x).v


def mixin_matmul(x):
    return (Wrapped(x) @ x.T).v


def mixin_in_loop(x):
    w = Wrapped(x)
    for _ in range(3):
        w = w * 0.5 + 1
    return w.v


def array_ufunc_of_an_array(x):
    # (what the mixin asks of an array operand; ndarray's method applies the ufunc)
    return (x.__array_ufunc__ is None, x.__array_ufunc__(np.add, "__call__", x, 1),
            x.__array_ufunc__(np.add, "reduce", x))


@pytest.mark.parametrize("fn", [mixin_arithmetic, mixin_unary_and_compare, mixin_matmul,
                                mixin_in_loop, array_ufunc_of_an_array])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ndarray_operators_mixin(fn, dtype):
    same(fn, np.arange(6).reshape(2, 3).astype(dtype))


# --- bug_19: a base class's property through super() ---------------------------------------

class Base:
    def __init__(self, w):
        self.w = w

    @property
    def value(self):
        return self.w.sum()

    @property
    def biggest(self):
        return np.maximum(self.w[0], self.w[-1])

    def scaled(self, k):
        return self.w * k


class Child(Base):
    @property
    def value(self):
        return super().value + 100

    @property
    def biggest(self):
        return super(Child, self).biggest * 2

    def get(self):
        return super().value, super().scaled(3)


class GrandChild(Child):
    @property
    def value(self):
        return super().value * 2       # Child's, which reads Base's


def property_through_super(x):
    return Child(x).value, Child(x).biggest, Child(x).get(), GrandChild(x).value


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_property_through_super(dtype):
    same(property_through_super, np.arange(4).astype(dtype))


def property_through_super_on_argument(c):
    return c.value


def test_property_through_super_on_an_argument_follows_its_changes():
    c = Child(np.arange(3.0))
    f = tpucc.compile(property_through_super_on_argument, cache=False)
    assert f(c) == 103.0
    c.w = np.arange(4.0)
    assert f(c) == 106.0


# --- bug_06: old-style iteration ended by NumPy's IndexError -------------------------------

class Seq:
    def __init__(self, a):
        self.a = a

    def __getitem__(self, i):
        return self.a[i]


class ExplicitEnd:
    def __init__(self, a):
        self.a = a

    def __getitem__(self, i):
        if i >= 2:
            raise IndexError("done")
        return self.a[i] * 10


def sequence_total(x):
    s = 0.0
    for v in Seq(x):
        s += v
    return s


def sequence_consumers(x):
    return (list(Seq(x)), tuple(Seq(x)), [i for i, _ in enumerate(Seq(x))],
            [a + b for a, b in zip(Seq(x), Seq(x * 2))], sum(Seq(x)), list(ExplicitEnd(x)))


def sequence_of_rows(x):
    return [r.sum() for r in Seq(x)]


def sequence_of_list(x):
    return list(Seq([x[0], 2.0, x[1]]))


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_old_sequence_protocol(dtype):
    x = np.arange(4).astype(dtype)
    same(sequence_total, x)
    same(sequence_consumers, x)
    same(sequence_of_list, x)
    same(sequence_of_rows, np.arange(6).reshape(3, 2).astype(dtype))


class RuntimeEnd:
    def __init__(self, a):
        self.a = a

    def __getitem__(self, i):
        if self.a[i] > 1:
            raise IndexError("stop")
        return self.a[i]


def sequence_ended_at_run_time(x):
    return list(RuntimeEnd(x))


def test_old_sequence_protocol_ended_by_a_runtime_condition_is_refused():
    """Eagerly the IndexError ends the iteration (a list of 2); compiled, where
    it ends would be known only at run time: refused while compiling, not
    raised when the call returns."""
    err = raises_at(sequence_ended_at_run_time, (np.arange(3.0),), tpucc.UnsupportedError,
                    match=r"the iteration calling RuntimeEnd.__getitem__ \(which IndexError "
                          r"ends\) would catch it", cache=False)
    assert err.loc.func == "RuntimeEnd.__getitem__"
    assert "len(self.a)" in str(err)


# --- bug_07: `in` on iterables without __contains__ ---------------------------------------

class Bag:
    def __init__(self, a):
        self.a = a

    def __iter__(self):
        return iter(self.a)


def doubled(x):
    for v in x:
        yield v * 2


def in_user_iterable(x):
    return 4.0 in Bag(x), x[1] in Bag(x), (x[0] + 100) not in Bag(x), 2.0 in Seq(x)


def in_generators(x):
    return 8.0 in doubled(x), 3.0 in doubled(x), 4.0 in (v for v in x), 9.0 in (v for v in x)


def in_iterators_and_views(x):
    return (4.0 in iter(x), x[2] in iter(x), 2.0 in {"a": x[0], "b": x[2]}.values(),
            5 in {"a": 1}.values(), 2.0 in map(float, [1, 2]))


def in_static_iterator_then_next(x):
    it = iter([1, 2, 3, 4])
    return 2 in it, next(it), x


def in_iterator_then_loop(x):
    it = iter([x[0], x[1], 7.0, x[2]])
    found = 7.0 in it       # the runtime items before it may match; 7.0 surely does
    return found


@pytest.mark.parametrize("fn", [in_user_iterable, in_generators, in_iterators_and_views,
                                in_static_iterator_then_next, in_iterator_then_loop])
@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_in_without_contains(fn, dtype):
    same(fn, np.arange(5).astype(dtype))


def in_iterator_used_after_runtime_search(x):
    it = iter(x)
    found = 2.0 in it
    return found, next(it)


def test_in_iterator_used_after_a_runtime_search_is_refused():
    raises_at(in_iterator_used_after_runtime_search, (np.arange(5.0),), tpucc.TpuccError,
              match="`in` test", line_of="next(it)", cache=False)


def in_range_iterator(x):
    return 4 in iter(range(int(x[0])))     # (a static range's: supported, session 45C1)


def in_zip_of_arrays(x):
    return (1.0, 1.0) in zip(x, x)


def test_in_on_iterators_whose_stop_is_not_tracked_is_refused_clearly():
    err = raises_at(in_range_iterator, (np.arange(5.0),), tpucc.UnsupportedError,
                    match="range", line_of="in iter(range", cache=False)
    assert "RangeIter" not in str(err)
    err = raises_at(in_zip_of_arrays, (np.arange(5.0),), tpucc.TpuccError,
                    match="zip iterator", line_of="in zip", cache=False)
    assert "list(it)" in str(err)


# --- bug_01: namedtuple._make, a NamedTuple missing a field --------------------------------

Pair = namedtuple("Pair", ["lo", "hi"])


class Bounds(NamedTuple):
    lo: np.ndarray
    hi: np.ndarray


def namedtuple_make(x):
    return (Pair._make([x.min(), x.max()]), Bounds._make((x, x + 1)),
            Bounds._make(v * 2 for v in (x, x)), Pair._make(x.reshape(2, -1)))


@pytest.mark.parametrize("dtype", [np.float64, np.int16])
def test_namedtuple_make_of_runtime_values(dtype):
    same(namedtuple_make, np.array([-1, 3, 2, 0]).astype(dtype))


def namedtuple_make_too_short(x):
    return Pair._make([x.min()])


def namedtuple_missing_field(x):
    return Bounds(x)


def namedtuple_extra_field(x):
    return Pair(x, x, x)


def test_namedtuple_wrong_arguments_are_pythons_type_error():
    raises_at(namedtuple_make_too_short, (np.arange(3.0),), TypeError,
              match="Expected 2 arguments, got 1", cache=False)
    raises_at(namedtuple_missing_field, (np.arange(3.0),), TypeError,
              match="missing 1 required positional argument: 'hi'", line_of="Bounds(x)",
              cache=False)
    raises_at(namedtuple_extra_field, (np.arange(3.0),), TypeError,
              match="takes 3 positional arguments but 4 were given", line_of="Pair(x, x, x)",
              cache=False)


# --- bug_09: the identity-recompile warning names the right class --------------------------

class Plain:
    def __init__(self, k):
        self.k = k


class Other:
    def __init__(self, k):
        self.k = k


class Color(enum.Enum):
    RED = 1
    GREEN = 2


def scaled_by(x, c):
    return x * (c.value if isinstance(c, Color) else c.k)


def _recompile_warnings(calls):
    f = tpucc.compile(scaled_by, cache=False)
    x = np.ones(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for c in calls:
            np.testing.assert_array_equal(f(x, c), scaled_by(x, c))
    return [str(w.message) for w in caught if issubclass(w.category, tpucc.RecompileWarning)]


def test_identity_warning_does_not_blame_an_enum_member():
    from tpucc.api import IDENTITY_WARN_AFTER
    calls = [Plain(i) for i in range(IDENTITY_WARN_AFTER - 1)] + [Color.RED, Color.GREEN,
                                                                  Color.RED]
    assert _recompile_warnings(calls) == []


def test_identity_warning_names_the_class_of_the_new_objects():
    from tpucc.api import IDENTITY_WARN_AFTER
    n = IDENTITY_WARN_AFTER
    calls = [Other(0)] * 3 + [Plain(i) for i in range(n - 1)] + [Other(1), Plain(n)]
    found = _recompile_warnings(calls)
    assert len(found) == 1 and "new Plain objects passed as `c`" in found[0], found
