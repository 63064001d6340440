"""Containers nothing reads after a join of runtime paths.

`history.append(g)` in a loop that a runtime `return` leaves early: the
path that returned appended fewer items than the path that goes on, and
a list has one length on every path.  But where the list is the call's
own and only variables that no path reads again hold it (the function
returns, and the returned value does not hold it), no path after the
join can see its length: the arms need not agree on it.  `drop` makes
such an arm write what an arm that goes on with the container writes,
each item undefined there (the merge takes the defined ones), so the
merge neither compares the arms' lengths nor refuses the difference.

A container stays wherever anything live may reach it: a live variable
or stack slot of this frame or of a caller's (walked through tuples,
lists, dicts, sets, deques, iterators and objects' attributes), or an
object this walk cannot see into (a closure, a generator), or where the
program did not make it (an argument's list is the caller's).
"""
from __future__ import annotations

import collections
import types

import numpy as np

from ..frontend.cfg import dead_locals
from .iterators import RangeIter, SeqIter
from .state import ObjectNode, flatten, has_static_keys, unflatten
from .values import Array, Undefined

_CONTAINERS = (list, dict, set, collections.deque)
# Values that hold no container (nor anything that could hold one)
_LEAVES = (Array, Undefined, bool, int, float, complex, str, bytes, type(None), np.generic,
           np.dtype, np.ndarray, type, types.ModuleType, types.BuiltinFunctionType, RangeIter,
           range, slice)


class _Opaque(Exception):
    """A live value whose insides the walk cannot follow."""


def drop(interp, frame, arms) -> None:
    """For each arm, the containers the call made that only variables dead
    past the arm's exits hold (`dead_locals`), and nothing else live
    reaches: the arm writes the items an arm that reads them again writes,
    each an undefined value (which the merge takes from the paths that
    define it), and its own writes are dropped (all arms' where none reads
    them: the container is left as it was before the arms).  The variables
    stay bound: a region around the merge finds its containers where it
    left them."""
    unread = [_unread(interp, frame, a) for a in arms]
    if not any(unread):
        return
    for cid, container in {i: c for u in unread for i, c in u.items()}.items():
        readers = [a for a, u in zip(arms, unread) if cid not in u]
        if {a.exit.targets for a in readers} & {
                a.exit.targets for a, u in zip(arms, unread) if cid in u}:
            continue    # (paths that go on together keep one container: merged, not dropped)
        reader = readers[0] if readers else None
        for a, u in zip(arms, unread):
            if cid in u:
                a.items = {slot: w for slot, w in a.items.items() if w[0] is not container}
                if reader is not None:
                    a.items.update((slot, _unknown_write(w)) for slot, w in reader.items.items()
                                   if w[0] is container)


def _unread(interp, frame, arm) -> dict:
    """{id: container} of the containers the call made that the arm's
    variables dead past its exits hold, and nothing live reaches."""
    dead = {n for n in dead_locals(frame.fc, arm.exit.targets) & arm.locals.keys()
            if isinstance(arm.locals[n], _CONTAINERS)}
    # (only a list's or dict's items are merged as the state's: a deque's
    # or set's are slots of their own, which an undefined write would break)
    held = [arm.locals[n] for n in dead if _items_in_state(arm.locals[n])]
    if not held:
        return {}
    try:
        # (a dead variable holding an object counts: the object may be an
        # argument's, which the caller sees after the call)
        live = _reached([v for n, v in arm.locals.items() if n not in dead] + list(arm.stack)
                        + [v for f in interp.frames if f is not frame
                           for v in [*f.locals.values(), *f.stack]])
        unread = _reached(held)
    except _Opaque:
        return {}
    gone = {i: c for i, c in unread.items() if i not in live}
    if all(_made_by_call(interp, c) and _items_in_state(c) for c in gone.values()):
        return gone
    return {}


def _items_in_state(container) -> bool:
    return type(container) is list or type(container) is dict and has_static_keys(container)


def _unknown_write(write):
    """An item write (values.finish_items) whose value is undefined, in
    the structure of the value written (a tuple of arrays stays a tuple)."""
    container, key, value, loc, serial = write
    leaves: list = []
    td = flatten(value, f"[{key!r}]", leaves)
    return container, key, unflatten(td, [Undefined(p) for p, _ in leaves]), loc, serial


def _made_by_call(interp, container) -> bool:
    entry = interp.fresh_ids.get(id(container))
    return entry is not None and entry[0] is container \
        and id(container) not in interp.argument_containers


def _reached(roots) -> dict:
    """{id: container} of the containers `roots` hold, at any depth;
    raises _Opaque at a value the walk cannot see into."""
    found, seen, work = {}, set(), list(roots)
    while work:
        v = work.pop()
        if isinstance(v, _LEAVES) or id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, _CONTAINERS):
            found[id(v)] = v
            work.extend(v.values() if isinstance(v, dict) else v)
            if isinstance(v, dict):
                work.extend(v.keys())
        elif isinstance(v, (tuple, frozenset)):
            work.extend(v)
        elif isinstance(v, SeqIter):
            work.append(v.items)
        elif isinstance(v, ObjectNode):
            work.extend(v.attrs.values())
        elif isinstance(v, types.FunctionType) and v.__closure__ is None:
            continue
        elif isinstance(getattr(v, "__dict__", None), dict) and not hasattr(type(v), "__slots__") \
                and not isinstance(v, (types.FunctionType, types.GeneratorType)):
            work.extend(vars(v).values())
        else:
            raise _Opaque
    return found
