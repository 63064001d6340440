"""CFG facts for the interpreter: predecessors, loop headers (targets of DFS
back edges) and immediate post-dominators.  All walks use worklists."""
from __future__ import annotations

EXIT = -1   # virtual exit node joining every return / raise


def analyze(fc) -> None:
    succ = {b.index: [s for s in b.successors() if s is not None] for b in fc.blocks}
    preds: dict[int, list[int]] = {b.index: [] for b in fc.blocks}
    for b, ss in succ.items():
        for s in ss:
            preds[s].append(b)
    fc.preds = preds
    # Loops are found with the edges from `try` bodies to their exception
    # handlers too: a loop whose way back to its header runs through an
    # `except` body (a retry loop) is a loop.  Joins of runtime branches
    # (ipdom) are found on the normal edges: an exception never leaves a
    # runtime branch (infer/exceptions.py).
    loop_succ = {b.index: succ[b.index] + sorted(
        {i.handler.block for i in b.instrs if i.handler} - set(succ[b.index]))
        for b in fc.blocks}
    loop_preds: dict[int, list[int]] = {b.index: [] for b in fc.blocks}
    for b, ss in loop_succ.items():
        for s in ss:
            loop_preds[s].append(b)
    handlers = sorted(b for b, ps in loop_preds.items() if len(ps) > len(preds[b]))
    back_edges = _back_edges(loop_succ, [0] + handlers)
    fc.loop_headers = frozenset(h for _, h in back_edges)
    bodies = {h: _loop_body(h, [t for t, hh in back_edges if hh == h], loop_preds)
              for h in fc.loop_headers}
    fc.loop_bodies = {h: frozenset(body) for h, body in bodies.items()}
    fc.loop_exits = {h: frozenset(s for n in body for s in loop_succ[n] if s not in body)
                     for h, body in bodies.items()}
    fc.nesting_loops = frozenset(h for h, body in bodies.items()
                                 if any(o != h and o in body for o in fc.loop_headers))
    fc.past_loops = frozenset(succ) - _reaching(fc.loop_headers, loop_preds)
    fc.ipdom = _post_dominators(succ)
    fc.loop_locs = {h: _loop_loc(fc, h, [t for t, hh in back_edges if hh == h])
                    for h in fc.loop_headers}


# Instructions that read a local variable's binding (DELETE_FAST fails on an
# unbound one; LOAD_FAST_AND_CLEAR saves it for after a 3.12 comprehension).
_READS = frozenset({"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR", "DELETE_FAST"})


def dead_locals(fc, targets) -> frozenset:
    """The local variables that no path from the blocks `targets` (negative
    ones: the function returned) reads before binding them again: at a join
    of runtime paths, or around a runtime loop, their values need not agree
    (a scratch array of each branch's own size).  Cell variables (closures
    read them) never count as dead, nor does the first argument of a method
    whose `super()` reads it."""
    code = fc.code
    dead = set(code.co_varnames) - set(code.co_cellvars)
    if "__class__" in code.co_freevars and code.co_varnames:
        dead.discard(code.co_varnames[0])
    if fc.live_in is None:
        fc.live_in = _liveness(fc)
    for t in targets:
        if t >= 0:
            dead -= fc.live_in[t]
    return frozenset(dead)


