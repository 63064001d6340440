"""Ahead-of-time builds: `tpucc build` -> artifact -> `tpucc.aot.load` in a
fresh process gives what the in-process `tpucc.compile` gives; every bad
input is one clear tpucc message and exit code 1."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

import tpucc
from tpucc import aot
from tpucc.aot import spec
from tpucc.cli import main

from conftest import assert_same

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TINY = os.path.join(ROOT, "models", "tiny_mlp.py")
sys.path.insert(0, os.path.join(ROOT, "models"))
import tiny_mlp  # noqa: E402

COLLATZ = '''
import numpy as np
from tpucc.aot import entry

@entry("i64[3]")
def collatz_steps(x):
    steps = 0
    while x.max() > 1:
        x = np.where(x == 1, 1, np.where(x % 2 == 0, x // 2, 3 * x + 1))
        steps += 1
    return x, steps
'''


def _env():
    return {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": ROOT}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("artifacts")
    model = out / "collatz.py"
    model.write_text(COLLATZ)
    result = CliRunner().invoke(main, ["build", TINY, "--out", str(out), "--emit", "ir"])
    assert result.exit_code == 0, result.output
    assert "built" in result.output
    aot.build_file(str(model), str(out))
    return out


def _inputs():
    params = tiny_mlp.init_params(3)
    x, labels = tiny_mlp.example_batch(4)
    return params, x, labels


def test_fresh_process_equals_compile(built, tmp_path):
    params, x, labels = _inputs()
    collatz_x = np.array([6, 7, 27])
    np.savez(tmp_path / "in.npz", params=np.zeros(0), x=x, labels=labels, cx=collatz_x,
             **{f"p_{k}": v for k, v in params.items()})
    script = textwrap.dedent(f"""
        import sys, numpy as np
        from tpucc import aot
        d = np.load({str(tmp_path / 'in.npz')!r})
        params = {{k: d['p_' + k] for k in ('w1', 'b1', 'w2', 'b2')}}
        base = {str(built)!r}
        probs = aot.load(base + '/predict.tpucc')(params, d['x'])
        new, loss, steps = aot.load(base + '/fit.tpucc')(params, d['x'], d['labels'])
        cx, csteps = aot.load(base + '/collatz_steps.tpucc')(d['cx'])
        np.savez({str(tmp_path / 'out.npz')!r}, probs=probs, loss=loss, cx=cx, **new)
        print(type(loss).__name__, repr(steps), repr(csteps), "modules" ,
              "tiny_mlp" in sys.modules)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = np.load(tmp_path / "out.npz")
    probs = tpucc.compile(tiny_mlp.predict)(params, x)
    new, loss, steps = tpucc.compile(tiny_mlp.fit)(params, x, labels)
    namespace: dict = {}
    exec(compile(COLLATZ, "collatz", "exec"), namespace)
    cx, csteps = tpucc.compile(namespace["collatz_steps"])(collatz_x)
    assert_same(probs, got["probs"])
    assert_same(loss, got["loss"][()])
    assert_same(cx, got["cx"])
    for k in new:
        assert_same(new[k], got[k])
    assert proc.stdout.split() == ["float32", repr(steps), repr(csteps), "modules", "False"]
    assert isinstance(steps, int) and csteps == 111


