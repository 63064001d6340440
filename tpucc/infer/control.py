"""Structured control flow from the CFG, by abstract interpretation.

`walk` interprets a frame from a block until control reaches one of `stops`.
Its result is an Exit: the block where control went, or, when that depends
on runtime values, a runtime index (`code`) into several possible targets.

- A branch on a static value just follows one successor.
- A branch on a runtime value interprets both arms up to their join (the
  branch's immediate post-dominator), each into its own region, and merges
  the arms' states into one Cond op (state.py decides slot types).  Arms that
  leave early (break / continue / return) make the exit a runtime choice;
  what follows the join then runs under a guard Cond on that choice.
- A loop is first unrolled one iteration at a time, and becomes one While
  op when that cannot go on (loops.py).
"""
from __future__ import annotations

import collections
import contextlib
import re
import types
from dataclasses import dataclass, field

import numpy as np

from ..errors import ESCAPED_RUNTIME_REGION, MergeError, SideEffectError, UserCodeError
from ..frontend.cfg import dead_locals
from ..ir import AVal, Region, Value
from ..ops import elementwise
from . import (builder, chosen_functions, chosen_values, dead_containers, escaping, guarded_ranges,
               held_ints, iterators, optional_numbers, popped_queues, value_objects)
from .builder import ctx, emit, emit_op
from .held_values import CarriedValueLeaves
from .iterators import RangeIter, SeqIter
from .state import (container_paths, describe_static, flatten, held_dict_hint, held_value_hint,
                    is_carried_value, is_plain_object, leaf_aval, merge_subject, pretty_path,
                    rebuild_state, settled_test, state_leaves, static_equal, taken_whole,
                    unflatten, unify, with_article)
from .values import (ABSENT, AliasNote, Array, RuntimeKind, Undefined, finish_items, int_bounds,
                     items_before, journal_before, new_serial_floor, put_item, ranged_span,
                     appended_item, read_item, set_item)

RETURN = -2
MAX_UNROLL = 10_000


@dataclass
class Exit:
    targets: tuple
    code: Array | None = None                 # runtime index into targets
    depths: dict = field(default_factory=dict)  # stack depth per target

    @property
    def static(self) -> bool:
        return self.code is None


# --- regions with a journal of in-place updates ----------------------------------------

@contextlib.contextmanager
def journaled_region(params=(), runtime=True, effects_barrier=None, frame=None, loop=False):
    """A fresh region; in-place updates of Arrays made before it are journaled
    (and undone on exit) so the caller can merge or discard them.  Python
    containers made before it may not change inside it when it is an
    effects barrier (by default: when it is a runtime region).  `frame`: the
    frame whose branch or loop it is (its locals, cell variables included,
    are what the region's end state merges); `loop`: whether it is a loop's
    body (or an arm of a runtime range's `has another item?` branch)."""
    c = ctx()
    barrier = runtime if effects_barrier is None else effects_barrier
    # Where the frame opened it: an exception raised inside is caught only
    # by a `try` around that point (exceptions.to_handler).
    opened = runtime and frame is not None
    if opened:
        frame.open_regions.append(frame.current.handler if frame.current else None)
    with builder.new_region(params) as rb:
        rb.runtime, rb.parent = runtime, c.regions[-2]
        c.runtime_depth += runtime
        if runtime:
            c.runtime_loops.append(loop)
        c.serial_floor.append(new_serial_floor())
        if runtime and loop:
            c.loop_floors.append(c.serial_floor[-1])
        if barrier:
            c.effect_floor.append(c.serial_floor[-1])
            c.effect_frames.append(frame)
        c.journal.append({})
        c.item_journal.append({})
        record = {"builder": rb, "journal": c.journal[-1], "items": c.item_journal[-1]}
        try:
            yield record
        except BaseException as e:
            # An attempt that fails (a While retried as an unrolled loop)
            # leaves the outer arrays and containers it changed as they were.
            finish_journal(record["journal"])
            finish_items(record["items"])
            if runtime and isinstance(e, UserCodeError):
                e.level = ESCAPED_RUNTIME_REGION
            raise
        finally:
            c.journal.pop()
            c.item_journal.pop()
            if barrier:
                c.effect_floor.pop()
                c.effect_frames.pop()
            c.serial_floor.pop()
            c.runtime_depth -= runtime
            if runtime:
                c.runtime_loops.pop()
            if runtime and loop:
                c.loop_floors.pop()
            if opened:
                frame.open_regions.pop()


def finish_journal(journal: dict) -> dict:
    """Ends an arm: returns {array: value at the end} and restores each
    journaled array to its value from before the region."""
    ends = {arr: arr.var for arr in journal}
    for arr, before in journal.items():
        arr.restore(before)
    return ends


# --- walking ------------------------------------------------------------------------

def walk(frame, start: int, stops: frozenset, entering: int | None = None) -> Exit:
    block = start
    first = True
    while True:
        if block == RETURN or (block in stops and not (first and block == entering)):
            guarded_ranges.reached(frame, block)
            return Exit((block,), None, {block: len(frame.stack)})
        if block in frame.fc.loop_headers and not (first and block == entering):
            # (a loop a walk starts at may be entered under a runtime test:
            # a `while` whose first test is runtime, continued by continue_multi)
            ex = run_loop(frame, block, stops, entered_statically=not first)
        else:
            ex = frame.run_block(block, stops)
        first = False
        if not ex.static:
            ex = continue_multi(frame, ex, stops)
            if not ex.static:
                return ex
        block = ex.targets[0]
        depth = ex.depths.get(block)
        if depth is not None:       # slots padded for deeper paths are dead here
            del frame.stack[depth:]


def continue_multi(frame, ex: Exit, stops) -> Exit:
    """A runtime choice of targets: each target inside the current region runs
    under a guard Cond until only targets in `stops` remain.

    The paths meet where they all go on (a loop's `break` and its end both go
    on after the loop): each runs up to there, and the code from there runs
    once, not once per path (in a row of unrolled loops that a runtime `break`
    may leave, under tpucc.grad: once per combination of their exits).  Where
    the paths reach it with different static values (a Python number, a
    shape), that would make them runtime or fail: then, as before, the code
    after runs once per path, each with its own static values.  But that
    code then runs inside a guard Cond, where changing a list, a dict or an
    object made before it is refused (`out.append(v)` after a `for ... else`
    whose loop a runtime `break` may leave): where it is, the paths meet
    after all, their differing static values merged as a runtime `if`'s
    are."""
    join = _common_join(frame.fc, ex.targets, stops)
    if join is None:
        return _continue_paths(frame, ex, stops)
    c, key = ctx(), (frame.fc.code, join)
    if key not in c.unjoined:
        out, _ = _attempt(frame, lambda: _continue_paths(frame, ex, stops, join), _PathsDiffer)
        if out is not None:
            return out
        c.unjoined.add(key)
    # (tried each time, not remembered as `unjoined` is: a function inlined
    # at another call may run the code after once per path there)
    out, apart = _attempt(frame, lambda: _continue_paths(frame, ex, stops), SideEffectError)
    if out is not None:
        return out
    try:
        return _continue_paths(frame, ex, stops, join, same_statics=False)
    except SideEffectError:
        raise apart from None       # (the paths' own refusal: the one to report)


def _attempt(frame, run, recoverable):
    """run() in a region of its own, added to the current one if it works:
    (its result, None); if it raises `recoverable` (an exception class):
    (None, the error), with the frame's state, the arrays and the items it
    changed as they were before (an error of another class, raised, undoes
    them too: journaled_region)."""
    locals0, stack0, current = dict(frame.locals), list(frame.stack), frame.current
    guarded0 = dict(frame.guarded_whiles)       # (loops._unroll's guarded `while`s)
    with journaled_region(runtime=False) as rec, watch_scope() as marks, \
            iterators.cursor_journal() as moved:
        try:
            out, error = run(), None
        except recoverable as e:
            out, error = None, e
            finish_journal(rec["journal"])
            finish_items(rec["items"])
            iterators.undo_cursors(moved)   # (the iterators too: where they stood)
    end_watch_scope(marks, error is None)
    if error is not None:
        frame.locals, frame.stack, frame.current = locals0, stack0, current
        frame.guarded_whiles = guarded0
        return None, error
    builder.splice(rec["builder"], ctx().region)
    for arr, before in rec["journal"].items():
        journal_before(arr, before)
    items_before(rec["items"])
    return out, None


class _PathsDiffer(MergeError):
    """Paths that meet where they go on hold different static values there
    (continue_multi then continues each on its own)."""


# The note of continue_multi's guard Conds: the paths a runtime `break`,
# `continue` or `return` took meet there.
GUARD_NOTE = "guard:"


def _continue_paths(frame, ex: Exit, stops, join=None, same_statics=True) -> Exit:
    """continue_multi's guard Conds; with `join`, each path stops there, and
    with `same_statics` they must agree there on static values."""
    while not ex.static:
        inside = sorted(t for t in ex.targets if t not in stops and t != RETURN)
        if not inside:
            return ex
        target = next((t for t in inside if t != join), inside[0])
        others = frozenset(t for t in inside if t != target) | ({join} - {None, target})
        index = ex.targets.index(target)
        if _raise_checked(frame, ex, target, index):
            # (a loop's `else: raise ...`, or a raise after a loop that a
            # runtime `return` may leave: a check, as under a runtime `if`)
            ex = _without(ex, target)
            _trim_dead_stack(frame, ex)
            continue
        pred = emit("equal", ex.code, index)
        taken = lambda f, t=target, d=ex.depths: _truncate(f, d[t])  # noqa: E731

        def guard(walk_stops, e=ex, t=target):
            return branch_regions(frame, pred, [
                (lambda f: walk(f, t, walk_stops), taken),
                (lambda f: _without(e, t), None),
            ], note=f"{GUARD_NOTE} code after block {t} runs only on the path that reached it",
                same_statics_at=join if same_statics else None)
        try:
            ex = _guard_meeting_others(frame, guard, target, stops, others)
        except _PathsDiffer:
            raise
        except MergeError as e:
            # No instruction of the user's is running here: the paths meet
            # where the code that only one of them runs begins.
            raise e.with_loc(_first_loc(frame, target)) from None
        _trim_dead_stack(frame, ex)
        if ex.static and ex.targets[0] not in stops:
            return ex
    return ex


