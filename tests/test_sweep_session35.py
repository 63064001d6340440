"""Session 35's sweeps: simulations, training loops, tabular data, hand-written
linear algebra, object-oriented models and the mistakes users make."""
from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

import tpucc

from conftest import check, count_hlo, hlo, raises_at, same_each


# --- max/min of an empty runtime slice: NumPy's ValueError ----------------------------------

def tail_max(u, n):
    return u[n:].max()


def head_min(u, n):
    return np.min(u[:n], axis=0)


@pytest.mark.parametrize("fn, n, word", [(tail_max, 8, "maximum"), (head_min, 0, "minimum")])
def test_max_min_of_an_empty_runtime_slice_raise_numpys_value_error(fn, n, word):
    # (they gave -inf and +inf; argmax of one was already checked)
    u = np.linspace(0.0, 1.0, 8)
    check(fn, u, np.int64(3))
    raises_at(fn, (u, np.int64(n)), ValueError,
              match=f"zero-size array to reduction operation {word} which has no identity",
              line_of="return")


# --- ufunc.at in NumPy's loop dtype ---------------------------------------------------------

def updates_at(s, k, v):
    np.add.at(s, k, v)
    np.subtract.at(s, k[::-1], v)
    np.multiply.at(s, k, v)
    return s


@pytest.mark.parametrize("dtypes", [(np.float32, np.float64), (np.int32, np.int64),
                                    (np.uint8, np.uint8)])
def test_ufunc_at_updates_in_numpys_loop_dtype(dtypes):
    # float32 += float64 adds in float64 and rounds once, as NumPy: the
    # value was rounded to float32 first, one ulp off
    rng = np.random.default_rng(0)
    s = (rng.random(5) * 10).astype(dtypes[0])
    k = rng.permutation(5)[:3]
    v = (rng.random(3) * 3 + 1).astype(dtypes[1])
    check(updates_at, s, k, v, rtol=0, atol=0)
    one = np.ones(1, np.float32)
    tiny = np.array([2.0 ** -24 + 2.0 ** -50])
    check(updates_at, one, np.array([0]), tiny, rtol=0, atol=0)


# --- tpucc.grad: two arguments that are one array ------------------------------------------

def cubic(a, b):
    return np.sum(a * b * b)


def tied(p, q):
    return np.sum(p["a"] * q["a"] * q["b"]) + np.sum(p["b"])


class Holder:
    def __init__(self, w):
        self.w = w


def of_holders(m1, m2):
    return np.sum(m1.w * m2.w * m2.w)


def test_two_differentiated_arguments_that_are_one_array_get_their_partials():
    # (each got the sum of both partial derivatives)
    w = np.array([1.0, 2.0, 3.0])
    ga, gb = tpucc.grad(cubic, argnums=(0, 1))(w, w)
    np.testing.assert_allclose(ga, w * w)
    np.testing.assert_allclose(gb, 2 * w * w)
    np.testing.assert_allclose(tpucc.grad(cubic, argnums=0)(w, w), w * w)
    inside = tpucc.compile(lambda w: tpucc.grad(cubic, argnums=(0, 1))(w, w))(w)
    np.testing.assert_allclose(inside[1], 2 * w * w)
    # one array at two places of one argument is still one parameter
    d = {"a": w, "b": w}
    gp, gq = tpucc.grad(tied, argnums=(0, 1))(d, d)
    np.testing.assert_allclose(gp["a"], w * w + 1)
    np.testing.assert_allclose(gq["b"], 2 * w * w)
    # and one object passed twice is one object: its total gradient at both
    m = Holder(w)
    g1, g2 = tpucc.grad(of_holders, argnums=(0, 1))(m, m)
    np.testing.assert_allclose(g1.w, 3 * w * w)
    np.testing.assert_allclose(g2.w, 3 * w * w)


# --- a 0-d array an attribute or item holds, rebound in a runtime loop ------------------------

class Bias:
    pass


