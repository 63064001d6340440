"""Ordinary Python + NumPy that compiled wrongly or crashed (a sweep of
boolean masks, lists of runtime values, runtime index checks, integer edge
cases, device_cache and Python structure; session 7), each pinned by a test
against eager NumPy."""
import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo, raises_at, same_each


# --- runtime indices narrower than int64 -------------------------------------------

def read_at(x, i):
    return x[i]


def write_at(x, i):
    x[i] = -1.0
    return x


def take_both(x, i):
    return np.take(x, i), np.take_along_axis(x, i, 0)


@pytest.mark.parametrize("index", [np.int8(-128), np.int8(-100), np.uint8(255),
                                   np.int16(-300), np.array([-128, 127], np.int8)])
def test_narrow_index_into_a_longer_axis(index):
    # int8 -128 into 300 rows read row 0 (the negative index was wrapped by
    # adding 300 in int8); an int8 index array failed with E700/E999.
    x = np.arange(300.0)
    check(read_at, x, index)
    check(write_at, x, index)


def test_narrow_index_array_in_take():
    check(take_both, np.arange(300.0), np.array([-128, 127, 0], np.int8))


def test_narrow_index_out_of_bounds_still_raises():
    with pytest.raises(tpucc.errors.RuntimeIndexError):
        tpucc.compile(read_at)(np.arange(5.0), np.int8(-6))


# --- integer ** negative integer --------------------------------------------------------

def inverse_power(a):
    return a ** -1


def inverse_power_in_place(a):
    a **= -2
    return a


@pytest.mark.parametrize("fn", [inverse_power, inverse_power_in_place])
def test_integer_to_negative_power_is_refused_like_numpy(fn):
    # It failed in lowering with E999 (jax's integer_pow of a negative exponent).
    with pytest.raises(ValueError):
        fn(np.array([1, 2, 3]))
    raises_at(fn, (np.array([1, 2, 3]),), tpucc.errors.UserCodeError,
              match="Integers to negative integer powers", line_of="**")


def test_float_to_negative_integer_power_compiles():
    check(inverse_power, np.array([1.0, 2.0, 4.0], np.float32))


# --- arrays captured from attributes, globals and lists -----------------------------------

import tpucc.nn  # noqa: E402

from conftest import assert_same  # noqa: E402


class Holder:
    pass


def _conv_weights(seed, shape=(4, 3, 3, 3)):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


_X = np.linspace(-1, 1, 2 * 3 * 6 * 6, dtype=np.float32).reshape(2, 3, 6, 6)


@pytest.mark.parametrize("device_cache", [False, True])
def test_one_array_at_two_places_then_rebound_at_one(device_cache):
    # The trace read net.w and net.alias as one input (the same object); after
    # `net.w = new` the call still fed net.w's new array to both reads.
    net = Holder()
    net.w = _conv_weights(0)
    net.alias = net.w

    def f(x):
        return tpucc.nn.conv2d(x, net.w, padding=1), net.alias.sum()

    compiled = tpucc.compile(f, device_cache=device_cache)
    assert_same(f(_X), compiled(_X), 1e-5, 1e-5)
    net.w = _conv_weights(1)
    assert_same(f(_X), compiled(_X), 1e-5, 1e-5)
    net.alias = net.w
    assert_same(f(_X), compiled(_X), 1e-5, 1e-5)


def test_device_cache_sees_the_programs_own_in_place_updates():
    # The write-back changed the weight in place, and the cache (by identity)
    # kept feeding the first call's weight to every later call.
    net, eager = Holder(), Holder()
    net.w = _conv_weights(0)
    eager.w = net.w.copy()

    def step(m, x):
        y = tpucc.nn.conv2d(x, m.w)
        m.w *= 0.5
        return y

    compiled = tpucc.compile(lambda x: step(net, x), device_cache=True)
    for _ in range(3):
        assert_same(step(eager, _X), compiled(_X), 1e-5, 1e-5)
        np.testing.assert_allclose(net.w, eager.w)


def test_device_cache_one_array_in_two_layouts():
    # `layers[1] = layers[0]`: one array read by a convolution only (kept HWIO)
    # and, at another slot, as a plain array; the cache (by identity) gave the
    # HWIO copy to both slots and the call failed with a raw TypeError.
    layers = [_conv_weights(0, (3, 3, 3, 3)), _conv_weights(1, (3, 3, 3, 3))]

    def f(x):
        return tpucc.nn.conv2d(x, layers[0], padding=1), layers[1].sum(axis=(2, 3))

    compiled = tpucc.compile(f, device_cache=True)
    assert_same(f(_X), compiled(_X), 1e-5, 1e-5)
    layers[1] = layers[0]
    assert_same(f(_X), compiled(_X), 1e-5, 1e-5)


