"""Bug from sweep 45C, fixed in session 46 (K2): popping a static queue in a
runtime `if` or loop (`while events and events[0][0] < limit:
heapq.heappop(events)` with a runtime limit; `while q: i = q.pop(); if x[i]
> thr: return i`) was refused with E500.  The list is now its static items
and a runtime count of the pops (infer/popped_queues.py): one While, its
length, truth, items and popped values equal to eager; anything else done to
such a list stays refused, saying what."""
import collections
import heapq

import numpy as np
import pytest

import tpucc
from conftest import count_hlo, hlo, raises_at, same_each
from tpucc.errors import SideEffectError


# --- the sweep's programs -----------------------------------------------------------------------

def pop_until(limit, x):
    events = [(0.5, 0), (1.0, 1), (1.7, 2), (2.4, 3)]
    acc = 0.0
    while events and events[0][0] < limit:     # limit known only at run time
        t, i = heapq.heappop(events)
        acc += x[i] * t
    return acc, len(events), bool(events), not events


def first_over(x, thr):
    q = [0, 1, 2]
    while q:
        i = q.pop()
        if x[i] > thr:
            return i
    return -1


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_heappop_until_a_runtime_limit(dtype):
    # none popped, some, all
    x = np.arange(4).astype(dtype)
    f = same_each(pop_until, *[(np.float64(limit), x) for limit in (0.1, 0.6, 1.2, 2.0, 5.0)])
    assert count_hlo(hlo(f, np.float64(2.0), x), "while") == 1


def test_pop_until_a_runtime_test_returns_as_eager():
    x = np.array([0.1, 0.5, 0.9])
    f = same_each(first_over, *[(x, thr) for thr in (0.0, 0.4, 0.6, 0.95)])
    assert count_hlo(hlo(f, x, 0.4), "while") == 1


# --- other pops, other tests -------------------------------------------------------------------

def heap_from_heapify(limit, x):
    events = [(2.4, 3), (0.5, 0), (1.7, 2), (1.0, 1)]
    heapq.heapify(events)
    n = 0
    while events and events[0][0] < limit:
        t, i = heapq.heappop(events)
        x[i] += t
        n += 1
    return n, len(events), events[0] if events else (-1.0, -1), events[-1] if events else (0.0, 0)


def popleft_with_break(x, thr):
    q = collections.deque([3, 1, 0, 2])
    found = -1
    while q:
        i = q.popleft()
        if x[i] > thr:
            found = i
            break
    return found, len(q)


def pop_front_while(x, thr):
    q = [2, 0, 1]
    s = x[0] * 0
    while q and x[q[0]] < thr:
        s = s + x[q.pop(0)]
    return s, len(q), q[-1] if q else -7


def del_front(x, thr):
    q = [2, 0, 1]
    while q:
        i = q[0]
        del q[0]
        if x[i] > thr:
            return i, len(q)
    return -1, 0


def pop_in_runtime_if(x):
    q = [1.5, 2.5, 3.5]
    if x[0] > 0:
        v = q.pop()
    else:
        v = 0.0
    return v, len(q), q[0], q[-1]


def pop_in_runtime_range(n, x):
    q = [3, 1, 2]
    s = x[0] * 0
    for _ in range(n):
        s += x[q.pop()]
    return s, len(q)


def pop_in_conditional_expression(x):
    q = [1, 2, 3]
    return len(q) + (q.pop() if x[0] > 0 else 0), len(q)


def static_pops_first(x, thr):
    q = [5, 6, 7, 8]
    q.pop()
    while q and x[0] > thr:
        q.pop()
        thr = thr + 1.0
    return len(q), q[0] if q else -1


def pops_into_an_array(n, x):
    q = [10, 20, 30, 40]
    k = 0
    while k < n:
        x[k] = q.pop()
        k += 1
    return len(q)


def test_heap_made_by_heapify_and_its_reads_after_the_loop():
    x = np.arange(4.0)
    same_each(heap_from_heapify, *[(np.float64(limit), x.copy()) for limit in (0.1, 1.2, 5.0)])


def test_deque_popleft_with_a_runtime_break():
    same_each(popleft_with_break, *[(np.arange(4.0), t) for t in (-1.0, 1.5, 2.5, 9.0)])


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_pop_from_the_front_in_the_loop_test(dtype):
    x = np.array([1, 5, 2]).astype(dtype)
    same_each(pop_front_while, *[(x, t) for t in (0, 3, 6)])


def test_del_of_the_front_item():
    same_each(del_front, *[(np.array([0.1, 0.5, 0.9]), t) for t in (0.05, 0.4, 0.95)])


def test_pop_in_a_runtime_if():
    same_each(pop_in_runtime_if, (np.array([1.0]),), (np.array([-1.0]),))


def test_pop_in_a_loop_over_a_runtime_range():
    same_each(pop_in_runtime_range, *[(np.int64(n), np.array([0.5, 1.5, 2.5, 3.5]))
                                      for n in (0, 1, 3)])


def test_pop_in_a_conditional_expression():
    same_each(pop_in_conditional_expression, (np.array([1.0]),), (np.array([-1.0]),))


def test_static_pops_before_the_runtime_loop():
    same_each(static_pops_first, *[(np.array([0.5]), t) for t in (-2.5, 0.0, 0.9)])


