"""Tooling fixes of session 26: errors name the file of the code that failed
when another file has the same code; a trace record replayed after an edit
above the function reports runtime errors at the current line; @entry names
and longdouble specs are refused at the decorator; manifests are checked for
their structure (E810 naming the field, also for JSON nested too deeply);
an argument over 1 TiB is an E200, not a MemoryError; Lowered.as_text takes
only the dialects it has; `tpucc build` resolves its paths before the model
can change the working directory; on/off environment variables warn about
values they do not take."""
from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

import tpucc
from tpucc import aot, cache, driver, envvars, snapshot
from tpucc.cli import main
from test_aot_session25 import _fails


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- 01: identical code in two files ----------------------------------------------------------

def test_an_error_names_the_file_of_the_code_that_failed(tmp_path):
    source = "def f(x, k):\n    return x + k\n"
    for name in ("v1", "v2"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "model.py").write_text(source)
    v1 = _import(tmp_path / "v1" / "model.py", "model_session26_v1")
    v2 = _import(tmp_path / "v2" / "model.py", "model_session26_v2")
    assert v1.f.__code__ == v2.f.__code__          # CPython's equality ignores the file
    tpucc.compile(v1.f, cache=False)(np.ones(3, np.int8), 1)
    with pytest.raises(tpucc.TpuccError) as e:
        tpucc.compile(v2.f, cache=False)(np.ones(3, np.int8), 300)
    assert e.value.loc.file == str(tmp_path / "v2" / "model.py")
    assert "return x + k" in str(e.value)


# --- 09: a replayed trace record after an edit above the function -----------------------------

