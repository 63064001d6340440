"""Reductions over axes: sum, prod, max, min, any, all, mean, var, std,
argmax, argmin, cumsum, cumprod, and the and/or/xor reductions and
accumulations of np.bitwise_and/or/xor.reduce / .accumulate.

Dtype rule: NumPy's own result on a one-element array of the input dtype (so
int32 sums are int64, integer means are float64, as in NumPy 2).  Lowering:
cast the input to the accumulation dtype, then jax.numpy's reduction.
"""
from __future__ import annotations

import inspect
import math
import warnings
from functools import lru_cache

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import ShapeError, StaticValueError, UnsupportedError, UserCodeError
from ..ir import AVal
from .registry import (NUMPY, METHODS, OPS, cast, define_range, define_vjp, divide, implements,
                       normalize_axes, normalize_axis, register, target_platforms, unsafe_cast)


@lru_cache(maxsize=None)
def _np_dtype(np_fn, dtype: np.dtype, out_dtype, extra=()) -> np.dtype:
    kwargs = dict(extra)
    if out_dtype is not None:
        kwargs["dtype"] = out_dtype
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")     # var(ones(1), ddof=1) warns; the user must not see it
        return np.asarray(np_fn(np.ones(1, dtype), **kwargs)).dtype


def _to_acc(x, acc):
    """x converted to the accumulation dtype `acc` as NumPy's reductions
    convert their input (unsafe casting, as astype: 200.0 -> int8 -56;
    XLA's convert would saturate to 127)."""
    return unsafe_cast(x, np.dtype(x.dtype), np.dtype(acc))


def _reduced_shape(shape, axes, keepdims):
    if axes is None:
        return tuple(1 for _ in shape) if keepdims else ()
    return tuple(1 if i in axes else d for i, d in enumerate(shape)
                 if keepdims or i not in axes)


def _reduction(name, np_fn, jnp_fn, takes_dtype=True, empty_ok=True, extra_attrs=()):
    """jnp_fn(x, axis, keepdims, **extra) reduces x, already cast to the result
    dtype; a jnp_fn with an `acc` parameter gets x as it is, the result dtype
    as acc and the dtype= argument (or None) as dtype, to do its own casts."""
    own_casts = "acc" in inspect.signature(jnp_fn).parameters

    def abstract(avals, axes, keepdims, dtype=None, **extra):
        (a,) = avals
        reduced = range(a.ndim) if axes is None else axes
        if not empty_ok and any(a.shape[i] == 0 for i in reduced) or (
                not empty_ok and a.ndim == 0 and a.size == 0):
            raise ShapeError(f"zero-size array to reduction operation {name} which has no identity")
        out = _np_dtype(np_fn, a.dtype, dtype if takes_dtype else None, tuple(sorted(extra.items())))
        return AVal(out, _reduced_shape(a.shape, axes, keepdims), False)

    def lower(lc, x, axes, keepdims, dtype=None, **extra):
        out = lc.out_avals[0].dtype
        if own_casts:
            return jnp_fn(x, axis=axes, keepdims=keepdims, acc=out, dtype=dtype, **extra)
        if takes_dtype:     # accumulating reductions compute in the result dtype
            x = _to_acc(x, out)
        r = jnp_fn(x, axis=axes, keepdims=keepdims, **extra)
        return lax.convert_element_type(r, out)

    register(name, abstract, lower, numpy=np_fn)

    def impl(a, axis=None, dtype=None, out=None, keepdims=False, **kw):
        if out is not None:
            raise UnsupportedError(f"np.{name}(out=...) is not supported", hint="assign the result")
        a = array_like(a)       # np.mean([a.sum(), b.sum()])
        extra = {k: kw.pop(k) for k in extra_attrs if k in kw}
        for key, value in extra.items():
            if isinstance(value, Array):
                raise StaticValueError(f"np.{name}'s {key} must be known at compile time; here "
                                       "it is a runtime value", hint="pass a Python int (leave "
                                       "it out of runtime_args)")
        where, initial = kw.pop("where", True), kw.pop("initial", NO_INITIAL)
        if initial is None:
            initial = NO_INITIAL        # NumPy: None is "no initial value"
        if kw:
            raise UnsupportedError(f"np.{name}: unsupported arguments {sorted(kw)}")
        if name in UFUNC_REDUCTIONS and _ndim(a) == 0 and isinstance(axis, (int, np.integer)):
            normalize_axis(axis, 1)    # ufunc.reduce takes axis 0 or -1 on 0-d arrays
            axis = None
        axes = normalize_axes(axis, _ndim(a))
        attrs = dict(axes=axes, keepdims=bool(keepdims), **extra)
        if takes_dtype:
            attrs["dtype"] = None if dtype is None else np.dtype(dtype)
        if where is not True or initial is not NO_INITIAL:
            return _masked_reduction(name, a, where, initial, attrs)
        return emit(name, a, **attrs)
    return impl


