"""Reverse-mode AD, as the interpreter meets `tpucc.grad(f)(args)`.

f is interpreted into a nested region whose parameters are the float leaves
of the differentiated arguments (arrays in dicts, lists, tuples and object
attributes); one `grad` op holds that region, and lower/ emits its gradient:
op by op from the registry's vjp rules (lower/reverse.py), or, for a region
with nested regions, as `jax.value_and_grad` of the region's lowering.  So
AD differentiates exactly the program tpucc compiled: static loops unrolled
or counted (a scan), runtime branches as conds.  XLA has no reverse mode for a While whose trip
count is known only at run time: such a loop is refused at its line.

Arrays from outside f that f updates in place (batch norm's running
statistics) are updated as in eager code; they are not differentiated.
Leaves that are not float arrays (integer arrays, Python ints, strings,
functions) are constants: their place in the gradient holds None.  An object
differentiated with respect to gets a gradient object of the same class whose
attributes are the gradients (or None), as Equinox does.

One array at several places (tied weights) is one parameter, whose gradient
is at each place; the caller's arrays are told apart by identity, which the
driver checks at each call (Leaves.assume_identities).  Dicts and lists are
copied for f (their arrays are the parameters): f may update those arrays in
place, but a change to the copy itself would be lost, and is refused.
"""
from __future__ import annotations

import collections
import contextlib
import copy
import inspect
import os
import types
from dataclasses import dataclass, field

import numpy as np

from ..errors import GradError, Loc
from ..ir import Region, Value
from . import builder, iterators
from .state import flatten, has_static_keys, instance_attributes, unflatten
from .values import Array, compile_time_kind

_PLAIN = (bool, int, str, bytes, type(None), complex)


@dataclass
class Leaves:
    """The differentiable leaves, each array once per argument: one array
    held at several places of an argument (tied weights) is one leaf, whose
    gradient (the total) is at each.
    The caller's arrays are module inputs of their own at each place where
    the call passes them (an argument's dict items): those are told apart by
    the caller's array, and `inputs` lists them for the identity check."""
    arrays: list = field(default_factory=list)
    index: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)  # (param Value, caller's array) per place
    argument: int = 0       # the argument whose leaves are being added
    objects: dict = field(default_factory=dict)     # id(object) -> its first argument

    def add(self, interp, arr: Array) -> int:
        key = id(arr)
        entry = interp.input_objects.get(key)
        if entry is not None and entry[0] is arr:
            self.inputs.append(entry[1:])
            key = id(entry[2])
        key = (self.argument, key)
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.arrays)
            self.arrays.append(arr)
        return i

    def assume_identities(self):
        """The gradient is right for calls whose arrays are one array at
        the same places as now, and distinct at the others: recorded for the
        driver, which compiles again where a call differs.  Only arrays of
        one type and shape can be one array."""
        avals = collections.Counter(p.aval for p, _ in self.inputs)
        places = [(p, x) for p, x in self.inputs if avals[p.aval] > 1]
        if places:
            builder.ctx().input_identities.append(
                (tuple(p for p, _ in places), identity_pattern([x for _, x in places])))


def identity_pattern(arrays) -> tuple:
    """For each array, the position of the first one that is the same object."""
    first: dict = {}
    return tuple(first.setdefault(id(x), i) for i, x in enumerate(arrays))


# --- the structure of a differentiated argument ---------------------------------------

