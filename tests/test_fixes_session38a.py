"""Session 38a's fixes, each checked against eager NumPy or for its message."""
import numpy as np

from tpucc import errors as E
from conftest import check, raises_at


# --- a runtime index into an axis of length 0 (ops/indexing._readable) --------------------------

def test_a_runtime_read_of_an_empty_array_compiles_where_it_never_runs():
    def partition(a, lo, hi):
        if lo < hi:
            return a[hi]            # quicksort's pivot: not read for an empty input
        return a.sum()

    def rows(m, i):
        if i < len(m):
            return m[i, 0] + m[i].sum()
        return np.float64(0.0)

    def bumps(a, i):
        if i < len(a):
            a[i] += 1.0
        return a

    def mixed(m, i, cols):
        if i < len(m):
            return m[i, cols]
        return m[0:0, cols].sum(axis=0)
    check(partition, np.zeros(0), np.int64(0), np.int64(-1))
    check(rows, np.zeros((0, 3)), np.int64(0))
    check(bumps, np.zeros(0), np.int64(0))
    check(mixed, np.zeros((0, 3)), np.int64(0), np.array([0, 2]))


def test_an_unguarded_runtime_read_of_an_empty_array_raises_index_error_at_run_time():
    def read(a, i):
        return a[i]
    raises_at(read, (np.zeros(0), np.int64(0)), E.RuntimeIndexError,
              "out of bounds for axis 0 with size 0", line_of="return a[i]")


# --- a float index is NumPy's IndexError, with `//` as the fix -------------------------------

def test_a_float_index_is_numpys_index_error_with_a_hint_towards_integer_division():
    def bsearch(a, x):
        lo, hi = 0, len(a)
        while lo < hi:
            mid = (lo + hi) / 2
            if a[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return lo

    def runtime_half(a, k):
        return a[k / 2]

    def fixed(a, x):
        lo, hi = 0, len(a)
        while lo < hi:
            mid = (lo + hi) // 2
            if a[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return lo
    a = np.arange(40)
    err = raises_at(bsearch, (a, 5), IndexError, r"IndexError: only integers, slices", "a[mid]")
    assert isinstance(err, E.UserCodeError) and "`//`" in err.hint
    raises_at(runtime_half, (a, np.int64(4)), IndexError, r"integer division `//`", "a[k / 2]")
    raises_at(lambda a: a[np.array([1.0])], (a,), IndexError,
              "arrays used as indices must be of integer", "np.array")
    check(fixed, a, 5)


def test_a_float_index_is_caught_by_the_programs_except_index_error():
    def guarded(a, k):
        try:
            return a[k / 2]
        except IndexError:
            return a[0]
    check(guarded, np.arange(4.0), np.int64(2))


# --- a list item assigned at a runtime position names the loop counter -----------------------

def test_a_list_item_assigned_by_a_runtime_loops_counter_is_named_with_an_array_instead():
    def states(x, n, w):
        hs = [np.zeros(w.shape[0]) for _ in range(x.shape[0])]
        h = np.zeros(w.shape[0])
        for t in range(n):
            h = np.tanh(x[t] @ w + h)
            hs[t] = h
        return np.stack(hs)

    def preallocated(x, n, w):
        hs = np.zeros((x.shape[0], w.shape[0]))
        h = np.zeros(w.shape[0])
        for t in range(n):
            h = np.tanh(x[t] @ w + h)
            hs[t] = h
        return hs
    x, w = np.ones((5, 3)), np.eye(3)
    err = raises_at(states, (x, 3, w), E.StaticValueError,
                    "assigning a list's item at a runtime position: `t` is the counter of a "
                    "loop whose number of iterations is known only at run time",
                    line_of="hs[t] = h", runtime_args=("n",))
    assert "taken from an array" not in str(err) and "H[t] = h" in err.hint
    check(preallocated, x, 3, w, compile_kwargs={"runtime_args": ("n",)})


# --- round() with a runtime ndigits is refused by name ---------------------------------------

def test_round_with_runtime_ndigits_is_refused_by_name_with_a_scaling_that_compiles():
    def rounded(x):
        return round(float(x[0]) / 7, int(x[1]))

    def of_a_literal(x):
        return round(3.14159, int(x[1]))

    def scaled(x):
        n = int(x[1])
        return np.rint(float(x[0]) / 7 * 10.0 ** n) / 10.0 ** n
    x = np.array([3.0, 2.0])
    for program in (rounded, of_a_literal):
        err = raises_at(program, (x,), E.StaticValueError,
                        "round\\(\\)'s ndigits must be known at compile time", line_of="round(")
        assert "index" not in str(err).splitlines()[0]
    check(scaled, x)
