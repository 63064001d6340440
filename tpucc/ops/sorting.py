"""Sorting and selection by index: sort, argsort (functions and methods,
`a.sort()` in place), take, take_along_axis, compress, ix_.

Sorting is the one thing here that needs an op of its own (lax.sort).  NaN
sorts last and -0.0 equals 0.0, as in NumPy (lax.sort canonicalizes floats
before comparing).  Ties keep their input order: argsort is always stable,
as NumPy's kind='stable'.  NumPy's default kind='quicksort' makes no promise
about ties (on x86 with SIMD sorting it reorders them even in short arrays),
so no ordering of ties could match it; a stable one is the deterministic one.
"""
from __future__ import annotations

import numpy as np
from jax import lax

from ..errors import ShapeError, UnsupportedError, UserCodeError
from ..ir import AVal
from .creation import arange
from .manipulation import along, as_array
from .registry import define_range, implements, normalize_axis, register
from .shape import clip, ravel, reshape


def _emit(*a, **k):
    return emit(*a, **k)


# --- the sort ops ---------------------------------------------------------------------------

def _sorted_lower(lc, x, axis):
    if x.dtype.kind == "c":
        return _sort_complex(x, x, axis)
    return lax.sort(x, dimension=axis, is_stable=True)


def _order_lower(lc, x, axis):
    positions = lax.broadcasted_iota(np.int64, x.shape, axis)
    if x.dtype.kind == "c":
        return _sort_complex(x, positions, axis)
    return lax.sort((x, positions), dimension=axis, is_stable=True, num_keys=1)[1]


def _sort_complex(x, payload, axis):
    """`payload` in the order NumPy sorts complex x: R + Rj, then R + nanj,
    nan + Rj, nan + nanj, each group by its parts that are numbers
    (lax.sort's own complex order would put 1 + nanj before 2 + 0j)."""
    re, im = lax.real(x), lax.imag(x)
    keys = (lax.ne(re, re).astype(np.uint8), lax.ne(im, im).astype(np.uint8), re, im)
    return lax.sort((*keys, payload), dimension=axis, is_stable=True, num_keys=4)[-1]


register("sort", lambda avals, axis: AVal(avals[0].dtype, avals[0].shape, False), _sorted_lower,
         numpy=lambda x, axis: np.sort(x, axis))
register("argsort", lambda avals, axis: AVal(np.dtype(np.int64), avals[0].shape, False),
         _order_lower, numpy=lambda x, axis: np.argsort(x, axis, kind="stable"))
# x[np.argsort(y)] with y as long as x: positions along the sorted axis.
define_range("argsort", lambda avals, bounds, axis: (0, max(avals[0].shape[axis] - 1, 0)))


def _check_kind(kind, order, stable):
    """NumPy's validation of kind=, order=, stable= (every kind sorts alike here)."""
    if order is not None:
        raise UnsupportedError("sorting with order= (structured arrays) is not supported")
    if kind is None:
        return
    if stable is not None:
        raise UserCodeError("ValueError: `kind` and keyword parameters can't be provided at "
                            "the same time. Use only one of them.")
    if not isinstance(kind, str):
        raise UserCodeError(f"TypeError: sort kind must be str, not {type(kind).__name__}")
    if kind[:1].lower() not in ("q", "h", "m", "s"):
        raise UserCodeError("ValueError: sort kind must be one of 'quick', 'heap', or 'stable' "
                            f"(got '{kind}')")


def _sort_operand(a, axis, flat_0d):
    """The array to sort and the axis: axis=None sorts the flattened array;
    argsort (flat_0d) sees a 0-d array as 1-d, np.sort does not."""
    a = as_array(a)
    if axis is None or (flat_0d and a.ndim == 0):
        a = ravel(a)
    return a, normalize_axis(0 if axis is None else axis, a.ndim)


@implements(np.sort)
def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    _check_kind(kind, order, stable)
    a, axis = _sort_operand(a, axis, flat_0d=False)
    from .elementwise import kept_layout
    return kept_layout(_emit("sort", a, axis=axis), (a,))   # (NumPy sorts a copy, order 'K')


@implements(np.sort_complex)
def sort_complex(a):
    """NumPy's: sorted along the last axis (by real part, then imaginary),
    then complex: complex64 for 8- and 16-bit integers, complex128 for the
    rest (float32 included)."""
    from .elementwise import astype
    b = sort(a)
    if b.dtype.kind == "c":
        return b
    return astype(b, np.complex64 if b.dtype.char in "bhBH" else np.complex128)


@implements(np.argsort, method="argsort")
def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    _check_kind(kind, order, stable)
    a, axis = _sort_operand(a, axis, flat_0d=True)
    return _emit("argsort", a, axis=axis)


