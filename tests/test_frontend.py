"""The frontend's canonical blocks: CPython 3.12's duplicated exits merged
back (frontend/tails.py), on hand-made blocks (any Python) and on real
code (the duplication happens on 3.12)."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo, raises_at
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


def divides_under_errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = x / 0
        z = np.log(np.array([0.0, -1.0]))      # folded while compiling: no warning either
    return y, z


def nullcontext_in_a_runtime_branch(x):
    if x.sum() > 0:
        with contextlib.nullcontext() as nothing:
            x = x + 1 if nothing is None else x
    return x


def test_with_np_errstate_and_nullcontext_compile():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # a compile-time NumPy warning would fail
        check(divides_under_errstate, np.ones(2))
    for x in (np.ones(2), -np.ones(2)):
        compiled = check(nullcontext_in_a_runtime_branch, x)
    assert count_hlo(hlo(compiled, np.ones(2)), "conditional") >= 1


def breaks_out_of_a_with_in_a_runtime_loop(x, n):
    for _ in range(n):
        with np.errstate(all="ignore"):
            if x[0] > 3:
                break           # leaves the `with` (its exit runs) and the loop
            x = x + 1
    return x


def continues_inside_a_with_in_a_runtime_while(x):
    while x.sum() < 10:
        with np.errstate(all="ignore"):
            x = x * 2
            if x[0] > 5:
                continue
            x = x + 1
    return x


def test_with_blocks_left_early_under_runtime_control_flow():
    step = tpucc.compile(breaks_out_of_a_with_in_a_runtime_loop, runtime_args=("n",))
    for n in (0, 2, 6):
        np.testing.assert_array_equal(step(np.ones(2), n),
                                      breaks_out_of_a_with_in_a_runtime_loop(np.ones(2), n))
    assert count_hlo(hlo(step, np.ones(2), 3), "while") == 1
    for x in (np.ones(2), np.full(2, 4.0)):
        check(continues_inside_a_with_in_a_runtime_while, x)