def _guard_meeting_others(frame, guard, target: int, stops, others) -> Exit:
    """guard(stops | others): the path stops where the other pending paths
    go on (`others`), so that code runs once for all of them.  Where they
    would reach it holding values that cannot merge (a loop over a ragged
    list that a runtime `return s.mean()` or `break` may leave in any
    iteration: `s` of another length on each path), this path runs that
    code on its own instead, guard(stops), where nothing of its needs to
    merge with theirs.  (A _PathsDiffer is continue_multi's to handle.)"""
    c, key = ctx(), (frame.fc.code, target, others)
    if not others or key in c.unmet:
        return guard(stops)
    ex, error = _attempt(frame, lambda: guard(stops | others), MergeError)
    if error is None:
        return ex
    if isinstance(error, _PathsDiffer):
        raise error
    # (remembered: the unrolled iterations after this one would try it in turn)
    c.unmet.add(key)
    return guard(stops)


def _common_join(fc, targets, stops) -> int | None:
    """The first block that every path from each of the `targets` inside the
    region reaches (their nearest common post-dominator), if there are two
    or more and it is not a stop."""
    inside = [t for t in targets if t not in stops and t != RETURN]
    if len(inside) < 2:
        return None
    chains = []
    for t in inside:
        chain = [t]
        while (up := fc.ipdom.get(chain[-1])) is not None:
            chain.append(up)
        chains.append(chain)
    rest = [set(c) for c in chains[1:]]
    join = next((b for b in chains[0] if all(b in r for r in rest)), None)
    return None if join in stops else join


def _merge_hint(values, what: str = "", path: str = "", made_here: bool = True) -> str:
    if "loop" in what and not made_here and len({type(v) for v in values}) == 1 and \
            is_plain_object(values[0]):
        # (`for b in bodies` left early, `b` read after the loop)
        name = type(values[0]).__name__
        return (f"which {name} object this is where the paths meet would be known only at run "
                "time (a loop may be left at any item), and compiled code must know each object "
                "while compiling: read what you need from it inside the loop, before leaving "
                "(`hit_x = b.x.copy(); break`), and use that after the loop")
    if "loop" in what and len({type(v) for v in values}) == 1 and is_plain_object(values[0]):
        name = type(values[0]).__name__
        return (f"each iteration makes a new {name} object, and a runtime loop carries only "
                f"values: make {name} a namedtuple or a frozen dataclass "
                "(`@dataclass(frozen=True)`), which loops carry item by item, or make one "
                "object before the loop and set its attributes in the body")
    if all(_is_function(v) for v in values):
        return ("which function this is would be known only at run time: call it where it is "
                "known, before the paths meet (`y = f(x); break` in a loop over functions), "
                "and use its result after")
    if any(v is None for v in values):
        return ("an array on one path and None on another cannot be one value: where one "
                "path gives None, give a value of the others' kind (np.nan, -1) and, if "
                "needed, a flag that says which path ran")
    if value_objects.alike_but_for_order(values):
        name = type(values[0]).__name__
        orders = " and ".join(", ".join(value_objects.attribute_names(v))
                              for v in values[:2])
        return (f"the paths make {name} objects whose attributes were set in different orders "
                f"({orders}): a new object merged from them keeps one order, and vars(), its "
                "repr and its comparisons would show the other path's: set the attributes in "
                "one order on every path")
    if "`if`" in what and value_objects.alike_objects(values):
        name = type(values[0]).__name__
        return (f"the paths give different {name} objects, which compiled code merges "
                "attribute by attribute into a new one only where the program made each and "
                "no other name holds it (another variable, a container, an object, a bound "
                "method, the caller): a copy would not be the object that name sees; "
                + ("choose the arrays inside instead (`w = np.where(c, a.w, b.w)`, or `a.w if "
                   "c else b.w`), or write it as an `if` statement that rebinds the variable "
                   "on one path only" if path.startswith("<stack") else
                   f"make one of its own before the `if` ({_copy_of(name, values[0], path)}) "
                   "and rebind only this variable"))
    if len({type(v) for v in values}) == 1 and is_plain_object(values[0]):
        name = type(values[0]).__name__
        return (f"which {name} object this is would be known only at run time, and compiled "
                "code must know each object while compiling: choose the arrays inside instead "
                f"(`w = np.where(c, a.w, b.w)`, or `a.w if c else b.w`); or, for a {name} each "
                "path makes, make it once before the `if` and set its attributes on each path "
                "(attributes merge like variables)")
    return ("only arrays and numbers, or static objects such as strings and None (not an "
            "array on one path and an object on another), can differ between runtime paths")


def _copy_of(name: str, obj, path: str) -> str:
    """`pos = V2(pos.x, pos.y)`: a new object made from the attributes."""
    var = path if path.isidentifier() else "p"
    names = value_objects.attribute_names(obj)
    more = ", ..." if len(names) > 3 else ""
    return f"`{var} = {name}(" + ", ".join(f"{var}.{k}" for k in names[:3]) + more + ")`"


def _is_function(v) -> bool:
    """A function, lambda, ufunc or built-in, or a choice among them."""
    return isinstance(v, (chosen_functions.ChosenFunction, np.ufunc, types.FunctionType,
                          types.BuiltinFunctionType))


def _first_loc(frame, block: int):
    return next((b.instrs[0].loc for b in frame.fc.blocks[block:] if b.instrs), None)


def _raise_checked(frame, ex: Exit, target: int, index: int) -> bool:
    """Where block `target` is all a raise of a built-in exception (as
    interpreter.raised_by sees it): a runtime check that the exit does not
    go there, made now; whether it was."""
    from . import checks
    from .interpreter import raised_by
    raised = raised_by(frame, target)
    if raised is None:
        return False
    name, message, loc = raised
    checks.require(emit("not_equal", ex.code, index), message, raises=name, loc=loc,
                   hint=checks.RUNTIME_RAISE_HINT)
    return True


def _without(ex: Exit, target) -> Exit:
    """The exit on paths known not to go to `target`."""
    rest = tuple(t for t in ex.targets if t != target)
    depths = {t: d for t, d in ex.depths.items() if t != target}
    if len(rest) == 1:
        return Exit(rest, None, depths)
    table = np.array([rest.index(t) if t != target else 0 for t in ex.targets], np.int32)
    return Exit(rest, emit("getitem", table, ex.code, key=("array",)), depths)


def _truncate(frame, depth):
    del frame.stack[depth:]


def _trim_dead_stack(frame, ex: Exit):
    """Drops stack slots no remaining target uses.  A merge pads every arm's
    stack to the deepest one (e.g. a `break` path that still holds an inner
    loop's iterator); once that path has run, the padding is dead, and
    keeping it would change the state's structure (a loop body's end would
    no longer match its entry)."""
    depths = [ex.depths.get(t) for t in ex.targets]
    if depths and None not in depths:
        del frame.stack[max(depths):]


def find_join(fc, block: int, stops) -> int | None:
    """The branch's immediate post-dominator if it lies inside the region."""
    join = fc.ipdom.get(block)
    if join is None or join in stops:
        return join
    seen, work = {block}, [block]
    while work:                         # reachable without crossing a stop?
        n = work.pop()
        for s in fc.blocks[n].successors():
            if s == join:
                return join
            if s is not None and s not in seen and s not in stops:
                seen.add(s)
                work.append(s)
    return None


def runtime_branch(frame, block: int, pred: Array, true_target: int, false_target: int,
                   stops, setup_true=None, setup_false=None,
                   note="if: condition depends on a runtime value") -> Exit:
    # (an arm that pops a static list: again, with the list's pops counted)
    return popped_queues.retrying(frame, lambda: _runtime_branch(
        frame, block, pred, true_target, false_target, stops, setup_true, setup_false, note))


def _runtime_branch(frame, block: int, pred: Array, true_target: int, false_target: int,
                    stops, setup_true, setup_false, note) -> Exit:
    join = find_join(frame.fc, block, stops)
    arm_stops = stops | {join} if join is not None else stops
    if _enters_while(frame.fc, block, (true_target, false_target)):
        note = WHILE_ENTRY

    def branch(arm_stops, meet=None):
        return branch_regions(frame, pred, [
            (lambda f: walk(f, true_target, arm_stops), setup_true),
            (lambda f: walk(f, false_target, arm_stops), setup_false),
        ], note=note, same_statics_at=meet, numbers_merge=meet is not None)
    meet = short_circuit_meet(frame.fc, block, (true_target, false_target), join)
    c = ctx()
    if meet is not None and meet not in arm_stops and (frame.fc.code, meet) not in c.unjoined:
        # Both arms stop where they meet; the code from there runs once,
        # after the Cond, under a guard (continue_multi).  Where they hold
        # different static values there, or that code tests again what the
        # arms tested, each goes on on its own, as before.
        out, _ = _attempt(frame, lambda: _meeting_branch(frame, pred, branch, arm_stops, meet,
                                                         stops), _PathsDiffer)
        if out is not None:
            return out
        c.unjoined.add((frame.fc.code, meet))
    return branch(arm_stops)


@dataclass
class _MeetWatch:
    """The conditions a short-circuit test's arms branched on (ids of their
    _truth_root), and whether the code after the meet is running."""
    roots: set
    checking: bool = False


class _Retested(_PathsDiffer):
    """Code after a short-circuit meet branches on a condition the arms
    branched on (`if c and d: ... elif not c: ... elif not d:`): where each
    path ran it, it knew that condition's value (decided_by_guards) and
    could not fall off the end; after the meet it would not."""


def _meeting_branch(frame, pred: Array, branch, arm_stops, meet: int, stops) -> Exit:
    """runtime_branch's branch whose arms stop at `meet`, and the code from
    there (under a guard: continue_multi), watched for _Retested."""
    watch = _MeetWatch({id(_truth_root(pred.var)[0])})
    watches = ctx().meet_watches
    watches.append(watch)
    try:
        ex = branch(arm_stops | {meet}, meet)
        watch.checking = True
        return ex if ex.static else continue_multi(frame, ex, stops)
    finally:
        watches.remove(watch)


def _watch_branch(pred: Array) -> None:
    """A runtime branch on `pred`: noted by the short-circuit meets whose
    arms are running, refused (_Retested) by those whose code after the
    meet is running, where the arms branched on it too."""
    root = id(_truth_root(pred.var)[0])
    for watch in ctx().meet_watches:
        if not watch.checking:
            watch.roots.add(root)
        elif root in watch.roots:
            raise _Retested("a condition tested before a short-circuit meet is tested again")


