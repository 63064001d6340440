"""infer: abstract interpretation of a Python function into the typed IR.

Input: a Python function and example arguments (arrays give dtype+shape;
other values are static unless declared runtime).  Output: a `Traced`: one
Program region whose params are the runtime inputs (argument arrays first,
then arrays captured from globals, closures and attributes), whose results
are the runtime outputs followed by in-place updates to write back, plus
what the driver needs to call it: guards on the static globals read, the
output structure and the write-back targets.
Invariants: the region passes ir.verify; every op is a registry op, `cond`
or `while`; static values never appear in the IR except as constants.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import types
from dataclasses import dataclass, field

import numpy as np

from ..errors import (InternalError, LimitError, ShapeError, StaticValueError, TpuccError,
                      UnsupportedError, UserCodeError)
from ..ir import AVal, Region, Value
from ..ops.indexing import chained_view, numpy_view
from ..ops.registry import const_aval
from . import (appends, buffers, builder, checks, chosen_values, element_lists, held_ints,
               popped_queues, scalar_state)
from .builder import Context, compiling, note_input_layout
from .builtins_impl import warnings_at_program_lines
from .calls import Interpreter     # (which loads the bytecode interpreter last)
from .control import MAX_UNROLL
from .iterators import note_outside_iterator
from . import math_impl as _math  # noqa: E402,F401  (registers math.* in BUILTINS)
from . import cmath_impl as _cmath  # noqa: E402,F401  (registers cmath.* in BUILTINS)
from . import statistics_impl as _statistics  # noqa: E402,F401  (statistics.mean: refused)
from . import warning_filters as _warning_filters  # noqa: E402,F401  (catch_warnings)
from .state import (ObjectNode, dict_keys, dict_of_class, flatten, has_static_keys, is_namedtuple,
                    instance_attributes, is_plain_object, is_value_dataclass, rebuilt_value,
                    stored_value_arrays, unflatten, value_fields)
from .values import (READ_ONLY, Array, RuntimeKind, check_runtime_dtype, check_runtime_size,
                     frozen_kind, new_serial_floor)

RUNTIME_TYPES = (np.ndarray, np.generic)
RUNTIME = type("RUNTIME", (), {"__repr__": lambda self: "<runtime>"})()  # out_static marker

# Returned rows of one buffer that a counted loop filled (a list it grew:
# infer/stacking.py), or of one array (`list(y)`), from this many up are one
# output, the buffer, split on the host: XLA compiles each output as a kernel of its own (200 per-step
# losses returned as a list: 1.8 s of XLA, and 1.3 ms a call to convert).
ROW_GROUP_MIN = 4


@dataclass(frozen=True)
class RowOf:
    """out_static marker of a returned leaf that is row `row` of the
    executable's output `output` (see ROW_GROUP_MIN), converted as a runtime
    output with its `weak` Python type (or None) and `scalar` kind."""
    output: int
    row: int
    weak: type | None
    scalar: bool


@dataclass(frozen=True)
class CallersContainer:
    """out_static marker of a returned list or dict that is an argument's
    (`return xs`; the call works on a copy, see _bind): the caller's own
    container, at `keys` in argument `root`, as the write-backs leave it."""
    root: object
    keys: tuple


class OutsideContainer:
    """A returned list or dict from outside the call that the program
    appends to (`self.history`: appends.py) or rebinds items of
    (`m.ms[0] *= 2`, `c.hits["left"] += 1`): the caller's own container,
    which the driver appends to or writes the new items into after each
    call, is the result, as eagerly; a copy made while tracing would hold
    the items as they were before the call.  (Its identity is guarded, as
    every outside value read is, so the traced object is the caller's.)"""
    __slots__ = ("items",)

    def __init__(self, items: list):
        self.items = items


# An `out_scalar` entry [PYTHON_INT_OUTPUT, k, scalar]: the output is a Python
# int where the executable's output k says so (held_ints.py), else `scalar`;
# [PYTHON_FLOAT_OUTPUT, k, scalar]: a Python float there; [PYTHON_BOOL_OUTPUT,
# k, scalar]: a Python bool.  The `scalar` of an entry can be another entry
# (a Python bool, an int, else the NumPy scalar: held_ints.needs_bool_flag).
PYTHON_INT_OUTPUT = "python int"
PYTHON_FLOAT_OUTPUT = "python float"
PYTHON_BOOL_OUTPUT = "python bool"
PYTHON_OUTPUT_TYPES = {PYTHON_INT_OUTPUT: int, PYTHON_FLOAT_OUTPUT: float,
                       PYTHON_BOOL_OUTPUT: bool}


@dataclass
class KindedScalar:
    """The conversion of a written-back 0-d value whose kind a runtime
    branch or loop decided (values.RuntimeKind): the executable's output
    `output`, a bool, says whether it is a NumPy scalar or a 0-d array.
    (`var` while tracing: that bool's Value, until it is given an output.)"""
    output: int | None = None
    var: object = None

    def __call__(self, value, outs):
        return np.asarray(value)[()] if bool(outs[self.output]) else np.array(value)

    def claim_outputs(self, results: list):
        self.output = len(results)
        results.append(self.var)
        self.var = None


@dataclass(eq=False)
class RebuiltValue:
    """The conversion of a written-back tuple, named tuple or frozen
    dataclass of arrays (`cell.state = St(h, c)`): made again around the
    executable's outputs `outputs`, its arrays, each converted as an array
    written back alone is (`converts`).  (`arrays` while tracing, until
    they are given outputs.)  An array that is an input (`o.t = (x, x)`
    of an argument x: `aliases`, its _input_alias) is that input itself,
    as NumPy holds it, so that a later `o.t[0][:] = 7` reaches x; an array
    held twice (`(h, h)`) is one output, made once: one NumPy array."""
    template: object
    converts: list
    arrays: list | None = None
    outputs: list | None = None     # per array: its output's index, None for an input
    aliases: list | None = None     # per array: (source, index, view) of an input, or None

    def __call__(self, value, outs, input_object):
        """`input_object(alias)`: this call's input array an alias names."""
        made = {}

        def leaf(convert, out, alias):
            if alias is not None:
                return input_object(alias)
            if out not in made:
                made[out] = converted_output(convert, outs[out], outs)
            return made[out]
        return rebuilt_value(self.template, (leaf(*x) for x in zip(
            self.converts, self.outputs, self.aliases)))

    def claim_outputs(self, results: list):
        firsts = {}
        self.outputs = []
        for a, alias in zip(self.arrays, self.aliases):
            if alias is None and id(a) not in firsts:
                firsts[id(a)] = len(results)
                results.append(a.var)
            self.outputs.append(None if alias is not None else firsts[id(a)])
        for convert in self.converts:
            if isinstance(convert, (KindedScalar, HeldNumber)):
                convert.claim_outputs(results)
        self.arrays = None

    def captured_inputs(self) -> set:
        """The captured arrays (their indices) that it holds as they are."""
        return {alias[1] for alias in self.aliases if alias is not None and alias[0] == "captured"}


@dataclass
class HeldNumber:
    """The conversion of a written-back 0-d value that is a Python number
    on some runtime paths and another type on the others (held_ints.py:
    `t.last = days[i]` in a loop that may not run leaves the caller's 0,
    `t.last = 1.5` or `= 2` under a runtime `if`): the executable's output
    `output`, a bool, says whether the path taken left `python_type`; the
    output `bool_output` (where not None) whether it left a Python bool
    beside it (its second bool); elsewhere the value is converted as
    `otherwise` says.  (`var`, `bool_var` while tracing: those bools'
    Values, until they are given outputs.)"""
    python_type: type
    otherwise: object
    var: object = None
    bool_var: object = None
    output: int | None = None
    bool_output: int | None = None

    def __call__(self, value, outs):
        if self.bool_output is not None and bool(np.asarray(outs[self.bool_output])):
            return bool(np.asarray(value))
        if bool(np.asarray(outs[self.output])):
            return self.python_type(np.asarray(value))
        return converted_output(self.otherwise, value, outs)

    def claim_outputs(self, results: list):
        if isinstance(self.otherwise, KindedScalar):
            self.otherwise.claim_outputs(results)
        self.output = len(results)
        results.append(self.var)
        if self.bool_var is not None:
            self.bool_output = len(results)
            results.append(self.bool_var)
        self.var = self.bool_var = None


def _held_number(value, otherwise):
    """`otherwise`, the conversion of a written-back value, or, where the
    value is a Python number on some runtime paths only (held_ints.py),
    the HeldNumber that gives it that Python type there."""
    if not isinstance(value, Array) or value.shape or value.held_int is None:
        return otherwise
    return HeldNumber(held_ints.python_type(value), otherwise, var=value.held_int,
                      bool_var=value.held_bool)


READS_OUTPUTS = (KindedScalar, RebuiltValue, HeldNumber)   # conversions called with all outputs


def converted_output(convert, value, outs, input_object=None):
    """A write-back's value for the user.  `input_object`: the driver's
    reader of this call's inputs, which a RebuiltValue may hold."""
    if isinstance(convert, RebuiltValue):
        return convert(value, outs, input_object)
    return convert(value, outs) if isinstance(convert, READS_OUTPUTS) else convert(value)


@dataclass
class Traced:
    program: Region
    in_avals: list                  # argument leaves then captured arrays
    n_arg_inputs: int
    out_treedef: object
    out_static: list                # output leaves: RUNTIME where runtime
    out_weak: list                  # per runtime output: Python scalar type or None
    writebacks: list                # ("arg", leaf index) | ("captured", i) | ("attr", obj, name)
                                    # | ("attr", obj, name, conversion): a Python number
                                    # (scalar_state: its type) or a NumPy scalar
                                    # | ("item", root, keys, conversion): an argument's
                                    # dict or list item rebound | ("global", namespace,
                                    # name, number type) | ("setitem", container, key,
                                    # conversion): an item of an outside dict or list
    captured: list                  # Captured entries, in input order
    guards: list
    input_sources: list = field(default_factory=list)   # why each input is runtime
    result_avals: list = field(default_factory=list)    # the program's results
    namespaces: dict = field(default_factory=dict)      # id(guarded namespace) -> (it, owner, kind)
    module_reads: list = field(default_factory=list)    # (module, name) the trace read
    out_scalar: list = field(default_factory=list)      # per runtime output: a NumPy scalar
                                                        # if 0-d (else a 0-d ndarray)
    input_layouts: dict = field(default_factory=dict)   # {input index: perm} passed permuted
                                                        # (driver.cached_input_layouts)
    checks: list = field(default_factory=list)          # runtime checks (checks.record); when
                                                        # any, the last result is their code
    input_strides: list = field(default_factory=list)   # (input index, strides, None if
                                                        # C-contiguous) reshapes relied on
    places: tuple = scalar_state.Places()   # of the Python numbers it rebinds (scalar_state)
    # (id(guarded namespace), name) -> (place, what) of the guards on Python numbers
    # read from outside: promoted when changed there (scalar_state.changed_places)
    number_places: dict = field(default_factory=dict)
    # Lists from outside the call the program appends to (appends.py): its results
    # are then the pair (the function's result, the values to append).
    appends: list = field(default_factory=list)
    # Why what it folded holds in this process only (the hash of a string,
    # which Python salts per process): no trace record replays it elsewhere.
    process_local: str | None = None
    # Per write-back: the Loc of the line that last assigned it (attributes,
    # globals, argument items), else None; empty where not recorded (a
    # trace record replayed from the persistent cache).
    writeback_locs: list = field(default_factory=list)
    # (input indices, infer.ad.identity_pattern of the arrays there): which of
    # the arrays tpucc.grad differentiates were one array (tied weights) when
    # traced; a call where that differs compiles again.
    input_identities: list = field(default_factory=list)
    # Attributes and items bound to an input array as the call got it, or a
    # view of one (`self.cache = x`, `self.head = self.buf[:2]`): (kind,
    # holder, name, "arg" | "captured", input index, NumPy view or None),
    # bound after each call to the caller's array itself, as eagerly (a
    # write-back would give them a copy: later updates through one name
    # would not show through the other).  kind: "attr", "setitem" (an
    # outside container's item) or "item" (an argument's: holder, name =
    # its root, keys).
    aliases: list = field(default_factory=list)
    # (holder, name) of every attribute the program set, in the order it
    # first set them, where some are aliases and some write-backs: the
    # driver binds the two in separate passes, and an attribute new to the
    # holder must still enter its __dict__ in the program's order
    # (driver._reserve_new_attributes).
    attribute_order: list = field(default_factory=list)
    # Returned values NumPy gives back as objects the caller has
    # (_returned_aliases): (position among the result's leaves, ("leaf",
    # an earlier position), (source, input index, NumPy view or None) as
    # in `aliases`, ("argument", root, keys) for a CallersContainer, or
    # ("written", "attr" or "setitem", holder, name) for an array the
    # write-backs store on an object, or ("leaf_view", a position, NumPy
    # view) for a view of another returned array made in the call).
    # The driver returns those objects; the program still computes an
    # array leaf (an artifact, `tpucc build`, returns it as a copy).
    returned_aliases: list = field(default_factory=list)
    # Positions among the result's leaves of the arrays NumPy returns
    # read-only (np.diagonal, np.broadcast_to, sliding_window_view, and
    # views of them or of a read-only argument): the driver clears their
    # writeable flag, so that a write into one raises as eagerly.
    out_read_only: list = field(default_factory=list)


def _input_alias(value, inputs: dict):
    """(source, index, view) where `value` is an input array (`inputs`:
    id(Array) -> (source, index)) or a static view of one, also a view of
    a view (`a[1:][::2]`, `a.T.T`: NumPy's views composed), else None."""
    found = _static_view_of(value, lambda base: inputs.get(id(base)))
    return None if found is None else found[0] + (found[1],)


def _static_view_of(value, owner):
    """(owner(b), the NumPy function making `value` from b, None for b
    itself) for the nearest b among `value` and the chain of bases it is a
    static view of whose owner(b) is not None; None where there is none,
    or a link of the chain is a runtime view or not its base's current
    value."""
    if not isinstance(value, Array) or value.immutable is not False:
        return None
    views, base = [], value
    while True:
        found = owner(base)
        if found is not None:
            return found, chained_view(views[::-1])
        if base.base is None or base._base_var is not base.base._var:
            return None             # (the root, or not the base's current value)
        view = numpy_view(base.index)
        if view is None:
            return None
        views.append(view)
        base = base.base


def is_runtime_leaf(x) -> bool:
    if isinstance(x, np.character):
        return False        # np.str_ and np.bytes_ are strings: static, as str is
    return isinstance(x, RUNTIME_TYPES) or (
        type(x).__module__.startswith("jax") and hasattr(x, "shape") and hasattr(x, "dtype"))


def runtime_aval(x) -> AVal:
    arr = np.asarray(x) if not hasattr(x, "dtype") else x
    return AVal(np.dtype(arr.dtype), tuple(arr.shape), False)


def _bind_leaf(x, runtime_scalar: bool, params: list, arrays: list, sources: list, path: str):
    if is_runtime_leaf(x):
        aval = runtime_aval(x)
        check_runtime_dtype(aval.dtype, f"argument {path}")
        check_runtime_size(aval.shape, aval.dtype, f"argument {path}")
        p = Value(aval)
        kind = "array"
    elif isinstance(x, memoryview):
        # Static, its contents would be folded in at the first call, and a
        # later write through the buffer not seen.
        raise UnsupportedError(f"argument {path} is a memoryview: compiled code reads "
                               "buffers as NumPy arrays only",
                               hint=f"pass np.asarray({path}), the array it views (updates "
                                    "in place still show through the memoryview)")
    elif runtime_scalar and scalar_state.is_python_number(x):
        p = Value(const_aval(x))
        kind = ("Python scalar named in runtime_args" if runtime_scalar is True else
                "Python number the function rebinds")
    else:
        note_outside_iterator(x, f"argument {path}")
        return x
    params.append(p)
    sources.append(f"argument {path} ({kind})")
    arr = Array(p)
    arr.immutable = isinstance(x, np.generic)
    arr.frozen = frozen_kind(x)
    note_input_layout(arr, p, x)
    arrays.append((arr, p))
    return arr


def _bind_buffer(x, place, params, arrays, sources, interp):
    """A bytes, bytearray or array.array argument stays static; where an
    earlier trace read it through NumPy (infer.buffers), its memory is a
    runtime input too (driver.signature_key passes it), bound to an Array
    that np.frombuffer(x) / np.asarray(x) answer, and whose updates are
    written back into the caller's memory."""
    interp.argument_buffers[id(x)] = place
    if buffers.buffer_key(*place[:2]) not in interp.scalars.promoted:
        return x
    root, keys, path = place
    leaf = buffers.leaf_of(x)
    check_runtime_dtype(leaf.dtype, f"argument {path}")
    p = Value(AVal(leaf.dtype, leaf.shape, False))
    params.append(p)
    sources.append(f"argument {path} (its buffer)")
    arr = Array(p)
    arr.frozen = frozen_kind(leaf)          # bytes: read-only, as NumPy's view is
    arrays.append((arr, p))
    interp.bound_buffers[id(x)] = buffers.BoundBuffer(arr, p, root, keys)
    return x


def _bind(value, name, runtime_scalar, params, arrays, sources, interp, root):
    """Arguments with runtime leaves replaced by Arrays, in new containers.
    `root`: the argument's position or keyword, which names its items'
    places (scalar_state.item_key)."""
    td_leaves: list = []
    td = flatten(value, name or "arg", td_leaves)
    promoted = interp.scalars.promoted
    bound = [_bind_buffer(v, (root, keys, path), params, arrays, sources, interp)
             if buffers.is_buffer(v) else
             _bind_leaf(v, runtime_scalar or ("promoted" if scalar_state.item_key(root, keys)
                                              in promoted else False),
                        params, arrays, sources, path)
             for (path, v), keys in zip(td_leaves, _leaf_keys(value))]
    for k, ((_, x), arr) in enumerate(zip(td_leaves, bound)):
        if isinstance(arr, Array) and is_runtime_leaf(x) and not isinstance(x, np.generic):
            # (a NumPy scalar is a value: two equal ones are no tied weights)
            bound[k] = _tied_leaf(interp, x, arr)
    out = unflatten(td, bound)
    work = [(out, value, ())]
    while work:                 # the lists and dicts in it, nested ones too
        v, original, keys = work.pop()
        # (a dict whose keys flatten does not take, e.g. tuples, is a leaf:
        # the caller's own, read as an outside dict is, its items guarded)
        if isinstance(v, (list, dict)) and v is not original:
            interp.argument_originals[id(original)] = (
                original, v, f"the argument `{name}`" if name else f"argument {root}")
            # A copy: items it rebinds are written back (_argument_item_writebacks);
            # fresh, so that runtime regions merge and carry them in place.
            interp.fresh(v)
            interp.argument_containers[id(v)] = v
            interp.argument_places[id(v)] = (root, keys, name or f"argument {root}")
            interp.argument_items[id(v)] = dict(enumerate(v) if isinstance(v, list) else v)
        if isinstance(v, (list, tuple)) and isinstance(original, (list, tuple)) \
                and len(original) == len(v):
            work.extend((x, o, keys + (i,)) for i, (x, o) in enumerate(zip(v, original)))
        elif isinstance(v, dict) and isinstance(original, dict):
            work.extend((x, original.get(k), keys + (k,)) for k, x in v.items())
        elif type(v) is type(original) and is_value_dataclass(v):
            # (a frozen TrainState's `params` dict: its rebound items are written back too)
            work.extend((getattr(v, k), getattr(original, k), keys + (k,))
                        for k in value_fields(v))
    return out


def _tied_leaf(interp, x, arr):
    """The Array for argument leaf `x` (bound to `arr`): where the argument
    holds the same array already under another key or position (tied
    weights, `{"enc": E, "dec": E}`), that one's Array, so that an update
    through one is seen through the other, as in NumPy; as with attributes
    (calls._tie_to_argument), the driver compiles again for a call where the
    two places hold different arrays."""
    first = interp.argument_arrays.get(id(x))
    if first is not None and first[2] is x and first[0] is not arr:
        builder.ctx().input_identities.append(((first[1], arr.var), (0, 0)))
        return first[0]
    interp.input_objects[id(arr)] = (arr, arr.var, x)
    interp.argument_arrays.setdefault(id(x), (arr, arr.var, x))
    return arr


def _leaf_keys(value, here=()) -> list:
    """The path of keys to each leaf of an argument, in `flatten`'s order."""
    if isinstance(value, list) or isinstance(value, tuple) and (
            not hasattr(value, "_fields") or is_namedtuple(value)):
        return [k for i, v in enumerate(value) for k in _leaf_keys(v, here + (i,))]
    if isinstance(value, dict) and has_static_keys(value):
        return [k for key, v in value.items() for k in _leaf_keys(v, here + (key,))]
    if is_value_dataclass(value):
        return [k for key in value_fields(value)
                for k in _leaf_keys(getattr(value, key), here + (key,))]
    return [here]


def trace(fn, args, kwargs, options, places=scalar_state.Places()) -> Traced:
    """`places`: the places holding Python numbers that earlier traces of
    `fn` found rebound (scalar_state.Places).

    A static loop longer than the unroll budget runs as one counted While,
    which makes the Python numbers it computes (`n += size`) runtime values.
    Where the trace then fails (a later line needs such a number at compile
    time: a shape, `range(n)`'s step), it is run again with those loops
    unrolled, which is exact; where that fails too, its error stands (the
    program's own, exactly), unless unrolling ran into tpucc's limits: then
    the first one."""
    unrolled = frozenset(options.get("unroll_loops", ()))
    first_error = None
    while True:
        made_runtime = []
        opts = {**options, "unroll_loops": unrolled} if unrolled else options
        try:
            traced, traced.places = scalar_state.trace_promoting(
                lambda state: _trace_once(fn, args, kwargs, opts, state, made_runtime), places)
            return traced
        except TpuccError as e:
            retry = {c.key for c in made_runtime if _may_unroll(c) and not c.leaves_early} \
                - unrolled
            if isinstance(e, (InternalError, LimitError)) or not retry:
                if first_error is not None and isinstance(e, (InternalError, LimitError)):
                    raise first_error.with_traceback(None) from None
                # (else the unrolled trace's error: that program's, exactly)
                if made_runtime and isinstance(e, (StaticValueError, ShapeError)):
                    raise _naming_the_loops(e, made_runtime)
                if options.get("runtime_args") and isinstance(e, (StaticValueError, ShapeError)):
                    raise _naming_runtime_args(e, options["runtime_args"])
                raise
            first_error = first_error or e
            unrolled |= retry


# Unrolled, a loop whose copies hold more ops than this takes XLA seconds
# (about a thousand small ops a second on 2 cores): the error names it instead.
RETRY_UNROLLED_OPS = 4000


def _may_unroll(c) -> bool:
    return c.trips is None or c.trips <= MAX_UNROLL and c.ops <= RETRY_UNROLLED_OPS


def _naming_the_loops(error, loops):
    """`error` with a hint naming the static loops that made numbers runtime
    values and are too long to unroll."""
    def why(c):
        line = c.loc.line if c.loc is not None else "?"
        head = f"`{', '.join(c.paths)}` is a runtime value: the loop at line {line} runs as " \
               "one runtime `while`"
        if c.trips > MAX_UNROLL:
            return f"{head} ({c.trips} iterations, more than tpucc unrolls: {MAX_UNROLL}); " \
                   "compute the number without that loop (a formula of static values)"
        return f"{head} (unrolled, its {c.trips} copies would be {c.ops} ops, slow to " \
               "compile); compute the number without that loop (a formula of static " \
               f"values), or pass unroll={c.trips} to tpucc.compile to unroll it anyway"
    note = "; ".join(why(c) for c in loops if not _may_unroll(c) and not c.leaves_early)
    if note:
        error.hint = f"{error.hint}; {note}" if error.hint else note
        error.args = (error.render(),)
    return error


def _naming_runtime_args(error, names):
    """`error` (a value needed at compile time is a runtime one) with a
    hint naming the arguments the user made runtime values."""
    listed = ", ".join(f"`{n}`" for n in names)
    note = (f"{listed} {'is a runtime value' if len(names) == 1 else 'are runtime values'}: "
            "runtime_args asks for that; leave out of it an argument needed at compile time "
            "(one program per value)")
    if note not in (error.hint or ""):
        error.hint = f"{error.hint}; {note}" if error.hint else note
        error.args = (error.render(),)
    return error


def _trace_once(fn, args, kwargs, options, state, made_runtime) -> Traced:
    context = Context(options=dict(options))
    context.counted_statics = made_runtime
    runtime_names = set(options.get("runtime_args", ()))
    with compiling(context):
        checks.start(context)
        interp = Interpreter(context, state)
        params, arrays, sources = [], [], []
        names = _param_names(fn, len(args))
        try:
            b_args = [_bind(a, n, n in runtime_names, params, arrays, sources, interp, i)
                      for i, (a, n) in enumerate(zip(args, names))]
            # In the caller's order: `**kw` keeps it in Python, so the program may
            # read it (list(kw)); driver.signature_key keys and collects keyword
            # leaves in this same order, so each order is its own signature.
            b_kwargs = {k: _bind(kwargs[k], k, k in runtime_names, params, arrays, sources,
                                 interp, k) for k in kwargs}
        except TpuccError as e:
            # An argument refused as it is bound (a datetime64 or big-endian
            # array) is refused before any line runs: the `def` whose
            # parameter it is names it.
            raise e.with_loc(builder.def_loc(fn)) from None
        interp.call_floor = new_serial_floor()
        try:
            with _deep_python_stack(), warnings_at_program_lines(interp):
                result = interp.call(fn, b_args, b_kwargs)
        except RecursionError:
            raise LimitError("the program nests too deeply to compile (recursion?)",
                             context.loc) from None
        except UserCodeError:
            # What the program read of a list it appends to from outside
            # is the list without the appends (np.stack of an empty one
            # raised): the refusal of that read is the error to show.
            appends.finish(interp, context)
            raise
        _refuse_iterators(result, fn)
        traced = _finish(context, interp, result, params, arrays)
        traced.input_sources = sources + [_describe_capture(c) for c in traced.captured]
        return traced


@contextlib.contextmanager
def _deep_python_stack():
    """Each inlined call costs about ten Python frames of the interpreter;
    make room for MAX_INLINE_DEPTH of them."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _describe_capture(c) -> str:
    kind, owner, name = c.source
    where = {"global": f"global `{name}` of module {owner}",
             "attr": f"attribute `.{name}` of a {owner} object",
             "closure": f"variable `{name}` closed over by {owner}",
             "item": f"item [{name}] of a {owner} from outside",
             "call": f"the result of {name}() (module {owner}), from its lru_cache"}[kind]
    if c.number is not None:
        kind = "NumPy" if issubclass(c.number, np.generic) else "Python"
        return f"{where} (a {kind} {c.number.__name__} the program rebinds: a runtime input)"
    return f"{where} (an array found outside the arguments: a runtime input, not a constant)"


def _param_names(fn, n):
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return (names + [None] * n)[:n]


def _finish(context, interp, result, params, arrays) -> Traced:
    if interp.outside_appends:
        result = (result, appends.values(interp))
    out_leaves: list = []
    if interp.ctx.chosen_candidates:
        _refuse_told_apart_copies(interp, result)
    out_td = flatten(_returned_objects(interp, result), "out", out_leaves)
    out_td = chosen_values.for_output(out_td)     # (a choice's objects, for the caller)
    results, out_static, out_weak, out_scalar = [], [], [], []
    runtime_kinds, held_outputs = [], []
    grouped, buffers = _row_groups(context, out_leaves), {}
    for _, v in out_leaves:
        if isinstance(v, Array) and id(v.var) in grouped:
            buf, t = grouped[id(v.var)]
            buffers.setdefault(id(buf), (buf, []))[1].append(len(out_static))
            out_static.append((t, _py_type(v.aval) if v.aval.weak else None,
                               v.immutable is not False))     # RowOf, once `buf` has its index
        elif isinstance(v, Array):
            results.append(v.var)
            out_static.append(RUNTIME)
            out_weak.append(_py_type(v.aval) if v.aval.weak else None)
            if isinstance(v.immutable, RuntimeKind):
                out_scalar.append(None)                     # an output's index, below
                runtime_kinds.append((len(out_scalar) - 1, v.immutable.var))
            else:
                out_scalar.append(v.immutable is not False)     # None (unknown): as most are
            if v.held_int is not None and not v.shape:
                held_outputs.append((len(out_scalar) - 1, v.held_int,
                                     held_ints.python_type(v)))
                if v.held_bool is not None:     # (a third type: checked first, driver)
                    held_outputs.append((len(out_scalar) - 1, v.held_bool, bool))
        else:
            out_static.append(v.items if type(v) is OutsideContainer else v)
    captured = list(interp.captured.values())
    # (a buffer argument's memory is passed as a copy: no alias of it)
    buffer_places = {id(b.array): (b.root, b.keys) for b in interp.bound_buffers.values()}
    inputs = {id(arr): ("arg", i) for i, (arr, _) in enumerate(arrays)
              if id(arr) not in buffer_places}
    inputs.update({id(c.array): ("captured", i) for i, c in enumerate(captured) if not c.tie})
    returned_aliases = _returned_aliases(out_leaves, inputs)
    writebacks, writeback_locs = [], []
    for i, (arr, p) in enumerate(arrays):
        if arr.var is not p:
            results.append(arr.var)
            writebacks.append(("buffer",) + buffer_places[id(arr)] if id(arr) in buffer_places
                              else ("arg", i))
            writeback_locs.append(None)
    for i, c in enumerate(captured):
        if c.updated():
            results.append(c.array.var)
            writebacks.append(("captured", i))
            writeback_locs.append(None)
    aliases = []
    stored = {}         # id(array) -> ("written", head...): arrays stored on objects
    for key, (obj, name) in interp.attr_writes.items():
        value = interp.shadow[key]
        # name ("item", key): an item of a dict or list from outside
        head = ("setitem", obj, name[1]) if isinstance(name, tuple) else ("attr", obj, name)
        alias = _input_alias(value, inputs) if key not in interp.scalar_attrs else None
        if alias is None and key not in interp.scalar_attrs and isinstance(value, Array) \
                and id(value) in stored:
            # `o.a = h; o.b = h` (a registry's `self._params[k] = v` with the
            # attribute): the one NumPy array the first write-back stores
            alias = ("written", stored[id(value)][1:], None)
        if alias is not None:           # `self.cache = x`: the caller's x itself
            aliases.append(head + alias)
            continue
        writeback_locs.append(interp.write_locs.get(("attr", key)))
        if key in interp.scalar_attrs and not _kinded(value):   # a Python number (scalar_state)
            results.append(_number_var(value))
            writebacks.append(head + (_number_conversion(value),))
        elif not isinstance(value, Array):      # a named tuple of arrays ...: made again
            rebuilt = _rebuilt(value, inputs)
            results.append(rebuilt.arrays[0].var)   # (what the driver zips: unused)
            writebacks.append(head + (rebuilt,))
        else:
            results.append(value.var)
            convert = _array_conversion(value)
            if convert is np.array:
                stored[id(value)] = ("written",) + head
            writebacks.append(head if convert is np.array and head[0] == "attr" else
                              head + (convert,))
    returned_aliases += _returned_stored(out_leaves, stored, returned_aliases)
    for key, (namespace, name) in interp.global_writes.items():
        value = interp.shadow[key]
        results.append(_number_var(value))
        writebacks.append(("global", namespace, name, _number_conversion(value)))
        writeback_locs.append(interp.write_locs.get(("global", key)))
    for root, keys, value, convert, loc in _argument_item_writebacks(interp, inputs):
        alias = _input_alias(value, inputs)
        if alias is not None:           # `d["b"] = d["a"]`: that very array
            aliases.append(("item", root, keys) + alias)
            continue
        results.append(convert.arrays[0].var if isinstance(convert, RebuiltValue) else
                       _number_var(value))  # (the first: what the driver zips, unused)
        writebacks.append(("item", root, keys, convert))
        writeback_locs.append(loc)
    for wb in writebacks:                   # after the write-backs, which the driver zips
        if isinstance(wb[-1], READS_OUTPUTS):
            wb[-1].claim_outputs(results)
    for k, var in runtime_kinds:
        out_scalar[k] = len(results)
        results.append(var)
    for k, var, python_type in held_outputs:    # (a Python number where it says so: driver)
        tag = next(t for t, kind in PYTHON_OUTPUT_TYPES.items() if kind is python_type)
        out_scalar[k] = [tag, len(results), out_scalar[k]]
        results.append(var)
    for buf, leaves in buffers.values():
        for i in leaves:
            out_static[i] = RowOf(len(results), *out_static[i])
        results.append(buf)
    interp.finish_contents_guards()
    appended = appends.finish(interp, context)
    check_records = checks.finish(context, results)     # the error code comes last
    all_params = tuple(params) + tuple(c.param for c in captured)
    program = Region(all_params, context.region.ops, tuple(results))
    index = {id(p): i for i, p in enumerate(all_params)}
    input_strides = sorted((index[id(p)], st) for p, st in context.layouts_read.items())
    identities = list(dict.fromkeys(
        (tuple(index[id(p)] for p in places), pattern)
        for places, pattern in context.input_identities))
    return Traced(program, [p.aval for p in all_params], len(params), out_td, out_static,
                  out_weak, writebacks, captured, _unique_guards(context.guards),
                  result_avals=[v.aval for v in results], namespaces=context.namespaces,
                  module_reads=context.module_reads, out_scalar=out_scalar,
                  checks=check_records, input_strides=input_strides,
                  number_places=context.number_places, appends=appended,
                  process_local=context.process_local, writeback_locs=writeback_locs,
                  input_identities=identities, aliases=aliases,
                  returned_aliases=returned_aliases,
                  out_read_only=_returned_read_only(out_leaves),
                  attribute_order=_attribute_order(interp, aliases, writebacks))


def _attribute_order(interp, aliases, writebacks) -> list:
    """Traced.attribute_order: only where aliases and write-backs both set
    attributes (otherwise each pass alone keeps the program's order)."""
    if not (any(a[0] == "attr" for a in aliases) and any(w[0] == "attr" for w in writebacks)):
        return []
    return [(obj, name) for obj, name in interp.attr_writes.values() if isinstance(name, str)]


def _returned_read_only(out_leaves) -> list:
    """Traced.out_read_only: the returned arrays whose writeable flag NumPy
    has off (not those refusing writes for compiled code's own reasons:
    values.CHOSEN, WINDOWS ..., which NumPy lets the caller write)."""
    return [position for position, (_, v) in enumerate(out_leaves)
            if isinstance(v, Array) and v.frozen == READ_ONLY]


def _returned_aliases(out_leaves, inputs) -> list:
    """Traced.returned_aliases: the returned arrays that are, as NumPy
    returns them, another returned leaf (`return b, b`: one object twice)
    or an input array as the caller passed it, or a static view of one
    (`return a`, also after `a += 1`; `return a[1:]`, `a.T`): a copy would
    not see the caller's later writes, nor they its.  Not a Python number
    read as a runtime input (runtime_args): the caller's number is a value."""
    out, first = [], {}
    for position, (_, v) in enumerate(out_leaves):
        if isinstance(v, CallersContainer):
            out.append((position, ("argument", v.root, v.keys)))
        if not isinstance(v, Array):
            continue
        if id(v) in first:
            out.append((position, ("leaf", first[id(v)])))
            continue
        first[id(v)] = position
        alias = None if v.aval.weak else _input_alias(v, inputs)
        if alias is not None:
            out.append((position, alias))
    return out + _returned_views_of_leaves(out_leaves, first, {p for p, _ in out})


def _returned_views_of_leaves(out_leaves, first: dict, taken: set) -> list:
    """Traced.returned_aliases entries ("leaf_view", position, NumPy view)
    of the returned arrays that are static views of another returned array
    made in the call (`flat = np.zeros(n); return flat, flat.reshape(h,
    w)`): NumPy's results share memory, so the driver makes this one as
    that view of the other's result (a write into one shows in the other)."""
    out = []
    for position, (_, v) in enumerate(out_leaves):
        if position in taken or first.get(id(v)) != position or v.aval.weak:
            continue
        found = _static_view_of(v, lambda base: None if base is v else first.get(id(base)))
        if found is not None and found[1] is not None:
            out.append((position, ("leaf_view",) + found))
    return out


def _returned_stored(out_leaves, stored: dict, aliased) -> list:
    """Traced.returned_aliases entries of the returned arrays that the
    program also stores on an object (`self.w = self.w - g; return self.w`):
    the array the write-back stores there, as NumPy returns that one
    object (writing into the result changes the attribute)."""
    taken = {position for position, _ in aliased}
    return [(position, stored[id(v)]) for position, (_, v) in enumerate(out_leaves)
            if position not in taken and isinstance(v, Array) and id(v) in stored]


def _row_groups(context, out_leaves) -> dict:
    """id(var) -> (buffer, row) for the returned runtime leaves that are
    whole rows of one array, where one array gives ROW_GROUP_MIN of them or
    more: rows of a buffer a counted loop filled, as it left them, views
    `y[t]` of an array (`list(y)`), which are returned as copies anyway,
    and Python numbers that are elements of one array (`x.tolist()`, a
    table a loop held as an array: _element_of).  Not a value whose kind
    is decided at run time, nor a number whose Python type is (held_ints.py:
    each has its own bool)."""
    by_buffer = {}
    for _, v in out_leaves:
        if isinstance(v, Array) and not isinstance(v.immutable, RuntimeKind) \
                and v.held_int is None:
            found = _row_of(context, v)
            if found is not None:
                by_buffer.setdefault((id(found[1]), found[3]), []).append(found)
    groups = {}
    for group in by_buffer.values():
        if len(group) >= ROW_GROUP_MIN:
            buf = _flattened(group[0][1]) if group[0][3] else group[0][1]
            groups.update({id(var): (buf, t) for var, _, t, _ in group})
    return groups


def _row_of(context, v: Array):
    """(v's value, the array's value, t, flat) where v is row t of an array
    (flat False), or its element at position t of the flattened array
    (flat True: the driver reads it as a Python number from its host copy)."""
    if v.base is None:
        found = context.stacked_rows.get(id(v.var))
        if found is not None and found[0] is v.var:
            return found + (False,)
        return _element_of(context, v)
    key = v.index
    if v.base.base is not None or type(key) is not tuple or len(key) != 1 \
            or type(key[0]) is not int or key[0] < 0:
        return None
    var = v.var                     # (read again first if the base changed)
    return (var, v._base_var, key[0], False) if v._base_var is v.base.var else None


def _element_of(context, v: Array):
    """_row_of of a Python number that is one element of an array: of a 1-d
    array's tolist() (element_lists.record), or an item a loop's table held
    as an array got back (held_tables.write_back).  Returned one by one, a
    DP table of 800 numbers was 800 outputs: 17 s of XLA (bug 48X/01).
    The number's value equals the array's element turned into a Python
    number on the host (tolist() converts to the Python type's dtype, which
    holds every value of the element's; a uint64 past int64 is refused by
    the conversion's own check, which stays)."""
    if v.shape:
        return None
    found = element_lists.element_of(v) or context.held_elements.get(id(v.var))
    # (a NumPy scalar is its array's element only where the dtypes agree)
    if found is not None and found[0] is v.var \
            and (v.aval.weak or found[1].aval.dtype == v.aval.dtype):
        return found + (True,)
    return None


def _flattened(whole: Value) -> Value:
    """The 1-d array of `whole`'s elements in order (positions of
    _element_of count in it)."""
    from ..ops.shape import reshape
    return whole if len(whole.aval.shape) == 1 else reshape(Array(whole), (-1,)).var


def _refuse_iterators(result, fn):
    """A generator or iterator made by compiled code (a generator function's
    yields, a generator expression, zip/map/enumerate) exists only at compile
    time: it cannot be returned."""
    from .calls import RuntimeRange
    from .iterators import RangeIter, SeqIter, is_native_iterator
    stack, seen = [result], set()
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, (SeqIter, RangeIter, RuntimeRange)) or is_native_iterator(v):
            # (a native one: a held zip or map, itertools.islice(...), over tpucc's values)
            # (list() of a runtime-length range needs its items now: return its bound)
            what, hint = ("a range with a runtime bound",
                          "return its bound (`return n`) and make the range from the result, "
                          "outside the compiled function") if isinstance(v, RuntimeRange) else \
                ("a generator or iterator", "return a list or tuple (e.g. `return list(gen)`)")
            raise UnsupportedError(f"{getattr(fn, '__qualname__', 'the function')} returns "
                                   f"{what}, which exists only while compiling",
                                   builder.def_loc(fn), hint)
        if _made_while_compiling(v):
            raise UnsupportedError(
                f"{getattr(fn, '__qualname__', 'the function')} returns a function that holds "
                "values of the compiled code (a closure, functools.partial or bound method "
                "made inside it), which exist only while compiling", builder.def_loc(fn),
                "return the values the function needs, and make the function from the "
                "results outside the compiled function")
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())


