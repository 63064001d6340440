"""Session 46K1 fixes (sweep 45C: event simulations and scheduling).

- bug_08: comparing tuples (lists, `@dataclass(order=True)` objects) whose
  first items are runtime NumPy scalars gave np.bool_ even where those items
  tied and a static later item decided, which Python answers with a Python
  bool; a count `earlier += (t[j], j) < (t[0], 0)` became np.int64 instead of
  int.  The eager type depends on the data, so the comparison is now a held
  bool (infer/held_ints.py): a NumPy bool with a runtime bool saying whether
  it is a Python bool, which the caller gets as such, and which Python's
  operators follow (`count += cmp` a Python int on that path, `cmp & flag` a
  Python bool); comparisons of held Python numbers give held bools too.  A
  tie on every item (the lengths decide: `(a, 1) <= (b, 1)`, a dataclass
  compared on one field) is a Python bool too, where before it was np.bool_
  by design (test_fixes_session40c's test now expects the eager type).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

import tpucc
from tpucc.errors import RuntimeRaiseError

from conftest import hlo, raises_at, same_each

TIE = np.array([1.0, 1.0, 1.0])
MIXED = np.array([1.0, 0.5, 1.0])
INTS = np.array([1, 2, 1], np.int32)
ARRAYS = [TIE, MIXED, INTS, TIE.astype(np.float32), np.array([2, 1, 2], np.uint8)]


def each(fn, *arg_tuples):
    return same_each(fn, *arg_tuples)


# --- bug_08: a tuple comparison that static items decide is a Python bool --------------------

def earlier_events(t):
    earlier = 0
    for j in range(1, len(t)):
        earlier += (t[j], j) < (t[0], 0)
    return (t[1], 1) < (t[0], 0), earlier


def test_sweep_repro_returns_python_bool_and_int_on_ties():
    each(earlier_events, *[(x,) for x in ARRAYS])


def list_comparisons(a, b):
    return ([a[0], 1] < [b[0], 2], [a[0], 3] < [b[0], 2], [a[0], 1] <= [b[0], 1],
            (a[0], 1) > (b[0],), [a[0], a[1], 0] >= [b[0], b[1], 1])


@pytest.mark.parametrize("a", ARRAYS[:3])
def test_list_and_tuple_comparisons_of_every_operator(a):
    each(list_comparisons, (a, a), (a, a[::-1].copy()), (a, a + 1))


@dataclass(order=True)
class Event:
    time: float
    ident: int


def dataclass_order(a, b):
    p, q = Event(a[0], 1), Event(b[0], 2)
    return p < q, p > q, p <= q, p == q


def test_dataclass_order_on_equal_fields():
    each(dataclass_order, (TIE, TIE), (MIXED, MIXED[::-1].copy()), (INTS, INTS + 1))


def nested(a, b):
    return ((a[0], 1), 2) < ((b[0], 1), 3), ((a[0], 1), 2) < ((b[0], 2), 0)


def test_nested_tuples():
    each(nested, (TIE, TIE), (MIXED, MIXED[::-1].copy()))


def count_in_runtime_loop(t, n):
    earlier = 0
    for j in range(n):
        earlier += (t[j], j) < (t[0], 0)
    return earlier


def test_count_in_a_runtime_loop_and_one_that_does_not_run():
    each(count_in_runtime_loop, (TIE, 3), (TIE, 0), (MIXED, 3), (INTS, 2))


def count_in_long_loop(t):
    earlier = 0
    for j in range(1, 300):         # (a scan, not unrolled)
        earlier += (t[j % 3], j) < (t[0], 0)
    return earlier


def test_count_in_a_long_loop():
    each(count_in_long_loop, (TIE,), (MIXED,), (INTS,))


def last_comparison(t, n):
    r = True
    for j in range(n):
        r = (t[j], j) < (t[0], 1)
    return r


def test_comparison_merged_by_a_runtime_loop():
    each(last_comparison, (TIE, 2), (TIE, 0), (MIXED, 2), (MIXED, 1), (INTS, 3))


def python_operators(t):
    cmp = (t[0], 0) < (t[1], 1)
    c = 0
    for j in range(len(t)):
        if (t[j], j) < (t[0], 1):
            c += 1
    return (cmp, cmp & True, cmp | False, cmp + 1, cmp * 2.5, isinstance(cmp, bool),
            isinstance(cmp, np.bool_), int(cmp), c, not cmp, cmp is True, cmp is not False)


def test_python_operators_follow_the_type_on_each_path():
    each(python_operators, *[(x,) for x in ARRAYS])


def two_comparisons(a, b):
    c1 = (a[0], 1) < (b[0], 2)
    c2 = (a[1], 1) < (b[1], 0)
    n = np.int64(0)
    n += c1
    return c1 ^ c2, c1 | c2, c1 == c2, [c1, c2], max(c1, c2), min(c1, c2), sum([c1, c2]), n


def test_two_held_comparisons_together():
    each(two_comparisons, (TIE, TIE), (MIXED, MIXED[::-1].copy()),
         (np.array([1.0, 1.0, 0.0]), np.array([2.0, 1.0, 0.0])))


def comparisons_of_a_list(a, b):
    cs = [(a[i], i) < (b[i], 1) for i in range(3)]
    return cs, sum(cs), any(cs), all(cs), sum((a[i], i) < (b[i], 1) for i in range(3))


def test_list_of_comparisons():
    each(comparisons_of_a_list, (TIE, TIE), (MIXED, TIE), (INTS, INTS[::-1].copy()))


def held_int_compared(x):
    best = 0
    for i in range(len(x)):
        if x[i] > best:
            best = x[i]
    return best > 0, best == 0, best >= 0.5


def test_comparison_of_a_held_python_int_is_a_python_bool_on_its_path():
    # best is the Python int 0 where no item beat it, a NumPy scalar elsewhere
    each(held_int_compared, (MIXED,), (-MIXED,), (INTS,), (-INTS,))


def runtime_items_only(a, b):
    return ((a[0], a[1]) < (b[0], b[1]), [a[0]] <= [b[0]], (a[0], a[1]) >= (b[0], b[1], 0),
            (a[0], 2) <= (b[0], 2))


def test_comparisons_that_tie_on_every_item_are_decided_by_the_lengths():
    # (Python's tuple comparison falls back on the lengths: a Python bool)
    each(runtime_items_only, (TIE, TIE.copy()), (MIXED, TIE), (INTS, INTS[::-1].copy()),
         (INTS, INTS.copy()))


@dataclass(order=True, frozen=True)
class Timed:
    t: float
    kind: int = field(compare=False)


def dataclass_without_tie_breaker(x):
    a, b = Timed(x[0], 0), Timed(x[1], 1)
    return a < b, a <= b, a == b, a > b


def test_dataclass_compared_on_one_field():
    each(dataclass_without_tie_breaker, (np.array([2.0, 2.0]),), (np.array([2.0, 1.0]),))


def only_tested(a, b):
    if (a[0], a[1]) < (b[0], b[1]):
        return 1.0
    return 2.0


def test_a_comparison_only_tested_carries_no_bool_out():
    each(only_tested, (TIE, TIE.copy()), (MIXED, TIE))
    text = hlo(tpucc.compile(only_tested, cache=False), TIE, MIXED)
    assert text.splitlines()[0].endswith("->f64[]}"), text.splitlines()[0]


def added_comparisons(a, b):
    c1 = (a[0], 1) < (b[0], 2)
    c2 = (a[1], 1) < (b[1], 0)
    return c1 + c2


def test_adding_two_held_comparisons_raises_on_the_python_path():
    # NumPy bools add as `or`; Python's give an int: compiled code holds np.bool_
    each(added_comparisons, (np.array([1.0, 2.0]), np.array([2.0, 1.0])),
         (np.array([1.0, 2.0]), np.array([1.0, 1.0])))
    err = raises_at(added_comparisons, (TIE, TIE.copy()), error=RuntimeRaiseError,
                    match="Python bool arithmetic held in a NumPy bool", line_of="c1 + c2",
                    cache=False)
    assert "int(a < b)" in err.hint
