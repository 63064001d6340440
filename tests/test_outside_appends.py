"""Appends to lists from outside the compiled function (infer/appends.py):
`self.losses.append(float(loss))` happens at every call, with the values
and Python types eager NumPy appends, and compiles once.  A list the
function both appends to and reads, and an append whose count only the
run knows, are refused with the user's line."""
import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import raises_at

X = np.arange(4, dtype=np.float32) / 4
HISTORY = []


class Trainer:
    def __init__(self):
        self.w = np.ones(4, np.float32)
        self.losses, self.log = [], []

    def step(self, x):
        err = x * self.w - 1
        loss = np.mean(err ** 2)
        self.w -= 0.1 * err
        self.losses.append(float(loss))         # a Python float
        self.log.append((len(x), loss, err))    # int, np.float32, an array
        return loss


def assert_same_items(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert type(g) is type(w), (g, w)
        if isinstance(w, tuple):
            assert_same_items(g, w)
        elif isinstance(w, np.ndarray):
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-6)
        elif isinstance(w, str):
            assert g == w
        else:
            assert g == pytest.approx(w, rel=1e-6)


def test_training_step_appends_at_every_call(builds):
    eager, compiled = Trainer(), Trainer()
    step = tpucc.compile(compiled.step)
    for _ in range(4):
        assert step(X) == pytest.approx(eager.step(X), rel=1e-6)
    assert_same_items(compiled.losses, eager.losses)
    assert_same_items(compiled.log, eager.log)
    np.testing.assert_allclose(compiled.w, eager.w, rtol=1e-6)
    assert builds[0] == 1


def unrolled_appends(x):
    for i in range(3):
        HISTORY.append((i, float(x[i] * 2)))
    HISTORY.append("done")
    return x.sum()


def test_global_list_in_an_unrolled_loop():
    HISTORY.clear()
    want = [unrolled_appends(X), list(HISTORY)]
    HISTORY.clear()
    f = tpucc.compile(unrolled_appends)
    got = [f(X), f(X + 1)]
    assert got[0] == pytest.approx(want[0])
    expected = want[1] + [(i, float((X[i] + 1) * 2)) for i in range(3)] + ["done"]
    assert_same_items(HISTORY, expected)
    HISTORY.clear()


def test_a_failed_runtime_check_appends_nothing():
    seen = []

    def picked(x, i):
        seen.append(float(x.sum()))
        return x[i]

    f = tpucc.compile(picked, runtime_args=("i",))
    with pytest.raises(IndexError):
        f(X, 7)
    assert seen == []
    assert f(X, 1) == X[1] and seen == [pytest.approx(float(X.sum()))]


def counted(x, log):
    items = log["items"]
    items.append(float(x.sum()))
    return x * len(items)


STATE = {"items": []}


def test_reading_the_list_too_is_refused():
    raises_at(lambda x: counted(x, STATE), (X,), E.SideEffectError,
              match="appends to a list from outside it and also reads")
    assert STATE["items"] == []


def test_append_in_a_runtime_branch_is_refused():
    seen = []

    def maybe(x):
        if x.sum() > 1:
            seen.append(float(x.max()))
        return x

    raises_at(maybe, (X,), E.SideEffectError, match="inside a runtime `if` or loop",
              line_of="seen.append")
    assert seen == []


def test_argument_lists_stay_refused():
    def grow(x, lst):
        lst.append(x)
        return x

    with pytest.raises(E.SideEffectError, match="passed as an argument"):
        tpucc.compile(grow)(X, [])


def test_tpucc_build_refuses_appends(tmp_path):
    from tpucc import aot
    from tpucc.aot.errors import BuildError

    model = tmp_path / "model.py"
    model.write_text(
        "from tpucc.aot import entry\n"
        "LOSSES = []\n"
        "@entry('f32[2]')\n"
        "def step(x):\n"
        "    LOSSES.append(float(x.sum()))\n"
        "    return x * 2\n")
    with pytest.raises(BuildError, match="appends to a list from outside it"):
        aot.build_file(str(model), str(tmp_path))


SETTINGS = [1, 2]


def adds_settings(x):
    SETTINGS.append(3)          # a static value: appended as it is
    SETTINGS.extend([x.sum(), "last"])
    return x


def test_static_values_and_extend_at_every_call():
    try:
        f = tpucc.compile(adds_settings)
        f(X)
        f(X * 2)
        assert SETTINGS == [1, 2, 3, X.sum(), "last", 3, (X * 2).sum(), "last"]
        assert type(SETTINGS[3]) is np.float32
    finally:
        del SETTINGS[2:]
