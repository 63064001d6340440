"""Compiler bugs found by the differential fuzzer (tests/fuzz), each as its
minimal reproducer (shrunk by tests/fuzz/run.py, then tidied by hand).

A bug still present is pinned as `xfail(strict=True)`, so fixing it makes its
test XPASS and fail the suite: then drop the marker (and the seed from
KNOWN_FAILING in tests/test_fuzz.py)."""
import os

import numpy as np

import tpucc
import pytest

from conftest import check, count_hlo, hlo, raises_at


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
    return x, v


def test_inplace_view_of_temporary_in_while():
    check(inplace_view_of_temporary_in_while, np.ones((2, 3)), n_(3))


# --- argmax along a non-empty axis of an array with a zero-length axis is
#     valid NumPy (result shape (0,)); tpucc raises ShapeError (seed 1745)

def argmax_of_empty_rows(x):
    return np.argmax(x[1:], axis=1)


def test_argmax_of_empty_rows():
    check(argmax_of_empty_rows, np.ones((1, 3)))


# --- a `return` from a runtime inner loop inside a runtime outer loop: the
#     return path still holds the inner loop's iterator on the stack, deeper
#     than the outer loop's header: false [E300] "an iteration of this loop
#     changes the structure of a variable" (seed 408)

def return_from_nested_runtime_loops(x, n):
    for i in range(n):
        for j in range(n):
            if x[0] > i + j:
                return x * i + j
        x = x + 1
    return x


@pytest.mark.parametrize("n", [0, 1, 3])
def test_return_from_nested_runtime_loops(n):
    check(return_from_nested_runtime_loops, np.array([2.5, 0.0, 1.0]), n_(n))


def every_path_returns_in_loop(x, n):
    for i in range(n):
        return x * 2
    return x


@pytest.mark.parametrize("n", [0, 2])
def test_every_path_returns_in_loop(n):
    check(every_path_returns_in_loop, np.ones(3), n_(n))


# --- a name a runtime loop may or may not rebind, then updated in place:
#     when the loop runs zero times NumPy writes into the argument; tpucc
#     dropped the write (seeds 228, 307, 536).  Refused like the `if` case.

def rebind_in_runtime_loop_then_inplace(x, n):
    for i in range(n):
        x = x + 1
    x[0] = 7.0
    return x


def test_rebind_in_runtime_loop_then_inplace():
    raises_at(rebind_in_runtime_loop_then_inplace, (np.ones(3), n_(0)), tpucc.SideEffectError,
              match="after this loop `x` is the array it named before", line_of="x[0] = 7.0")


def rebind_to_view_in_loop_then_inplace(x, y, n):
    for i in range(n):
        x = y[1:]
    x[0] = 7.0
    return x


def test_rebind_to_view_in_loop_then_inplace():
    # after the loop `x` is a view of `y` (NumPy writes 7 into y): refused too
    raises_at(rebind_to_view_in_loop_then_inplace, (np.ones(2), np.zeros(3), n_(1)),
              tpucc.SideEffectError, line_of="x[0] = 7.0")


def long_static_loop_rebinds(x):
    for i in range(40):         # a counted While that runs 40 times: always a new array
        x = x + 1
    x[0] = 7.0
    return x


def test_long_static_loop_rebinds():
    check(long_static_loop_rebinds, np.ones(3))


# --- a view of a temporary re-read inside one arm of a runtime `if` and
#     reused in the other arm: "result %N not defined" (variant of seed 1530)

def view_reread_in_both_arms(x, n):
    v = (x + 1)[..., 0]
    if n > 1:
        k = 0
        while k < n:
            k += 1
            v -= 1
    else:
        v += 2
    return v


@pytest.mark.parametrize("n", [0, 3])
def test_view_reread_in_both_arms(n):
    check(view_reread_in_both_arms, np.ones((2, 3)), n_(n))


# --- NumPy identity through runtime loops and branches (found while fixing
#     the two above; the fuzzer's programs hit the same paths)

def alias_seen_in_loop(x, n):
    y = x                       # one array, two names: the loop body must keep that
    k = 0
    s = 0.0
    while k < n:
        k += 1
        x += 1
        s = s + y.sum()
    return s


def view_base_seen_in_loop(x, n):
    t = x + 1
    v = t[..., 0]               # a view of t: updating v updates t
    k = 0
    s = 0.0
    while k < n:
        k += 1
        v -= 1
        s = s + t.sum()
    return s, t


