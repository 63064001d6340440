"""Session 34's sweeps: programs users write that the VGG19 path never
exercises (a model zoo, NumPy's wider API, the ahead-of-time path)."""
from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import math
import warnings

import numpy as np
import pytest

import tpucc

from conftest import assert_same, check, count_hlo, hlo, raises_at


def weighted_until(x):
    weights = [0.5 * i for i in range(100)]
    s = np.float32(0)
    for w in weights:
        s = s + w * x[0]
        if s > 50:
            break
    return s, w


def first_over(x, n):
    for i, k in enumerate(list(range(3, 90))):
        if k * x[0] > n:
            return i, k
    return -1, -1


@pytest.mark.parametrize("scale", [1.0, 0.01])
def test_a_long_loop_over_static_numbers_that_a_runtime_break_leaves_is_one_while(scale):
    # (100 numbers: too many to unroll under the exits; was refused with an
    # E400 about the truth value of an array)
    x = np.array([scale], np.float32)
    compiled = check(weighted_until, x)
    assert count_hlo(hlo(compiled, x), "while") == 1
    for n in (10.0, 1000.0):
        check(first_over, x, n)


@dataclasses.dataclass(frozen=True)
class Dense:
    w: np.ndarray
    b: np.ndarray


@dataclasses.dataclass(frozen=True)
class Net:
    layers: tuple
    scale: float = 1.0


def net_loss(net, x, y):
    h = x
    for layer in net.layers:
        h = np.tanh(h @ layer.w + layer.b)
    return np.mean((net.scale * h - y) ** 2)


def sgd_step(net, x, y):
    loss, g = tpucc.value_and_grad(net_loss)(net, x, y)
    layers = tuple(dataclasses.replace(p, w=p.w - 0.1 * q.w, b=p.b - 0.1 * q.b)
                   for p, q in zip(net.layers, g.layers))
    return dataclasses.replace(net, layers=layers), loss


def make_net(seed):
    rng = np.random.default_rng(seed)
    return Net((Dense(rng.standard_normal((3, 4)), np.zeros(4)),
                Dense(rng.standard_normal((4, 1)), np.zeros(1))))


