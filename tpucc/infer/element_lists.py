"""Python lists of an array's elements (`arr.tolist()`), reduced as the
array: sum(), max(), min(), any(), all() and list.count() of ALL of them,
in order, are one reduction over the array (a scan for float sums), not
one scalar op per item.

Input: the items of a list, as the interpreter holds them (each element a
runtime Python scalar of its own).  tolist() records which array, and which
position, each element came from (`record`); a reduction asks `source_of`
whether the items are still exactly all of them in order (a list the
program changed, sliced or extended is not, and takes the item-by-item
path).  Output: the Python-typed result the item-by-item path gives.

Why: item by item, sum(seq.tolist()) of 400 items was 400 adds, each with
its overflow check, chained: 21 s of XLA (bug 46D/01); .count(2) of 300
items, 40 s.
"""
from __future__ import annotations

import numpy as np

from . import builder
from .values import Array

# The Python type tolist() gives each dtype kind's elements (item()'s).
_PYTHON_DTYPE = {"b": np.bool_, "i": np.int64, "u": np.int64, "f": np.float64,
                 "c": np.complex128}


def record(elements: list, source: Array) -> None:
    """`elements` are the Python scalars of 1-d `source`'s items, in order
    (tolist()).  The array's Value is kept as it is now: a later write to
    the array does not change the list."""
    whole = source.var
    table = builder.ctx().list_elements
    for position, element in enumerate(elements):
        table[id(element.var)] = (element.var, whole, position)


def record_rows(rows: list, source: Array) -> None:
    """`rows` are source[0], source[1], ... of an n-d array whose tolist()
    made the nested lists of their elements (element_of)."""
    table = builder.ctx().list_rows
    for i, row in enumerate(rows):
        table[id(row.var)] = (row.var, source.var, i)


def element_of(v: Array):
    """(v's Value, the array's Value, position in it flattened) where v is
    an element tolist() made, of the array tolist() was called on (the
    outermost of nested lists); else None."""
    context = builder.ctx()
    found = context.list_elements.get(id(v.var))
    if found is None or found[0] is not v.var:
        return None
    _, whole, position = found
    while (up := context.list_rows.get(id(whole))) is not None and up[0] is whole:
        position += up[2] * int(np.prod(whole.aval.shape))
        whole = up[1]
    return v.var, whole, position


def source_of(items) -> Array | None:
    """The 1-d array (as it was at tolist()) whose elements, all of them in
    order, `items` are; else None."""
    if not items or not all(isinstance(v, Array) and v.base is None for v in items):
        return None
    table = builder.ctx().list_elements
    found = [table.get(id(v.var)) for v in items]
    if any(f is None or f[0] is not v.var for f, v in zip(found, items)):
        return None
    whole = found[0][1]
    if whole.aval.shape != (len(items),) or any(
            f[1] is not whole or f[2] != k for k, f in enumerate(found)):
        return None
    return Array(whole)


def _python_dtype(src: Array):
    return np.dtype(_PYTHON_DTYPE[src.dtype.kind])


def _as_python(interp, value: Array, dtype):
    from .builtins_impl import to_python_scalar
    return to_python_scalar(value, dtype)


def _exact_int_sum(src: Array) -> bool:
    """Whether the int64 sum of all of `src`'s elements cannot overflow
    (Python's ints would not), whatever they hold: bools and ints of up to
    32 bits (tolist() takes at most a few thousand)."""
    return src.dtype.kind == "b" or (src.dtype.kind in "iu" and src.dtype.itemsize <= 4
                                    and src.shape[0] < 2 ** 31)


