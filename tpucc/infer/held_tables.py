"""A list (or list of lists) of Python numbers that a runtime loop reads and
writes at runtime positions, held as one array while the loop runs.

`dp = [[0] * (m + 1) for _ in range(n + 1)]`, then `dp[i][j] = min(dp[i -
1][j] + 1, ...)` inside loops over i and j: the canonical way Python users
write a DP table (edit distance, LCS, knapsack, grid paths).  Each item of
a list is a value of its own, bound at compile time, so a write at a
runtime position was refused inside a While (calls._runtime_list_position)
and the loops were unrolled: n * m copies of the body, seconds to minutes
of XLA for tables of a few hundred cells.

So when a While is refused for such an access (the refusal carries the
list: `error.table`), the outermost runtime loop around it (build_while met
outside any runtime region) runs again from where it started, with the
table replaced, in the frame's variables, by a HeldTable: the name of a
hidden variable of the frame that holds the items as one 1-d or 2-d array.
The While carries that array as it carries any variable; `dp[i]` is a
TableRow (the row at a static or runtime position, not a copy: `row =
dp[i]; row[j] = v` writes into the table, as Python's aliasing does), and
`dp[i][j]` reads and writes one element of the array.  After the While the
list gets its items back, each the element it holds at run time, and the
variables the list again (`write_back`): the code after the loop sees the
list as Python does.

Only where that is exact:
- a list made by this call, reached through the frame's variables alone
  (popped_queues._only_held_by), its rows (if lists) distinct lists of one
  length that nothing else reaches;
- every item a Python number of one type (int, float, bool or complex,
  static or a runtime one), or a NumPy scalar of one dtype, as every value
  written: the array would keep a float written into an int table as an
  int, so another type is refused;
- only len(), truth, and reading and writing items at int positions, on
  the table and its rows; anything else (iterating, slicing, appending,
  storing the table elsewhere) is refused while the loop is tried, and the
  loop is then unrolled as before (`holding` answers the first refusal).
"""
from __future__ import annotations

import collections
import types

import numpy as np

from ..errors import StaticValueError, TpuccError
from ..ir import AVal
from . import builder, picked_copies
from .values import Array

# Past this many items, a table held as one array would be a larger constant
# than unrolling is worth trying for.
MAX_ITEMS = 1 << 20

_NUMBER_TYPES = (bool, int, float, complex)


class HeldTable:
    """The list `rows` (a list of lists when `ndim` is 2) whose items the
    array in `frame.locals[slot]` holds while a loop runs."""
    __slots__ = ("table", "frame", "slot", "shape", "item_aval")

    def __init__(self, table: list, frame, slot: str, shape: tuple, item_aval: AVal):
        self.table, self.frame, self.slot = table, frame, slot
        self.shape, self.item_aval = shape, item_aval

    def array(self) -> Array:
        whole = self.frame.locals.get(self.slot)
        if whole is None:
            raise StaticValueError(
                "a row of a list of lists taken at a runtime position inside a loop, used "
                "after the loop, is not supported (the loop held the table as one array)",
                hint="take the row again after the loop, at a static position (`dp[n]`)")
        return whole

    def item(self, interp, key):
        position = _position(key, self, 0)
        if len(self.shape) == 2:
            return TableRow(self, position)
        return _read(self, (position,))

    def set(self, interp, key, value):
        if len(self.shape) == 2:
            raise _refusal("rebinding a row", self)
        _write(self, (_position(key, self, 0),), value)

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        raise _refusal("iterating the rows", self)

    def _whole(self, *args):
        raise _refusal("reading the whole (comparing, joining, copying or printing it)", self)

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _whole
    __add__ = __radd__ = __mul__ = __rmul__ = __reversed__ = __contains__ = _whole
    __str__ = __format__ = __copy__ = __deepcopy__ = __reduce_ex__ = _whole
    __hash__ = object.__hash__

    def __repr__(self):
        return f"<table {self.shape} held as an array>"


