"""Interpreter state across runtime control flow.

A frame's state is its locals and its operand stack.  `flatten` turns a state
into leaves (static values or runtime Arrays) at named paths, so the two arms
of a branch, or a loop's entry and the end of its body, can be compared slot
by slot.  `unify` decides the type of a slot that is runtime in the merged
state: equal shapes are required; dtypes follow NumPy's promotion with weak
Python scalars; two different strong dtypes are an error.
"""
from __future__ import annotations

import collections
import dataclasses
import enum
import itertools
import operator
import types

import numpy as np

from ..errors import MergeError
from ..ir import AVal
from ..ops.registry import const_aval, result_type
from . import chosen_values, flatten_memo, optional_numbers, value_objects
from .chosen_values import CHOSEN, OPTIONAL, ChosenValue
from .optional_numbers import OptionalNumber
from .iterators import RaisingTail, RangeIter, ReturningTail, SeqIter
from .messages import RuntimeText
from .values import Array, Undefined, set_item

SCALARS = (bool, int, float, complex, np.generic)


def flatten(value, path: str, out: list, whole=None) -> object:
    """Appends (path, leaf) pairs; returns a treedef rebuilt by `unflatten`.
    `whole(value, path)`: whether to take a list or dict as one leaf, its
    items unwalked (a merge's shared containers: see `taken_whole`)."""
    if whole is None and type(value) in flatten_memo.CONTAINERS:
        memo = flatten_memo.current_memo()
        if memo is not None:        # (static data is flattened once: flatten_memo)
            return flatten_memo.flattened(value, path, out, memo, _flatten_items)
    return _flatten_items(value, path, out, whole)


def _flatten_items(value, path: str, out: list, whole=None) -> object:
    def sub(v, p):
        return flatten(v, p, out, whole)
    if whole is not None and type(value) in (list, dict) and whole(value, path):
        out.append((path, value))
        return None
    if is_namedtuple(value):
        # its items are slots of the state, as a plain tuple's are: a loop
        # may carry `s = State(s.x * 0.5, s.v + 1)`, a branch merge it, and
        # an argument's arrays are runtime inputs (the driver keys them so)
        fields = type(value)._fields
        return ("object", type(value), fields,
                tuple(sub(v, f"{path}.{k}") for k, v in zip(fields, value)))
    if isinstance(value, ReturningTail):      # its returned value is a slot too
        return ("returning", sub(tuple(value), path), sub(value.value, f"{path}.value"))
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        td = ("tuple", tuple(sub(v, f"{path}[{i}]") for i, v in enumerate(value)))
        return td + (value.error,) if isinstance(value, RaisingTail) else td
    if isinstance(value, list):
        td = ("list", tuple(sub(v, f"{path}[{i}]") for i, v in enumerate(value)))
        # (the user's list subclass is rebuilt as one: its own methods stay)
        return td if type(value) is list else td + (type(value),)
    if isinstance(value, dict) and has_static_keys(value):
        keys = dict_keys(value)
        children = tuple(sub(dict.__getitem__(value, k), f"{path}[{k!r}]") for k in keys)
        if type(value) is dict:
            return ("dict", keys, children)
        # An OrderedDict, a defaultdict (with its factory), a Counter or the
        # user's dict subclass is rebuilt as one.
        return ("dict", keys, children, (type(value), getattr(value, "default_factory", None)))
    if isinstance(value, RangeIter):
        td = ("range", value.step, sub(value.pos, f"{path}.pos"), sub(value.stop, f"{path}.stop"),
              value.peeled)
        return td if value.rows is None else td + (sub(value.rows, f"{path}.rows"),)
    if isinstance(value, SeqIter):
        # pos is a leaf, as a range's: arms that leave a loop after different
        # iterations (a runtime `break`) merge it; the iterator is dead there.
        return ("seq", sub(value.pos, f"{path}.pos"), sub(value.items, f"{path}.items"),
                (value.source, value.stamp, value.read, value.follows_length, value.cursor,
                 value.kind))
    if isinstance(value, ObjectNode):
        keys = tuple(value.attrs)
        return ("object", value.cls, keys,
                tuple(sub(value.attrs[k], f"{path}.{k}") for k in keys))
    if is_value_dataclass(value):
        # A frozen dataclass of arrays (Flax-style parameters, a new one
        # each step via dataclasses.replace) is a value, as a namedtuple is.
        names = value_fields(value)
        return ("object", type(value), names,
                tuple(sub(getattr(value, k), f"{path}.{k}") for k in names))
    if isinstance(value, ChosenValue):     # its runtime position is the leaf
        out.append((path, value.position))
        return CHOSEN
    if isinstance(value, OptionalNumber):     # its packed flag and int are the leaf
        out.append((path, value.packed))
        return OPTIONAL
    names = value_objects.flattened_as_value(value, path)
    if names is not None:       # (a plain object a counted loop makes anew each iteration)
        return ("object", type(value), names,
                tuple(sub(value.__dict__[k], f"{path}.{k}") for k in names))
    out.append((path, value))
    return None


