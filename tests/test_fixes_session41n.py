"""Fixes of session 41n: np.resize compiles; refusals and error messages that
named the wrong cause or tpucc's internals now say what the user wrote and
what to write instead; np.testing's array asserts compile to run-time
checks; recursion through comprehensions counts the user's calls only."""
from __future__ import annotations

import numpy as np
import pytest

import tpucc
from tpucc.errors import LimitError, MergeError, ShapeError, StaticValueError, UnsupportedError

from conftest import check, raises_at


def _compile(fn):
    return tpucc.compile(fn, cache=False)


# --- np.resize (sweep 41J bug_06) -------------------------------------------------------------

def vigenere(t, key):
    return (t - 65 + np.resize(key, t.shape) - 65) % 26 + 65


def test_resize_repeats_a_key_to_the_text_length():
    t = np.frombuffer(b"ATTACKATDAWN", np.uint8).copy()
    k = np.frombuffer(b"LEMON", np.uint8).copy()
    check(vigenere, t, k, compile_kwargs={"cache": False})


@pytest.mark.parametrize("shape, new_shape, dtype", [
    ((5,), 12, np.int32), ((2, 3), (3, 3), np.float64), ((2, 3), (2, 2), np.float32),
    ((), (2, 2), np.int64), ((4,), (2, 2), np.bool_), ((3,), (2, 0), np.float64),
    ((0,), 3, np.float64), ((3,), [4, 2], np.int8)])
def test_resize_matches_numpy(shape, new_shape, dtype):
    def f(a):
        return np.resize(a, new_shape)
    a = (np.arange(int(np.prod(shape))) + 1).reshape(shape).astype(dtype)
    check(f, a, compile_kwargs={"cache": False})


def test_resize_is_a_copy_not_a_view():
    def f(a):
        r = np.resize(a, a.shape)
        r[0] = 99
        return r, a
    check(f, np.arange(4.0), compile_kwargs={"cache": False})


def test_resize_of_a_negative_shape_is_numpys_error():
    def f(a):
        return np.resize(a, -1)
    raises_at(_compile(f), (np.arange(3.0),), ShapeError, match="np.resize: .*negative",
              line_of="np.resize")


# --- max(list of arrays, key=...) of different lengths (sweep 41J bug_07) ---------------------

def test_max_with_key_over_arrays_of_other_lengths_says_shapes_differ():
    def longest_by_sum(words):
        return max(words, key=lambda w: int(w.sum()))
    words = [np.frombuffer(x, np.uint8).copy() for x in (b"Hello", b"WORLD", b"ab")]
    err = raises_at(_compile(longest_by_sum), (words,), MergeError,
                    match=r"items of max\(\) have different shapes: u8\[5\], u8\[5\], u8\[2\]",
                    line_of="return max")
    assert "astype" not in str(err) and "np.argmax" in str(err)


def test_min_over_arrays_of_other_lengths_says_shapes_differ():
    def shortest(a, b):
        return min([a, b], key=lambda w: float(w.mean()))
    raises_at(_compile(shortest), (np.ones(3), np.ones(2)), MergeError,
              match=r"(?s)min\(\) have different shapes.*np.argmin", line_of="return min")


def test_max_of_two_dtypes_keeps_the_dtype_hint():
    def larger(a, b):
        return max(a.sum(), b.sum())
    raises_at(_compile(larger), (np.arange(4), np.arange(3.0)), MergeError,
              match=r"(?s)have different types.*astype", line_of="return max")


# --- list.remove on runtime values (sweep 41L bug_03) ----------------------------------------

def test_list_remove_of_runtime_ints_says_what_is_refused():
    def f(x):
        vals = [int(v) for v in x]
        vals.remove(2)
        return vals
    err = raises_at(_compile(f), (np.array([1, 2, 5]),), StaticValueError,
                    match=r"list.remove\(2\): .*depends on runtime values.*length",
                    line_of="vals.remove")
    assert "truth value" not in str(err) and "np.where" in str(err)


def test_list_remove_of_a_runtime_value_from_static_ints():
    def f(x):
        vals = [1, 2, 3]
        vals.remove(int(x[0]))
        return vals
    raises_at(_compile(f), (np.array([2]),), StaticValueError,
              match=r"list.remove\(\) of a runtime value", line_of="vals.remove")


def test_list_remove_decided_at_compile_time_still_compiles():
    def f(x):
        vals = ["a", float(x[0]), 2.0, "a"]
        vals.remove("a")
        return vals
    check(f, np.array([3.5]), compile_kwargs={"cache": False})


# --- np.testing asserts (sweep 41L bug_04) ----------------------------------------------------

