"""Session 17's sweep of stateful user programs (tests/user_programs_session17.py):
each scenario runs eagerly and compiled over several calls; the results,
their dtypes and kinds, and the state left behind (Python types of numbers
included) must agree, and a number that changes at every call must not
compile the function again.  Then the refusals and bugs the sweep found."""
import warnings

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import assert_same
import user_programs_session17 as P  # noqa: E402  (its asserts must stay Python's)


def assert_same_state(a, b, path="state"):
    """Same structure, same Python and NumPy types (a Python float is no
    np.float64, a NumPy scalar no 0-d array), close values."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} vs {type(b).__name__} ({a!r}, {b!r})"
    if isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            assert_same_state(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_state(x, y, f"{path}[{i}]")
    elif isinstance(a, (np.ndarray, np.generic)):
        assert a.dtype == b.dtype and a.shape == b.shape, (path, a, b)
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6, err_msg=path)
    elif isinstance(a, type):
        assert a is b, path
    elif hasattr(a, "__dict__"):
        assert_same_state(vars(a), vars(b), path)
    elif isinstance(a, float):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-9, err_msg=path)
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


# scenario -> how many times it may compile: 1 where every number it keeps
# changes at every call; more where a type changes (int -> float), a flag
# set once, a second object, evaluation mode, or a bool flipped at every call.
EXPECTED_BUILDS = {name: 1 for name in P.SCENARIOS}
EXPECTED_BUILDS.update({
    "mlp_batchnorm": 2,         # layer.training = False: another program
    "two_instances": 2,         # one entry per object argument
    "type_changes": 2,          # self.value: int, then float
    "int_to_float_item": 2,     # state["scale"]: int, then float
    "numpy_scalar_state": 2,    # self.total: float, then np.float64
    "numpy_scalar_items": 2,    # log["loss"]: float, then np.float64
    "toggle_flag": 2,           # a bool is static at its first change, runtime at its second
})


@pytest.mark.parametrize("name", sorted(P.SCENARIOS))
def test_stateful_program(name, builds):
    scenario = P.SCENARIOS[name]
    expected_outs, expected_state = scenario(lambda f: f)
    builds[0] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.RecompileWarning)
        outs, state = scenario(tpucc.compile)
    assert len(outs) == len(expected_outs)
    for e, a in zip(expected_outs, outs):
        if isinstance(e, tuple) and any(isinstance(x, type) for x in e):
            assert e == a
        else:
            assert_same(e, a, rtol=1e-5, atol=1e-6)
    assert_same_state(expected_state, state)
    assert builds[0] == EXPECTED_BUILDS[name]


def _marked_line(func) -> int:
    import inspect
    lines, start = inspect.getsourcelines(func)
    return next(start + i for i, l in enumerate(lines) if "# <- refused" in l)


def _refused(call, where, error=E.SideEffectError, match=None):
    with pytest.raises(error) as info:
        call()
    err = info.value
    if match is not None:
        assert match in str(err), str(err)
    assert err.loc is not None and err.loc.line == _marked_line(where), str(err)
    return err


def test_rebinding_items_of_a_dict_an_object_holds(builds):
    """`self.velocity[k] = v` and torch's `self.state["step"] += 1`: the
    items are rebound in the object's dict after each call; the step count
    is promoted (one compile each)."""
    opt, eager_opt = P.SGDRebindsOutsideDict(), P.SGDRebindsOutsideDict()
    s, eager_s = P.TorchStyleState(), P.TorchStyleState()
    f, g = tpucc.compile(opt.step), tpucc.compile(s.step)
    p, eager_p = {"w": np.ones(3)}, {"w": np.ones(3)}
    for i in range(3):
        grads = {"w": np.arange(3.0) + i}
        assert_same(f(p, grads), eager_opt.step(eager_p, grads))
        assert_same(g(np.ones(2), grads["w"][:2]), eager_s.step(np.ones(2), grads["w"][:2]))
    assert_same(opt.velocity, eager_opt.velocity)
    assert_same(p, eager_p)
    assert s.state == eager_s.state == {"step": 3} and type(s.state["step"]) is int
    assert builds[0] == 2


@pytest.mark.parametrize("fn, state", [
    (P.history_in_argument, {"history": []}),
    (P.new_key_in_argument, {"t": 0}),
])
def test_growing_a_dict_or_list_argument_is_refused(fn, state):
    _refused(lambda: tpucc.compile(fn)(np.ones(2), state), fn,
             match="passed as an argument is not supported")


def test_python_values_other_than_numbers_on_outside_objects_are_refused():
    s = P.StatusString()
    _refused(lambda: tpucc.compile(s.run)(np.ones(2)), P.StatusString.run,
             match="assigning a Python value to `.status`")
    m = P.RebindsMomentsDict()
    _refused(lambda: tpucc.compile(m.update)(np.ones(2)), P.RebindsMomentsDict.update,
             match="assigning a Python value to `.m`")


def test_counting_inside_a_differentiated_function_says_so():
    # It said "... while the compiled code needs its value at compile time"
    # (the retry with the place kept static), or for an argument's item
    # that only rebinding items to arrays or numbers is supported.
    c = P.CountsInLoss()
    err = _refused(lambda: tpucc.compile(c.step)(np.ones(2), np.ones((3, 2))),
                   P.CountsInLoss.loss,
                   match="assigning `.evals` of CountsInLoss objects inside a function "
                         "differentiated by tpucc.grad is not supported")
    assert "compile time" not in str(err)
    loss = P.make_counting_loss()
    _refused(lambda: tpucc.compile(lambda w: tpucc.grad(loss)(w))(np.ones(2)), loss,
             match="assigning the closure variable `evals` inside a function differentiated")
    _refused(lambda: tpucc.compile(P.grad_counting_in_argument)(np.ones(2), {"evals": 0}),
             P._loss_counting_in_argument,
             match="assigning an item of a dict passed as an argument inside a function "
                   "differentiated by tpucc.grad")


def test_size_counter_needed_at_compile_time_warns_once_and_stays_right(builds):
    b, eager = P.Buffer(), P.Buffer()
    f = tpucc.compile(P.Buffer.grow)
    with pytest.warns(tpucc.RecompileWarning, match=r"`\.size` of Buffer objects"):
        assert_same(P.Buffer.grow(eager, np.ones(2)), f(b, np.ones(2)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            assert_same(P.Buffer.grow(eager, np.ones(2)), f(b, np.ones(2)))
    assert b.size == eager.size == 4 and type(b.size) is int
    assert builds[0] == 3


# --- bugs the sweep found --------------------------------------------------------------------

def test_numpy_scalar_written_back_stays_a_numpy_scalar():
    # `self.total += np.mean(err)` on a float makes an np.float64 in NumPy;
    # it was written back as a 0-d ndarray (which the next `+=` then
    # updated in place).
    m = P.LossMeter()
    f = tpucc.compile(P.LossMeter.add)
    f(m, np.ones(3), np.zeros(3))
    assert type(m.total) is np.float64
    log = {"loss": 0.0, "peak": np.zeros(()), "steps": 0}
    tpucc.compile(P.numpy_scalar_items)(np.arange(3.0), log)
    assert type(log["loss"]) is np.float64


def test_numpy_scalar_rebound_by_the_program_is_a_runtime_input(builds):
    m = P.LossMeter()
    f = tpucc.compile(P.LossMeter.add)
    for i in range(4):
        f(m, np.full(3, float(i)), np.zeros(3))
    assert builds[0] == 2           # a float, then np.float64 read at run time
    assert "a NumPy float64 the program rebinds" in f.lower(m, np.ones(3), np.ones(3)).ir()


class _Scaled:
    def __init__(self):
        self.scale = np.float64(2.0)

    def apply(self, x):
        return x * self.scale


def test_numpy_scalar_attribute_or_item_changed_by_the_user_recompiles():
    # A NumPy scalar read from an attribute or an outside dict was folded
    # into the program without a guard: changing it gave stale results.
    s = _Scaled()
    f = tpucc.compile(_Scaled.apply)
    assert f(s, np.ones(2))[0] == 2.0
    s.scale = np.float64(3.0)
    assert f(s, np.ones(2))[0] == 3.0
    config = {"scale": np.float32(2.0)}
    g = tpucc.compile(lambda x: x * config["scale"])
    assert g(np.ones(2, np.float32))[0] == 2.0
    config["scale"] = np.float32(5.0)
    assert g(np.ones(2, np.float32))[0] == 5.0


def _make_scaled(scale):
    def apply(x):
        return x * scale

    def set_scale(v):
        nonlocal scale
        scale = v
    return apply, set_scale


def test_closure_number_rebound_from_outside_recompiles():
    """A closure variable's static value was folded in without a guard (a
    strict xfail until the cell guard, infer.calls.CellGuardView)."""
    apply, set_scale = _make_scaled(2.0)
    f = tpucc.compile(apply)
    assert f(np.ones(2))[0] == 2.0
    set_scale(3.0)
    assert f(np.ones(2))[0] == 3.0


def _make_total():
    total = np.float64(0)

    def add(x):
        nonlocal total
        total += x.sum()
        return total
    return add, lambda: total


def test_numpy_scalar_into_a_new_attribute_and_a_closure_variable(builds):
    class Log:
        pass

    def record(log, x):
        log.last = x.sum()          # an attribute the object does not have yet
        return x

    log = Log()
    tpucc.compile(record)(log, np.ones(2))
    assert type(log.last) is np.float64 and log.last == 2.0
    add, read = _make_total()
    f = tpucc.compile(add)
    builds[0] = 0
    assert [f(np.ones(2)) for _ in range(3)] == [2.0, 4.0, 6.0]
    assert type(read()) is np.float64 and read() == 6.0 and builds[0] == 1
