"""`tpucc build`: a model file's entry points -> artifact directories.

An artifact `NAME.tpucc/` holds
    manifest.json        what the entry takes and returns, versions, targets,
                         checksums (of every file, and its own: manifest_sha256):
                         JSON, readable without running any code
    module.stablehlo     jax.export serialization of the whole program, for the
                         platforms of every target (portable)
    executable.TAG.bin   the XLA executable for one target (cpu, tpu-v5e-2x2, ...)
                         where it could be compiled here;
                         jax.experimental.serialize_executable, a pickle
    weights.bin          arrays the program read from globals, closures or
                         attributes at build time (model weights), if any: raw
                         and aligned, memory-mapped at load (weights.py)
and, with --emit, readable texts (ir.txt, module.mlir, module.hlo.txt,
module.optimized.TAG.hlo.txt).  The directory is written beside its final
place and renamed into it, so a failed build never leaves half an artifact.
"""
from __future__ import annotations

import contextlib
import datetime
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import types
import time
import traceback
from dataclasses import dataclass, field

import jax
import numpy as np

from .. import lower
from ..driver import is_runtime_kind, python_int_output
from ..ops.registry import lowering_for
from .. import errors
from ..errors import Loc, TpuccError
from . import targets as tg
from . import tree, weights
from .entry import EntryPoint, _param_names, find_entries
from .errors import BuildError

FORMAT = "tpucc-artifact"
# 3: manifest_sha256 (the manifest's own checksum), inputs.parameters (the
# entry's parameters, for keyword arguments to a loaded artifact); later,
# inputs.defaults (optional: a version 3 artifact without it loads as before,
# and a reader that does not know it ignores it)
FORMAT_VERSION = 3
EMITS = ("ir", "stablehlo", "hlo", "optimized-hlo")