class TableRow:
    """`table[position]` of a 2-d HeldTable: the row itself, not a copy."""
    __slots__ = ("held", "position")

    def __init__(self, held: HeldTable, position):
        self.held, self.position = held, position

    def item(self, interp, key):
        return _read(self.held, (self.position, _position(key, self.held, 1)))

    def set(self, interp, key, value):
        _write(self.held, (self.position, _position(key, self.held, 1)), value)

    def __len__(self):
        return self.held.shape[1]

    def __iter__(self):
        raise _refusal("iterating a row", self.held)

    def _whole(self, *args):
        raise _refusal("reading a row whole (comparing, joining, copying or printing it)",
                       self.held)

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _whole
    __add__ = __radd__ = __mul__ = __rmul__ = __reversed__ = __contains__ = _whole
    __str__ = __format__ = __copy__ = __deepcopy__ = __reduce_ex__ = _whole
    __hash__ = object.__hash__

    def __repr__(self):
        return "<row of a table held as an array>"


HELD = (HeldTable, TableRow)


def _refusal(what: str, held: HeldTable) -> StaticValueError:
    """The refusal of `what` done to a held table, inside the loop that holds
    it: the loop is then unrolled as before, this the reason it says (its
    advice, loops._unroll_advice, is the one for the table's kind)."""
    kind = "a list of lists" if len(held.shape) == 2 else "a list"
    return StaticValueError(
        f"{what} of {kind} of {_items_named(held.item_aval)} read or written at runtime "
        "positions in a loop, which holds its items as one array there, is not supported",
        hint="keep the table in a NumPy array")


def _position(key, held: HeldTable, axis: int):
    """A list position: a static int (checked, made non-negative, as Python
    indexes) or a runtime integer (NumPy's indexing checks it and counts a
    negative one from the end, as Python does)."""
    size = held.shape[axis]
    if isinstance(key, Array):
        if key.ndim or key.dtype.kind not in "iu":
            raise _refusal("indexing with a runtime non-integer", held)
        return key
    if isinstance(key, (int, np.integer)):
        key = int(key)
        if not -size <= key < size:
            from ..errors import UserCodeError
            raise UserCodeError("IndexError: list index out of range")
        return key % size
    raise _refusal(f"indexing with a {type(key).__name__}", held)


def _read(held: HeldTable, key: tuple) -> Array:
    """The item at `key`: a fresh runtime Python number (not a view of the
    table, which later writes change)."""
    from ..ops import indexing
    element = indexing.getitem(held.array(), key)
    (value,) = builder.emit_op("convert", (element.var,), {"dtype": held.item_aval.dtype},
                               (held.item_aval,))
    item = Array(value)
    item.immutable = True       # a Python number: `x += 1` rebinds
    return item


def _write(held: HeldTable, key: tuple, value) -> None:
    if item_aval(value) != held.item_aval:
        raise _refusal(f"storing {_described(value)} as an item", held)
    from ..ops import indexing
    indexing.setitem(held.array(), key, value)


def item_aval(v) -> AVal | None:
    """The aval of a table's item: a Python number (weak), static or runtime
    (a weak 0-d Array that is one on every path), or a NumPy scalar (strong);
    None for anything else (an array, a number of a subclass, a Python int
    past int64, a value whose type depends on the runtime path)."""
    from ..ops.registry import const_aval
    if type(v) in _NUMBER_TYPES or isinstance(v, np.generic):
        aval = const_aval(v)
        too_big = aval.weak and aval.dtype == np.uint64         # (past int64: Python's own)
        return None if too_big or aval.dtype.kind not in "biufc" else aval
    if isinstance(v, Array) and v.ndim == 0 and (v.weak or v.immutable is True) \
            and v.held_int is None and not v.dtype_varies:
        return v.aval
    return None


def _items_named(aval: AVal) -> str:
    """What a table's items are, for a refusal: "Python ints", "np.float32s"."""
    if aval.weak:
        return f"Python {dict(b='bool', i='int', f='float', c='complex')[aval.dtype.kind]}s"
    return f"np.{aval.dtype.name}s"


def _described(value) -> str:
    aval = item_aval(value)
    return f"a {_items_named(aval)[:-1]}" if aval is not None else f"a {type(value).__name__}"


# --- holding and writing back ---------------------------------------------------------

def refused_table(interp, refused) -> tuple | None:
    """What a refusal of a runtime position into list `refused` carries, for
    `holding`: (the frame, the name of its variable that holds the table:
    the list itself, or the list of lists it is a row of).  By name: a
    While's trial runs its body on rebuilt lists, not the loop's own."""
    frame = interp.frames[-1] if interp.frames else None
    if frame is None or type(refused) is not list:
        return None
    for name, v in frame.locals.items():
        if type(v) is list and (v is refused or any(r is refused for r in v)):
            return frame, name
    return None


