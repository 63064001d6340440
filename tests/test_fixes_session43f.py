"""Fixes of session 43f: `with` blocks left by a runtime break/return whose
__exit__ writes an array, very deep runtime branch chains, dict lookups by
tuple keys holding runtime values, raises that end loops at run time,
membership in bytes / sets of numbers, and len() of a runtime range."""
import contextlib
import copy
import importlib.util

import numpy as np
import pytest

import tpucc
import tpucc.errors as E
from conftest import assert_same, raises_at


def same_as_numpy(fn, *args):
    """fn compiled and eager on copies of args: results and the arguments
    after the call (in-place updates) are the same, dtypes included."""
    eager_args, compiled_args = copy.deepcopy(args), copy.deepcopy(args)
    expected = fn(*eager_args)
    actual = tpucc.compile(fn, cache=False)(*compiled_args)
    assert_same(expected, actual)
    for e, c in zip(eager_args, compiled_args):
        assert_same(e, c)
        if isinstance(e, np.ndarray):
            assert e.dtype == c.dtype
    return actual


def same_as_numpy_each(fn, *arg_tuples):
    """`same_as_numpy` for each tuple of arguments, through ONE compiled fn
    (inputs that differ in values only share its executable)."""
    compiled = tpucc.compile(fn, cache=False)
    for args in arg_tuples:
        eager_args, compiled_args = copy.deepcopy(args), copy.deepcopy(args)
        assert_same(fn(*eager_args), compiled(*compiled_args))
        for e, c in zip(eager_args, compiled_args):
            assert_same(e, c)
            if isinstance(e, np.ndarray):
                assert e.dtype == c.dtype


# --- bug_03: __exit__'s array write on a runtime break/return path ------------------------

class Counting:
    def __init__(self, log, k=0):
        self.log, self.k = log, k

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log[self.k] += 1
        return False


@contextlib.contextmanager
def counting(log):
    try:
        yield
    finally:
        log[0] += 1


def while_true_break(a, log):
    i = 0
    while True:
        with Counting(log):
            if a[i] > 5:
                break
        i += 1
    return i


def while_cond_break(a, log):
    i = 0
    while i < a.size:
        with Counting(log, 1):
            if a[i] > 5:
                break
        i += 1
    return i


def for_break(a, log):
    for x in a:
        with Counting(log):
            if x > 5:
                break
    return log


def for_return(a, log):
    for x in a:
        with Counting(log, 1):
            if x > 5:
                return 1
    return 0


def while_return(a, log):
    i = 0
    while i < a.size:
        with Counting(log):
            if a[i] > 5:
                return i
        i += 1
    return -1


def generator_manager_break(a, log):
    i = 0
    while i < a.size:
        with counting(log):
            if a[i] > 5:
                break
        i += 1
    return i


def local_log_break(a):
    log = np.zeros(2, np.int32)
    for x in a:
        with Counting(log):
            if x > 5:
                break
    return log


def object_made_in_loop_break(a, log):
    i = 0
    while True:
        c = Counting(log)
        if a[i] > 5:
            c.log[0] += 10
            break
        i += 1
    return i


def nested_with_break(a, log):
    for x in a:
        with Counting(log, 0):
            with Counting(log, 1):
                if x > 5:
                    break
    return log.sum()


@pytest.mark.parametrize("fn", [while_true_break, while_cond_break, for_break, for_return,
                                while_return, generator_manager_break,
                                object_made_in_loop_break, nested_with_break])
@pytest.mark.parametrize("a", [np.array([1, 9, 3]), np.array([7, 0, 1]), np.array([1, 2, 9])])
def test_exit_write_on_runtime_break(fn, a):
    same_as_numpy(fn, a, np.zeros(2, np.int64))


def test_exit_write_float_log_no_break():
    # the loop runs to its end: every iteration's __exit__ counts
    same_as_numpy(while_cond_break, np.array([1.0, 2.0, 3.0]), np.zeros(2, np.float32))
    same_as_numpy(for_return, np.array([1, 2, 3], np.int8), np.zeros(2, np.float64))


def test_exit_write_into_local_array():
    same_as_numpy_each(local_log_break, (np.array([1, 9, 3]),), (np.array([0, 1, 2]),))


# --- bug_04: very deep runtime branch chains -----------------------------------------------

