"""The interpreter's view of the Python heap: globals, attributes, items,
calls.  Whole-program: user functions, methods, classes, closures and
generators are inlined (their bytecode is interpreted in a new Frame);
NumPy functions map to registry implementations; any other call whose
arguments are all static is evaluated at compile time.

Arrays found through globals, closures or attributes become runtime inputs
of the module (`capture`), re-read at every call.  Static values read from
globals are guarded: a changed global recompiles.
"""
from __future__ import annotations

import builtins
import array
import collections
import ast
import dataclasses
import enum
import functools
import gc
import inspect
import itertools
import math
import operator
import random
import re
import reprlib
import sys
import types
import weakref

import numpy as np

from .. import autodiff
from ..autodiff import GradFunction
from ..errors import (LimitError, MergeError, ShapeError, SideEffectError, StaticValueError,
                      TpuccError, UnsupportedError, UserCodeError)
from ..ir import AVal, Value
from ..ops import indexing, manipulation, masked, matrix, ufuncs
from ..ops.assign import FlatIter
from ..ops.registry import METHODS, NUMPY, WRITES_OUT_METHODS, const_aval, writes_out
from . import buffers, builder, float_errors, held_ints, optional_numbers
from .builtins_impl import (BUILTINS, pulled_lazily, READ_ONCE, REFUSED, getter_call, holds_array,
                            method_caller_call, python_sample, refuse_host_call, refuse_read_once,
                            refuse_runtime_hash)
from . import (appends, chosen_functions, chosen_keys, chosen_members, chosen_values, exceptions,
               generator_folds, generator_runs, held_tables, interpreted, iterators,
               library_signatures, list_loops, local_caches, messages, picked_copies, picked_rows,
               popped_queues, pynumbers, recursion, stacking, static_arguments, vectorize)
from .contents import BY_VALUE, SAME, ContentsGuardView
from .exceptions import CONTEXTMANAGER_CALL, GeneratorManager, SteppedExit, TracedExit
from .iterators import (ENDLESS, MAX_NATIVE_ITEMS, NativeSteps, RaisingTail, RangeIter, caught_up,
                        ReturningTail, SeqIter, consumed, counting_range, held_iterator,
                        is_native_iterator, loop_iterator, note_outside_iterator,
                        refuse_outside_iterator)
from .state import (dict_of_class, held_value_hint, is_namedtuple, is_value_dataclass,
                    merged_dtype, refuse_unfit_numbers, stored_value_arrays, value_fields)
from .scalar_state import (ScalarState, StaticInRegion, attr_key, cell_key, class_attr_key,
                           global_key, is_promotable, is_python_number, outside_item_key)
from .values import (CHOSEN, MISSING, Array, NeedsStatic, RuntimeKind, check_runtime_dtype,
                     check_runtime_size, frozen_kind, known_constant, known_integer,
                     native_item, native_method, refuse_array_subclass, runtime_date_refusal,
                     journal_contents, scalar_if_numpy_would, set_item)

MAX_INLINE_DEPTH = 100
# The frames of comprehensions and generator expressions between them are
# not counted as calls (`1 + max(depth(c) for c in node)`), up to this many
# frames in all (the compiler's own Python stack).
MAX_FRAME_DEPTH = 2 * MAX_INLINE_DEPTH
_COMPREHENSIONS = frozenset({"<genexpr>", "<listcomp>", "<setcomp>", "<dictcomp>"})
# Containers guarded inside one value handed to native code (guard_contents_deeply).
MAX_DEEP_GUARDS = 1000
_MISSING = object()
_ARRAY_TYPES = (np.ndarray, np.generic)
MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
            "update", "setdefault", "popitem", "add", "discard", "__setitem__", "__delitem__",
            "appendleft", "extendleft", "popleft", "rotate"}     # (the last: a deque's)


def _held_native(v) -> bool:
    """A native iterator of Python's or itertools' (a held map, zip,
    filter, islice the program made); not an endless one, which a loop
    reads one item at a time (iterators.NativeSteps)."""
    return is_native_iterator(v) and type(v).__module__ in ("builtins", "itertools") \
        and type(v) not in ENDLESS


def _refusal_kept(generator, refusal: UnsupportedError):
    """A generator (a user __iter__) run natively because compiling it was
    refused (`yield` in a runtime loop): where the native run reads a
    runtime value (int() of an array), the refusal, which names the line
    and a way out, is the reason it cannot compile, not that read."""
    try:
        return (yield from generator)
    except NeedsStatic:
        raise refusal from None


def native_items(v) -> tuple:
    """The items of a native iterable, read now.  An item holding an
    iterator that reads from the same source (itertools.groupby's groups) is
    read before the next item, as a loop taking the groups in turn reads
    them."""
    out = []
    try:
        for item in _deciding_natively(v):
            if len(out) == MAX_NATIVE_ITEMS:
                raise LimitError(f"an iterable of {type(v).__name__} gave more than "
                                 f"{MAX_NATIVE_ITEMS} items at compile time (an endless one?)",
                                 hint="bound it: zip it with a list, or use itertools.islice")
            if type(item) is tuple and any(is_native_iterator(x) for x in item):
                item = tuple(held_iterator(native_items(x)) if is_native_iterator(x) else x
                             for x in item)
            out.append(item)
    except UserCodeError as e:
        # the program's exception while an item was made (map's function, a
        # generator under islice): where the consumer gets past the items before
        if e.level == exceptions.ESCAPED_RUNTIME_REGION:
            raise
        return RaisingTail(out, e)
    return tuple(out)


# The iterators a program made whose own iterators are what it reads
_NATIVE_NAMES = {"_grouper": "groupby"}       # (a group of itertools.groupby)


def _deciding_natively(v):
    """Iterates native iterator `v` (itertools.takewhile, groupby,
    compress, filter) while compiling: where it asks a runtime value
    whether to give an item (the truth of `pred(v)`, of a selector, of `k ==
    last_key`), which items it gives, and how many, is known only at run
    time: said so, not the truth test no line of the program wrote."""
    try:
        yield from v
    except NeedsStatic:
        name = _NATIVE_NAMES.get(type(v).__qualname__, type(v).__qualname__)
        if type(v).__module__ != "builtins":
            name = f"{type(v).__module__}.{name}"
        raise StaticValueError(
            f"{name}() over runtime values: which items it gives, and how many, would be "
            "known only at run time (it tests runtime values to decide)",
            hint="keep the values in an array and work with a mask of the items it would "
                 "give (`np.where(mask, x, 0).sum()`), or loop over them yourself, adding up "
                 "as you go (a runtime `break` or `if` in a `for` loop compiles)") from None


class WithExit:
    """What BEFORE_WITH leaves for the end of a `with` block: calling it
    (with None, None, None) runs the context manager's __exit__ now, once
    (each arm of a runtime `if` inside the block calls it).  Only
    compile-time managers get here (np.errstate, nullcontext), so all are alike: equal,
    a runtime loop around a `with` does not see a value that changes."""
    __slots__ = ("manager", "done")

    def __init__(self, manager):
        self.manager, self.done = manager, False

    def exit(self, *args):
        if not self.done:
            self.done = True
            if isinstance(self.manager, np.errstate):
                float_errors.leave()
            self.manager.__exit__(*args)

    def __eq__(self, other):
        return isinstance(other, WithExit)

    def __hash__(self):
        return hash(WithExit)


class BoundArrayMethod:
    """`x.sum` before it is called."""
    __slots__ = ("array", "name")

    def __init__(self, array, name):
        self.array, self.name = array, name


class InterpretedCallback:
    """A callable of the program's handed to a library function that calls
    it back (itertools.accumulate's func, groupby's key): the library gets
    this instead, so each call it makes is interpreted as the program's own
    call would be (the library holds tpucc's stand-ins for runtime values,
    which only the interpreter can use: `a.sum()`, np.maximum(a, b))."""
    __slots__ = ("interp", "fn")

    def __init__(self, interp, fn):
        self.interp, self.fn = interp, fn

    def __call__(self, *args, **kwargs):
        return self.interp.call(self.fn, list(args), kwargs)


# Library functions and iterators that call the callables they are given.
_CALLS_BACK = frozenset({itertools.accumulate, itertools.starmap, itertools.groupby,
                         itertools.takewhile, itertools.dropwhile, itertools.filterfalse,
                         functools.cmp_to_key})


def _numpy_operand_wins(op, b) -> bool:
    """Whether `lst += b` / `lst *= b` is NumPy's add or multiply of the list
    and `b`, a new array (the list unchanged): b an array (of any
    shape) or a NumPy scalar, whose reflected operator Python tries before
    the list's in-place concatenation; but not `lst *= k` of a NumPy
    integer scalar, which NumPy leaves to the list's repeat."""
    if not isinstance(b, Array):
        return False
    return op is operator.iadd or b.ndim > 0 or b.immutable is not True \
        or b.dtype.kind not in "iu"


def _callbacks_interpreted(interp, fn, args, kwargs):
    """args and kwargs for a call of `fn`, with the callables that a
    library function of _CALLS_BACK calls back wrapped to be interpreted,
    and for any other library function, the functions made by compiled
    code that read its variables (_closes_over_compiled_frame)."""
    if _hashable(fn) and fn in _CALLS_BACK:
        wrap = lambda v: InterpretedCallback(interp, v) if callable(v) else v  # noqa: E731
    else:
        wrap = lambda v: _interpreted_function(interp, v) \
            if _closes_over_compiled_frame(v) else v  # noqa: E731
    return [wrap(a) for a in args], {k: wrap(v) for k, v in kwargs.items()}


def _python_stand_in(v):
    """A static value of a runtime one's eager Python type, for a library
    call that is to raise its own TypeError (library_signatures)."""
    return python_sample(v) if isinstance(v, Array) else v


def _closes_over_compiled_frame(v) -> bool:
    """Whether v is a function whose closure holds a variable of a frame
    compiled code runs (an OwnedCell, where that frame keeps it): run
    natively (re.sub's repl), it would read the OwnedCell, not the value."""
    return isinstance(v, types.FunctionType) and \
        any(isinstance(_cell_contents(c), OwnedCell) for c in v.__closure__ or ())


def _interpreted_function(interp, fn):
    """A function for native code to call back in place of `fn`, each call
    interpreted; with fn's name, signature and docstring (update_wrapper)."""
    def interpreted(*args, **kwargs):
        return interp.call(fn, list(args), kwargs)
    return functools.update_wrapper(interpreted, fn)


class ListGuardView:
    """A list seen through `.get(index, default)`, the one method guards use
    (globals and attribute guards check a dict)."""
    __slots__ = ("items",)

    def __init__(self, items: list):
        self.items = items

    def get(self, index, default=None):
        return self.items[index] if -len(self.items) <= index < len(self.items) else default


def _instance_holds(obj, name) -> bool:
    """Whether obj itself holds attribute `name`: in its __dict__, or in a
    slot its class declares (a class with __slots__ under a base without
    them has both)."""
    if name in vars(obj):
        return True
    for klass in type(obj).__mro__:
        if name in vars(klass):
            return isinstance(vars(klass)[name], types.MemberDescriptorType)
    return False


class SlotGuardView:
    """An object seen through getattr as `.get(name, default)`, as guards
    read namespaces: the attributes an object with __slots__ holds (it has
    no __dict__), an object's __class__, a function's __code__ and
    __defaults__."""
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def get(self, name, default=None):
        try:
            return getattr(self.obj, name)
        except AttributeError:      # unset (or deleted)
            return default


class IdentitiesGuardView:
    """One attribute of many objects (the `__class__` of every layer, the
    `__code__` of every function called), each compared by identity with
    what the trace read, as one guard: `.get(attr)` answers SAME while all
    hold.  The loop runs in C: 40 layers' classes cost about 1 us a call,
    against 4 us as 40 guards.  (tpucc.snapshot records one guard per
    object, made again as SlotGuardViews.)"""
    __slots__ = ("attr", "objects", "expected", "_read")

    def __init__(self, attr: str):
        self.attr, self.objects, self.expected = attr, [], []
        # (type(obj) is what obj.__class__ gives, without an attribute lookup)
        self._read = type if attr == "__class__" else operator.attrgetter(attr)

    def add(self, obj, value):
        self.objects.append(obj)
        self.expected.append(value)

    def get(self, key, default=None):
        try:
            same = all(map(operator.is_, map(self._read, self.objects), self.expected))
        except AttributeError:      # (one was deleted)
            same = False
        return SAME if same else default

    def changed(self) -> list:
        """(object, what the trace read, what it holds now) of those that changed."""
        out = []
        for obj, value in zip(self.objects, self.expected):
            now = getattr(obj, self.attr, MISSING)
            if now is not value:
                out.append((obj, value, now))
        return out


class CellGuardView:
    """A closure variable's cell seen through `.get(name, default)`, as
    guards read namespaces: a number a setter outside the compiled code
    rebinds (`nonlocal scale; scale = s`) recompiles."""
    __slots__ = ("cell",)

    def __init__(self, cell):
        self.cell = cell

    def get(self, name, default=None):
        try:
            return self.cell.cell_contents
        except ValueError:          # emptied (`del` of the variable)
            return default


class Captured:
    """A NumPy array found outside the arguments: a runtime module input.
    `owner` and `hop` say where it was read (tpucc.snapshot names them for
    another process): ("attr", name) of an object, ("item", key) of a
    container, ("globals", name) of a globals dict, ("cell", None).
    `aliases`: (getter, owner, hop) of the other places the trace found the
    same array object (`net.alias = net.w`): the program reads it once, so
    a call where one of them holds another array must recompile.  `frozen`:
    how it refused updates when traced (values.frozen_kind).  A promoted
    Python number (scalar_state) is captured the same way, `number` its
    type.  `tie`: the array is also an argument's (an optimizer holding the
    model's parameter list): `array` is then that argument's Array, which
    the program reads and updates as one array; this input is only re-read
    to check that each call still passes the one array at both places
    (Traced.input_identities)."""
    def __init__(self, source, getter, value, param, array, owner=None, hop=None, aliases=(),
                 frozen=None, number=None, tie=False):
        self.source, self.getter, self.value = source, getter, value
        self.param, self.array, self.frozen = param, array, frozen
        self.number = number        # a promoted Python number's type (scalar_state)
        self.owner, self.hop = owner, hop
        self.aliases = list(aliases)
        self.tie = tie

    def updated(self) -> bool:
        """Whether the program updated the array in place (written back
        here; a tie's update is the argument's write-back)."""
        return not self.tie and self.array.var is not self.param

    def note_place(self, getter, owner, hop):
        """The same array found again, maybe through another place."""
        places = [(self.owner, self.hop)] + [(o, h) for _, o, h in self.aliases]
        if owner is None or any(o is owner and h == hop for o, h in places):
            return
        self.aliases.append((getter, owner, hop))


# The hint of a library function refused on runtime arrays, when nothing
# more specific is known.
README_HINT = "see docs/language.md for the NumPy functions tpucc compiles"

# What compiles in place of a NumPy function or array attribute that reads
# an array's memory layout (compiled arrays have none to read).
_WINDOWS = ("rolling windows: np.lib.stride_tricks.sliding_window_view(x, w) (then "
            ".mean(axis=-1), ...) compiles and gives the same windows")
# Polynomials whose length NumPy decides from the values (leading zero
# coefficients dropped, real or complex roots): what compiles instead.
_TRIMMED = ("NumPy drops leading zero coefficients here (np.trim_zeros, as np.poly1d "
            "does), a length known only at run time: keep the coefficient array and use "
            "np.polyval, np.polyder, np.polyint, np.polyadd, np.polysub on it")
# np.polynomial: the three evaluations compile (ops/polynomial.py), nothing else.
SERIES_INSTEAD = ("of np.polynomial, tpucc compiles only the evaluations "
                  "np.polynomial.polynomial.polyval(x, c), np.polynomial.chebyshev.chebval(x, c) "
                  "and np.polynomial.legendre.legval(x, c) (c: the coefficient array, lowest "
                  "power first); use them in place of the series classes (Polynomial(c)(x)), "
                  "or call the other functions outside the compiled function")
# np.testing's other asserts (assert_equal, assert_array_less, ...)
TESTING_INSTEAD = ("write the check as an assert, which compiles to a run-time check: "
                   "assert np.array_equal(a, b), assert np.allclose(a, b), "
                   "assert np.all(a < b); np.testing.assert_allclose, assert_array_equal and "
                   "assert_array_almost_equal compile too")
NUMPY_INSTEAD = {
    "as_strided": _WINDOWS,
    "polymul": "np.polymul" + _TRIMMED[5:] + ", and np.convolve(a1, a2) for the product",
    # (the quotient's length is static: NumPy's own loop compiles, trimming aside)
    "polydiv": ("NumPy drops the remainder's leading (near-)zero coefficients, a length known "
                "only at run time; the quotient has the static length len(u) - len(v) + 1, "
                "and NumPy's long division compiles as a loop: q = np.zeros(len(u) - len(v) "
                "+ 1); r = u.astype(float); for k in range(len(q)): q[k] = (1.0 / v[0]) * r[k]; "
                "r[k:k + len(v)] -= q[k] * v (then r[len(q):] is the remainder, untrimmed)"),
    "real_if_close": ("NumPy returns a real or a complex array depending on the values "
                      "(whether every imaginary part is within tol machine epsilons of 0): use "
                      "a.real where the imaginary parts are known to be negligible, or call "
                      "np.real_if_close outside the compiled function"),
    "roots": ("NumPy returns real or complex roots depending on the values: the eigenvalues "
              "of the companion matrix compile (n = len(p) - 1; A = np.diag(np.ones(n - 1), "
              "-1).astype(complex); A[0] = -p[1:] / p[0]; np.linalg.eigvals(A), for p[0] "
              "!= 0)"),
}
# An array's bound container methods, as the operations they stand for
# (`x.__getitem__(i)` is `x[i]`), which compile on runtime arrays already.
_CONTAINER_DUNDERS = {"__getitem__": operator.getitem, "__len__": len,
                      "__contains__": operator.contains}
_AN_ARRAY = np.empty(0)


@functools.cache
def _array_operator_methods() -> dict:
    """An array's operator methods (x.__mul__, x.__radd__, x.__iadd__,
    x.__neg__, x.__lt__, x.__float__) by name: functions of (x, *operands)
    doing what the operator does (x.__iadd__(1) adds into x, as `x += 1`;
    a user operand's own methods interpreted, as for the operator)."""
    table = {}
    for op, (method, reflected_method, _) in dunders.BINARY.items():
        table[method] = op
        table[reflected_method] = functools.partial(interpreted.reflected, op)
    table.update({method: op for op, (method, _) in dunders.INPLACE.items()})
    table.update({method: op for op, (method, _, _) in dunders.COMPARE.items()})
    table.update({method: op for op, method in dunders.UNARY.items()})
    table.update({"__bool__": bool, "__int__": int, "__float__": float,
                  "__complex__": complex})
    return table


_NO_LAYOUT = ("compiled arrays have no memory, owner or flags to ask about (results come back "
              "as new C-contiguous arrays): drop the test, or make it outside the compiled "
              "function")
_OUTSIDE = "return the array and call x.{}() on it outside the compiled function"
ATTRIBUTE_INSTEAD = {
    "strides": "compiled arrays have no strides to read; for " + _WINDOWS,
    **dict.fromkeys(("flags", "base", "data", "ctypes", "__array_interface__", "setflags"),
                    _NO_LAYOUT),
    # (a Python bytes object or a file is made from values known only at run time)
    **{name: _OUTSIDE.format(name) for name in ("tobytes", "tofile", "dump", "dumps")},
    "byteswap": "compiled arrays keep the native byte order: " + _OUTSIDE.format("byteswap")
                + ", or shift and mask the bytes ((x >> 8) | (x << 8) for uint16)",
    "resize": "np.resize(x, shape) compiles (it repeats x; x.resize pads with zeros: "
              "np.pad(x.ravel(), (0, n - x.size)).reshape(shape))",
    **dict.fromkeys(("device", "to_device"), "compiled code runs on one device: drop "
                                             ".device / .to_device()"),
    **dict.fromkeys(("getfield", "setfield"), "read or write the bits with shifts and masks "
                                               "((x >> shift) & mask), or do it outside the "
                                               "compiled function"),
}


def _is_number(value) -> bool:
    """A Python number, or a runtime one (a weak 0-d value: `float(loss)`),
    or a NumPy number known while compiling (`np.float32(1) * 0.5`)."""
    return is_python_number(value) or (isinstance(value, Array) and value.ndim == 0 and (
        value.aval.weak or value.immutable is True)) or (       # (or a runtime NumPy scalar)
        isinstance(value, np.generic) and value.dtype.kind in "biufc")


def _current_or_missing(current):
    """current() (a place's value now), or _MISSING where it has none yet
    (a new attribute)."""
    try:
        return current()
    except (AttributeError, KeyError, IndexError):
        return _MISSING


def _is_static_scalar(value) -> bool:
    """A Python number or a NumPy scalar: what a trace folds into the
    program where it reads one from outside, unless promoted (scalar_state)."""
    return is_python_number(value) or isinstance(value, np.generic)


def _numpy_scalar_of(cls, x: Array):
    """np.float32(x) of a runtime value: a NumPy scalar of that dtype for a
    0-d value, an array of it otherwise (as NumPy does)."""
    from ..ops.elementwise import astype
    dtype = np.dtype(cls)
    if dtype.kind not in "biufc":
        raise UnsupportedError(f"np.{cls.__name__}() of a runtime value is not supported")
    if x.weak and x.dtype.kind in "iuf" and dtype.kind in "iu":
        _require_fits(x, dtype)
    out = astype(x, dtype)
    if out.ndim == 0:
        out.immutable = True
    return out


def _require_fits(x: Array, dtype):
    """np.int8(n) of a Python int (or float, converted as int() converts
    it) known only at run time raises where n does not fit, as NumPy does
    (an array or NumPy scalar wraps instead): a runtime check."""
    from ..ops import elementwise
    if x.dtype.kind == "f":
        elementwise.require_int_conversion(x, dtype)
    else:
        elementwise.require_int_fits(x, dtype)


def _describe_source(source) -> str:
    kind, owner, name = source
    return {"global": f"global `{name}`", "attr": f"attribute `.{name}`",
            "closure": f"closure variable `{name}`",
            "call": f"the result of {name}()"}.get(kind, f"item [{name}]")


def _guarded_place(kind: str, key, place) -> str:
    """Where a guarded value was read, for a message: `place`'s words
    where the guard has them, else its namespace's kind and key."""
    if place is not None:
        return place[1]
    return {"globals": f"global `{key}`", "vars": f"attribute `.{key}`",
            "slots": f"attribute `.{key}`"}.get(kind, f"item [{key!r}]")


# An iterator's own methods that advance it.
_ADVANCING = frozenset({"__next__", "send", "throw"})


def _refuse_outside_iterators(args, kwargs) -> None:
    for a in (*args, *kwargs.values()):
        refuse_outside_iterator(a)


def _holds(container, key, value) -> bool:
    """Whether container[key] is already `value` (a static key)."""
    try:
        return (isinstance(container, (list, dict)) and not isinstance(key, (Array, slice))
                and native_item(container, key) is value)
    except (KeyError, IndexError, TypeError):
        return False


def _user_keys_compared(lookup):
    """lookup(container, key, ...) (a subscript, a store, `in`, .get) where
    a dict or set compares the key with its own keys by the key's class's
    __eq__ (natively, after equal hashes): one comparing runtime values
    needs their truth now, refused as that, not as an array's truth."""
    @functools.wraps(lookup)
    def compared(interp, a, b, *rest, **options):
        container, key = (b, a) if lookup.__name__ == "contains" else (a, b)
        _refuse_runtime_user_hash(interp, container, key)
        try:
            return lookup(interp, a, b, *rest, **options)
        except NeedsStatic as e:
            raise _user_key_refusal(container, key) or e
    return compared


def _refuse_runtime_user_hash(interp, container, key) -> None:
    """A dict or set hashes a key of a user class by its __hash__, natively:
    one that hashes runtime values would hash tpucc's stand-in for them
    (by identity: never found).  Interpreted first, to refuse that."""
    if not isinstance(container, (dict, set, frozenset)):
        return
    for obj in key if type(key) is tuple else (key,):
        method = interp.user_dunder(obj, "__hash__")
        if method is None:
            continue
        try:
            value = interp.inline(method, [obj], {})
        except (NeedsStatic, StaticValueError, UnsupportedError):
            value = None
        if not isinstance(value, int):
            raise _user_key_refusal(container, obj, "__hash__", "hashes") from None


def _user_key_refusal(container, key, method="__eq__", does="compares") -> \
        StaticValueError | None:
    """The refusal of looking up `key`, an instance of a user class (or a
    tuple of them), in a dict or set by an __eq__ (or __hash__) that reads
    runtime values; None for any other container or key."""
    from . import dunders
    if not isinstance(container, (dict, set, frozenset)) or not dunders.involves_user(key):
        return None
    what = "a dict key" if isinstance(container, dict) else "a set item"
    name = user_class_of(key).__name__
    how = f"compares it with its keys of the same hash by {name}.__eq__" if method == "__eq__" \
        else f"hashes it by {name}.__hash__"
    return StaticValueError(
        f"a {name} object as {what}: the {type(container).__name__} {how}, which {does} "
        "runtime values here, so which key it matches would be known only at run time",
        hint="key the dict by static values (names, or numbers not computed from arrays), "
             f"e.g. d[k.name]; or keep the runtime values out of {name}.__eq__ and __hash__")


