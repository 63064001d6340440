"""np.testing's array assertions (assert_allclose, assert_array_equal,
assert_array_almost_equal) on runtime arrays: run-time checks that raise
AssertionError when the call returns, as the program's own
`assert np.allclose(a, b)` does (E910).

NumPy's rules, read from np.testing.assert_array_compare: the shapes must be
equal unless one side is 0-d (strict=True: shapes and dtypes equal), which is
known at compile time; NaNs at the same places count as equal (equal_nan);
the comparison of every element is known only at run time.  The message is
NumPy's header and its count of mismatched elements."""
from __future__ import annotations

import numpy as np

from ..errors import UserCodeError
from .elementwise import emit_ufunc
from .logic import isclose
from .manipulation import as_array
from .registry import NUMPY, implements


@implements(np.testing.assert_allclose)
def assert_allclose(actual, desired, rtol=1e-07, atol=0, equal_nan=True, err_msg="",
                    verbose=True, *, strict=False):
    header = f"Not equal to tolerance rtol={rtol:g}, atol={atol:g}"
    x, y = _compared(actual, desired, header, err_msg, strict)
    _require_all(isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan), header, err_msg)


@implements(np.testing.assert_array_equal)
def assert_array_equal(actual, desired, err_msg="", verbose=True, *, strict=False):
    header = "Arrays are not equal"
    x, y = _compared(actual, desired, header, err_msg, strict)
    _require_all((x == y) | _both_nan(x, y), header, err_msg)


@implements(np.testing.assert_array_almost_equal)
def assert_array_almost_equal(actual, desired, decimal=6, err_msg="", verbose=True):
    header = f"Arrays are not almost equal to {decimal} decimals"
    x, y = _compared(actual, desired, header, err_msg, strict=False)
    # NumPy's test: abs(x - y) < 1.5 * 10**-decimal; equal infinities and
    # NaNs at the same places pass too
    near = abs(x - y) < 1.5 * 10.0 ** (-decimal)
    _require_all(near | (x == y) | _both_nan(x, y), header, err_msg)


def _compared(actual, desired, header, err_msg, strict):
    """The two operands as arrays, after NumPy's static checks: equal shapes
    (or a 0-d side), and with strict=True equal shapes and dtypes."""
    x, y = as_array(actual), as_array(desired)
    same_shape = x.shape == y.shape or (not strict and () in (x.shape, y.shape))
    if not same_shape:
        _fail(header, err_msg, f"(shapes {x.shape}, {y.shape} mismatch)")
    if strict and x.dtype != y.dtype:
        _fail(header, err_msg, f"(dtypes {x.dtype}, {y.dtype} mismatch)")
    return x, y


def _fail(header, err_msg, why):
    """A mismatch known at compile time: AssertionError now, as eagerly."""
    raise UserCodeError(f"AssertionError: {_text(header, err_msg)}\n{why}",
                        hint="the shapes and dtypes of arrays are known at compile time; "
                             "this assertion fails on every call")


def _require_all(ok, header, err_msg):
    from ..infer import checks, messages
    mismatched = NUMPY[np.sum](~ok, dtype=np.int64)
    message = messages.Message((f"{_text(header, err_msg)}\nMismatched elements: ",
                                messages.Field(mismatched, None, ""), f" / {ok.size}"))
    checks.require(NUMPY[np.all](ok), message, raises="AssertionError",
                   hint="np.testing asserts on runtime values are checked when the call "
                        "returns; assert np.allclose(a, b) is the same check")


def _text(header, err_msg):
    return header + (f"\n{err_msg}" if err_msg else "")


def _both_nan(x, y):
    return emit_ufunc("isnan", x) & emit_ufunc("isnan", y)