def is_unbound_placeholder(value) -> bool:
    """Whether `value` is a tuple, list, dict or value dataclass whose every
    leaf is Undefined: the placeholder a merge shaped, for a path that never
    bound the variable, like the value the other paths bound
    (control.shape_undefined), left so after the merge where no path that
    bound it goes on (`if c: q = P(x)` then `return q.w`)."""
    # (items in order, lazily: every read of a variable asks, and the first
    # item of a list of a thousand arrays already says no)
    work, leaves = [iter((value,))], 0
    while work:
        v = next(work[-1], _DONE)
        if v is _DONE:
            work.pop()
        elif isinstance(v, Undefined):
            leaves += 1
        elif type(v) in (tuple, list) or is_namedtuple(v):
            work.append(iter(v))
        elif type(v) is dict:
            work.append(iter(v.values()))
        elif getattr(type(v), "__dataclass_params__", None) is not None and \
                not isinstance(v, type):
            work.append(iter([getattr(v, k, None) for k in value_fields(v)]))
        else:
            return False
    return leaves > 0


_DONE = object()


def is_namedtuple(value) -> bool:
    """A collections.namedtuple or typing.NamedTuple: a tuple whose class
    names its items (and adds nothing else an instance holds)."""
    cls = type(value)
    return (isinstance(value, tuple) and isinstance(getattr(cls, "_fields", None), tuple)
            and len(cls._fields) == len(value) and not hasattr(value, "__dict__"))


def is_value_dataclass(value, holding_array=False) -> bool:
    """A frozen dataclass instance whose attributes are its fields (nothing
    cached beside them), each an array, a Python scalar, a string, None, or
    a tuple or such a dataclass of those: no container the program could
    change.  Like a namedtuple it is a value: its items are slots of the
    state (a loop may carry `r = Result(r.x * 2, r.n + 1)`), it is rebuilt
    from them, and as an argument (`holding_array`: one that holds an
    array) its arrays are runtime inputs: a new instance each call (Flax-
    style parameters, dataclasses.replace'd each step) is no new program."""
    found = _value_parts(value)
    return found is not None and (found > 0 or not holding_array)


def value_fields(value) -> tuple:
    """The field names of a dataclass instance, in order."""
    return tuple(f.name for f in dataclasses.fields(value))


def _value_parts(value) -> int | None:
    """How many arrays a value dataclass holds; None if `value` is none."""
    params = getattr(type(value), "__dataclass_params__", None)
    if params is None or not params.frozen or isinstance(value, type) or \
            type(value).__module__.startswith("tpucc."):       # (tpucc's own: RangeIter...)
        return None
    names = value_fields(value)
    if set(instance_attributes(value)) != set(names):
        return None
    count = 0
    for k in names:
        n = _arrays_in_part(getattr(value, k))
        if n is None:
            return None
        count += n
    return count


def _arrays_in_part(v) -> int | None:
    if isinstance(v, (Array, np.ndarray)) or hasattr(v, "shape") and hasattr(v, "dtype") and \
            type(v).__module__.startswith("jax"):
        return 1
    if v is None or isinstance(v, (str, bytes, *SCALARS)):
        return 0
    if isinstance(v, Undefined):
        # a field of the placeholder a merge shapes like the value bound on
        # the other paths (control.shape_undefined): that is still a value
        # dataclass, flattened as the bound one is, not an opaque object
        return 0
    if type(v) is tuple or is_namedtuple(v):
        counts = [_arrays_in_part(x) for x in v]
        return None if None in counts else sum(counts)
    if type(v) is dict and has_static_keys(v):
        # Flax-style `params`: a dict of arrays is a pytree as a tuple is
        # (flatten, the driver's key and the rebuild treat it so)
        counts = [_arrays_in_part(x) for x in v.values()]
        return None if None in counts else sum(counts)
    return _value_parts(v)


def stored_value_arrays(value) -> list | None:
    """The runtime arrays, in order, of a tuple, named tuple or frozen
    dataclass of arrays and immutable statics (numbers, strings, None, and
    such values again): a value the program may store on an object that
    outlives the call (`cell.state = St(h, c)`), made again after each call
    around that call's arrays (rebuilt_value).  None for anything else, or
    for one holding no runtime array (a static value would be stored once,
    at compile time)."""
    arrays = _value_arrays(value)
    return arrays or None


def is_carried_value(value) -> bool:
    """A tuple, named tuple or frozen dataclass of arrays and immutable
    statics (stored_value_arrays's values, and those holding no array yet:
    `State(0.0, 0)`): a runtime loop carries an attribute or item holding
    one leaf by leaf (held_values.py), as it carries a variable's, and a
    runtime `if` merges it so (control.HeldValueLeaves).  Immutable all the
    way down, so that the value made again around the merged or carried
    leaves is as good as the one the program made.  (Not a dict inside
    it: other names may hold that dict, and see changes made to it.)"""
    return _value_arrays(value) is not None


def _value_arrays(value) -> list | None:
    """stored_value_arrays's arrays, [] for such a value that holds none."""
    if not (type(value) is tuple or is_namedtuple(value) or _value_parts(value) is not None):
        return None
    arrays, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, Array):
            arrays.append(v)
        elif type(v) is tuple or is_namedtuple(v):
            stack.extend(reversed(v))
        elif _value_parts(v) is not None:
            stack.extend(reversed([getattr(v, k) for k in value_fields(v)]))
        elif not (v is None or isinstance(v, (str, bytes, *SCALARS))):
            # (a dict: a container the program could change later; a NumPy
            # array library code put there unread would be kept as it was)
            return None
    return arrays


