"""Session 48, sweep J (calendar and date arithmetic), dates and times:

- np.arange over dates with static bounds (`np.arange("2024-01-01",
  "2024-01-05", dtype="datetime64[D]")`, np.datetime64 bounds) raised a false
  E700 TypeError from tpucc's own length rule: an array of dates made from
  static arguments is now NumPy's, held while compiling as a string array is
  (its .astype(np.int64), items and differences are constants); only a date
  reaching compiled code is refused (E210).
- A datetime64 inside a container argument (`span[0]`, `d['k']`): the hint
  named a variable `x` the function does not have; every argument-dtype
  refusal (dates, big-endian, strings, records) had no file:line: now the
  `def` line, and the hint names the argument's path.
- np.timedelta64(secs, "s") of a runtime count got the generic "axis/shape"
  E400 and an np.select hint; x.astype("timedelta64[s]") the hint "keep
  strings and objects outside": both are now E210's dates refusal, with the
  integer counts to compute with.
- datetime.date(y, 1, 1) / calendar.weekday(y, m, d) of a runtime year said
  "an integer index taken from an array is needed": now "datetime.date() of
  a runtime value", with the integer day-number arithmetic to write instead.
"""
import calendar
import datetime

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import raises_at, same


# --- bug_01: np.arange (and other creation functions) over dates -------------------------

def test_arange_of_date_strings_folds():
    def f(x):
        days = np.arange("2024-01-01", "2024-01-05", dtype="datetime64[D]").astype(np.int64)
        return days + x
    same(f, np.int64(1))
    same(f, np.arange(4, dtype=np.int32))


def test_arange_of_datetime64_scalars_folds():
    def g(x):
        days = np.arange(np.datetime64("2024-01-01"), np.datetime64("2024-01-05")).astype(np.int64)
        return days + x
    same(g, np.int64(1))
    same(g, 2.5)


def test_arange_of_hours_with_a_timedelta_step():
    def f(x):
        d = np.arange(np.datetime64("2024-01-01T00"), np.datetime64("2024-01-02T00"),
                      np.timedelta64(6, "h"))
        return (d - d[0]).astype(np.int64) * x, len(d)
    same(f, np.float32(0.5))


def test_arange_of_months_and_positional_dtype():
    def f(x):
        months = np.arange("2024-01", "2024-06", 2, "datetime64[M]")
        return x + months.astype(np.int64), months[1].astype(np.int64)
    same(f, np.arange(3))


def test_date_arrays_returned_and_compared():
    def f(x):
        d = np.arange("2024-02-26", "2024-03-03", dtype="M8[D]")
        return d, (d >= np.datetime64("2024-03-01")) & (x > 0)
    same(f, np.ones(6))


def test_zeros_of_timedelta_dtype():
    def f(x):
        return np.zeros(3, "m8[s]").astype(np.int64) + x
    same(f, np.int64(4))


def test_date_array_meeting_a_runtime_value_is_refused_at_its_line():
    def f(x):
        d = np.arange("2024-01-01", "2024-01-05", dtype="datetime64[D]")
        return d + x
    err = raises_at(f, (np.int64(1),), E.DTypeError, match="dates and times",
                    line_of="return d + x", cache=False)
    assert "TypeError" not in str(err)


def test_changing_a_date_array_is_refused_with_the_integer_way():
    def f(x):
        d = np.arange("2024-01-01", "2024-01-05", dtype="datetime64[D]")
        d[0] = d[1]
        return d.astype(np.int64) + x
    err = raises_at(f, (np.int64(1),), E.SideEffectError, match="dates or times",
                    line_of="d[0] = d[1]", cache=False)
    assert "astype(np.int64)" in err.hint


def test_items_of_a_string_array_made_now_are_static():
    def f(x):
        g = np.array(list("ab#"))
        return (g[2] == "#") + x
    same(f, np.int64(1))


def test_plain_arange_unchanged():
    def f(x):
        return np.arange(2, 11, 3, dtype=np.int16) + x, np.arange(0.5, 2.0, 0.25)
    same(f, np.int16(1))


# --- bug_02: dates (and other refused dtypes) inside container arguments -----------------

def days_between(span, n):
    return n + (span[1] - span[0]).astype(np.int64)


def items_of_dict(d, n):
    return n + d["k"].astype(np.int64)


def plain(x):
    return x + 1


def _refused_at_def(fn, args):
    with pytest.raises(E.DTypeError) as info:
        tpucc.compile(fn, cache=False)(*args)
    err = info.value
    assert err.loc is not None and err.loc.line == fn.__code__.co_firstlineno, str(err)
    return err


def test_datetime_in_a_tuple_argument_names_its_path_and_def_line():
    span = (np.datetime64("2024-01-01"), np.datetime64("2024-03-01"))
    err = _refused_at_def(days_between, (span, np.int64(1)))
    assert "argument span[0] has dtype datetime64[D]" in str(err)
    assert "span[0].astype(np.int64)" in err.hint and "x.astype" not in err.hint


def test_datetime_in_a_list_and_a_dict_argument():
    err = _refused_at_def(days_between, ([np.datetime64("2024-01-01", "s")] * 2, 1))
    assert "span[0].astype(np.int64)" in err.hint and "datetime64[s]" in str(err)
    err = _refused_at_def(items_of_dict, ({"k": np.arange(3).astype("m8[h]")}, 1))
    assert "d['k'].astype(np.int64)" in err.hint and "a count of h units" in err.hint


