"""Session 40a's fixes: long loops that build lists stay one `while` (a list
made in a multiple assignment, grown by `+=` or `.extend`, or held by a list
of lists; np.array of pairs a counted loop appended; itertools.accumulate
over many rows), and a static `while` that grows a container unrolls on past
the unroll budget instead of being refused as a runtime loop."""
from __future__ import annotations

import itertools
import operator
import warnings

import numpy as np
import pytest

import tpucc

from conftest import count_hlo, hlo, same, same_each


def one_while(compiled, *args):
    assert count_hlo(hlo(compiled, *args), "while") == 1


N = 60      # past the unroll budget (32)


def xs(dtype=np.float64, n=N):
    return (np.arange(n) % 7 - 3).astype(dtype)


# --- bug 01: `out, k = [], 0` ----------------------------------------------------------------

def made_with_a_number(x):
    out, k = [], 0
    for i in range(len(x)):
        out.append(x[i] * 2)
        k += 1
    return np.array(out), k


def made_with_a_float_sum(x):
    out, s = [], 0.0
    for i in range(len(x)):
        s = s + x[i]
        out.append(s)
    return np.array(out)


def made_with_a_call(x):
    out, n = [], len(x)
    for i in range(n):
        out.append(x[i] - 1)
    return np.array(out)


def made_with_an_array(x):
    out, y = [], x * 2
    for i in range(len(x)):
        out.append(y[i] + x[i])
    return np.array(out)


def made_fourth_of_four(x):
    a, b, c, out = 0, 1.5, "s", []
    for i in range(len(x)):
        out.append(x[i] * b)
    return np.array(out), a, c


@pytest.mark.parametrize("fn", [made_with_a_number, made_with_a_float_sum, made_with_a_call,
                                made_with_an_array, made_fourth_of_four])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_a_list_made_in_a_multiple_assignment_is_grown_by_one_while(fn, dtype):
    x = xs(dtype)
    one_while(same(fn, x), x)


# --- bug 03: `+=`, `.extend`, a list of lists -------------------------------------------------

def grown_by_iadd(x):
    out = []
    for i in range(len(x)):
        out += [x[i] * 2]
    return np.array(out)


def grown_by_iadd_tuple(x):
    out = []
    for i in range(len(x)):
        out += (x[i], x[i] + 1)
    return np.array(out)


def grown_by_extend(x):
    out = []
    for i in range(len(x)):
        out.extend([x[i], -x[i]])
    return np.array(out)


def grown_by_extend_of_rows(m):
    out = []
    for r in m:
        out.extend((r * 2, r + 1, r - 1))
    return np.array(out)


def grown_as_columns(x):
    cols = [[], []]
    for i in range(len(x)):
        cols[0].append(x[i])
        cols[1].append(-x[i])
    return np.array(cols)


def grown_by_two_appends(x):
    out = []
    for i in range(len(x)):
        out.append(x[i] * 2)
        out.append(x[i] + 1)
    return np.array(out), len(out)


@pytest.mark.parametrize("fn", [grown_by_iadd, grown_by_iadd_tuple, grown_by_extend,
                                grown_as_columns, grown_by_two_appends])
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint8])
def test_a_list_grown_by_iadd_extend_or_in_a_list_is_one_while(fn, dtype):
    x = xs(dtype)
    one_while(same(fn, x), x)


def test_extend_by_rows_of_a_matrix_is_one_while():
    m = np.arange(N * 3, dtype=np.float32).reshape(N, 3)
    one_while(same(grown_by_extend_of_rows, m), m)


def returned_after_extend(x):
    out = []
    for i in range(len(x)):
        out.extend([x[i] * 2, float(i)])
    return out


# (a list extended and returned holds the items in order: checked with
# test_iadd_of_an_array_in_a_long_loop_is_numpys_add, in one program)


def extended_by_itself(x):
    out = [x[0]]
    for i in range(len(x)):
        out += out[-1:]
    return np.array(out)


def test_a_list_extended_by_its_own_items_is_still_exact():
    x = xs(n=40)
    same(extended_by_itself, x)


# --- bug 04: np.array of pairs a counted loop appended ----------------------------------------

def pairs_of_comprehension(x):
    pairs = [(v, v * v) for v in x]
    return np.array(pairs)


def lists_of_comprehension(x):
    return np.array([[v, v * v, v - 1] for v in x])


def index_value_pairs(x):
    peaks = []
    for i in range(len(x)):
        peaks.append((i, x[i] * 2))
    return np.array(peaks)


def pairs_of_rows(m):
    return np.array([(r, r * 2) for r in m])


@pytest.mark.parametrize("fn", [pairs_of_comprehension, lists_of_comprehension,
                                index_value_pairs])
@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.bool_])
def test_np_array_of_pairs_a_loop_appended_is_the_buffers_stacked(fn, dtype):
    x = xs(dtype)
    compiled = same(fn, x)
    text = hlo(compiled, x)
    assert count_hlo(text, "while") == 1
    assert text.count("concatenate(") < 4       # (not one piece per item)


