"""Session 16's sweep of realistic user programs (tests/user_programs_session16.py):
each compiled whole and compared with eager NumPy (values, dtypes, scalar
kinds, arguments changed in place), runtime control flow checked in the HLO;
then the bugs and refusals the sweep found."""
import copy

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import assert_same, check, count_hlo, hlo, raises_at, same
import user_programs_session16 as P  # noqa: E402  (its asserts must stay Python's)

RNG = np.random.default_rng(16)
F32 = np.float32


def _rand(*shape, dtype=np.float64):
    return RNG.normal(size=shape).astype(dtype)


def _two_clusters():
    x = np.concatenate([_rand(10, 2) * 0.3, 3 + _rand(10, 2) * 0.3])
    return x, x[[0, 15]].copy()


def _adam_state(t):
    return {"t": t, "m": {"w": np.zeros(3), "b": np.zeros(2)},
            "v": {"w": np.zeros(3), "b": np.zeros(2)}}


def _mandelbrot_grid():
    re, im = np.meshgrid(np.linspace(-2, 1, 8), np.linspace(-1.2, 1.2, 6))
    return re + 1j * im


def _plate():
    u = np.zeros((6, 6))
    u[0] = 1.0
    return u


def _spd():
    a = _rand(4, 4)
    return a @ a.T + 4 * np.eye(4)


CSR = (np.array([1., 2., 3., 4.]), np.array([0, 2, 1, 2]), np.array([0, 2, 2, 4]),
       np.array([1., 10., 100.]))


def _graph():
    w = RNG.random((5, 5))
    w[w < 0.4] = np.inf
    return w


def _distances():
    d = RNG.random((5, 5)) * 10
    np.fill_diagonal(d, 0)
    return d


