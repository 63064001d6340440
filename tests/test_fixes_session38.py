"""Session 38's fixes, each checked against eager NumPy or for its message."""
import numpy as np

from tpucc import errors as E
from conftest import check, raises_at


def test_a_runtime_slice_view_made_before_a_loop_is_named_with_a_fix_that_works():
    def before(a, ij):
        b = a[ij[0]:, :ij[1]]
        for _ in range(ij[2]):
            b += 1
        return a

    def inside(a, ij):
        for _ in range(ij[2]):
            b = a[ij[0]:, :ij[1]]
            b += 1
        return a
    a, ij = np.arange(20.0).reshape(4, 5), np.array([1, 3, 2])
    raises_at(before, (a, ij), E.SideEffectError,
              "`b` is a slice of `a` with runtime bounds made before this loop",
              line_of="for _ in range")
    check(inside, a, ij)
