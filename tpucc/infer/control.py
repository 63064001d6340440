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
- A loop is first unrolled one iteration at a time.  When an iteration's exit
  depends on runtime values (or a static loop is longer than the unroll
  budget) it becomes one While op whose carried slots are found by a fixpoint:
  static values that change are promoted to runtime, dtypes are widened.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from ..errors import (InternalError, LimitError, MergeError, SideEffectError,
                      StaticValueError, TpuccError)
from ..ir import AVal
from . import builder
from .builder import ctx, emit, emit_op
from .iterators import RangeIter, SeqIter
from .state import (describe_static, flatten, leaf_aval, pretty_path, rebuild_state,
                    state_leaves, static_equal, unflatten, unify)
from .values import Array, NeedsStatic, Undefined, journal_before, new_serial_floor

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
def journaled_region(params=(), runtime=True):
    """A fresh region; in-place updates of Arrays made before it are journaled
    (and undone on exit) so the caller can merge or discard them."""
    c = ctx()
    with builder.new_region(params) as rb:
        c.runtime_depth += runtime
        c.serial_floor.append(new_serial_floor())
        c.journal.append({})
        record = {"builder": rb, "journal": c.journal[-1]}
        try:
            yield record
        finally:
            c.journal.pop()
            c.serial_floor.pop()
            c.runtime_depth -= runtime


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
            return Exit((block,), None, {block: len(frame.stack)})
        if block in frame.fc.loop_headers and not (first and block == entering):
            ex = run_loop(frame, block, stops)
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
    under a guard Cond until only targets in `stops` remain."""
    while not ex.static:
        inside = sorted(t for t in ex.targets if t not in stops and t != RETURN)
        if not inside:
            return ex
        target = inside[0]
        others = frozenset(inside[1:])
        index = ex.targets.index(target)
        pred = emit("equal", ex.code, index)
        taken = lambda f, t=target, d=ex.depths: _truncate(f, d[t])  # noqa: E731
        ex = branch_regions(frame, pred, [
            (lambda f: walk(f, target, stops | others), taken),
            (lambda f, e=ex, t=target: _without(e, t), None),
        ], note=f"guard: code after block {target} runs only on the path that reached it")
        _trim_dead_stack(frame, ex)
        if ex.static and ex.targets[0] not in stops:
            return ex
    return ex


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
                   stops, setup_true=None, setup_false=None) -> Exit:
    join = find_join(frame.fc, block, stops)
    arm_stops = stops | {join} if join is not None else stops
    return branch_regions(frame, pred, [
        (lambda f: walk(f, true_target, arm_stops), setup_true),
        (lambda f: walk(f, false_target, arm_stops), setup_false),
    ], note=f"if: condition depends on a runtime value")


def branch_regions(frame, pred: Array, arms, note: str) -> Exit:
    """Interprets each arm (a walk function and a setup) into its own region
    from the same starting state, then merges them into one Cond op."""
    pred = _scalar_bool(pred)
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    floor = new_serial_floor()
    loc = ctx().loc                 # the branch's line: where the Cond is reported
    results = []
    for run, setup in arms:
        frame.locals, frame.stack = dict(locals0), list(stack0)
        with journaled_region() as rec:
            if setup is not None:
                setup(frame)
            ex = run(frame)
            end_vars = _state_vars(frame)
            ends = finish_journal(rec["journal"])
        results.append(Arm(rec["builder"], ex, frame.locals, frame.stack, ends, end_vars))
    with builder.at(loc):
        return merge_arms(frame, pred, results, note, floor)


@dataclass
class Arm:
    builder: object
    exit: Exit
    locals: dict
    stack: list
    ends: dict
    vars: dict = field(default_factory=dict)    # id(Array) -> its Value at the arm's end


def _state_vars(frame) -> dict:
    """The Values of the state's Arrays at the end of a region, read before
    the journal restores outer arrays (a view made in the region re-reads
    its base, which is about to be restored)."""
    _, leaves = state_leaves(frame.locals, frame.stack)
    return {id(v): v.var for _, v in leaves if isinstance(v, Array)}


def _scalar_bool(pred: Array) -> Array:
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


def _normalize_states(arms):
    """Same slots in every arm: a slot an arm lacks is Undefined there, shaped
    like the other arms' value (a dead iterator is still an iterator)."""
    names = sorted(set().union(*(a.locals for a in arms)))
    depth = max(len(a.stack) for a in arms)
    for a in arms:
        a.locals = {n: a.locals.get(n, Undefined(n)) for n in names}
        a.stack = a.stack + [Undefined(f"<stack {i}>") for i in range(len(a.stack), depth)]
    for n in names:
        _shape_undefined([a.locals for a in arms], n)
    for i in range(depth):
        _shape_undefined([a.stack for a in arms], i)


