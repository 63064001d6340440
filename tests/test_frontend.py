"""The frontend's canonical blocks: CPython 3.12's duplicated exits merged
back (frontend/tails.py), on hand-made blocks (any Python) and on real
code (the duplication happens on 3.12)."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at
from tpucc.errors import Loc
from tpucc.frontend import Block, Instr, decode
from tpucc.frontend.tails import merge_duplicated_tails


def _instr(op, arg=None, line=1):
    return Instr(op, arg, Loc("f.py", line, 0, "f"))


def _exit(first, *shared):
    return [_instr(*first)] + [_instr(*s) for s in shared]


TAIL = [("CALL", (1, ()), 5), ("POP_TOP", None, 5), ("LOAD_FAST", "acc", 6),
        ("RETURN_VALUE", None, 6)]


def test_two_copies_of_an_exit_share_one_block():
    a = Block(1, _exit(("UNARY_NEGATIVE", None, 5), *TAIL), None)
    b = Block(2, _exit(("BINARY_SUBSCR", None, 5), *TAIL), None)
    blocks = [Block(0, [_instr("JUMP", 1)], None), a, b]
    merge_duplicated_tails(blocks)
    assert len(blocks) == 4
    tail = blocks[3]
    assert [i.op for i in tail.instrs] == [op for op, _, _ in TAIL]
    for block in (a, b):
        assert [i.op for i in block.instrs] == [block.instrs[0].op, "JUMP"]
        assert block.successors() == [3]
    assert tail.instrs[0].loc.line == 5         # the call keeps its line


def test_a_block_that_is_all_tail_becomes_the_target():
    a = Block(1, [_instr(*s) for s in TAIL], None)
    b = Block(2, _exit(("UNARY_NEGATIVE", None, 5), *TAIL), None)
    blocks = [Block(0, [], 1), a, b]
    merge_duplicated_tails(blocks)
    assert len(blocks) == 3 and b.successors() == [1]
    assert len(a.instrs) == len(TAIL)


def test_the_same_instructions_from_other_lines_stay_apart():
    """Two `return acc` statements are not copies of one another: merging
    them would move a line number, so an error could name the wrong one."""
    moved = [(op, arg, line + 10) for op, arg, line in TAIL]
    a = Block(1, _exit(("UNARY_NEGATIVE", None, 5), *TAIL), None)
    b = Block(2, _exit(("UNARY_NEGATIVE", None, 15), *moved), None)
    blocks = [Block(0, [], 1), a, b]
    merge_duplicated_tails(blocks)
    assert len(blocks) == 3 and a.successors() == [] and b.successors() == []


def test_equal_but_different_constants_stay_apart():
    """1 == True, but `return 1` and `return True` return different values."""
    a = Block(1, [_instr("POP_TOP"), _instr("LOAD_CONST", 1), _instr("RETURN_VALUE")], None)
    b = Block(2, [_instr("POP_TOP"), _instr("LOAD_CONST", True), _instr("RETURN_VALUE")], None)
    blocks = [Block(0, [], 1), a, b]
    merge_duplicated_tails(blocks)
    assert len(blocks) == 3 and [len(a.instrs), len(b.instrs)] == [3, 3]


# --- real code: one call after a conditional expression, on 3.11 and 3.12 ----------------

def append_choice(x, n):
    acc = []
    acc.append(x[0] if n > 0 else -x[0])
    return acc


def append_nested_choice(x, n):
    acc = []
    acc.append(x[0] if n > 0 else (x[1] if n > -5 else x[2]))
    return acc


def store_choice(x, n):
    d = {}
    d["v"] = x[0] if n > 0 else x[1]
    return d


class Log:
    def __init__(self):
        self.items = []

    def record(self, x, n):
        self.items.append(x.sum() if n > 0 else x.max())
        return self.items


def log_choice(x, n):
    return Log().record(x, n)


def _ops(fn):
    return [i.op for b in decode(fn.__code__).blocks for i in b.instrs]


@pytest.mark.parametrize("fn, calls", [(append_choice, 1), (append_nested_choice, 1)])
def test_the_call_after_a_conditional_expression_is_decoded_once(fn, calls):
    ops = _ops(fn)
    assert ops.count("CALL") == calls and ops.count("RETURN_VALUE") == 1


@pytest.mark.parametrize("fn", [append_choice, append_nested_choice, store_choice, log_choice])
@pytest.mark.parametrize("n", [np.int64(3), np.int64(-2), np.int64(-9)])
def test_mutation_after_a_runtime_conditional_expression(fn, n):
    check(fn, np.arange(4.0), n)


def sum_of_a_choice(x, n):
    total = np.sum(x[0] if n > 0 else x[1:3])
    return total


def test_arms_of_different_shapes_are_named_as_the_expression():
    """The value a conditional expression leaves for its caller has no
    variable name: the message names the expression and its line."""
    raises_at(sum_of_a_choice, (np.arange(5.0), np.int64(3)), tpucc.errors.MergeError,
              match=r"arms of this `a if c else b`.* different shapes: f64\[\] and f64\[2\]",
              line_of="np.sum(x[0] if")
