"""Loops, by abstract interpretation (the loop half of control.py's walk).

A loop is first unrolled one iteration at a time.  When an iteration's exit
depends on runtime values (or a static loop is longer than the unroll
budget) it becomes one While op whose carried slots are found by a fixpoint:
static values that change are promoted to runtime, dtypes are widened.
Static `range` loops past the budget become counted Whiles (trip_count), which
reverse-mode AD can differentiate.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..errors import (GradError, InternalError, LimitError, MergeError, ShapeError,
                      SideEffectError, StaticValueError, TpuccError, UserCodeError)
from ..frontend.cfg import dead_locals
from ..ir import AVal, Region, Value
from ..ops import indexing, masked
from ..ops.registry import OPS
from . import (builder, chosen_values, counters, escaping, guarded_ranges, held_ints, held_tables,
               list_loops, optional_numbers, picked_copies, popped_queues, privacy, stacking,
               value_objects)
from .number_loops import COMPUTES_NUMBERS, RunsWhileCompiling, computes_numbers_only
from .builder import ctx, emit, emit_op
from .iterators import RangeIter, SeqIter, caught_up, is_endless_count
from .state import (container_paths, describe_static, held_dict_hint, held_value_hint,
                    is_carried_value, leaf_aval, rebuild_state, state_leaves, static_equal,
                    unify)
from .held_values import CarriedValueLeaves, store, value_leaves
from .values import (CHOSEN, AliasNote, Array, NeedsStatic, RuntimeKind, Span, Undefined,
                     compile_time_kind, finish_items, items_before, journal_before,
                     new_serial_floor, put_item, ranged_span, set_item)
from .control import (BOUND_SUFFIX, MAX_UNROLL, Exit, as_aval, bound_flag, close_region,
                      drop_dead_locals, end_watch_scope, finish_journal, in_open_region,
                      journaled_region, kept_containers, kind_value, python_int_narrowed,
                      require_python_int_fits, scalar_kind, shape_undefined, slot_name,
                      state_vars, structure_difference, walk, watch, watch_scope)

class UpdatedThenRebound(SideEffectError):
    """A variable the loop body updates in place and then rebinds, whose
    array at the loop's entry others may reach (_run_body)."""


class LeavesEarly(SideEffectError):
    """A loop with a `break` or `return` cannot run all but its last
    iteration as a While (_try_counted_but_last)."""


class StaticChanged(SideEffectError):
    """A static value the loop body changes into another one, or into an
    array (`state = None` before the loop, an array after its first
    iteration): a loop whose first iteration runs unrolled may still be
    one While from its second on."""


class FirstIterationRetypes(MergeError):
    """An iteration changes a variable's shape or dtype from its value
    before the loop (`total = 0`, then `total = total + row`: an array):
    as StaticChanged, a loop whose first iteration runs unrolled may be one
    While from its second on, where the type no longer changes."""


def _unify_iterations(path, avals, values, first: bool):
    """unify() of a slot's value before an iteration and after it; where
    `first` (its value from before the loop, not yet widened), a change the
    While cannot carry is FirstIterationRetypes."""
    try:
        return unify(path, avals, "iterations of this loop", values)
    except MergeError as e:
        if not first or type(e) is not MergeError:
            raise
        raise FirstIterationRetypes(e.message, e.loc, e.hint) from None


def run_loop(frame, header: int, stops, entered_statically=False) -> Exit:
    """Unrolls while iterations are static; switches to a While op when an
    iteration's exit depends on runtime values or the budget runs out.
    `entered_statically`: the loop surely runs its first iteration (a
    `while True`, or a `while` whose first test folded to True, is reached
    by a static jump), so that iteration may run unrolled before the While."""
    fc = frame.fc
    loop_stops = stops | {header} | fc.loop_exits[header]
    budget = ctx().options.get("unroll", 32)
    it = _for_iterator(frame, header)
    if _runtime_range_test(frame, header):
        # Its first iteration, unrolled, would only be thrown away (its exit
        # is runtime): in a nest of such loops each level would trace the
        # levels inside it once more, 3 ** depth traces of the innermost body.
        # Unless the body changes a static value (`state = None` before the
        # loop, an object made anew): then its first iteration runs unrolled,
        # as below, and the While may take the rest.
        locals0, stack0 = dict(frame.locals), list(frame.stack)
        entry_lists = popped_queues.entry_items(frame.locals)
        while True:
            try:
                return build_while(frame, header, stops, loop_stops,
                                   "while: the loop condition depends on a runtime value")
            except StaticChanged:
                frame.locals, frame.stack = locals0, stack0
                break
            except SideEffectError as e:
                if not _popped_anew(frame, e, locals0, stack0, entry_lists):
                    raise
                locals0, stack0 = dict(frame.locals), list(frame.stack)
    unrolled_because = None         # why a loop longer than the budget is unrolled
    # Nested static loops share the budget: 12 x 12 unrolled loops would be
    # 144 copies of the inner body (each compiled by XLA: 25 s for an edit
    # distance's 12 x 12 table), so the inner one becomes a counted While.
    enclosing = ctx().unrolled_trips
    peel = False
    refused = ctx().uncounted_loops.get((frame.fc.code, header))
    if isinstance(it, RangeIter) and it.is_static() and it.remaining() > 1 \
            and it.remaining() * enclosing > budget and refused is not None \
            and refused[1] >= _COUNTED_TRIALS:
        unrolled_because = refused[0]       # (as the times before: no trial again)
    elif isinstance(it, RangeIter) and it.is_static() and it.remaining() > 1 \
            and it.remaining() * enclosing > budget:
        counted = _try_counted(frame, header, stops, loop_stops, it, enclosing)
        if isinstance(counted, Exit):
            return counted
        unrolled_because, refusal = counted
        peel = isinstance(refusal, (UpdatedThenRebound, StaticChanged))
        # (one more trial of the body: its last window may be the short one)
        if not peel and unrolled_because != COMPUTES_NUMBERS and it.remaining() > 2 and \
                _try_counted_but_last(frame, header, stops, loop_stops, it, enclosing):
            it = _for_iterator(frame, header)       # the last iteration, unrolled
        elif not peel:
            _note_uncounted(frame, header, unrolled_because)
    while isinstance(it, SeqIter) and it.remaining() > 2 and it.remaining() * enclosing > budget:
        counted = _try_counted_list(frame, header, stops, loop_stops, it, enclosing, budget)
        if isinstance(counted, Exit):
            return counted
        if counted is not True:
            unrolled_because = counted if counted is not None else _uncountable_items(it)
            break
        # the last iteration, unrolled; or the next run of alike items
        it = _for_iterator(frame, header)
    ctx().unrolled_trips = enclosing * max(it.remaining(), 1) if it is not None else enclosing
    try:
        if peel:
            # The body updates a variable's array in place, then rebinds the
            # variable: the first iteration writes into the array from before
            # the loop, each later one into the array the one before made.
            # Or its first iteration binds what later ones update (`state =
            # None` before the loop).  Run the first one unrolled; the rest
            # may then be one While.
            ex = _unroll(frame, header, stops, loop_stops, it, budget, unrolled_because,
                         stop_after=1)
            if ex is not None:
                return ex
            it = _for_iterator(frame, header)
            if it is not None and it.remaining() > 1:
                counted = _try_counted(frame, header, stops, loop_stops, it, enclosing)
                if isinstance(counted, Exit):
                    return counted
                unrolled_because = counted[0]
        return _unroll(frame, header, stops, loop_stops, it, budget, unrolled_because,
                       entered_statically=entered_statically)
    finally:
        ctx().unrolled_trips = enclosing


# A static range loop met again (an inner loop of unrolled ones) after this
# many refusals of its counted While is unrolled without trying once more:
# each trial traces its body, and a 24 x 24 x 24 nest of loops over Python
# numbers spent nearly all its 50 s of compiling on 600 trials refused alike.
# Unrolling is exact; a later entry that could have been a While is only
# larger.
_COUNTED_TRIALS = 2


def _nested_while_trial(frame, header, stops, loop_stops, count, enclosing):
    """A static `while` inside unrolled loops, as one While (_try_while's
    answer), unless it was refused _COUNTED_TRIALS times already (None): a
    heap's sift loop, met in each of 200 unrolled heappops, spent 70% of
    the compile on trials refused alike (it assigns the list at a position
    that would be runtime)."""
    refused = ctx().uncounted_loops.get((frame.fc.code, header))
    if refused is not None and refused[1] >= _COUNTED_TRIALS:
        return None
    made = _try_while(frame, header, stops, loop_stops,
                      f"while: still looping after {count} unrolled iterations within "
                      f"unrolled loops of {enclosing} iterations", static_loop=True, fold=True)
    if made is None:
        _note_uncounted(frame, header, "its body needs static values")
    return made


def _note_uncounted(frame, header, why):
    key = (frame.fc.code, header)
    times = ctx().uncounted_loops.get(key, (why, 0))[1]
    ctx().uncounted_loops[key] = (why, times + 1)


def _unroll(frame, header, stops, loop_stops, it, budget, unrolled_because,
            stop_after=None, entered_statically=False) -> Exit | None:
    """run_loop's unrolling, one iteration at a time; None when `stop_after`
    iterations ran and the loop goes on."""
    count = 0
    guard_anyway = False        # a While was tried for this loop and could not be made
    scan_refused = None         # why, under tpucc.grad, it cannot be a guarded scan
    # A static `while` inside unrolled loops shares their budget, as a range
    # loop does (run_loop); its own trips so far count for loops inside it.
    enclosing = ctx().unrolled_trips
    nested_while = it is None and enclosing > 1
    tried_rest = False
    peeling = False         # the first iteration runs unrolled, guarded, before the While
    # (this run is the rest of a loop whose first iteration was peeled)
    peeled = it.peeled if isinstance(it, RangeIter) else header in frame.peeled_loops
    frame.peeled_loops.discard(header)
    forced = _unrolled_by_request(frame, header)
    warned = forced
    if it is None and entered_statically:
        frame.guarded_whiles.pop(header, None)      # (entered anew, not continued)
    guarded = frame.guarded_whiles.get(header)      # (trips so far, why no While)
    folding = unrolled_because == COMPUTES_NUMBERS     # (a static `while`: found below)
    while True:
        if it is None:
            ctx().unrolled_trips = enclosing * (count + 1)
        locals0, stack0 = dict(frame.locals), list(frame.stack)
        entry_lists = popped_queues.entry_items(frame.locals)
        raised = None
        # (a guarded `while` returns inside the iteration: its counter, read
        # by `return k`, need not merge with the value the next one starts with)
        iteration_stops = loop_stops if guarded is None else \
            loop_stops - _returning_exits(frame.fc, header)
        with journaled_region(runtime=False) as rec, watch_scope() as marks:
            try:
                ex = walk(frame, header, iteration_stops, entering=header)
            except UserCodeError as e:
                # The program's exception leaves the loop: what the iteration
                # did before it stays done, as eagerly (an `except` around the
                # loop may catch it; exceptions.py).
                raised, ex = e, Exit((header,))
            except (StaticValueError, ShapeError) as e:
                if guarded is None:
                    raise
                frame.guarded_whiles.pop(header, None)
                raise _naming_guarded_while(e, frame.fc.loop_locs[header],
                                            min(budget, GUARDED_UNROLL_LIMIT)) from None
            iteration_ops = rec["builder"].ops
            # Guarded iterations nest (each runs under the previous ones'
            # runtime exits): with a loop inside, one While is far smaller
            # (except under tpucc.grad, which differentiates no runtime loop).
            # (a range loop tries one While first: the code after it then
            # runs once; over a list's items, each iteration keeps its item)
            # Under tpucc.grad a range loop tries one guarded counted While
            # first (_scan_under_grad): its guarded copies, nested, grow
            # quadratically in the reverse pass.
            keep = ex.static or peeling or _may_unroll_guarded(it, budget) and (
                guard_anyway or ctx().grad_depth and not _scan_under_grad(frame, header, it)
                or not isinstance(it, RangeIter) and header not in frame.fc.nesting_loops) \
                or guarded is not None and _may_unroll_guarded_while(guarded, count, budget)
            if not keep:
                finish_journal(rec["journal"])
                finish_items(rec["items"])
        end_watch_scope(marks, keep)
        if keep:
            frame.interp.keep_early_generators(rec["builder"], ctx().region)
            builder.splice(rec["builder"], ctx().region)
            for arr, before in rec["journal"].items():
                journal_before(arr, before)
            items_before(rec["items"])
        if raised is not None:
            raise raised
        if guarded is not None:
            _note_guarded_trip(frame, header, ex, guarded, count)
        if not ex.static:
            if keep:
                return ex
            frame.locals, frame.stack = locals0, stack0
            if guarded is not None:     # (past the limit: as one While it failed, so)
                frame.guarded_whiles.pop(header, None)
                raise _naming_guarded_while(guarded[1], frame.fc.loop_locs[header],
                                            min(budget, GUARDED_UNROLL_LIMIT))
            if _scan_under_grad(frame, header, it) and not guard_anyway:
                counted = _try_counted(frame, header, stops, loop_stops, it, enclosing)
                if isinstance(counted, Exit):
                    _note_scan_within_budget(frame, header, it, budget)
                    return counted
                scan_refused = counted[0]
                _note_uncounted(frame, header, scan_refused)
                guard_anyway = True     # the iteration again: unrolled with guards, or refused
                continue
            if isinstance(it, SeqIter) and not _may_unroll_guarded(it, budget):
                # Too long to unroll with guards: one While over the
                # positions, the items (static numbers too) picked there.
                made = _items_as_while(frame, header, stops, loop_stops, it,
                                       list_loops.rows_of(it), enclosing)
                if made is not None:
                    return made
            if not _may_unroll_guarded(it, budget):
                if it is not None and ctx().grad_depth:
                    raise _guarded_over_budget(frame.fc.loop_locs[header], count + it.remaining(),
                                               budget, scan_refused)
                if it is None and ctx().grad_depth and not forced:
                    made = _static_while_as_scan(frame, header, stops, loop_stops,
                                                 entered_statically)
                    if made is not None:
                        return made
                emitted = len(ctx().region.ops)
                try:
                    return build_while(frame, header, stops, loop_stops,
                                       "while: the loop condition depends on a runtime value")
                except (StaticChanged, FirstIterationRetypes):
                    if count or peeled or not _surely_runs_once(frame, header, it,
                                                                entered_statically):
                        raise
                except SideEffectError as e:
                    # a pop refused in the While: this iteration again, from
                    # its start, with the list as a PoppedQueue
                    if not _popped_anew(frame, e, locals0, stack0, entry_lists):
                        raise
                    continue
                except (StaticValueError, ShapeError) as e:
                    if it is not None or forced or not entered_statically:
                        raise
                    # A `while` entered on a static test and left on a runtime
                    # condition (an early `return`) whose body needs static
                    # values (`np.arange(k)` of a counter it doubles): as a
                    # static `for` would be, it is unrolled with guards while
                    # its tests stay static, up to the guarded limit; past it,
                    # its refusal as one While is said.
                    frame.locals, frame.stack = locals0, stack0
                    del ctx().region.ops[emitted:]
                    guarded = frame.guarded_whiles[header] = (0, e)
                    continue
                # Its first iteration binds what later ones change (`self.x =
                # None` before the loop, an array after): as run_loop's peel,
                # that iteration runs unrolled (under its runtime exit) and the
                # While takes the rest, when the loop goes on from there.
                frame.locals, frame.stack = locals0, stack0
                if it is None:
                    frame.peeled_loops.add(header)
                else:
                    frame.stack[-1] = dataclasses.replace(it, peeled=True)
                peeling = True
                continue
            made = _try_while(frame, header, stops, loop_stops,
                              "while: an iteration may leave the loop on a runtime value, "
                              "and holds a loop")
            if isinstance(made, Exit):
                return made
            guard_anyway = True         # the iteration again, unrolled with guards
            continue
        if ex.targets[0] != header:
            return ex
        count += 1
        if count == stop_after:
            return None
        it = _for_iterator(frame, header)
        if folding and iteration_ops:
            # (number_loops misjudged the body: the rest as the While after all)
            folding = False
            made = _rest_as_while(frame, header, stops, loop_stops, it, fold=False)
            if isinstance(made, Exit):
                return made
        if unrolled_because and not forced and _may_have_settled(frame, header, it, count,
                                                                 budget, unrolled_because):
            made = _rest_as_while(frame, header, stops, loop_stops, it)
            if isinstance(made, Exit):
                return made
        if unrolled_because and not warned:
            warned = _note_unrolled(frame, header, it, count, iteration_ops, unrolled_because)
        elif not warned:
            warned = _note_recursive_copies(frame, header, iteration_ops)
        if not tried_rest and not forced and (_holds_runtime_loop(iteration_ops) and (
                it is None or isinstance(it, RangeIter) and it.remaining() > 1)
                or _too_big_to_unroll(iteration_ops, it, budget)
                or _unrolled_too_often_in_recursion(frame, header, it)
                or it is None and _op_count(iteration_ops) > OPS_PER_UNROLLED_TRIP):
            # Each copy of this body would hold its own runtime loop (a heap
            # sort's sift-down: 46 Whiles, 20 s of XLA for 32 items), or the
            # copies would be thousands of ops (25 RK4 steps: 3 s of XLA);
            # the rest of the loop as one While holds one copy.
            tried_rest = True
            made = _rest_as_while(frame, header, stops, loop_stops, it)
            if isinstance(made, Exit):
                return made
            if isinstance(made, str) and made != COMPUTES_NUMBERS and not unrolled_because:
                # (the copies will be slow to compile, and nothing makes them one
                # While: warned as a loop over the budget is, once they add up)
                unrolled_because = made
                warned = warned or _note_unrolled(frame, header, it, count, iteration_ops,
                                                  unrolled_because)
        if it is None and frame.yields is not None:
            # A generator runs when made (its yields collected): a static
            # `while` in it is unrolled, as yields cannot be in a While;
            # an endless one (`while True: yield i`) is said so.
            if count >= GENERATOR_STATIC_TRIPS:
                raise LimitError(
                    f"a generator's `while` ran {count} iterations while compiling without "
                    "ending: compiled code runs a generator when it is made, taking all its "
                    "items, so an endless one cannot be consumed lazily",
                    frame.fc.loop_locs[header], "make it finite (a `for` over range(n)), or "
                    "use itertools.count() or range() where it is consumed")
            continue
        if count >= budget and it is None and count < MAX_UNROLL and not forced \
                and not folding and not unrolled_because:
            made = _static_while_as_while(frame, header, stops, loop_stops, count)
            if isinstance(made, Exit):
                return made
            folding = made is FOLDS     # unrolled on, up to MAX_UNROLL iterations
            unrolled_because = None if folding else made
        if nested_while and count * enclosing >= budget and not forced:
            nested_while = False        # (tried once: unrolling on is exact)
            made = _nested_while_trial(frame, header, stops, loop_stops, count, enclosing)
            if isinstance(made, Exit):
                return made
            folding = made is FOLDS
        if count >= MAX_UNROLL and it is None and folding:
            return build_while(frame, header, stops, loop_stops,
                               f"while: still looping after {count} iterations unrolled while "
                               "compiling; values that change are carried at runtime",
                               static_loop=True)
        if count >= MAX_UNROLL and (it is None or it.remaining() > 0):
            raise _unroll_limit(frame.fc.loop_locs[header], it, unrolled_because)


