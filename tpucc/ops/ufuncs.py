"""The methods of NumPy's ufuncs on runtime arrays, each built from the op
that already computes it: `np.add.reduce` is np.sum (NumPy's sum *is*
add.reduce, dtype rule included), `np.add.accumulate` np.cumsum,
`np.maximum.accumulate` the cummax op (and np.cumulative_sum / prod
the accumulations; fmax / fmin and logical_or / logical_and accumulate
as running extremes too), `np.subtract.outer(a, b)` the ufunc
on a reshaped to broadcast against b, and `np.add.at(a, idx, b)` the
`scatter_at` op below: an unbuffered in-place update (a repeated index
accumulates, as in a histogram), where `a[idx] += b` applies one update per
distinct index.
"""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax
import numpy as np

from ..errors import DTypeError, ShapeError, UnsupportedError, UserCodeError
from ..ir import AVal
from .elementwise import BINARY, astype
from .indexing import _eval_shape, _materialize, _is_mask, normalize_key, require_in_bounds
from .reductions import BITWISE_ACCUMULATIONS, BITWISE_REDUCTIONS, cummax, cummin
from .creation import full
from .registry import (NUMPY, broadcast_shapes, const_aval, implements, normalize_axis, register,
                       weak_key)
from .shape import _aval, concatenate, reshape
from . import masked

_REDUCE = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
           np.logical_and: np.all, np.logical_or: np.any}
_ACCUMULATE = {np.add: np.cumsum, np.multiply: np.cumprod}
_RUNNING = {np.maximum: cummax, np.minimum: cummin}


def _running_logical(running):
    """np.logical_or.accumulate ("has it happened yet") is a running
    maximum of the truth values, logical_and a running minimum; the result
    is bool whatever the operand, and NumPy has no other loop for dtype=."""
    def accumulate(x, axis, dtype=None):
        if dtype is not None and np.dtype(dtype) != np.bool_:
            raise DTypeError("No loop matching the specified signature and casting was found "
                             "for ufunc logical_or/logical_and", hint="leave dtype= out")
        return running(astype(x, np.bool_), axis=axis)
    return accumulate


def _running_nan_skipping(running, skipped):
    """np.fmax.accumulate / fmin.accumulate: the running maximum (minimum)
    of the numbers seen so far, NaNs skipped (`skipped` is the value that
    stands in for one: -inf for a maximum); NaN until the first number.
    Without NaNs (integers, bools) it is the plain running extreme."""
    def accumulate(x, axis, dtype=None):
        x = astype(x, dtype) if dtype is not None else x
        kind = _aval(x).dtype.kind
        if kind == "c":
            raise UnsupportedError("np.fmax/fmin.accumulate of a complex array is not supported",
                                   hint="accumulate the real parts, or use np.maximum.accumulate")
        if kind != "f":
            return running(x, axis=axis)
        nan = NUMPY[np.isnan](x)
        values = running(NUMPY[np.where](nan, _aval(x).dtype.type(skipped), x), axis=axis)
        seen = cummax(NUMPY[np.logical_not](nan), axis=axis)
        return NUMPY[np.where](seen, values, _aval(x).dtype.type(np.nan))
    return accumulate


_RUNNING.update({np.fmax: _running_nan_skipping(cummax, -np.inf),
                 np.fmin: _running_nan_skipping(cummin, np.inf),
                 np.logical_or: _running_logical(cummax),
                 np.logical_and: _running_logical(cummin), **BITWISE_ACCUMULATIONS})


def reduces_as_reduction(ufunc) -> bool:
    """Whether np.<ufunc>.reduce is one of NumPy's named reductions."""
    return ufunc in _REDUCE


def reduce_by(ufunc, call):
    """np.<ufunc>.reduce, with its reduction called as `call(fn, args,
    kwargs)`: masked.numpy_call for x[i:j] (whose reductions are masked.py's)."""
    return _reduce(ufunc, lambda fn, *args, **kwargs: call(fn, args, kwargs))


