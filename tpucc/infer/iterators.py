"""Functional iterators: FOR_ITER replaces the iterator on the stack by its
successor instead of mutating it, so snapshots of interpreter state taken for
the two arms of a runtime branch never share a mutable iterator."""
from __future__ import annotations

import collections.abc
import contextlib
import dataclasses
import itertools
from dataclasses import dataclass, field

import numpy as np

from ..errors import StaticValueError, UnsupportedError, UserCodeError


@dataclass(frozen=True, slots=True)
class RangeIter:
    """range(start, stop, step); pos/stop may be runtime Arrays (weak ints).
    With `rows` (an Array), the items are rows[pos] instead of pos: a loop
    over an array's rows (`for x in xs`) is a loop over their indices, so a
    long one runs as one counted While as `for i in range(n)` does, and each
    row is read when the loop gets to it (NumPy's iterator sees writes to
    later rows).  `rows` may also be a tuple of such parts, Arrays and static
    ranges, whose items at pos make each item: `for i, x in enumerate(xs)`
    and `for x, y in zip(xs, ys)` (builtins_impl.rows_loop)."""
    pos: object
    stop: object
    step: int
    rows: object = None
    # Whether the loop over it already ran its first iteration unrolled
    # (loops._unroll peels one iteration to bind what a While then carries)
    peeled: bool = field(default=False, compare=False)

    def advanced(self) -> "RangeIter":
        from ..ops.python_ints import unchecked
        with unchecked():       # (the position past the end may wrap: never read)
            return RangeIter(self.pos + self.step, self.stop, self.step, self.rows, self.peeled)

    def item(self):
        """The item at pos (a row: a view of `rows`, as NumPy's iterator gives)."""
        if self.rows is None:
            return self.pos
        from ..ops.python_ints import unchecked
        with unchecked():       # (start + pos * step: in the range, where wrapped or not)
            if isinstance(self.rows, tuple):
                return tuple(self._part(p) for p in self.rows)
            return self._part(self.rows)

    def _part(self, source):
        if isinstance(source, tuple):           # enumerate(zip(...)): its items
            return tuple(self._part(p) for p in source)
        if isinstance(source, Counting):
            return source.start + self.pos
        if isinstance(source, Stepped):
            return source.start + self.pos * source.step
        if isinstance(source, range):
            if source.start == 0 and source.step == 1:
                return self.pos
            return source.start + self.pos * source.step
        from ..ops.assign import FlatIter
        from .list_loops import ListRows
        if isinstance(source, (FlatIter, ListRows)):
            return source.item_at(self.pos)
        from ..ops.indexing import row
        from .values import scalar_if_numpy_would
        return scalar_if_numpy_would(source, self.pos, row(source, self.pos))

    def is_static(self) -> bool:
        return not isinstance(self.pos, Array) and not isinstance(self.stop, Array)

    def remaining(self) -> int:
        return len(range(self.pos, self.stop, self.step))


@dataclass(frozen=True, slots=True)
class Stepped:
    """The items of a range whose step is known only at run time, counted
    by position (a part of a RangeIter's rows): start + pos * step."""
    start: object
    step: object


@dataclass(frozen=True, slots=True)
class Counting:
    """enumerate's count from a start known only at run time (a part of a
    RangeIter's rows): start + pos."""
    start: object


