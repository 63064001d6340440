"""What a generator did and read while it ran, when it was made.

tpucc runs a generator to its end when it is called (its items are static,
held by a SeqIter); Python runs it item by item as it is consumed.  The two
agree unless something the generator reads changes between the two times,
or the generator changes something for items the program never asks for.
Neither can be replayed, so both are refused where they happen:

- reads: the dict and list items, plain attributes, lists iterated and
  arrays (their values) that the run read; checked each time the generator is advanced
  (iterators.caught_up): one that changed since is refused there, at the
  consumer's line (a rebound variable is calls._refuse_late_binding's).
- effects: an in-place write, an item or attribute set, a list or dict
  mutator on something that existed before the run, a `nonlocal` or global
  variable rebound, and how many items the generator had yielded before
  it; checked when the compiled function returns (check_unconsumed_effects):
  a generator not consumed that far did, compiled, what Python's never did.

Objects the run made itself (a buffer it fills and yields) are its own:
neither their reads nor their changes are recorded.
"""
from __future__ import annotations

import contextlib

from ..errors import SideEffectError
from . import builder, values
from .values import Array

_FROM_CLASS = object()      # an attribute read from the class (none in the instance dict)


class GeneratorRun:
    """One generator frame's run (calls.Interpreter.inline)."""
    __slots__ = ("yields", "first_serial", "made", "reads", "effect_after", "loc", "what",
                 "writes")

    def __init__(self, yields: list, first_serial: int, what: str = "a generator"):
        self.yields = yields            # the frame's items so far (its length: yields made)
        self.first_serial = first_serial
        self.made: set = set()          # ids of the containers and objects made by the run
        self.reads: dict = {}           # (kind, id(obj), key) -> (obj, key) read
        self.effect_after = -1          # the most items yielded before an outside change
        # (kind, id(obj), key) -> (obj, key, the most items yielded before it
        # was changed): the outside arrays, attributes and items changed
        self.writes: dict = {}
        self.loc = builder.current_loc()
        self.what = what                # (as messages name it)

    def owns(self, obj) -> bool:
        if isinstance(obj, Array):
            while obj.base is not None:         # a view writes into its base
                obj = obj.base
            return obj.serial >= self.first_serial
        return id(obj) in self.made


def start(interp, yields: list, arguments, what: str = "a generator") -> GeneratorRun:
    """The run of a generator frame starts, given `arguments`: an iterator
    over a list among them (a generator expression's `for w in ws`, whose
    iter(ws) is made outside) is a list it reads."""
    from .iterators import SeqIter
    from .values import _serials
    run = GeneratorRun(yields, next(_serials), what)
    interp.generator_runs.append(run)
    values.array_read_watchers.append(lambda a: note_array_read(interp, a))
    values.array_write_watchers.append(lambda a: note_effect(interp, a))
    for v in arguments:
        if isinstance(v, SeqIter) and type(v.source) is list:
            note_list_iterated(interp, v.source)
    return run


def finish(interp, run: GeneratorRun) -> None:
    """The run of a generator frame ends (its frame returned or raised)."""
    interp.generator_runs.remove(run)
    values.array_read_watchers.pop()
    values.array_write_watchers.pop()


@contextlib.contextmanager
def watching_effects(interp):
    """Records, as a generator's run does, whether the code run inside the
    block changes state that existed before it (a cached function's side
    effects: local_caches); yields the GeneratorRun, whose effect_after is
    0 or more once it did."""
    from .values import _serials
    run = GeneratorRun([], next(_serials))
    interp.generator_runs.append(run)
    try:
        yield run
    finally:
        interp.generator_runs.remove(run)


def note_made(interp, obj) -> None:
    for run in interp.generator_runs:
        run.made.add(id(obj))


def note_effect(interp, obj, slot=None) -> None:
    """`obj` is changed now (in place, an item, an attribute, a mutator);
    `slot`: ("attr", name) or ("item", key) where one of those is set."""
    for run in interp.generator_runs:
        if not run.owns(obj):
            run.effect_after = max(run.effect_after, len(run.yields))
            _note_write(run, obj, slot)


def _note_write(run: GeneratorRun, obj, slot) -> None:
    if isinstance(obj, Array):
        while obj.base is not None:         # (a view writes into its base)
            obj = obj.base
        kind, key = "array", None
    elif slot is not None:
        kind, key = slot
    else:
        return
    run.writes[(kind, id(obj), _hashable(key))] = (obj, key, len(run.yields))


