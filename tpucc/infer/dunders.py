"""Python's operator protocol on instances of user classes, interpreted.

`s * x`, `cfg == Cfg(1.0)`, `-v`, `abs(v)`, `str(act)` and f"{act}" call the
dunder methods of the operands' classes (__mul__/__rmul__, __eq__, __neg__,
__str__, ...).  Run natively, a user's method would read the object's
attributes with no guard, so a changed `self.v` ran the stale program.  Here
the user's methods are interpreted like any call (what they read is guarded,
what they compute on arrays is compiled), in the order Python tries them.
Operands of built-in and library classes only (numbers, arrays, tpucc's
Array) take the native path: `NATIVE`, and the caller applies the operator.
"""
from __future__ import annotations

import _string
import collections
import collections.abc
import operator
import re
import string

import numpy as np

from ..errors import StaticValueError, UnsupportedError, UserCodeError
from ..ir import AVal
from . import control
from .builder import emit
from .control import as_aval
from . import calls, chosen_values, held_ints, iterators, messages, optional_numbers, pynumbers
from .builtins_impl import holds_array, printed_text, refuse_runtime_text, to_python_scalar
from .calls import checked_number_result, class_attribute, is_library_class
from .iterators import SeqIter
from .values import Array, NeedsStatic
from ..ops import assign

NATIVE = object()       # no user method involved: apply the operator natively

# operator -> (method, reflected method, symbol in Python's TypeError)
BINARY = {
    operator.add: ("__add__", "__radd__", "+"), operator.sub: ("__sub__", "__rsub__", "-"),
    operator.mul: ("__mul__", "__rmul__", "*"), operator.matmul: ("__matmul__", "__rmatmul__", "@"),
    operator.truediv: ("__truediv__", "__rtruediv__", "/"),
    operator.floordiv: ("__floordiv__", "__rfloordiv__", "//"),
    operator.mod: ("__mod__", "__rmod__", "%"), operator.pow: ("__pow__", "__rpow__", "**"),
    operator.lshift: ("__lshift__", "__rlshift__", "<<"),
    operator.rshift: ("__rshift__", "__rrshift__", ">>"),
    operator.and_: ("__and__", "__rand__", "&"), operator.or_: ("__or__", "__ror__", "|"),
    operator.xor: ("__xor__", "__rxor__", "^"), divmod: ("__divmod__", "__rdivmod__", "divmod()"),
}
# in-place operator -> (its method, the binary operator it falls back to)
INPLACE = {
    operator.iadd: ("__iadd__", operator.add), operator.isub: ("__isub__", operator.sub),
    operator.imul: ("__imul__", operator.mul), operator.imatmul: ("__imatmul__", operator.matmul),
    operator.itruediv: ("__itruediv__", operator.truediv),
    operator.ifloordiv: ("__ifloordiv__", operator.floordiv),
    operator.imod: ("__imod__", operator.mod), operator.ipow: ("__ipow__", operator.pow),
    operator.ilshift: ("__ilshift__", operator.lshift),
    operator.irshift: ("__irshift__", operator.rshift),
    operator.iand: ("__iand__", operator.and_), operator.ior: ("__ior__", operator.or_),
    operator.ixor: ("__ixor__", operator.xor),
}
# comparison -> (method, the reflected comparison's method, symbol)
COMPARE = {
    operator.lt: ("__lt__", "__gt__", "<"), operator.le: ("__le__", "__ge__", "<="),
    operator.gt: ("__gt__", "__lt__", ">"), operator.ge: ("__ge__", "__le__", ">="),
    operator.eq: ("__eq__", "__eq__", "=="), operator.ne: ("__ne__", "__ne__", "!="),
}
# a comparison's method name -> the operator (tuple's and list's inherited ones)
_COMPARISON_OF = {names[0]: op for op, names in COMPARE.items()}
UNARY = {operator.neg: "__neg__", operator.pos: "__pos__", operator.invert: "__invert__",
         abs: "__abs__"}


# The BINARY_OP names whose native function wraps the operator (ops/elementwise's
# `%`, which refuses to format runtime values into text).
_WRAPPED = {"REMAINDER": operator.mod, "INPLACE_REMAINDER": operator.imod}


def apply(interp, op, *operands, native=None):
    """op(*operands) (a binary, in-place or unary operator, or a comparison)
    with the user's dunder methods interpreted; else `native` (op itself
    unless given) applied."""
    if chosen_values.first_choice(operands) is not None:    # `status == "ok"`: from a table
        return chosen_values.operate(op, operands, _symbol(op))
    if optional_numbers.first_optional(operands) is not None:  # `i == None` of a number or None
        return optional_numbers.operate(op, operands, _symbol(op))
    operands = _float64_taken_by_complex(op, operands)
    if all_library(operands) and not (
            type(operands[0]) in (str, tuple, list) and type(operands[-1]) in (tuple, list, dict)
            or type(operands[0]) is collections.deque is type(operands[-1]) and op in COMPARE
            or isinstance(operands[0], dict) and isinstance(operands[-1], dict)
            and op in (operator.eq, operator.ne)
            or type(operands[0]) is str and op in (operator.mod, operator.imod)):
        # (`fmt % (a, b)`, `fmt % {"k": a}`, `(a, 1) == (b, 1)` and `{"k": a} == {"k": b}`
        # may hold user objects or runtime values;
        # `fmt % x` of a runtime x is refused by _printf, whose hint knows a raise's message)
        # numbers, arrays: the common case (`grid == '#'` of a string array
        # made now gives a constant bool array)
        try:
            return calls.natively_made((native or op)(*operands))
        except NeedsStatic:
            _refuse_runtime_counts(op, operands)
            raise
    if len(operands) == 1:
        result = unary(interp, op, *operands) if op in UNARY else NATIVE
    elif op in COMPARE:
        result = compare(interp, op, *operands)
    else:
        result = binary(interp, op, *operands)
    return calls.natively_made((native or op)(*operands)) if result is NATIVE else result


# The operators of Python's complex that take any float, np.float64 too (a
# float subclass, not a complex one), before NumPy's reflected method is
# asked: `1j + x[0]` is a Python complex where `x[0] + 1j` is np.complex128.
# (np.float32 is no float: complex's method declines it, NumPy's runs.)
# An in-place operator falls back to the binary one: complex has none.
_COMPLEX_TAKES_FLOATS = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
    operator.eq, operator.ne, operator.iadd, operator.isub, operator.imul,
    operator.itruediv, operator.ipow})


def _float64_taken_by_complex(op, operands: tuple) -> tuple:
    """The operands of `op`, an np.float64 on the right of a Python complex
    made the Python float complex's operator reads it as: the result is then
    a Python complex (or bool), with Python's errors (`1j / x[0]` of a zero
    raises ZeroDivisionError)."""
    if op not in _COMPLEX_TAKES_FLOATS or not _is_python_complex(operands[0]):
        return operands
    left, right = operands
    if type(right) is np.float64:
        return left, float(right)
    if _is_numpy_scalar(right) and isinstance(right, Array) and right.dtype == np.float64:
        return left, to_python_scalar(right, np.float64)
    return operands


