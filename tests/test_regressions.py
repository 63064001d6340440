"""Bugs found by review, the fuzzer or the AOT work, each pinned by a test."""
import dataclasses
import functools

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


def two_keywords(x, a=None, b=None):
    return x + a.sum() * 2 + b.sum()


def test_keyword_arrays_passed_out_of_order():
    # Call-time leaves are collected in sorted keyword order; tracing must bind
    # them the same way (this once silently swapped a and b).
    a, b = np.full(2, 10.0), np.full(2, 3.0)
    check(two_keywords, np.ones(2), b=b, a=a)
    check(two_keywords, np.ones(2), a=a, b=b)


def loop_reads_arguments(w, x, n):
    i = 0
    while i < n:
        x = np.tanh(x @ w)
        i += 1
    return x


def test_loop_invariant_arguments_are_not_written_back():
    f = check(loop_reads_arguments, np.eye(2), np.ones((1, 2)), np.int64(3))
    traced = f.lower(np.eye(2), np.ones((1, 2)), np.int64(3)).traced
    assert traced.writebacks == []


class HoldsContainers:
    def __init__(self):
        self.params = {"w": np.ones(3)}
        self.layers = [np.ones(3), (np.full(3, 2.0), 1)]


HELD = HoldsContainers()


def reads_container_items(x):
    total = x * HELD.params["w"] + HELD.layers[0]
    for w in HELD.params.values():
        total = total + w
    for k, w in HELD.params.items():
        total = total + w
    arr, _ = HELD.layers[1]
    return total + arr


def test_arrays_in_outside_containers_are_runtime_inputs():
    # They were once baked in as constants: later changes went unseen.
    f = tpucc.compile(reads_container_items)
    np.testing.assert_array_equal(f(np.ones(3)), reads_container_items(np.ones(3)))
    HELD.params["w"][:] = 5.0                   # in place
    HELD.layers[0] = np.full(3, 7.0)            # rebound
    np.testing.assert_array_equal(f(np.ones(3)), reads_container_items(np.ones(3)))
    assert "const" not in f.lower(np.ones(3)).ir().split("params", 1)[1].split("(")[0]
    assert len(f.lower(np.ones(3)).traced.captured) == 3


class Switch:
    scale = 2.0

    def __init__(self):
        self.training = True

    def apply(self, x):
        return x * self.scale if self.training else x - 1


SWITCH = Switch()


def test_changed_static_attributes_recompile():
    # Static attributes were not guarded: the first executable kept running.
    f = tpucc.compile(lambda x: SWITCH.apply(x))
    x = np.ones(2)
    np.testing.assert_array_equal(f(x), [2.0, 2.0])
    SWITCH.training = False                     # an instance attribute
    np.testing.assert_array_equal(f(x), [0.0, 0.0])
    SWITCH.training, Switch.scale = True, 3.0   # a class attribute
    np.testing.assert_array_equal(f(x), [3.0, 3.0])
    g = tpucc.compile(lambda s, x: s.apply(x))  # the object as an argument
    np.testing.assert_array_equal(g(SWITCH, x), [3.0, 3.0])
    SWITCH.training = False
    np.testing.assert_array_equal(g(SWITCH, x), [0.0, 0.0])
    SWITCH.training, Switch.scale = True, 2.0


def halve_until_small(x0, n):
    x, steps = x0, 0                # `x` starts as the argument itself
    while steps < n and np.abs(x).max() > 0.1:
        x = x * 0.5                 # ... and is rebound, never updated in place
        steps += 1
    return x, steps


def test_rebound_alias_of_an_argument_is_not_written_back():
    f = check(halve_until_small, np.ones(2), 10)
    assert f.lower(np.ones(2), 10).traced.writebacks == []


CONFIG = {"k": 3}
SCALES = [2, 5]


def scaled(x):
    return x * CONFIG["k"] + SCALES[1]


