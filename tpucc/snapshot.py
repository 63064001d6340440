"""snapshot: lets a new process skip infer on a persistent-cache hit.

infer is the only complete record of what a program depends on, so a new
process could only trust a cached executable after tracing again.  This
module makes that record checkable without tracing: after a compile it
fingerprints the static world the trace could have read, and stores it next
to the executable with the trace's calling convention (input and output
types, guards, captured arrays, write-backs).  A later process fingerprints
its own world the same way; if the fingerprints agree, the stored calling
convention is bound to its live objects and infer, lower and XLA are all
skipped.

What is fingerprinted (a `Walk`), and why that is enough:

- the roots infer starts from: the compiled function (a bound method's
  object too) and the arguments; and every name the trace read from a
  module namespace (globals of each inlined function, attributes of user
  modules, `from m import x`), including names it found absent (defining
  one later changes what the code means).  Those are the only doors from a
  trace into the heap: everything else infer saw is reachable from them.
- everything reachable from the roots, in a fixed order: the code of every
  function (bytecode, constants, names, defaults, closure cells; not line
  numbers: see below), user classes with their bases and class
  dictionaries, objects' attributes, containers' items, scalars by value.
  Arrays give dtype and shape only: their values are runtime inputs, never
  folded.  Identity is
  part of it (an object met twice is a back-reference), as tied weights
  compile differently from two equal arrays.
- library modules and classes (NumPy, jax, tpucc, the standard library)
  count by name: the key material already holds their versions.

The walk over-approximates what infer read (an attribute the program never
touches still counts), which costs a retrace, never a stale program.  Any
object the walk cannot describe (a C object without a `__dict__`, a lock, a
file) makes the function unreplayable: it is traced in each new process,
as before.  Like in-process reuse, this assumes that library calls
evaluated at compile time are pure (`os.environ` read while compiling is
not seen); TPUCC_CACHE_TRACES=0 turns records off for such programs.

Line numbers are left out so that an edit above a function (a comment, an
import) still replays it; but the record's runtime checks name the lines of
the process that traced (their errors' file:line).  So the walk also hashes
apart where the code is (file, first line, line table): where that differs
from the record's, the driver traces again when a check fails, for the
error's current location (driver._retraced_checks).

Each visited object gets an index (its visit number); where the digests
agree the walks visited the same objects in the same order, so the record
names guard namespaces, captured arrays' owners and write-back targets by
these indices.  Records are JSON (no pickle) in `<cache dir>/trace-v1/`.
"""
from __future__ import annotations

import array
import functools
import hashlib
import sys
import types

import numpy as np

from . import cache, envvars
from .infer.scalar_state import Places
from .infer.values import frozen_kind

FORMAT = "trace-v1"
MAX_OBJECTS = 200_000           # a bigger world is traced rather than walked
MAX_TOKENS = 300_000
_LIBRARIES = frozenset({"numpy", "jax", "jaxlib", "tpucc", "ml_dtypes", "builtins"}) | \
    frozenset(getattr(sys, "stdlib_module_names", ()))
# Caches and slots; 3.13's `__firstlineno__` (where the class statement is,
# which moves with unrelated edits above it).
_SKIPPED_CLASS_KEYS = frozenset({"__dict__", "__weakref__", "_abc_impl", "__firstlineno__"})
_BUILTIN_CALLABLES = (types.BuiltinFunctionType, types.MethodWrapperType,
                      types.WrapperDescriptorType, types.MethodDescriptorType,
                      types.ClassMethodDescriptorType, types.GetSetDescriptorType,
                      types.MemberDescriptorType)


class NotReplayable(Exception):
    """The trace or the world cannot be described for another process."""


# --- the walk --------------------------------------------------------------------------------

