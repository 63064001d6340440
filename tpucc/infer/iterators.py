"""Functional iterators: FOR_ITER replaces the iterator on the stack by its
successor instead of mutating it, so snapshots of interpreter state taken for
the two arms of a runtime branch never share a mutable iterator."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RangeIter:
    """range(start, stop, step); pos/stop may be runtime Arrays (weak ints)."""
    pos: object
    stop: object
    step: int

    def is_static(self) -> bool:
        from .values import Array
        return not isinstance(self.pos, Array) and not isinstance(self.stop, Array)

    def remaining(self) -> int:
        return len(range(self.pos, self.stop, self.step))


@dataclass(frozen=True, slots=True)
class SeqIter:
    """Iteration over a static sequence of (static or runtime) items.  Made
    from a list or an array, it keeps that `source`, its `stamp` when the
    items were read, and `read` (position -> item, as enumerate or reversed
    give it): a list's or an array's iterator reads each item when it gets
    there, so a write to a later item in the loop body is seen
    (interpreter.FOR_ITER reads the item again once the stamp changed), and
    a list's forward iterator runs to its length then (items appended in the
    body are reached: `follows_length`)."""
    items: tuple
    pos: int = 0
    source: object = None
    stamp: object = None
    read: object = None
    follows_length: bool = False

    def advanced(self) -> "SeqIter":
        return SeqIter(self.items, self.pos + 1, self.source, self.stamp, self.read,
                       self.follows_length)

    def remaining(self) -> int:
        return len(self.items) - self.pos
