"""Python builtins in compiled code.  Each takes the interpreter first.
Static arguments give static results (Python itself computes them); runtime
arrays give ops."""
from __future__ import annotations

import bisect
import builtins as py
import collections.abc
import contextlib
import dataclasses
import copy as copy_module
import functools
import heapq
import importlib.util
import itertools
import operator
import os
import sys
import time
import types
import warnings

import numpy as np

from ..errors import (LimitError, MergeError, SideEffectError, StaticValueError, UnsupportedError,
                      UserCodeError)
from ..ir import AVal
from ..ops.elementwise import COMPARISONS, OPERATORS, PY_BINARY, UNARY_OPERATORS
from ..ops.elementwise import copy as array_copy
from ..ops.assign import FlatIter
from ..ops.registry import result_type, static_index
from . import (builder, chosen_values, element_lists, float_sums, generator_folds, generator_runs,
               held_ints, interpreted, iterators, linalg_array_api, list_loops, messages,
               numpy_callbacks, object_copies, pure_stdlib, runtime_ranges, value_objects,
               vectorize)
from .builder import emit, emit_op
from .control import as_aval, kind_value, merged_kind, scalar_kind
from .state import dict_of_class, leaf_aval, merged_dtype, refuse_unfit_numbers
from .iterators import (MAX_NATIVE_ITEMS, RaisingTail, RangeIter, SeqIter, caught_up,
                        ended, held_iterator, is_native_iterator, note_advance,
                        refuse_outside_iterator, returning)
from .values import (CHOSEN, MISSING, Array, NeedsStatic, RuntimeKind, int_bounds, known_constant,
                     ranged_span)

BUILTINS: dict = {}
REFUSED = {
    py.open: "do file I/O outside the compiled function and pass arrays in",
    py.input: "read input outside the compiled function",
    py.exec: "dynamic code cannot be compiled ahead of time",
    py.eval: "dynamic code cannot be compiled ahead of time",
    py.compile: "dynamic code cannot be compiled ahead of time",
    py.breakpoint: "debug the function eagerly (call it without tpucc.compile)",
    py.locals: "refer to local variables by name",
    py.delattr: "compiled code cannot delete attributes",
}
# NumPy's file readers would read the file once, while compiling: the
# program would keep those values however the file changes later.
_READ_OUTSIDE = ("read the file outside the compiled function and pass the arrays in "
                 "(`params = dict(np.load(path))`, then `f(params, x)`): read while compiling, "
                 "its contents would be fixed in the program")
REFUSED.update({reader: _READ_OUTSIDE for reader in (np.load, np.loadtxt, np.genfromtxt,
                                                      np.fromfile, np.fromregex)})

# Modules whose calls act on the host (log records, threads, processes):
# run while compiling they would act once, not at every call, and they
# change their own state (locks, caches), which the program cannot replay.
_OUTSIDE = "call it outside the compiled function (a compiled call runs one XLA program)"
HOST_MODULES = {
    "logging": "log outside the compiled function, or use print(), which prints each time "
               "the compiled code runs (runtime values too)",
    "threading": _OUTSIDE, "multiprocessing": _OUTSIDE, "concurrent": _OUTSIDE,
    "subprocess": _OUTSIDE, "asyncio": _OUTSIDE,
}


def refuse_host_call(fn):
    """E100 for a function, method or class of a HOST_MODULES module."""
    module = getattr(fn, "__module__", None)
    root = module.split(".")[0] if isinstance(module, str) else None
    if root in HOST_MODULES:
        name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", "?")
        raise UnsupportedError(f"{module}.{name}() is not supported in compiled code: "
                               f"{root} acts when the program runs, and would act once, "
                               "while compiling", hint=HOST_MODULES[root])


# Clocks and entropy: evaluated while compiling, each would be one constant
# in every call.  (Methods of random.Random objects, `random.random` among
# them, are refused by calls.Interpreter.call.)
READ_ONCE = {fn: f"{fn.__module__}.{fn.__name__}" for fn in (
    time.time, time.time_ns, time.perf_counter, time.perf_counter_ns, time.monotonic,
    time.monotonic_ns, time.process_time, time.process_time_ns, time.thread_time,
    time.thread_time_ns, time.localtime, time.gmtime, time.ctime, time.asctime, os.urandom,
    os.getpid)}


def refuse_read_once(fn, what: str):
    raise UnsupportedError(f"{what}() would be evaluated once, at compile time: every call "
                           "would return that one value",
                           hint="call it outside the compiled function and pass the value in "
                                "(random numbers: draw them outside, e.g. with np.random)")


def builtin(*fns):
    def deco(impl):
        for fn in fns:
            BUILTINS[fn] = impl
        return impl
    return deco


def _runtime_int(v) -> Array:
    """A runtime bound for range(): a weak int64 scalar.  range() takes what
    has __index__, as eager Python does: an integer scalar or 0-d array, or
    a Python bool; not a 1-element array nor a NumPy bool (TypeError)."""
    if v.size != 1 or v.dtype.kind not in "iub":
        raise StaticValueError(f"range() needs an integer scalar, got an array {v.aval}",
                               hint="pass one integer value, e.g. range(int(n.sum())) or "
                                    "range(x.shape[0])")
    if v.shape:
        raise UserCodeError("TypeError: only integer scalar arrays can be converted to a "
                            "scalar index", hint="pass the element: range(n[0]) or "
                                                 "range(int(n[0]))")
    if v.dtype.kind == "b" and not v.weak:
        raise UserCodeError("TypeError: 'numpy.bool' object cannot be interpreted as an "
                            "integer", hint="convert it: range(int(flag))")
    (out,) = emit_op("convert", (v.var,), {"dtype": np.dtype(np.int64)},
                     (AVal(np.dtype(np.int64), (), True),))
    return Array(out)


@builtin(py.range)
def range_(interp, *args):
    args = tuple(map(interp.index_values, args))    # (a user object's __index__ interpreted)
    if not any(isinstance(a, Array) for a in args):
        return range(*args)
    from .calls import RuntimeRange
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (tuple(args) + (1,))[:3]
    conv = lambda v: _runtime_int(v) if isinstance(v, Array) else v  # noqa: E731
    if isinstance(step, Array):
        return _stepped_range(conv(start), conv(stop), conv(step))
    return RuntimeRange(conv(start), conv(stop), step)


def _stepped_range(start, stop, step):
    """range(start, stop, step) with a runtime step (a sieve's `range(i * i,
    n, i)`): its length, as Python computes it, at run time (ValueError
    when the step is 0), and its items counted by position."""
    from ..ops.elementwise import emit_ufunc
    from ..ops.registry import NUMPY
    from . import checks
    from .calls import RuntimeRange
    checks.require(emit_ufunc("not_equal", step, 0), "range() arg 3 must not be zero",
                   raises="ValueError")
    # (a Python int, as np.where's 0-d array is not: the items stay Python ints)
    nonzero = to_python_scalar(NUMPY[np.where](emit_ufunc("equal", step, 0), 1, step), np.int64)
    toward = emit_ufunc("sign", nonzero)
    count = emit_ufunc("maximum", emit_ufunc("floor_divide", emit_ufunc(
        "subtract", emit_ufunc("add", emit_ufunc("subtract", stop, start), nonzero), toward),
        nonzero), 0)
    return RuntimeRange(0, count, 1, iterators.Stepped(start, step))


def _range_length(r):
    """len(range(start, stop, step)) with a runtime bound, as Python computes
    it: the steps from start toward stop, rounded up, and 0 for an empty
    range; a runtime Python int.  (A runtime step made `r` a range of
    positions 0 .. count - 1 already: _stepped_range.)"""
    from ..ops.elementwise import emit_ufunc
    toward = 1 if r.step > 0 else -1
    steps = emit_ufunc("floor_divide", emit_ufunc("subtract", emit_ufunc(
        "add", emit_ufunc("subtract", r.stop, r.start), r.step), toward), r.step)
    return to_python_scalar(emit_ufunc("maximum", steps, 0), np.int64)


@builtin(py.len)
def len_(interp, x):
    if isinstance(x, (RangeIter, SeqIter)):     # (a generator, zip, map: Python's refusal)
        raise UserCodeError(f"TypeError: object of type '{iterators.type_name(x)}' has no len()",
                            hint="count the items: len(list(it)), or sum(1 for _ in it)")
    from .calls import RuntimeRange
    if isinstance(x, RuntimeRange):
        return _range_length(x)
    from ..ops import masked
    if isinstance(x, masked.Selection):
        return masked.length(x)         # the runtime number of selected rows
    if interp.is_popped_queue(x):
        return x.length(interp)         # ... of items a runtime loop left it
    interp.guard_contents(x, whole=False)
    method = interp.user_dunder(x, "__len__")
    if method is not None:
        from .calls import check_truth_result
        n = interp.inline_dunder(method, x, len)
        check_truth_result("__len__", n)        # a non-negative int, as Python checks
        return _length_as_int(n)
    return len(x)


def _length_as_int(n):
    """What len() returns of __len__'s result: its __index__ as a Python int,
    whatever integer type __len__ gave (np.int64(3), a count `(a > 0).sum()`,
    True all become a plain int, as CPython's len() does)."""
    if isinstance(n, Array):
        from . import pynumbers
        return pynumbers.index_value(n)
    return int(operator.index(n))


@builtin(py.iter)
def iter_(interp, x, *sentinel):
    if sentinel:
        raise UnsupportedError("iter(callable, sentinel) is not supported in compiled code",
                               hint="use a for or while loop")
    return interp.get_iter(x)


@builtin(py.enumerate)
def enumerate_(interp, x, start=0):
    if isinstance(start, Array):    # (its __index__, as enumerate takes it: a Python int)
        from . import pynumbers
        start = pynumbers.index_value(start, hint="convert it first: enumerate(x, int(s))")
    if interp.result_feeds_loop():
        x = interp.for_loop_items(x)       # (a held map: the loop advances it)
    if _is_runtime_range(x) and type(start) is int and interp.result_feeds_loop():
        return runtime_ranges.enumerated(x, start)
    zipped = _zip_rows(x)
    n = (len(x) if isinstance(x, range) else _rows(x)) if zipped is None else x.stop
    runtime_start = isinstance(start, Array)
    if n is not None and (type(start) is int or runtime_start):
        counts = iterators.Counting(start) if runtime_start else range(start, start + n)
        loop = rows_loop(interp, (counts, x if zipped is None else zipped))
        if loop is not None:
            return loop
    if zipped is not None:          # (a zip made for a loop: see rows_loop)
        x = _items_of(x)
    if _held(x) and not _fresh_list_iterator(x) and type(start) is int \
            and _takes_lazily(interp, (x,)):
        return enumerate(pulled_lazily(interp, x), start)   # next(e) takes one item of x
    if type(start) is int and isinstance(x, SeqIter) and type(x.items) is tuple and (
            _fresh_list_iterator(x) or _held(x) and interp.result_feeds_loop()):
        return _enumerated_in_step(caught_up(x), start)
    return interp.live_iter(x, start=start, held=not interp.result_feeds_loop())


def _enumerated_in_step(x: SeqIter, start: int) -> SeqIter:
    """enumerate(x) advancing x as the loop takes each item (its cursor):
    `for i, v in enumerate(gen)` left by a `break` leaves the rest of gen,
    and enumerate(reversed(hs)) reads the list as that iterator does, when
    the loop gets to each item."""
    first = x.pos
    read = None if x.read is None else (lambda pos: (start + pos - first, x.read(pos)))
    return SeqIter(tuple((start + pos - first, item) for pos, item in enumerate(x.items)),
                   first, x.source, x.stamp, read, x.follows_length, x.cursor, "enumerate")


def _fresh_list_iterator(x) -> bool:
    """An iterator over a list (or a zip of lists) that reads it live
    (interp.live_iter, _live_zip), not yet advanced."""
    return isinstance(x, SeqIter) and (type(x.source) is list or isinstance(
        x.source, iterators.Zipped)) and x.read is not None and \
        x.pos == 0 and (x.cursor is None or x.cursor.pos == 0) and type(x.items) is tuple


def _items_of(zipped: RangeIter):
    """A zip made for a loop (rows_loop) that its consumer did not loop
    over: its items, as zip would have made them."""
    return held_iterator(tuple(it.item() for it in _positions(zipped)))


def _zip_rows(x):
    """The parts of a zip over arrays made by rows_loop (a RangeIter), else None."""
    if isinstance(x, RangeIter) and isinstance(x.rows, tuple) and x.is_static() \
            and x.pos == 0 and x.step == 1:
        return x.rows
    return None


def _positions(it: RangeIter) -> list:
    out = []
    while it.remaining() > 0:
        out.append(it)
        it = it.advanced()
    return out


@builtin(py.zip)
def zip_(interp, *xs, strict=False):
    if interp.result_feeds_loop(through_enumerate=True):
        xs = tuple(map(interp.for_loop_items, xs))     # (a held map: the loop advances it)
    parts = tuple(x if _zip_rows(x) is None else _zip_rows(x) for x in xs)   # zip(a, zip(b, c))
    # (A tuple among rows_loop's parts is a nested zip's: the program's own
    # tuples, `zip(params, grads)` over tuples of arrays, zip as sequences.)
    loop = None if strict or any(isinstance(x, tuple) for x in xs) else \
        rows_loop(interp, parts, through_enumerate=True)
    if loop is not None:
        return loop
    if not strict and _many_rows(interp, xs) and interp.result_is_argument(itertools.starmap, 2):
        # starmap(f, zip(a, b)) is map(f, a, b): its loop over the rows' indices
        return RangeIter(0, min(len(x) for x in xs), 1, rows=xs)
    from .calls import RuntimeRange
    if any(isinstance(x, RuntimeRange) for x in xs) and len(xs) > 1:
        raise StaticValueError(
            "zip() of a range with a runtime length and other sequences: the pairs it makes "
            "are needed at compile time", hint="loop over the range alone and index the "
                                              "rest in the body: `for i in range(min(n, "
                                              "len(x))): v = x[i]` is a runtime `while`")
    xs = tuple(x if _zip_rows(x) is None else _items_of(x) for x in xs)
    if strict:
        return made_iterator(interp, zip(*(interp.static_items(x) for x in xs), strict=True),
                             kind="zip")
    if any(type(x) is list for x in xs) and all(type(x) in (list, tuple, range) for x in xs):
        return _live_zip(interp, xs)
    if interp.result_feeds_loop(through_enumerate=True):
        in_step = _zip_in_step(interp, xs)
        if in_step is not None:
            return in_step
    if _takes_lazily(interp, xs) and any(_held(x) or isinstance(x, Array) for x in xs):
        return zip(*_lazy_parts(interp, xs))       # zip(it, it); a held zip(x, ...)
    return made_iterator(interp, _zipped(interp, xs), kind="zip")


def _zip_in_step(interp, xs) -> SeqIter | None:
    """`for u, v in zip(gen, xs)`: the items of the one iterator the program
    holds paired with the other arguments' items, advancing it as the loop
    takes each pair (its cursor), so a `break` leaves the rest of it as
    Python's zip does.  None where another argument is an iterator too, or
    where Python's zip, ending at a shorter argument after it, would take
    one more item of it than it pairs."""
    held = [x for x in xs if _held(x)]
    if len(held) != 1 or type(held[0].items) is not tuple:
        return None
    others = [x for x in xs if x is not held[0]]
    if not all(type(x) in (list, tuple, range) or _rows(x) is not None for x in others):
        return None
    it = caught_up(held[0])
    first, rest = it.pos, len(it.items) - it.pos
    columns = [interp.static_items(x) for x in others]
    pairs = min([rest] + [len(c) for c in columns])
    if pairs < rest and xs[-1] is not held[0]:
        return None
    columns = iter(columns)
    parts = [it.items[first:first + pairs] if x is held[0] else next(columns)[:pairs]
             for x in xs]
    return SeqIter((None,) * first + tuple(zip(*parts)), first, cursor=it.cursor, kind="zip")


def made_iterator(interp, items, **fields) -> SeqIter:
    """The iterator a builtin makes (zip, map, filter): the loop's alone
    where the call's result goes straight to a `for` (no variable holds
    it: iterators.loop_iterator), else one the program may keep."""
    make = iterators.loop_iterator if interp.result_feeds_loop() else held_iterator
    return make(items, **fields)


