"""Bugs found by session 24's adversarial sweeps (realistic programs; gradients
and nn): each program now gives eager Python's result, or a refusal that
names the line and says what to do."""
import dataclasses
import itertools
import random
import time

import numpy as np
import pytest

import tpucc
from tpucc import nn
from conftest import check, count_hlo, hlo, raises_at


# --- tpucc.grad called eagerly: one compiled gradient per callable object ----------

class Power:
    def __init__(self, name, k):
        self.name, self.k = name, k

    def __eq__(self, other):                # equal by name only
        return isinstance(other, Power) and other.name == self.name

    def __hash__(self):
        return hash(self.name)

    def __call__(self, w):
        return (w ** self.k).sum()


@dataclasses.dataclass(frozen=True)
class Scaled:
    name: str
    scale: float = dataclasses.field(compare=False, default=1.0)

    def __call__(self, w):
        return (w * w).sum() * self.scale


def test_equal_but_different_callables_get_their_own_gradients():
    w = np.array([1.0, 2.0])
    np.testing.assert_allclose(tpucc.grad(Power("p", 2))(w), 2 * w)
    np.testing.assert_allclose(tpucc.grad(Power("p", 3))(w), 3 * w ** 2)
    np.testing.assert_allclose(tpucc.grad(Scaled("mse", 2.0))(w), 4 * w)
    np.testing.assert_allclose(tpucc.value_and_grad(Scaled("mse", 3.0))(w)[1], 6 * w)


def test_a_bound_method_made_anew_at_each_access_reuses_its_gradient(builds):
    class Model:
        def loss(self, w):
            return (w * w).sum()
    model, w = Model(), np.ones(3)
    for _ in range(3):
        tpucc.grad(model.loss)(w)
    assert builds == [1]


@pytest.mark.parametrize("make", [
    lambda: tpucc.grad(lambda x: x.sum(), argnums="0"),
    lambda: tpucc.grad(lambda x: x.sum(), argnums=1.5),
    lambda: tpucc.grad(lambda x: x.sum(), argnums=(0, True)),
    lambda: tpucc.value_and_grad(lambda x: x.sum(), hax_aux=True),
    lambda: tpucc.grad(3),
])
def test_bad_grad_options_are_option_errors(make):
    with pytest.raises(tpucc.OptionError, match=r"E050.*tpucc\.(value_and_)?grad"):
        make()


def test_value_and_grad_keeps_a_python_float_loss_a_python_float():
    f = lambda x: float((x ** 2).sum())  # noqa: E731
    value, g = tpucc.value_and_grad(f)(np.ones(2))
    assert type(value) is float and value == 2.0
    np.testing.assert_allclose(g, [2.0, 2.0])


# --- nn: runtime window arguments, complex average pooling ------------------------

def pool_by_runtime_size(x, k):
    return nn.max_pool2d(x, k)


def conv_by_runtime_stride(x, k):
    return nn.conv2d(x, np.ones((1, 1, 3, 3)), stride=k)


@pytest.mark.parametrize("program, marker", [(pool_by_runtime_size, "max_pool2d"),
                                             (conv_by_runtime_stride, "conv2d")])
def test_a_runtime_window_argument_is_a_static_value_error(program, marker):
    x = np.arange(36.0).reshape(1, 1, 6, 6)
    raises_at(program, (x, np.int64(2)), tpucc.StaticValueError,
              match="runtime value.*known at compile time", line_of=marker)


@pytest.mark.parametrize("kw", [{}, {"padding": 1}, {"padding": 1, "count_include_pad": False},
                                {"stride": 1}])
def test_average_pooling_of_complex_arrays_compiles(kw):
    x = (np.arange(36.0).reshape(1, 1, 6, 6) * (1 + 0.5j)).astype(np.complex64)
    check(lambda x: nn.avg_pool2d(x, 2, **kw), x)


def test_max_pooling_of_complex_arrays_is_refused():
    x = np.ones((1, 1, 4, 4), np.complex64)
    raises_at(lambda x: nn.max_pool2d(x, 2), (x,), tpucc.DTypeError, match="complex")


# --- np.multiply.at under tpucc.grad ------------------------------------------------

def scaled_at(x):
    y = np.ones(4)
    np.multiply.at(y, [1, 2], x)        # static indices, each element once
    return (y * np.arange(4.0)).sum()


def scaled_twice_at(x):
    y = np.ones(4)
    np.multiply.at(y, [1, 1], x)
    return (y * np.arange(4.0)).sum()


def test_multiply_at_with_static_unique_indices_has_a_gradient():
    x = np.array([2.0, 3.0])
    np.testing.assert_allclose(tpucc.grad(scaled_at)(x), [1.0, 2.0])
    check(scaled_at, x)


def test_multiply_at_hitting_an_element_twice_names_the_way_out():
    err = raises_at(tpucc.grad(scaled_twice_at), (np.array([2.0, 3.0]),), tpucc.GradError,
                    line_of="np.multiply.at")
    assert "reach each element once" in err.hint
    check(scaled_twice_at, np.array([2.0, 3.0]))        # compiled without grad: NumPy's value


# --- clocks and the random module are not folded into constants ---------------------

def noisy(x):
    return x + random.random()


def timed(x):
    t0 = time.perf_counter()
    return (x * 2).sum(), time.perf_counter() - t0


RNG = random.Random(0)


def jittered(x):
    return x + RNG.gauss(0.0, 1.0)


@pytest.mark.parametrize("program, marker", [(noisy, "random.random()"),
                                             (timed, "t0 = time.perf_counter()"),
                                             (jittered, "RNG.gauss")])
