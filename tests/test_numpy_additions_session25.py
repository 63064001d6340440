"""NumPy functions refused (E100) on runtime arrays until session 25, each
compared with eager NumPy (values, dtypes, Python vs NumPy scalar vs 0-d
array) over dtypes and edge shapes; and keyword arguments an implementation
does not take, which are E100 (tpucc's limit) or NumPy's own TypeError."""
import numpy as np
import pytest

import tpucc
from conftest import check, raises_at, sample

DTYPES = [np.bool_, np.int8, np.int64, np.float32, np.float64, np.complex64]
NUMERIC = [np.int8, np.int64, np.float32, np.float64, np.complex128]


# --- array_equal / array_equiv --------------------------------------------------------------

def equalities(a, b):
    return (np.array_equal(a, b), np.array_equal(a, a), np.array_equal(a, b, equal_nan=True),
            np.array_equal(a, a, equal_nan=True), np.array_equiv(a, b), np.array_equiv(a, a[:1]),
            np.array_equal(a, a[:0]), np.array_equiv(a, np.ones(7)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_array_equal_and_equiv(dtype):
    a = sample((3, 4), dtype)
    check(lambda a, b, c, d: (equalities(a, b), equalities(a, c), equalities(a, d)),
          a, a.copy(), sample((3, 4), dtype, seed=1), a[:1])


def test_array_equal_with_nans():
    a = np.array([1.0, np.nan, 3.0])
    c = np.array([1 + 1j, complex(np.nan, 1)])

    def all_pairs(a, a2, a3, n, n2, z, z2, c, c2):
        return (equalities(a, a2), equalities(a, a3),
                (np.array_equal(n, n2), np.array_equal(n, n2, equal_nan=True),
                 np.array_equiv(n, n2)), equalities(z, z2), equalities(c, c2))
    check(all_pairs, a, a.copy(), np.array([1.0, 2.0, np.nan]), np.array(np.nan),
          np.array(np.nan), np.zeros((0, 2)), np.zeros((0, 2)), c, c.copy())


# --- append / insert / delete -----------------------------------------------------------------

def appends(a, b):
    return (np.append(a, b), np.append(a, b, axis=0), np.append(a, 7), np.append(a, [[1.5] * a.shape[1]], 0),
            np.append(a[:, :1], a, axis=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_append(dtype):
    check(lambda a, b, e, f: (appends(a, b), appends(e, f)), sample((2, 3), dtype),
          sample((1, 3), np.int32), sample((0, 3), dtype), sample((2, 3), dtype))


def test_append_to_0d():
    check(lambda a, b: np.append(a, b), np.array(2.5), np.array([1, 2]))


def inserts(a, v):
    return (np.insert(a, 1, 9), np.insert(a, [0, 2, 2], 9), np.insert(a, 0, v, axis=1),
            np.insert(a, [1], v[:, None], axis=1), np.insert(a, slice(0, 2), 5, axis=0),
            np.insert(a, 2, v), np.insert(a, [-1, 0], v[:2]), np.insert(a, [], 1),
            np.insert(a, 1, [[7], [8]], axis=1), np.insert(a, 3, 2.7, axis=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_insert(dtype):
    check(inserts, sample((2, 3), dtype), sample((2,), dtype, seed=2))


def test_insert_runtime_values_cast_and_bounds():
    check(lambda a, v, z, w, e: (np.insert(a, [1, 3], v), np.insert(z, 0, w), np.insert(e, 0, 1)),
          np.arange(4, dtype=np.int8), np.array([1.7, -2.2]), np.array(3.0), np.float32(2.0),
          np.zeros((0,), np.int64))
    with pytest.raises(IndexError):
        np.insert(np.arange(3), 5, 1)
    raises_at(lambda a: np.insert(a, 5, 1), (np.arange(3),), line_of="np.insert")


def deletes(a):
    return (np.delete(a, 1), np.delete(a, [0, 2], axis=1), np.delete(a, slice(None, None, 2)),
            np.delete(a, -1, axis=0), np.delete(a, [], axis=1),
            np.delete(a, [True, False, True], axis=1))


@pytest.mark.parametrize("dtype", DTYPES)
def test_delete(dtype):
    check(deletes, sample((2, 3), dtype))


def test_delete_runtime_indices_are_refused():
    # (one runtime index gives a static shape: it compiles, session 39f)
    raises_at(lambda a, i: np.delete(a, i), (np.arange(3), np.array([1, 2])),
              tpucc.errors.UnsupportedError, match="np.delete", line_of="np.delete")
    check(lambda a, i: np.delete(a, i), np.arange(3), np.array([1]))


# --- block / unstack / r_ / c_ -----------------------------------------------------------------

def blocks(a, b):
    return (np.block([a, b]), np.block([[a, b], [b, a]]), np.block([[a], [b]]),
            np.block(a), np.block([a, 1]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_block(dtype):
    check(lambda a, b, m, t: (blocks(a, b), np.block([[m, a[:, None]], [a[None, :2], a[:1, None]]]),
                              np.block([[t, t], [t, t]])),
          sample((2,), dtype), sample((2,), np.float32), sample((2, 2), dtype),
          sample((2, 3, 2), dtype))


def test_block_errors():
    raises_at(lambda a: np.block([[a], a]), (np.ones(2),), line_of="np.block", match="depths")
    raises_at(lambda a: np.block((a, a)), (np.ones(2),), line_of="np.block", match="tuple")
    raises_at(lambda a: np.block([]), (np.ones(2),), line_of="np.block", match="empty")


def unstacks(a):
    return np.unstack(a), np.unstack(a, axis=1), np.unstack(a[0])


@pytest.mark.parametrize("dtype", DTYPES)
def test_unstack(dtype):
    check(lambda a, e: (unstacks(a), unstacks(e)), sample((2, 3), dtype), sample((1, 0), dtype))
    raises_at(lambda a: np.unstack(a), (np.array(1.0),), line_of="np.unstack")


def index_tricks(a, b):
    return np.r_[a, b], np.r_[a, 2.5, b], np.c_[a, b], np.c_[a, b, a], np.r_[a], np.r_[a, b[0]]


@pytest.mark.parametrize("dtype", DTYPES)
def test_r_and_c_(dtype):
    check(lambda a, b, m, v: (index_tricks(a, b), np.r_[m, m], np.c_[m, v[:, None]],
                              np.c_[m, m]),
          sample((3,), dtype), sample((3,), np.int8), sample((3, 2), dtype), sample((3,), dtype))


def test_r_with_a_slice_is_refused():
    raises_at(lambda a: np.r_[a, 0:3], (np.ones(2),), tpucc.errors.UnsupportedError,
              match="np.concatenate", line_of="np.r_")


# --- choose --------------------------------------------------------------------------------

def chooses(a, x, y):
    return (np.choose(a, [x, y, 5]), np.choose(a % 3, (x, y, x)), np.choose(a + 5, [x, y], mode="wrap"),
            np.choose(a - 2, [x, y, x], mode="clip"), np.choose(a[:1], [x, y, x[0]]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_choose(dtype):
    a = np.array([[0, 1, 2], [2, 1, 0]])
    check(lambda a, x, y, a8, x2, y32: (chooses(a, x, y), chooses(a8, x2, y32)),
          a, sample((2, 3), dtype), sample((3,), dtype, seed=3),
          a.astype(np.int8), sample((2, 3), dtype), sample((3,), np.float32, seed=3))


def test_choose_out_of_range_raises_when_the_call_returns():
    f = tpucc.compile(lambda a, x, y: np.choose(a, [x, y]))
    assert np.array_equal(f(np.array([0, 1]), np.ones(2), np.zeros(2)), [1.0, 0.0])
    with pytest.raises(ValueError):
        np.choose(np.array([0, 2]), [np.ones(2), np.zeros(2)])
    with pytest.raises(tpucc.TpuccError, match="invalid entry in choice array"):
        f(np.array([0, 2]), np.ones(2), np.zeros(2))


# --- correlate / convolve -----------------------------------------------------------------

def correlations(a, v):
    return tuple(f(x, y, m) for f in (np.correlate, np.convolve) for x, y in ((a, v), (v, a))
                 for m in ("valid", "same", "full"))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.float32, np.complex128])
def test_correlate_and_convolve(dtype):
    # kernels of lengths 1, 2, 5 (< 6), 8 (> 6)
    check(lambda a, v1, v2, v5, v8: tuple(correlations(a, v) for v in (v1, v2, v5, v8)),
          sample((6,), dtype), *[sample((n,), dtype, seed=n) for n in (1, 2, 5, 8)])


def test_correlate_mixed_dtypes_and_scalars():
    check(lambda a, v: (np.correlate(a, v), np.correlate(a, [2]), np.correlate(a, v, "full")),
          sample((5,), np.int8), sample((3,), np.float32))
    raises_at(lambda a: np.correlate(a, 2), (np.ones(3),), line_of="np.correlate")
    raises_at(lambda a: np.correlate(a, a[:0]), (np.ones(3),), line_of="np.correlate")
    raises_at(lambda a: np.correlate(a, a, "middle"), (np.ones(3),), line_of="np.correlate")


# --- fix / modf / isposinf / isneginf -----------------------------------------------------------

SPECIAL = np.array([0.0, -0.0, 1.5, -1.5, -3.0, 2.0, np.inf, -np.inf, np.nan, 1e30, -0.25])


def parts(x):
    return np.fix(x), np.modf(x), np.isposinf(x), np.isneginf(x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_fix_modf_signed_infinities_of_floats(dtype):
    with np.errstate(all="ignore"):
        check(lambda x, x0, e: (parts(x), parts(x0), parts(e)), SPECIAL.astype(dtype),
              np.array(-2.5, dtype), np.zeros((0, 2), dtype), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint8, np.int64])
def test_fix_modf_signed_infinities_of_integers(dtype):
    check(lambda x, x0: (parts(x), parts(x0)),
          sample((4,), dtype) if dtype != np.uint8 else np.arange(4, dtype=dtype),
          np.array(3, dtype))


def test_parts_of_scalars():
    check(lambda x, y: ((np.modf(x), np.fix(x), np.isposinf(x), np.modf(x[0]), np.fix(x[0])),
                        (np.modf(float(y[0])), np.isneginf(float(y[1])))),
          np.array([-1.5, np.inf]), np.array([-1.5, -np.inf]))


def test_signed_infinity_of_complex_is_a_type_error():
    with pytest.raises(TypeError):
        np.isposinf(np.ones(2, complex))
    raises_at(lambda x: np.isposinf(x), (np.ones(2, complex),), line_of="np.isposinf")


# --- multi_dot / vecdot / matrix_transpose ---------------------------------------------------

@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.float32, np.float64,
                                   np.complex128])
def test_multi_dot_vecdot_matrix_transpose(dtype):
    a, b, c = sample((4, 2), dtype), sample((2, 5), dtype, 1), sample((5, 3), dtype, 2)
    v, w = sample((4,), dtype, 4), sample((3,), dtype, 5)
    check(lambda a, b, c, v, w: (
        (np.linalg.multi_dot([a, b, c]), np.linalg.multi_dot([a, b, c, c.T]),
         np.vecdot(a, a), np.vecdot(a, a[0]), np.vecdot(a, a, axis=0),
         np.matrix_transpose(a), np.matrix_transpose(np.stack([a, a]))),
        (np.linalg.multi_dot([v, a, b, c]), np.linalg.multi_dot([a, b, c, w]),
         np.linalg.multi_dot([v, a, b, c, w]), np.vecdot(v, v))),
          a, b, c, v, w)


def test_vecdot_and_matrix_transpose_edges():
    check(lambda x: (np.vecdot(x, x), np.matrix_transpose(x)), np.zeros((2, 0), np.float32))
    raises_at(lambda x: np.matrix_transpose(x), (np.ones(3),), line_of="np.matrix_transpose")
    raises_at(lambda x: np.linalg.multi_dot([x]), (np.ones((2, 2)),), line_of="multi_dot")


# --- vector_norm / matrix_norm ---------------------------------------------------------------

def norms(x):
    return (np.linalg.vector_norm(x), np.linalg.vector_norm(x, axis=1),
            np.linalg.vector_norm(x, axis=(0, 2), keepdims=True), np.linalg.vector_norm(x, ord=1),
            np.linalg.vector_norm(x, ord=np.inf, axis=-1), np.linalg.vector_norm(x, ord=0, axis=0),
            np.linalg.vector_norm(x, ord=3, keepdims=True), np.linalg.vector_norm(x, axis=(2, 0)),
            np.linalg.matrix_norm(x), np.linalg.matrix_norm(x, ord=1, keepdims=True),
            np.linalg.matrix_norm(x, ord=-np.inf), np.linalg.matrix_norm(x, ord=2))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.float32, np.float64,
                                   np.complex64])
def test_vector_and_matrix_norms(dtype):
    check(norms, sample((2, 3, 4), dtype), rtol=2e-6)


def test_vector_norm_of_0d_and_empty():
    check(lambda x, e: ((np.linalg.vector_norm(x), np.linalg.vector_norm(x, keepdims=True)),
                        np.linalg.vector_norm(e)),
          np.array(-3.0), np.zeros((0, 3), np.float32))


# --- cumulative_sum / cumulative_prod -----------------------------------------------------------

def cumulatives(x):
    return (np.cumulative_sum(x, axis=0), np.cumulative_sum(x, axis=-1, include_initial=True),
            np.cumulative_prod(x, axis=1), np.cumulative_sum(x, axis=0, dtype=np.float32),
            np.cumulative_prod(x, axis=0, include_initial=True), np.cumulative_sum(x[0]),
            np.cumulative_sum(x[0], include_initial=True))


@pytest.mark.parametrize("dtype", DTYPES + [np.uint8])
def test_cumulative_sum_and_prod(dtype):
    check(lambda x, e: (cumulatives(x), cumulatives(e)),
          sample((2, 3), dtype) if dtype != np.uint8 else np.ones((2, 3), dtype),
          sample((3, 0), dtype))


def test_cumulative_of_0d_and_axis_required():
    check(lambda x: (np.cumulative_sum(x), np.cumulative_prod(x, include_initial=True)),
          np.array(2.5))
    raises_at(lambda x: np.cumulative_sum(x), (np.ones((2, 2)),), line_of="cumulative_sum")


# --- astype / diagflat / tri*_indices_from ---------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_astype_function(dtype):
    check(lambda x, t: ((np.astype(x, np.float32), np.astype(x, np.int8), np.astype(x[0], np.bool_),
                         np.astype(x[:0], np.complex64), np.astype(x, x.dtype, copy=False)),
                        np.astype(t, np.int64)),
          sample((3,), dtype), np.array(True, dtype))


def test_astype_of_a_python_number_is_a_type_error():
    raises_at(lambda x: np.astype(float(x[0]), np.int8), (np.ones(2),), line_of="np.astype")


@pytest.mark.parametrize("dtype", DTYPES)
def test_diagflat_and_triangle_indices(dtype):
    check(lambda x, y, e: ((np.diagflat(x), np.diagflat(x, 1), np.diagflat(x, -2),
                            np.diagflat(x[0, 0]), np.diagflat(x[:0])),
                           (np.triu_indices_from(y), np.tril_indices_from(y, -1),
                            np.triu_indices_from(y, k=2), y[np.triu_indices_from(y)]),
                           np.tril_indices_from(e)),
          sample((2, 2), dtype), sample((3, 4), dtype), sample((0, 2), dtype))
    raises_at(lambda x: np.triu_indices_from(x), (np.ones(3),), line_of="triu_indices_from")


# --- keyword arguments: dtype= of stack/concatenate/einsum/matmul, where=/initial= of reduce ----

def with_dtypes(x, m):
    return (np.stack([x, x], dtype=np.float32), np.stack([x, x], axis=1, dtype=np.complex64),
            np.concatenate([x, x], dtype=np.float64), np.einsum("ij->j", m, dtype=np.float64),
            np.einsum("ij,jk", m, m, dtype=np.complex128), np.matmul(m, m, dtype=np.float64),
            np.matmul(m, m[0], dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.float32])
def test_dtype_keyword_of_stack_concatenate_einsum_matmul(dtype):
    check(with_dtypes, sample((3,), dtype), sample((3, 3), dtype))


def test_dtype_keyword_refuses_what_numpy_refuses():
    for bad in (lambda x: np.stack([x, x], dtype=np.int8),
                lambda x: np.einsum("i->", x, dtype=np.float32),
                lambda x: np.matmul(x[:, None], x[None], dtype=np.int64)):
        with pytest.raises(TypeError):
            bad(np.ones(2))
        raises_at(bad, (np.ones(2),), tpucc.errors.UserCodeError, match="TypeError")


def reduces(x, mask):
    return (np.add.reduce(x, where=mask), np.add.reduce(x, axis=1, initial=10),
            np.multiply.reduce(x, where=mask, axis=None), np.multiply.reduce(x, initial=2),
            np.maximum.reduce(x, initial=-5), np.maximum.reduce(x, axis=1, where=mask, initial=-9),
            np.minimum.reduce(x, where=mask, initial=9), np.minimum.reduce(x, axis=None, initial=0))


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.float64])
def test_ufunc_reduce_where_and_initial(dtype):
    x = sample((3, 4), dtype)
    check(lambda x, mask, e, emask: (reduces(x, mask), reduces(e, emask)),
          x, x > 0, sample((0, 4), dtype), np.zeros((0, 4), bool))


def test_reduce_where_without_initial_needs_an_identity():
    f = lambda x: np.maximum.reduce(x, where=x > 0)
    with pytest.raises(ValueError):
        f(np.ones(3))
    raises_at(f, (np.ones(3),), line_of="np.maximum.reduce")


def sublists(a, b):
    return (np.einsum(a, [0, 1], [1]), np.einsum(a, [0, 1], b, [1, 2]),
            np.einsum(a, [0, 1], b, [1, 2], [2, 0]), np.einsum(a, [Ellipsis, 1], [1, Ellipsis]),
            np.einsum(a, [0, 0]), np.einsum(a, [30, 40], [40]))


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex64])
def test_einsum_sublist_form(dtype):
    check(sublists, sample((3, 3), dtype), sample((3, 2), dtype))


@pytest.mark.parametrize("call, name, arg", [
    (lambda x: np.stack([x, x], out=x), "np.stack", "out"),
    (lambda x: np.vecdot(x, x, dtype=np.float32), "np.vecdot", "dtype"),
    (lambda x: np.add.reduce(x, keepdims=True, casting="unsafe"), "np.add.reduce", "casting"),
    (lambda x: np.einsum("i->i", x, order="C"), "np.einsum", "order"),
])
def test_a_keyword_tpucc_does_not_take_is_E100(call, name, arg):
    err = raises_at(call, (np.ones(2),), tpucc.errors.UnsupportedError, line_of="np.")
    assert name in str(err) and f"{arg}=" in str(err), str(err)


@pytest.mark.parametrize("call", [lambda x: np.sort(x, foo=1),
                                  lambda x: np.linalg.norm(x, bogus=2),
                                  lambda x: np.add.accumulate(x, where=x > 0)])
def test_a_keyword_numpy_does_not_take_is_the_users_type_error(call):
    with pytest.raises(TypeError):
        call(np.ones(2))
    raises_at(call, (np.ones(2),), tpucc.errors.UserCodeError, match="TypeError", line_of="np.")
