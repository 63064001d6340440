"""The main-job benchmark (models/demo.py) at a tiny size, and its PNG chart
writer (models/pngchart.py).

The smoke test runs the real main() end to end, forward and training step,
on a VGG19 with fewer layers (CONFIG_E patched) so that the compilations fit
in seconds; the layer code, the implementations and the checks are the
demo's own."""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models")
sys.path.insert(0, MODELS)

import demo        # noqa: E402
import pngchart    # noqa: E402
import vgg19       # noqa: E402

# Five pools (the classifier sees 32 // 32 = 1 pixel), two small convolutions:
# XLA's compile time grows with the number of layers.
SMALL_CONFIG = [8, "M", 16, "M", "M", "M", "M"]


@pytest.fixture
def small_vgg(monkeypatch):
    monkeypatch.setattr(vgg19, "CONFIG_E", SMALL_CONFIG)


@pytest.fixture
def no_settling(monkeypatch):
    """The benchmark's waits for accurate timings, which no test reads: the
    1 s pause before each first call (quiesce: about 9 s of sleep per main())
    and the 1 s busy warm-up of each matmul peak product.  What is measured
    and checked is unchanged."""
    monkeypatch.setattr(demo, "quiesce", lambda seconds=1.0: None)
    measure_peak = demo.matmul_peak
    monkeypatch.setattr(demo, "matmul_peak",
                        lambda *args, **kw: measure_peak(*args, **{**kw, "warmup": 0.01}))


