"""Runtime checks: conditions on which NumPy raises at run time (an index
past an array's end), which compiled code cannot raise where they happen.

Every check folds into one int32 error code that the program returns as its
last result: 0 when every check held, k when check k (1-based, in trace
order) was the first to fail.  The code is an Array made before any region,
so runtime branches and loops carry its updates as they carry any outer
array's (control.journaled_region).  The driver raises the failed check's
error when the call returns, before writing anything back.
"""
from __future__ import annotations

import numpy as np

from ..errors import Loc, RuntimeIndexError, TpuccError, runtime_raise_class
from . import builder
from .values import Array


def start(context) -> None:
    """Makes the error code: called before anything is traced."""
    context.error_code = Array(builder.const_value(np.int32(0)))
    context.error_code_origin = context.error_code.var


def require(ok: Array, message: str, hint: str | None = None, raises: str | None = None,
            loc: Loc | None = None) -> None:
    """The runtime bool `ok` must hold here, else the call raises `message`
    at `loc` (default: the current line): a RuntimeIndexError, or, with
    `raises` (a built-in exception's name, the program's own `assert` /
    `raise`), a RuntimeRaiseError of that class."""
    c = builder.ctx()
    c.checks.append((message, loc or c.loc, hint, raises))
    c.error_code.set(builder.emit("check", c.error_code, ok, k=len(c.checks)).var)


def finish(context, results: list) -> list:
    """Appends the error code to the program's results when a check was
    made (else drops its constant); returns the checks as records."""
    if not context.checks:
        first = context.regions[0].ops
        first[:] = [op for op in first if op.outputs[:1] != (context.error_code_origin,)]
        return []
    results.append(context.error_code.var)
    return [record(*check) for check in context.checks]


def record(message: str, loc: Loc | None, hint: str | None, raises: str | None = None) -> dict:
    """A check as plain data (trace records and artifacts store it as JSON)."""
    where = None if loc is None else [loc.file, loc.line, loc.col, loc.func]
    out = {"message": message, "loc": where, "hint": hint}
    if raises is not None:
        out["raises"] = raises
    return out


def error(checks: list, code) -> TpuccError | None:
    """The error of failed check `code` (the program's last result), or None."""
    code = int(np.asarray(code))
    if code == 0:
        return None
    check = checks[code - 1]
    loc = Loc(*check["loc"]) if check["loc"] else None
    raises = check.get("raises")
    kind = RuntimeIndexError if raises is None else runtime_raise_class(raises)
    return kind(check["message"], loc, check["hint"])
