"""A static object chosen at run time: `status = "ok" if n < 3 else "many"`.

Paths that bind different static immutable objects (strings, None, numbers
of different kinds, enum members) to one variable and then meet make a
value known only at run time; so does a static list, tuple or int-keyed
dict of them indexed by a runtime int (`picked`, calls.getitem).  Compiled
code holds it as a runtime int32, the object's position in a table of all
such objects the compilation met
(`choices`, one per compilation: a position means the same object in every
branch and loop, so merging two choices is merging two ints, with no
remapping of tables).

In a flattened state (state.flatten) such a value is a node `CHOSEN`
whose one leaf, at the value's own path, is its position: an Array, or a
static np.int32 where a path holds the object itself (`lift`), so a branch
merges, and a loop carries, the position as any int (a loop entered with
an object and left with another, or a choice, carries it as a choice:
`carried_choices`; an attribute or item: `positions`).  The caller gets
the object (the output tree names the table: `for_output`).

What a program may do with it: return it, keep it in containers, pass it
on, compare it (`==`, `!=`, `is`, `is not`, `in` a static container) and
test its truth, each a runtime bool from a static table over the choices
(`compare`, `contained_in`, `truth`), print it (a runtime `if` per
object: `call_resolved`), and give it to an operator or a built-in such as
len() with other choices and static objects (`operate`, `call_mapped`: a
static table of each object's result, a runtime number or another choice,
with a runtime check for the objects Python raises for); as operators
are, its attributes and methods (`attribute`, `call_method`: `s.upper()`),
items (`subscript`: `s[1:]`), a static object's methods given it
(`static_method_call`: `"-".join([s, "!"])`) and f-strings of it
(`formatted`, `joined`) are each object's, as are a static container's
items it keys (`looked_up`: `TURN[heading]`) and a tuple each object
gives (`_mapped_items`: `dy, dx = heading.value`); a method of the
program's enum class is a function chosen among the members' bound
methods (`_program_methods`), and an enum of a runtime int of few values
a choice among its members (`member_by_value`).  A str indexed by a runtime int
is a choice among its characters (`picked`), and a runtime int of a few
values formatted, a choice among their texts (`formatted_int`).  Anything
else needs the object itself, which is known only at run time: `refusal`.

The table only grows while compiling.  A lookup made with a shorter table
could be reached by a position a loop carries from later in its body:
the loop then traces its body again (loops._settle_while).
"""
from __future__ import annotations

import enum
import inspect
import itertools
import operator
import types

import numpy as np

from ..errors import MergeError
from ..ir import AVal
from .values import Array, Undefined

CHOSEN = ("chosen",)            # the treedef node of a choice, while tracing
OPTIONAL = ("optional",)        # that of a Python int or None (optional_numbers.py)
POSITION = AVal(np.dtype(np.int32), (), False)

_CHOOSABLE_TYPES = (type(None), str, bytes, bool, int, float, complex, type(Ellipsis))


class ChosenValue:
    """One of the static objects of `choices()`, which one known at run time."""
    __slots__ = ("position",)

    def __init__(self, position: Array):
        self.position = position

    def __repr__(self) -> str:
        return "a static object chosen at run time"

    # (what Python's own protocols would ask natively: `{status: 1}`, `a, b = status`)
    def __hash__(self):
        raise refusal("using it as a dict key or set item", self)

    def __iter__(self):
        raise refusal("iterating over it", self)


def choosable(v) -> bool:
    """An immutable static object that a runtime choice may hold."""
    return type(v) in _CHOOSABLE_TYPES or isinstance(v, enum.Enum)


def choices() -> list:
    from .builder import ctx
    return ctx().choices


def position_of(v) -> np.int32:
    """`v`'s position in the compilation's table (added there if new).  Two
    objects are one choice where they are of one type and one repr (`1`
    and `True` are two, as are 0.0 and -0.0: the caller gets the one its
    path took; a nan is one choice, not a new one at each merge).  An enum
    member comes with all its class's members, in a row: a choice among
    some of them then lies in a range of positions that holds members
    only (_held), whatever objects the program made in between (the
    strings of their `.name`)."""
    table = choices()
    for i, o in enumerate(table):
        if o is v or (type(o) is type(v) and repr(o) == repr(v)):
            return np.int32(i)
    if isinstance(v, enum.Enum) and v in list(type(v)):
        table.extend(list(type(v)))
        return np.int32(len(table) - len(type(v)) + list(type(v)).index(v))
    table.append(v)
    return np.int32(len(table) - 1)


def build(td, leaf):
    """The value a CHOSEN node holding `leaf` stands for (state._build)."""
    if isinstance(leaf, (Array, Undefined)):
        return ChosenValue(leaf) if isinstance(leaf, Array) else leaf
    table = td[1] if len(td) > 1 else choices()
    return table[int(leaf)]


def for_output(td):
    """An output treedef whose CHOSEN nodes name the table (the driver maps
    a returned position to its object without the compilation's context)."""
    nodes = []
    _leaf_nodes(td, nodes)
    if CHOSEN not in nodes:
        return td
    named = ("chosen", tuple(choices()))
    return _with_leaf_nodes(td, iter([named if n == CHOSEN else n for n in nodes]))


