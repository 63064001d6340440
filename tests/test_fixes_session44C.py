"""Session 44C's fixes, each checked against eager NumPy: a list or dict
reached through an argument's attribute, returned after the program
rebinds its items, is the caller's container with the new items; ..."""
import copy

import numpy as np
import pytest

import tpucc
from conftest import assert_same, raises_at, same


def _twice(fn, *args):
    """fn eagerly and compiled (no cache) on deep copies of `args`: the
    results and the arguments after the call (their objects' attributes
    compared as the objects' __dict__)."""
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = fn(*eager_args)
    actual = tpucc.compile(fn, cache=False)(*comp_args)
    assert_same(_state(expected), _state(actual))
    assert_same(_state(eager_args), _state(comp_args))
    return eager_args, comp_args, expected, actual


def _state(x):
    if isinstance(x, (list, tuple)):
        return type(x)(_state(v) for v in x)
    if isinstance(x, dict):
        return {k: _state(v) for k, v in x.items()}
    if hasattr(x, "__dict__") and not isinstance(x, type):
        return {k: _state(v) for k, v in vars(x).items()}
    return x


# --- bug_03: returning a container reached through an attribute after rebinding items --------

class Holder:
    def __init__(self, items):
        self.items = items


def _double_first(m, x):
    m.items[0] *= 2
    return m.items


def _store_array(h, x):
    h.items[0] = x + 1
    return h.items


def _store_in_dict(o, x):
    o.items["e"] = float(x[0])
    return o.items


def _through_list_argument(ws, x):
    ws[0].items[0] = 7.0
    return ws[0].items


def _count_hits(c, xs):
    for x in xs:
        if x < 0:
            c.items["left"] += 1
        elif x > 1:
            c.items["right"] += 1
    return c.items


def _ring(r, x, n):
    for i in range(n):
        x = x * 2
        r.items[i % 3] = x.copy()
    return r.items, x


def _nested_result(m, x):
    m.items[1] = m.items[1] + x.sum()
    return (m.items, m), m.items[1]


@pytest.mark.parametrize("fn, make, x", [
    (_double_first, lambda: Holder([1.0, 2.0]), np.array([1.0])),
    (_double_first, lambda: Holder([3, 5]), np.array([1.0])),
    (_store_array, lambda: Holder([np.zeros(2), np.zeros(2)]), np.ones(2)),
    (_store_array, lambda: Holder([np.zeros(3, np.float32), np.ones(3, np.float32)]),
     np.ones(3, np.float32)),
    (_store_in_dict, lambda: Holder({"e": 0.0, "f": 1.0}), np.array([2.5])),
    (_count_hits, lambda: Holder({"left": 0, "right": 0}), np.array([-1.0, 2.0, 0.5, -3.0])),
    (_nested_result, lambda: Holder([np.zeros(2), np.float64(1.0)]), np.arange(3.0)),
])
def test_returned_outside_container_has_new_items(fn, make, x):
    (eager_holder, _), (comp_holder, _), expected, actual = _twice(fn, make(), x)
    first = actual[0][0] if isinstance(actual, tuple) else actual
    assert first is comp_holder.items          # the caller's own container, as eagerly


def test_returned_outside_container_through_list_argument():
    (eager_ws, _), (comp_ws, _), _, actual = _twice(
        _through_list_argument, [Holder([1.0, 2.0])], np.zeros(1))
    assert actual == [7.0, 2.0] and actual is comp_ws[0].items


def test_returned_ring_buffer_attribute():
    _twice(_ring, Holder([np.zeros(2)] * 3), np.ones(2), 5)


def test_returned_outside_container_on_later_calls():
    f = tpucc.compile(_double_first, cache=False)
    for start in ([1.0, 2.0], [3.0, 5.0], [3.0, 5.0]):
        m = Holder(list(start))
        r = f(m, np.ones(1))
        assert r is m.items and r == [2 * start[0], start[1]]


# --- bug_04: a generator that changes arguments, consumed only part of the way -----------------

class Body:
    def __init__(self, x):
        self.x = x


def _trajectory(b, n):
    for k in range(n):
        b.x = b.x + 0.3
        yield k, b.x


def _first_cross(b, n):
    for k, x in _trajectory(b, n):
        if x[0] > 1.0:
            return k
    return -1


def _first_cross_any(b, n):
    for k, x in _trajectory(b, n):
        if np.any(x > 1.0):
            return k
    return n


def _bumps(x, n):
    for _ in range(n):
        x += 1.0
        yield x[0]


def _first_bump(x, n):
    return next(_bumps(x, n))


def _held_first_bump(x, n):
    g = _bumps(x, n)
    return next(g)


def _static_break(x, n):
    for v in _bumps(x, n):
        break
    return v


def _runtime_return(x, n):
    for v in _bumps(x, n):
        if v > 2:
            return v
    return -1.0


class Counter:
    def __init__(self):
        self.n = 0

    def states(self, n):
        for _ in range(n):
            self.n += 1
            yield self.n


def _zip_shorter_first(s):
    return [v for _, v in zip(range(3), s.states(10))], s.n


def _zip_shorter_loop(s):
    total = 0
    for _, v in zip(range(3), s.states(10)):
        total += v
    return total, s.n


def _zip_generator_shorter(s):
    return [v for _, v in zip(range(30), s.states(10))], s.n


def _all_bumps(x, n):
    return list(_bumps(x, n)), sum(_bumps(x, n))


@pytest.mark.parametrize("fn, args, line", [
    (_first_cross, (Body(np.zeros(1)), 10), "for k, x in"),
    (_first_cross_any, (Body(np.zeros(2, np.float32)), 10), "for k, x in"),
    (_runtime_return, (np.zeros(1), 10), "for v in"),
])
def test_generator_with_effects_left_at_run_time_is_refused(fn, args, line):
    raises_at(fn, args, tpucc.SideEffectError, match=r"\[E500\].*runtime condition decides",
              line_of=line, cache=False)


