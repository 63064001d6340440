"""`tpucc.aot.load(path)`: an artifact directory -> a callable.

The callable takes the entry's arguments (same structure as at build time),
checks their dtypes and shapes, runs the program and returns what the
in-process `tpucc.compile` function returns (0-d results as NumPy scalars,
promoted Python scalars as Python scalars, static results as built).  It
never needs the model's source.  It runs the serialized XLA executable for
this process's backend when the jax, jaxlib (libtpu) versions and the devices
are the ones it was built for, and otherwise compiles the portable StableHLO
module (saying so in a FallbackWarning).
"""
from __future__ import annotations

import hashlib
import json
import os
import warnings

import jax
import numpy as np

from ..driver import argument_at, check_updated_arguments, to_user_value
from ..infer import checks, optional_numbers
from ..errors import OptionError, TpuccError

from . import schema, targets, tree, weights
from .build import FORMAT, FORMAT_VERSION, manifest_digest, versions
from .errors import ArgumentError, ArtifactError
from .spec import aval_text, dtype_of


def read_manifest(path: str) -> dict:
    """The manifest of an artifact directory, checked for format and version."""
    mpath = os.path.join(path, "manifest.json")
    if not os.path.isdir(path):
        _refuse_not_a_directory(path)
    if not os.path.isfile(mpath):
        raise ArtifactError(f"artifact {path} has no manifest.json",
                            hint="rebuild it with `tpucc build`")
    try:
        with open(mpath, encoding="utf-8") as f:
            manifest = json.load(f)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:     # (nested too deeply)
        raise ArtifactError(f"the manifest {mpath} is corrupted or truncated: {e}",
                            hint="rebuild the artifact with `tpucc build`") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArtifactError(f"{mpath} is not a tpucc artifact manifest")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        this = f"this tpucc ({versions()['tpucc']}) reads version {FORMAT_VERSION}"
        if type(version) is int and version < FORMAT_VERSION:
            raise ArtifactError(f"artifact {path} was built by an older tpucc (format "
                                f"version {version}; {this})",
                                hint="rebuild it with `tpucc build`")
        if type(version) is int:
            raise ArtifactError(f"artifact {path} was built by a newer tpucc (format "
                                f"version {version}; {this})",
                                hint="load it with that tpucc, or rebuild it with this one")
        raise ArtifactError(f"artifact {path} has an unknown format version {version!r}; "
                            f"{this}", hint="rebuild the artifact with `tpucc build`")
    try:
        intact = manifest.get("manifest_sha256") == manifest_digest(manifest)
    except (TypeError, ValueError):                 # (not produced by json.load)
        intact = False
    if not intact:
        raise ArtifactError(f"the manifest {mpath} is corrupted: its contents do not match "
                            "its checksum (manifest_sha256); it was edited or damaged",
                            hint="copy the artifact again, or rebuild it with `tpucc build`")
    try:
        schema.check(manifest)
    except schema.Corrupt as e:
        field, wanted, value = e.args
        what = ("is missing" if wanted is None else
                f"should be {wanted}, not {_short_json(value)}")
        raise ArtifactError(f"the manifest {mpath} is corrupted: {field} {what}",
                            hint="rebuild the artifact with `tpucc build`") from None
    return manifest


def _refuse_not_a_directory(path: str):
    """An artifact is a directory NAME.tpucc/: a missing path, or a file
    (the model file itself, given where its artifact was meant)."""
    if not os.path.exists(path):
        raise ArtifactError(f"artifact {path} does not exist",
                            hint="build one with `tpucc build MODEL.py`")
    if path.endswith(".py"):
        hint = f"build its artifacts with `tpucc build {path}`, then pass NAME.tpucc"
    else:
        hint = "pass the NAME.tpucc folder that `tpucc build MODEL.py` writes"
    raise ArtifactError(f"{path} is a file, not an artifact: an artifact is a folder "
                        "NAME.tpucc holding manifest.json", hint=hint)