# --- merging --------------------------------------------------------------------------

def leaf_nodes(td) -> list:
    """The treedef nodes of `td`'s leaves, in flatten's order (None: a leaf)."""
    nodes = []
    _leaf_nodes(td, nodes)
    return nodes


def with_leaf_nodes(td, nodes: list):
    """`td` with its leaves' nodes replaced by `nodes`."""
    return _with_leaf_nodes(td, iter(nodes))


def _leaf_nodes(td, out: list) -> None:
    if td is None or td in (CHOSEN, OPTIONAL):
        out.append(td)
        return
    for child in _children(td):
        _leaf_nodes(child, out)


def chosen_paths(td, leaves) -> list:
    """The paths of a flattened state's leaves that are choices' positions."""
    nodes = []
    _leaf_nodes(td, nodes)
    return [path for (path, _), node in zip(leaves, nodes) if node == CHOSEN]


def _children(td) -> tuple:
    kind = td[0]
    if kind in ("tuple", "list"):
        return td[1]
    if kind == "returning":
        return td[1], td[2]
    if kind == "dict":
        return td[2]
    if kind == "range":
        return (td[2], td[3]) + ((td[5],) if len(td) > 5 else ())
    if kind == "seq":
        return td[1], td[2]
    if kind == "object":
        return td[3]
    return td[1] + td[2]            # a frame state: (names, locals, stack)


def _with_leaf_nodes(td, nodes):
    """`td` with its leaves' nodes replaced by the iterator `nodes`'."""
    if td is None or td in (CHOSEN, OPTIONAL):
        return next(nodes)
    kind = td[0]
    if kind in ("tuple", "list"):
        return (kind, tuple(_with_leaf_nodes(t, nodes) for t in td[1])) + td[2:]
    if kind == "returning":
        return (kind, _with_leaf_nodes(td[1], nodes), _with_leaf_nodes(td[2], nodes))
    if kind == "dict":
        return td[:2] + (tuple(_with_leaf_nodes(t, nodes) for t in td[2]),) + td[3:]
    if kind == "range":
        pos, stop = _with_leaf_nodes(td[2], nodes), _with_leaf_nodes(td[3], nodes)
        rest = td[4:5] + ((_with_leaf_nodes(td[5], nodes),) if len(td) > 5 else ())
        return (kind, td[1], pos, stop) + rest
    if kind == "seq":
        return (kind, _with_leaf_nodes(td[1], nodes), _with_leaf_nodes(td[2], nodes), td[3])
    if kind == "object":
        return td[:3] + (tuple(_with_leaf_nodes(t, nodes) for t in td[3]),)
    names, td_locals, td_stack = td
    return (names, tuple(_with_leaf_nodes(t, nodes) for t in td_locals),
            tuple(_with_leaf_nodes(t, nodes) for t in td_stack))


def _is_number(v) -> bool:
    return type(v) in (bool, int, float, complex) or isinstance(v, np.generic)


def _plain_number(v) -> bool:
    return _is_number(v) and not isinstance(v, enum.Enum)


def _makes_choice(values, nodes, runtime_ints=False) -> bool:
    """Whether a leaf's values on paths that meet make (or stay) a choice:
    a path holds one already, or they are choosable objects that differ and
    do not all merge as numbers do.  `runtime_ints`: a runtime Python int
    of a few values (_few_valued_int) may join a choice too."""
    defined = [(v, n) for v, n in zip(values, nodes) if not isinstance(v, Undefined)]
    if runtime_ints and any(n != CHOSEN and _few_valued_int(v) for v, n in defined):
        # (with an object that is no number, or a choice: numbers alone merge as numbers)
        others = [(v, n) for v, n in defined if n == CHOSEN or not _few_valued_int(v)]
        return bool(others) and all(n == CHOSEN or choosable(v) for v, n in others) and \
            any(n == CHOSEN or not _plain_number(v) for v, n in others)
    if any(n == CHOSEN for _, n in defined):
        return all(n == CHOSEN or choosable(v) for v, n in defined)
    statics = [v for v, _ in defined]
    if len(statics) < 2 or not all(choosable(v) for v in statics):
        return False
    first = statics[0]
    if all(type(v) is type(first) and repr(v) == repr(first) for v in statics):
        return False
    return not all(_plain_number(v) for v in statics)


# A runtime Python int whose Span allows at most this many values may join
# a choice (_int_position): the loop variable of `for b in range(4): if
# fits(b): return b` after the paths leaving at each b merged it, which
# then meets the `return None` after the loop.  (Each value is an object of
# the compilation's table, which every table over the choices spans.)
MAX_INT_CHOICES = 1024


def _few_valued_int(v) -> bool:
    """A runtime Python int (not one whose Python type the run decides:
    held_ints.py) that its Span bounds to at most MAX_INT_CHOICES values."""
    from .values import int_bounds
    if not isinstance(v, Array) or v.shape or not v.aval.weak or v.span is None \
            or v.aval.dtype.kind not in "iu" or v.immutable is not True \
            or v.held_int is not None:
        return False
    lo, hi = int_bounds(v)
    return hi - lo < MAX_INT_CHOICES