def _shape_undefined(slots, key):
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


def merge_arms(frame, pred: Array, arms, note: str, floor: int) -> Exit:
    targets, depths = _exit_union(arms)
    multi = len(targets) > 1 or any(a.exit.targets != arms[0].exit.targets for a in arms)
    _normalize_states(arms)
    flat = [state_leaves(a.locals, a.stack) for a in arms]
    _check_same_structure(flat, "the branches of this `if`")
    slots, merged = _classify(flat, multi, "the branches of this `if`", floor)
    boxes = _merged_boxes(arms)
    regions = []
    for k, arm in enumerate(arms):
        with _in_region(arm.builder):
            values = [_arm_value(s.values[k], s.aval, arm.ends, arm.vars) for s in slots]
            values += [_as(arm.ends.get(box, box.var), aval) for box, aval in boxes]
            if len(targets) > 1:
                values.append(_exit_code(arm, targets))
        regions.append(_close(arm.builder, values))
    avals = [s.aval for s in slots] + [aval for _, aval in boxes]
    if len(targets) > 1:
        avals.append(AVal(np.dtype(np.int32), (), False))
    outputs = emit_op("cond", (pred.var,), {}, avals, regions=regions, note=note)
    for slot, out in zip(slots, outputs):
        merged[slot.index] = Array(out)
    _relate_merged(slots, merged, floor)
    for (box, _), out in zip(boxes, outputs[len(slots):]):
        box.assign(out)
    frame.locals, frame.stack = rebuild_state(flat[0][0], merged)
    code = Array(outputs[-1]) if len(targets) > 1 else None
    return Exit(targets, code, depths)


@dataclass
class Slot:
    index: int
    path: str
    values: list
    aval: AVal


def _check_same_structure(flat, what):
    td0 = flat[0][0]
    for td, leaves in flat[1:]:
        if td != td0:
            names, tl0, ts0 = td0
            for n, a, b in zip(names, tl0, td[1]):
                if a != b:
                    raise MergeError(f"{what} give {pretty_path(n)} different structures "
                                     "(e.g. a tuple of different length)")
            raise MergeError(f"{what} leave different values on the stack")


def _made_in_arm(v, floor) -> bool:
    return isinstance(v, Array) and v.serial >= floor


def _classify(flat, multi: bool, what: str, floor: int):
    """-> runtime slots needing a region output, and the merged leaf list with
    static (or shared) leaves filled in."""
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
            if not (multi or path == "<return>"):
                merged.append(Undefined(path))
                continue
            if not _made_in_arm(defined[0], floor) and all(
                    d is defined[0] or static_equal(defined[0], d) for d in defined):
                merged.append(defined[0])       # dead on the other paths, same value on these
                continue
        avals = [leaf_aval(v) for v in defined]
        if any(a is None for a in avals):
            kinds = " and ".join(describe_static(v) for v in values)
            raise MergeError(f"{what} give {pretty_path(path)} incompatible values: {kinds}",
                             hint="only arrays and numbers can differ between runtime paths")
        merged.append(None)
        slots.append(Slot(i, path, values, unify(path, avals, what)))
    return slots, merged


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
        return _as(ends[value], aval)
    if isinstance(value, Array) and id(value) in end_vars:
        return _as(end_vars[id(value)], aval)
    return _as(value, aval)


# --- array identity across a merge ------------------------------------------------------

