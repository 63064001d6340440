"""NumPy functions a breadth sweep found refused (E100) on runtime arrays
although their output shapes are static (session 15).  Each is compared
with eager NumPy, values and dtypes, over dtypes, shapes, axes, Python
scalars (NEP 50 weak typing) and the error cases."""
import re
import warnings

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at

FLOATS = [np.float16, np.float32, np.float64]
INTS = [np.int8, np.uint8, np.int32, np.int64]
REALS = [np.bool_, np.int32, np.int64, np.float32, np.float64]
SPECIAL = np.array([0.0, -0.0, 1.0, -1.5, np.inf, -np.inf, np.nan, 1e-30, 3.25, 6e4])


def exact(fn, *args, **kw):
    """check() with bit-exact float values (NaN equal to NaN)."""
    return check(fn, *args, rtol=0, atol=0, **kw)


# --- ufuncs: gcd lcm nextafter spacing ldexp frexp logaddexp2 ------------------------------------

def number_theory(a, b):
    return np.gcd(a, b), np.lcm(a, b), np.gcd(a, 6), np.lcm(4, b)


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm_including_the_extremes(dtype):
    info = np.iinfo(dtype)
    a = np.array([0, 6, 12, 7, 9, 1, 0], dtype)
    b = np.array([0, 4, 8, 7, 6, 1, 5], dtype)
    with np.errstate(all="ignore"):
        ext = np.array([info.min, info.max, info.min, 0, info.max], dtype)
        # ext: |min| wraps, as in NumPy
        if info.min < 0:
            exact(lambda a, b, e, f, n: (number_theory(a, b), number_theory(e, f),
                                         number_theory(n, b)), a, b, ext, ext[::-1], -a)
        else:
            exact(lambda a, b, e, f: (number_theory(a, b), number_theory(e, f)),
                  a, b, ext, ext[::-1])


def gcd_float(a):
    return np.gcd(a, a)


@pytest.mark.parametrize("x", [np.ones(2), np.ones(2, bool)])
def test_gcd_of_floats_and_bools_is_a_type_error(x):
    with pytest.raises(TypeError):
        gcd_float(x)
    raises_at(gcd_float, (x,), tpucc.errors.DTypeError, line_of="np.gcd")


def float_bits(x, y, n):
    return (np.nextafter(x, y), np.spacing(x), np.ldexp(x, n), np.frexp(x),
            np.logaddexp2(x, y), np.nextafter(x, 1), np.ldexp(x, 3))


@pytest.mark.parametrize("dtype", FLOATS)
def test_nextafter_spacing_ldexp_frexp_logaddexp2(dtype):
    x = SPECIAL.astype(dtype)
    y = np.array([1.0, -1.0, 0.0, np.inf, 0.0, np.nan, 1.0, -1.0, 3.25, np.inf], dtype)
    n = np.array([0, 1, -3, 200, -2000, 5, 1, 1, 0, 1], np.int32)
    with np.errstate(all="ignore"):
        # xs, ys, ns: NumPy scalars in, scalars out
        exact(lambda x, y, n, xs, ys, ns, n64, n8: (float_bits(x, y, n), float_bits(xs, ys, ns),
                                                    float_bits(x, y, n64), float_bits(x, y, n8)),
              x, y, n, x[3], y[3], n[3], n.astype(np.int64), n.astype(np.int8))


def test_spacing_of_every_float16():
    every = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)
    exact(np.spacing, every)


def ints_to_floats(a):
    return np.frexp(a), np.ldexp(a, 2), np.logaddexp2(a, a), np.spacing(a)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.int64])
def test_float_bit_ufuncs_of_integers(dtype):
    exact(ints_to_floats, np.array([0, 1, 5, 3], dtype))


def ldexp_float_exponent(x):
    return np.ldexp(x, 1.5)


