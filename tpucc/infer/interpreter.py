"""The abstract interpreter's frame and its table of opcode handlers.

Handlers are named like the canonical opcodes of frontend/pyversion.py and
take (frame, arg).  Families (binary operators, builds) are table rows.
Terminators (jumps, branches, FOR_ITER, return, raise) return an Exit for
control.walk.
"""
from __future__ import annotations

import builtins
import collections
import collections.abc
import functools
import operator
import os
import sysconfig
import types

import numpy as np

from ..errors import (InternalError, MergeError, SideEffectError,
                      StaticValueError, TpuccError, UnsupportedError, UserCodeError,
                      raisable_name)
from ..frontend import decode
from ..ir import values_made
from ..ops.assign import FlatIter
from ..ops.elementwise import PY_BINARY, PY_COMPARE, PY_INPLACE
from ..ops.registry import METHODS, NUMPY
from . import (builder, builtins_impl, calls, checks, chosen_members, chosen_values, control,
               dunders, exceptions, float_errors, generator_folds, held_ints, messages, stacking)
from .builder import emit
from .builtins_impl import refuse_runtime_hash
from .control import RETURN, Exit, bound_flag, finish_journal
from . import chosen_functions, iterators, narrowing, optional_numbers, value_objects
from .iterators import (NativeSteps, RangeIter, SeqIter, caught_up, ended, note_advance,
                        returning)
from .state import is_unbound_placeholder
from .static_arguments import runtime_argument_error, runtime_scalar_iterated
from .values import (CHOSEN, MISSING, Array, NeedsStatic, Undefined, finish_items,
                     items_before, journal_before, known_integer)

NULL = type("NULL", (), {"__repr__": lambda self: "NULL"})()
HANDLERS: dict = {}
TERMINATORS: dict = {}


def handler(fn):
    HANDLERS[fn.__name__] = fn
    return fn


def terminator(fn):
    TERMINATORS[fn.__name__] = fn
    return fn


class Frame:
    def __init__(self, interp, func: types.FunctionType, locals_: dict, cells: dict):
        self.interp = interp
        self.func = func
        self.fc = decode(func.__code__)
        self.globals = func.__globals__
        self.locals = locals_
        self.cells = cells
        self.stack: list = []
        self.yields: list | None = [] if func.__code__.co_flags & 0x20 else None
        self.fold = None            # its items' total, for sum(gen): generator_folds.py
        self.entry_depth = builder.ctx().runtime_depth
        self.recursion_key = None   # a recursive call's arguments (recursion.py)
        self.entry_values = values_made()   # (ints its call tree computes: recursion.py)
        self.branched_calls = 0     # recursive calls under runtime conditions (recursion.py)
        self.entry_ops = builder.ctx().emitted     # (its call tree's work: recursion.py)
        self.entry_level = exceptions.level()
        self.current = None         # the instruction running (infer/exceptions.py)
        self.open_regions: list = []    # per runtime region it opened: the handler in force
        # A @contextlib.contextmanager generator runs in steps, suspended at
        # its yield (exceptions.enter_generator); a step may resume inside
        # a block, from instruction `resume_from` of the block it starts at.
        self.stepping = False
        self.resume_from = 0
        self.current_block = None
        self.entry_regions = len(builder.ctx().regions)
        # Errors and ops in standard-library code the program calls (a
        # decorator it applies) are placed at the program's line that called it.
        self.placed = not in_library(func.__code__.co_filename)
        # Variables a loop binds first that a runtime exit may leave unbound:
        # each has a flag local (bound_flag), True once bound (loops.py).
        self.bound_flags: set = set()
        # While a runtime `raise`'s message is computed (_static_message):
        # FORMAT_VALUE's hook for a runtime value (messages.Fields.format).
        self.format_runtime = None
        # Cell variables whose slot an inlined comprehension (3.12+) holds a
        # plain value in (STORE_FAST): LOAD_FAST reads that, not the cell.
        self.plain_cells: set = set()
        # Headers of `while` loops whose first iteration ran unrolled before
        # the While that runs the rest (loops._unroll): not peeled again.
        self.peeled_loops: set = set()
        # `while` loops unrolled with guards (loops._unroll: one left on a
        # runtime condition that cannot be one While): header -> (iterations
        # unrolled so far, over the guarded continuations; why no While).
        self.guarded_whiles: dict = {}

    def push(self, v):
        self.stack.append(v)

    def pop(self):
        return self.stack.pop()

    def popn(self, n: int) -> list:
        if n == 0:
            return []
        out = self.stack[-n:]
        del self.stack[-n:]
        return out

    def run_block(self, index: int, stops) -> Exit:
        block = self.fc.blocks[index]
        term = block.terminator
        c = builder.ctx()
        first, self.resume_from = self.resume_from, 0
        self.current_block = index
        try:
            for ins in (block.instrs[first:-1] if term is not None else block.instrs[first:]):
                self.current = ins
                if ins.handler is not None and ins.handler.block not in self.fc.vetted_handlers:
                    exceptions.vet_handler(self, ins.handler)
                if self.placed:
                    c.loc = ins.loc
                self.execute(HANDLERS.get(ins.op), ins)
            if term is None:
                return Exit((block.next,))
            self.current = ins = term
            if self.placed:
                c.loc = term.loc
            return self.execute(TERMINATORS[term.op], term, block, stops)
        except UserCodeError as e:
            if ins.handler is None:
                raise
            return exceptions.to_handler(self, ins.handler, e)

    def _leaving_through_call(self, e: TpuccError, loc):
        """An error placed in another frame leaves this one at `loc`: a call."""
        placed_in = getattr(e, "placed_in", None)
        if placed_in is not None and placed_in is not self:
            e.called_from(loc)
        e.placed_in = self

    def execute(self, fn, ins, *extra):
        loc = ins.loc if self.placed else None      # None: the calling frame places errors
        try:
            if fn is None:
                raise unsupported_construct(ins)
            return fn(self, ins.arg, *extra)
        except TpuccError as e:
            exceptions.note_raised(e)
            if loc is None:
                raise _in_library(e, ins.loc)
            if e.loc is not None:
                self._leaving_through_call(e, loc)
            else:
                e.placed_in = self
            raise e.with_loc(loc)
        except NeedsStatic as e:
            raise _in_library(StaticValueError(
                f"{e.what} is needed at compile time, but it depends on runtime values",
                loc, "compute it from shapes or Python values, or keep the data in arrays "
                     "(e.g. np.where instead of indexing by a computed position)"),
                ins.loc) from None
        except RecursionError:
            raise
        except Exception as e:  # noqa: BLE001 - classify user vs internal errors
            if os.environ.get("TPUCC_DEBUG"):
                raise                       # developers: keep the original traceback
            error = classify_exception(e, loc)
            exceptions.note_raised(error)
            raise _in_library(error, ins.loc) from None


@functools.lru_cache(maxsize=None)
def in_standard_library(path: str) -> bool:
    """Whether a code object's file is Python's own library (not a package
    installed next to it)."""
    path = os.path.realpath(path)
    if "site-packages" in path or "dist-packages" in path:
        return False
    return any(path.startswith(root + os.sep) for root in _stdlib_roots())


