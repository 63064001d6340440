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


import jax
import numpy as np
from jax import lax

from .. import nn
from ..errors import DTypeError, ShapeError, StaticValueError
from ..ir import AVal
from .registry import (all_weak, cast, define_vjp, differentiated, divide, implements,
                       matmul_precision, register, result_type, target_platforms)


def _config(name, fn, *args):
    args = tuple(_static_option(name, arg) for arg in args)
    try:
        return fn(*args)
    except ValueError as e:
        msg = str(e)
        raise ShapeError(msg if msg.startswith(name) else f"{name}: {msg}") from None


def _static_option(name, arg):
    """A window size, stride, padding or dilation (or a tuple of them) as
    Python ints: they shape the result, so they must be known at compile
    time.  A runtime int whose value tpucc knows is that int, as a slice
    bound's is (`int(k[0])` of `k = np.array(x.shape[2:]) // 2`); any other
    runtime value (a NumPy int argument is read at run time) is refused."""
    if type(arg) is int:        # the common case, first: every dimension of every shape
        return arg
    if isinstance(arg, (tuple, list)):
        return type(arg)(_static_option(name, part) for part in arg)
    arg = known_integer(arg)
    if isinstance(arg, Array):
        raise StaticValueError(
            f"{name}: a kernel size, stride, padding or dilation is a runtime value; "
            "it sets the result's shape, so it must be known at compile time",
            hint="pass a Python int (or a tuple of them), or a value the function "
                 "computes from shapes")
    return arg


# --- conv2d --------------------------------------------------------------------------

def _conv_abstract(avals, stride, padding, dilation, groups, precision=None):
    x, w = avals
    dt = result_type(x, w)
    if dt.kind not in "fc":
        raise DTypeError(f"conv2d: needs floating-point inputs, got {x.dtype} and {w.dtype}",
                         hint="cast with .astype(np.float32)")
    cfg = _config("conv2d", nn.conv2d_config, x.shape, w.shape, stride, padding, dilation, groups)
    return AVal(dt, cfg["shape"], all_weak(avals))


def convolution(x, w, stride, padding, specs, lhs_dilation=(1, 1), rhs_dilation=(1, 1),
                groups=1, precision=None):
    """lax.conv_general_dilated with `specs` (lhs, rhs, out) naming the
    spatial axes H and W; every convolution tpucc emits goes through here.

    XLA:CPU runs a convolution whose input is smaller than its kernel window
    (a 2x2 image under a 3x3 kernel: VGG19's last block at 32x32) as a loop
    fusion at ~3 GFLOP/s instead of calling its convolution library: 512
    channels at batch 8, 46.8 ms against 0.55 ms.  There the padding (and
    any input dilation) is applied first, behind an optimization barrier
    that keeps XLA from folding it back into the window."""
    lhs, rhs, _ = specs
    spatial = [(lhs.index(a), rhs.index(a)) for a in "HW"]
    extent = [(x.shape[i] - 1) * d + 1 for (i, _), d in zip(spatial, lhs_dilation)]
    window = [(w.shape[j] - 1) * d + 1 for (_, j), d in zip(spatial, rhs_dilation)]
    if any(e < k for e, k in zip(extent, window)) and target_platforms() == ("cpu",):
        config = [(0, 0, 0)] * x.ndim
        for (i, _), (lo, hi), d in zip(spatial, padding, lhs_dilation):
            config[i] = (lo, hi, d - 1)
        x = lax.optimization_barrier(lax.pad(x, np.zeros((), x.dtype), config))
        padding, lhs_dilation = ((0, 0), (0, 0)), (1, 1)
    return lax.conv_general_dilated(
        x, w, window_strides=tuple(stride), padding=tuple(map(tuple, padding)),
        lhs_dilation=tuple(lhs_dilation), rhs_dilation=tuple(rhs_dilation),
        dimension_numbers=specs, feature_group_count=groups,
        precision=getattr(lax.Precision, precision.upper()) if precision else None)


def _conv_lower(lc, x, w, stride, padding, dilation, groups, precision=None):
    dt = lc.out_avals[0].dtype
    return convolution(cast(x, dt), cast(w, dt), stride, padding, ("NCHW", "OIHW", "NCHW"),
                       rhs_dilation=dilation, groups=groups, precision=precision)


def _conv_layout(lc, ins, perms, stride, padding, dilation, groups, precision=None):
    """Any input and weight layouts in, channels-last (NHWC) out: see
    lower/layout.py.  A weight stored HWIO (device_cache) needs no transpose."""
    x, w = ins
    dt = lc.out_avals[0].dtype
    lhs = "".join("NCHW"[axis] for axis in (perms[0] or (0, 1, 2, 3)))
    rhs = "".join("OIHW"[axis] for axis in (perms[1] or (0, 1, 2, 3)))
    out = convolution(cast(x, dt), cast(w, dt), stride, padding, (lhs, rhs, "NHWC"),
                      rhs_dilation=dilation, groups=groups, precision=precision)
    return out, NHWC


