"""Session 49 D, physical units and simulations with value classes:

- a state object made anew each iteration of a runtime `while` (`s =
  s.step(dt)` until a projectile lands, `p = p + v * dt` of a Vec2 class)
  was refused ("this runtime loop changes the static value `s`"): it is
  carried attribute by attribute where the function made the object before
  the loop and nothing else holds it (a loop that runs no iteration then
  leaves a copy no one can tell from it); one another name holds stays
  refused;
- max()/min() of objects whose own __lt__ compares runtime values
  (`max(Quantity(a), Quantity(b))`) was refused: the comparisons run at run
  time and the best object is picked there, as a record;
- a static dict, tuple or list indexed by a value chosen at run time among
  static objects (`FACTOR[unit]` after `unit = "km" if x > 1e3 else "m"`)
  was refused: each object's item is picked at run time (a missing key's
  KeyError raised where it is the one picked);
- a list holding a value chosen at run time (`rows.append("fast" if v > 10
  else "slow")`) was rebuilt as a copy by the next runtime `if` whose stack
  held it (the next such append): the copy got the append and the list
  the program returned lost it (a wrong result), or later appends were
  refused; a choice rebuilt around its very position is that choice again;
- `hist.count("rise")`, `"rise" in hist` and `hist.index("fall")` of a list
  holding such choices compared the stand-ins natively and found none (0,
  False, a ValueError eager Python does not raise): each item is compared
  at run time; `.remove()` and `.sort()` of such a list are refused;
  `lst.extend([choice, ...])`, list() and tuple() of such a list, which
  take its items as they are, were refused as "needs the object itself";
- the program's own exception class (`class EnergyDrift(ValueError):
  pass`) raised under a runtime condition was refused (E100); it is a
  check made when the call returns, as a built-in one is, whose error is
  an instance of the program's class (`except EnergyDrift` catches it); an
  artifact (tpucc build) refuses it, its loader could not rebuild it;
- storing into a defaultdict read its item with dict's own __getitem__,
  which ran __missing__ natively: `d["a"] = v` under a runtime `if` left
  `d["a"]` holding the default on the path that never stored it (a wrong
  result, now refused as a plain dict's is), and `log["k"].append(v)` in a
  long loop was refused as "a list from outside it".
"""
from collections import defaultdict
from dataclasses import dataclass
from enum import Enum
from functools import total_ordering

import numpy as np
import pytest
import tpucc

from conftest import (build_model_source, count_hlo, hlo, raises_at, same_each,
                      same_with_objects)


# --- value objects carried by a runtime `while` ------------------------------------------

@dataclass
class State:
    x: float
    v: float
    t: float = 0.0

    def step(self, dt):
        return State(self.x + self.v * dt, self.v - self.x * dt, self.t + dt)


def until_crossing(x0):
    s = State(x0, 0.0)
    while s.x > 0:
        s = s.step(0.1)
    return s.t, s.x


class Vec2:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, o):
        return Vec2(self.x + o.x, self.y + o.y)

    def __mul__(self, k):
        return Vec2(self.x * k, self.y * k)


def flight(speed, dt):
    pos, vel = Vec2(0.0, 0.0), Vec2(speed * 0.6, speed * 0.8)
    steps = 0
    while pos.y >= 0.0:
        vel = vel + Vec2(0.0, -9.81) * dt
        pos = pos + vel * dt
        steps += 1
    return pos, steps


def kept_by_another_name(x0):
    s = State(x0, 0.0)
    first = s
    while s.x > 0:
        s = s.step(0.1)
    return first is s, s.x


def test_state_object_made_anew_in_a_runtime_while_is_carried():
    f = same_each(until_crossing, (np.float64(1.0),), (np.float64(-1.0),))
    assert count_hlo(hlo(f, np.float64(1.0)), "while") == 1
    # one another name holds stays refused: with no iteration `first is s`
    # holds, which a copy would deny
    raises_at(kept_by_another_name, (np.float64(-1.0),), match="changes the static value `s`",
              line_of="while s.x > 0")


def test_plain_objects_rebound_in_a_runtime_while_come_back_as_objects():
    same_with_objects(flight, np.float64(20.0), 0.01)
    same_with_objects(flight, np.float64(-1.0), 0.01)       # (no iteration)


# --- max()/min() by the objects' own comparisons --------------------------------------------

@total_ordering
@dataclass(frozen=True)
class Quantity:
    value: object
    unit: str = "m"

    def __lt__(self, other):
        if other.unit != self.unit:
            raise TypeError(f"cannot compare {self.unit} with {other.unit}")
        return self.value < other.value


def longest(xs):
    qs = [Quantity(x) for x in xs]
    a, b = Quantity(xs[0] * 2), Quantity(xs[1])
    return max(qs).value, min(qs).value, max(a, b), min(qs).unit


