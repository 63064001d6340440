"""Neural-network window ops: conv2d, max_pool2d, avg_pool2d (NCHW / OIHW).

The compile-time implementations of tpucc.nn.conv2d / max_pool2d / avg_pool2d:
arguments are normalized with the same helpers the eager NumPy functions use
(explicit padding pairs, output shape), so both paths agree on every shape.
Dtype rule: conv2d gives np.result_type(x, w) (NEP 50); max pooling keeps the
dtype; average pooling keeps float dtypes and gives float64 for integers (as
np.mean).  Lowering: lax.conv_general_dilated (precision HIGHEST unless the
compile option `matmul_precision` says otherwise) and lax.reduce_window.
A bias is an ordinary broadcast add after the convolution, which XLA fuses.
"""
from __future__ import annotations

import numpy as np
from jax import lax

from .. import nn
from ..errors import DTypeError, ShapeError
from ..ir import AVal
from .registry import all_weak, implements, matmul_precision, register, result_type


def _config(name, fn, *args):
    try:
        return fn(*args)
    except ValueError as e:
        msg = str(e)
        raise ShapeError(msg if msg.startswith(name) else f"{name}: {msg}") from None


# --- conv2d --------------------------------------------------------------------------

def _conv_abstract(avals, stride, padding, dilation, groups, precision=None):
    x, w = avals
    dt = result_type(x, w)
    if dt.kind not in "fc":
        raise DTypeError(f"conv2d: needs floating-point inputs, got {x.dtype} and {w.dtype}",
                         hint="cast with .astype(np.float32)")
    cfg = _config("conv2d", nn.conv2d_config, x.shape, w.shape, stride, padding, dilation, groups)
    return AVal(dt, cfg["shape"], all_weak(avals))


def _conv_lower(lc, x, w, stride, padding, dilation, groups, precision=None):
    dt = lc.out_avals[0].dtype
    prec = getattr(lax.Precision, precision.upper()) if precision else None
    return lax.conv_general_dilated(
        lax.convert_element_type(x, dt), lax.convert_element_type(w, dt),
        window_strides=stride, padding=padding, rhs_dilation=dilation,
        dimension_numbers=("NCHW", "OIHW", "NCHW"), feature_group_count=groups,
        precision=prec)


def _conv_layout(lc, ins, perms, stride, padding, dilation, groups, precision=None):
    """Any input layout in, channels-last (NHWC) out: see lower/layout.py."""
    from ..lower.layout import NHWC
    x, w = ins
    if perms[1] is not None:
        return None
    dt = lc.out_avals[0].dtype
    lhs = "".join("NCHW"[axis] for axis in (perms[0] or (0, 1, 2, 3)))
    prec = getattr(lax.Precision, precision.upper()) if precision else None
    out = lax.conv_general_dilated(
        lax.convert_element_type(x, dt), lax.convert_element_type(w, dt),
        window_strides=stride, padding=padding, rhs_dilation=dilation,
        dimension_numbers=(lhs, "OIHW", "NHWC"), feature_group_count=groups,
        precision=prec)
    return out, NHWC


def _conv_numpy(x, w, stride, padding, dilation, groups, precision=None):
    out_hw = nn.window_output_hw(x.shape[2:], w.shape[2:], stride, padding, dilation)
    return nn.conv2d_nchw(x, w, stride, padding, dilation, groups, out_hw)


register("conv2d", _conv_abstract, _conv_lower, numpy=_conv_numpy, layout=_conv_layout)


@implements(nn.conv2d)
def conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    from ..infer.builder import emit
    groups = int(groups)
    cfg = _config("conv2d", nn.conv2d_config, _shape(x), _shape(w), stride, padding, dilation,
                  groups)
    y = emit("conv2d", x, w, stride=cfg["stride"], padding=cfg["padding"],
             dilation=cfg["dilation"], groups=groups, precision=matmul_precision())
    if b is not None:
        from .shape import reshape
        y = y + reshape(b, (1, -1, 1, 1))
    return y


def _shape(a):
    return tuple(getattr(a, "shape", np.shape(a)))


# --- pooling --------------------------------------------------------------------------

def _pool_abstract(kind):
    def abstract(avals, kernel, stride, padding, count_include_pad=True):
        (x,) = avals
        cfg = _config(f"{kind}_pool2d", nn.pool_config, x.shape, kernel, stride, padding)
        dt = x.dtype if kind == "max" else nn.avg_pool_dtype(x.dtype)
        if x.dtype.kind == "c":
            raise DTypeError(f"{kind}_pool2d: complex inputs are not supported")
        return AVal(dt, cfg["shape"], x.weak)
    return abstract


def _window(kernel, stride, padding):
    return dict(window_dimensions=(1, 1) + tuple(kernel), window_strides=(1, 1) + tuple(stride),
                padding=((0, 0), (0, 0)) + tuple(padding))


def _max_lower(lc, x, kernel, stride, padding):
    init = np.array(nn.lowest(lc.in_avals[0].dtype), lc.in_avals[0].dtype)
    return lax.reduce_window(x, init, lax.max, **_window(kernel, stride, padding))


def _avg_lower(lc, x, kernel, stride, padding, count_include_pad=True):
    (x_aval,), (out,) = lc.in_avals, lc.out_avals
    x = lax.convert_element_type(x, out.dtype)
    total = lax.reduce_window(x, np.array(0, out.dtype), lax.add,
                              **_window(kernel, stride, padding))
    cfg = dict(kernel=kernel, stride=stride, padding=padding, shape=out.shape)
    div = nn.pool_divisor(x_aval.shape[2:], cfg, count_include_pad)
    return total / np.asarray(div, out.dtype)


def _max_layout(lc, ins, perms, kernel, stride, padding):
    """Max pooling on a channels-last (or any) physical layout; `ins` are
    physical values, `perms` their layouts (None: logical)."""
    from ..lower.layout import permute_window
    (x,), (perm,) = ins, perms
    if perm is None:
        return None
    window = _window(kernel, stride, padding)
    init = np.array(nn.lowest(lc.in_avals[0].dtype), lc.in_avals[0].dtype)
    out = lax.reduce_window(x, init, lax.max,
                            **{k: permute_window(v, perm) for k, v in window.items()})
    return out, perm


def _pool_numpy(fn):
    def reference(x, kernel, stride, padding, **kw):
        return fn(x, kernel, stride, padding, **kw)
    return reference


register("max_pool2d", _pool_abstract("max"), _max_lower, numpy=_pool_numpy(nn.max_pool2d),
         layout=_max_layout)
register("avg_pool2d", _pool_abstract("avg"), _avg_lower, numpy=_pool_numpy(nn.avg_pool2d))


def _pool_cfg(name, x, kernel_size, stride, padding):
    cfg = _config(name, nn.pool_config, _shape(x), kernel_size, stride, padding)
    return dict(kernel=cfg["kernel"], stride=cfg["stride"], padding=cfg["padding"])


@implements(nn.max_pool2d)
def max_pool2d(x, kernel_size, stride=None, padding=0):
    from ..infer.builder import emit
    return emit("max_pool2d", x, **_pool_cfg("max_pool2d", x, kernel_size, stride, padding))


@implements(nn.avg_pool2d)
def avg_pool2d(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    from ..infer.builder import emit
    return emit("avg_pool2d", x, count_include_pad=bool(count_include_pad),
                **_pool_cfg("avg_pool2d", x, kernel_size, stride, padding))
