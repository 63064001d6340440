"""An array a loop variable carries into the next iteration, appended to a
list (`s = s * 0.9 + r; states.append(s)`, an RNN's hidden states): one
counted While filling a buffer (infer/stacking.py), where it used to be
unrolled (300 steps: 27 s of XLA).  Exact only while the next iteration
writes nothing into the appended array; the list's last item is the
variable's final array itself, so writes after the loop show through it."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check

N = 40          # more than the unroll budget (32)
# The programs a write makes unrolled: past a smaller budget (unroll=4) at a
# shorter length, the same path (stacking refused, then unrolled) and
# values, for a sixth of the XLA work of 40 unrolled steps.
N_UNROLLED, UNROLL = 6, 4


def whiles(fn, *args) -> int:
    return tpucc.compile(fn).lower(*args).ir().count("= while(")


def decayed(xs):
    s = np.zeros(xs.shape[1])
    states = []
    for r in xs:
        s = s * 0.9 + r
        states.append(s)
    return np.stack(states), s


def rnn(xs, w):
    h = np.zeros(w.shape[0])
    hiddens, outputs = [], []
    for x in xs:
        h = np.tanh(w @ h + x)
        hiddens.append(h)
        outputs.append(h.sum() * 2.0)
    return np.stack(hiddens), np.array(outputs), h


def over_range(xs):
    s = xs[0].copy()
    out = []
    for i in range(1, xs.shape[0]):
        s = np.maximum(s, xs[i]) - 0.1
        out.append(s)
    return out


def written_after_the_loop(xs):
    s = np.zeros(xs.shape[1])
    states = []
    for r in xs:
        s = s + r
        states.append(s)
    s[0] = 99.0                     # NumPy: the list's last item is s itself
    return np.stack(states), states[-1], states[-2]


def the_same_object(xs):
    s = np.zeros(xs.shape[1])
    states = []
    for r in xs:
        s = s + r
        states.append(s)
    return states[-1] is s, states[-2] is s


def in_a_tuple(xs):
    s = np.zeros(xs.shape[1])
    pairs = []
    for r in xs:
        s = s * 0.5 + r
        pairs.append((s, r.sum()))
    return np.stack([p[0] for p in pairs]), [p[1] for p in pairs]


@pytest.mark.parametrize("fn", [decayed, over_range, written_after_the_loop, the_same_object,
                                in_a_tuple])
def test_carried_appends_are_one_while_and_match_numpy(fn):
    xs = np.random.default_rng(0).normal(size=(N, 3))
    check(fn, xs)
    # (and one more for the loop over the list making new values,
    # tests/test_list_loops.py; `[p[0] for p in pairs]` holds the very arrays
    # of the pairs, so that loop is unrolled)
    assert whiles(fn, xs) == (2 if fn is in_a_tuple else 1)


def test_an_rnn_collecting_its_hidden_states_is_one_while():
    rng = np.random.default_rng(1)
    xs, w = rng.normal(size=(300, 4)), rng.normal(size=(4, 4)) * 0.3
    check(rnn, xs, w, rtol=1e-12, atol=1e-12)
    ir = tpucc.compile(rnn).lower(xs, w).ir()
    assert ir.count("= while(") == 1 and "trip_count=300" in ir
    assert ir.count("tanh(") == 1


# --- writes into an appended array: NumPy's list sees them; unrolled, exact --------------------

def written_next_iteration(xs):
    s = np.zeros(xs.shape[1])
    states = []
    for r in xs:
        s[0] += 1.0                 # into the array the last iteration appended
        s = s * 0.5 + r
        states.append(s)
    return np.stack(states)


def written_through_a_view(xs):
    s = np.zeros(xs.shape[1])
    states = []
    for r in xs:
        head = s[:2]
        head += 1.0
        s = s * 0.5 + r
        states.append(s)
    return np.stack(states)


def written_through_another_name(xs):
    s = np.zeros(xs.shape[1])
    t = s
    states = []
    for r in xs:
        t[1] = -1.0
        s = s * 0.5 + r
        t = s
        states.append(s)
    return np.stack(states)


def carried_in_place(xs):
    s = np.zeros(xs.shape[1])
    states = []
    for r in xs:
        s += r                      # one array, appended N times
        states.append(s)
    return np.stack(states)


@pytest.mark.parametrize("fn", [written_next_iteration, written_through_a_view,
                                written_through_another_name, carried_in_place])
def test_writes_into_appended_arrays_keep_numpy_semantics(fn):
    xs = np.random.default_rng(2).normal(size=(N_UNROLLED, 3))
    check(fn, xs, compile_kwargs={"unroll": UNROLL})


# --- recorded before the step: `hs.append(h); h = step(h)` ---------------------------------------

def record_then_step(xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for r in xs:
        hs.append(h)                # the array h holds as the iteration starts
        h = np.tanh(h * 0.5 + r)
    hs[0][1] = 7.0                  # (the array from before the loop)
    return np.stack(hs), hs[1] is hs[2], h


def record_then_step_over_range(xs):
    p, v = np.zeros(2), np.ones(2)
    trajectory = []
    for i in range(xs.shape[0]):
        trajectory.append((p, float(v.sum())))
        v = v - 0.1 * p + xs[i, :2]
        p = p + 0.1 * v
    return trajectory


@pytest.mark.parametrize("fn", [record_then_step, record_then_step_over_range])
def test_recording_before_the_step_is_one_while(fn):
    xs = np.random.default_rng(3).normal(size=(N, 3))
    check(fn, xs)
    assert whiles(fn, xs) == 1


def record_then_update_in_place(xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for r in xs:
        hs.append(h)
        h += r                      # every item is the one array h
    return np.stack(hs)


def record_then_write_then_step(xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for r in xs:
        hs.append(h)
        h[0] = r[0]                 # into the array just appended
        h = h * 0.5 + r
    return np.stack(hs)


def recorded_twice(xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for r in xs:
        hs.append(h)
        h = h * 0.5 + r
        hs.append(h)                # the next iteration appends it again
    hs[1][0] = 99.0                 # NumPy: hs[2] is the same array
    return np.stack(hs)


@pytest.mark.parametrize("fn", [record_then_update_in_place, record_then_write_then_step,
                                recorded_twice])
def test_writes_into_recorded_arrays_keep_numpy_semantics(fn):
    check(fn, np.random.default_rng(4).normal(size=(N_UNROLLED, 3)),
          compile_kwargs={"unroll": UNROLL})
