"""driver: from a Python function and arguments to a cached XLA executable.

The pipeline is one visible list of named stages (PIPELINE).  A compiled
function keeps one Entry per signature (argument pytree structure, array
dtypes/shapes, static values); an entry is reused while the guards on the
static globals it read still hold and the captured arrays keep their types.
The persistent cache (tpucc.cache) may supply an entry's executable, and
with a trace record (tpucc.snapshot) its calling convention too: then no
stage runs.
`TPUCC_DUMP=stage[,stage]` prints a stage's output (ir, hlo) to stderr.
"""
from __future__ import annotations

import array
import contextlib
import copy
import dataclasses
import functools
import gc
import operator
import os
import sys
import threading
import time
import weakref
from dataclasses import dataclass

import jax
import numpy as np

from . import cache, envvars, infer, lower, snapshot
from .errors import (DTypeError, InternalError, LimitError, SideEffectError, TpuccError,
                     UnsupportedError)
from .infer import appends, checks
from .infer.ad import identity_pattern
from .infer.state import has_static_keys, is_namedtuple, is_value_dataclass, unflatten, value_fields
from .infer.values import JAX, MISSING as _MISSING, frozen_kind, refuse_array_subclass
from .ir import print_region, verify
from .outputs import (_dropped, kept_writebacks, output_pool, recycled_avals,
                      recycles_replaced, replaced_inputs)
from .staging import staged_caller

NO_PLACES = infer.scalar_state.Places()
RECOMPILE = object()     # execute(): the entry no longer fits the arguments


@dataclass
class StageTimes:
    infer: float = 0.0
    lower: float = 0.0
    xla: float = 0.0
    cache: str = ""     # disk cache: "hit", "miss", "off", or "" when not consulted
    replayed: bool = False  # a hit whose trace record let infer be skipped too

    def __str__(self):
        text = (f"infer {self.infer * 1e3:.1f} ms, lower {self.lower * 1e3:.1f} ms, "
                f"xla {self.xla * 1e3:.1f} ms")
        skipped = ", infer skipped" if self.replayed else ""
        return text + (f" (disk cache {self.cache}{skipped})" if self.cache else "")


class Entry:
    """One compiled signature: the trace, the executable and the per-call
    function.  After a disk-cache hit nothing was lowered; `lowered` and
    `jitted` lower on first use (for inspection: calls never need them)."""

    def __init__(self, traced: infer.Traced, jitted=None, lowered=None, executable=None,
                 times: StageTimes | None = None, options: dict | None = None):
        self.traced = traced
        self._jitted, self._lowered = jitted, lowered
        self.executable = executable        # jax.stages.Compiled
        self.times = times or StageTimes()
        self.run = None                     # the per-call function (see execute)
        self.options = options or {}
        self.retrace = None                 # () -> Traced, for entries without a program
        # A replayed entry whose code moved since its record was made (an edit
        # above it): its checks' locations are re-derived when one fails.
        self.stale_check_locations = False

    @property
    def lowered(self):
        """jax.stages.Lowered of the program."""
        if self._lowered is None:
            self._jitted, self._lowered = run_lower(self._program())
        return self._lowered

    @property
    def jitted(self):
        """The jax.jit function of the program (flat inputs -> flat outputs)."""
        if self._jitted is None:
            self._jitted, self._lowered = run_lower(self._program())
        return self._jitted

    def _program(self):
        if self.traced.program is not None:
            return self.traced
        # Restored from a trace record: trace now, for inspection only.
        if self.retrace is None:
            raise InternalError("this entry was restored without its program")
        return self.retrace()

    def guards_hold(self) -> bool:
        for g, name, value in self.traced.guards:
            if g.get(name, _MISSING) is not value:
                return False
        return True


def run_infer(fn, args, kwargs, options, places=NO_PLACES) -> infer.Traced:
    traced = infer.trace(fn, args, kwargs, options, places)
    traced.input_layouts = cached_input_layouts(traced, options.get("device_cache"))
    if options.get("verify") or os.environ.get("TPUCC_VERIFY"):
        verify(traced.program)      # SSA and scoping of the IR handed to lower/
    return traced


def device_kept_inputs(traced) -> list:
    """Indices of the inputs that device_cache=True keeps on the device: the
    captured arrays the program does not write back."""
    written = {wb[1] for wb in traced.writebacks if wb[0] == "captured"}
    return [traced.n_arg_inputs + i for i, c in enumerate(traced.captured)
            if i not in written and c.number is None]


def read_only_arguments(traced) -> list:
    """Indices of the argument inputs the program does not update in place
    and reads as contiguous arrays (not by strides: infer.Traced.input_strides)."""
    written = {wb[1] for wb in traced.writebacks if wb[0] == "arg"}
    strided = {i for i, _ in traced.input_strides}
    return [i for i in range(traced.n_arg_inputs) if i not in written and i not in strided]


def cached_input_layouts(traced, mode) -> dict:
    """{input index: perm} of the arrays passed to the executable in a
    stored layout (lower.layout.stored_input_layouts: an OIHW conv weight
    read only by convolutions goes in HWIO).  device_cache=True: any
    captured array it keeps.  "auto" (the default): on the CPU only, where
    the transpose inside every call costs what the convolutions of a small
    batch do (VGG19: 80 MB of weights); DeviceCache keeps the transposed
    copy while the array's bytes stay the same, which needs a bitwise view
    (itemsize 1, 2, 4 or 8).  That holds for arguments too (weights passed
    as `forward(params, x)`).  On accelerators the transpose is nearly free
    and the copy to the device dominates, which a cache that compares
    contents on the host would not save."""
    if mode is True:
        return lower.layout.stored_input_layouts(traced.program, device_kept_inputs(traced))
    if mode != "auto" or jax.default_backend() != "cpu":
        return {}
    kept = [i for i in read_only_arguments(traced) + device_kept_inputs(traced)
            if traced.in_avals[i].dtype.itemsize in BITWISE_VIEWS]
    return lower.layout.stored_input_layouts(traced.program, kept)


def cached_inputs(traced, mode) -> set:
    """The inputs a DeviceCache supplies: with device_cache=True every
    captured array the program only reads; with "auto" those passed in a
    stored layout (the others are passed as they are, which on the CPU
    copies nothing)."""
    if mode is True:
        return set(device_kept_inputs(traced))
    return set(traced.input_layouts) if mode == "auto" else set()


def run_lower(traced: infer.Traced):
    try:
        return lower.lower_to_jax(traced.program, traced.in_avals, traced.input_layouts,
                                  recycled_avals(traced))
    except TpuccError as e:
        raise _without_jax_notes(e) from None
    except RecursionError:
        raise _nesting_limit(traced.program) from None
    except Exception as e:  # noqa: BLE001 - jax rejecting our IR is our bug
        raise InternalError(f"lowering failed: {type(e).__name__}: {e}") from None


def _nesting_limit(program) -> LimitError:
    """Lowering ran out of Python's recursion limit: runtime branches
    nested too deep (each is traced inside the one around it)."""
    op, depth = lower.deepest_branch_chain(program)
    return LimitError(
        f"runtime branches nest {depth} deep here, too deep to compile: about 100 levels is "
        "the limit (an `if`/`elif`, `or` or `and` chain whose tests are comparisons compiles "
        "at any length; one whose tests compute more, or that works between them, nests)",
        op.loc if op is not None else None,
        "dispatch without a chain: look the value up in an array (`TABLE[op]`), test "
        "membership (`c in (9, 10, 13, 32)`), combine the tests with `|` on arrays "
        "(`(c == 0) | (c == 1)`), or use `np.select(conditions, choices)`")


