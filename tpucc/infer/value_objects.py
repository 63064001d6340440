"""Plain objects a counted loop makes anew each iteration, carried as values.

`pos = pos + vel * dt` with a user class whose `__add__` / `__mul__` return
a new V2: each iteration leaves `pos` holding another object, a static
value that changes, so the loop was unrolled (1000 steps: 85 s of XLA).
Where nothing can tell a copy from the object (same class and attribute
names every iteration; attributes arrays, numbers, strings, None or
tuples of those; no `is`, id() or hash() on such objects; the object the
iteration starts with not changed in place; the new one held by that one
variable, or item of a list or tuple a variable holds, only), such an
object is a value, as a named tuple or a frozen
dataclass is: the loop carries its attributes as slots (state.flatten
walks it while `carrying` names its variable) and makes it again around
them (state._build), as the eager loop makes a new one each iteration.

A counted loop (a static number of iterations, at least one) leaves the
variable holding a new object eagerly too.  A runtime `while` (or a
`range` of a runtime length) that runs no iteration leaves the very object
of before, which a copy stands for only where nobody else can tell: it
carries them where that object too was made by the program and is held
by that variable alone (in no other slot, container, object or frame
around), as a runtime `if`'s merge does (`s = S(x0, 0.0)` then `while
s.y > 0: s = s.step(dt)`, a projectile flown until it lands).  Anything
else keeps a static loop unrolled, and a runtime one refused, as before.

A runtime `if` whose arms bind a variable to different such objects
(`if c: pos = pos * 0.5`) merges them the same way (`merging`,
`merge_by_attribute`): attribute by attribute, into a new object of the
class.  Eagerly the variable holds one of the arms' objects; a copy is
told from it only through another name holding it, so each must be made
by the program and held by that variable alone, in its arm and in the
frames around (then `is`, id(), hash() and later changes of either
object see nothing else).
"""
from __future__ import annotations

import contextlib
import contextvars
import re
import types

import numpy as np

from .values import Array

_SCALARS = (bool, int, float, complex, str, bytes, type(None), np.generic)


class Carrying:
    """The variables one loop carries as value objects ({path: class}), the
    objects state._build made for them (copies nobody else holds), and the
    classes whose instances the current trial of the body asked `is`, id()
    or hash() about.  `merge`: the scope of one runtime `if`'s merge."""

    def __init__(self, parent: Carrying | None, interp, merge=False):
        self.parent, self.interp, self.merge = parent, interp, merge
        self.paths: dict = {}
        self.built: dict = {}
        self.identity_read: set = set()

    def holds_copy(self, obj) -> bool:
        return self.built.get(id(obj)) is obj


_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("tpucc_value_objects", default=None)


@contextlib.contextmanager
def carrying(interp, merge=False):
    """The scope of one loop's fixpoint: its value-object variables (or,
    with `merge`, of one runtime `if`'s merge: merge_by_attribute)."""
    scope = Carrying(_ACTIVE.get(), interp, merge)
    token = _ACTIVE.set(scope)
    try:
        yield scope
    finally:
        _ACTIVE.reset(token)


def merging(interp):
    """The scope of one runtime `if`'s merge, within which the paths
    merge_by_attribute finds are flattened attribute by attribute and
    made again as new objects (state._build, note_built)."""
    return carrying(interp, merge=True)


def attribute_names(value) -> tuple | None:
    """The attribute names of an instance of a plain user class whose
    attributes are all values (arrays, numbers, strings, None, tuples of
    those), in the order its __dict__ holds them; None for anything else
    (containers, named tuples, dataclasses that are values already, tpucc's
    own objects, objects with __slots__).  The order is part of the object
    (`vars(o)`, its repr, a dataclass's fields): the copy state._build makes
    sets them in it, and objects whose orders differ are not alike (a copy
    could keep only one of their orders)."""
    cls = type(value)
    if isinstance(value, (type, tuple, list, dict, set, types.FunctionType, types.MethodType,
                          Array, np.ndarray, *_SCALARS)) \
            or cls.__module__.startswith(("tpucc.", "numpy", "jax", "builtins")) \
            or getattr(cls, "__dataclass_params__", None) is not None and \
            cls.__dataclass_params__.frozen \
            or any("__slots__" in vars(c) for c in cls.__mro__[:-1]):
        return None
    attrs = getattr(value, "__dict__", None)
    if type(attrs) is not dict or not attrs or not all(_value_leaf(v) for v in attrs.values()):
        return None
    return tuple(attrs)


def _value_leaf(v) -> bool:
    if type(v) is tuple:
        return all(_value_leaf(x) for x in v)
    return isinstance(v, (Array, *_SCALARS))


def flattened_as_value(value, path: str) -> tuple | None:
    """The attribute names to flatten `value` by, where the loop carrying it
    (or one around it) carries the variable at `path` as a value object."""
    scope = _ACTIVE.get()
    while scope is not None:        # (flatten asks for every leaf: no list made here)
        if scope.paths and scope.paths.get(path) is type(value):
            return attribute_names(value)
        scope = scope.parent
    return None


