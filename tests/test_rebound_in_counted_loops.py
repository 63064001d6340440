"""An attribute or an outside dict's item that a counted loop (static trip
count, one While) rebinds to a new array at every iteration holds the last
one after the loop, never its array from before the loop: in-place updates
of it after the loop compile.  Where an iteration may put the old array
back, they stay refused (E500)."""
from __future__ import annotations

import copy

import numpy as np

import tpucc
from conftest import assert_same, raises_at

N = 40          # more than the unroll budget: a counted While


class Holder:
    def __init__(self):
        self.last = np.zeros(3)


STATE = {"last": np.zeros(3)}


def rebinds_an_attribute(x, m):
    for r in x:
        m.last = r * 2
    m.last[0] = -5.0
    return m.last


def rebinds_a_global_item(x):
    for r in x:
        STATE["last"] = r * 2
    STATE["last"][0] = -5.0
    return STATE["last"]


def may_put_the_old_one_back(x, m):
    old = m.last
    for r in x:
        m.last = old if r[0] > 0 else r * 2
    m.last[0] = -5.0
    return m.last


def test_an_attribute_rebound_at_every_iteration_is_updated_in_place_after():
    x = np.random.default_rng(2).normal(size=(N, 3))
    eager, compiled = Holder(), Holder()
    assert_same(rebinds_an_attribute(x, eager), tpucc.compile(rebinds_an_attribute)(x, compiled))
    assert_same(eager.last, compiled.last)
    assert tpucc.compile(rebinds_an_attribute).lower(x, Holder()).ir().count("= while(") == 1


def test_a_global_item_rebound_at_every_iteration_is_updated_in_place_after():
    x = np.random.default_rng(3).normal(size=(N, 3))
    saved = copy.deepcopy(STATE)
    want = rebinds_a_global_item(x)
    eager_state = copy.deepcopy(STATE)
    STATE.update(saved)
    assert_same(want, tpucc.compile(rebinds_a_global_item)(x))
    assert_same(eager_state, STATE)


def test_an_iteration_that_may_keep_the_old_array_still_refuses():
    raises_at(may_put_the_old_one_back, (np.ones((N, 3)), Holder()), tpucc.SideEffectError,
              "identity depends on a runtime condition", line_of="m.last[0] = -5.0")
