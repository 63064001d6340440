"""The typed IR shared by infer/ (which builds it) and lower/ (which reads it).

A Program is a Region: parameters, a list of Ops, results.  Ops are small
frozen records: a registry op name, input Values, static attributes, output
Values, nested Regions (for cond / while / fori) and a source location.
Values are SSA: each is defined once, by a region parameter or an op output.
Regions may use Values of enclosing regions (closures), as jax allows.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .errors import Loc

_SHORT = {"bool": "bool", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
          "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
          "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
          "complex64": "c64", "complex128": "c128"}


@dataclass(frozen=True, slots=True)
class AVal:
    """Abstract value of a runtime array: dtype, shape and NEP 50 weakness (a
    promoted Python scalar is weak: it adapts to the other operand's dtype)."""
    dtype: np.dtype
    shape: tuple[int, ...]
    weak: bool = False

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def strong(self) -> "AVal":
        return AVal(self.dtype, self.shape, False)

    def __str__(self) -> str:
        name = _SHORT.get(self.dtype.name, self.dtype.name)
        weak = "~" if self.weak else ""
        return f"{weak}{name}[{','.join(map(str, self.shape))}]"


_made = [0]     # Values made so far: the next one's id


def _next_id() -> int:
    _made[0] += 1
    return _made[0] - 1


def values_made() -> int:
    """How many Values have been made: a Value whose id is at least this
    number is made later (recursion.py tells apart the ints a recursion
    computes from those it was given)."""
    return _made[0]


@dataclass(frozen=True, slots=True, eq=False)
class Value:
    """An SSA value.  Identity is the object itself; `id` is for printing."""
    aval: AVal
    id: int = field(default_factory=_next_id)

    def __str__(self) -> str:
        return f"%{self.id}"


@dataclass(frozen=True, slots=True, eq=False)
class Region:
    params: tuple[Value, ...]
    ops: list["Op"]
    results: tuple[Value, ...]


@dataclass(frozen=True, slots=True, eq=False)
class Op:
    name: str
    inputs: tuple[Value, ...]
    attrs: tuple[tuple[str, object], ...]
    outputs: tuple[Value, ...]
    loc: Loc | None = None
    regions: tuple[Region, ...] = ()
    note: str = ""          # why this op exists (e.g. why a loop became While)

    def reads(self):
        """The Values the op reads: its inputs, and what its regions' ops
        (and results) read, theirs included (regions are closures)."""
        # (a worklist: a chain of 120 `elif`s on a runtime value nests 120
        # regions, too deep for nested generators)
        work = [self]
        while work:
            op = work.pop()
            yield from op.inputs
            for r in op.regions:
                work.extend(reversed(r.ops))
                yield from r.results

    def attr(self, name, default=None):
        for k, v in self.attrs:
            if k == name:
                return v
        return default

    @property
    def attr_dict(self) -> dict:
        return dict(self.attrs)


def format_attr(v) -> str:
    if isinstance(v, np.ndarray):
        return f"array{tuple(v.shape)}" if v.size > 4 else np.array2string(v, separator=",")
    if isinstance(v, np.dtype):
        return v.name
    return repr(v)


def print_region(region: Region, indent: str = "", show_loc: bool = True) -> str:
    """Text form of a region; each op line ends with its source location."""
    lines = []
    if region.params:
        lines.append(indent + "params " + ", ".join(f"{p}: {p.aval}" for p in region.params))
    for op in region.ops:
        lines.extend(_print_op(op, indent, show_loc))
    lines.append(indent + "return " + ", ".join(str(r) for r in region.results))
    return "\n".join(lines)


def _print_op(op: Op, indent: str, show_loc: bool) -> list[str]:
    outs = ", ".join(f"{o}: {o.aval}" for o in op.outputs)
    attrs = "".join(f" {k}={format_attr(v)}" for k, v in op.attrs)
    ins = ", ".join(str(i) for i in op.inputs)
    line = f"{indent}{outs + ' = ' if outs else ''}{op.name}({ins}){attrs}"
    if show_loc and op.loc is not None:
        line = f"{line:<72}  # {op.loc.file.rsplit('/', 1)[-1]}:{op.loc.line}"
    lines = [line]
    if op.note:
        lines.append(f"{indent}  # {op.note}")
    for i, region in enumerate(op.regions):
        lines.append(f"{indent}  region {i}:")
        lines.append(print_region(region, indent + "    ", show_loc))
    return lines


def walk_ops(region: Region):
    """All ops of a region and its nested regions, with a worklist."""
    stack = [region]
    while stack:
        r = stack.pop()
        for op in r.ops:
            yield op
            stack.extend(op.regions)


def verify(region: Region) -> None:
    """Checks SSA: every input is defined before use in this or an enclosing
    region, and every value is defined once.  Used between passes in tests."""
    defined: set[int] = set()
    stack = [(region, frozenset())]
    while stack:
        r, outer = stack.pop()
        local = set(outer) | {id(p) for p in r.params}
        for op in r.ops:
            for v in op.inputs:
                if id(v) not in local:
                    raise AssertionError(f"{op.name}: input {v} used before definition")
            for sub in op.regions:
                stack.append((sub, frozenset(local)))
            for o in op.outputs:
                if id(o) in defined:
                    raise AssertionError(f"{o} defined twice")
                defined.add(id(o))
                local.add(id(o))
        for v in r.results:
            if id(v) not in local:
                raise AssertionError(f"result {v} not defined")
