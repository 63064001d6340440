"""Control flow: runtime if/elif/else, ternaries, boolean operators, runtime
while loops, `for` over runtime ranges, break/continue/return inside runtime
regions, promoted loop-carried Python scalars, unrolled static loops,
in-place updates (also of argument arrays) and statically folded conditions.

Programs with runtime control flow are checked eagerly vs compiled for inputs
that take each path, and their HLO must contain a `while` / `conditional`;
statically decided conditions must leave no `conditional` in the HLO."""
import time

import numpy as np
import pytest

from conftest import check, count_hlo, hlo


def _r(shape, dtype=np.float64, seed=0, lo=-2.0, hi=2.0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        return rng.integers(int(lo), int(hi), size=shape).astype(dt)
    return rng.uniform(lo, hi, size=shape).astype(dt)


def _pos(shape, dtype=np.float64, seed=0):
    return _r(shape, dtype, seed, 0.5, 2.0)


def _neg(shape, dtype=np.float64, seed=0):
    return _r(shape, dtype, seed, -2.0, -0.5)


def n_(k):
    """A runtime loop bound: a 0-d int64 array argument."""
    return np.array(k, dtype=np.int64)


# --------------------------------------------------------------------------
# Runtime conditionals
# --------------------------------------------------------------------------

def if_else(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def if_elif_else_assign(x):
    s = x.sum()
    if s > 3:
        y = x * 2
    elif s > 0:
        y = x + 100
    else:
        y = -x
    return y, s


def if_elif_return(x):
    s = x.mean()
    if s > 1:
        return x * 2
    elif s > 0:
        return x + 100
    return -x


def nested_if(x, y):
    if x.mean() > 0:
        if y.mean() > 0:
            z = x + y
        else:
            z = x - y
    else:
        z = x * 0.5 if y.max() > 1 else y * 0.5
    return z


def ternary(x):
    y = x * 2 if x.mean() > 0 else -x
    return y, (1.0 if x.max() > 1 else 0.0)


def bool_ops(x, y):
    if x.sum() > 0 and y.sum() > 0:
        r = x + y
    elif x.sum() > 0 or y.max() > 1.5:
        r = x - y
    elif not (x.min() > -1):
        r = x * y
    else:
        r = x
    return r


def chained_comparison(x):
    if -1.0 < x.mean() < 1.0:
        return x * 10
    return x


def cond_all_any(x):
    y = x
    if (x > 0).all():
        y = y + 1
    if np.any(x < -1):
        y = y * 3
    return y


def cond_on_bool_arg(x, flag):
    # flag is a 0-d bool array: a runtime condition
    if flag:
        return x + 1
    return x - 1


def early_return_branch(x):
    if x.sum() > 0:
        return x * 2
    x = x - 1
    return x * 3


def one_sided_if(x):
    y = x
    if x[0] > 0:
        y = x * 10
    return y


RUNTIME_IF = [
    (if_else, (_pos(4),)),
    (if_else, (_neg(4),)),
    (if_elif_else_assign, (_pos(4),)),
    (if_elif_else_assign, (_r(4, lo=-0.1, hi=0.3),)),
    (if_elif_else_assign, (_neg(4),)),
    (if_elif_return, (_pos(4, seed=0) + 1,)),
    (if_elif_return, (_r(4, lo=0.1, hi=0.5),)),
    (if_elif_return, (_neg(4),)),
    (nested_if, (_pos(3), _pos(3, seed=1))),
    (nested_if, (_pos(3), _neg(3, seed=1))),
    (nested_if, (_neg(3), _pos(3, seed=1) + 1)),
    (nested_if, (_neg(3), _neg(3, seed=1))),
    (ternary, (_pos(4, np.float32),)),
    (ternary, (_neg(4, np.float32),)),
    (bool_ops, (_pos(3), _pos(3, seed=1))),
    (bool_ops, (_pos(3), _neg(3, seed=1))),
    (bool_ops, (_neg(3), _neg(3, seed=1))),
    (bool_ops, (np.array([-0.1, -0.2, -0.3]), np.array([-0.5, -0.2, 0.1]))),
    (chained_comparison, (np.array([0.1, -0.3, 0.5]),)),
    (chained_comparison, (_pos(3) + 1,)),
    (cond_all_any, (_pos(4),)),
    (cond_all_any, (np.array([0.5, -1.5, 2.0, 0.0]),)),
    (cond_on_bool_arg, (_r(3, np.int32), np.array(True))),
    (cond_on_bool_arg, (_r(3, np.int32), np.array(False))),
    (early_return_branch, (_pos(3, np.float32),)),
    (early_return_branch, (_neg(3, np.float32),)),
    (one_sided_if, (_pos(3, np.int32, 1) + 1,)),
    (one_sided_if, (-_pos(3, np.int32, 1) - 1,)),
]


def _ids(cases):
    seen, out = {}, []
    for fn, *_ in cases:
        n = seen.get(fn.__name__, 0)
        seen[fn.__name__] = n + 1
        out.append(f"{fn.__name__}-{n}")
    return out


@pytest.mark.parametrize("fn,args", RUNTIME_IF, ids=_ids(RUNTIME_IF))
def test_runtime_if(fn, args):
    f = check(fn, *args, rtol=1e-5)
    assert count_hlo(hlo(f, *args), "conditional") >= 1


# --------------------------------------------------------------------------
# Runtime loops
# --------------------------------------------------------------------------

def while_double(x):
    while x.max() < 100:
        x = x * 2
    return x


def while_counter(x):
    i = 0
    while x.sum() < 50:
        x = x + 1
        i += 1
    return x, i


def count_steps(x):
    i = 0
    while x.max() < 1000:
        x = x * 3
        i += 1
    return i


def while_true_break(x):
    n = 0
    while True:
        x = x * 1.5
        n += 1
        if x.sum() > 20:
            break
    return x, n


def while_float_carry(x):
    t = 0.0
    while x.sum() < 30:
        t += 0.5
        x = x + 1
    return x, t


def while_multiple_dtypes(i, f):
    # carries an int32 array, a float32 array and a Python int
    # (f + k keeps float32 because the promoted Python int k stays weak)
    k = 0
    while f.sum() < 20:
        i = i + 1
        k = k + 2
        f = f * 2 + k
    return i, f, k


def for_runtime_range(x, n):
    # i is a promoted Python int: weak, so float32 * i stays float32
    acc = np.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
    return acc


def for_runtime_range_start_step(x, n):
    for i in range(1, n, 2):
        x = x + i
    return x


def for_nested_runtime(x, n, m):
    acc = 0
    for i in range(n):
        for j in range(m):
            acc += i * j + 1
    return x + acc, acc


def for_break(x, n):
    for i in range(n):
        if x.sum() > 10:
            break
        x = x + 1
    return x


def for_continue(x, n):
    acc = np.zeros_like(x)
    for i in range(n):
        if i % 3 == 0:
            continue
        acc = acc + x * i
    return acc


def for_early_return(x, n):
    for i in range(n):
        x = x * 2
        if x.sum() > 50:
            return x, i
    return x, -1


def loop_with_if(x, n):
    for i in range(n):
        if x[i % 4] > 0:
            x = x - 0.5
        else:
            x = x + 1.0
    return x


def loop_with_static_inner(x, n):
    for _ in range(n):
        for k in range(3):          # static inner loop
            x = x + k * 0.1
        x = x * 0.5
    return x


def while_setitem(x):
    out = np.zeros(6)
    i = 0
    while i < 6 and x.sum() < 100:
        out[i] = x.sum()
        x = x * 2
        i += 1
    return out, i


RUNTIME_LOOPS = [
    (while_double, (_pos(4),), {}),
    (while_double, (np.array([200.0, 1.0]),), {}),        # zero iterations
    (while_counter, (_pos(3, np.float32),), {}),
    (count_steps, (_pos(4),), {}),
    (while_true_break, (_pos(3),), {}),
    (while_float_carry, (_pos(3, np.float32),), {}),
    (while_multiple_dtypes, (_r(3, np.int32, 0, 0, 3), _pos(3, np.float32)), {}),
    (for_runtime_range, (_r(4, np.float32), n_(5)), {}),
    (for_runtime_range, (_r(4, np.float32), n_(0)), {}),
    (for_runtime_range_start_step, (_r(3, np.int32), n_(8)), {}),
    (for_nested_runtime, (_r(2), n_(3), n_(4)), {}),
    (for_break, (_pos(3), n_(10)), {}),
    (for_break, (_pos(3), n_(2)), {}),
    (for_continue, (_r(3), n_(7)), {}),
    (for_early_return, (_pos(3), n_(10)), {}),
    (for_early_return, (_pos(3), n_(2)), {}),
    (loop_with_if, (_r(4), n_(6)), {}),
    (loop_with_static_inner, (_r(3, np.float32), n_(4)), {}),
    (while_setitem, (_pos(3),), {}),
    (while_setitem, (np.array([40.0, 10.0]),), {}),
]


@pytest.mark.parametrize("fn,args,kw", RUNTIME_LOOPS, ids=_ids(RUNTIME_LOOPS))
def test_runtime_loop(fn, args, kw):
    f = check(fn, *args, rtol=1e-5, **kw)
    assert count_hlo(hlo(f, *args), "while") >= 1


def test_loop_counter_value():
    # the eager result is a Python int; compiled gives the same value
    x = np.array([1.0, 2.0])
    f = check(count_steps, x)
    assert int(np.asarray(f(x))) == count_steps(x) == 6


def test_runtime_bound_reused():
    # one compiled function, different runtime trip counts
    x = _r(4, np.float32)
    f = check(for_runtime_range, x, n_(3), rtol=1e-5)
    for k in (0, 1, 7):
        expected = for_runtime_range(x, n_(k))
        np.testing.assert_allclose(f(x, n_(k)), expected, rtol=1e-5)


# --------------------------------------------------------------------------
# runtime_args: Python scalars made runtime by option
# --------------------------------------------------------------------------

def halve_n_times(x, n):
    for _ in range(n):
        x = x * 0.5
    return x


def scale_if_positive(x, s):
    if s > 0:
        return x * s
    return x - s


def test_runtime_python_int_bound():
    x = _r(3)
    f = check(halve_n_times, x, 3, compile_kwargs={"runtime_args": ("n",)})
    assert count_hlo(hlo(f, x, 3), "while") >= 1
    np.testing.assert_allclose(f(x, 5), halve_n_times(x, 5))


@pytest.mark.parametrize("s", [2.5, -1.5])
def test_runtime_python_float(s):
    # a runtime Python float is still weak: float32 stays float32
    x = _r(3, np.float32)
    f = check(scale_if_positive, x, s, rtol=1e-6, compile_kwargs={"runtime_args": ("s",)})
    assert count_hlo(hlo(f, x, s), "conditional") >= 1


# --------------------------------------------------------------------------
# Static loops
# --------------------------------------------------------------------------

def static_loop_unrolled(x):
    for i in range(3):
        x = x * (i + 1) + i
    return x


def static_loop_over_len(x):
    acc = 0.0
    for i in range(len(x)):
        acc = acc + x[i] * i
    return acc


def long_static_loop(x):
    for i in range(1000):
        x = x * 0.999 + 0.001
    return x


def test_static_loop_unrolled():
    x = _r(4)
    f = check(static_loop_unrolled, x)
    text = hlo(f, x)
    assert count_hlo(text, "while") == 0
    assert count_hlo(text, "conditional") == 0


def test_static_loop_over_len():
    x = _r(5, np.float32)
    f = check(static_loop_over_len, x, rtol=1e-5)
    assert count_hlo(hlo(f, x), "conditional") == 0


def test_long_static_loop_compiles_fast():
    x = _r((4, 4))
    start = time.perf_counter()
    check(long_static_loop, x)
    elapsed = time.perf_counter() - start
    assert elapsed < 30, f"1000-step static loop took {elapsed:.1f}s to compile and run"


# --------------------------------------------------------------------------
# In-place updates
# --------------------------------------------------------------------------

def setitem_runtime_loop(x, n):
    for i in range(n):
        x[i] = i * 2.0
    return x.sum()


def augassign_in_runtime_loop(c, idx, n):
    # histogram: c[idx[i]] += 1 with a runtime i
    for i in range(n):
        c[idx[i]] += 1
    return c


def setitem_in_runtime_branch(x):
    y = np.zeros(4)
    if x.sum() > 0:
        y[0] = 1.0
        x[1] += 10.0
    else:
        y[1:3] = x[:2]
    return y


def setitem_dynamic_index_branch(x, i):
    # i is a 0-d int array
    if x[i] > 0:
        x[i] = 0.0
    else:
        x[i] += 1.0
    return x


INPLACE_RUNTIME = [
    (setitem_runtime_loop, (np.ones(6), n_(4)), "while"),
    (augassign_in_runtime_loop, (np.zeros(5, np.int64), np.array([0, 3, 3, 1, 4, 3, 0, 2], np.int32), n_(6)),
     "while"),
    (setitem_in_runtime_branch, (_pos(3),), "conditional"),
    (setitem_in_runtime_branch, (_neg(3),), "conditional"),
    (setitem_dynamic_index_branch, (np.array([1.0, -2.0, 3.0]), n_(1)), "conditional"),
    (setitem_dynamic_index_branch, (np.array([1.0, -2.0, 3.0]), n_(2)), "conditional"),
]


@pytest.mark.parametrize("fn,args,kind", INPLACE_RUNTIME, ids=_ids(INPLACE_RUNTIME))
def test_inplace_runtime(fn, args, kind):
    f = check(fn, *args)
    assert count_hlo(hlo(f, *args), kind) >= 1


def slice_augassign(x, v):
    x[1:3, 0] += v
    x[0] = -1.0
    x[-1, :] *= 2
    x[:, 2] = x[:, 1] - v[0]
    return x


def mutate_argument_inplace(x, y):
    # returns nothing: the writes to x and y must be visible to the caller
    x += 1
    y *= 0.5
    y[0] = x[0]


def alias_mutation(x):
    z = x
    z[0] = 5.0
    z += 1.0
    return x.sum()


def local_copy_not_written_back(x):
    y = x.copy()
    y[0] = 100.0
    return y


@pytest.mark.parametrize("fn,args", [
    (slice_augassign, (_r((4, 3)), _r(2, seed=1))),
    (mutate_argument_inplace, (_r(3, np.int32), _r(3, np.float32))),
    (alias_mutation, (_r(3),)),
    (local_copy_not_written_back, (_r(3),)),
], ids=["slice_augassign", "mutate_argument_inplace", "alias_mutation", "local_copy"])
def test_inplace_static(fn, args):
    check(fn, *args)


# --------------------------------------------------------------------------
# Static conditions are folded
# --------------------------------------------------------------------------

def static_ndim(x):
    if x.ndim == 2:
        return x.sum(axis=1)
    return x * 2


def static_flag(x, flag):
    if flag:
        x = x + 1
    else:
        x = x - 1
    return x


def static_shape_dtype(x):
    if x.shape[0] > 3 and x.dtype == np.float32:
        return x[:3]
    return x


def static_none_default(x, bias=None):
    if bias is not None:
        x = x + bias
    return x


@pytest.mark.parametrize("fn,args", [
    (static_ndim, (_r((2, 3)),)),
    (static_ndim, (_r(3),)),
    (static_flag, (_r(3), True)),
    (static_flag, (_r(3), False)),
    (static_shape_dtype, (_r(5, np.float32),)),
    (static_shape_dtype, (_r(5),)),
    (static_shape_dtype, (_r(2, np.float32),)),
    (static_none_default, (_r(3),)),
    (static_none_default, (_r(3), _r(3, seed=1))),
], ids=["ndim2", "ndim1", "flag_true", "flag_false", "f32_long", "f64_long", "f32_short",
        "bias_none", "bias_array"])
def test_static_condition_folded(fn, args):
    f = check(fn, *args)
    assert count_hlo(hlo(f, *args), "conditional") == 0