def short_circuit_meet(fc, block: int, targets, join) -> int | None:
    """The target of a branch that its other target also leads to, before
    the join, where the code from there branches again: the `elif` test of
    `if a and b: ... elif ...`, where both `a` false and `b` false go.
    Each arm walked on from there to the join, so a chain of n such tests
    ran its last one 2 ** n times (when the join is far: a chain of
    `return`s).  (The body of `if a or b or ...:`, which each test's true
    arm runs, stays in each arm: a chain of those Conds, none working
    between them, is one lax.switch: lower.elif_chain.)  Else None."""
    key = (block, join)
    if key not in fc.meets:
        avoid = {block, join}
        fc.meets[key] = next((there for start, there in (targets, targets[::-1])
                              if there not in (join, start)
                              and _reached(fc, start, avoid, lambda n: n == there)
                              and _reached(fc, there, avoid, lambda n: _branches(fc, n))),
                             None)
    return fc.meets[key]


def _branches(fc, n: int) -> bool:
    return len({s for s in fc.blocks[n].successors() if s is not None}) > 1


def _reached(fc, start: int, avoid: set, goal) -> bool:
    """Whether a path from `start` reaches a block where goal(block) holds
    without passing through `avoid` or a loop header (short-circuit tests
    go forward only)."""
    seen, work = {start}, [start]
    while work:
        n = work.pop()
        if n in avoid:
            continue
        if goal(n):
            return True
        if n in fc.loop_headers:
            continue
        for s in fc.blocks[n].successors():
            if s is not None and s not in seen:
                seen.add(s)
                work.append(s)
    return False


# The note of the `if` CPython compiles a `while` loop's first test into
# (the others are at the bottom of the body): messages name the loop.
WHILE_ENTRY = "if: the first test of a `while` loop"


def _enters_while(fc, block: int, targets) -> bool:
    """Whether block's branch is a `while` loop's first test: it goes to
    the loop's header from the `while` statement's line, directly or
    through the rest of that line's test (`while abs(x) > tol and it < n:`
    tests `it < n` in a block of its own before the loop is entered)."""
    line = fc.blocks[block].instrs[-1].loc.line
    seen, work = set(), [(t, True) for t in targets]
    while work:
        t, direct = work.pop()
        if t is None or t in seen:
            continue
        seen.add(t)
        if t in fc.loop_headers:
            loc = fc.loop_locs.get(t)
            # (through other tests, only a `while`'s: a comprehension's
            # blocks share its line too, and its `for` is not entered so)
            if loc is not None and loc.line == line and (direct or not _is_for_header(fc, t)):
                return True
        elif _is_test_of_line(fc.blocks[t], line):
            work.extend((s, False) for s in fc.blocks[t].successors())
    return False


def _is_test_of_line(blk, line: int) -> bool:
    """A block of one of the line's `and`/`or` tests: all on that line,
    ending in a conditional branch."""
    end = blk.terminator
    return bool(blk.instrs) and end is not None and end.op in ("BRANCH", "BRANCH_OR_POP") \
        and all(i.loc.line == line for i in blk.instrs)


def _is_for_header(fc, header: int) -> bool:
    first = next((b.instrs[0] for b in fc.blocks[header:] if b.instrs), None)
    return first is not None and first.op == "FOR_ITER"


def branch_regions(frame, pred: Array, arms, note: str, same_statics_at=None,
                   numbers_merge=False) -> Exit:
    """Interprets each arm (a walk function and a setup) into its own region
    from the same starting state, then merges them into one Cond op
    (`same_statics_at`, `numbers_merge`: see merge_arms)."""
    pred = scalar_bool(pred)
    if ctx().meet_watches:
        _watch_branch(pred)
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    floor = new_serial_floor()
    loc = ctx().loc                 # the branch's line: where the Cond is reported
    current = frame.current         # where each arm's region opens (exceptions.py)
    results, notes, raising = [], [], []
    for index, (run, setup) in enumerate(arms):
        frame.locals, frame.stack = dict(locals0), list(stack0)
        frame.current = current
        with journaled_region(frame=frame, loop=note.startswith("loop:")) as rec, \
                _taking(pred, index == 0), _arm_watches(notes):
            if setup is not None:
                setup(frame)
            try:
                ex = run(frame)
            except UserCodeError as e:
                if not _raises_at_run_time(e):
                    raise
                raising.append((index, e))
            end_vars = state_vars(frame, settled_test())
            end_vars.update((id(v), v.var) for c, k, *_ in rec["items"].values()
                            if isinstance(v := c[k], Array))
            ends = finish_journal(rec["journal"])
            items = finish_items(rec["items"])
        if not raising or raising[-1][0] != index:
            results.append(Arm(rec["builder"], ex, frame.locals, frame.stack, ends, end_vars,
                               items))
    if raising:
        frame.locals, frame.stack, frame.current = dict(locals0), list(stack0), current
        return _only_arm_that_does_not_raise(frame, pred, arms, raising, loc)
    for arr, why in notes:          # (after the `if`, what any path made may alias)
        watch(arr, why)
    with builder.at(loc):
        return merge_arms(frame, pred, results, note, floor, (locals0, stack0),
                          same_statics_at, numbers_merge)


def decided_by_guards(pred: Array) -> bool | None:
    """Whether the runtime branches around this point decide `pred`: it is
    one of their conditions, or its negation (`if c: ... elif not c:`, a
    `match` on a runtime bool with `case True:` and `case False:`), in the
    arm taken where it holds, or not.  None where they do not decide it:
    the branch is a runtime one.  (Without this, the path where neither
    test holds, which never runs, gives the function a None result.)"""
    c = ctx()
    if not c.branch_guards:
        return None
    guards = {}
    for var, selected in c.branch_guards:
        root, negated = _guard_root(c, var)
        guards[id(root)] = selected != negated
    root, negated = _truth_root(pred.var)
    return None if id(root) not in guards else guards[id(root)] != negated


def _guard_root(c, var):
    """_truth_root of a branch's condition, found once: the ops that made it
    stay where they are while the branch is being interpreted.  (Asked again
    at every runtime `if` inside, the search through all the regions and
    guards made deep recursion in unrolled loops quadratic: minutes for a
    4-city top-down TSP.)"""
    found = c.guard_roots.get(id(var))
    if found is None or found[0] is not var:
        found = c.guard_roots[id(var)] = (var, *_truth_root(var))
    return found[1], found[2]


def _truth_root(var):
    """(the bool Value whose truth `var` is, whether it is its negation),
    through the steps _truth_step sees."""
    negated = False
    while (step := _truth_step(var)) is not None:
        var, flips = step
        negated ^= flips
    return var, negated


def _truth_step(var):
    """(the bool Value `var` is the truth of, whether it is its negation)
    where the current region made it by logical_not, a bool convert, or
    a comparison with 0 (`bool(v)`, `v != 0`); else None."""
    op = _made_in_region(var)
    # A creation op (`np.array(False)`, `np.zeros((), bool)`) has no
    # inputs: the flag is its own root.
    if op is None or not op.inputs or op.inputs[0].aval.dtype != np.bool_:
        return None
    if op.name in ("logical_not", "convert"):
        return op.inputs[0], op.name == "logical_not"
    if op.name in ("equal", "not_equal") and len(op.inputs) == 2:
        zero = ctx().constants.get(op.inputs[1])
        if zero is not None and zero.shape == () and zero == 0:
            return op.inputs[0], op.name == "equal"
    return None


# How far back decided_by_guards looks for the op that made a condition.
_GUARD_LOOKBACK = 8


def _made_in_region(var):
    """The op that made `var`, among the last few of the current region or
    of the regions around it (where the branches' conditions were made)."""
    for region in reversed(ctx().regions):
        for op in reversed(region.ops[-_GUARD_LOOKBACK:]):
            for out in op.outputs:
                if out is var:
                    return op
    return None


def _raises_at_run_time(error: UserCodeError) -> bool:
    """Whether the program's error, raised (at compile time) on a path a
    runtime condition takes, can instead be raised when the call returns,
    only where that path runs, as eagerly (`path[10]` past the end of a
    list, `NAMES[k]` missing, `k // 0`, `dist[0] = np.inf` into int64,
    under an `if` that never holds): a built-in exception of the
    program's own that no enclosing `except` of it would catch."""
    from ..errors import RAISABLE_AT_RUN_TIME
    from .exceptions import catcher
    raised = error.raised
    cls = RAISABLE_AT_RUN_TIME.get(type(raised).__name__)
    return cls is type(raised) and catcher(ctx().frames, cls) is None


def _only_arm_that_does_not_raise(frame, pred: Array, arms, raising, loc) -> Exit:
    """One arm of a runtime branch raised (the program's own error): a
    runtime check that the branch does not take it, raising that error
    when the call returns, and the other arm runs on its own, as a
    runtime `if` around a `raise` compiles (interpreter.raised_by).  Both
    raising: the first one's error, as before."""
    from . import checks
    if len(raising) == len(arms):
        raise raising[0][1]
    (index, error), = raising
    taken = pred if index == 0 else emit("logical_not", pred)
    text = str(error.raised) or type(error.raised).__name__
    with builder.at(loc):
        checks.require(emit("logical_not", taken), text, raises=type(error.raised).__name__,
                       loc=error.loc or loc, hint=_RAISED_ON_A_RUNTIME_PATH)
    run, setup = arms[1 - index]
    if setup is not None:
        setup(frame)
    return run(frame)


_RAISED_ON_A_RUNTIME_PATH = ("this line runs only where a runtime condition takes its path: "
                             "compiled code raises the error when the call returns, only if "
                             "that path ran, as eager Python does")


@contextlib.contextmanager
def _taking(pred: Array, selected: bool):
    """Inside the arm of `pred`'s branch it selects (True) or the other."""
    guards = ctx().branch_guards
    guards.append((pred.var, selected))
    try:
        yield
    finally:
        guards.pop()


@dataclass
class Arm:
    builder: object
    exit: Exit
    locals: dict
    stack: list
    ends: dict
    vars: dict = field(default_factory=dict)    # id(Array) -> its Value at the arm's end
    # List and dict items the arm rebound, undone at its end (values.finish_items)
    items: dict = field(default_factory=dict)