class Interpreter:
    def __init__(self, context, scalars=None):
        self.ctx = context
        context.read_attribute = self.getattr
        # Python numbers rebound in places that outlive the call (scalar_state).
        self.scalars = scalars if scalars is not None else ScalarState()
        self.scalar_attrs: set = set()          # attr_writes keys holding a number
        self.global_writes: dict = {}           # (id(globals), name) -> (globals, name)
        self.argument_places: dict = {}         # id(argument copy) -> (root, keys, name)
        self.argument_items: dict = {}          # id(argument copy) -> {key: item bound}
        self.depth = 0
        self.captured: dict[int, Captured] = {}
        # id of a tuple from outside holding arrays -> (it, it with them captured)
        self.captured_tuples: dict[int, tuple] = {}
        self.fresh_ids: dict[int, object] = {}
        # Copies of the list and dict arguments (their arrays bound to params).
        self.argument_containers: dict[int, object] = {}
        # The caller's lists and dicts those copies were made from:
        # id -> (it, its copy, which argument)
        self.argument_originals: dict[int, tuple] = {}
        # The lists and dicts tpucc.grad rebuilt around a differentiated
        # function's parameters (infer.ad): id -> the copy.
        self.differentiated: dict[int, object] = {}
        # Arrays that are module inputs: id(Array) -> (it, its param Value,
        # the caller's array), telling tied weights apart (infer.ad).
        self.input_objects: dict[int, tuple] = {}
        # The same for the arguments' arrays, by the caller's array:
        # id(ndarray) -> (Array, param Value, ndarray) (capture's ties)
        self.argument_arrays: dict[int, tuple] = {}
        # bytes, bytearray and array.array arguments: id -> (root, keys,
        # name); those read as runtime arrays: id -> buffers.BoundBuffer
        self.argument_buffers: dict[int, tuple] = {}
        self.bound_buffers: dict[int, tuple] = {}
        # The argument copies whose arrays the trace read through the
        # caller's container (_shared_argument_item): id -> the copy
        self.shared_argument_copies: dict[int, object] = {}
        self.shadow: dict[tuple[int, str], object] = {}
        # Dicts that stand for attributes (an object's __dict__, vars(obj)) or
        # globals (globals()): id -> (dict, the object or function, "attr" or
        # "globals"); their items are read and rebound as those (attribute_dict)
        self.attribute_dicts: dict[int, tuple] = {}
        self.attr_writes: dict[tuple[int, str], tuple] = {}
        # Where each write-back was last assigned (for errors about it, such as
        # an artifact's, which cannot replay one): ("attr", attr_writes key),
        # ("global", global_writes key) or ("item", id(argument copy), slot) -> Loc
        self.write_locs: dict[tuple, object] = {}
        self.frames: list = context.frames      # innermost last
        self.handled_exception = None           # what `except` is handling (sys.exc_info)
        # Each user __next__ or old-style __getitem__ being called by the
        # iteration protocol (_item_or_end): the exception that ends the
        # iteration, raised there, is caught by tpucc (iterators.NextCall)
        self.next_levels: list[iterators.NextCall] = []
        # print() turning its arguments into text (builtins_impl.in_print)
        self.printing = 0
        self.last_return_loc = None
        self.list_views: dict[int, ListGuardView] = {}
        # id(list or dict from outside) -> [its view, whether its items were read too]
        self.contents_read: dict[int, list] = {}
        # ids of the lists and dicts from outside tpucc.grad read to flatten a
        # differentiated object (ad._spec): named by appends.finish's refusal
        self.flattened_for_grad: set = set()
        self.dict_views: dict[int, tuple] = {}      # id(d.items()) -> (it, d)
        self.comprehension_cells = 0    # numbers the cells 3.12's inlined comprehensions make
        self.cell_views: dict[int, CellGuardView] = {}
        self.slot_views: dict[int, SlotGuardView] = {}
        # Functions whose code, objects whose class are guarded (their ids).
        self.guarded_objects: set[int] = set()
        self.guarded_lookups: set[tuple] = set()    # (id(class), name): guard_lookup
        self.identity_views: dict[str, IdentitiesGuardView] = {}
        self.dunders: dict[tuple, object] = {}      # (class, name) -> user_dunder's answer
        self.outside_appends: list = []         # (list, value, loc): see appends.py
        self.set_aside: list = []       # lists of items held aside (stacking.items_set_aside)
        # Generators run when made whose code reads cells of compiled frames:
        # ({(id(frame), name)}, the iterator, its item count, the region it was
        # made in) (_refuse_late_binding)
        self.early_generators: list = []
        self.generator_runs: list = []          # the generator frames running (generator_runs)
        # {id: (native iterator, SeqIter)}: a held map, filter, zip... that a
        # `for` loop took the items of; it now stands where that SeqIter does
        self.looped_natives: dict = {}
        self.effect_generators: list = []       # ... those that changed outside state
        # ... and the attributes and items they changed: (kind, id, key) -> (obj,
        # a check refusing a read of it before they are consumed that far)
        self.generator_writes: dict = {}
        self.prepended: set = set()     # ids of lists a counted While grew in front
        self.slot_values: dict = {}             # id(object) -> its SlotValues (_attributes_of)
        # Arrays from this serial on were made by the traced call's own ops
        # (privacy.py); None: not known, so no array counts as private.
        self.call_floor = None

    # --- containers created by compiled code ----------------------------------------------
    def fresh(self, obj):
        self.fresh_ids[id(obj)] = (obj, self.ctx.serial_floor[-1])
        if self.generator_runs:
            generator_runs.note_made(self, obj)
        return obj

    def check_mutation(self, obj, what, argument_hint=None, removal=False, popped=None):
        """Refuses a change of `obj` the compiled call cannot replay;
        `argument_hint`: the advice where obj is an argument's container;
        `removal`: the change takes items out (pop, popleft, remove, del);
        `popped`: the pop it is, (name, args), which the refusal carries
        (a loop may then pop a static queue by a runtime count: popped_queues)."""
        self.refuse_differentiated_change(obj)
        picked_copies.refuse_change(obj)
        if self.ctx.chosen_containers.get(id(obj)) is obj:
            raise SideEffectError(
                f"changing {what} chosen at run time among a list's items (`layers[i]` with "
                "a runtime i, the item of a long loop over the list, or what max()/min() "
                "picked) is not supported: compiled code chooses a copy, so the change would "
                "not reach the item it copies",
                hint="choose with a static index, keep the values in arrays, or change a new "
                     "container made from it (best = list(best))")
        entry = self.fresh_ids.get(id(obj))
        if id(obj) in self.argument_containers:
            raise SideEffectError(
                f"changing {_a(type(obj).__name__)} passed as an argument is not supported "
                "beyond rebinding its items to arrays, numbers or tuples of arrays: the compiled "
                "call works on a copy, and writes back only those",
                hint=argument_hint or "give it every item before the call (p['w'] = new and "
                     "p['t'] += 1 are written back), or return a new container")
        if entry is None and self.ctx.merged_containers.get(id(obj)) is obj:
            raise SideEffectError(
                f"mutating {what} after a runtime `if` or loop that made it a different "
                "object (or gave it different items) on different paths is not supported",
                hint="build the container after the `if` or loop from the values it "
                     "computed, or create it once before and assign only arrays inside")
        if entry is None and isinstance(obj, np.ndarray) and obj.dtype.kind in "mM":
            raise SideEffectError(       # (natively_made: an array of dates NumPy made)
                f"changing an array of dates or times (dtype {obj.dtype}) is not supported: "
                "compiled code holds no dates, and NumPy made this one while compiling",
                hint="compute with integer counts (n = d.astype(np.int64): days since "
                     "1970-01-01 for datetime64[D]) and change those")
        if entry is None and isinstance(obj, np.ndarray):
            raise SideEffectError(       # (natively_made: a string array is one)
                f"changing a string array (dtype {obj.dtype}) is not supported: compiled code "
                "holds no strings, and NumPy made this one while compiling",
                hint="change the Python lists before making the array "
                     "(`rows = [list(r) for r in ROWS]; rows[0][0] = '#'`), or compare first "
                     "and change the bool array (`walls = grid == '#'; walls[0, 0] = True`)")
        if entry is None:
            raise SideEffectError(
                f"mutating {what} that exists outside the compiled function is not supported",
                hint="build a new container and return it instead")
        if self.in_region() and (entry is None or entry[1] < self.ctx.effect_floor[-1]):
            if removal and self.ctx.runtime_depth > 0:
                e = SideEffectError(
                    f"removing items from {what} {self.region_name()} is not supported (a loop "
                    "whose test is runtime is one, and so is an iteration after a runtime `break` "
                    "or `return`): how many items are left would be known only at run time",
                    hint=_REMOVAL_HINT)
                e.popped = None if popped is None else (obj, popped)
            else:
                e = SideEffectError(
                    f"mutating {what} {self.region_name()} is not supported: its "
                    "structure must be known at compile time",
                    hint=("give the object that attribute before the `if` or loop (e.g. an "
                          "array of the right shape), then rebind it inside" if what.startswith(
                              "the attribute") else "keep growing data in a preallocated array "
                          "and update it in place (x[i] = v)"))
            e.program_container = True      # (the program's own: no library's state)
            raise e
        # (the change is made as Python makes it: undone if the region is thrown away)
        journal_contents(obj, entry[1])

    def _check_library_change(self, fn, owner, args):
        """A library's own method that changes a container the program made
        (`c.update(words)` of a Counter, `od.move_to_end(k)`) runs natively,
        so it is checked as the interpreter's own changes are: refused under
        a runtime `if` or loop (where native code would change it on every
        path), journaled elsewhere (undone with a region thrown away)."""
        name = getattr(fn, "__name__", None)
        changed = owner if name in _CHANGING_METHODS else \
            args[0] if name in _CHANGING_FUNCTIONS and args else None
        if isinstance(changed, _CHANGEABLE) and id(changed) in self.fresh_ids:
            self.check_mutation(changed, _a(type(changed).__name__),
                                removal=name in _REMOVING_METHODS)

    def refuse_differentiated_change(self, obj):
        """A list or dict differentiated by tpucc.grad is a copy made for the
        differentiated function (its arrays are the parameters): a change to
        it would not reach the caller's container, so it is refused, as
        rebinding an attribute of a differentiated object is."""
        if id(obj) in self.differentiated:
            kind = type(obj).__name__
            raise SideEffectError(
                f"changing a {kind} differentiated by tpucc.grad inside the function it "
                f"differentiates is not supported: that function works on a copy of the "
                f"{kind}, so the change would be lost",
                hint="update its arrays in place (p['w'] *= 2), or return the new value "
                     "(has_aux=True) and assign it after the gradient call")

    @staticmethod
    def is_popped_queue(v) -> bool:
        """A list a runtime loop pops, its length runtime (popped_queues)."""
        return isinstance(v, popped_queues.PoppedQueue)

    def in_region(self) -> bool:
        """Inside a runtime branch or loop, or a differentiated function:
        effects on outer Python structure cannot be replayed there."""
        return self.ctx.runtime_depth > 0 or self.ctx.grad_depth > 0

    def region_name(self) -> str:
        return ("inside a runtime `if` or loop" if self.ctx.runtime_depth > 0
                else "inside a function differentiated by tpucc.grad")

    # --- reading the environment -------------------------------------------------------------
    def read_global(self, func, name):
        g = func.__globals__
        if (id(g), name) in self.shadow:          # a number this trace stored there
            return self.shadow[(id(g), name)]
        self.ctx.module_reads.append((g.get("__name__"), name))
        if name in g:
            value = g[name]
            if _is_static_scalar(value) and global_key(g, name) in self.scalars.promoted:
                return self.capture_number(g, name, value, ("global", home_module(func), name),
                                           ("globals", name), lambda: g[name])
            if not (isinstance(value, np.ndarray) or _is_jax_array(value)):
                # (an array is a runtime input, re-read at every call, its type
                # checked: `W = W - lr * g` at module level compiles nothing)
                self._guard(g, name, value, g, "globals", (global_key(g, name),
                                                           f"the global `{name}`"))
        else:
            value = getattr(builtins, name, _MISSING)
            if value is _MISSING or not _is_library_module_name(g.get("__name__")):
                # (an `except NameError`; a global of that name made later, by a
                # notebook's `from numpy import *`, hides the builtin)
                self._guard(g, name, MISSING, g, "globals")
            if value is _MISSING:
                raise UserCodeError(f"NameError: name '{name}' is not defined")
        return self.capture(value, ("global", home_module(func), name), lambda: g[name],
                            g, ("globals", name))

    def store_global(self, func, name, value):
        """`global step; step += 1`: a number is written back after each call
        (scalar_state), as an attribute's is; an array the trace updated in
        place is already; binding a global to anything else is refused."""
        if self.generator_runs:
            generator_runs.note_effect(self, func.__globals__)
        if self.global_holds(func, name, value):
            return      # `global N; N -= g` on an array: updated in place, nothing to replay
        if not _is_number(value):
            raise UnsupportedError(f"assigning the global `{name}` inside compiled code is not "
                                   "supported", hint="return the new value instead")
        g = func.__globals__
        key = (id(g), name)
        value = self._number_to_store(global_key(g, name), value,
                                      lambda: self.read_global(func, name), f"the global `{name}`")
        if value is None:
            return
        if key not in self.shadow and self._in_frame_region():
            # its value as read now, as the slot the region merges or carries
            self.shadow[key] = self.read_global(func, name)
        set_item(self.shadow, key, value, 0)
        self.global_writes[key] = (g, name)
        self.write_locs[("global", key)] = builder.current_loc()

    def global_holds(self, func, name, value) -> bool:
        """Whether module global `name` holds `value` already: the array the
        trace read from it (and may have updated in place)."""
        entry = self.captured.get(id(func.__globals__.get(name)))
        return entry is not None and entry.array is value

    def _guard(self, namespace, key, value, owner, kind, place=None):
        """Recompile when `namespace[key]` is no longer `value`.  The owner
        and kind let tpucc.snapshot find the namespace in another process:
        "globals" (a module's dict), "vars" (vars(owner)), "dict", "list".
        `place`: (scalar_state place, what) of a number this trace could
        read as a runtime value instead, which the caller promotes when the
        number changes between calls (scalar_state.changed_places)."""
        self.ctx.guards.append((namespace, key, value))     # (infer keeps the first of each)
        note_outside_iterator(value, _guarded_place(kind, key, place))
        self.ctx.namespaces[id(namespace)] = (namespace, owner, kind)
        if place is not None and is_promotable(value):
            self.ctx.number_places.setdefault((id(namespace), key), place)

    def capture(self, value, source, getter, owner=None, hop=None):
        """Arrays from outside become module inputs (by identity)."""
        if isinstance(value, (np.ndarray,)) or _is_jax_array(value):
            entry = self.captured.get(id(value))
            if entry is None:
                refuse_array_subclass(value, _describe_source(source))
                arr = np.asarray(value)
                check_runtime_dtype(arr.dtype, _describe_source(source))
                check_runtime_size(arr.shape, arr.dtype, _describe_source(source))
                param = Value(AVal(arr.dtype, arr.shape, False))
                argument = self.argument_arrays.get(id(value))
                if argument is not None and argument[2] is value:
                    entry = self._tie_to_argument(source, getter, value, param, argument,
                                                  owner, hop)
                    return entry.array
                array = Array(param)
                array.frozen = frozen_kind(value)
                builder.note_input_layout(array, param, value)
                # It exists before every region: updates in a runtime branch or
                # loop that first reads it are that region's outer effects.
                array.serial = 0
                entry = Captured(source, getter, value, param, array, owner, hop,
                                 frozen=array.frozen)
                self.captured[id(value)] = entry
                self.input_objects[id(array)] = (array, param, value)
            else:
                entry.note_place(getter, owner, hop)
            return entry.array
        if _is_value_of_parts(value) and _holds_outside_array(value):
            return self._captured_tuple(value, source, getter)
        return value

    def _captured_tuple(self, value, source, getter):
        """A tuple, named tuple or frozen dataclass from outside holding
        arrays (`s = cell.state`), its arrays captured as reading each item
        would (`cell.state.h`): a runtime `if` or loop can then merge or
        carry it with one the program makes (`s = St(x, x)`), whose items
        are runtime values too.  One rebuilt value per value read, so that
        `is` still holds between two reads of it."""
        known = self.captured_tuples.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        if isinstance(value, tuple):
            items = [self.capture(v, source, lambda i=i: getter()[i], value, ("item", i))
                     for i, v in enumerate(value)]
            rebuilt = tuple(items) if type(value) is tuple else type(value)._make(items)
        else:
            # (a frozen dataclass: its fields set as they were, without
            # running __init__ / __post_init__ again, as state.rebuilt_value)
            rebuilt = object.__new__(type(value))
            for k in value_fields(value):
                object.__setattr__(rebuilt, k, self.capture(
                    getattr(value, k), source, lambda k=k: getattr(getter(), k), value,
                    ("attr", k)))
        self.captured_tuples[id(value)] = (value, rebuilt)
        return rebuilt

    def _tie_to_argument(self, source, getter, value, param, argument, owner, hop):
        """The caller's array `value`, found outside the arguments, is also an
        argument's leaf (`fit(ps, SGD(ps))`: the optimizer holds the model's
        parameter list): read as that argument's Array, so that an update
        through one place is seen through the other, as in NumPy.  The
        capture stays an input of the module, to check at each call that
        both places still hold one array (a call where they differ compiles
        again)."""
        array, argument_param, _ = argument
        entry = Captured(source, getter, value, param, array, owner, hop,
                         frozen=array.frozen, tie=True)
        self.captured[id(value)] = entry
        builder.ctx().input_identities.append(((argument_param, param), (0, 0)))
        return entry

    def capture_number(self, obj, name, value, source, hop, getter=None):
        """A promoted attribute, closure variable or global (obj.name; name
        "cell_contents" of a cell; `getter` reads a global) holding a Python
        number or a NumPy scalar (scalar_state): a runtime input, re-read at
        every call, its type checked (another type recompiles) but not its
        value."""
        slot = ("number", id(obj), name)
        entry = self.captured.get(slot)
        if entry is None:
            param = Value(const_aval(value))
            array = Array(param)
            array.serial = 0
            array.immutable = isinstance(value, np.generic)
            entry = Captured(source, getter or (lambda o=obj: getattr(o, name)), value, param,
                             array, obj, hop, number=type(value))
            self.captured[slot] = entry
        return entry.array

    def note_module_read(self, module, name):
        """A user module's attribute: part of the world a trace depends on."""
        if not _is_library_module(module):
            self.ctx.module_reads.append((module.__name__, name))

    def getattr(self, obj, name):
        if isinstance(obj, Array):
            return self.array_attr(obj, name)
        if isinstance(obj, masked.Selection):
            return masked.attribute(obj, name)
        if isinstance(obj, FlatIter):
            return _flat_attribute(obj, name)
        if isinstance(obj, popped_queues.PoppedQueue):
            return popped_queues.method(obj, name)
        if obj is GeneratorManager or isinstance(obj, GeneratorManager):
            raise UnsupportedError("a @contextlib.contextmanager object made in compiled code "
                                   "works in a `with` statement only (not ExitStack or "
                                   "__enter__ called by hand)", hint="write `with cm(...) as v:`")
        if isinstance(obj, (SeqIter, RangeIter)):
            raise UnsupportedError(f"`.{name}` of an iterator made in compiled code (a generator, "
                                   "zip, map, iter()) is not supported: compiled code only "
                                   "iterates them", hint="use it in a for loop, next() or a "
                                   "consumer such as list()")
        if type(obj) is types.CellType and name == "cell_contents" and \
                isinstance(_cell_contents(obj), OwnedCell):
            return owned_value(obj.cell_contents)   # (where our frame keeps the variable)
        if type(obj) is super:
            found = self._through_super(obj, name)
            if found is not MISSING:
                return found
        if name == "__dict__" and self._has_plain_dict(obj):
            return self.attribute_dict(obj)
        key = (id(obj), name)
        if self.generator_runs and not hasattr(type(class_attribute(type(obj), name)), "__get__"):
            generator_runs.note_attribute_read(self, obj, name)     # (not a method's, a property's)
        if self.generator_writes:
            generator_runs.refuse_unconsumed_read(self, "attr", obj, name)
        if key in self.shadow:
            return self.shadow[key]
        static = class_attribute(type(obj), name)
        if isinstance(static, property) and static.fget is not None:
            self._guard_attr(obj, name, static)
            held = self._library_property_array(obj, static)
            if held is not None:
                return self.capture(held, ("attr", type(obj).__name__, name),
                                    lambda o=obj: getattr(o, name), obj, ("attr", name))
            return self.call(static.fget, [obj], {})
        # (a library object's, np.finfo(x.dtype).tiny, is a static fact that
        # NumPy's own getter computes now, below, as eagerly)
        if isinstance(static, functools.cached_property) and not isinstance(obj, type) \
                and not is_library_class(type(obj)) and name not in (instance_dict(obj) or {}):
            return self._cached_property(obj, name, static)
        getter = self._user_descriptor(obj, name, static)
        if getter is not None:
            self._guard_attr(obj, name, static)
            return self.inline(getter, [static, obj, type(obj)], {})
        if isinstance(obj, type):       # a descriptor read through its class: __get__(None, cls)
            held = class_attribute(obj, name)
            getter = user_dunder(held, "__get__") if held is not None else None
            if getter is not None:
                self._guard_attr(obj, name, held)
                return self.inline(getter, [held, None, obj], {})
        if isinstance(obj, types.ModuleType):
            self.note_module_read(obj, name)
        if self.user_dunder(obj, "__getattribute__") is not None:
            raise UnsupportedError(
                f"a class that overrides __getattribute__ ({type(obj).__qualname__}) is not "
                "supported in compiled code: what it reads could not be guarded",
                hint="use properties or __getattr__ (called for missing attributes only)")
        # (a metaclass's for a class)
        hook = self.user_dunder(obj, "__getattr__")
        try:
            # (with a __getattr__ hook, the lookup that comes before it)
            value = getattr(obj, name) if hook is None else \
                (type if isinstance(obj, type) else object).__getattribute__(obj, name)
        except AttributeError:
            self._guard_absent_attr(obj, name)
            if hook is not None:
                return self.inline(hook, [obj, name], {})
            raise
        if (_is_static_scalar(value) and id(obj) not in self.fresh_ids
                and self._promoted_attr(obj, name)):
            return self.capture_number(obj, name, value, ("attr", type(obj).__name__, name),
                                       ("attr", name))
        self._guard_attr(obj, name, value)
        return self.capture(value, ("attr", type(obj).__name__, name),
                            lambda o=obj: getattr(o, name), obj, ("attr", name))

    def _through_super(self, sup, name):
        """super().name where the class after __thisclass__ in the object's
        MRO that holds `name` holds a property or a user descriptor: its
        getter interpreted on the object, as for obj.name (natively super
        would run it on tpucc's stand-ins for runtime arrays).  MISSING for
        the rest (a method: super binds it natively)."""
        obj, mro = sup.__self__, getattr(sup.__self_class__, "__mro__", ())
        if obj is None or isinstance(obj, type) or sup.__thisclass__ not in mro:
            return MISSING
        for klass in mro[mro.index(sup.__thisclass__) + 1:]:
            ns = vars(klass)
            found = ns.get(name, MISSING)
            if not is_library_class(klass):     # (replacing or adding it recompiles)
                self._guard(ns, name, found, klass, "vars")
            if found is not MISSING:
                break
        else:
            return MISSING
        self.guard_class(obj)
        if isinstance(found, property) and found.fget is not None:
            return self.call(found.fget, [obj], {})
        getter = user_dunder(found, "__get__")
        return MISSING if getter is None else self.inline(getter, [found, obj, type(obj)], {})

    def _library_property_array(self, obj, prop):
        """The array a library object's property gives (`p.coeffs` of an
        np.poly1d made outside): a runtime input read again at every call,
        as an attribute holding an array is; evaluated now, as a library
        call on static values would be, it would miss updates in place
        between calls.  None where the property is the user's, the object
        was made by compiled code, or the value is not an array."""
        if not _is_library(prop.fget) or id(obj) in self.fresh_ids:
            return None
        value = prop.fget(obj)
        return value if isinstance(value, np.ndarray) else None

    def _cached_property(self, obj, name, prop):
        """obj.name of a functools.cached_property not computed yet: its
        getter traced as a property's (natively it would run on tpucc's
        values), the value stored in the instance dict as cached_property
        does, where later reads find it."""
        self._guard_attr(obj, name, prop)
        if id(obj) not in self.fresh_ids:
            # the cache write would outlive the call: eagerly the first call
            # computes it and later calls read it (however the object changed)
            raise UnsupportedError(
                f"`.{name}` of {type(obj).__name__}, a functools.cached_property not computed "
                "yet on an object from outside the compiled code, is not supported: its cache "
                "would outlive the call",
                hint=f"read `.{name}` once before calling the compiled function (it is cached "
                     "then), or make it a @property")
        if instance_dict(obj) is None:
            raise UserCodeError(f"TypeError: No '__dict__' attribute on "
                                f"{type(obj).__name__!r} instance to cache {name!r} property.")
        value = self.call(prop.func, [obj], {})
        self.setattr(obj, name, value, hook=False)      # (cached_property writes __dict__)
        return value

    def _user_descriptor(self, obj, name, static):
        """The __get__ of `static`, the class attribute obj.name finds, where
        it is a descriptor whose class is the user's and Python would call
        it: a data descriptor (with __set__ or __delete__) always, another
        unless the instance holds `name` itself."""
        if static is None or isinstance(obj, type):
            return None
        getter = user_dunder(static, "__get__")
        if getter is None:
            return None
        if any(class_attribute(type(static), m) is not None for m in ("__set__", "__delete__")):
            return getter
        own = instance_dict(obj)
        if own is not None and name in own:
            return None
        if own is not None and id(obj) not in self.fresh_ids:
            self._guard(own, name, MISSING, obj, "vars")    # setting it hides the descriptor
        return getter

    def _promoted_attr(self, obj, name) -> bool:
        """Whether obj.name is a promoted number (scalar_state): one the
        object holds, or one its class holds (class_attr_key)."""
        promoted = self.scalars.promoted
        if attr_key(obj, name) in promoted:
            return True
        if isinstance(obj, types.ModuleType) or name in (instance_dict(obj) or {}) \
                and not isinstance(obj, type):
            return False
        holder = _class_holding(obj, name)
        return holder is not None and class_attr_key(holder, name) in promoted

    def _guard_attr(self, obj, name, value):
        """A static attribute of an object from outside the call is folded
        into the program: guard it, so that `model.training = False` or a
        changed class attribute recompiles instead of running stale code."""
        # (a NumPy scalar is folded like a number, not captured: guarded too)
        if isinstance(value, np.ndarray) or _is_jax_array(value) or type(obj) in _IMMUTABLE:
            return
        if isinstance(obj, types.ModuleType):
            if _is_library_module(obj):
                return
            owners = [obj]
        else:
            # An object made in the call holds what the call gave it; what
            # it finds in its class is the class's, guarded.
            fresh = self._made_in_call(obj)
            if fresh and (instance_dict(obj) is None or _instance_holds(obj, name)):
                return
            own = [obj] if instance_dict(obj) is not None and not fresh else []
            mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
            owners = own + list(mro)
        for i, owner in enumerate(owners):
            ns = vars(owner)
            if name in ns:
                found = ns[name]
                if owner is not obj and not isinstance(obj, type):
                    self.guard_class(obj)       # found in its class
                if not isinstance(found, types.MemberDescriptorType):
                    # (a number: promoted where it changes between calls, see getattr)
                    place = _number_place(obj, owner, name)
                    self._guard(ns, name, found, owner, "vars", place)
                elif not isinstance(obj, type):     # __slots__: the instance holds it
                    view = self.slot_views.setdefault(id(obj), SlotGuardView(obj))
                    self._guard(view, name, value, obj, "slots")
                # What the instance (or a subclass) sets later hides it: a
                # class's data attribute (`training = True`), a method
                # (`m.act = other`).  (A data descriptor is not hidden.)
                if not (hasattr(found, "__set__") or hasattr(found, "__delete__")):
                    for before in owners[:i]:
                        self._guard(vars(before), name, MISSING, before, "vars")
                return

    def _guard_absent_attr(self, obj, name):
        """An attribute an object lacks (hasattr False, getattr's default, an
        `except AttributeError`): recompile once it, its class (an object
        made in the call has the class's) or its module has it."""
        if isinstance(obj, types.ModuleType):
            if not _is_library_module(obj):
                self._guard(vars(obj), name, MISSING, obj, "vars")
            return
        own = [obj] if instance_dict(obj) is not None and id(obj) not in self.fresh_ids else []
        for owner in own + list(obj.__mro__ if isinstance(obj, type) else type(obj).__mro__):
            if owner is not object and not is_library_class(owner):
                # (an empty __slots__ member: its class holds the member's descriptor)
                self._guard(vars(owner), name, vars(owner).get(name, MISSING), owner, "vars")

    def _guard_absent_key(self, obj, key):
        """A key a dict from outside lacks (KeyError, `in`, .get's default),
        an index past the end of a list from outside (IndexError)."""
        if id(obj) in self.fresh_ids or id(obj) in self.argument_containers:
            return
        if isinstance(obj, dict) and type(obj).get is dict.get:    # (OrderedDict too)
            self._guard(obj, key, MISSING, obj, "dict")
        elif isinstance(obj, list) and isinstance(key, int):
            view = self.list_views.setdefault(id(obj), ListGuardView(obj))
            self._guard(view, key, MISSING, obj, "list")

    @_user_keys_compared
    def contains(self, item, container):
        """`item in container`; on a dict from outside, guarded."""
        refuse_outside_iterator(container)      # (`in` advances an iterator up to the item)
        if isinstance(container, (dict, set, frozenset)):
            refuse_runtime_hash((item,), "a dict key" if isinstance(container, dict)
                                else "a set item")
        if type(container) is dict and id(container) in self.attribute_dicts:
            return item in container or self._attribute_of_dict(container, item) is not None
        if type(container) is dict:
            value = container.get(item, MISSING)
            if value is MISSING:
                self._guard_absent_key(container, item)
            else:
                self._guard_item(container, item, value)
            return value is not MISSING
        self.guard_contents(container)
        method = self.user_dunder(container, "__contains__")
        if method is not None:
            return self.inline(method, [container, item], {})
        from . import dunders
        if isinstance(container, (list, tuple)) and (
                dunders.involves_user(item) or dunders.involves_user(container)
                or chosen_values.first_choice((item, container)) is not None):
            # (a choice's == is each object's, at run time: natively it finds none)
            return dunders.contains(self, item, self.static_items(container))
        if self.searched_by_iterating(container):
            return dunders.iterated_contains(self, item, container)
        return item in container

    def _searched_choices(self, fn, args, kwargs):
        """lst.count(v), lst.index(v) where the list (tuple, deque) or `v`
        holds a value chosen at run time among static objects (`hist.append(
        "rise" if up else "fall")`, then `hist.count("rise")`): natively,
        Python's == of the stand-in would find no item, so each item is
        compared at run time (dunders.runtime_search); remove() and sort()
        need the objects themselves.  _NOT_SEARCHED where nothing holds a
        choice."""
        chosen = chosen_values.first_choice((fn.__self__, *args, *kwargs.values()))
        if chosen is None:
            return _NOT_SEARCHED
        if fn.__name__ in ("index", "count") and len(args) == 1 and not kwargs:
            from . import dunders
            return dunders.sequence_method(self, self.static_items(fn.__self__), fn.__name__,
                                           args[0])
        raise chosen_values.refusal(f"`.{fn.__name__}()` of a {type(fn.__self__).__name__} "
                                    "holding it", chosen)

    def searched_by_iterating(self, container) -> bool:
        """Whether `in` takes the container's items in turn: its class has no
        __contains__ but a user __iter__ or __getitem__ (natively, they would
        run on tpucc's stand-ins), or it is an iterator of compiled code or
        dict.values()."""
        if isinstance(container, (SeqIter, RangeIter)) or is_native_iterator(container) \
                or _DICT_VIEWS.get(type(container)) == "values":
            return True
        return class_attribute(type(container), "__contains__") is None and (
            self.user_dunder(container, "__iter__") is not None
            or self.user_dunder(container, "__getitem__") is not None)

    @_user_keys_compared
    def dict_get(self, d: dict, key, default=None):
        """d.get(key, default) on a dict: a missing key guarded, a present
        one read as d[key] is."""
        key = known_integer(key)        # (a constant: np.array([2, 0])[0])
        refuse_runtime_hash((key,), "a dict key")
        if key in d or self._attribute_of_dict(d, key) is not None:
            return self.getitem(d, key)
        self._guard_absent_key(d, key)
        return default

    def array_attr(self, arr: Array, name):
        if name == "__class__":     # what type(x) says (functools.singledispatch reads it)
            return BUILTINS[builtins.type](self, arr)
        if pynumbers.is_python_number(arr):     # float(x[0]).imag: Python's, not ndarray's
            return pynumbers.attribute(self, arr, name)
        if name in ("shape", "dtype", "ndim", "size"):
            return getattr(arr, name)
        if name in ("itemsize", "nbytes"):
            return arr.dtype.itemsize * (arr.size if name == "nbytes" else 1)
        if name == "T":
            return _scalar_stays_scalar(arr, METHODS["transpose"](arr))
        if name == "mT":
            return matrix.matrix_transpose_attribute(arr)
        if name in ("real", "imag"):
            return _scalar_stays_scalar(arr, NUMPY[getattr(np, name)](arr))
        if name == "flat":
            return FlatIter(arr)
        if name == "__index__":     # operator.index(x[0]) calls it
            return pynumbers.index_method(arr)
        if name == "__array_ufunc__":   # (NDArrayOperatorsMixin asks whether it is None)
            return BoundArrayMethod(arr, name)
        if name in _CONTAINER_DUNDERS:      # key=x.__getitem__: argmax in pure Python
            return functools.partial(_CONTAINER_DUNDERS[name], arr)
        if name in _array_operator_methods():   # map(x.__mul__, ks), reduce(np.ndarray.__add__)
            return functools.partial(_array_operator_methods()[name], arr)
        if name in METHODS:
            return BoundArrayMethod(arr, name)
        # (an array's attributes: not the class's, which has type's too: __call__, __dict__)
        if arr.immutable is True and not arr.shape and not hasattr(_AN_ARRAY, name):
            return pynumbers.numpy_scalar_attribute(arr, name)     # x[0].is_integer()
        if not hasattr(_AN_ARRAY, name):       # what NumPy raises (hasattr / except see it)
            raise UserCodeError(f"AttributeError: 'numpy.ndarray' object has no attribute "
                                f"'{name}'")
        error = UnsupportedError(f"array attribute or method `.{name}` is not supported",
                                 hint=ATTRIBUTE_INSTEAD.get(name))
        error.generic_hint = True   # (said to the program: a library's caller can't drop it)
        raise error

    def setattr(self, obj, name, value, hook=True):
        """obj.name = value.  `hook`: False for object.__setattr__(obj, name,
        value), which passes over the class's own __setattr__ (a frozen
        dataclass's __init__ stores its fields so)."""
        if self.generator_runs:
            generator_runs.note_effect(self, obj, ("attr", name))
        if pynumbers.is_python_number(obj):
            pynumbers.refuse_setattr(obj, name)
        if isinstance(obj, Array):
            if name == "flat":            # `a.flat = v`: every element, v cycled
                FlatIter(obj)[...] = value
                return
            if name not in ("real", "imag"):
                raise UnsupportedError(f"assigning `.{name}` of an array is not supported",
                                       hint="make a new array instead (x = x.reshape(shape))")
            if name == "imag" and obj.dtype.kind != "c":
                raise UserCodeError("TypeError: array does not have imaginary part to set")
            # `x.real = v`, `x.imag += 1`: into the part (a view of a complex
            # array; the real part of a real array is the array itself)
            self.setitem(self.array_attr(obj, name), Ellipsis, value)
            return
        picked_copies.refuse_change(obj)    # (an object a runtime pick copied)
        if self.ctx.chosen_containers.get(id(obj)) is obj:     # (list_loops.chosen_object)
            self.check_mutation(obj, f"the attribute `{name}` of an object")
        own = user_setattr(type(obj)) if hook else None
        if own is not None:
            # the class's own __setattr__, traced like any call, on an object
            # from outside too: what it does besides the store (a counter, a
            # log, a frozen dataclass's refusal) happens at each store, where
            # Python does it; its object.__setattr__ makes the store itself (and
            # runs a property's setter)
            self.inline(own, [obj, name, value], {})
            return
        static = class_attribute(type(obj), name)
        if isinstance(static, property) and static.fset is not None:
            # `self.lr = v` through a property: its setter runs (traced), as
            # the getter does when read (getattr); it stores what it stores
            self.call(static.fset, [obj, value], {})
            return
        setter = class_attribute(type(static), "__set__") if static is not None else None
        if isinstance(setter, types.FunctionType) and not isinstance(static, property):
            self.inline(setter, [static, obj, value], {})   # the user's data descriptor
            return
        entry = self.fresh_ids.get(id(obj))
        if entry is not None:
            plain = not hook or type(obj).__setattr__ is object.__setattr__
            holder = self._attributes_of(obj, name)
            if isinstance(value, Array) and holder is not None and name in holder \
                    and holder[name] is value:
                return      # `m.w *= 2`: updated in place; the store is a no-op, also in a loop
            if self._in_frame_region() and plain and holder is not None and name in holder:
                # rebinding an attribute the object has: merged or carried as a slot
                set_item(holder, name, value, entry[1])
                return
            self.check_mutation(obj, f"the attribute `{name}`")
            if plain and holder is not None:
                # journaled: an unrolled iteration that is discarded (its loop
                # becomes a While after all) takes the attribute away again
                set_item(holder, name, value, entry[1])
            else:
                (setattr if hook else object.__setattr__)(obj, name, value)
            return
        self._rebind_outside(obj, name, value, f"`.{name}`",
                             f"`.{name}` of an object that outlives the call",
                             lambda: self.getattr(obj, name))

    # --- an object's __dict__ and globals(): attributes seen as a dict ---------------------
    def _has_plain_dict(self, obj) -> bool:
        """Whether obj.__dict__ is an instance's own attribute dict, read as
        Python reads it (not a class's or a module's namespace, nor through
        the class's own __getattribute__)."""
        return not isinstance(obj, (type, types.ModuleType, Array)) \
            and type(instance_dict(obj)) is dict \
            and self.user_dunder(obj, "__getattribute__") is None \
            and isinstance(class_attribute(type(obj), "__dict__"), types.GetSetDescriptorType)

    def attribute_dict(self, obj):
        """obj.__dict__ or vars(obj): the object's own dict, remembered as
        such, so that its items are read and rebound as its attributes are.
        An outside object's rebound attributes are held aside (`shadow`)
        until the call ends: read natively, its dict would show them stale,
        and a write into it would not be seen by `obj.name`.  An object the
        call made keeps its attributes in the dict itself, which is then the
        call's own too (`self.__dict__.update(kw)` in its __init__)."""
        d = instance_dict(obj)
        self.attribute_dicts[id(d)] = (d, obj, "attr")
        entry = self.fresh_ids.get(id(obj))
        if entry is not None and id(d) not in self.fresh_ids:
            self.fresh_ids[id(d)] = (d, entry[1])
        return d

    def globals_dict(self, func):
        """globals() in `func`: its module's dict, whose items are read and
        rebound as the globals are (read_global, store_global)."""
        g = func.__globals__
        self.attribute_dicts[id(g)] = (g, func, "globals")
        return g

    def _attribute_of_dict(self, d, key, new=False):
        """The owner (object, or function for globals()) where d[key] is an
        attribute or global it holds (`new`: or may hold, for a write),
        d being its attribute_dict; None for any other item.  A data
        descriptor of the class (a property) is not what the dict holds."""
        found = self.attribute_dicts.get(id(d)) if isinstance(d, dict) else None
        if found is None or found[0] is not d or type(key) is not str:
            return None
        _, owner, kind = found
        if kind == "globals":
            held = (id(d), key) in self.shadow
        else:
            static = class_attribute(type(owner), key)
            if static is not None and any(class_attribute(type(static), m) is not None
                                          for m in ("__set__", "__delete__")):
                return None
            held = (id(owner), key) in self.shadow
        return owner if new or held or key in d else None

    def _read_dict_attribute(self, d, key):
        _, owner, kind = self.attribute_dicts[id(d)]
        return self.read_global(owner, key) if kind == "globals" else self.getattr(owner, key)

    def _write_dict_attribute(self, d, key, value):
        _, owner, kind = self.attribute_dicts[id(d)]
        if kind == "globals":
            self.store_global(owner, key, value)
        else:       # (past the class's __setattr__, as a write into the dict is)
            self.setattr(owner, key, value, hook=False)

    def _dict_keys(self, d) -> list:
        """The keys of an attribute_dict: its own, then those of attributes
        this call added to an outside object (held aside until it ends)."""
        _, owner, kind = self.attribute_dicts[id(d)]
        held = id(d) if kind == "globals" else id(owner)
        return list(d) + [k[1] for k in self.shadow
                          if k[0] == held and type(k[1]) is str and k[1] not in d]

    def _value_before_region(self, current, what: str):
        """current() of a place a runtime branch or loop rebinds, the value
        its merge starts from; a place with none yet (a new attribute of an
        outside object) would exist after it on some paths only."""
        value = _current_or_missing(current)
        if value is _MISSING:
            raise SideEffectError(
                f"assigning {what} {self.region_name()} is not supported: it has no value "
                "before, so whether it exists after would be known only at run time",
                hint="give it a value before the `if` or loop (e.g. an array of the right "
                     "shape), then rebind it inside; or assign it after the `if` or loop")
        return value

    def _attributes_of(self, obj, name):
        """Where obj.name is stored, as a mapping set_item can journal: the
        object's __dict__, or for a __slots__ member a SlotValues of the
        object (one per object, so that journal entries find it again).
        `o.__class__ = B` is such a member too: stored on the object itself
        (its type changes, and with it method lookup, type() and
        isinstance), not as a `__class__` key of its __dict__."""
        if name == "__class__" or \
                isinstance(class_attribute(type(obj), name), types.MemberDescriptorType):
            return self.slot_values.setdefault(id(obj), SlotValues(obj))
        return instance_dict(obj)

    def _in_frame_region(self) -> bool:
        """Inside a runtime branch or loop of a frame (not tpucc.grad's), whose
        merge (or While) also takes the slots rebound in it (values.set_item)."""
        return self.ctx.runtime_depth > 0 and self.ctx.effect_frames[-1] is not None

    def _rebind_outside(self, obj, name, value, what, lasting, current):
        """obj.name = value on an object from outside the compiled code: an
        array is written back after each call (attr_writes); `what` names
        the target in messages, `lasting` says why it matters, `current()`
        reads its value now."""
        if isinstance(value, Array) and self._current_attr(obj, name) is value and (
                (id(obj), name) in self.shadow or _bound_on_itself(obj, name)):
            return      # `obj.w -= d`: the array was updated in place; the store is a no-op
        # (but `k.buf += 1` where buf is the class's array binds that array on k too)
        if not isinstance(value, Array) and not _is_number(value) \
                and _current_or_missing(current) is value:
            return      # `self.pos += v` (an __iadd__ returning self), `self.hist += [v]`:
                        # rebound to the object it holds, changed in place; nothing to store
        key = (id(obj), name)
        self.scalar_attrs.discard(key)
        if _is_number(value):
            place, what = (cell_key(obj), what) if isinstance(obj, types.CellType) else \
                (outside_item_key(obj, name[1]), what) if isinstance(name, tuple) else \
                (attr_key(obj, name), f"`.{name}` of {type(obj).__name__} objects")
            value = self._number_to_store(place, value, current, what, owner=obj)
            if value is None:
                return
            self.scalar_attrs.add(key)
            if not isinstance(value, Array):    # kept static: written back as it is
                set_item(self.shadow, key, value, 0)
                self.attr_writes[key] = (obj, name)
                self.write_locs[("attr", key)] = builder.current_loc()
                return
        elif isinstance(value, Array) and value.ndim == 0 and \
                isinstance(_current_or_missing(current), np.generic):
            # `self.total += np.mean(err)` where it holds an np.float64 folded
            # into the program: promoted as a number is (a static one was
            # guarded: each new value would compile again)
            cell = isinstance(obj, types.CellType)
            self.scalars.decide(cell_key(obj) if cell else attr_key(obj, name), value,
                                what if cell else f"`.{name}` of {type(obj).__name__} objects",
                                self.in_region())
        if self._in_frame_region() and (isinstance(value, Array)
                                        or stored_value_arrays(value) is not None):
            # (a named tuple of arrays: merged item by item, control.HeldValueLeaves)
            if key not in self.shadow:
                # its value as read now, as the slot the region merges or carries
                self.shadow[key] = self._value_before_region(current, what)
            set_item(self.shadow, key, value, 0)
            self.attr_writes[key] = (obj, name)
            self.write_locs[("attr", key)] = builder.current_loc()
            return
        if self.in_region():
            hint = ("assign after the `if` or loop" if self.ctx.runtime_depth > 0 else
                    "differentiate a function of the parameters (pass them as arguments) "
                    "and assign the results after tpucc.grad")
            if self.ctx.runtime_depth > 0:      # (`cell.state = St(h, c)` in a loop)
                hint = held_value_hint(what.strip("`"), [value]) or hint
            raise SideEffectError(f"assigning {what} {self.region_name()} is not "
                                  "supported", hint=hint)
        if not isinstance(value, Array) and stored_value_arrays(value) is None:
            raise SideEffectError(
                f"assigning a Python value to {lasting} would only happen once, at "
                "compile time",
                hint="store arrays, or tuples, named tuples or frozen dataclasses of arrays "
                     "(they are written back after each call), or return the value")
        # an array, or a value holding arrays (`cell.state = St(h, c)`): made again
        # after each call around that call's arrays (infer.RebuiltValue)
        set_item(self.shadow, key, value, 0)
        self.attr_writes[key] = (obj, name)
        self.write_locs[("attr", key)] = builder.current_loc()

    def _number_to_store(self, place, value, current, what, owner=None):
        """A Python number (or a runtime one) stored into `place`, which
        outlives the call (scalar_state): None where it holds that number
        already, else the value to store, an Array where the place is
        promoted.  Refused in a function tpucc.grad differentiates, as an
        array is there (_rebind_outside): said so, rather than that a
        static number is needed at compile time.  `owner`: the object
        holding the place (one of a class's objects for an attribute)."""
        if self.in_region() and not self._in_frame_region():
            raise SideEffectError(f"assigning {what} {self.region_name()} is not supported",
                                  hint="return the value from the differentiated function "
                                       "(has_aux=True) and assign it after tpucc.grad")
        if not isinstance(value, Array):
            old = _current_or_missing(current)
            if type(old) is type(value) and (old == value or old != old and value != value):
                return None         # `self.training = True` again: nothing changes
        how = self.scalars.decide(place, value, what, self.in_region())
        if how == "runtime" and not isinstance(value, Array):
            value = Array(builder.const_value(value))
        if how == "static":
            self.scalars.note_static_write(place, id(owner), _current_or_missing(current), value)
        if not isinstance(value, Array) and self.in_region():
            raise StaticInRegion(f"assigning {what} {self.region_name()} is not supported "
                                 "while the compiled code needs its value at compile time",
                                 hint="assign after the `if` or loop")
        return value

    def _current_attr(self, obj, name):
        """The Array obj.name holds (obj[slot] for name ("item", slot)), or None."""
        key = (id(obj), name)
        if key in self.shadow:
            return self.shadow[key]
        try:
            current = obj[name[1]] if isinstance(name, tuple) else getattr(obj, name, None)
        except ValueError:          # an empty cell's cell_contents
            return None
        entry = self.captured.get(id(current))
        return entry.array if entry is not None else None

    @_user_keys_compared
    def getitem(self, obj, key):
        if type(key) is not int and isinstance(obj, _INDEXED_BY_POSITION):
            key = self.index_values(key)
        if isinstance(obj, _NUMPY_SUBSCRIPTED):
            self.guard_read_by_numpy(key)       # x[IDS]: every index folded
        if isinstance(obj, Array):
            return indexing.getitem(obj, key)
        if isinstance(obj, (FlatIter, masked.Selection)):    # (x[k:][j]: its row j)
            return obj[key]
        if isinstance(obj, (popped_queues.PoppedQueue, *held_tables.HELD)):
            return obj.item(self, key)
        if isinstance(obj, (SeqIter, RangeIter)):       # zip(a, b)[0]: Python's TypeError
            raise UserCodeError(f"TypeError: '{iterators.type_name(obj)}' object is not "
                                "subscriptable", hint="make a list of it first: list(it)[0]")
        if isinstance(obj, np.ndarray) and obj.dtype.kind in NATIVE_KINDS and \
                not _any_runtime([key], {}):    # days[0], grid[2]: NumPy's item, now
            return natively_made(obj[key])
        if isinstance(obj, (np.ndarray, np.generic)):
            return indexing.getitem(Array(builder.const_value(obj)), key)
        byte = buffers.item_read(self, obj, key)     # ba[i] after ba[j] = v
        if byte is not None:
            return byte
        buffers.refuse_stale_read(self, obj, "data[...]")
        method = self.user_dunder(obj, "__getitem__")
        if method is not None:
            return self.inline(method, [obj, key], {})
        if self._attribute_of_dict(obj, key) is not None:
            return self._read_dict_attribute(obj, key)
        if isinstance(obj, _AXIS_CONCATENATOR) and _any_runtime([key], {}):   # np.r_[a, b]
            return manipulation.index_trick(obj, key)
        if isinstance(key, Array):
            # a constant (np.array([2, 0, 3])[0], cy of np.array(F.shape) // 2) is
            # known now, as a slice bound is: the item is picked at compile time
            key = known_integer(key)
        if isinstance(key, Array):
            original = obj
            if isinstance(obj, (list, tuple, collections.deque)):   # (a deque reads as a list)
                obj = self.static_items(obj)
            # Python numbers: one constant, not N stacked items
            table = None if holds_numpy_scalar(obj) else indexing.static_number_table(obj)
            if table is not None:
                return indexing.getitem(table, key)
            if isinstance(obj, (list, tuple)) and obj and all(
                    isinstance(v, (Array, int, float, bool, np.number, np.bool_))
                    and not isinstance(v, enum.Enum) for v in obj):     # (an IntEnum member)
                stacked = _stacked_as_merged(list(obj), hint=_runtime_index_hint(obj))
                chosen = indexing.getitem(stacked, key)
                if isinstance(chosen, Array):
                    chosen = _item_kind(obj, chosen)
                    chosen.frozen = CHOSEN      # (and its views)
                    list_loops.marked_copy(obj, chosen)
                return chosen
            if isinstance(obj, (list, tuple)) and len(obj) > 1 and key.ndim == 0 \
                    and key.dtype.kind in "iu":
                # alike tuples (`x, y = batches[step % len(batches)]`): the item
                # picked at run time; its position checked as an index (or known
                # in range: values.Span) and counted from the end if negative
                items = [self._read_tuples(v) for v in obj]
                positions = Array(builder.const_value(np.arange(len(items))))
                if list_loops.alike(items):
                    return list_loops.picked(items, indexing.getitem(positions, key))
                if chosen_functions.choosable(obj):     # `fs[i](x)`: called in a branch each
                    return chosen_functions.ChosenFunction(indexing.getitem(positions, key),
                                                           tuple(obj))
                rows = picked_rows.alike_rows(self, items)
                if rows is not None and not self._loop_may_hold(original):
                    # (`T[leap][m - 1]` of a month table, `P[s][a]` of a Gym
                    # transition table: a copy of the row)
                    return picked_rows.pick(rows, indexing.getitem(positions, key))
            if isinstance(obj, (list, tuple)) and key.ndim == 0 and key.dtype.kind in "iu" \
                    and chosen_values.pickable(obj):    # `NAMES[i]`: a choice among strings
                return chosen_values.picked(obj, key, _sequence_kind(original))
            if type(obj) is str and obj and key.ndim == 0 and key.dtype.kind in "iu":
                # `"^>v<"[a]`: a choice among its characters
                return chosen_values.picked(tuple(obj), key, "string")
            if isinstance(obj, dict) and _int_keyed(obj) and key.ndim == 0 \
                    and key.dtype.kind in "iub":
                return self._read_at_runtime_key(obj, key)
            e = self._runtime_read_position(original, key)
            e.table = held_tables.refused_table(self, original)
            raise e
        if isinstance(obj, dict) and isinstance(key, tuple) and holds_array(key):
            # (hashed by the compile-time identity of its Array, a tuple key is
            # never found: not the program's KeyError)
            raise StaticValueError("indexing a Python dict with a key that holds a runtime value",
                                   hint=_runtime_key_hint(obj))
        if isinstance(obj, RuntimeRange):
            raise StaticValueError("indexing a range with a runtime length is not supported",
                                   hint="compute the item: start + k * step (the last: "
                                        "stop - 1 for a step of 1)")
        if isinstance(key, slice) and isinstance(obj, list):
            # item by item from the list itself: its arrays are re-read from it
            # (only the slice's: a CSR pattern's rows of a long list, sliced
            # row by row, read all of it at each row)
            return self.fresh(self._list_slice(obj, key))
        if isinstance(obj, dict) and chosen_keys.is_key(key):
            return chosen_keys.dict_item(self, obj, key)    # `RATES[stage]`
        self._check_aliased_argument_read(obj, key)
        if isinstance(obj, BY_VALUE):
            self.guard_contents(obj)    # items made at each read: compared by value
        if isinstance(obj, collections.defaultdict) and obj.default_factory is not None \
                and key not in obj:
            # its __missing__, interpreted: the default made as the program
            # makes values (a list that is then appended to), then stored
            self._guard_absent_key(obj, key)
            value = self.call(obj.default_factory, [], {})
            self.setitem(obj, key, value)
            return value
        try:
            value = obj[key]
        except (KeyError, IndexError):
            self._guard_absent_key(obj, key)
            raise
        out = self._item(obj, key, value)
        if out is value:                # (not rebound, nor an input: folded in)
            self._guard_item(obj, key, value)
        if self.generator_runs:
            generator_runs.note_item_read(self, obj, key)
        if self.generator_writes:
            generator_runs.refuse_unconsumed_read(self, "item", obj, key)
        return out

    def _read_at_runtime_key(self, mapping, key, missing="KeyError", after=""):
        """mapping[key] of a static dict whose keys are ints, at a runtime int
        key (`LABELS[k]`): the item at the position of the key that equals it,
        read as a list's item at a runtime position is; where none does,
        Python's KeyError (or the error `missing`, its message the key and
        `after`), checked at run time (raised when the call returns)."""
        from . import checks
        keys, values = zip(*self.dict_items(mapping))
        matches = self.call(np.equal, [key, np.array(keys, np.int64)], {})
        checks.require(self.call(np.any, [matches], {}),
                       messages.Message((messages.Field(key, None, ""), *filter(None, [after]))),
                       raises=missing)
        position = self.call(int, [self.call(np.argmax, [matches], {})], {})
        return self.read_at_position(mapping, values, position, key)

    def read_at_position(self, mapping, values, position, key):
        """values[position], the items of `mapping` at a runtime position
        (that of the runtime `key` among its keys), read as a list's are:
        where they cannot be, the refusal of a runtime read of the mapping."""
        try:
            return self.getitem(values, position)
        except StaticValueError as e:
            if type(e) is not StaticValueError:
                raise
            refused = self._runtime_read_position(mapping, key)
            refused.table = held_tables.refused_table(self, mapping)
            raise refused from None

    def copy_container(self, obj):
        """`obj.copy()`, `obj[:]`, `lst + other`: a list or dict made by the
        call, its items read one by one from `obj` (an outside container's
        arrays are re-read from it at every call, not from the copy)."""
        if isinstance(obj, dict):
            items = dict(self.dict_items(obj))
            return self.fresh(items if type(obj) is dict else dict_of_class(
                type(obj), getattr(obj, "default_factory", None), items))
        if isinstance(obj, collections.deque):      # (d.copy() keeps d's maxlen)
            return self.fresh(collections.deque(self.static_items(obj), maxlen=obj.maxlen))
        return self.fresh(list(self.static_items(obj)))

    def mapping_read(self, v):
        """`v` as Python's own dict copying reads it (dict(v), d.update(v),
        d | v, OrderedDict(v)): for a dict, a plain dict of its items read
        one by one (dict_items), so that a dict from outside (a global, an
        argument's attribute) gives its arrays as runtime inputs re-read at
        every call, and an item this call rebound its new value, not what the
        dict held when the function was compiled."""
        return dict(self.dict_items(v)) if isinstance(v, dict) else v

    def dict_union(self, op, a, b):
        """`a | b` and `a |= b` of two dicts of library classes: a copy of `a`
        (of a's class) updated with b, or a.update(b) in place, each item
        read as mapping_read reads it."""
        if op is operator.ior:
            self.call(a.update, [b], {})        # (the checks and write-back of d.update)
            return a
        out = self.copy_container(a)
        out.update(self.mapping_read(b))
        return out

    def sequence_op(self, op, a, b):
        """`a + b`, `a * n`, `a += b` where a list or tuple is involved."""
        if op is operator.iadd and type(a) is list and type(b) in (list, tuple) \
                and stacking.try_record_items(self, a, self.static_items(b)):
            return a        # `out += [v]` in a counted loop: its While's buffers hold v
        if op is operator.iadd and type(a) is list and appends.record(self, a, "extend", (b,), {}):
            return a        # `self.hist += [v]` on an outside list: an extend, replayed per call
        if op in (operator.iadd, operator.imul) and isinstance(a, list) \
                and not _numpy_operand_wins(op, b):
            self.check_mutation(a, "a list")
            a[:] = (self.static_items(a) + self.static_items(b) if op is operator.iadd
                    else op(list(self.static_items(a)), b))
            return a
        if op in (operator.add, operator.iadd) and isinstance(a, (list, tuple)) \
                and type(b) is type(a):
            joined = self.static_items(a) + self.static_items(b)
            return self.fresh(list(joined)) if isinstance(a, list) else joined
        if op in (operator.mul, operator.imul) and isinstance(a, (list, tuple)) \
                and isinstance(b, int) and not isinstance(b, bool):
            repeated = self.static_items(a) * b
            return self.fresh(list(repeated)) if isinstance(a, list) else repeated
        return op(a, b)

    def deque_op(self, op, a, b):
        """`d1 + d2`, `d * n`, `n * d` of library deques: a new deque the
        program made (which it may change), its items read one by one as
        copy_container reads them, computed by deque's own operator (the
        maxlen of the left deque kept, the last items kept by it); else
        NotImplemented."""
        if op not in (operator.add, operator.mul) or not (
                type(a) is collections.deque or type(b) is collections.deque):
            return NotImplemented
        if op is operator.add and type(a) is type(b):
            left = collections.deque(self.static_items(a), maxlen=a.maxlen)
            return self.fresh(op(left, collections.deque(self.static_items(b))))
        d, n = (a, b) if type(a) is collections.deque else (b, a)
        if op is operator.mul and type(n) is int:
            return self.fresh(collections.deque(self.static_items(d), maxlen=d.maxlen) * n)
        return NotImplemented

    def guard_contents(self, obj, whole: bool = True):
        """The trace depends on how many items `obj` has (whole=False: len),
        or on all of them (iterated, sliced, searched): when it is a list or
        dict from outside, recompile where that changes (contents.py)."""
        obj = self.dict_of(obj)
        if not isinstance(obj, (list, dict, set, collections.deque, collections.ChainMap,
                                *BY_VALUE)) \
                or self._made_in_call(obj) or id(obj) in self.argument_containers:
            return      # (an argument's structure is in the signature; a runtime pick's
            #             copy is the trace's own, and holding it would keep it in use:
            #             picked_copies.is_marked)
        entry = self.contents_read.get(id(obj))
        if entry is None:
            self.contents_read[id(obj)] = [ContentsGuardView(obj), whole]
        else:
            entry[1] = entry[1] or whole

    def guard_contents_deeply(self, values):
        """guard_contents on every list, dict, set or deque reachable from
        `values` through containers (tuples too): what native code reads.
        A worklist, bounded (MAX_DEEP_GUARDS containers): a structure larger
        than that is guarded on its first ones."""
        stack, seen = list(values), set()
        while stack and len(seen) < MAX_DEEP_GUARDS:
            v = self.dict_of(stack.pop())
            if id(v) in seen or not isinstance(v, (list, dict, set, tuple, collections.deque)):
                continue
            seen.add(id(v))
            if not isinstance(v, tuple):
                self.guard_contents(v)
            stack.extend(v.values() if isinstance(v, dict) else v)

    def guard_read_by_numpy(self, *values):
        """NumPy reads a list, dict or set it is handed whole, at every level
        (np.isin(ids, STOP), x[IDS], x.reshape(SHAPE), np.tile(x, REPS)):
        the trace folded each item, so one from outside is guarded as
        np.array(L) and iteration are: changing it compiles again.  The one
        place for it is where values cross into NumPy's semantics (a NumPy
        function, an array's method or subscript), not each op, which sees
        plain Python values and has no interpreter."""
        if any(isinstance(v, _READ_WHOLE_BY_NUMPY) or isinstance(v, tuple) and any(
                isinstance(i, (*_READ_WHOLE_BY_NUMPY, tuple)) for i in v) for v in values):
            self.guard_contents_deeply(values)  # (not for x[i, j], the subscript of most loops)

    def finish_contents_guards(self):
        """The guards of guard_contents, made when the trace is done: by then
        it is known which items the program rebinds or promoted (their new
        values come at every call, so their identity is not checked)."""
        for view, whole in self.contents_read.values():
            obj = view.container

            def read_each_call(slot):
                value = view.expected[slot]
                return (isinstance(value, np.ndarray) or _is_jax_array(value)
                        or (id(obj), ("item", slot)) in self.shadow
                        or outside_item_key(obj, slot) in self.scalars.promoted)
            self._guard(view, view.key(whole, read_each_call), SAME, obj, "contents")

    def _list_slice(self, obj: list, key: slice) -> list:
        """obj[key] of a static list, item by item as static_items reads them."""
        if any(isinstance(b, Array) for b in (key.start, key.stop, key.step)):
            raise NeedsStatic("the length of a list slice (a Python list sliced with runtime "
                              "bounds)")
        self.guard_contents(obj)
        return [self._item(obj, i, obj[i]) for i in range(len(obj))[key]]

    def _guard_item(self, obj, key, value):
        """A static item of a dict or list from outside the call is folded into
        the program, like a static attribute: guard it (CONFIG["k"] = 7
        recompiles).  Arrays are runtime inputs instead; tuples cannot change."""
        if (self._made_in_call(obj) or id(obj) in self.argument_containers
                or isinstance(value, (Array, np.ndarray))):
            return      # (an argument's static items are in the signature; a runtime
            #             pick's copy is the trace's own: guard_contents)
        slot = _existing_slot(obj, key)
        place = None if slot is None else (outside_item_key(obj, slot),
                                           f"the item {slot!r} of a {type(obj).__name__}")
        if isinstance(obj, dict):
            self._guard(obj, key, value, obj, "dict", place)
        elif isinstance(obj, list) and isinstance(key, int):
            view = self.list_views.setdefault(id(obj), ListGuardView(obj))
            self._guard(view, key, value, obj, "list", place)
        elif isinstance(obj, (collections.deque, collections.ChainMap)):
            self.guard_contents(obj)    # (no slot guard of their own: all of it)

    def _item(self, container, key, value):
        """An array held by a container from outside is a runtime input,
        re-read from the container at every call (as attributes are); an
        item this trace rebound is its new value, and a promoted number
        (scalar_state) a runtime input too.  An item of an object's
        __dict__ (or of globals()) is that attribute (or global)."""
        if self._attribute_of_dict(container, key) is not None:
            return self._read_dict_attribute(container, key)
        slot = _existing_slot(container, key)
        if slot is not None and id(container) not in self.fresh_ids:
            shared = self._shared_argument_item(container, slot, value)
            if shared is not None:
                return shared
            rebound = self.shadow.get((id(container), ("item", slot)), _MISSING)
            if rebound is not _MISSING:
                return rebound
            if _is_static_scalar(value) and \
                    outside_item_key(container, slot) in self.scalars.promoted:
                return self.capture_number(container, slot, value,
                                           ("item", type(container).__name__, repr(slot)),
                                           ("item", slot), lambda: container[slot])
        if (isinstance(value, _ARRAY_TYPES) or type(value) is tuple or is_namedtuple(value)) \
                and hasattr(container, "__getitem__"):
            # (a tuple of arrays too: calls.capture)
            return self.capture(value, ("item", type(container).__name__, repr(key)),
                                lambda: container[key], container, ("item", key))
        return value

    def subscript(self, obj, key):
        """`obj[key]` as the subscript reads it: an integer for every axis of
        an array gives a NumPy scalar, also where the integer is a user
        object's __index__ (converted first, so that it counts as one)."""
        if type(key) is not int and isinstance(obj, _INDEXED_BY_POSITION):
            key = self.index_values(key)
        if not isinstance(obj, _NUMPY_SUBSCRIPTED):
            key = held_ints.as_sequence_index(key)
        return scalar_if_numpy_would(obj, key, self.getitem(obj, key))

    @_user_keys_compared
    def setitem(self, obj, key, value, native=False):
        """obj[key] = value; `native`: as the built-in container class
        stores it, not through a user subclass's __setitem__
        (`super().__setitem__(k, v)` inside that __setitem__)."""
        if self.generator_runs:
            generator_runs.note_effect(self, obj, ("item", key))
        if type(key) is not int and isinstance(obj, _INDEXED_BY_POSITION):
            key = self.index_values(key)
        if isinstance(obj, _NUMPY_SUBSCRIPTED):
            self.guard_read_by_numpy(key, value)    # x[IDS] = ROW
        else:
            key = held_ints.as_sequence_index(key)
        if isinstance(obj, Array):
            _refuse_scalar_item_assignment(obj)
            indexing.setitem(obj, key, value)
            return
        if isinstance(obj, FlatIter):
            obj[key] = value
            return
        if isinstance(obj, held_tables.HELD):       # dp[i][j] = v of a loop's table
            obj.set(self, self.index_values(key), value)
            return
        if isinstance(obj, masked.Selection):      # x[k:][:, 1] = v; b = a[a > 2]; b[0] = v
            obj[key] = value
            return
        if not hasattr(type(obj), "__setitem__"):
            raise UserCodeError(f"TypeError: '{type(obj).__name__}' object does not support "
                                "item assignment")
        method = None if native else self.user_dunder(obj, "__setitem__")
        if method is not None:
            # the user's __setitem__, interpreted: what it changes is checked as it
            # changes it (`self.data[i] = v` updates an array in place, anywhere)
            self.inline(method, [obj, key, value], {})
            return
        if isinstance(key, chosen_values.ChosenValue) and isinstance(obj, dict):
            chosen_keys.dict_store(self, obj, key, value)    # `time_in[state] += 1`
            return
        if self._attribute_of_dict(obj, key, new=True) is not None:
            self._write_dict_attribute(obj, key, value)
            return
        if buffers.item_write(self, obj, key, value):  # ba[i] = v: into its memory
            return
        buffers.refuse_runtime_store(self, obj, (key, value))
        if isinstance(value, Array) and (_holds(obj, key, value)
                                         or self._holds_captured(obj, key, value)):
            return      # `p["w"] -= d`: the array was updated in place; the store is a no-op
        if not (isinstance(value, Array) or _is_number(value)) and _holds(obj, key, value) \
                and (id(obj), ("item", _existing_slot(obj, key))) not in self.shadow:
            return      # `vs[0] *= 2` where __imul__ returns the object: it stays the item
        self.refuse_differentiated_change(obj)
        picked_copies.refuse_change(obj)      # (a fresh list's item is rebound below unchecked)
        if self.ctx.chosen_containers.get(id(obj)) is obj:
            # (a copy made at each trace is no outside list whose item a
            # later call could hold: refused here, not promoted trace after trace)
            self.check_mutation(obj, "a container")
        if isinstance(obj, dict):
            refuse_runtime_hash((key,), "a dict key")
        elif isinstance(obj, (list, collections.deque)) and isinstance(key, Array):
            key = known_integer(key)        # (a constant: np.array(x.shape)[0])
            if isinstance(key, Array):
                e = self._runtime_list_position(key, type(obj).__name__)
                e.table = held_tables.refused_table(self, obj)
                raise e
        if isinstance(obj, list) and isinstance(key, slice):
            positions = range(*key.indices(len(obj)))
            items = list(self.static_items(value))
            if len(items) == len(positions):
                # `ps[:] = new`: item by item (written back to an argument's list;
                # each write journaled inside a loop's iteration or a branch)
                for position, item in zip(positions, items):
                    self.setitem(obj, position, item, native)
                return
            value = items
        if id(obj) in self.argument_containers and not (
                isinstance(value, Array) or _is_number(value)
                or stored_value_arrays(value) is not None):
            # (an array, a number, or a named tuple... of arrays is written back:
            # infer._argument_item_writebacks)
            self.check_mutation(obj, "a container")
        entry = self.fresh_ids.get(id(obj))
        slot = _existing_slot(obj, key)
        if slot is not None and id(obj) in self.argument_containers and self.ctx.grad_depth:
            raise SideEffectError(
                f"assigning an item of a {type(obj).__name__} passed as an argument inside a "
                "function differentiated by tpucc.grad is not supported",
                hint="assign it outside, after the call of the function tpucc.grad made")
        if not (slot is not None and entry is not None and self._may_rebind_items(obj)):
            self._refuse_aliased_argument(obj)
            if slot is not None and entry is None and self._rebinds_outside_item(obj, slot, value):
                return
            self.check_mutation(obj, "a container")
            slot = key
        if id(obj) in self.argument_containers:
            self.write_locs[("item", id(obj), slot)] = builder.current_loc()
        set_item(obj, slot, value, entry[1])

    def _builtin_item_write(self, name, container, args):
        """A built-in container's __setitem__ / __delitem__ called as a
        method (_builtin_item_call): what `c[k] = v` / `del c[k]` do, as the
        built-in class does them (a user subclass's own method, which is
        usually the caller, is not called again)."""
        if name == "__setitem__":
            self.setitem(container, *args, native=True)
        else:
            self.delitem(container, *args, native=True)

    def delitem(self, obj, key, native=False):
        """del obj[key]; `native`: as the built-in container class deletes
        it, not through a user subclass's __delitem__."""
        if self.is_popped_queue(obj):
            obj.pop(self, ("del", (key,)))      # (a pop whose item goes unread)
            return
        if not hasattr(type(obj), "__delitem__"):
            del obj[key]        # a tuple or string: Python's own TypeError, the user's error
        method = None if native else self.user_dunder(obj, "__delitem__")
        if method is not None:          # interpreted: it checks what it changes itself
            self.inline(method, [obj, key], {})
            return
        self.check_mutation(obj, "a container", removal=True, popped=(
            "del", (key,)) if type(key) is int and type(obj) in (list, collections.deque) else None)
        native_method(obj, "__delitem__")(obj, key)

    def _runtime_list_position(self, key, kind="list") -> StaticValueError:
        """The refusal of `lst[i] = v` at a runtime position: each item of a
        list is a value of its own, bound at compile time (reading one at a
        runtime position selects among them; a write would have to make every
        item depend on the position).  Mostly a runtime loop storing its
        states by its counter (`hs[t] = h`): named as such, with the array
        that holds them instead."""
        frame = self.frames[-1] if self.frames else None
        name = _local_name(frame, key)
        what = f"`{name}`" if name else "the position"
        counter = _loop_counter_words(frame, key, what)
        why = f"{what} {counter}" if counter else f"{what} is a runtime value"
        runtime_bound = counter is not None and "known only at run time" in counter
        return StaticValueError(
            f"assigning a {kind}'s item at a runtime position: {why}, so which item changes is "
            "not known at compile time",
            hint="keep the items in an array and assign its rows instead (`H = np.zeros((T, "
                 "d))` before the loop, `H[t] = h` inside it)"
                 + (", or give the loop a static trip count" if runtime_bound else ""))

    def _loop_may_hold(self, table) -> bool:
        """Inside a runtime loop, whether `table` is a list of this frame's
        that the outermost loop may hold as one array once a runtime position
        into it is refused (held_tables.holding): its rows are then read and
        written in place, where a picked copy (picked_rows) would refuse the
        writes of a DP table (`dp[i][j] = dp[i - 1][j] + 1`).  Only a loop
        met outside any runtime region holds tables (not one under a runtime
        `if`, as `while k < n` is under its first test)."""
        outermost_is_loop = bool(self.ctx.runtime_loops) and self.ctx.runtime_loops[0]
        return outermost_is_loop and not self.ctx.grad_depth and \
            held_tables.refused_table(self, table) is not None

    def _runtime_read_position(self, obj, key) -> StaticValueError:
        """The refusal of `seq[i]` at a runtime position whose items cannot
        be stacked and picked (lists, strings, unlike items).  Mostly a loop
        counter (`dp[i - 1][j]` of a list of lists): the source indexes with
        plain counters, which are runtime values only because the loop is
        tried as one runtime `while`, so the message says so, and how to
        write a table a `while` can carry."""
        frame = self.frames[-1] if self.frames else None
        counter = _loop_counter_words(frame, key)
        if counter is None:
            return StaticValueError("indexing a Python container with a runtime value",
                                    hint=_runtime_index_hint(obj))
        obj_items = self.static_items(obj) if isinstance(obj, (list, tuple)) else ()
        rows = bool(obj_items) and all(isinstance(v, (list, tuple)) for v in obj_items)
        kind = f"a {type(obj).__name__} of {type(obj_items[0]).__name__}s" if rows \
            else f"a Python {type(obj).__name__}"
        return StaticValueError(
            f"indexing {kind} at a runtime position: the position {counter}",
            hint=_TABLE_HINT if rows else _runtime_index_hint(obj))

    def _check_aliased_argument_read(self, obj, key):
        """obj[key] where obj is a list or dict also passed as an argument
        (see _refuse_aliased_argument): an array item is the argument's
        (_shared_argument_item); any other item is read as an outside
        item while the copy's item is unchanged, and refused once the
        argument rebound it, which this read would not see."""
        original = self.argument_originals.get(id(obj))
        if original is None or original[0] is not obj:
            return
        copy = original[1]
        slot = _existing_slot(copy, key)
        bound = self.argument_items.get(id(copy), {})
        if slot is None or slot not in bound or _is_array_object(obj[slot]):
            return
        if copy[slot] is not bound[slot]:
            self._refuse_aliased_argument(obj)

    def _shared_argument_item(self, container, slot, value):
        """container[slot], an array, where the container is also passed as
        an argument (`fit(ps, SGD(ps))`: the optimizer holds the model's
        parameter list): the argument's copy holds the call's value of that
        item (updated, rebound, or a loop body's), which is what NumPy
        reads through either name.  The caller's array there is captured
        too (a tie: calls.capture), only to check at each call that both
        places still hold one array.  None where that is not the case."""
        original = self.argument_originals.get(id(container))
        if original is None or original[0] is not container or not _is_array_object(value):
            return None
        copy = original[1]
        if _existing_slot(copy, slot) is None:
            return None
        self.capture(value, ("item", type(container).__name__, repr(slot)),
                     lambda: container[slot], container, ("item", slot))
        # (a loop keeps it the same object, its items the body's: loops._settle_while)
        self.shared_argument_copies[id(copy)] = copy
        return copy[slot]

    def _refuse_aliased_argument(self, obj):
        """A list or dict passed as an argument is traced as a copy (its
        items written back after the call); the same object reached another
        way (`self.state` holding it) is the caller's, which the trace does
        not see change: rebinding its items there would be lost, and reading
        there an item the copy rebound would read it stale, so both are
        refused."""
        original = self.argument_originals.get(id(obj))
        if original is not None and original[0] is obj:
            raise SideEffectError(
                f"a {type(obj).__name__} passed as {original[2]} and also reached another "
                "way (an attribute, a global or another container) cannot be changed there, "
                "nor read there after the argument's items change: the compiled call works "
                "on a copy of the argument",
                hint="change it through the argument only, or do not pass it as an argument")

    def _rebinds_outside_item(self, obj, slot, value) -> bool:
        """`self.m[k] = new` or `self.state["t"] += 1` on an item a dict or
        list from outside (not an argument) has: rebound after each call,
        as an attribute is (_rebind_outside, shadow key ("item", slot)).
        False where that is not it (then the change is refused)."""
        if not (isinstance(value, Array) or _is_number(value)
                or stored_value_arrays(value) is not None) \
                or not (type(obj) is list or isinstance(obj, dict)) \
                or id(obj) in self.argument_containers \
                or self.ctx.merged_containers.get(id(obj)) is obj:
            return False
        self._rebind_outside(obj, ("item", slot), value, f"the item [{slot!r}]",
                             f"the item [{slot!r}] of a {type(obj).__name__} that outlives "
                             "the call", lambda: self.getitem(obj, slot))
        return True

    def _holds_captured(self, container, key, value) -> bool:
        """Whether container[key] is the outside array captured as `value`: a
        dict or list from outside that is not an argument (`self.opt["m"]`)
        still holds the NumPy array, not its Array, so after `m.v["w"] *= b`
        the store-back must be recognized here as the no-op it is."""
        try:
            item = native_item(container, key) if not isinstance(key, (Array, slice)) else None
        except (KeyError, IndexError, TypeError, AttributeError):
            return False
        entry = self.captured.get(id(item)) if item is not None else None
        return entry is not None and entry.array is value

    def _may_rebind_items(self, obj) -> bool:
        """Whether items of `obj` (a list or dict the compiled code made) may
        be rebound here: anywhere but in a function tpucc.grad differentiates,
        when made before it.  In a runtime `if` or loop, the region merges or
        carries the items (control.py, loops.py); adding or removing items
        stays refused there (check_mutation).  An argument's copy may be
        rebound there too: its changed items are written back."""
        if id(obj) in self.argument_containers:
            return not self.in_region() or self._in_frame_region()
        if self.ctx.merged_containers.get(id(obj)) is obj:
            return False
        return self.ctx.runtime_depth > 0 and self.ctx.effect_frames[-1] is not None

    def _appends_journaled(self, lst) -> bool:
        """Whether an append to `lst` is an item write past its end, undone
        at the end of the runtime `if`'s arm it is in: a list the program
        made before that `if`, and after any runtime loop around it (whose
        iterations would each add items: check_mutation refuses that), in
        an `if` its frame merges.  Arms that each append as many items
        merge them, so the list has one length on every path
        (control._refuse_other_appends).  Not an argument's list (its
        appends are not written back)."""
        entry = self.fresh_ids.get(id(lst))
        c = self.ctx
        return (entry is not None and entry[0] is lst and c.runtime_depth > 0
                and not c.grad_depth and entry[1] < c.serial_floor[-1]
                and not any(floor > entry[1] for floor in c.loop_floors)
                and id(lst) not in self.argument_containers and self._may_rebind_items(lst))

    def _rebinding_items(self, d, name, args, kwargs):
        """(result,) of `d.update(...)` or `d.setdefault(k, ...)` that only
        rebinds or reads keys d has (restoring a checkpoint into the
        parameters), or of `lst.sort()` / `lst.reverse()` (a permutation of
        its items): the item assignments they are, written back and
        journaled as those; None for any other call."""
        if type(d) is list and name in ("append", "extend") and len(args) == 1 \
                and not kwargs and self._appends_journaled(d):
            items = [args[0]] if name == "append" else self.static_items(args[0])
            for v in items:
                set_item(d, len(d), v, self.fresh_ids[id(d)][1])
            return (None,)
        if type(d) is list and name in ("sort", "reverse") and not args:
            if name == "reverse" and kwargs:
                return None         # (Python's TypeError, from the list itself)
            items = list(reversed(d)) if name == "reverse" else \
                BUILTINS[sorted](self, list(d), **kwargs)
            for k, v in enumerate(items):
                self.setitem(d, k, v)
            return (None,)
        if type(d) is collections.deque:
            return self._deque_in_place(d, name, args, kwargs)
        if not isinstance(d, dict) or name not in ("update", "setdefault"):
            return None
        if name == "setdefault":
            if args and not _any_runtime(args[:1], {}) and args[0] in d:
                return (self.getitem(d, args[0]),)
            return None
        try:
            new = dict(*args, **kwargs)
        except (TypeError, ValueError):
            return None
        if not all(not isinstance(k, Array) and (k in d or id(d) in self.attribute_dicts)
                   for k in new):
            return None
        for k, v in new.items():
            self.setitem(d, k, v)
        return (None,)

    def _deque_in_place(self, d, name, args, kwargs):
        """(None,) of a deque method done as the item assignments and
        appends it is (so that a runtime loop or `if` carries the items, as
        a list's), on a deque the program made: `rotate(k)` of a static k,
        `reverse()`, and `append`, `appendleft`, `extend` or `extendleft`
        of static items.  On a deque full to its maxlen (the sliding window
        `win.append(v)`) its length stays; one with room left grows at its
        end as a list does, where a list's append could
        (_appends_journaled: arms of a runtime `if` appending as many
        items).  None for any other call."""
        made_here = self.fresh_ids.get(id(d), (None,))[0] is d   # (not an argument's)
        if not made_here or kwargs or name not in _DEQUE_SHIFTS or (name == "rotate" and not all(
                type(a) is int for a in args)) or (name.startswith("extend") and not all(
                type(a) in (list, tuple) for a in args)):
            return None
        moved = collections.deque(self.static_items(d), maxlen=d.maxlen)
        try:
            getattr(moved, name)(*args)
        except TypeError:
            return None         # (Python's TypeError, from the deque itself)
        kept = len(d)
        if len(moved) != kept and not (len(moved) > kept and self._appends_journaled(d)):
            return None
        for k in range(kept):
            self.setitem(d, k, moved[k])
        for v in list(moved)[kept:]:
            set_item(d, len(d), v, self.fresh_ids[id(d)][1])
        return (None,)

    def _read_tuples(self, v):
        """A tuple (a namedtuple) with its arrays read as the program's
        values, as unpacking it would (those of a global: captured inputs)."""
        if not isinstance(v, tuple):
            return v
        items = [self._read_tuples(x) for x in self.static_items(v)]
        return type(v)(*items) if hasattr(v, "_fields") else tuple(items)

    def static_items(self, v) -> tuple:
        v = self.resumed(v)
        if isinstance(v, Array):
            return tuple(v)
        if isinstance(v, SeqIter):
            return consumed(v)
        if isinstance(v, RuntimeRange):
            raise StaticValueError(
                "the items of a range with a runtime length are needed at compile time (to "
                "unpack it, or to make a list or tuple of it)",
                hint="loop over it (`for i in range(n)` becomes a runtime loop), or use "
                     "np.arange with a static length")
        if isinstance(v, RangeIter):
            if not v.is_static():
                raise StaticValueError("unpacking a range with a runtime length")
            return tuple(dataclasses.replace(v, pos=p).item() for p in range(v.pos, v.stop, v.step))
        if isinstance(v, (list, tuple, collections.deque)):
            self.guard_contents(v)
            return tuple(self._item(v, i, x) for i, x in enumerate(v))
        view = _DICT_VIEWS.get(type(v))
        if view is not None and view != "keys":
            return self.dict_items(self.dict_of(v), values_only=view == "values")
        if isinstance(v, (dict, set, collections.ChainMap, *BY_VALUE)) or view == "keys":
            self.guard_contents(self.dict_of(v))
        if isinstance(v, (set, frozenset)) and not all(
                isinstance(x, (int, float, complex)) for x in v):
            # the order of a set of strings follows their hashes, salted per process
            self.ctx.process_local = "the order of a set of strings"
        it = self.user_iterator(v)
        if it is not None:          # a user container (a ModuleList): what it reads is guarded
            return self.pulled_items(it) if self.user_dunder(it, "__next__") is not None \
                else self.static_items(it)
        getitem = self.user_dunder(v, "__getitem__")
        if getitem is not None and class_attribute(type(v), "__iter__") is None:
            return self.indexed_items(v, getitem)
        refuse_outside_iterator(v)
        return native_items(v)

    def user_iterator(self, v):
        """v.__iter__() interpreted where v's class defines it, else None."""
        method = self.user_dunder(v, "__iter__")
        if method is None:
            return None
        it = self.inline_dunder(method, v, iter)
        if not hasattr(iterators.python_type(it) or type(it), "__next__"):
            # (iter()'s check: a list, or self without __next__, is no iterator)
            raise UserCodeError(f"TypeError: iter() returned non-iterator of type "
                                f"'{python_type_name(it)}'")
        return it

    def next_item(self, it, method):
        """it.__next__() of a user iterator, interpreted: its item, or
        MISSING where it raised StopIteration (under static conditions:
        where the iteration ends must be known while compiling, for a
        consumer that takes the items at compile time: list(it), zip)."""
        item = self.next_item_or_runtime_end(it, method)
        if isinstance(item, iterators.RuntimeEnd):
            raise _runtime_end_refusal(type(it).__name__)
        return item

    def next_item_or_runtime_end(self, it, method):
        """next_item, or an iterators.RuntimeEnd where __next__ raises
        StopIteration under a runtime condition (for a `for` loop over it,
        and next(it, default))."""
        return self._item_or_end(method, [it], StopIteration)

    def _item_or_end(self, method, args, ending):
        """method(*args) interpreted: its value, or MISSING where it raised
        `ending`, the exception that ends an iteration, at this level, or a
        RuntimeEnd where it raised StopIteration under a runtime condition
        of its own (interpreter.RAISE_VARARGS)."""
        call = iterators.NextCall(exceptions.level(), ending, len(self.frames))
        self.next_levels.append(call)
        try:
            item = self.inline(method, args, {})
        except UserCodeError as e:
            if isinstance(e.raised, ending) and e.level == call.level:
                return MISSING
            raise
        finally:
            self.next_levels.pop()
        stopped = call.frame.locals.get(iterators.STOPPED, False) if call.frame else False
        if isinstance(stopped, Array):
            return iterators.RuntimeEnd(item, stopped)
        return MISSING if stopped else item

    def _note_next_frame(self, frame) -> None:
        """`frame`, the user __next__ that _item_or_end calls, starts not
        stopped: its STOPPED flag is False on each path that returns an
        item (a runtime raise of StopIteration sets it)."""
        call = self.next_levels[-1] if self.next_levels else None
        if call is not None and call.frame is None and call.calls == len(self.frames) \
                and call.ending is StopIteration and frame.yields is None:
            call.frame = frame
            frame.locals[iterators.STOPPED] = False

    def pulled_items(self, it) -> tuple:
        """All the items of a user iterator, its __next__ called until it
        raises StopIteration (list(it), unpacking, sum(it))."""
        method = self.user_dunder(it, "__next__")
        return self._items_until_end(lambda: self.next_item(it, method), type(it).__name__)

    def indexed_items(self, v, method) -> tuple:
        """The items of an object whose class has __getitem__ but no
        __iter__ (Python's old sequence protocol): v[0], v[1], ...
        interpreted until one raises IndexError, the user's own or NumPy's
        for an index past an array's end (natively, __getitem__ would run on
        tpucc's stand-ins, where that index is tpucc's error)."""
        positions = itertools.count()
        return self._items_until_end(
            lambda: self._item_or_end(method, [v, next(positions)], (IndexError, StopIteration)),
            type(v).__name__)

    @staticmethod
    def _items_until_end(next_item, what: str) -> tuple:
        items = []
        while (item := next_item()) is not MISSING:
            items.append(item)
            if len(items) > control.MAX_UNROLL:     # (each one a traced call)
                raise LimitError(f"a {what} iterator gave more than "
                                 f"{control.MAX_UNROLL} items at compile time (an endless one?)",
                                 hint="iterate over an array or a range instead")
        return tuple(items)

    def user_dunder(self, obj, name: str):
        """user_dunder, guarding obj's class and what its classes hold under
        `name` (a method Python looks up on the class: replacing it, or
        adding it to a subclass, recompiles)."""
        cls = type(obj)
        if is_library_class(cls):
            return None
        method = self.dunders.get((cls, name), MISSING)
        if method is MISSING:       # (classes keep their methods while a trace runs)
            method = self.dunders[cls, name] = user_dunder(obj, name)
            self.guard_lookup(cls, name)
        self.guard_class(obj)
        return method

    def guard_lookup(self, cls, name: str):
        """Recompile when the user classes of cls's MRO change what `name`
        finds: the first that holds it, replacing it; one before it (or any,
        where none does), gaining it."""
        if (id(cls), name) in self.guarded_lookups:
            return
        self.guarded_lookups.add((id(cls), name))
        for klass in cls.__mro__:
            if is_library_class(klass):
                continue
            ns = vars(klass)
            found = ns.get(name, MISSING)
            self._guard(ns, name, found, klass, "vars")
            if found is not MISSING:
                return

    def index_values(self, key):
        """A subscript with its user objects that have __index__ (x[:n]) as
        the ints their interpreted __index__ gives: built-in sequences and
        arrays would call it natively."""
        if isinstance(key, Array):
            return key
        if isinstance(key, chosen_values.ChosenValue):     # `counts[stage]` of an IntEnum
            return chosen_keys.index(key)
        if isinstance(key, tuple):
            return tuple(map(self.index_values, key))
        if isinstance(key, slice):
            key = slice(*map(self.index_values, (key.start, key.stop, key.step)))
            indexing.check_slice_bounds(key)    # (a list's [:k / 2] too: never an int)
            return key
        method = self.user_dunder(key, "__index__")
        if method is None:
            return key
        return checked_number_result(self, "__index__", key, self.inline(method, [key], {}))

    def take_indices(self, indices):
        """np.take's indices with their user objects that have __index__ as
        the ints it gives, in lists too: NumPy converts each item to an
        integer (a subscript takes no list of such objects)."""
        if isinstance(indices, (list, tuple)):
            return type(indices)(map(self.take_indices, indices))
        return self.index_values(indices)

    def inline_dunder(self, method, obj, native):
        """obj.method() interpreted; where it uses what tpucc does not compile
        (`yield from`), run natively as before: correct now, but what it
        reads is not guarded."""
        try:
            return self.inline(method, [obj], {})
        except UnsupportedError as refusal:
            try:
                out = native(obj)
            except NeedsStatic:     # (the native run reads runtime values: the refusal stands)
                raise refusal from None
            return _refusal_kept(out, refusal) if isinstance(out, types.GeneratorType) else out

    def truth_value(self, v):
        """What `if v:` and `not v` test: a container from outside guarded
        on its length; a user object's __bool__ (or __len__) interpreted."""
        if isinstance(v, chosen_values.ChosenValue):
            return chosen_values.truth(v)
        if isinstance(v, (list, dict, set, collections.deque)):
            self.guard_contents(v, whole=False)
            return len(v) > 0
        if isinstance(v, popped_queues.PoppedQueue):
            return v.truth(self)
        for name in ("__bool__", "__len__"):
            method = self.user_dunder(v, name)
            if method is not None:
                result = self.inline_dunder(method, v, bool)
                check_truth_result(name, result)
                return result if isinstance(result, Array) else bool(result)
        return v

    def dict_of(self, view):
        """The dict behind d.keys(), d.values() or d.items() made in this
        trace, or behind a view from elsewhere or a read-only proxy (a
        class's __dict__, inspect's Signature.parameters); `view` itself for
        anything else."""
        held = self.dict_views.get(id(view))
        if held is not None:
            return held[1]
        if type(view) in _DICT_VIEWS:
            view = view.mapping
        return _proxied(view) if type(view) is types.MappingProxyType else view

    def dict_items(self, mapping, values_only=False) -> tuple:
        """mapping.items() (or .values()), each item read as mapping[k] is."""
        self.guard_contents(mapping)
        if id(mapping) in self.attribute_dicts:
            items = tuple((k, self.getitem(mapping, k)) for k in self._dict_keys(mapping))
            return tuple(v for _, v in items) if values_only else items
        if values_only:
            return tuple(self._item(mapping, k, mapping[k]) for k in mapping)
        return tuple((k, self._item(mapping, k, mapping[k])) for k in mapping)

    def get_iter(self, v, for_loop=False):
        """iter(v); `for_loop`: for a `for` statement's GET_ITER, where an
        iterator made here over a container is the loop's alone."""
        v = self.resumed(v)
        if isinstance(v, (RangeIter, SeqIter)):
            return v
        if for_loop and _held_native(v):
            refuse_outside_iterator(v)
            return self._looped_native(v)
        if isinstance(v, range):
            if not for_loop and len(v) <= _HELD_RANGE_ITEMS:
                # a variable holds it (`it = iter(range(6))`, heapq.nsmallest's): a
                # loop, zip or islice that takes part of it leaves the rest for the
                # next reader, which a SeqIter's shared Cursor tracks (a RangeIter
                # is a functional copy: every reader would start from the beginning)
                return held_iterator(tuple(v), kind="range_iterator")
            return RangeIter(v.start, v.stop, v.step)
        buffers.refuse_stale_read(self, v, "iterating over it")
        if isinstance(v, RuntimeRange):
            return RangeIter(v.start, v.stop, v.step, v.rows)
        if type(v) in ENDLESS:
            refuse_outside_iterator(v)
            # a loop reads it as it gets to each item; iter(), zip(), map() take
            # the iterator itself, which they advance one item per item they give
            return NativeSteps(v, self.ctx.runtime_depth) if for_loop else v
        it = self.user_iterator(v)
        if it is not None:
            # a user iterator (its __next__ called at each step: FOR_ITER, next()), or
            # what a user container's __iter__ gives
            return it if self.user_dunder(it, "__next__") is not None else self.get_iter(it)
        return self.live_iter(v, held=not for_loop)

    def result_feeds_loop(self, through_enumerate=False) -> bool:
        """Whether the value of the call being made goes straight to a for
        loop (the instruction after the CALL is GET_ITER), or with
        `through_enumerate`, is the last argument of a call of enumerate or
        zip (maybe after loading enumerate's start; maybe inside one more)
        whose value does."""
        if not self.frames:
            return False
        f = self.frames[-1]
        instrs = f.fc.blocks[f.current_block].instrs
        k = next((k for k, ins in enumerate(instrs) if ins is f.current), None)
        if k is None:
            return False
        following = [ins.op for ins in instrs[k + 1:k + 5]]
        if following[:1] == ["GET_ITER"]:
            return True
        if not through_enumerate:
            return False
        if following[:1] == ["LOAD_CONST"] or following[:1] == ["LOAD_FAST"]:
            following = following[1:]
        # the last argument of an enumerate or a zip (maybe in another) that feeds the
        # loop: the callables waiting on the stack are those
        calls = 1 if following[:2] == ["CALL", "GET_ITER"] else \
            2 if following[:3] == ["CALL", "CALL", "GET_ITER"] else 0
        waiting = [v for v in reversed(f.stack) if callable(v)][:calls]
        return calls > 0 and len(waiting) == calls and all(v is enumerate or v is zip
                                                           for v in waiting)

    def result_is_argument(self, callee, count: int) -> bool:
        """Whether the value of the call being made goes straight to a call
        of `callee` as the last of its `count` positional arguments (the
        instruction after the CALL calls it): no variable holds that value."""
        if not self.frames:
            return False
        f = self.frames[-1]
        instrs = f.fc.blocks[f.current_block].instrs
        k = next((k for k, ins in enumerate(instrs) if ins is f.current), None)
        if k is None or k + 1 >= len(instrs):
            return False
        following = instrs[k + 1]
        return (following.op == "CALL" and following.arg == (count, ())
                and len(f.stack) >= count and f.stack[-count] is callee)

    def result_stored_into_array(self, argc: int) -> bool:
        """Whether the value of the call being made, with `argc` arguments,
        goes straight into an array element, as in `T[i] = max(a, b)`: the
        instructions after the CALL load a local array, compute its index
        from loads and operators (no call, nothing stored), and store the
        value there, so the store's cast to the array's dtype is all that
        is seen of it.  (`argc` tells it from a call the one written makes,
        the max of `T[i] = sum(map(max, a, b))`.)"""
        if not self.frames:
            return False
        f = self.frames[-1]
        instrs = f.fc.blocks[f.current_block].instrs
        k = next((k for k, ins in enumerate(instrs) if ins is f.current), None)
        if k is None or _call_argc(instrs[k]) != argc:
            return False
        return stored_into_array(instrs[k + 1:], lambda ins: _loaded_local(f, ins)) is not None

    def live_iter(self, v, start=None, backward=False, held=True) -> SeqIter:
        """An iterator over v's items (numbered from `start` as enumerate
        does, or `backward` as reversed gives them), each read when the loop
        gets to it once v changed, where v is a list or an array (SeqIter).
        `held`: the program may keep it (else iterators.loop_iterator)."""
        make = functools.partial(held_iterator if held else loop_iterator,
                                 kind=_iterator_kind(v, start, backward))
        items = self.static_items(v)
        n = len(items)
        where = (lambda pos: n - 1 - pos) if backward else (lambda pos: pos)

        def read(pos):
            k = where(pos)
            item = v[k] if isinstance(v, Array) else self._item(v, k, v[k])
            return item if start is None else (start + pos, item)
        items = items[::-1] if backward else items
        items = items if start is None else _numbered(items, start)
        if type(v) is list and self.generator_runs:
            generator_runs.note_list_iterated(self, v)
        if type(v) is list or isinstance(v, Array):     # (a subclass may iterate its own way)
            return make(items, source=v, stamp=items_stamp(v), read=read,
                        follows_length=type(v) is list and not backward)
        hashed = self.dict_of(v)
        if type(hashed) in (dict, set) and start is None and not backward:
            # Python refuses to go on once the dict or set changed size
            return make(items, source=hashed, stamp=len(hashed),
                        read=self._dict_view_reader(hashed, _DICT_VIEWS.get(type(v))))
        return make(items)

    def _looped_native(self, v) -> SeqIter:
        """`for x in m` over a native iterator the program made and holds
        (`m = map(f, a)`, a held zip or filter): its items taken now, what
        taking them read noted as a generator's run notes it, the loop then
        stepping a SeqIter that `m` stands for from here on (resumed): a
        `break` leaves the rest of `m` for a later next(m) or list(m), and a
        write to what f read, before the loop gets to an item, is refused
        (E500) where the loop takes it."""
        run = generator_runs.start(self, [], [], what=f"a {type(v).__name__} iterator")
        try:
            items = native_items(v)
        finally:
            generator_runs.finish(self, run)
        it = held_iterator(items, kind=type(v).__name__)
        it.cursor.check = generator_runs.checker(self, run)
        self.looped_natives[id(v)] = (v, it)
        return it

    def for_loop_items(self, v):
        """v, or where v is a held native iterator, the SeqIter a `for` loop
        over it steps (enumerate(m) and zip(m, xs) straight in a loop)."""
        return self.get_iter(v, for_loop=True) if _held_native(v) else v

    def resumed(self, v):
        """v, or the SeqIter standing for it where v is a native iterator a
        loop took the items of (_looped_native)."""
        entry = self.looped_natives.get(id(v)) if _held_native(v) else None
        return caught_up(entry[1]) if entry is not None and entry[0] is v else v

    def library_iterator(self, a):
        """`a` as native code (itertools.islice(it, 2), chain, pairwise) may
        take it: an iterator compiled code made becomes a real one that
        advances it one item per item the library pulls, when it pulls it,
        so the program's own iterator stands where Python's would (the rest
        is left after `list(islice(it, 2))`); other values as they are."""
        a = self.resumed(a)
        if isinstance(a, SeqIter):
            return pulled_lazily(self, a)
        if isinstance(a, (RangeIter, RuntimeRange)):
            return iter(self.static_items(a))
        return a

    def _dict_view_reader(self, mapping, view):
        """For an iterator over d.values() or d.items(): the item at a
        position read from the dict now (a value rebound after the iterator
        was made is seen, as Python's iterator sees it); None for keys."""
        if type(mapping) is not dict or view not in ("values", "items"):
            return None
        keys = tuple(mapping)

        def read(pos):
            value = self._item(mapping, keys[pos], mapping[keys[pos]])
            return value if view == "values" else (keys[pos], value)
        return read

    # --- calls ------------------------------------------------------------------------------
    def call(self, fn, args, kwargs):
        if isinstance(fn, WithExit):        # the end of a `with` block (interpreter.BEFORE_WITH)
            return fn.exit(*args, **kwargs)
        if isinstance(fn, (TracedExit, SteppedExit, popped_queues.QueueMethod)):
            return fn.call(self, args, kwargs)
        if isinstance(fn, types.MethodDescriptorType) and args \
                and isinstance(args[0], popped_queues.PoppedQueue):
            # list.pop(q), and copy.copy's list.copy(q): as q.pop, q.copy
            return self.call(popped_queues.method(args[0], fn.__name__), list(args[1:]), kwargs)
        if isinstance(fn, GeneratorManager):
            raise UnsupportedError("a @contextlib.contextmanager function used as a decorator is "
                                   "not supported in compiled code",
                                   hint="use it in a `with` statement inside the function")
        if isinstance(fn, chosen_functions.ChosenFunction):
            return self.call(chosen_functions.call_chosen,
                             [fn.position, fn.candidates, tuple(args), kwargs], {})
        if isinstance(fn, BoundArrayMethod) and fn.name == "__array_ufunc__":
            ufunc, method, *inputs = args      # x.__array_ufunc__(np.add, "reduce", x)
            return self.call(ufunc if method == "__call__" else getattr(ufunc, method),
                             inputs, kwargs)
        if isinstance(fn, BoundArrayMethod):
            if isinstance(fn.array, Array):
                library_signatures.refuse_rejected_keywords(
                    getattr(np.ndarray, fn.name, None), [fn.array, *args], kwargs,
                    f"ndarray.{fn.name}")
            table = masked.methods_of(fn.array) if isinstance(fn.array, masked.Selection) \
                else METHODS
            self.guard_read_by_numpy(*args, *kwargs.values())     # x.reshape(SHAPE)
            args, kwargs = library_signatures.method_call(fn.name, table[fn.name],
                                                        [fn.array, *args], kwargs)
            if fn.name not in WRITES_OUT_METHODS:
                _refuse_out(f"x.{fn.name}", kwargs)
            _refuse_set_operand(f"x.{fn.name}", None, table[fn.name], args, kwargs,
                                receiver=True)
            if fn.name in _SHAPE_METHODS:       # x.reshape(n, -1): a user __index__ interpreted
                args = [args[0], *(self.index_values(a) for a in args[1:])]
            elif fn.name == "take" and len(args) > 1:    # x.take(Idx(1))
                args = [args[0], self.take_indices(args[1]), *args[2:]]
                if masked.holds_selection(args[1:], kwargs):    # x.take(idx[lo:hi])
                    return self._owned(masked.numpy_call(np.take, args, kwargs))
            try:
                out = static_arguments.call(f"x.{fn.name}()", None, table[fn.name], args, kwargs)
            except (UnsupportedError, StaticValueError, ShapeError):
                folded = _constants_folded(args, kwargs)
                if folded is None:
                    raise
                # (walls.nonzero() of a constant mask: NumPy's, now, as np.nonzero(walls))
                (array, *args), kwargs = folded
                return self._owned(self._library_call(getattr(array, fn.name), args, kwargs))
            return self._owned(_scalar_stays_scalar(fn.array, out))
        if isinstance(fn, pynumbers.BoundNumberMethod):
            return pynumbers.call(self, fn, args, kwargs)
        if isinstance(fn, np.vectorize):
            return self._vectorized(fn, args, kwargs)
        if isinstance(fn, types.MethodWrapperType) and fn.__name__ == "__call__":
            return self.call(fn.__self__, args, kwargs)     # getattr(np.add, "__call__")(x, 1)
        if isinstance(fn, Array):   # before `fn in ...` below, which would compare arrays
            raise UserCodeError("TypeError: 'numpy.ndarray' object is not callable")
        if _is_unbound_array_method(fn) and args and isinstance(args[0], Array):
            # np.ndarray.sum(x), map(np.ndarray.sum, rows), key=np.ndarray.sum: x.sum()
            return self.call(self.getattr(args[0], fn.__name__), list(args[1:]), kwargs)
        if isinstance(fn, GradFunction):
            from .ad import trace_grad
            return trace_grad(self, fn, args, kwargs)
        if any(fn is make for make in _MAKE_GRAD):  # tpucc.grad(f) in compiled code: static
            return fn(*args, **kwargs)
        if isinstance(fn, functools.partial):    # its args read as a tuple's and dict's items are
            return self.call(fn.func, list(self.static_items(fn.args)) + list(args),
                             {**dict(self.dict_items(fn.keywords)), **kwargs})
        if _is_compiled(fn):
            return self.call(fn.fn, args, kwargs)   # a compiled helper: part of this program
        if isinstance(fn, types.MethodType) and _is_compiled(fn.__func__):   # a compiled method
            return self.call(fn.__func__.fn, [fn.__self__, *args], kwargs)
        if type(fn).__name__ == "LoadedEntry" and type(fn).__module__ == "tpucc.aot.load":
            _refuse_loaded_artifact(fn)
        if isinstance(fn, (operator.itemgetter, operator.attrgetter)) and len(args) == 1 \
                and not kwargs:
            return getter_call(self, fn, args[0])
        if isinstance(fn, operator.methodcaller) and len(args) == 1 and not kwargs:
            return method_caller_call(self, fn, args[0])
        if isinstance(fn, functools._lru_cache_wrapper):
            return self._cached_call(fn, args, kwargs)
        if local_caches.is_cache_maker(fn):     # a cache made, and dying, in the call
            return local_caches.make(fn, args, kwargs)
        if isinstance(fn, local_caches.LocalCache):
            return local_caches.call(self, fn, list(args), kwargs, _any_runtime(args, kwargs))
        if isinstance(fn, types.MethodType) and isinstance(fn.__self__, local_caches.LocalCache):
            return local_caches.method(fn.__self__, fn.__name__, args, kwargs)   # cache_info()
        if _is_object_setattr(fn):          # super().__setattr__(name, value)
            return self.call(object.__setattr__, [fn.__self__, *args], kwargs)
        item_call = _builtin_item_call(fn, args, kwargs)
        if item_call is not None:           # super().__setitem__(k, v) in a dict subclass
            return self._builtin_item_write(*item_call)
        if fn is bool and len(args) == 1 and not kwargs and \
                isinstance(args[0], chosen_values.ChosenValue):
            return chosen_values.truth(args[0])
        if isinstance(fn, chosen_values.ChosenMethod):    # `status.upper()`: each object's
            return chosen_values.call_method(fn, args, kwargs)
        if fn is print and optional_numbers.first_optional(args) is not None:   # (a number or None)
            return self.call(optional_numbers.call_resolved,
                             optional_numbers.resolved_call(fn, args, kwargs), {})
        if isinstance(fn, chosen_members.MemberMethod):   # `stage.next()`: each member's
            return chosen_members.call(self, fn, args, kwargs)
        if fn is print and chosen_values.holds_choice(args):   # printed in a branch per object
            return self.call(chosen_values.call_resolved,
                             chosen_values.resolved_call(fn, args, kwargs), {})
        if isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) in _SEARCHED \
                and fn.__name__ in _COMPARING_METHODS:
            searched = self._searched_choices(fn, args, kwargs)
            if searched is not _NOT_SEARCHED:
                return searched
        chosen = chosen_values.first_choice((*args, *kwargs.values()))
        if chosen is not None and not kwargs and _hashable(fn) \
                and fn in chosen_values.MAPPED_BUILTINS:       # `len(status)`: per object
            result = chosen_values.call_mapped(fn, args)
            if result is not None:
                return result
        if chosen is not None and fn is len and len(args) == 1 and \
                not isinstance(args[0], chosen_values.ChosenValue):
            chosen = None               # (`len([status, 1])` counts the items only)
        if chosen is not None and isinstance(fn, types.BuiltinMethodType) and (
                chosen_values.choosable(fn.__self__)      # `"-".join([status, "!"])`
                or chosen_values.reads_static_container(fn)):     # `ORDER.index(h)`
            result = chosen_values.static_method_call(fn, args, kwargs)
            if result is not None:
                return result
        if _is_dict_get(fn) and 1 <= len(args) <= 2 and not kwargs and \
                chosen_keys.is_key(args[0]):        # `NOTES.get(name, 0.0)`
            return chosen_keys.dict_get(self, fn.__self__, *args)
        if chosen is not None and not _takes_any_object(fn, args, kwargs):  # (`str([status])`)
            raise chosen_values.refusal(f"passing it to {_called_name(fn)}", chosen)
        # A callable object need not be hashable (a dataclass with eq=True is not).
        hashable = _hashable(fn)
        if hashable and fn in REFUSED:
            name = getattr(fn, "__name__", fn)
            if getattr(fn, "__module__", "").startswith("numpy"):
                name = f"np.{name}"
            raise UnsupportedError(f"calling {name}() is not supported in compiled code",
                                   hint=REFUSED[fn])
        impl = BUILTINS.get(fn) if hashable else None
        if impl is not None:
            if kwargs:      # (Python's names for them: pow(x, exp=2), int(s, base=16))
                args, kwargs = library_signatures.as_impl_takes(fn, impl, args, kwargs,
                                                                _python_stand_in)
            return impl(self, *args, **kwargs)
        if hashable and buffers.reads_buffer(fn, args):    # np.frombuffer(data): its memory
            out = buffers.numpy_read(self, fn, args, kwargs)
            if out is not None:
                return out
            return buffers.snapshot(args[0], self._numpy_or_library_call(fn, args, kwargs))
        if _is_ufunc_method(fn):        # np.add.reduce(t): the user's __array_ufunc__, interpreted
            from . import dunders
            out = dunders.array_ufunc(self, fn.__self__, args, kwargs, method=fn.__name__)
            if out is not dunders.NATIVE:
                return out
        impl = NUMPY.get(fn) if hashable else None
        if impl is not None:
            return self._numpy_call(fn, impl, args, kwargs)
        if hashable and fn in READ_ONCE:
            refuse_read_once(fn, READ_ONCE[fn])
        if isinstance(getattr(fn, "__self__", None), random.Random):    # random.random, rng.gauss
            refuse_read_once(fn, f"random.{getattr(fn, '__name__', 'random')}")
        refuse_host_call(fn)                # log.warning(...), threading.Thread(...)
        if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
            if fn.__func__ is messages.refuse_use:      # a str method of a RuntimeText
                messages.refuse_use()
            if fn.__func__.__code__ is CONTEXTMANAGER_CALL:    # `with model.eval_mode():`
                return GeneratorManager(fn.__func__.__wrapped__, [fn.__self__, *args], kwargs)
            return self.inline(fn.__func__, [fn.__self__] + list(args), kwargs)
        if isinstance(fn, types.FunctionType):
            if fn.__code__ is CONTEXTMANAGER_CALL:     # a @contextlib.contextmanager function
                return GeneratorManager(fn.__wrapped__, args, kwargs)
            if _is_library(fn):
                return self._library_call(fn, args, kwargs)
            return self.inline(fn, args, kwargs)
        if isinstance(fn, type):
            return self.construct(fn, args, kwargs)
        if (isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) is dict
                and fn.__name__ == "get" and not kwargs and 1 <= len(args) <= 2):
            return self.dict_get(fn.__self__, *args)
        if isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) in _SEARCHED \
                and fn.__name__ in ("index", "count") and len(args) == 1 and not kwargs:
            from . import dunders       # the user's __eq__, interpreted
            if dunders.involves_user(args[0]) or dunders.involves_user(fn.__self__):
                return dunders.sequence_method(self, self.static_items(fn.__self__),
                                               fn.__name__, args[0])
        if isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) in _SEARCHED \
                and fn.__name__ in ("index", "count") and 1 <= len(args) <= 3 and not kwargs \
                and (len(args) == 1 or fn.__name__ == "index"):
            if holds_array(args[0]) or holds_array(fn.__self__):
                from . import dunders, element_lists
                if fn.__name__ == "count":      # (arr.tolist().count(v): one reduction)
                    whole = element_lists.counted(self, fn.__self__, args[0])
                    if whole is not None:
                        return whole
                return dunders.runtime_search(self, fn.__name__, args[0], fn.__self__,
                                              tuple(args[1:]))
        if isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) is str \
                and fn.__name__ == "join" and len(args) == 1 and not kwargs \
                and not isinstance(args[0], (str, list, tuple)):
            args = [list(self.static_items(args[0]))]      # ", ".join(f"{v}" for v in x)
            chosen = chosen_values.first_choice(args)
            if chosen is not None:      # ("".join(VOCAB[int(t)] for t in ids): each
                return self.call(fn, args, kwargs)     # combination's text, or refused)
        if isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) is str \
                and fn.__name__ == "format":
            from . import dunders       # "{}".format(obj): the user's __format__ interpreted,
            # "{:.3f}".format(loss) printed at run time
            text = dunders.str_format(self, fn.__self__, args, kwargs)
            if text is not dunders.NATIVE:
                return text
        if isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) is str \
                and any(messages.holds_runtime_text(a) for a in (*args, *kwargs.values())):
            return messages.text_method(fn, args, kwargs)   # ", ".join(f-strings to print)
        if isinstance(fn, types.MethodDescriptorType) and fn.__objclass__ is str \
                and any(messages.holds_runtime_text(a) for a in args):
            messages.refuse_use()                           # str.upper(text)
        if (isinstance(fn, types.BuiltinMethodType) and getattr(fn, "__name__", "") in MUTATORS
                and not isinstance(fn.__self__, types.ModuleType)):   # not operator.add
            if self.generator_runs:
                generator_runs.note_effect(self, fn.__self__)
            picked_copies.refuse_change(fn.__self__)
            _refuse_outside_iterators(args, kwargs)     # (`lst.extend(it)` reads it to its end)
            if fn.__name__ in ("extend", "extendleft", "update"):  # `lst.extend(zip(a, b))`
                args = [tuple(self.static_items(a)) if isinstance(a, (SeqIter, RangeIter))
                        else a for a in args]
            if fn.__name__ == "update":     # `p.update(ck.saved)`
                args = [self.mapping_read(a) for a in args]
            if fn.__name__ == "append" and type(fn.__self__) is list and len(args) == 1 \
                    and not kwargs and stacking.try_record(self, fn.__self__, args[0], True):
                return None             # a counted While's buffers hold it
            if fn.__name__ == "extend" and type(fn.__self__) is list and len(args) == 1 \
                    and not kwargs and type(args[0]) in (list, tuple) \
                    and stacking.try_record_items(self, fn.__self__, self.static_items(args[0])):
                return None             # ... each item of a list or tuple
            if fn.__name__ == "insert" and type(fn.__self__) is list and len(args) == 2 \
                    and type(args[0]) is int and args[0] == 0 and not kwargs \
                    and stacking.try_record(self, fn.__self__, args[1], True, front=True):
                return None             # ... in front, in reverse

            if appends.record(self, fn.__self__, fn.__name__, args, kwargs):
                return None
            rebound = self._rebinding_items(fn.__self__, fn.__name__, args, kwargs)
            if rebound is not None:
                return rebound[0]
            self.check_mutation(fn.__self__, "a container", argument_hint=_APPEND_HINT
                                if fn.__name__ in ("append", "extend") else None,
                                removal=fn.__name__ in _REMOVALS,
                                popped=(fn.__name__, tuple(args)) if fn.__name__ in (
                                    "pop", "popleft") and not kwargs else None)
            buffers.refuse_runtime_store(self, fn.__self__, (*args, *kwargs.values()))
            if isinstance(fn.__self__, (set, frozenset)):
                refuse_runtime_hash(args, "a set item")
            elif isinstance(fn.__self__, dict) and fn.__name__ in ("pop", "setdefault"):
                refuse_runtime_hash(args[:1], "a dict key")
            elif fn.__name__ == "sort" and type(fn.__self__) is list and not args \
                    and _compares_runtime_or_user(fn.__self__):
                # runtime numbers, or a user's __lt__ interpreted (natively it
                # would run on tpucc's stand-ins): sorted()'s rules and messages, in place
                fn.__self__[:] = BUILTINS[sorted](self, list(fn.__self__), **kwargs)
                return None
            elif fn.__name__ == "remove" and type(fn.__self__) is list and len(args) == 1 \
                    and not kwargs and _compares_runtime_or_user(fn.__self__, args[0]):
                from . import dunders       # (a runtime comparison decides which item goes)
                return dunders.remove(self, fn.__self__, args[0])
            elif fn.__name__ == "sort" and kwargs.get("key") is not None:
                kwargs = {**kwargs, "key": InterpretedCallback(self, kwargs["key"])}
            if args:
                _refuse_runtime_user_hash(self, fn.__self__, args[0])
            try:
                out = fn(*args, **kwargs)       # a list/dict/set of ours: it may hold arrays
            except NeedsStatic as e:        # (d.pop(key) compared keys with a user __eq__)
                raise _user_key_refusal(fn.__self__, args[0] if args else None) or e
            _refuse_runtime_keys(fn.__self__)       # (d.update(zip(runtime, ...)))
            return out
        if isinstance(fn, types.BuiltinMethodType) \
                and isinstance(fn.__self__, (list, dict, collections.deque)) \
                and not args and not kwargs:
            if fn.__name__ == "copy":
                return self.copy_container(fn.__self__)
            if fn.__name__ in ("keys", "values", "items") and isinstance(fn.__self__, dict):
                view = fn()         # its .mapping is a read-only proxy: remember the dict
                self.dict_views[id(view)] = (view, fn.__self__)
                return view
        if isinstance(fn, np.poly1d) and not any(isinstance(a, np.poly1d) for a in args):
            # p(x): NumPy's poly1d.__call__ evaluates its coefficients at x
            return self.call(np.polyval, [self.getattr(fn, "coeffs"), *args], kwargs)
        call = class_attribute(type(fn), "__call__")
        if isinstance(call, types.FunctionType) and not _is_library(call):
            self.guard_class(fn)
            self.guard_lookup(type(fn), "__call__")
            return self.inline(call, [fn] + list(args), kwargs)
        if not callable(fn):            # map(3, x), a number called: Python's TypeError
            raise UserCodeError(f"TypeError: '{type(fn).__name__}' object is not callable")
        return self._library_call(fn, args, kwargs)

    def _cached_call(self, fn, args, kwargs):
        """A functools.lru_cache / cache function.  With static arguments its
        cache answers now, as eagerly (the same object for the same
        arguments); an array it answers is a runtime input, asked of the
        cache again at every call, so changes to it are seen and updates
        through it written back.  With runtime arguments its function is
        traced: each call computes anew, with equal values."""
        if _any_runtime(args, kwargs):
            return local_caches.traced_anew(self, fn.__wrapped__, args, kwargs, fn,
                                            fn.cache_parameters()["typed"])
        value = fn(*args, **kwargs)
        name = getattr(fn, "__qualname__", "a cached function")
        return self.capture(value, ("call", getattr(fn, "__module__", None), name),
                            lambda: fn(*args, **kwargs))

    def _numpy_or_library_call(self, fn, args, kwargs):
        impl = NUMPY.get(fn)
        return self._library_call(fn, args, kwargs) if impl is None else \
            self._numpy_call(fn, impl, args, kwargs)

    def _numpy_call(self, fn, impl, args, kwargs):
        self.guard_read_by_numpy(*args, *kwargs.values())     # np.isin(ids, STOP)
        library_signatures.refuse_rejected_keywords(fn, args, kwargs, numpy_name(fn))
        if isinstance(fn, np.ufunc):     # NumPy's protocols on the user's objects, interpreted
            out = dunders.array_ufunc(self, fn, args, kwargs)
            if out is not dunders.NATIVE:
                return out
        args, kwargs = dunders.arrays_of(self, fn, args, kwargs)
        if getattr(fn, "__name__", "") in _CREATION and args:     # np.ones(n): a user __index__
            args = [self.index_values(args[0]), *args[1:]]
        if fn is np.take and len(args) > 1:     # np.take(x, Idx(1)): its __index__ interpreted
            args = [args[0], self.take_indices(args[1]), *args[2:]]
        elif fn is np.take and "indices" in kwargs:
            kwargs = {**kwargs, "indices": self.take_indices(kwargs["indices"])}
        args = [self._arrays_as_inputs(self._deque_as_list(a)) for a in args]
        kwargs = {k: self._arrays_as_inputs(self._deque_as_list(v)) for k, v in kwargs.items()}
        # np.asarray(a.flat), np.sum(a.flat): NumPy reads it as a 1-d copy
        args = [a.as_array() if isinstance(a, FlatIter) else a for a in args]
        if isinstance(fn, np.ufunc) and len(args) > fn.nin and "out" not in kwargs:
            # np.add(a, b, o): the outputs passed by position, as out= (NumPy's order)
            outs = tuple(args[fn.nin:])
            args, kwargs = args[:fn.nin], {**kwargs, "out": outs if len(outs) > 1 else outs[0]}
        args, kwargs = library_signatures.function_call(fn, impl, numpy_name(fn), args, kwargs)
        if masked.holds_selection(args, kwargs):
            return masked.numpy_call(fn, args, kwargs)
        if _any_runtime(args, kwargs) and exceptions.linalg_raises(fn):
            exceptions.refuse_never_raised(self.frames, np.linalg.LinAlgError,
                                           f"np.linalg.{fn.__name__} of a runtime matrix")
        if _any_runtime(args, kwargs) or getattr(fn, "__name__", "") in _CREATION and \
                not _makes_dates(args, kwargs):
            if not (writes_out(fn) and _takes_out(impl)):
                _refuse_out(numpy_name(fn), kwargs)
            _refuse_set_operand(numpy_name(fn), fn, impl, args, kwargs)
            _refuse_unknown_keywords(fn, impl, kwargs)
            if fn in _SCALAR_METHOD_FUNCTIONS and args:
                return _scalar_stays_scalar(
                    args[0], static_arguments.call(numpy_name(fn), fn, impl, args, kwargs))
            try:
                out = static_arguments.call(numpy_name(fn), fn, impl, args, kwargs)
                if not _any_runtime(args, kwargs):      # np.arange(0, 101, 25)
                    _known_creation(fn, args, kwargs, out)
                return self._owned(out)
            except (UnsupportedError, StaticValueError, ShapeError):
                folded = _constants_folded(args, kwargs)
                if folded is None:
                    raise
                args, kwargs = folded       # np.unique(np.array([3, 1, 3])): NumPy's, now
        return self._owned(self._library_call(fn, args, kwargs))

    def _vectorized(self, fn, args, kwargs):
        """np.vectorize(f)(...): a loop calling f (vectorize.py)."""
        if fn.signature is not None or fn.excluded or kwargs or (fn.otypes and len(fn.otypes) > 1):
            raise UnsupportedError(
                "np.vectorize with a signature, excluded arguments, keyword arguments or "
                "several outputs is not supported in compiled code",
                hint="write the loop over the elements, or use NumPy's ufuncs on the arrays")
        return self.call(vectorize.vectorized_call, [fn.pyfunc, fn.otypes, *args], {})

    def _owned(self, out):
        """The lists a NumPy function or method made (x.tolist(), np.split)
        are the program's own, as a list display is: it may change them."""
        if type(out) is list:
            for v in out:
                self._owned(v)
            self.fresh(out)
        return out

    def _deque_as_list(self, v):
        """A deque as the list of its items: NumPy reads a deque through the
        sequence protocol, as it reads a list (np.stack(frames) of a
        deque(maxlen=k) of frames), and NumPy's functions here take lists."""
        return list(self.static_items(v)) if type(v) is collections.deque else v

    def _arrays_as_inputs(self, v):
        """A list or tuple holding NumPy arrays (`np.stack(self.weights)`):
        its arrays are runtime inputs read from it at every call (_item),
        not constants NumPy would fold in now."""
        if isinstance(v, (list, tuple)) and any(
                isinstance(x, np.ndarray) or _is_jax_array(x) for x in v):
            items = self.static_items(v)
            return list(items) if isinstance(v, list) else items
        return v

    def _library_call(self, fn, args, kwargs):
        """A call outside the user's program: evaluated now if all static."""
        name = getattr(fn, "__qualname__", getattr(fn, "__name__", None))
        if name is None:            # a callable object: its class names it
            fn_type = type(fn)
            name, module = f"{fn_type.__qualname__} object", fn_type.__module__
        else:
            module = getattr(fn, "__module__", "") or _module_holding(fn, name)
        if module.startswith("numpy.random"):
            raise UnsupportedError(f"np.random.{name} would be evaluated once at compile time",
                                   hint="draw random numbers outside and pass them in")
        owner = getattr(fn, "__self__", None)
        if _any_runtime(args, kwargs) and isinstance(owner, np.ufunc):     # np.fmax.reduce
            raise UnsupportedError(f"np.{owner.__name__}.{fn.__name__}() is not supported on "
                                   "runtime arrays by tpucc",
                                   hint=ufuncs.method_hint(owner, fn.__name__))
        if _any_runtime(args, kwargs) and module.split(".")[0] == "numpy":
            folded = _constants_folded(args, kwargs)
            if folded is not None:      # np.indices(np.array(x.shape) // 2): values known now
                return self._library_call(fn, *folded)
        if _any_runtime(args, kwargs):
            if module.split(".")[0] == "numpy":     # np.tril_indices(n, k) with a runtime k
                needs_static = static_arguments.refused_library_call(numpy_name(fn), fn,
                                                                     args, kwargs)
                if needs_static is not None:
                    raise needs_static
            raise _native_refusal(fn, name, module, owner, _runtime_what(args, kwargs))
        _refuse_outside_iterators(args, kwargs)     # (the library would advance them now)
        for v in (owner, *args, *kwargs.values()):  # data.decode(), hash(data), ...
            buffers.refuse_stale_read(self, v, f"{getattr(fn, '__name__', 'a library call')}()")
        if getattr(fn, "__name__", None) in _ADVANCING:
            refuse_outside_iterator(owner)          # it.__next__(), gen.send(v)
        # Iterators made by compiled code (a generator expression, map, zip)
        # exist only here: hand the library a real one over the same items.
        args = [self.library_iterator(a) for a in args]
        # `NAMES.index(k)`, `", ".join(NAMES)`, `np.asarray(ROWS)`: native code
        # may read every level of a container (the rows of a list of lists)
        self.guard_contents_deeply((getattr(fn, "__self__", None), *args, *kwargs.values()))
        args, kwargs = _callbacks_interpreted(self, fn, args, kwargs)
        self._check_library_change(fn, owner, args)
        try:
            result = fn(*args, **kwargs)
        except NeedsStatic:
            # Native code read a runtime item of an iterator it pulled
            # (math.fsum(float(v) for v in x)): the call is what fails, not
            # the float() or index the native code made of it.
            raise _native_refusal(fn, name, module, owner, "runtime values") from None
        _refuse_runtime_keys(result, getattr(fn, "__self__", None), *args)
        return natively_made(result)

    def _capture_default_arrays(self, fn, locals_: dict) -> dict:
        """An array default (`def f(x, w=W)`) is read at every call, as a
        global is: updating W in place between calls is seen."""
        defaults, kwdefaults = fn.__defaults__ or (), fn.__kwdefaults__ or {}
        if not any(isinstance(d, np.ndarray) for d in (*defaults, *kwdefaults.values())):
            return locals_
        for name, value in locals_.items():
            if not isinstance(value, np.ndarray):
                continue
            for k, d in enumerate(defaults):
                if d is value:
                    locals_[name] = self._item(defaults, k, value)
                    break
            else:
                if kwdefaults.get(name) is value:
                    locals_[name] = self._item(kwdefaults, name, value)
        return locals_

    def construct(self, cls, args, kwargs):
        if issubclass(cls, (np.datetime64, np.timedelta64)) and _any_runtime(args, kwargs):
            raise runtime_date_refusal(cls, args)
        if _enum_lookup_of_runtime_int(cls, args, kwargs):     # `Wave(int(p[0]))`
            return self._read_at_runtime_key(
                self.fresh(dict(cls._value2member_map_)), args[0], missing="ValueError",
                after=f" is not a valid {cls.__qualname__}")
        if (issubclass(cls, np.generic) and len(args) == 1 and not kwargs
                and isinstance(args[0], Array) and cls is not np.generic):
            return _numpy_scalar_of(cls, args[0])
        if issubclass(cls, (np.ndarray, np.generic)):
            return self._library_call(cls, args, kwargs)
        if cls is np.nditer and _any_runtime(args, kwargs):
            raise _nditer_refusal()
        if issubclass(cls, (np.iinfo, np.finfo)) and not _any_runtime(args, kwargs):
            # np.iinfo(np.int8), np.finfo(x.dtype): static facts about a dtype.
            return self._library_call(cls, args, kwargs)
        if cls is np.poly1d and not _any_runtime(args, kwargs):
            # np.poly1d([1.0, 2.0]): NumPy's object now, made by compiled code
            # (its coefficients are constants, p.deriv() one too)
            return self.fresh(self._library_call(cls, args, kwargs))
        if cls is itertools.count and self.result_feeds_loop():
            counting = counting_range(args, kwargs)     # (no one else holds the iterator)
            if counting is not None:
                return counting
        if isinstance(cls, enum.EnumMeta) and len(args) == 1 and not kwargs and \
                isinstance(args[0], Array):       # `Heading((h.value + 1) % 4)`: per value
            member = chosen_values.member_by_value(cls, args[0])
            if member is not None:
                return member
        buffers.refuse_bytes_of_runtime(self, cls, args)
        _refuse_runtime_number_subclass(cls, args, kwargs)
        if not _is_user_class(cls):
            # a library container (partial, namedtuple, ...) or iterator (itertools.starmap):
            # an iterator made by compiled code exists only here, so it gets a real one
            _refuse_outside_iterators(args, kwargs)
            args = [self.library_iterator(a) for a in args]
            args, kwargs = _callbacks_interpreted(self, cls, args, kwargs)
            if issubclass(cls, dict):       # OrderedDict(d), defaultdict(list, d), Counter(d)
                args = [self.mapping_read(a) for a in args]
            obj = _made_by_library(cls, args, kwargs)
            _refuse_runtime_keys(obj)
            if isinstance(obj, (list, dict, set, collections.deque, bytearray, array.array)):
                # collections.defaultdict(list), OrderedDict(), deque(),
                # bytearray(n): made by the call, which may fill it
                self.fresh(obj)
            return obj
        if isinstance(class_attribute(type(cls), "__call__"), types.FunctionType):
            raise UnsupportedError(f"making a {cls.__name__}: its metaclass "
                                   f"{type(cls).__name__} defines __call__, which compiled code "
                                   "does not run", hint="make the object outside the compiled "
                                   "function and pass it in")
        obj = cls.__new__(cls)
        self.fresh(obj)
        self.guard_lookup(cls, "__init__")
        init = class_attribute(cls, "__init__")
        if isinstance(init, types.FunctionType):
            returned = self.inline(init, [obj] + list(args), kwargs)
            if returned is not None:        # (type.__call__'s check)
                raise UserCodeError(f"TypeError: __init__() should return None, not "
                                    f"'{python_type_name(returned)}'")
        return obj

    def inline(self, fn: types.FunctionType, args, kwargs):
        fn = past_repr_guard(fn)
        if fn.__code__ is _SINGLE_DISPATCH and len(args) == 1 and not kwargs \
                and isinstance(args[0], type) and not any(
                    isinstance(_cell_contents(c), OwnedCell) for c in fn.__closure__ or ()):
            return fn(*args)        # (one made by compiled code reads its frame's cells)
        if fn.__code__.co_flags & _ASYNC_FLAGS:
            # Eagerly the call returns a coroutine, not the function's result.
            raise UnsupportedError("async code (`async def`) is not supported in compiled code",
                                   None if self.frames else builder.def_loc(fn),
                                   "compile a plain function; call it from your async code")
        if self.depth >= MAX_INLINE_DEPTH and (self.depth >= MAX_FRAME_DEPTH or (
                fn.__code__.co_name not in _COMPREHENSIONS
                and _user_calls(self.frames) >= MAX_INLINE_DEPTH)):
            raise _nested_too_deep(fn, self.frames)
        frame = self.make_frame(fn, args, kwargs)
        self._note_next_frame(frame)
        recursion.note_call(self.frames, frame)
        run = None
        if frame.yields is not None:
            self.fresh(frame.yields)        # (a list only the generator appends to)
            run = generator_runs.start(self, frame.yields, list(frame.locals.values()))
            generator_folds.start(self, frame)
        try:
            self.run_frame(frame, 0)
        except UserCodeError as e:
            if generator_folds.folds(frame):
                raise       # (sum() would have got the error before its result)
            if frame.yields is not None:
                if e.level == exceptions.ESCAPED_RUNTIME_REGION:
                    raise       # a `try` in the generator would catch it: refused there
                # raised where the consumer gets past the items yielded before
                return self._generator_made(run, held_iterator(
                    RaisingTail(frame.yields, exceptions.left_generator_body(e)),
                    kind="generator"))
            raise
        finally:
            if run is not None:
                generator_runs.finish(self, run)
        folded = generator_folds.total(frame)
        if folded is not None:
            return folded                           # (all consumed, by sum(): nothing held)
        if frame.yields is not None:
            value = frame.locals.get("<return>")
            made = held_iterator(frame.yields if value is None
                                 else ReturningTail(frame.yields, value), kind="generator")
            self._note_early_generator(fn, made, len(frame.yields))
            return self._generator_made(run, made)
        result = frame.locals.get("<return>")
        if self.depth == 0:
            generator_runs.check_unconsumed_effects(self, self.ctx.region)
        if self.depth == 0 and masked.holds_selection((result,), {}):
            raise masked.refusal("returning x[mask]", masked.first_selection((result,))
                                 ).with_loc(self.last_return_loc)
        if self.depth == 0 and isinstance(result, FlatIter):
            raise UnsupportedError("returning a.flat (a flat iterator over a compiled array) is "
                                   "not supported", hint="return a.ravel() (a.flat[:] is a "
                                   "copy)").with_loc(self.last_return_loc)
        return result

    def make_frame(self, fn: types.FunctionType, args, kwargs):
        if self.depth > 0:
            self._guard_function(fn)
        locals_ = self._capture_default_arrays(fn, bind_arguments(fn, args, kwargs))
        for d in (*(fn.__defaults__ or ()), *(fn.__kwdefaults__ or {}).values()):
            # (made once, with the function: it outlives every call)
            note_outside_iterator(d, f"a default argument of {fn.__name__}()")
        code = fn.__code__
        if code.co_flags & inspect.CO_VARKEYWORDS:      # `**kw`: a dict the call made
            n = code.co_argcount + code.co_kwonlyargcount + \
                bool(code.co_flags & inspect.CO_VARARGS)
            self.fresh(locals_.get(code.co_varnames[n]))
        frame = Frame(self, fn, locals_, {})
        if self.depth == 0:     # the compiled function places its errors, wherever it lives
            frame.placed = True
        frame.cells = self._cells(fn, frame)
        return frame

    def _guard_function(self, fn):
        """A user function from outside the call runs as its code and defaults
        are now: replacing them (IPython's autoreload patches `__code__` in
        place; `f.__defaults__ = ...`; `f.__kwdefaults__["s"] = 8.0`)
        recompiles.  Not the compiled function itself (checked at every call
        of every program, for a rare edit: compile it again instead), nor
        functions made by the call or library ones."""
        if id(fn) in self.fresh_ids or id(fn) in self.guarded_objects \
                or _is_library_module_name(home_module(fn)):
            return
        self.guarded_objects.add(id(fn))
        self._guard_identity(fn, "__code__", fn.__code__)
        if fn.__defaults__ is not None:
            self._guard_identity(fn, "__defaults__", fn.__defaults__)
        kwdefaults = fn.__kwdefaults__
        if kwdefaults is not None:
            self._guard_identity(fn, "__kwdefaults__", kwdefaults)
            for name, value in kwdefaults.items():
                self._guard(kwdefaults, name, value, kwdefaults, "dict")

    def guard_class(self, obj):
        """`obj` from outside the call does what its class defines: assigning
        its `__class__` recompiles."""
        oid = id(obj)
        if oid in self.guarded_objects or self._made_in_call(obj) \
                or isinstance(obj, (type, types.ModuleType)) or is_library_class(type(obj)):
            return
        self.guarded_objects.add(oid)
        self._guard_identity(obj, "__class__", type(obj))

    def _made_in_call(self, obj) -> bool:
        """Whether `obj` was made by this call: a new object, or the copy a
        runtime pick made (list_loops.chosen_object), which no later call
        sees, and which a guard would keep in use (picked_copies.is_marked)."""
        return id(obj) in self.fresh_ids or self.ctx.chosen_containers.get(id(obj)) is obj

    def _guard_identity(self, obj, attr: str, value):
        """Recompile when obj.attr is no longer `value`: one guard for all
        the objects guarded on `attr` (IdentitiesGuardView)."""
        view = self.identity_views.get(attr)
        if view is None:
            view = self.identity_views[attr] = IdentitiesGuardView(attr)
            self._guard(view, attr, SAME, None, "identities")
        view.add(obj, value)

    def run_frame(self, frame, block: int):
        """Interprets `frame` from `block` to its end (a return)."""
        self.depth += 1
        self.frames.append(frame)
        saved_loc = self.ctx.loc
        try:
            control.walk(frame, block, frozenset())
        finally:
            self.frames.pop()
            self.depth -= 1
            self.ctx.loc = saved_loc

    def _cells(self, fn, frame):
        """The frame's cells by name: its closure's, and one per cell variable
        (a name its inner functions use), made now, whose value the frame
        keeps in its locals (interpreter.OwnedCell)."""
        code = fn.__code__
        cells = dict(zip(code.co_freevars, fn.__closure__ or ()))
        for name in code.co_cellvars:
            cells[name] = self.fresh(types.CellType(OwnedCell(frame, name)))
        return cells

    def _note_early_generator(self, fn, made, count: int):
        """A generator (a generator expression's, `(v * k for v in x)`) ran
        now, when made; Python runs it as it is consumed: a variable of ours
        it reads, rebound before it is consumed, would have its new value
        there (_refuse_late_binding)."""
        keys = {(id(c.frame), c.name) for c in map(_cell_contents, fn.__closure__ or ())
                if isinstance(c, OwnedCell)}
        if keys and count:
            # (held weakly: one the program no longer holds, such as what
            # any() stopped early in, cannot be consumed later)
            self.early_generators.append((keys, weakref.ref(made), count, self.ctx.region))

    def keep_early_generators(self, kept, into):
        """An unrolled iteration's region `kept` was spliced into `into`: the
        generators made there live on (the loop's next iteration rebinding
        the loop variable one of them reads is late binding too)."""
        self.early_generators = [(keys, made, count, into if region is kept else region)
                                 for keys, made, count, region in self.early_generators]
        self.effect_generators = [(run, made, into if region is kept else region)
                                  for run, made, region in self.effect_generators]

    def _generator_made(self, run, made):
        """`made`, the iterator over a generator's items that `run` yielded:
        checked when advanced against what the run read, and at the end
        for how far it was consumed where the run changed outside state."""
        made.cursor.check = generator_runs.checker(self, run)
        generator_runs.note_unconsumed_effects(self, run, made)
        generator_runs.note_unconsumed_writes(self, run, made)
        return made

    def _refuse_late_binding(self, owned, name):
        pending = []
        for keys, made, count, region in self.early_generators:
            if _consumed_or_dropped(made, count) or \
                    not any(r is region for r in self.ctx.regions):
                continue            # consumed, or made in a region left (a loop's trial)
            if (id(owned.frame), owned.name) in keys and not _dropped_once_collected(made):
                raise SideEffectError(
                    f"rebinding `{name}`, which a generator made before reads: compiled code "
                    "runs a generator (a generator expression) when it is made, so its items "
                    "would not see the new value, as Python's do when consumed",
                    hint="make the generator after this assignment (in a loop: consume it "
                         "in the same iteration, or pass the value to a generator function "
                         "as an argument), or use a list comprehension (evaluated at once, "
                         "as compiled)")
            pending.append((keys, made, count, region))
        self.early_generators = pending

    def store_cell(self, cell, name, value):
        """`name = value` for a cell variable (STORE_DEREF): into the locals of
        the compiled frame that owns the cell, else the rebinding of a closure
        variable from outside, written back after each call as an attribute
        is."""
        owned = _cell_contents(cell)
        if self.generator_runs:     # (a `nonlocal` rebound: outside state changed)
            generator_runs.note_effect(self, cell)
        if self.early_generators and isinstance(owned, OwnedCell):
            self._refuse_late_binding(owned, name)
        if not isinstance(owned, OwnedCell):
            self._rebind_outside(cell, "cell_contents", value, f"the closure variable `{name}`",
                                 f"the closure variable `{name}` (its cell outlives the call)",
                                 lambda: self.read_outer_cell(cell, name, name))
            return
        floor, region_frame = self.ctx.effect_floor[-1], self.ctx.effect_frames[-1]
        if (self.in_region() and self.fresh_ids[id(cell)][1] < floor
                and region_frame is not owned.frame):
            # The region merges (or carries) the locals of another frame.
            owner = owned.frame.func.__qualname__
            if self.ctx.runtime_depth > 0:
                where, hint = ("a runtime `if` or loop of another function",
                               f"move the `if` or loop into `{owner}`, or return the new "
                               "value from the inner function")
            else:
                where, hint = ("a function differentiated by tpucc.grad",
                               "return the value from the differentiated function "
                               "(has_aux=True)")
            raise SideEffectError(
                f"rebinding `{name}`, a variable of `{owner}`, inside {where} is not "
                f"supported: that region does not carry `{owner}`'s variables", hint=hint)
        owned.frame.locals[owned.name] = value

    def read_outer_cell(self, cell, name, qualname):
        """A closure variable from outside the compiled code: as rebound by
        this trace, else its value (an array becomes a module input)."""
        rebound = self.shadow.get((id(cell), "cell_contents"))
        if rebound is not None:
            return rebound
        value = cell.cell_contents
        if _is_static_scalar(value) and cell_key(cell) in self.scalars.promoted:
            return self.capture_number(cell, "cell_contents", value,
                                       ("closure", qualname, name), ("cell", None))
        if not (isinstance(value, np.ndarray) or _is_jax_array(value)):
            # folded into the program: a setter's `nonlocal` rebinding it recompiles
            self._guard(self.cell_views.setdefault(id(cell), CellGuardView(cell)),
                        "cell_contents", value, cell, "cell",
                        (cell_key(cell), f"the closure variable `{name}`"))
        return self.capture(value, ("closure", qualname, name),
                            lambda: cell.cell_contents, cell, ("cell", None))


