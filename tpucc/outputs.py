"""Write-back results and the buffers they are written into.

A program that updates arrays in place (a training step's weights) returns
their new values after its runtime outputs (`Traced.writebacks`).  Results
copied into the user's NumPy arrays are dropped after the copy; their
buffers go back to the next call as donated extra inputs (OutputPool), so
that XLA writes into memory already mapped.  A result that replaces a jax
array (`self.w -= lr * g` on jax weights) is handed over as it is
(kept_writebacks); on the CPU the array it replaced is donated instead,
when nothing else holds it.
"""
from __future__ import annotations

import sys
import weakref

import jax
import numpy as np

from . import infer
from .infer.values import JAX

# Write-backs all smaller than this are not recycled.  Memory for them
# comes from malloc's arena, already mapped (glibc maps allocations from
# 128 KiB up apart, and unmaps them when freed); donating a buffer costs a
# call more than that saves: 35.3 against 27.9 us per call updating 8
# floats in place (models/bench_dispatch.py, jax.jit: 19 us).
RECYCLE_MIN_BYTES = 128 * 1024


def recycled_avals(traced) -> list:
    """The types of the buffers an executable takes to write its write-back
    results into (OutputPool): those of the results copied into the user's
    arrays and dropped, then, where recycles_replaced, those of the results
    handed over as they are (kept_writebacks), which go into the jax arrays
    they replace.  None when all are small (RECYCLE_MIN_BYTES)."""
    n_out = sum(s is infer.RUNTIME for s in traced.out_static)
    avals = traced.result_avals[n_out:n_out + len(traced.writebacks)]
    kept = kept_writebacks(traced)
    copied = [a for a, k in zip(avals, kept) if not k]
    if recycles_replaced(traced):
        copied += [a for a, k in zip(avals, kept) if k]
    if all(a.size * a.dtype.itemsize < RECYCLE_MIN_BYTES for a in copied):
        return []
    return copied


def recycles_replaced(traced) -> bool:
    """Whether the jax arrays a program's write-backs replace (`self.w -=
    lr * g` on jax weights) are recycled when nothing else holds them: on
    the CPU, where a result in fresh memory is paged in as it is first
    written (VGG19's training step at batch 2, 64x64: 37K page faults, its
    197 MB of weights).  Accelerators' allocators keep freed memory."""
    return any(kept_writebacks(traced)) and jax.default_backend() == "cpu"


def replaced_inputs(traced) -> list:
    """For each write-back handed over as it is (kept_writebacks, in
    order), the input index of the jax array it replaces."""
    where = {(id(c.owner), c.hop[1]): traced.n_arg_inputs + j
             for j, c in enumerate(traced.captured)
             if c.frozen == JAX and c.hop is not None and c.hop[0] == "attr"}
    return [where.get((id(wb[1]), wb[2]))
            for wb, k in zip(traced.writebacks, kept_writebacks(traced)) if k]


def _dropped(inputs, replaced) -> list:
    """The replaced jax arrays (replaced_inputs) that only `inputs` holds
    now that the write-back has rebound their attributes, else None: those
    can take the next call's results.  Any other reference (the user's
    `old = model.w`, a second attribute, a list) keeps an array out."""
    return [inputs[i] if i is not None and sys.getrefcount(inputs[i]) <= _ONLY_IN_A_LIST
            and isinstance(inputs[i], jax.Array) and not inputs[i].is_deleted() else None
            for i in replaced]


def _refcount_in_a_list() -> int:
    """sys.getrefcount of an object that one list alone holds, read as
    _dropped reads it (the count of the call's own argument differs
    between Python versions)."""
    holder = [object()]
    return sys.getrefcount(holder[0])


_ONLY_IN_A_LIST = _refcount_in_a_list()


def kept_writebacks(traced) -> list:
    """For each write-back, whether its result goes to the user as it is: an
    attribute that held a jax array when traced, rebound by the program
    (`self.w -= lr * g`; a closure variable's cell likewise), gets the new
    jax array, left on the device."""
    slot = {"attr": lambda hop: hop[1], "cell": lambda hop: "cell_contents"}
    jax_attrs = {(id(c.owner), slot[c.hop[0]](c.hop)) for c in traced.captured
                 if c.frozen == JAX and c.hop is not None and c.hop[0] in slot}
    return [wb[0] == "attr" and (id(wb[1]), wb[2]) in jax_attrs for wb in traced.writebacks]


class OutputPool:
    """Buffers of earlier calls' write-back results, handed to an executable
    as donated extra inputs (lower.lower_to_jax's `recycled`) so that XLA
    writes this call's results into them.  Freshly allocated, they would be
    new memory at every call, which the OS maps in page by page when first
    written: 240 MB of page faults per VGG19 training step at batch 2,
    64x64, 18% of the step.  The price: one set of those buffers stays
    allocated between calls, shared by every signature with the same
    write-back types (a training step at two batch sizes keeps one copy of
    its weights, not two).  The first call passes uninitialized NumPy
    arrays (jax does not reuse memory it does not own, so XLA allocates).
    A call that raises loses its buffers; the next starts afresh."""

    def __init__(self, avals):
        self.avals = avals
        self._free: list = []           # list.pop/append: safe between threads
        self._holes = False             # the set kept has a None (XLA allocates there)

    def call(self, call, inputs):
        if not self.avals:
            return call(*inputs)
        try:
            buffers = self._free.pop()
        except IndexError:      # the first call (or one after a call that raised)
            buffers = [None] * len(self.avals)
        else:
            if not self._holes:
                return call(*inputs, *buffers)
        return call(*inputs, *(np.empty(a.shape, a.dtype) if b is None else b
                               for a, b in zip(self.avals, buffers)))

    def give_back(self, written, inputs, dropped=None):
        """Keeps the write-back results for the next call, unless one of them
        is an input forwarded as is (donating it would delete the caller's
        array, e.g. one device_cache keeps); then, where recycles_replaced,
        the replaced jax arrays nothing else holds (`dropped`; None where
        one is held: XLA allocates that result)."""
        if not self.avals or not set(map(id, inputs)).isdisjoint(map(id, written)):
            return
        self._holes = bool(dropped) and any(d is None for d in dropped)
        self._free.append(list(written) + (dropped or []))
        del self._free[:-1]         # one set is enough: calls return theirs


_POOLS: "weakref.WeakValueDictionary" = weakref.WeakValueDictionary()


def output_pool(avals) -> OutputPool:
    """The pool for these write-back types, shared while an entry holds it."""
    key = tuple((a.dtype, a.shape) for a in avals)
    pool = _POOLS.get(key)
    if pool is None:
        pool = _POOLS[key] = OutputPool(list(avals))
    return pool
