"""Products: matmul (@), dot, tensordot, einsum, inner, outer, vdot.

Dtype rule: np.result_type of the operands (NEP 50).  Shape rule: jax's
abstract evaluation of the same jax.numpy call, which follows NumPy's shape
rules; mismatches become tpucc ShapeErrors at the user's line.  Precision is
HIGHEST unless the compile option `matmul_precision` says otherwise, so
float32 results match NumPy on every backend.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import ShapeError, UserCodeError
from ..ir import AVal
from .registry import (all_weak, as_array_operand, cast, define_vjp, implements, matmul_precision,
                       register, result_type, target_platforms)

PRODUCTS = {
    "matmul": lambda a, b, precision: jnp.matmul(a, b, precision=precision),
    "dot": lambda a, b, precision: jnp.dot(a, b, precision=precision),
    "inner": lambda a, b, precision: jnp.inner(a, b, precision=precision),
    "outer": lambda a, b, precision: jnp.outer(a, b),
    "vdot": lambda a, b, precision: jnp.vdot(a, b, precision=precision),
    "tensordot": lambda a, b, precision, axes: jnp.tensordot(a, b, axes, precision=precision),
}


def _product_dtype(avals):
    dt = result_type(*avals)
    return dt


def _abstract(fn, name):
    def abstract(avals, precision=None, **attrs):
        dt = _product_dtype(avals)
        if name == "matmul" and any(a.ndim == 0 for a in avals):
            raise ShapeError("matmul: Input operand does not have enough dimensions")
        shape = _plain_product_shape(name, avals)
        if shape is not None:
            return AVal(dt, shape, all_weak(avals))
        try:
            with jax.enable_x64(True):
                out = jax.eval_shape(lambda *xs: fn(*xs, None, **attrs),
                                     *(jax.ShapeDtypeStruct(a.shape, dt) for a in avals))
        except (TypeError, ValueError) as e:
            raise _misaligned(name, avals, e) from None
        return AVal(dt, tuple(out.shape), all_weak(avals))
    return abstract


def _misaligned(name, avals, error) -> ShapeError:
    """NumPy's words for a product whose inner dimensions differ (jax's
    name its dot_general); else jax's first line."""
    shapes = " and ".join(str(a.shape) for a in avals)
    if name in ("matmul", "dot") and len(avals) == 2 and avals[0].ndim and avals[1].ndim:
        a, b = avals
        k_at = max(b.ndim - 2, 0)           # (b's contracted axis)
        k, k2 = a.shape[-1], b.shape[k_at]
        if k != k2:
            if name == "matmul":
                return ShapeError(f"matmul: Input operand 1 has a mismatch in its core "
                                  f"dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) "
                                  f"(size {k2} is different from {k})")
            return ShapeError(f"shapes {shapes} not aligned: {k} (dim {a.ndim - 1}) != {k2} "
                              f"(dim {k_at})")
        if name == "matmul":
            return ShapeError(f"matmul: the leading (batch) dimensions of {shapes} could not "
                              "be broadcast together")
    return ShapeError(f"{name}: shapes {shapes} do not fit: {_first_line(error)}")


def _plain_product_shape(name, avals):
    """The result shape of matmul or dot of matrices and vectors whose inner
    dimensions agree (nearly every product in a model), else None: the
    general rule is jax's abstract evaluation, slow for every new shape."""
    a, b = avals
    if name not in ("matmul", "dot") or not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return None
    if a.shape[-1] != b.shape[0]:
        return None             # jax's evaluation reports the mismatch
    return a.shape[:-1] + b.shape[1:]


def _first_line(e) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


def _lower(fn):
    def lower(lc, *xs, precision=None, **attrs):
        dt = lc.out_avals[0].dtype
        xs = [cast(x, dt) for x in xs]
        prec = getattr(lax.Precision, precision.upper()) if precision else None
        if fn in _MATRIX_PRODUCTS and dt.kind in "fc" and all(np.ndim(x) == 2 for x in xs):
            transposed = _transposed_from(lc, 1)
            if transposed is not None:                  # x @ w.T (PyTorch's linear layer)
                return product_with_transposed(xs[0], cast(transposed, dt), prec)
            # One dot_general, without jax.numpy's nested jit to trace.
            return lax.dot_general(*xs, (((1,), (0,)), ((), ())), precision=prec)
        return cast(fn(*xs, prec, **attrs), dt)
    return lower


