"""Session 26's sweep of tpucc.grad / value_and_grad: the kind of the value
(NumPy scalar or 0-d array, as the function returns it), tied weights held
twice in a dict or list argument (one gradient, the total, as for objects),
and changes to a differentiated dict or list inside the differentiated
function (refused, as rebinding an attribute of a differentiated object is).
Gradients are checked against central finite differences in float64."""
import copy

import numpy as np
import pytest

import tpucc
from tpucc.errors import SideEffectError
from conftest import numeric_grad

X = np.random.default_rng(26).standard_normal((4, 3))


def in_compiled(gradient_fn):
    """The gradient function called inside a compiled function."""
    return tpucc.compile(lambda *args: gradient_fn(*args))


# --- the value's kind: what the function returns ------------------------------------------

LOSSES = {
    "np.sum (a NumPy scalar)": lambda w: np.sum(w ** 2),
    "reshape(()) (a 0-d array)": lambda w: np.sum(w ** 2, keepdims=True).reshape(()),
    "np.asarray of a sum (a 0-d array)": lambda w: np.asarray(np.sum(w ** 2)),
    "w @ w (a NumPy scalar)": lambda w: w @ w,
    "w[0] (a NumPy scalar)": lambda w: w[0] * w[1],
    "float() (a Python float)": lambda w: float(np.sum(w ** 3)),
    "a NumPy scalar constant": lambda w: np.float64(3.0),
}


@pytest.mark.parametrize("name", LOSSES)
@pytest.mark.parametrize("where", ["eager", "compiled"])
def test_value_has_the_type_the_function_returns(name, where):
    loss = LOSSES[name]
    w = np.arange(1.0, 4.0)
    vg = tpucc.value_and_grad(loss)
    value, grad = (vg if where == "eager" else in_compiled(vg))(w)
    expected = loss(w)
    assert type(value) is type(expected)
    assert np.shape(value) == () and value == expected
    np.testing.assert_allclose(grad, numeric_grad(lambda v: loss(v), w), rtol=1e-6, atol=1e-8)


def test_value_of_a_0d_array_with_aux_keeps_its_kind():
    def loss(w):
        total = np.sum(w ** 2, keepdims=True).reshape(())
        return total, {"norm": np.sqrt(total)}
    (value, aux), grad = tpucc.value_and_grad(loss, has_aux=True)(np.arange(3.0))
    assert type(value) is np.ndarray and value.shape == () and value == 5.0
    np.testing.assert_allclose(aux["norm"], np.sqrt(5.0))
    np.testing.assert_allclose(grad, 2 * np.arange(3.0))


# --- tied weights: one array at two places of a dict or list ------------------------------

E = np.array([1.0, 2.0, 3.0])


def tied_dict_loss(p):                  # a GPT-style tied embedding and head
    return np.sum(p["emb"] * p["head"] ** 2) + np.sum(np.tanh(p["emb"]))


def tied_list_loss(p):
    return np.sum(p[0] * p[1] ** 2) + np.sum(np.tanh(p[0]))


def shared_numeric_grad(loss, make):
    """The derivative of the loss as a function of the one shared array."""
    return numeric_grad(lambda e: loss(make(e)), E)


