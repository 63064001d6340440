"""The user-facing API: @tpucc.compile and its staged forms."""
from __future__ import annotations

import functools
import inspect
import os

from . import driver
from .errors import TpuccError
from .infer.scalar_state import Places, promoted_items
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
    unknown = set(options) - set(DEFAULT_OPTIONS) - {"verify"}
    if unknown:
        raise TypeError(f"tpucc.compile: unknown options {sorted(unknown)}")
    device_cache = options.get("device_cache", "auto")
    if not (type(device_cache) is bool or device_cache == "auto"):
        raise TypeError("tpucc.compile: device_cache must be True, False or \"auto\", "
                        f"not {options['device_cache']!r}")
    cache_option = options.get("cache")
    if not (cache_option is None or isinstance(cache_option, (bool, str, os.PathLike))):
        raise TypeError("tpucc.compile: cache must be True, False or a directory path, "
                        f"not {type(cache_option).__name__}")
    if fn is None:
        return lambda f: CompiledFunction(f, options)
    return CompiledFunction(fn, options)


class CompiledFunction:
    def __init__(self, fn, options):
        # Name and docstring of fn; not its __dict__, which would overwrite
        # ours when fn is itself an object (tpucc.grad(f) has an `fn` too).
        functools.update_wrapper(self, fn, updated=())
        self.fn = fn
        self.options = {**DEFAULT_OPTIONS, **options}
        self._runtime = frozenset(self.options["runtime_args"])
        try:
            self._names = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            self._names = []
        self._cache: dict = {}
        # Places of Python numbers the function rebinds (infer.scalar_state),
        # read as runtime values; _promoted_items: those in the arguments.
        self._places = Places()
        self._promoted_items: dict = {}

    def _names_for(self, n):
        return (self._names + [None] * n)[:n]

    def __call__(self, *args, **kwargs):
        # The per-call path: keep it short (see driver.runner).
        names = self._names_for(len(args)) if self._runtime else ()
        key, leaves = driver.signature_key(args, kwargs, self._runtime, names,
                                           self._promoted_items)
        entry = self._cache.get(key)
        if entry is not None:
            out = entry.run(leaves, args, kwargs)   # RECOMPILE: a guard or captured type changed
            if out is not driver.RECOMPILE:
                return out
        entry = self._build(args, kwargs)
        if entry.traced.places != self._places:
            self._learn(entry.traced.places)
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
            raise e.with_traceback(None) from None

    def _learn(self, places):
        """Later traces start from the places this one found (a new shape
        compiles without finding them again, or warning again)."""
        self._places = Places(*(mine | theirs for mine, theirs in zip(self._places, places)))
        self._promoted_items = promoted_items(self._places.promoted)

    def lower(self, *args, **kwargs) -> "Lowered":
        names = self._names_for(len(args)) if self._runtime else ()
        entry = self._build(args, kwargs, compile_xla=False)
        if entry.traced.places != self._places:
            self._learn(entry.traced.places)
        key, _ = driver.signature_key(args, kwargs, self._runtime, names, self._promoted_items)
        return Lowered(entry, self, key)

    def __tpucc_snapshot__(self):
        """What tpucc.snapshot fingerprints of a compiled function called
        from compiled code (not its cache of executables)."""
        return self.fn, sorted(self.options.items())

    def __repr__(self):
        return f"<tpucc.compile of {getattr(self.fn, '__qualname__', self.fn)}>"


class Lowered:
    """A traced and lowered program, before XLA compilation."""
    def __init__(self, entry, owner=None, key=None):
        self._entry = entry
        self._owner, self._key = owner, key     # compile() serves later calls of owner

    def as_text(self, dialect: str = "hlo") -> str:
        """The HLO module text (or 'stablehlo'), before XLA optimization."""
        return self._entry.lowered.as_text(dialect=dialect)

    def ir(self) -> str:
        """tpucc's typed IR with source lines, why each input is a runtime
        value, and why each loop or branch became a While or a Cond."""
        traced = self._entry.traced
        header = [f"# input {p}: {p.aval} <- {src}"
                  for p, src in zip(traced.program.params, traced.input_sources)]
        return "\n".join(header + [print_region(traced.program)])

    def compile(self):
        """Runs XLA; later calls of the tpucc function reuse the result.
        Returns jax's Compiled executable, for inspection: it takes the flat
        runtime inputs and, for a program that updates arrays in place, the
        buffers it writes them into (outputs.OutputPool); call the tpucc
        function itself to run the program."""
        import time
        t0 = time.perf_counter()
        self._entry.executable = driver.run_xla(self._entry.lowered)
        self._entry.times.xla = time.perf_counter() - t0
        if self._owner is not None:         # f.lower(x).compile(); f(x) compiles once
            driver.runner(self._entry)
            self._owner._cache[self._key] = self._entry
        return self._entry.executable

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
