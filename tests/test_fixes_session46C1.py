"""Session 46C1's fixes, all of boolean-mask selections `x[mask]` (and slices
with runtime bounds, which are selections too):

- max/min(initial=...) with an initial that does not fit the integer dtype
  raise NumPy's OverflowError/ValueError instead of a wrapped garbage value;
- NumPy functions and array methods that are elementwise without being
  ufuncs (np.round, np.fix, np.nan_to_num, np.isclose, np.sinc, np.angle,
  x[m].round(), x[m].clip()) compile on a selection, as ufuncs do;
- x[m].ptp() (gone in NumPy 2) raises NumPy's AttributeError;
- two-output ufuncs (np.frexp, np.modf, np.divmod) of a selection give a
  tuple of selections."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc

from conftest import raises_at, same, same_each


# --- bug 01: initial= that does not fit the dtype ------------------------------------------

def min_initial_huge(x):
    return x[x > 2].min(initial=1e30)


def max_initial_300(x):
    return x[x > 2].max(initial=300)


def max_initial_minus_inf(x):
    return x[x > 2].max(initial=-np.inf)


def max_initial_nan(x):
    return x[x > 2].max(initial=np.nan)


def extract_max_initial_300(x):
    return np.extract(x > 2, x).max(initial=300)


def np_max_initial_300(x):
    return np.max(x[x > 2], initial=300)


@pytest.mark.parametrize("fn, dtype, error, match", [
    (min_initial_huge, np.int64, OverflowError, "out of bounds for int64"),
    (max_initial_300, np.uint8, OverflowError, "300 out of bounds for uint8"),
    (max_initial_minus_inf, np.int64, OverflowError, "cannot convert float infinity"),
    (max_initial_minus_inf, np.int16, OverflowError, "cannot convert float infinity"),
    (max_initial_nan, np.int32, ValueError, "cannot convert float NaN"),
    (extract_max_initial_300, np.uint8, OverflowError, "300 out of bounds for uint8"),
    (np_max_initial_300, np.int8, OverflowError, "300 out of bounds for int8"),
])
def test_initial_that_does_not_fit_raises_as_numpy(fn, dtype, error, match):
    x = np.array([3, 9, 4], dtype)
    with pytest.raises(error):
        fn(x)
    raises_at(fn, (x,), error=error, match=match, line_of="initial=", cache=False)


def max_initial_5(x):
    return x[x > 2].max(initial=5), x[x > 2].min(initial=100), x[x > 20].max(initial=7)


def sum_initial_float(x):
    return x[x > 2].sum(initial=2.7), x[x > 2].max(initial=-1.0)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int64, np.float32])
def test_initial_that_fits_still_joins(dtype):
    same_each(max_initial_5, (np.array([3, 9, 4, 1], dtype),), (np.array([0, 1], dtype),))


def test_float_initial_into_a_signed_int_selection():
    same(sum_initial_float, np.array([3, 9, 4, 1], np.int64))


# --- bug 03: elementwise functions that are not ufuncs ---------------------------------------

def fakeq_round(w, s):
    m = np.abs(w) > 0.1
    w[m] = np.round(w[m] / s) * s
    return w


def fakeq_around_decimals(w):
    m = w > 0
    w[m] = np.around(w[m], 1)
    return w


def fakeq_round_method(w, s):
    m = np.abs(w) > 0.1
    w[m] = (w[m] / s).round() * s
    return w


def clip_method(w):
    m = w < 1.0
    w[m] = w[m].clip(-0.5, 0.5)
    return w, w[w > 0].clip(max=0.3).sum()


def several(x):
    m = x > 0
    return (np.fix(x[m] * 3).sum(), np.nan_to_num(x[m] / x[m]).sum(),
            np.isclose(x[m], 0.5, atol=0.1).sum(), np.sinc(x[m]).mean(),
            np.real(x[m]).max(), np.round(x[m], 2).min())


W = np.array([0.05, 0.33, -0.71, 0.02, 1.2, -0.3])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_round_of_a_selection_quantizes(dtype):
    same_each(fakeq_round, (W.astype(dtype), 0.25), (W.astype(dtype)[::-1].copy(), 0.1))
    same(fakeq_round_method, W.astype(dtype), 0.25)
    same(fakeq_around_decimals, W.astype(dtype) * 3)


def test_clip_method_of_a_selection():
    same(clip_method, W.copy())


def test_other_elementwise_functions_of_a_selection():
    same(several, np.array([0.0, 0.55, -0.2, 0.94, 0.13, 0.5, np.inf]))


def isclose_of_two(x, y):
    m = x > y
    return np.isclose(x[m], y[m], rtol=0.01).sum(), np.where(x[m] > 1, y[m], x[m]).sum()


def test_two_selections_by_one_mask():
    same(isclose_of_two, np.array([1.0, 2.0, 3.0, 0.5]), np.array([0.99, 2.5, 1.0, 0.1]))


def angle_of_complex(z):
    return np.angle(z[z.real > 0], deg=True).sum(), np.round(z[z.real > 0], 1).sum()


def test_angle_and_round_of_complex_selection():
    same(angle_of_complex, np.array([1 + 1j, -1 + 2j, 2 - 3j]))


def round_int_and_rows(x, w):
    m = w > 0
    return np.round(x[m], -1).sum(), np.round(w[m] * 10).astype(np.int64)[0]


def test_round_of_ints_and_of_rows():
    same(round_int_and_rows, np.array([[14, 26], [33, 41], [55, 67]]), np.array([1.0, -1.0, 2.0]))


def round_of_runtime_slice(x, n):
    return np.round(x[:n] * 10).sum(), x[n:].round(1).max()


def test_round_of_a_slice_with_runtime_bounds():
    same_each(round_of_runtime_slice, (np.linspace(0, 1, 7), 3), (np.linspace(-1, 1, 7), 5))


def round_of_box(a, n, k):
    return np.round(a[:n, :k] * 3).sum()


def test_round_of_a_box():
    same_each(round_of_box, (np.linspace(0, 1, 12).reshape(3, 4), 2, 3),
              (np.linspace(0, 1, 12).reshape(3, 4), 3, 1))


def sort_of_selection(x):
    return np.sort(x[x > 0]).sum()


def reshape_method_of_selection(x):
    return x[x > 0].reshape(-1, 1).sum()


def isin_of_selection(x):
    return np.isin(x[x > 0], [1, 2]).sum()


def isclose_with_full_array(x, y):
    return np.isclose(x[x > 0], y).sum()


@pytest.mark.parametrize("fn, match", [
    (sort_of_selection, r"np\.sort of x\[mask\]"),
    (reshape_method_of_selection, r"x\[mask\]\.reshape"),
    (isin_of_selection, r"np\.isin of x\[mask\]"),
    (isclose_with_full_array, r"np\.isclose of x\[mask\]"),
])
def test_functions_that_are_not_elementwise_are_still_refused(fn, match):
    x = np.array([1.0, -2.0, 3.0])
    args = (x, x) if fn is isclose_with_full_array else (x,)
    raises_at(fn, args, error=tpucc.ShapeError, match=match, line_of="return", cache=False)


# --- bug 04: x[m].ptp() ---------------------------------------------------------------------

def ptp_method(x):
    return x[x > 0].ptp()


def ptp_method_caught(x):
    try:
        return x[x > 0].ptp()
    except AttributeError:
        return np.ptp(x[x > 0])


def test_ptp_method_of_a_selection_is_numpys_attribute_error():
    x = np.array([0.0, 0.5, -0.2, 0.9])
    raises_at(ptp_method, (x,), error=AttributeError, match="no attribute 'ptp'",
              line_of=".ptp()", cache=False)
    same(ptp_method_caught, x)


# --- bug 05: two-output ufuncs --------------------------------------------------------------

def frexp_first(x):
    return np.frexp(x[x > 0])[0].sum()


def frexp_unpacked(x):
    m, e = np.frexp(x[x > 0])
    return m.sum(), e.sum(), e.dtype == np.int32


def modf_whole(x):
    return np.modf(x[x > 0] * 3)[1].sum()


def divmod_selection(x, y):
    q, r = np.divmod(x[x > 1], 3)
    q2, r2 = divmod(x[x > 1], y[x > 1])
    return q.sum(), r.max(), q2.min(), r2.sum()


def test_frexp_and_modf_of_a_selection():
    x = np.array([0.0, 0.55, -0.2, 0.94, 0.13])
    same(frexp_first, x)
    same(frexp_unpacked, x)
    same(modf_whole, x)
    same(frexp_unpacked, x.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.uint8])
def test_divmod_of_a_selection(dtype):
    same(divmod_selection, np.array([1, 5, 7, 12, 0], dtype), np.array([2, 2, 3, 5, 1], dtype))


def frexp_into_selection(x):
    m = x > 0
    mant, ex = np.frexp(x[m])
    x[m] = np.ldexp(np.round(mant * 16) / 16, ex)
    return x


def test_block_floating_point_of_selected_values():
    same(frexp_into_selection, np.array([0.0, 0.55, -0.2, 0.94, 0.13, 3.3]))