def _is_python_complex(x) -> bool:
    """A Python complex, known now or at run time (a weak complex scalar)."""
    if isinstance(x, Array):
        return x.weak and x.ndim == 0 and x.dtype.kind == "c"
    return type(x) is complex


def _refuse_runtime_counts(op, operands) -> None:
    """Counter arithmetic (`c + d`, `c - d`, `c | d`, `-c`) over runtime
    counts, run natively, asked whether a count is positive: the result
    keeps only the keys whose count is, which are known only at run time
    (the truth of a runtime number is not what the program wrote)."""
    counters = [v for v in operands if isinstance(v, collections.Counter)]
    if not counters or op in COMPARE:
        return
    names = ["Counter" if isinstance(v, collections.Counter) else type(v).__name__
             for v in operands]
    what = _symbol(op).replace("x", names[0]) if len(operands) == 1 else \
        f"{names[0]} {_symbol(op)} {names[1]}"
    extreme = {operator.or_: "max", operator.ior: "max", operator.and_: "min",
               operator.iand: "min"}.get(op)
    raise StaticValueError(
        f"`{what}` of runtime counts: the result keeps only the keys whose count is positive, "
        "and which keys those are depends on runtime values",
        hint="update one Counter, which keeps every key, zero and negative counts too: "
             + (f"`c[k] = {extreme}(c[k], d[k])` for each key k" if extreme else
                "`c.update(d)` or `c[k] += n` (`c.subtract(d)` for `-`)"))


def _symbol(op) -> str:
    """How the program wrote an operator (`+`, `+=`, `<`, `-x`)."""
    if op in INPLACE:
        return BINARY[INPLACE[op][1]][2] + "="
    if op in COMPARE or op in BINARY:
        return (COMPARE.get(op) or BINARY[op])[2]
    return _UNARY_SYMBOLS.get(op, getattr(op, "__name__", str(op)))


_UNARY_SYMBOLS = {operator.neg: "-x", operator.pos: "+x", operator.invert: "~x", abs: "abs()"}


def all_library(values) -> bool:
    try:
        return all(map(_LIBRARY_TYPE, map(type, values)))
    except TypeError:           # (a class whose metaclass makes it unhashable)
        return all(map(is_library_class, map(type, values)))


def operator_named(name: str, native):
    """The operator module's function for a BINARY_OP name, whose `native`
    implementation may wrap it."""
    return _WRAPPED.get(name, native)


_LIBRARY_TYPE = calls._is_library_class     # (cached; raises TypeError for an unhashable class)


def _user_method(interp, x, name: str) -> bool:
    """Whether x's class defines `name` in Python (object.__ne__ counts
    when the class defines __eq__: it calls that).  Asking guards the
    answer (Interpreter.user_dunder)."""
    if interp.user_dunder(x, name) is not None:
        return True
    return name == "__ne__" and _ne_is_not_eq(interp, x)


def _ne_is_not_eq(interp, x) -> bool:
    """Whether `x != y` is object.__ne__ calling a user __eq__."""
    return class_attribute(type(x), "__ne__") is object.__ne__ and \
        interp.user_dunder(x, "__eq__") is not None


def binary(interp, op, a, b):
    """`op(a, b)` for `a + b` and the other binary operators (in-place ones
    too), or NATIVE."""
    if op in (operator.mod, operator.imod) and isinstance(a, str):
        return _printf(interp, a, b)
    inplace = INPLACE.get(op)
    if inplace is not None:
        method, op = inplace
        if interp.user_dunder(a, method) is not None or _numpy_meets_object(interp, a, b):
            result = _call(interp, a, method, b)
            if result is not NotImplemented:
                return result
        elif not (_involves_user(interp, a, b, BINARY[op][:2])
                  or _python_method_takes_numpy_scalar(a, b)):     # (`m += x[0]`: as m + x[0])
            return NATIVE
    elif op not in BINARY or not (_involves_user(interp, a, b, BINARY[op][:2])
                                  or _numpy_meets_object(interp, a, b)
                                  or _numpy_meets_object(interp, b, a)):
        return NATIVE
    method, reflected, symbol = BINARY[op]
    a = _numpy_scalar_as_object(interp, a, b, method)
    result = _forward_then_reflected(interp, a, b, method, reflected, subclass_first=_overrides)
    if result is NotImplemented:
        raise UserCodeError(f"TypeError: unsupported operand type(s) for {symbol}: "
                            f"'{_python_type_name(a)}' and '{_python_type_name(b)}'")
    return result


def _python_type_name(x) -> str:
    """The name Python's TypeErrors give x's type (an ndarray's, not that of
    tpucc's stand-in for a runtime array; a runtime Python number's type)."""
    if pynumbers.is_python_number(x):
        return pynumbers.python_type(x).__name__
    if _is_numpy_scalar(x):
        return f"numpy.{x.dtype.name}"
    return "numpy.ndarray" if isinstance(x, Array) else type(x).__name__


def involves_user(value, depth: int = 3) -> bool:
    """Whether `value`, or an item of the tuples and lists it is (`depth`
    levels), is an instance of a user class: what Python's own comparisons
    and sorting would call the methods of."""
    if type(value) in (tuple, list):
        return depth > 0 and any(involves_user(v, depth - 1) for v in value)
    return not is_library_class(type(value))


def is_true(interp, value) -> bool:
    """The static truth of what an interpreted comparison gave."""
    truth = interp.truth_value(value)
    if isinstance(truth, Array):    # (sorting, min/max, `in`, filter, a tuple comparison)
        raise NeedsStatic("the truth value of an array")
    return bool(truth)


def _compared_as_sequences(interp, a, b, names) -> bool:
    """Whether Python compares a and b item by item: two tuples (named
    tuples too) or two lists, whose classes define no comparison of their own."""
    both = isinstance(a, tuple) and isinstance(b, tuple) or \
        isinstance(a, list) and isinstance(b, list) or \
        type(a) is collections.deque and type(b) is collections.deque
    return both and not _involves_user(interp, a, b, names)


def _compared_as_dicts(interp, a, b, names) -> bool:
    """Whether Python compares a and b as dicts, value by value: two
    dicts (subclasses too) whose classes define no comparison of their own."""
    return isinstance(a, dict) and isinstance(b, dict) and \
        not _involves_user(interp, a, b, names)


