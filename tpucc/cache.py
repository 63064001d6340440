"""cache: the persistent on-disk cache of XLA executables used by @tpucc.compile.

XLA is by far the most expensive stage (seconds for VGG19, against tens of
milliseconds for infer and lower), so a second process that compiles the
same function for the same signature loads the executable from disk instead.

What a hit skips, and why that is sound:

- infer is the complete record of what the program depended on: the code
  of every function inlined, static globals, attributes, closure cells and
  container items read, results of calls evaluated at compile time,
  captured arrays.  It is skipped only when tpucc.snapshot finds a trace
  record whose fingerprint of that world matches this process's (see
  there); otherwise it runs and re-derives all of it from the live objects.
- lower and XLA are skipped.  The key is a fingerprint of the typed IR that
  infer produced (every op, attribute, constant, type and the wiring between
  them; source locations and notes excluded), plus everything else that
  decides the executable: tpucc's own source, the jax/jaxlib/numpy/Python
  versions and jax plugins, the backend (platform, its version, device kind),
  XLA_FLAGS and LIBTPU_INIT_ARGS, every jax configuration value, and the
  compile options.  Lowering is a pure function of those, so equal keys
  give equal HLO modules (tpucc's code patched at run time, rather than in
  its files, is not seen: use cache=False then).  An IR holding an attribute this module cannot
  fingerprint exactly falls back to keying on the lowered StableHLO text
  (lower runs, XLA is still skipped).
- Programs with host callbacks (`print` of runtime values) are never
  stored: their executables refer to Python objects of the process that
  compiled them.

On disk: `<dir>/xla-v1/<key>.bin`, one file per executable: a magic line, a
JSON header (the full key material, sizes, sha256 of the payload), then the
payload (`jax.experimental.serialize_executable`, via tpucc.aot).  Files
are written to a temporary file in the same directory and renamed into
place (atomic on POSIX and Windows), so readers see a whole entry or none,
and several processes may compile and store the same entry at once (the
last rename wins; both contents are valid).  A reader that finds a damaged,
truncated or foreign entry treats it as a miss and removes it.  A CPU
executable with LAPACK custom calls is loaded only after jax's LAPACK
kernels are initialized (else it segfaults: jax issue 28908).  The payload
is a pickle: entries are only loaded from files owned by the current user,
and directories are created private (0700).  `stats()` counts hits,
misses, stores and the rest for this process.

Location: `tpucc.compile(..., cache=False | "path")`, else TPUCC_CACHE=0
disables, TPUCC_CACHE_DIR moves it (empty: disabled), else
$XDG_CACHE_HOME/tpucc or ~/.cache/tpucc (~/Library/Caches/tpucc on macOS,
%LOCALAPPDATA%/tpucc/cache on Windows).  Executables whose XLA compilation
took less than TPUCC_CACHE_MIN_COMPILE_S seconds (default 0.1) are not
stored: loading them would save little, and the cache would fill with them.
The directory is kept under TPUCC_CACHE_MAX_MB megabytes (default 2048) by
removing the least recently used entries after a store.

Trace records live in `<dir>/trace-v1/<key>.json` (tpucc.snapshot).
"""
from __future__ import annotations

import enum
import functools
import hashlib
import json
import os
import platform
import struct
import sys
import tempfile
import threading
import time

import jax
import numpy as np

from . import envvars

FORMAT = "xla-v1"
MAGIC = b"tpucc-xla-cache 1\n"
DEFAULT_MIN_COMPILE_S = 0.1
DEFAULT_MAX_MB = 2048
STALE_TEMP_S = 3600         # a temporary file this old was left by a process that died

_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0, "stores": 0, "skipped": 0, "corrupt": 0, "evicted": 0,
          "errors": 0, "trace_hits": 0, "trace_misses": 0, "trace_stores": 0,
          "trace_unreplayable": 0}