# --- where= and initial= ------------------------------------------------------------------
# NumPy reduces only the elements where the mask is true, starting from
# `initial`: here the masked-out elements are replaced by the reduction's
# identity (max/min: by `initial`, which NumPy then requires) and the
# initial value is combined with the result, in the result's dtype.

NO_INITIAL = object()       # initial= not given (np._NoValue)
_IDENTITY = {"sum": 0, "prod": 1, "any": False, "all": True, "bitwise_and.reduce": -1,
             "bitwise_or.reduce": 0, "bitwise_xor.reduce": 0}     # (-1: all bits set)
_COMBINE = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum,
            "bitwise_and.reduce": np.bitwise_and, "bitwise_or.reduce": np.bitwise_or,
            "bitwise_xor.reduce": np.bitwise_xor}
_UFUNC_NAME = {"max": "maximum", "min": "minimum"}


def _masked_reduction(name, a, where, initial, attrs):
    if initial is not NO_INITIAL and name not in _COMBINE:
        raise UserCodeError(f"TypeError: {name}() got an unexpected keyword argument 'initial'")
    if name in ("var", "std"):
        raise UnsupportedError(f"np.{name}(where=...) is not supported",
                               hint="select the elements first, or compute "
                                    "np.mean((x - m) ** 2, where=mask) yourself")
    mask = None if where is True else _where_mask(where, a)
    if name in ("max", "min") and initial is NO_INITIAL:
        raise UserCodeError(f"ValueError: reduction operation '{_UFUNC_NAME[name]}' does not "
                            "have an identity, so to use a where mask one has to specify "
                            "'initial'")
    if name == "mean":
        return _masked_mean(a, mask, attrs)
    fill = _IDENTITY.get(name, initial)
    if mask is not None:
        a = select(mask, a, np.asarray(fill).astype(a.dtype)[()])
    if initial is NO_INITIAL:
        return emit(name, a, **attrs)
    return _with_initial(name, a, initial, attrs)


def _where_mask(where, a):
    mask = asarray(where)
    if mask.dtype != np.bool_:
        raise UserCodeError(f"TypeError: Cannot cast array data from dtype('{mask.dtype}') to "
                            "dtype('bool') according to the rule 'safe' (where=)")
    return broadcast_to(mask, a.shape)


def _with_initial(name, a, initial, attrs):
    """The reduction started from `initial` (cast to the result's dtype); an
    empty reduction gives `initial` itself (max/min included)."""
    if isinstance(initial, Array):
        raise UnsupportedError(f"np.{name}(initial=...) with a value known only at run time",
                               hint="pass a Python number")
    axes = range(a.ndim) if attrs["axes"] is None else attrs["axes"]
    # (the abstract evaluation of an empty max refuses it: a stand-in of one element)
    out = OPS[name].abstract((AVal(a.dtype, (1,), False),), axes=None, keepdims=False,
                             **({"dtype": attrs["dtype"]} if "dtype" in attrs else {}))
    indexing.check_python_item(initial, out.dtype)   # NumPy: OverflowError, TypeError
    init = np.asarray(initial).astype(out.dtype)[()]
    if any(a.shape[i] == 0 for i in axes):
        shape = _reduced_shape(a.shape, attrs["axes"], attrs["keepdims"])
        result = emit("full", shape=shape, dtype=out.dtype, value=init)
    else:
        result = NUMPY[_COMBINE[name]](emit(name, a, **attrs), init)
    if result.ndim == 0:
        result.immutable = True     # a NumPy scalar, as the reduction's
    return result


