"""Session 41i: fixes from the finance / time-series sweep (41I) and one
from the graph sweep (41H).

- An object the function makes, of a class with __slots__ under a base
  without them (so it has a __dict__ too), updated through a slot
  (`c.n += 1`): the slot was guarded as if the object came from outside,
  and the trace's own write failed that guard (an internal E000).
- np.nanquantile / np.nanpercentile with a float32 or float16 q keep q's
  dtype, as NumPy's per-slice loop does (a Python int count times q).
- A search loop binding its result just before `break` (`when = i;
  break`) compiles in `for` and `while cond` loops, as in `while True`:
  a read after the loop raises UnboundLocalError at run time where the
  loop ran to its end.
- math.prod of runtime Python numbers: a left-to-right product, as sum().
- datetime64 / timedelta64: refused naming the dtype, the argument or
  line, and what to pass instead.
- The program's own error (IndexError, KeyError, ZeroDivisionError,
  OverflowError, UnboundLocalError) on a path a runtime condition takes
  is raised when the call returns, only if that path ran.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import assert_same, raises_at, same


def raises_alike(fn, *args, line_of=None):
    """Eager raises some built-in exception; compiled raises the same class
    (E910, when the call returns), at the same line."""
    with pytest.raises(Exception) as eager:
        fn(*copy.deepcopy(args))
    err = raises_at(fn, copy.deepcopy(args), type(eager.value), line_of=line_of, cache=False)
    assert isinstance(err, E.RuntimeRaiseError), err
    assert str(eager.value) in str(err)


# --- __slots__ under a base with a __dict__ ---------------------------------------------

class Base:
    pass


class Counter(Base):
    __slots__ = ("n",)

    def __init__(self):
        self.n = 0


class Mixin:
    def double(self):
        return 2 * self.total


@dataclass(slots=True)
class Tally(Mixin):
    total: float = 0.0
    count: int = 0


class Indicator:
    pass


class Ema(Indicator):
    __slots__ = ("alpha", "value", "bars")

    def __init__(self, alpha):
        self.alpha, self.value, self.bars = alpha, 0.0, 0

    def update(self, x):
        self.value = self.alpha * x + (1 - self.alpha) * self.value
        self.bars += 1


def test_slot_of_an_object_made_in_the_call_updated():
    def bump(p):
        c = Counter()
        c.n += 1
        return c.n + p[0]
    same(bump, np.ones(3))
    same(bump, np.arange(3, dtype=np.int32))


def test_slot_updated_in_a_loop_over_bars():
    def count(p):
        c = Counter()
        for x in p:
            c.n += 1
        return c.n
    same(count, np.arange(40.0))
    same(count, np.arange(5.0))


def test_dataclass_slots_on_a_plain_mixin():
    def f(r):
        t = Tally()
        for x in r:
            t.total += x
            t.count += 1
        return t.total, t.count, t.double()
    same(f, np.linspace(0, 1, 7))
    same(f, np.arange(50, dtype=np.float32))


def test_indicator_with_slots_under_a_plain_base():
    def f(prices):
        ema = Ema(0.2)
        for p in prices:
            ema.update(p)
        return ema.value, ema.bars
    same(f, np.linspace(1, 2, 30))


def test_slots_object_from_outside_still_guarded():
    c = Counter()

    def f(p):
        return c.n + p[0]
    compiled = tpucc.compile(f, cache=False)
    assert compiled(np.ones(2)) == 1.0
    c.n = 5
    assert compiled(np.ones(2)) == 6.0


# --- nanquantile / nanpercentile keep a float32 / float16 q's dtype -------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_nan_quantile_keeps_qs_dtype(dtype):
    def tail(x):
        return np.nanquantile(x, dtype(0.05)), np.nanpercentile(x, dtype(5.0))
    same(tail, np.array([0.01, -0.02, 0.03, -0.05], dtype))
    same(tail, np.array([0.01, np.nan, 0.03, -0.05, 0.2], dtype))


def test_nan_quantile_float32_q_on_an_axis_and_many_q():
    x = np.array([[0.01, -0.02, np.nan, 0.4], [0.3, 0.1, 0.2, -0.1]], np.float32)
    same(lambda x: np.nanquantile(x, np.float32(0.3), axis=1), x)
    same(lambda x: np.nanpercentile(x, np.array([5, 50, 95], np.float32), axis=0), x)
    same(lambda x: np.nanquantile(x, np.array([0.1, 0.9], np.float32), axis=1,
                                  keepdims=True), x)
    # a float32 q on float64 data: float64, as NumPy's
    same(lambda x: np.nanquantile(x, np.float32(0.3), axis=1), x.astype(np.float64))
    # Python-float and float64 q unchanged
    same(lambda x: (np.nanquantile(x, 0.3), np.nanpercentile(x, np.float64(40))), x)


# --- a search loop's result bound just before break --------------------------------------

def breach_for(eq, limit):
    for i in range(len(eq)):
        if eq[i] < limit:
            when = i
            break
    return when


def breach_while(eq, limit):
    i = 0
    while i < len(eq):
        if eq[i] < limit:
            when = eq[i] * 2
            break
        i += 1
    return when


def breach_static_range(eq, limit):
    for i in range(4):
        if eq[i] < limit:
            when = i
            break
    return when + 1


def breach_list(eq, limit):
    for x in [1.0, 2.0, 3.0]:
        if eq[0] * x > limit:
            found = x
            break
    return found


EQ = np.array([1.0, 1.1, 1.05, 0.95, 1.2, 0.9] * 6)


@pytest.mark.parametrize("fn", [breach_for, breach_while, breach_static_range])
def test_break_binding_compiles(fn):
    same(fn, EQ, 1.0)
    same(fn, EQ, 2.5)
    same(fn, EQ.astype(np.float32), 1.0)


@pytest.mark.parametrize("fn", [breach_for, breach_while, breach_static_range])
def test_break_binding_unbound_raises_at_run_time(fn):
    compiled = tpucc.compile(fn, cache=False)
    with pytest.raises(UnboundLocalError):
        fn(EQ, 0.5)
    with pytest.raises(UnboundLocalError) as info:
        compiled(EQ, 0.5)
    assert isinstance(info.value, E.RuntimeRaiseError)
    assert_same(fn(EQ, 1.0), compiled(EQ, 1.0))     # the same executable, bound


def test_break_binding_in_a_loop_over_a_list():
    same(breach_list, np.array([1.0]), 1.5)
    same(breach_list, np.array([1.0]), 0.5)
    raises_alike(breach_list, np.array([1.0]), 5.0, line_of="return found")


def test_binding_on_one_branch_of_an_if_still_refused():
    def f(x):
        if x.sum() > 0:
            y = x * 2
        return y
    raises_at(f, (np.ones(3),), E.MergeError, match="not defined on every path",
              line_of="return y", cache=False)


# --- math.prod of runtime Python numbers -------------------------------------------------

def test_math_prod_of_runtime_floats():
    def growth(r):
        factors = [1.0 + float(x) for x in r]
        return sum(factors), math.prod(factors)
    same(growth, np.array([0.01, -0.02, 0.03]))
    same(growth, np.array([0.01, -0.02, 0.03], np.float32))


def test_math_prod_variants():
    same(lambda r: math.prod(1.0 + float(x) for x in r), np.array([0.1, 0.2]))
    same(lambda r: math.prod([float(x) for x in r], start=2), np.array([0.5, 3.0]))
    same(lambda r: math.prod([int(x) for x in r]), np.array([2, 3, 4]))
    same(lambda r: math.prod(r), np.array([1.5, 2.0, 3.0]))            # NumPy scalars
    same(lambda r: math.prod(r[i] for i in range(3)), np.array([1.5, 2.0, 3.0], np.float32))
    same(lambda r: (math.prod([]), math.prod([2, 3]) * r[0]), np.array([2.0]))
    same(lambda r: math.prod(r.shape) * r.sum(), np.ones((2, 3)))


# --- datetime64 / timedelta64 ------------------------------------------------------------

def test_datetime_constant_refused_naming_the_dtype():
    def coupon_dates(n):
        return np.datetime64("2024-01-15") + np.arange(n) * np.timedelta64(30, "D")
    err = raises_at(coupon_dates, (3,), E.DTypeError, match="timedelta64",
                    line_of="np.timedelta64(30", cache=False)
    assert "dates and times" in str(err) and "np.int64" in str(err.hint)
    assert "Python objects" not in str(err.hint)


@pytest.mark.parametrize("dtype", ["datetime64[D]", "timedelta64[s]", "datetime64[ns]"])
def test_datetime_argument_refused_naming_it(dtype):
    def year_frac(d0, d1):
        return (d1 - d0) / 365.0
    d = np.array([1, 2], dtype)
    with pytest.raises(E.DTypeError) as info:
        tpucc.compile(year_frac, cache=False)(d, d)
    err = info.value
    assert f"argument d0 has dtype {dtype}" in str(err)
    assert "d0.astype(np.int64)" in err.hint and dtype in err.hint


D = np.array(["2024-01-01", "2024-03-01"], "datetime64[D]")


def test_datetime_global_refused_at_its_line():
    def f(x):
        return D + x
    err = raises_at(f, (1,), E.DTypeError, match="datetime64", line_of="return D", cache=False)
    assert "D.astype(np.int64)" in err.hint


def test_folded_date_constants_still_compile():
    def f(x):
        return (np.datetime64("2024-03-01") - np.datetime64("2024-01-01")) \
            / np.timedelta64(1, "D") + x
    same(f, 1.0)
    same(f, np.arange(3.0))


def test_int64_day_counts_compile():
    def year_frac(d0, d1):
        return (d1 - d0) / 365.0
    same(year_frac, D.astype(np.int64), (D + 40).astype(np.int64))


# --- the program's own errors on a runtime path that does not run ----------------------

NAMES = {0: "a", 1: "b"}


def mark_unreached(dist):
    if (dist < 0).sum() > 1:
        dist[0] = np.inf
    return dist


def pick(dist, path):
    if dist[0] > 100:
        return path[10]
    return path[0]


def name_of(u):
    if u[0] > 5:
        return NAMES[int(u.shape[0]) + 5]
    return u * 2


def divided(x):
    k = 3
    if x.sum() > 10:
        k = k // 0
    return x + k


def into_uint8(x):
    if x.sum() > 10:
        x[0] = -1
    return x


def in_a_loop(x):
    t = 0.0
    for i in range(x.shape[0]):
        if x[i] > 100:
            t += [1.0, 2.0][5]
        t += x[i]
    return t


@pytest.mark.parametrize("fn, ok, bad, line", [
    (mark_unreached, (np.zeros(3, np.int64),), (np.full(3, -1, np.int64),), "dist[0] ="),
    (pick, (np.array([1, 2]), [7, 8, 9]), (np.array([101, 2]), [7, 8, 9]), "path[10]"),
    (name_of, (np.array([1, 2]),), (np.array([7, 2]),), "NAMES["),
    (divided, (np.ones(3),), (np.full(3, 5.0),), "k // 0"),
    (into_uint8, (np.ones(3, np.uint8),), (np.full(3, 9, np.uint8),), "x[0] = -1"),
    (in_a_loop, (np.arange(5.0),), (np.arange(5.0) * 100,), "[5]"),
])
def test_error_on_a_runtime_path_raised_only_if_it_runs(fn, ok, bad, line):
    same(fn, *ok)
    raises_alike(fn, *bad, line_of=line)


def test_error_on_a_runtime_path_inside_a_try_stays_refused():
    def f(x):
        try:
            if x.sum() > 10:
                return [1][3]
        except IndexError:
            return x * 0
        return x
    raises_at(f, (np.ones(3),), E.UserCodeError, line_of="[1][3]", cache=False)


def test_error_on_every_path_still_raised_at_compile_time():
    def f(x):
        return x + [1, 2][5]
    raises_at(f, (np.ones(3),), E.UserCodeError, match="IndexError", line_of="[5]",
              cache=False)


# --- a runtime-length selection used as an index array ----------------------------------

def neighbour_sum(indptr, indices, x):
    out = np.zeros(len(indptr) - 1, x.dtype)
    for u in range(len(out)):
        out[u] = x[indices[indptr[u]:indptr[u + 1]]].sum()
    return out


def neighbour_max_rows(indptr, indices, X):
    out = np.zeros((len(indptr) - 1, X.shape[1]), X.dtype)
    for u in range(len(out)):
        if indptr[u + 1] > indptr[u]:
            out[u] = X[indices[indptr[u]:indptr[u + 1]]].max(axis=0)
    return out


CSR = (np.array([0, 2, 3, 5, 5]), np.array([1, 2, 2, 0, 1]))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_gather_through_a_runtime_slice(dtype):
    same(neighbour_sum, *CSR, np.array([1, 10, 100], dtype))


def test_gather_rows_through_a_runtime_slice():
    same(neighbour_max_rows, *CSR, np.arange(12.0).reshape(3, 4))


def test_gather_through_a_mask_selection():
    def f(idx, m, x):
        g = x[idx[m]]
        return g.sum(), (g * 2).mean(), np.max(g)
    same(f, np.array([0, -1, 2, 7]), np.array([True, True, True, False]), np.arange(5.0))


def test_gather_out_of_bounds_among_the_selected_raises_at_run_time():
    def f(idx, m, x):
        return x[idx[m]].sum()
    same(f, np.array([0, 9]), np.array([True, False]), np.arange(3.0))
    with pytest.raises(IndexError):
        tpucc.compile(f, cache=False)(np.array([0, 9]), np.array([True, True]), np.arange(3.0))


def mark_used(color, row):
    used = np.zeros(len(color) + 1, bool)
    used[color[row & (color >= 0)]] = True
    return used


def test_scatter_through_a_mask_selection():
    same(mark_used, np.array([0, -1, 1]), np.array([True, True, True]))
    same(mark_used, np.array([2, 0, -1, 1]), np.array([True, False, True, True]))


def test_scatter_variants():
    def add_one(x, idx, lo, hi):
        x[idx[lo:hi]] += 1.0
        return x

    def copy_rows(x, idx, m, y):
        x[idx[m]] = y[m]
        return x

    def set_rows(x, idx, m):
        x[idx[m]] = np.array([1.0, 2.0])
        return x
    same(add_one, np.zeros(5), np.array([4, 0, 3, 3]), 1, 3)
    same(add_one, np.zeros(5), np.array([4, 0, 3, 3]), 0, 2)
    same(copy_rows, np.zeros(5), np.array([4, 0, 2, 1]), np.array([True, False, True, False]),
         np.array([9.0, 8.0, 7.0, 6.0]))
    same(set_rows, np.zeros((4, 2)), np.array([3, -1, 0]), np.array([True, True, False]))
