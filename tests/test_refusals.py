"""The refusal corpus: programs tpucc must refuse at compile time with a
designed error (its class, a piece of its message) located exactly at the
line marked `# <- here` (in the program itself, or in the helper named by
`where`).  Then the error catalogue docs/errors.md: every error class has a
section, and every example there raises its section's code at its marked line
with the message shown.

Strict xfails are bugs found while building this corpus: programs that give
an internal error, a wrong result instead of a refusal, the wrong error
class or the wrong line.  Each names the fix it needs.

PYTEST_DONT_REWRITE: some programs below use `assert`, which tpucc compiles
from the plain bytecode (pytest's rewriting would change it).
"""
from __future__ import annotations

import threading
import inspect
import math
import os
import re
import runpy
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import tpucc
import tpucc.aot
from tpucc import errors as E

MARK = "# <- here"
HERE = os.path.abspath(__file__)


def _v(n=3):
    return np.arange(1.0, n + 1.0)


def _ints(n=3):
    return np.arange(1, n + 1)


# --------------------------------------------------------------------------
# Unsupported syntax (E100)
# --------------------------------------------------------------------------

def except_floating_point_error(x):
    try:
        y = np.log(x)
    except FloatingPointError:  # <- here
        y = x
    return y


def except_lin_alg_error(a):
    try:
        c = np.linalg.cholesky(a)
    except (ValueError, np.linalg.LinAlgError):  # <- here
        c = np.linalg.cholesky(a + np.eye(3))
    return c


LOCK = threading.Lock()


def with_statement(x):
    with LOCK:  # <- here
        y = x + 1
    return y


def class_statement(x):
    class Local:  # <- here
        scale = 2
    return x * Local.scale


def _countdown_generator(x):
    while x.sum() > 0:
        yield x  # <- here
        x = x - 1


def yield_under_runtime_loop(x):
    return list(_countdown_generator(x))     # (sum() of it adds up as it runs)


async def _identity_coroutine(x):
    return x


async def awaits(x):  # <- here
    return await _identity_coroutine(x)


COUNTER = "start"


def assigns_global(x):
    # (a number is written back after each call: test_scalar_state.py)
    global COUNTER
    COUNTER = "done"  # <- here
    return x


class Box:
    """A module-level class: constructing it inside compiled code is fine."""
    def __init__(self, value):
        self.value = value


def deletes_attribute(x):
    b = Box(x)
    del b.value  # <- here
    return x


def deletes_global(x):
    global COUNTER
    del COUNTER  # <- here
    return x


def deletes_closure_variable(x):
    y = x
    def get():
        return y
    del y  # <- here
    return x


class ModelError(Exception):
    pass


def raises_own_exception_under_runtime_if(x):
    if x.sum() > 0:
        raise ModelError("positive")  # <- here
    return x


def asserts_with_a_computed_message(x):
    assert x.sum() < 0, "sum " + ", ".join(map(str, x.shape))  # <- here
    return x


def in_a_dict(x):
    return x.argmax() in {"a": 0, 1: "b"}  # <- here


# --------------------------------------------------------------------------
# Builtins and library calls that are not compiled (E100)
# --------------------------------------------------------------------------

def opens_file(x):
    f = open("/nonexistent/tpucc-data.txt")  # <- here
    return x, f


def evals(x):
    return eval("x + 1")  # <- here


def range_iter_next(x):
    it = iter(range(int(x[0])))     # (a static range's held iterator is a list's: supported)
    return x * next(it)  # <- here


def hashes_array(x):
    return hash(x)  # <- here


def random_rand(x):
    return x + np.random.rand(3)  # <- here


def random_generator(x):
    rng = np.random.default_rng(0)  # <- here
    return x + rng.normal(size=3)


def linalg_qr_raw(x):
    h, tau = np.linalg.qr(x, mode="raw")  # <- here
    return tau


def linalg_eig(x):
    return np.linalg.eig(x)  # <- here


def matrix_power_runtime_exponent(x):
    return np.linalg.matrix_power(x, x[0, 0])  # <- here


