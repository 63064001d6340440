"""`for x in xs` over an array's rows: a loop over row indices, so a long one
compiles to one counted HLO While (as `for i in range(n)` does) instead of
one copy of the body per row, and each row is read when the loop gets to it,
a view as NumPy's iterator gives.  Every program runs short (unrolled) and
long (a While) and must give eager NumPy's values, dtypes and writes."""
import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo
from user_programs_session16 import levenshtein as edit_distance

SHORT, LONG = 5, 300        # below and above the unroll budget (32)


def mean_of_rows(xs):
    acc = np.zeros(xs.shape[1], xs.dtype)
    for x in xs:
        acc += x * 0.5
    return acc


def scalars_of_a_vector(v):
    total, kinds = 0.0, 0
    for x in v:                 # NumPy scalars: x += 1 rebinds, v is untouched
        x += 1
        total = total + x * x
    return total, v


def rows_are_views(xs):
    for r in xs:
        r *= 2.0                # writes through to xs, as NumPy's rows do
    return xs.sum()


def rows_by_index_are_views(xs):
    for i in range(xs.shape[0]):
        r = xs[i]               # a Python int index: a view, also as a counted While's counter
        r *= 2.0
    return xs.sum()


def later_rows_written_in_the_body(xs):
    out = np.zeros_like(xs)
    i = 0
    for x in xs:                # each row is read when the loop gets to it
        out[i] = x
        if i + 1 < xs.shape[0]:
            xs[i + 1] += x
        i += 1
    return out


def runtime_break(v):
    s = v[0] * 0
    for x in v:
        if x > 0.8:
            break
        s += x
    return s


def runtime_return(v):
    for x in v:
        if x > 0.9:
            return x
    return v[0] * 0 - 1


def nested_rows_and_items(m):
    s = m[0, 0] * 0
    for r in m:
        for x in r:
            s += x * x
    return s


def integer_rows(a):
    best = a[0] * 0
    for x in a:
        best = np.maximum(best, x)
    return best


def comprehension_over_rows(xs):
    return np.stack([x * 2 for x in xs]), sum(x.sum() for x in xs)


def rows_of_a_view(xs):
    s = np.zeros(xs.shape[1:], xs.dtype)
    for x in xs[::2]:
        s = s + x
    return s


@pytest.mark.parametrize("n", [SHORT, LONG])
@pytest.mark.parametrize("program, make", [
    (mean_of_rows, lambda n: np.arange(n * 3, dtype=np.float32).reshape(n, 3)),
    (scalars_of_a_vector, lambda n: np.linspace(0, 1, n)),
    (rows_are_views, lambda n: np.arange(n * 2.0).reshape(n, 2)),
    (rows_by_index_are_views, lambda n: np.arange(n * 2.0).reshape(n, 2)),
    (later_rows_written_in_the_body, lambda n: np.ones((n, 2))),
    (runtime_break, lambda n: np.linspace(0, 1, n)),
    (runtime_return, lambda n: np.linspace(0, 1, n)),
    (integer_rows, lambda n: (np.arange(n * 4, dtype=np.int32) * 7919 % 101).reshape(n, 4)),
    (comprehension_over_rows, lambda n: np.arange(n * 2.0).reshape(n, 2)),
    (rows_of_a_view, lambda n: np.arange(n * 3.0).reshape(n, 3)),
])
def test_loop_over_rows_matches_numpy(program, make, n):
    check(program, make(n))


def test_nested_loops_over_rows_and_their_items():
    check(nested_rows_and_items, np.arange(40 * 40.0).reshape(40, 40) / 1000)


def test_a_long_loop_over_rows_is_one_while_not_one_body_per_row():
    xs = np.ones((1000, 3))
    text = hlo(tpucc.compile(mean_of_rows), xs)
    assert count_hlo(text, "while") == 1
    assert len(text.splitlines()) < 200         # unrolled: one body per row


def test_many_rows_compile_instead_of_hitting_the_unroll_limit():
    check(mean_of_rows, np.ones((20000, 2)))


def test_a_gradient_through_a_long_loop_over_rows():
    def loss(w, xs):
        s = 0.0
        for x in xs:
            s = s + np.tanh(x @ w).sum()
        return s
    w, xs = np.linspace(-1, 1, 6).reshape(3, 2), np.linspace(0, 1, 120).reshape(40, 3)
    got = tpucc.compile(tpucc.grad(loss))(w, xs)
    eps, expected = 1e-6, np.zeros_like(w)
    for k in np.ndindex(w.shape):
        d = np.zeros_like(w)
        d[k] = eps
        expected[k] = (loss(w + d, xs) - loss(w - d, xs)) / (2 * eps)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-7)


