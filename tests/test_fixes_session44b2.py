"""Fixes from sweep 44B (optimization algorithms): gradients through pinv and
through eigh/svd values where singular values or eigenvalues repeat; the
compile time of tpucc.grad through a short static loop with a runtime
`break`/`return`; appends to an outside list inside a differentiated
function."""
import numpy as np
import pytest

import tpucc
from conftest import count_hlo, numeric_grad, raises_at


def _grad(f):
    return tpucc.compile(lambda x: tpucc.grad(f)(x), cache=False)


def _assert_grad(f, x, expected=None, rtol=1e-6, atol=1e-8):
    g = _grad(f)(x)
    assert g.dtype == x.dtype and g.shape == x.shape
    if expected is None:
        expected = numeric_grad(f, x)
    np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol)
    return g


# --- bug_01: pinv's gradient where singular values repeat --------------------------

def test_pinv_gradient_of_a_diagonal_with_repeated_values():
    f = lambda x: np.sum(np.linalg.pinv(np.diag(x)))   # noqa: E731
    for x in (np.array([2.0, 2.0]), np.array([1.0, 1.0, 1.0]), np.array([0.5, 3.0])):
        _assert_grad(f, x, -1 / x ** 2)


def test_pinv_gradient_near_the_identity():
    def f(x):
        return np.sum(np.linalg.pinv(np.outer(x, x) + np.eye(3)) * np.arange(9.0).reshape(3, 3))
    _assert_grad(f, np.array([0.3, -0.2, 0.5]), rtol=1e-5)
    _assert_grad(f, np.zeros(3), atol=1e-6)      # the identity itself


@pytest.mark.parametrize("shape", [(3, 2), (2, 3), (2, 4, 3)])
def test_pinv_gradient_of_rectangular_and_stacked_matrices(shape):
    w = np.linspace(-1.0, 1.0, np.prod(shape[:-2] + shape[-1:] + shape[-2:-1])) \
        .reshape(shape[:-2] + (shape[-1], shape[-2]))

    def f(x):
        return np.sum(np.linalg.pinv(x.reshape(shape)) * w)
    x = np.cos(np.arange(np.prod(shape)) * 1.3) + 0.1
    _assert_grad(f, x, rtol=1e-5, atol=1e-7)


def test_pinv_gradient_hermitian_reads_the_lower_triangle():
    def f(x):
        a = x.reshape(3, 3)
        return np.sum(np.linalg.pinv(a, hermitian=True) * np.arange(1.0, 10.0).reshape(3, 3))
    x = (np.eye(3) * 2 + np.array([[0, 9, 9], [0.3, 0, 9], [0.1, -0.2, 0]])).ravel()
    g = _assert_grad(f, x, rtol=1e-5, atol=1e-7)
    assert np.all(g.reshape(3, 3)[np.triu_indices(3, 1)] == 0)
    _assert_grad(f, np.eye(3).ravel() * 2, rtol=1e-5, atol=1e-7)    # repeated eigenvalues


def test_pinv_gradient_float32_and_under_a_runtime_if():
    def f(x):
        p = np.linalg.pinv(np.diag(x))
        if x.sum() > 0:                 # a cond: jax differentiates the whole region
            p = p * 2
        return np.sum(p)
    x = np.array([2.0, 2.0])
    _assert_grad(f, x, -2 / x ** 2)
    g = _grad(f)(x.astype(np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, -2 / x ** 2, rtol=1e-5)


def test_pinv_values_unchanged():
    from conftest import check
    a = np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 1.0]])
    check(lambda a: np.linalg.pinv(a), a)
    check(lambda a: np.linalg.pinv(a, hermitian=True), np.eye(3) * 2)
    check(lambda a: np.linalg.pinv(a, rcond=0.3), a)


# --- bug_02: eigenvalues / singular values whose vectors are unused ----------------

def _eigh_values(x):
    w, v = np.linalg.eigh(np.diag(x))
    return np.sum(w)


def _eigh_upper_weighted(x):
    w, _ = np.linalg.eigh(np.diag(x) + 0.0, UPLO="U")
    return np.sum(w * np.arange(1.0, w.size + 1))


def _svd_full_square(x):
    u, s, vh = np.linalg.svd(np.diag(x))
    return np.sum(s)


def _svd_thin(x):
    _, s, _ = np.linalg.svd(np.stack([np.diag(x), np.diag(x)]), full_matrices=False)
    return np.sum(s)


@pytest.mark.parametrize("f, expected", [(_eigh_values, [1.0, 1.0, 1.0]),
                                         (_svd_full_square, [1.0, 1.0, 1.0]),
                                         (_svd_thin, [2.0, 2.0, 2.0])])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_values_gradient_with_repeated_values_and_unused_vectors(f, expected, dtype):
    g = _grad(f)(np.full(3, 2.0, dtype))
    assert g.dtype == dtype
    np.testing.assert_allclose(g, expected)


def test_eigh_values_gradient_weighted_repeated():
    # eigenvalues in ascending order: the tied ones share their weights' order
    g = _grad(_eigh_upper_weighted)(np.array([1.0, 3.0, 3.0]))
    np.testing.assert_allclose(g, [1.0, 2.0, 3.0])