def load_model(path: str):
    """Imports a model file as a fresh module; BuildError naming file:line
    for a missing file, a syntax error or an exception while importing."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise BuildError(f"model file {path} " + ("is not a regular file" if os.path.exists(path)
                                                  else "does not exist"))
    name = os.path.splitext(os.path.basename(path))[0]
    if name in sys.modules or not name.isidentifier():
        name = "_tpucc_model_" + hashlib.sha1(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:                    # importlib goes by the suffix
        raise BuildError(f"model file {path} is not a Python file (.py)",
                         hint="name the model file NAME.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module           # dataclasses and pickling look modules up
    sys.path.insert(0, os.path.dirname(path))
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        loc = Loc(e.filename or path, e.lineno or 0, max((e.offset or 1) - 1, 0))
        raise BuildError(f"syntax error in model file: {e.msg}", loc) from None
    except TpuccError:
        raise
    except Exception as e:  # noqa: BLE001 - the model's own import-time code failed
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == path]
        loc = Loc(path, frames[-1].lineno, 0, frames[-1].name) if frames else Loc(path, 0)
        raise BuildError(f"importing the model file raised {type(e).__name__}: {e}",
                         loc) from None
    finally:
        sys.path.remove(os.path.dirname(path))
    return module


def select(entries: list[EntryPoint], names, path) -> list[EntryPoint]:
    if not entries:
        raise BuildError(f"model file {path} declares no entry points",
                         hint='decorate a function with @entry("f32[...]", ...) '
                              "from tpucc.aot")
    if not names:
        return entries
    names = list(dict.fromkeys(names))  # (--entry f --entry f builds f once)
    by_name = {e.name: e for e in entries}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise BuildError(f"model file {path} has no entry named {unknown[0]!r}",
                         hint="its entries are: " + ", ".join(by_name))
    return [by_name[n] for n in names]


class Progress:
    """Build stages on stderr, when enabled (the CLI enables it on a
    terminal): a stage's name shows while it runs and its time when it ends,
    so a long XLA compile is visibly the stage being waited for."""

    def __init__(self, enabled: bool = False, stream=None):
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.live = enabled and _isatty(self.stream)   # rewrite the line when done
        self.times: dict[str, float] = {}

    def say(self, text: str):
        if self.enabled:
            self.stream.write(text + "\n")
            self.stream.flush()

    @contextlib.contextmanager
    def stage(self, name: str, record: bool = True):
        """Times the body (kept in `times` if `record`); `detail` of the
        yielded dict is shown after the time."""
        shown = {"detail": ""}
        if self.live:
            self.stream.write(f"  {name:<24} ...")
            self.stream.flush()
        t0 = time.perf_counter()
        try:
            yield shown
        except BaseException:
            if self.live:
                self.stream.write(" failed\n")
                self.stream.flush()
            raise
        seconds = time.perf_counter() - t0
        if record:
            self.times[name] = round(seconds, 6)
        if self.enabled:
            detail = f"  ({shown['detail']})" if shown["detail"] else ""
            start = "\r" if self.live else ""
            self.stream.write(f"{start}  {name:<24} {seconds * 1e3:9.1f} ms{detail}\n")
            self.stream.flush()


def _isatty(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@dataclass
class Built:
    """One artifact written by a build."""
    path: str
    executables: list[str]          # targets with an executable
    notes: list[str] = field(default_factory=list)


def build_file(model_path, out_dir=".", names=(), targets=("cpu",), emit=(),
               progress: Progress | bool = False, on_built=None,
               on_failed=None) -> list[Built]:
    """Builds the chosen entries of a model file into `out_dir`; the artifacts'
    paths are absolute.

    Every chosen entry is tried, as `make -k` does: each artifact stands
    alone (written whole or not at all), so one entry that cannot be built
    neither stops the others nor hides their own errors.  `on_built(Built)`
    hears of each artifact as it is written and `on_failed(name, error)` of
    each entry's TpuccError; without `on_failed`, the first failure is
    raised once all entries were tried, noting what else was built or failed.
    The model file, the targets and the entry names are checked before
    anything is built: an error there builds nothing."""
    # A model may change the working directory as it imports (to read files
    # next to it): paths are the caller's, so they are resolved before that.
    model_path, out_dir = os.path.abspath(model_path), os.path.abspath(out_dir)
    names, targets, emit = _listed(names), _listed(targets), _listed(emit)
    p = progress if isinstance(progress, Progress) else Progress(bool(progress))
    chosen_targets = tg.parse_all(targets)
    _check_emit(emit)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise BuildError(f"the output directory {out_dir} is a file")
    p.say(f"tpucc build {model_path} (targets {', '.join(t.text for t in chosen_targets)})")
    with p.stage("import model"):
        module = load_model(model_path)
    chosen = select(find_entries(module), list(names), model_path)
    with open(model_path, "rb") as f:
        source_sha = hashlib.sha256(f.read()).hexdigest()
    model = {"path": os.path.abspath(model_path), "sha256": source_sha}
    shared = dict(p.times)
    built, failed = [], []
    for ep in chosen:
        p.say(f"entry {ep.name}")
        p.times = dict(shared)          # each manifest gets its own entry's times
        try:
            b = build_entry(ep, out_dir, model, chosen_targets, emit, p)
        except TpuccError as e:
            p.say(f"entry {ep.name} failed")
            failed.append((ep.name, e))
            if on_failed is not None:
                on_failed(ep.name, e)
            continue
        built.append(b)
        if on_built is not None:
            on_built(b)
    if failed and on_failed is None:
        raise _first_failure(failed, built)
    return built


def _first_failure(failed, built) -> TpuccError:
    """The first entry's error, as it was raised (its own class and code),
    with a note naming the artifacts written and the other failures."""
    error = failed[0][1]
    if built:
        error.add_note("tpucc build: also built " +
                       ", ".join(os.path.basename(b.path) for b in built))
    for name, other in failed[1:]:
        error.add_note(f"tpucc build: entry {name!r} failed too: [{other.code}] "
                       f"{other.message}")
    return error


def _listed(texts) -> tuple:
    """names=, targets=, emit= given one text ("cpu") or several."""
    return (texts,) if isinstance(texts, str) else tuple(texts)


def _check_emit(emit):
    bad = [e for e in emit if e not in EMITS]
    if bad:
        raise BuildError(f"unknown --emit {bad[0]!r}", hint="emits: " + ", ".join(EMITS))


def build_entry(ep: EntryPoint, out_dir, model: dict, targets=("cpu",), emit=(),
                progress: Progress | None = None) -> Built:
    """Builds one entry into OUT_DIR/NAME.tpucc for `targets` (texts or Targets)."""
    p = progress or Progress(False)
    targets, emit = _listed(targets), _listed(emit)
    chosen = [t if isinstance(t, tg.Target) else tg.parse(t) for t in targets]
    _check_emit(emit)
    lowered, args, kwargs = _trace(ep, p)
    traced = lowered.traced
    writebacks = _writebacks(ep, traced)        # first: its refusals say more
    _refuse_program_exceptions(ep, traced.checks)
    signature = {"inputs": _inputs(ep, args, kwargs, traced), "outputs": _outputs(ep, traced),
                 "writebacks": writebacks,
                 "checks": traced.checks}       # runtime checks (infer/checks.py)
    files: dict = {}
    with p.stage("export stablehlo"):
        exported = _export(ep, lowered, chosen)
        files["module.stablehlo"] = bytes(exported.serialize())
    executables, compiled, notes = [], {}, []
    for target in chosen:
        with p.stage(f"xla {target.text}") as shown:
            record, compiled[target.tag] = _executable(ep, lowered, target, files)
            shown["detail"] = "executable" if record["file"] else "no executable"
        executables.append(record)
        if not record["file"]:
            notes.append(f"{target.text}: {record['reason']}")
    with p.stage("write"):
        if traced.captured:
            files[weights.NAME] = _weights(traced, signature["inputs"])
        module_text = exported.mlir_module()
        texts = _emit_texts(lowered, module_text, compiled, emit, notes)
        manifest = {
            "format": FORMAT, "format_version": FORMAT_VERSION,
            **_identity(ep, model), **signature,
            "platform": {"targets": [t.text for t in chosen], "built_on": backend_info()},
            "module": {"file": "module.stablehlo", "platforms": list(exported.platforms),
                       "uses_lapack": "lapack" in module_text,
                       "calling_convention_version": exported.calling_convention_version},
            "executables": executables,
            "files": {},                # filled in by _write as it writes them
            "texts": sorted(texts), "notes": notes, "build_times_s": p.times,
        }
        path = _write(out_dir, ep.name, manifest, files, texts)
    return Built(path, [r["target"] for r in executables if r["file"]], notes)


def _trace(ep, p: Progress):
    """tpucc's infer and lower of the entry on its example arguments."""
    import tpucc
    with p.stage("infer + lower", record=False) as shown:
        args, kwargs = ep.examples()
        # Without print(): an exported module cannot hold its host callback.
        # device_cache=True: the captured arrays the program only reads are
        # taken in their stored layout (conv weights HWIO, traced.input_layouts),
        # and weights.bin holds them so.  An artifact's weights never change,
        # so this saves the CPU a transpose of every conv weight at every call
        # (VGG19: 80 MB), on every target: elsewhere a layout is only the
        # convolution's dimension numbers.
        lowered = tpucc.compile(ep.fn, **ep.options, prints=False,
                                device_cache=True).lower(*args, **kwargs)
        shown["detail"] = (f"infer {lowered.times.infer * 1e3:.1f} ms, "
                           f"lower {lowered.times.lower * 1e3:.1f} ms")
    p.times["infer"], p.times["lower"] = lowered.times.infer, lowered.times.lower
    return lowered, args, kwargs


