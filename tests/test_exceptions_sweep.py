"""Adversarial sweep of try/except/else/finally and `with` in compiled code.

Every program in tests/exceptions_sweep/ (plain modules, so that pytest does
not rewrite their `assert`s) exercises one corner of Python's exception
semantics inside a function given to tpucc.compile: break / continue /
return through `finally`, try inside static and runtime loops and runtime
`if` arms, exceptions raised by callees, methods, properties, lambdas,
comprehensions and builtins taking functions, re-raise and exception
objects (args, __cause__, __context__, notes, str/repr), static errors of
Python and NumPy, in-place updates of arguments before an exception,
context managers (custom __enter__/__exit__, contextlib.suppress /
nullcontext / @contextmanager, np.errstate), tpucc.grad, and caching.

* test_matches_eager: runs eagerly and compiled on copies of the same
  arguments, twice (the second call runs the cached executable), and
  compares results and the state left in the arguments.
* test_refused: programs that Python runs but tpucc cannot compile
  faithfully raise a tpucc error at compile time (the error class and a
  fragment of its message are pinned) instead of giving a wrong result.
  This includes the deliberate rules that an exception raised inside a
  generator (or generator expression) is never catchable, that an
  `__exit__` may not decide from runtime values whether to suppress, and
  that a re-raise under a runtime `if` is a compile-time error.
* test_wrong_result: the remaining silent wrong results, pinned as
  xfail(strict=True, raises=AssertionError): fixing one makes it XPASS and
  fail, and so does turning it into an error.
* the rest: error locations, refusals of runtime checks inside a `try`,
  runtime control flow staying While/Conditional in the HLO, guards on failed
  lookups (stale executables) and @contextlib.contextmanager.

Behaviour is the same on Python 3.11, 3.12 and 3.13 (bytecode differs: 3.12
ends each arm of a `finally` in its own RERAISE).
"""
import inspect

import numpy as np
import pytest

import tpucc
from tpucc import errors as E

from conftest import count_hlo, hlo
from test_user_programs_session17 import assert_same_state

from exceptions_sweep import sweep_progs as P
from exceptions_sweep import sweep_latch as L
from exceptions_sweep import sweep_bare as B
from exceptions_sweep import sweep_guard as G
from exceptions_sweep import sweep_leak as LK
from exceptions_sweep import sweep_misc as M
from exceptions_sweep import sweep_cls as C
from exceptions_sweep import sweep_raise_rt as R
from exceptions_sweep import sweep_more as MO

X = np.array([1.0, -2.0, 3.5], np.float32)
XP = np.array([1.0, 2.0, 3.5], np.float32)
W = np.ones((3, 2), np.float32)
NOTPD = np.array([[1.0, 2.0], [2.0, 1.0]], np.float64)
SING = np.array([[1.0, 2.0], [2.0, 4.0]], np.float64)


def x():
    return (X.copy(),)


def xn(n=3):
    return lambda: (X.copy(), np.int64(n))


def xs(s):
    return lambda: (X * np.float32(s),)


def st():
    return {"hits": 0, "miss": 0, "w": np.float32(1.0), "n": 0}