# (program, arguments, the HLO op its runtime control flow must become or None)
PROGRAMS = {
    "kmeans": (P.kmeans, lambda: _two_clusters(), "while"),
    "logistic_regression": (P.logistic_regression, lambda: (
        _rand(40, 3), (RNG.random(40) > 0.5).astype(float)), "while"),
    "adam_in_place": (P.adam_in_place, lambda: (
        {"w": np.zeros(3), "b": np.ones(2)}, P.quadratic_grads(np.array([1., 2., 3.])),
        _adam_state(np.zeros((), np.int64)), np.int64(5)), "while"),
    "masked_attention": (P.masked_attention, lambda: (
        _rand(2, 4, 3, dtype=F32), _rand(2, 4, 3, dtype=F32), _rand(2, 4, 3, dtype=F32),
        np.array([4, 2])), None),
    "gru": (P.gru_sequence, lambda: (
        _rand(6, 3), np.int64(4), np.zeros(4), _rand(4, 7), _rand(4, 7), _rand(4, 7)), "while"),
    "lstm": (P.lstm_last, lambda: (
        _rand(6, 3, dtype=F32), np.int64(5), (_rand(16, 7, dtype=F32), np.zeros(16, F32))),
        "while"),
    "cross_entropy": (P.cross_entropy, lambda: (_rand(5, 3, dtype=F32),
                                                np.array([0, 2, 1, 1, 0])), None),
    "mandelbrot": (P.mandelbrot, lambda: (_mandelbrot_grid(), 30), "while"),
    "game_of_life": (P.game_of_life, lambda: (
        (RNG.random((8, 8)) < 0.4).astype(np.uint8), 4), None),
    "nbody": (P.nbody_leapfrog, lambda: (
        _rand(4, 3), np.zeros((4, 3)), np.array([1., 2., 1., .5]), 0.01, 40), "while"),
    "newton_sqrt": (P.newton_sqrt, lambda: (np.array([2., 9., 0.5]),), "while"),
    "jacobi": (P.jacobi_heat, lambda: (_plate(), 1e-4), "while"),
    "running_stats": (P.running_stats, lambda: ([_rand(3, 2), _rand(2, 2)],), None),
    "power_iteration": (P.power_iteration, lambda: (_spd(),), "while"),
    "conjugate_gradient": (P.conjugate_gradient, lambda: (_spd(), np.ones(4)), "while"),
    "config_dataclass": (P.standardize_and_bucket, lambda: (_rand(8, 2),), None),
    "top_k": (P.top_k_rank, lambda: (_rand(3, 5),), None),
    "embedding": (P.embed_and_pool, lambda: (
        _rand(6, 3, dtype=F32), np.array([[1, 2, 0], [5, 5, 3]]),
        np.array([[1, 1, 0], [1, 0, 0]], bool)), None),
    "masked_sums": (P.masked_sums, lambda: (_rand(4, 3), 0.2), None),
    "stack_features": (P.stack_features, lambda: (
        [_rand(2, 3), _rand(2, 4)], [_rand(3, 5), _rand(4, 5)]), None),
    "closures": (P.use_closures, lambda: (np.arange(3.0), np.ones((2, 2))), None),
    "uint8_image": (P.brighten_uint8, lambda: (
        RNG.integers(0, 256, (4, 5), dtype=np.uint8), 100), None),
    "int8_wrap": (P.int8_accumulate, lambda: (
        RNG.integers(-128, 128, (5, 4), dtype=np.int8),), None),
    "float16_nep50": (P.mixed_precision, lambda: (
        RNG.random(5).astype(np.float16), RNG.random(5).astype(F32)), None),
    "dft": (P.dft_and_filter, lambda: (_rand(8),), None),
    "ridge": (P.ridge, lambda: (_rand(10, 3), _rand(10), 0.1), None),
    "viterbi": (P.viterbi, lambda: (
        np.log([.6, .4]), np.log([[.7, .3], [.4, .6]]), np.log([[.5, .4, .1], [.1, .3, .6]]),
        np.array([0, 1, 2, 2, 1])), None),
    "bubble_sort": (P.bubble_sort, lambda: (np.array([5, 3, 9, 1, 4]),), "while"),
    "binary_search": (P.binary_search, lambda: (np.array([1, 3, 5, 7, 9]), np.int64(6)), "while"),
    "checked_normalize": (P.checked_normalize, lambda: (RNG.random((3, 2)),), None),
    "fft_recursive": (P.fft_recursive, lambda: (_rand(8),), None),
    "gauss_pivot": (P.gauss_pivot, lambda: (_rand(4, 4), _rand(4)), None),
    "floyd_warshall": (P.floyd_warshall, lambda: (_distances(),), None),
    "dijkstra": (P.dijkstra, lambda: (_graph(), np.int64(0)), "while"),
    "xorshift": (P.xorshift_uniform, lambda: (12345, 64, 3), None),
    "levenshtein": (P.levenshtein, lambda: (np.array([1, 2, 3, 4]), np.array([1, 3, 4, 5, 6])),
                    None),
    "kalman": (P.kalman_1d, lambda: (_rand(6),), None),
    "moving_average": (P.moving_average, lambda: (_rand(7),), None),
    "classes": (P.total_area, lambda: (
        [np.array(2.0), np.array([1., 3.])], [np.array(1.0)]), None),
    "generator": (P.generator_batches, lambda: (np.arange(10.0), 4), None),
    "early_return_found": (P.early_return_search, lambda: (
        np.array([3, 1, 4, 1, 5]), np.int64(4)), "conditional"),
    "early_return_missing": (P.early_return_search, lambda: (
        np.array([3, 1, 4, 1, 5]), np.int64(7)), "conditional"),
    "gram_schmidt": (P.gram_schmidt, lambda: (_rand(5, 3),), None),
    "gaussian_loglik": (P.gaussian_loglik, lambda: (
        _rand(4, 2), np.zeros(2), np.array([[2., .3], [.3, 1.]])), None),
    "csr_searchsorted": (P.csr_matvec_searchsorted, lambda: CSR, None),
    "complex": (P.complex_ops, lambda: (np.array([1 + 2j, -.5 + 1j, 3 - 1j]),
                                        np.array([.5j, 2 + 0j, -1 + 1j])), None),
    "histogram_equalize": (P.histogram_equalize, lambda: (
        RNG.integers(50, 120, (4, 4), dtype=np.uint8),), None),
    "sorted_scalars": (P.sort_list_of_scalars, lambda: (
        np.array([3., 1.]), np.array([-1., .5]), np.array([2., 2.])), None),
    "sliding_windows": (P.sliding_windows, lambda: (np.arange(6.0), _rand(3, 4)), None),
    "namedtuple_stats": (P.describe, lambda: (_rand(3, 4), "tanh"), None),
    "scalar_kinds": (P.scalar_kinds, lambda: (np.array([1.0, -2.5, 4.0]),), None),
    "integers": (P.integer_semantics, lambda: (
        np.array([100, 50, -128, 7], np.int8), np.array([3, 250, 17, 0], np.uint8),
        np.array([7, -8, 5, 2], np.int32)), None),
    "bools": (P.bool_semantics, lambda: (np.array([True, False, True]),
                                         np.array([True, True, False])), None),
    "dtype_mixing": (P.dtype_mixing, lambda: (
        np.array([1.5, -2.0], F32), np.array([0.1, 0.2]), np.array([3, -4])), None),
    "nested_loops": (P.nested_control, lambda: (np.array([-1.0, 0.5, 0.25]), np.float64(3.0)),
                     "while"),
    "dataset_class": (P.train_epoch, lambda: (_rand(12, 3), _rand(12), np.zeros(3)), None),
    "functools": (P.functional_tools, lambda: (
        [np.arange(3.0), np.ones(3), np.full(3, 2.0)],), None),
    "string_dispatch": (P.string_dispatch, lambda: (np.arange(4.0), " L2 "), None),
    "while_true": (P.sum_of_squares_while_true, lambda: (
        np.array([[1., 2.], [-3., 1.], [1., 1.]]),), None),
    "ranks": (P.argsort_ranks, lambda: (_rand(7),), None),
    "einsum": (P.outer_products, lambda: (np.arange(1.0, 4.0), np.array([2.0, -1.0, 0.5])),
               None),
    "complex64": (P.complex_mixed, lambda: (
        np.array([1 + 2j, -0.5j], np.complex64), np.array([2.0, 3.0], F32)), None),
    "out_arguments": (P.out_arguments, lambda: (np.array([1., 2., 3.]), np.array([3., -1., 2.])),
                      None),
    "repeated_indices": (P.repeated_index_writes, lambda: (np.arange(5.0), np.array([1, 1, 3])),
                         None),
    "nan_and_ties": (P.nan_and_ties, lambda: (np.array([1., 3., np.nan, 3., -0.0, 0.0]),), None),
    "rounding": (P.rounding_and_mod, lambda: (
        np.array([2.5, -0.5, 1.25, -7.5, 3.0]), np.array([2., -2., 0.5, 2., -0.0])), None),
    "shifts_and_bits": (P.shifts_and_bits, lambda: (
        np.array([1, -3, 100, -128], np.int8), np.array([1, 65535, 256, 7], np.uint16)), None),
    "clip_and_complex_var": (P.clip_and_misc, lambda: (np.array([.5, -1., 2., 0., 3., -.25]),),
                             None),
    "swap_in_loop": (P.swap_in_loop, lambda: (np.array([0.0]), np.array([1.0]), np.int64(10)),
                     "while"),
    "runtime_row_index": (P.fill_by_runtime_index, lambda: (np.arange(3.0), np.int64(4)),
                          "while"),
    "copyto": (P.copyto_where, lambda: (np.zeros(4), np.array([1., -2., 3., -0.5])), None),
    "float16_softmax": (P.softmax_f16, lambda: (
        np.array([[1., 2., 3.], [0., -1., 5.]], np.float16),), None),
    "robust_fit_grad": (P.robust_fit, lambda: (
        _rand(20, 2), _rand(20), np.int64(300)), "while"),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # NumPy's own, on purpose
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_numpy(name):
    fn, make_args, control = PROGRAMS[name]
    args = make_args()
    compiled = check(fn, *args, rtol=1e-5, atol=1e-7)
    if control is not None:
        assert count_hlo(hlo(compiled, *args), control) >= 1


def test_model_object_captured_by_a_closure():
    model = P.Sequential([P.Dense(_rand(3, 5), np.zeros(5), np.tanh),
                          P.Dense(_rand(5, 2), np.ones(2))])
    check(lambda x: P.mlp_predict(model, x), _rand(4, 3))


@pytest.mark.parametrize("x", [np.array([5., 6.]), np.array([-1., 2.]), np.array([1., 2.])])
def test_returns_from_runtime_branches(x):
    compiled = check(P.classify_code, x)
    assert count_hlo(hlo(compiled, x), "conditional") >= 1


@pytest.mark.parametrize("x", [np.array([5., 6.]), np.array([-1., 2.]), np.array([1., 2.])])
def test_strings_returned_from_runtime_branches(x):
    same(P.classify, x)         # (the label: a runtime choice among the three strings)


def test_bisection_with_a_lambda():
    c = np.array([1., -3., 0.5])
    check(P.bisect, lambda t: c[0] * t ** 3 + c[1] * t + c[2], 0.0, 1.0)


def test_rk4_with_a_lambda_and_a_python_time():
    check(P.rk4, lambda t, y: -y * np.cos(t), np.array([1., 2.]), 0.0, 1.0, 20)


def test_print_in_a_loop(capfd):
    check(P.print_progress, np.arange(3.0), 3)
    out = capfd.readouterr().out
    assert out.count("step 0") == 2 and out.count("step 2") == 2       # eager, then compiled


def test_gradients_of_attention_match_finite_differences():
    params = {k: _rand(3, 3) for k in ("wq", "wk", "wv")}
    x, lengths = _rand(2, 4, 3), np.array([4, 2])
    loss, grads = tpucc.compile(P.attention_grads)(params, x, lengths)
    assert loss == pytest.approx(P.attention_loss(params, x, lengths), rel=1e-12)
    eps = 1e-6
    for k in params:
        for i in np.ndindex(3, 3):
            up, down = ({**params, k: params[k] + d * np.eye(9)[i[0] * 3 + i[1]].reshape(3, 3)}
                        for d in (eps, -eps))
            ref = (P.attention_loss(up, x, lengths) - P.attention_loss(down, x, lengths)) / (2 * eps)
            assert grads[k][i] == pytest.approx(ref, rel=1e-4, abs=1e-7)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_gradient_through_a_runtime_branch(sign):
    w, x = sign * np.ones(3), np.abs(_rand(2, 3))
    g, value = tpucc.compile(P.cond_in_grad)(w, x)
    s = (x @ w).sum()
    np.testing.assert_allclose(g, 2 * s * x.sum(0) if s > 0 else -x.sum(0), rtol=1e-12)
    assert value == pytest.approx(s ** 2 if s > 0 else -s)


def test_gradient_of_a_dataclass_module():
    layer, x, y = P.Linear(_rand(3, 2), np.zeros(2), 2.0), _rand(4, 3), _rand(4, 2)
    gw, gb, _ = tpucc.compile(P.object_grad)(layer, x, y)
    residual = 2.0 * (x @ layer.w) + layer.b - y
    np.testing.assert_allclose(gw, 2 * 2.0 * x.T @ residual, rtol=1e-10)
    np.testing.assert_allclose(gb, 2 * residual.sum(0), rtol=1e-10)


# --- bug: np.var / np.std of complex arrays -------------------------------------------------

@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_variance_of_complex_values(dtype):
    """The mean was taken of the real parts only (the complex values were
    cast to the real result dtype first): var is mean(|x - mean|^2)."""
    z = (np.arange(6.0) + 1j * np.arange(6.0)[::-1] ** 2).reshape(2, 3).astype(dtype)
    check(lambda z: (np.var(z), z.var(axis=1, keepdims=True), np.std(z, axis=0, ddof=1),
                     z.std()), z, rtol=1e-5)


# --- runtime slice bounds: a selection of the first axis ---------------------------------

def _slice_reductions(x, i, j):
    return (x[:i].sum(), x[i:j].mean(), x[j:i:-1].max(), x[-i:].prod(), len(x[i:j:2]),
            x[::i].sum(), x[i:j, 1].sum(), x[i:j].sum(axis=0), np.sqrt(x[i:]).min())


@pytest.mark.parametrize("i, j", [(2, 5), (1, 6), (-4, 5), (3, 9)])
def test_runtime_slice_reductions(i, j):
    check(_slice_reductions, np.arange(1.0, 13.0).reshape(6, 2), np.int64(i), np.int64(j))


def _slice_updates(x, i, k):
    x[i::k] = 0
    x[:i] += 1
    y = x[i:]           # a view: its update goes into x, x's later change shows in it
    y *= 2
    x[-1] = 7
    return y.sum(), x


@pytest.mark.parametrize("i, k", [(1, 2), (0, 3), (2, -1), (5, 1)])
def test_runtime_slice_updates_are_views(i, k):
    check(_slice_updates, np.arange(6.0), np.int64(i), np.int64(k))


def _prefix_sums(x):
    s = 0.0
    for k in range(40):     # past the unroll budget: a counted While, k a runtime value
        s += x[:k].sum() + x[k::3].max()
    return s


def test_runtime_slices_in_a_counted_loop():
    compiled = check(_prefix_sums, np.arange(50.0))
    assert count_hlo(hlo(compiled, np.arange(50.0)), "while") == 1


def test_sieve_with_a_runtime_stride():
    compiled = check(P.sieve, 30, np.int64(30))
    assert count_hlo(hlo(compiled, 30, np.int64(30)), "while") == 1


def _zero_step(x, k):
    return x[::k].sum()


def test_a_runtime_slice_step_of_zero_raises_when_the_call_returns():
    f = tpucc.compile(_zero_step)
    assert f(np.ones(3), np.int64(1)) == 3.0
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        f(np.ones(3), np.int64(0))


def _returns_prefix(x, i):
    return x[:i]


def _later_axis(x, i):
    return x[:, i::-1].sum()        # (a backward runtime slice of a later axis)


@pytest.mark.parametrize("fn, args, error, text, line", [
    (_returns_prefix, (np.ones(3), np.int64(1)), E.ShapeError,
     r"returning x\[i:j\]: a slice with runtime bounds", "return"),
    (_later_axis, (np.ones((2, 2)), np.int64(1)), E.StaticValueError,
     r"slice bounds that depend on runtime values", "return"),
])
def test_runtime_slice_refusals_say_what_compiles(fn, args, error, text, line):
    err = raises_at(fn, args, error, text, line_of=line)
    assert "x[:i].sum()" in err.hint or "reductions of x[i:j]" in err.hint


def test_csr_matvec_gathers_through_a_runtime_slice():
    # (x[indices[lo:hi]]: a gather through a slice with runtime bounds,
    # once refused E200)
    check(P.csr_matvec, *CSR)


# --- sorted() of runtime values ---------------------------------------------------------------

def test_sorted_of_runtime_values_by_key_is_refused():
    raises_at(P.sort_by_runtime_key, ([np.ones(2), np.zeros(2)],), E.StaticValueError,
              r"sorted\(\) of runtime values would compare them", line_of="sorted(")


def test_sorted_by_a_static_key_still_compiles():
    check(lambda a, b: sorted([a, b[None]], key=lambda v: -v.ndim), np.ones(2), np.zeros(2))


# --- containers passed in ----------------------------------------------------------------

def test_adam_with_python_int_step_in_a_runtime_loop():
    """Refused until session 17: the Python int `state["t"]` and the rebound
    moments are now written back into the caller's dict."""
    args = ({"w": np.zeros(3), "b": np.ones(2)}, P.quadratic_grads(np.ones(3)), _adam_state(0),
            np.int64(2))
    f = check(P.adam, *args)
    assert count_hlo(hlo(f, *copy.deepcopy(args)), "while") == 1


def test_rebinding_an_item_of_a_nested_argument_dict():
    def step(state, g):
        state["m"]["w"] = 0.9 * state["m"]["w"] + g
    check(step, {"m": {"w": np.zeros(2)}}, np.ones(2))


def test_adding_a_key_to_a_nested_argument_dict_names_the_argument():
    def step(state, g):
        state["m"]["new"] = g
    err = raises_at(step, ({"m": {"w": np.zeros(2)}}, np.ones(2)), E.SideEffectError,
                    "changing a dict passed as an argument", line_of='state["m"]["new"] =')
    assert "written back" in err.hint


# --- np.repeat ----------------------------------------------------------------------------------

def test_repeat_with_static_per_element_counts():
    check(lambda x: (np.repeat(x, [1, 0, 3], axis=0), x.repeat((1, 2), axis=1),
                     np.repeat(x[0], [0, 2])), np.arange(6.0).reshape(3, 2))


def test_repeat_with_runtime_counts_points_to_searchsorted():
    err = raises_at(P.csr_matvec_repeat, CSR, E.ShapeError, "np.repeat with runtime repeats",
                    line_of="np.repeat")
    assert "np.searchsorted(indptr" in err.hint


# --- ufuncs: out= and where= -------------------------------------------------------------------

def _into_out(a, b, m):
    r = np.multiply(a, 2, out=a, where=m)
    np.add(b, 1.5, out=(b,))
    np.exp(b[:2], out=b[1:])
    c = np.zeros((2, 3))
    np.add(a, 1, out=c)                     # broadcast into out's shape
    return r is a, c, np.add(a, b, dtype=np.float32, out=np.empty(3, np.float32))


def test_ufunc_out_and_where():
    check(_into_out, np.array([1., 2., 3.]), np.array([3., -1., 2.]),
          np.array([True, False, True]))


def test_ufunc_out_casts_as_numpy():
    raises_at(lambda i: np.add(i, 1.5, out=i), (np.arange(3),), E.DTypeError,
              "Cannot cast ufunc 'add' output from float64 to int64")


def test_ufunc_where_without_out_is_refused():
    raises_at(lambda x: np.add(x, 1, where=x > 0), (np.ones(3),), E.UnsupportedError,
              r"np.add\(where=...\) without out=")


def test_argmax_out_is_refused_not_ignored():
    raises_at(lambda x, o: np.argmax(x, out=o), (np.arange(3), np.zeros((), np.int64)),
              E.UnsupportedError, r"np.argmax\(out=...\) is not supported")


# --- nanargmax / nanargmin ------------------------------------------------------------------

def _nan_args(x):
    return (np.nanargmax(x), np.nanargmin(x), np.nanargmax(x.reshape(2, 3), axis=1),
            np.nanargmin(x.reshape(2, 3), axis=0, keepdims=True))


def test_nanargmax_and_an_all_nan_slice():
    check(_nan_args, np.array([1., np.nan, -np.inf, 3., 5., 2.]))
    f = tpucc.compile(_nan_args)
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        f(np.array([1., np.nan, 2., np.nan, np.nan, np.nan]))


# --- operator.itemgetter / attrgetter, library callables ------------------------------------

class _Holder:
    def __init__(self):
        self.inner = _Inner()
        self.c = np.arange(2.0)


class _Inner:
    def __init__(self):
        self.b = np.ones(2)


def test_itemgetter_and_attrgetter_read_runtime_items():
    import operator
    holder = _Holder()
    check(lambda d: (operator.itemgetter("w")(d) * 2, operator.itemgetter(0, -1)([d["w"], 1.0]),
                     operator.attrgetter("inner.b", "c")(holder)), {"w": np.ones(2)})


def test_a_callable_object_from_a_library_is_named_by_its_class():
    import collections
    counter = collections.Counter()
    # (a Counter is not callable: Python's TypeError, as eagerly, naming its class)
    err = raises_at(lambda x: counter(x), (np.ones(2),), TypeError)
    assert "'Counter' object is not callable" in err.message


def test_an_error_inside_the_standard_library_is_placed_at_the_users_line():
    err = raises_at(P.namedtuple_helper, (np.arange(3.0),), E.UnsupportedError,
                    line_of="collections.namedtuple")
    assert "in the standard library's __init__.py:" in err.message
