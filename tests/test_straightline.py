"""Straight-line programs: arithmetic with NEP 50 dtype rules, elementwise
functions, reductions, linear algebra, shape manipulation, creation, astype,
indexing, static shape values and container results.

Each module-level function below is one test program; `check` runs it eagerly
with NumPy and compiled with tpucc and compares values, dtypes and shapes."""
import numpy as np
import pytest

from conftest import check


# --------------------------------------------------------------------------
# Inputs (fixed seeds, small arrays)
# --------------------------------------------------------------------------

def _r(shape, dtype=np.float64, seed=0, lo=-3.0, hi=3.0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) > 0.5
    if dt.kind in "iu":
        return rng.integers(int(lo), int(hi), size=shape).astype(dt)
    return rng.uniform(lo, hi, size=shape).astype(dt)


def _pos(shape, dtype=np.float64, seed=0):
    return _r(shape, dtype, seed, 0.5, 3.0)


def _nonzero_int(shape, dtype=np.int32, seed=0):
    rng = np.random.default_rng(seed)
    mag = rng.integers(1, 5, size=shape)
    sign = np.where(rng.random(shape) > 0.5, 1, -1)
    return (mag * sign).astype(dtype)


def _nonzero_float(shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    mag = rng.uniform(0.5, 2.5, size=shape)
    sign = np.where(rng.random(shape) > 0.5, 1.0, -1.0)
    return (mag * sign).astype(dtype)


# --------------------------------------------------------------------------
# Arithmetic and NEP 50
# --------------------------------------------------------------------------

def int32_plus_pyint(x):
    # A Python int is weak: int32 stays int32.
    return x + 1, 2 - x, x * 3, x - (-4)


def int32_plus_pyfloat(x):
    # A Python float promotes an integer array to the default float (float64).
    return x + 1.5, x * 0.5, 2.25 - x


def float32_with_pyscalars(x):
    # Python floats and ints are weak: float32 stays float32.
    return x * 2.0, x + 1, 1.5 - x, x / 3, (x * 2.0).sum() + 1.0


def int_truediv(a, b):
    # int / int -> float64
    return a / b, a / 2, 3 / b, np.true_divide(a, b)


def int_floordiv_mod(a, b):
    # floor semantics (Python's) with negative operands
    return a // b, a % b, a // 3, a % -3, -7 // b, np.floor_divide(a, b), np.mod(a, b)


def float_floordiv_mod(x, y):
    return x // y, x % y, x // 0.75, x % 0.75


def int_power(x):
    # int32 ** Python int stays int32; 2 ** x too (x non-negative)
    return x ** 2, x ** 3, 2 ** x, x ** 0


def float_power(x, y):
    # x float32 positive, y float64: float32 ** float64 -> float64
    return x ** 0.5, x ** 2, x ** y, np.power(x, 3), np.sqrt(x) ** 2


def mixed_array_dtypes(i32, i64, f32, f64, b):
    return (i32 + i64, i32 + f32, f32 + f64, b + i32, i32 * f64, b * f32,
            i64 - f32, f32 / i32, i32 // i64, b & b)


def bool_arithmetic(b, c):
    # bool + Python int -> int64 (default int); bool + bool -> bool (logical or)
    return b + 1, b * 1.5, b + c, b * c, b * True, b.sum() + 0


def comparisons(x, y):
    # int32 vs float32 arrays, and against Python scalars
    return x < y, x <= 0.5, x == y, x != 1, x > y, x >= -1.5, np.equal(x, 2), np.less(y, x)


def int_compare_pyfloat(x):
    return x > 1.5, x == 2.0, (x < 2.5) & (x > -0.5), ~(x == 0)


def bitwise_int(a, b):
    return a & b, a | b, a ^ b, ~a, a & 3, a | 8, 5 ^ a, a << 2, a >> 1, np.invert(b)


def bitwise_bool(p, q):
    return (p & q, p | q, p ^ q, ~p, p & True, p | False,
            np.logical_and(p, q), np.logical_or(p, q), np.logical_not(p), np.logical_xor(p, q))


def unary_ops(i, f):
    return -i, +i, abs(i), -f, abs(f), np.abs(f), np.negative(i), np.positive(f), np.absolute(i)


def numpy_scalars(x, i):
    # NumPy scalars are strong: np.float64 * float32 array -> float64
    return (np.float32(2.0) * x, np.float64(0.5) * x, np.int32(3) + i, np.int64(2) * i,
            x + np.float32(1.5) * 2.0, np.float32(2.0) * 3.0)


def scale_by_static(x, s):
    # `s` is a static Python scalar: weak, so x's dtype decides
    return x * s, x + s, x / s


# --------------------------------------------------------------------------
# Elementwise functions
# --------------------------------------------------------------------------

def exp_log_f64(x):
    # x positive
    return (np.exp(x), np.log(x), np.sqrt(x), np.log1p(x), np.expm1(x),
            np.log2(x), np.log10(x), np.exp2(x))


def trig_f32(x):
    return np.sin(x), np.cos(x), np.tanh(x), np.arctan(x), np.sinh(x), np.cosh(x), np.arcsinh(x)


def int_to_float_funcs(i):
    # float ufuncs on int32 give float64
    return np.exp(i), np.sqrt(np.abs(i)), np.sin(i), np.tanh(i), np.log1p(np.abs(i))


def maximum_minimum_where(x, y, i):
    return (np.maximum(x, y), np.minimum(x, 0.0), np.where(x > y, x, y),
            np.where(x > 0, x, 0), np.where(i > 0, 1, 0), np.where(i > 0, 1.5, i),
            np.maximum(i, 0.5), np.minimum(i, 1), np.fmax(x, y))


def clip_round(x, i):
    return (np.clip(x, -1.0, 1.0), np.clip(i, 0, 3), x.clip(min=0.0), np.clip(x, None, 0.5),
            np.floor(x), np.ceil(x), np.trunc(x), np.round(x), np.rint(x), np.round(x, 1))


def sign_and_predicates(x):
    # x contains nan and infinities
    return np.sign(x), np.isnan(x), np.isinf(x), np.isfinite(x), np.signbit(x)


def misc_elementwise(x, y):
    return (np.square(x), np.reciprocal(y), np.arctan2(x, y), np.hypot(x, y),
            np.sign(np.array([-2, 0, 3], dtype=np.int32)), np.square(np.int32(3)) + x)


def int_elementwise(i):
    return np.sign(i), np.square(i), np.minimum(i, 2), np.abs(i) % 3, np.maximum(i, i[::-1])


# --------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------

def sum_axes(x):
    return x.sum(), x.sum(axis=0), x.sum(axis=1, keepdims=True), np.sum(x, axis=(0, 1)), x.sum(-1)


def int32_sum_is_int64(i):
    # sum/prod of int32 (and bool) accumulate in int64
    return i.sum(), i.sum(axis=0), np.sum(i, axis=1, keepdims=True), (i > 0).sum(), i.prod(axis=1)


def mean_var_std(x, i):
    return (x.mean(), x.mean(axis=0), np.mean(i), i.mean(axis=1), x.var(), np.var(x, axis=1),
            x.std(axis=0, ddof=1), np.std(i), x.mean(axis=-1, keepdims=True))


def max_min_arg(x):
    return (x.max(), x.min(axis=0), np.max(x, axis=1, keepdims=True), np.amin(x), x.argmax(),
            x.argmin(axis=0), np.argmax(x, axis=1), np.argmin(x, axis=-1), np.max(x, axis=(0, 1)))


def any_all(x):
    return ((x > 0).any(), (x > 0).all(axis=0), np.any(x > 2, axis=1), np.all(x > -5),
            np.any(x, axis=0), np.all(x > 0, axis=1, keepdims=True))


def cumulative(x, i):
    # cumsum of int32 -> int64
    return np.cumsum(x), x.cumsum(axis=1), np.cumsum(i, axis=0), np.cumprod(x, axis=1), i.cumsum()


# --------------------------------------------------------------------------
# Linear algebra
# --------------------------------------------------------------------------

def matmul_2d(a, b):
    return a @ b, np.matmul(a, b), np.dot(a, b), a.dot(b)


def matmul_vector(a, v, w):
    # (3,4) @ (4,), (3,) @ (3,4), inner products of 1-D arrays give scalars
    return a @ v, w @ a, v @ v, np.dot(v, v), np.dot(w, a)


def matmul_batched(a, b):
    return a @ b, np.matmul(a, b[0]), np.einsum("bij,bjk->bik", a, b)


def matmul_dtypes(i, j, f):
    # int32 @ int32 -> int32; int32 @ float64 -> float64
    return i @ j, i @ f, f.T @ f, (i > 0).astype(np.int32) @ j


def einsum_forms(a, b, v):
    return (np.einsum("ij,jk->ik", a, b), np.einsum("i,i->", v, v), np.einsum("ij->ji", a),
            np.einsum("ij,j->i", a, v), np.einsum("ij->", a), np.einsum("ij,ij->i", a, a))


def tensordot_outer(a, b, v, w):
    return (np.tensordot(a, b, axes=1), np.tensordot(a, b, axes=([1], [0])),
            np.tensordot(a, a, axes=2), np.outer(v, w), np.outer(w, v).shape)


# --------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------

def reshape_forms(x):
    return (x.reshape(-1), x.reshape(2, -1), np.reshape(x, (4, 3)), x.reshape((2, 2, 3)),
            x.reshape(6, 2).T, x.reshape(-1, 1).shape)


def transpose_forms(x):
    return (x.T, x.transpose(), x.transpose(2, 0, 1), np.transpose(x, (1, 0, 2)),
            np.swapaxes(x, 0, 2), np.moveaxis(x, 0, -1))


def concat_stack(a, b):
    return (np.concatenate([a, b]), np.concatenate((a, b), axis=1), np.stack([a, b]),
            np.stack((a, b), axis=-1), np.vstack([a, b]), np.hstack([a, b]),
            np.concatenate([a, b], axis=-1))


def concat_mixed_dtypes(i, f):
    # int32 with float32 -> float64
    return np.concatenate([i, f]), np.stack([i, i]), np.concatenate([i, i.astype(np.int64)])


def squeeze_expand(x):
    # x has shape (1, 3, 1, 2)
    v = x[0, :, 0]
    return (x.squeeze(), np.squeeze(x, axis=0), np.squeeze(x, axis=(0, 2)),
            np.expand_dims(v, axis=1), np.expand_dims(v, 0), v[:, None])


def broadcast_roll_flip_ravel(v, m):
    return (np.broadcast_to(v, (3, 4)), np.roll(v, 1), np.roll(m, -1, axis=1), np.roll(m, 2),
            np.flip(m), np.flip(m, axis=0), m[::-1], m.ravel(), np.ravel(m.T), m.flatten(),
            np.broadcast_to(v, (2, 3, 4)) + m)


# --------------------------------------------------------------------------
# Creation and astype
# --------------------------------------------------------------------------

def creation_static():
    return (np.zeros(3), np.ones((2, 2), dtype=np.int32), np.full((2, 3), 7),
            np.full(3, 1.5, dtype=np.float32), np.arange(5), np.arange(1, 2, 0.25),
            np.arange(6, dtype=np.float32).reshape(2, 3), np.linspace(0.0, 1.0, 5),
            np.eye(3), np.eye(2, 3, dtype=np.int32), np.zeros((2,), dtype=bool),
            np.arange(10, 0, -3), np.full((2,), True))


def creation_like(x):
    # np.arange gives int64; int64 + float32 -> float64
    return (np.zeros_like(x), np.ones_like(x), np.full_like(x, 2.5),
            np.zeros_like(x, dtype=np.int32), np.ones(x.shape, x.dtype),
            np.arange(x.shape[1]) + x, np.full_like(x, 3, dtype=np.int64))


def creation_mixed(x):
    # x int32
    return x + np.arange(4), x * np.ones(4, dtype=np.int32), x + np.linspace(0, 1, 4), x + np.eye(4)


def astype_forms(x, i):
    return (x.astype(np.int32), x.astype(np.float32), i.astype(np.float64), i.astype(bool),
            x.astype(np.int64), (x > 0).astype(np.float32), i.astype(np.int64),
            x.astype("float32"), i.astype(np.float32) / 2)


# --------------------------------------------------------------------------
# Indexing
# --------------------------------------------------------------------------

def index_ints_slices(x):
    # x has shape (4, 5)
    return (x[1], x[-1], x[1, 2], x[-1, -2], x[1:3], x[:, 1:4], x[::-1], x[::2, ::-2],
            x[1:-1, -3:], x[-3:-1:1], x[3:0:-2, 4], x[10:], x[:, -1])


def index_none_ellipsis(x):
    # x has shape (2, 3, 4)
    return x[None], x[..., 0], x[:, None, :, 1], x[0, ...], x[..., None], x[1, :, None], x[..., 1:3]


def index_int_arrays(x, idx):
    # runtime integer index arrays, including a negative index
    return x[idx], x[idx, 1], x[:, np.array([2, 0])], x[[0, 0, 3]], x[idx, idx % 3], x[-1, idx[1:3]]


# --------------------------------------------------------------------------
# Static shape values, containers, compositions
# --------------------------------------------------------------------------

def shape_values(x):
    # .shape / .ndim / .dtype / len are static
    n, m = x.shape
    y = x.reshape(n * m)
    z = np.zeros((m, n), dtype=x.dtype)
    return y[: len(x)], z + x.T, x.ndim, x.shape, x.size, len(x) * 2


def scalar_from_shapes(x):
    return x.shape[0] * x.shape[1] + 1


def float_from_shapes(x):
    return x.shape[0] / 2


def dtype_static(x):
    out = np.zeros(3, dtype=x.dtype)
    if x.dtype == np.float32:
        out = out + 1
    return out, x.dtype.itemsize


def return_tuple(x):
    return x + 1, x * 2


def return_list(x):
    return [x, x.sum(), x[0]]


def return_dict(x):
    return {"sum": x.sum(), "double": x * 2, "pair": (x, x - 1)}


def returns_0d_and_scalars(x):
    # reductions give NumPy scalars; np.float32 arithmetic keeps float32
    s = x.sum()
    return s, s * 2, s + 1.0, x[0] * x[1], np.float32(1.0) + s


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, g, b):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def dense_relu(x, w, b):
    return np.maximum(x @ w + b, 0.0)


# --------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------

F32 = dict(rtol=1e-5, atol=1e-6)

_NAN = np.array([np.nan, np.inf, -np.inf, -2.0, 0.0, 3.5, -0.0, 1e-3])

CASES = [
    (int32_plus_pyint, (_r(6, np.int32),), {}),
    (int32_plus_pyfloat, (_r(6, np.int32),), {}),
    (float32_with_pyscalars, (_r(6, np.float32),), F32),
    (int_truediv, (_r(6, np.int32, 1, -9, 9), _nonzero_int(6)), {}),
    (int_floordiv_mod, (_r((2, 4), np.int32, 1, -9, 9), _nonzero_int((2, 4))), {}),
    (float_floordiv_mod, (_r(8, np.float32), _nonzero_float(8)), dict(rtol=1e-5, atol=1e-5)),
    (int_power, (_r(6, np.int32, 0, 0, 5),), {}),
    (float_power, (_pos(6, np.float32), _r(6, np.float64, 1, -1, 2)), F32),
    (mixed_array_dtypes, (_nonzero_int(4, np.int32, 3), _nonzero_int(4, np.int64), _nonzero_float(4),
                          _r(4, np.float64, 2), _r(4, bool)), F32),
    (bool_arithmetic, (_r(6, bool), _r(6, bool, 1)), {}),
    (comparisons, (_r(8, np.int32), _r(8, np.float32, 1)), {}),
    (int_compare_pyfloat, (_r(8, np.int32),), {}),
    (bitwise_int, (_r(6, np.int32, 0, -20, 20), _r(6, np.int32, 1, -20, 20)), {}),
    (bitwise_bool, (_r(6, bool), _r(6, bool, 1)), {}),
    (unary_ops, (_r(6, np.int32), _r(6, np.float32)), {}),
    (numpy_scalars, (_r(5, np.float32), _r(5, np.int32)), F32),
    (scale_by_static, (_r(5, np.float32), 2.5), F32),
    (scale_by_static, (_r(5, np.int32), 3), {}),
    (scale_by_static, (_r(5, np.int32), 0.5), {}),
    (exp_log_f64, (_pos((2, 3)),), {}),
    (trig_f32, (_r((2, 3), np.float32),), F32),
    (int_to_float_funcs, (_r(6, np.int32),), {}),
    (maximum_minimum_where, (_r(6, np.float32), _r(6, np.float32, 1), _r(6, np.int32)), {}),
    (clip_round, (_r(8, np.float32), _r(8, np.int32)), {}),
    (sign_and_predicates, (_NAN,), {}),
    (misc_elementwise, (_r(6, np.float32), _nonzero_float(6)), F32),
    (int_elementwise, (_r(6, np.int32, 0, -9, 9),), {}),
    (sum_axes, (_r((3, 4), np.float32),), F32),
    (int32_sum_is_int64, (_r((3, 4), np.int32),), {}),
    (mean_var_std, (_r((3, 4), np.float32), _r((3, 4), np.int32)), F32),
    (max_min_arg, (_r((3, 4)),), {}),
    (any_all, (_r((3, 4)),), {}),
    (cumulative, (_r((3, 4)), _r((3, 4), np.int32)), {}),
    (matmul_2d, (_r((3, 4), np.float32), _r((4, 5), np.float32, 1)), F32),
    (matmul_vector, (_r((3, 4)), _r(4, seed=1), _r(3, seed=2)), {}),
    (matmul_batched, (_r((2, 3, 4), np.float32), _r((2, 4, 5), np.float32, 1)), F32),
    (matmul_dtypes, (_r((3, 4), np.int32), _r((4, 2), np.int32, 1), _r((4, 2), seed=2)), {}),
    (einsum_forms, (_r((3, 4)), _r((4, 2), seed=1), _r(4, seed=2)), {}),
    (tensordot_outer, (_r((3, 4)), _r((4, 2), seed=1), _r(3, seed=2), _r(5, seed=3)), {}),
    (reshape_forms, (_r((3, 4), np.float32),), {}),
    (transpose_forms, (_r((2, 3, 4)),), {}),
    (concat_stack, (_r((2, 3)), _r((2, 3), seed=1)), {}),
    (concat_mixed_dtypes, (_r(3, np.int32), _r(2, np.float32)), {}),
    (squeeze_expand, (_r((1, 3, 1, 2)),), {}),
    (broadcast_roll_flip_ravel, (_r(4), _r((3, 4), seed=1)), {}),
    (creation_static, (), {}),
    (creation_like, (_r((2, 3), np.float32),), {}),
    (creation_mixed, (_r(4, np.int32),), {}),
    (astype_forms, (_r(6), _r(6, np.int32)), {}),
    (index_ints_slices, (_r((4, 5)),), {}),
    (index_none_ellipsis, (_r((2, 3, 4)),), {}),
    (index_int_arrays, (_r((5, 3)), np.array([4, 0, -1, 2])), {}),
    (shape_values, (_r((3, 4)),), {}),
    (scalar_from_shapes, (_r((3, 4)),), {}),
    (float_from_shapes, (_r((3, 4)),), {}),
    (dtype_static, (_r(3, np.float32),), {}),
    (dtype_static, (_r(3, np.int32),), {}),
    (return_tuple, (_r(3),), {}),
    (return_list, (_r(3, np.float32),), {}),
    (return_dict, (_r(3, np.int32),), {}),
    (returns_0d_and_scalars, (_r(4, np.float32),), F32),
    (softmax, (_r((3, 5), np.float32),), F32),
    (layer_norm, (_r((2, 6)), _r(6, seed=1), _r(6, seed=2)), {}),
    (dense_relu, (_r((2, 4), np.float32), _r((4, 3), np.float32, 1), _r(3, np.float32, 2)), F32),
]


def _ids():
    seen = {}
    out = []
    for fn, _, _ in CASES:
        n = seen.get(fn.__name__, 0)
        seen[fn.__name__] = n + 1
        out.append(fn.__name__ if n == 0 else f"{fn.__name__}-{n}")
    return out


@pytest.mark.parametrize("fn,args,tol", CASES, ids=_ids())
def test_program(fn, args, tol):
    check(fn, *args, **tol)


def test_dtypes_follow_nep50():
    """Spot-check the eager reference itself, so a NumPy change cannot silently
    weaken the corpus: these are the dtype facts the corpus relies on."""
    i = np.arange(3, dtype=np.int32)
    f = np.ones(3, dtype=np.float32)
    assert (i + 1).dtype == np.int32
    assert (i + 1.5).dtype == np.float64
    assert (f * 2.0).dtype == np.float32
    assert (i / (i + 1)).dtype == np.float64
    assert i.sum().dtype == np.int64
    assert (np.float64(2.0) * f).dtype == np.float64