def _int_position(v: Array, region) -> Array:
    """The position of runtime Python int `v` (_few_valued_int) as a
    choice: read, in the arm `region` that holds it, from a table of the
    positions of the ints its Span allows."""
    from .builder import emit
    from .control import in_open_region
    from .values import int_bounds
    lo, hi = int_bounds(v)
    table = np.array([position_of(k) for k in range(lo, hi + 1)], np.int32)
    with in_open_region(region):
        offset = emit("subtract", v, np.int64(lo)) if lo else v
        return emit("getitem", table, offset, key=("array",))


def lift(flat: list, regions=None) -> list:
    """Paths' flattened states [(treedef, leaves)] that meet, with each leaf
    that is (or becomes) a choice on any path made a CHOSEN node on all:
    a path's object becomes its static position.  `regions`: the paths'
    open regions (a runtime `if`'s arms), where a runtime Python int of a
    few values may join a choice, its position computed there
    (_int_position).  Unchanged where the leaves do not line up (their
    structures differ otherwise: refused as before)."""
    paths = [p for p, _ in flat[0][1]]
    if any([p for p, _ in leaves] != paths for _, leaves in flat[1:]):
        return flat
    nodes = []
    for td, _ in flat:
        nodes.append([])
        _leaf_nodes(td, nodes[-1])
    chosen = [i for i in range(len(paths))
              if _makes_choice([leaves[i][1] for _, leaves in flat], [n[i] for n in nodes],
                               runtime_ints=regions is not None)]
    if not chosen:
        return flat
    out = []
    for k, ((td, leaves), own) in enumerate(zip(flat, nodes)):
        leaves, own = list(leaves), list(own)
        for i in chosen:
            path, v = leaves[i]
            if own[i] != CHOSEN and isinstance(v, Array):
                leaves[i] = (path, _int_position(v, regions[k]))
            elif own[i] != CHOSEN and not isinstance(v, Undefined):
                leaves[i] = (path, position_of(v))
            own[i] = CHOSEN
        out.append((_with_leaf_nodes(td, iter(own)), leaves))
    return out


def lift_like(entry, end):
    """A loop body's end state (treedef, leaves) with the objects it holds
    where its entry holds a choice made positions (the body bound a static
    object to a variable the loop carries as a choice)."""
    if entry[0] == end[0]:
        return end
    nodes = []
    _leaf_nodes(entry[0], nodes)
    if len(nodes) != len(end[1]) or not any(n == CHOSEN for n in nodes):
        return end
    return lift([entry, end])[1]


def carried_choices(entry, end) -> set:
    """The paths a loop must carry as choices: where its entry holds an
    object and the body's end a choice, or another object (`status =
    "converged"` in the body of a loop entered with "running"); or where
    the body first binds a choice (its entry: a placeholder)."""
    (td, leaves), (end_td, end_leaves) = entry, end
    if [p for p, _ in leaves] != [p for p, _ in end_leaves]:
        return set()
    nodes, end_nodes = [], []
    _leaf_nodes(td, nodes)
    _leaf_nodes(end_td, end_nodes)
    # (a leaf the body left as it was makes no choice: asked first, without
    # a call per leaf of the big static tables a loop reads)
    return {path for (path, v), (_, w), n, m in zip(leaves, end_leaves, nodes, end_nodes)
            if n != CHOSEN and (m == CHOSEN if isinstance(v, Undefined) else
                                (v is not w or m == CHOSEN) and _makes_choice([v, w], [n, m]))}


def positions(values) -> list | None:
    """The positions of the values an attribute or item holds on paths
    that meet, where they make a choice (else None)."""
    nodes = [CHOSEN if isinstance(v, ChosenValue) else None for v in values]
    values = [v.position if isinstance(v, ChosenValue) else v for v in values]
    if not _makes_choice(values, nodes):
        return None
    return [v if n == CHOSEN or isinstance(v, Undefined) else position_of(v)
            for v, n in zip(values, nodes)]


def fits(v) -> bool:
    """Whether a choice may hold `v` (a static object, or another choice)."""
    return isinstance(v, ChosenValue) or choosable(v)


def position_value(v):
    """What carries `v` where a loop carries a choice: its position."""
    return v.position if isinstance(v, ChosenValue) else position_of(v)


def promoted(v) -> ChosenValue:
    """A loop's entry value `v` (an object, or a placeholder where the body
    binds it first: a bound flag guards its reads) as a choice it carries."""
    from .control import as_aval
    position = np.int32(0) if isinstance(v, Undefined) else position_of(v)
    return ChosenValue(Array(as_aval(position, POSITION)))


# --- picked from a container at a runtime position -----------------------------------

def pickable(items) -> bool:
    """Whether a static sequence's items are objects a choice may hold (at
    least one that is not a number: a list of numbers is one runtime array,
    indexing.static_number_table)."""
    return bool(items) and all(map(fits, items)) and not all(
        _is_number(v) and not isinstance(v, enum.Enum) for v in items)


