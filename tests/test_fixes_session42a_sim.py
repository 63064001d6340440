"""Simulation code found by sweep 42A (agents, particles, Monte Carlo):

- a for loop over a Python list, tuple, x.tolist() or a list of agent
  objects whose body makes three or more runtime paths (`and`, `elif`, a
  nested `if`, `0 < v < 5`) was refused with an E300 about "an iterator and
  an iterator": one path's copy of the loop's iterator had lost its kind;
- after a `for ... else` / `while ... else` whose loop a runtime `break` may
  leave, changing a list, dict or object made before the loop was refused
  as if inside a runtime `if` (and a new attribute gave a false E700
  AttributeError);
- an attribute holding the function's own copy (`w = W(x.copy())`) updated
  in place and then rebound in a runtime loop was refused;
- an assert's f-string doing arithmetic on runtime numbers was refused even
  where the assertion holds.

PYTEST_DONT_REWRITE: compiled functions here use `assert`, which pytest
would rewrite into calls of its own."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
import tpucc.errors as E
from conftest import raises_at, same, same_each


def n_(k):
    return np.int64(k)


def by_signature(xs):
    """The arrays grouped by (dtype, shape), for same_for_each; with ids."""
    groups = {}
    for x in xs:
        groups.setdefault((x.dtype, x.shape), []).append(x)
    return [pytest.param(g, id=",".join(f"{x.dtype}{x.tolist()}" for x in g))
            for g in groups.values()]


# --- bug_03: several runtime tests in a loop over a Python sequence ----------------

def and_over_list(x):
    n = 0
    for v in [x[0], x[1]]:
        if v > 0 and v < 5:
            n += 1
    return n


def elif_over_tolist(x):
    n = 0
    for v in x.tolist():
        if v > 0:
            n += 1
        elif v < -1:
            n -= 10
    return n


def nested_if_over_tuple(x):
    total = x[0] * 0
    for v in (x[0], x[1], x[2]):
        if v > 0:
            if v > 2:
                total = total + v
            else:
                total = total - v
    return total


def chained_over_list(x):
    n = 0
    for v in [x[0], x[1], x[2]]:
        if 0 < v < 5:
            n += 1
    return n


def continue_then_if(x):
    s = x[0] * 0
    for v in [x[0], x[1], x[2]]:
        if v < 0:
            continue
        if v > 2:
            s = s + v
    return s


def not_of_and(x):
    n = 0
    for a, b in zip([x[0], x[1]], x[1:]):
        if not (a > 0 and b > 0):
            n += 1
    return n


def while_and_in_list_loop(x):
    n = 0
    for v in [x[0], x[1]]:
        j = 0
        while j < 3 and v > j:
            j += 1
        n += j
    return n


class Person:
    def __init__(self, state, age):
        self.state = state
        self.age = age


def sir_agents(states, ages):
    people = [Person(states[k], ages[k]) for k in range(3)]
    counts = np.zeros(3, np.int64)
    for k, p in enumerate(people):
        if p.state == 0:
            counts[0] += 1
        elif p.state == 1:
            counts[1] += 1
            p.age = p.age + 1.0
        else:
            counts[2] += k
    return counts, [p.age for p in people]


X3 = [np.array([1.0, -2.0, 3.0]), np.array([4.0, 0.5, -3.0]),
      np.array([1, -2, 7], np.int32), np.array([6.0, 6.0, 6.0], np.float32)]


def several_runtime_tests(x):
    # (the seven loops as one program: one compile per dtype and shape)
    return (and_over_list(x), elif_over_tolist(x), nested_if_over_tuple(x),
            chained_over_list(x), continue_then_if(x), not_of_and(x), while_and_in_list_loop(x))


@pytest.mark.parametrize("xs", by_signature(X3))
def test_several_runtime_tests_in_a_loop_over_a_python_sequence(xs):
    same_each(several_runtime_tests, *[(x,) for x in xs])


@pytest.mark.parametrize("states", [[np.array([0, 1, 2]), np.array([1, 1, 0])],
                                    [np.array([2, 0, 1], np.int32)]], ids=["int64", "int32"])
def test_agents_if_elif_over_a_list_of_objects(states):
    same_each(sir_agents, *[(s, np.array([20.0, 30.0, 40.0])) for s in states])


# --- bug_02: after a loop `else` that a runtime `break` may skip -------------------

def append_after_for_else(x):
    out = []
    for v in x:
        if v > 2:
            break
    else:
        v = x[0] * 0 - 1
    out.append(v)
    return out


def new_key_after_for_else(x):
    d = {"n": 0}
    for v in x:
        if v > 2:
            break
    else:
        v = x[-1] * 2
    d["found"] = v
    return d


def append_after_while_else(x):
    out = [x[0]]
    i = 0
    while i < x.shape[0]:
        if x[i] > 2:
            break
        i += 1
    else:
        i = -1
    out.append(x[i] if i >= 0 else x[0])
    return out, i


class Holder:
    pass


def new_attribute_after_for_else(x, o):
    for v in x:
        if v > 2:
            break
    else:
        v = x[0] * 0 - 1
    o.v = v
    return o.v


def python_float_from_else(x):
    out = []
    for v in x:
        if v > 2:
            break
    else:
        v = -1.0
    out.append(v)
    return out


XB = [np.array([1.0, 3.0, 5.0]), np.array([1.0, 1.0, 1.0]), np.array([5, 0, 1], np.int32),
      np.array([0.5, 2.5], np.float32)]


def containers_changed_after_loop_else(x):
    # (the three as one program: one compile per dtype and shape)
    return append_after_for_else(x), new_key_after_for_else(x), append_after_while_else(x)


@pytest.mark.parametrize("xs", by_signature(XB))
def test_container_changed_after_a_loop_else_with_a_runtime_break(xs):
    same_each(containers_changed_after_loop_else, *[(x,) for x in xs])


@pytest.mark.parametrize("xs", by_signature(XB))
def test_new_attribute_after_a_loop_else_with_a_runtime_break(xs):
    fn = tpucc.compile(new_attribute_after_for_else, cache=False)     # one per dtype and shape
    for x in xs:
        eager, compiled = Holder(), Holder()
        expected = new_attribute_after_for_else(x, eager)
        got = fn(x, compiled)
        assert got == expected and type(got) is type(expected)
        assert compiled.v == eager.v and type(compiled.v) is type(eager.v)


def test_python_float_from_the_else_merged_with_the_break_path():
    # (a Python float merged with a NumPy one by runtime paths comes back as
    # the type the path taken held, as eagerly: README, "A Python number
    # merged with a NumPy value")
    fn = tpucc.compile(python_float_from_else, cache=False)     # one executable for both
    for x, value in [(np.array([1.0, 3.0]), 3.0), (np.array([1.0, 1.0]), -1.0)]:
        expected = python_float_from_else(x.copy())
        got = fn(x)
        assert got == [value] == expected and type(got[0]) is type(expected[0])


def new_attribute_in_runtime_if(x, o):
    if x[0] > 0:
        o.v = x[0]
    return 0


def test_new_attribute_of_an_outside_object_in_a_runtime_if_says_so():
    raises_at(new_attribute_in_runtime_if, (np.array([1.0]), Holder()), E.SideEffectError,
              match="no value before, so whether it exists after", line_of="o.v = x[0]",
              cache=False)


def appended_in_the_else(x):
    out = []
    for v in x:
        if v > 2:
            break
    else:
        out.append(v)
    return out


def test_append_inside_the_loop_else_is_still_refused():
    raises_at(appended_in_the_else, (np.array([1.0, 3.0]),), E.SideEffectError,
              match="appending to `out` on some runtime paths only", line_of="out.append(v)",
              cache=False)


# --- bug_01: an attribute holding the function's own copy ---------------------------

class World:
    def __init__(self, x):
        self.x = x

    def step(self, dt):
        self.x += dt
        self.x = np.clip(self.x, 0, 2.5)


def own_copy_updated_then_rebound(x, n):
    w = World(x.copy())
    i = 0
    while i < n:
        w.x += 1.0
        w.x = np.minimum(w.x, 10.0)
        i += 1
    return w.x


def step_method(x, n):
    w = World(x.astype(np.float32))
    t = 0
    while t < n:
        w.step(np.float32(0.75))
        t += 1
    return w.x


def runtime_for_on_own_copy(x, n):
    w = World(x * 2)
    for _ in range(n):
        w.x *= 3
        w.x = w.x - 1
    return w.x, x


def own_copies_rebound(x, n):
    # (the three as one program: one compile per dtype and shape)
    return own_copy_updated_then_rebound(x, n), step_method(x, n), runtime_for_on_own_copy(x, n)


@pytest.mark.parametrize("x", [np.zeros(3), np.arange(4.0), np.ones((2, 2), np.float32)],
                         ids=["f64[3]", "f64[4]", "f32[2,2]"])
def test_attribute_holding_its_own_copy_updated_then_rebound_in_a_loop(x):
    same_each(own_copies_rebound, (x, n_(0)), (x, n_(3)))   # n: a runtime NumPy int


def argument_array_attribute(x, n):
    w = World(x)
    i = 0
    while i < n:
        w.x += 1.0
        w.x = np.minimum(w.x, 10.0)
        i += 1
    return w.x


def rebound_to_another_names_array(x, n):
    w = World(x.copy())
    y = x.copy()
    i = 0
    while i < n:
        w.x += 1.0
        w.x = y
        i += 1
    return w.x, y


def aliased_before_the_loop(x, n):
    w = World(x.copy())
    v = w.x
    i = 0
    while i < n:
        w.x += 1.0
        w.x = np.minimum(w.x, 10.0)
        i += 1
    return w.x, v


@pytest.mark.parametrize("fn", [argument_array_attribute, rebound_to_another_names_array])
def test_attribute_updates_others_can_see_are_still_refused(fn):
    raises_at(fn, (np.zeros(3), n_(3)), E.SideEffectError,
              match="updated in place and then rebound", line_of="while i < n", cache=False)


def test_attribute_aliased_before_the_loop_is_still_refused():
    raises_at(aliased_before_the_loop, (np.zeros(3), n_(3)), E.SideEffectError,
              line_of="while i < n", cache=False)


# --- bug_04: arithmetic in an assert's message --------------------------------------

def drift_message(v, tol):
    E0 = float((v ** 2).sum())
    v = v * 1.5
    E = float((v ** 2).sum())
    assert abs(E - E0) / E0 < tol, f"energy drift {E - E0:.4f}"
    return E


def numpy_arithmetic_message(x, limit):
    s = x.sum()
    assert s < limit, f"sum {s} over by {s - limit}, {abs(s - limit) * 2:.2f}, {max(s, limit)}"
    return s


def indexed_message(x):
    assert x.sum() < 100, f"first item {x[0]}, last {x[-1] * 2}"
    return x.sum()


@pytest.mark.parametrize("vs", [[np.ones(3), np.arange(1.0, 4.0)], [np.ones(2, np.float32)]],
                         ids=["f64[3]", "f32[2]"])
def test_assert_message_with_arithmetic_when_the_assertion_holds(vs):
    same_each(drift_message, *[(v, 10.0) for v in vs])


def numpy_arithmetic_and_indexed_messages(x, limit):
    return numpy_arithmetic_message(x, limit), indexed_message(x)


@pytest.mark.parametrize("x", [np.ones(3), np.arange(3, dtype=np.int32)])
def test_assert_message_with_numpy_arithmetic_and_indexing_holds(x):
    same(numpy_arithmetic_and_indexed_messages, x, 50.0)


@pytest.mark.parametrize("fn, args, text", [
    (drift_message, (np.ones(3), 0.5), "energy drift 3.7500"),
    (numpy_arithmetic_message, (np.ones(3), 1.5), "sum 3.0 over by 1.5, 3.00, 3.0"),
    (indexed_message, (np.full(3, 50.0),), "first item 50.0, last 100.0"),
])
def test_assert_message_with_arithmetic_when_the_assertion_fails(fn, args, text):
    with pytest.raises(AssertionError) as eager:
        fn(*args)
    assert str(eager.value) == text
    err = raises_at(fn, args, E.RuntimeRaiseError, line_of="assert", cache=False)
    assert text in str(err)


def runtime_index_in_message(x, i):
    assert x.sum() < 100, f"item {x[i]}"
    return x.sum()


def test_assert_message_with_a_runtime_index_is_still_refused():
    # (the index would be checked on every path, where Python computes the
    # message only when the assertion fails)
    raises_at(runtime_index_in_message, (np.ones(3), n_(1)), E.StaticValueError,
              match="formatting a runtime value", line_of="assert", cache=False)


def static_division_in_message(x, n, k):
    assert x.sum() < 100, f"{n // k} parts"
    return x.sum()


def test_static_zero_division_in_a_message_only_where_the_assertion_fails():
    # (the message is computed at compile time: `7 // 0` there raised E700
    # though Python never computes it where the assertion holds)
    same(static_division_in_message, np.ones(3), 7, 0)
    same(static_division_in_message, np.ones(3), 7, 2)
    err = raises_at(static_division_in_message, (np.full(3, 50.0), 7, 0), ZeroDivisionError,
                    line_of="assert", cache=False)
    assert "integer division or modulo by zero" in str(err)
