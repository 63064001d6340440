"""Session 47X4: a static object chosen on a runtime condition (sweep bug_04).

`status = "ok" if n < 3 else "many"` with a runtime n was refused (E300,
"only arrays and numbers can differ between runtime paths, not text").  A
value that is one of several static immutable objects (strings, None,
numbers of different kinds, enum members) on different runtime paths is now
a runtime position among them (infer/chosen_values.py): the caller gets the
object of the path taken; ==, !=, is, in, truth and print work; a use that
needs the object itself is refused at its line.
"""
from __future__ import annotations

import enum
import textwrap

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import assert_same, raises_at


def same(fn, *args):
    """Compiled (no cache) and eager results equal, types included."""
    expected = fn(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    actual = tpucc.compile(fn, cache=False)(*args)
    assert_same(expected, actual)
    return actual


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


class Level(enum.IntEnum):
    LOW = 0
    HIGH = 1


XS = [np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.5, 0.0]), np.array([0.0, 0.0, 0.25])]


# --- the sweep's programs ---------------------------------------------------------------

def counted_status(x):
    n = 0
    while x.sum() > n:
        n += 1
    return "ok" if n < 3 else "many"


@pytest.mark.parametrize("x", [np.ones(4), np.ones(2), np.zeros(3)])
def test_status_from_a_runtime_while_count(x):
    assert same(counted_status, x) in ("ok", "many")


def rk_adaptive(y0, t_end, tol):
    t, h, y, nfev = 0.0, 0.1, y0.copy(), 0
    while t < t_end:
        h = min(h, t_end - t)
        k1 = -2.0 * y
        k2 = -2.0 * (y + h * k1)
        err = np.abs(h * (k2 - k1) / 2).max()
        nfev += 2
        if err <= tol:
            t += h
            y = y + 0.5 * h * (k1 + k2)
        h = 0.9 * h * (tol / max(err, 1e-12)) ** 0.5
    status = "ok" if nfev < 100 else "too many"
    return y, t, nfev, status


@pytest.mark.parametrize("tol", [1e-2, 1e-6])
def test_solver_status_string(tol):
    same(rk_adaptive, np.ones(3), 1.0, tol)


# --- merges: if, elif, conditional expressions, and/or, early returns ---------------------

def elif_labels(x):
    if x.sum() > 3:
        label = "big"
    elif x.min() < 0:
        label = "negative"
    else:
        label = "small"
    return label, x * 2


def none_or_text(x):
    msg = None
    if x[0] < 0:
        msg = "first is negative"
    return msg


def and_or(x):
    return x[0] > 0 and "yes" or None


def early_returns(x):
    for i in range(x.shape[0]):
        if x[i] > 1.5:
            return i, "found"
    return -1, "missing"


def mixed_kinds(x):
    v = None if x[0] > 0 else (3 if x[1] > 0 else "neither")
    return v


def enum_members(x):
    mode = Mode.FAST if x.sum() > 1 else Mode.SLOW
    level = Level.HIGH if x[0] > 0 else Level.LOW
    return mode, level


def in_containers(x):
    s = "a" if x[0] > 0 else "b"
    return [s, 1], {"k": s, "n": (s, s)}


@pytest.mark.parametrize("fn", [elif_labels, none_or_text, and_or, early_returns, mixed_kinds,
                                enum_members, in_containers])
@pytest.mark.parametrize("x", XS)
def test_paths_binding_different_objects(fn, x):
    same(fn, x)


def test_the_caller_gets_the_very_member():
    out = tpucc.compile(enum_members, cache=False)(np.array([1.0, 2.0]))
    assert out[0] is Mode.FAST and out[1] is Level.HIGH


# --- what a program may do with one --------------------------------------------------------

def comparisons(x):
    s = "ok" if x[0] > 0 else ("bad" if x[1] > 0 else None)
    return (s == "ok", s != "bad", s is None, s is not None, s in ("ok", "x"),
            s not in ["bad"], bool(s), not s)


def two_choices(x):
    s = "ok" if x[0] > 0 else None
    t = "ok" if x[1] > 0 else None
    r = 0
    if s == t:
        r += 1
    if s is None:
        r += 10
    if t:
        r += 100
    return r, s != t


def passed_to_own_function(x):
    def describe(status, y):
        return (y * 2 if status == "ok" else y), [status]
    status = "ok" if x.sum() > 0 else "failed"
    out = []
    out.append(status)
    return describe(status, x), out


def branch_on_choice(x):
    mode = "double" if x[0] > 0 else "half"
    if mode == "double":
        return x * 2.0
    return x / 2