@implements(method="sort")
def sort_in_place(a, axis=-1, kind=None, order=None, *, stable=None):
    """`a.sort()`: NumPy sorts the array itself and returns None."""
    if axis is None:
        raise UserCodeError("TypeError: 'NoneType' object cannot be interpreted as an integer")
    store_inplace(a, sort(a, axis, kind, order, stable=stable), "sort")


# --- take / take_along_axis ------------------------------------------------------------------

@implements(np.take, method="take")
def take(a, indices, axis=None, out=None, mode="raise"):
    if out is not None:
        raise UnsupportedError("np.take(out=...) is not supported", hint="assign the result")
    indices = array_like(indices)       # np.take(x, [i, j]) with runtime i, j
    if mode not in ("raise", "wrap", "clip"):
        raise UserCodeError(f"ValueError: mode must be one of 'raise', 'wrap' or 'clip' "
                            f"(got {mode!r})")
    a = as_array(a)
    if axis is None or a.ndim == 0:     # NumPy takes from a 0-d array as from a 1-d one
        a = ravel(a)
    axis = normalize_axis(0 if axis is None else axis, a.ndim)
    size = a.shape[axis]
    if isinstance(indices, Array):
        index = _runtime_take_index(indices, size, mode)
    else:
        index = _static_take_index(indices, size, axis, mode)
    out = a[along(axis, index)]
    return copy(out) if out.base is not None else out     # a copy, never a view


def _integer_indices(dtype):
    if dtype.kind not in "biu":
        raise ShapeError(f"np.take: indices must be integers, not {dtype}")


def _runtime_take_index(indices, size, mode):
    """mode='raise' cannot raise at run time: an index out of bounds is
    handled as x[indices] handles it."""
    _integer_indices(indices.dtype)
    if indices.dtype == np.bool_:
        indices = astype(indices, np.int64)
    if mode != "raise" and size == 0:
        raise ShapeError("cannot do a non-empty take from an empty axes.")
    if mode == "wrap":
        return indices % size
    if mode == "clip":
        return clip(indices, 0, size - 1)
    return indices


def _static_take_index(indices, size, axis, mode):
    index = np.asarray(indices)
    if index.size:      # np.take(x, []) takes nothing, whatever [] converts to
        _integer_indices(index.dtype)
    index = index.astype(np.int64)
    if mode != "raise" and size == 0 and index.size:
        raise ShapeError("cannot do a non-empty take from an empty axes.")
    if mode == "wrap":
        index = index % max(size, 1)
    elif mode == "clip":
        index = np.clip(index, 0, max(size - 1, 0))
    bad = index[(index < -size) | (index >= size)]
    if bad.size:
        raise UserCodeError(f"IndexError: index {bad.flat[0]} is out of bounds for axis "
                            f"{axis} with size {size}")        # caught as NumPy's
    return int(index) if index.ndim == 0 else index


@implements(np.take_along_axis)
def take_along_axis(arr, indices, axis=-1):
    arr, indices = as_array(arr), as_array(indices)
    if indices.dtype.kind not in "iu":
        raise ShapeError("`indices` must be an integer array")
    if axis is None:
        if indices.ndim != 1:
            raise ShapeError("when axis=None, `indices` must have a single dimension.")
        arr, axis = ravel(arr), 0
    if indices.ndim != arr.ndim:
        raise ShapeError("`indices` and `arr` must have the same number of dimensions")
    return arr[along_axis_key(arr.shape, indices, normalize_axis(axis, arr.ndim))]


def along_axis_key(shape, indices, axis):
    """The index take_along_axis reads and put_along_axis writes: `indices`
    on `axis`, every other axis indexed by its own positions, broadcast
    against them."""
    return tuple(indices if d == axis else
                 reshape(arange(n), tuple(n if i == d else 1 for i in range(len(shape))))
                 for d, n in enumerate(shape))


# --- compress / ix_ ---------------------------------------------------------------------------

@implements(np.compress)
def compress(condition, a, axis=None, out=None):
    """The slices of `a` along `axis` where the 1-d condition holds (a
    shorter condition is False beyond its end): a take of its True
    positions when it is static; when it is a runtime mask it is
    a[condition] (axis 0, or the flattened a), a boolean-mask selection
    with its rules (masked.py: elementwise math, reductions, assignments
    from it), since how many slices it keeps depends on the values."""
    if out is not None:
        raise UnsupportedError("np.compress(out=...) is not supported", hint="assign the result")
    cond = array_like(condition)
    a = as_array(a)
    if axis is None or a.ndim == 0:
        a, axis = ravel(a), 0
    axis = normalize_axis(axis, a.ndim)
    n = a.shape[axis]
    if (cond.ndim if isinstance(cond, Array) else np.ndim(cond)) != 1:
        raise UserCodeError("ValueError: condition must be a 1-d array")
    if not isinstance(cond, Array):
        picked = np.flatnonzero(np.asarray(cond).astype(bool))
        return take(a, picked, axis=axis)
    cond = astype(cond, np.bool_, copy=False)
    m = cond.shape[0]
    if m > n:
        from ..infer import checks
        checks.require(~NUMPY[np.any](cond[n:]), f"a condition's True is out of bounds for axis "
                       f"{axis} with size {n} (np.compress)",
                       hint="NumPy raises IndexError here; compiled code checks the condition "
                            "and raises when the call returns")
        cond = cond[:n]
    elif m < n:
        cond = NUMPY[np.concatenate]([cond, NUMPY[np.zeros](n - m, np.bool_)])
    if axis != 0:
        raise ShapeError("np.compress with a runtime condition along an axis other than the "
                         "first gives a data-dependent shape in the middle of the array",
                         hint="compress along axis 0 (np.moveaxis the axis first: the result "
                              "is a boolean-mask selection), or keep the shape with "
                              "np.where(condition, a, fill)")
    return a[cond]


