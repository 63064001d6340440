"""lower: typed IR -> one HLO module.

Input: a Program region whose ops are registry ops plus `cond`, `while`
(a scan when it has a static `trip_count`) and `grad` (jax.value_and_grad
of its region).
Output: a Python function of the flat runtime inputs that emits jax.lax for
every op when traced by jax.jit; tracing it once gives the HLO module.
Invariant: every region result is converted to its IR dtype (strong), so
branches and loop bodies agree on types exactly.
"""
from __future__ import annotations

import jax
from jax import lax

from ..errors import InternalError, TpuccError
from ..ir import Region
from ..ops.registry import OPS, LowerCtx, cast, differentiated, differentiating
from . import layout, reverse
from .together import (CHECKS_PER_FUSION, last_reads, live_scalars_together, packs_scalars,
                       scalars_together)


def to_function(program: Region, input_layouts: dict | None = None):
    """The jax-traceable function computing `program`; the inputs named in
    `input_layouts` ({index: perm}) arrive in that physical layout."""
    layouts = input_layouts or {}

    def run(*inputs):
        if layouts:
            inputs = [layout.Phys(x, layouts[i]) if i in layouts else x
                      for i, x in enumerate(inputs)]
        return tuple(lower_region(program, {}, inputs))
    return run


def lower_region(region: Region, outer: dict, args) -> list:
    """Region results in their logical layout; inside, values may be kept
    in another physical layout (layout.Phys, see layout.py)."""
    env = dict(outer)
    for p, a in zip(region.params, args):
        env[p] = a
    made_by: dict = {}
    # Where the region checks Python numbers, the scalars of a loop's state,
    # of the results, and those live every CHECKS_PER_FUSION checks go
    # through one packed array: XLA would otherwise recompute the chain they
    # share in many fusions, or compile one huge fusion (see together.py).
    together = packs_scalars(region)
    ops = live_ops(region)
    last_read = together and last_reads(ops, region.results)
    checks = 0
    for i, op in enumerate(ops):
        if together and op.name == "check":
            checks += 1
            if checks % CHECKS_PER_FUSION == 0:
                live_scalars_together(ops, env, i, last_read)
        ins = [env[v] for v in op.inputs]
        if together and op.name == "while":
            ins = scalars_together(ins, [v.aval for v in op.inputs])
        outs = _lower_op(op, env, ins, made_by)
        for v, x in zip(op.outputs, outs):
            env[v] = x
    results = [cast(layout.logical(env[v]), v.aval.dtype) for v in region.results]
    return scalars_together(results, [v.aval for v in region.results]) if together else results


def deepest_branch_chain(program: Region):
    """The outermost `cond` of the longest run of directly nested conds on
    the program's deepest path of regions (an `if`/`elif` chain or an
    `or` chain on runtime values), and that path's depth: lowering each
    nested region is a jax trace inside the enclosing one's, so nesting
    deep enough exhausts Python's recursion limit."""
    best, best_depth = None, 0
    work = [(program, 0, None)]     # (region, depth, outermost cond of its run)
    while work:
        region, depth, run_start = work.pop()
        for op in region.ops:
            if not op.regions:
                continue
            start = (run_start or op) if op.name == "cond" else None
            if depth + 1 > best_depth:
                best, best_depth = start or op, depth + 1
            work.extend((r, depth + 1, start) for r in op.regions)
    return best, best_depth


def live_ops(region: Region) -> list:
    """The region's ops that its results need, in order: infer may leave
    ops nothing reads (a list's items read back from a loop's buffers and
    then only stacked whole, values of an attempt it retried), and jax would
    trace each one.  Ops with regions, and ops with no results (print), are
    kept."""
    needed = {id(v) for v in region.results}
    kept = []
    for op in reversed(region.ops):
        if op.regions or not op.outputs or any(id(v) in needed for v in op.outputs):
            kept.append(op)
            needed.update(map(id, op.reads()))
    kept.reverse()
    return kept


def _lower_op(op, env, ins, made_by):
    if op.name == "cond":
        chain = elif_chain(op)
        if len(chain[1]) >= SWITCH_CHAIN:
            return _lower_switch(*chain, env)
        true_r, false_r = op.regions
        return lax.cond(layout.logical(ins[0]), lambda: tuple(lower_region(true_r, env, ())),
                        lambda: tuple(lower_region(false_r, env, ())))
    if op.name == "while":
        return _lower_while(op, env, [layout.logical(x) for x in ins])
    if op.name == "grad":
        return _lower_grad(op, env, [layout.logical(x) for x in ins])
    return lower_registry_op(op, ins, made_by).outs


