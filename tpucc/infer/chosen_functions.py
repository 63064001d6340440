"""A function chosen at run time among functions known while compiling:
`g = relu if c else tanh` (a runtime `if` whose arms bind different
functions) or `fs[i]` (a list of functions at a runtime position).  The
choice is a runtime position among the candidates; calling it calls each
candidate in its own branch of a runtime `if` (call_chosen, which the
interpreter runs as the program's own code), so only the chosen one's
effects happen and the results merge as any runtime `if`'s do."""
from __future__ import annotations

import types
from dataclasses import dataclass

import numpy as np

from .values import Array


@dataclass(frozen=True, eq=False, slots=True)
class ChosenFunction:
    position: Array         # a weak int64 scalar: which candidate, 0 ..
    candidates: tuple

    def __repr__(self) -> str:
        return f"one of {', '.join(map(function_name, self.candidates))}, chosen at run time"


def call_chosen(position, candidates, args, kwargs):
    """Calls the candidate at `position` (interpreted: a runtime `if` each;
    no loop, which a runtime `return` would make a While with a runtime
    counter, the candidate a choice again)."""
    if len(candidates) == 1 or position == 0:
        return candidates[0](*args, **kwargs)
    return call_chosen(position - 1, candidates[1:], args, kwargs)


def choosable(values) -> bool:
    """Whether `values` (2 or more) are all functions a runtime choice may
    pick among: callables other than classes and arrays."""
    return len(values) > 1 and all(
        callable(v) and not isinstance(v, (type, Array)) for v in values)


def chosen_by_branch(pred: Array, values) -> ChosenFunction:
    """The function a runtime `if` on `pred` chose: values[0] where it holds."""
    from ..ops.elementwise import emit_ufunc
    from .builtins_impl import to_python_scalar
    position = to_python_scalar(emit_ufunc("logical_not", pred), np.int64)
    return ChosenFunction(position, tuple(values))


def function_name(fn) -> str:
    """A function as a message names it: its name and where it is defined
    (two lambdas differ by their lines)."""
    if isinstance(fn, ChosenFunction):
        return repr(fn)
    code = getattr(fn, "__code__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if isinstance(fn, types.FunctionType) and code is not None:
        return f"{name.replace('.<locals>', '')} (line {code.co_firstlineno})"
    return name


def item_by_choice(container: dict, key):
    """container[key] of a static dict whose items are functions, at a key
    chosen at run time (`SQUASH[ORDER[i % 2]](y)` in a runtime loop,
    `ACTIVATIONS[name]` of a name a runtime `if` picked): a choice among the
    items the key's objects find, called in a branch each.  A key that is
    not there raises KeyError where it is the one picked (checked at run
    time, raised when the call returns).  None where the items found are
    no functions (chosen_values.looked_up's, then)."""
    from . import chosen_values as cv
    from .builder import emit
    table = cv.choices()
    held = set(cv._held(key, len(table)))
    found = {k: container[table[k]] for k in held if _finds(container, table[k])}
    candidates = list({id(f): f for f in found.values()}.values())
    if not candidates or not all(callable(f) and not isinstance(f, (type, Array))
                                 for f in candidates):
        return None
    outcomes = [cv._outcome(container.__getitem__, [table[k]], [], []) if k in held
                else cv._UNREACHED for k in range(len(table))]
    cv._require_not_raised(outcomes, key.position, "looking it up in a dict")
    places = {id(f): i for i, f in enumerate(candidates)}
    indices = np.array([places[id(found[k])] if k in found else 0 for k in range(len(table))],
                       np.int64)
    return ChosenFunction(emit("getitem", indices, key.position, key=("array",)),
                          tuple(candidates))


def _finds(container: dict, key) -> bool:
    """Whether `key in container` (False for a key Python cannot hash)."""
    try:
        return key in container
    except TypeError:
        return False