def _reduce(ufunc, call=None):
    reduction = _REDUCE[ufunc]
    call = call or (lambda fn, *args, **kwargs: NUMPY[fn](*args, **kwargs))

    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE,
               where=True):
        kwargs = {} if dtype is None else {"dtype": dtype}   # max/all take no dtype
        logical = ufunc in (np.logical_and, np.logical_or)
        if initial is not _NO_VALUE and not logical:
            kwargs["initial"] = initial
        if where is not True:
            kwargs["where"] = where
        out = call(reduction, array, axis=axis, out=out, keepdims=keepdims, **kwargs)
        if logical and initial not in (_NO_VALUE, None):
            out = call(ufunc, out, bool(initial))      # (np.all and np.any take no initial)
        return out
    return reduce


_NO_VALUE = object()    # initial=None means "no identity" to NumPy: not the default


def _bitwise_reduce(ufunc):
    """np.bitwise_and/or/xor.reduce: the reduction of reductions.py, with
    the ufunc method's default axis (0)."""
    reduction = BITWISE_REDUCTIONS[ufunc]

    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE,
               where=True):
        kwargs = {} if initial is _NO_VALUE else {"initial": initial}
        return reduction(array, axis=axis, dtype=dtype, out=out, keepdims=keepdims, where=where,
                         **kwargs)
    return reduce


@implements(np.logical_xor.reduce)
def _logical_xor_reduce(array, axis=0, dtype=None, out=None, keepdims=False,
                        initial=_NO_VALUE, where=True):
    """The parity of the true values (a CA's XOR rule, a checksum of
    flags): np.bitwise_xor.reduce of their truths, a bool as NumPy's."""
    truths = NUMPY[np.not_equal](array, 0)
    initial = initial if initial in (_NO_VALUE, None) else bool(initial)
    return _bitwise_reduce(np.bitwise_xor)(truths, axis, dtype, out, keepdims, initial, where)


def _accumulate(ufunc):
    def accumulate(array, axis=0, dtype=None, out=None):
        if out is not None:
            raise UnsupportedError(f"np.{ufunc.__name__}.accumulate(out=...) is not supported",
                                   hint="assign the result")
        if _aval(array).ndim == 0:
            raise UserCodeError("TypeError: cannot accumulate on a scalar")
        if axis is None:
            raise UserCodeError("TypeError: accumulate does not allow multiple axes")
        if ufunc in _RUNNING:
            return _RUNNING[ufunc](array, axis=axis, dtype=dtype)
        return NUMPY[_ACCUMULATE[ufunc]](array, axis=axis, dtype=dtype)
    return accumulate


def _outer(ufunc):
    def outer(a, b, **kwargs):
        a, b = _strong(a), _strong(b)
        shape, extra = _aval(a).shape, _aval(b).ndim
        return NUMPY[ufunc](reshape(a, shape + (1,) * extra), b, **kwargs)
    return outer


def _strong(x):
    """ufunc.outer converts its operands to arrays first, so a Python number
    is no weak scalar there (NEP 50): np.subtract.outer(int8_array, 2) is
    int64."""
    if type(x) in (bool, int, float, complex):
        return np.asarray(x)
    if isinstance(x, Array) and x.weak:
        return emit("convert", x, dtype=x.dtype)
    return x


def _cumulative(ufunc):
    """np.cumulative_sum / cumulative_prod (NumPy 2): ufunc.accumulate of
    the array at least 1-d, with the identity first if include_initial."""
    def cumulative(x, *, axis=None, dtype=None, out=None, include_initial=False):
        if out is not None:
            raise UnsupportedError(f"np.cumulative_{ufunc.__name__}(out=...) is not supported",
                                   hint="assign the result")
        x = array_like(x)
        x = reshape(x, (1,)) if _aval(x).ndim == 0 else x
        if axis is None:
            if _aval(x).ndim >= 2:
                raise UserCodeError("ValueError: For arrays which have more than one dimension "
                                    "``axis`` argument is required.")
            axis = 0
        res = _accumulate(ufunc)(x, axis=axis, dtype=dtype)
        if include_initial:
            shape = list(res.shape)
            shape[normalize_axis(axis, res.ndim)] = 1
            first = full(tuple(shape), ufunc.identity, res.dtype)
            res = concatenate([first, res], axis)
        return res
    return cumulative


implements(np.cumulative_sum)(_cumulative(np.add))
implements(np.cumulative_prod)(_cumulative(np.multiply))