def _relate_merged(slots, merged, floor):
    """NumPy identity after a Cond.  Merged slots that hold the same array on
    every path are one Array; a slot that is on every path the same view
    (same index) of the same array stays a view of it.  Otherwise a slot that
    shares memory on some path with another array that outlives the `if` (an
    array from before it, another slot's array, a view's base) cannot follow
    in-place updates: updates of either are refused (alias_note)."""
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
        shared = _shared_arrays(s, holders, merged, floor)
        noted = [v.alias_note for v in s.values if isinstance(v, Array) and v.alias_note]
        if noted and not shared:
            merged[s.index].alias_note = noted[0]   # it may be what that arm's array may be
        if shared:
            merged[s.index].alias_note = (
                f"`{s.path}` is the same array as one from before the `if` (or a view of one) "
                "on some runtime paths and a different one on others")
            for a in shared:
                _watch(a, f"after a runtime `if`, `{s.path}` is this array (or a view of it) "
                          "on some paths only")


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


def _watch(arr: Array, note: str):
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
def _watch_scope():
    log: list = []
    _watch_logs.append(log)
    try:
        yield log
    finally:
        _watch_logs.pop()


def _end_watch_scope(log, keep: bool):
    if keep:
        if _watch_logs:
            _watch_logs[-1].extend(log)
        return
    for arr, _ in log:
        arr.alias_note = None


def _as(value, aval: AVal):
    """`value` (Array, Value or static number) as a Value of type `aval`."""
    from ..ir import Value
    if isinstance(value, Value):
        value = Array(value)
    if isinstance(value, Undefined):
        value = 0                   # dead on this path
    if not isinstance(value, Array):
        value = emit("full", shape=aval.shape, dtype=aval.dtype, value=value)
    if value.dtype != aval.dtype:
        value = emit("convert", value, dtype=aval.dtype)
    v = value.var
    if v.aval.weak != aval.weak:
        (v,) = emit_op("convert", (v,), {"dtype": aval.dtype}, (aval,))
    return v


def _exit_code(arm, targets):
    if arm.exit.static:
        return _as(targets.index(arm.exit.targets[0]), AVal(np.dtype(np.int32), ()))
    table = np.array([targets.index(t) for t in arm.exit.targets], np.int32)
    return emit("getitem", table, arm.exit.code, key=("array",)).var


@contextlib.contextmanager
def _in_region(rb):
    c = ctx()
    c.regions.append(rb)
    try:
        yield
    finally:
        c.regions.pop()


def _close(rb, results):
    from ..ir import Region
    return Region(rb.params, rb.ops, tuple(results))


# --- loops ---------------------------------------------------------------------------

def run_loop(frame, header: int, stops) -> Exit:
    """Unrolls while iterations are static; switches to a While op when an
    iteration's exit depends on runtime values or the budget runs out."""
    fc = frame.fc
    loop_stops = stops | {header} | fc.loop_exits[header]
    budget = ctx().options.get("unroll", 32)
    it = _for_iterator(frame, header)
    unrolled_because = None         # why a loop longer than the budget is unrolled
    if isinstance(it, RangeIter) and it.is_static() and it.remaining() > budget:
        counted = _try_counted(frame, header, stops, loop_stops, it)
        if isinstance(counted, Exit):
            return counted
        unrolled_because = counted
    count = 0
    while True:
        locals0, stack0 = dict(frame.locals), list(frame.stack)
        with journaled_region(runtime=False) as rec, _watch_scope() as marks:
            ex = walk(frame, header, loop_stops, entering=header)
            iteration_ops = rec["builder"].ops
            keep = ex.static or _may_unroll_guarded(it, budget)
            ends = {} if keep else finish_journal(rec["journal"])
        _end_watch_scope(marks, keep)
        if keep:
            ctx().region.ops.extend(iteration_ops)
            for arr, before in rec["journal"].items():
                journal_before(arr, before)
        if not ex.static:
            if keep:
                return ex
            frame.locals, frame.stack = locals0, stack0
            return build_while(frame, header, stops, loop_stops,
                               "while: the loop condition depends on a runtime value")
        if ex.targets[0] != header:
            return ex
        count += 1
        it = _for_iterator(frame, header)
        if count >= budget and it is None and count < MAX_UNROLL:
            return build_while(frame, header, stops, loop_stops,
                               f"while: still looping after {count} unrolled iterations; "
                               "values that change are carried at runtime")
        if count >= MAX_UNROLL:
            raise _unroll_limit(frame.fc.blocks[header].instrs[0].loc, it, unrolled_because)