def _identity(ep, model) -> dict:
    """What was built, from which source, when, with which versions and options."""
    return {"entry": ep.name, "function": getattr(ep.fn, "__qualname__", ep.name),
            "declared_at": str(ep.loc) if ep.loc else None, "model": model,
            "created": datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds"),
            "options": _options(ep), "versions": versions()}


def versions() -> dict:
    import jaxlib
    import tpucc
    return {"tpucc": tpucc.__version__, "jax": jax.__version__,
            "jaxlib": jaxlib.__version__, "libtpu": tg.package_version("libtpu"),
            "numpy": np.__version__, "python": platform.python_version()}


def backend_info() -> dict:
    dev = jax.devices()[0]
    return {"backend": tg.local_platform(), "device_kind": dev.device_kind,
            "machine": platform.machine(), "system": platform.system()}


def _options(ep) -> dict:
    return {k: (list(v) if isinstance(v, (tuple, list)) else v)
            for k, v in sorted(ep.options.items())}


def _export(ep, lowered, chosen):
    platforms = list(dict.fromkeys(t.platform for t in chosen))
    traced = lowered.traced
    structs = lower.input_structs(traced.in_avals, traced.input_layouts)
    try:
        # Traced afresh for the targets: lowerings may choose per platform.
        with jax.enable_x64(True), lowering_for(platforms):
            jitted = jax.jit(lower.to_function(traced.program, traced.input_layouts))
            return jax.export.export(jitted, platforms=platforms)(*structs)
    except TpuccError:
        raise
    except Exception as e:  # noqa: BLE001 - an op jax cannot lower for a platform
        raise BuildError(f"entry {ep.name!r} cannot be exported for "
                         f"{', '.join(platforms)}: {tg.first_line(e)}", ep.loc) from None