def read_png(data: bytes) -> np.ndarray:
    """A strict reader for what encode_png writes: checks the signature, every
    chunk's CRC, the IHDR fields and the chunk order; returns (H, W, 3) uint8."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF, kind
        chunks.append((kind, body))
        pos += 12 + length
    assert pos == len(data)
    kinds = [k for k, _ in chunks]
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
    width, height, depth, color, comp, filt, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, color, comp, filt, interlace) == (8, 2, 0, 0, 0)
    raw = zlib.decompress(b"".join(body for k, body in chunks if k == b"IDAT"))
    rows = np.frombuffer(raw, np.uint8).reshape(height, 1 + 3 * width)
    assert (rows[:, 0] == 0).all()              # filter type 0 on every scanline
    return rows[:, 1:].reshape(height, width, 3)


# --- the PNG encoder and the chart ----------------------------------------------------------

def test_png_round_trip():
    pixels = np.random.default_rng(0).integers(0, 256, (7, 5, 3), dtype=np.uint8)
    decoded = read_png(pngchart.encode_png(pixels))
    assert decoded.dtype == np.uint8 and decoded.shape == (7, 5, 3)
    np.testing.assert_array_equal(decoded, pixels)


@pytest.mark.parametrize("bad", [np.zeros((4, 4), np.uint8), np.zeros((4, 4, 3), np.float32),
                                 np.zeros((0, 4, 3), np.uint8)])
def test_png_rejects_bad_images(bad):
    with pytest.raises(ValueError):
        pngchart.encode_png(bad)


def test_font_covers_the_labels():
    labels = "tpucc (NumPy source, NCHW) jax.jit hand-written NHWC PyTorch 2.13.0+cpu eager " \
             "device_cache=True torch.compile 12.5 ms 100% x"
    assert all(ch in pngchart.FONT for ch in labels)
    assert all(g.shape == (pngchart.GLYPH_HEIGHT, pngchart.GLYPH_WIDTH)
               for g in pngchart.FONT.values())
    assert pngchart.FONT[" "].sum() == 0 and pngchart.FONT["8"].sum() > 0
    assert len({g.tobytes() for g in pngchart.FONT.values()}) == len(pngchart.FONT)
    assert pngchart.glyph("\u00e9").sum() > 0           # unknown characters: a box


def color_run(image, color) -> list:
    """Per row, the number of pixels of exactly `color`."""
    return (image == np.array(color, np.uint8)).all(axis=2).sum(axis=1)


def test_bar_lengths_are_proportional():
    image = pngchart.bar_chart("t", [("p", [("tpucc", 100.0), ("other", 50.0)])],
                               highlight=lambda n: n == "tpucc")
    tpucc_len = color_run(image, pngchart.HIGHLIGHT).max()
    other_len = color_run(image, pngchart.OTHER).max()
    assert tpucc_len > 100 and abs(other_len - tpucc_len / 2) <= 1
    assert (image == np.array(pngchart.INK, np.uint8)).all(axis=2).any()   # text was drawn


# --- the checks -------------------------------------------------------------------------------

def test_update_errors_are_relative_to_the_step():
    ref = {"w": np.ones(4, np.float32), "b": np.zeros(2, np.float32)}
    step_norms = {"w": 0.5, "b": 1.0}
    assert demo.update_errors({k: v.copy() for k, v in ref.items()}, ref, step_norms) == \
        {"w": 0.0, "b": 0.0}
    off = {"w": ref["w"] + np.float32(0.01), "b": ref["b"]}    # norm 0.02: 4% of the step
    errors = demo.update_errors(off, ref, step_norms)
    assert errors["w"] == pytest.approx(0.04, rel=1e-5) and errors["b"] == 0.0


@pytest.mark.parametrize("pooled, ok", [({"w"}, True), (set(), False)])
def test_near_tie_bound_applies_behind_max_pools_only(pooled, ok):
    verdict = demo.judge_step(0.0, {"w": 0.01, "b": 0.0}, pooled)
    assert verdict["ok"] is ok and verdict["worst"] == "w"
    assert not demo.judge_step(0.0, {"w": 0.05}, {"w"})["ok"]
    assert not demo.judge_step(1e-3, {"w": 0.0}, set())["ok"]       # the loss


def test_parameters_behind_max_pools(small_vgg):
    model = vgg19.VGG19(num_classes=10, image_size=32, hidden=16)
    convs = {n for i, layer in enumerate(model.layers) if isinstance(layer, vgg19.Conv2d)
             for n in (f"layers.{i}.weight", f"layers.{i}.bias")}
    assert convs and demo.behind_max_pool(model) == convs


@pytest.mark.parametrize("argv", [["--what", "fwdd"], ["--jax-layouts", "NCWH"],
                                  ["--torch-layouts", "NHWC"], ["--torch-layouts", ","]])
def test_bad_options_are_refused(argv):
    with pytest.raises(SystemExit):
        demo.parse_args(argv)


# --- the whole run ----------------------------------------------------------------------------

def test_main_smoke(small_vgg, no_settling, tmp_path, capsys, monkeypatch):
    out = tmp_path / "demo.json"
    measure_dispatch = demo.dispatch_overhead          # its 100 rounds: a few rounds do here
    monkeypatch.setattr(demo, "dispatch_overhead", lambda: measure_dispatch(rounds=5))
    result = demo.main(["--batch", "2", "--image-size", "32", "--reps", "1", "--no-torch",
                        "--hidden", "16", "--classes", "10", "--peak-size", "128",
                        "--jax-layouts", "NHWC", "--out", str(out)])
    printed = capsys.readouterr().out
    assert result["ok"] and json.loads(out.read_text()) == json.loads(json.dumps(result))
    assert result["versions"]["torch"] is None and result["matmul_peak"]["peak"] > 0
    names = [demo.TPUCC, "jax.jit hand-written NHWC", demo.EAGER]
    extras = {"forward": [demo.TPUCC_CACHED], "train": [demo.TPUCC_JAX_WEIGHTS]}
    for section, extra in extras.items():
        part = result[section]
        assert sorted(r["name"] for r in part["results"]) == sorted(names + extra)
        assert all(r["median"] > 0 and r["min"] <= r["median"] and r["first"] > 0
                   and len(r["samples"]) == 1 for r in part["results"])
        stages = part["tpucc_compile"]
        assert stages["hlo_entries"] == 1 and min(stages["infer"], stages["lower"],
                                                  stages["xla"]) > 0
        assert set(part["speedup_of_tpucc"]) >= {"jax.jit hand-written NHWC", demo.EAGER}
    first = result["forward"]["tpucc_compile"]["jax_first"]     # measured in a fresh process
    assert set(first) == {"NHWC"} and min(first["NHWC"].values()) > 0
    assert "hand-written jax.jit in a fresh process: NHWC trace+lower" in printed
    assert result["train"]["gflop"] == pytest.approx(3 * result["forward"]["gflop"])
    checks = result["train"]["checks"]
    assert checks[demo.TPUCC]["ok"] and checks[demo.TPUCC]["update_err"] < demo.UPDATE_TOL
    assert checks[demo.TPUCC_JAX_WEIGHTS]["ok"]
    assert checks["jax.jit hand-written NHWC"]["loss_rel_err"] < demo.LOSS_TOL
    assert set(result["dispatch_us"]) == {"axpy(x, y)", "sum and square", "captured global",
                                          "in-place update"}
    assert all(r["tpucc"] > 0 and r["jax.jit"] > 0 and r["ratio"] == r["tpucc"] / r["jax.jit"]
               for r in result["dispatch_us"].values())
    assert printed.count("HLO modules: 1 ENTRY") == 2 and "MISMATCH" not in printed

    image = read_png(open(result["chart"], "rb").read())
    assert image.shape[1] == 1000 and image.shape[0] > 200
    bars = color_run(image, pngchart.HIGHLIGHT)
    assert (bars > 0).sum() > 0 and (color_run(image, pngchart.OTHER) > 0).sum() > 0


def test_pytorch_in_both_memory_formats(small_vgg, no_settling, monkeypatch, tmp_path):
    """Where PyTorch is installed, it runs NCHW and channels_last (its faster
    CPU format), both checked against NumPy; tpucc is checked against the
    first format named.  (The side measurements, compile share and call
    overhead, are test_main_smoke's: skipped here for time.)"""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(demo, "compile_share_reference", lambda *args: {})
    monkeypatch.setattr(demo, "print_side_notes", lambda model: ({}, {}))
    result = demo.main(["--batch", "2", "--image-size", "32", "--reps", "1", "--hidden", "16",
                        "--classes", "10", "--peak-size", "128", "--jax-layouts", "NHWC",
                        "--torch-layouts", "channels_last,NCHW", "--out",
                        str(tmp_path / "demo.json")])
    names = [demo.torch_name(torch, "channels_last"), demo.torch_name(torch, "NCHW")]
    assert names[0].endswith(" channels_last") and result["ok"]
    for section in ("forward", "train"):
        rows = {r["name"]: r for r in result[section]["results"]}
        assert all(rows[n]["median"] > 0 for n in names)
    assert all(result["forward"]["results"][i]["rel_err"] < demo.FORWARD_TOL
               for i, r in enumerate(result["forward"]["results"]) if r["name"] in names)
    checks = result["train"]["checks"]
    assert all(checks[n]["ok"] for n in names) and checks["tpucc vs PyTorch"]["ok"]


def test_numpy_as_reference_only(small_vgg, no_settling, tmp_path, monkeypatch):
    """--numpy-reference-only: NumPy still checks tpucc, but is not timed
    (at batch 100 each of its calls takes seconds); the precision option
    reaches the results.  (The side measurements, compile share and call
    overhead, are test_main_smoke's: skipped here for time.)"""
    monkeypatch.setattr(demo, "compile_share_reference", lambda *args: {})
    monkeypatch.setattr(demo, "print_side_notes", lambda model: ({}, {}))
    result = demo.main(["--what", "fwd", "--batch", "1", "--image-size", "32", "--reps", "1",
                        "--no-torch", "--hidden", "16", "--classes", "10", "--peak-size", "64",
                        "--jax-layouts", "NHWC", "--numpy-reference-only",
                        "--matmul-precision", "default", "--out", str(tmp_path / "d.json")])
    forward = result["forward"]
    assert result["ok"] and forward["max_rel_err"] < demo.FORWARD_TOL
    assert demo.EAGER not in {r["name"] for r in forward["results"]}
    assert demo.EAGER not in forward["speedup_of_tpucc"]
    assert result["matmul_precision"] == "default" and "train" not in result


def test_train_check_catches_a_wrong_step(small_vgg, no_settling, monkeypatch, capsys):
    """The training-step check fails when tpucc's update is wrong: the
    compiled step is given a learning rate 1% too large."""
    real = demo.train_impls

    def skewed(args, model, x, labels, torch):
        impls, weights, step = real(args, model, x, labels, torch)
        impls[demo.TPUCC] = lambda lr: step(x, labels, lr * 1.01)
        return impls, weights, step
    monkeypatch.setattr(demo, "train_impls", skewed)
    args = demo.parse_args(["--reps", "1", "--jax-layouts", ""])
    model = vgg19.VGG19(num_classes=10, image_size=32, hidden=16)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 3, 32, 32), dtype=np.float32)
    labels = np.array([3], np.int32)
    section = demo.train_section(args, model, x, labels, model.flops(1), {"peak": 1.0}, None)
    check = section["checks"][demo.TPUCC]
    assert not section["ok"] and not check["ok"]
    assert check["classifier_update_err"] == pytest.approx(0.01, rel=0.05)
    assert "MISMATCH" in capsys.readouterr().out