# A chain of runtime `elif`s (or of `or`s) this long is one lax.switch:
# nested lax.conds are traced one inside the other, past Python's recursion
# limit near 110 arms, and XLA compiles a deep nest slowly (43 s for 120).
SWITCH_CHAIN = 16

# The ops an `elif`'s test is computed with that may run before the chain,
# on every path: pure, and harmless on any operand (a gather clamps; an
# index's bounds check is a `check` op of its own, not hoisted).
_HOISTABLE = frozenset({"const", "full", "convert", "equal", "not_equal", "less", "less_equal",
                        "greater", "greater_equal", "logical_and", "logical_or",
                        "logical_not", "getitem"})


def elif_chain(op):
    """A cond one of whose regions only computes another cond's test and
    returns that cond's results, and so on (an `elif` chain goes on in the
    false region, an `and` chain in the true one): ([(ops computing the
    test, the test, whether the chain leaves when it is true)] per level,
    [the region each level leaves to], the last region of the chain)."""
    tests, arms, hoisted = [], [], ()
    while True:
        test = op.inputs[0]
        true_r, false_r = op.regions
        inner, leaves_when = _continued(false_r), True
        if inner is None and _continued(true_r) is not None:
            inner, leaves_when = _continued(true_r), False
        tests.append((hoisted, test, leaves_when))
        if inner is None:           # the chain's last cond: its true arm, else `last`
            arms.append(true_r)
            return tests, arms, false_r
        arms.append(true_r if leaves_when else false_r)
        hoisted, op = (false_r if leaves_when else true_r).ops[:-1], inner


def _continued(region):
    """The cond `region` ends with and returns the results of, when all it
    does before is compute that cond's test (ops safe to run first)."""
    inner = region.ops[-1] if region.ops else None
    if inner is None or inner.name != "cond" or region.params \
            or len(inner.outputs) != len(region.results) \
            or any(a is not b for a, b in zip(inner.outputs, region.results)) \
            or not all(o.name in _HOISTABLE and not o.regions for o in region.ops[:-1]):
        return None
    return inner


def _lower_switch(tests, arms, last, outer: dict):
    """A chain of conds as one lax.switch on the first level that leaves
    it (the last region when none does): every test is computed first."""
    env = dict(outer)
    leaves = []
    for hoisted, test, leaves_when in tests:
        for h in hoisted:
            env.update(zip(h.outputs, lower_registry_op(h, [env[v] for v in h.inputs]).outs))
        holds = layout.logical(env[test])
        leaves.append(holds if leaves_when else lax.bitwise_not(holds))
    index = lax.full((), len(arms), jax.numpy.int32)
    for k in reversed(range(len(arms))):
        index = lax.select(leaves[k], lax.full((), k, jax.numpy.int32), index)
    branches = [lambda r=r: tuple(lower_region(r, env, ())) for r in (*arms, last)]
    return lax.switch(index, branches)


def lower_registry_op(op, ins, made_by: dict | None = None) -> layout.Lowered:
    """A registry op's results, with the operands its lowering was given
    (reverse mode differentiates the op on those: see reverse.py).
    `made_by`, the region's record of registry ops by their result (the
    op's operands' producers, for LowerCtx.producer), gains this op."""
    opdef = OPS.get(op.name)
    if opdef is None:
        raise InternalError(f"no lowering for op {op.name}", op.loc)
    attrs = {k: getattr(v, "array", v) for k, v in op.attrs}
    sources = None
    if made_by is not None:
        if len(op.outputs) == 1:
            made_by[op.outputs[0]] = (op.name, attrs, ins)
        sources = tuple(made_by.get(v) for v in op.inputs)
    lc = LowerCtx(tuple(v.aval for v in op.inputs), tuple(v.aval for v in op.outputs), attrs,
                  made_by=sources)
    physical = layout.lower_in_layout(opdef, lc, ins, attrs)
    if physical is not None:
        out, perm, operands, perms = physical
        outs = [layout.Phys(cast(out, op.outputs[0].aval.dtype), perm)]
        return layout.Lowered(outs, lc, attrs, operands, perms)
    operands = [layout.logical(x) for x in ins]
    try:
        out = opdef.lower(lc, *operands, **attrs)
    except TpuccError as e:         # a lowering's refusal names the op's line
        raise e.with_loc(op.loc) from None
    except NotImplementedError as e:
        if not differentiated():
            raise
        # jax's AD, tracing this lowering, has no derivative for it (svd's full U)
        raise reverse.no_derivative_error(op, e) from None
    if len(op.outputs) == 1 and not isinstance(out, tuple):
        out = (out,)
    outs = [cast(x, v.aval.dtype) for x, v in zip(out, op.outputs)]
    return layout.Lowered(outs, lc, attrs, operands, (None,) * len(operands))