CASES = {
    "dict": (tied_dict_loss, lambda e: {"emb": e, "head": e}, ("emb", "head")),
    "list": (tied_list_loss, lambda e: [e, e], (0, 1)),
    "nested dict": (lambda p: tied_dict_loss(p["layers"]),
                    lambda e: {"layers": {"emb": e, "head": e}}, None),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("where", ["eager", "compiled"])
def test_tied_weights_in_a_container_share_the_total_gradient(case, where):
    loss, make, places = CASES[case]
    g = tpucc.grad(loss)
    grads = (g if where == "eager" else in_compiled(g))(make(E))
    if places is None:
        grads, places = grads["layers"], ("emb", "head")
    total = shared_numeric_grad(loss, make)
    for k in places:
        np.testing.assert_allclose(grads[k], total, rtol=1e-6)


def test_tied_weights_as_in_an_object():
    class Model:
        pass
    m = Model()
    m.emb = m.head = E
    by_object = tpucc.grad(lambda m: np.sum(m.emb * m.head ** 2))(m)
    by_dict = tpucc.grad(lambda p: np.sum(p["emb"] * p["head"] ** 2))({"emb": E, "head": E})
    np.testing.assert_allclose(by_object.emb, 3 * E ** 2)
    np.testing.assert_allclose(by_dict["emb"], by_object.emb)
    np.testing.assert_allclose(by_dict["head"], by_object.head)


@pytest.mark.parametrize("where", ["eager", "compiled"])
def test_tying_and_untying_between_calls_compiles_for_each(where):
    g = tpucc.grad(tied_dict_loss)
    fn = g if where == "eager" else in_compiled(g)
    other = E.copy()                    # equal values, another array
    for p in ({"emb": E, "head": E}, {"emb": E, "head": other}, {"emb": E, "head": E},
              {"emb": other, "head": E}):
        grads = fn(p)
        if p["emb"] is p["head"]:
            total = shared_numeric_grad(tied_dict_loss, lambda e: {"emb": e, "head": e})
            np.testing.assert_allclose(grads["emb"], total, rtol=1e-6)
            np.testing.assert_allclose(grads["head"], total, rtol=1e-6)
        else:
            np.testing.assert_allclose(grads["emb"], E ** 2 + 1 / np.cosh(E) ** 2, rtol=1e-6)
            np.testing.assert_allclose(grads["head"], 2 * E * E, rtol=1e-6)


def test_an_object_whose_weights_become_tied_after_compiling():
    class Model:
        pass
    m = Model()
    m.emb, m.head = E, E.copy()
    g = tpucc.grad(lambda m: np.sum(m.emb * m.head ** 2))
    np.testing.assert_allclose(g(m).emb, E ** 2)
    m.head = m.emb                      # tied now: the total at both
    np.testing.assert_allclose(g(m).emb, 3 * E ** 2)
    np.testing.assert_allclose(g(m).head, 3 * E ** 2)
    m.head = E.copy()                   # and apart again
    np.testing.assert_allclose(g(m).head, 2 * E * E)


def test_tied_weights_in_a_training_step_with_the_update_outside():
    def loss(p, x):
        return np.mean((x @ p["w_in"] @ p["w_out"].T) ** 2)
    step = tpucc.compile(lambda p, x: tpucc.value_and_grad(loss)(p, x))
    w = np.linspace(-1.0, 1.0, 6).reshape(3, 2)
    p = {"w_in": w, "w_out": w}
    _, grads = step(p, X)
    total = numeric_grad(lambda v: loss({"w_in": v, "w_out": v}, X), w)
    np.testing.assert_allclose(grads["w_in"], total, rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(grads["w_out"], total, rtol=1e-5, atol=1e-9)


def test_equal_numpy_scalars_are_not_tied():
    s = np.float64(2.0)
    grads = tpucc.grad(lambda p: p["a"] * p["b"] ** 2)({"a": s, "b": s})
    assert grads["a"] == 4.0 and grads["b"] == 8.0


# --- changing the differentiated dict or list inside the function ---------------------------

def rebinds_an_item(p, x):
    p["act"] = np.tanh(x @ p["w"])
    return np.sum(p["act"] ** 2)


def rebinds_a_list_item(p, x):
    p[1] = np.tanh(x @ p[0])
    return np.sum(p[1] ** 2)


def appends(p, x):
    p.append(np.tanh(x @ p[0]))
    return np.sum(p[-1] ** 2)


def rebinds_a_nested_item(p, x):
    p["sub"]["c"] = x @ p["sub"]["w"]
    return np.sum(p["sub"]["c"] ** 2)


def rebinds_in_a_runtime_if(p, x):
    if np.sum(x) > -1e9:
        p["act"] = np.tanh(x @ p["w"])
    return np.sum(p["act"] ** 2)


def deletes_an_item(p, x):
    del p["act"]
    return np.sum((x @ p["w"]) ** 2)


W = np.ones((3, 2))
CHANGES = [
    (rebinds_an_item, lambda: {"w": W.copy(), "act": np.zeros((4, 2))}, "p[\"act\"] = "),
    (rebinds_a_list_item, lambda: [W.copy(), np.zeros((4, 2))], "p[1] = "),
    (appends, lambda: [W.copy()], "p.append("),
    (rebinds_a_nested_item, lambda: {"sub": {"w": W.copy(), "c": np.zeros((4, 2))}},
     "p[\"sub\"][\"c\"] = "),
    (rebinds_in_a_runtime_if, lambda: {"w": W.copy(), "act": np.zeros((4, 2))},
     "p[\"act\"] = "),
    (deletes_an_item, lambda: {"w": W.copy(), "act": np.zeros((4, 2))}, "del p["),
]


@pytest.mark.parametrize("loss, make, line", CHANGES, ids=[c[0].__name__ for c in CHANGES])
@pytest.mark.parametrize("where", ["eager", "compiled"])
def test_changing_the_differentiated_container_is_refused_at_its_line(loss, make, line, where):
    vg = tpucc.value_and_grad(loss)
    p = make()
    before = copy.deepcopy(p)
    with pytest.raises(SideEffectError) as e:
        (vg if where == "eager" else in_compiled(vg))(p, X)
    text = str(e.value)
    assert "[E500]" in text and "differentiated by tpucc.grad" in text
    assert line in text and f"(in {loss.__name__})" in text
    assert type(p) is type(before) and len(p) == len(before)    # nothing half-done


def test_refused_as_rebinding_an_attribute_of_a_differentiated_object_is():
    class Model:
        pass
    m = Model()
    m.w, m.act = W.copy(), np.zeros((4, 2))

    def loss(m, x):
        m.act = np.tanh(x @ m.w)
        return np.sum(m.act ** 2)
    with pytest.raises(SideEffectError, match=r"\[E500\].*differentiated by tpucc.grad"):
        tpucc.grad(loss)(m, X)


def test_a_dict_of_an_attribute_of_a_differentiated_object_is_refused_too():
    class Model:
        pass
    m = Model()
    m.params = {"w": W.copy(), "act": np.zeros((4, 2))}

    def loss(m, x):
        m.params["act"] = np.tanh(x @ m.params["w"])
        return np.sum(m.params["act"] ** 2)
    with pytest.raises(SideEffectError, match=r"changing a dict differentiated by tpucc.grad"):
        tpucc.grad(loss)(m, X)


def test_in_place_updates_of_the_differentiated_arrays_still_reach_the_caller():
    def loss(p, x):
        p["w"] *= 2.0                   # the caller's array, as in NumPy
        p["w"][0, 0] = 0.5
        return np.sum((x @ p["w"]) ** 2)
    p = {"w": W.copy()}
    eager = {"w": W.copy()}
    expected_value = loss(eager, X)
    value, grads = tpucc.value_and_grad(loss)(p, X)
    np.testing.assert_allclose(value, expected_value)
    np.testing.assert_allclose(p["w"], eager["w"])
    assert set(grads) == {"w"}


def test_the_loss_may_still_build_and_change_its_own_containers():
    def loss(p, x):
        acts = {"h": x @ p["w"]}
        acts["h"] = np.tanh(acts["h"])
        q = dict(p)                     # a copy of its own: free to change
        q["w"] = q["w"] * 2.0
        return np.sum(acts["h"] ** 2) + np.sum(q["w"])
    p = {"w": W.copy()}
    grads = tpucc.grad(loss)(p, X)
    np.testing.assert_allclose(
        grads["w"], numeric_grad(lambda w: loss({"w": w}, X), W), rtol=1e-5, atol=1e-8)


# --- a trace record replayed in another process keeps the identity check --------------------

TIED_MODEL = """
import numpy as np
import tpucc


class Model:
    def __init__(self):
        self.emb = np.array([1.0, 2.0, 3.0])
        self.head = self.emb.copy()             # equal, not tied (yet)


def loss(m):
    return np.sum(m.emb * m.head ** 2)


def step(m):
    return tpucc.grad(loss)(m)
"""


def test_a_replayed_trace_record_still_checks_tied_weights(tmp_path, monkeypatch):
    import importlib
    import sys
    from tpucc import cache
    monkeypatch.setenv("TPUCC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")
    monkeypatch.delenv("TPUCC_CACHE", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "tied_model_s26.py").write_text(TIED_MODEL)
    cache.reset_stats()
    results = []
    for _ in range(2):                          # two "processes": the second replays
        sys.modules.pop("tied_model_s26", None)
        importlib.invalidate_caches()
        module = importlib.import_module("tied_model_s26")
        model = module.Model()
        step = tpucc.compile(module.step)
        results.append(step(model).emb)
    assert cache.stats()["trace_hits"] == 1
    e = model.emb
    for got in results:
        np.testing.assert_allclose(got, e ** 2)
    model.head = e                              # tied after the replay: the total
    grads = step(model)
    np.testing.assert_allclose(grads.emb, 3 * e ** 2)
    np.testing.assert_allclose(grads.head, 3 * e ** 2)
