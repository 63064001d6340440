"""Matrix structure composed of other ops: tril, triu, diag, diagonal, trace,
kron, diagflat, triu/tril/diag_indices_from, matrix_transpose, vecdot,
np.linalg.multi_dot and the norms (norm, vector_norm, matrix_norm).

Triangles and diagonal matrices are selects with a mask made of iotas
(np.arange), not constants: a large mask costs nothing in the module.  A
diagonal is a strided slice of the flattened matrix (no gather), so it stays
cheap and differentiable.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError, UnsupportedError, UserCodeError
from .creation import arange, diagonal_offset, diagonals, eye, zeros
from .elementwise import imag, real
from .linalg import dot, matmul
from .manipulation import as_array
from .registry import (METHODS, as_array_operand, implements, normalize_axes, normalize_axis,
                       static_index)
from .shape import (diagonal_view, expand_dims, moveaxis, pad, read_only, reshape, swapaxes,
                    transpose, where)


def _zero(dtype):
    return zeros((), dtype)


# --- tril / triu ------------------------------------------------------------------------

def _tri_mask(n: int, m: int, k):
    """np.tri(n, m, k, dtype=bool): True where column - row <= k (a static
    int or a runtime one: see diagonal_offset)."""
    return diagonals(n, m) <= k


def _triangle_dims(m):
    if m.ndim == 0:
        raise ShapeError("tril/triu need an array of at least one dimension (NumPy's tri() "
                         "gets no size)")
    return m.shape[-2:] if m.ndim >= 2 else (m.shape[0], m.shape[0])


@implements(np.tril)
def tril(m, k=0):
    m = as_array(m)
    return where(_tri_mask(*_triangle_dims(m), diagonal_offset(k)), m, _zero(m.dtype))


@implements(np.triu)
def triu(m, k=0):
    m = as_array(m)
    return where(_tri_mask(*_triangle_dims(m), diagonal_offset(k) - 1), _zero(m.dtype), m)


# --- diagonal / diag / trace --------------------------------------------------------------

@implements(np.diagonal, method="diagonal")
def diagonal(a, offset=0, axis1=0, axis2=1):
    """np.diagonal: a read-only view (shape.diagonal_view)."""
    a = as_array(a)
    if a.ndim < 2:
        raise ShapeError("diag requires an array of at least two dimensions")
    axis1, axis2 = normalize_axis(axis1, a.ndim), normalize_axis(axis2, a.ndim)
    if axis1 == axis2:
        raise ShapeError("axis1 and axis2 cannot be the same")
    return read_only(diagonal_view(a, static_index(offset), axis1, axis2))


@implements(np.diag)
def diag(v, k=0):
    v = as_array(v)
    k = static_index(k)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ShapeError("Input must be 1- or 2-d.")
    size = v.shape[0] + abs(k)
    # Above the main diagonal a row holds v[row]; below it a column holds v[column].
    values = pad(v, (0, abs(k)))
    values = reshape(values, (size, 1) if k >= 0 else (1, size))
    return where(eye(size, size, k, dtype=bool), values, _zero(v.dtype))


@implements(np.trace, method="trace")
def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    if out is not None:
        raise UnsupportedError("np.trace(out=...) is not supported", hint="assign the result")
    return METHODS["sum"](diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


# --- kron ---------------------------------------------------------------------------------

@implements(np.kron)
def kron(a, b):
    """Every a[i] * b[j] laid out as NumPy does: a's axes interleaved with
    b's in the product, then merged pairwise."""
    a, b = as_array(a), as_array(b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    nd = max(a.ndim, b.ndim)
    a = reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = reshape(b, (1,) * (nd - b.ndim) + b.shape)
    spread_a = expand_dims(a, tuple(range(1, 2 * nd, 2)))     # a's axis i at 2i
    spread_b = expand_dims(b, tuple(range(0, 2 * nd, 2)))     # b's axis i at 2i + 1
    return reshape(spread_a * spread_b, tuple(x * y for x, y in zip(a.shape, b.shape)))


# --- np.linalg.norm -------------------------------------------------------------------------

def _norm_operand(x):
    x = as_array(x)
    if x.dtype.kind not in "fc":     # NumPy computes integer and bool norms in float64
        x = METHODS["astype"](x, np.float64)
    return x


def _norm_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, tuple):
        return axis
    try:
        return (int(axis),)
    except TypeError:
        raise UserCodeError("TypeError: 'axis' must be None, an integer or a tuple of "
                            "integers") from None