def _live_zip(interp, xs) -> SeqIter:
    """zip() of lists (and tuples, ranges): each list read when the loop gets
    to its item, as zip's list iterators read it (a body that rebinds a
    later item sees it, one that appends reaches the new items)."""
    parts = [interp.live_iter(x) for x in xs]
    lists = tuple(x if type(x) is list else None for x in xs)
    fixed = min([len(p.items) for p, x in zip(parts, lists) if x is None], default=sys.maxsize)

    def read(pos):
        return tuple(p.read(pos) if p.read is not None else p.items[pos] for p in parts)
    return made_iterator(interp, tuple(zip(*(p.items for p in parts))),
                         source=iterators.Zipped(lists, fixed),
                         stamp=tuple(p.stamp if p.read is not None else None for p in parts),
                         read=read, follows_length=True, kind="zip")


def rows_loop(interp, parts, through_enumerate=False) -> RangeIter | None:
    """`for i, x in enumerate(xs)` or `for x, y in zip(xs, ys)` over arrays
    (and static ranges): a loop over the row indices, as `for x in xs` is
    (interpreter.GET_ITER), so a long one is one counted While and a runtime
    `break` leaves it.  Only where the call's result goes straight to the
    loop (the next instruction is GET_ITER; for a zip, also an enumerate
    whose result does: `for i, (x, y) in enumerate(zip(xs, ys))`): no one
    else holds that iterator to see where the loop left it.  A part may be
    such a zip's parts (a tuple), giving a tuple item.  None otherwise."""
    if not parts or not any(isinstance(p, (Array, tuple, range)) for p in parts) or \
            not interp.result_feeds_loop(through_enumerate):
        return None
    lengths = [_length(p) for p in parts if not isinstance(p, iterators.Counting)]
    if not lengths or any(n is None for n in lengths):
        return None
    return RangeIter(0, min(lengths), 1, rows=tuple(parts))


def _length(part):
    if isinstance(part, range):
        return len(part)
    if isinstance(part, tuple):     # a zip's parts
        lengths = [_length(p) for p in part if not isinstance(p, iterators.Counting)]
        return None if not lengths or None in lengths else min(lengths)
    return _rows(part)


def _rows(x):
    """The number of rows of an array (with a static length), else None."""
    if isinstance(x, Array) and x.ndim > 0 and isinstance(x.shape[0], int):
        return x.shape[0]
    return None


_END = object()


def _zipped(interp, xs) -> list:
    """zip's tuples, taking one item of each argument in turn as Python's
    zip does: an iterator given twice advances twice (zip(*[iter(a)] * 2)
    pairs neighbours), and a native iterator (itertools.count()) is read
    only as far as the shortest argument."""
    pulls = [_puller(interp, x) for x in xs]
    rows = []
    while pulls:
        row = []
        for pull in pulls:
            try:
                item = pull()
            except UserCodeError as e:  # a generator's exception: where the loop gets to it
                return RaisingTail(rows, e)
            if item is _END:
                return rows
            row.append(item)
        rows.append(tuple(row))
        if len(rows) > MAX_NATIVE_ITEMS:
            raise LimitError("zip() of endless iterators", hint="bound one of them")
    return rows


def _puller(interp, x, conditional=lambda: False):
    """A function giving x's next item (or _END), as next() on iter(x) would.
    `conditional()`: whether the consumer asks for this item only where a
    runtime value before it did not stop it (any() past a runtime truth
    value), so that a held iterator's item is taken under a runtime
    condition."""
    x = interp.resumed(x)
    if isinstance(x, SeqIter):
        state = [x]

        def pull_held():
            iterators.refuse_advance_in_loop(state[0])
            it = iterators.read_again_if_changed(caught_up(state[0]))
            depth = builder.ctx().runtime_depth + bool(conditional())
            if not isinstance(it.pos, int) or it.pos >= len(it.items):
                if isinstance(it.pos, int) and depth == builder.ctx().runtime_depth:
                    ended(it)
                elif isinstance(it.pos, int):       # (its end met only where the run gets there)
                    iterators.past_end(it.items)
                    note_advance(it.at(len(it.items)), depth)
                return _END
            state[0] = it.advanced()
            note_advance(state[0], depth)
            return it.items[it.pos]
        return pull_held
    if is_native_iterator(x):
        refuse_outside_iterator(x)
        return lambda: next(x, _END)
    it = interp.user_iterator(x)
    if it is not None:              # a user iterator: its __next__ called for each item only
        method = interp.user_dunder(it, "__next__")
        if method is None:
            return _puller(interp, it)      # what a user container's __iter__ gives
        return lambda: _END if (item := interp.next_item(it, method)) is MISSING else item
    items = iter(interp.static_items(x))
    return lambda: next(items, _END)


def pulled_lazily(interp, x):
    """A real (native) iterator over x's items, each taken from x only when
    the native code holding it asks for it (_puller): islice(it, 2) leaves
    the rest of `it`, and an item is read as it is when it is taken."""
    return _pulled(_puller(interp, x), _PullSite())


def _pulled(pull, where):
    while True:
        where.check()
        item = pull()
        if item is _END:            # (not iter(pull, _END): that compares with ==)
            return
        yield item


class _PullSite:
    """Where a lazy native iterator (pulled_lazily) is advanced: under a
    runtime condition it may advance on one path and not another, which a
    Python iterator cannot follow, so it may be advanced there (the items
    one consumer takes) but not again elsewhere."""
    __slots__ = ("depth", "region")

    def __init__(self):
        self.depth, self.region = builder.ctx().runtime_depth, None

    def check(self):
        c = builder.ctx()
        here = c.region if c.runtime_depth > self.depth else None
        if self.region is None:
            self.region = here
        elif here is not self.region:
            raise StaticValueError(
                "this iterator was advanced under a runtime condition (in a runtime `if` "
                "or loop), so where it stands is known only at run time",
                hint="consume it before the runtime `if` or loop (items = list(it)) and "
                     "index the list there")


def _held(x) -> bool:
    """An iterator the program holds (a variable may reach it): made by
    iter(), a generator, a held zip or map."""
    return isinstance(x, SeqIter) and x.cursor is not None


def _lazy_parts(interp, xs) -> list:
    """Native iterators over xs, each item taken when asked for, as the
    iterators zip() or map() make at the call would give it."""
    return [interp.library_iterator(interp.get_iter(x)) for x in xs]


def _takes_lazily(interp, xs) -> bool:
    """Whether zip/map/enumerate/filter over xs must take their items when
    consumed, not when made: the result is held (not straight in a `for`),
    over an iterator the program holds too (what it takes from that is
    left to the program), or over an array or list written before the
    result is consumed."""
    return not interp.result_feeds_loop() and any(
        _held(x) or isinstance(x, Array) or type(x) is list for x in xs)


@builtin(py.reversed)
def reversed_(interp, x):
    from .calls import RuntimeRange
    if isinstance(x, (RangeIter, SeqIter)):     # (an iterator has no __reversed__ nor len)
        raise UserCodeError(f"TypeError: '{iterators.type_name(x)}' object is not reversible",
                            hint="make a list of it first: reversed(list(it))")
    if isinstance(x, RuntimeRange):
        return _reversed_range(x)
    if isinstance(x, collections.abc.Iterator) and type(x).__module__ in ("builtins", "itertools"):
        # (a held map or zip, a generator: Python's own iterators)
        raise UserCodeError(f"TypeError: '{type(x).__name__}' object is not reversible",
                            hint="make a list of it first: reversed(list(it))")
    method = interp.user_dunder(x, "__reversed__")
    if method is not None:          # Python asks for it before __len__ and __getitem__
        return interp.inline_dunder(method, x, reversed)   # (what it returns, as Python does)
    if (isinstance(x, range) or _rows(x) is not None) and interp.result_feeds_loop():
        # `for i in reversed(range(n))`, `for r in reversed(xs)`: a loop over
        # the indices backward (a long one: one counted While), as for x[::-1]
        if isinstance(x, range):
            back = x[::-1]
            return RangeIter(back.start, back.stop, back.step)
        return RangeIter(x.shape[0] - 1, -1, -1, rows=x)
    return interp.live_iter(x, backward=True, held=not interp.result_feeds_loop())


def _reversed_range(r):
    """reversed(range(start, stop, step)) with runtime bounds: the range from
    its last item back past its first, `step` negated (runtime arithmetic on
    weak int64 scalars; an empty range stays empty)."""
    from ..ops.elementwise import emit_ufunc
    start, step = r.start, r.step
    count = runtime_ranges.length(r)
    last = emit_ufunc("add", start, emit_ufunc("multiply", emit_ufunc("subtract", count, 1), step))
    before_first = emit_ufunc("subtract", start, step)
    from .calls import RuntimeRange
    return RuntimeRange(last, before_first, -step, r.rows)   # (a runtime step: its items)


@builtin(py.sorted)
def sorted_(interp, x, *rest, key=None, reverse=False):
    if rest:            # (key and reverse are keyword-only)
        raise UserCodeError(f"TypeError: sorted expected 1 argument, got {1 + len(rest)}",
                            hint="pass the key by name: sorted(items, key=f)")
    items = interp.static_items(x)
    if key is None and len(items) > 1 and any(isinstance(v, Array) for v in items):
        return interp.fresh(_sorted_runtime(items, reverse))
    if type(key) is _CMP_KEY and len(items) > 1 and any(map(holds_array, items)):
        raise _sorted_refusal()     # (its comparisons would call cmp on runtime values)
    keys = [interp.call(key, [v], {}) for v in items] if key is not None else items
    if len(keys) > 1 and key is not None and any(isinstance(k, Array) for k in keys):
        return interp.fresh(_sorted_by_runtime_keys(items, keys, reverse))
    from . import dunders
    # the user's __lt__, interpreted; tuples holding arrays compared as Python
    # does, item by item: sorted(params.items()) is decided by the static names
    holding = len(keys) > 1 and any(type(k) in (tuple, list) and holds_array(k) for k in keys)
    compared = keys
    if holding or any(map(dunders.involves_user, keys)):
        wrap = dunders.sort_key(interp)
        compared = [wrap(k) for k in keys]
    try:
        order = sorted(range(len(items)), key=compared.__getitem__, reverse=reverse)
    except NeedsStatic:
        if holding:
            raise _sorted_sequences_refusal(keys) from None
        objects = [k.value for k in compared if dunders.involves_user(k.value)] \
            if compared and isinstance(compared[0], dunders.SortKey) else []
        if not objects:
            raise
        raise _sorted_objects_refusal(objects, key is not None) from None
    return interp.fresh([items[i] for i in order])


# functools.cmp_to_key(cmp)'s type: native code that calls cmp on the items
_CMP_KEY = type(functools.cmp_to_key(operator.sub))


def _sorted_refusal() -> StaticValueError:
    return StaticValueError(
        "sorted() of runtime values would compare them at compile time; it compiles only "
        "for runtime real scalars of one type, and with key= giving those, for items that are "
        "numbers of one type (sorted(range(n), key=lambda i: abs(A[i, k])))",
        hint="sort them as an array: np.sort(np.array(items)), or order other values by "
             "np.argsort(np.array(keys))")


def _sorted_objects_refusal(objects, by_key: bool) -> StaticValueError:
    """Sorting objects whose `<` (the user's __lt__, interpreted) compares
    runtime values: the order, and so which object lands where, would be
    known only at run time."""
    from .calls import user_class_of
    classes = sorted({user_class_of(v) for v in objects}, key=lambda c: c.__name__)
    names = [c.__name__ for c in classes]
    method = f" ({names[0]}.__lt__)" if "__lt__" in vars(classes[0]) else ""
    return StaticValueError(
        f"sorting {' and '.join(names)} objects{' (the keys)' if by_key else ''}: their "
        f"`<`{method} compares runtime values here, so their order would be known only at "
        "run time",
        hint="sort by a static key (key=lambda o: o.name, a value not computed from arrays); "
             "or keep the runtime values in an array and sort that: "
             "np.sort(np.array([o.w for o in objs])), or take their order from np.argsort")


def _sorted_sequences_refusal(keys) -> StaticValueError:
    """The refusal of sorted() whose tuple or list keys hold runtime items
    that decide the order.  Its hint must give the lexicographic order:
    np.argsort(np.array(keys)) would sort each key's items on their own
    (a 2-D array's rows); np.lexsort sorts by its last key first, hence
    the columns reversed."""
    kinds = sorted({type(k).__name__ + "s" for k in keys if type(k) in (tuple, list)})
    return StaticValueError(
        "sorted() of runtime values would compare them at compile time: some of these "
        f"{' and '.join(kinds)} are told apart only by their runtime items (Python compares "
        "them item by item, up to the first that differs)",
        hint="order them by a static item (key=lambda t: t[0], where those items are "
             "distinct names or numbers), or, for keys of runtime numbers all of one length, "
             "sort them as the rows of an array, first column first: "
             "order = np.lexsort(np.array(keys).T[::-1]) (stable, as sorted() is)")


def _sorted_runtime(items, reverse):
    """sorted() of runtime scalars of one type: np.sort of them as one array
    (stable, as Python's sort is: 0.0 and -0.0 keep their order), taken
    apart again.  reverse=True is CPython's: the items reversed, sorted,
    and reversed back, so that equal items keep their order too."""
    from ..ops.registry import NUMPY
    items = _with_runtime_numbers(items)
    if not _one_runtime_type(items):
        raise _sorted_refusal()
    first = items[0]
    stacked = NUMPY[np.stack](list(items))
    if first.dtype.kind == "f":
        _require_no_nan_to_sort(stacked)
    if reverse:
        ordered = NUMPY[np.flip](NUMPY[np.sort](NUMPY[np.flip](stacked)))
    else:
        ordered = NUMPY[np.sort](stacked)
    return _taken_apart(ordered, first)


def _taken_apart(ordered: Array, first: Array) -> list:
    """The items of a sorted 1-d array as scalars of the kind `first` is."""
    from ..ops.indexing import getitem
    out = []
    for i in range(len(ordered)):
        v = getitem(ordered, i)
        if first.weak:                  # Python numbers (x.tolist()) stay Python numbers
            v = to_python_scalar(v, first.dtype)
        v.immutable = first.immutable
        out.append(v)
    return out


def _sorted_by_runtime_keys(items, keys, reverse):
    """sorted(items, key=f) whose keys are runtime real scalars of one type
    (a pivot order, `sorted(range(n), key=lambda i: abs(A[i, k]))`): the
    items permuted by the keys' stable argsort (Python's sort is stable),
    so each place holds a runtime pick among them.  That needs items of
    one kind: static numbers of one type (a range's indices) or runtime
    scalars of one type; other items are refused.  reverse=True is
    CPython's: the items reversed, sorted, reversed back."""
    from ..ops.registry import NUMPY
    keys = _with_runtime_numbers(keys)
    items = _as_runtime_items(items)
    if not _one_runtime_type(keys) or items is None:
        raise _sorted_refusal()
    stacked = NUMPY[np.stack](list(keys))
    if keys[0].dtype.kind == "f":
        _require_no_nan_to_sort(stacked)
    last = len(keys) - 1
    if reverse:
        order = NUMPY[np.flip](last - NUMPY[np.argsort](NUMPY[np.flip](stacked), kind="stable"))
    else:
        order = NUMPY[np.argsort](stacked, kind="stable")
    picked = NUMPY[np.take](NUMPY[np.stack](list(items)), order)
    return _taken_apart(picked, items[0])


def _as_runtime_items(items):
    """The items to sort as runtime scalars of one type (static Python ints
    or floats made constants of their kind), or None where they are not."""
    if not any(isinstance(v, Array) for v in items):
        kind = type(items[0])
        if kind not in (int, float) or any(type(v) is not kind for v in items) or \
                kind is int and not all(-2 ** 63 <= v < 2 ** 63 for v in items):
            return None
        items = [Array(builder.const_value(v)) for v in items]
    items = _with_runtime_numbers(items)
    return items if _one_runtime_type(items) else None