def held_value_hint(name: str, values) -> str | None:
    """The advice where an attribute or a container's item (`name`, as
    slot_name writes it) holds a tuple, named tuple or frozen dataclass of
    arrays on some runtime paths or iterations and a value of another
    structure on others (None, another class, another length): a runtime
    `if` merges, and a loop carries, such a slot item by item
    (control.HeldValueLeaves, held_values.py) only where its structure
    stays one.  None where no value is one."""
    held = next((v for v in values if _value_arrays(v)), None)
    if held is None:
        return None
    kind = type(held).__name__
    target = f"obj{name}" if name.startswith((".", "[")) else name
    return (f"give `{target}` one structure on every runtime path and iteration, which is "
            f"then merged and carried item by item: {with_article(kind)} of as many items, "
            f"each array of one shape and dtype (where it may be None or unset, bind it before "
            f"to such {with_article(kind)} of zeros, and keep a flag saying whether it is valid)")


def held_dict_hint(name: str, values) -> str | None:
    """The advice where an attribute or item (`name`) holds a frozen
    dataclass or tuple of arrays with a dict inside (a Flax-style
    TrainState's `params`) that a runtime `if` or loop rebinds: such a slot
    is not merged or carried item by item (is_carried_value), a variable
    is.  None where no value is one."""
    held = next((v for v in values if _value_parts(v) is not None or type(v) is tuple
                 or is_namedtuple(v)), None)
    if held is None or _value_arrays(held) is not None:
        return None
    target = f"obj{name}" if name.startswith((".", "[")) else name
    return (f"an attribute or item holding {with_article(type(held).__name__)} with a dict "
            f"inside is not carried nor merged item by item (other names may hold that dict): "
            f"bind a variable to it before (`s = {target}`), rebind the variable inside (a "
            f"variable's dicts are carried item by item), and assign `{target} = s` after; or "
            f"hold the dict's arrays in a named tuple")


def with_article(name: str) -> str:
    """`a State`, `an Inner`: a class named in a message."""
    return f"{'an' if name[:1] in 'AEIOUaeiou' else 'a'} {name}"


def rebuilt_value(template, arrays):
    """`template` (a value stored_value_arrays accepted) made again with the
    items of the iterator `arrays` in place of its runtime arrays: named
    tuples and dataclasses of their own classes, other items as they are."""
    if isinstance(template, Array):
        return next(arrays)
    if type(template) is tuple:
        return tuple(rebuilt_value(v, arrays) for v in template)
    if is_namedtuple(template):
        return type(template)(*(rebuilt_value(v, arrays) for v in template))
    if _value_parts(template) is not None:
        # its fields set as they were, without running __init__ / __post_init__ again
        made = object.__new__(type(template))
        for k in value_fields(template):
            object.__setattr__(made, k, rebuilt_value(getattr(template, k), arrays))
        return made
    return template


class ObjectNode:
    """An object made by compiled code and returned from it (e.g. a gradient
    object): rebuilt after each call from its class and attributes."""
    __slots__ = ("cls", "attrs")

    def __init__(self, cls, attrs: dict):
        self.cls, self.attrs = cls, attrs


def instance_attributes(obj) -> dict:
    """An object's instance attributes: its __dict__ and the slots that are
    set (a `@dataclass(slots=True)` has no __dict__)."""
    attrs = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in ((slots,) if isinstance(slots, str) else slots):
            slot = cls.__dict__.get(name)
            if isinstance(slot, types.MemberDescriptorType) and name not in attrs:
                try:
                    attrs[name] = slot.__get__(obj, type(obj))
                except AttributeError:          # a slot never assigned
                    pass
    return attrs


def unflatten(treedef, leaves) -> object:
    it = iter(leaves)
    return _build(treedef, it)


def _build(td, it):
    if td is None:
        return next(it)
    kind = td[0]
    if kind == "tuple":
        items = tuple(_build(t, it) for t in td[1])
        return items if len(td) == 2 else RaisingTail(items, td[2])
    if kind == "returning":
        items = _build(td[1], it)
        return ReturningTail(items, _build(td[2], it))
    if kind == "list":
        items = [_build(t, it) for t in td[1]]
        return items if len(td) == 2 else list_of_class(td[2], items)
    if kind == "dict":
        items = {k: _build(t, it) for k, t in zip(td[1], td[2])}
        return items if len(td) == 3 else dict_of_class(*td[3], items)
    if kind == "range":
        pos = _build(td[2], it)
        stop = _build(td[3], it)
        return RangeIter(pos, stop, td[1], _build(td[5], it) if len(td) > 5 else None, td[4])
    if kind == "seq":
        pos = _build(td[1], it)
        return SeqIter(_build(td[2], it), pos, *td[3])
    if kind == "chosen":
        return chosen_values.build(td, next(it))
    if kind == "optional":
        return optional_numbers.build(next(it))
    if kind == "object" and issubclass(td[1], tuple):       # a namedtuple
        return tuple.__new__(td[1], [_build(t, it) for t in td[3]])
    if kind == "object":
        obj = td[1].__new__(td[1])
        for k, t in zip(td[2], td[3]):
            object.__setattr__(obj, k, _build(t, it))
        value_objects.note_built(obj)
        return obj
    raise AssertionError(td)


def has_static_keys(mapping: dict) -> bool:
    """Whether a dict's keys are Python strings, numbers, bytes, None, enum
    members or tuples of those: tpucc then follows its items one by one
    (flattened, as a list's), in arguments, state and results alike."""
    return all(_static_key(k) for k in mapping)


def _static_key(k) -> bool:
    if type(k) is tuple:
        return all(_static_key(x) for x in k)
    # (an enum member is one object per name, hashed by it: a grid's cell
    # states counted in `{c: n for c in Cell}`)
    return isinstance(k, (str, int, float, complex, bytes, type(None), enum.Enum))


