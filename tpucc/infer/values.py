"""Runtime values seen by the interpreter.

`Array` is the compile-time stand-in for a NumPy array: it holds the SSA
Value that currently defines it.  Its identity is a NumPy array's identity:
`y = x` aliases, and an in-place update (`x[i] = v`, `x += 1`) replaces the
Value of the same Array object, so every alias sees it.  A view made by basic
indexing (`x[0]`, `x[:, 1:3]`) re-reads its base when the base's Value is no
longer the one it read (also through a chain of views) and writes through to
its base, as NumPy views do.

Operators on Arrays emit registry ops (see ops/); Python scalars mixed in
are weak (NEP 50).  `bool(array)` raises NeedsRuntimeBranch, which the
interpreter turns into a runtime branch.
"""
from __future__ import annotations

import ast
import collections
import contextlib
import gc
import itertools
import math
import types
import weakref
from dataclasses import dataclass

import numpy as np

from ..errors import DTypeError, ShapeError, SideEffectError, StaticValueError, UnsupportedError
from ..ir import AVal, Value
from . import builder, picked_copies

_serials = itertools.count(1)


class NeedsStatic(Exception):
    """Raised when a runtime Array is used where a static value is needed.
    `value`: that Array, where known (static_arguments names the NumPy
    parameter that was given it)."""
    def __init__(self, what: str, value=None):
        super().__init__(what)
        self.what = what
        self.value = value


class RuntimeKind:
    """The kind of a 0-d value whose runtime branches disagreed (one made a
    NumPy scalar, another a 0-d array): `var` is a bool[] runtime value, True
    when the path taken made a NumPy scalar.  It is truthy, so compile-time
    rules treat the value as a scalar (`+=` rebinds); the conversion of a
    returned value reads `var` to give the user the kind NumPy gives."""
    __slots__ = ("var",)

    def __init__(self, var: Value):
        self.var = var


def compile_time_kind(kind):
    """A kind for a value leaving the region where a RuntimeKind's `var` is
    defined (a loop body, a differentiated function): a NumPy scalar."""
    return True if isinstance(kind, RuntimeKind) else kind


@dataclass(frozen=True)
class Span:
    """What is known statically of a runtime int: it equals `scale * token +
    offset`, where `token` (an IR Value: a counted loop's counter) lies in
    [lo, hi].  Two ints of one token and scale differ by a static amount,
    so x[i:i + 3] and x[b * 8:(b + 1) * 8] are slices of static length; and
    the bounds show them in range (indexing.fixed_length_slice)."""
    token: object
    offset: int
    lo: int
    hi: int
    scale: int = 1

    def shifted(self, c: int) -> "Span":
        return Span(self.token, self.offset + c, self.lo, self.hi, self.scale)

    def scaled(self, c: int) -> "Span":
        return Span(self.token, self.offset * c, self.lo, self.hi, self.scale * c)

    def bounds(self) -> tuple:
        ends = (self.scale * self.lo, self.scale * self.hi)
        return min(ends) + self.offset, max(ends) + self.offset

    def fits(self, dtype) -> bool:
        """Whether the values stay inside an integer dtype (else they wrapped)."""
        info = np.iinfo(dtype)
        lo, hi = self.bounds()
        return info.min <= lo and hi <= info.max


def known_constant(x):
    """The NumPy value of an Array that holds a constant (one NumPy made
    while compiling: np.linspace(0, 1, 5), np.array([1, 2])) and has not
    been changed since, else None."""
    if not isinstance(x, Array):
        return None
    return builder.ctx().constants.get(x.var)


def known_integer(x):
    """x as a Python int where it is an Array holding a constant integer
    scalar (cy of `cy, cx = np.array(F.shape) // 2`), else x itself: a slice
    bound or dimension that is static as eagerly."""
    known = known_constant(x)
    if known is None or known.shape != () or known.dtype.kind not in "iu":
        return x
    return int(known)


def int_bounds(x, aval: AVal | None = None):
    """(lo, hi) bounding every element of an integer or bool operand: a
    static one's own, a runtime one's Span, else its dtype's range; None for
    other dtypes or a large static array (not worth scanning)."""
    if aval is None:
        aval = x.aval if isinstance(x, Array) else AVal(np.asarray(x).dtype, (), False)
    kind = aval.dtype.kind
    if kind == "b":
        return 0, 1
    if kind not in "iu":
        return None
    if isinstance(x, Array):
        if x.span is not None:
            return x.span.bounds()
        info = np.iinfo(aval.dtype)
        return int(info.min), int(info.max)
    values = np.asarray(x)
    if values.size == 0 or values.size > 4096:
        return None
    return int(values.min()), int(values.max())


