"""Fixes of session 35's sweep (35g): in-place operators that rebind an
attribute to the object it holds, context-manager methods, a frozen
TrainState holding a dict, and refusals that blamed the wrong line or
gave a hint that could not be followed."""
from __future__ import annotations

import contextlib
import dataclasses

import numpy as np

import tpucc

from conftest import check, raises_at


# --- `self.hist += [v]` is an extend of an outside list ---------------------------------------

class Hist:
    def __init__(self):
        self.hist = []


def log_by_iadd(m, x):
    m.hist += [float(x.sum())]
    return x * 2


def test_list_iadd_on_an_attribute_appends_after_each_call():
    # (refused: "mutating a list that exists outside the compiled function")
    me, mc = Hist(), Hist()
    f = tpucc.compile(log_by_iadd)
    for k in range(3):
        x = np.arange(2.0) + k
        np.testing.assert_array_equal(f(mc, x), log_by_iadd(me, x))
    assert mc.hist == me.hist == [1.0, 3.0, 5.0]
    assert all(type(v) is float for v in mc.hist)


# --- `self.pos += v` with an __iadd__ that returns self -----------------------------------------

class Vec:
    def __init__(self, x):
        self.x = x

    def __iadd__(self, o):
        self.x += o
        return self


class Body:
    def __init__(self):
        self.pos = Vec(0.0)


def move(b):
    b.pos += 1.0
    return b.pos.x


def move_n(b, n):
    for _ in range(n):
        b.pos += 1.0
    return b.pos.x


def test_iadd_returning_self_rebinds_an_attribute_to_the_object_it_holds():
    # (refused outside loops: "assigning a Python value to `.pos` ... only once";
    # in a runtime loop: "assigning `.x` of Vec objects ... needs its value at compile time")
    for fn, args in ((move, ()), (move_n, (np.int64(3),))):
        be, bc = Body(), Body()
        f = tpucc.compile(fn)
        for _ in range(2):
            assert float(f(bc, *args)) == float(fn(be, *args))
        assert bc.pos.x == be.pos.x


# --- a runtime loop that counts and appends: the append is what is refused -----------------------

LOG = []


class Counted:
    def __init__(self):
        self.w = np.ones(3)
        self.t = 0


def count_and_log(m, n):
    for _ in range(n):
        m.t += 1
        LOG.append(1.0)
    return m.w


def test_refused_append_in_a_counting_loop_is_blamed_not_the_counter():
    # (it said "assigning `.t` of Counted objects inside a runtime `if` or loop is
    # not supported while the compiled code needs its value at compile time")
    err = raises_at(count_and_log, (Counted(), np.int64(3)), match="appending to a list",
                    line_of="LOG.append")
    assert "`.t`" not in str(err)


# --- a new __slots__ object each iteration: the hint of a plain class ---------------------------

class Slotted:
    __slots__ = ("x", "y")

    def __init__(self, x, y):
        self.x, self.y = x, y


def new_slotted_each_step(a, n):
    p = Slotted(a[0], a[1])
    for _ in range(n):
        p = Slotted(p.x + 1, p.y * 2)
    return p.x, p.y


def slotted_rebound_in_place(a, n):         # what the hint says to do
    p = Slotted(a[0], a[1])
    for _ in range(n):
        p.x, p.y = p.x + 1, p.y * 2
    return p.x, p.y


def test_a_new_slotted_object_each_iteration_gets_the_plain_class_hint():
    # (it showed "<...Slotted object at 0x...>" and "only arrays and numbers can differ")
    err = raises_at(new_slotted_each_step, (np.array([1.0, 2.0]), np.int64(3)),
                    error=tpucc.TpuccError, match="each iteration makes a new Slotted object",
                    line_of="for _ in range(n)")
    assert "object at 0x" not in str(err)
    check(slotted_rebound_in_place, np.array([1.0, 2.0]), np.int64(3))


# --- a @contextlib.contextmanager method -------------------------------------------------------

