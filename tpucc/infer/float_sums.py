"""Python's builtin sum(), added as the running CPython adds.

Since Python 3.12, sum() adds Python floats with a compensation term
(Neumaier's improved Kahan-Babuska summation): sum([1e16, 1.0, -1e16]) is
1.0, and ten 0.1s sum to 1.0; up to 3.11 both are added left to right (0.0,
0.9999999999999999).  CPython's builtin_sum_impl (Python/bltinmodule.c)
runs in up to three phases, in this order, never going back:

  int      while the total is an exact int (sum's start is 0): int and bool
           items are added (in a C long); the first other item (or an add
           past a C long) is added with `+` and ends the phase;
  float    entered only where the total is then an exact Python float:
           each exact-float item x is added with the compensation c:
               t = f + x;  c += (f - t) + x if |f| >= |x| else (x - t) + f;  f = t
           an int item (a bool too) is added to f alone, c kept; any other
           item (an np.float64, a float subclass, an array) ends the phase:
           c is added to f first, then the item with `+`;
  generic  every further item with `+`, left to right.

The float phase adds c to f when it ends (at the last item, or at an item
that leaves it) only where c is nonzero and finite: adding a zero would
lose a -0.0 total's sign, and an inf or NaN c (an overflowed total) would
turn the total into NaN.

Which phase an item takes depends on its Python type, which is static in
compiled code (a runtime Python float is a weak float64 0-d Array); only
the additions are runtime.  A value that is a Python int on some runtime
paths and a float on others (held_ints.py: `best = 0`, then `best =
float(v)` under a runtime `if`) carries where it is the int: where the int
phase goes on is then a runtime bool (Running.int_path).  One that is a
Python number on some paths and a NumPy one on others is refused where
floats would be added with a compensation on some paths only.

Every path of tpucc that sums Python values goes through `Running`: sum()
item by item, its scan over the rows a counted loop filled (fold_rows),
sum(arr.tolist()) (element_lists), and a generator whose items are added
into sum() as it runs (generator_folds).
"""
from __future__ import annotations

import math
import operator
import sys
from dataclasses import dataclass, replace

import numpy as np

from ..ops.reductions import neumaier_step
from . import held_ints
from .values import Array

# The running CPython's sum() adds floats with a compensation (3.12 on).
# The one place that tests the version: tests force either rule here.
COMPENSATED = sys.version_info >= (3, 12)

INT, FLOAT, GENERIC = "int", "float", "generic"
# After an item that is a Python int on some runtime paths and a NumPy
# number on others (held_ints.py), in the int phase: the int phase or the
# generic one, which one known at run time; a float added after it is refused.
UNSURE = "int or generic"

_C_LONG = (-2 ** 63, 2 ** 63)


@dataclass(frozen=True)
class Running:
    """sum()'s state between two items: its total so far, its phase, and
    (in the float phase) the compensation not yet added to the total."""
    total: object
    phase: str
    compensation: object = 0.0
    # Where CPython's sum() is still in its int phase: True in the int
    # phase (and in the phases the float one is not, which do not read it);
    # in the float phase a runtime bool, true on the paths where
    # every item so far was a Python int (an item that is an int on some
    # paths and a float on others: held_ints.py), or False.  There the next
    # float is added without compensation, as it ends the int phase.  (A
    # generator's runtime loop carries it from the int phase to the float
    # phase its first item begins: generator_folds.py.)
    int_path: object = False


def begin(start) -> Running:
    """The state before the first item, of sum(items, start)."""
    if _exact_int(start) and _fits_c_long(start):
        return Running(start, INT, int_path=True)
    return _after_int_phase(start, start)


def add(interp, run: Running, item) -> Running:
    """The state after adding `item`, as CPython's sum() adds it."""
    if run.phase == INT:
        total = _plus(interp, run.total, item)
        if _is_int(item) and _exact_int(total) and _fits_c_long(total):
            return replace(run, total=total)
        return _after_int_phase(total, item)
    if run.phase == FLOAT:
        if _exact_float(item) or _int_or_float(item):
            return _compensated(run, item)
        if _is_int(item) and _fits_c_long(item):
            return replace(run, total=_plus(interp, run.total, item))
        if _held(item):
            _refuse_held("floats and of")
        return Running(_plus(interp, finish(run), item), GENERIC)
    if run.phase == UNSURE and held_ints.holds_python_float(item):
        _refuse_held("a float after")
    return replace(run, total=_plus(interp, run.total, item))


def _after_int_phase(total, last) -> Running:
    """The state where the int phase ended with `last` (an item, or sum()'s
    start): the float phase where the total is a Python float, and where it
    is one on the paths where `last` was (CPython's int phase goes on on
    the others, where `last` was an int)."""
    if COMPENSATED and _int_or_float(last):
        return Running(total, FLOAT, 0.0, _where_int(last))
    if _compensating(total):
        return Running(total, FLOAT)
    # (int_path, read in the float phase only, kept: a loop need not carry it)
    return Running(total, UNSURE if COMPENSATED and _held(last) else GENERIC, int_path=True)