OK = {
    # the TypeError of len() / iteration of a runtime scalar (duck typing)
    "len_of_scalar": (LK.len_of_scalar, x),
    "iter_runtime_scalar": (LK.iter_runtime_scalar, x),
    # int() of an array with an axis: NumPy's TypeError, which the `except` catches
    "int_of_array": (LK.int_of_array, x),
    # loops + try/finally/break/continue/return
    "static_loop_break_in_try_finally": (P.p_static_loop_break_in_try_finally, x),
    "static_loop_continue_in_finally": (P.p_static_loop_continue_in_finally, x),
    "return_in_except_in_loop": (P.p_return_in_except_in_loop, x),
    "finally_return_swallows": (P.p_finally_return_swallows, x),
    "finally_break_swallows": (P.p_finally_break_swallows, x),
    "try_in_runtime_while_break_in_except": (P.p_try_in_runtime_while_break_in_except, xn(4)),
    "try_in_runtime_while_continue_in_except": (P.p_try_in_runtime_while_continue_in_except, xn(4)),
    "try_in_runtime_for_finally": (P.p_try_in_runtime_for_finally, xn(5)),
    "try_runtime_for_range_except": (P.p_try_runtime_for_range_except, xn(5)),
    "try_runtime_while_break_in_try_finally": (P.p_try_runtime_while_break_in_try_finally,
                                               lambda: (XP.copy(), np.int64(10))),
    "runtime_while_continue_in_try_finally": (P.p_runtime_while_continue_in_try_finally, xn(6)),
    "try_around_runtime_while_break": (P.p_try_around_runtime_while_break, xn(3)),
    "while_true_static_retry": (P.p_while_true_static_retry, x),
    "long_range_try_counted": (P.p_long_range_try_counted, x),
    "for_else_with_try": (P.p_for_else_with_try, x),
    "latch_continue_in_try_no_raise": (P.p_latch_continue_in_try, xn(3)),
    "latch_for_continue_in_try": (P.p_latch_for_continue_in_try, xn(3)),
    "latch_for_try_body_last": (P.p_latch_for_try_body_last, xn(3)),
    "while_try_at_body_start": (P.p_while_try_at_body_start, xn(3)),
    "static_while_becomes_runtime_try": (P.p_static_while_becomes_runtime_try, x),
    "static_for_40_keys": (P.p_static_for_40_keys, x),
    "raising_iteration_runtime_if": (P.p_raising_iteration_runtime_if, x),
    "raising_iteration_runtime_if_neg": (P.p_raising_iteration_runtime_if, xs(-1)),
    "try_else_break": (P.p_try_else_break, x),
    "finally_continue_in_runtime_for": (P.p_finally_continue_in_runtime_for, xn(3)),
    "retry_static_while_true": (M.retry_static_while_true, x),
    "static_break_in_try_while": (L.w_static_break_in_try, x),
    "static_continue_in_try_while": (L.w_static_continue_in_try, x),
    "counter_int_in_runtime_loop": (M.counter_int_in_runtime_loop, xn(3)),
    "runtime_while_static_raise_after_break": (G.runtime_while_static_raise_after_break, xn(3)),
    # callees, methods, closures
    "deep_callee": (P.p_deep_callee, x),
    "method_exception": (P.p_method_exception, lambda: (X.copy(), P.Net())),
    "nested_func_closure_exc": (P.p_nested_func_closure_exc, x),
    "nonlocal_in_except": (M.nonlocal_in_except, x),
    "partial_call_raises": (P.p_partial_call_raises, x),
    "exception_in_runtime_loop_callee": (P.p_exception_in_runtime_loop_callee, xn(4)),
    "class_init_raises": (P.p_class_init_raises, x),
    "exception_in_lambda_default": (P.p_exception_in_lambda_default, x),
    "exception_in_property_caught": (P.p_exception_in_property_caught,
                                     lambda: (X.copy(), P.PropKeyError())),
    "getattr_fallback": (P.p_getattr_fallback, lambda: (X.copy(), P.GetattrFallback())),
    "hasattr_prop_attrerror": (P.p_hasattr_prop_attrerror, lambda: (X.copy(), P.PropAttrErr())),
    # comprehensions / lambdas / builtins taking functions
    "listcomp_raises": (P.p_listcomp_raises, x),
    "listcomp_inner_try_helper": (P.p_listcomp_inner_try_helper, x),
    "sorted_key_raises": (P.p_sorted_key_raises, x),
    "map_lambda_raises": (P.p_map_lambda_raises, x),
    "dictcomp_default": (P.p_dictcomp_default, x),
    "max_empty": (P.p_max_empty, x),
    # runtime if arms
    "try_in_else_arm_neg": (P.p_try_in_else_arm, xs(-1)),
    "try_in_else_arm_pos": (P.p_try_in_else_arm, lambda: (XP.copy(),)),
    "except_body_runtime_if": (P.p_except_body_runtime_if, x),
    "finally_runtime_if": (P.p_finally_runtime_if,
                           lambda: (X.copy(), {"w": np.ones(3, np.float32)})),
    "runtime_if_in_callee_inside_try": (P.p_runtime_if_in_callee_inside_try, x),
    "return_under_runtime_if_in_finally_try": (P.p_return_under_runtime_if_in_finally_try,
                                               lambda: (X.copy(), {"n": 0})),
    "return_under_runtime_if_in_finally_try_neg": (P.p_return_under_runtime_if_in_finally_try,
                                                   lambda: (-X * 2, {"n": 0})),
    "return_under_runtime_if_in_with": (P.p_return_under_runtime_if_in_with, x),
    "try_in_runtime_if_return_in_except": (P.p_try_in_runtime_if_return_in_except, x),
    "try_in_runtime_if_return_in_except_neg": (P.p_try_in_runtime_if_return_in_except, xs(-2)),
    "bare_raise_in_runtime_if_outer": (B.bare_raise_in_runtime_if_outer, x),
    "bare_raise_in_runtime_if_outer_big": (B.bare_raise_in_runtime_if_outer, xs(100)),
    # re-raise, exception objects
    "raise_e": (P.p_raise_e, x),
    "raise_type_of_e": (P.p_raise_type_of_e, x),
    "stored_exception_raised_later": (P.p_stored_exception_raised_later, x),
    "exception_attrs": (P.p_exception_attrs, x),
    "keyerror_str_repr": (P.p_keyerror_str_repr, x),
    "except_order_subclass": (P.p_except_order_subclass, x),
    "raise_class_not_instance": (P.p_raise_class_not_instance, x),
    "exception_in_else": (P.p_exception_in_else, x),
    "explicit_del_e": (P.p_explicit_del_e, x),
    "static_assert_caught": (P.p_static_assert_caught, x),
    "add_note": (P.p_add_note, x),
    "exception_class_var": (P.p_exception_class_var, x),
    "global_exception_instance": (P.p_global_exception_instance, x),
    "return_str_of_exc": (P.p_return_str_of_exc, x),
    "try_except_else_finally_order": (P.p_try_except_else_finally_order, x),
    "return_in_try_and_finally_mutation": (P.p_return_in_try_and_finally_mutation,
                                           lambda: (X.copy(), {"a": 2.0})),
    "finally_overrides_exception_return": (P.p_finally_overrides_exception_return, x),
    "three_deep_order": (P.p_three_deep_order, x),
    "bare_except_reraise_other": (P.p_bare_except_reraise_other, x),
    "return_try_else": (P.p_return_try_else, x),
    "custom_str": (P.p_custom_str, x),
    "no_super_init": (P.p_no_super_init, x),
    "multi_args": (P.p_multi_args, x),
    "traceback_of_python_raised": (P.p_traceback_not_none, x),
    "isinstance_tuple_exc": (P.p_isinstance_tuple_exc, x),
    "exc_in_dict_values": (P.p_exc_in_dict_values, x),
    "exc_equality": (P.p_exc_equality, x),
    "loop_over_exceptions_classes": (P.p_loop_over_exceptions_classes, x),
    "except_base_exception": (M.except_base_exception, x),
    "keyboard_interrupt_passthrough": (M.keyboard_interrupt_passthrough, x),
    "raise_non_exception": (M.raise_non_exception, x),
    "except_non_class": (M.except_non_class, x),
    "exception_group_plain_except": (M.exception_group_plain_except, x),
    "not_implemented_method": (C.not_implemented_method, x),
    "unicode_err": (C.unicode_err, x),
    # static errors of Python / NumPy
    "static_errors_catalog": (P.p_static_errors_catalog, x),
    "sorted_mixed_types": (P.p_sorted_mixed_types, x),
    "parse_ints": (P.p_parse_ints, x),
    "nested_get": (P.p_nested_get, x),
    "local_dict_del": (P.p_local_dict_del, x),
    "list_remove": (P.p_list_remove, x),
    "np_int_static": (P.p_np_int_static, x),
    # NumPy's own error from a call on static arrays, caught by the program
    # (evaluated by NumPy while compiling, as eagerly)
    "exception_from_np_static": (P.p_exception_from_np_static, x),
    # in-place state
    "inplace_before_raise": (P.p_inplace_before_raise, x),
    "dict_arg_mutated_try_finally": (P.p_dict_arg_mutated_try_finally,
                                     lambda: (X.copy(), {"n": 0, "w": np.ones(3, np.float32)})),
    "obj_state_in_except": (P.p_obj_state_in_except, lambda: (X.copy(), P.Net())),
    "counter_in_runtime_while_except": (P.p_counter_in_runtime_while_except,
                                        lambda: (X.copy(), np.int64(3), P.Net())),
    "swallow_exc_and_mutation": (P.p_swallow_exc_and_mutation, lambda: (X.copy(), st())),
    "inplace_arr_arg_then_raise_finally": (P.p_inplace_arr_arg_then_raise_finally,
                                           lambda: (X.copy(), np.arange(3, dtype=np.float32))),
    "try_finally_in_method_loop": (P.p_try_finally_in_method_loop, lambda: (X.copy(), P.Net())),
    "inplace_in_runtime_loop_before_raise": (MO.inplace_in_runtime_loop_before_raise, xn(3)),
    "inplace_static_loop_partial_then_caught": (MO.inplace_static_loop_partial_then_caught, x),
    "nested_try_in_runtime_for_in_runtime_while": (MO.nested_try_in_runtime_for_in_runtime_while,
                                                   xn(3)),
    # with
    "with_enter_raises": (P.p_with_enter_raises, x),
    "with_multi_second_enter_raises": (P.p_with_multi_second_enter_raises, x),
    "with_exit_raises_no_body_exc": (P.p_with_exit_raises_no_body_exc, x),
    "with_suppress_nested": (P.p_with_suppress_nested, x),
    "with_in_try_in_with": (P.p_with_in_try_in_with, x),
    "with_return_in_loop": (P.p_with_return_in_loop, x),
    "with_break_continue": (P.p_with_break_continue, x),
    "with_in_runtime_while_break": (P.p_with_in_runtime_while_break,
                                    lambda: (XP.copy(), np.int64(10))),
    "exit_truthy_nonbool": (P.p_exit_truthy_nonbool, x),
    "exit_runtime_bool_no_exc": (P.p_exit_runtime_bool_no_exc, x),
    "exit_returns_runtime_array": (P.p_exit_returns_runtime_array, x),
    "exit_args_normal": (P.p_exit_args_normal, x),
    "with_as_tuple_unpack": (P.p_with_as_tuple_unpack, x),
    "eval_mode_with_exception": (P.p_eval_mode_with_exception, lambda: (X.copy(), P.M())),
    "suppress_multiple": (P.p_suppress_multiple, x),
    "nullcontext_exc": (P.p_nullcontext_exc, x),
    "errstate_exception_inside": (P.p_errstate_exception_inside, lambda: (XP.copy(),)),
    "with_exit_raises_in_loop": (P.p_with_exit_raises_in_loop, x),
    "enter_raises_nested_outer_exit": (P.p_enter_raises_nested_outer_exit, x),
    "manager_init_raises": (P.p_manager_init_raises, x),
    "with_cm_in_runtime_for_suppress": (P.p_with_cm_in_runtime_for_suppress, xn(3)),
    "enter_returns_array": (M.enter_returns_array, x),
    "with_tuple_target": (M.with_tuple_target, x),
    "with_exit_runtime_if_exc_pending": (MO.with_exit_runtime_if_exc_pending,
                                         lambda: (X.copy(), {"clipped": 0.0})),
    "exit_gets_same_exc_object": (MO.exit_gets_same_exc_object, x),
    # grad
    "grad_try": (P.p_grad_try, lambda: (W.copy(), X.reshape(1, 3).copy())),
    "grad_with": (P.p_grad_with, lambda: (W.copy(), X.reshape(1, 3).copy())),
    "grad_try_in_runtime_if": (P.p_grad_try_in_runtime_if,
                               lambda: (W.copy(), X.reshape(1, 3).copy())),
    "grad_suppress": (P.p_grad_suppress, lambda: (W.copy(), X.reshape(1, 3).copy())),
    # runtime checks outside the except's reach compile
    "runtime_check_outside_try_ok": (P.p_runtime_check_outside_try_ok, xn(1)),
    "runtime_index_in_else": (P.p_runtime_index_in_else, xn(2)),
    "runtime_index_in_except_body": (P.p_runtime_index_in_except_body, xn(2)),
    # formerly known bugs, fixed
    "raise_from_cause": (P.p_raise_from_cause, x),
    "context_implicit": (P.p_context_implicit, x),
    "raise_from_none": (P.p_raise_from_none, x),
    "raise_in_finally_replaces": (P.p_raise_in_finally_replaces, x),
    "exception_in_except_body": (P.p_exception_in_except_body, x),
    "with_exit_raises": (P.p_with_exit_raises, x),
    "hasattr_prop_keyerror": (P.p_hasattr_prop_keyerror, lambda: (X.copy(), P.PropKeyError())),
    "finally_runtime_if_after_exc_big": (B.finally_runtime_if_after_exc, xs(100)),
    "finally_runtime_if_state": (MO.finally_runtime_if_state,
                                 lambda: (X.copy(), {"clipped": 0.0})),
    "zip_strict": (M.zip_strict, x),
    "exc_info": (P.p_exc_info, x),
    "raise_in_try_in_runtime_if": (R.raise_in_try_in_runtime_if, x),
    "latch_break_in_try_runtime_while": (L.w_break_in_try, xn(3)),
    "latch_return_in_try_runtime_while": (L.w_return_in_try, xn(3)),
    "latch_retry_until": (L.w_retry_until, xn(3)),
    "latch_continue_in_try_raising": (P.p_latch_continue_in_try_raising, xn(3)),
    "raise_in_try_in_runtime_while": (R.raise_in_try_in_runtime_while, xn(3)),
    "raise_in_try_in_runtime_for": (R.raise_in_try_in_runtime_for, xn(3)),
    "raise_custom_in_try_in_runtime_for": (R.raise_custom_in_try_in_runtime_for, xn(3)),
    "assert_static_in_try_in_runtime_while": (R.assert_static_in_try_in_runtime_while, xn(3)),
    "exit_raises_in_runtime_while": (M.exit_raises_in_runtime_while, xn(3)),
    "getattr_default_property": (P.p_getattr_default_property,
                                 lambda: (X.copy(), P.PropRaises())),
    "getattr_default_prop2": (P.p_getattr_default_prop, lambda: (X.copy(), P.PropAttrErr())),
    "optional_import": (M.optional_import, x),
    "import_from_missing": (C.import_from_missing, x),
    "overflow_pow": (C.overflow_pow, x),
    "overflow_math_exp": (C.overflow_math_exp, x),
    "overflow_round_inf": (C.overflow_round_inf, x),
    "float_conversion_overflow": (C.float_conversion_overflow, x),
    "static_np_overflow_int": (C.static_np_overflow_int, x),
    "lookup_codec": (C.lookup_codec, x),
}


