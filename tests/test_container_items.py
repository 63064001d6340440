"""Items of lists and dicts rebound inside runtime `if`s and loops
(`hs[0] = f(hs[0])`, `params["w"] = params["w"] - lr * g`): the container
stays the same object, its items are merged by a Conditional or carried by
a While like variables."""
import numpy as np

import tpucc
from conftest import check, count_hlo, hlo, raises_at


def rebinds_items_in_branches(x):
    hs = [x[0], x[1]]
    d = {"total": x.sum(), "flag": 0}
    alias = hs
    if x.sum() > 10:
        hs[0] = hs[0] * 2
        d["flag"] = 1
    else:
        hs[1] = -hs[1]
    return hs, d, alias is hs, alias[1]


def test_items_rebound_in_the_arms_of_a_runtime_if():
    x = np.arange(6.0).reshape(2, 3)
    for arg in (x, -x):
        compiled = check(rebinds_items_in_branches, arg)
    assert count_hlo(hlo(compiled, x), "conditional") >= 1


def decays_a_dict(x, n):
    p = {"w": np.ones(4, np.float32), "steps": 0}
    for i in range(n):
        p["w"] = p["w"] * np.float32(0.5) + x[i % 3]
        p["steps"] = p["steps"] + 1
    return p


def test_dict_items_carried_by_a_runtime_range():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    step = tpucc.compile(decays_a_dict, runtime_args=("n",))
    for n in (0, 1, 5):
        got, want = step(x, n), decays_a_dict(x, n)
        np.testing.assert_allclose(got["w"], want["w"], rtol=1e-6)
        assert got["steps"] == want["steps"]
    assert count_hlo(hlo(step, x, 3), "while") == 1


def recurrent_list(x, n):
    hs = [np.zeros(4, np.float32), np.zeros(4, np.float32)]
    alias = hs
    for i in range(n):
        hs[0] = hs[0] + x[i % 3]
        hs[1] = np.tanh(hs[0] / 10)
    return hs, alias is hs, alias[1]


def test_list_items_carried_and_the_list_stays_one_object():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    step = tpucc.compile(recurrent_list, runtime_args=("n",))
    for n in (0, 4):
        (h0, h1), same, through_alias = step(x, n)
        (e0, e1), eager_same, eager_alias = recurrent_list(x, n)
        np.testing.assert_allclose(h0, e0, rtol=1e-6)
        np.testing.assert_allclose(h1, e1, rtol=1e-6)
        np.testing.assert_allclose(through_alias, eager_alias, rtol=1e-6)
        assert same and eager_same


def nested_state(x):
    state = {"h": [x[0], x[1]], "k": 0}
    while state["h"][0].sum() < 100:          # runtime condition
        state["h"][0] = state["h"][0] * 2 + 1
        state["k"] += 1
    return state


def test_nested_container_items_in_a_runtime_while():
    compiled = check(nested_state, np.arange(8.0).reshape(2, 4))
    check(nested_state, np.full((2, 4), 50.0))
    assert count_hlo(hlo(compiled, np.ones((2, 4))), "while") == 1


def loss(params, x, y):
    h = np.tanh(x @ params["w1"])
    return np.mean((h @ params["w2"] - y) ** 2)


def trains_until_small(x, y, w1, w2, lr):
    params = {"w1": w1, "w2": w2}
    value, steps = loss(params, x, y), 0
    while value > 0.05 and steps < 200:       # trained until a runtime threshold
        grads = tpucc.grad(loss)(params, x, y)
        for k in params:
            params[k] = params[k] - lr * grads[k]
        value, steps = loss(params, x, y), steps + 1
    return params, value, steps


