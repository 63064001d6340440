"""A NumPy function or array method given a runtime value where it needs a
static one: np.rot90's k, np.pad's widths, reshape's shape, an axis, a
count.  Its implementation in tpucc/ops reads such an argument as NumPy
does (operator.index, np.asarray, a truth test, iteration), and a runtime
value refuses that (values.NeedsStatic, or the TypeError of iterating a
0-d Array).  This module turns that refusal into one E400 that names the
function and its parameter, whichever way the implementation read it, not
the conversion that happened to fail inside tpucc.  Likewise an op of
tpucc's own (broadcast_to, select) refusing its operands inside the function
is reported as the function's refusal (_in_users_words).
"""
from __future__ import annotations

import inspect

from ..errors import DTypeError, ShapeError, StaticValueError
from . import builder
from .values import Array, NeedsStatic, known_constant


def runtime_argument_error(where: str | None = None, loc=None) -> StaticValueError:
    """The one E400 for a runtime value given where NumPy needs a static
    one.  `where`: what was given it ("`k` of np.rot90"), where known."""
    said = f"{where} must be known at compile time" if where else \
        "it must be known at compile time"
    return StaticValueError(
        "a runtime value is given where NumPy needs a static one (an axis, a shape, a "
        f"count of repetitions): {said}", loc,
        "compute it from shapes or Python values (a number read from an array is known "
        "only at run time); where every choice gives the same shape, compute each one and "
        "pick with np.select([k == 0, k == 1, ...], [f(x, 0), f(x, 1), ...])")


def call(name: str, fn, impl, args, kwargs):
    """impl(*args, **kwargs), the implementation of a NumPy function (or
    method) `name`: a runtime argument it needed static is refused naming
    `name` and the parameter, read off the signature of `fn` (NumPy's, with
    its own parameter names; None for a method) or else `impl`'s.

    An argument it needed static that holds a value known while compiling
    (values.known_constant: `ry, rx = np.array(k.shape) // 2`, int(r[0]),
    np.array([1, 2]) as np.tile's reps) is given as that NumPy value and
    the call made again: the value is as static as NumPy needs it."""
    loc = builder.current_loc()
    given, first_error = (args, kwargs), None
    for _ in range(_MAX_FOLDS):
        try:
            return impl(*given[0], **given[1])
        except (ShapeError, DTypeError) as e:
            if getattr(e, "op_reason", None) is None or e.loc != loc:
                raise
            raise _in_users_words(name, e, args, kwargs) from None
        except NeedsStatic as e:
            probed = e.value
            error = _refusal(name, fn, impl, args, kwargs, probed)
        except TypeError as e:
            probed = runtime_scalar_iterated(e)
            error = e if probed is None else _refusal(name, fn, impl, args, kwargs, probed)
        first_error = first_error or error
        # (the value read, or one the implementation computed from the
        # arguments: np.tile's `tuple(reps)`, reshape's array of sizes)
        folded = _with_known_value(given, probed) or _with_known_sizes(given)
        if folded is None:
            break
        given = folded
    if isinstance(first_error, TypeError) and not isinstance(first_error, StaticValueError):
        raise first_error
    raise first_error from None


_MAX_FOLDS = 8      # (pad's ((ry, ry), (rx, rx)): one fold per value read)


def _with_known_value(given, probed):
    """(args, kwargs) with `probed` (an Array an implementation needed
    static) replaced by the constant it holds wherever given, or None where
    it holds no known constant or is not among the arguments (a value the
    implementation computed from them)."""
    known = known_constant(probed) if isinstance(probed, Array) else None
    if known is None:
        return None
    value = known[()] if known.ndim == 0 else known.copy()
    found = []

    def replaced(v, depth=3):
        if v is probed:
            found.append(v)
            return value
        if depth > 0 and type(v) in (tuple, list):
            return type(v)(replaced(x, depth - 1) for x in v)
        return v
    args, kwargs = given
    out = [replaced(a) for a in args], {k: replaced(v) for k, v in kwargs.items()}
    return out if found else None


def _with_known_sizes(given):
    """(args, kwargs) with each integer Array of at most one axis that holds
    a known constant, past the first argument (the operand), replaced by
    that constant: the sizes, counts and axes NumPy reads as ints.  None
    where there is none."""
    found = []

    def replaced(v, depth=3):
        if isinstance(v, Array) and v.ndim <= 1 and v.dtype.kind in "iu":
            known = known_constant(v)
            if known is not None:
                found.append(v)
                return known[()] if known.ndim == 0 else known.copy()
        if depth > 0 and type(v) in (tuple, list):
            return type(v)(replaced(x, depth - 1) for x in v)
        return v
    args, kwargs = given
    out = args[:1] + [replaced(a) for a in args[1:]], \
        {k: replaced(v) for k, v in kwargs.items()}
    return out if found else None


