"""Session 48 P3: a str indexed by a runtime int, and methods / f-strings of
a runtime choice among static objects (tpucc/infer/chosen_values.py).

- bug_08: `"^>v<"[a]` with a runtime `a` was refused (E400), and so were
  `s.upper()`, `s.startswith("d")`, `s.replace(...)` and `f"/{s}"` of
  `s = NAMES[i]` (E300).  A str indexed by a runtime int is now a choice
  among its characters; attributes, methods, items, f-strings and
  `"-".join(...)` of a choice give each object's result, as operators do;
  a runtime int of a few values formatted into an f-string is a choice
  among their texts.  A result no choice may hold (a list), an error
  compiled code does not raise (AttributeError of None), or too many
  combinations stay refused at their line (E300).
"""
from __future__ import annotations

import enum

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import raises_at, same_deep, same_each

NAMES = ["cat", "dog", "bird"]


def check(fn, *arg_tuples):
    """Compiled once, eager and compiled equal for each argument tuple: values and
    Python types at every depth, and the arguments after the call."""
    same_each(fn, *arg_tuples, compare=same_deep)


def onehots(n):
    return [(np.eye(n)[k] + 0.5,) for k in range(n)]


# --- a str indexed by a runtime int: a choice among its characters -------------------------

def arrow(x):
    return "^>v<"[int(np.argmax(x))]


def arrow_numpy_key(x):
    return "^>v<"[np.argmax(x)]           # (a NumPy int64 key)


def arrow_from_end(x):
    return "abcd"[int(np.argmax(x)) - 4]


def arrows_joined(Q):
    return "".join("^>v<"[a] for a in Q.argmax(axis=1))


def repeated_characters(x):
    c = "aab!"[int(np.argmax(x))]
    return c, c == "a", c.isalpha()


@pytest.mark.parametrize("fn", [arrow, arrow_numpy_key, arrow_from_end, repeated_characters])
def test_str_indexed_by_a_runtime_int(fn):
    check(fn, *onehots(4))


def test_str_characters_joined():
    check(arrows_joined, (np.array([[0., 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]]),),
          (np.eye(3, 4),))


def past_the_end(x):
    return "ab"[int(np.argmax(x))]   # <- here


def test_str_index_past_the_end_raises_index_error():
    compiled = tpucc.compile(past_the_end, cache=False)
    assert compiled(np.array([1.0, 0, 0])) == "a"
    with pytest.raises(IndexError, match="string index out of range"):
        compiled(np.array([0, 0, 1.0]))


# --- methods and attributes: each object's result -------------------------------------------

def shout(x):
    s = NAMES[int(np.argmax(x))]
    return s.upper() + f"/{s}:{len(s)}"


def starts(x):
    s = NAMES[int(np.argmax(x))]
    return s.startswith("d"), s.replace("o", "0"), s.count("o"), s.find("i")


def methods_with_keywords(x):
    s = NAMES[int(np.argmax(x))]
    return s.center(7, "*"), s.encode(encoding="ascii"), s.rstrip("gd"), s.title()


def method_of_a_branch_choice(x):
    s = "ok" if x[0] > 0 else "bad"
    return s.upper() == "OK", s.capitalize(), s.isalpha()


def method_with_a_choice_argument(x):
    s = NAMES[int(np.argmax(x))]
    return s.replace(s[0], s[-1].upper()), "dogma".startswith(s), "<{}>".format(s)


def chained_in_a_runtime_loop(x, n):
    t = NAMES[int(np.argmax(x))]
    i = 0
    while i < n[0]:
        t = t.upper()
        i += 1
    return t


class Color(enum.Enum):
    RED = 1
    GREEN = "g"


COLORS = [Color.RED, Color.GREEN, Color.RED]


def member_attributes(x):
    c = COLORS[int(np.argmax(x))]
    return c.name, c.value, c.name.lower()


@pytest.mark.parametrize("fn", [shout, starts, methods_with_keywords,
                                method_with_a_choice_argument, member_attributes])
def test_method_of_a_picked_string(fn):
    check(fn, *onehots(3))