_MATRIX_PRODUCTS = (PRODUCTS["matmul"], PRODUCTS["dot"])


def _transposed_from(lc, k):
    """The matrix whose transpose operand k is, when a transpose op of the
    same region made it; else None."""
    made = lc.producer(k)
    if made is None or made[0] != "transpose" or tuple(made[1]["perm"]) != (1, 0):
        return None
    return logical(made[2][0])

for _name, _fn in PRODUCTS.items():
    register(_name, _abstract(_fn, _name), _lower(_fn), numpy=getattr(np, _name))


def _product_vjp(lc, operands, perms, out, ct, precision=None, stacks=False):
    """Of a product of two matrices (the lowering's one dot_general); with
    `stacks` (matmul), also of stacks of matrices (broadcast batch axes) and
    vectors."""
    dt = out.dtype
    ndims = [np.ndim(x) for x in operands]
    if dt.kind != "f" or (ndims != [2, 2] and (not stacks or 0 in ndims)):
        return NotImplemented
    a, b = (cast(x, dt) for x in operands)
    prec = getattr(lax.Precision, precision.upper()) if precision else None
    if ndims == [2, 2]:
        return (product_with_transposed(ct, b, prec) if lc.wants(0) else None,
                lax.dot_general(a, ct, (((0,), (0,)), ((), ())), precision=prec)
                if lc.wants(1) else None)
    if ndims[1] == 2 and ndims[0] > 2:
        return _stack_by_matrix_vjp(lc, a, b, ct, prec)
    # Vectors as matrices: a (k,) is (1, k), b (k,) is (k, 1), as matmul reads them.
    a2 = a[None, :] if ndims[0] == 1 else a
    b2 = b[:, None] if ndims[1] == 1 else b
    ct2 = ct
    if ndims[0] == 1:
        ct2 = jnp.expand_dims(ct2, -2 if ndims[1] > 1 else 0)
    if ndims[1] == 1:
        ct2 = jnp.expand_dims(ct2, -1)
    da = db = None
    if lc.wants(0):
        da = unbroadcast(jnp.matmul(ct2, jnp.swapaxes(b2, -1, -2), precision=prec), a2.shape)
        da = lax.reshape(da, a.shape)
    if lc.wants(1):
        db = unbroadcast(jnp.matmul(jnp.swapaxes(a2, -1, -2), ct2, precision=prec), b2.shape)
        db = lax.reshape(db, b.shape)
    return da, db


def _stack_by_matrix_vjp(lc, a, b, ct, prec):
    """Of a (..., m, k) @ b (k, n), a dense layer over a batch of sequences:
    as one product of matrices, a's leading axes folded into its rows (not
    a batched product whose weight gradients are summed afterwards)."""
    k, n = b.shape
    m = int(np.prod(a.shape[:-1]))
    rows_a, rows_ct = lax.reshape(a, (m, k)), lax.reshape(ct, (m, n))
    da = (lax.reshape(product_with_transposed(rows_ct, b, prec), a.shape)
          if lc.wants(0) else None)
    db = (lax.dot_general(rows_a, rows_ct, (((0,), (0,)), ((), ())), precision=prec)
          if lc.wants(1) else None)
    return da, db


# XLA:CPU folds a transpose into the dot that reads it, and its dot with the
# right operand contracted along its last axis (a @ b.T) runs 3-4x slower
# than a @ b at any number of rows (4096x4096 at 128 rows: 115 ms against
# 28), and far below memory speed at a few rows (VGG19's classifier gradient
# ct @ W.T, 8 x 4096 by 4096 x 25088: 167 ms; 430 ms with 2 rows, where the
# forward x @ W takes 27 ms).  So on the CPU: up to ROW_PRODUCT_MAX_M rows,
# one matrix-vector product per row (at memory speed: b read once per row);
# above, b transposed into memory first (behind an optimization barrier,
# which XLA does not fold through), then a plain dot (115 -> 70 ms above),
# except for a large b (over SMALL_B_MAX_SIZE elements) with fewer than
# TRANSPOSE_FIRST_MIN_M rows, where the transpose costs about what it saves.
# Isolated products (jax 0.10.2, AVX-512, ms, one dot / transposed first):
# 1024 x 1024 at 12 rows 3.0 / 0.8, at 32 rows 3.4 / 1.9; 2048 x 2048 at 16
# rows 7.8 / 4.8, at 64 rows 18.5 / 9.8; 4096 x 4096 at 32 rows 33 / 51.  A
# PyTorch-style MLP training step (784-1024-1024-10) at batch 10 to 48:
# 5.6-9.8 -> 3.1-6.2 ms.  (Rows one by one lose from 9 rows in whole
# programs: 6 -> 24 ms for that step at batch 10.)  GPUs and TPUs get the one
# dot_general.
ROW_PRODUCT_MAX_M = 8
TRANSPOSE_FIRST_MIN_M = 64
SMALL_B_MAX_SIZE = 2048 * 2048