def summed(interp, items, start):
    """sum(items, start), or None where `items` are not all of an array's
    elements or the one reduction would not be Python's answer (int64
    sums may overflow: each add keeps its check)."""
    import operator
    from . import dunders
    src = source_of(items)
    if src is None:
        return None
    if _exact_int_sum(src):
        total = _as_python(interp, interp.call(np.sum, [src], {"dtype": np.int64}), np.int64)
        if type(start) is int and start == 0:
            return total
        return dunders.apply(interp, operator.add, start, total)
    if src.dtype.kind in "fc":
        # in Python's order, as item by item (XLA may reorder a reduction's float adds)
        from . import float_sums
        run = float_sums.add(interp, float_sums.begin(start), items[0])
        first = run.total
        if not isinstance(first, Array) or first.shape != () \
                or first.dtype != _python_dtype(src):
            return None
        return float_sums.finish(float_sums.fold_rows(run, items[0], src, first=1))
    return None


def extreme(interp, name: str, items):
    """max(items) / min(items); None where the items are not all of an
    array's elements (or are complex: Python refuses to order them)."""
    src = source_of(items)
    if src is None or src.dtype.kind not in "biuf":
        return None
    reduce = np.max if name == "max" else np.min
    if src.dtype.kind != "f":
        return _as_python(interp, interp.call(reduce, [src], {}), _python_dtype(src))
    return _as_python(interp, _float_extreme(interp, name, src), np.float64)


def _float_extreme(interp, name: str, src: Array):
    """Python's max of floats: the first item that no later one exceeds.
    A NaN in first place stays (nothing compares greater); a NaN later is
    never picked; of equal values (0.0 and -0.0) the first is kept."""
    worst = -np.inf if name == "max" else np.inf      # (where a NaN is: never picked)
    numbers = interp.call(np.where, [interp.call(np.isnan, [src], {}), worst, src], {})
    best = interp.call(np.max if name == "max" else np.min, [numbers], {})
    first_best = interp.call(np.argmax, [interp.call(np.equal, [src, best], {})], {})
    picked = interp.call(np.take, [src, first_best], {})
    head = interp.call(np.take, [src, 0], {})
    return interp.call(np.where, [interp.call(np.isnan, [head], {}), head, picked], {})


def truth(interp, items, want_all: bool):
    """any(items) / all(items) as a Python bool: each element's truth is
    `!= 0` (a NaN is true, as in Python); None where the items are not all
    of an array's elements."""
    src = source_of(items)
    if src is None:
        return None
    nonzero = interp.call(np.not_equal, [src, 0], {})
    reduced = interp.call(np.all if want_all else np.any, [nonzero], {})
    return _as_python(interp, reduced, np.bool_)


def counted(interp, items, item):
    """items.count(item) for a Python or NumPy number `item`, compared with
    each element as Python's == compares them (in the elements' Python
    dtype); None where that is not sure or the items are not all of an
    array's elements."""
    src = source_of(items)
    if src is None:
        return None
    if item is None or isinstance(item, (str, bytes)):
        return 0        # (a number never equals them)
    if not _comparable(src, item):
        return None
    elements = interp.call(np.asarray, [src], {"dtype": _python_dtype(src)})
    hits = interp.call(np.equal, [elements, item], {})
    total = interp.call(np.sum, [hits], {"dtype": np.int64})
    return _as_python(interp, total, np.int64)


def _comparable(src: Array, item) -> bool:
    """Whether NumPy's == of the elements (in their Python dtype) and `item`
    is Python's: a number that int64 or float64 holds exactly, or a 0-d
    runtime number; ints of 64 bits against a float are left out (float64
    rounds them)."""
    if isinstance(item, Array):
        kind = item.dtype.kind
        exact = item.shape == () and kind in "biufc"
    elif isinstance(item, (bool, int, float, complex, np.number, np.bool_)):
        kind = np.asarray(item).dtype.kind
        exact = kind != "O" and not (isinstance(item, int) and not -2 ** 63 <= item < 2 ** 63)
    else:
        return False
    if src.dtype == np.uint64:
        return False
    if src.dtype.kind in "iu" and src.dtype.itemsize == 8 and kind in "fc":
        return False
    return exact
