"""Neural-network functions, in plain NumPy: usable eagerly, with no compiler.

Layouts follow PyTorch: images are NCHW, convolution weights are OIHW
(out channels, in channels / groups, kernel height, kernel width).  `linear`
stores its weight as (in, out), so it is `x @ w + b` (PyTorch's nn.Linear
stores the transpose, (out, in)).

Inside a function compiled by tpucc, `conv2d`, `max_pool2d`, `avg_pool2d`
and `relu` (of a float array) become single XLA ops (see tpucc/ops/nn.py);
the others are ordinary NumPy that the compiler inlines.

Each function `f` has a NumPy reference backward `f_vjp` (tpucc/nn_grad.py,
re-exported here): the gradient with respect to `f`'s array inputs given the
gradient `g` of its output.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

__all__ = ["conv2d", "max_pool2d", "avg_pool2d", "relu", "softmax", "log_softmax",
           "cross_entropy", "linear", "flatten", "batch_norm",
           # backward (tpucc/nn_grad.py): reference vector-Jacobian products
           "conv2d_vjp", "max_pool2d_vjp", "avg_pool2d_vjp", "relu_vjp", "softmax_vjp",
           "log_softmax_vjp", "cross_entropy_vjp", "linear_vjp", "flatten_vjp",
           "batch_norm_vjp"]


# --- argument normalization (shared with the compiled ops) ----------------------------

def pair(v, name="argument") -> tuple:
    """An int or a pair of ints -> (h, w)."""
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    if isinstance(v, (tuple, list)) and len(v) == 2 and all(
            isinstance(i, (int, np.integer)) for i in v):
        return int(v[0]), int(v[1])
    raise ValueError(f"{name} must be an int or a pair of ints, got {v!r}")


def window_padding(padding, in_hw, kernel_hw, stride_hw, dilation_hw=(1, 1)) -> tuple:
    """Explicit ((top, bottom), (left, right)) padding.

    `padding` is an int, (ph, pw), ((top, bottom), (left, right)), "VALID" (no
    padding) or "SAME" (output size ceil(in / stride); an odd total padding puts
    the extra row/column at the bottom/right, as in TensorFlow, JAX and PyTorch).
    """
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return (0, 0), (0, 0)
        if mode != "SAME":
            raise ValueError(f"padding must be 'SAME', 'VALID', an int or pairs, got {padding!r}")
        pads = []
        for n, k, s, d in zip(in_hw, kernel_hw, stride_hw, dilation_hw):
            out = -(-n // s)
            total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
            pads.append((total // 2, total - total // 2))
        return tuple(pads)
    if isinstance(padding, (tuple, list)) and len(padding) == 2 and all(
            isinstance(p, (tuple, list)) for p in padding):
        pads = tuple((int(lo), int(hi)) for lo, hi in padding)
    else:
        ph, pw = pair(padding, "padding")
        pads = (ph, ph), (pw, pw)
    if any(p < 0 for side in pads for p in side):
        raise ValueError(f"padding must not be negative, got {padding!r}")
    return pads


def window_output_hw(in_hw, kernel_hw, stride_hw, pads, dilation_hw=(1, 1)) -> tuple:
    out = []
    for n, k, s, (lo, hi), d in zip(in_hw, kernel_hw, stride_hw, pads, dilation_hw):
        span = n + lo + hi - (k - 1) * d - 1
        if span < 0:
            raise ValueError(f"the window ({k} with dilation {d}) is larger than the padded "
                             f"input ({n + lo + hi})")
        out.append(span // s + 1)
    return tuple(out)


def conv2d_config(x_shape, w_shape, stride, padding, dilation, groups) -> dict:
    """Checks shapes; -> normalized stride, explicit padding, dilation, output shape."""
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ValueError(f"conv2d expects x of shape (N, C, H, W) and w of shape (O, C/groups, "
                         f"KH, KW), got {tuple(x_shape)} and {tuple(w_shape)}")
    n, c, h, w = x_shape
    o, cg, kh, kw = w_shape
    if groups < 1 or c % groups or o % groups or c // groups != cg:
        raise ValueError(f"conv2d: input has {c} channels and weight {tuple(w_shape)}; with "
                         f"groups={groups}, need C == w.shape[1] * groups and O divisible "
                         "by groups")
    stride, dilation = pair(stride, "stride"), pair(dilation, "dilation")
    if min(stride) < 1 or min(dilation) < 1:
        raise ValueError("conv2d: stride and dilation must be positive")
    pads = window_padding(padding, (h, w), (kh, kw), stride, dilation)
    oh, ow = window_output_hw((h, w), (kh, kw), stride, pads, dilation)
    return dict(stride=stride, padding=pads, dilation=dilation, shape=(n, o, oh, ow))


def pool_config(x_shape, kernel_size, stride, padding) -> dict:
    if len(x_shape) != 4:
        raise ValueError(f"pooling expects x of shape (N, C, H, W), got {tuple(x_shape)}")
    kernel = pair(kernel_size, "kernel_size")
    stride = kernel if stride is None else pair(stride, "stride")
    if min(kernel) < 1 or min(stride) < 1:
        raise ValueError("pooling: kernel_size and stride must be positive")
    pads = window_padding(padding, x_shape[2:], kernel, stride)
    oh, ow = window_output_hw(x_shape[2:], kernel, stride, pads)
    return dict(kernel=kernel, stride=stride, padding=pads, shape=tuple(x_shape[:2]) + (oh, ow))


# --- convolution and pooling (eager NumPy) ----------------------------------------------

def _windows(x_nhwc, kernel, stride, dilation):
    """(N, OH, OW, KH, KW, C) view of sliding windows of an NHWC array."""
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    span = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    v = sliding_window_view(x_nhwc, span, axis=(1, 2))      # N, OH', OW', C, spanH, spanW
    v = v[:, ::sh, ::sw, :, ::dh, ::dw]
    return v.transpose(0, 1, 2, 4, 5, 3)


def conv2d_nchw(x, w, stride, padding, dilation, groups, out_hw):
    """Convolution with normalized arguments: im2col + one matrix product per group.

    Windows are gathered from an NHWC copy so that the im2col matrix is built
    with contiguous channel runs; the result is an NCHW view of NHWC memory,
    which the next elementwise op and the next convolution keep as is."""
    dtype = np.result_type(x, w)
    (pt, pb), (pl, pr) = padding
    xh = np.ascontiguousarray(np.transpose(x, (0, 2, 3, 1)), dtype=dtype)
    if pt or pb or pl or pr:
        xh = np.pad(xh, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    kernel = w.shape[2:]
    win = _windows(xh, kernel, stride, dilation)[:, :out_hw[0], :out_hw[1]]
    wt = np.transpose(w, (2, 3, 1, 0)).astype(dtype, copy=False)    # KH, KW, C/g, O
    cg, og = w.shape[1], w.shape[0] // groups
    if groups == 1:
        out = np.tensordot(win, wt, axes=([3, 4, 5], [0, 1, 2]))
    else:
        out = np.concatenate([
            np.tensordot(win[..., g * cg:(g + 1) * cg], wt[..., g * og:(g + 1) * og],
                         axes=([3, 4, 5], [0, 1, 2]))
            for g in range(groups)], axis=-1)
    return out.transpose(0, 3, 1, 2)


def conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation, as in deep-learning libraries).

    x: (N, C, H, W); w: (O, C // groups, KH, KW); b: (O,) or None.
    padding: int, (ph, pw), ((top, bottom), (left, right)), "SAME" or "VALID".
    Returns (N, O, OH, OW) with dtype np.result_type(x, w) (and b)."""
    x, w = np.asarray(x), np.asarray(w)
    if np.result_type(x, w).kind not in "fc":
        raise TypeError(f"conv2d: needs floating-point inputs, got {x.dtype} and {w.dtype}")
    cfg = conv2d_config(x.shape, w.shape, stride, padding, dilation, groups)
    y = conv2d_nchw(x, w, cfg["stride"], cfg["padding"], cfg["dilation"], groups,
                    cfg["shape"][2:])
    if b is not None:
        # A Python number stays one (weak, as NumPy types it): 0.5 keeps float32 and
        # 1+2j makes complex64, as the compiled conv2d (and y + b in NumPy) types them.
        y = y + (b if isinstance(b, (int, float, complex)) else np.reshape(b, (1, -1, 1, 1)))
    return y


