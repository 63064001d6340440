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
