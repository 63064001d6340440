"""Session 34 (sweep 34c): NumPy's copy= modes and np.iterable, errors
inside installed packages (SciPy) placed at the program's call,
statistics' exact means refused by name, NumPy's array protocols on user
classes, the hint for str() in an assert message, dict.fromkeys.

PYTEST_DONT_REWRITE: programs below use `assert`, which tpucc compiles."""
from __future__ import annotations

import statistics

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import check, raises_at

# --- np.array / np.asarray copy=: NumPy's values, np._CopyMode's members -----------

COPY_MODES = [True, False, None, 1, 0, np._CopyMode.ALWAYS, np._CopyMode.IF_NEEDED,
              np._CopyMode.NEVER]


@pytest.mark.parametrize("make", [np.array, np.asarray])
@pytest.mark.parametrize("copy", COPY_MODES)
def test_copy_modes_copy_as_numpy_does(make, copy):
    def updated_through(a):
        b = make(a, copy=copy)
        b[0] = 9.0          # seen in `a` exactly where NumPy did not copy
        return b * 2, a.sum()
    check(updated_through, np.arange(3.0))


def test_a_copy_mode_never_that_must_convert_raises_as_numpy_does():
    def never(a):
        return np.array(a, dtype=np.float32, copy=np._CopyMode.NEVER)
    with pytest.raises(ValueError):
        never(np.arange(3.0))
    raises_at(never, (np.arange(3.0),), E.UserCodeError, match="Unable to avoid copy",
              line_of="np.array(")


def test_a_string_copy_raises_as_numpy_does():
    def stringly(a):
        return np.asarray(a, copy="yes")
    with pytest.raises(ValueError):
        stringly(np.arange(3.0))
    raises_at(stringly, (np.arange(3.0),), E.UserCodeError, match="strings are not allowed",
              line_of="np.asarray(")


# --- np.iterable: known from the shape --------------------------------------------

def iterables(a):
    return (np.iterable(a), np.iterable(a[0]), np.iterable(a.sum()), np.iterable([a[0]]),
            np.iterable((a, 1)), np.iterable(a.reshape(1, 3)), np.iterable(a[:0]))


def test_np_iterable_of_runtime_arrays_is_static():
    check(iterables, np.arange(3.0))


# --- SciPy: compiled where its Python code compiles, else refused at the call ------

scipy_special = pytest.importorskip("scipy.special")
import scipy.linalg  # noqa: E402
import scipy.signal  # noqa: E402


def convolved(a):
    return scipy.signal.convolve(a, a)


def test_scipy_signal_convolve_compiles():
    check(convolved, np.arange(3.0))


def log_sum_exp(a):
    return scipy_special.logsumexp(a)


def matrix_exp(a):
    return scipy.linalg.expm(a)


@pytest.mark.parametrize("fn, arg, call", [(log_sum_exp, np.arange(3.0), "logsumexp("),
                                           (matrix_exp, np.eye(2), "expm(")])
def test_scipy_code_that_does_not_compile_is_refused_at_the_programs_call(fn, arg, call):
    fn(arg)     # eager: fine
    err = raises_at(fn, (arg,), E.UnsupportedError, line_of=call,
                    match=r"\(in the scipy package's \w+\.py:\d+, called from here\)")
    assert "site-packages" not in err.loc.file
    assert "scipy's Python code is compiled as the program's own" in err.hint


def test_a_compiled_library_function_places_its_own_errors():
    with pytest.raises(E.UnsupportedError) as info:
        tpucc.compile(scipy_special.logsumexp)(np.arange(3.0))
    assert info.value.loc is not None and "logsumexp" in info.value.loc.file


# --- statistics: the exact means refused by name, the medians compiled ------------

def mean_of_two(a):
    return statistics.mean([a[0], a[1]])


def fmean_of_generator(a):
    return statistics.fmean(a[i] for i in range(3))


def stdev_of_three(a):
    return statistics.stdev([a[0], a[1], a[2]])


@pytest.mark.parametrize("fn, name, numpy_form", [
    (mean_of_two, "mean", "np.mean(np.array(values))"),
    (fmean_of_generator, "fmean", "float(np.mean(np.array(values, dtype=float)))"),
    (stdev_of_three, "stdev", "float(np.std(np.array(values), ddof=1))")])
def test_statistics_exact_means_of_runtime_numbers_are_refused_by_name(fn, name, numpy_form):
    fn(np.array([7.0, 2.0, 4.0]))     # eager: fine
    err = raises_at(fn, (np.array([7.0, 2.0, 4.0]),), E.UnsupportedError,
                    match=rf"statistics\.{name}\(\) of runtime numbers is not supported",
                    line_of=f"statistics.{name}(")
    assert numpy_form in err.hint


def static_mean(a):
    return statistics.mean([1.0, 2.5]) * a, statistics.fmean(x for x in (1, 2)) + a


def medians(a):
    items = [a[0], a[1], a[2]]
    return (statistics.median(items), statistics.median_low(items),
            statistics.median_high(items), statistics.median(items[:2]))


