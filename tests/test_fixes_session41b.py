"""Session 41b: np.packbits and np.unpackbits compile (they were refused):
bitsets of booleans as bytes and back, along any axis, both bit orders."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import tpucc

from conftest import assert_same, raises_at


def same(fn, *args):
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    assert_same(fn(*eager_args), tpucc.compile(fn, cache=False)(*comp_args))
    assert_same(eager_args, comp_args)


def popcount_rows(masks):
    """Bytes per row of a boolean matrix, then the bits set in each row."""
    packed = np.packbits(masks, axis=1)
    return packed, np.unpackbits(packed, axis=1, count=masks.shape[1]).sum(axis=1)


def xor_bitsets(a, b, bitorder):
    pa, pb = np.packbits(a, bitorder=bitorder), np.packbits(b, bitorder=bitorder)
    return np.unpackbits(pa ^ pb, count=a.size, bitorder=bitorder).astype(bool)


@pytest.mark.parametrize("shape", [(3, 13), (2, 8), (4, 1), (0, 5)])
def test_rows_packed_and_counted(shape):
    masks = (np.arange(np.prod(shape)).reshape(shape) * 7 % 5 < 2)
    same(popcount_rows, masks)


@pytest.mark.parametrize("bitorder", ["big", "little"])
def test_bitsets_xored(bitorder):
    a = np.arange(21) % 3 == 0
    b = np.arange(21) % 2 == 0
    same(xor_bitsets, a, b, bitorder)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, np.bool_])
def test_packbits_of_integers_counts_nonzero(dtype):
    same(lambda x: np.packbits(x.reshape(3, 4), axis=0, bitorder="little"),
         (np.arange(12) % 4 - 1).astype(dtype))


def test_wrong_dtypes_raise_numpys_type_error_at_the_line():
    def unpack(x):
        return np.unpackbits(x)
    raises_at(unpack, (np.arange(4),), match="unsigned byte", line_of="np.unpackbits",
              cache=False)

    def pack(x):
        return np.packbits(x)
    raises_at(pack, (np.linspace(0, 1, 4),), match="integer or boolean",
              line_of="np.packbits", cache=False)
