"""Reductions over axes: sum, prod, max, min, any, all, mean, var, std,
argmax, argmin, cumsum, cumprod.

Dtype rule: NumPy's own result on a one-element array of the input dtype (so
int32 sums are int64, integer means are float64, as in NumPy 2).  Lowering:
cast the input to the accumulation dtype, then jax.numpy's reduction.
"""
from __future__ import annotations

from functools import lru_cache

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..errors import ShapeError, UnsupportedError
from ..ir import AVal
from .registry import NUMPY, METHODS, normalize_axes, normalize_axis, register


@lru_cache(maxsize=None)
def _np_dtype(np_fn, dtype: np.dtype, out_dtype, extra=()) -> np.dtype:
    kwargs = dict(extra)
    if out_dtype is not None:
        kwargs["dtype"] = out_dtype
    return np.asarray(np_fn(np.ones(1, dtype), **kwargs)).dtype


def _reduced_shape(shape, axes, keepdims):
    if axes is None:
        return tuple(1 for _ in shape) if keepdims else ()
    return tuple(1 if i in axes else d for i, d in enumerate(shape)
                 if keepdims or i not in axes)


def _reduction(name, np_fn, jnp_fn, takes_dtype=True, empty_ok=True, extra_attrs=()):
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
        if takes_dtype:     # accumulating reductions compute in the result dtype
            x = lax.convert_element_type(x, out)
        r = jnp_fn(x, axis=axes, keepdims=keepdims, **extra)
        return lax.convert_element_type(r, out)

    register(name, abstract, lower, numpy=np_fn)

    def impl(a, axis=None, dtype=None, out=None, keepdims=False, **kw):
        from ..infer.builder import emit
        if out is not None:
            raise UnsupportedError(f"np.{name}(out=...) is not supported", hint="assign the result")
        extra = {k: kw.pop(k) for k in extra_attrs if k in kw}
        if kw:
            raise UnsupportedError(f"np.{name}: unsupported arguments {sorted(kw)}")
        axes = normalize_axes(axis, _ndim(a))
        attrs = dict(axes=axes, keepdims=bool(keepdims), **extra)
        if takes_dtype:
            attrs["dtype"] = None if dtype is None else np.dtype(dtype)
        return emit(name, a, **attrs)
    return impl


def _ndim(a):
    return getattr(a, "ndim", np.ndim(a))


for _name, _np, _jnp, _td, _empty, _extra in [
        ("sum", np.sum, jnp.sum, True, True, ()), ("prod", np.prod, jnp.prod, True, True, ()),
        ("max", np.max, jnp.max, False, False, ()), ("min", np.min, jnp.min, False, False, ()),
        ("any", np.any, jnp.any, False, True, ()), ("all", np.all, jnp.all, False, True, ()),
        ("mean", np.mean, jnp.mean, True, True, ()),
        ("var", np.var, jnp.var, True, True, ("ddof",)),
        ("std", np.std, jnp.std, True, True, ("ddof",))]:
    _impl = _reduction(_name, _np, _jnp, _td, _empty, _extra)
    NUMPY[_np] = _impl
    METHODS[_name] = _impl
NUMPY[np.amax] = METHODS["max"]
NUMPY[np.amin] = METHODS["min"]


# --- argmax / argmin -----------------------------------------------------------

def _arg_abstract(avals, axis, keepdims):
    (a,) = avals
    if (a.size == 0 and axis is None) or (axis is not None and a.shape[axis] == 0):
        raise ShapeError("attempt to get argmax/argmin of an empty sequence")
    axes = None if axis is None else (axis,)
    return AVal(np.dtype(np.int64), _reduced_shape(a.shape, axes, keepdims), False)


def _arg(name, jnp_fn, np_fn):
    def lower(lc, x, axis, keepdims):
        r = jnp_fn(x if axis is not None else x.reshape(-1), axis=axis if axis is not None else 0,
                   keepdims=keepdims and axis is not None)
        if keepdims and axis is None:
            r = r.reshape((1,) * lc.in_avals[0].ndim)
        return lax.convert_element_type(r, np.int64)
    register(name, _arg_abstract, lower, numpy=np_fn)

    def impl(a, axis=None, out=None, keepdims=False):
        from ..infer.builder import emit
        ax = None if axis is None else normalize_axis(int(axis), _ndim(a))
        return emit(name, a, axis=ax, keepdims=bool(keepdims))
    NUMPY[np_fn] = impl
    METHODS[name] = impl


_arg("argmax", jnp.argmax, np.argmax)
_arg("argmin", jnp.argmin, np.argmin)


# --- cumulative ----------------------------------------------------------------

def _cum(name, np_fn, jnp_fn):
    def abstract(avals, axis, dtype=None):
        (a,) = avals
        out = _np_dtype(np_fn, a.dtype, dtype)
        return AVal(out, (a.size,) if axis is None else a.shape, False)

    def lower(lc, x, axis, dtype=None):
        x = lax.convert_element_type(x, lc.out_avals[0].dtype)
        return jnp_fn(x.reshape(-1) if axis is None else x, axis=0 if axis is None else axis)
    register(name, abstract, lower, numpy=np_fn)

    def impl(a, axis=None, dtype=None, out=None):
        from ..infer.builder import emit
        ax = None if axis is None else normalize_axis(int(axis), _ndim(a))
        return emit(name, a, axis=ax, dtype=None if dtype is None else np.dtype(dtype))
    NUMPY[np_fn] = impl
    METHODS[name] = impl


_cum("cumsum", np.cumsum, jnp.cumsum)
_cum("cumprod", np.cumprod, jnp.cumprod)
