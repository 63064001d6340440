"""Long loops over a list's items: one counted While.

`ys = [w @ h for h in hs]` over the 300 states an RNN appended used to be
unrolled: 300 copies of the body, seconds of XLA.  When the items are
alike (arrays of one shape and dtype, tuples of such, numbers), the loop
is a counted While over the positions instead (loops._try_counted_list):
the item at a runtime position is picked from the items stacked, or from
the buffer whose rows they are when a counted loop appended them
(stacking.whole_buffer: no copy).  The stacking is emitted in the body,
from the items as they are there: an item the body rebinds (`hs[0] = v`)
or updates through another name is read as Python's iterator reads it,
when the loop gets to it; an unchanged list's stacking is loop-invariant,
which XLA hoists out of the While.

Only where that is exact:
- the picked item is a copy, not the list's array: an in-place update of
  it (`h += 1`, `h[0] = 0`) is refused (values.CHOSEN) while the While is
  tried, and the loop is unrolled as before;
- the list keeps its length (a change raises while the While is tried);
- the last iteration runs unrolled after the While, so that the loop
  variable then holds the list's last item itself, as in Python (where a
  runtime `break` or `return` may leave the loop, all of it is one While,
  and the variable is then a copy of the item it left at);
- nothing else advances the iterator meanwhile (`next(it)` in the body of
  `for v in it`): `refused_elsewhere`.
Items that are static numbers (np.ndindex's, itertools.product's, a list
of `(i, j)` pairs) are picked so too, as a range loop's counter is a
runtime int past the budget: where the body needs them at compile time
(a shape), computes Python numbers only (their sums stay static), or a
later line needs such a number (CountedStatics), the loop is unrolled as
a range loop would be (loops._try_counted); so is a loop over ints from
BIG_INT up, which Python computes with exactly.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from ..errors import SideEffectError
from ..ir import AVal
from . import picked_copies
from .builder import ctx, emit, emit_op
from .iterators import SeqIter
from .state import has_static_keys
from .values import CHOSEN, Array

_STATIC = (str, bytes, type(None), bool, int, float, complex)


class NotPickable(SideEffectError):
    """The items of a list differ in a way one runtime pick cannot give."""


@dataclass(frozen=True, eq=False)
class ListRows:
    """A RangeIter's rows (iterators.RangeIter.item): the items of a
    SeqIter, read at a runtime position.  `count`: how many it has;
    `read`: position -> the item now (a list's iterator reads it when
    it gets there), or None for the fixed `items` of a tuple, a zip or
    a generator."""
    items: tuple
    read: object
    source: object
    # The items' arrays stacked before the loop (`prestack`): key -> Array
    stacked: dict = field(default_factory=dict)
    # Where the run of alike items the While picks from ends (alike_run),
    # None: at the end; the items after it differ, and a loop of its own
    # goes over them (`zip_longest(a, b)`: a's and b's rows, then a's rows
    # and the fill value).
    end: int | None = None
    # Where the loop starts: the items before it (a run before, or those
    # an iterator gave before the loop) are not picked from.
    start: int = 0

    def item_at(self, pos):
        if isinstance(pos, int):
            return self._current(pos)
        if type(self.source) is list and len(self.source) != len(self.items):
            raise NotPickable("the loop changes the length of the list it goes over")
        pick = picker([self._current(k) for k in range(self.start, self._stop())], self.stacked)
        return pick(emit("subtract", pos, np.int64(self.start)) if self.start else pos)

    def _stop(self) -> int:
        return len(self.items) if self.end is None else self.end

    def prestack(self):
        """Stacks the items' arrays where the loop starts, outside its While:
        the body's picks of items it leaves unchanged read those stacks (a
        stacking in the body, once per iteration, is XLA's to hoist, and
        reverse mode would transpose it into one slice per item per
        iteration: 12 s of XLA for 64 layers).  Unused stacks are dead code."""
        try:
            _prestack([self._current(k) for k in range(self.start, self._stop())],
                      self.stacked)
        except NotPickable:
            pass

    def _current(self, k: int):
        return self.items[k] if self.read is None else self.read(k)


def rows_of(it: SeqIter) -> ListRows | None:
    """The rows for a counted loop over `it`'s items, or None where they
    differ in type."""
    if type(it.items) is not tuple or not isinstance(it.pos, int):
        return None
    rows = ListRows(it.items, it.read, it.source, start=it.pos)
    current = [rows._current(k) for k in range(it.pos, len(it.items))]
    if not current or any(map(_holds_big_int, current)):
        return None
    try:
        _check_alike(current)
    except NotPickable:
        return None
    return rows


def alike_run(it: SeqIter) -> ListRows | None:
    """The rows for a counted loop over the first of `it`'s items (from
    where it stands) as far as they stay alike (ListRows.end), where the
    rest differ from them; None where there is no such run of 3 or more."""
    if type(it.items) is not tuple or not isinstance(it.pos, int):
        return None
    rows = ListRows(it.items, it.read, it.source)
    first = rows._current(it.pos)
    end = it.pos + 1
    while end < len(it.items) and alike([first, rows._current(end)]):
        end += 1
    if end - it.pos < 3 or end == len(it.items) or any(
            _holds_big_int(rows._current(k)) for k in range(it.pos, end)):
        return None
    return ListRows(it.items, it.read, it.source, end=end, start=it.pos)


class _Cursor:
    def __init__(self, cursor):
        self.cursor, self.kept = cursor, False

    def keep(self):
        """The loop ran as one While that a runtime `break` may leave: the
        iterator stays where only the run knows."""
        self.kept = True


@contextlib.contextmanager
def refused_elsewhere(it: SeqIter):
    """While the While is tried, the iterator stands where only the run
    knows (iterators.caught_up refuses another copy of it: the loop is
    unrolled); after, at `it`'s position, unless `keep()` was called."""
    c = it.cursor
    handle = _Cursor(c)
    if c is None:
        yield handle
        return
    saved = c.pos, c.runtime
    c.pos, c.runtime = len(it.items), True
    try:
        yield handle
    finally:
        if not handle.kept:
            c.pos, c.runtime = saved