def state_vars(frame, whole=None) -> dict:
    """The Values of the state's Arrays at the end of a region, read before
    the journal restores outer arrays (a view made in the region re-reads
    its base, which is about to be restored).  `whole`: state_leaves'; a
    branch skips lists of plain leaves (`settled_test`), whose arrays read
    the same Value after the journal (those it restores are in its ends)."""
    _, leaves = state_leaves(frame.locals, frame.stack, whole)
    return {id(v): v.var for _, v in leaves if isinstance(v, Array)}


def ambiguous_truth(v: Array) -> UserCodeError:
    """NumPy's ValueError for bool() of an array whose size is not 1: an
    empty one has its own words (and advice: check its size)."""
    if v.size == 0:
        return UserCodeError("ValueError: The truth value of an empty array is ambiguous. Use "
                             "`array.size > 0` to check that an array is not empty.")
    return UserCodeError("ValueError: The truth value of an array with more than one element "
                         "is ambiguous. Use a.any() or a.all()")


def scalar_bool(pred: Array) -> Array:
    if pred.dtype != np.bool_:
        pred = emit("not_equal", pred, 0)
    if pred.shape != ():
        pred = emit("reshape", pred, shape=())
    return pred


# --- merging ------------------------------------------------------------------------

def _exit_union(arms):
    targets, depths = [], {}
    for arm in arms:
        for t in arm.exit.targets:
            if t not in targets:
                targets.append(t)
            depths.setdefault(t, arm.exit.depths.get(t, 0))
    return tuple(targets), depths


BOUND_SUFFIX = "?bound"         # (not an identifier: no variable of the program's)


def bound_flag(name: str) -> str:
    """The local holding whether `name` is bound, where a runtime exit
    decides it (interpreter.Frame.bound_flags)."""
    return name + BOUND_SUFFIX


def drop_dead_locals(states: list, dead):
    """Unbinds the variables in `dead` (nothing after this point reads them
    before binding them again) in each locals dict of `states`, where they
    hold an array or a scalar: those need no merged or carried value (a
    scratch array of each branch's own size; a grid that doubles until a
    runtime test breaks).  A container or object stays: the writes into its
    items are followed through the names that reach it; a tuple of arrays
    and scalars, whose items nothing rebinds, goes (`for p in pairs`), and
    so does an iterator (a 3.11 comprehension's `.0`: the loop took it onto
    its stack, and the copies share where it stands).  So does an object or
    function the paths disagree on (`for b in bodies` left early: each path
    holds another Body; `for f in fs`): no merge could carry it, and the
    writes into its attributes are the object's own, kept whichever name
    reaches it."""
    for name in dead & set().union(*states):
        held = [locals_[name] for locals_ in states if name in locals_]
        differing = _differing_uncontained(held)
        for locals_ in states:
            if name in locals_ and (differing or _droppable(locals_[name])):
                del locals_[name]
                locals_.pop(bound_flag(name), None)


_DROPPABLE = (Array, Undefined, bool, int, float, complex, str, bytes, type(None), np.generic,
              RangeIter, SeqIter)


def _differing_uncontained(values: list) -> bool:
    """Whether `values` (one local on each path) are not one object, and
    none is a list, dict, set or deque: an argument's list or a list the
    program made carries its rebound items through the merge (written back
    or read later through another name), which dropping would lose."""
    return any(v is not values[0] for v in values) and not any(
        isinstance(v, (list, dict, set, collections.deque)) for v in values)


def _droppable(v) -> bool:
    if isinstance(v, _DROPPABLE):
        return True
    return (type(v) is tuple or isinstance(v, tuple) and hasattr(type(v), "_fields")) and \
        all(_droppable(x) for x in v)


def _unread_numbers_follow_the_others(fc, arms):
    """A Python number that no path from an arm's targets reads (a loop's
    counter on the arm that returns: `if done: return s` before `i += 1`)
    takes the number the arms that go on with it agree on: else the merge
    would make the counter a runtime value for nothing, and with it the
    loop's test on it (which then has no end known while compiling)."""
    dead = [dead_locals(fc, a.exit.targets) for a in arms]
    for a, unread in zip(arms, dead):
        for name in unread & a.locals.keys():
            if not _python_number(a.locals[name]) or bound_flag(name) in a.locals:
                continue
            read = [b.locals.get(name) for b, d in zip(arms, dead) if name not in d]
            if read and all(_python_number(v) and static_equal(v, read[0]) for v in read):
                a.locals[name] = read[0]


def _python_number(v) -> bool:
    return type(v) in (bool, int, float, complex)


# Arrays objects made in an arm hold (escaping.py), merged as locals.
HELD_IN_ARM = "<array {} held by an object of arm %d>"


def _arm_leaves(arms):
    """(the containers the merge takes whole, each arm's state_leaves)."""
    whole = taken_whole([(a.locals, a.stack) for a in arms],
                        {slot for a in arms for slot in a.items})
    flat = []
    for a in arms:
        with items_applied(a.items):
            flat.append(state_leaves(a.locals, a.stack, whole))
    return whole, flat


def _hold_escaping_arrays(interp, arms, flat, floor: int) -> dict:
    """The arrays held by objects an arm made (escaping.py; `flat`: the
    arms' state_leaves), each bound to a local of that arm, unbound in the
    others: -> {name: that array}."""
    held = {}
    for k, (arm, (_, leaves)) in enumerate(zip(arms, flat)):
        arrays = escaping.held_arrays(interp, leaves, floor)
        held.update(zip(escaping.hold(arm.locals, arrays, HELD_IN_ARM % k), arrays))
    return held


def _forward_held_arrays(frame, held: dict):
    """After the merge: each array of _hold_escaping_arrays is a view of
    its local's merged value, and the locals go."""
    for name, arr in held.items():
        merged = frame.locals.pop(name)
        if isinstance(merged, Array):
            escaping.forward(arr, merged)


def _normalize_states(arms):
    """Same slots in every arm: a slot an arm lacks is Undefined there, shaped
    like the other arms' value (a dead iterator is still an iterator)."""
    names = sorted(set().union(*(a.locals for a in arms)))
    depth = max(len(a.stack) for a in arms)
    for a in arms:
        a.locals = {n: a.locals.get(n, Undefined(n)) for n in names}
        a.stack = a.stack + [Undefined(f"<stack {i}>") for i in range(len(a.stack), depth)]
    for n in names:
        shape_undefined([a.locals for a in arms], n)
    for i in range(depth):
        shape_undefined([a.stack for a in arms], i)


def _drop_finished_iterators(fc, arms, targets, depths):
    """Empties (None) the stack slots holding loop iterators that every
    target only pops: `return` from inside nested loops pops their
    iterators unread.  The paths need not agree on those: the arm that
    went on with an outer loop holds a new iterator of the inner one, the
    arm that returns the old one (`for r in range(n): for d in DIRS: if
    hit: return d`)."""
    def finished(i):
        return all(t == RETURN or depths.get(t, 0) <= i or t in fc.past_loops for t in targets)
    for i in range(len(arms[0].stack)):
        if finished(i) and all(isinstance(a.stack[i], _ITERATORS) for a in arms):
            for a in arms:
                a.stack[i] = None


_ITERATORS = (RangeIter, SeqIter, Undefined, type(None))     # (None: emptied by an earlier merge)


def shape_undefined(slots, key):
    if not any(isinstance(s[key], Undefined) for s in slots):
        return                          # (flattening a big table at each merge is slow)
    model = next((s[key] for s in slots if not isinstance(s[key], Undefined)), None)
    if model is None:
        return
    leaves: list = []
    td = flatten(model, str(key), leaves)
    if td is None:
        return
    for s in slots:
        if isinstance(s[key], Undefined):
            s[key] = unflatten(td, [Undefined(p) for p, _ in leaves])


def merge_arms(frame, pred: Array, arms, note: str, floor: int, entry,
               same_statics_at=None, numbers_merge=False) -> Exit:
    """One Cond op for the arms, the state after it merged from theirs.
    `same_statics_at`: a block where the arms' paths meet; on what is live
    there they must agree on every static value (a Python number, a shape,
    a dtype, whether a 0-d value is a NumPy scalar), else _PathsDiffer: none
    may become runtime (continue_multi); with `numbers_merge`, numbers may
    (runtime_branch's short-circuit meets).  Plain value objects the arms
    bind differently (`if c: pos = pos * 0.5`) are merged attribute by
    attribute within the merge's own scope (value_objects.merging)."""
    with value_objects.merging(frame.interp):
        return _merge_arms(frame, pred, arms, note, floor, entry, same_statics_at,
                           numbers_merge)


