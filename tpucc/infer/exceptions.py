"""`try`, `except`, `finally` and `with`: the program's exceptions, raised
and caught while it is compiled.

Compiled code raises nothing where the program runs.  What the program
raises on static values (the KeyError of a lookup in a static dict, its own
`raise` under a static condition, the AttributeError of getattr) happens
while tpucc interprets it, and what depends on runtime values is a check
the executable makes and the call raises when it returns (checks.py).  So:

- When an instruction raises the program's own exception (a UserCodeError
  holding the Python exception), control goes to the instruction's handler
  from CPython's exception table (frontend/code.py), with the stack CPython
  gives it.  The except clauses, the `finally` body and a context manager's
  `__exit__` then run as compile-time code like any other, and a clause
  that catches the exception continues the program there.
- tpucc's own refusals (E100 to E600) and internal errors are never caught:
  an `except Exception` cannot hide a limit of the compiler behind another
  path.  Neither is an exception raised inside a runtime `if` or loop, or
  inside a function tpucc.grad differentiates, that the `try` is around:
  eagerly it would be raised on some paths only (it stays a compile error).
- A runtime check inside a `try` whose except clause would catch it is
  refused (E100): it fires only when the call returns, past the clause.

`with` takes context managers whose __enter__ and __exit__ are Python code
(traced like any method) and @contextlib.contextmanager functions called in
the compiled code: their generator runs in steps, suspended at its yield
(GeneratorManager, SteppedExit), as contextlib's manager drives it.
"""
from __future__ import annotations

import contextlib
import os
import types

import numpy as np

from ..errors import ESCAPED_RUNTIME_REGION, TpuccError, UnsupportedError, UserCodeError
from . import builder
from .control import Exit

# tpucc's modules that do what the program's code does on Python values
# (operators, calls, subscripts, attributes): a ValueError, KeyError or
# TypeError raised there is the program's.  Raised anywhere else in tpucc
# it would be tpucc's own bug, which no except clause may catch.
_INTERPRETING = ("interpreter.py", "calls.py", "builtins_impl.py", "math_impl.py",
                 "dunders.py", "iterators.py")
# ... and the Array methods that raise what NumPy raises for a 0-d array
# (len(), iteration: TypeError).
_ARRAY_PROTOCOL = ("__len__", "__iter__")
_TPUCC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def raised_by_the_program(e: BaseException) -> bool:
    """Whether a Python exception escaping an opcode handler is the
    program's: the innermost frame it was raised in is outside tpucc
    (NumPy, the standard library) or tpucc's interpretation of Python."""
    tb = e.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code
        tb = tb.tb_next
    if last is None:
        return False
    path = os.path.abspath(last.co_filename)
    if not path.startswith(_TPUCC_DIR + os.sep):
        return True
    if not os.path.dirname(path).endswith(os.sep + "infer"):
        return False
    name = os.path.basename(path)
    return name in _INTERPRETING or name == "values.py" and last.co_name in _ARRAY_PROTOCOL


def level() -> int:
    """How deep in regions that are discarded when an error leaves them
    the program runs now: runtime branches and loops, differentiated code."""
    c = builder.ctx()
    return c.runtime_depth + c.grad_depth


def note_raised(e: TpuccError) -> None:
    """Marks where the program's exception was raised (the innermost frame
    sees it first)."""
    if isinstance(e, UserCodeError) and e.level is None:
        e.level = level()


