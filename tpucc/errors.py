"""tpucc's errors: one base class with a code, a message, the user's source
location and a hint.  Every error a user can cause is a TpuccError; anything
else escaping the compiler is an internal bug and is wrapped in InternalError.
"""
from __future__ import annotations

import importlib
import linecache
import os
import sys
import sysconfig
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Loc:
    """A source location: file, line, column (0-based), function name."""
    file: str
    line: int
    col: int = 0
    func: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"

    def source_line(self) -> str:
        # As Python's tracebacks do: a file edited since it was cached (a
        # module reloaded in this process) shows its current line.
        linecache.checkcache(self.file)
        return linecache.getline(self.file, self.line).rstrip("\n")


class TpuccError(Exception):
    """Base of every error tpucc raises on purpose.  `code` names the section of
    docs/errors.md that explains it."""
    code = "E000"

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None):
        self.message = message
        self.loc = loc
        self.hint = hint
        self.callers: list[Loc] = []    # the calls that led to `loc`, innermost first
        super().__init__(self.render())

    def with_loc(self, loc: Loc | None) -> "TpuccError":
        """The same error placed at `loc` unless it already has a location."""
        if self.loc is None and loc is not None:
            self.loc = loc
            self.args = (self.render(),)
        return self

    def render(self) -> str:
        parts = [f"[{self.code}] {self.message}"]
        if self.loc is not None:
            where = f"  at {self.loc}" + (f" (in {self.loc.func})" if self.loc.func else "")
            parts.append(where)
            text = self.loc.source_line()
            if text.strip():
                stripped = text.lstrip()
                indent = len(text) - len(stripped)
                parts.append("    " + stripped)
                col = max(self.loc.col - indent, 0)
                parts.append("    " + " " * col + "^")
        for caller in self.callers:
            parts.append(f"  called from {caller}" + (f" (in {caller.func})" if caller.func
                                                      else ""))
            parts.append("    " + caller.source_line().strip())
        if self.hint:
            parts.append(f"  hint: {self.hint}")
        return "\n".join(parts)

    # Ahead of a built-in base's own: KeyError's would quote the message
    # (runtime_raise_class, as_raised).
    __str__ = Exception.__str__

    def called_from(self, loc: Loc) -> None:
        """The error, placed in a function, leaves it through a call at
        `loc`: a helper called from several lines says which call failed."""
        last = self.callers[-1] if self.callers else self.loc
        if len(self.callers) < MAX_CALLERS and loc is not None and loc != last:
            self.callers.append(loc)        # (a recursive call's line: once)
            self.args = (self.render(),)


MAX_CALLERS = 8         # (recursion: the innermost calls are the telling ones)


class OptionError(TpuccError, TypeError):
    """An option of tpucc.compile (or of a build entry) with an unknown
    name, or a value of the wrong type or out of range."""
    code = "E050"


class UnsupportedError(TpuccError):
    """A construct or library call tpucc does not compile."""
    code = "E100"


class ShapeError(TpuccError):
    """Operand shapes that NumPy would reject (or a data-dependent shape)."""
    code = "E200"


class DTypeError(TpuccError):
    """Operand dtypes an operation does not accept."""
    code = "E210"


class MergeError(TpuccError):
    """Branches or loop iterations give one variable different types."""
    code = "E300"


class GradError(TpuccError):
    """tpucc.grad cannot differentiate this program (a loop whose trip count
    is known only at run time, a non-scalar or integer loss, integer inputs)."""
    code = "E350"


class StaticValueError(TpuccError):
    """A value that must be known at compile time depends on runtime data."""
    code = "E400"


class SideEffectError(TpuccError):
    """A mutation of Python structure that a compiled program cannot replay."""
    code = "E500"


class LimitError(TpuccError):
    """A compile-time budget (unrolling, inlining depth) was exceeded."""
    code = "E600"