def _merge_arms(frame, pred: Array, arms, note: str, floor: int, entry,
                same_statics_at, numbers_merge) -> Exit:
    targets, depths = _exit_union(arms)
    multi = len(targets) > 1 or any(a.exit.targets != arms[0].exit.targets for a in arms)
    drop_dead_locals([a.locals for a in arms], dead_locals(frame.fc, targets))
    # (a list only dead variables hold may differ in length: `return` found a repeat)
    dead_containers.drop(frame.interp, frame, arms)
    _unread_numbers_follow_the_others(frame.fc, arms)
    maybe_unbound = _flag_bound_in_loop(frame, arms) if note == WHILE_ENTRY or \
        note.startswith(GUARD_NOTE) else set()
    _normalize_states(arms)
    _drop_finished_iterators(frame.fc, arms, targets, depths)
    # (a runtime loop's first test too: where the loop carries a plain
    # object as a value, its arms hold the copy the loop made and the
    # object of before, each the program's and held by that variable alone)
    value_objects.merge_by_attribute(frame, [(a.locals, a.stack, a.items) for a in arms])
    whole, flat = _arm_leaves(arms)
    escaped = _hold_escaping_arrays(frame.interp, arms, flat, floor)
    if escaped:
        maybe_unbound = maybe_unbound | escaped.keys()
        _normalize_states(arms)
        whole, flat = _arm_leaves(arms)
    # (different static objects, "ok" and "many": a choice, its position merged as an int;
    # so too a runtime int of a few values meeting one, `return b` and `return None`)
    flat = chosen_values.lift(flat, [a.builder for a in arms])
    # (and None meeting a runtime number that is no such choice: a number or None)
    flat = optional_numbers.lift(flat, [a.builder for a in arms])
    # (a guard Cond after a runtime `break`/`continue`/loop exit is no `if` of the user's)
    what = ("the paths where this `while` loop runs and where it does not" if
            note == WHILE_ENTRY else
            "the branches of this `if`" if note.startswith("if") else
            "the iterations of this loop" if note.startswith("loop") else
            "the runtime paths that meet here (an `if`, or a loop left early or not)")
    with _paths_differ(same_statics_at is not None):
        # (first: an item one arm appends is no slot the others have)
        _refuse_other_appends(arms, what)
        writes = [(c, k, loc, serial) for a in arms for c, k, _, loc, serial in a.items.values()]
        in_place, loose = kept_containers(frame.interp, entry,
                                          [(a.locals, a.stack, a.items) for a in arms],
                                          writes, "runtime path", whole)
        loose = _merge_loose(arms, loose)
        loose_runtime = [x for x in loose if x[4] is not None]
        # (`s.t = s.t + 1` on one path makes a NumPy scalar of the 0-d array
        # the other keeps: which one the object holds is carried as a bool)
        loose_kinds = [x for x in loose_runtime if not x[4].shape and _kind_is_runtime(x[3])]
        _check_same_structure(flat, what)
        stored = _stored_stack_top(frame, arms, targets)
        slots, merged = _classify(flat, multi, what, floor, maybe_unbound, pred,
                                  frame.interp.fresh_ids, stored)
        if same_statics_at is not None:
            _check_same_statics(slots, loose, dead_locals(frame.fc, [same_statics_at]),
                                depths.get(same_statics_at, 0), numbers_merge)
        boxes = _merged_boxes(arms)
    kind_slots = [s for s in slots if not s.aval.shape and _kind_is_runtime(s.values)]
    # (the value as a Python int too, checked after the Cond: it must fit)
    narrowed = [s for s in slots if any(python_int_narrowed(v, s.aval) for v in s.values)]
    # (a Python int on some paths, a NumPy integer on others: which one, held_ints.py)
    held = [s for s in slots if held_ints.needs_flag(s.values, s.aval)]
    held_loose = [x for x in loose_runtime if held_ints.needs_flag(x[3], x[4])]
    # (... and a Python bool beside that Python int: which paths hold it)
    held_slots = [(s.values, s.aval) for s in held] + [(x[3], x[4]) for x in held_loose]
    held_bools = [i for i, (values, aval) in enumerate(held_slots)
                  if held_ints.needs_bool_flag(values, aval)]
    regions = []
    for k, arm in enumerate(arms):
        with in_open_region(arm.builder):
            values = [_arm_value(s.values[k], s.aval, arm.ends, arm.vars) for s in slots]
            values += [as_aval(arm.ends.get(box, box.var), aval) for box, aval in boxes]
            values += [kind_value(s.values[k]) for s in kind_slots]
            values += [_arm_value(s.values[k], PYTHON_INT, arm.ends, arm.vars)
                       for s in narrowed]
            values += [held_ints.flag_of(s.values[k], s.aval) for s in held]
            values += [held_ints.flag_of(vals[k], aval) for *_, vals, aval in held_loose]
            values += [held_ints.bool_flag_of(held_slots[i][0][k]) for i in held_bools]
            values += [_arm_value(vals[k], aval, arm.ends, arm.vars)
                       for *_, vals, aval in loose_runtime]
            values += [kind_value(vals[k]) for *_, vals, _ in loose_kinds]
            if len(targets) > 1:
                values.append(_exit_code(arm, targets))
        regions.append(close_region(arm.builder, values))
    avals = [s.aval for s in slots] + [aval for _, aval in boxes]
    avals += [AVal(np.dtype(bool), (), False)] * len(kind_slots)
    avals += [PYTHON_INT] * len(narrowed)
    avals += [held_ints.FLAG] * (len(held) + len(held_loose) + len(held_bools))
    avals += [x[4] for x in loose_runtime]
    avals += [AVal(np.dtype(bool), (), False)] * len(loose_kinds)
    if len(targets) > 1:
        avals.append(AVal(np.dtype(np.int32), (), False))
    outputs = emit_op("cond", (pred.var,), {}, avals, regions=regions, note=note)
    n_loose, n_kinds = len(loose_runtime), len(loose_kinds)
    loose_start = len(outputs) - n_loose - n_kinds - (len(targets) > 1)
    loose_outs = iter(outputs[loose_start:][:n_loose])
    loose_kind_outs = dict(zip(map(id, loose_kinds), outputs[loose_start + n_loose:][:n_kinds]))
    flags_at = len(slots) + len(boxes) + len(kind_slots) + len(narrowed)
    bool_flags_at = flags_at + len(held) + len(held_loose)
    bool_flags = dict(zip(held_bools, outputs[bool_flags_at:bool_flags_at + len(held_bools)]))
    loose_flags = dict(zip(map(id, held_loose), outputs[flags_at + len(held):]))
    loose_bool_flags = {id(x): bool_flags.get(len(held) + i) for i, x in enumerate(held_loose)}
    for entry in loose:
        holder, key, serial, values, aval = entry
        merged_value = values[0] if aval is None else Array(next(loose_outs))
        if aval is not None:
            # (`self.stage = Stage.DECAY` on one path: the range of positions
            # the attribute's choice may hold, as a variable's)
            merged_value.span = _merged_span(merged_value.var, aval, values)
            kind = loose_kind_outs.get(id(entry))
            merged_value.immutable = merged_kind(values) if kind is None else RuntimeKind(kind)
            held_ints.hold_merged(merged_value, loose_flags.get(id(entry)), values,
                           loose_bool_flags.get(id(entry)))
            merged_value.dtype_varies = dtype_varies(values)
            _watch_loose(holder, key, values, merged_value, floor)
            if aval is chosen_values.POSITION:
                merged_value = chosen_values.ChosenValue(merged_value)
        if isinstance(holder, HeldValueLeaves):
            holder[key] = merged_value      # (a leaf: the value is made again below)
        else:
            set_item(holder, key, merged_value, serial)
    for leaves in {id(e[0]): e[0] for e in loose if isinstance(e[0], HeldValueLeaves)}.values():
        leaves.rebind()
    for slot, out in zip(slots, outputs):
        merged[slot.index] = Array(out)
        merged[slot.index].immutable = merged_kind(slot.values)
        merged[slot.index].span = _merged_span(out, slot.aval, slot.values)
        merged[slot.index].dtype_varies = dtype_varies(slot.values)
    kinds = outputs[len(slots) + len(boxes):]
    for slot, kind in zip(kind_slots, kinds):
        merged[slot.index].immutable = RuntimeKind(kind)
    for slot, wide in zip(narrowed, outputs[len(slots) + len(boxes) + len(kind_slots):]):
        require_python_int_fits(Array(wide), slot.aval)
    for i, (slot, flag) in enumerate(zip(held, outputs[flags_at:])):
        held_ints.hold_merged(merged[slot.index], flag, slot.values, bool_flags.get(i))
    loc = ctx().loc
    _relate_merged(slots, merged, floor, "the `if`" if note != WHILE_ENTRY else
                   f"the `while` loop of line {loc.line}" if loc else "the `while` loop",
                   stored)
    for (box, _), out in zip(boxes, outputs[len(slots):]):
        box.assign(out)
    frame.locals, frame.stack = rebuild_state(flat[0][0], merged,
                                              like=[(a.locals, a.stack) for a in arms],
                                              in_place=in_place, whole=whole)
    _forward_held_arrays(frame, escaped)
    code = Array(outputs[-1]) if len(targets) > 1 else None
    return Exit(targets, code, depths)


def _merged_span(out: Value, aval: AVal, values):
    """What is known of an integer the paths merge (`values`, one per path):
    it lies in the range that holds each path's value (`k = 0` or a While's
    counter from 0 up: never negative, so `2 ** k` is an int); None where
    some path's value may be anything."""
    if aval.shape or aval.dtype.kind not in "iu":
        return None
    bounds = [int_bounds(v) for v in values if not isinstance(v, Undefined)]
    if not bounds or None in bounds:
        return None
    return ranged_span(out, aval.dtype, (min(lo for lo, _ in bounds),
                                         max(hi for _, hi in bounds)))


@contextlib.contextmanager
def items_applied(items: dict):
    """The item writes of a region (values.finish_items), redone while its
    end state is read, then undone again."""
    before = []
    for container, key, value, *_ in items.values():
        before.append((container, key, read_item(container, key)))
        put_item(container, key, value)
    try:
        yield
    finally:
        for container, key, value in reversed(before):
            put_item(container, key, value)


def kept_containers(interp, entry, states, writes, where: str, whole=None):
    """The slots rebound by a region (`writes`: (holder, key, loc) each,
    holder a list, a dict, an object's __dict__ or the interpreter's shadow
    of outside attributes), split in two:
    - {id: serial} of the lists and dicts the `entry` state holds: the
      merged (or carried) state writes their items into those very objects,
      checked to be where the entry held them in every end state ((locals,
      stack, item writes to redo));
    - {(id(holder), key): (holder, key)} of the others (an attribute, a list
      only an object holds), merged or carried as slots of their own.
    `whole`: the containers a merge takes whole (state.taken_whole), which
    hold none of those rebound, so that their items are not walked."""
    written = {}
    for holder, key, loc, _ in writes:
        written.setdefault(id(holder), (holder, key, loc))
    in_place, loose = {}, {}
    if not written:
        return in_place, loose
    at_entry = container_paths(*entry, whole)
    for cid, (container, key, loc) in written.items():
        paths = at_entry.get(cid, (None, set()))[1]
        if not paths:
            continue
        for locals_, stack, items in states:
            with items_applied(items):
                held = container_paths(locals_, stack, whole).get(cid, (None, set()))[1]
            if not paths <= held:
                name = sorted(paths)[0]
                raise SideEffectError(
                    f"`{name}` has an item rebound ({name}[{key!r}] = ...) on one {where} and "
                    f"is another {type(container).__name__} (or none) on another", loc,
                    f"either rebind items of `{name}` or rebind `{name}` itself")
        in_place[cid] = next(w[3] for w in writes if id(w[0]) == cid)
    for holder, key, _, serial in writes:
        if id(holder) not in in_place:
            loose[(id(holder), key)] = (holder, key, serial)
    return in_place, loose


