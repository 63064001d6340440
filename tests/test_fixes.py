"""Fixes of the bugs the refusal corpus (tests/test_refusals.py) found.

Programs that must compile are differential (`check`: eager NumPy vs
compiled, values, dtypes and final argument contents); programs that must be
refused name their error class, a piece of the message and the line.
"""
from __future__ import annotations

import collections
import enum
import functools
import math
import operator

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, count_hlo, raises_at


def _v(n=3, dtype=np.float64):
    return np.arange(1, n + 1).astype(dtype)


# --------------------------------------------------------------------------
# np.array copies, np.asarray does not; nested sequences are stacked
# --------------------------------------------------------------------------

def array_copies(x):
    y = np.array(x)
    y[0] = 5.0
    return x, y


def asarray_aliases(x):
    y = np.asarray(x)
    y[0] = 5.0              # writes into the argument, as NumPy does
    return y


def asarray_to_new_dtype_copies(x):
    y = np.asarray(x, dtype=np.float32)
    y[0] = 5.0
    return y


def array_copy_false_aliases(x):
    y = np.array(x, copy=False)     # NumPy 2: never copies (refuses if it must)
    y += 1.0
    return y


def array_of_arrays(x):
    return np.array([x, 2 * x]), np.array((x, x), dtype=np.float32), np.asarray([x, x])


def array_of_numbers_and_array_items(x):
    # A Python number inside np.array counts as its default dtype (not weak).
    return (np.array([1.0, x[0]]), np.array([1, x[1]]), np.array([[x[0], 2], [3, x[2]]]),
            np.array([True, x[0] > 1]))


def array_of_int_and_float32_item(x):
    return np.array([1, x[0]]), np.array([x[0], x[1]])


def array_of_python_scalars(x):
    n = int(x[0])
    return np.array(n), np.array([n, 2]), np.asarray(float(x[1])), np.array(n > 1)


def array_ndmin_and_contiguous(x):
    return np.array(x, ndmin=3), np.ascontiguousarray(x.sum()), np.asanyarray(x) * 2