GEN_HINT = "raised inside a generator"
RUNTIME_HINT = "runtime `if` or loop"

# name -> (program, arguments, error class, message regex, hint fragment or None).
# Python runs each of these without an error; tpucc refuses at compile time
# (a clear error instead of a wrong result).
REFUSED = {
    # an exception a generator's own `try` would catch: tpucc runs the
    # generator to its end when it is called
    "try_inside_generator": (P.p_try_inside_generator, x, E.UserCodeError, "KeyError", GEN_HINT),
    # __exit__ returning a runtime bool while an exception is pending
    # 10 // int(n), n a runtime 0: Python's ZeroDivisionError is a runtime
    # check, which the except clause around it would catch
    "zero_div_runtime_int": (P.p_zero_div_runtime_int, xn(0), E.UnsupportedError,
                             r"compiled code raises its ZeroDivisionError when the call returns",
                             "test the condition with `if`"),
    "exit_runtime_bool": (P.p_exit_runtime_bool, xs(100), E.UnsupportedError,
                          r"__exit__ decides from runtime values", "static bool"),
    "exit_runtime_bool_outer_big": (B.exit_runtime_bool_outer, xs(100), E.UnsupportedError,
                                    r"__exit__ decides from runtime values", "static bool"),
    # a `return` under a runtime if in a finally that would swallow the exception
    "return_in_runtime_if_in_finally_swallow_big": (
        B.return_in_runtime_if_in_finally_swallow, xs(100),
        E.UserCodeError, "KeyError", RUNTIME_HINT),
    # runtime failures that compiled code never raises, inside a try
    "except_valueerror_linalg": (P.p_except_valueerror_linalg, lambda: (NOTPD.copy(),),
                                 E.UnsupportedError, r"np\.linalg\.cholesky of a runtime matrix",
                                 "np.isfinite"),
    "except_exception_linalg": (P.p_except_exception_linalg, lambda: (SING.copy(),),
                                E.UnsupportedError, r"np\.linalg\.inv of a runtime matrix",
                                "np.isfinite"),
    "local_alias_linalgerror": (M.local_alias_linalgerror, lambda: (NOTPD.copy(),),
                                E.UnsupportedError, r"np\.linalg\.cholesky of a runtime matrix",
                                "np.isfinite"),
    "except_arith_errstate": (P.p_except_arith_errstate, lambda: (np.array([1.0, 0.0]),),
                              E.UnsupportedError, r"np\.errstate\(\.\.\.='raise'\) inside a `try`",
                              "np.isfinite"),
    "custom_suppress_runtime_index": (P.p_custom_suppress_runtime_index, xn(7),
                                      E.UnsupportedError,
                                      "whether this index is in bounds depends on runtime values",
                                      "runtime `if`"),
    "custom_suppress_runtime_assert": (P.p_custom_suppress_runtime_assert, x, E.UnsupportedError,
                                       "whether this raises depends on runtime values",
                                       "runtime `if`"),
    # a refusal raised inside hasattr is not swallowed into False
    "hasattr_swallows_refusal": (P.p_hasattr_swallows_refusal,
                                 lambda: (X.copy(), P.PropUnsupported()),
                                 E.UnsupportedError, r"np\.random", None),
    # NumPy's static errors are tpucc's own errors, not the program's ValueError / TypeError
    "static_shape_error": (P.p_static_shape_error, x, E.ShapeError,
                           r"cannot reshape array of size 3 into shape \(4, 4\)", None),
    "matmul_shape_fallback": (P.p_matmul_shape_fallback, lambda: (W.T.copy(), W.T.copy()),
                              E.ShapeError, "matmul: Input operand 1 has a mismatch", None),
    "exception_args_modified": (P.p_exception_args_modified, x, E.SideEffectError,
                                r"assigning a Python value to `\.args`", None),
}

