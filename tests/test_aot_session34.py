"""Ahead-of-time fixes of sweep 34c: `tpucc build` tries every entry (each
success reported, each failure its own error, exit 1 if any failed); a
loaded artifact takes calls that rely on the entry's parameter defaults;
a spec larger than memory builds (its example takes no memory); tpucc.load
takes a bytes path; an entry returning a dataclass gets a hint; a loaded
artifact called inside compiled code is one E100 at the user's line; and
`tpucc run --output ""`, a repeated --entry, `tpucc inspect MODEL.py`."""
from __future__ import annotations

import os

import jax
import numpy as np
import pytest
from click.testing import CliRunner

import tpucc
from tpucc import aot
from tpucc.aot import spec
from tpucc.cli import main

from conftest import build_model_source

MODEL = '''
import numpy as np
from tpucc.aot import entry

@entry("f32[3]")
def double(x):
    return x * 2

@entry("f64[4]")
def posdef(x, scale=1.0):
    return x * scale

@entry("f64[4]", 2.0)
def pos_static(x, scale=2.0):
    return x * scale

@entry("f64[4]", bias=0.5)
def kwonly(x, *, bias=0.5):
    return x + bias

@entry("f64[4]", bias=0.7)
def other_bias(x, *, bias=0.5):
    return x + bias

@entry("f64[4]", lr=0.5, runtime_args=("lr",))
def scaled(x, lr=0.25):
    return x * lr

@entry("f64[4]")
def axes_default(x, shape=(2, 2), act=np.tanh):
    return act(x.reshape(shape))
'''

