"""Session 43i: XLA compile time of Python-number code with runtime checks.

A chain of Python-float (or Python-int) arithmetic whose operations carry
runtime checks (ZeroDivisionError of 1.0 / v, OverflowError of math.exp or
of an int64-held Python int) took XLA quadratic time: the error code and
the results, two XLA results sharing the chain, split it into one fusion
per division, each recomputing the running value from the start (100
divisions: 15 s).  The scalars a checking region passes on are now packed
into one array (tpucc/lower/together.py): one fusion.  Results, dtypes and
the checks' errors stay as eager Python's.
"""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import tpucc
from conftest import raises_at


def _chain(x):
    a = float(x[0])
    for i in range(30):
        a = a * 0.5 + 1.0 / (a + 2.0)
    return a


def _fusions(fn, *args) -> int:
    """The number of fusions in XLA's optimized module of fn."""
    lowered = tpucc.compile(fn, cache=False, unroll=1000).lower(*args)
    text = lowered.jax_lowered.compile().as_text()
    return text.count(" fusion(")


def test_division_chain_is_a_few_fusions():
    # (was 31 fusions, the k-th recomputing a from the k-1 divisions before it)
    assert _fusions(_chain, np.ones(3)) < 12


@pytest.mark.parametrize("x0", [1.0, 0.0, -1.5, 1e300, np.nan])
def test_division_chain_values(x0):
    x = np.array([x0, 2.0, 3.0])
    got = tpucc.compile(_chain, cache=False, unroll=1000)(x)
    want = _chain(x)
    assert type(got) is float
    assert got == want or (math.isnan(got) and math.isnan(want))


def test_division_chain_still_raises_zero_division():
    raises_at(_chain, (np.array([-2.0, 0.0, 0.0]),), error=ZeroDivisionError,
              match="division by zero", line_of="1.0 / (a + 2.0)", cache=False, unroll=1000)


def _mixed(x):
    """Scalars of several types leave the same checked chain."""
    a = float(x[0])
    n = int(x[1])
    for i in range(8):
        a = a + 1.0 / (a + 3.0)
        n = n * 3 + 1
    return a, n, a > 1.0, np.float32(a), n // 7, np.int8(n % 100)


@pytest.mark.parametrize("x", [[1.0, 2.0], [-0.5, -7.0], [2.5, 0.0]])
def test_mixed_scalar_results(x):
    x = np.array(x)
    got = tpucc.compile(_mixed, cache=False)(x)
    want = _mixed(x)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w), (g, w)
        assert g == w, (g, w)


def _float_bits(x):
    """A NaN with a payload, and -0.0, come back bit for bit."""
    a = float(x[0])
    b = 1.0 / (a + 1.0)
    return x[1] * 1.0, -0.0 * a, b


def test_packed_floats_keep_their_bits():
    payload = np.array([0x7FF8000000000123], np.uint64).view(np.float64)[0]
    x = np.array([2.0, payload])
    got = tpucc.compile(_float_bits, cache=False)(x)
    want = _float_bits(x)
    for g, w in zip(got, want):
        assert np.asarray(g).tobytes() == np.asarray(w).tobytes()
        assert np.asarray(g).dtype == np.asarray(w).dtype


def _int_overflow(a):
    s = 0
    i = 0
    while i < a.size:
        c = int(a[i])
        s = s * 3 + c
        s = s * 1000003 + 7
        s = s % 1000
        i += 1
    return s, i


@pytest.mark.parametrize("a", [np.array([1, 5, 7]), np.array([0]), np.array([], np.int64)])
def test_python_int_loop_values(a):
    got = tpucc.compile(_int_overflow, cache=False)(a)
    assert got == _int_overflow(a)
    assert all(type(g) is int for g in got)


def _int_too_big(a):
    s = int(a[0])
    for i in range(4):
        s = s * 1003 + 1
    return s, float(a[1]) / 2.0


