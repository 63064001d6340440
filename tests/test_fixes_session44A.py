"""Fixes of sweep 44A (time series and rolling windows): a ring buffer read
in time order, fmax/fmin/logical_or/logical_and.accumulate, warnings filters
inside the compiled function, and loops that used to unroll (expanding
median, seasonal profile by phase, runtime-if-heavy short loops)."""
import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each


# --- bug_03: np.concatenate([buf[h:], buf[:h]]) with a runtime h --------------------------

def _ring_read(buf, k):
    h = int(k[0])
    return np.concatenate([buf[h:], buf[:h]])


def _ring_in_order(buf, k):
    h = int(k[0])
    return np.concatenate((buf[:h], buf[h:]))


def _two_arrays(a, b, k):
    h = int(k[0])
    return np.concatenate([a[h:], b[:h]])


def _ring_rows(m, k):
    h = int(k[0])
    return np.concatenate([m[h:], m[:h]], axis=0)


def _ring_dtype(buf, k):
    h = int(k[0])
    return np.concatenate([buf[h:], buf[:h]], dtype=np.float32)


_HEADS = [-7, -5, -2, 0, 1, 3, 5, 9]


def test_ring_buffer_read_in_time_order():
    # (each program compiled once, called for every head: h is a runtime value)
    ks = [np.array([h]) for h in _HEADS]
    same_each(_ring_read, *[(np.arange(5.), k) for k in ks])
    same_each(_ring_in_order, *[(np.arange(5, dtype=np.int32), k) for k in ks])
    same_each(_two_arrays, *[(np.arange(5.), np.arange(10, 15, dtype=np.int64), k) for k in ks])
    same_each(_ring_rows, *[(np.arange(15.).reshape(5, 3), k) for k in ks])
    same_each(_ring_dtype, *[(np.arange(5, dtype=np.int64), k) for k in ks])


def test_ring_buffer_one_compile_several_heads():
    f = tpucc.compile(_ring_read, cache=False)
    buf = np.arange(6.)
    for h in range(-6, 8):
        np.testing.assert_array_equal(f(buf, np.array([h])), _ring_read(buf, np.array([h])))


def test_ring_buffer_of_an_object_in_a_loop():
    class Ring:
        def __init__(self, n):
            self.buf, self.pos = np.zeros(n), 0

        def push(self, v):
            self.buf[self.pos] = v
            self.pos = (self.pos + 1) % self.buf.shape[0]

        def ordered(self):
            return np.concatenate([self.buf[self.pos:], self.buf[:self.pos]])

    def run(x):
        r = Ring(4)
        out = np.zeros((x.shape[0], 4))
        for t in range(x.shape[0]):
            r.push(x[t])
            out[t] = r.ordered()
        return out
    same(run, np.arange(1., 60.))


def test_concatenate_of_unrelated_runtime_pieces_names_np_roll():
    def f(buf, k):
        h = int(k[0])
        return np.concatenate([buf[h:], buf[:h + 1]])
    err = raises_at(f, (np.arange(5.), np.array([2])), tpucc.ShapeError,
                    match="slice with runtime bounds", line_of="np.concatenate")
    assert "np.roll(x, -h)" in err.hint


# --- bug_02: fmax/fmin/logical_or/logical_and.accumulate ---------------------------------

_GAPPY = np.array([np.nan, 3., 1, np.nan, 4, -np.inf, 5, np.nan, 2])


@pytest.mark.parametrize("x", [
    _GAPPY, _GAPPY.astype(np.float32), np.full(4, np.nan), np.array([np.nan, -np.inf, np.nan]),
    np.array([3, -1, 4, 1, 5], dtype=np.int16), np.array([True, False, True]), np.zeros(0)])
def test_fmax_fmin_accumulate_skip_nan(x):
    same(lambda a: (np.fmax.accumulate(a), np.fmin.accumulate(a)), x)