def ranged_span(token: Value, dtype, bounds) -> Span | None:
    """The Span of a new integer value (its own token: it equals no other)
    whose elements lie in `bounds`; None where that says nothing narrower
    than the dtype, or goes beyond it (the values would have wrapped)."""
    if bounds is None:
        return None
    info = np.iinfo(dtype)
    lo, hi = bounds
    if lo < info.min or hi > info.max or lo > hi or (lo, hi) == (info.min, info.max):
        return None
    return Span(token, 0, lo, hi)


_COPY_HINT = ("make a copy first (x = x.copy()) so the update has one target, or assign the "
              "new value instead of updating in place")


class AliasNote(str):
    """An alias_note with its own hint: why an array outside a runtime `if`
    may not be updated in place (a value chosen in the `if` may be it)."""

    def __new__(cls, note: str, hint: str, chooser=None):
        self = super().__new__(cls, note)
        self.hint = hint
        # The merged array that may be this one (held weakly): once nothing
        # holds it (the variable rebound, its function returned), no value
        # can follow an update, and the update is no longer refused.
        self.chooser = None if chooser is None else weakref.ref(chooser)
        self.chooser_note = None if chooser is None else chooser.alias_note
        return self

    def outlived(self) -> bool:
        """Whether the array that chose this one at run time is gone, and no
        array merged from it since (an enclosing `if`, a loop) carries its
        note on.  Asked only before a refusal: the collection (it may sit
        in a reference cycle) and the search are rare."""
        if self.chooser is None:
            return False
        if self.chooser() is not None:
            gc.collect()
            if self.chooser() is not None:
                return False
        return not any(isinstance(r, Array) and r.alias_note is self.chooser_note
                       for r in gc.get_referrers(self.chooser_note))


# Told of each array (not a view: its base) whose value is read while one
# is set: a generator's run notes the arrays it reads (generator_runs).
array_read_watchers: list = []
# Told of each array updated in place while one is set: a generator's run
# notes the outside arrays it writes (generator_runs.note_effect).
array_write_watchers: list = []


@contextlib.contextmanager
def view_made():
    """While a view of an array is made: no read of its value (the view
    reads its base again when its own value is read, Array.var)."""
    watchers = array_read_watchers[:]
    array_read_watchers.clear()
    try:
        yield
    finally:
        array_read_watchers[:] = watchers


@contextlib.contextmanager
def unwatched():
    """While tpucc's own arrays are read and updated (the runtime checks'
    error code and message slots, checks.py): they are no state of the
    program, so a generator's run must not take an index check made in it
    for a read of state that a later check, in its consumer, changes."""
    reads, writes = array_read_watchers[:], array_write_watchers[:]
    array_read_watchers.clear()
    array_write_watchers.clear()
    try:
        yield
    finally:
        array_read_watchers[:] = reads
        array_write_watchers[:] = writes


