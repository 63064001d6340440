"""The tpucc demo: VGG19 written as plain Python + NumPy (models/vgg19.py).
Its forward pass and its training step (forward + backward + SGD update of
every weight) are each compiled by tpucc into one XLA module, checked
against the eager NumPy model (and PyTorch when installed) and timed side by
side with a hand-written jax.jit VGG19, eager NumPy and eager PyTorch (on
the GPU when jax runs on one), all starting from the same weights and the
same input, all in full float32 unless --matmul-precision default.

    .venv/bin/python models/demo.py [--what both|fwd|train] [--batch 2] [--image-size 64]

Timings are steady-state medians: each implementation is called once more,
untimed, and then timed over consecutive calls, as a loop calling it would
run.  (Not round-robin: on this kind of VM, memory freed for a second goes
back to the host and costs ~1.8 s/GiB to touch again, so every call would
pay for the memory the others freed.)  The first call of each (tracing,
compiling and first touch of freshly allocated memory) is timed separately.  tpucc's persistent executable cache is off here,
so its compile times are real.  Every implementation hands back NumPy, as
tpucc does.  Writes a JSON file and a PNG chart (models/pngchart.py).
"""
from __future__ import annotations

import argparse
import functools
import glob
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _skip_libtpu_without_a_tpu():
    """`make test` installs libtpu (tpucc[tpu]) into the same venv; jax then
    tries it first and, on a machine with no TPU, prints start-up errors
    before falling back.  With no TPU device, no GPU plugin and no choice of
    the user's, the demo runs on the CPU directly."""
    if "JAX_PLATFORMS" in os.environ or importlib.util.find_spec("libtpu") is None:
        return
    if glob.glob("/dev/accel*") or glob.glob("/dev/vfio/[0-9]*"):
        return
    if any(importlib.util.find_spec(f"jax_cuda{v}_plugin") for v in (12, 13)):
        return
    os.environ["JAX_PLATFORMS"] = "cpu"


_skip_libtpu_without_a_tpu()

import jax                                     # noqa: E402
import jax.numpy as jnp                        # noqa: E402
from jax import lax                            # noqa: E402

import tpucc                                   # noqa: E402
import bench_dispatch                          # noqa: E402
from pngchart import write_bar_chart           # noqa: E402
from vgg19 import VGG19, Conv2d, Linear, MaxPool2d, forward_flops   # noqa: E402

