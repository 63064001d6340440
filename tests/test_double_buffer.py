"""A double buffer: a loop that writes into one array in place and then
swaps names (`u, v = v, u`), on the caller's arrays.  Each iteration writes
into a caller's array, so no iteration can be left out of the carried
state; but which array each name holds follows a fixed permutation, so a
static range loop past the unroll budget is one counted While whose
results go back into the arrays the names hold after that many iterations
(loops._permuted_slots).  Before, such a loop was unrolled: 1000 Jacobi
sweeps took 10 s to compile."""
import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo


def jacobi(u, v, steps):
    for _ in range(steps):
        v[1:-1] = 0.5 * (u[:-2] + u[2:])
        u, v = v, u
    return u


@pytest.mark.parametrize("steps", [33, 34, 1000, 1001])
def test_jacobi_on_the_callers_arrays_is_one_while(steps):
    u = np.linspace(0.0, 1.0, 16) ** 2
    compiled = check(jacobi, u, u.copy(), steps)
    assert count_hlo(hlo(compiled, u, u.copy(), steps), "while") == 1


def test_three_way_rotation():
    def f(a, b, c):
        for i in range(50):
            c[:] = a + 0.5 * b + i
            a, b, c = b, c, a
        return a, b, c
    x = np.arange(4.0)
    compiled = check(f, x, x * 2, x * 3)
    assert count_hlo(hlo(compiled, x, x * 2, x * 3), "while") == 1


def test_names_from_before_the_loop_see_the_final_contents():
    def f(u, v):
        first, second = u, v
        for _ in range(41):
            v[:] = u * 0.5 + 1
            u, v = v, u
        first += 100            # writes into whichever array `first` named
        return first, second, u is first, v is second
    x = np.arange(3.0)
    check(f, x, x.copy())


def test_one_argument_and_one_array_of_the_program():
    def f(u, steps):
        v = np.zeros_like(u)
        for _ in range(steps):
            v[1:-1] = (u[:-2] + u[1:-1] + u[2:]) / 3
            u, v = v, u
        return v.sum()
    x = np.linspace(-1.0, 1.0, 12)
    for steps in (40, 41):
        compiled = check(f, x, steps)
    assert count_hlo(hlo(compiled, x, 41), "while") == 1


def test_a_runtime_break_is_refused_with_a_hint():
    # (The loop must be a While to break at run time, and after a runtime
    # number of swaps which array each name holds is known at run time only.)
    def f(u, v):
        for _ in range(40):
            v[:] = u * 0.5
            u, v = v, u
            if u.sum() < 1e-3:
                break
        return u
    with pytest.raises(tpucc.TpuccError, match="copy it before the loop"):
        tpucc.compile(f)(np.arange(4.0), np.zeros(4))


def test_runtime_trip_count_is_refused_with_a_hint():
    def f(u, v, n):
        for _ in range(n):
            v[:] = u + 1
            u, v = v, u
        return u
    compiled = tpucc.compile(f, runtime_args=("n",))
    with pytest.raises(tpucc.TpuccError, match="copy it before the loop"):
        compiled(np.zeros(3), np.zeros(3), 5)


def test_gradient_through_a_double_buffer():
    from conftest import numeric_grad

    def loss(w, x):
        u = x.copy()
        v = np.zeros_like(x)
        for _ in range(40):
            v[:] = np.tanh(u * w)
            u, v = v, u
        return u.sum()
    w, x = np.array([0.9, 1.1, 0.5]), np.array([0.3, -0.2, 0.8])
    expected = numeric_grad(lambda w_: loss(w_, x), w)
    np.testing.assert_allclose(tpucc.grad(loss)(w, x), expected, atol=1e-6)
    step = tpucc.compile(lambda w, x: tpucc.grad(loss)(w, x))
    np.testing.assert_allclose(step(w, x), expected, atol=1e-6)
