"""Ahead-of-time builds: `tpucc build` -> artifact -> `tpucc.load` in a fresh
process gives what the in-process `tpucc.compile` gives, with no XLA compile
and without the model's source; an artifact for another jax falls back to its
StableHLO module with a warning; every bad input is one clear tpucc message
and exit code 1."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest
from click.testing import CliRunner

import tpucc
from tpucc import aot
from tpucc.aot import spec
from tpucc.cli import main

from conftest import assert_same, child_env

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

# A fresh process: loads artifacts, counts XLA compiles (jax reports each
# backend compile as a monitoring event) and says whether it imported the model.
FRESH = '''
import sys, numpy as np, jax
compiles = []
jax.monitoring.register_event_duration_secs_listener(
    lambda name, secs, **kw: compiles.append(name) if "backend_compile" in name else None)
import tpucc
'''


def _python(script, timeout=180):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)],
                          capture_output=True, text=True, env=child_env(), timeout=timeout)


def _cli(*args, timeout=180):
    return subprocess.run([sys.executable, "-m", "tpucc.cli", *args], capture_output=True,
                          text=True, env=child_env(), timeout=timeout)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("artifacts")
    model = out / "collatz.py"
    model.write_text(COLLATZ)
    result = CliRunner().invoke(main, ["build", TINY, "--out", str(out), "--emit", "ir"])
    assert result.exit_code == 0, result.output
    assert f"built {out}/predict.tpucc" in result.output
    assert "executables: cpu" in result.output
    aot.build_file(str(model), str(out))
    return out


def _inputs():
    params = tiny_mlp.init_params(3)
    x, labels = tiny_mlp.example_batch(4)
    return params, x, labels


def test_fresh_process_equals_compile_without_compiling(built, tmp_path):
    params, x, labels = _inputs()
    collatz_x = np.array([6, 7, 27])
    np.savez(tmp_path / "in.npz", x=x, labels=labels, cx=collatz_x,
             **{f"p_{k}": v for k, v in params.items()})
    proc = _python(FRESH + f"""
d = np.load({str(tmp_path / 'in.npz')!r})
params = {{k: d['p_' + k] for k in ('w1', 'b1', 'w2', 'b2')}}
base = {str(built)!r}
predict, fit = tpucc.load(base + '/predict.tpucc'), tpucc.load(base + '/fit.tpucc')
probs = predict(params, d['x'])
new, loss, steps = fit(params, d['x'], d['labels'])
cx, csteps = tpucc.load(base + '/collatz_steps.tpucc')(d['cx'])
np.savez({str(tmp_path / 'out.npz')!r}, probs=probs, loss=loss, cx=cx, **new)
print(type(loss).__name__, repr(steps), repr(csteps), predict.using, len(compiles),
      "tiny_mlp" in sys.modules)