def finish(run: Running):
    """sum()'s result once the items are all added."""
    if run.phase != FLOAT:
        return run.total
    f, c = run.total, run.compensation
    if not isinstance(c, Array):
        return f + c if c and math.isfinite(c) else f
    from .builder import emit
    added = (c != 0) & emit("isfinite", c)
    # (where f is a Python int, a sum of no float, c is 0 and f is kept)
    return _kept_python(emit("select", added, f + c, f, weak_result=True), f)


def fold_rows(run: Running, item, rows: Array, first: int) -> Running | None:
    """The state after adding rows[first:] (a buffer a counted loop filled,
    or an array whose tolist() the items are), where each adds as `item`,
    one of them, did and leaves the phase as it was: one scan, in order.
    None where the rows must be added one by one."""
    from .builder import emit
    if run.phase == FLOAT and not _is_int(item):
        if not _exact_float(item) or run.int_path is not False:
            return None
        f, c = emit("fold_add_compensated", run.total, run.compensation, rows, first=first)
        return replace(run, total=_kept_python(f, run.total), compensation=c)
    if not isinstance(run.total, Array):
        return None
    return replace(run, total=_kept_python(emit("fold_add", run.total, rows, first=first),
                                           run.total))


def _compensated(run: Running, x) -> Running:
    """Neumaier's step: f + x, its rounding error added into c; not where
    CPython's int phase goes on (x is an int there) or ends with this add
    (the total was an int there)."""
    f, c = neumaier_step(run.total, run.compensation, x, _pick)
    uncompensated = _either(run.int_path, _where_int(x))
    if uncompensated is not False:
        c = _pick(uncompensated, run.compensation, c)
    return Running(f, FLOAT, c, _both(run.int_path, _where_int(x)))


def _pick(condition, a, b):
    if not isinstance(condition, Array):
        return a if condition else b
    from .builder import emit
    return emit("select", condition, a, b, weak_result=True)


def _either(a, b):
    return b if a is False else a if b is False else a | b


def _both(a, b):
    return False if a is False or b is False else a & b


def _kept_python(out, like):
    """An op's result, a Python number as `like` (the total) is: on every
    path, or a Python int on some (held_ints.py: sum() of a generator whose
    runtime loop may not run is 0) and a float on the others."""
    if isinstance(like, Array):
        out.immutable = like.immutable
        out.held_int, out.held_type, out.held_bool = like.held_int, like.held_type, like.held_bool
    return out


def _refuse_held(what: str) -> None:
    """Whether sum() adds a float with a compensation or not would be known
    only at run time: an item is a Python number on some runtime paths and
    a NumPy one on others."""
    from ..errors import UnsupportedError
    raise UnsupportedError(
        f"sum() of {what} an item that is a Python number on some runtime paths and a NumPy "
        "one on others: this Python's sum() adds Python floats with a compensation, and only "
        "while every item is a Python float or int, so how it adds would be chosen at run time",
        hint="make the item one type on every path: float(v) (or int(v)) where it is made, or "
             "np.float64(v) for a NumPy float on every path")


def _plus(interp, total, item):
    from . import dunders
    return dunders.apply(interp, operator.add, total, item)     # (a user __radd__)


def _compensating(total) -> bool:
    return COMPENSATED and _exact_float(total)


def _exact_float(v) -> bool:
    """A Python float on every path (not np.float64, a float subclass):
    PyFloat_CheckExact."""
    if isinstance(v, Array):
        return _python_number(v) and v.dtype == np.float64 and v.held_int is None
    return type(v) is float


def _exact_int(v) -> bool:
    """A Python int (a bool is not): PyLong_CheckExact.  (A runtime one
    that is a bool on some paths is taken for one: a sum's total, the only
    one asked about, is never a bool after an add.)"""
    if isinstance(v, Array):
        return _python_number(v) and v.dtype.kind in "iu"
    return type(v) is int


def _is_int(v) -> bool:
    """An int, a bool or an int subclass (an IntEnum) on every runtime
    path: PyLong_Check."""
    if isinstance(v, Array):
        return _python_number(v) and v.dtype.kind in "biu"
    return isinstance(v, int)


def _int_or_float(v) -> bool:
    """A Python int (or bool) on some runtime paths, a Python float on the
    others: a weak float held with its bool (held_ints.py)."""
    return isinstance(v, Array) and _python_number(v) and v.dtype == np.float64 \
        and v.held_int is not None


def _where_int(v):
    """Where `v`, a Python float or _int_or_float, is an int: a runtime bool,
    or False."""
    if not _int_or_float(v):
        return False
    where = Array(v.held_int)
    return where if v.held_bool is None else where | Array(v.held_bool)


def _held(v) -> bool:
    """A Python number on some runtime paths and a NumPy one on others
    (held_ints.py)."""
    return isinstance(v, Array) and v.held_int is not None and not _python_number(v)


def _python_number(v: Array) -> bool:
    """A runtime Python number: a weak 0-d value."""
    return v.weak and v.shape == ()


def _fits_c_long(v) -> bool:
    """An int CPython's fast paths hold in a C long: every runtime one
    (int64); a static one in its range."""
    return isinstance(v, Array) or _C_LONG[0] <= v < _C_LONG[1]
