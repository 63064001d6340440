"""Bugs from sweep 36h, fixed in session 36f: NumPy's statistics and norms of
a slice with runtime bounds (masked_statistics.py), and its reductions over
an axis tuple or with where=, compile, so a loop over x[:j] that uses them
is one While instead of being unrolled."""
import warnings

import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo, raises_at

_RUNTIME_I = {"runtime_args": ("i",)}


def _loop_over_prefixes(body):
    """s[j] = body(x, j) for j in 1..n-1: with unroll=2, a While whose j is
    a runtime value, so x[:j] is a slice with runtime bounds."""
    def program(x):
        s = np.zeros(x.shape[0])
        for j in range(1, x.shape[0]):
            s[j] = body(x, j)
        return s
    return program


def _one_while(body, x):
    compiled = check(_loop_over_prefixes(body), x, rtol=1e-12, atol=1e-12,
                     compile_kwargs={"unroll": 2})
    assert count_hlo(hlo(compiled, x), "while") == 1


_VECTOR_BODIES = {
    "var": lambda x, j: np.var(x[:j]),
    "std_ddof": lambda x, j: x[:j + 1].std(ddof=1),
    "var_method_ddof": lambda x, j: x[j - 1:].var(ddof=1),
    "average": lambda x, j: np.average(x[:j]),
    "average_weights": lambda x, j: np.average(x[:j], weights=np.abs(x[:j]) + 1),
    "norm_1": lambda x, j: np.linalg.norm(x[:j], 1),
    "norm_inf": lambda x, j: np.linalg.norm(x[:j], np.inf),
    "norm_minus_inf": lambda x, j: np.linalg.norm(x[:j], -np.inf),
    "norm_0": lambda x, j: np.linalg.norm(x[:j], 0),
    "norm_3": lambda x, j: np.linalg.norm(x[:j], 3),
    "norm_minus_2": lambda x, j: np.linalg.norm(x[:j], -2),
    "sum_where": lambda x, j: x[:j].sum(where=x[:j] > 0),
    "mean_where": lambda x, j: np.mean(x[:j], where=x[:j] > -0.5),
    "max_where_initial": lambda x, j: np.max(x[:j], where=x[:j] < 0.5, initial=-5.0),
    "ptp": lambda x, j: np.ptp(x[:j]),
    "einsum": lambda x, j: np.einsum("i,i", x[:j], x[:j]),
    "einsum_arrow": lambda x, j: np.einsum("i,i->", x[:j], 2 * x[:j]),
    "tensordot": lambda x, j: np.tensordot(x[:j], x[:j], 1),
    "tensordot_pairs": lambda x, j: np.tensordot(x[:j], x[:j], axes=([0], [0])),
}


@pytest.mark.parametrize("name", sorted(_VECTOR_BODIES))
def test_statistic_of_a_runtime_prefix_is_one_while(name):
    _one_while(_VECTOR_BODIES[name], np.random.default_rng(0).standard_normal(12))


_ROWS_BODIES = {
    "sum_axis_0_1": lambda V, j: V[:j].sum(axis=(0, 1)),
    "max_axis_tuple_initial": lambda V, j: np.max(V[:j], axis=(0, 1), initial=0.0),
    "any_negative_axes": lambda V, j: np.any(V[:j] > 1, axis=(-2, -1)),
    "std_axis_0": lambda V, j: V[:j].std(axis=0)[1],
    "var_all": lambda V, j: np.var(V[:j + 1], ddof=1),
    "norm_fro": lambda V, j: np.linalg.norm(V[:j], "fro"),
    "norm_1": lambda V, j: np.linalg.norm(V[:j], 1),
    "norm_inf": lambda V, j: np.linalg.norm(V[:j], np.inf),
    "norm_minus_1": lambda V, j: np.linalg.norm(V[:j], -1),
    "norm_minus_inf": lambda V, j: np.linalg.norm(V[:j], -np.inf),
    "norm_minus_inf_transposed": lambda V, j: np.linalg.norm(V[:j], -np.inf, axis=(1, 0)),
    "norm_minus_1_transposed": lambda V, j: np.linalg.norm(V[:j], -1, axis=(1, 0)),
    "norms_of_rows": lambda V, j: np.linalg.norm(V[:j], axis=1).sum(),
    "norms_of_columns": lambda V, j: np.linalg.norm(V[:j], axis=0)[2],
    "average_row_weights": lambda V, j: np.average(V[:j], axis=0,
                                                   weights=np.abs(V[:j, 0]) + 1)[1],
    "ptp_axis_0": lambda V, j: np.ptp(V[:j], axis=0)[0],
}


@pytest.mark.parametrize("name", sorted(_ROWS_BODIES))
def test_statistic_of_runtime_rows_is_one_while(name):
    _one_while(_ROWS_BODIES[name], np.random.default_rng(1).standard_normal((12, 3)))


# --- dtypes, keepdims, returned=, axis tuples, boolean masks -----------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.bool_, np.complex128])
def test_var_std_of_a_runtime_slice_in_numpys_dtype(dtype):
    def f(x, i):
        return np.var(x[:i]), np.std(x[i:], ddof=1), x[:i].var(keepdims=True)
    x = (np.random.default_rng(2).standard_normal(8) * 3).astype(dtype)
    if dtype == np.complex128:
        x = x + 1j * x[::-1]
    check(f, x, 5, rtol=1e-3 if dtype == np.float16 else 1e-6, compile_kwargs=_RUNTIME_I)


