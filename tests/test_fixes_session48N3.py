"""Fixes of session 48 (N3): sum() / math.prod() of a generator over a
runtime range (one runtime loop), max()/min() of static names by runtime
keys (a choice among them), and the refusals of itertools' filtering
iterators and Counter arithmetic over runtime numbers (said in their own
words, not "the truth value of an array")."""
import enum
import itertools
import math
from collections import Counter

import numpy as np
import pytest

import tpucc
from conftest import raises_at, same, same_each


# --- sum() / math.prod() of a generator with a runtime number of items ------------------

def _sq_sum(x):
    n = int(x[0])
    return sum(i * i for i in range(n))


def _odd_sum(x):
    n = int(x[0])
    return sum(i for i in range(n) if i % 2)        # (a runtime `if` in the runtime loop)


def _element_sum(x):
    n = int(x[0])
    return sum(x[i] * 0.5 for i in range(n))        # np.float64 items


def _float32_sum(x):
    n = int(x[0])
    y = x.astype(np.float32)
    return sum(y[i] for i in range(n))


def _python_float_sum(x):
    n = int(x[0])
    return sum(float(x[i]) for i in range(1, n))


def _nested_sum(x):
    n = int(x[0])
    return sum(i * j for i in range(n) for j in range(i))


def _count_true(x):
    n = int(x[0])
    return sum(x[i] > 2 for i in range(n))          # np.bool_ items: an int64 total


@pytest.mark.parametrize("fn", [_sq_sum, _odd_sum, _element_sum, _float32_sum,
                                _python_float_sum, _nested_sum, _count_true])
def test_sum_of_a_generator_over_a_runtime_range(fn):
    same_each(fn, (np.array([6.0, 1.5, 5.0, 2.0, 7.0, 3.0]),),
              (np.array([0.0, 1.5, 5.0, 2.0, 7.0, 3.0]),),
              (np.array([1.0, 4.0, 5.0, 2.0, 7.0, 3.0]),))


def _factorial(x):
    n = int(x[0])
    return math.prod(range(1, n + 1))


def _even_product(x):
    n = int(x[0])
    return math.prod(range(2, n, 2))


def _float_product(x):
    n = int(x[0])
    return math.prod(i + 0.5 for i in range(n))


def _element_product(x):
    n = int(x[0])
    return math.prod(x[i] for i in range(1, n))


@pytest.mark.parametrize("fn", [_factorial, _even_product, _float_product, _element_product])
def test_math_prod_with_a_runtime_number_of_items(fn):
    same_each(fn, (np.array([6.0, 1.5, 2.0, 3.0, 0.5, 3.0]),),
              (np.array([0.0, 1.5, 2.0, 3.0, 0.5, 3.0]),),
              (np.array([2.0, 1.5, 2.0, 3.0, 0.5, 3.0]),))


def test_factorial_past_int64_is_refused_at_run_time():
    with pytest.raises(tpucc.TpuccError, match="E910"):
        tpucc.compile(_factorial, cache=False)(np.array([21]))


def _generator_function_sum(x):
    def evens(n):
        for i in range(n):
            yield i * 2
        yield 7                 # (after the runtime loop: added after its items)
    return sum(evens(int(x[0])))


def _generator_function_product(x):
    def halves(n):
        for i in range(n):
            yield x[i] / 2
    return math.prod(halves(int(x[0])))


def test_a_generator_function_fed_to_sum_or_prod():
    for fn in (_generator_function_sum, _generator_function_product):
        same_each(fn, (np.array([4.0, 3.0, 5.0, 6.0]),), (np.array([0.0, 3.0, 5.0, 6.0]),))


def test_a_generator_of_static_length_is_as_before():
    same(lambda x: sum(x[i] ** 2 for i in range(3)), np.arange(4.0))
    same(lambda x: math.prod(x[i] for i in range(3)), np.arange(1.0, 5.0))


def test_a_runtime_generator_not_fed_to_sum_is_refused_in_its_words():
    err = raises_at(lambda x: list(i * i for i in range(int(x[0]))), (np.array([3]),),
                    tpucc.UnsupportedError, match="a generator expression whose `for` or `if` "
                    "depends on runtime values is supported only where it goes straight to "
                    r"sum\(\) or math.prod\(\)", line_of="list(")
    assert "yield" not in err.message


def _listed_then_looped(x):
    def g(n):
        yield 100.0             # (listed before the loop: sum()'s order would change)
        for i in range(n):
            yield i * 0.5
    return sum(g(int(x[0])))


def test_a_runtime_yield_after_listed_items_is_refused():
    raises_at(_listed_then_looped, (np.array([3]),), tpucc.UnsupportedError,
              match="after items yielded outside it", line_of="yield i * 0.5")


def test_a_total_whose_shape_changes_names_sums_total():
    # (eagerly, n == 0 gives 0 and n > 0 an array: no one type)
    raises_at(lambda x: sum(x * i for i in range(int(x[0]))), (np.arange(3.0),),
              tpucc.errors.MergeError, match=r"`sum\(\)'s total` different shapes")


# --- max() / min() of static names by runtime keys ---------------------------------------

class _Opt(enum.Enum):
    SGD = 1
    ADAM = 2
    RMS = 3


def _best_name(x):
    scores = {"sgd": float(x[0]), "adam": float(x[1]), "rms": float(x[2])}
    return max(scores, key=scores.get)


def _least_loss(x):
    losses = {"sgd": x[0], "adam": x[1], "rms": x[2]}
    return min(losses, key=losses.get)


