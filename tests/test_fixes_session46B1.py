"""Session 46B1's fixes, each checked against eager NumPy:

* bug_08: one array passed at two places (`f(v, v)`, the `out=img` idiom)
  runs, also where the function returns it or a view of it: the result is
  the caller's array itself after the writes; overlapping distinct arrays
  are still refused (E500), now at the function's `def` line.
* bug_03: casting= of ufuncs and np.clip follows NumPy's rules
  (no/equiv/safe/same_kind/unsafe), checked at compile time.
* bug_07: `with np.errstate(divide=/over=/invalid='raise')` raises NumPy's
  FloatingPointError (a runtime check, E910) where eager NumPy raises.
"""
import copy
import re
import warnings

import numpy as np
import pytest

import tpucc
from conftest import assert_same, raises_at, same_each
from tpucc import errors as E


# --- bug_08: the same array at two places, returned -----------------------------------------

def gamma(img, g, out):
    out[...] = (img / 255.0) ** (1 / g) * 255
    return out


def accumulate_both(dst, src):
    dst[1:] += src[:-1]
    return dst, src


def returns_view(dst, src):
    dst[1:] = src[:-1] * 2
    return dst[1:]


def blur_row(dst, src):
    for i in range(1, dst.shape[0]):
        dst[i] = (src[i - 1] + src[i]) / 2
    return dst


def ufunc_out(img, out):
    np.multiply(img, 0.5, out=out)
    return out


def dict_items(d):
    d["a"][:] = d["b"] * 2
    return d["a"]


def _position(result, args):
    """Which argument `result` is (identity), else None."""
    return next((k for k, a in enumerate(args) if a is result), None)


@pytest.mark.parametrize("fn, make", [
    (gamma, lambda a: (a, 2.2, a)),
    (accumulate_both, lambda a: (a, a)),
    (returns_view, lambda a: (a, a)),
    (blur_row, lambda a: (a, a)),
    (ufunc_out, lambda a: (a, a)),
])
def test_same_array_twice_returned(fn, make):
    compiled = tpucc.compile(fn, cache=False)
    for dtype in (np.float64, np.float32):
        eager_array = np.array([0.0, 64, 255, 7], dtype)
        comp_array = eager_array.copy()
        eager_args, comp_args = make(eager_array), make(comp_array)
        expected, actual = fn(*eager_args), compiled(*comp_args)
        assert_same(expected, actual)
        assert_same(eager_array, comp_array)
        results = zip(*(r if isinstance(r, tuple) else (r,) for r in (expected, actual)))
        for e, a in results:
            # the caller's array itself where eager returns it, a view of it otherwise
            assert _position(e, eager_args) == _position(a, comp_args)
            if _position(a, comp_args) is None:
                assert np.shares_memory(a, comp_array)


def test_same_array_then_distinct_then_same():
    """One program per way of passing: each call compiles or picks the one
    whose arrays are tied as this call's are."""
    compiled = tpucc.compile(accumulate_both, cache=False)
    for tied in (True, False, True, False):
        a = np.arange(5.0)
        b = a if tied else a + 10
        ea, eb = (a.copy(),) * 2 if tied else (a.copy(), b.copy())
        expected = accumulate_both(ea, eb)
        actual = compiled(a, b)
        assert_same(expected, actual)
        assert (actual[0] is actual[1]) == tied
        assert actual[0] is a
        assert_same(ea, a)


def test_same_array_in_a_dict_returned():
    a, b = np.arange(4.0), np.arange(4.0)
    expected = dict_items({"a": a, "b": a})
    actual = tpucc.compile(dict_items, cache=False)({"a": b, "b": b})
    assert actual is b
    assert_same(expected, actual)


def test_overlapping_arguments_still_refused_at_the_def_line():
    a = np.arange(5.0)
    err = raises_at(returns_view, (a[1:], a[:-1]), E.SideEffectError, line_of="def returns_view",
                    match="argument dst is updated in place and shares memory with argument "
                          "src", cache=False)
    assert "np.copy" in err.hint


def test_read_only_array_twice_raises_as_numpy():
    a = np.arange(5.0)
    a.flags.writeable = False
    with pytest.raises(ValueError):
        gamma(a, 2.0, a)
    raises_at(gamma, (a, 2.0, a), E.SideEffectError, match="read-only", line_of="out[...] =",
              cache=False)


# --- bug_03: casting= of ufuncs and np.clip -------------------------------------------------

RULES = ("no", "equiv", "safe", "same_kind", "unsafe")
U8 = np.array([10, 100, 200], np.uint8)
I16 = np.array([-3, 7, 300], np.int16)
F64 = np.array([1.5, -2.25, 3.0])
F32 = np.array([1.5, -2.25, 300.0], np.float32)


