"""Reverse mode on the IR: a `grad` region's gradient emitted op by op.

jax.value_and_grad of the lowered region linearizes and transposes every
jax primitive it traces, which costs 10-20x the primitive's own tracing
(jax.vjp of one convolution: 1.9 ms against 0.08 ms).  For VGG19's training
step that made jax's reverse mode most of tpucc's compile time.  Here the
region is lowered once, as the forward, and then walked backwards: each op's
registry `vjp` rule emits its cotangents directly as jax.lax.

A rule is `vjp(lc, operands, perms, out, ct, **attrs)`: the operands the
op's lowering was given (physical when the op ran in a physical layout, see
layout.py; `perms` says which), its result and the result's cotangent in
the same layout.  It returns one cotangent per operand, shaped like it (None:
zero; `lc.wants(k)` says whether operand k needs one), or NotImplemented for
a case it does not cover.  An op without a rule,
or a rule that declines, is differentiated by jax.vjp of its own lowering.

Regions this does not handle (nested regions, complex values, a non-float
parameter) return None: the caller uses jax.value_and_grad of the region.
"""
from __future__ import annotations

import dataclasses

import jax
import numpy as np
from jax import lax

from ..ops.registry import OPS, cast, differentiating
from . import layout

jax.tree_util.register_dataclass(layout.Phys, data_fields=["value"], meta_fields=["perm"])


def value_and_grad(region, env, params) -> list | None:
    """[value, *aux, *gradients w.r.t. the region's params] of a grad op's
    region, or None when the region needs jax's reverse mode."""
    if not _supported(region):
        return None
    values = dict(env)
    values.update(zip(region.params, params))
    active = _active_values(region)
    from . import lower_registry_op     # (lower/__init__.py imports this module)
    tape, made_by = [], {}
    for op in region.ops:
        lowered = lower_registry_op(op, [values[v] for v in op.inputs], made_by)
        values.update(zip(op.outputs, lowered.outs))
        if any(v in active for v in op.inputs):
            tape.append((op, lowered))
    results = [cast(layout.logical(values[v]), v.aval.dtype) for v in region.results]
    loss = region.results[0]
    cts = {loss: np.ones(loss.aval.shape, loss.aval.dtype)} if loss in active else {}
    for op, lowered in reversed(tape):
        out_cts = [cts.pop(v, None) for v in op.outputs]
        if all(ct is None for ct in out_cts):
            continue
        for v, ct in zip(op.inputs, _input_cotangents(op, lowered, out_cts, values, active)):
            if ct is not None:
                cts[v] = ct if v not in cts else lax.add(cts[v], ct)
    grads = [cast(cts[p], p.aval.dtype) if p in cts else lax.full(p.aval.shape, 0, p.aval.dtype)
             for p in region.params]
    return [*results, *grads]


def _supported(region) -> bool:
    """Float parameters, a float scalar loss, no nested regions and no
    complex values (whose cotangents would need conjugates)."""
    loss = region.results[0].aval
    if loss.shape != () or loss.dtype.kind != "f":
        return False
    if any(p.aval.dtype.kind != "f" for p in region.params):
        return False
    for op in region.ops:
        if op.regions or op.name not in OPS:
            return False
        if any(v.aval.dtype.kind == "c" for v in op.outputs):
            return False
    return True


def _active_values(region) -> set:
    """The float values that depend on a parameter: only they get cotangents."""
    active = set(region.params)
    for op in region.ops:
        if any(v in active for v in op.inputs):
            active.update(v for v in op.outputs if v.aval.dtype.kind == "f")
    return active