@pytest.mark.parametrize("fn, args, line", [
    (_first_bump, (np.zeros(1), 10), "return next("),
    (_held_first_bump, (np.zeros(1, np.float32), 10), "g = _bumps"),
    (_static_break, (np.zeros(1), 4), "for v in"),
    (_zip_shorter_first, (Counter(),), "zip(range(3)"),
    # (refused where s.n, which the items not taken would change, is read)
    (_zip_shorter_loop, (Counter(),), "return total, s.n"),
])
def test_generator_with_effects_consumed_part_way_is_refused(fn, args, line):
    raises_at(fn, args, tpucc.SideEffectError, match=r"\[E500\].*consumed only \d item",
              line_of=line, cache=False)


def test_generator_with_effects_consumed_to_its_end():
    same(_all_bumps, np.zeros(2), 4)
    same(_all_bumps, np.zeros(3, np.float32), 2)
    _twice(_zip_generator_shorter, Counter())


# --- bug_01: a loop over objects or functions left early, its variable dead after it ------------

def _bodies(*firsts, dtype=np.float64):
    return [Body(np.array([f, 1.0], dtype)) for f in firsts]


def _first_above(bodies):
    for i, b in enumerate(bodies):
        if b.x[0] > 1:
            return i
    return -1


def _first_above_break(bodies):
    k = -1
    for i, b in enumerate(bodies):
        if b.x[0] > 1:
            k = i
            break
    return k


def _step_until_escape(bodies, v, n):
    for k in range(n):
        for b in bodies:
            b.x = b.x + v
            if b.x[0] > 1:
                return k
    return -1


def _step_in_place_until_escape(bodies, v, n):
    for k in range(n):
        for b in bodies:
            b.x += v
            if b.x[0] > 1:
                return k
    return -1


def _first_function_above(x):
    k = -1
    for i, f in enumerate([np.sin, np.cos, lambda t: t * 3]):
        if f(x)[0] > 1:
            k = i
            break
    return k


def _body_read_after(bodies):
    for b in bodies:
        if b.x[0] > 1:
            break
    return b.x


def _function_called_after(x):
    for f in [np.sin, np.cos, lambda t: t * 3]:
        if f(x)[0] > 0.9:
            break
    return f(x)


def _one_of_two_called_after(x):
    for f in [np.sin, np.cos]:
        if f(x)[0] > 0.9:
            break
    return f(x)


@pytest.mark.parametrize("fn, args", [
    (_first_above, (_bodies(0.0, 2.0),)),
    (_first_above, (_bodies(0.0, 0.5, dtype=np.float32),)),
    (_first_above_break, (_bodies(0.0, 3.0, 2.0),)),
    (_first_above_break, (_bodies(0.0, 0.0),)),
    (_step_until_escape, (_bodies(0.0, 0.5), np.array([0.3, 0.0]), 10)),
    (_step_until_escape, (_bodies(0.0, 0.5, dtype=np.float32), np.float32(0.2), 3)),
    (_step_in_place_until_escape, (_bodies(0.0, 0.5), np.array([0.3, 0.1]), 10)),
    (_first_function_above, (np.array([1.2]),)),
    (_first_function_above, (np.array([0.1], np.float32),)),
])
def test_loop_over_objects_left_early_with_dead_variable(fn, args):
    _twice(fn, *args)


def test_object_read_after_the_loop_names_the_choice():
    err = raises_at(_body_read_after, (_bodies(0.0, 2.0),), tpucc.TpuccError,
                    match=r"\[E300\].*`b`", line_of="for b in bodies", cache=False)
    assert "makes a new" not in str(err) and "read what you need from it inside the loop" \
        in str(err)


def test_function_chosen_by_the_loop_is_named_as_a_function():
    err = raises_at(_function_called_after, (np.array([1.2]),), tpucc.TpuccError,
                    match=r"\[E300\].*`f`", line_of="for f in", cache=False)
    assert "ChosenFunction" not in str(err) and "call it where it is known" in str(err)


def test_one_of_two_functions_chosen_by_the_loop():
    same(_one_of_two_called_after, np.array([1.2]))
    same(_one_of_two_called_after, np.array([0.2, 1.0]))


# --- bug_02: a World logging into its own list: the unrolled steps' UnrollWarning ---------------

class Ball:
    def __init__(self, x, v):
        self.x, self.v = x, v


class World:
    def __init__(self, balls):
        self.balls, self.ke, self.hits = balls, [], 0

    def step(self, dt):
        for b in self.balls:
            b.x += b.v * dt
            if b.x[0] < 0 or b.x[0] > 1.0:
                b.v[0] = -b.v[0]
                self.hits += 1
        self.ke.append(float(self.balls[0].v[0]))


def _simulate(balls, n):
    w = World(balls)
    for _ in range(n):
        w.step(0.05)
    return w.ke, w.hits


def test_world_logging_into_its_list_warns_with_its_runtime_ifs():
    rng = np.random.default_rng(8)
    balls = [Ball(rng.uniform(0, 1, 2), rng.normal(0, 3, 2)) for _ in range(5)]
    with pytest.warns(tpucc.UnrollWarning,
                      match=r"\d+ ops and \d+ runtime `if`s after \d+: .* per runtime `if` "
                            r"\(all 12 copies: about \d+ s or more\)"):
        # (tpucc's stages warn: lower() shows it without XLA's compile of the 12 steps)
        tpucc.compile(_simulate, cache=False).lower(copy.deepcopy(balls), 12)
    # the values of the same unrolled steps, fewer of them (under the warning)
    _twice(_simulate, balls, 4)
