"""Runtime checks: conditions on which NumPy raises at run time (an index
past an array's end), which compiled code cannot raise where they happen.

Every check folds into one int32 error code that the program returns as its
last result: 0 when every check held, k when check k (1-based, in trace
order) was the first to fail.  The code is an Array made before any region,
so runtime branches and loops carry its updates as they carry any outer
array's (control.journaled_region).  The driver raises the failed check's
error when the call returns, before writing anything back.

A check whose message formats runtime values (messages.py) also carries
them: each goes into a message slot, an Array made as if before any region
too, updated only where the check is the first to fail (a select on the
condition that sets the code).  Checks share the slots (one per dtype and
shape, or more when one message has several such values): only the first
failure writes.  The slots are results of the program just before the
code; a program without such messages has none.
"""
from __future__ import annotations

import contextlib
import dataclasses

import numpy as np

from ..errors import (RAISABLE_AT_RUN_TIME, Loc, RuntimeIndexError, RuntimeRaiseError,
                      TpuccError, raisable_class, runtime_raise_class)
from ..ir import AVal, Value
from . import builder, exceptions, messages
from .control import in_open_region
from .values import Array, compile_time_kind, unwatched

RUNTIME_RAISE_HINT = ("the condition depends on runtime values: compiled code checks it and "
                      "raises when the call returns")

# The most elements a runtime value in a message may have to be carried out
# of the executable: NumPy prints arrays up to this size in full (its print
# threshold).  A larger one shows as messages.RUNTIME_TEXT instead of adding
# its bytes to the outputs of every call.
MAX_MESSAGE_VALUE_SIZE = 1000


def start(context) -> None:
    """Makes the error code: called before anything is traced."""
    context.error_code = Array(builder.const_value(np.int32(0)))
    context.error_code.serial = 0       # (as a message slot's: before every region)
    context.error_code_origin = context.error_code.var


def require(ok: Array, message, hint: str | None = None, raises: str | None = None,
            loc: Loc | None = None, tpucc_limit: bool = False) -> None:
    """The runtime bool `ok` must hold here, else the call raises `message`
    at `loc` (default: the current line): a RuntimeIndexError, or, with
    `raises` (a built-in exception's name, the program's own `assert` /
    `raise`), a RuntimeRaiseError of that class.  `message` is a string or
    a messages.Message whose runtime values the check carries.
    `tpucc_limit`: the error is one eager Python never raises (compiled
    code's int64 for a Python int), so no `except` of the program is one
    that would catch it eagerly: none is refused."""
    c = builder.ctx()
    for path in c.check_paths:
        ok = builder.emit("logical_or", ok, builder.emit("logical_not", path))
    if not tpucc_limit:
        exceptions.refuse_caught_check(
            c.frames, raisable_class(raises) if raises else IndexError,
            "whether this raises" if raises else "whether this index is in bounds")
    parts = None
    with unwatched():
        if isinstance(message, messages.Message):
            parts, shown_all = _carry(c, ok, message)
            if not shown_all:
                hint = (hint + "; " if hint else "") + (
                    f"runtime values of more than {MAX_MESSAGE_VALUE_SIZE} elements in its "
                    f"message show as {messages.RUNTIME_TEXT}")
            message = message.text()
        c.checks.append((message, loc or c.loc, hint, raises, parts, builder.calling_lines(c)))
        c.error_code.set(builder.emit("check", c.error_code, ok, k=len(c.checks)).var)


@contextlib.contextmanager
def only_where(path: Array):
    """Checks required inside hold only where the runtime bool `path` is
    true: the errors of a Python number held as a NumPy scalar on some
    runtime paths (held_ints), which Python raises on those paths only."""
    c = builder.ctx()
    c.check_paths.append(path)
    try:
        yield
    finally:
        c.check_paths.pop()


def on_some_paths() -> bool:
    """Whether checks made now hold only on some runtime paths (only_where),
    so a static failure is a runtime one, not an error raised now."""
    return bool(builder.ctx().check_paths)


class ReadWatched(Array):
    """An Array that notes whether the program read it: its runtime value
    (`var`) or a static fact (shape, dtype, size: `aval`).  Internal reads
    count too, so a value only bound, unpacked or dropped stays unread,
    and any doubt keeps the check."""
    __slots__ = ("was_read",)

    def __init__(self, var: Value):
        super().__init__(var)
        self.was_read = False

    @property
    def var(self) -> Value:
        self.was_read = True
        return Array.var.fget(self)

    @property
    def aval(self) -> AVal:
        self.was_read = True
        return Array.aval.fget(self)


def require_if_read(value: Array, ok: Array, message, hint: str | None = None,
                    raises: str | None = None) -> Array:
    """`require`, for a value whose shape NumPy decides at run time: the
    compiled one is right when `ok` holds.  Returns `value` watched: when
    the program never reads it (`np.linalg.lstsq(a, b)[0]` drops the
    residuals), the check cannot matter, and `finish` drops it."""
    require(ok, message, hint=hint, raises=raises)
    c = builder.ctx()
    watched = ReadWatched(value.var)
    with unwatched():
        c.read_guards.append((watched, c.error_code.var))
    return watched