def _may_have_settled(frame, header, it, count: int, budget: int, why) -> bool:
    """Whether to try the rest of a long range loop, unrolled because its
    body changes what a While cannot carry, as one counted While again
    after `count` iterations: its first iterations may be what changed the
    structure (a deque(maxlen=5) filling up, then each append keeping its
    length; a dict getting its keys), the later ones keeping it.  Tried
    after 2, 4, 8 and 16 iterations: a few traces more for a loop long
    enough that unrolling it is slow to compile; not for a loop met again
    (an inner one), whose trials were refused before."""
    if count not in _SETTLE_TRIALS or why == COMPUTES_NUMBERS \
            or not isinstance(it, RangeIter) or not it.is_static():
        return False
    refused = ctx().uncounted_loops.get((frame.fc.code, header))
    return it.remaining() * ctx().unrolled_trips > budget and (
        refused is None or refused[1] < _COUNTED_TRIALS)


# After how many unrolled iterations _may_have_settled tries a While again
_SETTLE_TRIALS = frozenset((2, 4, 8, 16))


def _surely_runs_once(frame, header, it, entered_statically) -> bool:
    """Whether a loop whose first iteration left on a runtime condition
    surely ran that iteration: a static `for` (not empty: it ran), or a
    `while` reached by a static jump (its first test folded to True, or
    `while True`; its later tests are at the body's end).  A `while` whose
    first test is runtime, or a range with a runtime bound, may run no
    iteration, leaving what the first one binds (None before) unchanged."""
    if it is None:
        return entered_statically and not _runtime_range_test(frame, header)
    return isinstance(it, RangeIter)


# A generator's static `while` is unrolled up to this many iterations (its
# items are taken when it is made: an endless one would never end).
GENERATOR_STATIC_TRIPS = 2000

# A loop unrolled because it cannot be one While warns once its copies hold
# this many ops (seconds of XLA: a DP table in a Python list, 1000 rows, 37 s).
UNROLL_WARNING_OPS = 1200

# What XLA:CPU takes to compile one small op, and one runtime `if` (a
# Conditional) of an unrolled loop, in seconds, as the warning estimates
# it: a Conditional weighs as 60 small ops, though its branches hold a
# dozen (a World's step, 5 balls, two `if`s each: 25 steps, 250 of them,
# 19 s of XLA, 200 steps 5 min 44 s; a list table's longest DAG path, an
# `if` per edge: 28 edges 1.3 s, 190 edges 16 s).
SECONDS_PER_OP = 0.001
OPS_PER_CONDITIONAL = 60

# What XLA:CPU takes to compile a gather or scatter at index arrays
# (`H[i - 1, j - 1]`, `H[i, j] = v` with i an np.arange), and a runtime
# bounds check of an index array, in small ops: each is a loop nest of its
# own, not a fused elementwise op.  A wavefront DP, 39 diagonals of 4
# gathers, a scatter and 8 checks, 42 ops a copy: 14-19 s of XLA; with its
# index arrays known while compiling, so no checks: 1.7-2.6 s (8-13 ms an
# access); 39 gathers of x[np.arange(k)], 1.2 s; 100 gathers and 100
# scatters alone under jax.jit: 2.3-4 s.  The checks, chained through the
# error code, are the larger part.
OPS_PER_INDEXED_ACCESS = 20
OPS_PER_INDEX_CHECK = 45


def _note_unrolled(frame, header, it, count, ops, why) -> bool:
    """Counts an unrolled iteration's ops to its loop, over all the times
    the loop runs, and warns once they pass _warning_ops (a DP table in a
    Python list over 24 nodes: 276 copies of the inner loop's body in 23
    runs, 17 s of XLA, none of them long).  Whether it warned."""
    cost = ctx().unrolled_cost.setdefault((frame.fc.code, header), [0, 0, False, 0, 0])
    cost[0] += _op_count(ops)
    cost[1] += 1
    cost[3] += _conditional_count(ops)
    cost[4] += _indexing_weight(ops)
    if cost[2] or cost[0] + cost[4] <= _warning_ops(why):
        return cost[2]
    cost[2] = True
    _warn_unrolled(frame.fc.loop_locs[header], it, count, cost[0], why,
                   total=cost[1] if cost[1] != count else None, conditionals=cost[3],
                   indexing=cost[4])
    return True


def _indexing_weight(ops) -> int:
    """What the gathers and scatters at index arrays among the ops (nested
    ones too), and the bounds checks of index arrays, add to XLA's compile
    beyond one small op each (OPS_PER_INDEXED_ACCESS)."""
    return sum(_extra_weight(op) + sum(_indexing_weight(r.ops) for r in op.regions)
               for op in ops)


def _extra_weight(op) -> int:
    if op.name in ("getitem", "setitem"):
        arrays = sum(isinstance(k, str) and k == "array" for k in op.attr("key") or ())
        # (the index operands come last; a 0-d one is a dynamic slice: cheap)
        gathers = arrays and any(v.aval.shape for v in op.inputs[-arrays:])
        return OPS_PER_INDEXED_ACCESS - 1 if gathers else 0
    if op.name == "in_bounds" and op.inputs and op.inputs[0].aval.shape:
        return OPS_PER_INDEX_CHECK - 1
    return 0


def _note_recursive_copies(frame, header, ops) -> bool:
    """Counts the ops of a loop unrolled because it is short, over every
    call of a recursive function it is in, and warns once they pass
    UNROLL_WARNING_OPS: each call unrolls it again (a merge sort of 16
    items: 15 merge loops, 64 copies, 1400 ops and 120 runtime `if`s, 14 s
    of XLA), while no one run is long.  Once it warned, the rest of each
    run is tried as one While (_unrolled_too_often_in_recursion: the merge
    sort, 5 s).  Whether it warned."""
    code = frame.fc.code
    calls = sum(f.fc.code is code for f in ctx().frames if getattr(f, "fc", None) is not None)
    cost = ctx().unrolled_cost.setdefault(("recursive", code, header), [0, 0, False, 0, 0])
    if cost[2] or calls < 2 and not cost[1]:
        return cost[2]
    cost[0] += _op_count(ops)
    cost[1] += 1
    cost[3] += _conditional_count(ops)
    cost[4] += _indexing_weight(ops)
    if cost[0] + cost[4] + OPS_PER_CONDITIONAL * cost[3] <= UNROLL_WARNING_OPS:
        return False
    cost[2] = True
    seconds = (cost[0] + cost[4] + OPS_PER_CONDITIONAL * cost[3]) * SECONDS_PER_OP
    message = (
        f"tpucc: this loop is unrolled in each call of the recursive function "
        f"{code.co_name}() ({cost[1]} copies so far over its calls; {cost[0]} ops"
        f"{_conditionals_so_far(cost[3])}: slow to compile, XLA takes about a second per "
        f"thousand ops{_indexing_cost(cost[4])}{_conditional_cost(cost[3])}; so far "
        f"{_duration(seconds)} or more; later calls run it as one `while` where they can) "
        "because the recursion is inlined call by call; write the recursion as a loop over an explicit stack or bottom-up (a merge sort "
        "as rounds of merges of runs of width 1, 2, 4, ...), or keep each call's loop "
        "over an array (`np.sort`, `np.argsort`, `np.searchsorted`)")
    loc = frame.fc.loop_locs[header]
    if loc is None:
        warnings.warn(message, UnrollWarning, stacklevel=2)
    else:
        warnings.warn_explicit(message, UnrollWarning, loc.file, loc.line)
    return True


def _unrolled_too_often_in_recursion(frame, header, it) -> bool:
    """Whether a short range loop of a recursive function has been unrolled
    in its calls so often that it warned (_note_recursive_copies): the
    rest of it, in this call and the next, is tried as one While."""
    cost = ctx().unrolled_cost.get(("recursive", frame.fc.code, header))
    return cost is not None and cost[2] and isinstance(it, RangeIter) and it.remaining() > 0


def _conditional_count(ops) -> int:
    """The runtime `if`s (Conds) among the ops, nested ones too."""
    return sum((op.name == "cond") + sum(_conditional_count(r.ops) for r in op.regions)
               for op in ops)


def _warning_ops(why: str) -> int:
    """How many unrolled ops make a loop unrolled for `why` warn.  One
    unrolled for slices whose bounds follow the counter (x[k:], a[i + 1:, i])
    warns after its first copy, being over the budget: its ops are products
    and updates of whole slices, each copy of its own shapes, which XLA
    compiles 1.5 to 4 times slower per op than the small ops the 1200 was
    measured on (40 copies of a 4-op autocorrelation step, 160 ops: 12 s of
    XLA while a trivial jit took 0.1 s; 39 LU steps, 900 ops: 29 s), and the
    cure is always there: slices of fixed shapes, which make one `while`."""
    return 0 if _runtime_slices(why) else UNROLL_WARNING_OPS


def _runtime_slices(why: str) -> bool:
    """Whether a loop is unrolled for a slice with runtime bounds: indexing's
    StaticValueError, or masked.refusal of a slice used where its length
    matters (np.dot of x[:n - k] and x[k:], np.outer of x[k:])."""
    return "slice bounds" in why or "slice with runtime bounds" in why


class UnrollWarning(UserWarning):
    """A long loop is unrolled because it cannot run as one runtime loop:
    its copies make the compile slow."""


def _warn_unrolled(loc, it, count, ops, why, total=None, conditionals=0, indexing=0):
    """`total`: the iterations of all the times the loop ran, where it
    ran before (an inner loop), else None; `conditionals`: the runtime
    `if`s among the `ops` of those iterations; `indexing`: what their
    gathers and scatters at index arrays weigh beyond their count
    (_indexing_weight)."""
    left = f"{count + it.remaining()} iterations" if it is not None else \
        f"{count} iterations so far"
    if total is not None:
        left += f" each time it runs, {total} so far in all"
    cost = (f"{left}, each slicing arrays of its own shapes: slow to compile, XLA takes "
            "seconds for a few dozen copies" if _runtime_slices(why) else
            f"{left}; {ops} ops{_conditionals_so_far(conditionals)} after {total or count}: "
            f"slow to compile, XLA takes about a second per thousand ops"
            f"{_indexing_cost(indexing)}{_conditional_cost(conditionals)}"
            f"{_whole_estimate(it, count, ops + indexing, conditionals) if total is None else ''}")
    advice = _unroll_advice(why)
    message = f"tpucc: this loop is unrolled ({cost}) because {why}" + (
        f"; {advice} so that it runs as one runtime `while`" if advice else "")
    if loc is None:
        warnings.warn(message, UnrollWarning, stacklevel=2)
    else:
        warnings.warn_explicit(message, UnrollWarning, loc.file, loc.line)


def _conditionals_so_far(conditionals: int) -> str:
    return f" and {conditionals} runtime `if`s" if conditionals else ""


def _indexing_cost(indexing: int) -> str:
    return f", {OPS_PER_INDEXED_ACCESS} times that per gather or scatter at index arrays" \
        if indexing else ""


def _conditional_cost(conditionals: int) -> str:
    return " and 0.05 to 0.1 s per runtime `if`" if conditionals else ""


def _whole_estimate(it, count: int, ops: int, conditionals: int) -> str:
    """The compile time the whole loop's copies would take, where its
    length is known: the copies so far scaled to all its iterations."""
    if it is None or not count:
        return ""
    trips = count + it.remaining()
    seconds = trips / count * (ops + OPS_PER_CONDITIONAL * conditionals) * SECONDS_PER_OP
    return f" (all {trips} copies: {_duration(seconds)} or more)" if seconds >= 1 else ""


def _duration(seconds: float) -> str:
    return f"about {seconds:.0f} s" if seconds < 120 else f"about {seconds / 60:.0f} minutes"


# What to change for each reason a loop is unrolled (_try_counted states
# it, quoting the refusal of its body as a While): (words of the reason,
# advice), the first row that matches.  No row: no advice, rather than
# one that cannot help (a loop that already fills an np.zeros table was
# told to use one instead of a list).
_ADVICE = (
    (("characters of a str",),
     "loop over the character codes instead (`for code in s.encode()` gives ints, as "
     "`ord(c)`; or `np.frombuffer(s.encode(), np.uint8)`), which are numbers a runtime loop "
     "can pick"),
    (("slice bounds",),
     "a slice whose bounds depend on the counter compiles with a positive step and basic "
     "indices beside it (a backward or runtime step on the first axis only): slice the other "
     "axes with static bounds or a positive step, or keep the shape with "
     "`np.where(np.arange(n) > k, x, 0)`"),
    (("slice with runtime bounds",),
     "keep the shapes fixed: a window of static length over a zero-padded copy (`xp = "
     "np.concatenate([x, np.zeros(m)])`, then `np.dot(x, xp[k:k + n])`), or the whole axis "
     "under a mask (`np.where(np.arange(n) > k, x, 0)` for a sum or a product; for a median, "
     "a sort or a percentile, fill with np.nan and use np.nanmedian / np.nanpercentile, "
     "or np.inf and np.sort)"),
    # (a copy is the iteration's own new array, which a buffer row holds exactly)
    (("appends a row of an array", "appends an array", "appends one array", "appends the array"),
     "append a copy of the array (`out.append(x.copy())`)"),
    # (a DP table as a list of lists, `dp[i - 1][j - 1]`: calls._runtime_read_position)
    (("a list of lists",),
     "keep the table in one 2-d NumPy array (`dp = np.zeros((n + 1, m + 1), dtype=np.int64)`, "
     "read and written as `dp[i, j]`), not a list of lists"),
    # (a CSR pattern in Python lists, `x[IDX[lo:hi]]` with lo, hi read from
    # a list at the counter: an array's runtime slice compiles, a list's not)
    (("length of a list slice",),
     "make the list a NumPy array before the loop (`IDX = np.array(IDX)`): a slice of an "
     "array with runtime bounds compiles where it is reduced, gathered through (`x[IDX[lo:"
     "hi]]`) or scattered into"),
    (("a list's item", "Python container", "of a list", "a list slice", "items its list gets"),
     "keep what it indexes or updates in NumPy arrays (a table as np.zeros(n), not a list)"),
    # (a list appended to and read in the loop, `eq.append(eq[-1] * (1 + r))`:
    # its length changes, which a While cannot carry; before the row below,
    # whose "known at compile time" its refusal also says)
    (("mutating a ",),
     "keep growing data in a preallocated array that the loop fills in place (`eq = "
     "np.empty(n + 1); eq[0] = start`, then `eq[i + 1] = eq[i] * (1 + r[i])` where the "
     "list's last item was read)"),
    (("the code after it needs",),
     "let the code after the loop use that number as a runtime value (a mask of fixed shape "
     "rather than a shape or a slice length made of it)"),
    (("data-dependent shape", "shape would depend", "length of the result would depend"),
     "keep the shapes fixed: make each array at its largest size and mask the part the "
     "counter selects (`np.where(np.arange(n) < k, x, 0)`)"),
    # (the counter reaches a call that needs a number known at compile time:
    # np.percentile(x, p) one quantile at a time, a matrix power)
    (("known only at run time", "known at compile time", "needed at compile time",
      "needs a static value"),
     "do that for all the counter's values at once, before the loop, and index the result "
     "with the counter inside it (`q = np.percentile(x, list(range(1, 100)))` before, "
     "`q[p - 1]` inside)"),
)


def _unroll_advice(why: str) -> str | None:
    """What to change, for the reason a loop is unrolled; None where no
    change would make it one While (COMPUTES_NUMBERS: unrolled on purpose)
    or tpucc knows none for that reason."""
    if why == COMPUTES_NUMBERS:
        return None
    for words, advice in _ADVICE:
        if any(w in why for w in words):
            return advice
    return None


# A short static range loop is unrolled unless its copies would hold more
# than this many ops per iteration of the unroll budget (XLA compiles about
# a thousand small ops a second here).
OPS_PER_UNROLLED_TRIP = 40


# What one runtime `if` (a Conditional) of an unrolled copy costs XLA, in
# small ops, besides the ops of its branches: each branch is a computation
# of its own, compiled and called apart.  A streaming monitor's 20 unrolled
# steps of 4 ifs and ~50 ops each took 10-15 s to compile, 60 steps as one
# While 2.4 s: about 50 ms per Conditional, some 50 small ops.
COND_COMPILE_WEIGHT = 25
DEFAULT_UNROLL = 32         # tpucc.compile's unroll= (api.DEFAULT_OPTIONS)