def test_assert_allclose_passes_and_returns():
    def f(a, b):
        np.testing.assert_allclose(a, b, rtol=1e-3)
        return a - b
    check(f, np.ones(3), np.ones(3) + 1e-5, compile_kwargs={"cache": False})


def test_assert_allclose_fails_at_run_time_as_assertion_error():
    def f(a, b):
        np.testing.assert_allclose(a, b, rtol=1e-3, err_msg="loss drifted")
        return a - b
    compiled = _compile(f)
    with pytest.raises(AssertionError) as info:
        compiled(np.ones(4), np.array([1.0, 2.0, 1.0, 3.0]))
    text = str(info.value)
    assert "[E910]" in text and "Not equal to tolerance rtol=0.001" in text
    assert "loss drifted" in text and "Mismatched elements: 2 / 4" in text
    assert compiled(np.ones(4), np.ones(4)).dtype == np.float64     # the same program passes


@pytest.mark.parametrize("a, b, passes", [
    (np.array([1.0, np.nan]), np.array([1.0, np.nan]), True),
    (np.array([1.0, np.inf]), np.array([1.0, np.inf]), True),
    (np.array([1.0, np.inf]), np.array([1.0, -np.inf]), False),
    (np.array([1, 2], np.int32), np.array([1, 2], np.int64), True),
    (np.array([1, 2], np.int32), np.array([1, 3], np.int32), False),
    (np.ones((2, 2), np.float32), np.float32(1), True),
])
def test_assert_array_equal_agrees_with_numpy(a, b, passes):
    def f(a, b):
        np.testing.assert_array_equal(a, b)
        return a
    try:
        np.testing.assert_array_equal(a, b)
        eager = True
    except AssertionError:
        eager = False
    assert eager == passes
    compiled = _compile(f)
    if passes:
        np.testing.assert_array_equal(compiled(a, b), a)
    else:
        with pytest.raises(AssertionError, match="Arrays are not equal"):
            compiled(a, b)


@pytest.mark.parametrize("decimal, passes", [(6, False), (3, True)])
def test_assert_array_almost_equal_decimals(decimal, passes):
    def f(a, b):
        np.testing.assert_array_almost_equal(a, b, decimal=decimal)
        return a + b
    a, b = np.array([1.0, 2.0]), np.array([1.0, 2.0001])
    compiled = _compile(f)
    if passes:
        check(f, a, b, compile_kwargs={"cache": False})
    else:
        with pytest.raises(AssertionError, match=f"not almost equal to {decimal} decimals"):
            compiled(a, b)


def test_assert_allclose_equal_nan_false_fails_on_nans():
    def f(a):
        np.testing.assert_allclose(a, a, equal_nan=False)
        return a
    with pytest.raises(AssertionError):
        _compile(f)(np.array([np.nan, 1.0]))


def test_assert_of_other_shapes_fails_at_compile_time():
    def f(a, b):
        np.testing.assert_array_equal(a, b)
        return a
    raises_at(_compile(f), (np.ones((2, 3)), np.ones(3)), AssertionError,
              match=r"shapes \(2, 3\), \(3,\) mismatch", line_of="assert_array_equal")


def test_assert_strict_checks_dtypes():
    def f(a, b):
        np.testing.assert_array_equal(a, b, strict=True)
        return a
    raises_at(_compile(f), (np.ones(2), np.ones(2, np.float32)), AssertionError,
              match="dtypes float64, float32 mismatch", line_of="assert_array_equal")


def test_other_np_testing_asserts_are_refused_naming_the_public_function():
    def f(a):
        np.testing.assert_equal(a, a)
        return a
    err = raises_at(_compile(f), (np.ones(3),), UnsupportedError,
                    match=r"np.testing.assert_equal\(\) is not supported",
                    line_of="assert_equal")
    assert "_private" not in str(err) and "assert np.array_equal" in str(err)


# --- E200 messages name the user's function (sweep 41L bug_05) --------------------------------

