"""Reference backward passes of tpucc.nn, in plain NumPy.

For each forward function `f` of tpucc.nn, `f_vjp` is its vector-Jacobian
product: given the forward's array inputs, the gradient `g` of a scalar loss
with respect to `f`'s output, and the forward's options, it returns the
gradients with respect to the floating-point array inputs.  Signatures: the
forward's array arguments, then `g`, then the forward's options, e.g.
`conv2d_vjp(x, w, b, g, stride=2, padding="SAME") -> (dx, dw, db)`.

These are the eager NumPy backward (what a hand-written NumPy training step
runs) and the reference tpucc's gradients are tested against.  Each gradient
has the dtype of its input, as jax and PyTorch give; the work is done in the
forward's compute dtype.  They are re-exported by tpucc.nn.

Non-differentiable points follow PyTorch: relu has gradient 0 at 0 (jax's
`maximum` splits it, 0.5 each); max pooling routes a window's gradient to the
first maximum of the window in row-major (kh, kw) order, so inputs with ties
inside a window may legitimately get different gradients from another
correct implementation.
"""
from __future__ import annotations

import numpy as np

from . import nn


def _float_dtype(name, *arrays):
    dtype = np.result_type(*arrays)
    if dtype.kind not in "fc":
        raise TypeError(f"{name}: gradients need floating-point inputs, got {dtype}")
    return dtype


def _check_g(name, g, shape):
    if tuple(g.shape) != tuple(shape):
        raise ValueError(f"{name}: g has shape {tuple(g.shape)}, the forward's output has "
                         f"{tuple(shape)}")