def _made_while_compiling(v) -> bool:
    """A callable holding what compiled code holds only while compiling: a
    closure over its variables (cells that are OwnedCells, or hold arrays),
    a partial or a bound method holding its arrays."""
    from .interpreter import OwnedCell
    if isinstance(v, types.FunctionType):
        return any(isinstance(c.cell_contents, OwnedCell) or _holds_array(c.cell_contents)
                   for c in v.__closure__ or () if _cell_filled(c))
    if isinstance(v, functools.partial):
        return _holds_array((v.func, v.args, v.keywords))
    if isinstance(v, types.MethodType):
        return _holds_array(v.__self__)
    return False


def _cell_filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:      # an empty cell
        return False
    return True


def _returned_objects(interp, value):
    """Objects made by the compiled code that hold arrays (e.g. gradients of
    an object) are returned as new objects built from their attributes; a
    list or dict argument as the caller's (CallersContainer), a list or
    dict from outside that the program appends to or rebinds items of as
    itself (OutsideContainer)."""
    if interp.is_popped_queue(value):
        raise popped_queues.returned(value).with_loc(interp.last_return_loc)
    if isinstance(value, (list, dict)) and interp.argument_containers.get(id(value)) is value:
        root, keys, _ = interp.argument_places[id(value)]
        return CallersContainer(root, keys)
    if type(value) is list and any(lst is value for lst, _, _ in interp.outside_appends) \
            or isinstance(value, (list, dict)) and _items_rebound_outside(interp, value):
        return OutsideContainer(value)
    if is_value_dataclass(value, holding_array=True):
        return ObjectNode(type(value), {k: _returned_objects(interp, getattr(value, k))
                                        for k in value_fields(value)})
    if isinstance(value, tuple) and hasattr(value, "_fields") and _holds_array(value):
        return ObjectNode(type(value), {k: _returned_objects(interp, v)
                                        for k, v in zip(value._fields, value)})
    if isinstance(value, tuple):
        items = tuple(_returned_objects(interp, v) for v in value)
        # a named tuple of static values stays one (it is a constant of the result)
        return type(value)(*items) if hasattr(value, "_fields") else items
    if isinstance(value, list):
        return [_returned_objects(interp, v) for v in value]
    if isinstance(value, dict):
        items = {k: _returned_objects(interp, dict.__getitem__(value, k))
                 for k in dict_keys(value)}
        return items if type(value) is dict else \
            dict_of_class(type(value), getattr(value, "default_factory", None), items)
    if (id(value) in interp.fresh_ids and not isinstance(value, type)
            and _holds_array(value)) or _is_chosen_object(interp, value):
        # (an object picked at a runtime position: its arrays are the pick's)
        return ObjectNode(type(value), {k: _returned_objects(interp, v)
                                        for k, v in instance_attributes(value).items()})
    return value