def _executable(ep, lowered, target, files) -> tuple[dict, object]:
    """(manifest record, jax Compiled or None) for one target; the
    serialized executable goes into `files`."""
    record = {"target": target.text, "platform": target.platform, "file": None}
    try:
        devices = tg.devices_for(target)
    except tg.NotHere as e:
        record["reason"] = str(e)
        return record, None
    try:
        if target.platform == tg.local_platform() and devices == jax.devices()[:1]:
            compiled = lowered.compile().executable   # tpucc's own compile path (and caches)
        else:
            compiled = tg.compile_for(target, lowered.jitted,
                                      lower.input_structs(lowered.traced.in_avals,
                                                          lowered.traced.input_layouts),
                                      devices)
    except TpuccError:
        raise
    except Exception as e:  # noqa: BLE001 - XLA rejects the program for this target
        raise BuildError(f"XLA cannot compile entry {ep.name!r} for {target.text}: "
                         f"{tg.first_line(e)}", ep.loc) from None
    record.update(tg.describe_devices(target, devices))
    fname = f"executable.{target.tag}.bin"
    blob, info = _serialize_executable(compiled, len(lowered.traced.in_avals))
    record.update(info)
    if blob is not None:
        files[fname] = blob
        record["file"] = fname
    return record, compiled


def _serialize_executable(compiled, n_inputs) -> tuple[bytes | None, dict]:
    from jax.experimental import serialize_executable as se
    try:
        blob, in_tree, out_tree = se.serialize(compiled)
    except Exception as e:  # noqa: BLE001 - optional: the StableHLO module suffices
        return None, {"reason": f"the executable cannot be serialized: "
                                f"{type(e).__name__}: {e}"}
    expected = jax.tree_util.tree_structure((tuple(range(n_inputs)), {}))
    if in_tree != expected:
        return None, {"reason": f"unexpected input tree {in_tree}"}
    text = compiled.as_text() or ""
    return blob, {"n_outputs": out_tree.num_leaves, "uses_lapack": "lapack" in text}