def test_iterating_a_0d_array_is_numpys_type_error():
    def f(x):
        for v in x.sum():
            pass
        return x
    with pytest.raises(tpucc.TpuccError, match="iteration over a 0-d array"):
        tpucc.compile(f)(np.ones(3))


# --- nested static loops share the unroll budget -----------------------------------

def test_nested_static_loops_are_not_unrolled_into_their_product():
    # 12 x 12 unrolled bodies took XLA 25 s; the inner loop becomes a counted
    # While, and then the rest of the outer loop (one While per row was 12)
    rng = np.random.default_rng(0)
    a, b = rng.integers(0, 4, 12), rng.integers(0, 4, 12)
    compiled = check(edit_distance, a, b)
    assert 1 <= count_hlo(hlo(compiled, a, b), "while") <= 3


def test_small_nested_static_loops_still_unroll():
    def table(x):
        out = np.zeros((4, 4))
        for i in range(4):
            for j in range(4):
                out[i, j] = x[i] * x[j]
        return out
    compiled = check(table, np.arange(4.0))
    assert count_hlo(hlo(compiled, np.arange(4.0)), "while") == 0


def test_the_unroll_option_is_the_budget_for_the_nest():
    # (the structure from lower(): a 6 x 6 nest unrolls at unroll=36, not at 35;
    # the values of an unrolled nest on a 4 x 4 one at unroll=16, which XLA
    # compiles in a third of the time)
    a, b = np.arange(6) % 3, np.arange(6) % 2
    assert count_hlo(hlo(tpucc.compile(edit_distance, unroll=36), a, b), "while") == 0
    assert count_hlo(hlo(tpucc.compile(edit_distance, unroll=35), a, b), "while") >= 1
    a, b = np.arange(4) % 3, np.arange(4) % 2
    compiled = tpucc.compile(edit_distance, unroll=16)
    assert compiled(a, b) == edit_distance(a, b)
    assert count_hlo(hlo(compiled, a, b), "while") == 0
    assert count_hlo(hlo(tpucc.compile(edit_distance, unroll=15), a, b), "while") >= 1


# --- a counted loop's counter is a Python int: x[i] is a view ------------------------

def consume_rows(a, n):
    s = 0.0
    for i in range(n):
        v = a[i]            # a view of row i ...
        a[i] = -1.0         # ... sees this write, as in NumPy
        s += v.sum()
    return s


def swap_with_row0(a, n):
    for i in range(n):
        a[i], a[0] = a[0], a[i]
    return a


@pytest.mark.parametrize("program", [consume_rows, swap_with_row0])
@pytest.mark.parametrize("n", [10, 40, np.int64(40)])   # unrolled, counted, runtime bound
def test_rows_indexed_by_a_loop_counter_are_views(program, n):
    check(program, np.arange(80.0).reshape(40, 2), n)


# --- a short static loop left by a runtime `break`, with a loop inside -------------

def relax_until_settled(w, src):
    n = w.shape[0]
    dist = np.full(n, np.inf)
    dist[src] = 0.0
    done = np.zeros(n, dtype=bool)
    for _ in range(n):
        d = np.where(done, np.inf, dist)
        u = np.argmin(d)
        if d[u] == np.inf:
            break                       # a runtime exit from a static loop
        done[u] = True
        for v in range(n):
            if w[u, v] > 0 and not done[v]:
                if dist[u] + w[u, v] < dist[v]:
                    dist[v] = dist[u] + w[u, v]
    return dist


def test_a_static_loop_with_a_runtime_break_and_an_inner_loop_is_one_while():
    # unrolled with guards, each iteration nested in the previous ones'
    # conditionals: 123 of them and 10 s of XLA for 8 nodes
    rng = np.random.default_rng(1)
    w = rng.uniform(1, 5, (8, 8)) * (rng.uniform(size=(8, 8)) < 0.4)
    compiled = check(relax_until_settled, w, 0)
    text = hlo(compiled, w, 0)
    assert count_hlo(text, "while") == 2 and count_hlo(text, "conditional") < 10
    check(relax_until_settled, np.zeros((8, 8)), 3)     # nothing reachable: breaks at once


def test_under_grad_such_a_loop_stays_unrolled_and_differentiable():
    def loss(w, x):
        s = 0.0
        for i in range(4):
            if x[i] > 2.5:
                break                   # runtime exit
            for j in range(3):
                s = s + np.tanh(w[j] * x[i])
        return s
    w, x = np.array([0.5, -0.3, 0.8]), np.array([1.0, 2.0, 3.0, 0.5])
    got = tpucc.grad(loss)(w, x)
    eps, expected = 1e-6, np.zeros(3)
    for k in range(3):
        d = np.zeros(3)
        d[k] = eps
        expected[k] = (loss(w + d, x) - loss(w - d, x)) / (2 * eps)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