def decay(m, items, d, n):
    for _ in range(n):
        m.b = m.b * np.float32(0.9)
        items[0] = items[0] * np.float32(0.9)
        d["b"] = d["b"] * np.float32(0.9)
    return m.b


def _decayed(fn, n):
    m = Bias()
    m.b = np.array(1.0, np.float32)
    items, d = [np.array(1.0, np.float32)], {"b": np.array(1.0, np.float32)}
    out = fn(m, items, d, n)
    return [(type(v), v.dtype, float(v)) for v in (out, m.b, items[0], d["b"])]


@pytest.mark.parametrize("n", [0, 3])
def test_a_zero_d_array_rebound_in_a_runtime_loop_keeps_numpys_kind(n):
    # a NumPy scalar after an iteration, the 0-d array if none ran (the
    # attribute came back a Python float, the items 0-d arrays)
    compiled = tpucc.compile(decay, runtime_args=("n",))
    assert _decayed(compiled, n) == _decayed(decay, n)
    m = Bias()
    m.b = np.array(1.0, np.float32)
    assert count_hlo(hlo(compiled, m, [np.float32(1)], {"b": np.float32(1)}, np.int64(2)),
                     "while") == 1


class Best:
    def __init__(self):
        self.best = -np.inf
        self.arg = 0


def track(t, xs, n):
    for i in range(n):
        t.best = xs[i].sum()
        t.arg = xs[i].argmax()
    return 0


def test_a_numpy_scalar_stored_on_an_attribute_in_a_runtime_loop_stays_one():
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    eager, compiled = Best(), Best()
    track(eager, x, 4)
    tpucc.compile(track)(compiled, x, np.int64(4))
    assert type(compiled.best) is type(eager.best) is np.float32
    assert type(compiled.arg) is type(eager.arg) and compiled.arg == eager.arg


# --- loops: a new object each iteration, for-else raise, endless loops -----------------------

@dataclasses.dataclass
class State:
    x: np.ndarray
    v: np.ndarray


def integrate(x, v, dt, n):
    s = State(x, v)
    for _ in range(n):
        s = State(s.x + dt * s.v, s.v - dt * s.x)
    return s.x


def test_a_dataclass_made_anew_in_a_runtime_loop_is_carried():
    # (refused until session 49: the object before the loop is the
    # program's, held by `s` alone, so a runtime loop carries it: 49P)
    f = same_each(integrate, (np.ones(2), np.zeros(2), 0.1, np.int64(5)),
                  (np.ones(2), np.zeros(2), 0.1, np.int64(0)))
    assert count_hlo(hlo(f, np.ones(2), np.zeros(2), 0.1, np.int64(5)), "while") == 1


def converge_else(x, tol):
    for _ in range(100):
        xn = np.cos(x)
        if abs(xn - x) < tol:
            break
        x = xn
    else:
        raise RuntimeError("no convergence")
    return xn


def converge_return(x, tol):
    for it in range(100):
        xn = np.cos(x)
        if abs(xn - x) < tol:
            return xn
        x = xn
    raise ValueError(f"no convergence after {it} steps")


def first_negative(x, n):
    i = 0
    while i < n:
        if x[i] < 0:
            break
        i += 1
    else:
        raise ValueError("all positive")      # (not `assert`: pytest rewrites it here)
    return i


@pytest.mark.parametrize("fn", [converge_else, converge_return])
def test_a_raise_after_a_loop_a_runtime_exit_may_leave_is_a_runtime_check(fn):
    # (the `for ... else: raise` idiom was refused: E100)
    check(fn, np.float64(1.0), 1e-9)
    raises_at(fn, (np.float64(1.0), -1.0), (RuntimeError, ValueError), match="no convergence",
              line_of="raise")
    assert count_hlo(hlo(tpucc.compile(fn), np.float64(1.0), 1e-9), "while") == 1
    check(first_negative, np.array([1.0, -1.0, 2.0]), np.int64(3))
    raises_at(first_negative, (np.ones(3), np.int64(3)), ValueError, match="all positive",
              line_of="all positive")