def _too_big_to_unroll(ops, it, budget) -> bool:
    """Whether the rest of a static range loop, unrolled, would hold more ops
    than the budget allows (`ops`: one iteration's; its runtime ifs weigh
    COND_COMPILE_WEIGHT more each under the default budget: a budget the
    user chose with `unroll=` accepts its copies' compile time).  A static `while`,
    whose trips are not known ahead, tries one While for the rest as soon
    as one iteration holds more than OPS_PER_UNROLLED_TRIP ops (RK4 steps
    to a static end time: 32 copies, 10 s of XLA)."""
    if not isinstance(it, (RangeIter, SeqIter)) or it.remaining() < 2:
        return False
    cost = _op_count(ops)
    if budget == DEFAULT_UNROLL:
        cost += COND_COMPILE_WEIGHT * _cond_count(ops)
    if ctx().grad_depth:
        cost *= REVERSE_MODE_WEIGHT
    return cost * (it.remaining() + 1) > OPS_PER_UNROLLED_TRIP * budget


# Under tpucc.grad each unrolled copy of a loop body is compiled twice, as
# the forward and as its reverse (2-3 ops per forward op, each reading the
# forward's values), and XLA:CPU fuses the two chains into kernels that grow
# with the loop: 4 unrolled RK4 steps took 1.1 s of XLA, 8 steps 4 s, 12
# steps 11.6 s, where one counted While (a scan in reverse mode) of any
# length took 0.3 s.  So its ops weigh this much more in the unroll budget.
REVERSE_MODE_WEIGHT = 4


def _cond_count(ops) -> int:
    return sum((op.name == "cond") + sum(_cond_count(r.ops) for r in op.regions) for op in ops)


def _op_count(ops) -> int:
    """The ops' cost to XLA's compile, in small ops: a solver or a
    decomposition weighs more (OpDef.compile_weight)."""
    return sum(_compile_weight(op) + sum(_op_count(r.ops) for r in op.regions)
               for op in ops)


def _compile_weight(op) -> int:
    opdef = OPS.get(op.name)
    if opdef is None:
        return 1
    weight = opdef.compile_weight
    return weight(op) if callable(weight) else weight


def _holds_runtime_loop(ops) -> bool:
    return any(op.name == "while" or any(_holds_runtime_loop(r.ops) for r in op.regions)
               for op in ops)


def _rest_as_while(frame, header, stops, loop_stops, it, fold=True) -> Exit | str | None:
    """The rest of a static loop as one While (a counted one for a range),
    or where it cannot be one, why (a range's, for its UnrollWarning) or
    None: the caller goes on unrolling."""
    note = "static loop whose body holds a runtime loop: one While for the rest"
    if isinstance(it, SeqIter):
        # (a long list of static numbers, a polygon's vertices: each copy of a
        # big body is XLA's to compile; the rest picks the items at run time)
        return _items_as_while(frame, header, stops, loop_stops, it,
                               list_loops.rows_of(it), ctx().unrolled_trips,
                               fold=fold)
    if it is None:
        made = _try_while(frame, header, stops, loop_stops, f"while: {note}", static_loop=True,
                          fold=fold)
        return made if isinstance(made, Exit) else None
    counted = _try_counted(frame, header, stops, loop_stops, it, ctx().unrolled_trips,
                           fold=fold)
    return counted if isinstance(counted, Exit) else counted[0]


def _try_while(frame, header, stops, loop_stops, note, static_loop=False, fold=False):
    """build_while, or None where the loop cannot run as one (its body needs
    a static value, or changes what a While cannot carry), or FOLDS where a
    static one computes Python numbers only (number_loops): the caller
    unrolls it instead, which is exact."""
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    try:
        return build_while(frame, header, stops, loop_stops, note, static_loop=static_loop,
                           fold=fold)
    except RunsWhileCompiling:
        frame.locals, frame.stack = locals0, stack0
        return FOLDS
    except (StaticValueError, NeedsStatic):
        pass
    except TpuccError as e:
        if isinstance(e, InternalError):
            raise
    frame.locals, frame.stack = locals0, stack0
    return None


FOLDS = "folds"     # _try_while: the loop computes Python numbers only (number_loops)


def _static_while_as_while(frame, header, stops, loop_stops, count):
    """A static `while` still looping after `count` unrolled iterations as
    one While (its Exit), FOLDS where it computes Python numbers only, or
    why it cannot be one (a list, tuple, dict or string it grows or shrinks
    is no value a While can carry): every iteration so far tested static
    values only, so unrolling on, up to MAX_UNROLL iterations, is exact."""
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    emitted = len(ctx().region.ops)
    try:
        return build_while(frame, header, stops, loop_stops,
                           f"while: still looping after {count} unrolled iterations; "
                           "values that change are carried at runtime",
                           static_loop=True, fold=True)
    except RunsWhileCompiling:
        why = FOLDS
    except (StaticValueError, NeedsStatic) as e:
        what = e.message if isinstance(e, StaticValueError) else e.what
        why = f"its body needs a static value ({what})"
    except TpuccError as e:     # a list that grows, a tuple that gets longer
        if isinstance(e, (InternalError, LimitError)):
            raise               # (a loop that never ends, said at its line)
        why = f"it cannot run as one runtime loop ({e.message})"
    frame.locals, frame.stack = locals0, stack0
    del ctx().region.ops[emitted:]
    return why


def _unroll_limit(loc, it, unrolled_because) -> LimitError:
    """The unrolling budget ran out: say how much of the loop was left and
    why it was being unrolled rather than run as one While."""
    if it is None:
        return LimitError(f"loop unrolled {MAX_UNROLL} times without ending", loc,
                          "make the loop bound a runtime value, or shorten the loop")
    why = unrolled_because or "its items are a static sequence (a list, tuple or dict)"
    advice = _unroll_advice(why)
    return LimitError(
        f"loop unrolled {MAX_UNROLL} times, the most tpucc unrolls, with {it.remaining()} "
        f"iterations left; it is unrolled because {why}", loc,
        f"{advice} so that it runs as one runtime `while`; or shorten the loop" if advice else
        "a long loop compiles to one runtime `while` when its body works on runtime values: "
        "index arrays instead of Python lists, fill a preallocated array (out[i] = v) instead "
        "of growing a list; or shorten the loop")


def _guarded_over_budget(loc, trips: int, budget: int, scan_refused=None) -> GradError:
    """Under tpucc.grad, a static loop that a runtime exit may leave is one
    While of guarded steps; one whose body cannot be that (`scan_refused`:
    why) is unrolled with guards (XLA's While has no reverse mode), but only
    within the unroll budget and GUARDED_UNROLL_LIMIT: past them, the
    budget that would unroll it, or what to change."""
    why = (f"it cannot be one loop whose counter is known only at run time, because "
           f"{scan_refused}; so " if scan_refused else "")
    advice = _unroll_advice(scan_refused) if scan_refused else None
    hints = [f"{advice} so that it runs as one loop"] if advice else []
    if trips <= GUARDED_UNROLL_LIMIT:
        hints.append(f"raise the budget: tpucc.compile(..., unroll={trips}) on the function that "
                     f"calls tpucc.grad (a gradient called on its own: tpucc.compile(lambda x: "
                     f"tpucc.grad(f)(x), unroll={trips})), which is slow to compile")
    hints.append("drop the `break` and mask the iterations after it (`x = np.where(done, x, "
                 "step(x))`)")
    return GradError(
        f"reverse-mode differentiation through this loop is not supported: it has {trips} "
        f"iterations and a runtime `break` or `return` may leave it; {why}under tpucc.grad it "
        "is unrolled, each iteration under the previous ones' exits, only within the unroll "
        f"budget ({budget} iterations) and at most {GUARDED_UNROLL_LIMIT}, past which it would "
        "run as XLA's While, which has no reverse mode",
        loc, hint="; or ".join(hints))


# The most iterations unrolled under the previous ones' runtime exits: each
# is a Cond nested in the one before, and jax traces such a nest by
# recursion (about 90 deep it ends in a RecursionError; 64 differentiated
# take a minute to compile).
GUARDED_UNROLL_LIMIT = 64


def _scan_under_grad(frame, header, it) -> bool:
    """Under tpucc.grad, a static range loop that a runtime `break`,
    `continue` or `return` may leave is one counted While whose steps run
    the body only while the loop goes on (a scan: reverse mode has one copy
    of the body to differentiate), where its body can be one (not tried
    again where it could not, _COUNTED_TRIALS times: each unrolled
    iteration's exit enters the rest of the loop anew)."""
    if not (ctx().grad_depth and isinstance(it, RangeIter) and it.is_static()):
        return False
    if _unrolled_by_request(frame, header):
        # (a scan within the budget that the trace could not finish with:
        # unrolled with guards, the code after the loop runs once per way
        # out, whose static values may differ, `s = s[:2]; break`, which a
        # While's exit cannot carry; _note_scan_within_budget)
        return False
    refused = ctx().uncounted_loops.get((frame.fc.code, header))
    return refused is None or refused[1] < _COUNTED_TRIALS


def _note_scan_within_budget(frame, header, it, budget):
    """A loop short enough to unroll with guards made a guarded scan under
    tpucc.grad: its guarded copies nest (each runs under the previous ones'
    exits), and jax's reverse mode of nested conds grows quadratically (32
    Sinkhorn steps with a tolerance `break`: 48 s to compile, against 2 s
    as one scan).  Where the trace fails after it (the ways out of the loop
    hold different static values, `s = s[:2]; break`, which the While's
    exit merges), infer.trace compiles again with it unrolled (the
    `unroll_loops` option), which is exact."""
    if not _may_unroll_guarded(it, budget):
        return
    ctx().counted_statics.append(CountedStatics(
        (frame.fc.code, header), frame.fc.loop_locs[header], [], it.remaining(), 0, False))


def _static_while_as_scan(frame, header, stops, loop_stops,
                          entered_statically) -> Exit | None:
    """Under tpucc.grad, a `while` on static values (`while i < n:` with a
    Python counter) that a runtime `break`, `continue` or `return` may
    leave: as a counted range loop (_scan_under_grad), one While of as many
    guarded steps as the iterations on the path that stays in the loop.
    None where that path has no end known while compiling (a `while True:`
    only a runtime `break` leaves), or the body cannot be one While."""
    trips = _trips_staying_in_loop(frame, header, loop_stops,
                                   MAX_UNROLL if entered_statically else RUNTIME_TEST_TRIALS)
    if trips is None:
        return None
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    emitted = len(ctx().region.ops)
    try:
        return build_while(frame, header, stops, loop_stops,
                           f"while: a runtime exit may leave it within its {trips} iterations; "
                           "each runs only while the loop goes on", trip_count=trips,
                           static_loop=True)
    except (StaticValueError, NeedsStatic, SideEffectError, MergeError):
        frame.locals, frame.stack = locals0, stack0
        del ctx().region.ops[emitted:]
        return None


# A `while` whose first test was a runtime one (`while m >= 1:` of a runtime
# m) usually keeps a runtime test, which no number of trial iterations ends
# while a Python counter in it changes (`k += 1`: 10,000 trials, 4 s, before
# the While it becomes): its trials stop here.
RUNTIME_TEST_TRIALS = 256


def _trips_staying_in_loop(frame, header, loop_stops, max_trips=MAX_UNROLL) -> int | None:
    """How many iterations a `while` on static values runs from here on the
    path that takes none of its runtime exits (each iteration traced and
    thrown away; the state after a runtime exit is the paths' merge, whose
    static values they all share).  None where the loop's own test is not
    static on that path: an iteration that leaves the static values as they
    were would repeat forever."""
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    try:
        for trips in range(1, max_trips + 1):
            before = state_leaves(frame.locals, frame.stack)
            with journaled_region(runtime=False) as rec, watch_scope() as marks:
                try:
                    ex = walk(frame, header, loop_stops, entering=header)
                except (TpuccError, UserCodeError):
                    return None
                finally:
                    finish_journal(rec["journal"])
                    finish_items(rec["items"])
            end_watch_scope(marks, keep=False)
            if header not in ex.targets:
                return trips
            if not ex.static and _same_statics(before, state_leaves(frame.locals, frame.stack)):
                return None
        return None
    finally:
        frame.locals, frame.stack = locals0, stack0


def _same_statics(before, after) -> bool:
    """Whether two frame states hold the same static values (arrays aside)."""
    (td0, leaves0), (td1, leaves1) = before, after
    return td0 == td1 and all(isinstance(a, Array) and isinstance(b, Array) or static_equal(a, b)
                              for (_, a), (_, b) in zip(leaves0, leaves1))


def _popped_anew(frame, error, locals0, stack0, entry_lists) -> bool:
    """After `error` refused a pop of a static list in a runtime branch or
    loop: the frame back at `locals0` and `stack0` with that list made a
    PoppedQueue (popped_queues.convert), where that is exact; else False,
    the frame as it was."""
    if getattr(error, "popped", None) is None:
        return False
    was = frame.locals, frame.stack
    frame.locals, frame.stack = dict(locals0), list(stack0)
    if popped_queues.convert(frame.interp, frame, error, entry_lists):
        return True
    frame.locals, frame.stack = was
    return False


def _may_unroll_guarded_while(guarded, count: int, budget: int) -> bool:
    """A `while` unrolled with guards (_unroll) may run one more such
    iteration while those before, `count` in this run, stay in the limit."""
    return guarded[0] + count < min(budget, GUARDED_UNROLL_LIMIT)


def _naming_guarded_while(error, loc, limit: int):
    """`error` (a value needed at compile time is a runtime one), from a
    `while` unrolled with guards, with a hint saying why its numbers are
    runtime values, and what compiles."""
    line = loc.line if loc is not None else "?"
    note = (f"the `while` at line {line} may be left on a runtime condition, so it runs as "
            "one runtime loop, whose changing numbers are runtime values; it is unrolled "
            "instead only while every path that goes on keeps them static (a `break` to code "
            f"after the loop that reads them does not), for at most {limit} iterations: "
            "loop over the static values (`for k in (1, 2, 4, 8):`), or `return` "
            "from inside the loop")
    if isinstance(error, TpuccError) and note not in (error.hint or ""):
        error.hint = f"{error.hint}; {note}" if error.hint else note
        error.args = (error.render(),)
    return error


def _returning_exits(fc, header) -> frozenset:
    """The exits of the loop at `header` that only return (`return k`):
    blocks that end in RETURN_VALUE, or jump straight to one (a shared tail)."""
    def returns(index, hops=0):
        block = fc.blocks[index]
        if block.instrs and block.instrs[-1].op == "RETURN_VALUE":
            return True
        successors = block.successors()
        return hops < 4 and len(successors) == 1 and successors[0] not in fc.loop_headers \
            and returns(successors[0], hops + 1)
    return frozenset(e for e in fc.loop_exits[header] if returns(e))


def _note_guarded_trip(frame, header, ex, guarded, count: int):
    """Counts a `while`'s guarded iteration for its continuation (the
    walk of the path that goes on from the header runs the loop again); a
    static exit ends it."""
    if ex.static and ex.targets[0] != header:
        frame.guarded_whiles.pop(header, None)
    elif not ex.static:
        frame.guarded_whiles[header] = (guarded[0] + count + 1, guarded[1])


def _may_unroll_guarded(it, budget) -> bool:
    """A static `for` whose iteration ended on a runtime condition (a runtime
    break/continue/return) is unrolled with guards while it is short."""
    return it is not None and it.remaining() <= min(budget, GUARDED_UNROLL_LIMIT)


def _for_iterator(frame, header):
    instrs = frame.fc.blocks[header].instrs
    if instrs and instrs[0].op == "FOR_ITER" and frame.stack:
        top = frame.stack[-1]
        if isinstance(top, (RangeIter, SeqIter)) and (not isinstance(top, RangeIter)
                                                     or top.is_static()):
            return None if isinstance(top, RangeIter) and is_endless_count(top) else top
    return None


def _try_counted(frame, header, stops, loop_stops, it: RangeIter, enclosing: int,
                 resume=None, fold=True):
    """A long static range loop becomes a While over a runtime counter, unless
    its body needs the counter as a static value, or changes something a While
    cannot carry (a list it appends to, a variable whose shape or dtype
    settles only after the first iteration).  Unrolling such a loop is exact,
    only slower, so it is unrolled: returns the Exit, or (why it must unroll,
    the error that said so, if any) (errors that do not come from the While
    recur while unrolling).  A loop that computes Python numbers only is
    unrolled too, when `fold` (number_loops).  `resume`: see
    _try_counted_but_last."""
    if _unrolled_by_request(frame, header):
        return "the code after it needs a number it computes at compile time", None
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    emitted = len(ctx().region.ops)
    pos = emit("full", shape=(), dtype=np.dtype(np.int64), value=it.pos)
    pos = Array(_weak(pos))
    pos.immutable = True        # a Python int: `i += 1` rebinds, `x[i]` is a view
    last = it.pos + (it.remaining() - 1) * it.step
    pos.span = Span(pos.var, 0, min(it.pos, last), max(it.pos, last))
    frame.stack[-1] = dataclasses.replace(it, pos=pos)
    try:
        within = f" within unrolled loops of {enclosing} iterations" if enclosing > 1 else ""
        with stacking.growing(it.pos, it.step, it.remaining()), \
                stacking.items_set_aside(frame, header):
            return build_while(frame, header, stops, loop_stops,
                               f"counted loop: {it.remaining()} iterations{within} exceed the "
                               f"unroll budget ({ctx().options.get('unroll', 32)})",
                               trip_count=it.remaining(), resume=resume,
                               fold=fold and it.remaining() <= MAX_UNROLL)
    except RunsWhileCompiling as e:
        frame.locals, frame.stack = locals0, stack0
        del ctx().region.ops[emitted:]      # (the counter's and the promoted numbers' ops)
        return COMPUTES_NUMBERS, _dropped_trial(e)
    except (StaticValueError, NeedsStatic) as e:
        frame.locals, frame.stack = locals0, stack0
        what = e.message if isinstance(e, StaticValueError) else e.what
        return f"its body needs a static value ({what})", _dropped_trial(e)
    except TpuccError as e:     # e.g. a list that grows, a `raise` under `if i > n:`
        if isinstance(e, InternalError):
            raise
        frame.locals, frame.stack = locals0, stack0
        return f"it cannot run as one runtime loop ({e.message})", _dropped_trial(e)


