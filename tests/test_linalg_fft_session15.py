"""np.linalg decompositions (eigh eigvalsh svd qr slogdet eig eigvals lstsq
pinv matrix_rank cond matrix_power, norm ord 2/-2/'nuc'), np.polyfit,
np.vander and np.fft, refused (E100) on runtime arrays before session 15.

Each program runs eagerly with NumPy and compiled; values and dtypes are
compared.  Eigenvectors and singular vectors are defined up to a sign (a
phase): LAPACK builds pick differently, so programs return what does not
depend on the pick (A @ v - v * w, U @ diag(s) @ Vh, U^H U) and the
eigen/singular values themselves."""
import numpy as np
import pytest

import tpucc
from conftest import check, raises_at

FLOATS = [np.float32, np.float64, np.complex64, np.complex128]
ALL = FLOATS + [np.int64, np.int32]


def rotated(dtypes, variants, per=2):
    """(dtype, variant) pairs where each dtype meets `per` variants, rotating
    from dtype to dtype, so every variant meets several dtypes: the product
    compiles every pair (XLA's time, not coverage)."""
    return [(d, variants[(i + j) % len(variants)]) for i, d in enumerate(dtypes)
            for j in range(per)]


SHAPES = [(4, 4), (5, 3), (3, 5), (2, 4, 3)]


def tol(dtype):
    single = np.dtype(dtype) in (np.dtype(np.float32), np.dtype(np.complex64))
    return dict(rtol=2e-4, atol=2e-5) if single else dict(rtol=1e-10, atol=1e-11)


def matrices(*shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-4, 5, shape).astype(dtype)
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def hermitian(*shape, dtype=np.float64, seed=0):
    a = matrices(*shape, dtype=dtype, seed=seed)
    return a + np.conj(np.swapaxes(a, -1, -2))


# --- eigh / eigvalsh ------------------------------------------------------------------------

def eigh_residual(a):
    w, v = np.linalg.eigh(a)
    eye = np.eye(a.shape[-1])
    return w, a @ v - v * w[..., None, :], np.conj(np.swapaxes(v, -1, -2)) @ v - eye


def eigh_upper(a):
    r = np.linalg.eigh(a, UPLO="U")
    return r.eigenvalues, np.linalg.eigvalsh(a, "U"), np.linalg.eigvalsh(a)


@pytest.mark.parametrize("dtype", ALL)
def test_eigh(dtype):
    check(lambda a, b: (eigh_residual(a), eigh_residual(b)), hermitian(4, 4, dtype=dtype),
          hermitian(2, 3, 5, 5, dtype=dtype), **tol(dtype))      # and batched


@pytest.mark.parametrize("dtype", FLOATS)
def test_eigh_reads_one_triangle(dtype):
    check(eigh_upper, matrices(3, 4, 4, dtype=dtype), **tol(dtype))     # not hermitian


def eigh_result_type(a):
    r = np.linalg.eigh(a)
    return r, type(r).__name__


def test_eigh_returns_numpy_result_type_and_empty():
    check(lambda a: type(np.linalg.eigh(a)).__name__, np.eye(2))
    check(lambda a: np.linalg.eigh(a), np.zeros((0, 0)))
    check(lambda a: np.linalg.eigvalsh(a), np.zeros((2, 0, 0), np.float32))


# --- svd ------------------------------------------------------------------------------------