# About 45 s on an idle 2-vCPU machine (more under load), most of it
# compiling and the NumPy backward; 112x112 costs about 3x as much.
DEFAULTS = dict(batch=2, image_size=64, reps=5)
# The checked first step uses a larger learning rate than the timed ones:
# float32 weights are compared after the update, so the update must be large
# against their rounding, while VGG19 without normalization, trained on one
# batch, diverges within a few steps at 1e-2.  lr is a runtime argument of
# every implementation: changing it recompiles nothing.
CHECK_LR, TIMING_LR = 1e-3, 1e-4
# Relative errors above these fail the checks.  The update of a weight is
# compared in norm, relative to the reference's update.  A max-pool window
# whose two largest inputs differ by less than rounding may route its
# gradient to either one, so the gradients of the layers behind a max pool
# (all convolutions) legitimately differ by up to ~1e-2 between correct
# float32 implementations (5e-3 measured at 112x112); the classifier's do not.
FORWARD_TOL, LOSS_TOL, UPDATE_TOL, POOLED_UPDATE_TOL = 1e-4, 1e-4, 1e-3, 3e-2
TRAIN_FLOP_FACTOR = 3        # backward ~ 2x forward: the usual convention
NAME_WIDTH = 42              # the tables' implementation column


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--what", choices=("both", "fwd", "train"), default="both",
                   help="forward pass, training step or both (default)")
    p.add_argument("--batch", type=int, default=DEFAULTS["batch"])
    p.add_argument("--image-size", type=int, default=DEFAULTS["image_size"])
    p.add_argument("--reps", type=int, default=DEFAULTS["reps"],
                   help="timed calls per implementation (after the first)")
    p.add_argument("--hidden", type=int, default=4096, help="classifier width (VGG19: 4096)")
    p.add_argument("--classes", type=int, default=1000, help="number of classes")
    p.add_argument("--jax-layouts", default="NHWC,NCHW",
                   help="layouts of the hand-written jax.jit models, comma-separated")
    p.add_argument("--torch-layouts", default="NCHW,channels_last",
                   help="memory formats of the eager PyTorch models, comma-separated "
                        "(channels_last: PyTorch's faster format for CPU convolutions)")
    p.add_argument("--peak-size", type=int, default=None,
                   help="n of the n^3 matmuls that measure the machine's peak "
                        "(default 2048 on the CPU, 8192 on an accelerator)")
    p.add_argument("--matmul-precision", choices=("highest", "default"), default="highest",
                   help="float32 products and convolutions of every implementation: "
                        "'highest' (default; full float32, as NumPy) or 'default' (the "
                        "platform's fast mode, e.g. TF32 on NVIDIA GPUs; the CPU has none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="bench-out/demo.json", help="JSON results path")
    p.add_argument("--chart", default=None, help="PNG chart path (default: next to --out)")
    p.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    p.add_argument("--numpy-reference-only", action="store_true",
                   help="run eager NumPy once, as the reference the checks compare with, "
                        "and leave it out of the timings (its calls take seconds at large "
                        "sizes)")
    p.add_argument("--torch-compile", action="store_true",
                   help="also time torch.compile (slow to compile; skipped if it fails)")
    args = p.parse_args(argv)
    args.jax_layouts = [s.strip().upper() for s in args.jax_layouts.split(",") if s.strip()]
    bad = set(args.jax_layouts) - {"NHWC", "NCHW"}
    if bad:
        p.error(f"--jax-layouts: unknown layouts {sorted(bad)} (NHWC, NCHW)")
    args.torch_layouts = [s.strip() for s in args.torch_layouts.split(",") if s.strip()]
    bad = set(args.torch_layouts) - set(TORCH_LAYOUTS)
    if bad or not args.torch_layouts:
        p.error(f"--torch-layouts: unknown memory formats {sorted(bad)} ({', '.join(TORCH_LAYOUTS)})")
    return args


# --- the hand-written jax.jit VGG19 ---------------------------------------------------

def param_names(model) -> list:
    """[("layers.<i>.weight", "layers.<i>.bias"), ...] of the layers with weights."""
    return [(f"layers.{i}.weight", f"layers.{i}.bias") for i, layer in enumerate(model.layers)
            if isinstance(layer, (Conv2d, Linear))]


def jax_forward(model, layout, precision="highest"):
    """VGG19 forward written directly with jax.lax, as a JAX user would: params
    are a list of (w, b) device arrays, NHWC/HWIO (the Flax convention) or
    NCHW/OIHW (the layout tpucc's model uses), its products and convolutions
    at `precision` (as tpucc's matmul_precision).  Returns (forward(params, x),
    params, to_model_layout(params) -> {name: NumPy array in OIHW})."""
    nhwc = layout == "NHWC"
    dims = ("NHWC", "HWIO", "NHWC") if nhwc else ("NCHW", "OIHW", "NCHW")
    pool = (1, 2, 2, 1) if nhwc else (1, 1, 2, 2)
    plan, params, convs = [], [], []
    for layer in model.layers:
        if isinstance(layer, (Conv2d, Linear)):
            w = layer.weight
            if isinstance(layer, Conv2d) and nhwc:
                w = np.ascontiguousarray(w.transpose(2, 3, 1, 0))
            params.append((w, layer.bias))
            convs.append(isinstance(layer, Conv2d))
        plan.append(type(layer).__name__)

    def forward(params, x):
        if nhwc:
            x = jnp.transpose(x, (0, 2, 3, 1))
        i = 0
        for kind in plan:
            if kind == "Conv2d":
                w, b = params[i]
                i += 1
                x = lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)),
                                             dimension_numbers=dims, precision=precision)
                x = x + (b if nhwc else b[:, None, None])
            elif kind == "ReLU":
                x = jax.nn.relu(x)
            elif kind == "MaxPool2d":
                x = lax.reduce_window(x, -jnp.inf, lax.max, pool, pool, "VALID")
            elif kind == "Flatten":       # flatten in NCHW order, as the classifier expects
                x = (jnp.transpose(x, (0, 3, 1, 2)) if nhwc else x).reshape(x.shape[0], -1)
            else:
                w, b = params[i]
                i += 1
                x = jnp.matmul(x, w, precision=precision) + b
        return x

    names = param_names(model)

    def to_model_layout(params) -> dict:
        out = {}
        for (wn, bn), (w, b), conv in zip(names, params, convs):
            w = np.asarray(w)
            out[wn] = w.transpose(3, 2, 0, 1) if conv and nhwc else w
            out[bn] = np.asarray(b)
        return out

    # Copied in the background otherwise, while the next implementation's
    # first call (tpucc's compile) is being timed.
    return forward, jax.block_until_ready(jax.device_put(params)), to_model_layout


def jax_train_step(forward):
    """jax.jit of one SGD step on the mean cross-entropy: the params go in
    donated and come back updated, with the loss."""
    def loss_fn(params, x, labels):
        logp = jax.nn.log_softmax(forward(params, x))
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    def train_step(params, x, labels, lr):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        return loss, jax.tree.map(lambda p, g: p - lr * g, params, grads)

    return jax.jit(train_step, donate_argnums=0)


# --- PyTorch ------------------------------------------------------------------------------

def torch_or_none(use_torch: bool):
    if not use_torch:
        return None
    try:
        import torch
        return torch
    except Exception:      # noqa: BLE001 - any import failure means "skip"
        return None


def torch_device(torch) -> str:
    """Where PyTorch runs: on the GPU when jax (and so tpucc) runs on one
    and PyTorch can reach it, else on the CPU."""
    gpu = jax.default_backend() == "gpu" and torch.cuda.is_available()
    return "cuda" if gpu else "cpu"


def torch_precision(torch, precision: str):
    """PyTorch's float32 products and convolutions at `precision`: TF32
    only for 'default' (PyTorch allows it for convolutions by default, and
    tpucc's default, like NumPy, is full float32)."""
    fast = precision == "default"
    torch.backends.cuda.matmul.allow_tf32 = fast
    torch.backends.cudnn.allow_tf32 = fast


# The memory formats the PyTorch models can run in: NCHW is PyTorch's
# default; channels_last keeps images and conv weights NHWC in memory
# (same logical shapes), the format PyTorch recommends for CPU convolutions.
TORCH_LAYOUTS = ("NCHW", "channels_last")


