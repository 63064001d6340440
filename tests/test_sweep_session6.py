"""Ordinary Python that compiled wrongly or crashed (a sweep of common
patterns, session 6), each pinned by a test against eager NumPy."""
import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo, raises_at


# --- comprehensions whose `if` tests a runtime value ---------------------------------

def count_positive(x):
    return len([v for v in x if v > 0])


def positive_by_index(x):
    return [x[i] for i in range(3) if x[i] > 0]


def positive_dict(x):
    return {i: v for i, v in enumerate(x) if v > 0}


@pytest.mark.parametrize("fn", [count_positive, positive_by_index, positive_dict])
def test_comprehension_with_runtime_filter_is_refused(fn):
    # It once kept every item (len 3 instead of 2), or failed in lowering.
    raises_at(fn, (np.array([3.0, -1.0, 4.0]),), tpucc.errors.SideEffectError,
              match="comprehension's `if` tests a runtime value", line_of=" if ")


def doubled_items(x):
    return sum([v * 2 for v in x if True])


def test_comprehension_with_static_filter_compiles():
    check(doubled_items, np.array([3.0, -1.0, 4.0]))


# --- containers passed as arguments -----------------------------------------------------

def sgd_rebind(p, g):
    p["w"] = p["w"] - 0.1 * g


def append_to(items):
    items.append(1)
    return len(items)


def test_rebinding_an_argument_item_is_written_back_growing_it_is_refused():
    # Rebinding went into tpucc's copy of the container and was refused (it
    # would have been lost); it is now written back to the caller's dict.
    check(sgd_rebind, {"w": np.ones(2)}, np.ones(2))
    raises_at(append_to, ([0],), tpucc.errors.SideEffectError,
              match="list passed as an argument", line_of="append")


def sgd_in_place(p, g, n):
    for _ in range(n):
        p["w"] -= 0.1 * g
    return p["w"].sum()


def test_in_place_update_of_an_argument_dict_item():
    # Also inside a runtime loop, where the no-op store was refused.
    f = check(sgd_in_place, {"w": np.ones(2)}, np.arange(2.0), np.int64(3))
    assert count_hlo(hlo(f, {"w": np.ones(2)}, np.arange(2.0), np.int64(3)), "while") == 1


# --- range() with a negative step and runtime bounds --------------------------------------

def count_down(n):
    r = 0
    for i in range(n, 0, -1):
        r += i
    return r


def digits_down(n):
    r = 0
    for i in range(n - 1, -1, -1):
        r = r * 10 + i
    return r


def step_down_to(n):
    r = 0
    for i in range(10, n, -3):
        r += i
    return r


@pytest.mark.parametrize("fn", [count_down, digits_down, step_down_to])
@pytest.mark.parametrize("n", [0, 1, 4, 7])
def test_runtime_range_with_negative_step(fn, n):
    # The While's condition was `pos < stop` whatever the step: zero iterations.
    assert fn(n) == tpucc.compile(fn)(np.int64(n))


# --- arguments that share memory ------------------------------------------------------------

def axpy(y, x):
    y += x
    return x.sum()


def test_updated_argument_sharing_memory_is_refused():
    f = tpucc.compile(axpy)
    v = np.ones(3)
    assert f(v, np.ones(3)) == 3.0
    assert f(v, v) == 12.0      # one array at two places: compiled again, read as one
    assert v.tolist() == [4.0] * 3      # (as eagerly: v was [2, 2, 2])
    b = np.arange(6.0)
    with pytest.raises(tpucc.errors.SideEffectError):
        f(b[:3], b[2:5])
    assert f(b[:3], b[3:6]) == 12.0 and b[:3].tolist() == [3.0, 5.0, 7.0]


# --- `while True:` with `continue` -------------------------------------------------------------

def while_true_continue(x):
    i = 0
    while True:
        i += 1
        if x[i % 3] < 0:
            continue
        if i > 4:
            break
    return i


def test_while_true_with_continue():
    check(while_true_continue, np.array([1.0, -1.0, 2.0]))


# --- outside arrays first read inside a runtime region -------------------------------------

class Holder:
    def __init__(self):
        self.w = np.ones(3)


def double_attribute(m, n):
    for _ in range(n):
        m.w *= 2
    return m.w.sum()


BUFFER = np.zeros(4)


def mark_positive(x, n):
    for i in range(n):
        if x[i] > 0:
            BUFFER[i] = 1.0
    return BUFFER.sum()


@pytest.mark.parametrize("n", [0, 3])
def test_attribute_first_updated_inside_a_runtime_loop(n):
    # Lowering failed with KeyError: the update stayed inside the loop body.
    eager, compiled = Holder(), Holder()
    assert double_attribute(eager, n) == tpucc.compile(double_attribute)(compiled, np.int64(n))
    np.testing.assert_array_equal(eager.w, compiled.w)


def test_global_first_updated_inside_a_runtime_branch():
    x = np.array([1.0, -1.0, 2.0, 3.0])
    BUFFER[:] = 0
    expected, expected_buffer = mark_positive(x, 3), BUFFER.copy()
    BUFFER[:] = 0
    assert tpucc.compile(mark_positive)(x, np.int64(3)) == expected
    np.testing.assert_array_equal(BUFFER, expected_buffer)


