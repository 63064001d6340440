"""Bugs from sweeps 37a and 37e, fixed in session 37d."""
import math

import numpy as np
import pytest

import tpucc
from tpucc import driver
from conftest import assert_same, check, raises_at


def whiles(fn, *args) -> int:
    return tpucc.compile(fn).lower(*args).ir().count("= while(")


# A static loop longer than the unroll budget that reads no runtime value
# runs while compiling, on Python ints: it was a While whose int64 wrapped.

def doubles_past_int64():
    t = 1
    for i in range(70):
        t = t * 2
    return t


def scales_by_a_big_int(x):
    t = 1
    for i in range(100):
        t *= 3
    return x * t, t


def static_while_past_int64(x):
    t = 1
    while t < 10**60:
        t *= 3
    return x * t, t


def nested_number_loops(x):
    s = 0
    for j in range(40):
        for i in range(40):
            s = s * 3 + i * j
    return x + s % 1000, s


PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73,
          79, 83, 89, 97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163]


def product_of_a_list(x):
    t = 1
    for p in PRIMES:
        t *= p
    return x + t % 1000, t


@pytest.mark.timeout(120)      # (a static `while` whose int64 wrapped never ended)
@pytest.mark.parametrize("fn", [scales_by_a_big_int, static_while_past_int64,
                                nested_number_loops, product_of_a_list])
def test_a_long_loop_of_python_ints_alone_runs_while_compiling(fn):
    check(fn, np.arange(3.0))
    assert whiles(fn, np.arange(3.0)) == 0


def test_a_long_loop_of_python_ints_does_not_wrap():
    assert tpucc.compile(doubles_past_int64)() == 2**70


def test_a_big_python_int_times_a_float_array_is_a_float():
    def f(x):
        return x * 3**100, x + 2**64
    check(f, np.arange(3.0))


def test_a_number_loop_of_exactly_the_most_unrolled_iterations_compiles():
    # (10 000 iterations unrolled used to be refused with "0 iterations left")
    def f(x):
        t = 1
        for i in range(10_000):
            t = t * 3 % 1_000_003
        return x + t
    check(f, np.arange(3.0))


def test_a_number_loop_that_reads_an_array_stays_one_while():
    def f(x):
        t = 0
        for i in range(100):
            t = t + x[0] * i
        return t
    check(f, np.arange(3.0))
    assert whiles(f, np.arange(3.0)) == 1


def test_a_number_loop_past_the_most_unrolled_stays_one_while():
    def f(x):
        t = 0
        for i in range(20_000):
            t += i
        return x + t
    check(f, np.arange(3.0))
    assert whiles(f, np.arange(3.0)) == 1


# A static tuple argument of many Python scalars is keyed in one piece.

def poly_head_tail(x, coefs):
    return x * coefs[0] + coefs[-1] + len(coefs), coefs[1] * 1


def test_a_long_tuple_of_floats_is_checked_in_one_piece(monkeypatch):
    coefs = tuple(float(i) * 1e-3 for i in range(10_000))
    compiled = check(poly_head_tail, np.arange(3.0), coefs)
    calls = []
    real = driver._key
    monkeypatch.setattr(driver, "_key", lambda *a: calls.append(1) or real(*a))
    compiled(np.arange(3.0), coefs)
    assert len(calls) < 10


def first_item(x, coefs):
    sign = x if isinstance(coefs[0], str) else x * np.copysign(1.0, coefs[0])
    return sign, coefs[0], isinstance(coefs, tuple)


@pytest.mark.parametrize("items", [
    [(1.0,) * 9, (1,) * 9, (True,) * 9],             # equal under ==, another program each
    [(0.0,) * 9, (-0.0,) * 9],                       # equal under ==, they fold differently
    [("a",) * 9, ("b",) * 9],
    [(2**70,) * 9, (1,) * 9],                        # (an int past int64: item by item)
    [[0.5] * 9, (0.5,) * 9]])
def test_tuples_of_alike_scalars_that_compile_differently_are_told_apart(items):
    compiled = tpucc.compile(first_item)
    for coefs in items:
        assert_same(first_item(np.arange(2.0), coefs), compiled(np.arange(2.0), coefs))


# The E600 call-depth limit says what it is and what to do.

def rsum(xs, i):
    if i == len(xs):
        return 0.0
    return xs[i] + rsum(xs, i + 1)      # <- here


def sums_120_items(x):
    return rsum([x * k for k in range(120)], 0)


def test_a_recursion_deeper_than_the_limit_says_the_limit_and_to_loop():
    err = raises_at(sums_120_items, (np.arange(3.0),), tpucc.LimitError,
                    r"calls nested more than 100 deep, the most tpucc inlines \(a fixed limit, "
                    r"no option raises it\): rsum calls itself")
    assert err.loc.line == rsum.__code__.co_firstlineno + 3
    assert "loop over the items" in err.hint and "recursion?" not in str(err)

    def looped(x):
        ws = [x * k for k in range(120)]
        total = 0.0
        for w in ws:
            total = total + w
        return total
    check(looped, np.arange(3.0))       # (the hint's loop)


def test_a_chain_of_distinct_functions_is_not_called_a_recursion(tmp_path):
    import importlib.util
    source = "".join(f"def f{i}(x):\n    return f{i + 1}(x) + 1.0\n" for i in range(110))
    path = tmp_path / "chain37d.py"
    path.write_text(source + "def f110(x):\n    return x\n")
    spec = importlib.util.spec_from_file_location("chain37d", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(tpucc.LimitError) as info:
        tpucc.compile(module.f0)(np.ones(2))
    message = str(info.value)
    assert "a chain of 100 different functions, each calling the next" in message
    assert "calls itself" not in message and "recursion" not in message


# Hints of E100 / E400 that name what to do.

def test_a_scipy_ufunc_on_a_runtime_array_is_named_with_a_hint_that_compiles():
    special = pytest.importorskip("scipy.special")

    def gelu(x):
        return 0.5 * x * (1 + special.erf(x / np.sqrt(2)))
    err = raises_at(gelu, (np.linspace(-2, 2, 5),), tpucc.UnsupportedError,
                    r"scipy\.special\.erf\(\) is not supported")
    assert err.hint.startswith("scipy.special.erf's native code"), err.hint
    assert "np.vectorize(math.erf)" in err.hint

    def hinted(x):
        return 0.5 * x * (1 + np.vectorize(math.erf)(x / np.sqrt(2)))
    check(hinted, np.linspace(-2, 2, 5))


VOCAB = ["<eos>", "a", "b", "c"]


def detokenize(tokens):
    return "".join(VOCAB[int(t)] for t in tokens)       # <- here


def test_strings_picked_at_run_time_hint_returns_the_positions():
    # (each VOCAB[int(t)] is a runtime choice among the strings since session
    # 48; joining a few is each combination's text since 48 P3, joining many
    # (4 ** 12 combinations) needs the strings themselves)
    err = raises_at(detokenize, (np.arange(12) % 4,), tpucc.errors.MergeError,
                    r"passing it to str\.join\(\) needs the object itself", line_of="# <- here")
    assert "np.stack" not in err.hint and "outside the compiled function" in err.hint