def to_handler(frame, handler, e: UserCodeError) -> Exit:
    """Control goes to `handler` with `e` as CPython would hand it over, or
    `e` goes on up when nothing in this frame may catch it."""
    exc = e.raised
    if exc is None:
        raise e                         # not the program's
    if frame.yields is not None and not frame.stepping:
        if _only_reraises(frame, handler):
            raise e     # (3.12's handler around a generator's body: the consumer gets it)
        raise left_generator(e)
    if e.level != _level_of_try(frame, handler):
        # Raised inside a runtime `if` or loop inside the `try` body (of
        # this frame or of a function it calls): eagerly only some paths
        # raise it.
        if not e.hint and _handler_catches(frame, handler, type(exc)):
            e.hint = ("it is raised, or raised again by a `finally` or `except` body, inside "
                      "a runtime `if` or loop (or a function tpucc.grad differentiates), where "
                      "compiled code cannot raise, so no `except` clause catches it: avoid the "
                      "exception on that path (e.g. dict.get with a default)")
            e.args = (e.render(),)
        raise e
    try:
        exc._tpucc_error = e            # RERAISE and `raise e` raise it on
    except (AttributeError, TypeError):
        raise e from None
    handled = frame.interp.handled_exception
    if handled is not None and handled is not exc and exc.__context__ is None:
        exc.__context__ = handled       # raised while handling another, as Python sets it
    del frame.stack[handler.depth:]
    if handler.lasti:
        frame.push(0)                   # the raising instruction's offset: unused
    frame.push(exc)
    return Exit((handler.block,), None, {handler.block: len(frame.stack)})


def left_generator(e: UserCodeError) -> UserCodeError:
    """The program's exception raised in a generator, which tpucc runs to
    its end when it is called, before its consumer runs: catching it would
    lose what the consumer did with the items before it, so nothing does."""
    e.level = ESCAPED_RUNTIME_REGION
    if not e.hint:
        e.hint = ("raised inside a generator: tpucc runs a generator to its end when it is "
                  "called, so neither the generator nor its consumer can catch it")
        e.args = (e.render(),)
    return e


def left_generator_body(e: UserCodeError) -> UserCodeError:
    """The exception a generator's caller gets for `e` leaving its body:
    a StopIteration becomes RuntimeError("generator raised StopIteration")
    (PEP 479: CPython's gen_send_ex in 3.11, the intrinsic 3.12 puts around
    the body), so that `except RuntimeError` catches it and a StopIteration
    never silently ends the consumer's loop."""
    if not isinstance(e.raised, StopIteration):
        return e
    message = "generator raised StopIteration"
    runtime_error = RuntimeError(message)
    runtime_error.__cause__ = e.raised
    error = UserCodeError(f"RuntimeError: {message}", e.loc, e.hint, raised=runtime_error)
    error.level = e.level
    return error


def _level_of_try(frame, handler) -> int:
    """level() where the `try` of `handler` runs: the frame's, plus its
    runtime regions opened outside that `try` (around it)."""
    around = sum(1 for opened in frame.open_regions
                 if all(h != handler for h in _chain(frame, opened)))
    return frame.entry_level + around


def caught_where_raised(f, exc) -> bool:
    """Whether a `raise` inside a runtime `if` or loop is caught by a `try`
    inside that same region (this frame's or a caller's, with no runtime
    region between): then it raises at compile time like any other."""
    now = level()
    ending = f.interp.next_levels[-1] if f.interp.next_levels else None
    if ending is not None and ending.level == now and isinstance(exc, ending.ending):
        return True         # a user __next__ or __getitem__ ending the iteration
    for frame in reversed(f.interp.frames):
        current = frame.current.handler if frame.current is not None else None
        for handler in _chain(frame, current):
            if _level_of_try(frame, handler) != now:
                return False            # a runtime region lies between
            if _handler_catches(frame, handler, type(exc)):
                return True
    return False


def ends_iteration(f, exc) -> bool:
    """Whether `exc` is what ends the iteration of the user __next__ (or
    __getitem__) being run: raised under a runtime condition of its own,
    it would end the loop at run time (caught_where_raised takes it when
    the condition is static)."""
    ending = f.interp.next_levels[-1] if f.interp.next_levels else None
    return ending is not None and isinstance(exc, ending.ending)


def stops_iteration_at_run_time(f, exc) -> bool:
    """Whether `raise exc` under a runtime condition is the StopIteration
    of the user __next__ the iteration protocol is calling, raised in that
    method's own frame, where no `try` of it is around the raise: the
    frame then returns with its STOPPED flag set (interpreter.RAISE_VARARGS),
    and the loop over the iterator leaves at run time where it is set."""
    call = f.interp.next_levels[-1] if f.interp.next_levels else None
    return call is not None and call.frame is f and isinstance(exc, StopIteration) \
        and f.current is not None and f.current.handler is None