# name -> (program, arguments, reason): still a silent wrong result
WRONG = {
    "exit_gets_traceback": (MO.exit_gets_traceback, x,
        "__exit__ gets tb=None for the pending exception"),
    "raised_traceback": (MO.raised_traceback, x,
        "e.__traceback__ is None for a `raise`d exception"),
}


def _run(fn, make_args):
    eager_args, compiled_args = make_args(), make_args()
    expected = fn(*eager_args)
    compiled = tpucc.compile(fn)
    for call in range(2):           # the second call runs the cached executable
        actual = compiled(*compiled_args)
        if call == 1:
            expected = fn(*eager_args)
        assert_same_state(expected, actual, "result")
        assert_same_state(eager_args, compiled_args, "arguments")


# An exception raised inside a generator reaches the consumer where it asks
# for the item after the last one yielded before it: its `try` catches it.
OK.update({
    "genexpr_raises": (P.p_genexpr_raises, x),
    "raise_in_genexpr_caught_inside_callee": (M.raise_in_genexpr_in_try_caught_inside_callee, x),
    "generator_partial_consume": (P.p_generator_partial_consume, x),
    "generator_accumulate": (P.p_generator_accumulate, x),
    "zip_generator_partial": (P.p_exc_in_zip_gen, x),
    # a held map() calls its function as its items are taken: the KeyError is
    # raised where the loop inside the `try` gets to it, as eagerly
    "map_lazy": (P.p_exc_in_map_lazy, x),
    # reading the `as` name after its handler: Python's UnboundLocalError, caught
    "as_name_deleted": (P.p_as_name_deleted, x),
})