def torch_forward(torch, model, trainable: bool, layout="NCHW"):
    """(forward(x tensor), its list of parameters, to_input(x tensor)) of
    eager PyTorch on torch_device, in memory format `layout` (TORCH_LAYOUTS):
    the parameters are views of the model's arrays where they can be, or
    copies (that train, when `trainable`); to_input puts an image batch
    into that format."""
    import torch.nn.functional as F
    params = []
    plan = []
    device = torch_device(torch)
    fmt = torch.channels_last if layout == "channels_last" else torch.contiguous_format

    def to_input(t):
        return t.contiguous(memory_format=fmt)

    def tensor(a):
        t = torch.from_numpy(a).to(device)
        t = to_input(t) if t.ndim == 4 else t
        return t.clone().requires_grad_(True) if trainable else t
    for layer in model.layers:
        if isinstance(layer, (Conv2d, Linear)):
            w, b = tensor(layer.weight), tensor(layer.bias)
            params += [w, b]
            plan.append((type(layer).__name__, w, b))
        else:
            plan.append((type(layer).__name__, None, None))

    def forward(t):
        for kind, w, b in plan:
            if kind == "Conv2d":
                t = F.conv2d(t, w, b, padding=1)
            elif kind == "ReLU":
                t = F.relu(t)
            elif kind == "MaxPool2d":
                t = F.max_pool2d(t, 2)
            elif kind == "Flatten":
                t = torch.flatten(t, 1)
            else:
                t = torch.addmm(b, t, w)
        return t
    return forward, params, to_input


def torch_inference(torch, model, x, compiled=False, layout="NCHW"):
    forward, _, to_input = torch_forward(torch, model, trainable=False, layout=layout)
    if compiled:
        forward = torch.compile(forward)

    device = torch_device(torch)

    def run():      # NumPy in and out, as for every implementation
        with torch.inference_mode():
            return forward(to_input(torch.from_numpy(x).to(device))).cpu().numpy()
    return run


class TorchTrainer:
    """Eager PyTorch SGD step (autograd, then an update under no_grad) on
    its own copy of the weights; torch.compile of the loss when compiled."""

    def __init__(self, torch, model, x, labels, compiled=False, layout="NCHW"):
        import torch.nn.functional as F
        self.torch = torch
        forward, self.params, self.to_input = torch_forward(torch, model, trainable=True,
                                                            layout=layout)
        self.names = [n for pair in param_names(model) for n in pair]
        self.x, self.device = x, torch_device(torch)
        self.labels = torch.from_numpy(labels.astype(np.int64)).to(self.device)
        loss_fn = lambda x, labels: F.cross_entropy(forward(x), labels)   # noqa: E731
        self.loss_fn = torch.compile(loss_fn) if compiled else loss_fn

    def __call__(self, lr):
        x = self.to_input(self.torch.from_numpy(self.x).to(self.device))
        loss = self.loss_fn(x, self.labels)
        loss.backward()
        with self.torch.no_grad():
            for p in self.params:
                p -= lr * p.grad
                p.grad = None
        return loss.item()

    def weights(self) -> dict:
        return {n: p.detach().cpu().numpy() for n, p in zip(self.names, self.params)}


# --- measuring ------------------------------------------------------------------------------

def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def steady_state(impls: dict, reps: int) -> dict:
    """Median seconds per call of each implementation: one untimed call,
    then `reps` timed consecutive calls (see the module's docstring)."""
    samples = {}
    for name, fn in impls.items():
        fn()
        samples[name] = [timed(fn)[0] for _ in range(reps)]
    return {name: dict(median=statistics.median(s), min=min(s), samples=s)
            for name, s in samples.items()}


def quiesce(seconds=1.0):
    """Waits for the worker threads of the library that ran last to go
    idle (OpenBLAS's, OpenMP's and XLA's wait busily for a while after
    their work): on 2 cores they take the CPU from what is timed next.
    tpucc's compile measured 45-50 ms right after the other first calls,
    27 ms after this pause (0.3 s was not enough)."""
    time.sleep(seconds)


def first_calls(impls: dict, optional=()) -> tuple:
    """Seconds of each implementation's first call (tracing and compiling
    included) and its output.  An `optional` one that fails is dropped from
    `impls`, with the reason in the third result."""
    firsts, outs, skipped = {}, {}, {}
    for name in list(impls):
        quiesce()
        try:
            firsts[name], outs[name] = timed(impls[name])
        except Exception as e:      # noqa: BLE001 - e.g. torch.compile without a compiler
            if name not in optional:
                raise
            skipped[name] = f"skipped: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
            print(f"{name}: {skipped[name]}")
            del impls[name]
    return firsts, outs, skipped