@pytest.mark.parametrize("fn", [comparisons, two_choices, passed_to_own_function,
                                branch_on_choice])
@pytest.mark.parametrize("x", XS)
def test_uses_of_a_choice(fn, x):
    same(fn, x)


def test_printed(capfd):
    def f(x):
        s = None if x[0] > 0 else "negative"
        print("status:", s)
        print("big" if x.sum() > 1 else "small")
        return x
    compiled = tpucc.compile(f, cache=False)
    compiled(np.array([1.0, 2.0]))
    compiled(np.array([-1.0, 0.5]))
    assert capfd.readouterr().out.splitlines() == ["status: None", "big", "status: negative",
                                                    "small"]


# --- runtime loops carry it ------------------------------------------------------------

def converges(x, tol):
    status = "running"
    err = 1.0
    it = 0
    while it < 50:
        err = err * 0.5
        it += 1
        if err < tol:
            status = "converged"
            break
    return it, status


def last_event(x):
    event = None
    i = 0
    while i < x.shape[0] and x[i] != 0:
        if x[i] > 1:
            event = "up"
        elif x[i] < -1:
            event = "down"
        i += 1
    return event, i


def compares_what_it_carries(x):
    s, k, n = "a", 0, 0
    while n < x.sum():
        n += 1
        if s == "b":
            k += 1
        if n > 1:
            s = "b"
    return s, k


@pytest.mark.parametrize("tol", [1e-3, 1e-30])
def test_loop_status(tol):
    same(converges, np.ones(2), tol)


@pytest.mark.parametrize("x", [np.array([2.0, -3.0, 0.5, 0.0, 5.0]), np.array([0.5, 0.0]),
                               np.array([0.0, 4.0]), np.array([3.0, 0.5, 1.0])])
def test_loop_choices_among_three(x):
    same(last_event, x)


@pytest.mark.parametrize("x", [np.array([1.0, 3.0]), np.array([-1.0, 1.0]), np.array([0.5])])
def test_loop_compares_a_choice_it_makes_later(x):
    same(compares_what_it_carries, x)


# --- uses that need the object: refused at their line ---------------------------------------

def _status(x):
    return "ok" if x[0] > 0 else "bad"


def refused_method(x):
    s = _status(x)
    return s.split("o")   # <- here   (a list: no object a choice holds)


def refused_sorted(x):
    s = _status(x)
    return sorted([s, "zz"])   # <- here   (a dict's item by it compiles: test_fixes_session49A.py)


def refused_as_key(x):
    s = _status(x)
    return {s: x}   # <- here


def refused_unpacking(x):
    s = "ab" if x[0] > 0 else "cd"
    a, b = s   # <- here
    return a


def refused_isinstance(x):
    s = _status(x)
    return isinstance(s, str)   # <- here


@pytest.mark.parametrize("fn, what", [
    (refused_unpacking, "iterating over it"), (refused_isinstance, r"passing it to isinstance\(\)"),
    (refused_method, r"`\.split\(\)`"), (refused_sorted, r"to sorted\(\)"),
    (refused_as_key, "as a dict key or set item")])
# (len(s), s + "!" and s < "z" give each object's result: test_fixes_session48X5.py;
# s.upper(), f"status: {s}" and "".join([s, "!"]): test_fixes_session48P3.py)
def test_uses_that_need_the_object_are_refused_at_their_line(fn, what):
    err = raises_at(fn, (np.ones(2),), E.MergeError, what + " needs the object itself",
                    line_of="<- here")
    assert "compared (==, !=, is, in a tuple)" in err.hint


def test_an_array_and_none_still_refused():
    def f(x):
        y = x * 2 if x[0] > 0 else None   # <- here
        return y
    err = raises_at(f, (np.ones(2),), E.MergeError, "incompatible", line_of="<- here")
    assert "None" in err.hint


# --- ahead of time: the loaded entry returns the object too ---------------------------------

def test_artifact_returns_the_object(tmp_path):
    from tpucc import aot
    model = tmp_path / "status_model.py"
    model.write_text(textwrap.dedent('''
        import numpy as np
        from tpucc.aot import entry

        @entry("f64[3]")
        def status(x):
            n = 0
            while x.sum() > n:
                n += 1
            return n, ("ok" if n < 3 else None)
    '''))
    [b] = aot.build_file(str(model), str(tmp_path))
    loaded = tpucc.load(b.path)
    assert loaded(np.ones(3)) == (3, None)
    assert loaded(np.zeros(3)) == (0, "ok")


