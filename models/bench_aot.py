"""Ahead-of-time numbers for VGG19 (models/vgg19_aot.py): cold build time,
artifact size, and the time from `tpucc.load` to the first result in a fresh
process; and the same for the persistent cache of @tpucc.compile (a second
process compiling the same function: trace record + cached executable).

    .venv/bin/python models/bench_aot.py [--batch 1] [--image-size 224] [--out DIR]

Every measurement runs in its own process, as a user's would.  The first
result includes one forward pass, which no loading can avoid, so the
steady-state time of that forward is printed beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

LOAD_AND_RUN = """
import time; t0 = time.perf_counter()
import json, numpy as np, tpucc
t1 = time.perf_counter()
f = tpucc.load({artifact!r})
t2 = time.perf_counter()
x = np.random.default_rng(0).standard_normal(({batch}, 3, {size}, {size}), dtype=np.float32)
t3 = time.perf_counter(); f(x); t4 = time.perf_counter()
steady = []
for _ in range(3):
    a = time.perf_counter(); f(x); steady.append(time.perf_counter() - a)
print(json.dumps(dict(import_s=t1 - t0, load_s=t2 - t1, first_s=t4 - t3, steady_s=min(steady))))
"""

COMPILE_AND_RUN = """
import time, json, sys
sys.path.insert(0, {models!r})
import numpy as np, tpucc
import vgg19_aot
x = np.random.default_rng(0).standard_normal(({batch}, 3, {size}, {size}), dtype=np.float32)
f = tpucc.compile(vgg19_aot.classify)
t0 = time.perf_counter(); f(x); t1 = time.perf_counter()
(entry,) = f._cache.values()
t = entry.times
print(json.dumps(dict(first_s=t1 - t0, infer_s=t.infer, lower_s=t.lower, xla_s=t.xla,
                      cache=t.cache, replayed=t.replayed)))
"""


def run(cmd, env, **kw):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, **kw)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr[-3000:]}")
    return time.perf_counter() - t0, r


def stage_times(progress: str) -> dict:
    """Seconds per stage from `tpucc build --progress` lines ("  xla cpu   510.8 ms")."""
    out = {}
    for line in progress.splitlines():
        parts = line.split()
        if parts[:1] == ["total"]:                  # "total 4.43 s"
            out["total"] = float(parts[1])
        elif "ms" in parts and line.startswith("  "):
            i = parts.index("ms")
            out[" ".join(parts[:i - 1])] = float(parts[i - 1]) / 1e3
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--image-size", type=int, default=224)
    p.add_argument("--out", default=None, help="artifact folder (default: a temporary one)")
    p.add_argument("--json", default=None, help="also write the numbers here")
    args = p.parse_args(argv)
    out = args.out or tempfile.mkdtemp(prefix="tpucc-bench-aot-")
    cache_dir = tempfile.mkdtemp(prefix="tpucc-bench-cache-")
    env = {**os.environ, "TPUCC_VGG_BATCH": str(args.batch),
           "TPUCC_VGG_SIZE": str(args.image_size),
           # this checkout first, then wherever the caller's packages are
           "PYTHONPATH": os.pathsep.join(filter(None, (ROOT, os.environ.get("PYTHONPATH"))))}
    py = sys.executable
    fmt = dict(batch=args.batch, size=args.image_size, models=HERE)

    wall, r = run([py, "-m", "tpucc.cli", "build", os.path.join(HERE, "vgg19_aot.py"),
                   "--out", out, "--progress"], {**env, "TPUCC_CACHE": "0"})
    stages = stage_times(r.stderr)
    artifact = os.path.join(out, "classify.tpucc")
    size = sum(os.path.getsize(os.path.join(artifact, f)) for f in os.listdir(artifact))
    compile_s = stages.get("infer + lower", 0) + stages.get("export stablehlo", 0) + \
        stages.get("xla cpu", 0)
    _, r = run([py, "-c", LOAD_AND_RUN.format(artifact=artifact, **fmt)], env)
    loaded = json.loads(r.stdout)

    cached_env = {**env, "TPUCC_CACHE_DIR": cache_dir}
    runs = [json.loads(run([py, "-c", COMPILE_AND_RUN.format(**fmt)], cached_env)[1].stdout)
            for _ in range(2)]

    to_first = loaded["load_s"] + loaded["first_s"]
    overhead = to_first - loaded["steady_s"]
    print(f"VGG19 forward, batch {args.batch}, {args.image_size}x{args.image_size}")
    print(f"cold build (tpucc build, fresh process, no cache): {wall:.2f} s wall; stages: "
          + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items()))
    print(f"artifact: {size / 2**20:.1f} MiB" + (f" ({artifact})" if args.out else ""))
    print(f"fresh process: import tpucc {loaded['import_s']:.2f} s, tpucc.load "
          f"{loaded['load_s'] * 1e3:.1f} ms, first result {loaded['first_s'] * 1e3:.0f} ms "
          f"(a steady-state forward: {loaded['steady_s'] * 1e3:.0f} ms)")
    print(f"load -> first result: {to_first:.3f} s = {100 * to_first / stages['total']:.1f}% of "
          f"the cold build ({stages['total']:.2f} s), {100 * to_first / compile_s:.0f}% of its "
          f"compile stages ({compile_s:.2f} s); beyond the forward itself: "
          f"{overhead * 1e3:.0f} ms = {100 * overhead / stages['total']:.1f}% of the build")
    for name, r in zip(("first process", "second process"), runs):
        print(f"@tpucc.compile, {name}: first result {r['first_s']:.2f} s (infer "
              f"{r['infer_s'] * 1e3:.0f} ms, lower {r['lower_s'] * 1e3:.0f} ms, XLA or load "
              f"{r['xla_s'] * 1e3:.0f} ms; disk cache {r['cache']}"
              f"{', infer skipped' if r['replayed'] else ''})")
    shutil.rmtree(cache_dir, ignore_errors=True)
    if args.out is None:
        shutil.rmtree(out, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(build_wall_s=wall, stages=stages, artifact_bytes=size,
                           loaded=loaded, compile_runs=runs), f, indent=2)


if __name__ == "__main__":
    main()