def _unroll_limit(loc, it, unrolled_because) -> LimitError:
    """The unrolling budget ran out: say how much of the loop was left and
    why it was being unrolled rather than run as one While."""
    if it is None:
        return LimitError(f"loop unrolled {MAX_UNROLL} times without ending", loc,
                          "make the loop bound a runtime value, or shorten the loop")
    why = unrolled_because or "its items are a static sequence (a list, tuple or dict)"
    return LimitError(
        f"loop unrolled {MAX_UNROLL} times, the most tpucc unrolls, with {it.remaining()} "
        f"iterations left; it is unrolled because {why}", loc,
        "a long loop compiles to one runtime `while` when its body works on runtime values: "
        "index arrays instead of Python lists, fill a preallocated array (out[i] = v) instead "
        "of growing a list; or shorten the loop")


def _may_unroll_guarded(it, budget) -> bool:
    """A static `for` whose iteration ended on a runtime condition (a runtime
    break/continue/return) is unrolled with guards while it is short."""
    return it is not None and it.remaining() <= budget


def _for_iterator(frame, header):
    instrs = frame.fc.blocks[header].instrs
    if instrs and instrs[0].op == "FOR_ITER" and frame.stack:
        top = frame.stack[-1]
        if isinstance(top, (RangeIter, SeqIter)) and (not isinstance(top, RangeIter)
                                                     or top.is_static()):
            return top
    return None


def _try_counted(frame, header, stops, loop_stops, it: RangeIter):
    """A long static range loop becomes a While over a runtime counter, unless
    its body needs the counter as a static value, or changes something a While
    cannot carry (a list it appends to, a variable whose shape or dtype
    settles only after the first iteration).  Unrolling such a loop is exact,
    only slower, so it is unrolled: returns the Exit, or why it must unroll
    (errors that do not come from the While recur while unrolling)."""
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    pos = emit("full", shape=(), dtype=np.dtype(np.int64), value=it.pos)
    pos = Array(_weak(pos))
    frame.stack[-1] = RangeIter(pos, it.stop, it.step)
    try:
        return build_while(frame, header, stops, loop_stops,
                           f"counted loop: {it.remaining()} iterations exceed the unroll "
                           f"budget ({ctx().options.get('unroll', 32)})",
                           trip_count=it.remaining())
    except (StaticValueError, NeedsStatic) as e:
        frame.locals, frame.stack = locals0, stack0
        what = e.message if isinstance(e, StaticValueError) else e.what
        return f"its body needs a static value ({what})"
    except TpuccError as e:     # e.g. a list that grows, a `raise` under `if i > n:`
        if isinstance(e, InternalError):
            raise
        frame.locals, frame.stack = locals0, stack0
        return f"it cannot run as one runtime loop ({e.message})"


def _weak(arr: Array):
    (v,) = emit_op("convert", (arr.var,), {"dtype": arr.dtype},
                   (AVal(arr.dtype, arr.shape, True),))
    return v


def build_while(frame, header, stops, loop_stops, note, trip_count=None) -> Exit:
    """One While op for the loop at `header`, found by a fixpoint on the
    loop-carried slots (see module docstring).  `trip_count`: the static
    number of iterations of a counted range loop, if known."""
    loc = frame.fc.loop_locs.get(header) or frame.fc.blocks[header].instrs[0].loc
    counted = _runtime_range_header(frame, header)
    promote: dict[str, AVal] = {}
    boxes: list = []
    unshared: set = set()           # entry arrays whose aliasing the body breaks
    for _attempt in range(8):
        locals0, stack0 = dict(frame.locals), list(frame.stack)
        with builder.at(loc):
            _apply_promotions(frame, promote)
        td, leaves = state_leaves(frame.locals, frame.stack)
        carried = [i for i, (_, v) in enumerate(leaves) if isinstance(v, Array)]
        trial = _run_body(frame, header, loop_stops, td, leaves, carried, boxes, counted,
                          unshared)
        frame.locals, frame.stack = locals0, stack0
        if trial.diverged - unshared:
            unshared |= trial.diverged      # again, without sharing those arrays
            continue
        if _add_loop_defined(frame, trial):
            continue                # variables first bound inside the loop join the state
        _check_loop_structure(td, trial, loc)
        new_promote, new_boxes = _widen(leaves, trial, promote, boxes, loc)
        if new_promote == promote and len(new_boxes) == len(boxes):
            return _emit_while(frame, header, td, leaves, carried, boxes, trial, note, loc,
                               counted, trip_count)
        promote, boxes = new_promote, new_boxes
    raise MergeError("the loop-carried variables of this loop do not settle on fixed types", loc)