def test_eigh_vectors_still_differentiate():
    def f(x):
        a = x.reshape(3, 3)
        w, v = np.linalg.eigh(a + a.T)
        return w[-1] + np.abs(v[:, -1]).sum()
    x = np.array([2.0, 0.3, 0.1, 0.0, 1.0, -0.2, 0.0, 0.0, 0.5])
    _assert_grad(f, x, rtol=1e-5, atol=1e-7)


# --- bug_05: a short static loop with a runtime break under tpucc.grad ---------------

def _sinkhorn(n, leave="break"):
    def loss(C):
        u = np.ones(3)
        for i in range(n):
            v = 1.0 / (C.T @ u)
            u = 1.0 / (C @ v)
            if np.abs(u).sum() < 1e-9:
                if leave == "return":
                    return np.sum(u)
                break
        return np.sum(u) + np.sum(v)
    return loss


C = np.array([[1.0, 0.5], [0.2, 1.0], [0.7, 0.3]])


@pytest.mark.parametrize("leave", ["break", "return"])
def test_short_break_loop_under_grad_is_one_loop(leave):
    # unrolled with guards, its copies nested 32 deep: 48 s of compile
    loss = _sinkhorn(32, leave)
    text = tpucc.compile(lambda c: tpucc.grad(loss)(c), cache=False).lower(C).as_text()
    assert count_hlo(text, "conditional") <= 8, count_hlo(text, "conditional")
    assert count_hlo(text, "while") >= 1


@pytest.mark.parametrize("n", [1, 4, 32])
def test_short_break_loop_gradient(n):
    _assert_grad(_sinkhorn(n), C, rtol=1e-5)


def test_short_break_loop_gradient_where_it_breaks():
    def loss(x):
        s = x * 1.0
        for k in range(6):
            s = s * 1.5 + 0.1
            if s.sum() > 3:
                break
        return (s * s).sum()
    for x in (np.array([0.1, 0.2, 0.3]), np.array([0.001, 0.002, 0.003]), np.ones(3)):
        _assert_grad(loss, x, rtol=1e-5)


def test_short_break_loop_whose_counter_the_code_after_needs_static():
    # as one scan, k is a runtime value; the shape s[:k] needs it static:
    # the loop is compiled again unrolled, the code after once per way out
    def loss(x):
        s = x * 1.0
        k = 0
        for i in range(4):
            s = s * 1.5 + 0.1
            k += 1
            if s.sum() > 3:
                break
        return (s[:k] * s[:k]).sum() * k
    for x in (np.array([0.1, 0.2, 0.3, 0.4, 0.5]), np.full(5, 1e-3), np.ones(5)):
        _assert_grad(loss, x, rtol=1e-5)


# --- bug_03: appending to an outside list inside a differentiated function -----------

LOG = []


def _logs_objective(x):
    v = np.sum(x ** 2)
    LOG.append(v)
    return v


def test_append_inside_value_and_grad_happens_once_per_call():
    LOG.clear()
    f = tpucc.compile(lambda x: tpucc.value_and_grad(_logs_objective)(x), cache=False)
    x = np.array([1.0, 2.0])
    value, g = f(x)
    assert value == 5.0 and type(value) is np.float64
    np.testing.assert_array_equal(g, 2 * x)
    assert LOG == [5.0] and type(LOG[0]) is np.float64
    f(x * 2)
    assert LOG == [5.0, 20.0]


def test_append_inside_grad_of_structures_and_python_floats():
    log = []

    def loss(x):
        v = np.sum(x ** 2)
        log.append(float(v))
        log.append((v, x * 2, "tag"))
        return v

    def step(x):
        log.append(x.sum())             # outside the differentiated function
        return x - 0.1 * tpucc.grad(loss)(x)
    x = np.array([1.0, 2.0], np.float32)
    out = tpucc.compile(step, cache=False)(x)
    np.testing.assert_allclose(out, x - 0.2 * x)
    assert out.dtype == np.float32
    assert len(log) == 3
    assert type(log[0]) is np.float32 and log[0] == 3.0
    assert type(log[1]) is float and log[1] == 5.0
    v, x2, tag = log[2]
    assert type(v) is np.float32 and v == 5.0 and tag == "tag"
    assert x2.dtype == np.float32 and np.array_equal(x2, x * 2)


def test_append_inside_grad_with_has_aux():
    log = []

    def loss(x):
        v = np.sum(x ** 2)
        log.append(v)
        return v, x.max()
    f = tpucc.compile(lambda x: tpucc.grad(loss, has_aux=True)(x), cache=False)
    g, aux = f(np.array([1.0, 3.0]))
    np.testing.assert_array_equal(g, [2.0, 6.0])
    assert aux == 3.0 and log == [10.0]


def test_append_inside_a_runtime_if_of_a_differentiated_function_is_refused():
    log = []

    def f(x):
        def loss(y):
            v = np.sum(y ** 2)
            if v > 1:
                log.append(v)
            return v
        return tpucc.grad(loss)(x)
    raises_at(f, (np.ones(2),), match="inside a runtime `if` or loop", line_of="log.append",
              cache=False)
