"""Build targets (cpu, cuda without a GPU, TPU slices through libtpu), the
--emit texts, and the build's progress display (terminal, pipe, --quiet)."""
from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys

import pytest
from click.testing import CliRunner

import tpucc
from tpucc import aot
from tpucc.aot import targets
from tpucc.cli import main

from conftest import assert_same, child_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TINY = os.path.join(ROOT, "models", "tiny_mlp.py")
sys.path.insert(0, os.path.join(ROOT, "models"))
import tiny_mlp  # noqa: E402

needs_libtpu = pytest.mark.skipif(
    not targets.libtpu_installed(),
    reason='libtpu is not installed (pip install "tpucc[tpu]"): TPU slices cannot be '
           "compiled on this machine")


def _build(*args):
    return CliRunner().invoke(main, ["build", TINY, "--entry", "predict", *args])


def test_target_grammar():
    assert targets.parse("cpu") == targets.Target("cpu", "cpu")
    assert targets.parse("CUDA") == targets.Target("cuda", "cuda")
    v5e = targets.parse("tpu-v5e:2x2")
    assert (v5e.platform, v5e.generation, v5e.topology, v5e.tag) == \
        ("tpu", "v5e", "2x2", "tpu-v5e-2x2")
    assert targets.parse("tpu-v4:2x2x1").topology == "2x2x1"
    for bad in ("gpu", "tpu-v5e", "tpu-v5e:2", "tpu-v5e:2x0", "tpu:2x2", "tpu-v5e:2x2x2x2"):
        with pytest.raises(aot.BuildError):
            targets.parse(bad)
    assert [t.text for t in targets.parse_all(["cpu", "tpu-v5e:2x2", "cpu"])] == \
        ["cpu", "tpu-v5e:2x2"]


@pytest.fixture(scope="module")
def emitted(tmp_path_factory):
    """predict for cpu and cuda (no GPU here), with every --emit text."""
    out = tmp_path_factory.mktemp("emit")
    result = _build("--out", str(out), "--target", "cpu", "--target", "cuda",
                    "--emit", "ir", "--emit", "stablehlo", "--emit", "hlo",
                    "--emit", "optimized-hlo")
    assert result.exit_code == 0, result.output
    return out / "predict.tpucc", result.output


def test_emit_writes_each_stage(emitted):
    art, _ = emitted
    texts = {name: (art / name).read_text() for name in
             ("ir.txt", "module.mlir", "module.hlo.txt", "module.optimized.cpu.hlo.txt")}
    ir, mlir, hlo, optimized = texts.values()
    # tpucc's IR, with the model's source lines
    assert "= matmul(" in ir and re.search(r"# tiny_mlp\.py:\d+", ir), ir
    assert "global `MEAN`" in ir
    # the exported module: StableHLO for both platforms
    assert "stablehlo.dot_general" in mlir and "func.func public @main" in mlir
    assert "_platform_index" in mlir
    # XLA's HLO before and after optimization
    assert hlo.startswith("HloModule") and optimized.startswith("HloModule")
    assert "dot(" in hlo and "fusion" not in hlo
    assert "fusion" in optimized and optimized != hlo
    assert all(len(t) > 1000 for t in texts.values())
    assert set(json.loads((art / "manifest.json").read_text())["texts"]) == set(texts)


def test_cuda_without_a_gpu_exports_and_says_so(emitted):
    art, output = emitted
    assert "executables: cpu)" in output
    assert "note: cuda: only the StableHLO module was exported: the cuda executable needs a " \
           "CUDA machine" in output
    m = json.loads((art / "manifest.json").read_text())
    assert m["module"]["platforms"] == ["cpu", "cuda"]
    cpu, cuda = m["executables"]
    assert cpu["file"] == "executable.cpu.bin" and cuda["file"] is None
    assert not any(name.startswith("executable.cuda") for name in os.listdir(art))
    params, x = tiny_mlp.init_params(), tiny_mlp.example_batch()[0]
    f = tpucc.load(str(art))                     # the cpu executable: no warning
    assert f.using == "executable cpu"
    assert_same(tpucc.compile(tiny_mlp.predict)(params, x), f(params, x))


