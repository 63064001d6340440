"""An append under a runtime `if` on the loop counter alone (`if ep % 100
== 0: log.append(float(loss))`) in a long counted loop: which iterations
append is known at compile time (infer/periodic.py), so the loop stays one
While, the values going into buffer rows inside the branch; the list gets
the rows of the iterations that took it.  Before, the loop was unrolled:
300 epochs, 57 s of XLA here; 0.5 s now."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check

rng = np.random.default_rng(0)
X = rng.standard_normal((16, 4))
Y = X @ rng.standard_normal(4)


def whiles(fn, *args) -> int:
    return tpucc.compile(fn).lower(*args).ir().count("= while(")


def fit_with_log(w, epochs):
    log = []
    for ep in range(epochs):
        r = X @ w - Y
        w = w - 0.01 * X.T @ r
        if ep % 25 == 0:
            log.append(float((r ** 2).mean()))
        if ep % 30 == 7 and ep > 9:
            log.append((ep, np.mean(r), "late"))
    return w, log


def test_logging_every_kth_epoch_is_one_while():
    w = np.zeros(4)
    compiled = check(fit_with_log, w, 120, rtol=1e-9)
    assert whiles(fit_with_log, w, 120) == 1
    _, log = compiled(w, 120)
    assert [type(v) for v in log[:3]] == [float, float, tuple] and len(log) == 8
    assert log[2][0] == 37 and type(log[2][0]) is int and isinstance(log[2][1], np.float64)


def either_arm(x):
    log = []
    for i in range(50):
        x = x * 0.9 + 1
        if i % 3 == 0 or i == 10:
            log.append(float(x.sum()))
        else:
            log.append(-i)
        log.append(i)                       # every iteration, in between
    return log


def test_appends_in_both_arms_keep_their_order():
    check(either_arm, np.ones(3))
    assert whiles(either_arm, np.ones(3)) == 1


def counter_from_a_range_with_a_step(x):
    out = []
    for k in range(3, 200, 4):
        x = np.tanh(x + k)
        if (k // 4) % 5 == 1:
            out.append(np.float32(x[0]))
    return out


def test_a_range_with_a_start_and_step():
    check(counter_from_a_range_with_a_step, np.zeros(2, np.float32))


def data_dependent(x):
    log = []
    for i in range(40):
        x = x * 0.5
        if x.sum() > 0.1:
            log.append(float(x.sum()))
    return log


def test_a_condition_on_data_is_still_refused():
    with pytest.raises(tpucc.SideEffectError, match="on some runtime paths only"):
        tpucc.compile(data_dependent)(np.ones(3))


def snapshots(x):
    snaps = []
    for i in range(40):
        x = x * 0.5 + i
        if i % 10 == 0:
            snaps.append(x.copy())
    return snaps


def snapshot_written_after(x):
    snaps = []
    for i in range(40):
        x = x * 0.5 + i
        if i % 10 == 0:
            s = x * 2
            snaps.append(s)
            s[0] = -1.0             # NumPy's item sees this write
    return snaps


def filtered_comprehension(x):
    return np.stack([np.tanh(x[i]) * i for i in range(60) if i % 4 == 1])


def test_arrays_the_branch_made_that_nothing_else_holds():
    check(snapshots, np.ones(3))
    assert whiles(snapshots, np.ones(3)) == 1
    check(filtered_comprehension, np.linspace(0, 1, 120).reshape(60, 2))
    assert whiles(filtered_comprehension, np.ones((60, 2))) == 1


def test_an_array_a_variable_holds_is_exact():
    # a name holds it: a later write must show in the list, so unrolled
    check(snapshot_written_after, np.ones(3))


class Trainer:
    def __init__(self):
        self.w = np.zeros(4)
        self.losses, self.checkpoints = [], []

    def fit(self, epochs):
        for ep in range(epochs):
            r = X @ self.w - Y
            self.w -= 0.01 * X.T @ r
            self.losses.append(float((r ** 2).mean()))
            if ep % 50 == 49:
                self.checkpoints.append((ep, np.abs(r).max()))
        return self.w


def test_an_outside_list_appended_in_a_long_loop():
    # appended when the call returns, from buffer rows: one While (was 20 s unrolled)
    eager, compiled = Trainer(), Trainer()
    fit = tpucc.compile(compiled.fit)
    np.testing.assert_allclose(fit(200), eager.fit(200), rtol=1e-9)
    np.testing.assert_allclose(compiled.losses, eager.losses, rtol=1e-9)
    assert [c[0] for c in compiled.checkpoints] == [49, 99, 149, 199]
    np.testing.assert_allclose([c[1] for c in compiled.checkpoints],
                               [c[1] for c in eager.checkpoints], rtol=1e-9)
    fit(200)                            # a second call appends again
    assert len(compiled.losses) == 400 and type(compiled.losses[-1]) is float
    assert fit.lower(200).ir().count("= while(") == 1


def even_rows(x):
    rows = [x[i] for i in range(100) if i % 2 == 0]
    return np.stack(rows), len(rows)


def rows_seen_by_a_later_write(x):
    rows = []
    for i in range(60):
        if i % 7 == 3:
            rows.append(x[i])
    x[3, 0] = 99.0              # rows[0] is a view of x[3], as NumPy's
    return rows


def rows_of_a_rebound_array(x):
    rows = []
    for i in range(60):
        if i % 7 == 3:
            rows.append(x[i])
        x = x * 1.0
    return rows


def test_rows_the_counter_picks_under_the_condition():
    x = np.arange(200.0).reshape(100, 2)
    check(even_rows, x)
    assert whiles(even_rows, x) == 1
    check(rows_seen_by_a_later_write, x[:60].copy())
    assert whiles(rows_seen_by_a_later_write, x[:60].copy()) == 1
    check(rows_of_a_rebound_array, x[:60].copy())      # (unrolled: exact)


def float_condition(x):
    log = []
    for ep in range(40):
        x = x * 0.99
        if ep * 0.1 - 0.3 == 5.551115123125783e-17:     # true at ep 3, in Python's rounding
            log.append(float(x[0]))
        if ep * 1e-310 > 0:                             # XLA:CPU flushes such floats to zero
            log.append(ep)
    return log


def test_a_condition_computed_in_floats_is_left_to_unrolling():
    # XLA may round it otherwise (a fused multiply-add, flushed denormals):
    # which iterations append must be what the run computes, so unrolled
    check(float_condition, np.ones(2))


def data_chosen_number(x):
    log = []
    v = -1.0
    for ep in range(40):
        x = x * 0.99
        if x[0] > 1.5:
            v = float(x[0])
        if ep % 10 == 0:
            log.append(v)
            log.append(float(x[0]) if x[0] > 1.9 else -2.0)
    return log


def test_a_number_a_runtime_if_chose():
    check(data_chosen_number, np.full(2, 2.0))