def svd_parts(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    k = s.shape[-1]
    return (s, (u * s[..., None, :]) @ vh,
            np.conj(np.swapaxes(u, -1, -2)) @ u - np.eye(k),
            vh @ np.conj(np.swapaxes(vh, -1, -2)) - np.eye(k))


def svd_full(a):
    r = np.linalg.svd(a)
    m, n = a.shape[-2:]
    return (r.U.shape, r.S, r.Vh.shape, np.conj(np.swapaxes(r.U, -1, -2)) @ r.U - np.eye(m),
            np.conj(np.swapaxes(r.Vh, -1, -2)) @ r.Vh - np.eye(n), type(r).__name__)


def singular_values(a):
    return np.linalg.svd(a, compute_uv=False), np.linalg.svd(a, False, False)


@pytest.mark.parametrize("dtype, shape", rotated(ALL, SHAPES))
def test_svd(dtype, shape):
    a = matrices(*shape, dtype=dtype)
    check(lambda a: (svd_parts(a), singular_values(a)), a, **tol(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.complex64])
def test_svd_full_matrices(dtype):
    check(lambda a, b: (svd_full(a), svd_full(b)), matrices(5, 3, dtype=dtype),
          matrices(2, 3, 4, dtype=dtype), **tol(dtype))


def svd_hermitian(a):
    u, s, vh = np.linalg.svd(a, hermitian=True)
    return s, (u * s[..., None, :]) @ vh, np.linalg.svd(a, compute_uv=False, hermitian=True)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128])
def test_svd_hermitian(dtype):
    check(svd_hermitian, hermitian(2, 4, 4, dtype=dtype), **tol(dtype))


def test_svd_of_empty_matrices():
    check(lambda a: np.linalg.svd(a), np.zeros((0, 3)))
    check(lambda a: np.linalg.svd(a, full_matrices=False), np.zeros((2, 3, 0)))


# --- qr -------------------------------------------------------------------------------------

def qr_parts(a):
    q, r = np.linalg.qr(a)
    qc, rc = np.linalg.qr(a, mode="complete")
    m = a.shape[-2]
    return (q @ r, np.abs(r), np.conj(np.swapaxes(q, -1, -2)) @ q, qc @ rc, rc.shape,
            np.conj(np.swapaxes(qc, -1, -2)) @ qc - np.eye(m),
            np.abs(np.linalg.qr(a, mode="r")), type(np.linalg.qr(a)).__name__)


@pytest.mark.parametrize("dtype, shape", rotated(ALL, SHAPES))
def test_qr(dtype, shape):
    check(qr_parts, matrices(*shape, dtype=dtype), **tol(dtype))


# --- slogdet, matrix_power ------------------------------------------------------------------

def sign_and_log(a):
    sign, logdet = np.linalg.slogdet(a)
    r = np.linalg.slogdet(a)
    return sign, logdet, r.logabsdet, type(r).__name__


@pytest.mark.parametrize("dtype", ALL)
def test_slogdet(dtype):
    check(lambda a, b: (sign_and_log(a), sign_and_log(b)), matrices(4, 4, dtype=dtype),
          matrices(3, 4, 4, dtype=dtype), **tol(dtype))      # NumPy scalars, and batched


def test_slogdet_of_singular_and_empty_matrices():
    check(lambda a, b: (sign_and_log(a), sign_and_log(b)), np.ones((3, 3)), np.zeros((2, 0, 0)))


def powers(a):
    return tuple(np.linalg.matrix_power(a, n) for n in (0, 1, 2, 3, 4, 5, 11))


def negative_powers(a):
    return tuple(np.linalg.matrix_power(a, n) for n in (-1, -2, -5))


@pytest.mark.parametrize("dtype", ALL + [np.int8, np.bool_])
def test_matrix_power(dtype):
    a = matrices(2, 3, 3, dtype=dtype) if dtype != np.bool_ else np.eye(3, k=1) > 0
    if np.dtype(dtype).kind in "iu":
        a = a % 2
    check(powers, a, **tol(dtype))      # integers exact (and wrapping as NumPy's)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int64])
def test_matrix_power_negative(dtype):
    a = matrices(3, 3, dtype=dtype) + 6 * np.eye(3, dtype=dtype)
    check(negative_powers, a, **tol(dtype))


def power_one_aliases(a):
    b = np.linalg.matrix_power(a, 1)
    b[0, 0] = 7.0
    return a


def test_matrix_power_one_is_the_matrix_itself():
    check(power_one_aliases, np.ones((2, 2)))