def forgot_the_increment(x):
    i = 0
    while i < 10:
        x = x + 1
    return x


def endless(x):
    while True:
        x = x + 1
    return x


def endless_under_runtime_or(x):
    while x.sum() > 0 or True:
        x = x + 1
    return x


def endless_but_for_a_raise(x):
    while True:
        x = x + 1
        if x[0] > 5:
            raise ValueError("too big")
    return x


@pytest.mark.parametrize("fn", [forgot_the_increment, endless, endless_under_runtime_or,
                                endless_but_for_a_raise])
def test_a_loop_that_never_ends_is_refused_at_its_line(fn):
    # (compiled code returned None at once; one crashed with an IndexError)
    raises_at(fn, (np.ones(3),), tpucc.errors.LimitError, match="this loop never ends",
              line_of="while")


def leaves_by_break(x):
    while True:
        x = x + 1
        if x[0] > 5:
            break
    return x


def test_an_endless_looking_loop_left_by_break_compiles():
    check(leaves_by_break, np.ones(3))


# --- arithmetic with constants: NumPy's roundings -------------------------------------------

@pytest.mark.parametrize("fn", [lambda x: (x + 0.05) - 0.1, lambda x: (x * 3.0) * 7.0,
                                lambda x: (0.1 - x) + 0.3,
                                lambda x: (x.astype(np.float32) - np.float32(1)) + np.float32(1)])
def test_xla_does_not_fold_the_constants_of_two_operations(fn):
    # ((x + 0.05) - 0.1 was x + -0.05: 90% of the elements one ulp off)
    x = np.random.default_rng(0).random(1000)
    check(fn, x, rtol=0, atol=0)


@pytest.mark.parametrize("dtype, exponent", [(np.float64, 3), (np.float32, 3), (np.float64, 7.0)])
def test_a_power_by_a_constant_is_pow_not_repeated_products(dtype, exponent):
    # x ** 3 was x * x * x: 26% of the elements one ulp off pow's.  NumPy
    # calls the C library's pow, or, on a CPU with AVX-512, its own vector
    # pow, which is itself up to an ulp off in places (5% here on an AMD
    # EPYC Zen 4): each element must be one of the two.
    x = np.random.default_rng(0).random(1000).astype(dtype)
    got = tpucc.compile(lambda v: v ** exponent, cache=False)(x)
    assert got.dtype == (x ** exponent).dtype
    libm = np.array([math.pow(float(v), exponent) for v in x]).astype(dtype)
    assert np.all((got == x ** exponent) | (got == libm))


# --- products of runtime slices -------------------------------------------------------------

def forward_dot_method(L, b):
    y = np.zeros_like(b)
    for i in range(len(b)):
        y[i] = b[i] - L[i, :i].dot(y[:i])
    return y


def forward_matmul(L, b):
    y = np.zeros_like(b)
    for i in range(len(b)):
        y[i] = b[i] - np.matmul(L[i, :i], y[:i])
    return y


def forward_vecdot(L, b):
    y = np.zeros_like(b)
    for i in range(len(b)):
        y[i] = b[i] - np.vecdot(L[i, :i], y[:i])
    return y


@pytest.mark.parametrize("fn", [forward_dot_method, forward_matmul, forward_vecdot])
def test_products_of_runtime_slices_by_method_and_ufunc_run_as_one_while(fn):
    # (unrolled: 22 s for 150 rows, where `@` gave one while)
    rng = np.random.default_rng(0)
    L = np.tril(rng.standard_normal((40, 40)), -1) / 40 + np.eye(40)
    b = rng.standard_normal(40)
    compiled = check(fn, L, b, rtol=1e-12, atol=1e-12)
    assert count_hlo(hlo(compiled, L, b), "while") == 1


