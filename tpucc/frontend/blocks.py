"""Canonical instructions and basic blocks (see the package docstring)."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import Loc

TERMINATORS = frozenset({"JUMP", "BRANCH", "BRANCH_OR_POP", "FOR_ITER", "RETURN_VALUE",
                         "RAISE_VARARGS", "RERAISE"})


@dataclass(frozen=True, slots=True)
class Handler:
    """Where an exception raised by an instruction goes (CPython's exception
    table): the handler's block, the stack depth it starts from, and whether
    the raising instruction's offset is pushed below the exception."""
    block: int
    depth: int
    lasti: bool


@dataclass(frozen=True, slots=True)
class Instr:
    op: str
    arg: object
    loc: Loc
    handler: Handler | None = None

    def __str__(self):
        return f"{self.op} {self.arg!r}" if self.arg is not None else self.op


@dataclass(slots=True)
class Block:
    index: int
    instrs: list[Instr]
    next: int | None          # fall-through successor

    @property
    def terminator(self) -> Instr | None:
        if self.instrs and self.instrs[-1].op in TERMINATORS:
            return self.instrs[-1]
        return None

    def successors(self) -> list[int]:
        t = self.terminator
        if t is None:
            return [self.next] if self.next is not None else []
        if t.op == "JUMP":
            return [t.arg]
        if t.op in ("BRANCH", "BRANCH_OR_POP"):
            return [t.arg[1], self.next]
        if t.op == "FOR_ITER":
            return [self.next, t.arg]
        return []
