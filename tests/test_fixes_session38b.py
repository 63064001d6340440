"""Session 38b's fixes, each checked against eager NumPy or for its message."""
import math
import time

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, count_hlo, hlo, raises_at


# --- recursion under a runtime `if` that a static depth ends: a budget (recursion.py) ------

def _g(x):
    return math.sin(x) * math.exp(-0.5 * x)


def _asr(a, b, fa, fm, fb, whole, eps, depth):
    m = 0.5 * (a + b)
    lm = 0.5 * (a + m)
    rm = 0.5 * (m + b)
    flm = _g(lm)
    frm = _g(rm)
    left = (m - a) / 6 * (fa + 4 * flm + fm)
    right = (b - m) / 6 * (fm + 4 * frm + fb)
    delta = left + right - whole
    if depth <= 0 or abs(delta) <= 15 * eps:
        return left + right + delta / 15
    return (_asr(a, m, fa, flm, fm, left, eps / 2, depth - 1) +
            _asr(m, b, fm, frm, fb, right, eps / 2, depth - 1))


def _simpson(depth):
    def integrate(ab):
        a = float(ab[0])
        b = float(ab[1])
        fa, fb, fm = _g(a), _g(b), _g(0.5 * (a + b))
        return _asr(a, b, fa, fm, fb, (b - a) / 6 * (fa + 4 * fm + fb), 1e-8, depth)
    return integrate


def test_a_deep_adaptive_recursion_is_refused_promptly():
    # (2 ** depth inlined calls, each under a runtime `if`: depth 7 took minutes
    # to compile, depth 30 never finished)
    start = time.perf_counter()
    err = raises_at(_simpson(7), (np.array([0.0, 3.0]),), E.LimitError,
                    match=r"_asr calls itself inside runtime `if`s or loops, and this call tree has "
                          r"inlined \d+ such calls, \d+ ops, more than the 8000")
    assert err.loc.func == "_asr" and "st[top]" in err.hint
    assert time.perf_counter() - start < 30


def test_a_shallow_adaptive_recursion_still_compiles():
    check(_simpson(2), np.array([0.0, 3.0]))


def _simpson_stack(ab):
    """The E600 hint's form: the pending intervals as rows of an array."""
    a = float(ab[0])
    b = float(ab[1])
    fa, fb, fm = _g(a), _g(b), _g(0.5 * (a + b))
    st = np.zeros((64, 8))
    st[0] = (a, b, fa, fm, fb, (b - a) / 6 * (fa + 4 * fm + fb), 1e-8, 30)
    top = 1
    total = 0.0
    while top > 0:
        top -= 1
        a, b, fa, fm, fb, whole, eps, depth = st[top]
        m = 0.5 * (a + b)
        flm, frm = _g(0.5 * (a + m)), _g(0.5 * (m + b))
        left = (m - a) / 6 * (fa + 4 * flm + fm)
        right = (b - m) / 6 * (fm + 4 * frm + fb)
        delta = left + right - whole
        if depth <= 0 or abs(delta) <= 15 * eps:
            total += left + right + delta / 15
        else:
            st[top] = (m, b, fm, frm, fb, right, eps / 2, depth - 1)
            st[top + 1] = (a, m, fa, flm, fm, left, eps / 2, depth - 1)
            top += 2
    return total


def test_the_recursion_hint_compiles():
    check(_simpson_stack, np.array([0.0, 3.0]))


# --- a Metropolis chain appending the sample it kept: one While (stacking.py) -------------

def _chain(x0, props, us, copies=False):
    x = x0.copy()
    lp = -0.5 * x @ x
    samples = []
    for i in range(len(props)):
        xn = x + 0.5 * props[i]
        lpn = -0.5 * xn @ xn
        if np.log(us[i]) < lpn - lp:        # runtime accept / reject
            x, lp = xn, lpn
        samples.append(x.copy() if copies else x)
    return samples


def _mh(x0, props, us):
    samples = _chain(x0, props, us)
    return np.array(samples), samples[0], samples[-1]


def _mh_args(n=120):
    rng = np.random.default_rng(3)
    return np.zeros(2), rng.normal(size=(n, 2)), rng.uniform(size=n)


def test_a_chain_appending_the_kept_sample_is_one_while():
    compiled = check(_mh, *_mh_args())
    text = hlo(compiled, *_mh_args())
    assert count_hlo(text, "while") == 1


def test_an_item_that_may_be_another_is_not_updated_in_place():
    def update_item(x0, props, us):
        samples = _chain(x0, props, us)
        samples[3][0] = 100.0       # (NumPy: every item that is that array changes)
        return np.array(samples)
    err = raises_at(update_item, _mh_args(), E.SideEffectError,
                    match="a runtime `if` left unchanged on some iterations",
                    line_of="samples[3][0] = 100.0")
    assert "x.copy()" in err.hint

    def update_copies(x0, props, us):       # the hint's fix
        samples = _chain(x0, props, us, copies=True)
        samples[3][0] = 100.0
        return np.array(samples)
    check(update_copies, *_mh_args())


def test_an_unrolled_append_names_the_copy():
    def appends_then_updates(x, d):
        out = []
        for i in range(400):
            out.append(x)
            x[0] += d[i] * 2 + 1
        return np.array(out)
    with pytest.warns(tpucc.UnrollWarning, match=r"append a copy of the array"):
        tpucc.compile(appends_then_updates).lower(np.zeros(2), np.arange(400.0))


# --- `2 ** k` of a `while` loop's counter (counters.py) -----------------------------------

def _halvings(x):
    k = 0
    while 0.5 ** k > x[0]:
        k += 1
    return k, 2 ** k


def _romberg_sizes(x):
    k = 1
    total = 0
    while 0.5 ** k > x[0]:
        total += 2 ** (k - 1)
        k += 2
    return total, 2 ** k


def test_a_while_counter_to_a_power_is_an_int():
    check(_halvings, np.array([1e-3]))
    check(_halvings, np.array([2.0]))           # (no iteration: k stays 0)
    check(_romberg_sizes, np.array([1e-3]))
    assert type(tpucc.compile(_halvings)(np.array([1e-3]))[1]) is int


def test_a_counter_that_may_go_negative_is_still_refused():
    def counts_down(x):
        k = 5
        while x[0] < 0.5 ** k and k > -3:
            k -= 1
        return 2 ** k

    def reset_below(x):
        k = 0
        while 0.5 ** k > x[0]:
            k = k + 1
            if k > 3:
                k = -2
        return 2 ** k
    for fn in (counts_down, reset_below):
        raises_at(fn, (np.array([0.5]),), E.StaticValueError,
                  match="depending on the exponent's sign", line_of="return 2 ** k")
