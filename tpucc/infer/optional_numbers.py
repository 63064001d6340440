"""A Python number or None, which one known only at run time: the index a
search returns (`for i in range(n): if fits(i): return i` then `return
None`; the same as a `while` loop), where the int may take too many values
to be a choice among static objects (chosen_values: a loop bounded by a
runtime n); the first float that passes a test, or None.

Compiled code holds it as one array of two items, `packed`: [1 where it is
a number, the number] ([0, 0] for None), in the number's dtype (int64 for
a Python int, float64 for a float, bool for a bool: the type the caller
gets back).  In a flattened state (state.flatten) it is a node OPTIONAL
with that one leaf, so a runtime `if` merges it, and a loop carries it, as
any array.  Paths that meet with None on some and a runtime Python number
(or a choice among ints and None) on others make one (`lift`, beside
chosen_values.lift); numbers of different types do not (one dtype would
lose the Python type of the others: refused as before).

What a program may do with it: test `x is None` / `x is not None`, or `x
== None` (a runtime bool from the flag; each arm of a runtime `if` on
that test sees x narrowed: None, or the runtime number, narrowing.py),
test its truth, print it, pass it on, keep it in containers and return it
(the caller gets None or the number).  Anything else needs to know which
it is: refused, with a hint to test it first."""
from __future__ import annotations

import contextlib

import numpy as np

from ..errors import MergeError
from ..ir import AVal
from . import chosen_values
from .chosen_values import OPTIONAL
from .values import Array, Undefined

# The dtypes of the Python numbers it may hold, and the type each gives back
_PYTHON_TYPES = {np.dtype(bool): bool, np.dtype(np.int64): int, np.dtype(np.float64): float,
                 np.dtype(np.complex128): complex}
# A loop's carried number or None, for each dtype (loops._apply_promotions)
PACKED = {dt: AVal(dt, (2,), False) for dt in _PYTHON_TYPES}


class OptionalNumber:
    """A Python number or None (`packed`: see the module's docstring)."""
    __slots__ = ("packed",)

    def __init__(self, packed: Array):
        self.packed = packed

    def __repr__(self) -> str:
        kind = _PYTHON_TYPES[self.packed.dtype].__name__
        return f"a Python {kind} or None, which one known at run time"

    def __hash__(self):
        raise refusal("using it as a dict key or set item", self)

    def __iter__(self):
        raise refusal("iterating over it", self)

    def __index__(self):
        raise refusal("using it as an index", self)


def _item(v: OptionalNumber, i: int) -> Array:
    from .builder import emit
    return emit("getitem", v.packed, np.int64(i), key=("array",))


def is_none(v: OptionalNumber, negate: bool = False) -> Array:
    """`v is None` (or `is not None`: `negate`), a runtime Python bool."""
    from .builder import emit
    from .builtins_impl import to_python_scalar
    return to_python_scalar(emit("not_equal" if negate else "equal", _item(v, 0), 0), np.bool_)


def truth(v: OptionalNumber) -> Array:
    """bool(v): a number that is not 0 (None is false), a runtime Python bool."""
    from .builder import emit
    from .builtins_impl import to_python_scalar
    nonzero = emit("all", emit("not_equal", v.packed, 0), axes=None, keepdims=False)
    return to_python_scalar(nonzero, np.bool_)


def number_of(v: OptionalNumber) -> Array:
    """The number `v` holds, where it is not None: a runtime Python number."""
    from .builtins_impl import to_python_scalar
    return to_python_scalar(_item(v, 1), v.packed.dtype)


def build(leaf):
    """The value an OPTIONAL node holding `leaf` stands for (state._build):
    while tracing, an OptionalNumber; for the caller, None or the number."""
    if isinstance(leaf, Undefined):
        return leaf
    if isinstance(leaf, Array):
        return OptionalNumber(leaf)
    leaf = np.asarray(leaf)
    return _PYTHON_TYPES[leaf.dtype](leaf[1]) if leaf[0] else None