def _log_reduce(ufunc, exp, log):
    """np.logaddexp.reduce (the logsumexp idiom) and np.logaddexp2.reduce:
    the log of the sum of exp, shifted by the largest item so that no exp
    overflows (an infinite largest is not shifted by: inf stays inf, and
    all -inf, or none at all, gives the identity -inf).  NumPy folds the
    items in turn; this sums them, which differs only in the last bits."""
    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=_NO_VALUE,
               where=True):
        if out is not None or initial is not _NO_VALUE or where is not True:
            raise UnsupportedError(f"np.{ufunc.__name__}.reduce with out=, initial= or where= "
                                   "is not supported", hint="reduce, then combine the result "
                                   f"with np.{ufunc.__name__} or assign it")
        x = array_like(array)
        kind = np.result_type(dtype or _aval(x).dtype, np.float16)   # (int8 gives float16)
        if kind.kind not in "f":
            raise DTypeError(f"np.{ufunc.__name__}.reduce of {kind} is not supported",
                             hint="reduce a real floating-point array")
        x = astype(x, kind)
        top = NUMPY[np.max](x, axis=axis, keepdims=True, initial=-np.inf)
        shift = NUMPY[np.where](NUMPY[np.isfinite](top), top, astype(np.zeros((), kind), kind))
        total = NUMPY[np.sum](NUMPY[exp](NUMPY[np.subtract](x, shift)), axis=axis, keepdims=True)
        res = NUMPY[np.add](NUMPY[log](total), shift)
        if not keepdims:
            res = NUMPY[np.squeeze](res, axis=_reduced_axes(axis, _aval(x).ndim))
        if res.ndim == 0:
            res.immutable = True        # a NumPy scalar, as the reduction's
        return res
    return reduce


def _reduced_axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    return tuple(normalize_axis(a, ndim) for a in axes)


for _uf in _REDUCE:
    implements(_uf.reduce)(_reduce(_uf))
for _uf in BITWISE_REDUCTIONS:
    implements(_uf.reduce)(_bitwise_reduce(_uf))
implements(np.logaddexp.reduce)(_log_reduce(np.logaddexp, np.exp, np.log))
implements(np.logaddexp2.reduce)(_log_reduce(np.logaddexp2, np.exp2, np.log2))
for _uf in {**_ACCUMULATE, **_RUNNING}:
    implements(_uf.accumulate)(_accumulate(_uf))
for _name in BINARY:
    implements(getattr(np, _name).outer)(_outer(getattr(np, _name)))


def _reduceat(ufunc):
    """np.<ufunc>.reduceat with start indices known while compiling (group
    sums `np.add.reduceat(w ** 2, [0, 2, 5])`): each output along `axis` is
    the reduce of x[starts[i]:starts[i + 1]] (to the end for the last), or
    x[starts[i]] alone where the next start is not past it, as NumPy's; the
    reduce gives NumPy's dtype (int8 sums to int64).  Runtime starts would
    give a data-dependent slice per output: refused."""
    def reduceat(array, indices, axis=0, dtype=None, out=None):
        if out is not None:
            raise UnsupportedError(f"np.{ufunc.__name__}.reduceat(out=...) is not supported",
                                   hint="assign the result")
        starts = _static_starts(indices)
        if starts is None:
            raise UnsupportedError(
                f"np.{ufunc.__name__}.reduceat() with start indices known only at run time is "
                "not supported: each output reduces a slice whose bounds depend on the values",
                hint=method_hint(ufunc, "reduceat"))
        x = array_like(array)
        aval = _aval(x)
        try:    # NumPy's own checks (bounds, axis, dtype), on zeros of x's shape
            getattr(np, ufunc.__name__).reduceat(np.zeros(aval.shape, aval.dtype), starts,
                                                 axis=axis, dtype=dtype)
        except (ValueError, TypeError, IndexError, np.exceptions.AxisError) as e:
            raise UserCodeError(f"{type(e).__name__}: {e}") from None
        axis = normalize_axis(axis, aval.ndim)
        ends = list(starts[1:]) + [aval.shape[axis]]
        reduce = _reduce(ufunc)
        parts = []
        for start, end in zip(starts, ends):
            stop = end if end > start else start + 1     # (not increasing: x[start] alone)
            key = (slice(None),) * axis + (slice(int(start), int(stop)),)
            parts.append(reduce(x[key], axis=axis, dtype=dtype, keepdims=True))
        return concatenate(parts, axis)
    return reduceat


