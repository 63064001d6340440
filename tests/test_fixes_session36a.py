"""Bugs from session 36's sweep 36f, fixed in session 36 (batch a): each
program now gives eager NumPy's (and Python's) result, or an error that says
what is wrong and what to do."""
import enum
import typing

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at
import user_programs_session16 as P  # noqa: E402  (its asserts must stay Python's)


# --- a tuple subclass's own operators: V + V calls V.__add__, not tuple's -----------------

class _V(typing.NamedTuple):
    x: np.ndarray
    y: np.ndarray

    def __add__(self, o):
        return _V(self.x + o.x, self.y + o.y)

    def __mul__(self, k):
        return _V(self.x * k, self.y * k)

    __rmul__ = __mul__


class _Pair(tuple):
    def __add__(self, o):
        return len(self) * 10 + len(o)


class _Plain(typing.NamedTuple):
    x: np.ndarray
    y: float


def test_tuple_subclass_operators_are_its_own():
    def f(a):
        v = _V(a, a * 2)
        s, m, r = v + v, v * 2, 3 * v
        v += v
        return s, m, r, v, _Pair((1, 2)) + _Pair((3,))
    check(f, np.array([1.0, 2.0]))


def test_namedtuple_without_operators_still_concatenates():
    def f(a):
        p = _Plain(a, 1.0)
        return p + p, p * 2, p + (a,), [a] + [p.y]
    check(f, np.array([1.0, 2.0]))


# --- an IntEnum member chosen at run time: refused as an Enum's (it came out a number) ---

class _State(enum.IntEnum):
    IDLE = 0
    RUN = 1


def test_intenum_member_chosen_at_run_time_stays_the_member():
    def chosen(x):
        st = _State.IDLE
        if x[0] > 1:
            st = _State.RUN
        return x * (st is _State.RUN), st

    def by_value(x):
        st = _State.IDLE.value
        if x[0] > 1:
            st = _State.RUN.value
        return x * (st == _State.RUN.value), st
    for x in (np.array([2.0]), np.array([0.0])):
        check(chosen, x)        # (the caller gets the member, not its number)
        check(by_value, x)


def test_intenum_member_the_same_on_every_path_stays_the_member():
    def f(x):
        st = _State.RUN
        if x[0] > 1:
            st = _State.RUN
        return x * st, st, st.name
    check(f, np.array([2.0]))


# --- max/min of a narrow NumPy integer and a Python int beyond its range: no wrapping ---

def test_max_min_of_narrow_integer_and_python_int_beyond_its_range():
    def decided(img):
        a = img[1]
        return max(a, 300), min(a, -1), max(a, img[2], 400, 300), min(-7, a, -3)

    def dropped(img):         # the int that can never win is left out: no wrapped 300 -> 44
        a = img[1]
        return min(a, 300), max(a, -1), max(a, img[2], -5)
    for img in (np.array([0, 7, 9], dtype=np.uint8), np.array([0, 255, 1], dtype=np.uint8)):
        check(decided, img)
        check(dropped, img)


# --- min/max with a runtime key over Python numbers gives a Python number ---------------

def test_min_max_by_runtime_key_of_python_numbers_is_a_python_number():
    def f(losses):
        best = min(range(3), key=lambda i: losses[i])
        worst = max((0.5, 1.5, 2.5), key=lambda t: losses[int(t)])
        return best, np.int8(3) + best, worst, np.float32(1) * worst
    check(f, np.array([3.0, 1.0, 2.0]))
    check(f, np.array([0.0, 1.0, 5.0]))


# --- sorted()/max()/min() of tuples told apart by static items --------------------------

def test_sorted_and_max_of_items_ordered_by_static_names():
    def layers(params, x):
        for name, w in sorted(params.items()):
            x = np.tanh(x @ w)
        return x, max(params.items())[0], min(params.items())[1]

    def numbered(x):
        return sorted([(2, x[0]), (1, x[1]), (3, x)]), sorted([("b", x), ("a", x * 2)],
                                                             reverse=True)
    check(layers, {"l2": np.eye(2) * 0.5, "l1": np.ones((2, 2))}, np.array([1.0, -2.0]))
    check(numbered, np.array([1.0, 2.0]))


def test_sorted_of_tuples_ordered_by_runtime_items_is_still_refused():
    raises_at(lambda x: sorted([(x[1], "b"), (x[0], "a")]), (np.ones(2),), E.StaticValueError,
              r"told apart only by their runtime items(.|\n)*np.lexsort", line_of="sorted(")


def test_min_of_tuples_with_text_names_the_text_and_its_hint_compiles():
    def by_name(x):
        return min(zip([x[0], x[1], x[2]], ["a", "b", "c"]))

    def by_position(x):         # the hint
        return min(zip([x[0], x[1], x[2]], range(3)))
    raises_at(by_name, (np.array([3.0, 1.0, 2.0]),), E.StaticValueError,
              r"items at position 1 differ \('a', 'b', 'c'\) and are not numbers(.|\n)*"
              r"zip\(losses, range\(n\)\)", line_of="min(")
    check(by_position, np.array([3.0, 1.0, 2.0]))


# --- an E700 is also an instance of the exception the program raised -------------------

class _NeedMatrix(ValueError):
    def __init__(self, message, ndim):
        super().__init__(message)
        self.ndim = ndim


def test_user_code_error_is_an_instance_of_what_was_raised():
    def f(x, y=None, /):
        if x.ndim != 2:
            raise _NeedMatrix("need a matrix", x.ndim)
        return {"a": x}["b"]
    cf = tpucc.compile(f)
    with pytest.raises(TypeError, match="missing a required argument"):
        cf()
    with pytest.raises(TypeError, match="positional only"):
        cf(np.ones((2, 2)), y=1)
    with pytest.raises(AssertionError, match=r"\[E700\] AssertionError: expected a matrix") as e:
        tpucc.compile(P.checked_normalize)(np.ones(3))      # (its assert is Python's)
    assert isinstance(e.value, tpucc.UserCodeError) and e.value.code == "E700"
    with pytest.raises(_NeedMatrix) as e:
        cf(np.ones(3))
    assert e.value.ndim == 1 and e.value.loc.line > 0
    with pytest.raises(KeyError) as e:       # its message, not KeyError's quoted repr
        cf(np.ones((2, 2)))
    assert str(e.value).startswith("[E700] KeyError: 'b'\n")


# --- a runtime check's message may compute static values: {len(x)}, {-tol} -------------

def test_runtime_raise_message_with_static_expressions():
    def f(x, tol=0.5):
        err = np.abs(x).max()
        if err >= 3:
            raise AssertionError(f"error {err} too big for {len(x)} rows")
        if err > 2 + tol:
            raise ValueError(f"{err} beyond {-tol} or {x.shape[0] + 1} {abs(-tol)}")
        return x * 2
    cf = tpucc.compile(f)
    x = np.arange(6.0).reshape(3, 2) - 2
    with pytest.raises(AssertionError, match=r"\[E910\] error 3.0 too big for 3 rows"):
        cf(x)
    with pytest.raises(ValueError, match=r"\[E910\] 2.75 beyond -0.5 or 4 0.5"):
        cf(x * 0.9166666666666666)
    check(f, x / 10)


def test_runtime_raise_message_computing_on_runtime_values_is_still_refused():
    # (computed on every path, x[i] would check its index where the raise does not run)
    def f(x, i):
        if x.sum() > 100:
            raise ValueError(f"too big at {x[i]}")
        return x
    raises_at(f, (np.ones(3), np.int64(1)), E.StaticValueError,
              "formatting a runtime value", line_of="raise ValueError")