# The views of a dict (and an OrderedDict's own) by what they give.
_DICT_VIEWS = {type({}.keys()): "keys", type({}.values()): "values", type({}.items()): "items",
               type(collections.OrderedDict().keys()): "keys",
               type(collections.OrderedDict().values()): "values",
               type(collections.OrderedDict().items()): "items"}


class SlotValues:
    """The __slots__ members of an object as a mapping (what its __dict__ is
    for other attributes): set_item journals writes through it, and a loop
    carries them (a class with __slots__ made inside the compiled code)."""
    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __getitem__(self, name):
        try:
            return object.__getattribute__(self.obj, name)
        except AttributeError:
            raise KeyError(name) from None

    def __setitem__(self, name, value):
        object.__setattr__(self.obj, name, value)

    def __contains__(self, name) -> bool:
        try:
            object.__getattribute__(self.obj, name)
        except AttributeError:
            return False
        return True

    def pop(self, name, default=None):
        value = self[name] if name in self else default
        if name in self:
            object.__delattr__(self.obj, name)
        return value


def _proxied(proxy: types.MappingProxyType):
    """The mapping a read-only proxy shows (a class's __dict__: the class's
    own dict), which only the garbage collector's view of it reaches."""
    (mapping,) = gc.get_referents(proxy)
    return mapping