def _spec(interp, value, leaves: Leaves, seen: set):
    """A tree saying where the leaves are, how to rebuild the value with the
    region's parameters, and how to build its gradient."""
    if isinstance(value, (np.ndarray, np.floating)):       # np.float64 is a float too
        scalar = isinstance(value, np.floating)
        value = Array(builder.const_value(value))
        value.immutable = scalar                        # its gradient: a NumPy scalar
    elif isinstance(value, float):
        value = Array(builder.const_value(value))      # a Python float: weak f64
    if isinstance(value, Array):
        if value.dtype.kind != "f":
            return ("const", value)
        return ("leaf", leaves.add(interp, value))
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        spec = ("namedtuple", type(value),
                [_spec(interp, v, leaves, seen) for v in interp.static_items(value)])
    elif isinstance(value, (tuple, list)):
        interp.flattened_for_grad.add(id(value))
        spec = (type(value).__name__,
                [_spec(interp, v, leaves, seen) for v in interp.static_items(value)])
    elif isinstance(value, dict) and has_static_keys(value):
        spec = ("dict", list(value), value, [_spec(interp, interp.getitem(value, k), leaves, seen)
                                             for k in value])
    elif _is_plain_object(value) and id(value) in seen:
        # Met again (a module registry, a parent link): one object, one gradient.
        return ("same", value)
    elif _is_plain_object(value):
        seen.add(id(value))
        names = list(instance_attributes(value))    # __dict__ and slots
        # An object passed as two arguments is one object: its arrays are
        # the first argument's parameters (its attributes have one shadow).
        argument = leaves.argument
        leaves.argument = leaves.objects.setdefault(id(value), argument)
        spec = ("object", value, names,
                [_spec(interp, interp.getattr(value, n), leaves, seen) for n in names])
        leaves.argument = argument
    else:
        return ("const", value)
    # A container or object with no float leaf is a constant as a whole.
    return spec if any(s[0] != "const" for s in spec[-1]) else ("const", value)


def _is_plain_object(value) -> bool:
    return ((hasattr(value, "__dict__") or bool(instance_attributes(value)))
            and not isinstance(value, _PLAIN)
            and not isinstance(value, (type, types.ModuleType, types.FunctionType,
                                       types.MethodType, types.BuiltinFunctionType)))


def _substitute(interp, spec, params: list, shadows: dict):
    """The argument as f sees it inside the region: leaves are parameters.
    Containers are rebuilt; objects keep their identity and read their
    differentiated attributes through the interpreter's shadow table."""
    kind = spec[0]
    if kind == "leaf":
        return params[spec[1]]
    if kind in ("const", "same"):     # objects keep their identity (see below)
        return spec[1]
    if kind == "namedtuple":
        return spec[1](*(_substitute(interp, s, params, shadows) for s in spec[2]))
    if kind == "tuple":
        return tuple(_substitute(interp, s, params, shadows) for s in spec[1])
    if kind == "list":
        return _copy_for_region(interp, [_substitute(interp, s, params, shadows)
                                         for s in spec[1]])
    if kind == "dict":
        return _copy_for_region(interp, _dict_like(spec[2], {
            k: _substitute(interp, s, params, shadows) for k, s in zip(spec[1], spec[3])}))
    obj, names, subs = spec[1], spec[2], spec[3]
    for name, sub in zip(names, subs):
        if sub[0] not in ("const", "same"):
            shadows[(id(obj), name)] = _substitute(interp, sub, params, shadows)
    return obj


def _copy_for_region(interp, container):
    """A differentiated list or dict as f sees it: a copy holding the
    parameters, which f may read but not change (a change would stay in the
    copy, unseen by the caller: Interpreter.refuse_differentiated_change)."""
    interp.differentiated[id(container)] = container
    return interp.fresh(container)