def _liveness(fc) -> dict:
    """{block: locals live at its start}, by the usual backward fixpoint.  An
    instruction inside a `try` may jump to its handler before the block's
    later bindings: what the handler reads is live at the block's start."""
    uses, binds = {}, {}
    for b in fc.blocks:
        used, bound = set(), set()
        for ins in b.instrs:
            if ins.op in _READS and ins.arg not in bound:
                used.add(ins.arg)
            elif ins.op == "STORE_FAST":
                bound.add(ins.arg)
        uses[b.index], binds[b.index] = used, bound
    succ = {b.index: [s for s in b.successors() if s is not None] for b in fc.blocks}
    handlers = {b.index: {i.handler.block for i in b.instrs if i.handler} for b in fc.blocks}
    preds: dict = {b.index: set() for b in fc.blocks}
    for b in fc.blocks:
        for s in set(succ[b.index]) | handlers[b.index]:
            preds[s].add(b.index)
    live = {b.index: frozenset() for b in fc.blocks}
    work = [b.index for b in fc.blocks]
    while work:
        n = work.pop()
        out = set().union(*(live[s] for s in succ[n]))
        new = frozenset(uses[n] | (out - binds[n])
                        | set().union(*(live[h] for h in handlers[n])))
        if new != live[n]:
            live[n] = new
            work.extend(preds[n])
    return live


def _reaching(blocks, preds) -> set[int]:
    """The blocks from which some path reaches one of `blocks`."""
    seen, work = set(blocks), list(blocks)
    while work:
        for p in preds[work.pop()]:
            if p not in seen:
                seen.add(p)
                work.append(p)
    return seen


def _loop_loc(fc, header, latches):
    """The `for`/`while` statement of a loop, for messages.  A `for` header
    starts with FOR_ITER at that line; a `while` is compiled with its test
    at the bottom, so its line is on the latch's conditional jump."""
    # An empty header (`while True:` with a `continue`): the body's first line.
    first = next((b.instrs[0] for b in fc.blocks[header:] if b.instrs), None)
    if first is None:
        return None
    if first.op == "FOR_ITER":
        return first.loc
    for latch in sorted(latches, reverse=True):
        instrs = fc.blocks[latch].instrs
        # 3.11: the latch ends in the test's branch; 3.12: in a jump that
        # carries the `while` line.  Either way the line comes before the body.
        if instrs and instrs[-1].op in ("BRANCH", "BRANCH_OR_POP", "JUMP") and \
                instrs[-1].loc.line < first.loc.line:
            return instrs[-1].loc
    return first.loc


def _loop_body(header, latches, preds) -> set[int]:
    """The blocks of the natural loop of `header`."""
    body, work = {header}, list(latches)
    while work:
        n = work.pop()
        if n not in body:
            body.add(n)
            work.extend(preds[n])
    return body


def _back_edges(succ, roots) -> set[tuple[int, int]]:
    """(latch, header) pairs: DFS edges into a node still on the DFS stack."""
    edges, on_stack, done = set(), set(), set()
    for root in roots:
        if root not in done:
            _dfs_back_edges(succ, root, edges, on_stack, done)
    return edges


def _dfs_back_edges(succ, root, edges, on_stack, done) -> None:
    stack = [(root, iter(succ[root]))]
    on_stack.add(root)
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            on_stack.discard(node)
            done.add(node)
        elif nxt in on_stack:
            edges.add((node, nxt))
        elif nxt not in done:
            on_stack.add(nxt)
            stack.append((nxt, iter(succ[nxt])))


def _post_dominators(succ) -> dict[int, int | None]:
    """Cooper-Harvey-Kennedy on the reverse graph, rooted at the virtual exit."""
    rsucc = {n: [] for n in succ}
    rsucc[EXIT] = []
    for n, ss in succ.items():
        if not ss:
            rsucc[EXIT].append(n)
        for s in ss:
            rsucc[s].append(n)
    order = _postorder(EXIT, rsucc)
    rank = {n: i for i, n in enumerate(order)}
    rpreds = {n: [m for m in succ.get(n, [])] if n != EXIT else [] for n in order}
    for n in order:
        if not succ.get(n) and n != EXIT:
            rpreds[n] = [EXIT]
    idom = {EXIT: EXIT}
    changed = True
    while changed:
        changed = False
        for n in reversed(order):
            if n == EXIT:
                continue
            cands = [p for p in rpreds[n] if p in idom]
            if not cands:
                continue
            new = cands[0]
            for p in cands[1:]:
                new = _intersect(p, new, idom, rank)
            if idom.get(n) != new:
                idom[n] = new
                changed = True
    return {n: (None if idom.get(n, EXIT) == EXIT else idom[n]) for n in succ}