def picked(items, key: Array, kind: str) -> ChosenValue:
    """items[key] at a runtime int `key` (`NAMES[int(np.argmax(p))]`): the
    choice among them, its position read from a table of theirs.  Past
    either end Python raises IndexError (`kind`: "list", "tuple"): checked
    at run time, raised when the call returns."""
    from . import checks
    from .builder import emit
    n = len(items)
    if key.span is None or not (-n <= key.span.bounds()[0] and key.span.bounds()[1] < n):
        checks.require(emit("in_bounds", key, n=n), f"{kind} index out of range",
                       raises="IndexError")
    # (a negative key counts from the end, as the lowering of a gather does)
    return ChosenValue(emit("getitem", _position_table(items), key, key=("array",)))


def _position_table(items):
    """The positions of `items` (objects, or choices: their runtime positions)."""
    if not any(isinstance(v, ChosenValue) for v in items):
        return np.array([position_of(v) for v in items], np.int32)
    from ..ops import shape
    from .builder import const_value
    return shape.stack([v.position if isinstance(v, ChosenValue) else
                        Array(const_value(position_of(v))) for v in items])


# --- what a program may do with it ----------------------------------------------------

def _python_bool(table: np.ndarray, position: Array) -> Array:
    """A runtime Python bool: `table` (one bool per choice) at `position`."""
    return _python_number(table, position)


def _table(fn) -> np.ndarray:
    return np.array([_safe(fn, o) for o in choices()], np.bool_)


def _safe(fn, *args) -> bool:
    """fn(*args) as a bool; False where Python raises (`None < 1`: such a
    comparison is not made by a comparison we support)."""
    try:
        return bool(fn(*args))
    except Exception:
        return False


def truth(v: ChosenValue) -> Array:
    """bool(v): each object's truth, at the runtime position."""
    return _python_bool(_table(bool), v.position)


def compare(fn, a, b) -> Array:
    """fn(a, b) (operator.eq, ne, is_, is_not) where one or both are choices."""
    if isinstance(a, ChosenValue) and isinstance(b, ChosenValue):
        table = np.array([_safe(fn, x, y) for x in choices() for y in choices()], np.bool_)
        return _python_bool(table, _combined([a, b], len(choices())))
    if isinstance(a, ChosenValue):
        return _python_bool(_table(lambda o: fn(o, b)), a.position)
    return _python_bool(_table(lambda o: fn(a, o)), b.position)


def contained_in(v: ChosenValue, container) -> Array:
    """`v in container` of a static container."""
    return _python_bool(_table(lambda o: o in container), v.position)


def comparable(v) -> bool:
    """What a choice may be compared with: another choice, or an object
    known while compiling (an array's elements would need the object)."""
    return isinstance(v, ChosenValue) or choosable(v) or (
        not isinstance(v, Array) and not _holds_runtime(v))


def _holds_runtime(v) -> bool:
    from .builtins_impl import holds_array
    return holds_array(v)


_SYMBOLS = {operator.eq: "==", operator.ne: "!="}


def operate(op, operands, symbol: str):
    """An operator (dunders.apply's) with a choice among (or inside) its
    operands: == and != of a choice with a comparable value; any other of
    choices and static objects each object's result (`label + "!"`);
    anything else is refused (`"%s" % (status,)` would format the choice
    itself)."""
    if op in _SYMBOLS and holds_choice(operands) and all(map(comparable, operands)):
        return compare(op, *operands)
    if holds_choice(operands) and all(map(fits, operands)) and op not in _UNBOUNDED:
        result = _mapped(op, operands, f"the operator `{symbol}`")
        if result is not None:
            return result
    raise refusal(f"the operator `{symbol}`", first_choice(operands))


# Built-in functions of objects alone, mapped as operators are (`len(name)`)
MAPPED_BUILTINS = {len, str, repr, abs, int, float, complex, ord, chr, round}


def call_mapped(fn, args):
    """fn(*args) of a MAPPED_BUILTINS function where args hold a choice:
    each object's result, as operate's (None where that cannot be)."""
    if not all(map(fits, args)):
        return None
    return _mapped(fn, args, f"`{fn.__name__}()`")


# (an object of another choice would be an operand too: `2 ** n` of a huge n)
_UNBOUNDED = {operator.pow, operator.ipow, operator.lshift, operator.ilshift}


class ChosenMethod:
    """`status.upper`, called next (`status.upper()`): each object's own
    method, called with the same arguments (`call_method`)."""
    __slots__ = ("choice", "name")

    def __init__(self, choice: ChosenValue, name: str):
        self.choice, self.name = choice, name

    def __repr__(self) -> str:
        return f"the method .{self.name} of a static object chosen at run time"


def attribute(v: ChosenValue, name: str, method: bool):
    """v.name: each object's attribute (`member.value`, `z.real`), or, where
    it is called at once (`s.upper()`: `method`), each object's method.
    Read only where Python's own code reads it (not an enum member's
    property or method of the program's: interpreted, as its code is)."""
    objects = held_objects(v)
    if own_attribute(v, name):
        found = [getattr(o, name) for o in objects if hasattr(o, name)]
        if method and found and all(map(callable, found)):
            return ChosenMethod(v, name)
        if not any(map(callable, found)):
            result = _mapped(lambda o: getattr(o, name), [v], f"reading `.{name}`")
            if result is not None:
                return result
    methods = _program_methods(v, name) if method else None
    if methods is not None:
        return methods
    raise refusal(f"`.{name}`", v)