def _carry_picked_containers(ends: dict, after: dict) -> None:
    """A dict or object the body picked among a list's items (`for d in L:
    ... break` over a long list: list_loops), rebuilt after the While: a
    copy of the same items, which their changes would not reach either
    (picked_copies)."""
    chosen = ctx().chosen_containers
    for name, end in ends.items():
        now = after.get(name)
        if now is not None and now is not end and chosen.get(id(end)) is end:
            picked_copies.carry(end, now)


def _dropped_trial(error):
    """The error that ended a While's trial, kept (it may recur while the
    loop unrolls) without its traceback: the frames of the trial would keep
    what the trial made in use, its runtime picks' copies among them, which
    no longer exist for the program (picked_copies.is_marked)."""
    return error.with_traceback(None)


def _drop_dead_locals(frame, header, entry=None, reached=()):
    """Variables that neither the loop (from its header) nor the code after
    it reads before binding them again are not carried: their values need
    not agree from one iteration to the next, and a While carries less
    (arrays and numbers only: see control.drop_dead_locals).  At the body's
    end (`entry`: the locals it started with; `reached`: where the body
    went) the carried ones stay: those a join inside unbound, because
    nothing read them from where its paths went (they all leave the loop,
    say), get back their entry values, which nothing reads either."""
    fc = frame.fc
    dead = dead_locals(fc, (header, *fc.loop_exits[header]))
    if entry is None:
        drop_dead_locals([frame.locals], dead)
        return
    drop_dead_locals([frame.locals], dead - entry.keys())
    for name in (dead_locals(fc, reached) & entry.keys()) - frame.locals.keys():
        frame.locals[name] = entry[name]
        if bound_flag(name) in entry:   # (the join dropped its flag with it: the state's shape)
            frame.locals[bound_flag(name)] = entry[bound_flag(name)]


def _try_counted_but_last(frame, header, stops, loop_stops, it: RangeIter, enclosing) -> bool:
    """All but the last iteration of a static range loop as one counted
    While, the last one left to unroll after it (whether that could be
    done).  `for i in range(0, n, bs): x[i:i + bs]` with a partial last
    batch: every window but the last has the static length bs."""
    last = it.pos + (it.remaining() - 1) * it.step
    head = RangeIter(it.pos, last, it.step, it.rows)
    frame.stack[-1] = head
    made = _try_counted(frame, header, stops, loop_stops, head, enclosing,
                        resume=RangeIter(last, it.stop, it.step, it.rows))
    if isinstance(made, Exit):
        return True
    frame.stack[-1] = it
    return False


# Why a loop over a str is unrolled (its UnrollWarning's reason; _ADVICE).
STR_CHARACTERS = ("it goes over the characters of a str, which compiled code holds only at "
                  "compile time (one copy of the body per character)")


def _uncountable_items(it: SeqIter) -> str | None:
    """Why a long loop over items too different for one While is unrolled,
    where a change would help (a str's characters: 4000 of them, 27 s to
    compile); else None (no UnrollWarning)."""
    items = it.items[it.pos:] if type(it.items) is tuple and isinstance(it.pos, int) else ()
    if items and all(type(v) is str and len(v) == 1 for v in items):
        return STR_CHARACTERS
    return None


def _try_counted_list(frame, header, stops, loop_stops, it: SeqIter, enclosing, budget):
    """A long loop over a list's (or another static sequence's) items, when
    they are alike: all but the last iteration as one counted While over
    the positions, the item at each picked at run time (list_loops); the
    last left to unroll after it, so that the loop variable then holds the
    list's last item itself.  Where only a long first run of them is alike
    (`zip_longest(a, b)`: pairs of rows, then a row and the fill value),
    that run is the While, and the loop goes on from the next item.  True
    where that could be done, the Exit where the whole loop is one While,
    else why the loop is unrolled (None: its items differ)."""
    it = caught_up(it)      # (an iterator held in a variable goes on where next() left it)
    rows = list_loops.rows_of(it)
    last = len(it.items) - 1
    if rows is None:
        rows = list_loops.alike_run(it)
        if rows is None or (rows.end - it.pos) * enclosing <= budget:
            return None
        last = rows.end     # (the run's own last item is no list's last: no unrolling)
    rows.prestack()
    frame.stack[-1] = RangeIter(it.pos, last, 1, rows)
    with list_loops.refused_elsewhere(it):
        made = _try_counted(frame, header, stops, loop_stops, frame.stack[-1], enclosing,
                            resume=it.at(last))
        if isinstance(made, Exit):
            return True
    frame.stack[-1] = it
    if isinstance(made[1], LeavesEarly) and rows.end is None:
        whole = _items_as_while(frame, header, stops, loop_stops, it, rows, enclosing)
        if whole is not None:
            return whole
    return made[0]


def _items_as_while(frame, header, stops, loop_stops, it: SeqIter, rows, enclosing,
                    fold=True):
    """A loop over `it`'s items that a runtime `break` or `return` may leave,
    all its iterations as one counted While over the positions (rows: the
    items, list_loops.rows_of), or None where it cannot be one.  After it
    the loop variable is a copy of the item it left at (updating it in
    place is refused), and where the iterator stands is known only at run
    time."""
    if rows is None:
        return None
    if not rows.stacked:
        rows.prestack()
    frame.stack[-1] = RangeIter(it.pos, len(it.items), 1, rows)
    with list_loops.refused_elsewhere(it) as cursor:
        made = _try_counted(frame, header, stops, loop_stops, frame.stack[-1], enclosing,
                            fold=fold)
        if isinstance(made, Exit):
            cursor.keep()
            return made
    frame.stack[-1] = it
    return None


def _weak(arr: Array):
    (v,) = emit_op("convert", (arr.var,), {"dtype": arr.dtype},
                   (AVal(arr.dtype, arr.shape, True),))
    return v


def _unrolled_by_request(frame, header) -> bool:
    """Whether infer.trace asked for this static loop unrolled (CountedStatics)."""
    return (frame.fc.code, header) in ctx().options.get("unroll_loops", ())


def build_while(frame, header, stops, loop_stops, note, trip_count=None, resume=None,
                static_loop=False, fold=False) -> Exit:
    """_build_while, holding as one array a list of Python numbers the body
    reads or writes at runtime positions (a DP table: held_tables.py)."""
    return held_tables.holding(frame, lambda: _build_while(
        frame, header, stops, loop_stops, note, trip_count, resume, static_loop, fold))


def _build_while(frame, header, stops, loop_stops, note, trip_count=None, resume=None,
                 static_loop=False, fold=False) -> Exit:
    """One While op for the loop at `header`, found by a fixpoint on the
    loop-carried slots (see module docstring).  `trip_count`: the static
    number of iterations of a counted range loop, if known.  `resume`: a
    static range iterator the loop goes on with, from its header, after
    the While (which must then always go back to the header).  `fold`:
    raise RunsWhileCompiling instead of emitting a While that would
    compute Python numbers only (number_loops)."""
    loc = frame.fc.loop_locs[header]
    counted = _runtime_range_header(frame, header)
    _drop_dead_locals(frame, header)
    promote: dict[str, AVal] = _counter_promoted(frame, counted)
    boxes: list = list(ctx().loop_boxes.get((frame.fc.code, header), ()))
    unshared: set = set()           # entry arrays whose aliasing the body breaks
    detached: set = set()           # views the body rebinds: carried as values
    kind_paths: frozenset = frozenset()     # 0-d slots whose kind the While carries
    int_paths: frozenset = frozenset()      # ... and whether they hold a Python number
    rebound = Rebound()     # slots outside the variables that the body rebinds
    entry = dict(state_leaves(frame.locals, frame.stack)[1])    # for _explain_types
    is_private = privacy.private_arrays(frame)
    try:
        ex, every_trip = _settle_while(frame, header, loop_stops, loc, counted, promote, boxes,
                                       unshared, detached, (kind_paths, int_paths), rebound,
                                       note, trip_count, is_private, resume, fold)
    except MergeError as e:
        raise _explain_types(e.with_loc(loc), entry, promote) from None
    made_runtime = [p for p, aval in promote.items() if isinstance(entry.get(p), _PY_NUMBERS)
                    and aval is not chosen_values.POSITION] + \
        rebound.made_runtime
    if (trip_count is not None or static_loop) and made_runtime:
        body = next(op for op in reversed(ctx().region.ops) if op.name == "while")
        copies = None if trip_count is None else trip_count * ctx().unrolled_trips
        ctx().counted_statics.append(CountedStatics(
            (frame.fc.code, header), loc, made_runtime, copies,
            None if copies is None else copies * _op_count(body.regions[1].ops),
            trip_count is not None and not every_trip))
    return ex


_PY_NUMBERS = (bool, int, float, complex, np.generic)


def _counter_promoted(frame, counted) -> dict:
    """The promotion a runtime range's counter needs from the fixpoint's
    first trial: a static start (`range(n)`: 0) changes in every iteration,
    so the first trial would only find that out (and a nest of such loops
    would trace each level once more per level around it)."""
    pos = frame.stack[-1].pos if counted else None
    if type(pos) is not int:
        return {}
    return {f"<stack {len(frame.stack) - 1}>.pos": leaf_aval(pos)}


@dataclass(frozen=True)
class CountedStatics:
    """A static loop run as a counted While (more iterations than the unroll
    budget) that made the Python numbers at `paths` runtime values: `n += i`
    gives a runtime n, where unrolled it would be a number known at compile
    time.  `key`: the loop's (code, header block), which the `unroll_loops`
    option lists to unroll it (infer.trace, when a later line needs such a
    number at compile time); `trips`: its copies, unrolled, and `ops` the
    ops they would hold (None for a static `while`: not known)."""
    key: tuple
    loc: object
    paths: list
    trips: int | None
    ops: int | None
    leaves_early: bool      # a runtime `break` or `return` (unrolled, still runtime)


def _structure_changed(name, before, end, loc) -> StaticChanged:
    """The refusal of an attribute or item holding a tuple, named tuple or
    frozen dataclass of arrays that an iteration leaves holding one of
    another structure (another class, another length, None)."""
    differs = structure_difference(state_leaves({name: before}, []),
                                   state_leaves({name: end}, []))
    if differs is not None and differs[1] != differs[2]:
        where, first, then = differs
        what = f"{where}: {first} before it, {then} after it"
    else:
        what = f"`{name}`: {describe_static(before)} before it, {describe_static(end)} after it"
    target = f"obj{name}" if name.startswith((".", "[")) else name
    return StaticChanged(
        f"an iteration of this runtime loop changes the structure of {what}", loc,
        f"keep one structure on every iteration: the same class and number of items, and "
        f"arrays of one shape and dtype in each (the loop carries `{target}` item by item)")


def _static_change_hint(path, before, after) -> str:
    """What to do about a loop variable that holds another object after an
    iteration: an object made anew each time (`s = State(...)`) can be one
    object whose attributes the loop rebinds, or a namedtuple."""
    if type(before) is type(after) and not isinstance(before, (str, bytes, tuple)) \
            and hasattr(before, "__dict__") and not callable(before):
        frozen = getattr(getattr(type(before), "__dataclass_params__", None), "frozen", False)
        target = f"obj{path}" if path.startswith((".", "[")) else path
        name = type(before).__name__
        keep = "" if frozen else (f"keep one {name} and rebind its attributes "
                                  f"({target}.x = ...), or ")
        # (value_objects.made_anew: the variable's own new object each iteration)
        carried = "" if frozen or not path.isidentifier() else (
            f"a runtime loop carries a new {name} each iteration in `{path}` only where the "
            f"function made the one before the loop and nothing else holds it or the new ones "
            f"(no other name, container, caller, `is` or id()); else ")
        return (f"{carried}only arrays and numbers can change inside a loop on runtime "
                f"values: {keep}hold the values in a namedtuple or a frozen dataclass of "
                "arrays and numbers, which the loop carries item by item")
    if before is None and isinstance(after, Array):
        # (a layer caching its input: `self.x = None` in __init__, set by forward)
        return ("only arrays and numbers can change inside a loop on runtime values: give "
                f"`{path}` an array of that shape and dtype before the loop (where it is set "
                f"to None: `np.zeros({after.aval.shape}, np.{after.aval.dtype})`), or run the "
                "first iteration before the loop")
    return "only arrays and numbers can change inside a loop on runtime values"


def _explain_types(error: MergeError, entry: dict, promote: dict) -> MergeError:
    """A loop's types that do not settle, with the slots whose type the
    first iteration changed (a Python int that becomes an int64 array):
    the body was traced again with their new types, which change what it
    computes, so some value differs between the first iteration and the
    next.  `promote` is build_while's, as it was when `error` was raised."""
    changed = [path for path, aval in promote.items()
               if leaf_aval(entry.get(path)) not in (None, aval)
               and aval is not chosen_values.POSITION]
    if not changed:
        return error
    what = ", ".join(f"`{p}` ({describe_static(entry[p])} before the loop, {promote[p]} after "
                     "an iteration)" for p in changed)
    example = (" (e.g. np.int64(0) rather than 0)"
               if any(type(entry[p]) in (int, float, bool) for p in changed) else "")
    hint = (f"{what} changes type in the loop, and so does what is computed from it: "
            f"give it that type before the loop{example}")
    return type(error)(error.message, error.loc, hint)     # (FirstIterationRetypes stays one)


def _settle_while(*args, **kwargs) -> Exit:
    """build_while's fixpoint: promote (mutated in place, for _explain_types),
    boxes and the other sets grow until a trial of the body changes nothing.
    -> (the Exit, whether every iteration runs to the end of the body).
    Variables the loop rebinds to plain objects made anew are carried as
    values within it (value_objects.py)."""
    with value_objects.carrying(args[0].interp):
        return _settle(*args, **kwargs)


# Trials of a loop body in a row that may add objects to the table of choices
# (each new object a choice may hold: one trial more) before the loop is taken
# to make a new one at each iteration (chosen_values.endless).
_MOST_GROWN_TRIALS = 4


def _settle(frame, header, loop_stops, loc, counted, promote, boxes, unshared, detached,
            kind_paths, rebound, note, trip_count, is_private, resume=None, fold=False):
    # (where a range's counter starts, if static: _counter_span; a static
    # range's too, whose counter the While makes runtime)
    top = frame.stack[-1] if frame.stack else None
    counter_from = top.pos if (counted or isinstance(top, RangeIter)
                               and _for_iterator(frame, header) is top) \
        and type(top.pos) is int else None
    iterator = f"<stack {len(frame.stack) - 1}>.pos" if frame.stack else None
    not_counting: set = set()       # slots an iteration does not count up (counters.py)
    caps: dict = {}                 # counters the loop's tests keep below a cap (counters.py)
    ranges: dict = {}               # the positions carried choices may hold (counters.widened)
    kind_paths, int_paths = kind_paths
    grown = 0                       # trials in a row that made new objects
    for _attempt in range(12):
        locals0, stack0 = dict(frame.locals), list(frame.stack)
        choices_before = len(chosen_values.choices())
        ctx().choices_made_at = None
        with _items_kept(frame.interp, rebound.in_place):
            with builder.at(loc):
                narrowed = _apply_promotions(frame, promote, rebound.in_place)
            td, leaves = state_leaves(frame.locals, frame.stack)
            carried = [i for i, (_, v) in enumerate(leaves) if isinstance(v, Array)]
            int_paths |= _entry_python_number_paths(leaves, carried)
            for path in chosen_values.chosen_paths(td, leaves):
                ranges.setdefault(path, None)
            counting = counters.guesses(leaves, carried, iterator, not_counting, caps, ranges)

            def run(counting=counting):
                return _run_body(frame, header, loop_stops, td, leaves, carried, boxes,
                                 counted, unshared, kind_paths, rebound, detached, is_private,
                                 trip_count, counter_from, counting, int_paths)
            try:
                trial = run()
            except (ShapeError, MergeError):
                # (a window x[:, i:i + 1] of a counter that the loop's own test
                # `i < T` keeps in range, known once a trial reaches that test;
                # a MergeError: an `if` choosing such a window)
                frame.locals, frame.stack = locals0, stack0
                found = _caps_probed(run, frame, counting, leaves, not_counting)
                if not found.keys() - caps.keys():
                    raise
                caps.update(found)          # again, with those counters' ranges capped
                continue
            except SideEffectError:
                # (reaching a carried array by another name: through an argument
                # shared by another, which reads the copy kept in place)
                shared = _shared_argument_copies(frame.interp, rebound.in_place)
                frame.locals, frame.stack = locals0, stack0
                if not shared:
                    raise
                rebound.in_place.update(shared)     # again, keeping those the same objects
                continue
            trial.entry_narrowed, trial.counters = narrowed, counting
        frame.locals, frame.stack = locals0, stack0
        if len(chosen_values.choices()) > choices_before:
            # (the body made a new choice: its lookups in the table of objects
            # were made with a shorter one, which a carried position may pass)
            grown += 1
            made_at = ctx().choices_made_at
            if grown >= _MOST_GROWN_TRIALS and made_at is not None:
                raise chosen_values.endless(made_at)
            # (and the ranges of carried choices widened to the new objects
            # the body bound them, or left, where they keep growing: one
            # trial more for both)
            kept = counters.widened(counters.refuted(counting, leaves, trial.leaves), counting,
                                    leaves, trial.leaves, ranges, chosen_values.whole_enums)
            not_counting |= {r for r in kept if isinstance(r, tuple) and r[0] in ranges}
            continue
        grown = 0
        wrong = counters.refuted(counting, leaves, trial.leaves, trial.back_edges)
        if wrong:
            # again, without assuming those count up (a choice's positions:
            # widened to what the body left)
            not_counting |= counters.widened(wrong, counting, leaves, trial.leaves, ranges,
                                             chosen_values.whole_enums)
            continue
        found = counters.capped_by_tests(counting, leaves, trial.back_edges, not_counting)
        if found.keys() - caps.keys():
            caps.update(found)          # again, with those counters' ranges capped
            continue
        growth = stacking.current() if trip_count is not None else None
        if growth is not None and growth.make_buffers():
            # again, the appended values going into buffers (and the lists
            # whose items the body rebound kept: a buffer is keyed by its
            # list, which a rebuilt copy would not be: stacking.last_read_lists)
            rebound.in_place.update(trial.in_place)
            continue
        if trial.in_place.keys() - rebound.in_place.keys():
            rebound.in_place.update(trial.in_place)     # again, keeping those the same objects
            continue
        shared = _shared_argument_copies(frame.interp, rebound.in_place)
        if shared:
            rebound.in_place.update(shared)
            continue
        if rebound.widen(trial.loose_ends, loc):
            continue                    # again, carrying those slots (or with wider types)
        if trial.diverged - unshared:
            unshared |= trial.diverged      # again, without sharing those arrays
            continue
        if trial.detached - detached:
            detached |= trial.detached      # again, those views as values of their own
            continue
        if _add_loop_defined(frame, trial, header, runs_once=bool(trip_count)):
            continue                # variables first bound inside the loop join the state
        if _carry_choices((td, leaves), trial, promote):
            continue                    # again, carrying those objects as choices
        if value_objects.made_anew(leaves, trial, frame, counted=trip_count is not None):
            continue                # again, carrying those objects' attributes
        _check_loop_structure((td, leaves), trial, loc)
        new_promote, new_boxes = _widen(leaves, trial, promote, boxes, loc)
        new_kinds = kind_paths | _kind_changing_paths(leaves, carried, trial)
        new_ints = int_paths | _python_int_paths(leaves, carried, trial)
        if new_promote == promote and len(new_boxes) == len(boxes) and \
                new_kinds == kind_paths and new_ints == int_paths:
            if fold and computes_numbers_only(trial, leaves, carried, boxes, rebound):
                raise RunsWhileCompiling("a loop that computes Python numbers only", loc)
            if growth is not None:
                growth.check_complete(trial.exit.static and trial.exit.targets == (header,), loc)
            ctx().loop_boxes[frame.fc.code, header] = [b for b in boxes if b.serial == 0]
            ex = _emit_while(frame, header, td, leaves, carried, boxes, trial, note, loc,
                             counted, trip_count, rebound, resume)
            if growth is not None:
                growth.fill(frame.interp, state_leaves(frame.locals, frame.stack)[1], leaves)
            return ex, trial.exit.static and trial.exit.targets == (header,)
        promote.update(new_promote)
        boxes, kind_paths, int_paths = new_boxes, new_kinds, new_ints
    raise MergeError("the loop-carried variables of this loop do not settle on fixed types", loc)