def test_var_of_an_empty_or_too_short_runtime_slice_is_nan_or_inf():
    def f(x, i):
        return np.var(x[:i]), np.std(x[:i], ddof=2), np.var(x[:i + 1], ddof=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(f, np.arange(6.0), 0, compile_kwargs=_RUNTIME_I)


def test_average_returned_keepdims_and_weights_of_runtime_rows():
    def f(V, i):
        return (np.average(V[:i], returned=True),
                np.average(V[:i], axis=0, returned=True),
                np.average(V[:i], axis=0, weights=V[:i] ** 2, returned=True, keepdims=True),
                np.average(V[:i, 0], weights=V[:i, 1] ** 2, returned=True))
    check(f, np.random.default_rng(3).standard_normal((8, 3)), 3, compile_kwargs=_RUNTIME_I)


def test_reductions_of_runtime_rows_over_axis_tuples_and_where():
    def f(V, i):
        return (V[:i].sum(axis=(0, 2)), V[:i].mean(axis=(2, 0)),
                V[:i].max(axis=(0, 1), keepdims=True),
                np.count_nonzero(V[:i] > 0, axis=(0, 1)),
                V[:i].sum(axis=0, where=np.array([True, False, True])),
                V[:i].mean(axis=(0, 1), where=V[:i] > 0, keepdims=True),
                np.var(V[:i], axis=(0, 1)))
    check(f, np.random.default_rng(4).standard_normal((6, 2, 3)), 4,
          compile_kwargs=_RUNTIME_I)


def test_statistics_of_a_boolean_mask_selection():
    def f(x, V):
        return (np.var(x[x > 0]), np.linalg.norm(x[x > 0], 1), np.ptp(x[x > 0]),
                np.average(x[x > 0], weights=x[x > 0]), np.var(V[V > 0]),
                np.linalg.norm(V[V > 0]))
    rng = np.random.default_rng(5)
    check(f, rng.standard_normal(8), rng.standard_normal((4, 3)))


def test_norms_of_integer_and_complex_runtime_slices():
    def f(x, z, i):
        return (np.linalg.norm(x[:i], 1), np.linalg.norm(x[:i], -np.inf),
                np.linalg.norm(z[:i]), np.linalg.norm(z[:i], -np.inf),
                np.linalg.norm(x[:i], np.inf, keepdims=True))
    z = np.arange(8.0) + 1j * np.arange(8.0)[::-1]
    check(f, np.arange(1, 9), z, 3, compile_kwargs=_RUNTIME_I)


def test_norm_inf_of_an_empty_runtime_slice_is_zero_as_numpys():
    check(lambda x, i: (np.linalg.norm(x[:i], np.inf), np.linalg.norm(x[:i], 1)),
          np.arange(4.0), 0, compile_kwargs=_RUNTIME_I)


# --- what NumPy raises, raised when the call returns ---------------------------------------

@pytest.mark.parametrize("body", [
    lambda x, i: np.linalg.norm(x[:i, 0], -np.inf),
    lambda x, i: np.ptp(x[:i, 1]),
    lambda x, i: np.linalg.norm(x[:i], -np.inf),
], ids=["norm_minus_inf", "ptp", "matrix_norm_minus_inf"])
def test_minimum_of_an_empty_runtime_slice_raises_value_error(body):
    x = np.arange(1.0, 9.0).reshape(4, 2)
    compiled = tpucc.compile(body, runtime_args=("i",))
    assert np.isclose(compiled(x, 2), body(x, 2))
    with pytest.raises(tpucc.TpuccError, match="zero-size array to reduction operation"):
        compiled(x, 0)


def test_weights_of_a_runtime_slice_that_sum_to_zero_raise_zero_division_error():
    compiled = tpucc.compile(lambda x, i: np.average(x[:i], weights=x[:i] * 0),
                             runtime_args=("i",))
    with pytest.raises(tpucc.TpuccError, match="Weights sum to zero"):
        compiled(np.arange(4.0), 2)


def test_max_of_a_runtime_slice_with_where_needs_initial_as_numpys():
    def f(x, i):
        return x[:i].max(where=x[:i] > 0)      # <- here
    raises_at(f, (np.arange(4.0), 2), match="to use a where mask one has to specify 'initial'",
              line_of="<- here", runtime_args=("i",))


# --- still refused: the selected elements laid out in a row of runtime length ------------

@pytest.mark.parametrize("body", [
    lambda x, i: np.sort(x[:i, 0]).sum(),
    lambda x, i: np.argsort(x[:i, 0]).sum(),    # (np.median of it compiles: session 44A)
    lambda x, i: np.linalg.norm(x[:i], 2),
], ids=["sort", "argsort", "matrix_norm_2"])
def test_data_dependent_uses_of_a_runtime_slice_stay_e200(body):
    with pytest.raises(tpucc.TpuccError, match=r"E200\].*x\[i:j\]"):
        tpucc.compile(body, runtime_args=("i",))(np.arange(8.0).reshape(4, 2), 2)


def test_a_reduction_over_a_runtime_slices_trailing_axis_is_reduced_again():
    # (was an E200: each row reduced on its own is a selection of the same rows; session 40e1)
    def f(x, i):
        return x[:i].sum(axis=1).sum()
    compiled = tpucc.compile(f, runtime_args=("i",), cache=False)
    x = np.arange(8.0).reshape(4, 2)
    for i in (0, 2, -1):
        assert compiled(x, i) == f(x, i)
