"""Emission context: the region being built, the current source location and
the compile options.  `emit` is the one way ops enter the IR: it converts
operands to Values, runs the op's abstract evaluation (shape + dtype rule)
and appends the op to the current region."""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from ..errors import InternalError, Loc, ShapeError, TpuccError
from ..ir import AVal, Op, Region, Value


@dataclass
class RegionBuilder:
    ops: list = field(default_factory=list)
    params: tuple = ()


@dataclass
class Context:
    options: dict
    regions: list = field(default_factory=lambda: [RegionBuilder()])
    loc: Loc | None = None
    runtime_depth: int = 0        # > 0 inside a runtime branch or loop body
    serial_floor: list = field(default_factory=lambda: [0])  # first Array serial of each runtime region
    journal: list = field(default_factory=list)  # stack of {Array: var before} per runtime region
    inputs: list = field(default_factory=list)   # captured arrays -> module parameters
    guards: list = field(default_factory=list)
    writebacks: list = field(default_factory=list)

    @property
    def region(self) -> RegionBuilder:
        return self.regions[-1]


_current: list[Context] = []


def ctx() -> Context:
    if not _current:
        raise InternalError("no compilation in progress")
    return _current[-1]


@contextlib.contextmanager
def compiling(context: Context):
    _current.append(context)
    try:
        yield context
    finally:
        _current.pop()


@contextlib.contextmanager
def new_region(params=()):
    """Collects the ops emitted inside the block into a fresh RegionBuilder."""
    c = ctx()
    rb = RegionBuilder(params=tuple(params))
    c.regions.append(rb)
    try:
        yield rb
    finally:
        c.regions.pop()


@contextlib.contextmanager
def at(loc: Loc | None):
    c = ctx()
    saved = c.loc
    if loc is not None:
        c.loc = loc
    try:
        yield
    finally:
        c.loc = saved


def current_loc() -> Loc | None:
    return _current[-1].loc if _current else None


def emit_op(name: str, inputs: tuple[Value, ...], attrs: dict, out_avals, regions=(), note=""):
    c = ctx()
    outs = tuple(Value(a) for a in out_avals)
    op = Op(name, tuple(inputs), tuple(sorted(attrs.items())), outs, c.loc, tuple(regions), note)
    c.region.ops.append(op)
    return outs


def emit(name: str, *operands, **attrs):
    """Emits registry op `name` on operands (Arrays or static scalars/ndarrays);
    returns an Array, or a tuple of Arrays for multi-output ops."""
    from ..ops.registry import OPS
    from .values import Array, to_value
    opdef = OPS[name]
    values = tuple(to_value(x) for x in operands)
    avals = tuple(v.aval for v in values)
    try:
        out = opdef.abstract(avals, **attrs)
    except TpuccError as e:
        raise e.with_loc(current_loc()) from None
    except (ValueError, TypeError, IndexError) as e:
        raise ShapeError(f"{name}: {_shapes(avals)}: {e}", current_loc()) from None
    multi = isinstance(out, tuple)
    outs = emit_op(name, values, attrs, out if multi else (out,))
    arrays = tuple(Array(v) for v in outs)
    if not multi and out.shape == () and name not in ARRAY_MAKERS:
        arrays[0].immutable = True      # NumPy gives a scalar here, not a 0-d array
    return arrays if multi else arrays[0]


# Ops whose 0-d results are 0-d arrays in NumPy (np.zeros(()), x[...], astype, ...);
# every other op on 0-d inputs returns a NumPy scalar, which `+=` rebinds.
ARRAY_MAKERS = frozenset({"full", "const", "getitem", "setitem", "reshape", "convert",
                          "broadcast_to", "transpose", "arange", "eye"})


def _shapes(avals) -> str:
    return ", ".join(str(a) for a in avals)


def const_value(x) -> Value:
    """A Value holding a static scalar or ndarray (Python scalars are weak)."""
    from ..ops.registry import const_aval
    aval = const_aval(x)
    arr = np.asarray(x, dtype=aval.dtype)
    (v,) = emit_op("const", (), {"value": _Hashable(arr)}, (aval,))
    return v


class _Hashable:
    """Wraps an ndarray attribute so ops stay hashable/printable."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __repr__(self):
        a = self.array
        return np.array2string(a, separator=",", threshold=6) if a.size <= 6 else f"array{a.shape}"
