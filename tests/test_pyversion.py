"""Python 3.13's bytecode turned into the canonical instructions of 3.11 and
3.12 (frontend/pyversion.py), tested on any Python: the instructions are
made by hand, as `bytecode` would decode them, and run through the real
handlers.  On 3.13 itself the whole suite runs on real code."""
from __future__ import annotations

import types

import pytest

from tpucc.frontend import pyversion
from tpucc.infer import interpreter
from tpucc.infer.interpreter import NULL

PY312, PY313 = (3, 12), (3, 13)


def canonical(instrs, version=PY313, cells=frozenset()):
    """(name, arg) pairs -> the canonical (op, arg) pairs of one block."""
    state = pyversion.BlockState(cells, version)
    out = []
    for name, arg in instrs:
        out.extend(pyversion.canonicalize(types.SimpleNamespace(name=name, arg=arg),
                                          lambda label: label, state))
    return out


class FakeInterp:
    """The interpreter's services these handlers use, on static values."""
    call = staticmethod(lambda fn, args, kwargs: fn(*args, **kwargs))
    getattr = staticmethod(getattr)
    static_items = staticmethod(tuple)
    fresh = staticmethod(lambda obj: obj)


def run(ops, stack=()):
    """Runs canonical non-terminator ops on a bare frame; returns the frame."""
    frame = interpreter.Frame.__new__(interpreter.Frame)
    frame.interp, frame.stack, frame.format_runtime = FakeInterp(), list(stack), None
    frame.globals, frame.locals, frame.cells, frame.plain_cells = {}, {}, {}, set()
    frame.bound_flags = set()
    for op, arg in ops:
        interpreter.HANDLERS[op](frame, arg)
    return frame


def test_superinstructions_are_split_in_order():
    assert canonical([("LOAD_FAST_LOAD_FAST", ("x", "w")),
                      ("STORE_FAST_STORE_FAST", ("a", "b")),
                      ("STORE_FAST_LOAD_FAST", ("v", "v"))]) == [
        ("LOAD_FAST", "x"), ("LOAD_FAST", "w"), ("STORE_FAST", "a"), ("STORE_FAST", "b"),
        ("STORE_FAST", "v"), ("LOAD_FAST", "v")]


def test_unpacking_into_a_superinstruction_stores_the_first_item_first():
    # 3.13's `a, b = 1, 2`: UNPACK_SEQUENCE 2; STORE_FAST_STORE_FAST (a, b)
    frame = run([("LOAD_CONST", (1, 2)), ("UNPACK_SEQUENCE", 2)] +
                canonical([("STORE_FAST_STORE_FAST", ("a", "b"))]))
    assert frame.locals == {"a": 1, "b": 2} and frame.stack == []


def test_a_load_fast_of_a_cell_is_the_closure_load():
    """3.13 turned LOAD_CLOSURE into LOAD_FAST, also inside LOAD_FAST_LOAD_FAST."""
    cells = frozenset({"a", "b"})
    assert canonical([("LOAD_FAST", "a"), ("LOAD_FAST_LOAD_FAST", ("a", "x")),
                      ("LOAD_FAST", "x")], cells=cells) == [
        ("LOAD_CLOSURE", "a"), ("LOAD_CLOSURE", "a"), ("LOAD_FAST", "x"), ("LOAD_FAST", "x")]


def test_push_null_goes_below_the_callable_on_313_only():
    assert canonical([("PUSH_NULL", None)], PY313) == [("PUSH_NULL", None), ("SWAP", 2)]
    assert canonical([("PUSH_NULL", None)], PY312) == [("PUSH_NULL", None)]
    # 3.13's `g(2)`: LOAD_FAST g; PUSH_NULL; LOAD_CONST 2; CALL 1
    ops = [("LOAD_CONST", abs)] + canonical([("PUSH_NULL", None)]) + [
        ("LOAD_CONST", -2), ("CALL", (1, ()))]
    assert run(ops).stack == [2]


def test_the_pop_of_the_iterator_after_end_for_is_dropped_on_313_only():
    """FOR_ITER pops the exhausted iterator and skips END_FOR (and on 3.13
    the POP_TOP after it): the loop's exit block must not pop again."""
    block = [("END_FOR", None), ("POP_TOP", None), ("POP_TOP", None)]
    assert canonical(block, PY313) == [("POP_TOP", None)]
    assert canonical(block, PY312) == [("POP_TOP", None), ("POP_TOP", None)]


def test_to_bool_is_left_to_the_branch():
    assert canonical([("TO_BOOL", None), ("UNARY_NOT", None)]) == [("UNARY_NOT", None)]


def test_call_kw_takes_its_names_from_the_stack():
    def f(a, b=0, *, c=0):
        return (a, b, c)
    ops = [("LOAD_CONST", f), ("PUSH_NULL", None), ("SWAP", 2), ("LOAD_CONST", 1),
           ("LOAD_CONST", 2), ("LOAD_CONST", 3), ("LOAD_CONST", ("b", "c"))] + \
        canonical([("CALL_KW", 3)])
    assert run(ops).stack == [(1, 2, 3)]


@pytest.mark.parametrize("conversion, expected", [(1, "x'y"), (2, "\"x'y\""),
                                                  (3, "\"x'y\"")])
def test_f_string_conversion_and_format(conversion, expected):
    ops = [("LOAD_CONST", "x'y")] + canonical([("CONVERT_VALUE", conversion),
                                               ("FORMAT_SIMPLE", 0)])
    assert run(ops).stack == [expected]


def test_f_string_format_spec():
    ops = [("LOAD_CONST", 3.14159), ("LOAD_CONST", ">8.2f")] + \
        canonical([("FORMAT_WITH_SPEC", 0)])
    assert run(ops).stack == ["    3.14"]


def test_function_attributes_are_set_one_by_one():
    """3.13: MAKE_FUNCTION makes a bare function, SET_FUNCTION_ATTRIBUTE adds
    defaults (1), keyword defaults (2), annotations (4) and the closure (8)."""
    def outer():
        k = 10

        def inner(a, b=1, *, c=2) -> int:
            return a + b + c + k
        return inner
    code = next(c for c in outer.__code__.co_consts if isinstance(c, types.CodeType))
    cell = types.CellType(10)
    ops = [("LOAD_CONST", (cell,)), ("LOAD_CONST", {"return": int}), ("LOAD_CONST", {"c": 5}),
           ("LOAD_CONST", (7,)), ("LOAD_CONST", code), ("MAKE_FUNCTION", 0),
           ("SET_FUNCTION_ATTRIBUTE", 1), ("SET_FUNCTION_ATTRIBUTE", 2),
           ("SET_FUNCTION_ATTRIBUTE", 4), ("SET_FUNCTION_ATTRIBUTE", 8)]
    [fn] = run(ops).stack
    assert fn(1) == 1 + 7 + 5 + 10
    assert fn.__qualname__ == code.co_qualname


def test_the_null_pushed_by_a_method_load_is_canonical():
    """LOAD_ATTR with the method bit pushes NULL below the bound attribute on
    every version, so a following CALL finds the callable."""
    ops = [("LOAD_CONST", "abc"), ("LOAD_ATTR", (True, "upper")), ("CALL", (0, ()))]
    frame = run(ops[:2])
    assert frame.stack[0] is NULL
    assert run(ops).stack == ["ABC"]