_BUILTIN_ITEM_METHODS = ("__setitem__", "__delitem__")


def _builtin_item_call(fn, args, kwargs):
    """(name, container, its arguments) where fn is a built-in container's
    own item write: `super().__setitem__(k, v)` in a user's dict or list
    subclass (a method-wrapper bound to the object), `dict.__setitem__(self,
    k, v)`, `d.__delitem__(k)`; None for other calls.  (Natively they
    would store tpucc's stand-ins for runtime arrays.)"""
    if kwargs or getattr(fn, "__name__", None) not in _BUILTIN_ITEM_METHODS:
        return None
    owner = getattr(fn, "__objclass__", None)
    if not (isinstance(owner, type) and issubclass(owner, (dict, list, collections.deque))):
        return None
    if isinstance(fn, types.MethodWrapperType):
        container, args = fn.__self__, list(args)
    elif isinstance(fn, types.WrapperDescriptorType) and args and isinstance(args[0], owner):
        container, args = args[0], list(args[1:])
    else:
        return None
    wanted = 2 if fn.__name__ == "__setitem__" else 1
    return (fn.__name__, container, args) if len(args) == wanted else None


def _is_object_setattr(fn) -> bool:
    """object.__setattr__ bound to an object (what super().__setattr__ is
    in a class whose base is object)."""
    return type(fn).__name__ == "method-wrapper" and getattr(fn, "__name__", None) == \
        "__setattr__" and getattr(fn, "__objclass__", None) is object


