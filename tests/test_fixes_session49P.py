"""Session 49P: a runtime `while` (or a `for` over a runtime range) that
rebinds a variable to a new object of a plain class each iteration
(`b = Body(b.x + b.v * dt, b.v - g * dt)`, `pos = pos + vel` with an
`__add__` returning a new object) was refused (E500 'this runtime loop
changes the static value `b`').  Counted loops carried such objects as
values already (session 47F4); a runtime loop may run no iteration, which
leaves the very object of before where a copy would stand, so it carries
them where no one can tell the two apart: the program made the object the
variable holds when the loop starts, and nothing else refers to it (no
other variable, container, object, closure or caller).  Otherwise the
refusal stands."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import count_hlo, hlo, raises_at, same_each

DT, G = 0.1, 0.98


class Body:
    def __init__(self, x, v):
        self.x, self.v = x, v

    def energy(self):
        return 0.5 * self.v * self.v + G * self.x

    def __eq__(self, o):        # (assert_same compares returned objects so)
        return type(o) is Body and _same(self.x, o.x) and _same(self.v, o.v)


class V2:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return V2(self.x + o.x, self.y + o.y)

    def __mul__(self, s):
        return V2(self.x * s, self.y * s)


def _same(a, b) -> bool:
    return type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype and \
        bool(np.allclose(np.asarray(a), np.asarray(b), rtol=1e-9))


HIGH, LOW = np.array([1.0, 2.0]), np.array([-1.0, 2.0])     # (LOW: no iteration runs)


def _one_while(fn, *arg_tuples):
    compiled = same_each(fn, *arg_tuples)
    assert count_hlo(hlo(compiled, *arg_tuples[0]), "while") == 1
    return compiled


def fall(a):
    b = Body(a[0], a[1])
    steps = 0
    while b.x > 0:
        b = Body(b.x + b.v * DT, b.v - G)
        steps += 1
    return b.x, b.v, steps


def test_a_runtime_while_carries_the_object_it_makes_anew():
    _one_while(fall, (HIGH,), (LOW,), (np.array([5.0, 0.0]),))


def fall_returned(a):
    b = Body(a[0], a[1])
    while b.x > 0:
        b = Body(b.x + b.v * DT, b.v - G)
    return b


def test_the_object_itself_is_returned_after_any_number_of_iterations():
    _one_while(fall_returned, (HIGH,), (LOW,))


def fall_python_numbers(a):
    b = Body(1.0, 0.5)              # (Python floats: runtime ones once the loop runs)
    n = 0
    while b.x > a[0]:
        b = Body(b.x - b.v * DT, b.v * 1.5)
        n += 1
    return b.x, b.v, n


def test_python_number_attributes_become_runtime_floats():
    _one_while(fall_python_numbers, (np.array([0.2]),), (np.array([3.0]),))


def by_energy(a):
    b = Body(a[0], a[1])
    while b.energy() > 0.5 and b.x > -10:
        b = Body(b.x + b.v * DT, b.v * 0.9 - G * DT)
    return b.energy(), b.x


def test_a_method_of_the_object_in_the_loop_test():
    _one_while(by_energy, (HIGH,), (np.array([0.1, 0.1]),))


def drift(a, n):
    pos, vel = V2(a[0], a[1]), V2(a[2], a[3])
    for _ in range(int(n[0])):      # (a runtime number of steps)
        pos = pos + vel * DT
    return pos.x, pos.y


def test_operators_returning_new_objects_over_a_runtime_range():
    args = np.array([0.0, 1.0, 2.0, -1.0])
    _one_while(drift, (args, np.array([7])), (args, np.array([0])))


def bounce(a):
    b = Body(a[0], a[1])
    hits = 0
    while hits < 3 and b.x > -5:
        b = Body(b.x + b.v * DT, b.v - G * DT)
        if b.x < 0:                 # (a runtime if inside: merged attribute by attribute)
            b = Body(-b.x, -b.v * 0.8)
            hits += 1
    return b.x, b.v, hits


def test_a_runtime_if_rebinding_it_inside_the_loop():
    _one_while(bounce, (HIGH,), (np.array([0.5, -1.0]),))


def with_break(a):
    b = Body(a[0], a[1])
    n = 0
    while True:
        b = Body(b.x + b.v * DT, b.v - G)
        n += 1
        if b.x < 0:
            break
    return b.x, b.v, n


def test_a_runtime_break():
    same_each(with_break, (HIGH,), (np.array([0.05, -3.0]),))


# --- where a copy could be told from the object: refused as before -----------------------

def held_by_a_list(a):
    b = Body(a[0], a[1])
    trail = [b]
    while b.x > 0:
        b = Body(b.x + b.v * DT, b.v - G)
    return trail[0] is b


def test_an_object_a_list_also_holds_is_refused():
    raises_at(held_by_a_list, (HIGH,), E.SideEffectError, match="Body",
              line_of="while b.x > 0:")


def passed_in(b, a):
    while b.x > a[0]:
        b = Body(b.x - 1.0, b.v)
    return b.x


def test_the_callers_object_is_refused():
    raises_at(passed_in, (Body(3.0, 1.0), np.array([0.5])), E.SideEffectError,
              match="Body", line_of="while b.x > a[0]:")


def asks_identity(a):
    b = Body(a[0], a[1])
    first = b
    while b.x > 0:
        b = Body(b.x + b.v * DT, b.v - G)
    return b is first


def test_another_variable_holding_the_first_object_is_refused():
    raises_at(asks_identity, (HIGH,), E.SideEffectError, match="Body",
              line_of="while b.x > 0:")