def test_np_array_of_pairs_of_rows_is_the_buffers_stacked():
    m = np.arange(N * 3, dtype=np.float64).reshape(N, 3)
    one_while(same(pairs_of_rows, m), m)


def pairs_with_dtype(x):
    return np.array([(v, v * 2) for v in x], dtype=np.float32)


def test_np_array_of_pairs_with_a_dtype():
    x = xs(np.int32)
    same(pairs_with_dtype, x)


# --- bug 02: itertools.accumulate over many rows ----------------------------------------------

def running_sum(x):
    return np.array(list(itertools.accumulate(x)))


def running_max(x):
    return np.array(list(itertools.accumulate(x, max)))


def running_product_from(x):
    return list(itertools.accumulate(x, operator.mul, initial=1))


def running_sum_of_rows(m):
    return np.array(list(itertools.accumulate(m)))


@pytest.mark.parametrize("fn", [running_sum, running_max, running_product_from])
@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.int64])
def test_accumulate_over_many_rows_is_one_while(fn, dtype):
    x = xs(dtype)
    inputs = [(x,)]
    if fn is running_max and dtype is np.float64:
        # max keeps Python's order with NaN: max(nan, v) is nan, max(v, nan)
        # is v (Python's comparisons); the same executable, other values
        with_nan = x.copy()
        with_nan[5] = np.nan
        with_nan[40] = np.nan
        inputs.append((with_nan,))
    one_while(same_each(fn, *inputs), x)


def test_accumulate_of_a_matrix_sums_its_rows_in_one_while():
    m = np.arange(N * 2, dtype=np.float64).reshape(N, 2)
    one_while(same(running_sum_of_rows, m), m)


def test_accumulate_over_a_few_rows_is_unchanged():
    x = xs(n=5)
    same(lambda x: (running_sum(x), running_max(x)), x)


# --- sweep 40B bug 04: a static `while` that grows a container --------------------------------

def continued_fraction(num, den, x):
    terms = []
    while den:
        terms.append(num // den)
        num, den = den, num % den
    return np.array(terms) * x


def three_continued_fractions(x):
    return (continued_fraction(832040, 514229, x),          # 28 terms
            continued_fraction(14930352, 9227465, x),       # 34 terms
            continued_fraction(2 ** 200 + 1, 3 ** 120, x))


def test_a_static_while_that_appends_runs_past_the_budget():
    x = np.float64(1.5)
    same(three_continued_fractions, x)


def worklist(n, x):
    st, out = [n], []
    while st:
        k = st.pop()
        out.append(k)
        if k > 1:
            st.append(k - 1)
            st.append(k - 2)
    return len(out), x * len(out)


def grows_a_tuple(n, x):
    t, k = (), 0
    while k < n:
        t = t + (k * k,)
        k += 1
    return np.array(t) + x


def fills_a_dict(n, x):
    d, k = {}, 1
    while k < n:
        d[k] = 1.0 / k
        k *= 2
    return sum(d.values()) * x


def builds_a_string(n, x):
    s = ""
    while n:
        s = str(n % 10) + s
        n //= 10
    return s, x + len(s)


def changes_containers(x):
    return (worklist(9, x), grows_a_tuple(70, x), fills_a_dict(2 ** 40, x),
            builds_a_string(10 ** 40 + 7, x))


def test_a_static_while_that_changes_a_container_runs_while_compiling():
    # (the four in one program: each static `while` runs while compiling)
    x = np.float32(2.0)
    same(changes_containers, x)


def appends_runtime_values(n, x):
    out = []
    k = 0
    while k < n:
        out.append(x * k)
        k += 1
    return np.array(out)


def test_a_static_while_that_appends_runtime_values_is_exact():
    x = np.float64(0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(appends_runtime_values, 50, x)


# --- seen on the way: `lst += arr` is NumPy's add (a new array), not an extend ----------------

def list_plus_array_in_place(x):
    out = [1.0, 2.0]
    kept = out
    out += x
    return out, kept


def list_plus_number_in_place(x):
    out = [1.0, 2.0]
    out += x[0]
    return out


def list_times_array_in_place(x):
    out = [1.0, 2.0]
    out *= x
    return out


def list_times_numpy_int(x):
    out = [x[0], x[1]]
    out *= np.int64(2)
    return out


def lists_in_place_with_arrays(x):
    return (list_plus_array_in_place(x), list_plus_number_in_place(x),
            list_times_array_in_place(x), list_times_numpy_int(x))


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_a_list_in_place_with_an_array_is_numpys_operator(dtype):
    # (the four in one program, compared as one tuple)
    same(lists_in_place_with_arrays, np.array([3, 5], dtype=dtype))


def grown_by_iadd_of_an_array(x):
    out = [x[0] * 0]
    for i in range(len(x)):
        out += x[i:i + 1]
    return out


def test_iadd_of_an_array_in_a_long_loop_is_numpys_add():
    # (with a list extended and returned, test above, in one program)
    x = xs()
    same(lambda x: (grown_by_iadd_of_an_array(x), returned_after_extend(x)), x)