class Walk:
    """A digest of everything reachable from the roots given to `visit`, and
    the visited objects in visit order."""

    def __init__(self):
        self._hash = hashlib.sha256()
        self._lines = hashlib.sha256()   # where the code is (see the module docstring)
        self._index: dict[int, int] = {}
        self.objects: list = []          # keeps them alive: ids stay unique
        self._tokens = 0
        self.scalar_types_only = False   # an argument named in runtime_args

    def digest(self) -> str:
        return self._hash.copy().hexdigest()

    def lines_digest(self) -> str:
        return self._lines.hexdigest()

    def index(self, obj) -> int:
        i = self._index.get(id(obj))
        if i is None or self.objects[i] is not obj:
            raise NotReplayable(f"a {type(obj).__name__} not reachable from the roots")
        return i

    def token(self, *parts):
        self._tokens += 1
        if self._tokens > MAX_TOKENS:
            raise NotReplayable("too much static data to fingerprint")
        self._hash.update(repr(parts).encode())
        self._hash.update(b"\0")

    def visit(self, v):
        try:
            self._visit(v)
        except RecursionError:
            raise NotReplayable("static data nested too deeply") from None

    def _visit(self, v):
        t = type(v)
        if self.scalar_types_only and t in (bool, int, float, complex):
            self.token("runtime", t.__name__)     # traced as a runtime value: any value
            return
        if v is None or t in (bool, int, str) or v is Ellipsis:
            self.token(t.__name__, v)
            return
        if t is float:
            self.token("float", v.hex())
            return
        if t is complex:
            self.token("complex", v.real.hex(), v.imag.hex())
            return
        if t is bytes:
            self.token("bytes", v.hex())
            return
        seen = self._index.get(id(v))
        if seen is not None:
            self.token("ref", seen)
            return
        self._index[id(v)] = len(self.objects)
        self.objects.append(v)
        if len(self.objects) > MAX_OBJECTS:
            raise NotReplayable("too many static objects to fingerprint")
        _describe(self, v, t)


def _describe(w: Walk, v, t):
    """Tokens for one (non-scalar) object, then its parts."""
    if isinstance(v, np.ndarray) or _is_jax_array(v):
        # The trace also depends on how the array takes updates (a jax array
        # is immutable, a NumPy one may be read-only) and on its strides
        # where they are not C order's (Traced.input_strides).
        strides = v.strides if isinstance(v, np.ndarray) and not v.flags.c_contiguous else None
        w.token("array", v.dtype.str, str(v.dtype), tuple(v.shape), frozen_kind(v), strides)
    elif isinstance(v, np.generic):
        w.token("npscalar", v.dtype.str, str(v.dtype), v.tobytes().hex())
    elif isinstance(v, np.dtype):
        w.token("dtype", v.str, str(v))
    elif isinstance(v, (int, float, complex, str, bytes)):     # a subclass's instance
        # (exact ones are tokens already): its value, then what else it holds
        base = next(b for b in (int, float, complex, str, bytes) if isinstance(v, b))
        w.token("subclass value", base.__name__, repr(base(v)) if base is not float
                else float(v).hex())
        _object(w, v, t, described=True)
    elif isinstance(v, (tuple, list)):
        w.token("seq", len(v))
        _class(w, t)
        for x in v:
            w._visit(x)
        if hasattr(v, "__dict__"):
            w._visit(vars(v))
    elif isinstance(v, dict):
        w.token("dict", len(v))
        _class(w, t)
        for k, x in v.items():
            w._visit(k)
            w._visit(x)
        if t is not dict:
            w._visit(getattr(v, "default_factory", None))
    elif isinstance(v, (set, frozenset)):
        _class(w, t)
        items = sorted(repr(x) for x in v)
        if any(type(x) not in (bool, int, str, float, type(None)) for x in v):
            raise NotReplayable("a set of non-scalar values")
        w.token("set", tuple(items))
    elif isinstance(v, types.ModuleType):
        w.token("module", v.__name__)
    elif isinstance(v, type):
        _class_body(w, v)
    elif isinstance(v, types.FunctionType):
        w.token("function", v.__module__, v.__qualname__)
        _code(w, v.__code__)
        w._visit(v.__defaults__)
        w._visit(v.__kwdefaults__)
        w._visit(v.__closure__)
        w._visit(vars(v))
    elif isinstance(v, types.CellType):
        try:
            contents = v.cell_contents
        except ValueError:
            w.token("empty cell")
        else:
            w.token("cell")
            w._visit(contents)
    elif isinstance(v, types.CodeType):
        _code(w, v)
    elif isinstance(v, types.MethodType):
        w.token("method")
        w._visit(v.__self__)
        w._visit(v.__func__)
    elif isinstance(v, _BUILTIN_CALLABLES):
        owner = getattr(v, "__self__", None)
        w.token("builtin", getattr(v, "__module__", None), getattr(v, "__qualname__", None))
        if owner is not None and not isinstance(owner, types.ModuleType):
            w._visit(owner)
    elif isinstance(v, np.ufunc):
        w.token("ufunc", v.__name__)
    elif isinstance(v, (staticmethod, classmethod)):
        w.token(t.__name__)
        w._visit(v.__func__)
    elif isinstance(v, property):
        w.token("property")
        for part in (v.fget, v.fset, v.fdel):
            w._visit(part)
    elif isinstance(v, functools.partial):
        w.token("partial")
        for part in (v.func, v.args, v.keywords):
            w._visit(part)
    elif isinstance(v, (range, slice)):
        w.token(t.__name__, v.start, v.stop, v.step)
    elif isinstance(v, (bytearray, array.array)):
        w.token(t.__name__, getattr(v, "typecode", None), bytes(v).hex())
    elif hasattr(t, "__tpucc_snapshot__"):
        _class(w, t)
        w._visit(v.__tpucc_snapshot__())
    else:
        _object(w, v, t)