class UserCodeError(TpuccError):
    """The user's own code raised an exception while being evaluated at
    compile time (e.g. an `assert` on shapes that fails).

    `raised` is that Python exception, which the program's own `except`
    clauses may catch (infer/exceptions.py); None where it is not the
    program's own (an error of tpucc's that Python would not raise), which
    nothing catches.  Given only a message "KeyError: 'k'" (tpucc doing
    what Python does), it is made from the message."""
    code = "E700"

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None,
                 raised: BaseException | None = None, program_raised: bool = True):
        super().__init__(message, loc, hint)
        if raised is None and program_raised:
            raised = _builtin_exception(message)
        self.raised = raised
        self.level = None           # where it was raised (infer/exceptions.py)


def as_raised(error: TpuccError) -> TpuccError:
    """The error as the caller of a compiled function gets it: an E700 is
    also an instance of the exception the program raised (a failed static
    `assert`: AssertionError; a call missing an argument: TypeError), so an
    `except AssertionError` around the call catches it, as it catches the
    runtime flavour (E910).  Unchanged where that class cannot be a base
    (a layout of its own, such as OSError's)."""
    _as_public_class(error)
    raised = getattr(error, "raised", None)
    if not isinstance(error, UserCodeError) or raised is None or isinstance(error, type(raised)):
        return error
    cls = _user_code_class(type(raised))
    if cls is None:
        return error
    caught = cls.__new__(cls)
    caught.__dict__.update(getattr(raised, "__dict__", {}))    # (its own attributes too)
    caught.__dict__.update(error.__dict__)
    caught.args = error.args
    return caught


# Packages whose TpuccError subclasses are signals between passes (a loop
# that may run its first iteration unrolled: loops.StaticChanged), which
# the caller should see as the public class they derive from.
_INTERNAL_PACKAGES = ("tpucc.infer.", "tpucc.ops.", "tpucc.lower.")


def _as_public_class(error: TpuccError) -> None:
    public = next(c for c in type(error).__mro__ if not c.__module__.startswith(_INTERNAL_PACKAGES))
    if public is not type(error):
        error.__class__ = public        # (same layout: both plain TpuccError subclasses)


_USER_CODE_CLASSES: dict = {}


def _user_code_class(base: type) -> type | None:
    """UserCodeError that is also `base`; None where Python refuses that."""
    if base not in _USER_CODE_CLASSES:
        try:
            cls = type(f"UserCode{base.__name__}", (UserCodeError, base),
                       {"__module__": __name__})
        except TypeError:       # (a layout conflict, a final class)
            cls = None
        _USER_CODE_CLASSES[base] = cls
    return _USER_CODE_CLASSES[base]


# UserCodeError.level of an error that left a runtime `if` or loop (raised
# on some paths only): no `try` outside catches it.
ESCAPED_RUNTIME_REGION = float("inf")


def _builtin_exception(message: str) -> BaseException | None:
    """'KeyError: k' -> KeyError('k'), for a built-in exception class."""
    import builtins
    name, _, text = message.partition(": ")
    cls = getattr(builtins, name, None)
    if isinstance(cls, type) and issubclass(cls, Exception):
        try:
            return cls(text) if text else cls()
        except Exception:           # noqa: BLE001 - a class with other arguments
            return None
    return None


class RuntimeIndexError(TpuccError, IndexError):
    """Compiled code indexed past an array's end with a runtime index; NumPy
    raises IndexError there.  Raised when the call returns, before anything
    is written back: no argument or attribute is changed by the failed call."""
    code = "E900"


class RuntimeRaiseError(TpuccError):
    """The program's own `assert` or `raise` under a runtime condition fired.
    Each error is also an instance of the exception the program raises
    (`runtime_raise_class`), so `except AssertionError` catches it.  Raised
    when the call returns, before anything is written back."""
    code = "E910"


# The built-in exceptions a program may raise under a runtime condition: a
# trace record or artifact names the class, and another process rebuilds it.
RAISABLE_AT_RUN_TIME = {e.__name__: e for e in (
    AssertionError, ValueError, RuntimeError, ArithmeticError, FloatingPointError, OverflowError,
    ZeroDivisionError, IndexError, KeyError, TypeError, NotImplementedError,
    UnboundLocalError)}