def view_and_base_updated_in_loop(x, n):
    t = x + 1
    v = t[1:]
    for i in range(n):
        t[1] += 1
        v[0] *= 2
    return t, v


@pytest.mark.parametrize("fn", [alias_seen_in_loop, view_base_seen_in_loop,
                                view_and_base_updated_in_loop])
def test_identity_in_runtime_loops(fn):
    check(fn, np.ones((2, 3)), n_(3))


def view_of_view_sees_root(x):
    a = x[1:]
    b = a[1:]
    x[2] = 5.0                  # b views x through a
    return b


def test_view_of_view_sees_root():
    check(view_of_view_sees_root, np.ones(3))


def view_made_in_arm(x, c):
    t = x + 1
    if c > 0:
        w = t[0:2]
        t[0] = 5.0              # w is read at the merge, after t is restored
    else:
        w = t[1:3]
    return w


@pytest.mark.parametrize("c", [0, 1])
def test_view_made_in_arm(c):
    check(view_made_in_arm, np.ones(3), n_(c))


def same_view_in_both_arms(x, c):
    t = x + 1
    if c > 0:
        w = t[0:2]
    else:
        w = t[0:2] * 1
        w = t[0:2]
    t[0] = 7.0                  # w is a view of t on every path: it sees this
    return w


@pytest.mark.parametrize("c", [0, 1])
def test_same_view_in_both_arms(c):
    check(same_view_in_both_arms, np.ones(3), n_(c))


def view_on_some_paths(x, c):
    w = x[0:2]
    if c > 0:
        w = w * 2
    x += 1                      # NumPy: w sees this only if c <= 0
    return w


def test_view_on_some_paths():
    raises_at(view_on_some_paths, (np.ones(3), n_(0)), tpucc.SideEffectError,
              match="`w` is this array", line_of="x += 1")


def discarded_unroll_leaves_no_refusal(x, n):
    y = x.copy()
    for i in range(n):          # first unrolled, then rebuilt as a While
        if x.sum() > i:
            y = y + 1
    x += 1                      # x never changed identity: allowed
    return x, y


def test_discarded_unroll_leaves_no_refusal():
    check(discarded_unroll_leaves_no_refusal, np.ones(3), n_(2))


# --- a loop's may-alias result merged by an enclosing `if`: the merged name
#     keeps the refusal (seed 1473: `x0 -= ...` in a helper after the `if`
#     wrote the argument only when the loop ran zero times)

def loop_result_merged_then_inplace(x, n):
    if x.min() <= -5:
        x = x * 2
    else:
        for i in range(n, 4):
            x = x + 1
    x -= 1
    return x


def test_loop_result_merged_then_inplace():
    raises_at(loop_result_merged_then_inplace, (np.ones(3), n_(4)), tpucc.SideEffectError,
              match="after this loop `x` is the array", line_of="x -= 1")


# --- two names for one array on entry to a runtime loop whose body rebinds
#     one of them: sharing one body Array made the other follow the rebound
#     one from the second iteration on (seed 1351)

def alias_broken_by_loop(x, n):
    v = x
    for i in range(1, n):
        v = np.where(v > 0, v < x, x)
    return x, v


def test_alias_broken_by_loop():
    check(alias_broken_by_loop, np.array([False, False, True]), n_(3))


def alias_broken_after_inplace(x, n):
    y = x
    for i in range(n):
        x += 1              # on the first iteration y sees this, later not
        y = y * 2
    return x, y


def test_alias_broken_after_inplace():
    raises_at(alias_broken_after_inplace, (np.ones(3), n_(3)), tpucc.SideEffectError,
              match="shares its array with another name", line_of="for i in range(n)")


def view_of_rebound_base(x, n):
    t = x + 1
    v = t[1:]                   # keeps viewing the first t
    for i in range(n):
        t = t * 2
        s = v.sum()
    return t, v, s


def test_view_of_rebound_base():
    check(view_of_rebound_base, np.ones(3), n_(3))


# --- `x[i]` with an integer per axis is a NumPy scalar, not a 0-d view:
#     `v += ...` rebinds v and leaves x alone (seed 2076)

def integer_index_is_a_scalar(x):
    v = x[-1]
    v += 2.0
    w = x[..., 0]               # this one is a 0-d view: the update reaches x
    w += 1.0
    return x, v


def test_integer_index_is_a_scalar():
    check(integer_index_is_a_scalar, np.array([-0.5, -1.75, 1.0]))


def scalar_item_promotes_like_numpy(x, i):
    v = x[i]                    # a float32 scalar: `+= float64 scalar` gives float64
    v += np.float64(0.5)
    return v