def alike(items) -> bool:
    """Whether one runtime pick can give each of `items` (`picked`)."""
    try:
        _check_alike(items)
    except NotPickable:
        return False
    return True


def is_tuple(v) -> bool:
    """A tuple or named tuple (immutable: a rebuilt one is as good)."""
    return type(v) is tuple or isinstance(v, tuple) and hasattr(type(v), "_fields")


def _check_alike(items):
    """Raises NotPickable unless one runtime pick can give each item."""
    first = items[0]
    if isinstance(first, Array):
        number = first.aval.weak and not first.shape    # (a Python number, either flag)
        if not isinstance(first.immutable, bool) or any(
                not isinstance(a, Array) or a.aval != first.aval
                or not isinstance(a.immutable, bool)
                or a.immutable is not first.immutable and not number for a in items):
            raise NotPickable("the list holds arrays of different types")
    elif is_tuple(first):
        if any(type(v) is not type(first) or len(v) != len(first) for v in items):
            raise NotPickable("the list holds tuples of different lengths")
        for parts in zip(*items):
            _check_alike(parts)
    elif type(first) is dict:           # a layer's parameters: {"w": ..., "b": ...}
        keys = list(first)
        if any(type(v) is not dict or list(v) != keys for v in items) or \
                not has_static_keys(first):
            raise NotPickable("the list holds dicts with different keys")
        for k in keys:
            _check_alike([v[k] for v in items])
    elif is_record_object(first):      # `materials[k].kd`, `for s in spheres: s.c`
        names = list(vars(first))
        if any(type(v) is not type(first) or list(vars(v)) != names for v in items):
            raise NotPickable("the list holds objects of different classes or attributes")
        for k in names:
            _check_alike(_attribute_column(items, k))
    elif not (_all_equal_static(items) or _numbers_of_one_type(items)):
        raise NotPickable("the list holds items of different kinds")


