"""Bugs from session 36's sweeps (36b, 36e, 36g), fixed in session 36: each
program now gives eager NumPy's result, or an error that says what is wrong
and what to do."""
import warnings

import numpy as np

import tpucc
from tpucc import nn
from conftest import check, count_hlo, hlo, raises_at


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


def test_value_that_may_be_a_row_of_the_updated_array_is_stored_as_numpy_stores_it():
    # (refused with a hint to copy it until session 46: the chosen value goes
    # straight into the store, so nothing holds the row afterwards)
    S, xe = np.arange(6.0).reshape(3, 2), np.ones(2)
    for f in (np.array([0.9, 0.1]), np.array([0.9, 0.9])):
        check(_replace_last_row, S, f, xe)
        check(_replace_last_row_copied, S, f, xe)


# --- a Python bool scalar index: a new axis of length 1 or 0 -----------------------------

def _bool_scalar_indices(a, b):
    a[True] = 5
    b[:, False] = 7.0
    b[..., True] = b[..., True] * 2
    return a[None, True], a[..., False], a[:, None, False], a[True, ..., None], b[True, :, 1:]


def _bool_beside_an_int(b):
    return b[0, True]


def test_python_bool_scalar_index_adds_an_axis_as_numpy():
    check(_bool_scalar_indices, np.arange(3.0), np.arange(6.0).reshape(2, 3))
    err = raises_at(_bool_beside_an_int, (np.ones((2, 3)),), match="E100",
                    line_of="b[0, True]")
    assert "x[0][None]" in err.hint


# --- a constant that overflows its float dtype: no warning from inside jax ------------------

def _stores_overflowing_float(a):
    b = a.astype(np.float32)
    b[1] = 1e40
    return b


def test_overflowing_float_constant_warns_nowhere_inside_jax():
    with np.errstate(over="ignore"):
        want = _stores_overflowing_float(np.arange(3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = tpucc.compile(_stores_overflowing_float)(np.arange(3))
    assert not [w for w in caught if "jax" in w.filename], [str(w.filename) for w in caught]
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


# --- an append to a list passed as an argument: refused, with advice that works ----------

def _descent_logging_into_argument(x, lr, log):
    for k in range(3):
        x = x - lr * 2 * x
        log.append(float(x.sum()))
    return x


def _descent_returning_its_log(x, lr):
    log = []
    for k in range(3):
        x = x - lr * 2 * x
        log.append(float(x.sum()))
    return x, log


def test_append_to_a_list_argument_hints_at_returning_the_values():
    err = raises_at(_descent_logging_into_argument, (np.ones(2), 0.1, []), match="E500",
                    line_of="log.append")
    assert "log.extend(h)" in err.hint
    check(_descent_returning_its_log, np.ones(2), 0.1)


# --- out[i, m] = v with a loop counter i and a runtime mask: one While --------------------

def _masked_rows(x):
    out = np.full(x.shape, -1)
    for i in range(x.shape[0]):
        m = x[i] > 0.5
        out[i, m] = i
        out[i, m] += x[i, m].sum() > 1
    return out


def test_counter_then_mask_index_in_a_long_loop_is_one_while():
    x = np.random.RandomState(1).rand(40, 5)
    cf = check(_masked_rows, x)
    assert count_hlo(hlo(cf, x), "while") == 1