def stats() -> dict:
    """Counters of this process: hits (executables loaded), misses (lookups
    that found nothing usable), stores, skipped (not stored: uncacheable or
    too quick to compile), corrupt (damaged entries found and removed),
    evicted (removed to keep the cache under TPUCC_CACHE_MAX_MB), errors
    (I/O failures, never raised); and for trace records (tpucc.snapshot):
    trace_hits (infer skipped), trace_misses (a record whose world changed),
    trace_stores, trace_unreplayable (a trace or world it cannot describe)."""
    with _lock:
        return dict(_stats)


def reset_stats():
    with _lock:
        for k in _stats:
            _stats[k] = 0


def _count(name):
    with _lock:
        _stats[name] += 1


# --- where --------------------------------------------------------------------------------

def default_directory() -> str:
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~")
        return os.path.join(base, "tpucc", "cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/tpucc")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "tpucc")


def directory(option=None) -> str | None:
    """The cache directory for the compile option `cache` (None or True: the
    default; False: disabled; a path), or None when disabled."""
    if option is False:
        return None
    if option is not None and option is not True:
        path = os.fspath(option)
        return path or None
    if not envvars.flag("TPUCC_CACHE", True):
        return None
    env = os.environ.get("TPUCC_CACHE_DIR")
    if env is not None:
        return env or None
    return default_directory()


def min_compile_seconds() -> float:
    return _env_number("TPUCC_CACHE_MIN_COMPILE_S", DEFAULT_MIN_COMPILE_S)


def max_bytes() -> int:
    return int(_env_number("TPUCC_CACHE_MAX_MB", DEFAULT_MAX_MB) * 2**20)


def _env_number(name, default) -> float:
    return envvars.number(name, default)


def clear(option=None) -> int:
    """Removes every entry of the cache directory (for the compile option
    `cache`, see `directory`); returns how many."""
    root = directory(option)
    if not root:
        return 0
    folder = os.path.join(root, FORMAT)
    return sum(_unlink(path) for path, _ in _listing(folder) if path.endswith(".bin"))


# --- keys ---------------------------------------------------------------------------------

class Unfingerprintable(Exception):
    """An IR attribute whose value cannot be fingerprinted exactly."""


def program_fingerprint(program) -> str:
    """sha256 of the IR's canonical form: op names, attributes (constants by
    content), types, and the wiring (values renumbered in order of
    definition).  Source locations and notes are left out: they do not
    change the module."""
    h = hashlib.sha256()
    ids: dict = {}

    def define(values):
        out = []
        for v in values:
            ids[v] = len(ids)
            out.append(f"{ids[v]}:{_aval(v.aval)}")
        return ",".join(out)

    def use(values):
        try:
            return ",".join(str(ids[v]) for v in values)
        except KeyError:
            raise Unfingerprintable("a value used before its definition") from None

    for kind, x in _walk(program):
        if kind == "params":
            line = "P " + define(x)
        elif kind == "results":
            line = "R " + use(x)
        else:
            attrs = ";".join(f"{k}={_canon(v)}" for k, v in x.attrs)
            line = (f"O {x.name} ({use(x.inputs)}) [{attrs}] -> ({define(x.outputs)}) "
                    f"regions={len(x.regions)}")
        h.update(line.encode())
        h.update(b"\n")
    return h.hexdigest()


def _walk(program):
    """Pre-order over regions and ops, with an explicit stack: ('params',
    values), ('op', op) then the op's regions, ..., ('results', values)."""
    stack = [iter([("region", program)])]
    while stack:
        item = next(stack[-1], None)
        if item is None:
            stack.pop()
            continue
        kind, x = item
        if kind == "region":
            yield "params", x.params
            stack.append(iter([("op", op) for op in x.ops] + [("results", x.results)]))
        elif kind == "op":
            yield "op", x
            if x.regions:
                stack.append(iter([("region", r) for r in x.regions]))
        else:
            yield kind, x


def has_host_callbacks(program, lowered) -> bool:
    """Whether the executable calls back into Python (print of runtime
    values): such an executable cannot be restored in another process."""
    if any(kind == "op" and op.name == "print" for kind, op in _walk(program)):
        return True
    return "callback" in lowered.as_text(dialect="stablehlo")