def test_python_int_overflow_still_raises():
    a = np.array([2 ** 40, 3])
    raises_at(_int_too_big, (a,), error=OverflowError, line_of="s * 1003 + 1", cache=False)
    ok = np.array([5, 3])
    assert tpucc.compile(_int_too_big, cache=False)(ok) == _int_too_big(ok)


def _exp_chain(x):
    v = float(x[0])
    total = 0.0
    for i in range(10):
        total += math.exp(v * i)
    return total, v


def test_math_exp_overflow_values_and_error():
    f = tpucc.compile(_exp_chain, cache=False)
    x = np.array([0.5])
    assert f(x) == _exp_chain(x)
    raises_at(_exp_chain, (np.array([100.0]),), error=OverflowError,
              line_of="math.exp", cache=False)


def _grad_loss(w):
    a = float(w[0])
    return w[1] * (1.0 / (a + 2.0))


def test_differentiated_checked_chain_is_not_packed():
    g = tpucc.compile(tpucc.grad(_grad_loss), cache=False)
    w = np.array([1.0, 3.0])
    np.testing.assert_allclose(g(w), [-3.0 / 9.0, 1.0 / 3.0])


# Long straight-line checked code is also cut into stretches of
# CHECKS_PER_FUSION checks (XLA's code generation is superlinear in a
# fusion's size): the values live across each cut must come back exact.

_LONG_BODY = "".join(f"        s = s * 3 + c + {k}\n        s = s % 1000\n" for k in range(60))
_LONG_SRC = (f"def long_int_loop(a):\n    s = 0\n    t = 0.5\n    i = 0\n"
             f"    while i < a.size:\n        c = int(a[i])\n{_LONG_BODY}"
             f"        t = t + 1.0 / (s + 1.0)\n        i += 1\n    return s, t, i\n")


def _long_int_loop():
    ns = {}
    exec(compile(_LONG_SRC, __file__ + "::long_int_loop", "exec"), ns)
    return ns["long_int_loop"]


@pytest.mark.parametrize("a", [np.array([1, 5, 7]), np.array([-4]), np.array([], np.int64)])
def test_long_checked_loop_body_values(a):
    fn = _long_int_loop()
    got = tpucc.compile(fn, cache=False)(a)
    want = fn(a)
    assert got == want and [type(g) for g in got] == [type(w) for w in want]


def _long_chain_then_store(x):
    a = float(x[0])
    n = int(x[1])
    for i in range(120):
        a = a * 0.5 + 1.0 / (a + 2.0)
        n = n + 1
    out = np.zeros(2, np.int8)
    out[0] = n
    return a, out


def test_message_value_after_many_checks():
    f = tpucc.compile(_long_chain_then_store, cache=False, unroll=1000)
    x = np.array([1.0, 0.0])
    a, out = f(x)
    want_a, want_out = _long_chain_then_store(x)
    assert a == want_a and out.dtype == want_out.dtype and (out == want_out).all()
    # (the same program, values only: the error raised by the run of f's executable)
    with pytest.raises(OverflowError, match="Python integer 320 out of bounds for int8") as info:
        f(np.array([1.0, 200.0]))
    lines, start = inspect.getsourcelines(_long_chain_then_store)
    assert info.value.loc.line == start + [i for i, l in enumerate(lines) if "out[0] = n" in l][0]
    assert info.value.loc.file.endswith(".py")


def test_long_division_chain_compiles_in_bounded_fusions():
    def chain(x):
        a = float(x[0])
        for i in range(200):
            a = a * 0.5 + 1.0 / (a + 2.0)
        return a
    # (one XLA compile: the executable whose fusions are counted is the one run)
    compiled = tpucc.compile(chain, cache=False, unroll=1000).lower(np.ones(3)).compile()
    assert compiled.as_text().count(" fusion(") < 60   # (was ~200, of 200 * 100 ops on average)
    assert compiled(np.ones(3)) == chain(np.ones(3))