def _is_chosen_object(interp, value) -> bool:
    """An object list_loops picked at a runtime position of a list (a copy)."""
    return interp.ctx.chosen_candidates.get(id(value)) is not None and \
        interp.ctx.chosen_containers.get(id(value)) is value


def _refuse_told_apart_copies(interp, result) -> None:
    """An object picked at a runtime position of a list (`objs[k]`,
    `max(objs, key=...)`) is a copy, returned as a new object of its class
    (_returned_objects).  The caller cannot tell it from the object NumPy
    returns where the program made the list's objects and returns none of
    them beside it; else it could (a change of one not seen in the other,
    `is`), and that is refused."""
    reached = _reachable(result)
    for v in reached.values():
        if not _is_chosen_object(interp, v):
            continue
        candidates = interp.ctx.chosen_candidates[id(v)]
        outside = any(interp.fresh_ids.get(id(c), (None,))[0] is not c for c in candidates)
        if outside or any(id(c) in reached for c in candidates):
            why = ("the list's objects come from outside the compiled function, and the "
                   "caller would get a copy, not its own object" if outside else
                   "the result holds the list's objects too, and this would be a copy, not "
                   "one of them")
            raise StaticValueError(
                f"returning a {type(v).__name__} picked from a list at a runtime position "
                f"(`objs[k]`, max/min with a key): {why}",
                hint="return its position instead (`k = int(np.argmax(keys)); return k`) and "
                     "pick `objs[k]` after the call, or return the attributes you need "
                     "(`return best.deadline, best.profit`)"
            ).with_loc(interp.last_return_loc)


