"""The sign of a runtime loop's counters: ints that only count up.

A Python int that a `while` loop changes becomes a runtime value, and with
it everything known of it is lost: `2 ** k` of a runtime `k` is an int or a
float depending on its sign (elementwise._python_int_power_base), so it is
refused unless k is known never to be negative.  A counter that starts at a
static `lo` and that every iteration leaves at `k + c` (a static c >= 0) or
at a static value from `lo` up, or at one of those chosen by a runtime `if`
or an inner loop, is never below `lo`: `k = 0; while ...: k += 1`, then
`2 ** k` (Romberg's `n = 2 ** (k - 1)`) is an int, as eagerly.

This is an inductive guess, checked: the loop's fixpoint (loops._settle_while)
gives each candidate slot's parameter the range [lo, top] (values.Span) for
its trial of the body, and drops the guess for the slots whose end value
does not keep it, tracing the body again without it.  `top` leaves room for
the steps: a runtime Python int is an int64, whose arithmetic is checked
not to pass 2**63 (ops/python_ints.py) unless its range shows it cannot,
and a counter counting by at most MAX_STEP an iteration reaches that
after 2**53 iterations, years of run time: its steps need no check.
"""
from __future__ import annotations

import numpy as np

from .values import Array, Span, int_bounds, known_integer

MAX_STEP = 1024


def guesses(leaves, carried, skip: str | None, refuted: set, caps=None, ranges=None) -> dict:
    """{slot: (lo, top)} for the carried 0-d integer slots whose value at
    the loop's entry is at least a static lo (not the dtype's minimum),
    except the path `skip` (a range's counter: loops._counter_span) and the
    paths `refuted` by an earlier trial.  A slot whose entry value lies in
    a static range [lo, hi] (an outer loop's counter) is first guessed to
    stay in it, `(lo, hi, KEPT)` (refuted: `(path, KEPT)`): the inner loop
    leaves it as it is, so `p[i:i + 3]` of the outer counter inside the
    inner loop is still a window of static length.  A counter with a cap in
    `caps` ({path: hi}: found by capped_by_tests) is guessed to stay in [lo,
    hi] at the top of the body, `(lo, hi, CAPPED, top)` (refuted: `(path,
    CAPPED)`).  A slot in `ranges` (a choice's position: {path: (lo, hi,
    times widened), or None before a trial widened it}) is guessed to stay
    in its entry value's range and that one."""
    out = {}
    for i in carried:
        path, entry = leaves[i]
        if path == skip or path in refuted or entry.aval.shape != () or \
                entry.dtype.kind not in "iu":
            continue
        bounds = entry.span.bounds() if isinstance(entry, Array) and entry.span else None
        if path in (ranges or {}):
            bounds = known_bounds(entry)
            if bounds is not None and ranges[path] is not None:
                bounds = _union(bounds, ranges[path][:2])
        if bounds is not None and (path, KEPT) not in refuted:
            out[i] = (*bounds, KEPT)
            continue
        lo = _floor(entry)
        info = np.iinfo(entry.dtype)
        if lo is not None and info.min < lo <= info.max - MAX_STEP:
            out[i] = (lo, int(info.max) - MAX_STEP)
            cap = (caps or {}).get(path)
            if cap is not None and (path, CAPPED) not in refuted:
                out[i] = (lo, cap, CAPPED, int(info.max) - MAX_STEP)
    return out


KEPT = "kept"       # a guess that the slot stays in its entry range (guesses)
# A guess that the slot stays at most a cap at the top of the body: every
# path back to the loop's header passed a test that keeps it there
# (`while i < T and not done.all():`, guarded_ranges.py).
CAPPED = "capped"


def widened(wrong: set, counters: dict, leaves, ends, ranges: dict, expand) -> set:
    """`wrong` (refuted's) without the KEPT guesses of the slots in `ranges`
    that an iteration left at a known range: each such slot's range
    widened to hold it (and `expand`ed), for the next trial, at most
    MOST_WIDENINGS times.  For the position of a choice among static
    objects (chosen_values: `stage = stage.next()`), which takes positions
    of objects in the table of choices only, so that its range settles
    once it holds those the body binds: `_held` then knows which objects
    the choice may hold (not the strings its `.name` made).  A choice that
    takes new objects at each iteration (`tag = tag + "a"`) is left to
    the floor guess, whose trials make the objects that show it endless."""
    out = set(wrong)
    for i, (lo, hi, *_) in counters.items():
        path = leaves[i][0]
        bounds = known_bounds(ends[i][1]) if i < len(ends) else None
        times = (ranges.get(path) or (0, 0, 0))[2]
        if (path, KEPT) not in wrong or path not in ranges or bounds is None or \
                times >= MOST_WIDENINGS:
            continue
        wide = expand(_union((lo, hi), bounds))
        if wide != (lo, hi):
            ranges[path] = (*wide, times + 1)
            out.discard((path, KEPT))
    return out