def _runtime_dicts(interp, op, a, b):
    """`a == b` / `a != b` of dicts holding runtime values or user objects,
    as Python compares them: the same length, every key of a in b, and each
    value of a the same object as b's or `==` it (a's on the left: its
    __eq__ interpreted), up to the first pair unequal at compile time.  A
    runtime Python bool where a runtime comparison decides.  (Natively, the
    values' __eq__ would run on tpucc's stand-ins for runtime arrays.)"""
    ordered = isinstance(a, collections.OrderedDict) and isinstance(b, collections.OrderedDict)
    if len(a) != len(b) or ordered and list(a) != list(b):
        return op is operator.ne
    hits = []
    for key in a:
        if not dict.__contains__(b, key):
            return op is operator.ne
        hits.append(_runtime_hit(interp, dict.__getitem__(a, key), dict.__getitem__(b, key)))
        if hits[-1] is False:
            return op is operator.ne
    runtime = [h for h in hits if isinstance(h, Array)]
    if not runtime:
        return op is operator.eq
    same = runtime[0]
    for h in runtime[1:]:
        same = emit("logical_and", same, h)
    if op is operator.ne:
        same = emit("logical_not", same)
    return to_python_scalar(same, np.bool_)


def _runtime_sequences(interp, op, a, b):
    """Tuples (or lists) holding runtime values compared as Python does:
    the first pair that is not the same object nor equal decides, else the
    lengths (== and != compare the lengths first); a runtime Python bool
    where a runtime comparison decides.  `<` returns what the deciding
    items' `<` gave: np.True_ for NumPy scalars, a Python bool for Python
    numbers, static items and the lengths (so even `(t[i], t[j]) < (t[k],
    t[l])` is a Python bool where every item ties); where either may
    decide, a held bool (held_ints.py) says at run time which one did."""
    if op in (operator.eq, operator.ne) and len(a) != len(b):
        return op is operator.ne
    result, python = op(len(a), len(b)), True
    for x, y, same in reversed(_pairs_compared(interp, a, b)):
        decided = (op is operator.ne) if op in (operator.eq, operator.ne) else \
            apply(interp, op, x, y)
        if same is False:
            result, python = decided, held_ints.python_truth(decided)
        else:
            result = emit("select", same, result, decided)
            python = _chosen_truth_type(same, python, held_ints.python_truth(decided))
    if not isinstance(result, Array):
        return result
    if isinstance(a, collections.deque):        # (deque's comparisons give a Python bool)
        return to_python_scalar(result, np.bool_)
    if python is True:
        return to_python_scalar(result, np.bool_)
    result = _numpy_bool(result)
    if python is not False:
        result.held_int = as_aval(python, held_ints.FLAG)
    return result


def _chosen_truth_type(same, if_same, otherwise):
    """Whether `select(same, a, b)` is a Python bool, given whether a and b
    are (held_ints.python_truth: static bools, or runtime bools)."""
    if type(if_same) is bool and type(otherwise) is bool:
        return if_same if if_same == otherwise else \
            same if if_same else emit("logical_not", same)
    return emit("select", same, if_same, otherwise)


def _numpy_bool(x: Array) -> Array:
    """A runtime truth value as a NumPy bool scalar (np.bool_, not bool)."""
    x = emit("reshape", x, shape=()) if x.shape else x
    scalar = Array(as_aval(x, AVal(np.dtype(np.bool_), (), False)))
    scalar.immutable = True         # a NumPy scalar, not a 0-d array
    return scalar


def _pairs_compared(interp, a, b) -> list:
    """The pairs of items Python's tuple comparison looks at past the equal
    ones, with whether they are equal (a runtime bool, or False): up to the
    first pair unequal at compile time, and not beyond it (("l1", w1) <
    ("l2", w2) never compares the arrays)."""
    pairs = []
    for x, y in zip(a, b):
        same = _runtime_hit(interp, x, y)
        if same is True:
            continue
        pairs.append((x, y, same))
        if same is False:
            break
    return pairs


def compare(interp, op, a, b):
    """`op(a, b)` for `a == b` and the other comparisons, or NATIVE."""
    method, reflected, symbol = COMPARE[op]
    if _compared_as_sequences(interp, a, b, (method, reflected)):
        if involves_user(a) or involves_user(b) or holds_array(a) or holds_array(b):
            return _runtime_sequences(interp, op, a, b)
        return NATIVE
    if op in (operator.eq, operator.ne) and _compared_as_dicts(interp, a, b, (method, reflected)):
        if any(involves_user(v) or holds_array(v) for d in (a, b) for v in d.values()):
            return _runtime_dicts(interp, op, a, b)
        return NATIVE
    if not (_involves_user(interp, a, b, (method, reflected))
            or _numpy_meets_object(interp, a, b) or _numpy_meets_object(interp, b, a)):
        return NATIVE
    a = _numpy_scalar_as_object(interp, a, b, method)
    result = _forward_then_reflected(interp, a, b, method, reflected,
                                     subclass_first=lambda ta, tb, name: True, same_type=True)
    if result is not NotImplemented:
        return result
    if op is operator.eq:           # Python's default: identity
        return a is b
    if op is operator.ne:
        return a is not b
    raise UserCodeError(f"TypeError: '{symbol}' not supported between instances of "
                        f"'{_python_type_name(a)}' and '{_python_type_name(b)}'")


def sequence_method(interp, items, name: str, item):
    """list.index(item), list.count(item) (and a tuple's) where a user
    object is involved: each item `is` it or `== it`, interpreted (at run
    time where an interpreted __eq__ answers at run time)."""
    return runtime_search(interp, name, item, items)


def runtime_search(interp, name: str, item, items, bounds=()):
    """`item in items` ("contains"), items.count(item) and items.index(item)
    for a list or tuple where the item or some items are runtime numbers:
    each item `is` it (statically) or `==` it, at run time, in order.  The answer is
    a runtime Python bool or int; index() of an item that no comparison
    finds raises ValueError when the call returns.  `bounds`: index()'s
    start and stop."""
    if any(isinstance(b, Array) for b in bounds):
        raise NeedsStatic("index()'s start or stop")
    kind = type(items).__name__         # ("... is not in deque", though sliced below)
    if bounds:
        window = slice(*bounds, None) if len(bounds) == 1 else slice(*bounds)
        offset, items = range(len(items))[window].start, list(items)[window]
    else:
        offset = 0
    hits = _hits(interp, item, items, to_first=name != "count")
    runtime = [(k, h) for k, h in enumerate(hits) if isinstance(h, Array)]
    static = [k for k, h in enumerate(hits) if not isinstance(h, Array) and h]
    if name == "count":
        total = len(static)
        for _, h in runtime:
            total = total + to_python_scalar(h, np.int64)
        return total
    if name == "contains":
        return _found(hits)
    first = static[0] if static else None
    candidates = [(k, h) for k, h in runtime if first is None or k < first]
    missing = f"ValueError: {_shown(interp, item)} is not in {kind}"
    if first is None:
        if not candidates:
            raise UserCodeError(missing)
        from . import checks
        checks.require(_any_of([h for _, h in candidates]), missing, raises="ValueError")
    position = emit("full", shape=(), dtype=np.dtype(np.int64), value=offset + (first or 0))
    for k, h in reversed(candidates):
        position = emit("select", h, np.int64(offset + k), position)
    return to_python_scalar(position, np.int64)