def _one_runtime_type(items) -> bool:
    """Whether items (after _with_runtime_numbers) are what _sorted_runtime
    sorts: runtime real scalars of one type."""
    first = items[0]
    return all(isinstance(v, Array) and v.shape == () and v.aval == first.aval
               and v.immutable is first.immutable for v in items) and first.dtype.kind != "c"


def _require_no_nan_to_sort(stacked: Array) -> None:
    """Python's sort compares with `<`, False both ways around a NaN, so
    where a NaN ends up (and what is sorted around it: sorted([2.0, nan,
    1.0]) is unchanged) follows from the order timsort happens to compare
    in, which compiled code does not replay: a NaN raises when the call
    returns, instead of an order eager Python would not give."""
    from ..ops.registry import NUMPY
    from . import checks
    has_nan = NUMPY[np.any](emit("isnan", stacked))
    checks.require(emit("logical_not", has_nan),
                   "sorted() (or list.sort()) of floats holding NaN: Python's order around a "
                   "NaN follows from its sort algorithm's comparisons (all False with a NaN), "
                   "which compiled code does not replay", raises="ValueError", tpucc_limit=True,
                   hint="sort them as an array, np.sort(a), which puts NaN last (or replace "
                        "the NaNs first: np.where(np.isnan(a), np.inf, a))")


def _with_runtime_numbers(items):
    """Static numbers among runtime numbers of their type as runtime ones of
    the same kind: Python numbers among Python numbers known at run time (a
    list from x.tolist(), then `.append(5.0)`), NumPy scalars among NumPy
    scalars of their dtype (`sorted([np.float32(0.5), x[0], x[1]])`)."""
    model = next(v for v in items if isinstance(v, Array))
    if model.shape:
        return items
    if model.weak:
        kind = {"f": float, "i": int}.get(model.dtype.kind)
        # (an int beyond int64 stays static: no runtime Python int holds it)
        alike = lambda v: type(v) is kind and (kind is float or -2 ** 63 <= v < 2 ** 63)  # noqa
    else:
        alike = lambda v: (isinstance(v, np.generic) and v.dtype == model.dtype  # noqa: E731
                           and model.immutable is True)     # (not among 0-d arrays)
    return [_number_like(builder.const_value(v), model) if alike(v) else v for v in items]


def _number_like(value, model: Array) -> Array:
    out = Array(value)
    out.immutable = model.immutable
    return out


@builtin(itertools.tee)
def tee_(interp, iterable, n=2):
    """itertools.tee: n iterators over the same items, each of its own."""
    items = interp.static_items(interp.get_iter(iterable))
    return tuple(iterators.held_iterator(items) for _ in range(n))


def _run_as_python(definition):
    """A NumPy function that calls the program's functions back, run as its
    Python `definition` (numpy_callbacks.py), interpreted."""
    def impl(interp, *args, **kwargs):
        return interp.call(definition, list(args), kwargs)
    return impl


@builtin(vectorize.first_result_dtype)
def first_result_dtype_(interp, pyfunc, firsts):
    """np.vectorize's output dtype: that of f's result on the first
    elements, refused where f's runtime branches return values of different
    dtypes (control.dtype_varies): which one NumPy takes depends on the
    first element's value, and compiled code's dtype is fixed."""
    result = interp.call(pyfunc, list(firsts), {})
    if isinstance(result, Array) and result.dtype_varies:
        raise MergeError(
            "np.vectorize gives its output the dtype of f's result on the first elements, and "
            "here a runtime branch of f decides that dtype (f returns values of different "
            f"types on different paths; compiled code would give {result.dtype} for all): it "
            "would be known only at run time",
            hint="give the output dtype: np.vectorize(f, otypes=[np.float64]), or make f return "
                 "one type on every path (float(v), 0.0 and 1.0)")
    return result.dtype if isinstance(result, Array) else np.asarray(result).dtype


BUILTINS[np.apply_along_axis] = _run_as_python(numpy_callbacks.apply_along_axis)
BUILTINS[np.piecewise] = _run_as_python(numpy_callbacks.piecewise)
BUILTINS[np.fromfunction] = _run_as_python(numpy_callbacks.fromfunction)
def _run_heapq(python, name: str):
    """A heapq function, interpreted, whose refusals inside heapq's own code
    (its sift loops index and assign the heap at positions that compare
    runtime priorities) say what the program did: made a heap whose order
    depends on runtime values."""
    def impl(interp, *args, **kwargs):
        from . import popped_queues
        if args and isinstance(args[0], popped_queues.PoppedQueue):
            return popped_queues.heapq_call(interp, name, list(args))
        try:
            return interp.call(python, list(args), kwargs)
        except SideEffectError as e:
            if e.loc is not None or not getattr(e, "program_container", False) or \
                    not _raised_in_heapq(e):
                raise
            refusal = SideEffectError(
                f"heapq.{name} {interp.region_name()} is not supported (a loop whose test is "
                "runtime is one, and so is an iteration after a runtime `break` or `return`): "
                "how many items the heap holds would be known only at run time",
                hint=e.hint)
            popped = getattr(e, "popped", None)
            if name == "heappop" and popped is not None and args and popped[0] is args[0]:
                refusal.popped = (args[0], ("heappop", ()))  # (popped_queues)
            raise refusal from None
        except StaticValueError as e:
            if e.loc is not None or not _raised_in_heapq(e):
                raise           # (the program's own key function, at its line)
            raise StaticValueError(
                f"heapq.{name} on items whose order depends on runtime values (a heap of "
                "runtime priorities) is not supported: which item goes where in the heap would "
                "be known only at run time", hint=_RUNTIME_HEAP_HINT) from None
    return impl


_RUNTIME_HEAP_HINT = (
    "keep the pending priorities in an array and take the smallest with np.argmin "
    "(`k = np.argmin(times); times[k] = np.inf` pops item k); for nsmallest/nlargest/merge "
    "use np.sort or np.argsort of an array (np.sort(a)[:n], np.argsort(a)[:n])")


def _raised_in_heapq(e) -> bool:
    where = getattr(e, "library_line", "") or ""
    return where.startswith(("heapq.py:", "pure_stdlib.py:"))


def _keyed_bisect(python):
    """bisect_left/right(a, x, key=f) over a list or tuple with a runtime x:
    the halving picks the item a[mid] at a runtime position, which a list
    of items that do not stack into one array ((time, 'name') tuples)
    cannot give; the list of keys can, and bisecting it gives the same
    position (bisect compares key(a[mid]) < x, and never a[mid] itself)."""
    def impl(interp, a, x, lo=0, hi=None, *, key=None):
        if key is not None and type(a) in (list, tuple) and holds_array(x):
            keys = [interp.call(key, [item], {}) for item in a]
            return interp.call(python, [keys, x, lo, hi], {})
        return interp.call(python, [a, x, lo, hi], {"key": key})
    return impl


for _native, _python in pure_stdlib.python_versions().items():    # bisect, heapq
    if _native in (bisect.bisect_left, bisect.bisect_right):
        BUILTINS[_native] = _keyed_bisect(_python)
    elif _native.__module__ in ("heapq", "_heapq"):
        BUILTINS[_native] = _run_heapq(_python, _native.__name__)
    else:
        BUILTINS[_native] = _run_as_python(_python)
def _first_of_sorted(python, name: str):
    """heapq.nsmallest(n, items) / nlargest of runtime numbers: Python
    documents them as sorted(items)[:n] / sorted(items, reverse=True)[:n]
    (ties in the same order), and sorted() of runtime numbers of one type
    compiles (one np.sort); other items (tuples, a key=) run heapq's own code."""
    heap = _run_heapq(python, name)

    def impl(interp, n, iterable, key=None):
        if key is not None or type(n) is not int or not (
                type(iterable) in (list, tuple) or isinstance(iterable, Array)):
            return heap(interp, n, iterable, key=key)   # (an iterator: taken by heapq's code)
        items = interp.static_items(iterable)
        if len(items) < 2 or not any(isinstance(v, Array) for v in items):
            return heap(interp, n, iterable, key=key)
        items = _with_runtime_numbers(items)
        if not _one_runtime_type(items):
            return heap(interp, n, iterable, key=key)
        if n <= 0:
            return interp.fresh([])
        ordered = _sorted_runtime(items, reverse=name == "nlargest")
        return interp.fresh(ordered[:n])
    return impl


for _name in ("nsmallest", "nlargest"):     # (Python functions in heapq.py)
    BUILTINS[getattr(heapq, _name)] = _first_of_sorted(
        pure_stdlib.python_function("heapq", _name), _name)
BUILTINS[heapq.merge] = _run_heapq(pure_stdlib.heapq_merge, "merge")
for _name in ("svdvals", "trace", "diagonal", "outer", "matmul", "vecdot", "cross", "tensordot",
              "tensorinv", "tensorsolve"):
    BUILTINS[getattr(np.linalg, _name)] = _run_as_python(getattr(linalg_array_api, _name))


@builtin(np.einsum_path)
def einsum_path_(interp, subscripts, *operands, **kwargs):
    """np.einsum_path: the contraction order and its report depend on the
    operands' shapes only, so NumPy's own answer for stand-ins of them."""
    stand_ins = [np.zeros(x.shape, x.dtype) if isinstance(x, Array) else x for x in operands]
    return np.einsum_path(subscripts, *stand_ins, **kwargs)


@builtin(itertools.chain.from_iterable)
def chain_from_iterable(interp, iterables):
    """itertools.chain.from_iterable(rows): chain(*rows), as compiled code
    makes that (the bound classmethod hashes alike at every access)."""
    return interp.call(itertools.chain, list(interp.static_items(iterables)), {})


@builtin(py.list)
def list_(interp, x=()):
    return interp.fresh(list(interp.static_items(x)))


@builtin(py.tuple)
def tuple_(interp, x=()):
    return tuple(interp.static_items(x))


@builtin(py.tuple.__new__)
def tuple_new(interp, cls, x=()):
    """tuple.__new__(cls, items): what namedtuple's _make calls.  A tuple
    holds runtime values as they are: its items are read here, as tuple()
    reads them."""
    if not isinstance(cls, type) or not issubclass(cls, tuple):
        return tuple.__new__(cls, x)        # (Python's TypeError)
    return tuple.__new__(cls, interp.static_items(x))


@builtin(py.map)
def map_(interp, fn, *xs):
    if _many_rows(interp, xs) and _consumed_where_made(interp):
        # (the generator that runs it stands for the map object)
        return _kind_named(interp.call(interpreted.mapped, [fn, *xs], {}), "map")
    if not interp.result_feeds_loop():
        # `m = map(f, xs)`: f called as each item is taken (f reads the variables
        # it closes over then, and the list's items then)
        return map(lambda *args: interp.call(fn, list(args), {}), *_lazy_parts(interp, xs))
    return made_iterator(interp, (interp.call(fn, list(args), {}) for args in _zipped(interp, xs)),
                         kind="map")


# Calls that read an iterator they are given to its end
_CONSUMERS = (py.list, py.tuple, py.set, py.sorted, py.sum, py.min, py.max, py.any, py.all)


def _consumed_where_made(interp) -> bool:
    """Whether the iterator the call being made returns is read right where
    it is made (it goes straight to a `for` or to list(), sum(), ...), so
    nothing writes the arrays it reads between: its items may all be read
    at once, by one While (a held one takes each row when asked for it, as
    Python's does, and sees writes made before)."""
    return interp.result_feeds_loop() or any(interp.result_is_argument(c, 1)
                                             for c in _CONSUMERS)


def _kind_named(made, kind: str):
    """The generator that runs a builtin's loop (interpreted.py), named as
    the builtin's iterator (type(m).__name__, messages)."""
    return dataclasses.replace(made, kind=kind) if isinstance(made, SeqIter) else made


def _many_rows(interp, xs) -> bool:
    """Whether `xs` are arrays of more rows than the unroll budget: a loop
    over them is better one While (interpreted.py)."""
    budget = interp.ctx.options.get("unroll", 32)
    return bool(xs) and all(isinstance(x, Array) and x.ndim and len(x) > budget for x in xs)


@builtin(itertools.accumulate)
def accumulate_(interp, iterable, func=None, *, initial=None):
    """itertools.accumulate: over an array of many rows, the program's own
    loop (interpreted.py), which a long one makes one While (stepped item
    by item, 300 rows were 300 chained ops, seconds of XLA); else the
    library's, calling `func` back interpreted."""
    if _many_rows(interp, (iterable,)):
        return interp.call(interpreted.accumulated, [iterable, func, initial], {})
    return interp.construct(itertools.accumulate, [iterable, func],
                            {} if initial is None else {"initial": initial})


@builtin(itertools.starmap)
def starmap_(interp, fn, iterable):
    """itertools.starmap: over many items holding arrays (`zip(a, b)` of
    500 rows), the program's own loop (interpreted.py), which makes one
    While where the items are alike (the library's, calling `fn` back item
    by item, was 500 copies of it: 19 s of XLA); else the library's."""
    if isinstance(iterable, RangeIter) and type(iterable.rows) is tuple:   # straight from zip_
        if _consumed_where_made(interp):
            return _kind_named(map_(interp, fn, *iterable.rows), "starmap")
        iterable = zip(*_lazy_parts(interp, iterable.rows))     # (as zip_ makes a held one)
    if _many_items_with_arrays(interp, iterable):
        return interp.call(interpreted.starmapped, [fn, iterable], {})
    return interp.construct(itertools.starmap, [fn, iterable], {})


def _many_items_with_arrays(interp, x) -> bool:
    """Whether `x` is an array of more rows than the unroll budget, or an
    iterator or list of more items than that, holding arrays."""
    if isinstance(x, Array):
        return _many_rows(interp, (x,))
    budget = interp.ctx.options.get("unroll", 32)
    if isinstance(x, SeqIter) and type(x.items) is tuple and isinstance(x.pos, int):
        items = x.items[x.pos:]
    elif type(x) in (list, tuple):
        items = x
    else:
        return False
    return len(items) > budget and holds_array(items[0])


@builtin(py.filter)
def filter_(interp, fn, x):
    from . import dunders       # (each truth as `if` takes it: a user __bool__ interpreted)
    if not interp.result_feeds_loop():     # `kept = filter(f, xs)`: tested when taken
        # (a native filter, not a generator: type(kept) and isinstance see filter)
        return filter(lambda v: dunders.is_true(interp, interp.call(fn, [v], {}) if fn else v),
                      pulled_lazily(interp, interp.get_iter(x)))
    items = interp.static_items(x)
    kept = (v for v in items if dunders.is_true(interp, interp.call(fn, [v], {}) if fn else v))
    return made_iterator(interp, kept, kind="filter")


@builtin(py.next)
def next_(interp, it, *default):
    """next(it): the item where the iterator stands, read now (its items
    are static; a runtime value among them is fine)."""
    it = interp.resumed(it)
    if is_native_iterator(it):
        refuse_outside_iterator(it)
        return next(it, *default) if default else _native_next(it)
    method = interp.user_dunder(it, "__next__")
    if method is not None:          # a user class's iterator
        item = interp.next_item_or_runtime_end(it, method)
        if isinstance(item, iterators.RuntimeEnd):
            return _item_or_default(item, default, type(it).__name__)
        if item is not MISSING:
            return item
        if default:
            return default[0]
        raise UserCodeError("StopIteration")
    if isinstance(it, FlatIter):
        return it.advance(*default)
    if isinstance(it, RangeIter):
        raise UnsupportedError("next() of a range iterator is not supported",
                               hint="index the range (r[0]) or use a for loop")
    if not isinstance(it, SeqIter) or it.cursor is None:
        raise UserCodeError(f"TypeError: '{type(it).__name__}' object is not an iterator")
    value = returning(caught_up(it))    # a generator's `return value`, where this ends it
    item = _puller(interp, it)()
    if item is _END:
        if default:
            return default[0]
        raise UserCodeError("StopIteration",
                            raised=StopIteration() if value is None else StopIteration(value))
    return item