def _lower_while(op, env, ins):
    cond_r, body_r = op.regions
    init = tuple(cast(x, v.aval.dtype) for x, v in zip(ins, op.inputs))
    # Slots the body carries along unchanged (a parameter live after the
    # loop) are read from outside instead: under tpucc.grad a While that
    # carries a differentiated array, even untouched, has no reverse mode.
    along = {i: x for i, (x, p, end) in enumerate(zip(init, body_r.params, body_r.results))
             if end is p}

    def slots(carry):
        carry = iter(carry)
        return [along[i] if i in along else next(carry) for i in range(len(init))]

    def carried(values):
        return tuple(x for i, x in enumerate(values) if i not in along)

    body = lambda c: carried(lower_region(body_r, env, slots(c)))      # noqa: E731
    keep_going = lambda c: lower_region(cond_r, env, slots(c))[0]      # noqa: E731
    trips = op.attr("trip_count")
    if trips is not None and op.attr("guarded"):
        # A runtime exit may leave the loop before `trips` iterations (under
        # tpucc.grad): each step runs the body only while the condition
        # holds, else carries the state through.  One copy of the body in a
        # scan, which reverse mode differentiates, rather than `trips` nested
        # conds, whose residuals (each cond's holding all the later ones')
        # grow quadratically.
        step = lambda _, c: lax.cond(keep_going(c), body, lambda c: c, c)  # noqa: E731
        return slots(lax.fori_loop(0, trips, step, carried(init)))
    if trips is not None:
        # Static bounds make fori_loop a scan: still an HLO while, and
        # reverse-differentiable, which lax.while_loop is not.
        return slots(lax.fori_loop(0, trips, lambda _, c: body(c), carried(init)))
    return slots(lax.while_loop(keep_going, body, carried(init)))


def _lower_grad(op, env, ins):
    """jax.value_and_grad of the differentiated region, w.r.t. its params."""
    (fn_r,) = op.regions
    n_aux = op.attr("n_aux")

    def fn(*xs):
        with differentiating():
            outs = lower_region(fn_r, env, xs)
        return outs[0], tuple(outs[1:])

    if not ins:
        value, aux = fn()
        return [value, *aux]
    by_rules = reverse.value_and_grad(fn_r, env, ins)
    if by_rules is not None:
        return by_rules
    (value, aux), grads = jax.value_and_grad(fn, argnums=tuple(range(len(ins))),
                                             has_aux=True)(*ins)
    assert len(aux) == n_aux
    return [value, *aux, *grads]


def input_structs(in_avals, input_layouts: dict, sharding=None) -> list:
    """The types the lowered function takes: each input's shape, permuted
    for those passed in a physical layout (`input_layouts`)."""
    return [jax.ShapeDtypeStruct(layout.physical_shape(a.shape, input_layouts[i])
                                 if i in input_layouts else a.shape, a.dtype, sharding=sharding)
            for i, a in enumerate(in_avals)]


def lower_to_jax(program: Region, in_avals, input_layouts: dict | None = None,
                 recycled=()):
    """(the jitted function, its Lowered for these input types), traced under
    64-bit mode as a context.  Inputs in `input_layouts` are passed
    physically permuted (see to_function).  `recycled`: the types of extra
    inputs the Lowered takes after the program's, unused and donated, so
    that XLA may write results of the same types into their buffers (the
    caller passes its last call's write-back results: outputs.OutputPool).
    The jitted function takes the program's inputs only."""
    layouts = input_layouts or {}
    structs = input_structs(in_avals, layouts)
    with jax.enable_x64(True):
        fn = to_function(program, layouts)
        jitted = jax.jit(fn)
        if not recycled:
            return jitted, jitted.lower(*structs)
        n = len(structs)
        donating = jax.jit(lambda *xs: fn(*xs[:n]), keep_unused=True,
                           donate_argnums=tuple(range(n, n + len(recycled))))
        return jitted, donating.lower(*structs, *(jax.ShapeDtypeStruct(a.shape, a.dtype)
                                                  for a in recycled))