def _inputs(ep, args, kwargs, traced) -> dict:
    """Argument structure (JSON tree), and one record per flat module input."""
    from ..infer import is_runtime_leaf
    from ..infer.state import flatten
    runtime_names = set(ep.options.get("runtime_args", ()))
    flat, n = [], 0

    def node_of(value, root):
        nonlocal n
        pairs: list = []
        td = flatten(value, root, pairs)
        nodes = []
        for path, leaf in pairs:
            scalar = None if is_runtime_leaf(leaf) or root not in runtime_names \
                else tree.scalar_kind(leaf)
            if is_runtime_leaf(leaf) or scalar:
                aval = traced.in_avals[n]
                node = {"leaf": "array", "input": n, "dtype": aval.dtype.name,
                        "shape": list(aval.shape), "path": path}
                record = {"index": n, "kind": "argument", "path": path,
                          "dtype": aval.dtype.name, "shape": list(aval.shape)}
                if scalar:          # a Python scalar traced as a runtime value
                    node["leaf"] = "scalar"
                    node["type"] = record["scalar"] = scalar
                nodes.append(node)
                flat.append(record)
                n += 1
            else:
                nodes.append({"leaf": "static", "value": _static(ep, leaf, path),
                              "path": path})
        try:
            return tree.encode(td, nodes)
        except tree.NotStorable as e:         # a frozen dataclass of arrays
            raise BuildError(f"entry {ep.name!r}: argument {root} holds {e}; an artifact's "
                             "inputs are arrays and tuples, named tuples, lists and dicts "
                             "of them", ep.loc, hint=_OBJECT_ARGUMENT_HINT) from None

    names = _names(ep.fn, len(args))
    arg_nodes = {"tuple": [node_of(a, nm) for a, nm in zip(args, names)]}
    kw_nodes = {"dict": [[k, node_of(v, k)] for k, v in kwargs.items()]}
    if n != traced.n_arg_inputs:
        raise BuildError(f"entry {ep.name!r}: found {n} array arguments but the "
                         f"compiled program has {traced.n_arg_inputs}", ep.loc)
    for j, (c, src) in enumerate(zip(traced.captured, traced.input_sources[n:])):
        aval = traced.in_avals[n + j]
        record = {"index": n + j, "kind": "captured", "key": f"c{j}", "path": src,
                  "dtype": aval.dtype.name, "shape": list(aval.shape)}
        perm = traced.input_layouts.get(n + j)
        if perm is not None:        # stored permuted: "shape" is the stored one
            record["shape"] = list(lower.layout.physical_shape(aval.shape, perm))
            record["layout"] = list(perm)
        flat.append(record)
    return {"names": names, "parameters": _parameters(ep.fn), "defaults": _defaults(ep.fn),
            "args": arg_nodes, "kwargs": kw_nodes, "flat": flat, "n_args": n}


def _parameters(fn) -> list:
    """[name, kind] of each parameter of the entry's function, kind as
    inspect.Parameter's in lower case ("positional_or_keyword", ...): how a
    loaded artifact binds keyword arguments as the function would."""
    import inspect
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    return [[p.name, p.kind.name.lower()] for p in params]


def _defaults(fn) -> dict:
    """name -> {"value": node} for each parameter default that an artifact
    can store (None, numbers, strings and tuples, lists, dicts of them: a
    tree of static leaves), {"unstored": type name} for any other: a loaded
    artifact fills in an omitted argument with its default, as a call of the
    function does, and checks one given for a parameter the build left at
    its default."""
    import inspect
    from ..infer.state import flatten
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return {}
    out = {}
    for p in params:
        if p.default is p.empty:
            continue
        pairs: list = []
        try:
            td = flatten(p.default, p.name, pairs)
            out[p.name] = {"value": tree.encode(td, [
                {"leaf": "static", "value": tree.encode_static(leaf), "path": path}
                for path, leaf in pairs])}
        except (tree.NotStorable, TypeError, ValueError):   # an object, a function
            out[p.name] = {"unstored": type(p.default).__name__}
    return out


def _names(fn, k):
    import inspect
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return [names[i] if i < len(names) else "arg" for i in range(k)]


def _static(ep, value, path):
    try:
        return tree.encode_static(value)
    except tree.NotStorable as e:
        if _holds_arrays(value):        # a dataclass or object of parameters
            raise BuildError(f"entry {ep.name!r}: argument {path} is a {e} holding arrays; an "
                             "artifact's inputs are arrays and tuples, named tuples, lists "
                             "and dicts of them", ep.loc,
                             hint=_OBJECT_ARGUMENT_HINT) from None
        raise BuildError(f"entry {ep.name!r}: argument {path} is a static {e} value, "
                         "which an artifact cannot store", ep.loc,
                         hint="static arguments of an entry must be None, bool, int, "
                              "float, complex, str or NumPy scalars") from None