def test_ldexp_with_a_float_exponent_is_a_type_error():
    with pytest.raises(TypeError):
        ldexp_float_exponent(np.ones(2))
    raises_at(ldexp_float_exponent, (np.ones(2),), tpucc.errors.DTypeError, line_of="np.ldexp")


# --- sinc / i0 --------------------------------------------------------------------------------

def sinc_i0(x):
    return np.sinc(x), np.i0(x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.bool_])
def test_sinc_and_i0(dtype):
    x = np.array([0, 1, -2, 3, 0.5, -7.75, 8, 8.5, 30, -100], np.float64)
    if np.dtype(dtype).kind != "f":
        x = np.trunc(x)
    x = x.astype(dtype)
    with np.errstate(all="ignore"):
        # NumPy's own expressions op for op: sin, exp and sqrt are XLA's, a few ulps off libm
        # float16: XLA's float16 arithmetic depends on the CPU (a CPU with
        # AVX512-FP16 contracts the Chebyshev series' a*b - c + v differently)
        rtol = 4e-3 if dtype is np.float16 else 2e-6 if dtype is np.float32 else 1e-14
        if rtol == max(rtol, 1e-6):
            check(lambda x, x4: (sinc_i0(x), sinc_i0(x4)), x, x[4], rtol=rtol, atol=0)
        else:
            check(sinc_i0, x, rtol=rtol, atol=0)
            check(sinc_i0, x[4], rtol=max(rtol, 1e-6), atol=0)


# --- where= and initial= of the reductions ----------------------------------------------------

def masked_reductions(x, m):
    return (np.sum(x, where=m), np.sum(x, axis=0, where=m), np.prod(x, axis=1, where=m),
            np.max(x, axis=0, where=m, initial=-5), np.min(x, where=m, initial=100),
            np.any(x, axis=1, where=m), np.all(x, where=m), np.mean(x, where=m),
            np.mean(x, axis=1, where=m, keepdims=True), np.sum(x, initial=10),
            np.prod(x, axis=0, initial=2), np.max(x, initial=3), np.min(x, axis=1, initial=-1),
            x.sum(axis=1, where=m), x.max(where=m, initial=0))


@pytest.mark.parametrize("dtype", REALS + [np.int8, np.float16])
def test_reductions_with_where_and_initial(dtype):
    rng = np.random.default_rng(0)
    x = (rng.integers(-4, 5, (3, 4)) / (2 if np.dtype(dtype).kind == "f" else 1)).astype(dtype)
    m = rng.random((3, 4)) < 0.6
    m[1] = False        # an all-masked row: identity, initial, NaN mean
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")     # NumPy warns about the empty mean
        # float16 means: NumPy's pairwise order vs XLA's tree, in float32
        if dtype is np.float16:
            check(masked_reductions, x, m, rtol=1e-3)
            check(masked_reductions, x, m[0])           # a mask that broadcasts
        else:
            check(lambda x, m, m0: (masked_reductions(x, m), masked_reductions(x, m0)),
                  x, m, m[0])                           # m0: a mask that broadcasts


def masked_empty(x):
    return np.max(x, axis=0, initial=1.5), np.sum(x, axis=1, initial=2), np.min(
        x, initial=-1.0, where=False)


def test_initial_of_empty_reductions():
    check(masked_empty, np.zeros((0, 3)))


def max_where_without_initial(x):
    return np.max(x, where=x > 0)


def mean_initial(x):
    return np.mean(x, initial=1)


def int_mask(x):
    return np.sum(x, where=np.ones(x.shape, np.int64))


def test_where_and_initial_errors():
    x = np.ones(3)
    for fn, kind, match in [(max_where_without_initial, tpucc.errors.UserCodeError, "identity"),
                            (mean_initial, tpucc.errors.UserCodeError, "initial"),
                            (int_mask, tpucc.errors.UserCodeError, "Cannot cast")]:
        with pytest.raises((ValueError, TypeError)):
            fn(x)
        raises_at(fn, (x,), kind, match=match, line_of="return np.")