# --- paths that meet ---------------------------------------------------------------

def _python_number(v) -> bool:
    """A runtime Python number (not one whose Python type the run decides:
    held_ints.py)."""
    return isinstance(v, Array) and not v.shape and v.aval.weak and \
        v.aval.dtype in _PYTHON_TYPES and v.held_int is None


def _ints_or_none(choice_position) -> bool:
    """Whether a choice at this position holds only ints and None."""
    table = chosen_values.choices()
    held = chosen_values._held(chosen_values.ChosenValue(choice_position), len(table))
    return all(table[k] is None or type(table[k]) is int for k in held)


def _kind(value, node) -> tuple | None:
    """How a path's leaf takes part in making a number or None: (what,
    dtype), what "none", "number", "optional" (one already), "choice" (of
    ints and None) or "undefined", dtype the number's (None for "none" and
    "undefined"); None where it cannot."""
    if isinstance(value, Undefined):
        return "undefined", None
    if node == OPTIONAL:
        return "optional", value.dtype
    if node == chosen_values.CHOSEN:
        ok = isinstance(value, Array) and _ints_or_none(value)
        return ("choice", np.dtype(np.int64)) if ok else None
    if node is None and value is None:
        return "none", None
    return ("number", value.dtype) if node is None and _python_number(value) else None


def _made_dtype(kinds):
    """The dtype of the number or None that paths' kinds (_kind) of one
    leaf make: some None (or a choice holding it), some number, of one
    dtype, none that cannot take part; else None."""
    if None in kinds:
        return None
    whats = {w for w, _ in kinds}
    dtypes = {d for _, d in kinds if d is not None}
    if len(dtypes) != 1 or whats == {"optional"}:
        return None
    if "optional" in whats or ("number" in whats and whats & {"none", "choice"}):
        return dtypes.pop()     # (a path where it is unbound takes the node too)
    return None


def lift(flat: list, regions) -> list:
    """Paths' flattened states [(treedef, leaves)] that meet (a runtime
    `if`'s arms, `regions` their open regions), with each leaf that holds
    None on some paths and a runtime number on others (_made_dtype) made
    an OPTIONAL node on all, its packed value computed in each arm.
    Unchanged where the leaves do not line up."""
    paths = [p for p, _ in flat[0][1]]
    if any([p for p, _ in leaves] != paths for _, leaves in flat[1:]):
        return flat
    nodes = [chosen_values.leaf_nodes(td) for td, _ in flat]
    made = {}
    for i in range(len(paths)):
        dtype = _made_dtype([_kind(leaves[i][1], n[i]) for (_, leaves), n in zip(flat, nodes)])
        if dtype is not None:
            made[i] = dtype
    if not made:
        return flat
    out = []
    for (td, leaves), own, region in zip(flat, nodes, regions):
        leaves, own = list(leaves), list(own)
        for i, dtype in made.items():
            path, v = leaves[i]
            what, _ = _kind(v, own[i])
            if what not in ("optional", "undefined"):
                leaves[i] = (path, _packed(v, what, dtype, region))
            own[i] = OPTIONAL
        out.append((chosen_values.with_leaf_nodes(td, own), leaves))
    return out


def lift_like(entry, end):
    """A loop body's end state (treedef, leaves) with the None or number it
    binds where its entry holds a number or None packed (as lift's)."""
    if entry[0] == end[0] or OPTIONAL not in chosen_values.leaf_nodes(entry[0]):
        return end
    return lift([entry, end], [None, None])[1]


