"""Session 49E fixes: an index or None, and functions looked up by a runtime key.

1. A search that returns an index or None (`for i in range(len(bins)): if
   bins[i] + w <= cap: return i` then `return None`) and a caller that tests
   `if b is None:` / `if b is not None:`: the test is a runtime branch whose
   arms see `b` narrowed (None, or the runtime int: `bins[b] += w`), where
   it was refused (E300, "using it as a key or index needs the object
   itself").  An index or None whose int may take too many values to be a
   choice among static objects (the search written as a `while` loop to a
   runtime `n`, `best = None` then `best = i` in a runtime loop) is held as
   a runtime flag and int (optional_ints.py), where the paths' meeting was
   refused ("NoneType None and an array").  `i == None`, `if i:`, print(i)
   and returning it work; arithmetic or indexing with it untested is
   refused at its line.  A float or bool or None is held so too, and
   an artifact (tpucc build) returns one as None or the number.
2. A dict of functions looked up by a key chosen at run time
   (`SQUASH[ORDER[i % 2]](y)` in a runtime loop, `ACTS[name]` of a name a
   runtime index picked) calls the chosen function in a branch each (a
   Conditional), where it was refused (E300) or, in a loop to a runtime
   `n`, made `n` static (a compile per value); a dict of numbers or strings
   looked up so gives each key's item, and a missing key raises KeyError.
"""
import textwrap

import numpy as np
import pytest

import tpucc
from conftest import count_hlo, hlo, raises_at, same_each

CAP = 10.0
# Loop bounds as NumPy ints: read at run time from the first call (a Python
# int argument is, from its third value on: a compile more)
N = {n: np.int64(n) for n in range(8)}


def _find(bins, w):
    for i in range(len(bins)):
        if bins[i] + w <= CAP:
            return i
    return None


def test_first_fit_narrows_index_or_none():
    def first_fit(weights):
        bins = np.zeros(len(weights))
        used = 0
        for w in weights:
            b = _find(bins[:used], w)
            if b is None:
                bins[used] = w
                used += 1
            else:
                bins[b] += w
        return used, bins

    rng = np.random.default_rng(0)
    same_each(first_fit, *[(rng.uniform(1, 7, 9),) for _ in range(3)])


def _find_while(bins, n, w):
    i = 0
    while i < n:
        if bins[i] + w <= CAP:
            return i
        i += 1
    return None


def test_while_search_index_or_none():
    def fit(bins, n, w):
        b = _find_while(bins, n, w)
        if b is not None:
            bins[b] += w
        return b

    bins = np.array([9.0, 8.0, 3.0, 9.5, 1.0])
    c = same_each(fit, *[(bins, N[n], np.float64(w))
                         for n, w in ((2, 2.0), (4, 2.0), (5, 7.5), (3, 9.0))])
    assert count_hlo(hlo(c, bins, N[4], np.float64(2.0)), "while") >= 1


def test_index_or_none_raise_and_ternary():
    def checked(x, n):
        k = _find_while(x, n, 7.0)
        if k is None:
            raise ValueError("no room")
        return x[k] * 2 + k

    def ternary(x, n):
        k = _find_while(x, n, 7.0)
        return (-1 if k is None else k), k == None, k != None     # noqa: E711

    x = np.array([9.0, 8.0, 3.0, 9.5, 1.0])
    c = same_each(checked, (x, N[3]), (x, N[5]), (x, N[4]))
    same_each(ternary, (x, N[2]), (x, N[3]), (x, N[4]))
    with pytest.raises(ValueError, match="no room"):
        c(x, N[2])


def test_nested_and_short_circuit_narrowing():
    def f(x, n):
        a = _find_while(x, n, 7.0)
        b = _find_while(x, n, 9.2)
        if a is not None and a > 1:
            tag = "late"
        elif a is None:
            tag = "none"
        else:
            tag = "early"
        if a is not None:
            if b is not None:
                return a + b, tag
            return a, tag
        return -1, tag

    x = np.array([9.0, 8.0, 3.0, 9.5, 1.0])
    same_each(f, (x, N[5]), (x, N[2]), (x, N[3]), (x, N[1]))


