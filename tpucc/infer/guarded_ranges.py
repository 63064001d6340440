"""What the runtime tests around a point say of a counter's range.

A runtime loop's counter is a runtime int with a values.Span: it equals
`scale * token + offset`, the token (its parameter in the While's body)
lying in [lo, hi].  Inside the arm of a runtime test `i < T` that holds,
with T static, the token is known to be below T - offset as well, and so
`x[:, i:i + 1]` there is a window of static length in range
(indexing.fixed_length_slice), as eagerly `x[:, i:i + 1]` has one column.

A `while i < T and not done.all():` loop (or `while i < T:` with a runtime
`break` or `return`) is a runtime While whose body CPython ends with the
loop's test: every path back to the loop's header went through `i < T`
holding for the i the next iteration starts from.  A trial of the body
records what those paths say of each counter (back_edges, reached), and
loops._settle_while tries the body again with the counter's range capped
there (counters.py: CAPPED), a guess the next trial checks.  Where a window
stops a trial before it reaches the tests, a probing trial that takes the
windows to be in range finds the caps (loops._caps_probed).

Tests are noted where they are made (note_test: a comparison of a spanned
int with a static int), and read through the runtime branches being
interpreted (ctx().branch_guards, outermost first).
"""
from __future__ import annotations

import contextlib

import numpy as np

from .builder import ctx
from .values import Array, Span, known_integer

# The comparison a test's negation makes: the arm where `i < T` fails has i >= T.
_NEGATED = {"less": "greater_equal", "less_equal": "greater", "greater": "less_equal",
            "greater_equal": "less", "equal": "not_equal", "not_equal": "equal"}


def note_test(result, ufname: str, a, b) -> None:
    """Notes `result = a <ufname> b` where a is a spanned int and b a static
    int (`i < T`, `i + 1 >= n`): a branch on it bounds a's token."""
    span = getattr(a, "span", None)
    b = known_integer(b)
    if isinstance(b, np.integer):
        b = int(b)
    if span is None or type(b) is not int or ufname not in _NEGATED or \
            not isinstance(result, Array) or result.shape != ():
        return
    ctx().span_tests[id(result.var)] = (result.var, span, ufname, b)


def narrowed(span: Span | None) -> Span | None:
    """`span` with its token's range cut down to what the runtime tests of
    the branches around this point say of it (the span itself if nothing)."""
    if span is None:
        return None
    lo, hi = span.lo, span.hi
    for test_lo, test_hi in _token_limits(span.token):
        lo, hi = max(lo, test_lo), min(hi, test_hi)
    if lo > hi or (lo, hi) == (span.lo, span.hi):
        return span         # (an arm no run takes: nothing to narrow it to)
    return Span(span.token, span.offset, lo, hi, span.scale)


def _token_limits(token):
    """(lo, hi) bounds of `token` from each branch test around this point."""
    c = ctx()
    for var, selected in c.branch_guards:
        root, negated = _tested(c, var)
        noted = c.span_tests.get(id(root))
        if noted is None or noted[0] is not root or noted[1].token is not token:
            continue
        _, span, ufname, bound = noted
        held = ufname if selected != negated else _NEGATED[ufname]
        limits = _token_range(span, held, bound)
        if limits is not None:
            yield limits


def _tested(c, var):
    """(the test a branch's condition is the truth of, whether negated):
    the condition itself, or what control.decided_by_guards found it to be
    (`not i < T`).  Not searched for here: that search, cached, would stop
    at ops made since and keep a shallower answer for decided_by_guards."""
    found = c.guard_roots.get(id(var))
    if found is not None and found[0] is var:
        return found[1], found[2]
    return var, False


def _token_range(span: Span, ufname: str, c: int):
    """The token's range where `scale * token + offset <ufname> c` holds."""
    lo, hi = span.lo, span.hi
    value = {"less": (None, c - 1), "less_equal": (None, c), "greater": (c + 1, None),
             "greater_equal": (c, None), "equal": (c, c)}.get(ufname)
    if value is None or span.scale == 0:
        return None
    v_lo, v_hi = value
    s, o = span.scale, span.offset
    if s < 0:               # (the token's bounds swap sides)
        v_lo, v_hi = (None if v_hi is None else -v_hi), (None if v_lo is None else -v_lo)
        s, o = -s, -o
    # s * t + o in [v_lo, v_hi]  ->  t in [ceil((v_lo - o) / s), floor((v_hi - o) / s)]
    if v_lo is not None:
        lo = max(lo, -((o - v_lo) // s))
    if v_hi is not None:
        hi = min(hi, (v_hi - o) // s)
    return lo, hi


# --- the paths back to a loop's header ---------------------------------------

@contextlib.contextmanager
def probing():
    """A trial of a loop's body that looks for its counters' bounds only:
    a window x[i:i + k] of a counter is taken to be in range (in_range)
    for the body to run to the loop's tests; its ops are dropped."""
    c = ctx()
    before, c.probing_windows = c.probing_windows, True
    try:
        yield
    finally:
        c.probing_windows = before


def in_range(span_lo: int, span_hi: int, n: int) -> bool:
    """Whether a window from span_lo to span_hi lies in an axis of n, or is
    taken to (probing)."""
    return ctx().probing_windows or (0 <= span_lo and span_hi <= n)


@contextlib.contextmanager
def back_edges(frame, header: int, paths):
    """Records, while a trial of the loop's body runs, the range of each
    counter at `paths` on every path that goes back to `header` (as the
    tests that path passed bound it): -> {path: [(lo, hi) or None, ...]}."""
    found = {p: [] for p in paths}
    c = ctx()
    c.back_edges.append((header, frame, found))
    try:
        yield found
    finally:
        c.back_edges.pop()


def reached(frame, block: int) -> None:
    """control.walk reached `block`, one of its stops: where that is the
    header of the loop whose body is on trial, a path goes back to it."""
    c = ctx()
    if not c.back_edges:
        return
    header, loop_frame, found = c.back_edges[-1]
    if block != header or loop_frame is not frame or not found:
        return
    values = _values_at(frame, found)
    for path, bounds in found.items():
        bounds.append(_bounds(values.get(path)))


def _values_at(frame, paths) -> dict:
    if all(p in frame.locals for p in paths):
        return {p: frame.locals[p] for p in paths}
    from .state import state_leaves
    return dict(state_leaves(frame.locals, frame.stack)[1])


def _bounds(value):
    value = known_integer(value)
    if type(value) is int:
        return value, value
    span = narrowed(getattr(value, "span", None)) if isinstance(value, Array) else None
    return span.bounds() if span is not None else None
