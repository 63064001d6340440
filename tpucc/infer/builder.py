"""Emission context: the region being built, the current source location and
the compile options.  `emit` is the one way ops enter the IR: it converts
operands to Values, runs the op's abstract evaluation (shape + dtype rule)
and appends the op to the current region."""
from __future__ import annotations

import contextlib
import linecache
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import DTypeError, InternalError, Loc, ShapeError, TpuccError
from ..ir import AVal, Op, Value
from .flatten_memo import FlattenMemo


@dataclass
class RegionBuilder:
    ops: list = field(default_factory=list)
    params: tuple = ()
    # Set by control.journaled_region: whether a runtime branch or loop body
    # made it (its values exist only on that path), the region it was opened
    # in, and the region its ops were spliced into, if they were (an unrolled
    # iteration, paths joined): its values live on there (local_caches).
    runtime: bool = False
    parent: RegionBuilder | None = field(default=None, repr=False, compare=False)
    spliced_into: RegionBuilder | None = field(default=None, repr=False, compare=False)


@dataclass
class Context:
    options: dict
    regions: list = field(default_factory=lambda: [RegionBuilder()])
    loc: Loc | None = None
    runtime_depth: int = 0        # > 0 inside a runtime branch or loop body
    emitted: int = 0              # ops emitted so far, kept or not: work done (recursion.py)
    # Per runtime region, innermost last: whether a loop made it (its body, or
    # an unrolled runtime range's arm), else an `if`: errors name the construct.
    runtime_loops: list = field(default_factory=list)
    # ... and the serial floors of those a loop made (calls._appends_journaled)
    loop_floors: list = field(default_factory=list)
    # The interpreter's frames, innermost last: a runtime check looks for a
    # `try` around it (exceptions.refuse_caught_check).
    frames: list = field(default_factory=list)
    grad_depth: int = 0           # > 0 inside a function differentiated by tpucc.grad
    serial_floor: list = field(default_factory=lambda: [0])  # first Array serial of each runtime region
    # The serial floors of the regions that cannot replay effects on Python
    # containers made before them: runtime branches and loop bodies, and
    # differentiated functions (not the iterations of an unrolled loop).
    effect_floor: list = field(default_factory=lambda: [0])
    # Per effect floor, the frame whose locals the region merges or carries
    # (a runtime branch or loop of that frame), else None.
    effect_frames: list = field(default_factory=lambda: [None])
    journal: list = field(default_factory=list)  # stack of {Array: var before} per runtime region
    # ... and of the list and dict items the region rebinds (values.set_item)
    item_journal: list = field(default_factory=list)
    inputs: list = field(default_factory=list)   # captured arrays -> module parameters
    guards: list = field(default_factory=list)
    process_local: str | None = None    # see Traced.process_local
    namespaces: dict = field(default_factory=dict)  # id(guarded namespace) -> (it, owner, kind)
    # (id(namespace), name) of a guard on a number -> (scalar_state place, what): the
    # place the caller promotes when the number changes between calls
    number_places: dict = field(default_factory=dict)
    module_reads: list = field(default_factory=list)  # (module, name) read, present or not
    # id(functools cache) -> (it, [(key, region, answer)] of the calls traced
    # with runtime arguments): what a later equal call gets from Python's cache
    cache_calls: dict = field(default_factory=dict)
    writebacks: list = field(default_factory=list)
    checks: list = field(default_factory=list)   # checks.require's tuple per runtime check
    # (checks.ReadWatched, the error code its check made) per check that
    # holds only if the program reads that value (checks.require_if_read)
    read_guards: list = field(default_factory=list)
    error_code: object = None                     # the checks' Array (see checks.py)
    # Runtime bools, innermost last: checks made now hold only where all are
    # true (checks.only_where: a Python number's errors on the paths that
    # held it, held_ints)
    check_paths: list = field(default_factory=list)
    # Per np.errstate block the trace is in, innermost last: (the manager,
    # the kinds of floating-point error that raise there: a frozenset of
    # "divide", "over", "invalid") (float_errors.py)
    raised_float_errors: list = field(default_factory=list)
    error_code_origin: object = None
    message_slots: dict = field(default_factory=dict)   # AVal -> [Array] (checks._slot)
    # Lists and dicts rebuilt after a runtime `if` or loop because they are
    # other objects (or hold other items) on different paths: id -> object.
    merged_containers: dict = field(default_factory=dict)
    # (module input Values, identity_pattern of the caller's arrays there):
    # places tpucc.grad took for one array (tied weights) or for distinct ones
    # (infer.ad.Leaves); the driver checks each call against them.
    input_identities: list = field(default_factory=list)
    # Input arrays (arguments, captured): id(Array) -> (param, the NumPy
    # array if it is not C-contiguous, else None); and the params whose
    # layout a reshape consulted -> their strides, None if C-contiguous:
    # calls re-check those (driver).
    input_layouts: dict = field(default_factory=dict)
    layouts_read: dict = field(default_factory=dict)
    # The product of the trip counts of the static loops being unrolled
    # around this point: the copies of a nested loop's body in the program.
    unrolled_trips: int = 1
    # The counted loops whose While is being built, innermost last: the
    # lists their bodies grow (stacking.Growth).
    growths: list = field(default_factory=list)
    # Per static range loop ((code, header block)) that could not be one
    # counted While: (why, how many times that was tried).  After a few
    # refusals it is unrolled at once (loops.run_loop).
    uncounted_loops: dict = field(default_factory=dict)
    # Per loop unrolled because it cannot be one While ((code, header
    # block)): [ops its unrolled copies hold, iterations, warned], over all
    # the times it ran (an inner loop of unrolled ones runs once per outer
    # iteration: each run alone is short, all of them are not).
    unrolled_cost: dict = field(default_factory=dict)
    # Per loop ((code, header block)): the arrays that exist before every
    # region (serial 0: captured arrays, the checks' code and message slots)
    # that its While carried the last time it was built.  The next build
    # (in the next trial of an enclosing loop's body) carries them from its
    # first trial on: else each trial of a nest found them again, one
    # retrace per level, 2 ** depth traces of the innermost body (loops.py).
    loop_boxes: dict = field(default_factory=dict)
    # (code, block) of the joins where runtime paths met with different
    # static values: the code after them runs once per path (control.py).
    unjoined: set = field(default_factory=set)
    # The static objects a runtime choice may hold (chosen_values.py): a
    # choice is a runtime position in this list.
    choices: list = field(default_factory=list)
    # Where an operator last made new such objects from a choice (`tag + "a"`):
    # a loop whose every trial adds more is refused there (loops._settle).
    choices_made_at: object = None
    # (code, block, blocks) of continue_multi's guards whose path could not
    # stop where the others go on (control._guard_meeting_others)
    unmet: set = field(default_factory=set)
    # The short-circuit meets being interpreted (control._MeetWatch)
    meet_watches: list = field(default_factory=list)
    # The runtime branches being interpreted, outermost first: (the
    # condition's Value, whether this is the arm it selects) (periodic.py).
    branch_guards: list = field(default_factory=list)
    # id(a branch's condition Value) -> (it, the bool Value whose truth it
    # is, whether negated): control.decided_by_guards asks at every `if`.
    guard_roots: dict = field(default_factory=dict)
    # id(a comparison's bool Value) -> (it, the Span of its int operand, the
    # comparison, the static int it is compared with): what a branch on it
    # says of a counter (guarded_ranges.py).
    span_tests: dict = field(default_factory=dict)
    # The loops whose bodies are on trial, innermost last: (header block,
    # frame, {counter path: its bounds on each path back to the header}).
    back_edges: list = field(default_factory=list)
    # Whether a trial only looks for those bounds, taking windows of a
    # counter to be in range (guarded_ranges.probing).
    probing_windows: bool = False
    # Where the Cursors stood before each control._attempt being made moved
    # them, innermost last (iterators.cursor_journal).
    cursor_journals: list = field(default_factory=list)
    # Items a counted loop appended, read back from its buffers: id(Value)
    # -> (the item's Value, the buffer's, its row), so np.stack / np.array of
    # all of them in order is the buffer itself (stacking.whole_buffer).
    stacked_rows: dict = field(default_factory=dict)
    # The elements tolist() made of a 1-d array: id(Value) -> (the element's
    # Value, the array's, its position), so sum() / max() / .count() of all
    # of them is one reduction of the array (element_lists.source_of).
    list_elements: dict = field(default_factory=dict)
    # The rows of an n-d array whose tolist() made nested lists: id(row's
    # Value) -> (it, the array's Value, its row), so that an element of the
    # innermost lists is known as one of the whole array's (element_lists.element_of).
    list_rows: dict = field(default_factory=dict)
    # The items a loop's table held as an array got back after it: id(Value)
    # -> (the item's Value, the array's, its position in the flattened
    # table), so an inner loop held anew at each iteration of an unrolled
    # outer one holds that array again, not a stack of them (held_tables.py).
    held_elements: dict = field(default_factory=dict)
    # Static loops made counted Whiles that turned Python numbers they carry
    # into runtime values (loops.CountedStatics): where a later line needs
    # one at compile time, infer.trace compiles again with them unrolled.
    counted_statics: list = field(default_factory=list)
    # Under tpucc.grad: id(a runtime While's first result) -> calling_lines
    # where it was made, for its E350 (infer.ad), raised once f is traced.
    runtime_loop_callers: dict = field(default_factory=dict)
    # The NumPy value of each Value a `const` op made (values.known_constant):
    # q = np.linspace(0, 1, 5) is a constant where np.quantile needs one.
    constants: dict = field(default_factory=dict)
    # The Value of each runtime length a selection gave (len(x[i:j]),
    # x[mask].shape[0]) -> that selection: where the length is then used as
    # a static size, the refusal names the selection (masked.length).
    selection_lengths: dict = field(default_factory=dict)
    # Dicts picked at a runtime position of a list (list_loops): id -> the
    # dict, a copy the program may not change.
    chosen_containers: dict = field(default_factory=dict)
    # Objects picked so (list_loops.chosen_object): id -> the list's objects
    # each may be, which decide how it is returned (infer._returned_objects).
    chosen_candidates: dict = field(default_factory=dict)
    # The items (lists, dicts, objects) a runtime pick chose among, while
    # the copy it made may be read (picked_copies): id -> (the item, its picks).
    picked_originals: dict = field(default_factory=dict)
    # (object, name) -> its attribute as the program reads it (the
    # interpreter's getattr: arrays of an object from outside captured):
    # list_loops reads the attributes of alike objects so
    read_attribute: object = None
    # Python iterators from outside the call (arguments, globals, attributes):
    # id -> (the iterator, where it was found); advancing one is refused
    # (iterators.refuse_outside_iterator).
    outside_iterators: dict = field(default_factory=dict)
    # Python iterators compiled code made (itertools.count(), a held zip):
    # id -> (the iterator, the runtime depth it was made at); advancing one
    # deeper is refused (iterators.refuse_advanced_deeper).
    native_iterator_depths: dict = field(default_factory=dict)
    # The arrays' values that generators not yet consumed far enough left
    # them with: id(Value) -> (it, a check that refuses a read of it while
    # so: generator_runs.note_unconsumed_writes).
    generator_writes: dict = field(default_factory=dict)
    # Static data (lists, dicts, tuples of Python numbers) flattened once:
    # each state snapshot reuses it while unchanged (flatten_memo.py).
    flatten_memo: FlattenMemo = field(default_factory=FlattenMemo)

    @property
    def region(self) -> RegionBuilder:
        return self.regions[-1]