@functools.cache
def _stdlib_roots() -> frozenset:
    paths = sysconfig.get_paths()
    return frozenset(os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib"))


# tpucc's own Python (tpucc.nn's NumPy code, which compiled programs call).
_TPUCC_ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


# NumPy's own Python (np.ndenumerate, np.vectorize: inlined like user code).
_NUMPY_ROOT = os.path.dirname(os.path.realpath(np.__file__))


def in_tpucc(path: str) -> bool:
    return os.path.realpath(path).startswith(_TPUCC_ROOT + os.sep)


def in_numpy(path: str) -> bool:
    return os.path.realpath(path).startswith(_NUMPY_ROOT + os.sep)


def installed_package(path: str) -> str | None:
    """The top-level package of a file installed in site-packages (SciPy's
    _aliases.py: 'scipy'), or None."""
    parts = os.path.realpath(path).replace("\\", "/").split("/")
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            rest = parts[len(parts) - parts[::-1].index(marker):]
            return rest[0].split(".")[0] if rest else None
    return None


@functools.lru_cache(maxsize=4096)
def in_library(path: str) -> bool:
    """Code whose errors the program's calling line places: Python's own
    library, NumPy's and tpucc's (nn.cross_entropy given bad labels), and any
    installed package's (scipy.special.logsumexp refused deep inside SciPy:
    the program's line is the one to change)."""
    return (in_tpucc(path) or in_numpy(path) or in_standard_library(path)
            or in_generated(path) or installed_package(path) is not None)


def in_generated(path: str) -> bool:
    """Code Python made at run time from text (a dataclass's __init__ and
    __setattr__): its errors belong at the line that called it."""
    return path == "<string>"


def _in_library(e: TpuccError, loc) -> TpuccError:
    """An error without a location raised in library code: it names that
    code's line in its message (once, the innermost), and the program's
    frame that called it places it."""
    if e.loc is None and not getattr(e, "library_line", None):
        e.library_line = f"{os.path.basename(loc.file)}:{loc.line}"
        whose = _library_owner(loc.file)
        e.message += f" (in {whose} {e.library_line}, called from here)"
        package = _third_party(loc.file)
        if package and not isinstance(e, (UserCodeError, InternalError)) and \
                (e.hint in (None, calls.README_HINT) or getattr(e, "generic_hint", False)):
            e.hint = (f"{package}'s Python code is compiled as the program's own, and this "
                      "part of it does not compile: compute it with NumPy functions in your "
                      "code, or call it outside the compiled function")
        elif isinstance(e, SideEffectError) and not in_tpucc(loc.file) and \
                not getattr(e, "program_container", False):
            # (the library's own state, a cache or a registry: the program made no container)
            e.hint = ("this library call changes the library's own state, which a compiled "
                      "program cannot replay: call it outside the compiled function")
        e.args = (e.render(),)
    return e


def _third_party(path: str) -> str | None:
    """The installed package a file is in, other than NumPy and tpucc."""
    return None if in_tpucc(path) or in_numpy(path) else installed_package(path)


def _library_owner(path: str) -> str:
    """Whose code a library line is, for a message: "the scipy package's _aliases.py:94"."""
    if in_tpucc(path):
        return "tpucc's"
    if in_numpy(path):
        return "NumPy's"
    if in_generated(path):
        return "generated code's"
    package = installed_package(path)
    return f"the {package} package's" if package else "the standard library's"


# The statement a user wrote, for the opcodes no handler accepts: (what, hint).
_CONSTRUCTS = {
    "LOAD_BUILD_CLASS": ("a `class` statement",
                         "define the class at module level; creating its instances inside "
                         "compiled code is fine"),
    "DELETE_ATTR": ("`del obj.attr`", "compiled code cannot delete attributes; assign a new "
                                      "value instead"),
    "DELETE_GLOBAL": ("`del` of a global variable", "delete it outside the compiled function"),
    "DELETE_DEREF": ("`del` of a variable an inner function uses",
                     "rebind it to a new value instead"),
}
for _op in ("CHECK_EG_MATCH", "PREP_RERAISE_STAR", "CALL_INTRINSIC_2:INTRINSIC_PREP_RERAISE_STAR"):
    _CONSTRUCTS[_op] = ("`except*` (exception groups)", "catch with a plain `except`")
for _op in ("GET_AWAITABLE", "GET_AITER", "GET_ANEXT", "BEFORE_ASYNC_WITH", "END_ASYNC_FOR"):
    _CONSTRUCTS[_op] = ("async code (`await`, `async for`, `async with`)",
                        "compile a plain function; call it from your async code")


def unsupported_construct(ins) -> UnsupportedError:
    what, hint = _CONSTRUCTS.get(ins.op, (f"the Python construct compiled to {ins.op}", None))
    return UnsupportedError(f"{what} is not supported in compiled code", ins.loc, hint)


def classify_exception(e: Exception, loc):
    if runtime_scalar_iterated(e) is not None:  # (an op not called as a NumPy function)
        return runtime_argument_error(loc=loc)
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code.co_filename
        tb = tb.tb_next
    # (a Warning: NumPy's, folding the program's values, that its filters make an error)
    if last and "/tpucc/" in last.replace("\\", "/") and not isinstance(
            e, (ValueError, TypeError, LookupError, AttributeError, ArithmeticError,
                ImportError, Warning)):
        return InternalError(f"{type(e).__name__}: {e}", loc)
    ours = exceptions.raised_by_the_program(e)
    return UserCodeError(f"{type(e).__name__}: {e}", loc, raised=e if ours else None,
                         program_raised=ours)


# --- loads and stores ----------------------------------------------------------------------

@handler
def LOAD_CONST(f, arg):
    f.push(arg)


@handler
def LOAD_FAST(f, name):
    v = _defined(f.locals, name)
    if f.bound_flags and name in f.bound_flags:
        _require_bound(f, name)
    if isinstance(v, Array) and v.bound_if is not None:
        ran, bound_name = v.bound_if
        checks.require(ran, f"cannot access local variable '{bound_name}' where it is not "
                            "associated with a value", raises="UnboundLocalError",
                       hint="the loop that binds it may run zero times: assign it before "
                            "the loop")
    f.push(v)


def _require_bound(f, name):
    """Eager Python raises UnboundLocalError reading `name` where no path
    bound it: at run time where a runtime exit decided (a loop left by a
    `break` before `y = ...`)."""
    flag = f.locals.get(bound_flag(name), True)
    if flag is True:
        return
    message = f"cannot access local variable '{name}' where it is not associated with a value"
    if flag is False:
        raise UserCodeError(f"UnboundLocalError: {message}")
    checks.require(flag, message, raises="UnboundLocalError",
                   hint="the loop that binds it may run zero times, or a runtime `break` "
                        "may leave it first: assign the variable before the loop")


def _defined(locals_: dict, name: str):
    """The value of local `name`.  Not bound on any path that reaches here
    (read before its assignment, or deleted): Python's UnboundLocalError,
    which the program's `except` may catch.  Bound on some paths of a
    runtime branch only: a refusal (E300)."""
    v = locals_.get(name, _UNBOUND)
    if v is _UNBOUND:
        raise unbound_local(name)
    if isinstance(v, Undefined) or is_unbound_placeholder(v):
        raise MergeError(f"variable `{name}` is not defined on every path that reaches here",
                         hint="assign it before the `if`/loop, on every path")
    return v


_UNBOUND = object()


def unbound_local(name: str) -> UserCodeError:
    return UserCodeError(f"UnboundLocalError: cannot access local variable '{name}' where it "
                         "is not associated with a value")


@handler
def LOAD_FAST_AND_CLEAR(f, name):
    """3.12+: an inlined comprehension saves the name it binds (STORE_FAST
    puts it back after).  A cell variable also gets a new cell for the
    comprehension, as MAKE_CELL gives it: lambdas made there keep it."""
    saved = f.locals.pop(name, NULL)
    cell = f.cells.get(name)
    if cell is not None and isinstance(cell.cell_contents, OwnedCell):
        # The outer variable's cell (closures made before hold it) keeps its
        # value apart while the comprehension binds the name.
        f.interp.comprehension_cells += 1
        number = f.interp.comprehension_cells
        outer = f"{name}<outside comprehension {number}>"
        if saved is not NULL:
            f.locals[outer] = saved
        cell.cell_contents = OwnedCell(f, outer)
        f.cells[name] = f.interp.fresh(types.CellType(OwnedCell(f, f"{name}<comprehension "
                                                                   f"{number}>")))
        saved = _SavedCell(cell, outer)
    f.push(saved)


class _SavedCell:
    """A cell variable's cell, and where its value is kept, saved by
    LOAD_FAST_AND_CLEAR."""
    __slots__ = ("cell", "storage")

    def __init__(self, cell, storage):
        self.cell, self.storage = cell, storage


@handler
def STORE_FAST(f, name):
    v = f.pop()
    if isinstance(v, _SavedCell):
        f.cells[name] = v.cell
        v.cell.cell_contents = OwnedCell(f, name)
        v = f.locals.pop(v.storage, NULL)
        f.plain_cells.discard(name)
    elif name in f.cells:
        f.plain_cells.add(name)
    if v is NULL:
        f.locals.pop(name, None)
    else:
        f.locals[name] = v
    if f.bound_flags and name in f.bound_flags:
        f.locals[bound_flag(name)] = True


@handler
def DELETE_FAST(f, name):
    # `del z` of an unbound z raises, as eagerly (bound on some runtime
    # paths only: deleted, unchecked)
    if name not in f.locals:
        raise unbound_local(name)
    if f.bound_flags and name in f.bound_flags:
        _require_bound(f, name)
    f.locals.pop(name, None)
    if f.bound_flags and name in f.bound_flags:
        f.locals[bound_flag(name)] = False


@handler
def LOAD_GLOBAL(f, arg):
    push_null, name = arg
    if push_null:
        f.push(NULL)
    f.push(f.interp.read_global(f.func, name))


@handler
def STORE_GLOBAL(f, name):
    f.interp.store_global(f.func, name, f.pop())


class OwnedCell:
    """What the cell of a compiled frame's cell variable holds: where the
    value is, in that frame's locals.  There it is merged by the frame's
    runtime branches and carried by its loops like any local, also when an
    inner function rebinds it (`nonlocal total; total = total + v`)."""
    __slots__ = ("frame", "name")

    def __init__(self, frame: Frame, name: str):
        self.frame, self.name = frame, name


def owned_value(owned: OwnedCell):
    """The value of the variable an OwnedCell stands for (what Python's
    cell would hold): a closure's `cell.cell_contents`."""
    value = owned.frame.locals.get(owned.name, _UNBOUND)
    if value is _UNBOUND:
        raise UserCodeError("ValueError: Cell is empty")
    return _defined(owned.frame.locals, owned.name)


@handler
def LOAD_DEREF(f, name):
    cell = f.cells[name]
    try:
        value = cell.cell_contents
    except ValueError:
        raise MergeError(f"free variable `{name}` is not defined yet") from None
    if not isinstance(value, OwnedCell):
        f.push(f.interp.read_outer_cell(cell, name, f.func.__qualname__))
        return
    f.push(_defined(value.frame.locals, value.name))


@handler
def LOAD_CLOSURE(f, name):
    # (3.13's LOAD_FAST of a cell variable is decoded as this: frontend.pyversion._fast)
    f.push(_defined(f.locals, name) if name in f.plain_cells else f.cells[name])


@handler
def STORE_DEREF(f, name):
    f.interp.store_cell(f.cells[name], name, f.pop())


@handler
def LOAD_ATTR(f, arg):
    method, name = arg
    obj = f.pop()
    if isinstance(obj, chosen_values.ChosenValue) and not chosen_values.own_attribute(obj, name) \
            and chosen_members.interpreted(obj):    # `stage.next()`: the program's code
        value = chosen_members.attribute(f.interp, obj, name, method)
    elif isinstance(obj, chosen_values.ChosenValue):     # `status.upper()`: each object's
        value = chosen_values.attribute(obj, name, method)
    else:
        value = f.interp.getattr(obj, name)
    if method:
        f.push(NULL)
    f.push(value)


@handler
def LOAD_SUPER_ATTR(f, arg):
    method, name = arg
    self_, cls = f.pop(), f.pop()
    f.pop()                                 # the global `super`
    value = f.interp.getattr(super(cls, self_), name)
    if method:
        f.push(NULL)
    f.push(value)


@handler
def STORE_ATTR(f, name):
    obj = f.pop()
    f.interp.setattr(obj, name, f.pop())


def _compile_time_managers() -> tuple:
    """Context managers a `with` may use in compiled code, entered and left
    while compiling: np.errstate changes only how NumPy itself reports
    floating-point errors at compile time (folding constants), which the
    compiled program never does (XLA does not warn); so do the warning
    filters of warnings.catch_warnings() (see warning_filters.py)."""
    import contextlib
    from .warning_filters import CompileTimeFilters
    return (np.errstate, contextlib.nullcontext, CompileTimeFilters)


@handler
def BEFORE_WITH(f, arg):
    manager = f.pop()
    if isinstance(manager, _compile_time_managers()):
        if isinstance(manager, np.errstate):
            if exceptions.errstate_raises(manager):
                exceptions.refuse_never_raised(f.interp.frames, FloatingPointError,
                                               "np.errstate(...='raise')")
            float_errors.enter(manager)     # (left in WithExit.exit)
        from .calls import WithExit
        f.push(WithExit(manager))
        f.push(manager.__enter__())
        return
    if isinstance(manager, exceptions.GeneratorManager):
        exceptions.enter_generator(f, manager)
        return
    exceptions.refuse_generator_manager(manager)
    from .calls import class_attribute
    enter = class_attribute(type(manager), "__enter__")
    exit_ = class_attribute(type(manager), "__exit__")
    if not isinstance(enter, types.FunctionType) or not isinstance(exit_, types.FunctionType):
        raise UnsupportedError(
            f"`with` on a {type(manager).__name__} is not supported in compiled code",
            hint="move the `with` block outside the compiled function (in compiled code, "
                 "`with` takes np.errstate, contextlib.nullcontext and context managers whose "
                 "__enter__ and __exit__ are written in Python)")
    exceptions.enter_traced(f, manager, enter, exit_)


@handler
def WITH_EXCEPT_START(f, arg):
    """The `with` body raised: __exit__(type, value, traceback), which the
    block's handler then tests (a true result suppresses the exception)."""
    exit_, exc = f.stack[-4], f.stack[-1]
    suppress = f.interp.call(exit_, [type(exc), exc, None], {})
    if isinstance(suppress, Array):
        raise UnsupportedError(
            "a context manager's __exit__ decides from runtime values whether to suppress "
            f"{type(exc).__name__}: compiled code cannot raise at run time",
            hint="return a static bool from __exit__ (a Python value, not an array)")
    f.push(suppress)


@handler
def STOPITERATION_ERROR(f, arg):
    """3.12+: a StopIteration leaving a generator's body becomes a RuntimeError."""
    exc = f.pop()
    if isinstance(exc, StopIteration):
        exc = RuntimeError("generator raised StopIteration")
    f.push(exc)


HANDLERS["CALL_INTRINSIC_1:INTRINSIC_STOPITERATION_ERROR"] = STOPITERATION_ERROR


@handler
def PUSH_EXC_INFO(f, arg):
    exc = f.pop()
    f.push(f.interp.handled_exception)
    f.interp.handled_exception = exc
    f.push(exc)


@handler
def POP_EXCEPT(f, arg):
    f.interp.handled_exception = f.pop()


@handler
def CHECK_EXC_MATCH(f, arg):
    classes = f.pop()
    exceptions.check_exception_class(classes)
    f.push(isinstance(f.stack[-1], classes))


@handler
def LOAD_ASSERTION_ERROR(f, arg):
    f.push(AssertionError)


# --- stack shuffling -----------------------------------------------------------------------

@handler
def POP_TOP(f, arg):
    f.pop()


@handler
def PUSH_NULL(f, arg):
    f.push(NULL)


@handler
def COPY(f, n):
    f.push(f.stack[-n])


@handler
def SWAP(f, n):
    f.stack[-1], f.stack[-n] = f.stack[-n], f.stack[-1]


# --- operators ---------------------------------------------------------------------------

@handler
def BINARY_OP(f, name):
    b, a = f.pop(), f.pop()
    op = PY_INPLACE.get(name) or PY_BINARY[name]
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)) and not isinstance(a, str):
        # a NamedTuple's own __add__ / __mul__ first: only where it has none, tuple's
        result = dunders.binary(f.interp, op, a, b) if not dunders.all_library((a, b)) \
            else dunders.NATIVE
        # read item by item: calls._item
        f.push(f.interp.sequence_op(op, a, b) if result is dunders.NATIVE else result)
        return
    if op in (operator.or_, operator.ior) and isinstance(a, dict) and isinstance(b, dict) \
            and dunders.all_library((a, b)) and _dicts_union(op, a, b):
        f.push(f.interp.dict_union(op, a, b))      # `G | {...}`: G's items read one by one
        return
    made = f.interp.deque_op(op, a, b)             # `d1 + d2`, `d * 2`: a new deque
    if made is not NotImplemented:
        f.push(made)
        return
    _guard_read_natively(f, a, b)                  # `d.keys() & s`
    # a user class's __mul__ ... interpreted
    f.push(dunders.apply(f.interp, dunders.operator_named(name, op), a, b, native=op))


