"""Session 48, fix X2: a Gym-style tabular model `P[s][a] = [(prob, next,
reward, done), ...]` (a dict of dicts of lists of tuples of Python numbers)
made compiling slow: every snapshot of a frame's state walked the whole
table item by item (4x4 FrozenLake value iteration: about 8 s of inference;
8x8 did not finish).  Static data is now flattened once per compile
(infer/flatten_memo.py) and reused while every list and dict in it holds
the very same items; merges take a table of tuples of numbers whole.

The tests check results against eager NumPy (values and dtypes, argument
state after the call) where the table is read, changed in place between
snapshots, and merged, and check the memo itself: reused when unchanged,
walked again after each kind of in-place change.
"""
import numpy as np
import pytest

import tpucc
from conftest import same, same_with_objects
from tpucc.infer import builder, flatten_memo
from tpucc.infer.state import flatten, unflatten


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


pytestmark = pytest.mark.filterwarnings("ignore::tpucc.infer.loops.UnrollWarning")


# --- the sweep's program ------------------------------------------------------------

def test_frozen_lake_value_iteration_3x3():
    same(value_iteration, make_P(3, {4}, 8), 9, 4, 0.9, 1e-6)


def test_frozen_lake_value_iteration_4x4_float32_values():
    def vi32(P, nS, nA, gamma, theta):
        V = np.zeros(nS, np.float32)
        for _ in range(30):
            for s in range(nS):
                q = np.zeros(nA, np.float32)
                for a in range(nA):
                    for prob, ns, r, done in P[s][a]:
                        q[a] += prob * (r + gamma * V[ns] * (not done))
                V[s] = q.max()
        return V
    same(vi32, make_P(4, {5, 7, 11, 12}, 15), 16, 4, 0.99, 1e-8)


def test_policy_from_table_of_int_rewards():
    # ints and bools in the tuples, a greedy policy as int64
    P = {s: {a: [(1.0, (s + a) % 6, int(a == s % 4), s == 5)] for a in range(4)}
         for s in range(6)}

    def greedy(P, V):
        pi = np.zeros(6, np.int64)
        for s in range(6):
            q = np.zeros(4)
            for a in range(4):
                for prob, ns, r, done in P[s][a]:
                    q[a] += prob * (r + 0.9 * V[ns] * (not done))
            pi[s] = np.argmax(q)
        return pi
    same(greedy, P, np.linspace(0.0, 1.0, 6))


# --- static data changed in place between snapshots ---------------------------------

def test_table_item_rebound_in_a_static_loop():
    def f(x, table):
        table = list(table)             # (the compiled call may not change an argument's)
        for i in range(4):
            x = x * table[i % 2][0] + table[i % 2][1]
            table[i % 2] = (table[i % 2][0] + 1, table[i % 2][1])   # a new tuple, same length
        return x, table
    same(f, np.arange(3.0), [(1, 0.5), (2, 1.5)])


def test_table_grown_and_shrunk_in_a_loop():
    def f(x, rows):
        rows = list(rows)
        for i in range(5):
            x = x + sum(r[0] for r in rows)
            if i % 2:
                rows.append((i, float(i)))
            else:
                rows.pop()
        return x, len(rows)
    same(f, np.ones(2, np.float32), [(1, 1.0), (2, 2.0), (3, 3.0)])


def test_nested_dict_item_changed_to_equal_bool():
    # 1 -> True is equal but not the same leaf: the result's type follows it
    def f(x, P):
        out = []
        for s in range(3):
            out.append(P[s]["r"] + x)
            P[(s + 1) % 3]["r"] = True if s == 0 else P[(s + 1) % 3]["r"]
        return out, P
    same_with_objects(f, np.float64(2.0), {0: {"r": 1}, 1: {"r": 1}, 2: {"r": 2.5}})


def test_dict_key_added_inside_a_loop():
    def f(x, d):
        d = dict(d)
        for k in range(4):
            x = x + len(d) + d.get(k, 0)
            d[k + 10] = k
        return x, d
    same(f, np.zeros(2), {0: 5, 1: 6})