def _without_jax_notes(e: TpuccError) -> TpuccError:
    """A tpucc error raised while jax traced the lowering crossed jax's API
    boundaries (jit, vjp), each of which notes that it removed jax's frames
    from the traceback and names a jax setting: noise about frames the user
    never sees, as tpucc's own are dropped too."""
    notes = getattr(e, "__notes__", None)
    if notes:
        kept = [n for n in notes if "JAX has removed its internal frames" not in n]
        if kept:
            e.__notes__ = kept
        else:
            del e.__notes__
    return e


# XLA options tpucc chooses for the user, per platform.  On the CPU, XLA
# 0.10's experimental YNNPACK fusions slow convolution nets down (VGG19 at
# batch 8: 8985 ms with them, 1134 ms without, measured by the author
# for hand-written jax.jit; the demo measures tpucc with them off).
XLA_OPTIONS = {"cpu": {"xla_cpu_experimental_ynn_fusion_type": ""}}


def run_xla(lowered):
    options = XLA_OPTIONS.get(jax.default_backend(), {})
    with jax.enable_x64(True):
        if options:
            try:
                return lowered.compile(compiler_options=options)
            except Exception:   # noqa: BLE001 - an XLA without these options: its defaults
                pass
        return lowered.compile()


PIPELINE = [("infer", run_infer), ("lower", run_lower), ("xla", run_xla)]


def build_entry(fn, args, kwargs, options, compile_xla=True, places=NO_PLACES) -> Entry:
    """Runs the pipeline.  With compile_xla, the persistent cache (tpucc.cache)
    may supply the executable: lower and XLA are skipped on a hit, and infer
    too when a trace record shows that nothing it read has changed
    (tpucc.snapshot).  `places`: of the Python numbers that earlier traces
    found rebound (infer.scalar_state.Places)."""
    with _collection_paused():
        return _build_entry(fn, args, kwargs, options, compile_xla, places)


@contextlib.contextmanager
def _collection_paused():
    """Python's full garbage collections scan every object of the process
    (0.2 s with torch.compile's modules loaded, measured) and the objects a
    compile allocates trigger them at random moments; a compile leaves little
    cyclic garbage, so collection waits until it is done."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _build_entry(fn, args, kwargs, options, compile_xla, places) -> Entry:
    times = StageTimes()
    disk = cache.Store.open(options.get("cache")) if compile_xla else None
    # A function found rebinding Python numbers (infer.scalar_state) traces:
    # its records (snapshot.describe) are not kept.
    if disk is not None and places == NO_PLACES and not _dumping("ir") and not _dumping("hlo"):
        entry = _replayed_entry(disk, fn, args, kwargs, times, options)
        if entry is not None:
            return entry
    t0 = time.perf_counter()
    traced = run_infer(fn, args, kwargs, options, places)
    times.infer = time.perf_counter() - t0
    _dump("ir", lambda: print_region(traced.program))
    if disk is not None:
        entry, key, material = _build_cached(disk, traced, times, options)
        if key is not None and os.path.exists(disk.path(key)):
            snapshot.store(disk, fn, args, kwargs, options, traced, key, material)
        return entry
    entry = _lowered_entry(traced, times, options)
    if compile_xla:
        _compile(entry)
        times.cache = "off"
    return entry


def _replayed_entry(disk, fn, args, kwargs, times, options) -> Entry | None:
    """The entry from a trace record and the cached executable, or None."""
    t0 = time.perf_counter()
    found = snapshot.find(disk, fn, args, kwargs, options)
    if found is None:
        return None
    traced, key, material, lines_current = found
    executable = disk.load(key, material)
    if executable is None:
        return None
    times.xla, times.cache, times.replayed = time.perf_counter() - t0, "hit", True
    entry = Entry(traced, executable=executable, times=times, options=options)
    args, kwargs = _placeholders(args), _placeholders(kwargs)
    entry.retrace = lambda: run_infer(fn, args, kwargs, options)
    entry.stale_check_locations = not lines_current
    return entry


def _placeholders(tree):
    """The argument structure with array leaves replaced by zero-stride
    arrays of the same dtype and shape: enough to trace again, without
    keeping the caller's arrays alive."""
    if type(tree) is np.ndarray:
        return np.broadcast_to(np.zeros((), tree.dtype), tree.shape)
    if type(tree) in (list, tuple):
        return type(tree)(_placeholders(v) for v in tree)
    if type(tree) is dict:
        return {k: _placeholders(v) for k, v in tree.items()}
    return tree


def _build_cached(disk, traced, times, options):
    """lower and XLA, unless the disk has the executable: looked up by the
    IR's fingerprint before lowering, or by the module's text when the IR
    cannot be fingerprinted.  (entry, its key, the key's material)."""
    key, material = _program_key(traced, options)
    executable = _load(disk, key, material, times)
    if executable is not None and not _dumping("hlo"):
        return Entry(traced, None, None, executable, times=times, options=options), key, material
    entry = _lowered_entry(traced, times, options)
    if executable is None and key is None:
        key, material = _module_key(entry.lowered, options)
        executable = _load(disk, key, material, times)
    if executable is not None:
        entry.executable = executable
        return entry, key, material
    _compile(entry)
    times.cache = "miss"
    disk.save(key, material, entry.executable,
              len(traced.in_avals) + len(recycled_avals(traced)), times.xla,
              callbacks=lambda: cache.has_host_callbacks(traced.program, entry.lowered))
    return entry, key, material


def _lowered_entry(traced, times, options) -> Entry:
    t0 = time.perf_counter()
    jitted, lowered = run_lower(traced)
    times.lower = time.perf_counter() - t0
    _dump("hlo", lambda: lowered.as_text(dialect="hlo"))
    return Entry(traced, jitted, lowered, times=times, options=options)


def _compile(entry: Entry):
    t0 = time.perf_counter()
    entry.executable = run_xla(entry.lowered)
    entry.times.xla = time.perf_counter() - t0


def _program_key(traced, options):
    try:
        fingerprint = cache.program_fingerprint(traced.program)
    except cache.Unfingerprintable:
        return None, None
    material = cache.key_material("ir", fingerprint, options)
    material["lowering"] = _lowering_inputs(traced)
    return cache.key_of(material), material


def _lowering_inputs(traced) -> dict:
    """What run_lower reads besides the program: the same IR with a weight
    kept transposed (device_cache) or with donated write-back buffers is
    another module (a conv's OIHW and HWIO weights of one shape collided)."""
    return {"in_avals": [str(a) for a in traced.in_avals],
            "layouts": sorted((int(i), str(p)) for i, p in traced.input_layouts.items()),
            "recycled": [str(a) for a in recycled_avals(traced)]}


def _module_key(lowered, options):
    text = lowered.as_text(dialect="stablehlo")
    material = cache.key_material("stablehlo", cache.hashlib.sha256(text.encode()).hexdigest(),
                                  options)
    return cache.key_of(material), material


def _load(disk, key, material, times):
    if key is None:
        return None
    t0 = time.perf_counter()
    executable = disk.load(key, material)
    if executable is not None:
        times.xla, times.cache = time.perf_counter() - t0, "hit"
    return executable