def _casting_cases(c):
    return [
        ("scale_in_place", lambda a: (np.multiply(a, 1.5, out=a, casting=c), a)[1], (U8,)),
        ("add_arrays", lambda a, b: np.add(a, b, casting=c), (U8, I16)),
        ("add_python_int", lambda a: np.add(a, 3, casting=c), (U8,)),
        ("add_into_wider", lambda a, o: np.add(a, a, out=o, casting=c),
         (U8, np.zeros(3, np.int16))),
        ("add_dtype", lambda a: np.add(a, a, dtype=np.int8, casting=c), (U8,)),
        ("add_float_dtype_int", lambda a: np.add(a, a, dtype=np.int32, casting=c), (F64,)),
        ("sqrt", lambda a: np.sqrt(a, casting=c), (U8,)),
        ("clip_into_itself", lambda a: np.clip(a, 20, 150, out=a, casting=c), (U8,)),
        ("clip_float_bound", lambda a: np.clip(a, 20.5, 150, casting=c), (U8,)),
        ("clip_float_bound_out", lambda a: np.clip(a, 20.5, 150, out=a, casting=c), (U8,)),
        ("subtract_into_f32", lambda a, b: np.subtract(a, b, out=a, casting=c), (F32, F64)),
        ("divide_into_int", lambda a: np.true_divide(a, 3, out=a, casting=c), (I16,)),
        ("clip_method", lambda a: a.clip(0, 2, out=a, casting=c), (F64,)),
        ("divmod", lambda a: np.divmod(a, 4, casting=c), (I16,)),
    ]


@pytest.mark.parametrize("rule", RULES)
def test_casting_rules_as_numpy(rule):
    for name, fn, args in _casting_cases(rule):
        eager_args, comp_args = copy.deepcopy(args), copy.deepcopy(args)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = fn(*eager_args)
        except TypeError as e:      # NumPy's UFuncTypeError: the same refusal, at compile time
            with pytest.raises(E.DTypeError) as info:
                tpucc.compile(fn, cache=False)(*comp_args)
            shown = re.sub(r"dtype\('(\w+)'\)", r"\1", str(info.value))
            assert re.sub(r"dtype\('(\w+)'\)", r"\1", str(e)) in shown, (name, shown)
            continue
        actual = tpucc.compile(fn, cache=False)(*comp_args)
        assert_same(expected, actual, rtol=0, atol=0)
        assert_same(eager_args, comp_args, rtol=0, atol=0)


def scale_inplace(img):
    np.multiply(img, 1.5, out=img, casting="unsafe")
    return img


def clip_default(img):
    np.clip(img, 20, 150, out=img, casting="same_kind")
    return img


def test_the_sweeps_programs():
    same_each(scale_inplace, (np.array([10, 100, 200], np.uint8),),
              (np.array([[1, 2], [250, 7]], np.uint8),))
    same_each(clip_default, (np.array([10, 100, 200], np.uint8),),
              (np.array([-5, 30, 400], np.int16),))


def bad_rule(x):
    return np.add(x, 1, casting="sometimes")


def same_kind_refused(img):
    np.multiply(img, 1.5, out=img, casting="same_kind")
    return img


def test_casting_refusals_name_the_line():
    raises_at(bad_rule, (F64,), E.UserCodeError, match="casting must be one of",
              line_of="np.add", cache=False)
    with pytest.raises(ValueError):
        tpucc.compile(bad_rule, cache=False)(F64)
    err = raises_at(same_kind_refused, (U8.copy(),), E.DTypeError,
                    match="Cannot cast ufunc 'multiply' output from float64 to uint8 with "
                          "casting rule 'same_kind'", line_of="np.multiply", cache=False)
    assert "casting='unsafe'" in err.hint


# --- bug_07: np.errstate(...='raise') --------------------------------------------------------

def _under(kind, expr):
    namespace = {"np": np}
    exec(f"def f(x, y):\n    with np.errstate({kind}='raise'):\n        return {expr}\n",
         namespace)
    return namespace["f"]


def _eager_or_error(fn, args):
    try:
        return fn(*copy.deepcopy(args)), None
    except FloatingPointError as e:
        return None, str(e)


X = np.array([2.0, 0.0, -1.0, 1e300])
Y = np.array([1.0, 0.0, 0.0, 1e-300])
with np.errstate(over="ignore"):
    X32, Y32 = X.astype(np.float32), Y.astype(np.float32)     # (1e300: inf)
SAFE = (np.array([2.0, 3.0, 0.5, 4.0]), np.array([1.0, 4.0, 2.0, 0.25]))   # (X's shape: one compile)
EXPRESSIONS = ["x / y", "1.0 / x", "np.divide(x, y)", "x // y", "x % y", "np.log(x)",
               "np.sqrt(x)", "x ** 0.5", "x ** -1", "x ** 2", "np.exp(x)", "x * x",
               "np.log1p(x)", "np.arctanh(x)", "x - x", "np.power(x, -1.5)", "x[0] / y[1]",
               "x[1] / y[1]"]


