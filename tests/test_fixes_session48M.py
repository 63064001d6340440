"""Session 48M fixes (sweep 48L bug_03, sweep 48J bug_06).

- 48L bug_03: a variable holding a NumPy float32 on one runtime path and a
  Python number on another (`z = a[1] if a[0] > 0 else 0.5`, `min(1.0,
  a[0])`) is held as float32 with a bool saying which path left the Python
  number.  np.array([...]), np.asarray, np.full, np.zeros_like,
  np.concatenate, np.stack, np.append, np.clip and np.round ignored the
  bool and gave float32 where eager NumPy makes float64 (int64 of a Python
  int): NumPy converts the number in its own dtype, and one array has one
  dtype, so they now raise on that path (E910), as ufuncs do; where the
  dtypes agree (a float64 slot) nothing changes.  round(z, n) gives the
  Python float there (held as z is).
- 48J bug_06: an argument object's attribute, a dict or list argument's
  item, or a global that runtime paths may leave a Python number came back
  in the merged type on that path (np.int64(0) for 0, 2.0 for 2): the
  write-back now reads the held bool (infer.HeldNumber), as returned values
  do.
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc.errors import RuntimeRaiseError

from conftest import raises_at, same_each

NUMPY_PATH = np.array([3.0, 2.25])      # a[0] > 0: z is the NumPy scalar a[1]
PYTHON_PATH = np.array([-1.0, 2.25])    # z is the Python number


def _held(a):
    return a[1] if a[0] > 0 else 0.5


def to_array(a):
    z = _held(a)
    return np.array([a[0], z])


def to_asarray(a):
    z = _held(a)
    return np.asarray(z)


def to_full(a):
    z = _held(a)
    return np.full(2, z)


def to_zeros_like(a):
    z = _held(a)
    return np.zeros_like(z)


def to_full_like(a):
    z = _held(a)
    return np.full_like(z, 3)


def to_concatenate(a):
    z = _held(a)
    return np.concatenate([a, [z]])


def to_stack(a):
    z = _held(a)
    return np.stack([z, z])


def to_append(a):
    z = _held(a)
    return np.append(a, z)


def to_clip(a):
    z = _held(a)
    return np.clip(z, 0, 1)


def to_np_round(a):
    z = _held(a)
    return np.round(z, 1)


CONVERSIONS = [to_array, to_asarray, to_full, to_zeros_like, to_full_like, to_concatenate,
               to_stack, to_append, to_clip, to_np_round]


@pytest.mark.parametrize("fn", CONVERSIONS, ids=lambda f: f.__name__)
def test_python_float_held_in_float32_raises_on_its_path(fn):
    compiled = tpucc.compile(fn, cache=False)
    a = NUMPY_PATH.astype(np.float32)
    expected, got = fn(a.copy()), compiled(a.copy())
    assert type(got) is type(expected) and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(RuntimeRaiseError, match="Python float held in a NumPy float32") as info:
        compiled(PYTHON_PATH.astype(np.float32))
    assert "E910" in str(info.value) and "float64" in str(info.value)
    assert "z = np.float32(0.5)" in info.value.hint


@pytest.mark.parametrize("fn", CONVERSIONS, ids=lambda f: f.__name__)
def test_python_float_held_in_float64_gives_each_paths_result(fn):
    same_each(fn, (NUMPY_PATH,), (PYTHON_PATH,))


def test_the_sweeps_clamp_names_the_line():
    def clamp(a):
        d = min(1.0, a[0])
        return np.array([d, a[1]])
    same_each(clamp, (np.array([0.5, 2.0], np.float32),), (np.array([3.0, 2.0]),))
    raises_at(clamp, (np.array([3.0, 2.0], np.float32),), RuntimeRaiseError,
              match=r"Python float held in a NumPy float32 \(np.array\)",
              line_of="return np.array")


def test_python_int_held_in_a_float_gives_int64_there():
    def ints(a):
        k = a[1] if a[0] > 0 else 0
        return np.array((k,))
    same_each(ints, (NUMPY_PATH,), (NUMPY_PATH.astype(np.float32),))
    for dtype in (np.float64, np.float32):
        raises_at(ints, (PYTHON_PATH.astype(dtype),), RuntimeRaiseError,
                  match=f"Python int held in a NumPy {np.dtype(dtype)}.*array of int64",
                  line_of="np.array((k,))", cache=False)


def test_python_int_held_in_int64_needs_no_check():
    def ints(a):
        k = a[1] if a[0] > 0 else 0
        return np.array([k, a[0]]), np.full(2, k), np.stack([k, k])
    same_each(ints, (np.array([3, 7]),), (np.array([-1, 7]),))


def test_an_explicit_dtype_is_the_same_on_every_path():
    def typed(a):
        z = _held(a)
        return (np.array([a[0], z], dtype=np.float32), np.full(2, z, dtype=np.float32),
                np.zeros_like(z, dtype=np.float32), np.asarray(z, dtype=np.float64))
    same_each(typed, (NUMPY_PATH.astype(np.float32),), (PYTHON_PATH.astype(np.float32),))


def test_python_bool_beside_an_int_in_a_numpy_int():
    def three(x):
        r = np.int64(0)
        if x[0] > 0:
            r = 1
        elif x[1] > 0:
            r = True
        return np.array([r])
    same_each(three, (np.array([1, 1]),), (np.array([-1, -1]),))
    raises_at(three, (np.array([-1, 1]),), RuntimeRaiseError,
              match="Python bool held in a NumPy int64.*array of bool", line_of="np.array([r])",
              cache=False)


def test_python_int_held_in_a_python_float():
    def weak(x):
        r = 0
        if x[0] > 0:
            r = 0.5
        return np.array([r, 1.0]), np.array([r])
    same_each(weak, (np.array([1.0]),))
    raises_at(weak, (np.array([-1.0]),), RuntimeRaiseError,
              match="Python int held in a Python float.*array of int64",
              line_of="return np.array", cache=False)


def test_round_gives_the_python_number_on_its_path():
    def rounded(a):
        z = _held(a)
        k = a[1] if a[0] > 0 else 2
        return round(z, 1), round(k, 1), round(z), round(z, 0)
    same_each(rounded, (NUMPY_PATH.astype(np.float32),), (PYTHON_PATH.astype(np.float32),),
              (NUMPY_PATH,), (PYTHON_PATH,))


def test_round_of_a_held_number_stays_held():
    def rounded(a):
        z = a[1] if a[0] > 0 else 2.25
        r = round(z, 1)
        return r * 2, r, isinstance(r, float)
    same_each(rounded, (np.array([3.0, 1.5], np.float32),), (np.array([-3.0, 1.5], np.float32),))


# --- 48J bug_06: write-backs of numbers held on some paths ----------------------------------

class Tracker:
    def __init__(self, last=0):
        self.last = last


def _after(fn, make, *args):
    eager, compiled = make(), make()
    fn(eager, *args)
    tpucc.compile(fn, cache=False)(compiled, *args)
    return eager, compiled


def _same_state(eager, compiled):
    if isinstance(eager, Tracker):
        eager, compiled = eager.last, compiled.last
    assert repr(eager) == repr(compiled)


def last_weekend(t, days, n):
    i = 0
    while i < n:
        if (days[i] + 3) % 7 >= 5:
            t.last = days[i]
        i += 1


@pytest.mark.parametrize("n", [0, 1, 2])
def test_attribute_set_in_a_runtime_loop(n):
    _same_state(*_after(last_weekend, Tracker, np.array([19723, 19725]), np.int64(n)))


def set_step(t, x):
    if x.sum() > 0:
        t.last = 1.5
    else:
        t.last = 2


@pytest.mark.parametrize("sign", [1, -1])
def test_attribute_python_int_or_float(sign):
    _same_state(*_after(set_step, Tracker, sign * np.ones(2)))


def clamp(t, x):
    t.last = min(1.0, x[0])


@pytest.mark.parametrize("first", [0.5, 3.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_attribute_of_a_clamp(first, dtype):
    _same_state(*_after(clamp, Tracker, np.array([first], dtype)))


def flag(t, x):
    if x[0] > 0:
        t.last = x[1]
    elif x[0] < -5:
        t.last = True


@pytest.mark.parametrize("first", [1, -9, -1])
def test_attribute_holding_a_bool_beside_an_int(first):
    _same_state(*_after(flag, Tracker, np.array([first, 7])))


def dict_update(stats, days):
    if days.sum() < 0:
        stats["last"] = days[0]


@pytest.mark.parametrize("days", [[19720, 19721], [-19720, 1]])
def test_dict_argument_item(days):
    _same_state(*_after(dict_update, lambda: {"last": 0}, np.array(days)))


def dict_max(stats, x):
    for v in x:
        if v > 10:
            stats["m"] = v


@pytest.mark.parametrize("x", [[1.0, 2.0], [1.0, 20.0]])
def test_dict_argument_item_in_a_loop(x):
    _same_state(*_after(dict_max, lambda: {"m": 0}, np.array(x, np.float32)))


def list_update(items, x):
    if x[0] > 0:
        items[0] = x[1]


@pytest.mark.parametrize("first", [1, -1])
def test_list_argument_item(first):
    _same_state(*_after(list_update, lambda: [0, 1], np.array([first, 5])))


G = 0


def set_global(x):
    global G
    if x[0] > 0:
        G = x[1]


@pytest.mark.parametrize("first", [1, -1])
def test_global(first):
    global G
    G = 0
    set_global(np.array([first, 5]))
    eager, G = G, 0
    tpucc.compile(set_global, cache=False)(np.array([first, 5]))
    assert repr(G) == repr(eager)