def _gradient(interp, spec, grads: list, made=None):
    """The gradient with the argument's structure: None for a constant
    leaf or object, the same container shape for a constant container, and
    one gradient object per differentiated object however often it is met."""
    made = {} if made is None else made        # id(object) -> its gradient object
    kind = spec[0]
    if kind == "leaf":
        # A tied weight's gradient is at each of its places as an array of
        # its own, as eagerly: `g[k] *= 0.5` scales one place only.
        grad = grads[spec[1]]
        if ("leaf", spec[1]) in made and isinstance(grad, Array):
            grad = Array(grad.var)
            grad.immutable = grads[spec[1]].immutable
        made[("leaf", spec[1])] = True
        return grad
    if kind == "const":
        return _none_like(interp, spec[1])
    if kind == "same":
        return made.get(id(spec[1]))
    if kind == "namedtuple":
        return spec[1](*(_gradient(interp, s, grads, made) for s in spec[2]))
    if kind == "tuple":
        return tuple(_gradient(interp, s, grads, made) for s in spec[1])
    if kind == "list":
        return interp.fresh([_gradient(interp, s, grads, made) for s in spec[1]])
    if kind == "dict":
        return interp.fresh(_dict_like(spec[2], {k: _gradient(interp, s, grads, made)
                                                 for k, s in zip(spec[1], spec[3])}))
    obj, names, subs = spec[1], spec[2], spec[3]
    cls = type(obj)
    out = made[id(obj)] = interp.fresh(cls.__new__(cls))
    for name, sub in zip(names, subs):
        object.__setattr__(out, name, _gradient(interp, sub, grads, made))
    return out


def _none_like(interp, value):
    """A constant's gradient: None, in the shape of the dicts, lists and
    tuples it is made of (so `grads.registry.values()` still works)."""
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_none_like(interp, v) for v in value)
    if isinstance(value, list):
        return interp.fresh([_none_like(interp, v) for v in value])
    if isinstance(value, dict):
        return interp.fresh(_dict_like(value, {k: _none_like(interp, v)
                                               for k, v in value.items()}))
    return None


def _dict_like(template: dict, items: dict) -> dict:
    """`items` in a dict of the template's class, as jax.grad gives: an
    OrderedDict, a defaultdict with its default_factory, a Counter..."""
    if type(template) is dict:
        return items
    out = copy.copy(template)
    out.clear()
    out.update(items)
    return out


@contextlib.contextmanager
def _shadowed(interp, shadows: dict):
    saved = {k: interp.shadow[k] for k in shadows if k in interp.shadow}
    interp.shadow.update(shadows)
    try:
        yield
    finally:
        for k in shadows:
            if k in saved:
                interp.shadow[k] = saved[k]
            else:
                interp.shadow.pop(k, None)


# --- the grad op ---------------------------------------------------------------------

