"""Session 44E's fixes, each checked against eager NumPy: a list from outside
the call (global, attribute, dict item, closure, default) that a NumPy
function, method or subscript reads whole is guarded, so changing it
compiles again instead of giving stale results; np.isin (and any NumPy
call) given a set is refused naming the set and how to pass its items; a
list-of-lists DP table unrolled says that its indices are loop counters of
a loop tried as a `while`, and how to write the table as one array."""
import warnings

import numpy as np
import pytest

import tpucc
import tpucc.infer.loops as loops
from conftest import assert_same, raises_at, same


# --- bug_01: outside lists read whole by NumPy are guarded ----------------------------------

IDS = [0, 1]
SHAPE = [2, 3]
EDGES = [1.0, 4.0, 8.0]
REPS = [1, 2]
CONF = {"stop": [3, 4]}


class Tok:
    special = [0, 2]


def _isin(x):
    return np.isin(x, IDS)


def _fancy(x):
    return x[IDS]


def _fancy_2d(x):
    return x[IDS, 1:]


def _fancy_store(x):
    y = x.copy()
    y[IDS] = -1
    return y


def _take(x):
    return np.take(x, IDS)


def _take_method(x):
    return x.take(IDS)


def _reshape(x):
    return x.reshape(SHAPE)


def _np_reshape(x):
    return np.reshape(x, SHAPE)


def _zeros_like_shape(x):
    return np.zeros(SHAPE, x.dtype) + x[0]


def _tile(x):
    return np.tile(x, REPS)


def _digitize(x):
    return np.digitize(x, EDGES)


def _searchsorted(x):
    return np.searchsorted(EDGES, x)


def _searchsorted_method(x):
    return np.sort(x).searchsorted(EDGES)


def _interp(x):
    return np.interp(x, EDGES, np.arange(len(EDGES), dtype=np.float32))


def _concatenate(x):
    return np.concatenate([x, IDS])


def _percentile(x):
    return np.percentile(x, IDS)


def _choose(x):
    return np.choose(np.clip(x, 0, 1), IDS)


def _dict_item(x):
    return np.isin(x, CONF["stop"], invert=True)


def _class_attribute(x):
    return x[Tok.special]


def _object_argument(x, tok):
    return np.isin(x, tok.special)


def _default(x, stop=IDS):
    return np.isin(x, stop)


def _closure():
    stop = [1, 2]

    def f(x):
        return np.isin(x, stop)
    return f, stop


def _reset():
    IDS[:] = [0, 1]
    SHAPE[:] = [2, 3]
    EDGES[:] = [1.0, 4.0, 8.0]
    REPS[:] = [1, 2]
    CONF["stop"] = CONF["stop"]
    CONF["stop"][:] = [3, 4]
    Tok.special[:] = [0, 2]


def _after(fn, x, change, *more):
    """fn compiled and called once, the outside list changed, then compiled
    and eager on it: the same values and dtypes (a stale executable would
    give the old answer, or the old shape)."""
    _reset()
    try:
        compiled = tpucc.compile(fn, cache=False)
        assert_same(fn(x.copy(), *more), compiled(x.copy(), *more))
        change()
        assert_same(fn(x.copy(), *more), compiled(x.copy(), *more))
    finally:
        _reset()


def _append_id():
    IDS.append(3)


def _swap_ids():
    IDS[:] = [3, 2]


@pytest.mark.parametrize("fn", [_isin, _fancy, _fancy_store, _take, _take_method,
                                _concatenate, _percentile, _choose, _default])
@pytest.mark.parametrize("change", [_append_id, _swap_ids])
def test_list_read_whole_by_numpy_is_guarded(fn, change):
    _after(fn, np.array([5, 0, 3, 1, 2], np.int64), change)


def test_fancy_2d_index_list_guarded():
    _after(_fancy_2d, np.arange(20, dtype=np.float32).reshape(5, 4), _swap_ids)


@pytest.mark.parametrize("fn", [_reshape, _np_reshape, _zeros_like_shape])
def test_shape_list_guarded(fn):
    _after(fn, np.arange(6, dtype=np.int32), lambda: SHAPE.__setitem__(slice(None), [3, 2]))


def test_reps_list_guarded():
    _after(_tile, np.arange(3, dtype=np.uint8), lambda: REPS.__setitem__(0, 2))


@pytest.mark.parametrize("fn", [_digitize, _searchsorted, _searchsorted_method, _interp])
def test_edges_list_guarded(fn):
    _after(fn, np.array([0.5, 1.0, 3.0, 5.0, 9.0]), lambda: EDGES.__setitem__(1, 2.5))


def test_dict_item_list_guarded():
    _after(_dict_item, np.arange(6), lambda: CONF["stop"].append(5))


def test_class_attribute_list_guarded():
    _after(_class_attribute, np.arange(10.0, 16.0), lambda: Tok.special.append(5))


def test_attribute_of_argument_object_guarded():
    _after(_object_argument, np.arange(6), lambda: Tok.special.append(4), Tok())


def test_closure_list_guarded():
    f, stop = _closure()
    compiled = tpucc.compile(f, cache=False)
    x = np.arange(5)
    assert_same(f(x), compiled(x))
    stop.append(4)
    assert_same(f(x), compiled(x))