def instance_dict(obj):
    """obj.__dict__, or None where it has none (__slots__), read without
    calling a __getattr__ hook of its class (which may raise anything)."""
    try:
        return object.__getattribute__(obj, "__dict__")
    except AttributeError:
        return None


def user_class_of(value) -> type:
    """value's class, or the first user class among the items of the tuple
    or list it is (dunders.involves_user): what a message names."""
    from . import dunders
    if type(value) in (tuple, list):
        return next((user_class_of(v) for v in value if dunders.involves_user(v)), type(value))
    return type(value)


def _compares_runtime_or_user(items, *more) -> bool:
    """Whether comparing these values (a list's items, and an item sought in
    it) reads runtime values or calls a user class's comparison methods."""
    from . import dunders
    return any(holds_array(v) or dunders.involves_user(v) for v in (*items, *more))


def python_type_name(value) -> str:
    """The name Python's TypeErrors give value's type (its tp_name:
    'list', 'numpy.int64', a user class's own name); for a runtime value,
    its type when run eagerly."""
    kind = type(python_sample(value)) if isinstance(value, Array) else \
        iterators.python_type(value) or type(value)
    if kind.__module__ == "builtins" or kind.__flags__ & _HEAP_TYPE:
        return kind.__name__
    return f"{kind.__module__}.{kind.__name__}"