def _object(w: Walk, v, t, described=False):
    """A plain object: its class, then its attributes (dict and slots)."""
    _class(w, t)
    if hasattr(v, "__dict__"):
        w._visit(vars(v))
        described = True
    for klass in t.__mro__:
        slots = vars(klass).get("__slots__", ())
        for name in ((slots,) if isinstance(slots, str) else slots):
            if name in ("__dict__", "__weakref__"):
                continue
            w.token("slot", name)
            w._visit(getattr(v, name, _Unset))
            described = True
    if not described:
        raise NotReplayable(f"a {t.__module__}.{t.__qualname__} object")


class _Unset:
    """An empty slot (the class is a library constant: visited by name)."""


def _class(w: Walk, t):
    w._visit(t)


def _class_body(w: Walk, c: type):
    w.token("class", c.__module__, c.__qualname__)
    if _is_library(c.__module__):
        return
    if type(c) is not type:
        w._visit(type(c))
    w._visit(c.__bases__)
    for k, x in vars(c).items():
        if k not in _SKIPPED_CLASS_KEYS:
            w.token("attr", k)
            w._visit(x)


def _code(w: Walk, co: types.CodeType):
    w.token("code", co.co_code.hex(), co.co_names, co.co_varnames, co.co_freevars,
            co.co_cellvars, co.co_argcount, co.co_posonlyargcount, co.co_kwonlyargcount,
            co.co_flags, getattr(co, "co_qualname", co.co_name),
            getattr(co, "co_exceptiontable", b"").hex())
    w._lines.update(repr((co.co_filename, co.co_firstlineno, co.co_linetable.hex())).encode())
    w._visit(co.co_consts)


def _is_library(module) -> bool:
    return (module or "").split(".")[0] in _LIBRARIES


def _is_jax_array(v) -> bool:
    return type(v).__module__.startswith("jax") and hasattr(v, "shape") and hasattr(v, "dtype")


def roots(fn, args, kwargs, runtime_names=frozenset()) -> Walk:
    """The walk of the function and its arguments (what the lookup key is
    made of).  Python scalars in arguments named in runtime_args count by
    type: they are runtime values."""
    from .infer import _param_names
    w = Walk()
    w.token("function")
    w.visit(fn)
    names = _param_names(fn, len(args)) if runtime_names else [None] * len(args)
    for a, name in [*zip(args, names), *((v, k) for k, v in kwargs.items())]:
        w.token("argument", name if name in kwargs else None)
        if isinstance(a, np.generic) and not isinstance(a, np.character):
            # A NumPy scalar argument is a runtime value, like an array: its
            # value is an input, not part of what the trace read (np.str_ and
            # np.bytes_ are static strings: their values are walked).
            w.token("npscalar-argument", a.dtype.str)
            continue
        w.scalar_types_only = name in runtime_names
        w.visit(a)
        w.scalar_types_only = False
    return w


def add_module_reads(w: Walk, reads):
    """Continues the walk with each (module, name) the trace read."""
    for module, name in reads:
        m = sys.modules.get(module)
        if m is None:
            raise NotReplayable(f"module {module} is not imported")
        ns = vars(m)
        w.token("global", module, name, name in ns)
        if name in ns:
            w.visit(ns[name])


# --- the record: the trace's calling convention by walk indices ----------------------------------