def test_cli_run_and_inspect(built, tmp_path):
    params, x, _ = _inputs()
    inputs = {f"params['{k}']": v for k, v in params.items()}
    np.savez(tmp_path / "in.npz", arg4=x, **inputs)       # paths and flat positions mix
    art = str(built / "predict.tpucc")
    proc = subprocess.run([sys.executable, "-m", "tpucc.cli", "run", art, "--input",
                           str(tmp_path / "in.npz"), "--output", str(tmp_path / "o.npz")],
                          capture_output=True, text=True, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert_same(tpucc.compile(tiny_mlp.predict)(params, x), np.load(tmp_path / "o.npz")["out"])
    text = CliRunner().invoke(main, ["inspect", art]).output
    assert "entry     predict" in text and "params['w1']" in text and "f32[8,4]" in text
    assert os.path.isfile(built / "fit.tpucc" / "ir.txt")


def test_stablehlo_fallback_and_argument_errors(built, tmp_path, capfd):
    import shutil
    art = tmp_path / "fit.tpucc"
    shutil.copytree(built / "fit.tpucc", art)
    m = json.loads((art / "manifest.json").read_text())
    m["versions"]["jaxlib"] = "0.0.1"
    (art / "manifest.json").write_text(json.dumps(m))
    f = aot.load(str(art))
    assert f.using == "stablehlo" and "jaxlib 0.0.1" in capfd.readouterr().err
    params, x, labels = _inputs()
    assert_same(tpucc.compile(tiny_mlp.fit)(params, x, labels), f(params, x, labels))
    with pytest.raises(aot.ArgumentError, match=r"argument x expects f32\[8,4\], got f64"):
        f(params, x.astype(np.float64), labels)
    with pytest.raises(aot.ArgumentError, match=r"argument params\['w2'\] expects f32\[16,3\]"):
        f({**params, "w2": params["w2"][:2]}, x, labels)


def test_spec_grammar():
    assert spec.parse("f32[8, 3,224,224]") == (np.dtype("float32"), (8, 3, 224, 224))
    assert spec.parse("i64[]") == (np.dtype("int64"), ())
    assert spec.parse("float64[2]") == (np.dtype("float64"), (2,))
    for bad in ("f32", "f32[8,x]", "f33[2]", "f32[-1]", "str[2]"):
        with pytest.raises(ValueError):
            spec.parse(bad)


# --- one clear message and exit code 1 per bad input --------------------------------------

def _fails(args, *expected):
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    err = result.stderr
    assert err.startswith("tpucc: error: [E8"), err
    assert err.count("tpucc: error:") == 1 and "Traceback" not in err, err
    for e in expected:
        assert e in err, err
    return err


def test_missing_model(tmp_path):
    _fails(["build", str(tmp_path / "nope.py")], "nope.py does not exist")


def test_syntax_error(tmp_path):
    model = tmp_path / "broken.py"
    model.write_text("import numpy as np\n\ndef f(x):\n    return x +\n")
    _fails(["build", str(model), "--out", str(tmp_path)], "syntax error",
           f"{model}:4", "return x +")


def test_unknown_entry(tmp_path):
    _fails(["build", TINY, "--entry", "train", "--out", str(tmp_path)],
           "no entry named 'train'", "predict, fit")


def test_malformed_spec(tmp_path):
    model = tmp_path / "badspec.py"
    model.write_text('from tpucc.aot import entry\n\n@entry("f32[8,x]")\n'
                     "def f(x):\n    return x\n")
    _fails(["build", str(model), "--out", str(tmp_path)], "'f32[8,x]' of x is malformed",
           f"{model}:3", "DTYPE[DIMS]")


def _copy(built, tmp_path, name="predict.tpucc"):
    import shutil
    art = tmp_path / name
    shutil.copytree(built / name, art)
    return art


def test_truncated_artifact(built, tmp_path):
    art = _copy(built, tmp_path)
    for name in ("executable.bin", "module.stablehlo"):
        data = (art / name).read_bytes()
        (art / name).write_bytes(data[: len(data) // 2])
    _fails(["run", str(art), "--input", "x.npz", "--output", "y.npz"],
           "executable.bin is truncated")
    with pytest.raises(aot.ArtifactError, match="module.stablehlo is truncated"):
        aot.load(str(art), prefer="stablehlo")


def test_corrupted_manifest(built, tmp_path):
    art = _copy(built, tmp_path)
    text = (art / "manifest.json").read_text()
    (art / "manifest.json").write_text(text[: len(text) // 3])
    _fails(["inspect", str(art)], "manifest", "corrupted or truncated")
    (art / "manifest.json").write_text(text.replace('"format_version": 1', '"format_version": 9'))
    _fails(["inspect", str(art)], "format version 9")
    _fails(["inspect", str(tmp_path / "missing.tpucc")], "does not exist")
