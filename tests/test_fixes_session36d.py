"""Bugs from session 36's sweeps (36a, 36e), fixed in session 36d: NumPy's
window functions with runtime arguments, np.fft errors naming the function
called, and the UnrollWarning of loops unrolled for runtime-bounded slices."""
import warnings

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, count_hlo, hlo, raises_at


# --- window functions: a runtime kaiser beta compiles; a runtime length is E200 ---------------

def kaiser_window(x, beta):
    return np.kaiser(16, beta) * x


def kaiser_of_computed_beta(x):
    return np.kaiser(9, x.max() * 2)


@pytest.mark.parametrize("beta", [np.float64(5.0), np.float32(0.5), np.float64(0.0),
                                  np.int64(3), np.array(14.0)])
def test_kaiser_with_a_runtime_beta_is_numpys_window(beta):
    check(kaiser_window, np.linspace(0, 1, 16), beta, rtol=1e-13, atol=1e-15)


def test_kaiser_with_a_beta_computed_from_data_is_numpys_window():
    check(kaiser_of_computed_beta, np.array([0.5, 3.0, 1.0]), rtol=1e-13, atol=1e-15)


def kaiser_of_length(beta, m):
    return np.kaiser(m, beta)


@pytest.mark.parametrize("m", [0, 1, 2, 7.0])
def test_kaiser_of_short_and_float_lengths_is_numpys(m):
    check(kaiser_of_length, np.float64(4.0), m, rtol=1e-13, atol=1e-15)


def kaiser_of_a_vector_beta(beta):
    return np.kaiser(8, beta)


def test_kaiser_of_a_1d_beta_raises_numpys_value_error():
    raises_at(kaiser_of_a_vector_beta, (np.array([5.0]),), E.UserCodeError,
              match="ValueError: setting an array element with a sequence",
              line_of="np.kaiser(8, beta)")


def hanning_of_count(x):
    return np.hanning(int(np.sum(x > 0)))


def window_of_count(x, window):
    return window(int(np.sum(x > 0)))


def windows_of_len(x):
    n = len(x)
    return np.hanning(n) * x, np.hamming(n), np.blackman(n), np.bartlett(n), np.kaiser(n, 8.6)


def test_a_window_whose_length_depends_on_data_is_a_data_dependent_shape():
    # (was "[E100] numpy.hanning() is not supported on runtime arrays by tpucc")
    err = raises_at(hanning_of_count, (np.array([1.0, -1.0, 2.0]),), E.ShapeError,
                    match=r"np\.hanning: the window's length M depends on runtime values",
                    line_of="np.hanning(")
    assert "np.hanning(len(x))" in err.hint


@pytest.mark.parametrize("window", [np.hamming, np.blackman, np.bartlett])
def test_every_window_of_a_runtime_length_is_a_data_dependent_shape(window):
    with pytest.raises(E.ShapeError, match=rf"np\.{window.__name__}: the window's length"):
        tpucc.compile(window_of_count)(np.array([1.0, 2.0]), window)


def test_windows_of_a_static_length_are_numpys():
    check(windows_of_len, np.linspace(0, 1, 11), rtol=0, atol=0)


# --- np.fft errors name the function the user called --------------------------------------

def rfft_into(x):
    y = np.empty(9, complex)
    np.fft.rfft(x, out=y)
    return y


def ihfft_of(z):
    return np.fft.ihfft(z)


def rfftn_of(z):
    return np.fft.rfftn(z)


def test_an_fft_out_argument_is_refused_naming_np_fft():
    # (was "np.rfft(out=...)", a function NumPy does not have)
    err = raises_at(rfft_into, (np.ones(16),), E.UnsupportedError,
                    match=r"np\.fft\.rfft\(out=\.\.\.\) is not supported",
                    line_of="np.fft.rfft(x, out=y)")
    assert "out[...] = np.fft.rfft(...)" in err.hint


@pytest.mark.parametrize("fn, name, twin", [(ihfft_of, "ihfft", "ifft"),
                                            (rfftn_of, "rfftn", "fftn")])