def test_popped_items_written_into_an_argument():
    same_each(pops_into_an_array, *[(np.int64(n), np.zeros(4, np.int64)) for n in (0, 2, 4)])


# --- popping past the end raises as eagerly ------------------------------------------------------

def pops_past_the_end(x, thr):
    q = [0, 1, 2]
    while True:
        i = q.pop()
        if x[i] > thr:
            return i


def reads_an_empty_queue(x, thr):
    q = [0, 1, 2]
    while q and x[q[-1]] > thr:
        q.pop()
    return q[0]


def test_popping_an_empty_queue_raises_index_error():
    f = tpucc.compile(pops_past_the_end, cache=False)
    x = np.array([0.1, 0.5, 0.9])
    assert f(x, 0.4) == pops_past_the_end(x, 0.4) == 2
    with pytest.raises(IndexError, match="pop from empty list"):
        pops_past_the_end(x, 5.0)
    with pytest.raises(IndexError, match="pop from empty list"):
        f(x, 5.0)


def test_reading_an_emptied_queue_raises_index_error():
    f = tpucc.compile(reads_an_empty_queue, cache=False)
    x = np.array([0.1, 0.5, 0.9])
    assert f(x, 0.4) == reads_an_empty_queue(x, 0.4) == 0
    with pytest.raises(IndexError, match="list index out of range"):
        f(x, 0.0)


# --- anything else done to such a list is refused, at its line ----------------------------------

def appends_in_the_loop(x, thr):
    q = [0, 1, 2]
    while q:
        i = q.pop()
        if x[i] > thr:
            q.append(i + 10)
            return i
    return -1


def pushes_in_the_loop(x, thr):
    h = [(1.0, 0), (2.0, 1)]
    while h and h[0][0] < thr * 5:
        t, i = heapq.heappop(h)
        heapq.heappush(h, (t + x[i], i))
    return len(h)


def returns_the_list(x, thr):
    q = [0, 1, 2]
    while q and x[q[-1]] > thr:
        q.pop()
    return q, 1


def iterates_it_after(x, thr):
    q = [0, 1, 2]
    while q and x[q[-1]] > thr:
        q.pop()
    s = 0
    for v in q:
        s += v
    return s


def pops_two_ways(x, thr):
    q = [0, 1, 2, 1]
    while q:
        i = q.pop()
        if x[i] > thr:
            return i
        q.pop(0)
    return -1


def _pop_of(q):
    return q.pop()


def pops_in_a_helper(x, thr):
    q = [0, 1, 2]
    while q:
        i = _pop_of(q)
        if x[i] > thr:
            return i
    return -1


def held_by_another_list(x, thr):
    q = [0, 1, 2]
    box = [q]
    while q:
        i = q.pop()
        if x[i] > thr:
            return i, len(box)
    return -1, 0


X3 = (np.array([0.1, 0.5, 0.9]), np.float64(0.4))


@pytest.mark.parametrize("fn, line, what", [
    (appends_in_the_loop, "q.append(i + 10)", r"`\.append` of a list popped inside a runtime"),
    (pushes_in_the_loop, "heapq.heappush(h", r"heapq\.heappush on a list popped inside a runtime"),
    (returns_the_list, "return q, 1", r"returning a list popped inside a runtime"),
    (iterates_it_after, "for v in q", r"iterating a list popped inside a runtime"),
    (pops_two_ways, "q.pop(0)", r"both by \.pop\(\) and by \.pop\(0\)"),
])
def test_other_changes_and_uses_are_refused_at_their_line(fn, line, what):
    err = raises_at(fn, X3, SideEffectError, match=what + ".* not supported", line_of=line)
    assert "known only at run time" in str(err)
    assert "heapq.heappop(q)" in err.hint or "len(q)" in err.hint


def test_a_list_another_container_holds_keeps_the_refusal():
    raises_at(held_by_another_list, X3, SideEffectError,
              match="removing items from a container inside a runtime", line_of="q.pop()")


def test_a_pop_in_another_function_is_refused_there():
    err = raises_at(pops_in_a_helper, X3, SideEffectError,
                    match=r"\.pop\(\) of a list popped inside a runtime .* in a function other "
                          "than the one whose variable holds it is not supported")
    assert err.loc.func == "_pop_of"


def _after_popping(use):
    def fn(x, thr):
        q = [0, 1, 2]
        while q and x[q[-1]] > thr:
            q.pop()
        return use(q)
    return fn


@pytest.mark.parametrize("use, what", [
    (lambda q: q == [0], "reading a queue popped inside a runtime .* whole"),
    (lambda q: str(q), "reading a queue popped inside a runtime .* whole"),
    (lambda q: sum(q), "iterating a list popped inside a runtime"),
    (lambda q: len(__import__("copy").copy(q)), r"`\.copy` of a list popped inside a runtime"),
])
def test_reading_it_whole_is_refused(use, what):
    raises_at(_after_popping(use), X3, SideEffectError, match=what + ".* not supported")


def test_its_type_is_the_list_it_stands_for():
    fn = _after_popping(lambda q: (isinstance(q, list), type(q) is list, len(q)))
    same_each(fn, *[(X3[0], np.float64(t)) for t in (0.0, 0.4, 1.0)])
