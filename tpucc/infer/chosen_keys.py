"""A static object chosen at run time used as a subscript: `counts[stage]`.

A state machine keeps its state as an enum member or a string that runtime
paths change (`stage = Stage.DECAY` under a runtime `if`), so compiled code
holds it as a choice among those objects (chosen_values).  Programs then
index with it: an IntEnum member indexes a list or an array as its int does
(`counts[stage] += 1`), and a dict keyed by the members or strings is
looked up with it, or with a tuple that holds it (`RATES[stage]`,
`NOTES.get(name)`, `TRANSITIONS[(state, event)]`), and updated under it
(`time_in[state] += 1`).  Each use needs only a static table over the
objects the choice may hold:

- an index: the int of each object (`index`), a runtime int that indexes as
  any other does;
- a dict read: the position of each object among the dict's keys
  (`dict_item`), the item then read as a list's at a runtime position is,
  and Python's KeyError checked at run time for an object the dict lacks;
- a dict store: the item of each object written under a runtime `if`
  (`dict_store`), as the program's own code would write it.

A use that would need more (a key the dict lacks, stored or read through
its __missing__: a new item on one path) keeps the refusal.
"""
from __future__ import annotations

import itertools
import operator

from . import chosen_values
from .chosen_values import ChosenValue


def index(key: ChosenValue):
    """`seq[key]`, `x[key]`: the runtime int of each object the choice may
    hold (an IntEnum member, an int), or the refusal where one is not an
    int (a bool too: NumPy reads `x[True]` as a mask, not as x[1])."""
    objects = chosen_values.held_objects(key)
    if objects and all(isinstance(o, int) and not isinstance(o, bool) for o in objects):
        position = chosen_values.call_mapped(operator.index, [key])
        if position is not None:
            return position
    raise chosen_values.refusal("using it as an index", key)


def is_key(key) -> bool:
    """Whether a dict's subscript is a choice, or a tuple of choices and
    static objects (`TRANSITIONS[(state, event)]`) that holds one."""
    if isinstance(key, ChosenValue):
        return True
    return type(key) is tuple and chosen_values.holds_choice(key) and \
        all(map(chosen_values.fits, key))


def dict_item(interp, mapping: dict, key):
    """mapping[key] (is_key's): the item at the position among the dict's
    keys of the key picked at run time (KeyError, checked at run time, for
    a key the dict lacks)."""
    _refuse_missing_items(mapping, key, "reading the item of it from a dict with a default")
    items = interp.dict_items(mapping)
    if not items:
        raise chosen_values.refusal("using it as a key of an empty dict", _choice_in(key))
    where = {k: i for i, (k, _) in enumerate(items)}
    return _read(interp, mapping, [v for _, v in items], where.__getitem__, key)


def dict_get(interp, mapping: dict, key, default=None):
    """mapping.get(key, default): as dict_item, with `default` the item of
    a key the dict lacks."""
    items = interp.dict_items(mapping)
    where = {k: i for i, (k, _) in enumerate(items)}
    return _read(interp, mapping, [v for _, v in items] + [default],
                 lambda k: where.get(k, len(items)), key)


def _read(interp, mapping: dict, values: list, position_of, key):
    """values[position_of(k)] of the key `k` picked at run time: each
    combination of the objects of the choices in it."""
    if isinstance(key, tuple):
        position = chosen_values.call_mapped(lambda *parts: position_of(parts), list(key))
    else:
        position = chosen_values.call_mapped(position_of, [key])
    if position is None:
        raise chosen_values.refusal("using it as a dict key", _choice_in(key))
    return interp.read_at_position(mapping, values, position, position)


def _choice_in(key) -> ChosenValue:
    return chosen_values.first_choice((key,))


def dict_store(interp, mapping: dict, key: ChosenValue, value) -> None:
    """mapping[key] = value where the dict holds every object the choice
    may hold: the item of the object picked, written under a runtime `if`
    per object (a new key on one path only would change the dict's keys
    at run time: refused)."""
    missing = [o for o in chosen_values.held_objects(key) if o not in mapping]
    if missing:
        raise chosen_values.refusal(
            f"storing under it in a dict that has no key {missing[0]!r} (a key added at "
            "run time)", key)
    interp.call(chosen_values.call_resolved,
                chosen_values.resolved_call(operator.setitem, [mapping, key, value], {}), {})


def _refuse_missing_items(mapping: dict, key, what: str) -> None:
    """A dict whose class makes an absent key's item (defaultdict, Counter:
    __missing__) would add it, or give it, on one path only."""
    if hasattr(type(mapping), "__missing__") and any(k not in mapping for k in _held_keys(key)):
        raise chosen_values.refusal(what, _choice_in(key))


def _held_keys(key) -> list:
    """The keys `key` (is_key's) may be: each combination of the objects
    its choices may hold."""
    if isinstance(key, ChosenValue):
        return chosen_values.held_objects(key)
    return list(itertools.product(*[chosen_values.held_objects(k) if isinstance(k, ChosenValue)
                                    else [k] for k in key]))