# --- `for` over an array or a list with a runtime `break` ------------------------------------

def sum_until_large(x):
    s = 0.0
    for v in x:
        if v > 5:
            break
        s += v
    return s


def rows_until_large(x):
    s = np.float64(0.0)
    for row in x.reshape(3, 2):
        if row[0] > 4:
            break
        s = s + row.sum()
    return s


def first_large(x):
    for v in x:
        if v > 5:
            return v
    return np.float64(-1.0)


@pytest.mark.parametrize("fn", [sum_until_large, rows_until_large, first_large])
@pytest.mark.parametrize("x", [[1.0, 9.0, 2.0, 4.0, 7.0, 0.0], [1.0, 2.0, 3.0, 4.0, 5.0, 0.0]])
def test_for_over_items_with_runtime_break(fn, x):
    # E300 "the branches of this `if` leave different values on the stack".
    check(fn, np.array(x))


# --- complex parts, dtype facts, str.join, byte order ---------------------------------------

@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float32, np.int64])
def test_real_imag_angle(dtype):
    a = np.array([1 + 2j, -3 - 1j, -2]).astype(dtype) if np.dtype(dtype).kind == "c" else \
        np.array([1, -2, 0]).astype(dtype)
    check(lambda a: (a.real * 2, a.imag + 1, np.real(a), np.imag(a), np.angle(a),
                     np.angle(a, deg=True)), a)


def clip_to_int8(a):
    return np.clip(a, np.iinfo(np.int8).min, np.iinfo(np.int8).max) + np.finfo(np.float32).eps


def test_iinfo_and_finfo_are_static():
    check(clip_to_int8, np.array([1000, -3], np.int16))


def shape_label(a):
    return "x".join(str(s) for s in a.shape), "x".join(map(str, a.shape))


def test_str_join_of_a_generator():
    check(shape_label, np.ones((2, 3)))


def test_non_native_byte_order_is_refused_by_name():
    with pytest.raises(tpucc.errors.DTypeError, match="byte order"):
        tpucc.compile(lambda a: a * 2)(np.arange(3, dtype=">f4"))


# --- print() of static values ----------------------------------------------------------------

def train_with_progress(x, n):
    print("start {x}")
    for epoch in range(2):
        print("epoch", epoch)
        x = x * 2
    i = 0
    while i < n:
        print("step", i)
        i += 1
    return x


def test_static_print_happens_at_every_call(capfd):
    # It printed once, while compiling, and never when the program ran.
    f = tpucc.compile(train_with_progress)
    for n in (2, 1):
        train_with_progress(np.ones(2), n)
        expected = capfd.readouterr().out
        f(np.ones(2), np.int64(n))
        assert capfd.readouterr().out == expected


def test_prints_false_drops_print_calls(capfd):
    tpucc.compile(train_with_progress, prints=False)(np.ones(2), np.int64(1))
    assert capfd.readouterr().out == ""


# --- NumPy scalar types called on runtime values ---------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda x: np.float32(x.sum()), lambda x: np.int64(x[0]) + 1, lambda x: np.float64(x),
    lambda x: np.bool_(x[0] > 0), lambda x: np.float32(x[0]) * 2.0, lambda x: np.int8(x[1])])
def test_numpy_scalar_type_of_a_runtime_value(fn):
    check(fn, np.array([1.5, -2.0]))


def test_updating_a_read_only_argument_is_refused():
    # NumPy raises; the compiled call returned a result and skipped the write.
    a = np.ones(3)
    a.flags.writeable = False
    with pytest.raises(tpucc.errors.SideEffectError, match="read-only"):
        tpucc.compile(axpy)(a, np.ones(3))
    np.testing.assert_array_equal(a, np.ones(3))


SCALE = np.ones(3)


def scaled(x, w=SCALE, *, b=SCALE):
    return x * w + b


def test_array_defaults_are_read_at_every_call():
    # They were folded in as constants: an in-place change was not seen.
    f = tpucc.compile(scaled)
    try:
        np.testing.assert_array_equal(f(np.ones(3)), scaled(np.ones(3)))
        SCALE[0] = 5.0
        np.testing.assert_array_equal(f(np.ones(3)), scaled(np.ones(3)))
    finally:
        SCALE[0] = 1.0


def reversed_count(n):
    r = 0
    for i in reversed(range(n)):
        r = r * 10 + i
    return r


def reversed_stepped(n):
    r = 0
    for i in reversed(range(2, n, 3)):
        r = r * 100 + i
    return r


def reversed_down(n):
    r = 0
    for i in reversed(range(n, -4, -2)):
        r = r * 100 + i + 50
    return r


@pytest.mark.parametrize("fn", [reversed_count, reversed_stepped, reversed_down])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 9])
def test_reversed_range_with_a_runtime_bound(fn, n):
    f = tpucc.compile(fn)
    assert fn(n) == f(np.int64(n))
    assert count_hlo(hlo(f, np.int64(n)), "while") == 1