def catching_clause(f, exc):
    """The Loc of an except clause of the program that would catch `exc`
    (any frame, past runtime regions too), or None."""
    for frame in reversed(f.interp.frames):
        current = frame.current.handler if frame.current is not None else None
        for handler in _chain(frame, current):
            caught = _handler_catches(frame, handler, type(exc))
            if caught:
                return caught if caught is not True else None
    return None


def chain(interp, exc, cause) -> None:
    """`raise exc` / `raise exc from cause`: the implicit context (the
    exception being handled) and the explicit cause, as Python sets them."""
    handled = interp.handled_exception
    try:
        if handled is not None and handled is not exc:
            exc.__context__ = handled
        if cause:
            exc.__cause__ = cause[0]
            exc.__suppress_context__ = True
    except (AttributeError, TypeError):
        pass


def error_of(exc) -> TpuccError:
    """The error to raise for an exception object the program raises again
    (`raise`, `raise e`, the end of a `finally`)."""
    original = getattr(exc, "_tpucc_error", None)
    if original is not None:
        return original
    return UserCodeError(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
                         raised=exc)


def check_exception_class(cls) -> None:
    classes = cls if isinstance(cls, tuple) else (cls,)
    if not all(isinstance(c, type) and issubclass(c, BaseException) for c in classes):
        raise UserCodeError("TypeError: catching classes that do not inherit from "
                            "BaseException is not allowed")


# --- context managers written in Python ------------------------------------------------

class TracedExit:
    """What BEFORE_WITH leaves for the end of a `with` block on a context
    manager whose __enter__ and __exit__ are Python functions: calling it
    runs __exit__ traced, like any method the program calls."""
    __slots__ = ("manager", "method")

    def __init__(self, manager, method):
        self.manager, self.method = manager, method

    def call(self, interp, args, kwargs):
        return interp.call(self.method, [self.manager, *args], kwargs)


def enter_traced(f, manager, enter, exit_):
    """BEFORE_WITH on a manager of a Python class: __exit__ stays on the
    stack, __enter__ runs now."""
    f.push(TracedExit(manager, exit_))
    f.push(f.interp.call(enter, [manager], {}))


def refuse_generator_manager(manager) -> None:
    """A @contextlib.contextmanager manager made outside the compiled code
    (its generator already made, by Python)."""
    if isinstance(manager, contextlib._GeneratorContextManager):
        raise UnsupportedError(
            "`with` on a @contextlib.contextmanager manager made outside the compiled code is "
            "not supported", hint="call the @contextmanager function inside the compiled "
                                  "function (`with managed(...):`), or write a class with "
                                  "__enter__ and __exit__ methods")


# --- @contextlib.contextmanager generators ----------------------------------------------

@contextlib.contextmanager
def _generator():
    yield


# The code of the function contextlib.contextmanager makes (its `helper`):
# calling one in compiled code makes a GeneratorManager instead.
CONTEXTMANAGER_CALL = _generator.__code__


class GeneratorManager:
    """A @contextlib.contextmanager function called in compiled code: its
    generator runs when the `with` enters, up to its yield, and the rest
    when the `with` ends (or the exception of the body is thrown in at the
    yield), as contextlib's manager runs it."""
    __slots__ = ("function", "args", "kwargs")

    def __init__(self, function, args, kwargs):
        self.function, self.args, self.kwargs = function, list(args), dict(kwargs)


class Suspended(BaseException):
    """A stepped generator reached its yield (not an error: BaseException,
    so no handler of tpucc's or of the program's sees it)."""

    def __init__(self, value, block: int, index: int, at):
        super().__init__()
        self.value, self.block, self.index, self.at = value, block, index, at


def suspend(frame, value):
    """YIELD_VALUE of a stepped generator: stops the frame after it."""
    if level() != frame.entry_level or len(builder.ctx().regions) != frame.entry_regions:
        raise UnsupportedError("a @contextlib.contextmanager generator's `yield` inside a loop "
                               "or a runtime `if` is not supported in compiled code",
                               hint="yield once, at the top level of the generator's body")
    instrs = frame.fc.blocks[frame.current_block].instrs
    index = next(i for i, ins in enumerate(instrs) if ins is frame.current)
    raise Suspended(value, frame.current_block, index + 1, frame.current)


