"""Python numbers the program rebinds in places that outlive the call.

`self.t += 1` on an optimizer object, `state["step"] += 1` on a dict
argument, `nonlocal calls; calls += 1`, `global step; step += 1`, `self.best = min(self.best,
float(loss))`: a Python int or float kept between calls.  The trace folds the number it reads into the program
(static), so writing a new one back would make every later call compile
again.  Such a place is *promoted* instead: read as a runtime input (a weak
scalar, as `runtime_args` makes an argument) and written back after each
call as the Python number it now holds.

A place is named by a key that later traces of the same function recognize:
("attr", class, name) for an attribute (every object of that class),
("cell", id) for a closure variable, ("global", id, name) for a global,
("outside item", id, key) for an item of a dict or list from outside, or ("item", root, keys) for an item
of an argument (root: its position or keyword; keys: the path down to the
item).

The first trace finds the places (PromoteScalars); the next one reads them
as runtime values.  Where that fails (the number is a shape, a static loop
bound, an index into a Python list), the place is kept static instead: its
new value is written back after each call and each new value compiles again,
with a warning that says so.  A bool (a flag such as `self.built`) is kept
static at its first change, which is usually its only one; one that changes
again at a later call (`self.even = not self.even`) is promoted then, as is
one set in a runtime `if` or loop (its value is known only at run time).
"""
from __future__ import annotations

import warnings

from typing import NamedTuple

import numpy as np

from ..errors import SideEffectError, TpuccError

SCALAR_TYPES = (bool, int, float, complex)


class RecompileWarning(UserWarning):
    """A Python number the program rebinds compiles the function again at
    each new value."""


class PromoteScalars(BaseException):
    """Raised by a trace that rebinds a number in a place it read as static.
    A BaseException: neither the user's `try` nor the interpreter's
    classification of errors may catch it."""

    def __init__(self, key, what: str):
        super().__init__(key)
        self.key, self.what = key, what


class StaticInRegion(SideEffectError):
    """A place kept static (trace_promoting's retry) is rebound inside a
    runtime `if` or loop, where its new value is known only at run time: the
    retry cannot succeed, so the error of the promoted trace is the one that
    stops the program."""


def is_python_number(value) -> bool:
    return type(value) in SCALAR_TYPES


def is_promotable(value) -> bool:
    """A number read from outside that a later trace may read as a runtime
    value where it changes between calls: an int, float or complex, Python's
    or NumPy's.  Not a bool: a flag (`model.training`) usually takes two
    values, each worth its own program."""
    if isinstance(value, np.generic):
        return value.dtype.kind in "iufc"
    return type(value) in (int, float, complex)


def changed_places(traced, places) -> dict:
    """{place: what} of the numbers the trace read from outside (a learning
    rate set on an optimizer before each call, a global, a closure
    variable, an outside dict's item) whose guard fails now because another
    number of the same type is there: the next trace reads them as runtime
    inputs, so a value that changes at every call compiles twice, not at
    every call (TorchDynamo does the same for sizes: automatic dynamic
    shapes).  Places an earlier trace needed at compile time
    (`places.static`) are left static."""
    changed = {}
    for namespace, name, old in traced.guards:
        found = traced.number_places.get((id(namespace), name))
        if found is None:
            continue
        place, what = found
        now = namespace.get(name, _ABSENT)
        if now is not old and type(now) is type(old) and place not in places.static \
                and place not in places.promoted:
            changed[place] = what
    return changed


_ABSENT = object()


def attr_key(obj, name: str) -> tuple:
    return ("attr", type(obj), name)


def class_attr_key(cls, name: str) -> tuple:
    """A number held by a class (`Config.lr`, or read through an instance
    that has none of its own)."""
    return ("class attr", cls, name)


def global_key(namespace: dict, name: str) -> tuple:
    """A module global's place (by its module's namespace, which lives on)."""
    return ("global", id(namespace), name)


def outside_item_key(container, slot) -> tuple:
    """An item of a dict or list from outside the call (`self.state["t"]`),
    by the container's identity (the object holding it keeps it alive)."""
    return ("outside item", id(container), slot)


def cell_key(cell) -> tuple:
    """A closure variable's place: its cell (by identity: the compiled
    function keeps it alive)."""
    return ("cell", id(cell))


def item_key(root, keys: tuple) -> tuple:
    return ("item", root, keys)


class Places(NamedTuple):
    """The places of Python numbers a function rebinds, as its traces
    found them: read as runtime values, or kept static (needed at compile
    time), and the flags (bools) kept static once.  Later traces start from
    them."""
    promoted: frozenset = frozenset()
    static: frozenset = frozenset()
    flags: frozenset = frozenset()


