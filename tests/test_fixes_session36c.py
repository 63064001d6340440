"""Bugs from sweep 36c, fixed in session 36: each program now gives eager
Python's and NumPy's result, or an error whose hint, followed, compiles."""
import time

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


# --- recursion only runtime data could end: refused at its first repeat ----------------------

def _dfs(A, u, seen):
    seen[u] = True
    for v in range(A.shape[0]):
        if A[u, v] and not seen[v]:
            _dfs(A, v, seen)


def dfs_components(A):
    seen = np.zeros(A.shape[0], bool)
    _dfs(A, 0, seen)
    return seen


def stack_components(A):
    """What the hint says: the pending nodes in an array used as a stack."""
    n = A.shape[0]
    seen = np.zeros(n, bool)
    stack = np.zeros(n * n + 1, np.int64)
    top = 1
    while top > 0:
        top -= 1
        u = stack[top]
        if not seen[u]:
            seen[u] = True
            for v in range(n):
                if A[u, v] and not seen[v]:
                    stack[top] = v
                    top += 1
    return seen


@pytest.mark.timeout(120)
def test_recursion_under_a_runtime_condition_is_refused_at_once():
    # (each level inlined both branches of every unrolled `if` again: (2n)**depth
    # calls before the depth budget; it compiled for more than 10 minutes)
    A = np.array([[False, True], [True, False]])
    t0 = time.perf_counter()
    err = raises_at(dfs_components, (A,), tpucc.LimitError,
                    match="calls itself inside a runtime `if` or loop")
    assert err.loc.func == "_dfs" and "_dfs(A, v, seen)" in str(err)
    assert time.perf_counter() - t0 < 30
    A = np.zeros((5, 5), bool)
    A[0, 1] = A[1, 0] = A[1, 3] = A[3, 1] = True
    check(stack_components, A)


def _tree_sum(x, node, depth):
    """Recursion under a runtime condition that a static argument ends."""
    if depth == 0:
        return x[node]
    left = _tree_sum(x, 2 * node + 1, depth - 1)
    if x[node] > 0:
        return left + _tree_sum(x, 2 * node + 2, depth - 1)
    return left


def test_recursion_under_a_runtime_condition_ending_on_static_arguments_compiles():
    check(lambda x: _tree_sum(x, 0, 3), np.arange(-5.0, 10.0))


# --- pow(base, exponent, mod) with a runtime exponent ------------------------------------------

def modular_powers(a):
    b, e = int(a[0]), int(a[1])
    return (pow(b, e, 1000000007), pow(b, e, -97), pow(b, -3, 101), pow(7, e, 1),
            pow(b, e, 2 ** 31 - 1))


@pytest.mark.parametrize("a", [[3, 5], [3, 10 ** 18], [-7, 123456789], [38, -1],
                               [2 ** 40 + 3, 2 ** 62], [5, -2 ** 63], [4, 0]])
def test_modular_power_of_a_runtime_exponent(a):
    # (refused, with a hint to compute (b ** e) % m, itself refused)
    check(modular_powers, np.array(a))


def test_modular_power_of_a_base_with_no_inverse_raises_as_python():
    raises_at(lambda a: pow(int(a[0]), int(a[1]), 10), (np.array([2, -1]),),
              tpucc.RuntimeRaiseError, match="base is not invertible for the given modulus",
              line_of="pow(")
    check(lambda a: pow(int(a[0]), int(a[1]), 10), np.array([3, -1]))


# --- int ** runtime int: the hint's rewrite compiles ---------------------------------------

def test_python_int_to_a_runtime_power_hints_a_form_that_compiles():
    def refused(a):
        return int(a[0]) ** int(a[1])
    err = raises_at(refused, (np.array([3, 5]),), tpucc.StaticValueError,
                    match="depending on the exponent's sign")
    # (the hint said `a ** abs(b)`, refused the same way)
    assert "np.int64(a) ** b" in err.hint
    check(lambda a: (np.int64(int(a[0])) ** int(a[1]), float(int(a[0])) ** int(a[1])),
          np.array([3, 5]))


# --- a ragged Python list indexed at run time: the CSR hint ---------------------------------

ADJ = [[1, 2], [3], [3], []]
INDPTR = np.cumsum([0] + [len(r) for r in ADJ])
INDICES = np.array([v for r in ADJ for v in r])


def bfs_over_list(start):
    dist = np.full(4, -1)
    dist[start] = 0
    for v in ADJ[start]:
        dist[v] = 1
    return dist


def bfs_over_csr(start):
    dist = np.full(4, -1)
    dist[start] = 0
    q = np.zeros(4, np.int64)
    h, t = 0, 1
    q[0] = start
    while h < t:
        u = q[h]
        h += 1
        for k in range(INDPTR[u], INDPTR[u + 1]):
            v = INDICES[k]
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                q[t] = v
                t += 1
    return dist


def test_a_ragged_list_indexed_at_run_time_hints_csr_arrays():
    # (the hint said np.stack, which raises on rows of different lengths)
    err = raises_at(bfs_over_list, (np.int64(0),), tpucc.StaticValueError,
                    match="indexing a Python container with a runtime value",
                    line_of="ADJ[start]")
    assert "indptr" in err.hint and "np.stack" not in err.hint
    check(bfs_over_csr, np.int64(0))


# --- int() of a uint64 from 2**63 up: documented, with a hint that works --------------------

def test_python_int_of_a_big_uint64_raises_with_a_working_hint():
    big = np.array([2 ** 64 - 1, 5], np.uint64)
    for convert in (lambda a: int(a[0]) % 1000, lambda a: a[0].item() % 1000,
                    lambda a: a.tolist()[0] % 1000):
        raises_at(convert, (big,), tpucc.RuntimeRaiseError,
                  match="uint64 value from 2\\*\\*63 up as a Python int")
    check(lambda a: a[0] % 1000, big)            # the hint: keep it a NumPy uint64
    check(lambda a: int(a[1]) % 1000, big)       # below 2**63: a Python int as eagerly