def product_with_transposed(a, b, prec):
    """a @ b.T for matrices a (m, k) and b (n, k)."""
    dims = (((1,), (1,)), ((), ()))
    m = a.shape[0]
    if target_platforms() != ("cpu",) or m < 2:
        return lax.dot_general(a, b, dims, precision=prec)
    if m <= ROW_PRODUCT_MAX_M:
        return lax.concatenate([lax.dot_general(lax.slice_in_dim(a, i, i + 1), b, dims,
                                                precision=prec) for i in range(m)], 0)
    if m >= TRANSPOSE_FIRST_MIN_M or b.size <= SMALL_B_MAX_SIZE:
        b_t = lax.optimization_barrier(lax.transpose(b, (1, 0)))
        return lax.dot_general(a, b_t, (((1,), (0,)), ((), ())), precision=prec)
    return lax.dot_general(a, b, dims, precision=prec)


define_vjp("matmul", functools.partial(_product_vjp, stacks=True))
define_vjp("dot", _product_vjp)


def _emit(name, a, b, **attrs):
    return emit(name, as_array_operand(a), as_array_operand(b),
                precision=matmul_precision(), **attrs)


@implements(np.matmul)
def matmul(a, b, *, out=None, dtype=None, casting="same_kind"):
    if dtype is not None:   # NumPy's loop for that output: the operands cast to it
        a, b = cast_operands("matmul", [as_array_operand(a), as_array_operand(b)], dtype, casting)
    result = _emit("matmul", a, b)
    if out is None:
        return result
    # np.matmul is a (generalized) ufunc: out= is written, with the same_kind
    # cast and broadcast over leading axes, as np.add's is
    return store_out("matmul", result, out, True)


@implements(np.dot, method="dot")
def dot(a, b):
    return _emit("dot", a, b)


@implements(np.inner)
def inner(a, b):
    return _emit("inner", a, b)


@implements(np.outer)
def outer(a, b):
    return _emit("outer", a, b)


@implements(np.vdot)
def vdot(a, b):
    return _emit("vdot", a, b)


@implements(np.tensordot)
def tensordot(a, b, axes=2):
    axes = axes if isinstance(axes, int) else tuple(
        tuple(x) if isinstance(x, (list, tuple)) else x for x in axes)
    if hasattr(a, "shape") and hasattr(b, "shape"):
        _check_summed_axes(tuple(a.shape), tuple(b.shape), axes)
    return _emit("tensordot", a, b, axes=axes)


def _check_summed_axes(a_shape, b_shape, axes):
    """NumPy's reason ("shape-mismatch for sum") for summed axes of other
    sizes, naming them, before jax's words for it (dot_general's)."""
    if isinstance(axes, int):
        pairs = list(zip(range(len(a_shape) - axes, len(a_shape)), range(axes)))
    else:
        a_axes, b_axes = (tuple(x) if isinstance(x, tuple) else (x,) for x in axes)
        if len(a_axes) != len(b_axes):
            raise ShapeError("np.tensordot: shape-mismatch for sum: the two lists of axes "
                             f"have {len(a_axes)} and {len(b_axes)} items",
                             hint="give as many axes of b as of a")
        pairs = list(zip(a_axes, b_axes))
    for i, j in pairs:
        if not (-len(a_shape) <= i < len(a_shape) and -len(b_shape) <= j < len(b_shape)):
            return      # (an axis out of range: its own message, jax's)
        if a_shape[i] != b_shape[j]:
            raise ShapeError(f"np.tensordot: shape-mismatch for sum: axis {i} of a (shape "
                             f"{a_shape}) has size {a_shape[i]}, axis {j} of b (shape "
                             f"{b_shape}) has size {b_shape[j]}",
                             hint="the summed axes (axes=) must have the same sizes in a and b")


