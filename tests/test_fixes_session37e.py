"""Bugs from sweep 37e, fixed in session 37e: compile time that grew
exponentially with nested runtime loops, and with loops in a row that a
runtime `break` may leave under tpucc.grad."""
import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, numeric_grad, raises_at
from tpucc.infer import loops

G = np.arange(5.0)


def _nest(depth: int):
    """`for i0 in range(n): ... for i<depth-1> in range(n): s += x[i<depth-1>]`."""
    src = "def nest(x, n):\n    s = 0.0\n"
    for d in range(depth):
        src += "    " * (d + 1) + f"for i{d} in range(n):\n"
    src += "    " * (depth + 1) + f"s += x[i{depth - 1}]\n    return s\n"
    ns = {}
    exec(compile(src, f"<nest {depth}>", "exec"), ns)
    return ns["nest"]


def _body_traces(monkeypatch, fn, *args) -> int:
    """How many times tracing `fn` traced a runtime loop's body."""
    calls = []
    run_body = loops._run_body
    monkeypatch.setattr(loops, "_run_body", lambda *a, **k: calls.append(1) or run_body(*a, **k))
    tpucc.compile(fn).lower(*args)
    return len(calls)


def test_nested_runtime_loops_trace_each_body_a_bounded_number_of_times(monkeypatch):
    # Each level traced the levels inside it 3 times (an unrolled first
    # iteration thrown away, a trial to find the counter changes, one to find
    # the runtime checks' code changes): 3 ** depth traces, 9 s for depth 7.
    x, n = np.array([3., 1., 4., 1., 5., 9.]), np.int64(3)
    traces = [_body_traces(monkeypatch, _nest(d), x, n) for d in (3, 6)]
    # Quadratic at most, not 3 ** 3 = 27x: 9 and 27 traces.  (s = 0.0 is a
    # Python float merged with NumPy floats: the loop learns that it holds
    # one from its entry, in the trial that promotes it, not a trial later.)
    assert traces[1] <= 4 * traces[0], traces
    for d in (1, 4):
        check(_nest(d), x, n)


def test_nested_runtime_loops_still_check_indices():
    def f(x, n):
        s = 0.0
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    s += x[i + j + k]       # <- here
        return s
    x = np.arange(6.0)
    check(f, x, np.int64(2))
    raises_at(f, (x, np.int64(3)), tpucc.RuntimeIndexError, line_of="<- here")


def test_nested_runtime_loops_update_a_global_array():
    def f(x, n):
        s = 0.0
        for i in range(n):
            for j in range(n):
                G[j] += x[i]
                s += G[j]
        return s
    G[:] = np.arange(5.0)
    expected, g_after = f(np.arange(4.0), 4), G.copy()
    G[:] = np.arange(5.0)
    assert tpucc.compile(f)(np.arange(4.0), np.int64(4)) == expected
    np.testing.assert_array_equal(G, g_after)


CFG = [1.5, 0.5, 2.0, 1.1, 0.9, 1.3, 0.7, 1.2]


def _loops_with_break(count: int):
    """`count` short static loops in a row, each left early by a runtime break."""
    src = "def f(x):\n    s = x * 1.0\n"
    for k in range(count):
        src += (f"    for k in range(8):\n        s = s * CFG[k] + 0.1\n"
                f"        if s.sum() > {3 + 20 * k}:\n            break\n")
    src += "    return (s * s).sum()\n"
    ns = {"CFG": CFG}
    exec(compile(src, f"<loops {count}>", "exec"), ns)
    return ns["f"]


def test_grad_of_loops_in_a_row_left_by_break_grows_linearly():
    # Under grad each loop is unrolled with guards; the code after it ran once
    # per way out of it (its `break` and its end), so each later loop was
    # compiled twice as often: 26 -> 78 -> 182 conditionals for 1..3 loops.
    x = np.array([0.1, 0.2, 0.3])
    conds = []
    for count in (1, 3):
        f = _loops_with_break(count)
        conds.append(count_hlo(tpucc.grad(f).lower(x).as_text(), "conditional"))
        for v in (x, x * 0.01, x * 10):
            np.testing.assert_allclose(tpucc.grad(f)(v), numeric_grad(f, v), rtol=1e-5)
    assert conds[1] <= 3 * conds[0], conds


def test_grad_code_after_loop_still_runs_per_way_out_when_statics_differ():
    # The paths out of the loop hold different static values (a string, a
    # shape): they cannot meet, and the code after runs once per way out.
    def tagged(x):
        s = x * 1.0
        for k in range(8):
            s = s * CFG[k] + 0.1
            if s.sum() > 3:
                tag = "early"
                break
        else:
            tag = "late"
        if tag == "early":
            return s.sum()
        return (s * s).sum()

    def shortened(x):
        s = x * 1.0
        for k in range(8):
            s = s * CFG[k] + 0.1
            if s.sum() > 3:
                s = s[:2]
                break
        return (s * s).sum()
    for f in (tagged, shortened):
        for v in (np.array([0.1, 0.2, 0.3]), np.array([0.001, 0.002, 0.003])):
            np.testing.assert_allclose(tpucc.grad(f)(v), numeric_grad(f, v), rtol=1e-5)


@pytest.mark.parametrize("x", [np.array([0.1, 0.2, 0.3]), np.array([0.001, 0.002, 0.003])])
def test_loops_in_a_row_left_by_break_forward(x):
    check(_loops_with_break(3), x)