def _dicts_union(op, a, b) -> bool:
    """Whether `a | b` (`a |= b`) is dict's union, not a dict subclass's
    own operator: Counter's `|` keeps the larger count of each key, and
    only the positive ones (its items run natively, dunders.apply)."""
    own = "__ior__" if op is operator.ior else "__or__"
    return getattr(type(a), own) is getattr(dict, own) and type(b).__ror__ is dict.__ror__


@handler
def COMPARE_OP(f, name):
    b, a = f.pop(), f.pop()
    _guard_read_natively(f, a, b)                  # `cfg == {"a": [1.0]}`
    f.push(dunders.apply(f.interp, PY_COMPARE[name], a, b))   # a user class's __eq__ ...


def _guard_read_natively(f, *values):
    """Python's own operators, formatting and comparisons read containers
    from outside at every level: guard them all (calls.guard_contents_deeply)."""
    if any(isinstance(v, _NATIVE_READS) for v in values):
        f.interp.guard_contents_deeply(values)


_NATIVE_READS = (list, tuple, dict, set, collections.deque, type({}.keys()),
                 type({}.values()), type({}.items()))


@handler
def IS_OP(f, invert):
    b, a = f.pop(), f.pop()
    if a is not None and b is not None:
        value_objects.note_identity(a, b)   # (a copy is not the object it copies)
    if (a is None or b is None) and isinstance(a if b is None else b,
                                               optional_numbers.OptionalNumber):
        f.push(optional_numbers.is_none(a if b is None else b, negate=bool(invert)))
        return
    if chosen_values.holds_choice((a, b)):     # `status is None`: from a table of the objects
        f.push(chosen_values.compare(operator.is_not if invert else operator.is_, a, b))
        return
    if type(b) is bool and _is_python_bool(a) or type(a) is bool and _is_python_bool(b):
        # a Python bool is one of the two singletons: `v is True` is v itself,
        # `v is False` is `not v` (so a `match` on it, `case True:` then `case
        # False:`, tests v and its negation: control.decided_by_guards)
        v, const = (a, b) if type(b) is bool else (b, a)
        f.push(v if const != bool(invert) else dunders.negation(f.interp, v))
        return
    if type(b) is bool and _held_bool(a) or type(a) is bool and _held_bool(b):
        v, const = (a, b) if type(b) is bool else (b, a)
        f.push(_held_bool_is(f.interp, v, const) != bool(invert))
        return
    if a is not b and isinstance(a, Array) and isinstance(b, Array) and CHOSEN in (
            a.frozen, b.frozen):
        # (inside a loop over a long list, the loop is unrolled instead: list_loops)
        raise SideEffectError(
            "whether an array chosen at run time among several (`xs[i]` of a list with a "
            "runtime i, max() with runtime keys, a long loop's item) is another array (`is`) "
            "is known only at run time", hint="compare positions instead (`i == 7`)")
    if a is not b and (_chosen_copy(f, a, b) or _chosen_copy(f, b, a)):
        # (inside a loop over a long list, the loop is unrolled instead: list_loops)
        raise SideEffectError(
            "whether an object chosen at run time among a list's items (`objs[i]` with a "
            "runtime i, a long loop's item) is another object (`is`) is known only at run "
            "time: compiled code chooses a copy", hint="compare positions instead (`i == 7`)")
    f.push((a is b) != bool(invert))


def _held_bool(v) -> bool:
    """A NumPy bool or number, or a Python int or float, that is a Python
    bool on some runtime paths (held_ints.py; beside a Python int or float
    the slot holds, by its second bool)."""
    return isinstance(v, Array) and v.held_int is not None and not v.shape and (
        held_ints.third_type_bool(v) is not None or
        v.dtype.kind in "biuf" and held_ints.python_type(v) is bool)


def _held_bool_is(interp, v: Array, const: bool):
    """`v is const` of a held bool: where v is the Python bool and equals it."""
    equal = emit("equal", v, int(const)) if v.dtype.kind in "iuf" else \
        v if const else dunders.negation(interp, v)
    is_bool = held_ints.third_type_bool(v)
    is_bool = Array(v.held_int) if is_bool is None else is_bool
    return builtins_impl.to_python_scalar(emit("logical_and", is_bool, equal), np.bool_)


def _chosen_copy(f, v, other) -> bool:
    """Whether v is a container or object list_loops picked at a runtime
    position (a copy) and `other` something it could be at run time (not
    None or a number: those it never is)."""
    # (v None: `.get` of an id that is not there is None too)
    return v is not None and f.interp.ctx.chosen_containers.get(id(v)) is v and not (
        other is None or isinstance(other, (bool, int, float, complex, str)))


def _is_python_bool(v) -> bool:
    """A runtime Python bool (`not x`, bool(x)): a weak bool Array."""
    return isinstance(v, Array) and v.weak and v.dtype == np.bool_ and not v.shape