@pytest.mark.parametrize("name", sorted(OK))
def test_matches_eager(name):
    fn, make_args = OK[name]
    _run(fn, make_args)


def _assert_refused(fn, make_args, error, match, hint):
    fn(*make_args())                # eagerly: no error
    with pytest.raises(error, match=match) as info:
        tpucc.compile(fn)(*make_args())
    if hint is not None:
        assert hint in (info.value.hint or ""), str(info.value)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused(name):
    _assert_refused(*REFUSED[name])


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, raises=AssertionError,
                                               reason=WRONG[name][2]))
    for name in sorted(WRONG)])
def test_wrong_result(name):
    fn, make_args, _ = WRONG[name]
    _run(fn, make_args)


# --- both raise: the error names the exception and the right line --------------------------

def _line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return [start + i for i, l in enumerate(lines) if text in l]


@pytest.mark.parametrize("fn,where,match", [
    (P.p_uncaught_through_exit_location, P.p_uncaught_through_exit_location, 'CFG["missing"]'),
    (P.p_uncaught_from_except_body, P.p_uncaught_from_except_body, 'CFG["other"]'),
    (P.p_bare_raise_location, P.p_bare_raise_location, 'CFG["missing"]'),
    (P.p_raise_no_active, P.p_raise_no_active, "raise"),
])
def test_uncaught_error_location(fn, where, match):
    with pytest.raises(E.UserCodeError) as info:
        tpucc.compile(fn)(X.copy())
    assert info.value.loc.line in _line_of(where, match), str(info.value)


