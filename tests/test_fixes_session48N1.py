"""Bugs from sweep 48N, fixed in session 48 (N1).

- bug_10: an OrderedDict or defaultdict item stored under two successive
  runtime `if`s lost the second store (silently wrong).  The first `if`'s
  merge rebuilt the dict subclass as a new object (state.same_object kept
  only plain dicts), which the second `if` then took for a dict from
  outside the call.  The very same object now gets the merged items, as a
  plain dict does.
- bug_09: OrderedDict / Counter updates under runtime `if`s made compile
  memory explode: each trace's new copy was another "outside item" place
  to promote, without end.  Same cause as bug_10; and in a long loop run
  as one While, the items of a dict subclass kept across the loop's trials
  were restored as a list's (loops._items_kept), adding keys 0, 1, ...
- bug_01: deque(maxlen=...) appended in a loop with a runtime `break`
  crashed E999: an unrolled iteration thrown away (to be tried again as a
  While) left its append in the deque, whose item then named a Value of
  the thrown-away code.  Containers changed as Python changes them
  (append, pop, update...) are now journaled whole and restored
  (values.journal_contents).  A deque with room left now grows in a
  runtime `if`'s arms as a list does (as many items on every path); where
  the paths' lengths differ, the refusal names the append's line, as a
  list's does.
"""
from collections import Counter, OrderedDict, defaultdict, deque

import numpy as np
import pytest

from conftest import raises_at, same_each, same_with_objects
from tpucc.errors import SideEffectError


# --- bug_10: a dict subclass's item stored under two runtime `if`s ----------------------------

def od_two_ifs(x):
    od = OrderedDict(a=0.0)
    if x[0] > 0:
        od["a"] = 1.0
    if x[1] > 0:
        od["a"] = 2.0
    return od["a"]


def dd_two_ifs(x):
    d = defaultdict(float, a=0.0)
    if x[0] > 0:
        d["a"] += 1.0
    if x[1] > 0:
        d["a"] += 1.0
    return d["a"]


def od_array_items(x):
    od = OrderedDict(b=x[0] * 0, a=x[1] * 0)
    if x[0] > 0:
        od["a"] = od["a"] + x[0]
    if x[1] > 0:
        od["a"] = od["a"] + x[1]
    if x[2] > 0:
        od["b"] = od["b"] - x[2]
    return od


class Tally(dict):
    """A user dict subclass (its own class kept)."""


def user_subclass_three_ifs(x):
    t = Tally(n=0, s=0.0)
    for i in range(3):
        if x[i] > 0:
            t["n"] += 1
            t["s"] += x[i]
    return t


def ifelse_then_if(x):
    od = OrderedDict(a=0.0, b=0.0)
    if x[0] > 0:
        od["a"] += 1.0
    else:
        od["b"] += 1.0
    if x[1] > 0:
        od["b"] += 1.0
    return od


_SIGNS = [(1.0, 1.0, 1.0), (1.0, -1.0, 2.0), (-1.0, 1.0, -2.0), (-1.0, -1.0, -1.0)]


@pytest.mark.parametrize("fn", [od_two_ifs, dd_two_ifs])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_dict_subclass_item_under_two_runtime_ifs(fn, dtype):
    same_each(fn, *[(np.array(s, dtype),) for s in _SIGNS])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_ordered_dict_of_arrays_keeps_its_order_and_items(dtype):
    for s in _SIGNS:
        same_with_objects(od_array_items, np.array(s, dtype))


@pytest.mark.parametrize("fn", [user_subclass_three_ifs, ifelse_then_if])
def test_dict_subclass_kept_across_runtime_ifs(fn):
    for s in _SIGNS:
        same_with_objects(fn, np.array(s))


# --- bug_09: Counter / OrderedDict updates under runtime `if`s ---------------------------------

def count_two_ifs(x):
    c = Counter(a=0)
    if x[0] > 0:
        c["a"] += 1
    if x[1] > 0:
        c["a"] += 1
    return c


def tally(x):
    od = OrderedDict(a=0.0, b=0.0)
    for v in x:
        if v > 0:
            od["a"] += 1.0
        else:
            od["b"] += 1.0
    return od


def tally3(x):
    od = OrderedDict(a=0.0, b=0.0, c=0.0)
    for v in x:
        if v > 1:
            od["a"] += 1.0
        elif v < -1:
            od["c"] += v
        else:
            od["b"] += 1.0
    return od