def test_updated_captured_array_then_found_at_the_read_place():
    m = Holder()
    m.w, m.a = np.arange(3.0), np.zeros(3)

    def f():
        m.w += 1
        return m.a.sum()

    compiled = tpucc.compile(f)
    assert compiled() == 0.0
    m.a = m.w                   # now one array: the read sees the update, as in NumPy
    assert compiled() == m.w.sum() == 9.0


def test_updated_captured_array_viewed_by_another_is_refused():
    # m.part is a view of m.big; the compiled code read it as a separate
    # array and missed the update (5.0 where NumPy gives 7.0).
    m = Holder()
    m.big = np.arange(6.0)
    m.part = m.big[2:4]

    def f(x):
        m.big += x
        return m.part.sum()

    with pytest.raises(tpucc.errors.SideEffectError, match="shares memory with attribute `.part`"):
        tpucc.compile(f)(1.0)
    np.testing.assert_array_equal(m.big, np.arange(6.0))    # nothing written back


# --- containers across runtime branches and loops ------------------------------------------

def append_runtime_choice(x, n):
    acc = []
    acc.append(x[0] if n > 0 else -x[0])    # `acc.append` is on the stack during the `if`
    return acc


def append_in_static_loop(x, n):
    acc = []
    for i in range(3):
        acc.append(x[i] if n > 0 else -x[i])
    return acc


def append_after_runtime_if(x, n):
    acc = []
    v = x[0] if n > 0 else -x[0]
    acc.append(v)
    return acc


def store_after_runtime_if(x, n):
    d = {"a": 1}
    alias = d
    if n > 0:
        x = x + 1
    alias["x"] = x
    return d


def append_after_runtime_loop(x, n):
    acc = [x]
    alias = acc
    i = 0
    while i < n:
        x = x * 2
        i += 1
    alias.append(x)
    return acc


@pytest.mark.parametrize("fn", [append_runtime_choice, append_in_static_loop,
                                append_after_runtime_if, store_after_runtime_if,
                                append_after_runtime_loop])
@pytest.mark.parametrize("n", [np.int64(2), np.int64(-1)])
def test_container_keeps_its_identity_across_runtime_control_flow(fn, n):
    # A runtime `if` or loop rebuilt every list and dict of the frame as a
    # copy: `acc.append(...)` then went to the old list and `return acc`
    # returned [] (append_runtime_choice), or the copy counted as made
    # outside the function and its mutation was refused.
    check(fn, np.arange(4.0), n)


# --- an object made in the function, its array attribute updated in place -------------------

class Model:
    def __init__(self):
        self.w = np.ones(3)

    def forward(self, x):
        return x * self.w


def scale_in_runtime_loop(x, n):
    m = Model()
    for _ in range(n):
        m.w *= 2
    return m.forward(x), m.w


def scale_in_runtime_if(x, c):
    m = Model()
    if c > 0:
        m.w += 1
    return m.forward(x)


@pytest.mark.parametrize("n", [np.int64(3), np.int64(0)])
def test_in_place_update_of_a_new_objects_attribute_under_runtime_control(n):
    # `m.w *= 2` stores the same array back into `m.w`; that store was
    # refused inside a runtime loop or `if` (E500) as if it rebound `.w`.
    check(scale_in_runtime_loop, np.arange(3.0), n)
    check(scale_in_runtime_if, np.arange(3.0), n)


def rebind_in_runtime_loop(x, n):
    m = Model()
    for _ in range(n):
        m.w = m.w * 2
    return m.forward(x)


@pytest.mark.parametrize("n", [np.int64(2), np.int64(0)])
def test_rebinding_a_new_objects_attribute_in_a_runtime_loop(n):
    # Refused until session 11; now the attribute is a slot the While carries.
    compiled = check(rebind_in_runtime_loop, np.arange(3.0), n)
    assert count_hlo(hlo(compiled, np.arange(3.0), n), "while") == 1


# --- transposed views write through -----------------------------------------------------------

def write_row_of_transpose(x):
    x.T[0] = 1.0
    return x


def update_transposed_name(x):
    y = x.T
    y[0, 1] = 5.0
    y += 1.0
    return x, y


def mask_into_transpose(x):
    x.T[x.T > 4] += 1.0
    return x


def swap_then_write(x):
    y = np.swapaxes(x, 0, 1)
    y[0] += 10.0
    return x, y


def moveaxis_then_write(x):
    y = np.moveaxis(x, 0, -1)
    y[..., 0] = -1.0
    return x


def write_transpose_in_runtime_loop(x, n):
    y = x.T
    for i in range(n):
        y[i] = i
    return x


def transpose_sees_later_writes(x):
    y = x.T
    x[0, 1] = 7.0
    return y


def slice_of_transpose(x):
    y = x[1:].T[1:]
    y[:] = 3.0
    return x


@pytest.mark.parametrize("fn", [write_row_of_transpose, update_transposed_name,
                                mask_into_transpose, swap_then_write, transpose_sees_later_writes,
                                slice_of_transpose])
