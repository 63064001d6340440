"""Order statistics composed of other ops: np.median.

NumPy's own recipe: sort along the axis (NaN sorts last), take the middle
element or the two middle ones, and np.mean them, so the dtype rule is
np.mean's (float32 stays float32, integers give float64); a slice holding a
NaN gives NaN.  Several axes are merged into one last axis first, as NumPy
does.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, UnsupportedError
from .manipulation import along, as_array
from .registry import NUMPY, implements, normalize_axis
from .shape import moveaxis, ravel, reshape, where
from .sorting import sort


@implements(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    if out is not None:
        raise UnsupportedError("np.median(out=...) is not supported", hint="assign the result")
    a = as_array(a)
    if a.dtype.kind not in "biuf":
        raise DTypeError(f"np.median of {a.dtype} arrays is not supported",
                         hint="take the median of the real and imaginary parts apart")
    x, kept_shape = _reduced_to_last_axis(a, axis)
    n = x.shape[-1]
    ordered = sort(x, axis=-1)
    middle = ordered[along(x.ndim - 1, slice((n - 1) // 2, n // 2 + 1))]
    result = NUMPY[np.mean](middle, axis=-1)
    if a.dtype.kind == "f" and n:
        last = ordered[along(x.ndim - 1, n - 1)]
        with_nan = where(NUMPY[np.isnan](last), np.nan, result)
        with_nan.immutable = result.immutable       # np.mean's kind: a NumPy scalar if 0-d
        result = with_nan
    return reshape(result, kept_shape) if keepdims else result


def _reduced_to_last_axis(a, axis):
    """(a with the reduced axes merged into its last axis, the shape keepdims
    gives)."""
    axes = tuple(range(a.ndim)) if axis is None else (
        tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    axes = tuple(sorted({normalize_axis(ax, a.ndim) for ax in axes}))
    kept_shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
    if axis is None:
        return ravel(a), kept_shape
    x = moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
    rest = tuple(d for i, d in enumerate(a.shape) if i not in axes)
    return reshape(x, rest + (-1,)), kept_shape
