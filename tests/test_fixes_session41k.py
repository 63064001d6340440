"""Session 41k's fixes: iterators take their items when consumed, not when
made (held iterators over containers, map/filter/zip/enumerate, itertools
over a shared iterator), each checked against eager NumPy; a generator made
in a loop that reads the loop variable is refused (E500)."""
import itertools

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at


def _compiled_check(fn, *args):
    return check(fn, *args, compile_kwargs={"cache": False})


# --- bug_01: a generator made in a loop reads the loop variable --------------------------------

def _gens_in_comprehension(x):
    gens = [(v * k for v in x) for k in range(3)]
    return [float(sum(g)) for g in gens]


def _gens_in_for_loop(x):
    gens = []
    for k in range(3):
        gens.append(v * k for v in x)
    return [float(sum(g)) for g in gens]


def _generator_function_in_loop(x):
    gens = []
    for k in range(2):
        def g():
            for v in x:
                yield v * k
        gens.append(g())
    return [float(sum(g)) for g in gens]


def _consumed_in_its_iteration(x):
    total = 0.0
    for k in range(3):
        total += sum(v * k for v in x)
    return total


def _maps_in_comprehension(x):
    ms = [map(lambda v: v * k, x) for k in range(3)]
    return [float(sum(m)) for m in ms]


def test_generator_made_in_loop_reading_loop_variable_refused():
    x = np.arange(3.0)
    raises_at(_gens_in_comprehension, (x,), tpucc.SideEffectError, match="rebinding `k`",
              line_of="for k in range(3)", cache=False)
    raises_at(_gens_in_for_loop, (x,), tpucc.SideEffectError, match="rebinding `k`",
              line_of="for k in range(3)", cache=False)
    raises_at(_generator_function_in_loop, (x,), tpucc.SideEffectError,
              match="rebinding `k`", line_of="for k in range(2)", cache=False)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_generator_consumed_in_its_iteration_still_compiles(dtype):
    _compiled_check(_consumed_in_its_iteration, np.arange(4).astype(dtype))


def test_map_made_in_loop_reads_loop_variable_when_consumed():
    _compiled_check(_maps_in_comprehension, np.arange(3.0))


# --- bug_03: map() / filter() call their function when consumed --------------------------------

def _map_rebound(x):
    k = 1
    m = map(lambda v: v * k, x)
    k = 10
    return [float(v) for v in m]


def _filter_rebound(x):
    t = 0
    idx = filter(lambda i: i > t, range(4))
    t = 2
    return [float(x[i]) for i in idx]


def _map_appended(x):
    lst = [x[0], x[1]]
    m = map(lambda v: v + 1, lst)
    lst.append(x[2])
    return len(list(m)), [v for v in m]


def _map_two_lists_summed(x):
    a, b = [x[0], x[1]], [x[2], x[3]]
    m = map(lambda p, q: p * q, a, b)
    a[1] = x[3]
    return sum(m)


def _filter_none(x):
    lst = [0, 1, 2]
    kept = filter(None, lst)
    lst[0] = 5
    return [x[i % 4] for i in kept]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_map_filter_lazy(dtype):
    x = np.arange(1, 5).astype(dtype)
    for fn in (_map_rebound, _filter_rebound, _map_appended, _map_two_lists_summed,
               _filter_none):
        _compiled_check(fn, x)


# --- bug_04: a held iterator reads each item when it gets there --------------------------------

def _iter_list_then_rebind(x):
    lst = [x[0], x[1], x[2]]
    it = iter(lst)
    lst[2] = x[2] * 9
    return list(it)


def _next_after_rebind(x):
    lst = [x[0], x[1], x[2]]
    it = iter(lst)
    lst[1] = x[2] * 9
    return next(it), next(it)


def _dict_values_after_rebind(x):
    d = {"a": x[0], "b": x[1]}
    it = iter(d.values())
    d["b"] = x[0] - 5
    return list(it)


def _dict_items_after_rebind(x):
    d = {"a": x[0], "b": x[1]}
    it = iter(d.items())
    d["a"] = x[1] * 3
    return [(k, v) for k, v in it]


def _held_zip_over_written_array(x):
    pairs = zip(x, range(3))
    x[2] = 50
    return [p * q for p, q in pairs]


def _consumers_after_rebind(x):
    lst = [x[0], x[1], x[2]]
    its = [iter(lst) for _ in range(4)]
    lst[0] = x[2] + 7
    return sum(its[0]), max(its[1]), sorted(its[2]), tuple(its[3])


