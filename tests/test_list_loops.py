"""A long loop over a list's items, when they are alike (arrays of one type,
tuples of such, numbers), is one counted While over the positions, each item
picked at run time (infer/list_loops.py); it used to be unrolled (300 hidden
states through a comprehension: 9 s of compile, 1.4 s now).  The last
iteration runs unrolled after the While, so that the loop variable is then
the list's last item itself.  Where a pick would not be exact (an item
updated in place, the list changed, the iterator advanced elsewhere) the
loop is unrolled as before."""
from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import tpucc
from conftest import check

N = 40          # more than the unroll budget (32)


def whiles(fn, *args) -> int:
    return tpucc.compile(fn).lower(*args).ir().count("= while(")


def hidden_states(xs):
    h = np.zeros(xs.shape[1])
    hs = []
    for x in xs:
        h = np.tanh(h * 0.5 + x)
        hs.append(h)
    return hs


# --- one While for the loop that builds the list, one for the loop over it -----------------

def comprehension_over_states(xs):
    hs = hidden_states(xs)
    return np.array([h @ h for h in hs]), [h.sum() for h in hs][-1]


def for_over_states(xs):
    total = np.zeros(xs.shape[1])
    for h in hidden_states(xs):
        total = total * 0.9 + h
    return total


def enumerated_states(xs):
    out = np.zeros(xs.shape[0])
    for i, h in enumerate(hidden_states(xs)):
        out[i] = h.max() - i
    return out


def reversed_states(xs):
    acc = np.zeros(xs.shape[1])
    for h in reversed(hidden_states(xs)):
        acc = np.tanh(acc + h)
    return acc


def rows_then_pairs(xs):
    rows = [(x.sum(), x * 2) for x in xs]
    total, biggest = 0.0, np.zeros(xs.shape[1])
    for s, doubled in rows:
        total += s
        biggest = np.maximum(biggest, doubled)
    return total, biggest


Step = namedtuple("Step", "loss w")


def named_history(xs):
    history = [Step(float(x @ x), x / 2) for x in xs]
    best = np.inf
    for step in history:
        best = min(best, step.loss)
    return best, step.w, step.loss


def floats_appended(xs):
    losses = []
    for x in xs:
        losses.append(float(x.sum()))
    smoothed = 0.0
    for loss in losses:
        smoothed = 0.9 * smoothed + 0.1 * loss
    return smoothed


@pytest.mark.parametrize("fn, loops", [(comprehension_over_states, 3), (for_over_states, 2),
                                       (enumerated_states, 2), (reversed_states, 2),
                                       (rows_then_pairs, 2), (named_history, 2),
                                       (floats_appended, 2)])
def test_a_loop_over_a_long_list_is_one_while(fn, loops):
    xs = np.random.default_rng(0).normal(size=(N, 3))
    check(fn, xs, rtol=1e-12, atol=1e-12)
    assert whiles(fn, xs) == loops


def summed_arguments(arrays, scale):
    total = np.zeros_like(arrays[0])
    for a in arrays:
        total += a * scale
    return total


def test_a_list_argument_of_arrays_is_one_while():
    arrays = [np.full(3, float(k)) for k in range(N)]
    compiled = check(summed_arguments, arrays, 0.5)
    assert compiled.lower(arrays, 0.5).ir().count("= while(") == 1


def test_three_hundred_states_compile_as_two_whiles():
    xs = np.random.default_rng(1).normal(size=(300, 4))
    check(comprehension_over_states, xs, rtol=1e-12, atol=1e-12)
    ir = tpucc.compile(comprehension_over_states).lower(xs).ir()
    assert ir.count("= while(") == 3 and ir.count("tanh(") == 1


# --- Python's semantics where a runtime pick would differ: unrolled, exact ------------------

def last_item_written_after(xs):
    hs = hidden_states(xs)
    for h in hs:
        pass
    h[0] = 7.0                      # the list's last array itself
    return np.stack(hs), h is hs[-1]


def items_updated_in_place(xs):
    hs = hidden_states(xs)
    for h in hs:
        h *= 2.0
    return np.stack(hs)


