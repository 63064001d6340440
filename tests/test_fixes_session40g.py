"""Session 40g: operator.index() of a runtime NumPy integer (was refused as an
"array attribute"), round() of a NumPy bool or complex scalar (NumPy's
TypeError, was a number), np.isreal / np.iscomplex of runtime arrays (were
refused), ufunc.accumulate and np.cumulative_sum / prod of a slice with
runtime bounds (were refused, naming "np.accumulate"), max()/min() of a
float16 scalar and a Python number it cannot hold (was inf), and more below."""
import operator

import numpy as np
import pytest

import tpucc
from conftest import raises_at


def same(expected, got):
    """Equal values, dtypes and Python types, element by element of tuples."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for e, g in zip(expected, got):
            same(e, g)
        return
    assert type(got) is type(expected), (type(got), type(expected))
    if isinstance(expected, (np.ndarray, np.generic)):
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        np.testing.assert_array_equal(got, expected)
    else:
        assert got == expected or (got != got and expected != expected)


def check(fn, *args, **compile_kwargs):
    same(fn(*args), tpucc.compile(fn, cache=False, **compile_kwargs)(*args))


# --- operator.index / __index__ of a runtime NumPy integer -----------------------------------

def index_plus_one(x):
    return operator.index(x[0]) + 1


def index_method_twice(x):
    return x[0].__index__() * 2


def index_of_0d_array(x):
    return operator.index(x[1:2].reshape(()))


def index_picks_tuple_item(x):
    return (10, 20, 30, 40)[operator.index(x[0])]


def index_forms(x):
    # (the four forms as one program: one compile per dtype)
    return index_plus_one(x), index_method_twice(x), index_of_0d_array(x), index_picks_tuple_item(x)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint8, np.uint32])
def test_index_of_a_runtime_integer_is_a_python_int(dtype):
    check(index_forms, np.array([3, 1], dtype))


def index_of_array(x):
    return operator.index(x)


@pytest.mark.parametrize("fn, x, match", [
    (index_plus_one, np.array([1.0, 2.0], np.float32),
     r"TypeError: 'numpy.float32' object cannot be interpreted as an integer"),
    (index_plus_one, np.array([True, False]),
     r"TypeError: 'numpy.bool' object cannot be interpreted as an integer"),
    (index_of_0d_array, np.array([1.0, 2.0]),
     r"TypeError: only integer scalar arrays can be converted to a scalar index"),
    (index_of_array, np.array([1, 2]),
     r"TypeError: only integer scalar arrays can be converted to a scalar index"),
    (index_method_twice, np.array([1.0, 2.0]),
     r"AttributeError: 'numpy.float64' object has no attribute '__index__'"),
])
def test_index_of_a_non_integer_raises_numpys_error(fn, x, match):
    with pytest.raises(Exception) as eager:
        fn(x)
    assert eager.type.__name__ in match
    raises_at(fn, (x,), match=match, line_of="index", cache=False)


# --- round() of a NumPy bool or complex scalar -----------------------------------------------

def round_first(x):
    return round(x[0])


def round_first_digits(x):
    return round(x[0], 0)


def round_comparison(x):
    return round(x[0] > 0)


@pytest.mark.parametrize("fn", [round_first, round_first_digits, round_comparison])
@pytest.mark.parametrize("x", [np.array([True, False]), np.array([1 + 2j, 1], np.complex64),
                               np.array([2.5, 1.0])])
def test_round_of_a_type_without_round_raises_numpys_type_error(fn, x):
    try:
        expected = fn(x)
    except TypeError as e:
        raises_at(fn, (x,), match=f"TypeError: {e}", line_of="round(", cache=False)
        return
    check(fn, x)


def round_python_bool(x):
    return round(bool(x[0])), round(x[0] > 0 and True or False)


def rounds_of_bools_and_numbers(b, i, f):
    return round_python_bool(b), round_first(i), round_first_digits(f)


def test_round_of_a_python_bool_and_of_numbers_still_compile():
    check(rounds_of_bools_and_numbers, np.array([2, 1]), np.array([3, 1], np.int16),
          np.array([2.5, 1.0], np.float32))


# --- np.isreal / np.iscomplex ----------------------------------------------------------------

def real_and_complex(x):
    return np.isreal(x), np.iscomplex(x)


def real_and_complex_of_items(x):
    return np.isreal(x[0]), np.iscomplex(x[1]), np.isreal(x.sum().reshape(()))


def real_and_complex_of_products(x):
    return np.isreal(x * 1j), np.iscomplex(x + 0j), np.iscomplex([1, 2j])


def real_and_complex_forms(x):
    # (the three forms as one program: one compile per input)
    return real_and_complex(x), real_and_complex_of_items(x), real_and_complex_of_products(x)


@pytest.mark.parametrize("x", [
    np.array([1, 2j, 3 + 0j, complex(0, np.nan)], np.complex64),
    np.array([1 - 1j, 0j], np.complex128), np.array([1.0, np.nan]),
    np.array([1, 2], np.int8), np.array([True, False]), np.array([1, 2], np.float16)])
def test_isreal_and_iscomplex_as_numpy(x):
    check(real_and_complex_forms, x)


# --- ufunc.accumulate / np.cumulative_sum of a slice with runtime bounds ---------------------

ACCUMULATIONS = {
    "add.accumulate": np.add.accumulate, "multiply.accumulate": np.multiply.accumulate,
    "maximum.accumulate": np.maximum.accumulate, "minimum.accumulate": np.minimum.accumulate,
    "cumulative_sum": np.cumulative_sum, "cumulative_prod": np.cumulative_prod,
    "maximum.accumulate(dtype=)": lambda v: np.maximum.accumulate(v, dtype=np.float64),
    "cumulative_sum(dtype=)": lambda v: np.cumulative_sum(v, dtype=np.float32),
}


def _into_zeros(op, bounded):
    def run(x, i, j):
        y = np.zeros_like(op(x))
        if bounded:
            y[i:j] = op(x[i:j])
        else:
            y[i:] = op(x[i:])
        return y
    return run


def _all_into_zeros(bounded):
    """Every accumulation of ACCUMULATIONS, as one program returning a tuple."""
    runs = tuple(_into_zeros(op, bounded) for op in ACCUMULATIONS.values())

    def run_all(x, i, j):
        return tuple(run(x, i, j) for run in runs)
    return run_all


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.uint8, np.bool_])
@pytest.mark.parametrize("bounded", [False, True])
def test_accumulate_of_a_runtime_slice_as_numpy(dtype, bounded):
    values = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3]) % (2 if dtype is np.bool_ else 10)
    fn = _all_into_zeros(bounded)
    compiled = tpucc.compile(fn, cache=False, runtime_args=("i", "j"))   # one executable
    x = values.astype(dtype)
    for i, j in ((2, 7), (0, 10), (5, 5)):
        same(fn(x, i, j), compiled(x, i, j))


def onset_peak(x, t):
    k = int(np.argmax(x > t))
    y = np.zeros_like(x)
    y[k:] = np.maximum.accumulate(x[k:])
    return y


def rows_accumulated_along_columns(x, k):
    y = np.zeros((3, 4))
    y[k:] = np.add.accumulate(x[k:], axis=1)
    return y


def rows_running_minimum(x, k):
    y = np.zeros((3, 4))
    y[k:] = np.minimum.accumulate(x[k:])
    return y


def backward_running_maximum(x, k):
    return np.maximum.accumulate(x[k::-1]).sum()


def two_onset_peaks(x, t, x2, t2):
    return onset_peak(x, t), onset_peak(x2, t2)


def test_running_peak_from_an_onset_keeps_nan_as_numpy():
    check(two_onset_peaks, np.sin(np.linspace(0, 9, 30)), 0.3,
          np.array([0.0, 1.0, np.nan, 3.0, -2.0]), 0.5)


def accumulations_of_rows(x, w, k):
    return (rows_accumulated_along_columns(x, k), rows_running_minimum(x, k),
            backward_running_maximum(w, k))


def test_accumulate_of_a_runtime_slice_of_rows():
    x = np.arange(12.0).reshape(3, 4)[::-1].copy()
    w = np.array([2.0, -1.0, 5.0, 3.0])
    compiled = tpucc.compile(accumulations_of_rows, cache=False, runtime_args=("k",))
    for k in (0, 1, 2):     # one executable for every k
        same(accumulations_of_rows(x, w, k), compiled(x, w, k))


def cumulative_with_initial(x, k):
    return np.cumulative_sum(x[k:], include_initial=True)


def reduceat_of_slice(x, k):
    return np.add.reduceat(x[k:], [0], axis=0) + np.add.accumulate(np.zeros((2, 2))[k:])


def test_accumulate_refusals_name_the_ufunc():
    x = np.arange(5.0)
    raises_at(cumulative_with_initial, (x, 1), match=r"np\.cumulative_sum\(include_initial",
              line_of="include_initial", cache=False, runtime_args=("k",))
    err = raises_at(reduceat_of_slice, (x, 1), line_of="reduceat", cache=False,
                    runtime_args=("k",))
    assert "np.accumulate" not in str(err) and "np.reduceat" not in str(err)


# --- max()/min() of a float16 scalar and a Python number it cannot hold ----------------------

def max_with_huge_float(x):
    return max(x[0], 1e10)


def min_with_huge_int(x):
    return min(x[0], -100000)


@pytest.mark.parametrize("fn", [max_with_huge_float, min_with_huge_int])
def test_max_min_of_float16_and_a_number_it_cannot_hold_is_refused(fn):
    raises_at(fn, (np.ones(2, np.float16),), match=r"E300.*float16.*cannot hold",
              line_of="return", cache=False)


def max_with_fitting_number(x):
    return max(x[0], 2.5), min(x[1], 100)


def test_max_min_of_float16_and_a_number_it_holds():
    # (the Python number is held in the NumPy scalar's dtype, and the path
    # that picks it gives the Python number back, as eagerly: held_ints.py)
    for x in (np.array([1.0, 300.0], np.float16), np.array([1e30, 3e38], np.float32)):
        got = tpucc.compile(max_with_fitting_number, cache=False)(x)
        for e, g in zip(max_with_fitting_number(x), got):
            assert type(g) is type(e) and g == e


# --- int / int of runtime Python ints: the exact quotient rounded once -----------------------

def int_quotient(x):
    return int(x[0]) / int(x[1])


def int_quotients_with_constants(x):
    a = int(x[0])
    return a / 10**9, 3**39 / (a or 1), a / 7, a / -3


def int_quotient_in_place(x):
    a = int(x[0])
    a /= int(x[1])
    return a


def _quotient_cases():
    rng = np.random.default_rng(40)
    cases = [(1626397517784163999, 10**9), (2**63 - 1, 3), (-2**63, 3), (-2**63, -1),
             (-2**63, 2**63 - 1), (1, 2**62 + 1), (-1, 2**63 - 1), (0, -5), (0, 2**60),
             (7, 2), (2**53 + 1, 1), (2**60 + 1, -(2**55 + 3)), (5, -(2**54 + 1))]
    cases += [tuple(int(v) for v in rng.integers(-2**63, 2**63 - 1, 2)) for _ in range(60)]
    cases += [(int(rng.integers(1.6e18, 1.8e18)), 10**9) for _ in range(60)]
    return np.array(cases, np.int64)


def int_quotient_forms(x):
    return int_quotient(x), int_quotients_with_constants(x), int_quotient_in_place(x)


def test_int_true_division_is_cpythons_correctly_rounded_quotient():
    fn = int_quotient_forms     # the three forms as one program
    compiled = tpucc.compile(fn, cache=False)
    for x in _quotient_cases():
        expected, got = fn(x), compiled(x)
        assert repr(got) == repr(expected), (x, expected, got)


def test_int_true_division_by_a_runtime_zero_still_raises():
    raises_at(int_quotient, (np.array([5, 0]),), error=tpucc.errors.RuntimeRaiseError,
              match="ZeroDivisionError|division by zero", line_of="/", cache=False)


def numpy_int_division(x):
    return x[0] / x[1], np.true_divide(int(x[0]), int(x[1]))


def test_numpy_integer_division_stays_numpys_float_division():
    check(numpy_int_division, np.array([1626397517784163999, 10**9], np.int64))


# --- a Python int with float32 / float16: through a C double, as NumPy ------------------------

K = 2**60 + 2**36 + 1


def plus_static_int(f):
    return f + K, f - K, K * (f + 1), np.maximum(f, K)


def runtime_int_forms(x, f):
    k = int(x[0])
    g = f.copy()
    g[0] = k
    return (np.float32(k), f + k, k * (f + 1), np.maximum(f, k), g, np.full(2, k, np.float32),
            np.complex64(k) + f, f + (k // 2 + 2**40), np.float32(k) / 3, np.float16(k % 70000))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.complex64])
def test_python_int_with_a_narrow_float_array(dtype):
    check(plus_static_int, np.zeros(2, dtype))


def test_runtime_python_int_into_float32():
    compiled = tpucc.compile(runtime_int_forms, cache=False)   # one executable for every k
    for k in [K, -K, 2**63 - 1, 2**24 + 1, 2**53 + 2**29 + 1, 65519, 12345]:
        x, f = np.array([k], np.int64), np.zeros(2, np.float32)
        same(runtime_int_forms(x, f.copy()), compiled(x, f.copy()))


def test_runtime_python_ints_into_float32_match_at_random():
    rng = np.random.default_rng(9)
    ks = np.concatenate([rng.integers(-2**63, 2**63 - 1, 200), rng.integers(2**24, 2**40, 200)])

    def to_float32(x):
        return np.float32(int(x[0])), x[1:] + int(x[0])
    compiled = tpucc.compile(to_float32, cache=False)
    for k in ks:
        x = np.array([k, 0, 0], np.float32).astype(np.int64)
        x[0] = k
        same(to_float32(x), compiled(x))


# --- a variable bound only inside a runtime `while`, read after it --------------------------

def newton_sqrt2(x, tol):
    while abs(x * x - 2) > tol:
        xn = 0.5 * (x + 2 / x)
        x = xn
    return xn


def counted_while(x, n):
    i = 0
    while i < n:
        y = x * i
        last = i
        i += 1
    return y, last


def array_bound_in_while(x):
    while x.sum() < 10:
        z = x.copy()
        x = x * 2
    return z


def flag_bound_in_while(x):
    while x[0] < 5:
        seen = True
        x = x + 1
    return seen, x


@pytest.mark.parametrize("fn, args, kwargs", [
    (newton_sqrt2, (np.float64(1.0), 1e-12), {}),
    (newton_sqrt2, (np.float32(3.0), 1e-3), {}),
    (counted_while, (np.float32(2.0), 3), {"runtime_args": ("n",)}),
    (counted_while, (2.5, 4), {"runtime_args": ("n",)}),
    (array_bound_in_while, (np.ones(3),), {}),
    (flag_bound_in_while, (np.array([1, 2]),), {}),
])
def test_variable_bound_in_a_runtime_while_that_ran(fn, args, kwargs):
    check(fn, *args, **kwargs)


@pytest.mark.parametrize("fn, args, kwargs, name", [
    (newton_sqrt2, (np.float64(1.4142135623730951), 1e-3), {}, "xn"),
    (counted_while, (np.float32(2.0), 0), {"runtime_args": ("n",)}, "y"),
    (array_bound_in_while, (np.full(3, 5.0),), {}, "z"),
    (flag_bound_in_while, (np.array([7, 2]),), {}, "seen"),
])
def test_variable_bound_in_a_runtime_while_that_did_not_run_raises(fn, args, kwargs, name):
    with pytest.raises(UnboundLocalError):
        fn(*args)
    raises_at(fn, args, error=tpucc.errors.RuntimeRaiseError,
              match=f"UnboundLocalError|cannot access local variable '{name}'",
              line_of="return", cache=False, **kwargs)
