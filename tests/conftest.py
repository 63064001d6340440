"""Differential-test helpers: run a program eagerly with NumPy and compiled
with tpucc on copies of the same arguments; compare values, dtypes, shapes and
the arguments' final contents (in-place updates must be written back)."""
from __future__ import annotations

import atexit
import collections
import copy
import dataclasses
import hashlib
import os
import re
import shutil
import tempfile

import numpy as np
import pytest

import tpucc
from tpucc import driver

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TPUCC_VERIFY", "1")     # check the IR between infer and lower
# The suite never touches the user's persistent cache (~/.cache/tpucc): it
# gets a private one, removed at exit.
if "TPUCC_CACHE_DIR" not in os.environ:
    os.environ["TPUCC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tpucc-test-cache-")
    atexit.register(shutil.rmtree, os.environ["TPUCC_CACHE_DIR"], True)


# The suite compiles many HLO modules more than once: a test runs one program
# on several inputs, each time through a fresh tpucc.compile(cache=False),
# and 20-45% of a fix file's XLA compiles were of a module compiled before
# in the same process (measured).  XLA turns one module text into the same
# executable every time, so the suite keeps the last executables by their
# module's text and signature, for compiles with cache=False: every call
# still infers and lowers, and only XLA's work on an identical module is
# shared.  TPUCC_TEST_XLA_MEMO=0 turns this off.
_XLA_MEMO: collections.OrderedDict = collections.OrderedDict()
_XLA_MEMO_SIZE = 256


def _memoized_compile(entry, _compile=driver._compile):
    # Only for cache=False: a compile that may be stored in the persistent
    # cache (check(), the cache's own tests) stays XLA's own.
    if entry.options.get("cache") is not False:
        return _compile(entry)
    text = entry.lowered.as_text()
    if "callback" in text:      # a Python callback is not named by the text
        return _compile(entry)
    # (the text leaves out arguments the program does not read; the
    # executable checks them all)
    key = hashlib.sha256(
        f"{entry.lowered.args_info}\n{entry.lowered.out_info}\n{text}".encode()).digest()
    if key in _XLA_MEMO:
        _XLA_MEMO.move_to_end(key)
        entry.executable, entry.times.xla = _XLA_MEMO[key]
        return
    _compile(entry)
    _XLA_MEMO[key] = entry.executable, entry.times.xla
    if len(_XLA_MEMO) > _XLA_MEMO_SIZE:
        _XLA_MEMO.popitem(last=False)


if os.environ.get("TPUCC_TEST_XLA_MEMO", "1") != "0":
    driver._compile = _memoized_compile


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_env(**extra) -> dict:
    """The environment of a tpucc child process: this checkout first on
    PYTHONPATH, ahead of (not instead of) the caller's, whose entries may be
    where the dependencies are installed."""
    path = os.pathsep.join(p for p in (REPO, os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONPATH": path, **extra}


def _leaves(x, path="out"):
    if isinstance(x, (tuple, list)):
        for i, v in enumerate(x):
            yield from _leaves(v, f"{path}[{i}]")
    elif isinstance(x, dict):
        for k in sorted(x, key=repr):
            yield from _leaves(x[k], f"{path}[{k!r}]")
    else:
        yield path, x


def _kind(x) -> str:
    """What eager NumPy hands back, beyond the dtype: np.asarray makes a
    Python float and an np.float64 look alike, a user's type() does not."""
    if isinstance(x, np.ndarray):
        return "array"
    return "NumPy scalar" if isinstance(x, np.generic) else "Python scalar"


def assert_same(expected, actual, rtol=1e-6, atol=1e-6):
    """Same structure, same Python/NumPy kinds, same dtypes and shapes, close values."""
    assert type(expected) is type(actual) or not isinstance(expected, (tuple, list, dict)), (
        f"container type: expected {type(expected).__name__}, got {type(actual).__name__}")
    el, al = list(_leaves(expected)), list(_leaves(actual))
    assert [p for p, _ in el] == [p for p, _ in al], f"structure: {el} vs {al}"
    for (path, e), (_, a) in zip(el, al):
        if isinstance(e, (np.ndarray, np.generic)) or isinstance(a, (np.ndarray, np.generic)):
            ea, aa = np.asarray(e), np.asarray(a)
            assert _kind(e) == _kind(a), (
                f"{path}: expected a {_kind(e)} ({type(e).__name__}), got a {_kind(a)} "
                f"({type(a).__name__}): a 0-d array, a NumPy scalar and a Python scalar differ")
            assert ea.dtype == aa.dtype, f"{path}: dtype {ea.dtype} expected, got {aa.dtype}"
            assert ea.shape == aa.shape, f"{path}: shape {ea.shape} expected, got {aa.shape}"
            if ea.dtype.kind in "fc":
                np.testing.assert_allclose(aa, ea, rtol=rtol, atol=atol, err_msg=path)
            else:
                np.testing.assert_array_equal(aa, ea, err_msg=path)
        elif isinstance(e, float):
            assert isinstance(a, float), f"{path}: expected float, got {type(a).__name__}"
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=path)
        else:
            assert type(e) is type(a) and e == a, f"{path}: expected {e!r}, got {a!r}"


def check(fn, *args, rtol=1e-6, atol=1e-6, compile_kwargs=None, **kwargs):
    """Compiles `fn`, runs it and eager `fn` on deep copies of the arguments,
    and asserts equal results and equal final argument contents.  Returns the
    compiled function for further checks (e.g. on its HLO)."""
    eager_args, eager_kwargs = copy.deepcopy((args, kwargs))
    comp_args, comp_kwargs = copy.deepcopy((args, kwargs))
    expected = fn(*eager_args, **eager_kwargs)
    compiled = tpucc.compile(fn, **(compile_kwargs or {}))
    actual = compiled(*comp_args, **comp_kwargs)
    assert_same(expected, actual, rtol, atol)
    assert_same(eager_args, comp_args, rtol, atol)     # in-place updates written back
    return compiled


def same(fn, *args):
    """fn compiled (no cache) and eager on deep copies of `args`: equal
    results, dtypes and argument contents after the call (NumPy's
    floating-point warnings silenced eagerly).  Returns the compiled fn,
    for a look at its HLO."""
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    compiled = tpucc.compile(fn, cache=False)
    with np.errstate(all="ignore"):
        expected = fn(*eager_args)
    assert_same(expected, compiled(*comp_args))
    assert_same(eager_args, comp_args)
    return compiled


def same_each(fn, *arg_tuples, compare=None, compile_kwargs=None):
    """`same` for each tuple of arguments, through ONE compiled fn: inputs
    that differ in values only share one executable (the suite's time is
    mostly XLA compiles).  `compare(expected, actual)`: assert_same unless
    a file needs a stricter one; `compile_kwargs`: more options of
    tpucc.compile (runtime_args=...).  Returns the compiled fn."""
    compare = compare or assert_same
    compiled = tpucc.compile(fn, cache=False, **(compile_kwargs or {}))
    for args in arg_tuples:
        eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
        with np.errstate(all="ignore"):
            expected = fn(*eager_args)
        compare(expected, compiled(*comp_args))
        compare(tuple(eager_args), tuple(comp_args))
    return compiled


def sample(shape, dtype, seed=0):
    """Small integers (complex ones for a complex dtype) in [-3, 3], as
    `dtype`: exact in every dtype, with ties and zeros."""
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, shape)
    if np.dtype(dtype).kind == "c":
        return (x + 1j * rng.integers(-3, 4, shape)).astype(dtype)
    return x.astype(dtype)