def test_uncaught_error_on_a_runtime_path_raised_when_it_runs():
    # (the KeyError comes after a runtime `break` may have left the loop:
    # raised when the call returns, only where that path ran, as eagerly)
    fn = G.guarded_break_no_try
    with pytest.raises(KeyError) as info:
        tpucc.compile(fn)(X.copy())
    assert isinstance(info.value, E.RuntimeRaiseError)
    assert info.value.loc.line in _line_of(fn, "CFG[k]"), str(info.value)
    big = X.copy() + 10
    np.testing.assert_array_equal(tpucc.compile(fn)(big.copy()), fn(big.copy()))


# --- refused by design (E100), with the line of the check and of the clause ---------------

@pytest.mark.parametrize("fn,args,line_of,clause", [
    (P.p_math_domain_runtime, (-XP,), "math.sqrt", "except ValueError"),
    (P.p_int_nan_runtime, (np.array([np.nan, 1.0]),), "int(x.sum())", "except ValueError"),
    (P.p_runtime_index_in_callee_in_try, (X, np.int64(2)), "return a[j]", "except IndexError"),
    (P.p_with_suppress_indexerror_runtime, (X, np.int64(7)), "v = x[i]", None),
    (LK.runtime_int_list_index, (X, np.int64(1)), "xs[int(i)]", "except IndexError"),
])
def test_runtime_check_in_try_refused(fn, args, line_of, clause):
    with pytest.raises(E.UnsupportedError) as info:
        tpucc.compile(fn)(*args)
    err = info.value
    assert err.loc.line in _line_of(fn, line_of), str(err)
    if clause:
        assert f"line {_line_of(fn, clause)[0]}" in str(err), str(err)