class Array:
    __slots__ = ("_var", "serial", "version", "base", "index", "_base_var", "_read_in",
                 "immutable", "frozen", "alias_note", "alias_partners", "fence", "bound_if",
                 "span", "layout_of", "held_int", "held_type", "held_bool", "dtype_varies",
                 "__weakref__")
    __array_ufunc__ = None          # NumPy scalars defer to our reflected operators
    __array_priority__ = 1000

    def __init__(self, var: Value, base: "Array | None" = None, index=None):
        self._var = var
        self.serial = next(_serials)
        self.version = 0
        self.base = base
        self.index = index
        self._base_var = base._var if base is not None else None   # base's Value we read
        self._read_in = None        # the region a view's re-read was emitted into
        self.immutable = False      # a NumPy scalar: `x += 1` rebinds instead
        # Never updated in place (see `frozen_kind`); a view of such an array too.
        self.frozen = base.frozen if base is not None else None
        self.alias_note = None      # set when this may or may not alias another array
        # With an alias_note a runtime `if` set: the arrays this one may be
        # (None: not known), which lets a loop append it (infer/stacking.py).
        self.alias_partners = None
        # While a loop body is interpreted on parameters for its variables,
        # the arrays they held at the loop's entry: a list logging (array,
        # "read" / "write") for each use of them (see loops._fenced).
        self.fence = None
        # A variable first bound in a runtime-counted loop's body holds this
        # after the loop: (the runtime bool "the loop ran", the name).  Python
        # raises UnboundLocalError where it is read after a loop that did not.
        self.bound_if = None
        # A runtime int known as `token + offset` with token in [lo, hi]
        # (Span): a counted loop's counter, and counter + c; an integer
        # array whose elements lie in [lo, hi] (OpDef.value_range: np.clip,
        # `% n`, argmax).  An update in place forgets it.
        self.span = None
        # A new array that NumPy lays out in its operands' memory order (a
        # ufunc's result, astype and copy with order 'K'): those operands,
        # asked lazily where a layout matters (indexing._numpy_layout).
        self.layout_of = None
        # A 0-d NumPy integer or float that is a Python int on some runtime
        # paths (merged with one by a runtime `if` or loop): the runtime bool,
        # True where the path taken left the Python int (held_ints.py); of
        # a runtime Python int (weak), where it left a Python bool ...
        self.held_int = None
        # ... the Python type it holds there (held_ints.hold; None: the
        # one its dtype says, held_ints.python_type).
        self.held_type = None
        # ... and, where the paths hold a Python bool beside that int (or
        # float), a third type one bool cannot tell: the runtime bool, True
        # where the path left the bool (held_ints.hold).
        self.held_bool = None
        # Made by a runtime `if` of values whose own dtypes differ (a Python
        # float on one path, a NumPy int on the other): the dtype NumPy
        # would give depends on the path taken (np.vectorize's first call).
        self.dtype_varies = False

    # --- the SSA value, with view re-reads -------------------------------
    @property
    def var(self) -> Value:
        if self.fence is not None:
            self.fence.append((self, "read"))
        base = self.base
        if base is None:
            if array_read_watchers:
                array_read_watchers[-1](self)
            return self._var
        base_var = base.var         # (a view of a view: its base re-reads first)
        if base_var is not self._base_var or not _region_live(self._read_in):
            from ..ops import indexing
            self._var = indexing.basic_index_value(base, self.index)
            self._base_var = base_var
            self._read_in = builder.ctx().region
        return self._var

    def set(self, var: Value) -> None:
        """In-place update: this Array now holds `var` (same shape/dtype)."""
        if isinstance(self.alias_note, AliasNote) and self.alias_note.outlived():
            self.alias_note = None
        if self.alias_note is not None:
            raise SideEffectError(
                f"in-place update of an array whose identity depends on a runtime condition: "
                f"{self.alias_note}", hint=getattr(self.alias_note, "hint", _COPY_HINT))
        if self.frozen is not None:
            _refuse_update(self.frozen)
        picked_copies.refuse_change(self)   # (a runtime pick's copy would not see it)
        if self.fence is not None:
            self.fence.append((self, "write"))
        if array_write_watchers:
            array_write_watchers[-1](self)
        _journal(self)              # (first: a view's value before the write-through)
        if self.base is not None:
            from ..ops import indexing
            indexing.write_through(self.base, self.index, var)
            self._base_var = self.base.var
        self._var = var
        self._read_in = None
        self.span = None
        self.version += 1

    def assign(self, var: Value) -> None:
        """A merge result (after a Cond or While): journaled, never written
        through to a base (the base gets its own merged value)."""
        _journal(self)
        self._var = var
        self._read_in = None
        self.span = None
        self.version += 1

    def restore(self, var: Value) -> None:
        """Undoes a runtime region's updates; not journaled.  A view reads its
        base again (the base is restored too): `var` may have been read
        inside the region being left."""
        self._var = var
        self._read_in = None
        self._base_var = None
        self.version += 1

    # --- static facts ------------------------------------------------------
    @property
    def aval(self) -> AVal:
        return self._var.aval

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    @property
    def shape(self) -> tuple:
        return self.aval.shape

    @property
    def ndim(self) -> int:
        return len(self.aval.shape)

    @property
    def size(self) -> int:
        return self.aval.size

    @property
    def weak(self) -> bool:
        return self.aval.weak

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self):
        return f"Array({self.aval}, {self._var})"

    # --- conversions that need a static value ------------------------------
    def __bool__(self):
        raise NeedsStatic("the truth value of an array", self)

    def __index__(self):
        known = known_integer(self)
        if known is not self:       # (np.array(x.shape)[0]: a constant)
            return known
        raise NeedsStatic("an integer index taken from an array", self)

    def __int__(self):
        raise NeedsStatic("int() of an array", self)

    def __float__(self):
        raise NeedsStatic("float() of an array", self)

    def __array__(self, *a, **k):
        raise NeedsStatic("converting a runtime array to a NumPy array", self)

    def __hash__(self):
        return id(self)

    def __getitem__(self, key):
        from ..ops import indexing
        return scalar_if_numpy_would(self, key, indexing.getitem(self, key))

    def __setitem__(self, key, value):
        from ..ops import indexing
        indexing.setitem(self, key, value)

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self._row_item(i) for i in range(self.shape[0]))

    def _row_item(self, i: int):
        """self[i] as Python's iterator gives it.  An element of a 1-d array
        (a NumPy scalar, a copy) is noted as row i of the array's value, as
        a counted loop's buffer rows are (stacking.whole_buffer): np.array
        or a While's stacking of many of them (`reversed(x)`, islice,
        compress) is then one slice of the array, not one slice per item
        concatenated (200 of them: 7 s of XLA)."""
        item = self[i]
        if isinstance(item, Array) and item.base is None and not item.shape \
                and self.ndim == 1 and isinstance(self.shape[0], int):
            rows = builder.ctx().stacked_rows
            rows[id(item.var)] = (item.var, self.var, i)
        return item


