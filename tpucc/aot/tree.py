"""JSON form of argument and output structures, for the manifest.

A node is {"tuple": [nodes]}, {"list": [nodes]}, {"dict": [[key, node], ...]}
(keys keep their str/int type), {"namedtuple": {"module": M, "name": Q,
"fields": [names], "items": [nodes]}} (e.g. NumPy's EighResult) or a leaf, a
dict with a "leaf" key:

    {"leaf": "array", "input": i, "dtype": "float32", "shape": [8, 4], "path": "x"}
    {"leaf": "scalar", "type": "float", "input": i, "dtype": "float64", "shape": [],
     "path": "lr"}                 (a Python scalar named in runtime_args)
    {"leaf": "runtime", "output": k, "weak": "float" | null, "path": "out[1]"}
    {"leaf": "runtime", ..., "objects": [V, ...]}   (the output is a position among
                                  static objects: a string, None ... chosen at run time)
    {"leaf": "runtime", ..., "optional": true}   (the output is [1, number] or [0, 0]:
                                  a Python number or None, which one known at run time)
    {"leaf": "static", "value": V, "path": ...}

where V encodes a static Python/NumPy value without pickle: null, true, 3,
"text", {"float": "0.5"}, {"complex": ["1.0", "2.0"]},
{"numpy": "float32", "value": V}.  The structure is the one tpucc's
infer.state.flatten gives, so leaves are in the order of the flat inputs
and outputs of the compiled module.
"""
from __future__ import annotations

import collections
import sys
from functools import lru_cache

import numpy as np

from .spec import dtype_of

WEAK_TYPES = {"bool": bool, "int": int, "float": float, "complex": complex}


def scalar_kind(x) -> str | None:
    """"bool", "int", "float" or "complex" for a Python scalar (what a name
    in runtime_args traces as a runtime value), else None."""
    for name, t in WEAK_TYPES.items():      # bool before int: bool is an int
        if isinstance(x, t):
            return name
    return None


class NotStorable(Exception):
    pass


def encode_static(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, complex):
        return {"complex": [repr(v.real), repr(v.imag)]}
    if isinstance(v, np.generic) and v.dtype.kind in "biufc":
        return {"numpy": v.dtype.name, "value": encode_static(v.item())}
    raise NotStorable(type(v).__name__)


def decode_static(j):
    if j is None or isinstance(j, (bool, int, str)):
        return j
    if "float" in j:
        return float(j["float"])
    if "complex" in j:
        return complex(float(j["complex"][0]), float(j["complex"][1]))
    if "numpy" in j:
        return dtype_of(j["numpy"]).type(decode_static(j["value"]))
    raise ValueError(f"unknown static value {j!r}")


def encode(treedef, leaves: list) -> dict:
    """JSON node for tpucc's (treedef, leaf nodes in flatten order)."""
    it = iter(leaves)
    node = _encode(treedef, it)
    return node


def _encode(td, it):
    if td is None:
        return next(it)
    kind = td[0]
    if kind in ("tuple", "list"):
        return {kind: [_encode(t, it) for t in td[1]]}
    if kind == "dict":
        return {"dict": [[k, _encode(t, it)] for k, t in zip(td[1], td[2])]}
    if kind == "object" and issubclass(td[1], tuple):
        cls = td[1]
        return {"namedtuple": {"module": cls.__module__, "name": cls.__qualname__,
                               "fields": list(td[2]), "items": [_encode(t, it) for t in td[3]]}}
    if kind == "object":
        raise NotStorable(f"a {td[1].__name__} object")
    if kind == "chosen":
        return _chosen(td[1], next(it))
    if kind == "optional":      # a Python number or None (infer.optional_numbers)
        return {**next(it), "optional": True}
    raise NotStorable(f"a {kind} iterator")


def _chosen(objects: tuple, position: dict) -> dict:
    """A runtime choice among static objects (infer.chosen_values): the
    runtime leaf of its position, with the objects it indexes."""
    try:
        return {**position, "objects": encode_objects(objects)}
    except NotStorable as e:
        raise NotStorable(f"a static object chosen at run time among others (one is {e})") \
            from None