def fftn_s_without_axes(x):
    return np.fft.fftn(x, s=(2, 2))  # <- here


def partitions(x):
    return np.partition(x, 1)  # <- here


def unique(x):
    return np.unique(np.round(x))  # <- here


def nonzero(x):
    return np.nonzero(x > 1)  # <- here


def histogram(x):
    return np.histogram(x, bins="auto")  # <- here


def math_on_runtime(x):
    return math.gamma(x[0])  # <- here


def out_keyword(x):
    return np.add(x, x, where=x > 0)  # <- here


def misspelled_keyword(x):
    return np.sum(x, axes=0)  # <- here


def nonzero_method(x):
    return x.nonzero()  # <- here


def pad_odd_reflection(x):
    return np.pad(x, 1, mode="reflect", reflect_type="odd")  # <- here


def ravel_in_stride_order(x):
    return np.ones((2, 3, 4))[:, ::2].transpose(1, 0, 2).ravel(order="K")  # <- here


# --------------------------------------------------------------------------
# Shapes NumPy rejects, and data-dependent shapes (E200)
# --------------------------------------------------------------------------

def matmul_mismatch(x):
    return x @ np.ones((5, 6))  # <- here


def broadcast_mismatch(x):
    return x + np.ones(4)  # <- here


def reshape_size(x):
    return x.reshape(5, -1)  # <- here


def index_out_of_bounds(x):
    return x[10]  # <- here


def too_many_indices(x):
    return x[0, 0]  # <- here


def axis_out_of_bounds(x):
    return x.sum(axis=2)  # <- here


def float_index(x):
    return x[x]  # <- here


def concatenates_scalars(x):
    return np.concatenate([x.sum(), x.max()])  # <- here


def empty_max(x):
    return x[:0].max()  # <- here


def mask_read(x):
    return x[x > 1]  # <- here


def where_one_argument(x):
    return np.where(x > 1)  # <- here


def zeros_of_runtime_size(x):
    return np.zeros(int(x[0]))  # <- here


def mask_assign_array(x):
    x[x > 1] = np.array([7.0, 8.0])  # <- here
    return x


def runtime_index_into_ragged_list(x):
    parts = [np.ones(2), np.ones(3)]
    return parts[int(x[0])]  # <- here


# --------------------------------------------------------------------------
# Dtypes (E210)
# --------------------------------------------------------------------------

def inplace_float_into_int(x):
    counts = np.arange(3)
    counts += x  # <- here
    return counts


def inplace_int_into_bool(x):
    flags = x > 1
    flags += 1  # <- here
    return flags


# --------------------------------------------------------------------------
# Runtime paths that disagree (E300)
# --------------------------------------------------------------------------

def branch_shapes(x):
    if x.sum() > 0:  # <- here
        y = x
    else:
        y = x[:2]
    return y


def branch_strong_dtypes(x):
    if x.sum() > 0:  # <- here
        y = x.astype(np.int64)
    else:
        y = x.astype(np.int32)
    return y


def branch_tuple_lengths(x):
    if x.sum() > 0:  # <- here
        t = (x,)
    else:
        t = (x, x)
    return t


def defined_on_one_path(x):
    if x.sum() > 0:
        y = x * 2
    return y  # <- here


def returns_none_on_one_path(x):
    if x.sum() > 0:  # <- here
        return x


def loop_grows_shape(x):
    while x.sum() < 100:  # <- here
        x = np.concatenate([x, x])
    return x


def loop_changes_dtype(x):
    y = x.astype(np.int32)
    while y.sum() < 100:  # <- here
        y = y * 1.5
    return y


def loop_grows_tuple(x):
    t = ()
    while x.sum() > 0:  # <- here
        t = t + (x,)
        x = x - 1
    return t


def loop_changes_string(x):
    s = "a"
    while x.sum() > 0:
        s = s + "b"  # <- here
        x = x - 1
    return s


# --------------------------------------------------------------------------
# Compile-time values computed from runtime data (E400)
# --------------------------------------------------------------------------

RAGGED = [[1, 2], [2], [0, 1, 2]]