JAX = "jax"
READ_ONLY = "read-only"
CHOSEN = "chosen"       # ls[i] with a runtime i: a copy of one of the list's arrays
WINDOWS = "windows"     # sliding_window_view(writeable=True): a copy of overlapping windows
ASSEMBLED = "assembled"     # np.frombuffer(bytearray, wider dtype): numbers made from its bytes
SNAPSHOT = "snapshot"       # np.frombuffer(a global bytearray): its contents when compiled
BROADCAST_ARRAYS = "broadcast_arrays"   # np.broadcast_arrays' stretched result: warns on write


def frozen_kind(value) -> str | None:
    """How an array from the caller refuses in-place updates, as Python
    would: a jax array is immutable (`x += 1` makes a new array, `x[0] = 1`
    is a TypeError), a NumPy array whose writeable flag is off raises
    ValueError for both.  None: an ordinary, writable NumPy array."""
    if isinstance(value, np.ndarray):
        return None if value.flags.writeable else READ_ONLY
    if type(value).__module__.startswith("jax") and hasattr(value, "shape"):
        return JAX
    return None


def rebinds_in_place(a) -> bool:
    """Whether `a += b` makes a new value instead of writing into `a`: a
    Python or NumPy scalar, or a jax array."""
    return a.weak or a.immutable or a.frozen == JAX


def _refuse_update(kind):
    if kind == CHOSEN:
        raise SideEffectError(
            "updating in place an array chosen at run time among several (`xs[i]` of a list "
            "with a runtime i, max() or min() with runtime keys, or the item a loop over a "
            "long list left at: a runtime `break`): compiled code chooses a copy, so the "
            "update would not reach the chosen array",
            hint="keep the arrays in one array (xs = np.stack(...)) and update xs[i], "
                 "choose with a static index, or update a copy (v = v.copy())")
    if kind == WINDOWS:
        raise SideEffectError(
            "writing through sliding_window_view(writeable=True): the windows overlap, and "
            "compiled code reads them as a copy that writes cannot go through",
            hint="update the array itself (x[start:start + n] = ...)")
    if kind == ASSEMBLED:
        raise SideEffectError(
            "writing through np.frombuffer(data, dtype) of a bytearray with a dtype wider than "
            "a byte: compiled code assembles the numbers from the bytes, a copy that writes "
            "cannot go through to the bytearray",
            hint="write the bytes themselves through np.frombuffer(data, np.uint8), or update a "
                 "copy (x = x.copy())")
    if kind == SNAPSHOT:
        raise SideEffectError(
            "writing through a NumPy view of a bytearray or array.array that is not an argument "
            "of the compiled function (or read with options compiled code does not take): "
            "compiled code reads it as a constant, so the write would not reach it",
            hint="pass the buffer as an argument (np.frombuffer(data, np.uint8) of it is then "
                 "written back), or update a copy (x = x.copy())")
    if kind == BROADCAST_ARRAYS:
        # (NumPy 2 still writes, warning that one element may be many of the
        # view's: a write into a stretched axis lands in every copy of it.)
        raise SideEffectError(
            "writing into an array np.broadcast_arrays stretched: NumPy 2 writes with a "
            "DeprecationWarning (future versions make it read-only), the write reaching every "
            "element that shares the broadcast memory; compiled code does not write through it",
            hint="write into a copy (y = y.copy()), or into the array before broadcasting")
    if kind == JAX:
        raise SideEffectError(
            "jax arrays are immutable: item assignment and in-place updates of one raise "
            "TypeError in Python too", hint="update a NumPy copy instead (x = np.array(x)), "
            "or assign a new value (x = np.where(mask, v, x))")
    raise SideEffectError("assignment destination is read-only: NumPy raises ValueError "
                          "for an array whose writeable flag is off",
                          hint="update a copy (x = x.copy())")