def test_list_of_arrays_read_at_each_call():
    """Arrays inside a guarded list are runtime inputs: updating one, or
    putting a new one of the same shape in its slot, is seen (not only
    after a recompile)."""
    rows = [np.ones(3), np.zeros(3)]

    def f(x):
        return np.stack(rows) + x
    compiled = tpucc.compile(f, cache=False)
    x = np.arange(3.0)
    assert_same(f(x), compiled(x))
    rows[0][:] = 7.0
    assert_same(f(x), compiled(x))
    rows[1] = np.full(3, 2.0)
    assert_same(f(x), compiled(x))
    rows.append(np.full(3, 5.0))
    assert_same(f(x), compiled(x))


def test_unchanged_list_results_stay_right():
    compiled = tpucc.compile(_isin, cache=False)
    x = np.array([0, 1, 2, 3])
    for _ in range(3):
        assert_same(_isin(x), compiled(x))


def test_list_argument_still_works():
    same(lambda x, ids: np.isin(x, ids), np.arange(5), [1, 3])


# --- bug_02: a set given to np.isin (any NumPy call) ---------------------------------------

STOP = {3, 4}


class Conf:
    stop = frozenset(range(50))


def _isin_set(ids):
    return np.isin(ids, STOP)


def _isin_frozenset_keyword(ids):
    return np.isin(ids, test_elements=Conf.stop, invert=True)


def _searchsorted_set(ids):
    return ids.searchsorted(STOP)


def test_isin_set_refused_naming_set_and_fix():
    err = raises_at(_isin_set, (np.array([1, 3, 4]),), tpucc.UnsupportedError,
                    match=r"np\.isin\(\) is given the set \{3, 4\} as `test_elements`.*"
                          r"one object", line_of="np.isin(ids, STOP)")
    assert "list(STOP)" in err.hint and "np.array(sorted(STOP))" in err.hint
    assert "np.array of a sequence" not in str(err)


def test_isin_frozenset_keyword_refused():
    err = raises_at(_isin_frozenset_keyword, (np.arange(4),), tpucc.UnsupportedError,
                    match=r"given the frozenset as `test_elements`",
                    line_of="test_elements=Conf.stop")
    assert "list(Conf.stop)" in err.hint


def test_method_given_set_refused():
    err = raises_at(_searchsorted_set, (np.arange(6),), tpucc.UnsupportedError,
                    match=r"x\.searchsorted\(\) is given the set", line_of="searchsorted(STOP)")
    assert "list(STOP)" in err.hint


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_isin_with_the_sets_items(dtype):
    def f(ids):
        return np.isin(ids, list(STOP)), np.isin(ids, np.array(sorted(STOP)))
    same(f, np.array([1, 3, 4, 4, 5], dtype))


# --- bug_03: a list-of-lists DP table unrolled ---------------------------------------------

def _lcs_lists(a, b):
    # (floats written into a table of ints: not held as one array while the
    # loops run, as a table of one type is since session 47X1, so unrolled)
    n, m = len(a), len(b)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            if a[i - 1] == b[j - 1]:
                dp[i][j] = dp[i - 1][j - 1] + 1.0
            else:
                dp[i][j] = max(dp[i - 1][j], dp[i][j - 1])
    return dp[n][m]


def _segment(x):
    n = len(x)
    dp = [0.0] + [np.inf] * n
    for i in range(1, n + 1):
        for k in range(1, min(3, i) + 1):
            dp[i] = min(dp[i], dp[i - k] + x[i - k])
    return dp[n]


def _unroll_warnings(fn, *args, monkeypatch):
    """The UnrollWarnings of compiling fn with a small unroll budget (and a
    low warning threshold, so that a small table shows them quickly), its
    result checked against eager NumPy."""
    monkeypatch.setattr(loops, "UNROLL_WARNING_OPS", 10)
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        compiled = tpucc.compile(fn, cache=False, unroll=2)
        assert_same(fn(*args), compiled(*args))
    return [str(w.message) for w in found if w.category is tpucc.UnrollWarning]


@pytest.mark.parametrize("dtype", [np.int64, np.int16])
def test_list_of_lists_dp_warning_names_counter_and_table(dtype, monkeypatch):
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 3, 5).astype(dtype), rng.integers(0, 3, 6).astype(dtype)
    said = _unroll_warnings(_lcs_lists, a, b, monkeypatch=monkeypatch)
    assert said
    for message in said:
        assert "indexing a Python container with a runtime value" not in message
        assert "np.zeros((n + 1, m + 1)" in message and "dp[i, j]" in message
    # (the inner loop, tried with the table held as an array, may say why that failed)
    assert any("indexing a list of lists at a runtime position" in message
               and "counter `i`" in message and "tried as one runtime `while`" in message
               for message in said)
    assert all("indexing a list of lists at a runtime position" in message
               or "storing a Python float as an item of a list of lists of Python ints" in message
               for message in said)


def test_list_dp_write_warning_says_static_loop_tried_as_while(monkeypatch):
    said = _unroll_warnings(_segment, np.linspace(0.1, 1.0, 8), monkeypatch=monkeypatch)
    assert said
    for message in said:
        assert "known only at run time" not in message
        assert "tried as one runtime `while`" in message
        assert "np.zeros(n)" in message


def test_runtime_bounded_loop_still_says_runtime_bound():
    def f(x, n):
        out = [0.0] * 4
        for t in range(n):
            out[t] = x[t]
        return out[0]
    raises_at(f, (np.arange(4.0), np.int64(3)), tpucc.StaticValueError,
              match=r"`t` is the counter of a loop whose number of iterations is known only "
                    r"at run time", line_of="out[t] = x[t]")