@dataclass(frozen=True, slots=True, weakref_slot=True)   # (calls._refuse_late_binding)
class SeqIter:
    """Iteration over a static sequence of (static or runtime) items.  Made
    from a list or an array, it keeps that `source`, its `stamp` when the
    items were read, and `read` (position -> item, as enumerate or reversed
    give it): a list's or an array's iterator reads each item when it gets
    there, so a write to a later item in the loop body is seen
    (interpreter.FOR_ITER reads the item again once the stamp changed), and
    a list's forward iterator runs to its length then (items appended in the
    body are reached: `follows_length`)."""
    items: tuple
    pos: int = 0
    source: object = None
    stamp: object = None
    read: object = None
    follows_length: bool = False
    cursor: object = None
    # The Python type it stands for ('generator', 'zip', 'list_iterator'):
    # what Python's TypeErrors name (len(), reversed(), it[0])
    kind: str = field(default="iterator", compare=False)

    def advanced(self) -> "SeqIter":
        return self.at(self.pos + 1)

    def at(self, pos: int) -> "SeqIter":
        return dataclasses.replace(self, pos=pos)

    def with_items(self, items: tuple) -> "SeqIter":
        """The same iterator over `items`.  (Every field is kept, `kind`
        too: it is part of a merge's structure (state.flatten), so a copy
        that lost it differs from the other paths' iterator.)"""
        return dataclasses.replace(self, items=items)

    def remaining(self) -> int:
        return max(len(self.items) - self.pos, 0)


@dataclass(frozen=True, eq=False, slots=True)
class Zipped:
    """A SeqIter's source for zip() of lists (and tuples, ranges): each list
    read when the loop gets to its item, as zip's list iterators read them
    (read_again_if_changed), the zip ending at the shortest.
    `lists`: the arguments that are lists (None for the others, which have
    `fixed` items at least)."""
    lists: tuple
    fixed: int

    def length(self) -> int:
        """How many items the zip has now."""
        return min([len(x) for x in self.lists if x is not None] + [self.fixed])


class Cursor:
    """Where one Python iterator stands, shared by the functional copies of
    it (SeqIter.cursor): a variable holding the iterator (`rows = iter(x)`,
    a zip, a generator) continues where a loop over it stopped, as the one
    Python object does.  `depth`: the runtime depth it was made at; one
    advanced deeper (under a runtime condition) stands where only the run
    knows (`runtime`).  `sure`: how far it was advanced on every path
    (pos is the furthest any path took it), and `runtime_loc` the line
    that first advanced it under a runtime condition: a generator that
    changes outside state must have run as far on each path as Python's
    (generator_runs.check_unconsumed_effects).  `length`: how many items
    the iterator it was made for has (a zip stepping it may end sooner)."""
    __slots__ = ("pos", "depth", "runtime", "check", "ended", "sure", "runtime_loc", "length")

    def __init__(self, depth: int, length: int):
        self.pos, self.depth, self.runtime = 0, depth, False
        # `check`: a generator's, refusing where what it read when made has
        # changed before it is advanced (generator_runs.checker); `ended`:
        # whether a consumer surely asked past its last item (its StopIteration)
        self.check, self.ended = None, False
        self.sure, self.runtime_loc, self.length = 0, None, length

    def advanced_by_runtime(self) -> None:
        """Advanced where only the run knows how far (a runtime condition)."""
        self.runtime = True
        if self.runtime_loc is None:
            self.runtime_loc = builder.current_loc()


# --- a user __next__ that stops at run time ----------------------------------------

# The local of a user __next__'s frame that says whether it raised
# StopIteration under a runtime condition (interpreter.RAISE_VARARGS): that
# raise returns from the frame instead, so the paths merge where it returns,
# and this flag, merged with them, says which one the run took.
STOPPED = "<stopped>"


@dataclass(eq=False, slots=True)
class NextCall:
    """A user __next__ (or an old-style __getitem__) being called by the
    iteration protocol (calls.Interpreter._item_or_end): `level` (exceptions.
    level()) and `calls` (how many frames call it) where it was called,
    `ending` the exception that ends the iteration, and `frame`, the method's
    own frame once made (its STOPPED flag is read when it returns)."""
    level: int
    ending: object
    calls: int
    frame: object = None


