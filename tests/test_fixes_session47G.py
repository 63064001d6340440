"""Session 47G's fixes (sweep G: compression and encoding), each checked
against eager NumPy: the heapq refusal no longer recommends np.partition;
np.bitwise_and/or/xor .reduce / .accumulate / .at compile on runtime arrays;
np.r_ / np.c_ raise OverflowError for a Python int the result dtype cannot
hold; heapq.nsmallest / nlargest of runtime numbers compile as sorted()[:n];
a bytearray or array.array made inside the function compiles, and a runtime
value stored into one is refused saying so; sorted() with runtime sequence
keys hints np.lexsort."""
import array
import heapq

import numpy as np
import pytest

import tpucc
from tpucc.errors import StaticValueError, UnsupportedError, UserCodeError
from conftest import raises_at, same, same_with_objects


# --- bug_01: the heapq hint -----------------------------------------------------------------

def _huffman_first(freq):
    heap = [(freq[i], i) for i in range(len(freq))]
    heapq.heapify(heap)
    return heapq.heappop(heap)[1]


def _merged(a, b):
    return list(heapq.merge([a[0], a[1]], [b[0], b[1]]))


@pytest.mark.parametrize("fn, args, line", [
    (_huffman_first, (np.array([5, 9, 1]),), "heapify"),
    (_merged, (np.array([1.0, 4.0]), np.array([2.0, 3.0])), "merge")])
def test_heapq_refusal_hints_only_what_compiles(fn, args, line):
    err = raises_at(fn, args, StaticValueError, match=r"heapq\.", line_of=line, cache=False)
    assert "np.partition" not in str(err) and "np.sort" in err.hint


# --- bug_02: bitwise ufunc methods ----------------------------------------------------------

def _xor_checksum(d):
    return np.bitwise_xor.reduce(d)


def _or_and_reduce(d):
    return (np.bitwise_or.reduce(d, axis=-1), np.bitwise_and.reduce(d, axis=None),
            np.bitwise_xor.reduce(d, axis=0, keepdims=True))


def _reduce_options(d):
    return (np.bitwise_xor.reduce(d, initial=0x5A), np.bitwise_and.reduce(d, where=d > 3),
            np.bitwise_or.reduce(d, dtype=np.int64))


def _gray_decode(g):
    return np.bitwise_xor.accumulate(g), np.bitwise_or.accumulate(g[::-1])


def _accumulate_2d(m):
    return np.bitwise_and.accumulate(m, axis=1), np.bitwise_xor.accumulate(m)


def _set_bits(buf, pos):
    np.bitwise_or.at(buf, pos >> 3, (1 << (pos & 7)).astype(np.uint8))
    return buf


def _toggle_and_clear(buf, idx):
    np.bitwise_xor.at(buf, idx, 1)
    np.bitwise_and.at(buf, [0, 0], np.array([6, 3], buf.dtype))
    return buf


def _unique_static_or(buf):
    np.bitwise_or.at(buf, [0, 2], 8)
    return buf


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int32, np.uint64, np.bool_])
def test_bitwise_reduce(dtype):
    d = np.frombuffer(b"checksum me!", np.uint8).astype(dtype)
    same(_xor_checksum, d)
    same(_or_and_reduce, d.reshape(3, 4))
    same(_xor_checksum, d[:0])          # the identity
    same(_xor_checksum, d[0])           # a 0-d array: axis 0 is allowed


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int64])
def test_bitwise_reduce_initial_where_dtype(dtype):
    same(_reduce_options, np.arange(1, 9, dtype=dtype))


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.uint16, np.bool_])
def test_bitwise_accumulate(dtype):
    g = (np.arange(16) ^ (np.arange(16) >> 1)).astype(dtype)
    same(_gray_decode, g)
    same(_accumulate_2d, g.reshape(4, 4))


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.int8])
def test_bitwise_at(dtype):
    same(_set_bits, np.zeros(3, dtype), np.array([0, 7, 9, 23, 9]))
    same(_toggle_and_clear, np.arange(5, dtype=dtype), np.array([1, 1, 4, -1]))
    same(_unique_static_or, np.arange(3, dtype=dtype))


def test_bitwise_at_on_bools():
    def flags(b, idx):
        np.bitwise_or.at(b, idx, True)
        np.bitwise_xor.at(b, [0, 0, 1], np.array([1, 2, 0]))     # an int64 loop, cast back
        return b
    same(flags, np.zeros(4, bool), np.array([2, 2, 3]))


def _float_xor(d):
    return np.bitwise_xor.reduce(d)


def _float_or_at(d):
    np.bitwise_or.at(d, [0], 1)
    return d