# --- pinv, lstsq, matrix_rank, cond ---------------------------------------------------------

def pinvs(a):
    return (np.linalg.pinv(a), np.linalg.pinv(a, rcond=1e-3), np.linalg.pinv(a, rtol=None),
            np.linalg.pinv(a, rtol=0.5))


@pytest.mark.parametrize("dtype", FLOATS + [np.int64])
def test_pinv(dtype):
    shaped = [matrices(*shape, dtype=dtype) for shape in [(4, 4), (5, 3), (3, 5), (2, 4, 3)]]
    if np.dtype(dtype).kind == "i":      # NumPy's rtol=None reads finfo(a.dtype)
        check(lambda a, b, c, d: tuple(np.linalg.pinv(m) for m in (a, b, c, d)), *shaped)
        return
    check(lambda a, b, c, d: tuple(pinvs(m) for m in (a, b, c, d)), *shaped, **tol(dtype))


def test_pinv_rank_deficient_hermitian_and_empty():
    a = np.outer(np.arange(1.0, 5.0), np.arange(1.0, 4.0))     # rank 1
    check(lambda a: np.linalg.pinv(a), a)
    h = hermitian(3, 3)
    check(lambda a: np.linalg.pinv(a, hermitian=True), h)
    check(lambda a, r: np.linalg.pinv(a, r), matrices(2, 3, 3), np.array([1e-15, 0.9]))
    check(lambda a: np.linalg.pinv(a), np.zeros((0, 3), np.int32))


def solve_least_squares(a, b):
    return np.linalg.lstsq(a, b)


@pytest.mark.parametrize("dtype, sizes", rotated(
    ALL, [(m, n, k) for m, n in [(6, 3), (3, 3), (3, 5)] for k in (None, 2)]))
def test_lstsq(dtype, sizes):
    m, n, k = sizes
    a = matrices(m, n, dtype=dtype)
    b = matrices(m, dtype=dtype, seed=1) if k is None else matrices(m, k, dtype=dtype, seed=1)
    check(solve_least_squares, a, b, **tol(dtype))     # rank: np.int32, residuals as NumPy


def test_lstsq_rcond_and_rank_deficient_underdetermined():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])    # rank 1, M < N: residuals empty
    check(solve_least_squares, a, np.array([1.0, 2.0]))
    check(lambda a, b: np.linalg.lstsq(a, b, rcond=0.5), matrices(3, 5), matrices(3))
    check(lambda a, b: np.linalg.lstsq(a, b, rcond=1e-3), matrices(5, 3), matrices(5))
    check(lambda a, b: np.linalg.lstsq(a, b, rcond=None), matrices(5, 3), matrices(5, 0))


def test_lstsq_rank_deficient_overdetermined_raises_at_run_time():
    """NumPy's residuals are then empty (a shape known only at run time): the
    compiled call says so when it returns."""
    a = np.ones((4, 2))
    assert np.linalg.lstsq(a, np.ones(4))[1].shape == (0,)
    raises_at(solve_least_squares, (a, np.ones(4)), ValueError, match="rank < 2",
              line_of="np.linalg.lstsq(a, b)")
    check(solve_least_squares, matrices(4, 2), np.ones(4))     # full rank: the same program


def ranks(a):
    return (np.linalg.matrix_rank(a), np.linalg.matrix_rank(a, tol=0.5),
            np.linalg.matrix_rank(a, rtol=0.3), np.linalg.matrix_rank(a, hermitian=False))


@pytest.mark.parametrize("dtype", ALL)
def test_matrix_rank(dtype):
    a = matrices(3, 4, 5, dtype=dtype)
    a[1, :, 2] = a[1, :, 0] * 2             # rank 3
    a[2] = 0                                # rank 0
    check(lambda a, a0, h: (ranks(a), ranks(a0), np.linalg.matrix_rank(h, hermitian=True)),
          a, a[0], hermitian(4, 4, dtype=dtype), **tol(dtype))     # a[0]: an np.int64 scalar