@dataclass(frozen=True, slots=True)
class RuntimeEnd:
    """What a user __next__ gave where it may raise StopIteration at run
    time: `item` where it did not (a placeholder where it did), and
    `stopped`, a runtime bool that says whether it did.  A `for` loop over
    the iterator leaves on it (interpreter.FOR_ITER); next(it, default)
    chooses between the item and the default."""
    item: object
    stopped: object


def type_name(it) -> str:
    """The Python type an iterator of ours stands for, as Python's
    TypeErrors name it ('generator', 'zip', 'range_iterator')."""
    return it.kind if isinstance(it, SeqIter) else "range_iterator"


# The Python types our iterators stand for, by their `kind` (type_name)
_PYTHON_TYPES = {type_.__name__: type_ for type_ in (
    type(x for x in ()), type(iter(np.empty(0))), type(iter([])), type(reversed([])),
    type(iter(())), type(iter(set())), type(iter(b"")), type(iter({})), type(reversed({})),
    type(iter(range(0))), reversed, enumerate, zip, map, filter,
    *(t for t in vars(itertools).values() if isinstance(t, type)))}
_PYTHON_TYPES["str_iterator"] = type(iter(""))      # (_iterator_kind's name of it)


def python_type(v) -> type | None:
    """The Python type that `v`, one of our iterators, stands for (a
    generator, a list_iterator, a.flat's flatiter), which type(v) and
    isinstance(v, ...) answer by; None where v is not one of ours.  A
    kind this table lacks (a native iterator's, read ahead by a loop:
    calls._looped_native) gets a stand-in type of its name, an Iterator."""
    from ..ops.assign import FlatIter
    from .popped_queues import PoppedQueue
    if isinstance(v, FlatIter):
        return np.flatiter
    if isinstance(v, PoppedQueue):
        return v.kind           # (a list or deque whose pops are counted at run time)
    if not isinstance(v, (SeqIter, RangeIter)):
        return None
    kind = type_name(v)
    if kind not in _PYTHON_TYPES:
        _PYTHON_TYPES[kind] = type(kind, (_StandIn,), {})
    return _PYTHON_TYPES[kind]


class _StandIn(collections.abc.Iterator):
    """The base of stand-in iterator types (python_type)."""
    __slots__ = ()

    def __next__(self):
        raise StopIteration


def caught_up(it: SeqIter) -> SeqIter:
    """`it` where its iterator stands now (an older copy of it lags)."""
    c = it.cursor
    if c is not None and c.check is not None and isinstance(it.pos, int) \
            and max(c.pos, it.pos) < len(it.items):
        c.check()
    if c is None or not isinstance(it.pos, int) or c.pos <= it.pos:
        return it
    if c.runtime:
        raise StaticValueError(
            "this iterator was advanced under a runtime condition (in a runtime `if` or "
            "`while`, by a loop over it that a runtime `break` or `return` may leave, or by "
            "an `in` test that stops at a runtime match), so where it stands is known only "
            "at run time",
            hint="iterate over an array's rows or over range(n) instead (a runtime early exit "
                 "from those compiles), or find the position with np.argmax of a mask")
    return it.at(c.pos)


def refuse_advance_in_loop(it: SeqIter) -> None:
    """next(it) (or a zip's pull) in the body of a runtime loop (a While)
    entered after `it` was made: each iteration would take the next item,
    so which one is known only at run time.  Refused before the iterator
    moves: a long static loop tried as a counted While is then unrolled,
    where each next() takes its item (a Cursor moved by the trial would
    stay moved: every later next() refused too)."""
    c = it.cursor
    if c is None or not any(builder.ctx().runtime_loops[c.depth:]):
        return
    raise StaticValueError(
        "next() in a loop that runs as a runtime loop, of an iterator made before it: which "
        "item each iteration takes would be known only at run time",
        hint="index the array by the loop's counter instead (x[2 * i], x[2 * i + 1]), or "
             "loop over it with `for v in it`")


