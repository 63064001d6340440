"""Bugs left open from session 35's sweeps (35h, 35i), fixed in session 36:
each program now gives eager NumPy's (and Python's) result, or an error that
says what is wrong and what to do."""
import pickle

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import assert_same, check, count_hlo, hlo, raises_at


# --- @tpucc.compile above @staticmethod / @classmethod ---------------------------------

class _Holder:
    scale = 3.0

    @tpucc.compile
    @staticmethod
    def plus_two(x):
        return x + 2

    @tpucc.compile
    @classmethod
    def scaled(cls, x):
        return x * cls.scale


class _Child(_Holder):
    scale = 5.0


def test_compile_over_staticmethod_and_classmethod_binds_as_they_do():
    x = np.ones(2)
    np.testing.assert_array_equal(_Holder.plus_two(x), [3.0, 3.0])
    np.testing.assert_array_equal(_Holder().plus_two(x), [3.0, 3.0])
    np.testing.assert_array_equal(_Holder.scaled(x), [3.0, 3.0])
    np.testing.assert_array_equal(_Holder().scaled(x), [3.0, 3.0])
    np.testing.assert_array_equal(_Child.scaled(x), [5.0, 5.0])     # cls is the subclass


# --- pickling a compiled module-level function: by reference, as the function -------------

@tpucc.compile
def _module_square(x):
    return x * x


def test_compiled_function_pickles_by_reference():
    assert pickle.loads(pickle.dumps(_module_square)) is _module_square

    def local(x):
        return x
    with pytest.raises((pickle.PicklingError, AttributeError)):
        pickle.dumps(tpucc.compile(local))      # as the local function itself


# --- a runtime_args parameter left at its default is still a runtime value ----------------

def test_defaulted_runtime_arg_is_read_at_run_time():
    def halve(x, n=3):
        i = 0
        while i < n:
            x = x * 0.5
            i += 1
        return x
    cf = tpucc.compile(halve, runtime_args=("n",))
    assert count_hlo(hlo(cf, np.ones(2)), "while") == 1
    np.testing.assert_array_equal(cf(np.ones(2)), halve(np.ones(2)))
    np.testing.assert_array_equal(cf(np.ones(2), 1), halve(np.ones(2), 1))
    np.testing.assert_array_equal(cf(np.ones(2), n=5), halve(np.ones(2), n=5))


# --- Python orders no complex numbers, runtime ones included -----------------------------

def test_ordering_a_runtime_python_complex_is_a_type_error():
    def f(x, a):
        if a > 1:
            x = x + 1
        return x
    with pytest.raises(E.UserCodeError, match="'>' not supported between instances of "
                                              "'complex' and 'int'"):
        tpucc.compile(f, runtime_args=("a",))(np.ones(2), 1 + 2j)

    def g(x, a):                    # NumPy orders complex arrays: still compiles
        return x > a
    check(g, np.array([1 + 1j, 3 - 1j]), 2 + 0j)


# --- a big int for an argument read at run time only because it changed ------------------
# (session 39b: it is read at compile time again, and the call gets Python's exact result)

def test_big_int_for_a_promoted_argument_is_read_at_compile_time_again():
    def g(x, a):
        return x * a
    cg = tpucc.compile(g)
    for a in (1, 2, 3):
        cg(np.ones(2), a)
    with pytest.warns(tpucc.RecompileWarning, match="outgrew"):
        got = cg(np.ones(2), 2**63 + 5)
    assert_same(got, g(np.ones(2), 2**63 + 5))


# --- np.nan_to_num of complex arrays: each part on its own -------------------------------

def test_nan_to_num_of_complex_arrays():
    z = np.array([1 + np.nan * 1j, np.inf + 0j, 2 - 1j, complex(-np.inf, np.nan)])
    check(lambda z: np.nan_to_num(z), z)
    check(lambda z: np.nan_to_num(z, nan=1.5, posinf=7.0, neginf=-7.0), z)
    check(lambda z: np.nan_to_num(z.astype(np.complex64)), z)

    def in_place(z):
        np.nan_to_num(z, copy=False)
        return z.sum()
    check(in_place, z)


# --- decimals and ddof must be static: the message says so ------------------------------