def _apply_promotions(frame, promote):
    td, leaves = state_leaves(frame.locals, frame.stack)
    out = []
    for path, v in leaves:
        aval = promote.get(path)
        if aval is None:
            out.append(v)
        elif isinstance(v, Undefined):
            out.append(Array(_as(0, aval)))
        else:
            out.append(Array(_as(v, aval)))
    frame.locals, frame.stack = rebuild_state(td, out)


@dataclass
class Trial:
    builder: object
    params: tuple
    exit: Exit
    leaves: list
    ends: dict
    td: object
    locals: dict
    kept: set          # carried slots whose Array object the body never rebinds
    unchanged: set     # ... and never updates in place: loop-invariant
    fresh: set = field(default_factory=set)   # slots the body rebinds to a new array
    end_vars: dict = field(default_factory=dict)  # id(Array) -> Value at the body's end
    shares: dict = field(default_factory=dict)    # slot -> outer arrays its end value may be
    watched: list = field(default_factory=list)   # entry arrays whose body Array got a note
    marks: list = field(default_factory=list)     # (array, note) the body's merges watched
    diverged: set = field(default_factory=set)    # entry arrays whose sharing broke


def _runtime_range_header(frame, header) -> bool:
    """`for i in range(n)` with a runtime counter: the range test goes into
    the While's condition and the body needs no guard."""
    instrs = frame.fc.blocks[header].instrs
    return (bool(instrs) and instrs[0].op == "FOR_ITER" and bool(frame.stack)
            and isinstance(frame.stack[-1], RangeIter) and not frame.stack[-1].is_static())


def _advance(frame):
    it = frame.stack[-1]
    frame.stack[-1] = RangeIter(it.pos + it.step, it.stop, it.step)
    frame.push(it.pos)


def _run_body(frame, header, loop_stops, td, leaves, carried, boxes, counted,
              unshared=frozenset()) -> Trial:
    """One abstract iteration on parameters for the carried slots and boxes.
    The slots' Arrays are made inside the region, so in-place updates to them
    are the body's own and not journaled as outer effects."""
    from ..ir import Value
    params = [Value(leaves[i][1].aval) for i in carried]
    box_params = [Value(b.aval) for b in boxes]
    code_param = Value(AVal(np.dtype(np.int32), ()))
    all_params = (code_param, *params, *box_params)
    with journaled_region(all_params) as rec:
        for box, p in zip(boxes, box_params):
            box.assign(p)
        body_leaves = [v for _, v in leaves]
        slot_arrays = _slot_arrays(leaves, carried, params, unshared)
        entry_vars = {i: a._var for i, a in slot_arrays.items()}  # (shared: one param)
        for i, arr in slot_arrays.items():
            body_leaves[i] = arr
        fresh_floor = new_serial_floor()
        frame.locals, frame.stack = rebuild_state(td, body_leaves)
        entry_stack = list(frame.stack)
        with _watch_scope() as marks:
            if counted:
                _advance(frame)
                ex = walk(frame, frame.fc.blocks[header].next, loop_stops)
            else:
                ex = walk(frame, header, loop_stops, entering=header)
        watched = [leaves[i][1] for i, a in slot_arrays.items() if a.alias_note is not None]
        _end_watch_scope(marks, keep=False)     # a trial: _emit_while_at applies the last one's
        _park_exit_stack(frame, entry_stack)
        end_vars = _state_vars(frame)
        slot_vars = {i: a.var for i, a in slot_arrays.items()}
        ends = finish_journal(rec["journal"])
    out_td, out_leaves = state_leaves(frame.locals, frame.stack)
    kept = {i for i, a in slot_arrays.items() if i < len(out_leaves) and out_leaves[i][1] is a}
    shared = {id(a) for a in slot_arrays.values()
              if sum(b is a for b in slot_arrays.values()) > 1}
    for i, a in slot_arrays.items():
        if out_td == td and i not in kept and a.version and id(a) not in shared:
            # (slots align only then; shared arrays: _diverged, then _check_unshared)
            raise SideEffectError(
                f"`{leaves[i][0]}` is updated in place and then rebound inside this loop: on "
                "the first iteration the update goes into the array it named before the loop",
                frame.fc.blocks[header].instrs[0].loc,
                f"copy it before the loop ({leaves[i][0]} = {leaves[i][0]}.copy()) or use a "
                "new name for the rebound value")
    if unshared and out_td == td:
        _check_unshared(slot_arrays, leaves, unshared, frame.fc.blocks[header].instrs[0].loc)
    unchanged = {i for i in kept if slot_vars[i] is entry_vars[i]}
    fresh = {i for i in slot_arrays if i < len(out_leaves)
             and _is_fresh(out_leaves[i][1], fresh_floor)}
    shares = {i: _loop_shared(out_leaves[i][1], slot_arrays, leaves, fresh_floor)
              for i in slot_arrays if i < len(out_leaves) and i not in kept | fresh}
    return Trial(rec["builder"], all_params, ex, out_leaves, ends, out_td, dict(frame.locals),
                 kept, unchanged, fresh, end_vars, shares, watched, marks,
                 _diverged(slot_arrays, out_leaves, leaves, kept) if out_td == td else set())


