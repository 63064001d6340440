"""Runtime values in the messages of runtime raises (infer/messages.py,
infer/checks.py, docs/errors.md E910): the compiled call raises the class
and the message text eager Python raises for the same inputs, with the
values of the check that failed first (the failing iteration of a runtime
loop, the branch taken), formatted as eager Python formats the program's
values (NumPy scalars and arrays of their dtype, Python numbers)."""
from __future__ import annotations

import inspect
import json
import os

import numpy as np
import pytest

import tpucc
from tpucc import aot

import runtime_raise_programs as P  # (pytest would rewrite their asserts)


def _eager_error(fn, *args) -> BaseException:
    with pytest.raises(Exception) as info:
        fn(*args)
    return info.value


def _same_error(fn, *args, compiled=None):
    """The compiled call raises what eager `fn` raises: an instance of the
    same class (also a RuntimeRaiseError), with the same message text
    after the [E910] code.  Returns the compiled error."""
    expected = _eager_error(fn, *args)
    compiled = compiled or tpucc.compile(fn)
    with pytest.raises(type(expected)) as info:
        compiled(*args)
    got = info.value
    assert isinstance(got, tpucc.errors.RuntimeRaiseError)
    assert got.message == str(expected), (got.message, str(expected))
    assert str(got).startswith(f"[E910] {expected}\n")
    return got


def test_assert_and_raise_show_their_runtime_values():
    _same_error(P.not_positive, -np.ones(2))
    _same_error(P.not_positive, -np.ones(3, np.float32))
    err = _same_error(P.too_big, np.array([11.0, 2.0]))
    assert err.message == "too big: 11.00 (limit 10, shape (2,))"
    assert "<runtime value>" not in str(err)


@pytest.mark.parametrize("n", [6, 10])
def test_a_runtime_while_loop_shows_the_failing_iteration(n):
    f = tpucc.compile(P.doubling)
    assert f(np.ones(3, np.float32), 2) == 12.0
    err = _same_error(P.doubling, np.ones(3, np.float32), n, compiled=f)
    assert err.message == "step 5: total 192.0 too large"     # not a later iteration's


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_runtime_for_loop_shows_the_counter_and_the_value_there(dtype):
    x = np.array([3.0, 4.0, 5.0, 6.0], dtype)
    err = _same_error(P.prefix_over, x, 4)
    assert err.message == f"prefix sum np.{np.dtype(dtype).name}(12.0) over 10 at 2"


def test_runtime_branches_show_the_branch_taken():
    f = tpucc.compile(P.checked_branches)
    assert _same_error(P.checked_branches, np.array([3.0, 6.0]), 1.0,
                       compiled=f).message == "upper: [ 6. 12.]"
    assert _same_error(P.checked_branches, np.array([-30.0, 6.0]), 100.0,
                       compiled=f).message == "lower: [-31.   5.]"


@pytest.mark.parametrize("x, n", [(np.array([50, 60, 7], np.int32), 5),
                                  (np.array([50, 60, -7], np.int32), 1),
                                  (np.array([50, 60, 7], np.int64), 0)])
def test_numpy_scalars_bools_and_python_numbers(x, n):
    """int sums, a NumPy bool, an int32 repr, float64 means, and the
    Python int and float a runtime loop changes (weak values: shown as
    Python shows them)."""
    _same_error(P.kinds, x, n)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_format_specs_and_conversions(dtype):
    err = _same_error(P.formatted, np.array([1.0, -2.5], dtype), 1)
    assert err.message.startswith("[-2.50|np.")


def test_arrays_0d_arrays_and_two_values_of_one_type():
    _same_error(P.zero_d, np.array([3.0]))
    _same_error(P.two_values, np.array([3.0, 1.0]), np.array([1.0]))
    _same_error(P.huge, np.arange(1000.0))          # the largest carried: abbreviated by NumPy


def test_a_value_too_large_to_carry_shows_as_a_placeholder():
    f = tpucc.compile(P.huge)
    with pytest.raises(AssertionError) as info:
        f(np.ones(1001))
    assert info.value.message == "x = <runtime value>, shape (1001,)"
    assert "more than 1000 elements in its message show as <runtime value>" in str(info.value)
    assert len(f.lower(np.ones(1001)).traced.result_avals) == 2     # x and the code


def test_a_spec_numpy_refuses_raises_as_in_eager_code():
    """f"{x:.2f}" of an array: eager code raises TypeError building the message."""
    err = _same_error(P.array_spec, -np.ones(3))
    assert isinstance(err, TypeError)


