"""Fixes from sweep 46D: returned arrays keep NumPy's writeable flag (a
diagonal of an argument is a read-only view of it, a broadcast or sliding
window made in the call read-only too); an assert's or raise's message may
compute runtime values with comparisons and NumPy functions
(`f"{np.sum(seq >= 4)} invalid"`); a `while` whose iterations need static
values (`np.arange(k)` of a doubling k) and that an early `return` may leave
at run time is unrolled with guards, as a static `for` is.

PYTEST_DONT_REWRITE: the compiled functions hold `assert`s, which pytest
would otherwise rewrite."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import tpucc
from conftest import child_env, raises_at


def _compiled(f):
    return tpucc.compile(f, cache=False)


def _same(expected, got):
    """Values, dtypes and Python types alike, item by item of a tuple."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for e, g in zip(expected, got):
            _same(e, g)
        return
    assert type(got) is type(expected), (type(got), type(expected))
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


def _flags(out, arg):
    """(writeable, shares memory with `arg`) of each returned array."""
    outs = out if isinstance(out, tuple) else (out,)
    return [(o.flags.writeable, np.shares_memory(o, arg)) if isinstance(o, np.ndarray)
            else type(o) for o in outs]


# --- bug_05: returned arrays have NumPy's writeable flag ---------------------------------

RETURNED_VIEWS = {
    "diagonal method": lambda F: F.diagonal(),
    "offset diagonal": lambda F: np.diagonal(F, 1),
    "np.diag": lambda F: np.diag(F, -1),
    "after an update": lambda F: (F.__iadd__(1), F.diagonal())[1],
    "slice of a diagonal": lambda F: F.diagonal()[1:],
    "asarray of a diagonal": lambda F: np.asarray(F.diagonal()),
    "diagonal of a product": lambda F: np.outer(F[0], F[0]).diagonal(),
    "diag of a reshape": lambda F: np.diag(F.ravel()[:4].reshape(2, 2)),
    "broadcast made here": lambda F: np.broadcast_to(F[0] * 2, (2, 3)),
    "broadcast of the argument": lambda F: np.broadcast_to(F[0], (2, 3)),
    "windows made here": lambda F: sliding_window_view(F[0] + 1, 2),
    "windows of the argument": lambda F: sliding_window_view(F[0], 2),
    "with writeable results": lambda F: (F.diagonal(), F, F.T, F.diagonal() + 1,
                                         F.diagonal().copy(), np.array(F.diagonal())),
    "einsum's writeable diagonal": lambda F: np.einsum("ii->i", F),
}


@pytest.mark.parametrize("name", list(RETURNED_VIEWS))
@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_returned_arrays_have_numpys_writeable_flag(name, dtype):
    f = RETURNED_VIEWS[name]
    eager_arg = np.arange(9, dtype=dtype).reshape(3, 3)
    compiled_arg = eager_arg.copy()
    expected, got = f(eager_arg), _compiled(f)(compiled_arg)
    _same(expected, got)
    assert _flags(got, compiled_arg) == _flags(expected, eager_arg)
    np.testing.assert_array_equal(compiled_arg, eager_arg)


def test_writing_into_a_returned_diagonal_raises_and_leaves_the_argument():
    F = np.arange(9).reshape(3, 3)
    d = _compiled(lambda F: F.diagonal())(F)
    with pytest.raises(ValueError, match="read-only"):
        d[0] = 99
    assert F[0, 0] == 0
    F[1, 1] = 7                 # still a view: the caller's writes show through
    assert d[1] == 7


def test_a_diagonal_returned_twice_and_a_view_of_another_result():
    def f(a):
        m = np.outer(a, a)
        d = m.diagonal()
        return m, d, d
    a = np.arange(1, 4, dtype=np.int32)
    m, d, d2 = _compiled(f)(a)
    assert d is d2 and not d.flags.writeable and m.flags.writeable
    assert np.shares_memory(m, d)
    _same(f(a), (m, d, d2))


def test_a_read_only_result_replayed_from_the_persistent_cache(tmp_path):
    """The flag is part of the trace record: a second process that loads the
    program from the disk cache returns a read-only broadcast too."""
    script = textwrap.dedent("""
        import numpy as np, tpucc
        f = tpucc.compile(lambda a: np.broadcast_to(a * 2, (2, 3)))
        out = f(np.arange(3.0))
        print(out.flags.writeable, out.tolist())
    """)
    env = child_env(TPUCC_CACHE_DIR=str(tmp_path), TPUCC_CACHE="1", TPUCC_CACHE_MIN_COMPILE_S="0")
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert run.stdout.split("\n")[-2] == "False [[0.0, 2.0, 4.0], [0.0, 2.0, 4.0]]"


def test_a_read_only_result_of_an_artifact(tmp_path):
    from tpucc import aot
    model = tmp_path / "diag46.py"
    model.write_text(textwrap.dedent("""
        import numpy as np
        from tpucc.aot import entry

        @entry("f32[3,3]")
        def diag_and_sum(m):
            return np.diagonal(m * 2), m.sum()
    """))
    aot.build_file(str(model), str(tmp_path))
    m = np.arange(9, dtype=np.float32).reshape(3, 3)
    d, s = aot.load(os.path.join(str(tmp_path), "diag_and_sum.tpucc"))(m)
    np.testing.assert_array_equal(d, np.diagonal(m * 2))
    assert d.dtype == np.float32 and not d.flags.writeable
    assert s == m.sum()