def _merge_loose(arms, loose: dict):
    """The values of the `loose` slots (kept_containers) on each arm, their
    merged types where they differ: [(holder, key, serial, values, aval or
    None)].  A slot holding a tuple, named tuple or frozen dataclass of
    arrays on every arm (`cell.state = St(h, c)`) is merged item by item, as
    a variable's is: its entries' holder is a HeldValueLeaves."""
    out = []
    for slot, (holder, key, serial) in loose.items():
        values = [a.items[slot][2] if slot in a.items else holder[key] for a in arms]
        leaves = HeldValueLeaves.of(holder, key, serial, values)
        if leaves is None:
            out.append(_merged_slot(holder, key, serial, values))
            continue
        for i, column in enumerate(zip(*leaves.arm_leaves)):
            out.append(_merged_slot(leaves, i, serial, list(column)))
    return out


def _merged_slot(holder, key, serial, values):
    """_merge_loose's entry of one slot."""
    first = values[0]
    if all(v is first or static_equal(first, v) for v in values):
        return holder, key, serial, values, None
    positions = chosen_values.positions(values)
    if positions is not None:       # (`self.status = "done"` on one path: a choice)
        return holder, key, serial, positions, chosen_values.POSITION
    avals = [leaf_aval(v) for v in values]
    if any(a is None for a in avals):
        name = slot_name(holder, key)
        raise MergeError(f"the branches give {pretty_path(name)} incompatible "
                         "values: " + " and ".join(describe_static(v) for v in values),
                         hint=held_value_hint(name, values) or
                         held_dict_hint(name, values) or
                         "only arrays and numbers can differ between runtime paths")
    return holder, key, serial, values, unify(slot_name(holder, key), avals, "the branches",
                                              values)


class HeldValueLeaves(list):
    """The leaves of a tuple, named tuple or frozen dataclass of arrays that
    an attribute or item holds (`holder[key]`) on each arm of a runtime
    `if` (`arm_leaves`), one structure on all: its items are the merged
    leaves, set as slots of their own (merge_arms); `rebind()` then stores
    the value made again from them."""

    @classmethod
    def of(cls, holder, key, serial, values):
        """None unless each of `values` (one per arm) is such a value, all of
        one structure, and some differ."""
        first = values[0]
        if all(v is first for v in values) or not all(map(is_carried_value, values)):
            return None
        flat = []
        for v in values:
            leaves = []
            flat.append((flatten(v, "", leaves), leaves))
        if any(td != flat[0][0] for td, _ in flat):
            return None
        made = cls(leaf for _, leaf in flat[0][1])
        made.holder, made.key, made.serial, made.treedef = holder, key, serial, flat[0][0]
        made.paths = [path for path, _ in flat[0][1]]      # (".h", "[1]": for messages)
        made.arm_leaves = [[leaf for _, leaf in leaves] for _, leaves in flat]
        return made

    def rebind(self) -> None:
        set_item(self.holder, self.key, unflatten(self.treedef, self), self.serial)


def _watch_loose(holder, key, values, merged, floor):
    """A slot that is an array from before the `if` on some path and another
    array on others: in-place updates of either are refused after it."""
    older = [v for v in values if isinstance(v, Array) and v.serial < floor]
    if older:
        note = (f"after a runtime `if`, `{slot_name(holder, key)}` is an array from before "
                "it on some paths and a new one on others")
        for v in [merged, *older]:
            watch(v, note)


def slot_name(holder, key) -> str:
    """A slot outside the frame's variables, as messages name it."""
    if isinstance(holder, (HeldValueLeaves, CarriedValueLeaves)):     # `.state.h`
        return slot_name(holder.holder, holder.key) + holder.paths[key]
    if isinstance(key, tuple):              # the shadow of an outside attribute or item
        return f"[{key[1][1]!r}]" if isinstance(key[1], tuple) else f".{key[1]}"
    return f".{key}" if isinstance(key, str) else f"[{key!r}]"


@dataclass
class Slot:
    index: int
    path: str
    values: list
    aval: AVal


def _refuse_other_appends(arms, what: str) -> None:
    """Arms that append to a list from before them (calls._appends_journaled)
    must each append as many items: the merged list has one length, each
    item merged from the arms' (`preds.append(1)` / `preds.append(0)`).
    Else the refusal names the line of an append that only some paths make
    (one that a runtime `break` or `return` skips, too)."""
    counts: dict = {}   # id(list) -> (the list, [items appended by each arm], an append's loc)
    for k, arm in enumerate(arms):
        for container, key, _, loc, _ in arm.items.values():
            if appended_item(container, key):
                entry = counts.setdefault(id(container), [container, [0] * len(arms), loc])
                entry[1][k] += 1
    for lst, per_arm, loc in counts.values():
        if len(set(per_arm)) > 1:
            paths = container_paths(arms[0].locals, arms[0].stack).get(id(lst), (None, ()))[1]
            # (a deque is no container state walks: the variable holding it names it)
            paths = paths or [n for n, v in arms[0].locals.items() if v is lst]
            kind = type(lst).__name__
            name = f"`{min(paths)}`" if paths else f"a {kind}"
            appended = " and ".join(f"{n} item{'s' * (n != 1)}" for n in per_arm)
            raise SideEffectError(
                f"appending to {name} on some runtime paths only: {what} append {appended} "
                f"to it, and compiled code gives a {kind} one length on every path", loc=loc,
                hint="append as many items on every path, choosing the item (`out.append(a "
                     "if c else b)`), or fill a preallocated array and count its items "
                     "(`buf[n] = v; n += 1`)")


def _check_same_structure(flat, what):
    for td, leaves in flat[1:]:
        if td != flat[0][0]:
            differs = structure_difference(flat[0], (td, leaves))
            if differs is None:
                _refuse_stack_difference(flat[0], (td, leaves))
            name, first, other = differs
            raise MergeError(
                f"{what} give {name} different structures: {first} and {other}",
                hint=f"give {name} one structure on every path: bind it before the "
                     "branch to a value of the structure it may get (copies of the "
                     "arrays, say, rather than None), and keep a flag for whether "
                     "it was set")


def _refuse_stack_difference(flat0, flat1):
    """Only values being computed differ: the arms of a conditional
    expression (or of `and`/`or`) on a runtime condition, the one left of
    each being what the expression gives."""
    (td0, leaves0), (td1, leaves1) = flat0, flat1
    for i, (a, b) in enumerate(zip(td0[2], td1[2])):
        if a != b:
            path, a, b = _innermost_difference(f"<stack {i}>", a, b)
            first, other = _structure(a, leaves0, path), _structure(b, leaves1, path)
            break
    else:
        first, other = (f"{len(td[2])} values" for td in (td0, td1))
    raise MergeError(
        "the arms of this conditional expression (`a if c else b`, or `and`/`or`) give values "
        f"of different structures: {first} and {other}; the condition is known only at run "
        "time, so the expression's structure would depend on the data",
        hint="make both arms the same kind of value (both tuples of as many arrays, or both "
             "arrays), or choose with a condition known at compile time")


def structure_difference(flat0, flat1) -> tuple[str, str, str] | None:
    """The first variable whose structure differs between two flattened
    states (state.state_leaves's): (its name as messages write it, its
    structure in each), or None where only the operand stacks differ."""
    (td0, leaves0), (td1, leaves1) = flat0, flat1
    others = dict(zip(td1[0], td1[1]))
    for n, a in zip(td0[0], td0[1]):
        if n in others and others[n] != a:
            n, a, b = _innermost_difference(n, a, others[n])
            return pretty_path(n), _structure(a, leaves0, n), _structure(b, leaves1, n)
    return None


def _innermost_difference(path: str, a, b):
    """Where two treedefs of one variable differ, down to the innermost
    item that does (`s[1]` of `s = (x, ())` -> `(x, (x,))`): the message
    names that item rather than two tuples of 2 items."""
    while a != b:
        shell_a, items_a = _shell_and_items(a, path)
        shell_b, items_b = _shell_and_items(b, path)
        if shell_a is None or shell_a != shell_b:
            break               # the difference is here: kinds, lengths or keys
        path, a, b = next((p, x, y) for (p, x), (_, y) in zip(items_a, items_b) if x != y)
    return path, a, b


def _shell_and_items(td, path: str):
    """A container's treedef split into what fixes its shape (kind, length,
    keys, class) and its items' [(path, treedef)]; (None, ()) for others."""
    kind = td[0] if td is not None else None
    if kind in ("tuple", "list"):
        shell = (kind, len(td[1]), td[2:] if kind == "list" else ())     # (a list's class)
        return shell, [(f"{path}[{i}]", t) for i, t in enumerate(td[1])]
    if kind == "dict":
        return (kind, td[1], td[3:]), [(f"{path}[{k!r}]", t) for k, t in zip(td[1], td[2])]
    if kind == "object":
        return td[:3], [(f"{path}.{k}", t) for k, t in zip(td[2], td[3])]
    return None, ()


def _structure(td, leaves, path: str) -> str:
    """A variable's structure as an error names it (td: state.flatten's)."""
    if td is None:                  # a leaf: the value itself
        value = next((v for p, v in leaves if p == path), None)
        return "None" if value is None else describe_static(value)
    kind = td[0]
    if kind in ("tuple", "list"):
        return f"a {kind} of {len(td[1])} item{'' if len(td[1]) == 1 else 's'}"
    if kind == "dict":
        return f"a dict with keys {', '.join(map(repr, td[1][:4]))}" + (
            ", ..." if len(td[1]) > 4 else "") if td[1] else "an empty dict"
    if kind == "object":
        return with_article(td[1].__name__)
    if kind == "chosen":
        return "a static object chosen at run time"
    if kind == "optional":
        return "a Python number or None, which one known at run time"
    return {"range": "a range iterator", "seq": "an iterator"}.get(kind, f"a {kind}")


def scalar_kind(v) -> bool | None:
    """Whether a value is a NumPy scalar (not a 0-d array) in NumPy; None
    when unknown (a placeholder for a name not defined yet).  A runtime
    Python number (a weak Array) is a scalar whatever made it: `n + 1` of a
    promoted counter is no 0-d array, so a loop that rebinds it keeps no
    kind for it (else the caller would get array(3) for `self.steps`)."""
    if isinstance(v, Undefined):
        return None
    if isinstance(v, Array):
        return True if v.weak and not v.shape else v.immutable
    return isinstance(v, (bool, int, float, complex, np.generic))


