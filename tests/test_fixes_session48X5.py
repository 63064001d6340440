"""Session 48 X5: a static container of strings indexed by a runtime int.

bug_05: `NAMES[int(np.argmax(x))]` of a list of strings and `LABELS[k]` of a
dict with int keys were refused (E400).  The item is now a runtime choice
among the container's objects (infer/chosen_values.py), with Python's
IndexError / KeyError raised when the call returns for a position past the
end or a key the dict lacks; an operator with static objects (`LABELS[k] +
"!"`) and len()/str()... of a choice give each object's result, with
Python's own error where the object taken is one it raises for.
"""
from __future__ import annotations

import enum

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import assert_same, raises_at

NAMES = ["cat", "dog", "bird"]
MIXED = ("a", None, 2.5, "z")
LABELS = {0: "low", 1: "mid", 2: "high"}
SPARSE = {-3: "neg", 10: "ten", 1000: "big"}
NUMBERS = {0: 1.5, 1: 2.5, 3: 4.0}
ROWS = {0: np.arange(3.0), 1: -np.arange(3.0)}


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


MODES = [Mode.FAST, Mode.SLOW]


def same(fn, *args):
    expected = fn(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    actual = tpucc.compile(fn, cache=False)(*args)
    assert_same(expected, actual)
    return actual


# --- the report's repro ----------------------------------------------------------------------

def top_name(x):
    i = int(np.argmax(x))
    return NAMES[i]


def label(x):
    k = int(x.sum() > 1) + int(x.sum() > 2)
    return LABELS[k] + "!"


@pytest.mark.parametrize("x", [np.array([0.1, 0.7, 0.2]), np.array([0.9, 0.7, 0.2]),
                               np.array([0.1, 0.2, 3.0])])
def test_the_repro(x):
    same(top_name, x)
    same(label, x)


# --- lists and tuples ------------------------------------------------------------------------

def pick_list(x, at):
    return NAMES[int(at[0])]


def pick_mixed_tuple(x, at):
    return MIXED[int(at[0])]


def pick_enum(x, at):
    return MODES[int(at[0])]


def pick_local_list_holding_a_choice(x, at):
    s = "hi" if x.sum() > 1 else None
    return [s, "x", "y"][int(at[0])]


def pick_narrow_key(x, at):
    return NAMES[at[0]]             # (an int8 element, as NumPy's index)


@pytest.mark.parametrize("fn, at", [
    (pick_list, 0), (pick_list, 2), (pick_list, -1), (pick_list, -3),
    (pick_mixed_tuple, 1), (pick_mixed_tuple, 2), (pick_mixed_tuple, -1),
    (pick_enum, 1), (pick_local_list_holding_a_choice, 0),
    (pick_local_list_holding_a_choice, 2)])
def test_a_static_sequence_of_objects_indexed_at_run_time(fn, at):
    same(fn, np.array([0.5, 0.7]), np.array([at]))


@pytest.mark.parametrize("x", [np.array([0.5, 0.7]), np.array([0.1, 0.2])])
def test_a_picked_item_that_is_itself_a_choice(x):
    same(pick_local_list_holding_a_choice, x, np.array([0]))


def test_a_narrow_int_key():
    same(pick_narrow_key, np.ones(2), np.array([-2], np.int8))


@pytest.mark.parametrize("fn, at, kind", [(pick_list, 3, "list"), (pick_list, -4, "list"),
                                          (pick_mixed_tuple, 4, "tuple")])
def test_past_either_end_is_pythons_index_error(fn, at, kind):
    with pytest.raises(IndexError):
        fn(np.ones(2), np.array([at]))
    err = raises_at(fn, (np.ones(2), np.array([at])), E.RuntimeRaiseError,
                    f"{kind} index out of range", line_of="return", cache=False)
    assert isinstance(err, IndexError)


def pick_under_runtime_if(x, at):
    if x.sum() > 1:
        return NAMES[int(at[0])]
    return "none"


def test_an_index_check_under_a_runtime_if_fires_only_where_it_runs():
    same(pick_under_runtime_if, np.zeros(2), np.array([7]))
    same(pick_under_runtime_if, np.ones(2), np.array([1]))
    with pytest.raises(IndexError):
        tpucc.compile(pick_under_runtime_if, cache=False)(np.ones(2), np.array([7]))


# --- dicts with int keys ---------------------------------------------------------------------

def look_up_labels(x, k):
    return LABELS[int(k[0])]


def look_up_sparse(x, k):
    return SPARSE[int(k[0])]


def look_up_numbers(x, k):
    return NUMBERS[int(k[0])] * 2


def look_up_rows(x, k):
    return ROWS[int(k[0])] + x


def look_up_by_flag(x, k):
    return LABELS[bool(x[0] > 0.5)]


@pytest.mark.parametrize("fn, key", [
    (look_up_labels, 0), (look_up_labels, 2), (look_up_sparse, -3), (look_up_sparse, 1000),
    (look_up_numbers, 3), (look_up_rows, 1), (look_up_by_flag, 0)])
def test_an_int_keyed_dict_read_at_a_runtime_key(fn, key):
    same(fn, np.array([0.7, 0.2, 0.1]), np.array([key]))
    same(fn, np.array([0.1, 0.2, 0.1]), np.array([key]))


@pytest.mark.parametrize("fn, key", [(look_up_labels, 3), (look_up_labels, -1),
                                     (look_up_sparse, 11), (look_up_numbers, 2)])
def test_a_key_the_dict_lacks_is_pythons_key_error(fn, key):
    with pytest.raises(KeyError):
        fn(np.ones(3), np.array([key]))
    err = raises_at(fn, (np.ones(3), np.array([key])), E.RuntimeRaiseError, str(key),
                    line_of="return", cache=False)
    assert isinstance(err, KeyError)


def look_up_str_keys(x):
    return {"a": 1.0, "b": 2.0}[int(x[0])]   # <- here


def test_a_dict_of_other_keys_is_still_refused():
    raises_at(look_up_str_keys, (np.ones(2),), E.StaticValueError,
              "indexing a Python container with a runtime value", line_of="<- here",
              cache=False)


# --- what the program does with the choice ---------------------------------------------------

def operators(x, at):
    s = NAMES[int(at[0])]
    return s + "!", "<" + s, s * 2, s < "d", s >= "cat", s == "dog", s in ("dog", "cat")


def two_choices(x, at):
    a, b = NAMES[int(at[0])], NAMES[int(at[1])]
    return a + b, a < b, a != b


def formats_with_percent(x, at):
    return "%s-tag" % NAMES[int(at[0])]


def builtins_of_it(x, at):
    s = NAMES[int(at[0])]
    return len(s), str(s), repr(s), x * len(s), float(len(s)) + 0.5


def branches_on_it(x, at):
    if NAMES[int(at[0])] == "dog":
        return x * 2
    return x


@pytest.mark.parametrize("at", [(0, 1), (1, 1), (2, 0), (-1, -3)])
def test_operators_and_builtins_give_each_objects_result(at):
    x, at = np.array([0.5, 1.5]), np.array(at)
    same(operators, x, at)
    same(two_choices, x, at)
    same(formats_with_percent, x, at)
    same(builtins_of_it, x, at)
    same(branches_on_it, x, at)


def adds_to_mixed(x, at):
    return MIXED[int(at[0])] + "!"


def negates_mixed(x, at):
    return -MIXED[int(at[0])]


def len_of_mixed(x, at):
    return len(MIXED[int(at[0])])


@pytest.mark.parametrize("fn, at", [(adds_to_mixed, 0), (adds_to_mixed, 3), (negates_mixed, 2),
                                    (len_of_mixed, 0), (len_of_mixed, -1)])
def test_objects_python_accepts(fn, at):
    same(fn, np.ones(2), np.array([at]))


@pytest.mark.parametrize("fn, at", [(adds_to_mixed, 1), (adds_to_mixed, 2), (negates_mixed, 0),
                                    (len_of_mixed, 1), (len_of_mixed, 2)])
def test_an_object_python_raises_for_raises_its_error_at_run_time(fn, at):
    args = (np.ones(2), np.array([at]))
    with pytest.raises(TypeError) as eager:
        fn(*args)
    err = raises_at(fn, args, E.RuntimeRaiseError, line_of="return", cache=False)
    assert isinstance(err, TypeError) and str(eager.value) in err.message


def grows_in_a_runtime_loop(x, at):
    tag = "x"
    s = NAMES[int(at[0])]
    for _ in range(int(at[1])):
        tag = tag + s   # <- here
    return tag


def test_a_new_object_at_each_iteration_of_a_runtime_loop_is_refused_at_its_line():
    raises_at(grows_in_a_runtime_loop, (np.ones(2), np.array([1, 3])), E.MergeError,
              "the operator `\\+` makes a new object at each iteration", line_of="<- here",
              cache=False)


def split_of_it(x, at):
    return NAMES[int(at[0])].split("a")   # <- here


def test_a_method_whose_result_no_choice_holds_still_needs_the_object():
    # (`.upper()` is each object's since session 48 P3: test_fixes_session48P3.py;
    # a list is no object a choice may hold)
    err = raises_at(split_of_it, (np.ones(2), np.array([1])), E.MergeError,
                    r"`\.split\(\)` needs the object itself", line_of="<- here", cache=False)
    assert "a runtime index picks" in err.message


VOCAB = ["<eos>", "a", "b", "c"]


def detokenize(tokens):
    return "".join(VOCAB[int(t)] for t in tokens)   # <- here


def test_joining_picked_strings_compiles_for_a_few():
    # (each combination's text since session 48 P3)
    tokens = np.array([1, 2, 3])
    assert tpucc.compile(detokenize, cache=False)(tokens) == detokenize(tokens) == "abc"


def test_joining_many_picked_strings_is_refused_as_needing_the_strings():
    # (it was Python's own TypeError naming ChosenValue, as an E700; 4 ** 12
    # combinations are too many to tabulate)
    err = raises_at(detokenize, (np.arange(12) % 4,), E.MergeError,
                    r"passing it to str\.join\(\) needs the object itself", line_of="<- here",
                    cache=False)
    assert "outside the compiled function" in err.hint


def len_of_a_list_holding_a_choice(x, at):
    return len([NAMES[int(at[0])], 1, None])


def test_the_length_of_a_list_holding_a_choice():
    same(len_of_a_list_holding_a_choice, np.ones(2), np.array([1]))


def lengths_in_a_long_loop(x):
    total = 0
    for i in range(20_000):     # (a runtime While, not 20 000 unrolled bodies)
        total += len(NAMES[i % 3])
    return x + total


def test_a_long_loop_over_picked_strings_is_one_while():
    same(lengths_in_a_long_loop, np.ones(2))


def suffixed_in_a_runtime_loop(x, n):
    t = "none"
    i = 0
    while i < int(n[0]):
        t = NAMES[i % 3] + "!"      # (the same three objects at each trial of the body)
        i += 1
    return t


def suffixed_choice_in_a_runtime_loop(x, n):
    t = "none"
    i = 0
    while i < int(n[0]):
        s = "pos" if x[i % 2] > 0 else "neg"
        t = s + "!"
        i += 1
    return t, len(t)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_an_operator_on_a_choice_in_a_runtime_loop(n):
    same(suffixed_in_a_runtime_loop, np.array([1.0, -1.0]), np.array([n]))
    same(suffixed_choice_in_a_runtime_loop, np.array([1.0, -1.0]), np.array([n]))


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 5


class Tagged(enum.Enum):
    A = "a"
    B = "b"

    def __add__(self, other):
        return self.value + other


def level_arithmetic(x):
    c = Level.HIGH if x[0] > 0 else Level.LOW
    return c * 2, c + 0.5, x * (c * 2)


def tagged_addition(x):
    c = Tagged.A if x[0] > 0 else Tagged.B
    return c + "!"   # <- here


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_an_int_enum_choice_in_arithmetic_is_a_runtime_number(sign):
    same(level_arithmetic, sign * np.ones(2))


def test_an_operator_the_program_defines_on_its_enum_is_still_refused():
    # (mapping would run the program's __add__ natively, not interpreted)
    raises_at(tagged_addition, (np.ones(2),), E.MergeError,
              r"the operator `\+` needs the object itself", line_of="<- here", cache=False)
