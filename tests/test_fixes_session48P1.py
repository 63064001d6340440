"""Fixes from sweep 48 (bug_06).

A dict, object, list row or array picked from a list at a runtime position
(`d = L[i]`, max()/min() of lists, the item a long loop left at by a
runtime `break`) is a copy; a later change of the item it copies was not
seen through the picked name: silently the old value.  Such a change is
now refused (E500) while the copy is still in use; a copy read at once and
dropped (`L[i]["a"]`, `L[i].copy()`) still lets the items change after.

float(z) / int(z) of a complex 0-d array (or a Python complex) gave its
real part where Python raises TypeError (cmath.rect inherited it); a NumPy
complex scalar still gives its real part, as NumPy's does."""
import cmath

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each


class Point:
    def __init__(self, a):
        self.a = a


def _at(x):
    return int(x[0] > 0.5)


# --- a change of an item while its picked copy is in use: refused ---------------------------

def dict_changed_after_pick(x):
    L = [{"a": 1.0}, {"a": 2.0}]
    d = L[_at(x)]
    L[0]["a"] = 5.0
    return d["a"]


def dict_updated_after_pick(x):
    L = [{"a": 1.0, "b": 3.0}, {"a": 2.0, "b": 4.0}]
    d = L[_at(x)]
    L[1].update(a=5.0)
    return d["a"]


def dict_popped_after_pick(x):
    L = [{"a": 1.0, "b": 3.0}, {"a": 2.0, "b": 4.0}]
    d = L[_at(x)]
    L[0].pop("b")
    return len(d)


def object_changed_after_pick(x):
    L = [Point(1.0), Point(2.0)]
    o = L[_at(x)]
    L[0].a = 5.0
    return o.a


def inner_dict_changed_after_pick(x):
    L = [{"p": {"a": 1.0}}, {"p": {"a": 2.0}}]
    d = L[_at(x)]
    L[0]["p"]["a"] = 5.0
    return d["p"]["a"]


def dict_in_a_tuple_changed_after_pick(x):
    L = [({"a": 1.0}, 1), ({"a": 2.0}, 2)]
    t = L[_at(x)]
    L[0][0]["a"] = 5.0
    return t[0]["a"]


def array_updated_after_pick(x):
    L = [np.zeros(2), np.ones(2)]
    v = L[_at(x)]
    L[0][0] = 5.0
    return v


def array_augmented_after_pick(x):
    L = [np.zeros(2, np.float32), np.ones(2, np.float32)]
    v = L[_at(x)]
    L[1] += 5
    return v


def array_of_a_dict_updated_after_pick(x):
    L = [{"w": np.zeros(2)}, {"w": np.ones(2)}]
    d = L[_at(x)]
    L[0]["w"] += 5.0
    return d["w"]


def row_of_max_changed_after(x):
    L = [[x[0], 1.0], [x[1], 2.0]]
    m = max(L)
    L[0][1] = 7.0
    return m[1]


def dict_of_min_changed_after(x):
    L = [(x[0], {"a": 1.0}), (x[1], {"a": 2.0})]
    m = min(L, key=lambda t: t[0])
    L[0][1]["a"] = 7.0
    return m[1]["a"]


def dict_a_long_loop_left_at(x):
    L = [{"a": x[0] * k} for k in range(60)]
    for d in L:
        if d["a"] >= x[1]:
            break
    L[0]["a"] = 7.0
    return d["a"]


def array_a_long_loop_left_at(x):
    L = [x * k for k in range(60)]
    for h in L:
        if h.sum() >= x[0]:
            break
    L[0] += 1.0
    return h


@pytest.mark.parametrize("fn, line, what", [
    (dict_changed_after_pick, 'L[0]["a"] = 5.0', "a dict"),
    (dict_updated_after_pick, "L[1].update(a=5.0)", "a dict"),
    (dict_popped_after_pick, 'L[0].pop("b")', "a dict"),
    (object_changed_after_pick, "L[0].a = 5.0", "an object"),
    (inner_dict_changed_after_pick, 'L[0]["p"]["a"] = 5.0', "a dict"),
    (dict_in_a_tuple_changed_after_pick, 'L[0][0]["a"] = 5.0', "a dict"),
    (array_updated_after_pick, "L[0][0] = 5.0", "an array"),
    (array_augmented_after_pick, "L[1] += 5", "an array"),
    (array_of_a_dict_updated_after_pick, 'L[0]["w"] += 5.0', "an array"),
    (row_of_max_changed_after, "L[0][1] = 7.0", "a row of a table of lists or dicts"),
    (dict_of_min_changed_after, 'L[0][1]["a"] = 7.0', "a dict"),
    (dict_a_long_loop_left_at, 'L[0]["a"] = 7.0', "a dict"),
    (array_a_long_loop_left_at, "L[0] += 1.0", "an array"),
])
def test_a_change_of_an_item_its_picked_copy_would_not_see_is_refused(fn, line, what):
    raises_at(fn, (np.array([0.0, 0.7]),), tpucc.SideEffectError,
              match=f"(changing|updating in place) {what}.* while a copy of it", line_of=line,
              cache=False)


