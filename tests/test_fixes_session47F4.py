"""Session 47F4's fix: a counted loop that rebinds a variable to a new
object of a plain user class each iteration (`pos = pos + vel * dt`, with
__add__ / __mul__ returning a new V2) is one While carrying the object's
attributes, as it carries a named tuple's, instead of being unrolled (1000
steps took 85 s to compile).  Where a copy could be told from the object
(`is`, id(), another name holding it, the object from before the loop
changed in place) the loop is unrolled as before, with eager results."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import tpucc

from conftest import count_hlo, hlo, same

N = 40      # past the unroll budget (32)


class V2:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return V2(self.x + o.x, self.y + o.y)

    def __mul__(self, s):
        return V2(self.x * s, self.y * s)


def whiles(fn, *args) -> int:
    return count_hlo(hlo(tpucc.compile(fn, cache=False), *args), "while")


def unrolled_same(fn, *args):
    """Eager results, through the loop unrolled as before this fix."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(fn, *args)
        assert whiles(fn, *args) == 0


# --- carried: one While -----------------------------------------------------------------

def orbit(p, steps):
    pos, vel = V2(p[0], p[1]), V2(0.0, 1.0)
    for _ in range(steps):
        acc = pos * (-1.0 / (pos.x * pos.x + pos.y * pos.y) ** 1.5)
        vel = vel + acc * 0.01
        pos = pos + vel * 0.01
    return pos.x, pos.y, vel.x


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_orbit_is_one_while(dtype):
    p = np.array([1.0, 0.0], dtype)
    same(orbit, p, 300)
    assert whiles(orbit, p, 300) == 1


def test_orbit_of_a_thousand_steps_compiles_fast():
    import time
    start = time.time()
    same(orbit, np.array([1.0, 0.0]), 1000)
    assert time.time() - start < 30         # (85 s unrolled)


class Particle:
    def __init__(self, pos, vel):
        self.pos, self.vel = pos, vel

    def step(self, force, dt):
        vel = self.vel + force * dt
        return Particle(self.pos + vel * dt, vel)


def particles(pos, vel, force):
    p = Particle(pos, vel)
    for _ in range(N):
        p = p.step(force, 0.1)
    return p.pos, p.vel


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_object_of_arrays_is_one_while(dtype):
    args = [np.arange(4, dtype=dtype), np.ones(4, dtype), np.linspace(-1, 1, 4).astype(dtype)]
    same(particles, *args)
    assert whiles(particles, *args) == 1


class Acc:
    def __init__(self, total, n, name):
        self.total, self.n, self.name = total, n, name

    def add(self, v):
        return Acc(self.total + v, self.n + 1, self.name)


def accumulate(x):
    a = Acc(0.0, 0, "sum")
    for i in range(len(x)):
        a = a.add(x[i])
    return a.total, a.n, a.name


@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.float32])
def test_numbers_and_a_string_made_anew(dtype):
    x = (np.arange(N) % 5).astype(dtype)
    same(accumulate, x)
    assert whiles(accumulate, x) == 1


def returns_the_object(x):
    v = V2(x[0], x[1])
    for i in range(N):
        v = v * 0.5 + V2(x[i % 2], 1.0)
    return v


def test_object_returned_after_the_loop():
    x = np.array([2.0, 3.0])
    expected = returns_the_object(x.copy())
    got = tpucc.compile(returns_the_object, cache=False)(x.copy())
    assert type(got) is V2
    np.testing.assert_allclose([got.x, got.y], [expected.x, expected.y])
    assert np.asarray(got.x).dtype == np.asarray(expected.x).dtype


