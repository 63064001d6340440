"""User classes' protocols compiled as Python runs them: the iterator
protocol (__iter__ returning an object with __next__, in `for`, next(),
list()), __reversed__ asked for before __len__/__getitem__, an __index__
object indexing an array as its int does (a NumPy scalar), and
functools.cached_property traced like a property, its value cached in the
instance dict."""
import functools

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at

X = np.arange(4.0)


class Counter:
    def __init__(self, n):
        self.n, self.i = n, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.i


# --- the iterator protocol --------------------------------------------------------------

def test_for_over_user_iterator():
    def f(x):
        tot = x * 0
        for k in Counter(3):
            tot = tot + k * x
        return tot
    check(f, X)


def test_next_of_user_iterator_and_default():
    def f(x):
        it = Counter(2)
        a, b = next(it), next(it)
        return x * a, b, next(it, -1), it.i
    check(f, X)


def test_next_past_the_end_raises_stop_iteration_the_program_catches():
    def f(x):
        it = Counter(1)
        next(it)
        try:
            next(it)
        except StopIteration:
            return x + 1
        return x
    check(f, X)


def test_consumers_read_all_items():
    def f(x):
        a, b, c = Counter(3)
        return list(Counter(4)), sum(Counter(3)) * x, a + b + c, sorted(Counter(2), reverse=True)
    check(f, X)


def test_iter_and_loop_continue_where_next_left():
    def f(x):
        it = iter(Counter(4))
        first = next(it)
        rest = [k * x for k in it]
        return first, rest
    check(f, X)


class Rows:
    """A container whose __iter__ gives a separate iterator object."""

    def __init__(self, a):
        self.a = a

    def __iter__(self):
        return RowIter(self.a)


class RowIter:
    def __init__(self, a):
        self.a, self.k = a, 0

    def __next__(self):
        if self.k == len(self.a):
            raise StopIteration
        self.k += 1
        return self.a[self.k - 1]


def test_separate_iterator_class_over_array_rows():
    def f(x):
        out = []
        for r in Rows(x.reshape(2, 2)):
            out.append(r.sum())
        return out, [r * 2 for r in Rows(x)]
    check(f, X)


class Doubled:
    """Its __next__ ends where the iterator it wraps does (next() raising)."""

    def __init__(self, xs):
        self.it = iter(xs)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self.it) * 2


def test_stop_iteration_from_a_wrapped_iterator_ends_the_loop():
    def f(x):
        return [v for v in Doubled([x, x + 1])], list(Doubled([1, 2]))
    check(f, X)


class Endless:
    def __init__(self):
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.i += 1
        return self.i


def test_endless_iterator_left_by_break():
    def f(x):
        for k in Endless():
            x = x + k
            if k == 3:
                break
        return x
    check(f, X)


def test_loop_over_user_iterator_inside_runtime_if():
    def f(x):
        if x.sum() > 0:
            for k in Counter(2):
                x = x * k + 1
        return x
    check(f, X)
    check(f, -X - 1)


class RuntimeStop:
    def __init__(self, x):
        self.x = x

    def __iter__(self):
        return self

    def __next__(self):
        if self.x.sum() > 10:
            raise StopIteration
        self.x = self.x + 1
        return self.x


def test_next_ending_on_a_runtime_value_ends_the_loop_at_run_time():
    # (session 45: a runtime loop that leaves where __next__ stops; was refused)
    def f(x):
        tot = x * 0
        for v in RuntimeStop(x):
            tot = tot + v
        return tot
    check(f, X)
    check(f, X + 20)


class NotAnIterator:
    def __iter__(self):
        return self


def test_iter_returning_a_non_iterator_is_the_programs_type_error():
    def f(x):
        for v in NotAnIterator():
            x = x + v
        return x
    with pytest.raises(TypeError):
        f(X)
    raises_at(f, (X,), tpucc.TpuccError, match="non-iterator of type 'NotAnIterator'",
              line_of="for v in NotAnIterator")


# --- __reversed__ ---------------------------------------------------------------------

class Layers:
    def __init__(self, ws):
        self.ws = ws

    def __len__(self):
        return len(self.ws)

    def __getitem__(self, i):
        return self.ws[i]

    def __reversed__(self):     # the backward pass skips the input layer
        return iter(self.ws[:0:-1])


class OnlyReversed:
    def __init__(self, a):
        self.a = a

    def __reversed__(self):
        return iter([self.a, self.a * 2])


class CountDown:
    def __init__(self, n):
        self.n = n

    def __reversed__(self):
        return Counter(self.n)


def test_reversed_calls_the_users_reversed():
    def f(x):
        L = Layers([x, x * 2, x * 3])
        return [w.sum() for w in reversed(L)], list(reversed(OnlyReversed(x))), \
            [k * x for k in reversed(CountDown(2))]
    check(f, X)


def test_reversed_without_dunder_still_uses_len_and_getitem():
    class Seq:
        def __init__(self, ws):
            self.ws = ws

        def __len__(self):
            return len(self.ws)

        def __getitem__(self, i):
            return self.ws[i]

    def f(x):
        return [w.sum() for w in reversed(Seq([x, x * 2, x * 3]))]
    check(f, X)


# --- __index__ --------------------------------------------------------------------------

class Idx:
    def __index__(self):
        return 1


def test_index_object_gives_numpy_scalar():
    def f(x):
        return x[0][Idx()], x[0, Idx()], x[Idx(), Idx()], x[Idx()], x[Idx(), 1:]
    check(f, np.arange(12.0).reshape(3, 4))


def test_index_object_in_itemgetter_and_lists():
    import operator

    def f(x):
        return operator.itemgetter(Idx())(x[0]), [x, x + 1][Idx()], (1, 2)[Idx()]
    check(f, np.arange(12.0).reshape(3, 4))


# --- functools.cached_property ----------------------------------------------------------

class Lazy:
    def __init__(self, a):
        self.a = a
        self.computed = 0

    @functools.cached_property
    def tot(self):
        self.computed += 1
        return self.a.sum() * 2


def test_cached_property_traced_and_cached():
    def f(x):
        lz = Lazy(x)
        first = lz.tot
        lz.a = x * 10           # cached: not computed again
        return first, lz.tot + 1, lz.computed
    check(f, X)


def test_cached_property_computed_under_a_runtime_condition():
    def f(x):
        lz = Lazy(x)
        if x[0] > 0:
            y = lz.tot
        else:
            y = x.sum()
        return y, lz.computed

    def g(x):
        lz = Lazy(x)
        y = lz.tot
        if x[0] > 0:
            y = lz.tot + 1      # cached before the `if`: only read here
        return y, lz.computed
    # caching it on one path only would give the object another structure there,
    # as `lz.tot = ...` would: refused at the read, as that assignment is
    raises_at(f, (X,), tpucc.TpuccError, match="attribute `tot` inside a runtime",
              line_of="y = lz.tot")
    check(g, X)
    check(g, X + 1)


def test_cached_property_of_outside_object_already_cached():
    lz = Lazy(X)
    assert lz.tot == 12.0

    def f(x):
        return x + lz.tot
    check(f, X)


def test_cached_property_of_outside_object_not_cached_is_refused():
    lz = Lazy(X)

    def f(x):
        return x + lz.tot
    raises_at(f, (X,), tpucc.TpuccError, match="cached_property.*outlive the call",
              line_of="lz.tot")
    assert "tot" not in vars(lz)        # nothing ran natively