# --- ptp / nanvar / nanstd / nancumsum / nancumprod ----------------------------------------------

def ranges(x):
    return np.ptp(x), np.ptp(x, axis=0), np.ptp(x, axis=-1, keepdims=True)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.float32, np.float64])
def test_ptp(dtype):
    x = np.array([[100, -100, 3], [7, 8, 9]]).astype(dtype)    # int8: the range wraps
    exact(lambda x, x0: (ranges(x), ranges(x0)), x, x[0, 0])


def bool_ptp(x):
    return np.ptp(x)


def test_ptp_of_bools_is_a_type_error():
    with pytest.raises(TypeError):
        bool_ptp(np.ones(2, bool))
    raises_at(bool_ptp, (np.ones(2, bool),), tpucc.errors.DTypeError, line_of="np.ptp")


def nan_moments(x):
    return (np.nanvar(x), np.nanstd(x, axis=0), np.nanvar(x, axis=1, ddof=1, keepdims=True),
            np.nanstd(x, axis=1, ddof=3), np.nanvar(x, dtype=np.float64),
            np.nancumsum(x), np.nancumsum(x, axis=0), np.nancumprod(x, axis=1),
            np.nanmean(x, axis=0), np.nansum(x, axis=1), np.nanmax(x), np.nanmin(x, axis=1))


@pytest.mark.parametrize("dtype", REALS + [np.float16])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")     # all-NaN slices, dof <= 0
def test_nan_moments(dtype):
    x = np.array([[1.5, np.nan, 3.0, -2.0], [np.nan, np.nan, np.nan, np.nan],
                  [4.0, 0.25, np.nan, 8.0]])
    if np.dtype(dtype).kind != "f":
        x = np.nan_to_num(x, nan=2)
    x = x.astype(dtype)
    tol = 2e-3 if dtype is np.float16 else 1e-6      # summation order: XLA's tree, NumPy's pairs
    check(lambda x, z: (nan_moments(x), nan_moments(z)), x,
          x + 1j * x if np.dtype(dtype).kind == "f" and dtype is not np.float16 else x,
          rtol=tol, atol=tol)


# --- average ---------------------------------------------------------------------------------

def averages(a, w):
    return (np.average(a), np.average(a, axis=0), np.average(a, weights=w),
            np.average(a, axis=1, weights=w[0], returned=True),
            np.average(a, axis=(0, 1), weights=w, keepdims=True),
            np.average(a, returned=True), np.average(a, axis=1, returned=True, keepdims=True))


@pytest.mark.parametrize("dtype", REALS)
def test_average(dtype):
    a = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    w = np.arange(12).reshape(3, 4) % 3 + 1
    check(lambda a, wi, wf: (averages(a, wi), averages(a, wf)), a, w.astype(np.int64),
          w.astype(np.float32))


def weights_summing_to_zero(a, w):
    return np.average(a, weights=w)


def weights_of_another_shape(a, w):
    return np.average(a, weights=w)


def test_average_errors():
    a, w = np.ones(3), np.array([1.0, -1.0, 0.0])
    with pytest.raises(ZeroDivisionError):
        weights_summing_to_zero(a, w)
    raises_at(weights_summing_to_zero, (a, w), ZeroDivisionError, match="Weights sum to zero",
              line_of="np.average")
    raises_at(weights_of_another_shape, (np.ones((2, 3)), np.ones(3)),
              tpucc.errors.UserCodeError, match="Axis must be specified",
              line_of="np.average")


# --- select ----------------------------------------------------------------------------------

def selected(x, y):
    return (np.select([x < 0, x > 2], [x, y]), np.select([x < 0, x > 2], [x, 2 * x], 5.5),
            np.select([x > 1], [y], default=y[0]), np.select([x < 1, x >= 1], [1, 2]),
            np.select([x > 0], [0.5]))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.float32, np.float64])
