"""`try` / `except` / `else` / `finally` and `with` on context managers
written in Python (tpucc/infer/exceptions.py): the programs in
tests/user_programs_exceptions.py compiled and compared with eager runs,
the state they leave included; runtime control flow inside a `try` body
still compiles to While / Conditional; and what is refused."""
import contextlib

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import count_hlo, hlo, raises_at
from test_user_programs_session17 import assert_same_state
import user_programs_exceptions as P  # noqa: E402

X = np.array([1.0, -2.0, 3.5], np.float32)


def log():
    return {"entered": 0, "exited": 0}


CASES = {
    "lookup_default": (P.lookup_default, lambda: (X,)),
    "lookup_found": (P.lookup_found, lambda: (X,)),
    "except_as_reads_args": (P.except_as_reads_args, lambda: (X,)),
    "tuple_of_classes": (P.tuple_of_classes, lambda: (X,)),
    "clause_order": (P.clause_order, lambda: (X,)),
    "user_exception_from_callee": (P.user_exception_from_callee, lambda: (X,)),
    "finally_runs_on_return": (P.finally_runs_on_return, lambda: (X, {"calls": 0, "last": 0.0})),
    "nested_try": (P.nested_try, lambda: (X,)),
    "reraise": (P.reraise, lambda: (X,)),
    "raise_from": (P.raise_from, lambda: (X,)),
    "bare_except": (P.bare_except, lambda: (X,)),
    "try_in_loop_continue": (P.try_in_loop_continue,
                             lambda: (X, ["scale", "missing", "shift", "nope"])),
    "try_around_loop": (P.try_around_loop, lambda: (X,)),
    "loop_partial_iteration": (P.loop_partial_iteration, lambda: (X,)),
    "runtime_if_inside_try": (P.runtime_if_inside_try, lambda: (X,)),
    "runtime_if_inside_try_neg": (P.runtime_if_inside_try, lambda: (-X * 3,)),
    "runtime_while_inside_try": (P.runtime_while_inside_try, lambda: (X, np.int64(4))),
    "try_under_runtime_if_in_helper": (P.try_under_runtime_if_in_helper, lambda: (X,)),
    "try_under_runtime_if_in_helper_neg": (P.try_under_runtime_if_in_helper, lambda: (-X,)),
    "hasattr_style_found": (P.hasattr_style, lambda: (X, P.Holder())),
    "hasattr_style_missing": (P.hasattr_style, lambda: (X, P.Plain())),
    "numpy_static_error": (P.numpy_static_error, lambda: (X,)),
    "finally_restores_flag": (P.finally_restores_flag, lambda: (P.Model(), X)),
    "with_user_manager": (P.with_user_manager, lambda: (X, log())),
    "with_return_inside": (P.with_return_inside, lambda: (X, log())),
    "with_return_inside_short": (P.with_return_inside, lambda: (X[:2], log())),
    "with_runtime_if_inside": (P.with_runtime_if_inside, lambda: (X, log())),
    "with_suppressing_manager": (P.with_suppressing_manager, lambda: (X,)),
    "with_suppress": (P.with_suppress, lambda: (X,)),
    "with_not_suppressed_then_caught": (P.with_not_suppressed_then_caught, lambda: (X,)),
    "nested_with": (P.nested_with, lambda: (X, log())),
    "exception_in_with_caught_outside": (P.exception_in_with_caught_outside,
                                         lambda: (X, log())),
    "try_inside_runtime_while": (P.try_inside_runtime_while, lambda: (X, np.int64(3))),
    "try_inside_runtime_if": (P.try_inside_runtime_if, lambda: (X,)),
    "try_inside_runtime_if_neg": (P.try_inside_runtime_if, lambda: (-X,)),
    "with_inside_runtime_while": (P.with_inside_runtime_while,
                                  lambda: (X, np.int64(3), log())),
    "try_inside_grad": (P.try_inside_grad,
                        lambda: (np.ones((3, 2), np.float32), X.reshape(1, 3))),
    "exception_from_callee_loop": (P.exception_from_callee_loop, lambda: (X,)),
    "layers_with_optional_activation": (
        P.layers_with_optional_activation,
        lambda: (X.reshape(1, 3), [P.Layer(np.eye(3, dtype=np.float32), "tanh"),
                                   P.Layer(np.ones((3, 2), np.float32))])),
    "finally_return_overrides": (P.finally_return_overrides, lambda: (X,)),
    "loop_break_in_finally_body": (P.loop_break_in_finally_body, lambda: (X,)),
    "contextmanager_restores_flag": (P.contextmanager_restores_flag, lambda: (P.Model(), X)),
    "contextmanager_yields_a_runtime_value": (P.contextmanager_yields_a_runtime_value,
                                              lambda: (X,)),
    "contextmanager_catches_the_body_exception": (
        P.contextmanager_catches_the_body_exception, lambda: (X, {"swallowed": 0})),
    "contextmanager_does_not_catch_other_class": (
        P.contextmanager_does_not_catch_other_class, lambda: (X, {"swallowed": 0})),
    "contextmanager_in_runtime_loop": (P.contextmanager_in_runtime_loop,
                                       lambda: (X, np.int64(3))),
    "nested_contextmanagers": (P.nested_contextmanagers, lambda: (X, {"depth": 0})),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_matches_eager(name):
    fn, make_args = CASES[name]
    eager_args, compiled_args = make_args(), make_args()
    expected = fn(*eager_args)
    compiled = tpucc.compile(fn)
    for call in range(2):           # the second call runs the cached executable
        actual = compiled(*compiled_args)
        if call == 0:
            assert_same_state(expected, actual, "result")
            assert_same_state(eager_args, compiled_args, "arguments")
        else:
            assert_same_state(fn(*eager_args), actual, "result")
            assert_same_state(eager_args, compiled_args, "arguments")


def test_with_global_manager_leaves_its_state():
    expected = P.with_global_manager(X)
    actual = tpucc.compile(P.with_global_manager)(X)
    assert_same_state(expected, actual)
    assert P.TIMER.depth == 0


def test_runtime_control_flow_inside_try_stays_runtime():
    compiled = tpucc.compile(P.runtime_if_inside_try)
    assert count_hlo(hlo(compiled, X), "conditional") >= 1
    compiled = tpucc.compile(P.runtime_while_inside_try)
    assert count_hlo(hlo(compiled, X, np.int64(4)), "while") == 1
    compiled = tpucc.compile(P.with_runtime_if_inside)
    assert count_hlo(hlo(compiled, X, log()), "conditional") >= 1
    # A `try` and a `with` inside a runtime loop: the loop stays one While.
    compiled = tpucc.compile(P.try_inside_runtime_while)
    assert count_hlo(hlo(compiled, X, np.int64(3)), "while") == 1
    compiled = tpucc.compile(P.with_inside_runtime_while)
    assert count_hlo(hlo(compiled, X, np.int64(3), log()), "while") == 1
    compiled = tpucc.compile(P.try_inside_runtime_if)
    assert count_hlo(hlo(compiled, X), "conditional") >= 1


def test_manager_enter_and_exit_run_once_per_call():
    state = log()
    compiled = tpucc.compile(P.with_user_manager)
    for _ in range(3):
        compiled(X, state)
    assert state == {"entered": 3, "exited": 3}


# --- refused or left uncaught -------------------------------------------------------------

def runtime_index_in_try(x, i):
    try:
        v = x[i]
    except IndexError:
        v = x[0]
    return v


def runtime_index_in_try_other_class(x, i):
    try:
        v = x[i] * SETTINGS_MISSING_OK()
    except KeyError:
        v = x[0]
    return v


def SETTINGS_MISSING_OK():
    return P.SETTINGS.get("scale", 1.0)


def runtime_index_in_finally_only(x, i):
    try:
        v = x[i]
    finally:
        x = x + 1
    return v + x


def raised_in_runtime_branch(x):
    try:
        if x.sum() > 0:
            y = x * P.SETTINGS["missing"]
        else:
            y = x
    except KeyError:
        y = x * 0
    return y


def tpucc_refusal_not_caught(x):
    try:
        y = x[x > 0]
    except Exception:
        y = x
    return y


@contextlib.contextmanager
def _yields_in_a_loop(n):
    for _ in range(n):
        yield


def yield_in_a_loop(x):
    with _yields_in_a_loop(2):
        y = x + 1
    return y


@contextlib.contextmanager
def _yields_twice():
    yield
    yield


def yields_twice(x):
    with _yields_twice():
        y = x + 1
    return y


def manager_made_outside(x, manager):
    with manager:
        y = x + 1
    return y


def except_star(x):
    try:
        raise ExceptionGroup("g", [KeyError("k")])
    except* KeyError:
        x = x + 1
    return x


def test_runtime_index_check_inside_try_is_refused():
    raises_at(runtime_index_in_try, (X, np.int64(1)), E.UnsupportedError,
              match="whether this index is in bounds depends on runtime values: compiled code "
                    "raises its IndexError when the call returns", line_of="v = x[i]")


def test_runtime_assert_inside_try_is_refused():
    raises_at(P.runtime_assert_in_try, (X,), E.UnsupportedError,
              match="AssertionError.*line [0-9]+", line_of="assert x.sum")
    raises_at(P.runtime_raise_in_try_caught_by_base_class, (X,), E.UnsupportedError,
              match="ValueError", line_of="if x.sum() > 100")


def test_runtime_check_under_a_clause_of_another_class_compiles():
    from conftest import check
    check(runtime_index_in_try_other_class, X, np.int64(2))
    check(runtime_index_in_finally_only, X, np.int64(1))


def test_exception_inside_runtime_branch_is_not_caught():
    # Eagerly the KeyError happens only when the sum is positive: tpucc
    # cannot raise at run time, so it stays the compile error it was.
    raises_at(raised_in_runtime_branch, (X,), E.UserCodeError, match="KeyError",
              line_of='P.SETTINGS["missing"]')


def test_compiler_refusal_is_not_caught_by_except_exception():
    raises_at(tpucc_refusal_not_caught, (X,), E.ShapeError, match="x\\[mask\\]",
              line_of="return y")


def test_contextmanager_generator_refusals():
    raises_at(yield_in_a_loop, (X,), E.UnsupportedError, match="`yield` inside a loop")
    raises_at(yields_twice, (X,), E.UserCodeError, match="RuntimeError: generator didn't stop")
    err = raises_at(manager_made_outside, (X, _yields_twice()), E.UnsupportedError,
                    match="made outside the compiled code", line_of="with manager")
    assert "__enter__" in err.hint


def test_except_star_is_refused():
    raises_at(except_star, (X,), E.UnsupportedError, match="except\\*. \\(exception groups\\) is not supported")


def test_uncaught_exception_still_names_its_line():
    def f(x):
        try:
            y = x * P.SETTINGS["missing"]
        except AttributeError:
            y = x
        return y
    raises_at(f, (X,), E.UserCodeError, match="KeyError", line_of='P.SETTINGS["missing"]')


def test_finally_runs_before_an_uncaught_error_leaves():
    def f(x, state):
        try:
            y = x * P.SETTINGS["missing"]
        finally:
            state["cleaned"] = True
        return y
    raises_at(f, (X, {"cleaned": False}), E.UserCodeError, match="KeyError",
              line_of='P.SETTINGS["missing"]')


@pytest.mark.parametrize("fn", [P.reads_missing_key, P.reads_missing_attribute,
                                P.dict_get_default, P.key_in_dict, P.has_attribute,
                                P.getattr_default])
def test_what_was_missing_outside_is_guarded(fn):
    """A key or attribute the program found missing (and so folded the
    other path in) recompiles once it appears, and again once it goes."""
    compiled = tpucc.compile(fn)
    try:
        for present in (False, True, False):
            if present:
                P.OPTIONS["dropout"] = 0.5
                P.OPTS.scale = 3.0
            else:
                P.OPTIONS.pop("dropout", None)
                P.OPTS.__dict__.pop("scale", None)
            assert_same_state(fn(X), compiled(X), f"present={present}")
    finally:
        P.OPTIONS.pop("dropout", None)
        P.OPTS.__dict__.pop("scale", None)


def test_instance_attribute_hiding_a_class_default_recompiles():
    model = P.Defaults()
    compiled = tpucc.compile(P.class_default_read)
    assert_same_state(P.class_default_read(model, X), compiled(model, X))
    model.training = False          # an instance attribute now hides the class's
    assert_same_state(P.class_default_read(model, X), compiled(model, X))
    del model.training
    model.scale = 0.5
    assert_same_state(P.class_default_read(model, X), compiled(model, X))


@pytest.mark.parametrize("fn,add,remove", [
    (P.local_instance_missing_attribute, lambda: setattr(P.Gain, "gain", 4.0),
     lambda: delattr(P.Gain, "gain")),
    (P.module_missing_attribute, lambda: setattr(P.contextlib_free_module, "EXTRA", 4.0),
     lambda: delattr(P.contextlib_free_module, "EXTRA")),
    (P.import_from_missing, lambda: setattr(P, "LATE_IMPORT", 5.0),
     lambda: delattr(P, "LATE_IMPORT")),
    (P.name_error_global, lambda: setattr(P, "LATE_GLOBAL", 3.0),
     lambda: delattr(P, "LATE_GLOBAL")),
])
def test_what_an_except_path_found_missing_is_guarded(fn, add, remove):
    """The class of an object made in the call, a module's attribute, a
    `from m import name` and a global name: once the missing one appears,
    the function compiles again instead of taking the except path."""
    compiled = tpucc.compile(fn)
    assert_same_state(fn(X), compiled(X))
    add()
    try:
        assert_same_state(fn(X), compiled(X))
    finally:
        remove()
    assert_same_state(fn(X), compiled(X))