def _loop_shared(end, slot_arrays, leaves, floor) -> list:
    """Arrays from before the loop that a slot's end value `end` may be (or
    view): the entry arrays of the slots whose body Arrays it is or views,
    and outer arrays."""
    body_slot = {id(a): i for i, a in slot_arrays.items()}
    out = []
    while isinstance(end, Array):
        j = body_slot.get(id(end))
        if j is not None:
            out.append(leaves[j][1])
        elif end.serial < floor:
            out.append(end)
        end = end.base
    return out


def _slot_arrays(leaves, carried, params, unshared) -> dict:
    """{slot: its Array in the body}, on the slots' parameters.  Aliasing is
    kept as in NumPy: slots naming the same array share one body Array, and
    a view's body Array is a view of its base's body Array (or of the outer
    base itself, which becomes a box once the body writes through to it), so
    an in-place update through one name is seen through the others.

    That holds for every iteration only if the body keeps the aliasing (both
    names still name one array at its end).  For arrays in `unshared` it does
    not: their names get separate body Arrays (views: of the outer base),
    which is exact as long as none of them is updated in place (checked by
    _check_unshared)."""
    inside: dict = {}               # id(entry Array) -> body Array
    out = {}
    order = sorted(zip(carried, params), key=lambda ip: leaves[ip[0]][1].serial)
    for i, p in order:              # bases before their views (a base is older)
        entry = leaves[i][1]
        body = inside.get(id(entry)) if id(entry) not in unshared else None
        if body is None:
            if entry.base is not None:
                base = (entry.base if id(entry.base) in unshared
                        else inside.get(id(entry.base), entry.base))
                body = Array(p, base=base, index=entry.index)
            else:
                body = Array(p)
            body.immutable, body.alias_note = entry.immutable, entry.alias_note
            inside.setdefault(id(entry), body)
        out[i] = body
    return out


def _diverged(slot_arrays, out_leaves, leaves, kept) -> set:
    """Entry arrays whose sharing in the body holds for the first iteration
    only: names sharing one body Array end it naming different arrays, or a
    view's base slot is rebound (the view still views the old array)."""
    out = set()
    groups: dict = {}
    for i, a in slot_arrays.items():
        groups.setdefault(id(a), []).append(i)
    slot_of = {id(a): i for i, a in slot_arrays.items()}
    for members in groups.values():
        ends = [out_leaves[i][1] if i < len(out_leaves) else None for i in members]
        if len(members) > 1 and any(e is not ends[0] for e in ends):
            out.add(id(leaves[members[0]][1]))
        base = slot_arrays[members[0]].base
        j = slot_of.get(id(base)) if base is not None else None
        if j is not None and j not in kept:
            out.add(id(leaves[j][1]))
    return out