def note_advance(it: SeqIter, depth: int):
    """Records that a loop (or a consumer) took `it`'s items up to it.pos."""
    c = it.cursor
    if c is None or not isinstance(it.pos, int):
        return
    _journaled(c)
    if depth > c.depth:
        c.advanced_by_runtime()
    else:
        c.sure = max(c.sure, it.pos)
    c.pos = max(c.pos, it.pos)


# --- attempts that are undone ---------------------------------------------------
#
# control._attempt interprets paths in a region it may throw away (paths
# that meet with different static values are then interpreted apart).  A
# Cursor is shared state outside the frame: an attempt that fails must
# leave it where it stood, else the next attempt finds its iterator
# advanced past the items it has yet to take, under a runtime condition
# (`for i, (w, b) in enumerate(zip(ws, bs))` left by a runtime `break`).

@contextlib.contextmanager
def cursor_journal():
    """Records where each Cursor stood before the code inside first moved
    it: -> {id: (cursor, its fields)}, for undo_cursors (done
    where an error leaves it).  What is not undone is kept in the
    enclosing journal too."""
    journals = builder.ctx().cursor_journals
    journal: dict = {}
    journals.append(journal)
    try:
        yield journal
    except BaseException:
        undo_cursors(journal)
        raise
    finally:
        journals.pop()
        if journals:
            for key, saved in journal.items():
                journals[-1].setdefault(key, saved)


def undo_cursors(journal: dict) -> None:
    for c, fields in journal.values():
        for name, value in zip(_UNDONE_FIELDS, fields):
            setattr(c, name, value)


# What moving a Cursor changes (all but what it was made with)
_UNDONE_FIELDS = ("pos", "runtime", "ended", "sure", "runtime_loc")


def _journaled(c: Cursor) -> Cursor:
    journals = builder.ctx().cursor_journals
    if journals and id(c) not in journals[-1]:
        journals[-1][id(c)] = (c, tuple(getattr(c, name) for name in _UNDONE_FIELDS))
    return c


# Items read from one native iterable at compile time (itertools.count() never ends).
MAX_NATIVE_ITEMS = 1_000_000


# A count() that a loop takes straight from the call stops here: no loop
# runs this many iterations.
_COUNT_HORIZON = 2 ** 40


class _Horizon(int):
    """The stop of a counting_range: marks it endless, so that a loop over it
    (a While, its counter a runtime value) has no path that runs out of items
    (only a `break` or `return` leaves it, as `while True:`)."""


def counting_range(args, kwargs) -> RangeIter | None:
    """`for i in itertools.count(start, step)` with Python int arguments:
    the range it is up to any loop's end, so a static `break` ends it where
    it is unrolled and a runtime one leaves a While (None for another count)."""
    try:
        start, step = _count_arguments(*args, **kwargs)
    except TypeError:
        return None
    if type(start) is not int or type(step) is not int or step == 0:
        return None
    return RangeIter(start, _Horizon(start + step * _COUNT_HORIZON), step)


def is_endless_count(it: RangeIter) -> bool:
    """A counting_range (no loop gets near its end): a loop over it runs
    as `while True` does, unrolled until its exit is runtime."""
    return it.rows is None and type(it.stop) is _Horizon


def _count_arguments(start=0, step=1):
    return start, step


@dataclass(frozen=True, slots=True)
class NativeSteps:
    """A loop over an endless iterator of itertools' (a count() made before
    the loop, cycle(), repeat()): its items read one at a time as the loop
    gets to them, which only a static `break` or `return` can end. `depth`:
    the runtime depth the loop started at; a loop running deeper (one
    that becomes a While, traced again and again) cannot read a Python
    iterator."""
    it: object
    depth: int

    def step(self):
        if builder.ctx().runtime_depth != self.depth:
            what = type(self.it).__name__
            hint = ("a static `break` within the unroll budget ends it; else count with a "
                    "variable (`i = 0; while cond: ...; i += 1`), or loop over "
                    "`itertools.count()` written in the `for` statement itself")
            if what == "repeat":
                hint = "loop over a range instead: `for _ in range(n):` using the value itself"
            raise UnsupportedError(
                f"a loop over itertools.{what}() that runs as a runtime loop (left on a "
                "runtime condition, or longer than the unroll budget) is not supported",
                hint=hint)
        return next(self.it, END)