def _dumping(stage) -> bool:
    return stage in envvars.words("TPUCC_DUMP", DUMP_STAGES)


DUMP_STAGES = ("ir", "hlo")


def _dump(stage, text):
    if _dumping(stage):
        print(f"--- tpucc {stage} ---\n{text()}", file=sys.stderr)


# --- calling -----------------------------------------------------------------------------
#
# The per-call path is: signature_key -> dict lookup -> entry.run (guards,
# captured arrays, the executable, write-backs, outputs).  Everything
# derivable from the trace is decided once, when entry.run is made (see
# runner), so a call does only what must be re-checked or re-read.

def signature_key(args, kwargs, runtime_names=frozenset(), names=(), promoted=None):
    """(hashable key, runtime leaves in trace order).  `names` (the parameter
    names, padded to len(args)) are only needed with `runtime_names`.
    `promoted`: {argument position or keyword: {keys}} of the items holding
    Python numbers that are runtime leaves (infer.scalar_state)."""
    if promoted:
        return _promoted_signature_key(args, kwargs, runtime_names, names, promoted)
    leaves: list = []
    if runtime_names:
        parts = [_key(a, n in runtime_names, leaves) for a, n in zip(args, names)]
    else:
        parts = [_key(a, False, leaves) for a in args]
    if kwargs:
        # In the caller's order, as infer.trace binds keyword leaves: a `**kw`
        # parameter keeps that order, so it is part of the signature.
        # Tagged apart from positionals.
        parts.extend(("K", k, _key(kwargs[k], k in runtime_names, leaves))
                     for k in kwargs)
    return tuple(parts), leaves


def _promoted_signature_key(args, kwargs, runtime_names, names, promoted):
    """signature_key where some argument items are promoted numbers: each
    argument is keyed with the paths of its items."""
    leaves: list = []
    parts = [_key_with_places(a, names[i] in runtime_names if names else False, leaves,
                              promoted.get(i), ())
             for i, a in enumerate(args)]
    parts.extend(("K", k, _key_with_places(kwargs[k], k in runtime_names, leaves,
                                           promoted.get(k), ()))
                 for k in kwargs)     # in the caller's order, as signature_key
    return tuple(parts), leaves


def _key_with_places(x, runtime_scalar, leaves, places, here):
    """_key, reading the Python numbers at `places` (paths of keys from
    the argument) as runtime leaves."""
    if not places:
        return _key(x, runtime_scalar, leaves)
    if ("buffer", here) in places and infer.buffers.is_buffer(x):
        # its memory a runtime input (infer.buffers); its contents keyed as
        # before, for what the program reads of them at compile time
        leaf = infer.buffers.leaf_of(x)
        leaves.append(leaf)
        return ("B", leaf.dtype, leaf.shape, _key(x, runtime_scalar, []))
    if type(x) in (bool, int, float, complex) and here in places:
        leaves.append(_fits_int64(x))
        return ("R", type(x))
    if isinstance(x, tuple) and (not hasattr(x, "_fields") or is_namedtuple(x)):
        return _tuple_tag(x) + tuple(
            _key_with_places(v, runtime_scalar, leaves, places, here + (i,))
            for i, v in enumerate(x))
    if isinstance(x, list):
        return ("L",) + tuple(_key_with_places(v, runtime_scalar, leaves, places, here + (i,))
                              for i, v in enumerate(x))
    if isinstance(x, dict) and has_static_keys(x):
        return _dict_tag(x) + tuple((k, _key_with_places(v, runtime_scalar, leaves, places, here + (k,)))
                              for k, v in x.items())
    if is_value_dataclass(x, holding_array=True):
        return ("V", type(x)) + tuple(
            _key_with_places(getattr(x, k), runtime_scalar, leaves, places, here + (k,))
            for k in value_fields(x))
    return _key(x, runtime_scalar, leaves)


def _key(x, runtime_scalar, leaves):
    if type(x) is np.ndarray:
        leaves.append(x)
        return (x.dtype, x.shape)         # np.dtype hashes fast; .str builds a string
    if isinstance(x, np.generic) and not isinstance(x, np.character):
        # (np.str_ and np.bytes_ are static strings, keyed by value below.)
        # A NumPy scalar is immutable (`+=` rebinds), a 0-d array is updated in
        # place and written back: different programs for the same dtype and shape.
        leaves.append(x)
        return ("G", x.dtype)
    refuse_array_subclass(x, "argument")
    if isinstance(x, np.ndarray) or infer.is_runtime_leaf(x):
        leaves.append(x)
        # A jax array is immutable (`x += 1` rebinds): another program.
        kind = "J" if isinstance(x, jax.Array) else "A"
        return (kind, np.dtype(x.dtype), tuple(x.shape))
    if isinstance(x, tuple) and (not hasattr(x, "_fields") or is_namedtuple(x)):
        alike = None if runtime_scalar else _alike_scalars_key(x)
        return _tuple_tag(x) + (alike if alike is not None else
                                tuple(_key(v, runtime_scalar, leaves) for v in x))
    if isinstance(x, list):
        alike = None if runtime_scalar else _alike_scalars_key(x)
        return ("L",) + (alike if alike is not None else
                         tuple(_key(v, runtime_scalar, leaves) for v in x))
    if isinstance(x, dict) and has_static_keys(x):
        return _dict_tag(x) + tuple((k, _key(v, runtime_scalar, leaves)) for k, v in x.items())
    if runtime_scalar and isinstance(x, (bool, int, float, complex)):
        leaves.append(_fits_int64(x))
        return ("R", type(x))
    if type(x) is float:
        return ("F", x.hex())             # 0.0 == -0.0, but they fold differently
    if type(x) is complex:
        return ("C", x.real.hex(), x.imag.hex())
    if is_value_dataclass(x, holding_array=True):   # its arrays are runtime inputs
        return ("V", type(x)) + tuple(_key(getattr(x, k), runtime_scalar, leaves)
                                      for k in value_fields(x))
    try:
        hash(x)
    except (TypeError, ValueError):     # (a writable memoryview raises ValueError)
        return ("O", id(x))
    if isinstance(x, (tuple, frozenset)) or dataclasses.is_dataclass(x):
        return ("S", type(x), x, _held_types(x))
    return ("S", type(x), x)


# A tuple or list of this many Python scalars of one type, or more, is keyed
# as a whole (_alike_scalars_key); a shorter one item by item, as before.
ALIKE_SCALARS = 8


def _alike_scalars_key(x):
    """The key of a static tuple or list of Python floats, ints, bools or
    strings, all of one type (polynomial coefficients, a shape), in one
    piece built and compared in C: keyed item by item (_key), a tuple of
    10 000 floats cost 2 ms per call.  Floats are keyed by their bits, as
    _key's hex tells 0.0 from -0.0 (they fold differently); None where the
    items differ in type, or an int does not fit an int64."""
    if len(x) < ALIKE_SCALARS:
        return None
    kinds = set(map(type, x))
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind is float:
        return ("N", float, array.array("d", x).tobytes())
    if kind is int:
        try:
            return ("N", int, array.array("q", x).tobytes())
        except OverflowError:
            return None
    if kind is bool:
        return ("N", bool, bytes(x))
    if kind is str:
        return ("N", str, tuple(x))
    return None