def _caps_probed(run, frame, counting, leaves, refuted) -> dict:
    """counters.capped_by_tests of a trial run() that takes every window of
    a counter to be in range (guarded_ranges.probing): the trial before
    stopped at one before reaching the loop's tests.  The caps it finds are
    guesses the next trial checks, windows included."""
    if not counters.tested_paths(counting, leaves):
        return {}
    locals0, stack0 = dict(frame.locals), list(frame.stack)
    try:
        with guarded_ranges.probing():
            trial = run()
    except TpuccError:
        return {}
    finally:
        frame.locals, frame.stack = locals0, stack0
    return counters.capped_by_tests(counting, leaves, trial.back_edges, refuted)


@dataclass
class Rebound:
    """What a loop body rebinds besides its frame's variables: items of the
    lists and dicts those hold (`in_place`, {id: serial}: kept the same
    objects, their items carried as the variables' leaves), and other slots
    (`loose`, {(id(holder), key): [holder, key, serial, aval]}: an object's
    attribute, an item of a list only an object holds), carried by the While
    as values of their own (holder[key] is the slot).  One holding a tuple,
    named tuple or frozen dataclass of arrays each iteration (`self.state =
    State(...)`) is carried leaf by leaf, as a variable's is: its leaves
    are loose slots whose holder is its CarriedValueLeaves (`held`, by
    (id(holder), key)), kept the same object from trial to trial."""
    in_place: dict = field(default_factory=dict)
    loose: dict = field(default_factory=dict)
    held: dict = field(default_factory=dict)
    made_runtime: list = field(default_factory=list)    # names of static numbers it carries
    # Loose 0-d slots an iteration leaves with another kind than it found
    # (`m.b = m.b * 0.9` makes a NumPy scalar of a 0-d array): the While
    # carries each one's kind as a bool, as _kind_changing_paths for variables.
    kinds: list = field(default_factory=list)
    # ... and those holding a Python number on some runtime path: whether
    # they do, as a bool (held_ints.py); {slot: its values before and after}.
    ints: dict = field(default_factory=dict)
    # ... and of those, the ones holding a Python bool beside that Python
    # int or float: which paths do, as a second bool (held_ints.needs_bool_flag).
    bools: list = field(default_factory=list)
    # ... and of the choices among static objects (`self.stage`), the range
    # of positions each may hold ({slot: (lo, hi, times widened)}, None:
    # any), given to its Array in the body and after the loop (_held)
    ranges: dict = field(default_factory=dict)

    def params(self) -> list:
        return [Value(aval) for *_, aval in self.loose.values()] + \
            [Value(AVal(np.dtype(bool), ())) for _ in self.kinds] + \
            [Value(held_ints.FLAG) for _ in list(self.ints) + self.bools]

    def size(self) -> int:
        """How many values the While carries for these slots."""
        return len(self.loose) + len(self.kinds) + len(self.ints) + len(self.bools)

    def _held(self, values) -> tuple:
        """({slot: its bool} of the `ints` slots, {slot: its second bool} of
        the `bools` ones), from the While's values for these slots (params
        or outputs)."""
        at = len(self.loose) + len(self.kinds)
        return (dict(zip(self.ints, values[at:])),
                dict(zip(self.bools, values[at + len(self.ints):])))

    def befores(self) -> dict:
        """{slot: (its name, what it holds)}, before `enter`."""
        return {slot: (slot_name(holder, key), holder[key])
                for slot, (holder, key, *_) in self.loose.items()}

    def enter(self, params) -> dict:
        """In the body: each carried slot holds its parameter.  Returns
        {slot: the Array it holds}."""
        entries = {}
        kinds = dict(zip(self.kinds, params[len(self.loose):]))
        held, held_bools = self._held(params)
        for (slot, (holder, key, serial, aval)), p in zip(self.loose.items(), params):
            arr = entries[slot] = Array(p)
            if aval is chosen_values.POSITION:      # a choice among static objects
                store(holder, key, self._choice(slot, arr), serial)
                continue
            arr.immutable = RuntimeKind(kinds[slot]) if slot in kinds else scalar_kind(holder[key])
            held_ints.hold(arr, held.get(slot), self.ints.get(slot, ()), held_bools.get(slot))
            store(holder, key, arr, serial)
        return entries

    def ends(self, written: dict, items: dict) -> dict:
        """{slot: (holder, key, serial, value at the body's end, its Value
        then)} for the carried slots and the ones the body rebound."""
        out = {}
        for slot, entry in list(self.loose.items()) + list(written.items()):
            holder, key, serial = entry[:3]
            value = holder[key]
            out[slot] = (holder, key, serial, value,
                         value.var if isinstance(value, Array) else None)
        return out

    def widen(self, ends: dict, loc) -> bool:
        """Carries the slots the body changed, with types that hold both
        their values before and after an iteration; whether that changed."""
        changed = False
        for slot, (holder, key, serial, end, _) in self._by_leaf(ends, loc):
            before = holder[key]            # (the body's writes are undone)
            name = slot_name(holder, key)
            carried = self.loose.get(slot)
            if carried is None and (end is before or static_equal(before, end)):
                continue
            if carried is not None and carried[3] is chosen_values.POSITION:
                if not chosen_values.fits(end):
                    raise StaticChanged(
                        f"this runtime loop changes `{name}` from a static object to "
                        f"{describe_static(end)}", loc, _static_change_hint(name, before, end))
                changed |= self._widen_range(slot, before, end)
                continue
            if chosen_values.positions([before, end]) is not None:
                # (`self.status = "converged"` in the body: carried as a choice)
                self.loose[slot] = [holder, key, serial, chosen_values.POSITION]
                self._widen_range(slot, before, end)
                changed = True
                continue
            avals = [carried[3] if carried else leaf_aval(before), leaf_aval(end)]
            if any(a is None for a in avals):
                raise StaticChanged(
                    f"this runtime loop changes the static value `{name}` "
                    f"({describe_static(before)} -> {describe_static(end)})", loc,
                    held_value_hint(name, (before, end)) or
                    held_dict_hint(name, (before, end)) or
                    _static_change_hint(name, before, end))
            aval = _unify_iterations(name, avals, (before, end), first=carried is None)
            if carried is None and isinstance(before, _PY_NUMBERS):
                self.made_runtime.append(name)      # (`self.n += 1`: see CountedStatics)
            if carried is None or aval != carried[3]:
                self.loose[slot] = [holder, key, serial, aval]
                changed = True
            if not aval.shape and slot not in self.kinds and \
                    None is not scalar_kind(end) is not scalar_kind(before) is not None:
                self.kinds.append(slot)
                changed = True
            if slot not in self.ints and held_ints.needs_flag([before, end], aval):
                self.ints[slot] = [before, end]
                changed = True
            if slot in self.ints and slot not in self.bools and \
                    held_ints.needs_bool_flag(self.ints[slot] + [before, end], aval):
                self.ints[slot] += [before, end]
                self.bools.append(slot)
                changed = True
        return changed

    def _choice(self, slot, position: Array) -> chosen_values.ChosenValue:
        """The choice a carried slot holds at `position`, in its range."""
        bounds = self.ranges.get(slot)
        if bounds is not None:
            position.span = Span(position._var, 0, *bounds[:2])
        return chosen_values.ChosenValue(position)

    def _widen_range(self, slot, before, end) -> bool:
        """Widens the range of a carried choice's positions to hold its value
        before an iteration and after it (counters.widened's, for a
        variable); whether that changed it.  Any positions (None) where one
        is unbounded or it kept growing."""
        if slot in self.ranges and self.ranges[slot] is None:
            return False
        old = self.ranges.get(slot)
        bounds = [counters.known_bounds(chosen_values.position_value(v)) for v in (before, end)]
        if old is not None:
            bounds.append(old[:2])
        if None in bounds:
            self.ranges[slot] = None
            return old is not None
        lo, hi = chosen_values.whole_enums((min(b[0] for b in bounds),
                                           max(b[1] for b in bounds)))
        if old is not None and (lo, hi) == old[:2]:
            return False
        if old is not None and old[2] >= counters.MOST_WIDENINGS:
            self.ranges[slot] = None        # (it keeps growing: any position)
            return True
        self.ranges[slot] = (lo, hi, old[2] + 1 if old else 0)
        return True

    def _by_leaf(self, ends: dict, loc) -> list:
        """`ends`' entries, a slot holding a tuple, named tuple or frozen
        dataclass of arrays before and after an iteration, of one structure,
        split into entries of its leaves (their holder its CarriedValueLeaves);
        such a slot given another structure is refused."""
        out = []
        for slot, entry in ends.items():
            holder, key, serial, end, _ = entry
            if isinstance(holder, CarriedValueLeaves):
                # (its whole slot's entry says what it holds: enter() rebinds
                # that slot, so each iteration's ends have it)
                continue
            before = holder[key]
            leaves = self.held.get(slot)
            if end is before or (leaves is None and not (is_carried_value(before)
                                                          and is_carried_value(end))):
                out.append((slot, entry))
                continue
            if leaves is None:
                leaves = self.held[slot] = CarriedValueLeaves.of(holder, key, serial, before)
            if not leaves.matches(end):
                raise _structure_changed(slot_name(holder, key), before, end, loc)
            for i, leaf in enumerate(value_leaves(end)[1]):
                value = leaf[1]
                out.append(((id(leaves), i), (leaves, i, serial, value,
                                              value.var if isinstance(value, Array) else None)))
        return out

    def results(self, ends: dict) -> list:
        return [as_aval(chosen_values.position_value(ends[slot][3]), aval)
                if aval is chosen_values.POSITION else
                as_aval(ends[slot][4] if ends[slot][4] is not None else ends[slot][3], aval)
                for slot, (*_, aval) in self.loose.items()] + \
            [kind_value(ends[slot][3]) for slot in self.kinds] + \
            [held_ints.flag_of(ends[slot][3], self.loose[slot][3]) for slot in self.ints] + \
            [held_ints.bool_flag_of(ends[slot][3]) for slot in self.bools]

    def inits(self) -> list:
        return [as_aval(chosen_values.position_value(holder[key]) if aval is chosen_values.POSITION
                        else holder[key], aval)
                for holder, key, _, aval in self.loose.values()] + \
            [kind_value(self.loose[slot][0][self.loose[slot][1]]) for slot in self.kinds] + \
            [held_ints.flag_of(self.loose[slot][0][self.loose[slot][1]], self.loose[slot][3])
             for slot in self.ints] + \
            [held_ints.bool_flag_of(self.loose[slot][0][self.loose[slot][1]])
             for slot in self.bools]

    def leave(self, outs, shares: dict, renewed=frozenset(), ran_to_end=None):
        """After the While: each carried slot holds its result.  Where it held
        an array before the loop, it is that very array when the loop does not
        run, or when an iteration may leave it there, unless the slot is
        `renewed` (a loop with a static trip count whose every iteration
        leaves a new array in it); where an iteration leaves an array from
        before the loop in it (`shares`, loops._loop_shared), it may be that
        one: in-place updates of any of them are refused after the loop (as
        for variables).  `ran_to_end`: the body's ends (Rebound.ends) where it
        surely ran to its end, for _kind_after_loop; else None."""
        kinds = dict(zip(self.kinds, outs[len(self.loose):]))
        held, held_bools = self._held(outs)
        for (slot, (holder, key, serial, aval)), out in zip(self.loose.items(), outs):
            before = holder[key]
            arr = Array(out)
            if aval is chosen_values.POSITION:      # a choice among static objects
                store(holder, key, self._choice(slot, arr), serial)
                continue
            arr.immutable = (scalar_kind(before) if slot not in kinds else
                             _kind_after_loop(kinds[slot], ran_to_end[slot][3], True)
                             if ran_to_end is not None and slot in ran_to_end else
                             RuntimeKind(kinds[slot]))
            held_ints.hold(arr, held.get(slot), self.ints.get(slot, ()), held_bools.get(slot))
            older = [before] if isinstance(before, Array) and slot not in renewed else []
            older += shares.get(slot, [])
            if older:
                note = (f"after this loop `{slot_name(holder, key)}` is an array from before "
                        "the loop on some runtime paths and a new one on others")
                for a in [arr, *older]:
                    watch(a, note)
            store(holder, key, arr, serial)


def _shared_argument_copies(interp, in_place: dict) -> dict:
    """{id: serial} of the argument copies (not in `in_place` yet) whose
    arrays the body read through the caller's container (`for p in
    self.params` of an optimizer holding the model's list, passed too:
    calls._shared_argument_item reads the copy's items).  The loop must
    keep each the same object, its items the body's arrays, as it keeps a
    container whose items it rebinds, else that read would find the arrays
    of before the loop."""
    return {cid: interp.fresh_ids[cid][1] for cid in interp.shared_argument_copies
            if cid not in in_place and cid in interp.fresh_ids}


@contextlib.contextmanager
def _items_kept(interp, in_place: dict):
    """The items of the `in_place` containers, as they were before an
    attempt (its promotions write placeholders into them)."""
    # (an OrderedDict or defaultdict is a dict too: enumerating it would
    # write its keys back as items 0, 1, ...)
    saved = [(c, list(dict.items(c)) if isinstance(c, dict) else list(enumerate(c)))
             for c in (interp.fresh_ids[cid][0] for cid in in_place)]
    try:
        yield
    finally:
        for container, items in saved:
            for k, v in items:
                put_item(container, k, v)


def _carry_choices(entry, trial: Trial, promote: dict) -> bool:
    """Marks in `promote` the slots the loop must carry as a choice among
    static objects (chosen_values.py): entered holding one object, left by
    the body holding another or a choice (`status = "converged"` under a
    runtime `if`).  True if there are new ones."""
    new = chosen_values.carried_choices(entry, (trial.td, trial.leaves)) - promote.keys()
    promote.update(dict.fromkeys(new, chosen_values.POSITION))
    # (and None meeting a runtime number: `best = None`, then `best = i`)
    optional = {path: aval for path, aval in
                optional_numbers.carried(entry, (trial.td, trial.leaves)).items()
                if path not in promote and path not in new}
    promote.update(optional)
    return bool(new or optional)


def _apply_promotions(frame, promote, in_place) -> list:
    """Gives the promoted slots their carried types; returns the runtime
    Python ints that took a narrower NumPy dtype [(value, aval)]: the While
    checks that they fit (_emit_while_at), once the types have settled."""
    td, leaves = state_leaves(frame.locals, frame.stack)
    out, narrowed = [], []
    for path, v in leaves:
        aval = promote.get(path)
        if aval is None:
            out.append(v)
        elif aval is chosen_values.POSITION:    # (an object: from now on a runtime choice)
            out.append(v if isinstance(v, Array) else chosen_values.promoted(v))
        elif optional_numbers.is_packed(aval):     # (from now on a number or None)
            out.append(v if isinstance(v, Array) and v.aval == aval else
                       optional_numbers.promoted(v, aval))
        elif isinstance(v, Undefined):
            out.append(Array(as_aval(0, aval)))
            out[-1].immutable = None        # a placeholder: its kind comes from the body
        else:
            if python_int_narrowed(v, aval):
                narrowed.append((v, aval))
            out.append(Array(as_aval(v, aval)))
            out[-1].immutable = scalar_kind(v)     # a promoted scalar stays a scalar
            if held_ints.needs_flag([v], aval):     # (a Python number in a NumPy dtype)
                held_ints.hold(out[-1], held_ints.flag_of(v, aval), [v])
    frame.locals, frame.stack = rebuild_state(td, out, like=[(frame.locals, frame.stack)],
                                              in_place=in_place)
    return narrowed


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
    detached: set = field(default_factory=set)    # paths of views the body rebinds
    kind_slots: list = field(default_factory=list)  # slots whose kind is a parameter
    in_place: dict = field(default_factory=dict)    # containers whose items it rebinds
    loose_ends: dict = field(default_factory=dict)  # other slots: Rebound.ends
    loose_shares: dict = field(default_factory=dict)    # ... arrays from before they may be
    permuted: dict = field(default_factory=dict)    # slots rebound to each other's arrays
    loose_fresh: set = field(default_factory=set)   # other slots an iteration leaves a new array in
    entry_narrowed: list = field(default_factory=list)  # _apply_promotions' runtime ints
    counters: dict = field(default_factory=dict)    # slot -> (lo, top): counters.py
    # counter path -> its bounds on each path back to the header (guarded_ranges.py)
    back_edges: dict = field(default_factory=dict)
    int_slots: list = field(default_factory=list)   # slots whose held_int is a parameter
    held_types: dict = field(default_factory=dict)  # ... the Python type each holds there
    bool_slots: list = field(default_factory=list)  # ... and those holding a bool beside it
    body_floor: int = 0     # serial floor of the body's region: its Arrays are at or above it