def test_statistics_of_static_numbers_and_medians_of_runtime_ones_compile():
    check(static_mean, np.arange(3.0))
    check(medians, np.array([7.0, 2.0, 4.0]))


# --- NumPy's array protocols on user classes ---------------------------------------

class Wrap:
    def __init__(self, d):
        self.d = d

    def __array__(self, dtype=None, copy=None):
        return self.d


class UF:
    def __init__(self, d):
        self.d = d

    def __array_ufunc__(self, uf, method, *inputs, **kw):
        return getattr(uf, method)(*[i.d if isinstance(i, UF) else i for i in inputs], **kw)


class Declines:
    def __init__(self, d):
        self.d = d

    def __array_ufunc__(self, uf, method, *inputs, **kw):
        return NotImplemented


class NotAnArray:
    def __array__(self, dtype=None, copy=None):
        return [1.0, 2.0]


class Dispatching:
    def __init__(self, d):
        self.d = d

    def __array_function__(self, func, types, args, kwargs):
        return func(self.d)


def through_array(a):
    w = Wrap(a)
    b = np.asarray(w)
    b[0] = 5.0          # no copy: the wrapped array itself
    return np.asarray(w) + 1, np.array(Wrap(a * 2)), np.sum(Wrap(a)), np.add(Wrap(a), 1), a


def through_array_ufunc(a):
    return np.add(UF(a), 1), np.multiply(2.0, UF(a)), np.sqrt(UF(a))


def test_array_and_array_ufunc_of_user_classes_are_interpreted():
    check(through_array, np.arange(3.0))
    check(through_array_ufunc, np.arange(3.0))


def declined(a):
    return np.add(Declines(a), 1)


def not_an_array(a):
    return np.asarray(NotAnArray()) + a


def dispatched(a):
    return np.mean(Dispatching(a))


def test_array_protocols_raise_as_numpy_does_or_are_refused_by_name():
    with pytest.raises(TypeError):
        declined(np.arange(3.0))
    raises_at(declined, (np.arange(3.0),), E.UserCodeError,
              match="all returned NotImplemented from __array_ufunc__", line_of="np.add(")
    with pytest.raises(ValueError):
        not_an_array(np.arange(2.0))
    raises_at(not_an_array, (np.arange(2.0),), E.UserCodeError,
              match="__array__ method not producing an array", line_of="np.asarray(")
    err = raises_at(dispatched, (np.arange(3.0),), E.UnsupportedError,
                    match=r"np\.mean\(\) of a Dispatching object: its class's "
                          "__array_function__", line_of="np.mean(")
    assert err.hint


# --- str() of a runtime value in an exception's message -----------------------------

def assert_with_str(a):
    m = a.min()
    assert m > 0, "bad: " + str(m)
    return a


def raise_with_str(a):
    m = a.min()
    if m < 0:
        raise ValueError("bad: " + str(m))
    return a


def assert_with_fstring(a):
    m = a.min()
    assert m > 0, f"bad: {m}"
    return a


def test_str_in_an_exception_message_suggests_the_f_string_that_compiles():
    err = raises_at(assert_with_str, (np.arange(3.0),), E.StaticValueError,
                    match="formatting a runtime value", line_of="assert m > 0")
    assert 'assert cond, f"...{x}..."' in err.hint
    err = raises_at(raise_with_str, (np.arange(3.0),), E.StaticValueError,
                    line_of="raise ValueError")
    assert 'raise ValueError(f"...{x}...")' in err.hint
    compiled = tpucc.compile(assert_with_fstring)
    np.testing.assert_array_equal(compiled(np.arange(1.0, 3.0)), np.arange(1.0, 3.0))
    with pytest.raises(AssertionError, match="bad: 0.0"):
        compiled(np.arange(3.0))


def str_outside_a_message(a):
    return "m=" + str(a.min())


def test_str_elsewhere_keeps_the_print_hint():
    err = raises_at(str_outside_a_message, (np.arange(3.0),), E.StaticValueError,
                    line_of="str(a.min())")
    assert err.hint.startswith("use print(x)")


# --- dict.fromkeys: static keys, one shared value -----------------------------------

def from_keys(a):
    d = dict.fromkeys(["a", "b"], a)
    e = dict.fromkeys(k for k in "xy")
    f = {}.fromkeys(("p", "q"), a[0])
    return d["a"] + d["b"], d["a"] is d["b"], e, f, list(d)


def from_keys_shared(a):
    d = dict.fromkeys(["a", "b"], a.copy())
    d["a"] += 1         # in place: the one array both keys hold
    return d["b"]


def test_dict_fromkeys_with_a_runtime_value_compiles():
    check(from_keys, np.arange(3.0))
    check(from_keys_shared, np.arange(3.0))


def runtime_keys(a):
    return dict.fromkeys([a[0], a[1]])


def test_dict_fromkeys_of_runtime_keys_is_refused():
    raises_at(runtime_keys, (np.arange(3.0),), E.StaticValueError,
              match="as a dict key", line_of="dict.fromkeys(")