def _check_unshared(slot_arrays, leaves, unshared, loc):
    """Names that share an array on entry but not after the body's first
    iteration: an in-place update through one of them would be seen through
    the others on the first iteration only, which one While cannot say."""
    for i, a in slot_arrays.items():
        entry = leaves[i][1]
        member = id(entry) in unshared or (entry.base is not None and id(entry.base) in unshared)
        if member and a.version:
            raise SideEffectError(
                f"`{leaves[i][0]}` shares its array with another name when this loop starts, "
                "but the loop rebinds one of them, and `" + leaves[i][0] + "` is updated in "
                "place: the update reaches the other name on the first iteration only", loc,
                f"copy it before the loop ({leaves[i][0]} = {leaves[i][0]}.copy())")


def _is_fresh(v, floor) -> bool:
    """A new array the body made, certainly not another name's array (nor a
    view of one): after the loop the slot's array is a new one."""
    return (isinstance(v, Array) and v.serial >= floor and v.base is None
            and v.alias_note is None)


EXIT_STACK = "<exit stack {}>"


def _park_exit_stack(frame, entry_stack):
    """Makes the body's end state line up with the header's stack.  Slots
    deeper than the header's belong to exits only (e.g. an inner loop's
    iterator on the way to a `return` from that inner loop): they move into
    named locals, carried like variables first bound in the loop, and go back
    onto the stack after the While (_unpark_exit_stack).  A stack shorter
    than the header's (every path returns) is padded with dead slots."""
    depth = len(entry_stack)
    for i in range(depth, len(frame.stack)):
        frame.locals[EXIT_STACK.format(i)] = frame.stack[i]
    del frame.stack[depth:]
    for i in range(len(frame.stack), depth):
        frame.stack.append(Undefined(f"<stack {i}>"))
        _shape_undefined([frame.stack, entry_stack], i)


def _unpark_exit_stack(frame):
    i = len(frame.stack)
    while EXIT_STACK.format(i) in frame.locals:
        frame.stack.append(frame.locals.pop(EXIT_STACK.format(i)))
        i += 1


def _add_loop_defined(frame, trial) -> bool:
    """Variables bound by the body but not before the loop are added to the
    entry state as Undefined (zeros once promoted).  True if any were added."""
    new = [n for n in trial.locals if n not in frame.locals]
    for n in new:
        frame.locals[n] = Undefined(n)
        _shape_undefined([frame.locals, trial.locals], n)
    return bool(new)


def _check_loop_structure(td, trial, loc):
    if trial.td != td:
        raise MergeError("an iteration of this loop changes the structure of a variable "
                         "(e.g. a tuple's length, or a list it appends to)", loc,
                         "keep the same structure on every iteration; use arrays for data "
                         "that grows")


def _widen(leaves, trial: Trial, promote, boxes, loc):
    promote = dict(promote)
    for (path, before), (_, after) in zip(leaves, trial.leaves):
        if isinstance(before, Array):
            if isinstance(after, Undefined):
                continue
            a_aval = leaf_aval(after)
            if a_aval is None:
                raise MergeError(f"this loop turns `{path}` from an array into "
                                 f"{describe_static(after)}", loc)
            u = unify(path, [before.aval, a_aval], "iterations of this loop")
            if u != before.aval:
                promote[path] = u
        elif not (after is before or static_equal(before, after)):
            if isinstance(after, Undefined):
                continue
            avals = [leaf_aval(v) for v in (before, after) if not isinstance(v, Undefined)]
            if any(a is None for a in avals):
                raise SideEffectError(
                    f"this runtime loop changes the static value `{path}` "
                    f"({describe_static(before)} -> {describe_static(after)})", loc,
                    "only arrays and numbers can change inside a loop on runtime values")
            promote[path] = unify(path, avals, "iterations of this loop")
    new_boxes = list(boxes) + [b for b in trial.ends if all(b is not x for x in boxes)]
    return promote, new_boxes


def _emit_while(frame, header, td, leaves, carried, boxes, trial: Trial, note, loc,
                counted, trip_count=None) -> Exit:
    with builder.at(loc):
        return _emit_while_at(frame, header, td, leaves, carried, boxes, trial, note, loc,
                              counted, trip_count)


