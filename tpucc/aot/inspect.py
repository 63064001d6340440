"""Readable manifests (`tpucc inspect`) and .npz in/out (`tpucc run`)."""
from __future__ import annotations

import os

import numpy as np

from . import tree
from .errors import ArgumentError, ArtifactError
from .load import checked_path, load, read_manifest
from .spec import aval_text, dtype_of


def describe(path: str, verify: bool = False) -> str:
    """The manifest, readably; with `verify`, after checking every file's
    size and sha256 (ArtifactError naming the first that differs)."""
    m = read_manifest(path)
    try:
        lines = _describe(path, m)
        if verify:
            for name in m["files"]:
                checked_path(path, m, name, verify=True)
            lines.append(f"verified: the {len(m['files'])} files match the manifest's "
                         "sizes and sha256")
        return "\n".join(lines)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        # a manifest edited into a shape read_manifest's schema does not catch
        raise ArtifactError(f"the manifest of {path} is corrupted: "
                            f"{type(e).__name__}: {e}",
                            hint="rebuild the artifact with `tpucc build`") from None


def _describe(path, m) -> list[str]:
    v, p = m["versions"], m["platform"]
    built_on = p.get("built_on") or {}
    options = m.get("options") or {}
    model = m.get("model") or {"path": "(not recorded)", "sha256": "(not recorded)"}
    lines = [f"artifact  {path}",
             f"entry     {m['entry']} (function {m.get('function')}, declared at "
             f"{m.get('declared_at')})",
             f"model     {model['path']}",
             f"          sha256 {model['sha256']}",
             f"created   {m.get('created')} on {built_on.get('backend')} "
             f"({built_on.get('system')} {built_on.get('machine')})",
             "versions  " + ", ".join(f"{k} {v[k]}" for k in v if v[k] is not None)]
    if options:
        lines.append("options   " + ", ".join(f"{k}={val!r}" for k, val in options.items()))
    lines += ["", f"targets   {', '.join(p['targets'])}",
              f"module    {m['module']['file']} (StableHLO for "
              f"{', '.join(m['module']['platforms'])})"]
    for r in m["executables"]:
        lines.append(f"  {r['target']:<18} " + _executable_line(r))
    lines += ["", "inputs (name them in `tpucc run --input` by path or argN):"]
    for r in m["inputs"]["flat"]:
        text = aval_text(dtype_of(r["dtype"]), r["shape"])
        if r["kind"] == "argument":
            if r.get("scalar"):
                text = f"{r['scalar']} (runtime Python scalar)"
            lines.append(f"  arg{r['index']:<3} {r['path']:<24} {text}")
        else:
            lines.append(f"  (stored) {text:<14} {r['path']}{_stored_layout(r)}")
    for node in tree.leaves(m["inputs"]["args"]) + tree.leaves(m["inputs"]["kwargs"]):
        if node["leaf"] == "static":
            lines.append(f"  (static) {node['path']} = "
                         f"{tree.decode_static(node['value'])!r}")
    lines += ["", "outputs:"]
    for node in tree.leaves(m["outputs"]["tree"]):
        lines.append(f"  {node['path']:<24} {tree.describe(node)}")
    if m.get("writebacks"):
        lines.append(f"  (+ {len(m['writebacks'])} in-place updates written back)")
    lines += ["", "files:"]
    for name, info in m["files"].items():
        lines.append(f"  {name:<28} {info['size']:>12,d} bytes  sha256 {info['sha256'][:16]}")
    for name in m.get("texts") or []:
        lines.append(f"  {name:<28} (text)")
    times = m.get("build_times_s") or {}
    if times:
        lines += ["", "build: " + ", ".join(f"{k} {s * 1e3:.1f} ms" for k, s in times.items())]
    for note in m.get("notes") or []:
        lines.append(f"note: {note}")
    return lines


def _stored_layout(r) -> str:
    """How a stored array's axes map to the source's (a conv weight stored
    HWIO: build.py), or nothing for one stored as it was."""
    perm = r.get("layout")
    if not perm:
        return ""
    logical = [0] * len(perm)
    for stored_axis, axis in enumerate(perm):
        logical[axis] = r["shape"][stored_axis]
    return (f"; stored transposed: axes {tuple(perm)} of the source's "
            f"{aval_text(dtype_of(r['dtype']), logical)}")


def _executable_line(r) -> str:
    if not r.get("file"):
        return f"no executable: {r.get('reason', 'not built')}"
    where = f"{r.get('n_devices', 1)} x {r.get('device_kind')}"
    if r.get("topology"):
        where += f", topology {r['topology']}"
    if r.get("libtpu"):
        where += f", libtpu {r['libtpu']}"
    return f"{r['file']} ({where})"