def _masked_mean(a, mask, attrs):
    """NumPy's _mean with where=: the masked sum divided by the per-slice
    count, an int64 array, so the quotient is computed in float64 (complex128)
    and cast back to the sum's dtype (float32 for a float16 mean), then to
    the result's."""
    out = OPS["mean"].abstract((a.aval,), **attrs).dtype
    axes, keepdims = attrs["axes"], attrs["keepdims"]
    total_dtype = _mean_sum_dtype(out, attrs.get("dtype"))
    if mask is not None:
        a = select(mask, a, np.zeros((), a.dtype)[()])
    else:
        mask = NUMPY[np.ones](a.shape, bool)
    total = METHODS["sum"](a, axis=axes, keepdims=keepdims, dtype=total_dtype)
    count = METHODS["sum"](mask, axis=axes, keepdims=keepdims, dtype=np.int64)
    wide = np.result_type(total_dtype, np.int64)
    quotient = astype(total, wide) / astype(count, wide)
    result = astype(astype(quotient, total_dtype), out)
    if result.ndim == 0:
        result.immutable = True
    return result


def _ndim(a):
    return getattr(a, "ndim", np.ndim(a))


def array_like(a):
    """The reductions' array_like argument: a list holding runtime values is
    the array np.array makes of it (np.mean([a.sum(), b.sum()]))."""
    return convert(a)


# The reductions NumPy implements as ufunc.reduce, which accepts an integer
# axis 0 or -1 on a 0-d array (np.sum(np.float64(1), axis=0)); mean, var and
# std check the axis against ndim 0 and raise.
UFUNC_REDUCTIONS = {"sum", "prod", "max", "min", "any", "all", "bitwise_and.reduce",
                    "bitwise_or.reduce", "bitwise_xor.reduce"}


def _var(x, axis, keepdims, acc, dtype=None, ddof=0):
    """NumPy's _var step by step, with its casts to the dtype= argument
    (float64 for integers and bools when not given): the mean is the sum of x
    as that dtype (x's own if None), divided by n as _divide_as; deviations
    are x - mean in their promoted dtype; their squares (|x - mean|^2 for a
    complex x, a real square) are summed as that dtype (theirs if None) and
    divided by max(n - ddof, 0), so ddof >= n gives inf (or nan for 0/0) as
    in NumPy (jnp.var gives nan).  So a complex x with a real dtype= has the
    mean of its real parts (NumPy casts, warning ComplexWarning)."""
    n = _count(x, axis)
    if dtype is None and x.dtype.kind in "biu":
        dtype = np.dtype(np.float64)
    mean_dtype = x.dtype if dtype is None else dtype
    mean = _divide_as(_sum_as(x, mean_dtype, axis, True), n, mean_dtype)
    dev_dtype = np.result_type(x.dtype, mean_dtype)
    dev = lax.convert_element_type(x, dev_dtype) - lax.convert_element_type(mean, dev_dtype)
    if x.dtype.kind == "c":
        square = lax.real(dev) ** 2 + lax.imag(dev) ** 2
    else:       # (a complex dtype= squares a real x's complex deviations: complex)
        square = dev * dev
    squares_dtype = square.dtype if dtype is None else dtype
    squares = _sum_as(square, squares_dtype, axis, keepdims)
    return lax.convert_element_type(_divide_as(squares, max(n - ddof, 0), squares_dtype), acc)