def _conv_numpy(x, w, stride, padding, dilation, groups, precision=None):
    out_hw = nn.window_output_hw(x.shape[2:], w.shape[2:], stride, padding, dilation)
    return nn.conv2d_nchw(x, w, stride, padding, dilation, groups, out_hw)


# XLA's CPU and GPU convolutions read their kernel HWIO: an OIHW weight
# costs a transpose at every call (VGG19 at batch 2, 64x64: 40% of the forward).
HWIO = (2, 3, 1, 0)
register("conv2d", _conv_abstract, _conv_lower, numpy=_conv_numpy, layout=_conv_layout,
         stored_layouts={1: HWIO})


def _conv_vjp(lc, operands, perms, out, ct, stride, padding, dilation, groups, precision=None):
    """Both gradients of an ungrouped convolution as convolutions, in the
    layouts the forward read (x, w) and wrote (ct).  dx correlates ct,
    dilated by the stride, with the spatially flipped kernel (its in- and
    out-features swapped); dw correlates x with ct, dilated by the stride,
    the batch as the contracted feature, stepping by the kernel's dilation.
    Grouped convolutions: jax.vjp of the lowering."""
    if groups != 1:
        return NotImplemented
    x, w = (cast(v, out.dtype) for v in operands)
    lhs = "".join("NCHW"[axis] for axis in (perms[0] or (0, 1, 2, 3)))
    rhs = "".join("OIHW"[axis] for axis in (perms[1] or (0, 1, 2, 3)))
    spatial = "HW"
    size_in = [x.shape[lhs.index(a)] for a in spatial]
    size_out = [ct.shape[1 + k] for k in range(2)]              # ct is NHWC
    kernel = [w.shape[rhs.index(a)] for a in spatial]
    dx = dw = None
    if lc.wants(0):
        span = [(k - 1) * d for k, d in zip(kernel, dilation)]
        pads = [(sp - lo, n + lo - (o - 1) * s - 1)
                for sp, (lo, _), n, o, s in zip(span, padding, size_in, size_out, stride)]
        dx = convolution(ct, lax.rev(w, (rhs.index("H"), rhs.index("W"))), (1, 1), pads,
                         ("NHWC", _swap(rhs, "O", "I"), lhs), lhs_dilation=stride,
                         rhs_dilation=dilation, precision=precision)
    if lc.wants(1):
        pads = [(lo, (k - 1) * d + (o - 1) * s + 1 - n - lo)
                for (lo, _), k, d, o, s, n in zip(padding, kernel, dilation, size_out, stride,
                                                  size_in)]
        dw = convolution(x, ct, dilation, pads,
                         (_swap(lhs, "N", "C"), "IHWO", _swap(_swap(rhs, "O", "C"), "I", "N")),
                         rhs_dilation=stride, precision=precision)
    return dx, dw


def _swap(spec: str, a: str, b: str) -> str:
    return spec.translate(str.maketrans({a: b, b: a}))


define_vjp("conv2d", _conv_vjp)


@implements(nn.conv2d)
def conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    groups = int(_static_option("conv2d", groups))
    cfg = _config("conv2d", nn.conv2d_config, _shape(x), _shape(w), stride, padding, dilation,
                  groups)
    y = emit("conv2d", x, w, stride=cfg["stride"], padding=cfg["padding"],
             dilation=cfg["dilation"], groups=groups, precision=matmul_precision())
    if b is not None:
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
        if x.dtype.kind == "c" and kind == "max":     # (NumPy orders complex numbers lexically)
            raise DTypeError("max_pool2d: complex inputs are not supported")
        return AVal(dt, cfg["shape"], x.weak)
    return abstract


def _window(kernel, stride, padding):
    return dict(window_dimensions=(1, 1) + tuple(kernel), window_strides=(1, 1) + tuple(stride),
                padding=((0, 0), (0, 0)) + tuple(padding))


def _max_lower(lc, x, kernel, stride, padding):
    return _max_pool(x, lc.in_avals[0].dtype, kernel, stride, padding, (2, 3))