def enter_generator(f, manager: GeneratorManager):
    """BEFORE_WITH on a GeneratorManager: its generator runs to its yield;
    the yielded value is what `as` binds."""
    frame = f.interp.make_frame(manager.function, manager.args, manager.kwargs)
    frame.stepping = True
    try:
        f.interp.run_frame(frame, 0)
    except Suspended as s:
        f.push(SteppedExit(frame, s))
        f.push(s.value)
        return
    raise UserCodeError("RuntimeError: generator didn't yield")


class SteppedExit:
    """__exit__ of a GeneratorManager, as contextlib's: the generator
    resumes after its yield (and must end), or the body's exception is
    thrown in at the yield; a generator that ends then suppresses it."""
    __slots__ = ("frame", "at")

    def __init__(self, frame, at: Suspended):
        self.frame, self.at = frame, at

    def call(self, interp, args, kwargs):
        exc = args[1] if len(args) > 1 else None
        if exc is None:
            self.frame.push(None)               # what the yield returns: send(None)
            self.frame.resume_from = self.at.index
            self._run(interp, self.at.block, "generator didn't stop")
            return False
        handler = self.at.at.handler
        if handler is None:
            return False                        # not caught in the generator: raised again
        error = error_of(exc)
        try:
            ex = to_handler(self.frame, handler, error)
            self._run(interp, ex.targets[0], "generator didn't stop after throw()")
        except UserCodeError as e:
            if e.raised is exc:
                return False                    # raised again, as thrown
            raise
        return True                             # the generator caught it and ended

    def _run(self, interp, block, message):
        try:
            interp.run_frame(self.frame, block)
        except Suspended:
            raise UserCodeError(f"RuntimeError: {message}") from None


# --- runtime checks inside a `try` -----------------------------------------------------

def refuse_caught_check(frames, cls: type, what: str) -> None:
    """A runtime check raising `cls` is about to be made: refused where an
    enclosing except clause (or context manager) of the program would
    catch it, since the executable raises it only when the call returns."""
    by = catcher(frames, cls)
    if by is not None:
        raise UnsupportedError(
            f"{what} depends on runtime values: compiled code raises its {cls.__name__} "
            f"when the call returns, but {by} would catch it here",
            hint="end the iteration on static values (a length: `if i >= len(self.a): raise "
                 "IndexError`), or iterate over the array itself" if by.startswith(_ITERATION)
            else "test the condition with `if` (a runtime `if` compiles to a Conditional), "
                 "or move the `try` outside the compiled function")


def refuse_never_raised(frames, cls: type, what: str) -> None:
    """`what` (an op on runtime values) would raise `cls` eagerly on some
    values, where compiled code gives NaN or inf: refused inside a `try`
    that would catch it (its fallback would never run)."""
    by = catcher(frames, cls)
    if by is not None:
        why, hint = _never_raised()[cls]
        raise UnsupportedError(
            f"{what} inside a `try`: {by} catches {cls.__name__}, which compiled code never "
            f"raises where an `except` could catch it ({why})", hint=hint)


def catcher(frames, cls: type) -> str | None:
    """What in the program would catch an exception of `cls` raised now,
    described for a message ("the `except` clause at line 7 (f)"), or None."""
    ending = _iteration_ending(frames, cls)
    for depth in range(len(frames) - 1, -1, -1):
        frame = frames[depth]
        if ending is not None and depth < ending[0]:
            return ending[1]
        ins = frame.current
        handler = ins.handler if ins is not None else None
        for h in _chain(frame, handler):
            caught = _handler_catches(frame, h, cls)
            if caught is True:              # a `with`
                line = frame.fc.blocks[h.block].instrs[0].loc.line
                exit_ = frame.stack[h.depth - 1]
                how = ("contextlib.suppress" if isinstance(getattr(exit_, "manager", None),
                                                            contextlib.suppress)
                       else "its manager may suppress it")
                return f"the `with` at line {line} ({frame.fc.name}; {how})"
            if caught:
                return f"the `except` clause at line {caught.line} ({frame.fc.name})"
    return None


