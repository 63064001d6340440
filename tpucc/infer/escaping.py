"""Arrays that leave a runtime region inside an object made there.

A static object made inside a runtime region (a loop body, an arm of a
runtime `if`) may outlive it: a `with` manager whose __exit__ a runtime
`break` runs after the loop, an object read after the loop.  The state a
region merges holds the object itself as a static leaf, not the arrays
inside it, whose Values exist only inside the region (`with Ctx(np.zeros(1))
as b`, `b` read by nothing after the loop, so not carried: E999 KeyError).

So the region, at its end, binds each such array to a local of its own
(`hold`); the merge (a Cond's, a While's) makes it a slot like any
variable; and after the merge each array becomes a whole view of its
slot's result (`forward`), so that code after the region reads the
merged value, and its in-place updates reach it, as in NumPy, where the
object and the slot are one array.  The merge then drops those locals
(control._forward_held_arrays, loops._unpark_exit_stack).
"""
from __future__ import annotations

import types

from .state import instance_attributes, is_namedtuple, is_plain_object
from .values import Array, Undefined


def held_arrays(interp, leaves, floor: int) -> list:
    """The arrays made at or after serial `floor` (the roots of views) that
    objects and containers made there hold, reached from the static values
    among a state's `leaves` (its state_leaves), in a fixed order; not
    those the state holds as leaves (variables carry them already).
    Objects made before `floor` are not looked into: the regions follow
    what is written into them (Rebound, kept_containers)."""
    carried = {id(v) for _, v in leaves if isinstance(v, Array)}
    statics = [v for _, v in leaves if not isinstance(v, (Array, Undefined))]
    found = {}
    for arr in _arrays_inside(interp, statics, floor):
        root = arr
        while root.base is not None:
            root = root.base
        if root.serial >= floor and id(root) not in carried:
            found.setdefault(id(root), root)
    return list(found.values())


def _arrays_inside(interp, values, floor: int):
    """The Arrays reachable from `values` through the objects, lists and
    dicts made at or after `floor`, tuples, `with` exits and bound methods
    (a worklist: user-sized object graphs)."""
    from .exceptions import SteppedExit, TracedExit
    seen, work = set(), list(reversed(values))
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, Array):
            yield v
            continue
        made = interp.fresh_ids.get(id(v))
        made_here = made is not None and made[0] is v and made[1] >= floor
        if isinstance(v, TracedExit):
            inside = [v.manager]
        elif isinstance(v, SteppedExit):
            inside = [*v.frame.locals.values(), *v.frame.stack]
        elif isinstance(v, types.MethodType):
            inside = [v.__self__]
        elif type(v) is tuple or is_namedtuple(v):
            inside = list(v)
        elif not made_here:
            continue
        elif isinstance(v, list):
            inside = list(v)
        elif isinstance(v, dict):
            inside = list(v.values())
        elif is_plain_object(v):
            inside = list(instance_attributes(v).values())
        else:
            continue
        work.extend(reversed(inside))


def hold(locals_: dict, arrays, name: str) -> list:
    """Binds each of `arrays` to a local `name.format(k)`; -> the names."""
    names = []
    for k, arr in enumerate(arrays):
        names.append(name.format(k))
        locals_[names[-1]] = arr
    return names


def forward(arr: Array, to: Array) -> None:
    """`arr`, an array of a region's own, is from now on a whole view of
    `to`, the region's result for it: reads give `to`'s value, in-place
    updates write into `to`."""
    from ..ops.indexing import Reshaped
    if arr is to or arr.base is to:
        return
    arr.base, arr.index = to, Reshaped(to.shape)
    arr._base_var, arr._read_in = None, None