@pytest.mark.parametrize("value, said, hint", [
    (np.arange(3).astype(">i4"), "non-native byte order", "x.astype(x.dtype.newbyteorder"),
    (np.array(["a"]), "dtype <U1", "x.astype(np.float64)"),
    (np.zeros(2, [("a", "i4")]), "structured", "x['a']"),
    (np.timedelta64(3, "s"), "timedelta64[s]", "x.astype(np.int64)"),
])
def test_argument_dtype_refusals_name_the_def_line(value, said, hint):
    err = _refused_at_def(plain, (value,))
    assert said in str(err) and hint in err.hint


def test_big_endian_item_of_a_tuple_argument_names_its_path():
    err = _refused_at_def(days_between, ((np.ones(2, ">f8"), np.ones(2)), 1))
    assert "span[0].astype(span[0].dtype.newbyteorder('='))" in err.hint


def test_int64_day_numbers_of_a_tuple_argument_compile():
    span = (np.datetime64("2024-01-01"), np.datetime64("2024-03-01"))
    same(days_between, tuple(np.int64(d.astype(np.int64)) for d in span), np.int64(1))


# --- bug_03: np.timedelta64 / np.datetime64 of a runtime value, astype to dates ----------

def test_timedelta64_of_a_runtime_count_is_the_dates_refusal():
    def minutes(secs):
        return np.timedelta64(secs, "s") / np.timedelta64(1, "m")
    err = raises_at(minutes, (np.int64(120),), E.DTypeError, match="np.timedelta64",
                    line_of="np.timedelta64(secs", cache=False)
    assert "dates and times" in str(err) and "a count of s units" in err.hint
    assert "np.select" not in err.hint and "axis" not in str(err)


@pytest.mark.parametrize("make", [
    lambda n: np.datetime64(n, "D"),
    lambda n: np.datetime64(n),
    lambda n: np.timedelta64(n),
])
def test_datetime64_of_a_runtime_value_is_the_dates_refusal(make):
    def f(n):
        return make(n)
    err = raises_at(f, (np.int64(3),), E.DTypeError, match="dates and times", cache=False)
    assert "np.select" not in err.hint


def test_the_integer_way_compiles():
    def minutes(secs):
        return secs / 60
    same(minutes, np.int64(120))


@pytest.mark.parametrize("dtype, counts", [("timedelta64[s]", "a count of s units"),
                                           ("datetime64[D]", "days since 1970-01-01"),
                                           ("M8[ms]", "ms units since the epoch")])
def test_astype_to_dates_is_the_dates_refusal(dtype, counts):
    def as_td(a):
        return a.astype(dtype).astype(np.int64) // 60
    err = raises_at(as_td, (np.arange(3) * 60,), E.DTypeError, match="dates and times",
                    line_of="a.astype(dtype)", cache=False)
    assert counts in err.hint and "strings and objects" not in err.hint


# --- bug_04: datetime.date / calendar.weekday of a runtime year ---------------------------

def test_datetime_date_of_a_runtime_year_names_the_class():
    def ordinal(y):
        return datetime.date(y, 1, 1).toordinal()
    err = raises_at(ordinal, (np.int64(2024),), E.StaticValueError,
                    match=r"datetime\.date\(\) of a runtime value", line_of="datetime.date(",
                    cache=False)
    assert "index" not in str(err).split("hint:")[0] and "days-from-civil" in err.hint


def test_calendar_weekday_of_runtime_numbers_names_the_class():
    def wd(y, m, d):
        return calendar.weekday(y, m, d)
    err = raises_at(wd, (np.int64(2024), np.int64(2), np.int64(29)), E.StaticValueError,
                    match=r"datetime\.date\(\) of a runtime value",
                    line_of="calendar.weekday(", cache=False)
    assert "calendar.py" in str(err)


def test_datetime_date_of_an_int_of_an_array():
    def f(x):
        return datetime.date(int(x[0]), 1, 1).weekday()
    raises_at(f, (np.array([2024]),), E.StaticValueError,
              match=r"datetime\.date\(\) of a runtime value", line_of="datetime.date(",
              cache=False)


def test_the_hinted_day_number_arithmetic_compiles():
    def days_weekday_ordinal(y, m, d):
        y = y - (m <= 2)
        era = y // 400
        yoe = y - era * 400
        doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
        days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
        return days, (days + 3) % 7, days + 719163
    ys, ms, ds = np.array([2024, 1970, 2000, 1900]), np.array([2, 1, 3, 12]), \
        np.array([29, 1, 1, 31])
    dates = [datetime.date(*map(int, t)) for t in zip(ys, ms, ds)]
    same(days_weekday_ordinal, ys, ms, ds)
    out = tpucc.compile(days_weekday_ordinal, cache=False)(ys, ms, ds)
    assert list(out[1]) == [t.weekday() for t in dates]
    assert list(out[2]) == [t.toordinal() for t in dates]


def test_static_dates_still_fold():
    def f(x):
        return datetime.date(2024, 2, 29).toordinal() + calendar.weekday(2024, 2, 29) + x
    same(f, np.int64(1))