def _reachable(result) -> dict:
    """{id: object} of the containers and objects reachable from `result`
    (through tuples, lists, dicts and instance attributes)."""
    found, stack = {}, [result]
    while stack:
        v = stack.pop()
        if id(v) in found or isinstance(v, (Array, type, str, bytes, int, float, complex,
                                            type(None), np.generic)):
            continue
        found[id(v)] = v
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif is_plain_object(v) and not type(v).__module__.startswith("tpucc."):
            stack.extend(instance_attributes(v).values())
    return found


def _items_rebound_outside(interp, container) -> bool:
    """Whether the program rebinds items of `container`, a list or dict
    from outside the call (calls._rebinds_outside_item): written back into
    it after the call, not into the container the trace holds."""
    return any(obj is container and isinstance(name, tuple)
               for obj, name in interp.attr_writes.values())


def _holds_array(obj) -> bool:
    stack, seen = [obj], set()
    while stack:
        v = stack.pop()
        if isinstance(v, Array):
            return True
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif not isinstance(v, type):
            stack.extend(instance_attributes(v).values())     # __dict__ and slots
    return False


def _unique_guards(guards):
    """One guard per (namespace, name): the first value read."""
    seen, out = set(), []
    for g, name, value in guards:
        if (id(g), name) not in seen:
            seen.add((id(g), name))
            out.append((g, name, value))
    return out


