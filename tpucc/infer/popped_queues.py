"""A list the program made and pops inside a runtime `if` or loop: its static
items and a runtime count of the pops.

`while events and events[0][0] < limit: t, i = heapq.heappop(events)` with a
runtime limit, `while q: i = q.pop(); if x[i] > thr: return i`: the queue's
items are static, only how many get popped is runtime.  Each pop is the same
operation (list.pop(), list.pop(j), deque.popleft(), heapq.heappop), so the
list after k pops is static for every k, and so is the k-th item popped:
compiled code needs only k, a runtime int.

So when a pop inside a runtime `if` or loop is refused (calls.check_mutation
marks the error `popped`), the outermost runtime branch or loop around it
(control.runtime_branch, loops._unroll, loops.run_loop) runs again from
where it started, with the list replaced, in the frame's variables, by a
PoppedQueue: the tables of those static states, and the name of a hidden
variable of the frame that holds k (0 there).  Branches and loops carry and
merge that variable as they do any int, so k becomes runtime where the pops
do.  The queue's length is n - k, its truth k < n, its item j and the item
a pop gives are picked from static tables at position k (a runtime index
into a static list: calls.getitem, whose check raises IndexError where
NumPy's would), and a pop stores k + 1.

Only where that is exact: a list made by this call, reached through the
frame's variables alone, entered outside any runtime region, popped in one
way by the frame that holds it.  Anything else done to it (append, item
assignment, iteration, returning it) is refused, as before, with a message
that says so.
"""
from __future__ import annotations

import collections
import heapq
import operator

from ..errors import SideEffectError, UserCodeError
from . import iterators

# Past this many items the tables (n + 1 states of up to n items) grow too
# large; such a queue keeps the refusal.
MAX_ITEMS = 256

_HINT = ("pop it only, one way (q.pop(), q.pop(0), del q[0], q.popleft() or heapq.heappop(q)), "
         "and read its length, truth and items at static positions; or keep the queue in an "
         "array walked with a runtime position (`k = 0; while k < len(times) and times[k] < "
         "limit: ...; k += 1`)")


class PoppedQueue:
    """`states[k]`: the items after k pops; `popped[k]`: what pop k + 1
    gives; `how`: the pop, (name, args); `frame` and `slot`: where k is."""
    __slots__ = ("states", "popped", "how", "frame", "slot", "kind", "empty")

    def __init__(self, items, how, frame, slot):
        self.kind, self.how, self.frame, self.slot = type(items), how, frame, slot
        left, self.states, self.popped = items.copy(), [tuple(items)], []
        while True:
            try:
                self.popped.append(_pop_once(left, how))
            except IndexError as e:
                self.empty = str(e)         # (Python's own words: "pop from empty list")
                break
            self.states.append(tuple(left))

    def count(self):
        return self.frame.locals[self.slot]

    def length(self, interp):
        return _apply(interp, operator.sub, len(self.states[0]), self.count())

    def truth(self, interp):
        return _apply(interp, operator.lt, self.count(), len(self.states[0]))

    def item(self, interp, key):
        if type(key) is not int:
            raise _refusal(f"reading {self.name()} at a position other than a static int")
        table = [s[key] for s in self.states if -len(s) <= key < len(s)]
        return _pick(interp, table, self.count(), f"{self.kind.__name__} index out of range")

    def pop(self, interp, how):
        if any(type(a) is not int for a in how[1]):
            raise _refusal(f"popping {self.name()} at a position other than a static int")
        if how != self.how:
            raise _refusal(f"popping {self.name()} both by {_spelled(self.how)} and by "
                           f"{_spelled(how)}")
        if not interp.frames or interp.frames[-1] is not self.frame:
            raise _refusal(f"{_spelled(how)} of {self.name()}, in a function other than the "
                           "one whose variable holds it")
        k = self.count()
        if how[0] == "del":         # (no item to pick)
            _require_below(interp, k, len(self.popped), self.empty)
            item = None
        else:
            item = _pick(interp, self.popped, k, self.empty)
        self.frame.locals[self.slot] = _apply(interp, operator.add, k, 1)
        return item

    def name(self) -> str:
        return f"a {self.kind.__name__} popped inside a runtime `if` or loop"

    # Python's own protocols on it (a `for` over it, `x in q`, list(q)):
    # its items are not static any more.
    def __iter__(self):
        raise _refusal(f"iterating {self.name()}")

    def __len__(self):
        raise _refusal(f"the length of {self.name()}, read natively,")

    def __contains__(self, item):
        raise _refusal(f"`in` on {self.name()}")

    def _whole(self, *args):
        # (no attribute of self read: copy.copy, interpreted, calls it)
        raise _refusal("reading a queue popped inside a runtime `if` or loop whole (comparing, "
                       "joining, printing or copying it)")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _whole
    __add__ = __radd__ = __mul__ = __rmul__ = __reversed__ = _whole
    __str__ = __format__ = __copy__ = __deepcopy__ = __reduce_ex__ = _whole
    __hash__ = object.__hash__

    def __repr__(self):
        return f"<{self.name()}>"