def ragged_list_index_runtime(x):
    # (a list of strings, or an int-keyed dict, indexed so is a runtime
    # choice: tests/test_fixes_session48X5.py)
    return RAGGED[int(x.argmax())]  # <- here


def dict_index_runtime_str_keys(x):
    table = {"a": x, "b": -x}
    return table[int(x[0])]  # <- here


def slice_bound_runtime(x):
    return x.reshape(1, -1)[:, :int(x[0])]  # <- here


def returns_runtime_slice(x):
    return x[:int(x[0])]  # <- here


def reshape_to_runtime_size(x):
    return x.reshape(int(x[0]), -1)  # <- here


def formats_runtime(x):
    label = f"x = {x}"  # <- here
    print(label)        # (print(f"x = {x}") itself prints at run time)
    return x


def bool_of_array(x):
    return bool(x)  # <- here


def range_of_float(x):
    total = 0
    for i in range(x.sum()):  # <- here
        total += i
    return total


def sorted_runtime(x):
    return sorted([x, -x], key=lambda v: v.sum())  # <- here


def index_of_runtime_range(x):
    return range(int(x[0]))[1]  # <- here


def transpose_runtime_axes(x):
    return np.transpose(x, int(x[0]))  # <- here


# --------------------------------------------------------------------------
# Python state the compiled program cannot replay (E500)
# --------------------------------------------------------------------------

def appends_in_runtime_while(x):
    seen = []
    while x.max() > 1:
        x = x / 2
        seen.append(x)  # <- here
    return seen


def appends_in_runtime_for(x, n):
    parts = []
    for i in range(n):
        parts.append(x * i)  # <- here
    return parts


def dict_insert_in_runtime_if(x):
    d = {"a": x}
    if x.sum() > 0:
        d["b"] = x  # <- here
    return d


def list_pop_in_runtime_if(x):
    parts = [x, x]
    if x.sum() > 0:
        parts.pop()  # <- here
    return parts


def _count_down(x, step):
    while x.sum() > 0:
        step()
        x = x - 1
    return x


def nonlocal_in_another_functions_loop(x):
    n = 0

    def bump():
        nonlocal n
        n += 1  # <- here
    _count_down(x, bump)
    return n


def nonlocal_in_grad(x):
    n = 0

    def loss(w):
        nonlocal n
        n = n + 1  # <- here
        return (w * w).sum()
    return tpucc.grad(loss)(x), n


def rebinds_outer_closure_str():
    # (a number is written back after each call: test_scalar_state.py)
    label = "step"

    def step(x):
        nonlocal label
        label += "!"  # <- here
        return x
    return step


rebinds_outer_closure_str = rebinds_outer_closure_str()


SHARED = Box(0)


def setattr_python_value_outside(x):
    SHARED.value = "done"  # <- here
    return x


def list_item_at_a_runtime_position_in_a_loop(x):
    hs = [x, x * 2]
    i = 0
    while i < x.sum():
        hs[i % 2] = hs[i % 2] + 1  # <- here
        i += 1
    return hs


def setattr_array_over_an_int_in_runtime_if(x):
    if x.sum() > 0:  # <- here
        SHARED.value = x        # an array on one path, the int 0 on the other
    return x


def setattr_python_value_in_runtime_if(x):
    if x.sum() > 0:
        SHARED.value = "done"  # <- here
    return x


SETTINGS = [1, 2]


def mutates_global_list(x):
    SETTINGS.insert(0, 3)  # <- here
    return x


def deletes_from_global_list(x):
    del SETTINGS[0]  # <- here
    return x


# --------------------------------------------------------------------------
# Compile-time budgets (E600)
# --------------------------------------------------------------------------

def _countdown(x, n):
    if n == 0:
        return x
    return _countdown(x + 1, n - 1)  # <- here


def recursion_with_runtime_depth(x):
    return _countdown(x, x[0])


def _forever(x):
    return _forever(x)  # <- here


def recursion_without_end(x):
    return _forever(x)


# --------------------------------------------------------------------------
# The program's own errors at compile time (E700)
# --------------------------------------------------------------------------

