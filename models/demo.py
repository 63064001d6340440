"""The tpucc demo: VGG19's forward pass, written as plain Python + NumPy,
compiled by tpucc into one XLA module, checked against eager NumPy and timed
side by side with a hand-written jax.jit VGG19, eager NumPy and (when
installed) eager PyTorch, all on the same weights and the same input.

    .venv/bin/python models/demo.py [--batch 2] [--image-size 112] [--reps 7]

Timings are steady-state medians (the first call of each, which traces and
compiles, is timed separately and serves as the warm-up), measured round-robin
so that every implementation sees the same machine load.  Every implementation
returns a NumPy array, as tpucc does.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import jax                                     # noqa: E402
import jax.numpy as jnp                        # noqa: E402
from jax import lax                            # noqa: E402

import tpucc                                   # noqa: E402
from vgg19 import VGG19, Conv2d, Linear, forward_flops   # noqa: E402

# About 50 s on a 2-vCPU machine.  At 224x224 the 575 MB of weights make the
# per-call weight copy dominate tpucc's time (see the "weights:" line).
DEFAULTS = dict(batch=2, image_size=112, reps=7)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=DEFAULTS["batch"])
    p.add_argument("--image-size", type=int, default=DEFAULTS["image_size"])
    p.add_argument("--reps", type=int, default=DEFAULTS["reps"],
                   help="timed calls per implementation (after one warm-up)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="bench-out/demo.json", help="JSON results path")
    p.add_argument("--chart", default=None,
                   help="PNG bar chart path (default: next to --out; needs matplotlib)")
    p.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    return p.parse_args(argv)


# --- the alternatives -----------------------------------------------------------------

def jax_vgg19(model, layout):
    """VGG19 forward written directly with jax.lax, as a JAX user would: params
    are a list of (w, b) device arrays, NHWC/HWIO (the Flax convention) or
    NCHW/OIHW (the layout tpucc's model uses).  Returns (jitted fn, params)."""
    nhwc = layout == "NHWC"
    dims = ("NHWC", "HWIO", "NHWC") if nhwc else ("NCHW", "OIHW", "NCHW")
    pool = (1, 2, 2, 1) if nhwc else (1, 1, 2, 2)
    plan, params = [], []
    for layer in model.layers:
        if isinstance(layer, (Conv2d, Linear)):
            w = layer.weight
            if isinstance(layer, Conv2d) and nhwc:
                w = np.ascontiguousarray(w.transpose(2, 3, 1, 0))
            params.append((w, layer.bias))
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
                                             dimension_numbers=dims)
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
                x = x @ w + b
        return x

    return jax.jit(forward), jax.device_put(params)


def torch_vgg19(model):
    """Eager PyTorch on the same weights, or None when torch is not importable."""
    try:
        import torch
        import torch.nn.functional as F
    except Exception:      # noqa: BLE001 - any import failure means "skip"
        return None, None
    layers = []
    for layer in model.layers:
        if isinstance(layer, (Conv2d, Linear)):
            layers.append((type(layer).__name__, torch.from_numpy(layer.weight),
                           torch.from_numpy(layer.bias)))
        else:
            layers.append((type(layer).__name__, None, None))

    def forward(x):
        with torch.inference_mode():
            t = torch.from_numpy(x)
            for kind, w, b in layers:
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
            return t.numpy()
    return forward, torch.__version__


# --- measuring --------------------------------------------------------------------------

def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def round_robin(impls: dict, reps: int) -> dict:
    """Median seconds per call of each implementation, timed in turns."""
    samples = {name: [] for name in impls}
    for _ in range(reps):
        for name, fn in impls.items():
            samples[name].append(timed(fn)[0])
    return {name: dict(median=statistics.median(s), min=min(s), samples=s)
            for name, s in samples.items()}


