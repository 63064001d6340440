"""Session 48X4's fix (sweep 48X bug_04): a runtime `if` whose paths bind a
variable to different objects of a plain value class (`if c: pos = pos *
0.5`, __mul__ returning a new V2) was refused (E300 'a V2 object and a V2
object').  Such objects are merged attribute by attribute into a new one,
as a counted loop carries them (session 47F4), where the program made each
and no other name holds it; a static loop whose body does this is still
one While.  Where another name (a variable, an object, a list being
iterated, a bound method, the caller) holds one, a copy could be told from
it: refused as before, with a hint that works."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import count_hlo, hlo, raises_at, same, same_each


class V2:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return V2(self.x + o.x, self.y + o.y)

    def __mul__(self, s):
        return V2(self.x * s, self.y * s)

    def __eq__(self, o):        # (assert_same compares the returned objects so)
        return type(o) is V2 and _same(self.x, o.x) and _same(self.y, o.y)


def _same(a, b) -> bool:
    return type(a) is type(b) and np.asarray(a).dtype == np.asarray(b).dtype and \
        bool(np.all(np.asarray(a) == np.asarray(b)))


class Named:
    def __init__(self, v, name):
        self.v, self.name = v, name


class Holder:
    pass


UP = np.array([0.5, 0.25, 1.0])
DOWN = np.array([0.5, 0.25, -1.0])


def both(fn, *rest, dtype=np.float64):
    """`fn` compiled once, on the arm taken and the arm not taken."""
    same_each(fn, (UP.astype(dtype), *rest), (DOWN.astype(dtype), *rest))


# --- merged attribute by attribute -------------------------------------------------------

def step(x):
    pos = V2(x[0], x[1])
    if x[2] > 0:
        pos = pos * 0.5
    return pos.x + pos.y


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_sweeps_step(dtype):
    both(step, dtype=dtype)


def test_the_object_itself_is_returned():
    def f(x):
        pos = V2(x[0], x[1])
        if x[2] > 0:
            pos = pos * 0.5
        return pos
    both(f)


def test_both_arms_make_one():
    def f(x):
        if x.sum() > 1:
            p = V2(x[0], 1)
        else:
            p = V2(x[1], 2)         # (a Python int on each path: a Python int after)
        return p.x * p.y, p.y
    same_each(f, (UP,), (np.array([0.1, 0.2, 0.3]),))


def test_a_python_float_on_one_path_an_array_element_on_the_other():
    def f(x):
        p = V2(1.0, 2)
        if x[2] > 0:
            p = V2(x[0], x[1])
        return p.x, p.y
    both(f)


def test_elif_chain_and_ifs_in_a_row():
    def chain(x):
        p = V2(x[0], x[1])
        if x[0] > 1:
            p = p * 2.0
        elif x[1] > 0:
            p = p * 3.0
        elif x[2] > 0:
            p = p + V2(1.0, 1.0)
        if x[2] > 0:
            p = p * -1.0
        return p
    both(chain)


def test_attributes_set_after_and_inside_a_later_if():
    def f(x):
        p = V2(x[0], x[1])
        if x[2] > 0:
            p = p * 2.0
        p.x = p.x + 1
        if x[1] > 0:
            p.y = p.y * 10
        return p.x, p.y
    both(f)


def test_a_static_string_attribute_becomes_a_runtime_choice():
    def f(x):
        n = Named(x[0], "low")
        if x[2] > 0:
            n = Named(x[1], "high")
        return n.v, n.name
    both(f)


def test_in_a_called_function():
    def halve(p, c):
        if c > 0:
            p = p * 0.5
        return p

    def f(x):
        p = halve(V2(x[0], x[1]), x[2])
        return p.x + p.y
    both(f)


def test_a_list_of_objects_rebuilt_in_an_arm():
    def f(x):
        ps = [V2(x[0], x[1]), V2(x[1], x[2])]
        if x[2] > 0:
            ps = [p * 2.0 for p in ps]
        return ps[0].x + ps[1].y
    both(f)


def test_a_conditional_expression_making_one_on_each_path():
    def f(x):
        p = V2(x[0], x[1]) if x[2] > 0 else V2(x[1], x[0])
        return p.x - p.y
    both(f)


def orbit(x, n):
    pos, vel = V2(x[0], x[1]), V2(1.0, 0.0)
    for _ in range(n):
        pos = pos + vel * 0.1
        if pos.x > 1.0:
            pos = V2(pos.x - 2.0, pos.y)
    return pos.x, pos.y


@pytest.mark.parametrize("n", [30, 200])
def test_the_sweeps_orbit_in_a_static_loop_is_one_while(n):
    same(orbit, UP, n)
    if n > 32:      # (past the unroll budget: one While, not n copies)
        assert count_hlo(hlo(tpucc.compile(orbit, cache=False), UP, n), "while") == 1


def test_float32_orbit():
    same(orbit, UP.astype(np.float32), 40)


# --- refused: a copy could be told from the object ----------------------------------------

def test_refused_where_another_variable_holds_it():
    def f(x):
        p = V2(x[0], x[1])
        q = p
        if x[2] > 0:
            p = p * 2.0
        q.x = 7.0               # (eagerly p.x too, where the `if` did not run)
        return p.x
    err = raises_at(f, (UP,), E.MergeError, "a V2 object and a V2 object",
                    line_of="if x[2] > 0", cache=False)
    assert "no other name holds it" in err.hint and "`p = V2(p.x, p.y)`" in err.hint


def test_refused_where_an_object_or_a_bound_method_holds_it():
    def attribute(x):
        h = Holder()
        p = V2(x[0], x[1])
        h.p = p
        if x[2] > 0:
            p = p * 2.0
        return p.x, h.p.x

    def method(x):
        p = V2(x[0], x[1])
        scale = p.__mul__
        if x[2] > 0:
            p = p * 2.0
        return p.x, scale(3.0).x
    for fn in (attribute, method):
        raises_at(fn, (UP,), E.MergeError, "a V2 object and a V2 object",
                  line_of="if x[2] > 0", cache=False)


def test_refused_for_an_argument_with_a_hint_that_works():
    def refused(p, x):
        if x[2] > 0:
            p = p * 2.0
        return p.x

    def as_hinted(p, x):
        p = V2(p.x, p.y)
        if x[2] > 0:
            p = p * 2.0
        return p.x
    err = raises_at(refused, (V2(1.0, 2.0), UP), E.MergeError, "a V2 object and a V2 object",
                    line_of="if x[2] > 0", cache=False)
    assert "`p = V2(p.x, p.y)`" in err.hint
    same_each(as_hinted, (V2(1.0, 2.0), UP), (V2(1.0, 2.0), DOWN))


def test_refused_for_the_item_of_a_list_being_iterated():
    def f(x):
        t = 0.0
        for p in [V2(x[0], x[1]), V2(x[1], x[2])]:
            if p.x > 0.3:
                p = p * 2.0
            t = t + p.x
        return t
    raises_at(f, (UP,), E.MergeError, "a V2 object and a V2 object", line_of="if p.x > 0.3",
              cache=False)


def test_refused_conditional_expression_keeping_the_variables_object():
    def f(x):
        p = V2(x[0], x[1])
        p = p * 2.0 if x[2] > 0 else p
        return p.x
    err = raises_at(f, (UP,), E.MergeError, "a V2 object and a V2 object",
                    line_of="if x[2] > 0 else p", cache=False)
    assert "`if` statement" in err.hint


def test_another_structure_on_one_path_is_refused_naming_the_attribute():
    def f(x):
        p = V2(x[0], x[1])
        if x[2] > 0:
            p = V2(x[0], (x[1], x[2]))
        return p.x
    raises_at(f, (UP,), E.MergeError, r"`p\.y` different structures", line_of="if x[2] > 0",
              cache=False)


def test_a_variable_a_closure_reads():
    def f(x):
        p = V2(x[0], x[1])
        get = lambda: p.x       # noqa: E731  (reads the variable, whichever object it holds)
        if x[2] > 0:
            p = p * 2.0
        return get()
    both(f)


def test_refused_where_a_dict_or_a_closure_holds_it():
    def in_dict(x):
        p = V2(x[0], x[1])
        d = {"p": p}
        if x[2] > 0:
            p = p * 2.0
        d["p"].x = 3.0
        return p.x

    def in_closure(x):
        p = V2(x[0], x[1])
        q = p
        get = lambda: q         # noqa: E731
        if x[2] > 0:
            p = p * 2.0
        get().x = 5.0
        return p.x
    for fn in (in_dict, in_closure):
        raises_at(fn, (UP,), E.MergeError, "a V2 object and a V2 object",
                  line_of="if x[2] > 0", cache=False)
