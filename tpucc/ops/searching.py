"""Index arithmetic and searches in sorted arrays: np.unravel_index,
np.ravel_multi_index, np.searchsorted (function and method), np.digitize;
and the NumPy functions refused here with the reason and what compiles
instead (np.partition, np.argpartition, np.bincount unless its length is
known, np.unique and NumPy 2's unique_* functions, the set operations
intersect1d / union1d / setdiff1d / setxor1d, np.trim_zeros, np.nonzero,
np.argwhere, np.flatnonzero).  np.extract(cond, x) is x.ravel()[cond.ravel()],
a mask selection (masked.py).

Shapes are static, index values runtime (np.unravel_index also takes the
runtime .shape of a slice with runtime bounds).  Where NumPy raises on a runtime
value (an index past the array's size, a sorter entry out of range, bins
that are not monotonic), compiled code makes a runtime check
(infer/checks.py) that raises NumPy's exception class when the call
returns.

np.searchsorted is the one op of its own: a binary search of every key,
a loop of as many halving steps as the bit length of the array's size (log2
n gathers).  NaN sorts
last, as in NumPy's comparison, and -0.0 equals 0.0.  NumPy requires `a` to
be sorted (ascending, NaN last); on a sorted `a` the answer is unique, so it
equals NumPy's; on an unsorted one both are meaningless and may differ
(NumPy's search also depends on the previous key), as can digitize's bins
with a NaN anywhere but at NumPy's sorted end.  A sorter entry out of range
raises whichever entry it is; NumPy raises only if its search reads it.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import DTypeError, UnsupportedError, UserCodeError
from ..ir import AVal
from .elementwise import astype
from .manipulation import as_array
from .registry import NUMPY, as_array_operand, define_range, implements, register, static_index
from .shape import clip, ravel, where


def _emit(*a, **k):
    return emit(*a, **k)


def _is_array(x) -> bool:
    return isinstance(x, Array)


def _require(ok, message, hint=None):
    """A runtime check: NumPy raises ValueError(message) where `ok` is false."""
    from ..infer import checks
    if not _is_array(ok):           # decided at compile time
        if not ok:
            raise UserCodeError(f"ValueError: {message}")
        return
    if ok.ndim:
        ok = NUMPY[np.all](ok)
    checks.require(ok, message, raises="ValueError", hint=hint)


def _scalar_kind(result, like):
    """NumPy gives an np.int64 scalar, not a 0-d array, for a 0-d operand."""
    if result.ndim == 0 and like.ndim == 0:
        result.immutable = True
    return result


def _int_indices(x, what="only int indices permitted"):
    """An index operand as an int64 Array; NumPy casts 'same_kind' to intp."""
    x = as_array(as_array_operand(x))
    if x.dtype.kind not in "biu":
        raise UserCodeError(f"TypeError: {what}")
    return astype(x, np.int64)


def _static_dims(shape, name):
    dims = (shape,) if not isinstance(shape, (tuple, list)) else tuple(shape)
    if any(_is_array(d) for d in dims):
        raise UnsupportedError(f"np.{name} with dimensions known only at run time",
                               hint="pass a shape (x.shape, a tuple of Python ints): shapes "
                                    "are static in compiled code")
    dims = tuple(static_index(d) for d in dims)
    if any(d < 0 for d in dims):
        raise UserCodeError("ValueError: dimensions must be non-negative")
    return dims


def _check_order(order):
    if order not in ("C", "F"):
        raise UserCodeError("ValueError: only 'C' or 'F' order is permitted")


def _strides(dims, order):
    """Each axis's stride in elements of the flat array (C or F order)."""
    strides, step = [0] * len(dims), 1
    for axis in (reversed(range(len(dims))) if order == "C" else range(len(dims))):
        strides[axis] = step
        step *= dims[axis]
    return strides


# --- unravel_index / ravel_multi_index ------------------------------------------------------

