"""f.lower(x).compile() runs the program when called (it was jax's
executable: a raw jax TypeError about enable_x64 on float64 arguments);
a gradient function called from plain Python with arguments that do not
fit names the user's line, not tpucc's autodiff.py."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc


def loss(w, x):
    return np.sum(np.tanh(w * x))


def scale_in_place(a, k):
    a *= k
    return a.sum()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_compiled_lowering_runs_the_program(dtype):
    w, x = np.ones(3, dtype), np.arange(3, dtype=dtype)
    g = tpucc.grad(loss)
    exe = g.lower(w, x).compile()
    np.testing.assert_allclose(exe(w, x), tpucc.grad(loss)(w, x))
    assert exe(w, x).dtype == dtype
    assert "HloModule" in exe.as_text()
    f = tpucc.compile(scale_in_place, cache=False)
    a = np.arange(4, dtype=dtype)
    exe = f.lower(a, 2.0).compile()
    assert exe(a, 2.0) == 12 and a.tolist() == [0, 2, 4, 6]      # (written back)


def test_gradient_called_with_a_missing_argument_names_the_callers_line():
    with pytest.raises(tpucc.TpuccError) as info:
        tpucc.grad(loss)(np.ones(3))          # the line named
    assert info.value.loc.file == __file__
    assert "missing a required argument: 'x'" in str(info.value)
    assert "autodiff.py" not in str(info.value)