tpucc.load(base + '/predict.tpucc', prefer="stablehlo")(params, d['x'])
print("the StableHLO path compiles:", len(compiles) > 0)    # the count above can fail
""")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
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
    # float32 loss, Python int steps, the cpu executable, no XLA compile, no model import
    first, second = proc.stdout.splitlines()
    assert first.split() == ["float32", repr(steps), repr(csteps), "executable", "cpu", "0",
                             "False"]
    assert second == "the StableHLO path compiles: True"
    assert isinstance(steps, int) and csteps == 111


def test_tpucc_load_is_the_aot_loader():
    assert tpucc.load is aot.load


def test_cli_run_and_inspect(built, tmp_path):
    params, x, _ = _inputs()
    inputs = {f"params['{k}']": v for k, v in params.items()}
    np.savez(tmp_path / "in.npz", arg4=x, **inputs)       # paths and flat positions mix
    art = str(built / "predict.tpucc")
    proc = _cli("run", art, "--input", str(tmp_path / "in.npz"),
                "--output", str(tmp_path / "o.npz"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and proc.stdout.startswith(f"wrote {tmp_path / 'o.npz'}: out")
    assert_same(tpucc.compile(tiny_mlp.predict)(params, x), np.load(tmp_path / "o.npz")["out"])
    text = CliRunner().invoke(main, ["inspect", art]).output
    for expected in ("entry     predict", "params['w1']", "f32[8,4]", "targets   cpu",
                     "executable.cpu.bin (1 x cpu)", "jax 0.", "global `MEAN`"):
        assert expected in text, text
    assert os.path.isfile(built / "fit.tpucc" / "ir.txt")


def test_manifest_is_plain_json_with_signature_versions_and_source_hash(built):
    import hashlib
    m = json.loads((built / "fit.tpucc" / "manifest.json").read_text())
    assert m["format"] == "tpucc-artifact" and m["entry"] == "fit"
    with open(TINY, "rb") as f:
        assert m["model"]["sha256"] == hashlib.sha256(f.read()).hexdigest()
    assert set(m["versions"]) >= {"tpucc", "jax", "jaxlib", "libtpu", "python"}
    assert m["platform"]["targets"] == ["cpu"] and m["module"]["platforms"] == ["cpu"]
    [exe] = m["executables"]
    assert exe["target"] == "cpu" and exe["file"] == "executable.cpu.bin"
    assert exe["n_devices"] == 1 and exe["machine"] and exe["cpu_features"]
    # the argument pytree: (params dict, x, labels), with dtypes and shapes
    params_node, x_node, labels_node = m["inputs"]["args"]["tuple"]
    assert [k for k, _ in params_node["dict"]] == ["w1", "b1", "w2", "b2"]
    assert (x_node["dtype"], x_node["shape"]) == ("float32", [8, 4])
    assert (labels_node["dtype"], labels_node["shape"]) == ("int64", [8])
    # the result pytree: (dict, f32 loss, Python-int steps)
    new_node, loss_node, steps_node = m["outputs"]["tree"]["tuple"]
    assert loss_node["dtype"] == "float32" and steps_node["weak"] == "int"


def test_stablehlo_fallback_for_another_jax(built, tmp_path):
    art = _copy(built, tmp_path, "fit.tpucc")
    m = json.loads((art / "manifest.json").read_text())
    m["versions"]["jaxlib"] = "0.0.1"
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    with pytest.warns(aot.FallbackWarning, match="built with jaxlib 0.0.1, this is jaxlib"):
        f = aot.load(str(art))
    assert f.using == "stablehlo"
    params, x, labels = _inputs()
    assert_same(tpucc.compile(tiny_mlp.fit)(params, x, labels), f(params, x, labels))
    with pytest.raises(aot.ArgumentError, match=r"argument x expects f32\[8,4\], got f64"):
        f(params, x.astype(np.float64), labels)
    with pytest.raises(aot.ArgumentError, match=r"argument params\['w2'\] expects f32\[16,3\]"):
        f({**params, "w2": params["w2"][:2]}, x, labels)


def test_stablehlo_fallback_for_another_cpu(built, tmp_path):
    art = _copy(built, tmp_path)
    m = json.loads((art / "manifest.json").read_text())
    m["executables"][0]["cpu_features"] = "0123456789abcdef"
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    with pytest.warns(aot.FallbackWarning, match="built for cpu_features '0123456789abcdef'"):
        f = aot.load(str(art))
    params, x, _ = _inputs()
    assert f.using == "stablehlo"
    assert_same(tpucc.compile(tiny_mlp.predict)(params, x), f(params, x))


def test_fallback_in_a_fresh_process_warns_once(built, tmp_path):
    art = _copy(built, tmp_path)
    m = json.loads((art / "manifest.json").read_text())
    m["versions"]["jax"] = "0.0.1"
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    params, x, _ = _inputs()
    np.savez(tmp_path / "in.npz", x=x, **{f"params['{k}']": v for k, v in params.items()})
    proc = _cli("run", str(art), "--input", str(tmp_path / "in.npz"),
                "--output", str(tmp_path / "o.npz"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == (f"tpucc: warning: {art}: it was built with jax 0.0.1, this "
                                   f"is jax {tpucc.aot.build.versions()['jax']}; compiling its "
                                   "StableHLO module instead")
    assert_same(tpucc.compile(tiny_mlp.predict)(params, x), np.load(tmp_path / "o.npz")["out"])


def test_runtime_args_entry(tmp_path):
    model = tmp_path / "sgd.py"
    model.write_text(textwrap.dedent('''
        import numpy as np
        from tpucc.aot import entry

        @entry("f32[4]", 0.5, steps=3, runtime_args=("lr", "steps"))
        def descend(x, lr, steps):
            for _ in range(steps):
                x = x - lr * 2 * x
            return x, lr * 2
    '''))
    [b] = aot.build_file(str(model), str(tmp_path))
    f = tpucc.load(b.path)
    ns: dict = {}
    exec(compile(model.read_text(), str(model), "exec"), ns)
    compiled = tpucc.compile(ns["descend"], runtime_args=("lr", "steps"))
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    for lr, steps in ((0.5, 3), (0.125, 7), (-1.0, 0)):       # other values, no recompile
        assert_same(compiled(x, lr, steps=steps), f(x, lr, steps=steps))
    with pytest.raises(aot.ArgumentError, match="argument lr was built as a runtime float, "
                                                "got int 1"):
        f(x, 1, steps=2)
    text = CliRunner().invoke(main, ["inspect", b.path]).output
    assert re.search(r"arg1 +lr +float \(runtime Python scalar\)", text), text
    assert "runtime_args=['lr', 'steps']" in text
    np.savez(tmp_path / "in.npz", x=x, lr=np.float64(0.125), steps=np.int64(7))
    result = CliRunner().invoke(main, ["run", b.path, "--input", str(tmp_path / "in.npz"),
                                       "--output", str(tmp_path / "out.npz")])
    assert result.exit_code == 0, result.output
    got = np.load(tmp_path / "out.npz")
    expected = compiled(x, 0.125, steps=7)
    assert_same(expected[0], got["out[0]"])
    assert got["out[1]"][()] == expected[1] == 0.25


def test_run_writes_the_arguments_updated_in_place(tmp_path):
    model = tmp_path / "step.py"
    model.write_text(textwrap.dedent('''
        from tpucc.aot import entry

        @entry({"w": "f32[4]"}, "f32[4]", "f32[4]")
        def step(params, g, out):
            params["w"] -= 0.5 * g
            out += 1.0
            return params["w"].sum()
    '''))
    [b] = aot.build_file(str(model), str(tmp_path))
    w, g, o = np.ones(4, np.float32), np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    np.savez(tmp_path / "in.npz", **{"params['w']": w, "g": g, "out": o})
    result = CliRunner().invoke(main, ["run", b.path, "--input", str(tmp_path / "in.npz"),
                                       "--output", str(tmp_path / "o.npz")])
    assert result.exit_code == 0, result.output
    got = np.load(tmp_path / "o.npz")
    assert sorted(got.files) == ["arg2", "out", "params['w']"]     # `out` names the result
    np.testing.assert_array_equal(got["params['w']"], w - 0.5 * g)
    np.testing.assert_array_equal(got["arg2"], o + 1.0)
    assert got["out"][()] == np.float32((w - 0.5 * g).sum())


def test_spec_grammar():
    assert spec.parse("f32[8, 3,224,224]") == (np.dtype("float32"), (8, 3, 224, 224))
    assert spec.parse("i64[]") == (np.dtype("int64"), ())
    assert spec.parse("float64[2]") == (np.dtype("float64"), (2,))
    for bad in ("f32", "f32[8,x]", "f33[2]", "f32[-1]", "str[2]"):
        with pytest.raises(ValueError):
            spec.parse(bad)


# --- LAPACK: a deserialized CPU executable with LAPACK calls segfaults in a fresh process
# unless LAPACK was initialized first (jax issue 28908).  tpucc has no np.linalg op yet,
# so the artifact is a jax program given the manifest tpucc would write.

def _lapack_artifact(out):
    import jax
    import jax.numpy as jnp
    from tpucc.aot import build, targets
    structs = [jax.ShapeDtypeStruct((3, 3), np.float32), jax.ShapeDtypeStruct((3,), np.float32)]
    jitted = jax.jit(lambda a, b: (jnp.linalg.solve(a, b),))
    compiled = jitted.lower(*structs).compile()
    blob, info = build._serialize_executable(compiled, 2)
    assert info["uses_lapack"], "the test needs an executable with LAPACK calls"
    exported = jax.export.export(jitted, platforms=["cpu"])(*structs)
    files = {"module.stablehlo": bytes(exported.serialize()), "executable.cpu.bin": blob}
    cpu = targets.parse("cpu")
    record = {"target": "cpu", "file": "executable.cpu.bin", **info,
              **targets.describe_devices(cpu, jax.devices("cpu")[:1])}
    leaf = {"leaf": "array", "dtype": "float32"}
    flat = {"kind": "argument", "dtype": "float32"}
    manifest = {
        "format": build.FORMAT, "format_version": build.FORMAT_VERSION, "entry": "solve",
        "versions": build.versions(), "platform": {"targets": ["cpu"]},
        "inputs": {"n_args": 2, "args": {"tuple": [{**leaf, "input": 0, "shape": [3, 3],
                                                    "path": "a"},
                                                   {**leaf, "input": 1, "shape": [3],
                                                    "path": "b"}]},
                   "kwargs": {"dict": []},
                   "flat": [{**flat, "index": 0, "path": "a", "shape": [3, 3]},
                            {**flat, "index": 1, "path": "b", "shape": [3]}]},
        "outputs": {"tree": {"leaf": "runtime", "output": 0, "weak": None, "path": "out",
                             "dtype": "float32", "shape": [3]},
                    "n_runtime": 1},
        "module": {"file": "module.stablehlo", "platforms": ["cpu"],
                   "uses_lapack": "lapack" in exported.mlir_module()},
        "executables": [record],
        "files": {n: {"size": len(b), "sha256": __import__("hashlib").sha256(b).hexdigest()}
                  for n, b in files.items()},
    }
    return build._write(str(out), "solve", manifest, files, {})


def test_lapack_round_trip_in_a_fresh_process(tmp_path):
    path = _lapack_artifact(tmp_path)
    a = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], np.float32)
    b = np.array([1, 2, 3], np.float32)
    # the executable first: the StableHLO path would initialize LAPACK itself
    proc = _python(f"""
        import numpy as np, tpucc
        a = np.array({a.tolist()!r}, np.float32); b = np.array({b.tolist()!r}, np.float32)
        for prefer in ("executable", "stablehlo"):
            f = tpucc.load({path!r}, prefer=prefer)
            print(f.using.split()[0], repr(f(a, b).tolist()), flush=True)
    """)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr}"
    lines = proc.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == ["executable", "stablehlo"]
    for line in lines:
        np.testing.assert_allclose(eval(line.split(" ", 1)[1]), np.linalg.solve(a, b),
                                   rtol=1e-5)


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


def test_bad_entry_options(tmp_path):
    model = tmp_path / "badopt.py"
    model.write_text('from tpucc.aot import entry\n\n@entry("f32[8]", 0.5, runtime_args=("rate",))\n'
                     "def f(x, lr):\n    return x * lr\n")
    _fails(["build", str(model), "--out", str(tmp_path)], "runtime_args names 'rate'",
           f"{model}:3", "x, lr")


def test_malformed_target(tmp_path):
    _fails(["build", TINY, "--target", "gpu", "--out", str(tmp_path)], "malformed target 'gpu'",
           "tpu-v5e:2x2")
    _fails(["build", TINY, "--target", "tpu-v5e", "--out", str(tmp_path)], "no topology",
           "tpu-v5e:2x2")
    _fails(["build", TINY, "--target", "tpu-v5e:2xx", "--out", str(tmp_path)],
           "malformed target 'tpu-v5e:2xx'")
    assert not any(p.name.endswith(".tpucc") for p in tmp_path.iterdir())


def _copy(built, tmp_path, name="predict.tpucc"):
    art = tmp_path / name
    shutil.copytree(built / name, art)
    return art


def test_truncated_artifact(built, tmp_path):
    art = _copy(built, tmp_path)
    for name in ("executable.cpu.bin", "module.stablehlo"):
        data = (art / name).read_bytes()
        (art / name).write_bytes(data[: len(data) // 2])
    params, x, _ = _inputs()
    np.savez(tmp_path / "in.npz", x=x, **{f"params['{k}']": v for k, v in params.items()})
    _fails(["run", str(art), "--input", str(tmp_path / "in.npz"), "--output", "y.npz"],
           "is truncated")                  # the first of the two the manifest lists
    with pytest.raises(aot.ArtifactError, match="module.stablehlo is truncated"):
        aot.load(str(art), prefer="stablehlo")


def test_corrupted_artifact(built, tmp_path):
    art = _copy(built, tmp_path)
    data = bytearray((art / "executable.cpu.bin").read_bytes())
    data[len(data) // 2] ^= 0xFF                  # same size, one byte flipped
    (art / "executable.cpu.bin").write_bytes(bytes(data))
    with pytest.raises(aot.ArtifactError, match="executable.cpu.bin is corrupted: its sha256"):
        aot.load(str(art))
    os.remove(art / "executable.cpu.bin")
    with pytest.raises(aot.ArtifactError, match="is missing executable.cpu.bin"):
        aot.load(str(art))


def test_weights_are_mapped_and_verified_on_request(built, tmp_path):
    art = _copy(built, tmp_path)
    m = json.loads((art / "manifest.json").read_text())
    [mean] = [r for r in m["inputs"]["flat"] if r["kind"] == "captured"]
    assert (mean["offset"], mean["nbytes"], mean["dtype"]) == (0, 16, "float32")
    assert (art / "weights.bin").read_bytes() == tiny_mlp.MEAN.tobytes()
    data = bytearray((art / "weights.bin").read_bytes())
    data[0] ^= 0xFF                               # same size, one byte flipped
    (art / "weights.bin").write_bytes(bytes(data))
    aot.load(str(art))                            # sizes only: the weights are not read
    with pytest.raises(aot.ArtifactError, match="weights.bin is corrupted: its sha256"):
        aot.load(str(art), verify=True)
    _fails(["inspect", "--verify", str(art)], "weights.bin is corrupted")
    text = CliRunner().invoke(main, ["inspect", "--verify", str(built / "predict.tpucc")]).output
    assert "verified: the 3 files match the manifest's sizes and sha256" in text
    (art / "weights.bin").write_bytes(bytes(data[:-4]))
    with pytest.raises(aot.ArtifactError, match="weights.bin is truncated: 12 bytes"):
        aot.load(str(art))


def test_corrupted_manifest(built, tmp_path):
    art = _copy(built, tmp_path)
    text = (art / "manifest.json").read_text()
    (art / "manifest.json").write_text(text[: len(text) // 3])
    _fails(["inspect", str(art)], "manifest", "corrupted or truncated")
    (art / "manifest.json").write_text(text.replace(f'"format_version": {aot.build.FORMAT_VERSION}',
                                                      '"format_version": 9'))
    _fails(["inspect", str(art)], "format version 9")
    m = json.loads(text)
    del m["module"]["platforms"]
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    _fails(["inspect", str(art)], "manifest", "is corrupted: module.platforms is missing")
    with pytest.raises(aot.ArtifactError, match="is corrupted: module.platforms is missing"):
        aot.load(str(art))
    _fails(["inspect", str(tmp_path / "missing.tpucc")], "does not exist")


def test_artifact_for_another_backend_is_refused(tmp_path):
    result = CliRunner().invoke(main, ["build", TINY, "--entry", "predict", "--target", "cuda",
                                       "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "executables: none" in result.output
    assert "the cuda executable needs a CUDA machine" in result.output
    m = json.loads((tmp_path / "predict.tpucc" / "manifest.json").read_text())
    assert m["module"]["platforms"] == ["cuda"] and m["executables"][0]["file"] is None
    params, x, _ = _inputs()
    np.savez(tmp_path / "in.npz", x=x, **{f"params['{k}']": v for k, v in params.items()})
    _fails(["run", str(tmp_path / "predict.tpucc"), "--input", str(tmp_path / "in.npz"),
            "--output", str(tmp_path / "o.npz")],
           "was built for cuda; this process runs on cpu", "rebuild it with --target cpu")


def test_module_for_another_jax_is_refused_in_a_real_process(built, tmp_path):
    """What a StableHLO module from a jax too new for this one does: jax cannot
    deserialize it.  One message, exit status 1, no traceback."""
    import hashlib
    art = _copy(built, tmp_path)
    m = json.loads((art / "manifest.json").read_text())
    m["versions"]["jax"] = "9.9.9"
    blob = b"\x00" * 64
    (art / "module.stablehlo").write_bytes(blob)
    m["files"]["module.stablehlo"] = {"size": 64, "sha256": hashlib.sha256(blob).hexdigest()}
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    np.savez(tmp_path / "in.npz", x=np.zeros((8, 4), np.float32))
    proc = _cli("run", str(art), "--input", str(tmp_path / "in.npz"), "--output", "o.npz")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("tpucc: error: [E810]")
    assert "module.stablehlo does not load with jax" in proc.stderr
    assert "(the artifact was built with jax 9.9.9)" in proc.stderr
    assert proc.stderr.count("\n") <= 2, proc.stderr          # the message and its hint


def test_bad_run_inputs(built, tmp_path):
    art = str(built / "predict.tpucc")
    _fails(["run", art, "--input", str(tmp_path / "none.npz"), "--output", "o.npz"],
           "none.npz does not exist")
    np.savez(tmp_path / "in.npz", x=np.zeros((8, 4), np.float32))
    _fails(["run", art, "--input", str(tmp_path / "in.npz"), "--output", "o.npz"],
           "has no array for argument params['w1']")
    params, x, _ = _inputs()
    np.savez(tmp_path / "in.npz", x=x.astype(np.float64),
             **{f"params['{k}']": v for k, v in params.items()})
    _fails(["run", art, "--input", str(tmp_path / "in.npz"), "--output", "o.npz"],
           "argument x expects f32[8,4], got f64[8,4]")


def test_unwritable_out_dir(tmp_path):
    (tmp_path / "file").write_text("")
    result = CliRunner().invoke(main, ["build", TINY, "--out", str(tmp_path / "file")])
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("tpucc: error: [E800] the output directory") and \
        str(tmp_path / "file") in result.stderr


def test_a_build_replaces_an_artifact_and_nothing_else(tmp_path):
    args = ["build", TINY, "--entry", "predict", "--out", str(tmp_path)]
    for _ in range(2):                                  # again over its own artifact
        result = CliRunner().invoke(main, args + ["--emit", "ir"])
        assert result.exit_code == 0, result.output
    art = tmp_path / "predict.tpucc"
    (art / "notes.txt").write_text("mine")              # the user's file inside
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert "holds files that are not part of its artifact (notes.txt)" in result.stderr
    assert (art / "notes.txt").read_text() == "mine"
    (art / "manifest.json").unlink()                    # a folder of the user's
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "is not a tpucc artifact" in result.stderr
    assert (art / "notes.txt").exists()


def test_runtime_kind_of_a_0d_result(tmp_path):
    """Runtime branches that disagree on a 0-d result's kind (NumPy scalar or
    0-d array): the artifact's manifest names the output that decides it."""
    model = tmp_path / "kinds.py"
    model.write_text(textwrap.dedent('''
        import numpy as np
        from tpucc.aot import entry

        @entry("f64[2]")
        def pick(x):
            if x.sum() > 0:
                r = np.zeros(())
            else:
                r = x.sum()
            return r
    '''))
    [b] = aot.build_file(str(model), str(tmp_path))
    f = tpucc.load(b.path)
    ns: dict = {}
    exec(compile(model.read_text(), str(model), "exec"), ns)
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0])):
        assert_same(ns["pick"](x), f(x))
    assert type(f(np.array([1.0, 2.0]))) is np.ndarray