def scalar_if_numpy_would(obj, key, out):
    """`x[i]` / `x[i, j]` with an integer for every axis (or `x[()]` of a 0-d
    array) gives a NumPy scalar: a copy, not a view, and immutable (`v += 1`
    rebinds v, with NumPy-scalar promotion).  `x[..., 0]` of a 1-d array is a
    0-d view instead."""
    if not (isinstance(obj, (Array, np.ndarray)) and isinstance(out, Array) and out.ndim == 0):
        return out
    items = key if isinstance(key, tuple) else (key,)
    if len(items) != obj.ndim or not all(_integer_index(k) for k in items):
        return out
    scalar = Array(out.var) if out.base is not None else out
    scalar.immutable = True
    return scalar


def _integer_index(k) -> bool:
    if isinstance(k, (bool, np.bool_)):
        return False
    if isinstance(k, (int, np.integer)):
        return True
    return isinstance(k, Array) and k.ndim == 0 and k.dtype.kind in "iu"


def _region_live(rb) -> bool:
    """False when a view's cached re-read was emitted into a region that has
    been closed (e.g. the other arm of a Cond): its Value is not in scope."""
    if rb is None or not builder._current:
        return True
    return any(r is rb for r in builder.ctx().regions)


def _journal(arr: Array) -> None:
    """Remembers the first Value an Array held before a runtime region
    changed it, so the region's effect on outer arrays can be merged."""
    c = builder.ctx()
    if c.journal and arr.serial < c.serial_floor[-1]:
        c.journal[-1].setdefault(arr, arr.var)


def journal_before(arr: Array, before: Value) -> None:
    """Records `before` as the value `arr` had before the current region."""
    c = builder.ctx()
    if c.journal and arr.serial < c.serial_floor[-1]:
        c.journal[-1].setdefault(arr, before)


def set_item(container, key, value, serial: int) -> None:
    """container[key] = value on a list or dict the compiled code made
    (with its fresh `serial`), journaled like an Array update when the
    container is older than the current region: the region's end undoes the
    write (finish_items) so that its state can be merged or carried."""
    c = builder.ctx()
    if c.item_journal and serial < c.serial_floor[-1]:
        if isinstance(key, slice):      # (one of another length: calls.setitem does the rest)
            raise SideEffectError(
                "assigning a list slice of another length inside a loop or a runtime `if`, "
                "to a list from before it, is not supported", hint="build a new list "
                "(`hs = hs[1:] + [v]`), or assign as many items as the slice holds")
        c.item_journal[-1].setdefault((id(container), key),
                                      (container, key, read_item(container, key), c.loc, serial))
    put_item(container, key, value)


def journal_contents(container, serial: int) -> None:
    """Before the compiler changes a list, deque, dict or set the program
    made (with its `serial`) as Python does (`hist.append(v)`, `q.pop()`,
    `d.update(...)`, `del lst[0]`): its whole contents, journaled when it
    is older than the current region, so that a region thrown away (an
    unrolled iteration that leaves on a runtime `break`, tried again as one
    While; an attempt that failed) leaves it as it was, as finish_items
    leaves the items it rebound.  A region whose end is merged or carried
    (a runtime `if` or loop) has no such change: check_mutation refuses it."""
    c = builder.ctx()
    if c.item_journal and serial < c.serial_floor[-1] and isinstance(container, _WHOLE_KINDS):
        c.item_journal[-1].setdefault((id(container), CONTENTS),
                                      (container, CONTENTS, _contents(container), c.loc, serial))


_WHOLE_KINDS = (list, collections.deque, dict, set)


class _Contents:
    """The key of a container's whole contents in an item journal."""

    def __repr__(self):
        return "CONTENTS"


CONTENTS = _Contents()


def _contents(container) -> list:
    """Its items (a dict's (key, value) pairs, in its own order: an
    OrderedDict's), read as its built-in class does (not the user's
    subclass's methods, nor a Counter's)."""
    if isinstance(container, dict):
        return list(native_method(container, "items")(container))
    return list(native_method(container, "__iter__")(container))


def _restore_contents(container, items: list) -> None:
    native_method(container, "clear")(container)
    if isinstance(container, dict):
        native_method(container, "update")(container, items)
    elif isinstance(container, set):
        native_method(container, "update")(container, items)
    else:
        native_method(container, "extend")(container, items)


def read_item(container, key):
    """container[key], or ABSENT for a dict key it lacks or the position
    just past a list's end (an append: appended_item)."""
    if type(container) in _GROWN_AT_END and key == len(container):
        return ABSENT
    if isinstance(container, (list, collections.deque)) or \
            native_method(container, "__contains__")(container, key):
        return native_method(container, "__getitem__")(container, key)
    return ABSENT


def native_item(container, key):
    """container[key] as the built-in class reads it (native_method), but
    KeyError for a key a dict lacks: dict's own __getitem__ runs a
    defaultdict's __missing__, which would store a default item there
    (unjournaled: a list no trace made)."""
    if isinstance(container, dict) and not dict.__contains__(container, key):
        raise KeyError(key)
    return native_method(container, "__getitem__")(container, key)


