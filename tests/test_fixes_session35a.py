"""Bugs from session 35's sweep (part A): each program now gives eager
NumPy's (and Python's) result, or is refused with an error that says what
is wrong, at the user's line, with a hint that works."""
import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at


# --- @tpucc.compile on a method binds self ---------------------------------------------

class _Scaled:
    def __init__(self, w):
        self.w = w

    @tpucc.compile
    def forward(self, x):
        return self.shift(x) * self.w

    @tpucc.compile
    def shift(self, x):          # a compiled method called from compiled code
        return x + 1


def test_compiled_method_binds_self():
    a, b = _Scaled(np.ones(2)), _Scaled(np.full(2, 3.0))
    np.testing.assert_array_equal(a.forward(np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(b.forward(np.ones(2)), [6.0, 6.0])
    np.testing.assert_array_equal(_Scaled.forward(b, np.ones(2)), [6.0, 6.0])
    assert isinstance(_Scaled.forward, tpucc.CompiledFunction)


# --- tpucc.compile of something not callable -------------------------------------------

def test_compile_of_a_call_result_is_refused_at_once():
    def f(x):
        return x + 1
    with pytest.raises(E.OptionError, match="expected a function, got ndarray") as info:
        tpucc.compile(f(np.ones(2)))
    assert "tpucc.compile(f)" in info.value.hint
    with pytest.raises(E.OptionError, match="got int 3"):
        tpucc.compile(unroll=4)(3)