def _short_json(value) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_file(path: str, manifest: dict, name: str) -> bytes:
    """A file of the artifact, checked against the manifest's size and sha256."""
    fpath = checked_path(path, manifest, name)
    with open(fpath, "rb") as f:
        data = f.read()
    _check_sha256(fpath, manifest["files"][name], hashlib.sha256(data).hexdigest())
    return data


def checked_path(path: str, manifest: dict, name: str, verify: bool = False) -> str:
    """The path of a file of the artifact that has the manifest's size (and,
    with `verify`, its sha256: a full read)."""
    info = manifest["files"].get(name)
    fpath = os.path.join(path, name)
    if info is None:
        raise ArtifactError(f"artifact {path} does not list {name}")
    if not os.path.isfile(fpath):
        raise ArtifactError(f"artifact {path} is missing {name}",
                            hint="copy the whole directory, or rebuild it")
    size = os.path.getsize(fpath)
    if size != info["size"]:
        what = "is truncated" if size < info["size"] else "has the wrong size"
        raise ArtifactError(f"{fpath} {what}: {size} bytes, the manifest "
                            f"says {info['size']}", hint="copy it again, or rebuild it")
    if verify:
        with open(fpath, "rb") as f:
            _check_sha256(fpath, info, hashlib.file_digest(f, "sha256").hexdigest())
    return fpath


def _check_sha256(fpath, info, digest):
    if digest != info["sha256"]:
        raise ArtifactError(f"{fpath} is corrupted: its sha256 differs from the manifest's",
                            hint="copy it again, or rebuild it")


class FallbackWarning(UserWarning):
    """A loaded artifact compiles its portable module: its executable is
    missing or was built for another machine or jax."""


def load(path: str, prefer: str = "executable", verify: bool = False) -> "LoadedEntry":
    """Loads an artifact directory (NAME.tpucc).  Runs its executable for this
    process's backend when the jax/jaxlib (and libtpu) versions and devices
    match the build's, with no XLA compile and without the model's source;
    otherwise compiles its StableHLO module and says why in a FallbackWarning.
    prefer="stablehlo" always compiles the module (no warning).

    Every file's size is checked at load, and the sha256 of the executable
    it runs (or of the module when it compiles that); the weights' sha256
    only with verify=True, as it reads them all (weights.bin is
    memory-mapped: unread pages cost nothing at load)."""
    if prefer not in ("executable", "stablehlo"):
        raise OptionError(f"tpucc.load: prefer must be 'executable' or 'stablehlo', "
                          f"not {prefer!r}")
    path = _path_text(path)
    manifest = read_manifest(path)
    try:
        for name in manifest["files"]:      # (a damaged module read only at a fallback)
            checked_path(path, manifest, name)
        return LoadedEntry(path, manifest, prefer, verify)
    except (KeyError, TypeError, AttributeError, IndexError) as e:  # a manifest edited
        # into another shape
        raise ArtifactError(f"the manifest of {path} is corrupted: "
                            f"{type(e).__name__}: {e}",
                            hint="rebuild the artifact with `tpucc build`") from None


def _path_text(path) -> str:
    """A path as text: str, bytes (os.fsencode's) or os.PathLike, as open() takes."""
    try:
        return os.fsdecode(path)
    except TypeError:
        raise OptionError(f"tpucc.load: the artifact path must be a str, bytes or "
                          f"os.PathLike, not {type(path).__name__} ({path!r:.40})",
                          hint="pass the artifact directory's path, e.g. "
                               "'build/predict.tpucc'") from None