def is_record_object(v) -> bool:
    """An instance of a user class whose attributes live in its plain
    __dict__ (a dataclass, a class whose __init__ sets self.c, self.r),
    read as Python reads them: a record, picked at a runtime position as a
    named tuple is, attribute by attribute."""
    cls = type(v)
    return not isinstance(v, (type, Array, tuple, list, dict)) \
        and type(getattr(v, "__dict__", None)) is dict \
        and not cls.__module__.startswith(("builtins", "tpucc", "numpy", "jax", "types")) \
        and cls.__getattribute__ is object.__getattribute__ \
        and getattr(cls, "__getattr__", None) is None \
        and cls.__new__ is object.__new__ \
        and not any("__slots__" in vars(c) for c in cls.__mro__) \
        and ctx().read_attribute is not None
    # (the copy is made with object.__new__ and its __dict__: all it holds)


def _attribute_column(objects, name) -> list:
    """Attribute `name` of each object, as the program reads it (an array
    of an object from outside: a captured input)."""
    read = ctx().read_attribute
    return [read(v, name) for v in objects]


def chosen_object(cls, attributes: dict, candidates=()):
    """An object picked at a runtime position of a list: a new instance of
    its class holding the picked attributes, which the program may read and
    call methods of, but not change (the change would not reach the list's
    object: interpreter.setattr refuses it).  `candidates`: the list's
    objects it stands for (returned as a copy only where the caller cannot
    tell it from them: infer._returned_objects)."""
    made = cls.__new__(cls)
    made.__dict__.update(attributes)
    ctx().chosen_containers[id(made)] = made
    ctx().chosen_candidates[id(made)] = tuple(candidates)
    return made


def picked(items, pos):
    """The item at runtime position `pos` of `items` (all alike): a copy,
    rebuilt (an array in it refuses updates in place: values.CHOSEN)."""
    return picker(items)(pos)


def picker(items, stacked=None):
    """picked(items, pos) for any number of positions: a function of the
    position, the items stacked once (or found in `stacked`: ListRows.prestack)."""
    from ..ops import indexing, shape
    first = items[0]
    _check_alike(items)
    if all(v is first for v in items) or _all_equal_static(items):
        return lambda pos: first    # (`[w] * n`: that very object, whatever the position)
    if isinstance(first, Array):
        whole = (stacked or {}).get(_stack_key(items))
        if whole is None:
            whole = shape.stack(items)      # (the buffer itself for a counted loop's rows)
        return lambda pos: marked_copy(items, _like(indexing.row(whole, pos), first))
    if is_tuple(first):
        parts = [picker(list(column), stacked) for column in zip(*items)]
        rebuilt = tuple if type(first) is tuple else lambda xs: type(first)(*xs)
        return lambda pos: rebuilt([part(pos) for part in parts])
    if type(first) is dict:
        inner = {k: [v[k] for v in items] for k in first}
        columns = {k: picker(column, stacked) for k, column in inner.items()}
        return lambda pos: _marked_whole(items, inner, chosen_container(
            {k: part(pos) for k, part in columns.items()}))
    if is_record_object(first):
        inner = {k: _attribute_column(items, k) for k in vars(first)}
        columns = {k: picker(column, stacked) for k, column in inner.items()}
        return lambda pos: _marked_whole(items, inner, chosen_object(
            type(first), {k: part(pos) for k, part in columns.items()}, items))
    column = _number_column(items)
    model = _NUMPY_SCALAR if isinstance(first, np.generic) else _PY_NUMBER
    return lambda pos: _like(indexing.row(column, pos), model)


def _prestack(items, out: dict):
    """ListRows.prestack: each column of arrays among `items` stacked into
    `out`, keyed by the Values they hold now."""
    from ..ops import shape
    first = items[0]
    _check_alike(items)
    if all(v is first for v in items) or _all_equal_static(items):
        return
    if isinstance(first, Array):
        out[_stack_key(items)] = shape.stack(items)
    elif is_tuple(first):
        for column in zip(*items):
            _prestack(list(column), out)
    elif type(first) is dict:
        for k in first:
            _prestack([v[k] for v in items], out)
    elif is_record_object(first):
        for k in vars(first):
            _prestack(_attribute_column(items, k), out)


def _stack_key(arrays) -> tuple:
    """The arrays' Values: the same key where none of them changed since."""
    return tuple(a.var for a in arrays)