def test_bench_aot_runs_at_a_small_size(tmp_path):
    """models/bench_aot.py end to end (build, fresh-process load, the
    persistent cache's second process skipping every stage) at 32x32, on the
    small VGG of the other tests (vgg19_aot.py's test hooks: SMALL_CONFIG,
    hidden 16, 10 classes) so that its four processes do not spend their time
    initializing, writing and compiling the real 164 MiB of weights."""
    out = tmp_path / "aot.json"
    small = {"TPUCC_VGG_CONFIG": ",".join(map(str, SMALL_CONFIG)), "TPUCC_VGG_HIDDEN": "16",
             "TPUCC_VGG_CLASSES": "10"}
    r = subprocess.run([sys.executable, os.path.join(MODELS, "bench_aot.py"), "--image-size", "32",
                        "--json", str(out)], capture_output=True, text=True, timeout=600,
                       env={**os.environ, "JAX_PLATFORMS": "cpu", **small})
    assert r.returncode == 0, r.stderr[-3000:]
    assert "load -> first result" in r.stdout
    result = json.loads(out.read_text())
    second = result["compile_runs"][1]
    assert second["replayed"] and second["cache"] == "hit" and second["infer_s"] == 0
    assert result["loaded"]["first_s"] > 0 and result["artifact_bytes"] > 0
    assert result["artifact_bytes"] < 2**20              # the small model was built