def _generated(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def _elif_chain(n):
    src = "def vm(code, regs):\n    for op in code:\n"
    for k in range(n):
        src += f"        {'if' if k == 0 else 'elif'} op == {k}:\n            regs[0] += {k}\n"
    return src + "    return regs\n"


@pytest.mark.parametrize("n", [20, 130])
def test_long_elif_chain_compiles(tmp_path, n):
    vm = _generated(tmp_path, "vm", _elif_chain(n))
    same_as_numpy(vm, np.array([1, n - 1, n + 5, 0, 7]), np.zeros(1, np.int64))


def _chain_function(tmp_path, name, joiner, n, op="=="):
    cond = f" {joiner} ".join(f"c {op} {k}" for k in range(n))
    src = (f"def {name}(a):\n    n = 0\n    for c in a:\n        if {cond}:\n"
           "            n += 1\n    return n\n")
    return _generated(tmp_path, name, src)


@pytest.mark.parametrize("joiner, op", [("or", "=="), ("and", "!=")])
def test_long_or_and_chains_compile(tmp_path, joiner, op):
    g = _chain_function(tmp_path, "g", joiner, 140, op)
    same_as_numpy(g, np.array([1, 5, 200, 139, 140]))
    same_as_numpy(g, np.array([1.5, -3.0, 7.0]))


def test_elif_chain_with_values_and_else(tmp_path):
    src = "def h(code, x):\n    out = 0.0\n    for i in range(code.size):\n"
    src += "        op = code[i]\n"
    for k in range(24):
        src += (f"        {'if' if k == 0 else 'elif'} op == {k}:\n"
                f"            out = out * 0.5 + {k} * x[i]\n")
    src += "        else:\n            out -= x[i]\n    return out\n"
    h = _generated(tmp_path, "h", src)
    rng = np.random.default_rng(0)
    cases = []
    for _ in range(3):
        code = rng.integers(0, 30, 12)
        cases.append((code, rng.integers(0, 4, 12).astype(np.float32)))
    same_as_numpy_each(h, *cases)


def test_elif_chain_reading_the_array_by_runtime_index(tmp_path):
    src = "def k(a, idx):\n    s = 0\n    for j in idx:\n"
    for m in range(20):
        src += (f"        {'if' if m == 0 else 'elif'} a[j] == {m}:\n"
                f"            s += {m * m}\n")
    src += "    return s\n"
    k = _generated(tmp_path, "k", src)
    same_as_numpy(k, np.arange(25) % 21, np.array([3, 0, 24, 19, 20]))


def test_deep_nesting_that_is_no_chain_is_a_limit_error(tmp_path):
    # each level computes more than a comparison before the next test:
    # nested conds, no switch
    src = "def d(a):\n    n = 0\n    for c in a:\n"
    src += "        if " + " and ".join(f"c * {k} % 1000 != 999" for k in range(150))
    src += ":\n            n += 1\n    return n\n"
    d = _generated(tmp_path, "d", src)
    err = raises_at(d, (np.array([1, 5]),), E.LimitError, match=r"E600.*nest \d+ deep",
                    line_of="if c * 0 % 1000", cache=False)
    assert "TABLE[op]" in err.hint


# --- bug_01: dict lookup by a tuple key holding a runtime value ----------------------------

T = {(0, 0): 1, (0, 1): 0, (1, 0): 1, (1, 1): 1}
NAMED = {("a", 1): 2}


def tuple_key(x):
    return T[0, x[0]]


def tuple_key_in_loop(x):
    state = 0
    for s in x:
        state = T[state, int(s)]
    return state


def tuple_key_nested(x):
    return NAMED["a", (x[0],)[0]]


@pytest.mark.parametrize("fn, line", [(tuple_key, "T[0, x[0]]"),
                                      (tuple_key_in_loop, "T[state, int(s)]"),
                                      (tuple_key_nested, "NAMED[")])
def test_tuple_key_with_runtime_value_is_e400(fn, line):
    err = raises_at(fn, (np.array([1, 0], np.int32),), E.StaticValueError,
                    match="indexing a Python dict with a key that holds a runtime value",
                    line_of=line, cache=False)
    assert "Array(" not in str(err)


def test_tuple_key_hint_suggests_a_table():
    err = raises_at(tuple_key, (np.array([1], np.int32),), E.StaticValueError, cache=False)
    assert "table[state, symbol]" in err.hint


def test_static_tuple_key_still_folds():
    def f(x):
        return T[0, 1] + x
    same_as_numpy(f, np.arange(3))


# --- bug_07: raises that end a loop at run time: hints that apply --------------------------

class UntilZero:
    def __init__(self, a):
        self.a, self.pos = a, 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.a[self.pos] == 0:
            raise StopIteration
        self.pos += 1
        return self.a[self.pos - 1]


def sum_until_zero(a):
    s = 0
    for v in UntilZero(a):
        s += v
    return s


class Found(Exception):
    pass


def search2d(g):
    pos = (-1, -1)
    try:
        for r in range(g.shape[0]):
            for c in range(g.shape[1]):
                if g[r, c] == 7:
                    pos = (r, c)
                    raise Found
    except Found:
        pass
    return pos


def test_runtime_stop_iteration_ends_the_loop_at_run_time():
    # (session 45 K2: compiled, a loop that leaves where __next__ stops; was refused)
    compiled = tpucc.compile(sum_until_zero, cache=False)
    for a in (np.array([3, 4, 0, 9]), np.array([0, 1]), np.array([5, 0])):
        assert_same(sum_until_zero(a), compiled(a))


def test_runtime_user_exception_out_of_loops_hint_says_break():
    err = raises_at(search2d, (np.array([[1, 7], [7, 0]]),), E.UnsupportedError,
                    match="raising Found", line_of="raise Found", cache=False)
    assert "`except` clause at line" in err.hint and "break" in err.hint
    assert "assert" not in err.hint


def test_uncaught_runtime_raise_keeps_its_hint():
    class Bad(Exception):
        pass

    def f(x):
        if x[0] > 0:
            raise Bad
        return x
    err = raises_at(f, (np.array([1]),), E.UnsupportedError, line_of="raise Bad", cache=False)
    assert "E910" in err.hint


# --- bug_08: membership in bytes, sets and dicts of numbers --------------------------------

def in_bytes(a):
    n = 0
    for c in a:
        if c in b" \t\n":
            n += 1
    return n


def not_in_bytearray(a):
    return [int(c) not in bytearray(b"ab") for c in a[:3]]


def in_set(a):
    n = 0
    for c in a:
        if int(c) in {32, 9, 10}:
            n += 1
    return n


def in_frozenset_float(a):
    return (a[0] in frozenset({0.5, 2.0}), a[1] not in frozenset({0.5, 2.0}))


def in_dict_keys(a):
    return a.argmax() in {0: "a", 2: "b"}


def in_empty_set(a):
    return a[0] in set()


TEXT = np.frombuffer(b"a b\tc\nd", np.uint8)


@pytest.mark.parametrize("fn, a", [
    (in_bytes, TEXT), (in_bytes, TEXT.astype(np.int64)), (in_bytes, TEXT.astype(np.uint16)),
    (not_in_bytearray, np.array([97, 99, 98], np.int32)),
    (in_set, TEXT), (in_set, TEXT.astype(np.int16)),
    (in_frozenset_float, np.array([2.0, 0.5])), (in_frozenset_float, np.array([1.0, 3.0])),
    (in_dict_keys, np.array([1, 5, 3])), (in_dict_keys, np.array([9, 5, 3])),
    (in_empty_set, np.array([1])),
])
def test_membership_of_runtime_number(fn, a):
    same_as_numpy(fn, a)


def test_runtime_int_not_a_byte_raises_value_error():
    with pytest.raises(E.RuntimeRaiseError, match="byte must be in range"):
        tpucc.compile(in_bytes, cache=False)(np.array([32, 300]))


def test_set_of_strings_with_runtime_item_is_refused():
    def f(a):
        return int(a[0]) in {"x", 1}
    err = raises_at(f, (np.array([1]),), E.StaticValueError, match="`in` a set with a runtime",
                    line_of="in {", cache=False)
    assert "tuple" in err.hint


# --- bug_09: len() of a range with a runtime bound ----------------------------------------

def range_lengths(n, m):
    a, b = int(n[0]), int(m[0])
    return (len(range(1, a, 2)), len(range(a)), len(range(a, b)), len(range(b, a, -3)),
            len(range(a, 10, 4)), len(range(b, a, -1)))


def runtime_step_length(n, m):
    return len(range(0, int(n[0]), int(m[0])))


@pytest.mark.parametrize("n, m", [(7, 3), (-2, 5), (0, 0), (10, -7), (3, 20)])
def test_len_of_runtime_range(n, m):
    out = same_as_numpy(range_lengths, np.array([n]), np.array([m]))
    assert all(type(v) is int for v in out)


@pytest.mark.parametrize("n, m", [(10, 3), (10, -3), (-10, -4), (5, 7)])
def test_len_of_runtime_stepped_range(n, m):
    same_as_numpy(runtime_step_length, np.array([n], np.int32), np.array([m], np.int32))


def test_len_of_runtime_range_in_arithmetic():
    def f(x):
        k = len(range(2, x.shape[0] * int(x[0]), 3))
        return x * k
    same_as_numpy(f, np.array([4, 1, 2], np.int16))
