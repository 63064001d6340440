"""Ahead-of-time fixes of session 25: `tpucc run` refuses an input that is
not an .npz and a runtime scalar saved as a 0-d array of another kind
(E820, no traceback); an edited manifest is refused at load (E810, its own
checksum), as is one of an older format; loaded artifacts take keyword
arguments and name a read-only argument by its path; E800 for a write-back
an artifact cannot replay points at the line that assigns."""
from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

import tpucc
from tpucc import aot
from tpucc.cli import main
from test_aot import _copy

from conftest import build_model_source

STEP = '''
import numpy as np
from tpucc.aot import entry

@entry("f64[3]", {"b": "f64[3]", "w": "f64[3]"}, 0.1, runtime_args=("lr",))
def step(x, params, lr):
    params["w"] -= lr * x
    return params["w"].sum() + params["b"].sum()

@entry("f32[3]", 2, runtime_args=("n",))
def power(x, n):
    return x * n

@entry("f32[5,3]")
def double(x):
    return x * 2

@entry("f32[3]", lr=0.5, runtime_args=("lr",))
def scaled(x, lr):
    return x * lr

@entry("f32[3]")
def only_positional(x, /):
    return x + 1
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_model_source(tmp_path_factory, "step_model", STEP)[0]


def _fails(args, code, *expected):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    err = result.stderr
    assert err.startswith(f"tpucc: error: [{code}]"), err
    assert err.count("tpucc: error:") == 1 and "Traceback" not in err, err
    for e in expected:
        assert e in err, err
    return err


def _run(built, name, npz, out):
    return ["run", str(built / f"{name}.tpucc"), "--input", str(npz), "--output", str(out)]


def _params():
    return {"b": np.ones(3), "w": np.ones(3)}


# --- tpucc run: the .npz and the runtime scalars in it -------------------------------------

@pytest.mark.parametrize("value, got", [
    (np.array("a"), "a 0-d str array holding 'a'"),
    (np.array("0.5"), "a 0-d str array holding '0.5'"),     # numeric-looking: still refused
    (np.array(b"0.5"), "a 0-d bytes array"),
    (np.array(1 + 2j), "a 0-d complex128 array"),
    (np.array(np.datetime64("2020-01-01")), "a 0-d datetime64[D] array"),
    (np.array([0.5]), "a float64 array of shape (1,)"),
])
def test_run_refuses_a_runtime_float_of_another_kind(built, tmp_path, value, got):
    np.savez(tmp_path / "in.npz", x=np.ones(3), **{"params['b']": np.ones(3),
                                                   "params['w']": np.ones(3)}, lr=value)
    _fails(_run(built, "step", tmp_path / "in.npz", tmp_path / "o.npz"), "E820",
           "argument lr is a runtime Python float: it takes a 0-d bool, integer or float "
           "array, got " + got, "np.array(0.5)")
    assert not (tmp_path / "o.npz").exists()


def test_run_refuses_a_float_for_a_runtime_int_and_takes_exact_kinds(built, tmp_path):
    np.savez(tmp_path / "in.npz", x=np.ones(3, np.float32), n=np.array(2.5))
    _fails(_run(built, "power", tmp_path / "in.npz", tmp_path / "o.npz"), "E820",
           "argument n is a runtime Python int: it takes a 0-d bool or integer array, got a "
           "0-d float64 array holding 2.5")
    np.savez(tmp_path / "in.npz", x=np.ones(3, np.float32), n=np.array(3, np.uint8))
    result = CliRunner().invoke(main, _run(built, "power", tmp_path / "in.npz",
                                           tmp_path / "o.npz"))
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(tmp_path / "o.npz")["out"], np.full(3, 3.0))
    # an integer array for a runtime float is exact, and taken
    np.savez(tmp_path / "in.npz", x=np.ones(3), lr=np.array(2),
             **{"params['b']": np.zeros(3), "params['w']": np.ones(3)})
    result = CliRunner().invoke(main, _run(built, "step", tmp_path / "in.npz",
                                           tmp_path / "o.npz"))
    assert result.exit_code == 0, result.output
    assert float(np.load(tmp_path / "o.npz")["out"]) == -3.0


def test_run_input_that_is_not_an_npz(built, tmp_path):
    script = tmp_path / "inputs.py"
    script.write_text("import numpy as np\nx = np.ones(3)\n")
    err = _fails(_run(built, "double", script, tmp_path / "o.npz"), "E820",
                 f"input file {script} is not an .npz file", "np.savez")
    assert "pickled" not in err
    np.save(tmp_path / "x.npy", np.ones((5, 3), np.float32))
    _fails(_run(built, "double", tmp_path / "x.npy", tmp_path / "o.npz"), "E820",
           "is a .npy file (one array)", "an .npz written by np.savez")
    (tmp_path / "broken.npz").write_bytes(b"PK\x03\x04" + b"\x00" * 40)
    _fails(_run(built, "double", tmp_path / "broken.npz", tmp_path / "o.npz"), "E820",
           "broken.npz is not a readable .npz file")
    np.savez(tmp_path / "objects.npz", x=np.array([{"a": 1}], dtype=object))
    _fails(_run(built, "double", tmp_path / "objects.npz", tmp_path / "o.npz"), "E820",
           "array 'x' of", "holds Python objects")


# --- the manifest's own checksum and format version ----------------------------------------

def test_an_edited_manifest_is_refused_at_load(built, tmp_path):
    art = _copy(built, tmp_path, "double.tpucc")
    m = json.loads((art / "manifest.json").read_text())
    assert m["format_version"] == aot.build.FORMAT_VERSION == 3
    assert m["manifest_sha256"] == aot.build.manifest_digest(m)
    m["inputs"]["args"]["tuple"][0]["shape"] = [6, 3]       # valid JSON, a wrong shape
    for r in m["inputs"]["flat"]:
        r["shape"] = [6, 3]
    (art / "manifest.json").write_text(json.dumps(m, indent=1))
    with pytest.raises(aot.ArtifactError, match=r"manifest.json is corrupted: its contents "
                                                r"do not match its checksum"):
        tpucc.load(str(art))
    np.savez(tmp_path / "in.npz", x=np.ones((6, 3), np.float32))
    _fails(_run(tmp_path, "double", tmp_path / "in.npz", tmp_path / "o.npz"), "E810",
           "do not match its checksum (manifest_sha256)")
    _fails(["inspect", str(art)], "E810", "do not match its checksum")
    # one digit changed, the same bytes otherwise
    text = (built / "double.tpucc" / "manifest.json").read_text()
    (art / "manifest.json").write_text(text.replace('"shape": [\n     5,', '"shape": [\n     4,'))
    assert (art / "manifest.json").read_text() != text
    with pytest.raises(aot.ArtifactError, match="do not match its checksum"):
        tpucc.load(str(art))
    del m["manifest_sha256"]
    (art / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(aot.ArtifactError, match="do not match its checksum"):
        tpucc.load(str(art))
    # the original, reformatted: still the same contents
    (art / "manifest.json").write_text(json.dumps(json.loads(text)))
    f = tpucc.load(str(art))
    np.testing.assert_array_equal(f(np.ones((5, 3), np.float32)), np.full((5, 3), 2.0))


@pytest.mark.parametrize("version, message", [
    (2, "was built by an older tpucc (format version 2; this tpucc"),
    (99, "was built by a newer tpucc (format version 99"),
    ("3", "has an unknown format version '3'"),
])
def test_artifacts_of_another_format_version(built, tmp_path, version, message):
    art = _copy(built, tmp_path, "double.tpucc")
    m = json.loads((art / "manifest.json").read_text())
    m["format_version"] = version
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    with pytest.raises(aot.ArtifactError, match=message.replace("(", r"\(")):
        tpucc.load(str(art))
    err = _fails(["inspect", str(art)], "E810", message)
    if version == 2:
        assert "rebuild it with `tpucc build`" in err


# --- keyword arguments, and the read-only argument by its path -----------------------------

def test_loaded_artifact_takes_keyword_arguments(built):
    f = tpucc.load(str(built / "step.tpucc"))
    x = np.array([1.0, 2.0, 3.0])
    want = tpucc.compile(lambda x, params, lr: (params["w"] - lr * x).sum() + 3.0)(
        x, _params(), 0.1)
    for args, kwargs in [((), {"x": x, "params": _params(), "lr": 0.1}),
                         ((x,), {"lr": 0.1, "params": _params()}),
                         ((x, _params()), {"lr": 0.1}),
                         ((x, _params(), 0.1), {})]:
        assert f(*args, **kwargs) == pytest.approx(want)
    params = _params()
    f(lr=0.5, params=params, x=x)                       # updated in place, as by position
    np.testing.assert_allclose(params["w"], 1 - 0.5 * x)
    with pytest.raises(aot.ArgumentError, match=r"step has no argument 'rate'") as e:
        f(x, _params(), rate=0.1)
    assert "its arguments are: x, params, lr" in e.value.hint
    with pytest.raises(aot.ArgumentError, match=r"step got argument 'x' twice"):
        f(x, _params(), 0.1, x=x)
    with pytest.raises(aot.ArgumentError, match=r"step is missing arguments 'params', 'lr'"):
        f(x=x)
    with pytest.raises(aot.ArgumentError, match=r"step takes 3 positional arguments, got 4"):
        f(x, _params(), 0.1, 0.2)
    with pytest.raises(aot.ArgumentError, match=r"argument params\['w'\] expects f64\[3\]"):
        f(x=x, params={"b": np.ones(3), "w": np.ones(4)}, lr=0.1)


def test_keyword_entries_by_position_and_positional_only_parameters(built):
    g = tpucc.load(str(built / "scaled.tpucc"))            # built with lr= a keyword
    x = np.ones(3, np.float32)
    np.testing.assert_array_equal(g(x, lr=0.25), np.full(3, 0.25))
    np.testing.assert_array_equal(g(x, 0.25), np.full(3, 0.25))
    np.testing.assert_array_equal(g(lr=0.25, x=x), np.full(3, 0.25))
    with pytest.raises(aot.ArgumentError, match=r"scaled got argument 'lr' twice"):
        g(x, 0.25, lr=0.25)
    with pytest.raises(aot.ArgumentError, match=r"scaled is missing argument 'lr'"):
        g(x)
    h = tpucc.load(str(built / "only_positional.tpucc"))
    np.testing.assert_array_equal(h(x), np.full(3, 2.0))
    with pytest.raises(aot.ArgumentError, match=r"argument 'x' is positional-only"):
        h(x=x)


def test_a_read_only_argument_updated_in_place_is_named_by_its_path(built):
    f = tpucc.load(str(built / "step.tpucc"))
    read_only = np.frombuffer(np.ones(3).tobytes())
    with pytest.raises(tpucc.TpuccError, match=r"argument params\['w'\] is read-only"):
        f(np.ones(3), {"b": np.ones(3), "w": read_only}, 0.1)
    np.testing.assert_array_equal(read_only, np.ones(3))


# --- E800 at the line that assigns what an artifact cannot replay --------------------------

REBINDS = '''
import numpy as np
import rebind_state
from tpucc.aot import entry