def test_matrix_rank_of_vectors_is_a_python_int():
    check(lambda x, z: (np.linalg.matrix_rank(x), np.linalg.matrix_rank(z)),
          np.array([0.0, 0.0, 1.0]), np.zeros(3))


def conditions(a):
    return tuple(np.linalg.cond(a, p) for p in (None, 2, -2, "fro", "nuc", 1, -1, np.inf,
                                                -np.inf))


@pytest.mark.parametrize("dtype", ALL)
def test_cond(dtype):
    check(lambda a, b, c: (conditions(a), conditions(b), np.linalg.cond(c)),
          matrices(4, 4, dtype=dtype) + 4 * np.eye(4, dtype=dtype),
          matrices(2, 3, 3, dtype=dtype) + 4 * np.eye(3, dtype=dtype),
          matrices(5, 3, dtype=dtype), **tol(dtype))


def singular_conditions(a):
    return np.linalg.cond(a, 1), np.linalg.cond(a)


def test_cond_of_singular_matrix_is_inf():
    """cond(a, 1) of a singular matrix is inf; the 2-norm's is the ratio of
    the largest singular value to a rounding error, which LAPACK builds
    (NumPy's, XLA's) make differently: only its magnitude compares."""
    a = np.ones((3, 3))
    expected, actual = singular_conditions(a), tpucc.compile(singular_conditions)(a)
    assert np.isinf(expected[0]) and np.isinf(actual[0])
    assert expected[1] > 1e15 and actual[1] > 1e15
    assert type(actual[1]) is type(expected[1])