def numeric_grad(f, x, eps=1e-6):
    """Central differences of the scalar f at the float64 array x."""
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        old = x[i]
        x[i] = old + eps
        hi = float(f(x))
        x[i] = old - eps
        lo = float(f(x))
        x[i] = old
        g[i] = (hi - lo) / (2 * eps)
    return g


def hlo(compiled, *args, **kwargs) -> str:
    """HLO text (before optimization) of the module for these arguments."""
    return compiled.lower(*args, **kwargs).as_text()


def count_hlo(text: str, kind: str) -> int:
    """Number of `while` or `conditional` instructions in HLO text."""
    return len(re.findall(rf"\b{kind}\(", text))


def raises_at(fn, args, error=tpucc.TpuccError, match=None, line_of=None, **compile_kwargs):
    """Asserts compiling+calling fn raises `error` whose location is the line of
    `fn`'s source that contains `line_of`, and whose message matches `match`."""
    with pytest.raises(error) as info:
        tpucc.compile(fn, **compile_kwargs)(*args)
    err = info.value
    if match is not None:
        assert re.search(match, str(err)), str(err)
    if line_of is not None:
        import inspect
        lines, start = inspect.getsourcelines(fn)
        wanted = [start + i for i, l in enumerate(lines) if line_of in l]
        assert err.loc is not None, f"no location in {err}"
        assert err.loc.line in wanted, f"error at line {err.loc.line}, expected {wanted}: {err}"
        assert err.loc.file.endswith(".py")
    return err


def build_model_source(tmp_path_factory, name: str, source: str):
    """Writes `source` as the model file `name`.py in a new folder and
    builds its entries there (tpucc build); returns (folder, model path)."""
    from tpucc import aot
    out = tmp_path_factory.mktemp(name)
    model = out / f"{name}.py"
    model.write_text(source)
    aot.build_file(str(model), str(out))
    return out, model


@pytest.fixture
def builds(monkeypatch):
    """How many times tpucc traced and compiled (driver.build_entry)."""
    from tpucc import driver
    count = [0]
    real = driver.build_entry

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(driver, "build_entry", counting)
    return count


def same_with_objects(fn, *args):
    """Eager and compiled (cache=False) on deep copies of `args`: equal
    results, Python types included at every depth, and equal argument state
    after the call, the attributes of argument objects (their order too)
    and dataclass fields included.  Returns the compiled result."""
    eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = fn(*eager_args)
    actual = tpucc.compile(fn, cache=False)(*comp_args)
    same_deep(expected, actual)
    same_deep(eager_args, comp_args)
    return actual


def same_deep(e, a):
    """assert_same through tuples, lists, dicts, dataclasses and objects'
    attributes, with each level's type."""
    assert type(e) is type(a), (type(e), type(a))
    if isinstance(e, (tuple, list)):
        assert len(e) == len(a)
        for x, y in zip(e, a):
            same_deep(x, y)
    elif isinstance(e, dict):
        assert list(e) == list(a)
        for k in e:
            same_deep(e[k], a[k])
    elif dataclasses.is_dataclass(e) and not isinstance(e, type):
        same_deep(tuple(getattr(e, f.name) for f in dataclasses.fields(e)),
                  tuple(getattr(a, f.name) for f in dataclasses.fields(a)))
    elif hasattr(e, "__dict__") and not isinstance(e, (np.ndarray, type)):
        same_deep(vars(e), vars(a))
    else:
        assert_same(e, a)
