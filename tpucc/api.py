"""The user-facing API: @tpucc.compile and its staged forms."""
from __future__ import annotations

import enum
import functools
import inspect
import itertools
import os
import sys
import threading
import types
import warnings

import jax
import numpy as np

from . import driver, infer, recompiles
from .errors import (DTypeError, OptionError, RuntimeRaiseError, SideEffectError, TpuccError,
                     as_raised)
from .infer.ad import def_loc
from .ops import python_ints
from .infer.scalar_state import (Places, RecompileWarning, changed_places, promoted_items,
                                 warn_changed_static)
from .ir import print_region

DEFAULT_OPTIONS = {
    "runtime_args": (),          # names of Python-scalar arguments traced as runtime values
    "unroll": 32,                # static loops longer than this become a While
    "matmul_precision": "highest",
    "device_cache": "auto",      # keep captured arrays (weights) on the device between calls
    "cache": None,               # persistent executable cache: None (default place), False, a path
    "prints": True,              # print() runs in the compiled program; False drops it
}


def compile(fn=None, **options):  # noqa: A001 - mirrors jax.jit / torch.compile naming
    """Compiles `fn` (with everything it calls) into one XLA executable per
    signature.  Options: runtime_args=("lr",) traces those Python scalar
    arguments as runtime values; unroll=N sets the static-loop unroll budget;
    matmul_precision="highest"|"default"; device_cache=True uploads arrays
    read from globals, closures and attributes once and reuses them while the
    same array object is found there (rebinding is seen, in-place changes to
    such an array are not); the default device_cache="auto" keeps, on the
    CPU, the transposed copy of a conv weight the function only reads, while
    its bytes stay the same (compared at every call: exact), and
    device_cache=False keeps nothing; cache=False disables the persistent cache of
    executables and cache="dir" moves it (default: TPUCC_CACHE_DIR, else
    ~/.cache/tpucc; TPUCC_CACHE=0 disables it; see tpucc.cache);
    prints=False drops print() calls (tpucc build does: an artifact cannot
    hold the host callback that prints)."""
    options = checked_options(options)
    if fn is None:
        return lambda f: CompiledFunction(f, options)
    return CompiledFunction(fn, options)


MATMUL_PRECISIONS = ("highest", "high", "default")


def checked_options(options: dict) -> dict:
    """The options, each checked for its type and range (OptionError, E050,
    naming the option and the value); runtime_args given as one name
    (runtime_args="lr") is taken as that name."""
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS) - {"verify"})
    if unknown:
        raise OptionError(f"tpucc.compile: unknown option{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(unknown)}",
                          hint=f"the options are {', '.join(DEFAULT_OPTIONS)}")
    options = dict(options)
    names = options.get("runtime_args", ())
    if isinstance(names, str):
        names = options["runtime_args"] = (names,)
    if not isinstance(names, (tuple, list, set, frozenset)) or \
            not all(isinstance(n, str) for n in names):
        _bad_option("runtime_args", names, "a tuple of parameter names, e.g. (\"lr\",)")
    unroll = options.get("unroll", 32)
    if type(unroll) is not int or unroll < 0:
        _bad_option("unroll", unroll, "an int, 0 or more (the static-loop unroll budget)")
    if options.get("matmul_precision", "highest") not in MATMUL_PRECISIONS:
        _bad_option("matmul_precision", options["matmul_precision"],
                    " or ".join(f'"{p}"' for p in MATMUL_PRECISIONS))
    device_cache = options.get("device_cache", "auto")
    if not (type(device_cache) is bool or device_cache == "auto"):
        _bad_option("device_cache", device_cache, 'True, False or "auto"')
    cache_option = options.get("cache")
    if not (cache_option is None or isinstance(cache_option, (bool, str, os.PathLike))):
        _bad_option("cache", cache_option, "True, False or a directory path")
    if type(options.get("prints", True)) is not bool:
        _bad_option("prints", options["prints"], "True or False")
    return options


