"""frontend: CPython bytecode -> canonical basic blocks.

Input: a code object.  Output: a `FunctionCode` whose blocks hold canonical
instructions (see pyversion.py) each with its source `Loc`, whose terminators
name successor blocks by index, plus the CFG facts the interpreter needs:
loop headers and immediate post-dominators.  Invariants: block 0 is the
entry; a block's last instruction is its only control transfer; a block with
no terminator falls through to `next`.  An instruction inside a `try` or
`with` body names its exception handler (CPython's exception table); the
interpreter follows it when the program's own code raises.
"""
from .blocks import Handler
from .code import FunctionCode, Block, Instr, decode

__all__ = ["FunctionCode", "Block", "Handler", "Instr", "decode"]
