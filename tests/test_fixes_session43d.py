"""Session 43d: integer powers past 63, the first iteration of a `while True`
or of a long loop with a runtime exit run unrolled, the standard library's
exceptions as runtime checks (statistics.NormalDist), math's integer and
float-part functions on runtime values, math.fsum over a generator."""
import functools
import math
import statistics
from statistics import NormalDist

import numpy as np
import pytest

import tpucc
from tpucc.errors import MergeError, SideEffectError, UnsupportedError
from conftest import assert_same, raises_at, same


@functools.lru_cache(maxsize=None)
def _compiled_once(fn):
    """fn compiled once for all the cases of a parametrized test (the same
    argument types each time: one build)."""
    return tpucc.compile(fn, cache=False)


# --- bug_02: integer ** looked at the exponent's low 6 bits only ------------------------------

def _powers(b, k):
    return b ** k, np.power(b, k)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64",
                                   "uint8", "uint16", "uint32", "uint64"])
def test_integer_power_uses_every_bit_of_the_exponent(dtype):
    info = np.iinfo(dtype)
    k = np.array([0, 1, 5, 63, 64, 65, 70, 100, 127, info.max], dtype)
    bases = [3, 2, 1, 0, 7, 5] + ([-3, -1, -2] if info.min < 0 else [])
    b = np.array(bases, dtype)[:, None]
    same(_powers, b, np.broadcast_to(k, (len(bases), len(k))).copy())


def test_integer_power_of_numpy_scalars_and_0d_arrays():
    for b, k in ((np.int64(3), np.int64(64)), (np.uint64(2), np.uint64(100)),
                 (np.uint8(3), np.uint8(200)), (np.int32(2), np.int32(64)),
                 (np.int16(7), np.int16(17)), (np.array(3), np.array(70)),
                 (np.array([True, False]), np.array([True, True]))):
        same(_powers, b, k)


def _python_base(k):
    return 3 ** k, (-2) ** k, k ** k, np.int32(2) ** k.astype(np.int32)


def test_integer_power_with_a_python_int_base_and_broadcast_exponents():
    same(_python_base, np.array([63, 64, 65, 70, 129]))
    same(lambda b, k: b ** k, np.array([[3], [5]]), np.array([64, 65, 66]))


def _runtime_exponent(x, k):
    return x ** k, np.int64(3) ** k


def test_integer_power_with_a_runtime_python_int_exponent():
    f = tpucc.compile(_runtime_exponent, cache=False, runtime_args=("k",))
    x = np.array([3, 5, 2])
    for k in (2, 63, 64, 65, 200):
        assert_same(_runtime_exponent(x, k), f(x, k))


def test_negative_runtime_integer_exponent_still_raises():
    with pytest.raises(ValueError, match="Integers to negative integer powers"):
        tpucc.compile(lambda b, k: b ** k, cache=False)(np.array([2, 3]), np.array([1, -1]))


# --- bug_03: `while True` whose first iteration binds a None ----------------------------------

def _while_true_break(x):
    ll = None
    while True:
        ll = x.sum()
        if ll > 0:
            break
        x = x + 1
    return ll


def _while_not_done(x):
    ll = None
    done = False
    while not done:
        ll = x.sum()
        done = ll > 0
        x = x + 1
    return ll, x


def _em_idiom(x, tol):
    ll, prev = None, None
    converged, it = False, 0
    while not converged and it < 50:
        prev = ll
        ll = float(np.log(np.abs(x).sum() + 1.0))
        x = x * 0.5
        it += 1
        if prev is not None:
            converged = abs(ll - prev) < tol
    return ll, it, x


def _while_true_return(x):
    best = None
    while True:
        best = x * 2
        if best.max() > 10:
            return best
        x = x + 1


@pytest.mark.parametrize("start", [-10.0, 5.0, -0.5])
def test_a_while_true_whose_first_iteration_binds_a_none_runs_it_unrolled(start):
    x = np.arange(4.0) + start
    same(_while_true_break, x)
    same(_while_not_done, x)
    same(_while_true_return, x)


def test_the_em_idiom_with_a_converged_flag_compiles():
    for x, tol in ((np.linspace(1.0, 3.0, 5), 1e-3), (np.ones(3), 10.0), (np.ones(3), 1e-12)):
        same(_em_idiom, x, tol)


def _while_runtime_first_test(x):
    ll = None
    while x.sum() < 0:
        ll = x.sum()
        x = x + 1
    return ll


def test_a_while_whose_first_test_is_runtime_is_still_refused_as_a_public_error():
    # (it may run no iteration: `ll` would stay None)
    err = raises_at(_while_runtime_first_test, (np.arange(3.0) - 5,), error=SideEffectError,
                    match="static value `ll`", line_of="while x.sum() < 0", cache=False)
    assert type(err).__module__ == "tpucc.errors", type(err)


# --- bug_04: a long loop with a runtime exit whose first iteration retypes ---------------------

def _accumulate_break(V, t):
    total = 0
    for row in V:
        total = total + row
        if total.sum() > t:
            break
    return total


