"""Bugs from session 36's sweeps (36b, 36e, 36g), fixed in session 36: each
program now gives eager NumPy's result, or an error that says what is wrong
and what to do."""
import numpy as np

import tpucc
from tpucc import nn
from conftest import check, raises_at


# --- nn.conv2d with a Python complex bias: weak, as a Python float is -------------------

def test_conv2d_python_complex_bias_is_weak_eager_and_compiled():
    x, w = np.ones((1, 1, 3, 3), np.float32), np.ones((1, 1, 2, 2), np.float32)

    def f(x, w):
        return nn.conv2d(x, w, 1 + 2j)
    assert f(x, w).dtype == np.complex64           # y + (1+2j) in NumPy
    check(f, x, w)


# --- tpucc.grad called outside compiled code with a changing Python number --------------

def test_grad_of_a_changing_python_number_is_read_at_run_time(builds):
    def loss(x, s):
        return (s * x ** 2).sum()
    g = tpucc.grad(loss)
    x = np.ones(3)
    for i in range(8):
        s = 0.1 * i + 0.05
        np.testing.assert_allclose(g(x, s), 2 * s * x)
        np.testing.assert_allclose(tpucc.value_and_grad(loss)(x, s=s)[1], 2 * s * x)
    assert builds[0] <= 6           # three values each, not one program per value


# --- a runtime `if` arm starts from the state before the `if` ---------------------------

def _rebinds_in_one_nested_arm(S, a, b):
    if a > 0:
        if b > 0:
            S[-1] = 1.0
        else:
            S = S + 1               # S is a new array on this path only
    else:
        S[-1] = 2.0                 # refused: the nested merge above had watched S
    return S


def _chained_comparison_then_elif(S, F, fr):
    if F[0] <= fr < F[-2]:          # the elif's blocks are reached from two arms
        S[-1] = 1.0
    elif fr < F[0]:
        S[-1] = 2.0
    else:
        S = S + 1
    return S


def test_sibling_arm_updates_in_place_what_a_nested_merge_rebinds():
    for a, b in ((1.0, 1.0), (1.0, -1.0), (-1.0, 1.0)):
        check(_rebinds_in_one_nested_arm, np.arange(6.0).reshape(3, 2), np.float64(a),
              np.float64(b))
    for fr in (0.0, 0.2, 0.5, 2.0):
        check(_chained_comparison_then_elif, np.arange(6.0).reshape(3, 2),
              np.array([0.1, 0.3, 0.9]), np.float64(fr))


def _nelder_mead_objective(x):
    return np.sum((x - np.array([1.0, -0.5, 2.0])) ** 2 * np.array([1.0, 3.0, 0.5]))


def _nelder_mead(x0, tol, maxit):
    n = len(x0)
    S = x0 + np.vstack([np.zeros(n), 0.5 * np.eye(n)])
    F = np.array([_nelder_mead_objective(r) for r in S])
    it = 0
    while np.std(F) > tol and it < maxit:
        idx = np.argsort(F)
        S, F = S[idx], F[idx]
        c = np.mean(S[:-1], axis=0)
        worst = S[-1].copy()
        xr = 2 * c - worst
        fr = _nelder_mead_objective(xr)
        if F[0] <= fr < F[-2]:
            S[-1], F[-1] = xr, fr
        elif fr < F[0]:
            xe = 3 * c - 2 * worst
            fe = _nelder_mead_objective(xe)
            S[-1], F[-1] = (xe, fe) if fe < fr else (xr, fr)
        else:
            xc = 0.5 * (c + worst)
            fc = _nelder_mead_objective(xc)
            if fc < F[-1]:
                S[-1], F[-1] = xc, fc
            else:
                S = S[0] + 0.5 * (S - S[0])
                F = np.array([_nelder_mead_objective(r) for r in S])
        it += 1
    i = int(np.argmin(F))
    return S[i], F[i], it


def test_nelder_mead_with_in_place_row_replacement_compiles():
    check(_nelder_mead, np.zeros(3), 1e-10, 1000, atol=1e-9)


def _alias_made_in_a_nested_arm(S, a, b):
    if a > 0:
        v = S[0] if b > 0 else S[1] + 0     # a view of S on one path only
    else:
        v = S[2] + 0
    S[0] = 9.0                              # v would not follow: still refused
    return v


def test_an_alias_made_in_one_arm_is_still_refused_after_the_if():
    raises_at(_alias_made_in_a_nested_arm, (np.arange(6.0).reshape(3, 2), np.float64(1.0),
                                            np.float64(1.0)),
              match="E500", line_of="S[0] = 9.0")


# --- a value chosen on a runtime condition that may be a row of the updated array ---------

def _replace_last_row(S, f, xe):
    S = S + 0
    S[-1] = xe if f[1] > 0.5 else S[0]
    return S


def _replace_last_row_copied(S, f, xe):
    S = S + 0
    S[-1] = xe if f[1] > 0.5 else S[0].copy()       # the hint's fix
    return S


def test_value_that_may_be_a_row_of_the_updated_array_hints_at_copying_it():
    S, xe = np.arange(6.0).reshape(3, 2), np.ones(2)
    err = raises_at(_replace_last_row, (S, np.array([0.9, 0.1]), xe), match="E500",
                    line_of="S[-1] = xe if")
    assert "S[0].copy()" in err.hint
    for f in (np.array([0.9, 0.1]), np.array([0.9, 0.9])):
        check(_replace_last_row_copied, S, f, xe)