def note_built(obj) -> None:
    """state._build made `obj` for a value-object slot: a copy of ours, made
    by compiled code as the eager loop's objects are (its attributes are
    then rebound as those of an object the call made, and it is returned
    as one: outputs.py)."""
    chain = _chain()
    if any(type(obj) in scope.paths.values() for scope in chain):
        chain[0].interp.fresh(obj)
        for scope in chain:     # (no one else holds it: each loop around may carry it)
            scope.built[id(obj)] = obj


def _chain() -> list:
    """The active scopes, innermost first (a loop's, those of loops around it)."""
    scopes, scope = [], _ACTIVE.get()
    while scope is not None:
        scopes.append(scope)
        scope = scope.parent
    return scopes


def note_identity(*objs) -> None:
    """`is`, id() or hash() asked about `objs`: objects of their classes are
    not carried as values in this trial (a copy would answer otherwise)."""
    for scope in _chain():
        scope.identity_read.update(type(o) for o in objs if attribute_names(o) is not None)


def _made_in_body(obj, interp, floor: int, scope: Carrying) -> bool:
    """Whether `obj` is new in this iteration (made by its code, or a copy
    state._build made), not an object from before the loop others may hold."""
    made = interp.fresh_ids.get(id(obj))
    return made is not None and made[0] is obj and made[1] >= floor or scope.holds_copy(obj)


# A variable, or an item of a list or tuple it holds (`pos = [q + v for q, v in
# zip(pos, vel)]`), as state.flatten names it: not an attribute of an object
# (whose class may see the copy) nor a dict's item.
_VARIABLE = re.compile(r"[A-Za-z_]\w*(\[\d+\])*")


def _held_at(locals_: dict, path: str):
    """What the variable or item `path` (_VARIABLE) holds; None if nothing."""
    name, _, rest = path.partition("[")
    value = locals_.get(name)
    for index in filter(None, rest.rstrip("]").split("][")):
        if type(value) not in (list, tuple) or int(index) >= len(value):
            return None
        value = value[int(index)]
    return value


def made_anew(leaves, trial, frame, counted: bool) -> dict:
    """{path: class} of the variables a trial of a loop's body left holding
    a new object of the class and attributes of the one it began with
    (attribute_names), which may be carried as a value: the body made it,
    no other slot holds it nor the one before, and no `is`, id() or hash()
    asked about its class.  Where the loop may run no iteration (not
    `counted`), the one before must be the program's, held by that
    variable alone (sole_reference)."""
    scope = _ACTIVE.get()
    interp = frame.interp
    held = None if counted else _references(
        [*frame.locals.values(), *frame.stack, *_outer_roots(interp, frame)])
    found: dict = {}
    for (path, before), (_, after) in zip(leaves, trial.leaves):
        if after is before or not _VARIABLE.fullmatch(path) or type(after) is not type(before):
            continue
        names = attribute_names(before)
        if names is None or attribute_names(after) != names \
                or type(before) in scope.identity_read \
                or sum(v is before for _, v in leaves) != 1 \
                or sum(v is after for _, v in trial.leaves) != 1 \
                or not _made_in_body(after, interp, trial.body_floor, scope) \
                or held is not None and not sole_reference(interp, before, held):
            continue
        found[path] = type(before)
    scope.paths.update(found)
    return found


def sole_reference(interp, obj, held: dict) -> bool:
    """Whether `obj` was made by the program (or is a copy state._build
    made) and `held` (_references of everything the frames hold) counts
    one reference to it: a copy of it is then told from it by nothing."""
    return (_made_by_program(interp, obj) or any(s.holds_copy(obj) for s in _chain())) \
        and held.get(id(obj)) == 1


def entered(locals_: dict) -> dict:
    """At the top of a trial of the body: {path: (the copy the variable
    holds, its attributes)}, for unsafe_change; identity reads start anew."""
    scope = _ACTIVE.get()
    if scope is None or not scope.paths:
        return {}
    scope.identity_read = set()
    held = {p: _held_at(locals_, p) for p in scope.paths}
    return {p: (obj, dict(obj.__dict__)) for p, obj in held.items()
            if type(obj) is scope.paths[p]}


def unsafe_change(entry: dict, locals_: dict, leaves, interp, floor: int) -> str | None:
    """Why, at the end of a trial of the body, a variable carried as a value
    object cannot be (what the eager loop does that a copy would not show),
    or None: the object the iteration began with was changed in place; the
    variable now holds an object of another class or attributes, one from
    before the loop, or one another name holds too; or `is`, id() or
    hash() asked about the class."""
    scope = _ACTIVE.get()
    if scope is None:
        return None
    for p, (obj, attrs) in entry.items():
        now = obj.__dict__
        if now.keys() != attrs.keys() or any(now[k] is not v for k, v in attrs.items()):
            return f"changes the attributes of the object `{p}` held before the iteration"
    for p, cls in scope.paths.items():
        end = _held_at(locals_, p)
        names = attribute_names(entry[p][0]) if p in entry else None
        if type(end) is not cls or names is not None and attribute_names(end) != names:
            return f"leaves `{p}` holding {type(end).__name__}, not a {cls.__name__} alike"
        if cls in scope.identity_read:
            return f"asks `is`, id() or hash() about a {cls.__name__}"
        if end is not entry.get(p, (None,))[0] and not _made_in_body(end, interp, floor, scope):
            return f"binds `{p}` to an object made before the loop"
        if any(v is end for _, v in leaves) or \
                any(_held_at(locals_, q) is end for q in scope.paths if q != p):
            return f"binds the object `{p}` holds to another name too"
    return None