def describe(traced, w: Walk) -> dict:
    """The JSON record of `traced` (its module reads already walked)."""
    from .infer import RUNTIME, RowOf
    if any(wb[0] in ("item", "global", "setitem") or len(wb) > 3 for wb in traced.writebacks) or any(
            c.number is not None for c in traced.captured):
        # places found by walking the arguments (infer.scalar_state): by object
        raise NotReplayable("rebinds argument items or Python numbers")
    if any(key[0] == "buffer" for key in getattr(traced, "places", Places()).promoted):
        # (a new process keys its first call without the buffer's memory)
        raise NotReplayable("reads a bytes, bytearray or array.array argument as an array")
    if traced.appends:
        raise NotReplayable("appends to lists from outside the call (found by identity)")
    if traced.aliases:
        raise NotReplayable("binds attributes to input arrays (found by identity)")
    if any(how[0] in ("arg", "captured") and how[2] is not None
           for _, how in traced.returned_aliases):
        raise NotReplayable("returns views of input arrays (made by NumPy functions)")
    if any(how[0] == "leaf_view" for _, how in traced.returned_aliases):
        raise NotReplayable("returns views of its other results (made by NumPy functions)")
    if any(how[0] == "written" for _, how in traced.returned_aliases):
        raise NotReplayable("returns arrays it stores on objects (found by identity)")
    if traced.process_local is not None:
        raise NotReplayable(traced.process_local)
    if any(c.hop is None for c in traced.captured):
        raise NotReplayable("reads arrays an lru_cache function answers (found by calling it)")
    guards = []
    for ns, key, _ in traced.guards:
        owner, kind = traced.namespaces[id(ns)][1:]
        if kind == "identities":        # one guard per object, made again as a SlotGuardView
            guards.extend({"owner": _ref(w, obj, "slots"), "kind": "slots", "key": _static(key)}
                          for obj in ns.objects)
            continue
        guards.append({"owner": _ref(w, owner, kind), "kind": kind,
                       "key": _encode_guard_key(kind, key)})
    captured = [{"owner": _ref(w, c.owner, c.hop[0]), "hop": [c.hop[0], _static(c.hop[1])],
                 "aval": _aval(c.param.aval), "source": list(c.source), "frozen": c.frozen,
                 "aliases": [{"owner": _ref(w, o, h[0]), "hop": [h[0], _static(h[1])]}
                             for _, o, h in c.aliases]}
                for c in traced.captured]
    writebacks = [list(wb) if wb[0] != "attr" else
                  ["attr", _ref(w, wb[1], "object"), wb[2]] for wb in traced.writebacks]
    k = 0
    statics = []
    for s in traced.out_static:
        if type(s) is RowOf:
            statics.append({"row": [s.output, s.row, s.weak and s.weak.__name__, s.scalar]})
            continue
        statics.append({"runtime": k} if s is RUNTIME else {"value": _static(s)})
        k += s is RUNTIME
    return {"in_avals": [_aval(a) for a in traced.in_avals],
            "n_arg_inputs": traced.n_arg_inputs,
            "result_avals": [_aval(a) for a in traced.result_avals],
            "out_tree": _treedef(w, traced.out_treedef),
            "out_static": statics,
            "out_weak": [t.__name__ if t is not None else None for t in traced.out_weak],
            "out_scalar": list(traced.out_scalar),
            "writebacks": writebacks, "captured": captured, "guards": guards,
            "input_sources": list(traced.input_sources),
            "input_layouts": [[i, list(perm)] for i, perm in sorted(traced.input_layouts.items())],
            "checks": traced.checks,
            "input_strides": [[i, None if st is None else list(st)]
                              for i, st in traced.input_strides],
            "input_identities": [[list(places), list(pattern)]
                                 for places, pattern in traced.input_identities],
            "returned_aliases": [[position, list(how)]
                                 for position, how in traced.returned_aliases],
            "out_read_only": list(traced.out_read_only)}