def _check_runtime_names(fn, names, parameters):
    """A warning where runtime_args names no parameter of fn (a typo would
    leave the number static: a compile per value); not an error, as one set
    of options may serve several functions, like jax's static_argnames."""
    parameters = list(parameters)
    if not parameters or any(p.kind == p.VAR_KEYWORD for p in parameters):
        return
    unknown = sorted(set(names) - {p.name for p in parameters})
    if unknown:
        warnings.warn(f"tpucc.compile: runtime_args names {', '.join(unknown)}, which "
                      f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'} "
                      f"of {getattr(fn, '__qualname__', fn)} (its parameters: "
                      f"{', '.join(p.name for p in parameters)})", stacklevel=4)


def _bad_option(name, value, wanted):
    raise OptionError(f"tpucc.compile: {name} must be {wanted}, not {value!r}")


# Programs kept for one signature that differ in what they read from
# outside (TorchDynamo's cache_size_limit is 8 too): a flag toggled at every
# call runs one of two programs, not a compile per call.
PROGRAMS_PER_SIGNATURE = 8
# A number argument compiled for this many values (of one type) is read at
# run time from then on (CompiledFunction._varying_numbers).
VARYING_AFTER = 3
# New objects keyed by identity in one argument that compile this many
# programs make one RecompileWarning (CompiledFunction._note_identity_keys).
IDENTITY_WARN_AFTER = 8


