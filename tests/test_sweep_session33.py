"""Session 33's sweep (numerical methods, simulations, algorithms): a runtime
Python int indexes as NumPy's basic indexing does (a view), and loops whose
names come to share an array, or swap the caller's array in, are refused
where the compiled loop could not follow NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc.errors import SideEffectError

from conftest import check, count_hlo, hlo


# --- a runtime Python int index is a view ------------------------------------------------

def chained(Q, i):
    Q[int(i)][0] = 5.0
    return Q


def row_alias(Q, i):
    row = Q[int(i)]
    row *= 2
    return Q


def row_sees_write(Q, i):
    k = i.item()
    row = Q[k]
    Q[k, 1] = -1.0
    return row


def argmax_row(Q):
    row = Q[int(np.argmax(Q[:, 0]))]
    row += 100.0
    return Q


def range_start(Q, s):
    acc = 0.0
    for k in range(s, Q.shape[0]):
        r = Q[k]
        Q[k, 0] = 99.0
        acc += r[0]
    return acc


def shift_rows(Q, s):
    for k in range(s, Q.shape[0]):
        Q[k] += 1.0
    return Q


@pytest.mark.parametrize("fn", [chained, row_alias, row_sees_write, range_start, shift_rows])
def test_a_runtime_python_int_index_is_a_view(fn):
    check(fn, np.arange(12.0).reshape(4, 3), np.int64(2))


def test_a_row_picked_by_argmax_is_updated_in_place():
    check(argmax_row, np.array([[1.0, 2.0], [7.0, 0.0], [3.0, 3.0]]))


def eliminate(Q):
    n = Q.shape[0]
    for j in range(n):
        for k in range(j + 1, n):
            Q[k] -= 0.01 * Q[j]
    return Q


def test_row_updates_in_a_triangular_loop_stay_two_whiles():
    Q = np.random.default_rng(0).standard_normal((40, 40))
    compiled = check(eliminate, Q, rtol=1e-12, atol=1e-12)
    assert count_hlo(hlo(compiled, Q), "while") == 2


# --- names that come to share an array inside a loop -------------------------------------

def track_best(u, steps):
    best = u.copy()
    best_val = np.inf
    for t in range(steps):
        u *= 0.9
        u += np.sin(t)
        val = np.abs(u).sum()
        if val < best_val:
            best_val = val
            best = u                # the argument itself, which later steps update
    return best, best_val


def snapshot(x, tol):
    u = x.copy()
    snap = np.zeros_like(u)
    it = 0
    while np.abs(u).max() > tol:
        u *= 0.5
        if it == 2:
            snap = u
        it += 1
    return snap, it


def joined(init, n):
    y = init.copy()
    x = np.zeros_like(y)
    for _ in range(n):
        x += 1.0
        y *= 2.0
        x = y                       # from the second iteration on, x += 1 updates y
    return y


@pytest.mark.parametrize("fn, args, name", [
    (track_best, (np.array([0.5, -1.2, 2.0]), np.int64(40)), "best"),
    (snapshot, (np.array([0.0, 3.0, -2.0]), 1e-3), "snap"),
    (joined, (np.array([1.0, 2.0, 3.0]), np.int64(5)), "x"),
])
def test_names_joined_by_the_body_are_refused_at_the_loop(fn, args, name):
    with pytest.raises(SideEffectError, match=f"`{name}`") as info:
        tpucc.compile(fn)(*args)
    assert ".copy()" in info.value.hint
    assert info.value.loc.source_line().lstrip().startswith(("for ", "while "))


@pytest.mark.parametrize("n", [5, 40])
def test_names_joined_in_a_static_loop_follow_numpy(n):
    check(joined, np.array([1.0, 2.0, 3.0]), n)


def previous_is_current(x, n):
    for _ in range(n):
        prev = x                    # (NumPy: the same array, so d is 0)
        x += 1.0
        d = np.abs(x - prev).max()
    return x, prev, d


def difference_then_join(x, n):
    prev = x.copy()
    for _ in range(n):
        d = x - prev
        prev = x
        x += 1.0
    return x, prev, d


@pytest.mark.parametrize("fn", [previous_is_current, difference_then_join])
def test_a_name_joined_before_the_update_compiles(fn):
    check(fn, np.zeros(3), np.int64(7))
    check(fn, np.zeros(3), 40)


# --- a double buffer that swaps the caller's array in ------------------------------------

def jacobi(u, tol):
    un = u.copy()
    err = tol + 1
    while err > tol:
        un[1:-1, 1:-1] = 0.25 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2])
        err = np.abs(un - u).max()
        u, un = un, u
    return u


def jacobi_copied(u, tol):
    return jacobi(u.copy(), tol)


def test_a_runtime_double_buffer_over_the_callers_array_is_refused():
    u0 = np.zeros((8, 8))
    u0[0] = 1.0
    with pytest.raises(SideEffectError, match="gives it the array of `u`") as info:
        tpucc.compile(jacobi)(u0.copy(), 1e-3)
    assert "u = u.copy()" in info.value.hint
    check(jacobi_copied, u0, 1e-3)


# --- runtime slices in counted loops stay one While --------------------------------------

def longest_increasing(x):
    L = np.ones(len(x), dtype=np.int64)
    for i in range(1, len(x)):
        L[i] = np.where(x[:i] < x[i], L[:i], 0).max() + 1
    return L.max()


def forward_substitution(L, b):
    x = np.zeros(len(b))
    for i in range(len(b)):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def pivots(A):
    n = A.shape[0]
    out = np.zeros(n, np.int64)
    for k in range(n):
        out[k] = np.argmax(np.abs(A[k:, k])) + k
    return out


def zero_below(A):
    for k in range(A.shape[0]):
        A[k + 1:, k] *= 0.5
        A[k, :k] = 0.0
        A[k, k:] -= A[k, k:].mean()
    return A


def slice_products(x, y, k):
    s, t = x[:k], y[:k]
    return (s @ t, np.dot(s, t), np.inner(s, 2 * t), np.vdot(s, t), np.dot(s, 3.0).sum(),
            np.linalg.norm(s), s.max(initial=0.5), np.sum(s, initial=2), np.prod(s, initial=3),
            np.min(t, initial=-1))


def slice_positions(x, i, j):
    return np.argmax(x[i:j]), x[i:j].argmin(), np.argmax(x[:j]), np.argmin(x[i:])


@pytest.mark.parametrize("fn, make", [
    (longest_increasing, lambda rng: (rng.integers(0, 100, 60),)),
    (forward_substitution, lambda rng: (np.tril(rng.random((50, 50))) + 3 * np.eye(50),
                                        rng.random(50))),
    (pivots, lambda rng: (rng.standard_normal((40, 40)),)),
    (zero_below, lambda rng: (rng.standard_normal((40, 40)),)),
])
def test_runtime_slices_of_a_counted_loop_keep_it_one_while(fn, make):
    args = make(np.random.default_rng(3))
    compiled = check(fn, *args, rtol=1e-12, atol=1e-12)
    assert count_hlo(hlo(compiled, *args), "while") == 1


@pytest.mark.parametrize("k", [0, 1, 4, 10])
def test_products_norms_and_initial_of_runtime_slices(k):
    rng = np.random.default_rng(k)
    check(slice_products, rng.standard_normal(10), rng.standard_normal(10), np.int64(k))
    check(slice_products, np.arange(10, dtype=np.int32) - 3, np.arange(10, dtype=np.int32),
          np.int64(k))


def test_argmax_of_runtime_slices_counts_from_the_slice():
    x = np.array([3.0, np.nan, -np.inf, 7.0, 7.0, -np.inf, 1.0])
    for i, j in [(0, 7), (2, 3), (2, 6), (3, 5), (5, 6), (0, 1)]:
        check(slice_positions, x, np.int64(i), np.int64(j))
    with pytest.raises(ValueError):
        slice_positions(x, 3, 3)
    with pytest.raises(ValueError, match="empty sequence"):
        tpucc.compile(slice_positions)(x, np.int64(3), np.int64(3))


def where_of_slices(x, i):
    return np.where(x[:i] > 0, x[:i], 0).sum(), np.clip(x[:i], -1, 1).sum()


def test_where_and_clip_of_runtime_slices():
    check(where_of_slices, np.array([1.0, -2.0, 3.0, 0.5]), np.int64(3))


def test_a_runtime_slice_of_the_wrong_use_is_named_as_a_slice():
    def returns_slice_product(x, i):
        return (x[:i] < 1) * np.ones(3)
    with pytest.raises(tpucc.errors.ShapeError, match=r"x\[i:j\]") as info:
        tpucc.compile(returns_slice_product)(np.arange(4.0), np.int64(2))
    assert "mask" not in str(info.value).split("hint")[0]


# --- a static while with a big body ------------------------------------------------------

def oscillator(y, k):
    return np.array([y[1], -k * y[0] - 0.1 * y[1]])


def rk4_to(y0, t_end, dt, k):
    t = 0.0
    y = y0.copy()
    while t < t_end:
        h = min(dt, t_end - t)
        k1 = oscillator(y, k)
        k2 = oscillator(y + h / 2 * k1, k)
        k3 = oscillator(y + h / 2 * k2, k)
        k4 = oscillator(y + h * k3, k)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return y, t


def test_a_static_while_with_a_big_body_runs_as_one_while():
    y0 = np.array([1.0, 0.0])
    compiled = check(rk4_to, y0, 10.0, 0.05, 2.0, rtol=1e-12, atol=1e-12)
    assert count_hlo(hlo(compiled, y0, 10.0, 0.05, 2.0), "while") == 1


# --- round() of a runtime Python float is CPython's --------------------------------------

def rounded(x, n):
    return round(float(x), n)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 15, 22])
def test_round_of_a_python_float_is_correctly_rounded(n):
    """2.675 is 2.67499999...: round(2.675, 2) is 2.67 (NumPy's np.round
    rounds 267.49999999999997 * ... to 2.68); ties of the exact value go
    to even; the result is a Python float."""
    rng = np.random.default_rng(n)
    values = [2.675, 1.15, 0.125, 0.375, -2.675, 2.5, -0.001, 0.0, -0.0, 1e300, 1e-300,
              7.2924999999999995, 4503599627370497.0, np.inf, -np.inf, np.nan, 1.005, 8.345]
    values += list(rng.uniform(-1000, 1000, 40)) + list(np.round(rng.uniform(-99, 99, 40), 3)
                                                        + 0.0005)
    compiled = tpucc.compile(rounded)
    for v in values:
        got, want = compiled(np.float64(v), n), round(float(v), n)
        assert type(got) is float
        assert got == want or (got != got and want != want), (v, n, got, want)


# --- a short loop with a runtime break, then a raise on how it ended ---------------------

def fixed_point(x0, maxit, tol):
    x = x0
    converged = False
    for it in range(maxit):
        x_new = np.cos(x)
        if np.max(np.abs(x_new - x)) < tol:
            converged = True
            x = x_new
            break
        x = x_new
    res = np.max(np.abs(np.cos(x) - x))
    if not converged:
        raise RuntimeError(f"no convergence after {maxit} iterations, residual {res:.3e}")
    return x, it


@pytest.mark.parametrize("maxit", [10, 40])
def test_a_raise_after_a_loop_left_early_is_a_check(maxit):
    """A static `for` left by a runtime `break` runs as one While (not one
    guarded copy per iteration with the code after it once per way out), so
    the flag it leaves is a runtime bool and the raise a check."""
    x0 = np.array([0.1, 0.5, 1.0])
    with pytest.raises(RuntimeError) as eager:
        fixed_point(x0, maxit, 1e-10)
    compiled = tpucc.compile(fixed_point)
    with pytest.raises(RuntimeError) as info:
        compiled(x0, maxit, 1e-10)
    assert str(eager.value) in str(info.value)
    check(fixed_point, x0, maxit, 0.05)
    assert count_hlo(hlo(compiled, x0, maxit, 0.05), "while") == 1


def deletes_on_one_path(x, n):
    y = 5.0
    for i in range(n):
        if x[i] < 0:
            del y
            continue
        y = float(x[i])
    return y


def test_a_loop_deleting_a_variable_on_one_path_is_refused():
    """(The While took the deleted variable as unchanged: every assignment
    to it was lost.)"""
    with pytest.raises(tpucc.errors.MergeError, match="deletes `y` on some runtime paths"):
        tpucc.compile(deletes_on_one_path)(np.full(3, 2.0), np.int64(3))


def zip_runtime_range(x, n):
    s = 0.0
    for i, v in zip(range(n), x):
        s += i * v
    return s


def indexed_runtime_range(x, n):
    s = 0.0
    for i in range(min(n, len(x))):
        s += i * x[i]
    return s


def test_zip_of_a_runtime_range_says_to_index_instead():
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(tpucc.errors.StaticValueError, match="zip\\(\\) of a range") as info:
        tpucc.compile(zip_runtime_range)(x, np.int64(2))
    assert "range(min(n, len(x)))" in info.value.hint
    compiled = check(indexed_runtime_range, x, np.int64(2))
    assert count_hlo(hlo(compiled, x, np.int64(2)), "while") == 1