def _reversed_after_rebind(x):
    lst = [x[0], x[1], x[2]]
    it = reversed(lst)
    lst[0] = x[2] * 4
    return list(it)


def _enumerate_after_rebind(x):
    lst = [x[0], x[1], x[2]]
    it = enumerate(lst)
    lst[1] = x[0] - 1
    return list(it)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_held_iterators_read_items_when_consumed(dtype):
    x = np.arange(3).astype(dtype)
    for fn in (_iter_list_then_rebind, _next_after_rebind, _dict_values_after_rebind,
               _dict_items_after_rebind, _held_zip_over_written_array,
               _consumers_after_rebind, _reversed_after_rebind, _enumerate_after_rebind):
        _compiled_check(fn, x.copy())


# --- bug_10: itertools and builtins take only what they need from a shared iterator ------------

def _islice_head_rest(x):
    it = iter(x)
    head = list(itertools.islice(it, 2))
    return len(head), len(list(it)), head


def _takewhile_rest(x):
    it = iter([1, 2, 5, 3, 4])
    small = list(itertools.takewhile(lambda v: v < 4, it))
    return small, list(it)


def _next_of_islice(x):
    it = iter(x)
    first = next(itertools.islice(it, 2))
    return first, next(it)


def _enumerate_next(x):
    it = iter(x)
    e = enumerate(it)
    first = next(e)
    return first, len(list(it))


def _zip_it_it(x):
    it = iter(x)
    z = zip(it, it)
    first = next(z)
    return first, list(it)


def _chain_next(x):
    it = iter(x)
    c = itertools.chain(it, [x[0]])
    a = next(c)
    return a, list(it)


def _map_next(x):
    it = iter(x)
    m = map(lambda v: v * 2, it)
    a = next(m)
    return a, list(it)


def _pairwise_next(x):
    it = iter(x)
    p = itertools.pairwise(it)
    a = next(p)
    return a, list(it)


def _compress_rest(x):
    it = iter(x)
    kept = list(itertools.compress(it, [1, 0, 1]))
    return kept, list(it)


def _islice_of_generator(x):
    gen = (v * 2 for v in x)
    head = list(itertools.islice(gen, 3))
    return head, list(gen)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32])
def test_shared_iterator_keeps_its_rest(dtype):
    x = np.arange(5).astype(dtype)
    for fn in (_islice_head_rest, _takewhile_rest, _next_of_islice, _enumerate_next,
               _zip_it_it, _chain_next, _map_next, _pairwise_next, _compress_rest,
               _islice_of_generator):
        _compiled_check(fn, x)


def _advanced_in_both_branches(x):
    m = map(lambda v: v * 2, x)
    if x.sum() > 3:
        a = next(m)
    else:
        a = next(m) + 1
    return a, list(m)


def test_lazy_iterator_advanced_under_runtime_condition_refused():
    raises_at(_advanced_in_both_branches, (np.arange(4.0),), tpucc.TpuccError,
              match="advanced under a runtime condition", cache=False)


# --- bug_02: a generator's reads changed before it is consumed are refused ---------------------

class _Cfg:
    s = 1.0


def _dict_item_changed(x):
    cfg = {"s": 1.0}
    g = (v * cfg["s"] for v in x)
    cfg["s"] = 5.0
    return [float(v) for v in g]


def _attribute_changed(x):
    c = _Cfg()
    g = (v * c.s for v in x)
    c.s = 5.0
    return [float(v) for v in g]


def _list_appended(x):
    ws = [1.0, 2.0]
    g = (v * w for v in x for w in ws)
    ws.append(3.0)
    return len(list(g))


def _list_item_changed_between_nexts(x):
    ws = [x[0], x[1]]
    g = (w * 2 for w in ws)
    a = next(g)
    ws[1] = x[2]
    return a, next(g)


def test_generator_reads_changed_before_consumed_refused():
    x = np.arange(3.0)
    raises_at(_dict_item_changed, (x,), tpucc.SideEffectError,
              match=r"the item \['s'\] of a dict that a generator made at line",
              line_of="return [float(v) for v in g]", cache=False)
    raises_at(_attribute_changed, (x,), tpucc.SideEffectError,
              match=r"the attribute `\.s` of a _Cfg", line_of="return [float(v) for v in g]",
              cache=False)
    raises_at(_list_appended, (x,), tpucc.SideEffectError, match="a list that a generator",
              line_of="return len(list(g))", cache=False)
    raises_at(_list_item_changed_between_nexts, (x,), tpucc.SideEffectError,
              match="a list that a generator", line_of="return a, next(g)", cache=False)