END = object()      # what NativeSteps.step gives past the end (of a repeat(x, n))
ENDLESS = (itertools.count, itertools.cycle, itertools.repeat)


# NumPy's iterators of native code: np.ndindex(2, 3), and from outside the
# call a.flat and np.nditer (made inside, a.flat is an ops.assign.FlatIter).
NUMPY_ITERATORS = (np.ndindex, np.flatiter, np.nditer)


def is_native_iterator(x) -> bool:
    """An iterator of Python's, itertools' or NumPy's own (a generator made
    by native code, itertools.count(), np.ndindex(2, 3)): next() on it
    reads it now."""
    return (hasattr(type(x), "__next__") and type(x).__module__ in ("itertools", "builtins")
            or isinstance(x, NUMPY_ITERATORS)) and not isinstance(x, (SeqIter, RangeIter))


def note_outside_iterator(x, where: str) -> None:
    """`x`, found outside the call (`where`: "argument batches", "global
    `it`"), is a Python iterator: compiled code may not advance it
    (refuse_outside_iterator)."""
    if is_native_iterator(x):
        builder.ctx().outside_iterators.setdefault(id(x), (x, where))


def note_made_native(x) -> None:
    """`x`, what a call of the program gave, is a Python iterator (itertools.
    count(), a held zip or map): where it was first seen is where it was
    made, at the runtime depth now (refuse_advanced_deeper)."""
    if is_native_iterator(x):
        builder.ctx().native_iterator_depths.setdefault(id(x), (x, builder.ctx().runtime_depth))


def refuse_advanced_deeper(x) -> None:
    """Refuses to advance a Python iterator the program made (next(c) of
    c = itertools.count()) deeper than it was made: in a runtime `if` or
    loop.  It is a real iterator, read while compiling, so it would advance
    once per trace whichever way the run goes; Python's advances only
    where the branch runs, as many times as the loop does."""
    made = builder.ctx().native_iterator_depths.get(id(x))
    if made is None or made[0] is not x or builder.ctx().runtime_depth <= made[1]:
        return
    raise StaticValueError(
        f"this iterator (a {type(x).__name__}) was advanced under a runtime condition (in a "
        "runtime `if` or `while`, or a loop with a runtime length) that it was made outside "
        "of: how far it advances is known only at run time",
        hint="count with a variable (`k = 0` before, `k += 1` where an item is taken), or "
             "index a list or array of the items by it (`items[k]`)")


def refuse_outside_iterator(x) -> None:
    """Refuses to advance (next(), a for loop, a call that consumes it) a
    Python iterator from outside the call: its items would be read once,
    while compiling, and folded in; every later call would reuse them and
    leave the caller's iterator where it is.  An iterator the program makes
    is made again at each call, so reading it while compiling is exact,
    except deeper than it was made (refuse_advanced_deeper: every site that
    advances a native iterator comes here first)."""
    refuse_advanced_deeper(x)
    found = builder.ctx().outside_iterators.get(id(x))
    if found is None or found[0] is not x:
        return
    raise UnsupportedError(
        f"{found[1]} (a {type(x).__name__}) is an iterator from outside the compiled function, "
        "advanced inside it: compiled code would read its items once, while compiling, "
        "and every call would reuse them without advancing it",
        hint="take the item outside and pass it (step(w, next(batches))), or pass the "
             "batches stacked in one array with an index (x = batches[i])")


