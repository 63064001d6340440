"""Session 47H fixes (sweep 47H: tabular RL and Markov chains).

- bug_02: a 0-d bool flag made by a constant (`done = np.array(False)`,
  np.zeros((), bool), np.full((), True)) as the condition of a runtime
  `while` or `if` crashed with tpucc's own IndexError, reported as the
  user's E700: control._truth_step read the first input of the op that made
  the flag, a creation op with none.
- bug_01: a string array made from static data only (`np.array([list(r)
  for r in ROWS])`, a gridworld's character map) was refused (E210) when
  NumPy made it; it is now held as a static ndarray while compiling, and
  what NumPy computes from it now (`grid == '#'`) is a constant array.
  A method needing the values (walls.nonzero()) of such a constant is now
  NumPy's, called while compiling, as np.nonzero(walls) already was.
  Using the strings themselves at run time is still refused, with a hint
  that says to compare first; changing the string array is refused with a
  true message.
- bug_03: indexing a str with a runtime int ('^>v<'[a]) gave the hint
  "np.stack the items first"; it now says to return the positions and look
  the characters up outside.
- bug_04: `ndarray @ obj` where obj's class defines __len__ and __getitem__
  was refused claiming NumPy makes an object array; NumPy converts such a
  sequence from its items, and so does compiled code now (operators and
  NumPy functions alike: np.asarray(obj), np.add(p, obj)), interpreting
  __getitem__, so the arrays it returns stay runtime inputs (np.asarray(obj)
  used to read them natively, as constants that a changed attribute did not
  update).
"""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc.errors import DTypeError, SideEffectError, StaticValueError

from conftest import assert_same, raises_at, same, same_each


# --- bug_02: a constant 0-d bool flag as a runtime condition --------------------------------

def while_not_array_false(x):
    done = np.array(False)
    while not done:
        done = x > 2
        x = x + 1
    return x


def while_go_array_true(x):
    go = np.array(True)
    while go:
        x = x * 2
        go = x < 100
    return x


def while_flag_equals_false(x):
    done = np.zeros((), bool)
    while done == False:  # noqa: E712 - the spelling the sweep found
        done = x.sum() > 10
        x = x + 1
    return x


def while_not_full_false(x):
    done = np.full((), False)
    n = 0
    while not done:
        n += 1
        done = x[n % 3] > 1.5 or n > 5
    return n, done


def if_flag_and_value_in_loop(x):
    flag = np.ones((), bool)
    total = 0.0
    for v in x:
        if flag and v > 0:
            total = total + v
        flag = v < 2
    return total


def while_not_asarray_false(x):
    done = np.asarray(False)
    k = 0
    while not done:
        k += 1
        done = k * x > 5
    return k


@pytest.mark.parametrize("x", [np.int64(0), np.int64(5), np.int32(-3)])
def test_while_not_np_array_false(x):
    same(while_not_array_false, x)


def test_while_on_np_array_true():
    same_each(while_go_array_true, (np.float64(1.0),), (np.float64(200.0),), (np.float64(3.0),))


def test_while_flag_equals_false():
    same_each(while_flag_equals_false, (np.arange(3.0),), (np.arange(6.0),))


def test_while_not_np_full_false():
    same_each(while_not_full_false, (np.array([0.0, 1.0, 2.0]),), (np.zeros(3),))


def test_if_on_constant_flag_inside_runtime_loop():
    same_each(if_flag_and_value_in_loop, (np.array([1.0, -2.0, 3.0, 0.5]),),
              (np.array([3.0, 1.0, 2.5]),))


def test_while_not_asarray_false():
    same_each(while_not_asarray_false, (np.int64(1),), (np.float32(2.5),))


# --- bug_01: a string array from static data, compared while compiling ----------------------

ROWS = ["S.#", ".#G"]


def walls_times(x):
    g = np.array([list(r) for r in ROWS])
    return x * (g == '#')


def open_cells_sum(x):
    g = np.array([list(r) for r in ROWS])
    return x[g == '.'].sum()


def start_and_goal(x):
    g = np.array([list(r) for r in ROWS])
    start = np.argwhere(g == 'S')[0]
    goal = tuple(int(v) for v in np.argwhere(g == 'G')[0])
    return x[start[0], start[1]] + x[goal], goal, len(g)


def one_row_mask(x):
    return np.where(np.array(list("S.#")) == '#', x, 0.0)


def free_as_float32(x):
    g = np.array([list(r) for r in ROWS])
    return x * (g != '#').astype(np.float32)


def loop_over_string_rows(x):
    g = np.array([list(r) for r in ROWS])
    t = 0.0
    for row in g:
        for ch in row:
            if ch == '#':
                t = t + x
    return t


def changed_bool_mask(x):
    walls = np.array([list(r) for r in ROWS]) == '#'
    walls[0, 0] = True
    return x * walls


def string_array_returned(x):
    return x + 1, np.array(list("ab"))


def walls_written_into_argument(x):
    g = np.array([list(r) for r in ROWS])
    x[g == '#'] = -1.0
    return np.sum(g == '#'), (g == 'G').nonzero()


def method_of_constant_mask(x):
    m = np.array([0, 1, 1, 0]) == 1
    return m.nonzero(), m.nonzero()[0] * x


def test_string_grid_compared_to_mask():
    same_each(walls_times, (np.ones((2, 3)),), (np.arange(6).reshape(2, 3),))


