"""Every difference between CPython versions' bytecode lives here.

`canonicalize` turns one `bytecode.Instr` into zero or more canonical
instructions (opcode name + plain argument) that the interpreter's handler
table understands on every supported version (3.11, 3.12, 3.13).  Handlers
never test the Python version.

The canonical stack layout of a call is 3.11/3.12's: NULL (or the bound
method) *below* the callable.  3.13 pushes NULL above it; its PUSH_NULL is
turned into PUSH_NULL + SWAP 2, and the handlers of LOAD_GLOBAL / LOAD_ATTR
push the canonical order on every version.
"""
from __future__ import annotations

import sys

import bytecode

SUPPORTED = ((3, 11), (3, 12), (3, 13))

# Instructions with no effect on our abstract machine.
DROPPED = frozenset({
    "NOP", "RESUME", "CACHE", "PRECALL", "EXTENDED_ARG", "MAKE_CELL",
    "COPY_FREE_VARS",
    # 3.12: FOR_ITER jumps past END_FOR when exhausted, so END_FOR never runs.
    "END_FOR",
    # 3.13: the truth test before a conditional jump or UNARY_NOT, which
    # make their own (BRANCH refuses an ambiguous array truth as Python does).
    "TO_BOOL",
    # 3.12: after SEND (`yield from`), the receiver below the returned
    # value; the canonical YIELD_FROM leaves the value alone, as 3.11's SEND.
    "END_SEND",
})

# 3.13's superinstructions: two plain ones in one.
_PAIRS = {"LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
          "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
          "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST")}
# 3.13 splits FORMAT_VALUE's flags: a conversion (CONVERT_VALUE) then the
# format, with a spec on the stack or without.
_FORMATS = {"FORMAT_SIMPLE": 0x00, "FORMAT_WITH_SPEC": 0x04}

_BRANCH_KINDS = {"FALSE": "false", "TRUE": "true", "NONE": "none", "NOT_NONE": "not_none"}


def branch_kind(name: str) -> str | None:
    """'POP_JUMP_FORWARD_IF_FALSE' (3.11), 'POP_JUMP_IF_FALSE' (3.12) -> 'false'."""
    if name.startswith("POP_JUMP_") and "_IF_" in name:
        return _BRANCH_KINDS[name.split("_IF_", 1)[1]]
    return None


JUMPS = frozenset({"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP",
                   "JUMP_NO_INTERRUPT"})

# CALL_INTRINSIC_1 (3.12) arguments that appear in user code.
_INTRINSICS = {"INTRINSIC_LIST_TO_TUPLE": "LIST_TO_TUPLE",
               "INTRINSIC_UNARY_POSITIVE": "UNARY_POSITIVE"}


def _name(arg):
    """Cell/free variable objects of `bytecode` carry their name."""
    return getattr(arg, "name", arg)


class BlockState:
    """What canonicalizing one instruction of a block needs from those before
    it: a 3.11/3.12 KW_NAMES waiting for its CALL, and whether the previous
    instruction was END_FOR; and the code's cell and free variables."""
    __slots__ = ("kwnames", "after_end_for", "cells", "py313")

    def __init__(self, cells: frozenset = frozenset(), version: tuple = sys.version_info[:2]):
        self.kwnames: list = []
        self.after_end_for = False
        self.cells = cells
        # 3.13 emits PUSH_NULL after the callable, and a POP_TOP (the
        # iterator) after END_FOR, which FOR_ITER skips with it when done.
        self.py313 = version >= (3, 13)


def _fast(op: str, arg, state: BlockState):
    """3.13 loads a closure's cell with LOAD_FAST (LOAD_CLOSURE became a
    pseudo-instruction): a LOAD_FAST of a cell variable loads the cell, as
    reads of its value go through LOAD_DEREF."""
    name = _name(arg)
    if op == "LOAD_FAST" and name in state.cells:
        return "LOAD_CLOSURE", name
    return op, name


