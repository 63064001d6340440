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
    """Iteration over a static sequence of (static or runtime) items."""
    items: tuple
    pos: int = 0

    def remaining(self) -> int:
        return len(self.items) - self.pos