def _program_methods(v: ChosenValue, name: str):
    """v.name, called next, where the objects v may hold are enum members
    whose class defines `name` as a function of the program's
    (`heading.turned_right()`): a function chosen at run time among their
    bound methods (chosen_functions), which the call interprets in a
    runtime `if` per member.  An object without one raises AttributeError
    when the call returns, where it is the one chosen.  None where no
    object the choice may hold is such a member."""
    from .chosen_functions import ChosenFunction
    table = choices()
    held = _held(v, len(table))
    outcomes, candidates = [], []
    for k, o in enumerate(table):
        if k not in held:
            outcomes.append(_UNREACHED)
        elif isinstance(o, enum.Enum) and isinstance(
                inspect.getattr_static(o, name, None), types.FunctionType):
            outcomes.append(len(candidates))
            candidates.append(getattr(o, name))
        else:
            outcomes.append(_Raised(AttributeError(
                f"'{type(o).__name__}' object has no attribute '{name}'")))
    if not candidates:
        return None
    _require_not_raised(outcomes, v.position, f"`.{name}()`")
    indices = np.array([r if type(r) is int else 0 for r in outcomes], np.int64)
    return ChosenFunction(_python_number(indices, v.position), tuple(candidates))


def own_attribute(v: ChosenValue, name: str) -> bool:
    """Whether Python's own code reads `.name` of each object `v` may hold."""
    return all(_own_attribute(o, name) for o in held_objects(v))


def _own_attribute(o, name: str) -> bool:
    """Whether reading o.name runs no code of the program's: any attribute
    of a str, a number, None...; of an enum member, its `name` and `value`
    where its class defines neither, nor functions (_plain)."""
    if not isinstance(o, enum.Enum):
        return True
    return name in ("name", "value") and _plain(o) and not any(
        name in vars(klass) for klass in type(o).__mro__
        if klass.__module__ not in ("enum", "builtins"))


def call_method(m: ChosenMethod, args, kwargs):
    """m(*args, **kwargs): each object's method called (`s.startswith("d")`,
    `s.replace("o", "0")`), its result picked at run time, as an
    operator's (`_mapped`); the arguments static objects or choices."""
    names, n = tuple(kwargs), len(args)

    def call(o, *values):
        return getattr(o, m.name)(*values[:n], **dict(zip(names, values[n:])))

    operands = [m.choice, *args, *kwargs.values()]
    if all(map(fits, operands)):
        result = _mapped(call, operands, f"`.{m.name}()`")
        if result is not None:
            return result
    raise refusal(f"`.{m.name}()`" + ("" if all(map(fits, operands)) else
                                      " with a runtime argument"), m.choice)


# Methods of a static container that read it only, as a method of a static
# string does: given a choice, each object's result (`HEADINGS.index(h)`)
_READING_METHODS = {list: {"index", "count"}, tuple: {"index", "count"}, dict: {"get"}}


def reads_static_container(fn) -> bool:
    """Whether `fn` is one of _READING_METHODS bound to a container whose
    items a choice may hold (comparing them with an object runs no code of
    the program's, nor on an array)."""
    owner = getattr(fn, "__self__", None)
    if fn.__name__ not in _READING_METHODS.get(type(owner), ()):
        return False
    return all(map(fits, owner.keys() if type(owner) is dict else owner))


def static_method_call(fn, args, kwargs):
    """fn(*args, **kwargs) of a method of Python's bound to a static object
    a choice may hold (`"abc".startswith(status)`, `"-".join([status,
    "!"])`) with choices among its arguments, or a join's items: each
    combination's result, as an operator's (None where that cannot be)."""
    if fn.__name__ == "join" and len(args) == 1 and not kwargs and \
            isinstance(args[0], (list, tuple)):
        items = list(args[0])
        return _mapped(lambda *texts: fn(texts), items, f"`{type(fn.__self__).__name__}.join()`") \
            if all(map(fits, items)) else None
    names, n = tuple(kwargs), len(args)
    operands = [*args, *kwargs.values()]
    if not all(map(fits, operands)):
        return None
    return _mapped(lambda *values: fn(*values[:n], **dict(zip(names, values[n:]))), operands,
                   f"`.{fn.__name__}()`")


def subscript(v: ChosenValue, key):
    """v[key] with a static key (`s[0]`, `s[1:]`): each object's item."""
    if not _static_key(key):
        return None
    return _mapped(lambda o: o[key], [v], "indexing it")


def looked_up(container, key: ChosenValue):
    """container[key] of a static dict, list, tuple or str by a choice
    (`RIGHT[heading]`, a turn table keyed by enum members): each object's
    item, as an operator's (a missing key's KeyError raised when the call
    returns, where the choice holds it).  None where the items are no
    objects a choice may hold (arrays, lists)."""
    if type(container) not in (dict, list, tuple, str):
        return None
    return _mapped(lambda k: container[k], [key], "looking it up")