def trace_grad(interp, gf, args, kwargs):
    """Interprets `gf.fn(*args, **kwargs)` into a `grad` op; returns what
    jax.grad / jax.value_and_grad would: grads, (grads, aux), value and grads..."""
    from .control import journaled_region
    argnums = _argnums(gf, len(args))
    leaves = Leaves()
    specs = {}
    for i in argnums:
        # (each argument its own parameters: f(w, w) with argnums=(0, 1) has
        # two partial derivatives, as argnums=0 and argnums=1 alone give)
        leaves.argument = i
        specs[i] = _spec(interp, args[i], leaves, set())
    for i, spec in specs.items():
        if spec[0] == "const":
            raise GradError(f"argument {i} of {gf.name} is {_describe(spec[1])}: only float "
                            "arrays (and containers or objects holding them) can be "
                            "differentiated", _call_loc(gf), "pass float arrays, or "
                            "differentiate with respect to another argument (argnums=...)")
    leaves.assume_identities()
    params = tuple(Value(a.aval) for a in leaves.arrays)
    known_captures = set(interp.captured)
    ctx = builder.ctx()
    outer_calls = len(builder.calling_lines(ctx))   # the calls that led to this one
    appends_before = len(interp.outside_appends)
    ctx.grad_depth += 1
    try:
        with journaled_region(params, runtime=False, effects_barrier=True) as rec:
            inner = [Array(p) for p in params]
            shadows: dict = {}
            call_args = list(args)
            for i, spec in specs.items():
                call_args[i] = _substitute(interp, spec, inner, shadows)
            with _shadowed(interp, shadows):
                result = interp.call(gf.fn, call_args, kwargs)
            with builder.at(interp.last_return_loc or def_loc(gf)):
                loss, aux_td, aux_leaves = _split_result(gf, result)
            effects = _outer_updates(interp, rec["journal"], known_captures)
            appended_td, appended_leaves = _appended_in_f(interp, appends_before)
    finally:
        ctx.grad_depth -= 1
    # A parameter f updated in place (`w *= 2`, `w[0] = 0`) is the caller's
    # array, as in the eager call: its final value leaves the region too.
    updated = [(outer, a.var) for outer, a, p in zip(leaves.arrays, inner, params)
               if a.var is not p]
    aux_values = [v.var for v in aux_leaves + appended_leaves if isinstance(v, Array)]
    n_aux = len(aux_values) + len(effects) + len(updated)
    region = Region(params, rec["builder"].ops,
                    (loss.var, *aux_values, *(end for _, end in effects + updated)))
    _refuse_runtime_loops(region, gf, outer_calls)
    out_avals = ([loss.aval.strong()] + [v.aval for v in aux_values]
                 + [arr.aval for arr, _ in effects + updated] + [p.aval for p in params])
    outs = builder.emit_op("grad", tuple(a.var for a in leaves.arrays),
                           {"n_aux": n_aux, "fn": gf.name}, out_avals,
                           regions=(region,), note=f"reverse-mode AD of {gf.name}")
    value = Array(outs[0])
    # The kind f returned: a NumPy scalar (np.sum(...)) or a 0-d array (.reshape(()))
    value.immutable = compile_time_kind(loss.immutable)
    if loss.weak:                   # f returned a Python float: so does the value
        (weak,) = builder.emit_op("convert", (value.var,), {"dtype": value.dtype},
                                  (loss.aval,))
        value = Array(weak)
    n_aux_leaves = sum(isinstance(v, Array) for v in aux_leaves)
    aux = _rebuild_aux(aux_td, aux_leaves, outs[1:1 + n_aux_leaves])
    _reappend(interp, appends_before, _rebuild_aux(appended_td, appended_leaves,
                                                   outs[1 + n_aux_leaves:1 + len(aux_values)]))
    ends = outs[1 + len(aux_values):1 + n_aux]
    for (arr, _), out in zip(effects, ends):
        arr.assign(out)             # e.g. batch norm's running statistics
    for (arr, _), out in zip(updated, ends[len(effects):]):
        arr.set(out)
    grads = [Array(v) for v in outs[1 + n_aux:]]
    for g, leaf in zip(grads, leaves.arrays):
        g.immutable = leaf.immutable    # a NumPy scalar's gradient is a NumPy scalar
    g = tuple(_gradient(interp, specs[i], grads) for i in argnums)
    g = g[0] if isinstance(gf.argnums, int) else g
    if gf.with_value:
        return ((value, aux) if gf.has_aux else value), g
    return (g, aux) if gf.has_aux else g


def _appended_in_f(interp, start: int):
    """(treedef, leaves) of the values f appended to lists from outside the
    call (appends.py, `log.append(loss)`): they leave the region as aux
    values do, and the driver appends them when the call returns, once per
    call of f as eagerly."""
    leaves: list = []
    td = flatten(tuple(value for _, value, _ in interp.outside_appends[start:]), "appended",
                 leaves)
    return td, [v for _, v in leaves]


def _reappend(interp, start: int, values: tuple):
    """The appends f recorded, of the values that left the region instead."""
    records = interp.outside_appends[start:]
    interp.outside_appends[start:] = [(lst, value, loc)
                                      for (lst, _, loc), value in zip(records, values)]


def _outer_updates(interp, journal, known_captures) -> list:
    """[(array, value at the end of f)] for arrays from outside f that f
    updated in place.  They leave the region as outputs that are not
    differentiated (like aux) and are restored to their value before f.
    Arrays first read from globals or attributes inside f were made inside
    the region, so their updates are not journaled: look at them too."""
    from .control import finish_journal
    effects = list(finish_journal(journal).items())
    for key, c in interp.captured.items():
        if key not in known_captures and c.updated():
            effects.append((c.array, c.array.var))
            c.array.restore(c.param)
    return effects