def test_method_of_a_branch_choice():
    check(method_of_a_branch_choice, (np.array([1.0, 2.0]),), (np.array([-1.0, 2.0]),))


def test_method_chained_in_a_runtime_loop():
    check(chained_in_a_runtime_loop, (np.array([0.0, 1.0, 0.0]), np.array([2])),
          (np.array([1.0, 0.0, 0.0]), np.array([0])))


def items_of_it(x):
    s = NAMES[int(np.argmax(x))]
    return s[0], s[1:], s[::-1], s[-2]


def test_items_of_a_choice():
    check(items_of_it, *onehots(3))


# --- f-strings and joins ---------------------------------------------------------------------

def formatted(x):
    s = "ok" if x[0] > 0 else None
    return f"status: {s}", f"{s!r:>8}|", f"[{s:^{6}}]" if s is not None else "-"


def formatted_picked(x):
    s = NAMES[int(np.argmax(x))]
    return f"{s}-{s.upper()}", f"{s!s}", f"{s!a}"


def formatted_int(x):
    k = int(np.argmax(x))
    return f"k={k}", f"{k:03d}", f"{k:.2f}", f"{np.argmax(x)!r}", f"{bool(x[0] > 0.6)}"


def joined(x):
    s = NAMES[int(np.argmax(x))]
    return "-".join([s, "!"]), "".join((s, s))


VOCAB = ["<eos>", "a", "b", "c"]


def detokenize(tokens):
    return "".join(VOCAB[int(t)] for t in tokens)


def labels_in_a_loop(x):
    out = []
    for i in range(3):
        out.append(f"{i}:{NAMES[int(np.argmax(x))]}")
    return out


@pytest.mark.parametrize("fn", [formatted_picked, formatted_int, joined, labels_in_a_loop])
def test_formatted_choices(fn):
    check(fn, *onehots(3))


def test_formatted_branch_choice():
    check(formatted, (np.array([1.0, 2.0]),), (np.array([-1.0, 2.0]),))


def test_joined_tokens():
    check(detokenize, (np.array([1, 2, 3]),), (np.array([0, 3, 3]),))


def printed(x):
    s = NAMES[int(np.argmax(x))]
    print(f"picked {s}!")
    return x


def test_printed_f_string_of_a_choice(capfd):
    tpucc.compile(printed, cache=False)(np.array([0.0, 1.0, 0.0]))
    assert "picked dog!" in capfd.readouterr().out


# --- still refused, at the user's line -------------------------------------------------------

def split_of_it(x):
    s = NAMES[int(np.argmax(x))]
    return s.split("o")   # <- here


def upper_of_none(x):
    s = "ok" if x[0] > 0 else None
    return s.upper()   # <- here


def grows_in_a_runtime_loop(x, n):
    t = NAMES[int(np.argmax(x))]
    for _ in range(n[0]):
        t = f"{t}a"   # <- here
    return t


def many_tokens(tokens):
    return "".join(NAMES[int(t)] for t in tokens)   # <- here


def unbounded_int(x):
    return f"{int(x[0])}"   # <- here


@pytest.mark.parametrize("fn, args, error, match", [
    (split_of_it, (np.ones(3),), E.MergeError, r"`\.split\(\)` needs the object itself"),
    (upper_of_none, (np.ones(3),), E.MergeError,
     r"`\.upper\(\)`, which raises AttributeError for one of the objects"),
    (grows_in_a_runtime_loop, (np.ones(3), np.array([2])), E.MergeError,
     "an f-string makes a new object at each iteration of a runtime loop"),
    # (3 ** 9 texts: more new objects than a choice is given)
    (many_tokens, (np.arange(9) % 3,), E.MergeError,
     r"passing it to str\.join\(\) needs the object itself"),
    (unbounded_int, (np.ones(3),), E.StaticValueError,
     "formatting a runtime value into a string needs its value at compile time"),
])
def test_still_refused_at_the_line(fn, args, error, match):
    raises_at(fn, args, error, match, line_of="<- here", cache=False)
