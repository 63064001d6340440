"""Session 40f's fixes, each checked against eager NumPy or for its message."""
import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at


def compiled(fn, *args, **kwargs):
    return tpucc.compile(fn, cache=False, **kwargs)(*args)


# --- a NumPy scalar merged with a Python float keeps its dtype (infer/state.merged_dtype) ---
# (was np.float64 by NEP 50's promotion even on the path that returns the NumPy scalar)

def _max_of_scalar_and_whole_float(x):
    return max(x[0], 2.0)


def _max_of_three(x):
    return max(x[0], x[1], 2.0)


def _min_of_list(x):
    return min([x[0], 300.0])


def _max_by_key(x):
    return max([x[0], -3.0], key=abs)


def _or_default(x):
    return x[0] or 7.0


def _if_merge(x):
    r = 2.0
    if x[1] > 0:
        r = x[0]
    return r


def _conditional_expression(x):
    return x[0] if x[1] > 0 else 3.0


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int32", "int64", "uint64"])
@pytest.mark.parametrize("fn", [_max_of_scalar_and_whole_float, _max_of_three, _min_of_list,
                                _or_default, _if_merge, _conditional_expression])
def test_numpy_integer_merged_with_a_python_float_keeps_its_dtype(fn, dtype):
    x = np.array([200, 1], dtype)     # every path eager takes returns the NumPy scalar
    check(fn, x)
    assert compiled(fn, x).dtype == dtype


def test_python_floats_beyond_the_integer_range_are_decided_at_compile_time():
    # (as Python ints are: max(u8, 300.0) is 300.0 whatever the uint8 holds)
    x = np.array([200, 1], np.uint8)
    check(lambda x: max(x[0], 300.0), x)
    check(lambda x: min(x[0], 300.5), x)
    check(lambda x: max(x[0], -np.inf), x)
    check(lambda x: max(x[0], x[1], float("-inf")), np.array([-2, 5], np.int64))


def test_numpy_integer_chosen_by_key_keeps_its_dtype():
    check(_max_by_key, np.array([-5, 1], np.int32))
    check(_max_by_key, np.array([7, 1], np.int8))


def test_the_python_float_path_takes_the_numpy_dtype():
    # README: the Python number's path comes back as the NumPy scalar (same value)
    x = np.array([1, 0], np.uint8)
    assert repr(compiled(_max_of_scalar_and_whole_float, x)) == "np.uint8(2)"
    assert repr(compiled(_if_merge, x)) == "np.uint8(2)"
    assert repr(compiled(_or_default, np.array([0, 1], np.int16))) == "np.int16(7)"


def test_numpy_bool_merged_with_a_python_float_stays_a_bool():
    check(lambda x: max(x[0] > 0, 0.0), np.array([3, 1], np.int32))
    check(lambda x: min(x[0] > 0, 1.0), np.array([-3, 1], np.int32))
    assert compiled(lambda x: max(x[0] > 0, 1.0), np.array([-3, 1])) == np.True_


def test_numpy_float_merged_with_a_python_complex_keeps_its_dtype():
    def merge(x):
        r = 2 + 0j
        if x[0] > 0:
            r = x[0]
        return r
    check(merge, np.array([1.5, 2], np.float32))
    assert repr(compiled(merge, np.array([-1.5, 2], np.float32))) == "np.float32(2.0)"


def _running_max_from_zero(x):
    best = 0.0
    for v in x:
        best = max(best, v)
    return best


def _running_max_while(x, n):
    best = 0.0
    i = 0
    while i < n:
        best = max(best, x[i])
        i += 1
    return best


def test_running_max_started_at_a_python_float():
    check(_running_max_from_zero, np.array([2, 5, 1], np.uint8))
    check(_running_max_while, np.array([2, 5, 1], np.int32), 3,
          compile_kwargs={"runtime_args": ("n",)})


def test_python_floats_that_compute_with_numpy_integers_still_promote():
    # s + x[i] is NumPy's float64 on every path: nothing to merge
    def total(x, n):
        s = 0.0
        i = 0
        while i < n:
            s = s + x[i]
            i += 1
        return s
    check(total, np.array([2, 5, 1], np.uint8), 3, compile_kwargs={"runtime_args": ("n",)})


def test_a_runtime_python_float_merged_with_numpy_integers_promotes_as_numpy_does():
    # (its value is known only at run time: float64 keeps it, whichever path;
    # the path that took the Python float gives it back, as eagerly)
    def pick(x, f):
        return max(x[0], f)
    x = np.array([2, 5], np.int8)
    out = compiled(pick, x, 2.5, runtime_args=("f",))
    assert out == 2.5 == pick(x, 2.5) and type(out) is type(pick(x, 2.5)) is float


# --- refused where the NumPy dtype cannot hold the Python number (E300) --------------------

def _max_with_fraction(x):
    return max(x[0], 2.5)


def _if_with_fraction(x):
    if x[1] > 0:
        r = x[0]
    else:
        r = 2.5
    return r


def _or_with_fraction(x):
    return x[0] or 2.5


def _minus_inf_sentinel(x):
    best = -np.inf
    for v in x:
        if v > best:
            best = v
    return best