_OBJECT_ARGUMENT_HINT = ("pass its arrays as a dict or a named tuple (dataclasses.asdict(p), "
                         "or a NamedTuple class) and rebuild the object inside the entry")


def _holds_arrays(value) -> bool:
    """Whether an object's attributes (or a dataclass's fields) hold arrays."""
    attrs = getattr(value, "__dict__", None) or {}
    return any(isinstance(v, (np.ndarray, jax.Array)) for v in attrs.values())


def _outputs(ep, traced) -> dict:
    from ..infer import RUNTIME, CallersContainer, RowOf
    avals = [v.aval for v in traced.program.results]
    nodes, k = [], 0
    paths = _out_paths(traced.out_treedef)
    read_only = set(traced.out_read_only)
    for position, (s, path) in enumerate(zip(traced.out_static, paths)):
        if type(s) is RowOf:        # row `row` of the output `output` (a loop's buffer)
            buffer = avals[s.output]
            nodes.append({"leaf": "runtime", "output": s.output, "row": s.row, "path": path,
                          "weak": s.weak.__name__ if s.weak is not None else None,
                          "scalar": s.scalar, "dtype": buffer.dtype.name,
                          "shape": list(buffer.shape[1:])})
        elif s is RUNTIME:
            weak = traced.out_weak[k]
            scalar = traced.out_scalar[k] if k < len(traced.out_scalar) else True
            while python_int_output(scalar):
                scalar = scalar[2]      # (an artifact gives the NumPy integer on every path)
            node = {"leaf": "runtime", "output": k, "path": path,
                    "weak": weak.__name__ if weak is not None else None,
                    "scalar": bool(scalar),
                    "dtype": avals[k].dtype.name, "shape": list(avals[k].shape)}
            if is_runtime_kind(scalar):
                node["scalar_output"] = scalar     # the output saying whether it is one
            if position in read_only:       # (np.diagonal's, np.broadcast_to's: as NumPy's)
                node["read_only"] = True
            nodes.append(node)
            k += 1
        elif type(s) is CallersContainer:
            # `return d` of a dict or list argument: the loaded entry gives
            # back the caller's own container (its arrays updated in place;
            # an artifact refuses rebinding an argument's item).
            try:
                where = [tree.encode_static(s.root), [tree.encode_static(k) for k in s.keys]]
            except tree.NotStorable as e:
                raise BuildError(f"entry {ep.name!r} returns the container it was passed at "
                                 f"a {e} key (the result {path}), which an artifact cannot "
                                 "store", ep.loc, hint="return a copy (`list(xs)`, "
                                 "`dict(d)`)") from None
            nodes.append({"leaf": "argument", "root": where[0], "keys": where[1], "path": path})
        else:
            try:
                value = tree.encode_static(s)
            except tree.NotStorable as e:
                raise BuildError(f"entry {ep.name!r}: the result {path} is a static {e} "
                                 "value, which an artifact cannot store", ep.loc,
                                 hint="return arrays, numbers, strings or None") from None
            nodes.append({"leaf": "static", "value": value, "path": path})
    try:
        node = tree.encode(traced.out_treedef, nodes)
    except tree.NotStorable as e:
        raise BuildError(f"entry {ep.name!r} returns {e}, which an artifact cannot "
                         "store", ep.loc, hint=_OBJECT_RESULT_HINT if str(e).endswith(
                             " object") else _RESULT_HINT) from None
    return {"tree": node, "n_runtime": k}


_RESULT_HINT = "return arrays, numbers, and tuples, lists, dicts and named tuples of them"
_OBJECT_RESULT_HINT = ("return its arrays as a dict or a named tuple (dataclasses.asdict(s), "
                       "or a NamedTuple class) and rebuild the object from the loaded "
                       "artifact's result")