def encode_objects(objects) -> list:
    """The objects a runtime choice indexes, each exactly of its own type
    (an IntEnum member is an int that encode_static would store as one)."""
    for o in objects:
        if type(o) not in (type(None), bool, int, float, complex, str):
            raise NotStorable(f"a {type(o).__name__}")
    return [encode_static(o) for o in objects]


def children(node) -> list:
    """The child nodes of a container node, in order."""
    if "dict" in node:
        return [v for _, v in node["dict"]]
    if "namedtuple" in node:
        return node["namedtuple"]["items"]
    return next(iter(node.values()))


@lru_cache(maxsize=256)
def namedtuple_class(module: str, name: str, fields: tuple) -> type:
    """The named tuple class an artifact's result was: the class itself
    when its module is already imported (NumPy's EighResult), else a
    stand-in with the same name and fields.  An artifact never makes the
    loader import a module: it is data."""
    cls = sys.modules.get(module)
    for part in name.split("."):
        cls = getattr(cls, part, None)
    if isinstance(cls, type) and issubclass(cls, tuple) and \
            tuple(getattr(cls, "_fields", ())) == fields:
        return cls
    return collections.namedtuple(name.rsplit(".", 1)[-1], fields)


def leaves(node) -> list:
    """The leaf nodes in order (iteratively)."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if "leaf" in n:
            out.append(n)
        else:
            stack.extend(reversed(children(n)))
    return out


def build(node, leaf_value):
    """The Python structure described by `node`, each leaf replaced by
    leaf_value(leaf node).  Structures are as deep as the user's pytrees."""
    if "leaf" in node:
        return leaf_value(node)
    if "tuple" in node:
        return tuple(build(n, leaf_value) for n in node["tuple"])
    if "list" in node:
        return [build(n, leaf_value) for n in node["list"]]
    if "namedtuple" in node:
        spec = node["namedtuple"]
        cls = namedtuple_class(spec["module"], spec["name"], tuple(spec["fields"]))
        return cls(*(build(n, leaf_value) for n in spec["items"]))
    return {k: build(n, leaf_value) for k, n in node["dict"]}


def describe(node) -> str:
    """A one-line text form: (x: f32[8,4], params: {'w1': f32[4,16], ...})."""
    if "leaf" in node:
        if node["leaf"] == "array":
            from .spec import aval_text
            return aval_text(dtype_of(node["dtype"]), node["shape"])
        if node["leaf"] == "scalar":
            return f"{node['type']} (runtime)"
        if node["leaf"] == "runtime" and "objects" in node:
            return "one of " + ", ".join(repr(decode_static(o)) for o in node["objects"])
        if node["leaf"] == "runtime" and node.get("optional"):
            return "a number or None (runtime)"
        if node["leaf"] == "runtime":
            from .spec import aval_text
            text = aval_text(dtype_of(node["dtype"]), node["shape"])
            return f"{node['weak']}~{text}" if node.get("weak") else text
        if node["leaf"] == "argument":
            where = "".join(f"[{decode_static(k)!r}]" for k in node["keys"])
            root = decode_static(node["root"])
            return (f"argument {root if isinstance(root, str) else f'arg{root}'}{where} itself "
                    "(the caller's container)")
        return f"static {decode_static(node['value'])!r}"
    if "tuple" in node:
        items = [describe(n) for n in node["tuple"]]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if "list" in node:
        return "[" + ", ".join(describe(n) for n in node["list"]) + "]"
    if "namedtuple" in node:
        spec = node["namedtuple"]
        items = ", ".join(f"{k}={describe(n)}" for k, n in zip(spec["fields"], spec["items"]))
        return f"{spec['name'].rsplit('.', 1)[-1]}({items})"
    return "{" + ", ".join(f"{k!r}: {describe(n)}" for k, n in node["dict"]) + "}"
