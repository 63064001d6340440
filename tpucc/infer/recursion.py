"""Recursion that only runtime data could end, refused at its first repeat.

Every call is inlined, and a runtime `if` compiles both of its branches: a
function that calls itself under a runtime condition (a depth-first search,
`if A[u, v] and not seen[v]: dfs(A, v, seen)`) is inlined again at every
level, in every branch and every unrolled iteration, so the work grows as
(calls per level) ** depth long before the depth budget (E600, 100 calls)
is reached.  A recursive call whose arguments are the same, as far as
compiling can tell them apart, as those of an enclosing call of the same
function made before the runtime condition opened, repeats that call: no
static value can end it, so it is refused there, at once.

Arguments are compared as they were when each call began: arrays by
dtype, shape and what is known statically of them (a constant, a range),
Python values by value, containers and objects by their contents.  A value
of any other kind (or too large to compare) tells the calls apart: such a
call is left to the depth budget.  (State the arguments do not reach, a
global counter, could still end the recursion; under a runtime condition
it would be a runtime value, which cannot.)

A recursion that a static argument does end (`depth - 1`, an adaptive
quadrature's textbook form) still inlines every branch of every level:
2 ** depth calls, each compiled by XLA, where a depth of 30 would never
finish compiling.  So one call tree (the calls below the outermost one of
the function) may emit at most MAX_RECURSION_OPS ops once it calls itself
inside runtime conditions; its next such call is refused (E600) with the
way out: an explicit stack.  The budget is work, not calls: a decision
tree's walk of depth 7 is 254 calls of 3 ops (765 ops, 2 s), an adaptive
Simpson of depth 5 is 62 calls of 110 (6 900 ops, 17 s).
"""
from __future__ import annotations

import types

import numpy as np

from ..errors import LimitError
from . import builder
from .values import Array, known_constant

MAX_KEYED_ITEMS = 1000      # values compared per call, at most
# (XLA compiles about a thousand small ops a second: an adaptive Simpson of
# depth 5, 6 900 ops, takes 17 s to compile; depth 6 would be twice that)
MAX_RECURSION_OPS = 8000
_MAX_NESTING = 8
_BY_VALUE = (int, float, complex, str, bytes, type(None), range, slice)
_BY_IDENTITY = (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type)
UNKNOWN = object()


def note_call(frames: list, frame) -> None:
    """Called as `frame` begins, `frames` the calls running: records its
    arguments if it is a recursive call, and refuses it if it repeats one."""
    code = frame.func.__code__
    enclosing = [f for f in frames if f.func.__code__ is code]
    if not enclosing or builder.ctx().runtime_depth == 0:
        return
    frame.recursion_key = arguments_key(frame.locals)
    if frame.recursion_key is not UNKNOWN:
        _refuse_repeat(enclosing, frame, code)
    _count_branched(enclosing[0], code)


def _refuse_repeat(enclosing: list, frame, code) -> None:
    for f in enclosing:
        if f.recursion_key == frame.recursion_key and \
                builder.ctx().runtime_depth > f.entry_depth:
            raise LimitError(
                f"{code.co_name} calls itself inside a runtime `if` or loop with the "
                "arguments of a call of it already running: only runtime data could end "
                "this recursion, and every level compiles all its branches again",
                hint="recursion must end on a static condition; for a search as deep as "
                     "the data (a depth-first search), keep the pending items in an "
                     "array used as a stack: `stack[top] = v; top += 1` and `while top > "
                     "0: top -= 1; u = stack[top]; ...`")


def _count_branched(root, code) -> None:
    """Counts a recursive call inside a runtime condition against the call
    tree of `root`, the outermost call of the function running, and refuses
    it once that tree has emitted more than MAX_RECURSION_OPS ops."""
    if builder.ctx().runtime_depth <= root.entry_depth:
        return
    root.branched_calls += 1
    ops = builder.ctx().emitted - root.entry_ops
    if ops > MAX_RECURSION_OPS:
        raise LimitError(
            f"{code.co_name} calls itself inside runtime `if`s or loops, and this call tree "
            f"has inlined {root.branched_calls} such calls, {ops} ops, more than the "
            f"{MAX_RECURSION_OPS} tpucc inlines for one recursion (a fixed limit): every level "
            "compiles all its branches, so the work grows as 2 ** depth even where a static "
            "argument ends the recursion",
            hint="write it as a loop that keeps the pending calls' arguments as rows of an "
                 "array used as a stack: `st[top] = (a, b, depth - 1); top += 1` and `while "
                 "top > 0: top -= 1; a, b, depth = st[top]; ...` (one runtime `while`), or "
                 "give it fewer levels")


def arguments_key(locals_: dict):
    budget = [MAX_KEYED_ITEMS]
    key = tuple((name, _key(v, budget, 0)) for name, v in locals_.items())
    return UNKNOWN if any(k is UNKNOWN for _, k in key) else key


def _key(v, budget: list, nesting: int):
    budget[0] -= 1
    if budget[0] < 0 or nesting > _MAX_NESTING:
        return UNKNOWN
    if isinstance(v, Array):
        constant = _constant_key(v)
        return UNKNOWN if constant is UNKNOWN else (
            "array", v.aval, bool(v.immutable), v.span, constant)
    if type(v) in _BY_VALUE or type(v) is bool:
        return (type(v), v)
    if isinstance(v, _BY_IDENTITY):
        return ("identity", id(v))
    if type(v) in (tuple, list):
        return _items_key(type(v), v, budget, nesting)
    if type(v) is dict:
        return _items_key(dict, [x for item in v.items() for x in item], budget, nesting)
    if hasattr(v, "__dict__") and not isinstance(v, np.ndarray):
        return _items_key(("object", id(v)), list(vars(v).items()), budget, nesting)
    return UNKNOWN


def _items_key(kind, items, budget: list, nesting: int):
    keys = []
    for item in items:
        k = _key(item, budget, nesting + 1)
        if k is UNKNOWN:
            return UNKNOWN
        keys.append(k)
    return (kind, tuple(keys))


def _constant_key(x: Array):
    known = known_constant(x)
    if known is None:
        return None
    return (known.dtype.str, known.shape, known.tobytes()) if known.size <= 64 else UNKNOWN
