"""Ordinary Python around NumPy that compiled wrongly or was refused
(session 27: library helpers that call the program's functions back, the
operator module, type dispatch, deques, mapping views, formatting), each
pinned by a test against eager NumPy."""
import collections
import dataclasses
import functools
import inspect
import itertools
import operator
import types

import numpy as np
import pytest

from conftest import assert_same, check, raises_at

import tpucc


X = np.array([[1.0, 5.0], [3.0, 1.0], [0.0, 9.0]])


class Layer:
    def __init__(self, w):
        self.w = w

    def energy(self, k=1.0):
        return (self.w ** 2).sum() * k


# --- callables called back by itertools, functools and operator ---------------------------
# The library called them natively with tpucc's stand-ins for runtime values:
# `a.sum()` failed with E700 "'Array' object has no attribute 'sum'".

def accumulate_ufunc(x):
    return list(itertools.accumulate([x[0], x[1], x[2]], np.maximum))


def accumulate_array_method(x):
    return list(itertools.accumulate([x[0], x[1], x[2]],
                                     lambda a, b: a if a.sum() > b.sum() else b))


def accumulate_func_keyword_and_initial(x):
    return list(itertools.accumulate([x[0], x[1]], func=lambda a, b: a + b.sum(), initial=x[2]))


def starmap_ufunc(x):
    return list(itertools.starmap(np.add, [(x[0], x[1])]))


def starmap_method_and_class(x):
    dots = list(itertools.starmap(lambda a, b: a.dot(b), [(x[0], x[1]), (x[1], x[2])]))
    return dots, [layer.energy() for layer in itertools.starmap(Layer, [(x[0],), (x[1],)])]


def groupby_key(x):
    return [(k, [v.sum() for v in g])
            for k, g in itertools.groupby([x[0], x[1], x[2:]], key=lambda r: r.ndim)]


def takewhile_dropwhile_filterfalse(x):
    rows = [x[0], x[1], x[2:]]
    return (list(itertools.takewhile(lambda r: r.ndim == 1, rows)),
            list(itertools.dropwhile(lambda r: r.ndim == 1, rows)),
            list(itertools.filterfalse(lambda r: r.ndim == 1, rows)))


def method_caller(x):
    energies = list(map(operator.methodcaller("energy", k=0.5), [Layer(x), Layer(2 * x)]))
    return energies, operator.methodcaller("sum", axis=0)(x)


def getters_and_builtins(x):
    layers = [Layer(x[0]), Layer(x[1:])]
    by_size = sorted(layers, key=lambda layer: layer.w.size)
    return (operator.itemgetter(0, 2)(x), operator.attrgetter("w.shape")(layers[1]),
            [layer.w.sum() for layer in by_size],
            max(layers, key=lambda layer: layer.w.ndim).w.mean(),
            list(map(lambda r: r.sum(), x)),
            [r.max() for r in filter(lambda r: r.ndim == 1, [x[0], x[1:]])],
            functools.reduce(lambda a, b: np.maximum(a, b).sum() + a, [x[0], x[1], x[2]]))


def list_sort_key(x):
    layers = [Layer(x), Layer(x[0])]
    layers.sort(key=lambda layer: layer.w.ndim)
    return [layer.w.sum() for layer in layers]


def cmp_to_key_sort(x):
    return sorted([Layer(x[0]), Layer(x[1:])],
                  key=functools.cmp_to_key(lambda a, b: a.w.ndim - b.w.ndim))[0].w * 2


def print_in_callback(x):
    return list(itertools.accumulate([x[0], x[1]], lambda a, b: (print("acc", b.sum()), a + b)[1]))


@pytest.mark.parametrize("fn", [accumulate_ufunc, accumulate_array_method,
                                accumulate_func_keyword_and_initial, starmap_ufunc,
                                starmap_method_and_class, groupby_key,
                                takewhile_dropwhile_filterfalse, method_caller,
                                getters_and_builtins, list_sort_key, cmp_to_key_sort])
def test_library_calls_back_an_interpreted_function(fn):
    check(fn, X)


def test_print_in_a_callback_prints_at_run_time(capfd):
    check(print_in_callback, X)
    out = capfd.readouterr().out
    assert out == "acc 4.0\n" * 2


def takewhile_runtime_predicate(x):
    return list(itertools.takewhile(lambda r: r.sum() > 2, [x[0], x[1]]))


def test_runtime_predicate_in_a_library_callback_is_refused():
    raises_at(takewhile_runtime_predicate, (X,), tpucc.errors.StaticValueError,
              match=r"takewhile\(\) over runtime values", line_of="takewhile")


# --- the operator module's subscript, in-place and sequence functions ----------------------
# They were refused (E100 "_operator.getitem() is not supported on runtime arrays").

def nested_config_lookup(x):
    d = {"a": {"b": x}}
    return functools.reduce(operator.getitem, ["a", "b"], d) * 2


def subscript_functions(x):
    y = x.copy()
    operator.setitem(y, 0, 5.0)
    rows = [x[0], x[1], x[2]]
    operator.delitem(rows, 1)
    return operator.getitem(y, 1), operator.getitem(y, slice(1, None)), y, rows