class LoadedEntry:
    def __init__(self, path, manifest, prefer="executable", verify=False):
        self.path, self.manifest, self.verify = path, manifest, verify
        self.name = manifest["entry"]
        inputs = manifest["inputs"]
        self._n_args = inputs["n_args"]
        self.backend = targets.local_platform()
        self._check_platform()
        self._captured = self._load_captured(inputs["flat"][self._n_args:])
        out = manifest["outputs"]
        self._n_out = out["n_runtime"]
        self._writebacks = manifest.get("writebacks", [])
        self._checks = manifest.get("checks", [])
        self._updated_args = [wb["index"] for wb in self._writebacks
                              if wb["kind"] == "argument"]
        self.using, self._run = self._runner(prefer)

    def __repr__(self):
        return f"<tpucc artifact {self.name!r} at {self.path} ({self.using})>"

    # --- loading -----------------------------------------------------------------------

    def _check_platform(self):
        """Refuses, before reading any binary, an artifact with nothing for
        this process's backend."""
        platforms = self.manifest["module"]["platforms"]
        if self.backend not in platforms:
            built = ", ".join(self.manifest["platform"]["targets"])
            raise ArtifactError(f"artifact {self.path} was built for {built}; this "
                                f"process runs on {self.backend}",
                                hint=f"rebuild it with --target {self.backend} (--target "
                                     "can be repeated)")

    def _load_captured(self, records):
        if not records:
            return []
        fpath = checked_path(self.path, self.manifest, weights.NAME, self.verify)
        try:
            arrays = weights.map_arrays(fpath, records)
        except (ValueError, TypeError, OSError) as e:   # offsets past the end, bad dtypes
            raise ArtifactError(f"{fpath} does not match its manifest: {e}",
                                hint="rebuild the artifact") from None
        with jax.enable_x64(True):
            return [jax.device_put(a) for a in arrays]

    def _runner(self, prefer):
        if prefer == "stablehlo":
            return "stablehlo", self._load_exported()
        record, reason = self._choose_executable()
        if record is not None:
            try:
                return f"executable {record['target']}", self._load_executable(record)
            except ArtifactError:
                raise
            except Exception as e:  # noqa: BLE001 - fall back to the portable module
                reason = f"its executable did not load ({type(e).__name__}: {e})"
        run = self._load_exported()
        warnings.warn(f"tpucc: {self.path}: {reason}; compiling its StableHLO module "
                      "instead", FallbackWarning, stacklevel=4)
        return "stablehlo", run

    def _choose_executable(self):
        """(the executable record to load, None) or (None, why there is none)."""
        records = [r for r in self.manifest["executables"]
                   if r.get("platform") == self.backend]
        usable = [r for r in records if r.get("file")]
        if not usable:
            why = records[0].get("reason") if records else None
            return None, f"it has no executable for {self.backend}" + (
                f" ({why})" if why else "")
        reasons = [_mismatch(self.manifest["versions"], r) for r in usable]
        for r, why in zip(usable, reasons):
            if why is None:
                return r, None
        return None, reasons[0]

    def _load_executable(self, record):
        from jax.experimental import serialize_executable as se
        blob = read_file(self.path, self.manifest, record["file"])
        if record.get("uses_lapack"):
            init_lapack()
        n_in = len(self.manifest["inputs"]["flat"])
        in_tree = jax.tree_util.tree_structure((tuple(range(n_in)), {}))
        out_tree = jax.tree_util.tree_structure(tuple(range(record["n_outputs"])))
        devices = jax.devices(record["platform"])[:record["n_devices"]]
        with jax.enable_x64(True):
            compiled = se.deserialize_and_load(blob, in_tree, out_tree,
                                               backend=devices[0].client,
                                               execution_devices=devices)
        self._check_input_types(jax.tree_util.tree_leaves(compiled.in_avals), record["file"])
        return compiled

    def _load_exported(self):
        blob = read_file(self.path, self.manifest, self.manifest["module"]["file"])
        try:
            exported = jax.export.deserialize(bytearray(blob))
        except Exception as e:  # noqa: BLE001 - an incompatible serialization version
            raise ArtifactError(f"{self.path}/module.stablehlo does not load with jax "
                                f"{jax.__version__} (the artifact was built with jax "
                                f"{self.manifest['versions'].get('jax')}): "
                                f"{type(e).__name__}: {e}",
                                hint="rebuild the artifact with this jax") from None
        self._check_input_types(exported.in_avals, self.manifest["module"]["file"])
        return jax.jit(exported.call)

    def _check_input_types(self, avals, file):
        """The manifest's inputs must be the program's: arguments are checked
        against the manifest, so a manifest edited and re-sealed to other
        dtypes or shapes would otherwise pass them to the program, which
        refuses them at every call (or maps weights.bin wrongly)."""
        flat = self.manifest["inputs"]["flat"]
        if len(flat) != len(avals):
            raise ArtifactError(f"the manifest of {self.path} lists {len(flat)} inputs; its "
                                f"{file} takes {len(avals)}",
                                hint="rebuild the artifact with `tpucc build`")
        for record, aval in zip(flat, avals):
            listed = aval_text(dtype_of(record["dtype"]), tuple(record["shape"]))
            program = aval_text(aval.dtype, tuple(aval.shape))
            if listed != program:
                raise ArtifactError(f"the manifest of {self.path} is corrupted: its input "
                                    f"{record['path']} is {listed}; its {file} takes "
                                    f"{program}", hint="rebuild the artifact with `tpucc build`")

    # --- calling -----------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        try:
            return self._call(args, kwargs)
        except TpuccError:          # (an index check that fired is an IndexError too)
            raise
        except (KeyError, IndexError, AttributeError) as e:
            # The manifest's structure read at a call: an edited or damaged
            # manifest (a file's damage is caught at load by its size or sha256).
            raise ArtifactError(f"the manifest of {self.path} is corrupted: "
                                f"{type(e).__name__}: {e}",
                                hint="rebuild the artifact with `tpucc build`") from None

    def _call(self, args, kwargs):
        args, kwargs = self._bound(args, kwargs)
        leaves = self._flatten_bound(args, kwargs)
        if self._updated_args:
            paths = self.manifest["inputs"]["flat"]
            check_updated_arguments(self._updated_args, leaves,
                                    lambda i: f"argument {paths[i]['path']}")
        with jax.enable_x64(True):
            outs = self._run(*leaves, *self._captured)
        failed = checks.error(self._checks, outs) if self._checks else None
        if failed is not None:
            raise failed
        if self._writebacks:
            self._write_back(leaves, outs[self._n_out:])
        return self._rebuild(outs, args, kwargs)

    def flatten_args(self, args, kwargs) -> list:
        """The runtime leaves of the arguments in input order, checked."""
        return self._flatten_bound(*self._bound(args, kwargs))

    def _bound(self, args, kwargs) -> tuple[tuple, dict]:
        """The call's arguments as the build passed them (see _bind)."""
        inputs = self.manifest["inputs"]
        arg_nodes = inputs["args"]["tuple"]
        kw_nodes = dict((k, n) for k, n in inputs["kwargs"]["dict"])
        if len(args) != len(arg_nodes) or set(kwargs) != set(kw_nodes):
            return self._bind(args, kwargs, len(arg_nodes), kw_nodes)
        return args, kwargs

    def _flatten_bound(self, args, kwargs) -> list:
        inputs = self.manifest["inputs"]
        arg_nodes = inputs["args"]["tuple"]
        out = [None] * self._n_args
        names = inputs.get("names") or [f"arg{i}" for i in range(len(args))]
        for node, value, name in zip(arg_nodes, args, names):
            _match(node, value, out, name)
        for k, node in inputs["kwargs"]["dict"]:
            _match(node, kwargs[k], out, k)
        return out

    def _bind(self, args, kwargs, n_pos, kw_nodes) -> tuple[tuple, dict]:
        """A call's arguments as the build passed them (`n_pos` positional,
        then the keyword arguments `kw_nodes`), bound as Python binds them
        to the entry's parameters: f(x=..., params=...) for f(x, params),
        f(x, 0.1) for an entry built with lr=0.1 as a keyword.  A parameter
        with a default may be omitted, as in a call of the function, and
        one the build left at its default (no spec) may be passed that
        default (inputs.defaults)."""
        params = [(p[0], p[1]) for p in self.manifest["inputs"].get("parameters") or []]
        kinds = dict(params)
        names = self.manifest["inputs"].get("names") or []
        defaults = self.manifest["inputs"].get("defaults") or {}
        # the name a positional input may also be passed by
        by_name = {params[i][0]: i for i in range(min(n_pos, len(params)))
                   if params[i][1] == "positional_or_keyword"}
        # parameters the build left at their default (they had no spec)
        fixed = {name for name, kind in params[n_pos:]
                 if name in defaults and name not in kw_nodes}
        # keyword inputs and fixed parameters that may also be passed by
        # position, after the positional inputs
        more = []
        for name, kind in params[n_pos:]:
            if kind not in ("positional_or_keyword", "positional_only") or \
                    (name not in kw_nodes and name not in fixed):
                break
            more.append(name)
        if len(args) > n_pos + len(more):
            raise ArgumentError(f"{self.name} takes {n_pos + len(more)} positional "
                                f"argument{'s' if n_pos + len(more) != 1 else ''}, got "
                                f"{len(args)}")
        named = dict(kwargs)
        for name in named:
            if name in fixed and kinds.get(name) == "positional_only":
                raise ArgumentError(f"{self.name}: argument {name!r} is positional-only",
                                    hint="pass it by position")
        for name, value in zip(more, args[n_pos:]):
            if name in named:
                raise ArgumentError(f"{self.name} got argument {name!r} twice, by position "
                                    "and by keyword")
            named[name] = value
        missing = object()
        full = list(args[:n_pos]) + [missing] * (n_pos - len(args[:n_pos]))
        for k in list(named):
            if k in kw_nodes:
                continue
            if k in fixed:
                self._check_fixed(k, named.pop(k), defaults[k])
            elif k in by_name:
                if full[by_name[k]] is not missing:
                    raise ArgumentError(f"{self.name} got argument {k!r} twice, by "
                                        "position and by keyword")
                full[by_name[k]] = named.pop(k)
            elif kinds.get(k) == "positional_only":
                raise ArgumentError(f"{self.name}: argument {k!r} is positional-only",
                                    hint="pass it by position")
            else:
                given = [names[i] if i < len(names) else f"arg{i}" for i in range(n_pos)]
                raise ArgumentError(f"{self.name} has no argument {k!r}",
                                    hint="its arguments are: " +
                                         (", ".join(given + list(kw_nodes) + sorted(fixed))
                                          or "none"))
        self._fill_defaults(full, named, missing, names, kw_nodes, defaults)
        absent = [names[i] if i < len(names) else f"arg{i}" for i in range(n_pos)
                  if full[i] is missing] + [k for k in kw_nodes if k not in named]
        if absent:
            raise ArgumentError(f"{self.name} is missing argument"
                                f"{'s' if len(absent) > 1 else ''} "
                                f"{', '.join(map(repr, absent))}",
                                hint=f"it was built with {n_pos} positional argument"
                                     f"{'s' if n_pos != 1 else ''}" +
                                     (f" and the keyword arguments {', '.join(kw_nodes)}"
                                      if kw_nodes else ""))
        return tuple(full), named

    def _fill_defaults(self, full, named, missing, names, kw_nodes, defaults):
        """Omitted inputs take their parameter's stored default, as in a call
        of the function, where the artifact was built for that value."""
        arg_nodes = self.manifest["inputs"]["args"]["tuple"]
        for i, value in enumerate(full):
            name = names[i] if i < len(names) else None
            if value is missing and name in defaults and "value" in defaults[name]:
                full[i] = self._default_for(name, arg_nodes[i], defaults[name])
        for k, node in kw_nodes.items():
            if k not in named and k in defaults and "value" in defaults[k]:
                named[k] = self._default_for(k, node, defaults[k])

    def _default_for(self, name, node, default):
        """The default of parameter `name`, checked against what the build
        passed there (`node`)."""
        value = _stored_default(default)
        try:
            _match(node, value, [None] * self._n_args, name)
        except ArgumentError:
            raise ArgumentError(f"{self.name}: argument {name!r} is omitted, so it would "
                                f"take its default {value!r}, but the artifact was built "
                                f"with {name} = {tree.describe(node)}",
                                hint=f"pass {name} as it was built; a loaded artifact cannot "
                                     "recompile for another value") from None
        return value

    def _check_fixed(self, name, value, default):
        """A value passed for a parameter the build left at its default
        must be that default: the artifact was built for it alone."""
        hint = (f"omit {name}; to pass other values, give it a spec in @entry(...) "
                "(with runtime_args=... for a Python scalar) and rebuild")
        if "value" not in default:
            raise ArgumentError(f"{self.name}: argument {name!r} has no spec, so the artifact "
                                f"was built with its default (a {default['unstored']}, "
                                "which an artifact cannot compare a value with)", hint=hint)
        expected = _stored_default(default)
        try:
            _match(default["value"], value, [], name)
        except ArgumentError:
            raise ArgumentError(f"{self.name}: argument {name!r} has no spec, so the artifact "
                                f"was built with its default {expected!r}; got "
                                f"{value!r:.40}", hint=hint) from None

    def _rebuild(self, outs, args=(), kwargs=None):
        def leaf(node):
            if node["leaf"] == "static":
                return tree.decode_static(node["value"])
            if node["leaf"] == "argument":      # a list or dict argument returned itself
                return argument_at((args, kwargs or {}), tree.decode_static(node["root"]),
                                    [tree.decode_static(k) for k in node["keys"]])
            weak = node.get("weak")
            scalar = node.get("scalar", True)
            if "scalar_output" in node:         # runtime branches disagreed on the kind
                scalar = bool(np.asarray(outs[node["scalar_output"]]))
            value = outs[node["output"]]
            if "objects" in node:               # a static object chosen at run time
                return tree.decode_static(node["objects"][int(np.asarray(value))])
            if node.get("optional"):            # a Python number or None
                return optional_numbers.build(np.asarray(value))
            if "row" in node:                   # a row of a buffer a loop filled
                value = np.asarray(value)[node["row"]]
            value = to_user_value(value, tree.WEAK_TYPES[weak] if weak else None, scalar)
            if node.get("read_only") and isinstance(value, np.ndarray):
                value.flags.writeable = False       # (NumPy's diagonal, broadcast_to ...)
            return value
        return tree.build(self.manifest["outputs"]["tree"], leaf)

    def _write_back(self, leaves, values):
        for wb, value in zip(self._writebacks, values):
            if wb["kind"] == "argument":
                target = leaves[wb["index"]]
                if isinstance(target, np.ndarray) and target.flags.writeable:
                    np.copyto(target, np.asarray(value))
            else:
                self._captured[wb["index"]] = value