def _hits(interp, item, items, to_first: bool) -> list:
    """Whether each item matches `item` (a static bool or a runtime bool
    Array), in order; `to_first`: up to the first sure match, where Python
    stops."""
    hits = []
    for v in items:
        hits.append(_runtime_hit(interp, v, item))
        if hits[-1] is True and to_first:
            break
    return hits


def _found(hits: list):
    """Whether any hit matched: a static bool, or a runtime Python bool
    where only runtime hits may have."""
    runtime = [h for h in hits if isinstance(h, Array)]
    if any(h is True for h in hits) or not runtime:
        return any(h is True for h in hits)
    return to_python_scalar(_any_of(runtime), np.bool_)


def iterated_contains(interp, item, container):
    """`item in container` where its class has no __contains__ (a user
    __iter__ or __getitem__, a generator, iter(x), dict.values()): Python
    takes its items in turn until one `is` or `==` the item, and an
    iterator stands past that item afterwards (where a runtime comparison
    decides, only the run knows where: iterators.note_search)."""
    if isinstance(container, iterators.RangeIter):
        # (it does not record how far a search took it, as a SeqIter's Cursor does)
        raise UnsupportedError(
            "`in` on an iterator over a range or over an array's rows (iter(range(n)), zip or "
            "enumerate of arrays) is not supported",
            hint="search the range or array itself (`v in range(n)`, `v in x`), or a list of "
                 "the iterator's items (`v in list(zip(a, b))`)")
    if iterators.is_native_iterator(container):
        return _native_iterator_contains(interp, item, container)
    if not isinstance(container, SeqIter):
        return contains(interp, item, interp.static_items(container))
    it = iterators.where_now(container)
    hits = _hits(interp, item, it.items[it.pos:], to_first=True)
    iterators.note_search(it, len(hits), any(isinstance(h, Array) for h in hits))
    return _found(hits)


def _native_iterator_contains(interp, item, it):
    """`item in it` for a native iterator made by compiled code (a zip or
    map over runtime arrays): taken item by item, as Python's `in` advances
    it.  A runtime comparison would decide where it stops, and so where it
    stands after: refused there (it cannot stand where only the run knows)."""
    for v in it:
        hit = _runtime_hit(interp, v, item)
        if isinstance(hit, Array):
            raise StaticValueError(
                f"`in` on a {type(it).__name__} iterator whose items are compared at run time: "
                "where the search stops, and so where the iterator stands after it, would be "
                "known only at run time", hint="search a list of its items: `v in list(it)`")
        if hit:
            return True
    return False


def _shown(interp, item) -> str:
    """item as a message shows it: its repr (a user's __repr__ interpreted)
    where that is known at compile time."""
    shown = "the value" if isinstance(item, Array) else _repr(interp, item)
    return shown if isinstance(shown, str) else "the value"


def remove(interp, items: list, item):
    """items.remove(item) where the item or some items are runtime numbers:
    Python removes the first item equal to it.  Which one that is must be
    known at compile time, for it decides the list's items and length; a
    comparison known only at run time before the first sure match is
    refused, saying so (bool() of it would speak of an array's truth)."""
    for k, v in enumerate(items):
        hit = _runtime_hit(interp, v, item)
        if isinstance(hit, Array):
            raise _runtime_removal(interp, item, k)
        if hit:
            del items[k]
            return None
    raise UserCodeError("ValueError: list.remove(x): x not in list")


def _runtime_removal(interp, item, k: int) -> StaticValueError:
    """The refusal of list.remove(item) where whether item k equals it is
    known only at run time (a runtime number, or a user __eq__ comparing
    runtime values)."""
    if isinstance(item, Array):
        call = "list.remove() of a runtime value"
    elif involves_user(item) and class_attribute(type(item), "__repr__") is object.__repr__:
        call = f"list.remove() of a {type(item).__name__} object"   # (not its address)
    else:
        call = f"list.remove({_shown(interp, item)})"
    return StaticValueError(
        f"{call}: whether item {k} equals it depends on runtime values, so which item is "
        "removed, and the list's length after, would be known only at run time",
        hint="remove by a static position (del lst[i], lst.pop(i)); or keep the values in an "
             "array and mask them, e.g. np.where(x != v, x, 0) or a count with np.sum(x != v)")


def _runtime_hit(interp, v, item):
    """Whether list item `v` matches `item` as list.__contains__ asks: a
    static bool, or a runtime bool Array."""
    if v is item:
        return True
    eq = apply(interp, operator.eq, v, item)
    if isinstance(eq, np.ndarray) and eq.shape == ():
        eq = eq[()]
    if not isinstance(eq, (Array, bool, np.bool_)):
        eq = interp.truth_value(eq)     # what a user __eq__ returned: its __bool__
    if isinstance(eq, Array):
        if eq.size != 1:            # bool() of it, as an `if` would take
            raise control.ambiguous_truth(eq)
        return control.scalar_bool(eq)
    return bool(eq)


def _any_of(flags: list) -> Array:
    found = flags[0]
    for h in flags[1:]:
        found = emit("logical_or", found, h)
    return found


def contains(interp, item, items):
    """`item in items` for a list or tuple: each item `is` it or `== it`,
    the list's item on the left (list_contains); a runtime Python bool
    where an interpreted __eq__ answers at run time."""
    return runtime_search(interp, "contains", item, items)


class SortKey:
    """What sort_key wraps each key in."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def sort_key(interp):
    """A key for sorted(): Python's sort compares with `<` alone, so the
    user's __lt__ (or __gt__) interpreted for each comparison sorts the
    same way, in the same order of calls."""
    class Interpreted(SortKey):
        __slots__ = ()

        def __lt__(self, other):
            return is_true(interp, apply(interp, operator.lt, self.value, other.value))
    return Interpreted


def unary(interp, op, x):
    """`op(x)` for -x, +x, ~x and abs(x), or NATIVE."""
    method = interp.user_dunder(x, UNARY[op])
    return NATIVE if method is None else interp.inline(method, [x], {})


def text(interp, convert, x, *spec):
    """str(x), repr(x) or format(x, spec) of an instance of a user class
    defining __str__, __repr__ or __format__, or NATIVE.  object's own
    __format__ is str(), and its __str__ is repr()."""
    if convert is ascii:        # repr(x), its non-ASCII characters escaped
        shown = text(interp, repr, x)
        return shown if shown is NATIVE else messages.ascii_of(shown)
    if type(x) in (list, tuple, dict) and involves_user(x) \
            and not (convert is format and spec and spec[0]):
        return _container_repr(interp, x)   # what list.__repr__ does, its items' interpreted
    if is_library_class(type(x)):
        return NATIVE
    if convert is format:
        method = interp.user_dunder(x, "__format__")
        if method is not None:
            return interp.inline(method, [x, spec[0] if spec else ""], {})
        if spec and spec[0]:
            return NATIVE           # object.__format__ refuses a spec; let Python say so
        convert = str
    if convert is str:
        method = interp.user_dunder(x, "__str__")
        if method is not None:
            return interp.inline(method, [x], {})
        if class_attribute(type(x), "__str__") is not object.__str__:
            return NATIVE
        convert = repr
    if convert is repr:
        method = interp.user_dunder(x, "__repr__")
        if method is not None:
            return interp.inline(method, [x], {})
    return NATIVE


def _container_repr(interp, x) -> str:
    """repr (and str) of a list, tuple or dict holding user objects: the
    items' reprs interpreted, the rest as Python writes it."""
    item = lambda v: _repr(interp, v)      # noqa: E731
    if type(x) is dict:
        items = [[item(k), ": ", item(v)] for k, v in x.items()]
        opening, closing = "{", "}"
    else:
        items = [[item(v)] for v in x]
        opening, closing = ("[", "]") if type(x) is list else \
            ("(", ",)" if len(x) == 1 else ")")
    pieces = [piece for k, i in enumerate(items) for piece in ([", "] if k else []) + i]
    # (an item's repr printed at run time: a messages.RuntimeText)
    return messages.concatenated([opening, *pieces, closing])