def matmul_peak(n=2048, reps=5, torch=None, precision="highest", warmup=1.0) -> dict:
    """float32 matmul throughput (GFLOP/s) of NumPy's BLAS, of XLA and of
    PyTorch when present, at the benchmark's precision: the machine's
    practical peak, measured in this run.  Each is warmed up for `warmup`
    seconds first (clocks ramp up, and the first products pay for fresh
    memory), then the best of `reps` counts."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    mm = jax.jit(functools.partial(jnp.matmul, precision=precision))
    ja, jb = jax.device_put(a), jax.device_put(b)
    products = {"numpy": lambda: a @ b, "jax": lambda: mm(ja, jb).block_until_ready()}
    if torch is not None:
        device = torch_device(torch)
        ta, tb = torch.from_numpy(a).to(device), torch.from_numpy(b).to(device)
        sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
        products["torch"] = lambda: (ta @ tb, sync())
    res = dict(n=n, torch=None)
    for name, product in products.items():
        t_end = time.perf_counter() + warmup
        while time.perf_counter() < t_end:
            product()
        res[name] = 2 * n ** 3 / min(timed(product)[0] for _ in range(reps)) / 1e9
    res["peak"] = max(v for k, v in res.items() if k in products)
    return res


def dispatch_overhead(rounds=100) -> dict:
    """Microseconds per cached call of tiny functions (8 floats, NumPy in,
    NumPy out), tpucc vs the same computation under jax.jit, measured by
    models/bench_dispatch.py: both in turn, in short rounds, best round."""
    return bench_dispatch.measure(rounds=rounds)


def weight_transfer(model) -> dict:
    """What passing the weights as NumPy arrays costs per call: tpucc re-reads
    them at every call (they may have changed) and hands them to XLA, which on
    CPU reads 64-byte-aligned arrays in place; tpucc copies the others into
    aligned buffers it keeps (tpucc/staging.py)."""
    params = list(model.parameters().values())
    put = lambda: jax.block_until_ready(jax.device_put(params))     # noqa: E731
    put()
    return dict(mb=sum(p.nbytes for p in params) / 1e6, arrays=len(params),
                misaligned=sum(p.ctypes.data % 64 != 0 for p in params),
                device_put_s=min(timed(put)[0] for _ in range(3)))


def compiled_stages(compiled) -> dict:
    """Seconds tpucc spent in each stage for the one signature `compiled` has
    been called with, and the number of HLO modules (ENTRY computations) it
    made.  Read from its cache entry: the staged API (compiled.lower(...)
    .compile()) would compile a second time."""
    (entry,) = compiled._cache.values()
    return dict(infer=entry.times.infer, lower=entry.times.lower, xla=entry.times.xla,
                hlo_entries=entry.lowered.as_text(dialect="hlo").count("ENTRY"))


def print_stages(what, stages):
    share = (stages["infer"] + stages["lower"]) / stages["xla"]
    print(f"tpucc compile ({what}): infer {stages['infer']:.2f} s, lower {stages['lower']:.2f} s, "
          f"XLA {stages['xla']:.2f} s (tpucc's stages {share:.0%} of XLA's); "
          f"HLO modules: {stages['hlo_entries']} ENTRY")


def compile_share_reference(model, x, xla_s, precision) -> dict:
    """tpucc's stages for the forward once jax is initialized (compiled
    again in this process, best of three), beside the same split for the
    hand-written jax.jit network: its trace + lowering (straight jax.lax)
    against its XLA compile with the XLA options tpucc uses.  Lowering goes
    through jax (DESIGN.md decision 1), so jax's own share is the floor."""
    quiesce()
    # Best of three for each side, taken in turn: a single first sample
    # after the pause runs on a cold CPU (42 ms against 26 for the next).
    fwd, params, _ = jax_forward(model, "NHWC", precision)
    tpucc_runs, jax_runs = [], []
    for _ in range(3):
        compiled = tpucc.compile(model.forward, cache=False, matmul_precision=precision)
        tpucc_runs.append(compiled.lower(x).times)
        jax_runs.append(timed(lambda: jax.jit(lambda p, v: fwd(p, v)).lower(params, x)))
    times = min(tpucc_runs, key=lambda t: t.infer + t.lower)
    t_lower, jax_lowered = min(jax_runs, key=lambda run: run[0])
    options = tpucc.driver.XLA_OPTIONS.get(jax.default_backend()) or None
    t_xla, _ = timed(lambda: jax_lowered.compile(compiler_options=options))
    out = dict(tpucc_infer=times.infer, tpucc_lower=times.lower, tpucc_xla=xla_s,
               jax_lower=t_lower, jax_xla=t_xla)
    print(f"compile again, jax initialized: tpucc infer {times.infer * 1e3:.0f} ms + lower "
          f"{times.lower * 1e3:.0f} ms = {(times.infer + times.lower) / xla_s:.0%} of XLA's "
          f"{xla_s:.2f} s; hand-written jax.jit NHWC trace+lower {t_lower * 1e3:.0f} ms = "
          f"{t_lower / t_xla:.0%} of its XLA compile ({t_xla:.2f} s)")
    return out