def dict_keys(mapping: dict) -> tuple:
    """The keys in the mapping's order: an OrderedDict keeps its own
    (move_to_end changes it), apart from the dict underneath."""
    if isinstance(mapping, collections.OrderedDict):
        return tuple(collections.OrderedDict.__iter__(mapping))
    return tuple(dict.__iter__(mapping))


def dict_of_class(cls, default_factory, items: dict) -> dict:
    """A new `cls` (a dict subclass) holding `items`, made without running
    its __init__ (the user's may take other arguments)."""
    made = cls.__new__(cls)
    if isinstance(made, collections.OrderedDict):
        collections.OrderedDict.update(made, items)     # its own order keeping
    else:
        dict.update(made, items)
    if isinstance(made, collections.defaultdict):
        made.default_factory = default_factory
    return made


def list_of_class(cls, items: list) -> list:
    """A new `cls` (a list subclass) holding `items`, made without running
    its __init__ or its own extend (the user's may take other arguments)."""
    made = cls.__new__(cls)
    list.extend(made, items)
    return made


def state_leaves(locals_: dict, stack: list, whole=None):
    """Flattens a frame state: (treedef, [(path, leaf)]).  `whole`: as
    `flatten`'s, or a {path: container} of `taken_whole`."""
    if isinstance(whole, dict):
        whole = _taken_at(whole)
    out = []
    names = tuple(sorted(locals_))
    td_locals = tuple(flatten(locals_[n], n, out, whole) for n in names)
    td_stack = tuple(flatten(v, f"<stack {i}>", out, whole) for i, v in enumerate(stack))
    return (names, td_locals, td_stack), out


def _taken_at(whole: dict):
    return lambda value, path: whole.get(path) is value


# --- containers a merge takes whole --------------------------------------------------
#
# A runtime `if` inside an unrolled loop merges the frame's whole state at
# each iteration; walking every item of a big list of lists (a DP table) at
# each merge made the merges cost cells x table size.  A list or dict that
# every arm holds at the same path, and whose items (nested ones included)
# no arm rebound, is the same in every arm: the merge takes it as one leaf,
# which every arm shares, and walks only what the arms may have changed.

_PLAIN = (bool, int, float, complex, str, type(None))
_LEAF_TYPES = frozenset((*_PLAIN, Array))


def plain_leaf(x) -> bool:
    """A leaf whose value at a region's end is the value read after it: a
    number, a string, None, or an array that is no view (a view re-reads its
    base, which the region's end restores) and that no loop fences (loops.
    _fenced logs each read of it)."""
    if type(x) is Array:
        return x.base is None and x.fence is None
    return type(x) in _PLAIN or isinstance(x, np.generic)


def settled(container, rebound: set, memo: dict) -> bool:
    """Whether a list or dict (of static keys) holds only plain leaves (or
    tuples of them) and settled lists and dicts, none of them in `rebound` (the ids of those a
    region rebound items of).  `memo`: {id: answer}, shared by one merge."""
    known = memo.get(id(container))
    if known is not None:
        return known
    memo[id(container)] = False         # (a list holding itself is walked, as flatten would)
    if id(container) in rebound:
        return False
    items = container.values() if type(container) is dict else container
    if type(container) is dict and not has_static_keys(container):
        return False
    kinds = set(map(type, items))
    if kinds <= _LEAF_TYPES:            # (the common case, checked without a call per item)
        answer = Array not in kinds or all(
            type(x) is not Array or x.base is None and x.fence is None for x in items)
    else:
        answer = all(settled(x, rebound, memo) if type(x) in (list, dict) else _plain_items(x)
                     for x in items)
    memo[id(container)] = answer
    return answer


def _plain_items(x) -> bool:
    """A plain leaf, or a tuple of them (a Gym model's (prob, next, reward,
    done)): no item of a tuple can be rebound, so it is settled as they are."""
    if type(x) is tuple:
        return all(map(_plain_items, x))
    return plain_leaf(x)


def settled_test():
    """A `flatten` whole test for a region's end: lists and dicts of plain
    leaves only (state_vars needs the Values of the others' arrays)."""
    memo: dict = {}
    return lambda value, path: settled(value, (), memo)


def taken_whole(states, rebound_slots) -> dict:
    """{path: container} of the lists and dicts a merge of `states` ((locals,
    stack) each, with the same names) takes whole: each state holds that very
    object at that path, and no item of it, or of a list or dict inside it,
    is in `rebound_slots` ((id(container), key) of each item a region
    rebound).  Descends only through lists and dicts no region rebound items
    of (their items are then the same objects in every state)."""
    rebound = {cid for cid, _ in rebound_slots}
    memo: dict = {}
    work = []
    for n in sorted(states[0][0]):
        work.append(([loc.get(n, _NONE) for loc, _ in states], n))
    for i in range(min(len(st) for _, st in states)):
        work.append(([st[i] for _, st in states], f"<stack {i}>"))
    whole = {}
    while work:
        values, path = work.pop()
        value = values[0]
        if type(value) not in (list, dict) or any(v is not value for v in values):
            continue
        if settled(value, rebound, memo):
            whole[path] = value
        elif id(value) not in rebound and (type(value) is list or has_static_keys(value)):
            items = value.items() if type(value) is dict else enumerate(value)
            work.extend(([v], f"{path}[{k!r}]" if type(value) is dict else f"{path}[{k}]")
                        for k, v in items)
    return whole


