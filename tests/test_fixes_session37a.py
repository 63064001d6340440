"""Bugs from sweeps 37b, 37c and 37d, fixed in session 37a."""
import numpy as np

import tpucc
from conftest import assert_same, check, raises_at

STEPS = [0]


def test_counter_attr_rebound_in_while_not_done_stays_python_number():
    # `n + 1` of a promoted counter made a weak value whose kind read as a
    # 0-d array: the While carried a kind for it and the caller got array(3)
    class Agent:
        def __init__(self):
            self.steps, self.total = 0, 0.0

    def run_episode(agent, x):
        done, i = False, 0
        while not done:
            agent.steps += 1
            agent.total += 1.5
            STEPS[0] += 1
            i += 1
            done = bool(x[i] > 0.5)
        return i

    x = np.array([0.0, 0.1, 0.2, 0.9, 0.1])
    e, c = Agent(), Agent()
    STEPS[0] = 0
    expected = run_episode(e, x), e.steps, e.total, STEPS[0]
    STEPS[0] = 0
    i = tpucc.compile(run_episode)(c, x)
    assert_same(expected, (i, c.steps, c.total, STEPS[0]))


def test_python_sentinel_the_dtype_cannot_hold_is_refused_with_working_hints():
    # `lo = -1` merged with uint8 values took uint8: 255, so `x[i] > lo` never held
    def refused(x, n):
        lo = -1
        for i in range(int(n)):
            if x[i] > lo:   # <- here
                lo = x[i]
        return lo

    def sentinel(x, n):
        lo = np.iinfo(np.uint8).min
        for i in range(int(n)):
            if x[i] > lo:
                lo = x[i]
        return lo

    def python_ints(x, n):
        lo = -1
        for i in range(int(n)):
            if x[i] > lo:
                lo = int(x[i])
        return lo

    def cast(x, n):
        x = x.astype(np.int16)
        lo = -1
        for i in range(int(n)):
            if x[i] > lo:
                lo = x[i]
        return lo
    x = np.arange(40, dtype=np.uint8)
    err = raises_at(refused, (x, np.int64(3)), tpucc.MergeError,
                    r"`lo` mixed types: the Python int -1 and uint8 values", line_of="<- here")
    assert "np.iinfo(np.uint8).min" in err.hint and "x.astype(np.int16)" in err.hint
    for f in (sentinel, python_ints, cast):
        check(f, x, np.int64(3))


def test_python_numbers_out_of_range_of_merged_dtype_are_refused():
    def early_return(x, n):
        for i in range(int(n)):
            if x[i] > 5:
                return x[i]
        return 1000     # <- here

    def ternary(x, n):
        s = x[0]
        for i in range(int(n)):
            s = s + (x[i] if x[i] > 0 else 1000)    # <- here
        return s

    def huge_float(x):
        if x[0] > 0:    # <- here
            b = x.mean()
        else:
            b = 1e300
        return b
    x8 = np.arange(40, dtype=np.int8)
    raises_at(early_return, (x8, np.int64(3)), tpucc.MergeError, "Python int 1000 and int8",
              line_of="<- here")
    raises_at(ternary, (x8, np.int64(3)), tpucc.MergeError, "Python int 1000 and int8",
              line_of="<- here")
    raises_at(huge_float, (np.ones(3, np.float32),), tpucc.MergeError,
              "Python float 1e\\+300 and float32", line_of="<- here")