def _in_users_words(name: str, error, args, kwargs):
    """An op's refusal of its operands (broadcast_to, select, ...: tpucc's
    own building blocks) raised inside the NumPy function `name` the user
    called: the same reason, naming that function and its operands."""
    shapes = ", ".join(str(v.aval) for v in _leaves((*args, *kwargs.values()))
                       if isinstance(v, Array))
    said = f"{name}: {shapes}: {error.op_reason}" if shapes else f"{name}: {error.op_reason}"
    return type(error)(said, error.loc, error.hint or (
        f"NumPy raises an error on this call too; the shapes and dtypes of the arguments "
        f"are known at compile time: make them fit what {name} needs"))


def refused_library_call(name: str, fn, args, kwargs) -> StaticValueError | None:
    """The E400 for a NumPy function tpucc runs at compile time only
    (np.tril_indices: NumPy's own code, given static arguments), called
    with runtime ints alone (its `k` a runtime_args number): those are
    sizes and offsets it must know, not data; None where an array or a
    runtime float is given (not supported on runtime values: E100)."""
    runtime = [v for v in _leaves((*args, *kwargs.values())) if isinstance(v, Array)]
    if not runtime or not all(v.ndim == 0 and v.dtype.kind in "iub" for v in runtime):
        return None
    parameter = _parameter_given(None, arguments_by_name(fn, None, args, kwargs))
    return runtime_argument_error(f"`{parameter}` of {name}" if parameter else f"({name})")


def _leaves(values, depth=3):
    for v in values:
        if depth > 0 and isinstance(v, (tuple, list)):
            yield from _leaves(v, depth - 1)
        else:
            yield v


def runtime_scalar_iterated(e: TypeError):
    """The 0-d runtime Array that an op's implementation in tpucc/ops
    iterated or measured (an axis or reps argument that NumPy reads as an
    int or a tuple of ints), which raised `e`; None for any other TypeError
    (the same one from the user's own `for v in scalar_array` stays the
    user's error)."""
    if not isinstance(e, TypeError):
        return None
    frames, tb = [], e.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    probes = (Array.__iter__.__code__, Array.__len__.__code__)
    for caller, frame in zip(frames, frames[1:]):
        if frame.f_code in probes:
            in_ops = "/tpucc/ops/" in caller.f_code.co_filename.replace("\\", "/")
            return frame.f_locals.get("self") if in_ops else None
    return None


def _refusal(name, fn, impl, args, kwargs, probed) -> StaticValueError:
    parameter = _parameter_given(probed, arguments_by_name(fn, impl, args, kwargs))
    return runtime_argument_error(f"`{parameter}` of {name}" if parameter else f"({name})")


def arguments_by_name(fn, impl, args, kwargs) -> dict:
    """The arguments by parameter name: NumPy's names where its function has
    a signature, else the implementation's; {} where neither binds."""
    for callable_ in (fn, impl):
        if callable_ is None:
            continue
        try:
            return dict(inspect.signature(callable_).bind(*args, **kwargs).arguments)
        except (TypeError, ValueError):     # no signature (a C function), or another one
            continue
    return {}


def _parameter_given(probed, bound: dict) -> str | None:
    """The parameter whose argument is, or holds, the runtime value that was
    read; where the implementation read a value computed from it (split's
    `n % sections`), the one parameter given a runtime number or a
    container of them (the arrays operated on have dimensions)."""
    if probed is not None:
        holding = [p for p, v in bound.items() if _holds(v, probed)]
        if len(holding) == 1:
            return holding[0]
    scalars = [p for p, v in bound.items() if _runtime_number_or_container(v)]
    return scalars[0] if len(scalars) == 1 else None


def _holds(value, probed, depth=3) -> bool:
    if value is probed:
        return True
    return depth > 0 and isinstance(value, (tuple, list)) and \
        any(_holds(v, probed, depth - 1) for v in value)


def _runtime_number_or_container(value, depth=3) -> bool:
    """A 0-d runtime value, or a tuple or list holding one (pad's widths)."""
    if isinstance(value, Array):
        return value.ndim == 0
    return depth > 0 and isinstance(value, (tuple, list)) and \
        any(_runtime_number_or_container(v, depth - 1) for v in value)