def _item_or_default(end, default, what: str):
    """next(it, default) where it.__next__ raises StopIteration under a
    runtime condition: the default where it did, chosen at run time.  The
    two must be of one kind (dtype, shape, a NumPy scalar or a Python
    number, as NumPy would hold them), else which one the result is would
    change its type at run time."""
    item = end.item
    aval = leaf_aval(item)
    if default and aval is not None and _same_kind(item, aval, default[0]):
        chosen = emit("select", end.stopped, default[0], item, weak_result=aval.weak)
        if not aval.shape:          # (a NumPy scalar, or a 0-d array, as both are)
            chosen.immutable = scalar_kind(item)
        return chosen
    got = "next(it)" if not default else "next(it, default) with a default of another kind"
    raise UnsupportedError(
        f"{got} on a {what} iterator whose __next__ raises StopIteration under a runtime "
        "condition: whether the iterator has ended is known only at run time",
        hint="give next() a default of the item's own type, dtype and shape (`next(it, "
             "np.float64(-1.0))` for float64 items) and test for it, or loop over the "
             "iterator with `for v in it:` and `break`")


def _same_kind(item, aval: AVal, default) -> bool:
    """Whether `default` is held as `item` (of `aval`) is: one aval (dtype,
    shape, weak for a Python number) and, 0-d, both NumPy scalars or both
    not (a 0-d array)."""
    if leaf_aval(default) != aval:
        return False
    if aval.shape:
        return True
    return scalar_kind(default) == scalar_kind(item)


def _native_next(it):
    try:
        return next(it)
    except StopIteration:
        raise UserCodeError("StopIteration") from None


@builtin(py.sum)
def sum_(interp, x, start=0):
    from . import dunders
    _refuse_text_start(start)
    if isinstance(x, generator_folds.FoldedTotal):     # (a generator made for it: start is 0)
        return x.total
    if _is_runtime_range(x):        # (a closed form: exact, as Python's int sum)
        return dunders.apply(interp, operator.add, start, runtime_ranges.total(x))
    items = interp.static_items(x)
    whole = element_lists.summed(interp, items, start)    # (sum(arr.tolist()))
    if whole is not None:
        return whole
    run = float_sums.begin(start)
    added, skip = 0, 0
    for v in items:         # (iterated: a generator's exception comes at its end)
        if skip:
            skip -= 1
            continue
        before, run = run, float_sums.add(interp, run, v)
        added += 1
        if added == 2:
            folded = _folded_rows(items, before, run)
            if folded is not None:
                run, done = folded
                skip = done - added
    return float_sums.finish(run)


def _is_runtime_range(x) -> bool:
    from .calls import RuntimeRange
    return isinstance(x, RuntimeRange)


def _refuse_text_start(start) -> None:
    """sum(strings, ''): Python refuses a str or bytes start."""
    for kind, prefix in ((str, "''"), (bytes, "b''"), (bytearray, "bytearray()")):
        if isinstance(start, kind):
            name = "strings" if kind is str else kind.__name__
            raise UserCodeError(f"TypeError: sum() can't sum {name} [use {prefix}.join(seq) "
                                "instead]")


def _folded_rows(items, before, run):
    """sum() of the rows of a buffer a counted loop filled (`sum(x[i] ** 2
    for i in range(n))`): once adding the second row leaves the total's
    type and sum()'s phase as the first left them, every further row does
    too, and the rest are added in order by one scan over the buffer, not
    one op per item.  (The state after them, how many items that added) or
    None.  Items after the buffer's rows (the last iteration of a loop over
    a list, unrolled after the While: list_loops) are left to add one by one."""
    from .stacking import buffer_then_rest, whole_buffer
    total, was = run.total, before.total
    if len(items) < 3 or not (isinstance(was, Array) and isinstance(total, Array)) \
            or total.aval != was.aval or total.immutable != was.immutable \
            or run.phase != before.phase:
        return None
    rows, rest = whole_buffer(items), ()
    if rows is None:
        rows, rest = buffer_then_rest(items) or (None, ())
    if rows is None:
        return None
    folded = float_sums.fold_rows(run, items[1], rows, first=2)
    return None if folded is None else (folded, len(items) - len(rest))


@builtin(np.fromiter)
def fromiter(interp, iterable, dtype, count=-1, **kwargs):
    """np.fromiter of a generator (or any iterable) compiled code made: its
    items, numbers, as np.array of them makes them.  With a `count`, only
    that many are taken (a held iterator, a generator, is left past them)."""
    if not isinstance(count, int) or isinstance(count, bool):
        raise StaticValueError("np.fromiter: count must be a Python int known at compile time")
    if count >= 0 and isinstance(interp.resumed(iterable), SeqIter):
        items = list(itertools.islice(pulled_lazily(interp, iterable), count))
    else:
        items = list(interp.static_items(iterable))
    if count >= 0:
        if len(items) < count:
            raise UserCodeError(f"ValueError: iterator too short: Expected {count} but "
                                f"iterator had only {len(items)} items.")
        items = items[:count]
    if not holds_array(items):
        return np.fromiter(items, dtype, **kwargs)
    if any(isinstance(v, Array) and v.ndim for v in items):
        raise UserCodeError("ValueError: setting an array element with a sequence.")
    return interp.call(np.array, [items], {"dtype": dtype})


_NO_DEFAULT = object()


def _extreme(builtin_fn, pick_later):
    def impl(interp, *args, key=None, default=_NO_DEFAULT):
        _check_extreme_arguments(builtin_fn.__name__, args, default)
        if len(args) == 1 and _is_runtime_range(args[0]) and key is None:
            return runtime_ranges.extreme(args[0], builtin_fn.__name__,
                                          *(() if default is _NO_DEFAULT else (default,)))
        items = interp.static_items(args[0]) if len(args) == 1 else args
        if not items:
            _read_past_end(items)
            if default is not _NO_DEFAULT:
                return default
            return builtin_fn(())       # raises Python's own ValueError: the user's error
        if key is None and len(args) == 1:
            whole = element_lists.extreme(interp, builtin_fn.__name__, items)
            if whole is not None:       # (max(arr.tolist()))
                return whole
        if key is not None and len(items) > builder.ctx().options.get("unroll", 32) \
                and _all_alike_arrays(items):
            # (max(rows, key=...): the key traced once, in one While)
            return interp.call(_keyed_extreme_loop, [list(items), key, pick_later], {})
        keys = [interp.call(key, [v], {}) for v in items] if key is not None else list(items)
        if len(items) == 1:     # (its key called, as Python does, but nothing to compare)
            return items[0]
        if not any(isinstance(k, Array) for k in keys):
            if len(keys) > 1 and all(map(_compared_item_by_item, keys)) \
                    and any(map(holds_array, keys)):
                # (`max((loss, i) for i, loss in ...)`: tuples compared at run time)
                return _sequences_extreme(interp, builtin_fn.__name__, items, keys, key,
                                          pick_later)
            if _runtime_records(keys) and list_loops.alike(items):
                # (Quantity objects whose __lt__ compares their runtime values:
                # the comparisons made at run time, the best picked there)
                best = _best_position(keys, pick_later, interp)
                return items[best] if isinstance(best, int) else _picked(items, best)
            try:
                return _static_extreme(items, keys, interp, pick_later)
            except NeedsStatic:
                raise _runtime_comparison_refusal(builtin_fn.__name__, keys) from None
        if key is not None and chosen_values.pickable(items):
            # (`max(scores, key=scores.get)` over static names: the name, chosen at run time)
            return _chosen_by_key(builtin_fn.__name__, items, keys, pick_later)
        if not all(isinstance(v, Array) or _static_real(v) for v in items):
            # (`max(results, key=lambda r: r[1])` over tuples of alike items)
            items = _runtime_alike(items)
            if key is None or not list_loops.alike(_lists_as_tuples(items)):
                raise StaticValueError(
                    f"{builtin_fn.__name__}() with runtime keys returns one of its items, "
                    "chosen at run time: the items must be arrays or numbers, or tuples of "
                    "such alike", hint=f"use np.arg{builtin_fn.__name__} of the keys to pick "
                    "the item's index")
            _one_type(builtin_fn.__name__, keys)
            return _picked(items, _best_position(keys, pick_later))
        if key is None:
            items = keys = _without_decided_ints(builtin_fn, items)
            if len(items) == 1:
                return items[0]
        type_unseen = _type_unseen(interp, items, len(args) + (key is not None)
                                   + (default is not _NO_DEFAULT))
        if key is None:
            _one_type(builtin_fn.__name__, items, type_unseen=type_unseen)
        else:           # the keys are compared; the items are only chosen between
            # (keys are only compared: NumPy compares them in their promotion)
            _one_type(builtin_fn.__name__, keys, type_unseen=_promoted_exactly(keys))
            _one_type(builtin_fn.__name__, items, compared=False, type_unseen=type_unseen)
        kind = merged_kind(items)
        originals = items
        # (the pick is a Python number where a NumPy one's dtype holds it, or
        # a Python int that is a bool, a Python float that is an int, on
        # some paths: held_ints.flag_of)
        avals = [leaf_aval(v) for v in items]
        python_pick = held_ints.python_slot(avals) if all(a.weak for a in avals) \
            else held_ints.FLAG
        held = [held_ints.flag_of(v, python_pick) for v in items] if any(
            held_ints.holds_python_number(v) or held_ints.holds_python_bool(v)
            for v in items) else None
        # (... and a Python bool beside that Python number: held_ints.needs_bool_flag)
        bools = [held_ints.bool_flag_of(v) for v in items] if held and any(
            map(held_ints.may_be_python_bool, items)) else None
        chosen = _in_merged_dtype(builtin_fn.__name__, items)
        if key is None:     # (numbers that fit compare the same in the NumPy dtype)
            items = keys = chosen
        else:
            items = chosen
        if len(items) > _CHAINED_PICKS and _all_alike_arrays(items) \
                and _all_alike_arrays(keys) and keys[0].dtype.kind in "biuf":
            best = list_loops.picked(items, _first_best_position(keys, pick_later))
        else:
            best, best_key = items[0], keys[0]
            held_best = held and Array(held[0])
            bool_best = bools and Array(bools[0])
            # Python's min/max returns the item itself: a 0-d array where that
            # was picked, a number (NumPy or Python) elsewhere, known at run time
            kinds = _pick_kinds(originals)
            kind_best = kinds and Array(kinds[0])
            for i, (v, k) in enumerate(zip(items[1:], keys[1:]), 1):
                better = pick_later(k, best_key)    # (the first of equal keys wins, as Python's)
                best = emit("select", better, v, best, weak_result=True)
                best_key = best if key is None else emit("select", better, k, best_key,
                                                         weak_result=True)
                if held:        # (whether the pick is a Python int: held_ints.py)
                    held_best = emit("select", better, Array(held[i]), held_best)
                if bools:
                    bool_best = emit("select", better, Array(bools[i]), bool_best)
                if kinds:
                    kind_best = emit("select", better, Array(kinds[i]), kind_best)
            if held and held_ints.needs_flag(originals, best.aval):
                held_ints.hold(best, held_best.var, originals,
                               bool_best.var if bools and held_ints.needs_bool_flag(
                                   originals, best.aval) else None)
            if kinds:
                kind = RuntimeKind(kind_best.var)
        if key is None and len(items) > 1 and best.dtype.kind in "iu":   # max(i, 0)
            bounds = [int_bounds(v) for v in items]
            if None not in bounds:
                best.span = ranged_span(best.var, best.dtype, (
                    builtin_fn(b[0] for b in bounds), builtin_fn(b[1] for b in bounds)))
        # Python's min/max returns one of the items: a 0-d result has their kind.
        best.immutable = kind
        if len(items) > 1 and best.immutable is False:
            best.frozen = CHOSEN    # (a copy: an update in place would not reach the item)
        return best
    return impl


def either_number(take_first: Array, first, second, name: str):
    """`first if take_first else second` of two numbers (0-d) whose Python
    types may differ (a Python float and an np.float64; an int and a
    float): one runtime value holding, by its bools, the Python type of the
    one taken, as min()/max()'s pick does (held_ints.py).  `name`: what
    chose, for a refusal of values that no one dtype holds."""
    items = [first, second]
    avals = [leaf_aval(v) for v in items]
    python_pick = held_ints.python_slot(avals) if all(a.weak for a in avals) \
        else held_ints.FLAG
    a, b = _in_merged_dtype(name, items)
    picked = emit("select", take_first, a, b, weak_result=True)
    if any(held_ints.holds_python_number(v) or held_ints.holds_python_bool(v) for v in items) \
            and held_ints.needs_flag(items, picked.aval):
        held = emit("select", take_first, *(Array(held_ints.flag_of(v, python_pick))
                                            for v in items))
        bools = emit("select", take_first, *(Array(held_ints.bool_flag_of(v)) for v in items)) \
            if held_ints.needs_bool_flag(items, picked.aval) else None
        held_ints.hold(picked, held.var, items, bools and bools.var)
    kinds = _pick_kinds(items)
    picked.immutable = merged_kind(items) if kinds is None else RuntimeKind(
        emit("select", take_first, Array(kinds[0]), Array(kinds[1])).var)
    return picked


def _chosen_by_key(name: str, items, keys, pick_later):
    """max()/min() of static objects (strings, None, enum members) by
    runtime number keys: the first best one, a choice among them
    (chosen_values.py) as `NAMES[int(np.argmax(keys))]` would make it."""
    _one_type(name, keys)
    position = _best_position(keys, pick_later)
    if not isinstance(position, Array):
        return items[position]          # (decided at compile time)
    # (its bounds known, a pick past the end needs no runtime check)
    position.span = ranged_span(position.var, position.dtype, (0, len(items) - 1))
    return chosen_values.picked(items, position, "tuple")


def _pick_kinds(items) -> list | None:
    """Each item's kind as a runtime bool (True: a scalar, not a 0-d
    array), where min()/max() of them may pick either kind (`min(t, 5.0)`
    of a 0-d array `t`); else None (the kind is known at compile time)."""
    if any(isinstance(v, Array) and v.shape for v in items):
        return None
    kinds = [scalar_kind(v) for v in items]
    if None in kinds or not (False in kinds or any(isinstance(k, RuntimeKind) for k in kinds)) \
            or not any(kinds):
        return None
    return [kind_value(v) for v in items]


# Up to this many items, max()/min() picks by a chain of selects; beyond, the
# position of the best key is found on the stacked keys and the item picked
# by it: XLA:CPU fuses a long chain of selects, each used twice, at a cost
# that grows with its square (max of 200 rows by key: 53 s).
_CHAINED_PICKS = 8


def _read_past_end(items) -> None:
    """Asks `items` for the item after its last, as Python's max() does
    before it finds the sequence empty: a generator that raised there
    (iterators.RaisingTail) raises its own exception, which the program's
    `try` may catch."""
    if isinstance(items, RaisingTail):
        items.past_end()


def _check_extreme_arguments(name: str, args, default) -> None:
    """Python's TypeErrors for max()/min() called wrongly."""
    if not args:
        raise UserCodeError(f"TypeError: {name} expected at least 1 argument, got 0")
    if len(args) > 1 and default is not _NO_DEFAULT:
        raise UserCodeError(f"TypeError: Cannot specify a default for {name}() with multiple "
                            "positional arguments", hint=f"{name}(a, b) has no default to give")


def _all_alike_arrays(values) -> bool:
    return all(isinstance(v, Array) for v in values) and len({v.aval for v in values}) == 1


def _first_best_position(keys, pick_later):
    """The position Python's max (pick_later: >) or min (<) picks among
    runtime number keys: the first best; a NaN never beats the running best,
    and nothing beats a NaN in front."""
    from ..ops import shape
    from ..ops.registry import NUMPY
    stacked = shape.stack(keys)
    find = NUMPY[np.argmax] if pick_later is operator.gt else NUMPY[np.argmin]
    if stacked.dtype.kind != "f":
        return find(stacked)
    nan = NUMPY[np.isnan](stacked)
    worst = -np.inf if pick_later is operator.gt else np.inf
    position = find(NUMPY[np.where](nan, worst, stacked))
    return NUMPY[np.where](nan[0], 0, position)


def _static_real(v) -> bool:
    """A static number that a runtime pick can return: a Python number or a
    real NumPy scalar (`best = np.float32(0)` before a running maximum)."""
    return type(v) in (int, float, bool) or isinstance(v, (np.integer, np.floating, np.bool_))


