"""Session 49B: cellular automata and grid simulations.

Fixes:
- A dict keyed by enum members (`{c: int((g == c.value).sum()) for c in
  Cell}`, a census of a grid's cell states) came back holding tpucc's
  internal Array objects instead of numbers: enum members are static keys
  now (state.has_static_keys), in results, arguments and loop state.
- `dy, dx = heading.value`, where `heading` is an enum member chosen at run
  time and its value a tuple `(-1, 0)`, was refused (E300): a tuple result
  of each object is a tuple of choices (chosen_values._mapped_items).
- A static dict, list or tuple indexed by such a choice (`RIGHT[heading]`,
  a turn table) was refused: each key's item is looked up
  (chosen_values.looked_up); `ORDER.index(heading)` too
  (chosen_values.reads_static_container).
- A list the function made, appended to in a loop that a runtime `return`
  leaves early (`history.append(g)` after `if np.array_equal(old, g):
  return t - k`), was refused: "appending on some runtime paths only".
  The path that returned never reads the list again, so its length there
  does not matter (dead_containers.py).
- A method of the program's enum called on a member chosen at run time
  (`d = d.turned(white)` in Langton's ant) was refused: it is a function
  chosen at run time among the members' bound methods
  (chosen_values._program_methods), and `Heading((h.value + 1) % 4)`, an
  enum looked up by a runtime int of few values, a choice among the
  members (chosen_values.member_by_value; a value no member has raises
  ValueError).
- np.logical_xor.reduce (the parity of a neighbourhood, an XOR rule) was
  refused as unsupported: it is the bitwise xor of the values' truths.
"""
import enum

import numpy as np

from conftest import raises_at, same_each


class Cell(enum.Enum):
    EMPTY = 0
    HEAD = 1
    TAIL = 2


def test_enum_keyed_census_of_a_grid_is_returned_as_numbers():
    def census(g, steps):
        counts = {c: 0 for c in Cell}
        for _ in range(steps):
            g = np.roll(g, 1, axis=1)
            for c in Cell:
                counts[c] += int((g == c.value).sum())
        return counts, {c: (g == c.value).mean() for c in Cell}

    g = np.array([[0, 1, 2, 1], [2, 2, 0, 1]])
    same_each(census, (g, 2), (g[::-1].copy(), 3))


def test_enum_keyed_dict_in_a_runtime_loop_and_branch():
    def runs(g, n):
        counts = {c: 0 for c in Cell}
        i = 0
        while i < n:
            for c in Cell:
                counts[c] += int((g == c.value).sum())
            i += 1
        if g.sum() > 3:
            counts[Cell.HEAD] = -1
        return counts

    same_each(runs, (np.array([0, 1, 1]), 3), (np.array([2, 2, 1]), 0))


class Dir(enum.Enum):
    N = (-1, 0)
    E = (0, 1)
    S = (1, 0)
    W = (0, -1)


RIGHT = {Dir.N: Dir.E, Dir.E: Dir.S, Dir.S: Dir.W, Dir.W: Dir.N}
LEFT = {v: k for k, v in RIGHT.items()}
ORDER = [Dir.N, Dir.E, Dir.S, Dir.W]


def test_langtons_ant_with_enum_headings_and_turn_tables():
    def ant(grid, steps):
        h, w = grid.shape
        y, x = h // 2, w // 2
        d = Dir.N
        for _ in range(steps):
            d = RIGHT[d] if grid[y, x] == 0 else LEFT[d]
            grid[y, x] = 1 - grid[y, x]
            dy, dx = d.value
            y, x = (y + dy) % h, (x + dx) % w
        return y, x, d, d.name

    same_each(ant, (np.zeros((5, 5), np.int8), 6), (np.eye(5, dtype=np.int8), 6))


