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


# --- a list of objects of one class, picked at run time like a list of named tuples ---------

from dataclasses import dataclass  # noqa: E402
from typing import NamedTuple  # noqa: E402


@dataclass
class MatDC:
    kd: np.ndarray
    k: float


@dataclass(frozen=True)
class MatFrozen:
    kd: np.ndarray
    k: float


class MatNT(NamedTuple):
    kd: np.ndarray
    k: float


class Sphere:
    def __init__(self, c, r):
        self.c = c
        self.r = r

    def hit(self, dirs):
        b = dirs @ self.c
        disc = b * b - (self.c @ self.c - self.r * self.r)
        return np.where(disc > 0, b - np.sqrt(np.abs(disc)), np.inf)


def _mats(cls, n=4, dtype=np.float64):
    return [cls(np.arange(3, dtype=dtype) * (i + 1), 0.5 * i) for i in range(n)]


@pytest.mark.parametrize("cls", [MatDC, MatFrozen, MatNT])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_runtime_index_into_a_list_of_objects(cls, dtype):
    def shade(mats, ids):
        m = mats[ids[0]]
        return m.kd * m.k, mats[ids[1]].kd, mats[ids[-1]].k
    same(shade, _mats(cls, dtype=dtype), np.array([2, -1, 0]))


def test_runtime_index_calls_a_method_of_the_picked_object():
    rng = np.random.default_rng(1)
    spheres = [Sphere(rng.normal(size=3) + [0, 0, 5], float(r)) for r in (0.5, 1.0, 2.0)]

    def shade(dirs, spheres, k):
        return spheres[k[0]].hit(dirs)
    same(shade, rng.normal(size=(4, 3)), spheres, np.array([1]))


def test_a_long_loop_over_plain_objects_is_one_while():
    rng = np.random.default_rng(2)
    spheres = [Sphere(rng.uniform(-2, 2, 3) + [0, 0, 6], float(r))
               for r in rng.uniform(0.5, 1.5, 300)]

    def nearest(dirs, spheres):
        out = np.full(len(dirs), np.inf)
        for s in spheres:
            out = np.minimum(out, s.hit(dirs))
        return out, s.r
    same(nearest, rng.normal(size=(8, 3)), spheres)


def test_writes_through_a_picked_object_are_refused():
    def set_k(mats, ids):
        m = mats[ids[0]]
        m.k = 3.0
        return m.kd
    raises_at(set_k, (_mats(MatDC), np.array([1])), tpucc.SideEffectError,
              match="changing the attribute `k` of an object chosen at run time",
              line_of="m.k = 3.0", cache=False)

    def bump(mats, ids):
        m = mats[ids[0]]
        m.kd += 1
        return m.kd
    raises_at(bump, (_mats(MatDC), np.array([1])), tpucc.SideEffectError,
              match="updating in place an array chosen at run time", line_of="m.kd += 1",
              cache=False)


def test_identity_of_a_picked_object_is_refused():
    def same_as_first(mats, ids):
        return mats[ids[0]] is mats[0]
    raises_at(same_as_first, (_mats(MatDC), np.array([1])), tpucc.SideEffectError,
              match=r"is another object \(`is`\)", line_of="is mats[0]", cache=False)


def test_long_loops_that_write_or_compare_objects_stay_exact():
    def grow(spheres, d):
        first = spheres[0]
        total = 0.0
        for s in spheres:
            if s is not first:
                total = total + s.r
            s.r = s.r + d[0]
        return total, spheres[5].r
    rng = np.random.default_rng(3)
    args = ([Sphere(rng.normal(size=3), float(i)) for i in range(200)], np.array([0.25]))
    expected_args = ([Sphere(s.c, s.r) for s in args[0]], args[1])
    expected = grow(*expected_args)
    actual = tpucc.compile(grow, cache=False)(*args)
    assert_same(expected, actual)
    assert [s.r for s in args[0]] == [s.r for s in expected_args[0]]


def test_objects_of_different_classes_are_still_refused():
    class A:
        def __init__(self, x):
            self.x = x

    class B(A):
        pass

    def pick(objs, i):
        return objs[i[0]].x
    raises_at(pick, ([A(np.ones(2)), B(np.zeros(2))], np.array([1])), tpucc.StaticValueError,
              match="indexing a Python container with a runtime value", line_of="objs[i[0]]",
              cache=False)


MATERIALS = [MatDC(np.array([0.1, 0.2]) * (i + 1) * (-1) ** i, 0.25 * i) for i in range(5)]


def test_global_list_of_objects_indexed_at_run_time_sees_rebinding():
    def shade(ids):
        return MATERIALS[ids[0]].kd * 2, MATERIALS[ids[1]].k
    f = tpucc.compile(shade, cache=False)
    assert_same(shade(np.array([2, 1])), f(np.array([2, 1])))
    old = MATERIALS[2].kd
    try:
        MATERIALS[2].kd = np.array([7.0, 8.0])      # an attribute of a global, re-read
        assert_same(shade(np.array([2, 1])), f(np.array([2, 1])))
    finally:
        MATERIALS[2].kd = old


def test_max_with_runtime_keys_picks_among_objects():
    def best(objs, w):
        return max(objs, key=lambda o: o.kd @ w).kd
    same(best, MATERIALS, np.array([1.0, -0.5]))
    same(best, MATERIALS, np.array([-1.0, 0.5]))
