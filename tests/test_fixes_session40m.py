"""Session 40: a list from outside the call that the program appends to,
returned, is the caller's own list with the appended items (it was a copy
made while tracing, without them)."""
import numpy as np

import tpucc

HISTORY = []


class Log:
    def __init__(self):
        self.best = []


def append_and_return(b, x):
    b.best.append(int(x[0]))
    return b.best


def test_returned_attribute_list_is_the_callers_list_after_each_call():
    b = Log()
    f = tpucc.compile(append_and_return, cache=False)
    r = f(b, np.arange(3))
    assert r is b.best and r == [0]
    r2 = f(b, np.arange(5, 8))
    assert r2 is b.best and b.best == [0, 5]
    assert type(b.best[1]) is int


def append_global(x):
    HISTORY.append(float(x.sum()))
    return x * 2, {"history": HISTORY}


def test_returned_global_list_inside_a_tuple_and_dict():
    HISTORY.clear()
    f = tpucc.compile(append_global, cache=False)
    y, d = f(np.arange(3.0))
    np.testing.assert_array_equal(y, np.arange(3.0) * 2)
    assert d["history"] is HISTORY and HISTORY == [3.0]
    _, d2 = f(np.ones(2))
    assert d2["history"] is HISTORY and HISTORY == [3.0, 2.0]
    assert type(HISTORY[0]) is float


def extend_and_return_twice(b, x):
    b.best.extend([x.max(), x.min()])
    return b.best, b.best


def test_extended_list_returned_twice_is_one_object():
    expected_b, b = Log(), Log()
    extend_and_return_twice(expected_b, np.array([3, 1, 2]))
    r1, r2 = tpucc.compile(extend_and_return_twice, cache=False)(b, np.array([3, 1, 2]))
    assert r1 is r2 is b.best
    assert [type(v) for v in b.best] == [type(v) for v in expected_b.best]
    assert b.best == expected_b.best == [3, 1]


# --- arrays read from outside and rebound by the same call ---------------------------

class Holder:
    def __init__(self, w):
        self.w = w


def old_and_new(m, g):
    old = m.w
    m.w = m.w - g
    return old, m.w


def test_array_read_before_its_attribute_is_rebound_is_the_old_array():
    w0 = np.ones(2)
    m = Holder(w0)
    old, new = tpucc.compile(old_and_new, cache=False)(m, np.ones(2))
    assert old is w0
    np.testing.assert_array_equal(old, np.ones(2))
    assert new is m.w
    np.testing.assert_array_equal(new, np.zeros(2))


def keep_previous(o):
    o.prev = o.w
    o.w = np.zeros(2)


def test_previous_value_kept_on_another_attribute():
    w0 = np.ones(2)
    o = Holder(w0)
    tpucc.compile(keep_previous, cache=False)(o)
    assert o.prev is w0
    np.testing.assert_array_equal(o.prev, np.ones(2))
    np.testing.assert_array_equal(o.w, np.zeros(2))


def swap(a, b):
    a.w, b.w = b.w, a.w


def test_swapping_attributes_of_two_objects():
    wa, wb = np.zeros(2), np.ones(2)
    a, b = Holder(wa), Holder(wb)
    f = tpucc.compile(swap, cache=False)
    f(a, b)
    assert a.w is wb and b.w is wa
    f(a, b)             # and back, with the program compiled once
    assert a.w is wa and b.w is wb


PAIR = [np.zeros(2), np.ones(2)]


def swap_global_items():
    PAIR[0], PAIR[1] = PAIR[1], PAIR[0]


def test_swapping_items_of_a_global_list():
    first, second = PAIR
    tpucc.compile(swap_global_items, cache=False)()
    assert PAIR[0] is second and PAIR[1] is first


def step(o):
    o.w = o.w + 1
    return o.w


def test_returned_array_stored_on_an_attribute_is_that_attribute():
    o = Holder(np.zeros(3))
    r = tpucc.compile(step, cache=False)(o)
    assert r is o.w
    r[0] = 99
    np.testing.assert_array_equal(o.w, [99.0, 1.0, 1.0])


def step_item(d, x):
    d["acc"] = d["acc"] * 0.5 + x
    return d["acc"], x.sum()


def test_returned_array_stored_on_an_outside_dict_item():
    state = {"acc": np.ones(3)}
    holder = Holder(state)

    def via_attribute(x):
        return step_item(holder.w, x)
    r, s = tpucc.compile(via_attribute, cache=False)(np.arange(3.0))
    assert r is state["acc"]
    np.testing.assert_array_equal(r, np.ones(3) * 0.5 + np.arange(3.0))
    assert s == 3.0


def scaled_copy(o):
    o.w = o.w * 2
    return o.w.astype(np.float32), o.w[0]


def test_results_computed_from_a_stored_array_are_new_values():
    o = Holder(np.arange(3.0))
    a, first = tpucc.compile(scaled_copy, cache=False)(o)
    assert a is not o.w and a.dtype == np.float32
    np.testing.assert_array_equal(a, [0.0, 2.0, 4.0])
    assert type(first) is np.float64 and first == 0.0