def test_clocks_and_random_numbers_are_refused_not_folded(program, marker):
    raises_at(program, (np.zeros(2),), tpucc.UnsupportedError,
              match="evaluated once, at compile time", line_of=marker)


# --- clearer refusals ----------------------------------------------------------------

def test_extended_precision_is_a_dtype_error_at_the_line():
    def widen(x):
        return x.astype(np.longdouble).sum()
    raises_at(widen, (np.ones(3),), tpucc.DTypeError, match="at most 64 bits",
              line_of="astype")


def test_itertools_product_of_a_runtime_range_is_a_static_value_error():
    def pair_sum(x, n):
        s = 0.0
        for i, j in itertools.product(range(n), range(2)):
            s += x[i] * x[j]
        return s
    raises_at(pair_sum, (np.arange(8.0), np.int64(3)), tpucc.StaticValueError,
              match="range with a runtime length", line_of="itertools.product")


def test_an_error_inside_numpys_own_python_is_placed_at_the_users_line():
    def doubled(x):
        out = np.zeros_like(x)
        for idx, v in np.ndenumerate(x):
            out[idx] = v * 2
        return out
    # (session 27: np.ndenumerate of a runtime array compiles)
    check(doubled, np.arange(6.0).reshape(2, 3))


def diffuse_in_place(u, n):
    cur, nxt = u.copy(), np.zeros_like(u)
    for _ in range(n):
        nxt[1:-1] = cur[1:-1] + 0.2 * (cur[:-2] - 2 * cur[1:-1] + cur[2:])
        cur, nxt = nxt, cur
    return cur


def diffuse_into(u, out, n):
    cur, nxt = u.copy(), out        # the first step writes into the caller's `out`
    for _ in range(n):
        nxt[1:-1] = cur[1:-1] + 0.2 * (cur[:-2] - 2 * cur[1:-1] + cur[2:])
        cur, nxt = nxt, cur
    return cur


def diffuse_as_hinted(u, out, n):
    cur, nxt = u.copy(), out
    nxt = nxt.copy()
    for _ in range(n):
        nxt[1:-1] = cur[1:-1] + 0.2 * (cur[:-2] - 2 * cur[1:-1] + cur[2:])
        cur, nxt = nxt, cur
    return cur


def test_a_swapped_double_buffer_of_its_own_arrays_is_one_runtime_while():
    """Each buffer is reached by one variable only (infer/privacy.py): the
    update in place, then the swap, is exact when carried as values."""
    u = np.zeros(20)
    u[0] = 1.0
    for n in (0, 1, 7):
        compiled = check(diffuse_in_place, u, np.int64(n))
    assert count_hlo(hlo(compiled, u, np.int64(7)), "while") == 1


def test_a_swapped_double_buffer_in_a_runtime_loop_has_a_hint_that_works():
    u = np.zeros(20)
    u[0] = 1.0
    err = raises_at(diffuse_into, (u, np.zeros(20), np.int64(7)), tpucc.SideEffectError,
                    line_of="for _ in range(n)")
    assert "nxt = nxt.copy()" in err.hint
    compiled = check(diffuse_as_hinted, u, np.zeros(20), np.int64(7))
    assert count_hlo(hlo(compiled, u, np.zeros(20), np.int64(7)), "while") == 1


def test_a_message_value_computed_inside_the_raising_branch_says_to_move_it():
    def inside(x, y):
        if (y == 0).any():
            idx = np.argmax(y == 0)
            raise ValueError(f"zero divisor at {idx}")
        return x / y
    with pytest.raises(tpucc.TpuccError) as info:
        tpucc.compile(inside)(np.ones(3), np.array([1.0, 0.0, 3.0]))
    assert "before the `if`" in info.value.hint


# --- min/max with a key on runtime values; objects made on two runtime paths ----------

def extremes_by_key(x):
    return (max(x, key=lambda v: -v), min([x[0], x[1] * 2, x[2] - 1], key=abs),
            max(x[0], x[1], key=lambda v: v * v), max([1, 2, 3], key=lambda k: -k))


def test_min_and_max_with_a_key_compare_runtime_keys():
    check(extremes_by_key, np.array([3.0, -4.0, 2.0]))
    check(extremes_by_key, np.array([-3.0, 1.0, 2.5]))


def test_max_of_static_items_by_runtime_keys_is_a_choice():
    # (was refused, E400 naming np.argmax: a runtime choice among the strings now,
    # test_fixes_session48N3)
    def pick(x):
        return max(["a", "b"], key=lambda s: x[0] if s == "a" else x[1])
    check(pick, np.ones(2))
    check(pick, np.array([1.0, 2.0]))


class Vec:
    def __init__(self, a):
        self.a = a


def test_objects_made_on_each_runtime_path_are_merged_by_attribute():
    # (refused until session 48X4: value objects held by one variable only
    # merge attribute by attribute; tests/test_fixes_session48X4.py)
    def f(x):
        if x.sum() > 1:
            v = Vec(x)
        else:
            v = Vec(-x)
        return v.a
    check(f, np.arange(3.0))
    check(f, np.zeros(3))


def test_objects_another_name_holds_say_how_to_merge_them():
    def f(x):
        v = Vec(x)
        kept = [v]
        if x.sum() > 1:
            v = Vec(-x)
        return v.a, kept[0].a
    err = raises_at(f, (np.arange(3.0),), tpucc.MergeError, match="a Vec object and a Vec object")
    assert "make one of its own before the `if`" in err.hint
