"""Runtime index checks (infer/checks.py, docs/errors.md E900): an index
known only at run time that is out of bounds raises IndexError as NumPy's
does, naming the user's line, and nothing is written back; in-bounds
programs compute as before.  Checks are carried through runtime loops,
branches, differentiated functions, trace records and artifacts."""
from __future__ import annotations

import textwrap

import numpy as np
import pytest

import tpucc
import tpucc.nn
from tpucc import aot

from conftest import check
from runtime_raise_programs import checked_scale, finite_loss, first_negative_prefix


def _raises_e900(line_text: str):
    return pytest.raises(tpucc.RuntimeIndexError, match=r"\[E900\][\s\S]*" + line_text)


def gather_rows(x, idx):
    return x[idx] * 2


def scatter_add(x, idx, v):
    x[idx] += v
    return x.sum()


def sum_first_n(x, n):
    s = 0.0
    for k in range(n):
        s += x[k]
    return s


def pick_if_positive(x, i):
    if x.sum() > 0:
        return x[i]
    return x[0]


def two_indices(x, i, j):
    return x[i] + x[j]


def view_update(y, i):
    row = y[i]
    row += 1.0
    return y


def test_in_bounds_programs_compute_as_numpy():
    x = np.arange(12.0).reshape(4, 3)
    check(gather_rows, x, np.array([3, -4, 0]))
    check(scatter_add, x, np.array([1, -1]), 5.0)
    check(sum_first_n, np.arange(5.0), np.int64(5))
    check(view_update, x, np.int64(-1))


def test_gather_and_scatter_out_of_bounds_raise_index_error():
    x = np.arange(12.0).reshape(4, 3)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 4"):
        tpucc.compile(gather_rows)(x, np.array([0, 4]))
    target = x.copy()
    with _raises_e900(r"x\[idx\] \+= v"):
        tpucc.compile(scatter_add)(target, np.array([0, -5]), 1.0)
    np.testing.assert_array_equal(target, x)        # nothing written back


def test_a_loop_counter_past_the_end_raises_at_its_line():
    f = tpucc.compile(sum_first_n, runtime_args=("n",))
    assert f(np.arange(5.0), 5) == 10.0
    with _raises_e900(r"s \+= x\[k\]"):
        f(np.arange(5.0), 6)
    hlo = f.lower(np.arange(5.0), 6).as_text()
    assert "while" in hlo                           # still one runtime loop


def scan_while_positive(x):
    i = 0
    while x[i] > 0:             # past the end, NumPy raises; a clamped read never ends
        i += 1
    return i


def count_to_a_bad_read(x):
    n = x[x[0] + 4]             # out of bounds: the value read is not NumPy's
    k = 0
    while k != n:               # no check inside, but it waits on that value
        k += 2
    return k


@pytest.mark.timeout(120)
def test_a_loop_stops_once_a_check_has_failed():
    """A while loop whose exit waits on an out-of-bounds read (in its own
    condition, or earlier) stops as soon as a check fails, and the call
    raises: it used to run forever."""
    f = tpucc.compile(scan_while_positive, cache=False)
    assert f(np.array([3, 0, 1])) == 1
    with _raises_e900(r"while x\[i\] > 0"):
        f(np.array([3, 2, 1]))
    with pytest.raises(IndexError):
        scan_while_positive(np.array([3, 2, 1]))
    g = tpucc.compile(count_to_a_bad_read, cache=False)
    with _raises_e900(r"n = x\[x\[0\] \+ 4\]"):
        g(np.array([1, 2, 3]))
    assert "while" in g.lower(np.array([1, 2, 3])).as_text()


def test_an_untaken_branch_does_not_raise():
    f = tpucc.compile(pick_if_positive)
    assert f(-np.ones(3), np.int64(7)) == -1.0      # x[7] is never read
    with _raises_e900(r"return x\[i\]"):
        f(np.ones(3), np.int64(7))


def test_the_first_failing_check_is_reported():
    f = tpucc.compile(two_indices)
    with pytest.raises(tpucc.RuntimeIndexError) as info:
        f(np.ones(3), np.int64(5), np.int64(9))
    assert info.value.loc.line == two_indices.__code__.co_firstlineno + 1
    assert "size 3" in str(info.value)