class P2(V2):
    def __add__(self, o):
        return P2(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return P2(self.x - o.x, self.y - o.y)

    def __mul__(self, s):
        return P2(self.x * s, self.y * s)


def nbody(p, steps):
    pos = [P2(p[i, 0], p[i, 1]) for i in range(len(p))]
    vel = [P2(0.0, 0.0) for _ in range(len(p))]
    for _ in range(steps):
        acc = []
        for i in range(len(p)):
            a = P2(0.0, 0.0)
            for j in range(len(p)):
                if i != j:
                    d = pos[j] - pos[i]
                    a = a + d * (1.0 / (d.x * d.x + d.y * d.y + 0.1) ** 1.5)
            acc.append(a)
        vel = [v + a * 0.01 for v, a in zip(vel, acc)]
        pos = [q + v * 0.01 for q, v in zip(pos, vel)]
    return [(q.x, q.y) for q in pos]


@pytest.mark.parametrize("bodies", [3, 4])
def test_lists_of_objects_made_anew(bodies):
    p = np.random.default_rng(bodies).normal(size=(bodies, 2))
    same(nbody, p, 50)
    assert whiles(nbody, p, 50) == 1


def items_in_place(p):
    pts = [V2(p[0], p[1]), V2(p[1], p[0])]
    for _ in range(N):
        for j in range(2):
            pts[j] = pts[j] * 0.9 + V2(0.1, 0.0)
    return pts[0].x, pts[1].y


def tuple_items(p):
    pair = (V2(p[0], p[1]), V2(p[1], p[0]))
    for _ in range(N):
        pair = (pair[1] * 0.5, pair[0] + V2(1.0, 1.0))
    return pair[0].x, pair[1].y


def shared_list(p):
    pos = [V2(p[0], p[1])]
    keep = pos
    for _ in range(N):
        pos = [q * 0.9 for q in pos]
    return pos[0].x, keep[0].x, keep is pos


@pytest.mark.parametrize("fn", [items_in_place, tuple_items, shared_list])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_items_made_anew(fn, dtype):
    p = np.array([1.0, 0.5], dtype)
    same(fn, p)
    assert whiles(fn, p) == 1


# --- unrolled as before: a copy could be told from the object ------------------------------

def aliased_before(p):
    pos, vel = V2(p[0], p[1]), V2(0.5, 1.0)
    start = pos
    for _ in range(N):
        pos = pos + vel * 0.01
    return pos.x, start.x, pos is start


def test_object_held_by_another_name_before_the_loop():
    # (its first iteration runs unrolled; the objects after it are new ones
    # only the loop holds, carried by the While)
    same(aliased_before, np.array([1.0, 0.0]))
    assert whiles(aliased_before, np.array([1.0, 0.0])) == 1


def changed_in_place(p):
    pos, vel = V2(p[0], p[1]), V2(0.5, 1.0)
    held = [pos]
    for _ in range(N):
        pos.y = pos.y + 1.0             # (the first iteration changes held[0])
        pos = pos + vel * 0.01
    return pos.x, pos.y, held[0].y


def test_object_changed_in_place():
    unrolled_same(changed_in_place, np.array([1.0, 0.0]))


def compared_by_identity(p):
    pos, vel = V2(p[0], p[1]), V2(0.5, 1.0)
    n = 0
    for _ in range(N):
        pos = pos + vel * 0.01
        n += pos is not vel         # (no copy changes this answer, but `is` is not watched)
    return pos.x, n


def compared_by_id(p):
    pos, vel = V2(p[0], p[1]), V2(0.5, 1.0)
    n = 0
    for _ in range(N):
        pos = pos + vel * 0.01
        n += id(pos) > 0            # (each object's id is another)
    return pos.x, n


@pytest.mark.parametrize("fn", [compared_by_identity, compared_by_id])
def test_identity_asked_in_the_loop(fn):
    unrolled_same(fn, np.array([1.0, 0.0]))


def two_names(p):
    pos, vel = V2(p[0], p[1]), V2(0.5, 1.0)
    last = pos
    for _ in range(N):
        pos = pos + vel * 0.01
        last = pos
    return pos.x, last is pos


def test_new_object_held_by_two_names():
    unrolled_same(two_names, np.array([1.0, 0.0]))


def attribute_kinds_change(p):
    pos = V2(p[0], p[1])
    for i in range(N):
        pos = V2(pos.x + 1.0, "far" if i > 30 else pos.y)
    return pos.x, pos.y


def test_attribute_changing_kind_is_unrolled():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(attribute_kinds_change, np.array([1.0, 0.0]))


def one_object_twice(p):
    pos = [V2(p[0], p[1]), V2(p[0], p[1])]
    for _ in range(N):
        q = pos[0] * 0.9
        pos = [q, q]
    return pos[0].x, pos[0] is pos[1]


def test_new_object_held_twice_in_a_list():
    unrolled_same(one_object_twice, np.array([1.0, 0.0]))


def hashed(p):
    pos, seen = V2(p[0], p[1]), {}
    for i in range(N):
        pos = pos * 0.9
        seen[hash(pos) > 0] = i    # (an object's hash is its identity's)
    return pos.x, len(seen)


def test_hash_asked_in_the_loop():
    unrolled_same(hashed, np.array([1.0, 0.0]))