def test_scalar_item_promotes_like_numpy():
    check(scalar_item_promotes_like_numpy, np.ones(3, np.float32), n_(1))


# --- functions that are not ufuncs convert a Python scalar argument with
#     np.asarray: it is int64/float64, not weak.  np.stack([f32 scalar, 0]) is
#     float64 in NumPy, float32 in tpucc (seed 4841); likewise np.hstack,
#     np.dot(i32, 0) (seed 8043), np.outer(2.0, f32) (seed 8961), np.inner,
#     np.tensordot.  Fixed in tpucc/ops (shape.py, linalg.py).

PYTHON_SCALAR_CASES = [
    (lambda x: np.stack([x * 2, 0]), np.float32(2.0)),
    (lambda x: np.hstack([x, 1]), np.float32(2.0)),
    (lambda x: np.dot(x, 0), np.array(3, np.int32)),
    (lambda x: np.outer(2.0, x), np.ones(3, np.float32)),
    (lambda x: np.inner(x, 2), np.ones(3, np.int32)),
    (lambda x: np.tensordot(x, 2.0, 0), np.ones(3, np.float32)),
]


@pytest.mark.parametrize("case", range(len(PYTHON_SCALAR_CASES)))
def test_python_scalar_in_array_functions(case):
    fn, arg = PYTHON_SCALAR_CASES[case]
    check(fn, arg)


# --- an update of a whole axis (x[:2] = v on 2 rows) lowers to a scatter that
#     covers the array; reversing the result then aborts XLA's CPU compiler
#     ("Invalid binary instruction opcode map", a C++ check failure that kills
#     the process) (seed 3422).  Pure JAX shows it: jnp.flip(v.at[:2].set(3.),
#     0) of a (2, 3) array.  Fixed in tpucc/ops/indexing.py _setitem_lower:
#     static step-1 windows lower to lax.dynamic_update_slice.  Run in a child
#     process, as a regression would kill its process.

REVERSE_AFTER_FULL_UPDATE = """
import numpy as np, tpucc
def f(x):
    v = x + 1
    v[:2] = 3.0
    return v[::-1], np.flip(v, axis=1)
out = tpucc.compile(f)(np.ones((2, 3), np.float32))
assert all((o == 3.0).all() and o.dtype == np.float32 for o in out), out
"""


def test_reverse_after_full_update():
    import subprocess
    import sys
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    r = subprocess.run([sys.executable, "-c", REVERSE_AFTER_FULL_UPDATE], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]


# --- two names for one array that a runtime loop only reads: the second
#     name's slot was taken as updated (the shared body Array holds the first
#     name's parameter), so the enclosing loop refused "`<stack 0>.pos` is
#     updated in place and then rebound" (seed 6027)

def loop_reads_aliased_counter(x, n):
    s = x * 0
    for i in range(n, 4):
        j = i
        k = 0
        while k < n:
            k += 1
            s = s + j + i
    return s


def test_loop_reads_aliased_counter():
    check(loop_reads_aliased_counter, np.ones(3), n_(2))


# --- an attribute (or a list item an object holds) updated in place and then
#     rebound in a runtime loop: NumPy's next update goes into the array the
#     previous iteration left there, the argument here (fuzz seed 110352: a
#     silent wrong result, x stayed [1.5 -0.75 1.5] where NumPy made it
#     [6 -3 6]; a variable or a dict item was already refused)

class State:
    pass


def attribute_updated_then_rebound(x, n):
    st = State()
    st.v = np.minimum(-1.5, x)
    k = 0
    while k < n:
        k += 1
        st.v *= 2.0
        st.v = x
    return x, st.v


def list_item_updated_then_rebound(x, n):
    st = State()
    st.hs = [np.minimum(-1.5, x)]
    for _ in range(n):
        st.hs[0] *= 2.0
        st.hs[0] = x
    return x, st.hs[0]


def attribute_updated_out_of_place(x, n):
    st = State()
    st.v = np.minimum(-1.5, x)
    k = 0
    while k < n:
        k += 1
        st.v = st.v * 2.0
        st.v = x
    return x, st.v


@pytest.mark.parametrize("fn,loop", [(attribute_updated_then_rebound, "while k < n"),
                                     (list_item_updated_then_rebound, "for _ in range(n)")])
def test_slot_updated_in_place_then_rebound_in_loop(fn, loop):
    raises_at(fn, (np.array([1.5, -0.75, 1.5]), n_(3)), tpucc.SideEffectError,
              match="updated in place and then rebound", line_of=loop)


