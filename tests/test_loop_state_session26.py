"""Loop state beyond plain variables (session 26's sweep of realistic
programs): namedtuples are carried item by item like tuples, a dataclass
rebuilt each iteration no longer crashes lowering, frozen dataclasses and
classes with their own __setattr__ compile, and static `while` loops share
the unroll budget of the loops around them."""
import dataclasses
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo, raises_at

State = namedtuple("State", "x v")


class Typed(NamedTuple):
    x: np.ndarray
    steps: int


def integrate(x, n):
    s = State(x, 0.0)
    for _ in range(n):
        s = State(s.x * 0.5 + 1, s.v + 1)
    return s


def test_namedtuple_state_in_a_long_static_loop_is_one_while():
    compiled = check(integrate, np.ones(3), 100)
    assert count_hlo(hlo(compiled, np.ones(3), 100), "while") == 1


def test_namedtuple_state_in_runtime_loops_and_branches():
    def grow(x, tol):
        s = Typed(x, 0)
        while s.x.sum() < tol:
            s = Typed(s.x * 1.5 + 1, s.steps + 1)
        return s

    def pick(x):
        s = State(x, 1.0)
        if x.sum() > 2:
            s = State(x * 2, 3.0)
        return s
    compiled = check(grow, np.ones(3), 100.0)
    assert count_hlo(hlo(compiled, np.ones(3), 100.0), "while") == 1
    check(integrate, np.ones(3), 9, compile_kwargs={"runtime_args": ("n",)})
    check(pick, np.ones(3))
    check(pick, np.zeros(3))


@dataclasses.dataclass
class Box:
    x: np.ndarray


def test_dataclass_replaced_every_iteration_is_exact():
    def relax(x, n):
        s = Box(x)
        for _ in range(n):
            s = dataclasses.replace(s, x=s.x * 0.5 + 1)
        return s.x
    check(relax, np.ones(3), 33)


@dataclasses.dataclass(frozen=True)
class Result:
    value: np.ndarray
    iters: int


def test_frozen_dataclass_made_in_compiled_code():
    def solve(x):
        r = Result(x * 2, 3)
        return r.value + r.iters
    check(solve, np.ones(2))


def test_assigning_a_frozen_field_raises_at_the_users_line():
    def assign(x):
        r = Result(x, 1)
        r.value = x * 2
        return r.value
    err = raises_at(assign, (np.ones(2),), line_of="r.value = x * 2",
                    match="FrozenInstanceError")
    assert "<string>" not in str(err.loc)


def rebuilt_each_iteration(x, tol):
    r = Result(x, 0)
    while r.value.sum() < tol:
        r = Result(r.value * 2, r.iters + 1)
    return r.value, r.iters, r


def test_a_loop_rebuilding_a_frozen_dataclass_carries_its_fields():
    # (session 34: a frozen dataclass of arrays and numbers is a value, as
    # a namedtuple is; it was refused, suggesting a namedtuple)
    compiled = tpucc.compile(rebuilt_each_iteration)
    for tol in (50.0, 1.0, 1e6):
        value, iters, r = compiled(np.ones(2), tol)
        want = rebuilt_each_iteration(np.ones(2), tol)
        assert type(r) is Result and iters == want[1] and type(iters) is int
        np.testing.assert_array_equal(value, want[0])
        np.testing.assert_array_equal(r.value, want[0])
    assert count_hlo(hlo(compiled, np.ones(2), 50.0), "while") == 1


@dataclasses.dataclass(frozen=True)
class Pending:
    value: np.ndarray
    seen: list


def test_a_loop_rebuilding_a_frozen_dataclass_holding_a_list_suggests_a_namedtuple():
    def loop(x, tol):
        r = Pending(x, [])
        while r.value.sum() < tol:
            r = Pending(r.value * 2, r.seen)
        return r.value
    err = raises_at(loop, (np.ones(2), 50.0), tpucc.SideEffectError,
                    line_of="while r.value.sum() < tol")
    assert "namedtuple" in err.hint and "rebind its attributes" not in err.hint


class Counted:
    """Counts the stores into `x` with its own __setattr__."""
    def __init__(self, x):
        self.stores = 0
        self.x = x

    def __setattr__(self, name, value):
        if name == "x":
            object.__setattr__(self, "stores", self.stores + 1)
        super().__setattr__(name, value)


def test_a_class_with_its_own_setattr_runs_it():
    def f(x):
        c = Counted(x)
        c.x = c.x * 2
        setattr(c, "x", c.x + 1)
        return c.x, c.stores
    check(f, np.ones(2))


def nested_while(x):
    k = 0
    while k < 20:
        for i in range(20):
            if x[i] > k:
                x[i] -= 1
        k += 1
    return x


def inner_while(x):
    for k in range(20):
        i = 0
        while i < 20:
            if x[i] > k:
                x[i] -= 1
            i += 1
    return x


@pytest.mark.parametrize("fn", [nested_while, inner_while])
def test_static_while_loops_share_the_unroll_budget_of_loops_around_them(fn):
    """400 bodies unrolled took 14-21 s to compile.  The inner loop is a
    While; once an iteration of the outer loop holds one, the rest of the
    outer loop is a While too (session 27: 3 Whiles, where 19-20 were)."""
    compiled = check(fn, np.arange(20.0))
    assert 1 <= count_hlo(hlo(compiled, np.arange(20.0)), "while") <= 4


class Slotted:
    __slots__ = ("x", "n")

    def __init__(self, x):
        self.x = x
        self.n = 0


def test_attributes_of_a_slotted_object_are_carried_and_merged():
    def relax(x, n):
        o = Slotted(x)
        for _ in range(n):
            o.x = o.x * 0.99 + 1.0
            o.n += 1
        return o.x, o.n

    def until(x, tol):
        o = Slotted(x)
        while o.x.sum() < tol:
            o.x = o.x * 2
        if o.x[0] > 10:
            o.x = -o.x
        return o.x
    compiled = check(relax, np.zeros(3), 200)
    assert count_hlo(hlo(compiled, np.zeros(3), 200), "while") == 1
    check(relax, np.zeros(3), 7, compile_kwargs={"runtime_args": ("n",)})
    check(until, np.ones(3), 50.0)
    check(until, np.ones(3), 2.0)