# --- a copy read at once, or no longer held: the items may change after ---------------------

def dict_read_at_once(x):
    L = [{"a": 1.0}, {"a": 2.0}]
    v = L[_at(x)]["a"]
    L[0]["a"] = 5.0
    return v + L[0]["a"], L


def object_read_at_once(x):
    L = [Point(1.0), Point(2.0)]
    v = L[_at(x)].a
    L[0].a = 5.0
    return v + L[0].a


def object_copy_dropped(x):
    L = [Point(x[0]), Point(x[1])]
    o = L[_at(x)]
    v = o.a * 2
    del o
    L[0].a = 5.0
    return v + L[0].a


def dict_copy_rebound(x):
    L = [{"a": 1.0}, {"a": 2.0}]
    d = L[_at(x)]
    v = d["a"]
    d = None
    L[1]["a"] = 5.0
    return v + L[1]["a"], d


def array_copied_explicitly(x):
    L = [np.zeros(2), np.ones(2)]
    v = L[_at(x)].copy()
    L[0][0] = 5.0
    return v + L[0]


def array_reduced_at_once(x):
    L = [np.zeros(2, np.float32), np.ones(2, np.float32)]
    v = L[_at(x)].sum()
    L[1] += 5
    return v, L[1]


def row_of_max_read_at_once(x):
    L = [[x[0], 1.0], [x[1], 2.0]]
    v = max(L)[1]
    L[0][1] = 7.0
    return v + L[0][1]


def dicts_changed_after_a_long_loop(x):
    L = [{"w": x * k} for k in range(60)]
    s = 0.0
    for d in L:
        s = s + d["w"].sum()
    L[0]["w"][0] = 3.0
    L[1]["w"] = x
    return s + L[0]["w"] + L[1]["w"]


def objects_changed_after_a_long_loop(x):
    L = [Point(x[k % 2]) for k in range(60)]
    s = 0.0
    for o in L:
        s = s + o.a * 2
    L[0].a = 3.0
    return s + L[0].a


def arrays_updated_after_a_long_loop(x):
    L = [x * k for k in range(60)]
    s = 0.0
    for h in L:
        s = s + h.sum()
    L[0] += 1.0
    L[5][1] = 2.0
    return s + L[0] + L[5]


def arrays_updated_in_a_long_loop(x):
    L = [x * k for k in range(60)]
    s = np.zeros(2)
    for h in L:
        s = s + h
        L[0] += 1.0         # (the loop is unrolled: h is L[0] in its first iteration)
    return s + L[0]


@pytest.mark.parametrize("fn", [dict_read_at_once, object_read_at_once, object_copy_dropped,
                                dict_copy_rebound, array_copied_explicitly,
                                array_reduced_at_once, row_of_max_read_at_once,
                                dicts_changed_after_a_long_loop,
                                objects_changed_after_a_long_loop,
                                arrays_updated_after_a_long_loop,
                                arrays_updated_in_a_long_loop])
def test_items_change_after_a_copy_is_no_longer_held(fn):
    same_each(fn, (np.array([0.1, 0.7]),), (np.array([0.9, 0.2]),))


def test_picked_dict_still_reads_as_the_item():
    def pick(x):
        L = [{"a": x[0], "b": 1}, {"a": x[1], "b": 2}]
        d = L[_at(x)]
        return d["a"] * 2, d["b"], len(d)
    same_each(pick, (np.array([0.1, 0.7]),), (np.array([0.9, 0.2]),))


# --- float() / int() of a complex -----------------------------------------------------------

def float_of(z):
    return float(z)


def int_of(z):
    return int(z)


def rect_of(z):
    return cmath.rect(z, 0.5)


def float_of_python_complex(z):
    return float(complex(z))


def float_of_item(z):
    return float(z.item())


@pytest.mark.parametrize("fn, line", [(float_of, "float(z)"), (int_of, "int(z)"),
                                      (rect_of, "cmath.rect(z, 0.5)"),
                                      (float_of_python_complex, "float(complex(z))"),
                                      (float_of_item, "float(z.item())")])
@pytest.mark.parametrize("z", [np.array(1j), np.array(2 + 0j, np.complex64)])
def test_float_of_a_complex_array_is_a_type_error(fn, line, z):
    with pytest.raises(TypeError):
        fn(z)
    word = "int" if fn is int_of else "float"
    raises_at(fn, (z,), TypeError, match=rf"{word}\(\) argument must be a string.* not 'complex'",
              line_of=line, cache=False)


def test_the_programs_except_catches_it():
    def guarded(z):
        try:
            return float(z)
        except TypeError:
            return -1.0
    same(guarded, np.array(1j))


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("z", [np.complex128(2 + 1j), np.complex64(-3 + 0.5j)])
def test_a_numpy_complex_scalar_gives_its_real_part(z):
    same(float_of, z)
    same(int_of, z)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
def test_a_real_part_or_a_reduction_converts():
    def parts(z):
        return float(z.real), int(abs(z)), float(z.sum()), complex(z)
    same(parts, np.array(3 + 4j))