def test_enum_heading_index_in_a_runtime_while():
    def walk(turns, n):
        d = Dir.N
        y = x = i = 0
        while i < n:
            k = ORDER.index(d)
            d = ORDER[(k + 1) % 4] if turns[i % len(turns)] else ORDER[(k + 3) % 4]
            y += d.value[0]
            x += d.value[1]
            i += 1
        return y, x, d

    same_each(walk, (np.array([1, 0, 1, 1]), 5), (np.array([0, 0, 1]), 7))


def test_turn_table_missing_key_raises_keyerror_when_chosen():
    table = {Dir.N: (-1, 0), Dir.E: (0, 1)}

    def step(g):
        d = Dir.W if g[0] > 0 else Dir.E
        return table[d]

    same_each(step, (np.array([0]),))
    raises_at(step, (np.array([1]),), error=KeyError, line_of="return table[d]")


def life(g):
    n = sum(np.roll(np.roll(g, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1)) - g
    return ((n == 3) | ((g == 1) & (n == 2))).astype(g.dtype)


def test_period_found_by_comparing_with_a_history_list():
    def period(g, max_steps):
        history = [g]
        for t in range(1, max_steps + 1):
            g = life(g)
            for k, old in enumerate(history):
                if np.array_equal(old, g):
                    return t - k
            history.append(g)
        return -1

    blinker = np.zeros((5, 5), np.int64)
    blinker[2, 1:4] = 1
    glider = np.zeros((5, 5), np.int64)
    glider[0, 1] = glider[1, 2] = glider[2, 0] = glider[2, 1] = glider[2, 2] = 1
    same_each(period, (blinker, 4), (glider, 4), (np.zeros((5, 5), np.int64), 4))


def test_list_collected_before_an_early_return_in_a_static_loop():
    def first_positive(x):
        seen = []
        for i in range(4):
            if x[i] > 0:
                return i
            seen.append(x[i])
        return len(seen)

    same_each(first_positive, (np.array([-1, -2, 3, 4]),), (np.array([-1, -2, -3, -4]),))

    # (where the path that returns returns the list, its length matters)
    def collected(x):
        out = []
        for i in range(3):
            if x[i] > 0:
                return out
            out.append(x[i])
        return out

    raises_at(collected, (np.array([-1, 2, 3]),), match="some runtime paths only",
              line_of="out.append(x[i])")


def test_logical_xor_reduce_parity_rule():
    def parity(g):
        stacked = np.stack([np.roll(g, s, axis=a) for s in (-1, 1) for a in (0, 1)])
        return (np.logical_xor.reduce(stacked, axis=0), np.logical_xor.reduce(g, axis=None),
                np.logical_xor.reduce(g, axis=1, keepdims=True, where=g > 1, initial=True))

    g = np.array([[1, 2, 0], [3, 0, 0], [0, 0, 5]])
    same_each(parity, (g,), (g.astype(float) * np.nan,))


class Heading(enum.Enum):
    N = 0
    E = 1
    S = 2
    W = 3

    def turned(self, right):
        return Heading((self.value + (1 if right else 3)) % 4)

    def delta(self):
        return ((-1, 0), (0, 1), (1, 0), (0, -1))[self.value]


def test_enum_methods_of_a_heading_chosen_at_run_time():
    def ant(grid, limit):
        h, w = grid.shape
        y, x, d = h // 2, w // 2, Heading.N
        n = 0
        while 0 < y < h - 1 and n < limit:
            d = d.turned(grid[y, x] == 0)
            grid[y, x] ^= 1
            dy, dx = d.delta()
            y, x = y + dy, (x + dx) % w
            n += 1
        return n, d

    same_each(ant, (np.zeros((5, 5), np.int64), 30), (np.eye(5, dtype=np.int64), 3))


def test_enum_of_a_runtime_value_without_a_member_raises_valueerror():
    def heading(g):
        v = 4 if g[0] > 0 else 2 if g[1] > 0 else 0
        return Heading(v)

    same_each(heading, (np.array([0, 1]),), (np.array([0, 0]),))
    raises_at(heading, (np.array([1, 0]),), error=ValueError, line_of="return Heading(")
