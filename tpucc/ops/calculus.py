"""Differences, integrals and interpolation composed of other ops:
np.trapezoid, np.gradient, np.ediff1d, np.unwrap, np.interp.

Each follows NumPy's Python code (numpy/lib/_function_base_impl.py)
expression by expression, so the dtypes are NumPy's (a Python-float
spacing is weak: float32 data stays float32) and so are the roundings,
except where a sum runs in XLA's order (np.unwrap's cumulative sum).
"""
from __future__ import annotations

import numpy as np

from ..errors import UnsupportedError, UserCodeError
from .elementwise import astype, emit_ufunc
from .manipulation import along, as_array
from .registry import NUMPY, implements, normalize_axis
from .shape import concatenate, ravel, reshape, where


def _is_array(x) -> bool:
    return isinstance(x, Array)


# --- trapezoid ------------------------------------------------------------------------------

@implements(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = as_array(y)
    y_axis = normalize_axis(axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = as_array(x)
        if x.ndim == 1:
            d = NUMPY[np.diff](x)
            d = reshape(d, tuple(d.shape[0] if i == y_axis else 1 for i in range(y.ndim)))
        else:
            # NumPy's diff(x, axis=axis): a negative axis counts from x's own
            # end (a 2-d x of sample rows beside a 1-d y broadcasts)
            d = NUMPY[np.diff](x, axis=axis)
    upper, lower = y[along(y_axis, slice(1, None))], y[along(y_axis, slice(None, -1))]
    # (NumPy's add.reduce(..., axis): the axis of the broadcast product)
    return NUMPY[np.sum](d * (upper + lower) / 2.0, axis=axis)


# --- gradient -------------------------------------------------------------------------------

@implements(np.gradient)
def gradient(f, *varargs, axis=None, edge_order=1):
    f = as_array(f)
    axes = tuple(range(f.ndim)) if axis is None else tuple(
        normalize_axis(ax, f.ndim) for ax in ((axis,) if np.ndim(axis) == 0 else axis))
    if len(set(axes)) != len(axes):
        raise UserCodeError("ValueError: repeated axis in `axis` argument")
    spacings = [_spacing(h, f.shape[ax]) for h, ax in zip(_per_axis(varargs, len(axes)), axes)]
    if edge_order > 2:
        raise UserCodeError("ValueError: 'edge_order' greater than 2 not supported")
    if f.dtype.kind in "iu":
        f = astype(f, np.float64)
    otype = f.dtype if f.dtype.kind in "fc" else np.dtype(np.float64)
    out = [_gradient_with(f, ax, h, edge_order, otype) for ax, h in zip(axes, spacings)]
    return out[0] if len(axes) == 1 else tuple(out)


def _per_axis(varargs, n_axes) -> list:
    if not varargs:
        return [1.0] * n_axes
    if len(varargs) == 1 and _ndim(varargs[0]) == 0:
        return list(varargs) * n_axes
    if len(varargs) != n_axes:
        raise UserCodeError("TypeError: invalid number of arguments")
    return list(varargs)


def _spacing(h, n: int):
    """An axis's spacing as NumPy's gradient takes it: a scalar as given; a
    1-d array of coordinates as their differences (integers as float64, so
    that np.diff does not wrap), which NumPy turns into the scalar first
    difference where all are equal (the uniform formula, whose roundings
    differ).  Static coordinates (np.linspace) are decided here; runtime
    ones give _RuntimeCoordinates, both formulas picked between at run time."""
    if _ndim(h) == 0:
        return h
    h = h if _is_array(h) else as_array(h) if isinstance(h, (list, tuple)) and any(
        map(_is_array, h)) else np.asarray(h)
    if h.ndim != 1:
        raise UserCodeError("ValueError: distances must be either scalars or 1d")
    if h.shape[0] != n:
        raise UserCodeError("ValueError: when 1d, distances must match the length of the "
                            "corresponding dimension")
    known = known_constant(h) if _is_array(h) else h
    if known is not None:
        try:
            diffx = np.diff(known.astype(np.float64) if known.dtype.kind in "iu" else known)
        except TypeError as e:      # (bools: NumPy's subtract refuses them)
            raise UserCodeError(f"TypeError: {e}") from None
        return diffx[0] if (diffx == diffx[0]).all() else diffx
    h = astype(h, np.float64) if h.dtype.kind in "iu" else h
    return _RuntimeCoordinates(NUMPY[np.diff](h))


class _RuntimeCoordinates:
    """The differences of coordinates known only at run time."""
    def __init__(self, diffx):
        self.diffx = diffx


def _gradient_with(f, axis, h, edge_order, otype):
    if isinstance(h, _RuntimeCoordinates):
        diffx = h.diffx
        uniform = NUMPY[np.all](diffx == diffx[0])
        return where(uniform, _gradient_along(f, axis, diffx[0], edge_order, otype),
                     _gradient_nonuniform(f, axis, diffx, edge_order, otype))
    if _ndim(h) == 0:
        return _gradient_along(f, axis, h, edge_order, otype)
    return _gradient_nonuniform(f, axis, h, edge_order, otype)


def _ndim(x) -> int:
    return x.ndim if _is_array(x) else np.ndim(x)


def _require_edge_points(f, axis, edge_order):
    if f.shape[axis] < edge_order + 1:
        raise UserCodeError("ValueError: Shape of array too small to calculate a numerical "
                            "gradient, at least (edge_order + 1) elements are required.")


def _gradient_along(f, axis, h, edge_order, otype):
    """Central differences inside, one-sided ones at the two edges, each
    piece computed as NumPy does and stored in `otype` (its `out` array)."""
    _require_edge_points(f, axis, edge_order)
    n = f.shape[axis]
    at = lambda s: f[along(axis, s)]        # noqa: E731 - a slice along the axis
    inner = (at(slice(2, None)) - at(slice(None, -2))) / (2. * h)
    if edge_order == 1:
        first = (at(slice(1, 2)) - at(slice(0, 1))) / h
        last = (at(slice(n - 1, n)) - at(slice(n - 2, n - 1))) / h
    else:
        a, b, c = -1.5 / h, 2. / h, -0.5 / h
        first = a * at(slice(0, 1)) + b * at(slice(1, 2)) + c * at(slice(2, 3))
        a, b, c = 0.5 / h, -2. / h, 1.5 / h
        last = a * at(slice(n - 3, n - 2)) + b * at(slice(n - 2, n - 1)) + c * at(slice(n - 1, n))
    pieces = [astype(p, otype, copy=False) for p in (first, inner, last)]
    return concatenate(pieces, axis=axis)


def _gradient_nonuniform(f, axis, dx, edge_order, otype):
    """NumPy's formulas for coordinates spaced unevenly, `dx` their
    differences (a static NumPy array, folded while compiling, or a runtime
    one): second order inside, weighted by the neighbouring spacings."""
    _require_edge_points(f, axis, edge_order)
    n = f.shape[axis]
    at = lambda s: f[along(axis, s)]        # noqa: E731 - a slice along the axis
    dx1, dx2 = dx[0:-1], dx[1:]
    a = -(dx2) / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    a, b, c = (_along_axis(v, axis, f.ndim) for v in (a, b, c))
    inner = a * at(slice(None, -2)) + b * at(slice(1, -1)) + c * at(slice(2, None))
    if edge_order == 1:
        first = (at(slice(1, 2)) - at(slice(0, 1))) / dx[0]
        last = (at(slice(n - 1, n)) - at(slice(n - 2, n - 1))) / dx[-1]
    else:
        dx1, dx2 = dx[0], dx[1]
        a = -(2. * dx1 + dx2) / (dx1 * (dx1 + dx2))
        b = (dx1 + dx2) / (dx1 * dx2)
        c = - dx1 / (dx2 * (dx1 + dx2))
        first = a * at(slice(0, 1)) + b * at(slice(1, 2)) + c * at(slice(2, 3))
        dx1, dx2 = dx[-2], dx[-1]
        a = (dx2) / (dx1 * (dx1 + dx2))
        b = - (dx2 + dx1) / (dx1 * dx2)
        c = (2. * dx2 + dx1) / (dx2 * (dx1 + dx2))
        last = a * at(slice(n - 3, n - 2)) + b * at(slice(n - 2, n - 1)) + c * at(slice(n - 1, n))
    pieces = [astype(p, otype, copy=False) for p in (first, inner, last)]
    return concatenate(pieces, axis=axis)


def _along_axis(v, axis: int, ndim: int):
    """A 1-d array of weights shaped to broadcast along `axis` of an ndim array."""
    shape = tuple(-1 if i == axis else 1 for i in range(ndim))
    return v.reshape(shape) if isinstance(v, np.ndarray) else reshape(v, shape)


# --- ediff1d --------------------------------------------------------------------------------

@implements(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    flat = ravel(as_array(ary))
    dtype = flat.dtype
    pieces = []
    for name, extra in (("to_begin", to_begin), ("to_end", to_end)):
        if extra is None:
            pieces.append(None)
            continue
        extra = as_array(extra)
        if not np.can_cast(extra.dtype, dtype, casting="same_kind"):
            raise UserCodeError(f"TypeError: dtype of `{name}` must be compatible with input "
                                "`ary` under the `same_kind` rule.")
        pieces.append(astype(ravel(extra), dtype))
    diff = astype(flat[1:] - flat[:-1], dtype, copy=False)
    parts = [p for p in (pieces[0], diff, pieces[1]) if p is not None]
    return parts[0] if len(parts) == 1 else concatenate(parts)


# --- unwrap ---------------------------------------------------------------------------------

@implements(np.unwrap)
def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    if _is_array(period) or _is_array(discont):
        raise UnsupportedError("np.unwrap with a period or discont known only at run time",
                               hint="pass Python numbers")
    p = as_array(p)
    axis = normalize_axis(axis, p.ndim)
    dd = NUMPY[np.diff](p, axis=axis)
    if discont is None:
        discont = period / 2
    dtype = NUMPY[np.result_type](dd, period)
    if dtype.kind in "iu":
        interval_high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        interval_high, ambiguous = period / 2, True
    interval_low = -interval_high
    ddmod = emit_ufunc("remainder", dd - interval_low, period) + interval_low
    if ambiguous:       # |dd| == period/2 keeps its sign
        ddmod = where((ddmod == interval_low) & (dd > 0),
                      astype(np.asarray(interval_high), ddmod.dtype), ddmod)
    correction = ddmod - dd
    correction = where(abs(dd) < discont, astype(np.asarray(0), correction.dtype), correction)
    up = astype(p, dtype)
    rest = astype(p[along(axis, slice(1, None))] + NUMPY[np.cumsum](correction, axis=axis), dtype)
    return concatenate([up[along(axis, slice(0, 1))], rest], axis=axis)


# --- interp ---------------------------------------------------------------------------------
# NumPy's C loop per element: j = the last sample xp[j] <= x (a binary
# search); below xp[0] `left`, above xp[-1] `right`, on a sample its fp;
# else slope * (x - xp[j]) + fp[j], and from the right end if that is NaN.
# Everything in float64.

@implements(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    fp = as_array(fp)
    if fp.dtype.kind == "c":
        raise UnsupportedError("np.interp of complex fp is not supported",
                               hint="interpolate the real and imaginary parts apart")
    x, xp, fp = (astype(as_array(v), np.float64) for v in (x, xp, fp))
    if period is not None:
        x, xp, fp, left, right = _periodic(x, xp, fp, period)
    if xp.ndim != 1 or fp.ndim != 1:
        raise UserCodeError("ValueError: object too deep for desired array"
                            if max(xp.ndim, fp.ndim) > 1 else
                            "ValueError: object of too small depth for desired array")
    if xp.shape[0] != fp.shape[0]:
        raise UserCodeError("ValueError: fp and xp are not of the same length.")
    if xp.shape[0] == 0:
        raise UserCodeError("ValueError: array of sample points is empty")
    lval = fp[0] if left is None else _fill_value(left)
    rval = fp[-1] if right is None else _fill_value(right)
    n = xp.shape[0]
    if n == 1:      # NumPy's own branch: no search, a NaN x gives fp[0]
        result = where(x < xp[0], lval, where(x > xp[0], rval, fp[0]))
    else:
        result = _interpolated(x, xp, fp, lval, rval, n)
    if result.ndim == 0:
        result.immutable = True     # np.float64, as NumPy's
    return result


def _fill_value(v):
    """`left` / `right` as NumPy's C code reads them: one real number (a
    Python float, a 0-d array), never broadcast, never complex."""
    if isinstance(v, (list, tuple, str)):
        raise UserCodeError(f"TypeError: must be real number, not {type(v).__name__}")
    v = as_array(v)
    if v.ndim != 0:
        raise UserCodeError("TypeError: only 0-dimensional arrays can be converted to "
                            "Python scalars")
    if v.dtype.kind == "c":
        raise UserCodeError("TypeError: must be real number, not complex")
    return astype(v, np.float64)


def _interpolated(x, xp, fp, lval, rval, n):
    take = NUMPY[np.take]
    j = NUMPY[np.searchsorted](xp, x, side="right") - 1
    k = NUMPY[np.clip](j, 0, n - 2)
    x0, x1, y0, y1 = take(xp, k), take(xp, k + 1), take(fp, k), take(fp, k + 1)
    slope = (y1 - y0) / (x1 - x0)
    inside = slope * (x - x0) + y0
    from_right = slope * (x - x1) + y1
    inside = where(emit_ufunc("isnan", inside),
                   where(emit_ufunc("isnan", from_right) & (y0 == y1), y0, from_right), inside)
    inside = where(x0 == x, y0, inside)
    # (x == xp[-1] searches to j = n - 1: fp[-1]; past the ends left / right)
    result = where(j >= n - 1, where(x > xp[n - 1], rval, fp[n - 1]), inside)
    result = where(j < 0, lval, result)
    return where(emit_ufunc("isnan", x), x, result)


def _periodic(x, xp, fp, period):
    if _is_array(period):
        raise UnsupportedError("np.interp with a period known only at run time",
                               hint="pass a Python number")
    if period == 0:
        raise UserCodeError("ValueError: period must be a non-zero value")
    period = abs(period)
    if xp.ndim != 1 or fp.ndim != 1:
        raise UserCodeError("ValueError: Data points must be 1-D sequences")
    if xp.shape[0] != fp.shape[0]:
        raise UserCodeError("ValueError: fp and xp are not of the same length")
    x = emit_ufunc("remainder", x, period)
    xp = emit_ufunc("remainder", xp, period)
    order = NUMPY[np.argsort](xp)
    xp, fp = NUMPY[np.take](xp, order), NUMPY[np.take](fp, order)
    xp = concatenate([xp[-1:] - period, xp, xp[0:1] + period])
    fp = concatenate([fp[-1:], fp, fp[0:1]])
    return x, xp, fp, None, None


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.values import Array, known_constant  # noqa: E402