_current: list[Context] = []


def ctx() -> Context:
    if not _current:
        raise InternalError("no compilation in progress")
    return _current[-1]


@contextlib.contextmanager
def compiling(context: Context):
    _current.append(context)
    try:
        yield context
    finally:
        _current.pop()
        # np.errstate blocks are entered for real while tracing (BEFORE_WITH):
        # those a compile error ended inside still set NumPy's state
        for manager, _ in reversed(context.raised_float_errors):
            manager.__exit__(None, None, None)
        context.raised_float_errors.clear()


@contextlib.contextmanager
def new_region(params=()):
    """Collects the ops emitted inside the block into a fresh RegionBuilder."""
    c = ctx()
    rb = RegionBuilder(params=tuple(params))
    c.regions.append(rb)
    try:
        yield rb
    finally:
        c.regions.pop()


def splice(kept: RegionBuilder, into: RegionBuilder) -> None:
    """The ops of the region `kept` go on in `into`, as if emitted there."""
    into.ops.extend(kept.ops)
    kept.spliced_into = into


def living(region: RegionBuilder) -> RegionBuilder:
    """The region whose ops now hold `region`'s (itself, unless spliced)."""
    while region.spliced_into is not None:
        region = region.spliced_into
    return region


@contextlib.contextmanager
def at(loc: Loc | None):
    c = ctx()
    saved = c.loc
    if loc is not None:
        c.loc = loc
    try:
        yield
    finally:
        c.loc = saved