def test_frozen_dataclass_parameters_are_runtime_inputs():
    # (Flax-style: a new frozen dataclass each step; every call compiled
    # again, its arrays read as constants of the object compiled for)
    x = np.linspace(-1, 1, 15).reshape(5, 3)
    y = np.sin(x[:, :1])
    compiled = tpucc.compile(sgd_step)
    net, want = make_net(0), make_net(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # no RecompileWarning
        for _ in range(12):
            net, loss = compiled(net, x, y)
            want, want_loss = sgd_step(want, x, y)
            assert type(net) is Net and type(net.layers[1]) is Dense
            np.testing.assert_allclose(loss, want_loss, rtol=1e-12)
            for p, q in zip(net.layers, want.layers):
                np.testing.assert_allclose(p.w, q.w, rtol=1e-12)
                np.testing.assert_allclose(p.b, q.b, rtol=1e-12)
    assert len(compiled._cache) == 1
    other = make_net(1)
    np.testing.assert_allclose(tpucc.compile(net_loss)(other, x, y), net_loss(other, x, y),
                               rtol=1e-12)


@dataclasses.dataclass(frozen=True)
class Config:
    steps: int
    rate: float


def relax(cfg, x):
    for _ in range(cfg.steps):
        x = x - cfg.rate * (x - x.mean())
    return x, cfg


def test_a_frozen_dataclass_of_numbers_stays_static():
    compiled = check(relax, Config(3, 0.5), np.arange(4.0))
    check(relax, Config(5, 0.25), np.arange(4.0))
    assert count_hlo(hlo(compiled, Config(3, 0.5), np.arange(4.0)), "while") == 0


def test_an_entry_given_a_frozen_dataclass_of_arrays_says_to_pass_a_dict(tmp_path):
    from tpucc import aot
    from test_sweep_session33b import DATACLASS_PARAMS
    model = tmp_path / "frozen_params.py"
    model.write_text(DATACLASS_PARAMS.replace("@dataclasses.dataclass",
                                              "@dataclasses.dataclass(frozen=True)"))
    with pytest.raises(tpucc.TpuccError, match="argument p holds a DParams object") as info:
        aot.build_file(str(model), str(tmp_path))
    assert "dataclasses.asdict" in info.value.hint


def tolist_changed(a):
    values = a.tolist()
    values[0] = 3.0
    values.append(5.0)
    values.sort()
    values.pop()
    del values[0]
    return np.array(values).sum(), values


def rows_changed(a):
    rows = a.reshape(2, 2).tolist()
    rows[1][0] = 9.0
    rows[0].append(1.5)
    parts = np.split(a, 2)
    parts[0] = parts[0] * 2
    parts.append(a)
    return rows, np.concatenate(parts)


@pytest.mark.parametrize("fn", [tolist_changed, rows_changed])
def test_lists_numpy_makes_are_the_programs_own(fn):
    # (x.tolist()'s list was taken for one from outside: its updates were lost)
    check(fn, np.array([7.0, 7.0, 1.0, 2.0]))


def counted(a):
    return collections.Counter(a.tolist())


def ordered(a):
    return collections.OrderedDict((float(v), 1) for v in a)


def updated(a):
    d = {}
    d.update(zip(a.tolist(), range(3)))
    return d


@pytest.mark.parametrize("fn, line", [(counted, "Counter("), (ordered, "OrderedDict("),
                                      (updated, "d.update(")])
def test_native_code_hashing_runtime_keys_is_refused(fn, line):
    # (the dict came back keyed by tpucc's own objects, equal values apart)
    raises_at(fn, (np.array([7.0, 7.0, 1.0]),), tpucc.StaticValueError,
              match="a runtime value as a dict key", line_of=line)


def nll_by_range(p, y):
    n = p.shape[0]
    return -np.log(p[range(n), y]).mean(), p[range(1, 3)], p[:, range(1, 2)], p[range(0)]


def store_by_range(p):
    p[range(2), 0] = 5.0
    p[:, range(1, 2)] += 1
    return p


def rows_up_to(p, n):
    return p[range(n)]


def test_a_range_indexes_as_its_integers():
    # (the textbook cross-entropy p[range(n), y] was an E200 "invalid index")
    p = np.array([[0.2, 0.8], [0.6, 0.4], [0.5, 0.5]])
    check(nll_by_range, p, np.array([1, 0, 1]))
    check(store_by_range, p)
    raises_at(rows_up_to, (p, 2), tpucc.StaticValueError, match="range.. with runtime bounds",
              line_of="p[range(n)]", runtime_args=("n",))


erf_each = np.vectorize(math.erf)
below_each = np.vectorize(lambda v, t: v if v < t else t)
int_each = np.vectorize(lambda n: n * 3 + 100)
f32_each = np.vectorize(lambda v: v * 2, otypes=[np.float32])


def gelu_erf(x):
    return 0.5 * x * (1 + erf_each(x / math.sqrt(2))), erf_each(0.5), erf_each(x[0, 0])


@pytest.mark.parametrize("fn, args", [
    (gelu_erf, (np.linspace(-2, 2, 40).reshape(8, 5),)),
    (lambda x, t: below_each(x, t), (np.linspace(-2, 2, 6), 0.5)),
    (lambda x: int_each(x), (np.arange(6, dtype=np.int8),)),      # (int8: NumPy's first call)
    (lambda x: f32_each(x), (np.linspace(-2, 2, 6),)),
])
def test_np_vectorize_calls_the_function_on_each_element(fn, args):
    # (was refused, naming numpy.erf())
    check(fn, *args)


def rows_masked(X, m):
    X[m, 0] = -1
    X[m, :] += 0.5
    X[m, 1:] += 5
    return X, X[m, 1].sum(), X[m, 1:].max()


def columns_masked(X, cm):
    X[:, cm] = 0
    X[1:, cm] += 2
    X[..., cm] *= 3
    return X, X[:, cm].sum()


def last_axis_masked(X, cm):
    X[..., cm] *= 3
    X[0, :, cm] = 7
    return X


def columns_given_values(X, cm):
    X[:, cm] = np.ones((4, 2))
    return X


def test_a_mask_among_static_indices():
    # (was an E200 "a boolean mask among other indices gives a data-dependent shape")
    X = np.arange(12.).reshape(4, 3)
    check(rows_masked, X, np.array([True, False, True, True]))
    check(columns_masked, X, np.array([True, False, True]))
    check(last_axis_masked, X.reshape(2, 2, 3), np.array([False, True, True]))
    raises_at(columns_given_values, (X, np.array([True, False, True])), tpucc.ShapeError,
              match="an array of values", line_of="X[:, cm] =")


def add_into(a, o):
    np.add(a, 1, o)
    np.sqrt(a, o, where=a > 1)
    return o


def test_a_ufuncs_output_passed_by_position():
    check(add_into, np.array([1., 4., 9.]), np.zeros(3))


def quantiles_of_constants(x):
    return (np.quantile(x, np.linspace(0, 1, 5)), np.percentile(x, np.arange(0, 101, 25)),
            np.percentile(x, np.array(50)), np.repeat(x, np.array([1, 2, 0, 1, 1])),
            np.unique(np.array([3, 1, 3])), np.nonzero(np.array([0, 2, 0, 1]))[0] + x[0])


def counts_of_constants(x):
    values, counts = np.unique(np.array([3, 1, 3]), return_counts=True)
    return x[values] * counts


def test_arrays_the_function_makes_from_constants_are_known():
    # (np.quantile(x, np.linspace(0, 1, 5)) was "quantiles known only at run time")
    check(quantiles_of_constants, np.array([3.0, 1.0, 4.0, 1.5, 9.0]))
    check(counts_of_constants, np.arange(5.0))


def number_methods(x):
    r = np.sqrt(x.sum())
    return (r.is_integer(), x[1].is_integer(), np.float32(x[0]).is_integer(),
            hasattr(x[0], "hex"), hasattr(x[0], "nope"), float(x[0]).is_integer(),
            np.int16(x[2]).bit_count(), np.int64(x[1]).is_integer())


def test_numpy_scalars_have_the_methods_of_pythons_numbers():
    # (hasattr(x[0], "hex") was False: np.float64 is a float)
    check(number_methods, np.array([2.5, 6.5, 7.0]))
    raises_at(lambda x: x[0].hex(), (np.array([2.5]),), tpucc.UnsupportedError,
              match=r"hex\(\)` of a NumPy float64")


def test_an_unsupported_ufunc_method_names_itself_and_the_closest():
    err = raises_at(lambda x: np.fmax.reduce(x), (np.arange(4.0),), tpucc.UnsupportedError,
                    match=r"np\.fmax\.reduce\(\)")
    assert "np.nanmax" in err.hint and "np.add.accumulate" in err.hint


def layer(x, w):
    return x @ w


def two_layers(x, w1, w2):
    h = layer(x, w1)
    return layer(h, w2)


def test_an_error_in_a_helper_names_the_call_that_led_there():
    # (a helper called from two lines: the message could not tell which)
    err = raises_at(two_layers, (np.ones((2, 3)), np.ones((3, 4)), np.ones((5, 2))),
                    tpucc.ShapeError, match="mismatch in its core dimension")
    assert err.loc.func == "layer"
    (caller,) = err.callers
    assert caller.func == "two_layers" and "return layer(h, w2)" in caller.source_line()
    assert f"called from {caller}" in str(err)


RNG = np.random.default_rng(34)
BLOCKS = [{"w": RNG.standard_normal((6, 6)) * 0.2, "b": RNG.standard_normal(6) * 0.1}
          for _ in range(40)]


def residual_blocks(blocks, x):
    h = x
    for p in blocks:
        h = h + np.tanh(h @ p["w"] + p["b"])
    return np.mean(h ** 2)


def block_changed(blocks, x):
    for p in blocks:
        p["w"] *= 0.5               # (the list's dicts themselves: unrolled, exact)
    return residual_blocks(blocks, x)


def test_a_long_loop_over_a_list_of_dicts_of_arrays_is_one_while():
    # (layers' parameters as dicts: unrolled, 64 copies and seconds of XLA)
    x = RNG.standard_normal((3, 6))
    compiled = check(residual_blocks, BLOCKS, x)
    assert count_hlo(hlo(compiled, BLOCKS, x), "while") == 1
    check(block_changed, [dict(p) for p in BLOCKS], x)
    g = tpucc.compile(lambda b, v: tpucc.grad(residual_blocks)(b, v))(BLOCKS, x)
    eps, k = 1e-6, 17
    up = [dict(p) for p in BLOCKS]
    up[k] = {"w": BLOCKS[k]["w"], "b": BLOCKS[k]["b"] + eps * np.eye(6)[2]}
    down = [dict(p) for p in BLOCKS]
    down[k] = {"w": BLOCKS[k]["w"], "b": BLOCKS[k]["b"] - eps * np.eye(6)[2]}
    numeric = (residual_blocks(up, x) - residual_blocks(down, x)) / (2 * eps)
    np.testing.assert_allclose(g[k]["b"][2], numeric, rtol=1e-6)


def bfs_levels(adj, s):
    n = adj.shape[0]
    q = np.zeros(n, dtype=np.int64)
    dist = np.full(n, -1, dtype=np.int64)
    head, tail = 0, 0
    q[tail] = s
    tail += 1
    dist[s] = 0
    while head < tail:
        u = q[head]
        head += 1
        for v in range(n):
            if adj[u, v] and dist[v] < 0:
                dist[v] = dist[u] + 1
                q[tail] = v         # (tail == n on a 1-node graph: never reached)
                tail += 1
    return dist


def counting_sort(x, counts):
    out = np.empty_like(x)
    pos = 0
    for i in range(len(counts)):
        for _ in range(counts[i]):
            out[pos] = i            # (out is empty when the counts are 0)
            pos += 1
    return out


def past_the_end_if(x):
    if x.sum() > 0:
        x[5] = 1.0
    return x


def test_an_index_past_the_end_on_a_path_under_a_runtime_condition_is_checked_there():
    # (refused at compile time with an IndexError eager never reaches)
    check(bfs_levels, np.zeros((1, 1), dtype=bool), 0)
    check(bfs_levels, np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=bool), 2)
    check(counting_sort, np.zeros(0, np.int64), np.zeros(3, np.int64))
    check(counting_sort, np.zeros(4, np.int64), np.array([1, 0, 3]))
    compiled = check(past_the_end_if, np.zeros(3))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 3"):
        compiled(np.ones(3))