def test_artifact_refuses_an_enum_choice_clearly(tmp_path):
    from tpucc import aot
    model = tmp_path / "enum_model.py"
    model.write_text(textwrap.dedent('''
        import enum
        from tpucc.aot import entry

        class Mode(enum.Enum):
            A = 1
            B = 2

        @entry("f64[3]")
        def mode(x):
            return Mode.A if x.sum() > 0 else Mode.B
    '''))
    with pytest.raises(tpucc.TpuccError, match="a static object chosen at run time among "
                                               "others .*which an artifact cannot store"):
        aot.build_file(str(model), str(tmp_path))


# --- a trace record (tpucc.snapshot) keeps the objects a returned choice indexes ---------

STATUS_MODEL = """
import numpy as np


def status(x):
    n = 0
    while x.sum() > n:
        n += 1
    return n, ("ok" if n < 3 else None)
"""


def test_replayed_trace_returns_the_object(tmp_path, monkeypatch):
    import importlib
    import sys
    from tpucc import cache, driver
    monkeypatch.setenv("TPUCC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")
    monkeypatch.delenv("TPUCC_CACHE", raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "status_trace_model.py").write_text(STATUS_MODEL)
    cache.reset_stats()

    def fresh_process():
        sys.modules.pop("status_trace_model", None)
        importlib.invalidate_caches()
        return tpucc.compile(importlib.import_module("status_trace_model").status)
    assert fresh_process()(np.ones(3)) == (3, None)
    assert cache.stats()["trace_stores"] == 1
    replayed = fresh_process()
    monkeypatch.setattr(driver, "run_infer", lambda *a, **k: pytest.fail("infer ran"))
    assert replayed(np.ones(3)) == (3, None) and replayed(np.zeros(3)) == (0, "ok")
    assert cache.stats()["trace_hits"] >= 1


# --- attributes and items hold one too; a loop may bind it first -----------------------------

class Solver:
    def __init__(self):
        self.status = "init"
        self.steps = 0


def attribute_choice(x):
    s = Solver()
    if x[0] > 0:
        s.status = "done"
    return s.status


def attribute_in_loop(x):
    s = Solver()
    i = 0
    while i < x.sum():
        i += 1
        if i > 2:
            s.status = "done"
    return s.status, i


def items(x):
    lst, d = ["a", 1], {"s": None}
    if x[0] > 0:
        lst[0] = "b"
        d["s"] = "set"
    return lst, d


def first_bound_in_loop(x):
    i = 0
    while i < x.sum():
        status = "big" if x[0] > i else "small"
        i += 1
    return status


def unrolled_loop_choice(x):
    best = None
    for i in range(3):
        if x[i] > 0:
            best = i
    return best


def toggles_in_long_loop(x):
    st = "even"
    for i in range(x.shape[0]):
        if x[i] > 0:
            st = "odd" if st == "even" else "even"
    return st


@pytest.mark.parametrize("fn", [attribute_choice, attribute_in_loop, items, first_bound_in_loop,
                                unrolled_loop_choice])
@pytest.mark.parametrize("x", [np.array([1.0, -2.0, 3.0]), np.array([-1.0, 0.5, 1.25]),
                               np.array([3.0, 2.0, 1.0])])
def test_slots_holding_a_choice(fn, x):
    same(fn, x)


@pytest.mark.parametrize("x", [np.ones(40), np.arange(-20.0, 21.0)])
def test_choice_in_a_long_loop(x):
    same(toggles_in_long_loop, x)


def test_loop_binding_it_first_may_leave_it_unbound():
    with pytest.raises(tpucc.TpuccError, match="cannot access local variable 'status'"):
        tpucc.compile(first_bound_in_loop, cache=False)(np.zeros(3))


def refused_nested_fstring(x):
    s = _status(x)
    return f"{[s]}"   # <- here


def refused_nested_print(x):
    s = _status(x)
    print([s])   # <- here
    return x


@pytest.mark.parametrize("fn, what", [
    (refused_nested_fstring, "formatting it into a string"),
    (refused_nested_print, r"passing it to print\(\)")])
def test_a_choice_inside_a_container_is_not_formatted_as_itself(fn, what):
    raises_at(fn, (np.ones(2),), E.MergeError, what + " needs the object itself",
              line_of="<- here")


def test_printed_in_a_runtime_branch(capfd):
    def f(x):
        s = "pos" if x[0] > 0 else None
        if x[1] > 0:
            print("in branch:", s)
        return x
    compiled = tpucc.compile(f, cache=False)
    for x in (np.array([1.0, 1.0]), np.array([-1.0, 1.0]), np.array([1.0, -1.0])):
        compiled(x)
    assert capfd.readouterr().out.splitlines() == ["in branch: pos", "in branch: None"]