class QueueMethod:
    """q.pop, q.popleft, read off a PoppedQueue (calls.getattr); calls.call
    calls it."""
    __slots__ = ("queue", "name")

    def __init__(self, queue, name):
        self.queue, self.name = queue, name

    def call(self, interp, args, kwargs):
        if kwargs:
            raise _refusal(f"`.{self.name}()` of {self.queue.name()} with keywords")
        return self.queue.pop(interp, (self.name, tuple(args)))


def method(queue: PoppedQueue, name: str) -> QueueMethod:
    if name in ("pop", "popleft"):
        return QueueMethod(queue, name)
    raise _refusal(f"`.{name}` of {queue.name()}")


def heapq_call(interp, name: str, args: list):
    """heapq.heappop(q) of a PoppedQueue; other heapq functions on it refused."""
    if name != "heappop" or len(args) != 1:
        raise _refusal(f"heapq.{name} on {args[0].name()}")
    return args[0].pop(interp, ("heappop", ()))


def convert(interp, frame, error, entry_items: dict) -> bool:
    """Replaces the list whose pop `error` refused by a PoppedQueue in the
    frame's variables, when exact (module docstring); False where not.
    `entry_items`: {id(list): (list, its items)} at the loop's entry (the
    refused trial may have popped it already)."""
    held = getattr(error, "popped", None)
    if held is None or interp.ctx.runtime_depth or interp.ctx.grad_depth:
        return False
    container, how = held
    entry = entry_items.get(id(container))
    names = [name for name, v in frame.locals.items() if v is container]
    if entry is None or not names or not _only_held_by(interp, frame, container) \
            or not _poppable(entry[1], how):
        return False
    items = container.__class__(entry[1])
    container.clear()
    container.extend(entry[1])      # (the list as it was, for the names that still reach it)
    slot = f"<pops of {names[0]}>"
    queue = PoppedQueue(items, how, frame, slot)
    for name in names:
        frame.locals[name] = queue
    frame.stack[:] = [queue if v is container else v for v in frame.stack]
    frame.locals[slot] = 0
    return True


def retrying(frame, run):
    """run() (a runtime branch met outside any runtime region), once more
    from the frame's state now where it refused a pop that `convert` makes
    a PoppedQueue's: the pops after this point then count on k."""
    interp = frame.interp
    if interp.ctx.runtime_depth or interp.ctx.grad_depth:
        return run()
    while True:
        locals0, stack0, current = dict(frame.locals), list(frame.stack), frame.current
        try:
            with iterators.cursor_journal():        # (undone where it raises)
                return run()
        except SideEffectError as e:
            if getattr(e, "popped", None) is None:
                raise
            frame.locals, frame.stack, frame.current = locals0, stack0, current
            # (the list holds the items it had here: inside the runtime
            # region a change of it was refused before it was made)
            if not convert(interp, frame, e, entry_items(frame.locals)):
                raise


