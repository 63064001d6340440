"""Session 45 K2: a user iterator whose __next__ raises StopIteration under a
runtime condition (`if self.i >= self.limit: raise StopIteration`, the limit
an argument) compiles: the raise returns from __next__ with a `<stopped>`
flag set, and a `for` loop over the iterator leaves on that flag at run time
(a While once it is not unrolled), as a loop over a range with a runtime
bound does.  next(it, default) chooses between the item and a default of
the item's kind; what cannot know its length while compiling (list(it),
next(it) without a default) is refused at the user's line."""
import copy

import numpy as np
import pytest

import tpucc
from conftest import assert_same, raises_at


def same(fn, *args):
    """Compiled fn (no cache) and eager fn on copies of args: equal results
    (values, dtypes, Python types) and equal arguments afterwards."""
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = fn(*eager_args)
    actual = tpucc.compile(fn, cache=False)(*comp_args)
    assert_same(expected, actual)
    for e, a in zip(eager_args, comp_args):
        if isinstance(e, Countdown):
            assert type(a.i) is type(e.i) and a.i == e.i
        else:
            assert_same(e, a)
    return actual


class Countdown:
    """The sweep's repro: items x[0], x[1], ... up to a runtime limit."""

    def __init__(self, x, limit):
        self.x, self.i, self.limit = x, 0, limit

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.limit:          # limit is a runtime value
            raise StopIteration
        v = self.x[self.i]
        self.i += 1
        return v


class Doubles:
    """Python int items: 2, 4, 6, ... up to a runtime count."""

    def __init__(self, limit):
        self.i, self.limit = 0, limit

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.limit:
            raise StopIteration
        self.i += 1
        return self.i * 2


class Pairs:
    """(index, item) tuples; the raise after the `if` that returns."""

    def __init__(self, x, limit):
        self.x, self.i, self.limit = x, 0, limit

    def __iter__(self):
        return self

    def __next__(self):
        i = self.i
        if i < self.limit:
            self.i = i + 1
            return i, self.x[i]
        raise StopIteration()


class NonZeros:
    """Skips zeros in a runtime `while` of its own, then stops at the end."""

    def __init__(self, x):
        self.x, self.i = x, 0

    def __iter__(self):
        return self

    def __next__(self):
        while self.i < len(self.x) and self.x[self.i] == 0:
            self.i += 1
        if self.i >= len(self.x):
            raise StopIteration
        v = self.x[self.i]
        self.i += 1
        return v


class NonZerosUpTo:
    """Its raise inside a `while True` of its own, which returns an item."""

    def __init__(self, x, n):
        self.x, self.i, self.n = x, 0, n

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            if self.i >= self.n:
                raise StopIteration
            v = self.x[self.i]
            self.i += 1
            if v != 0:
                return v


class Box:
    """A container whose __iter__ makes a separate iterator object."""

    def __init__(self, x, limit):
        self.x, self.limit = x, limit

    def __iter__(self):
        return BoxIterator(self)


class BoxIterator:
    def __init__(self, box):
        self.box, self.i = box, 0

    def __next__(self):
        if self.i >= self.box.limit:
            raise StopIteration
        self.i += 1
        return self.box.x[self.i - 1]


def total(x, limit):
    s = np.float64(0.0)
    for v in Countdown(x, limit):
        s += v
    return s


LIMITS = [0, 1, 4, 6]


# --- a `for` loop over the iterator -----------------------------------------------------

@pytest.mark.parametrize("limit", LIMITS)
def test_sum_of_the_sweep_repro(limit):
    same(total, np.arange(6.0), np.int64(limit))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.complex128])
@pytest.mark.parametrize("limit", [0, 3])
def test_sum_over_other_dtypes(dtype, limit):
    def f(x, limit):
        s = x[0] * 0
        for v in Countdown(x, limit):
            s = s + v
        return s
    same(f, np.arange(1, 6).astype(dtype), np.int64(limit))


def test_one_compiled_function_for_every_limit():
    f = tpucc.compile(total, cache=False)
    x = np.arange(6.0)
    for limit in (3, 0, 6, 2):
        assert_same(total(x, np.int64(limit)), f(x, np.int64(limit)))


@pytest.mark.parametrize("limit", LIMITS)
def test_early_break_and_the_iterators_state_after(limit):
    def f(x, limit):
        s = x[0] * 0
        it = Countdown(x, limit)
        for v in it:
            if v > 2:
                break
            s = s + v
        return s, it.i
    same(f, np.arange(6.0), np.int64(limit))


@pytest.mark.parametrize("limit", LIMITS)
def test_state_after_a_full_loop_and_a_python_int_counter(limit):
    def f(x, limit):
        it = Countdown(x, limit)
        n = 0
        for _ in it:
            n += 1
        return n, it.i
    same(f, np.arange(6.0), np.int64(limit))


@pytest.mark.parametrize("limit", [0, 2, 4])
def test_rows_of_a_2d_array(limit):
    def f(a, limit):
        acc = np.zeros(a.shape[1], a.dtype)
        for r in Countdown(a, limit):
            acc = acc + r * 2
        return acc
    same(f, np.arange(12, dtype=np.int32).reshape(4, 3), np.int64(limit))
    same(f, np.arange(12.0).reshape(4, 3), np.int64(limit))


@pytest.mark.parametrize("limit", [0, 3])
def test_python_int_items(limit):
    def f(limit):
        t = 0
        for v in Doubles(limit):
            t += v
        return t
    same(f, np.int64(limit))


@pytest.mark.parametrize("limit", [0, 2, 5])
def test_tuple_items_and_a_raise_after_the_return(limit):
    def f(x, limit):
        s = 0.0
        for i, v in Pairs(x, limit):
            s += i * v
        return s
    same(f, np.arange(5, dtype=np.float32), np.int64(limit))