def rebuild_state(treedef, leaves, like=(), in_place=None, whole=None):
    """The state of `treedef` holding `leaves`.  `like`: the (locals, stack)
    states it was flattened from (a branch's arms, a loop's entry): a list,
    dict or tuple that is one object in all of them and gets back the very
    same items is that object again, not a copy, so names, bound methods
    (`acc.append` on the stack) and callers sharing it still share it.
    `in_place`: {id: serial} of the lists and dicts whose items the region
    rebound (`h[0] = ...`): they stay the same objects and get the new
    items, as in Python.  `whole`: the containers the merge took whole
    (taken_whole)."""
    names, td_locals, td_stack = treedef
    it = iter(leaves)
    if like:
        locals_ = {n: _build_like(t, it, [loc.get(n, _NONE) for loc, _ in like])
                   for n, t in zip(names, td_locals)}
        stack = [_build_like(t, it, [st[i] if i < len(st) else _NONE for _, st in like])
                 for i, t in enumerate(td_stack)]
    else:
        locals_ = {n: _build(t, it) for n, t in zip(names, td_locals)}
        stack = [_build(t, it) for t in td_stack]
    if like:
        in_place = in_place or {}
        locals_ = {n: same_object(v, [loc.get(n, _NONE) for loc, _ in like], in_place)
                   for n, v in locals_.items()}
        stack = [same_object(v, [st[i] if i < len(st) else _NONE for _, st in like], in_place)
                 for i, v in enumerate(stack)]
        _note_rebuilt(list(locals_.values()) + stack, like, whole or {})
    return locals_, stack


def _build_like(td, it, olds: list):
    """`_build`, or the very static data container (flatten_memo) that all
    `olds` are, when `td` is its treedef and it gets back the very same
    leaves: same_object would find it so, after walking a copy of it."""
    data = flatten_memo.unchanged_data(td, olds)
    if data is None:
        return _build(td, it)
    taken = tuple(itertools.islice(it, len(data.values)))
    if all(map(operator.is_, taken, data.values)):
        return data.value
    return _build(td, iter(taken))


def container_paths(locals_: dict, stack: list, whole=None) -> dict:
    """{id(list or dict): (it, the paths at which the state holds it)}, as
    `flatten` names them.  `whole`: {path: container} not to walk into
    (taken_whole: it holds no container a region changed)."""
    found: dict = {}
    whole = whole or {}
    work = [(locals_[n], n) for n in sorted(locals_)]
    work += [(v, f"<stack {i}>") for i, v in enumerate(stack)]
    # (numbers and strings hold no container: not pushed, nor their paths
    # made; a static table of a thousand numbers is walked at every merge)
    while work:
        value, path = work.pop()
        inside = None if whole else flatten_memo.containers_inside(value)
        if inside is not None:          # (static data: its lists and dicts are known)
            for rest, c in inside:
                found.setdefault(id(c), (c, set()))[1].add(path + rest)
        elif isinstance(value, tuple) and not hasattr(value, "_fields"):
            work.extend((v, f"{path}[{i}]") for i, v in enumerate(value) if type(v) not in _PLAIN)
        elif isinstance(value, list):
            found.setdefault(id(value), (value, set()))[1].add(path)
            if whole.get(path) is not value:
                work.extend((v, f"{path}[{i}]") for i, v in enumerate(value)
                            if type(v) not in _PLAIN)
        elif isinstance(value, dict) and has_static_keys(value):
            found.setdefault(id(value), (value, set()))[1].add(path)
            if whole.get(path) is not value:
                work.extend((v, f"{path}[{k!r}]") for k, v in value.items()
                            if type(v) not in _PLAIN)
        elif isinstance(value, SeqIter):
            work.append((value.items, f"{path}.items"))
        elif isinstance(value, ObjectNode):
            work.extend((v, f"{path}.{k}") for k, v in value.attrs.items())
    return found


def _note_rebuilt(values, like, whole: dict):
    """Records the lists and dicts that are new objects after the merge, so
    that mutating one is refused saying why (not as made outside).  Those
    taken whole, and all inside them, are the states' own."""
    from .builder import ctx
    olds = {id(v) for loc, st in like for v in list(loc.values()) + list(st)}
    for loc, st in like:
        olds.update(container_paths(loc, st, whole))    # nested ones kept as they were
    taken = {id(c) for c in whole.values()}
    work = list(values)
    while work:
        v = work.pop()
        if type(v) in (list, dict, tuple) and id(v) not in taken:
            if type(v) is not tuple:
                if id(v) in olds:       # (the states': container_paths found all in it)
                    continue
                ctx().merged_containers[id(v)] = v
            work.extend(x for x in (v.values() if type(v) is dict else v) if type(x) not in _PLAIN)
        elif type(v) is SeqIter:        # (a loop's rows: a copy there is no outside list)
            work.append(v.items)


_NONE = object()


