"""Static loops that compute nothing but Python numbers (loops.py asks).

A static loop longer than the unroll budget becomes one While, which
carries the Python numbers it computes as runtime values: an int there is
an int64, whose arithmetic past 2**63 raises OverflowError where Python's
int grows (`t = 1; for i in range(70): t *= 2` gave 0, then raised).  Where the loop reads no runtime value at
all (every slot it carries entered as a number known at compile time, and
its body reads nothing else from before the loop), unrolling it runs it
while compiling, on Python numbers: exact, and it emits no op.  So such a
loop is unrolled (up to MAX_UNROLL iterations; about 0.2 ms of compile
each).

Input: the While that build_while settled on, before it is emitted (the
trial of its body, its carried slots).  Output: whether to unroll instead.
"""
from __future__ import annotations

from ..errors import TpuccError
from .builder import ctx
from .values import Array

# Why such a loop is unrolled (loops.run_loop's `unrolled_because`).
COMPUTES_NUMBERS = ("it computes Python numbers only: unrolled, it runs while compiling, "
                    "exactly (an int past 2**63 does not wrap), and emits no op")


class RunsWhileCompiling(TpuccError):
    """Not an error: build_while found a loop that computes_numbers_only,
    which its caller unrolls instead (never reaches the user)."""


def computes_numbers_only(trial, leaves, carried, boxes, rebound) -> bool:
    """Whether the While of `trial` (loops._run_body) would compute Python
    numbers from Python numbers known at compile time, and nothing else:
    each slot it carries entered as such a number (or passes through
    untouched and unread: an array the code after the loop reads), its body
    reads nothing else from before the loop but such numbers, and makes
    only numbers (0-d values; no print)."""
    # The checks' error code (checks.py) is carried as a box when the body
    # checks something: a check on numbers alone (a Python int's overflow
    # past int64, ops/python_ints.py; an assert) runs while compiling too,
    # exactly, and then emits nothing.
    boxes = [b for b in boxes if b is not ctx().error_code]
    if boxes or rebound.loose or trial.kind_slots:
        return False        # (an array updated in place, an attribute)
    body = _Body({id(p) for p in trial.params})
    if not body.scan(trial.builder.ops) or body.arrays & body.read:
        return False        # (a print; an array made and read)
    literal = _literal_numbers()
    params = dict(zip(carried, trial.params[1:]))
    for i in carried:
        if i >= len(trial.leaves):
            return False
        if i in trial.unchanged:
            if id(params[i]) in body.read:
                return False        # a runtime value the body reads
            continue
        if id(leaves[i][1].var) not in literal:
            return False
        end = trial.leaves[i][1]
        end = trial.end_vars.get(id(end), end.var if isinstance(end, Array) else None)
        if end is not None and id(body.same.get(id(end), end)) not in body.defined:
            return False            # (the body rebinds it to a value from outside)
    return all(v in literal for v in body.read - body.defined)


class _Body:
    """What a region's ops define and read, its nested regions' included.
    A While inside (the loop's own inner loops) carries every array of the
    state, read or not: the values it only carries through (passengers:
    its body gives each back unread) are not reads, and its results there
    are the values it was given."""

    def __init__(self, defined=()):
        self.defined, self.read, self.arrays = set(defined), set(), set()
        self.constants = set()  # ids of arrays the body makes from static values
        self.same = {}          # id(a passenger's result) -> the Value it carried

    def scan(self, ops) -> bool:
        for op in ops:
            if not op.outputs:
                return False
            passengers = _passengers(op) if op.name == "while" else ()
            for k, v in enumerate(op.inputs):
                v = self.same.get(id(v), v)
                if k in passengers:
                    self.same[id(op.outputs[k])] = v
                else:
                    self.read.add(id(v))
            constant = op.name == "const" or op.name == "convert" and \
                id(op.inputs[0]) in self.constants
            for k, o in enumerate(op.outputs):
                self.defined.add(id(o))
                if constant:
                    # (a static list's numbers picked at the counter: one
                    # table, indexing.static_number_table; unrolled, the
                    # items are the Python numbers themselves)
                    self.constants.add(id(o))
                elif o.aval.shape and k not in passengers:
                    self.arrays.add(id(o))
            for r in op.regions:
                self.defined.update(id(p) for p in r.params)
                if not self.scan(r.ops):
                    return False
                self.read.update(id(self.same.get(id(v), v)) for v in r.results)
        return True


def _passengers(op) -> set:
    """The positions of the values a While carries through unread."""
    cond, body = op.regions
    inner = _Body()
    if not (inner.scan(cond.ops) and inner.scan(body.ops)):
        return set()
    inner.read.update(id(inner.same.get(id(v), v)) for v in cond.results)
    given = [id(inner.same.get(id(v), v)) for v in body.results]
    return {k for k, p in enumerate(body.params)
            if body.results[k] is p and id(p) not in inner.read and given.count(id(p)) == 1
            and id(cond.params[k]) not in inner.read}


def _literal_numbers() -> set:
    """The ids of the Values of the current region that are Python numbers
    known at compile time: a `full` of a static number (weak: a Python
    number, not a NumPy array or scalar), possibly converted."""
    made, out = set(), set()
    for op in ctx().region.ops:
        if op.name == "full" and not op.inputs and not op.outputs[0].aval.shape or \
                op.name == "convert" and id(op.inputs[0]) in made:
            (o,) = op.outputs
            made.add(id(o))
            if o.aval.weak:
                out.add(id(o))
    return out