def _static_starts(indices) -> list | None:
    """reduceat's start indices where known while compiling, else None."""
    known = known_constant(indices) if isinstance(indices, Array) else \
        indices if isinstance(indices, np.ndarray) else \
        indices if isinstance(indices, (list, tuple)) and all(
            isinstance(i, (int, np.integer)) for i in indices) else None
    if known is None:
        return None
    known = np.asarray(known)
    return [int(i) for i in known.ravel()] if known.dtype.kind in "iu" else None


for _uf in _REDUCE:
    implements(_uf.reduceat)(_reduceat(_uf))


def method_hint(ufunc, method: str) -> str:
    """What to say where `ufunc.method` is not compiled: which are."""
    closest = {("fmax", "reduce"): "np.nanmax(x, axis) is np.fmax.reduce (NaN where all are)",
               ("fmin", "reduce"): "np.nanmin(x, axis) is np.fmin.reduce (NaN where all are)",
               ("add", "reduceat"): "for increasing starts, np.add.reduceat(x, starts) is "
                                    "np.diff(c[np.append(starts, len(x))]) with c = "
                                    "np.concatenate([[0], np.cumsum(x)])"}
    names = {"reduce": {**_REDUCE, **BITWISE_REDUCTIONS, np.logaddexp: None, np.logaddexp2: None},
             "accumulate": {**_ACCUMULATE, **_RUNNING}}
    known = ", ".join(f"np.{u.__name__}.{m}" for m, table in names.items() for u in table)
    said = closest.get((ufunc.__name__, method))
    return (f"{said}; " if said else "") + (
        f"tpucc compiles {known}, .reduceat of "
        f"{', '.join('np.' + u.__name__ for u in _REDUCE)} with start indices known while "
        f"compiling, .outer of binary ufuncs and .at of {', '.join('np.' + n for n in _AT)}")


# --- ufunc.at: unbuffered in-place updates ---------------------------------------

_AT = {"add": "add", "subtract": "add", "multiply": "multiply", "maximum": "max",
       "minimum": "min", "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
       "bitwise_xor": "bitwise_xor"}     # subtract adds -b
# jax's x.at[] has no and/or/xor update: those run one update at a time
_BITWISE_AT = ("bitwise_and", "bitwise_or", "bitwise_xor")


def _scatter_at_abstract(avals, key, how, unique=False):
    x, v = avals[0], avals[1]
    target = _eval_shape(lambda a, *idx: a[_materialize(key, idx)], (x,) + avals[2:])
    try:
        ok = broadcast_shapes(v.shape, target.shape) == tuple(target.shape)
    except ValueError:
        ok = False
    if not ok:
        raise ShapeError(f"operands could not be broadcast together: the indexed part has "
                         f"shape {tuple(target.shape)}, the values {v.shape}")
    return x


def _scatter_at_lower(lc, x, v, *idx, key, how, unique=False):
    # `unique`: no element is updated twice, which a product's derivative needs.
    # NumPy updates in the dtype of its loop (float64 for float32 += float64)
    # and casts each result back.
    out = lc.out_avals[0].dtype
    loop = np.result_type(out, lc.in_avals[1].dtype if not lc.in_avals[1].weak else out)
    index = _materialize(key, idx)
    if how in _BITWISE_AT:
        return _bitwise_scatter(jnp.asarray(x), jnp.asarray(v), index, loop, how, unique)
    if not unique and _rounds_each_update(out, loop, how):
        return _scatter_one_by_one(jnp.asarray(x), jnp.asarray(v), index, loop, how)
    x = jnp.asarray(x).astype(loop)
    v = jnp.asarray(v).astype(loop)
    return getattr(x.at[index], how)(v, unique_indices=unique).astype(out)