def _reads_unchanged(x):
    cfg = {"s": 2.0}
    c = _Cfg()
    g = (v * cfg["s"] * c.s for v in x)
    cfg["t"] = 1.0          # another key: the generator's items are the same
    return sum(g)


def _changed_after_consumed(x):
    cfg = {"s": 2.0}
    total = sum(v * cfg["s"] for v in x)
    cfg["s"] = 3.0
    return total, cfg["s"]


def _reads_what_it_changes(x):
    cnt = [0]

    def bump(v):
        cnt[0] += 1
        return v * cnt[0]
    return list(bump(v) for v in x), cnt[0]


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_generator_reads_unchanged_still_compile(dtype):
    x = np.arange(4).astype(dtype)
    for fn in (_reads_unchanged, _changed_after_consumed, _reads_what_it_changes):
        _compiled_check(fn, x)


# --- bug_08: a generator's changes for items never asked for are refused -----------------------

def _islice_of_writing_generator(x):
    def g():
        for i in range(len(x)):
            x[i] *= 10
            yield x[i]
    return [int(v) for v in itertools.islice(g(), 2)]


def _any_counting(x):
    cnt = [0]

    def chk(v):
        cnt[0] += 1
        return v > 1
    return any(chk(v) for v in [1, 2, 3, 4]), cnt[0]


def _break_after_first(x):
    def g():
        for i in range(len(x)):
            x[i] += 1
            yield x[i]
    for v in g():
        break
    return x


def _next_of_appending(x):
    seen = []

    def g():
        for v in x:
            seen.append(v)
            yield v
    return next(g()), len(seen)


def test_generator_effects_for_items_not_taken_refused():
    x = np.arange(1, 5)
    raises_at(_islice_of_writing_generator, (x.copy(),), tpucc.SideEffectError,
              match="after yielding 3 item.s. was consumed only 2", line_of="islice(g(), 2)",
              cache=False)
    raises_at(_any_counting, (x,), tpucc.SideEffectError, match="changes outside state",
              line_of="return any(", cache=False)
    raises_at(_break_after_first, (x.copy(),), tpucc.SideEffectError,
              match="consumed only 1", line_of="for v in g()", cache=False)
    raises_at(_next_of_appending, (x,), tpucc.SideEffectError,
              match="changes outside state", line_of="return next(g())", cache=False)


def _all_taken(x):
    def g():
        for i in range(len(x)):
            x[i] *= 10
            yield x[i]
    return [int(v) for v in g()], x


def _effects_only_before_the_items_taken(x):
    def g():
        x[0] += 1
        yield x[0]
        yield x[1]
    return next(g())


def _own_buffer(x):
    def batches():
        buf = []
        for v in x:
            buf.append(v)
            if len(buf) == 2:
                yield buf
                buf = []
    b = next(batches())
    return b[0] + b[1]


def _any_decided_at_the_end(x):
    cnt = [0]

    def chk(v):
        cnt[0] += 1
        return v > 10
    return any(chk(v) for v in [1, 2, 3, 4]), cnt[0]


@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_generator_effects_all_taken_still_compile(dtype):
    x = np.arange(1, 5).astype(dtype)
    for fn in (_all_taken, _effects_only_before_the_items_taken, _own_buffer,
               _any_decided_at_the_end):
        _compiled_check(fn, x.copy())


# --- a held map's exception comes where the loop gets to it ------------------------------------

_TABLE = {"scale": 2.0}


def _map_raising_in_try(x):
    m = map(lambda k: _TABLE[k] * x[0], ["scale", "missing", "scale"])
    out = []
    try:
        for v in m:
            out.append(v)
    except KeyError:
        out.append(x[1])
    return out


def test_held_map_raises_where_consumed():
    _compiled_check(_map_raising_in_try, np.arange(1.0, 4.0))


def _returns_held_map(x):
    return map(abs, x)


def test_returning_native_iterator_refused():
    raises_at(_returns_held_map, (np.arange(3.0),), tpucc.UnsupportedError,
              match="returns a generator or iterator", cache=False)