def _repr(interp, v) -> str:
    result = text(interp, repr, v)
    return repr(v) if result is NATIVE else result


def str_format(interp, template: str, args, kwargs):
    """template.format(*args, **kwargs) where an argument is a user object
    (or holds one): its __format__, __str__ or __repr__ interpreted; or a
    runtime value: its text shown when print() runs (as an f-string's is);
    NATIVE for anything else, and for fields that nest fields in their
    spec (`{:{width}}`)."""
    values = (*args, *kwargs.values())
    runtime = any(map(_formatted_at_run_time, values))
    if not runtime and not any(map(involves_user, values)):
        return NATIVE
    _check_str_format(template, args, kwargs)
    pieces, auto = [], 0
    for literal, field, spec, conversion in string.Formatter().parse(template):
        pieces.append(literal)
        if field is None:
            continue
        if "{" in (spec or ""):
            if runtime:
                refuse_runtime_text(values, interp)
            return NATIVE
        first, rest = _string.formatter_field_name_split(field)
        if first == "":
            first, auto = auto, auto + 1
        value = args[first] if isinstance(first, int) else kwargs[first]
        for is_attribute, key in rest:      # `{0.shape}`, `{cfg[lr]}`
            value = interp.getattr(value, key) if is_attribute else interp.subscript(value, key)
        pieces.append(_formatted(interp, value, conversion, spec or ""))
    return messages.concatenated(pieces)


def _formatted(interp, value, conversion, spec):
    """format(value, spec) after `conversion` ("s", "r", "a" or None): a user
    object's methods interpreted; a RuntimeText for print() where the text
    holds runtime values."""
    if conversion and not _formatted_at_run_time(value):
        # the user's __str__ / __repr__ interpreted (a RuntimeText where it formats runtime values)
        convert = {"s": str, "r": repr, "a": ascii}[conversion]
        converted = text(interp, convert, value)
        value, conversion = convert(value) if converted is NATIVE else converted, None
    if _formatted_at_run_time(value):
        printed = printed_text(interp, value, conversion, spec)
        if printed is None:             # (not for print(), or a spec on a container)
            refuse_runtime_text((value,), interp)
        return printed
    formatted = text(interp, format, value, spec)
    return format(value, spec) if formatted is NATIVE else formatted


def _formatted_at_run_time(value) -> bool:
    return isinstance(value, (Array, messages.RuntimeText)) or holds_array(value)


class _StandIn:
    """A value of the program's tried in _check_str_format: any attribute,
    item and spec (what the program's value does with them is checked
    when its field is formatted)."""
    def __getattr__(self, name):
        return self

    def __getitem__(self, key):
        return self

    def __format__(self, spec):
        return ""


_STAND_IN = _StandIn()


def _check_str_format(template: str, args, kwargs):
    """Raises now what template.format raises eagerly for a missing field or
    mixed field numbering, trying it with stand-ins for the runtime values
    and user objects."""
    def stand_in(v):
        return _STAND_IN if _formatted_at_run_time(v) or involves_user(v) else v
    try:
        template.format(*map(stand_in, args), **{k: stand_in(v) for k, v in kwargs.items()})
    except (IndexError, KeyError, ValueError, TypeError, AttributeError) as e:
        raise UserCodeError(f"{type(e).__name__}: {e}") from None


# The methods int(), float() and complex() try, in order.
_NUMBER_METHODS = {int: ("__int__", "__index__"), float: ("__float__", "__index__"),
                   complex: ("__complex__", "__float__", "__index__")}


def conversion(interp, pytype, x):
    """bool(x), int(x), float(x) or complex(x) of an instance of a user
    class, by its interpreted __bool__ (or __len__), __int__, __float__,
    __complex__ or __index__; or NATIVE."""
    if is_library_class(type(x)):
        return NATIVE
    if pytype is bool:
        truth = interp.truth_value(x)
        return NATIVE if truth is x else truth
    if pytype == "index":           # what %x needs: operator.index
        method = interp.user_dunder(x, "__index__")
        return NATIVE if method is None else \
            checked_number_result(interp, "__index__", x, interp.inline(method, [x], {}))
    for name in _NUMBER_METHODS.get(pytype, ()):
        method = interp.user_dunder(x, name)        # (guarded: what the classes hold)
        if method is not None:
            value = checked_number_result(interp, name, x, interp.inline(method, [x], {}))
            if name == "__" + pytype.__name__ + "__":
                return value
            from .builtins_impl import BUILTINS
            return BUILTINS[pytype](interp, value)      # float(the int __index__ gave)
        if class_attribute(type(x), name) is not None:
            return NATIVE       # a built-in one Python calls first (an int subclass's __int__)
    return NATIVE


# One printf-style conversion: %[(key)][flags][width][.precision][length]type
_CONVERSION = re.compile(r"%(\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)")


