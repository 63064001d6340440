"""Session 41l: Python number semantics at run time.  A Python float or
complex `**` that overflows raises Python's OverflowError, a Python complex
divided by a runtime zero (or 0j to a negative or complex power) raises
ZeroDivisionError; int()/round()/math.floor() of a float past int64 says
what to do; a StopIteration leaving a generator is RuntimeError (PEP 479);
sorted() of floats keeps CPython's order of equal items with reverse=True,
and a NaN among them raises instead of an order eager Python does not give;
a Python int counter merged with NumPy integers by a runtime branch raises
where it grows past their dtype instead of wrapping."""
from __future__ import annotations

import math

import numpy as np
import pytest

import tpucc

from conftest import raises_at, same


def eager_raises(fn, args, error):
    with pytest.raises(error):
        fn(*args)


# --- bug_01: Python float / complex ** that overflows ---------------------------------------

def _float_power(x):
    return float(x[0]) ** 400


def _float_exponent(x):
    return 10.0 ** float(x[0])


def _int_base_float_exponent(x):
    return 2 ** float(x[0])


def _two_runtime_floats(x):
    return float(x[0]) ** float(x[1])


def _builtin_pow(x):
    return pow(float(x[0]), 400)


def _in_place_power(x):
    v = float(x[0])
    v **= 400
    return v


def _complex_power(x):
    return complex(x[0]) ** 400


def _complex_fractional_power(x):
    return complex(x[0]) ** 2.5


@pytest.mark.parametrize("fn, big, small", [
    (_float_power, [10.0], [1.5]),
    (_float_exponent, [400.0], [3.0]),
    (_int_base_float_exponent, [2000.0], [10.5]),
    (_two_runtime_floats, [-10.0, 401.0], [-2.0, 3.0]),
    (_builtin_pow, [10.0], [-1.1]),
    (_in_place_power, [10.0], [1.01]),
    (_complex_power, [10 + 0j], [1 + 0.001j]),
    (_complex_fractional_power, [1e200 + 0j], [-2 + 0j]),
])
def test_python_power_that_overflows_raises_overflow_error(fn, big, small):
    big, small = np.array(big), np.array(small)
    eager_raises(fn, (big,), OverflowError)
    err = raises_at(fn, (big,), OverflowError, line_of="v **=" if fn is _in_place_power else "return",
                    cache=False)
    assert isinstance(err, tpucc.TpuccError) and err.code == "E910"
    same(fn, small)


def test_python_power_message_is_pythons():
    with pytest.raises(OverflowError) as eager:
        _float_power(np.array([10.0]))
    raises_at(_float_power, (np.array([10.0]),), OverflowError, match=str(eager.value),
              line_of="**", cache=False)
    raises_at(_complex_power, (np.array([10 + 0j]),), OverflowError,
              match="complex exponentiation", line_of="**", cache=False)


@pytest.mark.parametrize("x", [[np.inf, 2.0], [10.0, np.inf], [np.nan, 400.0], [10.0, -400.0]])
def test_python_power_of_infinities_or_underflow_does_not_raise(x):
    same(_two_runtime_floats, np.array(x))


def test_numpy_scalar_power_still_gives_inf():
    def f(x):
        return x[0] ** 400, np.float32(x[0]) ** 400, x ** 400
    with np.errstate(over="ignore"):
        same(f, np.array([10.0]))


# --- bug_09: Python complex division by zero, 0j to a negative power ------------------------

def _complex_divide(x):
    return complex(x[0]) / complex(x[1])


def _int_by_complex(x):
    return 1 / complex(x[0])


def _complex_by_float(x):
    return complex(x[0]) / float(x[1].real)


def _complex_to_minus_one(x):
    return complex(x[0]) ** -1


def _float_to_complex(x):
    return float(x[0].real) ** complex(x[1])


def _zero_complex_to_float(x):
    return 0j ** float(x[0].real)


@pytest.mark.parametrize("fn, zero, fine", [
    (_complex_divide, [1 + 2j, 0j], [1 + 2j, 2j]),
    (_int_by_complex, [0j], [3 - 4j]),
    (_complex_by_float, [1 + 1j, 0j], [1 + 1j, 2 + 0j]),
    (_complex_to_minus_one, [0j], [2j]),
    (_float_to_complex, [0j, 1j], [2 + 0j, 1j]),
    (_zero_complex_to_float, [-1.5 + 0j], [2 + 0j]),
])
def test_python_complex_zero_division_raises(fn, zero, fine):
    zero, fine = np.array(zero), np.array(fine)
    with pytest.raises(ZeroDivisionError) as eager:
        fn(zero)
    raises_at(fn, (zero,), ZeroDivisionError, match=str(eager.value), line_of="return",
              cache=False)
    same(fn, fine)


def test_complex_zero_to_the_zero_is_one():
    same(_zero_complex_to_float, np.array([0j]))


def test_python_complex_by_static_zero_raises_while_compiling():
    def f(x):
        return complex(x[0]) / 0
    raises_at(f, (np.array([1j]),), ZeroDivisionError, match="complex division by zero",
              line_of="/ 0", cache=False)