@pytest.mark.parametrize("fn, args, match, line_of", [
    (lambda x: np.repeat(x, -1), (np.arange(4.0),),
     r"np.repeat: negative dimensions are not allowed", "np.repeat"),
    (lambda x: np.tile(x, -2), (np.arange(3.0),),
     r"np.tile: negative dimensions are not allowed", "np.tile"),
    (lambda x: np.tile(x, (2, -1)), (np.arange(3.0),),
     r"np.tile: negative dimensions", "np.tile"),
    (lambda c, a, b: np.where(c, a, b), (np.ones(3, bool), np.ones(2), np.ones(3)),
     r"np.where: bool\[3\], f64\[2\], f64\[3\]: shape mismatch", "np.where"),
    (lambda a, b: np.tensordot(a, b, axes=([1], [1])), (np.ones((2, 3)), np.ones((4, 5))),
     r"np.tensordot: shape-mismatch for sum: axis 1 of a .* size 3, axis 1 of b .* size 5",
     "np.tensordot"),
    (lambda a, b: np.tensordot(a, b, axes=1), (np.ones((2, 3)), np.ones((4, 5))),
     r"np.tensordot: shape-mismatch for sum", "np.tensordot"),
    (lambda a, b: np.concatenate([a, b]), (np.ones((2, 3)), np.ones(3)),
     r"all the input arrays must have same number of dimensions, but the array at index 0 "
     r"has 2 dimension\(s\) and the array at index 1 has 1", "np.concatenate"),
    (lambda a, b: np.concatenate([a, b]), (np.ones((2, 3)), np.ones((2, 4))),
     r"along dimension 1, the array at index 0 has size 3 and the array at index 1 has size 4",
     "np.concatenate"),
])
def test_shape_errors_name_the_users_function(fn, args, match, line_of):
    with pytest.raises(Exception):
        fn(*args)                               # NumPy raises too
    err = raises_at(_compile(fn), args, ShapeError, match=match, line_of=line_of)
    text = str(err)
    assert "broadcast_to" not in text and "select:" not in text and "dot_general" not in text
    assert "hint:" in text


def test_tensordot_that_fits_still_compiles():
    def f(a, b):
        return np.tensordot(a, b, axes=([1], [0])), np.tensordot(a, b.T, axes=([1], [1]))
    check(f, np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4),
          compile_kwargs={"cache": False})


# --- truth of an empty array (sweep 41L bug_07) -----------------------------------------------

def test_if_on_an_empty_array_says_empty():
    def f(x):
        if x:
            return 1
        return 0
    err = raises_at(_compile(f), (np.zeros(0),), ValueError,
                    match=r"truth value of an empty array is ambiguous. Use `array.size > 0`",
                    line_of="if x")
    assert "more than one element" not in str(err)


def test_not_of_an_empty_array_says_empty():
    def f(x):
        return not x
    raises_at(_compile(f), (np.zeros((0, 3), np.int32),), ValueError,
              match=r"truth value of an empty array", line_of="not x")


def test_if_on_a_long_array_keeps_numpys_words():
    def f(x):
        if x:
            return 1
        return 0
    raises_at(_compile(f), (np.zeros(3),), ValueError,
              match=r"more than one element is ambiguous", line_of="if x")


# --- conditional expression of a tuple and an array (sweep 41L bug_10) ------------------------

def test_conditional_expression_of_tuple_and_array_names_both():
    def f(x):
        return (x.min(), x.max()) if x[0] > 0 else x.mean()
    err = raises_at(_compile(f), (np.ones(2),), MergeError,
                    match=r"(?s)conditional expression .* a tuple of 2 items and an array f64\[\]",
                    line_of="return")
    assert "stack" not in str(err) and "hint:" in str(err)


def test_conditional_expression_of_tuples_of_other_lengths():
    def f(x):
        y = (x, x) if x.sum() > 0 else (x, x, x)
        return y[0]
    raises_at(_compile(f), (np.ones(2),), MergeError,
              match=r"a tuple of 2 items and a tuple of 3 items", line_of="y = ")


def test_conditional_expression_of_alike_values_still_compiles():
    def f(x):
        return (x.min(), x.max()) if x[0] > 0 else (x.max(), x.min())
    check(f, np.array([1.0, -2.0, 3.0]), compile_kwargs={"cache": False})
    check(f, np.array([-1.0, -2.0, 3.0]), compile_kwargs={"cache": False})


# --- recursion through comprehensions (sweep 41L bug_11) --------------------------------------

def _nested(n):
    tree = t = []
    for _ in range(n):
        t.append([])
        t = t[0]
    return tree


def depth_gen(node):
    if not isinstance(node, list):
        return 0
    return 1 + max((depth_gen(c) for c in node), default=0)


def depth_list(node):
    if not isinstance(node, list):
        return 0
    return 1 + max([depth_list(c) for c in node] or [0])


@pytest.mark.parametrize("depth", [depth_gen, depth_list])
@pytest.mark.parametrize("n", [50, 98])
def test_recursion_through_a_comprehension_counts_calls_only(depth, n):
    def f(tree, x):
        return x * depth(tree)
    check(f, _nested(n), np.ones(2), compile_kwargs={"cache": False})


def test_recursion_past_the_limit_through_a_comprehension_says_consistent_depth():
    def f(tree, x):
        return x * depth_gen(tree)
    err = raises_at(_compile(f), (_nested(120), np.ones(2)), LimitError,
                    match=r"(?s)more than 100 deep.*depth_gen calls itself, 99 calls deep")
    assert "hint:" in str(err)