def _minus_inf_sentinel_while(x, n):
    best = float("-inf")
    i = 0
    while i < n:
        if x[i] > best:
            best = x[i]
        i += 1
    return best


def test_a_fraction_merged_with_numpy_integers_is_refused_at_the_line():
    x = np.array([200, 1], np.uint8)
    raises_at(_max_with_fraction, (x,), E.MergeError, r"max\(\).*uint8.*cannot hold 2\.5",
              line_of="max(x[0], 2.5)", cache=False)
    raises_at(_if_with_fraction, (x,), E.MergeError, r"`r` mixed types.*cannot hold 2\.5",
              line_of="if x[1] > 0", cache=False)
    raises_at(_or_with_fraction, (x,), E.MergeError, r"or.*cannot hold 2\.5",
              line_of="x[0] or 2.5", cache=False)
    raises_at(lambda x: max(x[0], x[1], 0.5), (np.array([3, 1], np.int32),), E.MergeError,
              r"int32.*cannot hold 0\.5", line_of="max(", cache=False)
    raises_at(lambda x: max([x[0], 2.5], key=abs), (np.array([3, 1], np.int64),),
              E.MergeError, r"cannot hold 2\.5", line_of="max(", cache=False)


def test_bool_merged_with_a_fraction_is_refused():
    err = raises_at(lambda x: max(x[0] > 0, 0.5), (np.array([3, 1]),), E.MergeError,
                    r"bool.*cannot hold 0\.5", line_of="max(", cache=False)
    assert err.code == "E300"


def test_minus_inf_sentinel_beside_integers_names_the_sentinel_fix():
    x = np.array([3, 1, 4])
    err = raises_at(_minus_inf_sentinel, (x,), E.MergeError, r"int64.*cannot hold -inf",
                    line_of="if v > best", cache=False)
    assert "np.iinfo(np.int64).min" in err.hint
    raises_at(_minus_inf_sentinel_while, (x, 3), E.MergeError, r"cannot hold -inf",
              line_of="if x[i] > best", cache=False, runtime_args=("n",))


def test_out_of_range_whole_float_and_complex_are_refused():
    def merge(x):
        r = 300.0
        if x[1] > 0:
            r = x[0]
        return r
    raises_at(merge, (np.array([3, 1], np.uint8),), E.MergeError,
              r"uint8.*cannot hold 300\.0", line_of="if x[1] > 0", cache=False)

    def with_complex(x):
        r = 1j
        if x[0] > 0:
            r = x[0]
        return r
    err = raises_at(with_complex, (np.array([1.5], np.float32),), E.MergeError,
                    r"float32.*cannot hold 1j", line_of="if x[0] > 0", cache=False)
    assert "complex64" in err.hint


# --- np.can_cast and np.common_type of runtime arrays (ops/shape.py) -----------------------
# (refused E100 "not supported on runtime arrays": both depend on the dtypes alone)

def _widen(a, b):
    if np.can_cast(a, b.dtype):
        return b + a
    return b + a.astype(b.dtype)


def _common(a, b):
    t = np.common_type(a, b)
    return a.astype(t) + b.astype(t)


@pytest.mark.parametrize("da, db", [("int16", "int8"), ("int8", "int16"), ("float32", "float64"),
                                    ("float64", "float32"), ("uint8", "int16"), ("bool", "int8")])
def test_can_cast_of_a_runtime_array(da, db):
    check(_widen, np.array([1, 2], da), np.array([1, 0], db))


@pytest.mark.parametrize("casting", ["no", "equiv", "safe", "same_kind", "unsafe"])
def test_can_cast_castings_and_scalars(casting):
    x = np.array([1.5, 2.5], np.float64)
    check(lambda x: (np.can_cast(x, np.float32, casting), np.can_cast(x[0], "f4", casting),
                     np.can_cast(x.sum(), np.int64, casting=casting)), x)


def test_can_cast_of_a_python_number_raises_as_numpy_does():
    raises_at(lambda x, n: np.can_cast(n, np.int8), (np.zeros(2), 3), E.TpuccError,
              r"TypeError: can_cast\(\) does not support Python ints", line_of="can_cast",
              cache=False, runtime_args=("n",))
    raises_at(lambda x: np.can_cast(x, np.zeros(2)), (np.zeros(2),), E.TpuccError,
              r"TypeError", line_of="can_cast", cache=False)


@pytest.mark.parametrize("da, db", [("int16", "int8"), ("float16", "float16"),
                                    ("float32", "int8"), ("float32", "complex64"),
                                    ("float16", "float32")])
def test_common_type_of_runtime_arrays(da, db):
    check(_common, np.array([1, 2], da), np.array([1, 2], db))
    check(lambda a: np.common_type(a), np.array([1, 2], da))
    check(lambda a, b: np.common_type(a[0], b.reshape(2, 1)), np.array([1, 2], da),
          np.array([1, 2], db))


def test_common_type_of_a_bool_array_raises_as_numpy_does():
    raises_at(lambda a: np.common_type(a > 0), (np.array([1, 2]),), E.TpuccError,
              r"TypeError: can't get common type for non-numeric array",
              line_of="common_type", cache=False)