def test_select(dtype):
    x = np.array([[-1, 0, 1, 2, 3, 4]]).astype(dtype)
    y = np.arange(6).astype(np.float32)
    check(lambda x, x0, y: (selected(x, y), selected(x0, y)), x, x[0, 4], y)


def select_int_condition(x):
    return np.select([x], [x])


def select_mismatched(x):
    return np.select([x > 0, x < 0], [x])


def test_select_errors():
    for fn, match in [(select_int_condition, "invalid entry 0"),
                      (select_mismatched, "same length")]:
        with pytest.raises((TypeError, ValueError)):
            fn(np.arange(3))
        raises_at(fn, (np.arange(3),), tpucc.errors.UserCodeError, match=match,
                  line_of="np.select")


# --- trapezoid / gradient / ediff1d / unwrap ----------------------------------------------------

def integrals(y, x):
    return (np.trapezoid(y), np.trapezoid(y, dx=0.5), np.trapezoid(y, x=x, axis=1),
            np.trapezoid(y, axis=0), np.trapezoid(y, dx=2))


@pytest.mark.parametrize("dtype", REALS + [np.float16])
def test_trapezoid(dtype):
    y = (np.arange(12).reshape(3, 4) % 5 - 1).astype(dtype)
    x = np.array([0.0, 0.5, 2.0, 3.0], np.float32)
    check(integrals, y, x, rtol=1e-3 if dtype is np.float16 else 1e-6)


def gradients(f):
    return (np.gradient(f), np.gradient(f, 0.5), np.gradient(f, axis=1),
            np.gradient(f, 2.0, 1.0, edge_order=2), np.gradient(f, axis=(0,), edge_order=2),
            np.gradient(f, np.float64(0.25), axis=-1))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.float16, np.float32,
                                   np.float64])
def test_gradient(dtype):
    f = (np.arange(20).reshape(4, 5) ** 2 % 7).astype(dtype)
    check(gradients, f, rtol=1e-3 if dtype is np.float16 else 1e-6)


def gradient_1d(f):
    return np.gradient(f), np.gradient(f, 3, edge_order=2)


def test_gradient_1d_and_errors():
    check(lambda f, g: (gradient_1d(f), gradient_1d(g)), np.array([1.0, 4.0, 9.0, 16.0]),
          np.array([1.0, 4.0, 9.0]))
    with pytest.raises(ValueError):
        gradient_1d(np.array([1.0, 2.0]))
    raises_at(gradient_1d, (np.array([1.0, 2.0]),), tpucc.errors.UserCodeError,
              match="too small", line_of="np.gradient(f, 3")
    with pytest.raises(TypeError):
        gradient_1d(np.ones(3, bool))
    raises_at(gradient_1d, (np.ones(3, bool),), tpucc.errors.DTypeError,
              line_of="return np.gradient")


def differences(a):
    return (np.ediff1d(a), np.ediff1d(a, to_begin=0), np.ediff1d(a, to_end=[7, 8], to_begin=-1),
            np.ediff1d(a[:1]), np.ediff1d(a, to_end=np.array([[5]], np.int8)))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64, np.float32, np.float64])
def test_ediff1d(dtype):
    check(differences, np.array([[1, 5, 2], [9, 0, 3]], dtype))


def ediff_float_begin(a):
    return np.ediff1d(a, to_begin=1.5)


def test_ediff1d_casting_error():
    with pytest.raises(TypeError):
        ediff_float_begin(np.arange(3))
    raises_at(ediff_float_begin, (np.arange(3),), tpucc.errors.UserCodeError,
              match="same_kind", line_of="np.ediff1d")