def matmul_peak(n=2048, reps=3) -> dict:
    """float32 matmul throughput (GFLOP/s) of NumPy's BLAS and of XLA: the
    machine's practical peak, measured in this run."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    flop = 2 * n ** 3
    a @ b
    t_np = min(timed(lambda: a @ b)[0] for _ in range(reps))
    mm = jax.jit(jnp.matmul)
    ja, jb = jax.device_put(a), jax.device_put(b)
    mm(ja, jb).block_until_ready()
    t_jx = min(timed(lambda: mm(ja, jb).block_until_ready())[0] for _ in range(reps))
    res = dict(numpy=flop / t_np / 1e9, jax=flop / t_jx / 1e9, n=n)
    res["peak"] = max(res["numpy"], res["jax"])
    return res


def dispatch_overhead(calls=2000) -> dict:
    """Median microseconds of one cached call of a tiny function (x + 1 on
    8 floats, NumPy in, result ready): tpucc vs jax.jit."""
    x = np.arange(8, dtype=np.float32)

    def tiny(x):
        return x + 1

    t_fn = tpucc.compile(tiny)
    j_fn = jax.jit(tiny)
    impls = {"tpucc": lambda: t_fn(x),
             "jax.jit (block_until_ready)": lambda: j_fn(x).block_until_ready(),
             "jax.jit (-> NumPy)": lambda: np.asarray(j_fn(x))}
    for fn in impls.values():
        for _ in range(20):
            fn()
    out = {}
    for name, fn in impls.items():
        ts = []
        for _ in range(calls):
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        out[name] = statistics.median(ts) * 1e6
    return out


def weight_transfer(model) -> dict:
    """What passing the weights as NumPy arrays costs per call: tpucc re-reads
    them at every call (they may have changed) and hands them to XLA, which on
    CPU reads 64-byte-aligned arrays in place and copies the others."""
    params = list(model.parameters().values())
    put = lambda: jax.block_until_ready(jax.device_put(params))     # noqa: E731
    put()
    return dict(mb=sum(p.nbytes for p in params) / 1e6, arrays=len(params),
                misaligned=sum(p.ctypes.data % 64 != 0 for p in params),
                device_put_s=min(timed(put)[0] for _ in range(3)))


def rel_error(actual, expected) -> float:
    """max |actual - expected| / max |expected|."""
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    return float(np.max(np.abs(actual - expected)) / np.max(np.abs(expected)))


# --- reporting --------------------------------------------------------------------------

def print_table(rows, flops, peak):
    print(f"\n{'implementation':<34}{'median ms':>11}{'min ms':>10}{'GFLOP/s':>10}"
          f"{'% peak':>8}{'first call s':>14}{'max rel err':>13}")
    for r in rows:
        gf = flops / r["median"] / 1e9
        err = "-" if r.get("rel_err") is None else f"{r['rel_err']:.1e}"
        print(f"{r['name']:<34}{r['median'] * 1e3:>11.1f}{r['min'] * 1e3:>10.1f}{gf:>10.1f}"
              f"{100 * gf / peak:>7.1f}%{r['first']:>14.2f}{err:>13}")


def write_chart(path, rows, title):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception:      # noqa: BLE001
        print("chart: matplotlib is not importable; skipped")
        return None
    fig, ax = plt.subplots(figsize=(7, 3.5))
    names = [r["name"] for r in rows]
    ax.barh(names[::-1], [r["median"] * 1e3 for r in rows][::-1], color="#4c72b0")
    ax.set_xlabel("median ms per forward (lower is better)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"chart: {path}")
    return path


# --- the run ----------------------------------------------------------------------------

TPUCC = "tpucc (NumPy source, NCHW)"
TPUCC_CACHED = "tpucc device_cache=True"
EAGER = "NumPy eager"


def compile_tpucc(model, x) -> tuple:
    """tpucc.compile(model.forward); its compile stages via the staged API."""
    forward = tpucc.compile(model.forward)
    lowered = forward.lower(x)
    t_xla, _ = timed(lowered.compile)
    stages = dict(infer=lowered.times.infer, lower=lowered.times.lower,
                  xla=lowered.times.xla or t_xla)
    stages["hlo_entries"] = lowered.as_text().count("ENTRY")
    print(f"tpucc compile: infer {stages['infer']:.2f} s, lower {stages['lower']:.2f} s, "
          f"XLA {stages['xla']:.2f} s; HLO modules: {stages['hlo_entries']} ENTRY")
    return forward, stages


def implementations(model, x, forward, use_torch) -> tuple:
    """{name: zero-argument callable running one forward pass to completion}
    and the torch version (None when skipped)."""
    j_nhwc, p_nhwc = jax_vgg19(model, "NHWC")
    j_nchw, p_nchw = jax_vgg19(model, "NCHW")
    cached = tpucc.compile(model.forward, device_cache=True)
    impls = {
        TPUCC: lambda: forward(x),
        TPUCC_CACHED: lambda: cached(x),
        "jax.jit hand-written NHWC": lambda: np.asarray(j_nhwc(p_nhwc, x)),
        "jax.jit hand-written NCHW": lambda: np.asarray(j_nchw(p_nchw, x)),
        EAGER: lambda: model.forward(x),
    }
    torch_fn, torch_version = torch_vgg19(model) if use_torch else (None, None)
    if torch_fn is not None:
        impls[f"PyTorch {torch_version} eager"] = lambda: torch_fn(x)
    else:
        print("PyTorch: not importable (or --no-torch); skipped")
    return impls, torch_version


def first_calls(impls) -> tuple:
    """Seconds of each implementation's first call (tracing and compiling
    included) and its output."""
    firsts, outs = {}, {}
    for name, fn in impls.items():
        firsts[name], outs[name] = timed(fn)
    return firsts, outs


def print_ratios(timing) -> dict:
    print("\ntpucc speed-up (their median / tpucc median):")
    ratios = {}
    for name, t in timing.items():
        if name not in (TPUCC, TPUCC_CACHED):
            ratios[name] = t["median"] / timing[TPUCC]["median"]
            cached = t["median"] / timing[TPUCC_CACHED]["median"]
            ratios[name + " (device_cache)"] = cached
            print(f"  vs {name:<32} {ratios[name]:6.2f}x   (device_cache=True: {cached:.2f}x)")
    return ratios


def print_side_notes(model) -> tuple:
    wt = weight_transfer(model)
    print(f"\nweights: {wt['mb']:.0f} MB in {wt['arrays']} NumPy arrays, passed at every tpucc "
          f"call ({wt['misaligned']} not 64-byte aligned, which XLA:CPU copies); one "
          f"jax.device_put of all of them takes {wt['device_put_s'] * 1e3:.0f} ms")
    disp = dispatch_overhead()
    print("\ncached-call dispatch overhead, tiny function (median of 2000 calls):")
    for k, us in disp.items():
        print(f"  {k:<30} {us:8.1f} us")
    return wt, disp


def write_results(args, result, rows, title):
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nresults: {args.out}")
    write_chart(args.chart or os.path.splitext(args.out)[0] + ".png", rows, title)


def main(argv=None):
    args = parse_args(argv)
    n, s = args.batch, args.image_size
    device = jax.devices()[0]
    print(f"tpucc {tpucc.__version__} | jax {jax.__version__} on {device.platform} "
          f"({device.device_kind}) | numpy {np.__version__} | Python "
          f"{platform.python_version()} | {os.cpu_count()} CPUs")
    t_init, model = timed(lambda: VGG19(image_size=s, seed=args.seed))
    flops = model.flops(n)
    print(f"VGG19 (config E): batch {n}, {s}x{s} images, {model.num_parameters() / 1e6:.1f} M "
          f"parameters, {flops / n / 1e9:.2f} GFLOP/image ({forward_flops(224) / 1e9:.1f} at "
          f"224x224), built in {t_init:.1f} s (seed {args.seed})")
    x = np.random.default_rng(args.seed + 1).standard_normal((n, 3, s, s), dtype=np.float32)
    peak = matmul_peak()
    print(f"float32 matmul peak (2048^3): NumPy {peak['numpy']:.1f} GFLOP/s, "
          f"XLA {peak['jax']:.1f} GFLOP/s -> peak {peak['peak']:.1f} GFLOP/s")

    forward, stages = compile_tpucc(model, x)
    impls, torch_version = implementations(model, x, forward, not args.no_torch)
    firsts, outs = first_calls(impls)
    err = rel_error(outs[TPUCC], outs[EAGER])
    print(f"check: tpucc vs eager NumPy, max |diff| / max |logit| = {err:.2e} "
          f"({'OK' if err < 1e-4 else 'MISMATCH'})")

    print(f"timing: {args.reps} calls each after the first, round-robin ...", flush=True)
    timing = round_robin(impls, args.reps)
    rows = [dict(name=k, first=firsts[k], **timing[k],
                 rel_err=None if k == EAGER else rel_error(outs[k], outs[EAGER])) for k in impls]
    print_table(rows, flops, peak["peak"])
    ratios = print_ratios(timing)
    wt, disp = print_side_notes(model)

    result = dict(batch=n, image_size=s, reps=args.reps, seed=args.seed,
                  platform=device.platform, device=device.device_kind,
                  versions=dict(tpucc=tpucc.__version__, jax=jax.__version__,
                                numpy=np.__version__, torch=torch_version),
                  gflop=flops / 1e9, parameters=model.num_parameters(), matmul_peak=peak,
                  tpucc_compile=stages, max_rel_err=err, results=rows,
                  speedup_of_tpucc=ratios, dispatch_us=disp, weight_transfer=wt)
    if args.out:
        write_results(args, result, rows, f"VGG19 forward, batch {n}, {s}x{s}, {device.platform}")
    return result


if __name__ == "__main__":
    sys.exit(0 if main()["max_rel_err"] < 1e-4 else 1)