class RaisingTail(tuple):
    """A generator's items, then the exception it raised after yielding them.
    tpucc runs a generator to its end when it is called; the program meets
    the exception only where it asks for the item after the last: any()
    that stops at a deciding item, or a loop left by `break`, never does."""

    def __new__(cls, items, error):
        tail = super().__new__(cls, items)
        tail.error = error
        return tail

    def __iter__(self):
        yield from tuple.__iter__(self)
        self.past_end()

    def __getitem__(self, key):
        got = tuple.__getitem__(self, key)
        return RaisingTail(got, self.error) if isinstance(key, slice) else got

    def past_end(self):
        from .exceptions import level
        self.error.level = level()      # raised here, in the consumer (its `try` may catch it)
        raise self.error


class ReturningTail(tuple):
    """A generator's items, then the value its `return` gave: what the
    StopIteration after the last item holds (`e.value`) and what `yield
    from` evaluates to. (A generator returning None keeps a plain tuple.)"""

    def __new__(cls, items, value):
        tail = super().__new__(cls, items)
        tail.value = value
        return tail

    def __getitem__(self, key):
        got = tuple.__getitem__(self, key)
        return ReturningTail(got, self.value) if isinstance(key, slice) else got


def past_end(items):
    """At the end of an iterator's items: the exception its generator raised
    there, if any."""
    if isinstance(items, RaisingTail):
        items.past_end()


def held_iterator(items, **fields) -> SeqIter:
    """A SeqIter the program may keep (iter(), zip(), a generator): its
    copies share one Cursor."""
    items = items if isinstance(items, (RaisingTail, ReturningTail)) else tuple(items)
    return SeqIter(items, cursor=Cursor(builder.ctx().runtime_depth, len(items)), **fields)


def loop_iterator(items, **fields) -> SeqIter:
    """A SeqIter that only the `for` statement taking it holds (`for p in
    (1, 2)`, `for k, d in enumerate(DIRS)`): no variable reaches it, so it
    needs no Cursor.  Each copy stands where its own path took it: the arm
    of a runtime `if` that starts the loop's next iteration, a While trial
    thrown away, an unrolled iteration tried again (a shared Cursor would
    say such a copy lags behind a position only the run knows)."""
    items = items if isinstance(items, (RaisingTail, ReturningTail)) else tuple(items)
    return SeqIter(items, **fields)


def read_again_if_changed(it: SeqIter) -> SeqIter:
    """`it` with its next item read again from its list or array when the
    loop body changed that since the items were read (`a[i + 1] = 2 * v`,
    `lst[2] = 10`): one item a step, read when the loop gets to it; a list
    the body made longer or shorter, up to its length now (`follows_length`)."""
    source, items, pos = it.source, it.items, it.pos
    if source is None or not isinstance(pos, int):
        return it
    if type(source) in (dict, set):
        if len(source) != it.stamp:
            what = "dictionary" if type(source) is dict else "Set"
            raise UserCodeError(f"RuntimeError: {what} changed size during iteration")
        if it.read is None or pos >= len(items):
            return it       # (a dict's values: read again each step, a lookup)
    elif isinstance(source, Array):
        if source.var is it.stamp or pos >= len(items):
            return it
    elif isinstance(source, Zipped):
        n = source.length()
        if n != len(items):
            items = items[:n] + tuple(it.read(k) for k in range(len(items), n))
        elif pos >= len(items) or all(x is None or pos >= len(stamp) or x[pos] is stamp[pos]
                                      for x, stamp in zip(source.lists, it.stamp)):
            return it
    else:       # a list: its length, and the item here (one check a step, not a copy)
        k = pos if it.follows_length else len(it.stamp) - 1 - pos      # (reversed's)
        if it.follows_length and len(source) != len(items):
            items = items[:len(source)] + tuple(it.read(k) for k in range(len(items),
                                                                       len(source)))
        elif pos >= len(items) or not 0 <= k < min(len(source), len(it.stamp)) or \
                source[k] is it.stamp[k]:
            return it
    if pos < len(items):
        items = items[:pos] + (it.read(pos),) + items[pos + 1:]
    return SeqIter(items, pos, source, it.stamp, it.read, it.follows_length, it.cursor,
                   it.kind)


