"""Closure variables (cells): inner functions that read or rebind a variable
of the function that defines them (`nonlocal`), also inside runtime `if`s
and loops, and closures over variables from outside the compiled code."""
import jax
import jax.numpy as jnp
import numpy as np

import tpucc
from conftest import check, count_hlo, hlo, raises_at


def counts_halvings(x):
    count = 0

    def bump():
        nonlocal count
        count += 1
    s = x.sum()
    while s > 1:                # runtime: the inner function's rebinding is carried
        s = s / 2
        bump()
    return s, count


def test_nonlocal_counter_in_a_runtime_while():
    for x in (np.arange(12, dtype=np.float32), np.zeros(3, np.float32)):
        compiled = check(counts_halvings, x)
    assert count_hlo(hlo(compiled, x), "while") == 1


def sums_rows(x, n):
    total = np.zeros(x.shape[1], x.dtype)

    def add(row):
        nonlocal total
        total = total + row
    for i in range(n):          # n is a runtime argument
        add(x[i])
    return total


def test_nonlocal_array_accumulated_over_a_runtime_range():
    x = np.arange(12.0).reshape(4, 3)
    step = tpucc.compile(sums_rows, runtime_args=("n",))
    for n in (0, 2, 4):
        np.testing.assert_array_equal(step(x, n), sums_rows(x, n))
    assert count_hlo(hlo(step, x, 3), "while") == 1


def rebinds_in_a_runtime_branch(x):
    y = x
    read = lambda: y            # noqa: E731 - y lives in a cell of this frame
    if x.sum() > 0:
        y = x * 2
    return read()


def test_a_cell_variable_rebound_under_a_runtime_branch():
    for x in (np.ones(3), -np.ones(3)):
        compiled = check(rebinds_in_a_runtime_branch, x)
    assert count_hlo(hlo(compiled, np.ones(3)), "conditional") >= 1


def updates_inside_a_helper_branch(x):
    best = x[0]

    def keep_larger(v):
        nonlocal best
        if v.sum() > best.sum():     # a runtime `if` in the function that rebinds
            best = v                 # ... a variable of the one that defines it
    for i in range(1, x.shape[0]):
        keep_larger(x[i])
    return best


def test_nonlocal_rebound_in_the_inner_functions_own_runtime_if_is_refused():
    # The inner function's `if` merges its own variables, not its caller's.
    raises_at(updates_inside_a_helper_branch, (np.arange(6.0).reshape(3, 2),),
              tpucc.errors.SideEffectError, match="rebinding `best`", line_of="best = v")


def late_binding(x):
    scale = 1.0
    scaled = lambda v: v * scale       # noqa: E731 - reads scale when called
    while x.sum() < 100:
        scale = scale * 2
        x = scaled(x) + 1
    return x, scale


def test_inner_function_reads_the_current_value_in_a_runtime_loop():
    compiled = check(late_binding, np.ones(3))
    check(late_binding, np.full(3, 50.0))
    assert count_hlo(hlo(compiled, np.ones(3)), "while") == 1


def nested_closures(x):
    acc = x * 0

    def outer(v):
        def inner(w):
            nonlocal acc
            acc = acc + w
        inner(v)
        inner(v * 2)
    k = 0
    while k < x.shape[0] and x[k] > 0:      # runtime condition
        outer(x)
        k += 1
    return acc, k


def test_nested_inner_functions_rebind_the_outer_variable():
    check(nested_closures, np.array([1.0, 2.0, 0.0, 3.0]))
    check(nested_closures, np.array([0.0, 2.0]))


def static_loop_counter(x):
    n = 0

    def bump(v):
        nonlocal n
        n += 1
        return v + n
    for _ in range(3):          # static: unrolled, n stays a Python int
        x = bump(x)
    return x, n


def test_nonlocal_in_a_static_loop_stays_static():
    check(static_loop_counter, np.zeros(2))


def make_accumulator():
    acc = np.zeros(3)

    def step(x):
        nonlocal acc
        acc = acc + x           # rebinds a variable from outside the compiled code
        return acc.sum()
    return step


def test_outer_closure_variable_rebound_to_an_array_is_written_back():
    compiled_step, eager_step = make_accumulator(), make_accumulator()
    step = tpucc.compile(compiled_step, cache=False)
    x = np.array([1.0, 2.0, 3.0])
    for _ in range(3):
        assert step(x) == eager_step(x)
    (cell,), (eager_cell,) = compiled_step.__closure__, eager_step.__closure__
    assert isinstance(cell.cell_contents, np.ndarray)
    np.testing.assert_array_equal(cell.cell_contents, eager_cell.cell_contents)


def make_jax_step():
    w = jnp.ones(3)

    def step(g):
        nonlocal w
        w = w - 0.5 * g
        return (w * w).sum()
    return step


def test_outer_closure_variable_holding_a_jax_array_stays_one():
    compiled_step, eager_step = make_jax_step(), make_jax_step()
    step = tpucc.compile(compiled_step, cache=False)
    g = np.ones(3)
    for _ in range(2):
        np.testing.assert_allclose(step(g), eager_step(g))
    (cell,) = compiled_step.__closure__
    assert isinstance(cell.cell_contents, jax.Array)
    np.testing.assert_allclose(cell.cell_contents, eager_step.__closure__[0].cell_contents)


def test_outer_closure_write_back_survives_a_replayed_trace(tmp_path, monkeypatch):
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")       # store even a fast compile
    x = np.array([1.0, 2.0, 3.0])
    tpucc.compile(make_accumulator(), cache=str(tmp_path))(x)
    again, eager = make_accumulator(), make_accumulator()
    step = tpucc.compile(again, cache=str(tmp_path))
    for _ in range(3):
        assert step(x) == eager(x)
    (entry,) = step._cache.values()
    assert entry.times.replayed
    np.testing.assert_array_equal(again.__closure__[0].cell_contents,
                                  eager.__closure__[0].cell_contents)