def dtype_varies(values) -> bool:
    """Whether the values a runtime `if` merges have dtypes of their own
    that differ (np.asarray of each: a Python float is float64, a Python
    int int64), or one was such a merge already: the merged value takes
    one dtype (state.merged_dtype), where NumPy's depends on the path."""
    dtypes = set()
    for v in values:
        if isinstance(v, Array):
            if v.dtype_varies:
                return True
            dtypes.add(v.dtype)
        elif isinstance(v, (bool, int, float, complex, np.generic)):
            dtypes.add(np.asarray(v).dtype)
    return len(dtypes) > 1


def merged_kind(values) -> bool | None:
    """The kind of a merged value where it must be known at compile time
    (loops, Python's min/max): a NumPy scalar when the paths disagree, the
    kind NumPy gives computed values.  A runtime `if` instead carries a
    disagreement as a RuntimeKind (see merge_arms)."""
    kinds = [k for k in map(scalar_kind, values) if k is not None]
    return any(kinds) if kinds else None


def _kind_is_runtime(values) -> bool:
    kinds = [k for k in map(scalar_kind, values) if k is not None]
    return (any(isinstance(k, RuntimeKind) for k in kinds)
            or (True in kinds and False in kinds))


def kind_value(value) -> Value:
    """An arm's kind of a merged 0-d slot, as a runtime bool (True: a NumPy
    scalar).  Read inside the arm's region."""
    kind = scalar_kind(value)
    if isinstance(kind, RuntimeKind):
        return kind.var
    return builder.const_value(np.bool_(kind is not False))


def _choosable(values, floor) -> bool:
    """Functions a runtime `if`'s arms bind, which its condition may choose
    among at run time (a choice made inside an arm is not: its position is
    a value of that arm's region)."""
    return chosen_functions.choosable(values) and not any(
        isinstance(v, chosen_functions.ChosenFunction) and _made_in_arm(v.position, floor)
        for v in values)


def _made_in_arm(v, floor) -> bool:
    return isinstance(v, Array) and v.serial >= floor


@contextlib.contextmanager
def _paths_differ(active: bool):
    """Where paths that meet must agree on static values (merge_arms'
    `same_statics_at`), a merge that fails says only that they differ:
    continue_multi then goes on with each path on its own, where the
    merge may not be needed."""
    try:
        yield
    except MergeError as e:
        if not active or isinstance(e, _PathsDiffer):
            raise
        raise _PathsDiffer(e.message) from None


def _check_same_statics(slots, loose, dead: frozenset, depth: int, numbers_merge=False):
    """merge_arms' `same_statics_at`: each slot live at the join (not a
    `dead` local, nor a stack slot at `depth` or deeper) that differs
    between the arms is an array of one type, of one kind, on all of them.
    The return value is never live at a block: a `return` binds it first
    (on the paths to the join it is a value an earlier `return` left).
    `numbers_merge`: numbers and arrays of one shape may differ (a number
    one path leaves there, the other makes runtime, is merged into a
    runtime one, as where the paths go on together, which they do)."""
    for s in slots:
        if s.path.startswith("<stack"):
            if int(s.path[len("<stack "):].split(">")[0]) >= depth:
                continue
        elif re.split(r"[.\[]", s.path)[0] in dead or s.path.startswith("<return>"):
            continue
        defined = [v for v in s.values if not isinstance(v, Undefined)]
        if numbers_merge and all(isinstance(v, (Array, *_NUMBERS)) for v in defined):
            continue
        kinds = [scalar_kind(v) for v in defined]
        if any(not isinstance(v, Array) or v.aval != s.aval for v in defined) or \
                any(k is not kinds[0] for k in kinds):
            raise _PathsDiffer(f"the paths give `{s.path}` different static values")
    for *_, values, aval in loose:
        if aval is not None and any(not isinstance(v, Array) or v.aval != aval for v in values):
            raise _PathsDiffer("the paths give an attribute different static values")


_NUMBERS = (bool, int, float, complex, np.generic)


def _flag_bound_in_loop(frame, arms) -> set:
    """The numbers and arrays a `while` loop's body binds first (`xn` of
    `while abs(x * x - 2) > tol: xn = ...; x = xn`), which stay unbound
    where its first test fails; or that only the path a runtime `break`
    took binds (`when = i; break` in a search loop), unbound where the
    loop ran to its end: merged with a placeholder, and a bound flag
    (interpreter.Frame.bound_flags) makes a read after the loop raise
    UnboundLocalError at run time where it is unbound, as a runtime `for`
    loop's do (and as `while True`, whose only exit is the break, needs
    no flag)."""
    names = set().union(*(a.locals for a in arms)) - set.intersection(
        *(set(a.locals) for a in arms))
    flagged = {n for n in names if not n.endswith(BOUND_SUFFIX) and all(
        _number_or_array(a.locals[n]) for a in arms if n in a.locals)}
    for n in flagged:
        frame.bound_flags.add(n)
        for a in arms:
            a.locals[bound_flag(n)] = a.locals.get(bound_flag(n), n in a.locals)
    return flagged


def _number_or_array(v) -> bool:
    """(or a choice among static objects: its runtime position is carried)"""
    return isinstance(v, (Array, bool, int, float, complex, np.generic,
                          chosen_values.ChosenValue))


def _returned(path: str) -> bool:
    """Whether `path` is the returned value or a part of it (a returned
    tuple's item): a path where a user __next__ stopped at run time
    returns none (interpreter._stop_iteration), and the value of the
    others is carried, with a placeholder on that one."""
    return path == "<return>" or path.startswith(("<return>[", "<return>."))


def _classify(flat, multi: bool, what: str, floor: int, maybe_unbound=frozenset(), pred=None,
              fresh_ids=None, stored=None):
    """-> runtime slots needing a region output, and the merged leaf list with
    static (or shared) leaves filled in.  `maybe_unbound`: variables bound
    on some paths only, which a flag guards (_flag_bound_in_loop).  `pred`:
    the branch's condition, which chooses among functions the arms bind.
    `fresh_ids`: the objects the program made (calls.Interpreter.fresh),
    for the refusal's hint.  `stored`: _stored_stack_top's."""
    leaves = [lv for _, lv in flat]
    merged, slots = [], []
    for i, column in enumerate(zip(*leaves)):
        path = column[0][0]
        values = [v for _, v in column]
        first = values[0]
        if all(v is first for v in values) or all(static_equal(first, v) for v in values):
            merged.append(first)
            continue
        defined = [v for v in values if not isinstance(v, Undefined)]
        if not defined:
            merged.append(Undefined(path))
            continue
        if len(defined) < len(values):
            if not (multi or _returned(path) or path in maybe_unbound):
                merged.append(Undefined(path))
                continue
            if not _made_in_arm(defined[0], floor) and all(
                    d is defined[0] or static_equal(defined[0], d) for d in defined):
                merged.append(defined[0])       # dead on the other paths, same value on these
                continue
        avals = [leaf_aval(v) for v in defined]
        if any(a is None for a in avals) and pred is not None and len(values) == 2 and \
                _choosable(values, floor):
            merged.append(chosen_functions.chosen_by_branch(pred, values))
            continue
        if any(a is None for a in avals):
            kinds = " and ".join(describe_static(v) for v in values)
            subject = merge_subject(path, what)
            _refuse_chosen_selection(values, subject, path)
            subject += " incompatible kinds" if path.startswith("<stack") else \
                " incompatible values"
            made_here = fresh_ids is None or any(
                id(v) in fresh_ids and fresh_ids[id(v)][1] >= floor for v in defined)
            raise MergeError(f"{subject}: {kinds}",
                             hint=_merge_hint(values, what, path, made_here))
        merged.append(None)
        aval = _stored_aval(path, values, avals, stored) or unify(path, avals, what, defined)
        slots.append(Slot(i, path, values, aval))
    return slots, merged


def _stored_stack_top(frame, arms, targets) -> tuple[str, np.dtype] | None:
    """Where the arms meet at code that stores the value they leave on top
    of the stack straight into an array element (`C[k] = a if c else b`):
    (that value's path, the array's dtype).  Only the store's cast is seen
    of that value, so each arm's may be cast there (_stored_aval), as the
    `if` statement that stores in each arm casts it."""
    from .calls import stored_into_array
    if len(targets) != 1 or not arms[0].stack or not 0 <= targets[0] < len(frame.fc.blocks):
        return None

    def loaded_local(ins):
        values = [a.locals.get(ins.arg) for a in arms] if ins.op == "LOAD_FAST" else [None]
        dtypes = {getattr(v, "dtype", None) for v in values}
        return values[0] if len(dtypes) == 1 else None    # (an arm may rebind it: same dtype)
    target = stored_into_array(frame.fc.blocks[targets[0]].instrs, loaded_local)
    if target is None:
        return None
    return f"<stack {len(arms[0].stack) - 1}>", np.dtype(target.dtype)


def _stored_aval(path: str, values, avals, stored) -> AVal | None:
    """The type of a value that goes straight into an array element
    (`stored`), whose arms are NumPy arrays (or scalars) of one shape and
    different dtypes: the array's dtype, each arm cast to it as the store
    would (a Python number, weak, merges as anywhere: state.unify).  None
    where that does not apply."""
    if stored is None or path != stored[0] or \
            not all(isinstance(v, Array) and not v.weak for v in values) or \
            any(_checked_by_store(v, stored[1]) for v in values):
        return None
    if len({a.shape for a in avals}) > 1 or len({a.dtype for a in avals}) < 2:
        return None
    return AVal(stored[1], avals[0].shape, False)


def _checked_by_store(value: Array, dtype: np.dtype) -> bool:
    """Whether storing `value` into an element of a `dtype` array checks it
    (ops.indexing.check_python_number_fits): a NumPy scalar going into a
    signed integer array is converted as int() converts it (np.nan raises
    there; an int64 must fit int32), which a cast in the arm would skip."""
    return (value.ndim == 0 and dtype.kind == "i" and value.immutable is True
            and value.dtype.kind in "iuf" and not np.can_cast(value.dtype, dtype))