def _add_taps(acc, tap, kernel, stride, dilation, out_hw, axes):
    """acc[positions read by kernel tap (i, j)] += tap(i, j), for every tap.

    The adjoint of gathering strided, dilated windows (col2im): tap (i, j) of
    output position (oh, ow) read input row oh*sh + i*dh, column ow*sw + j*dw of
    the padded input `acc`, whose spatial axes are `axes`."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_hw
    index = [slice(None)] * acc.ndim
    for i in range(kh):
        index[axes[0]] = slice(i * dh, i * dh + (oh - 1) * sh + 1, sh)
        for j in range(kw):
            index[axes[1]] = slice(j * dw, j * dw + (ow - 1) * sw + 1, sw)
            acc[tuple(index)] += tap(i, j)


def _unpad(xp, pads, axes):
    """The inverse of np.pad on the spatial `axes`: the interior of xp."""
    index = [slice(None)] * xp.ndim
    for axis, (lo, hi) in zip(axes, pads):
        index[axis] = slice(lo, xp.shape[axis] - hi)
    return xp[tuple(index)]


# --- conv2d ---------------------------------------------------------------------------

def conv2d_vjp(x, w, b, g, stride=1, padding=0, dilation=1, groups=1):
    """-> (dx, dw, db) of conv2d(x, w, b, ...); db is None when b is None.

    Works in NHWC like the forward: dw is one matrix product per group of g
    with the im2col windows of x; dx is g times the weight (one product per
    group) scattered back over the windows (col2im, one strided add per tap)."""
    x, w, g = np.asarray(x), np.asarray(w), np.asarray(g)
    dtype = _float_dtype("conv2d_vjp", x, w)
    cfg = nn.conv2d_config(x.shape, w.shape, stride, padding, dilation, groups)
    _check_g("conv2d_vjp", g, cfg["shape"])
    (pt, pb), (pl, pr) = cfg["padding"]
    xh = np.pad(np.transpose(x, (0, 2, 3, 1)).astype(dtype, copy=False),
                ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    gh = np.transpose(g, (0, 2, 3, 1)).astype(dtype, copy=False)        # N, OH, OW, O
    wt = np.transpose(w, (0, 2, 3, 1)).astype(dtype, copy=False)        # O, KH, KW, C/g
    kernel, out_hw = w.shape[2:], cfg["shape"][2:]
    win = nn._windows(xh, kernel, cfg["stride"], cfg["dilation"])[:, :out_hw[0], :out_hw[1]]
    cg, og = w.shape[1], w.shape[0] // groups
    dws, cols = [], []
    for k in range(groups):
        g_k, w_k = gh[..., k * og:(k + 1) * og], wt[k * og:(k + 1) * og]
        dws.append(np.tensordot(g_k, win[..., k * cg:(k + 1) * cg], axes=([0, 1, 2], [0, 1, 2])))
        cols.append(np.tensordot(g_k, w_k, axes=([3], [0])))           # N, OH, OW, KH, KW, C/g
    dw = np.concatenate(dws, axis=0).transpose(0, 3, 1, 2)
    cols = cols[0] if groups == 1 else np.concatenate(cols, axis=-1)
    dxh = np.zeros(xh.shape, dtype)
    _add_taps(dxh, lambda i, j: cols[:, :, :, i, j, :], kernel, cfg["stride"],
              cfg["dilation"], out_hw, axes=(1, 2))
    dx = _unpad(dxh, cfg["padding"], axes=(1, 2)).transpose(0, 3, 1, 2)
    db = None if b is None else g.sum(axis=(0, 2, 3)).astype(np.asarray(b).dtype)
    return dx.astype(x.dtype, copy=False), dw.astype(w.dtype, copy=False), db


# --- pooling --------------------------------------------------------------------------

def max_pool2d_vjp(x, g, kernel_size, stride=None, padding=0):
    """-> dx of max_pool2d(x, kernel_size, stride, padding): each window's
    gradient goes to its maximum; on ties, to the first maximum in row-major
    window order (a padded -inf never wins over a real element)."""
    x, g = np.asarray(x), np.asarray(g)
    dtype = _float_dtype("max_pool2d_vjp", x)
    cfg = nn.pool_config(x.shape, kernel_size, stride, padding)
    _check_g("max_pool2d_vjp", g, cfg["shape"])
    xp = nn._pool_input(x, cfg["padding"], nn.lowest(x.dtype))
    win = nn._pool_windows(xp, cfg)                                     # N, C, OH, OW, KH, KW
    winner = np.argmax(win.reshape(win.shape[:4] + (-1,)), axis=-1)    # first maximum
    g = g.astype(dtype, copy=False)
    kw = cfg["kernel"][1]
    dxp = np.zeros(xp.shape, dtype)
    _add_taps(dxp, lambda i, j: g * (winner == i * kw + j), cfg["kernel"],
              cfg["stride"], (1, 1), cfg["shape"][2:], axes=(2, 3))
    return _unpad(dxp, cfg["padding"], axes=(2, 3))


def avg_pool2d_vjp(x, g, kernel_size, stride=None, padding=0, count_include_pad=True):
    """-> dx of avg_pool2d(x, ...): each window's gradient, divided by what the
    forward divided its sum by, spread over the window's elements."""
    x, g = np.asarray(x), np.asarray(g)
    dtype = _float_dtype("avg_pool2d_vjp", x)
    cfg = nn.pool_config(x.shape, kernel_size, stride, padding)
    _check_g("avg_pool2d_vjp", g, cfg["shape"])
    share = g / np.asarray(nn.pool_divisor(x.shape[2:], cfg, count_include_pad), g.dtype)
    share = share.astype(dtype, copy=False)
    (pt, pb), (pl, pr) = cfg["padding"]
    dxp = np.zeros(x.shape[:2] + (x.shape[2] + pt + pb, x.shape[3] + pl + pr), dtype)
    _add_taps(dxp, lambda i, j: share, cfg["kernel"], cfg["stride"], (1, 1),
              cfg["shape"][2:], axes=(2, 3))
    return _unpad(dxp, cfg["padding"], axes=(2, 3))


# --- elementwise, softmax, loss -------------------------------------------------------

