"""Compiler bugs found by the differential fuzzer (tests/fuzz), each as its
minimal reproducer (shrunk by tests/fuzz/run.py, then tidied by hand).

They are still present: each is `xfail(strict=True)`, so fixing one makes its
test XPASS and fail the suite: then drop the marker (and the seed from
KNOWN_FAILING in tests/test_fuzz.py)."""
import numpy as np

import tpucc
import pytest

from conftest import check, raises_at


def n_(k):
    return np.array(k, dtype=np.int64)


# --- a variable defined inside a runtime while loop, nested in a static loop
#     that then `break`s on a runtime condition (fuzz seed 0)

def loop_local_then_break(x, n):
    for j in range(2):
        k = 0
        while k < n:
            k += 1
            v = x + 1
        if x.sum() > 1:
            break
    return x


def test_loop_local_then_break():
    check(loop_local_then_break, np.array([1.0, 2.0, 3.0]), n_(1))


# --- a variable defined after a runtime `continue` in a runtime range loop
#     (fuzz seeds 7, 15, 19, 30, ...): an internal IndexError, reported as
#     E700 UserCodeError (it is tpucc's own exception, so E999 at least)

def continue_then_define(x, n):
    for i in range(n):
        if x.sum() > 0:
            continue
        v = 1
    return x


def test_continue_then_define():
    check(continue_then_define, np.array([1.0, 2.0, 3.0]), n_(1))


# --- one branch writes into an argument in place, the other rebinds the name:
#     the returned value misses the in-place write (fuzz seed 41)

def setitem_or_rebind(x, y):
    if x.max() < 0.5:
        x[0] = 5.0
    else:
        x = y
    return x


def test_setitem_or_rebind():
    check(setitem_or_rebind, np.array([0.0, 0.0]), np.array([1.0, 1.0]))


# --- `x *= v` on a NumPy *scalar* argument rebinds x (NumPy scalars are
#     immutable), so NEP 50 promotion applies: float32 * int64 -> float64.
#     tpucc treats it as an in-place update and keeps float32 (found by the
#     first version of the generator, seed 21)

def scalar_arg_inplace(x):
    x *= np.int64(2)
    return x


def test_scalar_arg_inplace():
    check(scalar_arg_inplace, np.float32(1.5))


# --- after a runtime branch that may rebind an argument's name, an in-place
#     update of that name is not written back to the argument when the
#     branch was not taken (fuzz seed 307)

def maybe_rebind_then_inplace(x, y):
    if y.sum() > 0:
        x = y + 1
    x += 1
    return y


def test_maybe_rebind_then_inplace():
    # Refused: whether `x += 1` writes into the argument depends on runtime data.
    raises_at(maybe_rebind_then_inplace, (np.ones(3), -np.ones(3)), tpucc.SideEffectError,
              match="identity depends on a runtime condition", line_of="x += 1")


# --- the same inside a runtime loop: the first iteration writes into the
#     argument, then rebinds the name; the write-back is lost (seeds 92, 99)

def inplace_then_rebind_in_loop(x, n):
    for i in range(n):
        x[0] = 5.0
        x = np.zeros(3)
    return n


def test_inplace_then_rebind_in_loop():
    # Refused: the first iteration's update goes into the argument, later ones do not.
    raises_at(inplace_then_rebind_in_loop, (np.ones(3), n_(2)), tpucc.SideEffectError,
              match="updated in place and then rebound", line_of="for i in range(n)")


# --- a runtime `for` whose body always `break`s on a condition that is
#     static: "[E600] internal: loop body never returns to its header" (seed 238)

def static_break_in_runtime_loop(x, n):
    for i in range(n):
        if 1 < 3:
            break
    return x


def test_static_break_in_runtime_loop():
    check(static_break_in_runtime_loop, np.ones(3), n_(3))


# --- a static `for` with a runtime `break` and a loop-local variable, inside
#     a runtime `while`: a false MergeError "an iteration of this loop changes
#     the structure of a variable" (fuzz seed 325)

def break_in_static_loop_in_while(x, n):
    k = 0
    while k < n:
        k += 1
        for j in range(3):
            v = x + 1
            if v.min() <= -2:
                break
    return x


@pytest.mark.xfail(strict=True, reason="fuzz bug: false [E300] MergeError for a loop-local "
                   "variable + runtime break in a static loop inside a runtime while")
def test_break_in_static_loop_in_while():
    check(break_in_static_loop_in_while, np.ones(3), n_(2))


# --- the NumPy-scalar rebinding of test_scalar_arg_inplace, reached through
#     np.clip of a NumPy scalar (it returns a NumPy scalar) (fuzz seed 754)

def clipped_scalar_inplace(x, n):
    x = np.clip(x, -1000, 1000)
    x -= n
    return x


def test_clipped_scalar_inplace():
    check(clipped_scalar_inplace, np.int32(-3), n_(3))


# --- an in-place update, inside a runtime while, of a basic-indexing view of
#     a temporary: the IR verifier finds "result %N not defined" (seed 1530)

def inplace_view_of_temporary_in_while(x, n):
    v = (x + 1)[..., 0]
    k = 0
    while k < n:
        k += 1
        v -= v
    return x


@pytest.mark.xfail(strict=True, reason="fuzz bug: IR verifier 'result %N not defined' for an "
                   "in-place update of a view of a temporary in a runtime while")
def test_inplace_view_of_temporary_in_while():
    check(inplace_view_of_temporary_in_while, np.ones((2, 3)), n_(3))


# --- argmax along a non-empty axis of an array with a zero-length axis is
#     valid NumPy (result shape (0,)); tpucc raises ShapeError (seed 1745)

def argmax_of_empty_rows(x):
    return np.argmax(x[1:], axis=1)


def test_argmax_of_empty_rows():
    check(argmax_of_empty_rows, np.ones((1, 3)))