def _out_paths(treedef) -> list[str]:
    out, stack = [], [(treedef, "out")]
    while stack:
        td, path = stack.pop()
        if td is None:
            out.append(path)
        elif td[0] in ("tuple", "list"):
            stack.extend(reversed([(t, f"{path}[{i}]") for i, t in enumerate(td[1])]))
        elif td[0] == "dict":
            stack.extend(reversed([(t, f"{path}[{k!r}]") for k, t in zip(td[1], td[2])]))
        elif td[0] == "object":
            stack.extend(reversed([(t, f"{path}.{k}") for k, t in zip(td[2], td[3])]))
        else:
            out.append(path)
    return out


def _refuse_program_exceptions(ep, checks) -> None:
    """A check that raises the program's own exception class (`class
    UnitError(ValueError)`) under a runtime condition: a loaded artifact
    runs where the program's module need not be, and could not rebuild it."""
    for check in checks:
        raises = check.get("raises")
        if raises and not errors.is_portable_raisable(raises):
            loc = Loc(*check["loc"]) if check.get("loc") else ep.loc
            raise BuildError(f"entry {ep.name!r} raises {raises}, the program's own exception "
                             "class, under a runtime condition: a loaded artifact raises only "
                             "built-in exceptions (and the standard library's)", loc,
                             hint="raise the built-in class it derives from (ValueError...) "
                                  "in the entry, or build from a function that does")


def _writebacks(ep, traced) -> list:
    out = []
    if traced.appends:
        raise BuildError(f"entry {ep.name!r} appends to a list from outside it, which a "
                         "loaded artifact cannot replay", ep.loc,
                         hint="return the values instead")
    if any(key[0] == "buffer" for key in traced.places.promoted):
        # (an artifact's arguments are arrays: a Python buffer has no spec)
        raise BuildError(f"entry {ep.name!r} reads a bytes, bytearray or array.array argument "
                         "through NumPy (np.frombuffer, np.asarray), which an artifact's "
                         "arguments cannot be", ep.loc,
                         hint="declare that argument as a uint8 array (the caller passes "
                              "np.frombuffer(data, np.uint8))")
    locs = getattr(traced, "writeback_locs", None) or []
    for i, wb in enumerate(traced.writebacks):
        # the line that assigned it, where the trace recorded one
        loc = (locs[i] if i < len(locs) else None) or ep.loc
        if wb[0] in ("global", "setitem"):
            target = f"the global `{wb[2]}`" if wb[0] == "global" else \
                f"the item [{wb[2]!r}] of a {type(wb[1]).__name__} from outside"
            raise BuildError(f"entry {ep.name!r} assigns {target}, which a loaded artifact "
                             "cannot replay", loc, hint="return the new value instead")
        if wb[0] in ("attr", "item"):
            target = ("rebinds a closure variable" if wb[0] == "attr" and isinstance(
                wb[1], types.CellType) else
                f"assigns the attribute .{wb[2]} of a {type(wb[1]).__name__} object"
                if wb[0] == "attr" else
                f"assigns the item {''.join(f'[{k!r}]' for k in wb[2])} of its argument "
                f"{_argument_name(ep, wb[1])}")
            raise BuildError(f"entry {ep.name!r} {target}, which a loaded artifact "
                             "cannot replay", loc,
                             hint="return the new value instead")
        out.append({"kind": "argument" if wb[0] == "arg" else "captured", "index": wb[1]})
    return out


def _argument_name(ep, which) -> str:
    """`d` for the entry's argument at position `which` (or named `which`)."""
    if isinstance(which, int):
        names = _param_names(ep.fn)
        return f"`{names[which]}`" if which < len(names) else f"at position {which}"
    return f"`{which}`"


def _weights(traced, inputs) -> weights.ArrayFile:
    """The captured arrays' file, each in its record's layout; the records
    get its offsets."""
    n = traced.n_arg_inputs
    arrays = weights.ArrayFile(np.transpose(c.getter(), traced.input_layouts[n + j])
                               if n + j in traced.input_layouts else np.asarray(c.getter())
                               for j, c in enumerate(traced.captured))
    records = inputs["flat"][inputs["n_args"]:]
    for r, (offset, nbytes) in zip(records, arrays.layout):
        r["offset"], r["nbytes"] = offset, nbytes
    return arrays


