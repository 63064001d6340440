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


def test_deepcopy_of_an_object_pickled_its_own_way_holding_arrays_is_refused_at_its_line():
    # (a plain object is copied: tests/test_fixes_session42d3.py)
    class P:
        def __init__(self, w):
            self.w = w

        def __reduce__(self):
            return P, (self.w,)

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


# --- smaller ones: nn edges, Python ints beyond int64, static IndexError, env values

def test_negative_padding_is_refused_in_both_paths():
    from tpucc import nn
    x, w = np.ones((1, 2, 6, 6), np.float32), np.ones((3, 2, 3, 3), np.float32)
    for f in (lambda x: nn.conv2d(x, w, None, padding=-1),
              lambda x: nn.max_pool2d(x, 2, padding=((-1, 0), (0, 0)))):
        with pytest.raises(ValueError, match="padding must not be negative"):
            f(x)
        with pytest.raises(tpucc.TpuccError, match="padding must not be negative"):
            _compiled(f)(x)


def test_a_python_number_bias_keeps_the_convolution_dtype():
    from tpucc import nn
    x, w = np.ones((1, 2, 4, 4), np.float32), np.ones((3, 2, 3, 3), np.float32)
    check(lambda x, w: nn.conv2d(x, w, 0.5), x, w)
    assert nn.conv2d(x, w, 0.5).dtype == np.float32


def test_errors_inside_tpucc_nn_name_the_calling_line():
    from tpucc import nn

    def loss(logits, labels):
        return nn.cross_entropy(logits * 2.0, labels)
    with pytest.raises(tpucc.TpuccError) as e:
        _compiled(loss)(np.ones((2, 5)), np.array([1, 2, 3]))
    assert (e.value.loc.file, e.value.loc.line) == (__file__, loss.__code__.co_firstlineno + 1)


def test_a_runtime_python_int_beyond_int64_is_refused():
    f = _compiled(lambda x, n: x * n, runtime_args=("n",))
    assert f(np.ones(2), 2**62)[0] == 2.0**62
    with pytest.raises(tpucc.errors.DTypeError, match="does not fit"):
        f(np.ones(2), 2**63)


def test_a_static_index_error_is_caught_by_the_program():
    def last_k(x, k):
        out = []
        for j in range(k):
            try:
                out.append(x[-1 - j])
            except IndexError:
                break
        return np.array(out)
    check(last_k, np.arange(3.0), 5)


def test_environment_values_tpucc_does_not_take_are_named(monkeypatch, capsys):
    from tpucc import envvars
    monkeypatch.setenv("TPUCC_DUMP", " IR , hlo")           # case and spaces ignored
    assert envvars.words("TPUCC_DUMP", ("ir", "hlo")) == {"ir", "hlo"}
    monkeypatch.setenv("TPUCC_LOG", "recompile")
    with pytest.warns(envvars.EnvironmentWarning, match="'recompile' is not among recompiles"):
        assert not envvars.words("TPUCC_LOG", ("recompiles",))
    monkeypatch.setenv("TPUCC_CACHE_MAX_MB", "lots")
    with pytest.warns(envvars.EnvironmentWarning, match="is not a number"):
        assert envvars.number("TPUCC_CACHE_MAX_MB", 2048) == 2048


def test_grad_through_a_static_while_past_the_unroll_budget_unrolls_it():
    def loss(w):
        i, h = 0, w
        while i < 50:
            h = np.cos(h) * 0.9
            i += 1
        return np.sum(h)
    # (its counter made a runtime value, reverse mode refused the While: traced
    # again with the loop unrolled, as with unroll=64)
    g = tpucc.grad(loss)(np.ones(3))
    g64 = _compiled(lambda w: tpucc.grad(loss)(w), unroll=64)(np.ones(3))
    assert g.shape == (3,) and np.all(np.isfinite(g))
    np.testing.assert_allclose(g, g64, rtol=1e-12)


def test_a_raise_after_a_loop_left_early_is_a_runtime_check():
    def halve_until(x, tol):
        for i in range(10):
            x = x * 0.5
            if x.max() < tol:
                return x
        raise ValueError("no convergence")
    # (was refused, saying to write `if not done: raise`; session 35)
    np.testing.assert_array_equal(_compiled(halve_until)(np.array([1.0, 2.0]), 0.1),
                                  halve_until(np.array([1.0, 2.0]), 0.1))
    with pytest.raises(ValueError, match="no convergence"):
        _compiled(halve_until)(np.array([1.0, 2.0]), -1.0)


def test_a_callees_own_kwargs_dict_and_static_named_tuples():
    import dataclasses
    P = collections.namedtuple("P", "a b")

    @dataclasses.dataclass(frozen=True)
    class HP:
        lr: float = 0.1
        decay: float = 0.5

    def with_defaults(**kw):
        kw.setdefault("scale", 2.0)                     # the call's own dict
        return kw

    def step(x, hp):
        kw = with_defaults(shift=1.0)
        return x * kw["scale"] + kw["shift"], P(1, 2)._replace(a=3), \
            dataclasses.replace(hp, lr=hp.lr * 2)
    got = _compiled(step)(np.ones(2), HP())
    assert_same(step(np.ones(2), HP()), got)
    assert type(got[1]) is P


@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric"])
def test_pad_modes_that_gather(mode):
    x = np.arange(12.0).reshape(3, 4)
    for widths in (1, (2, 5), ((1, 0), (6, 2)), 0):
        check(lambda x: np.pad(x, widths, mode=mode), x)
    g = _compiled(lambda x: tpucc.grad(lambda v: (np.pad(v, 2, mode=mode) ** 2).sum())(x))(x)
    counts = np.zeros_like(x)
    np.add.at(counts, tuple(np.pad(i, 2, mode=mode) for i in np.indices(x.shape)), 1.0)
    np.testing.assert_allclose(g, 2 * x * counts)


def test_a_masked_array_argument_is_refused_clearly():
    with pytest.raises(tpucc.errors.UnsupportedError, match="masked array argument"):
        _compiled(lambda x: x + 1)(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))


def test_next_reads_where_the_iterator_stands():
    import itertools

    def f(x):
        it = iter(x)
        first = next(it)
        rest = [v * 2 for v in it]
        gen = (v + 1 for v in [1, 2, 3])
        a, b = next(gen), next(gen)
        m = map(lambda v: v * 3, [1, 2])
        return (first, rest, next(iter({"a": 1, "b": 2})), a, b, list(gen), next(m), list(m),
                next(iter([]), "empty"), next(itertools.count(5)))
    check(f, np.arange(3.0))
    with pytest.raises(tpucc.errors.UserCodeError, match="StopIteration"):
        _compiled(lambda x: x * next(iter([])))(np.ones(2))


OUTSIDE: list = []


def test_container_methods_take_iterators_made_in_compiled_code():
    import collections

    def f(x):
        items = []
        items.extend(zip([1, 2], [3, 4]))
        d = {}
        d.update(zip("ab", [x, x * 2]))
        dq = collections.deque(range(3))
        dq.extend(map(int, [4, 5]))
        OUTSIDE.extend(enumerate("ab"))             # replayed at every call
        return x * len(items), d, list(dq), ",".join(map(str, [1, 2]))
    OUTSIDE.clear()
    want = f(np.ones(2))
    compiled = _compiled(f)
    for _ in range(2):
        assert_same(want, compiled(np.ones(2)))
    assert OUTSIDE == [(0, "a"), (1, "b")] * 3