def test_runtime_decimals_and_ddof_are_refused_by_name():
    def r(x, k):
        return np.round(x, k)

    def v(x, d):
        return np.var(x, ddof=d)
    x = np.array([1.25, 2.0, 4.0])
    raises_at(r, (x, 1), E.StaticValueError, "np.round's decimals must be known at compile "
              "time", line_of="np.round", runtime_args=("k",))
    raises_at(v, (x, 1), E.StaticValueError, "np.var's ddof must be known at compile time",
              line_of="np.var", runtime_args=("d",))


# --- a runtime Python int converted to an integer dtype must fit it ----------------------

@pytest.mark.parametrize("call", [lambda x, k: np.add(x, k, dtype=np.int8),
                                  lambda x, k: np.multiply(x, k, dtype=np.int8),
                                  lambda x, k: np.pad(x, 1, constant_values=k)])
def test_runtime_python_int_into_int8_raises_overflow(call):
    x = np.array([1, 5, -2], np.int8)
    cf = tpucc.compile(call, runtime_args=("k",))
    np.testing.assert_array_equal(cf(x, 7), call(x, 7))
    with pytest.raises(OverflowError, match="Python integer 1000 out of bounds for int8"):
        cf(x, 1000)


def test_runtime_float_pad_value_of_an_int_array_is_stored_as_numpy_stores_it():
    def f(x, k):
        return np.pad(x, 1, constant_values=k)
    x = np.array([1, 5, -2], np.int8)
    cf = tpucc.compile(f, runtime_args=("k",))
    for k in (2.7, -3.2):
        np.testing.assert_array_equal(cf(x, k), f(x, k))
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        cf(x, float("nan"))
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        cf(x, 1000.0)


# --- an array shifted in place, then accumulated (XLA:CPU fused the two wrongly) ---------

def _shifted_right(y):
    y[1:] = y[:-1]
    return y


@pytest.mark.parametrize("accumulate", [np.cumsum, np.cumprod, np.maximum.accumulate,
                                        np.add.accumulate, np.nancumsum])
@pytest.mark.parametrize("n", [4, 16, 40])
def test_accumulating_an_array_just_shifted_in_place(accumulate, n):
    def f(x):
        return accumulate(_shifted_right(x.copy()))

    def first_difference(x):
        y = x.copy()
        y[1:] = y[1:] - y[:-1]
        return accumulate(y)
    x = np.arange(1.0, n + 1) % 7 + 1
    check(f, x)
    check(first_difference, x)
    check(f, x.astype(np.int64))


def test_delay_line_then_cumsum():
    def f(x):
        y = np.zeros(x.shape[0] + 1)
        y[1:] = x
        y[1:] = y[:-1]
        return np.cumsum(y), np.cumsum(y.reshape(1, -1), axis=1)
    check(f, np.array([1.0, 2.0, 3.0, 4.0]))


# --- Gaussian elimination's rank-one update on the rows below the pivot: one While --------

def _lu_partial_pivoting(a):
    n = a.shape[0]
    for i in range(n - 1):
        p = i + int(np.argmax(np.abs(a[i:, i])))
        tmp = a[i].copy()
        a[i] = a[p]
        a[p] = tmp
        a[i + 1:] -= np.outer(a[i + 1:, i] / a[i, i], a[i])
    return a


def _eliminate_by_column(a):
    n = a.shape[0]
    for i in range(n - 1):
        f = a[i + 1:, i] / a[i, i]
        a[i + 1:] -= f[:, None] * a[i]
    return a


def _eliminate_by_window(a):
    n = a.shape[0]
    for i in range(n - 1):
        a[i + 1:] -= a[i + 1:, i:i + 1] / a[i, i] * a[i]
    return a


def _lu_factors(a):
    n = a.shape[0]
    u, low = a.copy(), np.eye(n)
    for i in range(n - 1):
        low[i + 1:, i] = u[i + 1:, i] / u[i, i]
        u[i + 1:] -= np.outer(low[i + 1:, i], u[i])
    return low, u


@pytest.mark.parametrize("program", [_lu_partial_pivoting, _eliminate_by_column,
                                     _eliminate_by_window, _lu_factors])