def carried(entry, end) -> dict:
    """The paths a loop must carry as a number or None, each with its
    PACKED type: entered holding None (or a number) and left by the body
    holding a number (or None, or one already), or first bound by the body
    to one."""
    (td, leaves), (end_td, end_leaves) = entry, end
    if [p for p, _ in leaves] != [p for p, _ in end_leaves]:
        return {}
    out = {}
    for (path, v), (_, w), n, m in zip(leaves, end_leaves, chosen_values.leaf_nodes(td),
                                       chosen_values.leaf_nodes(end_td)):
        if n == OPTIONAL or v is w:
            continue
        dtype = (w.dtype if m == OPTIONAL else None) if isinstance(v, Undefined) else \
            _made_dtype([_kind(v, n), _kind(w, m)])
        if dtype is not None:
            out[path] = PACKED[dtype]
    return out


def is_packed(aval) -> bool:
    """Whether a loop's promotion type is a carried number or None's."""
    return any(aval is p for p in PACKED.values())


def promoted(v, aval: AVal) -> OptionalNumber:
    """A loop's entry value `v` (None, a number, or a placeholder where the
    body binds it first) as the number or None it carries (`aval`: PACKED's)."""
    from .control import as_aval
    what = _kind(v, None)[0] if _kind(v, None) else "none"
    packed = _packed(v, "none" if what == "undefined" else what, aval.dtype, None)
    return OptionalNumber(Array(as_aval(packed, aval)))


def _packed(v, what: str, dtype, region):
    """The packed value (see the module's docstring) in `dtype` of a path's
    None, number or choice of ints and None, computed in its arm `region`."""
    from .builder import const_value, emit
    from .control import in_open_region
    if what == "none":
        return Array(const_value(np.zeros(2, dtype)))
    second = np.array([False, True])
    with in_open_region(region) if region is not None else contextlib.nullcontext():
        if what == "number":
            return emit("select", second, v, np.array([1, 0], dtype))
        table = chosen_values.choices()
        flags = np.array([o is not None for o in table], dtype)
        ints = np.array([o if type(o) is int else 0 for o in table], dtype)
        return emit("select", second, emit("getitem", ints, v, key=("array",)),
                    emit("getitem", flags, v, key=("array",)))


# --- what a program may do with it ------------------------------------------------

def first_optional(values) -> OptionalNumber | None:
    return next((v for v in values if isinstance(v, OptionalNumber)), None)


def operate(op, operands, symbol: str) -> Array:
    """An operator with a number or None among its operands: `i == None`
    and `i != None` test it as `is` does; any other needs to know which."""
    import operator
    if op in (operator.eq, operator.ne) and len(operands) == 2 and \
            any(o is None for o in operands):
        v = operands[0] if operands[1] is None else operands[1]
        return is_none(v, negate=op is operator.ne)
    raise refusal(f"the operator `{symbol}`", first_optional(operands))


def call_resolved(fn, args, index, kwargs):
    """fn(*args, **kwargs) with args[index], a number or None, made what it is
    (print(i)): interpreted as the program's own code, a runtime `if` whose
    arms see it narrowed (narrowing.py)."""
    v = args[index]
    if v is None:
        return fn(*args[:index], None, *args[index + 1:], **kwargs)
    return fn(*args[:index], v, *args[index + 1:], **kwargs)


def resolved_call(fn, args, kwargs) -> list:
    """The interpreted call_resolved's arguments for fn's first number or None."""
    index = next(i for i, a in enumerate(args) if isinstance(a, OptionalNumber))
    return [fn, tuple(args), index, kwargs]


HINT = ("test it first: `if i is None: ...` / `if i is not None: ...` (in each branch "
        "it is then None, or the number); or return a number that tells the paths apart "
        "(-1 for none found) instead of None")


def refusal(what: str, v: OptionalNumber) -> MergeError:
    """The error for a use of a number or None that needs to know which."""
    kind = _PYTHON_TYPES[v.packed.dtype].__name__
    kind = ("an " if kind == "int" else "a ") + kind
    return MergeError(f"{what} needs to know whether this value is None or {kind}, and "
                      f"runtime paths (a runtime `if` or loop) bind None to it on some and "
                      f"{kind} on others: which one is known only at run time", hint=HINT)
