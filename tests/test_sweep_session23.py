"""Bugs found by session 23's adversarial sweeps: each program now gives
eager Python's result, or a refusal that names the line and says what to do."""
import collections
import copy
import sys

import numpy as np
import pytest

import tpucc
from conftest import assert_same, check


def _compiled(fn, **options):
    return tpucc.compile(fn, cache=False, **options)


# --- dict subclasses stay themselves: OrderedDict, defaultdict, Counter ------------

def dict_kinds(x):
    d = collections.defaultdict(float)
    d["sum"] += x.sum()
    od = collections.OrderedDict(a=x, b=x * 2)
    od.move_to_end("a")
    return d, od, collections.Counter("aab"), od.copy()


def test_returned_dict_subclasses_keep_their_class_order_and_factory():
    x = np.arange(4.0)
    got = _compiled(dict_kinds)(x)
    assert_same(dict_kinds(x), got)
    assert [type(v) for v in got] == [collections.defaultdict, collections.OrderedDict,
                                      collections.Counter, collections.OrderedDict]
    assert list(got[1]) == ["b", "a"] and list(got[3]) == ["b", "a"]
    got[0]["missing"] += 1.0            # the factory came back too
    assert got[0]["missing"] == 1.0


def test_a_dict_subclass_argument_is_seen_as_itself():
    def f(d):
        return d["w"] * 2 + d["missing"], type(d).__name__, list(d)
    d = collections.defaultdict(lambda: 1.0, w=np.arange(3.0))
    f_c = _compiled(f)
    assert_same(f(d), f_c(d))
    od = collections.OrderedDict(missing=2.0, w=np.arange(3.0))
    od.move_to_end("missing")
    assert_same(f(od), f_c(od))         # another class: another signature
    assert_same(f({"w": np.ones(2), "missing": 0.5}), f_c({"w": np.ones(2), "missing": 0.5}))


# --- copy.copy and copy.deepcopy ----------------------------------------------------

def keep_best(params):
    best = copy.deepcopy(params)        # "snapshot the best weights"
    params["w"] -= 1.0
    return best, params["w"].sum()


def shared_deep_copy(x):
    items = [x, x, {"a": x}, (x, 1)]
    d = copy.deepcopy(items)
    d[0] += 1                           # one copy of x, shared as in the original
    return d, x, copy.copy(x), copy.copy(items)[2] is items[2], copy.copy(3.5)


def test_copy_and_deepcopy_of_arrays_and_containers():
    check(keep_best, {"w": np.ones(3)})
    check(shared_deep_copy, np.arange(3.0))
    od = collections.defaultdict(list, k=[np.ones(2)])
    check(lambda o: copy.deepcopy(o)["k"][0] + 1, od)


def test_deepcopy_of_an_object_holding_arrays_is_refused_at_its_line():
    class P:
        def __init__(self, w):
            self.w = w

    def f(x):
        return copy.deepcopy(P(x)).w
    with pytest.raises(tpucc.TpuccError, match=r"copy.deepcopy\(\) of a P object") as e:
        _compiled(f)(np.ones(2))
    assert e.value.loc.line == f.__code__.co_firstlineno + 1
    assert "copy.copy and copy.deepcopy of arrays" in e.value.hint


# --- where runtime paths meet without a user instruction: the location -----------

def test_a_return_value_merge_refusal_names_the_line():
    def first_positive(x):
        for i in range(x.shape[0]):
            if x[i] > 0:
                return x[i]
        return None
    with pytest.raises(tpucc.TpuccError, match="E300") as e:
        _compiled(first_positive)(np.array([-1.0, 2.0]))
    assert e.value.loc is not None and e.value.loc.file == __file__
    assert "gives None" in e.value.hint


# --- print: program order, and each value as eager Python prints it ----------------

def report(x):
    for i in range(2):
        print("epoch", i)
        print("  loss", x[i], float(x[i]), x[i:], 2 * x.sum())
    k = 0
    while x.sum() < 20:                 # a runtime loop
        print("doubling", k)
        x = x * 2
        k += 1
    print("done")
    return x


def test_prints_keep_program_order_and_eager_digits(capsys):
    x = np.array([1.1, 2.2], np.float32)
    report(x.copy())
    want = capsys.readouterr().out
    compiled = _compiled(report)
    for _ in range(2):                  # at every call, compiling or not
        compiled(x.copy())
        assert capsys.readouterr().out == want
    assert "loss 1.1 1.100000023841858 [1.1 2.2] 6.6000004" in want


# --- Python and NumPy scalar kinds through sorted() and operator.itemgetter --------

def test_sorted_python_numbers_stay_python_numbers():
    import statistics
    check(lambda x: (sorted(x.tolist()), sorted(x.tolist(), reverse=True)[0] + 1,
                     statistics.median([float(v) for v in x])), np.array([1.0, 4.0, 2.0]))


def test_itemgetter_of_an_array_gives_numpy_scalars():
    import operator
    check(lambda x, rows: (operator.itemgetter(1)(x), operator.itemgetter(0, 2)(x),
                           operator.itemgetter(1)(rows)),
          np.array([1.0, 4.0, 2.0]), [np.zeros(()), np.ones(())])


# --- an iterator is one object: a variable holding it continues where a loop left it

def iterators_kept(x):
    import heapq
    import itertools
    rows = iter([1.0, 4.0, 2.0, 3.0])
    for r in rows:
        if r > 3:                       # a static break
            break
    rest = [r for r in rows]
    pairs = list(zip(*[iter([1, 2, 3, 4])] * 2))
    gen = (v * 2 for v in [1, 2, 3])
    first = [v for _, v in zip(range(1), gen)]
    it = iter(x)
    head = [v for _, v in zip(range(2), it)]
    groups = [(k, len(list(g))) for k, g in itertools.groupby("aaba")]
    return (rest, pairs, heapq.nsmallest(2, [5, 1, 4, 2]), first, list(gen), head, list(it),
            list(it), groups, list(itertools.starmap(lambda p, q: p * q, zip([1, 2], [3, 4]))),
            list(zip(itertools.count(1), "ab")))


def test_iterators_are_shared_and_native_ones_read_lazily():
    check(iterators_kept, np.arange(5.0))


def test_an_iterator_left_by_a_runtime_break_is_refused_where_it_is_read_again():
    def f(x):
        rows = iter(x)
        for r in rows:
            if r > 3:
                break
        return np.array([r for r in rows])
    with pytest.raises(tpucc.TpuccError, match="advanced under a runtime condition") as e:
        _compiled(f)(np.array([1.0, 4.0, 2.0]))
    assert e.value.loc.line == f.__code__.co_firstlineno + 5


def test_an_endless_iterator_is_a_limit_not_a_hang():
    import itertools

    def f(x):
        return x * len(list(itertools.count()))
    with pytest.raises(tpucc.TpuccError, match="an endless one"):
        _compiled(f)(np.ones(2))