_HEAP_TYPE = 1 << 9     # (Py_TPFLAGS_HEAPTYPE: a class made by a class statement)

# What int(), float(), complex() and operator.index() take of what a class's
# method returned: that exact type (Python converts an instance of a subclass
# of it, a bool from __int__ or an np.float64 from __float__, with a
# DeprecationWarning), else its TypeError.
_NUMBER_RESULTS = {"__int__": int, "__index__": int, "__float__": float, "__complex__": complex}


def checked_number_result(interp, name: str, obj, result):
    """What obj.name() returned (__int__, __index__, __float__ or
    __complex__), checked as Python checks it."""
    want = _NUMBER_RESULTS[name]
    if isinstance(result, Array) and result.held_int is not None:
        return BUILTINS[want](interp, result)   # (a Python number on some runtime paths)
    sample = python_sample(result) if isinstance(result, Array) else result
    if type(sample) is want:
        return result
    if isinstance(sample, want):
        return BUILTINS[want](interp, result)
    owner = f"{type(obj).__name__}." if name == "__float__" else ""     # (CPython's words)
    raise UserCodeError(f"TypeError: {owner}{name} returned non-{want.__name__} "
                        f"(type {python_type_name(result)})")


def check_truth_result(name, result):
    """What Python checks of what __bool__ or __len__ returned: a bool (a
    NumPy bool is refused), a non-negative int (at run time for a runtime
    one: E910)."""
    if name == "__bool__":
        if isinstance(result, Array) and not (result.weak and result.dtype == np.bool_) \
                or not isinstance(result, (Array, bool)):
            kind = "numpy.bool" if isinstance(result, (Array, np.bool_)) else type(result).__name__
            raise UserCodeError(f"TypeError: __bool__ should return bool, returned {kind}")
    elif not isinstance(result, Array):
        if not isinstance(result, (int, np.integer)):     # (what __index__ takes)
            raise UserCodeError(f"TypeError: '{type(result).__name__}' object cannot be "
                                "interpreted as an integer")
        if result < 0:
            raise UserCodeError("ValueError: __len__() should return >= 0")
    else:
        from . import checks
        checks.require(builder.emit("greater_equal", pynumbers.index_value(result), 0),
                       "__len__() should return >= 0", raises="ValueError")