def numpy_trains_until_small(x, y, w1, w2, lr):
    """The same loop with hand-written gradients (eager NumPy has no grad)."""
    params = {"w1": w1, "w2": w2}
    value, steps = loss(params, x, y), 0
    while value > 0.05 and steps < 200:
        h = np.tanh(x @ params["w1"])
        d_out = 2 * (h @ params["w2"] - y) / y.size
        grads = {"w2": h.T @ d_out, "w1": x.T @ ((d_out @ params["w2"].T) * (1 - h ** 2))}
        for k in params:
            params[k] = params[k] - lr * grads[k]
        value, steps = loss(params, x, y), steps + 1
    return params, value, steps


def test_a_params_dict_trained_in_a_runtime_loop():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((16, 3))
    y = np.sin(x.sum(axis=1, keepdims=True))
    w1, w2 = rng.standard_normal((3, 8)) * 0.5, rng.standard_normal((8, 1)) * 0.5
    step = tpucc.compile(trains_until_small, runtime_args=("lr",))
    params, value, steps = step(x, y, w1, w2, 0.1)
    want_params, want_value, want_steps = numpy_trains_until_small(x, y, w1, w2, 0.1)
    assert steps == want_steps and 0 < steps <= 200
    np.testing.assert_allclose(value, want_value, rtol=1e-9)
    for k in params:
        np.testing.assert_allclose(params[k], want_params[k], rtol=1e-9)
    assert count_hlo(hlo(step, x, y, w1, w2, 0.1), "while") == 1


class Holder:
    def __init__(self, items):
        self.items = items


def item_of_a_container_only_an_object_holds(x):
    holder = Holder([x[0]])
    while x.sum() > 0:
        holder.items[0] = holder.items[0] + 1       # no variable holds the list itself
        x = x - 1
    return holder.items[0]


def test_item_of_a_list_only_an_object_holds_is_carried_on_its_own():
    compiled = check(item_of_a_container_only_an_object_holds, np.array([1.0, 2.0]))
    assert count_hlo(hlo(compiled, np.ones(2)), "while") == 1


def rebinds_an_item_or_the_list(x):
    hs = [x]
    if x.sum() > 0:
        hs[0] = x * 2
    else:
        hs = [x * 3]
    return hs


def test_an_item_rebound_on_one_path_and_the_list_on_another_is_refused():
    raises_at(rebinds_an_item_or_the_list, (np.ones(3),), tpucc.errors.SideEffectError,
              match="has an item rebound", line_of="hs[0] = x * 2")


def appends_in_a_runtime_loop(x):
    hs = [x]
    while x.sum() > 0:
        hs.append(x)
        x = x - 1
    return hs


def adds_a_key_in_a_runtime_if(x):
    d = {"a": x}
    if x.sum() > 0:
        d["b"] = x
    return d


def test_changing_the_structure_stays_refused():
    raises_at(appends_in_a_runtime_loop, (np.ones(3),), tpucc.errors.SideEffectError,
              match="mutating a container inside a runtime", line_of="hs.append(x)")
    raises_at(adds_a_key_in_a_runtime_if, (np.ones(3),), tpucc.errors.SideEffectError,
              match="mutating a container inside a runtime", line_of='d["b"] = x')


def discarded_iteration(x):
    counts = [0]
    while True:                     # the first iteration is interpreted, then discarded
        counts[0] = counts[0] + 1   # for a While: its write must not stay
        x = x - 1
        if x.sum() < 0:
            break
    return counts[0], x


def test_a_discarded_unrolled_iteration_leaves_no_item_write():
    compiled = check(discarded_iteration, np.array([2.0, 3.0]))
    assert count_hlo(hlo(compiled, np.ones(2)), "while") == 1


class RNN:
    """A stateful module from outside the compiled code: `self.h` is
    rebound at every step."""
    def __init__(self):
        self.w = np.eye(3) * 0.5
        self.h = np.zeros(3)

    def step(self, x):
        self.h = np.tanh(self.w @ self.h + x)


def run_rnn(rnn, xs, n):
    for t in range(n):          # runtime length
        rnn.step(xs[t % xs.shape[0]])
    if xs.sum() > 100:          # and a runtime branch
        rnn.h = rnn.h * 0
    return rnn.h.sum()