def canonicalize(instr: bytecode.Instr, target_index, state: BlockState):
    """Yields (opname, arg) pairs.  `target_index` maps a jump target block to
    its index."""
    name, arg = instr.name, instr.arg
    after_end_for, state.after_end_for = state.after_end_for, name == "END_FOR"
    if name in DROPPED or name == "POP_TOP" and after_end_for and state.py313:
        return
    kind = branch_kind(name)
    if kind is not None:
        yield "BRANCH", (kind, target_index(arg))
    elif name in JUMPS:
        yield "JUMP", target_index(arg)
    elif name in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP"):
        yield "BRANCH_OR_POP", ("false" if "FALSE" in name else "true", target_index(arg))
    elif name == "FOR_ITER":
        yield "FOR_ITER", target_index(arg)
    elif name == "SEND":                    # `yield from` (async code is refused before)
        # the delegated iterator's items, all at once (generators run to
        # their end): never back to the YIELD_VALUE loop that re-sends
        yield "YIELD_FROM", None
        yield "JUMP", target_index(arg)
    elif name == "KW_NAMES":
        state.kwnames.append(tuple(arg))
    elif name == "CALL":
        kw = state.kwnames.pop() if state.kwnames else ()
        yield "CALL", (arg, kw)
    elif name == "PUSH_NULL" and state.py313:
        yield "PUSH_NULL", None
        yield "SWAP", 2
    elif name in _PAIRS:
        first, second = _PAIRS[name]
        yield _fast(first, arg[0], state)
        yield _fast(second, arg[1], state)
    elif name in _FORMATS:
        yield "FORMAT_VALUE", _FORMATS[name]
    elif name in ("CONVERT_VALUE", "SET_FUNCTION_ATTRIBUTE"):
        yield name, int(arg)
    elif name == "LOAD_METHOD":
        yield "LOAD_ATTR", (True, arg)
    elif name == "LOAD_ATTR":
        yield "LOAD_ATTR", arg if isinstance(arg, tuple) else (False, arg)
    elif name == "LOAD_SUPER_ATTR":          # 3.12: super().name in one instruction
        method, _two_args, attr = arg
        yield "LOAD_SUPER_ATTR", (method, attr)
    elif name in ("LOAD_FAST", "LOAD_FAST_CHECK", "STORE_FAST"):
        yield _fast(name.replace("_CHECK", ""), arg, state)
    elif name == "RETURN_CONST":
        yield "LOAD_CONST", arg
        yield "RETURN_VALUE", None
    elif name == "BINARY_SLICE":
        yield "BUILD_SLICE", 2
        yield "BINARY_SUBSCR", None
    elif name == "STORE_SLICE":
        yield "BUILD_SLICE", 2
        yield "STORE_SUBSCR", None
    elif name == "CALL_INTRINSIC_1":
        intrinsic = getattr(arg, "name", str(arg))
        yield _INTRINSICS.get(intrinsic, "CALL_INTRINSIC_1:" + intrinsic), None
    elif name == "COMPARE_OP":
        yield "COMPARE_OP", arg.name.split("_")[0]   # 'LT', 'LT_CAST' (3.13) -> 'LT'
    elif name == "BINARY_OP":
        yield "BINARY_OP", arg.name
    elif name in ("LOAD_DEREF", "STORE_DEREF", "LOAD_CLOSURE", "DELETE_DEREF"):
        yield name, _name(arg)
    else:
        yield name, arg


def check_version() -> None:
    if sys.version_info[:2] not in SUPPORTED:
        from ..errors import UnsupportedError
        raise UnsupportedError(
            f"Python {sys.version_info[0]}.{sys.version_info[1]} bytecode is not supported",
            hint="use Python 3.11, 3.12 or 3.13")


def handler_is_user_try(first_instr_names: tuple) -> bool:
    """Exception-table handlers made by `try` start with PUSH_EXC_INFO; those
    of `with` go on with WITH_EXCEPT_START (the context manager's __exit__
    on an exception, which compiled code never raises); those the compiler
    adds for comprehensions (3.12) and generators do not start so."""
    return first_instr_names[:1] == ("PUSH_EXC_INFO",) and \
        first_instr_names[1:2] != ("WITH_EXCEPT_START",)