def lu_trailing(A):
    A = A.copy()
    for k in range(A.shape[0] - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        A[[k, p]] = A[[p, k]]
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A


def test_lu_with_a_two_axis_trailing_update_is_one_while():
    # (unrolled with a warning before slices with runtime bounds on two axes compiled)
    a = np.random.default_rng(2).standard_normal((40, 40))
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)
        compiled = check(lu_trailing, a, rtol=1e-9, atol=1e-9)
    assert count_hlo(hlo(compiled, a), "while") == 1


# --- user classes -----------------------------------------------------------------------------

class NoUfuncs:
    __array_ufunc__ = None

    def __init__(self, a):
        self.a = a

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.a, dtype=dtype)


@pytest.mark.parametrize("reduce", [np.tanh, np.sum, np.max])
def test_a_class_opting_out_of_ufuncs_gets_numpys_type_error(reduce):
    def f(x):
        return reduce(NoUfuncs(x))
    with pytest.raises(TypeError):
        f(np.arange(3.0))
    raises_at(f, (np.arange(3.0),), tpucc.errors.UserCodeError, match="does not support ufuncs",
              line_of="return")
    check(lambda x: np.mean(NoUfuncs(x)), np.arange(3.0))      # (not a ufunc: converted)


class Vec2:
    def __init__(self, x, y):
        self.x, self.y = x, y


def array_of_points(a):
    return np.array([Vec2(a[0], a[1]), Vec2(a[1], a[0])])


def test_an_array_of_python_objects_is_refused_at_its_line():
    # (an internal error from jax: "dtype object")
    raises_at(array_of_points, (np.arange(2.0),), tpucc.errors.DTypeError,
              match="dtype object .of Vec2 objects", line_of="np.array")


# --- np.pad: NumPy's readings of pad_width and constant_values ------------------------------

@pytest.mark.parametrize("width", [((1,), (2,)), (3,), [[1], [0]], ((1, 2), (3, 4)), (1, 2)])
@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad_reads_every_form_of_pad_width_as_numpy(width, mode):
    # (((1,), (2,)) padded one axis by (1, 2) and the other by (1, 2): shape (7, 8), not (6, 9))
    check(lambda x: np.pad(x, width, mode=mode), np.arange(20).reshape(4, 5).astype(np.uint8))


def test_pad_casts_constant_values_as_numpy():
    # (300 into uint8 pads with 44 in NumPy, -1 with 255; was an OverflowError)
    image = np.arange(6).reshape(2, 3).astype(np.uint8)
    check(lambda x: (np.pad(x, 1, constant_values=300), np.pad(x, 1, constant_values=-1),
                     np.pad(x, 1, constant_values=((1, 2), (3, 4)))), image)


# --- read-only views follow later writes into their base --------------------------------------

def windows_then_write(x):
    w = np.lib.stride_tricks.sliding_window_view(x, 3)
    x[0] = 100.0
    return w.sum(axis=1)


def broadcast_then_write(x):
    b = np.broadcast_to(x, (2, 5))
    x[1] = 7.0
    return b.sum(axis=0)


@pytest.mark.parametrize("fn", [windows_then_write, broadcast_then_write])
def test_a_read_only_view_shows_a_later_write_into_its_base(fn):
    # (the windows and the broadcast were copies: [3, 6, 9] where NumPy gives [103, 6, 9])
    check(fn, np.arange(5.0))


# --- edge values: complex magnitudes, runtime clip bounds --------------------------------------

def test_the_magnitude_of_a_complex_with_an_infinite_part_is_inf_even_beside_nan():
    # (XLA's gave NaN for inf + nan*j; NumPy's hypot gives inf)
    z = np.array([complex(np.inf, np.nan), complex(np.nan, -np.inf), 3 + 4j, np.nan + 0j])
    check(lambda z: (np.abs(z), np.abs(z.astype(np.complex64))), z)


def clip_between(x, lo, hi):
    return np.clip(x, lo, hi)


