"""x[key]'s shape for basic indexing is worked out by tpucc (ops/indexing.
_basic_shape), not by jax.eval_shape (1.3 ms a time: a recursive merge
sort's 1300 x[i] and out[k] = v took 1.7 s of its 2.2 s inference).  It
must agree with jax's for every key it answers."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from tpucc.ir import AVal
from tpucc.ops import indexing

INDEX = AVal(np.dtype("int64"), (), True)
ENTRIES = [0, 1, -1, 2, -3, None, Ellipsis, ("slice", None, None, None), ("slice", 1, None, None),
           ("slice", None, None, -1), ("slice", -2, 5, 2), indexing.ARRAY, (indexing.DSLICE, 2)]


def jax_shape(shape, key, idx):
    x = AVal(np.dtype("float32"), shape, False)
    try:
        return tuple(indexing._eval_shape(
            lambda v, *i: indexing._indexed_value(v, key, i), (x, *idx)).shape)
    except Exception:               # noqa: BLE001 - jax refuses the key
        return "refused"


@pytest.mark.parametrize("shape", [(4,), (3, 5), (2, 3, 4), (5, 1, 2)])
def test_basic_shapes_agree_with_jax(shape):
    keys = [key for k in (1, 2, 3) for key in itertools.product(ENTRIES, repeat=k)]
    answered = 0
    for key in keys[::7]:
        idx = [INDEX for e in key if indexing._takes_array(e)]
        fast = indexing._basic_shape(shape, key, idx)
        if fast is not None:
            answered += 1
            assert fast == jax_shape(shape, key, idx), key
    assert answered > 20


def test_advanced_and_mask_indices_are_left_to_jax():
    vector = AVal(np.dtype("int64"), (3,), False)
    mask = AVal(np.dtype("bool"), (), False)
    assert indexing._basic_shape((4, 5), (indexing.ARRAY,), [vector]) is None
    assert indexing._basic_shape((4, 5), (indexing.ARRAY,), [mask]) is None
    assert indexing._basic_shape((4, 5), (7,), []) is None          # out of range