def _einsum_abstract(avals, subscripts, precision=None):
    dt = result_type(*avals)
    try:
        with jax.enable_x64(True):
            out = jax.eval_shape(lambda *xs: jnp.einsum(subscripts, *xs),
                                 *(jax.ShapeDtypeStruct(a.shape, dt) for a in avals))
    except (TypeError, ValueError) as e:
        raise ShapeError(f"einsum {subscripts!r}: {_first_line(e)}") from None
    return AVal(dt, tuple(out.shape), all_weak(avals))


def _einsum_lower(lc, *xs, subscripts, precision=None):
    dt = lc.out_avals[0].dtype
    prec = getattr(lax.Precision, precision.upper()) if precision else None
    xs = [lax.convert_element_type(x, dt) for x in xs]
    return lax.convert_element_type(jnp.einsum(subscripts, *xs, precision=prec), dt)


register("einsum", _einsum_abstract, _einsum_lower,
         numpy=lambda *xs, subscripts: np.einsum(subscripts, *xs))


@implements(np.einsum)
def einsum(subscripts, *operands, optimize=False, dtype=None, casting="safe"):
    if not isinstance(subscripts, str):
        subscripts, operands = _sublist_subscripts((subscripts, *operands))
    # NumPy's einsum reads each operand with asarray: a Python number is an
    # int64/float64 array there, not a weak scalar (NEP 50 is for ufuncs)
    operands = [as_array_operand(x) for x in operands]
    if dtype is not None:
        operands = cast_operands("einsum", operands, dtype, casting)
    if dtype is None and len(operands) == 1:
        view = _single_operand_view(subscripts, operands[0])
        if view is not None:
            return view
    result = emit("einsum", *operands, subscripts=subscripts, precision=matmul_precision())
    if result.ndim == 0 and _last_step_is_a_pair(subscripts, operands, optimize):
        result.immutable = False        # NumPy's matmul step gives a 0-d array, not a scalar
    return result


def _single_operand_view(subscripts: str, a):
    """NumPy's einsum of one operand that sums nothing ('ii->i', 'ij->ji',
    'ij', '...ii->...i') returns a writeable view: diagonals (a repeated
    label) and a transpose of `a`, which writes through it change and whose
    later writes it sees.  None where einsum computes (a sum)."""
    if not isinstance(a, Array) or a.ndim == 0 or "," in subscripts:
        return None     # (a 0-d result is a NumPy scalar, as NumPy's c_einsum returns it)
    spec = subscripts.replace(" ", "")
    inputs, arrow, output = spec.partition("->")
    if inputs.count("...") > 1 or "." in inputs.replace("...", ""):
        return None
    before, dots, after = inputs.partition("...")
    named = len(before) + len(after)
    if not all(c.isalpha() for c in before + after) or named > a.ndim or (named < a.ndim and not dots):
        return None
    ellipsis = [f"...{i}" for i in range(a.ndim - named)]
    labels = list(before) + ellipsis + list(after)
    if not arrow:       # implicit: the labels seen once, sorted, after the ellipsis's axes
        output = "..." + "".join(sorted(c for c in set(before + after)
                                        if (before + after).count(c) == 1))
    out_before, out_dots, out_after = output.partition("...")
    wanted = list(out_before) + (ellipsis if out_dots else []) + list(out_after)
    if sorted(set(labels)) != sorted(wanted) or len(wanted) != len(set(wanted)):
        return None     # a label summed over, or one NumPy refuses: einsum's own path
    return _relabelled(a, labels, wanted)