def test_index_or_none_carried_by_loop():
    def last_above(x, n, t):
        best = None
        for i in range(n):
            if x[i] > t:
                best = i
        if best:                    # (None and 0 are false)
            print("last at", best)
        return best

    x = np.array([1, 0, 3, -2, 0, 5, 3])
    c = same_each(last_above, *[(x, N[n], N[t]) for n, t in ((5, 0), (7, 4), (0, 0), (7, 7),
                                                             (2, 0))])
    assert count_hlo(hlo(c, x, N[7], N[0]), "while") == 1


def test_index_or_none_untested_use_refused():
    def plus_one(x, n):
        k = _find_while(x, n, 7.0)
        return k + 1

    x = np.array([9.0, 8.0, 3.0])
    raises_at(plus_one, (x, 3), match="None or an int", line_of="return k + 1",
              runtime_args=("n",))


def test_float_or_none_and_tuple_result():
    def first_big(x, n):
        for i in range(n):
            if x[i] > 2.5:
                return float(x[i])
        return None

    def f(x, n):
        v = first_big(x, n)
        return (0.0 if v is None else v * 2), v, [v]

    x = np.array([1.0, 0.0, 3.0, -2.0, 5.0])
    same_each(f, (x, N[5]), (x, N[2]), (x, N[3]), (x, N[1]))


def test_artifact_returns_number_or_none(tmp_path):
    from tpucc import aot
    model = tmp_path / "search_model.py"
    model.write_text(textwrap.dedent('''
        import numpy as np
        from tpucc.aot import entry

        @entry("f64[4]", "i64[]")
        def search(x, n):
            i = 0
            while i < n:
                if x[i] > 2:
                    return i
                i += 1
            return None
    '''))
    [b] = aot.build_file(str(model), str(tmp_path))
    loaded = tpucc.load(b.path)
    x = np.array([1.0, 3.0, 0.0, 5.0])
    assert loaded(x, np.int64(4)) == 1 and type(loaded(x, np.int64(4))) is int
    assert loaded(x, np.int64(1)) is None


def _relu(y):
    return np.maximum(y, 0.0)


def _tanh(y):
    return np.tanh(y)


def _soft(y):
    return y / (1.0 + np.abs(y))


ORDER = ["relu", "tanh"]
SQUASH = {"relu": _relu, "tanh": _tanh, "soft": _soft}
GAIN = {"relu": 1.5, "tanh": 0.5}


def test_dict_of_functions_at_runtime_key():
    def net(y, n):
        for i in range(n):
            y = SQUASH[ORDER[i % 2]](y) * GAIN[ORDER[i % 2]] - 0.2
        return y

    def picked(y, s):
        name = ["relu", "tanh", "soft"][int(np.argmax(s))]
        return SQUASH[name](y), name

    y = np.linspace(-2.0, 2.0, 5)
    c = same_each(net, (y, N[3]), (y, N[0]), (y, N[5]), (y, N[4]))
    assert count_hlo(hlo(c, y, N[7]), "while") == 1
    same_each(picked, (y, np.array([0.1, 0.5, 0.2])), (y, np.array([0.9, 0.5, 0.2])),
              (y, np.array([0.1, 0.5, 0.7])))


def test_dict_lookup_missing_key_raises():
    def lookup(y, s):
        name = ["relu", "soft"][int(np.argmax(s))]
        return GAIN[name] * y

    y = np.linspace(-2.0, 2.0, 5)
    same_each(lookup, (y, np.array([0.9, 0.1])))
    with pytest.raises(KeyError):
        tpucc.compile(lookup, cache=False)(y, np.array([0.1, 0.9]))
