"""Undoing CPython 3.12's duplication of function exits.

CPython 3.12 copies a short block that ends in a return into each of its
predecessors, so in

    acc.append(x[0] if n > 0 else -x[0])
    return acc

both arms of the conditional expression end in their own `CALL append;
POP_TOP; LOAD_FAST acc; RETURN_VALUE`.  The interpreter reads what runs
inside a runtime branch off the CFG: there the call would run inside the
branch, where mutating a container is refused (E500) and every copy is
traced.  3.11 and the source have one call after the branches join.

`merge_duplicated_tails` turns such copies back into one block: blocks that
end in a return with the same instructions from the same source lines share
that suffix, each jumping to it.  Instructions from the same lines copied
from one block start with the same stack, so the merge changes no value.
"""
from __future__ import annotations

from .blocks import Block, Instr

MIN_TAIL = 2        # a lone RETURN_VALUE is not worth a jump


def merge_duplicated_tails(blocks: list[Block]) -> None:
    """In place: while two return-terminated blocks share a suffix of at
    least MIN_TAIL instructions, move it into one block both jump to."""
    while True:
        pair = _mergeable_pair(blocks)
        if pair is None:
            return
        _share_tail(blocks, *pair)


def _mergeable_pair(blocks):
    exits = [b for b in blocks if b.instrs and b.instrs[-1].op == "RETURN_VALUE"]
    for i, a in enumerate(exits):
        for b in exits[i + 1:]:
            n = _common_suffix(a.instrs, b.instrs)
            if n >= MIN_TAIL:
                return a, b, n
    return None


def _common_suffix(xs: list[Instr], ys: list[Instr]) -> int:
    n = 0
    while n < min(len(xs), len(ys)) and _same(xs[-1 - n], ys[-1 - n]):
        n += 1
    return n


def _same(x: Instr, y: Instr) -> bool:
    """The same instruction copied: same op, same source line, same
    exception handler, same operand (a constant by identity: 1, 1.0 and
    True are equal but different)."""
    if x.op != y.op or x.loc.line != y.loc.line or x.handler != y.handler:
        return False
    if x.arg is y.arg:
        return True
    return x.op != "LOAD_CONST" and type(x.arg) is type(y.arg) and x.arg == y.arg


def _share_tail(blocks: list[Block], a: Block, b: Block, n: int) -> None:
    """Both blocks end in the same `n` instructions: keep one copy, in a
    block of its own unless one of them holds nothing else."""
    if len(a.instrs) == n:
        tail = a
    elif len(b.instrs) == n:
        tail = b
    else:
        tail = Block(len(blocks), a.instrs[-n:], None)
        blocks.append(tail)
    for block in (a, b):
        if block is not tail:
            first = block.instrs[-n]
            block.instrs[-n:] = [Instr("JUMP", tail.index, first.loc, first.handler)]