def current_loc() -> Loc | None:
    return _current[-1].loc if _current else None


def calling_lines(c: Context) -> list:
    """The lines of the calls that led to the line being interpreted,
    innermost first, as an error's `called from` lines: a helper called
    from several lines says which call failed.  (Library frames are left
    out: the program's line that called them is the error's own.)"""
    placed = [f for f in c.frames if f.placed and f.current is not None]
    return [f.current.loc for f in reversed(placed[:-1])]


def def_loc(fn) -> Loc | None:
    """The `def` line of a function (below its decorators), for errors about
    the function as a whole, e.g. the compiled entry itself."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    line = code.co_firstlineno
    if linecache.getline(code.co_filename, line).lstrip().startswith("@"):
        for n in range(line + 1, line + 50):
            if linecache.getline(code.co_filename, n).lstrip().startswith(("def ", "async def ")):
                line = n
                break
    text = linecache.getline(code.co_filename, line)
    return Loc(code.co_filename, line, len(text) - len(text.lstrip()), code.co_qualname)


def note_input_layout(array, param, value) -> None:
    """Input `array` (module parameter `param`) holds `value`: a NumPy array
    may not be C-contiguous (a transposed or strided view); jax arrays are."""
    strided = isinstance(value, np.ndarray) and not value.flags.c_contiguous
    ctx().input_layouts[id(array)] = (param, value if strided else None)


def is_c_contiguous_root(array) -> bool:
    """Whether Array `array`, one without a base, is C-contiguous: arrays
    the program makes are; an input is if the NumPy array passed now is,
    which is then a fact the executable depends on (recorded)."""
    found = ctx().input_layouts.get(id(array))
    if found is None:
        return True
    param, strided = found
    _relied_on(param, strided)
    return strided is None


def input_stand_in(array):
    """For Array `array`, one without a base: the strided NumPy array
    passed in for it (its layout is then a fact the executable depends on,
    recorded), or None where it is C-contiguous (an input that is, or an
    array the program makes)."""
    found = ctx().input_layouts.get(id(array))
    if found is None:
        return None
    param, strided = found
    _relied_on(param, strided)
    return strided


def reshape_of_input_is_view(array, shape) -> bool | None:
    """Whether NumPy reshapes the input behind Array `array` (one without a
    base) to `shape` without a copy, as it does C-contiguous arrays and
    some strided ones (x[:, ::2] merged into one axis); None if `array` is
    not an input."""
    found = ctx().input_layouts.get(id(array))
    if found is None:
        return None
    param, strided = found
    _relied_on(param, strided)
    if strided is None:
        return True
    try:
        strided.reshape(shape, copy=False)      # a view, or ValueError: never copies
        return True
    except (ValueError, TypeError):             # (TypeError: NumPy 2.0, no copy=)
        return False


def _relied_on(param, strided) -> None:
    """The trace depends on the input's memory layout: calls re-check it."""
    ctx().layouts_read[param] = None if strided is None else strided.strides


