"""The shape of an artifact's manifest.json, checked when it is read.

The manifest's checksum (manifest_sha256) catches damage, not an edit whose
author recomputed it (a script re-sealing a hand-edited manifest).  The
loader, `tpucc inspect` and `tpucc run` index into the manifest freely, so
its shape is checked once, here: a field of the wrong type is an
ArtifactError naming the manifest and the field, never a TypeError from
tpucc's own code at a call.

A schema is one of:

    a type or a tuple of types   isinstance (bool is not an int here)
    {"key": s, "key?": s}        an object with those fields ("?": optional;
                                 other fields are allowed)
    [s]                          a list of items of schema s
    Fixed(s1, s2, ...)           a list of exactly those items
    Map(s)                       an object whose values all have schema s
    Maybe(s)                     null or s
    Tree(...)                    a pytree node (arguments, results)
    a function                   value -> None, or what the value should be

Pytrees are as deep as the user's structures: Tree walks them with a
worklist.
"""
from __future__ import annotations

from ..errors import raisable_class
from . import tree
from .spec import dtype_of


class Corrupt(Exception):
    """(field path, what it should be, the value found); (field path, None,
    None) for a field that is missing."""


class Fixed:
    def __init__(self, *items):
        self.items = items


class Map:
    def __init__(self, item):
        self.item = item


class Maybe:
    def __init__(self, item):
        self.item = item


def check(manifest: dict):
    """Raises Corrupt for the first field that is not as tpucc writes it."""
    _check(manifest, MANIFEST, "")
    _check_indices(manifest)


def _check(value, schema, path):
    if isinstance(schema, Maybe):
        if value is not None:
            _check(value, schema.item, path)
    elif isinstance(schema, dict):
        _expect(isinstance(value, dict), path, "an object", value)
        for key, item in schema.items():
            name = key.rstrip("?")
            if name in value:
                _check(value[name], item, _join(path, name))
            elif not key.endswith("?"):
                raise Corrupt(_join(path, name), None, None)
    elif isinstance(schema, list):
        _expect(isinstance(value, list), path, "a list", value)
        for i, v in enumerate(value):
            _check(v, schema[0], f"{path}[{i}]")
    elif isinstance(schema, Fixed):
        _expect(isinstance(value, list) and len(value) == len(schema.items), path,
                f"a list of {len(schema.items)} items", value)
        for i, (v, item) in enumerate(zip(value, schema.items)):
            _check(v, item, f"{path}[{i}]")
    elif isinstance(schema, Map):
        _expect(isinstance(value, dict), path, "an object", value)
        for k, v in value.items():
            _check(v, schema.item, _join(path, k))
    elif isinstance(schema, Tree):
        schema.check(value, path)
    elif isinstance(schema, (type, tuple)):
        types = schema if isinstance(schema, tuple) else (schema,)
        ok = isinstance(value, types) and (bool in types or not isinstance(value, bool))
        _expect(ok, path, " or ".join(_TYPE_NAMES[t] for t in types), value)
    else:
        wanted = schema(value)
        _expect(wanted is None, path, wanted, value)


def _expect(ok: bool, path: str, wanted: str, value):
    if not ok:
        raise Corrupt(path, wanted, value)


def _join(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


_TYPE_NAMES = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
               dict: "an object", list: "a list", type(None): "null"}


# --- leaf values ------------------------------------------------------------------------------

def _count(v):
    return None if type(v) is int and v >= 0 else "a non-negative integer"


def _dtype(v):
    if not isinstance(v, str):
        return "a dtype name"
    try:
        dtype_of(v)
    except (TypeError, ValueError) as e:
        return f"a dtype compiled code holds ({e})"
    return None


def _static(v):
    try:
        tree.decode_static(v)
    except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError):
        return "a static value (null, true, 3, \"text\", {\"float\": \"0.5\"}, ...)"
    return None


def _one_of(*values, described=None):
    def check_value(v):
        return None if isinstance(v, str) and v in values else \
            described or "one of " + ", ".join(map(repr, values))
    return check_value


