"""A row of a table of lists and dicts of numbers picked at a runtime position.

`T = [[31, 28, 31, 30], [31, 29, 31, 30]]`, then `T[leap][m - 1]` with a
runtime `leap`: a month table, written as Python users write it.  Or a Gym
transition table, `P[s][a]` a list of `(prob, next_state, reward, done)`,
read at the counter of `for s in range(nS)`, which then runs as one runtime
While instead of 64 unrolled copies of its body.  A tuple of tuples was
picked at run time (list_loops.picked: its items stacked column by column,
a copy rebuilt), a list of lists refused, as each row is a list the program
may change, which a copy would not follow.

So the row is picked as that copy: its lists, dicts and tuples rebuilt
around its leaves, each column of leaves picked as list_loops picks it
(Python bools too, list_loops.bools_picker), and what would make it differ
from the row Python returns is refused:
- changing the copy (`row = T[i]; row[0] = 0`, `P[s][a].append(t)`): its
  lists and dicts are chosen containers (list_loops.chosen_container),
  which calls.check_mutation refuses;
- changing a list or dict of the table while the program still holds a
  copy that shows it (`row = T[i]; T[0][1] = 29; row[1]`), which the copy
  would not see: they are marked (picked_copies, as every runtime pick's
  originals are), and a change of a marked list or dict is refused (a copy
  read at once and dropped, `T[i][j]`, no longer counts);
- a loop holding the table as one array after the pick
  (held_tables.table_shape declines a marked row).
Inside a runtime loop, a table the loop could hold as one array (a DP
table, held_tables.py) is refused as before instead, so that the loop
holds it: its rows are then read and written in place, exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ops.registry import const_aval
from . import builder, list_loops, picked_copies
from .state import has_static_keys
from .values import Array

_CONTAINERS = (list, dict)


class _Unlike(Exception):
    """The items differ in structure: no one runtime pick gives each."""


@dataclass
class _Node:
    """One list, dict or tuple of an item's structure, alike in every item:
    `kind` (list, dict or the tuple's class), `keys` (a dict's, and their
    types: 1 and 1.0 are one key, printed differently), `parent` (its index
    in preorder, None at the top), `size` (how many parts)."""
    kind: type
    keys: tuple | None
    key_types: tuple | None
    parent: int | None
    size: int


@dataclass
class _Flat:
    """The items flattened alike: their structure (`nodes` in preorder,
    `slots`: for each part of each node in order, the child node's index or
    None for a leaf), each item's leaves (numbers, arrays, strings: what
    list_loops picks) and each item's nodes (the originals a pick copies)."""
    nodes: list
    slots: list
    leaves: list
    originals: list


def alike_rows(interp, items) -> _Flat | None:
    """`items` flattened, where they are lists or dicts (of lists, dicts and
    tuples, nested) of one structure whose leaves one runtime pick can give
    column by column (numbers, Python or NumPy, static or runtime scalars):
    a month table `[[31, 28, ...], [31, 29, ...]]`, a Gym transition table
    `P[s][a] == [(prob, next_state, reward, done), ...]`; else None."""
    if len(items) < 2 or any(type(v) not in _CONTAINERS for v in items):
        return None
    flat = _Flat([], [], [], [])
    try:
        for k, item in enumerate(items):
            leaves, originals = [], []
            _flatten(interp, item, flat, k == 0, leaves, originals)
            flat.leaves.append(leaves)
            flat.originals.append(originals)
    except _Unlike:
        return None
    columns = list(zip(*flat.leaves))
    if not columns or not all(map(_pickable_column, columns)):
        return None
    return flat


def _flatten(interp, item, flat: _Flat, first: bool, leaves: list, originals: list):
    """Appends `item`'s leaves and nodes in preorder (a worklist, last part
    first onto it), checking each node against the first item's."""
    work = [(item, None)]
    slot, containers = 0, set()
    while work:
        v, parent = work.pop()
        if type(v) not in _CONTAINERS and not list_loops.is_tuple(v):
            leaves.append(v)
            _expect(flat, first, slot, None)
            slot += 1
            continue
        if type(v) in _CONTAINERS:
            if id(v) in containers:
                raise _Unlike       # (a list holding itself, or one list twice)
            containers.add(id(v))
        index = len(originals)
        parts, keys = _parts(interp, v)
        node = _Node(type(v), keys, keys and tuple(map(type, keys)), parent, len(parts))
        _expect(flat, first, slot, index)
        slot += 1
        if first:
            flat.nodes.append(node)
        elif index >= len(flat.nodes) or flat.nodes[index] != node:
            raise _Unlike
        originals.append(v)
        work.extend((part, index) for part in reversed(parts))
    if not first and slot != len(flat.slots):
        raise _Unlike