def _iteration_ending(frames, cls: type):
    """(how many frames call it, what it is) for the iteration protocol
    whose method runs now (a user __next__, or a __getitem__ called with 0,
    1, 2, ...: Interpreter._item_or_end) where an exception of `cls` ends it:
    it catches one raised there.  None elsewhere."""
    levels = frames[-1].interp.next_levels if frames else ()
    if not levels or not issubclass(cls, levels[-1].ending):
        return None
    calls = levels[-1].calls
    method = frames[calls].fc.name if calls < len(frames) else "its method"
    return calls, f"{_ITERATION} {method} (which {cls.__name__} ends)"


_ITERATION = "the iteration calling"


def _chain(frame, handler):
    """`handler` and the handlers its own code is protected by: the except
    clauses and finally blocks around it, innermost first."""
    seen = set()
    while handler is not None and handler.block not in seen:
        seen.add(handler.block)
        yield handler
        instrs = frame.fc.blocks[handler.block].instrs
        handler = instrs[0].handler if instrs else None


def _only_reraises(frame, handler) -> bool:
    """The handler 3.12+ puts around a generator's whole body: it turns a
    StopIteration into a RuntimeError and re-raises anything else."""
    instrs = frame.fc.blocks[handler.block].instrs
    return bool(instrs) and instrs[0].op == "CALL_INTRINSIC_1:INTRINSIC_STOPITERATION_ERROR"


def _handler_catches(frame, handler, cls):
    """Whether the handler can end the exception: False; the Loc of the
    except clause that catches `cls`; True for a `with` that suppresses it.  A `finally` block or a
    comprehension's cleanup raises it again; a `with` ends it only where
    its manager is contextlib.suppress of that class (a manager that
    suppresses otherwise is not asked)."""
    instrs = frame.fc.blocks[handler.block].instrs
    if not instrs or instrs[0].op != "PUSH_EXC_INFO":
        return False
    second = instrs[1].op if len(instrs) > 1 else None
    if second == "WITH_EXCEPT_START":
        exit_ = frame.stack[handler.depth - 1] if 0 < handler.depth <= len(frame.stack) else None
        return _exit_may_suppress(exit_, cls)
    if second == "POP_TOP":
        return instrs[1].loc                # a bare `except:`
    return _typed_clauses_catch(frame, handler.block, 1, cls)


def _exit_may_suppress(exit_, cls) -> bool:
    """Whether a `with`'s exit could end an exception of `cls`: suppress of
    that class; a Python __exit__ with a return other than None or False;
    a @contextmanager generator whose `yield` is inside a `try` catching it.
    np.errstate and nullcontext never do."""
    if isinstance(exit_, TracedExit):
        if isinstance(exit_.manager, contextlib.suppress):
            return issubclass(cls, exit_.manager._exceptions)
        from ..frontend import decode
        for block in decode(exit_.method.__code__).blocks:
            for before, ins in zip([None] + block.instrs, block.instrs):
                if ins.op == "RETURN_VALUE" and not (
                        before is not None and before.op == "LOAD_CONST"
                        and (before.arg is None or before.arg is False)):
                    return True
        return False
    if isinstance(exit_, SteppedExit):
        frame = exit_.frame
        return any(_handler_catches(frame, h, cls) for h in _chain(frame, exit_.at.at.handler))
    return False


def _typed_clauses_catch(frame, block, start, cls):
    for loc, classes in _typed_clauses(frame, block, start):
        if classes is None or issubclass(cls, classes):
            return loc
    return False


