"""The persistent executable cache (tpucc.cache): hits in other processes skip
lower and XLA, anything that changes the program, the options, the flags or
the versions misses, damaged entries are misses, concurrent writers leave a
valid cache.  Every test uses its own cache directory."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import jax
import numpy as np
import pytest

import tpucc
from tpucc import cache, snapshot

from conftest import assert_same


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    root = tmp_path / "cache"
    monkeypatch.setenv("TPUCC_CACHE_DIR", str(root))
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")
    monkeypatch.delenv("TPUCC_CACHE", raising=False)
    cache.reset_stats()
    return root


def entries(root) -> list[str]:
    folder = os.path.join(root, cache.FORMAT)
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def make(source: str, name="f", **options):
    """A fresh function object (and compiled function) from source text, as
    a new process importing that source would get."""
    namespace = {"np": np}
    exec(compile(textwrap.dedent(source), f"<{name}>", "exec"), namespace)
    return namespace[name], tpucc.compile(namespace[name], **options)


def run_once(source, *args, **options):
    """(compiled result, eager result, the entry's StageTimes)."""
    fn, compiled = make(source, **options)
    actual = compiled(*args)
    (entry,) = compiled._cache.values()
    return actual, fn(*args), entry.times


AXPY = """
def f(x, y):
    return 2.5 * x + y, (x * y).sum()
"""
X, Y = np.arange(6.0).reshape(2, 3), np.ones((2, 3), np.float32)


def test_second_compile_loads_the_executable(cache_dir):
    actual, expected, times = run_once(AXPY, X, Y)
    assert_same(expected, actual)
    assert times.cache == "miss" and cache.stats()["stores"] == 1
    actual, expected, times = run_once(AXPY, X, Y)
    assert_same(expected, actual)
    assert times.cache == "hit" and times.lower == 0.0      # lower and XLA skipped
    assert cache.stats()["hits"] == 1
    assert len(entries(cache_dir)) == 1


SCALE_IN_PLACE = """
def f(x, y):
    x *= 2.0
    y[0] = x.sum()
    return x.max()
"""


def test_a_hit_keeps_writing_back_in_place(cache_dir):
    """The stored executable takes the recycled write-back buffers as extra
    inputs (outputs.OutputPool): a hit calls it the same way, call after call."""
    for expected_cache in ("miss", "hit"):
        fn, compiled = make(SCALE_IN_PLACE)
        x, y = np.arange(4.0), np.zeros(3)
        xe, ye = x.copy(), y.copy()
        for _ in range(3):
            assert compiled(x, y) == fn(xe, ye)
            np.testing.assert_array_equal(x, xe)
            np.testing.assert_array_equal(y, ye)
        (entry,) = compiled._cache.values()
        assert entry.times.cache == expected_cache


def test_a_hit_still_lowers_when_asked_to():
    run_once(AXPY, X, Y)
    _, compiled = make(AXPY)
    compiled(X, Y)
    (entry,) = compiled._cache.values()
    assert entry.times.cache == "hit"
    assert "ENTRY" in entry.lowered.as_text(dialect="hlo")      # lowered on first use


def test_changed_source_misses():
    run_once(AXPY, X, Y)
    actual, expected, times = run_once(AXPY.replace("2.5", "3.5"), X, Y)
    assert times.cache == "miss"
    assert_same(expected, actual)


def test_same_program_from_different_source_text_hits():
    """The key is the program, not the text: a comment changes nothing."""
    run_once(AXPY, X, Y)
    actual, expected, times = run_once(AXPY.replace("def f(x, y):",
                                                    "def f(x, y):  # scaled"), X, Y)
    assert times.cache == "hit"
    assert_same(expected, actual)


CONSTANT = """
def f(x):
    table = np.array(VALUES)          # folded at compile time: a constant in the module
    return x + table
"""


def test_constants_are_keyed_by_content():
    """Two 100-element constants differing in one element (beyond what
    printed IR shows) must not share an executable."""
    values = list(np.arange(100.0))
    x = np.zeros(100)
    first = run_once(CONSTANT.replace("VALUES", repr(values)), x)
    values[50] = -1.0
    actual, expected, times = run_once(CONSTANT.replace("VALUES", repr(values)), x)
    assert times.cache == "miss"
    assert_same(expected, actual)
    assert first[0][50] == 50.0 and actual[50] == -1.0


def tiny_program(dtype=np.float32, line=1, constant=1.0):
    """x -> x + constant, built by hand."""
    from tpucc.errors import Loc
    from tpucc.ir import AVal, Op, Region, Value
    x = Value(AVal(np.dtype(dtype), (2,), False))
    c, y = Value(AVal(np.dtype(dtype), (), True)), Value(AVal(np.dtype(dtype), (2,), False))
    ops = [Op("const", (), (("value", np.asarray(constant, dtype)),), (c,), Loc("a.py", line)),
           Op("add", (x, c), (), (y,), Loc("a.py", line), note=f"line {line}")]
    return Region((x,), ops, (y,))


def test_fingerprint_ignores_value_numbering_and_locations():
    assert cache.program_fingerprint(tiny_program(line=1)) == \
        cache.program_fingerprint(tiny_program(line=7))


def test_fingerprint_tells_every_dtype_and_constant_apart():
    import ml_dtypes
    dtypes = [np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
              ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2, np.float32, np.int32]
    # 0.0 has the same bytes in all of them: only the types can tell them apart
    prints = {cache.program_fingerprint(tiny_program(dt, constant=0.0)) for dt in dtypes}
    assert len(prints) == len(dtypes)
    assert cache.program_fingerprint(tiny_program(constant=0.0)) != \
        cache.program_fingerprint(tiny_program(constant=-0.0))


@pytest.mark.parametrize("option", [{"unroll": 4}, {"matmul_precision": "default"},
                                    {"runtime_args": ("y",)}])
def test_changed_option_misses(option):
    run_once(AXPY, X, Y)
    actual, expected, times = run_once(AXPY, X, Y, **option)
    assert times.cache == "miss"
    assert_same(expected, actual)


def test_changed_xla_flags_miss(monkeypatch):
    run_once(AXPY, X, Y)
    monkeypatch.setenv("XLA_FLAGS", (os.environ.get("XLA_FLAGS", "") +
                                     " --xla_cpu_enable_fast_math=false").strip())
    assert run_once(AXPY, X, Y)[2].cache == "miss"


def test_changed_jax_configuration_misses():
    run_once(AXPY, X, Y)
    with jax.default_matmul_precision("bfloat16"):
        assert run_once(AXPY, X, Y)[2].cache == "miss"


@pytest.mark.parametrize("what", ["jaxlib", "tpucc_source", "device_kind", "platform_version"])
def test_changed_versions_or_backend_miss(monkeypatch, what):
    run_once(AXPY, X, Y)
    other = dict(cache._environment(), **{what: "something else"})
    monkeypatch.setattr(cache, "_environment", lambda: other)
    assert run_once(AXPY, X, Y)[2].cache == "miss"


def test_unfingerprintable_ir_falls_back_to_the_module_text(monkeypatch):
    def refuse(v):
        raise cache.Unfingerprintable("test")
    monkeypatch.setattr(cache, "_canon", refuse)
    monkeypatch.setattr(snapshot, "find", lambda *args: None)    # no trace records: trace
    run_once(AXPY, X, Y)
    actual, expected, times = run_once(AXPY, X, Y)
    assert times.cache == "hit" and times.lower > 0.0       # lowered, XLA skipped
    assert_same(expected, actual)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty", "other_key"])
def test_damaged_entry_is_a_miss(cache_dir, damage):
    run_once(AXPY, X, Y)
    (name,) = entries(cache_dir)
    path = os.path.join(cache_dir, cache.FORMAT, name)
    data = open(path, "rb").read()
    if damage == "truncate":
        data = data[:len(data) // 2]
    elif damage == "flip":
        data = data[:-100] + bytes([data[-100] ^ 0xFF]) + data[-99:]
    elif damage == "garbage":
        data = os.urandom(len(data))
    elif damage == "empty":
        data = b""
    else:                         # a whole, valid entry of another program
        run_once(AXPY.replace("2.5", "4.5"), X, Y)
        other = [n for n in entries(cache_dir) if n != name][0]
        data = open(os.path.join(cache_dir, cache.FORMAT, other), "rb").read()
    with open(path, "wb") as f:
        f.write(data)
    cache.reset_stats()
    actual, expected, times = run_once(AXPY, X, Y)
    assert times.cache == "miss" and cache.stats()["corrupt"] == 1
    assert_same(expected, actual)
    assert cache.stats()["stores"] == 1         # replaced by a good entry
    assert run_once(AXPY, X, Y)[2].cache == "hit"


def test_clear(cache_dir):
    run_once(AXPY, X, Y)
    assert cache.clear() == 1 and entries(cache_dir) == []
    assert run_once(AXPY, X, Y)[2].cache == "miss"


def test_disabled_by_option_and_environment(cache_dir, monkeypatch, tmp_path):
    assert run_once(AXPY, X, Y, cache=False)[2].cache == "off"
    monkeypatch.setenv("TPUCC_CACHE", "0")
    assert run_once(AXPY, X, Y)[2].cache == "off"
    monkeypatch.setenv("TPUCC_CACHE", "1")
    monkeypatch.setenv("TPUCC_CACHE_DIR", "")
    assert run_once(AXPY, X, Y)[2].cache == "off"
    assert entries(cache_dir) == []
    moved = tmp_path / "moved"
    assert run_once(AXPY, X, Y, cache=str(moved))[2].cache == "miss"
    assert run_once(AXPY, X, Y, cache=moved)[2].cache == "hit"
    assert len(entries(moved)) == 1


def test_hlo_dump_still_lowers_on_a_hit(monkeypatch, capsys):
    run_once(AXPY, X, Y)
    capsys.readouterr()
    monkeypatch.setenv("TPUCC_DUMP", "hlo")
    actual, expected, times = run_once(AXPY, X, Y)
    assert times.cache == "hit" and "--- tpucc hlo ---" in capsys.readouterr().err
    assert_same(expected, actual)


def test_default_directory_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("TPUCC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert cache.directory() == str(tmp_path / "xdg" / "tpucc")
    assert cache.directory(False) is None


def test_bad_cache_option_is_refused():
    with pytest.raises(TypeError, match="cache must be"):
        tpucc.compile(lambda x: x, cache=3)


def test_quick_compiles_and_host_callbacks_are_not_stored(cache_dir, monkeypatch):
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "1000")
    assert run_once(AXPY, X, Y)[2].cache == "miss"
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")
    printing = """
def f(x):
    print("sum", x.sum())
    return x + 1
"""
    run_once(printing, X)
    assert entries(cache_dir) == [] and cache.stats()["skipped"] == 2


def test_unwritable_directory_never_fails(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    actual, expected, times = run_once(AXPY, X, Y, cache=str(blocker))
    assert_same(expected, actual)
    assert cache.stats()["errors"] >= 1


def test_least_recently_used_entries_are_evicted(cache_dir, monkeypatch):
    sources = {name: AXPY.replace("2.5", value)
               for name, value in (("a", "2.5"), ("b", "3.5"), ("c", "4.5"))}
    run_once(sources["a"], X, Y)
    (a_name,) = entries(cache_dir)
    run_once(sources["b"], X, Y)
    (b_name,) = set(entries(cache_dir)) - {a_name}
    folder = os.path.join(cache_dir, cache.FORMAT)
    sizes = [os.path.getsize(os.path.join(folder, n)) for n in (a_name, b_name)]
    monkeypatch.setenv("TPUCC_CACHE_MAX_MB", str(2.5 * max(sizes) / 2**20))
    now = time.time()
    os.utime(os.path.join(folder, a_name), (now - 100, now - 100))
    os.utime(os.path.join(folder, b_name), (now - 50, now - 50))
    assert run_once(sources["a"], X, Y)[2].cache == "hit"      # a is now the newest
    run_once(sources["c"], X, Y)                               # over the limit: b goes
    assert cache.stats()["evicted"] == 1
    assert a_name in entries(cache_dir) and b_name not in entries(cache_dir)
    assert len(entries(cache_dir)) == 2


# --- other processes --------------------------------------------------------------------

CHILD = """
import json, sys
import numpy as np
import tpucc, tpucc.cache
sys.path.insert(0, {folder!r})
from prog import f
x, y = np.arange(6.0).reshape(2, 3), np.ones((2, 3), np.float32)
compiled = tpucc.compile(f)
out = compiled(x, y)
(entry,) = compiled._cache.values()
print(json.dumps({{"out": [out[0].tolist(), float(out[1])], "cache": entry.times.cache,
                  "lower": entry.times.lower, "stats": tpucc.cache.stats(),
                  "source": tpucc.cache._SOURCE_DIGEST}}))
"""


def spawn(folder, cache_dir):
    env = dict(os.environ, TPUCC_CACHE_DIR=str(cache_dir), TPUCC_CACHE_MIN_COMPILE_S="0",
               JAX_PLATFORMS="cpu")
    return subprocess.Popen([sys.executable, "-c", CHILD.format(folder=str(folder))],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def result(proc) -> dict:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def test_concurrent_processes_then_a_hit_in_a_new_process(tmp_path, cache_dir):
    (tmp_path / "prog.py").write_text("def f(x, y):\n    return 2.5 * x + y, (x * y).sum()\n")
    expected = [(2.5 * X + Y).tolist(), float((X * Y).sum())]
    procs = [spawn(tmp_path, cache_dir) for _ in range(4)]
    results = [result(p) for p in procs]
    for r in results:
        assert r["out"] == expected
        assert r["cache"] in ("miss", "hit")
    names = entries(cache_dir)
    assert all(n.endswith(".bin") for n in names)              # no temporary files left
    # One valid entry per version of tpucc's source (others may edit it meanwhile).
    stored = [stored_source(cache_dir, n) for n in names]
    assert sorted(stored) == sorted({r["source"] for r in results})
    again = result(spawn(tmp_path, cache_dir))
    assert again["out"] == expected
    if again["source"] not in stored:
        pytest.skip("tpucc's own source files changed while the test ran")
    assert again["cache"] == "hit" and again["lower"] == 0.0
    assert again["stats"]["hits"] == 1 and again["stats"]["misses"] == 0


def stored_source(cache_dir, name) -> str:
    """The tpucc source digest an entry was stored under (from its header)."""
    with open(os.path.join(cache_dir, cache.FORMAT, name), "rb") as f:
        data = f.read()
    n = int.from_bytes(data[len(cache.MAGIC):len(cache.MAGIC) + 8], "little")
    header = json.loads(data[len(cache.MAGIC) + 8:len(cache.MAGIC) + 8 + n])
    return header["material"]["environment"]["tpucc_source"]


def test_a_weight_kept_transposed_is_another_executable():
    """device_cache keeps a conv's captured OIHW weight as HWIO, so that
    program's IR equals one taking the weight as an argument but its module
    does not; with O=I=H=W the shapes matched too, and the cache served one
    for the other (wrong results)."""
    from tpucc import nn
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 3, 3, 3)).astype(np.float32)
    x = rng.standard_normal((1, 3, 5, 5)).astype(np.float32)
    captured = tpucc.compile(lambda x: nn.conv2d(x, w, None, padding=1), device_cache=True)
    passed = tpucc.compile(lambda x, w: nn.conv2d(x, w, None, padding=1), device_cache=True)
    want = nn.conv2d(x, w, None, padding=1)
    np.testing.assert_allclose(captured(x), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(passed(x, w), want, rtol=1e-5, atol=1e-5)
    assert cache.stats()["hits"] == 0