def table_of(frame, refused) -> list | None:
    """The list a refusal names (refused_table), where it is this frame's."""
    if refused is None or refused[0] is not frame:
        return None
    table = frame.locals.get(refused[1])
    return table if type(table) is list else None


def table_shape(interp, frame, table: list):
    """(shape, item aval) of a list a loop may hold as an array (module
    docstring), else None."""
    if not table or not _made_here(interp, table):
        return None
    rows = table if all(type(r) is list for r in table) else None
    if rows is None:
        items, shape = table, (len(table),)
    else:
        width = len(rows[0])
        if not width or any(len(r) != width for r in rows) or \
                len({id(r) for r in rows}) != len(rows) or not all(
                    _made_here(interp, r) for r in rows):
            return None         # (`[[0] * m] * n`: one row n times, as Python aliases it)
        items, shape = [v for r in rows for v in r], (len(rows), width)
    if len(items) > MAX_ITEMS or _reached_elsewhere(interp, frame, table, rows or ()) or \
            any(picked_copies.is_marked(r) for r in rows or ()):
        return None         # (a row copied by a runtime pick would not see the loop's writes)
    avals = {item_aval(v) for v in items}
    if len(avals) != 1 or None in avals:
        return None
    return shape, avals.pop()


def _made_here(interp, container) -> bool:
    return id(container) in interp.fresh_ids and id(container) not in interp.argument_containers


# Past this many objects walked, a table counts as reached elsewhere (a
# model's parameters in a frame's variables: not worth the walk).
_MOST_WALKED = 100_000


def _reached_elsewhere(interp, frame, table: list, rows) -> bool:
    """Whether the program reaches the table, or one of its rows, other than
    through the variables of `frame` that hold the table itself (which
    `hold` replaces): another variable's container, object, closure or
    iterator, or another frame.  A walk from the program's variables, not
    over every container made (a While's trial makes copies of the state
    that nothing reaches after it)."""
    targets = {id(table), *map(id, rows)}
    work = [v for f in interp.frames
            for v in (*f.locals.values(), *f.stack, *f.cells.values())
            if not (f is frame and v is table)]
    seen: set = set()
    while work:
        v = work.pop()
        if id(v) in targets:
            return True
        if id(v) in seen or isinstance(v, _NOT_WALKED):
            continue
        seen.add(id(v))
        if len(seen) > _MOST_WALKED:
            return True
        work.extend(_parts(v))
    return False


_NOT_WALKED = (Array, np.ndarray, np.generic, str, bytes, type, types.ModuleType, int, float,
               complex, bool, type(None))


def _parts(v) -> list:
    """What `v` holds that the program may reach through it."""
    from .iterators import SeqIter
    if isinstance(v, dict):
        return list(v.values())
    if isinstance(v, (list, tuple, set, frozenset, collections.deque)):
        return list(v)
    if isinstance(v, types.CellType):
        try:
            return [v.cell_contents]
        except ValueError:          # (an empty cell)
            return []
    if isinstance(v, types.FunctionType):
        return list(v.__closure__ or ()) + list(v.__defaults__ or ())
    if isinstance(v, SeqIter):
        return [*v.items, v.source]
    return [*getattr(v, "__dict__", {}).values(), *_slot_values(v)]


def _slot_values(v) -> list:
    """The values in the __slots__ of an object of the program's (not of
    tpucc's own: an iterator's slots reach the frame), read by their
    descriptors (no __getattr__ of the class runs for an unset one)."""
    found: list = []
    if type(v).__module__.startswith("tpucc."):
        return found
    for cls in type(v).__mro__:
        for slot in cls.__dict__.values():
            if isinstance(slot, types.MemberDescriptorType):
                try:
                    found.append(slot.__get__(v, cls))
                except AttributeError:
                    pass
    return found


def hold(interp, frame, table: list, shape: tuple, aval: AVal) -> HeldTable:
    """Replaces `table` in the frame's variables by a HeldTable whose hidden
    variable holds its items as one array."""
    names = [n for n, v in frame.locals.items() if v is table]
    slot = f"<table {names[0]}>"
    frame.locals[slot] = _stacked(table, shape, aval)
    held = HeldTable(table, frame, slot, shape, aval)
    for name in names:
        frame.locals[name] = held
    frame.stack[:] = [held if v is table else v for v in frame.stack]
    return held