def test_fmax_accumulate_axis_and_dtype():
    m = np.array([[1., np.nan, 3], [np.nan, np.nan, 0], [2, 5, np.nan]])
    same(lambda a: (np.fmax.accumulate(a, axis=1), np.fmin.accumulate(a, 0),
                    np.fmax.accumulate(a, dtype=np.float32)), m)
    same(lambda a: np.fmax.accumulate(a, axis=-1, dtype=np.float64),
         np.array([[3, 1, 4], [1, 5, 9]], dtype=np.int8))


@pytest.mark.parametrize("x", [
    np.array([3., 1, 4, 1, 5, np.nan, 2, 6, 5, 3, 5]), np.array([0, 2, 0, -1]),
    np.array([[0, 1, 0], [1, 1, 0]], dtype=np.int8), np.array([True, True, False, True])])
def test_logical_accumulate(x):
    same(lambda a: (np.logical_or.accumulate(a > 4), np.logical_or.accumulate(a),
                    np.logical_and.accumulate(a),
                    np.logical_and.accumulate(a, axis=-1, dtype=bool)), x)


def test_logical_accumulate_with_a_numeric_dtype_raises_numpy_error():
    def f(a):
        return np.logical_or.accumulate(a, dtype=np.int64)
    with pytest.raises(TypeError):
        f(np.array([0, 1]))
    raises_at(f, (np.array([0, 1]),), tpucc.DTypeError, match="No loop matching",
              line_of="accumulate", cache=False)


def test_event_has_happened_in_a_loop():
    def f(x):
        out = np.zeros_like(x)
        for t in range(1, x.shape[0] + 1):
            out[t - 1] = np.fmax.accumulate(x[:3])[-1] + np.logical_or.accumulate(x > t).sum()
        return out
    same(f, np.array([3., np.nan, 4, 1, 5]))


# --- bug_04: with warnings.catch_warnings(): warnings.simplefilter("ignore") -------------

import warnings  # noqa: E402

from numpy.lib.stride_tricks import sliding_window_view as _swv  # noqa: E402