def rebind(record: dict, w: Walk):
    """An infer.Traced (without a program) for the live objects of this
    process, from a record whose world digest matched `w`."""
    from .infer import RUNTIME, RowOf, Traced
    from .aot import tree
    from .infer.calls import Captured, CellGuardView, ListGuardView, SlotGuardView
    from .infer.contents import ContentsGuardView
    from .infer.values import MISSING
    from .ir import Value
    guards = []
    for g in record["guards"]:
        owner = _resolve(w, g["owner"])
        ns = {"vars": lambda o: vars(o), "globals": lambda o: vars(o), "dict": lambda o: o,
              "list": ListGuardView, "cell": CellGuardView, "slots": SlotGuardView,
              "contents": ContentsGuardView}[g["kind"]](owner)
        key = _decode_guard_key(g["kind"], g["key"])
        guards.append((ns, key, ns.get(key, MISSING)))
    captured = [Captured(tuple(c["source"]), _getter(_resolve(w, c["owner"]), c["hop"]), None,
                         Value(_decode_aval(c["aval"])), None, _resolve(w, c["owner"]),
                         (c["hop"][0], tree.decode_static(c["hop"][1])),
                         aliases=[(_getter(_resolve(w, a["owner"]), a["hop"]), None, None)
                                  for a in c.get("aliases", [])], frozen=c.get("frozen"))
                for c in record["captured"]]
    writebacks = [tuple(wb) if wb[0] != "attr" else ("attr", _resolve(w, wb[1]), wb[2])
                  for wb in record["writebacks"]]
    weak = {"bool": bool, "int": int, "float": float, "complex": complex, None: None}
    out_static = [RUNTIME if "runtime" in s else
                  RowOf(s["row"][0], s["row"][1], weak[s["row"][2]], s["row"][3]) if "row" in s
                  else tree.decode_static(s["value"]) for s in record["out_static"]]
    return Traced(None, [_decode_aval(a) for a in record["in_avals"]], record["n_arg_inputs"],
                  _decode_treedef(w, record["out_tree"]), out_static,
                  [weak[t] for t in record["out_weak"]], writebacks, captured, guards,
                  input_sources=record["input_sources"], out_scalar=record["out_scalar"],
                  result_avals=[_decode_aval(a) for a in record["result_avals"]],
                  input_layouts={i: tuple(perm) for i, perm in record.get("input_layouts", [])},
                  checks=record.get("checks", []),
                  input_strides=[(i, None if st is None else tuple(st))
                                 for i, st in record.get("input_strides", [])],
                  input_identities=[(tuple(places), tuple(pattern))
                                    for places, pattern in record.get("input_identities", [])],
                  returned_aliases=[(position, tuple(how))
                                    for position, how in record.get("returned_aliases", [])],
                  out_read_only=record.get("out_read_only", []))


def _ref(w: Walk, obj, kind):
    """How the record names an object: a module by name, else its walk index."""
    if kind == "globals":
        name = obj.get("__name__")
        if not isinstance(name, str) or name not in sys.modules or vars(sys.modules[name]) \
                is not obj:
            raise NotReplayable("a function whose globals are not a module's")
        return ["module", name]
    if isinstance(obj, types.ModuleType):
        if sys.modules.get(obj.__name__) is not obj:
            raise NotReplayable(f"module {obj.__name__} is not in sys.modules")
        return ["module", obj.__name__]
    return ["object", w.index(obj)]


def _resolve(w: Walk, ref):
    return sys.modules[ref[1]] if ref[0] == "module" else w.objects[ref[1]]


def _getter(owner, hop):
    """Re-reads a captured array from its owner, as the trace's getter did."""
    from .aot import tree
    kind, key = hop[0], tree.decode_static(hop[1])
    if kind == "attr":
        return lambda: getattr(owner, key)
    if kind == "globals":
        ns = vars(owner)
        return lambda: ns[key]
    if kind == "cell":
        return lambda: owner.cell_contents
    return lambda: owner[key]


def _encode_guard_key(kind, key):
    """A guard's key: a static value, or for a container's whole contents
    (infer/contents.py) ("len", n) or ("items", n or dict keys, skipped slots)."""
    if kind != "contents":
        return _static(key)
    tag, slots, *skipped = key
    slots = _static(slots) if isinstance(slots, int) else [_static(k) for k in slots]
    return [tag, slots] + [[_static(s) for s in part] for part in skipped]


def _decode_guard_key(kind, j):
    from .aot import tree
    if kind != "contents":
        return tree.decode_static(j)
    tag, slots, *skipped = j
    slots = slots if isinstance(slots, int) else tuple(map(tree.decode_static, slots))
    return (tag, slots) + tuple(tuple(map(tree.decode_static, part)) for part in skipped)


def _static(v):
    from .aot import tree
    try:
        return tree.encode_static(v)
    except tree.NotStorable as e:
        raise NotReplayable(f"a static {e}") from None