def _kind_changing_paths(leaves, carried, trial: Trial) -> frozenset:
    """Paths of the carried 0-d slots an iteration may leave with another
    kind than it found (`s = np.zeros(()); while c: s = s + 1` makes a NumPy
    scalar of a 0-d array): after the loop their kind depends on whether and
    how the body ran, so the While carries it as a bool."""
    out = set()
    for i in carried:
        entry = leaves[i][1]
        if entry.aval.shape or i in trial.kept or i >= len(trial.leaves):
            continue
        before, after = scalar_kind(entry), scalar_kind(trial.leaves[i][1])
        if before is not None and after is not None and after is not before:
            out.add(leaves[i][0])
    return frozenset(out)


def _python_int_paths(leaves, carried, trial: Trial) -> frozenset:
    """(path, whether a float) of the carried 0-d slots that hold a Python
    number on some runtime path, before or after an iteration (`best =
    250`, then `best = img[i]` of a uint8 `img` in the body; `t = 1.0`, then
    `t = t * np.float64(0.5)`): the While carries which, as a bool
    (held_ints.py)."""
    out = set()
    for i in carried:
        entry = leaves[i][1]
        if i in trial.kept or i >= len(trial.leaves):
            continue
        values = [entry, trial.leaves[i][1]]
        out |= _held_types_at(leaves[i][0], values, entry.aval)
    return frozenset(out)


def _held_types_at(path, values, aval) -> set:
    """{(path, the Python type a slot holding `values` holds by its bool)},
    with (path, bool) too where it holds a Python bool beside that int or
    float (held_ints.needs_bool_flag): the While carries a second bool."""
    if not held_ints.needs_flag(values, aval):
        return set()
    out = {(path, held_ints.held_python_type(values, aval))}
    return out | {(path, bool)} if held_ints.needs_bool_flag(values, aval) else out


def _entry_python_number_paths(leaves, carried) -> frozenset:
    """_python_int_paths of the carried 0-d slots that enter the loop holding
    a Python number on some runtime path (`s = 0.0` promoted to a float64
    by the trial before, or merged by a runtime `if` before the loop),
    known before the body runs: the body needs their bool from its first
    trial (`t = s * 2.0` is a Python float where `s` is one, even where
    the body never rebinds `s`), and a trial that found it only afterwards
    would cost each loop of a nest one more trial of the loops inside it."""
    out = set()
    for i in carried:
        entry = leaves[i][1]
        out |= _held_types_at(leaves[i][0], [entry], entry.aval)
    return frozenset(out)


def _carried_kind(entry, body_end, i) -> bool | None:
    """Whether a value a While carries is a NumPy scalar after the loop: the
    kind the body gives it (what NumPy has after an iteration), else the
    kind it entered with (None: unknown)."""
    kind = scalar_kind(body_end[i][1]) if i < len(body_end) else None
    if kind is None or kind is scalar_kind(entry):
        return scalar_kind(entry)       # (a RuntimeKind from before the loop stays valid)
    return compile_time_kind(kind)


def _kind_after_loop(carried_kind: Value, end, runs_body: bool):
    """The kind of a 0-d slot whose kind the While carries as a bool (the
    body changes it: `y = y - 0.1 * y * y` of a 0-d array makes a NumPy
    scalar), after the loop.  Where the body surely ran to its end at least
    once (a counted loop of a static trip count, no runtime exit) and its
    end leaves a kind known at compile time, the slot has that kind, as in
    NumPy, whatever it entered with: type(y) is then no runtime question.
    Else the carried bool says (the loop may not have run)."""
    kind = scalar_kind(end)
    if runs_body and kind is not None and not isinstance(kind, RuntimeKind):
        return kind
    return RuntimeKind(carried_kind)


def _runtime_range_header(frame, header) -> bool:
    """`for i in range(n)` with a runtime counter: the range test goes into
    the While's condition and the body needs no guard."""
    instrs = frame.fc.blocks[header].instrs
    return (bool(instrs) and instrs[0].op == "FOR_ITER" and bool(frame.stack)
            and isinstance(frame.stack[-1], RangeIter) and not frame.stack[-1].is_static())


def _runtime_range_test(frame, header) -> bool:
    """A range loop with a runtime bound, whose header tests at run time
    whether another item comes (not itertools.count(), which always has one)."""
    return _runtime_range_header(frame, header) and not is_endless_count(frame.stack[-1])


def _advance(frame):
    it = frame.stack[-1]
    frame.stack[-1] = it.advanced()
    frame.push(it.item())


def _run_body(frame, header, loop_stops, td, leaves, carried, boxes, counted,
              unshared=frozenset(), kind_paths=frozenset(), rebound=None,
              detached=frozenset(), is_private=None, trip_count=None,
              counter_from=None, counting=None, int_paths=frozenset()) -> Trial:
    """One abstract iteration on parameters for the carried slots and boxes
    (and for the kinds of the slots in `kind_paths`).  The slots' Arrays are
    made inside the region, so in-place updates to them are the body's own
    and not journaled as outer effects.  `is_private(entry array)`: whether
    only its variable reaches it (privacy.py).  `trip_count`: a counted
    loop's static number of iterations (slots the body permutes need it)."""
    params = [Value(leaves[i][1].aval) for i in carried]
    box_params = [Value(b.aval) for b in boxes]
    code_param = Value(AVal(np.dtype(np.int32), ()))
    kind_slots = [i for i in carried if leaves[i][0] in kind_paths]
    kind_params = [Value(AVal(np.dtype(bool), ())) for _ in kind_slots]
    int_slots = [i for i in carried if leaves[i][0] in {p for p, _ in int_paths}]
    held_types = {i: held_ints.widest_held_type(t for p, t in int_paths if p == leaves[i][0])
                  for i in int_slots}
    # (a slot found holding a Python bool too, beside its int or float: which paths do)
    bool_slots = [i for i in int_slots if held_types[i] is not bool and
                  (leaves[i][0], bool) in int_paths]
    int_params = [Value(held_ints.FLAG) for _ in int_slots + bool_slots]
    loose_params = rebound.params()
    all_params = (code_param, *params, *box_params, *kind_params, *int_params, *loose_params)
    # The loop's region opens at its latch's jump back: a `try` around the
    # loop covers it, one inside the body ends before it (a `while` body
    # may start with the `try`, so not its header; exceptions.to_handler).
    latch = frame.fc.blocks[max(frame.fc.preds[header])].instrs
    frame.current = latch[-1] if latch else frame.current
    with journaled_region(all_params, frame=frame, loop=True) as rec:
        body_floor = ctx().serial_floor[-1]
        for box, p in zip(boxes, box_params):
            box.assign(p)
        body_leaves = [v for _, v in leaves]
        slot_arrays = _slot_arrays(leaves, carried, params, unshared, detached)
        detached_bases = _detached_bases(leaves, slot_arrays, detached)
        entry_vars = {i: a._var for i, a in slot_arrays.items()}  # (shared: one param)
        for i, p in zip(kind_slots, kind_params):
            slot_arrays[i].immutable = RuntimeKind(p)
        for i, p in zip(int_slots, int_params):
            slot_arrays[i].held_int, slot_arrays[i].held_type = p, held_types[i]
        for i, p in zip(bool_slots, int_params[len(int_slots):]):
            slot_arrays[i].held_bool = p
        _counter_span(leaves, slot_arrays, len(frame.stack),
                      (counter_from, frame.stack[-1].step, frame.stack[-1].stop)
                      if counter_from is not None else None)
        counters.assume(slot_arrays, counting or {})
        for i, arr in slot_arrays.items():
            body_leaves[i] = arr
        fresh_floor = new_serial_floor()
        entry = (frame.locals, frame.stack)
        frame.locals, frame.stack = rebuild_state(td, body_leaves, like=[entry],
                                                  in_place=rebound.in_place)
        loose_befores = rebound.befores()
        loose_entries = rebound.enter(loose_params)
        copies = _note_copies(frame.interp, entry, (frame.locals, frame.stack),
                              ctx().serial_floor[-1])
        body_entry = (dict(frame.locals), list(frame.stack))
        entry_stack = list(frame.stack)
        entered_objects = value_objects.entered(frame.locals)
        growth = stacking.current() if trip_count is not None else None
        if growth is not None:
            growth.enter_body(frame, header)
        with watch_scope() as marks, _fenced(leaves, slot_arrays) as entry_uses, \
                guarded_ranges.back_edges(frame, header, counters.tested_paths(
                    counting or {}, leaves)) as back:
            if counted:
                _advance(frame)
                ex = walk(frame, frame.fc.blocks[header].next, loop_stops)
            else:
                ex = walk(frame, header, loop_stops, entering=header)
            _drop_dead_locals(frame, header, entry=body_entry[0], reached=ex.targets)
            _check_value_objects(frame, header, entered_objects, body_floor)
            if growth is not None:
                growth.write_rows(entry_stack[-1].pos, frame,
                                  state_leaves(frame.locals, frame.stack)[1], fresh_floor,
                                  {id(a): leaves[i][0] for i, a in slot_arrays.items()})
                growth.check_carried(slot_arrays, leaves)
        watched = [leaves[i][1] for i, a in slot_arrays.items() if a.alias_note is not None]
        end_watch_scope(marks, keep=False)     # a trial: _emit_while_at applies the last one's
        _park_exit_stack(frame, entry_stack, header)
        _hold_escaping_arrays(frame, header, body_floor)
        end_vars = state_vars(frame)
        slot_vars = {i: a.var for i, a in slot_arrays.items()}
        writes = [(c, k, loc, serial) for c, k, _, loc, serial in rec["items"].values()]
        written, loose = kept_containers(frame.interp, body_entry,
                                         [(frame.locals, frame.stack, {})], writes, "iteration")
        loose_ends = rebound.ends(loose, rec["items"])
        _check_detached(detached_bases, leaves, frame.fc.loop_locs[header])
        _check_loose_aliases(loose_befores, loose_entries, leaves, slot_arrays,
                             frame.fc.loop_locs[header])
        loose_shares = {slot: _loop_shared(end[3], slot_arrays, leaves, fresh_floor)
                        for slot, end in loose_ends.items()}
        ends = finish_journal(rec["journal"])
        out_td, out_leaves = state_leaves(frame.locals, frame.stack)   # items as the body left them
        # (an object the body binds where the loop carries a choice: its position)
        out_td, out_leaves = chosen_values.lift_like((td, leaves), (out_td, out_leaves))
        out_td, out_leaves = optional_numbers.lift_like((td, leaves), (out_td, out_leaves))
        finish_items(rec["items"])
    # (after finish_items: the holders hold their values from before the
    # loop again, as privacy's scan must see them)
    _check_rebound_after_update(loose_befores, loose_entries, loose_ends, out_leaves,
                                is_private, fresh_floor, frame.fc.loop_locs[header])
    originals = [copies.get(cid, frame.interp.fresh_ids[cid][0]) for cid in written]
    keep_in_place = {id(c): frame.interp.fresh_ids[id(c)][1] for c in originals}
    kept = {i for i, a in slot_arrays.items() if i < len(out_leaves) and out_leaves[i][1] is a}
    views_rebound = {leaves[i][0] for i, a in slot_arrays.items()
                     if a.base is not None and i not in kept} if out_td == td else set()
    holders = collections.Counter(id(a) for a in slot_arrays.values())
    shared = {k for k, n in holders.items() if n > 1}
    permuted = _permuted_slots(slot_arrays, out_leaves, kept, leaves) \
        if out_td == td and trip_count is not None else {}
    for i, a in slot_arrays.items():
        if out_td == td and i not in kept and a.version and id(a) not in shared \
                and i not in permuted \
                and not (is_private is not None and is_private(leaves[i][1])):
            # (slots align only then; shared arrays: _diverged, then _check_unshared;
            # the first iteration's update into a private entry array is unobservable)
            name = leaves[i][0]
            raise UpdatedThenRebound(
                f"`{name}` is updated in place and then rebound inside this loop: on "
                "the first iteration the update goes into the array it named before the loop",
                frame.fc.loop_locs[header],
                # (a copy of a view would keep its updates from the array it views)
                f"`{name}` is a view of another array: update that array where it views it "
                f"(`buf[k] += ...`), or bind `{name}` to its view at the top of the body"
                if leaves[i][1].base is not None else
                f"copy it before the loop (`{name} = {name}.copy()`): the "
                "loop then updates memory of its own, and compiles to one runtime `while`; "
                "or compute the new value out of place")
    if unshared and out_td == td:
        _check_unshared(slot_arrays, leaves, unshared, frame.fc.loop_locs[header])
        _check_unshared_moves(slot_arrays, leaves, out_leaves, unshared,
                              frame.fc.loop_locs[header])
    if out_td == td:
        _check_new_aliases(slot_arrays, out_leaves, leaves, frame.fc.loop_locs[header])
        if is_private is not None:
            _check_private_swaps(slot_arrays, out_leaves, leaves, kept | permuted.keys(),
                                 shared, is_private, frame.fc.loop_locs[header])
    unchanged = {i for i in kept if slot_vars[i] is entry_vars[i]}
    # (a permuted slot's entry array gets another slot's value after the
    # loop: no other name may read it inside)
    _check_entry_uses(entry_uses, leaves, slot_arrays, (kept - unchanged) | permuted.keys(),
                      frame.fc.loop_locs[header])
    fresh = {i for i in slot_arrays if i < len(out_leaves)
             and _is_fresh(out_leaves[i][1], fresh_floor)}
    shares = {i: _loop_shared(out_leaves[i][1], slot_arrays, leaves, fresh_floor)
              for i in slot_arrays if i < len(out_leaves) and i not in kept | fresh}
    return Trial(rec["builder"], all_params, ex, out_leaves, ends, out_td, dict(frame.locals),
                 kept, unchanged, fresh, end_vars, shares, watched, marks,
                 _diverged(slot_arrays, out_leaves, leaves, kept) if out_td == td else set(),
                 views_rebound, kind_slots, keep_in_place, loose_ends, loose_shares, permuted,
                 int_slots=int_slots, held_types=held_types, bool_slots=bool_slots,
                 loose_fresh={slot for slot, end in loose_ends.items()
                              if _is_fresh(end[3], fresh_floor)}, body_floor=body_floor,
                 back_edges=back)


def _check_private_swaps(slot_arrays, out_leaves, leaves, stay, shared, is_private, loc):
    """A name whose private array (`un = u.copy()`) the body updates in
    place and then gives another name's array (`u, un = un, u`, u the
    caller's): the next iteration's update goes into that array, which the
    While does not write back.  (A counted loop's whole permutation of
    names is followed: _permuted_slots.)"""
    body_slot = {id(a): i for i, a in slot_arrays.items()}
    for i, a in slot_arrays.items():
        if i in stay or not a.version or id(a) in shared or i >= len(out_leaves) \
                or not is_private(leaves[i][1]):
            continue
        j = body_slot.get(id(out_leaves[i][1]))
        if j is not None and j != i and not is_private(leaves[j][1]) \
                and id(slot_arrays[j]) not in shared:
            raise UpdatedThenRebound(
                f"this loop updates `{leaves[i][0]}` in place and then gives it the array "
                f"of `{leaves[j][0]}`, and a runtime exit decides how often: which array "
                "each name holds after it, and so which of them the updates reached, is "
                "known only at run time", loc,
                f"copy `{leaves[j][0]}` before the loop (`{leaves[j][0]} = "
                f"{leaves[j][0]}.copy()`), or update out of place")


def _check_new_aliases(slot_arrays, out_leaves, leaves, loc):
    """Names the body leaves naming one array that were two arrays when it
    started (`x = y` at its end; `best = u` under a runtime `if`): the next
    iteration starts with them shared, while its parameters are separate
    values.  Where the body updates the array of one of them in place, that
    update would show through the other name in NumPy and not in the
    compiled loop: refused.  (Names sharing an array when the loop starts
    share one parameter, _slot_arrays; a body that breaks that: _diverged.)"""
    body_slot = {id(a): i for i, a in slot_arrays.items()}

    def held(value):        # the slots whose body Array `value` is or views
        out = []
        while isinstance(value, Array):
            if id(value) in body_slot:
                out.append(body_slot[id(value)])
            value = value.base
        return out

    ends = {i: out_leaves[i][1] for i in slot_arrays if i < len(out_leaves)}
    holding = collections.Counter(k for e in ends.values() for k in set(held(e)))
    entry_holders = collections.Counter(id(a) for a in slot_arrays.values())
    for i, end in ends.items():
        if not isinstance(end, Array):
            continue
        conditional = bool(end.alias_note and end.alias_partners)
        others = [k for k in held(end) if slot_arrays[k] is not slot_arrays[i]]
        if conditional:         # (the arrays a runtime `if` may have made it)
            others += [k for p in end.alias_partners for k in held(p)
                       if slot_arrays[k] is not slot_arrays[i]]
        for k in others:
            if k in held(slot_arrays[i]) or i in held(slot_arrays[k]) or \
                    entry_holders[id(slot_arrays[k])] > 1:
                continue        # (shared from the start: followed, or _check_unshared_moves)
            # k's array is still held (by k, or i's end plus another name), and
            # one of the two arrays is updated in place by the body.
            written = slot_arrays[i].version if not conditional else slot_arrays[k].version
            if written and holding[k] + conditional > 1:
                name, other = leaves[i][0], leaves[k][0]
                updated = other if conditional else name
                what = (f"may name the array of `{other}` (on some runtime paths), which the "
                        f"loop updates in place: from the next iteration on, `{name}` would "
                        "see those updates on those paths only" if conditional else
                        f"names the array of `{other}` (or a view of it), and the loop updates "
                        f"`{name}` in place: from the next iteration on, that update goes into "
                        f"`{other}`'s array too")
                raise SideEffectError(
                    f"after an iteration of this loop `{name}` {what}, which the compiled loop "
                    "cannot follow", loc,
                    f"give `{name}` its own copy (`{name} = {other}.copy()`), or update "
                    f"`{updated}` out of place (`{updated} = {updated} * ...`)")


