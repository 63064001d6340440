"""Session 48 N2: the standard library inside numeric code.

bug_04: math.gcd/lcm/isqrt/factorial/comb/perm took a NumPy bool (and an
0-d or 1-d array) as an int; they now read the argument's __index__ as
operator.index does (Python's TypeError), and math.ldexp's exponent must be
a Python int, as eagerly.
bug_02: np.stack/np.array/np.concatenate of a deque of runtime arrays were
refused (E100): NumPy reads a deque as the sequence of its items.
bug_03: deque.count()/deque.index() of runtime values were refused (E100):
they compare the items at run time as list.count()/list.index() do.
bug_07: enumerate(<list>, start=<runtime int>) was refused (E400).
lru_cache note: a cache hit between calls with arguments of different
types (float(x[0]) then x[0]) returned np.float64 compiled where Python's
cache returns the earlier Python float: the answer is now the earlier one
where the keys are equal at run time, held with its Python type
(held_ints); an earlier answer of another kind (an array of another
dtype) is refused (E400).  functools' own key for one int or str argument
(never equal to f(2.0)'s) is followed too.
"""
from __future__ import annotations

import functools
import math
from collections import deque

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import raises_at, same


def eager_error(fn, *args):
    with pytest.raises(Exception) as info:
        fn(*args)
    return info.value


def both_raise(fn, args, error=E.UserCodeError, line_of=None):
    """Eager raises TypeError; compiled raises the same message as `error`."""
    eager = eager_error(fn, *args)
    err = raises_at(fn, args, error, line_of=line_of, cache=False)
    assert str(eager) in str(err), (eager, err)
    return err


# --- bug_04: math's integer functions read __index__ -------------------------------------

def gcd_item(b):
    return math.gcd(b[0], 2)


def comb_item(b):
    return math.comb(5, b[0])


def lcm_item(b):
    return math.lcm(3, b[0])


def isqrt_item(b):
    return math.isqrt(b[0])


def factorial_item(b):
    return math.factorial(b[0])


def perm_item(b):
    return math.perm(5, b[0])


def gcd_0d(b):
    return math.gcd(b.reshape(()), 6)


def gcd_1d(b):
    return math.gcd(b[:1], 6)


def gcd_static_numpy_bool(b):
    return math.gcd(np.True_, int(b[0]))


INT_FUNCTIONS = [gcd_item, comb_item, lcm_item, isqrt_item, factorial_item, perm_item]


@pytest.mark.parametrize("fn", INT_FUNCTIONS)
@pytest.mark.parametrize("b", [np.array([True]), np.array([2.0]), np.array([1.5], np.float32)])
def test_math_int_functions_refuse_numpy_bool_and_float(fn, b):
    both_raise(fn, (b,), line_of="math.")


@pytest.mark.parametrize("fn", INT_FUNCTIONS)
@pytest.mark.parametrize("b", [np.array([4]), np.array([3], np.uint8), np.array([2], np.int32)])
def test_math_int_functions_take_numpy_ints(fn, b):
    same(fn, b)


def test_math_gcd_float_message_names_numpy_type():
    err = both_raise(gcd_item, (np.array([4.0]),))
    assert "'numpy.float64' object" in str(err)


@pytest.mark.parametrize("b", [np.array([True]), np.array([2.5])])
def test_math_gcd_of_arrays_refused(b):
    both_raise(gcd_1d, (b,), line_of="math.gcd")
    both_raise(gcd_0d, (b[:1],), line_of="math.gcd")


def test_math_gcd_of_integer_arrays():
    same(gcd_0d, np.array([4]))


def test_math_gcd_static_numpy_bool_refused():
    both_raise(gcd_static_numpy_bool, (np.array([4]),), line_of="math.gcd")


def test_math_python_bool_is_an_int():
    same(lambda b: (math.gcd(bool(b[0]), 2), math.comb(5, bool(b[0])),
                    math.factorial(bool(b[0]))), np.array([True]))


def ldexp_item(b):
    return math.ldexp(1.5, b[0])


@pytest.mark.parametrize("b", [np.array([3]), np.array([True]), np.array([2.0])])
def test_math_ldexp_exponent_must_be_python_int(b):
    both_raise(ldexp_item, (b,), line_of="math.ldexp")


def test_math_ldexp_python_int_exponent():
    same(lambda b: (math.ldexp(1.5, int(b[0])), math.ldexp(b[1], bool(b[0]))),
         np.array([3.0, 0.25]))


# --- bug_02: NumPy reads a deque as a sequence --------------------------------------------

def stack_frames(x):
    frames = deque(maxlen=2)
    for i in range(3):
        frames.append(x * i)
    return np.stack(frames)


def array_of_deque(x):
    return np.array(deque([x[0], x[1]]))