def _uint64_or_python_int(d):
    np.bitwise_or.at(d, [0], 1)     # NumPy: the int as int64; uint64 | int64 has no loop
    return d


def _uint64_or_uint64(d):
    np.bitwise_or.at(d, [0, 0], np.uint64(2 ** 63 + 1))
    return d


def test_bitwise_at_on_uint64():
    with pytest.raises(TypeError):
        _uint64_or_python_int(np.zeros(2, np.uint64))
    raises_at(_uint64_or_python_int, (np.zeros(2, np.uint64),), UserCodeError,
              match="TypeError: ufunc 'bitwise_or'", line_of="at(d", cache=False)
    same(_uint64_or_uint64, np.arange(2, dtype=np.uint64))


def test_bitwise_methods_refuse_floats_as_numpy_does():
    raises_at(_float_xor, (np.ones(3),), tpucc.TpuccError, match="bitwise_xor",
              line_of="reduce", cache=False)
    raises_at(_float_or_at, (np.ones(3),), UserCodeError, match="TypeError: ufunc 'bitwise_or'",
              line_of="at(d", cache=False)
    raises_at(_float_or_at, (np.ones(3, np.float32),), UserCodeError, match="not supported for",
              line_of="at(d", cache=False)


# --- bug_03: np.r_ with a Python int out of the dtype's range --------------------------------

def _append_sentinel(x):
    return np.r_[x, -1]


def _prepend(x):
    return np.r_[-1, x]


def _append_200(x):
    return np.r_[x, 200, 3]


def _column_300(x):
    return np.c_[x, 300]


def _runtime_count(x):
    n = int(x.astype(np.int64).sum())
    return np.r_[x, n]


def _numpy_scalar(x):
    return np.r_[x, np.int64(-1)], np.r_[x, True], np.r_[x, 1.5]


@pytest.mark.parametrize("fn, dtype, line", [
    (_append_sentinel, np.uint8, "np.r_"), (_prepend, np.uint16, "np.r_"),
    (_append_200, np.int8, "np.r_"), (_column_300, np.uint8, "np.c_"),
    (_column_300, np.int8, "np.c_")])
def test_r_refuses_a_python_int_out_of_range(fn, dtype, line):
    x = np.array([1, 2], dtype)
    with pytest.raises(OverflowError):
        fn(x)
    raises_at(fn, (x,), UserCodeError, match=f"OverflowError: Python integer -?[0-9]+ out of "
              f"bounds for {np.dtype(dtype)}", line_of=line, cache=False)


@pytest.mark.parametrize("fn, dtype", [
    (_append_sentinel, np.int8), (_prepend, np.int64), (_append_200, np.uint8),
    (_numpy_scalar, np.uint8), (_runtime_count, np.uint8)])
def test_r_in_range_matches_numpy(fn, dtype):
    same(fn, np.array([1, 2], dtype))


def test_r_with_a_runtime_python_int_checks_it_at_run_time():
    compiled = tpucc.compile(_runtime_count, cache=False)
    x = np.array([100, 202], np.uint8)
    with pytest.raises(OverflowError):
        _runtime_count(x)
    with pytest.raises(OverflowError, match="302 out of bounds for uint8"):
        compiled(x)


# --- bug_04: heapq.nsmallest / nlargest of runtime numbers -----------------------------------

def _two_smallest(w):
    return heapq.nsmallest(2, list(w))


def _three_largest(w):
    return heapq.nlargest(3, w.tolist())


def _of_the_array(w):
    return heapq.nsmallest(2, w), heapq.nlargest(1, w)


def _mixed_and_edges(w):
    items = [w[0], w[1], w[2], w[3]]
    return (heapq.nsmallest(0, items), heapq.nsmallest(-1, items), heapq.nlargest(9, items),
            heapq.nsmallest(2, (w[1], w[0])))


def _python_numbers_among_static(w):
    vals = w.tolist()
    vals.append(5)
    return heapq.nsmallest(2, vals), heapq.nlargest(2, vals)


@pytest.mark.parametrize("dtype", [np.int64, np.float64, np.int32, np.uint8, np.float32])
@pytest.mark.parametrize("fn", [_two_smallest, _three_largest, _of_the_array, _mixed_and_edges])
def test_nsmallest_nlargest_of_runtime_numbers(fn, dtype):
    same_with_objects(fn, np.array([5, 1, 4, 0, 4], dtype))


def test_nsmallest_with_python_numbers_and_ties():
    same_with_objects(_python_numbers_among_static, np.array([5, 1, 4, 1]))
    same_with_objects(_three_largest, np.array([0.0, -0.0, 2.0, -0.0]))


