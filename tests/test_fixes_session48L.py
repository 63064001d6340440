"""Fixes from sweep 48L: the message of a raise (or assert) under a runtime
`if` may call a function of one of NumPy's submodules (`np.linalg.norm(R)`,
`np.linalg.det(R)`): Python loads such a function as a method of the module
(LOAD_METHOD / LOAD_ATTR with its method bit), which the message's
computation refused as though it were a user object's method (E400); and an
item of the named tuple one returns (`np.linalg.slogdet(R)[1]`).

PYTEST_DONT_REWRITE: the compiled functions hold `assert`s, which pytest
would otherwise rewrite."""
import math

import numpy as np
import pytest

import tpucc
from conftest import raises_at


def _compiled(f):
    return tpucc.compile(f, cache=False)


def _same(expected, got):
    assert type(got) is type(expected), (type(expected), type(got))
    np.testing.assert_array_equal(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


# --- bug_02: np.linalg functions in a runtime raise's message ---------------------------

def norm_in_raise(R):
    if R.sum() < 0:
        raise ValueError(f"bad rotation, norm={np.linalg.norm(R)}")
    return R.sum()


def det_with_spec(R):
    if np.trace(R) < 0:
        raise ValueError(f"reflection, det={np.linalg.det(R):.3f}")
    return R @ R.T


def orthogonality_assert(R):
    assert np.abs(R @ R.T - np.eye(3)).max() < 1e-3, \
        f"not orthogonal: {np.linalg.norm(R @ R.T - np.eye(3), ord='fro')!r}"
    return R.T


def column_norms(R):
    if np.trace(R) < 0:
        raise ValueError(f"column norms {np.linalg.norm(R, axis=0)} / "
                         f"log|det| {np.linalg.slogdet(R)[1]:.2f}")
    return R.max()


def vector_norm(v):
    if v[0] < 0:
        raise ArithmeticError(f"{np.linalg.norm(v, ord=1)} {np.linalg.norm(v, np.inf)}")
    return v / np.linalg.norm(v)


def smallest_eigenvalue(S):
    assert np.all(np.diag(S) > 0), \
        f"not positive definite: eigenvalues {np.linalg.eigh(S)[0]}, " \
        f"min {np.linalg.eigvalsh(S).min()}"
    return np.linalg.cholesky(S)


_SPD = np.array([[2.0, 0.5], [0.5, 1.0]])
_INDEFINITE = np.array([[-1.0, 0.5], [0.5, 1.0]])
_ROT = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
_REFLECT = np.diag([-1.0, -1.0, -1.0])
_SKEWED = np.array([[1.0, 0.3, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


@pytest.mark.parametrize("f, good, bad", [
    (norm_in_raise, np.eye(3), -np.eye(3)),
    (norm_in_raise, np.eye(3, dtype=np.float32), -np.eye(3, dtype=np.float32)),
    (det_with_spec, _ROT, _REFLECT),
    (det_with_spec, _ROT.astype(np.float32), _REFLECT.astype(np.float32)),
    (orthogonality_assert, _ROT, _SKEWED),
    (orthogonality_assert, _ROT.astype(np.float32), _SKEWED.astype(np.float32)),
    (column_norms, _ROT, _REFLECT),
    (smallest_eigenvalue, _SPD, _INDEFINITE),
    (smallest_eigenvalue, _SPD.astype(np.float32), _INDEFINITE.astype(np.float32)),
    (vector_norm, np.array([3.0, 4.0]), np.array([-3.0, 4.0])),
    (vector_norm, np.array([3.0, 4.0], np.float32), np.array([-3.0, 4.0], np.float32)),
])
def test_a_message_may_call_numpy_submodule_functions(f, good, bad):
    compiled = _compiled(f)
    _same(f(good.copy()), compiled(good.copy()))
    with pytest.raises(Exception) as eager:
        f(bad.copy())
    with pytest.raises(type(eager.value)) as got:
        compiled(bad.copy())
    assert str(eager.value) in str(got.value)


def test_an_argument_is_untouched_by_the_message():
    R = -np.eye(3)
    with pytest.raises(ValueError):
        _compiled(norm_in_raise)(R)
    np.testing.assert_array_equal(R, -np.eye(3))


def test_a_non_numpy_module_function_in_a_message_is_still_refused():
    """Only NumPy's functions are computed on every path; math.sqrt of a
    runtime value is not one tpucc may run there, so formatting is refused."""
    def f(x):
        if x.sum() < 0:
            raise ValueError(f"{math.sqrt(-x.sum())}")
        return x.sum()
    raises_at(f, (np.array([1.0, 2.0]),), tpucc.errors.StaticValueError,
              match="formatting a runtime value", line_of="raise", cache=False)
