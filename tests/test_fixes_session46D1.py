"""Session 46D1 fixes: slow compiles the sweep found (bugs 46D/01, 03, 04)."""
import math
import warnings

import numpy as np
import pytest

import tpucc
from conftest import assert_same, count_hlo, hlo, same, same_each


# --- bug 01: sum/max/min/any/all/.count of arr.tolist(): one reduction, not N ops -----------

def _sum(x):
    return sum(x.tolist())


def _sum_start(x):
    return sum(x.tolist(), 10), sum(x.tolist(), 0.5)


def _max_min(x):
    return max(x.tolist()), min(x.tolist())


def _any_all(x):
    return any(x.tolist()), all(x.tolist())


def _counts(x):
    items = x.tolist()
    return items.count(2), items.count(0), items.count(2.0), items.count(True)


INT_KINDS = [np.uint8, np.int8, np.int16, np.uint32, np.int32, np.int64, np.bool_]


@pytest.mark.parametrize("dtype", INT_KINDS)
def test_tolist_reductions_match_python(dtype):
    x = (np.arange(60) % 5 - 1).astype(dtype)
    for fn in (_sum, _sum_start, _max_min, _any_all, _counts):
        same(fn, x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tolist_float_reductions_match_python(dtype):
    x = np.linspace(-2, 3, 50).astype(dtype)
    for fn in (_sum, _sum_start, _max_min, _any_all, _counts):
        same(fn, x)


def _exact(expected, actual):
    """Floats equal bit for bit (NaN is NaN, -0.0 is -0.0), of one type."""
    for e, a in zip(expected, actual):
        assert type(e) is type(a), (expected, actual)
        assert (math.isnan(e) and math.isnan(a)) or (e == a and math.copysign(1, e)
                                                     == math.copysign(1, a)), (expected, actual)


def test_tolist_float_max_min_keep_pythons_nan_and_zero_order():
    same_each(_max_min, (np.array([np.nan, 1.0, 2.0]),), (np.array([1.0, np.nan, 2.0]),),
              (np.array([-0.0, 0.0, -0.0]),), (np.array([0.0, -0.0, 0.0]),),
              (np.array([np.nan, np.nan, np.nan]),), (np.array([-np.inf, np.nan, np.nan]),),
              compare=lambda e, a: _exact(e, a) if type(e) is tuple and type(e[0]) is float
              else assert_same(e, a))


def test_tolist_any_all_of_nan_and_complex():
    same_each(_any_all, (np.array([0.0, np.nan]),), (np.array([0.0, 0.0]),))
    same(_any_all, np.array([0j, 1j]))
    same(_sum, np.array([1 + 2j, 3j]))


def test_tolist_sum_is_one_reduction_and_compiles_fast():
    x = np.arange(1000, dtype=np.uint8)
    compiled = same(_sum, x)
    text = hlo(compiled, x)
    assert "xor" not in text                # no per-item overflow checks
    # one reduction: the module is as long for 1000 items as for 10
    assert text.count("\n") == hlo(tpucc.compile(_sum, cache=False), x[:10]).count("\n")
    same(lambda s: s.tolist().count(7), x)


def test_changed_lists_and_arrays_take_the_item_by_item_path():
    def appended(x):
        items = x.tolist()
        items.append(100)
        return sum(items), max(items), items.count(100)

    def replaced(x):
        items = x.tolist()
        items[0] = -5
        return sum(items), min(items), any(items)

    def sliced(x):
        items = x.tolist()
        return sum(items[1:]), max(items[::2])

    def array_changed_after(x):
        items = x.tolist()
        x[0] = 50                   # the list keeps the old elements
        return sum(items), max(items), x

    def rows(x):                    # each row of a 2-d array's tolist()
        return [sum(r) for r in x.tolist()], [max(r) for r in x.tolist()]

    x = np.array([3, 1, 4, 1, 5], np.int32)
    for fn in (appended, replaced, sliced, array_changed_after):
        same(fn, x)
    same(rows, np.arange(12, dtype=np.int16).reshape(3, 4))


def test_tolist_int64_sum_still_checks_overflow():
    def total(x):
        return sum(x.tolist())
    big = np.array([2 ** 62, 2 ** 62], np.int64)
    with pytest.raises(OverflowError):
        tpucc.compile(total, cache=False)(big)
    same(total, np.array([2 ** 62, -2 ** 62, 5], np.int64))


def test_tolist_count_of_runtime_and_other_items():
    def runtime_item(x, k):
        return x.tolist().count(int(k)), x.tolist().count(x[0])

    def odd_items(x):
        items = x.tolist()
        return items.count("a"), items.count(None), items.count(2.5), items.count(300)

    same(runtime_item, np.array([2, 3, 2, 2], np.uint8), np.int64(2))
    same(odd_items, np.array([2, 3, 2, 2], np.uint8))


# --- bug 03: gathers and scatters at index arrays weigh in the UnrollWarning's estimate -------

def _unroll_warnings(fn, *args, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = fn(*args)
        assert_same(expected, tpucc.compile(fn, cache=False, **options)(*args))
    return [str(w.message) for w in caught if issubclass(w.category, tpucc.UnrollWarning)]


def _estimate_seconds(message):
    import re
    found = re.search(r"all \d+ copies: about (\d+) (s|minutes)", message)
    assert found, message
    return int(found.group(1)) * (60 if found.group(2) == "minutes" else 1)


def test_wavefront_dp_estimate_counts_its_gathers_and_scatters():
    # (`+ off`, a runtime 0: index arrays known only at run time, each
    # gather checked; with constant ones, see test_fixes_session47X2)
    def antidiag(a, b, off):
        n, m = len(a), len(b)
        H = np.zeros((n + 1, m + 1), np.int32)
        for d in range(2, n + m + 1):
            i = np.arange(max(1, d - m), min(n, d - 1) + 1) + off
            j = d - i
            s = np.where(a[i - 1] == b[j - 1], 2, -1)
            H[i, j] = np.maximum(H[i - 1, j - 1] + s, H[i - 1, j] - 1)
        return H.max(), H
    a = np.arange(7, dtype=np.uint8) % 4
    # (a budget of 8: its 13 diagonals are then unrolled for want of a While)
    (message,) = _unroll_warnings(antidiag, a, a[::-1].copy(), np.array(0), unroll=8)
    assert "gather or scatter at index arrays" in message
    assert _estimate_seconds(message) >= 4          # (13 copies of ~470 small ops' worth)


def test_growing_gathers_estimate():
    def prefix_maxima(x, off):
        out = np.zeros(len(x), x.dtype)
        for k in range(1, len(x)):
            out[k] = x[np.arange(k) + off].max()     # (off: a runtime 0)
        return out
    (message,) = _unroll_warnings(prefix_maxima, np.linspace(0, 1, 40, dtype=np.float32),
                                  np.array(0))
    assert "gather or scatter at index arrays" in message


# --- bug 04: a short loop unrolled in every call of a recursive function warns ---------------

def merge_sort(x):
    if len(x) <= 1:
        return x
    m = len(x) // 2
    left, right = merge_sort(x[:m]), merge_sort(x[m:])
    out = np.empty_like(x)
    i = j = 0
    for k in range(len(x)):
        if j >= len(right) or (i < len(left) and left[i] <= right[j]):
            out[k] = left[i]
            i += 1
        else:
            out[k] = right[j]
            j += 1
    return out


def test_recursive_merge_sort_warns_naming_the_recursion():
    (message,) = _unroll_warnings(merge_sort, np.array([37, 5, 60, 12, 12, 0, 63, 21]))
    assert "recursive function merge_sort()" in message
    assert "explicit stack or bottom-up" in message


def test_recursive_merge_sort_runs_later_merges_as_whiles():
    # (one dtype: the merges' path does not depend on it; the values and the
    # While come from the same program, whose later merges are Whiles)
    x = np.array([37, 5, 60, 12, 12, 0, 63, 21, 8, 44, 3, 50, 19, 7, 33, 2])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = tpucc.compile(merge_sort, cache=False)
        assert_same(merge_sort(x), compiled(x))
    (message,) = [str(w.message) for w in caught if issubclass(w.category, tpucc.UnrollWarning)]
    assert "later calls run it as one `while`" in message
    (entry,) = compiled._cache.values()        # (the module that ran: no second trace)
    assert count_hlo(entry.lowered.as_text(), "while") >= 1


def test_short_loops_outside_recursion_do_not_warn():
    def clipped(x):
        out = np.empty_like(x)
        for k in range(len(x)):
            out[k] = x[k] if x[k] > 0 else -x[k]
        return out

    def halves(x):                  # recursive, without a loop
        return x[0] if len(x) == 1 else halves(x[:len(x) // 2]) + halves(x[len(x) // 2:])

    assert _unroll_warnings(clipped, np.array([3, -1, 4, -1, 5, -9, 2, 6])) == []
    assert _unroll_warnings(halves, np.arange(16.0)) == []