N = 0
STATE = {"w": np.ones(3, np.float32)}


@entry({"w": "f32[3]"}, "f32[3]")
def item(params, g):
    for k in params:
        params[k] = params[k] - 0.5 * g         # item
    return params["w"].sum()


@entry("f32[3]")
def module_attribute(g):
    y = g * 2
    rebind_state.w = rebind_state.w - y         # module_attribute
    return y


@entry("f32[3]")
def global_number(g):
    global N
    y = g * 2
    N += 1                                      # global_number
    return y


@entry("f32[3]")
def outside_item(g):
    y = g * 2
    STATE["w"] = STATE["w"] - y                 # outside_item
    return y
'''


@pytest.mark.parametrize("name, message", [
    ("item", "assigns the item ['w'] of its argument `params`"),
    ("module_attribute", "assigns the attribute .w of a module object"),
    ("global_number", "assigns the global `N`"),
    ("outside_item", "assigns the item ['w'] of a dict from outside"),
])
def test_unreplayable_writes_are_placed_at_the_assigning_line(tmp_path, name, message):
    (tmp_path / "rebind_state.py").write_text("import numpy as np\nw = np.ones(3, np.float32)\n")
    model = tmp_path / "rebinds.py"
    model.write_text(textwrap.dedent(REBINDS))
    line = next(i for i, text in enumerate(REBINDS.splitlines(), 1)
                if text.endswith(f"# {name}"))
    err = _fails(["build", str(model), "--entry", name, "--out", str(tmp_path / "o")], "E800",
                 message, "which a loaded artifact cannot replay", f"{model}:{line} (in {name})",
                 f"# {name}")
    assert "@entry" not in err