class Model:
    def __init__(self):
        self.training = True

    @contextlib.contextmanager
    def eval_mode(self, scale=10.0):
        old = self.training
        self.training = False
        try:
            yield scale
        finally:
            self.training = old

    def __call__(self, x):
        return x if self.training else x * 10


def evaluate_new_model(x):
    m = Model()
    with m.eval_mode() as s:
        y = m(x) + s
    return y, m(x)


def evaluate(m, x):
    with m.eval_mode(scale=2.0) as s:
        y = m(x) * s
    return y + m(x)


def test_contextmanager_method_runs_like_a_contextmanager_function():
    # (refused: "`with` on a @contextlib.contextmanager manager made outside the compiled code")
    check(evaluate_new_model, np.ones(2))
    m = Model()
    out = tpucc.compile(evaluate)(m, np.ones(2))
    np.testing.assert_array_equal(out, evaluate(Model(), np.ones(2)))
    assert m.training is True


# --- a frozen TrainState whose params are a dict ----------------------------------------------

@dataclasses.dataclass(frozen=True)
class TrainState:
    params: dict
    step: int


def train(st, n):
    for _ in range(n):
        st = dataclasses.replace(st, params={k: v * 0.5 for k, v in st.params.items()},
                                 step=st.step + 1)
    return st


def train_even(st, n):
    for i in range(n):
        if i % 2 == 0:
            st = dataclasses.replace(st, params={k: v + 1 for k, v in st.params.items()},
                                     step=st.step + 1)
    return st


def rebind_param(st):
    st.params["w"] = st.params["w"] * 2
    return st.params["w"].sum()


def _state():
    return TrainState({"w": np.ones(2), "b": np.zeros(3)}, 0)


def test_frozen_dataclass_holding_a_dict_is_carried_by_runtime_loops():
    # (refused: "the iterations of this loop give `st` incompatible values:
    # a TrainState object and a TrainState object")
    for fn, n in ((train, 3), (train_even, 5)):
        e = fn(_state(), n)
        c = tpucc.compile(fn)(_state(), np.int64(n))
        assert type(c) is TrainState and c.step == e.step
        for k in e.params:
            np.testing.assert_allclose(c.params[k], e.params[k])


def test_an_item_rebound_in_a_frozen_dataclass_argument_dict_is_written_back():
    # (with the dict a value, the rebinding stayed in the compiled call's copy)
    se, sc = _state(), _state()
    assert float(tpucc.compile(rebind_param)(sc)) == float(rebind_param(se))
    np.testing.assert_array_equal(sc.params["w"], se.params["w"])


# --- tpucc.grad over an object that holds an appended history list --------------------------------

class Net:
    def __init__(self):
        self.w = np.ones(3)
        self.losses = []


def net_loss(m, x):
    return np.sum((m.w * x) ** 2)


def step_logging_in_net(m, x):
    l, g = tpucc.value_and_grad(net_loss)(m, x)
    m.w -= 0.1 * g.w
    m.losses.append(float(l))
    return l


def w_loss(w, x):
    return np.sum((w * x) ** 2)


def step_differentiating_the_arrays(m, x):      # what the hint says to do
    l, g = tpucc.value_and_grad(w_loss)(m.w, x)
    m.w -= 0.1 * g
    m.losses.append(float(l))
    return l


def test_grad_over_an_object_with_a_history_list_says_grad_reads_it():
    # (it said the function "also reads that list", which the program never does)
    err = raises_at(step_logging_in_net, (Net(), np.arange(3.0)), match="tpucc.grad also reads",
                    line_of="m.losses.append")
    assert "differentiate a function of the object's arrays" in err.hint
    me, mc = Net(), Net()
    f = tpucc.compile(step_differentiating_the_arrays)
    for _ in range(3):
        assert f(mc, np.arange(3.0)) == step_differentiating_the_arrays(me, np.arange(3.0))
    assert mc.losses == me.losses
    np.testing.assert_allclose(mc.w, me.w)