def _without_decided_ints(builtin_fn, items):
    """max(u8, 300) is 300 whatever u8 holds, and min(u8, 300) never is: a
    static Python int (or float: -inf) beyond the range of the NumPy
    integers it is compared with is decided at compile time.  Chosen at run
    time it would take their dtype, and wrap (300 -> 44) or be refused
    (state.merged_dtype).  -> the items left to choose between."""
    dtypes = {v.dtype for v in items if isinstance(v, Array)}
    if len(dtypes) != 1 or any(isinstance(v, Array) and v.weak for v in items):
        return items        # (a runtime Python int may beat a static one)
    dtype = dtypes.pop()
    if dtype.kind not in "iu":
        return items
    info = np.iinfo(dtype)
    beyond = [v for v in items if type(v) in (int, float) and (v < info.min or v > info.max)]
    winners = [v for v in beyond if (v > info.max) == (builtin_fn is py.max)]
    if winners:
        return [builtin_fn(winners)]
    return [v for v in items if not any(v is b for b in beyond)]


def _extreme_loop(items, better):
    """Python's max/min of many tuples (its own loop, interpreted like the
    user's code: a long loop over alike items is one While, list_loops.py),
    rather than one compare and pick per item: 1000 `(loss, i)` pairs
    compiled in 24 s that way."""
    best = items[0]
    for item in items:
        if better(item, best):
            best = item
    return best


def _keyed_extreme_loop(items, key, better):
    """Python's max/min of many alike arrays by a key, as its own loop (one
    While, list_loops.py): one key and one pick per item unrolled cost XLA
    a kernel each, 8 s for 200 rows."""
    best = items[0]
    best_key = key(best)
    for item in items[1:]:
        k = key(item)
        if better(k, best_key):
            best, best_key = item, k
    return best


def _compared_item_by_item(key) -> bool:
    """A tuple (a named tuple too) or a list: what Python's max()/min()
    compares position by position, up to the first pair that differs."""
    return isinstance(key, tuple) or type(key) is list


def _sequences_extreme(interp, name: str, items, keys, key, pick_later):
    """max()/min() of tuples (named tuples, lists) holding runtime values,
    or of items by such keys: compared position by position as Python does,
    at run time, and the item at the best position picked."""
    # (the original objects where the static items decide: max(params.items()))
    static_items, static_keys = items, keys
    keys = _runtime_alike(keys)
    items = keys if key is None else _runtime_alike(items)
    if not list_loops.alike(_lists_as_tuples(keys)):
        try:
            return _static_extreme(static_items, static_keys, interp, pick_later)
        except NeedsStatic:
            raise _unlike_tuples_refusal(name, keys) from None
    _one_type_by_position(name, keys, compared=False)
    if len(keys) > builder.ctx().options.get("unroll", 32):
        # (one While over the items, not one compare and pick per item)
        lists = _all_lists(items)
        loop, args = (_extreme_loop, [_lists_as_tuples(items), pick_later]) if key is None \
            else (_keyed_extreme_loop, [list(static_items), key, pick_later])
        best = interp.call(loop, args, {})
        if lists and key is None:
            best = list_loops.chosen_container(list(best))
        return list_loops.marked_copy(static_items, best)
    best = _best_position(_lists_as_tuples(keys), pick_later, interp)
    if isinstance(best, int):       # (every comparison decided while compiling)
        return static_items[best]   # that very object, as Python's: a list stays changeable
    # (the originals marked: `items` may be lists rebuilt with runtime numbers)
    return list_loops.marked_copy(static_items, _picked(items, best))


def _runtime_alike(values) -> list:
    """`values` (the items at one position of max()'s or min()'s items),
    with each static number beside runtime numbers of its kind made a
    runtime one, inside tuples and lists too: max((x[0], i0), (x[1], 1))
    may give either int, so both are Python ints known at run time, as an
    `if` choosing between them would make them.  The same objects where
    nothing changes."""
    values = list(values)
    if any(isinstance(v, Array) and not v.shape for v in values) \
            and not all(isinstance(v, Array) for v in values):
        return _with_runtime_numbers(values)
    first = values[0] if values else None
    if len(values) < 2 or not _compared_item_by_item(first) or any(
            type(v) is not type(first) or len(v) != len(first) for v in values):
        return values
    rows = zip(*(_runtime_alike(column) for column in zip(*values)))
    return [v if all(a is b for a, b in zip(v, row)) else _rebuilt_sequence(v, row)
            for v, row in zip(values, rows)]


def _rebuilt_sequence(like, items):
    if type(like) in (tuple, list):
        return type(like)(items)
    return type(like)(*items)       # a named tuple


def _all_lists(values) -> bool:
    return all(type(v) is list for v in values)


def _lists_as_tuples(values) -> list:
    """Lists as tuples, which a runtime pick can give (and which compare
    alike: item by item); other values as they are."""
    return [tuple(v) for v in values] if _all_lists(values) else list(values)


def _picked(items, pos):
    """The item at runtime position `pos` (list_loops.picked); of lists, a
    new list, which the program may read but not change: the change would
    not reach the list max()/min() chose (min([a0, a1], [b0, b1]))."""
    if _all_lists(items):
        return list_loops.chosen_container(list(list_loops.picked(_lists_as_tuples(items),
                                                                  pos)))
    return list_loops.picked(items, pos)


def _one_type_by_position(name: str, keys, compared=False) -> None:
    """_one_type of the items at each position of alike tuples (or lists):
    (float64, int64) pairs are alike, one runtime type per position."""
    for column in zip(*keys):
        if _compared_item_by_item(column[0]):
            _one_type_by_position(name, column, compared)
        else:
            _one_type(name, list(column), compared)


def _runtime_records(keys) -> bool:
    """Objects of one user class whose attributes hold runtime arrays (a
    dataclass of a value and its unit), alike enough that one runtime pick
    gives each (list_loops.picked): what max()/min() compares by the
    class's own dunders at run time."""
    return all(map(list_loops.is_record_object, keys)) and list_loops.alike(keys) and \
        any(isinstance(v, Array) for v in vars(keys[0]).values())


def _runtime_comparison_refusal(name: str, keys) -> StaticValueError:
    """max()/min() of objects (a user class's, with __lt__ on runtime
    fields) that only their comparison orders: it would be decided while
    compiling, and a runtime pick gives only numbers and tuples of them."""
    kinds = ", ".join(sorted({type(k).__name__ for k in keys}))
    return StaticValueError(
        f"{name}() compares its items ({kinds} objects) to return one of them, but their "
        "comparison depends on runtime values: compiled code chooses at run time only among "
        "arrays, numbers, and alike tuples or lists of them",
        hint=f"make them named tuples (class {type(keys[0]).__name__}(NamedTuple), with "
             f"your __lt__ if any): their {name}() compiles; or find the best position with "
             f"np.arg{name} of their numbers")


def _unlike_tuples_refusal(name: str, keys) -> StaticValueError:
    """max()/min() of tuples that runtime values order, and that no runtime
    pick can give: what stands in the way, by position."""
    kind = "lists" if _all_lists(keys) else "tuples"
    if len({len(k) for k in keys}) == 1:
        for i, column in enumerate(zip(*keys)):
            if not holds_array(column) and not list_loops.alike(column):
                shown = ", ".join(map(repr, column[:3])) + (", ..." if len(column) > 3 else "")
                return StaticValueError(
                    f"{name}() of {kind} holding runtime values returns one of them, chosen "
                    f"at run time, but their items at position {i} differ ({shown}) and are "
                    f"not numbers: only arrays and numbers can be chosen at run time",
                    hint=f"choose a position instead: {name}(zip(losses, range(n))) gives the "
                         f"runtime index of the best (np.arg{name} of the losses too), and "
                         "what is not a number can be looked up with it after the call")
    return StaticValueError(
        f"{name}() of {kind} holding runtime values returns one of them, chosen at run time: "
        "they must be alike (the same length, and position by position the same type: "
        + ", ".join(f"({', '.join(_type_name(x) for x in k)})" for k in keys[:3])
        + (", ..." if len(keys) > 3 else "") + ")",
        hint=f"give every {kind[:-1]} the same types (float(...), np.float64(...)), "
             f"or compare by a key: {name}(..., key=lambda t: t[0])")


def _type_name(x) -> str:
    if isinstance(x, Array):
        return ("runtime " + ("Python number" if x.aval.weak else str(x.dtype))
                + ("" if not x.shape else f" array {x.shape}"))
    return type(x).__name__


def _best_position(keys, pick_later, interp=None):
    """The runtime position of the first best of `keys` (Python's choice):
    numbers, or (`interp` given) alike tuples, compared as Python does."""
    from . import dunders
    best, best_key = 0, keys[0]
    pick = list_loops.picker(keys) if interp is not None else None
    for i, k in enumerate(keys[1:], 1):
        if interp is None:
            better = pick_later(k, best_key)
        else:
            better = dunders.apply(interp, pick_later, k, best_key)
            if not isinstance(better, Array):   # (decided at compile time)
                best, best_key = (i, k) if better else (best, best_key)
                continue
        best = emit("select", better, i, best, weak_result=True)
        best_key = emit("select", better, k, best_key, weak_result=True) if pick is None \
            else pick(best)
    return best


def _type_unseen(interp, items, argc: int) -> bool:
    """Whether the dtype of the item max()/min() picks cannot be seen: the
    result goes straight into an array element (`T[i] = max(T[i], T[i - 1]
    + w[i])`), which casts it to the array's dtype, and NumPy's promotion
    of the items holds each exactly, so the promoted value cast there is
    the picked one cast there (and compares as the item: NumPy compares
    in that promotion too)."""
    dtypes = {a.dtype for a in map(leaf_aval, items) if a is not None and not a.weak}
    return len(dtypes) > 1 and _promoted_exactly(items) and \
        interp.result_stored_into_array(argc)


def _promoted_exactly(values) -> bool:
    """Whether NumPy's promotion of these numbers' dtypes holds each of
    their values exactly: int32 and int64 in int64, int32 and float64 in
    float64, but not int64 in float64 (53 bits of mantissa)."""
    avals = [a for a in map(leaf_aval, values) if a is not None]
    promoted = result_type(*avals)
    return promoted.kind in "biuf" and all(
        _holds_exactly(a.dtype, promoted) for a in avals if not a.weak)


def _holds_exactly(dtype: np.dtype, wider: np.dtype) -> bool:
    if dtype.kind in "iu" and wider.kind == "f":
        return np.iinfo(dtype).bits - (dtype.kind == "i") <= np.finfo(wider).nmant + 1
    return np.can_cast(dtype, wider, "safe")


def _one_type(name, items, compared=True, type_unseen=False):
    """Python's min/max returns one of its items, chosen at run time, so the
    result's shape and dtype must not depend on which: items of other shapes
    (whose comparison NumPy cannot even take the truth of) or other NumPy
    dtypes are refused, as an `if` whose arms give them is; a select would
    broadcast and promote them instead.  Python numbers are weak and adapt.
    Where the dtype is `type_unseen`, the items are promoted."""
    avals = [a for a in map(leaf_aval, items) if a is not None]
    big = next((a for a in avals if a.size != 1), None)
    if big is not None and compared:
        raise UserCodeError("ValueError: The truth value of an array with more than one "
                            f"element is ambiguous ({name}() compares {big} items); "
                            f"use np.{name}imum for the elementwise {name}")
    listed = ", ".join(map(str, avals))
    if len({a.shape for a in avals}) > 1:
        # (the dtype hint would send the user the wrong way: the shapes differ)
        raise MergeError(f"the items of {name}() have different shapes: {listed}; {name}() "
                         "returns one of them, chosen at run time, so its shape would depend "
                         "on the data",
                         hint=f"return the index of the item instead (int(np.arg{name}([key(w) for "
                              "w in items])), with your key), or pad the items to one length")
    if len({a.dtype for a in avals if not a.weak}) > 1 and not type_unseen:
        raise MergeError(f"the items of {name}() have different types: {listed}; {name}() "
                         "returns one of them, chosen at run time, so its type would depend "
                         "on the data", hint=_one_type_hint(name, avals))


def _one_type_hint(name: str, avals) -> str:
    """How to give max()/min()'s items one type: numbers as Python's (or
    NumPy's elementwise function, which promotes), arrays cast."""
    if not all(a.size == 1 for a in avals):
        return "cast with .astype(...) so every item has the same dtype"
    kinds = {a.dtype.kind for a in avals}
    py = "float" if kinds & set("fc") else "int" if kinds <= set("iub") else None
    as_python = f"{name}({py}(a), {py}(b)) compares and returns Python {py}s, or " if py else ""
    return (f"make the items one type: {as_python}np.{name}imum(a, b) returns NumPy's "
            f"promotion ({result_type(*avals)}); or cast one with .astype(...)")


def _in_merged_dtype(name, items) -> list:
    """max()/min() returns one of its items as an `if` would (state.merged_dtype):
    a Python number beside NumPy values takes their dtype, so max(u8, 2.0)
    is the uint8 on the path that picks it, not NumPy's promotion to float64
    (the select's); one that dtype cannot hold (2.5 beside uint8) is refused."""
    avals = [leaf_aval(v) for v in items]
    dtype = merged_dtype(avals, items)
    refuse_unfit_numbers(f"{name}() returns one of its items, chosen at run time, and they "
                         "are of", items, dtype)
    strong = next((a for a in avals if not a.weak), None)
    if strong is None or dtype != strong.dtype:
        return list(items)     # (promoted as NumPy does, as the select will)
    target = AVal(dtype, strong.shape, False)
    return [Array(as_aval(v, target)) if a.weak and a.dtype != dtype else v
            for v, a in zip(items, avals)]


def _static_extreme(items, keys, interp, pick_later):
    interp.guard_contents_deeply(keys)          # max(rows) compares the rows item by item
    from . import dunders
    best = 0
    for i in range(1, len(items)):
        # (a user class's __gt__ / __lt__ interpreted)
        if dunders.is_true(interp, dunders.apply(interp, pick_later, keys[i], keys[best])):
            best = i
    return items[best]


BUILTINS[py.max] = _extreme(py.max, operator.gt)
BUILTINS[py.min] = _extreme(py.min, operator.lt)


@builtin(py.abs)
def abs_(interp, x):
    from . import dunders
    return dunders.apply(interp, abs, x)