def _count(x, axis) -> int:
    """How many elements each slice of the reduction has."""
    return x.size if axis is None else int(np.prod([x.shape[i] for i in axis], dtype=np.int64))


def _sum_as(x, acc, axis, keepdims):
    """NumPy's add.reduce(x, dtype=acc): x converted to acc and summed in acc
    (an int8 sum wraps; jnp.sum would widen small integers).  NumPy sums
    float16 in float32 and rounds once (jnp.sum(dtype=float16) adds in
    float16)."""
    x = _to_acc(x, acc)
    if acc == np.bool_:
        return jnp.any(x, axis=axis, keepdims=keepdims)     # (a logical or)
    if acc == np.float16:
        return lax.convert_element_type(jnp.sum(x, axis=axis, keepdims=keepdims,
                                                dtype=np.float32), acc)
    return jnp.sum(x, axis=axis, keepdims=keepdims, dtype=acc)


def _mean(x, axis, keepdims, acc, dtype=None):
    """NumPy's _mean: the sum in the accumulation dtype (_mean_sum_dtype),
    divided by the count as _divide_as, cast to the result dtype `acc`.
    (jnp.mean divides by a broadcast count, which XLA turns into a
    multiplication by its reciprocal: see registry.divide.)"""
    total_dtype = _mean_sum_dtype(acc, dtype)
    total = _sum_as(x, total_dtype, axis, keepdims)
    return lax.convert_element_type(_divide_as(total, _count(x, axis), total_dtype), acc)


def _mean_sum_dtype(acc, dtype):
    """NumPy's mean sums a float16 array in float32 and rounds the quotient
    to float16; with dtype=float16 it rounds the sum to float16 first."""
    return np.dtype(np.float32) if acc == np.float16 and dtype is None else acc


def _divide_as(total, n, acc):
    """NumPy's true_divide(total, n, out=total, casting='unsafe'), n an intp:
    integers, float16 and complex divided in float64 (complex128), then
    cast.  Its complex division by a real n multiplies both parts by 1 / n
    (Smith's method), which a third of the time is an ulp from dividing."""
    if acc.kind in "iub":
        quotient = divide(lax.convert_element_type(total, np.float64), np.float64(n))
        return unsafe_cast(quotient, np.dtype(np.float64), acc)     # (0.2 is a True bool)
    if acc.kind == "c":
        part = np.empty(0, acc).real.dtype
        scale = np.float64(1.0) / np.float64(n) if n else np.float64(np.inf)
        return lax.complex(*(lax.convert_element_type(
            lax.mul(lax.convert_element_type(p, np.float64), scale), part)
            for p in (lax.real(total), lax.imag(total))))
    if acc == np.float16:       # (float16's n may be inexact: 2049)
        return cast(divide(lax.convert_element_type(total, np.float64), np.float64(n)), acc)
    return divide(total, np.asarray(n, acc))


def _std(x, axis, keepdims, acc, dtype=None, ddof=0):
    var = _var(x, axis, keepdims, acc, dtype, ddof)
    if acc.kind in "iub":   # sqrt's float64 result cast back to the integer dtype
        return lax.convert_element_type(jnp.trunc(jnp.sqrt(var.astype(np.float64))), acc)
    return jnp.sqrt(var)


# --- complex max, min, argmax, argmin: NumPy's order -----------------------------------

def _complex_arg_extreme(x, axis: int, greater: bool):
    """(the extreme, its index) along `axis` of a complex x as NumPy finds
    them: the first NaN if there is one, else the first greatest (or least)
    in lexicographic order.  XLA's complex max orders otherwise and drops
    NaN."""
    index = lax.broadcasted_iota(np.int64, x.shape, axis)

    def keep_first(a, b):
        (av, ai), (bv, bi) = a, b
        before, equal = complex_before(av, bv, greater)
        a_nan, b_nan = complex_isnan(av), complex_isnan(bv)
        earlier = lax.lt(ai, bi)
        first = lax.select(a_nan | b_nan, a_nan & (~b_nan | earlier), before | (equal & earlier))
        return lax.select(first, av, bv), lax.select(first, ai, bi)
    part = -np.inf if greater else np.inf
    init = (np.array(complex(part, part), x.dtype), np.array(np.iinfo(np.int64).max, np.int64))
    return lax.reduce((x, index), init, keep_first, (axis,))


