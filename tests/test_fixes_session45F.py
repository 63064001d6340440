"""Bugs from sweep 45F (control systems and state estimation), fixed in
session 45: a chain of complex divisions that took XLA seconds to compile,
complex sqrt/log/log1p at C99's special values, np.poly and np.sort_complex
refused, and the one-argument np.where's hint."""
import numpy as np
import pytest

import tpucc
from conftest import count_hlo, hlo, raises_at, same
from tpucc.errors import ShapeError, UnsupportedError

INF, NAN = np.inf, np.nan


# --- a chain of complex divisions --------------------------------------------------------------

def rotate_divide(zs, rot):
    x = np.ones(1, complex)
    for z in zs:
        x = rot * x
        x = x / (x + z)
    return x


def phasor_gain(zs, p):
    gains = np.zeros(zs.shape[0], dtype=zs.dtype)
    for k in range(zs.shape[0]):
        gain = p / (p + zs[k])
        p = (1 - gain) * p + 0.1
        gains[k] = gain
    return gains


@pytest.mark.parametrize("n", [16, 40])
def test_a_long_static_chain_of_complex_divisions_is_one_while(n):
    # 16 unrolled steps took 4.7 s of XLA (its fusion copied the selects
    # between Smith's branches into every consumer); as one While, 0.2 s.
    zs = np.cos(np.arange(n) * 0.3)
    compiled = same(rotate_divide, zs, np.exp(0.3j))
    assert count_hlo(hlo(compiled, zs, np.exp(0.3j)), "while") == 1


def test_a_short_chain_stays_unrolled_and_matches():
    zs = np.cos(np.arange(4) * 0.3)
    compiled = same(rotate_divide, zs, np.exp(0.3j))
    assert count_hlo(hlo(compiled, zs, np.exp(0.3j)), "while") == 0


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_a_complex_gain_loop_writing_an_array(dtype):
    zs = (np.linspace(0.5, 2, 20) + 1j * np.linspace(-1, 1, 20)).astype(dtype)
    same(phasor_gain, zs, dtype(1 + 0.5j))


def test_a_float_division_chain_is_not_weighed_as_complex():
    def chain(zs):
        x = np.ones(1)
        for z in zs:
            x = x / (x + z)
        return x
    zs = np.cos(np.arange(16) * 0.3) + 2
    compiled = same(chain, zs)
    assert count_hlo(hlo(compiled, zs), "while") == 0


def test_division_special_values_still_numpys():
    sp = np.array([0.0, -0.0, 1.5, -1e300, INF, -INF, NAN])
    z = (sp[:, None] + 1j * sp[None, :]).ravel()
    a, b = np.repeat(z, z.size), np.tile(z, z.size)
    same(lambda a, b: a / b, a, b)
    same(lambda a, b: a / b, a.astype(np.complex64), b.astype(np.complex64))


# --- C99 special values of complex sqrt, log, log1p ------------------------------------------

SPECIAL = np.array([complex(NAN, INF), complex(NAN, -INF), complex(INF, NAN),
                    complex(-INF, NAN), complex(INF, INF), complex(-INF, -INF),
                    complex(0.0, INF), complex(-1.5, -INF), complex(NAN, NAN),
                    complex(INF, 0.0), complex(-INF, 1.5), complex(NAN, 1.0)])


@pytest.mark.parametrize("fn", [np.sqrt, np.log, np.log1p], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_functions_at_infinities_and_nans(fn, dtype):
    same(lambda z: fn(z), SPECIAL.astype(dtype))


def test_finite_complex_sqrt_and_log_are_unchanged():
    z = np.array([4 + 0j, -4 + 0j, 3 + 4j, 0j, -1e-3 - 2j])
    compiled = tpucc.compile(lambda z: (np.sqrt(z), np.log(z[:3]), np.log1p(z)), cache=False)
    got = compiled(z)
    with np.errstate(all="ignore"):
        want = (np.sqrt(z), np.log(z[:3]), np.log1p(z))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-15)


# --- np.poly and np.sort_complex --------------------------------------------------------------

def char_poly(poles):
    return np.poly(poles)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.int8, np.float16, bool])
def test_poly_of_real_roots(dtype):
    same(char_poly, np.array([-1, -2, 0.5, 3])[: 4 if dtype is not bool else 2].astype(dtype))


def test_poly_of_one_root_and_of_no_roots():
    same(char_poly, np.array([2.5]))
    same(char_poly, np.array([], np.float64))        # Python's 1.0


def test_poly_in_a_pole_placement():
    def gains(poles, a):
        desired = np.poly(poles)
        return desired[1:] - a[1:]
    same(gains, np.array([-0.5, -0.6, -0.7]), np.array([1.0, -2.1, 1.4, -0.3]))


def test_poly_of_complex_roots_and_of_a_matrix_are_refused_at_the_line():
    raises_at(char_poly, (np.array([1 + 1j, 1 - 1j]),), UnsupportedError,
              match="conjugate pairs", line_of="np.poly")
    raises_at(char_poly, (np.eye(2),), UnsupportedError, match="characteristic polynomial",
              line_of="np.poly")


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64, np.float64, np.float32,
                                   np.int8, np.int16, np.int64, np.uint8])
def test_sort_complex(dtype):
    ev = np.array([0.9 + 0.2j, 0.5 + 0j, 0.9 - 0.2j, -1 + 3j, 0.5 - 1j])
    x = ev.astype(dtype) if np.dtype(dtype).kind == "c" else (ev.real * 3).astype(dtype)
    same(lambda e: np.sort_complex(e), x)
    same(lambda e: np.sort_complex(e), x.reshape(1, 5))


# --- the one-argument np.where --------------------------------------------------------------------

def test_one_argument_where_names_argmax_for_the_first_index():
    def rise_index(y):
        return np.where(y >= 0.9)[0][0]
    err = raises_at(rise_index, (np.linspace(0, 1, 9),), ShapeError, line_of="np.where")
    assert "np.argmax(cond)" in str(err)

    def rise_by_argmax(y):
        hit = y >= 0.9
        return np.argmax(hit) if hit.any() else -1
    same(rise_by_argmax, np.linspace(0, 1, 9))
    same(rise_by_argmax, np.linspace(0, 0.5, 9))