def _refuse_chosen_selection(values, subject: str, path: str) -> None:
    """A runtime branch choosing x[i:j] or x[mask] (`x[:n] if c else x[n:]`):
    their rows are counted at run time, so they are no array a branch can
    hand out; each branch can use its own."""
    from ..ops.masked import Selection
    chosen = [v for v in values if isinstance(v, Selection)]
    if not chosen:
        return
    if any(v.sliced for v in chosen):
        what, used, kept = ("x[i:j], a slice with runtime bounds", "x[:n].sum() if c > 0 else "
                            "x[n:].sum()", "ar = np.arange(len(x))`, then `np.where((lo <= ar) "
                            "& (ar < hi), x, 0)")
    else:
        what, used, kept = ("x[mask], a boolean-mask selection", "x[m1].sum() if c > 0 else "
                            "x[m2].sum()", "np.where(m1, x, 0)")
    raise MergeError(
        f"{subject}{'' if path.startswith('<stack') else ' as'} {what}, on some path: its "
        "length is known only at run time, so a runtime branch cannot choose it",
        hint=f"use it inside each branch, e.g. reduce it there (`s = {used}`), or keep the "
             f"shape, zeroing the other rows (`{kept}`), and choose that")


def _merged_boxes(arms):
    boxes = {}
    for arm in arms:
        for box, var in arm.ends.items():
            boxes.setdefault(box, None)
    out = []
    for box in boxes:
        avals = [arm.ends.get(box, box.var).aval for arm in arms]
        out.append((box, unify("an array updated in place", avals, "the branches")))
    return out


def _arm_value(value, aval: AVal, ends: dict, end_vars: dict):
    """An arm's value for a runtime slot: an outer array the arm updated in
    place has its end-of-arm value (the array itself was restored); zeros
    where the arm leaves the slot undefined (dead on that path)."""
    if isinstance(value, Undefined):
        return emit("full", shape=aval.shape, dtype=aval.dtype, value=0).var
    if isinstance(value, Array) and value in ends:
        return as_aval(ends[value], aval)
    if isinstance(value, Array) and id(value) in end_vars:
        return as_aval(end_vars[id(value)], aval)
    return as_aval(value, aval)


# --- array identity across a merge ------------------------------------------------------

def _relate_merged(slots, merged, floor, construct: str, stored=None):
    """NumPy identity after a Cond.  Merged slots that hold the same array on
    every path are one Array; a slot that is on every path the same view
    (same index) of the same array stays a view of it.  Otherwise a slot that
    shares memory on some path with another array that outlives the `if` (an
    array from before it, another slot's array, a view's base) cannot follow
    in-place updates: updates of either are refused (alias_note), naming
    `construct` (the `if`).  Not the value that goes straight into an
    array element (`stored`, _stored_stack_top's: `C[k] = X[m].mean(0) if
    c else C[k]`): the store reads it, and nothing holds it after."""
    holders: dict = {}              # (arm, id(value)) -> slots holding it there
    for s in slots:
        for k, v in enumerate(s.values):
            if isinstance(v, Array):
                holders.setdefault((k, id(v)), []).append(s)
    for s in slots:
        same = _same_as_slot(s, holders)
        if same is not None:
            merged[s.index] = merged[same.index]
            continue
        base = _common_view_base(s, holders, merged, floor)
        if base is not None:
            arr = merged[s.index]
            arr.base, arr.index, arr._base_var = base, s.values[0].index, base._var
            arr.alias_note = next((v.alias_note for v in s.values if v.alias_note), None)
            continue
        if stored is not None and s.path == stored[0]:
            continue
        shared = _shared_arrays(s, holders, merged, floor)
        noted = [v.alias_note for v in s.values if isinstance(v, Array) and v.alias_note]
        if noted and not shared:
            merged[s.index].alias_note = noted[0]   # it may be what that arm's array may be
        if shared:
            what = _slot_words(s.path)
            merged[s.index].alias_note = (
                f"{what} is the same array as one from before {construct} (or a view of "
                "one) on some runtime paths and a different one on others")
            merged[s.index].alias_partners = () if noted else tuple(shared)
            for a in shared:
                watch(a, AliasNote(
                    f"after {construct} on a runtime value, {what} is this array (or a view "
                    "of it) on some paths only, and would not follow its update", hint=
                    f"make {what} a copy where it takes this array (`{_copy_example(s.path)}`),"
                    " so that it never shares memory with the array updated here",
                    chooser=merged[s.index]))


def _copy_example(path: str) -> str:
    """How the user would copy where a merged slot takes an outer array."""
    if path.startswith("<stack"):
        return "... else arr.copy()"
    return f"{path} = arr.copy()` rather than `{path} = arr"


def _slot_words(path: str) -> str:
    """A merged slot as messages name it: a variable, or the value of an
    expression that chose on a runtime condition (`a if c else b`)."""
    if path.startswith("<stack"):
        return "the value of `... if <runtime condition> else ...`"
    return f"`{path}`"


def _same_as_slot(s, holders):
    """An earlier slot holding, on every path, the very array `s` holds."""
    if not all(isinstance(v, Array) for v in s.values):
        return None
    common = None
    for k, v in enumerate(s.values):
        others = {id(o) for o in holders[(k, id(v))] if o is not s}
        common = others if common is None else common & others
    for o in holders[(0, id(s.values[0]))]:
        if id(o) in common and o.index < s.index:
            return o
    return None


def _resolve(k, arr, holders, merged, floor):
    """What `arr` (arm k's array) is after the merge: a merged slot's Array,
    itself if it is from before the `if`, or None (a temporary of the arm)."""
    held = holders.get((k, id(arr)))
    if held:
        return merged[held[0].index]
    return arr if arr.serial < floor else None


def _common_view_base(s, holders, merged, floor):
    values = s.values
    if not all(isinstance(v, Array) and v.base is not None for v in values):
        return None
    try:
        if any(v.index != values[0].index for v in values):
            return None
    except Exception:                # noqa: BLE001  (uncomparable keys)
        return None
    bases = [_resolve(k, v.base, holders, merged, floor) for k, v in enumerate(values)]
    if bases[0] is None or any(b is not bases[0] for b in bases):
        return None
    return bases[0]


def _shared_arrays(s, holders, merged, floor) -> list:
    out = []
    for k, v in enumerate(s.values):
        if not isinstance(v, Array):
            continue
        if v.serial < floor:
            out.append(v)
        out += [merged[o.index] for o in holders[(k, id(v))] if o is not s]
        b = v.base
        while b is not None:
            r = _resolve(k, b, holders, merged, floor)
            if r is not None:
                out.append(r)
            b = b.base
    return out


def watch(arr: Array, note: str):
    """Refuses later in-place updates of `arr` and of the arrays it views."""
    while arr is not None:
        if arr.alias_note is None:
            arr.alias_note = note
            if _watch_logs:
                _watch_logs[-1].append((arr, note))
        arr = arr.base


# Interpretations that may be thrown away (an unrolled iteration that turns
# into a While, each fixpoint trial of a While body) log the notes they set,
# so that a discarded one leaves no refusals behind.
_watch_logs: list = []


@contextlib.contextmanager
def watch_scope():
    log: list = []
    _watch_logs.append(log)
    try:
        yield log
    finally:
        _watch_logs.pop()


@contextlib.contextmanager
def _arm_watches(notes: list):
    """An arm of a runtime `if` starts from the state before the `if`: the
    refusals another arm's merges set (an array it may alias on some of its
    paths) are lifted for it, collected into `notes`, and set again after
    the last arm."""
    log: list = []
    try:
        with watch_scope() as log:
            yield
    except BaseException:
        end_watch_scope(log, keep=True)     # (a discarded trial around undoes them)
        raise
    end_watch_scope(log, keep=False)
    notes.extend(log)


def end_watch_scope(log, keep: bool):
    if keep:
        if _watch_logs:
            _watch_logs[-1].extend(log)
        return
    for arr, _ in log:
        arr.alias_note = None


def as_aval(value, aval: AVal):
    """`value` (Array, Value or static number) as a Value of type `aval`."""
    if isinstance(value, Value):
        value = Array(value)
    if isinstance(value, Undefined):
        value = 0                   # dead on this path
    if type(value) is complex and aval.dtype.kind != "c":
        value = value.real      # (2+0j merged with float32 values: state.merged_dtype)
    if not isinstance(value, Array):
        value = emit("full", shape=aval.shape, dtype=aval.dtype, value=value)
    if value.dtype != aval.dtype:
        value = emit("convert", value, dtype=aval.dtype)
    v = value.var
    if v.aval.weak != aval.weak:
        (weak,) = emit_op("convert", (v,), {"dtype": aval.dtype}, (aval,))
        constants = ctx().constants
        if v in constants:      # (the same number: a promoted `k = 0` is known to start at 0)
            constants[weak] = constants[v]
        v = weak
    return v


# A runtime Python int merged with NumPy integers takes their dtype (static
# ones that do not fit are refused: state.unify), where eager Python keeps
# the int: one that does not fit raises when the call returns, not wraps.
_NARROWED_INT_HINT = (
    "a variable that is a Python int on some runtime paths and a NumPy integer on others "
    "takes the NumPy dtype in compiled code (eager Python keeps the int): cast the array to "
    "a wider dtype (x.astype(np.int64)), or make the NumPy values Python ints (int(...))")
PYTHON_INT = AVal(np.dtype(np.int64), (), True)


def python_int_narrowed(value, aval: AVal) -> bool:
    """Whether a runtime Python int (int64 in compiled code) goes into a
    narrower NumPy integer dtype: it would wrap where it does not fit."""
    return (isinstance(value, Array) and value.weak and value.dtype.kind in "iu"
            and not aval.weak and aval.dtype.kind in "iu" and aval.dtype != value.dtype)


def require_python_int_fits(value: Array, aval: AVal) -> None:
    """The runtime check that a Python int merged into `aval` fits it."""
    elementwise.require_int_fits(value, aval.dtype, hint=_NARROWED_INT_HINT)


def _exit_code(arm, targets):
    if arm.exit.static:
        return as_aval(targets.index(arm.exit.targets[0]), AVal(np.dtype(np.int32), ()))
    table = np.array([targets.index(t) for t in arm.exit.targets], np.int32)
    return emit("getitem", table, arm.exit.code, key=("array",)).var


@contextlib.contextmanager
def in_open_region(rb):
    c = ctx()
    c.regions.append(rb)
    try:
        yield
    finally:
        c.regions.pop()


def close_region(rb, results):
    return Region(rb.params, rb.ops, tuple(results))


# Loops build on the walking and merging above (and walk() calls run_loop).
from .loops import run_loop  # noqa: E402
