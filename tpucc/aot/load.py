"""`tpucc.aot.load(path)`: an artifact directory -> a callable.

The callable takes the entry's arguments (same structure as at build time),
checks their dtypes and shapes, runs the program and returns what the
in-process `tpucc.compile` function returns (0-d results as NumPy scalars,
promoted Python scalars as Python scalars, static results as built).  It
never needs the model's source.  It runs the serialized XLA executable when
this process has the jax, jaxlib and backend it was built with, and otherwise
compiles the portable StableHLO module (saying so once on stderr).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
import sys

import jax
import numpy as np

from ..driver import to_user_value

from . import tree
from .build import FORMAT, FORMAT_VERSION, backend_info, versions
from .errors import ArgumentError, ArtifactError
from .spec import aval_text, dtype_of

_told: set = set()          # artifacts whose fallback was already reported


def read_manifest(path: str) -> dict:
    """The manifest of an artifact directory, checked for format and version."""
    mpath = os.path.join(path, "manifest.json")
    if not os.path.isdir(path):
        raise ArtifactError(f"artifact {path} does not exist (or is not a directory)",
                            hint="build one with `tpucc build MODEL.py`")
    if not os.path.isfile(mpath):
        raise ArtifactError(f"artifact {path} has no manifest.json",
                            hint="rebuild it with `tpucc build`")
    try:
        with open(mpath, encoding="utf-8") as f:
            manifest = json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        raise ArtifactError(f"the manifest {mpath} is corrupted or truncated: {e}",
                            hint="rebuild the artifact with `tpucc build`") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArtifactError(f"{mpath} is not a tpucc artifact manifest")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        raise ArtifactError(f"artifact {path} has format version {version}; this tpucc "
                            f"({versions()['tpucc']}) reads version {FORMAT_VERSION}",
                            hint="rebuild the artifact with this tpucc")
    missing = [k for k in ("entry", "inputs", "outputs", "files", "versions", "platform")
               if k not in manifest]
    if missing:
        raise ArtifactError(f"the manifest {mpath} is corrupted: no {missing[0]!r}",
                            hint="rebuild the artifact with `tpucc build`")
    return manifest


def read_file(path: str, manifest: dict, name: str) -> bytes:
    """A file of the artifact, checked against the manifest's size and sha256."""
    info = manifest["files"].get(name)
    fpath = os.path.join(path, name)
    if info is None:
        raise ArtifactError(f"artifact {path} does not list {name}")
    if not os.path.isfile(fpath):
        raise ArtifactError(f"artifact {path} is missing {name}",
                            hint="copy the whole directory, or rebuild it")
    with open(fpath, "rb") as f:
        data = f.read()
    if len(data) != info["size"]:
        raise ArtifactError(f"{fpath} is truncated: {len(data)} bytes, the manifest "
                            f"says {info['size']}", hint="copy it again, or rebuild it")
    if hashlib.sha256(data).hexdigest() != info["sha256"]:
        raise ArtifactError(f"{fpath} is corrupted: its sha256 differs from the manifest's",
                            hint="copy it again, or rebuild it")
    return data


def load(path: str, prefer: str = "executable") -> "LoadedEntry":
    """Loads an artifact directory (NAME.tpucc).  prefer="stablehlo" skips the
    serialized executable and always compiles the portable module."""
    path = os.fspath(path)
    manifest = read_manifest(path)
    return LoadedEntry(path, manifest, prefer)