@handler
def CONTAINS_OP(f, invert):
    b, a = f.pop(), f.pop()
    if chosen_values.holds_choice((a, b)):
        f.push(_chosen_in(f.interp, a, b, invert))
        return
    a = known_integer(a)        # (a constant: `int(i) in WORDS` for i of np.array([2, 0]))
    if f.interp.user_dunder(b, "__contains__") is None and (
            isinstance(b, Array) or isinstance(a, Array) or _holds_runtime_items(b, a)):
        found = _runtime_contains(f.interp, a, b)
    else:       # (a user __contains__ interpreted, even for a runtime item)
        found = f.interp.contains(a, b)
    f.push(_truth_of_in(f.interp, found, invert))


def _chosen_in(interp, item, container, invert):
    """`item in container` where item is a choice among static objects (a
    search of a container known while compiling: from a table of them)."""
    if isinstance(container, chosen_values.ChosenValue) or \
            not chosen_values.comparable(container) or isinstance(container, Array):
        chosen = item if isinstance(item, chosen_values.ChosenValue) else container
        raise chosen_values.refusal("`in`" if chosen is item else "`in` it", chosen)
    interp.guard_contents_deeply((container,))
    return _truth_of_in(interp, chosen_values.contained_in(item, container), invert)


def _truth_of_in(interp, found, invert):
    """What `in` (`not in`) gives: bool() of what the search returned (a user
    __contains__ may return anything), a runtime Python bool where it is known
    only at run time."""
    if invert:
        return dunders.negation(interp, found)
    truth = interp.truth_value(found)
    if not isinstance(truth, Array):
        return bool(truth)
    if truth.size != 1:     # (a user __contains__ returning `self.a == v`: NumPy's ValueError)
        raise control.ambiguous_truth(truth)
    return _python_bool(truth)


_NUMBERS = (bool, int, float, complex, np.generic)


def _runtime_contains(interp, item, container) -> Array:
    """`item in container` on runtime values, as a runtime Python bool:
    an array holds v when any element equals it (ndarray.__contains__); a
    list or tuple of numbers holds a runtime number equal to one of them, and
    a range one on its grid."""
    if isinstance(container, Array):
        hits = container == item        # (== handles a Python int out of the dtype's range)
        return _python_bool(emit("any", hits, axes=tuple(range(hits.ndim)), keepdims=False))
    if isinstance(container, range) and isinstance(item, Array) and item.shape == () and \
            item.dtype.kind in "biuf":
        return _in_range(item, container)
    if isinstance(container, (bytes, bytearray)) and _runtime_int(item):
        return _in_bytes(interp, item, container)
    if isinstance(container, (dict, set, frozenset)):
        keys = tuple(container)
        if _runtime_number(item) and all(isinstance(k, _NUMBERS) for k in keys):
            # For numbers, hash agrees with ==: a set (a dict's keys) of them
            # holds a number exactly when a tuple of them does.
            interp.guard_contents_deeply((container,))
            return dunders.runtime_search(interp, "contains", item, keys) if keys else False
        kind = "dict" if isinstance(container, dict) else "set"
        raise StaticValueError(
            f"`in` a {kind} with a runtime value needs its value at compile time when the "
            f"{kind} holds more than numbers ({kind}s hash their items)",
            hint="search a tuple of the numbers instead (`v in (9, 10, 32)`), or compare "
            "with == and np.any")
    if interp.searched_by_iterating(container):     # a generator, a user __iter__
        return interp.contains(item, container)
    if not isinstance(container, (list, tuple)) or not all(
            isinstance(v, (*_NUMBERS, Array, tuple, list)) for v in container):
        raise UnsupportedError("`in` with a runtime value is supported on arrays, ranges and "
                               "lists or tuples of numbers", hint="compare with == and np.any")
    return dunders.runtime_search(interp, "contains", item, container)


def _runtime_number(item) -> bool:
    return isinstance(item, Array) and item.shape == () and item.dtype.kind in "biufc"


def _runtime_int(item) -> bool:
    return isinstance(item, Array) and item.shape == () and item.dtype.kind in "biu"


def _in_bytes(interp, item: Array, data):
    """`c in b" \\t\\n"` for a runtime integer: bytes hold small ints, so it
    is a search of those; Python raises ValueError for an int that is no
    byte, a check made when the call returns."""
    if isinstance(data, bytearray):
        interp.guard_contents(data)
    if not (item.dtype == np.uint8 or item.dtype == np.bool_):
        in_range = emit("logical_and", emit("greater_equal", item, 0), emit("less", item, 256))
        checks.require(in_range, "ValueError: byte must be in range(0, 256)",
                       raises="ValueError")
    return dunders.runtime_search(interp, "contains", item, tuple(data)) if data else False


def _in_range(item: Array, r: range):
    """`item in range(...)` for a runtime real number, as range.__contains__
    answers it: between the ends and on the step's grid (for a float, equal
    to one of the items: the same answer), without comparing each item."""
    if not r:
        return False
    # as the Python number it equals (no uint8 wrapping below start)
    item = builtins_impl.to_python_scalar(item, np.float64 if item.dtype.kind == "f" else np.int64)
    inside = (r.start <= item) & (item < r.stop) if r.step > 0 else \
        (r.stop < item) & (item <= r.start)
    if abs(r.step) != 1 or item.dtype.kind == "f":
        inside = inside & ((item - r.start) % r.step == 0)
    return _python_bool(inside)


def _holds_runtime_items(container, item) -> bool:
    """A list or tuple searched for a runtime value, or with one among its
    items (in tuples too: `(3, loss) in history`)."""
    return isinstance(container, (list, tuple)) and (
        builtins_impl.holds_array(container) or builtins_impl.holds_array(item))


def _python_bool(v: Array) -> Array:
    return builtins_impl.to_python_scalar(control.scalar_bool(v), np.bool_)


def _unary(fn):
    def run(f, arg):
        f.push(dunders.apply(f.interp, fn, f.pop()))    # a user class's __neg__ ...
    return run


for _name, _fn in [("UNARY_NEGATIVE", operator.neg), ("UNARY_POSITIVE", operator.pos),
                   ("UNARY_INVERT", operator.invert)]:
    HANDLERS[_name] = _unary(_fn)


@handler
def UNARY_NOT(f, arg):
    f.push(dunders.negation(f.interp, f.pop()))


@handler
def BINARY_SUBSCR(f, arg):
    key = f.pop()
    obj = f.pop()
    if isinstance(obj, chosen_values.ChosenValue) and \
            not isinstance(key, chosen_values.ChosenValue):
        item = chosen_values.subscript(obj, key)      # `status[0]`: each object's
        if item is not None:
            f.push(item)
            return
    if isinstance(key, chosen_values.ChosenValue):
        item = _item_by_choice(f, obj, key)     # `SQUASH[name]`, `TURN[heading]`: each key's item
        if item is not None:
            f.push(item)
            return
    _refuse_chosen_subscript(obj, key)
    f.push(f.interp.subscript(obj, key))


def _item_by_choice(f, container, key):
    """container[key] of a static dict, list, tuple or str (no arrays in
    it) at a key chosen at run time: a choice among a dict's functions, or
    each key's number or static object (None where its items are neither)."""
    if type(container) not in (dict, list, tuple, str) or builtins_impl.holds_array(container):
        return None
    _guard_read_natively(f, container)
    item = chosen_functions.item_by_choice(container, key) if type(container) is dict else None
    return item if item is not None else chosen_values.looked_up(container, key)


@handler
def STORE_SUBSCR(f, arg):
    key, obj, value = f.pop(), f.pop(), f.pop()
    _refuse_chosen_subscript(obj, key)
    if isinstance(value, chosen_values.ChosenValue) and isinstance(obj, Array):
        raise chosen_values.refusal("storing it into an array", value)
    f.interp.setitem(obj, key, value)


@handler
def DELETE_SUBSCR(f, arg):
    key, obj = f.pop(), f.pop()
    f.interp.delitem(obj, key)


# --- building containers -----------------------------------------------------------------

@handler
def BUILD_TUPLE(f, n):
    f.push(tuple(f.popn(n)))


@handler
def BUILD_LIST(f, n):
    f.push(f.interp.fresh(list(f.popn(n))))


@handler
def BUILD_SET(f, n):
    items = f.popn(n)
    refuse_runtime_hash(items, "a set item")
    f.push(f.interp.fresh(set(items)))


@handler
def BUILD_MAP(f, n):
    items = f.popn(2 * n)
    refuse_runtime_hash(items[::2], "a dict key")
    f.push(f.interp.fresh(dict(zip(items[::2], items[1::2]))))


@handler
def BUILD_CONST_KEY_MAP(f, n):
    keys = f.pop()
    f.push(f.interp.fresh(dict(zip(keys, f.popn(n)))))


# --- `match` patterns: structural tests of the subject, made at compile time
# (a runtime array subject is matched on its kind; literal patterns compare
# with ==, which may branch at run time)

@handler
def MATCH_SEQUENCE(f, arg):
    v = f.stack[-1]
    f.push(not isinstance(v, (Array, str, bytes, bytearray))
           and isinstance(v, collections.abc.Sequence))


@handler
def MATCH_MAPPING(f, arg):
    f.push(not isinstance(f.stack[-1], Array)
           and isinstance(f.stack[-1], collections.abc.Mapping))


@handler
def GET_LEN(f, arg):
    f.push(f.interp.call(len, [f.stack[-1]], {}))


@handler
def MATCH_KEYS(f, arg):
    keys, subject = f.stack[-1], f.stack[-2]
    if all(f.interp.contains(k, subject) for k in keys):
        f.push(tuple(f.interp.getitem(subject, k) for k in keys))
    else:
        f.push(None)


# Classes whose one positional sub-pattern matches the subject itself (PEP 634).
_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)