def _extreme(jnp_fn, greater: bool):
    """jnp.max or jnp.min, or for a complex x, _complex_arg_extreme over the
    reduced axes (moved last and flattened into one)."""
    def reduce(x, axis=None, keepdims=False):
        if x.dtype.kind != "c":
            return jnp_fn(x, axis=axis, keepdims=keepdims)
        axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
        kept = [i for i in range(x.ndim) if i not in axes]
        size = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
        flat = lax.reshape(lax.transpose(x, tuple(kept) + axes),
                           tuple(x.shape[i] for i in kept) + (size,))
        value, _ = _complex_arg_extreme(flat, len(kept), greater)
        if keepdims:
            value = lax.reshape(value, tuple(1 if i in axes else n for i, n in enumerate(x.shape)))
        return value
    return reduce


def _arg_extreme(jnp_fn, greater: bool):
    def find(x, axis, keepdims=False):
        if x.dtype.kind != "c":
            return jnp_fn(x, axis=axis, keepdims=keepdims)
        _, index = _complex_arg_extreme(x, axis, greater)
        return lax.expand_dims(index, (axis,)) if keepdims else index
    return find


for _name, _np, _jnp, _td, _empty, _extra in [
        ("sum", np.sum, jnp.sum, True, True, ()), ("prod", np.prod, jnp.prod, True, True, ()),
        ("max", np.max, _extreme(jnp.max, True), False, False, ()),
        ("min", np.min, _extreme(jnp.min, False), False, False, ()),
        ("any", np.any, jnp.any, False, True, ()), ("all", np.all, jnp.all, False, True, ()),
        ("mean", np.mean, _mean, True, True, ()),
        ("var", np.var, _var, True, True, ("ddof",)),
        ("std", np.std, _std, True, True, ("ddof",))]:
    _impl = _reduction(_name, _np, _jnp, _td, _empty, _extra)
    NUMPY[_np] = _impl
    METHODS[_name] = _impl
NUMPY[np.amax] = METHODS["max"]
NUMPY[np.amin] = METHODS["min"]


def _bitwise_fold(lax_fn):
    """XLA's and/or/xor reduction (bools and integers; an empty one gives
    the identity: all bits set for `and`, none for `or` and `xor`)."""
    def fold(x, axis, keepdims):
        axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
        folded = lax_fn(x, axes)
        return lax.expand_dims(folded, axes) if keepdims else folded
    return fold


# np.bitwise_and/or/xor.reduce (XOR checksums, parity, OR of flags): NumPy
# has no named function for them; ufuncs.py gives them the ufunc's signature.
# They keep the operand's dtype (no widening of small integers, unlike sum).
BITWISE_REDUCTIONS = {
    ufunc: _reduction(f"{ufunc.__name__}.reduce", ufunc.reduce, _bitwise_fold(lax_fn))
    for ufunc, lax_fn in [(np.bitwise_and, lax.reduce_and), (np.bitwise_or, lax.reduce_or),
                          (np.bitwise_xor, lax.reduce_xor)]}


@implements(np.ptp)
def ptp(a, axis=None, out=None, keepdims=False):
    """NumPy's: max - min in the array's dtype (an int8 range wraps; bools
    have no subtraction and raise)."""
    if out is not None:
        raise UnsupportedError("np.ptp(out=...) is not supported", hint="assign the result")
    a = array_like(a)
    return NUMPY[np.subtract](METHODS["max"](a, axis=axis, keepdims=keepdims),
                              METHODS["min"](a, axis=axis, keepdims=keepdims))


