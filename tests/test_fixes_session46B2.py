"""Fixes from sweep 46B (rasterization and graphics): bytes() of a list of
runtime values, the hints of array attributes compiled code has no answer
for (.tobytes, .flags, .base, .byteswap, ...), np.matvec / np.vecmat."""
import numpy as np
import pytest

import tpucc
from conftest import assert_same, raises_at


def same(fn, *args):
    expected = fn(*args)
    actual = tpucc.compile(fn, cache=False)(*args)
    assert_same(expected, actual)
    assert type(expected) is type(actual)
    return actual


# --- bytes() / bytearray() of a list of runtime values: the bytes() refusal ----------------

def test_bytes_of_a_list_of_runtime_ints_says_bytes_not_index():
    def to_bytes(px):
        vals = [int(v) for v in px]
        return bytes(vals)
    err = raises_at(to_bytes, (np.array([0, 100, 250], np.uint8),), tpucc.UnsupportedError,
                    match=r"bytes\(\) of a list of runtime values", line_of="bytes(vals)",
                    cache=False)
    assert "index" not in str(err).splitlines()[0]
    assert "np.array(items, np.uint8)" in str(err)


@pytest.mark.parametrize("cls", [bytes, bytearray])
def test_bytes_of_a_tuple_of_array_items(cls):
    def pack(px):
        return cls((px[0], px[1]))
    raises_at(pack, (np.array([1, 2, 3], np.int32),), tpucc.UnsupportedError,
              match=rf"{cls.__name__}\(\) of a tuple of runtime values", line_of="cls((px",
              cache=False)


def test_bytes_of_an_array_keeps_its_message():
    def whole(px):
        return bytes(px)
    raises_at(whole, (np.array([1, 2], np.uint8),), tpucc.UnsupportedError,
              match=r"bytes\(\) of a runtime array", line_of="bytes(px)", cache=False)


def test_bytes_of_static_ints_still_compiles():
    same(lambda x: (bytes([1, 2, 255]), x + 1), np.arange(3))


# --- array attributes compiled code cannot answer: each refusal says what to do ------------

def test_tobytes_hint_says_call_it_outside():
    def ppm(img):
        return b"P6 2 2 255\n" + img.tobytes()
    err = raises_at(ppm, (np.zeros((2, 2, 3), np.uint8),), tpucc.UnsupportedError,
                    match=r"`\.tobytes` is not supported", line_of="img.tobytes()", cache=False)
    assert "x.tobytes() on it outside the compiled function" in str(err)


@pytest.mark.parametrize("name, hint", [
    ("flags", "no memory, owner or flags"), ("base", "no memory, owner or flags"),
    ("ctypes", "no memory, owner or flags"), ("byteswap", "(x >> 8) | (x << 8)"),
    ("tofile", "outside the compiled function"), ("resize", "np.resize(x, shape)"),
    ("device", "one device")])
def test_layout_attributes_have_a_hint(name, hint):
    def f(img):
        return getattr(img, name)
    err = raises_at(f, (np.zeros((2, 2), np.uint16),), tpucc.UnsupportedError,
                    match=rf"`\.{name}` is not supported", line_of="getattr(img", cache=False)
    assert hint in str(err).split("hint:")[1]


def test_flags_attribute_read_in_a_test_has_the_hint():
    def is_c(img):
        return img.flags.c_contiguous
    err = raises_at(is_c, (np.zeros((2, 2), np.uint8),), tpucc.UnsupportedError,
                    match="`.flags`", line_of="img.flags", cache=False)
    assert "hint:" in str(err)


# --- np.matvec / np.vecmat (NumPy 2.2 gufuncs) ----------------------------------------------

needs_matvec = pytest.mark.skipif(not hasattr(np, "matvec"), reason="NumPy < 2.2")
_rng = np.random.default_rng(46)


@needs_matvec
@pytest.mark.parametrize("M, v", [
    (np.array([[0, -1.0], [1, 0]]), np.array([[1.0, 2.0], [3.0, 4.0]])),
    (_rng.normal(size=(3, 2, 4)), _rng.normal(size=4)),
    (_rng.normal(size=(2, 3)).astype(np.float32), _rng.normal(size=(5, 1, 3)).astype(np.float32)),
    (np.arange(6, dtype=np.int8).reshape(2, 3), np.arange(3, dtype=np.int8)),
    (np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(3.0)),
    (np.ones((2, 3), bool), np.array([True, False, True])),
    (_rng.normal(size=(2, 3)) + 1j * _rng.normal(size=(2, 3)), _rng.normal(size=3) - 2j)])
def test_matvec_and_vecmat_match_numpy(M, v):
    same(lambda M, v: np.matvec(M, v), M, v)
    same(lambda M, v: np.vecmat(v, np.swapaxes(M, -1, -2)), M, v)   # (conjugates v)


@needs_matvec
def test_matvec_transforms_points_in_a_loop_body():
    def xform(M, pts, shift):
        out = np.matvec(M, pts) + shift
        return np.vecmat(out, M), out.sum()
    same(xform, np.array([[0.0, -1.0], [1.0, 0.0]]), _rng.normal(size=(6, 2)), 0.5)


@needs_matvec
@pytest.mark.parametrize("fn, args, text", [
    (lambda a, b: np.matvec(a, b), (np.ones(3), np.ones(3)), "Input operand 0"),
    (lambda a, b: np.vecmat(a, b), (np.ones(3), np.ones(3)), "Input operand 1"),
    (lambda a, b: np.vecmat(a, b), (np.float64(1.0), np.ones((3, 3))), "Input operand 0")])
def test_matvec_vecmat_too_few_axes_raise_as_numpy(fn, args, text):
    with pytest.raises(ValueError, match=text):
        fn(*args)
    with pytest.raises(tpucc.TpuccError, match=text):
        tpucc.compile(fn, cache=False)(*args)