@implements(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    x = _norm_operand(x)
    keepdims = bool(keepdims)
    if axis is None and (ord is None or (_is_fro(ord) and x.ndim == 2)
                         or (ord == 2 and x.ndim == 1)):
        flat = reshape(x, -1)       # NumPy's fast path: sqrt(x.dot(x)) of the flat array
        if flat.dtype.kind == "c":
            re, im = real(flat), imag(flat)
            result = _ufunc("sqrt", dot(re, re) + dot(im, im))
        else:
            result = _ufunc("sqrt", dot(flat, flat))
        # (a scalar's reshape to () is still a scalar)
        return reshape(result, (1,) * x.ndim) if keepdims and x.ndim else result
    axes = _norm_axes(axis, x.ndim)
    if len(axes) == 1:
        return _vector_norm(x, ord, normalize_axis(axes[0], x.ndim), keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ShapeError("Improper number of dimensions to norm.")


def _is_fro(ord) -> bool:
    return isinstance(ord, str) and ord in ("f", "fro")


def _ufunc(name, *operands):
    return emit_ufunc(name, *operands)


def _sum(x, axis, keepdims=False):
    return METHODS["sum"](x, axis=axis, keepdims=keepdims)


def _extreme(name, values, axis, keepdims=False):
    """max or min over one axis.  NumPy's max here has initial=0, so an empty
    axis gives 0: a sum of nothing, with the same dtype and shape."""
    if name == "max" and values.shape[axis] == 0:
        return _sum(values, axis, keepdims)
    return METHODS[name](values, axis=axis, keepdims=keepdims)


def _vector_norm(x, ord, axis, keepdims):
    if ord == np.inf or ord == -np.inf:
        return _extreme("max" if ord > 0 else "min", _ufunc("absolute", x), axis, keepdims)
    if ord is None or ord == 2:
        return _ufunc("sqrt", _sum(_squares(x), axis, keepdims))
    if isinstance(ord, str):
        raise UserCodeError(f"ValueError: Invalid norm order '{ord}' for vectors")
    if ord == 0:
        return _sum(METHODS["astype"](x != 0, _real_dtype(x)), axis, keepdims)
    absx = _ufunc("absolute", x)
    if ord == 1:
        return _sum(absx, axis, keepdims)
    # NumPy's in-place steps: |x| **= ord, then total **= 1/ord computed in the total's dtype
    powered = METHODS["astype"](_ufunc("power", absx, ord), absx.dtype)
    total = _sum(powered, axis, keepdims)
    exponent = np.reciprocal(np.asarray(ord), dtype=total.dtype)
    return METHODS["astype"](_ufunc("power", total, exponent), total.dtype)


def _matrix_norm(x, ord, axes, keepdims):
    row, col = (normalize_axis(a, x.ndim) for a in axes)
    if row == col:
        raise ShapeError("Duplicate axes given.")
    if ord == 2 or ord == -2 or ord == "nuc":      # NumPy's _multi_svd_norm
        s = singular_values(moveaxis(x, (row, col), (-2, -1)))
        result = (_sum(s, -1) if ord == "nuc" else
                  METHODS["max" if ord == 2 else "min"](s, axis=-1))
    elif ord is None or _is_fro(ord):
        result = _ufunc("sqrt", _sum(_squares(x), (row, col)))
    elif ord == 1 or ord == -1:         # the largest (smallest) column sum
        result = _extreme("max" if ord > 0 else "min", _abs_sums(x, row), col - (col > row))
    elif ord == np.inf or ord == -np.inf:   # the largest (smallest) row sum
        result = _extreme("max" if ord > 0 else "min", _abs_sums(x, col), row - (row > col))
    else:
        raise UserCodeError("ValueError: Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[row] = shape[col] = 1
        result = reshape(result, tuple(shape))
    return result


def _real_dtype(x):
    return np.finfo(x.dtype).dtype


def _squares(x):
    """|x|**2 as NumPy's norm computes it: (x.conj() * x).real for complex x."""
    if x.dtype.kind != "c":
        return x * x
    return real(_ufunc("conjugate", x) * x)


def _abs_sums(x, axis):
    return _sum(_ufunc("absolute", x), axis)


# --- cross ------------------------------------------------------------------------------------
# NumPy's np.cross step by step: the vectors moved to the last axis, both
# cast to their promoted dtype, each component a product minus a product
# (a missing third component of a 2-vector is zero, which NumPy leaves out
# of the expressions: 0 - a2 * b1 is written -(a2 * b1)).

def _check_cross_sizes(na: int, nb: int) -> None:
    """Which vector sizes np.cross takes is NumPy's to say: 2 and 3 in NumPy
    2.0 to 2.4 (2, deprecated), 3 only since.  It raises as NumPy does, on
    vectors of zeros of those sizes."""
    if na == nb == 3:
        return
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross(np.zeros(na), np.zeros(nb))
        except ValueError as e:
            raise UserCodeError(f"ValueError: {e}") from None


@implements(np.cross)
def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = as_array(a), as_array(b)
    if a.ndim < 1 or b.ndim < 1:
        raise UserCodeError("ValueError: At least one array has zero dimension")
    a = moveaxis(a, normalize_axis(axisa, a.ndim), -1)
    b = moveaxis(b, normalize_axis(axisb, b.ndim), -1)
    na, nb = a.shape[-1], b.shape[-1]
    _check_cross_sizes(na, nb)
    dtype = np.promote_types(a.dtype, b.dtype)
    a, b = astype(a, dtype), astype(b, dtype)
    a0, a1, b0, b1 = a[..., 0], a[..., 1], b[..., 0], b[..., 1]
    if na == 2 and nb == 2:
        result = a0 * b1 - a1 * b0
        result.immutable = False        # NumPy's `cp`: an array, also 0-d
        return result
    if na == 2:
        b2 = b[..., 2]
        parts = (a1 * b2, -(a0 * b2), a0 * b1 - a1 * b0)
    elif nb == 2:
        a2 = a[..., 2]
        parts = (-(a2 * b1), a2 * b0, a0 * b1 - a1 * b0)
    else:
        a2, b2 = a[..., 2], b[..., 2]
        parts = (a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0)
    shape = np.broadcast_shapes(a0.shape, b0.shape)
    cp = stack([broadcast_to(astype(p, dtype, copy=False), shape) for p in parts], axis=-1)
    return moveaxis(cp, -1, normalize_axis(axisc, cp.ndim))


# --- diagflat, triu/tril/diag_indices_from, matrix_transpose -------------------------------

@implements(np.diagflat)
def diagflat(v, k=0):
    return diag(reshape(as_array(v), -1), k)


def _indices_from(name, indices):
    def indices_from(arr, k=0):
        arr = as_array(arr)
        if arr.ndim != 2:
            raise UserCodeError("ValueError: input array must be 2-d")
        # static: only the shape matters (constants, as NumPy's own arrays)
        return tuple(Array(const_value(i)) for i in indices(*arr.shape[:1], k=k, m=arr.shape[1]))
    indices_from.__name__ = name
    return indices_from


implements(np.triu_indices_from)(_indices_from("triu_indices_from", np.triu_indices))
implements(np.tril_indices_from)(_indices_from("tril_indices_from", np.tril_indices))


@implements(np.diag_indices_from)
def diag_indices_from(arr):
    """np.diag_indices for arr's shape: static, as only the shape matters."""
    arr = as_array(arr)
    if arr.ndim < 2:
        raise UserCodeError("ValueError: input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise UserCodeError("ValueError: All dimensions of input must be of equal length")
    return tuple(Array(const_value(i)) for i in np.diag_indices(arr.shape[0], arr.ndim))


@implements(np.matrix_transpose, np.linalg.matrix_transpose)
def matrix_transpose(x):
    x = as_array(x)
    if x.ndim < 2:
        raise UserCodeError("ValueError: Input array must be at least 2-dimensional, but it is "
                            f"{x.ndim}")
    return swapaxes(x, -1, -2)


def matrix_transpose_attribute(x):
    """`x.mT`: np.matrix_transpose's view, but NumPy's attribute words the
    error for fewer than 2 axes its own way."""
    if x.ndim < 2:
        raise UserCodeError("ValueError: matrix transpose with ndim < 2 is undefined")
    return swapaxes(x, -1, -2)


# --- vecdot, multi_dot ----------------------------------------------------------------------

@implements(np.vecdot)
def vecdot(x1, x2, axis=-1):
    """sum(conj(x1) * x2) over `axis`, as a batched matrix product of a row
    by a column (the dtype is matmul's: int8 stays int8, bools OR their ANDs)."""
    x1, x2 = (as_array(as_array_operand(x)) for x in (x1, x2))
    if x1.ndim == 0 or x2.ndim == 0:
        raise ShapeError("vecdot: Input operand does not have enough dimensions (it has 0, "
                         "the signature (n),(n)->() needs 1)")
    x1, x2 = (moveaxis(x, normalize_axis(axis, x.ndim), -1) for x in (x1, x2))
    if x1.dtype.kind == "c":
        x1 = emit_ufunc("conjugate", x1)
    out = matmul(expand_dims(x1, -2), expand_dims(x2, -1))[..., 0, 0]
    if out.ndim == 0:
        out.immutable = True    # a NumPy scalar, as a ufunc gives
    return out


def _matrix_vector_operands(name, x1, x2, matrix_first: bool):
    """matvec's (matrix, vector) or vecmat's (vector, matrix) as arrays, with
    NumPy's error where one has too few axes for the gufunc signature."""
    x1, x2 = (as_array(as_array_operand(x)) for x in (x1, x2))
    for i, (x, needs) in enumerate(zip((x1, x2), (2, 1) if matrix_first else (1, 2))):
        if x.ndim < needs:
            core = "(m,n),(n)->(m)" if matrix_first else "(n),(n,m)->(m)"
            raise ShapeError(f"{name}: Input operand {i} does not have enough dimensions (has "
                             f"{x.ndim}, gufunc core with signature {core} requires {needs})")
    return x1, x2


def matvec(x1, x2):
    """np.matvec (NumPy 2.2): the matrices x1 (..., m, n) times the vectors
    x2 (..., n), batch axes broadcast: matmul's dtype and sums, no conjugate."""
    x1, x2 = _matrix_vector_operands("matvec", x1, x2, matrix_first=True)
    return matmul(x1, expand_dims(x2, -1))[..., 0]


def vecmat(x1, x2):
    """np.vecmat (NumPy 2.2): the vectors x1 (..., n), conjugated as vecdot
    does, times the matrices x2 (..., n, m)."""
    x1, x2 = _matrix_vector_operands("vecmat", x1, x2, matrix_first=False)
    if x1.dtype.kind == "c":
        x1 = emit_ufunc("conjugate", x1)
    return matmul(expand_dims(x1, -2), x2)[..., 0, :]


# (NumPy 2.2 added them: register them only where the installed NumPy has them)
if hasattr(np, "matvec"):
    implements(np.matvec)(matvec)
    implements(np.vecmat)(vecmat)


@implements(np.linalg.multi_dot)
def multi_dot(arrays, *, out=None):
    """NumPy's multi_dot: the products in the cheapest order (which decides
    the roundings), a 1-d first or last array taken as a row or column."""
    if out is not None:
        raise UnsupportedError("np.linalg.multi_dot(out=...) is not supported",
                               hint="assign the result")
    arrays = [as_array(as_array_operand(a)) for a in arrays]
    n = len(arrays)
    if n < 2:
        raise UserCodeError("ValueError: Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1])
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = reshape(arrays[0], 1, -1)
    if last == 1:
        arrays[-1] = reshape(arrays[-1], -1, 1)
    for a in arrays:
        if a.ndim != 2:
            raise UserCodeError(f"LinAlgError: {a.ndim}-dimensional array given. Array must be "
                                "two-dimensional")
    result = _chain(arrays, _chain_order([a.shape for a in arrays]), 0, n - 1)
    if first == 1 and last == 1:
        result = result[0, 0]
        result.immutable = True         # NumPy's result[0, 0]: a scalar
        return result
    return reshape(result, -1) if first == 1 or last == 1 else result


def _chain_order(shapes) -> dict:
    """NumPy's matrix-chain order (_multi_dot_three's cost rule for three
    matrices, its dynamic program for more): split[i, j] = where the
    product of matrices i..j splits."""
    n = len(shapes)
    if n == 3:
        (a0, a1b0), (b1c0, c1) = shapes[0], shapes[2]
        cost1 = a0 * b1c0 * (a1b0 + c1)
        cost2 = a1b0 * c1 * (a0 + b1c0)
        return {(0, 2): 1 if cost1 < cost2 else 0, (0, 1): 0, (1, 2): 1}
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    cost, split = {(i, i): 0 for i in range(n)}, {}
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i, j] = np.inf
            for k in range(i, j):
                q = cost[i, k] + cost[k + 1, j] + p[i] * p[k + 1] * p[j + 1]
                if q < cost[i, j]:
                    cost[i, j], split[i, j] = q, k
    return split


def _chain(arrays, split, i, j):
    if i == j:
        return arrays[i]
    k = split[i, j]
    return dot(_chain(arrays, split, i, k), _chain(arrays, split, k + 1, j))


# --- vector_norm / matrix_norm (the array API's norms) -----------------------------------

@implements(np.linalg.vector_norm)
def vector_norm(x, *, axis=None, keepdims=False, ord=2):
    """NumPy's own steps: the reduced axes moved first and flattened into
    one, whose vector norm is taken; keepdims restores unit axes."""
    x = as_array(as_array_operand(x))
    shape = x.shape
    if axis is None:
        x, along_axis = reshape(x, -1), 0
    elif isinstance(axis, tuple):
        axes = normalize_axes(axis, x.ndim)
        rest = tuple(i for i in range(x.ndim) if i not in axes)
        size = int(np.prod([shape[i] for i in axis], dtype=int))
        x = reshape(transpose(x, axis + rest), (size, *[shape[i] for i in rest]))
        along_axis = 0
    else:
        along_axis = axis
    result = norm(x, ord=ord, axis=along_axis)
    if keepdims and shape:      # (a 0-d array's norm stays a NumPy scalar)
        reduced = normalize_axes(tuple(range(len(shape))) if axis is None else axis, len(shape))
        result = reshape(result, tuple(1 if i in reduced else d for i, d in enumerate(shape)))
    return result


@implements(np.linalg.matrix_norm)
def matrix_norm(x, *, keepdims=False, ord="fro"):
    return norm(x, axis=(-2, -1), keepdims=keepdims, ord=ord)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from .decompositions import singular_values  # noqa: E402
from .elementwise import astype, emit_ufunc  # noqa: E402
from .shape import broadcast_to, stack  # noqa: E402
from ..infer.builder import const_value  # noqa: E402
from ..infer.values import Array  # noqa: E402
