"""Decoding a code object into canonical blocks (see package docstring)."""
from __future__ import annotations

import dis
import types
from dataclasses import dataclass, field
from functools import lru_cache

import bytecode

from ..errors import Loc
from . import cfg, pyversion
from .blocks import Block, Handler, Instr
from .tails import merge_duplicated_tails, redirect_continues_to_test_copy


@dataclass(slots=True)
class FunctionCode:
    code: types.CodeType
    blocks: list[Block]
    loop_headers: frozenset[int] = frozenset()
    loop_exits: dict[int, frozenset[int]] = field(default_factory=dict)
    nesting_loops: frozenset = frozenset()      # headers of the loops with a loop inside
    ipdom: dict[int, int | None] = field(default_factory=dict)
    preds: dict[int, list[int]] = field(default_factory=dict)
    loop_locs: dict[int, object] = field(default_factory=dict)   # header -> loop statement
    # Exception handlers whose except clauses the interpreter has checked
    # (infer/exceptions.vet_handler), by block.
    vetted_handlers: set[int] = field(default_factory=set)
    live_in: dict | None = None     # block -> locals read before bound again (cfg.dead_locals)
    loop_bodies: dict[int, frozenset[int]] = field(default_factory=dict)     # header -> blocks
    # Blocks from which no path reaches a loop's header (the way out of a
    # `return` inside loops): the loops' iterators on the stack are only popped.
    past_loops: frozenset = frozenset()
    # (header, name) -> cfg.only_appended_in_loop's answer
    appended_only: dict = field(default_factory=dict)
    # (branch block, its join) -> control.short_circuit_meet's answer
    meets: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.code.co_qualname

    def dump(self) -> str:
        lines = []
        for b in self.blocks:
            mark = " (loop header)" if b.index in self.loop_headers else ""
            lines.append(f"block {b.index}{mark} -> {b.successors()}")
            lines.extend(f"    {i}    # line {i.loc.line}" for i in b.instrs)
        return "\n".join(lines)


def _loc(instr, code: types.CodeType, last_line: int) -> Loc:
    location = getattr(instr, "location", None)
    line = getattr(location, "lineno", None) or instr.lineno or last_line
    col = getattr(location, "col_offset", None) or 0
    return Loc(code.co_filename, line, col, code.co_qualname)


def decode(code: types.CodeType) -> FunctionCode:
    # Code objects compare equal across files (CPython's code equality ignores
    # co_filename and co_qualname), and every Loc of a decoded function names the
    # file: two files with the same function must not share one decoding.
    return _decode(code, code.co_filename, code.co_qualname)


@lru_cache(maxsize=4096)
def _decode(code: types.CodeType, filename: str, qualname: str) -> FunctionCode:
    pyversion.check_version()
    graph = bytecode.ControlFlowGraph.from_bytecode(bytecode.Bytecode.from_code(code))
    index = {id(b): i for i, b in enumerate(graph)}
    target = lambda blk: index[id(blk)]  # noqa: E731
    handlers = _handlers(code, graph)
    blocks = []
    last_line = code.co_firstlineno
    cells = frozenset(code.co_cellvars + code.co_freevars)
    for i, raw in enumerate(graph):
        instrs, state = [], pyversion.BlockState(cells)
        for item in raw:
            if not isinstance(item, bytecode.Instr):
                continue        # TryBegin, TryEnd, SetLineno
            loc = _loc(item, code, last_line)
            last_line = loc.line
            handler = next(handlers)
            for op, arg in pyversion.canonicalize(item, target, state):
                instrs.append(Instr(op, arg, loc, handler))
        nxt = index[id(raw.next_block)] if raw.next_block is not None else None
        blocks.append(Block(i, instrs, nxt))
    merge_duplicated_tails(blocks)
    redirect_continues_to_test_copy(blocks)
    fc = FunctionCode(code, blocks)
    cfg.analyze(fc)
    return fc


def _handlers(code: types.CodeType, graph):
    """Yields, for each instruction of `graph` in order, its Handler or None,
    from the code's exception table.  The table names instructions by byte
    offset, which `bytecode` drops; `dis` lists the same instructions (less
    its CACHE and EXTENDED_ARG entries) with their offsets, in the same order."""
    offsets = [i.offset for i in dis.get_instructions(code)
               if i.opname not in ("CACHE", "EXTENDED_ARG")]
    counts = [sum(isinstance(x, bytecode.Instr) for x in raw) for raw in graph]
    if len(offsets) != sum(counts):         # never seen; without a table nothing is caught
        while True:
            yield None
    block_at = {}
    first = 0
    for i, n in enumerate(counts):
        if n:
            block_at[offsets[first]] = i
        first += n
    handler_at = {}
    for entry in dis.Bytecode(code).exception_entries:
        block = block_at.get(entry.target)
        if block is None:
            continue
        handler = Handler(block, entry.depth, entry.lasti)
        for offset in offsets:
            if entry.start <= offset < entry.end:
                handler_at[offset] = handler
    for offset in offsets:
        yield handler_at.get(offset)