def _max_pool(x, dtype, kernel, stride, padding, axes, perm=None):
    """Max pooling over the spatial `axes` (h, w) of x, whatever its layout
    (`perm`: the physical order of the logical NCHW axes, None: logical).
    Windows that tile the image (stride = kernel, no padding, the common
    case) are a reshape and a max: XLA:CPU runs them 1.8x faster than
    reduce_window, and their gradient 2.8x faster than select_and_scatter
    (VGG19's first pool at batch 8: 84 vs 152 ms, 176 vs 495 ms with the
    backward)."""
    if tuple(stride) == tuple(kernel) and all(p == (0, 0) for p in padding):
        tiled_max = _tiled_max if differentiated() else _tiled_max_value
        return tiled_max(x, tuple(kernel), axes)
    window = _window(kernel, stride, padding)
    if perm is not None:
        window = {k: permute_window(v, perm) for k, v in window.items()}
    init = np.array(nn.lowest(dtype), dtype)
    return lax.reduce_window(x, init, lax.max, **window)


def _tiles(x, kernel, axes):
    """(x cropped to whole windows with each spatial axis split into
    (window, offset in the window); the offset axes, h's then w's; the
    cropped shape)."""
    cropped = tuple(d - d % kernel[axes.index(a)] if a in axes else d
                    for a, d in enumerate(x.shape))
    shape, offset_of = [], {}
    for a, d in enumerate(cropped):
        if a in axes:
            k = kernel[axes.index(a)]
            shape += [d // k, k]
            offset_of[a] = len(shape) - 1
        else:
            shape.append(d)
    if cropped != tuple(x.shape):
        x = lax.slice(x, (0,) * x.ndim, cropped)
    return lax.reshape(x, tuple(shape)), tuple(offset_of[a] for a in axes), cropped


def _tiled_max_value(x, kernel, axes):
    tiles, offsets, _ = _tiles(x, kernel, axes)
    return lax.reduce_max(tiles, offsets)


# The same with the gradient of select_and_scatter (_tiled_max_bwd).
_tiled_max = jax.custom_vjp(_tiled_max_value, nondiff_argnums=(1, 2))


def _tiled_max_fwd(x, kernel, axes):
    y = _tiled_max(x, kernel, axes)
    return y, (x, y)


def _tiled_max_bwd(kernel, axes, residuals, g):
    """Each window's gradient goes to its first maximum in row-major window
    order, as select_and_scatter, nn_grad.max_pool2d_vjp and PyTorch do
    (jax's own max gradient would split it among ties)."""
    x, y = residuals
    tiles, offsets, cropped = _tiles(x, kernel, axes)
    hit = lax.eq(tiles, lax.expand_dims(y, offsets))
    # The first hit has the highest priority kh*kw - (row-major position):
    # a max over the window finds it (cheaper than an argmax or a cumsum,
    # and no transposes).  Written in lax: jax.numpy's nested jits cost
    # more to trace than the primitives.
    priority = np.arange(kernel[0] * kernel[1], 0, -1, dtype=np.int32).reshape(kernel)
    if offsets[0] > offsets[1]:             # w's offsets come first in this layout
        priority = priority.T
    shape = [1] * tiles.ndim
    shape[offsets[0]], shape[offsets[1]] = kernel
    priority = lax.broadcast_in_dim(priority.reshape(shape), tiles.shape, tuple(range(tiles.ndim)))
    ranked = lax.select_n(hit, lax.full_like(priority, 0), priority)
    best = lax.expand_dims(lax.reduce_max(ranked, offsets), offsets)
    first = lax.bitwise_and(hit, lax.eq(ranked, best))
    spread = lax.broadcast_in_dim(lax.expand_dims(g, offsets), tiles.shape,
                                  tuple(range(tiles.ndim)))
    dx = lax.reshape(lax.select_n(first, lax.full_like(spread, 0), spread), cropped)
    tail = [(0, full - kept, 0) for kept, full in zip(cropped, x.shape)]
    if all(t == (0, 0, 0) for t in tail):
        return (dx,)
    return (lax.pad(dx, np.zeros((), dx.dtype), tail),)


_tiled_max.defvjp(_tiled_max_fwd, _tiled_max_bwd)


def _avg_lower(lc, x, kernel, stride, padding, count_include_pad=True):
    (x_aval,), (out,) = lc.in_avals, lc.out_avals
    x = lax.convert_element_type(x, out.dtype)
    total = lax.reduce_window(x, np.array(0, out.dtype), lax.add,
                              **_window(kernel, stride, padding))
    cfg = dict(kernel=kernel, stride=stride, padding=padding, shape=out.shape)
    div = nn.pool_divisor(x_aval.shape[2:], cfg, count_include_pad)
    return divide(total, np.asarray(div, out.dtype))


def _max_layout(lc, ins, perms, kernel, stride, padding):
    """Max pooling on a channels-last (or any) physical layout; `ins` are
    physical values, `perms` their layouts (None: logical)."""
    (x,), (perm,) = ins, perms
    if perm is None:
        return None
    axes = (perm.index(2), perm.index(3))
    return _max_pool(x, lc.in_avals[0].dtype, kernel, stride, padding, axes, perm), perm


def _pool_numpy(fn):
    def reference(x, kernel, stride, padding, **kw):
        return fn(x, kernel, stride, padding, **kw)
    return reference


register("max_pool2d", _pool_abstract("max"), _max_lower, numpy=_pool_numpy(nn.max_pool2d),
         layout=_max_layout)


def _max_pool_vjp(lc, operands, perms, out, ct, kernel, stride, padding):
    """Windows that tile the image: each window's cotangent to its first
    maximum (_tiled_max_bwd).  Other poolings: jax.vjp of the lowering."""
    if tuple(stride) != tuple(kernel) or any(p != (0, 0) for p in padding):
        return NotImplemented
    (x,), (perm,) = operands, perms
    axes = (2, 3) if perm is None else (perm.index(2), perm.index(3))
    return _tiled_max_bwd(tuple(kernel), axes, (x, out), ct)


define_vjp("max_pool2d", _max_pool_vjp)
register("avg_pool2d", _pool_abstract("avg"), _avg_lower, numpy=_pool_numpy(nn.avg_pool2d))


def _avg_pool_vjp(lc, operands, perms, out, ct, kernel, stride, padding, count_include_pad=True):
    """Each window's share of the cotangent (ct / divisor) summed back over
    the windows that read each input: the cotangent dilated by the stride,
    padded, and summed over a stride-1 window of the same size."""
    (x_aval,) = lc.in_avals
    cfg = dict(kernel=kernel, stride=stride, padding=padding, shape=out.shape)
    div = nn.pool_divisor(x_aval.shape[2:], cfg, count_include_pad)
    div = np.asarray(div, ct.dtype)             # a scalar, or (oh, ow) counts
    share = divide(ct, div.reshape((1,) * (ct.ndim - div.ndim) + div.shape))
    widths = [(0, 0, 0), (0, 0, 0)]
    for n, o, k, s, (lo, hi) in zip(x_aval.shape[2:], out.shape[2:], kernel, stride, padding):
        widths.append((k - 1 - lo, n + lo - (o - 1) * s - 1, s - 1))
    spread = lax.pad(share, np.zeros((), ct.dtype), widths)
    return (lax.reduce_window(spread, np.zeros((), ct.dtype), lax.add, (1, 1) + tuple(kernel),
                              (1, 1, 1, 1), "VALID"),)


define_vjp("avg_pool2d", _avg_pool_vjp)


def _pool_cfg(name, x, kernel_size, stride, padding):
    cfg = _config(name, nn.pool_config, _shape(x), kernel_size, stride, padding)
    return dict(kernel=cfg["kernel"], stride=cfg["stride"], padding=cfg["padding"])


@implements(nn.max_pool2d)
def max_pool2d(x, kernel_size, stride=None, padding=0):
    return emit("max_pool2d", x, **_pool_cfg("max_pool2d", x, kernel_size, stride, padding))


@implements(nn.avg_pool2d)
def avg_pool2d(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    return emit("avg_pool2d", x, count_include_pad=bool(count_include_pad),
                **_pool_cfg("avg_pool2d", x, kernel_size, stride, padding))


# --- relu ---------------------------------------------------------------------------

# One max against zero rather than nn.relu's NumPy np.where(x <= 0, 0, x):
# where costs three jax equations per layer (compare, a broadcast zero,
# select), which was a fifth of lowering VGG19.  Same values: max propagates
# NaN and sends -inf to 0.  XLA:CPU's max orders -0.0 below +0.0 (IEEE
# maximum), so relu(-0.0) is +0.0 as with where; XLA leaves the sign of a
# zero tie to the platform, and NumPy's own np.maximum(0, -0.0) is -0.0.
register("relu", lambda avals: avals[0],
         lambda lc, x: lax.max(x, np.zeros((), x.dtype)),
         numpy=nn.relu, layout="elementwise")


def _relu_vjp(lc, operands, perms, out, ct):
    """relu's derivative is 0 at 0 (PyTorch, nn.relu_vjp), where max's
    would split a tie."""
    (x,) = operands
    return (lax.select_n(lax.gt(x, np.zeros((), x.dtype)), lax.full_like(ct, 0), ct),)


define_vjp("relu", _relu_vjp)


@implements(nn.relu)
def relu(x):
    # np.where makes a 0-d array of a NumPy scalar: that case stays where.
    aval = x.aval if isinstance(x, Array) else None
    if aval is not None and aval.dtype.kind == "f" and aval.ndim and not aval.weak:
        return emit("relu", x)
    return where(emit("less_equal", x, 0), 0, x)


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import emit  # noqa: E402
from ..infer.values import Array, known_integer  # noqa: E402
from .shape import reshape, where  # noqa: E402
from ..lower.layout import NHWC, permute_window  # noqa: E402
