"""Physical layouts chosen while lowering: channels-last through conv nets.

Users write NCHW (PyTorch's layout).  XLA on CPUs and GPUs runs convolutions
channels-last: an NCHW program gets a transpose around every convolution,
which made tpucc's VGG19 ~1.7x slower than the same network written NHWC.
So a conv2d result is kept physically NHWC, and the ops that follow it
(bias add, ReLU, pooling: ops whose registry entry has a `layout` rule) work
on that layout directly.  Any other op, and every region result, sees the
logical layout: one transpose where the chain ends (e.g. at `flatten`).

A value lowered in another layout is a `Phys`: the physical jax value and
`perm`, the logical axis held by each physical axis (NHWC of an NCHW value:
perm (0, 2, 3, 1); physical = lax.transpose(logical, perm)).
"""
from __future__ import annotations

from dataclasses import dataclass

from jax import lax

NHWC = (0, 2, 3, 1)


@dataclass(frozen=True)
class Phys:
    value: object
    perm: tuple


def logical(x):
    """The value in its logical layout (a transpose if it is a Phys)."""
    if isinstance(x, Phys):
        return lax.transpose(x.value, inverse(x.perm))
    return x


def inverse(perm: tuple) -> tuple:
    inv = [0] * len(perm)
    for physical_axis, logical_axis in enumerate(perm):
        inv[logical_axis] = physical_axis
    return tuple(inv)


def to_layout(x, ndim: int, perm: tuple):
    """A logical value of rank <= len(perm), broadcast-aligned to rank
    len(perm) (NumPy aligns trailing axes) and permuted to `perm`."""
    if isinstance(x, Phys):
        return x.value if x.perm == perm else lax.transpose(logical(x), perm)
    if ndim == 0:
        return x            # a scalar broadcasts the same in every layout
    if ndim < len(perm):
        x = lax.expand_dims(x, tuple(range(len(perm) - ndim)))
    return lax.transpose(x, perm)


@dataclass
class Lowered:
    """One op lowered: its results (Phys where physical), and the operands
    its lowering function was called with, each with its layout (`perms`:
    a perm, or None for a logical operand)."""
    outs: list
    lc: object
    attrs: dict
    operands: list
    perms: tuple


def lower_in_layout(opdef, lc, ins, attrs):
    """(physical result, perm, operands, their perms), or None when the op
    should see logical operands.  Elementwise ops follow their operands'
    layout; an op with its own rule (conv2d) may also choose a layout for
    logical operands."""
    perms = [x.perm if isinstance(x, Phys) else None for x in ins]
    if opdef.layout is None:
        return None
    if opdef.layout == "elementwise":
        if all(p is None for p in perms):
            return None
        return _elementwise(opdef, lc, ins, perms, attrs)
    values = [x.value if isinstance(x, Phys) else x for x in ins]
    physical = opdef.layout(lc, values, perms, **attrs)
    return None if physical is None else (*physical, values, tuple(perms))


def _elementwise(opdef, lc, ins, perms, attrs):
    """Elementwise lowerings read only dtypes from `lc`, so they run as is
    on operands that are all in the same physical layout."""
    perm = next(p for p in perms if p is not None)
    if lc.out_avals[0].ndim != len(perm) or any(a.ndim > len(perm) for a in lc.in_avals):
        return None
    phys = [_in_layout(x, a, perm, lc.producer(k)) for k, (x, a) in enumerate(zip(ins, lc.in_avals))]
    operand_perms = tuple(None if a.ndim == 0 else perm for a in lc.in_avals)
    return opdef.lower(lc, *phys, **attrs), perm, phys, operand_perms


def _in_layout(x, aval, perm: tuple, producer):
    """Operand `x` (of IR type `aval`, made by the registry op `producer`)
    in layout `perm`.  A logical operand made by a reshape that only adds
    size-1 axes (a bias, (C,) -> (1, C, 1, 1)) becomes one reshape of that
    reshape's own operand, where reshape + transpose would be two jax
    equations (each distinct one costs jax ~0.1 ms to lower).  Valid when
    the permutation keeps the order of the axes longer than 1: their
    elements then stay in the same order."""
    if (producer is not None and producer[0] == "reshape" and aval.ndim == len(perm)
            and not isinstance(x, Phys) and not isinstance(producer[2][0], Phys)):
        long_axes = [axis for axis in perm if aval.shape[axis] != 1]
        if long_axes == sorted(long_axes):
            return lax.reshape(producer[2][0], physical_shape(aval.shape, perm))
    return to_layout(x, aval.ndim, perm)


def from_operand(ct, operand_perm, x, aval):
    """The cotangent of an op input `x` (an environment value: Phys or
    logical, of IR type `aval`) from the cotangent of the operand the op's
    lowering saw, which was `x` put in layout `operand_perm` (to_layout)."""
    target = x.perm if isinstance(x, Phys) else None
    if operand_perm == target:
        return ct
    if operand_perm is not None:
        ct = lax.transpose(ct, inverse(operand_perm))
        if ct.ndim != aval.ndim:        # to_layout aligned a lower rank to the left
            ct = lax.reshape(ct, aval.shape)
    return ct if target is None else lax.transpose(ct, target)


def permute_window(window: tuple, perm: tuple) -> tuple:
    """A per-axis window parameter (logical order) in physical order."""
    return tuple(window[axis] for axis in perm)


def stored_input_layouts(program, candidates) -> dict:
    """{input index: perm} for the program inputs among `candidates` (arrays
    the caller keeps on the device between calls) whose every use is an op
    operand with a stored layout (registry `stored_layouts`), the same one
    for all uses: the caller passes those inputs already in that physical
    layout.  Any other use (a result, another op) keeps an input logical."""
    from ..ops.registry import OPS
    index = {id(program.params[i]): i for i in candidates}
    chosen: dict = {}
    logical_only: set = set()
    regions = [program]
    while regions:
        region = regions.pop()
        logical_only.update(index[id(v)] for v in region.results if id(v) in index)
        for op in region.ops:
            regions.extend(op.regions)
            opdef = OPS.get(op.name)
            preferred = (opdef.stored_layouts if opdef is not None else None) or {}
            for k, v in enumerate(op.inputs):
                i = index.get(id(v))
                if i is None:
                    continue
                perm = preferred.get(k)
                if perm is None or chosen.setdefault(i, perm) != perm:
                    logical_only.add(i)
    return {i: perm for i, perm in chosen.items() if i not in logical_only}


def physical_shape(shape: tuple, perm: tuple) -> tuple:
    return tuple(shape[axis] for axis in perm)