def run_npz(path: str, input_path: str, output_path: str) -> list[str]:
    """Runs an artifact on an .npz; writes each runtime (or numeric static)
    result leaf under its path.  Returns the names written."""
    m = read_manifest(path)
    if not os.path.isfile(input_path):
        raise ArgumentError(f"input file {input_path} does not exist")
    given = read_npz(input_path)
    fn = load(path)
    values, used = {}, set()
    for r in m["inputs"]["flat"][:m["inputs"]["n_args"]]:
        keys = [k for k in (r["path"], f"arg{r['index']}") if k in given]
        if not keys:
            raise ArgumentError(f"{input_path} has no array for argument {r['path']} "
                                f"(name it {r['path']!r} or 'arg{r['index']}')")
        if len(keys) == 2:
            raise ArgumentError(f"{input_path} names argument {r['path']} twice "
                                f"({keys[0]!r} and {keys[1]!r})")
        values[r["index"]] = given[keys[0]]
        used.add(keys[0])
    extra = sorted(set(given) - used)
    if extra:
        raise ArgumentError(f"{input_path} has arrays no argument takes: {extra}",
                            hint="`tpucc inspect` lists the argument names")

    def leaf(node):
        if node["leaf"] == "static":
            return tree.decode_static(node["value"])
        if node["leaf"] == "scalar":
            return _scalar_from_npz(values[node["input"]], node, input_path)
        return values[node["input"]]
    args = tree.build(m["inputs"]["args"], leaf)
    kwargs = tree.build(m["inputs"]["kwargs"], leaf)
    result = fn(*args, **kwargs)
    out = {}
    _collect(m["outputs"]["tree"], result, out)
    # An argument the entry updates in place (a training step's weights):
    # its new value, under its own name (its flat position if a result has it).
    paths = {r["index"]: r["path"] for r in m["inputs"]["flat"][:m["inputs"]["n_args"]]}
    for wb in m.get("writebacks", []):
        if wb["kind"] == "argument" and wb["index"] in values:
            name = paths.get(wb["index"], "")
            out[name if name and name not in out else f"arg{wb['index']}"] = \
                values[wb["index"]]
    np.savez(output_path, **out)
    return list(out)


NPZ_HINT = "write the inputs with np.savez(PATH, x=..., ...); `tpucc inspect` lists their names"


def read_npz(input_path: str) -> dict:
    """{name: array} of an .npz file (np.savez); ArgumentError naming the
    file for anything else (a .npy, a text file, a damaged archive, an
    array of Python objects)."""
    try:
        with open(input_path, "rb") as f:
            head = f.read(6)
    except OSError as e:
        raise ArgumentError(f"input file {input_path} cannot be read: {e.strerror}") from None
    if head.startswith(b"\x93NUMPY"):
        raise ArgumentError(f"input file {input_path} is a .npy file (one array); tpucc run "
                            "takes an .npz written by np.savez, one array per argument",
                            hint=NPZ_HINT)
    if not head.startswith((b"PK\x03\x04", b"PK\x05\x06")):     # a zip archive
        raise ArgumentError(f"input file {input_path} is not an .npz file: tpucc run takes "
                            "an .npz written by np.savez, one array per argument",
                            hint=NPZ_HINT)
    given = {}
    try:
        with np.load(input_path, allow_pickle=False) as npz:
            for k in npz.files:
                try:
                    given[k] = npz[k]
                except ValueError as e:
                    if "allow_pickle" not in str(e) and "pickled" not in str(e):
                        raise
                    raise ArgumentError(f"array {k!r} of {input_path} holds Python objects "
                                        "(dtype object), which tpucc run does not read",
                                        hint="save numeric arrays") from None
    except ArgumentError:
        raise
    except Exception as e:  # noqa: BLE001 - a damaged or truncated archive
        raise ArgumentError(f"{input_path} is not a readable .npz file: "
                            f"{type(e).__name__}: {e}", hint=NPZ_HINT) from None
    return given


# The dtype kinds of a 0-d array `tpucc run` takes for a runtime Python scalar:
# those its type holds exactly (an integer array for a float, not the reverse).
_SCALAR_KINDS = {"bool": ("b", "bool"), "int": ("biu", "bool or integer"),
                 "float": ("biuf", "bool, integer or float"),
                 "complex": ("biufc", "numeric")}


def _scalar_from_npz(array, node, input_path):
    """A runtime Python-scalar argument, stored in the .npz as a 0-d array."""
    kind = node["type"]
    kinds, wanted = _SCALAR_KINDS[kind]
    if np.ndim(array) != 0 or np.asarray(array).dtype.kind not in kinds:
        got = np.asarray(array)
        raise ArgumentError(f"{input_path}: argument {node['path']} is a runtime Python "
                            f"{kind}: it takes a 0-d {wanted} array, got "
                            f"{_array_text(got)}",
                            hint=f"save it as np.array({_EXAMPLES[kind]})")
    return tree.WEAK_TYPES[kind](np.asarray(array).item())


_EXAMPLES = {"bool": "True", "int": "3", "float": "0.5", "complex": "1+2j"}


def _array_text(a: np.ndarray) -> str:
    """`a 0-d str array holding '0.5'`, `an int64 array of shape (3,)`."""
    name = {"U": "str", "S": "bytes", "O": "object"}.get(a.dtype.kind, a.dtype.name)
    article = "an" if name[0] in "aeiou" else "a"
    if a.ndim:
        return f"{article} {name} array of shape {a.shape}"
    return f"a 0-d {name} array holding {a.item()!r:.40}"


def _collect(node, value, out):
    """Result leaves by path; static non-numeric leaves (None, strings) are skipped."""
    stack = [(node, value)]
    while stack:
        n, v = stack.pop()
        if "leaf" in n:
            if isinstance(v, (np.ndarray, np.generic, bool, int, float, complex)):
                out[n["path"]] = np.asarray(v)
        elif "dict" in n:
            stack.extend((c, v[k]) for k, c in reversed(n["dict"]))
        else:
            stack.extend(reversed(list(zip(tree.children(n), v))))
    if not out and node.get("leaf") is None and not tree.leaves(node):
        raise ArtifactError("the entry returns nothing to write")