def _stored_default(default: dict):
    """A parameter's default as the manifest stores it (inputs.defaults)."""
    return tree.build(default["value"], lambda leaf: tree.decode_static(leaf["value"]))


def _same_static(value, expected) -> bool:
    """Equal, or the same NaN (an entry built with a static NaN takes NaN)."""
    if value == expected:
        return True
    try:
        return bool(np.isnan(value) and np.isnan(expected))
    except TypeError:
        return False


def _match(node, value, out, path):
    """Checks `value` against a manifest node; stores its array leaves in `out`."""
    if "leaf" in node:
        if node["leaf"] == "scalar":
            out[node["input"]] = _runtime_scalar(node, value, path)
            return
        if node["leaf"] == "static":
            expected = tree.decode_static(node["value"])
            if type(value) is not type(expected) or not _same_static(value, expected):
                raise ArgumentError(f"argument {path} was built as the static "
                                    f"value {expected!r}, got {value!r}",
                                    hint="a loaded artifact cannot recompile; rebuild it "
                                         "for other static values")
            return
        dtype, shape = dtype_of(node["dtype"]), tuple(node["shape"])
        want = aval_text(dtype, shape)
        if not isinstance(value, (np.ndarray, np.generic, jax.Array)) or \
                isinstance(value, np.ma.MaskedArray):
            raise ArgumentError(f"argument {path} expects an array {want}, got "
                                f"{type(value).__name__} {value!r:.40}",
                                hint=f"pass np.asarray(value, np.{dtype.name})")
        got = aval_text(np.dtype(value.dtype), tuple(value.shape))
        if not np.dtype(value.dtype).isnative:
            raise ArgumentError(f"argument {path} expects {want} in this machine's byte "
                                f"order, got {np.dtype(value.dtype).str} (byte-swapped)",
                                hint=f"pass value.astype(np.{dtype.name})")
        if np.dtype(value.dtype) != dtype or tuple(value.shape) != shape:
            raise ArgumentError(f"argument {path} expects {want}, got {got}",
                                hint="a loaded artifact has fixed input types; convert "
                                     "the argument or rebuild the artifact")
        out[node["input"]] = value
        return
    kind = next(iter(node))
    if kind == "namedtuple":            # (Params(w, b): its fields, by position)
        spec = node["namedtuple"]
        name = spec["name"].rsplit(".", 1)[-1]
        if not isinstance(value, tuple) or tuple(getattr(value, "_fields", ())) != \
                tuple(spec["fields"]):
            raise ArgumentError(f"argument {path} expects a {name} (a named tuple of fields "
                                f"{', '.join(spec['fields'])}), got {type(value).__name__}")
        for field, n, v in zip(spec["fields"], spec["items"], value):
            _match(n, v, out, f"{path}.{field}")
        return
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