def sieve(marks):
    n = marks.shape[0]
    is_prime = np.ones(n, dtype=bool)
    is_prime[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_prime[i]:
            for j in range(i * i, n, i):        # (a runtime step)
                is_prime[j] = False
    return is_prime


def stepped_sum(a, b, s):
    total = 0
    for k in range(a, b, s):
        total += k
    return total


def test_a_range_with_a_runtime_step_is_a_runtime_loop():
    # (was refused: the sieve's outer loop was unrolled instead, 5 s for n = 2000)
    compiled = check(sieve, np.zeros(300))
    assert count_hlo(hlo(compiled, np.zeros(300)), "while") <= 3      # (not 17 copies)
    # (runtime arguments: one compiled fn, one program, for every range)
    stepped = tpucc.compile(stepped_sum, runtime_args=("a", "b", "s"))
    for a, b, s in [(0, 10, 3), (10, 0, -3), (5, 5, 2), (0, 10, -1), (3, -7, -2)]:
        assert_same(stepped_sum(a, b, s), stepped(a, b, s))
    with pytest.raises(ValueError, match="range.. arg 3 must not be zero"):
        tpucc.compile(stepped_sum, runtime_args=("a", "b", "s"))(0, 10, 0)


def contiguous_copies(a):
    b = np.ascontiguousarray(a.T)
    b[0, 1] = 55.0
    c = np.asarray(a[:, ::2], order="C")
    c[0, 0] = -1.0
    d = np.ascontiguousarray(a[1])      # (contiguous already: a view)
    d[0] = 7.0
    e = np.ascontiguousarray(np.broadcast_to(a[0], (2, 3)))
    e[1] = 0.0
    return b.sum() + c.sum() + e.sum()


def conjugate_is_itself(a):
    b = a.conj()
    b[0] = 5.0
    a[1] = 7.0
    return b.sum()


def tiled_and_repeated(w):
    h = np.tile(w, 2)
    h[0] = 5.0
    r = np.repeat(w, 2)
    r[1:3] += 1.0
    return h, r


@pytest.mark.parametrize("fn", [contiguous_copies, conjugate_is_itself, tiled_and_repeated])
def test_copies_and_views_as_numpy_makes_them(fn):
    # (np.ascontiguousarray(a.T) wrote into the caller's a; a.conj() of a
    # real array was a copy; np.tile's result was read-only)
    check(fn, np.arange(9.0).reshape(3, 3) if fn is contiguous_copies else np.arange(3.0))


def cursor_over_rows(x, n):
    buf = np.zeros((3, 3))
    v = buf[0]
    for i in range(n):
        v += x[i]
        v = buf[(i + 1) % 3]
    return buf


class Holder:
    def __init__(self, w):
        self.w = w


def masked_item_written(a):
    b = a[a > 2]
    b[0] = 100.0
    return b.sum()


def chosen_then_updated(x, c):
    a = x.copy()
    b = x * 2
    t = a if c > 0 else b
    t += 1
    return a, b


def any_order(a):
    return a.reshape(6, order="A"), a.ravel("K"), a.flatten("A")


def test_messages_of_sweep_34f_name_the_program_and_keep_its_meaning():
    err = raises_at(cursor_over_rows, (np.arange(5.0), 4), tpucc.SideEffectError,
                    runtime_args=("n",))
    assert "v.copy()" not in err.hint and "buf[k]" in err.hint   # (a copy changes the answer)
    import copy
    # (a plain object is copied now, as the copy module does: session 42d3)
    for how in (copy.copy, copy.deepcopy):
        assert tpucc.compile(lambda p: how(p).w.sum(), cache=False)(Holder(np.ones(2))) == 2.0
    check(masked_item_written, np.arange(5.0))     # (its first element: compiles now)
    err = raises_at(chosen_then_updated, (np.arange(3.0), 1), tpucc.SideEffectError,
                    runtime_args=("c",))
    assert "<stack" not in str(err) and "if <runtime condition> else" in str(err)
    check(any_order, np.arange(6.0).reshape(2, 3))


class Cache:
    def forward(self, x):
        self.x = x
        self.t = x.T
        return x.sum()


def tie_items(d):
    d["b"] = d["a"]
    return 0.0


def test_an_attribute_bound_to_an_input_array_is_that_array():
    # (it was given a copy: the caller's later updates of x did not show)
    layer = Cache()
    forward = tpucc.compile(layer.forward)
    for x in (np.arange(4.0).reshape(2, 2), np.ones((2, 2))):
        assert forward(x) == x.sum()
        assert layer.x is x and np.shares_memory(layer.t, x)
        x[0, 1] = -7.0
        assert layer.t[1, 0] == -7.0
    d = {"a": np.zeros(3), "b": np.ones(3)}
    tpucc.compile(tie_items)(d)
    assert d["b"] is d["a"]


def table_of(x, n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = x[i] * 2
    return out


def test_a_value_needed_at_compile_time_names_the_runtime_args():
    err = raises_at(table_of, (np.arange(5.0), 3), tpucc.ShapeError, line_of="np.zeros(n)",
                    runtime_args=("n",))
    assert "`n` is a runtime value: runtime_args asks for that" in err.hint


def max_subarray(x):
    best = [0.0] * len(x)
    best[0] = x[0]
    for i in range(1, len(x)):
        best[i] = max(x[i], best[i - 1] + x[i])     # (a list indexed by the counter)
    return max(best)


def test_a_long_loop_unrolled_because_it_cannot_be_one_while_warns():
    # (1000 rows took 37 s to compile without a word)
    with pytest.warns(tpucc.UnrollWarning, match="a table as np.zeros.n., not a list") as found:
        tpucc.compile(max_subarray).lower(np.ones(500))
    assert found[0].filename == __file__


W_RNN = np.random.default_rng(3).standard_normal((4, 4)) * 0.5


def backward_rnn(xs):
    outs = []
    h = np.zeros((xs.shape[1], 4))
    for x in reversed(xs):
        h = np.tanh(x - h @ W_RNN)
        outs.insert(0, h)
    return np.stack(outs), outs[0], len(outs)


def prepended_to_old(xs):
    outs = [np.ones((2, 4))]
    for x in xs:
        outs.insert(0, x * 2)
    return outs


def prepended_and_appended(xs):
    out = []
    for x in xs:
        out.insert(0, x)
        out.append(x + 1)       # (both ends: unrolled, exact)
    return out


def test_a_counted_loop_growing_a_list_in_front_is_one_while():
    # (outs.insert(0, h) over 300 steps was unrolled: 25 s of XLA)
    xs = np.random.default_rng(1).standard_normal((50, 2, 4))
    compiled = check(backward_rnn, xs)
    assert count_hlo(hlo(compiled, xs), "while") == 1
    check(prepended_to_old, xs)
    check(prepended_and_appended, xs[:36])


def lambda_each_trip(x):
    i = 0
    while i < 40:               # (a runtime `while` after the unroll budget)
        double = lambda v: v * 2
        x = double(x) * 0.5 + 1
        i += 1
    return x


def closure_each_trip(x, n):
    total = 0.0
    for k in range(n):
        scale = x[k]
        times = lambda v: v * scale
        total = total + times(2.0)
    return total


def test_a_function_made_anew_in_each_iteration_of_a_runtime_loop():
    # (E500: "this runtime loop changes the static value `double`")
    check(lambda_each_trip, np.ones(2))
    check(closure_each_trip, np.arange(5.0), 5, compile_kwargs={"runtime_args": ("n",)})


def bound_before_break(x):
    for i in range(40):
        if x[i] < 0:
            break
        y = x[i]
    return y


def bound_in_zero_trip_inner_loop(x, n, m):
    for i in range(n):
        for j in range(m):
            z = x[i] + j
    return z


def test_a_variable_a_runtime_exit_leaves_unbound_raises_when_read():
    # (was 0.0: the While carried a placeholder; session 33's known gap)
    compiled = check(bound_before_break, np.where(np.arange(40) == 10, -1.0, np.arange(40.0)))
    assert compiled(np.arange(40.0)) == 39.0
    with pytest.raises(UnboundLocalError, match="cannot access local variable 'y'"):
        compiled(-np.ones(40))
    nested = tpucc.compile(bound_in_zero_trip_inner_loop, runtime_args=("n", "m"))
    assert nested(np.array([1.0, 2.0]), 2, 3) == 4.0
    with pytest.raises(UnboundLocalError, match="local variable 'z'"):
        nested(np.array([1.0, 2.0]), 2, 0)


def generator_then_rebound(x):
    k = 2.0
    scaled = (v * k for v in x)
    k = 5.0                     # (Python's generator reads k = 5.0 when consumed)
    return sum(scaled)


def generator_consumed_then_rebound(x):
    k = 2.0
    total = sum(v * k for v in x)
    k = 5.0
    return total + k


def test_a_variable_a_pending_generator_reads_cannot_be_rebound():
    # (the generator ran when made: 6.0 where Python gives 15.0)
    raises_at(generator_then_rebound, (np.arange(3.0),), tpucc.SideEffectError,
              match="rebinding `k`, which a generator made before reads", line_of="k = 5.0")
    check(generator_consumed_then_rebound, np.arange(3.0))


def annotated_inner(x):
    def twice(v: float) -> float:
        return v * 2
    return twice.__annotations__, twice(x[0])


def test_functions_made_inside_keep_their_annotations():
    # (lost: singledispatch's register of an annotated inner function was an E700)
    check(annotated_inner, np.arange(3.0) + 1)
    from programs_session34 import dispatched_inside     # (annotations not strings there)
    check(dispatched_inside, np.arange(3.0) + 1)


def module_weights(x):
    return x @ GLOBAL_W


def summed(x):
    return sum(x)


def test_globals_an_array_is_rebound_in_or_a_builtin_hidden_later(monkeypatch):
    # (rebinding the global array compiled again at every call; a global
    # defined later with a builtin's name was not seen: stale sum())
    monkeypatch.setitem(globals(), "GLOBAL_W", np.ones((3, 2)))
    compiled = tpucc.compile(module_weights)
    x = np.arange(3.0)
    for step in range(5):
        monkeypatch.setitem(globals(), "GLOBAL_W", GLOBAL_W - 0.1 * step)
        np.testing.assert_array_equal(compiled(x), module_weights(x))
    assert len(compiled._cache) == 1
    adding = tpucc.compile(summed)
    assert adding(np.arange(3.0)) == 3.0
    monkeypatch.setitem(globals(), "sum", lambda v: v * 10)      # (`from numpy import *`)
    np.testing.assert_array_equal(adding(np.arange(3.0)), np.arange(3.0) * 10)


def test_why_a_program_compiles_again_after_a_trace_record_hit(monkeypatch, tmp_path, capsys):
    # (a raw KeyError: the record names no owners of what it read)
    monkeypatch.setenv("TPUCC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TPUCC_CACHE_MIN_COMPILE_S", "0")
    monkeypatch.setenv("TPUCC_LOG", "recompiles")
    monkeypatch.setitem(globals(), "GLOBAL_K", 2.0)
    tpucc.compile(scaled_by_k)(np.ones(3))
    again = tpucc.compile(scaled_by_k)
    again(np.ones(3))
    monkeypatch.setitem(globals(), "GLOBAL_K", 3.0)
    np.testing.assert_array_equal(again(np.ones(3)), np.full(3, 3.0))
    assert "`GLOBAL_K`: 2.0 -> 3.0" in capsys.readouterr().err


def scaled_by_k(x):
    return x * GLOBAL_K


def count_steps(x):
    global STEP
    STEP += 1
    return x * STEP


def test_a_global_counter_changing_between_a_python_and_a_numpy_int(monkeypatch):
    # (np.int64 from a checkpoint: E100 "assigning the global"; back to a
    # Python int: a compile at every call)
    monkeypatch.setitem(globals(), "STEP", 0)
    compiled = tpucc.compile(count_steps)
    compiled(np.ones(3))
    compiled(np.ones(3))
    monkeypatch.setitem(globals(), "STEP", np.int64(3))
    np.testing.assert_array_equal(compiled(np.ones(3)), np.full(3, 4.0))
    assert type(STEP) is np.int64 and STEP == 4
    monkeypatch.setitem(globals(), "STEP", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in range(1, 7):
            np.testing.assert_array_equal(compiled(np.ones(3)), np.full(3, float(k)))
    assert type(STEP) is int and STEP == 6


def powers_of_two(x, n):
    total = 0
    for k in range(n):
        total += 2 ** k         # (k never negative: an int)
    return x * total


def test_a_runtime_ranges_counter_keeps_its_sign():
    # (refused: "an int or a float, depending on the exponent's sign")
    check(powers_of_two, np.arange(3.0), 5, compile_kwargs={"runtime_args": ("n",)})


def tee_rows(x):
    a, b = itertools.tee(x[:3], 2)
    return [r * 2 for r in a], [r + 1 for r in b]


def test_itertools_tee_and_an_int64_overflow_hint():
    check(tee_rows, np.arange(4.0))
    err = raises_at(lambda x: x + 2 ** 70, (np.arange(3),), tpucc.UserCodeError,
                    match="out of bounds for int64")
    assert "no integer dtype is wider" in err.hint


def mapped_rows(x):
    return np.stack(list(map(lambda r: r * 2, x))), list(map(np.dot, x, x))


def reduced_rows(x):
    return (functools.reduce(lambda a, r: a * 0.9 + r, x, np.zeros(4)),
            functools.reduce(lambda a, r: np.maximum(a, r), x))


@pytest.mark.parametrize("fn", [mapped_rows, reduced_rows])
def test_map_and_reduce_over_many_rows_are_one_while(fn):
    # (unrolled: map over 500 rows took 16 s to compile)
    x = np.random.default_rng(5).standard_normal((40, 4))
    compiled = check(fn, x)
    assert " while(" in hlo(compiled, x)


def up_to(n):
    i = 0
    while i < n:
        yield i
        i += 1


def endless():
    i = 0
    while True:
        yield i
        i += 1


def test_a_generators_static_while_is_unrolled_and_an_endless_one_says_so():
    # (both were refused as "`yield` under a runtime condition or loop")
    check(lambda x: sum(x[i % 4] for i in up_to(40)), np.arange(4.0))
    raises_at(lambda x: [r * i for i, r in zip(endless(), x)], (np.arange(4.0),),
              tpucc.LimitError, match="an endless one cannot be consumed lazily")