def _aval(a) -> list:
    cache._dtype_text(a.dtype)          # refuses structured and object dtypes
    return [a.dtype.name, list(a.shape), bool(a.weak)]


def _decode_aval(j):
    from .aot.spec import dtype_of
    from .ir import AVal
    return AVal(dtype_of(j[0]), tuple(j[1]), j[2])


def _treedef(w: Walk, td):
    if td is None:
        return None
    kind = td[0]
    if kind == "list" and len(td) > 2:
        raise NotReplayable("a returned list subclass")
    if kind in ("tuple", "list"):
        return [kind, [_treedef(w, t) for t in td[1]]]
    if kind == "dict" and len(td) > 3:
        raise NotReplayable("a returned dict subclass")
    if kind == "dict":
        return ["dict", [_static(k) for k in td[1]], [_treedef(w, t) for t in td[2]]]
    if kind == "object":
        return ["object", _ref(w, td[1], "object"), list(td[2]),
                [_treedef(w, t) for t in td[3]]]
    if kind == "chosen":        # a static object chosen at run time: the objects it indexes
        from .aot import tree
        try:
            return ["chosen", tree.encode_objects(td[1])]
        except tree.NotStorable as e:
            raise NotReplayable(f"a returned choice among static objects ({e})") from None
    if kind == "optional":      # a Python number or None: its one leaf says which
        return ["optional"]
    raise NotReplayable(f"a returned {kind}")


def _decode_treedef(w: Walk, j):
    from .aot import tree
    if j is None:
        return None
    kind = j[0]
    if kind in ("tuple", "list"):
        return (kind, tuple(_decode_treedef(w, t) for t in j[1]))
    if kind == "dict":
        return ("dict", tuple(tree.decode_static(k) for k in j[1]),
                tuple(_decode_treedef(w, t) for t in j[2]))
    if kind == "chosen":
        return ("chosen", tuple(tree.decode_static(o) for o in j[1]))
    if kind == "optional":
        return ("optional",)
    return ("object", _resolve(w, j[1]), tuple(j[2]), tuple(_decode_treedef(w, t) for t in j[3]))


# --- on disk ---------------------------------------------------------------------------------

def _lookup(fn, args, kwargs, options):
    """(walk of the roots, key, key material)."""
    w = roots(fn, args, kwargs, frozenset(options.get("runtime_args", ())))
    material = cache.key_material(FORMAT, w.digest(), options)
    return w, cache.key_of(material), material


def enabled() -> bool:
    """TPUCC_CACHE_TRACES=0 keeps executables cached but traces in every
    process (for programs that read something at compile time that the
    fingerprint cannot see, such as os.environ)."""
    return envvars.flag("TPUCC_CACHE_TRACES", True)


def find(disk, fn, args, kwargs, options):
    """(Traced without a program, program key, program key material, whether
    its checks' locations are current) when a record for this function,
    these arguments and this world exists; else None.  Never raises."""
    if not enabled():
        return None
    try:
        w, key, material = _lookup(fn, args, kwargs, options)
        record = disk.load_record(FORMAT, key, material)
        if record is None:
            return None
        add_module_reads(w, [tuple(r) for r in record["module_reads"]])
        if w.digest() != record["world"]:
            cache._count("trace_misses")
            return None
        traced = rebind(record["trace"], w)
    except Exception:   # noqa: BLE001 - anything unexpected: trace as before
        cache._count("trace_misses")
        return None
    cache._count("trace_hits")
    lines_current = record.get("lines") == w.lines_digest()
    return traced, record["program_key"], record["program_material"], lines_current


def store(disk, fn, args, kwargs, options, traced, program_key, program_material):
    """Records `traced` for later processes (after a compile whose executable
    is in the cache).  Never raises."""
    if not enabled():
        return False
    try:
        w, key, material = _lookup(fn, args, kwargs, options)
        reads = list(dict.fromkeys(traced.module_reads))
        add_module_reads(w, reads)
        record = {"module_reads": [list(r) for r in reads], "world": w.digest(),
                  "lines": w.lines_digest(),
                  "program_key": program_key, "program_material": program_material,
                  "trace": describe(traced, w)}
    except NotReplayable:
        cache._count("trace_unreplayable")
        return False
    except Exception:   # noqa: BLE001 - the cache must never fail a compile
        cache._count("errors")
        return False
    return disk.save_record(FORMAT, key, material, record)