def emit_op(name: str, inputs: tuple[Value, ...], attrs: dict, out_avals, regions=(), note=""):
    c = ctx()
    if c.generator_writes and not regions:     # (a region's op: its own ops were checked)
        _refuse_unconsumed_writes(c.generator_writes, inputs)
    outs = tuple(Value(a) for a in out_avals)
    op = Op(name, tuple(inputs), tuple(sorted(attrs.items())), outs, c.loc, tuple(regions), note)
    c.region.ops.append(op)
    c.emitted += 1
    return outs


def _refuse_unconsumed_writes(writes: dict, inputs) -> None:
    """An op reads the value a generator wrote into an array before the
    program consumed the generator that far (generator_runs)."""
    for v in inputs:
        found = writes.get(id(v))
        if found is not None and found[0] is v:
            found[1]()


def emit(name: str, *operands, **attrs):
    """Emits registry op `name` on operands (Arrays or static scalars/ndarrays);
    returns an Array, or a tuple of Arrays for multi-output ops."""
    opdef = OPS[name]
    values = tuple(to_value(x) for x in operands)
    avals = tuple(v.aval for v in values)
    try:
        out = opdef.abstract(avals, **attrs)
    except TpuccError as e:
        raise e.with_loc(current_loc()) from None
    except (ValueError, TypeError, IndexError) as e:
        error = (DTypeError if _is_dtype_refusal(e) else ShapeError)(
            f"{name}: {_shapes(avals)}: {e}", current_loc())
        error.op_reason = str(e)    # (static_arguments.call names the user's function instead)
        raise error from None
    multi = isinstance(out, tuple)
    for aval in (out if multi else (out,)):
        _check_result(name, aval)
    outs = emit_op(name, values, attrs, out if multi else (out,))
    arrays = tuple(Array(v) for v in outs)
    if not multi and out.shape == () and name not in ARRAY_MAKERS:
        arrays[0].immutable = True      # NumPy gives a scalar here, not a 0-d array
    if opdef.value_range is not None and not multi and out.dtype.kind in "iu":
        arrays[0].span = _value_span(opdef, operands, avals, attrs, outs[0])
    if not multi and out.dtype.kind in "biu" and math.prod(out.shape) <= _FOLDED_SIZE:
        _fold_constant(opdef, values, attrs, outs[0])
    return arrays if multi else arrays[0]


