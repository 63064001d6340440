"""Session 33's second sweep (training code): the gradient of a dict
subclass is one, list.sort() of runtime numbers sorts, a list of alike
items indexed by a runtime int picks at run time (a loop cycling through
its batches stays one While), and a merge of None with a dict says so."""
from __future__ import annotations

from collections import OrderedDict, defaultdict

import numpy as np
import pytest

import tpucc

from conftest import assert_same, check, count_hlo, hlo

X = np.arange(12.0).reshape(4, 3) / 10


def tanh_loss(p):
    return np.sum(np.tanh(X * p["a"] + p["b"]))


@pytest.mark.parametrize("make", [
    lambda items: OrderedDict(items),
    lambda items: defaultdict(list, items),
])
def test_the_gradient_of_a_dict_subclass_is_one(make):
    params = make([("b", np.zeros(3)), ("a", np.ones(3))])
    for g in (tpucc.grad(tanh_loss)(params),
              tpucc.compile(lambda p: tpucc.grad(tanh_loss)(p))(params)):
        assert type(g) is type(params) and list(g) == ["b", "a"]
        assert getattr(g, "default_factory", None) is getattr(params, "default_factory", None)
        t = 1 - np.tanh(X * params["a"] + params["b"]) ** 2
        np.testing.assert_allclose(g["a"], (t * X).sum(0), rtol=1e-12)
        np.testing.assert_allclose(g["b"], t.sum(0), rtol=1e-12)


def sort_in_place(x):
    losses = [float(x[0]), float(x[1]), float(x[2])]
    losses.sort()
    ranks = [int(x[2]), int(x[0] * 10), int(x[1] * 10)]
    ranks.sort(reverse=True)
    return losses, ranks


def test_list_sort_of_runtime_numbers():
    check(sort_in_place, np.array([0.3, 0.1, 0.2]))
    check(sort_in_place, np.array([0.5, 0.9, -4.0]))


def keep_best(p, x):
    best = None
    if float((p["w"] * x).sum()) < 10.0:
        best = {k: v.copy() for k, v in p.items()}
    return best


def test_a_merge_of_none_and_a_dict_names_both():
    with pytest.raises(tpucc.errors.MergeError, match=r"`best` different structures: "
                                                      r"(None and a dict|a dict .* and None)") \
            as info:
        tpucc.compile(keep_best)({"w": np.ones(3)}, np.ones(3))
    assert "rather than None" in info.value.hint


BATCHES = [(np.full(3, float(k)), np.float64(k + 1)) for k in range(4)]


def cycle_batches(w, steps):
    for step in range(steps):
        x, y = BATCHES[step % len(BATCHES)]
        w = w - 0.01 * (w @ x - y) * x
    return w


def pick_batch(batches, i):
    x, y = batches[i]
    return x * y


def test_a_loop_cycling_through_alike_batches_is_one_while():
    compiled = check(cycle_batches, np.zeros(3), 40, rtol=1e-12, atol=1e-12)
    assert count_hlo(hlo(compiled, np.zeros(3), 40), "while") == 1


def test_a_runtime_index_into_a_list_of_alike_tuples():
    compiled = tpucc.compile(pick_batch)
    for i in (0, 3, -1, -4):
        assert_same(pick_batch(BATCHES, i), compiled(BATCHES, np.int64(i)))
    with pytest.raises(IndexError):
        compiled(BATCHES, np.int64(4))


NAMED_PARAMS = '''
from typing import NamedTuple
import numpy as np
from tpucc.aot import entry

class Params(NamedTuple):
    w: np.ndarray
    b: np.ndarray

def init():
    return Params(np.ones((3, 2), np.float32), np.zeros(2, np.float32))

@entry(init, "f32[4,3]")
def predict(p, x):
    return x @ p.w + p.b
'''


def test_an_artifact_takes_a_named_tuple_argument(tmp_path):
    from tpucc import aot
    model = tmp_path / "named_params.py"
    model.write_text(NAMED_PARAMS)
    (built,) = aot.build_file(str(model), str(tmp_path))
    ns: dict = {}
    exec(compile(NAMED_PARAMS, str(model), "exec"), ns)
    p, x = ns["init"](), np.arange(12, dtype=np.float32).reshape(4, 3)
    assert_same(ns["predict"](p, x), tpucc.load(built.path)(p, x))
    with pytest.raises(aot.errors.ArgumentError, match="expects a Params"):
        tpucc.load(built.path)((p.w, p.b), x)


def restore(p, ckpt, c):
    p.update(ckpt)                  # the same keys: item rebinding, written back
    w = p.setdefault("w", None)
    d = {"v": np.zeros(2)}
    if c > 0:
        d.update(v=w * 3)
    return d["v"]


def test_dict_update_and_setdefault_of_existing_keys():
    check(restore, {"w": np.ones(2)}, {"w": np.full(2, 5.0)}, np.array(1.0))
    check(restore, {"w": np.ones(2)}, {"w": np.full(2, 5.0)}, np.array(-1.0))


def entropy(p):
    return -np.sum(np.where(p > 0, p * np.log(p), 0.0))


def masked_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(np.abs(x)), 0.0))


@pytest.mark.parametrize("fn, x, expected", [
    (entropy, np.array([0.5, 0.0, 0.2, -0.1]),
     np.where(np.array([0.5, 0.0, 0.2, -0.1]) > 0,
              -(np.log(np.abs([0.5, 0.0, 0.2, -0.1]) + 1e-300) + 1), 0.0)),
    (masked_sqrt, np.array([0.5, 0.0, 0.25, -1.0]), np.array([0.5 / np.sqrt(0.5), 0, 1, 0])),
])
def test_the_branch_np_where_does_not_take_adds_no_nan(fn, x, expected):
    for g in (tpucc.grad(fn)(x), tpucc.compile(lambda v: tpucc.grad(fn)(v))(x)):
        np.testing.assert_allclose(g, expected, rtol=1e-12)


DATACLASS_PARAMS = '''
import dataclasses
import numpy as np
from tpucc.aot import entry

@dataclasses.dataclass
class DParams:
    w: np.ndarray

def init():
    return DParams(np.ones((3, 2), np.float32))

@entry(init, "f32[4,3]")
def predict(p, x):
    return x @ p.w
'''


def test_an_entry_given_an_object_of_arrays_says_to_pass_a_dict(tmp_path):
    from tpucc import aot
    model = tmp_path / "dataclass_params.py"
    model.write_text(DATACLASS_PARAMS)
    with pytest.raises(tpucc.TpuccError, match="DParams holding arrays") as info:
        aot.build_file(str(model), str(tmp_path))
    assert "dataclasses.asdict" in info.value.hint


def test_new_objects_of_arrays_are_told_to_travel_as_a_named_tuple():
    import dataclasses

    @dataclasses.dataclass          # (a frozen one is a value: session 34)
    class P:
        w: np.ndarray

    compiled = tpucc.compile(lambda p: p.w * 2)
    with pytest.warns(tpucc.RecompileWarning, match="pass them in a NamedTuple or a dict"):
        for _ in range(10):
            compiled(P(np.ones(2)))