def _raisable(v):
    return None if isinstance(v, str) and raisable_class(v) is not None else \
        ("the name of an exception compiled code raises (IndexError, AssertionError, "
         "statistics.StatisticsError, ...)")


_WEAK = _one_of(*tree.WEAK_TYPES)
SHAPE = [_count]

# --- pytrees ----------------------------------------------------------------------------------

_LEAVES = {
    "array": {"input": _count, "dtype": _dtype, "shape": SHAPE, "path": str},
    "scalar": {"input": _count, "type": _WEAK, "dtype": _dtype, "shape": SHAPE, "path": str},
    "runtime": {"output": _count, "weak": Maybe(_WEAK), "scalar?": bool, "dtype": _dtype,
                "shape": SHAPE, "path": str, "scalar_output?": _count, "row?": _count,
                "read_only?": bool, "objects?": [_static], "optional?": bool},
    "static": {"value": _static, "path": str},
    # an output that is a list or dict argument itself: args[root][keys...]
    "argument": {"root": _static, "keys": [_static], "path": str},
}
_CONTAINERS = {"tuple": list, "list": list, "dict": [Fixed((str, int), lambda v: None)],
               "namedtuple": {"module": str, "name": str, "fields": [str], "items": list}}


class Tree:
    """A pytree node with these leaf and container kinds (a root kind too)."""

    def __init__(self, leaves: tuple, containers: tuple, root: str | None = None):
        self.leaves, self.containers, self.root = leaves, containers, root

    def check(self, node, path):
        if self.root is not None:
            _expect(isinstance(node, dict) and list(node) == [self.root], path,
                    f"a {{{self.root!r}: ...}} node", node)
        stack = [(node, path)]
        while stack:
            n, path = stack.pop()
            if isinstance(n, dict) and "leaf" in n:
                _expect(n["leaf"] in self.leaves, f"{path}.leaf",
                        "one of " + ", ".join(map(repr, self.leaves)), n["leaf"])
                _check(n, _LEAVES[n["leaf"]], path)
                continue
            _expect(isinstance(n, dict) and len(n) == 1 and next(iter(n)) in self.containers,
                    path, "a node: a leaf, or an object whose one key is " +
                    ", ".join(map(repr, self.containers)), n)
            kind, items = next(iter(n.items()))
            _check(items, _CONTAINERS[kind], f"{path}.{kind}")
            if kind == "dict":
                children = [(c, f"{path}.dict[{i}][1]") for i, (_, c) in enumerate(items)]
            elif kind == "namedtuple":
                _expect(len(items["items"]) == len(items["fields"]), f"{path}.namedtuple.items",
                        f"{len(items['fields'])} items (one per field)", items["items"])
                children = [(c, f"{path}.namedtuple.items[{i}]")
                            for i, c in enumerate(items["items"])]
            else:
                children = [(c, f"{path}.{kind}[{i}]") for i, c in enumerate(items)]
            stack.extend(reversed(children))


_INPUT_LEAVES, _INPUT_CONTAINERS = ("array", "scalar", "static"), ("tuple", "list", "dict",
                                                                   "namedtuple")

# --- the manifest -----------------------------------------------------------------------------

_FLAT = {"index": _count, "kind": _one_of("argument", "captured"), "path": str,
         "dtype": _dtype, "shape": SHAPE, "scalar?": _WEAK, "key?": str,
         "offset?": _count, "nbytes?": _count, "layout?": Maybe([_count])}
_CHECK = {"message": str, "loc": Maybe(Fixed(str, _count, _count, Maybe(str))),
          "hint": Maybe(str), "raises?": _raisable, "template?": list,
          "callers?": [Fixed(str, _count, _count, Maybe(str))]}
_EXECUTABLE = {"target": str, "platform": str, "file?": Maybe(str), "reason?": str,
               "n_outputs?": _count, "n_devices?": _count, "uses_lapack?": bool,
               "device_kind?": Maybe(str), "topology?": Maybe(str)}

