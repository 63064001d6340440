"""The originals of the copies a runtime pick made.

`d = layers[i]` with a runtime i (list_loops.picked), `row = T[i]` of a
table of lists and dicts (picked_rows: each nested list or dict marked by
the copies that show it), `best = max(rows)` (builtins_impl): Python
returns one of the list's own items; compiled code picks a copy of it at
run time, which the program may read but not change (check_mutation
refuses changing the copy).  The copy does not see a later change of the
item it copies either (`d = L[i]; L[0]["a"] = 5.0; d["a"]` reads 5.0 in
Python), so each item it was picked among is marked here, and a change of
one (calls.setitem, setattr, check_mutation, a list's or dict's methods,
values.Array.set for an array updated in place, through a view too) is
refused while the program can still read the copy.  A copy read at once
and dropped (`L[i]["a"]`, `T[i][j]`, `xs[i].copy()`) no longer counts: the
items may change after.  A long loop a runtime `break` leaves holds such a
copy in its variable after the While (loops: `carry`).
"""
from __future__ import annotations

import sys

from ..errors import SideEffectError
from . import builder


class Pick:
    """One runtime pick's copy, held once however many items it marks (so
    that its reference count says whether the program still holds it).
    `own`: the references to the copy that tpucc's own bookkeeping holds
    while the program holds none: Pick.copy, sys.getrefcount's argument,
    the context's registries of containers that hold it (a container or
    object list_loops.chosen_container / chosen_object made, one a runtime
    loop rebuilt: merged_containers), and, `held_by_parent`, the copy that
    holds it (a nested list or dict of a table's copy, picked_rows: the
    parent's own pick marks its originals too).  `originals`: the items
    it marks."""
    __slots__ = ("copy", "own", "originals")

    def __init__(self, copy, held_by_parent: bool = False):
        c = builder.ctx()
        self.copy, self.originals = copy, []
        self.own = 2 + held_by_parent + sum(
            registry.get(id(copy)) is copy
            for registry in (c.chosen_containers, c.merged_containers))

    def held(self) -> bool:
        """Whether the program still holds the copy (not only tpucc)."""
        return sys.getrefcount(self.copy) > self.own


def mark(originals, copy) -> None:
    """Marks each of `originals` (the items a runtime pick chose among)
    with `copy`, the one it made; items that cannot change (tuples,
    numbers, NumPy scalars) need no mark."""
    pick = Pick(copy)
    for item in originals:
        if _changeable(item):
            mark_with(item, [pick])


def mark_with(original, picks) -> None:
    """Marks `original` with each of `picks`: a change of it is refused
    while the program still holds one of their copies."""
    for pick in picks:
        pick.originals.append(original)
    builder.ctx().picked_originals.setdefault(id(original), (original, []))[1].extend(picks)


def adopt(parts) -> None:
    """The picks whose copies are `parts` of a whole pick's copy count the
    whole's reference to them as tpucc's own (list_loops._marked_whole:
    the whole's pick marks their originals too)."""
    ids = {id(p) for p in parts}
    adopted = {}
    for _, picks in builder.ctx().picked_originals.values():
        for pick in picks:
            if id(pick.copy) in ids:
                adopted[id(pick)] = pick
    for pick in adopted.values():
        pick.own += 1


def carry(copy, value) -> None:
    """`value` holds what the copy `copy` held, past a runtime region (the
    item a long loop left at by a runtime `break`, after its While): it is
    a copy of the same items."""
    originals = {id(p): p.originals for _, picks in builder.ctx().picked_originals.values()
                 for p in picks if p.copy is copy}
    for items in originals.values():
        mark(items, value)


def _changeable(item) -> bool:
    """A list, dict or object, or an array updated in place (not a number)."""
    from .values import Array
    if isinstance(item, Array):
        return item.immutable is False
    return isinstance(item, (list, dict)) or hasattr(item, "__dict__")


def is_marked(obj) -> bool:
    """Whether a copy of `obj` that a runtime pick made is still readable:
    held by the program (a variable, a container, the value stack), not
    only by tpucc's bookkeeping."""
    entry = builder.ctx().picked_originals.get(id(obj))
    if entry is None or entry[0] is not obj:
        return False
    entry[1][:] = [p for p in entry[1] if p.held()]
    return bool(entry[1])


def refuse_change(obj) -> None:
    """Refuses a change of `obj` while a copy of it that a runtime pick
    made can still be read: the copy would not see the change."""
    if not is_marked(obj):
        return
    from .values import Array      # (values.Array.set asks: imported once it is loaded)
    if isinstance(obj, Array):
        raise SideEffectError(
            "updating in place an array of a list while a copy of it, read at a runtime "
            "position (`v = xs[i]` with a runtime i, or what max()/min() picked), is still in "
            "use is not supported: compiled code picks a copy, which would not see the update",
            hint="keep the arrays in one array (xs = np.stack(...)) and update xs[i], finish "
                 "the updates before the pick, or pick a copy (v = xs[i].copy())")
    if type(obj) is list:
        what, spelled = "a row of a table of lists or dicts", "`row = T[i]`"
        hint = ("make the table a NumPy array (`T = np.array(T)`) and index it as `T[i, j]`, "
                "or finish changing the rows before reading the table at a runtime position")
    else:
        what = "a dict of a list" if isinstance(obj, dict) else "an object of a list"
        spelled = "`d = items[i]`"
        hint = ("finish changing the items before reading the list at a runtime position, "
                "or read what you need from the item at once (`items[i]['a']`, "
                "`items[i].a`), before the change")
    raise SideEffectError(
        f"changing {what} while a copy of it, read at a runtime position ({spelled} with "
        "a runtime i, or what max()/min() picked), is still in use is not supported: "
        "compiled code picks a copy, which would not see the change", hint=hint)