def _permuted_slots(slot_arrays, out_leaves, kept, leaves) -> dict:
    """{slot: the slot whose entry array it names after one iteration} for
    slots the body rebinds to one another's arrays, as a double buffer's
    `u, v = v, u` does.  Which array each such name holds then follows a
    fixed permutation, so after a static number of iterations it is known
    (_final_arrays), and the arrays themselves, the caller's included, get
    the While's results: no iteration's update is lost.  Only a whole
    permutation of distinct arrays that are not views counts."""
    body_slot = {id(a): i for i, a in slot_arrays.items()}
    moved = {}
    for i, a in slot_arrays.items():
        if i in kept or i >= len(out_leaves):
            continue
        j = body_slot.get(id(out_leaves[i][1]))
        if j is not None and j != i and not slot_arrays[j].immutable:   # (not a number)
            moved[i] = j
    if sorted(moved) != sorted(moved.values()):
        return {}
    arrays = [slot_arrays[i] for i in moved]
    if len({id(a) for a in arrays}) != len(arrays) or any(
            leaves[i][1].base is not None or slot_arrays[i].base is not None for i in moved):
        return {}
    # Another name holding one of these arrays (`head = u` before the loop,
    # or a view of it) would have to follow the permutation too.
    others = [leaves[j][1] for j in slot_arrays if j not in moved]
    if any(_share_memory(leaves[i][1], other) for i in moved for other in others):
        return {}
    return moved


def _final_arrays(permuted: dict, trips: int) -> dict:
    """{slot: the slot whose entry array it names after `trips` iterations
    of the body's permutation}."""
    out = {}
    for i in permuted:
        cycle = [i]
        while permuted[cycle[-1]] != i:
            cycle.append(permuted[cycle[-1]])
        out[i] = cycle[trips % len(cycle)]
    return out


def _check_rebound_after_update(befores, entries, ends, out_leaves, is_private, floor, loc):
    """An attribute (or an item of a list only an object holds) that the
    body updates in place and then rebinds: as for a variable (_run_body),
    NumPy's first update goes into the array the slot named before the loop,
    and each later one into whatever array the previous iteration left there
    (another name's, say), none of which the While's parameter follows.
    Unless nothing can see those updates (_updates_unseen)."""
    for slot, entry in entries.items():
        holder, key, _, end, _ = ends[slot]
        if end is not entry and entry.version and not _updates_unseen(
                slot, befores, ends, out_leaves, is_private, floor):
            name = slot_name(holder, key)
            raise SideEffectError(
                f"`{name}` is updated in place and then rebound inside this loop: on the "
                "first iteration the update goes into the array it named before the loop, "
                "later ones into the array the previous iteration left there", loc,
                f"update it out of place ({name} = {name} * ...), or let it hold only memory "
                "no other name reaches: a copy before the loop (... = x.copy()) and a new "
                f"array each iteration ({name} = np.minimum({name}, m), or {name} = y.copy() "
                f"rather than {name} = y)")


def _updates_unseen(slot, befores, ends, out_leaves, is_private, floor) -> bool:
    """Whether a carried slot's in-place updates reach only arrays no other
    name holds: the one it held before the loop only it reaches (`w =
    W(x.copy())`, privacy.py), and each iteration leaves it a new array of
    its own (`w.x = np.minimum(w.x, 10)`), which no variable nor other slot
    holds, nor views."""
    end = ends[slot][3]
    if is_private is None or not is_private(befores[slot][1]) or not _is_fresh(end, floor):
        return False
    others = [v for _, v in out_leaves]
    others += [e[3] for other, e in ends.items() if other != slot]
    return not any(_share_memory(end, v) for v in others)


def _check_loose_aliases(befores, entries, leaves, slot_arrays, loc):
    """A carried attribute (or list item an object holds) that names the same
    memory as another carried name when the loop starts: the While carries
    them as two values, so an in-place update inside the loop through either
    name would not reach the other, as it does in NumPy (fuzz seed 111740)."""
    others = [(leaves[i][0], leaves[i][1], a) for i, a in slot_arrays.items()]
    others += [(name, before, entries[slot]) for slot, (name, before) in befores.items()]
    for slot, (name, before) in befores.items():
        for other, other_before, other_body in others:
            if other_body is entries[slot] or not _share_memory(before, other_before):
                continue
            if entries[slot].version or other_body.version:
                raise SideEffectError(
                    f"`{name}` and `{other}` name the same array when this loop starts, and "
                    "the loop updates it in place through one of them: the compiled loop "
                    "carries them as two arrays", loc,
                    f"give one of them its own copy before the loop (... = {other}.copy()), "
                    "or update out of place")


def _share_memory(a, b) -> bool:
    """Whether two values are, or view, one array (compile-time aliasing)."""
    def roots(x):
        out = set()
        while isinstance(x, Array):
            out.add(id(x))
            x = x.base
        return out
    return bool(roots(a) & roots(b))


@contextlib.contextmanager
def _fenced(leaves, slot_arrays):
    """While the body runs on parameters for the carried variables, logs every
    use of the arrays those variables held at the loop's entry: such a use
    reaches one by another name (an attribute, a global, a list an object
    holds), which the body's parameter does not follow."""
    log, fenced = [], []
    for i, body_array in slot_arrays.items():
        entry = leaves[i][1]
        if entry is not body_array and entry.fence is None:
            entry.fence = log
            fenced.append(entry)
    try:
        yield log
    finally:
        for entry in fenced:
            entry.fence = None


def _check_entry_uses(uses, leaves, slot_arrays, updated, loc):
    """Refuses a body that reaches a carried variable's entry array by
    another name where the two disagree: it updates that array in place by
    the other name, or reads it while the variable updates it in place
    (`updated`: slots whose array the body changes in place; a variable the
    body rebinds leaves the entry array as it was, which the other name
    rightly reads)."""
    slots_of = {}
    for i in slot_arrays:
        slots_of.setdefault(id(leaves[i][1]), []).append(i)
    for entry, how in uses:
        slots = slots_of.get(id(entry), [])
        if how == "read" and not any(i in updated for i in slots):
            continue
        name = leaves[slots[0]][0] if slots else "a variable"
        _refuse_runtime_slice_view(leaves, entry, name, loc)
        raise SideEffectError(
            f"this loop changes `{name}`, whose array it also reaches by another name (an "
            "attribute, a global, or a list or dict an object holds): the compiled loop "
            "follows the variable only", loc,
            "use one name for that array inside the loop (e.g. update the attribute "
            "itself), or give the variable its own copy before the loop")

def _refuse_runtime_slice_view(leaves, entry, name: str, loc) -> None:
    """The body reaches `entry` through a slice with runtime bounds made
    before the loop (`b = A[i:, :j]`, then `b += 1` inside): such a view is
    no array the loop can carry (its length is known only at run time), so
    it keeps the entry array, which the loop's own `A` does not follow."""
    from ..ops.masked import Selection
    for path, leaf in leaves:
        if isinstance(leaf, Selection) and leaf.view is not None and \
                _share_memory(leaf.data, entry):
            raise SideEffectError(
                f"`{path}` is a slice of `{name}` with runtime bounds made before this loop, "
                f"and the loop changes `{name}` through it or beside it: the compiled loop "
                "carries arrays, and such a slice is no array (its length is known only at "
                "run time)", loc,
                f"slice inside the loop (`{path} = {name}[...]` at the top of its body), or "
                f"update `{name}[...]` there directly")


def _note_copies(interp, entry, body, floor) -> dict:
    """{id(copy): original} for the lists and dicts the body starts with as
    copies of the entry's (their items are the loop's parameters).  A copy
    counts as made before the body, so that rebinding its items is
    journaled: the next attempt keeps the original instead (in_place)."""
    at_entry = {}           # path -> the fresh container the entry holds there
    for container, paths in container_paths(*entry).values():
        if id(container) in interp.fresh_ids:
            at_entry.update(dict.fromkeys(paths, container))
    copies = {}
    for cid, (container, paths) in container_paths(*body).items():
        original = next((at_entry[p] for p in sorted(paths) if p in at_entry), None)
        if original is not None and original is not container:
            interp.fresh_ids[cid] = (container, floor - 1)
            copies[cid] = original
            interp.ctx.merged_containers.pop(cid, None)     # the body's copy, not a merge
    return copies


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


def _counter_span(leaves, slot_arrays, depth: int, counting=None):
    """A counted loop's counter in the body keeps its range (values.Span,
    set by _try_counted): the iterator on top of the stack holds it.  Only
    that slot: another one holding it at entry may hold anything later.
    A runtime range's (`counting`: its static start, step and stop) counts
    on from its start, so it lies on that side of it (`2 ** k` is an int),
    and, where its stop is static (a static range the loop leaves on a
    runtime exit), no further than one step past the last item."""
    path = f"<stack {depth - 1}>.pos"
    for i, arr in slot_arrays.items():
        entry = leaves[i][1]
        if leaves[i][0] != path or not isinstance(entry, Array):
            continue
        if entry.span is not None:
            lo, hi = entry.span.bounds()
        elif counting is not None:
            (start, step, stop), info = counting, np.iinfo(np.int64)
            lo, hi = (start, int(info.max)) if step > 0 else (int(info.min), start)
            if type(stop) is int:
                lo, hi = (lo, max(start, stop - 1 + step)) if step > 0 else \
                    (min(start, stop + 1 + step), hi)
        else:
            continue
        arr.span = Span(arr._var, 0, lo, hi)


def _slot_arrays(leaves, carried, params, unshared, detached=frozenset()) -> dict:
    """{slot: its Array in the body}, on the slots' parameters.  Aliasing is
    kept as in NumPy: slots naming the same array share one body Array, and
    a view's body Array is a view of its base's body Array (or of the outer
    base itself, which becomes a box once the body writes through to it), so
    an in-place update through one name is seen through the others.

    That holds for every iteration only if the body keeps the aliasing (both
    names still name one array at its end).  For arrays in `unshared` it does
    not: their names get separate body Arrays (views: of the outer base),
    which is exact as long as none of them is updated in place (checked by
    _check_unshared).  A view the body rebinds (a path in `detached`) is a
    value of its own: a view would read its base again on the next
    iteration, not what the previous one left (fuzz seeds 141550, 143835);
    exact unless the body updates the base in place (_check_detached)."""
    inside: dict = {}               # id(entry Array) -> body Array
    out = {}
    order = sorted(zip(carried, params), key=lambda ip: leaves[ip[0]][1].serial)
    for i, p in order:              # bases before their views (a base is older)
        entry = leaves[i][1]
        if leaves[i][0] in detached:
            out[i] = Array(p)
            out[i].immutable, out[i].alias_note = entry.immutable, entry.alias_note
            continue
        body = inside.get(id(entry)) if id(entry) not in unshared else None
        if body is None:
            if entry.base is not None:
                body = Array(p, base=_body_base(entry.base, inside, unshared), index=entry.index)
            else:
                body = Array(p)
            body.immutable, body.alias_note = entry.immutable, entry.alias_note
            inside.setdefault(id(entry), body)
        out[i] = body
    return out


def _body_base(base, inside: dict, unshared) -> Array:
    """The body's Array for `base`, the array a view's entry views: the
    body Array of the slot holding it; for a view of a view whose middle
    views no slot holds (`A[1:][0]`, `A.T[2]`), those views made again on
    the body Array of the slot holding the array below them, so that a
    write through the view reaches the loop's own `A` (the entry's middle
    views lead to the entry array, which the loop does not follow); else
    the outer base itself."""
    middle = []
    while base is not None and id(base) not in inside and id(base) not in unshared:
        middle.append(base)
        base = base.base
    if base is None or id(base) in unshared:
        return middle[0] if middle else base
    body = inside[id(base)]
    for view in reversed(middle):
        again = Array(indexing.basic_index_value(body, view.index), base=body, index=view.index)
        again.immutable, again.frozen = view.immutable, view.frozen
        body = again
    return body


def _nearest_slot(array, is_slot):
    """The first of `array`'s bases (a view of a view's, through its middle
    views) that `is_slot` accepts, or None."""
    while array is not None and not is_slot(array):
        array = array.base
    return array


def _detached_bases(leaves, slot_arrays, detached) -> dict:
    """{slot: (the body Array of the array its entry views, that Array's
    version now)} for the detached views."""
    out = {}
    entries = {id(leaves[j][1]): j for j in slot_arrays}
    for i in slot_arrays:
        base = leaves[i][1].base
        if leaves[i][0] in detached and base is not None:
            held = _nearest_slot(base, lambda a: id(a) in entries)
            body = slot_arrays[entries[id(held)]] if held is not None else base
            out[i] = (body, body.version)
    return out


def _check_detached(bases, leaves, loc):
    """A view the body rebinds, whose base the body also updates in place:
    NumPy's first iteration sees the update through the view, later ones
    do not, which one While cannot say."""
    for i, (base, version) in bases.items():
        if base.version != version:
            name = leaves[i][0]
            raise SideEffectError(
                f"`{name}` is a view of another array when this loop starts; the loop "
                f"rebinds `{name}` and updates that array in place: the update reaches "
                f"`{name}` on the first iteration only", loc,
                f"copy it before the loop ({name} = {name}.copy())")


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
        base = _nearest_slot(slot_arrays[members[0]].base, lambda a: id(a) in slot_of)
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


def _check_unshared_moves(slot_arrays, leaves, out_leaves, unshared, loc):
    """A name sharing its array with another when the loop starts (`al = a`)
    whose array the body hands to a third name (`a, b = b, a`), while it
    updates arrays in place: a later iteration may write into that array
    through the third name, which the other's separate value would not
    follow (a double buffer with an alias)."""
    if not any(a.version for a in slot_arrays.values()):
        return
    for i, a in slot_arrays.items():
        entry = leaves[i][1]
        if id(entry) not in unshared and not (entry.base is not None
                                              and id(entry.base) in unshared):
            continue
        if any(j != i and j < len(out_leaves) and out_leaves[j][1] is a for j in slot_arrays):
            raise SideEffectError(
                f"`{leaves[i][0]}` shares its array with another name when this loop starts, "
                "and the loop passes it on to another variable while it updates arrays in "
                "place: later updates through that variable would reach the other name",
                loc, f"copy it before the loop ({leaves[i][0]} = {leaves[i][0]}.copy())")


def _check_value_objects(frame, header, entered, floor) -> None:
    """Refuses (StaticChanged: the loop is unrolled, as before) a trial in
    which an object the loop carries as a value is one no copy could stand
    for (value_objects.unsafe_change)."""
    why = value_objects.unsafe_change(entered, frame.locals,
                                      state_leaves(frame.locals, frame.stack)[1],
                                      frame.interp, floor)
    if why is not None:
        raise StaticChanged(f"this runtime loop {why}", frame.fc.loop_locs[header],
                            "only arrays and numbers, and objects made anew each iteration "
                            "that no other name holds, can change inside a loop on runtime "
                            "values")


def _is_fresh(v, floor) -> bool:
    """A new array the body made, certainly not another name's array (nor a
    view of one): after the loop the slot's array is a new one."""
    return (isinstance(v, Array) and v.serial >= floor and v.base is None
            and v.alias_note is None)


# Named per loop (header block): a loop inside the body parks and unparks
# its own slots only, not those its enclosing loop parked (fuzz seed 135324).
EXIT_STACK = "<exit stack {} of loop {}>"


def _park_exit_stack(frame, entry_stack, header):
    """Makes the body's end state line up with the header's stack.  Slots
    deeper than the header's belong to exits only (e.g. an inner loop's
    iterator on the way to a `return` from that inner loop): they move into
    named locals, carried like variables first bound in the loop, and go back
    onto the stack after the While (_unpark_exit_stack).  A stack shorter
    than the header's (every path returns) is padded with dead slots."""
    depth = len(entry_stack)
    for i in range(depth, len(frame.stack)):
        frame.locals[EXIT_STACK.format(i, header)] = frame.stack[i]
    del frame.stack[depth:]
    for i in range(len(frame.stack), depth):
        frame.stack.append(Undefined(f"<stack {i}>"))
        shape_undefined([frame.stack, entry_stack], i)


def _unpark_exit_stack(frame, header):
    i = len(frame.stack)
    while EXIT_STACK.format(i, header) in frame.locals:
        frame.stack.append(frame.locals.pop(EXIT_STACK.format(i, header)))
        i += 1
    k = 0
    while (name := (HELD_ARRAY % header).format(k)) in frame.locals:
        # (the objects hold them now, as views of the While's results:
        # _forward_body_arrays)
        del frame.locals[name]
        frame.locals.pop(bound_flag(name), None)
        frame.bound_flags.discard(name)
        k += 1


# Arrays objects made in the body hold (escaping.py), carried as locals.
HELD_ARRAY = "<array {} held by an object of loop %s>"


