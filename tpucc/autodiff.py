"""tpucc.grad and tpucc.value_and_grad: reverse-mode AD with jax's API.

    loss, grads = tpucc.value_and_grad(model_loss)(params, x, y)

`params` may be an array or a dict, list, tuple or object holding float
arrays; the gradient has the same structure (None where a leaf is not a float
array, in the shape of its containers; an object's gradient is a new object
of its class; one array held at two places, tied weights, has its total
gradient at both).  Inside a
function compiled by tpucc, the call becomes part of the same XLA module
(see infer/ad.py): a whole training step is one executable.  Called on its
own, the gradient function is compiled by tpucc on first use, like a
@tpucc.compile function, and cached per signature.
"""
from __future__ import annotations

import functools
import inspect
import sys
import types

from .errors import Loc, OptionError, TpuccError


class GradFunction:
    """The gradient of `fn` with respect to the arguments `argnums`."""

    def __init__(self, fn, argnums=0, has_aux=False, with_value=False):
        maker = "tpucc.value_and_grad" if with_value else "tpucc.grad"
        if not callable(fn):
            raise OptionError(f"{maker}: expected a function, got {type(fn).__name__}")
        if not _is_index(argnums) and not (
                isinstance(argnums, (tuple, list)) and all(map(_is_index, argnums))):
            raise OptionError(f"{maker}: argnums must be an int or a tuple of ints, "
                              f"not {argnums!r}")
        self.fn = fn
        self.argnums = argnums if isinstance(argnums, int) else tuple(argnums)
        self.has_aux = bool(has_aux)
        self.with_value = with_value
        self.name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
        self._compiled = None
        functools.update_wrapper(self, fn, updated=())

    def __tpucc_snapshot__(self):
        """What tpucc.snapshot fingerprints (not the compiled cache)."""
        return self.fn, self.argnums, self.has_aux, self.with_value

    def __call__(self, /, *args, **kwargs):    # (a parameter may be named `self`)
        # Reached only outside compiled code: the interpreter handles calls
        # made inside it (calls.Interpreter.call -> infer.ad.trace_grad).
        try:
            return self._compiled_function()(*args, **kwargs)
        except TpuccError as e:
            raise _called_from_user(e, sys._getframe(1)) from None

    def lower(self, /, *args, **kwargs):
        """The staged form (HLO, IR, times) of the gradient computation."""
        return self._compiled_function().lower(*args, **kwargs)

    def _compiled_function(self):
        """One compiled function per (fn, argnums, has_aux, value): eager code
        that calls tpucc.grad(f)(...) in a loop makes a new GradFunction each
        time, and must not recompile each time."""
        if self._compiled is None:
            key = (_identity(self.fn), self.argnums, self.has_aux, self.with_value)
            self._compiled = _EAGER.get(key)
            if self._compiled is None:
                from .api import compile
                self._compiled = compile(_applier(self))
                if len(_EAGER) >= _EAGER_MAX:
                    _EAGER.pop(next(iter(_EAGER)))
                _EAGER[key] = self._compiled
        return self._compiled

    def __repr__(self):
        kind = "value_and_grad" if self.with_value else "grad"
        return f"<tpucc.{kind} of {self.name}, argnums={self.argnums!r}>"


_EAGER: dict = {}          # (_identity(fn), argnums, has_aux, with_value) -> CompiledFunction
_EAGER_MAX = 256


def _identity(fn):
    """What tells callables apart in _EAGER: the object itself, not its
    equality (two loss objects equal by name but scaled differently share
    no gradient).  A bound method is made anew at each `model.loss` access:
    its object and function.  So is a function a loop defines
    (`tpucc.grad(lambda w: loss(w, x))(w)`: 13 ms a call, recompiled from
    the disk cache, instead of 0.3 ms): functions are told apart by what
    compiling reads, their code, globals, closure cells and default values,
    each by identity.  (The entry holds fn, so the ids stay unique.)"""
    if isinstance(fn, types.MethodType):
        return id(fn.__self__), _identity(fn.__func__)
    if type(fn) is types.FunctionType and not vars(fn):
        return (fn.__code__, id(fn.__globals__), tuple(map(id, fn.__closure__ or ())),
                tuple(map(id, fn.__defaults__ or ())),
                tuple((k, id(v)) for k, v in (fn.__kwdefaults__ or {}).items()))
    return id(fn)


def _is_index(argnum) -> bool:
    return isinstance(argnum, int) and not isinstance(argnum, bool)


def _called_from_user(e: TpuccError, frame) -> TpuccError:
    """An error of a gradient computed outside compiled code, called from
    the user's line that called the gradient function (`frame`), not from
    _applier's line here, which the compiled function inlines."""
    e.callers = [c for c in e.callers if c.file != __file__]
    code = frame.f_code
    user = Loc(code.co_filename, frame.f_lineno, 0, getattr(code, "co_qualname", code.co_name))
    if e.loc is not None and e.loc.file == __file__:
        e.loc = user        # the call itself failed (its arguments): the user's line's error
    else:
        e.called_from(user)
    e.args = (e.render(),)
    return e


def _applier(gf: GradFunction):
    def apply_gradient(*args, **kwargs):
        return gf(*args, **kwargs)
    apply_gradient.__qualname__ = f"grad({gf.name})"
    # fn's parameters, which tpucc.compile reads (inspect.signature): a
    # Python number passed by position or name (a step size an optimizer
    # loop changes) is then read at run time from its third value, as for
    # a compiled function, not compiled again for every value.
    try:
        apply_gradient.__signature__ = inspect.signature(gf.fn)
    except (TypeError, ValueError):
        pass
    return apply_gradient


def grad(fn, argnums=0, has_aux=False, **unknown) -> GradFunction:
    """The gradient of the float scalar `fn(*args)` with respect to
    `args[argnums]`.  With has_aux=True, fn returns (loss, aux) and the
    gradient function returns (grads, aux)."""
    _refuse_unknown("tpucc.grad", unknown)
    return GradFunction(fn, argnums, has_aux, with_value=False)


def value_and_grad(fn, argnums=0, has_aux=False, **unknown) -> GradFunction:
    """Like `grad`, returning (value, grads); with has_aux=True,
    ((value, aux), grads)."""
    _refuse_unknown("tpucc.value_and_grad", unknown)
    return GradFunction(fn, argnums, has_aux, with_value=True)


def _refuse_unknown(maker: str, unknown: dict):
    if unknown:
        raise OptionError(f"{maker}: unknown option{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(sorted(unknown))}", hint="the options are argnums, has_aux")