@handler
def MATCH_CLASS(f, count):
    names = f.pop()
    cls = f.pop()
    subject = f.pop()
    if not isinstance(cls, type):
        raise UserCodeError("TypeError: called match pattern must be a class")
    if not f.interp.call(isinstance, [subject, cls], {}):
        f.push(None)
        return
    if count and cls in _SELF_MATCHING and not hasattr(cls, "__match_args__"):
        if count > 1:
            raise UserCodeError(f"TypeError: {cls.__name__}() accepts 1 positional "
                                f"sub-pattern ({count} given)")
        positional, values = (), [subject]
    else:
        match_args = getattr(cls, "__match_args__", ()) if count else ()
        if count > len(match_args):
            raise UserCodeError(f"TypeError: {cls.__name__}() accepts {len(match_args)} "
                                f"positional sub-pattern{'s' if len(match_args) != 1 else ''} "
                                f"({count} given)")
        positional, values = tuple(match_args[:count]), []
    for name in positional + tuple(names):
        if not f.interp.call(hasattr, [subject, name], {}):
            f.push(None)
            return
        values.append(f.interp.getattr(subject, name))
    f.push(tuple(values))


def _refuse_chosen_subscript(obj, key) -> None:
    """`status[0]` needs the object (a key that is a choice, `d[status]`,
    is the subscript's own: chosen_keys)."""
    if isinstance(obj, chosen_values.ChosenValue):
        raise chosen_values.refusal("indexing it", obj)
    if isinstance(key, optional_numbers.OptionalNumber):
        raise optional_numbers.refusal("using it as a key or index", key)


def _refuse_formatting_choice(v) -> None:
    """f"{status}", f"{[status]}": formatting needs the object."""
    chosen = chosen_values.first_choice((v,))
    if chosen is not None:
        raise chosen_values.refusal("formatting it into a string", chosen)
    if isinstance(v, optional_numbers.OptionalNumber):
        raise optional_numbers.refusal("formatting it into a string", v)


@handler
def BUILD_SLICE(f, n):
    f.push(slice(*f.popn(n)))


@handler
def BUILD_STRING(f, n):
    pieces = f.popn(n)
    if chosen_values.holds_choice(pieces):      # f"{status}!": each object's text
        f.push(_joined_choices(pieces))
    elif any(isinstance(p, messages.RuntimeText) for p in pieces):
        f.push(messages.runtime_text([q for p in pieces for q in (
            p.message.parts if isinstance(p, messages.RuntimeText) else (p,))]))
    else:
        f.push("".join(pieces))


def _joined_choices(pieces):
    """An f-string's pieces, some of them choices: the choice among each
    combination's text (with a runtime value's text to print among them,
    refused: a choice is no part of the message print shows)."""
    chosen = chosen_values.first_choice(pieces)
    text = None if any(isinstance(p, messages.RuntimeText) for p in pieces) else \
        chosen_values.joined(pieces)
    if text is None:
        raise chosen_values.refusal("formatting it into a string", chosen)
    return text


def _formatted_choice(v, conversion: int, spec):
    """f"{status!r:>8}" of a choice (or with a choice as its spec): each
    object's text, a choice."""
    text = chosen_values.formatted(v, _CONVERSIONS.get(conversion), spec)
    if text is None:
        raise chosen_values.refusal("formatting it into a string",
                                    chosen_values.first_choice((v, spec)))
    return text


@handler
def FORMAT_VALUE(f, flags):
    spec = f.pop() if flags & 0x04 else ""
    v = f.pop()
    if chosen_values.holds_choice((v, spec)):
        f.push(_formatted_choice(v, flags & 0x03, spec))
        return
    _refuse_formatting_choice(v)
    if isinstance(v, _Converted):          # 3.13: CONVERT_VALUE of a runtime value
        v, flags = v.value, flags | v.which
    runtime = isinstance(v, (Array, messages.RuntimeText)) or builtins_impl.holds_array(v)
    if flags & 0x03 and not runtime:
        # f"{obj!r}": converted first, as 3.13's CONVERT_VALUE does (a user
        # __repr__ that formats runtime values gives a RuntimeText to print)
        _guard_read_natively(f, v)
        v, flags = _text(f, _CONVERSIONS[flags & 0x03], v), flags & ~0x03
    if isinstance(v, (Array, messages.RuntimeText)) and f.format_runtime is not None:
        f.push(f.format_runtime(v, flags & 0x03, spec))     # a runtime raise's message
        return
    if isinstance(v, (Array, messages.RuntimeText)) or builtins_impl.holds_array(v):
        printed = builtins_impl.printed_text(f.interp, v, _CONVERSION_NAMES.get(flags & 0x03),
                                             spec)
        if printed is not None:
            f.push(printed)
            return
        if isinstance(v, Array) and type(spec) is str and f.format_runtime is None \
                and not _in_raising_block(f):
            # (f"{len(status)}": a runtime int of a few values, a choice among their texts;
            # not in a raise's message, which a choice cannot be: its refusal says more)
            text = chosen_values.formatted_int(v, _CONVERSIONS.get(flags & 0x03), spec)
            if text is not None:
                f.push(text)
                return
        _refuse_raise_message(f)
        raise StaticValueError("formatting a runtime value into a string needs its value "
                               "at compile time",
                               hint="use print(x) to print it at run time; the message of an "
                                    "`assert`, or of a `raise` that is all a runtime `if` holds, "
                                    "may show runtime values, and what arithmetic, comparisons "
                                    "and NumPy functions compute from them, where that needs no "
                                    "runtime check (a Python float's `/` checks for zero, `x[i]` "
                                    "its index), changes nothing (`a.sort()`) and has a shape "
                                    "known at compile time (not np.flatnonzero's): compute "
                                    "others on a line before it (`d = a / b`, then f\"{d}\")")
    _guard_read_natively(f, v)                     # f"{rows}"
    text = _text(f, format, v, spec)
    if isinstance(text, messages.RuntimeText) and f.format_runtime is not None:
        text = f.format_runtime(text, 0, "")        # f"{obj}" of a runtime raise's message
    f.push(text)


_CONVERSION_NAMES = {1: "s", 2: "r", 3: "a"}


def _text(f, convert, v, *spec):
    """str(v), repr(v) or format(v, spec); a user class's __str__,
    __repr__ or __format__ interpreted."""
    result = dunders.text(f.interp, convert, v, *spec)
    return convert(v, *spec) if result is dunders.NATIVE else result


# f"{v!s}", f"{v!r}", f"{v!a}": FORMAT_VALUE's low flag bits, CONVERT_VALUE's argument.
_CONVERSIONS = {1: str, 2: repr, 3: ascii}


class _Converted:
    """A runtime value and the conversion 3.13's CONVERT_VALUE asked for,
    handed to FORMAT_VALUE as 3.11/3.12's flags would: a runtime message
    value is converted on the host (messages.py), with its format."""
    __slots__ = ("value", "which")

    def __init__(self, value, which: int):
        self.value, self.which = value, which


@handler
def CONVERT_VALUE(f, which):
    """3.13's `!s`/`!r`/`!a` before FORMAT_VALUE."""
    v = f.pop()
    if isinstance(v, chosen_values.ChosenValue):
        f.push(_formatted_choice(v, which, ""))
        return
    _refuse_formatting_choice(v)
    if isinstance(v, messages.RuntimeText):     # print(f"{f'{x}'!s}"): itself; !r needs its text
        if which != 1:
            messages.refuse_use()
        f.push(v)
        return
    f.push(_Converted(v, which) if isinstance(v, Array) else _text(f, _CONVERSIONS[which], v))


@handler
def LIST_APPEND(f, i):
    v = f.pop()
    if stacking.try_record(f.interp, f.stack[-i], v):    # a counted While's buffers hold it
        return
    _check_comprehension_add(f, f.stack[-i])
    f.stack[-i].append(v)


@handler
def SET_ADD(f, i):
    v = f.pop()
    refuse_runtime_hash((v,), "a set item")
    _check_comprehension_add(f, f.stack[-i])
    f.stack[-i].add(v)


@handler
def MAP_ADD(f, i):
    v, k = f.pop(), f.pop()
    refuse_runtime_hash((k,), "a dict key")
    _check_comprehension_add(f, f.stack[-i])
    f.stack[-i][k] = v


def _check_comprehension_add(f, container):
    """A comprehension adds its items from inside a runtime branch when its
    `if` tests a runtime value, from inside a runtime loop when it iterates
    over range() with a runtime bound (or a runtime while's generator): how
    many items there are would be data."""
    try:
        f.interp.check_mutation(container, "a comprehension's result")
    except SideEffectError:
        if builder.ctx().runtime_loops[-1:] == [True]:
            raise SideEffectError(
                f"this comprehension loops a number of times known only at run time (range() "
                f"of a runtime bound, or a user iterator whose __next__ raises StopIteration "
                f"under a runtime condition), so the length of the {type(container).__name__} "
                "it makes would depend on the data",
                hint="give range() a static bound N and mask what is past the runtime one: "
                     "v = np.arange(N) * 64, keep = np.arange(N) < n") from None
        raise SideEffectError(
            f"this comprehension's `if` tests a runtime value, so the length of the "
            f"{type(container).__name__} it makes would depend on the data",
            hint="compute with masks instead: np.where(x > 0, x, 0), np.sum(x > 0), "
                 "np.count_nonzero(x > 0)") from None


@handler
def LIST_EXTEND(f, i):
    v = f.pop()
    f.stack[-i].extend(f.interp.static_items(v))


@handler
def SET_UPDATE(f, i):
    items = f.interp.static_items(f.pop())
    refuse_runtime_hash(items, "a set item")
    f.stack[-i].update(items)


@handler
def DICT_UPDATE(f, i):
    v = f.pop()
    if isinstance(v, dict):     # `{**CFG}`, `f(**CFG)`: item by item (calls._item)
        v = dict(f.interp.dict_items(v))
    f.stack[-i].update(v)


HANDLERS["DICT_MERGE"] = DICT_UPDATE


@handler
def LIST_TO_TUPLE(f, arg):
    f.push(tuple(f.pop()))


@handler
def UNPACK_SEQUENCE(f, n):
    items = f.interp.static_items(f.pop())
    if len(items) != n:
        raise UserCodeError(f"ValueError: expected {n} values to unpack, got {len(items)}")
    f.stack.extend(reversed(items))


