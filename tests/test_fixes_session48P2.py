"""Fixes from sweep 48X (bug_07): Gym-style value iteration over a
transition table `P[s][a] == [(prob, next_state, reward, done), ...]` (a
dict of dicts of lists of tuples) unrolled `for s in range(nS)`, as P[s]
needed a static s: ~50 s of compile for 8x8 FrozenLake.  A table of lists,
dicts and tuples of one structure is now read at a runtime position as a
copy (picked_rows), its leaves picked column by column (Python bools
too), so the loop stays one runtime While."""
import warnings

import numpy as np

import tpucc
from conftest import raises_at, same, same_each


# --- the sweep's program: value iteration on a FrozenLake table ------------------------------

def make_P(n, holes, goal):
    P = {}
    for s in range(n * n):
        P[s] = {}
        r, c = divmod(s, n)
        for a in range(4):
            lst = []
            for d in [(a - 1) % 4, a, (a + 1) % 4]:
                dr, dc = [(0, -1), (1, 0), (0, 1), (-1, 0)][d]
                ns = min(max(r + dr, 0), n - 1) * n + min(max(c + dc, 0), n - 1)
                term = s in holes or s == goal
                lst.append((1 / 3, s if term else ns, 0.0 if term else float(ns == goal),
                            term or ns in holes or ns == goal))
            P[s][a] = lst
    return P


def value_iteration(P, nS, nA, gamma, theta):
    V = np.zeros(nS)
    while True:
        delta = 0.0
        for s in range(nS):
            q = np.zeros(nA)
            for a in range(nA):
                for prob, ns, r, done in P[s][a]:
                    q[a] += prob * (r + gamma * V[ns] * (not done))
            delta = max(delta, abs(q.max() - V[s]))
            V[s] = q.max()
        if delta < theta:
            return V


def test_value_iteration_keeps_the_state_loop_one_while():
    P = make_P(8, {19, 29, 35, 41, 42, 46, 49, 52, 54, 59}, 63)
    expected = value_iteration(P, 64, 4, 0.99, 1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error", tpucc.UnrollWarning)     # not unrolled
        got = tpucc.compile(value_iteration, cache=False)(P, 64, 4, 0.99, 1e-8)
    assert got.dtype == expected.dtype == np.float64
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def policy_of(P, V, nS, nA, gamma):
    """A policy read from the values: argmax over the actions, the table
    read at the state loop's counter, a list made of the picked tuples."""
    pi = np.zeros(nS, np.int64)
    for s in range(nS):
        q = [sum(p * (r + gamma * V[ns] * (1 - done)) for p, ns, r, done in P[s][a])
             for a in range(nA)]
        pi[s] = int(np.argmax(q))
    return pi


def test_policy_extraction_from_the_table():
    P = make_P(4, {5, 7, 11, 12}, 15)
    V = value_iteration(P, 16, 4, 0.9, 1e-10)
    same(policy_of, P, V, 16, 4, 0.9)


# --- other structures, leaves and spellings -------------------------------------------------

def dict_of_lists_of_tuples(P, k):
    prob, ns, r, done = P[k][1][0]
    return prob, ns, r, done, len(P[k]), len(P[k][0])


def test_dict_of_dicts_of_lists_read_at_a_runtime_key():
    P = make_P(3, {4}, 8)
    same_each(dict_of_lists_of_tuples, (P, np.int64(0)), (P, np.int64(4)), (P, np.int64(7)))


def list_of_dicts_of_lists(i, j):
    T = [{"w": [1.0, 2.0], "n": [1, 2, 3]}, {"w": [3.5, 4.5], "n": [4, 5, 6]}]
    row = T[i]
    return row["w"][j] * row["n"][j + 1], sum(row["n"]), list(row), row["n"][-1]


def test_list_of_dicts_of_lists():
    same_each(list_of_dicts_of_lists, (np.int64(0), np.int64(1)), (np.int64(1), np.int64(0)))


def list_of_lists_of_bools(i, j):
    T = [[True, False, True], [False, False, True]]
    b = T[i][j]
    return b, (1 if b else 2), int(not b) + 3


def test_python_bools_of_both_values_are_picked_as_bools():
    same_each(list_of_lists_of_bools, (np.int64(0), np.int64(0)), (np.int64(1), np.int64(1)),
              (np.int64(0), np.int64(1)))


def flagged_sum(T, i):
    total = 0.0
    for x, flag in T[i]:
        if flag:
            total += x
    return total


def test_list_of_lists_of_tuples_with_flags():
    T = [[(1.5, True), (2.0, False)], [(4.0, False), (8.0, True)], [(3.0, True), (1.0, True)]]
    same_each(flagged_sum, (T, np.int64(0)), (T, np.int64(1)), (T, np.int64(2)))


def numpy_scalar_leaves(i):
    T = {0: [(np.float32(1.5), np.int32(2))], 1: [(np.float32(-2.0), np.int32(7))]}
    x, n = T[i][0]
    return x * n, x


def test_numpy_scalars_keep_their_dtypes():
    same_each(numpy_scalar_leaves, (np.int64(0),), (np.int64(1),))


def test_a_missing_key_is_still_keyerror():
    import pytest
    P = {0: [1, 2], 1: [3, 4]}
    with pytest.raises(KeyError):
        tpucc.compile(lambda P, k: P[k][0], cache=False)(P, np.int64(5))


# --- a copy the program holds: changes that it would not show are refused ---------------------

def change_the_copy(P, k):
    P[k][0].append((0.0, 0, 0.0, False))
    return len(P[0][0])


def test_changing_the_picked_copy_is_refused():
    raises_at(change_the_copy, (make_P(2, set(), 3), np.int64(1)), tpucc.SideEffectError,
              match="chosen at run time", line_of="P[k][0].append", cache=False)


def change_a_nested_row_while_held(P, k):
    moves = P[k][0]
    P[0][0][0] = (1.0, 0, 0.0, True)
    return moves[0][1]


def test_changing_a_nested_row_while_its_copy_is_held_is_refused():
    raises_at(change_a_nested_row_while_held, (make_P(2, set(), 3), np.int64(1)),
              tpucc.SideEffectError, match="copy of it", line_of="P[0][0][0] =", cache=False)


def change_a_dict_while_held(P, k):
    actions = P[k]
    P[0][0] = []
    return actions[0][0][1]


def test_changing_a_dict_of_the_table_while_its_copy_is_held_is_refused():
    raises_at(change_a_dict_while_held, (make_P(2, set(), 3), np.int64(1)),
              tpucc.SideEffectError, match="copy of it", line_of="P[0][0] = []", cache=False)


def change_after_reading(k):
    P = {0: {0: [(0.5, 1, True)], 1: [(0.25, 2, False)]},
         1: {0: [(0.75, 3, False)], 1: [(1.0, 4, True)]}}
    ns = P[k][0][0][1]
    P[0][0][0] = (1.0, 5, True)
    P[1][1].append((0.0, 6, False))
    P[1] = {}
    return ns, P[0][0][0][1], len(P[1]), P[0][1][0]


def test_changing_the_table_after_the_copy_is_dropped():
    same_each(change_after_reading, (np.int64(1),), (np.int64(0),))


def self_holding_rows(i):
    a, b = [1, 2], [3, 4]
    a.append(a)
    b.append(b)
    T = [a, b]
    return T[i][0]


def test_a_list_holding_itself_is_refused_not_looped_over():
    raises_at(self_holding_rows, (np.int64(1),), tpucc.StaticValueError, line_of="T[i][0]",
              cache=False)