def counter_runtime_while(x, n):
    c = Counter(pos=0, neg=0)
    i = 0
    while i < n:
        if x[i] > 0:
            c["pos"] += 1
        else:
            c["neg"] += 2
        i += 1
    return c


def test_counter_under_two_runtime_ifs():
    for s in _SIGNS:
        same_with_objects(count_two_ifs, np.array(s))


@pytest.mark.parametrize("fn", [tally, tally3])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_ordered_dict_tally_in_a_loop(fn, dtype):
    for values in ([-1, 1, -3], [2, 2, 0, -2]):
        same_with_objects(fn, np.array(values, dtype))


def test_counter_in_a_runtime_while():
    same_with_objects(counter_runtime_while, np.array([-1.0, 1.0, -3.0, 4.0]), 3)


def _long_tally(make):
    def long_tally(x):
        d = make()
        d["s"] = 0.0
        d["t"] = 0.0
        for v in x:             # long: one While, not unrolled
            if v > 0:
                d["s"] += v
            else:
                d["t"] -= v
        return d
    return long_tally


@pytest.mark.parametrize("make", [OrderedDict, lambda: defaultdict(float), dict])
def test_dict_subclass_in_a_long_loop_keeps_its_keys(make):
    same_with_objects(_long_tally(make), np.linspace(-1.0, 1.0, 300))


# --- bug_01: a deque filling up in a loop with a runtime `break` -------------------------------

def last_two_until(x):
    hist = deque(maxlen=2)
    for v in x:
        hist.append(float(v))
        if hist[0] > 0.5:
            break
    return list(hist)


def last_two_until_list(x):
    hist = []
    for v in x:
        hist.append(float(v))
        if hist[0] > 0.5:
            break
    return list(hist)


@pytest.mark.parametrize("fn", [last_two_until, last_two_until_list])
def test_growing_by_a_runtime_break_is_refused_at_the_append(fn):
    # (how many items the loop leaves is known only at run time)
    raises_at(fn, (np.ones(4),), SideEffectError,
              match=r"appending to `hist` on some runtime paths only", line_of="hist.append",
              cache=False)


def full_before(x):
    hist = deque([0.0, 0.0], maxlen=2)
    for v in x:
        hist.append(float(v))
        if hist[0] > 0.5:
            break
    return list(hist)


def filled_statically_then_break(x):
    hist = deque(maxlen=2)
    for v in x:
        hist.append(v * 2)
        if len(hist) == 2 and hist[0] > 0.5:
            break
    return list(hist), len(hist)


@pytest.mark.parametrize("fn", [full_before, filled_statically_then_break])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_deque_window_with_a_runtime_break(fn, dtype):
    same_each(fn, (np.array([0.1, 0.7, 0.9, 0.3, 0.4], dtype),),
              (np.array([0.1, 0.2, 0.3, 0.0, 0.1], dtype),))


def deque_grows_in_both_arms(x):
    d = deque(maxlen=3)
    d.append(x[2])
    if x[0] > 0:
        d.append(x[0] * 2)
    else:
        d.append(-x[0])
    if x[1] > 0:            # one item fits, the other shifts the window
        d.extend([x[1], x[2]])
    else:
        d.extend((x[2], x[1]))
    return list(d), len(d)


def unbounded_deque_in_both_arms(x):
    d = deque()
    if x[0] > 0:
        d.append(x[0])
        d.append(x[1])
    else:
        d.extend([x[1], x[2]])
    return list(d), d[-1]


def appendleft_in_both_arms(x):
    d = deque([x[2]], maxlen=4)
    if x[0] > 0:
        d.appendleft(x[0])
    else:
        d.appendleft(x[1])
    return tuple(d)


@pytest.mark.parametrize("fn", [deque_grows_in_both_arms, unbounded_deque_in_both_arms,
                                appendleft_in_both_arms])
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_deque_grows_as_a_list_in_runtime_arms(fn, dtype):
    same_each(fn, *[(np.array(s, dtype),) for s in _SIGNS])


def deque_one_arm(x):
    d = deque(maxlen=3)
    if x[0] > 0:
        d.append(x[0])
    return list(d)


def test_deque_appended_on_one_arm_only_is_refused():
    raises_at(deque_one_arm, (np.ones(3),), SideEffectError,
              match=r"appending to `d` on some runtime paths only.*gives a deque one length",
              line_of="d.append", cache=False)