def native_method(container, name: str):
    """The built-in implementation of container's method `name` (dict's,
    list's, OrderedDict's: the first in its class's MRO that is not a
    Python function).  A user subclass's __getitem__ or __setitem__ is
    interpreted where the user's code calls it; run natively on tpucc's
    stand-ins for runtime arrays when the compiler stores an item, it
    would fail (`super().__setitem__(k, v)` stores as dict does)."""
    for klass in type(container).__mro__:
        method = vars(klass).get(name)
        if method is not None and not isinstance(method, types.FunctionType):
            return method
    return getattr(type(container), name)


def appended_item(container, key) -> bool:
    """Whether an item write a region undid (values.finish_items) was an
    append: its position is past the list's end again."""
    return type(container) in _GROWN_AT_END and type(key) is int and key >= len(container)


# The containers a region may append to (calls._appends_journaled), an item
# written just past the end: a list, and a deque with room left (one full
# to its maxlen keeps its length: calls._deque_in_place).
_GROWN_AT_END = (list, collections.deque)


ABSENT = object()       # a dict key a region added: undone by deleting it
# A guard's value where a key or an attribute was absent: the guard holds
# while it still is (the driver and tpucc.snapshot read guards with it).
MISSING = object()


def put_item(container, key, value) -> None:
    """container[key] = value, or del container[key] for ABSENT: no journal.
    A list's position just past its end is an append (a runtime `if`'s arm
    appends: set_item), and ABSENT there removes its last item."""
    if type(container) in _GROWN_AT_END and key >= len(container) - (value is ABSENT):
        if value is ABSENT:
            while len(container) > key:     # (a deque has no slices)
                container.pop()
        else:
            container.append(value)
    elif value is ABSENT:
        native_method(container, "pop")(container, key, None)
    else:
        native_method(container, "__setitem__")(container, key, value)


def items_before(journal: dict) -> None:
    """Hands the item writes of a region that is kept (an unrolled loop
    iteration) to the enclosing region's journal, which may undo them."""
    c = builder.ctx()
    if c.item_journal:
        for slot, entry in journal.items():
            if entry[4] < c.serial_floor[-1]:
                c.item_journal[-1].setdefault(slot, entry)


def finish_items(journal: dict) -> dict:
    """Ends a region's item writes: {(id(container), key): (container, key,
    value at the end, loc of the first write, the container's serial)},
    each write undone."""
    # (a container changed whole has no item ends: only a region thrown
    # away changes one, journal_contents)
    whole = {cid for cid, key in journal if key is CONTENTS}
    ends = {slot: (container, key, container[key], loc, serial)
            for slot, (container, key, _, loc, serial) in journal.items() if slot[0] not in whole}
    # (last first: a list's later appends go before its earlier ones)
    for container, key, before, *_ in reversed(_undone(journal)):
        if key is CONTENTS:
            _restore_contents(container, before)
        else:
            put_item(container, key, before)
    return ends


def _undone(journal: dict) -> list:
    """The journal's entries to undo: a container's whole contents restore
    every item it held then, so its item writes after that are not undone
    (a deque's position may be gone by then: a popleft)."""
    whole, out = set(), []
    for entry in journal.values():
        if id(entry[0]) in whole:
            continue
        if entry[1] is CONTENTS:
            whole.add(id(entry[0]))
        out.append(entry)
    return out


def to_value(x) -> Value:
    if isinstance(x, Array):
        return x.var
    if isinstance(x, Value):
        return x
    if isinstance(x, (bool, int, float, complex, np.generic, np.ndarray)):
        return builder.const_value(x)
    if isinstance(x, (list, tuple)):
        x = array_like(x)
        return x.var if isinstance(x, Array) else builder.const_value(np.asarray(x))
    from ..ops import masked
    if isinstance(x, masked.Selection):
        raise masked.refusal("using y[mask] as an operand here", x)
    raise _not_an_array(x)


def _not_an_array(x) -> Exception:
    """The error for a static value that is no array operand: None (a
    forgotten argument, `x @ w` with w=None), a str, a dict or an object.
    NumPy would make an object or string array of it and refuse it in the
    op; a compiled program cannot hold such dtypes (E210).  A string of
    runtime values made for print() is E400, as its other uses are."""
    from .messages import RuntimeText, refuse_use
    if isinstance(x, RuntimeText):
        refuse_use()
    what = "None" if x is None else f"a {type(x).__name__} ({_short(x)})"
    kind = "a string" if isinstance(x, str) else "an object"
    return DTypeError(f"{what} used as an array operand: NumPy would make {kind} array of "
                      "it, which compiled code cannot hold",
                      hint="pass an array or a number here" + (
                          " (an argument left out?), or test `... is None` before using it"
                          if x is None else ""))


