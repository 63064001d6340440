"""Session 46D1 fixes: slow compiles the sweep found (bugs 46D/01, 03, 04)."""
import math
import time
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
    t = time.time()
    compiled = same(_sum, x)
    assert time.time() - t < 10
    assert "xor" not in hlo(compiled, x)    # no per-item overflow checks
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