def unwrapped(p):
    return (np.unwrap(p), np.unwrap(p, axis=0), np.unwrap(p, discont=4.0),
            np.unwrap(p, period=6), np.unwrap(p, period=360.0))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_unwrap(dtype):
    p = np.array([[0, 3, 7, 2, -5, 9], [1, -1, 4, 4, 12, 0]]).astype(dtype)
    if np.dtype(dtype).kind == "f":
        p = p * 0.9
    # the corrections' running sum: XLA's scan order vs NumPy's left to right
    check(unwrapped, p, rtol=1e-6, atol=1e-5)


# --- interp ---------------------------------------------------------------------------------

def interpolated(x, xp, fp):
    return (np.interp(x, xp, fp), np.interp(x, xp, fp, left=-1, right=99.5),
            np.interp(x, xp, fp, period=4), np.interp(2.5, xp, fp), np.interp(x, xp[:1], fp[:1]))


@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64])
def test_interp(dtype):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.25, 3.0, 4.0, 7.0, np.nan, np.inf, -np.inf])
    xp = np.array([0, 1, 2, 3, 4]).astype(dtype)
    fp = np.array([1.0, 3.0, np.inf, 2.0, -4.0]).astype(dtype if dtype is not np.int32
                                                          else np.float64)
    with np.errstate(all="ignore"):
        exact(lambda x, xp, fp, x2, fp2: (interpolated(x, xp, fp), interpolated(x2, xp, fp2)),
              x, xp, fp, x.astype(dtype) if dtype is not np.int32 else x[:8].astype(dtype),
              fp[::-1])


# --- cross / vander / polyval / convolve -----------------------------------------------------------

def crosses(a, b):
    return np.cross(a, b), np.cross(a, b, axis=0), np.cross(a.T, b, axisa=0)


def crosses_with_2_vectors(a, b):
    return np.cross(a[:, :2], b), np.cross(a, b[:, :2])


def numpy_error(fn, *args):
    """NumPy's ValueError for these arguments, or None (2-vectors: deprecated
    in NumPy 2.0, refused by later versions)."""
    try:
        fn(*args)
    except ValueError as e:
        return str(e)
    return None


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.float32, np.float64])
@pytest.mark.filterwarnings("ignore::DeprecationWarning")      # NumPy's, for 2-vectors
def test_cross(dtype):
    a = np.array([[1, 2, 3], [4, -5, 6], [0, 1, -1]]).astype(dtype)
    b = np.array([[7, 8, 9], [1, 0, 2], [3, 3, 3]]).astype(dtype)
    message = numpy_error(crosses_with_2_vectors, a, b)
    if message is None:
        exact(lambda a, b: (crosses(a, b), crosses_with_2_vectors(a, b)), a, b)
    else:
        exact(crosses, a, b)
        raises_at(crosses_with_2_vectors, (a, b), tpucc.errors.UserCodeError,
                  match=re.escape(message), line_of="return np.cross(a[:, :2], b)")


def cross_2d(a, b):
    return np.cross(a, b), np.cross(a[0], b[0])


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_cross_of_2_vectors_and_errors():
    a, b = np.array([[1.0, 2.0], [3.0, 4.5]]), np.array([[0.5, 2.0], [1.0, 1.0]])
    message = numpy_error(cross_2d, a, b)
    if message is None:
        exact(cross_2d, a, b)
    else:
        raises_at(cross_2d, (a, b), tpucc.errors.UserCodeError, match=re.escape(message),
                  line_of="return np.cross(a, b)")
    message = numpy_error(crosses, np.ones((3, 4)), np.ones((3, 4)))
    assert message is not None
    raises_at(crosses, (np.ones((3, 4)), np.ones((3, 4))), tpucc.errors.UserCodeError,
              match=re.escape(message), line_of="return np.cross(a, b)")


def vanders(x):
    return np.vander(x), np.vander(x, 3), np.vander(x, 5, increasing=True), np.vander(x, 0)