def _emit_texts(lowered, module_text, compiled, emit, notes) -> dict:
    """The --emit texts; `compiled` maps target tags to a Compiled or None."""
    compiled_by_tag = {tag: c for tag, c in compiled.items() if c is not None}
    texts = {}
    if "ir" in emit:
        texts["ir.txt"] = lowered.ir()
    if "stablehlo" in emit:
        texts["module.mlir"] = module_text          # the exported, portable module
    if "hlo" in emit:
        texts["module.hlo.txt"] = lowered.as_text("hlo")
    if "optimized-hlo" in emit:
        for tag, executable in compiled_by_tag.items():
            texts[f"module.optimized.{tag}.hlo.txt"] = executable.as_text()
        if not compiled_by_tag:
            notes.append("optimized-hlo: no target was compiled here, so there is no "
                         "optimized HLO")
    return texts


def _write(out_dir, name, manifest, files, texts) -> str:
    """Writes the artifact directory; `files` (bytes or a weights.ArrayFile)
    are listed in the manifest with their size and sha256."""
    os.makedirs(out_dir, exist_ok=True)
    final = os.path.join(out_dir, f"{name}.tpucc")
    _check_replaceable(final)
    tmp = tempfile.mkdtemp(prefix=f".{name}.tpucc.", dir=out_dir)
    listed = manifest.setdefault("files", {})
    try:
        for fname, data in files.items():
            with open(os.path.join(tmp, fname), "wb") as f:
                if isinstance(data, weights.ArrayFile):
                    listed[fname] = {"size": data.size, "sha256": data.write_to(f)}
                else:
                    f.write(data)
                    listed[fname] = {"size": len(data),
                                     "sha256": hashlib.sha256(data).hexdigest()}
        for fname, text in texts.items():
            with open(os.path.join(tmp, fname), "w") as f:
                f.write(text)
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            json.dump(seal_manifest(manifest), f, indent=1)
            f.write("\n")
        if os.path.isdir(final):
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def manifest_digest(manifest: dict) -> str:
    """The sha256 of a manifest's contents (all but its manifest_sha256), as
    canonical JSON: what load checks, so that an edited or damaged manifest
    (a shape changed, still valid JSON) is refused at load (E810) rather
    than disagreeing with its executable at a call."""
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def seal_manifest(manifest: dict) -> dict:
    """The manifest (as JSON gives it back) with its manifest_sha256 set."""
    manifest = json.loads(json.dumps(manifest))     # tuples as lists, keys as strings
    manifest["manifest_sha256"] = manifest_digest(manifest)
    return manifest


def _check_replaceable(path: str):
    """A build replaces an artifact of the same name, and nothing else: a
    folder holding files no artifact holds (the user's own) is left alone."""
    if not os.path.lexists(path):
        return
    hint = "move it away, or build into another folder (--out)"
    if not os.path.isdir(path) or os.path.islink(path):
        raise BuildError(f"{path} exists and is not a tpucc artifact", hint=hint)
    try:
        with open(os.path.join(path, "manifest.json")) as f:
            listed = set(json.load(f).get("files") or {})
    except (OSError, ValueError, AttributeError):
        raise BuildError(f"{path} exists and is not a tpucc artifact (no readable "
                         "manifest.json): the build would replace it", hint=hint) from None
    foreign = sorted(n for n in os.listdir(path)
                     if n != "manifest.json" and n not in listed and not _emitted_text(n))
    if foreign:
        raise BuildError(f"{path} holds files that are not part of its artifact "
                         f"({', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}): "
                         "the build would delete them", hint=hint)


def _emitted_text(name: str) -> bool:
    """The --emit texts (_emit_texts) an earlier build may have written."""
    return name in ("ir.txt", "module.mlir", "module.hlo.txt") or \
        (name.startswith("module.optimized.") and name.endswith(".hlo.txt"))