def _aval(aval) -> str:
    return f"{_dtype_text(aval.dtype)}{list(aval.shape)}{'w' if aval.weak else ''}"


def _canon(v) -> str:
    """An exact, process-independent text for an attribute value."""
    t = type(v)
    if v is None or v is Ellipsis or t is bool:
        return repr(v)
    if t is int:
        return f"i{v}"
    if t is float:
        return "f" + struct.pack("<d", v).hex()
    if t is complex:
        return "c" + struct.pack("<dd", v.real, v.imag).hex()
    if t is str:
        return "s" + repr(v)
    if t is bytes:
        return "b" + v.hex()
    if t in (tuple, list):
        return ("T(" if t is tuple else "L(") + ",".join(_canon(x) for x in v) + ")"
    if t is dict:
        return "D(" + ",".join(f"{_canon(k)}:{_canon(x)}" for k, x in v.items()) + ")"
    if t is slice:
        return f"S({_canon(v.start)},{_canon(v.stop)},{_canon(v.step)})"
    if isinstance(v, np.dtype):
        return "d" + _dtype_text(v)
    if isinstance(v, np.ndarray):
        data = hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()
        return f"a{_dtype_text(v.dtype)}{list(v.shape)}{data}"
    if isinstance(v, np.generic):
        return f"g{_dtype_text(v.dtype)}{v.tobytes().hex()}"
    if isinstance(v, type) and v.__module__ in ("builtins", "numpy"):
        return f"t{v.__module__}.{v.__qualname__}"
    if isinstance(v, enum.Enum) and type(v).__module__.split(".")[0] in ("jax", "numpy"):
        return f"e{type(v).__module__}.{type(v).__qualname__}.{v.name}"
    wrapped = _wrapped_array(v)
    if wrapped is not None:
        return _canon(wrapped)
    raise Unfingerprintable(f"an attribute of type {t.__module__}.{t.__qualname__}")


def _dtype_text(dt) -> str:
    """Byte order, size and name: `.str` alone is '<V2' for bfloat16 and
    '<V1' for every float8 type."""
    if dt.fields is not None or dt.subdtype is not None or dt.metadata or \
            dt.kind not in "biufcV":
        raise Unfingerprintable(f"dtype {dt}")
    return f"{dt.str}:{dt.name}"


def _wrapped_array(v):
    """The ndarray inside infer's hashable constant wrapper (lower unwraps
    attributes the same way), else None."""
    from .infer import builder
    wrapper = getattr(builder, "_Hashable", None)
    if wrapper is not None and type(v) is wrapper:
        return v.array
    return None


def key_material(kind: str, fingerprint: str, options: dict) -> dict:
    """Everything the executable depends on besides the program itself."""
    return {"format": FORMAT, "kind": kind, "program": fingerprint,
            "options": {k: repr(v) for k, v in sorted(options.items()) if k != "cache"},
            "environment": _environment(),
            "jax_config": _jax_config_digest(),
            "env": {k: os.environ.get(k, "") for k in ("XLA_FLAGS", "LIBTPU_INIT_ARGS")}}


def key_of(material: dict) -> str:
    return hashlib.sha256(_canonical_json(material)).hexdigest()


def _canonical_json(material) -> bytes:
    return json.dumps(material, sort_keys=True, separators=(",", ":")).encode()


@functools.lru_cache(maxsize=None)
def _environment() -> dict:
    """Versions, tpucc's own source and the backend: fixed for a process."""
    import jaxlib
    from . import __version__
    dev = jax.devices()[0]
    return {"tpucc": __version__, "tpucc_source": _SOURCE_DIGEST,
            "jax": jax.__version__, "jaxlib": jaxlib.__version__,
            "numpy": np.__version__, "python": platform.python_version(),
            "packages": _jax_packages(), "machine": platform.machine(),
            "system": platform.system(), "backend": dev.platform,
            "platform_version": str(getattr(dev.client, "platform_version", "")),
            "device_kind": dev.device_kind}