class LoadedEntry:
    def __init__(self, path, manifest, prefer="executable"):
        self.path, self.manifest = path, manifest
        self.name = manifest["entry"]
        inputs = manifest["inputs"]
        self._n_args = inputs["n_args"]
        self._captured = self._load_captured(inputs["flat"][self._n_args:])
        out = manifest["outputs"]
        self._out_leaves = tree.leaves(out["tree"])
        self._n_out = out["n_runtime"]
        self._writebacks = manifest.get("writebacks", [])
        self.using, self._run = self._runner(prefer)

    def __repr__(self):
        return f"<tpucc artifact {self.name!r} at {self.path} ({self.using})>"

    # --- loading -----------------------------------------------------------------------

    def _load_captured(self, records):
        if not records:
            return []
        data = read_file(self.path, self.manifest, "captured.npz")
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                arrays = [npz[r["key"]] for r in records]
        except Exception as e:  # noqa: BLE001 - a damaged zip
            raise ArtifactError(f"{self.path}/captured.npz is unreadable: {e}") from None
        return [jax.device_put(a) for a in arrays]

    def _runner(self, prefer):
        reason = self._executable_mismatch() if prefer == "executable" else "asked for"
        if reason is None:
            try:
                return "executable", self._load_executable()
            except ArtifactError:
                raise
            except Exception as e:  # noqa: BLE001 - fall back to the portable module
                reason = f"its executable did not load ({type(e).__name__}: {e})"
        run = self._load_exported()
        if reason != "asked for" and self.path not in _told:
            _told.add(self.path)
            print(f"tpucc: {self.path}: {reason}; compiling its StableHLO module instead",
                  file=sys.stderr)
        return "stablehlo", run

    def _executable_mismatch(self) -> str | None:
        m = self.manifest
        exe = m.get("executable") or {}
        if not exe.get("file"):
            return "it has no serialized executable" + (
                f" ({exe['reason']})" if exe.get("reason") else "")
        built, here = m["versions"], versions()
        for k in ("jax", "jaxlib"):
            if built.get(k) != here[k]:
                return f"it was built with {k} {built.get(k)}, this is {k} {here[k]}"
        bi, hi = m["platform"], backend_info()
        for k in ("backend", "platform_version", "machine", "system"):
            if bi.get(k) != hi[k]:
                return f"it was built for {k} {bi.get(k)!r}, this is {hi[k]!r}"
        return None

    def _load_executable(self):
        from jax.experimental import serialize_executable as se
        exe = self.manifest["executable"]
        blob = read_file(self.path, self.manifest, exe["file"])
        if exe.get("uses_lapack"):
            _init_lapack()
        n_in = len(self.manifest["inputs"]["flat"])
        in_tree = jax.tree_util.tree_structure((tuple(range(n_in)), {}))
        out_tree = jax.tree_util.tree_structure(tuple(range(exe["n_outputs"])))
        device = jax.devices()[0]
        with jax.enable_x64(True):
            return se.deserialize_and_load(blob, in_tree, out_tree, backend=device.client,
                                           execution_devices=[device])

    def _load_exported(self):
        blob = read_file(self.path, self.manifest, "module.stablehlo")
        try:
            exported = jax.export.deserialize(bytearray(blob))
        except Exception as e:  # noqa: BLE001 - an incompatible serialization version
            raise ArtifactError(f"{self.path}/module.stablehlo does not load with jax "
                                f"{jax.__version__}: {type(e).__name__}: {e}",
                                hint="rebuild the artifact with this jax") from None
        backend = jax.default_backend()
        if backend not in exported.platforms:
            raise ArtifactError(f"artifact {self.path} was built for "
                                f"{', '.join(exported.platforms)}, not {backend}",
                                hint=f"rebuild it with --target {backend}")
        return jax.jit(exported.call)

    # --- calling -----------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        leaves = self.flatten_args(args, kwargs)
        with jax.enable_x64(True):
            outs = self._run(*leaves, *self._captured)
        if self._writebacks:
            self._write_back(leaves, outs[self._n_out:])
        return self._rebuild(outs)

    def flatten_args(self, args, kwargs) -> list:
        """The runtime leaves of the arguments in input order, checked."""
        inputs = self.manifest["inputs"]
        arg_nodes = inputs["args"]["tuple"]
        if len(args) != len(arg_nodes):
            raise ArgumentError(f"{self.name} takes {len(arg_nodes)} positional "
                                f"arguments, got {len(args)}")
        kw_nodes = dict((k, n) for k, n in inputs["kwargs"]["dict"])
        if set(kwargs) != set(kw_nodes):
            raise ArgumentError(f"{self.name} takes the keyword arguments "
                                f"{sorted(kw_nodes)}, got {sorted(kwargs)}")
        out = [None] * self._n_args
        names = inputs.get("names") or [f"arg{i}" for i in range(len(args))]
        for node, value, name in zip(arg_nodes, args, names):
            _match(node, value, out, name)
        for k, node in inputs["kwargs"]["dict"]:
            _match(node, kwargs[k], out, k)
        return out

    def _rebuild(self, outs):
        def leaf(node):
            if node["leaf"] == "static":
                return tree.decode_static(node["value"])
            weak = node.get("weak")
            return to_user_value(outs[node["output"]], tree.WEAK_TYPES[weak] if weak else None)
        return tree.build(self.manifest["outputs"]["tree"], leaf)

    def _write_back(self, leaves, values):
        for wb, value in zip(self._writebacks, values):
            if wb["kind"] == "argument":
                target = leaves[wb["index"]]
                if isinstance(target, np.ndarray) and target.flags.writeable:
                    np.copyto(target, np.asarray(value))
            else:
                self._captured[wb["index"]] = value