def _best_by_lambda(x):
    names = ["a", "b", "c"]
    return max(names, key=lambda n: x[names.index(n)])


def _best_enum(x):
    scores = {_Opt.SGD: x[0], _Opt.ADAM: x[1], _Opt.RMS: x[2]}
    return max(scores, key=scores.get)


def _best_float32(x):
    y = x.astype(np.float32)
    scores = {"sgd": y[0], "adam": 0.5, "rms": y[2]}        # (one key static)
    return max(scores, key=scores.get)


def _best_then_used(x):
    scores = {"sgd": x[0], "adam": x[1], "rms": x[2]}
    best = max(scores, key=scores.get)
    return best == "rms", len(best), best


@pytest.mark.parametrize("fn", [_best_name, _least_loss, _best_by_lambda, _best_enum,
                                _best_float32, _best_then_used])
def test_max_min_of_static_names_by_runtime_keys(fn):
    same_each(fn, (np.array([0.3, 0.1, 0.7]),),
              (np.array([0.9, 0.9, 0.2]),),         # a tie: the first wins
              (np.array([np.nan, 2.0, 3.0]),),      # a NaN in front: nothing beats it
              (np.array([0.1, np.nan, 0.0]),))


def test_max_of_names_by_runtime_int_keys():
    def best(x):
        counts = {"x": int(x[0]), "y": int(x[1]), "z": int(x[2])}
        return max(counts, key=counts.get), min(counts, key=counts.get)
    same_each(best, (np.array([1, 5, 5]),), (np.array([7, 5, -1]),))


# --- native filtering iterators and Counter arithmetic over runtime numbers --------------

def _takewhile(x):
    return list(itertools.takewhile(lambda v: v < 3, x.tolist()))


def _dropwhile(x):
    return list(itertools.dropwhile(lambda v: v < 3, x.tolist()))


def _filterfalse(x):
    return list(itertools.filterfalse(lambda v: v < 3, x.tolist()))


def _filter(x):
    return list(filter(lambda v: v < 3, x.tolist()))


def _compress(x):
    return list(itertools.compress([1, 2, 3, 4], x.tolist()))


def _groupby(x):
    return [(k, len(list(g))) for k, g in itertools.groupby(x.tolist())]


@pytest.mark.parametrize("fn, name", [
    (_takewhile, "itertools.takewhile"), (_dropwhile, "itertools.dropwhile"),
    (_filterfalse, "itertools.filterfalse"), (_filter, "filter"),
    (_compress, "itertools.compress"), (_groupby, "itertools.groupby")])
def test_filtering_iterators_over_runtime_numbers_say_why(fn, name):
    err = raises_at(fn, (np.array([1, 1, 5, 1]),), tpucc.errors.StaticValueError,
                    match=rf"{name}\(\) over runtime values: which items it gives, and how "
                          "many, would be known only at run time", line_of="return")
    assert "truth value of an array" not in str(err) and "np.where instead" not in err.hint


def test_the_hinted_loop_compiles():
    def head_total(x):
        t = 0
        for v in x.tolist():
            if v >= 3:
                break
            t += v
        return t
    same_each(head_total, (np.array([1, 1, 5, 1]),), (np.array([4, 1, 5, 1]),))


@pytest.mark.parametrize("fn, what, advice", [
    (lambda x: Counter(a=int(x[0])) + Counter(a=1), r"Counter \+ Counter", "c.update(d)"),
    (lambda x: Counter(a=int(x[0])) - Counter(a=1), "Counter - Counter", "c.subtract(d)"),
    (lambda x: Counter(a=int(x[0])) | Counter(b=2), r"Counter \| Counter", "max(c[k], d[k])"),
    (lambda x: Counter(a=int(x[0])) & Counter(a=2), "Counter & Counter", "min(c[k], d[k])"),
    (lambda x: -Counter(a=int(x[0])), "-Counter", "c.update(d)")])
def test_counter_arithmetic_on_runtime_counts_says_why(fn, what, advice):
    err = raises_at(fn, (np.array([1, 1, 5, 1]),), tpucc.errors.StaticValueError,
                    match=f"`{what}` of runtime counts: the result keeps only the keys whose "
                          "count is positive", line_of="Counter")
    assert advice in err.hint


def test_counter_union_is_counters_not_dicts():
    # (`|` was dict's union, then Counter.update: 3 | 1 gave 4; `|=` kept a negative count)
    def unions(x):
        c = Counter(a=3, b=1)
        c |= Counter(a=1, b=-1, d=-2)
        return Counter(a=3) | Counter(a=1, b=2), c, x + 1
    same(unions, np.arange(2.0))


def test_counter_in_place_addition_says_why():
    def merged(x):
        c = Counter(a=int(x[0]))
        c += Counter(a=1)           # <- here
        return c
    raises_at(merged, (np.array([1, 1]),), tpucc.errors.StaticValueError,
              match="`Counter \\+= Counter` of runtime counts", line_of="<- here")


def test_counter_update_and_subtract_as_hinted_compile():
    def counts(x):
        c = Counter(a=int(x[0]))
        c.update(Counter(a=1, b=int(x[1])))
        d = Counter(a=int(x[0]))
        d.subtract(Counter(a=1))
        return dict(c), dict(d)
    same_each(counts, (np.array([1, 0]),), (np.array([-3, 4]),))


def test_static_counters_and_iterators_fold_as_before():
    same(lambda x: (list(itertools.takewhile(lambda v: v < 3, [1, 2, 5, 1])),
                    Counter(a=2) + Counter(a=-1), x + 1), np.arange(2.0))