def test_max_min_of_objects_compared_at_run_time():
    same_each(longest, (np.array([1.0, 3.0, 2.0]),), (np.array([5.0, 3.0, 9.0]),))


# --- a static table indexed by a runtime choice ---------------------------------------------

FACTOR = {"m": 1.0, "km": 1000.0, "mi": 1609.344}
NAME = {"m": "metre", "km": "kilometre"}


def readable(x):
    unit = "km" if x > 1000 else "m"
    return x / FACTOR[unit], unit, NAME[unit], ("short", "long")[len(unit) - 1]


def unknown_unit(x):
    unit = "ft" if x > 1000 else "m"
    return x / FACTOR[unit]


def test_table_indexed_by_a_runtime_choice():
    same_each(readable, (np.float64(5000.0),), (np.float64(5.0),))
    same_each(unknown_unit, (np.float64(5.0),))
    with pytest.raises(KeyError):
        tpucc.compile(unknown_unit, cache=False)(np.float64(5000.0))


# --- lists holding runtime choices ----------------------------------------------------------

class Speed(Enum):
    SLOW = 1
    FAST = 2


def labelled(ms, vs):
    rows, kinds = [], {}
    for m, v in zip(ms, vs):
        rows.append((m, "fast" if v > 10 else "slow"))
        kinds[m] = Speed.FAST if v > 10 else Speed.SLOW
    return rows, kinds


def test_lists_and_dicts_holding_runtime_choices_keep_every_item():
    # (the second row was lost; three rows were refused)
    same_each(labelled, ([1.0, 2.0, 3.0], [np.float64(5.0), np.float64(15.0), np.float64(25.0)]),
              ([1.0, 2.0, 3.0], [np.float64(50.0), np.float64(1.0), np.float64(2.0)]))


def trend(xs):
    hist = []
    for i in range(3):
        hist.append("rise" if xs[i + 1] > xs[i] else "fall")
    first_fall = hist.index("fall") if "fall" in hist else -1
    hist.extend(["end" if xs[0] > 0 else "none", "!"])
    return (hist.count("rise"), "rise" in hist, first_fall, ("fall", "rise").count(hist[0]),
            tuple(hist), list(hist))


def drop_rises(xs):
    hist = ["rise" if xs[1] > xs[0] else "fall", "fall"]
    hist.remove("rise")
    return hist


def test_searching_a_list_of_runtime_choices():
    same_each(trend, (np.array([1.0, 2.0, 1.5, 3.0]),), (np.array([4.0, 3.0, 2.0, 1.0]),),
              (np.array([1.0, 2.0, 3.0, 4.0]),))
    raises_at(drop_rises, (np.array([1.0, 2.0]),), match=r"`\.remove\(\)` of a list holding it",
              line_of='hist.remove("rise")')


# --- defaultdict items ---------------------------------------------------------------------

def logged(x, n):
    log = defaultdict(list)
    for i in range(n):
        log["len"].append(x[0] * i)
    return np.array(log["len"])


def stored_under_if(x):
    d = defaultdict(float)
    if x > 0:
        d["a"] = x * 1.0
    return dict(d)


def test_defaultdict_list_appended_in_a_long_loop():
    same_each(logged, (np.arange(3.0), 50))


def test_defaultdict_store_under_runtime_if_is_not_a_wrong_default():
    # (it returned {'a': 0.0} for x = -1, where Python's dict is empty)
    raises_at(stored_under_if, (np.float64(-1.0),), match="mutating a container",
              line_of='d["a"] = x')


# --- the program's own exception class under a runtime condition ----------------------------

class EnergyDrift(ValueError):
    pass


def checked_orbit(x0, steps):
    x, v = x0, 0.0
    for _ in range(steps):
        v -= x * 0.1
        x += v * 0.1
    drift = abs(0.5 * (x * x + v * v) - 0.5 * x0 * x0) / (0.5 * x0 * x0)
    if drift > 0.02:
        raise EnergyDrift(f"energy drift {drift:.3f} above 0.02")
    return x, drift


def test_program_exception_class_raised_at_run_time():
    f = same_each(checked_orbit, (np.float64(1.0), 30))
    with pytest.raises(EnergyDrift) as eager:
        checked_orbit(np.float64(1.0), 60)
    with pytest.raises(EnergyDrift) as compiled:
        f(np.float64(1.0), 60)
    assert compiled.value.message == str(eager.value)


def test_program_exception_class_refused_in_an_artifact(tmp_path_factory):
    from tpucc.aot.errors import BuildError
    source = """
import numpy as np
from tpucc.aot import entry

class EnergyDrift(ValueError):
    pass

@entry("f64[3]")
def checked(x):
    if x.sum() > 1:
        raise EnergyDrift("too much")
    return x
"""
    with pytest.raises(BuildError, match="the program's own exception class"):
        build_model_source(tmp_path_factory, "drift_model", source)