def test_a_view_made_with_an_index_past_the_end_raises():
    y = np.zeros((2, 3))
    with _raises_e900(r"row = y\[i\]"):
        tpucc.compile(view_update)(y, np.int64(2))
    assert not y.any()


def test_labels_out_of_range_in_a_training_step():
    w = np.linspace(-1, 1, 12).reshape(4, 3)
    x = np.ones((2, 4))

    def step(w, x, labels):
        loss, g = tpucc.value_and_grad(lambda w: tpucc.nn.cross_entropy(x @ w, labels))(w)
        w -= 0.1 * g
        return loss

    f = tpucc.compile(step)
    expected = tpucc.nn.cross_entropy(x @ w, np.array([0, 2]))
    np.testing.assert_allclose(f(w.copy(), x, np.array([0, 2])), expected)
    before = w.copy()
    with pytest.raises(tpucc.RuntimeIndexError, match="axis 1 with size 3"):
        f(w, x, np.array([0, 3]))
    np.testing.assert_array_equal(w, before)


def test_programs_without_runtime_indices_have_no_check():
    ir = tpucc.compile(lambda x: x[1:] * 2).lower(np.ones(3)).ir()
    assert "check(" not in ir and "i32[] = const()" not in ir
    ir = tpucc.compile(gather_rows).lower(np.ones(3), np.array([1])).ir()
    assert ir.count("in_bounds(") == 1 and ir.count("check(") == 1


def test_checks_in_an_artifact(tmp_path):
    model = tmp_path / "lookup.py"
    model.write_text(textwrap.dedent('''
        import numpy as np
        from tpucc.aot import entry

        @entry("f32[5]", "i64[]")
        def lookup(table, i):
            return table[i] + 1
    '''))
    [built] = aot.build_file(str(model), str(tmp_path))
    f = tpucc.load(built.path)
    table = np.arange(5, dtype=np.float32)
    assert f(table, np.int64(4)) == 5.0
    with pytest.raises(tpucc.RuntimeIndexError, match="axis 0 with size 5"):
        f(table, np.int64(5))


# --- the program's own assert / raise under a runtime condition (E910) ----------------
# The programs live in a module pytest does not rewrite (it rewrites the
# asserts of test modules).

def _raises_e910(kind, text: str):
    return pytest.raises(kind, match=r"\[E910\][\s\S]*" + text)


def test_assert_and_raise_on_runtime_values_raise_at_call_time():
    f = tpucc.compile(checked_scale)
    x = np.ones(3)
    np.testing.assert_array_equal(f(x, np.int64(2)), [10.0, 2.0, 2.0])
    assert x[0] == 5.0                                   # written back when the checks hold
    for args, kind, text in [((-np.ones(3), 1), AssertionError, "x must have a positive sum"),
                             ((np.ones(3), 7), AssertionError, r"assert k < 3"),
                             ((np.full(3, 200.0), 1), ValueError, "too big")]:
        x = args[0].copy()
        with _raises_e910(kind, text) as info:
            f(x, np.int64(args[1]))
        assert isinstance(info.value, tpucc.errors.RuntimeRaiseError)
        np.testing.assert_array_equal(x, args[0])         # nothing written back
    with pytest.raises(AssertionError):                   # the eager program agrees
        checked_scale(-np.ones(3), 1)


def test_checks_in_a_runtime_loop_report_the_first_failure():
    f = tpucc.compile(first_negative_prefix)
    assert f(np.array([1.0, 2.0, -1.0]), np.int64(3)) == 2.0
    with _raises_e910(AssertionError, "prefix sum went negative"):
        f(np.array([1.0, -2.0, 5e6]), np.int64(3))
    with _raises_e910(OverflowError, "prefix sum too large"):
        f(np.array([1.0, 2e6, -5e6]), np.int64(3))
    ir = f.lower(np.ones(3), np.int64(3)).ir()
    assert "while" in ir and ir.count("check(") == 3    # x[i], the assert, the raise


def test_a_runtime_raise_in_a_differentiated_function():
    step = tpucc.compile(lambda w, x: tpucc.grad(finite_loss)(w, x))
    w = np.ones((3, 2))
    np.testing.assert_allclose(step(w, np.ones((4, 3))), 2 * np.ones((3, 4)) @ (np.ones((4, 3)) @ w))
    with _raises_e910(AssertionError, "non-finite activations"):
        step(w, np.full((4, 3), np.inf))