@implements(np.unravel_index)
def unravel_index(indices, shape, order="C"):
    dims = _unravel_dims(shape)
    _check_order(order)
    index = _int_indices(indices)
    size = _product(dims)
    _require((index >= 0) & (index < size),
             f"an index is out of bounds for array with size {size} (np.unravel_index)"
             if not _is_array(size) else
             "an index is out of bounds for the array's size (np.unravel_index)",
             hint="NumPy raises ValueError here; compiled code checks the indices and "
                  "raises when the call returns")
    coords = []
    for d, stride in zip(dims, _strides(dims, order)):
        # d == 0 only with size 0, where every index fails the check above
        coords.append(_scalar_kind((index // _at_least_one(stride)) % _at_least_one(d), index))
    return tuple(coords)


def _unravel_dims(shape):
    """np.unravel_index's dimensions: Python ints, or runtime ints where they
    are the shape of a slice with runtime bounds (the argmax of `A[k:, k:]`
    in complete pivoting), whose coordinates are the same arithmetic on them."""
    dims = (shape,) if not isinstance(shape, (tuple, list)) else tuple(shape)
    if not any(_is_array(d) for d in dims):
        return _static_dims(dims, "unravel_index")
    dims = tuple(_int_indices(d, "'float' object cannot be interpreted as an integer")
                 if _is_array(d) else static_index(d) for d in dims)
    if any(_is_array(d) and d.ndim for d in dims):
        raise UserCodeError("TypeError: only integer scalar arrays can be converted to a "
                            "scalar index")
    for d in dims:
        _require(d >= 0, "dimensions must be non-negative")
    return dims


def _product(dims):
    size = 1
    for d in dims:
        size = size * d
    return size


def _at_least_one(n):
    return NUMPY[np.maximum](n, 1) if _is_array(n) else max(n, 1)


_MODES = ("raise", "wrap", "clip")


@implements(np.ravel_multi_index)
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    dims = _static_dims(dims, "ravel_multi_index")
    _check_order(order)
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims) or any(m not in _MODES for m in modes):
        raise UserCodeError("ValueError: clipmode must be one of 'clip', 'raise', or 'wrap' "
                            "(one, or one per dimension)")
    if not isinstance(multi_index, (tuple, list)) or len(multi_index) != len(dims):
        raise UserCodeError(f"ValueError: parameter multi_index must be a sequence of length "
                            f"{len(dims)}")
    coords = [_int_indices(c) for c in multi_index]
    flat = None
    for c, d, m, stride in zip(coords, dims, modes, _strides(dims, order)):
        if m == "raise":
            _require((c >= 0) & (c < d), "invalid entry in coordinates array "
                     "(np.ravel_multi_index)",
                     hint="NumPy raises ValueError here; compiled code checks the "
                          "coordinates and raises when the call returns")
        elif d == 0:
            raise UserCodeError("ValueError: cannot wrap or clip to a dimension of size 0")
        elif m == "wrap":
            c = c % d
        else:
            c = clip(c, 0, d - 1)
        term = c * stride
        flat = term if flat is None else flat + term
    if flat is None:        # dims == ()
        raise UserCodeError("ValueError: at least one dimension is needed")
    return _scalar_kind(flat, flat)


# --- searchsorted ----------------------------------------------------------------------------

def _less(x, y):
    """NumPy's sort order: NaN after everything (x < y, or y NaN and x not)."""
    lt = lax.lt(x, y)
    if jnp.issubdtype(x.dtype, jnp.floating):
        lt = lax.bitwise_or(lt, lax.bitwise_and(lax.ne(y, y), lax.eq(x, x)))
    return lt


def _searchsorted_lower(lc, a, v, side):
    """The first position whose element is not before the key (left: a[i] <
    v; right: a[i] <= v), by a binary search of every key at once.  The
    halving steps are a loop, not unrolled: XLA:CPU fuses an unrolled chain
    of gathers into one kernel that recomputes every earlier step, which
    took seconds of compile time for a long array (jax's searchsorted loops
    the same way)."""
    if a.dtype == np.bool_:
        a, v = a.astype(np.uint8), v.astype(np.uint8)
    n = a.shape[0]
    if n == 0:      # (the loop's body is traced even when it runs no step)
        return jnp.zeros(v.shape, np.int64)

    def halve(_, bounds):
        lo, hi = bounds
        mid = lax.shift_right_logical(lo + hi, np.int64(1))
        middle = jnp.take(a, jnp.minimum(mid, n - 1))
        before = _less(middle, v) if side == "left" else ~_less(v, middle)
        go = before & (lo < hi)
        return jnp.where(go, mid + 1, lo), jnp.where(go | (lo >= hi), hi, mid)

    bounds = (jnp.zeros(v.shape, np.int64), jnp.full(v.shape, n, np.int64))
    # the interval at least halves each step
    if n <= _UNROLLED_SEARCH_MAX:
        # A short array's few steps unrolled: no While in the program (the
        # masked selections of a loop's runtime slices search their rows;
        # the loop stays one While).
        for _ in range(n.bit_length()):
            bounds = halve(None, bounds)
        return bounds[0]
    return lax.fori_loop(0, n.bit_length(), halve, bounds)[0]


_UNROLLED_SEARCH_MAX = 4096     # 13 steps; 50 000 unrolled took XLA:CPU 4.6 s


register("searchsorted", lambda avals, side: AVal(np.dtype(np.int64), avals[1].shape, False),
         _searchsorted_lower,
         numpy=lambda a, v, side: np.asarray(np.searchsorted(a, v, side=side)))
# An insertion point: 0 to len(a).
define_range("searchsorted", lambda avals, bounds, side: (0, avals[0].shape[0]))


@implements(np.searchsorted, method="searchsorted")
def searchsorted(a, v, side="left", sorter=None):
    a = as_array(a)
    if a.ndim != 1:
        raise UserCodeError("ValueError: object of too small depth for desired array"
                            if a.ndim == 0 else "ValueError: object too deep for desired array")
    v, common = search_operands(a.dtype, v, side)
    if sorter is not None:
        a = _sorted_by(a, sorter)
    out = _emit("searchsorted", astype(a, common), astype(v, common), side=side)
    return _scalar_kind(out, v)


def search_operands(a_dtype, v, side) -> tuple:
    """np.searchsorted's checks of `side`, and (v as an array, the dtype
    both sides are compared in)."""
    if side not in ("left", "right"):
        raise UserCodeError(f"ValueError: search side must be 'left' or 'right' (got {side!r})")
    v = as_array(as_array_operand(v))
    common = np.promote_types(a_dtype, v.dtype)   # NumPy: v is not weak here
    if common.kind not in "biuf":
        raise UnsupportedError(f"np.searchsorted of {common} values is not supported",
                               hint="search real (bool, integer or float) arrays")
    return v, common


def _sorted_by(a, sorter):
    """a[sorter], with NumPy's checks of the sorter."""
    sorter = as_array(sorter)
    if sorter.ndim != 1:
        raise UserCodeError("TypeError: could not parse sorter argument")
    if sorter.dtype.kind not in "iu":
        raise UserCodeError("TypeError: sorter must only contain integers")
    if sorter.size != a.size:
        raise UserCodeError("ValueError: sorter.size must equal a.size")
    _require((sorter >= 0) & (sorter < a.size), "Sorter index out of range.",
             hint="NumPy raises ValueError here; compiled code checks the sorter and raises "
                  "when the call returns")
    return take(a, sorter, mode="clip")     # (checked above: clip changes nothing)


# --- digitize --------------------------------------------------------------------------------

@implements(np.digitize)
def digitize(x, bins, right=False):
    x = as_array(as_array_operand(x))
    if x.dtype.kind == "c":
        raise UserCodeError("TypeError: x may not be complex")
    bins = as_array(bins)
    if bins.ndim != 1:
        raise UserCodeError("ValueError: object of too small depth for desired array"
                            if bins.ndim == 0 else "ValueError: object too deep for desired array")
    if bins.dtype.kind == "c":
        raise DTypeError("np.digitize: complex bins are not supported (NumPy compares them "
                         "as float64, discarding the imaginary part)")
    mono = _monotonicity(bins)
    _require(mono != 0, "bins must be monotonically increasing or decreasing (np.digitize)",
             hint="NumPy raises ValueError here; compiled code checks the bins and raises "
                  "when the call returns")
    side = "left" if right else "right"
    increasing = searchsorted(bins, x, side=side)
    decreasing = bins.shape[0] - searchsorted(bins[::-1], x, side=side)
    return _scalar_kind(where(mono == -1, decreasing, increasing), x)


def _monotonicity(bins):
    """NumPy's check_array_monotonic on the bins as float64, vectorized: 1
    (non-decreasing, or all equal), -1 (non-increasing), 0 (neither).  The
    direction is decided by the first element that differs from bins[0]
    (a NaN first decides 'decreasing'); NaN comparisons are false."""
    n = bins.shape[0]
    if n <= 1:
        return np.int64(1)
    b = astype(bins, np.float64)
    first, rest, head = b[0], b[1:], b[:-1]
    differs = rest != first
    up = first < rest[NUMPY[np.argmax](differs)]
    rises = NUMPY[np.any](head < rest)
    falls = NUMPY[np.any](head > rest)
    direction = where(up, where(falls, 0, 1), where(rises, 0, -1))
    return where(NUMPY[np.any](differs), direction, 1)


# --- refused, with the reason -------------------------------------------------------------

_PARTITION_WHY = ("the order NumPy leaves on each side of kth is whatever its selection "
                  "algorithm (introselect, SIMD on some CPUs) produces, which compiled code "
                  "cannot reproduce, and a fully sorted array is not NumPy's answer")
_PARTITION_HINT = ("np.sort(a, axis=axis) puts the kth value at kth and the smaller ones "
                   "before it (np.sort(a)[k] is np.partition(a, k)[k]); np.argsort(a, "
                   "kind='stable') gives deterministic indices")


def _refuse_partition(name):
    def partition(*args, **kwargs):
        raise UnsupportedError(f"{name} is not supported on runtime arrays: {_PARTITION_WHY}",
                               hint=_PARTITION_HINT)
    return partition


implements(np.partition)(_refuse_partition("np.partition"))
implements(np.argpartition)(_refuse_partition("np.argpartition"))
implements(method="partition")(_refuse_partition("a.partition()"))
implements(method="argpartition")(_refuse_partition("a.argpartition()"))


@implements(np.bincount)
def bincount(x, weights=None, minlength=0):
    """np.bincount where its length is known: x known while compiling (a
    group index `np.repeat(np.arange(3), 2)` beside runtime weights), whose
    max(x) + 1 is then known too; or x of an unsigned (or bool) dtype, which
    holds values below 2**bits, so a minlength at least that is the length
    (the image histogram: uint8 with minlength=256).  A scatter-add of ones,
    or of the weights as float64 (NumPy sums them so).  Otherwise the
    length, max(x) + 1, depends on the values: refused."""
    known = _static_indices(x)
    x = as_array(x)
    w = None if weights is None else as_array(weights)
    bound = _bincount_bound(x.dtype)
    if known is None and (bound is None or not isinstance(minlength, (int, np.integer))
                          or minlength < bound):
        raise UnsupportedError(
            "np.bincount of a runtime array is not supported: its length, max(x) + 1, depends "
            "on the values, and compiled code needs static shapes",
            hint=(f"with minlength={bound} (a {x.dtype} x holds values below it) the length is "
                  "known; or " if bound is not None else "") +
                 "with a known number of bins K: counts = np.zeros(K, np.int64); "
                 "np.add.at(counts, x, 1) (or np.zeros(K) and np.add.at(counts, x, weights)); "
                 "x must lie in [0, K)")
    try:    # NumPy checks the arguments (1-d, casts, lengths, x >= 0) and gives the length
        length = len(np.bincount(np.zeros(x.shape, x.dtype) if known is None else known,
                                 None if w is None else np.zeros(w.shape, w.dtype), minlength))
    except (ValueError, TypeError) as e:
        raise UserCodeError(f"{type(e).__name__}: {e}") from None
    if w is None:
        counts, values = NUMPY[np.zeros](length, np.int64), 1
    else:
        counts, values = NUMPY[np.zeros](length, np.float64), astype(w, np.float64)
    NUMPY[np.add.at](counts, astype(x, np.int64), values)
    return counts


def _static_indices(x):
    """x's values where known while compiling (a static array or list, or
    an Array holding a constant NumPy made), else None."""
    if isinstance(x, Array):
        return known_constant(x)
    if isinstance(x, np.ndarray) or isinstance(x, (list, tuple)) and all(
            isinstance(v, (int, np.integer)) for v in x):   # (bool is an int)
        return np.asarray(x)
    return None


def _bincount_bound(dtype) -> int | None:
    """A bound on the values of an array of `dtype` that np.bincount takes:
    2**bits of an unsigned integer one, 2 of bool (None: no useful bound)."""
    if dtype == np.bool_:
        return 2
    if dtype.kind == "u" and dtype.itemsize <= 2:      # (uint32 and up: too many bins)
        return 2 ** (8 * dtype.itemsize)
    return None


# np.unique, np.nonzero, the set operations, ...: how many elements they
# return depends on the values.  Each refusal says what compiles instead.
_UNIQUE = ("with a known bound K on the distinct values: np.isin(np.arange(K), x) marks "
           "those present, and np.sort(x) with x[1:] != x[:-1] marks where new values "
           "start (a static shape: mask, don't select)")
_DATA_DEPENDENT = {
    "np.unique": _UNIQUE,
    "np.unique_values": _UNIQUE,
    "np.unique_counts": "for integers in [0, K) with a known K: counts = np.zeros(K, "
                        "np.int64); np.add.at(counts, x, 1) counts each value, and counts > 0 "
                        "marks those present (a static shape)",
    "np.unique_inverse": "np.searchsorted(np.sort(x), x) gives each element the position of "
                         "its value in the sorted array (equal values: one position), a static "
                         "shape; " + _UNIQUE,
    "np.unique_all": _UNIQUE,
    "np.intersect1d": "keep the shape: np.isin(a, b) marks a's elements that are in b; "
                      "np.where(np.isin(a, b), a, fill) or reductions of a[np.isin(a, b)] "
                      "compile",
    "np.union1d": "keep the shape: np.concatenate((a, b)), then mark its distinct values as "
                  "for np.unique: s = np.sort(...); s[1:] != s[:-1] marks where new values start",
    "np.setdiff1d": "keep the shape: np.isin(a, b, invert=True) marks a's elements that are "
                    "not in b; np.where(mask, a, fill) or reductions of a[mask] compile",
    "np.setxor1d": "keep the shape: np.isin(a, b, invert=True) and np.isin(b, a, invert=True) "
                   "mark the elements found in only one of them",
    "np.trim_zeros": "keep the shape: nz = x != 0; np.cumsum(nz) > 0 marks the elements from "
                     "the first nonzero on, np.cumsum(nz[::-1])[::-1] > 0 those up to the last; "
                     "where NumPy drops leading zero coefficients (np.poly1d), keep the "
                     "coefficient array: np.polyval, np.polyder, np.polyint, np.polyadd and "
                     "np.polysub compile on it",
    "np.nonzero": "keep the shape: np.where(cond, x, fill) selects values, np.count_nonzero "
                  "counts them, np.argmax(cond) is the first position where cond holds (0 "
                  "where none does: test cond.any()), and np.argsort(~cond, kind='stable')[:K] "
                  "gives the first K, for a known K",
    "np.argwhere": "np.argsort(~cond.ravel(), kind='stable')[:K] and np.unravel_index give "
                   "the first K positions for a known K; np.where(cond, x, fill) keeps the shape",
    "np.flatnonzero": "np.argsort(~cond.ravel(), kind='stable')[:K] gives the first K "
                      "positions for a known K; np.count_nonzero counts them",
}


def _refuse_data_dependent(name):
    def refused(*args, **kwargs):
        raise UnsupportedError(f"{name} of a runtime array is not supported: the length of its "
                               "result depends on the values, and compiled code needs static "
                               "shapes", hint=_DATA_DEPENDENT[name])
    return refused


for _name in _DATA_DEPENDENT:
    implements(getattr(np, _name[3:]))(_refuse_data_dependent(_name))
implements(method="nonzero")(_refuse_data_dependent("np.nonzero"))


@implements(np.extract)
def extract(condition, arr):
    """NumPy's definition, arr.ravel() taken where condition.ravel() is
    nonzero: a mask selection (masked.py), which compiles where x[mask]
    does (its reductions, elementwise math on it).  A shorter condition
    reads arr's first elements, as NumPy's take does."""
    condition, arr = ravel(as_array(condition)), ravel(as_array(arr))
    if condition.size > arr.size:
        raise UnsupportedError("np.extract with a condition longer than the array is not "
                               "supported (NumPy raises IndexError where it holds past the end)",
                               hint="give np.extract a condition of the array's size")
    return getitem(arr[:condition.size], condition != 0)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array, known_constant  # noqa: E402
from .indexing import getitem  # noqa: E402
from .sorting import take  # noqa: E402
