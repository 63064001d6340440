"""The program's own code on an enum member chosen at run time.

A state machine's states are often an enum whose class holds the program's
code: a method that gives the next state (`stage = stage.next()`), a
property (`stage.rate`), or attributes its __init__ set on each member
(`Note.C4.freq`).  Where the member is a choice (chosen_values: paths that
meet bound different members), Python's own reads of `.name` and `.value`
are tabulated over the members; the program's code is not run natively but
interpreted, once per member the choice may hold, under a runtime `if` that
tests the choice's position (chosen_values.call_resolved, as print's
objects are).  The results meet as any runtime `if`'s do: numbers and
arrays as runtime values, members and strings as a new choice.
"""
from __future__ import annotations

import enum

from . import chosen_values
from .chosen_values import ChosenValue


class MemberMethod:
    """`stage.next`, called next (`stage.next()`): the method of each member,
    interpreted (`call`)."""
    __slots__ = ("choice", "name")

    def __init__(self, choice: ChosenValue, name: str):
        self.choice, self.name = choice, name

    def __repr__(self) -> str:
        return f"the method .{self.name} of an enum member chosen at run time"


def interpreted(choice: ChosenValue) -> bool:
    """Whether the objects the choice may hold are all enum members (whose
    classes' code the interpreter runs)."""
    objects = chosen_values.held_objects(choice)
    return bool(objects) and all(isinstance(o, enum.Enum) for o in objects)


def attribute(interp, choice: ChosenValue, name: str, method: bool):
    """choice.name: a MemberMethod where it is called at once, else each
    member's attribute, read as the program reads it."""
    if method:
        return MemberMethod(choice, name)
    return _resolved(interp, getattr, [choice, name], {})


def call(interp, m: MemberMethod, args, kwargs):
    """m(*args, **kwargs): each member's method, called with the same
    arguments."""
    return _resolved(interp, _call_method, [m.choice, m.name, *args], kwargs)


def _call_method(member, name, *args, **kwargs):
    # (interpreted: getattr gives the member's bound method of the program)
    return getattr(member, name)(*args, **kwargs)


def _resolved(interp, fn, args, kwargs):
    """fn(*args, **kwargs), args[0] the choice made each member it may hold."""
    return interp.call(chosen_values.call_resolved,
                       chosen_values.resolved_call(fn, args, kwargs), {})