MIXED = '''
import numpy as np
from tpucc.aot import entry

@entry("f64[3]")
def good(a):
    return a * 2

@entry({"w": "f64[3]"})
def bad(p):
    p["w"] = p["w"] + 1
    return None

@entry("f64[3]")
def later(a):
    return a + 1

@entry("f64[3]")
def worse(a):
    return np.linalg.nope(a)
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out, model = build_model_source(tmp_path_factory, "model34", MODEL)
    return out, aot.load_model(str(model))


def _load(built, name):
    return aot.load(str(built[0] / f"{name}.tpucc"))


# --- 1. a build tries every entry ------------------------------------------------------------

def _mixed(tmp_path):
    model = tmp_path / "mixed34.py"
    model.write_text(MIXED)
    return model


def test_cli_build_reports_every_entry_and_fails(tmp_path):
    model = _mixed(tmp_path)
    out = tmp_path / "o"
    result = CliRunner().invoke(main, ["build", str(model), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert sorted(os.listdir(out)) == ["good.tpucc", "later.tpucc"]
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"built {out / 'good.tpucc'} (") and \
        lines[1].startswith(f"built {out / 'later.tpucc'} ("), result.stdout
    err = result.stderr
    assert err.startswith("tpucc: error: [E800] entry 'bad' assigns the item ['w'] of its "
                          "argument `p`"), err
    assert err.count("tpucc: error:") == 2 and "linalg" in err and "Traceback" not in err
    assert err.rstrip().endswith("tpucc: 2 of 4 entries failed (bad, worse); built 2"), err


def test_cli_build_of_one_failing_entry_says_it_once(tmp_path):
    model = _mixed(tmp_path)
    result = CliRunner().invoke(main, ["build", str(model), "--out", str(tmp_path / "o"),
                                       "--entry", "bad"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.count("tpucc: error: [E800]") == 1
    assert "entries failed" not in result.stderr        # (no summary for one entry)
    assert not (tmp_path / "o" / "bad.tpucc").exists()


def test_build_file_raises_the_first_failure_after_building_the_rest(tmp_path):
    model = _mixed(tmp_path)
    with pytest.raises(aot.BuildError, match="entry 'bad' assigns the item") as info:
        aot.build_file(str(model), str(tmp_path))
    notes = "\n".join(info.value.__notes__)
    assert "also built good.tpucc, later.tpucc" in notes and "'worse' failed too" in notes
    f = aot.load(str(tmp_path / "later.tpucc"))
    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0) + 1)


def test_build_file_reports_each_entry_to_callbacks(tmp_path):
    model = _mixed(tmp_path)
    built, failed = [], []
    result = aot.build_file(str(model), str(tmp_path), on_built=built.append,
                            on_failed=lambda name, e: failed.append((name, e.code)))
    assert [os.path.basename(b.path) for b in built] == ["good.tpucc", "later.tpucc"]
    assert result == built and [n for n, _ in failed] == ["bad", "worse"]


def test_repeated_entry_is_built_once(tmp_path):
    model = _mixed(tmp_path)
    result = CliRunner().invoke(main, ["build", str(model), "--out", str(tmp_path),
                                       "--entry", "good", "--entry", "good"])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("built ") == 1


# --- 2. parameter defaults of a loaded artifact ---------------------------------------------

def test_loaded_takes_the_default_a_parameter_was_built_with(built):
    x = np.arange(4.0)
    posdef = _load(built, "posdef")
    eager = built[1].posdef
    for args, kwargs in [((x,), {}), ((x, 1.0), {}), ((x,), {"scale": 1.0})]:
        np.testing.assert_array_equal(posdef(*args, **kwargs), eager(*args, **kwargs))
    kwonly = _load(built, "kwonly")
    np.testing.assert_array_equal(kwonly(x), built[1].kwonly(x))
    np.testing.assert_array_equal(kwonly(x, bias=0.5), built[1].kwonly(x, bias=0.5))
    pos_static = _load(built, "pos_static")           # a positional static spec's default
    np.testing.assert_array_equal(pos_static(x), built[1].pos_static(x))


def test_loaded_fills_a_runtime_scalar_with_its_default(built):
    x = np.arange(4.0)
    scaled = _load(built, "scaled")
    np.testing.assert_array_equal(scaled(x), built[1].scaled(x))            # lr = 0.25
    np.testing.assert_array_equal(scaled(x, lr=3.0), built[1].scaled(x, lr=3.0))


def test_loaded_refuses_another_value_for_a_parameter_left_at_its_default(built):
    posdef = _load(built, "posdef")
    with pytest.raises(aot.ArgumentError, match=r"posdef: argument 'scale' has no spec, so the "
                       r"artifact was built with its default 1.0; got 2.0") as info:
        posdef(np.ones(4), scale=2.0)
    assert "give it a spec in @entry" in info.value.hint
    with pytest.raises(aot.ArgumentError, match="'scale' has no spec"):
        posdef(np.ones(4), 2.0)


def test_loaded_refuses_an_omitted_argument_built_with_another_value(built):
    other = _load(built, "other_bias")
    with pytest.raises(aot.ArgumentError, match=r"other_bias: argument 'bias' is omitted, so "
                       r"it would take its default 0.5, but the artifact was built with "
                       r"bias = static 0.7") as info:
        other(np.ones(4))
    assert "pass bias as it was built" in info.value.hint
    np.testing.assert_array_equal(other(np.ones(4), bias=0.7), np.ones(4) + 0.7)


def test_loaded_defaults_of_containers_and_functions(built):
    x = np.arange(4.0)
    f = _load(built, "axes_default")
    np.testing.assert_allclose(f(x), built[1].axes_default(x))
    np.testing.assert_allclose(f(x, (2, 2)), built[1].axes_default(x, (2, 2)))
    with pytest.raises(aot.ArgumentError, match="'shape' has no spec, so the artifact was "
                       r"built with its default \(2, 2\); got \(4,\)"):
        f(x, shape=(4,))
    with pytest.raises(aot.ArgumentError, match=r"'act' has no spec, so the artifact was "
                       r"built with its default \(a ufunc, which an artifact cannot "
                       r"compare a value with\)") as info:
        f(x, act=np.tanh)
    assert info.value.hint.startswith("omit act")
    m = aot.read_manifest(str(built[0] / "axes_default.tpucc"))
    assert m["inputs"]["defaults"]["act"] == {"unstored": "ufunc"}


def test_unknown_argument_still_refused(built):
    with pytest.raises(aot.ArgumentError, match="posdef has no argument 'scal'") as info:
        _load(built, "posdef")(np.ones(4), scal=1.0)
    assert info.value.hint == "its arguments are: x, scale"


# --- 3. a spec larger than memory -----------------------------------------------------------

@pytest.mark.parametrize("given", [jax.ShapeDtypeStruct((100000, 100000), np.float32),
                                   "f32[100000,100000]"])
def test_a_spec_larger_than_memory_takes_none(given):
    import resource
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    x = spec.example(given, "x", "f", None)             # 37 GiB
    assert x.shape == (100000, 100000) and x.dtype == np.float32
    assert x.flags.c_contiguous and x.flags.writeable    # as an argument would be
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000   # KiB


def test_a_spec_larger_than_memory_builds(tmp_path):
    model = tmp_path / "big34.py"
    model.write_text("import numpy as np, jax\nfrom tpucc.aot import entry\n\n"
                     "@entry(jax.ShapeDtypeStruct((100000, 100000), np.float32))\n"
                     "def total(x):\n    return x.sum()\n")
    [b] = aot.build_file(str(model), str(tmp_path))
    m = aot.read_manifest(b.path)
    assert m["inputs"]["flat"][0]["shape"] == [100000, 100000]


def test_a_spec_past_the_address_space_is_e800():
    with pytest.raises(aot.BuildError, match=r"entry 'f': the spec 'f32\[100000000000,"
                       r"100000000000\]' of x is larger than this machine can address \(its size in "
                       r"bytes passes 2\*\*63\)"):
        spec.example("f32[100000000000,100000000000]", "x", "f", None)
    with pytest.raises(aot.BuildError, match=r"the spec f32\[1000000000,1000000000\] of "
                       "x is larger than this machine can address") as info:    # 3.5 EiB
        spec.example(jax.ShapeDtypeStruct((10 ** 9, 10 ** 9), np.float32), "x", "f", None)
    assert "more memory or address space" in info.value.hint


# --- 4. tpucc.load of a bytes path ----------------------------------------------------------

def test_load_takes_a_bytes_path(built):
    f = tpucc.load(os.fsencode(str(built[0] / "double.tpucc")))
    np.testing.assert_array_equal(f(np.ones(3, np.float32)), built[1].double(np.ones(3, np.float32)))


def test_load_refuses_a_path_of_another_type():
    with pytest.raises(tpucc.OptionError, match="the artifact path must be a str, bytes or "
                       "os.PathLike, not int"):
        tpucc.load(3)


# --- 5. a dataclass result ------------------------------------------------------------------

def test_entry_returning_a_dataclass_gets_a_hint(tmp_path):
    model = tmp_path / "state34.py"
    model.write_text("from dataclasses import dataclass\nimport numpy as np\n"
                     "from tpucc.aot import entry\n\n@dataclass\nclass State:\n"
                     "    w: np.ndarray\n    step: int\n\n@entry(\"f32[3]\")\n"
                     "def step(x):\n    return State(x * 2, 1)\n")
    with pytest.raises(aot.BuildError, match="entry 'step' returns a State object, which an "
                       "artifact cannot store") as info:
        aot.build_file(str(model), str(tmp_path))
    assert "dataclasses.asdict(s)" in info.value.hint and "NamedTuple" in info.value.hint
    assert info.value.loc.file == str(model) and info.value.loc.line == 10


# --- 6. a loaded artifact inside compiled code ----------------------------------------------

def test_loaded_artifact_called_in_compiled_code_is_e100_at_the_call(built):
    loaded = _load(built, "double")

    def outer(x):
        return loaded(x) + 1
    x = np.ones(3, np.float32)
    np.testing.assert_array_equal(outer(x), np.full(3, 3.0, np.float32))      # eagerly
    with pytest.raises(tpucc.UnsupportedError, match="calling the loaded artifact 'double' "
                       r"\(.*double.tpucc\) is not supported in compiled code") as info:
        tpucc.compile(outer)(x)
    e = info.value
    assert e.loc.file == __file__ and e.loc.func.endswith("outer")
    assert e.loc.source_line().strip() == "return loaded(x) + 1"
    assert "load.py" not in str(e)
    assert e.hint.startswith("call the entry's source function (double) instead")


# --- small ones: tpucc run --output, tpucc inspect MODEL.py ---------------------------------

@pytest.mark.parametrize("output", ["", "sub/"])
def test_run_refuses_an_output_naming_no_file(built, tmp_path, monkeypatch, output):
    np.savez(tmp_path / "in.npz", x=np.ones(3, np.float32))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["run", str(built[0] / "double.tpucc"), "--input",
                                       "in.npz", "--output", output])
    assert result.exit_code == 2, result.output
    assert f"{output!r} names no file; name the .npz to write" in result.output
    assert sorted(os.listdir(tmp_path)) == ["in.npz"]


def test_inspect_of_a_model_file_says_to_build_it(tmp_path):
    model = _mixed(tmp_path)
    result = CliRunner().invoke(main, ["inspect", str(model)])
    assert result.exit_code == 1
    assert result.stderr == (f"tpucc: error: [E810] {model} is a file, not an artifact: an "
                             "artifact is a folder NAME.tpucc holding manifest.json\n"
                             f"  hint: build its artifacts with `tpucc build {model}`, then "
                             "pass NAME.tpucc\n")
