"""tpucc.grad through static loops that a runtime `break`, `continue` or
`return` may leave.

bug_05: a `for i in range(N)` loop with a runtime `break` was unrolled under
the previous iterations' exits, each copy nested in the one before: the
reverse pass grew quadratically with N (32 iterations: 10 s to compile, 80:
two minutes), past the unroll budget it was refused (E350), and with the
`unroll=` that E350 asked for it crashed (E999 RecursionError).  It is now one
counted While (a scan) whose steps run the body only while the loop goes on.

bug_11: the same loop written `while i < N:` with a Python counter was
refused (E350, "known only at run time"), and so was one whose runtime
`continue` jumped back to the loop's first test.
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import assert_same, count_hlo, numeric_grad, raises_at


def check_grad(loss, *args, atol=1e-6, **compile_kwargs):
    """tpucc.grad of loss (w.r.t. its first argument), compiled, against
    central differences of eager loss; the value too, by value_and_grad."""
    f = tpucc.compile(lambda *a: tpucc.value_and_grad(loss)(*a), cache=False,
                      **compile_kwargs)
    _check_grad_with(f, loss, args, atol)
    return f


def check_grad_each(loss, *arg_tuples, atol=1e-6):
    """check_grad for each tuple of arguments, through ONE compiled fn
    (arguments that differ in values only share its executable)."""
    f = tpucc.compile(lambda *a: tpucc.value_and_grad(loss)(*a), cache=False)
    for args in arg_tuples:
        _check_grad_with(f, loss, args, atol)
    return f


def _check_grad_with(f, loss, args, atol):
    x, rest = args[0], args[1:]
    value, g = f(*args)
    assert_same(loss(np.array(x), *rest), value)
    expected = numeric_grad(lambda v: loss(v, *rest), x)
    assert g.dtype == np.asarray(x).dtype and g.shape == np.shape(x)
    np.testing.assert_allclose(g, expected, atol=atol, rtol=1e-5)


# --- bug_05: a range loop with a runtime `break` -----------------------------------------

def make_break_loop(n):
    def loss(a, x):
        s = x.copy()
        for i in range(n):
            s = s * a
            if np.sum(s) < 0.1:
                break
        return np.sum(s)
    return loss


A, X = np.array([0.98, 0.97]), np.array([0.5, 0.6])


@pytest.mark.parametrize("n", [3, 16, 100, 1000])
def test_a_break_loop_differentiates_without_unroll(n):
    check_grad(make_break_loop(n), A, X)


def test_a_break_loop_is_one_scan_whatever_its_length():
    # (past the unroll budget: within it, unrolled with guards, the code
    # after the loop runs once per way out, tests/test_fixes_session37e.py)
    sizes = []
    for n in (40, 160):
        loss = make_break_loop(n)
        text = tpucc.compile(lambda a, x: tpucc.grad(loss)(a, x), cache=False) \
            .lower(A, X).as_text()
        assert count_hlo(text, "while") >= 1
        sizes.append(len(text))
    assert sizes[1] < 1.2 * sizes[0]        # (was 123K and 1.3M characters)


def test_the_unroll_the_old_refusal_asked_for_works():
    # (unroll=100: an E999 RecursionError before)
    check_grad(make_break_loop(100), A, X, unroll=100)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_break_loops_in_both_float_dtypes(dtype):
    def loss(w, x):
        for j in range(40):
            x = x * w + 0.01 * j
            if x.sum() > 10:
                break
        return (x ** 2).sum()
    w = np.array([1.05, 0.9, 1.2], dtype)
    x = np.linspace(1, 2, 3).astype(dtype)
    f = tpucc.compile(lambda w, x: tpucc.grad(loss)(w, x), cache=False)
    g = f(w, x)
    assert g.dtype == dtype
    expected = numeric_grad(lambda v: loss(v, x.astype(np.float64)), w.astype(np.float64))
    np.testing.assert_allclose(g, expected, rtol=1e-3 if dtype == np.float32 else 1e-6)


def test_a_break_before_the_update_and_one_that_never_comes():
    def loss(w, limit):
        s = w * 1.0
        for _ in range(50):
            if np.max(s) > limit:
                break
            s = s * 1.1 + w
        return np.sum(s * s)
    w = np.array([0.3, 0.2])
    check_grad(loss, w, 5.0)        # leaves after a few iterations
    check_grad(loss, w, 1e9)        # runs them all
    check_grad(loss, w, -1.0)       # leaves before the first update


def test_a_runtime_return_inside_a_range_loop():
    def loss(w):
        s = w.copy()
        for i in range(60):
            s = np.sin(s) + w * 0.5
            if s.sum() > 3:
                return (s ** 2).sum() + i
        return s.sum()
    check_grad_each(loss, (np.array([0.7, 0.9, 0.4]),), (np.array([0.1, -0.2, 0.05]),))


def test_the_counter_after_the_break_is_its_last_value():
    def loss(w):
        s = w.copy()
        for k in range(45):
            s = s * 1.2
            if s.sum() > 4:
                break
        return s.sum() * k
    check_grad(loss, np.array([0.5, 0.25]))


def test_a_break_loop_inside_another_loop():
    def loss(w):
        s = w * 1.0
        for _ in range(3):
            for j in range(40):
                s = s * 0.9 + w * 0.05 * j
                if s.sum() > 2:
                    break
            s = s * 0.5
        return (s ** 2).sum()
    check_grad(loss, np.linspace(0.1, 0.6, 4))


def test_has_aux_beside_a_break_loop():
    def loss(w):
        s, steps = w.copy(), 0
        for _ in range(70):
            s = s * 1.1
            steps += 1
            if s.max() > 2:
                break
        return s.sum(), steps
    g, steps = tpucc.compile(lambda w: tpucc.grad(loss, has_aux=True)(w), cache=False)(
        np.array([0.5, 1.0]))
    np.testing.assert_allclose(g, numeric_grad(lambda v: loss(v)[0], np.array([0.5, 1.0])))
    assert int(steps) == loss(np.array([0.5, 1.0]))[1]


def test_the_forward_alone_is_unchanged():
    loss = make_break_loop(100)
    f = tpucc.compile(loss, cache=False)
    assert_same(loss(A, X), f(A, X))


# --- bug_11: the same loops as `while` on a Python counter -------------------------------

B, Y = np.array([1.3, 1.1]), np.array([0.5, 0.4])


def loss_for(a, x):
    s = x.copy()
    for i in range(10):
        s = s * a
        if np.max(s) > 1.5:
            break
    return np.sum(s)


def loss_while(a, x):
    s = x.copy()
    i = 0
    while i < 10:
        s = s * a
        i += 1
        if np.max(s) > 1.5:
            break
    return np.sum(s)


def test_while_with_a_runtime_break_matches_the_for_loop():
    g_for = check_grad(loss_for, B, Y)(B, Y)[1]
    g_while = check_grad(loss_while, B, Y)(B, Y)[1]
    np.testing.assert_allclose(g_while, g_for)


@pytest.mark.parametrize("n", [6, 50])
def test_while_with_a_runtime_continue(n):
    def loss(a, x):
        s = x.copy()
        i = 0
        while i < n:
            i += 1
            if np.max(s) > 1.0:
                continue
            s = s * a
        return np.sum(s) + i
    check_grad(loss, B, Y)


def test_while_with_a_runtime_return():
    def loss(a, x):
        s = x.copy()
        i = 0
        while i < 40:
            s = s * a
            if np.max(s) > 2.0:
                return np.sum(s) * 2
            i += 2
        return np.sum(s)
    check_grad_each(loss, (B, Y),
                    (np.array([0.9, 0.8]), Y))      # never returns early


def test_while_counting_down_in_float32():
    def loss(a, x):
        s = x.copy()
        k = 30
        while k > 0:
            s = s * a
            k -= 3
            if s.sum() > np.float32(3):
                break
        return (s * s).sum()
    a, x = B.astype(np.float32), Y.astype(np.float32)
    g = tpucc.compile(lambda a, x: tpucc.grad(loss)(a, x), cache=False)(a, x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, numeric_grad(lambda v: loss(v, Y), B), rtol=1e-4)


def test_while_on_a_counter_past_the_unroll_budget():
    def loss(a, x):
        s = x.copy()
        i = 0
        while i < 300:
            s = s * a
            i += 1
            if np.max(s) > 50:
                break
        return np.sum(s)
    check_grad(loss, np.array([1.01, 1.02]), Y)


def test_a_while_continue_loop_compiles_eagerly_equal_without_grad():
    def f(x):
        i, total = 0, 0.0
        while i < 7:
            i += 1
            if x[i % 3] > 0:
                continue
            total = total + x[i % 3] * i
        return total, i
    f_c = tpucc.compile(f, cache=False)
    for x in (np.array([1.0, -2.0, 3.0]), np.array([-1.0, -2.0, -3.0])):
        assert_same(f(x.copy()), f_c(x.copy()))


# --- what is still refused says what to do -----------------------------------------------

def test_a_while_only_a_runtime_break_leaves_is_refused_with_a_bounded_loop_to_write():
    def loss(w):
        s = w.copy()
        while True:                         # <- here
            s = s * 1.5
            if s.sum() > 10:
                break
        return s.sum()
    err = raises_at(lambda w: tpucc.grad(loss)(w), (np.ones(2),), tpucc.GradError,
                    match="known only at run time")
    assert err.loc.line == loss.__code__.co_firstlineno + 2
    assert "for it in range(" in err.hint and "no runtime `break`" not in err.hint


def test_a_runtime_loop_on_the_parameters_is_still_refused_at_its_line():
    def loss(w):
        s = w.sum()
        while s > 1:                        # <- here
            s = s / 2
        return s
    err = raises_at(lambda w: tpucc.grad(loss)(w), (np.ones(3),), tpucc.GradError,
                    match="known only at run time")
    assert err.loc.line == loss.__code__.co_firstlineno + 2


# --- runtime loops that no derivative flows through are differentiated around -----------

W, Z = np.array([1.0, 2.0, 0.3]), np.array([3.0, 9.0, 1.0])


def halvings(w, x):
    m, k = x.max(), 0
    while m >= 1:               # on x only: w is carried along, untouched
        m = m / 2
        k += 1
    return (w * w).sum() * k


def counted_by_w(w, x):
    m, k = x.max(), 0
    while m > 0.1:
        m = m / 2
        k += (w > m).sum()      # w read for a count: no derivative
    return (w * w).sum() * k


def scaled_down(w, x):
    m = x.copy()
    while m.sum() > 1:
        m = m * 0.5
    return (w * m).sum() + w[np.argmax(w)]


@pytest.mark.parametrize("loss", [halvings, counted_by_w, scaled_down])
def test_a_runtime_loop_no_derivative_flows_through(loss):
    check_grad(loss, W, Z)


def test_a_runtime_range_over_a_runtime_argument_beside_the_parameters():
    def loss(w, x, n):
        acc = np.zeros_like(x)
        for i in range(n):
            acc = acc + x * i
        return (w * acc).sum()
    f = tpucc.compile(lambda w, x, n: tpucc.grad(loss)(w, x, n), runtime_args=("n",),
                      cache=False)
    for n in (0, 4):
        np.testing.assert_allclose(f(W, Z, n), Z * (n * (n - 1) // 2))


def test_a_break_loop_too_long_to_unroll_with_guards_is_an_E350_not_an_E999():
    def loss(x):
        for j in range(100):            # <- here
            x = x * 0.95 + 0.01 * np.arange(j + 1).sum()    # (a shape made of j)
            if x.sum() > 10:
                break
        return (x ** 2).sum()
    err = raises_at(lambda x: tpucc.grad(loss)(x), (np.linspace(-1, 1, 6),),
                    tpucc.GradError, match="at most 64", unroll=100)
    assert err.loc.line == loss.__code__.co_firstlineno + 1
    assert "unroll=" not in err.hint and "np.where" in err.hint