def promoted_items(promoted) -> dict:
    """{root: {keys, ...}} of the argument items among `promoted` keys: what
    driver.signature_key reads as runtime leaves.  A buffer argument read as
    a runtime array (infer.buffers) is there as ("buffer", keys)."""
    out: dict = {}
    for key in promoted:
        if key[0] == "item":
            out.setdefault(key[1], set()).add(key[2])
        elif key[0] == "buffer":
            out.setdefault(key[1], set()).add(("buffer", key[2]))
    return {root: frozenset(keys) for root, keys in out.items()}


class ScalarState:
    """Which places a trace reads as runtime (`promoted`) or keeps static
    while writing them back (`static`); the flags earlier calls' traces
    changed (`flags`) and this one changes (`new_flags`)."""

    def __init__(self, promoted=frozenset(), static=frozenset(), flags=frozenset()):
        self.promoted = set(promoted)
        self.static = set(static)
        self.flags = frozenset(flags)
        self.new_flags: set = set()
        # (place, owner) -> [its number before the call, the last one written]
        # of the places kept static: see restored()
        self.static_writes: dict = {}

    def decide(self, key, value, what: str, in_region: bool) -> str:
        """How to store `value` (a Python number or a runtime weak scalar)
        into place `key`: "runtime" (promoted: stored as a runtime value) or
        "static" (kept static, written back as it is).  Raises
        PromoteScalars for a place the trace read as static.  A flag is
        kept static the first time it changes (`self.built = True`); one
        that changes again at a later call (`self.even = not self.even`),
        or in a runtime `if` or loop, is promoted."""
        if key in self.promoted:
            return "runtime"
        if key in self.static:
            return "static"
        if type(value) is bool and not in_region and key not in self.flags:
            self.new_flags.add(key)
            return "static"
        raise PromoteScalars(key, what)

    def note_static_write(self, key, owner, old, new) -> None:
        """Place `key` of object `owner` (kept static) held `old` and is
        rebound to `new`."""
        self.static_writes.setdefault((key, owner), [old, new])[1] = new

    def restored(self, key) -> bool:
        """Whether every write of this trace to place `key` (kept static)
        ends with the number the place held before the call (`depth[0] += 1`
        ... `depth[0] -= 1`): the next call then finds the value it was
        compiled for, and nothing compiles again."""
        ends = [v for (k, _), v in self.static_writes.items() if k == key]
        return bool(ends) and all(type(old) is type(new) and old == new for old, new in ends)


def warn_changed_static(changed: dict, error):
    """The numbers of changed_places could not be read at run time (`error`
    needs one while compiling): each new value compiles again, said once."""
    _warn_static([(place, what) for place, what in changed.items()], error,
                 changed_by="{} changed between calls and the program needs that number")


def trace_promoting(trace_once, places: Places):
    """Runs trace_once(state) until no new place must be promoted; returns
    its result.  A trace that fails once places are promoted (a number is
    needed at compile time) is run again with them static; where that
    succeeds, a warning says that each new value compiles again."""
    state = ScalarState(*places)
    added, kept_static = [], None
    while True:
        try:
            result = trace_once(state)
        except PromoteScalars as p:
            if p.key in state.promoted:     # cannot happen: a guard against looping
                raise
            state = ScalarState(state.promoted | {p.key}, state.static, places.flags)
            added.append((p.key, p.what))
            continue
        except TpuccError as e:
            if isinstance(e, StaticInRegion) and kept_static is not None:
                # (`m.t += 1` in a loop that also appends to an outside list:
                # the append, not the counter, is what to report)
                raise kept_static[1] from None
            # (a buffer read as a runtime array is no number needed static:
            # the error is the program's own)
            fresh = [(k, w) for k, w in added if k in state.promoted and k[0] != "buffer"]
            if not fresh:
                raise
            keys = {k for k, _ in fresh}
            state = ScalarState(state.promoted - keys, state.static | keys, places.flags)
            kept_static = (fresh, e)
            continue
        if kept_static is not None:
            fresh, error = kept_static
            changing = [(k, w) for k, w in fresh if not state.restored(k)]
            if changing:        # (a number back at its value before the call: no recompile)
                _warn_static(changing, error)
        return result, Places(frozenset(state.promoted), frozenset(state.static),
                              places.flags | state.new_flags)


def _warn_static(places, error, changed_by="the program rebinds {} to a new Python number and "
                                           "needs that number"):
    """Warns at the user's line that needs the number (the warning's own
    file and line, so that `python -W error` or a filter can name it)."""
    names = ", ".join(what for _, what in places)
    message = (f"tpucc: {changed_by.format(names)} "
               f"at compile time ({error.message}), so each new value compiles the "
               "function again")
    if error.loc is None:
        warnings.warn(message, RecompileWarning, stacklevel=2)
    else:
        warnings.warn_explicit(message, RecompileWarning, error.loc.file, error.loc.line)