def test_elimination_below_a_runtime_pivot_row_is_one_while(program):
    a = np.random.default_rng(3).standard_normal((9, 9)) + 9 * np.eye(9)
    compiled = check(program, a, rtol=1e-12, atol=1e-12, compile_kwargs={"unroll": 2})
    assert count_hlo(hlo(compiled, a), "while") == 1


def test_trailing_index_of_a_runtime_slice_is_a_view():
    def f(a, k):
        col = a[k:][:, 1]           # NumPy: a view of a's column 1, rows k on
        col *= 10.0
        return a, a[k:][:, 0].sum(), a[k:, :2][:, None, 0].max()
    a = np.arange(12.0).reshape(4, 3)
    check(f, a, 2, compile_kwargs={"runtime_args": ("k",)})


def test_what_a_runtime_slice_still_refuses():
    def rows_of_it(a, k):
        return a[k:][[0, 1]]        # an index array: rows picked one by one (session 43h)
    def outer_on_the_right(a, k):
        return np.outer(a[0], a[k:, 0])     # its columns: data-dependent (boxes.py)
    a = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(
        tpucc.compile(rows_of_it, cache=False, runtime_args=("k",))(a, 1), rows_of_it(a, 1))
    raises_at(outer_on_the_right, (a, 1), E.ShapeError, "returning x\\[i:j\\]",
              line_of="return np.outer", runtime_args=("k",))


# --- selections by different bounds or masks pair their rows in order, as NumPy does -----

def _autocorrelation(x, lags):
    n = x.shape[0]
    xm = x - x.mean()
    r = np.zeros(lags)
    for k in range(lags):
        r[k] = np.dot(xm[:n - k], xm[k:]) / n
    return r


def _lagged_distance(x):
    n = x.shape[0]
    out = np.zeros(n)
    for k in range(1, n):
        out[k] = np.abs(x[k:] - x[:n - k]).sum()
    return out


def _shifted_rows(x):
    n = x.shape[0]
    y = np.zeros((n, n))
    for k in range(n):
        y[k, k:] = x[:n - k]
    return y


@pytest.mark.parametrize("program", [_autocorrelation, _lagged_distance, _shifted_rows])
def test_slices_by_different_runtime_bounds_pair_in_order_in_one_while(program):
    x = np.random.default_rng(4).standard_normal(12)
    args = (x, 9) if program is _autocorrelation else (x,)
    compiled = check(program, *args, rtol=1e-12, atol=1e-12, compile_kwargs={"unroll": 2})
    assert count_hlo(hlo(compiled, *args), "while") == 1


def test_selections_of_different_lengths_raise_numpys_value_error():
    def product(x, k):
        return (x[k:] * x[:k]).sum()

    def store(x, k):
        y = np.zeros(x.shape[0])
        y[k:] = x[:k]
        return y

    def masks(x, y):
        x[x > 0] = y[y > 0]         # NumPy: the i-th selected of y into the i-th of x
        return x
    x = np.arange(8.0) - 3
    for program in (product, store):
        compiled = tpucc.compile(program, runtime_args=("k",))
        np.testing.assert_array_equal(compiled(x, 4), program(x, 4))
        with pytest.raises(ValueError) as eager:
            program(x, 3)
        with pytest.raises(ValueError) as ours:
            compiled(x, 3)
        assert str(eager.value).strip() in str(ours.value)
    check(masks, x.copy(), x[::-1].copy())      # five positives on both sides
    with pytest.raises(ValueError, match="could not broadcast input array from shape"):
        tpucc.compile(masks)(x.copy(), x + 1)


# --- pairing follows each selection's order, and a one-row selection broadcasts ----------

def _convolution(x, h):
    n = x.shape[0]
    y = np.zeros(n)
    for i in range(n):
        y[i] = np.dot(x[i::-1], h[:i + 1])      # x backwards against h forwards
    return y


def test_a_backward_slice_pairs_from_its_first_row_in_one_while():
    x, h = np.arange(1.0, 10.0), np.array([0.5, -1, 2, 3, 1, 0, 2, 1, 4.0])
    compiled = check(_convolution, x, h, compile_kwargs={"unroll": 2})
    assert count_hlo(hlo(compiled, x, h), "while") == 1