_FOLDED_SIZE = 64


def _fold_constant(opdef, values, attrs, out: Value):
    """Records the value of a small integer result whose operands are all
    constants (np.array(x.shape) // 2, its items): shapes, slice bounds and
    counts computed from static numbers stay static, as they are eagerly
    (values.known_integer).  The op is emitted all the same."""
    constants = ctx().constants
    if opdef.numpy is None or opdef.name == "check" or not all(v in constants for v in values):
        return
    try:
        with np.errstate(all="ignore"):
            value = np.asarray(opdef.numpy(*(constants[v] for v in values), **attrs))
    except Exception:  # noqa: BLE001 - a reference that cannot take these: not folded
        return
    if value.dtype == out.aval.dtype and value.shape == out.aval.shape:
        constants[out] = value


def _value_span(opdef, operands, avals, attrs, out: Value):
    """The Span of an integer result whose op has a range rule."""
    bounds = opdef.value_range(avals, tuple(int_bounds(x, a) for x, a in zip(operands, avals)),
                               **attrs)
    return ranged_span(out, out.aval.dtype, bounds)


# Ops whose 0-d results are 0-d arrays in NumPy (np.zeros(()), x[...], astype, ...);
# every other op on 0-d inputs returns a NumPy scalar, which `+=` rebinds.
ARRAY_MAKERS = frozenset({"full", "const", "getitem", "setitem", "reshape", "convert", "tensordot",
                          "select", "broadcast_to", "transpose", "arange", "eye"})


def _shapes(avals) -> str:
    return ", ".join(str(a) for a in avals)


def _is_dtype_refusal(e: Exception) -> bool:
    """NumPy's refusals of dtypes (no ufunc loop for them, a cast the casting
    rule forbids, no common dtype) as opposed to its shape errors."""
    if isinstance(e, np.exceptions.DTypePromotionError):
        return True
    names = {cls.__name__ for cls in type(e).__mro__}
    text = str(e)
    return "UFuncTypeError" in names or "not supported for the input types" in text or (
        "Cannot cast" in text) or "No loop matching the specified signature" in text or (
        "numpy boolean" in text)     # bool_a - bool_b, -bool_a: a TypeError of NumPy's


# No device holds an array this large; XLA would fail with an out-of-memory
# error when the program runs, so it is refused while compiling.
MAX_ARRAY_BYTES = 2 ** 40

_NON_NUMERIC = {"U": "strings", "S": "bytes", "O": "Python objects", "M": "datetimes",
                "m": "timedeltas", "V": "raw bytes or records"}


def _check_result(name: str, aval: AVal):
    dtype = aval.dtype
    if dtype.kind in "mM":      # x.astype("timedelta64[s]"): the integers are the counts
        from .values import date_counts
        raise _result_refused(DTypeError, name, f"would give an array of dtype {dtype}: "
                              "compiled code does not support dates and times "
                              "(datetime64/timedelta64)",
                              f"compute with the integer counts themselves (here "
                              f"{date_counts(dtype)}), and make dates of the results outside "
                              f"the compiled function (`.astype('{dtype}')`)")
    if dtype.kind in _NON_NUMERIC and not dtype.type.__module__.startswith("ml_dtypes"):
        raise _result_refused(DTypeError, name, f"would give an array of dtype {dtype} "
                              f"({_NON_NUMERIC[dtype.kind]}): compiled code holds only boolean "
                              "and numeric arrays",
                              "keep strings and objects outside the compiled function")
    if not dtype.isnative:
        refuse_byte_order(dtype, f"{name} would give an array")
    if dtype.itemsize > (16 if dtype.kind == "c" else 8):      # longdouble, clongdouble
        raise _result_refused(DTypeError, name, f"would give an array of dtype {dtype}: "
                              "compiled code holds numbers of at most 64 bits (XLA has no "
                              "extended precision)", "use np.float64 (or np.complex128)")
    nbytes = math.prod(aval.shape) * dtype.itemsize
    if nbytes > MAX_ARRAY_BYTES:
        raise ShapeError(f"Unable to allocate {human_bytes(nbytes)} for an array with shape "
                         f"{aval.shape} and data type {dtype} ({name}): tpucc refuses arrays "
                         f"over {human_bytes(MAX_ARRAY_BYTES)}", current_loc(),
                         "check the shape (NumPy raises MemoryError for it)")


