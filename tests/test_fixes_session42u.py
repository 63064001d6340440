"""A variable that is a Python int on one runtime path and a NumPy integer
of a narrower dtype on another (a runtime `if`, a loop) took the NumPy dtype
on every path: arithmetic on the Python-int path wrapped silently (eager 260,
compiled np.uint8(4)) and the caller got np.uint8 where eager Python gives an
int.  Now the value carries which one it is (infer/held_ints.py): the caller
gets the Python int, arithmetic that fits gives the int's result, and one the
NumPy dtype cannot hold raises (E910) on the path that held the int."""
import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each

HELD = "Python int arithmetic held in"


# --- bug_01: merged by a runtime `if` -----------------------------------------

def _if_merged(b):
    x = 250
    if b[0] > 100:
        x = b[0]
    return x


def test_if_merged_python_int_is_returned_as_an_int():
    same_each(_if_merged, *[(np.array([v, 3], np.uint8),) for v in (50, 200)])


def test_if_merged_arithmetic_that_wraps_raises_on_the_int_path():
    def f(b):
        x = 250
        if b[0] > 100:
            x = b[0]
        return x + 10
    same(f, np.array([200, 3], np.uint8))          # the uint8 path wraps, as eagerly
    raises_at(f, (np.array([50, 3], np.uint8),), tpucc.errors.RuntimeRaiseError,
              match=HELD + r" uint8 \(\+\).*260", line_of="return x + 10", cache=False)


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.uint16, np.int32])
def test_if_merged_arithmetic_that_fits_gives_the_ints_result(dtype):
    def f(b):
        x = 5
        if b[0] > 10:
            x = b[0]
        return x + 10, x * 2, x - 3, x // 3, x % 7, abs(x), x > 5, x / 2, x ** 2, x << 1
    same_each(f, *[(np.array([v, 3], dtype),) for v in (3, 11)])
    if np.dtype(dtype).kind == "i":
        def negated(b):
            x = 5
            if b[0] > 10:
                x = b[0]
            return -x, ~x, x & 6, x | 8, x ^ 3, x >> 1
        same_each(negated, *[(np.array([v, 3], dtype),) for v in (3, 11)])


@pytest.mark.parametrize("spelling", ["+=", "*", "-", "~", "<<", "**", "unary -"])
def test_if_merged_int_path_overflow_spellings(spelling):
    src = {"+=": "x += 200", "*": "x = x * 3", "-": "x = x - 251", "~": "x = ~x",
           "<<": "x = x << 2", "**": "x = x ** 2", "unary -": "x = -x"}[spelling]
    ns = {}
    exec(f"def f(b):\n    x = 250\n    if b[0] > 100:\n        x = b[0]\n    {src}\n"
         "    return x\n", ns)
    f = ns["f"]
    same(f, np.array([200, 3], np.uint8))
    with pytest.raises(tpucc.errors.RuntimeRaiseError, match=HELD):
        tpucc.compile(f, cache=False)(np.array([50, 3], np.uint8))


def test_runtime_python_int_argument_merged_with_int16():
    def f(b, k):
        y = k
        if b[0] > 0:
            y = b[1]
        return y, y * 1000
    cf = tpucc.compile(f, runtime_args=("k",), cache=False)
    r = cf(np.array([0, 7], np.int16), 30)
    assert r == (30, 30000) and type(r[0]) is int and type(r[1]) is int
    r = cf(np.array([1, 7], np.int16), 30)
    assert r == (7, 7000) and type(r[0]) is np.int16 and type(r[1]) is np.int16
    with pytest.raises(tpucc.errors.RuntimeRaiseError, match=HELD + " int16"):
        cf(np.array([0, 7], np.int16), 100)         # 100000: no int16


def test_merged_again_in_a_second_if():
    def f(b):
        x = 250
        if b[0] > 100:
            x = b[0]
        if b[1] > 100:
            x = x - 1
        return x, x + 3
    same_each(f, *[(np.array(v, np.uint8),)
                   for v in ([50, 50], [50, 200], [200, 50], [200, 200])])