def _postorder(root, graph) -> list[int]:
    order, seen, stack = [], {root}, [(root, iter(graph[root]))]
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            order.append(node)
        elif nxt not in seen:
            seen.add(nxt)
            stack.append((nxt, iter(graph[nxt])))
    return order


def _intersect(a, b, idom, rank):
    while a != b:
        while rank[a] < rank[b]:
            a = idom[a]
        while rank[b] < rank[a]:
            b = idom[b]
    return a


def only_appended_in_loop(fc, header: int, name: str, list_is_builtin: bool = True,
                          holder: bool = False) -> bool:
    """Whether the list the local `name` holds when the loop at `header`
    starts is one this function made (`name = [...]`, `a, b = [], []`, or
    `name = list()` where `list_is_builtin`: the global name is not
    rebound), which no code reads from there to the loop's end except as
    `name.append(v)` (or `.extend(vs)`, `+= [...]`): no other name, object or
    call can reach it while the
    loop runs, so the loop may defer its appends (infer/stacking.py).  Not
    for a variable a closure reads.  `holder`: the same for the lists of a
    dict, tuple or list display of empty lists (`hist = {"loss": [], "acc":
    []}`, `log = ([], [])`, `cols = [[], []]`), used only as
    `name[k].append(v)` (k a constant)."""
    key = (header, name, holder)
    if key not in fc.appended_only:
        fc.appended_only[key] = _only_appended(fc, header, name, holder)
    found = fc.appended_only[key]
    return found is True or (found == "list()" and list_is_builtin)


def appended_and_last_read_in_loop(fc, header: int, name: str) -> bool:
    """As only_appended_in_loop for a list display (`eq = [start]`), but
    the loop may also read the list's last item as `name[-1]`
    (`eq.append(eq[-1] * (1 + r))`: an equity curve), which a While can
    carry as a variable (infer/stacking.py)."""
    key = (header, name, "last")
    if key not in fc.appended_only:
        fc.appended_only[key] = _only_appended(fc, header, name, False, last_read=True)
    return fc.appended_only[key] is True


def _only_appended(fc, header, name, holder, last_read=False):
    """True, False, or "list()" where a binding the loop's entry sees is
    `name = list()` (true if the global `list` is the builtin)."""
    code = fc.code
    if name in code.co_cellvars or name in code.co_freevars:
        return False
    body = fc.loop_bodies[header]
    if any(_scan(fc.blocks[n].instrs, name, holder, last_read) for n in body):
        return False            # read otherwise, rebound or deleted in the loop
    work, seen, answer = [p for p in fc.preds[header] if p not in body], set(), True
    while work:                 # back from the loop's entry to `name = [...]`
        n = work.pop()
        if n in seen:
            continue
        seen.add(n)
        found = _scan(fc.blocks[n].instrs, name, holder)
        if found in ("made", "list()"):
            answer = answer if found == "made" else found
            continue
        if found is not None or n == 0 or not fc.preds[n]:
            return False        # another use, or an argument's (or unbound) value
        work.extend(fc.preds[n])
    return answer


def _stored_list(instrs, i):
    """What the STORE_FAST at i stores, if a new list: "made" for a list
    display (`name = [...]`, and in a multiple assignment `a, b = [], []`,
    `out, k = [], 0`), "list()" for a call of the global `list` without
    arguments; else None."""
    j = _producer(instrs, i)
    if j is None:
        return None
    if instrs[j].op == "BUILD_LIST":
        return "made"
    if instrs[j].op == "CALL" and instrs[j].arg == (0, ()) and j >= 1 \
            and instrs[j - 1].op == "LOAD_GLOBAL" and instrs[j - 1].arg == (True, "list"):
        return "list()"
    return None