def failing_shape_assert(x):
    assert x.ndim == 2, "expected a matrix"  # <- here
    return x


def static_raise(x):
    if x.shape[0] != 4:
        raise ValueError("expected 4 values")  # <- here
    return x


def zero_division(x):
    return x * (1 / 0)  # <- here


def unpacks_wrong_count(x):
    a, b = x  # <- here
    return a + b


def truth_of_array(x):
    if x > 1:  # <- here
        return x
    return -x


def missing_attribute(x):
    b = Box(x)
    return b.missing  # <- here


@dataclass(frozen=True)
class Refusal:
    fn: Callable
    args: Callable[[], tuple]       # fresh arguments for each run
    error: type
    text: str                       # a piece of err.message
    where: Callable | None = None   # the function holding the marker (default: fn)

    @property
    def id(self):
        return self.fn.__name__


def R(fn, error, text, args=lambda: (_v(),), where=None):
    return Refusal(fn, args, error, text, where)


def _matrix():
    return (np.arange(9.0).reshape(3, 3) + np.eye(3),)


REFUSALS = [
    # E100: syntax
    R(except_floating_point_error, E.UnsupportedError,
      "`except FloatingPointError`: compiled code never raises FloatingPointError"),
    R(except_lin_alg_error, E.UnsupportedError,
      "`except LinAlgError`: compiled code never raises LinAlgError", args=lambda: (np.eye(3),)),
    R(with_statement, E.UnsupportedError, "`with` on a lock is not supported"),
    R(class_statement, E.UnsupportedError, "a `class` statement is not supported"),
    R(yield_under_runtime_loop, E.UnsupportedError,
      "`yield` under a runtime condition or loop", where=_countdown_generator),
    R(awaits, E.UnsupportedError, "async code"),
    R(assigns_global, E.UnsupportedError, "assigning the global `COUNTER`"),
    R(deletes_attribute, E.UnsupportedError, "`del obj.attr` is not supported"),
    R(deletes_global, E.UnsupportedError, "`del` of a global variable"),
    R(deletes_closure_variable, E.UnsupportedError, "`del` of a variable an inner function uses"),
    R(raises_own_exception_under_runtime_if, E.UnsupportedError,
      "raising ModelError under a runtime condition"),
    R(asserts_with_a_computed_message, E.UnsupportedError,
      "raising AssertionError under a runtime condition"),
    R(in_a_dict, E.StaticValueError, "`in` a dict with a runtime value needs its value"),
    # E100: builtins and libraries
    R(opens_file, E.UnsupportedError, "calling open() is not supported"),
    R(evals, E.UnsupportedError, "calling eval() is not supported"),
    R(range_iter_next, E.UnsupportedError, "next() of a range iterator is not supported"),
    R(hashes_array, E.UnsupportedError, "hash() is not supported on runtime arrays"),
    R(random_rand, E.UnsupportedError, "would be evaluated once at compile time"),
    R(random_generator, E.UnsupportedError, "np.random.default_rng would be evaluated once"),
    R(linalg_qr_raw, E.UnsupportedError, "qr(mode='raw') is not supported", _matrix),
    R(linalg_eig, E.UnsupportedError, "np.linalg.eig of a real matrix: NumPy returns real "
      "arrays when every eigenvalue is real", _matrix),
    R(matrix_power_runtime_exponent, E.StaticValueError, "matrix_power needs an exponent known at "
      "compile time", _matrix),
    R(fftn_s_without_axes, E.UnsupportedError, "`s` without `axes` is deprecated", _matrix),
    R(partitions, E.UnsupportedError, "np.partition is not supported on runtime arrays: the "
      "order NumPy leaves"),
    R(unique, E.UnsupportedError, "np.unique of a runtime array is not supported: the length"),
    R(nonzero, E.UnsupportedError, "np.nonzero of a runtime array is not supported: the length"),
    R(histogram, E.UnsupportedError, "only a static integer number of bins"),
    R(math_on_runtime, E.UnsupportedError, "math.gamma() is not supported on runtime arrays"),
    R(out_keyword, E.UnsupportedError, "np.add(where=...) without out=: NumPy leaves"),
    # (NumPy does not take it either: its TypeError, as eagerly)
    R(misspelled_keyword, E.UserCodeError,
      "TypeError: sum() got an unexpected keyword argument 'axes'"),
    R(nonzero_method, E.UnsupportedError, "np.nonzero of a runtime array is not supported"),
    R(pad_odd_reflection, E.UnsupportedError,
      "np.pad(mode='reflect', reflect_type='odd') is not supported"),
    R(ravel_in_stride_order, E.UnsupportedError,
      "ravel(order='K') of an array that is neither C- nor F-contiguous"),
    # E200
    R(matmul_mismatch, E.ShapeError, "mismatch in its core dimension 0"),
    R(broadcast_mismatch, E.ShapeError, "cannot be broadcast"),
    R(reshape_size, E.ShapeError, "cannot reshape array of size 3 into shape (5, -1)"),
    R(index_out_of_bounds, E.UserCodeError, "IndexError: index 10 is out of bounds for axis 0 with size 3"),
    R(too_many_indices, E.UserCodeError, "IndexError: too many indices for array"),
    R(axis_out_of_bounds, E.ShapeError, "axis 2 is out of bounds for an array of dimension 1"),
    R(float_index, E.UserCodeError, "IndexError: arrays used as indices must be of integer"),
    R(concatenates_scalars, E.ShapeError, "zero-dimensional arrays cannot be concatenated"),
    R(empty_max, E.ShapeError, "zero-size array to reduction operation max"),
    R(mask_read, E.ShapeError, "returning x[mask]: x[mask] has a data-dependent shape"),
    R(where_one_argument, E.ShapeError, "np.where(condition) returns data-dependent shapes"),
    R(zeros_of_runtime_size, E.ShapeError, "shape depends on runtime values"),
    R(mask_assign_array, E.ShapeError, "x[mask] = values: an array of shape (2,) would have"),
    R(runtime_index_into_ragged_list, E.MergeError, "but they have different shapes"),
    # E210
    R(inplace_float_into_int, E.DTypeError, "Cannot cast ufunc 'add' output from float64 to int64"),
    R(inplace_int_into_bool, E.DTypeError, "Cannot cast ufunc 'add' output from int64 to bool"),
    # E300
    R(setattr_array_over_an_int_in_runtime_if, E.MergeError,
      "the branches give `.value` different shapes"),
    R(branch_shapes, E.MergeError, "different shapes: f64[3] and f64[2]"),
    R(branch_strong_dtypes, E.MergeError, "different dtypes: i64[3] and i32[3]"),
    R(branch_tuple_lengths, E.MergeError, "different structures"),
    R(defined_on_one_path, E.MergeError, "variable `y` is not defined on every path"),
    R(returns_none_on_one_path, E.MergeError, "the return value incompatible values"),
    R(loop_grows_shape, E.MergeError, "iterations of this loop give `x` different shapes"),
    R(loop_changes_dtype, E.MergeError, "iterations of this loop give `y` different dtypes",
      lambda: (_ints(),)),
    R(loop_grows_tuple, E.MergeError, "an iteration of this loop changes the structure"),
    # E400
    R(list_item_at_a_runtime_position_in_a_loop, E.StaticValueError,
      "assigning a list's item at a runtime position: the position is a runtime value"),
    R(ragged_list_index_runtime, E.StaticValueError,
      "indexing a Python container with a runtime value"),
    R(dict_index_runtime_str_keys, E.StaticValueError,
      "indexing a Python container with a runtime value"),
    R(slice_bound_runtime, E.ShapeError, "returning x[i:j]: a slice with runtime bounds"),
    R(returns_runtime_slice, E.ShapeError, "returning x[i:j]: a slice with runtime bounds"),
    R(reshape_to_runtime_size, E.StaticValueError,
      "`shape` of x.reshape() must be known at compile time"),
    R(formats_runtime, E.StaticValueError, "formatting a runtime value into a string"),
    R(bool_of_array, E.StaticValueError, "only size-1 arrays can be converted to Python scalars"),
    R(range_of_float, E.StaticValueError, "range() needs an integer scalar"),
    R(sorted_runtime, E.StaticValueError, "sorted() of runtime values would compare them"),
    R(index_of_runtime_range, E.StaticValueError, "indexing a range with a runtime length"),
    R(transpose_runtime_axes, E.StaticValueError, "`axes` of np.transpose must be known"),
    # E500
    R(appends_in_runtime_while, E.SideEffectError, "mutating a container inside a runtime"),
    R(appends_in_runtime_for, E.SideEffectError, "mutating a container inside a runtime",
      lambda: (_v(), np.array(4))),
    R(dict_insert_in_runtime_if, E.SideEffectError, "mutating a container inside a runtime"),
    R(list_pop_in_runtime_if, E.SideEffectError,
      "removing items from a container inside a runtime"),
    R(nonlocal_in_another_functions_loop, E.SideEffectError,
      "rebinding `n`, a variable of `nonlocal_in_another_functions_loop`, inside a runtime `if` "
      "or loop of another function"),
    R(nonlocal_in_grad, E.SideEffectError,
      "rebinding `n`, a variable of `nonlocal_in_grad`, inside a function differentiated"),
    R(rebinds_outer_closure_str, E.SideEffectError,
      "assigning a Python value to the closure variable `label` (its cell outlives the call)"),
    R(setattr_python_value_outside, E.SideEffectError,
      "assigning a Python value to `.value` of an object that outlives the call"),
    R(setattr_python_value_in_runtime_if, E.SideEffectError,
      "assigning `.value` inside a runtime `if`"),
    R(mutates_global_list, E.SideEffectError, "mutating a container that exists outside"),
    R(deletes_from_global_list, E.SideEffectError, "mutating a container that exists outside"),
    # (the loop carries `s` as a choice among static objects: `+` needs the object)
    R(loop_changes_string, E.MergeError,
      "the operator `+` makes a new object at each iteration of a runtime loop"),
    # E600
    R(recursion_with_runtime_depth, E.LimitError,
      "calls itself inside a runtime `if` or loop with the arguments", where=_countdown),
    R(recursion_without_end, E.LimitError, "calls nested more than 100 deep", where=_forever),
    # E700
    R(failing_shape_assert, E.UserCodeError, "AssertionError: expected a matrix"),
    R(static_raise, E.UserCodeError, "ValueError: expected 4 values"),
    R(zero_division, E.UserCodeError, "ZeroDivisionError"),
    R(unpacks_wrong_count, E.UserCodeError, "expected 2 values to unpack, got 3"),
    R(truth_of_array, E.UserCodeError, "truth value of an array with more than one element"),
    R(missing_attribute, E.UserCodeError, "AttributeError: 'Box' object has no attribute"),
]