def test_checks_sharing_slots_report_the_first_failure():
    """Two calls of one checked function: the first call's values."""
    f = tpucc.compile(P.scale_twice)
    assert _same_error(P.scale_twice, np.array([1.0, 12.0]), compiled=f).message == \
        "scaled by 2.0: [ 2. 24.]"
    assert _same_error(P.scale_twice, np.array([1.0, 6.0]), compiled=f).message == \
        "scaled by 5.0: [ 5. 30.]"


def test_a_differentiated_function_with_a_runtime_message():
    w, x = np.ones((3, 2)), np.ones((4, 3))
    step = tpucc.compile(lambda w, x: tpucc.grad(P.loss_with_message)(w, x))
    np.testing.assert_allclose(step(w, x), 2 * x.T @ (x @ w))
    expected = str(_eager_error(P.loss_with_message, w, 1e3 * x))
    with pytest.raises(AssertionError) as info:
        step(w, 1e3 * x)
    assert info.value.message == expected == "loss diverged: 72000000.0"
    value_and_grad = tpucc.value_and_grad(P.loss_with_message)      # compiled on first use
    assert value_and_grad(w, x)[0] == 72.0
    with pytest.raises(AssertionError) as info:
        value_and_grad(w, 1e3 * x)
    assert info.value.message == expected


def test_messages_without_runtime_values_add_no_outputs():
    """A static message: the check alone (the loss, the code); a runtime
    value adds one output, its select and its slot's zeros."""
    lowered = tpucc.compile(P.finite_loss).lower(np.ones((3, 2)), np.ones((4, 3)))
    assert len(lowered.traced.result_avals) == 2
    assert "select(" not in lowered.ir()
    assert all("template" not in c for c in lowered.traced.checks)
    assert "->(f64[], s32[])}" in lowered.as_text()       # the HLO module's results
    lowered = tpucc.compile(P.not_positive).lower(np.ones(2))
    assert len(lowered.traced.result_avals) == 3
    assert lowered.ir().count("select(") == 1
    assert "->(f64[2]{0}, f64[], s32[])}" in lowered.as_text()


def test_a_runtime_format_spec_is_refused():
    def runtime_spec(x, w):
        s = x.sum()
        if s < 0:
            raise ValueError(f"{s:{w}}")
        return x
    with pytest.raises(tpucc.errors.StaticValueError, match=r"\[E400\] formatting a runtime"):
        tpucc.compile(runtime_spec)(np.ones(2), np.int64(3))


def _build(tmp_path) -> dict:
    """An artifact of P.doubling and one of P.formatted, built from their
    source: {entry name: its path}."""
    model = tmp_path / "raising_model.py"
    model.write_text("import numpy as np\nfrom tpucc.aot import entry\n\n"
                     f'@entry("f32[4]", "i64[]")\n{inspect.getsource(P.doubling)}\n'
                     f'@entry("f32[2]", "i64[]")\n{inspect.getsource(P.formatted)}')
    built = aot.build_file(str(model), str(tmp_path))
    return {os.path.basename(b.path).removesuffix(".tpucc"): b.path for b in built}


def test_artifacts_store_the_template_and_format_on_load(tmp_path):
    paths = _build(tmp_path)
    for name, args in [("doubling", (np.ones(4, np.float32), np.int64(9))),
                       ("formatted", (np.array([1.0, -2.5], np.float32), np.int64(1)))]:
        f = tpucc.load(paths[name])
        _same_error(getattr(P, name), *args, compiled=f)
    f = tpucc.load(paths["doubling"])
    assert f(np.ones(4, np.float32), np.int64(2)) == 16.0
    manifest = json.loads((tmp_path / "formatted.tpucc" / "manifest.json").read_text())
    [check] = [c for c in manifest["checks"] if "template" in c]
    assert check["message"] == "[" + "|".join(["<runtime value>"] * 7) + "]"
    assert [p if isinstance(p, str) else (p["weak"], p["scalar"], p["conversion"], p["spec"])
            for p in check["template"]][:6] == [
        "[", (None, True, None, ".2f"), "|", (None, True, "r", ""), "|", (None, True, None, ">12")]


def test_an_artifact_without_templates_still_loads(tmp_path):
    """Artifacts built before templates: the message with placeholders."""
    path = _build(tmp_path)["doubling"]
    mpath = tmp_path / "doubling.tpucc" / "manifest.json"
    manifest = json.loads(mpath.read_text())
    for check in manifest["checks"]:
        check.pop("template", None)
    mpath.write_text(json.dumps(tpucc.aot.build.seal_manifest(manifest)))
    f = tpucc.load(path)
    with pytest.raises(AssertionError, match=r"step <runtime value>: total <runtime value> "):
        f(np.ones(4, np.float32), np.int64(9))
