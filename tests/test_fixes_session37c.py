"""Bugs from sweep 37b, fixed in session 37c."""
import warnings

import numpy as np

from conftest import check


# A runtime `if` merges the frame's whole state; a list (or dict) of lists
# that every arm holds unchanged is taken as one leaf (state.taken_whole),
# its items not walked at each merge (an LCS table over a list of lists made
# infer cost cells x table size).  These check the merged state stays right.

def test_list_of_lists_dp_with_runtime_if_matches_numpy():
    def lcs(x, y):
        n, m = len(x), len(y)
        L = [[0] * (m + 1) for _ in range(n + 1)]
        for i in range(n):
            for j in range(m):
                if x[i] == y[j]:
                    L[i + 1][j + 1] = L[i][j] + 1
                else:
                    L[i + 1][j + 1] = max(L[i][j + 1], L[i + 1][j])
        return L[n][m], L[n // 2]
    rs = np.random.RandomState(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # (UnrollWarning: expected)
        check(lcs, rs.randint(0, 3, 6), rs.randint(0, 3, 5))


def test_table_rebound_on_one_arm_kept_on_the_other():
    # `T` is not one object on both arms: its rows are merged item by item
    def f(x):
        T = [[0.0] * 3 for _ in range(3)]
        for i in range(3):
            T[i][i] = x[i]
        U = T
        if x[0] > 0:
            T = [[x[1]] * 3 for _ in range(3)]
        return T[1][1] + T[2][0], T[0], U[2]
    check(f, np.array([1.0, 2.0, 3.0]))
    check(f, np.array([-1.0, 2.0, 3.0]))


def test_views_in_a_list_see_an_update_on_the_arm_that_keeps_the_list():
    # rows holds views of b: the arm that updates b in place keeps `rows`,
    # the other rebinds it, so each view's end-of-arm value is merged
    def f(x):
        b = x.copy()
        rows = [b[0:2], b[2:4]]
        if x[0] > 0:
            b[0] = 100.0
        else:
            rows = [x[0:2] * 2, x[2:4]]
        return rows[0].sum() + rows[1].sum()
    check(f, np.array([1.0, 2.0, 3.0, 4.0]))
    check(f, np.array([-1.0, 2.0, 3.0, 4.0]))


def test_rows_of_a_table_stay_the_same_objects_after_the_if():
    # a row taken whole is the row itself after the merge: changing it
    # afterwards is allowed and seen through every name
    def f(x):
        T = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
        r = T[0]
        if x[0] > 0:
            T[1][0] = x[1]
        T[0].append(7.0)
        T[2][1] = x[0]
        return r[2] + T[1][0] + len(r) + T[2][1]
    check(f, np.array([1.0, 2.0]))
    check(f, np.array([-1.0, 2.0]))


def test_dict_of_lists_with_an_item_rebound_in_a_runtime_if():
    def f(x):
        d = {"a": [0.0, 1.0], "b": [2.0, 3.0], "c": {"k": [4.0]}}
        for i in range(3):
            if x[i] > 0:
                d["a"][1] = d["a"][1] + x[i]
            else:
                d["c"]["k"][0] = d["c"]["k"][0] - x[i]
        return d["a"][1] + d["b"][0] + d["c"]["k"][0]
    check(f, np.array([1.0, -2.0, 3.0]))