@pytest.mark.parametrize("fn", [G.guarded_break_then_raise, G.guarded_continue_then_raise,
                                G.guarded_return_then_raise])
def test_raise_after_runtime_break_stays_e700(fn):
    # eagerly raised on some paths only: stays a compile error, with the hint
    with pytest.raises(E.UserCodeError, match="KeyError") as info:
        tpucc.compile(fn)(X.copy())
    assert "runtime `if` or loop" in (info.value.hint or "")


def test_grad_raise_hint_mentions_grad():
    # the KeyError is raised inside the function tpucc.grad differentiates,
    # where compiled code cannot raise: the hint says so
    with pytest.raises(E.UserCodeError, match="KeyError") as info:
        tpucc.compile(P.p_grad_raise_caught_outside)(W.copy(), X.reshape(1, 3).copy())
    assert "tpucc.grad" in (info.value.hint or ""), str(info.value)


# --- runtime control flow inside try bodies stays While / Conditional -----------------------

@pytest.mark.parametrize("fn,args,kind", [
    (P.p_try_in_runtime_while_break_in_except, (X, np.int64(4)), "conditional"),  # always breaks at once
    (P.p_try_in_runtime_for_finally, (X, np.int64(5)), "while"),
    (P.p_try_runtime_for_range_except, (X, np.int64(5)), "while"),
    (P.p_try_runtime_while_break_in_try_finally, (XP, np.int64(10)), "while"),
    (P.p_runtime_while_continue_in_try_finally, (X, np.int64(6)), "while"),
    (P.p_try_around_runtime_while_break, (X, np.int64(3)), "while"),
    (P.p_long_range_try_counted, (X,), "while"),
    (P.p_static_while_becomes_runtime_try, (X,), "while"),
    (P.p_while_try_at_body_start, (X, np.int64(3)), "while"),
    (P.p_with_in_runtime_while_break, (XP, np.int64(10)), "while"),
    (P.p_with_cm_in_runtime_for_suppress, (X, np.int64(3)), "while"),
    (P.p_exception_in_runtime_loop_callee, (X, np.int64(4)), "while"),
    (P.p_except_body_runtime_if, (X,), "conditional"),
    (P.p_try_in_else_arm, (X,), "conditional"),
    (P.p_runtime_if_in_callee_inside_try, (X,), "conditional"),
    (P.p_raising_iteration_runtime_if, (X,), "conditional"),
    (P.p_return_under_runtime_if_in_finally_try, (X, {"n": 0}), "conditional"),
    (P.p_try_in_runtime_if_return_in_except, (X,), "conditional"),
    (B.bare_raise_in_runtime_if_outer, (X,), "conditional"),
    (MO.inplace_in_runtime_loop_before_raise, (X, np.int64(3)), "while"),
    (MO.nested_try_in_runtime_for_in_runtime_while, (X, np.int64(3)), "while"),
])
def test_runtime_control_flow_in_try_stays_runtime(fn, args, kind):
    assert count_hlo(hlo(tpucc.compile(fn), *args), kind) >= 1