@handler
def UNPACK_EX(f, arg):
    before, after = arg & 0xFF, arg >> 8
    items = f.interp.static_items(f.pop())
    mid = items[before:len(items) - after]
    f.stack.extend(reversed(items[len(items) - after:]))
    f.push(f.interp.fresh(list(mid)))
    f.stack.extend(reversed(items[:before]))


# --- calls and functions ---------------------------------------------------------------------

@handler
def CALL(f, arg):
    argc, kwnames = arg
    args = f.popn(argc)
    second, first = f.pop(), f.pop()
    if first is NULL:
        fn = second
    else:
        fn, args = first, [second] + args
    kwargs = {}
    if kwnames:
        kwargs = dict(zip(kwnames, args[len(args) - len(kwnames):]))
        args = args[:len(args) - len(kwnames)]
    f.push(_noted(f.interp.call(fn, args, kwargs)))


def _noted(result):
    """A call's result, noted where it is a Python iterator just made."""
    iterators.note_made_native(result)
    return result


@handler
def CALL_KW(f, argc):
    """3.13: the keyword names are a tuple on the stack, not an argument."""
    kwnames = f.pop()
    CALL(f, (argc, kwnames))


@handler
def CALL_FUNCTION_EX(f, flags):
    kwargs = f.pop() if flags & 1 else {}
    args = f.interp.static_items(f.pop())
    fn = f.pop()
    if f.stack and f.stack[-1] is NULL:
        f.pop()
    f.push(_noted(f.interp.call(fn, list(args), dict(kwargs))))


@handler
def MAKE_FUNCTION(f, flags):
    code = f.pop()
    closure = tuple(f.pop()) if flags & 0x08 else None
    annotations = _annotations(f.pop()) if flags & 0x04 else None
    kwdefaults = f.pop() if flags & 0x02 else None
    defaults = tuple(f.pop()) if flags & 0x01 else None
    f.push(_function(f.interp, code, f.globals, defaults, kwdefaults, closure, annotations))


def _annotations(value) -> dict:
    """A function's annotations as MAKE_FUNCTION gets them: a tuple of names
    and values in turn (3.10+), or a dict."""
    if isinstance(value, dict):
        return dict(value)
    items = tuple(value)
    return dict(zip(items[::2], items[1::2]))


def _function(interp, code, globals_, defaults, kwdefaults, closure, annotations=None):
    """A function made by the compiled code, and its __dict__ (which
    functools.wraps fills in): objects of this trace.  Its annotations are
    kept (functools.singledispatch's register reads them)."""
    if closure is None and code.co_freevars:
        # 3.13 sets the closure after making the function (SET_FUNCTION_ATTRIBUTE).
        closure = tuple(types.CellType() for _ in code.co_freevars)
    fn = types.FunctionType(code, globals_, code.co_name, defaults, closure)
    fn.__kwdefaults__ = kwdefaults
    fn.__qualname__ = code.co_qualname
    if annotations:
        fn.__annotations__ = annotations
    interp.fresh(fn.__dict__)
    return interp.fresh(fn)


@handler
def SET_FUNCTION_ATTRIBUTE(f, flag):
    """3.13: MAKE_FUNCTION makes a bare function; each of its defaults,
    keyword defaults, annotations and closure is set by one of these, with
    MAKE_FUNCTION's flag bits.  The closure is read-only on a function
    object, so the function is made again."""
    fn, value = f.pop(), f.pop()
    defaults, kwdefaults, closure = fn.__defaults__, fn.__kwdefaults__, fn.__closure__
    annotations = fn.__annotations__
    if flag == 0x01:
        defaults = tuple(value)
    elif flag == 0x02:
        kwdefaults = value
    elif flag == 0x04:
        annotations = _annotations(value)
    elif flag == 0x08:
        closure = tuple(value)
    f.push(_function(f.interp, fn.__code__, fn.__globals__, defaults, kwdefaults, closure,
                     annotations))


@handler
def IMPORT_NAME(f, name):
    fromlist, level = f.pop(), f.pop()
    f.push(__import__(name, f.globals, None, fromlist, level))


@handler
def IMPORT_FROM(f, name):
    module = f.stack[-1]
    if isinstance(module, types.ModuleType):
        f.interp.note_module_read(module, name)
    try:
        value = getattr(module, name)
        f.interp._guard_attr(module, name, value)
        f.push(value)
    except AttributeError:
        f.interp._guard_absent_attr(module, name)
        raise UserCodeError(f"ImportError: cannot import name '{name}' from "
                            f"'{getattr(module, '__name__', module)}'") from None


@handler
def GET_ITER(f, arg):
    v = f.pop()
    if isinstance(v, Array) and v.ndim > 0:
        # `for x in xs`: a loop over the row indices (iterators.RangeIter).
        # (iter(xs) stays a SeqIter: a Python iterator others may advance.)
        f.push(RangeIter(0, v.shape[0], 1, rows=v))
    elif isinstance(v, FlatIter):
        # `for x in a.flat`: a loop over the flat positions, each element
        # read when the loop gets there
        f.push(RangeIter(v.looped(), v.base.size, 1, rows=v))
    else:
        f.push(f.interp.get_iter(v, for_loop=True))


@handler
def RETURN_GENERATOR(f, arg):
    f.push(None)


@handler
def YIELD_VALUE(f, arg):
    if f.stepping:
        exceptions.suspend(f, f.pop())
    v = f.pop()
    f.push(None)                # (the value sent back: nothing sends)
    # The generator runs to its end before its consumer reads an item: its
    # items are a list it appends to, which a counted While's buffers may
    # hold (`sum(x[i] ** 2 for i in range(n))`); or, fed straight to sum()
    # under a runtime loop, their total (`sum(i * i for i in range(n))`).
    runtime = builder.ctx().runtime_depth > f.entry_depth
    if f.fold is not None and f.fold.active:
        generator_folds.folded(f, v, runtime)
        return
    if stacking.try_record(f.interp, f.yields, v):
        generator_folds.note_listed(f)
        return
    if generator_folds.folded(f, v, runtime):
        return
    if runtime:
        raise UnsupportedError(_runtime_yield_message(f), hint=_runtime_yield_hint())
    f.yields.append(v)
    generator_folds.note_listed(f)


def _runtime_yield_message(f) -> str:
    """A generator expression's `yield` is not the user's to name: its
    `for` or `if` is."""
    if f.func.__code__.co_name == "<genexpr>":
        what = "a generator expression whose `for` or `if` depends on runtime values"
    else:
        what = "`yield` under a runtime condition or loop"
    if f.fold is not None:      # (fed to sum(), but items were listed before: generator_folds)
        return (f"{what}, after items yielded outside it, is not supported: sum() and "
                "math.prod() of a generator add up its items as it runs only from its first "
                "yield on")
    return (f"{what} is supported only where it goes straight to sum() or math.prod(), as "
            "their one argument: how many items it gives would be known only at run time")


def _runtime_yield_hint() -> str:
    """A runtime loop (range() of a runtime bound) or a runtime `if` (a
    filter) around the yield: what to write instead differs."""
    if builder.ctx().runtime_loops[-1:] == [True]:
        return ("write the loop, adding up as it goes (`acc = 0`, then `for i in range(n): "
                "acc += x[i]`: one runtime loop), or give range() a static bound and mask what "
                "is past the runtime one (`np.where(np.arange(len(x)) < n, x, 0).sum()`)")
    return ("yield on every path, choosing the value with np.where (`sum(np.where(c, r, 0) for "
            "r in x)`), or filter with a boolean mask (`x[mask].sum(axis=0)`)")


@handler
def GET_YIELD_FROM_ITER(f, arg):
    f.push(f.interp.get_iter(f.pop()))


@handler
def YIELD_FROM(f, arg):
    """`x = yield from it` (SEND, then a jump past the loop that re-sends):
    the generator yields all of its items at once, as it runs to its end
    when called, and x is what it returned."""
    f.pop()                                     # the value sent: None, as nothing sends
    it = f.pop()
    if f.stepping:
        raise UnsupportedError("`yield from` in a @contextlib.contextmanager generator is not "
                               "supported in compiled code", hint="yield once, with `yield`")
    if builder.ctx().runtime_depth > f.entry_depth:
        raise UnsupportedError("`yield from` under a runtime condition or loop is not supported")
    value = returning(caught_up(it)) if isinstance(it, SeqIter) else None
    for v in f.interp.static_items(it):
        if not generator_folds.folded(f, v, runtime=False):
            f.yields.append(v)
            generator_folds.note_listed(f)
    f.push(value)


# --- terminators -------------------------------------------------------------------------

@terminator
def JUMP(f, target, block, stops):
    return Exit((target,))


def _truth(f, v, kind):
    """Static truth of a branch condition, or an Array for a runtime one."""
    if isinstance(v, chosen_values.ChosenValue) and kind in ("none", "not_none"):
        return chosen_values.compare(operator.is_ if kind == "none" else operator.is_not, v, None)
    if isinstance(v, optional_numbers.OptionalNumber):
        if kind not in ("none", "not_none"):
            return optional_numbers.truth(v)
        return optional_numbers.is_none(v, negate=kind == "not_none")
    if kind == "none":
        return v is None
    if kind == "not_none":
        return v is not None
    if isinstance(v, Array):
        if v.size != 1:
            raise control.ambiguous_truth(v)
        return v if kind == "true" else control.scalar_bool(v)
    if isinstance(v, (RangeIter, SeqIter)):
        return True
    v = f.interp.truth_value(v)
    if isinstance(v, Array):
        return _truth(f, v, kind)
    return bool(v)