def test_transpose_is_a_view(fn):
    # x.T, np.transpose, swapaxes and moveaxis were copies: writes into them
    # never reached x, and x's later changes never reached them.
    check(fn, np.arange(6.0).reshape(2, 3))


def test_moveaxis_and_runtime_loop_views():
    check(moveaxis_then_write, np.arange(24.0).reshape(2, 3, 4))
    check(write_transpose_in_runtime_loop, np.zeros((2, 3)), np.int64(3))


# --- a container that differs between runtime paths ---------------------------------------

def append_to_list_chosen_at_runtime(x, n):
    acc = [x, 1]
    if n > 0:
        acc = [x * 2, 2]
    acc.append(3)
    return acc


def test_mutating_a_container_chosen_at_runtime_says_why():
    # It was refused as "a container that exists outside the compiled function".
    raises_at(append_to_list_chosen_at_runtime, (np.arange(3.0), np.int64(1)),
              tpucc.errors.SideEffectError,
              match="different object .* on different paths", line_of="acc.append(3)")


# --- uint64 against int64 and Python ints past int64 ---------------------------------------

_U64 = np.array([0, 1, 2**63, 2**64 - 1], np.uint64)
_I64 = np.array([-1, 1, 5, -2**63], np.int64)


@pytest.mark.parametrize("name", ["greater", "greater_equal", "less", "less_equal", "equal",
                                  "not_equal"])
def test_uint64_compared_with_int64(name):
    # NumPy 2 compares them exactly; lowering failed with E999 (lax needs one dtype).
    op = getattr(np, name)

    def compare(a, b):
        return op(a, b), op(b, a), op(a, b[0]), op(a[1], b)

    check(compare, _U64, _I64)


def uint64_with_big_ints(x):
    return x < 2**63, x + 2**63, x == 2**64 - 1, x * (2**63)


def int64_with_big_ints(x):
    return x < 2**63, x > -2**70, x < 2**70


def test_python_ints_past_int64():
    # 2**63 was made an int64 constant: E999 (OverflowError) in every case.
    check(uint64_with_big_ints, _U64)
    check(int64_with_big_ints, _I64)
    check(int64_with_big_ints, np.array([1, 200], np.uint8))


def times_two_to_the_64(x):
    return x * 2**64


def test_python_int_past_uint64_with_arrays():
    with pytest.raises(OverflowError):
        times_two_to_the_64(np.array([1, 2]))
    raises_at(times_two_to_the_64, (np.array([1, 2]),), tpucc.errors.UserCodeError,
              match="out of bounds for int64", line_of="2**64")
    check(times_two_to_the_64, np.array([1.0, 2.0]))     # converted to float64, as NumPy


# --- a list of runtime integers as an index -------------------------------------------------

def index_with_runtime_list(x, i):
    return x[[i, 0]], x[[i, -1], 0]


def update_with_runtime_list(x, i):
    x[[i, 0]] = 9.0
    x[[i]] += 1.0
    return x


def test_list_of_runtime_ints_is_an_index_array():
    # It was refused with E400 ("converting a traced array to a NumPy array").
    check(index_with_runtime_list, np.arange(12.0).reshape(4, 3), np.int64(-2))
    check(update_with_runtime_list, np.arange(5.0), np.int64(3))
    with pytest.raises(tpucc.errors.RuntimeIndexError):
        tpucc.compile(index_with_runtime_list)(np.arange(12.0).reshape(4, 3), np.int64(4))


# --- a non-finite float stored into an integer array -----------------------------------------

def store_inf(x):
    x[0] = np.inf
    return x


def store_nan_by_mask(x):
    x[x > 1] = np.nan
    return x


@pytest.mark.parametrize("fn, error", [(store_inf, OverflowError), (store_nan_by_mask, ValueError)])
def test_non_finite_into_integer_array_is_refused_like_numpy(fn, error):
    # It stored INT64_MIN (or 0) silently.
    with pytest.raises(error):
        fn(np.arange(3))
    raises_at(fn, (np.arange(3),), tpucc.errors.UserCodeError, match="cannot convert float",
              line_of="= np.")
    check(fn, np.arange(3.0))


# --- the message of an object that differs between loop iterations --------------------------

from dataclasses import dataclass  # noqa: E402


@dataclass
class State:
    x: np.ndarray

    def step(self):
        return State(self.x * 0.5)


def carry_state_in_runtime_loop(x, n):
    s = State(x)
    for _ in range(n):
        s = s.step()
    return s.x


def test_object_carried_by_a_runtime_loop():
    # (refused until session 49, with a message that once printed the
    # interpreter's arrays: the program made `s` and holds it alone, so a
    # runtime loop carries it attribute by attribute: 49P)
    same_each(carry_state_in_runtime_loop, (np.arange(4.0), np.int64(2)),
              (np.arange(4.0), np.int64(0)))
