"""Attributes and items that hold a value of arrays across a runtime loop.

`self.state = State(self.state.x * 2, self.state.n + 1)` in a method a
`while` on runtime values calls: the attribute holds a new named tuple (or
tuple, or frozen dataclass) each iteration, one structure on all of them.
A While carries only arrays, so the loop carries such a slot leaf by leaf,
as it carries a variable holding the same value (state.flatten): each leaf
is a slot of its own (loops.Rebound), read and written through a
CarriedValueLeaves that stands for the value `holder[key]` holds.  (A
runtime `if` merges such slots item by item too: control.HeldValueLeaves.)
"""
from __future__ import annotations

from .state import flatten, is_carried_value, unflatten
from .values import set_item


class StructureChanged:
    """What a leaf of a CarriedValueLeaves reads as where the value its slot
    holds now has another structure (the body stored a tuple of another
    length): Rebound.widen refuses that slot before it looks at its leaves."""

    def __repr__(self):
        return "a value of another structure"


STRUCTURE_CHANGED = StructureChanged()


def value_leaves(value) -> tuple | None:
    """(treedef, [(path, leaf)]) of a value a loop may carry leaf by leaf
    (state.is_carried_value); None for any other."""
    if not is_carried_value(value):
        return None
    leaves: list = []
    return flatten(value, "", leaves), leaves


class CarriedValueLeaves:
    """The leaves of the value an attribute or item (`holder[key]`) holds,
    of one structure (`treedef`) on every iteration of a runtime loop: the
    loop carries (this, i) as a slot of its own, whose value is `self[i]`,
    leaf i of what `holder[key]` holds now; `put(i, v)` stores that value
    made again with leaf i replaced, journaled as a write of `holder[key]`
    (the region's end undoes it, leaving the very object of before)."""

    def __init__(self, holder, key, serial, treedef, paths):
        self.holder, self.key, self.serial = holder, key, serial
        self.treedef, self.paths = treedef, paths      # (paths: ".x", "[1]", for messages)

    @classmethod
    def of(cls, holder, key, serial, value) -> CarriedValueLeaves | None:
        flat = value_leaves(value)
        if flat is None:
            return None
        return cls(holder, key, serial, flat[0], [path for path, _ in flat[1]])

    def _leaves(self) -> list | None:
        flat = value_leaves(self.holder[self.key])
        if flat is None or flat[0] != self.treedef:
            return None
        return [leaf for _, leaf in flat[1]]

    def matches(self, value) -> bool:
        """Whether `value` has this slot's structure."""
        flat = value_leaves(value)
        return flat is not None and flat[0] == self.treedef

    def __getitem__(self, i):
        leaves = self._leaves()
        return STRUCTURE_CHANGED if leaves is None else leaves[i]

    def put(self, i, leaf) -> None:
        leaves = self._leaves()
        leaves[i] = leaf
        set_item(self.holder, self.key, unflatten(self.treedef, leaves), self.serial)


def store(holder, key, value, serial: int) -> None:
    """holder[key] = value for a slot a loop carries: a plain one, or a leaf
    of a value an attribute or item holds."""
    if isinstance(holder, CarriedValueLeaves):
        holder.put(key, value)
    else:
        set_item(holder, key, value, serial)
