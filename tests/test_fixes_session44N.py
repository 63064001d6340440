"""Fixes of session 44N: objects made inside a runtime loop that leave it
holding arrays (a `with` manager left by a runtime break), and if/elif
chains whose tests use `and` / `or` on runtime values (compile time)."""
import contextlib
import time

import numpy as np
import pytest

from conftest import same, same_each


# --- bug_01: an object made in a runtime loop leaves it holding arrays --------------------
# Its arrays were made in the body, and no variable the loop carries held
# them (`b` is read by nothing after the loop): the code after the While
# (__exit__ on the `break` path) read Values defined only inside it (E999).

class Ctx:
    def __init__(self, buf, log=None):
        self.buf, self.log = buf, log

    def __enter__(self):
        return self.buf

    def __exit__(self, *exc):
        self.buf += 1
        if self.log is not None:
            self.log[0] += self.buf[0]
        return False


def with_in_for_break(x):
    total = 0.0
    for i in range(5):
        with Ctx(np.zeros(1)) as b:
            b[0] = x[i]
            total += b[0]
            if x[i] > 2.0:
                break
    return total


def exit_writes_argument(x, log):
    for i in range(x.shape[0]):
        with Ctx(np.zeros(2, x.dtype), log) as b:
            b[0] = x[i]
            if x[i] > 2:
                break
    return log


def manager_without_as(x, log):
    t = 0.0
    for i in range(x.shape[0]):
        with Ctx(np.full(3, x[i]), log):
            t += x[i]
            if x[i] > 2:
                break
    return t


def while_return_inside_with(x, log):
    i = 0
    while i < x.shape[0]:
        with Ctx(np.zeros(1, np.float32), log) as b:
            b[0] = x[i]
            if x[i] > 2:
                return b[0] * 2, i
        i += 1
    return np.float32(-1.0), i


@contextlib.contextmanager
def managed(log):
    buf = np.zeros(2, log.dtype)
    try:
        yield buf
    finally:
        log[1] += buf[0]


def generator_manager_break(x, log):
    for i in range(x.shape[0]):
        with managed(log) as b:
            b[0] = x[i]
            if x[i] > 2:
                break
    return log


class Holder:
    def __init__(self, buf):
        self.buf = buf


def object_written_on_break_path(x):
    total = 0.0
    for i in range(x.shape[0]):
        o = Holder(np.zeros(1, x.dtype))
        o.buf[0] = x[i]
        total += o.buf[0]
        if x[i] > 2:
            o.buf += 1
            break
    return total


def object_read_after_loop(x):
    for i in range(x.shape[0]):
        o = Holder([np.zeros(2, x.dtype)])
        o.buf[0][0] = x[i]
        if x[i] > 2:
            break
    return o.buf[0]


def object_made_in_arm(x):
    if x[0] > 0:
        o = Holder(np.zeros(2, x.dtype))
        o.buf[0] = x[0]
    else:
        return x[1:3]
    o.buf += 1
    return o.buf


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 3.0, 4.0, 5.0]),
                               np.array([1.0, 2.0, 1.5, 0.0, 5.0]),
                               np.array([3.0, 0.0, 0.0, 0.0, 0.0])])
def test_with_made_in_loop_left_by_break(x):
    same(with_in_for_break, x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
@pytest.mark.parametrize("fn", [exit_writes_argument, manager_without_as,
                                generator_manager_break])
def test_manager_arrays_after_runtime_break(fn, dtype):
    same_each(fn, *[(np.array(x, dtype), np.zeros(2, dtype))
                    for x in ([1, 2, 3, 4, 5], [0, 1, 2, 1, 0])])


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 0.0, 1.0])])
def test_with_left_by_runtime_return_in_while(x):
    same(while_return_inside_with, x, np.zeros(2))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
@pytest.mark.parametrize("fn", [object_written_on_break_path, object_read_after_loop,
                                object_made_in_arm])
def test_object_made_in_runtime_region_leaves_it(fn, dtype):
    same_each(fn, *[(np.array(x, dtype),) for x in ([1, 2, 3, 4, 5], [-1, 3, 0, 0, 7])])


# --- bug_03: if/elif chains whose tests use `and` on runtime values ----------------------
# `a` false and `b` false both go to the next `elif`: each arm walked the
# rest of the chain, 2 ** n times for n arms (24 arms: minutes).  The arms
# now stop where they meet, and the rest runs once.

def _chain(n, joiner, body, start="-1"):
    lines = ["def classify(x, y):", f"    r = {start}"]
    for k in range(n):
        kw = "if" if k == 0 else "elif"
        lines.append(f"    {kw} x < {k + 1} {joiner} y < {k + 1}: " + body.format(k=k))
    lines.append("    return r")
    namespace = {}
    exec("\n".join(lines), namespace)     # noqa: S102 - a generated test program
    return namespace["classify"]


POINTS = ([7.5, 3.0], [30.0, 1.0], [0.5, 0.5], [30.0, 30.0], [3.0, 7.5], [23.5, -2.0])


def _compile_seconds(n, joiner, body, dtype, start="-1"):
    classify = _chain(n, joiner, body, start)

    def f(a):
        return classify(a[0], a[1])
    # (one compile, every point run through it: the compile is what is timed)
    began = time.perf_counter()
    same_each(f, *[(np.array(p, dtype),) for p in POINTS])
    return time.perf_counter() - began


@pytest.mark.parametrize("joiner", ["and", "or"])
@pytest.mark.parametrize("body, start, dtype", [
    ("return {k}", "-1", np.float64),
    ("return {k}", "-1", np.int32),
    ("r = y * {k}", "y * -1", np.float32),
    ("r = x + y + {k}", "x - y", np.float64),
])
def test_long_and_elif_chain_compiles_in_linear_time(joiner, body, start, dtype):
    small = _compile_seconds(6, joiner, body, dtype, start)
    big = _compile_seconds(24, joiner, body, dtype, start)
    # (2 ** n was minutes at 24 arms; linear is a few times the 6-arm chain)
    assert big < 8 * small + 20, (small, big)


def retested(a):
    c = a[0] > 0
    d = a[1] > 0
    if c and d:
        return 1.0
    elif not c:
        return 2.0
    elif not d:
        return 3.0


def retested_values(a):
    if a[0] > 0 and a[1] > 0:
        r = a[0]
    elif a[0] > 0:
        r = a[1] * 2
    elif a[1] > 0 and a[2] > 0:
        r = a[2]
    else:
        r = a.sum()
    return r


@pytest.mark.parametrize("fn", [retested, retested_values])
@pytest.mark.parametrize("a", [[1., 1., 1.], [-1., 1., 1.], [1., -1., 0.], [-1., -1., -1.],
                               [-1., 2., -3.]])
def test_elif_after_and_testing_its_operands_again(fn, a):
    # (each path knew what it tested: no path falls off the end with None)
    same(fn, np.array(a))
