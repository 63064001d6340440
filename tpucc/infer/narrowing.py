"""`if x is None:` where x is a runtime choice among static objects (an
index or None, as a search returns it: `b = find(bins, w)`): each arm of
the runtime branch sees x narrowed, as Python's own reading of the test
does.  Where x is None, x is the static None; where it is not, x is what
the choice may still hold: an int among several (a runtime Python int,
read from a table of the choice's positions, usable as an index or in
arithmetic), one object (that static object), or else the choice as it
was.  Only the names of the frame that tested x are narrowed (a type
checker narrows names too); where the arms meet, the names merge as any
runtime `if`'s do (a None and a runtime int of a few values: a choice
again, chosen_values.lift)."""
from __future__ import annotations

import numpy as np

from . import chosen_values, optional_numbers
from .chosen_values import ChosenValue
from .optional_numbers import OptionalNumber


def narrowing_setups(v, kind: str):
    """(setup of the arm where the test holds, setup of the other) for a
    runtime branch on `v is None` (kind "none") or `v is not None`
    ("not_none"): each rebinds the frame's names that hold `v`.  (None,
    None) where v is no choice."""
    if not isinstance(v, (ChosenValue, OptionalNumber)) or kind not in ("none", "not_none"):
        return None, None
    other = optional_numbers.number_of(v) if isinstance(v, OptionalNumber) else _not_none(v)
    none_arm, other_arm = rebinding(v, None), rebinding(v, other)
    return (none_arm, other_arm) if kind == "none" else (other_arm, none_arm)


def rebinding(v: ChosenValue, narrowed):
    """A setup (frame -> None) that binds `narrowed` to each name of the
    frame that holds `v`; None where `narrowed` is `v` itself."""
    if narrowed is v:
        return None

    def setup(frame):
        for name, held in list(frame.locals.items()):
            if held is v:
                frame.locals[name] = narrowed
    return setup


def _not_none(v: ChosenValue):
    """What `v` may be where it is not None: see the module's docstring."""
    table = chosen_values.choices()
    held = [k for k in chosen_values._held(v, len(table)) if table[k] is not None]
    objects = [table[k] for k in held]
    if not objects:
        return v                    # (an arm no run takes)
    if len(chosen_values._identities(objects)) == 1:
        return objects[0]
    if {type(o) for o in objects} != {int} or \
            max(objects) - min(objects) >= chosen_values.MAX_INT_CHOICES:
        # (a wider int would not merge back with None where the arms meet)
        return v
    values = np.array([table[k] if k in held else objects[0] for k in range(len(table))],
                      np.int64)
    return chosen_values._python_number(values, v.position)
