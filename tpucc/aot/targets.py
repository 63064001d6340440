"""Build targets: the machines an artifact's executables are compiled for.

    cpu                a CPU like this machine's (same architecture and OS)
    cuda, rocm         a GPU of that kind: compiled when this process has one;
                       otherwise the artifact holds only the portable module
                       and says the executable needs such a machine
    tpu                the TPU devices of this process (on a TPU machine)
    tpu-GEN:TOPOLOGY   a TPU slice, e.g. tpu-v5e:2x2, tpu-v4:2x2x1, tpu-v5p:2x2x1,
                       tpu-v6e:1x1: compiled on any machine, TPU or not, through
                       libtpu's compile-only topologies (pip install "tpucc[tpu]")

Every target adds its platform to the portable StableHLO module.  An
executable for several devices takes its inputs replicated on all of them
(tpucc programs carry no sharding annotations).
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import re
import sys
import tempfile
from dataclasses import dataclass

import jax
import numpy as np

from .errors import BuildError

PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
GRAMMAR = ("a target is cpu, cuda, rocm, tpu (this machine's TPU) or tpu-GEN:TOPOLOGY "
           "(a TPU slice compiled here through libtpu), e.g. tpu-v5e:2x2, tpu-v4:2x2x1, "
           "tpu-v5p:2x2x1, tpu-v6e:1x1")
_TPU_SLICE = re.compile(r"^tpu-([a-z0-9]+):([1-9][0-9]*(?:x[1-9][0-9]*){1,2})$")
TPU_EXTRA_HINT = ('install the TPU compiler with `pip install "tpucc[tpu]"` (libtpu, '
                  "the version matching your jax)")


@dataclass(frozen=True)
class Target:
    text: str                       # as written: "cpu", "tpu-v5e:2x2"
    platform: str                   # jax.export's platform name
    generation: str | None = None   # "v5e"
    topology: str | None = None     # "2x2"

    @property
    def tag(self) -> str:
        """A file-name form: tpu-v5e-2x2."""
        return self.text.replace(":", "-")


def parse(text: str) -> Target:
    """A Target from its text; BuildError saying what is wrong."""
    t = text.strip().lower()
    if t in PLATFORMS:
        return Target(t, t)
    m = _TPU_SLICE.match(t)
    if m:
        return Target(t, "tpu", m.group(1), m.group(2))
    if t.startswith("tpu-") and ":" not in t:
        raise BuildError(f"the target {text!r} names a TPU generation but no topology",
                         hint=f"add the slice shape, e.g. {t}:2x2; " + GRAMMAR)
    raise BuildError(f"malformed target {text!r}", hint=GRAMMAR)


def parse_all(texts) -> list[Target]:
    targets, seen = [], set()
    for text in texts:
        target = parse(text)
        if target.text not in seen:
            seen.add(target.text)
            targets.append(target)
    if not targets:
        raise BuildError("no target given", hint=GRAMMAR)
    return targets


class NotHere(Exception):
    """This machine cannot compile an executable for the target (the
    artifact still carries the portable module for its platform)."""


def devices_for(target: Target) -> list:
    """The devices an executable for `target` runs on: this process's, or a
    TPU slice's compile-only devices.  NotHere when this machine has none."""
    if target.platform == "tpu" and target.topology is not None:
        return topology_devices(target)
    devices = local_devices(target.platform)
    if not devices:
        if target.platform == "tpu":
            raise NotHere("this machine has no TPU; to compile a TPU executable here, "
                          "name a slice, e.g. --target tpu-v5e:2x2")
        name = "CUDA" if target.platform == "cuda" else target.platform.upper()
        raise NotHere(f"only the StableHLO module was exported: the {target.platform} "
                      f"executable needs a {name} machine (build there, or `tpucc.load` "
                      "compiles the module on one)")
    return devices if target.platform == "tpu" else devices[:1]


def local_platform() -> str:
    """This process's default platform as jax.export names it: jax calls a
    CUDA or ROCm backend "gpu"."""
    backend = jax.default_backend()
    if backend == "gpu":
        for name in ("cuda", "rocm"):
            if local_devices(name):
                return name
    return backend


def local_devices(platform_name: str) -> list:
    try:
        return list(jax.devices(platform_name))
    except RuntimeError:            # no such backend in this process
        return []