def svd_norms(a):
    m = a[0]
    return (np.linalg.norm(m, 2), np.linalg.norm(m, -2), np.linalg.norm(m, "nuc"),
            np.linalg.norm(a, 2, axis=(0, 2)), np.linalg.norm(a, -2, axis=(2, 1)),
            np.linalg.norm(a, "nuc", axis=(2, 1), keepdims=True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_norm_by_singular_values(dtype):
    check(svd_norms, matrices(2, 4, 3, dtype=dtype), **tol(dtype))


def complex_norms(x, m):
    return (np.linalg.norm(x), np.linalg.norm(x, 1), np.linalg.norm(x, 0), np.linalg.norm(x, 3),
            np.linalg.norm(x, np.inf), np.linalg.norm(x, 2, keepdims=True),
            np.linalg.norm(m), np.linalg.norm(m, "fro"), np.linalg.norm(m, 1),
            np.linalg.norm(m, -np.inf), np.linalg.norm(m, 2), np.linalg.norm(m, "nuc"),
            np.linalg.norm(m, axis=1), np.linalg.norm(m, "fro", axis=(1, 0), keepdims=True))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_norm_of_complex_arrays(dtype):
    check(lambda x, m, t: (complex_norms(x, m), np.linalg.norm(t, axis=(0, 2))),
          matrices(5, dtype=dtype), matrices(2, 3, 4, dtype=dtype)[0],
          matrices(2, 3, 4, dtype=dtype), **tol(dtype))


# --- eig / eigvals: complex matrices compile, real ones are refused ------------------------

def eig_residual(a):
    w, v = np.linalg.eig(a)
    return a @ v - v * w[..., None, :], np.abs(np.linalg.eigvals(a)).sum(-1)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_eig_of_complex_matrices(dtype):
    check(lambda a, b: (eig_residual(a), type(np.linalg.eig(b)).__name__),
          matrices(2, 4, 4, dtype=dtype), matrices(3, 3, dtype=dtype), **tol(dtype))


def eig_of_real(a):
    return np.linalg.eigvals(a)


def eig_of_real_as_complex(a):
    return np.linalg.eigvals(a.astype(complex)).real.sum()


def test_eig_of_real_matrices_is_refused_with_the_way_out():
    err = raises_at(eig_of_real, (np.eye(3),), tpucc.errors.UnsupportedError,
                    match="dtype known only at run time", line_of="np.linalg.eigvals(a)")
    assert "eigvalsh" in err.hint and "astype(complex)" in err.hint
    check(eig_of_real_as_complex, matrices(4, 4), rtol=1e-10)


# --- errors ---------------------------------------------------------------------------------

def eigh_of(a):
    return np.linalg.eigh(a)


def svd_of(a):
    return np.linalg.svd(a)


def qr_raw(a):
    return np.linalg.qr(a, mode="raw")


def power_half(a):
    return np.linalg.matrix_power(a, 0.5)


def eigh_bad_uplo(a):
    return np.linalg.eigvalsh(a, UPLO="X")


def lstsq_3d(a, b):
    return np.linalg.lstsq(a, b)


def cond_empty(a):
    return np.linalg.cond(a)


@pytest.mark.parametrize("fn, args, error, match, line", [
    (eigh_of, (np.ones((3, 4)),), tpucc.errors.ShapeError, "square", "np.linalg.eigh"),
    (eigh_of, (np.ones(3),), tpucc.errors.ShapeError, "two-dimensional", "np.linalg.eigh"),
    (eigh_of, (np.ones((2, 2), np.float16),), tpucc.errors.DTypeError, "float16", "eigh"),
    (svd_of, (np.ones(3),), tpucc.errors.ShapeError, "two-dimensional", "np.linalg.svd"),
    (power_half, (np.ones((3, 3)),), tpucc.errors.UserCodeError, "exponent must be an integer",
     "matrix_power"),
    (eigh_bad_uplo, (np.ones((3, 3)),), tpucc.errors.UserCodeError, "UPLO", "eigvalsh"),
    (lstsq_3d, (np.ones((2, 3, 3)), np.ones((2, 3))), tpucc.errors.ShapeError,
     "two-dimensional", "lstsq"),
    (lstsq_3d, (np.ones((3, 3)), np.ones(4)), tpucc.errors.ShapeError, "Incompatible",
     "lstsq"),
    (cond_empty, (np.ones((0, 0)),), tpucc.errors.UserCodeError, "empty", "cond"),
])
def test_errors_where_numpy_raises(fn, args, error, match, line):
    with pytest.raises(Exception):
        fn(*args)       # NumPy raises too
    raises_at(fn, args, error, match=match, line_of=line)


def test_qr_raw_is_refused():
    """Its Householder form is LAPACK's internal representation."""
    raises_at(qr_raw, (np.ones((3, 3)),), tpucc.errors.UnsupportedError, match="raw",
              line_of="np.linalg.qr")


# --- polyfit / vander -----------------------------------------------------------------------

def fits(x, y):
    return (np.polyfit(x, y, 0), np.polyfit(x, y, 1), np.polyfit(x, y, 3),
            np.polyfit(x, y, 2, w=np.abs(x) + 1), np.polyfit(x, y, 2, rcond=1e-3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_polyfit(dtype):
    x = np.linspace(-2, 3, 11)
    y = 0.5 * x ** 3 - x + 2 + np.sin(7 * x) / 10
    x, y = (x * 4).astype(dtype), (y * 4).astype(dtype)
    check(lambda x, y, ys, y64: (fits(x, y), fits(x, ys), np.polyfit(x, y, 2, full=True),
                                 np.polyfit(x, y64, 1)),
          x, y, np.stack([y, 2 * y - x], axis=1), y.astype(np.float64),    # ys: several fits
          **tol(dtype))


def covariances(x, y):
    return (np.polyfit(x, y, 1, cov=True), np.polyfit(x, y, 2, cov="unscaled"),
            np.polyfit(x, y, 2, w=np.abs(x) + 1, cov=True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_polyfit_covariance(dtype):
    x = np.linspace(-2, 3, 11)
    y = 0.5 * x ** 2 - x + np.sin(7 * x) / 10
    check(lambda x, y, ys: (covariances(x, y), covariances(x, ys)), x.astype(dtype),
          y.astype(dtype), np.stack([y, x * y], 1).astype(dtype), **tol(dtype))


def test_polyfit_errors():
    x = np.linspace(0, 1, 5)
    raises_at(lambda x: np.polyfit(x, x, 4, cov=True), (x,), tpucc.errors.UserCodeError,
              match="must exceed order")
    raises_at(lambda x: np.polyfit(x, x, -1), (x,), tpucc.errors.UserCodeError,
              match="deg >= 0")
    raises_at(lambda x: np.polyfit(x, x[:3], 1), (x,), tpucc.errors.UserCodeError,
              match="same length")


def vanders(x):
    return np.vander(x), np.vander(x, 3), np.vander(x, 4, increasing=True), np.vander(x, 0)


@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.int64, np.bool_, np.complex64])
def test_vander(dtype):
    check(vanders, np.array([3, -2, 0, 1, 2]).astype(dtype))


# --- fft ------------------------------------------------------------------------------------

FFT_DTYPES = [np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int32,
              np.bool_]


def fft_tol(dtype):
    if np.dtype(dtype) == np.dtype(np.float16):
        return dict(rtol=2e-3, atol=2e-3)
    return tol(dtype if np.dtype(dtype).kind in "fc" else np.float64)


def signal(*shape, dtype):
    rng = np.random.default_rng(3)
    if np.dtype(dtype) == np.dtype(np.bool_):
        return rng.random(shape) < 0.5
    x = rng.standard_normal(shape) * 3
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def one_d(x, norm):
    real = x.dtype.kind != "c"
    out = [np.fft.fft(x, norm=norm), np.fft.ifft(x, norm=norm), np.fft.fft(x, 5, 0, norm),
           np.fft.ifft(x, n=9, axis=1, norm=norm), np.fft.irfft(x, norm=norm),
           np.fft.irfft(x, 7, 0, norm), np.fft.hfft(x, norm=norm), np.fft.hfft(x, 5, 1, norm)]
    if real:
        out += [np.fft.rfft(x, norm=norm), np.fft.rfft(x, 7, axis=0, norm=norm),
                np.fft.ihfft(x, norm=norm), np.fft.ihfft(x, 4, 1, norm)]
    return tuple(out)


def n_d(x, norm):
    real = x.dtype.kind != "c"
    out = [np.fft.fft2(x, norm=norm), np.fft.ifft2(x, norm=norm), np.fft.fftn(x, norm=norm),
           np.fft.ifftn(x, (3, -1), (2, 0), norm), np.fft.fftn(x, axes=(1,), norm=norm),
           np.fft.irfft2(x, norm=norm), np.fft.irfftn(x, norm=norm),
           np.fft.irfftn(x, s=(4, 6), axes=(0, 1), norm=norm), np.fft.fft2(x, (3, 3), norm=norm,
                                                                        axes=(0, 2))]
    if real:
        out += [np.fft.rfft2(x, norm=norm), np.fft.rfftn(x, norm=norm),
                np.fft.rfftn(x, (5, 2), (2, 0), norm)]
    return tuple(out)


# Each dtype with one norm, and each norm with a real and a complex dtype:
# the norm is a scale factor applied after the transform, which the dtype
# does not change (the full grid was 28 cases, 90 s of the suite).
FFT_CASES = [(np.float16, None), (np.float32, "ortho"), (np.float64, "forward"),
             (np.complex64, "backward"), (np.complex64, None), (np.complex128, "ortho"),
             (np.complex128, "forward"), (np.int32, "backward"), (np.bool_, "ortho")]


@pytest.mark.parametrize("dtype, norm", FFT_CASES)
def test_fft(dtype, norm):
    check(lambda x, y, norm: (one_d(x, norm), n_d(y, norm)), signal(6, 8, dtype=dtype),
          signal(2, 5, 6, dtype=dtype), norm, **fft_tol(dtype))


def shifts(x):
    return (np.fft.fftshift(x), np.fft.ifftshift(x), np.fft.fftshift(x, axes=1),
            np.fft.ifftshift(x, axes=(0, 2)), np.fft.fftshift(np.fft.fftshift(x), axes=()))


def frequencies(d):
    return np.fft.fftfreq(7, d), np.fft.fftfreq(8, d), np.fft.rfftfreq(9, d), np.fft.fftfreq(4)


def test_fft_shifts_and_frequencies():
    check(lambda x, z, d64, d32, s: (shifts(x), shifts(z), frequencies(d64), frequencies(d32),
                                     s * np.fft.fftfreq(6, 0.1)),
          signal(3, 4, 5, dtype=np.float32), signal(5, dtype=np.complex64).reshape(5, 1, 1),
          np.float64(0.25), np.float32(0.25), signal(6, dtype=np.float32))


def fft_n0(x):
    return np.fft.fft(x, 0)


def irfft_of_one(x):
    return np.fft.irfft(x)


def fft_norm(x):
    return np.fft.fft(x, norm="sideways")


def rfft_complex(x):
    return np.fft.rfft(x)


def fft_axis(x):
    return np.fft.fft(x, axis=2)


def fftn_s_without_axes(x):
    return np.fft.fftn(x, s=(2, 2))


def fftn_lengths(x):
    return np.fft.fftn(x, s=(2, 2), axes=(0,))


@pytest.mark.parametrize("fn, x, error, match", [
    (fft_n0, np.ones(4), tpucc.errors.UserCodeError, "Invalid number of FFT data points"),
    (irfft_of_one, np.ones(1), tpucc.errors.UserCodeError, "Invalid number of FFT data points"),
    (fft_n0, np.ones(0), tpucc.errors.UserCodeError, "Invalid number of FFT data points"),
    (fft_norm, np.ones(4), tpucc.errors.UserCodeError, "Invalid norm value"),
    (rfft_complex, np.ones(4, complex), tpucc.errors.DTypeError, "rfft"),
    (fft_axis, np.ones((2, 2)), tpucc.errors.ShapeError, "out of bounds"),
    (fftn_lengths, np.ones((2, 2)), tpucc.errors.UserCodeError, "different lengths"),
])
def test_fft_errors_where_numpy_raises(fn, x, error, match):
    with pytest.raises(Exception):
        fn(x)
    raises_at(fn, (x,), error, match=match, line_of="np.fft.")


def test_fftn_s_without_axes_is_refused():
    """NumPy 2.0 deprecates it (the meaning of s will change)."""
    raises_at(fftn_s_without_axes, (np.ones((2, 2)),), tpucc.errors.UnsupportedError,
              match="deprecated", line_of="np.fft.fftn")


# --- gradients ------------------------------------------------------------------------------

def loss_svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (s * s).sum() + np.linalg.svd(a, compute_uv=False).sum()


def loss_eigh(a):
    w, v = np.linalg.eigh(a.T @ a)
    return (w * w).sum() + np.linalg.eigvalsh(a.T @ a).max()


def loss_fft(a):
    return np.abs(np.fft.rfft(a, axis=0)).sum() + np.fft.fft2(a).real.sum()


def loss_solvers(a):
    x = np.linalg.lstsq(a, np.arange(5.0))[0]
    return (x * x).sum() + np.linalg.pinv(a).sum() + np.linalg.slogdet(a.T @ a)[1]


def test_gradients_through_decompositions_and_fft():
    import jax
    import jax.numpy as jnp
    refs = {
        loss_svd: lambda a: 2 * (jnp.linalg.svd(a, compute_uv=False) ** 2).sum() / 2
        + jnp.linalg.svd(a, compute_uv=False).sum(),
        loss_eigh: lambda a: (jnp.linalg.eigvalsh(a.T @ a) ** 2).sum()
        + jnp.linalg.eigvalsh(a.T @ a).max(),
        loss_fft: lambda a: jnp.abs(jnp.fft.rfft(a, axis=0)).sum() + jnp.fft.fft2(a).real.sum(),
        loss_solvers: lambda a: ((jnp.linalg.pinv(a) @ jnp.arange(5.0)) ** 2).sum()
        + jnp.linalg.pinv(a).sum() + jnp.linalg.slogdet(a.T @ a)[1],
    }
    a = matrices(5, 3)
    with jax.enable_x64(True):
        for fn, ref in refs.items():
            # (jax's gradient jitted: one XLA compile, not one per op eagerly)
            np.testing.assert_allclose(tpucc.grad(fn)(a), jax.jit(jax.grad(ref))(a), rtol=1e-9,
                                       atol=1e-12, err_msg=fn.__name__)


def loss_full_svd(a):
    u, s, vh = np.linalg.svd(a)
    return s.sum() + u.sum()


def test_gradient_without_a_derivative_names_the_line():
    with pytest.raises(tpucc.errors.GradError) as info:
        tpucc.grad(loss_full_svd)(matrices(4, 3))
    assert "full_matrices=False" in info.value.hint
    assert info.value.loc.line == loss_full_svd.__code__.co_firstlineno + 1


# --- ahead of time: LAPACK custom calls in a fresh process ----------------------------------

SPECTRAL = '''
import numpy as np
from tpucc.aot import entry

@entry("f64[4,4]", "f32[8]")
def spectral(a, x):
    w, v = np.linalg.eigh(a + a.T)
    s = np.linalg.svd(a, compute_uv=False)
    sol = np.linalg.lstsq(a[:, :3], x[:4].astype(np.float64))[0]
    return w, s, sol, np.linalg.slogdet(a)[1], np.fft.rfft(x), np.linalg.pinv(a) @ a
'''


def test_decompositions_run_from_an_artifact_in_a_fresh_process(tmp_path):
    """The executable's LAPACK calls (eigh, svd, lstsq, slogdet, pinv) and its
    FFT, loaded without compiling (LAPACK initialized first: jax issue 28908)."""
    import subprocess
    import sys
    import textwrap
    from conftest import child_env
    from tpucc import aot
    model = tmp_path / "spectral.py"
    model.write_text(SPECTRAL)
    [built] = aot.build_file(str(model), str(tmp_path))
    a, x = matrices(4, 4), matrices(8, dtype=np.float32)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "x.npy", x)
    script = f"""
        import numpy as np, tpucc
        a, x = np.load({str(tmp_path / 'a.npy')!r}), np.load({str(tmp_path / 'x.npy')!r})
        f = tpucc.load({built.path!r}, prefer="executable")
        assert f.using.startswith("executable"), f.using
        np.savez({str(tmp_path / 'out.npz')!r}, *f(a, x))
    """
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, env=child_env(), timeout=300)
    assert proc.returncode == 0, f"exit {proc.returncode}: {proc.stderr}"
    got = np.load(tmp_path / "out.npz")
    ns: dict = {}
    exec(compile(SPECTRAL, str(model), "exec"), ns)
    expected = ns["spectral"](a, x)
    for k, e in enumerate(expected):
        assert got[f"arr_{k}"].dtype == np.asarray(e).dtype
        np.testing.assert_allclose(got[f"arr_{k}"], e, rtol=2e-5, atol=1e-5)


def singular_values_only(a):
    return np.linalg.svd(a, compute_uv=False)


def test_svd_for_a_tpu_target_is_refused_not_a_libtpu_abort():
    """jax 0.10.2's TPU SVD under x64 aborts libtpu's compiler (the process);
    lowering for a TPU target refuses it (eigh, hermitian=True, compiles)."""
    from tpucc.ops.registry import lowering_for
    a = matrices(4, 4)
    with lowering_for(("tpu",)):
        with pytest.raises(tpucc.errors.UnsupportedError, match="cannot be compiled for TPU"):
            tpucc.compile(singular_values_only).lower(a)
        tpucc.compile(lambda a: np.linalg.svd(a + a.T, hermitian=True)).lower(a)