def _drop_unread_checks(context) -> None:
    """The checks of values the program never read pass the error code
    through (an `unchecked` op)."""
    unread = {id(code) for watched, code in context.read_guards if not watched.was_read}
    if not unread:
        return
    todo = [context.regions[0].ops]
    while todo:
        ops = todo.pop()
        for i, op in enumerate(ops):
            if op.name == "check" and id(op.outputs[0]) in unread:
                ops[i] = dataclasses.replace(op, name="unchecked", inputs=op.inputs[:1])
            todo.extend(r.ops for r in op.regions)


def _carry(c, ok: Array, message) -> tuple[list, bool]:
    """Stores the message's runtime values in slots where this check is the
    first to fail (call before the check updates the code).  Returns the
    message's parts, each text or (slot, weak type name, scalar, field),
    and whether every value is carried."""
    from . import _py_type
    first = builder.emit("logical_and", builder.emit("equal", c.error_code, np.int32(0)),
                         builder.emit("logical_not", ok))
    parts, used, shown_all = [], {}, True
    for part in message.parts:
        if isinstance(part, str):
            parts.append(part)
            continue
        v = part.value
        if v.size > MAX_MESSAGE_VALUE_SIZE:
            parts.append(messages.RUNTIME_TEXT)
            shown_all = False
            continue
        aval = v.aval.strong()
        slot = _slot(c, aval, used.setdefault(aval, 0))
        used[aval] += 1
        slot.set(builder.emit("select", first, v, slot).var)
        weak = _py_type(v.aval).__name__ if v.weak else None
        parts.append((slot, weak, compile_time_kind(v.immutable) is not False, part))
    return parts, shown_all


def _slot(c, aval: AVal, n: int) -> Array:
    """Message slot `n` of type `aval`, made when first needed, as if before
    any region: its zeros are emitted at the top of the program and its
    serial is 0 (as a captured array's), so runtime branches, loops and
    differentiated functions carry its updates as they carry the error
    code's, wherever it is first used."""
    slots = c.message_slots.setdefault(aval, [])
    while len(slots) <= n:
        with in_open_region(c.regions[0]):
            slot = Array(builder.emit("full", shape=aval.shape, dtype=aval.dtype, value=0).var)
        slot.serial = 0
        slots.append(slot)
    return slots[n]


def finish(context, results: list) -> list:
    """Appends the message slots and the error code to the program's
    results when a check was made (else drops the code's constant);
    returns the checks as records."""
    _drop_unread_checks(context)
    if not context.checks:
        first = context.regions[0].ops
        first[:] = [op for op in first if op.outputs[:1] != (context.error_code_origin,)]
        return []
    outputs = {}
    for slots in context.message_slots.values():
        for slot in slots:
            outputs[id(slot)] = len(results)
            results.append(slot.var)
    results.append(context.error_code.var)
    return [record(*check, outputs=outputs) for check in context.checks]


def record(message: str, loc: Loc | None, hint: str | None, raises: str | None = None,
           parts: list | None = None, callers: list = (), outputs: dict | None = None) -> dict:
    """A check as plain data (trace records and artifacts store it as JSON).
    `message` is the text to show; with `parts` (require's), also the
    template the values are formatted into, their results' indices taken
    from `outputs` (id(slot) -> index); `callers`: the calls that led there."""
    out = {"message": message, "loc": _plain(loc), "hint": hint}
    if raises is not None:
        out["raises"] = raises
    if callers:
        out["callers"] = [_plain(caller) for caller in callers]
    if parts is not None:
        out["template"] = [p if isinstance(p, str) else
                           messages.template_field(outputs[id(p[0])], *p[1:]) for p in parts]
    return out


def _plain(loc: Loc | None) -> list | None:
    return None if loc is None else [loc.file, loc.line, loc.col, loc.func]


def error(checks: list, outs) -> TpuccError | None:
    """The error of the failed check, if any, with the calls that led to
    its line."""
    err = _error(checks, outs)
    if err is not None:
        for caller in checks[int(np.asarray(outs[-1])) - 1].get("callers", ()):
            err.called_from(Loc(*caller))
    return err


def _error(checks: list, outs) -> TpuccError | None:
    """The error of the failed check, if any: `outs` are the executable's
    outputs, the last the code (0: none failed)."""
    code = int(np.asarray(outs[-1]))
    if code == 0:
        return None
    check = checks[code - 1]
    loc = Loc(*check["loc"]) if check["loc"] else None
    raises = check.get("raises")
    kind = RuntimeIndexError if raises is None else runtime_raise_class(raises)
    if "template" not in check:         # (also: artifacts built before templates)
        return kind(check["message"], loc, check["hint"])
    try:
        message = messages.render(check["template"], outs)
    except Exception as e:  # noqa: BLE001 - eager code raises this formatting the message
        name = type(e).__name__
        failed = runtime_raise_class(name) if name in RAISABLE_AT_RUN_TIME else RuntimeRaiseError
        return failed(str(e), loc, f"Python raises this {name} formatting the message of "
                                   f"the {raises} at this line, as eager code would")
    return kind(message, loc, check["hint"])