# --- merges over a table of tuples -------------------------------------------------

def test_runtime_if_reads_a_table_of_tuples():
    def f(x, table):
        if x.sum() > 0:
            y = x * table[0][1]
        else:
            y = x + table[1][0]
        return y, table
    same(f, np.arange(3.0), [(1, 2.0, True), (3, 4.0, False)])
    same(f, -np.arange(3.0), [(1, 2.0, True), (3, 4.0, False)])


def test_runtime_loop_carries_a_value_beside_a_table():
    def f(x, table):
        n = 0
        while x.sum() < 100:
            x = x * table[n % 2][0] + table[n % 2][1]
            n += 1
        return x, n, table
    same(f, np.ones(3), [(2, 1.0), (3, 0.5)])


# --- the memo ----------------------------------------------------------------------

@pytest.fixture
def compiling():
    with builder.compiling(builder.Context(options={})) as c:
        yield c


def _flat(value):
    out = []
    return flatten(value, "P", out), out


def test_memo_reuses_unchanged_static_data(compiling, monkeypatch):
    P = make_P(2, set(), 3)
    td, leaves = _flat(P)
    walks = []
    real = flatten_memo.flattened

    def counting(value, path, out, memo, walk):
        return real(value, path, out, memo, lambda *a: walks.append(a[1]) or walk(*a))
    monkeypatch.setattr(flatten_memo, "flattened", counting)
    td2, leaves2 = _flat(P)
    assert walks == [] and td2 is td and leaves2 == leaves
    assert unflatten(td2, [v for _, v in leaves2]) == P


@pytest.mark.parametrize("change", [
    lambda P: P[1][2].__setitem__(0, (0.5, 1, 1.0, True)),   # a tuple rebound
    lambda P: P[1][2].append((0.0, 0, 0.0, False)),          # a list grown
    lambda P: P[0][0].pop(),                                 # shrunk
    lambda P: P[3].__setitem__(4, []),                       # a dict grown
    lambda P: P[2].pop(1),                                   # a key removed
    lambda P: P.__setitem__(0, P.pop(0)),                    # order changed
    lambda P: P[1].__setitem__(0, list(P[1][0])),            # an equal copy
])
def test_memo_sees_each_in_place_change(compiling, change):
    P = make_P(2, {1}, 3)
    _flat(P)
    change(P)
    td, leaves = _flat(P)
    fresh = []
    fresh_td = flatten_memo_off(P, fresh)
    assert td == fresh_td and leaves == fresh
    assert all(a is b for (_, a), (_, b) in zip(leaves, fresh))


def flatten_memo_off(value, out):
    """`flatten` as outside a compile: a walk of every item."""
    saved = builder._current[:]
    builder._current.clear()
    try:
        return flatten(value, "P", out)
    finally:
        builder._current.extend(saved)


def test_memo_leaves_one_leaf_changed_to_an_equal_one(compiling):
    rows = [(1, 2.0), (3, 4.0)]
    _flat(rows)
    rows[0] = (True, 2.0)               # == (1, 2.0): the new leaf is still seen
    _, leaves = _flat(rows)
    assert type(leaves[0][1]) is bool


def test_memo_skips_containers_holding_arrays_or_objects(compiling):
    class Box:
        pass
    for value in ([np.zeros(2)], {"a": Box()}, ([1, 2], Box())):
        _flat(value)
        assert id(value) not in compiling.flatten_memo.entries


def test_no_memo_outside_a_compile():
    out = []
    P = make_P(2, set(), 3)
    assert flatten(P, "P", out) is not None and out
    assert not builder._current


def test_memo_starts_afresh_past_its_budget(compiling, monkeypatch):
    monkeypatch.setattr(flatten_memo, "LEAVES_HELD_AT_MOST", 10)
    P = make_P(2, {1}, 3)
    for _ in range(2):
        td, leaves = _flat(P)
        fresh = []
        assert flatten_memo_off(P, fresh) == td and leaves == fresh
    assert compiling.flatten_memo.leaves_held <= 10
