"""Why a compiled function compiles again, said where a user can see it.

A call compiles when its arguments make a new signature (other dtypes,
shapes, static values) or when something the program read from outside
changed (a guard failed: an attribute, a global, a closure variable, a
list's length).  `TPUCC_LOG=recompiles` prints each such compile and its
reason on stderr, as TorchDynamo's TORCH_LOGS="recompiles" does; the
RecompileWarning of a signature that has used up its programs
(api.PROGRAMS_PER_SIGNATURE) names the reason too.
"""
from __future__ import annotations

import dataclasses
import os
import sys
import types

import numpy as np

from . import envvars
from .infer.values import MISSING



def logging() -> bool:
    return "recompiles" in envvars.words("TPUCC_LOG", ("recompiles",))


def log(fn, reason: str):
    print(f"tpucc: compiling {_name(fn)}: {reason}", file=sys.stderr)


def new_signature(args, kwargs) -> str:
    """"new argument signature (float32[8, 3], 0.1, k=2)"."""
    parts = [_argument(a) for a in args] + [f"{k}={_argument(v)}" for k, v in kwargs.items()]
    return f"new argument signature ({', '.join(parts)})"


def changed_reads(traced) -> list[str]:
    """What the program read from outside and is no longer there, one phrase
    each: "`.lr` of SGD: 0.1 -> 0.05", "the length or items of a list"."""
    out = []
    for namespace, key, value in traced.guards:
        now = namespace.get(key, MISSING)     # (what guards record for an absent name)
        if now is value:
            continue
        found = traced.namespaces.get(id(namespace))
        if found is None:           # (a trace record from the disk cache names no owners)
            out.append(f"`{key}`: {_short(value)} -> {_short(now)}"
                       if isinstance(key, str) else "something the program read")
            continue
        _, owner, kind = found
        if kind == "identities":
            out.extend(_identity_change(obj, key, was, now)
                       for obj, was, now in namespace.changed())
            continue
        place = _place(owner, kind, key)
        out.append(place if kind == "contents" else f"{place}: {_short(value)} -> {_short(now)}")
    return out


def _identity_change(obj, attr, was, now) -> str:
    if attr == "__class__":
        return f"`.__class__` of a {was.__qualname__} object: {was.__qualname__} -> " \
               f"{getattr(now, '__qualname__', now)}"
    return f"{_place(obj, 'slots', attr)}: {_short(was)} -> {_short(now)}"


def renew_equal_guards(entry) -> bool:
    """Whether every guard of `entry` that failed finds a value equal to the
    one traced, of the same immutable type (`cfg.mode = load_mode()` giving
    an equal new string, `lr = float(text)` the same number): the trace
    folded only the value, so the guards take the new objects and the
    entry's runner is made again, instead of a compile."""
    guards = entry.traced.guards
    renewed = []
    followed = {}           # id(part of a traced value) -> the same part of the new one
    for i, (namespace, key, value) in enumerate(guards):
        now = namespace.get(key, MISSING)     # (what guards record for an absent name)
        if now is value:
            continue
        if not (same_immutable(value, now) or alike_but_arrays(value, now, followed)):
            return False
        renewed.append((i, (namespace, key, now)))
    if not renewed:
        return False        # (an array read from outside changed its type)
    for i, guard in renewed:
        guards[i] = guard
    _follow_parts(entry.traced.captured, followed)
    entry.run = None
    return True


def alike_but_arrays(a, b, followed: dict) -> bool:
    """Whether `b` is `a` but for its arrays: tuples, named tuples and frozen
    dataclasses of the same classes, whose other items are the same
    immutable values (what the trace folded), and arrays where `a` has them
    (the captured arrays, read again at each call, whose types the reader
    checks).  `cell.state = St(h, c)` stores such a value at each call.  Their
    parts are noted in `followed`, by the id of a's."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return type(a) is type(b) is np.ndarray
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple) and len(a) == len(b):
        parts = list(zip(a, b))
    elif _is_value_dataclass(a):
        parts = [(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)]
    else:
        return same_immutable(a, b)
    followed[id(a)] = b
    return all(alike_but_arrays(x, y, followed) for x, y in parts)


def _is_value_dataclass(x) -> bool:
    params = getattr(type(x), "__dataclass_params__", None)
    return params is not None and params.frozen and not isinstance(x, type)


def _follow_parts(captured, followed: dict):
    """The captured arrays read from parts of a value now replaced by one
    alike (alike_but_arrays) are read from the same places of the new one."""
    def place(owner, hop):
        new = followed.get(id(owner))
        return None if new is None or hop is None or hop[0] not in ("attr", "item") else new

    for c in captured:
        new = place(c.owner, c.hop)
        if new is not None:
            c.owner, c.getter = new, _reader(new, c.hop)
        c.aliases = [(g, o, h) if place(o, h) is None else (_reader(place(o, h), h), place(o, h), h)
                     for g, o, h in c.aliases]


def _reader(owner, hop):
    kind, key = hop
    return (lambda: getattr(owner, key)) if kind == "attr" else (lambda: owner[key])


def same_immutable(a, b) -> bool:
    """Equal values of one immutable type that fold the same: numbers by
    their bits (0.0 and -0.0 differ, a NaN equals a NaN), strings, bytes,
    None, and tuples and frozensets of them."""
    if type(a) is not type(b):
        return False
    if type(a) in (str, bytes, bool, int, type(None)):
        return a == b
    if type(a) is float:
        return a.hex() == b.hex()
    if type(a) is complex:
        return a.real.hex() == b.real.hex() and a.imag.hex() == b.imag.hex()
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a.tobytes() == b.tobytes()
    if type(a) is tuple:
        return len(a) == len(b) and all(map(same_immutable, a, b))
    if type(a) is frozenset:
        return a == b and all(type(x) in (str, bytes, int, type(None)) for x in a)
    return False


def reason_for_guards(traced) -> str:
    reads = changed_reads(traced)
    return "; ".join(reads) if reads else (
        "an array read from outside changed its type, or arrays differentiated by "
        "tpucc.grad became one array (tied weights) or stopped being one")


def _place(owner, kind, key) -> str:
    if kind == "globals":
        return f"the global `{key}`"
    if kind in ("vars", "slots"):
        where = owner.__name__ if isinstance(owner, type) else \
            owner.__qualname__ + "()" if isinstance(owner, types.FunctionType) else \
            type(owner).__name__
        return f"`.{key}` of {where}"
    if kind == "cell":
        return "a closure variable"
    if kind == "contents":
        return f"the length or items of a {type(owner).__name__} from outside"
    return f"the item [{key!r}] of a {type(owner).__name__} from outside"


def _argument(x) -> str:
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{dtype}{list(shape)}"
    return _short(x)


def _short(value) -> str:
    if value is MISSING:
        return "(absent)"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _name(fn) -> str:
    code = getattr(fn, "__code__", None) or getattr(getattr(fn, "__func__", None), "__code__",
                                                     None)
    where = f" ({code.co_filename}:{code.co_firstlineno})" if code is not None else ""
    return f"{getattr(fn, '__qualname__', repr(fn))}{where}"