def _relabelled(a, labels: list, wanted: list):
    """`a`, whose axes carry `labels`, as a view with axes `wanted`: each
    repeated label's diagonal, then a transpose."""
    while len(set(labels)) < len(labels):
        label = next(c for c in labels if labels.count(c) > 1)
        first = labels.index(label)
        second = labels.index(label, first + 1)
        if a.shape[first] != a.shape[second]:
            return None     # (NumPy's ValueError: einsum's own path says it)
        a = diagonal_view(a, 0, first, second)
        labels = [c for i, c in enumerate(labels) if i not in (first, second)] + [label]
    return transpose_function(a, [labels.index(c) for c in wanted])


def _last_step_is_a_pair(subscripts, operands, optimize) -> bool:
    """Whether NumPy's einsum ends with a contraction of two operands.
    Unless optimize is False (the default; None is not False), NumPy follows
    einsum_path and contracts pairs with bmm_einsum (a matmul: a 0-d result
    is an ndarray), a single operand or three at once with c_einsum (a 0-d
    result is a scalar): np.einsum('i,i', a, b, optimize=True) is an array.
    The path depends on shapes only: NumPy's own einsum_path decides, on
    zero-strided stand-ins."""
    if optimize is False or len(operands) < 2:
        return False
    shapes = [tuple(x.shape) if isinstance(x, Array) else np.shape(x) for x in operands]
    stand_ins = [np.lib.stride_tricks.as_strided(np.zeros((), np.int8), shape, (0,) * len(shape))
                 for shape in shapes]
    try:
        _, contractions = np.einsum_path(subscripts, *stand_ins, optimize=optimize,
                                         einsum_call=True)
    except (TypeError, ValueError) as e:
        raise UserCodeError(f"{type(e).__name__}: {e}") from None
    return len(contractions[-1][0]) == 2


def _sublist_subscripts(args) -> tuple:
    """np.einsum(x, [0, 1], y, [1, 2], [0, 2]): the subscript string NumPy
    makes of the sublists (0-25 are A-Z, 26-51 a-z) and the operands."""
    def letters(sublist):
        out = []
        for s in sublist:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and 0 <= s < 52:
                out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
            else:
                raise UserCodeError("ValueError: subscript is not within the valid range [0, 52)")
        return "".join(out)
    operands, sublists = list(args[0::2]), [_static_sublist(s) for s in args[1::2]]
    output = None
    if len(args) % 2:       # an odd count: the last is the output's sublist
        output = operands.pop()
        if isinstance(output, Array):
            if known_constant(output) is None:
                raise UserCodeError("ValueError: einsum: an operand has no sublist")
            output = _static_sublist(output)
    subscripts = ",".join(letters(s) for s in sublists)
    if output is not None:
        subscripts += "->" + letters(output)
    return subscripts, operands


def _static_sublist(sublist):
    """A sublist of np.einsum's, an array of labels made while compiling
    (np.array([0, 1]), np.arange(2)) read as the NumPy array it holds; a
    runtime one is refused naming it: labels decide the result's shape."""
    if not isinstance(sublist, Array):
        return sublist
    known = known_constant(sublist)
    if known is None:
        raise runtime_argument_error("a sublist of np.einsum (the labels of an operand's axes)")
    return known


def inplace_matmul(a, b):
    """`a @= b` writes into `a` (other names for the array see it), as NumPy,
    which needs a at least 1-d, b at least 2-d and a result of a's shape."""
    if rebinds_in_place(a):
        return matmul(a, b)     # a scalar or a jax array: a new value; matmul raises on 0-d
    if a.ndim < 1 or getattr(b, "ndim", 0) < 2:
        raise ShapeError("inplace matrix multiplication requires the first operand to have at "
                         "least one and the second at least two dimensions")
    return store_inplace(a, matmul(a, b), "matmul")


def install_operators():
    from .masked import Selection

    # With a runtime slice on the right, Python asks the slice instead.
    Array.__matmul__ = lambda a, b: NotImplemented if isinstance(b, Selection) else matmul(a, b)
    Array.__rmatmul__ = lambda a, b: matmul(b, a)
    Array.__imatmul__ = inplace_matmul


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.static_arguments import runtime_argument_error  # noqa: E402
from ..infer.values import Array, known_constant, rebinds_in_place  # noqa: E402
from .elementwise import store_inplace, store_out  # noqa: E402
from .shape import cast_operands, diagonal_view, transpose_function  # noqa: E402
from ..lower.layout import logical  # noqa: E402
from ..lower.reverse import unbroadcast  # noqa: E402