def _short(x) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def array_like(x):
    """An operand as NumPy's np.asarray sees it: a (nested) list or tuple
    holding runtime values is the array np.array makes of it (the items
    stacked, with np.array's dtype); anything else is returned unchanged."""
    if isinstance(x, (list, tuple)) and holds_runtime(x):
        from ..ops.elementwise import asarray
        return asarray(x)
    return x


def holds_runtime(x) -> bool:
    """Whether a (nested) list or tuple holds a runtime Array."""
    return holds(x, Array)


def holds(x, kind) -> bool:
    """Whether x, or an item of x's (nested) lists and tuples, is a `kind`."""
    stack = [x]
    while stack:
        v = stack.pop()
        if isinstance(v, kind):
            return True
        if isinstance(v, (list, tuple)):
            stack.extend(v)
    return False


def is_array(x) -> bool:
    return isinstance(x, Array)


def new_serial_floor() -> int:
    return next(_serials)


class Undefined:
    """A variable bound on some paths of a runtime branch but not others."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"<undefined {self.name}>"


def check_runtime_size(shape: tuple, dtype: np.dtype, what: str):
    """Refuses an input no device could hold, as arrays the program makes
    are refused (builder.MAX_ARRAY_BYTES).  A zero-stride view
    (np.broadcast_to) counts at its full size: a compiled program takes
    every input as a whole array."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > builder.MAX_ARRAY_BYTES:
        raise ShapeError(f"{what} is an array of {builder.human_bytes(nbytes)} (shape "
                         f"{tuple(shape)}, {dtype}): tpucc refuses arrays over "
                         f"{builder.human_bytes(builder.MAX_ARRAY_BYTES)}",
                         hint="no device holds it: a broadcast view is passed whole, so "
                              "pass the small array and broadcast inside the function")


def refuse_array_subclass(x, what: str) -> None:
    """Refuses the ndarray subclasses compiled code would read as plain
    arrays, losing what they mean: a masked array's mask, np.matrix's `*`
    (a matrix product), `**` and 2-d indexing, any other subclass's
    overrides and the class of its results (np.memmap computes as a plain
    array, and is accepted).  `what`: "argument", or
    where a captured array was found ("global `W`")."""
    if isinstance(x, np.ma.MaskedArray):
        raise UnsupportedError(f"a NumPy masked array {what} is not supported: compiled code "
                               "reads arrays without masks",
                               hint="pass its data and its mask as two arrays (x.data, "
                                    "np.ma.getmaskarray(x)), or x.filled(value)")
    if isinstance(x, np.matrix):
        raise UnsupportedError(f"a NumPy matrix (np.matrix) {what} is not supported: its `*`, "
                               "`**` and indexing are not an ndarray's, and compiled code "
                               "reads it as an ndarray",
                               hint=_plain_array_hint(what, "m") + "; write matrix "
                                    "products as a @ b")
    if isinstance(x, np.ndarray) and type(x) not in PLAIN_ARRAY_TYPES:
        raise UnsupportedError(f"an ndarray subclass ({type(x).__name__}) {what} is not "
                               "supported: compiled code reads it as a plain ndarray, so "
                               "its class's methods (__array_ufunc__, operators, attributes) "
                               "would not run",
                               hint=_plain_array_hint(what, "x"))


def _plain_array_hint(what: str, name: str) -> str:
    """How to give compiled code the plain array instead.  An array found
    outside the call is read as it is found, before any np.asarray() of it
    inside the function runs: it is converted where it is made."""
    if what == "argument":
        return f"pass np.asarray({name}), the plain array it holds"
    named = what.split("`")[1:2]            # global `M`: M
    name = named[0] if named and named[0].isidentifier() else name
    return (f"convert it outside the compiled function, where it is made ({name} = "
            f"np.asarray({name})), or pass np.asarray({name}) as an argument (np.asarray "
            "inside the function comes too late: the array is read as it is found)")


# ndarray subclasses that compute as plain arrays: a memmap's results are
# plain arrays (memmap.__array_wrap__), and it is read in place at each call.
PLAIN_ARRAY_TYPES = (np.ndarray, np.memmap)