def test_an_outside_objects_attribute_rebound_in_runtime_loops_and_branches():
    xs = np.arange(12.0).reshape(4, 3) / 10
    step = tpucc.compile(run_rnn, runtime_args=("n",))
    for n in (0, 3, 6):
        compiled_rnn, eager_rnn = RNN(), RNN()
        np.testing.assert_allclose(step(compiled_rnn, xs, n), run_rnn(eager_rnn, xs, n),
                                   rtol=1e-12)
        np.testing.assert_allclose(compiled_rnn.h, eager_rnn.h, rtol=1e-12)   # written back
    text = hlo(step, RNN(), xs, 3)
    assert count_hlo(text, "while") == 1 and count_hlo(text, "conditional") >= 1


class Counter:
    def __init__(self, x):
        self.total = x * 0
        self.k = 0


def counts_in_an_object(x):
    c = Counter(x)              # made by the compiled code
    while c.total.sum() < 50:
        c.total = c.total + x
        c.k = c.k + 1           # a Python int, carried as a runtime number
    if x[0] > 1:
        c.k = c.k * 10
    return c.total, c.k


def test_attributes_of_an_object_made_inside_in_runtime_loops_and_branches():
    for x in (np.array([1.0, 2.0]), np.array([3.0, 4.0])):
        compiled = check(counts_in_an_object, x)
    assert count_hlo(hlo(compiled, np.ones(2)), "while") == 1


def updates_an_attribute_in_place_after_a_loop_rebinds_it(x):
    c = Counter(x)
    c.total = x.copy()
    before = c.total                # the same array, when the loop does not run
    while x.sum() > 100:
        c.total = c.total * 2
        x = x - 1
    c.total += 1                    # would have to update `before` too on that path
    return before, c.total


def test_an_in_place_update_of_an_attribute_whose_identity_depends_on_the_loop_is_refused():
    raises_at(updates_an_attribute_in_place_after_a_loop_rebinds_it, (np.ones(2),),
              tpucc.errors.SideEffectError, match="identity depends on a runtime condition",
              line_of="c.total += 1")


def attribute_bound_to_an_argument_in_a_loop(x, n):
    c = Counter(x)
    c.total = x * 2
    for _ in range(n):
        c.total = x                 # after the loop: `x` itself, or not (n == 0)
    x[::2] = 7.0                    # NumPy: c.total sees this when the loop ran
    return c.total


def test_an_attribute_that_may_be_an_outer_array_after_a_loop_refuses_its_updates():
    # Fuzz seed 70206: the update of `x` was missing from `c.total`.
    raises_at(attribute_bound_to_an_argument_in_a_loop, (np.ones(3), np.int64(2)),
              tpucc.errors.SideEffectError, match="identity depends on a runtime condition",
              line_of="x[::2] = 7.0")


class Weights:
    def __init__(self):
        self.w = np.ones(3)


def alias_updated_while_the_attribute_is_read(m, n):
    w = m.w
    acc = 0.0
    for _ in range(n):
        w *= 1.5                    # updates m.w too (one array) ...
        acc = acc + m.w.sum()       # ... which the loop reads by the other name
    return acc


def alias_and_attribute_only_read(m, n):
    w = m.w
    acc = 0.0
    for _ in range(n):
        acc = acc + w.sum() + m.w.sum()
    return acc


def test_an_array_a_loop_changes_by_one_name_and_reads_by_another():
    # Was a silent wrong result (9.0 instead of 21.375): the loop carried `w`
    # while `m.w` kept reading the array as it was before the loop.
    raises_at(alias_updated_while_the_attribute_is_read, (Weights(), np.int64(3)),
              tpucc.errors.SideEffectError, match="whose array it also reaches by another name",
              line_of="for _ in range(n)")
    step = tpucc.compile(alias_and_attribute_only_read, runtime_args=("n",))
    assert step(Weights(), 3) == alias_and_attribute_only_read(Weights(), 3) == 18.0