def _accumulate_return(V, t):
    total = 0
    for row in V:
        total = total + row
        if total.sum() > t:
            return total, True
    return total, False


def _float32_start(x, t):
    m = np.float32(0)
    for v in x:
        m = m + v
        if m > t:
            break
    return m


def _while_index(V, t):
    total, i = 0, 0
    while i < len(V):
        total = total + V[i]
        i += 1
        if total.sum() > t:
            break
    return total, i


def _range_index(V, t):
    total = 0
    for i in range(len(V)):
        total = total + V[i] * i
        if total.max() > t:
            break
    return total


@pytest.mark.parametrize("rows", [40, 33, 10, 100])
@pytest.mark.parametrize("t", [5.0, 1e9])
def test_a_long_loop_with_a_break_whose_first_iteration_makes_an_array(rows, t):
    V = np.ones((rows, 3))
    same(_accumulate_break, V, t)
    same(_accumulate_return, V, t)
    same(_while_index, V, t)
    same(_range_index, V, t)
    same(_accumulate_break, V.astype(np.float32), t)


@pytest.mark.parametrize("t", [3.0, 1e9])
def test_a_long_loop_with_a_break_whose_first_iteration_widens_the_dtype(t):
    same(_float32_start, np.random.default_rng(1).normal(size=40) + 0.5, t)


def _accumulate_maybe(V, t):
    total = 0
    for row in V:
        if row.sum() < t:
            continue
        total = total + row
    return total


def test_a_loop_whose_first_update_is_runtime_is_still_refused():
    err = raises_at(_accumulate_maybe, (np.ones((40, 3)), 0.0), error=MergeError,
                    match="different shapes", cache=False)
    assert type(err).__module__ == "tpucc.errors", type(err)


# --- bug_01: statistics.NormalDist on runtime parameters ---------------------------------------

def _normal(x, p):
    d = NormalDist(float(x.mean()), float(x.std()))
    return d.cdf(1.0), d.pdf(0.5), d.inv_cdf(p), d.mean, d.stdev


def _normal_sigma(x):
    return NormalDist(0.0, float(x.std())).cdf(1.0)


def test_normal_dist_with_runtime_parameters():
    f = tpucc.compile(_normal, cache=False, runtime_args=("p",))
    for x, p in ((np.array([0.5, 1.5, 2.0]), 0.3), (np.array([-1.0, 4.0]), 0.975)):
        assert_same(_normal(x, p), f(x, p))
    same(_normal_sigma, np.array([0.5, 1.5, 2.0]))


def _inv_cdf(x, p):
    return NormalDist(float(x.mean()), float(x.std())).inv_cdf(p)


def test_normal_dist_raises_statistics_error_at_run_time_at_the_programs_line():
    for fn, x, p, message in ((_inv_cdf, np.array([0.5, 1.5]), 1.5, "p must be in the range"),
                              (_inv_cdf, np.array([1.0, 1.0]), 0.3, "sigma at or below zero"),
                              (_normal, np.array([1.0, 1.0]), 0.3, "cdf.. not defined when")):
        with pytest.raises(statistics.StatisticsError, match=message):
            fn(x, p)
        err = raises_at(fn, (x, p), error=statistics.StatisticsError, match=message,
                        line_of="NormalDist(float" if fn is _inv_cdf else "d.cdf(1.0)",
                        cache=False, runtime_args=("p",))
        assert err.code == "E910"


def test_standard_library_exceptions_named_for_runtime_checks():
    from tpucc.errors import raisable_class, raisable_name
    assert raisable_name(statistics.StatisticsError) == "statistics.StatisticsError"
    assert raisable_class("statistics.StatisticsError") is statistics.StatisticsError
    assert raisable_name(ValueError) == "ValueError"
    assert raisable_class("os.system") is None
    assert raisable_class("numpy.linalg.LinAlgError") is None     # (not the standard library)

    class Mine(ValueError):
        pass
    assert raisable_name(Mine) is None


# --- bug_05: math's integer functions and a float's parts on runtime values ---------------------

def _integer_functions(a, b):
    n, k = int(a), int(b)
    return math.comb(n, k), math.perm(n, k), math.perm(n), math.factorial(k), \
        math.comb(n, 2), math.comb(70, k)


@pytest.mark.parametrize("n,k", [(5, 2), (0, 0), (3, 5), (20, 20), (66, 33), (60, 10),
                                 (25, 1), (70, 3), (21, 2), (4, 0)])
def test_comb_perm_factorial_of_runtime_ints(n, k):
    f = _compiled_once(_integer_functions)
    try:
        expected = _integer_functions(np.int64(n), np.int64(k))
    except Exception:       # noqa: BLE001 - past int64: compared below
        expected = None
    if expected is not None and all(-2**63 <= v < 2**63 for v in expected):
        assert_same(expected, f(np.int64(n), np.int64(k)))
    else:
        with pytest.raises(OverflowError, match="does not fit 64 bits"):
            f(np.int64(n), np.int64(k))