def _result_refused(kind, name: str, reason: str, hint: str):
    """The refusal of op `name`'s result; its op_reason lets the NumPy
    function the user called be named instead of tpucc's op (np.empty's
    dtype=object, not `full`'s; see static_arguments.call)."""
    error = kind(f"{name} {reason}", current_loc(), hint)
    error.op_reason = reason
    return error


def refuse_byte_order(dtype: np.dtype, what: str):
    """A dtype of the other byte order ('>u2' on a little-endian machine)
    made inside the function: XLA holds native-order numbers only, and a
    result read back in native order would have another dtype than NumPy's
    (np.dtype('>u2') != np.dtype('<u2'))."""
    native = dtype.newbyteorder("=")
    if native.kind in "iu" and native.itemsize > 1:
        k = native.itemsize
        swap = (f" (to read big-endian numbers: b = np.frombuffer(data, np.uint8).astype("
                f"np.uint{8 * k}).reshape(-1, {k}); v = b[:, 0]; then v = (v << 8) | b[:, j] "
                f"for each next column j < {k}"
                + (f"; v.view(np.{native.name})" if native.kind == "i" else "") + ")")
    else:
        swap = ""
    raise DTypeError(f"{what} of non-native byte order ({dtype.str}): compiled code holds "
                     "native-order numbers only", current_loc(),
                     f"compute with the native dtype np.{native.name}{swap}, and convert "
                     f"the result with .astype('{dtype.str}') outside the compiled function")


def human_bytes(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.3g} {unit}" if unit != "bytes" else f"{n} bytes"
        n /= 1024


def const_value(x) -> Value:
    """A Value holding a static scalar or ndarray (Python scalars are weak)."""
    aval = const_aval(x)
    if aval.dtype.kind in "mM":
        from .values import datetime_refusal
        raise datetime_refusal(aval.dtype, repr(x) if np.ndim(x) == 0 else "a constant array")
    if not aval.dtype.isnative:     # np.frombuffer(b"..", ">u2") folded now
        refuse_byte_order(aval.dtype, "an array")
    if aval.dtype.names:            # np.frombuffer(data, [("kind", "u1"), ("len", "<u2")])
        from .values import structured_refusal
        raise structured_refusal(aval.dtype, "this array")
    if aval.dtype.kind in "US":     # (a char grid: np.array([list(r) for r in ROWS]))
        raise DTypeError(f"an array of dtype {aval.dtype} ({_kind_of(x)}) cannot be used by "
                         "compiled code: it holds strings",
                         hint="compare it with a string while compiling and use the bool "
                              "array (`walls = grid == '#'`), or pass the positions out and "
                              "look the strings up outside the compiled function")
    if aval.dtype.kind not in "biufc":
        raise DTypeError(f"an array of dtype {aval.dtype} ({_kind_of(x)}) cannot be used by "
                         "compiled code",
                         hint="keep Python objects in a list, and make arrays of their "
                              "numbers (`np.array([p.x for p in points])`)")
    arr = np.asarray(x, dtype=aval.dtype)
    (v,) = emit_op("const", (), {"value": _Hashable(arr)}, (aval,))
    ctx().constants[v] = arr
    return v


def _kind_of(x) -> str:
    items = np.asarray(x).ravel()[:1]
    return f"of {type(items[0]).__name__} objects" if items.size else "empty"


class _Hashable:
    """Wraps an ndarray attribute so ops stay hashable/printable."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __repr__(self):
        a = self.array
        return np.array2string(a, separator=",", threshold=6) if a.size <= 6 else f"array{a.shape}"

# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..ops.registry import OPS, const_aval  # noqa: E402
from .values import Array, int_bounds, ranged_span, to_value  # noqa: E402
