"""Bugs from session 35's sweep (part A): each program now gives eager
NumPy's (and Python's) result, or is refused with an error that says what
is wrong, at the user's line, with a hint that works."""
import logging
import threading
import warnings

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at


# --- @tpucc.compile on a method binds self ---------------------------------------------

class _Scaled:
    def __init__(self, w):
        self.w = w

    @tpucc.compile
    def forward(self, x):
        return self.shift(x) * self.w

    @tpucc.compile
    def shift(self, x):          # a compiled method called from compiled code
        return x + 1


def test_compiled_method_binds_self():
    a, b = _Scaled(np.ones(2)), _Scaled(np.full(2, 3.0))
    np.testing.assert_array_equal(a.forward(np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(b.forward(np.ones(2)), [6.0, 6.0])
    np.testing.assert_array_equal(_Scaled.forward(b, np.ones(2)), [6.0, 6.0])
    assert isinstance(_Scaled.forward, tpucc.CompiledFunction)


# --- tpucc.compile of something not callable -------------------------------------------

def test_compile_of_a_call_result_is_refused_at_once():
    def f(x):
        return x + 1
    with pytest.raises(E.OptionError, match="expected a function, got ndarray") as info:
        tpucc.compile(f(np.ones(2)))
    assert "tpucc.compile(f)" in info.value.hint
    with pytest.raises(E.OptionError, match="got int 3"):
        tpucc.compile(unroll=4)(3)


# --- `raise E("... %s" % runtime)`: the hint says how to write a raise's message -------

def test_percent_format_in_a_raise_hints_at_an_f_string():
    def f(x):
        s = x.sum()
        if s > 5:
            raise ValueError("sum too big: %s" % s)
        return x
    err = raises_at(f, (np.array([1.0, 2.0, 7.0]),), E.StaticValueError,
                    "formatting a runtime value", line_of="% s")
    assert 'raise ValueError(f"' in err.hint and "print(" not in err.hint

    def fixed(x):               # the hint, followed
        s = x.sum()
        if s > 5:
            raise ValueError(f"sum too big: {s}")
        return x
    check(fixed, np.array([1.0, 2.0, 0.5]))
    with pytest.raises(ValueError, match="sum too big: 10.0"):
        tpucc.compile(fixed)(np.array([1.0, 2.0, 7.0]))


def test_percent_format_of_a_static_value_still_compiles():
    check(lambda x: ("n=%d" % x.shape[0], "%s-%s" % ("a", 2), x), np.ones(3))


# --- returning a range with a runtime bound: a hint that works -------------------------

def test_returned_runtime_range_hints_at_returning_its_bound():
    def f(x):
        return range(x.sum())
    err = raises_at(f, (np.ones(4, int),), E.UnsupportedError, "returns a range with a runtime")
    assert "list(" not in err.hint and "return n" in err.hint
    check(lambda x: x.sum(), np.ones(4, int))           # the hint, followed


# --- np.zeros(n / 2): NumPy's TypeError, and a hint to use // --------------------------

@pytest.mark.parametrize("make", [lambda n: np.zeros(n / 2), lambda n: np.ones((n / 2, 2)),
                                  lambda n: np.full(np.float64(n), 1.0), lambda n: np.empty(None)])
def test_a_shape_that_is_not_ints_raises_numpys_error(make):
    with pytest.raises(TypeError) as eager:
        make(4)
    err = raises_at(lambda x: make(x.shape[0]), (np.ones(4),), E.UserCodeError)
    assert err.message == f"TypeError: {eager.value}"
    if "None" not in str(eager.value):
        assert "//" in err.hint


def test_a_float_shape_error_is_caught_as_a_type_error():
    def f(x):
        try:
            return np.zeros(x.shape[0] / 2)
        except TypeError:
            return np.zeros(x.shape[0] // 2)      # the hint, followed
    check(f, np.ones(4))


# --- None (or a str) as an array operand: E210 saying so, not E400 ---------------------

@pytest.mark.parametrize("f", [lambda x, w=None: x @ w, lambda x: x * None,
                               lambda x: np.concatenate([x, None]), lambda x: None - x])
def test_none_as_an_operand_is_a_dtype_error_naming_none(f):
    err = raises_at(f, (np.ones(3),), E.DTypeError, "None used as an array operand")
    assert "is None" in err.hint


def test_a_str_operand_is_a_dtype_error():
    raises_at(lambda x: x + "a", (np.ones(3),), E.DTypeError,
              r"a str \('a'\) used as an array operand: NumPy would make a string array")


# --- a local no path assigned: Python's UnboundLocalError (E700), catchable ------------

def test_unbound_local_read_is_pythons_error_and_caught():
    def f(x):
        try:
            y = y + 1       # noqa: F821 - the program's own mistake, caught
        except UnboundLocalError:
            y = x
        return y
    check(f, np.ones(2))

    def g(x):
        total = total + x.sum()     # noqa: F821
        return total
    raises_at(g, (np.ones(2),), E.UserCodeError,
              "UnboundLocalError: cannot access local variable 'total'", line_of="total +")


def test_del_of_an_unbound_local_raises():
    def f(x):
        y = x * 2
        del z               # noqa: F821 - meant `del y`
        return x
    raises_at(f, (np.ones(2),), E.UserCodeError,
              "UnboundLocalError: cannot access local variable 'z'", line_of="del z")


def test_del_after_a_runtime_loop_that_may_not_bind_it_is_checked_at_run_time():
    def f(x):
        for i in range(int(x[0])):
            y = i
        del y
        return x
    check(f, np.ones(2))
    with pytest.raises(UnboundLocalError, match="local variable 'y'"):
        tpucc.compile(f)(np.zeros(2))


# --- warnings.warn at compile time: shown at the program's line ------------------------

def _warns_from_helper(x):
    warnings.warn("from helper", DeprecationWarning, stacklevel=2)
    return x


def _warning_places(fn, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(x)
    return [(w.filename, w.lineno, w.category, str(w.message)) for w in caught]


def test_warnings_warn_is_shown_at_the_programs_line():
    def f(x):
        if x.shape[0] > 1:
            warnings.warn("big input")
        return _warns_from_helper(x) + 1
    eager = _warning_places(f, np.ones(2))
    assert _warning_places(tpucc.compile(f), np.ones(2)) == eager
    assert [w[0] for w in eager] == [__file__, __file__]


def test_warnings_warn_is_filtered_by_the_programs_module():
    def f(x):
        warnings.warn("noisy", UserWarning)
        return x
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", module=__name__)
        tpucc.compile(f)(np.ones(2))
    assert not caught


# --- logging and threads: E100 naming them, with a hint that works --------------------

_log = logging.getLogger("tpucc.test_fixes_session35a")


def test_logging_is_refused_naming_logging():
    def f(x):
        _log.warning("starting")
        return x + 1
    err = raises_at(f, (np.ones(3),), E.UnsupportedError, r"logging\.Logger\.warning\(\)",
                    line_of="_log.warning")
    assert "print()" in err.hint
    raises_at(lambda x: logging.info("x") or x, (np.ones(3),), E.UnsupportedError,
              r"logging\.info\(\)")

    def fixed(x):           # the hint, followed
        print("starting")
        return x + 1
    check(fixed, np.ones(3))


def test_starting_a_thread_is_refused_naming_threading():
    def g(x):
        t = threading.Thread(target=print)
        t.start()
        return x + 1
    err = raises_at(g, (np.ones(3),), E.UnsupportedError, r"threading\.Thread\(\)",
                    line_of="threading.Thread")
    assert "container" not in err.hint


def test_a_library_changing_its_own_state_hints_to_call_it_outside():
    def f(x):
        warnings.simplefilter("ignore")     # changes warnings.filters, a list of the library's
        return x + 1
    # (session 44A: inside `with warnings.catch_warnings():` it compiles; outside, this)
    err = raises_at(f, (np.ones(3),), E.SideEffectError,
                    r"outside a `with warnings.catch_warnings\(\):` block",
                    line_of="simplefilter")
    assert "before the compiled function" in err.hint and "new container" not in err.hint


# --- run-time errors in a helper name the call that led there --------------------------

def _positive_norm(v):
    s = v.sum()
    if s <= 0:              # (an `assert` here would be pytest's, rewritten)
        raise ValueError("sum must be positive")
    return v / s


def _two_norms(x, y):
    a = _positive_norm(x)
    b = _positive_norm(y)           # the failing call
    return a + b


def test_runtime_assert_in_a_helper_names_the_call():
    check(_two_norms, np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="sum must be positive") as info:
        tpucc.compile(_two_norms)(np.ones(3), -np.ones(3))
    err = info.value
    assert err.loc.func == "_positive_norm"
    assert [c.func for c in err.callers] == ["_two_norms"]
    assert "b = _positive_norm(y)" in str(err)


def test_runtime_index_error_in_a_helper_names_the_call():
    def pick(v, i):
        return v[i]

    def f(x, i):
        return pick(x, i)
    with pytest.raises(IndexError) as info:
        tpucc.compile(f, runtime_args=("i",))(np.ones(3), 5)
    assert "called from" in str(info.value) and "return pick(x, i)" in str(info.value)


MODEL = '''
import numpy as np
from tpucc.aot import entry

def helper(v):
    assert v.sum() > 0, "needs a positive sum"
    return v * 2

@entry("f64[3]")
def twice(x):
    return helper(x)
'''


def test_an_artifact_keeps_the_calls_of_its_checks(tmp_path_factory):
    from tpucc import aot
    from conftest import build_model_source
    out, _ = build_model_source(tmp_path_factory, "calls35a", MODEL)
    loaded = aot.load(str(out / "twice.tpucc"))
    with pytest.raises(AssertionError, match="needs a positive sum") as info:
        loaded(-np.ones(3))
    assert [c.func for c in info.value.callers] == ["twice"]