@terminator
def BRANCH(f, arg, block, stops):
    kind, target = arg
    v = f.pop()
    cond = _truth(f, v, kind)
    if not isinstance(cond, Array):
        jump = cond if kind in ("true", "none", "not_none") else not cond
        return Exit((target if jump else block.next,))
    pred = control.scalar_bool(cond)
    # (`if v is None:` of a choice among static objects is a runtime test too)
    jumps = kind in ("true", "none", "not_none")
    if_true, if_false = (target, block.next) if jumps else (block.next, target)
    decided = control.decided_by_guards(pred)
    if decided is not None:     # (`elif not c:` in the arm where c is false)
        return Exit((if_true if decided else if_false,))
    # (`if b is None:` of an index or None: each arm sees b narrowed)
    setup_true, setup_false = narrowing.narrowing_setups(v, kind)
    for raising, other, holds, setup in (
            (if_true, if_false, lambda: emit("logical_not", pred), setup_false),
            (if_false, if_true, lambda: pred, setup_true)):
        raised = raised_by(f, raising)
        if raised is not None:
            name, message, loc = raised
            checks.require(holds(), message, raises=name, loc=loc, hint=checks.RUNTIME_RAISE_HINT)
            if setup is not None:
                setup(f)
            return Exit((other,))
    return control.runtime_branch(f, block.index, pred, if_true, if_false, stops,
                                  setup_true=setup_true, setup_false=setup_false)


# What a block that only raises may do: load the exception class and a
# message, call the class, raise.  The message is a constant or an f-string,
# computed now: static values are formatted into it, runtime ones are
# carried to the host and formatted there (messages.py).
_RAISE_BLOCK_OPS = {"LOAD_ASSERTION_ERROR", "LOAD_GLOBAL", "PUSH_NULL", "PRECALL", "CALL",
                    "RAISE_VARARGS"}
_MESSAGE_OPS = {"LOAD_CONST", "LOAD_FAST", "LOAD_DEREF", "LOAD_GLOBAL", "LOAD_ATTR",
                "FORMAT_VALUE", "CONVERT_VALUE", "BUILD_STRING",
                *"PUSH_NULL PRECALL CALL KW_NAMES UNARY_NEGATIVE UNARY_POSITIVE UNARY_INVERT "
                 "BINARY_OP COMPARE_OP BINARY_SUBSCR".split()}
# A runtime check's message is computed on every path, where Python computes
# it only when the check fails: its computations must be harmless there.
# These run on static operands, or on arrays and numbers, and calls only of
# these builtins: len (of an array: static), str and repr of static values,
# the others of arrays and numbers.
_OPERANDS = {"UNARY_NEGATIVE": 1, "UNARY_POSITIVE": 1, "UNARY_INVERT": 1, "BINARY_OP": 2,
             "COMPARE_OP": 2, "BINARY_SUBSCR": 2}
_MESSAGE_CALLS = {len: "any", abs: "numbers", min: "numbers", max: "numbers", round: "numbers",
                  int: "numbers", float: "numbers", str: "static", repr: "static"}
# And NumPy's functions and array methods that tpucc implements (ops.registry),
# of arrays, numbers and plain static data (`f"{np.sum(seq >= 4)}"`,
# `f"{(d > tol).argmax()}"`, `f"{np.round(x, 2)}"`): they compute a value.
# Not those that write into an array (on every path, where Python writes only
# when the check fails): `out=`, a ufunc's output argument, these.
_WRITING_FUNCTIONS = frozenset(("copyto", "fill_diagonal", "place", "put", "put_along_axis",
                                "putmask", "at"))
_WRITING_METHODS = frozenset(("fill", "partition", "put", "sort"))


def raised_by(f, index: int) -> tuple | None:
    """(exception class name, message: a str or messages.Message, the raise's
    location) when block `index` leads straight to an `assert`'s failure or
    `raise SomeError(message)`, of a built-in exception the error can be
    rebuilt from (errors.raisable_class); else None."""
    instrs = f.fc.blocks[_past_passages(f.fc, index)].instrs
    if not instrs or instrs[-1].op != "RAISE_VARARGS" or instrs[-1].arg != 1 or \
            any(i.op not in _RAISE_BLOCK_OPS | _MESSAGE_OPS for i in instrs):
        return None
    if f.current is not None and instrs[-1].handler != f.current.handler:
        return None     # a `try` in the arm handles it: the arm runs as code
    first = instrs[0]
    if first.op == "LOAD_ASSERTION_ERROR":
        exc = AssertionError
    elif first.op == "LOAD_GLOBAL":
        exc = f.interp.read_global(f.func, first.arg[1])
    else:
        return None
    name = raisable_name(exc)
    if name is None:
        return None
    body = instrs[1:-1]
    if body and body[-1].op == "CALL":          # the exception's own call
        body = body[:-1]
    if body and body[-1].op == "PRECALL":
        body = body[:-1]
    message = _static_message(f, body)
    if message is None:
        return None
    # A raise in library code (NormalDist's check of sigma) is placed, as
    # its other errors are, at the program's line that called it (None:
    # checks.require's current line).
    return name, message if message != () else exc.__name__, instrs[-1].loc if f.placed else None


# What a block may do that only passes on to the next one.
_PASSAGE_OPS = {"POP_TOP", "NOP", "JUMP"}


def _past_passages(fc, index: int) -> int:
    """The block reached from block `index` past blocks that only drop stack
    slots or jump: a chained comparison's failure paths (`assert 0 <= a < n`
    fails through `POP_TOP` when `0 <= a` is false, and through a `JUMP` when
    `a < n` is) reach its raise that way."""
    seen = set()
    while index not in seen and index is not None:
        seen.add(index)
        block = fc.blocks[index]
        successors = block.successors()
        if not block.instrs or len(successors) != 1 or \
                any(i.op not in _PASSAGE_OPS for i in block.instrs):
            return index
        index = successors[0]
    return index


def _static_message(f, instrs):
    """The message those instructions compute, run on the frame's stack as
    usual: () for none, None if it is not one static number or string; a
    messages.Message if runtime values are formatted into it.  It is
    computed on every path, where Python computes it only when the check
    fails: its ops run in a region of their own, kept only if those on
    runtime values added no runtime check (`x[i]` would check its index, a
    Python float's `a / b` its divisor: a check there would fire where
    Python never computes the message)."""
    depth = len(f.stack)
    fields = messages.Fields()
    f.format_runtime = fields.format
    c = builder.ctx()
    checks_before = len(c.checks)
    try:
        with control.journaled_region(runtime=False) as rec:
            computed = _run_message_ops(f, instrs)
            if not computed:
                finish_journal(rec["journal"])
                finish_items(rec["items"])
    except (TpuccError, ArithmeticError):
        # A runtime value used otherwise (a runtime format spec), or a static
        # `n // 0`, which Python only meets where the check fails: the raise
        # then runs as code on that path.  (journaled_region undid its changes)
        computed = False
    finally:
        f.format_runtime = None
        values = f.stack[depth:]
        del f.stack[depth:]
    if not computed:
        del c.checks[checks_before:]
        return None
    c.region.ops.extend(rec["builder"].ops)
    for arr, before in rec["journal"].items():
        journal_before(arr, before)
    items_before(rec["items"])
    if not values:
        return ()
    if len(values) > 1 or not isinstance(values[0], (str, int, float)):
        return None
    if isinstance(values[0], messages.RuntimeText):     # "bad " + repr(obj)
        return fields.message(fields.format(values[0], 0, ""))
    return fields.message(str(values[0]))


def _run_message_ops(f, instrs) -> bool:
    """Runs a message's instructions; whether each was one it may run."""
    c = builder.ctx()
    for i in instrs:
        harmless = _harmless(f, i)
        if not harmless:
            return False
        checks_before = len(c.checks)
        HANDLERS[i.op](f, i.arg)
        if harmless is _UNLESS_CHECKED and len(c.checks) > checks_before:
            return False
    return True


# _harmless's answer for an op on runtime values: harmless unless it adds a
# runtime check.
_UNLESS_CHECKED = "unless checked"


def _harmless(f, i):
    """Whether message instruction `i` may run on every path, not only on
    the failing one (_OPERANDS, _MESSAGE_CALLS, NumPy's functions): True,
    False, or _UNLESS_CHECKED.  Arithmetic, comparisons, indexing and NumPy
    functions of arrays and numbers may, unless they check something at run
    time (`f"drift {E - E0:.4f}"`, but not a runtime index); of other
    runtime values (an object's __add__ is the user's code), not."""
    runtime = lambda v: isinstance(v, Array) or builtins_impl.holds_array(v)  # noqa: E731
    if i.op in _OPERANDS:
        operands = f.stack[-_OPERANDS[i.op]:]
        if not any(map(runtime, operands)):
            return True
        if i.op == "BINARY_SUBSCR" and _static_item_of_sequence(*operands):
            return True
        return _UNLESS_CHECKED if all(map(_array_or_number, operands)) else False
    if i.op == "LOAD_ATTR" and i.arg[0]:
        # a method, loaded to be called: an array's, or a module's function
        # (`np.linalg.norm(R)` loads `norm` so), whose call is judged below;
        # not an object's, whose code may do anything
        return isinstance(f.stack[-1], (Array, types.ModuleType))
    if i.op in ("FORMAT_VALUE", "CONVERT_VALUE"):
        # (a user __repr__ or __format__ it interprets may divide or index
        # runtime values: `f"{obj!r}"`)
        return _UNLESS_CHECKED
    if i.op != "CALL":
        return True
    argc, kwnames = i.arg
    args = f.stack[len(f.stack) - argc:]
    first, fn = f.stack[-argc - 2], f.stack[-argc - 1]
    if first is NULL and _numpy_function(fn):
        computes = "out" not in (kwnames or ()) and all(map(_plain_operand, args)) and not (
            isinstance(fn, np.ufunc) and len(args) - len(kwnames or ()) > fn.nin)
        return _UNLESS_CHECKED if computes else False
    try:
        allowed = _MESSAGE_CALLS.get(fn) if first is NULL and not kwnames else None
    except TypeError:           # (an unhashable callable)
        return False
    if allowed == "numbers" and any(map(runtime, args)):
        return _UNLESS_CHECKED if all(map(_array_or_number, args)) else False
    if allowed == "static" and not any(map(runtime, args)):
        return _UNLESS_CHECKED      # (repr(obj): a user __repr__, interpreted, may check)
    return allowed in ("any", "numbers")