def marked_copy(originals, copy):
    """`copy`, a runtime pick among `originals`, which are marked with it:
    a change of one is refused while the program can still read the copy,
    which would not see it (picked_copies)."""
    picked_copies.mark(originals, copy)
    return copy


def _marked_whole(items, inner: dict, copy):
    """`copy`, a dict or object picked among `items` and built of parts
    picked among their values (`inner`: key -> column): it marks the items
    and those values, and its references to its parts count as tpucc's own,
    so that a part's own pick says "held" only while the program holds that
    part itself, not while a whole the program dropped (a loop's item in an
    attempt thrown away) is kept by tpucc's registries."""
    parts = copy.values() if isinstance(copy, dict) else vars(copy).values()
    picked_copies.adopt(parts)
    picked_copies.mark([*items, *(v for column in inner.values() for v in column)], copy)
    return copy


def chosen_container(made: dict) -> dict:
    """A dict picked at a runtime position: a copy, which the program may
    read but not change (the change would not reach the list's dict)."""
    ctx().chosen_containers[id(made)] = made
    return made


_PY_NUMBER = object()       # _like's model: a Python number (weak, immutable)
_NUMPY_SCALAR = object()    # ... a NumPy scalar (strong, immutable)


def _like(view: Array, model) -> Array:
    """A copy (not a view) of the picked row with `model`'s kind: a NumPy
    scalar or a Python number stays one, an array refuses updates in place
    (they would not reach the list's array)."""
    number = model is _PY_NUMBER or model is _NUMPY_SCALAR
    weak = model is _PY_NUMBER or (not number and model.aval.weak)
    var = view.var
    if var.aval.weak != weak:
        (var,) = emit_op("convert", (var,), {"dtype": var.aval.dtype},
                         (AVal(var.aval.dtype, var.aval.shape, weak),))
    item = Array(var)
    item.immutable = True if number else model.immutable
    if item.immutable is False:
        item.frozen = CHOSEN
    return item


def _all_equal_static(items) -> bool:
    first = items[0]
    return isinstance(first, _STATIC) and all(
        type(v) is type(first) and (v is first or v == first) for v in items)


# Static ints from this magnitude up keep a loop over them unrolled: there
# they stay static, computed with exactly as Python does (`v * 4` of 2**62),
# while a runtime pick is an int64, whose arithmetic past 2**63 is refused at
# run time (E910).  A product of two smaller ones fits in an int64.
BIG_INT = 2 ** 31


def _holds_big_int(item, depth=3) -> bool:
    if type(item) is int:
        return abs(item) >= BIG_INT
    if depth > 0 and isinstance(item, (tuple, list)):
        return any(_holds_big_int(v, depth - 1) for v in item)
    if depth > 0 and type(item) is dict:
        return any(_holds_big_int(v, depth - 1) for v in item.values())
    return False


def _numbers_of_one_type(items) -> bool:
    """Python numbers of one type (enumerate's counts), which a table holds:
    ints within int64, floats.  (Not bools: `b and 5` gives False or 5, a
    kind a runtime bool would leave to the run.)"""
    kind = type(items[0])
    if isinstance(items[0], np.generic):        # NumPy scalars of one dtype
        return items[0].dtype.kind in "biuf" and all(type(v) is kind for v in items)
    if kind not in (int, float) or any(type(v) is not kind for v in items):
        return False
    return kind is not int or all(-2 ** 63 <= v < 2 ** 63 for v in items)


def mixed_bools(items) -> bool:
    """Python bools of both values, which `alike` declines for a loop (it
    unrolls instead: `b and 5` would need a static b) but a read at a
    runtime position, which has no unrolled way, picks (bools_picker)."""
    return all(type(v) is bool for v in items)


def bools_picker(items):
    """picker(items) for Python bools (mixed_bools): a runtime bool, weak
    as a Python bool is, picked from a constant table."""
    from ..ops import indexing
    column = _number_column(items)
    return lambda pos: _like(indexing.row(column, pos), _PY_NUMBER)


def _number_column(items) -> Array:
    """The items, Python numbers of one type, as a runtime array (weak, as
    a Python number is)."""
    from ..ops import indexing
    return indexing.static_number_table(list(items))