def _stacked(table: list, shape: tuple, aval: AVal) -> Array:
    """The items as one array of their dtype: the array a previous loop held
    them in where they are still exactly its elements (an inner loop held
    anew at each iteration of an unrolled outer one), else a new one."""
    items = table if len(shape) == 1 else [v for r in table for v in r]
    whole = _written_back_from(items, shape)
    if whole is not None:
        return Array(whole)
    if not any(isinstance(v, Array) for v in items):
        return Array(builder.const_value(np.array(items, dtype=aval.dtype).reshape(shape)))
    from ..ops.elementwise import astype
    from ..ops.shape import reshape, stack
    stacked = stack([astype(v, aval.dtype, copy=False) for v in items])
    return reshape(stacked, shape)


def _written_back_from(items: list, shape: tuple):
    """The Value of the array whose elements `items` are, in order, as
    write_back made them; None where they are not."""
    table = builder.ctx().held_elements
    found = [table.get(id(v.var)) if isinstance(v, Array) else None for v in items]
    if not found or found[0] is None:
        return None
    whole = found[0][1]
    for position, entry in enumerate(found):
        if entry is None or entry[1] is not whole or entry[2] != position:
            return None
    return whole if whole.aval.shape == shape else None


def write_back(interp, frame, held: HeldTable) -> None:
    """After the loop: the list's items are the array's elements again, and
    the frame's variables hold the list (its rows where they hold a row at a
    static position).  A row at a runtime position left in a variable (`row
    = dp[i]` in the body, mostly dead after it) has no list to be: it stays
    a TableRow, which refuses any use now that the table is not held."""
    whole = frame.locals.pop(held.slot)
    elements = builder.ctx().held_elements
    flat_position = 0
    for index in np.ndindex(*held.shape):
        item = _read_from(whole, index, held.item_aval)
        row = held.table if len(index) == 1 else held.table[index[0]]
        interp.setitem(row, index[-1], item)
        elements[id(item.var)] = (item.var, whole.var, flat_position)
        flat_position += 1
    _restore(frame, held)


def _read_from(whole: Array, index: tuple, aval: AVal) -> Array:
    from ..ops import indexing
    element = indexing.getitem(whole, index)
    (value,) = builder.emit_op("convert", (element.var,), {"dtype": aval.dtype}, (aval,))
    item = Array(value)
    item.immutable = True
    return item


def _restore(frame, held: HeldTable) -> None:
    """The frame's variables hold the list (and its rows) again."""
    def unheld(v):
        if v is held:
            return held.table
        if isinstance(v, TableRow) and v.held is held and type(v.position) is int:
            return held.table[v.position]
        return v
    for name, v in list(frame.locals.items()):
        frame.locals[name] = unheld(v)
    frame.stack[:] = [unheld(v) for v in frame.stack]


def holding(frame, run):
    """run() (build_while of a loop met outside any runtime region); where it
    is refused for a runtime position into a list of Python numbers the
    frame holds (the refusal's `table`), once more from the frame's state
    now with that list held as one array, written back after (a loop that
    reads one such table and writes another holds both).  Where a table
    cannot be held so, or the loop is refused for something else once it
    holds one, the first refusal stands: the caller unrolls the loop as
    before."""
    interp = frame.interp
    c = interp.ctx
    if c.runtime_depth or c.grad_depth:
        return run()        # (the outermost runtime loop holds the table: it carries it whole)
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    tables: list = []       # (list, shape, item aval) of each table held
    first = None            # the refusal met holding none
    while True:
        held = [hold(interp, frame, *t) for t in tables]
        try:
            ex = run()
            for h in held:
                write_back(interp, frame, h)
            return ex
        except TpuccError as e:
            if first is None and getattr(e, "table", None) is None:
                raise
            first = first or e
            frame.locals, frame.stack = dict(locals0), list(stack0)
            table = _table_to_hold(interp, frame, e, tables)
            if table is None:
                raise first from None
            tables.append(table)
        except BaseException:
            if held:        # (the caller sees the lists in the variables, as it left them)
                frame.locals, frame.stack = dict(locals0), list(stack0)
            raise


def _table_to_hold(interp, frame, error, tables: list):
    """(list, shape, item aval) of the table `error` refused a runtime
    position into, where it is one to hold and not held already."""
    refused = getattr(error, "table", None)
    table = table_of(frame, refused)
    if table is None or any(t[0] is table for t in tables):
        return None
    found = table_shape(interp, frame, table)
    return None if found is None else (table, *found)