def _input_cotangents(op, lowered, out_cts, values, active) -> list:
    """One cotangent per op input (None for inactive ones), each in the
    layout of the input's environment value."""
    opdef = OPS[op.name]
    operand_cts = NotImplemented
    if opdef.vjp is not None and len(op.outputs) == 1:
        (out,), (ct,) = lowered.outs, out_cts
        out_value = out.value if isinstance(out, layout.Phys) else out
        lc = dataclasses.replace(lowered.lc, active=tuple(v in active for v in op.inputs))
        operand_cts = opdef.vjp(lc, lowered.operands, lowered.perms, out_value, ct, **lowered.attrs)
    if operand_cts is NotImplemented:
        return _by_jax_vjp(op, lowered, out_cts, values, active)
    cts = []
    for v, ct, perm in zip(op.inputs, operand_cts, lowered.perms):
        if ct is None or v not in active:
            cts.append(None)
            continue
        cts.append(cast(layout.from_operand(ct, perm, values[v], v.aval), v.aval.dtype))
    return cts


# Ops jax has no derivative for in some cases: (what to say instead of
# jax's message, which may advise jax's own options; None: jax's) and a hint.
_NO_DERIVATIVE = {
    "linalg_svd": (None, "np.linalg.svd(a, full_matrices=False) has a derivative (and the "
                         "same S)"),
    "linalg_eig": ("the eigenvectors of np.linalg.eig have no derivative (it is defined only "
                   "under assumptions on the matrix that cannot be checked), and while they "
                   "are computed the eigenvalues have none either",
                   "np.linalg.eigvals(a) differentiates (the same eigenvalues); for a "
                   "hermitian matrix, np.linalg.eigh differentiates both"),
    "scatter_at": (None, "np.multiply.at has a derivative where its indices are static and "
                         "reach each element once; with runtime indices, write a[idx] = "
                         "a[idx] * b when they are unique")}


def no_derivative_error(op, e: NotImplementedError):
    """The E350 at the op's line for jax's refusal `e` to differentiate its
    lowering (jax's AD raises when it traces the op's lowering)."""
    from ..errors import GradError
    what, hint = _NO_DERIVATIVE.get(op.name, (None, None))
    return GradError(f"reverse-mode differentiation through {op.name} is not supported "
                     f"here: {what or e}", op.loc, hint=hint)


def _by_jax_vjp(op, lowered, out_cts, values, active) -> list:
    """jax.vjp of the op's own lowering with respect to its active inputs
    (environment values: Phys are pytrees, so cotangents keep their layout)."""
    from . import lower_registry_op
    inputs = [values[v] for v in op.inputs]
    wrt = [k for k, v in enumerate(op.inputs) if v in active]
    # Only the outputs that have a cotangent: jax then never transposes the
    # others' part of the op's derivative.  Seeding them with zeros instead
    # multiplies those zeros by whatever that part holds, and the
    # eigenvectors' (1 / (w_i - w_j)) is infinite where eigenvalues repeat.
    float_outs = [k for k, v in enumerate(op.outputs)
                  if v.aval.dtype.kind == "f" and out_cts[k] is not None]

    def fn(*xs):
        args = list(inputs)
        for k, x in zip(wrt, xs):
            args[k] = x
        with differentiating():
            outs = lower_registry_op(op, args).outs
        return [outs[k] for k in float_outs]

    # (where jax has no derivative, svd's full U, lower_registry_op says so)
    outs, pullback = jax.vjp(fn, *(inputs[k] for k in wrt))
    seeds = []
    for k, out in zip(float_outs, outs):
        ct = out_cts[k]
        if isinstance(out, layout.Phys):
            ct = layout.Phys(ct, out.perm)
        seeds.append(ct)
    grads = pullback(seeds)
    cts = [None] * len(op.inputs)
    for k, g in zip(wrt, grads):
        cts[k] = g.value if isinstance(g, layout.Phys) else g
    return cts


# --- helpers for the rules -----------------------------------------------------------

def unbroadcast(ct, shape: tuple):
    """The cotangent of an operand of `shape` that was broadcast (NumPy
    rules: left-aligned ranks, size-1 axes) to the cotangent's shape."""
    shape = tuple(shape)
    if tuple(ct.shape) == shape:
        return ct
    lead = ct.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + a for a, d in enumerate(shape)
                                      if d == 1 and ct.shape[lead + a] != 1)
    summed = lax.reduce_sum(ct, axes) if axes else ct
    return lax.reshape(summed, shape) if tuple(summed.shape) != shape else summed
