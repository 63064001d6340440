"""Session 48, after the merges: Counter.update (whose counting is a native
helper, collections._count_elements) under a runtime `if` or in an
iteration thrown away changed the Counter on every path; a dict picked at a
runtime position whose arrays were later updated in place through the list."""
from collections import Counter

import numpy as np
import pytest
import tpucc

from conftest import check, raises_at


def counted_under_if(x):
    c = Counter()
    if x[0] > 0.5:
        c.update(["a"])
    return c


def counted_until_break(x):
    c = Counter()
    for i in range(3):
        c.update(["a", "b"][:i + 1])
        if x[i] > 0.5:
            break
    return c


@pytest.mark.parametrize("fn", [counted_under_if, counted_until_break])
def test_counter_update_on_runtime_paths_is_refused_at_its_line(fn):
    # (it gave Counter({'a': 1}) for x[0] = 0.1, and 9 for 2 after a break)
    raises_at(fn, (np.array([0.1, 0.9, 0.2, 0.3]),), tpucc.SideEffectError,
              match="mutating a Counter", line_of="c.update(")


def counted_statically(x, words):
    c = Counter()
    for w in words:
        c.update(w)
    c.subtract("a")
    return c, float(x.sum()) * c["a"]


def test_counter_update_outside_runtime_paths_matches_eager():
    for words in (["ab", "ba", "c"], ["zz"]):
        check(counted_statically, np.array([1.0, 2.5]), words)


def picked_then_updated(x, i):
    layers = [{"w": x * 1.0, "b": x + 1.0}, {"w": x * 2.0, "b": x - 1.0}]
    d = layers[int(i)]
    layers[0]["w"] *= 3.0               # the copy d would not see this
    return d["w"]


def picked_read_then_updated(x, i):
    layers = [{"w": x * 1.0}, {"w": x * 2.0}]
    v = layers[int(i)]["w"].sum()       # read at once: the copy is dropped
    layers[0]["w"] *= 3.0
    return v + layers[0]["w"]


def test_an_array_of_a_picked_dict_updated_through_the_list_is_refused_while_held():
    raises_at(picked_then_updated, (np.arange(3.0), np.int64(0)), tpucc.SideEffectError,
              line_of='layers[0]["w"] *= 3.0')
    for i in (0, 1):
        check(picked_read_then_updated, np.arange(3.0), np.int64(i))