class CompiledFunction:
    def __init__(self, fn, options):
        if not callable(fn) and not isinstance(fn, classmethod):
            # tpucc.compile(f(x)) for tpucc.compile(f): say so now
            raise OptionError(f"tpucc.compile: expected a function, got "
                              f"{type(fn).__name__} {_short_repr(fn)}",
                              hint="pass the function itself: tpucc.compile(f), "
                                   "not tpucc.compile(f(...))")
        # Name and docstring of fn; not its __dict__, which would overwrite
        # ours when fn is itself an object (tpucc.grad(f) has an `fn` too).
        functools.update_wrapper(self, fn, updated=())
        # @tpucc.compile above @staticmethod or @classmethod: compile the
        # function, and bind as that descriptor does (__get__).
        self._binding = type(fn) if isinstance(fn, (staticmethod, classmethod)) else None
        self.fn = fn = fn.__func__ if self._binding else fn
        self.options = {**DEFAULT_OPTIONS, **options}
        self._runtime = frozenset(self.options["runtime_args"])
        self._asked_runtime = self._runtime     # (the option; _runtime adds varying numbers)
        try:
            parameters = inspect.signature(fn).parameters.values()
        except (TypeError, ValueError):
            parameters = []
        self._names = [p.name for p in parameters]
        # Defaults of the parameters a call may leave out, for runtime_args
        # naming one (_with_runtime_defaults).
        self._defaults = {p.name: p.default for p in parameters if p.default is not p.empty
                          and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        _check_runtime_names(fn, self._runtime, parameters)
        # Parameters that may take a Python number worth reading at run time
        # (_varying_numbers): by position, then by keyword.
        self._positional = [p.name for p in itertools.takewhile(
            lambda p: p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD), parameters)]
        self._keywords = {p.name for p in parameters
                          if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        self._cache: dict = {}
        # Earlier programs of a signature, most recent first, whose guards
        # failed once (_run_older): up to PROGRAMS_PER_SIGNATURE in all.
        self._older: dict = {}
        self._warned_churn = False
        # Places of Python numbers the function rebinds (infer.scalar_state),
        # read as runtime values; _promoted_items: those in the arguments.
        self._places = Places()
        self._promoted_items: dict = {}
        # Per number parameter, the values its calls compiled for, by type;
        # those that must stay static (needed while compiling).
        self._seen_numbers: dict = {}
        self._static_numbers: set = set()
        self._identity_compiles: dict = {}      # (argument, class) -> ids of objects compiled for
        self._identity_warned: set = set()
        # One thread at a time compiles and updates the caches above: two
        # threads compiling one signature at once mixed their traces (E999).
        self._lock = threading.RLock()

    def _names_for(self, n):
        return (self._names + [None] * n)[:n]

    def __call__(self, /, *args, **kwargs):     # (a parameter may be named `self`)
        # The per-call path: keep it short (see driver.runner).  The common
        # call, NumPy arrays only, is keyed here on their dtypes and shapes,
        # as driver.signature_key keys them (a function call would cost as
        # much as the loop), and the argument tuple is the leaves.
        try:
            if not kwargs and not self._runtime and not self._promoted_items:
                parts = []
                for a in args:
                    if type(a) is not np.ndarray:
                        break
                    parts.append((a.dtype, a.shape))
                else:
                    entry = self._cache.get(tuple(parts))
                    if entry is not None:
                        out = entry.run(args, args, kwargs)
                        if out is not driver.RECOMPILE:
                            return out
            return self._call(args, kwargs)
        except SideEffectError as e:
            # The per-call checks of the arguments (overlapping arrays, one
            # read-only) know no line: the function's `def`, whose
            # parameters they are.
            e.with_loc(def_loc(self))
            raise

    def _call(self, args, kwargs):
        if any(isinstance(a, jax.core.Tracer) for a in (*args, *kwargs.values())):
            raise OptionError(
                f"{getattr(self.fn, '__qualname__', self.fn)}, compiled by tpucc, was called "
                "inside a jax transformation (jax.jit, jax.grad, jax.vmap): its executable "
                "cannot be traced", hint="transform the plain function instead, or use "
                "tpucc.grad and tpucc.compile around the whole computation")
        kwargs = self._with_runtime_defaults(args, kwargs)
        with self._lock:        # (the cached path in __call__ takes no lock)
            try:
                return self._call_locked(args, kwargs)
            except (DTypeError, RuntimeRaiseError) as e:
                if not self._keep_wide_ints_static(args, kwargs, e):
                    raise
                return self._call_locked(args, kwargs)

    def _keep_wide_ints_static(self, args, kwargs, error) -> bool:
        """An int argument read at run time only because its calls passed
        three values (_varying_numbers), where this call's value does not
        fit the int64 it is read as (E210), or the program's Python int
        arithmetic on it went past int64 (E910, ops/python_ints.py): eager
        Python gets the exact big int, so from now on the argument is static
        again, each new value compiling a program (warned once), and this
        call runs again.  False where that does not apply (runtime_args
        asked for it: the error stands)."""
        if not (isinstance(error, DTypeError) and driver.WIDE_INT_ARGUMENT in error.message or
                isinstance(error, RuntimeRaiseError) and
                error.message.startswith(python_ints.PAST_INT64)):
            return False
        named = [*zip(self._positional, args), *kwargs.items()]
        wide = frozenset(name for name, value in named if type(value) is int and
                         name in self._runtime - self._asked_runtime)
        if not wide:
            return False
        self._static_numbers |= wide
        self._read_at_run_time(self._runtime - wide)
        warnings.warn(RecompileWarning(
            f"tpucc: {', '.join(f'the argument `{n}`' for n in sorted(wide))} of "
            f"{getattr(self.fn, '__qualname__', self.fn)} changed between calls and was read "
            f"at run time as an int64, which Python's int outgrew ({error.message}), so each "
            "new value compiles the function again (where it computes modulo 2**64, a hash or "
            "a seed, pass np.uint64(n): one program for every value)"), stacklevel=_user_level())
        return True

    def _with_runtime_defaults(self, args, kwargs) -> dict:
        """kwargs, with the default of each runtime_args parameter the call
        leaves out: read at run time as when it is passed (not folded into
        the program as a constant: one program, the loop it bounds a While)."""
        missing = [name for name in self._runtime if name in self._defaults and
                   name not in kwargs and name not in self._names[:len(args)]]
        return {**kwargs, **{name: self._defaults[name] for name in missing}} if missing \
            else kwargs

    def _call_locked(self, args, kwargs):
        names = self._names_for(len(args)) if self._runtime else ()
        key, leaves = driver.signature_key(args, kwargs, self._runtime, names,
                                           self._promoted_items)
        entry = self._cache.get(key)
        if entry is not None:
            out = entry.run(leaves, args, kwargs)   # RECOMPILE: a guard or captured type changed
            if out is not driver.RECOMPILE:
                return out
            if recompiles.renew_equal_guards(entry):
                out = driver.runner(entry)(leaves, args, kwargs)
                if out is not driver.RECOMPILE:
                    return out
            out = self._run_older(key, leaves, args, kwargs)
            if out is not driver.RECOMPILE:
                return out
            changed = changed_places(entry.traced, self._places)
            if recompiles.logging():
                recompiles.log(self.fn, recompiles.reason_for_guards(entry.traced))
            if not changed:     # (a changed number is read at run time from now on)
                self._keep_older(key, entry)
            entry = self._build_promoting(args, kwargs, changed)
        else:
            if recompiles.logging():
                recompiles.log(self.fn, recompiles.new_signature(args, kwargs))
            self._note_identity_keys(args, kwargs)
            entry = self._build_promoting(args, kwargs, {}, self._varying_numbers(args, kwargs))
        if entry.traced.places != self._places:
            self._learn(entry.traced.places)
        names = self._names_for(len(args)) if self._runtime else ()
        key, leaves = driver.signature_key(args, kwargs, self._runtime, names,
                                           self._promoted_items)
        run = driver.runner(entry)
        self._cache[key] = entry
        out = run(leaves, args, kwargs)
        if out is driver.RECOMPILE:
            raise TpuccError("an array read from a global or attribute changed its shape "
                             "or dtype while the function was being compiled")
        return out

    def _build(self, args, kwargs, compile_xla=True):
        try:
            return driver.build_entry(self.fn, args, kwargs, self.options, compile_xla,
                                      self._places)
        except TpuccError as e:
            raise as_raised(e).with_traceback(None) from None

    def _run_older(self, key, leaves, args, kwargs):
        """Runs an earlier program of this signature whose guards hold now
        (a flag set back: `model.training = True` after an evaluation),
        making it the current one; else RECOMPILE."""
        older = self._older.get(key, ())
        for i, entry in enumerate(older):
            out = entry.run(leaves, args, kwargs)    # (RECOMPILE before running anything)
            if out is not driver.RECOMPILE:
                older[i], self._cache[key] = self._cache[key], entry
                return out
        return driver.RECOMPILE

    def _keep_older(self, key, entry):
        """Keeps `entry`, whose guards failed, among the older programs of
        its signature; at the limit, drops the least recent one, and warns
        once that values read from outside keep changing."""
        older = self._older.setdefault(key, [])
        older.insert(0, entry)
        if len(older) >= PROGRAMS_PER_SIGNATURE and not self._warned_churn:
            self._warned_churn = True
            warnings.warn(RecompileWarning(
                f"tpucc: {getattr(self.fn, '__qualname__', self.fn)} has compiled "
                f"{PROGRAMS_PER_SIGNATURE} programs for one argument signature, because what "
                f"it reads from outside keeps changing (now: "
                f"{recompiles.reason_for_guards(entry.traced)}); each further change compiles "
                "again (TPUCC_LOG=recompiles says why at each compile)"), stacklevel=_user_level())
        del older[PROGRAMS_PER_SIGNATURE - 1:]

    def _build_promoting(self, args, kwargs, changed: dict, varying=frozenset()):
        """_build, reading as runtime values the numbers that changed outside
        since the last call (`changed`, scalar_state.changed_places) and the
        number arguments in `varying` (_varying_numbers).  Where the program
        needs one at compile time (a shape, a loop bound under tpucc.grad),
        it builds again with them static, as before, warns once that each
        new value compiles again, and keeps them static."""
        if not changed and not varying:
            return self._build(args, kwargs)
        places, runtime = self._places, self._runtime
        self._places = places._replace(promoted=places.promoted | frozenset(changed))
        self._read_at_run_time(runtime | varying)
        try:
            return self._build(args, kwargs)
        except TpuccError as needs_static:
            self._places = places._replace(static=places.static | frozenset(changed))
            self._read_at_run_time(runtime)
            self._static_numbers |= varying
            entry = self._build(args, kwargs)
            warn_changed_static({**changed, **{("argument", name): f"the argument `{name}`"
                                               for name in sorted(varying)}}, needs_static)
            return entry

    def _read_at_run_time(self, names: frozenset):
        """The Python-scalar arguments traced as runtime values: the option
        runtime_args, and the number arguments found varying."""
        self._runtime = frozenset(names)
        self.options = {**self.options, "runtime_args": tuple(sorted(self._runtime))}

    def _note_identity_keys(self, args, kwargs):
        """An argument that is an unhashable object (a plain class's
        instance, a set) is in the signature by identity: a new such object
        at every call compiles at every call, each program kept.  Warns once
        when one argument has made IDENTITY_WARN_AFTER of them."""
        named = [*zip(self._names_for(len(args)), args), *kwargs.items()]
        for name, value in named:
            cls = _identity_keyed_class(value)
            if cls is None:
                continue
            # (the cache holds every object compiled for: their ids stay distinct;
            # counted by class, so that the warning names the class that made them)
            seen = self._identity_compiles.setdefault((name, cls), set())
            seen.add(id(value))
            if len(seen) == IDENTITY_WARN_AFTER and name not in self._identity_warned:
                self._identity_warned.add(name)
                n = len(seen)
                warnings.warn(RecompileWarning(
                    f"tpucc: {getattr(self.fn, '__qualname__', self.fn)} has compiled "
                    f"{n} programs for new {cls.__name__} objects passed as "
                    f"`{name}`: arguments that are objects without value equality are told "
                    "apart by identity, so each new one compiles again (and its program is "
                    f"kept). {_identity_advice(value)}"), stacklevel=_user_level())

    def _varying_numbers(self, args, kwargs) -> frozenset:
        """Names of the number arguments (int, float, complex; not bool)
        that this call, which compiles, passes with a third value of one
        type: read at run time from now on, so a learning rate passed at
        every step compiles three programs, not one per step (each kept in
        the cache).  Two values (an axis, a mode) keep a program each."""
        varying = set()
        named = [*zip(self._positional, args), *((k, kwargs[k]) for k in kwargs
                                                 if k in self._keywords)]
        for name, value in named:
            if type(value) not in (int, float, complex) or name in self._runtime \
                    or name in self._static_numbers:
                continue
            seen = self._seen_numbers.setdefault((name, type(value)), set())
            seen.add(repr(value))       # (repr: -0.0 and 0.0 fold differently; nan == nan)
            if len(seen) >= VARYING_AFTER:
                varying.add(name)
        return frozenset(varying)

    def _learn(self, places):
        """Later traces start from the places this one found (a new shape
        compiles without finding them again, or warning again)."""
        self._places = Places(*(mine | theirs for mine, theirs in zip(self._places, places)))
        self._promoted_items = promoted_items(self._places.promoted)

    def lower(self, /, *args, **kwargs) -> "Lowered":
        kwargs = self._with_runtime_defaults(args, kwargs)
        names = self._names_for(len(args)) if self._runtime else ()
        with self._lock:
            entry = self._build(args, kwargs, compile_xla=False)
            if entry.traced.places != self._places:
                self._learn(entry.traced.places)
        key, _ = driver.signature_key(args, kwargs, self._runtime, names, self._promoted_items)
        return Lowered(entry, self, key)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        # As for a function (copy.deepcopy(f) is f): its caches of
        # executables and its lock are not copied.
        return self

    def __reduce__(self):
        # Pickled by reference, as the function it replaces is (by its
        # module and qualified name): multiprocessing and joblib send it so.
        return self.__qualname__

    def __get__(self, obj, objtype=None):
        # A method decorated with @tpucc.compile binds `self` as the plain
        # function would (jax.jit's wrapper does too): the instance is the
        # first argument, static, its array attributes runtime inputs.
        if self._binding is staticmethod:
            return self
        if self._binding is classmethod:
            return types.MethodType(self, objtype if objtype is not None else type(obj))
        if obj is None:
            return self
        return types.MethodType(self, obj)

    def __tpucc_snapshot__(self):
        """What tpucc.snapshot fingerprints of a compiled function called
        from compiled code (not its cache of executables)."""
        return self.fn, sorted(self.options.items())

    def __repr__(self):
        return f"<tpucc.compile of {getattr(self.fn, '__qualname__', self.fn)}>"


def _user_level() -> int:
    """The stacklevel for warnings.warn, called by the function calling this
    one, that names the first frame outside tpucc: the user's call, which
    warning filters by module then match."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _identity_advice(value) -> str:
    """What to do about new objects compiling again: an object holding
    arrays (parameters in a dataclass, frozen or not) cannot be hashed by
    value, but its arrays can travel in a runtime pytree."""
    if any(isinstance(v, np.ndarray) or type(v).__module__.startswith("jax")
           for v in getattr(value, "__dict__", {}).values()):
        return ("Its arrays are read from the object compiled for: pass them in a NamedTuple "
                "or a dict (whose arrays are runtime inputs: one program for every call), or "
                "pass the same object each time")
    return ("Pass the same object each time, make the class hashable by value "
            "(@dataclasses.dataclass(frozen=True)), or read it from an attribute or a global "
            "instead of an argument")


def _identity_keyed_class(value):
    """The class of the object that the signature tells `value` apart by
    (value itself, or an item of the list, tuple or dict holding it): what
    a new object of compiles again; None where nothing is."""
    t = type(value)
    if t in (list, tuple, dict):
        items = value.values() if t is dict else value
        return next(filter(None, map(_identity_keyed_class, items)), None)
    return t if _keyed_by_identity(value) else None


def _keyed_by_identity(value) -> bool:
    """Whether the signature tells `value` apart by identity: an object
    (or a list, tuple or dict holding one) that is unhashable or whose class
    compares by identity, as plain classes do."""
    t = type(value)
    if t in (list, tuple):
        return any(map(_keyed_by_identity, value))
    if t is dict:
        return any(map(_keyed_by_identity, value.values()))
    # (an Enum member is one of a few singletons: no new ones come at each call)
    if value is None or t in (bool, int, float, complex, str, bytes) or \
            infer.is_runtime_leaf(value) or isinstance(value, enum.Enum) or \
            isinstance(value, (type, types.FunctionType, types.MethodType, types.ModuleType)):
        return False
    try:
        hash(value)
    except (TypeError, ValueError):     # (a writable memoryview raises ValueError)
        return True
    return t.__eq__ is object.__eq__


class Compiled:
    """A program XLA compiled (f.lower(x).compile()): calling it runs the
    program as f(...) does, on arguments of the types it was lowered for
    (others compile again, as for f); jax's executable's inspection methods
    (as_text, cost_analysis, memory_analysis) answer for the executable."""
    def __init__(self, function, executable):
        self._function, self._executable = function, executable

    def __call__(self, *args, **kwargs):
        return self._function(*args, **kwargs)

    @property
    def executable(self):
        """jax's Compiled executable (flat runtime inputs; serializable)."""
        return self._executable

    def __getattr__(self, name):
        return getattr(self._executable, name)


class Lowered:
    """A traced and lowered program, before XLA compilation."""
    def __init__(self, entry, owner, key):
        self._entry = entry
        self._owner, self._key = owner, key     # compile() serves later calls of owner

    DIALECTS = ("hlo", "stablehlo")

    def as_text(self, dialect: str = "hlo") -> str:
        """The HLO module text (or 'stablehlo'), before XLA optimization."""
        if not isinstance(dialect, str) or dialect not in self.DIALECTS:
            raise OptionError(f"Lowered.as_text: dialect must be one of "
                              f"{', '.join(map(repr, self.DIALECTS))}, not {dialect!r}")
        return self._entry.lowered.as_text(dialect=dialect)

    def ir(self) -> str:
        """tpucc's typed IR with source lines, why each input is a runtime
        value, and why each loop or branch became a While or a Cond."""
        traced = self._entry.traced
        header = [f"# input {p}: {p.aval} <- {src}"
                  for p, src in zip(traced.program.params, traced.input_sources)]
        return "\n".join(header + [print_region(traced.program)])

    def compile(self) -> "Compiled":
        """Runs XLA; later calls of the tpucc function reuse the result.
        Returns the program compiled: calling it runs it, as calling the
        tpucc function does (jax's AOT API: f.lower(x).compile()(x))."""
        import time
        t0 = time.perf_counter()
        self._entry.executable = driver.run_xla(self._entry.lowered)
        self._entry.times.xla = time.perf_counter() - t0
        driver.runner(self._entry)
        self._owner._cache[self._key] = self._entry     # f.lower(x).compile(); f(x) compiles once
        return Compiled(self._owner, self._entry.executable)

    @property
    def times(self):
        return self._entry.times

    @property
    def jitted(self):
        """The jax.jit function of the whole program (flat runtime inputs ->
        flat outputs); for ahead-of-time export."""
        return self._entry.jitted

    @property
    def traced(self):
        """infer.Traced: the program, its input types and sources, output
        structure and write-backs."""
        return self._entry.traced

    @property
    def jax_lowered(self):
        return self._entry.lowered