def relu_vjp(x, g):
    """-> dx of relu(x): g where x > 0, else 0 (0 at x == 0, as PyTorch).
    A product with the mask, several times faster than np.where (so an inf or
    NaN in g where x <= 0 gives NaN there, not 0)."""
    x = np.asarray(x)
    return (g * (x > 0)).astype(x.dtype, copy=False)


def softmax_vjp(x, g, axis=-1):
    """-> dx of softmax(x, axis): y * (g - sum(g * y)), y = softmax(x)."""
    y = nn.softmax(x, axis=axis)
    return (y * (g - np.sum(g * y, axis=axis, keepdims=True))).astype(y.dtype, copy=False)


def log_softmax_vjp(x, g, axis=-1):
    """-> dx of log_softmax(x, axis): g - softmax(x) * sum(g)."""
    y = nn.softmax(x, axis=axis)
    return (g - y * np.sum(g, axis=axis, keepdims=True)).astype(y.dtype, copy=False)


def cross_entropy_vjp(logits, labels, g=1.0):
    """-> dlogits of cross_entropy(logits, labels) (labels get no gradient):
    g * (softmax(logits) - one_hot(labels)) / N."""
    logits = np.asarray(logits)
    n = logits.shape[0]
    d = nn.softmax(logits, axis=-1)
    d[np.arange(n), labels] -= 1
    return (d * (np.asarray(g, logits.dtype) / n)).astype(logits.dtype, copy=False)


# --- linear, flatten ------------------------------------------------------------------

def linear_vjp(x, w, b, g):
    """-> (dx, dw, db) of linear(x, w, b) = x @ w + b, for x of shape (..., in);
    db is None when b is None."""
    x, w, g = np.asarray(x), np.asarray(w), np.asarray(g)
    dx = (g @ w.T).astype(x.dtype, copy=False)
    g2, x2 = g.reshape(-1, w.shape[1]), x.reshape(-1, w.shape[0])
    dw = (x2.T @ g2).astype(w.dtype, copy=False)
    db = None if b is None else g2.sum(axis=0).astype(np.asarray(b).dtype)
    return dx, dw, db


def flatten_vjp(x, g, start_dim=1):
    """-> dx of flatten(x, start_dim): g reshaped back to x's shape."""
    return np.reshape(g, np.shape(x))


# --- batch_norm -----------------------------------------------------------------------

def batch_norm_vjp(x, weight, bias, running_mean, running_var, g, training=False,
                   momentum=0.1, eps=1e-5):
    """-> (dx, dweight, dbias) of batch_norm(x, weight, bias, running_mean,
    running_var, training, momentum, eps); dweight / dbias are None when weight /
    bias are. The running statistics are neither read in training mode nor
    updated (momentum is accepted so both take the same options).

    In training mode the statistics depend on x:
    dx = invstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),
    means over every axis but 1, dxhat = g * weight."""
    x, g = np.asarray(x), np.asarray(g)
    shape, axes = nn.channel_shape(x.ndim), (0,) + tuple(range(2, x.ndim))
    if training:
        _, centered, var = nn.batch_moments(x)
    else:
        centered = x - np.reshape(running_mean, shape)
        var = np.reshape(running_var, shape)
    invstd = 1 / np.sqrt(var + eps)
    xhat = centered * invstd
    dxhat = g if weight is None else g * np.reshape(weight, shape)
    if training:
        dxhat = (dxhat - np.mean(dxhat, axis=axes, keepdims=True)
                 - xhat * np.mean(dxhat * xhat, axis=axes, keepdims=True))
    dx = (dxhat * invstd).astype(x.dtype, copy=False)
    dweight = None if weight is None else (
        np.sum(g * xhat, axis=axes).astype(np.asarray(weight).dtype, copy=False))
    dbias = None if bias is None else np.sum(g, axis=axes).astype(np.asarray(bias).dtype)
    return dx, dweight, dbias
