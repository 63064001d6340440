"""The scalars a region that checks Python numbers passes on (its
results, a loop's initial state), computed in one XLA fusion.

A runtime check on a Python number (the ZeroDivisionError of `1.0 / v`,
the OverflowError of math.exp or of a Python int held in int64) reads a
value of the program's scalar chain: the error code and the program's
scalars then both depend on that chain.  XLA:CPU, which has no
multi-output fusion, makes one fusion per result: it copies the cheap ops
(add, mul) into each, but makes every expensive op both reach (a division,
exp) a fusion of its own, which in turn copies the cheap ops that lead to
it.  A running value (`a = a * 0.5 + 1.0 / (a + 2.0)`, N times) is then
recomputed from the start in each of N fusions: O(N**2) HLO for LLVM, 6 s
of XLA for 30 divisions, 57 s for 200, where the same code on NumPy
scalars (no checks) is one fusion.

Here those scalars are packed as 64-bit words into one vector, the
single result of one fusion that holds the whole chain, and unpacked
after a sort by an iota key: an identity that XLA:CPU neither simplifies
away nor fuses, so the packing stays one materialized array (a
concatenate alone would be copied into each unpacking slice's fusion
again).  Bit-exact: floats travel as their bits, NaN payloads included.
Measured: 100 divisions 15.5 s -> 1.0 s of XLA; 30 -> 0.4 s.  Arrays
that share the chain are not packed (they seldom do: the chains are
Python numbers').
"""
from __future__ import annotations

import jax
import numpy as np
from jax import lax

from ..ops.registry import differentiated, target_platforms

_WORD = np.dtype(np.uint64)


def packs_scalars(region) -> bool:
    """Whether the scalars `region` passes on (its results, a loop's
    initial state) go through one packed array (see the module's doc):
    on the CPU, where a runtime check of the region tests a condition
    computed from scalars (a Python number's, not an index array's), and
    outside differentiation (the packing's bit casts have no derivative)."""
    return target_platforms() == ("cpu",) and not differentiated() and _checks_scalars(region)


def scalars_together(values: list, avals) -> list:
    """`values` (of types `avals`), the scalar ones computed as one packed
    array and unpacked from it: each is then computed in that array's
    fusion, which holds their shared chain once."""
    picked = [i for i, (x, aval) in enumerate(zip(values, avals))
              if isinstance(x, jax.core.Tracer) and aval.shape == () and _packable(aval.dtype)]
    if len(picked) < 2:
        return values
    words = lax.concatenate([lax.broadcast(_to_word(values[i]), (1,)) for i in picked], 0)
    _, words = lax.sort((lax.iota(np.int32, len(picked)), words), is_stable=True, num_keys=1)
    out = list(values)
    for j, i in enumerate(picked):
        word = lax.squeeze(lax.slice(words, (j,), (j + 1,)), (0,))
        out[i] = _from_word(word, avals[i].dtype)
    return out


# Checks per stretch of straight-line code between two packings: XLA's
# code generation grows faster than linearly in a fusion's size once the
# check conditions read the chain (200 -> 400 checked int operations: 1.3
# -> 3.1 s; cut every 50: 0.8 -> 1.6 s).
CHECKS_PER_FUSION = 48


def live_scalars_together(ops: list, env: dict, done: int, last_read: dict) -> None:
    """Rebinds in `env` the scalars that ops[done:] (or the region's
    results) still read, computed as one packed array: a cut in a long
    straight-line stretch of checked code, so that XLA fuses it in
    stretches of bounded size."""
    live = [v for v, last in last_read.items() if last >= done and v in env]
    packed = scalars_together([env[v] for v in live], [v.aval for v in live])
    env.update(zip(live, packed))


def last_reads(ops: list, results) -> dict:
    """{value: index of the last op reading it} (len(ops): a result)."""
    last = {}
    for i, op in enumerate(ops):
        for v in op.reads():
            last[v] = i
    for v in results:
        last[v] = len(ops)
    return last


def _checks_scalars(region) -> bool:
    """Whether a runtime check of the region tests a condition computed
    from scalars (a Python number's), as opposed to an index array's."""
    made = {id(v): op for op in region.ops for v in op.outputs}
    for op in region.ops:
        if op.name == "check":
            producer = made.get(id(op.inputs[1]))
            if producer is not None and all(v.aval.shape == () for v in producer.inputs):
                return True
    return False


def _packable(dtype) -> bool:
    return dtype.kind in "biuf" and dtype.itemsize <= _WORD.itemsize


def _unsigned(dtype) -> np.dtype:
    return np.dtype(f"uint{dtype.itemsize * 8}")


def _to_word(x):
    if x.dtype == np.bool_:
        return lax.convert_element_type(x, _WORD)
    return lax.convert_element_type(lax.bitcast_convert_type(x, _unsigned(x.dtype)), _WORD)


def _from_word(word, dtype):
    if dtype == np.bool_:
        return lax.ne(word, np.uint64(0))
    return lax.bitcast_convert_type(lax.convert_element_type(word, _unsigned(dtype)), dtype)