def _pool_input(x, pads, fill):
    (pt, pb), (pl, pr) = pads
    if pt or pb or pl or pr:
        x = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=fill)
    return x


def _pool_windows(x, cfg):
    """(N, C, OH, OW, KH, KW) windows; a reshape when windows tile the input."""
    (kh, kw), (sh, sw), (oh, ow) = cfg["kernel"], cfg["stride"], cfg["shape"][2:]
    if (kh, kw) == (sh, sw):
        n, c = x.shape[:2]
        return x[:, :, :oh * kh, :ow * kw].reshape(n, c, oh, kh, ow, kw).transpose(0, 1, 2, 4, 3, 5)
    v = sliding_window_view(x, (kh, kw), axis=(2, 3))
    return v[:, :, ::sh, ::sw][:, :, :oh, :ow]


def lowest(dtype):
    """The identity of max for this dtype (-inf for floats)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return -np.inf
    if dtype.kind == "b":
        return False
    return np.iinfo(dtype).min


def max_pool2d(x, kernel_size, stride=None, padding=0):
    """Max over (KH, KW) windows of an NCHW array; padding counts as -inf.
    stride defaults to kernel_size."""
    x = np.asarray(x)
    cfg = pool_config(x.shape, kernel_size, stride, padding)
    xp = _pool_input(x, cfg["padding"], lowest(x.dtype))
    return _pool_windows(xp, cfg).max(axis=(4, 5))


def pool_divisor(in_hw, cfg, count_include_pad):
    """What avg_pool2d divides each window sum by: the window size, or the
    number of real (unpadded) elements in it."""
    kh, kw = cfg["kernel"]
    if count_include_pad or not any(sum(cfg["padding"], ())):
        return float(kh * kw)
    ones = np.ones((1, 1) + tuple(in_hw))
    return _pool_windows(_pool_input(ones, cfg["padding"], 0.0), cfg).sum(axis=(4, 5))[0, 0]


def avg_pool_dtype(dtype):
    dtype = np.dtype(dtype)
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def avg_pool2d(x, kernel_size, stride=None, padding=0, count_include_pad=True):
    """Mean over (KH, KW) windows of an NCHW array.  Padding is zeros, counted
    in the mean unless count_include_pad=False (as in PyTorch).  Integer input
    gives float64 (as np.mean)."""
    x = np.asarray(x)
    cfg = pool_config(x.shape, kernel_size, stride, padding)
    dtype = avg_pool_dtype(x.dtype)
    xp = _pool_input(x.astype(dtype, copy=False), cfg["padding"], 0)
    total = _pool_windows(xp, cfg).sum(axis=(4, 5))
    div = pool_divisor(x.shape[2:], cfg, count_include_pad)
    return (total / np.asarray(div, dtype=dtype)).astype(dtype, copy=False)


# --- the rest: ordinary NumPy, inlined by the compiler ----------------------------------

def relu(x):
    # Not np.maximum(x, 0): its derivative at a tie (x == 0, common after a
    # max pool of zeros) is 1/2 in reverse mode; relu's is 0 (relu_vjp,
    # PyTorch).  `x <= 0` keeps NaN as NaN and sends -inf to 0.
    return np.where(x <= 0, 0, x)


def softmax(x, axis=-1):
    z = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    z = x - np.max(x, axis=axis, keepdims=True)
    return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


def cross_entropy(logits, labels):
    """Mean over the batch of -log softmax(logits)[i, labels[i]].
    logits: (N, K) floats; labels: (N,) integers in [0, K)."""
    logp = log_softmax(logits, axis=-1)
    picked = logp[np.arange(logits.shape[0]), labels]
    return -np.mean(picked)


def linear(x, w, b=None):
    """x @ w + b, with w stored as (in_features, out_features)."""
    y = x @ w
    if b is not None:
        y = y + b
    return y


def flatten(x, start_dim=1):
    """Collapses the dimensions from start_dim on into one."""
    return np.reshape(x, tuple(x.shape[:start_dim]) + (-1,))


def channel_shape(ndim):
    """(1, C, 1, ...): how a per-channel (C,) vector broadcasts against (N, C, ...)."""
    return (1, -1) + (1,) * (ndim - 2)


def batch_moments(x):
    """Per-channel mean, x - mean and biased variance, over every axis but 1 (keepdims)."""
    axes = (0,) + tuple(range(2, x.ndim))
    mean = np.mean(x, axis=axes, keepdims=True)
    centered = x - mean
    return mean, centered, np.mean(centered * centered, axis=axes, keepdims=True)


def batch_norm(x, weight, bias, running_mean, running_var, training=False, momentum=0.1,
               eps=1e-5):
    """Per-channel batch normalization of an (N, C, ...) array, as PyTorch's F.batch_norm.

    training=True normalizes with the batch statistics (mean and biased variance
    over every axis but the channel axis 1) and, when running_mean and running_var
    are given, updates them IN PLACE with
    `running = (1 - momentum) * running + momentum * batch_statistic`, where the
    variance is the unbiased one (as PyTorch).  training=False normalizes with the
    running statistics.  weight and bias, (C,), may be None (no affine transform)."""
    shape = channel_shape(x.ndim)
    if training:
        count = x.size // x.shape[1]
        if count < 2:
            raise ValueError(f"batch_norm: training needs more than 1 value per channel, "
                             f"got input of shape {tuple(x.shape)}")
        mean, centered, var = batch_moments(x)
        if running_mean is not None:
            running_mean[...] = (1 - momentum) * running_mean + momentum * np.reshape(mean, -1)
        if running_var is not None:
            unbiased = np.reshape(var, -1) * (count / (count - 1))
            running_var[...] = (1 - momentum) * running_var + momentum * unbiased
    else:
        mean, var = np.reshape(running_mean, shape), np.reshape(running_var, shape)
        centered = x - mean
    y = centered * (1 / np.sqrt(var + eps))
    if weight is not None:
        y = y * np.reshape(weight, shape)
    if bias is not None:
        y = y + np.reshape(bias, shape)
    return y


# The backward functions import the helpers above, so they come last.
from .nn_grad import (conv2d_vjp, max_pool2d_vjp, avg_pool2d_vjp, relu_vjp,  # noqa: E402
                      softmax_vjp, log_softmax_vjp, cross_entropy_vjp, linear_vjp,
                      flatten_vjp, batch_norm_vjp)