# --- bug_02: messages compute runtime values with comparisons and NumPy functions ----------

def check_bases(seq):
    assert seq.max() < 4, f"{np.sum(seq >= 4)} invalid bases"
    return seq.sum()


def first_bad_base(seq):
    if seq.max() >= 4:
        raise ValueError(f"bad base at {np.argmax(seq >= 4)} of {len(seq)}")
    return seq.sum()


def many_spellings(seq):
    assert seq.max() < 4, (f"{(seq >= 4).argmax()} / {np.count_nonzero(seq >= 4)} / "
                           f"{np.sum(seq, axis=0, dtype=np.int64)} / {(seq == 5).any()} / "
                           f"{np.where(seq > 3, seq, 0).max()!r}")
    return seq.mean()


def float_message(x):
    assert np.all(np.isfinite(x)), (f"{np.isnan(x).sum()} NaNs, mean {np.nanmean(x):.3f}, "
                                    f"{np.round(np.abs(x[0]), 1)}")
    return x.sum()


@pytest.mark.parametrize("f, good, bad", [
    (check_bases, np.array([0, 1, 2, 3], np.uint8), np.array([0, 1, 5, 3, 1], np.uint8)),
    (first_bad_base, np.array([0, 3], np.int16), np.array([0, 1, 5, 3, 7], np.int16)),
    (many_spellings, np.array([0, 1, 2], np.int32), np.array([0, 5, 3, 9], np.int32)),
    (float_message, np.array([1.5, 2.0], np.float32),
     np.array([-1.25, np.nan, np.inf], np.float32)),
])
def test_a_message_computes_runtime_values_from_the_data(f, good, bad):
    compiled = _compiled(f)
    _same(f(good.copy()), compiled(good.copy()))
    with pytest.raises(Exception) as eager:
        f(bad.copy())
    with pytest.raises(type(eager.value)) as got:
        compiled(bad.copy())
    assert str(eager.value) in str(got.value)


def test_a_message_that_updates_in_place_is_still_refused():
    """`a.sort()` in a message would sort `a` on every path: the message is
    not computed on every path, and formatting under the runtime `if` is refused."""
    def f(x):
        assert x.min() > 0, f"{x.sort()} {x}"
        return x.sum()
    raises_at(f, (np.array([3, 1, 2]),), tpucc.errors.StaticValueError,
              match="changes nothing", line_of="assert", cache=False)


# --- bug_06: a doubling `while` left early by a runtime `return` -------------------------

def band_score(a, k):
    return (a[:k] * np.arange(k)).sum()     # shape depends on k


def doubling_while(a):
    k = 1
    while k <= 8:
        if band_score(a, k) > 10:
            return k
        k *= 2
    return -1


def stepping_while_array(a):
    k = 1
    while k < 9:
        w = a[:k] * np.arange(k, dtype=np.float32)
        if w.sum() > 10:
            return w[:1].astype(np.float64)
        k += 3
    return np.zeros(1)


def while_true(a):
    k = 1
    while True:
        if band_score(a, k) > 10:
            return k
        k *= 2
        if k > 8:
            return 0


def break_into_value(a):
    k, found = 1, -1
    while k <= 8:
        if band_score(a, k) > 10:
            found = k
            break
        k *= 2
    return found


def break_with_else(a):
    k, found = 1, 0
    while k <= 8:
        s = band_score(a, k)
        if s > 10:
            found = s
            break
        k *= 2
    else:
        found = -1
    return found * 2


def rows(A):
    out = np.zeros(A.shape[0], np.int64)
    for r in range(A.shape[0]):
        out[r] = doubling_while(A[r])
    return out


@pytest.mark.parametrize("f, args", [
    (doubling_while, [np.arange(10), np.zeros(10, np.int64), np.arange(10, dtype=np.uint8)]),
    (stepping_while_array, [np.arange(10.0), np.zeros(10)]),
    (while_true, [np.arange(10), np.zeros(10)]),
    (break_into_value, [np.arange(10, dtype=np.int32), np.zeros(10, np.int32)]),
    (break_with_else, [np.arange(10), np.zeros(10, np.int64)]),
    (rows, [np.arange(30).reshape(3, 10) % 4]),
])
def test_a_while_with_static_values_left_early_at_run_time_unrolls(f, args):
    compiled = _compiled(f)
    for a in args:
        _same(f(a), compiled(a))


def test_a_while_too_long_to_unroll_with_guards_says_why_its_counter_is_runtime():
    def long_while(a):
        k = 1
        while k <= 40:
            if band_score(a, k) > 10 ** 9:
                return k
            k += 1
        return -1
    raises_at(long_while, (np.arange(50),), tpucc.errors.ShapeError,
              match=r"(?s)np.arange with a runtime bound.*the `while` at line \d+ may be left on "
                    r"a runtime condition.*at most 32 iterations", cache=False)


def test_a_break_to_code_that_reads_the_counter_says_why_it_is_runtime():
    def break_then_read(a):
        k = 1
        while k <= 8:
            if band_score(a, k) > 10:
                break
            k *= 2
        return k
    raises_at(break_then_read, (np.arange(10),), tpucc.errors.ShapeError,
              match="a `break` to code after the loop", cache=False)