MANIFEST = {
    "entry": str, "function?": Maybe(str), "declared_at?": Maybe(str), "created?": Maybe(str),
    "model?": Maybe({"path": str, "sha256": str}),
    "options?": Maybe(dict),
    "versions": Map(Maybe(str)),
    "inputs": {"names?": Maybe([str]), "parameters?": Maybe([Fixed(str, str)]),
               "defaults?": Map({"value?": Tree(("static",), _INPUT_CONTAINERS),
                                 "unstored?": str}),
               "args": Tree(_INPUT_LEAVES, _INPUT_CONTAINERS, root="tuple"),
               "kwargs": Tree(_INPUT_LEAVES, _INPUT_CONTAINERS, root="dict"),
               "flat": [_FLAT], "n_args": _count},
    "outputs": {"tree": Tree(("runtime", "static", "argument"), ("tuple", "list", "dict", "namedtuple")),
                "n_runtime": _count},
    "writebacks?": [{"kind": _one_of("argument", "captured"), "index": _count}],
    "checks?": [_CHECK],
    "platform": {"targets": [str], "built_on?": Maybe(dict)},
    "module": {"file": str, "platforms": [str], "uses_lapack?": bool},
    "executables": [_EXECUTABLE],
    "files": Map({"size": _count, "sha256": str}),
    "texts?": Maybe([str]), "notes?": Maybe([str]),
    "build_times_s?": Maybe(Map((int, float))),
}


def _check_indices(m: dict):
    """The flat inputs are the arguments' leaves then the stored arrays, in
    order; every index into them (and into the outputs) is in range."""
    flat, n_args = m["inputs"]["flat"], m["inputs"]["n_args"]
    _expect(n_args <= len(flat), "inputs.n_args", f"at most {len(flat)} (the flat inputs)",
            n_args)
    for i, r in enumerate(flat):
        path = f"inputs.flat[{i}]"
        _expect(r["index"] == i, f"{path}.index", str(i), r["index"])
        _expect(r["kind"] == ("argument" if i < n_args else "captured"), f"{path}.kind",
                repr("argument" if i < n_args else "captured"), r["kind"])
        if r["kind"] == "captured":
            for key in ("offset", "nbytes"):
                if key not in r:
                    raise Corrupt(f"{path}.{key}", None, None)
    for name in ("args", "kwargs"):
        for leaf in tree.leaves(m["inputs"][name]):
            if leaf["leaf"] != "static":
                _expect(leaf["input"] < n_args, f"inputs.{name} leaf {leaf['path']!r}",
                        f"an input below n_args ({n_args})", leaf["input"])
    n_out = m["outputs"]["n_runtime"]
    # A row of a loop's buffer (infer.RowOf) reads an output after the
    # write-backs: below every stored executable's output count.
    n_outputs = [r["n_outputs"] for r in m["executables"] if r.get("file") and "n_outputs" in r]
    for leaf in tree.leaves(m["outputs"]["tree"]):
        if leaf["leaf"] == "runtime" and "row" not in leaf:
            _expect(leaf["output"] < n_out, f"outputs.tree leaf {leaf['path']!r}",
                    f"an output below n_runtime ({n_out})", leaf["output"])
        elif leaf["leaf"] == "runtime" and n_outputs:
            _expect(leaf["output"] < min(n_outputs), f"outputs.tree leaf {leaf['path']!r}",
                    f"an output below n_outputs ({min(n_outputs)})", leaf["output"])
    n_captured = len(flat) - n_args
    for i, wb in enumerate(m.get("writebacks") or []):
        bound = n_args if wb["kind"] == "argument" else n_captured
        _expect(wb["index"] < bound, f"writebacks[{i}].index", f"below {bound}", wb["index"])
    for i, r in enumerate(m["executables"]):
        if r.get("file"):
            for key in ("n_outputs", "n_devices"):
                if key not in r:
                    raise Corrupt(f"executables[{i}].{key}", None, None)