def marked_line(fn) -> int:
    """The line of `fn`'s source that ends with the marker comment."""
    lines, start = inspect.getsourcelines(fn)
    hits = [start + i for i, text in enumerate(lines) if text.rstrip().endswith(MARK)]
    assert len(hits) == 1, f"{fn.__name__} needs exactly one `{MARK}` line, has {len(hits)}"
    return hits[0]


def compile_error(fn, args) -> E.TpuccError:
    with pytest.raises(E.TpuccError) as info:
        tpucc.compile(fn)(*args)
    return info.value


def check_refusal(case: Refusal, exact_line=True):
    """The error's class, a piece of its message, and its line: the marked
    one, or (exact_line=False) any line of the function."""
    err = compile_error(case.fn, case.args())
    # (the class, or one of tpucc's own subclasses of it with its code)
    assert isinstance(err, case.error) and err.code == case.error.code, \
        f"expected {case.error.__name__}, got:\n{err}"
    assert case.text in err.message, f"message lacks {case.text!r}:\n{err}"
    where = case.where or case.fn
    assert err.loc is not None, f"no source location:\n{err}"
    if exact_line:
        wanted = [marked_line(where)]
    else:
        lines, start = inspect.getsourcelines(where)
        wanted = list(range(start, start + len(lines)))
    assert (os.path.abspath(err.loc.file), err.loc.line) in [(HERE, n) for n in wanted], (
        f"expected the error at line {wanted[0]}, got:\n{err}")
    assert f"[{err.code}]" in str(err) and err.loc.source_line().strip() in str(err)