def concatenate_deque(x):
    d = deque([x[:2], x[1:]])
    return np.concatenate(d)


def joined_on_axes(x):
    d = deque(maxlen=3)
    for i in range(4):
        d.append(x.reshape(1, -1) + i)
    return np.concatenate(d, axis=1), np.vstack(d), np.stack(d, axis=-1)


def numbers_of_deque(x):
    d = deque()
    for v in x:
        d.append(float(v))
    return np.array(d), np.asarray(d, dtype=np.float32), np.mean(d), np.sum(d)


def appended_left(x):
    d = deque(maxlen=2)
    for i in range(3):
        d.appendleft(x * i)
    return np.stack(d), np.array(d, dtype=np.int32)


FRAMES = deque([np.ones(3), np.arange(3.0)])


def global_deque(x):
    return np.stack(FRAMES) * x


@pytest.mark.parametrize("fn", [stack_frames, array_of_deque, concatenate_deque,
                                appended_left, global_deque])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_numpy_of_deque(fn, dtype):
    same(fn, np.arange(3).astype(dtype))


def test_numpy_of_deque_axes():
    same(joined_on_axes, np.arange(3, dtype=np.int16))


def test_numpy_of_deque_of_python_numbers():
    same(numbers_of_deque, np.arange(3.0))
    same(lambda x: (np.array(deque(x.tolist(), maxlen=3)), np.max(deque(x.tolist()))),
         np.array([1, 5, 2, 7]))


def test_numpy_of_deque_argument():
    d = deque([np.ones(2), np.zeros(2)])
    out = tpucc.compile(lambda d: np.stack(d), cache=False)(d)
    np.testing.assert_array_equal(out, np.stack(d))
    assert out.dtype == np.float64


# --- bug_03: deque.count / deque.index of runtime values ----------------------------------

def recent_hits(x):
    d = deque(x.tolist(), maxlen=4)
    return d.count(1)


def counts_of_floats(x):
    d = deque(maxlen=3)
    for v in x:
        d.append(float(v))
    return d.count(2.0), d.count(x[1]), d.count(True)


def deque_index(x):
    d = deque(x.tolist())
    return d.index(3), d.index(1, 1), d.index(1, -3, 5)


def mixed_items(x):
    d = deque([1, int(x[0]), 2, int(x[1])])
    return d.count(1), d.index(2), d.count(x[1])


@pytest.mark.parametrize("x", [np.array([1, 2, 1, 1, 3]), np.array([1.0, 2.0, 1.0, 1.0, 3.0]),
                               np.array([0, 0, 1], np.uint8)])
def test_deque_count(x):
    same(recent_hits, x)


def test_deque_count_float_items():
    same(counts_of_floats, np.array([2.0, 3.0, 2.0, 2.0]))
    same(counts_of_floats, np.array([1.0, 1.0, 1.0]))


def test_deque_index():
    same(deque_index, np.array([1, 2, 1, 3, 1]))


@pytest.mark.parametrize("x", [np.array([1, 2]), np.array([3, 2])])
def test_deque_count_index_static_and_runtime_items(x):
    same(mixed_items, x)


def missing(x):
    d = deque(x.tolist())
    return d.index(9)


def missing_in_window(x):
    d = deque(x.tolist())
    return d.index(2, 2, 4)


@pytest.mark.parametrize("fn", [missing, missing_in_window])
def test_deque_index_missing_raises_value_error(fn):
    x = np.array([1, 2, 1, 3, 1])
    eager = eager_error(fn, x)
    with pytest.raises(E.TpuccError) as info:
        tpucc.compile(fn, cache=False)(x)
    assert f"ValueError: {eager}" in str(info.value)     # "9 is not in deque"


# --- bug_07: enumerate with a runtime start ------------------------------------------------

def numbered(x, s):
    return [(i, v) for i, v in enumerate(x.tolist(), start=s)]


def weighted_sum(x, s):
    t = 0
    for i, v in enumerate([x[0], x[1], 2.0], s):
        t += i * v
    return t


def held_enumerate(x, s):
    e = enumerate(x.tolist(), s)
    first = next(e)
    return first, list(e)


def over_dict(x, s):
    return [(i, k) for i, k in enumerate({"a": 1, "b": 2}, start=s)]


def over_str_zip_gen_range(x, s):
    return (list(enumerate("xyz", s)), list(enumerate(zip(x.tolist(), "ab"), s)),
            list(enumerate((v * 2 for v in x.tolist()), s)), list(enumerate(range(3), s)))


def until_big(x, s):
    last = 0
    for i, v in enumerate(x.tolist(), s):
        if v > 1.5:
            break
        last = i
    return last


