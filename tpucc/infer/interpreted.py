"""Python the interpreter runs in place of a builtin over an array's many
rows: the loop is then the program's own, and a long one is one While
(`map(f, x)` over 500 rows was 500 copies of f, 16 s of XLA; a
comprehension over them was one While, 0.2 s).  Short ones stay the
builtins' own loops, unrolled (their results static where they can be)."""
from __future__ import annotations


def mapped(fn, *iterables):
    """map(fn, *iterables), as a generator the interpreter runs."""
    for args in zip(*iterables):
        yield fn(*args)


def starmapped(fn, iterable):
    """itertools.starmap(fn, iterable)."""
    for args in iterable:
        yield fn(*args)


def reduced(fn, iterable, initial):
    """functools.reduce(fn, iterable, initial)."""
    acc = initial
    for item in iterable:
        acc = fn(acc, item)
    return acc


def accumulated(rows, func, initial):
    """itertools.accumulate(rows, func, initial=initial) over an array's
    rows (`rows[i]` is the row Python's iterator gives): each total is
    func(total, row), or total + row, as the library computes it."""
    if initial is None:
        total = rows[0]
        start = 1
    else:
        total = initial
        start = 0
    yield total
    for i in range(start, len(rows)):
        total = total + rows[i] if func is None else func(total, rows[i])
        yield total


def reflected(op, x, y):
    """x.__radd__(y) of an array x and the like: y + x, which is NumPy's
    np.add(y, x) for the operands it takes."""
    return op(y, x)