def _argument_item_writebacks(interp, inputs):
    """(root, keys, new value, conversion, Loc of its assignment) of each
    item the program rebound in a dict or list argument (its copy, see
    _bind): the caller's container gets the new value after the call, a
    Python number as one (promoted where it changes at every call:
    scalar_state), an array as a NumPy array.  An array updated in place is
    no rebinding (the argument's own write-back updates it)."""
    out = []
    for cid, (root, keys, name) in interp.argument_places.items():
        container = interp.argument_containers[cid]
        for slot, old in interp.argument_items[cid].items():
            new = container[slot]
            loc = interp.write_locs.get(("item", cid, slot))
            if new is old or isinstance(new, Array) and isinstance(old, Array) \
                    and new.var is old.var:
                continue
            place = scalar_state.item_key(root, keys + (slot,))
            if scalar_state.is_python_number(old) or place in interp.scalars.promoted:
                if scalar_state.is_python_number(new) and type(new) is type(old) and (
                        new == old or new != new and old != old):
                    continue        # the same number again
                if not (scalar_state.is_python_number(new) or new.aval.weak and new.ndim == 0):
                    out.append((root, keys + (slot,), new, _array_conversion(new), loc))
                    continue
                what = f"`{name}{''.join(f'[{k!r}]' for k in keys + (slot,))}`"
                if interp.scalars.decide(place, new, what, in_region=False) == "static":
                    interp.scalars.note_static_write(place, None, old, new)
                out.append((root, keys + (slot,), new, _number_conversion(new), loc))
            elif isinstance(new, Array):
                out.append((root, keys + (slot,), new, _array_conversion(new), loc))
            elif scalar_state.is_python_number(new) or isinstance(new, np.generic):
                # an array rebound to a number known while compiling (`d["y"] = 3.5`)
                out.append((root, keys + (slot,), new, type(new), loc))
            elif stored_value_arrays(new) is not None:
                # `ps[0] = ps[0]._replace(pos=...)`: made again around this call's arrays
                out.append((root, keys + (slot,), new, _rebuilt(new, inputs), loc))
    return out


