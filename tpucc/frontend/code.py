"""Decoding a code object into canonical blocks (see package docstring)."""
from __future__ import annotations

import types
from dataclasses import dataclass, field
from functools import lru_cache

import bytecode

from ..errors import Loc, UnsupportedError
from . import cfg, pyversion
from .blocks import Block, Instr
from .tails import merge_duplicated_tails


@dataclass(slots=True)
class FunctionCode:
    code: types.CodeType
    blocks: list[Block]
    loop_headers: frozenset[int] = frozenset()
    loop_exits: dict[int, frozenset[int]] = field(default_factory=dict)
    ipdom: dict[int, int | None] = field(default_factory=dict)
    preds: dict[int, list[int]] = field(default_factory=dict)
    loop_locs: dict[int, object] = field(default_factory=dict)   # header -> loop statement

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


@lru_cache(maxsize=4096)
def decode(code: types.CodeType) -> FunctionCode:
    pyversion.check_version()
    graph = bytecode.ControlFlowGraph.from_bytecode(bytecode.Bytecode.from_code(code))
    index = {id(b): i for i, b in enumerate(graph)}
    target = lambda blk: index[id(blk)]  # noqa: E731
    blocks = []
    last_line = code.co_firstlineno
    cells = frozenset(code.co_cellvars + code.co_freevars)
    for i, raw in enumerate(graph):
        instrs, state = [], pyversion.BlockState(cells)
        for item in raw:
            if isinstance(item, bytecode.TryBegin):
                _refuse_user_try(item, graph, code, last_line)
                continue
            if not isinstance(item, bytecode.Instr):
                continue        # TryEnd, SetLineno
            loc = _loc(item, code, last_line)
            last_line = loc.line
            for op, arg in pyversion.canonicalize(item, target, state):
                instrs.append(Instr(op, arg, loc))
        nxt = index[id(raw.next_block)] if raw.next_block is not None else None
        blocks.append(Block(i, instrs, nxt))
    merge_duplicated_tails(blocks)
    fc = FunctionCode(code, blocks)
    cfg.analyze(fc)
    return fc


def _refuse_user_try(item, graph, code, last_line):
    handler = item.target
    first = tuple(x.name for x in handler if isinstance(x, bytecode.Instr))[:2]
    if pyversion.handler_is_user_try(first):
        # The try statement's own line is the line before its body's first line.
        body_line = _first_line_after(item, graph) or last_line
        raise UnsupportedError(
            "`try` statements are not supported in compiled code",
            Loc(code.co_filename, max(body_line - 1, code.co_firstlineno), 0, code.co_qualname),
            "compiled code cannot catch exceptions; check conditions with `if` instead, "
            "or move the `try` outside the compiled function")


def _first_line_after(item, graph):
    for block in graph:
        seen = False
        for x in block:
            if x is item:
                seen = True
            elif seen and isinstance(x, bytecode.Instr) and x.lineno:
                return x.lineno
    return None
