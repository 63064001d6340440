"""A row of a list of lists of numbers picked at a runtime position.

`T = [[31, 28, 31, 30], [31, 29, 31, 30]]`, then `T[leap][m - 1]` with a
runtime `leap`: a month table, written as Python users write it.  A tuple
of tuples was picked at run time (list_loops.picked: its items stacked
column by column, a copy rebuilt), a list of lists refused, as each row is
a list the program may change, which a copy would not follow.

So the row is picked as that copy (a list of the picked numbers), and what
would make it differ from the row Python returns is refused:
- changing the copy (`row = T[i]; row[0] = 0`): it is a chosen container
  (list_loops.chosen_container), which calls.check_mutation refuses;
- changing a row of the table while the program still holds the copy
  (`row = T[i]; T[0][1] = 29; row[1]`), which the copy would not see: the
  rows are marked here, and every change of a list (calls.setitem,
  check_mutation, list methods) asks `refuse_change` (a copy read at once
  and dropped, `T[i][j]`, no longer counts);
- a loop holding the table as one array after the pick
  (held_tables.table_shape declines a marked row).
Inside a runtime loop, a table the loop could hold as one array (a DP
table, held_tables.py) is refused as before instead, so that the loop
holds it: its rows are then read and written in place, exactly.
"""
from __future__ import annotations

import sys

import numpy as np

from ..errors import SideEffectError
from . import builder, list_loops
from .values import Array

_NUMBERS = (bool, int, float, complex, np.number, np.bool_)


def number_rows(interp, items) -> list | None:
    """The rows of `items` as tuples, where they are lists of one length of
    numbers (Python or NumPy, static or runtime scalars) that one runtime
    pick can give; else None."""
    if len(items) < 2 or any(type(v) is not list for v in items):
        return None
    rows = [tuple(interp.static_items(v)) for v in items]
    if not rows[0] or any(len(r) != len(rows[0]) for r in rows):
        return None
    if not all(isinstance(x, _NUMBERS) or isinstance(x, Array) and not x.shape
               for r in rows for x in r):
        return None
    return rows if list_loops.alike(rows) else None


def pick(items: list, rows: list, position: Array) -> list:
    """The row at runtime `position`: a new list of its picked numbers,
    which the program may read but not change; the table's rows are
    marked with it, so that a change of one is refused while the program
    can still read the copy (module docstring)."""
    copy = list_loops.chosen_container(list(list_loops.picked(rows, position)))
    pick = _Pick(copy)
    marked = builder.ctx().picked_rows
    for row in items:
        marked.setdefault(id(row), (row, []))[1].append(pick)
    return copy


class _Pick:
    """One runtime pick's copy, held once however many rows it marks (so
    that its reference count says whether the program still holds it)."""
    __slots__ = ("copy",)

    def __init__(self, copy: list):
        self.copy = copy


# The references to a copy that tpucc's own bookkeeping holds while the
# program holds none: _Pick.copy, the context's chosen_containers, and
# sys.getrefcount's argument.
_OWN_REFERENCES = 3


def is_marked(row) -> bool:
    """Whether a copy of `row` that a runtime pick made is still readable:
    held by the program (a variable, a container, the value stack), not
    only by tpucc's bookkeeping.  `T[leap][m - 1]` reads its copy at once
    and drops it: the table may change after."""
    entry = builder.ctx().picked_rows.get(id(row))
    if entry is None or entry[0] is not row:
        return False
    entry[1][:] = [p for p in entry[1] if sys.getrefcount(p.copy) > _OWN_REFERENCES]
    return bool(entry[1])


def refuse_change(obj) -> None:
    """Refuses a change of a list one of whose copies a runtime pick made
    while the program can still read that copy, which would not see it."""
    if type(obj) is list and is_marked(obj):
        raise SideEffectError(
            "changing a row of a list of lists while a copy of it, read at a runtime position "
            "(`row = T[i]` with a runtime i), is still in use is not supported: compiled code "
            "picks a copy of the row, which would not see the change",
            hint="make the table a NumPy array (`T = np.array(T)`) and index it as `T[i, j]`, "
                 "or finish changing the rows before reading the table at a runtime position")