def _rebuilt(value, inputs) -> RebuiltValue:
    """The write-back conversion of a tuple, named tuple or frozen dataclass
    of arrays stored where it outlives the call."""
    arrays = stored_value_arrays(value)
    return RebuiltValue(value, [_array_conversion(a) for a in arrays], arrays,
                        aliases=[_input_alias(a, inputs) for a in arrays])


def _array_conversion(value: Array):
    """How an array written back into an attribute or an argument's item
    is given to the user: as NumPy gives it, a Python number where it is
    one (`d["y"] = float(x[0])`, and on the runtime paths that left one:
    _held_number), a NumPy scalar where it is one (`self.total += x.sum()`
    on a float makes an np.float64, as returned values are, see
    driver.to_user_value), else a NumPy array."""
    return _held_number(value, _conversion_by_type(value))


def _conversion_by_type(value: Array):
    if value.ndim == 0 and value.aval.weak:
        return _py_type(value.aval)     # a Python number computed at run time: `float(x[0])`
    if _kinded(value):
        return KindedScalar(var=value.immutable.var)
    if value.ndim == 0 and value.immutable is not False:
        return _numpy_scalar
    return np.array


def _kinded(value) -> bool:
    return isinstance(value, Array) and isinstance(value.immutable, RuntimeKind)


def _numpy_scalar(x):
    return np.asarray(x)[()]


def _number_var(value) -> Value:
    """The result holding a Python number written back (scalar_state): a
    constant where the trace kept it static."""
    return value.var if isinstance(value, Array) else builder.const_value(value)


def _number_conversion(value):
    """The type a number written back gets: a Python number's, or a NumPy
    scalar's (a runtime one: np.int64 from a checkpoint, then `step += 1`);
    where it is a Python number on some runtime paths only, that number's
    there (_held_number)."""
    return _held_number(value, _number_type(value))


def _number_type(value) -> type:
    if isinstance(value, Array):
        numpy_scalar = not value.aval.weak and value.immutable is True
        return value.dtype.type if numpy_scalar else _py_type(value.aval)
    return type(value)


def _py_type(aval):
    return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[aval.dtype.kind]