def _printf(interp, template: str, values):
    """`template % values` with the user objects that %s, %r or %a format
    converted by their interpreted __str__ or __repr__ first (and formatted
    as the strings they gave); NATIVE when there are none, or for a mapping
    of values (`%(key)s`)."""
    mapping = type(values) is dict
    items = values if isinstance(values, tuple) else (values,)     # (a namedtuple too)
    refuse_runtime_text(values.values() if mapping else items, interp)
    if all(is_library_class(type(v)) for v in (values.values() if mapping else items)):
        return NATIVE
    if mapping:
        items = dict(values)
    else:
        items = list(items)
    pieces, k, end = [], 0, 0
    for match in _CONVERSION.finditer(template):
        key, width, precision, kind = match.groups()
        if kind == "%":
            continue
        if mapping != (key is not None):
            return NATIVE       # (mixed: Python raises the TypeError)
        if mapping:
            k = key[1:-1]
        else:
            k += (width == "*") + (precision == "*")    # a star takes a value too
        if (k in items if mapping else k < len(items)) and not is_library_class(type(items[k])):
            if kind in "sra":
                result = text(interp, str if kind == "s" else repr, items[k])
                if result is not NATIVE:
                    items[k] = ascii(result)[1:-1] if kind == "a" else result
                    pieces += [template[end:match.end() - 1], "s"]  # now formatted as a str
                    end = match.end()
            else:       # a number: %d and %i by __int__, %x by __index__, %f by __float__
                number = _PRINTF_NUMBERS.get(kind)
                result = NATIVE if number is None else conversion(interp, number, items[k])
                if result is not NATIVE:
                    items[k] = result
        if not mapping:
            k += 1
    pieces.append(template[end:])
    return "".join(pieces) % (items if mapping else tuple(items) if isinstance(values, tuple)
                              else items[0])


_PRINTF_NUMBERS = {**dict.fromkeys("diu", int), **dict.fromkeys("eEfFgG", float),
                   **dict.fromkeys("oxX", "index")}


def negation(interp, v):
    """`not v` (a runtime truth value: its logical not)."""
    v = interp.truth_value(v)
    if isinstance(v, Array):
        if v.size != 1:
            raise control.ambiguous_truth(v)
        # a Python bool, as `not` gives
        return to_python_scalar(emit("logical_not", control.scalar_bool(v)), np.bool_)
    return not v


def _involves_user(interp, a, b, names) -> bool:
    # (both asked: each answer is guarded)
    return _user_method(interp, a, names[0]) | _user_method(interp, b, names[1])


def _overrides(ta, tb, name) -> bool:
    """For binary operators Python tries b's reflected method first when
    type(b) is a subclass of type(a) that overrides it."""
    return class_attribute(tb, name) is not class_attribute(ta, name)


def _forward_then_reflected(interp, a, b, method, reflected, subclass_first, same_type=False):
    """Python's order: b's reflected method first where b's class is a
    subclass of a's (`subclass_first` says when), then a's method, then b's
    reflected one (for operands of one type only with `same_type`: the
    comparisons)."""
    ta, tb = _python_type(a), _python_type(b)
    first_reflected = ta is not tb and issubclass(tb, ta) and subclass_first(ta, tb, reflected)
    if first_reflected:
        result = _call(interp, b, reflected, a)
        if result is not NotImplemented:
            return result
    result = _call(interp, a, method, b)
    if result is not NotImplemented or first_reflected or (ta is tb and not same_type):
        return result
    return _call(interp, b, reflected, a)


def _python_type(x) -> type:
    """x's class as Python's operator protocol sees it: a runtime Python
    number's is int, float or complex (an IntFlag member's __rand__ goes
    first in `int(x) & F.B`, its class being a subclass of int)."""
    return pynumbers.python_type(x) if pynumbers.is_python_number(x) else type(x)


_ARRAY_PROTOCOLS = ("__array_ufunc__", "__array__", "__array_interface__", "__array_struct__")


def _call(interp, x, name, y):
    """x.name(y): the user's method interpreted, anyone else's run natively;
    NotImplemented where x's class lacks it."""
    method = interp.user_dunder(x, name)
    if method is not None:
        return interp.inline(method, [x, y], {})
    if name == "__ne__" and _ne_is_not_eq(interp, x):
        equal = _call(interp, x, "__eq__", y)       # what object.__ne__ does
        return equal if equal is NotImplemented else negation(interp, equal)
    if _inherited_sequence_comparison(x, name, y):
        # (a NamedTuple defining only __lt__: `a > b` is tuple.__gt__, item by
        # item, whose items may be runtime values a native call cannot compare)
        return _runtime_sequences(interp, _COMPARISON_OF[name], x, y)
    if _python_method_takes_numpy_scalar(x, y):
        # (NumPy's float64 is a float: float's own method computes `M(2.5) + x[0]`,
        # a Python float)
        return _call(interp, assign.item(y), _REFLECTED_OF[name], plain_number(x))
    if pynumbers.is_python_number(x):
        if not isinstance(y, _PYTHON_NUMBERS):
            return NotImplemented   # (int's, float's and complex's methods take numbers only)
        # (and read an instance of a subclass, an IntEnum member, as its plain number:
        # `int(x) == WD.SAT` is a Python bool, `int(x) + WD.SAT` an int)
        y = plain_number(y)
    elif _numpy_meets_object(interp, x, y):
        if _numpy_defers(interp, x, name, y):
            return NotImplemented
        if _is_numpy_scalar(x) and (name in _INPLACE_METHODS or not _numpy_converts(y)):
            # (NumPy scalars have no in-place methods; binary() and compare()
            # hand an object NumPy cannot convert x.item(), as NumPy does)
            return NotImplemented
        if _refuses_ufuncs(y) and name in _OPERATOR_UFUNCS:
            raise _no_ufuncs_error(y)   # (an in-place or reflected NumPy operator)
        if interp.user_dunder(y, "__array_ufunc__") is not None and name in _OPERATOR_UFUNCS:
            return _operator_ufunc(interp, x, name, y)
        y = array_operand(interp, y)
    native = getattr(x, name, None)
    if native is None and isinstance(x, Array) and name in _DIVMODS and \
            isinstance(y, _PYTHON_NUMBERS):
        # (tpucc's stand-in for a runtime value has no __divmod__: `//` and `%`,
        # as Python and np.divmod define it; `divmod(x[0], WD.SAT)`)
        return _DIVMODS[name](x, y)
    return NotImplemented if native is None else native(y)


