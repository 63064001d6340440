"""Session 45K1 fixes (sweep 45K).

- bug_02: since session 44's held_float, a Python float merged with NumPy
  floats by nested runtime loops (`s = 0.0`, then `s += x[j]` in a nest)
  made each loop level run one more trial of its body to find that the
  carried `s` holds a Python float on some path: 9/19/34/83/164 body traces
  at depth 2/3/4/6/8 where a NumPy scalar start took 5/9/14/27/44.  A loop
  now takes the bool of each carried slot that enters it holding a Python
  number (promoted by the trial before, or merged before the loop) from its
  first trial (loops._entry_python_number_paths).
- Found with it: a slot that entered a loop holding a Python number on some
  path and that the body only read lost that bool inside the body, so
  `t = s * 2.0` there came back as np.float64 where eager gives a Python
  float, and `best + 10` of a Python int held in uint8 wrapped to 4 where
  eager gives 260 (now E910, as outside a loop).
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc.infer import loops

from conftest import raises_at, same


def _nest(depth: int, start: str, body: str = "s += x[i{last}]"):
    """`s = <start>`, then `depth` nested `for i<d> in range(n)` around `body`."""
    src = f"def nest(x, n):\n    s = {start}\n"
    for d in range(depth):
        src += "    " * (d + 1) + f"for i{d} in range(n):\n"
    src += "    " * (depth + 1) + body.format(last=depth - 1) + "\n    return s\n"
    ns = {"np": np}
    exec(compile(src, f"<nest {depth} {start}>", "exec"), ns)
    return ns["nest"]


def _same_types(fn, *args):
    """`same`, and the Python type of each result as eager's (conftest's
    assert_same takes an np.float64 for a float: it is a subclass)."""
    compiled = same(fn, *args)
    expected, actual = fn(*args), compiled(*args)
    if not isinstance(expected, tuple):
        expected, actual = (expected,), (actual,)
    assert [type(v) for v in actual] == [type(v) for v in expected], (expected, actual)


def _body_traces(monkeypatch, fn, *args) -> int:
    calls = []
    run_body = loops._run_body
    monkeypatch.setattr(loops, "_run_body", lambda *a, **k: calls.append(1) or run_body(*a, **k))
    tpucc.compile(fn, cache=False).lower(*args)
    return len(calls)


# --- bug_02: a Python number merged by nested loops costs no extra trial per level ----------

# (each start, and the same start as a NumPy scalar: no bool to carry)
STARTS = {"0.0": "x[0] * 0", "0": "x[0] * 0",
          "x[1] if x[0] > 0 else 0.0": "x[1] if x[0] > 0 else x[2]"}


@pytest.mark.parametrize("start", list(STARTS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_python_number_in_nested_loops_traces_as_a_numpy_start_does(monkeypatch, start, dtype):
    # The NumPy start takes 2/5/9/14 traces at depth 1..4; a Python number took 3/9/19/34.
    x, n = np.arange(6, dtype=dtype), np.int64(2)
    numpy_start = STARTS[start]
    for depth in (1, 2, 3, 4):
        python = _body_traces(monkeypatch, _nest(depth, start), x, n)
        numpy = _body_traces(monkeypatch, _nest(depth, numpy_start), x, n)
        assert python == numpy, (depth, python, numpy)


def test_nested_loop_trace_counts_are_back_to_before_held_float(monkeypatch):
    x, n = np.array([3., 1., 4., 1., 5., 9.]), np.int64(3)
    traces = [_body_traces(monkeypatch, _nest(d, "0.0"), x, n) for d in (2, 3, 4, 6)]
    assert traces == [5, 9, 14, 27], traces


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("start", ["0.0", "0", "1.5"])
def test_python_number_in_nested_loops_matches_eager(dtype, n, start):
    # n = 0: the loops do not run, and the caller gets the Python number
    x = np.array([3., 1., 4., 1., 5., 9.], dtype)
    for depth in (2, 3):
        _same_types(_nest(depth, start), x, np.int64(n))


@pytest.mark.parametrize("n", [0, 2])
def test_python_float_times_a_float_in_nested_loops_matches_eager(n):
    x = np.array([0.5, 2.0, 1.5], np.float32)
    _same_types(_nest(2, "1.0", "s = s * x[i{last}]"), x, np.int64(n))
    _same_types(_nest(3, "2.0", "s = max(s, x[i{last}])"), x, np.int64(n))


# --- a slot entering a loop holding a Python number keeps its bool in the body --------------

def doubled_in_loop(x, n):
    s = 1.5 if x[0] > 0 else x[1]
    t = 0.0
    for i in range(n):
        t = s * 2.0         # a Python float where s is one
    return t


def doubled_in_nest(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    t = 0.0
    for i in range(n):
        for j in range(n):
            t = t + s * 2.0
    return t, s


def read_twice(x, n):
    s = 1.5 if x[0] > 0 else x[1]
    u, t = 0.0, 0.0
    for i in range(n):
        u = s + 1.0
        for j in range(n):
            t = u * s
    return u, t


@pytest.mark.parametrize("fn", [doubled_in_loop, read_twice])
@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([-1.0, 2.0])])
@pytest.mark.parametrize("n", [0, 2])
def test_held_python_float_read_in_a_loop_matches_eager(fn, x, n):
    _same_types(fn, x, np.int64(n))


@pytest.mark.parametrize("n", [0, 1, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_python_float_from_one_loop_read_in_a_nest_matches_eager(n, dtype):
    _same_types(doubled_in_nest, np.array([1.0, 2.0, 4.0], dtype), np.int64(n))


def plus_ten_in_loop(b, n):
    best = 250 if b[0] > 1 else b[1]
    t = 0
    for i in range(n):
        t = best + 10       # <- here
    return t


def test_held_python_int_read_in_a_loop_matches_eager_or_raises_e910():
    _same_types(plus_ten_in_loop, np.array([0, 3], np.uint8), np.int64(2))    # a uint8 path
    _same_types(plus_ten_in_loop, np.array([5, 3], np.uint8), np.int64(0))    # loop not run
    # eager: 260 (a Python int); uint8 wrapped to 4 silently
    raises_at(plus_ten_in_loop, (np.array([5, 3], np.uint8), np.int64(2)), OverflowError,
              match="E910", line_of="<- here", cache=False)


def scaled_sum_in_loop(g, x, n):
    s = 1.5 if x[0] > 0 else x[1]
    total = np.float64(0.0)
    for i in range(n):
        total = total + (g * s).sum()   # <- here
    return total


def test_held_python_float_times_float32_in_a_loop_raises_e910_where_held():
    g = np.array([0.1, -2.0, 3.0], np.float32)
    same(scaled_sum_in_loop, g, np.array([-1.0, 2.0]), np.int64(2))    # np.float64 path
    same(scaled_sum_in_loop, g, np.array([1.0, 2.0]), np.int64(0))
    # eager: g * 1.5 stays float32; compiled code holds s as float64
    raises_at(scaled_sum_in_loop, (g, np.array([1.0, 2.0]), np.int64(2)), TypeError,
              match="E910", line_of="<- here", cache=False)