def test_runtime_python_int_merged_with_narrower_integers_must_fit():
    def branch(x, k):
        if x[1] > 0:    # <- here
            y = k
        else:
            y = x[0]
        return y

    def loop(x, k, n):
        lo = k
        for i in range(int(n)):     # <- here
            lo = lo if x[i] > 0 else x[i]
        return lo
    x = np.ones(3, np.int8)
    assert tpucc.compile(branch, runtime_args=("k",))(x, 5) == 5
    err = raises_at(branch, (x, 500), tpucc.RuntimeRaiseError,
                    "Python integer 500 out of bounds for int8", line_of="<- here",
                    runtime_args=("k",))
    assert isinstance(err, OverflowError)
    assert tpucc.compile(loop, runtime_args=("k",))(x, 5, np.int64(2)) == 5
    raises_at(loop, (x, 500, np.int64(2)), tpucc.RuntimeRaiseError,
              "Python integer 500 out of bounds for int8", line_of="<- here",
              runtime_args=("k",))


def test_list_of_python_numbers_indexed_at_run_time_gives_a_python_number():
    # one runtime entry made the stack of the items a NumPy array, and the
    # item a 0-d array: arithmetic on it then gave np.int64
    def ints(x):
        dp = [0, 5, int(x[0])]
        return dp[x[1]], dp[x[1]] + 1

    def floats(x):
        dp = [0.5, 5.0, float(x[0])]
        return dp[x[1]], dp[x[1]] * 2

    def numpy_scalars(x):
        dp = [x[0], x[1] * 2, x[1]]
        return dp[x[1]], dp[x[1]] + 1
    x = np.array([1, 1])
    for f in (ints, floats, numpy_scalars):
        check(f, x)


def test_runtime_argument_merged_with_numpy_scalar_is_a_numpy_scalar():
    # the argument's weak value read as a 0-d array's kind: array(5, dtype=int8).
    # (Beside NumPy integers or floats the path that took the int gives the
    # Python int as eagerly, infer/held_ints.py.)
    def pick(x, k):
        if x[1] > 0:
            y = k
        else:
            y = x[0]
        return y
    for x, kind in ((np.ones(3, np.int8), int), (np.ones(3, np.float32), int)):
        r = tpucc.compile(pick, runtime_args=("k",))(x, 5)
        assert type(r) is kind and r == 5


def test_numpy_bool_merged_with_python_int_zero_stays_a_bool():
    def f(x):
        if x[0] > 0:
            y = x[1] > 0
        else:
            y = 0
        return y

    def two(x):
        return 2 if x[0] > 0 else x[1] > 0      # (2 is no bool: int64, as NumPy promotes)
    check(f, np.ones(3))
    check(f, -np.ones(3))       # (the int's path gives the int 0, held in the bool: 47X5)
    assert type(tpucc.compile(two)(-np.ones(3))) is np.int64


def _grown(n):
    r = np.zeros((), np.float32)
    i = 0
    while i < n:            # a 0-d array if it never runs, a NumPy scalar if it does
        r = r + np.float32(1)
        i += 1
    return r


def test_isinstance_of_a_value_whose_kind_is_decided_at_run_time():
    def kinds(n):
        r = _grown(n)
        return (isinstance(r, np.ndarray), isinstance(r, np.generic),
                isinstance(r, (np.ndarray, np.generic)))
    for n in (0, 2):
        check(kinds, np.int64(n))


def test_type_of_a_value_whose_kind_is_decided_at_run_time_is_refused():
    def refused(x):
        if x[0] > 0:
            y = np.float64(2.0) * x[1]
        else:
            y = np.asarray(x[1])
        return type(y) is np.ndarray    # <- here

    def hinted(x):
        if x[0] > 0:
            y = np.float64(2.0) * x[1]
        else:
            y = np.asarray(x[1])
        return isinstance(y, np.ndarray)
    err = raises_at(refused, (-np.arange(1., 4.),), tpucc.StaticValueError,
                    "known only at run time", line_of="<- here")
    assert "isinstance(y, np.ndarray)" in err.hint
    for x in (-np.arange(1., 4.), np.arange(1., 4.)):
        check(hinted, x)


def test_astype_keeps_a_kind_decided_at_run_time():
    def f(n):
        return _grown(n).astype(np.float64)
    for n in (0, 2):
        check(f, np.int64(n))
