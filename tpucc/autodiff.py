"""tpucc.grad and tpucc.value_and_grad: reverse-mode AD with jax's API.

    loss, grads = tpucc.value_and_grad(model_loss)(params, x, y)

`params` may be an array or a dict, list, tuple or object holding float
arrays; the gradient has the same structure (None where a leaf is not a float
array, in the shape of its containers; an object's gradient is a new object
of its class).  Inside a
function compiled by tpucc, the call becomes part of the same XLA module
(see infer/ad.py): a whole training step is one executable.  Called on its
own, the gradient function is compiled by tpucc on first use, like a
@tpucc.compile function, and cached per signature.
"""
from __future__ import annotations

import functools


class GradFunction:
    """The gradient of `fn` with respect to the arguments `argnums`."""

    def __init__(self, fn, argnums=0, has_aux=False, with_value=False):
        if not callable(fn):
            raise TypeError(f"tpucc.grad: expected a function, got {type(fn).__name__}")
        if not isinstance(argnums, int) and not (
                isinstance(argnums, (tuple, list)) and all(isinstance(i, int) for i in argnums)):
            raise TypeError(f"tpucc.grad: argnums must be an int or a tuple of ints, "
                            f"got {argnums!r}")
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

    def __call__(self, *args, **kwargs):
        # Reached only outside compiled code: the interpreter handles calls
        # made inside it (calls.Interpreter.call -> infer.ad.trace_grad).
        return self._compiled_function()(*args, **kwargs)

    def lower(self, *args, **kwargs):
        """The staged form (HLO, IR, times) of the gradient computation."""
        return self._compiled_function().lower(*args, **kwargs)

    def _compiled_function(self):
        """One compiled function per (fn, argnums, has_aux, value): eager code
        that calls tpucc.grad(f)(...) in a loop makes a new GradFunction each
        time, and must not recompile each time."""
        if self._compiled is None:
            key = (self.fn, self.argnums, self.has_aux, self.with_value)
            try:
                self._compiled = _EAGER.get(key)
            except TypeError:               # an unhashable callable
                key = None
            if self._compiled is None:
                from .api import compile
                self._compiled = compile(_applier(self))
                if key is not None:
                    if len(_EAGER) >= _EAGER_MAX:
                        _EAGER.pop(next(iter(_EAGER)))
                    _EAGER[key] = self._compiled
        return self._compiled

    def __repr__(self):
        kind = "value_and_grad" if self.with_value else "grad"
        return f"<tpucc.{kind} of {self.name}, argnums={self.argnums!r}>"


_EAGER: dict = {}          # (fn, argnums, has_aux, with_value) -> CompiledFunction
_EAGER_MAX = 256


def _applier(gf: GradFunction):
    def apply_gradient(*args, **kwargs):
        return gf(*args, **kwargs)
    apply_gradient.__qualname__ = f"grad({gf.name})"
    return apply_gradient


def grad(fn, argnums=0, has_aux=False) -> GradFunction:
    """The gradient of the float scalar `fn(*args)` with respect to
    `args[argnums]`.  With has_aux=True, fn returns (loss, aux) and the
    gradient function returns (grads, aux)."""
    return GradFunction(fn, argnums, has_aux, with_value=False)


def value_and_grad(fn, argnums=0, has_aux=False) -> GradFunction:
    """Like `grad`, returning (value, grads); with has_aux=True,
    ((value, aux), grads)."""
    return GradFunction(fn, argnums, has_aux, with_value=True)