IDX = """
import numpy as np
import tpucc


@tpucc.compile
def f(x, i):
    y = x * 2
    return y[i]
"""


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TPUCC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")
    monkeypatch.delenv("TPUCC_CACHE", raising=False)
    monkeypatch.delenv("TPUCC_CACHE_TRACES", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    cache.reset_stats()
    return tmp_path / "cache"


def _process(tmp_path, source):
    """The module as a new process imports it (see test_snapshot.process)."""
    (tmp_path / "idx_session26.py").write_text(source)
    sys.modules.pop("idx_session26", None)
    importlib.invalidate_caches()
    return importlib.import_module("idx_session26")


def _index_error_line(f) -> tuple[int, str]:
    with pytest.raises(IndexError) as e:
        f(np.arange(4.0), np.int64(9))
    return e.value.loc.line, str(e.value)


def test_replayed_record_reports_runtime_errors_at_the_current_line(tmp_path, cache_dir,
                                                                      monkeypatch):
    line, _ = _index_error_line(_process(tmp_path, IDX).f)
    assert line == 9
    moved = _process(tmp_path, "# a comment\n\n\n" + IDX).f
    runs = []
    real = driver.run_infer
    monkeypatch.setattr(driver, "run_infer", lambda *a, **k: runs.append(1) or real(*a, **k))
    assert moved(np.arange(4.0), np.int64(1)) == 2.0
    assert cache.stats()["trace_hits"] == 1 and runs == []     # replayed: no infer
    line, text = _index_error_line(moved)
    assert line == 12 and "return y[i]" in text
    assert _index_error_line(moved)[0] == 12 and len(runs) == 1    # traced once, for the error


def test_replayed_record_of_unmoved_code_keeps_its_locations(tmp_path, cache_dir, monkeypatch):
    _index_error_line(_process(tmp_path, IDX).f)
    f = _process(tmp_path, IDX).f
    monkeypatch.setattr(driver, "run_infer", lambda *a, **k: pytest.fail("infer ran"))
    line, text = _index_error_line(f)
    assert line == 9 and "return y[i]" in text
    assert cache.stats()["trace_hits"] == 1


# --- 04, 05: @entry name and specs -----------------------------------------------------------

def _model(tmp_path, decorator):
    path = tmp_path / "model.py"
    path.write_text(f"from tpucc.aot import entry\n\n{decorator}\ndef f(x):\n    return x\n")
    return path


@pytest.mark.parametrize("decorator, message", [
    ('@entry("f32[4]", name=3)', "@entry: name must be a string, not int (3)"),
    ('@entry("f32[4]", name=b"f")', "@entry: name must be a string, not bytes (b'f')"),
    ('@entry("f32[4]", name="")', "entry name '' cannot name an artifact directory"),
    ('@entry("f32[4]", name="a" * 201)', "cannot name an artifact directory"),
    ('@entry("longdouble[4]")', "entry 'f': the spec 'longdouble[4]' of x is malformed: dtype "
                                "'longdouble' (float128) is wider than compiled code can hold"),
    ('@entry("clongdouble[2]")', "the spec 'clongdouble[2]' of x is malformed"),
])
def test_entry_refusals_at_the_decorator(tmp_path, decorator, message):
    if "longdouble" in decorator and np.dtype(np.longdouble).itemsize == 8:
        pytest.skip("longdouble is float64 here")
    path = _model(tmp_path, decorator)
    with pytest.raises(aot.BuildError) as e:
        aot.build_file(str(path), str(tmp_path / "out"))
    assert message in e.value.message
    assert (e.value.loc.file, e.value.loc.line) == (str(path), 3)
    _fails(["build", str(path), "--out", str(tmp_path / "out")], "E800", message)


def test_entry_name_that_is_fine(tmp_path):
    path = _model(tmp_path, '@entry("f32[4]", name="f_v2.1-b")')
    [b] = aot.build_file(str(path), str(tmp_path / "out"))
    assert b.path == str(tmp_path / "out" / "f_v2.1-b.tpucc")


# --- 06, 07: the manifest's structure ---------------------------------------------------------

MODEL = '''
import numpy as np
from tpucc.aot import entry

@entry("f32[4]", {"a": "i32[2]"}, 0.5, runtime_args=("lr",))
def double(x, d, lr):
    return x * 2 * lr, {"k": d["a"] + 1, "s": 7}
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("artifacts")
    (out / "m.py").write_text(MODEL)
    aot.build_file(str(out / "m.py"), str(out))
    return out / "double.tpucc"


def _edited(built, tmp_path, edit):
    import shutil
    art = tmp_path / "double.tpucc"
    shutil.copytree(built, art)
    m = json.loads((art / "manifest.json").read_text())
    edit(m)
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    return art


def _args():
    return np.ones(4, np.float32), {"a": np.arange(2, dtype=np.int32)}, 0.5


EDITS = {
    "an empty node": (lambda m: m["inputs"]["args"]["tuple"].__setitem__(0, {}),
                      "inputs.args.tuple[0] should be a node: a leaf, or an object whose one "
                      "key is 'tuple', 'list', 'dict', 'namedtuple', not {}"),
    "an unknown dtype": (lambda m: m["inputs"]["args"]["tuple"][0].__setitem__("dtype", "x"),
                         "inputs.args.tuple[0].dtype should be a dtype compiled code holds "
                         "(unknown dtype 'x'), not \"x\""),
    "args a list": (lambda m: m["inputs"].__setitem__("args", [1]),
                    "inputs.args should be a {'tuple': ...} node, not [1]"),
    "tree a number": (lambda m: m["outputs"].__setitem__("tree", 5),
                      "outputs.tree should be a node"),
    "a nested leaf": (lambda m: m["inputs"]["args"]["tuple"][1]["dict"][0][1].__setitem__(
        "shape", [-2]), "inputs.args.tuple[1].dict[0][1].shape[0] should be a non-negative "
                        "integer, not -2"),
    "an input past n_args": (lambda m: m["inputs"]["args"]["tuple"][0].__setitem__("input", 9),
                             "inputs.args leaf 'x' should be an input below n_args (3), not 9"),
    "a bad static": (lambda m: m["outputs"]["tree"]["tuple"][1]["dict"][1][1].__setitem__(
        "value", {"float": "zz"}), "outputs.tree.tuple[1].dict[1][1].value should be a static"),
    "a bool count": (lambda m: m["inputs"].__setitem__("n_args", True),
                     "inputs.n_args should be a non-negative integer, not true"),
    "a missing field": (lambda m: m["module"].pop("platforms"), "module.platforms is missing"),
    "build times a number": (lambda m: m.__setitem__("build_times_s", 1.5),
                             "build_times_s should be an object, not 1.5"),
}


@pytest.mark.parametrize("what", sorted(EDITS))
def test_a_resealed_manifest_of_another_shape_is_refused_naming_the_field(built, tmp_path,
                                                                          what):
    edit, message = EDITS[what]
    art = _edited(built, tmp_path, edit)
    with pytest.raises(aot.ArtifactError) as e:
        aot.load(str(art))(*_args())
    assert f"the manifest {art}/manifest.json is corrupted: {message}" in e.value.message
    _fails(["inspect", str(art)], "E810", message)


def test_an_unedited_manifest_still_loads(built, tmp_path):
    art = _edited(built, tmp_path, lambda m: None)
    out, d = aot.load(str(art))(*_args())
    assert out.tolist() == [1.0] * 4 and d["s"] == 7


def test_a_manifest_nested_too_deeply_is_corrupted(built, tmp_path):
    art = _edited(built, tmp_path, lambda m: None)
    (art / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    _fails(["inspect", str(art)], "E810", "manifest.json is corrupted or truncated")
    with pytest.raises(aot.ArtifactError, match="corrupted or truncated"):
        aot.load(str(art))


# --- 08: an argument over 1 TiB --------------------------------------------------------------

def test_a_huge_broadcast_view_argument_is_an_e200():
    x = np.broadcast_to(np.ones(1), (10**6, 10**6))        # 8 TB virtual, 8 bytes real
    with pytest.raises(tpucc.TpuccError) as e:
        tpucc.compile(lambda x: x[0, :3].sum(), cache=False)(x)
    assert e.value.code == "E200"
    assert "argument x is an array of 7.28 TiB (shape (1000000, 1000000), float64): tpucc " \
           "refuses arrays over 1 TiB" in e.value.message


HUGE = np.broadcast_to(np.ones(1, np.float32), (10**6, 10**6))


def test_a_huge_captured_array_is_an_e200_at_its_line():
    def f(x):
        return x + HUGE[0, :3]
    with pytest.raises(tpucc.TpuccError) as e:
        tpucc.compile(f, cache=False)(np.ones(3, np.float32))
    assert e.value.code == "E200" and "global `HUGE` is an array of 3.64 TiB" in e.value.message
    assert e.value.loc.line == f.__code__.co_firstlineno + 1


# --- 18: Lowered.as_text ---------------------------------------------------------------------

def test_lowered_as_text_takes_its_dialects_only():
    lowered = tpucc.compile(lambda x: x + 1, cache=False).lower(np.ones(2))
    assert "HloModule" in lowered.as_text("hlo")
    assert "stablehlo" in lowered.as_text("stablehlo")
    for bad in ("mlir-bogus", None, 3):
        with pytest.raises(tpucc.TpuccError) as e:
            lowered.as_text(bad)
        assert e.value.code == "E050"
        assert f"dialect must be one of 'hlo', 'stablehlo', not {bad!r}" in e.value.message


# --- 19: tpucc build and a model that changes the working directory ---------------------------

def test_build_resolves_paths_before_the_model_changes_directory(tmp_path, monkeypatch):
    (tmp_path / "sub" / "data").mkdir(parents=True)
    (tmp_path / "sub" / "model.py").write_text(textwrap.dedent("""
        import os
        os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
        from tpucc.aot import entry

        @entry("f32[4]")
        def double(x):
            return x * 2
    """))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["build", "sub/model.py", "--out", "out"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("built out/double.tpucc (")
    assert (tmp_path / "out" / "double.tpucc" / "manifest.json").is_file()
    assert not (tmp_path / "sub" / "data" / "out").exists()
    m = json.loads((tmp_path / "out" / "double.tpucc" / "manifest.json").read_text())
    assert m["model"]["path"] == str(tmp_path / "sub" / "model.py")


# --- on/off environment variables -------------------------------------------------------------

@pytest.mark.parametrize("name, read", [
    ("TPUCC_CACHE", lambda: cache.directory() is not None),
    ("TPUCC_CACHE_TRACES", snapshot.enabled),
])
def test_on_off_variables_warn_about_other_values(monkeypatch, name, read):
    monkeypatch.setenv(name, f"maybe-{name}")
    with pytest.warns(envvars.EnvironmentWarning, match=f"{name}='maybe-{name}' is not one of"):
        assert read() is True                   # the default: on
    for value, on in (("0", False), ("Off", False), ("no", False), (" 1 ", True),
                      ("yes", True), ("", True)):
        monkeypatch.setenv(name, value)
        assert read() is on