@pytest.mark.parametrize("kind", ["divide", "over", "invalid", "all"])
def test_errstate_raise_as_numpy(kind):
    for expr in EXPRESSIONS:
        fn = _under(kind, expr)
        compiled = tpucc.compile(fn, cache=False)
        # (float32 once, under all: the checks do not depend on the kind's dtype)
        for args in ((X, Y), SAFE) + (((X32, Y32),) if kind == "all" else ()):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected, message = _eager_or_error(fn, args)
            if message is None:
                assert_same(expected, compiled(*copy.deepcopy(args)))
                continue
            with pytest.raises(FloatingPointError) as info:
                compiled(*copy.deepcopy(args))
            assert isinstance(info.value, E.RuntimeRaiseError)
            assert info.value.message == message, (kind, expr)


@pytest.mark.parametrize("expr", ["x // y", "x % y", "x / y", "np.fmod(x, y)"])
def test_errstate_integer_division(expr):
    fn = _under("divide", expr)
    compiled = tpucc.compile(fn, cache=False)
    ints = (np.array([3, 1, 5]), np.array([1, 0, 2]))
    _, message = _eager_or_error(fn, ints)
    with pytest.raises(FloatingPointError, match=message):
        compiled(*ints)
    assert_same(fn(ints[0], ints[1] + 1), compiled(ints[0], ints[1] + 1))


def inv_depth(z):
    with np.errstate(divide="raise"):
        return 1.0 / z


def nested(x, y):
    with np.errstate(all="raise"):
        with np.errstate(divide="ignore"):
            a = x / y          # (x / 0: inf, allowed here)
        return np.sqrt(a)


def after_the_block(x, y):
    with np.errstate(divide="raise"):
        a = x + y
    return a, x / y


def in_place(x, y):
    with np.errstate(divide="raise"):
        x /= y
    return x


def in_a_runtime_loop(x):
    total = 0.0
    with np.errstate(invalid="raise"):
        for i in range(x.shape[0]):
            total = total + np.sqrt(x[i])
    return total


def in_a_helper(x, y):
    with np.errstate(divide="raise"):
        return _log_plus(x, y)


def _log_plus(x, y):
    return np.log(x) + y


def test_errstate_raise_the_sweeps_program_names_the_line():
    raises_at(inv_depth, (np.array([2.0, 0.0]),), FloatingPointError,
              match=r"\[E910\] divide by zero encountered in divide", line_of="1.0 / z",
              cache=False)
    same_each(inv_depth, (np.array([2.0, 4.0]),))


@pytest.mark.parametrize("fn, bad, good", [
    (nested, (np.array([1.0, -4.0]), np.array([0.0, 1.0])),
     (np.array([1.0, 4.0]), np.array([0.0, 2.0]))),
    (after_the_block, (np.array([1.0, 2.0]), np.array([1.0, 0.0])), None),
    (in_place, (np.array([1.0, 2.0]), np.array([1.0, 0.0])),
     (np.array([1.0, 2.0]), np.array([1.0, 4.0]))),
    (in_a_runtime_loop, (np.array([1.0, -4.0, 9.0]),), (np.array([1.0, 4.0, 9.0]),)),
    (in_a_helper, (np.array([0.0, 1.0]), np.array([1.0, 1.0])),
     (np.array([2.0, 1.0]), np.array([1.0, 1.0]))),
])
def test_errstate_blocks(fn, bad, good):
    compiled = tpucc.compile(fn, cache=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, message = _eager_or_error(fn, bad)
    if message is None:       # (outside the block: NaN and inf, as NumPy gives them)
        with np.errstate(all="ignore"):
            assert_same(expected, compiled(*copy.deepcopy(bad)))
    else:
        with pytest.raises(FloatingPointError, match=message):
            compiled(*copy.deepcopy(bad))
    if good is not None:
        eager_args, comp_args = copy.deepcopy(good), copy.deepcopy(good)
        assert_same(fn(*eager_args), compiled(*comp_args))
        assert_same(eager_args, comp_args)


def fails_inside_the_block(x):
    with np.errstate(divide="raise"):
        return x.tobytes()


def test_a_compile_error_inside_the_block_leaves_numpys_state():
    before = np.geterr()
    with pytest.raises(tpucc.TpuccError):
        tpucc.compile(fails_inside_the_block, cache=False)(np.ones(2))
    assert np.geterr() == before


def catches_it(x):
    try:
        with np.errstate(divide="raise"):
            y = 1.0 / x
    except FloatingPointError:
        y = x
    return y


def test_except_floating_point_error_still_refused():
    raises_at(catches_it, (np.ones(2),), E.UnsupportedError,
              match="compiled code never raises FloatingPointError where an `except` could "
                    "catch it", line_of="except FloatingPointError", cache=False)
