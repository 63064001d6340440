"""Bugs found by session 24's sweep of Python language breadth: each program
now gives eager Python's result, or a refusal that names the line."""
import contextlib
import dataclasses
import functools

import numpy as np
import pytest

import tpucc
from conftest import check, count_hlo, hlo, raises_at

TABLE = {0: "zero", 1: "one", 2: "two"}


# --- a runtime value as a dict key or set item: refused, never a silent miss ------

def table_get(x):
    return TABLE.get(x.argmax(), "missing")


def table_setdefault(x):
    return dict(TABLE).setdefault(x.argmax(), "new")


def table_map(x):
    return list(map(TABLE.get, [x.argmax()]))


@pytest.mark.parametrize("program, marker", [(table_get, "TABLE.get"),
                                             (table_setdefault, "setdefault"),
                                             (table_map, "map(")])
def test_a_runtime_dict_key_is_refused_not_looked_up_by_identity(program, marker):
    raises_at(program, (np.array([1.0, 5.0, 2.0]),), tpucc.StaticValueError,
              match="runtime value as a dict key", line_of=marker)


# --- `in` with runtime values ------------------------------------------------------

def memberships(x):
    k = x.argmax()
    return (k in (1, 2), k not in [0, 5], 2.0 in x, 7.0 not in x, x[0] in (1.0, 3.0))


def branch_on_membership(x):
    if x.argmax() in (1, 2):
        return x * 2
    return x


@pytest.mark.parametrize("x", [np.array([1.0, 5.0, 2.0]), np.array([9.0, 5.0, 2.0])])
def test_in_on_runtime_values_is_a_runtime_python_bool(x):
    check(memberships, x)
    check(branch_on_membership, x)


def test_in_of_a_whole_array_in_a_list_is_numpys_ambiguity_error():
    raises_at(lambda x: x in [1.0, 2.0], (np.ones(3),), tpucc.UserCodeError,
              match="ambiguous")


# --- descriptors, metaclasses --------------------------------------------------------

class Scaled:
    def __get__(self, obj, typ=None):
        return obj._v

    def __set__(self, obj, v):
        obj._v = v * 10


class Holder:
    _v = 1.0
    d = Scaled()


def through_descriptor(x):
    h = Holder()
    h.d = x
    return h.d


def test_assigning_through_a_data_descriptor_runs_its_set():
    check(through_descriptor, np.arange(3.0))


class Counting(type):
    def __call__(cls, *args):
        return super().__call__(*args)


class Made(metaclass=Counting):
    def __init__(self, v):
        self.v = v


def test_a_metaclass_call_is_refused_not_skipped():
    raises_at(lambda x: Made(x).v, (np.ones(2),), tpucc.UnsupportedError,
              match="metaclass Counting defines __call__")


# --- Python int powers -------------------------------------------------------------

def int_to_negative_power(x, n):
    a = 2
    for _ in range(n):          # a runtime loop: a is a runtime Python int
        a = a + 1
    return a ** -1, a ** 2, 3 ** 2


def int_to_runtime_power(x, n):
    b = 0
    for _ in range(n):
        b = b - 1
    return 2 ** b


def test_a_runtime_python_int_to_a_negative_power_is_a_float():
    check(int_to_negative_power, np.zeros(2), np.int64(2))


def test_a_python_int_to_a_runtime_int_power_is_refused():
    raises_at(int_to_runtime_power, (np.zeros(2), np.int64(2)), tpucc.StaticValueError,
              match="depending on the exponent's sign", line_of="2 ** b")


# --- print's end and sep -------------------------------------------------------------

def test_print_keeps_end_and_sep(capfd):
    def f(x):
        print("a", end="")
        print("b", x.sum(), sep="{}", end="!\n")
        return x
    f(np.zeros(2))
    eager = capfd.readouterr().out
    tpucc.compile(f)(np.zeros(2))
    assert capfd.readouterr().out == eager == "ab{}0.0!\n"


# --- 3.12's inlined comprehensions and cell variables ------------------------------------

def late_binding(x):
    k = 3
    fs = [lambda y, i=i: y * i + k for i in range(3)]
    gs = [lambda y: y * i for i in range(3)]
    return [g(x) for g in fs], [g(x) for g in gs]


def comprehension_keeps_the_outer_name(x):
    i = 10
    fs = [lambda: i * x for i in range(3)]

    def inner():
        return i
    return [g() for g in fs], i, inner()


@pytest.mark.parametrize("program", [late_binding, comprehension_keeps_the_outer_name])
def test_lambdas_made_in_comprehensions_keep_their_cells(program):
    check(program, np.arange(3.0))


# --- dicts and sets changed while iterated ---------------------------------------------

def grow_while_iterating(x):
    d = {"a": x}
    for k in d:
        d[k + "2"] = d[k] * 2
    return d


def test_a_dict_changed_size_during_iteration_raises_as_python_does():
    raises_at(grow_while_iterating, (np.ones(2),), tpucc.UserCodeError,
              match="dictionary changed size during iteration")


def test_rebinding_items_while_iterating_is_fine():
    def scale(x):
        d = {"a": x, "b": x + 1}
        for k in d:
            d[k] = d[k] * 2
        return d
    check(scale, np.ones(2))


