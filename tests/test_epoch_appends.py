"""A list that already holds arrays when a long counted loop appends to it
(`losses` in the second epoch of `for ep in range(3): for b in batches:
losses.append(...)`) is grown by the loop's While as an empty list is: its
items are set aside while the While is built and put back in front
(infer/stacking.items_set_aside).  In a While over the epochs, each inner
loop's buffer goes to the outer loop's list as one block (stacking.Block).
Before, every epoch after the first was unrolled: 3 epochs of 200 batches
took 80 s to compile here, 1.5 s now."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check

N = 40          # more than the unroll budget (32)


def whiles(fn, *args) -> int:
    return tpucc.compile(fn).lower(*args).ir().count("= while(")


def epochs_over_batches(batches, w):
    losses = []
    for _ in range(3):
        for b in batches:
            w = w - 0.01 * b
            losses.append(np.sum(w * w))
    return losses, w


def batches(n=N, width=4, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(width) for _ in range(n)]


def test_every_epoch_is_a_while():
    bs, w = batches(), np.ones(4)
    check(epochs_over_batches, bs, w, rtol=1e-12)
    # the first epoch's loop, then one While for the other epochs holding one
    assert whiles(epochs_over_batches, bs, w) == 3


def range_epochs(x):
    history = []
    for ep in range(4):
        for i in range(N):
            history.append(float(np.tanh(x[i] * (ep + 1)).sum()))
    return history


def test_range_loops_over_epochs_append_python_floats():
    x = np.linspace(-1, 1, N * 3).reshape(N, 3)
    compiled = check(range_epochs, x, rtol=1e-12)
    out = compiled(x)
    assert len(out) == 4 * N and all(type(v) is float for v in out)
    assert whiles(range_epochs, x) <= 3


def nested_ranges(x):
    out = []
    for i in range(N):
        for j in range(N):
            out.append(x[i] * j)
    return np.stack(out)


def test_nested_counted_loops_keep_the_order_of_appends():
    x = np.arange(N * 2.0).reshape(N, 2)
    check(nested_ranges, x)
    assert whiles(nested_ranges, x) == 2


def two_lists_nested(x):
    evens, odds = [], []
    for i in range(N):
        for j in range(N):
            evens.append(x[i] + 2 * j)
            odds.append((x[i] - j, j))
    return evens, odds


def test_two_values_and_tuples_from_inner_loops():
    check(two_lists_nested, np.arange(float(N)))


def interleaved_nested(x):
    out = []
    for i in range(N):
        for j in range(N):
            out.append(x[i] + j)
            out.append(x[i] * j)
    return out


def test_interleaved_appends_from_inner_loops():
    check(interleaved_nested, np.arange(float(N)))


def started_with_arrays(x):
    first = x * 2
    out = [first, 1.5]
    for i in range(N):
        out.append(x[i] + 1)
    first[0] = -7.0           # out[0] is `first` itself: NumPy's list sees the write
    return out, out[0] is first


def test_items_from_before_the_loop_stay_the_same_objects():
    x = np.arange(float(N))
    compiled = check(started_with_arrays, x)
    assert whiles(started_with_arrays, x) == 1
    out, same = compiled(x)
    assert same is True and out[0][0] == -7.0 and out[1] == 1.5


def read_in_the_loop(x):
    out = [x * 0]
    total = 0.0
    for i in range(N):
        out.append(x[i] + len(out))
        total += float(out[-1][0])
    return out, total


def test_a_list_the_loop_reads_is_not_set_aside():
    # len(out) and out[-1] see the items: the loop is unrolled, exact
    check(read_in_the_loop, np.arange(float(N * 2)).reshape(N, 2))


def epochs_then_stacked(batches, w):
    preds = []
    for ep in range(3):
        preds += [np.tanh(w * b + ep) for b in batches]
    return np.stack(preds), len(preds)


def test_comprehension_results_added_over_epochs():
    check(epochs_then_stacked, batches(), np.full(4, 0.5), rtol=1e-12)


def with_a_break(batches, w, limit):
    losses = []
    for ep in range(3):
        for b in batches:
            losses.append(np.sum(w * b) + ep)
        if losses[-1] > limit:
            break
    return losses


def test_epochs_left_on_a_runtime_condition_are_refused_naming_the_append():
    # how many items the list gets is known only at run time
    with pytest.raises(tpucc.SideEffectError, match="on some runtime paths only") as e:
        tpucc.compile(with_a_break)(batches(), np.ones(4), 100.0)
    assert "losses.append(np.sum(w * b) + ep)" in str(e.value)


def trajectory_from_the_start(x):
    traj = [x]
    for _ in range(N):
        x = 0.5 * x + 1
        traj.append(x)
    return np.stack(traj), traj[0] is traj[0]


def test_a_trajectory_that_starts_with_the_state_from_before():
    # was unrolled (the list held x): 22 s of XLA for 256 steps
    x = np.arange(3.0)
    check(trajectory_from_the_start, x)
    assert whiles(trajectory_from_the_start, x) == 1


def stacked_over_epochs(batches, w):
    losses = []
    for _ in range(3):
        for b in batches:
            w = w * 0.99 + b
            losses.append(w.sum())
    return np.stack(losses)


def test_stacking_items_of_several_buffers_and_items_between():
    bs = batches()
    check(stacked_over_epochs, bs, np.ones(4), rtol=1e-12)
    ir = tpucc.compile(stacked_over_epochs).lower(bs, np.ones(4)).ir()
    # the result: a few slices of buffers, not one piece per item
    (result,) = [line for line in ir.splitlines() if "[120] = concatenate(" in line]
    assert result.count("%") <= 8


def keras_history(w, epochs):
    hist = {"loss": [], "gnorm": []}
    log = ([], [])
    for ep in range(epochs):
        r = X @ w - Y
        g = X.T @ r
        w = w - 0.01 * g
        hist["loss"].append(float((r ** 2).mean()))
        hist["gnorm"].append(np.linalg.norm(g))
        log[0].append(ep)
        log[1].append(r[0])
    return w, hist, log


rng = np.random.default_rng(1)
X = rng.standard_normal((16, 4))
Y = X @ rng.standard_normal(4)


def test_lists_of_a_history_dict_or_tuple():
    # a dict or tuple of new lists used only as hist[k].append(v): one While
    check(keras_history, np.zeros(4), 100, rtol=1e-9)
    assert whiles(keras_history, np.zeros(4), 100) == 1


def history_over_epochs(batches, w):
    hist = {"loss": [], "first": []}
    for ep in range(3):
        for b in batches:
            w = w * 0.9 + b
            hist["loss"].append(float(w.sum()))
        hist["first"].append(ep)
    return hist


def test_a_history_dict_over_epochs():
    check(history_over_epochs, batches(), np.ones(4), rtol=1e-12)
    assert whiles(history_over_epochs, batches(), np.ones(4)) == 3


def history_read_in_the_loop(w):
    hist = {"loss": []}
    for ep in range(40):
        w = w * 0.9 + 1
        hist["loss"].append(float(w.sum()))
        w = w + len(hist["loss"])
    return hist, w


def test_a_history_the_loop_reads_is_exact():
    check(history_read_in_the_loop, np.ones(2))