def _source_digest() -> str:
    """sha256 over every .py file of the tpucc package: a changed op or
    lowering rule changes the executables without changing the version."""
    root = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(folder, name)
            h.update(os.path.relpath(path, root).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


# Taken when tpucc is imported, to describe the code that is running even if
# the files change later.
_SOURCE_DIGEST = _source_digest()


def _jax_packages() -> dict:
    """Installed jax plugins and libtpu (their compilers build the
    executable), from the names of the .dist-info folders on sys.path:
    reading every package's metadata would cost tens of milliseconds."""
    out = {}
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info") and name.lower().startswith(("jax", "libtpu")):
                package, _, version = name[:-len(".dist-info")].partition("-")
                out.setdefault(package.lower().replace("-", "_"), version)
    return dict(sorted(out.items()))


def _jax_config_digest() -> str:
    """Every jax configuration value in effect (thread-local contexts
    included), except jax's own cache and logging settings."""
    skip = ("cache", "log", "traceback", "explain")
    items = sorted((k, repr(v)) for k, v in jax.config.values.items()
                   if not any(s in k for s in skip))
    return hashlib.sha256(repr(items).encode()).hexdigest()


# --- entries ------------------------------------------------------------------------------

class Store:
    """One cache directory."""

    def __init__(self, root: str):
        self.folder = os.path.join(root, FORMAT)

    @classmethod
    def open(cls, option) -> "Store | None":
        root = directory(option)
        return cls(root) if root else None

    def path(self, key: str) -> str:
        return os.path.join(self.folder, key + ".bin")

    def load(self, key: str, material: dict):
        """The executable stored under `key`, or None.  Never raises."""
        path = self.path(key)
        try:
            st = os.stat(path)
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            _count("misses")
            return None
        except OSError:
            _count("errors")
            _count("misses")
            return None
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            _count("misses")                    # someone else's file: never unpickle it
            return None
        try:
            header, payload = _parse(data, key, material)
            executable = _deserialize(payload, header)
        except Exception:  # noqa: BLE001 - any damage is a miss, never a crash
            _count("corrupt")
            _count("misses")
            _remove_if_unchanged(path, st)
            return None
        _count("hits")
        _touch(path)
        return executable

    def save(self, key: str, material: dict, compiled, n_inputs: int, xla_seconds: float,
             callbacks=lambda: False) -> bool:
        """Stores `compiled` under `key` (atomically) unless it compiled
        quickly or `callbacks()` says it calls back into Python; False if it
        was not stored.  Never raises."""
        try:
            return self._save(key, material, compiled, n_inputs, xla_seconds, callbacks)
        except Exception:  # noqa: BLE001 - the cache must never fail a compile
            _count("errors")
            return False

    def _save(self, key, material, compiled, n_inputs, xla_seconds, callbacks) -> bool:
        if xla_seconds < min_compile_seconds() or callbacks():
            _count("skipped")
            return False
        payload, info = _serialize(compiled, n_inputs)
        if payload is None:
            _count("skipped")
            return False
        header = {"key": key, "material": material, "n_inputs": n_inputs,
                  "n_outputs": info["n_outputs"], "uses_lapack": info["uses_lapack"],
                  "payload_size": len(payload),
                  "payload_sha256": hashlib.sha256(payload).hexdigest(),
                  "xla_seconds": round(xla_seconds, 6), "created": time.time()}
        head = json.dumps(header, sort_keys=True).encode()
        blob = MAGIC + len(head).to_bytes(8, "little") + head + payload
        try:
            _write_atomically(self.folder, self.path(key), blob)
        except OSError:
            _count("errors")
            return False
        _count("stores")
        self.evict(max_bytes())
        return True

    # Trace records (tpucc.snapshot): small JSON files beside the executables.
    def record_path(self, fmt: str, key: str) -> str:
        return os.path.join(os.path.dirname(self.folder), fmt, key + ".json")

    def load_record(self, fmt: str, key: str, material: dict):
        """The record stored under `key` if its material matches, else None.
        Never raises."""
        try:
            with open(self.record_path(fmt, key), "rb") as f:
                data = json.loads(f.read())
            return data["record"] if data["material"] == json.loads(
                _canonical_json(material)) else None
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def save_record(self, fmt: str, key: str, material: dict, record: dict) -> bool:
        try:
            blob = json.dumps({"material": material, "record": record}).encode()
            path = self.record_path(fmt, key)
            _write_atomically(os.path.dirname(path), path, blob)
        except (OSError, TypeError, ValueError):
            _count("errors")
            return False
        _count("trace_stores")
        return True

    def evict(self, limit: int):
        """Removes the least recently used entries (by modification time,
        which a hit refreshes) until the entries take at most 90% of
        `limit` bytes, and temporary files left by processes that died."""
        now, files, total = time.time(), [], 0
        for path, st in _listing(self.folder):
            if path.endswith(".bin"):
                files.append((st.st_mtime, st.st_size, path))
                total += st.st_size
            elif path.endswith(".part") and now - st.st_mtime > STALE_TEMP_S:
                _unlink(path)
        if total <= limit:
            return
        for _, size, path in sorted(files):
            if total <= 0.9 * limit:
                break
            if _unlink(path):
                _count("evicted")
            total -= size


def _listing(folder) -> list:
    """(path, stat) of the folder's files; files removed meanwhile are left out."""
    out = []
    try:
        with os.scandir(folder) as it:
            for e in it:
                try:
                    out.append((e.path, e.stat()))
                except OSError:
                    pass
    except OSError:
        pass
    return out


def _parse(data: bytes, key: str, material: dict) -> tuple[dict, bytes]:
    if not data.startswith(MAGIC):
        raise ValueError("not a tpucc cache entry")
    at = len(MAGIC)
    n = int.from_bytes(data[at:at + 8], "little")
    header = json.loads(data[at + 8:at + 8 + n])
    payload = data[at + 8 + n:]
    if header.get("key") != key or \
            _canonical_json(header.get("material")) != _canonical_json(material):
        raise ValueError("the entry was stored for another key")
    if len(payload) != header["payload_size"] or \
            hashlib.sha256(payload).hexdigest() != header["payload_sha256"]:
        raise ValueError("the payload is truncated or damaged")
    return header, payload


def _write_atomically(folder: str, final: str, blob: bytes):
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".part")
    try:
        # No fsync (it doubles the cost of a store): after a crash an entry may
        # be torn, which its checksum shows, and a torn entry is only a miss.
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, final)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _touch(path: str):
    try:
        os.utime(path)
    except OSError:
        pass


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except OSError:             # already gone (another process evicted it), or open
        return False