@pytest.mark.parametrize("dtype", REALS + [np.int8])
def test_vander(dtype):
    x = (np.array([1, 2, 3, 0, 5]).astype(dtype) if dtype is not np.bool_ else
         np.array([True, False, True]))
    if np.dtype(dtype).kind == "f":
        exact(lambda x, y: (vanders(x), vanders(y)), x, np.array([0.1, -1.7, 3.3], dtype))
    else:
        exact(vanders, x)


def polyvals(p, x):
    return np.polyval(p, x), np.polyval(p, 2.5), np.polyval([1.5, -2, 3], x), np.polyval(p[:0], x)


@pytest.mark.parametrize("dtype", REALS)
def test_polyval(dtype):
    p = np.array([3, 0, -2, 1]).astype(dtype)
    x = np.array([[0.1, -1.7], [3.3, 2.0]], np.float32)
    # XLA:CPU contracts y * x + p into one fused multiply-add (one rounding,
    # NumPy's two): the last bit may differ
    check(polyvals, p, x, rtol=1e-15 if dtype in (np.int32, np.int64, np.float64) else 2e-7,
          atol=0)
    exact(polyvals, p, x.astype(np.int64))


def convolutions(a, v):
    return (np.convolve(a, v), np.convolve(a, v, "same"), np.convolve(a, v, mode="valid"),
            np.convolve(v, a, "same"), np.convolve(a, 2), np.convolve(a[:1], v, "valid"))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int32, np.int64, np.float16,
                                   np.float32, np.float64])
def test_convolve(dtype):
    a = np.array([1, 0, 2, 3, 1, 1, 5]).astype(dtype)
    v1, v2, v3, v4 = (np.array([1, 2, 1, 3])[:m].astype(dtype) for m in (1, 2, 3, 4))
    check(lambda a, v1, v2, v3, v4: tuple(convolutions(a, v) for v in (v1, v2, v3, v4)),
          a, v1, v2, v3, v4, rtol=1e-3 if dtype is np.float16 else 1e-6)


def convolve_empty(a):
    return np.convolve(a, a[:0])


def test_convolve_errors():
    with pytest.raises(ValueError):
        convolve_empty(np.ones(3))
    raises_at(convolve_empty, (np.ones(3),), tpucc.errors.UserCodeError,
              match="v cannot be empty", line_of="np.convolve")


# --- isin / lexsort -----------------------------------------------------------------------------

def membership(e, t):
    return (np.isin(e, t), np.isin(e, t, invert=True), np.isin(e, [1, 2]), np.isin(e[0, 0], t),
            np.isin(e, t, kind="sort"))


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.int64, np.float32,
                                   np.float64])
def test_isin(dtype):
    e = np.array([[1, 2, 3], [0, 5, 2]]).astype(dtype)
    t = np.array([2, 5, 7, 2]).astype(dtype)
    check(lambda e, t, tf, ti: (membership(e, t), membership(e, tf), membership(e, ti)),
          e, t, np.array([np.nan, 2.5, 1.0]), np.array([-1, 3], np.int64))


def lexsorted(a, b):
    return np.lexsort((a, b)), np.lexsort([b, a]), np.lexsort(np.stack([a, b])), np.lexsort(
        (a.reshape(2, 3), b.reshape(2, 3)), axis=0), np.lexsort(a)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.float32, np.float64])
def test_lexsort(dtype):
    a = np.array([1, 0, 1, 0, 2, 1]).astype(dtype)
    b = np.array([3, 3, 1, 1, 0, 3]).astype(dtype)
    if np.dtype(dtype).kind == "f":
        exact(lambda a, b, n: (lexsorted(a, b), lexsorted(n, b)), a, b,
              np.array([np.nan, 0, 1, np.nan, -0.0, 0.0], dtype))
    else:
        exact(lexsorted, a, b)


# --- histogram / histogram_bin_edges -------------------------------------------------------------

def histograms(a, w):
    return (np.histogram(a), np.histogram(a, bins=4, range=(0, 10)),
            np.histogram(a, 3, range=(-1.5, 2.25), density=True),
            np.histogram(a, bins=5, weights=w), np.histogram(a, 7, density=True, weights=w),
            np.histogram_bin_edges(a, 6), np.histogram_bin_edges(a, 3, range=(2, 2)))


