"""A comprehension over a long static range or an array's rows: one counted
While whose appended values go into buffers it carries (infer/stacking.py),
not 300 unrolled copies of its body; results equal eager NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at

N = 40          # more than the unroll budget (32): a counted While


def ir_of(fn, *args) -> str:
    return tpucc.compile(fn).lower(*args).ir()


def whiles(fn, *args) -> int:
    return ir_of(fn, *args).count("= while(")


def rows_doubled(x):
    return np.stack([r * 2.0 + 1.0 for r in x])


def row_sums_as_floats(x):
    return [float(np.sum(r)) for r in x]


def row_sums_as_numpy_scalars(x):
    ys = [np.sum(r) for r in x]
    return ys, np.array(ys)


def int_items(x):
    return np.array([int(np.argmax(r)) * 2 for r in x])


def over_range(x):
    return np.stack([x[i] * i for i in range(N)]), [x[i, 0] + i for i in range(1, N, 2)]


def static_items(x):
    return [0 for _ in x], [None for _ in x]


def two_per_iteration(x):
    return [v for r in x for v in (r.sum(), r.max())]


def updated_after(x):
    ys = [r * 2 for r in x]
    ys[3][0] = -1.0
    return np.stack(ys), ys[3]


def inside_a_loop(x):
    total = np.zeros(x.shape[1])
    for k in range(3):
        total = total + np.stack([r * k for r in x]).sum(axis=0)
    return total


def column_items(x):
    return np.stack([np.maximum(c, 0.5) for c in np.tile(x.T, (14, 1))], axis=1)


@pytest.mark.parametrize("fn", [rows_doubled, row_sums_as_floats, row_sums_as_numpy_scalars,
                                int_items, over_range, static_items, two_per_iteration,
                                updated_after, inside_a_loop, column_items])
def test_long_comprehensions_match_numpy(fn):
    x = np.random.default_rng(0).normal(size=(N, 3))
    check(fn, x)


@pytest.mark.parametrize("fn", [rows_doubled, row_sums_as_floats, int_items, over_range,
                                two_per_iteration, column_items])
def test_long_comprehensions_are_one_while(fn):
    x = np.random.default_rng(0).normal(size=(N, 3))
    assert whiles(fn, x) >= 1
    assert "while" in tpucc.compile(fn).lower(x).as_text()


def test_a_long_comprehension_is_not_unrolled():
    x = np.ones((300, 4))
    ir = ir_of(rows_doubled, x)
    assert ir.count("= while(") == 1 and "trip_count=300" in ir
    assert ir.count("multiply(") == 1           # the body once, not 300 times
    check(rows_doubled, x)


def views_of_rows(x):
    ys = [r for r in x]         # NumPy's list holds views of x's rows
    x[0, 0] = 5.0
    return ys[0], np.stack(ys)


def same_array_each_time(x, a):
    ys = [a for _ in x]         # ... or the very same array, N times
    a[0] = 9.0
    return ys[0], ys[-1]


def walrus_items(x):
    acc = np.zeros(3)
    ys = [(acc := acc + r) for r in x]
    return ys[-1], acc


@pytest.mark.parametrize("fn,args", [(views_of_rows, 1), (same_array_each_time, 2),
                                     (walrus_items, 1)])
def test_items_that_alias_other_arrays_keep_numpy_semantics(fn, args):
    x = np.random.default_rng(1).normal(size=(N, 3))
    check(fn, *([x, np.zeros(3)][:args]))


def runtime_filter(x):
    return [r for r in x if r.sum() > 0]


def test_a_runtime_filter_is_still_refused():
    raises_at(runtime_filter, (np.ones((N, 3)),), tpucc.SideEffectError,
              "comprehension's `if` tests a runtime value")


def loss(w, x):
    return np.sum(np.stack([np.tanh(r @ w) for r in x]) ** 2)


def test_gradient_through_a_stacked_comprehension():
    rng = np.random.default_rng(2)
    w, x = rng.normal(size=(3, 2)), rng.normal(size=(N, 3))
    g = tpucc.compile(tpucc.grad(loss))(w, x)
    eps, num = 1e-6, np.zeros_like(w)
    for idx in np.ndindex(*w.shape):
        d = np.zeros_like(w)
        d[idx] = eps
        num[idx] = (loss(w + d, x) - loss(w - d, x)) / (2 * eps)
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-7)


# --- `out = []` and `out.append(v)` in a loop ---------------------------------------------------

def appended_rows(x):
    out = []
    for r in x:
        y = np.tanh(r) * 2.0
        out.append(y)
        out.append(float(y.sum()))
    return np.stack(out[::2]), out[1::2]


def appended_over_range(x):
    out = [0.0]                     # static items before the loop are fine
    for i in range(1, N):
        out.append(x[i, 0] - x[i - 1, 0])
    return out


def appended_in_nested_loops(x):
    out = []
    for r in x:
        for v in r:                 # (3 items: unrolled in each iteration)
            out.append(v * 2)
    return np.array(out)


def per_epoch(x):
    history = []
    for epoch in range(2):
        losses = []
        for r in x:
            losses.append(np.sum(r * epoch))
        history.append(np.mean(np.array(losses)))
    return history


def rebound_under_a_runtime_if(x):
    out = []
    for r in x:
        y = r * 2
        if r.sum() > 0:             # y is the first y on the other path, which nothing else holds
            y = -y
        out.append(y)
    return np.stack(out)


def numbers_a_variable_holds(x):
    out, totals, states = [], [], []
    tot, s = 0.0, np.float64(0)
    for i, r in enumerate(x):
        tot += float(r[0])
        s = s * 0.5 + r.sum()
        out.append(i)               # the counter, a Python int
        totals.append(tot)          # numbers the loop carries on: no identity to keep
        states.append(s)
    return out, totals, states, tot, s


def an_array_a_variable_holds(x):
    out = []
    s = np.zeros(3)
    for r in x:
        s = s * 0.5 + r
        out.append(s)               # out[-1] is s: the update below shows in it
    s += 1
    return out[-1], s


def tuples_of_items(x):
    pairs = [(r.sum(), float(r.max())) for r in x]
    history = []
    for i, r in enumerate(x):
        history.append((i, "step", r * 2, np.float32(r[0])))
    return pairs, history, np.array([p[1] for p in pairs])


def lists_made_together(x):
    sums, rows = [], []
    a, b, c = [], [], []
    made = list()
    e, f, g, h = [], [], [], []
    for r in x:
        sums.append(r.sum())
        rows.append(r * 2)
        a.append(r[0])
        b.append(r + 1)
        c.append(-r)
        made.append(r * r)
        e.append(r[1])
        f.append(r[2])
        g.append(r[0] * r[1])
        h.append(r[2] - 1)
    return (np.array(sums), np.stack(rows), np.array(a), np.stack(b), np.stack(c),
            np.stack(made), e, f, g, h)


@pytest.mark.parametrize("fn", [appended_rows, appended_over_range, appended_in_nested_loops,
                                per_epoch, lists_made_together, rebound_under_a_runtime_if,
                                numbers_a_variable_holds, tuples_of_items,
                                an_array_a_variable_holds])
def test_appends_in_counted_loops_are_one_while(fn):
    x = np.random.default_rng(3).normal(size=(N, 3))
    check(fn, x)
    assert whiles(fn, x) >= 1


def read_in_the_loop(x):
    out = []
    for r in x:
        out.append(r * 2)
        if len(out) > 3:            # the list's length: the loop is unrolled
            out[-1] = out[-1] + 1
    return np.stack(out)


def aliased_before(x):
    out = []
    alias = out
    for r in x:
        out.append(r.sum())
        alias[-1] = alias[-1] * 2
    return out


def list_argument(x, out):
    for r in x:
        out.append(r.sum())
    return out


def appended_and_kept(x):
    out = []
    for r in x:
        y = r * 2
        out.append(y)
    y += 1                          # y is out[-1] in NumPy
    return out[-1], y


def early_exit(x):
    out = []
    for r in x:
        if r[0] > 5.0:
            break
        out.append(r * 2)
    return out


def appended_view_of_a_kept_array(x):
    out = []
    for r in x:
        y = r * 2
        out.append(y[1:])       # a view of y, which the loop keeps
        y[1] = 0.0
    return out[-1], y


def both_sides_of_a_runtime_if_appended(x):
    out = []
    for r in x:
        y = r * 2
        z = y
        if r.sum() > 0:
            y = -y
        out.append(y)               # on one path the very array appended next
        out.append(z)
    return out[1], len(out)


def rebound_under_a_runtime_if_and_kept(x):
    out = []
    keep = x[0]
    for r in x:
        y = r * 2
        keep = y                    # the loop carries the first y
        if r.sum() > 0:
            y = -y
        out.append(y)
    return np.stack(out), keep


def one_array_twice_in_a_tuple(x):
    out = []
    for r in x:
        y = r * 2
        out.append((y, y))          # one object twice, as in NumPy
    out[0][0][0] = 50.0
    return out[0][1], out[1]


def list_of_a_local_factory(x):
    shared = []
    list = lambda: shared              # noqa: E731 - `list()` here is not a new list
    out = list()
    for r in x:
        out.append(r.sum())
        shared[-1] = shared[-1] * 2
    return out


@pytest.mark.parametrize("fn", [read_in_the_loop, aliased_before,
                                appended_view_of_a_kept_array, list_of_a_local_factory,
                                both_sides_of_a_runtime_if_appended,
                                one_array_twice_in_a_tuple,
                                rebound_under_a_runtime_if_and_kept])
def test_lists_a_loop_reads_or_shares_are_unrolled_exactly(fn):
    x = np.random.default_rng(4).normal(size=(N, 3))
    check(fn, x)
    assert whiles(fn, x) == 0


def appended_list_and_kept(x):
    out = []
    for r in x:
        y = r * 2
        out.append(y)
    y += 1
    return out, y


def test_an_appended_item_kept_in_a_variable_stays_the_lists_item():
    # Unrolled exactly until session 45; since then (45C1) the rest of a loop
    # unrolled for its structure is retried as one While, which keeps y the
    # list's last item: the write after the loop reaches both.
    x = np.random.default_rng(4).normal(size=(N, 3))
    check(appended_and_kept, x)
    out, y = tpucc.compile(appended_list_and_kept, cache=False)(x.copy())
    assert out[-1] is y
    want_out, want_y = appended_list_and_kept(x.copy())
    np.testing.assert_array_equal(np.array(out), np.array(want_out))
    np.testing.assert_array_equal(y, want_y)


def test_a_list_argument_is_appended_to_as_before():
    raises_at(list_argument, (np.ones((N, 3)), []), tpucc.SideEffectError,
              "passed as an argument")


def test_a_runtime_break_still_refuses_the_append():
    # how many items the list gets depends on the data
    raises_at(early_exit, (np.ones((N, 3)),), tpucc.SideEffectError,
              "appending to `out` on some runtime paths only", line_of="out.append")


def counter_only(x):
    return x + sum([i * i for i in range(N)]), [float(i) / 2 for i in range(N)]


def test_items_computed_from_the_counter_alone_stay_compile_time_numbers():
    check(counter_only, np.ones(2))
    assert whiles(counter_only, np.ones(2)) == 0


def same_array_twice(x):
    out, other = [], []
    for r in x:
        y = r * 2
        out.append(y)
        out.append(y)
        other.append(y[1:])         # a view of the same array
    out[0] += 100.0
    return out[1], other[0], out[0] is out[1]


def test_an_array_appended_twice_keeps_one_object():
    check(same_array_twice, np.random.default_rng(5).normal(size=(N, 3)))


SHARED_HISTORY: list = []


def stacks_an_outside_list(x):
    history = SHARED_HISTORY
    for r in x:
        history.append(r * 2)
    return np.stack(history)


def test_stacking_a_list_from_outside_that_the_call_appends_to_is_refused():
    """The appends to an outside list happen after the call: np.stack of it
    in the call saw it empty (E700 'need at least one array')."""
    raises_at(stacks_an_outside_list, (np.ones((5, 3)),), tpucc.SideEffectError,
              "appends to a list from outside it and also reads", line_of="history.append")
    assert SHARED_HISTORY == []