def topology_devices(target: Target) -> list:
    """Compile-only devices of a TPU slice, from libtpu (no TPU needed)."""
    if not libtpu_installed():
        raise BuildError(f"the target {target.text} compiles through libtpu, which is "
                         "not installed", hint=TPU_EXTRA_HINT)
    from jax.experimental import topologies
    dims = [int(d) for d in target.topology.split("x")]
    kwargs = {}
    if target.generation == "v4":
        kwargs["chip_config_name"] = "megacore"     # one device per chip, as on a v4 host
    if dims[0] < 2 or dims[1] < 2:
        # libtpu's default host holds 2x2 chips, which a 1xN slice cannot divide.
        kwargs["chips_per_host_bounds"] = (min(dims[0], 2), min(dims[1], 2), 1)
    # libtpu takes a machine-wide lock file when it loads, meant for processes
    # that open TPU chips; a compile-only slice opens none, and with the lock
    # a second build running at the same time failed ("Internal error when
    # accessing libtpu multi-process lockfile").  A user's own setting wins.
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    # libtpu warns on stderr, from C++, that this machine has no TPU: expected here.
    with _stderr_discarded():
        try:
            topo = topologies.get_topology_desc(f"{target.generation}:{target.topology}",
                                                platform="tpu", **kwargs)
        except Exception as e:  # noqa: BLE001 - libtpu rejects the generation or shape
            message = first_line(e)
            hint = lock_hint() if "lockfile" in message else GRAMMAR
            raise BuildError(f"libtpu cannot make the TPU slice {target.text}: {message}",
                             hint=hint) from None
    return list(topo.devices)


def lock_hint() -> str:
    setting = os.environ.get("ALLOW_MULTIPLE_LIBTPU_LOAD", "")
    return (f"another process of this machine holds libtpu's lock file, and "
            f"ALLOW_MULTIPLE_LIBTPU_LOAD={setting!r} keeps this one out: let it finish, or set "
            "ALLOW_MULTIPLE_LIBTPU_LOAD=1 (a compile-only slice opens no TPU chip)")


def libtpu_installed() -> bool:
    return importlib.util.find_spec("libtpu") is not None


@contextlib.contextmanager
def _stderr_discarded():
    """Points file descriptor 2 at a scratch file for the body: C++ logging
    writes there directly, past sys.stderr, and a quiet build prints nothing."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as scratch:
        os.dup2(scratch.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def first_line(e: Exception) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def compile_for(target: Target, jitted, in_types, devices):
    """Compiles the jitted program, taking `in_types` (ShapeDtypeStructs),
    for `devices`, its inputs replicated on all of them.  The shardings pick the compiler: asking jax for
    lowering_platforms=("tpu",) alone would silently compile for the CPU."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec, SingleDeviceSharding
    if len(devices) == 1:
        sharding = SingleDeviceSharding(devices[0])
    else:
        sharding = NamedSharding(Mesh(np.array(devices), ("devices",)), PartitionSpec())
    structs = [jax.ShapeDtypeStruct(t.shape, t.dtype, sharding=sharding) for t in in_types]
    with jax.enable_x64(True):
        compiled = jitted.lower(*structs).compile()
    check_platform(compiled, target)
    return compiled


def check_platform(compiled, target: Target):
    """An executable labelled for `target` must have been compiled for it."""
    from ..errors import InternalError
    shardings = jax.tree.leaves(compiled.input_shardings) + \
        jax.tree.leaves(compiled.output_shardings)
    allowed = {target.platform} | ({"gpu"} if target.platform in ("cuda", "rocm") else set())
    for s in shardings:
        found = {d.platform for d in s.device_set}
        if not found <= allowed:
            raise InternalError(f"the executable for {target.text} was compiled for "
                                f"{', '.join(sorted(found))}")


def describe_devices(target: Target, devices) -> dict:
    """What a loading process compares with its own devices."""
    d = devices[0]
    info = {"platform": target.platform, "device_kind": d.device_kind,
            "n_devices": len(devices), "topology": target.topology,
            "platform_version": _platform_version(d)}
    if target.platform == "cpu":
        info.update(machine=platform.machine(), system=platform.system(),
                    cpu_features=cpu_features())
    if target.platform == "tpu":
        info["libtpu"] = package_version("libtpu")
    return info


def _platform_version(device) -> str | None:
    try:
        return device.client.platform_version
    except Exception:  # noqa: BLE001 - compile-only clients may not say
        return None


def cpu_features() -> str | None:
    """A digest of this CPU's instruction-set flags: XLA compiles CPU code for
    the host's features, so an executable may not run on a CPU without them."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    flags = " ".join(sorted(line.split(":", 1)[1].split()))
                    return hashlib.sha256(flags.encode()).hexdigest()[:16]
    except OSError:
        pass
    return None


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