def edge_histograms(a):
    return np.histogram(a), np.histogram(a, bins=4, range=(0, 10)), np.histogram(a, 7)


@pytest.mark.parametrize("dtype", [np.bool_, np.int64, np.float16, np.float64])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # NumPy: bool converted to uint8
def test_histogram(dtype):
    rng = np.random.default_rng(15)
    a = (rng.normal(size=(4, 25)) * 4 + 3)
    a = (a > 3 if dtype is np.bool_ else a.astype(dtype) if np.dtype(dtype).kind == "f"
         else np.clip(np.round(a), 0, 100).astype(dtype))
    w = rng.random((4, 25))
    # the weights are summed in scatter-add order; the edges are exact; c: min == max
    check(lambda a, w, c, o: (histograms(a, w), histograms(c, o)), a, w,
          np.full(5, 3).astype(dtype), np.ones(5, np.int64), rtol=1e-12, atol=1e-12)
    if dtype is np.float64:         # float32 weights: float32 sums and densities
        check(histograms, a, w.astype(np.float32), rtol=1e-6)
    edges = tpucc.compile(np.histogram_bin_edges)(a)
    assert np.array_equal(edges, np.histogram_bin_edges(a))
    grid = np.arange(40).astype(dtype) / (4 if np.dtype(dtype).kind == "f" else 1)
    exact(edge_histograms, grid)                # values on the edges: NumPy's bins


def histogram_of_nan(a):
    return np.histogram(a)


def test_histogram_of_a_non_finite_range_is_a_runtime_value_error():
    with pytest.raises(ValueError):
        histogram_of_nan(np.array([1.0, np.nan]))
    raises_at(histogram_of_nan, (np.array([1.0, np.nan]),), ValueError, match="not finite",
              line_of="np.histogram")
    check(histogram_of_nan, np.array([1.0, 2.0]))       # the check passes


def histogram_auto_bins(a):
    return np.histogram(a, bins="auto")


def histogram_bad_range(a):
    return np.histogram(a, range=(3, 1))


def test_histogram_errors():
    raises_at(histogram_auto_bins, (np.ones(3),), tpucc.errors.UnsupportedError,
              match="static integer number of bins", line_of="np.histogram")
    with pytest.raises(ValueError):
        histogram_bad_range(np.ones(3))
    raises_at(histogram_bad_range, (np.ones(3),), tpucc.errors.UserCodeError,
              match="max must be larger", line_of="np.histogram")


# --- refused: results whose length depends on the values -----------------------------------------

def uniques(x):
    return np.unique(x)


def nonzeros(x):
    return np.nonzero(x > 0)


def nonzero_method(x):
    return (x > 0).nonzero()


def argwheres(x):
    return np.argwhere(x)


def flatnonzeros(x):
    return np.flatnonzero(x)


@pytest.mark.parametrize("fn,name", [(uniques, "np.unique"), (nonzeros, "np.nonzero"),
                                     (nonzero_method, "np.nonzero"), (argwheres, "np.argwhere"),
                                     (flatnonzeros, "np.flatnonzero")])
def test_data_dependent_lengths_are_refused_with_what_to_do(fn, name):
    err = raises_at(fn, (np.array([1.0, 0.0, 2.0]),), tpucc.errors.UnsupportedError,
                    match=f"{name} of a runtime array .* depends on the values",
                    line_of="return ")
    assert "known" in str(err)      # the hint: what compiles instead


def first_positions(cond):
    # the replacement the hints suggest: the first K positions where cond holds
    return np.argsort(~cond, kind="stable")[:2], np.count_nonzero(cond)


def test_the_suggested_nonzero_replacement_compiles():
    check(first_positions, np.array([False, True, False, True, True]))
