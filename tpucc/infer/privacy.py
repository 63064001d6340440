"""Which arrays only one variable can reach (for loops.py).

A loop body that updates a variable's array in place and then rebinds the
variable (`vel += g; vel = np.where(...)`) writes, on its first iteration,
into the array the variable held before the loop; a While carries the
variable as a value and would lose that write.  When that array is memory
nothing else reaches (the compiled code made it, and no other variable,
container, object attribute or pending write-back holds it or a view of
it), the write cannot be observed, and the While is exact.

The answer comes from a scan of everything the compiled frames hold, made
once per loop and only when a body needs it.
"""
from __future__ import annotations

import types

from .state import instance_attributes
from .values import Array

# A state this large is not scanned (the loop is unrolled instead, which
# is exact): the scan must stay a small part of a compile.
MAX_SCANNED = 100_000


def private_arrays(frame):
    """is_private(arr) for the arrays the loop's variables hold at its entry
    (call this at the entry; the scan runs on the first question)."""
    interp = frame.interp
    floor = getattr(interp, "call_floor", None)
    roots = [v for f in interp.frames for v in (dict(f.locals), list(f.stack))]
    roots.append(list(interp.shadow.values()))
    roots.append([value for _, value, _ in interp.outside_appends])
    roots.append(list(interp.set_aside))        # a list's items, held out of its While
    captured = {id(c.array) for c in interp.captured.values() if c.array is not None}
    counts = []

    def is_private(arr) -> bool:
        if floor is None or not isinstance(arr, Array) or arr.serial < floor \
                or arr.base is not None or id(arr) in captured:
            return False        # an argument's array, a captured one, or a view of one
        if not counts:
            counts.append(holder_counts(roots))
        return counts[0] is not None and counts[0].get(id(arr), 0) == 1
    return is_private


def holder_counts(roots) -> dict | None:
    """{id(Array): how many places hold it or a view of it} over everything
    reachable from `roots` through lists, tuples, dicts, objects' attributes
    (slots too), bound methods and suspended generators' frames; None when
    there is too much to scan."""
    from .calls import Interpreter
    from .interpreter import Frame
    counts: dict = {}
    seen: set = set()
    todo = list(roots)
    while todo:
        x = todo.pop()
        if isinstance(x, Array):
            while x is not None:        # a view holds its base's memory too
                counts[id(x)] = counts.get(id(x), 0) + 1
                x = x.base
            continue
        if id(x) in seen or isinstance(x, (int, float, complex, str, bytes, type,
                                           types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(x))
        if len(seen) > MAX_SCANNED:
            return None
        if isinstance(x, (list, tuple)):
            todo.extend(x)
        elif isinstance(x, dict):
            todo.extend(x.values())
        elif isinstance(x, types.MethodType):
            todo.append(x.__self__)
        elif isinstance(x, Frame):
            todo.extend((x.locals, x.stack))    # (not its interpreter: the compile's own state)
        elif not isinstance(x, Interpreter):
            todo.extend(instance_attributes(x).values())
    return counts