def _numpy_function(fn) -> bool:
    """Whether `fn` is a NumPy function tpucc implements for arrays (a
    ufunc too), or the bound method of an array; not np.random's, whose
    generators keep state."""
    if isinstance(fn, calls.BoundArrayMethod):
        return isinstance(fn.array, Array) and fn.name in METHODS and \
            fn.name not in _WRITING_METHODS
    try:
        implemented = fn in NUMPY or isinstance(fn, np.ufunc)
    except TypeError:           # (an unhashable callable)
        return False
    return implemented and getattr(fn, "__name__", None) not in _WRITING_FUNCTIONS and \
        not str(getattr(fn, "__module__", "")).startswith("numpy.random")


def _static_item_of_sequence(seq, index) -> bool:
    """Whether `seq[index]` picks items of a tuple or list by a static index
    (`np.linalg.slogdet(R)[1]`, a NumPy result's named tuple): nothing is
    computed at run time, and no user __getitem__ runs."""
    return isinstance(index, (int, slice)) and \
        type(seq).__getitem__ in (tuple.__getitem__, list.__getitem__)


def _array_or_number(v) -> bool:
    return isinstance(v, (Array, bool, int, float, complex, np.generic))


def _plain_operand(v) -> bool:
    """An argument a NumPy function computes from and nothing else: an
    array, a number, or static data (an axis tuple, a dtype, a string)."""
    if isinstance(v, (list, tuple)):
        return all(map(_plain_operand, v))
    return v is None or _array_or_number(v) or isinstance(v, (str, np.dtype, slice)) or \
        isinstance(v, type) and issubclass(v, (np.generic, bool, int, float, complex))


@terminator
def BRANCH_OR_POP(f, arg, block, stops):
    kind, target = arg
    v = f.stack[-1]
    cond = _truth(f, v, "true")
    pop = lambda fr: fr.pop()  # noqa: E731
    if not isinstance(cond, Array):
        jump = cond if kind == "true" else not cond
        if jump:
            return Exit((target,))
        f.pop()
        return Exit((block.next,))
    pred = control.scalar_bool(cond)
    if kind == "true":
        return control.runtime_branch(f, block.index, pred, target, block.next, stops,
                                      setup_false=pop)
    return control.runtime_branch(f, block.index, pred, block.next, target, stops,
                                  setup_true=pop)


@terminator
def FOR_ITER(f, exit_target, block, stops):
    it = f.stack[-1]
    if isinstance(it, SeqIter):
        it = iterators.read_again_if_changed(caught_up(it))
        if it.pos < len(it.items):
            f.stack[-1] = it.advanced()
            note_advance(f.stack[-1], builder.ctx().runtime_depth)
            f.push(it.items[it.pos])
            return Exit((block.next,))
        ended(it)
        f.pop()
        return Exit((exit_target,))
    if isinstance(it, NativeSteps):
        item = it.step()
        if item is iterators.END:
            f.pop()
            return Exit((exit_target,))
        f.push(item)
        return Exit((block.next,))
    if not isinstance(it, RangeIter):
        return _user_next(f, it, exit_target, block, stops)
    if it.is_static():
        if it.remaining() > 0:
            f.stack[-1] = it.advanced()
            f.push(it.item())
            return Exit((block.next,))
        f.pop()
        return Exit((exit_target,))
    if iterators.is_endless_count(it):
        # itertools.count() in a While: another item always (a runtime test
        # would add a path past the loop, returning None, that never runs)
        f.stack[-1] = it.advanced()
        f.push(it.item())
        return Exit((block.next,))
    more = it.pos < it.stop if it.step > 0 else it.pos > it.stop

    def advance(fr):
        fr.stack[-1] = it.advanced()
        fr.push(it.item())
    return control.runtime_branch(f, block.index, control.scalar_bool(more), block.next,
                                  exit_target, stops, setup_true=advance,
                                  setup_false=lambda fr: fr.pop(),
                                  note="loop: whether a range with a runtime bound has "
                                       "another item")


def _user_next(f, it, exit_target, block, stops) -> Exit:
    """A step of a loop over a user class's iterator (interp.get_iter): its
    __next__ interpreted, which ends the loop where it raises StopIteration.
    The loop is unrolled as a `while` is, one step at a time; where the
    StopIteration is raised under a runtime condition, the loop leaves on
    that at run time (a While once it cannot be unrolled), as a loop over a
    range with a runtime bound does."""
    item = f.interp.next_item_or_runtime_end(it, f.interp.user_dunder(it, "__next__"))
    if item is MISSING:
        f.pop()
        return Exit((exit_target,))
    if isinstance(item, iterators.RuntimeEnd):
        return control.runtime_branch(f, block.index, emit("logical_not", item.stopped),
                                      block.next, exit_target, stops,
                                      setup_true=lambda fr: fr.push(item.item),
                                      setup_false=lambda fr: fr.pop(),
                                      note="loop: whether a user iterator's __next__ gave "
                                           "another item")
    f.push(item)
    return Exit((block.next,))


@terminator
def RETURN_VALUE(f, arg, block, stops):
    f.interp.last_return_loc = builder.current_loc()    # for messages about returned values
    f.locals["<return>"] = f.pop()
    f.stack.clear()
    return Exit((RETURN,), None, {RETURN: 0})


def _runtime_raise_refusal(f, index: int, name: str, exc=None) -> UnsupportedError:
    clause = exceptions.catching_clause(f, exc) if exc is not None else None
    if exc is not None and exceptions.ends_iteration(f, exc):
        # (raised by a function __next__ calls, or inside a `try` of it:
        # exceptions.stops_iteration_at_run_time takes only its own raise)
        hint = ("a loop over this iterator ends at run time only where __next__ itself "
                "raises StopIteration, outside any `try`: raise it there (`if self.i >= "
                "self.n: raise StopIteration`), or write the loop as a `while` on that test "
                "(`while a[pos] != 0: v = a[pos]; pos += 1`)")
    elif clause is not None:
        hint = (f"the `except` clause at line {clause.line} would catch it, past the runtime "
                "`if` or loop the raise is in: leave loops with a flag and `break` instead "
                "(`found = True; break`, then `if found: break` in the loop around), or put "
                "the loops in a function and `return` from it")
    elif raised_by(f, index) is not None:
        # A raise the path only reaches after a loop left by a runtime
        # `return`/`break`: no `if` of the user's says when it fires.
        hint = ("only a raise under an `if` on runtime values becomes a check; after a loop "
                "that may end early, break out of it and test the condition again: "
                "`if not done: raise ...`")
    else:
        hint = ("`assert cond, \"message\"` and `raise ValueError(\"message\")` (a built-in "
                "exception, or the program's own subclass of one at module level without its "
                "own __init__, __new__ or __str__; a message of constants, or an f-string of "
                "variables) compile to "
                "a check made when the call returns (E910) when the raise is all the `if` "
                "holds: compute what the message shows before the `if`; or test static "
                "values (shapes, Python values)")
    return UnsupportedError(f"raising {name} under a runtime condition is not supported",
                            hint=hint)


def _in_raising_block(f) -> bool:
    """Whether the block running ends in a `raise` (its message being built)."""
    if f.current_block is None:
        return False
    instrs = f.fc.blocks[f.current_block].instrs
    return bool(instrs) and instrs[-1].op == "RAISE_VARARGS"


def _refuse_raise_message(f):
    """A runtime value formatted into the message of a raise that runs under
    a runtime condition (its block is all the raise): the raise is what
    compiled code cannot do there, so that is the error."""
    if builder.ctx().runtime_depth == 0 or f.current_block is None:
        return
    instrs = f.fc.blocks[f.current_block].instrs
    if not instrs or instrs[-1].op != "RAISE_VARARGS" or instrs[0].op != "LOAD_GLOBAL" \
            or instrs[-1].handler is not None:      # (a `try` around it may catch it)
        return
    exc = f.interp.read_global(f.func, instrs[0].arg[1])
    if raisable_name(exc) is not None:
        return      # a built-in one could be a check (E910): the formatting is what fails
    name = exc.__name__ if isinstance(exc, type) else "an exception"
    raise _runtime_raise_refusal(f, f.current_block, name).with_loc(instrs[-1].loc)


@terminator
def RAISE_VARARGS(f, argc, block, stops):
    args = f.popn(argc)
    if not args:                        # a bare `raise`
        if f.interp.handled_exception is None:
            raise UserCodeError("RuntimeError: No active exception to reraise")
        raise exceptions.error_of(f.interp.handled_exception)
    exc = args[0]
    if isinstance(exc, type):
        exc = exc()
    if builder.ctx().runtime_depth > 0 and not exceptions.caught_where_raised(f, exc):
        if exceptions.stops_iteration_at_run_time(f, exc):
            return _stop_iteration(f)
        raise _runtime_raise_refusal(f, block.index, type(exc).__name__, exc)
    if not isinstance(exc, BaseException):
        raise UserCodeError("TypeError: exceptions must derive from BaseException")
    exceptions.chain(f.interp, exc, args[1:])
    raise UserCodeError(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
                        raised=exc)


def _stop_iteration(f) -> Exit:
    """A user __next__ raising StopIteration under a runtime condition: it
    returns here with its STOPPED flag set, no item (the path's `<return>`
    is a placeholder where the paths merge), and the caller's loop leaves
    where the flag is set (calls.Interpreter._item_or_end)."""
    f.locals[iterators.STOPPED] = True
    f.locals.pop("<return>", None)
    f.stack.clear()
    return Exit((RETURN,), None, {RETURN: 0})


@terminator
def RERAISE(f, arg, block, stops):
    """The end of a `finally` body or of except clauses none of which
    matched, and a bare `raise`: the exception being handled goes on."""
    raise exceptions.error_of(f.pop())