def _match(node, value, out, path):
    """Checks `value` against a manifest node; stores its array leaves in `out`."""
    if "leaf" in node:
        if node["leaf"] == "static":
            expected = tree.decode_static(node["value"])
            if type(value) is not type(expected) or value != expected:
                raise ArgumentError(f"argument {path} was built as the static "
                                    f"value {expected!r}, got {value!r}",
                                    hint="a loaded artifact cannot recompile; rebuild it "
                                         "for other static values")
            return
        dtype, shape = dtype_of(node["dtype"]), tuple(node["shape"])
        want = aval_text(dtype, shape)
        if not (hasattr(value, "dtype") and hasattr(value, "shape")):
            raise ArgumentError(f"argument {path} expects an array {want}, got "
                                f"{type(value).__name__} {value!r:.40}",
                                hint=f"pass np.asarray(value, np.{dtype.name})")
        got = aval_text(np.dtype(value.dtype), tuple(value.shape))
        if np.dtype(value.dtype) != dtype or tuple(value.shape) != shape:
            raise ArgumentError(f"argument {path} expects {want}, got {got}",
                                hint="a loaded artifact has fixed input types; convert "
                                     "the argument or rebuild the artifact")
        out[node["input"]] = value
        return
    kind = next(iter(node))
    want_type = {"tuple": tuple, "list": list, "dict": dict}[kind]
    if not isinstance(value, want_type) or (kind == "tuple" and hasattr(value, "_fields")):
        raise ArgumentError(f"argument {path} expects a {kind}, got "
                            f"{type(value).__name__}")
    if kind == "dict":
        keys = [k for k, _ in node["dict"]]
        if set(value) != set(keys):
            raise ArgumentError(f"argument {path} expects a dict with keys {keys}, got "
                                f"{list(value)}")
        for k, n in node["dict"]:
            _match(n, value[k], out, f"{path}[{k!r}]")
        return
    if len(value) != len(node[kind]):
        raise ArgumentError(f"argument {path} expects a {kind} of {len(node[kind])} "
                            f"items, got {len(value)}")
    for i, (n, v) in enumerate(zip(node[kind], value)):
        _match(n, v, out, f"{path}[{i}]")


def _init_lapack():
    """A deserialized CPU executable with LAPACK custom calls segfaults unless
    jax has registered its LAPACK kernels in this process (jax issue 28908)."""
    import jax.numpy as jnp
    with jax.enable_x64(True):
        for dt in (jnp.float32, jnp.float64, jnp.complex64, jnp.complex128):
            jnp.linalg.inv(jnp.eye(2, dtype=dt)).block_until_ready()