# The sequences whose index() and count() compare items at run time (a
# deque's are a list's: `==` of each item in order, index's start and stop).
_SEARCHED = (list, tuple, collections.deque)
# The methods of those that compare their items with `==` or `<`.
_COMPARING_METHODS = frozenset(("index", "count", "remove", "sort"))
_NOT_SEARCHED = object()

# Built-in values whose attributes never change (`complex(v).real`, `s.start`).
_IMMUTABLE = frozenset({bool, int, float, complex, str, bytes, tuple, frozenset, range, slice,
                        type(None)})

# What a subscript indexes by position (calling its key's __index__).
_INDEXED_BY_POSITION = (Array, np.ndarray, np.generic, list, tuple, str, bytes, range)
# What NumPy indexes (its subscript reads a list key whole), and the values
# that hold items it reads (guard_read_by_numpy).
_NUMPY_SUBSCRIPTED = (Array, np.ndarray, np.generic, FlatIter, masked.Selection)
_READ_WHOLE_BY_NUMPY = (list, dict, set, collections.deque)


def _stacked_as_merged(items: list, hint: str) -> Array:
    """The items of a list indexed at a runtime position, stacked in the one
    type that position's value has: the items merge as a runtime `if`'s arms
    do (state.unify: one shape, one NumPy dtype that Python numbers take).
    NumPy's promotion, which np.stack applies, would change the item picked:
    an int32 array beside a float64 one comes back float64, an int64 past
    2**53 loses digits, np.float32(0.5) beside 3.0 turns float64."""
    from ..ops.elementwise import astype
    from ..ops.shape import stack
    avals = [v.aval if isinstance(v, Array) else const_aval(v) for v in items]
    shapes = {a.shape for a in avals}
    said = "indexing a list with a runtime value picks one of its items at run time"
    if len(shapes) > 1:
        raise MergeError(f"{said}, but they have different shapes ({_listed(avals)}), and "
                         "one runtime value cannot be each of them", hint=hint)
    if len({a.dtype for a in avals if not a.weak}) > 1:
        raise MergeError(f"{said}, but they have different dtypes ({_listed(avals)}): NumPy "
                         "gives the item as it is, which one runtime value cannot be",
                         hint="cast the items with .astype(...) to one dtype (or index an "
                              "array: np.stack(items) promotes them, as NumPy would)")
    dtype = merged_dtype(avals, items)
    refuse_unfit_numbers(f"{said}: its items have", items, dtype)
    if not any(isinstance(v, Array) for v in items):    # numbers known now: one constant
        return Array(builder.const_value(np.array(items, dtype=dtype)))
    return stack([astype(v, dtype, copy=False) for v in items])


def holds_numpy_scalar(items) -> bool:
    return isinstance(items, (list, tuple)) and any(isinstance(v, np.generic) for v in items)


def _listed(avals, most=4) -> str:
    return ", ".join(str(a) for a in avals[:most]) + (", ..." if len(avals) > most else "")


def _item_kind(items, chosen: Array) -> Array:
    """items[i] with a runtime i (`dp[a - c]` of a DP table that is a list
    of numbers) is an item of the list, not the 0-d array that indexing
    their stack makes: a Python number where every item is one (of the
    widest of their types, as a runtime `if` merges them), a NumPy scalar
    where every item is a scalar."""
    if chosen.ndim or not all(_is_scalar_item(v) for v in items):
        return chosen
    if all(type(v) in (bool, int, float, complex) or isinstance(v, Array) and v.weak
           for v in items):
        weak = AVal(chosen.dtype, (), True)
        (value,) = builder.emit_op("convert", (chosen.var,), {"dtype": chosen.dtype}, (weak,))
        chosen = Array(value)
    chosen.immutable = True
    return chosen


def _is_scalar_item(v) -> bool:
    if isinstance(v, Array):
        return v.ndim == 0 and (v.weak or v.immutable is True)
    return isinstance(v, (bool, int, float, complex, np.generic))


def _module_holding(fn, name: str) -> str:
    """The public module that holds `fn` under `name`, for one that does not
    say (a SciPy ufunc: scipy.special.erf), else ""."""
    found = [m for m, mod in list(sys.modules.items())
             if mod is not None and not any(p.startswith("_") for p in m.split("."))
             and getattr(mod, "__dict__", {}).get(name) is fn]     # (no module __getattr__)
    return min(found, key=len, default="")


def _instead_of_native(fn, name: str) -> str:
    """What compiles in place of a library function on runtime arrays: for
    an elementwise one that the math module has (scipy.special.erf), that
    function per element."""
    if isinstance(fn, np.ufunc) and callable(getattr(math, name, None)):
        return (f"use np.vectorize(math.{name})(x) (math.{name} per element, which tpucc "
                "compiles), or write it with NumPy functions")
    if fn is math.fsum:
        return ("sum() of the values (or np.sum of an array of them) compiles, rounded "
                "at each addition where fsum rounds once")
    return "write it with NumPy functions or Python loops on the arrays"


# How the instructions that may compute a subscript's index change the stack
# (result_stored_into_array); any other instruction ends the search.
_INDEX_STACK_EFFECT = {
    "LOAD_FAST": lambda arg: 1, "LOAD_CONST": lambda arg: 1, "LOAD_DEREF": lambda arg: 1,
    "BINARY_OP": lambda arg: -1, "BINARY_SUBSCR": lambda arg: -1,
    "UNARY_NEGATIVE": lambda arg: 0, "BUILD_TUPLE": lambda arg: 1 - arg,
    "BUILD_SLICE": lambda arg: 1 - arg,
}


def stored_into_array(instrs, loaded_local):
    """The array that the value on top of the stack goes straight into as
    an element, where `instrs` (those run next) load a local array, compute
    its index from loads and operators (no call, nothing stored) and store
    the value there: `T[i] = <value>`.  None where they do anything else.
    `loaded_local(ins)`: the value a LOAD_FAST or LOAD_DEREF loads, else
    None."""
    if not instrs:
        return None
    target = loaded_local(instrs[0])
    if not isinstance(target, (Array, np.ndarray)):
        return None
    depth = 1       # values on the stack above the stored one: the array, its index
    for ins in instrs[1:]:
        if ins.op == "STORE_SUBSCR":
            return target if depth == 2 else None
        effect = _INDEX_STACK_EFFECT.get(ins.op)
        if effect is None:
            return None
        depth += effect(ins.arg)
        if depth < 2:       # (an operator took the array or the value)
            return None
    return None


def _call_argc(ins) -> int | None:
    """How many arguments a CALL (3.13: CALL_KW) instruction passes."""
    if ins.op == "CALL":
        return ins.arg[0]
    return ins.arg if ins.op == "CALL_KW" else None


def _loaded_local(frame, ins):
    """The value a LOAD_FAST or LOAD_DEREF instruction of `frame` loads, or
    None for any other instruction."""
    if ins.op == "LOAD_FAST":
        return frame.locals.get(ins.arg)
    if ins.op != "LOAD_DEREF" or ins.arg not in frame.cells:
        return None
    value = _cell_contents(frame.cells[ins.arg])
    return value.frame.locals.get(value.name) if isinstance(value, OwnedCell) else value


def _user_calls(frames) -> int:
    """How many of the frames are calls the program wrote (a comprehension's
    or generator expression's frame is no call of its)."""
    return sum(f.func.__code__.co_name not in _COMPREHENSIONS for f in frames)


def _runtime_end_refusal(what: str) -> UnsupportedError:
    return UnsupportedError(
        f"taking the items of a {what} iterator, whose __next__ raises StopIteration under a "
        "runtime condition, at compile time (list(), zip(), unpacking, sum(), ...) is not "
        "supported: how many there are is known only at run time",
        hint="loop over it with `for v in it:` (a runtime loop, which may `break`), "
             "accumulating what you need; or use next(it, default)")


def _nested_too_deep(fn, frames) -> LimitError:
    """Inlining `fn` would nest calls past MAX_INLINE_DEPTH (a fixed limit:
    each inlined call takes a few dozen of the compiler's own Python
    frames).  A function that calls itself is a recursion to write as a
    loop; a chain of distinct functions, calls to make one after another."""
    codes = collections.Counter(f.func.__code__ for f in frames
                                if f.func.__code__.co_name not in _COMPREHENSIONS)
    code, times = max(codes.items(), key=lambda kv: kv[1], default=(fn.__code__, 0))
    calls = _user_calls(frames)
    limit = f"calls nested more than {MAX_INLINE_DEPTH} deep, the most tpucc inlines " \
            "(a fixed limit, no option raises it)" if calls >= MAX_INLINE_DEPTH else \
        f"calls and the comprehensions between them nested {len(frames)} frames deep, the " \
        "most tpucc inlines (a fixed limit, no option raises it)"
    if times > 1 and recursion.runtime_ended(frames, code):
        return LimitError(
            f"{limit}: {code.co_name} calls itself, {times} calls deep, each call inside "
            "a runtime `if` or loop",
            hint=f"a recursion compiles when it ends on a static condition within "
                 f"{MAX_INLINE_DEPTH} calls; one whose end runtime values decide (a binary "
                 "search, a quicksort) is a runtime `while` loop, with the pending calls' "
                 "arguments in an array used as a stack: `st[top] = (lo, hi); top += 1` and "
                 "`while top > 0: top -= 1; lo, hi = st[top]; ...` (a single call in tail "
                 "position is just `while lo < hi: ...`)")
    if times > 1:
        return LimitError(
            f"{limit}: {code.co_name} calls itself, {times} calls deep",
            hint=f"a recursion compiles when it ends on a static condition within "
                 f"{MAX_INLINE_DEPTH} calls; write a deeper one as a loop over the items "
                 "(`total = 0.0` then `for w in ws: total = total + w`)")
    return LimitError(f"{limit}: a chain of {calls} different functions, each calling "
                      "the next", hint="call them one after another from one function (a "
                      "loop over a list of the functions) instead of each calling the next")


def _runtime_index_hint(items) -> str:
    """How to index these items with a runtime position.  Rows of different
    lengths (an adjacency list) np.stack refuses: they become the CSR pair
    of a sparse matrix, whose row is a runtime-bounded loop."""
    if isinstance(items, (list, tuple)) and len(items) > 1 and all(
            isinstance(v, (list, tuple, np.ndarray, Array)) for v in items) and \
            len({len(v) if isinstance(v, (list, tuple)) else v.shape for v in items}) > 1:
        return ("its rows differ in length (a ragged list, which no one array holds): "
                "store them as two arrays, indptr = np.cumsum([0] + [len(r) for r in ROWS]) and "
                "indices = np.array([v for r in ROWS for v in r]), and loop over row u with "
                "`for k in range(indptr[u], indptr[u + 1]): v = indices[k]` (or pad the rows "
                "to one length)")
    if isinstance(items, str):
        # (a character is picked by one runtime int: "^>v<"[a], a choice
        # among them; np.stack has no characters to stack)
        return ("its items are the characters of a string, which compiled code picks by "
                "one int (`'^>v<'[int(a)]`), not by an array: for many positions, return them "
                "and look the characters up outside the compiled function "
                "(`''.join('^>v<'[a] for a in actions)`)")
    if isinstance(items, (list, tuple, dict)) and any(isinstance(v, (str, bytes))
                                                       for v in _items_of(items)):
        # (np.stack would refuse them, and no compiled result holds a string)
        return ("its items are strings, which compiled code cannot pick at run time (it "
                "computes arrays and numbers): return the positions (an index, token ids) "
                "and look the strings up outside the compiled function "
                "(`[names[i] for i in ids]`)")
    return "index an array instead (np.stack the items first)"


def _sequence_kind(seq) -> str:
    """The word Python's IndexError names `seq` by ("list index out of range")."""
    return next(t.__name__ for t in (list, tuple, collections.deque) if isinstance(seq, t))


_INT64 = np.iinfo(np.int64)


def _enum_lookup_of_runtime_int(cls, args, kwargs) -> bool:
    """Whether cls(*args, **kwargs) looks an enum's member up by a runtime
    int, the members' values ints: the member is a choice among them.  (Not
    a Flag, whose value may combine members into a new one, nor an enum
    with its own _missing_: either makes members no table holds.)"""
    return isinstance(cls, enum.EnumMeta) and not issubclass(cls, enum.Flag) and \
        getattr(cls._missing_, "__func__", None) is enum.Enum._missing_.__func__ and \
        len(args) == 1 and not kwargs and isinstance(args[0], Array) and \
        args[0].shape == () and args[0].dtype.kind in "iu" and _int_keyed(cls._value2member_map_)


def _int_keyed(mapping) -> bool:
    """A dict whose keys are all ints (or bools) an int64 holds: what a
    runtime int key may be compared with (`LABELS[k]`)."""
    return bool(mapping) and all(type(k) in (int, bool) and _INT64.min <= k <= _INT64.max
                                 for k in mapping)


def _runtime_key_hint(mapping: dict) -> str:
    """How to look a runtime key up: a dict of small int tuples (a DFA's
    transitions keyed by (state, symbol)) is a table of as many axes."""
    keys = list(mapping)
    if keys and all(isinstance(k, tuple) and len(k) == len(keys[0])
                    and all(type(i) is int and i >= 0 for i in k) for k in keys):
        return ("make the dict an array indexed by the key's parts: `table = np.full(shape, "
                "missing)`, `table[k] = v` for each item (before the compiled call), then "
                "`table[state, symbol]`")
    return "keep the keys static, or look runtime values up in an array"


def _local_name(frame, value) -> str | None:
    """The name of a local variable of `frame` holding `value`, for a message."""
    if frame is None:
        return None
    return next((n for n, v in frame.locals.items() if v is value and not n.startswith(".")),
                None)


def _loop_counter_words(frame, key, what: str | None = None) -> str | None:
    """How a runtime int that follows the counter of a range loop of
    `frame` (t, t + 1, 2 * t) came to be runtime, for a refusal ("`what`
    is the counter of a loop ..."): its values.Span's token is a loop
    body's parameter (only a counter's has a Span, loops._counter_span) and
    the frame's stack holds a range iterator at a runtime position.  Its
    loop has a runtime bound (its span is then open on one side), or is a
    long static one tried as one runtime `while` (past the unroll budget):
    there every index is a plain counter in the source, so that is worth
    saying.  None for any other int."""
    span = getattr(key, "span", None)
    if frame is None or span is None or not any(
            span.token in region.params for region in builder.ctx().regions):
        return None
    loops = [it for it in frame.stack if isinstance(it, RangeIter) and not it.is_static()]
    if not loops:
        return None
    name = next((n for n, v in frame.locals.items() if isinstance(v, Array)
                 and getattr(v, "span", None) is not None and v.span.token is span.token
                 and v.span.offset == 0 and v.span.scale == 1 and not n.startswith(".")), None)
    same = span.offset == 0 and span.scale == 1
    counter = "the counter" if name is None or f"`{name}`" == what else f"the counter `{name}`"
    said = f"{'is' if same else 'follows'} {counter} of a loop"
    # (a runtime range's counter is bounded on one side only: loops._counter_span)
    if np.iinfo(np.int64).max in (span.hi, -span.lo - 1):
        return f"{said} whose number of iterations is known only at run time"
    return (f"{said} tried as one runtime `while` (it has too many iterations to unroll), "
            "where the counter is a runtime value")


# How to keep a table (a list of lists) that a loop reads and writes at its
# counters: one 2-d array, which a runtime `while` carries and updates in place.
_TABLE_HINT = ("keep the table in one NumPy array, read and written as `dp[i, j]` (`dp = "
               "np.zeros((n + 1, m + 1), dtype=np.int64)`), not a list of lists")


def _items_of(container):
    return container.values() if isinstance(container, dict) else container


def _consumed_or_dropped(made, count: int) -> bool:
    """Whether a generator's iterator (a weak reference to it) was consumed
    to its end, or is held by nothing any more: none of its items can be
    taken after now."""
    it = made()
    return it is None or it.cursor.pos >= count and not it.cursor.runtime


def _dropped_once_collected(made) -> bool:
    """Whether a generator's iterator (a weak reference) is gone once the
    garbage collector ran: a dropped one may sit in a reference cycle.
    Only asked before a refusal, so the collection is rare."""
    gc.collect()
    return made() is None


def _a(noun: str) -> str:
    """noun with its indefinite article (an OrderedDict, a dict)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


# The deque methods that may keep its length (calls._deque_in_place)
_DEQUE_SHIFTS = frozenset(("rotate", "reverse", "append", "appendleft", "extend", "extendleft"))


def _existing_slot(container, key):
    """The key of an item `container` already has (a list index made
    non-negative), or None: rebinding it keeps the container's structure."""
    if isinstance(container, dict):
        # (a dict subclass of a library, OrderedDict, defaultdict, Counter, or
        # the user's without its own __setitem__, stores as dict does)
        return key if dict.__contains__(container, key) else None
    if isinstance(container, (list, collections.deque)) and isinstance(key, (int, np.integer)):
        k = int(key)
        k = k + len(container) if k < 0 else k
        return k if 0 <= k < len(container) else None
    return None


def _class_holding(obj, name):
    """The first class in obj's MRO (obj's own, for a class) that holds name."""
    mro = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    return next((c for c in mro if name in vars(c)), None)


def _number_place(obj, owner, name):
    """(scalar_state place, what) of obj.name found in `owner`'s namespace:
    the object's own attribute (every object of its class), a module's, or
    a class's (read through the class or an instance)."""
    if isinstance(owner, type):
        if owner is not _class_holding(obj, name):
            return None
        return class_attr_key(owner, name), f"`{owner.__name__}.{name}`"
    if owner is not obj:
        return None
    if isinstance(obj, types.ModuleType):
        return attr_key(obj, name), f"`{obj.__name__}.{name}`"
    return attr_key(obj, name), f"`.{name}` of {type(obj).__name__} objects"


def _cell_contents(cell):
    try:
        return cell.cell_contents
    except ValueError:          # empty: a variable its function has not assigned yet
        return None


# An append to a list argument: the call works on the argument's copy, while
# a list read from a global or an attribute gets its appends after each call
# (appends.py).
_APPEND_HINT = ("return the values and append them after the call (`x, h = f(x, lr); "
                "log.extend(h)`), or append to a list held by a global or an attribute "
                "(`self.log.append(v)`): that list gets the items after each call")


def bind_arguments(fn, args, kwargs) -> dict:
    """Parameter name -> value, as Python binds a call (defaults included).
    The parameters are those of `fn`'s own code: a functools.wraps wrapper
    binds its (*args, **kwargs), not the signature it advertises."""
    code = fn.__code__
    if code.co_varnames[:1] == (".0",) and not kwargs:     # a comprehension's iterator
        return {".0": args[0]}
    bound = _bind_positional(fn, code, args) if not kwargs else None
    if bound is not None:
        return bound
    try:
        signature = inspect.signature(_as_bound(fn), follow_wrapped=False)
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        raise UserCodeError(f"TypeError: calling {fn.__qualname__}(): {e}") from None
    bound.apply_defaults()
    return {name: inspect.Parameter.empty if value is _EMPTY_DEFAULT else value
            for name, value in bound.arguments.items()}


# A default that is inspect.Parameter.empty (a sentinel of some programs, and
# of inspect.Parameter.__init__ itself) is taken by inspect.signature for "no
# default": it binds as this stand-in instead, then as itself.
_EMPTY_DEFAULT = object()


def _as_bound(fn):
    """fn, or a copy of it that inspect.signature reads as Python binds a
    call: without the __signature__ fn may advertise (tpucc.grad's applier
    advertises the loss's parameters), and where one of its defaults is
    inspect.Parameter.empty, with _EMPTY_DEFAULT there."""
    empty = inspect.Parameter.empty
    defaults, kwdefaults = fn.__defaults__ or (), fn.__kwdefaults__ or {}
    if "__signature__" not in vars(fn) and \
            not any(d is empty for d in (*defaults, *kwdefaults.values())):
        return fn
    stand_in = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__,
                                  tuple(_EMPTY_DEFAULT if d is empty else d for d in defaults),
                                  fn.__closure__)
    stand_in.__kwdefaults__ = {k: _EMPTY_DEFAULT if d is empty else d
                               for k, d in kwdefaults.items()}
    return stand_in


def _bind_positional(fn, code, args) -> dict | None:
    """The common call, positional arguments to a function with plain
    parameters, bound without building an inspect.Signature (most of infer's
    time per inlined call); None for anything else."""
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount:
        return None
    n = code.co_argcount
    defaults = fn.__defaults__ or ()
    first_default = n - len(defaults)
    if not first_default <= len(args) <= n:
        return None                     # inspect raises the TypeError Python would
    names = code.co_varnames[:n]
    bound = dict(zip(names, args))
    for i in range(len(args), n):
        bound[names[i]] = defaults[i - first_default]
    return bound


# Modules whose attributes are library constants, never guarded.
_LIBRARY_MODULES = frozenset({"numpy", "jax", "jaxlib", "tpucc", "math", "builtins",
                              "functools", "itertools", "operator", "collections", "typing"})


def _is_library_module(module) -> bool:
    return _is_library_module_name(module.__name__)


def _is_library_module_name(name) -> bool:
    return (name or "").split(".")[0] in _LIBRARY_MODULES


def is_library_class(cls) -> bool:
    """A built-in or library class: nothing adds attributes to it."""
    try:
        return _is_library_class(cls)
    except TypeError:               # (an unhashable class)
        return _is_library_class.__wrapped__(cls)


@functools.lru_cache(maxsize=8192)
def _is_library_class(cls) -> bool:
    module = getattr(cls, "__module__", "") or ""
    return module == "builtins" or module.split(".")[0] in _LIBRARY_MODULES


