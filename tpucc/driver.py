"""driver: from a Python function and arguments to a cached XLA executable.

The pipeline is one visible list of named stages (PIPELINE).  A compiled
function keeps one Entry per signature (argument pytree structure, array
dtypes/shapes, static values); an entry is reused while the guards on the
static globals it read still hold and the captured arrays keep their types.
`TPUCC_DUMP=stage[,stage]` prints a stage's output (ir, hlo) to stderr.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field

import jax
import numpy as np

from . import infer, lower
from .errors import InternalError, ShapeError, TpuccError
from .infer.state import unflatten
from .ir import print_region, verify

_MISSING = object()
RECOMPILE = object()     # execute(): the entry no longer fits the arguments


@dataclass
class StageTimes:
    infer: float = 0.0
    lower: float = 0.0
    xla: float = 0.0

    def __str__(self):
        return (f"infer {self.infer * 1e3:.1f} ms, lower {self.lower * 1e3:.1f} ms, "
                f"xla {self.xla * 1e3:.1f} ms")


@dataclass
class Entry:
    traced: infer.Traced
    jitted: object                  # the jax.jit function: its C++ dispatch runs calls
    lowered: object                 # jax.stages.Lowered
    executable: object = None       # jax.stages.Compiled
    times: StageTimes = field(default_factory=StageTimes)
    plan: object = None             # precomputed per-call work (see execute)
    options: dict = field(default_factory=dict)

    def guards_hold(self) -> bool:
        for g, name, value in self.traced.guards:
            current = g.get(name, _MISSING)
            if current is not value:
                return False
        return True


def run_infer(fn, args, kwargs, options) -> infer.Traced:
    traced = infer.trace(fn, args, kwargs, options)
    if options.get("verify") or os.environ.get("TPUCC_VERIFY"):
        verify(traced.program)      # SSA and scoping of the IR handed to lower/
    return traced


def run_lower(traced: infer.Traced):
    try:
        return lower.lower_to_jax(traced.program, traced.in_avals)
    except TpuccError:
        raise
    except Exception as e:  # noqa: BLE001 - jax rejecting our IR is our bug
        raise InternalError(f"lowering failed: {type(e).__name__}: {e}") from None


def run_xla(lowered):
    with jax.enable_x64(True):
        return lowered.compile()


PIPELINE = [("infer", run_infer), ("lower", run_lower), ("xla", run_xla)]


def build_entry(fn, args, kwargs, options, compile_xla=True) -> Entry:
    times = StageTimes()
    t0 = time.perf_counter()
    traced = run_infer(fn, args, kwargs, options)
    t1 = time.perf_counter()
    _dump("ir", lambda: print_region(traced.program))
    jitted, lowered = run_lower(traced)
    t2 = time.perf_counter()
    _dump("hlo", lambda: lowered.as_text(dialect="hlo"))
    times.infer, times.lower = t1 - t0, t2 - t1
    entry = Entry(traced, jitted, lowered, times=times, options=options)
    if compile_xla:
        entry.executable = run_xla(lowered)
        times.xla = time.perf_counter() - t2
    return entry


def _dump(stage, text):
    wanted = os.environ.get("TPUCC_DUMP", "")
    if stage in wanted.split(","):
        print(f"--- tpucc {stage} ---\n{text()}", file=sys.stderr)


# --- calling -----------------------------------------------------------------------------

def signature_key(args, kwargs, runtime_names, names):
    """(hashable key, runtime leaves in trace order)."""
    leaves: list = []
    parts = []
    for a, n in zip(args, names):
        parts.append(_key(a, n in runtime_names, leaves))
    for k in sorted(kwargs):
        parts.append((k, _key(kwargs[k], k in runtime_names, leaves)))
    return tuple(parts), leaves


def _key(x, runtime_scalar, leaves):
    if isinstance(x, np.ndarray):
        leaves.append(x)
        return ("A", x.dtype.str, x.shape)
    if isinstance(x, np.generic) or infer.is_runtime_leaf(x):
        leaves.append(x)
        return ("A", np.dtype(x.dtype).str, tuple(x.shape))
    if isinstance(x, tuple) and not hasattr(x, "_fields"):
        return ("T",) + tuple(_key(v, runtime_scalar, leaves) for v in x)
    if isinstance(x, list):
        return ("L",) + tuple(_key(v, runtime_scalar, leaves) for v in x)
    if isinstance(x, dict) and all(isinstance(k, (str, int)) for k in x):
        return ("D",) + tuple((k, _key(v, runtime_scalar, leaves)) for k, v in x.items())
    if runtime_scalar and isinstance(x, (bool, int, float, complex)):
        leaves.append(x)
        return ("R", type(x))
    try:
        hash(x)
        return ("S", type(x), x)
    except TypeError:
        return ("O", id(x))


def execute(entry: Entry, leaves):
    """Runs the executable on the runtime leaves of the arguments (plus the
    captured arrays, re-read now), writes in-place updates back, and builds
    the output.  This is the per-call path: everything derivable from the
    trace is precomputed in `entry.plan`."""
    plan = entry.plan or _make_plan(entry)
    inputs = leaves
    if plan.captured:
        inputs = list(leaves)
        for c in plan.captured:
            current = c.getter()
            if tuple(np.shape(current)) != c.param.aval.shape or \
                    np.dtype(current.dtype) != c.param.aval.dtype:
                return RECOMPILE                  # a captured array changed type
            inputs.append(plan.device.get(current) if plan.device is not None else current)
    with jax.enable_x64(True):
        outs = entry.jitted(*inputs)
    if plan.writebacks:
        _write_back(entry.traced, leaves, outs[plan.n_out:])
    leaves_out = [conv(outs[i]) if i >= 0 else conv for i, conv in plan.outputs]
    return leaves_out[0] if plan.single else unflatten(entry.traced.out_treedef, leaves_out)


@dataclass
class Plan:
    n_out: int
    outputs: list           # (runtime output index, converter) or (-1, static value)
    captured: list
    writebacks: bool
    single: bool            # the output is one leaf, not a container
    device: "DeviceCache | None" = None


class DeviceCache:
    """Device copies of captured arrays, by array identity (option
    device_cache=True).  The cache holds the array itself, so an id is never
    reused for another array while its entry lives."""
    def __init__(self):
        self._entries: dict[int, tuple] = {}

    def get(self, array):
        entry = self._entries.get(id(array))
        if entry is None or entry[0] is not array:
            # A private copy: on the CPU device_put may alias an aligned NumPy
            # buffer, which would make in-place edits visible only sometimes.
            with jax.enable_x64(True):
                entry = (array, jax.device_put(np.array(array, copy=True)))
            self._entries[id(array)] = entry
        return entry[1]


def _make_plan(entry) -> Plan:
    traced = entry.traced
    outputs, k = [], 0
    for s in traced.out_static:
        if s is infer.RUNTIME:
            outputs.append((k, _converter(traced.out_weak[k])))
            k += 1
        else:
            outputs.append((-1, s))
    cache = DeviceCache() if entry.options.get("device_cache") else None
    entry.plan = Plan(k, outputs, list(traced.captured), bool(traced.writebacks),
                      traced.out_treedef is None, cache)
    return entry.plan


def to_user_value(x, weak=None):
    """A runtime output as eager NumPy would return it: a (writeable) ndarray,
    a NumPy scalar for 0-d results, or the Python scalar type `weak` for
    values that were promoted Python scalars."""
    value = np.array(x)
    if value.ndim == 0:
        return weak(value.item()) if weak is not None else value[()]
    return value


def _converter(weak):
    return lambda x: to_user_value(x, weak)


def _write_back(traced, leaves, values):
    for wb, value in zip(traced.writebacks, values):
        if wb[0] == "arg":
            target = leaves[wb[1]]
            if isinstance(target, np.ndarray) and target.flags.writeable:
                np.copyto(target, np.asarray(value))
        elif wb[0] == "captured":
            target = traced.captured[wb[1]].getter()
            if isinstance(target, np.ndarray):
                np.copyto(target, np.asarray(value))
        else:
            _, obj, name = wb
            setattr(obj, name, np.array(value))