def in_place_functions(x):
    v = float(x[0])
    same = operator.iadd(x, 1.0) is x           # the argument, updated in place
    return same, operator.ipow(x.copy(), 2), operator.isub(v, 2), operator.iconcat([x[0]], (x[1],))


def other_functions(x):
    return (operator.contains(x, 2.0), operator.truth(x[0] > 1), operator.not_(x[1]),
            operator.is_(x, x), operator.concat([x[0]], [x[1]]), operator.call(np.sum, x),
            operator.inv(x.astype(int)), operator.countOf([1, 2, 2], 2))


@pytest.mark.parametrize("fn", [nested_config_lookup, subscript_functions, in_place_functions,
                                other_functions])
def test_operator_module_functions(fn):
    check(fn, np.arange(4.0))


def concat_arrays(x):
    return operator.concat(x, x)


def test_operator_concat_of_arrays_raises_as_numpy():
    raises_at(concat_arrays, (np.arange(4.0),), tpucc.errors.UserCodeError,
              match="Concatenation operation is not implemented for NumPy arrays",
              line_of="concat(x, x)")


# --- x.__class__ of a runtime value: type dispatch -------------------------------------------
# `.__class__` of a runtime array was refused (E100), so functools.singledispatch
# (which reads args[0].__class__) was too.

@functools.singledispatch
def total(v):
    return v


@total.register(np.ndarray)
def _(v):
    return v.sum()


@total.register(float)
def _(v):
    return v * 10


@total.register(np.floating)
def _(v):
    return v * 100


@total.register(list)
def _(v):
    return sum(total(u) for u in v)


def single_dispatch(x):
    return (total(x) + total(1.0), total(x[0]), total(float(x[1])), total([x, x[1]]),
            total(int(x[2])))


def class_of_runtime_values(x):
    return (x.__class__ is np.ndarray, x[0].__class__, float(x[0]).__class__,
            int(x[0]).__class__, (x > 1).__class__.__name__)


class Processor:
    @functools.singledispatchmethod
    def run(self, v):
        return v

    @run.register
    def _(self, v: np.ndarray):
        return v * 2


def single_dispatch_method(x):
    return Processor().run(x), Processor().run(3)


@pytest.mark.parametrize("fn", [single_dispatch, class_of_runtime_values, single_dispatch_method])
def test_class_of_runtime_values_and_single_dispatch(fn):
    check(fn, np.arange(4.0))


def test_single_dispatch_compiles_once(builds):
    compiled = tpucc.compile(single_dispatch)
    for _ in range(3):
        compiled(np.arange(4.0))
    assert builds[0] == 1


# --- deque: appendleft / extendleft of runtime arrays ---------------------------------------
# Refused (E100) while append, pop and rotate compiled; popleft and rotate of a
# deque from outside the call ran once, while compiling.

def deque_prepends(x):
    hist = collections.deque([x[0], x[1]], maxlen=3)
    hist.appendleft(x[2])
    newest = np.stack(list(hist))
    more = collections.deque([x[0]], maxlen=3)
    more.extendleft(r * 2 for r in x)
    more.rotate(1)
    return newest, more.popleft(), list(more)


def deque_prepends_in_a_loop(x):
    d = collections.deque()
    for i in range(3):
        d.appendleft(x[i])
    return d.pop(), len(d), d[0]


def test_deque_prepends_runtime_arrays():
    check(deque_prepends, np.arange(6.0).reshape(3, 2))
    check(deque_prepends_in_a_loop, np.arange(6.0).reshape(3, 2))


OUTSIDE = collections.deque([1, 2, 3])


def pop_left_outside(x):
    OUTSIDE.popleft()
    return x


def test_deque_from_outside_is_not_changed_while_compiling():
    raises_at(pop_left_outside, (np.arange(3.0),), tpucc.errors.SideEffectError,
              match="outside the compiled function", line_of="popleft")
    assert list(OUTSIDE) == [1, 2, 3]


# --- mapping proxies and their views; inspect.Parameter.empty as a default ------------------
# Iterating Cfg.__dict__.items() or a MappingProxyType's values raised a
# TypeError Python never does ("'dict_items' object is not subscriptable"),
# and a keyword-only default of inspect.Parameter.empty counted as none
# ("missing a required argument"), which broke inspect.signature(fn) too.

class Cfg:
    SCALE = 2.0
    SHIFT = 1.0


PROXY = types.MappingProxyType({"a": 1.0, "b": 2.0, "w": np.ones(3)})


def class_dict_items(x):
    return [x * v for k, v in Cfg.__dict__.items() if k.isupper()]


def proxy_views(x):
    return (sum(x * v for k, v in PROXY.items() if k != "w"), [k for k in PROXY], len(PROXY),
            "a" in PROXY, PROXY["b"] * x, list(PROXY.values())[2] + x)


@pytest.mark.parametrize("fn", [class_dict_items, proxy_views])
def test_mapping_proxy_views_iterate(fn):
    check(fn, np.arange(3.0))


