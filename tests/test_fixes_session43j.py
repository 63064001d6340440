"""Session 43j's fixes, each checked against eager NumPy: item writes into
a bytearray argument reach the caller's bytearray; hex()/bin()/oct() of a
runtime int print as f"{v:#x}" does; a structured dtype is refused naming
its fields; a generator fully consumed by list()/sum() runs its changes
after the last yield; no RecompileWarning for an outside counter restored
by every call; sorted(key=cmp_to_key) of runtime numbers gets sorted()'s
own refusal; np.vectorize refuses an output dtype a runtime branch
chooses."""
import functools
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tpucc
from conftest import child_env, raises_at, same


# --- I bug_02: ba[i] = v on a bytearray argument --------------------------------------------

def _static_write(ba):
    ba[0] = 65
    return len(ba)


def _runtime_writes(ba, a):
    for i in range(len(ba)):
        ba[i] = int(a[i]) + 1
    return len(ba)


def _negative_and_runtime_index(ba, a):
    ba[-1] = a[0]
    ba[int(a[1])] = 66
    return ba[0] + ba[-1]


def _xor_in_place(ba):
    for i in range(len(ba)):
        ba[i] ^= 0x20
    return ba[1]


def _slice_of_same_length(ba, a):
    ba[0:2] = b"QR"
    ba[1:3] = [int(a[0]), 70]


def _runtime_loop(ba, a):
    i = 0
    while i < int(a[2]):
        ba[i] = ba[i] + 1
        i += 1
    return ba[0]


def _numpy_uint8_values(ba, a):
    u = a.astype(np.uint8)
    ba[0] = u[1]
    ba[2] = bool(a[0] > 0)
    return None


@pytest.mark.parametrize("fn", [_runtime_writes, _negative_and_runtime_index,
                                _slice_of_same_length, _runtime_loop, _numpy_uint8_values])
@pytest.mark.parametrize("contents", [b"xyz", b"\x00\x7f\x10"])
def test_bytearray_argument_item_writes(fn, contents):
    same(fn, bytearray(contents), np.array([3, 1, 2]))


@pytest.mark.parametrize("contents", [b"xyz", b"ABCDEF"])
def test_bytearray_writes_reach_the_caller_at_each_call(contents):
    c = tpucc.compile(_xor_in_place, cache=False)
    for _ in range(2):
        ba, expected = bytearray(contents), bytearray(contents)
        assert c(ba) == _xor_in_place(expected)
        assert ba == expected
    ba = bytearray(b"xyz")
    assert tpucc.compile(_static_write, cache=False)(ba) == 3 and ba == b"Ayz"


def _byte_too_large(ba):
    ba[0] = 300


def _float_byte(ba):
    ba[1] = 1.5


def _index_past_end(ba):
    ba[7] = 1


def _runtime_byte_too_large(ba, a):
    ba[0] = int(a[0]) * 100


def _resizing_slice(ba):
    ba[0:2] = b"x"


def _numpy_bool_byte(ba, a):
    ba[0] = a[0] > 0


def _int_to_slice(ba):
    ba[0:2] = 5


def _extended_slice_of_other_length(ba):
    ba[0:3:2] = b"abc"


def _array_to_slice(ba, a):
    ba[0:2] = a.astype(np.uint8)[:2]


def _float_index(ba, a):
    ba[a[0] * 0.5] = 1


def test_bytearray_item_write_errors():
    raises_at(_byte_too_large, (bytearray(b"xyz"),), tpucc.errors.UserCodeError,
              match="ValueError: byte must be in range", line_of="ba[0] = 300", cache=False)
    raises_at(_float_byte, (bytearray(b"xyz"),), tpucc.errors.UserCodeError,
              match="TypeError: 'float' object", line_of="ba[1] = 1.5", cache=False)
    raises_at(_index_past_end, (bytearray(b"xyz"),), tpucc.errors.UserCodeError,
              match="IndexError: bytearray index out of range", line_of="ba[7]", cache=False)
    raises_at(_numpy_bool_byte, (bytearray(b"xyz"), np.array([1])), tpucc.errors.UserCodeError,
              match="TypeError: 'numpy.bool' object", line_of="ba[0] = a[0] > 0", cache=False)
    raises_at(_int_to_slice, (bytearray(b"xyz"),), tpucc.errors.UserCodeError,
              match="TypeError: can assign only bytes", line_of="ba[0:2] = 5", cache=False)
    raises_at(_array_to_slice, (bytearray(b"xyz"), np.array([1, 2])), tpucc.errors.UserCodeError,
              match="TypeError: can assign only bytes", line_of="ba[0:2] = a", cache=False)
    raises_at(_extended_slice_of_other_length, (bytearray(b"xyz"),), tpucc.errors.UserCodeError,
              match="ValueError: attempt to assign bytes of size 3", line_of="ba[0:3:2]",
              cache=False)
    raises_at(_float_index, (bytearray(b"xyz"), np.array([1])), tpucc.errors.UserCodeError,
              match="TypeError: bytearray indices must be integers", line_of="ba[a[0] * 0.5]",
              cache=False)
    raises_at(_resizing_slice, (bytearray(b"xyz"),), tpucc.errors.UnsupportedError,
              match="would resize it", line_of='ba[0:2] = b"x"', cache=False)
    c = tpucc.compile(_runtime_byte_too_large, cache=False)
    ba = bytearray(b"xyz")
    c(ba, np.array([2]))
    assert ba == b"\xc8yz"
    with pytest.raises(tpucc.errors.RuntimeRaiseError, match="byte must be in range"):
        c(bytearray(b"xyz"), np.array([3]))