_RUNTIME_RAISE_CLASSES: dict = {}


def raisable_class(name: str) -> type | None:
    """The exception class a runtime check named `name` raises: one of
    RAISABLE_AT_RUN_TIME, or a standard library class derived from one,
    named "module.Class" (statistics.StatisticsError, which NormalDist
    raises on a sigma below 0), which any process can import again.  Only
    those that take their message as a built-in one does: the error is
    made as `cls(message)`.  None for any other name."""
    if name in RAISABLE_AT_RUN_TIME:
        return RAISABLE_AT_RUN_TIME[name]
    module, _, qualname = name.rpartition(".")
    if module.partition(".")[0] in sys.stdlib_module_names:
        try:
            cls = getattr(importlib.import_module(module), qualname)
        except (ImportError, AttributeError):
            return None
    else:
        # The program's own class (`class UnitError(ValueError): pass`), found
        # in its module where the process has imported it: never imported
        # here, which would run the program's code (an artifact's loader
        # cannot: aot.build refuses such a check, is_portable_raisable).
        mod = sys.modules.get(module)
        cls = getattr(mod, qualname, None) if "." not in qualname and _is_program_module(mod) \
            else None
    return cls if _built_in_message_error(cls) else None


def _is_program_module(mod) -> bool:
    """A module of the program's (its script, its files), not an installed
    library's (numpy.linalg.LinAlgError is NumPy's to raise) nor tpucc's."""
    if mod is None or mod.__name__.partition(".")[0] == "tpucc":
        return False
    path = getattr(mod, "__file__", None)
    if path is None:
        return mod.__name__ == "__main__"
    libraries = {sysconfig.get_paths()[k] for k in ("purelib", "platlib", "stdlib")}
    return not any(os.path.abspath(path).startswith(os.path.join(d, "")) for d in libraries)


def is_portable_raisable(name: str) -> bool:
    """Whether any process can rebuild exception class `name` (a built-in
    one, or the standard library's), as an artifact's loader must."""
    module = name.rpartition(".")[0]
    return raisable_class(name) is not None and (
        not module or module.partition(".")[0] in sys.stdlib_module_names)


def raisable_name(cls) -> str | None:
    """The name of exception class `cls` for raisable_class, if it has one."""
    if not isinstance(cls, type):
        return None
    if RAISABLE_AT_RUN_TIME.get(cls.__name__) is cls:
        return cls.__name__
    name = f"{cls.__module__}.{cls.__qualname__}"
    return name if "<" not in name and raisable_class(name) is cls else None


def _built_in_message_error(cls) -> bool:
    """A subclass of a RAISABLE_AT_RUN_TIME class that changes neither how it
    is made nor how it prints."""
    if not isinstance(cls, type) or not issubclass(cls, tuple(RAISABLE_AT_RUN_TIME.values())):
        return False
    own = [c for c in cls.__mro__ if c.__module__ != "builtins"]
    return not any(k in c.__dict__ for c in own for k in ("__init__", "__new__", "__str__"))


def runtime_raise_class(name: str) -> type:
    """RuntimeRaiseError that is also the exception `name` (raisable_class).
    Kept by class, not name: a program's module imported again defines its
    exception class anew, which `except` then names."""
    base = raisable_class(name)
    if base not in _RUNTIME_RAISE_CLASSES:
        _RUNTIME_RAISE_CLASSES[base] = type(f"Runtime{base.__name__}", (RuntimeRaiseError, base),
                                            {"__module__": __name__})
    return _RUNTIME_RAISE_CLASSES[base]


class InternalError(TpuccError):
    """A bug in tpucc itself."""
    code = "E999"

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None):
        hint = hint or ("this is a bug in tpucc; please report it with the program "
                        "that triggers it")
        super().__init__(message, loc, hint)