def _static_key(key) -> bool:
    return choosable(key) or (isinstance(key, slice) and all(
        k is None or type(k) is int for k in (key.start, key.stop, key.step)))


def formatted(v, conversion, spec):
    """format(conversion(v), spec) (an f-string's `{v!r:>8}`) where `v`, or
    the spec, is a choice: each object's text (None where that cannot be:
    an enum member whose class formats it with code of the program's)."""
    def text(o, s):
        return format(conversion(o) if conversion is not None else o, s)
    if not fits(v) or not fits(spec):
        return None
    return _mapped(text, [v, spec], "formatting it into a string")


def joined(pieces):
    """An f-string's pieces joined ("".join) where some are choices (their
    formatted texts): each combination's text (None where too many)."""
    if not all(map(fits, pieces)):
        return None
    return _mapped(lambda *texts: "".join(texts), pieces, "an f-string")


# Formatting a runtime Python int (`f"{len(s)}"`, `f"{k}"` of a k known to lie
# in a few values): a choice among the texts of its values, where they are at
# most this many.
MAX_FORMATTED_INTS = 256


def formatted_int(x: Array, conversion, spec):
    """format(conversion(x), spec) of a runtime int or bool scalar `x`
    (a Python one, or NumPy's: its repr differs) whose bounds
    (values.int_bounds) are known and few: a choice among the texts of each
    value it may hold, picked at `x - lo` (None otherwise).  A spec that
    Python refuses for an int raises now, as eager Python would at this
    line."""
    from .builder import emit
    from .values import int_bounds
    if x.ndim != 0 or x.dtype.kind not in "biu":
        return None
    bounds = int_bounds(x)
    if bounds is None or bounds[1] - bounds[0] >= MAX_FORMATTED_INTS:
        return None
    lo, hi = bounds
    kind = ({"b": bool}.get(x.dtype.kind, int)) if x.aval.weak else x.dtype.type
    texts = [format(conversion(kind(k)) if conversion is not None else kind(k), spec)
             for k in range(lo, hi + 1)]
    offset = emit("subtract", emit("convert", x, dtype=np.dtype(np.int32)), np.int32(lo))
    return ChosenValue(_picked(_positions_made(texts, "formatting it into a string"), offset))


def member_by_value(cls, x: Array):
    """cls(x) of an enum class and a runtime int or bool scalar `x` of few
    values (values.int_bounds), `Heading((h.value + 1) % 4)`: a choice
    among the members of those values.  A value no member has raises
    ValueError when the call returns, where it is the one `x` holds.  None
    where the bounds are unknown or many, or the class looks values up
    with code of the program's (`_missing_`, `__new__`)."""
    from .builder import emit
    from .values import int_bounds
    bounds = int_bounds(x) if x.ndim == 0 and x.dtype.kind in "biu" else None
    if bounds is None or bounds[1] - bounds[0] >= MAX_FORMATTED_INTS or any(
            _programs_function(vars(klass).get(name))
            for klass in cls.__mro__ for name in ("_missing_", "__new__")):
        return None
    lo, hi = bounds
    kind = ({"b": bool}.get(x.dtype.kind, int)) if x.aval.weak else x.dtype.type
    outcomes = [_outcome(cls, [None], [0], [kind(k)]) for k in range(lo, hi + 1)]
    if not any(map(_is_result, outcomes)):
        return None
    offset = emit("subtract", emit("convert", x, dtype=np.dtype(np.int32)), np.int32(lo))
    _require_not_raised(outcomes, offset, f"`{cls.__name__}()`")
    return ChosenValue(_picked(_positions_made(outcomes, f"`{cls.__name__}()`"), offset))


def _programs_function(attribute) -> bool:
    """Whether a class attribute is a function of the program's (an enum
    class holds enum's own __new__ too)."""
    fn = getattr(attribute, "__func__", attribute)       # (a classmethod's)
    return isinstance(fn, types.FunctionType) and fn.__module__ != "enum"


def _mapped(op, operands, what: str):
    """op(*operands), each a choice or a static object: Python's result for
    each combination of the choices' objects, picked at run time by their
    positions (None where a result is no object a choice may hold).  A
    combination for which Python raises (`None + "!"`) raises if it is
    the one picked: checked, raised when the call returns."""
    table = list(choices())
    chosen = [i for i, v in enumerate(operands) if isinstance(v, ChosenValue)]
    held = [_held(operands[i], len(table)) for i in chosen]
    if not all(_plain(table[k]) for h in held for k in h):
        return None
    if len(table) ** len(chosen) > MAX_COMBINATIONS:
        return None
    outcomes = [_outcome(op, operands, chosen, [table[k] for k in ks])
                if all(k in h for k, h in zip(ks, held)) else _UNREACHED
                for ks in itertools.product(range(len(table)), repeat=len(chosen))]
    results = [r for r in outcomes if _is_result(r)]
    if not all(map(choosable, results)):
        return _mapped_items(op, operands, what, results)
    number = _number_kind(results)
    if number is None and len(_identities(results) - _identities(table)) > MAX_NEW_OBJECTS:
        return None
    position = _combined([operands[i] for i in chosen], len(table))
    _require_not_raised(outcomes, position, what)
    if number is not None:      # (`s < "d"`, `len(s)`: a runtime bool or int)
        filler = results[0] if results else 0
        values = np.array([r if _is_result(r) else filler for r in outcomes], number)
        return _python_number(values, position)
    return ChosenValue(_picked(_positions_made(outcomes, what), position))