# --- a failed read (KeyError / AttributeError / IndexError) is guarded ------------------------
# After the first call the key / attribute / item is added: eager takes the other
# path, so the cached executable (which folded the except path in) must not be reused.

from exceptions_sweep import sweep_stale as S  # noqa: E402


def _stale(fn, mutate, make_args):
    compiled = tpucc.compile(fn)
    np.testing.assert_allclose(compiled(*make_args()), fn(*make_args()))
    mutate()
    np.testing.assert_allclose(compiled(*make_args()), fn(*make_args()))


_O = S.Obj()
STALE = {
    "key_missing_then_added": (S.key_missing_then_added,
                               lambda: S.SETTINGS2.__setitem__("lr", 0.5), x),
    "get_missing_then_added": (S.get_missing_then_added,
                               lambda: S.SETTINGS3.__setitem__("lr", 0.5), x),
    "attr_missing_then_added": (S.attr_missing_then_added,
                                lambda: setattr(S.OBJ, "scale", 4.0), x),
    "hasattr_missing_then_added": (S.hasattr_missing_then_added,
                                   lambda: setattr(S.OBJ2, "scale", 4.0), x),
    "index_missing_then_appended": (S.index_missing_then_appended,
                                    lambda: S.LIST2.append(3.0), x),
    "arg_obj_attr": (S.arg_obj_attr, lambda: setattr(_O, "scale", 4.0), lambda: (X, _O)),
}


@pytest.mark.parametrize("name", list(STALE))
def test_failed_read_is_guarded(name):
    fn, mutate, make_args = STALE[name]
    _stale(fn, mutate, make_args)


def test_dict_argument_key_added_recompiles():
    d = {}
    _stale(S.arg_dict_key, lambda: d.__setitem__("lr", 0.5), lambda: (X, d))


# --- @contextlib.contextmanager in compiled code ------------------------------------------

from exceptions_sweep import sweep_cm as CM  # noqa: E402


def _cm_args(fn, scale=1.0):
    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    return lambda: tuple({"x": X * np.float32(scale), "log": {"enter": 0, "exit": 0},
                          "n": np.int64(3)}[a] for a in names)


CM_OK = ["cm_basic", "cm_body_raises_finally", "cm_convert", "cm_in_runtime_while",
         "cm_in_static_loop_break", "cm_nested", "cm_no_try_body_raises",
         "cm_raises_before_yield", "cm_return_inside", "cm_runtime_if_before_yield",
         "cm_swallow", "cm_swallow_other_kind", "cm_yields_twice"]


@pytest.mark.parametrize("name", CM_OK)
def test_contextmanager(name):
    fn = getattr(CM, name)
    _run(fn, _cm_args(fn))


@pytest.mark.parametrize("scale", [1.0, 100.0])
def test_contextmanager_reraise_under_runtime_if(scale):
    # the generator re-raises under a runtime `if` (eagerly: suppressed for
    # scale 1, re-raised and caught outside for scale 100): a compile-time error
    fn = CM.cm_reraise_under_runtime_if
    fn(*_cm_args(fn, scale)())
    with pytest.raises(E.UserCodeError, match="KeyError: 'missing'"):
        tpucc.compile(fn)(*_cm_args(fn, scale)())


def test_contextmanager_as_decorator_refused():
    CM.cm_as_decorator(X.copy())
    with pytest.raises(E.UnsupportedError, match="used as a decorator"):
        tpucc.compile(CM.cm_as_decorator)(X.copy())