def _expect(flat: _Flat, first: bool, slot: int, node):
    """The slot's kind (a leaf, or node number `node`), recorded from the
    first item, compared for the rest."""
    if first:
        flat.slots.append(node)
    elif slot >= len(flat.slots) or flat.slots[slot] != node:
        raise _Unlike


def _parts(interp, v) -> tuple:
    """A node's parts as the program reads them (a global's arrays: captured
    inputs), and a dict's keys."""
    if type(v) is dict:
        if not has_static_keys(v):
            raise _Unlike
        pairs = interp.dict_items(v)
        return tuple(x for _, x in pairs), tuple(k for k, _ in pairs)
    return tuple(interp.static_items(v)), None


def _pickable_column(column) -> bool:
    return list_loops.alike(column) or list_loops.mixed_bools(column) or \
        _numbers_partly_known(column)


def _numbers_partly_known(column) -> bool:
    """Python numbers of one type, some known now, some runtime (a table
    built at run time: `0.0 if term else float(ns == goal)`, or a row of a
    copy picked before, whose columns that agreed stayed static)."""
    arrays = [v for v in column if isinstance(v, Array)]
    known = [v for v in column if type(v) in (bool, int, float)]
    if not arrays or len(arrays) + len(known) != len(column):
        return False
    aval = arrays[0].aval
    return aval.weak and not aval.shape and \
        all(a.aval == aval and a.immutable is True for a in arrays) and \
        all(-2 ** 63 <= v < 2 ** 63 and const_aval(v) == aval for v in known)


def _column_picker(column):
    """A function of the position: the column's leaf there (_pickable_column)."""
    if list_loops.alike(column):
        return list_loops.picker(column)
    if list_loops.mixed_bools(column):
        return list_loops.bools_picker(column)
    return list_loops.picker([v if isinstance(v, Array) else _runtime_number(v) for v in column])


def _runtime_number(v) -> Array:
    number = Array(builder.const_value(v))      # (weak, as a Python number is)
    number.immutable = True
    return number


def pick(flat: _Flat, position: Array):
    """The item at runtime `position`: a new structure of its picked
    leaves, whose lists and dicts the program may read but not change; the
    table's lists and dicts are marked with it, so that a change of one is
    refused while the program can still read a copy (module docstring)."""
    columns = [_column_picker(list(c))(position) for c in zip(*flat.leaves)]
    copies = _rebuild(flat, columns)
    # (a nested copy's parent copy holds it: held by the program only
    # where more than that holds it; the parent's pick marks it too)
    picks = [picked_copies.Pick(c, held_by_parent=node.parent is not None)
             for c, node in zip(copies, flat.nodes)]
    for originals in flat.originals:
        for index, original in enumerate(originals):
            if type(original) in _CONTAINERS:
                picked_copies.mark_with(original, [picks[k] for k in _path(flat.nodes, index)])
    return copies[0]


def _path(nodes, index):
    """The node `index` and those above it: a copy any of them holds shows
    the node's contents."""
    while index is not None:
        yield index
        index = nodes[index].parent


def _rebuild(flat: _Flat, leaves: list) -> list:
    """The copies of the nodes, in preorder, built from the last (whose
    parts are all built by then) to the first."""
    firsts = [slot for slot, node in enumerate(flat.slots) if node is not None]
    values = [None] * len(flat.slots)
    leaf = iter(leaves)
    for slot, node in enumerate(flat.slots):
        if node is None:
            values[slot] = next(leaf)
    copies = [None] * len(flat.nodes)
    for index in reversed(range(len(flat.nodes))):
        node = flat.nodes[index]
        parts = _children(flat, firsts[index], node.size, values)
        copies[index] = values[firsts[index]] = _made(node, parts)
    return copies


def _children(flat, slot, size, values) -> list:
    """The values of the node's `size` parts, whose slots follow its own,
    each child node's whole subtree skipped."""
    parts, at = [], slot + 1
    for _ in range(size):
        parts.append(values[at])
        at = _past(flat, at)
    return parts


def _past(flat, slot) -> int:
    """The slot after `slot`'s whole subtree."""
    pending = 1
    while pending:
        node = flat.slots[slot]
        pending += (flat.nodes[node].size if node is not None else 0) - 1
        slot += 1
    return slot


def _made(node: _Node, parts: list):
    if node.kind is list:
        return list_loops.chosen_container(parts)
    if node.kind is dict:
        return list_loops.chosen_container(dict(zip(node.keys, parts)))
    return tuple(parts) if node.kind is tuple else node.kind(*parts)