# --- bug_12: int() of a float past int64 ---------------------------------------------------

@pytest.mark.parametrize("fn, rounding", [
    (lambda x: int(float(x[0])), "np.trunc"),
    (lambda x: round(float(x[0])), "np.rint"),
    (lambda x: math.floor(x[0]), "np.floor"),
    (lambda x: math.ceil(float(x[0])), "np.ceil"),
])
@pytest.mark.parametrize("value", [1e19, -1e19, 2.0 ** 63])
def test_int_of_a_float_past_int64_says_what_to_do(fn, rounding, value):
    err = raises_at(fn, (np.array([value]),), OverflowError, match="does not fit 64 bits",
                    line_of="lambda", cache=False)
    assert err.code == "E910"
    assert err.hint and rounding in err.hint, err.hint
    same(fn, np.array([2.0 ** 62]))
    same(fn, np.array([-2.0 ** 63]))


def test_int_of_a_float_past_int64_is_documented():
    from pathlib import Path
    docs = (Path(__file__).parent.parent / "docs" / "errors.md").read_text()
    assert "does\nnot fit 64 bits" in docs or "does not fit 64 bits" in docs


# --- bug_08: PEP 479 ------------------------------------------------------------------------

def _pairs(x):
    it = iter(x)
    for a in it:
        yield a + next(it)


def _raising_generator(x):
    yield x[0]
    raise StopIteration


def test_stop_iteration_in_a_generator_is_runtime_error():
    def f(x):
        try:
            return list(_pairs(x))
        except RuntimeError:
            return [-1.0]
    same(f, np.arange(5.0))
    same(f, np.arange(4.0))


def test_stop_iteration_in_a_generator_consumed_by_a_loop():
    def f(x):
        total = 0.0
        try:
            for p in _pairs(x):
                total += p
        except RuntimeError as e:
            return total, str(e)
        return total, "ok"
    same(f, np.arange(5.0, dtype=np.float32))
    same(f, np.arange(6))


def test_raise_stop_iteration_in_a_generator():
    def caught(x):
        try:
            return sum(_raising_generator(x))
        except RuntimeError:
            return -1.0
    same(caught, np.arange(3.0))

    def not_caught_as_stop_iteration(x):
        try:
            return sum(_raising_generator(x))
        except StopIteration:
            return -2.0
    eager_raises(not_caught_as_stop_iteration, (np.arange(3.0),), RuntimeError)
    err = raises_at(not_caught_as_stop_iteration, (np.arange(3.0),), RuntimeError,
                    match="generator raised StopIteration", cache=False)
    assert err.loc.func == "_raising_generator" and "raise StopIteration" in str(err)


def test_generator_expression_next_of_exhausted_iterator():
    def f(x):
        g = iter([x[0]])
        try:
            return list(next(g) * v for v in x)
        except RuntimeError as e:
            return str(e)
    same(f, np.arange(3.0))


def test_stop_iteration_outside_generators_stays_stop_iteration():
    def plain(x):
        raise StopIteration

    def f(x):
        it = iter(x)
        next(it)
        try:
            next(it)
        except StopIteration:
            pass
        try:
            plain(x)
        except StopIteration:
            return x + 1
        return x
    same(f, np.arange(1.0))


# --- bug_02: sorted() of runtime floats --------------------------------------------------

@pytest.mark.parametrize("values", [[0.0, -0.0, 1.0], [-0.0, 0.0, -1.0],
                                    [3.0, 0.0, 1.0, -0.0, 2.0, 0.0], [2.0, -np.inf, np.inf]])
def test_sorted_floats_keep_cpythons_order_of_equal_items(values):
    x = np.array(values)
    same(lambda x: sorted([float(v) for v in x]), x)
    same(lambda x: sorted([float(v) for v in x], reverse=True), x)
    same(lambda x: sorted(list(x), reverse=True), x)
    same(lambda x: sorted(list(x.astype(np.float32)), reverse=True), x)

    def in_place(x):
        v = x.tolist()
        v.sort(reverse=True)
        return v
    same(in_place, x)


def test_sorted_ints_reverse():
    same(lambda x: sorted([int(v) for v in x], reverse=True), np.array([3, 1, 2, 1, 0]))


@pytest.mark.parametrize("values", [[2.0, np.nan, 1.0], [np.nan], [1.0, 2.0, np.nan]])
def test_sorted_floats_holding_nan_raise(values):
    def f(x):
        return sorted([float(v) for v in x] + [0.5])

    def g(x):
        v = list(x.astype(np.float32))
        v.sort()
        return v
    for fn in (f, g) if len(values) > 1 else (f,):
        err = raises_at(fn, (np.array(values),), ValueError, match="NaN",
                        line_of="sort", cache=False)
        assert err.code == "E910" and "np.sort" in err.hint
    same(f, np.array([2.0, 1.0]))


def test_sorted_single_nan_is_sorted():
    def g(x):
        v = list(x)
        v.sort()
        return v
    same(g, np.array([np.nan]))
