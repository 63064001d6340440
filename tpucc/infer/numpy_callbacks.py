"""NumPy functions that call the program's Python functions back
(np.apply_along_axis, np.piecewise, np.fromfunction), written in Python that the
interpreter runs as the program's own code: each callback is traced where
it is called, and the loops and selections are NumPy's semantics spelled
with operations compiled code has.  Registered in builtins_impl."""
from __future__ import annotations

import numpy as np


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """np.apply_along_axis: func1d on each 1-d slice along `axis` (a loop
    over the other axes' positions, C order, as NumPy's ndindex), the
    results stacked where the axis was (their own axes in its place), in
    the dtype of the first result, as NumPy allocates its output."""
    arr = np.asanyarray(arr)
    nd = arr.ndim
    if not -nd <= axis < nd:
        raise np.exceptions.AxisError(axis, nd)
    axis = axis % nd
    moved = np.moveaxis(arr, axis, -1)
    outer = moved.shape[:-1]
    count = 1
    for n in outer:
        count *= n
    if count == 0:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    slices = moved.reshape(count, moved.shape[-1])
    first = np.asanyarray(func1d(slices[0], *args, **kwargs))
    results = [first] + [np.asanyarray(func1d(slices[i], *args, **kwargs)).astype(first.dtype)
                         for i in range(1, count)]
    out = np.stack(results).reshape(outer + first.shape)
    # the result's own axes where `axis` was: NumPy's buff_permute
    n_out = out.ndim
    order = list(range(axis)) + list(range(n_out - first.ndim, n_out)) + \
        list(range(axis, n_out - first.ndim))
    return np.transpose(out, order)


def piecewise(x, condlist, funclist, *args, **kw):
    """np.piecewise: where each condition holds, its function of x (or its
    value); where none holds, the extra function's (one more function than
    conditions) or 0, in x's dtype, later conditions over earlier ones.  As
    NumPy's, each function gets x[cond] only, and only where that selects
    something: t / t.sum() or np.cumsum(t) see the selected elements alone.
    A runtime condition makes x[cond] a boolean-mask selection (ops/masked.py),
    on which elementwise math, reductions, len and cumsum compile; a function
    that needs more of it is refused at its line, not run on the whole of x."""
    x = np.asanyarray(x)
    n2 = len(funclist)
    if np.isscalar(condlist) or not isinstance(condlist[0], (list, np.ndarray)):
        # one condition, or (for a 0-d x) a list of scalar conditions
        condlist = condlist if x.ndim == 0 and not np.isscalar(condlist) else [condlist]
    conds = [np.asarray(c, dtype=bool) for c in condlist]
    if len(conds) == n2 - 1:
        none_held = np.zeros(np.broadcast_shapes(*(c.shape for c in conds)), dtype=bool)
        for c in conds:
            none_held = none_held | c
        conds.append(~none_held)
    elif len(conds) != n2:
        raise ValueError(f"with {len(conds)} condition(s), either {len(conds)} or "
                         f"{len(conds) + 1} functions are expected")
    y = np.zeros_like(x)
    for cond, func in zip(conds, funclist):
        if not callable(func):
            y[cond] = func
        else:
            vals = x[cond]
            if vals.size > 0:       # NumPy calls no function on an empty selection
                y[cond] = func(vals, *args, **kw)
    return y


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """np.fromfunction: `function` called once, on the index grids of
    `shape` (np.indices, in `dtype`), its result as it is."""
    if like is not None:
        raise TypeError("fromfunction() got an unexpected keyword argument 'like' "
                        "(array-like dispatch is not compiled)")
    return function(*np.indices(shape, dtype=dtype), **kwargs)