# --- reverse mode (lower/reverse.py) ---------------------------------------------

def _spread(ct, shape, axes, keepdims):
    """A reduction's cotangent broadcast back over the reduced axes."""
    axes = tuple(range(len(shape))) if axes is None else tuple(axes)
    if not keepdims:
        ct = lax.expand_dims(ct, axes)
    return lax.broadcast_in_dim(ct, shape, tuple(range(len(shape))))


def _sum_vjp(lc, operands, perms, out, ct, axes, keepdims, dtype=None):
    if out.dtype.kind != "f":
        return NotImplemented
    return (_spread(ct, lc.in_avals[0].shape, axes, keepdims),)


def _mean_vjp(lc, operands, perms, out, ct, axes, keepdims, dtype=None):
    if out.dtype.kind != "f":
        return NotImplemented
    shape = lc.in_avals[0].shape
    count = int(np.prod([shape[a] for a in (range(len(shape)) if axes is None else axes)]))
    return (divide(_spread(ct, shape, axes, keepdims), np.full((), count, ct.dtype)),)


def _extreme_vjp(lc, operands, perms, out, ct, axes, keepdims):
    """As jax differentiates max/min: the cotangent is shared equally by the
    elements equal to the result."""
    (x,) = operands
    if out.dtype.kind != "f":
        return NotImplemented
    shape = lc.in_avals[0].shape
    hit = lax.convert_element_type(lax.eq(x, _spread(out, shape, axes, keepdims)), ct.dtype)
    count = lax.reduce_sum(hit, tuple(range(len(shape))) if axes is None else tuple(axes))
    if keepdims:
        count = lax.reshape(count, ct.shape)
    share = lax.div(ct, count)
    return (lax.mul(hit, _spread(share, shape, axes, keepdims)),)


define_vjp("sum", _sum_vjp)
define_vjp("mean", _mean_vjp)
define_vjp("max", _extreme_vjp)
define_vjp("min", _extreme_vjp)


# --- argmax / argmin -----------------------------------------------------------

def _arg_abstract(avals, axis, keepdims):
    (a,) = avals
    if (a.size == 0 and axis is None) or (axis is not None and a.shape[axis] == 0):
        raise ShapeError("attempt to get argmax/argmin of an empty sequence")
    axes = None if axis is None else (axis,)
    return AVal(np.dtype(np.int64), _reduced_shape(a.shape, axes, keepdims), False)


def _arg_range(avals, bounds, axis, keepdims):
    """A position along the reduced axes: an index in range for them."""
    shape = avals[0].shape
    return 0, max((math.prod(shape) if axis is None else shape[axis]) - 1, 0)


def _arg(name, jnp_fn, np_fn):
    def lower(lc, x, axis, keepdims):
        r = jnp_fn(x if axis is not None else x.reshape(-1), axis=axis if axis is not None else 0,
                   keepdims=keepdims and axis is not None)
        if keepdims and axis is None:
            r = r.reshape((1,) * lc.in_avals[0].ndim)
        return lax.convert_element_type(r, np.int64)
    register(name, _arg_abstract, lower, numpy=np_fn)
    define_range(name, _arg_range)

    def impl(a, axis=None, out=None, keepdims=False):
        if out is not None:
            raise UnsupportedError(f"np.{name}(out=...) is not supported",
                                   hint="assign the result")
        a = array_like(a)
        ax = _axis_of_flat(axis, _ndim(a))
        return emit(name, a, axis=ax, keepdims=bool(keepdims))
    NUMPY[np_fn] = impl
    METHODS[name] = impl


def _axis_of_flat(axis, ndim):
    """argmax/cumsum see a 0-d array as 1-d: axis 0 or -1 is the whole array."""
    if axis is None:
        return None
    ax = normalize_axis(axis, max(ndim, 1))
    return None if ndim == 0 else ax


_arg("argmax", _arg_extreme(jnp.argmax, True), np.argmax)
_arg("argmin", _arg_extreme(jnp.argmin, False), np.argmin)


