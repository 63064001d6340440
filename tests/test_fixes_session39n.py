"""Session 39n's fixes (ufunc methods and reduction keywords), each checked
against eager NumPy bit for bit."""
import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo


# --- ufunc.at: an element updated twice is rounded after each update, as NumPy's loop --------

def _add_at(a, i, v):
    np.add.at(a, i, v)
    return a


def _subtract_at(a, i, v):
    np.subtract.at(a, i, v)
    return a


def _multiply_at(a, i, v):
    np.multiply.at(a, i, v)
    return a


@pytest.mark.parametrize("fn, a, v", [
    (_add_at, np.ones(3, np.float16), np.full(6, 0.0003)),             # f16 += f64: stays 1.0
    (_add_at, np.ones(3, np.float32), np.full(6, 3e-8)),               # f32 += f64
    (_subtract_at, np.ones(3, np.float16), np.full(6, 0.0003, np.float32)),
    (_multiply_at, np.ones(3, np.float16), np.full(6, 1.0003)),
    (_add_at, np.ones((2, 3), np.float16), np.array([[0.0003], [0.0002]])),  # broadcast values
])
def test_at_rounds_after_each_update_in_a_wider_loop(fn, a, v):
    i = np.array([0, 0, 1, 1, 1, 2]) if a.ndim == 1 else (np.array([[0], [-1]]), np.array([0, 0, 2]))
    check(fn, a, i, v, rtol=0, atol=0)


def _add_at_in_loop(a, i, v, n):
    for k in range(n):
        np.add.at(a, i, v)
    return a


def test_at_rounds_after_each_update_inside_a_runtime_loop():
    args = (np.ones(3, np.float16), np.array([0, 0, -1]), np.full(3, 0.0003), np.int64(4))
    compiled = check(_add_at_in_loop, *args, rtol=0, atol=0)
    assert count_hlo(hlo(compiled, *args), "while") >= 1


def test_at_of_the_array_dtype_stays_one_scatter():
    args = (np.ones(3, np.float16), np.array([0, 0, 1]), np.full(3, 0.0003, np.float16))
    compiled = check(_add_at, *args, rtol=0, atol=0)
    assert count_hlo(hlo(compiled, *args), "while") == 0