# --- generators: an exception after the items a consumer takes ---------------------------

def any_stops_early(x):
    return x + any(10 // v > 0 for v in [1, 0])


def next_stops_early(x, d={"a": 1}):
    return x + next(d[k] for k in ["a", "b"])


def break_before_the_raise(x):
    for t in (10 // v for v in [1, 2, 0]):
        if t < 6:
            break
        x = x + t
    return x


@pytest.mark.parametrize("program", [any_stops_early, next_stops_early, break_before_the_raise])
def test_a_generator_raises_only_where_its_consumer_gets_to(program):
    check(program, np.zeros(3))


def test_a_consumer_that_reaches_the_raise_gets_it():
    raises_at(lambda x: x + sum(10 // v for v in [1, 0]), (np.zeros(1),), tpucc.UserCodeError,
              match="ZeroDivisionError")


# --- decorators applied inside the compiled function ---------------------------------------

def doubling(fn):
    @functools.wraps(fn)
    def wrapper(*a):
        return fn(*a) * 2
    return wrapper


def decorated_inside(x):
    @doubling
    def plus_one(y):
        return y + 1
    return plus_one(x), plus_one.__name__


def context_manager_inside(x):
    @contextlib.contextmanager
    def scope():
        yield 3
    with scope() as k:
        return x * k


@pytest.mark.parametrize("program", [decorated_inside, context_manager_inside])
def test_functools_wraps_inside_the_compiled_function(program):
    check(program, np.arange(3.0))


# --- `match` statements: mapping, sequence and class patterns ----------------------------

@dataclasses.dataclass
class Point:
    x: float
    y: object


def dispatch(x, c):
    match c:
        case {"type": "relu", "k": k}:
            return np.maximum(x, 0) * k
        case ("conv", k, *rest):
            return x * k + len(rest)
        case Point(1, y=y):
            return x + y
        case Point(x=px):
            return x * px
        case [a, b]:
            return x * a + b
        case int(n) if n > 3:
            return x * n
        case str() | float():
            return x - 1
        case _:
            return x * 0


@pytest.mark.parametrize("config", [{"type": "relu", "k": 2}, ("conv", 3, 4, 5),
                                    Point(1, 2.5), Point(2, 0), [2, 3], 5, 2, "s",
                                    1.5, None, {"type": "other"}])
def test_match_on_static_values_with_every_pattern_kind(config):
    check(dispatch, np.arange(3.0) - 1, config)


def match_runtime_subject(x):
    match x.argmax():
        case 0:
            return x * 10
        case 1 | 2:
            return x * 20
        case _:
            return x


def test_match_on_a_runtime_value_is_a_runtime_branch():
    for x in (np.array([3.0, 1, 2]), np.array([1.0, 5, 2]), np.array([1.0, 2, 3, 9])):
        compiled = check(match_runtime_subject, x)
    assert count_hlo(hlo(compiled, x), "conditional") >= 1


def test_a_context_manager_used_outside_with_is_refused_clearly():
    @contextlib.contextmanager
    def cm():
        yield 2

    def by_hand(x):
        c = cm()
        return x * c.__enter__()
    raises_at(by_hand, (np.ones(2),), tpucc.UnsupportedError, match="`with` statement only")


# --- review of the above (a fourth sweep) ---------------------------------------------------

def in_out_of_range(x):
    u = np.uint8(1) + x.astype(np.uint8)[0]
    return u in (-255,), u in (257,), np.int32(5) + x.astype(np.int32)[0] in (2 ** 32 + 5,), \
        -255 in (x.astype(np.uint8) + 1)


def test_in_compares_python_ints_out_of_the_dtypes_range_as_numpy():
    check(in_out_of_range, np.zeros(3))


def test_max_by_key_chooses_between_array_items():
    def pick(x):
        rows = [x[:2], x[2:4], x[4:]]
        return max(rows, key=lambda r: r.sum()), min(rows[0], rows[1], key=lambda r: r[0])
    check(pick, np.array([1.0, 2.0, 5.0, 2.0, 3.0, 4.0]))


def _items(keys, table):
    for k in keys:
        yield table[k]


def test_a_generators_exception_is_caught_by_the_consumers_try():
    def f(x):
        out = []
        try:
            for v in _items(["a", "missing", "b"], {"a": 1.0, "b": 2.0}):
                out.append(v)
        except KeyError as e:
            return x + len(out), str(e)
        return x, ""

    def zipped(x):
        out = []
        try:
            for a, b in zip([1.0, 2.0], _items(["a", "missing"], {"a": 2.0})):
                out.append(a * b)
        except KeyError:
            pass
        return x, out
    check(f, np.ones(2))
    check(zipped, np.ones(2))


def comprehension_shadows_a_captured_variable(x):
    k = 10

    def g():
        return k
    total = sum([g() + k for k in range(3)])
    return x + total, {k: g() for k in range(3)}[2], [g() for k in x]


def test_a_comprehension_variable_does_not_rebind_the_outer_captured_one():
    check(comprehension_shadows_a_captured_variable, np.zeros(2))