MOST_WIDENINGS = 2


def _union(a: tuple, b: tuple) -> tuple:
    return min(a[0], b[0]), max(a[1], b[1])


def tested_paths(counters: dict, leaves) -> list:
    """The counters whose values on the paths back to the header are asked
    (guarded_ranges.back_edges): the guesses a cap may narrow or holds."""
    return [leaves[i][0] for i, (_, _, *kind) in counters.items() if kind[:1] != [KEPT]]


def capped_by_tests(counters: dict, leaves, back: dict, refuted: set) -> dict:
    """{path: cap} for the counters that every path back to the header
    leaves at most `cap` (below the guess's top), as the loop's tests
    bound them there, the entry value included: `i = 0; while i < T and
    ...: i += 1` starts each iteration with i in [0, T - 1]."""
    out = {}
    for i, (lo, top, *kind) in counters.items():
        path = leaves[i][0]
        ends = back.get(path)
        if kind or not ends or (path, CAPPED) in refuted or \
                any(b is None or b[0] < lo for b in ends):
            continue
        entry = known_bounds(leaves[i][1])
        if entry is None:
            continue
        cap = max(entry[1], *(b[1] for b in ends))
        if cap < top:
            out[path] = cap
    return out


def _floor(entry) -> int | None:
    value = known_integer(entry)
    if type(value) is int:
        return value
    return entry.span.bounds()[0] if entry.span is not None else None


def assume(slot_arrays: dict, counters: dict) -> None:
    """Gives each guessed counter's body Array (on its parameter) its range."""
    for i, (lo, top, *_) in counters.items():
        arr = slot_arrays[i]
        arr.span = Span(arr._var, 0, lo, top)


def refuted(counters: dict, leaves, ends, back=None) -> set:
    """The paths of the guessed counters that an iteration does not leave
    counted on from their parameter (`ends`: the body's end leaves); for a
    KEPT guess, (path, KEPT) where it does not stay in its range; for a
    CAPPED one, (path, CAPPED) where a path back to the header (`back`:
    guarded_ranges.back_edges) may leave it above its cap."""
    out = set()
    for i, (lo, top, *kind) in counters.items():
        end = ends[i][1] if i < len(ends) else None
        path = leaves[i][0]
        if kind[:1] == [KEPT]:
            if not (end is not None and _stays_in(end, lo, top)):
                out.add((path, KEPT))
        elif kind[:1] == [CAPPED]:
            if not (end is not None and _counts_on(end, lo, kind[1])) or any(
                    b is None or not lo <= b[0] <= b[1] <= top for b in (back or {}).get(path, ())):
                out.add((path, CAPPED))
        elif not (end is not None and _counts_on(end, lo, top)):
            out.add(path)
    return out


def _stays_in(end, lo: int, hi: int) -> bool:
    """Whether an iteration's end value is in [lo, hi] (the parameter
    itself, left as it was: its range is the guess's)."""
    bounds = known_bounds(end)
    return bounds is not None and lo <= bounds[0] and bounds[1] <= hi


def known_bounds(v):
    """(lo, hi) of an int known while compiling (a Python or NumPy int, a
    constant: a choice's position where a path binds the object itself)
    or of a runtime one with a Span; else None."""
    value = known_integer(v)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value), int(value)
    return int_bounds(v) if isinstance(v, Array) and v.span is not None else None


def _counts_on(end, lo: int, top: int) -> bool:
    """Whether an iteration's end value is never below `lo` nor past
    `top + MAX_STEP`, as the body's ops bound it with its parameter in [lo,
    top]: a static number from lo up (`k = 0`), `k + c` (a static c from 0
    to MAX_STEP), or what a runtime `if` merged of those (`if x[i] > t: k +=
    1`, `if k > 3: k = 0`: control._merged_span) or an inner loop left of
    them (after_loop).  Each keeps k >= lo; above top it could only come by
    counting for 2**53 iterations (or by a number the program made past
    2**63 - MAX_STEP, whose sums wrap anyway: README)."""
    value = known_integer(end)
    if type(value) is int:
        bounds = (value, value)
    elif isinstance(end, Array) and end.span is not None:
        bounds = int_bounds(end)
    else:
        return False            # (anything its dtype holds)
    return lo <= bounds[0] and bounds[1] <= top + MAX_STEP


def after_loop(arr: Array, out_var, counter) -> None:
    """The While's result for a counter lies in its range as well: the entry
    value (no iteration) or what an iteration left."""
    if counter is not None:
        lo, hi, *kind = counter
        # (a capped counter leaves the loop past its cap: `i` is T after
        # `while i < T and ...`: the top of its range without the cap)
        arr.span = Span(out_var, 0, lo, kind[1] if kind[:1] == [CAPPED] else hi)