def test_changed_static_items_of_outside_containers_recompile():
    f = tpucc.compile(scaled)
    x = np.ones(2)
    np.testing.assert_array_equal(f(x), scaled(x))
    CONFIG["k"], SCALES[1] = 7, 9
    np.testing.assert_array_equal(f(x), scaled(x))
    CONFIG["k"], SCALES[1] = 3, 5


def test_lower_then_compile_serves_the_next_call():
    # The staged API used to leave the executable out of the function's cache:
    # f.lower(x).compile() and then f(x) ran XLA twice.
    f = tpucc.compile(lambda x: x * 2)
    f.lower(np.ones(3)).compile()
    (entry,) = f._cache.values()
    np.testing.assert_array_equal(f(np.ones(3)), [2.0, 2.0, 2.0])
    (after,) = f._cache.values()
    assert after is entry


def counted(fn):
    """A decorator in the usual style: functools.wraps makes inspect.signature
    report `fn`'s parameters, but the wrapper's code binds (*args, **kwargs)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1
    return wrapper


@counted
def scaled_by(x, y=2.0, *, shift=0.0):
    return x * y + shift


def calls_wrapped(x):
    return scaled_by(x), scaled_by(x, 3.0), scaled_by(x, y=4.0, shift=1.0)


def test_functools_wraps_decorated_calls():
    # Binding once followed __wrapped__ and named the wrapper's locals after
    # the wrapped parameters: `args` was then undefined (E300).
    check(calls_wrapped, np.arange(3.0))


def defaults_and_positionals(x, a=1.0, b=None, *rest):
    return x * a + (0 if b is None else b) + sum(rest)


def test_positional_binding_with_defaults_and_varargs():
    def prog(x):
        return (defaults_and_positionals(x), defaults_and_positionals(x, 2.0),
                defaults_and_positionals(x, 2.0, x, 5.0, 6.0))
    check(prog, np.arange(4.0))


@dataclasses.dataclass
class DenseLayer:
    """A dataclass with eq=True: unhashable, which once made every call of
    it fail with "unhashable type" (E700) while tpucc looked it up."""
    w: np.ndarray
    b: np.ndarray
    relu: bool = True

    def __call__(self, x):
        y = x @ self.w + self.b
        return np.maximum(y, 0) if self.relu else y


@dataclasses.dataclass
class Stack:
    layers: list = dataclasses.field(default_factory=list)

    def step(self, x, lr):
        def loss(layers):
            h = x
            for layer in layers:
                h = layer(h)
            return (h ** 2).sum()
        grads = tpucc.grad(loss)(self.layers)
        for layer, g in zip(self.layers, grads):
            layer.w -= lr * g.w
        return loss(self.layers)


def dataclass_stack(seed=0):
    rng = np.random.default_rng(seed)
    return Stack([DenseLayer(rng.standard_normal((4, 8)), rng.standard_normal(8)),
                  DenseLayer(rng.standard_normal((8, 2)), np.zeros(2), relu=False)])


def test_dataclass_layers_called_and_differentiated():
    x = np.random.default_rng(1).standard_normal((3, 4))
    check(lambda w, b, x: DenseLayer(w, b)(x), np.ones((4, 2)), np.arange(2.0), x)
    eager, model = dataclass_stack(), dataclass_stack()
    forward = tpucc.compile(lambda x: model.layers[1](model.layers[0](x)))
    np.testing.assert_allclose(forward(x), eager.layers[1](eager.layers[0](x)), rtol=1e-12)
    step = tpucc.compile(model.step)
    for _ in range(2):
        np.testing.assert_allclose(step(x, 0.01), eager.step(x, 0.01), rtol=1e-12)
        for mine, theirs in zip(model.layers, eager.layers):
            np.testing.assert_allclose(mine.w, theirs.w, rtol=1e-12)


def heads(x, n):
    rows, cols = x.shape                    # cell variables: the generator reads them
    return sum(x[:, k * (cols // n):(k + 1) * (cols // n)].reshape(rows, -1).sum() * k
               for k in range(n))


def loss_through_a_helper_with_cells(w, x):
    return heads(np.tanh(x @ w), 2)


def test_cells_of_a_frame_inside_grad_and_runtime_branches():
    # Stores to a frame's own cell variables (names its comprehensions read)
    # were refused inside tpucc.grad and runtime branches as "mutating a
    # closure variable", although the cells are made by that very call.
    def step(w, x):
        value, grad = tpucc.value_and_grad(loss_through_a_helper_with_cells)(w, x)
        extra = heads(x, 2) if x.sum() > 0 else heads(-x, 2)
        return value, grad, extra
    rng = np.random.default_rng(0)
    check(step, rng.standard_normal((4, 4)), rng.standard_normal((3, 4)))


def row_view_updated(y, i):
    row = y[i]                  # a runtime integer scalar: basic indexing, a view
    row += 1
    part = y[i, 1:]             # mixed with a slice
    part *= 2
    return y, row


def rows_doubled_in_a_runtime_loop(y, n):
    for i in range(n):
        row = y[i]
        row *= 2
        y[i][0] -= 1            # a view of the view, updated in place
    return y


def view_made_before_a_runtime_loop(y, i, n):
    row = y[i]
    k = 0
    while k < n:
        row += k
        k += 1
    if y.sum() > 0:
        row[0] = -1.0
    return y


def zero_d_array_index_copies(y):
    i = np.array(1)             # a 0-d array index is advanced indexing: a copy
    row = y[i]
    row += 100
    return y, row


@pytest.mark.parametrize("fn,args", [
    (row_view_updated, (np.int64(1),)),
    (rows_doubled_in_a_runtime_loop, (2,)),
    (view_made_before_a_runtime_loop, (np.int64(2), 3)),
    (zero_d_array_index_copies, ()),
])
def test_views_made_with_runtime_integer_scalars_write_through(fn, args):
    # `row = y[i]` with a runtime i was a copy: updates through it were lost.
    y = np.arange(12.0).reshape(4, 3)
    check(fn, y, *args, compile_kwargs={"runtime_args": ("n",)})


def index_kind_from_a_branch(y):
    if y.sum() > 0:
        i = np.int64(1)             # a NumPy scalar: y[i] is a view
    else:
        i = np.array(2)             # a 0-d array: y[i] is a copy
    row = y[i]
    row += 1
    return y


def test_view_or_copy_decided_at_runtime_refuses_in_place_updates():
    raises_at(index_kind_from_a_branch, (np.ones((3, 2)),), tpucc.errors.SideEffectError,
              line_of="row += 1")


def reads_past_the_end_with_a_list(x):
    return x[[0, 5]]


def writes_past_the_end_with_a_list(x):
    x[[1, -4]] = 0.0
    return x


@pytest.mark.parametrize("fn,line,index", [(reads_past_the_end_with_a_list, "x[[0, 5]]", 5),
                                           (writes_past_the_end_with_a_list, "x[[1, -4]]", -4)])
def test_static_index_lists_are_bounds_checked(fn, line, index):
    # They were clamped silently; NumPy raises IndexError (a UserCodeError holding one).
    err = raises_at(fn, (np.arange(3.0),), tpucc.errors.UserCodeError, line_of=line)
    assert f"index {index} is out of bounds for axis 0 with size 3" in err.message


def non_ufuncs_of_a_runtime_python_int(x, n):
    k = 0
    acc = np.zeros(3)
    while k < n + 1:                # k: a runtime Python int after promotion
        k += 1
        acc = acc + np.outer(x, k)[:, 0] + np.dot(x, k) + np.stack([x[0], k])[1]
    return acc


def test_non_ufuncs_treat_a_runtime_python_int_as_int64():
    # np.outer/dot/stack convert a Python int with np.asarray (int64, not
    # weak): float32 x int gives float64.  With k a runtime value tpucc kept
    # it weak, and the loop's iterations disagreed on the dtype (fuzz 43397).
    check(non_ufuncs_of_a_runtime_python_int, np.array([-0.25, -0.25, 0.75], np.float32),
          np.array(2))