def same_object(new, olds: list, in_place=None):
    """`new`, or the container every one of `olds` is when it holds the
    same items as `new` (recursively), or is in `in_place` (then it gets
    `new`'s items)."""
    in_place = in_place or {}
    first = olds[0] if olds else _NONE
    if type(first) is not type(new) or any(o is not first for o in olds):
        return new
    if new is first:                    # (a container taken whole: not walked again)
        return first
    if type(new) is ChosenValue:
        # (a choice rebuilt around the very position it held: that choice
        # again, so that a list holding it, `rows.append("a" if c else "b")`
        # twice, stays the list the program's names share)
        return first if new.position is first.position else new
    if type(new) is SeqIter:
        return _same_iterated_items(new, first, in_place)
    if type(new) in (list, tuple):
        if len(new) != len(first) and not _grown(new, first, in_place):
            return new
        kids = [same_object(n, [o], in_place) for n, o in zip(new, first)]
        kids += new[len(first):]
        if len(kids) == len(first) and all(k is o for k, o in zip(kids, first)):
            return first
        kept = _refill(first, enumerate(kids), in_place)
        return kept if kept is not None else type(new)(kids)
    if is_namedtuple(new):
        # (one rebuilt from the very same items is that value again: else a
        # list holding it, `l[0] = State(...)` in a loop, would look like a
        # new list after the merge)
        kids = [same_object(n, [o], in_place) for n, o in zip(new, first)]
        if all(k is o for k, o in zip(kids, first)):
            return first
        return tuple.__new__(type(new), kids)
    if _value_parts(new) is not None:           # a frozen dataclass: as a named tuple
        names = value_fields(new)
        kids = {k: same_object(getattr(new, k), [getattr(first, k)], in_place) for k in names}
        if all(kids[k] is getattr(first, k) for k in names):
            return first
        made = object.__new__(type(new))
        for k in names:
            object.__setattr__(made, k, kids[k])
        return made
    if isinstance(new, dict):
        return _same_dict(new, first, in_place)
    return new


def _same_dict(new: dict, first: dict, in_place: dict) -> dict:
    """same_object of a dict, or of a dict subclass (OrderedDict,
    defaultdict, Counter): a copy of one the program made before a runtime
    `if` would be a container from nowhere, so a later `if` rebinding its
    items would take it for one from outside (rebound after each call, its
    store lost, and each trace's copy another place to promote).  Items are
    read as dict's own: a defaultdict's or the user's __getitem__ may do
    more."""
    keys = dict_keys(new)
    if keys != dict_keys(first):
        return new
    kids = {k: same_object(dict.__getitem__(new, k), [dict.__getitem__(first, k)], in_place)
            for k in keys}
    if all(kids[k] is dict.__getitem__(first, k) for k in keys):
        return first
    kept = _refill(first, kids.items(), in_place)
    if kept is not None:
        return kept
    if type(new) is dict:
        return kids
    return dict_of_class(type(new), getattr(new, "default_factory", None), kids)


def _same_iterated_items(new: SeqIter, old: SeqIter, in_place: dict) -> SeqIter:
    """A loop's iterator over a list of lists or dicts (`for row in img:`)
    after a merge: its items are the very rows of that list again, not
    copies, so that `row[0] = v` in a later iteration writes into the
    caller's row (an argument's item, written back) and later reads of
    `img[k]` see it.  A copy would be a container from nowhere: its writes
    lost, and each trace's copy a new place to promote (scalar_state)."""
    items = same_object(new.items, [old.items], in_place)
    if items is new.items:
        return new
    return new.with_items(items)


def _grown(new, old, in_place: dict) -> bool:
    """Whether `new` is the list `old` after the region appended to it on
    every path (the same number of items: control.merge_arms), which the
    very same list gets (_refill appends them)."""
    return type(old) is list and id(old) in in_place and len(new) > len(old)


def _refill(container, items, in_place: dict):
    """`container` with `items` written into it, if it is one to keep."""
    serial = in_place.get(id(container))
    if serial is None:
        return None
    for k, v in items:
        if type(container) is list and k >= len(container) or container[k] is not v:
            set_item(container, k, v, serial)       # (past its end: an append)
    return container


def leaf_aval(v) -> AVal | None:
    """The aval a merge or loop carries `v` as; None where it cannot be a
    runtime value.  A number of a subclass (an IntEnum member, a user int
    class) is not one: carried as its number, it would come out a plain
    number (`st is S.RUN` false, no `st.name`)."""
    if isinstance(v, Array):
        return v.aval
    if type(v) in (bool, int, float, complex) or isinstance(v, np.generic):
        return const_aval(v)
    return None


def static_equal(a, b) -> bool:
    if a is b:
        return True
    if isinstance(a, Array) or isinstance(b, Array):
        return False
    if type(a) is not type(b) or _holds_array(a) or _holds_array(b):
        return False        # (its __eq__ would compare arrays: ops, no static answer)
    if type(a) is types.FunctionType:
        return _same_function(a, b)
    try:
        eq = a == b
        return bool(eq) if isinstance(eq, (bool, np.bool_)) else False
    except Exception:
        return False


def _same_function(a, b) -> bool:
    """Two functions a `def` or `lambda` made from one code with the same
    defaults, cells and no attributes of their own: interchangeable (a
    lambda made in each iteration of a loop; only `is` tells them apart)."""
    return (a.__code__ is b.__code__ and a.__globals__ is b.__globals__
            and not a.__dict__ and not b.__dict__
            and _same_cells(a.__closure__ or (), b.__closure__ or ())
            and static_equal(a.__defaults__, b.__defaults__)
            and static_equal(a.__kwdefaults__, b.__kwdefaults__))


