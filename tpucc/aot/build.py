"""`tpucc build`: a model file's entry points -> artifact directories.

An artifact `NAME.tpucc/` holds
    manifest.json      what the entry takes and returns, versions, checksums (JSON)
    module.stablehlo   jax.export serialization of the whole program (portable)
    executable.bin     the XLA executable for this jax/jaxlib/backend (optional;
                       jax.experimental.serialize_executable, a pickle)
    captured.npz       arrays the program read from globals, closures or
                       attributes at build time (model weights), if any
and, with --emit, readable texts (ir.txt, module.mlir, module.hlo.txt,
module.optimized.hlo.txt).  The directory is written beside its final place
and renamed into it, so a failed build never leaves half an artifact.
"""
from __future__ import annotations

import datetime
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import traceback

import jax
import numpy as np

from ..errors import Loc, TpuccError
from . import tree
from .entry import EntryPoint, find_entries
from .errors import BuildError

FORMAT = "tpucc-artifact"
FORMAT_VERSION = 1
EMITS = ("ir", "stablehlo", "hlo", "optimized-hlo")
TARGETS = ("cpu", "cuda", "rocm", "tpu")


def load_model(path: str):
    """Imports a model file as a fresh module; BuildError naming file:line
    for a missing file, a syntax error or an exception while importing."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise BuildError(f"model file {path} does not exist")
    name = os.path.splitext(os.path.basename(path))[0]
    if name in sys.modules or not name.isidentifier():
        name = "_tpucc_model_" + hashlib.sha1(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
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
    by_name = {e.name: e for e in entries}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise BuildError(f"model file {path} has no entry named {unknown[0]!r}",
                         hint="its entries are: " + ", ".join(by_name))
    return [by_name[n] for n in names]


class Progress:
    """Stage names and times, on stderr when it is a terminal."""
    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.times: dict[str, float] = {}

    def stage(self, name, seconds):
        self.times[name] = round(seconds, 6)
        if self.enabled:
            print(f"  {name:<14} {seconds * 1e3:9.1f} ms", file=sys.stderr, flush=True)


def build_file(model_path, out_dir=".", names=(), targets=("cpu",), emit=(),
               progress=False) -> list[str]:
    """Builds the chosen entries of a model file; returns the artifact paths."""
    t0 = time.perf_counter()
    module = load_model(model_path)
    import_s = time.perf_counter() - t0
    chosen = select(find_entries(module), list(names), model_path)
    with open(model_path, "rb") as f:
        source_sha = hashlib.sha256(f.read()).hexdigest()
    model = {"path": os.path.abspath(model_path), "sha256": source_sha}
    paths = []
    for ep in chosen:
        p = Progress(progress)
        if progress:
            print(f"tpucc build: {ep.name}", file=sys.stderr, flush=True)
        p.stage("import", import_s)
        paths.append(build_entry(ep, out_dir, model, targets, emit, p))
    return paths


def build_entry(ep: EntryPoint, out_dir, model: dict, targets=("cpu",), emit=(),
                progress: Progress | None = None) -> str:
    import tpucc
    p = progress or Progress(False)
    bad = [t for t in targets if t not in TARGETS]
    if bad:
        raise BuildError(f"unknown target {bad[0]!r}", hint="targets: " + ", ".join(TARGETS))
    t = time.perf_counter()
    args, kwargs = ep.examples()
    lowered = tpucc.compile(ep.fn, **ep.options).lower(*args, **kwargs)
    traced = lowered.traced
    p.stage("infer", lowered.times.infer)
    p.stage("lower", lowered.times.lower)
    t = time.perf_counter()
    inputs = _inputs(ep, args, kwargs, traced)
    outputs = _outputs(ep, traced)
    writebacks = _writebacks(ep, traced)
    files: dict[str, bytes] = {}
    structs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in traced.in_avals]
    with jax.enable_x64(True):
        exported = jax.export.export(lowered.jitted, platforms=list(targets))(*structs)
        files["module.stablehlo"] = bytes(exported.serialize())
    p.stage("export", time.perf_counter() - t)
    executable, compiled = {"file": None,
                                   "reason": f"{jax.default_backend()} is not a target"}, None
    local = jax.default_backend()
    if local in targets or "optimized-hlo" in emit:
        t = time.perf_counter()
        compiled = lowered.compile()
        p.stage("xla", time.perf_counter() - t)
    if local in targets:
        t = time.perf_counter()
        executable = _serialize_executable(compiled, len(traced.in_avals), files)
        p.stage("serialize", time.perf_counter() - t)
    t = time.perf_counter()
    if traced.captured:
        files["captured.npz"] = _captured_npz(traced)
    texts = _emit_texts(lowered, compiled, emit)
    manifest = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "entry": ep.name, "function": getattr(ep.fn, "__qualname__", ep.name),
        "declared_at": str(ep.loc) if ep.loc else None,
        "model": model,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(),
        "platform": {"targets": list(targets), **backend_info()},
        "inputs": inputs, "outputs": outputs, "writebacks": writebacks,
        "executable": executable,
        "files": {n: {"size": len(b), "sha256": hashlib.sha256(b).hexdigest()}
                  for n, b in files.items()},
        "build_times_s": p.times,
    }
    path = _write(out_dir, ep.name, manifest, files, texts)
    p.stage("write", time.perf_counter() - t)
    return path


def versions() -> dict:
    import jaxlib
    import tpucc
    return {"tpucc": tpucc.__version__, "jax": jax.__version__,
            "jaxlib": jaxlib.__version__, "numpy": np.__version__,
            "python": platform.python_version()}


def backend_info() -> dict:
    dev = jax.devices()[0]
    return {"backend": dev.platform, "platform_version": dev.client.platform_version,
            "device_kind": dev.device_kind, "machine": platform.machine(),
            "system": platform.system()}


def _inputs(ep, args, kwargs, traced) -> dict:
    """Argument structure (JSON tree), and one record per flat module input."""
    from ..infer import is_runtime_leaf
    from ..infer.state import flatten
    flat, n = [], 0

    def node_of(value, root):
        nonlocal n
        pairs: list = []
        td = flatten(value, root, pairs)
        nodes = []
        for path, leaf in pairs:
            if is_runtime_leaf(leaf):
                aval = traced.in_avals[n]
                nodes.append({"leaf": "array", "input": n, "dtype": aval.dtype.name,
                              "shape": list(aval.shape), "path": path})
                flat.append({"index": n, "kind": "argument", "path": path,
                             "dtype": aval.dtype.name, "shape": list(aval.shape)})
                n += 1
            else:
                nodes.append({"leaf": "static", "value": _static(ep, leaf, path),
                              "path": path})
        return tree.encode(td, nodes)

    names = _names(ep.fn, len(args))
    arg_nodes = {"tuple": [node_of(a, nm) for a, nm in zip(args, names)]}
    kw_nodes = {"dict": [[k, node_of(v, k)] for k, v in kwargs.items()]}
    if n != traced.n_arg_inputs:
        raise BuildError(f"entry {ep.name!r}: found {n} array arguments but the "
                         f"compiled program has {traced.n_arg_inputs}", ep.loc)
    for j, (c, src) in enumerate(zip(traced.captured, traced.input_sources[n:])):
        aval = traced.in_avals[n + j]
        flat.append({"index": n + j, "kind": "captured", "key": f"c{j}", "path": src,
                     "dtype": aval.dtype.name, "shape": list(aval.shape)})
    return {"names": names, "args": arg_nodes, "kwargs": kw_nodes, "flat": flat,
            "n_args": n}


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
        raise BuildError(f"entry {ep.name!r}: argument {path} is a static {e} value, "
                         "which an artifact cannot store", ep.loc,
                         hint="static arguments of an entry must be None, bool, int, "
                              "float, complex, str or NumPy scalars") from None


def _outputs(ep, traced) -> dict:
    from ..infer import RUNTIME
    avals = [v.aval for v in traced.program.results]
    nodes, k = [], 0
    paths = _out_paths(traced.out_treedef)
    for s, path in zip(traced.out_static, paths):
        if s is RUNTIME:
            weak = traced.out_weak[k]
            nodes.append({"leaf": "runtime", "output": k, "path": path,
                          "weak": weak.__name__ if weak is not None else None,
                          "dtype": avals[k].dtype.name, "shape": list(avals[k].shape)})
            k += 1
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
                         "store", ep.loc) from None
    return {"tree": node, "n_runtime": k}


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
        else:
            out.append(path)
    return out


def _writebacks(ep, traced) -> list:
    out = []
    for wb in traced.writebacks:
        if wb[0] == "attr":
            raise BuildError(f"entry {ep.name!r} assigns the attribute .{wb[2]} of a "
                             f"{type(wb[1]).__name__} object, which a loaded artifact "
                             "cannot replay", ep.loc,
                             hint="return the new value instead")
        out.append({"kind": "argument" if wb[0] == "arg" else "captured", "index": wb[1]})
    return out


def _serialize_executable(compiled, n_inputs, files) -> dict:
    from jax.experimental import serialize_executable as se
    try:
        blob, in_tree, out_tree = se.serialize(compiled)
    except Exception as e:  # noqa: BLE001 - optional: the StableHLO module suffices
        return {"file": None, "reason": f"{type(e).__name__}: {e}"}
    expected = jax.tree_util.tree_structure((tuple(range(n_inputs)), {}))
    if in_tree != expected:
        return {"file": None, "reason": f"unexpected input tree {in_tree}"}
    files["executable.bin"] = blob
    text = compiled.as_text() or ""
    return {"file": "executable.bin", "n_outputs": out_tree.num_leaves,
            "out_tree": "tuple", "uses_lapack": "lapack" in text}


def _captured_npz(traced) -> bytes:
    import io
    arrays = {f"c{j}": np.asarray(c.getter()) for j, c in enumerate(traced.captured)}
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _emit_texts(lowered, compiled, emit) -> dict:
    texts = {}
    if "ir" in emit:
        texts["ir.txt"] = lowered.ir()
    if "stablehlo" in emit:
        texts["module.mlir"] = lowered.as_text("stablehlo")
    if "hlo" in emit:
        texts["module.hlo.txt"] = lowered.as_text("hlo")
    if "optimized-hlo" in emit and compiled is not None:
        texts["module.optimized.hlo.txt"] = compiled.as_text()
    return texts


def _write(out_dir, name, manifest, files, texts) -> str:
    os.makedirs(out_dir, exist_ok=True)
    final = os.path.join(out_dir, f"{name}.tpucc")
    tmp = tempfile.mkdtemp(prefix=f".{name}.tpucc.", dir=out_dir)
    try:
        for fname, data in files.items():
            with open(os.path.join(tmp, fname), "wb") as f:
                f.write(data)
        for fname, text in texts.items():
            with open(os.path.join(tmp, fname), "w") as f:
                f.write(text)
        with open(os.path.join(tmp, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        if os.path.isdir(final):
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final