def test_complex_input_to_a_real_transform_names_the_function_called(fn, name, twin):
    # (was "np.fft.rfft: ... (rfft's input is real)" for ihfft and rfftn)
    err = raises_at(fn, (np.ones((2, 8)) + 1j,), E.DTypeError,
                    match=rf"np\.fft\.{name}: .* \({name}'s input is real\)",
                    line_of=f"np.fft.{name}(z)")
    assert f"np.fft.{twin}" in err.hint


# --- loops unrolled for runtime-bounded slices warn, with advice about slices ---------------

def autocorrelation(x):
    n = len(x)
    r = np.zeros(40)
    xm = x - x.mean()
    for k in range(40):
        r[k] = np.dot(xm[:n - k], xm[k:])
    return r / r[0]


def autocorrelation_padded(x):          # the warning's advice, followed
    n = len(x)
    r = np.zeros(40)
    xm = x - x.mean()
    xp = np.concatenate([xm, np.zeros(40)])
    for k in range(40):
        r[k] = np.dot(xm, xp[k:k + n])
    return r / r[0]


from test_fixes_session36 import _lu_partial_pivoting as lu_pivoting  # noqa: E402


def lu_pivoting_masked(a):              # the warning's advice, followed
    n = a.shape[0]
    rows = np.arange(n)
    for i in range(n - 1):
        p = int(np.argmax(np.where(rows >= i, np.abs(a[:, i]), -1)))
        tmp = a[i].copy()
        a[i] = a[p]
        a[p] = tmp
        a -= np.outer(np.where(rows > i, a[:, i] / a[i, i], 0), a[i])
    return a


def _unroll_warnings(fn, *args) -> list:
    with warnings.catch_warnings(record=True) as found:
        warnings.simplefilter("always")
        tpucc.compile(fn).lower(*args)
    return [w for w in found if w.category is tpucc.UnrollWarning]


def shifted_columns(a):
    n = a.shape[1]
    for k in range(n - 1):          # columns of different runtime bounds paired
        a[:, k + 1:] += 0.01 * a[:, :n - k - 1]
    return a


def running_sorted_middle(x):
    r = np.zeros(40)
    for k in range(40):             # a sort of a runtime-length slice
        r[k] = np.sort(x[:k + 1])[k // 2]     # (np.median of it is a while: session 44A)
    return r


@pytest.mark.parametrize("fn, arg", [
    (running_sorted_middle, np.random.default_rng(0).standard_normal(300))])
def test_a_loop_unrolled_for_runtime_bounded_slices_warns_whatever_its_size(fn, arg):
    # (under the 1200-op threshold: no warning, while XLA took seconds on
    # such loops: 12 s for 40 lags of an autocorrelation, before it compiled
    # as one While)
    said = _unroll_warnings(fn, arg)
    assert len(said) == 1 and said[0].filename == __file__
    message = str(said[0].message)
    assert "each slicing arrays of its own shapes" in message and "not a list" not in message


@pytest.mark.parametrize("fn, ref, arg", [
    (autocorrelation_padded, autocorrelation, np.random.default_rng(1).standard_normal(300)),
    (lu_pivoting_masked, lu_pivoting, np.random.default_rng(1).random((40, 40)))])
def test_the_advice_about_slices_gives_one_while(fn, ref, arg):
    compiled = tpucc.compile(fn)
    np.testing.assert_allclose(compiled(arg.copy()), ref(arg.copy()), rtol=1e-9, atol=1e-12)
    assert count_hlo(hlo(compiled, arg.copy()), "while") == 1
    assert not _unroll_warnings(fn, arg.copy())


def dot_of_shifted_slices(x, k):
    return np.dot(x[:len(x) - k], x[k:])


def test_a_product_of_slices_with_different_bounds_pairs_their_rows():
    x = np.arange(8.0)
    compiled = tpucc.compile(dot_of_shifted_slices, runtime_args=("k",))
    assert compiled(x, 2) == dot_of_shifted_slices(x, 2)


def test_columns_of_different_runtime_bounds_pair_in_one_while():
    # (session 36: unrolled, with a warning; they pair in order since session 38)
    a = np.random.default_rng(0).random((40, 40))
    compiled = check(shifted_columns, a, rtol=1e-12)
    assert count_hlo(hlo(compiled, a), "while") == 1
