"""Appends to lists from outside the call, replayed after each call.
(`extend` by a list or tuple is appends of its items.)

`self.losses.append(float(loss))` in a training step, `history.append((step,
loss))` on a module global: the list outlives the call, so the append must
happen at every call, not once while compiling.  The trace records each
append (its list and value) instead of doing it; the appended values become
outputs of the program, after the function's own result, and the driver
appends them, converted as returned values are (a Python float for
`float(loss)`, a NumPy scalar for `np.mean(err)`, an array, a tuple of
them), when the call returns.

Such a list may only be appended to: a program that also reads it (its
length, an item, iterating it) would depend on items that the calls keep
adding, and is refused, as is an append inside a runtime `if` or loop (how
many items, only the run knows).  One inside a function differentiated by
tpucc.grad happens once per call of that function, as eagerly: its value
leaves the differentiated region as an aux value (infer.ad).
"""
from __future__ import annotations

from ..errors import SideEffectError


def record(interp, lst, method: str, args, kwargs) -> bool:
    """`lst.append(v)` or `lst.extend(a list or tuple)` where `lst` is a
    plain list from outside the call: recorded for the driver (True); False
    for any other call or list (made by the call, an argument's copy),
    which the caller handles as before."""
    if method not in ("append", "extend") or kwargs or len(args) != 1 \
            or not is_outside(interp, lst):
        return False
    if method == "extend" and type(args[0]) not in (list, tuple):
        return False
    # (inside a differentiated function the value leaves the grad region as
    # an aux value does, infer.ad; a runtime `if` or loop may run the append
    # any number of times)
    if interp.ctx.runtime_depth > 0:
        raise SideEffectError(
            f"appending to a list from outside the compiled function {interp.region_name()} "
            "is not supported: how many items it gets would be known only when the call runs",
            hint="append after the `if` or loop, or fill a preallocated array (x[i] = v)")
    items = [args[0]] if method == "append" else interp.static_items(args[0])
    interp.outside_appends.extend((lst, item, interp.ctx.loc) for item in items)
    return True


def is_outside(interp, lst) -> bool:
    """Whether `lst` is a plain list from outside the call (not one it made,
    an argument's copy, one a runtime `if` rebuilt or one a runtime pick
    copied: min(list_a, list_b))."""
    return type(lst) is list and id(lst) not in interp.fresh_ids \
        and id(lst) not in interp.argument_containers \
        and interp.ctx.merged_containers.get(id(lst)) is not lst \
        and interp.ctx.chosen_containers.get(id(lst)) is not lst


def finish(interp, ctx) -> list:
    """The lists appended to, in the order of their appends; refuses a list
    the program also read (its guards name it as their owner)."""
    appends = interp.outside_appends
    if not appends:
        return []
    read = {id(owner) for _, owner, _ in ctx.namespaces.values()}
    read.update(id(c.owner) for c in interp.captured.values() if c.owner is not None)
    read.update(interp.contents_read)
    for lst, _, loc in appends:
        if id(lst) in read and id(lst) in interp.flattened_for_grad:
            raise SideEffectError(
                "the compiled function appends to a list from outside it that tpucc.grad "
                "also reads: differentiating an object reads every attribute, this list "
                "included, and the items the calls add would make every call compile again",
                loc, hint="differentiate a function of the object's arrays (pass `m.w` or a "
                          "dict of them), or keep the list outside the differentiated object "
                          "(a global, or another object)")
        if id(lst) in read:
            raise SideEffectError(
                "the compiled function appends to a list from outside it and also reads "
                "that list: the items the calls add would make every call compile again",
                loc, hint="only append to it in the compiled function, or return the values "
                          "and append them after the call")
    return [lst for lst, _, _ in appends]


def values(interp) -> tuple:
    """The appended values, as extra outputs of the program."""
    return tuple(value for _, value, _ in interp.outside_appends)


def appending_builder(build, lists: list):
    """`build` (executable outputs -> the value returned, here the pair of
    the function's result and the appended values) made to append the
    values to their lists and return the function's result."""
    def build_and_append(outs, inputs=(), arguments=None):
        result, appended = build(outs, inputs, arguments)
        for lst, value in zip(lists, appended):
            lst.append(value)
        return result
    return build_and_append