def def_loc(gf) -> Loc | None:
    """The `def` line of the function `gf` (a tpucc.grad or tpucc.compile object) runs."""
    fn = inspect.unwrap(getattr(gf.fn, "__func__", gf.fn))
    code = getattr(fn, "__code__", None) or getattr(type(fn).__call__, "__code__", None)
    if code is None:
        return None
    return Loc(code.co_filename, code.co_firstlineno, 0, code.co_name)


def _call_loc(gf) -> Loc | None:
    """The line that calls the gradient; the `def` line when that call is
    tpucc's own (a gradient function called outside compiled code)."""
    loc = builder.current_loc()
    if loc is None or os.path.abspath(loc.file).startswith(_TPUCC_DIR + os.sep):
        return def_loc(gf)
    return loc


_TPUCC_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _argnums(gf, n_args) -> tuple:
    nums = (gf.argnums,) if isinstance(gf.argnums, int) else tuple(gf.argnums)
    bad = [i for i in nums if not -n_args <= i < n_args]
    if bad or not nums:
        raise GradError(f"argnums={gf.argnums!r} for a call of {gf.name} with {n_args} "
                        "positional arguments", _call_loc(gf),
                        "argnums counts positional arguments from 0")
    return tuple(i % n_args for i in nums)


def _split_result(gf, result):
    """(the loss as a 0-d float Array, aux treedef, aux leaves)."""
    aux = None
    if gf.has_aux:
        if not (isinstance(result, tuple) and len(result) == 2):
            raise GradError(f"{gf.name} is differentiated with has_aux=True, so it must "
                            f"return a pair (loss, aux); it returned {_describe(result)}",
                            builder.current_loc())
        result, aux = result
    if isinstance(result, (int, float, np.generic)) and not isinstance(result, bool):
        scalar = isinstance(result, np.generic)
        result = Array(builder.const_value(result))
        result.immutable = scalar       # a NumPy scalar's value is one too
    if not isinstance(result, Array) or result.shape != () or result.dtype.kind != "f":
        several = isinstance(result, (tuple, list))
        raise GradError(f"{gf.name} must return a float scalar to be differentiated; it "
                        f"returned {_describe(result)}", builder.current_loc(),
                        hint="return (loss, other values) with tpucc.grad(f, has_aux=True), "
                             "which gives (gradient, other values)" if several else
                             "reduce to a scalar (e.g. .sum() or .mean()); return other "
                             "values as aux with has_aux=True")
    aux_leaves: list = []
    aux_td = flatten(aux, "aux", aux_leaves)
    return result, aux_td, [v for _, v in aux_leaves]


def _rebuild_aux(td, leaves, values):
    it = iter(values)
    out = []
    for v in leaves:
        if isinstance(v, Array):
            arr = Array(next(it))
            arr.immutable = compile_time_kind(v.immutable)     # leaves the region
            out.append(arr)
        else:
            out.append(v)
    return unflatten(td, out)


def _refuse_runtime_loops(region: Region, gf, outer_calls: int):
    """E350 at the first loop of f that runs as XLA's While on values
    computed from the differentiated arguments, called from the lines inside
    f that led to it (the error, raised here, leaves through the frames
    outside f, which add theirs: the last `outer_calls`)."""
    for op in _runtime_loops_on_parameters(region)[:1]:
        error = _runtime_loop_error(op, gf)
        callers = builder.ctx().runtime_loop_callers.get(id(op.outputs[0]), [])
        for loc in callers[:len(callers) - outer_calls]:
            error.called_from(loc)
        raise error


def _runtime_loops_on_parameters(region: Region) -> list:
    """The runtime Whiles of the region (nested ones too) that a derivative
    of its parameters flows through.  One that none flows through (a count
    of halvings of a non-differentiated array, a loop over integers, one
    that only carries a parameter along unchanged) is a constant to jax's
    reverse mode, which differentiates around it."""
    found: list = []
    _active_results(region, {id(p) for p in region.params if _carries_derivative(p)}, found)
    return found