@implements(method="compress")
def compress_method(a, condition, axis=None, out=None):
    return compress(condition, a, axis, out)


@implements(np.ix_)
def ix_(*args):
    """Each 1-d sequence reshaped to broadcast along its own axis (a view
    of it, as NumPy's reshape); a boolean one is its True positions, which
    a runtime mask has only at run time."""
    out = []
    for k, arg in enumerate(args):
        arg = array_like(arg)
        if not isinstance(arg, Array):
            arg = np.asarray(arg)
            if arg.size == 0:
                arg = arg.astype(np.intp)
            if arg.dtype == np.bool_ and arg.ndim == 1:
                arg = np.flatnonzero(arg)
        if arg.ndim != 1:
            raise UserCodeError("ValueError: Cross index must be 1 dimensional")
        if isinstance(arg, Array) and arg.dtype == np.bool_:
            raise UnsupportedError("np.ix_ of a runtime boolean array is not supported: it "
                                   "takes the positions of its Trues (np.nonzero), whose number "
                                   "depends on the values",
                                   hint="pass integer positions, or mask with np.where(m, x, "
                                        "fill) to keep the shape")
        shape = (1,) * k + (arg.shape[0],) + (1,) * (len(args) - k - 1)
        out.append(reshape(as_array(arg), shape))
    return tuple(out)


# --- lexsort / isin ----------------------------------------------------------------------------

@implements(np.lexsort)
def lexsort(keys, axis=-1):
    """Indices sorting by the last key, ties broken by the one before, ...:
    stable argsorts from the first key to the last, each of the key
    permuted by the order so far (NaN last, as NumPy's). Each key of a
    sequence is sorted in its own dtype, as NumPy does: stacking them would
    promote int64 and uint64 keys to float64 and lose their low bits."""
    keys = _lexsort_keys(keys)
    if keys[0].ndim == 0:      # NumPy: a sequence of 0-d keys, whose one index is 0
        return np.int64(0)
    axis = normalize_axis(axis, keys[0].ndim)
    order = argsort(keys[0], axis=axis)
    for key in keys[1:]:
        order = take_along_axis(order, argsort(take_along_axis(key, order, axis), axis=axis), axis)
    return order


def _lexsort_keys(keys) -> list:
    """The keys as a list of same-shape arrays: a sequence's items, or the
    rows of an array along its first axis."""
    if isinstance(keys, (tuple, list)):
        keys = [as_array(k) for k in keys]
        if len({k.shape for k in keys}) > 1:
            raise UserCodeError("ValueError: all keys need to be the same shape")
    else:
        keys = as_array(keys)
        keys = [] if keys.ndim == 0 else [keys[i] for i in range(keys.shape[0])]
    if not keys:
        raise UserCodeError("TypeError: need sequence of keys with len > 0 in lexsort")
    return keys


@implements(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Each element compared with every test element (NumPy's == with its
    promotion: NaN is in nothing), any over the test elements; XLA fuses the
    comparison into the reduction."""
    if kind not in (None, "sort", "table"):
        raise UserCodeError(f"ValueError: Invalid kind: '{kind}'. Please use None, 'sort' or "
                            "'table'.")
    element = as_array(element)
    tests = ravel(as_array(test_elements))
    if kind == "table" and (element.dtype.kind not in "biu" or tests.dtype.kind not in "biu"):
        raise UserCodeError("ValueError: The 'table' method is only supported for boolean or "
                            "integer arrays. Please select 'sort' or None for kind.")
    found = NUMPY[np.any](emit_ufunc("equal", reshape(element, element.shape + (1,)), tests),
                          axis=-1)
    result = NUMPY[np.logical_not](found) if invert else found
    result.immutable = False        # NumPy reshapes to element's shape: an array, also 0-d
    return result


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array, array_like  # noqa: E402
from .elementwise import astype, copy, emit_ufunc, store_inplace  # noqa: E402
from .registry import NUMPY  # noqa: E402