def later_item_updated_through_a_name(xs):
    hs = hidden_states(xs)
    acc = hs[N // 2]
    for h in hs:
        acc += h                    # at N // 2, h is acc itself
    return acc, np.stack(hs)


def items_rebound(xs):
    hs = hidden_states(xs)
    for k, h in enumerate(hs):
        if k + 1 < len(hs):
            hs[k + 1] = hs[k + 1] + h   # the iterator reads the new item
    return np.stack(hs)


def list_shrinks(xs):
    hs = hidden_states(xs)
    seen = 0
    for h in hs:
        seen += 1
        if len(hs) > N // 2:
            hs.pop()
    return seen, np.stack(hs)


def advanced_in_the_body(xs):
    it = iter(hidden_states(xs))
    pairs = []
    for a in it:
        b = next(it)
        pairs.append(a @ b)
    return pairs


def items_of_two_shapes(xs):
    items = [x for x in xs] + [xs[:2].ravel()]
    total = 0.0
    for v in items:
        total += v.sum()
    return total


@pytest.mark.parametrize("fn", [last_item_written_after, items_updated_in_place,
                                later_item_updated_through_a_name, items_rebound, list_shrinks,
                                advanced_in_the_body, items_of_two_shapes])
def test_where_a_pick_would_differ_the_loop_keeps_python_semantics(fn):
    xs = np.random.default_rng(2).normal(size=(N, 3))
    check(fn, xs, rtol=1e-12, atol=1e-12)


# --- a runtime `break` or `return`: the whole loop is one While -----------------------------

def first_above(xs):
    for i, h in enumerate(hidden_states(xs)):
        if h.sum() > 1.0:
            return i, h * 1.0
    return -1, np.zeros(xs.shape[1])


def break_then_read(xs):
    for h in hidden_states(xs):
        if h[0] > 0.5:
            break
    return h * 2


def index_of(arrays, target):
    for k, a in enumerate(arrays):
        if (a == target).all():
            return k
    return -1


def test_a_runtime_break_or_return_leaves_the_one_while():
    xs = np.random.default_rng(4).normal(size=(N, 3))
    for fn in (first_above, break_then_read):
        check(fn, xs, rtol=1e-12, atol=1e-12)
        assert whiles(fn, xs) == 2
    arrays = [np.full(3, float(k)) for k in range(N)]
    for target in (17.0, 99.0):
        compiled = check(index_of, arrays, np.full(3, target))
    assert compiled.lower(arrays, np.full(3, 1.0)).ir().count("= while(") == 1


def break_then_write(xs):
    hs = hidden_states(xs)
    for h in hs:
        if h[0] > 0.5:
            break
    h[1] = 100.0                    # NumPy: into the list's item
    return np.stack(hs)


def test_updating_the_item_a_runtime_break_left_at_is_refused():
    xs = np.random.default_rng(4).normal(size=(N, 3))
    with pytest.raises(tpucc.errors.SideEffectError, match="the item a loop over a "
                       "long list left at") as info:
        tpucc.compile(break_then_write)(xs)
    assert info.value.loc.line == break_then_write.__code__.co_firstlineno + 5


def static_sizes(x):
    total = 0
    for n in [1, 2, 3] * 20:
        total += n
    return np.zeros(total) + x      # a sum of static numbers stays static: a shape


def test_static_numbers_stay_static():
    check(static_sizes, 1.0)


def grad_through_weights(x, ws):
    for w in ws:
        x = np.tanh(x * w)
    return x.sum()


def test_gradient_through_a_loop_over_a_list():
    ws = [np.full(2, 0.9 + 0.001 * k) for k in range(N)]
    x = np.array([0.3, -0.2])
    g = tpucc.compile(tpucc.grad(grad_through_weights))(x, ws)
    eps = 1e-6
    num = [(grad_through_weights(x + eps * e, ws) - grad_through_weights(x - eps * e, ws))
           / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-9)


# --- max() and min() with runtime keys pick with the same machinery ---------------------------

def best_result(xs):
    results = [(i, float(x.sum()), x * 2) for i, x in enumerate(xs)]
    best = max(results, key=lambda r: r[1])
    worst = min(results, key=lambda r: r[1])
    return best[0], best[1], best[2], worst


def test_max_and_min_of_tuples_by_a_runtime_key():
    xs = np.random.default_rng(5).normal(size=(6, 3))
    xs[4] = xs[1]                   # a tie: the first of equal keys wins, as Python's
    check(best_result, xs, rtol=1e-12, atol=1e-12)


def max_then_write(arrays):
    best = max(arrays, key=lambda a: a.sum())
    best[0] = 99.0                  # NumPy: into the list's array
    return np.stack(arrays)


def test_updating_what_max_chose_at_run_time_is_refused():
    arrays = [np.random.default_rng(k).normal(size=3) for k in range(4)]
    with pytest.raises(tpucc.errors.SideEffectError, match="max\\(\\) or min\\(\\) with "
                       "runtime keys") as info:
        tpucc.compile(max_then_write)(arrays)
    assert info.value.loc.line == max_then_write.__code__.co_firstlineno + 2


# --- zip() and enumerate(reversed()) read their lists live, as Python's iterators ---------------

def zipped_with_a_rebound_item(hs, gs):
    out = []
    for a, b in zip(hs, gs):
        hs[-1] = hs[-1] + a         # the last pair sees the new item
        out.append(a + b)
    return np.stack(out)


def zipped_list_grows(xs, gs):
    hs = list(xs)
    out = []
    for i, (a, b) in enumerate(zip(hs, gs)):
        if len(hs) < 6:
            hs.append(a * 2)        # reached: zip goes on to the shortest list's end
        out.append(a + b + i)
    return np.stack(out)


def reversed_enumerated(hs):
    out = []
    for i, h in enumerate(reversed(hs)):
        hs[0] = hs[0] + h
        out.append(h * i)
    return np.stack(out)


def identity_in_a_long_loop(hs):
    count = 0
    for h in hs:
        if h is hs[7]:
            count += 1
    return count


@pytest.mark.parametrize("n", [3, N])
@pytest.mark.parametrize("fn", [zipped_with_a_rebound_item, zipped_list_grows,
                                reversed_enumerated, identity_in_a_long_loop])
def test_iterators_read_lists_when_they_get_there(fn, n):
    hs = [np.full(2, float(k), np.float32) for k in range(max(n, 8))]
    args = (hs,) if fn in (reversed_enumerated, identity_in_a_long_loop) else \
        (hs[:n], [np.ones(2, np.float32) for _ in range(n + 3)])
    check(fn, *args)


def copied_list(hs):
    keep = [h for h in hs]          # NumPy: the same arrays
    keep[3] += 1.0
    return hs[3], keep[3] is hs[3], [(i, h) for i, h in enumerate(hs)][5][1] is hs[5]


def test_a_list_of_the_items_themselves_keeps_them():
    check(copied_list, [np.zeros(2) for _ in range(N)])


def rotated_while_iterating(x):
    hs = [x * k for k in range(5)]
    out = []
    for h in hs:
        hs[:] = hs[1:] + hs[:1]     # the same length: item by item
        out.append(h.sum())
    return out, hs


def test_a_slice_assignment_to_the_list_a_loop_goes_over():
    check(rotated_while_iterating, np.ones(2, np.float32))