def _hold_escaping_arrays(frame, header, body_floor: int):
    """An object the body makes may leave the loop holding arrays the body
    made that no carried variable holds (escaping.py): each becomes a
    local of its own, carried like a variable first bound in the loop, so
    that _forward_body_arrays points the object's array at the While's
    result; _unpark_exit_stack drops those locals again."""
    leaves = state_leaves(frame.locals, frame.stack)[1]
    arrays = escaping.held_arrays(frame.interp, leaves, body_floor)
    escaping.hold(frame.locals, arrays, HELD_ARRAY % header)


def _add_loop_defined(frame, trial, header, runs_once: bool) -> bool:
    """Variables bound by the body but not before the loop are added to the
    entry state as Undefined (zeros once promoted).  True if any were added.
    Unless the loop surely runs one whole iteration (`runs_once`: a static
    trip count, and no runtime `break` or `return`), whether each is bound
    after it is a flag the While carries (interpreter.Frame.bound_flags)."""
    new = [n for n in trial.locals if n not in frame.locals]
    for n in new:
        frame.locals[n] = Undefined(n)
        shape_undefined([frame.locals, trial.locals], n)
        if not n.endswith(BOUND_SUFFIX) and (
                not runs_once or any(t != header for t in trial.exit.targets)):
            frame.bound_flags.add(n)
            frame.locals[bound_flag(n)] = False
    return bool(new)


def _check_loop_structure(entry, trial, loc):
    """entry: the state's (treedef, leaves) when an iteration starts."""
    if trial.td == entry[0]:
        return
    differs = structure_difference(entry, (trial.td, trial.leaves))
    what = ("a variable (e.g. a tuple's length, or a list it appends to)" if differs is None
            else f"{differs[0]}: {differs[1]} before it, {differs[2]} after it")
    raise MergeError(f"an iteration of this loop changes the structure of {what}", loc,
                     "keep the same structure on every iteration; use arrays for data "
                     "that grows")


def _widen(leaves, trial: Trial, promote, boxes, loc):
    promote = dict(promote)
    for (path, before), (_, after) in zip(leaves, trial.leaves):
        if isinstance(after, Undefined) and not isinstance(before, Undefined) \
                and not path.startswith("<"):
            # (`del y` on a path that goes on looping: whether `y` is bound
            # after an iteration is known only at run time)
            raise MergeError(f"this loop deletes `{path}` on some runtime paths and not on "
                             "others: whether it is bound after an iteration is known only "
                             "at run time", loc,
                             f"rebind `{path}` instead of deleting it (to a value of the "
                             "same kind, with a flag saying whether it is valid)")
        if isinstance(before, Array):
            if isinstance(after, Undefined):
                continue
            if isinstance(after, masked.Selection):
                # (`acc = acc + x[i:j]`: the line that made it is the one to change)
                raise masked.refusal(f"carrying `{path}` into the loop's next iteration",
                                     after).with_loc(after.made_at or loc)
            a_aval = leaf_aval(after)
            if a_aval is None:
                raise MergeError(f"this loop turns `{path}` from an array into "
                                 f"{describe_static(after)}", loc)
            u = _unify_iterations(path, [before.aval, a_aval], (before, after),
                                  first=path not in promote)
            if u != before.aval:
                promote[path] = u
        elif not (after is before or static_equal(before, after)):
            if isinstance(after, Undefined):
                continue
            if isinstance(before, Undefined) and leaf_aval(after) is None:
                # First bound in the body to a string, function... (the key of an
                # inner `for k in params`, a `with`'s exit on the stack of a
                # `break`): not carried; after the loop it holds what the body
                # leaves there (_emit_while_at).
                continue
            avals = [leaf_aval(v) for v in (before, after) if not isinstance(v, Undefined)]
            if any(a is None for a in avals):
                raise StaticChanged(
                    f"this runtime loop changes the static value `{path}` "
                    f"({describe_static(before)} -> {describe_static(after)})", loc,
                    _static_change_hint(path, before, after))
            promote[path] = _unify_iterations(path, avals, (before, after),
                                              first=path not in promote)
    new_boxes = list(boxes) + [b for b in trial.ends if all(b is not x for x in boxes)]
    return promote, new_boxes


def _emit_while(frame, header, td, leaves, carried, boxes, trial: Trial, note, loc,
                counted, trip_count=None, rebound=None, resume=None) -> Exit:
    with builder.at(loc):
        return _emit_while_at(frame, header, td, leaves, carried, boxes, trial, note, loc,
                              counted, trip_count, rebound, resume)


def _emit_while_at(frame, header, td, leaves, carried, boxes, trial: Trial, note, loc,
                   counted, trip_count=None, rebound=None, resume=None) -> Exit:
    targets = trial.exit.targets
    if resume is not None and not (trial.exit.static and targets == (header,)):
        raise LeavesEarly("the loop body leaves the loop early", loc)   # (unrolled instead)
    shift = 0
    if header not in targets:       # the body always leaves: it runs at most once
        targets, shift = (header,) + targets, 1
    # Body results: exit code, carried slots, boxes (all with their entry types).
    with in_open_region(trial.builder):
        code = (as_aval(targets.index(trial.exit.targets[0]), AVal(np.dtype(np.int32), ()))
                if trial.exit.static else
                emit("add", trial.exit.code, np.int32(shift)).var if shift else
                trial.exit.code.var)
        results = [code]
        for i in carried:
            end = trial.leaves[i][1]
            results.append(as_aval(trial.end_vars.get(id(end), end), leaves[i][1].aval))
        for box in boxes:
            results.append(as_aval(trial.ends.get(box, box.var), box.aval))
        results += [kind_value(trial.leaves[i][1]) for i in trial.kind_slots]
        results += [held_ints.flag_of(trial.leaves[i][1], leaves[i][1].aval)
                    for i in trial.int_slots]
        results += [held_ints.bool_flag_of(trial.leaves[i][1]) for i in trial.bool_slots]
        results += rebound.results(trial.loose_ends)
    body = close_region(trial.builder, results)
    range_slots = _range_slots(leaves, carried, frame.stack) if counted else None
    cond = _cond_region(trial.params, targets.index(header), range_slots,
                        _error_code_in_loop(trial.params, carried, boxes))
    for value, aval in trial.entry_narrowed:     # (before the error code enters the While)
        require_python_int_fits(value, aval)
    init = [as_aval(targets.index(header), AVal(np.dtype(np.int32), ()))]
    init += [leaves[i][1].var for i in carried] + [b.var for b in boxes]
    init += [kind_value(leaves[i][1]) for i in trial.kind_slots]
    init += [held_ints.flag_of(leaves[i][1], leaves[i][1].aval) for i in trial.int_slots]
    init += [held_ints.bool_flag_of(leaves[i][1]) for i in trial.bool_slots]
    init += rebound.inits()
    # A counted loop whose body always goes back to the header runs exactly
    # `trip_count` times: lower/ makes it a scan, which reverse-mode AD accepts.
    every_trip = trial.exit.static and targets == (header,)
    attrs = {"trip_count": trip_count} if trip_count is not None and every_trip else {}
    if trip_count is not None and not every_trip and ctx().grad_depth:
        # A While that a runtime exit may leave early has no reverse mode:
        # under tpucc.grad it is a scan of `trip_count` steps, each running
        # the body only while the loop goes on (lower._lower_while).
        attrs = {"trip_count": trip_count, "guarded": True}
    if trial.permuted and not every_trip:
        raise UpdatedThenRebound(
            "this loop updates arrays in place and swaps their names, and a runtime exit "
            "decides how often: which array each name holds after it is known only at run "
            "time", loc, "copy the arrays before the loop (`u, v = u.copy(), v.copy()`), or "
            "update out of place")
    with builder.at(loc):
        outs = emit_op("while", tuple(init), attrs, [v.aval for v in init],
                       regions=(cond, body), note=note)
    if ctx().grad_depth and not attrs:      # refused (infer.ad): say which calls led here
        ctx().runtime_loop_callers[id(outs[0])] = builder.calling_lines(ctx())
    new_leaves = [v for _, v in leaves]
    for i, ((_, before), (_, after)) in enumerate(zip(leaves, trial.leaves)):
        if isinstance(before, Undefined) and leaf_aval(after) is None and not isinstance(
                after, Undefined):
            # a string, function... first bound in the body (see _widen): what
            # every iteration leaves there (undefined if the loop does not run)
            new_leaves[i] = after
    escaped = [i for i, v in enumerate(new_leaves) if v is not leaves[i][1]]
    kinds = dict(zip(trial.kind_slots, outs[1 + len(carried) + len(boxes):]))
    flags_at = 1 + len(carried) + len(boxes) + len(kinds)
    held = dict(zip(trial.int_slots, outs[flags_at:]))
    held_bools = dict(zip(trial.bool_slots, outs[flags_at + len(trial.int_slots):]))
    ran = _ran(range_slots, init) if counted and not trip_count else None
    final = _final_arrays(trial.permuted, trip_count) if "trip_count" in attrs else {}
    runs_body = bool(attrs.get("trip_count")) and not attrs.get("guarded")
    for i, out in zip(carried, outs[1:]):
        if i in trial.unchanged:
            continue            # loop-invariant: the array keeps its value and identity
        if i in trial.kept:     # updated in place only: the same array object, as in NumPy
            new_leaves[i].assign(out)
        elif i in final:        # a double buffer: the array it names now holds its result
            new_leaves[i] = leaves[final[i]][1]
            new_leaves[i].assign(out)
        else:
            new_leaves[i] = Array(out)
            new_leaves[i].immutable = (_kind_after_loop(kinds[i], trial.leaves[i][1], runs_body)
                                       if i in kinds else
                                       _carried_kind(leaves[i][1], trial.leaves, i))
            new_leaves[i].held_int = held.get(i)
            new_leaves[i].held_type = trial.held_types.get(i)
            new_leaves[i].held_bool = held_bools.get(i)
            counters.after_loop(new_leaves[i], out, trial.counters.get(i))
            _narrow_to_iterations(new_leaves[i], out, leaves[i][1], trial.leaves[i][1], trial)
            if ran is not None and _unbound_before(leaves[i][1]):
                new_leaves[i].bound_if = (ran, leaves[i][0])
            end = trial.leaves[i][1]
            if isinstance(end, Array) and end.frozen == CHOSEN:
                new_leaves[i].frozen = CHOSEN   # (an item a list loop picked: list_loops)
                picked_copies.carry(end, new_leaves[i])     # (and a copy of the same items)
            if i not in trial.fresh or (counted and not trip_count):
                alias = _after_loop_note(leaves[i], any(t != header for t in targets))
                new_leaves[i].alias_note = alias
                for a in [leaves[i][1], *trial.shares.get(i, ())]:
                    watch(a, alias)
    if escaped:
        _forward_body_arrays(carried, trial, new_leaves)
    for a, alias in trial.marks:
        watch(a, alias)
    for a in trial.watched:
        watch(a, "a runtime `if` in the loop body makes another name this array (or a view "
                  "of it) on some paths only")
    for box, out in zip(boxes, outs[1 + len(carried):1 + len(carried) + len(boxes)]):
        box.assign(out)
    rebound.leave(outs[len(outs) - rebound.size():], trial.loose_shares,
                  trial.loose_fresh if counted and trip_count else set(),
                  trial.loose_ends if runs_body else None)
    frame.locals, frame.stack = rebuild_state(td, new_leaves, like=[(frame.locals, frame.stack)],
                                              in_place=rebound.in_place)
    _carry_picked_containers(trial.locals, frame.locals)
    depths = dict(trial.exit.depths)
    if resume is not None:      # the loop goes on, unrolled (_try_counted_but_last)
        _unpark_exit_stack(frame, header)
        frame.stack[-1] = resume
        return Exit((header,), None, depths)
    if counted:     # leaving with the header's code means the range ran out
        done = frame.fc.blocks[header].instrs[0].arg
        depths[done] = len(frame.stack) - 1
        after = [done if t == header else t for t in targets]
    else:
        after = [t for t in targets if t != header]
        if not after:
            raise LimitError(
                "this loop never ends: no iteration leaves it (its condition stays true, and "
                "no `break` or `return` runs)", loc,
                "make the loop's condition change (`i += 1`), or leave it with `break`; a "
                "`raise` on runtime values inside a loop is a check made when the call "
                "returns, which does not end the loop")
    _unpark_exit_stack(frame, header)
    rest = tuple(dict.fromkeys(after))
    if len(rest) == 1:
        return Exit(rest, None, depths)
    with builder.at(loc):
        table = np.array([rest.index(done if t == header else t) if counted or t != header
                          else 0 for t in targets], np.int32)
        code = emit("getitem", table, Array(outs[0]), key=("array",))
    return Exit(rest, code, depths)


def _forward_body_arrays(carried, trial: Trial, new_leaves):
    """A static value first bound in the body leaves the loop as the last
    iteration made it: an object made there (`c = Ctx(log)`), or a `with`'s
    __exit__ on the stack of a runtime `break` or `return`, whose code runs
    after the While.  It holds the body's Arrays of the carried variables
    (`c.log` is the body's `log`, or a local of _hold_escaping_arrays),
    whose Values are defined only inside the body: each becomes a whole
    view of its variable's Array after the loop (escaping.forward)."""
    for i in carried:
        end, after = trial.leaves[i][1], new_leaves[i]
        if isinstance(end, Array) and isinstance(after, Array) \
                and end.serial >= trial.body_floor:
            escaping.forward(end, after)


def _after_loop_note(leaf, leaves_early: bool) -> str:
    """Why the array a carried variable holds after a While may not be
    updated in place.  A variable the body binds first, in a loop a runtime
    `break` or `return` leaves: the statements from that exit on run after
    the While (they are outside the loop's cycle), where the variable holds
    the While's copy of its last value, not the array it viewed (the row
    of `for row in x`)."""
    name, entry = leaf
    if leaves_early and _unbound_before(entry):
        return AliasNote(
            f"`{name}` is bound inside this loop, which a runtime `break` or `return` "
            "leaves: the statements before that exit run after the loop here, where "
            f"`{name}` is a copy of its last value, not the array it views",
            "update the array it comes from (`x[i] = ...` with `for i in range(len(x))`), "
            "or record the position in the loop and update after it (`x[k] = ...`)")
    return (f"after this loop `{name}` is the array it named before the loop (or another "
            "name's array) on some runtime paths and a new one on others")


def _narrow_to_iterations(arr: Array, out, entry, end, trial: Trial) -> None:
    """A 0-d int the While leaves lies where its entry value (no iteration)
    or an iteration's end value lies: `arr` gets that range where it is
    narrower than what it has (`for b in range(n): if fits(b): return b`
    leaves b in the counter's range, 0 to n - 1).  The end value's Span
    holds for every iteration: the trial derived it from the guesses the
    fixpoint kept (counters.py) and the counter's range.  An entry that is
    a placeholder is left out: bound flags guard its reads."""
    if not isinstance(end, Array) or end.span is None or end.shape or \
            trial.end_vars.get(id(end), end.var) is not end.var:
        return
    lo, hi = end.span.bounds()
    if not _unbound_before(entry):
        if not isinstance(entry, Array) or entry.span is None:
            return
        lo, hi = min(lo, entry.span.bounds()[0]), max(hi, entry.span.bounds()[1])
    if arr.span is None or hi - lo < arr.span.bounds()[1] - arr.span.bounds()[0]:
        arr.span = ranged_span(out, end.aval.dtype, (lo, hi)) or arr.span


def _unbound_before(entry) -> bool:
    """Whether a carried slot's entry value is the placeholder of a variable
    the body binds first (_add_loop_defined, _apply_promotions)."""
    return isinstance(entry, Undefined) or isinstance(entry, Array) and entry.immutable is None


def _ran(range_slots, init) -> Array:
    """Whether a loop over a runtime range ran at all: its first item was
    there (`init`: the While's initial values, the carried slots after
    the exit code)."""
    pos, stop = (Array(init[1 + s]) if isinstance(s, int) else s[0] for s in range_slots[:2])
    return emit("less" if range_slots[2] > 0 else "greater", pos, stop)


def _range_slots(leaves, carried, stack):
    """(pos, stop, step) of the range iterator on top of the stack: pos and
    stop each a carried-slot number (int) or a static value wrapped in a
    1-tuple, the step a static int."""
    prefix = f"<stack {len(stack) - 1}>"
    found = {}
    for i, (path, v) in enumerate(leaves):
        if path in (prefix + ".pos", prefix + ".stop"):
            found[path.rsplit(".", 1)[1]] = carried.index(i) if i in carried else (v,)
    return found["pos"], found["stop"], stack[-1].step


def _error_code_in_loop(body_params, carried, boxes):
    """The runtime checks' error code (checks.py) as the loop's condition
    sees it: a slot of the body's parameters when the body may fail a check
    (its index), the code's value before the loop when an earlier check may
    have failed (an Array), else None (no check yet)."""
    c = ctx()
    for j, box in enumerate(boxes):
        if box is c.error_code:
            return 1 + len(carried) + j
    return c.error_code if c.checks else None


def _cond_region(body_params, header_index, range_slots=None, error_code=None):
    """Keep looping while the body's exit code says 'back to the header'
    (and, for a counted loop, while the range has items left), and no
    runtime check has failed: the call raises that check's error, and the
    values after it are not NumPy's (an index past the end read a clamped
    one), so a loop waiting on them could run forever."""
    params = tuple(Value(p.aval) for p in body_params)
    with builder.new_region(params) as rb:
        pred = emit("equal", Array(params[0]), np.int32(header_index))
        if range_slots is not None:
            pos, stop = (Array(params[1 + s]) if isinstance(s, int) else s[0]
                         for s in range_slots[:2])
            more = emit("less" if range_slots[2] > 0 else "greater", pos, stop)
            pred = emit("logical_and", pred, more)
        if error_code is not None:
            code = Array(params[error_code]) if isinstance(error_code, int) else error_code
            pred = emit("logical_and", pred, emit("equal", code, np.int32(0)))
    return Region(rb.params, rb.ops, (pred.var,))