def _roll_nanmean(x, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        return np.nanmean(_swv(x, w), axis=1)


def _quiet_nanmax_loop(x):
    out = np.zeros(x.shape[0] - 1)
    for i in range(x.shape[0] - 1):
        with warnings.catch_warnings(action="ignore"):
            out[i] = np.nanmax(x[i:i + 2])
    return out


def _nested_blocks(x):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Mean of empty slice")
        with warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.simplefilter("ignore")
            m = np.nanmean(x)
        s = np.nanstd(x)
    return m, s


@pytest.mark.parametrize("x", [np.array([1., np.nan, np.nan, 2, 3]), np.full(4, np.nan),
                               np.arange(6, dtype=np.float32)])
def test_catch_warnings_around_nan_reductions(x):
    before = list(warnings.filters)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(_roll_nanmean, x, 2)
        same(_quiet_nanmax_loop, x)
        same(_nested_blocks, x)
    assert warnings.filters == before


def test_catch_warnings_filters_the_compile_time_warnings():
    def f(x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.warn("quiet")
        warnings.warn("loud")
        return x + 1
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        tpucc.compile(f, cache=False)(np.ones(2))
    assert [str(w.message) for w in seen if w.category is UserWarning] == ["loud"]


def test_filters_outside_a_block_are_refused_at_their_line():
    def f(x):
        warnings.filterwarnings("ignore", category=RuntimeWarning)
        return np.nanmean(x)

    def g(x):
        warnings.simplefilter("ignore")
        return x

    for fn, line in ((f, "filterwarnings"), (g, "simplefilter")):
        err = raises_at(fn, (np.ones(3),), tpucc.SideEffectError,
                        match=r"outside a `with warnings.catch_warnings\(\):` block",
                        line_of=line, cache=False)
        assert "call it before the compiled function" in err.hint


def test_catch_warnings_record_is_refused_at_its_line():
    def f(x):
        with warnings.catch_warnings(record=True) as w:
            y = np.nanmean(x)
        return y, len(w)
    raises_at(f, (np.ones(3),), tpucc.UnsupportedError, match=r"record=True",
              line_of="catch_warnings", cache=False)


# --- bug_06: median / percentile / quantile of x[:i + 1] in a loop: a while -----------------

def _no_unroll(fn, *args):
    """`same`, and no UnrollWarning: the loop stays a runtime while."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)
        return same(fn, *args)


def _expanding(stat):
    def f(x):
        out = np.zeros(x.shape[0])
        for i in range(x.shape[0]):
            out[i] = stat(x[:i + 1])
        return out
    return f


_STATS = [np.median, np.nanmedian, lambda v: np.percentile(v, 90),
          lambda v: np.quantile(v, 0.25), lambda v: np.nanpercentile(v, 37.5),
          lambda v: np.nanquantile(v, np.float32(0.5)),
          lambda v: np.percentile(v, [10, 50, 100]).sum()]


@pytest.mark.parametrize("stat", range(len(_STATS)))
@pytest.mark.parametrize("x", [np.sin(np.arange(40) / 7.0), np.array([3., np.nan, 1, 4, 1, 5]),
                               np.arange(12, dtype=np.int32)[::-1],
                               np.linspace(-1, 1, 9, dtype=np.float32)])
def test_expanding_order_statistics_stay_a_while(stat, x):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _no_unroll(_expanding(_STATS[stat]), x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # (eager: the median of x[:0])
def test_order_statistics_of_windows_rows_and_masks():
    def f(x, m, k):
        i = int(k[0])
        w = x[i:i + 3 + i % 2]
        rows = m[:i + 1]
        sel = x[x > 0]
        return (np.median(w), np.percentile(rows, 50, axis=0), np.median(rows, keepdims=True),
                np.quantile(rows, [0.1, 0.9], axis=0, keepdims=True), np.nanmedian(rows, axis=0),
                np.median(sel), np.percentile(sel, 75), np.median(x[:i] > 0))
    x = np.array([2., -1, 5, 0, 3, -4, 8, 1])
    m = np.arange(24, dtype=np.int64).reshape(8, 3) % 7
    same_each(f, *[(x, m, np.array([k])) for k in (0, 1, 2, 4)])


def test_median_of_a_column_of_runtime_rows():
    def f(x, i):
        return np.median(x[:i, 0]), np.nanmedian(x[i:, 1]), np.median(x[:i, 1:], axis=0)
    x = np.array([[3., 1], [np.nan, 4], [1, 5], [9, 2]])
    compiled = tpucc.compile(f, runtime_args=("i",), cache=False)
    from conftest import assert_same
    for i in (0, 1, 2, 4, -1):      # (one compile: i is a runtime argument)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = f(x, i)
        assert_same(expected, compiled(x, i))


def test_percentile_of_no_element_raises_numpys_index_error():
    def f(x, k):
        return np.percentile(x[:int(k[0])], 50), np.median(x[:int(k[0])])
    same(f, np.arange(4.), np.array([2]))
    with pytest.raises(IndexError):
        f(np.arange(4.), np.array([0]))
    compiled = tpucc.compile(f, cache=False)
    with pytest.raises(IndexError, match="out of bounds"):
        compiled(np.arange(4.), np.array([0]))


# --- bug_05: np.nanmean(x[k::period]) over the phases: a while -----------------------------

def _seasonal_profile(x, period):
    seas = np.zeros(period)
    for k in range(period):
        seas[k] = np.nanmean(x[k::period])
    return seas - seas.mean()


@pytest.mark.parametrize("n, period", [(168 * 3, 168), (100, 7), (50, 48)])
def test_seasonal_profile_by_phase_stays_a_while(n, period):
    x = np.sin(np.arange(n) / 5.0)
    x[::11] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _no_unroll(_seasonal_profile, x, period)


_NAN_STATS = [np.nansum, np.nanprod, np.nanmean, np.nanvar, lambda v: np.nanstd(v, ddof=1),
              np.nanmax, np.nanmin, lambda v: np.nanmean(v, keepdims=True)[0]]


@pytest.mark.parametrize("stat", range(len(_NAN_STATS)))
@pytest.mark.parametrize("x", [np.array([3., np.nan, 1, 4, np.nan, 5, 0.5]),
                               np.array([np.nan, np.nan, 2, 1], dtype=np.float32),
                               np.arange(-3, 5, dtype=np.int16),
                               np.array([1 + 2j, np.nan, 3 - 1j, 0.5j])])
def test_expanding_nan_reductions_stay_a_while(stat, x):
    fn = _NAN_STATS[stat]
    if x.dtype.kind == "c" and fn in (np.nanmax, np.nanmin):
        return      # (NumPy orders complex numbers; tpucc refuses that elsewhere too)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _no_unroll(_expanding(fn), x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_reductions_of_rows_axes_and_keepdims():
    def f(m, k):
        i = int(k[0])
        rows = m[i:]
        return (np.nanmean(rows, axis=0), np.nansum(rows, axis=(0, 1), keepdims=True),
                np.nanvar(rows, 0, ddof=1), np.nanmax(rows), np.nanmean(rows[:, 1]),
                np.nanmean(m[m[:, 0] > 2], axis=0, dtype=np.float32))
    m = np.array([[1., np.nan, 3], [4, 5, np.nan], [np.nan, np.nan, np.nan], [7, 8, 9]])
    same_each(f, *[(m, np.array([k])) for k in (0, 1, 2, 3)])


def test_nanmax_of_no_element_raises_numpys_value_error():
    def f(x, k):
        return np.nanmax(x[int(k[0]):])
    compiled = tpucc.compile(f, cache=False)
    assert compiled(np.array([1., np.nan, 3]), np.array([1])) == 3.0
    with pytest.raises(ValueError, match="zero-size array"):
        compiled(np.array([1., np.nan, 3]), np.array([5]))


# --- bug_07: a short loop full of runtime ifs is one while, not 20 copies ---------------------

from conftest import count_hlo, hlo  # noqa: E402


class _Monitor:
    def __init__(self, window, k, cooldown):
        self.window, self.k, self.cooldown = window, k, cooldown
        self.buf = np.zeros(window)
        self.pos = self.filled = self.wait = self.alarms = 0
        self.max_z = 0.0

    def observe(self, v):
        z = 0.0
        if self.filled == self.window:
            mu, sd = self.buf.mean(), self.buf.std()
            z = (v - mu) / sd if sd > 0 else 0.0
            if self.wait > 0:
                self.wait -= 1
            elif abs(z) > self.k:
                self.alarms += 1
                self.wait = self.cooldown
            self.max_z = max(self.max_z, abs(z))
        self.buf[self.pos] = v
        self.pos = (self.pos + 1) % self.window
        self.filled = min(self.filled + 1, self.window)
        return z


def _monitor_run(mon, series):
    zs = np.zeros_like(series)
    for t in range(series.shape[0]):
        zs[t] = mon.observe(series[t])
    return zs, mon.alarms, mon.max_z


@pytest.mark.parametrize("n", [12, 20, 24])
def test_short_loop_of_runtime_ifs_is_one_while(n):
    x = np.random.default_rng(1).normal(size=n)
    x[n // 2] = 9.0
    eager_mon, mon = _Monitor(4, 2.0, 2), _Monitor(4, 2.0, 2)
    compiled = tpucc.compile(_monitor_run, cache=False)
    from conftest import assert_same
    assert_same(_monitor_run(eager_mon, x.copy()), compiled(mon, x.copy()))
    assert (mon.alarms, mon.pos, mon.wait) == (eager_mon.alarms, eager_mon.pos, eager_mon.wait)
    text = hlo(compiled, _Monitor(4, 2.0, 2), x.copy())
    assert count_hlo(text, "while") >= 1 and count_hlo(text, "conditional") < 2 * n


def test_short_loop_with_one_small_if_still_unrolls():
    def f(x):
        total = 0.0
        for t in range(8):
            if x[t] > 0:
                total += x[t]
        return total
    compiled = same(f, np.arange(-3.0, 5.0))
    assert count_hlo(hlo(compiled, np.arange(-3.0, 5.0)), "while") == 0