def test_with_numpy_operands_of_the_same_dtype_nothing_differs():
    def f(b):
        x = 250
        if b[0] > 100:
            x = b[0]
        return x + b, x > b, np.maximum(x, b[1]), x + b[1]
    same_each(f, *[(np.array([v, 3], np.uint8),) for v in (50, 200)])


def test_numpy_function_of_another_dtype_on_the_int_path_raises():
    def f(b):
        x = 250
        if b[0] > 100:
            x = b[0]
        return np.sqrt(x)               # float64 for the int, float16 for a uint8
    same(f, np.array([200, 3], np.uint8))
    raises_at(f, (np.array([50, 3], np.uint8),), tpucc.errors.RuntimeRaiseError,
              match="NumPy gives float64", line_of="np.sqrt(x)", cache=False)


def test_narrower_numpy_operand_on_the_int_path_raises():
    def f(b, s):
        x = 100
        if b[0] > 100:
            x = b[0]
        return x + s            # the int with int8 values: int8; a uint8: int16
    s = np.array([1, 2], np.int8)
    same(f, np.array([200, 3], np.uint8), s)
    with pytest.raises(tpucc.errors.RuntimeRaiseError, match="NumPy gives int8"):
        tpucc.compile(f, cache=False)(np.array([50, 3], np.uint8), s)


# --- bug_02: carried by a loop ---------------------------------------------------

def _loop_best(img):
    best = 250
    for i in range(img.shape[0]):
        if img[i] > 250:
            best = img[i]
    return best


def test_loop_carried_python_int_is_returned_as_an_int():
    same_each(_loop_best, (np.array([1, 2, 3], np.uint8),), (np.array([1, 253, 3], np.uint8),))


def test_loop_carried_arithmetic_that_wraps_raises_on_the_int_path():
    def g(img):
        best = 250
        for i in range(img.shape[0]):
            if img[i] > 250:
                best = img[i]
        return best + 10
    same(g, np.array([1, 253, 3], np.uint8))
    raises_at(g, (np.array([1, 2, 3], np.uint8),), tpucc.errors.RuntimeRaiseError,
              match=HELD + r" uint8 \(\+\).*260", line_of="return best + 10", cache=False)


def test_runtime_counted_loop():
    def g(img, n):
        best = 250
        for i in range(n):
            if img[i] > 250:
                best = img[i]
        return best, best // 2
    img = np.array([1, 253, 3], np.uint8)
    for n in (0, 1, 2, 3):
        same(g, img, n)


def test_while_loop_over_many_items():
    def g(img):
        best = 100
        i = 0
        while i < img.shape[0]:
            if img[i] > best:
                best = img[i]
            i += 1
        return best, best + 1
    same(g, np.arange(50, dtype=np.int16))
    same(g, np.arange(150, dtype=np.int16))


def test_long_counted_loop_common_case():
    # the common case: values that fit, only compared
    def g(img):
        best = 0
        for i in range(img.shape[0]):
            if img[i] > best:
                best = img[i]
        return best
    same_each(g, (np.arange(300, dtype=np.int32) % 200,), (np.zeros(300, np.int32),))


def test_loop_rebinding_unconditionally():
    def g(img, n):
        v = 7
        for i in range(n):
            v = img[i]
        return v, v * 40
    img = np.array([9, 8, 7], np.uint16)
    for n in (0, 2):
        same(g, img, n)


def test_loop_arithmetic_inside_the_body():
    def g(img, n):
        acc = 200
        for i in range(n):
            if img[i] > 100:
                acc = img[i]
            else:
                acc = acc + 1       # a Python int on the paths that never took img[i]
        return acc
    same(g, np.array([1, 2, 3], np.uint8), 3)
    same(g, np.array([1, 200, 3], np.uint8), 3)
    img = np.zeros(60, np.uint8)
    with pytest.raises(tpucc.errors.RuntimeRaiseError, match=HELD + r" uint8 \(\+\)"):
        tpucc.compile(g, cache=False)(img, 60)      # 256 on the int path