# --- cumulative ----------------------------------------------------------------

def _cum(name, np_fn, jnp_fn, public=True):
    def abstract(avals, axis, dtype=None):
        (a,) = avals
        out = _np_dtype(np_fn, a.dtype, dtype)
        return AVal(out, (a.size,) if axis is None else a.shape, False)

    def lower(lc, x, axis, dtype=None):
        x = _to_acc(x, lc.out_avals[0].dtype)
        x, axis = (x.reshape(-1), 0) if axis is None else (x, axis)
        if _just_updated(lc):
            return _past_updated(jnp_fn, x, axis)
        return jnp_fn(x, axis=axis)
    register(name, abstract, lower, numpy=np_fn)

    def impl(a, axis=None, dtype=None, out=None):
        a = array_like(a)
        ax = _axis_of_flat(axis, _ndim(a))
        return emit(name, a, axis=ax, dtype=None if dtype is None else np.dtype(dtype))
    if public:
        NUMPY[np_fn] = METHODS[name] = impl
    return impl


def _just_updated(lc) -> bool:
    """Whether the operand is an array just updated in place (`y[1:] =
    y[:-1]`), on the CPU.  XLA:CPU (jax 0.10) fuses such an update into a
    small 1-d cumulative op's input and writes it in place element by
    element, so an update reading the array itself reads what it already
    wrote: cumsum of [1, 2, 3, 4] shifted right gave [1, 2, 3, 4], not
    [1, 2, 4, 7]."""
    made = lc.producer(0)
    return made is not None and made[0] == "setitem" and target_platforms() == ("cpu",)


def _past_updated(jnp_fn, x, axis):
    """jnp_fn(x, axis) of a just-updated x, through one more element at the
    end of the axis (prefixes do not see it, whatever it is): the pad is an
    op of its own between the update and the cumulative op, which keeps
    XLA from fusing them (a slice of the input, taken before, it removes)."""
    widths = [(0, 1 if k == axis else 0, 0) for k in range(x.ndim)]
    padded = lax.pad(x, np.zeros((), x.dtype), widths)
    return lax.slice_in_dim(jnp_fn(padded, axis=axis), 0, x.shape[axis], axis=axis)


def _running_extreme(lax_fn, ufunc_name):
    """lax.cummax / cummin, which take no bools: those run as uint8; complex
    numbers in NumPy's order (see _complex_arg_extreme)."""
    def run(x, axis):
        if x.dtype.kind == "c":
            return lax.associative_scan(complex_pick(ufunc_name), x, axis=axis)
        if x.dtype == np.bool_:
            return lax_fn(x.astype(np.uint8), axis=axis).astype(np.bool_)
        return lax_fn(x, axis=axis)
    return run


def _cumsum(x, axis):
    """jnp.cumsum, except for GPUs: jax 0.11 lowers cumsum there to a
    chlo.scan (CUB's kernel), and on an H200 (jax 0.11.2) the twelve
    nan-reductions of tests/test_numpy_breadth_session15's nan_moments
    returned np.nancumsum(x, axis=0)'s result or np.nancumprod(x, axis=1)'s
    in both outputs, in 3 of 3 runs; with this associative scan (XLA's own
    ops, as jax's cumprod is there), in none.  A program of those two alone
    was right."""
    if any(p in ("cuda", "rocm", "gpu") for p in target_platforms()):
        return lax.associative_scan(lax.add, x, axis=axis)
    return jnp.cumsum(x, axis=axis)


_cum("cumsum", np.cumsum, _cumsum)
_cum("cumprod", np.cumprod, jnp.cumprod)
# np.maximum.accumulate / np.minimum.accumulate: see ufuncs.py
cummax = _cum("cummax", np.maximum.accumulate, _running_extreme(lax.cummax, "maximum"), public=False)
cummin = _cum("cummin", np.minimum.accumulate, _running_extreme(lax.cummin, "minimum"), public=False)