def jax_first_compile(args, layout) -> dict:
    """The hand-written jax.jit network's trace + lowering as the first
    compile of a fresh process, the reference for tpucc's first-compile
    share (which this process measures): jax's first lowering of each
    primitive and shape costs either of them the same.  The child repeats
    this process's jax warm-up (a jitted matmul, as matmul_peak ran) and
    builds the same model; it also times that module's XLA compile (with
    tpucc's XLA options) and a second trace + lowering."""
    code = (f"import demo; demo.print_jax_first_compile({args.batch}, {args.image_size}, "
            f"{args.hidden}, {args.classes}, {args.seed}, {layout!r}, {args.matmul_precision!r})")
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)
    # JAX_PLATFORMS as here (see the top).  On a GPU this process already
    # holds jax's preallocated 75% of the device's memory, so the child
    # allocates as it goes instead of failing to take another 75%.
    env = {**os.environ, "PYTHONPATH": path, "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"the fresh-process jax.jit compile failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def print_jax_first_compile(batch, image_size, hidden, classes, seed, layout, precision):
    """The child of jax_first_compile: prints its times as one JSON line."""
    mm = jax.jit(functools.partial(jnp.matmul, precision=precision))
    mm(np.ones((64, 64), np.float32), np.ones((64, 64), np.float32)).block_until_ready()
    model = VGG19(num_classes=classes, image_size=image_size, seed=seed, hidden=hidden)
    x = np.zeros((batch, 3, image_size, image_size), np.float32)
    fwd, params, _ = jax_forward(model, layout, precision)
    lower = lambda: jax.jit(lambda p, v: fwd(p, v)).lower(params, x)     # noqa: E731
    t_first, lowered = timed(lower)
    options = tpucc.driver.XLA_OPTIONS.get(jax.default_backend()) or None
    t_xla, _ = timed(lambda: lowered.compile(compiler_options=options))
    t_again, _ = timed(lower)
    print(json.dumps(dict(lower_first=t_first, xla=t_xla, lower_again=t_again)))


def print_first_compile_references(stages, references):
    share = (stages["infer"] + stages["lower"]) / stages["xla"]
    parts = [f"{layout} trace+lower {r['lower_first'] * 1e3:.0f} ms = "
             f"{r['lower_first'] / r['xla']:.0%} of its XLA compile ({r['xla']:.2f} s)"
             for layout, r in references.items()]
    print(f"first compile of a process: tpucc's stages {share:.0%} of XLA's (above); hand-written "
          f"jax.jit in a fresh process: " + "; ".join(parts))


def rel_error(actual, expected) -> float:
    """max |actual - expected| / max |expected|."""
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    return float(np.max(np.abs(actual - expected)) / np.max(np.abs(expected)))


def update_errors(weights: dict, reference: dict, step_norms: dict) -> dict:
    """How far one step's weights are from the reference's, relative to the
    size of the update: {name: |w - w_ref| / |lr * grad_ref|} (Euclidean
    norms over each parameter)."""
    errors = {}
    for name, ref in reference.items():
        diff = np.asarray(weights[name], np.float64) - np.asarray(ref, np.float64)
        errors[name] = float(np.linalg.norm(diff) / max(step_norms[name], 1e-30))
    return errors


def judge_step(loss_err: float, errors: dict, pooled: set) -> dict:
    """The verdict on one training step: the loss and the classifier's
    updates within the tight bounds, the updates of the parameters behind a
    max pool (`pooled`) within the near-tie bound."""
    worst = max(errors, key=errors.get)
    top = max([e for n, e in errors.items() if n not in pooled], default=0.0)
    behind_pool = max([e for n, e in errors.items() if n in pooled], default=0.0)
    ok = loss_err < LOSS_TOL and top < UPDATE_TOL and behind_pool < POOLED_UPDATE_TOL
    return dict(loss_rel_err=loss_err, update_err=errors[worst], worst=worst,
                classifier_update_err=top, pooled_update_err=behind_pool, ok=bool(ok))


def verdict(ok: bool) -> str:
    return "OK" if ok else "MISMATCH"


# --- reporting --------------------------------------------------------------------------

def print_table(rows, flops, peak, err_header="max rel err"):
    print(f"\n{'implementation':<{NAME_WIDTH}}{'median ms':>11}{'min ms':>10}{'GFLOP/s':>10}"
          f"{'% peak':>8}{'first call s':>14}{err_header:>14}")
    for r in rows:
        gf = flops / r["median"] / 1e9
        err = "-" if r.get("rel_err") is None else f"{r['rel_err']:.1e}"
        print(f"{r['name']:<{NAME_WIDTH}}{r['median'] * 1e3:>11.1f}{r['min'] * 1e3:>10.1f}{gf:>10.1f}"
              f"{100 * gf / peak:>7.1f}%{r['first']:>14.2f}{err:>14}")


def print_ratios(timing, tpucc_names) -> dict:
    """{alternative: its median / tpucc's median} (and / tpucc device_cache's)."""
    main_name, *cached = tpucc_names
    print("\ntpucc speed-up (their median / tpucc median):")
    ratios = {}
    for name, t in timing.items():
        if name in tpucc_names:
            continue
        ratios[name] = t["median"] / timing[main_name]["median"]
        line = f"  vs {name:<{NAME_WIDTH - 2}} {ratios[name]:6.2f}x"
        for c in cached:
            ratios[f"{name} ({c})"] = t["median"] / timing[c]["median"]
            line += f"   ({c}: {ratios[f'{name} ({c})']:.2f}x)"
        print(line)
    return ratios


def print_side_notes(model) -> tuple:
    wt = weight_transfer(model)
    print(f"\nweights: {wt['mb']:.0f} MB in {wt['arrays']} NumPy arrays, passed at every tpucc "
          f"call ({wt['misaligned']} not 64-byte aligned, which tpucc copies into aligned "
          f"buffers); one "
          f"jax.device_put of all of them takes {wt['device_put_s'] * 1e3:.0f} ms")
    disp = dispatch_overhead()
    print("\ncached-call dispatch overhead, tiny functions (models/bench_dispatch.py: "
          "best of 100 rounds of 100 calls, run in turn):")
    bench_dispatch.print_table(disp, indent="  ")
    return wt, disp


def print_summary(result):
    """Both sections side by side: median ms and tpucc's speed-up over each."""
    medians = {key: {r["name"]: r["median"] for r in result[key]["results"]}
               for key in ("forward", "train")}
    names = list(dict.fromkeys(list(medians["forward"]) + list(medians["train"])))
    print(f"\nsummary, median ms (x: that implementation's time / tpucc's)\n"
          f"{'implementation':<{NAME_WIDTH}}{'forward':>18}{'training step':>18}")
    for name in names:
        cells = []
        for key in ("forward", "train"):
            t = medians[key].get(name)
            ratio = "" if t is None or name == TPUCC else f" ({t / medians[key][TPUCC]:.2f}x)"
            cells.append("-" if t is None else f"{t * 1e3:.1f}{ratio}")
        print(f"{name:<{NAME_WIDTH}}{cells[0]:>18}{cells[1]:>18}")


def table_rows(impls, firsts, timing, errors) -> list:
    return [dict(name=k, first=firsts[k], **timing[k], rel_err=errors.get(k)) for k in impls]


# --- the forward section ------------------------------------------------------------------

TPUCC = "tpucc (NumPy source, NCHW)"
TPUCC_CACHED = "tpucc device_cache=True"
TPUCC_JAX_WEIGHTS = "tpucc, weights jax arrays"
EAGER = "NumPy eager"
TORCH_COMPILE = "torch.compile"


def torch_name(torch, layout="NCHW") -> str:
    device = torch_device(torch)
    return (f"PyTorch {torch.__version__} eager" + ("" if device == "cpu" else f" {device}")
            + ("" if layout == "NCHW" else f" {layout}"))


def forward_impls(args, model, x, forward, torch) -> dict:
    """{name: zero-argument callable running one forward pass to completion}."""
    cached = tpucc.compile(model.forward, device_cache=True, cache=False,
                           matmul_precision=args.matmul_precision)
    impls = {TPUCC: lambda: forward(x), TPUCC_CACHED: lambda: cached(x)}
    for layout in args.jax_layouts:
        fwd, params, _ = jax_forward(model, layout, args.matmul_precision)
        jitted = jax.jit(fwd)
        impls[f"jax.jit hand-written {layout}"] = (
            lambda jitted=jitted, params=params: np.asarray(jitted(params, x)))
    impls[EAGER] = lambda: model.forward(x)
    if torch is not None:
        for layout in args.torch_layouts:
            impls[torch_name(torch, layout)] = torch_inference(torch, model, x, layout=layout)
        if args.torch_compile:
            impls[TORCH_COMPILE] = torch_inference(torch, model, x, compiled=True)
    return impls


def forward_section(args, model, x, flops, peak, torch) -> dict:
    print("\n=== forward pass ===")
    forward = tpucc.compile(model.forward, cache=False, matmul_precision=args.matmul_precision)
    impls = forward_impls(args, model, x, forward, torch)
    firsts, outs, skipped = first_calls(impls, optional=(TORCH_COMPILE,))
    stages = compiled_stages(forward)
    print_stages("forward", stages)
    stages["again"] = compile_share_reference(model, x, stages["xla"], args.matmul_precision)
    stages["jax_first"] = {layout: jax_first_compile(args, layout) for layout in args.jax_layouts}
    print_first_compile_references(stages, stages["jax_first"])
    errors = {k: rel_error(outs[k], outs[EAGER]) for k in impls if k != EAGER}
    ok = errors[TPUCC] < FORWARD_TOL
    print(f"check: tpucc vs eager NumPy, max |diff| / max |logit| = {errors[TPUCC]:.2e} "
          f"({verdict(ok)})")
    if torch is not None:
        err = rel_error(outs[TPUCC], outs[torch_name(torch, args.torch_layouts[0])])
        ok &= err < FORWARD_TOL
        print(f"check: tpucc vs PyTorch, max |diff| / max |logit| = {err:.2e} ({verdict(ok)})")

    if args.numpy_reference_only:
        del impls[EAGER]
    print(f"timing: {args.reps} consecutive calls of each, after an untimed one ...", flush=True)
    timing = steady_state(impls, args.reps)
    rows = table_rows(impls, firsts, timing, errors)
    print_table(rows, flops, peak["peak"])
    ratios = print_ratios(timing, (TPUCC, TPUCC_CACHED))
    return dict(gflop=flops / 1e9, tpucc_compile=stages, max_rel_err=errors[TPUCC], ok=bool(ok),
                results=rows, speedup_of_tpucc=ratios, skipped=skipped)


# --- the training-step section ------------------------------------------------------------

def sgd_update(params: dict, grads: dict, lr):
    for name, g in grads.items():
        params[name] -= lr * g


def train_impls(args, model, x, labels, torch) -> tuple:
    """({name: step(lr) running one training step, returning the loss},
    {name: () -> that implementation's weights by name}, the tpucc compiled
    step).  Each trains its own copy of `model`'s weights; NumPy eager is set
    up by the caller, which trains `model` itself."""
    tpucc_model = model.copy()
    step = tpucc.compile(tpucc_model.train_step, runtime_args=("lr",), cache=False,
                         matmul_precision=args.matmul_precision)
    impls = {TPUCC: lambda lr: step(x, labels, lr)}
    weights = {TPUCC: tpucc_model.parameters}
    # The same source on a model whose weights are jax arrays: `w -= lr * g`
    # rebinds them to the step's results, which stay on the device.
    on_device = with_jax_weights(model.copy())
    device_step = tpucc.compile(on_device.train_step, runtime_args=("lr",), cache=False,
                                matmul_precision=args.matmul_precision)
    impls[TPUCC_JAX_WEIGHTS] = lambda lr: device_step(x, labels, lr)
    weights[TPUCC_JAX_WEIGHTS] = lambda: {k: np.asarray(v)
                                          for k, v in on_device.parameters().items()}
    jax_labels = jnp.asarray(labels)
    for layout in args.jax_layouts:
        fwd, params, to_model_layout = jax_forward(model, layout, args.matmul_precision)
        jitted, state = jax_train_step(fwd), [params]

        def run(lr, jitted=jitted, state=state):
            loss, state[0] = jitted(state[0], x, jax_labels, lr)
            return float(jax.block_until_ready(loss))      # the one executable has finished
        name = f"jax.jit hand-written {layout}"
        impls[name] = run
        weights[name] = lambda state=state, convert=to_model_layout: convert(state[0])
    if torch is not None:
        trainers = {torch_name(torch, layout): TorchTrainer(torch, model, x, labels, layout=layout)
                    for layout in args.torch_layouts}
        if args.torch_compile:
            trainers[TORCH_COMPILE] = TorchTrainer(torch, model, x, labels, compiled=True)
        for name, trainer in trainers.items():
            impls[name], weights[name] = trainer, trainer.weights
    return impls, weights, step


def with_jax_weights(model):
    """`model` with each weight and bias moved to the device as a jax array."""
    for name, value in model.parameters().items():
        _, i, attr = name.split(".")
        setattr(model.layers[int(i)], attr, jax.block_until_ready(jax.device_put(value)))
    return model


def train_section(args, model, x, labels, flops, peak, torch) -> dict:
    """Trains `model` in place (as the NumPy eager implementation)."""
    print("\n=== training step: forward + backward + SGD update of every weight ===")
    lr = CHECK_LR
    steps, weights, step = train_impls(args, model, x, labels, torch)
    impls = {name: functools.partial(fn, lr) for name, fn in steps.items()}
    firsts, losses, skipped = first_calls(impls, optional=(TORCH_COMPILE,))
    stages = compiled_stages(step)
    print_stages("training step", stages)

    # The reference: NumPy's first step, from the weights all the others started from.
    params = model.parameters()
    t_grad, (ref_loss, grads) = timed(lambda: model.numpy_loss_and_grads(x, labels))
    t_update, _ = timed(lambda: sgd_update(params, grads, lr))
    step_norms = {k: lr * float(np.linalg.norm(np.asarray(g, np.float64)))
                  for k, g in grads.items()}
    del grads
    firsts = {**firsts, EAGER: t_grad + t_update}
    torch_reference = torch_name(torch, args.torch_layouts[0]) if torch is not None else None
    check = train_checks(impls, weights, losses, ref_loss, params, step_norms,
                         behind_max_pool(model), torch_reference)

    impls = {name: functools.partial(steps[name], TIMING_LR) for name in impls}
    if not args.numpy_reference_only:
        impls[EAGER] = lambda: numpy_train_step(model, params, x, labels, TIMING_LR)
    print(f"timing: {args.reps} consecutive calls of each, after an untimed one "
          f"(lr {TIMING_LR}) ...", flush=True)
    timing = steady_state(impls, args.reps)
    rows = table_rows(impls, firsts, timing, {k: c["update_err"] for k, c in check.items()})
    print(f"\n(GFLOP/s count a training step as {TRAIN_FLOP_FACTOR}x the forward FLOPs; "
          f"the error column is the update's error vs NumPy, see the check lines)")
    print_table(rows, flops, peak["peak"], err_header="update err")
    ratios = print_ratios(timing, (TPUCC, TPUCC_JAX_WEIGHTS))
    ok = check[TPUCC]["ok"] and check.get("tpucc vs PyTorch", {"ok": True})["ok"]
    return dict(gflop=flops / 1e9, flop_note=f"{TRAIN_FLOP_FACTOR}x the forward FLOPs",
                check_lr=CHECK_LR, timing_lr=TIMING_LR, tpucc_compile=stages,
                loss=float(ref_loss), checks=check, ok=bool(ok), results=rows,
                speedup_of_tpucc=ratios, skipped=skipped)


def numpy_train_step(model, params, x, labels, lr):
    loss, grads = model.numpy_loss_and_grads(x, labels)
    sgd_update(params, grads, lr)
    return loss


def behind_max_pool(model) -> set:
    """Names of the parameters whose gradient passes a max pool's backward."""
    last_pool = max(i for i, layer in enumerate(model.layers) if isinstance(layer, MaxPool2d))
    return {n for pair in param_names(model) for n in pair if int(n.split(".")[1]) < last_pool}


def train_checks(impls, weights, losses, ref_loss, reference, step_norms, pooled,
                 torch_reference) -> dict:
    """Loss and updated weights of each implementation's first step against
    NumPy's (`reference`: its weights after the step; `step_norms`: the norm
    of its update of each), and tpucc's against PyTorch's (the implementation
    named `torch_reference`, if any)."""
    def rel(a, b):
        return abs(float(a) - float(b)) / abs(float(ref_loss))
    checks = {name: judge_step(rel(losses[name], ref_loss),
                               update_errors(weights[name](), reference, step_norms), pooled)
              for name in impls}
    show = {"tpucc vs eager NumPy": checks[TPUCC]}
    if torch_reference is not None:
        show["tpucc vs PyTorch"] = checks["tpucc vs PyTorch"] = judge_step(
            rel(losses[TPUCC], losses[torch_reference]),
            update_errors(weights[TPUCC](), weights[torch_reference](), step_norms), pooled)
    for label, c in show.items():
        print(f"check: {label}, one step (lr {CHECK_LR}): loss rel err {c['loss_rel_err']:.1e} "
              f"(< {LOSS_TOL:g}); weights |diff| / |update|: classifier "
              f"{c['classifier_update_err']:.1e} (< {UPDATE_TOL:g}), behind a max pool "
              f"{c['pooled_update_err']:.1e} (< {POOLED_UPDATE_TOL:g}: near-ties), worst "
              f"{c['worst']}: {verdict(c['ok'])}")
    return checks


# --- the run ----------------------------------------------------------------------------

def chart_panels(result) -> list:
    titles = {"forward": "forward pass: median ms per call",
              "train": "training step (forward + backward + SGD): median ms per call"}
    return [(titles[key], [(r["name"], r["median"] * 1e3) for r in result[key]["results"]])
            for key in ("forward", "train") if key in result]


def write_results(args, result):
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    chart = args.chart or os.path.splitext(args.out)[0] + ".png"
    result["chart"] = chart
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nresults: {args.out}")
    title = (f"VGG19, batch {args.batch}, {args.image_size}x{args.image_size}, "
             f"{result['platform']} ({result['device']}); lower is better")
    v = result["versions"]
    write_bar_chart(chart, title, chart_panels(result), unit="ms",
                    highlight=lambda name: name.startswith("tpucc"),
                    footer=f"tpucc {v['tpucc']}, jax {v['jax']}, numpy {v['numpy']}, "
                           f"torch {v['torch'] or '-'}, {result['cpus']} CPUs")
    print(f"chart: {chart}")


def cpu_description() -> str:
    """The CPU's model name and widest vector instructions (Linux; else the
    platform's processor string): timings differ by 2-3x between AVX2 and
    AVX-512 machines of the same nominal kind."""
    try:
        with open("/proc/cpuinfo") as f:
            info = f.read()
    except OSError:
        return platform.processor() or "unknown"
    model = next((line.split(":", 1)[1].strip() for line in info.splitlines()
                  if line.startswith("model name")), "unknown")
    flags = next((line.split(":", 1)[1].split() for line in info.splitlines()
                  if line.startswith("flags")), [])
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{model}, {isa}"


def main(argv=None):
    args = parse_args(argv)
    n, s = args.batch, args.image_size
    device = jax.devices()[0]
    torch = torch_or_none(not args.no_torch)
    if torch is not None:
        torch_precision(torch, args.matmul_precision)
    if args.peak_size is None:
        args.peak_size = 2048 if device.platform == "cpu" else 8192
    print(f"tpucc {tpucc.__version__} | jax {jax.__version__} on {device.platform} "
          f"({device.device_kind}) | numpy {np.__version__} | "
          f"torch {torch.__version__ + ' on ' + torch_device(torch) if torch else 'not used'} | "
          f"float32 products at precision {args.matmul_precision!r} | Python "
          f"{platform.python_version()} | {os.cpu_count()} CPUs")
    print(f"CPU: {cpu_description()}")
    if torch is None:
        print("PyTorch: not importable (or --no-torch); skipped")
    t_init, model = timed(lambda: VGG19(num_classes=args.classes, image_size=s, seed=args.seed,
                                        hidden=args.hidden))
    flops = model.flops(n)
    print(f"VGG19 (config E): batch {n}, {s}x{s} images, classifier {args.hidden} wide, "
          f"{args.classes} classes, {model.num_parameters() / 1e6:.1f} M parameters, "
          f"{flops / n / 1e9:.2f} GFLOP/image forward ({forward_flops(224) / 1e9:.1f} at "
          f"224x224), built in {t_init:.1f} s (seed {args.seed})")
    rng = np.random.default_rng(args.seed + 1)
    x = rng.standard_normal((n, 3, s, s), dtype=np.float32)
    labels = rng.integers(0, args.classes, n).astype(np.int32)
    peak = matmul_peak(args.peak_size, torch=torch)
    with_torch = f", PyTorch {peak['torch']:.1f}" if peak["torch"] else ""
    print(f"float32 matmul peak ({args.peak_size}^3): NumPy {peak['numpy']:.1f} GFLOP/s, "
          f"XLA {peak['jax']:.1f}{with_torch} -> peak {peak['peak']:.1f} GFLOP/s")
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    if coretype:
        # Read when NumPy loads OpenBLAS: this process cannot undo it.  (This
        # project's reference machine sets Haswell, which halves NumPy's GEMM.)
        print(f"note: OPENBLAS_CORETYPE={coretype} in the environment pins NumPy's BLAS to "
              f"those kernels: the NumPy rows may run below this CPU's best")

    result = dict(what=args.what, batch=n, image_size=s, hidden=args.hidden,
                  matmul_precision=args.matmul_precision,
                  classes=args.classes, reps=args.reps, seed=args.seed,
                  platform=device.platform, device=device.device_kind, cpus=os.cpu_count(),
                  cpu=cpu_description(),
                  versions=dict(tpucc=tpucc.__version__, jax=jax.__version__,
                                numpy=np.__version__, python=platform.python_version(),
                                torch=torch.__version__ if torch else None),
                  openblas_coretype=os.environ.get("OPENBLAS_CORETYPE"),
                  parameters=model.num_parameters(), matmul_peak=peak)
    if args.what in ("both", "fwd"):
        result["forward"] = forward_section(args, model, x, flops, peak, torch)
    if args.what in ("both", "train"):
        result["train"] = train_section(args, model, x, labels, TRAIN_FLOP_FACTOR * flops,
                                        peak, torch)
    if args.what == "both":
        print_summary(result)
    result["weight_transfer"], result["dispatch_us"] = print_side_notes(model)
    result["ok"] = all(result[k]["ok"] for k in ("forward", "train") if k in result)
    if args.out:
        write_results(args, result)
    return result


if __name__ == "__main__":
    sys.exit(0 if main()["ok"] else 1)