def test_slot_updated_out_of_place_then_rebound_in_loop():
    check(attribute_updated_out_of_place, np.array([1.5, -0.75, 1.5]), n_(3))


# --- np.where of Python numbers only is a strong float64 0-d array, also when
#     the number is a loop counter a runtime loop promotes (fuzz seed 111616:
#     "[E300] iterations of this loop give `v` different dtypes: f64 and f32",
#     the promoted counter made the result weak); Python's min and max of
#     Python numbers stay Python numbers

def where_of_a_promoted_counter(x, n):
    k = 0
    v = np.zeros(x.shape)
    while k < n:
        k += 1
        v = x * np.where(k > -1, k, -0.25)
    return v


def min_of_a_promoted_counter(x, n):
    k = 0
    v = x
    while k < n:
        k += 1
        v = x * min(k, 2) + max(k, 0.5)
    return v


# np.round of a Python number is a NumPy scalar too (fuzz seed 121831:
# np.round(k) of a counter, int32 | np.int64 -> int64), while the builtin
# round keeps a Python float a Python float

def np_round_of_a_promoted_counter(x, n):
    k = 0
    v = x.astype(np.int64)
    while k < n:
        k += 1
        v = x | np.round(k)
    return v


def builtin_round_of_a_promoted_float(x, n):
    k = 0.0
    v = x * 1
    while k < n:
        k += 1.25
        v = x * round(k, 1) + x * round(k, 0) + x * round(k)
    return v


@pytest.mark.parametrize("fn,dtype", [(where_of_a_promoted_counter, np.float64),
                                      (min_of_a_promoted_counter, np.float32),
                                      (np_round_of_a_promoted_counter, np.int64),
                                      (builtin_round_of_a_promoted_float, np.float32)])
def test_python_numbers_through_where_round_min_max_in_runtime_loop(fn, dtype):
    x = np.array([2.0, -1.25, 0.25], dtype=np.float32)
    if fn is np_round_of_a_promoted_counter:
        x = np.array([2, -1, 5], dtype=np.int32)
    assert fn(x, 3).dtype == dtype
    check(fn, x, n_(3))


# --- a `return` from a runtime loop nested in another, followed by a loop that
#     becomes a While (a runtime `continue`): the inner While took back the
#     exit-stack slots the outer loop had parked in its locals, and the outer
#     loop saw its state change structure (fuzz seed 135324: "[E300] an
#     iteration of this loop changes the structure of a variable")

def return_from_nested_loop_then_while(x, n):
    for i in range(n):
        for j in range(1, n):
            return (x[::-1],)
        k = 0
        while k < 3:
            k += 1
            if (x * k).max() < 3.0:
                continue
    return (x * 2,)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_return_from_nested_loop_then_while(n):
    x = np.array([1.0, 2.0, 3.0])
    compiled = check(return_from_nested_loop_then_while, x, n_(n))
    assert count_hlo(hlo(compiled, x, n_(n)), "while") >= 1      # the outer runtime loop


# --- a view (a list item or variable) that a runtime loop rebinds while the
#     body updates the array it views in place: the body re-read the view
#     from its base on later iterations instead of the value the previous
#     iteration left (fuzz seeds 141550, 143835: silent wrong results).  NumPy's
#     first iteration sees the update through the view, later ones do not:
#     refused; without the update the loop compiles as before

def view_rebound_while_base_updated(x, n):
    hs = [x[0]]
    k = 0
    while k < n:
        k += 1
        x[1] += 1.0
        hs[0] = hs[0] + x[1]
    return hs[0], x


def view_item_rebound(x, n):
    hs = [x[0], x[1]]
    k = 0
    while k < n:
        k += 1
        hs[0] = hs[0] * 2 + hs[1].sum()
    return hs[0], x


def view_variable_rebound(x, n):
    v = x[0]
    for _ in range(n):
        v = v * 2 + 1
    return v, x


def test_view_rebound_while_its_base_is_updated():
    raises_at(view_rebound_while_base_updated, (np.arange(6.0).reshape(3, 2), n_(3)),
              tpucc.SideEffectError, match="is a view of another array when this loop starts",
              line_of="while k < n")


@pytest.mark.parametrize("fn", [view_item_rebound, view_variable_rebound])
def test_view_rebound_in_loop(fn):
    compiled = check(fn, np.arange(6.0).reshape(3, 2), n_(3))
    assert count_hlo(hlo(compiled, np.arange(6.0).reshape(3, 2), n_(3)), "while") == 1