def _rounds_each_update(out, loop, how) -> bool:
    """Whether an element updated twice must be cast back to `out` after
    each update to equal NumPy, whose unbuffered loop does so.  A sum or
    product in a wider float or complex loop dtype rounds each time
    (float16 += float64 rounds 1 + 0.0003 + 0.0003 to 1.0 twice, where one
    rounding at the end gives 1.001); integer wrap-around commutes with + and
    *, so an integer loop can cast once at the end.  Max/min commute with a
    monotone cast (float rounding) but not with integer wrap-around: int8
    max(0, 200 -> -56, 50) is 50, one cast at the end gives -56."""
    out, loop = np.dtype(out), np.dtype(loop)
    if loop == out:
        return False
    if how in ("add", "multiply"):
        return not (out.kind in "iu" and loop.kind in "iu")
    return out.kind in "iu"


_APPLY = {"add": jnp.add, "multiply": jnp.multiply, "max": jnp.maximum, "min": jnp.minimum,
          "bitwise_and": jnp.bitwise_and, "bitwise_or": jnp.bitwise_or,
          "bitwise_xor": jnp.bitwise_xor}


def _bitwise_scatter(x, v, index, loop, how, unique):
    """np.bitwise_and/or/xor.at: where no element is hit twice, one gather,
    the op and one scatter; else NumPy's unbuffered loop, one update after
    the other (a bitmap's bits set twice in one byte)."""
    if not unique:
        return _scatter_one_by_one(x, v, index, loop, how)
    updated = _APPLY[how](x[index].astype(loop), v.astype(loop)).astype(x.dtype)
    return x.at[index].set(updated, unique_indices=True)


def _scatter_one_by_one(x, v, index, loop, how):
    """NumPy's unbuffered loop: each value in C order, computed in `loop` and
    cast to x's dtype before the next, as one XLA while (sequential, like
    XLA:CPU's scatter itself)."""
    positions = jnp.arange(x.size).reshape(x.shape)[index]
    values = jnp.broadcast_to(v, positions.shape).ravel()
    positions = positions.ravel()
    apply = _APPLY[how]

    def update(k, flat):
        p = positions[k]
        return flat.at[p].set(apply(flat[p].astype(loop), values[k].astype(loop)).astype(x.dtype))
    return lax.fori_loop(0, positions.size, update, x.ravel()).reshape(x.shape)


def _scatter_at_numpy(x, v, *idx, key, how, unique=False):
    out = x.copy()
    ufunc = {"add": np.add, "multiply": np.multiply, "max": np.maximum, "min": np.minimum}.get(
        how) or getattr(np, how)
    ufunc.at(out, _materialize(key, idx), v)
    return out


register("scatter_at", _scatter_at_abstract, _scatter_at_lower, numpy=_scatter_at_numpy)


def _at(ufunc):
    name = ufunc.__name__

    def at(a, indices, b=None):
        if not isinstance(a, Array) or a.weak or a.immutable:
            raise UnsupportedError(f"np.{name}.at: only an array can be updated in place")
        if b is None:
            raise UserCodeError(f"TypeError: np.{name}.at needs the values to apply (b)")
        if name in _BITWISE_AT:
            b = _python_ints_as_int64(b)
            value = _values_aval(b)
            _require_bitwise_operands(name, a.dtype, value.dtype)
        else:
            value = _values_aval(b)
            if a.dtype == np.bool_ or (a.dtype.kind == "c" and name in ("maximum", "minimum")):
                raise UnsupportedError(f"np.{name}.at on a {a.dtype} array is not supported",
                                       hint="update an integer, float or complex array (for a "
                                            "complex one: np.add, np.subtract or np.multiply.at)")
            _refuse_lossy_values(name, value, a.dtype)
        if masked.holds_selection([indices], {}):     # np.add.at(a, idx[mask], v)
            loop = a.dtype if value.weak else np.result_type(a.dtype, value.dtype)
            indices, b = masked.at_selected(name, indices, b, a.shape, _identity(name, loop))
        if _is_mask(indices):
            raise UnsupportedError(f"np.{name}.at with a boolean mask is not supported",
                                   hint="a mask selects each element once: use "
                                        f"a[mask] = np.{name}(a[mask], b)")
        static, arrays = normalize_key(indices, a.shape)
        if require_in_bounds(static, arrays, a.shape):
            return      # (an empty axis: nothing to update; the call raises IndexError)
        if name == "subtract":      # negated in NumPy's loop dtype: an unsigned one wraps
            loop = a.dtype if value.weak else np.result_type(a.dtype, value.dtype)
            b = (NUMPY[np.negative](astype(b, loop)) if isinstance(b, Array) else
                 np.negative(np.asarray(b).astype(loop)))
        a.set(emit("scatter_at", a, b, *arrays, key=static, how=_AT[name],
                   unique=_hits_each_once(static, arrays, a.shape)).var)
    return at