def datetime_refusal(dtype: np.dtype, what: str, name: str | None = None) -> DTypeError:
    """The error for a datetime64/timedelta64 value (`what`, read from
    `name` where it comes from outside): dates are not compiled; their
    integer counts are (a datetime64[D] is days since 1970-01-01, a
    timedelta64[s] a count of seconds)."""
    counts = date_counts(dtype)
    given = f"pass {name}.astype(np.int64) ({counts})" if name else \
        f"compute with integer counts instead (here {counts}: `d.astype(np.int64)` of " \
        "the dates d, made outside or from constants)"
    return DTypeError(f"{what} has dtype {dtype}: compiled code does not support dates and "
                      "times (datetime64/timedelta64)",
                      hint=f"{given}, or differences of dates as numbers "
                           "(`(d1 - d0).astype(np.int64)`), and convert the results back "
                           f"outside (`.astype('{dtype}')`)")


def date_counts(dtype: np.dtype) -> str:
    """What the integers of a datetime64/timedelta64 dtype count."""
    unit = np.datetime_data(dtype)[0]
    if dtype.kind == "m":
        return f"a count of {unit} units"
    return "days since 1970-01-01" if unit == "D" else f"{unit} units since the epoch"


def runtime_date_refusal(cls: type, args) -> DTypeError:
    """np.timedelta64(secs, "s") or np.datetime64(days, "D") of a runtime
    count: a date or time would be a runtime value, which compiled code
    does not hold; the count itself is the integer to compute with."""
    unit = args[1] if len(args) > 1 and isinstance(args[1], str) else None
    try:
        dtype = np.dtype(f"{np.dtype(cls).char}8[{unit}]") if unit else None
    except TypeError:       # (a unit NumPy does not know: no counts to name)
        dtype = None
    counts = f" (here {date_counts(dtype)})" if dtype is not None else ""
    return DTypeError(
        f"np.{cls.__name__}() of a runtime value: compiled code does not support dates and "
        "times (datetime64/timedelta64)",
        hint=f"compute with the integer count itself{counts}: a ratio of times is a ratio of "
             "counts in one unit (np.timedelta64(n, 's') / np.timedelta64(1, 'm') is n / 60), "
             "a difference of dates one of day numbers; make dates of the results outside "
             "the compiled function (`days.astype('datetime64[D]')`)")


def structured_refusal(dtype: np.dtype, what: str, name: str | None = None) -> DTypeError:
    """The error for an array of records (a structured dtype: named fields
    of their own dtypes in each item), `what`, read from `name` where it
    comes from outside: compiled arrays hold numbers of one dtype, so each
    field is one array of its own."""
    fields = ", ".join(f"{name or 'rec'}[{f!r}]" for f in dtype.names)
    rows = f"{name}.view(np.uint8)" if name else "np.frombuffer(data, np.uint8)"
    decode = (f"or decode the bytes: rows = {rows}.reshape(-1, {dtype.itemsize}), a field's "
              "bytes rows[:, k] combined with `<<` and `|`")
    return DTypeError(f"{what} has the structured (record) dtype {dtype}: compiled code does "
                      "not support structured dtypes, only arrays of numbers",
                      hint=f"pass one array per field, made outside the compiled function "
                           f"({fields}), {decode}")


def source_expression(what: str) -> str | None:
    """How the program (or its caller) writes the value `what` describes, for
    a hint: global `D` is D, argument d0 is d0, argument span[0] (an item
    of a tuple argument) is span[0], argument p['w'] is p['w']; None where
    `what` names no variable, attribute or item of one (attribute `.w`)."""
    named = what.split("`")[1:2] or what.split()[-1:]
    try:
        node = ast.parse(named[0], mode="eval").body if named else None
    except SyntaxError:
        return None
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return named[0] if isinstance(node, ast.Name) else None


def check_runtime_dtype(dtype: np.dtype, what: str):
    """Refuses arrays whose dtype XLA cannot hold as they are."""
    if dtype.kind in "mM":
        raise datetime_refusal(dtype, what, source_expression(what) or "x")
    if dtype.names:
        raise structured_refusal(dtype, what, source_expression(what))
    if dtype.kind not in "biufc" and dtype.name == "bfloat16":     # (.name imports)
        from ..aot.spec import BFLOAT16
        raise DTypeError(f"{what} has dtype bfloat16", hint=BFLOAT16)
    if dtype.kind not in "biufc" or dtype in (np.longdouble, np.clongdouble) and \
            dtype.itemsize > 8 + 8 * (dtype.kind == "c"):
        raise DTypeError(f"{what} has dtype {dtype}, which compiled code cannot hold",
                         hint="pass numeric or boolean arrays of at most 64-bit numbers "
                              f"(e.g. {source_expression(what) or 'x'}.astype(np.float64))")
    if not dtype.isnative:
        name = source_expression(what) or "x"
        raise DTypeError(f"{what} has non-native byte order ({dtype.str})",
                         hint=f"pass {name}.astype({name}.dtype.newbyteorder('=')): compiled "
                              "code reads native-order numbers")