_DIVMODS = {"__divmod__": lambda x, y: (x // y, x % y),
            "__rdivmod__": lambda x, y: (y // x, y % x)}


def _python_method_takes_numpy_scalar(x, y) -> bool:
    """Whether x is a number of a subclass of float or complex, whose
    methods take a runtime NumPy scalar y as a number: a float64 (a
    subclass of float), for complex a complex128 too.  (Not for an exact
    float: np.float64, its subclass, goes first.)"""
    if not isinstance(x, (float, complex)) or plain_number(x) is x or \
            not (isinstance(y, Array) and _is_numpy_scalar(y)):
        return False
    taken = (np.float64, np.complex128) if isinstance(x, complex) else (np.float64,)
    return y.dtype.type in taken


def _inherited_sequence_comparison(x, name: str, y) -> bool:
    """Whether x.name(y) is tuple's (or list's) own comparison of two
    sequences of that kind: item by item, as Python compares them."""
    if name not in _COMPARISON_OF:
        return False
    kind = tuple if isinstance(x, tuple) else list if isinstance(x, list) else None
    return kind is not None and isinstance(y, kind) and \
        class_attribute(type(x), name) is getattr(kind, name)


_NUMPY_OPERANDS = (Array, np.ndarray, np.generic)
_PYTHON_NUMBERS = (int, float, complex)
_REFLECTED = frozenset(names[1] for names in BINARY.values())
# a forward method -> the reflected one Python tries on the other operand
_REFLECTED_OF = {names[0]: names[1] for names in (*BINARY.values(), *COMPARE.values())}
_INPLACE_METHODS = frozenset(method for method, _ in INPLACE.values())
_NO_ATTRIBUTE = object()


def _is_numpy_scalar(x) -> bool:
    """Whether x is a NumPy scalar (np.float64(2.0), x[0], x.sum()), static
    or runtime, not a 0-d array nor a Python number."""
    return isinstance(x, np.generic) or isinstance(x, Array) and x.ndim == 0 and \
        not x.weak and x.immutable is True


def plain_number(y):
    """y, an instance of a subclass of int, float or complex (an IntEnum or
    IntFlag member, a user's `class Meters(float)`), as the number it holds,
    of the exact built-in type: what Python's own int, float and complex
    methods compute with (weak to NumPy, as any Python number).  Anything
    else as it is."""
    for base in _PYTHON_NUMBERS:
        if isinstance(y, base) and type(y) is not base and not isinstance(y, (bool, np.generic)):
            return _PLAIN[base](y)
    return y


# (the base class's own conversions: int(y) would call a subclass's __int__)
_PLAIN = {int: int.__index__, float: float.__float__, complex: complex.__complex__}


def _numpy_converts(y) -> bool:
    """Whether NumPy's operator methods convert y as an operand: an array-like,
    or a Python number, of a subclass too (NumPy reads an IntEnum member as the
    int it is, an int64, and ignores the subclass's own methods)."""
    return isinstance(y, _PYTHON_NUMBERS) or _array_like(y)


def _array_like(y) -> bool:
    """Whether NumPy can convert y as an array through a protocol its class
    defines (`__array_ufunc__ = None` opts out of them)."""
    return any(class_attribute(type(y), name) is not None for name in _ARRAY_PROTOCOLS)


def _refuses_ufuncs(y) -> bool:
    return class_attribute(type(y), "__array_ufunc__", _NO_ATTRIBUTE) is None


def _no_ufuncs_error(y) -> UserCodeError:
    return UserCodeError(f"TypeError: operand '{type(y).__name__}' does not support ufuncs "
                         "(__array_ufunc__=None)")


def _numpy_scalar_as_object(interp, x, y, name: str):
    """What NumPy's operator method `name` of a NumPy scalar x operates
    with when y is an object it can neither convert (no array protocol) nor
    defer to: NumPy computes in an object array, whose loop applies
    Python's operator to x.item() and y, so y's reflected method is given a
    Python number (`s * v` is v.__rmul__(float(s)): v's float32 data stays
    float32).  Else x itself."""
    if not _is_numpy_scalar(x) or isinstance(y, _PYTHON_NUMBERS) or \
            not _numpy_meets_object(interp, x, y):
        return x
    if _numpy_defers(interp, x, name, y) or _array_like(y):
        return x
    return x.item() if isinstance(x, np.generic) else assign.item(x)


def _numpy_meets_object(interp, x, y) -> bool:
    """Whether x is a NumPy array or scalar and y an instance of a user
    class: NumPy's operator methods then follow its own rules about y
    (_numpy_defers, array_operand), which running them natively on tpucc's
    stand-in for x would skip."""
    if not isinstance(x, _NUMPY_OPERANDS) or is_library_class(type(y)):
        return False
    for name in ("__array_ufunc__", "__array_priority__", "__array__"):
        interp.guard_lookup(type(y), name)      # (what NumPy's rules below ask)
    return True


# NumPy's operator methods are its ufuncs: x.__add__(y) is np.add(x, y),
# x.__radd__(y) np.add(y, x), x.__iadd__(y) np.add(x, y, out=(x,)).
_OPERATOR_UFUNCS = {}
for _ufunc, _names in ((np.add, "add"), (np.subtract, "sub"), (np.multiply, "mul"),
                       (np.matmul, "matmul"), (np.true_divide, "truediv"),
                       (np.floor_divide, "floordiv"), (np.remainder, "mod"), (np.power, "pow"),
                       (np.left_shift, "lshift"), (np.right_shift, "rshift"),
                       (np.bitwise_and, "and"), (np.bitwise_or, "or"),
                       (np.bitwise_xor, "xor"), (np.divmod, "divmod")):
    _OPERATOR_UFUNCS.update({f"__{_names}__": (_ufunc, "forward"),
                             f"__r{_names}__": (_ufunc, "reflected"),
                             f"__i{_names}__": (_ufunc, "inplace")})
for _ufunc, _name in ((np.less, "lt"), (np.less_equal, "le"), (np.greater, "gt"),
                      (np.greater_equal, "ge"), (np.equal, "eq"), (np.not_equal, "ne")):
    _OPERATOR_UFUNCS[f"__{_name}__"] = (_ufunc, "forward")


def _operator_ufunc(interp, x, name, y):
    """x.name(y), NumPy's operator method, as the ufunc it calls: handed to
    y's __array_ufunc__ (interpreted; not deferred to y's own reflected
    method: NumPy leaves that to classes without __array_ufunc__)."""
    ufunc, kind = _OPERATOR_UFUNCS[name]
    if kind == "reflected":
        return array_ufunc(interp, ufunc, (y, x), {})
    return array_ufunc(interp, ufunc, (x, y), {"out": (x,)} if kind == "inplace" else {})


def _numpy_defers(interp, x, name, y) -> bool:
    """Whether NumPy's operator method x.name(y) returns NotImplemented, so
    that Python calls y's reflected method (NumPy's binop_should_defer): for
    a forward operator where y's class says `__array_ufunc__ = None`, or has
    no __array_ufunc__ but a higher __array_priority__ than x (the legacy
    rule dual-number and unit classes rely on; in-place operators too).
    Reflected operators never defer, nor does an in-place one to
    `__array_ufunc__ = None`: they call the ufunc, which raises."""
    if name in _REFLECTED:
        return False
    ufunc = class_attribute(type(y), "__array_ufunc__", _NO_ATTRIBUTE)
    if ufunc is not _NO_ATTRIBUTE:
        return ufunc is None and name not in _INPLACE_METHODS
    if isinstance(y, type(x)):
        return False
    return _array_priority(y, default=-1e6) > _array_priority(x, default=0.0)


def _array_priority(x, default: float) -> float:
    """x's __array_priority__ as NumPy reads it: an ndarray's is 0, a NumPy
    scalar's -1e6, an object's without one `default`."""
    if _is_numpy_scalar(x):
        return -1e6
    if isinstance(x, Array) or type(x) is np.ndarray:
        return 0.0
    priority = class_attribute(type(x), "__array_priority__", default)
    return float(priority) if isinstance(priority, (int, float)) else default


# --- NumPy's array protocols on user objects -------------------------------------
# NumPy converts an argument it needs as an array with its class's __array__,
# and lets a class's __array_ufunc__ take over a ufunc call.  Run natively,
# these would hand NumPy tpucc's stand-in for a runtime array: they are
# interpreted here, as the Python methods they are.

def array_ufunc(interp, ufunc, args, kwargs, method: str = "__call__"):
    """ufunc(*args, **kwargs), or its `method` (np.add.reduce(...)), given
    to the __array_ufunc__ of the user objects among its inputs and outputs,
    in NumPy's order (left to right, each class once) until one answers
    other than NotImplemented; NATIVE where none defines it in Python."""
    args, kwargs = _ufunc_method_arguments(ufunc, method, args, kwargs)
    outs = kwargs.get("out", ())
    operands = [*args, *(outs if isinstance(outs, tuple) else (outs,))]
    seen, results = set(), []
    for x in operands:
        override = interp.user_dunder(x, "__array_ufunc__")
        if override is None or type(x) in seen:
            continue
        seen.add(type(x))
        result = interp.inline(override, [x, ufunc, method, *args], dict(kwargs))
        if result is not NotImplemented:
            return result
        results.append(type(x).__name__)
    if not results:
        return NATIVE
    raise UserCodeError(f"TypeError: operand type(s) all returned NotImplemented from "
                        f"__array_ufunc__({ufunc!r}, {method!r}, ...): "
                        + ", ".join(f"'{name}'" for name in results))


# ufunc method -> (how many of its positional arguments are inputs, the names
# of the others): NumPy hands __array_ufunc__ the others as keywords, out= as
# a tuple and never out=None.  (outer and at take only inputs.)
_UFUNC_METHOD_PARAMETERS = {
    "reduce": (1, ("axis", "dtype", "out", "keepdims", "initial", "where")),
    "accumulate": (1, ("axis", "dtype", "out")),
    "reduceat": (2, ("axis", "dtype", "out")),
}


def _ufunc_method_arguments(ufunc, method: str, args, kwargs):
    """The inputs and keywords NumPy gives __array_ufunc__ for
    ufunc.method(*args, **kwargs)."""
    if method == "__call__":        # np.add(a, b, o): the outputs after the inputs
        n_inputs, outs = ufunc.nin, tuple(args[ufunc.nin:])
        kwargs = {**kwargs, "out": outs} if outs else dict(kwargs)
    elif method in _UFUNC_METHOD_PARAMETERS:
        n_inputs, names = _UFUNC_METHOD_PARAMETERS[method]
        kwargs = {**dict(zip(names, args[n_inputs:])), **kwargs}
    else:
        n_inputs = len(args)
    if kwargs.get("out", ()) is None:
        del kwargs["out"]
    elif "out" in kwargs and not isinstance(kwargs["out"], tuple):
        kwargs["out"] = (kwargs["out"],)
    return list(args[:n_inputs]), kwargs


_UFUNC_REDUCTIONS = (np.sum, np.prod, np.max, np.amax, np.min, np.amin, np.any, np.all)


def arrays_of(interp, fn, args, kwargs):
    """The arguments of a NumPy function with the user objects whose class
    defines __array__ in Python replaced by the array it returns (NumPy
    converts them so, and an array it does not copy is the same array)."""
    name = f"np.{getattr(fn, '__name__', fn)}"

    def converted(x):
        if type(x) in (list, tuple):        # np.stack([A(x), A(y)]): each item's __array__
            return _items_as_arrays(interp, x)
        if isinstance(x, Array) or is_library_class(type(x)):
            return x
        if _refuses_ufuncs(x) and (
                isinstance(fn, np.ufunc) or any(fn is f for f in _UFUNC_REDUCTIONS)):
            # (NumPy's way for a class to opt out of ufuncs, `ndarray * v`
            # then calling v.__rmul__; its sum/max/... are ufunc reductions)
            raise _no_ufuncs_error(x)
        if not isinstance(fn, np.ufunc) and \
                interp.user_dunder(x, "__array_function__") is not None:
            raise UnsupportedError(
                f"{name}() of a {type(x).__name__} object: its class's __array_function__ "
                "is not run by compiled code", hint=f"call {name} on the arrays the object "
                                                    "holds (or return them from __array__)")
        return array_like(interp, x)
    return [converted(x) for x in args], {k: converted(v) for k, v in kwargs.items()}


def array_like(interp, x):
    """x as NumPy reads an array-like: the array a user class's Python
    __array__ returns (interpreted); else, for an object of a user class
    with __len__ and __getitem__ (a sequence to NumPy, not a mapping), the
    list of its items, each read so in turn (NumPy's sequence protocol:
    np.array(Point(x, y))); else x itself.  (Natively NumPy would call
    those methods on tpucc's stand-ins for runtime values.)"""
    if type(x) in (list, tuple):
        return _items_as_arrays(interp, x)
    if isinstance(x, Array) or is_library_class(type(x)):
        return x
    out = array_operand(interp, x)
    if out is not x or isinstance(x, (dict, str, bytes)) or not (
            class_attribute(type(x), "__len__") is not None
            and interp.user_dunder(x, "__getitem__") is not None):
        return out
    return [array_like(interp, v) for v in interp.static_items(x)]


def _items_as_arrays(interp, items):
    """A list or tuple of array-likes, each read as array_like does: the
    same container where none is a user object."""
    converted = [array_like(interp, v) for v in items]
    if all(c is v for c, v in zip(converted, items)):
        return items
    return type(items)(converted)


def array_operand(interp, x):
    """x as NumPy converts an operand: the array a user class's Python
    __array__ returns (interpreted), the array of its items where the class
    is a sequence (_sequence_as_array), else x itself."""
    method = interp.user_dunder(x, "__array__")
    if method is None:
        return _sequence_as_array(interp, x)
    out = interp.inline(method, [x], {})
    if not isinstance(out, (Array, np.ndarray)):
        raise UserCodeError("ValueError: object __array__ method not producing an array")
    return out


def _sequence_as_array(interp, x):
    """An instance of a user class defining both __len__ and __getitem__ (a
    transition model's rows, `p @ chain`) as NumPy converts it: it is a
    sequence to NumPy, made into the array of list(x) (its __iter__, else
    x[0], x[1], ... until IndexError), each item converted alike.  Read by
    interpreting those methods, so the arrays they return stay runtime
    inputs.  Without __len__, or for a mapping, NumPy makes an object
    array, which compiled code refuses (values.to_value)."""
    if isinstance(x, (Array, collections.abc.Mapping)) or \
            interp.user_dunder(x, "__getitem__") is None or \
            interp.user_dunder(x, "__len__") is None:
        return x
    items = [array_operand(interp, v) for v in interp.static_items(x)]
    return interp.call(np.asarray, [items], {})