def test_plain_tpu_target_without_a_tpu(tmp_path):
    result = _build("--out", str(tmp_path), "--target", "tpu", "--quiet")
    assert result.exit_code == 0 and result.output == "" and result.stderr == ""
    m = json.loads((tmp_path / "predict.tpucc" / "manifest.json").read_text())
    assert m["module"]["platforms"] == ["tpu"]
    assert "this machine has no TPU" in m["executables"][0]["reason"]
    assert "--target tpu-v5e:2x2" in m["notes"][0]


def test_tpu_slice_without_libtpu(tmp_path, monkeypatch):
    monkeypatch.setattr(targets, "libtpu_installed", lambda: False)
    result = _build("--out", str(tmp_path), "--target", "tpu-v5e:2x2")
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("tpucc: error: [E800] the target tpu-v5e:2x2 compiles "
                                    "through libtpu, which is not installed")
    assert 'pip install "tpucc[tpu]"' in result.stderr


@needs_libtpu
def test_tpu_slices_compile_here(tmp_path):
    """Real TPU executables on a machine with no TPU, in a quiet process:
    libtpu's own start-up warnings must not reach stderr."""
    proc = subprocess.run([sys.executable, "-m", "tpucc.cli", "build", TINY, "--entry", "predict",
                           "--out", str(tmp_path), "--quiet", "--emit", "optimized-hlo",
                           "--target", "cpu", "--target", "tpu-v5e:2x2",
                           "--target", "tpu-v6e:1x1"],
                          capture_output=True, text=True, env=child_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "" and proc.stderr == ""
    art = tmp_path / "predict.tpucc"
    m = json.loads((art / "manifest.json").read_text())
    assert m["module"]["platforms"] == ["cpu", "tpu"]
    cpu, v5e, v6e = m["executables"]
    assert (v5e["device_kind"], v5e["n_devices"], v5e["topology"]) == ("TPU v5 lite", 4, "2x2")
    assert (v6e["device_kind"], v6e["n_devices"]) == ("TPU v6 lite", 1)
    assert v5e["libtpu"] == m["versions"]["libtpu"] == targets.package_version("libtpu")
    assert os.path.getsize(art / v5e["file"]) > 10_000
    tpu_hlo = (art / "module.optimized.tpu-v5e-2x2.hlo.txt").read_text()
    cpu_hlo = (art / "module.optimized.cpu.hlo.txt").read_text()
    assert "num_partitions=4" in tpu_hlo and "T(8,128)" in tpu_hlo and "T(8,128)" not in cpu_hlo
    params, x = tiny_mlp.init_params(), tiny_mlp.example_batch()[0]
    f = tpucc.load(str(art))                     # on this CPU: the cpu executable
    assert f.using == "executable cpu"
    assert_same(tpucc.compile(tiny_mlp.predict)(params, x), f(params, x))
    text = CliRunner().invoke(main, ["inspect", str(art)]).output
    assert "tpu-v5e:2x2        executable.tpu-v5e-2x2.bin (4 x TPU v5 lite, topology 2x2" in text


@needs_libtpu
def test_tpu_only_artifact_and_unknown_generation(tmp_path):
    result = _build("--out", str(tmp_path), "--target", "tpu-v5e:2x2")
    assert result.exit_code == 0, result.output
    with pytest.raises(aot.ArtifactError, match="was built for tpu-v5e:2x2; this process runs "
                                                "on cpu"):
        tpucc.load(str(tmp_path / "predict.tpucc"))
    result = _build("--out", str(tmp_path), "--target", "tpu-v9:2x2")
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert "libtpu cannot make the TPU slice tpu-v9:2x2" in result.stderr


_LOCK_HOLDER = """
import os
os.environ["ALLOW_MULTIPLE_LIBTPU_LOAD"] = "0"      # take libtpu's machine-wide lock file
from jax.experimental import topologies
try:
    topologies.get_topology_desc("v5e:2x2", platform="tpu")
    print("holding", flush=True)
except Exception:       # the test's own process holds it (it loaded libtpu earlier)
    print("held", flush=True)
input()
"""


@needs_libtpu
def test_slice_builds_while_another_process_holds_libtpu(tmp_path):
    """Two builds at once, or a build beside a process using libtpu: a
    compile-only slice does not need libtpu's lock file (it failed with
    "Internal error when accessing libtpu multi-process lockfile")."""
    holder = subprocess.Popen([sys.executable, "-c", _LOCK_HOLDER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env=child_env())
    try:
        assert holder.stdout.readline().strip() in ("holding", "held")
        build = [sys.executable, "-m", "tpucc.cli", "build", TINY, "--entry", "predict",
                 "--quiet", "--target", "tpu-v5e:2x2"]
        env = {k: v for k, v in child_env().items() if k != "ALLOW_MULTIPLE_LIBTPU_LOAD"}
        proc = subprocess.run(build + ["--out", str(tmp_path / "a")], capture_output=True,
                              text=True, env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        # The user's own setting wins, and the refusal says what to do.
        proc = subprocess.run(build + ["--out", str(tmp_path / "b")], capture_output=True,
                              text=True, env={**env, "ALLOW_MULTIPLE_LIBTPU_LOAD": "0"},
                              timeout=300)
        assert proc.returncode == 1 and "Traceback" not in proc.stderr
        assert "holds libtpu's lock file" in proc.stderr
        assert "set ALLOW_MULTIPLE_LIBTPU_LOAD=1" in proc.stderr
    finally:
        holder.kill()
        holder.wait()


# --- progress ---------------------------------------------------------------------------------

def _run_with_terminal_stderr(args, timeout=180):
    """(exit status, stdout, what the terminal on stderr showed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, env=child_env())
    os.close(slave)
    shown = b""
    while True:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            proc.kill()
            raise AssertionError("the build printed nothing for too long")
        try:
            chunk = os.read(master, 4096)
        except OSError:                          # the child closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    stdout = proc.stdout.read().decode()
    return proc.wait(), stdout, shown.decode()


def test_progress_on_a_terminal_and_silence_on_a_pipe(tmp_path):
    cmd = [sys.executable, "-m", "tpucc.cli", "build", TINY, "--entry", "predict",
           "--out", str(tmp_path)]
    status, stdout, shown = _run_with_terminal_stderr(cmd)
    assert status == 0, shown
    assert stdout.startswith(f"built {tmp_path}/predict.tpucc")
    # each stage is named while it runs, then rewritten with its time
    for stage in ("import model", "infer + lower", "export stablehlo", "xla cpu", "write"):
        assert re.search(rf"  {re.escape(stage)} +\.\.\.\r  {re.escape(stage)} +\d+\.\d ms",
                         shown), shown
    assert "entry predict" in shown and re.search(r"total \d+\.\d\d s", shown)
    piped = subprocess.run(cmd, capture_output=True, text=True, env=child_env(), timeout=180)
    assert piped.returncode == 0 and piped.stderr == ""
    assert piped.stdout.startswith(f"built {tmp_path}/predict.tpucc")


def test_quiet_and_forced_progress(tmp_path):
    result = _build("--out", str(tmp_path), "--quiet")
    assert result.exit_code == 0
    assert result.stdout == "" and result.stderr == ""
    result = _build("--out", str(tmp_path), "--progress")        # not a terminal here
    assert result.exit_code == 0
    assert re.search(r"^  xla cpu +\d+\.\d ms  \(executable\)$", result.stderr, re.M)
    assert "\r" not in result.stderr and "..." not in result.stderr