@builtin(py.divmod)
def divmod_(interp, a, b):
    from . import dunders       # (a user class's __divmod__ interpreted)
    # Python's and NumPy's definition (np.divmod on arrays) otherwise
    return dunders.apply(interp, divmod, a, b, native=lambda a, b: (a // b, a % b))


@builtin(py.pow)
def pow_(interp, a, b, mod=None):
    if mod is None:
        return a ** b
    if not any(isinstance(v, Array) for v in (a, b, mod)):
        return pow(a, b, mod)
    return _modular_power(a, b, mod)


def _modular_power(base, exponent, mod):
    """pow(base, exponent, mod) of runtime Python ints, the modulus static:
    each product stays below mod**2, so |mod| must be at most 2**31 to stay
    within int64.  A static exponent unrolls square and multiply here; a
    runtime or negative one is a loop (the op modular_power)."""
    if isinstance(mod, Array) or not all(_python_int(v) for v in (base, exponent, mod)):
        raise UnsupportedError("pow(base, exponent, mod) with a runtime modulus, or of values "
                               "that are not Python ints, is not supported",
                               hint="make the modulus a static Python int (a constant, or an "
                                    "argument left out of runtime_args) and the others int(...)")
    if not 0 < abs(mod) <= 2 ** 31:
        raise UnsupportedError("pow(base, exponent, mod) with a modulus of 0 or beyond 2**31 "
                               "is not supported",
                               hint="keep the modulus within 2**31 (products stay in int64)")
    if isinstance(exponent, Array) or exponent < 0:
        return _looped_modular_power(base, exponent, mod)
    result, square = 1 % mod, base % mod
    while exponent:
        if exponent & 1:
            result = (result * square) % mod
        exponent >>= 1
        if exponent:
            square = (square * square) % mod
    return result


def _python_int(v) -> bool:
    """A Python int, known now or at run time (a weak 0-d int)."""
    return type(v) is int or isinstance(v, Array) and v.weak and v.shape == () and \
        v.dtype.kind == "i"


def _looped_modular_power(base, exponent, mod):
    """A negative exponent raises the base's inverse, which exists only where
    gcd(base, mod) == 1: else Python's ValueError, at run time."""
    if (int_bounds(exponent) or (-1, 0))[0] < 0:
        from . import checks
        invertible = emit("equal", emit("gcd", base, mod), 1)
        checks.require(emit("logical_or", emit("greater_equal", exponent, 0), invertible),
                       _NOT_INVERTIBLE_MESSAGE, raises="ValueError")
    return emit("modular_power", base, exponent, mod=mod)


def _not_invertible_message() -> str:
    try:
        pow(2, -1, 4)
    except ValueError as e:
        return str(e)
    raise AssertionError("no ValueError")


_NOT_INVERTIBLE_MESSAGE = _not_invertible_message()


@builtin(py.round)
def round_(interp, x, ndigits=None):
    method = None if isinstance(x, Array) else interp.user_dunder(x, "__round__")
    if method is not None:
        return interp.inline(method, [x] if ndigits is None else [x, ndigits], {})
    if isinstance(ndigits, Array) and (isinstance(x, (Array, int, float)) or np.isscalar(x)):
        from ..ops.elementwise import runtime_digits
        raise runtime_digits("round()'s ndigits")
    if isinstance(x, Array):
        from ..ops.registry import NUMPY
        if x.ndim:
            raise UserCodeError("TypeError: type numpy.ndarray doesn't define __round__ method",
                                hint="use np.round(x) for an array")
        _refuse_unroundable(x)
        if ndigits is None and x.dtype.kind == "f":
            from .math_impl import to_python_int     # round(nan) raises, as int(nan)
            return to_python_int(x, "round")
        if ndigits is None:
            return to_python_scalar(NUMPY[np.rint](x), np.int64)
        ndigits = static_index(ndigits)
        if x.weak and x.dtype == np.float64 and 0 <= ndigits <= 22:
            result = emit("python_round", x, ndigits=ndigits)   # CPython's, exactly
            result.held_int = x.held_int    # (an int in a float slot: an int there)
            return result
        # a Python float stays one (round(2.567, 2)), a NumPy scalar stays NumPy
        result = emit("round", x, decimals=ndigits, weak_result=True)
        return _held_round(interp, x, ndigits, result) if x.held_int is not None else result
    return round(x, ndigits)


def _held_round(interp, x: Array, ndigits: int, result: Array) -> Array:
    """round(z, n) of a z that is a Python number on some runtime paths and
    a NumPy scalar on others (held_ints.py; `z = a[1] if c else 0.5`):
    Python's round of the number there (CPython's rounding of a float, an
    int of an int or bool), held in the NumPy dtype as z is, the caller
    and Python's operators reading it as that number."""
    if x.weak:              # (a bool in a Python int slot: an int, as round(True, 1))
        return result
    python = held_ints.as_python_number(x)
    if python.dtype.kind == "b":
        python = emit("convert", python, dtype=np.dtype(np.int64))
    exact = round_(interp, python, ndigits)
    held = Array(x.held_int)
    merged = emit("select", held, emit("convert", exact, dtype=result.dtype), result)
    merged.immutable = result.immutable
    merged.held_int = x.held_int
    merged.held_type = float if held_ints.python_type(x) is float else int
    return merged


def _refuse_unroundable(x: Array):
    """round() of a scalar whose type has no __round__: a NumPy bool (a
    Python bool has int's) or a complex number, Python's TypeError."""
    kind = type(python_sample(x))
    if not hasattr(kind, "__round__"):
        name = kind.__name__ if kind.__module__ == "builtins" else f"numpy.{kind.__name__}"
        raise UserCodeError(f"TypeError: type {name} doesn't define __round__ method",
                            hint="convert it first: round(int(v)) or round(float(v))")


@builtin(py.isinstance)
def isinstance_(interp, obj, cls):
    if isinstance(obj, Array) and obj.held_int is not None:
        return _held_int_dependent(obj, lambda sample: isinstance(sample, cls))
    if isinstance(obj, Array) and isinstance(obj.immutable, RuntimeKind):
        return _kind_dependent(obj, lambda sample: isinstance(sample, cls))
    if isinstance(obj, Array):
        obj = python_sample(obj)   # Python checks `cls` (and raises) as it would eagerly
    elif (stands_for := iterators.python_type(obj)) is not None:
        # an iterator of ours (a generator, iter(xs), a.flat): as the Python one it stands for
        return _is_subclass_as_isinstance(stands_for, cls)
    else:
        interp.guard_class(obj)     # (`o.__class__ = B` recompiles)
    return isinstance(obj, cls)


def _is_subclass_as_isinstance(kind: type, cls) -> bool:
    """isinstance(a value of type `kind`, cls), Python's TypeError for a
    `cls` that is no class raised as isinstance words it."""
    isinstance(None, cls)           # (raises for a bad `cls`)
    return issubclass(kind, cls)


def python_sample(x: Array):
    """A static value of the Python type `x` has when the program runs eagerly:
    a Python scalar (weak), a NumPy scalar, or an ndarray."""
    if x.weak:
        return {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}[x.dtype.kind]
    if x.immutable:
        return np.zeros((), x.dtype)[()]
    return np.empty((0,), x.dtype)


def _kind_dependent(x: Array, test):
    """test(a value of x's eager type) where runtime branches decided x's
    kind (a NumPy scalar or a 0-d array, values.RuntimeKind): a runtime
    Python bool where the two kinds answer differently."""
    as_scalar, as_array = test(np.zeros((), x.dtype)[()]), test(np.zeros((), x.dtype))
    if as_scalar == as_array:
        return as_scalar
    is_scalar = Array(x.immutable.var)
    return to_python_scalar(is_scalar if as_scalar else emit("logical_not", is_scalar),
                            np.bool_)


def _held_int_dependent(x: Array, test):
    """test(a value of x's eager type) where x is a Python int (float, bool)
    on some runtime paths and a NumPy number on others (held_ints.py): a
    runtime Python bool where the two answer differently; where x holds a
    Python bool beside them (its second bool), the bool's answer there."""
    answer = _held_pair_dependent(x, test)
    on_bool_path = held_ints.third_type_bool(x)
    as_bool = test(False)
    if on_bool_path is None or answer is as_bool:
        return answer
    return to_python_scalar(emit("select", on_bool_path, np.bool_(as_bool), answer), np.bool_)


def _held_pair_dependent(x: Array, test):
    as_int = test(held_ints.python_type(x)(0))
    as_numpy = _kind_dependent(x, test) if isinstance(x.immutable, RuntimeKind) else \
        test(python_sample(x))
    if as_numpy is as_int:
        return as_int
    held = Array(x.held_int)
    if isinstance(as_numpy, bool):
        return to_python_scalar(held if as_int else emit("logical_not", held), np.bool_)
    return to_python_scalar(emit("select", held, np.bool_(as_int), as_numpy), np.bool_)


def _tested_type(x: Array) -> str:
    """The class isinstance() tells a held value's Python type by (a bool
    held beside an int: bool, an int's subclass)."""
    return "bool" if x.held_bool is not None else held_ints.python_type(x).__name__


def _held_type(x: Array) -> str:
    name = held_ints.python_type(x).__name__
    return f"{name} or bool" if x.held_bool is not None else name


@builtin(py.type)
def type_(interp, *args):
    if len(args) == 1 and isinstance(args[0], Array) and args[0].held_int is not None:
        others = ("a Python float" if args[0].dtype.kind == "f" else "a Python int") \
            if args[0].weak else "a NumPy number"   # (held_ints.python_type)
        raise StaticValueError(
            f"type() of a value that is a Python {_held_type(args[0])} on some runtime paths "
            f"and {others} on others: which type it is is known only at run time",
            hint=f"test isinstance(y, {_tested_type(args[0])}) (or np.generic), which "
                 f"compiled code answers at run time; or give it one type on every path "
                 f"({held_ints.python_type(args[0]).__name__}(...))")
    if len(args) == 1 and isinstance(args[0], Array) and \
            isinstance(args[0].immutable, RuntimeKind):
        raise StaticValueError(
            "type() of a value that is a NumPy scalar on some runtime paths and a 0-d array "
            "on others: which type it is is known only at run time",
            hint="test isinstance(y, np.ndarray) (or np.generic), which compiled code "
                 "answers at run time")
    if len(args) == 1 and isinstance(args[0], Array):
        return type(python_sample(args[0]))
    if len(args) == 1 and (stands_for := iterators.python_type(args[0])) is not None:
        return stands_for       # an iterator of ours: the Python type it stands for
    if len(args) == 1:
        interp.guard_class(args[0])
    return type(*args)


def holds_array(value) -> bool:
    """Whether a static container (list, tuple, dict, set) holds a runtime array."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Array):
            return True
        if isinstance(v, (list, tuple, set, frozenset, collections.deque)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
    return False


def refuse_runtime_hash(values, what: str):
    """Sets and dict keys hash their items: a runtime array would be hashed by
    its compile-time identity, not its value."""
    if any(holds_array(v) for v in values):
        raise StaticValueError(f"a runtime value as {what} needs its value at compile time "
                               "(sets and dicts hash their items)",
                               hint="keep runtime values in arrays; use static keys")


_PRINT_HINT = 'use print(x) or print(f"...{x}...") to print it at run time'


def refuse_runtime_text(values, interp=None):
    _refuse_counter_text(values)
    if any(holds_array(v) or isinstance(v, messages.RuntimeText) for v in values):
        raise StaticValueError("formatting a runtime value into a string needs its value at "
                               "compile time",
                               hint=_PRINT_HINT if interp is None else _text_hint(interp))


def _refuse_counter_text(values) -> None:
    """str() of a Counter lists its items by count, largest first: with
    runtime counts that order is known only at run time."""
    if any(isinstance(v, collections.Counter) and holds_array(list(v.values())) for v in values):
        raise StaticValueError(
            "formatting a Counter whose counts are runtime values: its text lists the items "
            "by count, largest first, an order known only at run time",
            hint="print the counts in a static order: print(dict(c)) (insertion order) or "
                 "print(c['a'], c['b'])")


def _text_hint(interp) -> str:
    """What to write instead of str(x) of a runtime x: in an exception's
    message (its class is on a frame's stack), the f-string compiled code
    formats when it raises at run time."""
    raising = next((v for frame in interp.frames for v in frame.stack
                    if isinstance(v, type) and issubclass(v, BaseException)), None)
    if raising is AssertionError:
        return ('write the message as an f-string, which is formatted when the assert fails '
                'at run time: assert cond, f"...{x}..."')
    if raising is not None:
        return ('write the message as an f-string, which is formatted when it is raised at '
                f'run time: raise {raising.__name__}(f"...{{x}}...")')
    return _PRINT_HINT


def check_format(x: Array, conversion, spec):
    """Raises now what format() of a value like x's (the Python or NumPy
    type it has eagerly) raises for this conversion and spec, as the eager
    program would at this line (f"{array:.2f}": TypeError)."""
    sample = python_sample(x)
    if isinstance(sample, np.ndarray):
        sample = np.zeros((1,) * x.ndim, x.dtype)
    try:
        if conversion:
            sample = {"s": str, "r": repr, "a": ascii}[conversion](sample)
        format(sample, spec)
    except (TypeError, ValueError) as e:
        raise UserCodeError(f"{type(e).__name__}: {e}") from None


_TEXT_CONVERSIONS = {str: "s", repr: "r", ascii: "a"}


def in_print(interp) -> bool:
    """Whether print()'s arguments are being computed (print is on a
    frame's stack: a comprehension or a function called there too) or made
    text by print() itself, or the message of a runtime raise is (a user
    __repr__ it calls: interpreter._static_message): runtime values
    formatted then are shown when the program runs (messages.RuntimeText)."""
    return interp.printing > 0 or any(v is py.print for frame in interp.frames
                                      for v in frame.stack) or \
        any(getattr(frame, "format_runtime", None) is not None for frame in interp.frames)


def printed_text(interp, value, conversion, spec):
    """A messages.RuntimeText of format(value, spec) after `conversion` (a
    runtime value, or a container holding some) for print() to show when
    the program runs, while a print() call's arguments are computed (print
    is on a frame's stack: a comprehension or a function called there
    too); else None.  A spec the value's type refuses raises now, as eager
    Python would at this line."""
    if not in_print(interp):
        return None
    parts = messages.text_parts(value, conversion, spec, text_renderer(interp))
    if parts is None:
        return None
    if isinstance(value, Array):
        check_format(value, conversion, spec)
    return messages.runtime_text(parts)


def text_renderer(interp):
    """messages.text_parts's `render`: str(), repr() or format(v, "") of
    a value as the program computes it (a user class's __str__ or __repr__
    interpreted: a RuntimeText when it formats runtime values), or None
    where Python's own is the program's."""
    from . import dunders

    def render(value, conversion):
        if conversion == "a":
            return None
        convert = {None: format, "s": str, "r": repr}[conversion]
        text = dunders.text(interp, convert, value, *([""] if convert is format else []))
        return None if text is dunders.NATIVE else text
    return render


def _text(pytype):
    def impl(interp, *args, **kwargs):
        if len(args) == 1 and not kwargs and pytype in _TEXT_CONVERSIONS and \
                (isinstance(args[0], Array) or holds_array(args[0])) and in_print(interp):
            # print(str(x)), print(repr(x)): shown when the program runs
            parts = messages.text_parts(args[0], _TEXT_CONVERSIONS[pytype], "",
                                        text_renderer(interp))
            if parts is not None:
                return messages.runtime_text(parts)
        refuse_runtime_text(args[:1], interp)
        if args and not kwargs:
            from . import dunders
            result = dunders.text(interp, pytype, *args)    # a user class's __str__ ...
            if result is not dunders.NATIVE:
                return result
        return pytype(*args, **kwargs)
    return impl


BUILTINS[py.str] = _text(str)
BUILTINS[py.repr] = _text(repr)
BUILTINS[py.ascii] = _text(ascii)
BUILTINS[py.format] = _text(format)


def _integer_text(pytype, spec):
    """hex(), bin(), oct(): the text format(v, spec) gives for every int
    (hex(-171) == format(-171, "#x") == "-0xab"), so a runtime value is
    printed as the f-string f"{v:#x}" is; a value that is no integer
    raises now the TypeError eager hex() raises (a float, an array)."""
    def impl(interp, *args, **kwargs):
        if len(args) != 1 or kwargs or not isinstance(args[0], Array):
            return pytype(*args, **kwargs)
        sample = python_sample(args[0])
        if isinstance(sample, np.ndarray):
            sample = np.zeros((1,) * args[0].ndim, args[0].dtype)
        try:
            pytype(sample)
        except TypeError as e:
            raise UserCodeError(f"TypeError: {e}") from None
        printed = printed_text(interp, args[0], None, spec)
        if printed is None:
            refuse_runtime_text(args, interp)
        return printed
    return impl


BUILTINS[py.hex] = _integer_text(hex, "#x")
BUILTINS[py.bin] = _integer_text(bin, "#b")
BUILTINS[py.oct] = _integer_text(oct, "#o")


def _hashed_collection(pytype):
    def impl(interp, *args):
        items = interp.static_items(args[0]) if args else ()
        refuse_runtime_hash(items, "a set item")
        return interp.fresh(pytype(items)) if pytype is set else pytype(items)
    return impl


BUILTINS[py.set] = _hashed_collection(set)
BUILTINS[py.frozenset] = _hashed_collection(frozenset)


# --- copy.copy and copy.deepcopy ----------------------------------------------------
# The copy module's own code asks native functions (id(), __reduce_ex__) about
# each object; for arrays, the containers that hold them and plain objects of
# the user's classes (object_copies.py) tpucc copies here.  Another object
# still goes through the module's code, which copies it when it holds no
# runtime array.

_IMMUTABLE = (bool, int, float, complex, str, bytes, type(None), np.generic, np.dtype, range,
              frozenset, type)


@builtin(copy_module.copy)
def copy_copy(interp, x):
    if isinstance(x, Array):
        return x if x.immutable else array_copy(x)
    if isinstance(x, (list, dict)) or type(x) is collections.deque:
        return interp.copy_container(x)
    if isinstance(x, _IMMUTABLE) or type(x) is tuple:
        return x
    made = object_copies.copied_object(interp, x)
    return _copied_by_module(interp, copy_module.copy, x) if made is object_copies.NOT_HANDLED \
        else made


@builtin(copy_module.deepcopy)
def copy_deepcopy(interp, x, memo=None):
    # (a memo: a __deepcopy__'s `copy.deepcopy(self.w, memo)`, its copies shared)
    return _deep_copy(interp, x, interp.fresh({}) if memo is None else memo)


def _deep_copy(interp, x, memo: dict):
    """copy.deepcopy: one copy per object, so what the original shares (an
    array in two places) the copy shares too."""
    if isinstance(x, _IMMUTABLE) or (isinstance(x, Array) and x.immutable):
        return x
    done = memo.get(id(x))
    if done is not None:
        return done
    if isinstance(x, Array):
        made = array_copy(x)
    elif isinstance(x, list):
        made = interp.fresh([])
        memo[id(x)] = made
        made.extend(_deep_copy(interp, v, memo) for v in interp.static_items(x))
    elif isinstance(x, dict):
        made = interp.fresh(dict_of_class(type(x), getattr(x, "default_factory", None), {}))
        memo[id(x)] = made
        for k, v in interp.dict_items(x):
            dict.__setitem__(made, k, _deep_copy(interp, v, memo))
    elif isinstance(x, tuple):
        items = [_deep_copy(interp, v, memo) for v in interp.static_items(x)]
        made = type(x)._make(items) if hasattr(x, "_fields") else tuple(items)
    else:
        made = object_copies.copied_object(
            interp, x, lambda v: _deep_copy(interp, v, memo), memo)
        if made is object_copies.NOT_HANDLED:
            made = _copied_by_module(interp, copy_module.deepcopy, x, memo)
    memo[id(x)] = made
    return made


def _copied_by_module(interp, fn, x, *rest):
    # (an argument's attributes are still NumPy's arrays: read when used)
    if holds_array(x) or (not isinstance(x, (list, tuple, dict, set)) and any(
            isinstance(v, (Array, np.ndarray)) for v in getattr(x, "__dict__", {}).values())):
        raise UnsupportedError(
            f"{fn.__module__}.{fn.__name__}() of a {type(x).__name__} object that holds runtime "
            "arrays is not supported in compiled code (the copy module asks native code "
            "about each object)",
            hint="copy its arrays into a new object (np.copy, or a dict/list of copies); "
                 "copy.copy and copy.deepcopy of arrays, lists, tuples and dicts compile")
    return interp.inline(fn, [x, *rest], {})


@builtin(py.dict)
def dict_(interp, *args, **kwargs):
    source = args[0] if args else ()
    if isinstance(source, dict):
        source = interp.mapping_read(source)
    elif not hasattr(source, "keys"):     # pairs, possibly from zip()
        source = interp.static_items(source)
    out = dict(source, **kwargs)
    refuse_runtime_hash(out, "a dict key")
    return interp.fresh(out)


@builtin(py.dict.fromkeys)
def dict_fromkeys(interp, keys, value=None):
    """dict.fromkeys(["a", "b"], a): static keys, all holding the one value
    (a runtime array among them is shared, as in Python)."""
    keys = interp.static_items(keys)
    refuse_runtime_hash(keys, "a dict key")
    return interp.fresh(dict.fromkeys(keys, value))


@builtin(py.getattr)
def getattr_(interp, obj, name, *default):
    try:
        return interp.getattr(obj, name)
    except (AttributeError, UserCodeError) as e:
        if default and _is_attribute_error(e):
            return default[0]
        raise


@builtin(py.hasattr)
def hasattr_(interp, obj, name):
    try:
        interp.getattr(obj, name)
        return True
    except (AttributeError, UserCodeError) as e:
        if _is_attribute_error(e):      # as Python's hasattr: other errors propagate
            return False
        raise


@builtin(py.callable)
def callable_(interp, obj):
    """callable(v): answered by v's type, known while compiling also for a
    runtime value (an array, a NumPy or Python number: never callable)."""
    if isinstance(obj, Array) or iterators.python_type(obj) is not None:
        return False
    from .calls import BoundArrayMethod     # (x.sum, float(x).hex: tpucc's stand-ins)
    from .pynumbers import BoundNumberMethod
    return isinstance(obj, (BoundArrayMethod, BoundNumberMethod)) or callable(obj)


@builtin(sys.exc_info)
def exc_info_(interp):
    """The exception an `except` clause is handling (its traceback: None)."""
    handled = interp.handled_exception
    return (type(handled), handled, None) if handled is not None else (None, None, None)


@builtin(sys.exception)
def exception_(interp):
    return interp.handled_exception


def _is_attribute_error(e) -> bool:
    return isinstance(e, AttributeError) or isinstance(getattr(e, "raised", None),
                                                       AttributeError)


def to_python_scalar(x: Array, dtype) -> Array:
    """bool(x)/int(x)/float(x) of a size-1 runtime array: a weak 0-d value
    of `dtype`, returned to the user as that Python type."""
    if x.size != 1:
        raise StaticValueError(f"only size-1 arrays can be converted to Python scalars, "
                               f"got {x.aval}",
                               hint="reduce the array first (x.sum(), x[0]); for a truth "
                                    "value use x.any() or x.all()")
    x = emit("reshape", x, shape=()) if x.shape else x
    dt = np.dtype(dtype)
    if dt == np.int64 and x.dtype == np.uint64:
        from . import checks        # a Python int from 2**63 up: not in compiled code's 64 bits
        checks.require(emit("less_equal", x, int(np.iinfo(np.int64).max)),
                       "a uint64 value from 2**63 up as a Python int, which compiled code "
                       "holds in 64 bits", raises="OverflowError",
                       hint="keep it a NumPy uint64 (x[0] instead of int(x[0]) or .item())")
    if dt.kind in "iu" and x.dtype.kind == "f":
        x = emit("trunc", x)
    if dt == np.bool_:
        x = emit("not_equal", x, 0)
    (out,) = emit_op("convert", (x.var,), {"dtype": dt}, (AVal(dt, (), True),))
    known = known_constant(x)
    if known is not None and dt.kind in "biu":
        # int(np.array([2, 0, 3])[0]) stays known, as the item was (values.known_integer)
        builder.ctx().constants[out] = np.asarray(known).astype(dt)
    converted = Array(out)
    if x.span is not None and dt.kind in "iu" and x.dtype.kind in "iu" and x.span.fits(dt):
        # the same integer: int(np.clip(p, 0, n - k)) keeps its known range,
        # so x[y:y + k] is still a window of static length
        converted.span = x.span
    return converted


def _converts_only_0d() -> bool:
    """Whether this NumPy's int()/float()/complex() refuse an array of one
    element but one or more axes (NumPy 2.4: TypeError; before: a warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            float(np.ones(1))
        except TypeError:
            return True
    return False


CONVERTS_ONLY_0D = _converts_only_0d()


def to_python_number(x: Array, dtype) -> Array:
    """int(x)/float(x)/complex(x) of a runtime array (also math's conversion
    of its argument): NumPy converts only 0-d arrays, bool(x) and .item()
    any of one element."""
    check_number_conversion(x)
    return to_python_scalar(x, dtype)


def check_number_conversion(x: Array) -> None:
    """int(x), float(x) or complex(x) of x is NumPy's TypeError when x has axes."""
    if x.ndim and (CONVERTS_ONLY_0D or x.size != 1):
        raise UserCodeError("TypeError: only 0-dimensional arrays can be converted to "
                            "Python scalars" if CONVERTS_ONLY_0D else
                            "TypeError: only length-1 arrays can be converted to Python scalars",
                            hint="take the element first (x[0], x.item())")


def _refuse_complex_to_real(pytype, x: Array) -> None:
    """int(z) or float(z) of a complex z: Python's TypeError for a Python
    complex, and for a 0-d complex array (ndarray.__float__ converts it to
    a Python complex first); only a NumPy complex scalar gives its real
    part (with NumPy's ComplexWarning).  A 0-d value whose kind a runtime
    branch decided (RuntimeKind) raises on the paths that made an array."""
    if pytype not in (int, float) or x.dtype.kind != "c":
        return
    message = f"{pytype.__name__}() argument must be a string" + \
        (", a bytes-like object" if pytype is int else "") + " or a real number, not 'complex'"
    if isinstance(x.immutable, RuntimeKind) and not x.weak:
        from . import checks
        checks.require(Array(x.immutable.var), message, raises="TypeError")
    elif x.weak or x.immutable is not True:
        raise UserCodeError(f"TypeError: {message}",
                            hint="take the part you mean first (z.real, abs(z))")


def _scalar_conversion(pytype, dtype):
    def impl(interp, x=pytype(), *rest):
        if isinstance(x, Array) and pytype is not bool:
            check_number_conversion(x)
            _refuse_complex_to_real(pytype, x)
        if isinstance(x, Array):
            if pytype is int and x.dtype.kind == "f":
                from .math_impl import to_python_int     # int(nan) raises, as in Python
                return to_python_int(x, "trunc")
            return to_python_scalar(x, dtype)
        if pytype is bool and not rest and interp.is_popped_queue(x):
            truth = x.truth(interp)         # (its length is runtime: popped_queues)
            return impl(interp, truth) if isinstance(truth, Array) else truth
        if not rest:
            from . import dunders
            converted = dunders.conversion(interp, pytype, x)   # a user class's __float__ ...
            if converted is not dunders.NATIVE:
                return impl(interp, converted) if isinstance(converted, Array) else converted
        return pytype(x, *rest)
    return impl


BUILTINS[py.int] = _scalar_conversion(int, np.int64)
BUILTINS[py.float] = _scalar_conversion(float, np.float64)
BUILTINS[py.bool] = _scalar_conversion(bool, np.bool_)
_complex_of_one = _scalar_conversion(complex, np.complex128)
_NO_IMAG = object()


@builtin(py.complex)
def complex_(interp, real=0, imag=_NO_IMAG):
    """complex(real, imag) as Python's: each part a number (a complex one
    mixes in as real + imag*1j), put together part by part (never through
    arithmetic on 1j, which would turn an infinite part into NaN)."""
    if imag is _NO_IMAG:
        return _complex_of_one(interp, real)
    if isinstance(real, str):
        raise UserCodeError("TypeError: complex() can't take second arg if first is a string")
    if isinstance(imag, str):
        raise UserCodeError("TypeError: complex() second arg can't be a string")
    if not (isinstance(real, Array) or isinstance(imag, Array)):
        return complex(real, imag)
    re, re_imag = _complex_part(interp, real)
    im, im_imag = _complex_part(interp, imag)
    re = re if im_imag is None else re - im_imag
    im = im if re_imag is None else im + re_imag
    parts = [to_python_scalar(p, np.float64) if isinstance(p, Array) else float(p)
             for p in (re, im)]
    return to_python_scalar(emit("complex", *parts), np.complex128)


def _complex_part(interp, x):
    """One argument of complex(real, imag) as (its real part, its imaginary
    part or None where it is not a complex number)."""
    if isinstance(x, Array):
        check_number_conversion(x)
        if x.dtype.kind == "c":
            z = to_python_scalar(x, np.complex128)
            return to_python_scalar(emit("real", z), np.float64), \
                to_python_scalar(emit("imag", z), np.float64)
        return to_python_scalar(x, np.float64), None
    if isinstance(x, complex):
        return x.real, x.imag
    if isinstance(x, (int, float)):
        return float(x), None
    converted = _complex_of_one(interp, x)      # a user class's __complex__ / __float__
    if isinstance(converted, Array) or isinstance(converted, complex):
        return _complex_part(interp, converted)
    return float(converted), None


@builtin(py.any)
def any_(interp, x):
    whole = _whole_array_truth(interp, x, want_all=False)
    if whole is not None:
        return whole
    return _truth_fold(_truths(interp, x), stop_on=True, combine="logical_or")


@builtin(py.all)
def all_(interp, x):
    whole = _whole_array_truth(interp, x, want_all=True)
    if whole is not None:
        return whole
    return _truth_fold(_truths(interp, x), stop_on=False, combine="logical_and")


def _whole_array_truth(interp, x, want_all: bool):
    """any(arr.tolist()) / all(...): one reduction of the array; else None."""
    if not isinstance(x, (list, tuple)):
        return None
    return element_lists.truth(interp, x, want_all)


def _truths(interp, x):
    """The items' truth values, as `if item:` takes them (a user class's
    __bool__ interpreted), one at a time: any() and all() stop early."""
    # (a held iterator's items taken one at a time: what any() leaves is left)
    if isinstance(x, SeqIter):
        return _held_truths(interp, x)
    if isinstance(x, (list, tuple)):
        return (v if isinstance(v, Array) else interp.truth_value(v) for v in x)
    return _pulled_truths(interp, x)


def _held_truths(interp, it: SeqIter):
    """The truth values of a held iterator's items (a generator's), taken
    one at a time.  Past a runtime truth value, Python takes the next item
    only where that one did not decide, so those items are taken under a
    runtime condition: a generator that changes outside state for them is
    then refused (generator_runs.check_unconsumed_effects), as for a loop
    over it left by a runtime `break`."""
    pull, decided_at_run_time = _puller(interp, it, lambda: decided_at_run_time), False
    while (item := pull()) is not _END:
        truth = item if isinstance(item, Array) else interp.truth_value(item)
        decided_at_run_time = decided_at_run_time or isinstance(truth, Array)
        yield truth


def _pulled_truths(interp, x):
    """The truth values of the items of x (a map, a user iterator), each
    item made when asked for.  Past a runtime truth value, Python makes the
    next item only where that one did not decide; compiled code makes it
    on every run, so making it must not change outside state."""
    pull, decided_at_run_time = _puller(interp, x), False
    while True:
        if decided_at_run_time:
            truth = _truth_made_without_effects(interp, pull)
        else:
            item = pull()
            truth = item if item is _END or isinstance(item, Array) else interp.truth_value(item)
        if truth is _END:
            return
        decided_at_run_time = decided_at_run_time or isinstance(truth, Array)
        yield truth


def _truth_made_without_effects(interp, pull):
    """The next item's truth value (or _END), refused where making it (a
    map's function called) changes state that existed before."""
    run = generator_runs.start(interp, [], [], what="any() or all()")
    try:
        item = pull()
        truth = item if item is _END or isinstance(item, Array) else interp.truth_value(item)
    finally:
        generator_runs.finish(interp, run)
    if run.effect_after >= 0:
        raise SideEffectError(
            "any() or all() takes this item only where the runtime truth values before it "
            "did not decide, and making it (calling the function that gives it) changes "
            "outside state (writes into an array, a list, a dict or an attribute): compiled "
            "code would make that change on every run",
            hint="write the loop, stopping where an item decides (`hit = False`, then "
                 "`while not hit and k < n: hit = step(); k += 1`), or make every item first "
                 "(`any([f(v) for v in xs])`) where every change is meant")
    return truth


@builtin(py.id)
def id_(interp, x):
    value_objects.note_identity(x)      # (a copy of a value object has another)
    return interp._library_call(id, (x,), {})    # (as any library function)


@builtin(py.hash)
def hash_(interp, x):
    method = interp.user_dunder(x, "__hash__")
    if method is None:
        value_objects.note_identity(x)          # (object's hash is its identity)
        if not isinstance(x, (int, float, complex)):    # (a str's is salted per process)
            interp.ctx.process_local = "the hash() of a string or an object"
        return interp._library_call(hash, (x,), {})    # (as any library function)
    value = interp.inline(method, [x], {})
    if not isinstance(value, int):
        raise UserCodeError("TypeError: __hash__ method should return an integer")
    if not -2 ** 63 <= value < 2 ** 63:
        return hash(value)      # (Python reduces one that does not fit its hash width)
    return -2 if value == -1 else int(value)    # (-1 means an error in C: it gives -2)


def _truth_fold(items, stop_on: bool, combine: str):
    """any()/all(): static items decide at compile time as Python does (the
    first truth value equal to `stop_on` ends the scan); the runtime truth
    values up to there (size-1 arrays, as bool() needs) are folded with
    `combine` into a runtime Python bool."""
    runtime = []
    for v in items:
        if isinstance(v, Array):
            runtime.append(to_python_scalar(v, np.bool_))
        elif bool(v) is stop_on:
            return stop_on
    if not runtime:
        return not stop_on
    return functools.reduce(lambda a, b: emit(combine, a, b), runtime)


def _operator_call(op, native):
    def call(interp, *args):
        from . import dunders
        return dunders.apply(interp, op, *args, native=native)
    return call


# `a + b`, `a < b` and `-a` run these same functions on tpucc's Arrays (whose
# operators ops/elementwise.py installs), so calling them (functools.reduce(
# operator.add, xs), map(operator.mul, a, b)) compiles alike.
for _stem in (*OPERATORS, *COMPARISONS, *UNARY_OPERATORS):
    _fn = getattr(operator, _stem, None) or getattr(operator, _stem + "_")
    BUILTINS[_fn] = _operator_call(_fn, PY_BINARY["REMAINDER"] if _fn is operator.mod else _fn)


def _pure_python_operator() -> types.ModuleType:
    """Lib/operator.py run without its C accelerator: the operator module's
    functions as the Python they stand for (`def getitem(a, b): return a[b]`,
    `def iadd(a, b): a += b; return a`)."""
    spec = importlib.util.spec_from_file_location(f"{__name__}.pure_operator", operator.__file__)
    module = importlib.util.module_from_spec(spec)
    accelerator = sys.modules["_operator"]
    sys.modules["_operator"] = None     # `from _operator import *` fails: the Python ones stay
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules["_operator"] = accelerator
    return module


def _interpreted(pure):
    def call(interp, *args, **kwargs):
        return interp.inline(pure, list(args), kwargs)
    return call


def _concat(pure):
    """operator.concat / iconcat: an array is no sequence to them (NumPy's
    TypeError), though `a + b` of its Python definition would add it."""
    def call(interp, *args, **kwargs):
        if any(isinstance(v, Array) for v in args):
            samples = [python_sample(v) if isinstance(v, Array) else v for v in args]
            try:
                getattr(operator, pure.__name__)(*samples, **kwargs)
            except TypeError as e:
                raise UserCodeError(f"TypeError: {e}") from None
        return interp.inline(pure, list(args), kwargs)
    return call


# The operator module's other functions (getitem, setitem, delitem, contains,
# iadd, concat, truth, is_, call, ...) run their Python definitions,
# interpreted: the subscript, `in` or in-place operator the program's own
# code would run, on runtime values too.
_PURE_OPERATOR = _pure_python_operator()
for _name in operator.__all__:
    _fn, _pure = getattr(operator, _name), getattr(_PURE_OPERATOR, _name)
    if isinstance(_pure, types.FunctionType) and _fn not in BUILTINS:
        BUILTINS[_fn] = (_concat if _name in ("concat", "iconcat") else _interpreted)(_pure)


@builtin(operator.index)
def operator_index(interp, v):
    """operator.index(v): a runtime integer's value (a NumPy float scalar has
    no __index__, which operator.index reports as a TypeError, not the
    AttributeError its Python definition's `a.__index__()` would raise)."""
    if isinstance(v, Array):
        from . import pynumbers
        return pynumbers.index_value(v)
    if interp.user_dunder(v, "__index__") is not None:
        return interp.index_values(v)       # (what it returned checked, as Python does)
    return interp.inline(_PURE_OPERATOR.index, [v], {})


def getter_call(interp, getter, obj):
    """operator.itemgetter(...)(obj) and operator.attrgetter(...)(obj): the
    subscripts or attribute reads they stand for (their arguments are static,
    read back from the getter), so that arrays held in obj stay runtime."""
    _, keys = getter.__reduce__()
    if isinstance(getter, operator.itemgetter):
        # as the subscript `obj[key]` reads it: x[1] of an array is a NumPy scalar
        read = lambda key: interp.subscript(obj, key)   # noqa: E731
    else:
        read = lambda path: functools.reduce(interp.getattr, path.split("."), obj)  # noqa: E731
    values = tuple(read(k) for k in keys)
    return values[0] if len(values) == 1 else values


def method_caller_call(interp, caller: operator.methodcaller, obj):
    """operator.methodcaller(name, *args, **kwargs)(obj): obj.name(*args,
    **kwargs), read and called as the program's own would be (a user
    method interpreted, an array's method compiled)."""
    made_by, args = caller.__reduce__()
    if isinstance(made_by, functools.partial):      # (with keywords)
        (name,), kwargs = made_by.args, made_by.keywords
    else:
        (name, *args), kwargs = args, {}
    return interp.call(interp.getattr(obj, name), list(args), dict(kwargs))


@builtin(functools.reduce)
def reduce_(interp, fn, iterable, *initial, **keywords):
    if keywords:
        raise UserCodeError("TypeError: reduce() takes no keyword arguments",
                            hint="pass the initial value by position: reduce(f, items, 0)")
    if len(initial) > 1:
        raise UserCodeError(f"TypeError: reduce expected at most 3 arguments, got "
                            f"{2 + len(initial)}")
    if _many_rows(interp, (iterable,)):
        if not initial:
            iterable, initial = iterable[1:], (iterable[0],)
        return interp.call(interpreted.reduced, [fn, iterable, initial[0]], {})
    items = list(interp.static_items(iterable))
    if not initial and not items:
        raise UserCodeError("TypeError: reduce() of empty iterable with no initial value")
    acc = initial[0] if initial else items.pop(0)
    for v in items:
        acc = interp.call(fn, [acc, v], {})
    return acc


@builtin(py.print)
def print_(interp, *args, sep=" ", end="\n", file=None, flush=False):
    # Printed by the compiled program each time it runs, static text too
    # (progress messages would otherwise appear once, while compiling).
    if not interp.ctx.options.get("prints", True):
        return None
    arrays, formats, parts = [], [], []
    for a in args:
        text = []
        for part in _printed_parts(interp, a):
            if isinstance(part, str):
                text.append(_literal(part))
            else:
                text.append("{}")
                arrays.append(part.value)
                # (None: str() of it, as print() takes a value and f"{v!s}" makes it)
                plain = part.conversion == "s" and not part.spec
                formats.append(None if plain else (part.conversion, part.spec))
        parts.append("".join(text))
    sep, end = (" " if sep is None else sep), ("\n" if end is None else end)
    emit("print", *map(_printed_value, arrays), fmt=_literal(sep).join(parts) + _literal(end),
         kinds=tuple(_printed_kind(a) for a in arrays), formats=tuple(formats),
         **({"stream": "stderr"} if _stream(file) == "stderr" else {}))
    return None


@builtin(warnings.warn)
def warn(interp, message, category=None, stacklevel=1, source=None, **_skip_file_prefixes):
    """warnings.warn runs at compile time (on a static condition), shown at
    the program's line as eagerly (its caller's for stacklevel=2), not at
    tpucc's frame that ran it: the default filter, keyed on that place,
    and filterwarnings(module=...) see the program's module."""
    refuse_runtime_text([message], interp)
    if isinstance(message, Warning):
        category = type(message)
    file, line, globals_ = _warned_at(interp, max(1, int(stacklevel)))
    warnings.warn_explicit(message, category or UserWarning, file, line,
                           module=globals_.get("__name__", "<unknown>"),
                           registry=globals_.setdefault("__warningregistry__", {}),
                           module_globals=globals_, source=source)


@contextlib.contextmanager
def warnings_at_program_lines(interp):
    """A warning NumPy gives while tpucc folds the program's static values
    (`s * np.uint32(1664525)` overflowing: tpucc runs that multiply at
    compile time) is shown at the program's line, as eagerly, not at
    tpucc's line that ran the operation.  The filters keyed on tpucc's
    modules let every such warning through to be placed; the program's
    filters, keyed on its module and line, then decide as eagerly (an
    "error" one raises it there)."""
    from .interpreter import in_tpucc
    with warnings.catch_warnings():
        show = warnings.showwarning

        def placed(message, category, filename, lineno, file=None, line=None):
            if not in_tpucc(filename) or not interp.frames:
                return show(message, category, filename, lineno, file, line)
            file_, line_, globals_ = _warned_at(interp, 1)
            warnings.warn_explicit(message, category, file_, line_,
                                   module=globals_.get("__name__", "<unknown>"),
                                   registry=globals_.setdefault("__warningregistry__", {}),
                                   module_globals=globals_)
        warnings.showwarning = placed
        warnings.filterwarnings("always", module=r"tpucc\.")
        yield


def _warned_at(interp, stacklevel: int):
    """(file, line, module globals) of the call `stacklevel` calls out:
    an interpreted frame's current line, or past the compiled function,
    the Python frames that called it (tpucc's own skipped)."""
    frames = interp.frames
    if stacklevel <= len(frames):
        frame = frames[-stacklevel]
        return frame.current.loc.file, frame.current.loc.line, frame.globals
    from .interpreter import in_tpucc
    outer, levels = sys._getframe(1), stacklevel - len(frames)
    while outer is not None:
        if not in_tpucc(outer.f_code.co_filename):
            levels -= 1
            if levels == 0:
                break
        outer = outer.f_back
    if outer is None:
        return "sys", 1, sys.__dict__      # (as warnings.warn past the outermost frame)
    return outer.f_code.co_filename, outer.f_lineno, outer.f_globals


def _printed_parts(interp, value) -> list:
    """What print() shows of a value, as literal text and messages.Fields
    (the runtime values in it): its str() as the program makes it, a user
    class's __str__ or __repr__ interpreted (also for the items of a
    container), so that runtime values it formats are shown when the
    program runs."""
    if type(value) is str:
        return [value]
    interp.printing += 1
    try:
        parts = messages.text_parts(value, "s", "", text_renderer(interp))
    finally:
        interp.printing -= 1
    if parts is None:
        refuse_runtime_text([value], interp)
    return parts


def _stream(file) -> str:
    """print()'s `file`: sys.stdout (or None) or sys.stderr, as the program
    finds them when it runs; another file is not written by compiled code."""
    if file is None or file is sys.stdout or file is sys.__stdout__:
        return "stdout"
    if file is sys.stderr or file is sys.__stderr__:
        return "stderr"
    raise UnsupportedError("print(file=...) to a file other than sys.stdout or sys.stderr is "
                           "not supported in compiled code",
                           hint="return the values and write them after the call")


def _literal(text: str) -> str:
    """Text as it appears in a str.format template."""
    return text.replace("{", "{{").replace("}", "}}")


def _printed_kind(x: Array) -> str:
    """How eager Python holds x (ops.debug prints it so): float32 digits for
    a NumPy float32, a Python float's for a Python float."""
    held = _printed_held_kind(x)
    if held is not None:
        return held
    return _plain_printed_kind(x)


def _plain_printed_kind(x: Array) -> str:
    if x.weak:
        return type(python_sample(x)).__name__
    return "scalar" if x.immutable else "array"


def _printed_held_kind(x: Array) -> str | None:
    """The printed kind of a value that is one Python type on some runtime
    paths and prints as another type on the rest (held_ints.python_type):
    _held_pair_kind's, and where the value holds a Python bool beside them
    (its second bool, held_ints.needs_bool_flag), that kind with "|bool"
    after it (ops.debug: printed as a bool where the last bool is true)."""
    if x.held_int is None or x.shape:
        return None
    kind = _held_pair_kind(x)
    if x.held_bool is not None:
        return f"{kind or _plain_printed_kind(x)}|bool"
    return kind


def _held_pair_kind(x: Array) -> str | None:
    """"int or bool" (a Python bool held in an int), "int or float" (a
    Python int held in a Python float), "float|bool" (a Python bool held in
    a Python float), "bool or int" (a Python int held in a NumPy bool):
    printed by the held value's bool; None: as its dtype says."""
    held = held_ints.python_type(x)
    if x.weak:
        if x.dtype.kind == "f":
            return "float|bool" if held is bool else "int or float"
        return "int or bool"
    if held is bool and x.dtype.kind in "iu":
        return "int or bool"
    return "bool or int" if held is int and x.dtype.kind == "b" else None


def _printed_value(x: Array) -> Array:
    """What print() passes of x: a Python int that is a Python bool (a
    Python float that is an int...) on some runtime paths (held_ints.py)
    with its bools, [value, is a bool (an int), ...], so that it prints True
    (0) where eager Python does, not 1 (0.0)."""
    if _printed_held_kind(x) is None:
        return x
    flags = [x.held_int] if _held_pair_kind(x) is not None else []
    flags += [x.held_bool] if x.held_bool is not None else []
    parts = [x] + [emit("convert", Array(f), dtype=x.dtype) for f in flags]
    return emit("concatenate", *(emit("reshape", v, shape=(1,)) for v in parts), axis=0)


@builtin(py.setattr)
def setattr_(interp, obj, name, value):
    """setattr(obj, "name", v) with a static name is `obj.name = v`; on a
    function made inside the compiled code (functools.wraps copies __name__,
    __doc__, __wrapped__ onto its wrapper) plain metadata."""
    if isinstance(obj, types.FunctionType) and id(obj) in interp.fresh_ids \
            and isinstance(name, str) and not isinstance(value, Array):
        setattr(obj, name, value)
        return None
    interp.setattr(obj, _attribute_name(name, "setattr"), value)
    return None


@builtin(object.__setattr__)
def object_setattr(interp, obj, name, value):
    """object.__setattr__(obj, "name", v): a store past the class's own
    __setattr__ (a frozen dataclass's __init__ makes its fields so)."""
    interp.setattr(obj, _attribute_name(name, "object.__setattr__"), value, hook=False)
    return None


@builtin(object.__getattribute__)
def object_getattribute(interp, obj, name):
    """object.__getattribute__(obj, "name"): the lookup without the class's
    __getattr__ hook (a module system's __getattr__ reads its parameters
    so), seeing what this call stored there, as obj.name does."""
    name = _attribute_name(name, "object.__getattribute__")
    if interp.user_dunder(obj, "__getattr__") is not None and not _found_past_hook(interp, obj, name):
        raise UserCodeError(f"AttributeError: '{type(obj).__name__}' object has no attribute "
                            f"'{name}'")
    return interp.getattr(obj, name)


def _found_past_hook(interp, obj, name) -> bool:
    """Whether obj.name is found before a __getattr__ hook would be called:
    stored by this call, or on the object or its class."""
    if (id(obj), name) in interp.shadow:
        return True
    try:
        (type if isinstance(obj, type) else object).__getattribute__(obj, name)
    except AttributeError:
        return False
    return True


@builtin(py.vars)
def vars_(interp, *args):
    """vars(obj) is obj.__dict__ (its items the object's attributes, read and
    rebound as those: calls.attribute_dict); vars() is locals(), refused."""
    if not args:
        raise UnsupportedError("calling vars() without an argument is not supported in "
                               "compiled code", hint="refer to local variables by name")
    if len(args) > 1:
        raise UserCodeError(f"TypeError: vars expected at most 1 argument, got {len(args)}")
    try:
        return interp.getattr(args[0], "__dict__")
    except AttributeError:
        raise UserCodeError("TypeError: vars() argument must have __dict__ attribute") from None


@builtin(py.globals)
def globals_(interp):
    """globals(): the calling function's module dict, its items read and
    rebound as the globals are (`globals()[cfg["type"]]`, a class registry)."""
    return interp.globals_dict(interp.frames[-1].func)


def _attribute_name(name, what: str) -> str:
    if isinstance(name, str):
        return name
    if isinstance(name, Array):
        raise UnsupportedError(f"{what}() with an attribute name computed at run time is "
                               "not supported", hint="name the attribute: obj.name = value")
    raise UserCodeError(f"TypeError: attribute name must be string, not "
                        f"'{type(name).__name__}'")


@builtin(py.super)
def super_(interp, *args):
    if args:
        return super(*args)
    frame = interp.frames[-1]
    cls = frame.cells["__class__"].cell_contents
    first = frame.func.__code__.co_varnames[0]
    return super(cls, frame.locals[first])
