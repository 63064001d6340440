"""Ops of the runtime checks (infer/checks.py): conditions on which NumPy
raises at run time, folded into one int32 error code.

in_bounds(i) n=N   -> bool[]: every element of the index array i lies in
                      [-N, N) (unsigned: [0, N)), as NumPy requires of an
                      index into an axis of size N.
check(code, ok) k=K -> i32[]: code, or K if ok is false and no earlier
                      check failed (code == 0): the first failure wins.
unchecked(code) k=K -> i32[]: code: check K, dropped after tracing as what
                      it guarded was never read (checks.require_if_read).
"""
from __future__ import annotations

import numpy as np
from jax import lax

from ..ir import AVal
from .registry import register

_BOOL = AVal(np.dtype(np.bool_), (), False)
_CODE = AVal(np.dtype(np.int32), (), False)


def _in_bounds_numpy(index, n):
    index = _widened(index)
    return np.all((index >= -n) & (index < n)) if index.dtype.kind == "i" else np.all(index < n)


def _widened(index):
    """A narrow index (int8, uint16) compared with an axis size it cannot hold
    (300) would overflow the constant: compare in int64, which holds both."""
    return index.astype(np.int64) if index.dtype.itemsize < 8 else index


def _in_bounds_lower(lc, index, n):
    dtype = lc.in_avals[0].dtype
    if dtype.itemsize < 8:
        index, dtype = lax.convert_element_type(index, np.int64), np.dtype(np.int64)
    ok = lax.lt(index, np.array(n, dtype))
    if dtype.kind == "i":
        ok = lax.bitwise_and(ok, lax.ge(index, np.array(-n, dtype)))
    return lax.reduce_and(ok, tuple(range(ok.ndim))) if ok.ndim else ok


register("in_bounds", lambda avals, n: _BOOL, _in_bounds_lower, numpy=_in_bounds_numpy)


def _check_lower(lc, code, ok, k):
    keep = lax.bitwise_or(ok, lax.ne(code, np.int32(0)))
    return lax.select(keep, code, np.int32(k))


register("check", lambda avals, k: _CODE, _check_lower,
         numpy=lambda code, ok, k: np.int32(code if ok or code else k))

register("unchecked", lambda avals, k: _CODE, lambda lc, code, k: code,
         numpy=lambda code, k: code)