def _remove_if_unchanged(path: str, st):
    """Removes a damaged entry unless another process replaced it meanwhile."""
    try:
        now = os.stat(path)
        if (now.st_ino, now.st_mtime_ns, now.st_size) == (st.st_ino, st.st_mtime_ns,
                                                          st.st_size):
            os.unlink(path)
    except OSError:
        pass


# --- executables (tpucc.aot's serialization) ----------------------------------------------

def _serialize(compiled, n_inputs) -> tuple[bytes | None, dict]:
    from .aot.build import _serialize_executable
    try:
        return _serialize_executable(compiled, n_inputs)
    except Exception:  # noqa: BLE001 - not storable: compile again next time
        return None, {}


def _deserialize(payload: bytes, header: dict):
    from jax.experimental import serialize_executable as se
    from .aot.load import init_lapack
    if header["uses_lapack"]:
        init_lapack()           # else a CPU LAPACK custom call segfaults (jax issue 28908)
    in_tree = jax.tree_util.tree_structure((tuple(range(header["n_inputs"])), {}))
    out_tree = jax.tree_util.tree_structure(tuple(range(header["n_outputs"])))
    device = jax.devices()[0]
    with jax.enable_x64(True):
        return se.deserialize_and_load(payload, in_tree, out_tree, backend=device.client,
                                       execution_devices=[device])