def test_runtime_raises_in_trace_records_and_artifacts(tmp_path):
    model = tmp_path / "guarded.py"
    model.write_text(textwrap.dedent('''
        import numpy as np
        from tpucc.aot import entry

        @entry("f32[4]")
        def normalize(v):
            s = v.sum()
            if s == 0:
                raise ZeroDivisionError("v sums to zero")
            return v / s
    '''))
    [built] = aot.build_file(str(model), str(tmp_path))
    f = tpucc.load(built.path)
    np.testing.assert_allclose(f(np.ones(4, np.float32)), np.full(4, 0.25))
    with _raises_e910(ZeroDivisionError, "v sums to zero"):
        f(np.zeros(4, np.float32))


# --- NumPy's errors on Python ints known only at run time --------------------------------

def counter_ops(x, n):
    k = 0
    for _ in range(n):          # k is a Python int that changes at run time
        k = k + 100
    return x + k, x < k, x - k


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16])
def test_a_runtime_python_int_that_does_not_fit_raises_overflow_error(dtype):
    f = tpucc.compile(counter_ops)
    x = np.array([1, 2, 3], dtype)
    for n in range(4):
        try:
            counter_ops(x, n)
        except OverflowError:
            with _raises_e910(OverflowError, f"out of bounds for {np.dtype(dtype).name}"):
                f(x, np.int64(n))
            continue
        check(counter_ops, x, np.int64(n))


def test_comparisons_with_a_runtime_python_int_are_exact():
    def below(x, n):
        k = 0
        for _ in range(n):
            k = k + 200
        return x < k, x == k - 456
    x = np.array([-100, 0, 100], np.int8)
    for n in (0, 1, 2):
        check(below, x, np.int64(n))


def test_integer_powers_with_runtime_negative_exponents_raise_value_error():
    def powers(x, e, n):
        k = 2
        for _ in range(n):
            k = k - 1
        return x ** k, x ** e
    x = np.array([1, 2, 3])
    check(powers, x, np.array([0, 1, 2]), np.int64(2))
    f = tpucc.compile(powers)
    with _raises_e910(ValueError, "Integers to negative integer powers"):
        f(x, np.array([0, 1, 2]), np.int64(3))
    with _raises_e910(ValueError, "Integers to negative integer powers"):
        f(x, np.array([0, -1, 2]), np.int64(1))


def test_float_arrays_with_runtime_python_ints_need_no_check():
    ir = tpucc.compile(counter_ops).lower(np.ones(3), np.int64(2)).ir()
    assert "check(" not in ir


# --- Python numbers divided by a runtime zero ------------------------------------------

def python_true_division(x, n):
    return x * (10 / int(n))


def python_floor_division(x, n):
    return x * (10 // int(n))


def python_float_modulo(x, n):
    return x * (7.5 % float(n))


def numpy_scalar_division(x, n):
    return x * (np.float64(10) / np.float64(n))     # NumPy: inf with a warning, no raise


@pytest.mark.parametrize("fn,words", [
    (python_true_division, "division by zero"),
    (python_floor_division, "integer division or modulo by zero"),
    (python_float_modulo, "float modulo"),     # 3.13: "float modulo by zero"
])
def test_python_number_divided_by_a_runtime_zero_raises(fn, words):
    x = np.arange(3.0)
    check(fn, x, np.int64(4))
    with pytest.raises(ZeroDivisionError) as eager:
        fn(x, np.int64(0))
    message = str(eager.value)
    assert message.startswith(words)
    compiled = tpucc.compile(fn)
    with pytest.raises(ZeroDivisionError, match=r"\[E910\] " + message + "\n") as info:
        compiled(x, np.int64(0))
    assert isinstance(info.value, tpucc.errors.RuntimeRaiseError)
    np.testing.assert_allclose(compiled(x, np.int64(3)), fn(x, np.int64(3)))


def test_numpy_scalar_divided_by_zero_does_not_raise():
    x = np.arange(3.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        check(numpy_scalar_division, x, np.int64(0))