def _python_ints_as_int64(b):
    """np.bitwise_or.at(a, i, 1) computes with the Python int as an int64
    array (what np.asarray makes of it), not as a weak scalar: in an int64
    loop cast back to a's dtype (a uint8 array or 300 gives 44), and a
    uint64 array has no such loop (TypeError).  The unbuffered updates in
    a wider loop, cast back one by one, equal NumPy's for any integers."""
    if type(b) is int:
        return np.asarray(b)
    if isinstance(b, Array) and b.weak and b.dtype.kind in "iu":
        return astype(b, np.int64)
    return b


def _require_bitwise_operands(name: str, dtype, values_dtype) -> None:
    """NumPy's and/or/xor take bools and integers only (uint64 with int64
    values has no loop: NumPy promotes them to float64)."""
    if np.result_type(dtype, values_dtype).kind not in "biu":
        raise UserCodeError(f"TypeError: ufunc '{name}' not supported for the input types "
                            f"({dtype} array, {values_dtype} values)",
                            hint="bitwise operations take bool and integer arrays; give the "
                                 f"values the array's dtype (v.astype(np.{dtype}))")


def _values_aval(b) -> AVal:
    """The dtype and shape of ufunc.at's values (a selection's: its
    full-size values')."""
    if isinstance(b, masked.Selection):
        b = b.data
    return _aval(b) if isinstance(b, Array) else const_aval(b)


def _identity(name: str, loop) -> np.ndarray:
    """The value whose update leaves an element as it is, in the update's
    loop dtype: -0.0 for a float sum (x + 0.0 turns -0.0 into 0.0), 0 for
    a difference (negated into -0.0 before it is added), 1 for a product,
    the lowest / highest value for a maximum / minimum."""
    loop = np.dtype(loop)
    if name in ("add", "subtract"):
        return np.array(-0.0 if name == "add" and loop.kind in "fc" else 0, loop)
    if name == "multiply":
        return np.array(1, loop)
    if name in _BITWISE_AT:     # all bits set for `and`, none for `or` and `xor`
        none = np.zeros((), loop)
        return np.bitwise_not(none) if name == "bitwise_and" else none
    if loop.kind == "f":
        low, high = -np.inf, np.inf
    else:
        low, high = np.iinfo(loop).min, np.iinfo(loop).max
    return np.array(low if name == "maximum" else high, loop)


def _refuse_lossy_values(name, value: AVal, dtype) -> None:
    """NumPy's ufunc.at casts each update's result to the array's dtype
    unsafely.  Integers into any integer array compile (wrap-around commutes
    with the updates, see _rounds_each_update), but float values truncated
    into an integer array, or complex ones losing their imaginary part, at
    every update are refused, as is NumPy's float64 loop for int64 values
    into a uint64 array."""
    key = weak_key(value)
    loop = dtype if value.weak else np.result_type(dtype, value.dtype)
    integers = dtype.kind in "iu" and value.dtype.kind in "biu" and loop.kind in "iu"
    if integers or np.can_cast(key, dtype, "same_kind"):
        return
    how = ("discards the imaginary part" if value.dtype.kind == "c" else
           f"computes in {loop} and truncates" if value.dtype.kind in "iu" else "truncates")
    raise DTypeError(f"np.{name}.at: values of {value.dtype} into a {dtype} array (NumPy "
                     f"{how} at every update)",
                     hint=f"cast the values with .astype(np.{dtype}) first")


def _hits_each_once(key, arrays, shape) -> bool:
    """Whether the indices are static and reach no element twice."""
    if any(isinstance(i, Array) for i in arrays):
        return False
    hit = np.arange(int(np.prod(shape))).reshape(shape)[_materialize(key, arrays)]
    return np.unique(hit).size == np.size(hit)


for _name in _AT:
    implements(getattr(np, _name).at)(_at(getattr(np, _name)))


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array, array_like, known_constant  # noqa: E402
