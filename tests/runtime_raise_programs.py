"""Programs with `assert` and `raise` on runtime values, for
test_runtime_checks.py: kept out of test modules, whose asserts pytest
rewrites into code of its own."""
import numpy as np


def checked_scale(x, k):
    assert x.sum() > 0, "x must have a positive sum"
    assert k < 3
    if x.max() > 100:
        raise ValueError("too big")
    x[0] = 5.0
    return x * k


def first_negative_prefix(x, n):
    total = 0.0
    for i in range(n):
        total += x[i]
        assert total >= 0, "prefix sum went negative"
        if total > 1e6:
            raise OverflowError("prefix sum too large")
    return total


def finite_loss(w, x):
    y = x @ w
    assert np.all(np.isfinite(y)), "non-finite activations"
    return np.sum(y ** 2)


def positive_sqrt_in_place(x):
    if np.any(x < 0):
        raise ValueError("negative entries")
    x[...] = np.sqrt(x)


def bounded(x, lim):
    assert x.min() >= 0, f"negative entries in an array of shape {x.shape}"
    if x.max() > lim:
        raise ValueError(f"value too large (limit {lim})")
    return x * 2


def too_big(v):
    m = v[0]
    if m > 10:
        raise ValueError(f"too big: {m:.2f} (limit {10}, shape {v.shape})")
    return v * 2


def not_positive(v):
    s = v.sum()
    assert s > 0, f"sum {s} not positive"
    return v


# --- runtime values in the messages (test_raise_values.py) -----------------------------

def doubling(x, n):
    total = x.sum()
    i = 0
    while i < n:
        total = total * 2
        assert total < 100, f"step {i}: total {total} too large"
        i += 1
    return total


def prefix_over(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
        if s > 10:
            raise ValueError(f"prefix sum {s!r} over 10 at {i}")
    return s


def checked_branches(x, t):
    if x.sum() > t:
        y = x * 2
        assert y.max() < 10, f"upper: {y}"
    else:
        y = x - 1
        assert y.min() > -10, f"lower: {y}"
    return y


def kinds(x, n):
    total = x.sum()
    top = x.max()
    flag = np.all(x > 0)
    mean = x.mean()
    half = np.float32(0.5) * top
    k, c = 0, 0.5
    while k < n:
        k += 1
        c = c * 2
    if total > 100:
        raise OverflowError(f"sum {total} top {top!r} all {flag} mean {mean} half {half!r} "
                            f"k {k} c {c}")
    return total


def formatted(x, i):
    v = x[i]
    if v < 0:
        raise ValueError(f"[{v:.2f}|{v!r}|{v:>12}|{v:+.3e}|{i:05d}|{v!r:>24}|{v!s:^10}]")
    return v


def zero_d(x):
    z = np.zeros(())
    z[...] = x[0]
    assert z < 1, f"{z} {z!r}"
    return z


def two_values(a, b):
    s, t = a.sum(), b.sum()
    assert s < t, f"{s} not below {t}; a = {a}"
    return t - s


def huge(x):
    assert x.max() < 1, f"x = {x}, shape {x.shape}"
    return x


def loss_with_message(w, x):
    loss = np.sum((x @ w) ** 2)
    assert loss < 1e6, f"loss diverged: {loss}"
    return loss


def array_spec(x):
    if x.sum() < 0:
        raise ValueError(f"{x:.2f}")
    return x


def scale_twice(x):
    return _checked_scale(x, 2.0) + _checked_scale(x, 5.0)


def _checked_scale(x, k):
    y = x * k
    assert y.max() < 20, f"scaled by {k}: {y}"
    return y