# --- a runtime `if` ----------------------------------------------------------------


def merge_by_attribute(frame, states) -> dict:
    """Within `merging`'s scope: {path: class} of the variables and stack
    slots (or items of lists and tuples they hold) that `states` ((locals,
    stack, item writes) of each arm of a runtime `if`, with the same names)
    bind to different objects of one plain class and attribute names
    (attribute_names), each made by the program and held by that variable
    alone (in its arm, and in no frame around): a copy merged attribute by
    attribute stands for whichever the eager run kept."""
    from .control import items_applied
    scope = _ACTIVE.get()
    assert scope is not None and scope.merge, "merge_by_attribute outside `merging`"
    interp = frame.interp
    candidates = {p: vs for p, vs in _differing_values(states) if alike_objects(vs)}
    if not candidates:
        return {}
    outer = _references(_outer_roots(interp, frame))
    counts = []
    for locals_, stack, items in states:
        with items_applied(items):
            counts.append(_references([*locals_.values(), *stack]))
    for path, values in candidates.items():
        if all(_made_by_program(interp, v) and not outer.get(id(v))
               and held.get(id(v)) == 1 for v, held in zip(values, counts)):
            scope.paths[path] = type(values[0])
    return scope.paths


def _differing_values(states):
    """(path, the arms' values) of each variable, stack slot, and item of a
    list or tuple that is another object in some arm, whose arms' values are not
    one object (a worklist: lists may be long)."""
    work = [(n, [loc[n] for loc, _, _ in states]) for n in sorted(states[0][0])]
    work += [(f"<stack {i}>", [st[i] for _, st, _ in states])     # (`a if c else b`)
             for i in range(min(len(st) for _, st, _ in states))]
    while work:
        path, values = work.pop()
        first = values[0]
        if all(v is first for v in values):
            continue
        if type(first) in (list, tuple) and all(
                type(v) is type(first) and len(v) == len(first) for v in values):
            work.extend((f"{path}[{i}]", [v[i] for v in values]) for i in range(len(first)))
        else:
            yield path, values


def alike_objects(values) -> bool:
    """Objects of one plain class whose attributes are values, the same
    names on each (attribute_names)."""
    names = attribute_names(values[0])
    return names is not None and all(
        type(v) is type(values[0]) and attribute_names(v) == names for v in values)


def alike_but_for_order(values) -> bool:
    """Objects alike_objects would merge, but that their attributes were set
    in different orders (`self.e` first on one path)."""
    names = [attribute_names(v) for v in values]
    return None not in names and len({type(v) for v in values}) == 1 and \
        len({frozenset(n) for n in names}) == 1 and len(set(names)) > 1


def _made_by_program(interp, obj) -> bool:
    """Made by the compiled call (not an argument's, a global's: others
    outside hold those)."""
    made = interp.fresh_ids.get(id(obj))
    return made is not None and made[0] is obj


def _outer_roots(interp, frame) -> list:
    """What the frames around `frame` hold, and the cells of all of them."""
    roots = []
    for f in interp.frames:
        if f is not frame:
            roots += [*f.locals.values(), *f.stack]
        roots += _cell_contents(f.cells.values())
    return roots


def _references(roots) -> dict:
    """{id(object): how many references to it} reachable from `roots`
    through tuples, lists, dicts, sets and plain objects' attributes (a
    worklist: user-sized object graphs), the roots counted as references."""
    from .iterators import SeqIter
    from .state import instance_attributes, is_plain_object
    counts: dict = {}
    work = list(roots)
    while work:
        v = work.pop()
        if isinstance(v, (Array, *_SCALARS)):
            continue
        counts[id(v)] = counts.get(id(v), 0) + 1
        if counts[id(v)] > 1:
            continue                    # (walked already)
        if isinstance(v, (tuple, list, set, frozenset)):
            work.extend(v)
        elif isinstance(v, dict):
            work.extend(v.values())
        elif isinstance(v, types.MethodType):      # (`scale = pos.scale` holds pos)
            work.append(v.__self__)
        elif isinstance(v, types.FunctionType):    # (a closure's cells, its defaults)
            work.extend(_cell_contents(v.__closure__ or ()))
            work.extend(v.__defaults__ or ())
        elif isinstance(v, SeqIter):       # (`for p in ps:` holds ps's items)
            work.append(v.items)
        elif is_plain_object(v) and not type(v).__module__.startswith("tpucc."):
            work.extend(instance_attributes(v).values())    # (not tpucc's: they hold it all)
    return counts


def _cell_contents(cells) -> list:
    held = []
    for cell in cells:
        try:
            held.append(cell.cell_contents)
        except ValueError:              # (an empty cell)
            pass
    return held