def test_common_case_adds_no_check():
    """Compared only: the carried bool is all the merged int costs (no
    runtime check: as many comparisons as with a NumPy scalar to start)."""
    def g(img):
        best = 0
        for i in range(img.shape[0]):
            if img[i] > best:
                best = img[i]
        return best

    def numpy_start(img):
        best = np.uint8(0)
        for i in range(img.shape[0]):
            if img[i] > best:
                best = img[i]
        return best
    img = np.zeros(300, np.uint8)
    texts = [tpucc.compile(fn, cache=False).lower(img).as_text() for fn in (g, numpy_start)]
    assert texts[0].count("compare(") == texts[1].count("compare(")


# --- the same through other spellings ---------------------------------------------

class _State:
    pass


def test_attribute_merged_by_an_if_and_carried_by_a_loop():
    def merged(b):
        st = _State()
        st.v = 250
        if b[0] > 100:
            st.v = b[0]
        return st.v, st.v // 3

    def carried(img):
        st = _State()
        st.best = 250
        for i in range(img.shape[0]):       # (300 items: one While)
            if img[i] > 250:
                st.best = img[i]
        return st.best, st.best - 1
    same_each(merged, *[(np.array([v, 3], np.uint8),) for v in (50, 200)])
    img = np.zeros(300, np.uint8)
    same(carried, img)
    img[100] = 252
    same(carried, img)

    def carried_add(img):
        st = _State()
        st.best = 250
        for i in range(img.shape[0]):
            if img[i] > 250:
                st.best = img[i]
        return st.best + 10
    raises_at(carried_add, (np.zeros(300, np.uint8),), tpucc.errors.RuntimeRaiseError,
              match=HELD, line_of="return st.best + 10", cache=False)


def test_python_max_min_of_a_narrow_integer_and_a_python_int():
    def f(b):
        m = max(b[0], 250)
        n = min(b[1], 3)
        return m, n, n * 2
    same_each(f, *[(np.array([v, 1], np.uint8),) for v in (50, 253)])

    def g(b):
        return max(b[0], 250) + 10
    raises_at(g, (np.array([50, 1], np.uint8),), tpucc.errors.RuntimeRaiseError,
              match=HELD, line_of="max(b[0], 250) + 10", cache=False)


def test_conditional_expression():
    def f(b):
        x = b[0] if b[1] > 0 else 7
        return x, x * 30
    same(f, np.array([5, 1], np.uint8))
    same(f, np.array([5, 0], np.uint8))


def test_runtime_loop_carried_python_int_argument():
    def g(img, k):
        best = k
        for i in range(img.shape[0]):
            if img[i] > best:
                best = img[i]
        return best, best * 2
    cg = tpucc.compile(g, runtime_args=("k",), cache=False)
    img = np.zeros(300, np.uint8)
    r = cg(img, 7)
    assert r == (7, 14) and all(type(v) is int for v in r)
    img[5] = 200
    r = cg(img, 7)
    assert r == (200, 144) and all(type(v) is np.uint8 for v in r)


def test_isinstance_is_answered_at_run_time_and_type_refused():
    def f(b):
        x = 250
        if b[0] > 100:
            x = b[0]
        return isinstance(x, int), isinstance(x, np.integer), isinstance(x, (int, np.uint8))
    same_each(f, *[(np.array([v, 3], np.uint8),) for v in (50, 200)])

    def kinds(b):
        x = 250
        if b[0] > 100:
            x = np.zeros((), np.uint8)
        elif b[0] > 50:
            x = b[1]
        return isinstance(x, np.ndarray), isinstance(x, int), isinstance(x, np.generic)
    same_each(kinds, *[(np.array([v, 3], np.uint8),) for v in (10, 60, 200)])

    def typed(b):
        x = 250
        if b[0] > 100:
            x = b[0]
        return type(x) is int
    raises_at(typed, (np.array([50, 3], np.uint8),), tpucc.errors.StaticValueError,
              match="Python int on some runtime paths", line_of="type(x)", cache=False)