def test_corpus_is_large_and_distinct():
    assert len(REFUSALS) >= 50
    assert len({c.id for c in REFUSALS}) == len(REFUSALS)


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.id)
def test_refused(case):
    check_refusal(case)


def test_object_array_argument_is_named():
    # The message names the argument; the location is its function's `def`.
    fn = lambda x: x + 1  # noqa: E731
    err = compile_error(fn, (np.array([1, "a"], dtype=object),))
    assert type(err) is E.DTypeError
    assert "argument x has dtype object" in err.message
    assert err.loc is not None and err.loc.line == fn.__code__.co_firstlineno


# --------------------------------------------------------------------------
# Bugs found while building the corpus: fixed, each test pins its fix (a strict
# xfail marks one still open)
# --------------------------------------------------------------------------

def astype_str(x):
    return x.astype(str)  # <- here


def test_astype_to_string_is_a_dtype_error():
    check_refusal(R(astype_str, E.DTypeError, "str"))


async def async_entry(x):  # <- here
    return x


def test_async_function_is_refused():
    check_refusal(R(async_entry, E.UnsupportedError, "async"), exact_line=False)


def generator_entry(x):
    yield x  # <- here


def returns_generator(x):
    return (v * 2 for v in x)  # <- here


@pytest.mark.parametrize("fn", [generator_entry, returns_generator])
def test_generator_escaping_is_refused(fn):
    check_refusal(R(fn, E.UnsupportedError, "generator"), exact_line=False)