@pytest.mark.parametrize("limit", [0, 3, 5])
def test_for_else(limit):
    def f(x, limit):
        for _, v in Pairs(x, limit):
            if v > 3:
                r = 1
                break
        else:
            r = 2
        return r
    same(f, np.arange(5.0), np.int64(limit))


def test_loop_inside_a_runtime_if_and_inside_a_static_loop():
    def in_if(x, limit):
        s = x.sum() * 0
        if x[0] > -1:
            for v in Countdown(x, limit):
                s = s + v
        return s

    def nested(x, limit):
        s = np.float32(0)
        for k in range(3):
            for v in Countdown(x, limit):
                s = s + v * k
        return s
    x = np.arange(6.0, dtype=np.float32)
    for limit in (0, 3):
        same(in_if, x, np.int64(limit))
        same(nested, x, np.int64(limit))


def test_a_loop_longer_than_the_unroll_budget():
    same(total, np.arange(3000.0), np.int64(2500))


@pytest.mark.parametrize("x", [np.array([0, 3, 0, 0, 5, 0]), np.array([0, 0]),
                               np.array([1, 2, 3])])
def test_next_with_a_runtime_while_of_its_own(x):
    def f(x):
        n = 0
        s = x[0] * 0
        for v in NonZeros(x):
            n += 1
            s = s + v
        return n, s
    same(f, x)


@pytest.mark.parametrize("n", [0, 3, 6])
def test_a_raise_inside_a_while_of_next(n):
    def f(x, n):
        s = x[0] * 0
        k = 0
        for v in NonZerosUpTo(x, n):
            s = s + v
            k += 1
        return s, k
    same(f, np.array([0, 2, 0, 3, 0, 4]), np.int64(n))
    same(f, np.array([0, 2, 0, 3, 0, 4], np.float32), np.int64(n))


@pytest.mark.parametrize("limit", [0, 3])
def test_a_containers_separate_iterator(limit):
    def f(x, limit):
        s = np.int32(0)
        for v in Box(x, limit):
            s += v
        return s
    same(f, np.arange(5, dtype=np.int32), np.int64(limit))


@pytest.mark.parametrize("limit", [0, 2, 5])
def test_an_iterator_passed_in_is_left_where_the_loop_left_it(limit):
    def f(it):
        s = 0.0
        for v in it:
            s += v
            if s > 6:
                break
        return s
    same(f, Countdown(np.arange(6.0), np.int64(limit)))


def test_index_past_the_end_is_numpys_index_error_at_run_time():
    with pytest.raises(IndexError):
        total(np.arange(3.0), np.int64(5))
    with pytest.raises(IndexError, match="out of bounds") as info:
        tpucc.compile(total, cache=False)(np.arange(3.0), np.int64(5))
    assert "v = self.x[self.i]" in str(info.value)      # (__next__'s line, and the loop's)
    assert "for v in Countdown(x, limit)" in str(info.value)


# --- next() ---------------------------------------------------------------------------

@pytest.mark.parametrize("limit", [0, 1, 3])
def test_next_with_a_default_of_the_items_kind(limit):
    def floats(x, limit):
        it = Countdown(x, limit)
        a = next(it, np.float64(-1.0))
        b = next(it, np.float64(-1.0))
        return a, b, it.i

    def ints(limit):
        it = Doubles(limit)
        return next(it, -1), next(it, -1)

    def rows(a, limit):
        return next(Countdown(a, limit), np.zeros(3, a.dtype))
    same(floats, np.arange(6.0), np.int64(limit))
    same(ints, np.int64(limit))
    same(rows, np.arange(12.0).reshape(4, 3), np.int64(limit))


def test_next_without_a_default_is_refused_at_the_users_line():
    def f(x, limit):
        return next(Countdown(x, limit))
    raises_at(f, (np.arange(6.0), np.int64(2)), tpucc.TpuccError,
              match=r"next\(it\) on a Countdown iterator whose __next__ raises StopIteration "
                    "under a runtime condition", line_of="return next(", cache=False)


def test_next_with_a_default_of_another_kind_is_refused():
    def f(x, limit):
        return next(Countdown(x, limit), None)
    raises_at(f, (np.arange(6.0), np.int64(2)), tpucc.TpuccError,
              match="default of another kind", line_of="return next(", cache=False)


# --- what must know the items while compiling -------------------------------------------

def test_list_of_it_is_refused_at_the_users_line():
    def f(x, limit):
        return list(Countdown(x, limit))
    raises_at(f, (np.arange(6.0), np.int64(2)), tpucc.TpuccError,
              match=r"taking the items of a Countdown iterator.*at compile time",
              line_of="return list(", cache=False)


class RaisedByAHelper:
    def __init__(self, x, limit):
        self.x, self.i, self.limit = x, 0, limit

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.limit:
            _stop()
        self.i += 1
        return self.x[self.i - 1]


def _stop():
    raise StopIteration


def test_stop_raised_by_a_function_next_calls_is_refused_with_what_to_write():
    def f(x, limit):
        s = 0.0
        for v in RaisedByAHelper(x, limit):
            s = s + v
        return s
    with pytest.raises(tpucc.TpuccError, match="raise it there") as info:
        tpucc.compile(f, cache=False)(np.arange(6.0), np.int64(3))
    assert "StopIteration under a runtime condition" in str(info.value)
    assert "for v in RaisedByAHelper" in str(info.value)


def test_a_comprehension_over_it_names_the_iterator():
    def f(x, limit):
        return sum([v * 2 for v in Countdown(x, limit)])
    raises_at(f, (np.arange(6.0), np.int64(3)), tpucc.TpuccError,
              match="user iterator whose __next__ raises StopIteration", cache=False)