def _runtime_scalar(node, value, path):
    """A Python scalar named in runtime_args, as the 0-d input the module takes."""
    kind = node["type"]
    if tree.scalar_kind(value) != kind or isinstance(value, np.generic):
        raise ArgumentError(f"argument {path} was built as a runtime {kind}, got "
                            f"{type(value).__name__} {value!r:.40}",
                            hint=f"pass a Python {kind}; a loaded artifact cannot "
                                 "recompile for another type")
    try:
        return np.asarray(value, dtype_of(node["dtype"]))
    except OverflowError:
        raise ArgumentError(f"argument {path} = {value!r} does not fit "
                            f"{node['dtype']}") from None


def _mismatch(built_versions: dict, record: dict) -> str | None:
    """Why this process cannot run the executable `record` describes, or None."""
    here = versions()
    keys = ("jax", "jaxlib") + (("libtpu",) if record["platform"] == "tpu" else ())
    for k in keys:
        built = record.get(k, built_versions.get(k))
        if built != here[k]:
            return f"it was built with {k} {built}, this is {k} {here[k]}"
    devices = jax.devices(record["platform"])
    if devices[0].device_kind != record.get("device_kind"):
        return (f"its executable is for {record.get('device_kind')} devices, this "
                f"machine has {devices[0].device_kind}")
    if len(devices) < record.get("n_devices", 1):
        return (f"its executable runs on {record['n_devices']} devices, this process "
                f"has {len(devices)}")
    if record["platform"] in ("cpu", "cuda", "rocm"):
        info = targets.describe_devices(targets.parse(record["platform"]), devices[:1])
        for k in ("machine", "system", "cpu_features", "platform_version"):
            if record.get(k) != info.get(k):
                return (f"it was built for {k} {record.get(k)!r}, this is "
                        f"{info.get(k)!r}")
    return None


def init_lapack():
    """A deserialized CPU executable with LAPACK custom calls segfaults unless
    jax has initialized its LAPACK kernels in this process (jax issue 28908);
    jax does so only when it lowers or compiles a linalg op itself (as it
    does for the StableHLO module)."""
    try:
        from jaxlib import lapack
        lapack._lapack.initialize()
        return
    except (ImportError, AttributeError):
        pass
    import jax.numpy as jnp         # a later jaxlib: have jax lower one of each kind
    with jax.enable_x64(True):
        for dt in (jnp.float32, jnp.float64, jnp.complex64, jnp.complex128):
            jnp.linalg.inv(jnp.eye(2, dtype=dt)).block_until_ready()