@pytest.mark.parametrize("fn, x", [
    (open_cells_sum, np.arange(6.0).reshape(2, 3)),
    (start_and_goal, np.arange(6).reshape(2, 3)),
    (one_row_mask, np.ones(3, np.float32)),
    (free_as_float32, np.ones((2, 3))),
    (loop_over_string_rows, np.float32(2)),
    (changed_bool_mask, np.ones((2, 3), np.int32)),
    (string_array_returned, 1.5),
    (walls_written_into_argument, np.ones((2, 3))),
    (method_of_constant_mask, np.float32(2)),
])
def test_string_array_from_static_data(fn, x):
    same(fn, x)


def string_picked_at_run_time(x, i):
    g = np.array([list(r) for r in ROWS])
    return g[i, 0] == 'S'


def string_array_changed(x):
    g = np.array([list(r) for r in ROWS])
    g[0, 0] = '#'
    return x * (g == '#')


def test_string_array_used_at_run_time_is_refused_with_compare_hint():
    # (a static i picks the string while compiling: test_fixes_session48J1)
    err = raises_at(string_picked_at_run_time, (1.0, np.int64(0)), DTypeError,
                    match="holds strings", line_of="g[i, 0]", cache=False)
    assert "grid == '#'" in err.hint


def test_string_array_changed_is_refused_truthfully():
    err = raises_at(string_array_changed, (np.ones((2, 3)),), SideEffectError,
                    match="changing a string array", line_of="g[0, 0] = '#'", cache=False)
    assert "outside" not in str(err)


# --- bug_03: the hint for a str indexed at run time -----------------------------------------

def arrows(Q):
    return ''.join('^>v<'[a] for a in Q.argmax(axis=1))


def arrow_of_state(Q, s):
    return "UDLR"[int(Q[s].argmax())]


@pytest.mark.parametrize("fn, args", [
    (arrows, (np.array([[0., 1, 0, 0], [1, 0, 0, 0]]),)),
    (arrow_of_state, (np.eye(4), 2)),
])
def test_str_indexed_at_run_time(fn, args):
    # (refused with a hint until session 48 P3: now a runtime choice among
    # its characters, chosen_values.picked)
    assert tpucc.compile(fn, cache=False)(*args) == fn(*args)


def test_list_of_strings_indexed_at_run_time_is_a_choice():
    # (refused with a hint until session 48: now a runtime choice among the
    # strings, chosen_values.picked)
    def pick(Q):
        return ['^', '>', 'v', '<'][int(Q.argmax())]
    assert tpucc.compile(pick, cache=False)(np.arange(4.0)) == "<"


# --- bug_04: a user sequence as an array operand -------------------------------------------

class Chain:
    def __init__(self, T):
        self.T = T

    def __len__(self):
        return self.T.shape[0]

    def __getitem__(self, s):
        return self.T[s]


class IterChain(Chain):
    """__iter__ gives the items NumPy reads (list(x)), not __getitem__."""
    def __iter__(self):
        return iter([self.T[0] * 2, self.T[1] * 2])


class Numbers:
    def __init__(self, values):
        self.values = values

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        return self.values[i]


class NoLen:
    """Only __getitem__: NumPy makes a 0-d object array of it."""
    def __getitem__(self, i):
        return float(i)


T = np.array([[0.9, 0.1], [0.2, 0.8]])


def same_with_objects(fn, *arg_tuples):
    """same_each for arguments holding user objects (which compare by
    identity): equal results, and each object's arrays unchanged."""
    compiled = tpucc.compile(fn, cache=False)
    for args in arg_tuples:
        before = [dict(vars(a)) if hasattr(a, "__dict__") else None for a in args]
        assert_same(fn(*args), compiled(*args))
        for a, b in zip(args, before):
            if b is not None:
                assert_same(b, dict(vars(a)))


def via_operator(p, chain):
    return p @ chain


def reflected_operator(p, chain):
    return chain @ p


def added(p, chain):
    return p + chain, np.add(p, chain)


def via_asarray(p, chain):
    return p @ np.asarray(chain)


def static_numbers(x, seq):
    return x * seq


def two_steps(p, chain):
    for _ in range(2):
        p = p @ chain
    return p


@pytest.mark.parametrize("fn", [via_operator, reflected_operator, added, via_asarray, two_steps])
def test_user_sequence_as_operand(fn):
    same_with_objects(fn, (np.array([1., 0.]), Chain(T)), (np.array([0.5, 0.5]), Chain(T * 2)))


def test_user_sequence_float32_and_iter():
    same_with_objects(via_operator, (np.array([1., 2.], np.float32), Chain(T.astype(np.float32))))
    same_with_objects(via_operator, (np.array([1., 0.]), IterChain(T)))


def test_user_sequence_of_static_numbers():
    same_with_objects(static_numbers, (np.arange(3.0), Numbers([1, 2, 3])))
    same_with_objects(static_numbers, (np.arange(3, dtype=np.int32), Numbers((1.5, 2.0, 0.5))))


def test_np_asarray_of_user_sequence_reads_its_arrays_at_every_call():
    compiled = tpucc.compile(via_asarray, cache=False)
    chain = Chain(T.copy())
    np.testing.assert_allclose(compiled(np.array([1., 0.]), chain), [0.9, 0.1])
    chain.T = np.array([[0.3, 0.7], [0.2, 0.8]])
    np.testing.assert_allclose(compiled(np.array([1., 0.]), chain), [0.3, 0.7])


def test_object_without_len_still_refused():
    err = raises_at(via_operator, (np.array([1., 0.]), NoLen()), DTypeError,
                    match="object array", line_of="p @ chain", cache=False)
    assert "NoLen" in str(err)