@pytest.mark.parametrize("fn,args", [
    (array_copies, (_v(),)),
    (asarray_aliases, (_v(),)),
    (asarray_to_new_dtype_copies, (_v(),)),
    (array_copy_false_aliases, (_v(),)),
    (array_of_arrays, (_v(),)),
    (array_of_numbers_and_array_items, (_v(),)),
    (array_of_numbers_and_array_items, (_v(dtype=np.int32),)),
    (array_of_int_and_float32_item, (_v(dtype=np.float32),)),
    (array_of_python_scalars, (_v(),)),
    (array_ndmin_and_contiguous, (_v(dtype=np.float32),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_np_array(fn, args):
    check(fn, *args)


# --------------------------------------------------------------------------
# A static list of numbers indexed at run time: one weak constant
# --------------------------------------------------------------------------

TABLE = [0.5 * i for i in range(40)]
MIXED = [1, 2.5, True]      # one runtime type for all: a weak float (float arrays only)
INTS = [1, -2, 3]
F32_TABLE = [np.float32(1.5), np.float32(2.5)]


def looks_up_python_numbers(x, i):
    return x + TABLE[i], x * MIXED[i]       # Python numbers: float32 stays float32


def looks_up_python_ints(x, i):
    return x + INTS[i], x * INTS[i]         # int16 stays int16


def looks_up_numpy_scalars(x, i):
    return x + F32_TABLE[i]


def test_runtime_index_into_static_numbers():
    check(looks_up_python_numbers, _v(dtype=np.float32), np.array(1))
    check(looks_up_python_ints, _v(dtype=np.int16), np.array(2))
    check(looks_up_numpy_scalars, _v(dtype=np.float16), np.array(1))


# --------------------------------------------------------------------------
# ufuncs with dtype=
# --------------------------------------------------------------------------

def ufunc_dtype_keyword(xi, xf):
    return (np.add(xi, 1, dtype=np.float64), np.sin(xi, dtype=np.float32),
            np.multiply(xf, xf, dtype=np.float64), np.less(xi, 2, dtype=bool),
            np.add(xf, 1.5, dtype=np.float32), np.true_divide(xf, 3, dtype=np.float16))


def test_ufunc_dtype_keyword():
    check(ufunc_dtype_keyword, _v(dtype=np.int64), _v(dtype=np.float32) / 3, rtol=1e-3)


# --------------------------------------------------------------------------
# Static loops past the unroll budget that a While cannot carry are unrolled
# --------------------------------------------------------------------------

def comprehension_of_arrays(x):
    parts = [x * i for i in range(40)]
    return np.stack(parts).sum(axis=0), len(parts)


def appends_arrays_in_long_loop(x):
    out = []
    for i in range(40):
        out.append(x[i % 3] * i)
    return np.array(out)


def shape_settles_after_first_iteration(x):
    acc = 0
    for i in range(50):
        acc = acc + x * i
    return acc


def dict_filled_in_long_loop(x):
    d = {}
    for i in range(40):
        d[i] = x + i
    return d[39], len(d)


def math_of_loop_variable(x):
    for i in range(50):
        x = x + math.sqrt(i)    # math.sqrt of the While's runtime counter compiles
    return x


@pytest.mark.parametrize("fn", [comprehension_of_arrays, appends_arrays_in_long_loop])
def test_long_static_loop_growing_a_list_is_one_while(fn):
    # the appended arrays go into buffers the While carries (infer/stacking.py)
    compiled = check(fn, _v())
    assert count_hlo(compiled.lower(_v()).as_text(), "while") == 1


@pytest.mark.parametrize("fn", [dict_filled_in_long_loop])
def test_long_static_loop_unrolls_when_a_while_cannot_carry_it(fn):
    compiled = check(fn, _v())
    assert count_hlo(compiled.lower(_v()).as_text(), "while") == 0


def long_loop_over_runtime_values(x):
    acc = x * 0
    for i in range(100):
        acc = acc + x * i
    return acc


# (shape_settles_after_first_iteration: its first iterations unrolled, the rest
# one While once the shape settled: loops._may_have_settled, session 45C1)
@pytest.mark.parametrize("fn", [long_loop_over_runtime_values, math_of_loop_variable,
                                shape_settles_after_first_iteration])
def test_long_loop_that_a_while_carries_is_still_one_while(fn):
    compiled = check(fn, _v())
    assert count_hlo(compiled.lower(_v()).as_text(), "while") == 1


# --------------------------------------------------------------------------
# Builtins on runtime values
# --------------------------------------------------------------------------

def isinstance_and_type_of_runtime_values(x):
    n, s = int(x[0]), x.sum()
    return (isinstance(n, int), isinstance(float(x[0]), float), isinstance(x, np.ndarray),
            isinstance(s, np.floating), isinstance(s, np.ndarray), type(n) is int,
            isinstance(x, (list, np.ndarray)), isinstance(n, bool))


def containers_made_by_calls(x):
    d = dict(a=x)
    d["b"] = 2 * x
    s = set()
    s.add(3)
    pairs = dict(zip(["p", "q"], [x, -x]))
    items = list()
    items.append(x + 1)
    return d, sorted(s), pairs, items


def min_max_with_default(x):
    return min([], default=None), max([], default=x[0]), min(x[0], x[1])


def printf_of_static_values(x):
    return x + len("%d-%s" % (3, "a"))


def any_all_of_runtime_truth_values(x):
    checks = [x.sum() > 0, x.max() > 10, x[0] < x[1]]
    flags = (any(checks), all(checks), any([False, x.min() < 0]), all([1, x[0] > 0]),
             any([True, x.sum() > 0]), all([x.max() > 10, 0]), any([]), all([]))
    y = x * 2 if any(v > 1 for v in x) else x - 1        # a runtime `if` on any()
    return flags, y


def reduce_over_layers(x):
    weights = [np.eye(x.shape[0]) * k for k in (1.0, 2.0, 0.5)]
    product = functools.reduce(lambda acc, w: acc @ w, weights, x)
    total = functools.reduce(operator.add, [x, x * 2, x * 3])
    scaled = list(map(operator.mul, [x, x], [2, 3]))
    signs = operator.neg(x), operator.lt(x, 2.0), operator.mod(x, 2.0), operator.mod("%d", 3)
    return product, total, functools.reduce(max, [3, 1, 2]), scaled, signs


@pytest.mark.parametrize("fn", [isinstance_and_type_of_runtime_values,
                                containers_made_by_calls, min_max_with_default,
                                printf_of_static_values, any_all_of_runtime_truth_values])
def test_builtins(fn):
    check(fn, _v())


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [-1.0, 0.5, 0.25], [0.0, 0.0, -3.0]])
def test_any_all_follow_the_runtime_values(x):
    check(any_all_of_runtime_truth_values, np.array(x))


def test_functools_reduce_and_operator_functions_on_runtime_arrays():
    check(reduce_over_layers, np.arange(9.0).reshape(3, 3))


# --------------------------------------------------------------------------
# Refusals: the right class, message and line
# --------------------------------------------------------------------------

def percent_format(x):
    return "x=%s" % x


def format_builtin(x):
    return format(x)


def str_of_list_of_arrays(x):
    return str([x])


def dict_key_runtime(x):
    return {x[0]: 1}


def dict_store_runtime_key(x):
    d = {}
    d[x[0]] = 1
    return d


def set_add_runtime(x):
    s = set()
    s.add(x[0])
    return s


def set_of_array(x):
    return set(x)


def deletes_from_tuple(x):
    t = (x, x)
    del t[0]
    return t


def huge_zeros(x):
    return np.zeros((10**6, 10**6))


def huge_broadcast(x):
    return np.broadcast_to(x, (2**20, 2**20, 3))


def arange_runtime(x):
    return np.arange(x[0])


def astype_object(x):
    return x.astype(object)


def zeros_of_strings(x):
    return np.zeros(3, dtype=str)


def ragged_array(x):
    return np.array([x, x[:2]])


def array_copy_false_needs_copy(x):
    return np.array(x, dtype=np.float32, copy=False)


def _two(a, b):
    return a + b


def missing_argument(x):
    return _two(x)


def undefined_name(x):
    return x + not_defined_anywhere  # noqa: F821


def min_of_empty(x):
    return x + min([])


async def _coroutine(x):
    return x


def calls_async(x):
    return _coroutine(x)


def returns_zip(x):
    return zip(x, x)


def iterates_0d(x):
    total = 0
    for v in x.sum():
        total += v
    return total


REFUSED = [
    (percent_format, E.StaticValueError, "formatting a runtime value into a string", '"x=%s"'),
    (format_builtin, E.StaticValueError, "formatting a runtime value into a string", "format("),
    (str_of_list_of_arrays, E.StaticValueError, "formatting a runtime value", "str([x])"),
    (dict_key_runtime, E.StaticValueError, "a runtime value as a dict key", "{x[0]: 1}"),
    (dict_store_runtime_key, E.StaticValueError, "as a dict key", "d[x[0]] = 1"),
    (set_add_runtime, E.StaticValueError, "a runtime value as a set item", "s.add"),
    (set_of_array, E.StaticValueError, "as a set item", "set(x)"),
    (deletes_from_tuple, E.UserCodeError, "TypeError: 'tuple' object doesn't support item "
                                          "deletion", "del t[0]"),
    (huge_zeros, E.ShapeError, "Unable to allocate 7.28 TiB", "np.zeros"),
    (huge_broadcast, E.ShapeError, "Unable to allocate", "broadcast_to"),
    (arange_runtime, E.ShapeError, "np.arange with a runtime bound", "np.arange"),
    (astype_object, E.DTypeError, "dtype object (Python objects)", "astype"),
    (zeros_of_strings, E.DTypeError, "dtype <U0 (strings)", "np.zeros"),
    (ragged_array, E.ShapeError, "inhomogeneous shape after 1 dimensions", "np.array"),
    (array_copy_false_needs_copy, E.UserCodeError, "Unable to avoid copy", "np.array"),
    (missing_argument, E.UserCodeError, "TypeError: calling _two(): missing a required "
                                        "argument: 'b'", "_two(x)"),
    (undefined_name, E.UserCodeError, "NameError: name 'not_defined_anywhere' is not defined",
     "not_defined_anywhere"),
    (min_of_empty, E.UserCodeError, "ValueError: min()", "min([])"),
    (calls_async, E.UnsupportedError, "async code (`async def`)", "_coroutine(x)"),
    (returns_zip, E.UnsupportedError, "returns_zip returns a generator or iterator",
     "def returns_zip"),
    (iterates_0d, E.UserCodeError, "TypeError: iteration over a 0-d array", "for v in"),
]


@pytest.mark.parametrize("fn,error,text,line_of", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_refused(fn, error, text, line_of):
    err = raises_at(fn, (_v(),), error, line_of=line_of)
    # (an E700 is also the exception it stands for: a UserCodeError and a TypeError)
    assert type(err) is error or type(err).__mro__[1] is error, str(err)
    assert text in err.message, str(err)


def test_unroll_limit_says_why_the_loop_unrolls():
    err = raises_at(long_unrolled_append, (_v(),), E.LimitError, line_of="for i in range")
    assert ("loop unrolled 10000 times, the most tpucc unrolls, with 10000 iterations left; "
            "it is unrolled because it cannot run as one runtime loop") in err.message, str(err)


def long_unrolled_append(x):
    out = []
    for i in range(20_000):
        out.append(x)               # one array 20 000 times: no buffer holds that
    return x + len(out)


def long_counter_append(x):
    out = []
    for i in range(20_000):
        out.append(i)               # the counter: static items, one While
    return x + len(out) + out[-1]


def test_a_long_loop_appending_its_counter_is_one_while():
    compiled = check(long_counter_append, _v())
    assert compiled.lower(_v()).ir().count("= while(") == 1


# --------------------------------------------------------------------------
# Documented behaviour (docs/errors.md, E900): runtime indices are checked
# --------------------------------------------------------------------------

def reads_at(x, i):
    return x[i]


def writes_at(x, i):
    x[i] = 100.0
    return x


def test_runtime_out_of_bounds_index_raises_and_writes_nothing_back():
    x = np.arange(3.0)
    read, write = tpucc.compile(reads_at), tpucc.compile(writes_at)
    assert read(x, np.array(2)) == 2.0 and read(x, np.array(-3)) == 0.0
    for bad in (3, -4):
        with pytest.raises(IndexError, match="E900.*out of bounds for axis 0 with size 3"):
            read(x, np.array(bad))
    target = x.copy()
    with pytest.raises(tpucc.RuntimeIndexError):
        write(target, np.array(5))
    np.testing.assert_array_equal(target, x)            # nothing written back
    np.testing.assert_array_equal(write(x.copy(), np.array(-1)), [0.0, 1.0, 100.0])


# --------------------------------------------------------------------------
# A ufunc of Python numbers held at run time gives a NumPy scalar (fuzz seed
# 51661: np.square(cnt) of a counter promoted by a runtime `if` was a 0-d array)
# --------------------------------------------------------------------------

def ufunc_of_promoted_counter(x):
    cnt = 0
    if x.max() < 4:
        cnt += 1
    return np.square(cnt), np.add(cnt, 1).astype(np.float32)


def ufunc_of_runtime_arg(x, n):
    return np.square(n) + x.sum(), np.multiply(n, 2)


def test_ufunc_of_runtime_python_numbers_is_a_numpy_scalar():
    for x in (np.ones(3), np.full(3, 9.0)):
        check(ufunc_of_promoted_counter, x)
    check(ufunc_of_runtime_arg, np.ones(2), 3, compile_kwargs=dict(runtime_args=("n",)))


def clip_of_promoted_counter(x, n):
    k = 0
    v = np.zeros(3)
    while k < n:
        k += 1
        v = np.clip(k, -2, 2) % (x + 1)     # np.int64 % float32 array: float64
    return np.clip(k, -2, 2), v, np.clip(x, 0, k)


def test_clip_of_a_runtime_python_number_is_strong():
    """Fuzz seeds 52089, 52324: np.clip of a counter promoted by a runtime
    loop stayed a weak Python int, so iterations disagreed on v's dtype (E300)."""
    check(clip_of_promoted_counter, np.ones(3, np.float32), np.int64(3))


class Level(enum.IntEnum):
    LOW = 2
    HIGH = 7


class Meters(float):
    pass


def scaled_by_subclasses(x):
    return x * Level.HIGH, x + Meters(1.5), x.astype(np.int8) + Level.LOW, x[Level.LOW], x * 2


def test_int_and_float_subclasses_are_strong():
    """NEP 50 makes only exact int, float and complex weak: float32 * an
    IntEnum member is float64 in NumPy 2 (was float32 compiled); int8 + it
    is int64; indexing with it is indexing with its int."""
    check(scaled_by_subclasses, np.linspace(0, 1, 4, dtype=np.float32))


class Settings:
    shift = 2.5


def test_attributes_of_a_builtin_value_are_not_guarded():
    """`complex(v).real` read an attribute of a complex made in the trace
    and guarded it by identity: a new float each time, so the program
    was compiled again at every call, and its first call raised."""
    compiled = tpucc.compile(lambda x: x + complex(Settings.shift).real + slice(1, 3).stop)
    for shift in (2.5, 4.0, 4.0):
        Settings.shift = shift
        np.testing.assert_array_equal(compiled(np.arange(4.0)), np.arange(4.0) + shift + 3)


def test_outside_bytearray_and_array_array_are_guarded_by_value():
    """len() of a bytearray and an item of an array.array from outside were
    read natively and never guarded: appending or setting an item ran the
    stale program.  Their items are new objects at each read, so their
    guard compares values (a copy made by the trace)."""
    import array
    flags = bytearray(b"ab")
    table = array.array("d", [1.0, 2.0])

    def f(x):
        return x * len(flags) + table[0] + sum(table)
    compiled = tpucc.compile(f)
    x = np.arange(4.0)
    for change in (lambda: None, lambda: flags.append(99), lambda: table.__setitem__(0, 5.0),
                   lambda: table.append(0.5), lambda: None):
        change()
        np.testing.assert_array_equal(compiled(x), f(x))


def test_chainmap_deque_and_tuple_keyed_dict_are_guarded():
    """An item of a ChainMap from outside, of a deque argument and of a dict
    argument with tuple keys was read with no guard: changing it ran the
    stale program.  (The tuple-keyed dict, passed whole, was even taken
    for the trace's own copy.)"""
    chain = collections.ChainMap({"a": 1.0}, {"b": 2.0})
    queue = collections.deque([1.0, 3.0])
    table = {(0, 1): 2.0}

    def f(x, q, t):
        return x * chain["b"] + q[0] + t[(0, 1)] + len(q)
    compiled = tpucc.compile(f)
    x = np.arange(4.0)
    for change in (lambda: None, lambda: chain.maps[0].__setitem__("b", 10.0),
                   lambda: queue.__setitem__(0, 4.0), lambda: queue.append(0.0),
                   lambda: table.__setitem__((0, 1), 5.0), lambda: None):
        change()
        np.testing.assert_array_equal(compiled(x, queue, table), f(x, queue, table))
