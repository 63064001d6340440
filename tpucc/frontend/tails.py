"""Undoing CPython's duplication of function exits (3.12) and of `while` tests.

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

`redirect_continues_to_test_copy` makes a `continue` in a `while` loop jump
to the copy of the loop's test at the bottom rather than to the one at the
top, so that the loop has one header (see there).
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


def redirect_continues_to_test_copy(blocks: list[Block]) -> None:
    """In place: CPython 3.11+ compiles `while c:` with its test twice, at
    the top (where the loop starts and where `continue` jumps back to) and
    a copy at the bottom (which the body's end reaches).  A `continue` so
    makes a second back edge, to another header: two nested loops, two
    Whiles whose fixpoints run each other's body (5x the inference time of
    the same loop without it).  A backward jump to a test block whose copy
    comes after the jump goes to that copy: the same instructions, the same
    successors, so the same behaviour, and one loop.  The copy is often the
    end of the body's last block (nothing else jumps to it): it is split
    off into a block of its own."""
    for block in list(blocks):
        term = block.terminator
        if term is None or term.op not in ("JUMP", "BRANCH"):
            continue
        target = term.arg if term.op == "JUMP" else term.arg[1]
        if target > block.index:
            continue
        copy = next((b for b in blocks[block.index + 1:]
                     if _same_test(blocks[target], b, blocks)), None)
        if copy is None:
            copy = next((_split_test_copy(blocks, b, len(blocks[target].instrs))
                         for b in blocks[block.index + 1:]
                         if _ends_in_test_copy(blocks[target], b, blocks)), None)
        if copy is not None:
            arg = copy.index if term.op == "JUMP" else (term.arg[0], copy.index)
            block.instrs[-1] = Instr(term.op, arg, term.loc, term.handler)


def _ends_in_test_copy(test: Block, block: Block, blocks: list[Block]) -> bool:
    """Whether `block` ends in the instructions of the test block `test`
    (after some of its own), branching to the same places."""
    n = len(test.instrs)
    if block is test or len(block.instrs) <= n:
        return False
    tail = Block(block.index, block.instrs[-n:], block.next)
    return _same_test(test, tail, blocks)


def _split_test_copy(blocks: list[Block], block: Block, n: int) -> Block:
    """Moves the last `n` instructions of `block` into a new block, which
    `block` then jumps to."""
    tail = Block(len(blocks), block.instrs[-n:], block.next)
    blocks.append(tail)
    first = tail.instrs[0]
    block.instrs[-n:] = [Instr("JUMP", tail.index, first.loc, first.handler)]
    block.next = None
    return tail


def _same_test(a: Block, b: Block, blocks: list[Block]) -> bool:
    """Two blocks ending in a conditional branch, with the same instructions
    going to the same places on true and on false."""
    if a is b or not a.instrs or not b.instrs or len(a.instrs) != len(b.instrs):
        return False
    if a.instrs[-1].op != "BRANCH" or b.instrs[-1].op != "BRANCH":
        return False
    if not all(_same(x, y) for x, y in zip(a.instrs[:-1], b.instrs[:-1])):
        return False
    return _branch_targets(a, blocks) == _branch_targets(b, blocks)


def _branch_targets(block: Block, blocks: list[Block]) -> dict:
    """{True: where the branch goes when its value is true, False: ...},
    through blocks that only jump on (3.12 falls into a `JUMP` back)."""
    polarity, target = block.instrs[-1].arg
    taken = polarity == "true"
    return {taken: _through_jumps(target, blocks), not taken: _through_jumps(block.next, blocks)}


def _through_jumps(index, blocks: list[Block]):
    seen = set()
    while index is not None and index not in seen and len(blocks[index].instrs) == 1 \
            and blocks[index].instrs[0].op == "JUMP":
        seen.add(index)
        index = blocks[index].instrs[0].arg
    return index