_MAKE_GRAD = (autodiff.grad, autodiff.value_and_grad, GradFunction)


# The longest range whose held iterator (iter(range(n))) is a SeqIter of its
# items; a longer one stays a RangeIter (a loop over it a counted While)
_HELD_RANGE_ITEMS = 100_000


def _numbered(items: tuple, start) -> tuple:
    """enumerate(items, start)'s pairs; a start known only at run time (a
    Python int already, builtins_impl.enumerate_) counts up from itself."""
    if isinstance(start, Array):
        return tuple((start + k, item) for k, item in enumerate(items))
    return tuple(enumerate(items, start))


def _iterator_kind(v, start, backward) -> str:
    """The Python type of iter(v), enumerate(v) or reversed(v), as its
    TypeErrors name it."""
    if start is not None:
        return "enumerate"
    kind = "reverseiterator" if backward else "iterator"
    if type(v) in (list, tuple, set, str, bytes) and not (backward and type(v) is not list):
        return f"{type(v).__name__}_{kind}"
    if isinstance(v, dict):
        return "dict_reversekeyiterator" if backward else "dict_keyiterator"
    return "reversed" if backward else "iterator"


def _is_unbound_array_method(fn) -> bool:
    """np.ndarray.sum, np.ndarray.tolist, np.ndarray.__add__: a method
    taken from the class."""
    return isinstance(fn, (types.MethodDescriptorType, types.WrapperDescriptorType)) and \
        fn.__objclass__ is np.ndarray


def _is_compiled(fn) -> bool:
    """Whether fn is a tpucc.compile'd function (by name: tpucc.api imports
    this package)."""
    return type(fn).__name__ == "CompiledFunction" and type(fn).__module__ == "tpucc.api"


def _refuse_loaded_artifact(fn):
    """A tpucc.load(...) artifact runs its own executable: compiled code
    holds no executables, and the artifact has no source to inline."""
    raise UnsupportedError(f"calling the loaded artifact {fn.name!r} ({fn.path}) is not "
                           "supported in compiled code: it runs an executable of its own",
                           hint=f"call the entry's source function ({_function_name(fn)}) instead, "
                                "which compiles into this program, or call the artifact "
                                "outside the compiled function")


def _function_name(loaded) -> str:
    return loaded.manifest.get("function") or loaded.name


class RuntimeRange:
    """range() with a runtime bound (a weak int64 Array).  With `rows`
    (iterators.Stepped), a range with a runtime step: the positions 0 ..
    stop - 1, each item start + position * step."""
    __slots__ = ("start", "stop", "step", "rows")

    def __init__(self, start, stop, step, rows=None):
        self.start, self.stop, self.step, self.rows = start, stop, step, rows


_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


def _repr_guard_codes() -> frozenset:
    """The code of the wrappers that keep a __repr__ from recursing into
    itself (reprlib.recursive_repr; dataclasses' generated __repr__ has one):
    they note (id(self), the thread) in a set of their own closure."""
    sample = lambda self: ""        # noqa: E731
    guards = [reprlib.recursive_repr()(sample)]
    if hasattr(dataclasses, "_recursive_repr"):     # (Python 3.11; 3.12 uses reprlib's)
        guards.append(dataclasses._recursive_repr(sample))
    return frozenset(g.__code__ for g in guards)


_REPR_GUARDS = _repr_guard_codes()


# The `dispatch(cls)` of functools.singledispatch functions (and of
# singledispatchmethod's), one code for all, runs natively on the class
# compiled code sees (type(x) of a runtime array is np.ndarray): its first
# call for a class writes the choice into the function's cache, a dict
# outside the call that eager Python writes the same way.
_SINGLE_DISPATCH = functools.singledispatch(lambda value: value).dispatch.__code__


def past_repr_guard(fn):
    """The __repr__ a recursion guard wraps, where fn is that guard: compiled
    code runs it directly (the guard's set lives outside the call; a repr
    that does recurse into itself ends at the inlining depth limit)."""
    while getattr(fn, "__code__", None) in _REPR_GUARDS:
        fn = fn.__closure__[fn.__code__.co_freevars.index("user_function")].cell_contents
    return fn
_CREATION = {"zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
             "empty_like", "arange", "eye", "identity"}
# Array methods taking a shape or axes (as ints, or a tuple of them).
_SHAPE_METHODS = {"reshape", "transpose", "swapaxes", "repeat", "squeeze"}


# NumPy functions that call their argument's method (np.transpose(s) is
# s.transpose()): of a NumPy scalar, a NumPy scalar.
_SCALAR_METHOD_FUNCTIONS = (np.transpose, np.squeeze, np.reshape)


def _refuse_scalar_item_assignment(x: Array):
    """`s[...] = v` where s is a number: Python's TypeError, at compile time,
    or when the call returns where a runtime branch decided that s is a
    NumPy scalar rather than a 0-d array (RuntimeKind)."""
    if x.shape or not (x.immutable is True or isinstance(x.immutable, RuntimeKind)):
        return
    name = pynumbers.python_type(x).__name__ if x.weak else f"numpy.{x.dtype.name}"
    message = f"'{name}' object does not support item assignment"
    if x.immutable is True:
        raise UserCodeError(f"TypeError: {message}")
    from . import checks
    checks.require(NUMPY[np.logical_not](Array(x.immutable.var)), message, raises="TypeError")


def _makes_dates(args, kwargs) -> bool:
    """Whether static arguments of a creation function (np.arange("2024-01-01",
    "2024-02-01", dtype="datetime64[D]"), np.arange(d0, d1) of np.datetime64
    scalars, np.zeros(3, "m8[s]")) ask for an array of dates or times: NumPy
    makes it now, and the program holds it as NumPy's (natively_made), since
    compiled code holds no dates; its integer counts (.astype(np.int64)) are
    constants."""
    def is_date(v):
        if isinstance(v, (np.datetime64, np.timedelta64)):
            return True
        if isinstance(v, (np.ndarray, np.dtype)):
            return getattr(v, "dtype", v).kind in "mM"
        if isinstance(v, str):      # "datetime64[D]", "<M8[s]" (not "2024-01-01": a bound)
            return _DATE_DTYPE.match(v) is not None
        return isinstance(v, type) and issubclass(v, (np.datetime64, np.timedelta64))
    return any(map(is_date, (*args, *kwargs.values())))


_DATE_DTYPE = re.compile(r"[<>=|]?(datetime64|timedelta64|[mM]8)(\[\w+\])?$")


def _known_creation(fn, args, kwargs, out):
    """Records the value of a small array made from static arguments
    (np.arange, np.zeros: an op, not a constant) for values.known_constant,
    as long as no one changes it."""
    if not isinstance(out, Array) or out.size > 4096 or fn.__name__.startswith("empty"):
        return
    value = np.asarray(fn(*args, **kwargs))
    if value.dtype == out.dtype and value.shape == out.shape:
        builder.ctx().constants[out.var] = value


def _nditer_refusal() -> UnsupportedError:
    """np.nditer over a runtime array: NumPy's iterator object (its flags,
    op_flags, buffering and memory order) is not compiled; the plain loops
    over the elements are."""
    return UnsupportedError(
        "np.nditer is not supported on runtime arrays by tpucc",
        hint="loop over the elements with `for v in x.ravel():` (or `x.flat`), with "
             "`for idx, v in np.ndenumerate(x):` for their positions, or write it with "
             "whole-array operations (x.sum(), np.where)")


def _constants_folded(args, kwargs):
    """The arguments with each Array replaced by the constant it holds
    (values.known_constant), or None where one holds a runtime value: a
    NumPy function that needs its values while compiling (np.unique,
    np.nonzero) is then NumPy's, called on them now."""
    replaced = []

    def folded(v):
        if isinstance(v, Array):
            known = known_constant(v)
            if known is None:
                raise LookupError
            replaced.append(v)
            return known.copy()
        if type(v) in (list, tuple):
            return type(v)(map(folded, v))
        return v
    try:
        out = [folded(a) for a in args], {k: folded(v) for k, v in kwargs.items()}
    except LookupError:
        return None
    return out if replaced else None    # (static arguments alone: the refusal stands)


def _refuse_runtime_keys(*objs):
    """Native code (dict.update, OrderedDict(pairs), Counter's counting)
    hashed runtime values into a dict or set: by their compile-time
    identity, not their values."""
    for obj in objs:
        if isinstance(obj, (dict, set, frozenset)):
            refuse_runtime_hash(obj, "a set item" if isinstance(obj, (set, frozenset))
                                else "a dict key")


def _scalar_stays_scalar(operand, out):
    """A NumPy scalar's methods give NumPy scalars where they give 0-d
    arrays (s.copy(), s.T, s.reshape(()), s.squeeze()): NumPy runs them on
    a 0-d array and converts a 0-d result back.  A kind known only at run
    time (RuntimeKind) is the operand's, read from the same flag."""
    if not isinstance(out, Array) or out.shape or out.weak or out is operand \
            or not isinstance(operand, Array):
        return out
    if operand.immutable is True or (isinstance(operand.immutable, RuntimeKind)
                                     and out.immutable is False):
        out.immutable = operand.immutable   # (a reduction's NumPy scalar stays one)
    return out


def items_stamp(source):
    """What a list's or an array's items are now (for SeqIter): the array's
    SSA value (a view's is read again once its base changed), the list's
    items themselves (compared one at a time, by identity)."""
    return source.var if isinstance(source, Array) else tuple(source)


@functools.lru_cache(maxsize=None)
def _takes_out(impl) -> bool:
    """Whether a ufunc's implementation writes into out= (np.matmul's does not)."""
    try:
        return "out" in inspect.signature(impl).parameters
    except (TypeError, ValueError):
        return False


# np.r_ and np.c_ are instances of its subclasses
_AXIS_CONCATENATOR = type(np.r_).__mro__[1]


@functools.lru_cache(maxsize=None)
def _keywords_of(impl) -> frozenset | None:
    """The keyword arguments an implementation accepts; None: any (**kw)."""
    try:
        params = inspect.signature(impl).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params
                     if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _refuse_unknown_keywords(fn, impl, kwargs: dict):
    """A keyword NumPy's function takes but tpucc's implementation does not
    (np.stack(..., out=)) is tpucc's limit (E100), one NumPy does not take
    either the user's TypeError: checked before the call, so TypeErrors
    raised inside the implementation stay what they are."""
    accepted = _keywords_of(impl) if kwargs else None
    unknown = [k for k in kwargs if accepted is not None and k not in accepted]
    if not unknown:
        return
    name = numpy_name(fn)
    numpy_accepts = _keywords_of(fn)
    if numpy_accepts is not None and unknown[0] not in numpy_accepts:
        raise UserCodeError(f"TypeError: {name}() got an unexpected keyword argument "
                            f"'{unknown[0]}'")
    # (a dtype=, where= or casting= is what a cast or a mask of the operands does)
    instead = " (cast or mask the operands first)" if unknown[0] in ("dtype", "where",
                                                                      "casting") else ""
    raise UnsupportedError(f"{name}(): the argument {unknown[0]}= is not supported by tpucc",
                           hint=f"call {name} without {unknown[0]}={instead}")


def numpy_name(fn) -> str:
    """How the user wrote a NumPy function: np.maximum.accumulate for a
    ufunc's method (its __name__ alone is `accumulate`), np.linalg.inv,
    np.fft.rfft (a public submodule's functions name it).  Remembered per
    function: every NumPy call asks for it (for its messages) several times."""
    try:
        return _NUMPY_NAMES[fn]
    except (KeyError, TypeError):       # (TypeError: an unhashable callable)
        name = _numpy_name(fn)
    try:
        _NUMPY_NAMES[fn] = name
    except TypeError:
        pass
    return name


_NUMPY_NAMES: dict = {}


def _numpy_name(fn) -> str:
    ufunc = getattr(fn, "__self__", None)
    if isinstance(ufunc, np.ufunc):
        return f"np.{ufunc.__name__}.{fn.__name__}"
    module = getattr(fn, "__module__", None) or "numpy"
    # the public part of the module: np.testing for numpy.testing._private.utils
    public = []
    for part in module.split(".")[1:] if module.split(".")[0] == "numpy" else ():
        if part.startswith("_"):
            break
        public.append(part)
    return ".".join(["np", *public, str(getattr(fn, "__name__", fn))])


def _refuse_set_operand(name: str, fn, impl, args, kwargs, receiver: bool = False) -> None:
    """A set (or frozenset) given to a NumPy function is not read as its
    items: NumPy makes it one object, a 0-d object array, so np.isin(ids,
    {3, 4}) finds nothing and most functions raise.  That is almost never
    what was meant, and compiled code has no object arrays: refused, saying
    how to pass the items."""
    if not any(isinstance(v, (set, frozenset)) for v in (*args, *kwargs.values())):
        return
    given = static_arguments.arguments_by_name(fn, impl, args, kwargs) or \
        dict(enumerate((*args, *kwargs.values())))
    parameter, value = next((p, v) for p, v in given.items() if isinstance(v, (set, frozenset)))
    kind = type(value).__name__
    shown = f" {value!r}" if len(repr(value)) <= 40 else ""
    # (its place in the call as written: a method's array is not in the parentheses)
    position = next((i - receiver for i, a in enumerate(args) if a is value), parameter)
    written = _argument_text(builder.current_loc(), position) or "S"
    which = f" as `{parameter}`" if isinstance(parameter, str) else ""
    found_nothing = ": np.isin then finds nothing" if name == "np.isin" else ""
    raise UnsupportedError(
        f"{name}() is given the {kind}{shown}{which}: NumPy does not read a {kind}'s items, it "
        f"takes the whole {kind} as one object (a 0-d object array{found_nothing}), and "
        "compiled code has no object arrays",
        hint=f"pass its items as a list or an array: list({written}), or "
        f"np.array(sorted({written})) for a fixed order" + (
            "" if written != "S" else f", where S is the {kind}"))


def _argument_text(loc, position) -> str | None:
    """The source text of the argument at `position` (an index, or a keyword)
    of the call that starts at `loc`, as the user wrote it (`STOP`,
    `cfg.stop_ids`), for a hint; None where the line alone does not parse
    (a call over several lines) or holds no such call."""
    if loc is None:
        return None
    text = loc.source_line()
    stripped = text.lstrip()
    try:
        tree = ast.parse(stripped)
    except SyntaxError:
        return None
    col = loc.col - (len(text) - len(stripped))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.col_offset == col:
            if isinstance(position, int) and position < len(node.args):
                return ast.get_source_segment(stripped, node.args[position])
            for keyword in node.keywords:
                if keyword.arg == position:
                    return ast.get_source_segment(stripped, keyword.value)
    return None


def _refuse_out(name: str, kwargs: dict):
    """out= is written only by ufuncs (np.add(a, b, out=a)); the other
    functions and methods would compute a new array and leave `out` as it
    was (np.cumsum(a, out=a), a.round(out=a)): refused."""
    if kwargs.get("out") is not None:
        raise UnsupportedError(f"{name}(out=...) is not supported",
                               hint=f"assign the result: out[...] = {name}(...)")


def user_setattr(cls: type):
    """The class's own __setattr__ where it is Python code (compiled code
    traces it; the write-back after the call then passes over it, see
    driver.store_attribute), else None."""
    own = class_attribute(cls, "__setattr__")
    return own if isinstance(own, types.FunctionType) else None


def class_attribute(cls: type, name: str, default=None):
    """`name` as cls or a base class defines it, descriptors not run: what
    an instance of cls finds in its class (a property, a method), at a
    fraction of inspect.getattr_static's cost (5% of VGG19's inference)."""
    for klass in cls.__mro__:
        attrs = klass.__dict__
        if name in attrs:
            return attrs[name]
    return default


def _bound_on_itself(obj, name) -> bool:
    """Whether obj.name is found on obj itself (its __dict__, a slot, a cell,
    an item), not on its class: storing it back then changes nothing."""
    if isinstance(name, tuple) or isinstance(obj, types.CellType):
        return True
    own = getattr(obj, "__dict__", None)
    return own is None or name in own or class_attribute(type(obj), name) is None


# The container methods that take items out: in a runtime loop, what is left
# would be known only at run time.
_REMOVALS = frozenset({"pop", "popleft", "popitem", "remove", "clear"})
# Methods of list, dict, set and deque subclasses a library defines in
# Python (collections.Counter, OrderedDict) that change the container.
_CHANGING_METHODS = frozenset({
    "update", "subtract", "clear", "setdefault", "pop", "popitem", "move_to_end",
    "append", "extend", "insert", "remove", "sort", "reverse", "add", "discard",
    "appendleft", "extendleft", "popleft", "rotate", "__setitem__", "__delitem__",
    "__ior__", "__iadd__", "__isub__", "__iand__", "difference_update",
    "intersection_update", "symmetric_difference_update"})
_REMOVING_METHODS = frozenset({"clear", "pop", "popitem", "remove", "discard", "popleft",
                               "__delitem__", "__isub__", "__iand__", "subtract"})
# Native helpers that change their first argument: Counter.update's counting.
_CHANGING_FUNCTIONS = frozenset({"_count_elements"})
_CHANGEABLE = (list, dict, set, collections.deque)

_REMOVAL_HINT = (
    "pop a list of static items (numbers, tuples of them) that this function made and only its "
    "variables hold (that compiles), or "
    "keep the queue in an array and walk it with a runtime position: `times = np.array([...]); "
    "k = 0; while k < len(times) and times[k] < limit: ...; k += 1` (for a heap, sort the "
    "times first; for a worklist, loop over its items in pop order, `for i in reversed(q):`, "
    "and `return` or `break` on the runtime test)")


# Kinds of the arrays the program holds as NumPy made them (static): compiled
# code cannot hold them, but NumPy computes with them while compiling.
NATIVE_KINDS = "USmM"


def natively_made(result):
    """What a library call (or NumPy's operator) run now returns, as the
    program holds it: an ndarray as a constant array, except a string one
    (np.array(list("S.#"))) or one of dates (np.arange("2024-01-01",
    "2024-02-01", dtype="datetime64[D]")), which compiled code cannot hold
    but which may be compared or converted now (`g == '#'`, `days.astype(
    np.int64)`: those arrays are constants)."""
    if not isinstance(result, np.ndarray) or result.dtype.kind in NATIVE_KINDS:
        return result
    constant = Array(builder.const_value(result))
    # np.frombuffer(b"..."): a view of immutable memory, read-only in
    # NumPy, so writing into it must raise as it does there
    constant.frozen = frozen_kind(result)
    return constant


def user_dunder(obj, name: str):
    """The Python method `name` of obj's class (a user container's
    __iter__, __len__, __getitem__): interpreted like any call, so what it
    reads is guarded.  None for built-in and library classes."""
    cls = type(obj)
    if is_library_class(cls):
        return None
    method = class_attribute(cls, name)
    return method if isinstance(method, types.FunctionType) and not _is_library(method) else None


def _refuse_runtime_number_subclass(cls, args, kwargs):
    """`Meters(float(x[0]))` of a user's subclass of int, float or complex:
    its instance holds the number itself (float.__new__ stores it), not in
    an attribute that could hold a runtime value, and compiled code makes
    the object while compiling, when that number is not known.  (Else the
    refusal is float.__new__'s "float() of an array", which the user never
    wrote.)"""
    base = next((b for b in (float, int, complex) if issubclass(cls, b)), None)
    if base is None or issubclass(cls, (enum.Enum, np.generic)) or is_library_class(cls) \
            or not _any_runtime(args, kwargs):
        return
    raise StaticValueError(
        f"{cls.__qualname__}() of a runtime value: an instance of a subclass of {base.__name__} "
        f"holds its number itself, which compiled code would need at compile time (it makes "
        "objects while compiling, when a number computed from arrays is not known)",
        hint=f"keep the number in an attribute of a class not derived from {base.__name__} "
             f"(`def __init__(self, value): self.value = value`, with a __{base.__name__}__ "
             f"returning it): attributes may hold runtime values")


def _made_by_library(cls, args, kwargs):
    """cls(*args, **kwargs) of a library class, run now.  Containers
    (functools.partial, deque) hold runtime arrays as they are; a class that
    needs the value (Enum lookup, Fraction, timedelta) fails on tpucc's
    stand-in for a runtime value, and says so in its own words, about that
    stand-in: the program is told that the value must be static instead.
    (Also where the class reads the stand-in as a number, datetime.date(y,
    1, 1) calling y.__index__(): the stand-in's refusal would speak of an
    index the program never wrote.)"""
    try:
        return cls(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - whatever the library raises on the stand-in
        if isinstance(e, TpuccError) or not _any_runtime(args, kwargs):
            raise
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            raise       # (a namedtuple holds any value: only its arguments can be wrong)
        name = f"{cls.__module__}.{cls.__qualname__}" if cls.__module__ not in (
            "builtins", "__main__") else cls.__qualname__
        raise StaticValueError(
            f"{name}() of a runtime value: it is made while compiling, when only the dtype "
            "and shape of a value computed from arrays are known",
            hint="give it static values (Python numbers that do not come from arrays), or "
                 "make the object outside the compiled function and pass it in"
                 + (_RUNTIME_DATES if cls.__module__ == "datetime" else "")) from None


# How dates known only at run time are computed: as integer day numbers.
_RUNTIME_DATES = (
    "; for dates known only at run time, compute with integer day numbers: the days since "
    "1970-01-01 of (y, m, d) by the days-from-civil formula (y = y - (m <= 2); era = y // 400; "
    "yoe = y - era * 400; doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1; "
    "days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468), the weekday "
    "(days + 3) % 7 with Monday 0, date.toordinal() = days + 719163")


def _is_user_class(cls) -> bool:
    """A class whose construction we interpret: Python-level __init__/__new__."""
    init = class_attribute(cls, "__init__")
    new = class_attribute(cls, "__new__")
    return (isinstance(init, types.FunctionType) or init is object.__init__) and \
        new in (object.__new__, None) and cls.__module__ != "builtins"


def _is_dict_get(fn) -> bool:
    """Whether fn is a dict's own .get (of a subclass too: it reads no
    __missing__)."""
    return isinstance(fn, types.BuiltinMethodType) and isinstance(fn.__self__, dict) \
        and fn.__name__ == "get"


def _takes_any_object(fn, args=(), kwargs=None) -> bool:
    """Whether a call passes its arguments on without looking at them, so
    that one may be a choice among static objects (chosen_values.py): the
    program's own functions and classes (interpreted), a list's append or
    insert, and what takes the items of a list or tuple as they are (a
    list's extend, list(), tuple())."""
    func = fn.__func__ if isinstance(fn, types.MethodType) else fn
    if isinstance(func, types.FunctionType):
        return not _is_library(func)
    if isinstance(fn, type) and not is_library_class(fn):
        return True
    whole_items = len(args) == 1 and not kwargs and type(args[0]) in (list, tuple)
    if fn is list or fn is tuple:
        return whole_items
    return isinstance(fn, types.BuiltinMethodType) and type(fn.__self__) is list and (
        fn.__name__ in ("append", "insert") or fn.__name__ == "extend" and whole_items)


def _called_name(fn) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    module = getattr(fn, "__module__", None) or ""
    return f"np.{name}()" if module.startswith("numpy") else f"{name}()"


def _hashable(fn) -> bool:
    try:
        hash(fn)
        return True
    except TypeError:
        return False


def _is_library(fn) -> bool:
    module = home_module(fn)
    return module.split(".")[0] in ("numpy", "jax", "jaxlib") and \
        module not in _INTERPRETED_LIBRARY_MODULES


def home_module(fn) -> str:
    """The module a function was defined in: that of its globals.  Not its
    `__module__`, which functools.wraps copies from what it wraps (a user's
    wrapper of np.tanh says "numpy", yet its code is the user's)."""
    globals_ = getattr(fn, "__globals__", None)
    if isinstance(globals_, dict) and isinstance(globals_.get("__name__"), str):
        return globals_["__name__"]
    return getattr(fn, "__module__", "") or ""


# Library Python code interpreted as the user's own: NDArrayOperatorsMixin
# gives a user class operators that call ufuncs on the object, which NumPy
# hands to the class's __array_ufunc__.  Run natively, that user method would
# get tpucc's stand-in for a runtime array.
_INTERPRETED_LIBRARY_MODULES = frozenset({"numpy.lib.mixins"})


def _is_ufunc_method(fn) -> bool:
    """np.add.reduce, np.maximum.accumulate, np.multiply.outer, np.add.at."""
    return isinstance(fn, types.BuiltinMethodType) and isinstance(fn.__self__, np.ufunc) \
        and fn.__name__ in ("reduce", "accumulate", "reduceat", "outer", "at")


def _flat_attribute(flat: FlatIter, name):
    """`a.flat.base` and `a.flat.copy()`; its position (`.index`, `.coords`)
    advances as NumPy's iterator is consumed, which compiled code does not
    track."""
    if name == "base":
        return flat.base
    if name == "copy":                  # a 1-d copy: a.flatten()
        return BoundArrayMethod(flat.base, "flatten")
    if hasattr(np.flatiter, name):
        raise UnsupportedError(f"`a.flat.{name}` is not supported",
                               hint="index a.flat, iterate over it, or use a.ravel()")
    raise UserCodeError(f"AttributeError: 'numpy.flatiter' object has no attribute '{name}'")


def _is_value_of_parts(value) -> bool:
    """A tuple, named tuple or frozen dataclass of arrays and numbers (and
    such values again): state.is_value_dataclass."""
    return type(value) is tuple or is_namedtuple(value) or is_value_dataclass(value)


def _holds_outside_array(value, depth: int = 4) -> bool:
    """Whether a tuple (named tuples and frozen dataclasses too, nested
    `depth` levels) holds a NumPy or jax array."""
    items = value if isinstance(value, tuple) else [getattr(value, k)
                                                    for k in value_fields(value)]
    return any(_is_array_object(v) or depth > 0 and _is_value_of_parts(v)
               and _holds_outside_array(v, depth - 1) for v in items)


def _is_array_object(v) -> bool:
    """A NumPy or jax array (not a NumPy scalar): what capture takes."""
    return isinstance(v, np.ndarray) or _is_jax_array(v)


def _is_jax_array(v) -> bool:
    return type(v).__module__.startswith("jax") and hasattr(v, "shape") and hasattr(v, "dtype")


def _any_runtime(args, kwargs) -> bool:
    stack = list(args) + list(kwargs.values())
    while stack:
        v = stack.pop()
        if isinstance(v, (Array, masked.Selection, FlatIter)):
            return True
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
    return False

def _native_refusal(fn, name, module, owner, what: str) -> UnsupportedError:
    """The error of a library function (native code, or NumPy's) given
    runtime values, with the way to write it instead."""
    where = numpy_name(fn) if module.split(".")[0] == "numpy" and owner is None \
        else f"{module}.{name}" if module else name     # (np.X: as the user wrote it)
    hint = (f"math.{name} needs a Python number at compile time; on a runtime value "
            f"use NumPy's (np.{name})" if module == "math" and hasattr(np, name) else
            SERIES_INSTEAD if module.startswith("numpy.polynomial") else
            TESTING_INSTEAD if module.startswith("numpy.testing") else
            NUMPY_INSTEAD.get(name, README_HINT) if module.split(".")[0] == "numpy" else
            f"{where}'s native code cannot read values known only at run time: "
            f"{_instead_of_native(fn, name)}, or call it outside the compiled function")
    error = UnsupportedError(f"{where}() is not supported on {what} by tpucc", hint=hint)
    error.generic_hint = True   # (a library's own caller may say it better)
    return error


def _runtime_what(args, kwargs) -> str:
    """What a refused library call was given at run time, for its message:
    Python numbers only (`hash(int(k))`), or arrays (NumPy scalars too)."""
    runtime = [v for v in (*args, *kwargs.values()) if _any_runtime([v], {})]
    if runtime and all(isinstance(v, Array) and v.weak and v.ndim == 0 for v in runtime):
        return "a Python number known only at run time"
    return "runtime arrays"


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from . import control  # noqa: E402
from . import dunders  # noqa: E402  (which imports this module)
from .interpreter import Frame, OwnedCell, owned_value  # noqa: E402