def _typed_clauses(frame, block, start):
    """Yields (Loc, classes) per `except T:` clause (loads, CHECK_EXC_MATCH,
    a branch to the next clause) from instruction `start` of `block`, in
    order; classes None where they cannot be read without running code."""
    for _ in range(256):
        instrs = frame.fc.blocks[block].instrs[start:]
        ops = [i.op for i in instrs]
        if "CHECK_EXC_MATCH" not in ops:
            return                          # a `finally` body, or the last clause's RERAISE
        k = ops.index("CHECK_EXC_MATCH")
        yield instrs[k].loc, _static_classes(frame, instrs[:k])
        branch = instrs[k + 1] if k + 1 < len(instrs) else None
        if branch is None or branch.op != "BRANCH":
            return
        block, start = branch.arg[1], 0


def _never_raised() -> dict:
    """Exceptions NumPy raises from runtime values where compiled code makes
    no check (README: NaN and inf instead): exception -> (why, what to do)."""
    return {
        FloatingPointError: (
            "NumPy raises it from runtime values under np.errstate(...='raise') or "
            "np.seterr; compiled code checks the np.errstate(...='raise') blocks it runs "
            "and raises their errors when the call returns",
            "test the values: `if not np.isfinite(y).all():` (a runtime `if`), or "
            "np.where(np.isfinite(y), y, fallback)"),
        np.linalg.LinAlgError: (
            "a singular or not positive-definite matrix gives NaN or inf in compiled code "
            "where NumPy raises",
            "test the result: `if not np.isfinite(L).all():` (a runtime `if`), or make the "
            "matrix safe first (add jitter to the diagonal)"),
    }


def linalg_raises(fn) -> bool:
    """NumPy's linalg functions that raise LinAlgError on some values (a
    singular matrix, one not positive-definite, no convergence)."""
    return getattr(fn, "__module__", "") == "numpy.linalg" and fn not in (
        np.linalg.det, np.linalg.slogdet, np.linalg.norm, np.linalg.matrix_rank,
        np.linalg.cond, np.linalg.multi_dot, np.linalg.trace, np.linalg.outer,
        np.linalg.cross, np.linalg.diagonal, np.linalg.matmul, np.linalg.tensordot,
        np.linalg.vecdot, np.linalg.vector_norm, np.linalg.matrix_norm,
        np.linalg.matrix_transpose)


def errstate_raises(manager) -> bool:
    return any(getattr(manager, a, None) == "raise"
               for a in ("_all", "_divide", "_over", "_under", "_invalid"))


def vet_handler(frame, handler) -> None:
    """Once per handler: an except clause naming an exception compiled code
    never raises would silently never run (E100)."""
    frame.fc.vetted_handlers.add(handler.block)
    instrs = frame.fc.blocks[handler.block].instrs
    if len(instrs) < 2 or instrs[0].op != "PUSH_EXC_INFO":
        return
    never = _never_raised()
    for loc, classes in _typed_clauses(frame, handler.block, 1):
        for cls in classes or ():
            if cls in never:
                why, hint = never[cls]
                raise UnsupportedError(
                    f"`except {cls.__name__}`: compiled code never raises "
                    f"{cls.__name__} where an `except` could catch it: {why}", loc, hint)


def _static_classes(frame, instrs):
    """The exception classes an except clause names, evaluated without
    running anything (globals, builtins, module attributes, tuples), or
    None where they cannot be read so."""
    import builtins
    stack = []
    for ins in instrs:
        if ins.op == "LOAD_GLOBAL":
            name = ins.arg[1]
            if name in frame.globals:
                stack.append(frame.globals[name])
            elif hasattr(builtins, name):
                stack.append(getattr(builtins, name))
            else:
                return None
        elif ins.op == "LOAD_ATTR" and stack and isinstance(stack[-1], types.ModuleType):
            stack.append(getattr(stack.pop(), ins.arg[1], None))
        elif ins.op == "BUILD_TUPLE":
            n = ins.arg
            items = tuple(stack[len(stack) - n:])
            del stack[len(stack) - n:]
            stack.append(items)
        elif ins.op == "PUSH_NULL":
            continue
        else:
            return None
    if len(stack) != 1:
        return None
    classes = stack[0] if isinstance(stack[0], tuple) else (stack[0],)
    if not all(isinstance(c, type) and issubclass(c, BaseException) for c in classes):
        return None
    return classes