def _comb(a, b):
    return math.comb(int(a), int(b))


def _perm(a, b):
    return math.perm(int(a), int(b))


def _factorial(a):
    return math.factorial(int(a))


def test_comb_perm_factorial_errors_at_run_time():
    for fn, args, error, message in (
            (_comb, (-1, 2), ValueError, "n must be a non-negative integer"),
            (_comb, (5, -1), ValueError, "k must be a non-negative integer"),
            (_perm, (-1, 2), ValueError, "n must be a non-negative integer"),
            (_perm, (5, -2), ValueError, "k must be a non-negative integer"),
            (_factorial, (-3,), ValueError, "factorial\\(\\) not defined for negative values"),
            (_factorial, (21,), OverflowError, "does not fit 64 bits"),
            (_comb, (100, 50), OverflowError, "does not fit 64 bits"),
            (_perm, (30, 21), OverflowError, "does not fit 64 bits")):
        args = tuple(np.int64(a) for a in args)
        raises_at(fn, args, error=error, match=message, line_of="math.", cache=False)
        if error is ValueError:
            with pytest.raises(error, match=message):
                fn(*args)


def test_comb_of_a_binomial_pmf():
    def pmf(k, n, p):
        kk = int(k)
        return math.comb(n, kk) * p ** kk * (1 - p) ** (n - kk), math.factorial(kk)
    f = tpucc.compile(pmf, cache=False)       # (k a runtime argument: one build for all)
    for k in range(6):
        assert_same(pmf(np.int64(k), 5, 0.3), f(np.int64(k), 5, 0.3))


def _float_parts(x, i):
    v, n = float(x), int(i)
    return math.frexp(v), math.modf(v), math.ldexp(v, n), math.nextafter(v, 0.0), \
        math.nextafter(v, math.inf), math.ulp(v)


# (ldexp past the largest float is math's OverflowError, tested below.)
@pytest.mark.parametrize("x", [17.0, -0.3, 0.0, -0.0, 1e300, -2.5e-300, math.inf,
                               -math.inf, math.nan, 0.5, 3.75])
def test_frexp_modf_ldexp_nextafter_ulp_of_runtime_floats(x):
    f = _compiled_once(_float_parts)
    expected, actual = _float_parts(np.float64(x), np.int64(3)), f(np.float64(x), np.int64(3))
    assert type(expected) is type(actual) and len(expected) == len(actual)
    for e, a in zip(expected, actual):
        for ev, av in zip(e if isinstance(e, tuple) else (e,), a if isinstance(a, tuple) else (a,)):
            assert type(ev) is type(av), (e, a)
            assert ev == av or (math.isnan(ev) and math.isnan(av)), (e, a)
            assert math.copysign(1, ev) == math.copysign(1, av), (e, a)


def _ldexp(x, i):
    return math.ldexp(float(x), int(i))


def test_ldexp_overflow_raises_as_math_does():
    for x, i in ((1.5, 2000), (-1.0, 1024)):
        with pytest.raises(OverflowError, match="math range error"):
            _ldexp(np.float64(x), np.int64(i))
        raises_at(_ldexp, (np.float64(x), np.int64(i)), error=OverflowError,
                  match="math range error", line_of="math.ldexp", cache=False)
    same(_ldexp, np.float64(1.5), np.int64(-2000))
    same(_ldexp, np.float64(0.75), np.int64(-1074))


# --- bug_06: math.fsum over a generator of runtime values ---------------------------------------

def _fsum_generator(lp):
    return math.fsum(math.exp(float(v)) for v in lp)


def test_fsum_of_a_generator_names_fsum_not_float():
    err = raises_at(_fsum_generator, (np.array([-1.0, -2.0]),), error=UnsupportedError,
                    match=r"math\.fsum\(\) is not supported on runtime values",
                    line_of="math.fsum", cache=False)
    assert "sum()" in err.hint


# --- np.spacing / math.ulp where the gap is subnormal (found by the session's test run) ---------

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_spacing_is_numpys_where_the_gap_or_the_value_is_subnormal(dtype):
    """XLA:CPU flushes subnormals: jnp.spacing(2.5e-300) is 5e-324 (the gap
    is 3.3e-316), and a negative subnormal x compared with 0 reads as 0."""
    info = np.finfo(dtype)
    x = np.array([0.0, -0.0, 1.0, -1.0, 2.5e-300, -3e-310, 2.5e-40, -1e-42, 1e-20, -1e30,
                  info.smallest_subnormal, -info.smallest_subnormal, info.tiny, -info.tiny,
                  info.max, -info.max, np.inf, -np.inf, np.nan], np.float64).astype(dtype)
    with np.errstate(over="ignore"):
        expected = np.spacing(x)
    actual = tpucc.compile(lambda v: np.spacing(v), cache=False)(x)
    assert actual.dtype == expected.dtype
    assert np.array_equal(actual, expected, equal_nan=True)
    real = ~np.isnan(expected)
    assert np.array_equal(np.signbit(actual[real]), np.signbit(expected[real]))