def _same_cells(a: tuple, b: tuple) -> bool:
    """By identity: a cell's == compares what it holds (an Array: ops)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _holds_array(x, depth=0) -> bool:
    """Whether an object, or a container or object inside it, holds an Array
    (a dataclass instance made in the loop: `s = replace(s, x=...)`)."""
    if isinstance(x, Array):
        return True
    if depth > 4 or isinstance(x, (bool, int, float, complex, str, bytes, type(None), type)):
        return False
    if isinstance(x, (list, tuple)):
        items = x
    elif isinstance(x, dict):
        items = x.values()
    elif isinstance(x, (types.FunctionType, types.ModuleType, np.ndarray, np.generic)):
        return False
    else:
        items = instance_attributes(x).values()
    return any(_holds_array(v, depth + 1) for v in items)


def unify(path: str, avals: list[AVal], what: str, values=()) -> AVal:
    """The type of a runtime slot that takes each of `avals` on some path.
    `values`: those of them known (static numbers are checked to fit)."""
    shapes = {a.shape for a in avals}
    if len(shapes) > 1:
        raise MergeError(f"{merge_subject(path, what)} different shapes: "
                         + " and ".join(str(a) for a in avals),
                         hint=_shapes_hint(path, shapes))
    strong = {a.dtype for a in avals if not a.weak}
    if len(strong) > 1:
        raise MergeError(f"{merge_subject(path, what)} different dtypes: "
                         + " and ".join(str(a) for a in avals),
                         hint="cast with .astype(...) so every path gives the same dtype")
    dtype = merged_dtype(avals, values)
    weak = all(a.weak for a in avals)
    if weak:
        _refuse_unfit_python_ints(path, values, dtype, what)
    refuse_unfit_numbers(merge_subject(path, what), values, dtype)
    return AVal(dtype, avals[0].shape, weak)


def merged_dtype(avals, values=()) -> np.dtype:
    """The dtype of a value that is one of `avals`, chosen at run time (an
    `if`'s arms, a loop's iterations, max()'s items); `values`: those
    values, where known, one per aval.  A Python number merged with NumPy
    values takes their dtype (README), so the path that gives the NumPy
    scalar gives it unchanged; NumPy's promotion (NEP 50) would instead turn
    np.uint8(200) into np.float64(200.0) beside the Python float 2.5.  A
    number that dtype cannot hold is refused by refuse_unfit_numbers."""
    if _bools_and_bits(avals, values):
        return np.dtype(bool)
    strong = next((a for a in avals if not a.weak), None)
    if strong is not None and _numbers_adapt(strong, avals, values):
        return strong.dtype
    return result_type(*avals)


def _numbers_adapt(strong: AVal, avals, values) -> bool:
    """Whether the Python numbers beside NumPy values of `strong`'s dtype
    can take it, where NEP 50 would promote (a float beside integers, a
    complex beside floats): only numbers known at compile time, which
    refuse_unfit_numbers checks.  One known only at run time promotes as
    NumPy does (the values survive; the int case has its own runtime check:
    control.require_python_int_fits).  A NumPy bool beside ints other than
    0 and 1 promotes to int64 as NumPy does (README; _bools_and_bits)."""
    if len(values) != len(avals):
        return False
    for a, v in zip(avals, values):
        if not a.weak or result_type(strong, a) == strong.dtype:
            continue
        if type(v) not in (bool, int, float, complex):
            return False
        if strong.dtype == bool and type(v) is int:
            return False
    return True


def _refuse_unfit_python_ints(path: str, values, dtype: np.dtype, what: str) -> None:
    """Python numbers alone (`s = 0`, then `s += k` in a runtime loop): the
    int64 is tpucc's own form of a runtime Python int (README), not the
    dtype of NumPy values, so the message and the fix are about the number."""
    for v in values:
        if type(v) is int and dtype.kind in "iu" and not _holds_number(dtype, v):
            raise MergeError(
                f"{merge_subject(path, what)} the Python int {v!r}: a Python int that changes "
                f"at run time is an {dtype} in compiled code, which cannot hold it",
                hint=f"keep the number within int64, or make it a float: start "
                     f"{'it' if path.startswith('<stack') else pretty_path(path)} at 0.0, "
                     "or pass the number as a float (float(k))")


def _bools_and_bits(avals, values) -> bool:
    """NumPy bools merged with the Python ints 0 and 1 (`y = x[1] > 0` or
    `y = 0` on a runtime `if`) stay bools, by the rule of a Python number
    merged with a NumPy scalar (it takes the scalar's dtype) where the bool
    holds the numbers: NumPy's promotion (int64) would change the NumPy
    path's np.True_ too.  Another int, or one known only at run time, is
    merged as NumPy promotes it."""
    return (len(values) == len(avals) and any(not a.weak for a in avals)
            and all(a.dtype == bool or a.weak for a in avals)
            and all(isinstance(v, (Array, np.bool_)) and v.dtype == bool
                    or type(v) in (bool, int) and v in (0, 1) for v in values))


def refuse_unfit_numbers(subject: str, values, dtype: np.dtype) -> None:
    """A Python number merged with NumPy values takes their dtype (`lo = -1`,
    then `lo = x[i]` in a runtime loop: uint8 for a uint8 x).  A static one
    that dtype cannot hold (-1 as uint8, 10**6 as int16, 1e300 as float32)
    would wrap or become inf, and the program would compute with 255 where
    eager Python keeps -1: refused.  (A float rounded, 0.1 as float32, is
    the rule's documented price; a runtime int is checked at run time:
    control.require_python_int_fits.)"""
    for v in values:
        if type(v) in (bool, int, float, complex) and not _holds_number(dtype, v):
            raise MergeError(
                f"{subject} mixed types: the Python {type(v).__name__} "
                f"{v!r} and {dtype} values; compiled code gives it their dtype, {dtype}, which "
                f"cannot hold {v!r}", hint=_unfit_number_hint(dtype, v))


def _unfit_number_hint(dtype: np.dtype, v) -> str:
    wider = _wider_dtype(dtype, v)
    cast = f"cast the array to {wider} (x.astype(np.{wider}))"
    if dtype.kind in "iu" and type(v) in (bool, int):
        return (f"use a number {dtype} holds (np.iinfo(np.{dtype}).min or .max as a "
                f"sentinel), make the NumPy values Python ints (int(x[i])), or {cast}")
    if dtype.kind in "iu":      # a float sentinel (-inf) or a fraction beside integers
        return (f"use a whole number {dtype} holds (np.iinfo(np.{dtype}).min or .max as a "
                f"sentinel), make the NumPy values Python floats (float(x[i])), or {cast}")
    if dtype.kind == "b":
        return (f"use False or True, make the NumPy values Python numbers (float(...) or "
                f"int(...)), or {cast}")
    numbers = "complex numbers (complex(...))" if type(v) is complex else "floats (float(...))"
    return (f"use a number {dtype} holds (np.inf as a sentinel), make the NumPy values "
            f"Python {numbers}, or {cast}")


def _holds_number(dtype: np.dtype, v) -> bool:
    """Whether a Python number keeps its value as `dtype` (an integer dtype:
    a whole number in its range, 2.0 as 2; bool: 0 or 1; a float one: no
    overflow to inf, rounding allowed; a real one: no imaginary part)."""
    if type(v) is complex and dtype.kind != "c":
        if v.imag:
            return False
        v = v.real
    if dtype.kind == "b":
        return v in (0, 1)
    if type(v) is float and dtype.kind in "iu":
        if not v.is_integer():      # (a fraction, inf, nan)
            return False
        v = int(v)
    if dtype.kind in "iu":
        return type(v) is bool or isinstance(v, int) and \
            np.iinfo(dtype).min <= v <= np.iinfo(dtype).max
    if dtype.kind in "fc":
        try:
            with np.errstate(over="ignore"):
                return bool(np.isfinite(dtype.type(v))) or not np.isfinite(complex(v))
        except OverflowError:        # an int beyond any float
            return False
    return True


def _wider_dtype(dtype: np.dtype, v) -> str:
    """The dtype of the hint's cast: one that holds both `dtype` and `v`."""
    if type(v) is float and dtype.kind in "biu" or type(v) is complex and dtype.kind != "c":
        return np.result_type(dtype, v).name    # NumPy's own: float64 beside integers
    try:
        wider = np.promote_types(dtype, np.min_scalar_type(v))
    except TypeError:               # (an int beyond 64 bits: object)
        return "float64"
    return wider.name if wider.kind in "biufc" else "float64"


def _shapes_hint(path: str, shapes) -> str:
    if path.startswith("<stack") and () in shapes:
        # `w - (a if j > 0 else 0)`: NumPy broadcasts the number; a runtime
        # choice must have one shape. Often the condition is on the counter
        # of a loop that became one While (longer than the unroll budget).
        return ("write it `np.where(c, a, 0)`, which broadcasts the number as NumPy's "
                "arithmetic would, or as an `if` statement (`if j > 0: w = w - a`); a "
                "condition on a loop's counter is runtime where the loop runs as one "
                "While (longer than the unroll budget): unroll=N with N at least its trip "
                "count keeps it static")
    return (f"give {_slot_kind(path)} the same shape on every path "
            "(e.g. pad, or compute both and select with np.where)")


def pretty_path(path: str) -> str:
    """A state slot as messages name it."""
    return "the return value" if path == "<return>" else f"`{path}`"


def merge_subject(path: str, what: str) -> str:
    """A value on the interpreter's stack at a join is one an expression is
    still computing: `a if c else b`, `and` or `or` on a runtime condition."""
    if path.startswith("<stack"):
        return ("the arms of this `a if c else b` (or `and` / `or`) on a runtime condition "
                "give values of")
    return f"{what} give {pretty_path(path)}"


def _slot_kind(path: str) -> str:
    return "both arms" if path.startswith("<stack") else "the variable"


def describe_static(v) -> str:
    if isinstance(v, Undefined):
        return "undefined"
    if isinstance(v, Array):
        return f"an array {v.aval}"
    if isinstance(v, RuntimeText):
        return f"an f-string of runtime values ({str.__repr__(v)})"[:80]
    if isinstance(v, enum.Enum):
        return str(enum.Enum.__str__(v))       # S.RUN (an IntEnum's own str is its number)
    if isinstance(v, ChosenValue):
        return repr(v)
    from .chosen_functions import ChosenFunction, function_name
    if isinstance(v, ChosenFunction):
        return f"a function, {v!r}"
    if callable(v) and not isinstance(v, type) and (hasattr(v, "__code__")
                                                    or isinstance(v, np.ufunc)):
        return f"function {function_name(v)}"        # (lambdas differ by their lines)
    if is_plain_object(v):     # its repr would show the interpreter's arrays
        return f"a {type(v).__name__} object"
    return f"{type(v).__name__} {v!r}"[:60]


def is_plain_object(v) -> bool:
    """An instance of a user class (a dataclass, a model, a small value
    class with __slots__), not a number, string, function, class, module or
    namedtuple."""
    import types
    slotted = hasattr(type(v), "__slots__") and not isinstance(v, tuple)
    return ((hasattr(v, "__dict__") or slotted) and not isinstance(
        v, (type, types.FunctionType, types.MethodType, types.ModuleType, types.BuiltinFunctionType))
        and type(v).__module__ not in ("builtins", "numpy"))