@pytest.mark.parametrize("fn", [numbered, weighted_sum, held_enumerate, over_dict,
                                over_str_zip_gen_range, until_big])
@pytest.mark.parametrize("s", [np.int64(5), np.int32(-2), np.uint8(3)])
def test_enumerate_runtime_start(fn, s):
    same(fn, np.array([1.0, 2.0, 3.0]), s)


def test_enumerate_python_int_and_bool_start():
    same(lambda x: (list(enumerate(x.tolist(), int(x[0]))),
                    list(enumerate(("a", "b"), bool(x[0])))), np.array([3, 4]))


@pytest.mark.parametrize("s", [np.float64(5), np.True_, np.array([1])])
def test_enumerate_start_without_index_refused(s):
    both_raise(numbered, (np.array([1.0, 2.0]), s), line_of="enumerate")


# --- lru_cache: a hit between arguments of different types -------------------------------

@functools.lru_cache
def powsum(p, x):
    return x ** p + 1.0


@functools.lru_cache(typed=True)
def powsum_typed(p, x):
    return x ** p + 1.0


def cached_float_then_numpy(x):
    return powsum(2, float(x[0])) + powsum(3, float(x[1])), powsum(2, x[0])


def cached_same_types(x):
    return powsum(2, float(x[0])), powsum(2, float(x[1])), powsum(3, x[0]), powsum(3, x[1])


def cached_typed(x):
    return powsum_typed(2, float(x[0])), powsum_typed(2, x[0])


def cached_other_static_key(x):
    return powsum(2, float(x[0])), powsum(3, x[0])


def local_cache(x):
    @functools.cache
    def twice(v):
        return v * 2
    return twice(int(x[0])), twice(float(x[1])), twice(bool(x[2]))


def local_cache_three_types(x):
    @functools.cache
    def g(v):
        return v * 3
    return g(x[0]), g(int(x[1])), g(float(x[2]))


def local_cache_array_answer(x):
    @functools.cache
    def full(n, v):
        return np.full(2, v)
    return full(2, int(x[0])), full(2, float(x[1]))


@pytest.mark.parametrize("x", [np.array([1.5, 2.0]), np.array([1.5, 1.5]),
                               np.array([2.0, 1.5])])
def test_cache_hit_gives_the_earlier_answer_of_another_type(x):
    powsum.cache_clear()
    same(cached_float_then_numpy, x)       # (a Python float where x[0] == x[1]... eagerly)


@pytest.mark.parametrize("x", [[4, 4, 1], [4, 5, 0], [1, 1, 1], [2, 1, 1]])
def test_local_cache_int_float_bool_keys(x):
    same(local_cache, np.array(x, float))


@pytest.mark.parametrize("x", [np.array([1.5, 2.0, 3.0]), np.array([2.0, 2.0, 2.0]),
                               np.array([1.0, 2.0, 2.0]), np.array([2, 2, 3], np.int32)])
def test_local_cache_numpy_python_keys(x):
    same(local_cache_three_types, x)


def test_cache_hit_of_array_of_other_dtype_refused():
    raises_at(local_cache_array_answer, (np.array([1.0, 1.0]),), E.StaticValueError,
              match=r"`local_cache_array_answer.<locals>.full`.*int64\[2\]\), where computing "
                    r"it gives a numpy.ndarray of float64\[2\]",
              line_of="return full(", cache=False)


@pytest.mark.parametrize("fn", [cached_same_types, cached_typed, cached_other_static_key])
def test_cache_with_runtime_arguments_of_one_type(fn):
    powsum.cache_clear()
    powsum_typed.cache_clear()
    same(fn, np.array([1.5, 2.0]))


def test_static_int_and_float_keys_are_two_entries():
    def f(x):
        @functools.cache
        def twice(v):
            return v * 2
        return x * twice(2), twice(2.0), twice((2,)), twice((2.0,))
    same(f, np.ones(2))


def cached_in_branch_then_numpy(x):
    a = 0.0
    if x[0] > 0:
        a = powsum(2, float(x[1]))
    return a, powsum(2, x[1])


def test_cache_hit_of_other_type_after_runtime_branch_refused():
    powsum.cache_clear()        # (which answer Python returns depends on the branch too)
    raises_at(cached_in_branch_then_numpy, (np.array([1.0, 2.0]),), E.StaticValueError,
              match="may answer this call with an earlier call's answer",
              line_of="return a, powsum(", cache=False)


def test_cache_in_static_loop_with_numpy_items():
    def f(x):
        t = powsum(2, float(x[0]))
        s = 0.0
        for v in x:
            s += powsum(2, v)
        return t, s
    for a in ([1.0, 2.0], [2.0, 2.0]):
        powsum.cache_clear()
        same(f, np.array(a))