def consumed(it: SeqIter) -> tuple:
    """The items left in `it`, taken by a consumer that reads them all
    (list(it), unpacking): the iterator is exhausted afterwards."""
    it = _read_rest_again_if_changed(caught_up(it))
    rest = it.items[it.pos:] if isinstance(it.pos, int) else it.items
    if isinstance(it.pos, int):
        # (it asked past the last item: a generator's changes after its
        # last yield happened, as Python's do at that StopIteration)
        _note_ended(it)
        note_advance(it.at(_end(it.items)), builder.ctx().runtime_depth)
    return rest


def where_now(it: SeqIter) -> SeqIter:
    """`it` caught up, with each item left read again where its source
    changed: for a consumer that may stop early (`v in it`), which says how
    far it went with note_search."""
    if not isinstance(it.pos, int):
        raise StaticValueError("`in` on an iterator that a runtime loop advanced: where it "
                               "stands is known only at run time",
                               hint="search a list or an array instead: `v in list(it)`")
    return _read_rest_again_if_changed(caught_up(it))


def note_search(it: SeqIter, taken: int, runtime: bool) -> None:
    """Records that `v in it` took `taken` items of `it`, or up to that many
    where `runtime` comparisons decided (then only the run knows where it
    stands, and a later use of it is refused by caught_up)."""
    c = it.cursor
    if c is None or taken == 0:
        return
    if runtime:             # (up to `taken`: only the first is sure to be taken)
        note_advance(it.at(it.pos + 1), builder.ctx().runtime_depth)
        _journaled(c).advanced_by_runtime()
    note_advance(it.at(it.pos + taken), builder.ctx().runtime_depth + runtime)


def _read_rest_again_if_changed(it: SeqIter) -> SeqIter:
    """`it` with each item left read again where its list, array or dict
    changed since it was made (`it = iter(lst); lst[2] = v; list(it)` sees
    v, as Python's iterator reads each item when it gets there)."""
    if it.source is None or not isinstance(it.pos, int):
        return it
    start = it.pos
    while True:
        it = read_again_if_changed(it)
        if it.pos >= len(it.items):
            return it.at(start)
        it = it.advanced()


def ended(it: SeqIter):
    """`it` (caught up) asked for the item after its last: the exception
    its generator raised there, if any, else the value it returned
    (StopIteration.value). Only this first StopIteration carries that
    value, as Python's."""
    _note_ended(it)
    past_end(it.items)
    value = returning(it)
    note_advance(it.at(_end(it.items)), builder.ctx().runtime_depth)
    return value


def _note_ended(it: SeqIter) -> None:
    """A consumer asked `it` (caught up) for the item after its last: its
    generator has ended, where every path gets here and where `it` is not
    a zip that ends at a shorter argument before the generator it steps
    does (builtins_impl._zip_in_step: Python's zip then leaves it)."""
    c = it.cursor
    if c is not None and builder.ctx().runtime_depth <= c.depth and len(it.items) >= c.length:
        _journaled(c).ended = True


def _end(items) -> int:
    """Where an iterator stands once its StopIteration was met: one past
    its last item where that StopIteration held a returned value (a second
    one holds None)."""
    return len(items) + isinstance(items, ReturningTail)


def returning(it: SeqIter):
    """The value the generator behind `it` (caught up) returned, where its
    StopIteration has not yet been met (None for other iterators'): what
    `yield from it` gives."""
    if isinstance(it.items, ReturningTail) and isinstance(it.pos, int) \
            and it.pos <= len(it.items):
        return it.items.value
    return None


from . import builder  # noqa: E402  (bound last: builder's imports come back here)
from .values import Array  # noqa: E402  (bound last: a function-level import runs at every call)