def _producer(instrs, i):
    """The index of the instruction that pushed the value the STORE_FAST at
    i stores, found back through the stores and swaps of a multiple
    assignment (CPython orders them as it likes: `out, k = [], 0` stores
    `k` first) and the instructions that pushed the other values; None
    where an instruction on the way has a stack effect not known here."""
    s = i
    while s > 0 and instrs[s - 1].op in ("STORE_FAST", "SWAP"):
        s -= 1
    slots = list(range(i - s + 8, -1, -1))     # depths below the stores' top, top last
    for ins in instrs[s:i]:
        if ins.op == "SWAP":
            if ins.arg > len(slots):
                return None
            slots[-1], slots[-ins.arg] = slots[-ins.arg], slots[-1]
        else:
            slots.pop()
    depth, j = slots[-1], s - 1
    if j >= 1 and instrs[j].op == "UNPACK_SEQUENCE" and instrs[j - 1].op == "BUILD_TUPLE" \
            and instrs[j].arg == instrs[j - 1].arg and depth < instrs[j].arg:
        depth, j = instrs[j].arg - 1 - depth, j - 2    # four names and more: a tuple, unpacked
    return _producer_below(instrs, j, depth)


def _producer_below(instrs, j, depth):
    """The index of the instruction that pushed the value `depth` below the
    top of the stack as it is after instrs[j]; None where unsure."""
    while j >= 0:
        effect = _stack_effect(instrs[j])
        if effect is None:
            return None
        pops, pushes = effect
        if depth < pushes:
            return j if pushes == 1 else None
        depth += pops - pushes
        j -= 1
    return None


def _stack_effect(ins):
    """(values popped, values pushed) of the instructions a right-hand side
    is usually made of; None for others."""
    op, arg = ins.op, ins.arg
    if op in ("LOAD_CONST", "LOAD_FAST", "LOAD_DEREF", "PUSH_NULL"):
        return 0, 1
    if op == "LOAD_GLOBAL":
        return 0, 2 if arg[0] else 1            # (with the NULL below a callable)
    if op == "LOAD_ATTR":
        return 1, 2 if arg[0] else 1            # (a method and its object)
    if op in ("BUILD_LIST", "BUILD_TUPLE", "BUILD_SET"):
        return arg, 1
    if op == "BUILD_MAP":
        return 2 * arg, 1
    if op == "BUILD_CONST_KEY_MAP":
        return arg + 1, 1
    if op in ("BINARY_OP", "BINARY_SUBSCR", "COMPARE_OP", "IS_OP", "CONTAINS_OP"):
        return 2, 1
    if op.startswith("UNARY_"):
        return 1, 1
    if op == "CALL" and not arg[1]:
        return arg[0] + 2, 1
    return None


def _scan(instrs, name, holder=False, last_read=False):
    """Backward over a block: "made" at `name = [...]` ("list()" at `name =
    list()`), "other" at any use of `name` but `name.append(...)`,
    `name.extend(...)`, `name += [...]` (or `name.insert(0, ...)`) or at
    another binding, else None.  `holder`: "made" at a dict, tuple or list
    display of empty lists, and the use allowed is `name[k].append(...)`."""
    extended = set()        # the LOAD_FASTs of `name += [...]`
    for i in range(len(instrs) - 1, -1, -1):
        ins = instrs[i]
        if ins.arg != name:
            continue
        if ins.op == "STORE_FAST":
            if not holder and (k := _extended_in_place(instrs, i)) is not None:
                extended.add(k)
                continue
            made = _stored_holder(instrs, i) if holder else _stored_list(instrs, i)
            return made or "other"
        if ins.op in _READS or ins.op == "DELETE_FAST":
            if i in extended:
                continue
            if last_read and ins.op == "LOAD_FAST" and _reads_last_item(instrs, i + 1):
                continue
            if ins.op != "LOAD_FAST" or not _appends_to(instrs, i + (3 if holder else 1)) \
                    or holder and not _constant_item(instrs, i + 1):
                return "other"
    return None