def str_of_runtime(x):
    return "x=" + str(x)  # <- here


def test_str_of_runtime_array_is_refused():
    check_refusal(R(str_of_runtime, E.StaticValueError, "string"))


def set_of_runtime(x):
    return {int(v) for v in x}  # <- here


def test_set_of_runtime_values_is_refused():
    check_refusal(R(set_of_runtime, E.StaticValueError, "set"))


def bitwise_on_float(x):
    return x & 1  # <- here


def floor_of_complex(x):
    return np.floor(x.astype(np.complex128))  # <- here


@pytest.mark.parametrize("fn", [bitwise_on_float, floor_of_complex])
def test_ufunc_dtype_refusal_is_a_dtype_error(fn):
    check_refusal(R(fn, E.DTypeError, "not supported for the input types"))


def add_with_narrow_dtype(x):
    return np.add(x, 1, dtype=np.int8)  # <- here


def test_ufunc_dtype_keyword_cast_is_refused():
    check_refusal(R(add_with_narrow_dtype, E.DTypeError, "Cannot cast"))


def sum_over_runtime_axis(x):
    return x.sum(axis=int(x[0]))  # <- here


def tile_runtime_reps(x):
    return np.tile(x, int(x[0]))  # <- here


@pytest.mark.parametrize("fn", [sum_over_runtime_axis, tile_runtime_reps])
def test_runtime_axis_is_a_static_value_error(fn):
    check_refusal(R(fn, E.StaticValueError, "compile time"))


def assigns_into_tuple(x):
    t = (1, 2)
    t[0] = x  # <- here
    return t


def test_tuple_item_assignment_is_the_users_type_error():
    check_refusal(R(assigns_into_tuple, E.UserCodeError, "does not support item assignment"))


def isinstance_with_non_type(x):
    return isinstance(x, 3)  # <- here


def test_isinstance_with_non_type_is_refused():
    check_refusal(R(isinstance_with_non_type, E.UserCodeError, "isinstance"))


def star_runtime_range(x):
    return max(*range(int(x[0])))  # <- here


def list_of_runtime_range(x):
    return list(range(int(x[0])))  # <- here