def test_entry_with_prints_builds_without_them(tmp_path, capfd):
    # An exported module cannot hold print's host callback: the build drops
    # print() (static text and runtime values alike) instead of failing.
    model = tmp_path / "noisy.py"
    model.write_text(textwrap.dedent('''
        from tpucc.aot import entry

        @entry("f32[2]")
        def step(x):
            print("step", x.sum())
            return x * 2
    '''))
    [b] = aot.build_file(str(model), str(tmp_path))
    capfd.readouterr()
    out = tpucc.load(b.path)(np.ones(2, np.float32))
    np.testing.assert_array_equal(out, [2.0, 2.0])
    assert capfd.readouterr().out == ""


CONVNET = '''
import numpy as np
from tpucc import nn
from tpucc.aot import entry

rng = np.random.default_rng(0)
W1 = rng.standard_normal((8, 3, 3, 3)).astype(np.float32)   # read by a convolution only
B1 = rng.standard_normal(8).astype(np.float32)
W2 = rng.standard_normal((4, 8, 3, 3)).astype(np.float32)   # also summed: logical


@entry("f32[2,3,8,8]")
def features(x):
    y = nn.relu(nn.conv2d(x, W1, B1, padding=1))
    return nn.conv2d(y, W2), W2.sum()
'''


@pytest.mark.parametrize("prefer", ["executable", "stablehlo"])
def test_conv_weights_are_stored_in_the_layout_the_convolution_reads(tmp_path, prefer):
    # An artifact's weights never change, so a conv weight read by
    # convolutions only is stored HWIO and no call transposes it; an array
    # read any other way stays as the user wrote it.
    model = tmp_path / "convnet.py"
    model.write_text(CONVNET)
    aot.build_file(str(model), str(tmp_path / "out"))
    art = tmp_path / "out" / "features.tpucc"
    m = json.loads((art / "manifest.json").read_text())
    _, w1, b1, w2 = m["inputs"]["flat"]
    assert (w1["shape"], w1["layout"]) == ([3, 3, 3, 8], [2, 3, 1, 0])
    assert "layout" not in b1 and "layout" not in w2 and w2["shape"] == [4, 8, 3, 3]
    namespace: dict = {}
    exec(compile(CONVNET, str(model), "exec"), namespace)
    stored = np.fromfile(art / "weights.bin", np.float32, count=w1["nbytes"] // 4)
    np.testing.assert_array_equal(stored.reshape(w1["shape"]),
                                  namespace["W1"].transpose(2, 3, 1, 0))
    x = np.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(np.float32)
    f = aot.load(str(art), prefer=prefer)
    assert_same(namespace["features"](x), f(x), rtol=1e-5, atol=1e-5)
    text = CliRunner().invoke(main, ["inspect", str(art)]).output
    assert "stored transposed: axes (2, 3, 1, 0) of the source's f32[8,3,3,3]" in text


NAMED_RESULTS = '''
import collections
import numpy as np
from tpucc.aot import entry

Stats = collections.namedtuple("Stats", "mean spread")


@entry("f64[3,3]")
def spectrum(a):
    return np.linalg.eigh(a @ a.T)


@entry("f32[4]")
def stats(x):
    return Stats(x.mean(), (x.max() - x.min(), x.std()))
'''


def test_named_tuple_results(tmp_path):
    """NumPy's result tuples (EighResult) come back as themselves; a named
    tuple class of the model file, whose module the loader never imports, as
    a stand-in with its name and fields."""
    model = tmp_path / "named.py"
    model.write_text(NAMED_RESULTS)
    built = {os.path.basename(b.path).split(".")[0]: b.path
             for b in aot.build_file(str(model), str(tmp_path))}
    ns: dict = {}
    exec(compile(NAMED_RESULTS, str(model), "exec"), ns)
    a = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])
    result = tpucc.load(built["spectrum"])(a)
    assert type(result) is type(np.linalg.eigh(a))
    np.testing.assert_allclose(result.eigenvalues, ns["spectrum"](a).eigenvalues, rtol=1e-12)
    x = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    script = (f"import numpy as np, tpucc\n"
              f"s = tpucc.load({built['stats']!r})(np.array({x.tolist()}, np.float32))\n"
              f"print(type(s).__name__, s._fields, s.mean, s.spread[1])")
    proc = _python(script)
    assert proc.returncode == 0, proc.stderr
    expected = ns["stats"](x)
    assert proc.stdout.split() == ["Stats", "('mean',", "'spread')", str(expected.mean),
                                   str(expected.spread[1])]
    text = CliRunner().invoke(main, ["inspect", built["stats"]]).output
    assert re.search(r"out\.mean +f32\[\]", text) and re.search(r"out\.spread\[1\] +f32", text)
    assert aot.tree.describe(json.loads(open(os.path.join(built["stats"], "manifest.json")).read())
                             ["outputs"]["tree"]) == "Stats(mean=f32[], spread=(f32[], f32[]))"
    np.savez(tmp_path / "in.npz", x=x)
    out = tmp_path / "o.npz"       # `tpucc run` in this process: the fresh one is above
    result = CliRunner().invoke(main, ["run", built["stats"], "--input", str(tmp_path / "in.npz"),
                                       "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(np.load(out)) == ["out.mean", "out.spread[0]", "out.spread[1]"]


@pytest.mark.parametrize("name, text, message", [
    ("model.txt", 'from tpucc.aot import entry\n@entry("f32[4]")\ndef f(x): return x\n',
     "is not a Python file (.py)"),
    ("huge.py", 'from tpucc.aot import entry\n@entry("f32[100000000000,100000000000]")\n'
                'def f(x): return x\n', "is larger than this machine can address"),
])
def test_model_files_the_build_refuses_clearly(tmp_path, name, text, message):
    model = tmp_path / name
    model.write_text(text)
    result = CliRunner().invoke(main, ["build", str(model), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("tpucc: error: [E800]") and message in result.stderr


def test_a_damaged_file_and_a_manifest_of_another_shape_are_found_at_load(built, tmp_path):
    art = _copy(built, tmp_path)
    module = art / "module.stablehlo"
    module.write_bytes(module.read_bytes()[:10])      # read only by a fallback compile
    with pytest.raises(aot.ArtifactError, match="module.stablehlo is truncated"):
        aot.load(str(art))
    art = _copy(built, tmp_path / "b")
    m = json.loads((art / "manifest.json").read_text())
    del m["inputs"]["args"]
    (art / "manifest.json").write_text(json.dumps(aot.build.seal_manifest(m)))
    with pytest.raises(aot.ArtifactError, match="is corrupted: inputs.args is missing"):
        aot.load(str(art))


@pytest.mark.parametrize("decorator, message", [
    ('@entry("f32[4]", "f32[4]")', "the specs do not fit f(x): too many positional arguments"),
    ('@entry("f32[4]", name="v2/f")', "entry name 'v2/f' cannot name an artifact directory"),
])
def test_entry_declarations_refused_at_the_decorator(tmp_path, decorator, message):
    model = tmp_path / "m.py"
    model.write_text(f"from tpucc.aot import entry\n\n{decorator}\ndef f(x):\n    return x\n")
    result = CliRunner().invoke(main, ["build", str(model), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and message in result.stderr, result.stderr
    assert f"{model}:3" in result.stderr


def test_loaded_static_nan_and_byte_swapped_arrays(tmp_path):
    model = tmp_path / "m.py"
    model.write_text(textwrap.dedent('''
        from tpucc.aot import entry

        @entry("f32[4]", float("nan"))
        def scaled(x, k):
            return x * 2
    '''))
    [b] = aot.build_file(str(model), str(tmp_path))
    f = tpucc.load(b.path)
    np.testing.assert_array_equal(f(np.ones(4, np.float32), float("nan")), np.full(4, 2.0))
    with pytest.raises(aot.ArgumentError, match="in this machine's byte order, got >f4"):
        f(np.ones(4, ">f4"), float("nan"))
    with pytest.raises(aot.ArgumentError, match="expects an array f32.4., got ShapeDtypeStruct"):
        f(jax.ShapeDtypeStruct((4,), np.float32), float("nan"))