@pytest.mark.parametrize("k", [0, 3, 7])
def test_backward_slices_on_either_side_of_a_store(k):
    def f(x, k):
        y = np.zeros(8)
        y[:k + 1] = x[k::-1]
        y[k::-1] += x[:k + 1] * 10
        z = np.zeros((8, 2))
        z[k::-1] = np.outer(x[:k + 1], [1.0, 2.0])
        return y, z, (x[k::-1] - x[:k + 1]).sum()
    check(f, np.arange(1.0, 9.0), np.array(k))


@pytest.mark.parametrize("step", [-3, -1])
def test_runtime_negative_steps_pair_in_their_order(step):
    def f(x, s):
        return np.dot(x[8::s], x[:9:abs(s)]), (x[8::s] - x[:9:abs(s)] * 2).max()
    check(f, np.arange(1.0, 10.0) ** 2, np.array(step))


def test_a_one_row_selection_broadcasts_as_numpy_does():
    def products(x, i, j):
        return (x[:i] * x[j:]).sum(), (x[j:] * x[:i]).sum(), np.where(x[j:] > 0, x[:i], 0).sum()

    def store(x, k, j):
        y = np.zeros(8)
        y[k:] = x[j:]
        y[:k] += x[j:]
        return y

    def dot(x, i, j):
        return np.dot(x[:i], x[j:])
    x = np.arange(1.0, 9.0)
    for i, j in ((1, 5), (3, 7), (3, 5)):
        check(products, x, np.array(i), np.array(j))
    check(store, x, np.array(3), np.array(7))
    with pytest.raises(ValueError, match="could not broadcast input array from shape"):
        tpucc.compile(store)(x, np.array(3), np.array(6))
    with pytest.raises(ValueError, match=r"shapes \(1,\) and \(3,\) not aligned"):
        tpucc.compile(dot)(x, np.array(1), np.array(5))     # np.dot does not broadcast


def test_argmax_of_a_backward_selection_counts_from_its_own_start():
    # (refused until session 38, rather than misordered; now counted in the rows' order)
    def f(x, k):
        return np.argmax(x[k::-1] * 2), np.argmax(np.ones(5)[k::-1])
    for k in (0, 3, 4):
        check(f, np.array([1.0, 5.0, 2.0, 5.0, 0.0]), np.array(k))


# --- writing through a runtime slice's trailing index; complex selections -----------------

def test_writes_through_a_trailing_index_of_a_runtime_slice_reach_the_array():
    def f(a, k):
        a[k:][:, 1] *= 2
        a[k:][:, 0] = -1.0
        m = a[a[:, 2] > 6]
        m[:, 1] = 100.0             # x[mask] is a copy: a keeps its values
        return a, m.sum()

    def in_a_loop(a):
        for k in range(a.shape[0]):
            a[k:][:, 1] *= 2
        return a
    check(f, np.arange(15.0).reshape(5, 3), np.array(2))
    compiled = check(in_a_loop, np.arange(18.0).reshape(6, 3), compile_kwargs={"unroll": 2})
    assert count_hlo(hlo(compiled, np.ones((6, 3))), "while") == 1


def test_products_and_parts_of_complex_runtime_slices():
    def f(x, y, k):
        return (np.vdot(x[:k], y[:k]), np.dot(x[:k], x[:k]), np.inner(x[:k], y[:k]),
                (x[:k].conj() * x[:k]).sum(), x[:k].real.max(), x[:k].imag.sum())
    x = np.arange(5) * (1 + 1j) - 2j
    check(f, x, x[::-1].copy(), np.array(3))


def test_a_store_of_rows_that_do_not_fit_names_both_shapes_as_numpy_does():
    def f(x, k):
        y = np.zeros((6, 3))
        y[k:] = x[k - 1:][:, None]
        return y
    with pytest.raises(ValueError) as eager:
        f(np.arange(6.0), 2)
    with pytest.raises(ValueError) as ours:
        tpucc.compile(f)(np.arange(6.0), np.array(2))
    assert str(eager.value) in str(ours.value)     # (5,1) into (4,3)