def note_unconsumed_writes(interp, run: GeneratorRun, made) -> None:
    """Python runs a generator's change of outside state only when the item
    after it is asked for; compiled code made every change when the
    generator was made.  Until `made` is consumed that far, the program
    reading what was changed would see a change Python's has not made:
    refused where it reads it (refuse_unconsumed_read, and for an array's
    value, any op that takes it: builder.emit_op)."""
    for (kind, _, _), (obj, key, yielded) in run.writes.items():
        check = _unconsumed_check(run, made.cursor, kind, obj, key, yielded)
        if kind == "array":
            builder.ctx().generator_writes[id(obj._var)] = (obj._var, check)
        else:
            interp.generator_writes[(kind, id(obj), _hashable(key))] = (obj, check)


def refuse_unconsumed_read(interp, kind: str, obj, key) -> None:
    """obj.key (`kind` "attr") or obj[key] ("item") read by the program:
    refused where a generator not yet consumed that far changed it."""
    found = interp.generator_writes.get((kind, id(obj), _hashable(key)))
    if found is not None and found[0] is obj:
        found[1]()


def _unconsumed_check(run: GeneratorRun, cursor, kind, obj, key, yielded: int):
    what = {"item": f"the item [{key!r}] of a {type(obj).__name__}",
            "attr": f"the attribute `.{key}` of a {type(obj).__name__}",
            "array": "an array"}[kind]

    def check():
        if cursor is None or cursor.ended or cursor.sure > yielded:
            return          # (Python's generator has made the change by now)
        how_far = "as far as a runtime condition decides" if cursor.runtime else \
            f"only {cursor.sure} item(s) far"
        raise SideEffectError(
            f"{what} is read here, but {run.what} made {_at(run.loc)}, which changes outside "
            f"state (this value) after yielding {yielded} item(s), was consumed {how_far} by "
            "now: compiled code runs a generator to its end when it is made, so this read "
            "would see a change that Python's generator has not made yet",
            hint="read it before making the generator (make the generator after this line), "
                 "or consume the generator first (items = list(gen)) and read it after")
    return check


def note_item_read(interp, obj, key) -> None:
    """obj[key] read from a dict or list."""
    if type(obj) not in (dict, list):
        return
    for run in interp.generator_runs:
        if id(obj) not in run.made:
            run.reads.setdefault(("item", id(obj), _hashable(key)), (obj, key))


def note_attribute_read(interp, obj, name) -> None:
    """obj.name read, a plain attribute (instance dict, else the class)."""
    if isinstance(obj, Array) or _instance_dict(obj) is None:
        return
    for run in interp.generator_runs:
        if id(obj) not in run.made:
            run.reads.setdefault(("attr", id(obj), name), (obj, name))


def note_array_read(interp, a: Array) -> None:
    """The value of the array `a` (not a view) read: `v * 2` of a row of it."""
    for run in interp.generator_runs:
        if not run.owns(a):
            run.reads.setdefault(("array", id(a), None), (a, None))


def note_list_iterated(interp, lst) -> None:
    """A loop of the run over the list `lst` (its items, its length)."""
    for run in interp.generator_runs:
        if id(lst) not in run.made:
            run.reads.setdefault(("list", id(lst), None), (lst, None))


def checker(interp, run: GeneratorRun):
    """What iterators.caught_up calls before the generator is advanced:
    refuses where something the run read has changed since."""
    # (as the run left them: its own changes, cnt[0] += 1, are not the program's)
    reads = [(kind, obj, key, _now(interp, kind, obj, key))
             for (kind, _, _), (obj, key) in run.reads.items()]

    def check():
        for kind, obj, key, then in reads:
            now = _now(interp, kind, obj, key)
            if now is not then and not (kind == "list" and _same_items(now, then)):
                raise _stale_read(kind, obj, key, run.loc, run.what)
    return check if reads else None


def note_unconsumed_effects(interp, run: GeneratorRun, made) -> None:
    """Keeps a generator that changed outside things, to check when the
    compiled function returns how far it was consumed."""
    if run.effect_after >= 0:
        interp.effect_generators.append((run, made, builder.ctx().region))


