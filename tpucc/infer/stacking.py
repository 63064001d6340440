"""Lists a counted loop grows: the loop stays one While, the new items go
into buffers it carries.

`[f(r) for r in x]` over 300 rows appends an array to its list on every
iteration.  A While cannot carry the list (its length changes), so the
loop used to be unrolled: 300 copies of the body, seconds of XLA.  But
when every iteration appends the same number of values of the same types,
the j-th value an iteration appends can go into row t of a buffer of its
own (t: the iteration), which the While carries as an array updated in
place; after the loop the list gets the buffers' rows, in append order.

Only where that is exact:
- the loop is a counted one (a static number of iterations), and each of
  them runs to its end (no `break` or early `return`);
- the appends happen on every iteration, or under runtime `if`s that test
  the counter alone (`if ep % 100 == 0`: which iterations append is then
  known here, periodic.py; the value goes into its row inside the branch,
  `_write_guarded`);
- the list cannot be read inside the loop: a comprehension's list, which no
  name holds until the comprehension ends, a list the function made
  (`out = []`) that nothing but `out.append(v)` uses from there to the
  loop's end (frontend.cfg.only_appended_in_loop), one of a dict, tuple or list
  of new lists used only as `hist[k].append(v)`, or a list from outside
  the call, which appends.py refuses to read (its items are appended when
  the call returns).  Items such a list already holds are set aside while
  the While is built (`items_set_aside`), and stay in front;
- each appended value is a new array of the iteration (not an array from
  before the loop, or a view of one: NumPy's list would hold that very
  object, and see later writes to it), or a static number, string or None.
  The new array may be the one a variable carries into the next iteration
  (`s = s * 0.9 + r; states.append(s)`) when that iteration writes nothing
  into it (checked on the body's parameter: `check_carried`); the list's
  last item is then the loop's final value of the variable itself, the
  same object, as in NumPy.  Likewise the array a variable holds when the
  iteration starts, appended before the iteration rebinds it (`hs.append(h);
  h = step(h)`): the list's first item is then the array from before the
  loop itself.
- or the row the counter picks of an array from before the loop that the
  loop does not write (`r` of `for r in x`, `x[i]` of `for i in range(n)`,
  yielded by `sum(r for r in x)`'s generator): NumPy's item is a view of
  that row, and so is the list's, made after the loop (no buffer).
- or a tuple, named tuple, list or dict of such values, nested as deep as
  it likes (`history.append({"loss": float(loss), "w": w.copy()})`): each
  leaf gets a buffer, and after the loop the list gets the structures
  rebuilt row by row.  A list or dict among them must be the iteration's
  own, appended once and held by nothing the next iteration sees (a
  write into it would show in the list's item).
Anything else raises here, and the loop is unrolled as before (exact).
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from ..errors import SideEffectError
from ..ir import AVal
from ..frontend.cfg import appended_and_last_read_in_loop, only_appended_in_loop
from . import appends, periodic
from .builder import ctx, emit, emit_op
from .values import CHOSEN, AliasNote, Array, RuntimeKind, new_serial_floor

_STATIC_ITEMS = (bool, int, float, complex, str, bytes, type(None), np.generic)
_COUNTER = object()         # Growth.statics: the item is the loop's counter


class NotStackable(SideEffectError):
    """A list a counted loop grows in a way buffers cannot hold."""


@dataclass
class Growth:
    """The lists one counted loop grows.  `start`, `step`, `trips`: its
    static range.  Per attempt at the While (loops._settle_while), the
    appends of its trial body; across attempts, the buffers."""
    start: int
    step: int
    trips: int
    depth: tuple = ()           # (runtime, grad) depth inside the body
    floor: int = 0              # the body's effect floor
    named: frozenset = frozenset()  # ids of the lists `name.append(v)` may grow
    appends: dict = field(default_factory=dict)     # id(list) -> (list, [values])
    buffers: dict = field(default_factory=dict)     # (id(list), j) -> Array
    wanted: dict = field(default_factory=dict)      # (id(list), j) -> AVal
    statics: dict = field(default_factory=dict)     # (id(list), j) -> the static value
    carried: dict = field(default_factory=dict)     # (id(list), j) -> the variable's path
    entering: dict = field(default_factory=dict)    # (id(list), j) -> the variable's path
    rows_of: dict = field(default_factory=dict)     # (id(list), j) -> the array it is a row
    #   of, or the path of the variable holding it (the loop carries it, unchanged)
    flat_blocks: dict = field(default_factory=dict)  # (id(list), j) -> buffer of Blocks, flat
    # (id(list), j) -> on which iterations the value is appended, for one
    # appended under a runtime `if` on the counter alone (periodic.py)
    guards: dict = field(default_factory=dict)
    guarded_rows: dict = field(default_factory=dict)   # key -> a counter row appended there
    # (id(list), j) -> the variable whose array (or a view of it: not in
    # `carried`) an iteration appends and carries on, its own new one or,
    # on other runtime paths, the one it began with (_kept_or_new)
    repeated: dict = field(default_factory=dict)
    fresh_floor: int = 0            # the serial of the body's first array
    outside: set = field(default_factory=set)  # ids of lists from outside the call
    #   (appends.py: appended when it returns)
    fronts: set = field(default_factory=set)   # ids of lists grown by insert(0, v)
    counter: object = None          # the body's counter (an Array)
    region_base: int = 0            # the body's region, in ctx().regions
    guard_base: int = 0             # the branches around the loop, in ctx().branch_guards

    def enter_body(self, frame, header):
        """A trial of the body starts (inside its region)."""
        c = ctx()
        self.depth = (c.runtime_depth, c.grad_depth)
        self.floor = c.effect_floor[-1]
        self.appends, self.guards, self.outside, self.fronts = {}, {}, set(), set()
        self.guarded_rows = {}
        self.fresh_floor = new_serial_floor()       # (the body's parameters are older)
        self.carried, self.entering, self.rows_of, self.repeated = {}, {}, {}, {}
        self.counter = frame.stack[-1].pos
        self.region_base, self.guard_base = len(c.regions) - 1, len(c.branch_guards)
        self.last_read = frozenset(id(v) for v in last_read_lists(frame, header))
        self.named = frozenset(id(v) for v in deferrable_lists(frame, header)
                               if all(isinstance(x, _STATIC_ITEMS) for x in v)) | self.last_read

    def record(self, interp, lst, value, named: bool, front=False) -> bool:
        """`lst.append(value)` in the body: recorded instead of done, when
        the append runs on every iteration (at the body's own depth) or
        under branches on the counter alone (`_guard`), and `lst` is older
        than the body (a list the iteration made is its own) or from
        outside the call (appends.py).  `front`: `lst.insert(0, value)`,
        on a list the function made, that the loop grows only so."""
        c = ctx()
        if c.grad_depth != self.depth[1]:
            return False
        made = interp.fresh_ids.get(id(lst))
        outside = made is None and named and appends.is_outside(interp, lst)
        if not outside and (made is None or made[0] is not lst or made[1] >= self.floor
                            or named and id(lst) not in self.named):
            return False
        if id(lst) in self.last_read and (front or not _is_number(value)
                                          or c.runtime_depth != self.depth[0]):
            return False        # (done as is: refused, and the loop unrolled)
        if (front or id(lst) in self.fronts) and (
                outside or _enclosing(self) is not None
                or id(lst) in self.appends and (id(lst) in self.fronts) != front):
            return False        # (in front and at the end, or for an enclosing loop: done as is)
        if front:
            self.fronts.add(id(lst))
        if outside:
            self.outside.add(id(lst))
        values = self.appends.setdefault(id(lst), (lst, []))[1]
        if c.runtime_depth != self.depth[0] or c.effect_floor[-1] != self.floor:
            guard = self._guard()
            if guard is None or not self._write_guarded(interp, (id(lst), len(values)), value):
                return False
            self.guards[(id(lst), len(values))] = guard
        values.append(value)
        if id(lst) in self.last_read:
            # The list holds its last item alone while the While is built
            # (items_set_aside): the appended value becomes it, carried to
            # the next iteration's `lst[-1]` (an item rebound in place).
            interp.setitem(lst, -1, value)
        return True

    def _guard(self):
        """Inside runtime branches of the body on the counter alone: on which
        iterations they are all taken (periodic.mask); else None."""
        c = ctx()
        guards = c.branch_guards[self.guard_base:]
        if not guards or c.runtime_depth - self.depth[0] != len(guards) \
                or not isinstance(self.counter, Array):
            return None                 # (not only branches: a runtime loop in the body)
        ops = [op for rb in c.regions[self.region_base:] for op in rb.ops]
        positions = self.start + self.step * np.arange(self.trips, dtype=np.int64)
        return periodic.mask(guards, ops, self.counter._var, positions)

    def _write_guarded(self, interp, key, value) -> bool:
        """An appended value under a runtime branch into its buffers, there
        (numbers, static values, the counter, and arrays the branch made that
        nothing else holds, in tuples at will: no later write could show in
        the list's item); whether it could be."""
        if any(not isinstance(c, tuple) for c in _containers(value)):
            return False
        for leaf_key, v in _leaves(key, value):
            if v is self.counter:
                self.statics[leaf_key] = _COUNTER
            elif isinstance(v, Array) and _counter_row(v, self.counter, self.fresh_floor):
                self.guarded_rows[leaf_key] = v    # (checked as the body ends: write_rows)
            elif not isinstance(v, Array):
                if not isinstance(v, _STATIC_ITEMS):
                    return False
                self.statics[leaf_key] = v
            elif v.base is not None or not isinstance(v.immutable, bool) or not (
                    v.immutable is True or v.aval.weak and not v.shape
                    or _unheld_new_array(interp, v)):
                return False            # (a write into it would show in the list)
            else:
                self._write_row(leaf_key, v, self._iteration(self.counter))
        return True

    def _write_row(self, key, v: Array, t) -> None:
        """`v` into row t of its buffer (a buffer of its type noted for
        make_buffers where it has none yet); with the bool of a Python number
        held in a NumPy dtype on some runtime paths (held_ints.py) into a
        buffer of its own, so that each item the list gets is the Python
        number on its path, as the unrolled loop's would be (and the second
        bool of a Python bool held beside it, into another)."""
        for k, value in ((key, v), (_held_key(key), _held_flag(v)),
                         (_held_bool_key(key), _held_bool_flag(v))):
            if value is None:
                continue
            buf = self.buffers.get(k)
            if buf is None or buf.aval.shape[1:] != value.shape or buf.dtype != value.dtype:
                self.wanted[k] = value.aval
                continue
            from ..ops import indexing
            static, arrays = indexing.normalize_key((t,), buf.shape)
            buf.set(emit("setitem", buf, value, *arrays, key=static).var)

    def write_rows(self, pos, frame, leaves, fresh_floor: int, entries: dict):
        """At the end of a trial body: each appended array into row t of its
        buffer (t from the loop's counter `pos`).  A value whose type has no
        buffer yet is noted for `make_buffers`.  Arrays from `fresh_floor` on
        are the iteration's own (the carried ones are made before it).
        `leaves`: the body's state (`frame`'s) as the next iteration gets it;
        `entries`: {id(the Array a carried variable starts it with): its path}."""
        t = None
        self._check_containers(frame)
        kept = {(path, id(v)) for path, v in leaves if isinstance(v, Array)}
        held = {}                       # id -> the paths holding it (or a view of it)
        for path, v in leaves:
            while isinstance(v, Array):
                held.setdefault(id(v), []).append(path)
                v = v.base
        self._refuse_compile_time_items(pos)
        self._refuse_shared_items()
        for key, v in self._parts():
            if key in self.guarded_rows:
                v = self.guarded_rows[key]
                holder = entries.get(id(v.base))
                if holder is not None and (holder, id(v.base)) not in kept:
                    raise NotStackable("the loop appends a row of an array it rebinds")
                self.rows_of[key] = v.base if holder is None else holder
            if key[:2] in self.guards:
                continue                # (written in its branch)
            if isinstance(v, Block):
                v = v.buffer            # (each iteration's block: a row of the buffer)
            if v is pos:                # the counter itself: a static number in each row
                self.statics[key] = _COUNTER
                continue
            if not isinstance(v, Array):
                self._static_item(key, v)
                continue
            if _counter_row(v, pos, fresh_floor):
                holder = entries.get(id(v.base))
                if holder is None or (holder, id(v.base)) in kept:     # (not rebound)
                    self.rows_of[key] = v.base if holder is None else holder
                    continue
            entering = entries.get(id(v)) if v.base is None and v.immutable is False else None
            if entering is not None and id(v) not in held:
                self.entering[key] = entering       # (rebound: the next iteration has another)
            else:
                carrier = _sole_carrier(v, held, leaves)
                if carrier is not None:
                    self.carried[key] = carrier
                viewed = carrier or _viewed_carrier(v, held, leaves, fresh_floor)
                if viewed is not None and self._kept_or_new(_root(v), viewed, entries, held,
                                                            fresh_floor):
                    self.repeated[key] = viewed
                else:
                    self._check_fresh(v, held if carrier is None else {}, fresh_floor)
            if t is None:
                t = self._iteration(pos)
            self._write_row(key, v, t)

    def _check_containers(self, frame):
        """The lists and dicts the iteration appends (or that are inside what
        it appends) get rebuilt after the loop, one per row: exact only
        for ones it made, appended once, that nothing carried on holds."""
        made = frame.interp.fresh_ids
        mutable = [c for values in self.appends.values() for v in values[1]
                   for c in _containers(v) if type(c) in (list, dict)]
        if not mutable:
            return
        if len({id(c) for c in mutable}) != len(mutable):
            raise NotStackable("the loop appends one list or dict more than once")
        if any(made.get(id(c), (None,))[0] is not c or made[id(c)][1] < self.floor
               for c in mutable):
            raise NotStackable("the loop appends a list or dict from before it")
        reachable = _reachable(list(frame.locals.values()) + list(frame.stack), made)
        if any(id(c) in reachable for c in mutable):
            raise NotStackable("the loop appends a list or dict that a variable carries "
                               "into the next iteration")

    def _refuse_compile_time_items(self, pos):
        """Items computed from the loop's counter alone (`[i * i for i in
        range(n)]`) are numbers known at compile time when the loop is
        unrolled: it is, rather than filling buffers at run time."""
        arrays = [v for _, v in self._parts() if isinstance(v, Array) and v is not pos]
        if arrays and _from_counter_only([a.var for a in arrays], ctx().region.ops, pos._var):
            raise NotStackable("the loop's items are compile-time values")

    def _refuse_shared_items(self):
        """One array appended twice (to one list or two), or two views of one:
        NumPy's items share memory, separate buffer rows would not.  Nor an
        array chosen at run time among others (`[h for h in hs]` over a long
        list, `xs[i]`: values.CHOSEN): NumPy's item would be that array."""
        roots = [_root(v) for _, v in self._parts() if isinstance(v, Array)]
        if any(r.frozen == CHOSEN for r in roots):
            raise NotStackable("the loop appends an array it chose among others (an item "
                               "of a list it goes over)")
        if len({id(r) for r in roots}) != len(roots):
            raise NotStackable("the loop appends one array (or views of it) more than once")

    def check_carried(self, entry_arrays: dict, entry_leaves):
        """After a trial body: an appended array a variable carries is
        exact only if the next iteration writes nothing into it, that is,
        the body writes nothing into that variable's parameter (its
        version would change; writes through views reach it too)."""
        slots = {path: i for i, (path, _) in enumerate(entry_leaves)}
        for path in [*self.carried.values(), *self.entering.values(),
                     *self.repeated.values(),
                     *(p for p in self.rows_of.values() if type(p) is str)]:
            arr = entry_arrays.get(slots.get(path))
            if arr is None or arr.version != 0:
                raise NotStackable(f"the loop appends the array `{path}` holds to a list and "
                                   "then writes into it in place")
        firsts = dict(entry_leaves)
        if any(not isinstance(firsts[p], Array) or firsts[p].immutable is not False
               for p in self.entering.values()):
            raise NotStackable("the loop appends a number a variable held before it")
        if set(self.carried.values()) & set(self.entering.values()):
            raise NotStackable("the loop appends one array in two iterations")

    def _static_item(self, key, v):
        if not isinstance(v, _STATIC_ITEMS):
            raise NotStackable(f"the loop appends {type(v).__name__} objects to a list")
        self.statics[key] = v

    def _check_fresh(self, v: Array, held: set, fresh_floor: int):
        if v.immutable is True and v.base is None:
            return      # a number (Python or NumPy scalar): no identity an update could show
        chain = _chain(v)
        root = chain[-1]
        if root.serial < fresh_floor or any(id(a) in held for a in chain) \
                or not isinstance(v.immutable, bool) \
                or root.alias_note is not None and not self._partners_unseen(root, held,
                                                                             fresh_floor):
            raise NotStackable("the loop appends an array from before it (or a view of "
                               "one) to a list, or one a variable holds")

    def _partners_unseen(self, root: Array, held: set, fresh_floor: int,
                         partners=None) -> bool:
        """Whether the arrays a runtime `if` left `root` sharing memory with
        on some paths (`y = r * 2; if c: y = -y`: the first y; `partners`
        where not all of them) are the iteration's own and nothing else
        reaches them: not appended, not held by a variable the loop carries.
        Then its row is exact."""
        if partners is None:
            if not root.alias_partners:
                return False
            partners = root.alias_partners
        appended = {id(_root(a)) for _, a in self._parts()
                    if isinstance(a, Array) and _root(a) is not root}
        return all(a.serial >= fresh_floor and id(a) not in held and id(a) not in appended
                   for p in partners for a in _chain(p))

    def _kept_or_new(self, v: Array, carrier: str, entries: dict, held: dict,
                     fresh_floor: int) -> bool:
        """Whether the appended `v`, which the variable `carrier` carries
        into the next iteration, is the iteration's own new array on some
        runtime paths and on the others the array `carrier` began it with:
        `if accept: x = xn`, then `samples.append(x)` (a Metropolis chain;
        `v` may also be the root of an appended view, `samples.append(x[0])`).
        NumPy's list then holds one array (or views of one) as the items of
        the iterations that kept it (the first ones maybe the variable's
        array from before the loop), where the buffer's rows are arrays of
        their own: the same values for as long as none of them is updated
        in place, which fill refuses from then on (_watch_repeated).  Updates inside the loop are
        refused as for any carried item (check_carried; the `if` watches the
        array it began with).  Its other partners must be unseen, as for
        _partners_unseen."""
        partners = v.alias_partners or ()
        kept = {id(p) for p in partners if p.base is None and entries.get(id(p)) == carrier}
        others = tuple(p for p in partners if id(p) not in kept)
        if not kept or v.base is not None or v.serial < fresh_floor \
                or not isinstance(v.immutable, bool):
            return False
        return self._partners_unseen(v, held, fresh_floor, others)

    def _iteration(self, pos):
        t = pos
        if self.start:
            t = emit("subtract", t, np.int64(self.start))
        if self.step != 1:
            t = emit("floor_divide", t, np.int64(self.step))
        return t

    def make_buffers(self) -> bool:
        """Buffers for the values that had none (in the region around the
        loop, before the While); whether there were any."""
        made = bool(self.wanted)
        for key, aval in self.wanted.items():
            var = emit("full", shape=(self.trips, *aval.shape), dtype=aval.dtype,
                       value=0).var
            self.buffers[key] = Array(var)
        self.wanted = {}
        return made

    def check_complete(self, runs_every_trip: bool, loc):
        if self.appends and not runs_every_trip:
            raise NotStackable("the loop may end before its last iteration, so how many "
                               "items its list gets is known only at run time", loc)

    def _parts(self):
        """(key, value) for each value the iteration appends, and for each
        leaf of an appended structure (`out.append((loss, acc))`): its own
        buffer."""
        for lid, (_, values) in self.appends.items():
            for j, v in enumerate(values):
                yield from _leaves((lid, j), v)

    def _item(self, interp, key, v, t):
        """Row t of what the trial appended as `v` (under `key`)."""
        if _is_structure(v):
            return _rebuilt(interp, v, [self._item(interp, (*key, k), part, t)
                                        for k, part in _children(v)])
        if isinstance(v, Block):
            flat = self._flattened(key)
            return [_row(flat, t * v.count + k, v.like) for k in range(v.count)]
        if self.statics.get(key) is _COUNTER:
            return self.start + t * self.step       # (a Python int, as the unrolled loop's)
        if key in self.rows_of:
            from ..ops import indexing
            return indexing.row(self.rows_of[key], self.start + t * self.step)
        if not isinstance(v, Array) or key in self.carried and t == self.trips - 1 \
                or key in self.entering and t == 0:
            return self.statics[key]
        item = _row(self.buffers[key], t, v)
        if v.held_int is not None:
            flags = self.buffers[_held_key(key)]
            item.held_int = _row(flags, t, _held_flag(v)).var
            item.held_type = v.held_type
        if v.held_bool is not None:
            item.held_bool = _row(self.buffers[_held_bool_key(key)], t, _held_bool_flag(v)).var
        return item

    def _flattened(self, key) -> Array:
        """The buffer of Blocks under `key`, (trips, count, ...), as the
        (trips * count, ...) rows the list gets: rows of a major axis, as
        any buffer's (XLA:CPU makes each [t, k] item a kernel of its own:
        4 s for 400)."""
        flat = self.flat_blocks.get(key)
        if flat is None:
            buf = self.buffers[key]
            flat = self.flat_blocks[key] = Array(emit(
                "reshape", buf, shape=(buf.shape[0] * buf.shape[1], *buf.shape[2:])).var)
        return flat

    def fill(self, interp, final_leaves, first_leaves):
        """After the While: the lists get the appended items, row by row;
        the last of a carried array is the variable's final array itself
        (`final_leaves`: the state after the loop), which reads as the
        buffer's last row for as long as nothing writes into it; the first of
        an array a variable entered an iteration with is the variable's
        array from before the loop (`first_leaves`: the state then)."""
        finals, firsts = dict(final_leaves), dict(first_leaves)
        self.rows_of = {key: firsts[p] if type(p) is str else p for key, p in self.rows_of.items()}
        for ends, paths, t in ((finals, self.carried, self.trips - 1), (firsts, self.entering, 0)):
            for key, path in paths.items():
                item = self.statics[key] = ends[path]
                ctx().stacked_rows[id(item.var)] = (item.var, self.buffers[key].var, t)
        enclosing = _enclosing(self)
        for lid, (lst, values) in self.appends.items():
            if self._as_block(interp, lid, lst, values, enclosing):
                continue
            repeated = [j for j in range(len(values)) if (lid, j) in self.repeated]
            items = []
            for t in range(self.trips):
                for j, v in enumerate(values):
                    if (lid, j) in self.guards and not self.guards[(lid, j)][t]:
                        continue
                    item = self._item(interp, (lid, j), v, t)
                    items.extend(item if isinstance(v, Block) else [item])
                    if j in repeated:
                        _watch_repeated(item, self.repeated[(lid, j)], (lid, j) in self.carried)
            for j in repeated:      # (the list's last item, and maybe its first ones)
                path, whole = self.repeated[(lid, j)], (lid, j) in self.carried
                _watch_repeated(finals[path], path, whole, last=True)
                _watch_repeated(firsts[path], path, whole)
            if lid in self.fronts:      # insert(0, v) at each iteration: the last first
                interp.check_mutation(lst, "a list")
                lst[:0] = items[::-1]
                interp.prepended.add(lid)
                continue
            named = lid in self.named or lid in self.outside
            for item in items:          # (an enclosing counted loop may stack them)
                if enclosing is not None and enclosing.record(interp, lst, item, named):
                    continue
                if lid in self.outside:
                    appends.record(interp, lst, "append", (item,), {})
                else:
                    interp.check_mutation(lst, "a comprehension's result")
                    lst.append(item)

    def _as_block(self, interp, lid, lst, values, enclosing) -> bool:
        """Inside the body of an enclosing counted loop that stacks this
        list's items too (a second epoch's `for b in batches:
        losses.append(...)` in a While over the epochs): the one value each
        iteration appended, from a buffer, goes to the enclosing loop as
        that whole buffer (a Block: a row of the enclosing loop's buffer),
        not one value per row (hundreds of buffers it would carry).
        Whether it went."""
        key = (lid, 0)
        if enclosing is None or len(values) != 1 or not isinstance(values[0], Array) \
                or values[0].held_int is not None \
                or key not in self.buffers or any(key in d for d in (
                    self.statics, self.rows_of, self.carried, self.entering, self.guards)):
            return False
        block = Block(Array(self.buffers[key].var), values[0], self.trips)
        return enclosing.record(interp, lst, block, lid in self.named or lid in self.outside)


@dataclass(frozen=True, eq=False)
class Block:
    """The `count` items one list got from a counted loop's buffer (their
    type: `like`'s), appended as one value to an enclosing loop's list."""
    buffer: Array
    like: Array
    count: int


def _watch_repeated(item, path: str, whole: bool, last: bool = False) -> None:
    """Refuses in-place updates of an item the repeated append left (see
    _kept_or_new), the array `path` held (`whole`) or a view of it; with
    `last`, of the array `path` names after the loop (the list's last item,
    or what it views)."""
    from .control import watch
    if not isinstance(item, Array):
        return
    note = _repeated_note(path, whole, last)
    if last and item.alias_note is not None:
        # (over the loop's own note on the variable, whose hint, a copy of
        # it, would leave the list's last item shared; the loop set that
        # one outside any watch scope as well)
        item.alias_note = note
    else:
        watch(item, note)


def _repeated_note(path: str, whole: bool, last: bool) -> AliasNote:
    what, items, copy = (
        (f"the array `{path}` held", "one array", f"a copy (`.append({path}.copy())`)")
        if whole else
        (f"a view of the array `{path}` held", "views of one array",
         f"a copy of the view (`.append({path}[0].copy())` for `{path}[0]`)"))
    after = "" if not last else f" (after the loop `{path}` is the list's last item)" \
        if whole else f" (after the loop the list's last item is a view of `{path}`)"
    variable = f"; `{path} = {path}.copy()` before updating `{path}`" if last else ""
    return AliasNote(
        f"a loop appended {what}, which a runtime `if` left unchanged on some iterations: the "
        f"list's items of those iterations are {items} in NumPy, separate ones in compiled "
        f"code, which would not follow this update{after}",
        hint=f"append {copy}, or update a copy of the item (`y = item.copy()`{variable})")


def _unheld_new_array(interp, v: Array) -> bool:
    """Whether `v` is an array made in the current runtime region (a
    branch) that no variable or stack slot of the compiled frames holds,
    nor a view of it (privacy.holder_counts)."""
    from .privacy import holder_counts
    if v.immutable is not False or v.frozen is not None or v.serial < ctx().serial_floor[-1]:
        return False
    counts = holder_counts([x for f in interp.frames for x in (dict(f.locals), list(f.stack))])
    return counts is not None and counts.get(id(v), 0) == 0


def _is_structure(v) -> bool:
    """A tuple, named tuple, list or dict (not a subclass with behaviour of
    its own, which rebuilding would lose)."""
    return type(v) in (tuple, list, dict) or isinstance(v, tuple) and hasattr(type(v), "_fields")


def _children(v):
    return v.items() if type(v) is dict else enumerate(v)


def _leaves(key, v):
    if not _is_structure(v):
        yield key, v
        return
    for k, part in _children(v):
        yield from _leaves((*key, k), part)


def _containers(v):
    """The structures `v` is or holds (itself first)."""
    if _is_structure(v):
        yield v
        for _, part in _children(v):
            yield from _containers(part)


def _rebuilt(interp, like, items):
    """A structure of the type of `like` holding `items`, a new object."""
    if type(like) is dict:
        return interp.fresh(dict(zip(like.keys(), items)))
    if type(like) is list:
        return interp.fresh(items)
    return tuple(items) if type(like) is tuple else type(like)(*items)


def _reachable(roots, made) -> set:
    """ids of the containers reachable from `roots`: through lists, tuples,
    dicts and sets, and the attributes of objects compiled code made."""
    seen, work = set(), list(roots)
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        if isinstance(v, (list, tuple, set, frozenset)):
            seen.add(id(v))
            work.extend(v)
        elif isinstance(v, dict):
            seen.add(id(v))
            work.extend(dict.values(v))
        elif id(v) in made and hasattr(v, "__dict__"):
            seen.add(id(v))
            work.extend(vars(v).values())
    return seen


def _sole_carrier(v: Array, held: dict, leaves) -> str | None:
    """The path of the one variable that carries the array `v` itself (not
    a view of it) into the next iteration, when nothing else there holds it
    or a view of it; else None (and for a number, which has no identity
    a write could show)."""
    paths = held.get(id(v), ())
    if v.immutable is True or v.base is not None or len(paths) != 1 or paths[0].startswith("<stack"):
        return None
    return paths[0] if any(p == paths[0] and x is v for p, x in leaves) else None


def _viewed_carrier(v: Array, held: dict, leaves, fresh_floor: int) -> str | None:
    """For `v` a view the iteration made (`x[0]`) of an array one variable
    carries (as _sole_carrier), that variable's path, where no variable
    carries the view itself; else None."""
    chain = _chain(v)
    if len(chain) == 1 or any(id(a) in held or a.serial < fresh_floor for a in chain[:-1]):
        return None
    return _sole_carrier(chain[-1], held, leaves)


def _counter_row(v: Array, pos, fresh_floor: int) -> bool:
    """Whether `v` is the view of row `pos` (the loop's counter) of an array
    from before the loop (one the loop carries must not change in it:
    check_carried)."""
    base = v.base
    return (base is not None and base.base is None and isinstance(pos, Array)
            and v.index == (pos.var,) and base.serial < fresh_floor)


def _chain(v: Array) -> list:
    """v, then the arrays it is a view of, out to the root."""
    chain = [v]
    while chain[-1].base is not None:
        chain.append(chain[-1].base)
    return chain


def _root(v: Array) -> Array:
    while v.base is not None:
        v = v.base
    return v


def _from_counter_only(values, ops, counter) -> bool:
    """Whether `values` are computed by `ops` from `counter` and constants
    only (not from a parameter of the body, or a value from outside it)."""
    made = {id(out): op for op in ops for out in op.outputs}
    work, seen = list(values), set()
    while work:
        v = work.pop()
        if id(v) in seen or v is counter:
            continue
        seen.add(id(v))
        op = made.get(id(v))
        if op is None:
            return False
        work.extend(op.reads())
    return True


def _held_key(key) -> tuple:
    """The buffer key of the held-number bools of the values under `key`."""
    return ("held", key)


def _held_bool_key(key) -> tuple:
    """... and of the second bools of those holding a Python bool beside it."""
    return ("held bool", key)


def _held_bool_flag(v) -> Array | None:
    """Where `v` holds a Python bool beside the Python number its bool
    tells: the second bool, true where it does (held_ints.needs_bool_flag)."""
    if isinstance(v, Array) and v.held_bool is not None:
        return Array(v.held_bool)
    return None


def _held_flag(v) -> Array | None:
    """Where `v` is a Python number on some runtime paths and a NumPy
    scalar on others: the bool, true on the first (held_ints.py)."""
    if isinstance(v, Array) and v.held_int is not None:
        return Array(v.held_int)
    return None


def _row(buf: Array, t: int, like: Array) -> Array:
    """Row t of a buffer, with the kind and weak type of the appended value."""
    from ..ops import indexing
    static, _ = indexing.normalize_key((t,), buf.shape)
    # (its type is known: no abstract evaluation, which jax would redo per row)
    (var,) = emit_op("getitem", (buf.var,), {"key": static},
                     (AVal(buf.dtype, buf.shape[1:], False),))
    if like.aval.weak:
        (var,) = emit_op("convert", (var,), {"dtype": var.aval.dtype},
                         (AVal(var.aval.dtype, var.aval.shape, True),))
    item = Array(var)
    item.immutable = like.immutable
    ctx().stacked_rows[id(var)] = (var, buf.var, t)
    return item


def whole_buffer(items, dtype=None):
    """The buffer whose rows `items` are, all of them in order (np.stack or
    np.array of a list a counted loop grew), as a new Array; None when they
    are not, or when `dtype` asks for another dtype."""
    rows = ctx().stacked_rows
    if items and isinstance(items[0], Array) and items[0].base is not None:
        return _all_rows_of_one_array(items, dtype)
    if not items or not all(isinstance(a, Array) and a.base is None for a in items):
        return None
    found = [rows.get(id(a.var)) for a in items]
    if any(f is None or f[0] is not a.var for f, a in zip(found, items)):
        return None
    buf = found[0][1]
    if any(f[1] is not buf for f in found):
        return None
    if dtype is not None and np.dtype(dtype) != buf.aval.dtype:
        return None
    rows = [f[2] for f in found]
    if rows == list(range(buf.aval.shape[0])):
        return Array(buf)
    from ..ops import indexing      # (some rows, or out of order: one slice or take)
    return Array(indexing.getitem(Array(buf), _rows_key(rows)).var)


def interleaved_width(items) -> int | None:
    """k (2 or more) where `items` are rows of k buffers in turn, B_0[0],
    B_1[0], ..., B_0[1], ... (a counted loop that appended k values per
    iteration, `out.extend([a, -a])`), judged from the first item; else None."""
    first = items[0] if items and isinstance(items[0], Array) else None
    found = ctx().stacked_rows.get(id(first.var)) if first is not None else None
    if found is None or found[0] is not first.var or found[2] != 0:
        return None
    n = found[1].aval.shape[0]
    return len(items) // n if n and len(items) % n == 0 and len(items) // n >= 2 else None


@dataclass(frozen=True)
class Run:
    """Rows start, start + step, ... (count of them) of a buffer (an IR
    Value): a stretch of a list's items (`buffer_runs`), in order or
    sliced (`hs[::-1]`, `hs[::2]`)."""
    buffer: object
    start: int
    count: int
    step: int = 1

    def rows(self) -> slice:
        stop = self.start + self.count * self.step
        return slice(self.start, stop if stop >= 0 else None, self.step)


def buffer_runs(items, dtype=None) -> list | None:
    """`items` (a list's, to be stacked) with each stretch of two or more
    consecutive rows of one buffer a counted loop filled as a Run: a
    trajectory that starts with the state from before its loop (`traj =
    [x]`), losses over several epochs (a buffer each, and the items a
    list loop's last iteration appended between them).  None when there
    is no such stretch, or `dtype` asks for another dtype than a buffer's."""
    rows = ctx().stacked_rows
    found = [rows.get(id(a.var)) if isinstance(a, Array) and a.base is None else None
             for a in items]
    found = [f if f is not None and f[0] is a.var else None for f, a in zip(found, items)]
    pieces, i = [], 0
    while i < len(items):
        j = i + 1
        step = found[j][2] - found[i][2] if j < len(items) and None not in (
            found[i], found[j]) else 0
        while step and j < len(items) and found[j] is not None \
                and found[j][1] is found[i][1] and found[j][2] == found[i][2] + (j - i) * step:
            j += 1
        if j - i >= 2:
            pieces.append(Run(found[i][1], found[i][2], j - i, step))
        else:
            pieces.append(items[i])
        i = j
    runs = [p for p in pieces if isinstance(p, Run)]
    if not runs or dtype is not None and any(r.buffer.aval.dtype != np.dtype(dtype)
                                             for r in runs):
        return None
    return pieces


def buffer_then_rest(items, dtype=None):
    """(The buffer whose rows, all of them in order, begin `items`, as a new
    Array; the items after them) for a list a counted loop grew and then
    one more item (the last iteration of a loop over a list, unrolled after
    its While: list_loops); else None."""
    first = items[0] if items and isinstance(items[0], Array) else None
    found = ctx().stacked_rows.get(id(first.var)) if first is not None else None
    if found is None or found[0] is not first.var:
        return None
    n = found[1].aval.shape[0]
    whole = whole_buffer(items[:n], dtype) if len(items) > n else None
    return None if whole is None else (whole, items[n:])


def _all_rows_of_one_array(items, dtype):
    """The array whose rows `items` are views of, at static positions, as a
    new Array: the array itself for all its rows in order (`list(x)`, a
    loop's `r` of `for r in x`), one strided slice for rows at even steps
    (`reversed(x)`, `itertools.islice(x, 0, None, 2)`), one take for any
    others (`itertools.compress(x, mask)`); or None.  Not one slice per
    row, concatenated: 200 of them were 7 s of XLA."""
    base = items[0].base
    if base.base is not None or base.ndim == 0 or not isinstance(base.shape[0], int):
        return None
    n = base.shape[0]
    if any(not isinstance(a, Array) or a.base is not base or type(a.index) is not tuple
           or len(a.index) != 1 or type(a.index[0]) is not int or not 0 <= a.index[0] < n
           for a in items):
        return None
    if dtype is not None and np.dtype(dtype) != base.dtype:
        return None
    rows = [a.index[0] for a in items]
    if rows == list(range(n)):
        return Array(base.var)
    from ..ops import indexing
    return Array(indexing.getitem(base, _rows_key(rows)).var)


def _rows_key(rows: list):
    """x[key] gives x's `rows`, in order: a slice where they step evenly."""
    step = rows[1] - rows[0] if len(rows) > 1 else 1
    if step and all(b - a == step for a, b in zip(rows, rows[1:])):
        stop = rows[-1] + step
        return slice(rows[0], stop if stop >= 0 else None, step)
    return np.array(rows, dtype=np.int64)


@contextlib.contextmanager
def growing(start: int, step: int, trips: int):
    """A counted loop's Growth, current while its While is being built."""
    g = Growth(start, step, trips)
    ctx().growths.append(g)
    try:
        yield g
    finally:
        ctx().growths.pop()


def deferrable_lists(frame, header) -> list:
    """The lists the loop at `header` can only append to: held by a local
    that nothing but `name.append(v)` uses from the list's making to the
    loop's end, or in a dict, tuple or list of new empty lists that nothing but
    `name[k].append(v)` uses (frontend.cfg.only_appended_in_loop)."""
    found = []
    for name, v in frame.locals.items():
        if type(v) is list and only_appended_in_loop(frame.fc, header, name,
                                                     frame.globals.get("list", list) is list):
            found.append(v)
        elif type(v) in (dict, tuple, list) and v:
            lists = list(v.values() if type(v) is dict else v)
            if all(type(x) is list for x in lists) and len({id(x) for x in lists}) == len(lists) \
                    and only_appended_in_loop(frame.fc, header, name, holder=True):
                found.extend(lists)
    return found


@contextlib.contextmanager
def items_set_aside(frame, header):
    """The arrays a list already holds when a counted loop that may grow it
    starts (`losses` in a second epoch of `for ep in range(3): for b in
    batches: losses.append(...)`), set aside while its While is built and
    put back in front of the items the loop appends.  Only for a list the
    loop cannot read (frontend.cfg.only_appended_in_loop: from the list's
    making to the loop's end, only `name.append(v)` uses it): the While
    need not carry the items (hundreds of them, by the later epochs), and
    the list holds nothing else a trial body could see."""
    lists = deferrable_lists(frame, header) + _comprehension_list(frame)
    aside = [(v, list(v)) for v in lists if not all(isinstance(x, _STATIC_ITEMS) for x in v)]
    last_read = [(v, list(v)) for v in last_read_lists(frame, header)]
    for lst, items in aside + last_read:
        lst.clear()
        frame.interp.set_aside.append(items)    # (still holders: privacy.py)
    for lst, items in last_read:
        lst.append(items[-1])           # (the item `lst[-1]` reads: Growth.record)
    try:
        yield
    finally:
        for lst, items in aside:
            if id(lst) in frame.interp.prepended:
                lst.extend(items)       # (the loop's items went in front of them)
            else:
                lst[:0] = items
            frame.interp.set_aside.pop()
        for lst, items in last_read:
            # [the last item carried out of the While (the last row too),
            # the rows Growth.fill appended]: the items before, then the rows
            lst[:] = items + lst[1:]
            frame.interp.set_aside.pop()


def last_read_lists(frame, header) -> list:
    """The lists the loop at `header` appends numbers to and reads only as
    `name[-1]` (frontend.cfg.appended_and_last_read_in_loop), holding
    numbers already (`eq = [start]`): a While carries the last item as a
    variable, and the appended ones go into buffers."""
    return [v for name, v in frame.locals.items()
            if type(v) is list and v and all(map(_is_number, v))
            and appended_and_last_read_in_loop(frame.fc, header, name)
            and not only_appended_in_loop(frame.fc, header, name)]     # (deferrable_lists')


def _is_number(v) -> bool:
    """A Python number or NumPy scalar, static or runtime: no identity that
    an update in place could show (the list's item is a copy in the While)."""
    if isinstance(v, Array):
        return v.immutable is True and not v.shape and v.base is None
    return type(v) in (int, float) or isinstance(v, np.generic) and v.dtype.kind in "biufc"


def _comprehension_list(frame) -> list:
    """The list a comprehension builds, under its iterator on the stack:
    nothing but its LIST_APPEND reaches it.  It holds items already where
    a loop over the runs of alike items (list_loops.alike_run) goes on with
    the next run, after a While filled it with the first."""
    below = frame.stack[-2] if len(frame.stack) >= 2 else None
    return [below] if type(below) is list else []


def current() -> Growth | None:
    growths = ctx().growths
    return growths[-1] if growths else None


def _enclosing(g: Growth) -> Growth | None:
    """The Growth of the counted loop around g's (whose body g's While is
    in), if any."""
    growths = ctx().growths
    i = next(i for i, x in enumerate(growths) if x is g)
    return growths[i - 1] if i else None


def try_record(interp, lst, value, named=False, front=False) -> bool:
    """A comprehension's LIST_APPEND (or, `named`, a call of `lst.append`,
    `front`: of `lst.insert(0, v)`) inside a counted loop's body: recorded
    by the loop's Growth (True), else done as usual (False)."""
    g = current()
    return g is not None and g.depth != () and g.record(interp, lst, value, named, front)


def try_record_items(interp, lst, items) -> bool:
    """`lst.extend(items)` or `lst += items` (items: a list's or tuple's)
    inside a counted loop's body: the appends of its items, all recorded
    by the loop's Growth (True) or none (False: done as usual)."""
    g = current()
    if g is None or g.depth == () or not items \
            or not g.record(interp, lst, items[0], named=True):
        return False
    for v in items[1:]:
        if not g.record(interp, lst, v, named=True):
            raise NotStackable("the loop extends a list by items it cannot all hold in buffers")
    return True