# (api.py recognizes the message: an argument read at run time only because
# it changed is read at compile time again instead)
WIDE_INT_ARGUMENT = "is read at run time, as an int64, and does not fit one"


def _fits_int64(x):
    """A Python int read at run time is an int64 there: one beyond it is
    refused (jax would raise OverflowError from its conversion)."""
    if type(x) is int and not -2**63 <= x < 2**63:
        raise DTypeError(f"the Python int {x} {WIDE_INT_ARGUMENT}",
                         hint="where it holds the 64 bits of a hash, mask or seed, make it "
                              "np.uint64(n) (a NumPy integer is read as its own dtype; a float "
                              "would lose its low bits); else keep it within int64, or leave it "
                              "out of runtime_args")
    return x


def _tuple_tag(x) -> tuple:
    """A namedtuple is keyed item by item, as a tuple is (its arrays are
    runtime inputs: a new P(w, b) each call is no new program), and by its
    class, which the program sees."""
    return ("T",) if type(x) is tuple else ("T", type(x))


def _dict_tag(x) -> tuple:
    """A dict subclass (OrderedDict, defaultdict and its factory) is another
    signature: the program sees that class."""
    if type(x) is dict:
        return ("D",)
    return ("D", type(x), getattr(x, "default_factory", None))


def _held_types(x):
    """Equal hashable arguments can fold differently (P(1, 2) == P(1.0, 2)):
    the types of what a namedtuple, frozenset or dataclass holds, recursively."""
    if isinstance(x, tuple):
        return tuple(map(_held_types, x))
    if isinstance(x, frozenset):
        return frozenset((type(v), _held_types(v)) for v in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return tuple(_held_types(getattr(x, f.name)) for f in dataclasses.fields(x))
    return type(x)


def execute(entry: Entry, leaves, args=(), kwargs=None):
    """Runs the executable on the runtime leaves of the arguments (plus the
    captured arrays, re-read now), writes in-place updates back, and builds
    the output; RECOMPILE if a guarded global was rebound or a captured array
    changed its type."""
    return runner(entry)(leaves, args, kwargs)


def runner(entry: Entry):
    """The per-call function of an entry (made once), specialized on what
    the trace says: the guards, whether 64-bit mode is needed, the captured
    arrays, the write-backs, and one converter per output."""
    if entry.run is not None:
        return entry.run
    traced = entry.traced
    guards = tuple(traced.guards)
    call = staged_caller(_caller(entry.executable, _needs_x64(traced)), traced.in_avals)
    if traced.checks:
        call = checked_caller(call, traced.checks,
                              _retraced_checks(entry) if entry.stale_check_locations else None)
    captured = _capture_reader(traced, entry.options.get("device_cache"))
    # Without a capture reader (which checks them), tied weights are checked here.
    ties = traced.input_identities if captured is None else ()
    n_out, build, single = _output_builder(traced)
    if traced.appends:
        build, single = appends.appending_builder(build, traced.appends), None
    writebacks = traced.writebacks
    aliases = traced.aliases
    # An input's memory layout decided whether reshapes of it are views
    # (written through, or not: NumPy's semantics either way).
    layouts = tuple(traced.input_strides)
    if aliases or traced.returned_aliases:
        single = None               # (the general path binds them)
    if captured is None and not ties and not writebacks and single is not None and not layouts:
        def run(leaves, args=(), kwargs=None):  # the common case, in one frame
            for g, name, value in guards:
                if g.get(name, _MISSING) is not value:
                    return RECOMPILE
            return single(call(*leaves)[0])
    elif captured is not None and not writebacks and single is not None and not layouts:
        def run(leaves, args=(), kwargs=None):  # a model reading its weights
            for g, name, value in guards:
                if g.get(name, _MISSING) is not value:
                    return RECOMPILE
            inputs = captured(leaves)
            return inputs if inputs is RECOMPILE else single(call(*inputs)[0])
    elif writebacks and captured is None and not layouts and not aliases and \
            not traced.returned_aliases and all(wb[0] == "arg" for wb in writebacks):
        run = _argument_update_runner(traced, guards, call, build, ties)
    else:
        updated_args = [wb[1] for wb in writebacks if wb[0] == "arg"]
        # With captured arrays, an updated argument may be one of them (`o.w`
        # of an argument object, the array passed as `w` too), and the other
        # way round: checked on all the inputs once they are read.
        updated_inputs = updated_args + [traced.n_arg_inputs + wb[1] for wb in writebacks
                                         if wb[0] == "captured"]
        pool = output_pool(recycled_avals(traced))
        kept = kept_writebacks(traced)
        written = slice(n_out, n_out + len(writebacks))
        recycled = [n_out + i for i, k in enumerate(kept) if not k]
        replaced = replaced_inputs(traced) if recycles_replaced(traced) else None
        fetch_early = jax.default_backend() != "cpu"
        held_indices = _captured_named(traced)
        tied = tied_pairs(traced.input_identities)

        def run(leaves, args=(), kwargs=None):
            for g, name, value in guards:
                if g.get(name, _MISSING) is not value:
                    return RECOMPILE
            if ties and not _tied_alike(ties, leaves):
                return RECOMPILE
            # (`f(v, v)`, `out=img`: the trace read them as one array where
            # tied; another array at both places compiles again)
            if updated_args and captured is None and check_updated_arguments(
                    updated_args, leaves, lambda i: _source_name(traced.input_sources, i),
                    tied, len(leaves)):
                return RECOMPILE
            inputs = leaves
            if captured is not None:
                inputs = captured(leaves)
                if inputs is RECOMPILE:
                    return RECOMPILE
                if updated_inputs and check_updated_arguments(
                        updated_inputs, inputs, lambda i: _source_name(traced.input_sources, i),
                        tied, traced.n_arg_inputs):
                    return RECOMPILE
            for i, strides in layouts:
                if _strides_unless_contiguous(inputs[i]) != strides:
                    return RECOMPILE
            outs = pool.call(call, inputs)
            # The captured arrays the results and aliases name, as this call
            # read them: a write-back may rebind where they were read from
            # (`old = m.w; m.w = m.w - g; return old, m.w`).
            held = _held_captured(traced, held_indices) if held_indices else None
            if traced.attribute_order:
                _reserve_new_attributes(traced.attribute_order)
            if writebacks:
                _write_back(traced, (leaves, held), outs, written, kept, fetch_early,
                            (args, kwargs))
                pool.give_back([outs[i] for i in recycled], inputs,
                               None if replaced is None else _dropped(inputs, replaced))
            if aliases:
                _bind_aliases(traced, (leaves, held), (args, kwargs))
            return build(outs, (leaves, held), (args, kwargs))
    entry.run = run
    return run


def _argument_update_runner(traced, guards, call, build, ties=()):
    """runner's function for a program whose only write-backs are arguments
    it updates in place (`x += 1`, `w -= lr * g` on NumPy arrays): the
    general path's steps, specialized.  Python run between two calls costs
    XLA:CPU's worker about twice its own time (it sleeps): a small update
    took 2.1x jax.jit's dispatch through the general path."""
    updated = [wb[1] for wb in traced.writebacks]
    n_out = sum(s is infer.RUNTIME for s in traced.out_static)
    targets = [(i, n_out + k) for k, i in enumerate(updated)]
    avals = recycled_avals(traced)
    pool = output_pool(avals) if avals else None
    fetch_early = jax.default_backend() != "cpu"
    tied = tied_pairs(traced.input_identities)

    def name_of(i):
        return _source_name(traced.input_sources, i)

    def run(leaves, args=(), kwargs=None):
        for g, name, value in guards:
            if g.get(name, _MISSING) is not value:
                return RECOMPILE
        if ties and not _tied_alike(ties, leaves):
            return RECOMPILE
        if len(leaves) > 1 or not all(leaves[i].flags.writeable for i in updated
                                      if isinstance(leaves[i], np.ndarray)):
            if check_updated_arguments(updated, leaves, name_of, tied, len(leaves)):
                return RECOMPILE
        outs = call(*leaves) if pool is None else pool.call(call, leaves)
        if fetch_early:
            _start_host_copies([outs[k] for _, k in targets])
        for i, k in targets:
            target = leaves[i]
            if isinstance(target, np.ndarray) and target.flags.writeable:
                write_in_place(target, np.asarray(outs[k]))
        if pool is not None:
            pool.give_back([outs[k] for _, k in targets], leaves)
        return build(outs)
    return run


def _strides_unless_contiguous(x):
    """None for a C-contiguous array (jax arrays are), else its strides."""
    return x.strides if isinstance(x, np.ndarray) and not x.flags.c_contiguous else None


def checked_caller(call, check_records, current_records=None):
    """`call`, raising the failed runtime check's error (the program's last
    output is the checks' code, see infer/checks.py) before anything is
    written back or returned.  `current_records` () -> the check records
    with current locations, where `check_records`' may be out of date."""
    def run_checked(*inputs):
        outs = call(*inputs)
        failed = checks.error(check_records, outs)
        if failed is not None:
            if current_records is not None:
                failed = checks.error(current_records(), outs) or failed
            raise failed
        return outs
    return run_checked


def _retraced_checks(entry: Entry):
    """() -> the check records of a new trace of a replayed entry, made at
    the first failed check: the same checks in the same order (the world
    the record was found by is the same) at the lines where the code is
    now.  Tracing costs what the record saved, so only an error pays it."""
    records = None

    def current():
        nonlocal records
        if records is None:
            records = entry.traced.checks
            try:
                fresh = entry.retrace().checks
            except Exception:   # noqa: BLE001 - the recorded error, at its old line, stands
                return records
            if len(fresh) == len(records):
                records = fresh
        return records
    return current


def _needs_x64(traced) -> bool:
    """jax canonicalizes 64-bit NumPy inputs (and Python scalars) to 32 bits
    outside 64-bit mode, which the executable would refuse.  Entering the
    mode costs about 2 us a call, so programs whose inputs are all 32-bit or
    narrower skip it (their 64-bit outputs come back as they are).  The
    buffers of write-back results (OutputPool) are inputs too."""
    return any(a.weak or _is_64bit(a.dtype) for a in (*traced.in_avals,
                                                       *recycled_avals(traced)))


def _is_64bit(dtype) -> bool:
    return dtype.itemsize == 8 and dtype.kind in "iuf" or dtype == np.complex128


def _caller(executable, x64: bool):
    """A function running the executable on flat inputs."""
    call = _direct_call(executable)
    if not x64:
        return call
    enable_x64 = jax.enable_x64

    def call_x64(*inputs):
        with enable_x64(True):
            return call(*inputs)
    return call_x64


def _direct_call(executable):
    """jax.stages.Compiled.__call__ only forwards to a C++ callable that it
    makes on its first call; calling that directly saves a Python frame
    (about 1 us).  Falls back to the public call if jax changes this."""
    call = getattr(executable, "_call", _MISSING)
    if call is None:                                        # not made yet
        make = getattr(getattr(executable, "_executable", None), "create_cpp_call", None)
        params = getattr(executable, "_params", None)
        try:
            call = make(params) if make is not None and params is not None else None
        except Exception:  # noqa: BLE001 - a private path: use the public one
            call = None
    return call if callable(call) else executable


def _capture_reader(traced, device_cache):
    """None without captured arrays or kept copies; else a function
    appending the captured arrays' current values to the argument leaves
    (RECOMPILE if one changed its type, or if arrays tpucc.grad
    differentiates are one array where they were distinct or the other way
    round: _tied_alike), then putting in the kept copies."""
    # An array the program writes back is re-read at every call even with
    # device_cache: the write-back changes it in place, which the cache
    # (by identity) would not see.
    kept = cached_inputs(traced, device_cache)
    identities = traced.input_identities
    if not traced.captured and not kept:
        return None
    first = traced.n_arg_inputs
    written = [wb[1] for wb in traced.writebacks if wb[0] == "captured"]
    # The trace depends on how each array takes updates (infer.values.frozen_kind):
    # one found as a jax array where a NumPy array was traced, or the other
    # way round, or read-only where the program writes into it, recompiles.
    specs = [(c.getter, c.param.aval.shape, c.param.aval.dtype,
              tuple(g for g, _, _ in c.aliases), c.frozen, i in written, c.number)
             for i, c in enumerate(traced.captured)]
    cached = [(i, traced.input_layouts.get(i)) for i in sorted(kept)]
    device = DeviceCache(verified=device_cache == "auto") if kept else None
    plain = _plain_captures(specs) if not identities and not written and not cached else None

    def read(leaves):
        inputs = list(leaves)
        for getter, shape, dtype, aliases, frozen, updated, number in specs:
            try:
                current = getter()
            except (AttributeError, KeyError, IndexError):
                return RECOMPILE    # deleted: the trace raises where the program reads it
            if number is not None:              # a promoted Python number (scalar_state)
                if type(current) is not number:
                    return RECOMPILE
                _fits_int64(current)
            elif type(current) is np.ndarray:
                if current.shape != shape or current.dtype != dtype or frozen == JAX:
                    return RECOMPILE
                if updated and not current.flags.writeable:
                    return RECOMPILE
            elif not hasattr(current, "dtype") or tuple(np.shape(current)) != shape or \
                    np.dtype(current.dtype) != dtype or \
                    frozen_kind(current) != frozen:
                return RECOMPILE
            for alias in aliases:               # one array at several places when traced
                if alias() is not current:
                    return RECOMPILE
            inputs.append(current)
        if identities and not _tied_alike(identities, inputs):
            return RECOMPILE
        # On the arrays themselves: a kept copy would hide that one shares
        # memory with an array the program updates.
        if written and _written_array_shared(inputs, first, written, traced.input_sources):
            return RECOMPILE
        for i, perm in cached:
            inputs[i] = device.get(i, inputs[i], perm)
        return inputs

    def read_plain(leaves):
        inputs = list(leaves)
        for getter, shape, dtype in plain:
            try:
                current = getter()
            except (AttributeError, KeyError, IndexError):
                return RECOMPILE
            if type(current) is not np.ndarray or current.shape != shape or \
                    current.dtype != dtype:
                return read(leaves)     # a jax array now, or another type: all the checks
            inputs.append(current)
        return inputs
    return read if plain is None else read_plain


def _plain_captures(specs):
    """(getter, shape, dtype) of each captured array when all are NumPy
    arrays the program only reads, found at one place each (a global bias,
    a model's weights): the per-call check is then their type, shape and
    dtype (about half the general reader's time); else None."""
    if all(number is None and not aliases and frozen != JAX and not updated
           for _, _, _, aliases, frozen, updated, number in specs):
        return [spec[:3] for spec in specs]
    return None


def _tied_alike(identities, inputs) -> bool:
    """Whether the arrays tpucc.grad differentiates are one array at the
    same places as when traced (tied weights: one gradient, the total) and
    distinct at the others (Traced.input_identities).  The signature keys
    arguments by type, not identity: a call tying them otherwise compiles
    again."""
    return all(identity_pattern([inputs[i] for i in places]) == pattern
               for places, pattern in identities)


def _written_array_shared(inputs, first, written, sources) -> bool:
    """Whether an array the program updates in place is now also found at
    another captured place (traced as separate arrays, the other would not
    see the update): True (recompile, the trace then sees one array); an
    overlapping view of it (`m.part = m.big[2:4]`), also as an argument,
    raises E500 as overlapping arguments do."""
    # Only arrays over the same memory owner can share memory: compare
    # within those groups (a model's weights each own theirs), not all pairs.
    by_owner: dict = {}
    for j, x in enumerate(inputs):
        if isinstance(x, np.ndarray):
            by_owner.setdefault(id(_memory_owner(x)), []).append(j)
    for i in written:
        target = inputs[first + i]
        if not isinstance(target, np.ndarray):
            continue
        for j in by_owner[id(_memory_owner(target))]:
            other = inputs[j]
            if j == first + i:
                continue
            if other is target:     # (a new trace reads them as one array: calls.capture)
                return True
            if np.may_share_memory(target, other) and shares_elements(target, other):
                raise SideEffectError(
                    f"{_source_name(sources, first + i)} is updated in place and shares "
                    f"memory with {_source_name(sources, j)}: compiled code reads them as "
                    "separate arrays", hint="make one of them a copy (np.copy(x)), or index "
                    "the updated array itself instead of keeping a view of it")
    return False


def _memory_owner(x):
    """The object at the end of x's chain of bases (ndarray views, memoryviews)."""
    while True:
        base = x.base if isinstance(x, np.ndarray) else getattr(x, "obj", None)
        if base is None:
            return x
        x = base


def _output_builder(traced):
    """(number of runtime outputs, function from the executable's outputs to
    the value the user gets, and for a program returning exactly one
    runtime leaf its converter, else None)."""
    converters, k = [], 0
    avals = traced.result_avals
    runtime_kinds, rows = {}, False
    for s in traced.out_static:
        if type(s) is infer.RowOf:
            rows = True
        elif s is infer.RUNTIME:
            scalar = traced.out_scalar[k] if k < len(traced.out_scalar) else True
            if is_runtime_kind(scalar) or python_int_output(scalar):
                runtime_kinds[k] = scalar
            converters.append((k, _converter(avals[k], traced.out_weak[k], scalar)))
            k += 1
        else:
            converters.append((-1, s))
    if runtime_kinds or rows or traced.returned_aliases or traced.out_read_only or any(
            _mutable_static(s) for s in traced.out_static):
        return k, _general_builder(traced, runtime_kinds), None
    treedef = traced.out_treedef
    if treedef is None and converters[0][0] == 0:
        convert = converters[0][1]
        return k, lambda outs, inputs=(), arguments=None: convert(outs[0]), convert
    if treedef is None:
        static = converters[0][1]
        return k, lambda outs, inputs=(), arguments=None: static, None
    if treedef == ("tuple", (None,) * len(converters)) and k == len(converters):
        convs = [conv for _, conv in converters]        # `return a, b`: no tree to walk
        return k, (lambda outs, inputs=(), arguments=None:
                   tuple(map(operator.call, convs, outs))), None

    def build(outs, inputs=(), arguments=None):
        return unflatten(treedef, [conv(outs[i]) if i >= 0 else conv
                                   for i, conv in converters])
    return k, build, None


def _mutable_static(leaf) -> bool:
    """A returned leaf made while compiling that the caller may change in
    place (bytearray(n) the program filled): a copy at each call, else one
    call's changes to it would show in the next call's result."""
    return type(leaf) in (bytearray, array.array)


def is_runtime_kind(scalar) -> bool:
    """An output's `scalar` entry that is the index of the executable output
    saying whether it is a NumPy scalar (runtime branches disagreed: see
    infer.values.RuntimeKind), rather than True or False."""
    return type(scalar) is int


def python_int_output(scalar) -> bool:
    """An output's `scalar` entry [infer.PYTHON_INT_OUTPUT, k, scalar]: a
    Python int where the executable's output k is true (a NumPy integer on
    the other runtime paths: infer/held_ints.py), else as `scalar` says;
    [infer.PYTHON_FLOAT_OUTPUT, k, scalar]: a Python float there (a bool:
    infer.PYTHON_BOOL_OUTPUT)."""
    return type(scalar) in (list, tuple) and scalar[0] in infer.PYTHON_OUTPUT_TYPES


def _held_python_type(scalar, outs):
    """(The Python type an output is on the path taken, where an entry
    python_int_output says so, else None; its `scalar` past the entries.)
    An entry's `scalar` can be another entry: a Python bool where the first
    says so, else a Python int where the second does (held_ints.py)."""
    while python_int_output(scalar):
        tag, held, scalar = scalar
        if bool(np.asarray(outs[held])):
            return infer.PYTHON_OUTPUT_TYPES[tag], scalar
    return None, scalar


def _general_builder(traced, runtime_kinds: dict):
    """The output builder of a program with outputs whose kind (NumPy
    scalar or 0-d array) the executable computes, with leaves that are
    rows of one output (infer.RowOf), or with leaves that are objects the
    caller has or another leaf (infer.Traced.returned_aliases: those take
    the call's input arrays, `inputs`, and its (args, kwargs), `arguments`)."""
    weak = traced.out_weak
    returned = dict(traced.returned_aliases)

    views_of_leaves = [(position, how[1], how[2]) for position, how in returned.items()
                       if how[0] == "leaf_view"]
    repeated = [(position, how[1]) for position, how in returned.items() if how[0] == "leaf"]

    def build(outs, inputs=(), arguments=None):
        leaves, k, hosts = [], 0, {}
        for position, s in enumerate(traced.out_static):
            how = returned.get(position)
            if how is not None and how[0] != "leaf_view":
                leaves.append(None if how[0] == "leaf" else
                              argument_at(arguments, *how[1:]) if how[0] == "argument" else
                              _stored_object(*how[1:]) if how[0] == "written" else
                              _input_object(traced, inputs, *how))
                k += s is infer.RUNTIME
                continue
            if type(s) is infer.RowOf:
                leaves.append(_row_value(s, outs, hosts))
                continue
            if s is not infer.RUNTIME:
                leaves.append(copy.copy(s) if _mutable_static(s) else s)
                continue
            scalar = traced.out_scalar[k] if k < len(traced.out_scalar) else True
            python_type, scalar = _held_python_type(scalar, outs)
            if python_type is not None:
                leaves.append(python_type(np.asarray(outs[k])))
                k += 1
                continue
            if is_runtime_kind(scalar):
                scalar = bool(np.asarray(outs[scalar]))
            leaves.append(to_user_value(outs[k], weak[k], scalar))
            k += 1
        for position, base, view in views_of_leaves:    # (its base may come after it)
            if isinstance(leaves[base], np.ndarray):
                leaves[position] = view(leaves[base])
        for position, first in repeated:    # (after the views: `return m, d, d`, d a view of m)
            leaves[position] = leaves[first]
        for position in traced.out_read_only:       # (after the views made of them)
            if isinstance(leaves[position], np.ndarray):
                leaves[position].flags.writeable = False
        return leaves[0] if traced.out_treedef is None else unflatten(traced.out_treedef, leaves)
    return build


def _row_value(s, outs, hosts: dict):
    """The leaf infer.RowOf `s` describes, as to_user_value gives it; the
    buffer's host copy (and for Python numbers its items, `tolist()` once
    instead of one `.item()` each) kept in `hosts` for its other rows."""
    host = hosts.get(s.output)
    if host is None:
        host = hosts[s.output] = np.asarray(outs[s.output])
    if host.ndim > 1 or (s.weak is None and not s.scalar):
        return np.array(host[s.row])
    if s.weak is None:
        return host[s.row]                      # a NumPy scalar
    items = hosts.get((s.output, "items"))
    if items is None:
        items = hosts[(s.output, "items")] = host.tolist()
    return s.weak(items[s.row])


# How many times a compiled program wrote into each NumPy array (by id, with
# a weak reference telling the array is still that one): a device_cache=True
# copy of an array a compiled training step updates in place is stale after
# the update, which identity alone would not tell.
_WRITES: dict[int, tuple] = {}


def write_in_place(target: np.ndarray, value: np.ndarray) -> None:
    """A write-back into the caller's array, counted for DeviceCache."""
    np.copyto(target, value)
    ref, count = _WRITES.get(id(target), (None, 0))
    if ref is None or ref() is not target:
        ref, count = weakref.ref(target, lambda _, key=id(target): _WRITES.pop(key, None)), 0
    _WRITES[id(target)] = (ref, count + 1)


def _writes_into(array) -> int:
    ref, count = _WRITES.get(id(array), (None, 0))
    return count if ref is not None and ref() is array else 0


class DeviceCache:
    """Device copies of captured arrays, one per input slot, each in the
    physical layout that slot reads it in (`perm`, see
    lower.layout.stored_input_layouts; None: as it is).

    device_cache=True trusts identity: a slot whose place now holds another
    array object uploads that one and drops the old copy (rebinding
    `model.w = new` at every call keeps one copy, not all); the entry holds
    the array itself, so identity is never confused.  `verified` (the
    default "auto") keeps NumPy's semantics: a NumPy array may have changed
    in place, so the entry holds a snapshot of its bytes, compared at every
    call (VGG19's 80 MB of conv weights: about 8 ms, against the 30-35 ms
    of transposing them); a jax array cannot change, so identity suffices
    for those."""
    def __init__(self, verified=False):
        self.verified = verified
        self._entries: dict[int, tuple] = {}
        # Calls from several threads: one compares a snapshot while another
        # refreshes it in place (_snapshot), so they take turns.
        self._lock = threading.Lock()

    def get(self, slot, array, perm=None):
        with self._lock:
            entry = self._entries.get(slot)
            if entry is None or not self._still_holds(entry, array):
                key = self._snapshot(entry, array) if self._compares(array) else array
                # A private copy: on the CPU device_put may alias an aligned NumPy
                # buffer, which would make in-place edits visible only sometimes.
                copy = np.array(array if perm is None else np.transpose(array, perm), order="C")
                with jax.enable_x64(True):
                    entry = (key, jax.device_put(copy), _writes_into(array))
                self._entries[slot] = entry
            return entry[1]

    @staticmethod
    def _snapshot(entry, array):
        """A copy of the array's bytes, into the previous snapshot when it
        fits: a weight that changes before every call would otherwise make
        every call page in fresh memory for it."""
        old = entry[0] if entry is not None else None
        if type(old) is np.ndarray and old.shape == array.shape and old.dtype == array.dtype:
            np.copyto(old, array)
            return old
        return np.array(array)

    def _compares(self, array) -> bool:
        # Any NumPy array, np.memmap included: everything but a jax array
        # (immutable) may change in place.
        return self.verified and isinstance(array, np.ndarray)

    def _still_holds(self, entry, array) -> bool:
        key = entry[0]
        if not self._compares(array):
            return key is array and _writes_into(array) == entry[2]
        return (type(key) is np.ndarray and key.shape == array.shape
                and key.dtype == array.dtype and same_bits(key, array))


# Unsigned views that compare arrays bit for bit, by itemsize.
BITWISE_VIEWS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def same_bits(a, b) -> bool:
    """Whether two arrays of one dtype and shape hold the same bits in every
    element: a NaN equals itself, -0.0 differs from 0.0 (a float comparison
    would miss the one and confuse the other)."""
    view = BITWISE_VIEWS[a.dtype.itemsize]
    a, b = a.view(view), b.view(view)
    # An update (an SGD step) changes nearly every element: the first
    # slice then tells without reading the rest.
    if a.ndim and a.shape[0] and not np.array_equal(a[0], b[0]):
        return False
    return bool(np.array_equal(a, b))


def to_user_value(x, weak=None, scalar=True):
    """A runtime output as eager NumPy would return it: a (writeable) ndarray;
    for 0-d results a NumPy scalar (what ufuncs and reductions give) unless
    `scalar` is False (np.zeros(()), x[...], reshape(()) give 0-d arrays);
    or the Python scalar type `weak` for values that were promoted Python
    scalars."""
    value = np.array(x)
    if value.ndim == 0:
        if weak is not None:
            return weak(value.item())
        return value[()] if scalar else value
    return value


def _converter(aval, weak, scalar=True):
    """to_user_value for one output, specialized on its (known) rank."""
    if aval.shape or (weak is None and not scalar):
        return np.array                   # a writeable copy, as NumPy returns
    if weak is not None:
        return lambda x: weak(np.asarray(x).item())
    return lambda x: np.asarray(x)[()]


def check_updated_arguments(updated, leaves, name_of, tied=frozenset(), first=None) -> bool:
    """Before a call: an argument the program updates in place must be
    writable (NumPy raises for a read-only one), and must not share memory
    with another argument (`f(v, v)`, overlapping slices): the program reads
    each argument as a value of its own, so the other would not see the
    update as in NumPy.  `updated`: leaf indices written back; `name_of(i)`
    names leaf i.  With captured arrays (inputs from `first` on): `tied`,
    the pairs of inputs the trace read as one array (infer.calls
    Captured.tie); True (compile again) where an argument's array is now
    also a captured one, which a new trace reads as one array."""
    for i in updated:
        target = leaves[i]
        if isinstance(target, np.ndarray) and not target.flags.writeable:
            raise SideEffectError(f"{name_of(i)} is read-only, and the function updates it "
                                  "in place (NumPy: 'output array is read-only')",
                                  hint="pass a writable copy (np.copy(x))")
        for j, other in enumerate(leaves):
            if j == i or not isinstance(other, np.ndarray):
                continue
            if other is target and (i, j) in tied:
                continue
            if other is target and first is not None and ((i >= first) != (j >= first)
                                                           or i < first and j < first):
                return True     # (one array at two places: a new trace reads it as one)
            if np.may_share_memory(target, other) and shares_elements(target, other):
                raise SideEffectError(
                    f"{name_of(i)} is updated in place and shares memory with {name_of(j)}: "
                    "compiled code reads them as separate arrays",
                    hint="pass a copy of one of them (np.copy(x))")
    return False


def tied_pairs(identities) -> frozenset:
    """The pairs of input indices (both ways) that Traced.input_identities
    says were one array when traced."""
    return frozenset((a, b) for places, pattern in identities
                     for a, pa in zip(places, pattern) for b, pb in zip(places, pattern)
                     if a != b and pa == pb)


def shares_elements(a, b) -> bool:
    """Whether arrays a and b, whose bounds overlap (np.may_share_memory,
    checked first by the callers: it is cheap, and a training step makes
    ~1500 such tests per call), share an element: a[::2] and a[1::2], or
    two columns, are disjoint within one span, and NumPy runs them as
    separate arrays.  The exact test is bounded (an integer program): past
    SHARE_WORK candidate solutions it answers "shares", which refuses
    rather than miss an overlap."""
    try:
        return bool(np.shares_memory(a, b, max_work=SHARE_WORK))
    except np.exceptions.TooHardError:
        return True


SHARE_WORK = 10_000


def _source_name(sources, i) -> str:
    return sources[i].split(" (")[0] if i < len(sources) else f"argument {i}"


def _write_back(traced, inputs, outs, written: slice, kept, fetch_early: bool, arguments):
    """Puts the program's updates where the user's code put them: into the
    NumPy arrays it updated in place, or as the new value of an attribute it
    rebound: the result itself where `kept` (kept_writebacks), else a NumPy
    array; a Python number as one of its type, also into a global or an
    argument's dict or list (`arguments`: the call's (args, kwargs)); a 0-d
    value of the kind an output says (infer.KindedScalar).  `written`: the
    outputs in `outs` the write-backs take.  On an accelerator, every copy
    to the host is queued first.  `inputs`: (the argument leaves, the
    captured arrays _held_captured kept), which a written-back tuple may
    hold as they are (infer.RebuiltValue)."""
    leaves = inputs[0]
    input_object = functools.partial(_input_alias_object, traced, inputs)
    values = outs[written]
    if fetch_early:
        _start_host_copies([v for v, k in zip(values, kept) if not k])
    for wb, value, keep in zip(traced.writebacks, values, kept):
        if wb[0] == "attr":
            # wb[3]: a Python number's type, or the conversion to a NumPy
            # scalar; an attribute that held a jax array keeps the result as
            # one (kept_writebacks) unless it is now a Python number
            convert = wb[3] if len(wb) > 3 else np.array
            if isinstance(convert, infer.READS_OUTPUTS):
                convert = functools.partial(_converted, convert, outs=outs,
                                            input_object=input_object)
            store_attribute(wb[1], wb[2], value if keep and not isinstance(convert, type)
                            else convert(value))
            continue
        if wb[0] == "item":
            _put_argument_item(arguments, wb[1], wb[2],
                               _converted(wb[3], value, outs, input_object))
            continue
        if wb[0] == "buffer":       # a bytearray argument written through np.frombuffer
            infer.buffers.write_back(argument_at(arguments, wb[1], wb[2]), np.asarray(value))
            continue
        if wb[0] in ("global", "setitem"):     # a namespace's or a container's item
            wb[1][wb[2]] = _converted(wb[3], value, outs, input_object)
            continue
        target = leaves[wb[1]] if wb[0] == "arg" else traced.captured[wb[1]].getter()
        if isinstance(target, np.ndarray) and target.flags.writeable:
            write_in_place(target, np.asarray(value))


_converted = infer.converted_output


def store_attribute(holder, name, value) -> None:
    """holder.name = value after a call, as the compiled code left it.  A
    class's own __setattr__ in Python was traced at each store the program
    made (infer.calls.user_setattr): what it did is done already, so this
    stores past it, as its object.__setattr__ did, not running it again."""
    if infer.calls.user_setattr(type(holder)) is not None:
        object.__setattr__(holder, name, value)
    else:
        setattr(holder, name, value)


def _reserve_new_attributes(order):
    """Enters the attributes new to their objects into their __dict__s in
    the order the program first set them (`m.x = x; m.norm = ...`: vars(m)
    lists x first, as eagerly), before the two passes that set them,
    write-backs (computed values) first, then aliases (input arrays) set
    their values.  Only plain __dict__s: a class with its own __setattr__
    gets its attributes through it, in the passes' order."""
    for obj, name in order:
        namespace = getattr(obj, "__dict__", None)
        if (type(namespace) is dict and name not in namespace
                and type(obj).__setattr__ is object.__setattr__):
            namespace[name] = None


def _bind_aliases(traced, inputs, arguments):
    """Binds each attribute or item the program bound to an input array (or
    a view of one) to this call's array itself (or NumPy's view of it)."""
    for kind, holder, name, source, index, view in traced.aliases:
        value = _input_object(traced, inputs, source, index, view)
        if kind == "attr":
            store_attribute(holder, name, value)
        elif kind == "setitem":
            holder[name] = value
        else:
            _put_argument_item(arguments, holder, name, value)


def _input_alias_object(traced, inputs, alias):
    return _input_object(traced, inputs, *alias)


def _input_object(traced, inputs, source, index, view):
    """This call's input array, or NumPy's view `view` of it, or the array
    a write-back of this call stored (source "written").  `inputs`: (the
    argument leaves, the captured arrays _held_captured kept)."""
    if source == "written":         # what a write-back stored: index is (kind, holder, name)
        return _stored_object(*index)
    leaves, held = inputs
    base = leaves[index] if source == "arg" else held[index]
    return base if view is None else view(base)


def _captured_named(traced) -> list:
    """Indices of the captured arrays that aliases or returned values name."""
    named = {a[4] for a in traced.aliases if a[3] == "captured"}
    named.update(how[1] for _, how in traced.returned_aliases if how[0] == "captured")
    named.update(i for wb in traced.writebacks if isinstance(wb[-1], infer.RebuiltValue)
                 for i in wb[-1].captured_inputs())
    return sorted(named)


def _held_captured(traced, indices) -> dict:
    return {i: traced.captured[i].getter() for i in indices}


def _stored_object(kind, holder, name):
    """The array a write-back stored on an object (infer._returned_stored)."""
    return getattr(holder, name) if kind == "attr" else holder[name]


def _put_argument_item(arguments, root, keys, value):
    """args[root][k1]...[kn] = value (kwargs[root] for a keyword).  A user
    subclass's own __setitem__ was traced at each store the program made:
    this stores past it, as the built-in container does (as store_attribute
    does past a __setattr__), not running it again."""
    container = argument_at(arguments, root, keys[:-1])
    infer.values.native_method(container, "__setitem__")(container, keys[-1], value)


def argument_at(arguments, root, keys):
    """args[root][k1]...[kn] (kwargs[root] for a keyword); a key on the way
    that names a frozen dataclass's field is read as its attribute
    (`st.params["w"]`)."""
    args, kwargs = arguments
    container = args[root] if isinstance(root, int) else kwargs[root]
    for k in keys:
        # (as the program read it: through the built-in class, not a subclass's __getitem__)
        container = infer.values.native_method(container, "__getitem__")(container, k) \
            if isinstance(container, (list, tuple, dict)) else getattr(container, k)
    return container


def _start_host_copies(values):
    """On an accelerator, queues the copy to the host of every write-back
    result before the first one is waited for (np.asarray), so that the
    copies follow each other without a round trip between them."""
    for value in values:
        start = getattr(value, "copy_to_host_async", None)
        if start is not None:
            start()