@pytest.mark.parametrize("fn", [star_runtime_range, list_of_runtime_range])
def test_unpacking_runtime_range_is_a_static_value_error(fn):
    check_refusal(R(fn, E.StaticValueError, "runtime length"))


def calls_an_array(x):
    return x(1)  # <- here


def test_calling_an_array_is_the_users_type_error():
    check_refusal(R(calls_an_array, E.UserCodeError, "not callable"))


def _vector_loss(w):
    return w * 2  # <- here


def test_grad_of_non_scalar_points_at_user_code():
    with pytest.raises(E.GradError) as info:
        tpucc.grad(_vector_loss)(_v())
    err = info.value
    assert (os.path.abspath(err.loc.file), err.loc.line) == (HERE, marked_line(_vector_loss)), \
        str(err)


# --------------------------------------------------------------------------
# The catalogue: docs/errors.md
# --------------------------------------------------------------------------

DOC = Path(__file__).resolve().parent.parent / "docs" / "errors.md"


@dataclass
class DocExample:
    code: str           # the section's error code
    source: str         # a python block
    shown: str | None   # the text block after it: the error as rendered


def doc_sections() -> list[str]:
    return re.findall(r"^## (E\d{3}) — ", DOC.read_text(), re.MULTILINE)


def doc_examples() -> list[DocExample]:
    """The python blocks of each `## Exxx` section, each with the text block
    that follows it (the rendered error)."""
    out, code, block, kind = [], None, None, None
    for line in DOC.read_text().splitlines():
        if block is None:
            heading = re.match(r"^## (E\d{3}) ", line)
            if heading:
                code = heading.group(1)
            elif line in ("```python", "```text"):
                block, kind = [], line[3:]
        elif line == "```":
            text = "\n".join(block)
            if kind == "python" and code:
                out.append(DocExample(code, text + "\n", None))
            elif kind == "text" and out and out[-1].code == code and out[-1].shown is None:
                out[-1].shown = text
            block = None
        else:
            block.append(line)
    return out


def _error_classes():
    seen, todo = [], [E.TpuccError]
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo.extend(cls.__subclasses__())
    return seen


def test_every_error_code_has_a_section():
    codes = {cls.code for cls in _error_classes()}
    assert {"E100", "E350", "E800", "E820", "E999"} <= codes
    sections = doc_sections()
    assert sorted(sections) == sections, "sections are in code order"
    assert codes <= set(sections), f"undocumented: {sorted(codes - set(sections))}"
    index = re.findall(r"^\| \[(E\d{3})\]\(#\1\)", DOC.read_text(), re.MULTILINE)
    assert index == sections, "the index table lists every section, in order"
    anchors = re.findall(r'^<a id="(E\d{3})"></a>\n## \1 ', DOC.read_text(), re.MULTILINE)
    assert anchors == sections, "every section has its stable anchor"


def test_every_section_but_internal_errors_has_an_example():
    with_examples = {ex.code for ex in doc_examples()}
    assert set(doc_sections()) - with_examples == {"E999"}


def _without_carets(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.strip() != "^")


@pytest.mark.parametrize("example", doc_examples(), ids=lambda ex: ex.code)
def test_doc_example_raises_its_code(example, tmp_path, monkeypatch):
    path = tmp_path / "example.py"
    path.write_text(example.source)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(E.TpuccError) as info:
        runpy.run_path(str(path), run_name="__main__")
    err = info.value
    assert err.code == example.code, f"expected {example.code}, got:\n{err}"
    marks = [i + 1 for i, text in enumerate(example.source.splitlines())
             if text.rstrip().endswith(MARK)]
    if marks:
        assert err.loc is not None and (err.loc.file, err.loc.line) == (str(path), marks[0]), \
            str(err)
    else:
        assert err.loc is None or err.loc.file != str(path), str(err)
    rendered = str(err).replace(str(path), "example.py")
    # The caret's column comes from CPython's position tables, which differ
    # between 3.11 and 3.12: compare the text without it.
    assert _without_carets(example.shown) == _without_carets(rendered), (
        f"docs/errors.md shows another message for this {example.code} example; it is now:\n"
        f"{rendered}")