def _mapped_items(op, operands, what: str, results):
    """Where each result is a plain tuple of one length (an enum member's
    value `(-1, 0)`, a method's pair): a tuple of each item's choice or
    runtime number, so `dy, dx = direction.value` unpacks as Python's
    does.  None where the results are anything else."""
    lengths = {len(r) if type(r) is tuple else None for r in results}
    if len(lengths) != 1 or None in lengths:
        return None
    items = tuple(_mapped(lambda *objects, i=i: op(*objects)[i], operands, what)
                  for i in range(lengths.pop()))
    return None if any(item is None for item in items) else items


def _identities(objects) -> set:
    """What tells `objects` apart as choices (position_of)."""
    return {(type(o), repr(o)) for o in objects}


def _positions_made(outcomes, what: str) -> np.ndarray:
    """The positions of `outcomes`' results, added to the table where new:
    noting `what` made them (the refusal of a loop that makes new ones at
    each iteration: endless).  Where there is none (a combination never
    picked), the first result's: the table's bounds are the results' (the
    objects a later use may see: _held)."""
    from .builder import ctx, current_loc
    before, known = len(choices()), {}
    for r in outcomes:      # (one look-up in the table per distinct result)
        if _is_result(r) and (type(r), repr(r)) not in known:
            known[type(r), repr(r)] = position_of(r)
    if len(choices()) > before:
        ctx().choices_made_at = (current_loc(), what)
    filler = next(iter(known.values()), 0)
    return np.array([known[type(r), repr(r)] if _is_result(r) else filler for r in outcomes],
                    np.int32)


# The most combinations of objects `_mapped` lays out a table of results
# for (each choice among all the compilation's objects: f"{a}{b}{c}{d}{e}"
# of five choices among 50 objects would be 312 million, past the int32
# position that picks one), and the most new objects it adds to the table
# (each a constant every later use of a choice tabulates)
MAX_COMBINATIONS = 1 << 18
MAX_NEW_OBJECTS = 4096


_UNREACHED = object()     # (a combination of objects the choices cannot hold)


def _is_result(outcome) -> bool:
    return not isinstance(outcome, _Raised) and outcome is not _UNREACHED


def _held(choice: ChosenValue, n: int) -> range:
    """The positions `choice` may hold: all of the table's, or fewer where
    its position's bounds are known (an item picked from a list: the
    items' positions).  An operator then makes results only of objects it
    may hold, not of the results it made in a loop's earlier trial (`t =
    NAMES[i % 3] + "!"` in a runtime loop would add "cat!!" at each)."""
    from .values import int_bounds
    lo, hi = int_bounds(choice.position) or (0, n - 1)
    return range(max(lo, 0), min(hi, n - 1) + 1)


def whole_enums(span: tuple) -> tuple:
    """A range of positions widened to hold all the members of the enums
    whose members it holds (position_of keeps them in a row): a loop that
    binds some members of a state enum binds the others next."""
    table = choices()
    lo, hi = span
    while 0 < lo < len(table) and _same_enum(table[lo - 1], table[lo]):
        lo -= 1
    while 0 <= hi < len(table) - 1 and _same_enum(table[hi], table[hi + 1]):
        hi += 1
    return lo, hi


def _same_enum(a, b) -> bool:
    return isinstance(a, enum.Enum) and type(a) is type(b)


def held_objects(choice: ChosenValue) -> list:
    """The objects `choice` may hold (_held's)."""
    table = choices()
    return [table[k] for k in _held(choice, len(table))]


def _plain(o) -> bool:
    """Whether Python's operators on `o` run no code of the program's (an
    enum member whose class defines `__add__` would run it natively here,
    not interpreted as the program's code is)."""
    if not isinstance(o, enum.Enum):
        return True
    return not any(k.startswith("__") and isinstance(v, types.FunctionType)
                   and v.__module__ != "enum"          # (EnumType's own, copied in)
                   for klass in type(o).__mro__ for k, v in vars(klass).items())


def _outcome(op, operands, chosen, objects):
    """op(*operands) with the choices at `chosen` made `objects`."""
    args = list(operands)
    for i, o in zip(chosen, objects):
        args[i] = o
    try:
        return op(*args)
    except Exception as e:          # (Python's own error, for those objects)
        return _Raised(e)


def _number_kind(results):
    """The dtype that holds `results` where they are all Python numbers of
    one type (as paths that meet with such numbers make a runtime number),
    else None."""
    kinds = {type(r) for r in results}
    if len(kinds) != 1 or not kinds <= {bool, int, float, complex}:
        return None
    dtype = {bool: np.bool_, int: np.int64, float: np.float64, complex: np.complex128}[kinds.pop()]
    if dtype is np.int64 and not all(-2 ** 63 <= r < 2 ** 63 for r in results):
        return None
    return dtype