def check_unconsumed_effects(interp, region) -> None:
    """At the compiled function's return: a generator (made on the
    function's static path, in `region`) that changed outside state after
    yielding k items must have been asked for item k (or its end) by now,
    as Python's generator then runs that change; else compiled code did
    what eager Python never does."""
    for run, made, made_in in interp.effect_generators:
        c = made.cursor
        if made_in is not region or c is None:
            continue        # (made in a region left: a trial, or a runtime branch)
        if c.sure > run.effect_after or c.ended:
            continue
        if c.runtime:
            raise _stopped_at_run_time(run, c)
        raise SideEffectError(
            "a generator that changes outside state (writes into an array, a list, a dict "
            "or an attribute, or rebinds a `nonlocal` or global variable) after yielding "
            f"{run.effect_after} item(s) was consumed only {c.pos} item(s) far: compiled "
            "code runs a generator to its end when it is made, so its changes for the items "
            "never asked for would happen, unlike Python's",
            hint="make the changes outside the generator, in the loop that takes its items, "
                 "or consume the generator fully (list(gen)) and use the items needed"
        ).with_loc(run.loc)


def _stopped_at_run_time(run: GeneratorRun, c) -> SideEffectError:
    """The refusal of a generator that changes outside state, consumed where
    a runtime condition decides how far (a loop over it left by a runtime
    `break` or `return`, a next() in a runtime `if`): Python's runs only
    that far, compiled code ran it to its end when it was made."""
    return SideEffectError(
        "a generator that changes outside state (writes into an array, a list, a dict or an "
        f"attribute, or rebinds a `nonlocal` or global variable) after yielding "
        f"{run.effect_after} item(s) is consumed here as far as a runtime condition decides "
        "(a runtime `break` or `return` in the loop over it, a runtime `if`, or any() or "
        "all() of runtime truth values): compiled code runs a generator to its end when it "
        "is made, so its changes for the items never asked for would happen, unlike Python's",
        hint="make the changes in the loop that takes the items (the generator yields "
             "what they need; for any(): `hit = False`, then `while not hit and k < n: hit = "
             "step(); k += 1`), or let the loop take every item and keep what the early "
             "exit would have given (`if found < 0 and x[0] > 1.0: found = k`)"
    ).with_loc(c.runtime_loc or run.loc)


def _now(interp, kind, obj, key):
    if kind == "item":
        return _item_now(interp, obj, key)
    if kind == "attr":
        return _attribute_now(interp, obj, key)
    if kind == "array":
        return obj._var     # (a new Value after each write in place)
    return tuple(obj)


def _item_now(interp, obj, key):
    from .calls import _existing_slot
    slot = _existing_slot(obj, key)
    if slot is None:
        return _FROM_CLASS          # (no such item now)
    return interp.shadow.get((id(obj), ("item", slot)), obj[slot])


def _attribute_now(interp, obj, name):
    shadowed = interp.shadow.get((id(obj), name), _FROM_CLASS)
    if shadowed is not _FROM_CLASS:
        return shadowed
    return (_instance_dict(obj) or {}).get(name, _FROM_CLASS)


def _instance_dict(obj):
    from .calls import instance_dict
    try:
        return instance_dict(obj)
    except TypeError:
        return None


def _same_items(now: tuple, then: tuple) -> bool:
    return len(now) == len(then) and all(a is b for a, b in zip(now, then))


def _hashable(key):
    try:
        hash(key)
        return key
    except TypeError:
        return id(key)


def _at(loc) -> str:
    return f"at line {loc.line}" if loc is not None else "before"


def _stale_read(kind, obj, key, made_at, maker="a generator") -> SideEffectError:
    what = {"item": f"the item [{key!r}] of a {type(obj).__name__}",
            "attr": f"the attribute `.{key}` of a {type(obj).__name__}",
            "list": "a list", "array": "an array (written in place)"}[kind]
    return SideEffectError(
        f"{what} that {maker} made {_at(made_at)} reads changed after the "
        "generator was made and before it is consumed here: compiled code runs a generator "
        "(a generator expression; a held map, filter or zip a loop takes) when it is made, "
        "so its items would not see the change, as Python's do when consumed",
        hint="consume the generator (list(gen)) before the change, or make the generator "
             "after it (or use a list comprehension, evaluated at once)")