def _active_results(region: Region, active: set, found: list) -> list:
    """Adds to `active` (ids of the Values a derivative of the parameters
    reaches) those of the region's ops, and to `found` the runtime Whiles
    it flows through; whether each result of the region is active."""
    for op in region.ops:
        if op.name == "while":
            outs = _active_while(op, active, found)
        elif op.name == "cond":
            arms = [_active_results(r, active, found) for r in op.regions]
            outs = [any(col) for col in zip(*arms)]
        else:       # (a registry op; a nested grad: whatever it reads reaches all it gives)
            outs = [any(id(v) in active for v in op.reads())] * len(op.outputs)
        active.update(id(v) for v, a in zip(op.outputs, outs) if a and _carries_derivative(v))
    return [id(v) in active for v in region.results]


def _active_while(op, active: set, found: list) -> list:
    """_active_results for a While: its carried slots that the derivative
    reaches, found by a fixpoint over the body; a While whose active slots
    the body only carries along (its result is its parameter) is none the
    derivative flows through."""
    _, body = op.regions
    slots = [id(v) in active for v in op.inputs]
    while True:
        inner = active | {id(p) for p, s in zip(body.params, slots) if s}
        ends = _active_results(body, inner, [])
        settled = [s or (e and _carries_derivative(v)) for s, e, v in zip(slots, ends, op.inputs)]
        if settled == slots:
            break
        slots = settled
    carried_along = [end is p for p, end in zip(body.params, body.results)]
    if op.attr("trip_count") is None and any(s and not along for s, along
                                             in zip(slots, carried_along)):
        found.append(op)
    _active_results(body, inner, found)         # (the runtime Whiles inside it)
    return slots


def _carries_derivative(v) -> bool:
    return v.aval.dtype.kind in "fc"


def _runtime_loop_error(op, gf) -> GradError:
    if (op.note or "").startswith("while: still looping after"):
        budget = builder.ctx().options.get("unroll", 32)
        return GradError(
            f"reverse-mode differentiation of {gf.name} through a `while` loop that was "
            f"still looping after the unroll budget ({budget} iterations) is not "
            "supported: past it the loop runs as XLA's While, which has no reverse mode",
            op.loc, hint=f"write it as `for i in range(N)` (a counted loop), or raise the "
                         f"budget above its iterations: tpucc.compile(..., unroll=N)")
    return GradError(
        f"reverse-mode differentiation of {gf.name} through a loop whose number of "
        "iterations is known only at run time is not supported (XLA's While has "
        "no reverse mode)", op.loc,
        hint="bound the loop with a number of iterations known at compile time, which a "
             "runtime `break` may cut short: `for it in range(N):` with a Python N, then "
             "`if done: break` (or `if it >= n: break` for a runtime n); `while i < N:` on "
             "a Python counter works too; or compute what the loop computes outside the "
             "differentiated function")


def _describe(v) -> str:
    """A value f returned or was given, in the user's terms (not the IR's)."""
    if isinstance(v, Array):
        if v.weak:          # a Python number
            return f"a Python {_PY_NUMBER[v.dtype.kind]}"
        article = "an" if str(v.dtype)[0] in "aeiou" else "a"      # an int64, a float64
        if v.shape == ():
            return f"{article} {v.dtype} scalar"
        return f"{article} {v.dtype} array of shape {v.shape}"
    if isinstance(v, (tuple, list)):
        items = [_describe(x) for x in list(v)[:4]] + (["..."] if len(v) > 4 else [])
        return f"a {type(v).__name__} of {len(v)} values ({', '.join(items)})"
    if isinstance(v, dict):
        return f"a {type(v).__name__} of {len(v)} item{'s' * (len(v) != 1)}"
    if v is None:
        return "None"
    if isinstance(v, (bool, int, float, complex, str)):
        return f"{type(v).__name__} {v!r}"[:80]
    if isinstance(v, (iterators.SeqIter, iterators.RangeIter)):
        return f"a {iterators.type_name(v)} object"       # (not our class: 'generator')
    return f"a {type(v).__name__} object"


_PY_NUMBER = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}
