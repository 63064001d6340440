"""A generator whose items go straight to sum() or math.prod(): folded as it runs.

tpucc runs a generator to its end when it is called, its items a list
(generator_runs.py).  A `yield` under a runtime loop or `if`
(`sum(i * i for i in range(n))` with a runtime n) has no such list: how
many items there are is known only at run time.  But when the call that
made the generator hands it straight to sum() or math.prod() (the next
instruction calls that with it as its one argument, so nothing else can
see its items), the consumer needs their total, not the items.  From the
first yield under runtime control on, each item is then added (multiplied)
into a total the generator's frame holds as a hidden local, `start + v0 +
v1 + ...` in Python's order, which the runtime loop carries as it would
the program's own `acc += i * i`: one While.

Only where that is exact: nothing was yielded before that first runtime
yield (items listed, or recorded into a counted loop's buffers, would be
added before the total's start: the order of float additions would
differ); from then on every item is folded, static ones too.
"""
from __future__ import annotations

import builtins as py
import math
import operator
from dataclasses import dataclass

from . import builder, float_sums

@dataclass
class Fold:
    """How a generator frame's items would fold, for the consumer waiting
    on it; `active` once they do, `listed` once one went to the list."""
    op: object              # operator.add or operator.mul
    local: str              # the frame's hidden local holding the total so far
    active: bool = False
    listed: bool = False
    # sum()'s phase (float_sums.py: static, as the items' types are); the
    # rest of its state is held in hidden locals beside the total (_CARRIED)
    phase: str = float_sums.INT


@dataclass(frozen=True)
class FoldedTotal:
    """What the call of a folded generator returns: its consumer's result
    (the consumer, sum() or math.prod() of one argument, returns it)."""
    total: object


# consumer, the fold's operator, its start (called with one argument), the
# total's local (as messages name it: `iterations of this loop give ...`)
_CONSUMERS = ((py.sum, operator.add, 0, "sum()'s total"),
              (math.prod, operator.mul, 1, "math.prod()'s product"))


def start(interp, frame) -> None:
    """Sets up the fold of generator `frame`'s items where the call making
    it feeds sum() or math.prod() directly (else its items are listed)."""
    for consumer, op, first, local in _CONSUMERS:
        if interp.result_is_argument(consumer, 1):
            frame.fold = Fold(op, local)
            frame.locals[local] = first
            if op is operator.add:
                _store(frame, float_sums.begin(first))
            return


def folded(f, value, runtime: bool) -> bool:
    """YIELD_VALUE of `value` in generator frame `f` (`runtime`: under a
    runtime loop or `if` of the generator's own): added into its total
    (True) where its items fold, from the first runtime yield on; else it
    is listed, recorded or refused as usual (False)."""
    fold = f.fold
    if fold is None or not (fold.active or runtime and not fold.listed):
        return False
    fold.active = True
    if fold.op is operator.add:
        _summed(f, value)
    else:
        from . import dunders
        f.locals[fold.local] = dunders.apply(f.interp, fold.op, f.locals[fold.local], value)
    return True


def _summed(f, value) -> None:
    """`value` added into the total, as sum() adds its next item."""
    _store(f, float_sums.add(f.interp, _running(f), value))


# sum()'s running state (float_sums.Running) but its phase: the frame's
# hidden locals, which a runtime loop carries
_CARRIED = ("compensation", "int_path")


def _running(f) -> float_sums.Running:
    fold = f.fold
    return float_sums.Running(f.locals[fold.local], fold.phase, **{
        name: f.locals[_local(fold, name)] for name in _CARRIED})


def _store(f, run: float_sums.Running) -> None:
    fold = f.fold
    f.locals[fold.local], fold.phase = run.total, run.phase
    for name in _CARRIED:
        f.locals[_local(fold, name)] = getattr(run, name)


def _local(fold: Fold, name: str) -> str:
    return f"{fold.local}'s {name}"


def note_listed(f) -> None:
    """An item of generator frame `f` went to its list (or a counted loop's
    buffers for it): a later one cannot start a total."""
    if f.fold is not None:
        f.fold.listed = True


def folds(frame) -> bool:
    """Whether generator `frame` folded its items into its consumer's total."""
    return frame.fold is not None and frame.fold.active


def total(frame):
    """The generator call's value where its frame folded its items, else None."""
    if not folds(frame):
        return None
    if frame.fold.op is operator.add:
        return FoldedTotal(float_sums.finish(_running(frame)))
    return FoldedTotal(frame.locals[frame.fold.local])