def test_class_dict_items_follow_the_class(builds):
    compiled = tpucc.compile(class_dict_items)
    x = np.arange(3.0)
    compiled(x)
    try:
        Cfg.SCALE = 5.0
        Cfg.EXTRA = 7.0
        assert_same(class_dict_items(x), compiled(x))
    finally:
        Cfg.SCALE = 2.0
        del Cfg.EXTRA
    assert builds[0] == 2
    PROXY["w"][:] = 3.0                 # an array in the proxied dict: a runtime input
    try:
        assert_same(proxy_views(x), tpucc.compile(proxy_views)(x))
    finally:
        PROXY["w"][:] = 1.0


_missing = inspect.Parameter.empty


def scaled(x, *, factor=_missing):
    return x if factor is _missing else x * factor


def shifted(x, shift=_missing):
    return x if shift is _missing else x + shift


def empty_sentinel_defaults(x):
    return (scaled(x), scaled(x, factor=2.0), shifted(x=x), shifted(x, shift=1.0),
            [p.name for p in inspect.signature(scaled).parameters.values()])


def checked_arguments(fn):
    signature = inspect.signature(fn)

    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return fn(*bound.args, **bound.kwargs)
    return wrapper


@checked_arguments
def weighted(x, w=2.0, *, bias=0.5):
    return x * w + bias


def argument_checking_decorator(x):
    return weighted(x), weighted(x, 3.0, bias=1.0)


@pytest.mark.parametrize("fn", [empty_sentinel_defaults, argument_checking_decorator])
def test_parameter_empty_default_and_signature_bind(fn):
    check(fn, np.arange(3.0))


# --- f"{obj!r}", f"{obj!s}", f"{obj!a}" and ascii(obj) of user objects in print ---------------
# !r and !s were refused (E400) where f"{obj}" printed at run time; !a and
# ascii() ran the user's __repr__ natively on tpucc's Array (E700).

class Custom:
    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return f"Custom(v={self.v:.2f})"


class Shown:
    def __init__(self, v):
        self.v = v

    def __str__(self):
        return f"P<{self.v}>"

    def __repr__(self):
        return "Shown(é)"


@dataclasses.dataclass
class Res:
    loss: float
    w: object = None


def print_converted_objects(x):
    print(f"{Custom(x[0])!r}")
    print(f"result: {Res(float(x.sum()), x)!r} {[Custom(x[0])]!r}")
    print(f"{Custom(x[0])!s} {Shown(x[1])!s} {Shown(x[1])!r:.3}")
    print(f"{Custom(x[0])!a}", ascii(Custom(x[1])), f"{Custom(2.0)!r} {'abc'!r} {3!a}")
    return ascii(Shown(1)), ascii([Shown(2)]), f"{Shown(3)!a}"


def test_converted_user_objects_print_at_run_time(capfd):
    x = np.array([1.25, 2.5, -3.0])
    print_converted_objects(x.copy())
    expected = capfd.readouterr().out
    check(print_converted_objects, x)
    assert capfd.readouterr().out == expected * 2      # eager, then compiled


def padded_runtime_repr(x):
    print(f"{Custom(x[0])!r:>20}|")
    return x


def test_padding_a_runtime_repr_is_refused():
    raises_at(padded_runtime_repr, (np.arange(3.0),), tpucc.errors.StaticValueError,
              match="runtime value", line_of="!r:>20")


# --- "...".format(runtime values) in print ----------------------------------------------------
# Refused with E100 "str.format() is not supported on runtime arrays" and a
# hint about NumPy functions, where the f-string of the same value printed.

def print_str_format(x):
    v = float(x.mean())
    print("loss {:.3f}".format(v))
    print("{0} {1:.2f} {name!r} {0:>8.3f}".format(x[0], float(x[1]), name=int(x[2])))
    print("a={} b={!r} c={}".format(x, Custom(x[0]), [x[0], 1]))
    print("{} and {}".format(f"{x[0]:.1f}", "s"), "{:>5}|{!s}".format(int(x[2]), Custom(2.0)))
    print("{0.shape} {0[1]} {cfg[lr]:.1e}".format(x, cfg={"lr": x[2] / 1000}))
    return v


def test_str_format_of_runtime_values_prints_at_run_time(capfd):
    x = np.array([1.25, 2.5, -3.0])
    print_str_format(x.copy())
    expected = capfd.readouterr().out
    check(print_str_format, x)
    assert capfd.readouterr().out == expected * 2      # eager, then compiled


def str_format_kept(x):
    label = "{:.3f}".format(float(x[0]))
    return label


def str_format_bad_spec(x):
    print("{:d}".format(float(x[0])))
    return x


def str_format_missing_field(x):
    print("{2}".format(x[0]))
    return x


def test_str_format_of_runtime_values_refusals_and_errors():
    x = np.arange(3.0)
    raises_at(str_format_kept, (x,), tpucc.errors.StaticValueError,
              match="formatting a runtime value into a string", line_of="label =")
    raises_at(str_format_bad_spec, (x,), tpucc.errors.UserCodeError,
              match="Unknown format code 'd'", line_of="{:d}")
    raises_at(str_format_missing_field, (x,), tpucc.errors.UserCodeError,
              match="IndexError: Replacement index 2", line_of="{2}")