def entry_items(locals_: dict) -> dict:
    """The lists and deques the frame's variables hold, with their items now."""
    return {id(v): (v, list(v)) for v in locals_.values()
            if type(v) in (list, collections.deque) and len(v) <= MAX_ITEMS}


def _only_held_by(interp, frame, container) -> bool:
    """Made by this call and held by nothing the program made but the
    frame's variables: no other frame, container, object or tuple reaches
    it, so replacing the variables replaces every way to it."""
    if id(container) not in interp.fresh_ids or id(container) in interp.argument_containers:
        return False
    for other in interp.frames:
        if other is not frame and any(v is container or isinstance(v, tuple) and
                                      _reaches(v, container)
                                      for v in (*other.locals.values(), *other.stack)):
            return False
    for obj, _ in list(interp.fresh_ids.values()):
        if obj is not container and _reaches(obj, container):
            return False
    return not any(isinstance(v, tuple) and _reaches(v, container)
                   for v in frame.locals.values())


def _reaches(obj, target, depth=2) -> bool:
    if isinstance(obj, dict):
        values = list(obj.values())
    elif isinstance(obj, (list, tuple, set, frozenset, collections.deque)):
        values = list(obj)
    else:
        values = list(getattr(obj, "__dict__", {}).values())
    return any(v is target or depth > 0 and isinstance(v, (list, tuple, dict))
               and _reaches(v, target, depth - 1) for v in values)


def _poppable(items: list, how) -> bool:
    """Static items (an array among them would be picked as a copy, and
    heappop compares them), one pop a Python int names."""
    name, args = how
    from .builtins_impl import holds_array
    if holds_array(items) or any(type(a) is not int for a in args):
        return False
    return name in ("pop", "popleft", "del") or name == "heappop" and all(map(_plain, items))


def _plain(v) -> bool:
    if isinstance(v, tuple):
        return all(map(_plain, v))
    return v is None or type(v) in (bool, int, float, str)


def _pop_once(items, how):
    name, args = how
    if name == "heappop":
        return heapq.heappop(items)
    if name == "del":
        del items[args[0]]
        return None
    return getattr(items, name)(*args)


def _pick(interp, table: list, k, empty: str):
    """table[k]: at compile time for a static k, else a runtime pick
    (checked: past the table's end is an IndexError, as eagerly)."""
    _require_below(interp, k, len(table), empty)
    if type(k) is int:
        return table[k]
    last = interp.call(min, [k, len(table) - 1], {})   # (k >= 0: that check is the only one)
    return interp.getitem(interp.fresh(list(table)), last)


def _require_below(interp, k, size: int, empty: str) -> None:
    """The IndexError eager Python raises where k (a pop's count, or the
    last count at which an item position exists) reaches `size`."""
    if type(k) is int or not size:
        if type(k) is not int or k >= size:
            raise UserCodeError(f"IndexError: {empty}")
        return
    from . import checks
    checks.require(_apply(interp, operator.lt, k, size), empty, raises="IndexError")


def _apply(interp, op, a, b):
    from . import dunders
    return dunders.apply(interp, op, a, b)


def _spelled(how) -> str:
    name, args = how
    if name == "heappop":
        return "heapq.heappop()"
    return f"`del q[{args[0]}]`" if name == "del" else f".{name}({', '.join(map(str, args))})"


def returned(queue: PoppedQueue) -> SideEffectError:
    """The refusal of returning the queue itself: its length is runtime,
    and a compiled call returns values of a structure fixed when compiled."""
    e = SideEffectError(
        f"returning {queue.name()} is not supported: how many items it holds is known only "
        "at run time, and a compiled call's result has a structure fixed when it is compiled",
        hint="return what the program needs of it: len(q), q[0] if q else default, or its items "
             "in an array of fixed size with a count")
    e.program_container = True
    return e


def _refusal(what: str) -> SideEffectError:
    e = SideEffectError(
        f"{what} is not supported: how many items it holds is known only at run time",
        hint=_HINT)
    e.program_container = True
    return e