def _running_bitwise(lax_fn):
    """A running and/or/xor (prefix parity, Gray-code decoding): XLA has no
    cumulative op for them, an associative scan computes it."""
    def run(x, axis):
        return lax.associative_scan(lax_fn, x, axis=axis)
    return run


# np.bitwise_and/or/xor.accumulate: see ufuncs.py
BITWISE_ACCUMULATIONS = {
    ufunc: _cum(f"{ufunc.__name__}.accumulate", ufunc.accumulate, _running_bitwise(lax_fn),
                public=False)
    for ufunc, lax_fn in [(np.bitwise_and, lax.bitwise_and), (np.bitwise_or, lax.bitwise_or),
                          (np.bitwise_xor, lax.bitwise_xor)]}


# --- Python's sum() of a loop's rows --------------------------------------------------

def _fold_add_abstract(avals, first):
    acc, rows = avals
    row = rows.shape[1:]
    if rows.ndim < 1 or len(row) > acc.ndim or any(
            r not in (1, a) for r, a in zip(row[::-1], acc.shape[::-1])):
        raise ShapeError(f"fold_add: rows of shape {row} do not broadcast to {acc.shape}")
    return acc


def _fold_add_lower(lc, acc, rows, first):
    """acc + rows[first] + rows[first + 1] + ..., in that order, as Python's
    sum() adds (a scan: XLA may reorder a reduction's additions, which
    changes float results).  Each row is cast to the accumulator's dtype
    first, as NumPy's add casts both operands to the result's dtype."""
    def step(total, row):
        return lax.add(total, jnp.broadcast_to(row.astype(total.dtype), total.shape)), None
    return lax.scan(step, acc, rows[first:])[0]


def _fold_add_numpy(acc, rows, first):
    for row in rows[first:]:
        acc = np.add(acc, row, dtype=acc.dtype)
    return acc


register("fold_add", _fold_add_abstract, _fold_add_lower, numpy=_fold_add_numpy)


def _fold_add_compensated_abstract(avals, first):
    total, compensation, rows = avals
    if total.shape or compensation.shape or rows.ndim != 1:
        raise ShapeError(f"fold_add_compensated: a scalar total of rows of scalars, got "
                         f"{total.shape}, {compensation.shape}, {rows.shape}")
    return total, total


def neumaier_step(f, c, x, where):
    """(f + x, c plus its rounding error): one step of Neumaier's improved
    Kahan-Babuska summation, as Python 3.12's sum() adds a float
    (infer/float_sums.py).  `where(cond, a, b)` picks a branch: a select
    for traced values, Python's conditional for static ones."""
    t = f + x
    return t, c + where(abs(f) >= abs(x), (f - t) + x, (x - t) + f)


def _fold_add_compensated_lower(lc, total, compensation, rows, first):
    """(f, c) after adding rows[first], rows[first + 1], ... in order into
    the total f, compensated as Python 3.12's sum() adds floats; c is not
    added into f (sum() adds it at its end, or before an item of another
    type)."""
    def step(carry, x):
        return neumaier_step(*carry, x, lax.select), None
    dtype = total.dtype
    carry = (total, lax.convert_element_type(compensation, dtype))
    return tuple(lax.scan(step, carry, rows[first:].astype(dtype))[0])


def _fold_add_compensated_numpy(total, compensation, rows, first):
    f, c = float(total), float(compensation)
    for x in rows[first:]:
        f, c = neumaier_step(f, c, float(x), lambda big, a, b: a if big else b)
    return np.float64(f), np.float64(c)


register("fold_add_compensated", _fold_add_compensated_abstract, _fold_add_compensated_lower,
         numpy=_fold_add_compensated_numpy)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array, array_like as convert  # noqa: E402
from .elementwise import (asarray, astype, complex_before, complex_isnan,  # noqa: E402
                          complex_pick)
from .shape import broadcast_to, where as select  # noqa: E402
from . import indexing  # noqa: E402
