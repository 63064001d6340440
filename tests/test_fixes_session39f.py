"""Session 39f's fixes, each checked against eager NumPy or for its message."""
import warnings

import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo, raises_at


# --- np.delete / np.insert at ONE runtime position: a static shape -----------------------------

def _jackknife(x):
    n = len(x)
    est = np.empty(n)
    for i in range(n):
        est[i] = np.delete(x, i).mean()
    return est


def _insert_everywhere(x):
    out = np.zeros((len(x) + 1, len(x) + 1))
    for i in range(len(x) + 1):
        out[i] = np.insert(x, i, -1.0)
    return out


@pytest.mark.parametrize("fn", [_jackknife, _insert_everywhere])
def test_a_leave_one_out_loop_over_the_counter_is_one_while(fn):
    """The counter as np.delete's position was refused as a runtime index,
    so the loop was unrolled (n=1000: 82 s to compile)."""
    x = np.random.default_rng(0).normal(size=60)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)
        compiled = check(fn, x)
    assert count_hlo(hlo(compiled, x), "while") == 1


def _drop_max(x):
    return np.delete(x, np.argmax(x)).mean()


def _insert_at_min(x):
    return np.insert(x, np.argmin(x), 99.0, axis=None)


@pytest.mark.parametrize("fn", [_drop_max, _insert_at_min])
def test_a_position_computed_at_run_time(fn):
    check(fn, np.random.default_rng(1).normal(size=(3, 4)))


@pytest.mark.parametrize("i", [0, 2, -1, -4, 3])
def test_one_runtime_position_along_an_axis_as_numpy(i):
    x = np.arange(12.0).reshape(3, 4)
    check(lambda x, i: np.delete(x, i, axis=1), x, np.int64(i))
    check(lambda x, i: np.delete(x, [i], axis=1), x, i)          # a list of one
    check(lambda x, i: np.insert(x, i, 7.5), x.ravel(), np.int64(i))
    # a block of values, moved to the axis (0-d position) or not (a list of one)
    check(lambda x, i: np.insert(x, i, np.arange(8.0).reshape(2, 4), axis=1), x.T.copy(),
          np.int64(i % 4))
    check(lambda x, i: np.insert(x, [i], [[70, 80]], axis=1), x.T.copy(), i % 4)
    check(lambda x, i: np.insert(x, i, 7, axis=0), x, np.int64(i % 4))


def test_np_insert_may_append_at_a_runtime_position():
    check(lambda x, i: np.insert(x, i, 7.5), np.arange(4.0), np.int64(4))


def _delete_at(x, i):
    return np.delete(x, i)


def _insert_at(x, i):
    return np.insert(x, i, 1.0)


@pytest.mark.parametrize("fn, i", [(_delete_at, 4), (_delete_at, -5), (_insert_at, 5),
                                   (_insert_at, -5)])
def test_a_runtime_position_out_of_bounds_raises_numpys_index_error(fn, i):
    with pytest.raises(IndexError, match=f"index {i} is out of bounds for axis 0 with size 4"):
        tpucc.compile(fn)(np.arange(4.0), np.int64(i))


def _delete_two(x, i):
    return np.delete(x, [i, i + 1])


def _delete_at_float(x, i):
    return np.delete(x, i * 1.0)


def test_several_runtime_positions_stay_refused_with_a_hint_that_works():
    err = raises_at(_delete_two, (np.arange(5.0), np.int64(1)), tpucc.UnsupportedError,
                    match="several runtime indices", line_of="np.delete")
    assert "x.mean(where=keep)" in err.hint

    def masked(x, i):           # the hint, followed
        keep = (np.arange(len(x)) != i) & (np.arange(len(x)) != i + 1)
        return x.mean(where=keep), np.where(keep, x, 0)
    check(masked, np.arange(5.0), 1)


def test_a_runtime_float_position_raises_numpys_index_error():
    raises_at(_delete_at_float, (np.arange(5.0), np.int64(1)), IndexError,
              match="arrays used as indices must be of integer", line_of="np.delete")


# --- the UnrollWarning's advice fits the reason the loop is unrolled --------------------------

def _unroll_warnings(fn, *args) -> list:
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        tpucc.compile(fn).lower(*args)
    return [str(w.message) for w in found if w.category is tpucc.UnrollWarning]


def _deciles(x):
    out = np.zeros(99)
    for p in range(1, 100):
        out[p - 1] = np.percentile(x, p)            # (q must be known at compile time)
    return out


def _deciles_hoisted(x):                            # the advice, followed
    q = np.percentile(x, list(range(1, 100)))
    out = np.zeros(99)
    for p in range(1, 100):
        out[p - 1] = q[p - 1]
    return out


def _ones_counted(x):
    out = np.zeros(300)
    for k in range(300):
        out[k] = np.ones(k % 7 + 1).sum() * x[k]      # (a shape made of the counter)
    return out


def _ones_masked(x):                                # the advice, followed
    out = np.zeros(300)
    for k in range(300):
        out[k] = np.where(np.arange(7) < k % 7 + 1, 1.0, 0.0).sum() * x[k]
    return out


@pytest.mark.parametrize("fn, fixed, says", [
    (_deciles, _deciles_hoisted, "`q = np.percentile(x, list(range(1, 100)))` before"),
    (_ones_counted, _ones_masked, "make each array at its largest size and mask")])
def test_the_unroll_advice_fits_its_cause_and_works(fn, fixed, says):
    """Every unrolled loop was told to keep its table in np.zeros(n), not a
    list, which these already do."""
    x = np.random.default_rng(0).normal(size=300)
    said = _unroll_warnings(fn, x)
    assert len(said) == 1 and says in said[0] and "not a list" not in said[0], said
    assert not _unroll_warnings(fixed, x)
    compiled = check(fixed, x)
    assert count_hlo(hlo(compiled, x), "while") <= 1