def _emit_while_at(frame, header, td, leaves, carried, boxes, trial: Trial, note, loc,
                   counted, trip_count=None) -> Exit:
    targets = trial.exit.targets
    shift = 0
    if header not in targets:       # the body always leaves: it runs at most once
        targets, shift = (header,) + targets, 1
    # Body results: exit code, carried slots, boxes (all with their entry types).
    with _in_region(trial.builder):
        code = (_as(targets.index(trial.exit.targets[0]), AVal(np.dtype(np.int32), ()))
                if trial.exit.static else
                emit("add", trial.exit.code, np.int32(shift)).var if shift else
                trial.exit.code.var)
        results = [code]
        for i in carried:
            end = trial.leaves[i][1]
            results.append(_as(trial.end_vars.get(id(end), end), leaves[i][1].aval))
        for box in boxes:
            results.append(_as(trial.ends.get(box, box.var), box.aval))
    body = _close(trial.builder, results)
    range_slots = _range_slots(leaves, carried, len(frame.stack)) if counted else None
    cond = _cond_region(trial.params, targets.index(header), range_slots)
    init = [_as(targets.index(header), AVal(np.dtype(np.int32), ()))]
    init += [leaves[i][1].var for i in carried] + [b.var for b in boxes]
    # A counted loop whose body always goes back to the header runs exactly
    # `trip_count` times: lower/ makes it a scan, which reverse-mode AD accepts.
    attrs = {"trip_count": trip_count} if (
        trip_count is not None and trial.exit.static and targets == (header,)) else {}
    with builder.at(loc):
        outs = emit_op("while", tuple(init), attrs, [v.aval for v in init],
                       regions=(cond, body), note=note)
    new_leaves = [v for _, v in leaves]
    for i, out in zip(carried, outs[1:]):
        if i in trial.unchanged:
            continue            # loop-invariant: the array keeps its value and identity
        if i in trial.kept:     # updated in place only: the same array object, as in NumPy
            new_leaves[i].assign(out)
        else:
            new_leaves[i] = Array(out)
            if i not in trial.fresh or (counted and not trip_count):
                alias = (f"after this loop `{leaves[i][0]}` is the array it named before the "
                         "loop (or another name's array) on some runtime paths and a new one "
                         "on others")
                new_leaves[i].alias_note = alias
                for a in [leaves[i][1], *trial.shares.get(i, ())]:
                    _watch(a, alias)
    for a, alias in trial.marks:
        _watch(a, alias)
    for a in trial.watched:
        _watch(a, "a runtime `if` in the loop body makes another name this array (or a view "
                  "of it) on some paths only")
    for box, out in zip(boxes, outs[1 + len(carried):]):
        box.assign(out)
    frame.locals, frame.stack = rebuild_state(td, new_leaves)
    depths = dict(trial.exit.depths)
    if counted:     # leaving with the header's code means the range ran out
        done = frame.fc.blocks[header].instrs[0].arg
        depths[done] = len(frame.stack) - 1
        after = [done if t == header else t for t in targets]
    else:
        after = [t for t in targets if t != header]
    _unpark_exit_stack(frame)
    rest = tuple(dict.fromkeys(after))
    if len(rest) == 1:
        return Exit(rest, None, depths)
    with builder.at(loc):
        table = np.array([rest.index(done if t == header else t) if counted or t != header
                          else 0 for t in targets], np.int32)
        code = emit("getitem", table, Array(outs[0]), key=("array",))
    return Exit(rest, code, depths)


def _range_slots(leaves, carried, depth):
    """(pos, stop, step) of the range iterator on top of the stack, each a
    carried-slot number (int) or a static value wrapped in a 1-tuple."""
    prefix = f"<stack {depth - 1}>"
    found = {}
    for i, (path, v) in enumerate(leaves):
        if path in (prefix + ".pos", prefix + ".stop"):
            found[path.rsplit(".", 1)[1]] = carried.index(i) if i in carried else (v,)
    return found["pos"], found["stop"]


def _cond_region(body_params, header_index, range_slots=None):
    """Keep looping while the body's exit code says 'back to the header'
    (and, for a counted loop, while the range has items left)."""
    from ..ir import Region, Value
    params = tuple(Value(p.aval) for p in body_params)
    with builder.new_region(params) as rb:
        pred = emit("equal", Array(params[0]), np.int32(header_index))
        if range_slots is not None:
            pos, stop = (Array(params[1 + s]) if isinstance(s, int) else s[0]
                         for s in range_slots)
            pred = emit("logical_and", pred, emit("less", pos, stop))
    return Region(rb.params, rb.ops, (pred.var,))