@pytest.mark.parametrize("lo, hi", [(-1000, 3), (0, 1000), (-3, 2)])
def test_a_runtime_int_clip_bound_beyond_the_dtype_is_taken_as_numpy_takes_it(lo, hi):
    # (converted to int8, -1000 wrapped to 24 and clipped everything to 3)
    check(clip_between, np.array([1, 5, -2], np.int8), lo, hi,
          compile_kwargs={"runtime_args": ("lo", "hi")})


def test_a_runtime_int_clip_bound_beyond_the_other_end_is_numpys_overflow_error():
    raises_at(clip_between, (np.array([1, 5, -2], np.int8), 1000, 3), OverflowError,
              match="Python integer 1000 out of bounds for int8", line_of="np.clip",
              runtime_args=("lo", "hi"))


# --- one compiled function, several threads ----------------------------------------------------

def scaled_sum(x, k):
    return (x * k).sum()


def test_threads_compiling_one_function_at_once_each_get_their_result():
    # (two traces of one function at once mixed their values: E999, or a
    # raw jax TypeError)
    import threading
    compiled = tpucc.compile(scaled_sum)
    results, errors = {}, []

    def work(n):
        try:
            x = np.arange(n, dtype=np.float64)
            results[n] = compiled(x, 2.0)
        except Exception as e:      # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(n,)) for n in range(3, 9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == {n: np.arange(n, dtype=np.float64).sum() * 2.0 for n in range(3, 9)}
    import copy
    assert copy.deepcopy(compiled) is compiled      # (as a function; failed after a call)


# --- the API's edges ----------------------------------------------------------------------------

class Doubler:
    def __init__(self):
        self.k = 2.0

    def forward(self, x):
        return x * self.k


def test_an_argument_may_be_passed_by_the_keyword_self():
    # (CompiledFunction.__call__ got multiple values for argument 'self')
    m, x = Doubler(), np.ones(3)
    np.testing.assert_array_equal(tpucc.compile(Doubler.forward)(self=m, x=x), 2 * x)
    assert "while" not in tpucc.compile(Doubler.forward).lower(self=m, x=x).as_text()


def test_a_compiled_function_inside_a_jax_transformation_is_a_tpucc_error():
    import jax
    compiled = tpucc.compile(lambda x: np.sin(x).sum())
    with pytest.raises(tpucc.errors.OptionError, match="inside a jax transformation"):
        jax.grad(compiled)(np.ones(3))


def test_a_recompile_warning_names_the_users_call():
    class Box:
        def __init__(self, v):
            self.v = v
    compiled = tpucc.compile(lambda b, x: x * b.v)
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        for _ in range(10):
            compiled(Box(2.0), np.ones(2))
    said = [w for w in found if issubclass(w.category, tpucc.RecompileWarning)]
    assert said and said[0].filename == __file__


def make_adder(x):
    k = 2
    return lambda y: y + x * k


def make_partial(x):
    import functools
    return functools.partial(np.add, x * 2)


def make_static_function(x):
    return np.add, x       # (a function of no compiled value: returned as it is)


@pytest.mark.parametrize("fn", [make_adder, make_partial])
def test_returning_a_function_holding_compiled_values_is_refused(fn):
    # (the caller got tpucc's placeholders in its cells and arguments)
    raises_at(fn, (np.ones(2),), tpucc.errors.UnsupportedError,
              match="returns a function that holds values of the compiled code")
    add, x = tpucc.compile(make_static_function)(np.ones(2))
    assert add is np.add and np.array_equal(x, np.ones(2))


def close_to(x, k):
    return np.isclose(x, k), np.isclose(x, k + 0.5)


@pytest.mark.parametrize("k", [-1000, 300, 5])
def test_isclose_of_an_int8_array_and_a_runtime_python_int_compares_as_numpy(k):
    # (a runtime int that int8 cannot hold raised a spurious OverflowError)
    check(close_to, np.array([1, 5, -2], np.int8), k, compile_kwargs={"runtime_args": ("k",)})
