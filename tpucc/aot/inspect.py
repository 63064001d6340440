"""Readable manifests (`tpucc inspect`) and .npz in/out (`tpucc run`)."""
from __future__ import annotations

import os

import numpy as np

from . import tree
from .errors import ArgumentError, ArtifactError
from .load import load, read_manifest
from .spec import aval_text, dtype_of


def describe(path: str) -> str:
    m = read_manifest(path)
    v, p = m["versions"], m["platform"]
    exe = m.get("executable") or {}
    lines = [f"artifact  {path}",
             f"entry     {m['entry']} (function {m.get('function')}, declared at "
             f"{m.get('declared_at')})",
             f"model     {m['model']['path']}",
             f"          sha256 {m['model']['sha256']}",
             f"created   {m.get('created')}",
             "versions  " + ", ".join(f"{k} {v[k]}" for k in v),
             f"platform  targets {', '.join(p['targets'])}; built on {p['backend']} "
             f"({p.get('device_kind')}, {p.get('system')} {p.get('machine')})",
             "executable " + (exe["file"] if exe.get("file") else
                              f"none ({exe.get('reason', 'not built')})"),
             "", "inputs (name them in `tpucc run --input` by path or argN):"]
    for r in m["inputs"]["flat"]:
        text = aval_text(dtype_of(r["dtype"]), r["shape"])
        if r["kind"] == "argument":
            lines.append(f"  arg{r['index']:<3} {r['path']:<24} {text}")
        else:
            lines.append(f"  (stored) {text:<14} {r['path']}")
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
        lines.append(f"  {name:<20} {info['size']:>12,d} bytes  sha256 {info['sha256'][:16]}")
    times = m.get("build_times_s") or {}
    if times:
        lines += ["", "build: " + ", ".join(f"{k} {s * 1e3:.1f} ms" for k, s in times.items())]
    return "\n".join(lines)


def run_npz(path: str, input_path: str, output_path: str) -> list[str]:
    """Runs an artifact on an .npz; writes each runtime (or numeric static)
    result leaf under its path.  Returns the names written."""
    fn = load(path)
    m = fn.manifest
    if not os.path.isfile(input_path):
        raise ArgumentError(f"input file {input_path} does not exist")
    try:
        with np.load(input_path, allow_pickle=False) as npz:
            given = {k: npz[k] for k in npz.files}
    except Exception as e:  # noqa: BLE001 - not an npz
        raise ArgumentError(f"{input_path} is not a readable .npz file: {e}") from None
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
        return values[node["input"]]
    args = tree.build(m["inputs"]["args"], leaf)
    kwargs = tree.build(m["inputs"]["kwargs"], leaf)
    result = fn(*args, **kwargs)
    out = {}
    _collect(m["outputs"]["tree"], result, out)
    np.savez(output_path, **out)
    return list(out)


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
            stack.extend(reversed(list(zip(next(iter(n.values())), v))))
    if not out and node.get("leaf") is None and not tree.leaves(node):
        raise ArtifactError("the entry returns nothing to write")