def _tuples_of_runtime_priorities(t):
    return heapq.nsmallest(2, [(t[0], 0), (t[1], 1), (t[2], 2)])


def test_nsmallest_of_runtime_tuples_is_still_refused_in_heapq_terms():
    err = raises_at(_tuples_of_runtime_priorities, (np.array([2.0, 1.0, 3.0]),),
                    StaticValueError, match=r"heapq\.nsmallest on items whose order",
                    line_of="nsmallest", cache=False)
    assert "np.partition" not in err.hint


# --- bug_05: a bytearray / array.array made inside the function ------------------------------

def _make_buf(n):
    out = bytearray(n)
    out[0] = 7
    return out


def _grown(x):
    out = bytearray()
    out.append(5)
    out.extend(b"ab")
    out += b"c"
    return x + len(out), out


def _copied(ba):
    b2 = bytearray(ba)
    b2[0] = 1
    return b2


def _typed(x):
    a = array.array("h", [0] * 4)
    a[1] = -9
    a.append(3)
    return a, x * a[1]


@pytest.mark.parametrize("fn, args", [
    (_make_buf, (3,)), (_grown, (np.arange(3),)), (_copied, (bytearray(b"xyz"),)),
    (_typed, (np.arange(2.0),))])
def test_a_buffer_made_inside_compiles(fn, args):
    same_with_objects(fn, *args)


def test_a_returned_buffer_is_a_new_object_at_each_call():
    compiled = tpucc.compile(_typed)
    first, _ = compiled(np.arange(2.0))
    first[0] = 42
    second, _ = compiled(np.arange(2.0))
    assert second == array.array("h", [0, -9, 0, 0, 3]) and second is not first


def _runtime_item(x):
    out = bytearray(3)
    for i in range(3):
        out[i] = int(x[i]) & 0xFF
    return out


def _runtime_append(x):
    out = bytearray()
    out.append(int(x[0]))
    return out


def _runtime_into_array(x):
    a = array.array("B", [0] * 4)
    a[1] = int(x[0])
    return a


def _runtime_slice(x):
    out = bytearray(2)
    out[0:2] = [int(x[0]), 3]
    return out


@pytest.mark.parametrize("fn, line, kind", [
    (_runtime_item, "out[i] =", "a bytearray"), (_runtime_append, "append", "a bytearray"),
    (_runtime_into_array, "a[1] =", "an array.array"), (_runtime_slice, "out[0:2]", "a bytearray")])
def test_a_runtime_value_into_a_buffer_made_inside_is_refused_saying_so(fn, line, kind):
    err = raises_at(fn, (np.array([7, 300, 5]),), UnsupportedError,
                    match=f"storing a runtime value in {kind} that the compiled function made",
                    line_of=line, cache=False)
    assert "np.zeros(n, " in err.hint and "outside" not in str(err)


# --- bug_06: sorted() by runtime sequence keys ------------------------------------------------

def _bwt_order(s):
    return sorted(range(s.size), key=lambda i: np.roll(s, -i).tolist())


def _by_tuples(s):
    return sorted(range(3), key=lambda i: (s[i], s[i + 1]))


def _bwt_order_hinted(s):
    keys = [np.roll(s, -i) for i in range(s.size)]
    return np.lexsort(np.array(keys).T[::-1])


@pytest.mark.parametrize("fn, kind", [(_bwt_order, "lists"), (_by_tuples, "tuples")])
def test_sorted_by_runtime_sequences_hints_lexsort(fn, kind):
    err = raises_at(fn, (np.frombuffer(b"banana", np.uint8).copy(),), StaticValueError,
                    match=f"some of these {kind} are told apart", line_of="sorted", cache=False)
    assert "np.lexsort(np.array(keys).T[::-1])" in err.hint
    assert "np.argsort(np.array(keys))" not in err.hint


@pytest.mark.parametrize("text", [b"banana", b"abracadabra", b"aaaa", b"mississippi"])
def test_the_hinted_lexsort_gives_sorteds_order(text):
    s = np.frombuffer(text, np.uint8).copy()
    got = tpucc.compile(_bwt_order_hinted, cache=False)(s)
    assert got.tolist() == _bwt_order(s)


def _mixed_types(w):
    return heapq.nsmallest(2, ["a", w[0], w[1]])


def test_nsmallest_of_mixed_items_is_refused_as_python_would_fail():
    with pytest.raises(TypeError):
        _mixed_types(np.array([1, 2]))
    with pytest.raises(tpucc.TpuccError):
        tpucc.compile(_mixed_types, cache=False)(np.array([1, 2]))