def _extended_in_place(instrs, i):
    """For the STORE_FAST at i that ends `name += [...]` or `name += (...)`
    (a list extended in place by the items of a display: appends), the
    index of the LOAD_FAST of `name` it began with; else None."""
    j = _producer(instrs, i)
    if j is None or instrs[j].op != "BINARY_OP" or instrs[j].arg != "INPLACE_ADD" \
            or not _sequence_display(instrs[j - 1]):
        return None     # (`out += arr` is NumPy's add, a new array: a read of the list)
    k = _producer_below(instrs, j - 1, 1)
    return k if k is not None and instrs[k].op == "LOAD_FAST" \
        and instrs[k].arg == instrs[i].arg else None


def _reads_last_item(instrs, i) -> bool:
    """Whether instrs[i:] index what is below them by the constant -1."""
    return i + 1 < len(instrs) and instrs[i].op == "LOAD_CONST" and instrs[i].arg == -1 \
        and type(instrs[i].arg) is int and instrs[i + 1].op == "BINARY_SUBSCR"


def _appends_to(instrs, i) -> bool:
    """Whether instrs[i] loads the bound method `append` (or `extend`) of
    what is below it, or `insert` called with the position 0 (`outs.insert(0, h)`: a backward
    RNN's outputs, in order)."""
    if i >= len(instrs) or instrs[i].op != "LOAD_ATTR":
        return False
    return instrs[i].arg in ((True, "append"), (True, "extend")) \
        or instrs[i].arg == (True, "insert") and \
        i + 1 < len(instrs) and instrs[i + 1].op == "LOAD_CONST" and instrs[i + 1].arg == 0 \
        and type(instrs[i + 1].arg) is int


def _constant_item(instrs, i) -> bool:
    """Whether instrs[i:i + 2] take an item at a constant key or index."""
    return i + 1 < len(instrs) and instrs[i].op == "LOAD_CONST" \
        and type(instrs[i].arg) in (str, int) and instrs[i + 1].op == "BINARY_SUBSCR"


def _stored_holder(instrs, i):
    """"made" when the STORE_FAST at i stores a dict, tuple or list display
    of n empty lists: `{"a": [], "b": []}` (BUILD_CONST_KEY_MAP, or BUILD_MAP
    of constant keys), `([], [])` or `[[], []]`; else None."""
    build = instrs[i - 1] if i > 0 else None
    if build is None or build.op not in ("BUILD_CONST_KEY_MAP", "BUILD_MAP", "BUILD_TUPLE",
                                         "BUILD_LIST") \
            or not build.arg:
        return None
    n = build.arg
    if build.op == "BUILD_MAP":
        parts = instrs[i - 1 - 2 * n:i - 1]
        ok = len(parts) == 2 * n and all(
            k.op == "LOAD_CONST" and type(k.arg) in (str, int) and _empty_list(v)
            for k, v in zip(parts[::2], parts[1::2]))
    else:
        keys = 1 if build.op == "BUILD_CONST_KEY_MAP" else 0
        parts = instrs[i - 1 - keys - n:i - 1 - keys]
        ok = len(parts) == n and all(map(_empty_list, parts)) and (
            not keys or instrs[i - 2].op == "LOAD_CONST")
    return "made" if ok else None


def _sequence_display(ins) -> bool:
    """Whether `ins` makes a list or tuple display (`[a, b]`, `(a, b)`, or a
    constant tuple)."""
    return ins.op in ("BUILD_LIST", "BUILD_TUPLE") or ins.op == "LOAD_CONST" \
        and type(ins.arg) is tuple


def _empty_list(ins) -> bool:
    return ins.op == "BUILD_LIST" and ins.arg == 0
