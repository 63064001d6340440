"""Static data flattened once per compile.

A Gym-style model `P[s][a] = [(prob, next_state, reward, done), ...]` is a
dict of dicts of lists of tuples of Python numbers that the program only
reads.  Every snapshot of a frame's state (each trial of a loop body, each
loop entry and exit) flattened it item by item: about a thousand recursive
calls for a 4x4 FrozenLake, times a thousand snapshots, and an 8x8 one did
not finish compiling.

A list, dict or tuple that holds only plain leaves (numbers, strings,
None) and such containers is flattened once: the next `state.flatten` of it
reuses the treedef and the leaves, after checking that every list and dict
in it still holds the very same items (the program may have changed one in
place: `P[s][a][0] = ...`, `lst.append(...)`).  Tuples and plain leaves
cannot change, so the check costs one comparison of item identities per
list or dict, not a call per leaf.
"""
from __future__ import annotations

import operator

import numpy as np

CONTAINERS = frozenset((list, dict, tuple))     # exact types: a subclass is rebuilt as one
_PLAIN = frozenset((bool, int, float, complex, str, bytes, type(None)))

# The leaves a memo may hold, over all its entries (paths, items), before it
# starts afresh: a program that makes a new list at each iteration of a long
# unrolled loop would otherwise keep every one of them alive.
LEAVES_HELD_AT_MOST = 1_000_000


class FlattenMemo:
    """id(container) -> _Flat, for one compile (builder.Context)."""

    def __init__(self):
        self.entries: dict = {}
        self.leaves_held = 0


class _Flat:
    __slots__ = ("value", "treedef", "rests", "values", "mutables")

    def __init__(self, value, treedef, leaves: list, mutables: list):
        self.value = value          # held: its id is not reused while the entry lives
        self.treedef = treedef
        self.rests = tuple(rest for rest, _ in leaves)   # each leaf's path after the container's
        self.values = tuple(leaf for _, leaf in leaves)
        # (path after the container's, list or dict inside it or itself, its items then)
        self.mutables = mutables

    def unchanged(self) -> bool:
        return all(_unchanged(c, items) for _, c, items in self.mutables)


def current_memo() -> FlattenMemo | None:
    """The compile's memo; None outside a compile (the AOT builder's flattens)."""
    from .builder import _current
    return _current[-1].flatten_memo if _current else None


def flattened(value, path: str, out: list, memo: FlattenMemo, walk) -> object:
    """`state.flatten` of a list, dict or tuple: its leaves appended to `out`,
    its treedef returned; from the memo where `value` is static data that
    did not change since, else by `walk` (flatten's own walk of the items,
    which flattens the nested containers through the memo)."""
    entry = memo.entries.get(id(value))
    if entry is not None:
        if entry.unchanged():
            out.extend(zip(map(path.__add__, entry.rests), entry.values))
            return entry.treedef
        del memo.entries[id(value)]
    start = len(out)
    treedef = walk(value, path, out)
    if treedef is not None and _holds_only_data(value, memo):
        _remember(value, treedef, [(p[len(path):], leaf) for p, leaf in out[start:]], memo)
    return treedef


def unchanged_data(treedef, olds: list) -> _Flat | None:
    """The memo's entry for the container all of `olds` are, when `treedef`
    is the one it flattened to and it did not change since; else None."""
    first = olds[0] if olds else None
    if any(o is not first for o in olds):
        return None
    entry = _unchanged_entry(first)
    return entry if entry is not None and entry.treedef is treedef else None


def containers_inside(value) -> list | None:
    """[(path after value's, list or dict)] of the lists and dicts in `value`
    (itself included), where it is static data unchanged since flattened;
    else None."""
    entry = _unchanged_entry(value)
    return None if entry is None else [(rest, c) for rest, c, _ in entry.mutables]


def _unchanged_entry(value) -> _Flat | None:
    memo = current_memo()
    if memo is None or type(value) not in CONTAINERS:
        return None
    entry = memo.entries.get(id(value))
    return entry if entry is not None and entry.unchanged() else None


def _remember(value, treedef, leaves: list, memo: FlattenMemo) -> None:
    mutables = [] if type(value) is tuple else [("", value, _items_now(value))]
    for key, x in (value.items() if type(value) is dict else enumerate(value)):
        if type(x) in CONTAINERS:       # (the paths flatten names them by)
            step = f"[{key!r}]" if type(value) is dict else f"[{key}]"
            mutables.extend((step + rest, c, items)
                            for rest, c, items in memo.entries[id(x)].mutables)
    if memo.leaves_held + len(leaves) > LEAVES_HELD_AT_MOST:
        memo.entries.clear()
        memo.leaves_held = 0
    memo.entries[id(value)] = _Flat(value, treedef, leaves, mutables)
    memo.leaves_held += len(leaves)


def _holds_only_data(value, memo: FlattenMemo) -> bool:
    """Whether every item is a plain leaf or a container just flattened as
    static data (its entry is in the memo: the walk made or checked it).
    (A dict flattened item by item has static keys: numbers, strings...)"""
    items = value.values() if type(value) is dict else value
    return all(type(x) in _PLAIN or isinstance(x, (np.number, np.bool_))
               or type(x) in CONTAINERS and id(x) in memo.entries for x in items)


def _items_now(container) -> tuple:
    if type(container) is dict:
        return tuple(container), tuple(container.values())
    return tuple(container)


def _unchanged(container, items) -> bool:
    """Whether a list or dict holds the very `items` (_items_now) it held."""
    if type(container) is dict:
        keys, values = items
        return (len(container) == len(keys) and all(map(operator.is_, container, keys))
                and all(map(operator.is_, container.values(), values)))
    return len(container) == len(items) and all(map(operator.is_, container, items))