# --- I bug_05: hex() / bin() / oct() of a runtime int ----------------------------------------

def _printed_bases(a):
    v = int(a[0])
    print(hex(v), bin(v), oct(v))
    print(hex(a[1]), bin(-v), oct(a[1]))
    print(f"{v:#x}", hex(bool(a[0] > 3)))
    return v


@pytest.mark.parametrize("a", [np.array([171, -5]), np.array([0, 2 ** 40]),
                               np.array([7, 1], np.uint8), np.array([-128, 127], np.int8)])
def test_hex_bin_oct_of_runtime_ints_print(a, capfd):
    expected = _printed_bases(a)
    eager_out = capfd.readouterr().out
    assert tpucc.compile(_printed_bases, cache=False)(a) == expected
    assert capfd.readouterr().out == eager_out


def _hex_of_float(a):
    print(hex(a[0]))


def _hex_of_array(a):
    print(oct(a))


def _hex_kept(a):
    return hex(int(a[0]))


def test_hex_refusals():
    raises_at(_hex_of_float, (np.array([1.5]),), tpucc.errors.UserCodeError,
              match="TypeError: 'numpy.float64' object cannot be interpreted",
              line_of="hex(a[0])", cache=False)
    raises_at(_hex_of_array, (np.array([1, 2]),), tpucc.errors.UserCodeError,
              match="TypeError", line_of="oct(a)", cache=False)
    raises_at(_hex_kept, (np.array([1]),), tpucc.errors.StaticValueError,
              match="formatting a runtime value into a string", line_of="return hex",
              cache=False)


def test_hex_of_static_int_still_folds():
    def f(a):
        return a + len(hex(255)) + len(bin(5)) + len(oct(8))
    same(f, np.arange(3))


# --- I bug_06: structured dtypes -----------------------------------------------------------

_RECORD = np.dtype([("kind", "u1"), ("len", "<u2")])


def _records_from_buffer(data):
    r = np.frombuffer(data, _RECORD)
    return r["len"].sum()


def _records_argument(rec):
    return rec["len"].sum()


def test_structured_dtype_refusals_name_fields():
    data = b"\x01\x05\x00\x02\x07\x00"
    err = raises_at(_records_from_buffer, (data,), tpucc.errors.DTypeError,
                    match=r"structured \(record\) dtype", line_of="np.frombuffer(data, _RECORD)",
                    cache=False)
    assert "rec['len']" in err.hint and "np.frombuffer(data, np.uint8).reshape(-1, 3)" in err.hint
    assert "void objects" not in str(err)
    with pytest.raises(tpucc.errors.DTypeError, match=r"argument rec has the structured") as info:
        tpucc.compile(_records_argument, cache=False)(np.frombuffer(data, _RECORD).copy())
    assert "rec.view(np.uint8)" in info.value.hint


def test_structured_constant_refused():
    table = np.zeros(3, [("x", "f8"), ("y", "i4")])

    def f(a):
        return a + table["x"]
    err = raises_at(f, (np.arange(3.0),), tpucc.errors.DTypeError,
                    match="structured", cache=False)
    assert "['x']" in err.hint and "['y']" in err.hint


# --- K bug_05: a generator with effects after its last yield, fully consumed ------------------

def _list_of_generator(x):
    log = []

    def g():
        yield x
        yield x * 2
        log.append("done")
    return list(g()), log


def _sum_of_generator(x):
    n = 0

    def g():
        nonlocal n
        for v in x:
            yield v
        n = 5
    t = sum(g())
    return t, n


def _consumers(x):
    cnt = [0]

    def g():
        yield x[0]
        yield x[1]
        cnt[0] += 1
    a, b = g()
    return a + b, cnt[0], tuple(g()), sorted(g()), max(g()), list(enumerate(g())), cnt


@pytest.mark.parametrize("fn", [_list_of_generator, _sum_of_generator, _consumers])
@pytest.mark.parametrize("x", [np.arange(2.0), np.array([3, 1], np.int32)])
def test_generator_effect_after_last_yield_when_consumed(fn, x):
    same(fn, x)


def _partly_consumed(x):
    cnt = [0]

    def g():
        yield x[0]
        yield x[1]
        cnt[0] += 1
    it = g()
    return next(it), next(it), cnt


def test_generator_not_consumed_to_its_end_still_refused():
    raises_at(_partly_consumed, (np.arange(2.0),), tpucc.errors.SideEffectError,
              match="consumed only 2 item", cache=False)


