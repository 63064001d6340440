"""Session 49G: builtin sum() of runtime Python floats follows the running
Python's rule (tpucc/infer/float_sums.py).

Since Python 3.12, sum() adds Python floats with Neumaier's compensation
(sum([1e16, 1.0, -1e16]) is 1.0, ten 0.1s are 1.0); compiled code added
them left to right, as 3.11 does, so under 3.12 and 3.13 it gave 0.0 and
0.9999999999999999.  Fixed on every path that sums Python floats: sum()
item by item, its scan over the rows a counted loop filled, sum(arr.tolist()),
and a generator folded into sum() under a runtime loop; with CPython's
phases (ints added in the int phase, an int item in the float phase added
without compensation, an np.float64 item ending it with the compensation
added first, the compensation added only where nonzero and finite); a value
that is a Python int on some runtime paths and a float on others is added as
the path taken says; one that is a Python float on some paths and a NumPy
float on others, among floats, is refused (compensated or not would be
chosen at run time).

Each test runs under both rules: the running Python's (compared with eager
Python, exactly: == of the floats, as assert_same's tolerance would hide a
compensation) and the 3.12 rule forced (compared with `sum312`, CPython
3.12's algorithm written in Python).  Under Python 3.11 the first guards
the left-to-right rule; under 3.12 it compares with the real eager sum().
"""
from __future__ import annotations

import builtins
import copy
import enum
import math

import numpy as np
import pytest

import tpucc
from tpucc.infer import float_sums
from conftest import count_hlo, hlo, raises_at

INF, NAN = float("inf"), float("nan")
INPUTS = [np.array(v) for v in ([1e16, 1.0, -1e16, 0.1], [0.1, 0.2, 0.3, 0.4],
                                [1e308, 1e308, -1e308, 1.0], [INF, 1.0, -2.0, 3.0],
                                [-0.0, -0.0, -0.0, -0.0], [NAN, 1.0, 2.0, 3.0],
                                [-1.0, -2.5, 1e-17, 1e16])]


def sum312(items, start=0):
    """CPython 3.12's builtin sum() (Python/bltinmodule.c, builtin_sum_impl)."""
    def fits(v):
        return -2 ** 63 <= v < 2 ** 63
    it, result = iter(items), start
    if type(result) is int and fits(result):
        for item in it:                                 # the int phase
            result = result + item
            if not (type(item) in (int, bool) and fits(result)):
                break
        else:
            return result
    if type(result) is float:
        f, c = result, 0.0
        for item in it:                                 # the float phase
            if type(item) is float:
                t = f + item
                c += (f - t) + item if abs(f) >= abs(item) else (item - t) + f
                f = t
            elif isinstance(item, int) and fits(item):
                f += float(item)
            else:
                result = (f + c if c and math.isfinite(c) else f) + item
                break
        else:
            return f + c if c and math.isfinite(c) else f
    for item in it:
        result = result + item
    return result


@pytest.fixture(params=["running", "3.12"])
def rule(request, monkeypatch):
    """The sum() rule compiled code follows, and eager's sum() under it."""
    if request.param == "3.12":
        monkeypatch.setattr(float_sums, "COMPENSATED", True)
        return sum312
    return builtins.sum


def exactly(expected, actual):
    """Same types, same values bit for bit (-0.0 is not 0.0; NaN is NaN)."""
    assert type(expected) is type(actual), (expected, actual)
    if isinstance(expected, tuple):
        assert len(expected) == len(actual)
        for e, a in zip(expected, actual):
            exactly(e, a)
    else:
        assert repr(expected) == repr(actual), (expected, actual)


def same_exactly(rule, fn, *arg_tuples):
    """fn compiled once and eager (its builtin sum() the rule's) on each
    argument tuple: exactly the same results."""
    compiled = tpucc.compile(fn, cache=False)
    for args in arg_tuples:
        real = builtins.sum
        builtins.sum = rule
        try:
            with np.errstate(all="ignore"):
                expected = fn(*copy.deepcopy(args))
        finally:
            builtins.sum = real
        exactly(expected, compiled(*copy.deepcopy(args)))
    return compiled


class Level(enum.IntEnum):
    HIGH = 3


class Money:
    def __init__(self, v):
        self.v = v

    def __radd__(self, other):
        return other + self.v


def test_sum_item_by_item(rule):
    def f(x):
        a, b, c, d = float(x[0]), float(x[1]), float(x[2]), float(x[3])
        return (sum([a, b, c, d]), sum([b, c, d], a), sum((a, b, c), 0.5),
                sum([a, b, 3, True, Level.HIGH, c]),          # ints: added, not compensated
                sum([a, b, np.float64(c), d]),               # np.float64: the phase ends
                sum([Money(a), b, c, d]),                    # a float from __radd__: compensated
                sum([complex(a + 0.5, 1.0), b, c]), sum({"p": a, "q": b, "r": c}.values()),
                sum([0.1] * 10), sum([1e16, 1.0, -1e16]))    # static: folded as the rule adds
    same_exactly(rule, f, *[(x,) for x in INPUTS])


def test_sum_of_a_counted_loops_rows(rule):
    def f(x):
        halves, flags = [], []
        for i in range(40):
            halves.append(float(x[i % 4]) * 0.5)
            flags.append(int(x[i % 4] > 0))
        return sum(halves), sum(halves, 0.25), sum(flags, 0.1)
    same_exactly(rule, f, *[(x,) for x in INPUTS])


def test_sum_of_tolist(rule):
    def f(x):
        return sum(x.tolist()), sum(x.tolist(), 0.0), sum(np.tile(x, 10).tolist(), 1.5)
    same_exactly(rule, f, *[(x,) for x in INPUTS])


def test_sum_of_a_generator_over_a_runtime_range(rule):
    def f(x, n):
        return sum(float(x[i % 4]) for i in range(int(n)))     # 0, an int, where n is 0
    compiled = same_exactly(rule, f, *[(x, np.int64(n)) for x in INPUTS for n in (0, 3, 9)])
    assert count_hlo(hlo(compiled, INPUTS[0], np.int64(3)), "while") >= 1


def test_sum_of_ints_then_floats_by_a_runtime_if(rule):
    """An item that is a Python int on some runtime paths and a float on
    others: the float that ends the int phase there is not compensated."""
    def from_generator(x, n):
        return sum((i if i < 2 else float(x[i % 4])) for i in range(int(n)))

    def best_first(x):
        best = 0
        for v in x:
            if float(v) > best:
                best = float(v)
        return sum([best, float(x[0]), float(x[1]), float(x[2])])
    same_exactly(rule, from_generator, *[(x, np.int64(n)) for x in INPUTS for n in (0, 2, 9)])
    same_exactly(rule, best_first, *[(x,) for x in INPUTS + [-abs(INPUTS[1])]])


def test_sum_of_floats_and_a_numpy_or_python_float(rule):
    def f(x):
        t = 1.0
        if x[0] > 0.05:
            t = x[1]            # np.float64 here, a Python float on the other path
        return sum([t, float(x[2]), float(x[3])])
    if rule is sum312 or float_sums.COMPENSATED:
        raises_at(f, (INPUTS[1],), match=r"sum\(\) of a float after an item that is a Python "
                  "number on some runtime paths and a NumPy one", line_of="return sum(",
                  cache=False)
    else:
        same_exactly(rule, f, *[(x,) for x in INPUTS])
