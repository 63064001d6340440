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
Python values by value, containers and objects by their contents.  A
runtime int's range is relative to a token, another runtime int (`mid +
1` is mid's token plus one); a token the call tree computed (each level
computes its own `mid`) is compared by where it first appears among the
arguments, so `bs(x, v, mid + 1, hi)` repeats the call that computed
`mid`: only the relations between the arguments (`lo + 1` against `lo`)
could let a static condition end the recursion, and those are kept.  A value
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
    frame.recursion_key = arguments_key(frame.locals, enclosing[0].entry_values)
    if frame.recursion_key is not UNKNOWN:
        _refuse_repeat(enclosing, frame, code)
    _count_branched(enclosing[0], frame)


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


def _count_branched(root, frame) -> None:
    """Counts a recursive call inside a runtime condition against the call
    tree of `root`, the outermost call of the function running, and refuses
    it once that tree has emitted more than MAX_RECURSION_OPS ops."""
    if builder.ctx().runtime_depth <= root.entry_depth:
        return
    root.branched_calls += 1
    ops = builder.ctx().emitted - root.entry_ops
    if ops > MAX_RECURSION_OPS:
        name = frame.func.__code__.co_name
        raise LimitError(
            f"{name} calls itself inside runtime `if`s or loops, and this call tree "
            f"has inlined {root.branched_calls} such calls, {ops} ops, more than the "
            f"{MAX_RECURSION_OPS} tpucc inlines for one recursion (a fixed limit): every level "
            "compiles all its branches, so the work grows as 2 ** depth even where a static "
            "argument ends the recursion" + (_MEMO_NOTE if _memoized(frame) else ""),
            hint=_TABLE_HINT if _memoized(frame) else
                 "write it as a loop that keeps the pending calls' arguments as rows of an "
                 "array used as a stack: `st[top] = (a, b, depth - 1); top += 1` and `while "
                 "top > 0: top -= 1; a, b, depth = st[top]; ...` (one runtime `while`), or "
                 "give it fewer levels")


# A memoized recursion is a dynamic program: its answers are the table's.
_MEMO_NOTE = ("; its cache (functools.cache / lru_cache) does not help: an answer computed "
              "in one branch of a runtime `if` does not exist in the other, which computes "
              "it again, and with runtime arguments every call is computed anew")
_TABLE_HINT = ("fill the memo bottom-up instead, as an array indexed by the arguments, in "
               "a loop that computes each entry from those already filled (`dp = "
               "np.zeros(n + 2)` then `for i in range(n - 1, -1, -1): dp[i] = np.where("
               "cond, a + dp[i + 1], b + dp[i + 2])`); the runtime `if` becomes a choice "
               "between the entries, and each entry is computed once")


def _memoized(frame) -> bool:
    """Whether the name `frame`'s function calls itself by holds a
    functools cache of it (`@functools.cache def best(i)`)."""
    fn, code = frame.func, frame.func.__code__
    names = [_cell_value(frame.cells.get(n)) for n in code.co_freevars] + \
        [fn.__globals__.get(n) for n in code.co_names]
    return any(getattr(v, "__wrapped__", None) is fn for v in names)


def _cell_value(cell):
    from .interpreter import OwnedCell     # (it imports this module)
    try:
        value = cell.cell_contents
    except (AttributeError, ValueError):    # none, or an empty cell
        return None
    return value.frame.locals.get(value.name) if isinstance(value, OwnedCell) else value


def runtime_ended(frames: list, code) -> bool:
    """Whether the calls of `code` running nest inside runtime conditions
    (each but the first opened under one): a recursion whose end runtime
    values decide, for the depth budget's message."""
    calls = [f for f in frames if f.func.__code__ is code]
    return len(calls) > 1 and calls[-1].entry_depth > calls[0].entry_depth


def arguments_key(locals_: dict, tree_values: int):
    """The key of a call's arguments; a range's token made by the call tree
    (a Value numbered `tree_values` or later) is keyed by its order of
    first appearance, any other by identity."""
    keying = _Keying(tree_values)
    key = tuple((name, keying.key(v, 0)) for name, v in locals_.items())
    return UNKNOWN if any(k is UNKNOWN for _, k in key) else key


class _Keying:
    def __init__(self, tree_values):
        self.budget = MAX_KEYED_ITEMS
        self.tree_values = tree_values
        self.tokens = {}        # id(token made by the call tree) -> its order

    def key(self, v, nesting: int):
        self.budget -= 1
        if self.budget < 0 or nesting > _MAX_NESTING:
            return UNKNOWN
        if isinstance(v, Array):
            constant = _constant_key(v)
            return UNKNOWN if constant is UNKNOWN else (
                "array", v.aval, bool(v.immutable), self._span_key(v.span), constant)
        if type(v) in _BY_VALUE or type(v) is bool:
            return (type(v), v)
        if isinstance(v, _BY_IDENTITY):
            return ("identity", id(v))
        if type(v) in (tuple, list):
            return self._items_key(type(v), v, nesting)
        if type(v) is dict:
            return self._items_key(dict, [x for item in v.items() for x in item], nesting)
        if hasattr(v, "__dict__") and not isinstance(v, np.ndarray):
            return self._items_key(("object", id(v)), list(vars(v).items()), nesting)
        return UNKNOWN

    def _span_key(self, span):
        if span is None:
            return None
        token = span.token
        if self.tree_values is not None and getattr(token, "id", -1) >= self.tree_values:
            token = ("made in the call tree", self.tokens.setdefault(id(token), len(self.tokens)))
        return (token, span.offset, span.lo, span.hi, span.scale)

    def _items_key(self, kind, items, nesting: int):
        keys = []
        for item in items:
            k = self.key(item, nesting + 1)
            if k is UNKNOWN:
                return UNKNOWN
            keys.append(k)
        return (kind, tuple(keys))


def _constant_key(x: Array):
    known = known_constant(x)
    if known is None:
        return None
    return (known.dtype.str, known.shape, known.tobytes()) if known.size <= 64 else UNKNOWN