# --- K bug_08: no RecompileWarning for a counter every call restores -------------------------

_DEPTH = [0]


def _traced_depth(x):
    print("  " * _DEPTH[0] + "enter")
    _DEPTH[0] += 1
    y = x * 2
    _DEPTH[0] -= 1
    return y


class _Tracer:
    depth = 0


_TRACER = _Tracer()


def _traced_attribute(x):
    s = "ab" * _TRACER.depth
    _TRACER.depth += 2
    y = x + len(s)
    _TRACER.depth -= 2
    return y


@pytest.mark.parametrize("fn", [_traced_depth, _traced_attribute])
def test_restored_counter_gives_no_recompile_warning(fn, capfd):
    c = tpucc.compile(fn, cache=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.RecompileWarning)
        for _ in range(3):
            np.testing.assert_array_equal(c(np.arange(3.0)), fn(np.arange(3.0)))
    assert _DEPTH == [0] and _TRACER.depth == 0


def test_counter_left_changed_still_warns():
    depth = [0]

    def f(x):
        print("  " * depth[0] + "enter")
        depth[0] += 1
        return x * 2
    c = tpucc.compile(f, cache=False)
    with pytest.warns(tpucc.RecompileWarning, match=r"item \[0\]"):
        c(np.arange(3.0))
    assert depth == [1]


def test_restored_counter_no_warning_in_fresh_process():
    code = textwrap.dedent("""
        import warnings, numpy as np, tpucc
        warnings.simplefilter("error")
        depth = [0]
        def f(x):
            print("  " * depth[0] + "enter")
            depth[0] += 1
            y = x * 2
            depth[0] -= 1
            return y
        c = tpucc.compile(f, cache=False)
        for i in range(3):
            c(np.arange(3.0))
        print("depth", depth)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=child_env(TPUCC_CACHE="0"), timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["enter"] * 3 + ["depth [0]"]


# --- K bug_09: sorted(key=functools.cmp_to_key(...)) of runtime numbers ---------------------

def _sorted_cmp(x):
    vals = [float(v) for v in x]
    return sorted(vals, key=functools.cmp_to_key(lambda p, q: (p > q) - (p < q)))


def _list_sort_cmp(x):
    vals = list(x)
    vals.sort(key=functools.cmp_to_key(lambda p, q: q - p))
    return vals


def test_sorted_cmp_to_key_refusal_is_sorted_own():
    for fn, line in ((_sorted_cmp, "return sorted("), (_list_sort_cmp, "vals.sort(")):
        err = raises_at(fn, (np.array([2.0, 1.0, 3.0]),), tpucc.errors.StaticValueError,
                        match=r"sorted\(\) of runtime values", line_of=line, cache=False)
        assert "np.argsort" in err.hint and "KeyWrapper" not in str(err)


def test_sorted_cmp_to_key_of_static_items_still_sorts():
    def f(x):
        order = sorted([3, 1, 2], key=functools.cmp_to_key(lambda p, q: q - p))
        return x[order]
    same(f, np.arange(4.0))


# --- K bug_07: np.vectorize whose first result's dtype a runtime branch chooses --------------

def _clamp01(x):
    @np.vectorize
    def clamp(v):
        if v < 0:
            return 0.0
        if v > 1:
            return 1.0
        return v
    return clamp(x)


def _step(x):
    return np.vectorize(lambda v: 1 if v > 0 else 0.5)(x)


def test_vectorize_dtype_chosen_by_runtime_branch_refused():
    raises_at(_clamp01, (np.array([-1, 0, 1, 2]),), tpucc.errors.MergeError,
              match="np.vectorize gives its output the dtype", line_of="return clamp(x)",
              cache=False)
    err = raises_at(_step, (np.array([1.0, -1.0]),), tpucc.errors.MergeError,
                    match="runtime branch", line_of="np.vectorize(lambda", cache=False)
    assert "otypes=" in err.hint


def _step_otypes(x):
    return np.vectorize(lambda v: 1 if v > 0 else 0.5, otypes=[np.float64])(x)


def _absolute(x):
    return np.vectorize(lambda v: v if v > 0 else -v)(x)


def _zero_or_itself(x):
    return np.vectorize(lambda v: 0 if v < 0 else v)(x)


def _nested_floats(x):
    def f(v):
        if v > 0:
            if v > 5:
                return 2.0
            return 1.0
        return 0.0
    return np.vectorize(f)(x)


def test_vectorize_python_int_or_int64_is_int64():
    same(_zero_or_itself, np.array([4, -4]))     # (int32 or floats: refused, E300)
    raises_at(_zero_or_itself, (np.array([4, -4], np.int32),), tpucc.errors.MergeError,
              match="runtime branch", cache=False)


@pytest.mark.parametrize("fn", [_step_otypes, _absolute, _nested_floats])
@pytest.mark.parametrize("x", [np.array([1, -1, 7]), np.array([-2.5, 3.0]),
                               np.array([[4, -4]], np.int32)])
def test_vectorize_one_dtype_on_every_path(fn, x):
    same(fn, x)