def _picked(values: np.ndarray, position: Array) -> Array:
    """values[position], with the bounds of `values` as its Span (given to
    emit as a NumPy array: a constant's own bounds, which _held reads)."""
    from .builder import emit
    return emit("getitem", values, position, key=("array",))


def _python_number(values: np.ndarray, position: Array) -> Array:
    """A runtime Python number (bool, int...): `values` at `position`."""
    from .builtins_impl import to_python_scalar
    return to_python_scalar(_picked(values, position), values.dtype)


class _Raised:
    """An exception Python raises for one combination of objects."""
    __slots__ = ("error",)

    def __init__(self, error: Exception):
        self.error = error


def _require_not_raised(outcomes, position: Array, what: str) -> None:
    """A runtime check per distinct error among `outcomes`: the picked
    combination is not one for which Python raises it."""
    from ..errors import raisable_class
    from . import checks
    errors = {(type(r.error).__name__, str(r.error)) for r in outcomes if isinstance(r, _Raised)}
    for name, message in sorted(errors):
        if raisable_class(name) is None:
            raise refusal(f"{what}, which raises {name} for one of the objects (an error "
                          "compiled code does not raise),", None)
        ok = np.array([not (isinstance(r, _Raised) and (type(r.error).__name__, str(r.error))
                            == (name, message)) for r in outcomes], np.bool_)
        checks.require(_picked(ok, position), message, raises=name)


def _combined(choices_: list, n: int) -> Array:
    """One position for the objects of several choices, each among `n`
    (row-major, as itertools.product lists them)."""
    from .builder import emit
    position = choices_[0].position
    for c in choices_[1:]:
        position = emit("add", emit("multiply", position, np.int32(n)), c.position)
    return position


def holds_choice(values) -> bool:
    """Whether one of `values` is a choice."""
    return any(isinstance(v, ChosenValue) for v in values)


def first_choice(values) -> ChosenValue | None:
    """The first choice among `values` or inside the lists, tuples, dicts
    and sets they hold (what Python's own code would read natively)."""
    work, seen = list(values), set()
    while work:
        v = work.pop()
        if isinstance(v, ChosenValue):
            return v
        if isinstance(v, (list, tuple, set, frozenset, dict)) and id(v) not in seen:
            seen.add(id(v))         # (a list may hold itself)
            work.extend(v.values() if isinstance(v, dict) else v)
    return None


HINT = ("a value chosen at run time among static objects (strings, None, ...) can be "
        "returned, stored, passed to your own functions, compared (==, !=, is, in a tuple), "
        "tested for truth, printed, formatted (f-strings), and given to operators with static "
        "objects, to len(), str(), int()... and to its methods (s.upper()), each object's "
        "result a string, number or None; for anything else, do it on each "
        "path where the object is known (`if c: status = 'ok'; n = len(status)`), or carry a number that tells the "
        "paths apart (`code = 0` / `code = 1`) and turn it into the object outside the "
        "compiled function")


def endless(made_at) -> MergeError:
    """The refusal of a loop whose every trial made new objects at
    `made_at` (the line and operator): `tag = tag + "a"` at each iteration
    of a runtime loop makes as many objects as iterations."""
    loc, what = made_at
    return MergeError(f"{what} makes a new object at each iteration of a "
                      "runtime loop from a value that is one of several static objects (which "
                      "one is known only at run time): compiled code holds a choice among "
                      "objects known while compiling only", loc, hint=HINT)


def refusal(what: str, v: ChosenValue) -> MergeError:
    """The error for a use that needs the object itself."""
    return MergeError(f"{what} needs the object itself, and this value is one of several static "
                      "objects that runtime paths (a runtime `if` or loop) bind to it, or that "
                      "a runtime index picks: which one is known only at run time", hint=HINT)


def call_resolved(fn, position, objects, args, index, kwargs):
    """fn(*args, **kwargs) with args[index], a choice at `position`, made
    the object: interpreted as the program's own code, a runtime `if` per
    object (as chosen_functions.call_chosen), so that fn (print) sees it."""
    if len(objects) == 1 or position == 0:
        return fn(*args[:index], objects[0], *args[index + 1:], **kwargs)
    return call_resolved(fn, position - 1, objects[1:], args, index, kwargs)


def resolved_call(fn, args, kwargs) -> tuple:
    """The interpreted call_resolved's arguments for fn's first choice: the
    objects it may hold (_held), its position counted from the first of
    them (a branch per object the table holds would call fn with objects
    of other choices: `d[o] = v` of a key `d` lacks)."""
    from .builder import emit
    index = next(i for i, a in enumerate(args) if isinstance(a, ChosenValue))
    table, choice = choices(), args[index]
    held = _held(choice, len(table))
    position = choice.position
    if held.start:
        position = emit("subtract", position, np.int32(held.start))
    return [fn, position, tuple(table[held.start:held.stop]), tuple(args), index, kwargs]
