"""Programs tpucc must reject with a designed error (a TpuccError subclass,
not an internal error) located at the offending line of the user's source.
Messages are checked only loosely for the key idea.

PYTEST_DONT_REWRITE: `static_assert` below must keep a plain `assert`
statement for tpucc to compile (pytest would otherwise rewrite its bytecode)."""
import contextlib
import math
import re

import numpy as np

import tpucc
from conftest import raises_at


def _expect(fn, args, match=None, line_of=None, **compile_kwargs):
    err = raises_at(fn, args, line_of=line_of, **compile_kwargs)
    assert type(err).__name__ != "InternalError", f"internal error instead of a user error: {err}"
    if match is not None:
        # match the message itself, not the rendered source line
        message = getattr(err, "message", None) or str(err)
        assert re.search(match, message, re.IGNORECASE), message
    return err


def _r(shape, seed=0):
    return np.random.default_rng(seed).uniform(-2.0, 2.0, size=shape)


# --------------------------------------------------------------------------
# Unsupported constructs and calls
# --------------------------------------------------------------------------

def uses_open(x):
    y = x + 1
    f = open("/tmp/tpucc-test-data.txt")
    return y, f


def test_open_call():
    _expect(uses_open, (_r(3),), match=r"open|I/O|file|unsupported", line_of="open(")


def uses_try(x, i):
    y = x * 2
    try:
        y = y[i]                # a runtime index: checked when the call returns
    except IndexError:
        y = x[0]
    return y


def test_try_catching_a_runtime_check():
    _expect(uses_try, (_r(3), np.int64(1)), match=r"`except` clause at line \d+ .*would catch",
            line_of="y = y[i]")


def uses_with(x, i):
    y = x * 2
    with contextlib.suppress(IndexError):       # would catch the runtime check
        y = y[i]
    return y


def test_with_suppress_around_a_runtime_check():
    _expect(uses_with, (_r(3), np.int64(1)),
            match=r"the `with` at line \d+ \(uses_with; contextlib.suppress\)", line_of="y = y[i]")


def uses_eig(x):
    y = x * 2
    w, v = np.linalg.eig(y)
    return w


def test_unsupported_library_eig_of_real_matrix():
    _expect(uses_eig, (_r((3, 3)),), match=r"eig of a real matrix", line_of="np.linalg.eig")


def uses_unique(x):
    y = np.round(x)
    return np.unique(y)


def test_unsupported_library_unique():
    _expect(uses_unique, (_r(6),), match=r"unique", line_of="np.unique")


# --------------------------------------------------------------------------
# Shapes and dtypes NumPy would reject
# --------------------------------------------------------------------------

def matmul_mismatch(a, b):
    c = a + 1
    return c @ b


def test_matmul_shape_mismatch():
    _expect(matmul_mismatch, (_r((3, 4)), _r((5, 6))),
            match=r"shape|dimension|mismatch|align|contract|\(3, ?4\)", line_of="c @ b")


def add_mismatch(a, b):
    c = a * 2
    d = c + b
    return d


def test_add_broadcast_mismatch():
    _expect(add_mismatch, (_r(3), _r(4)), match=r"broadcast|shape", line_of="d = c + b")


def bad_reshape(x):
    y = x * 2
    return y.reshape(5, -1)


def test_reshape_incompatible():
    _expect(bad_reshape, (_r((3, 4)),), match=r"reshape|shape|size", line_of="reshape(5")


def float_bitwise(x):
    y = x * 2
    return y & 1


def test_bitwise_on_float():
    _expect(float_bitwise, (_r(3),), match=r"bitwise|dtype|float|type|&", line_of="y & 1")


def mask_index(x):
    y = x - 1
    return y[y > 0]


def test_boolean_mask_index():
    _expect(mask_index, (_r(6),), match=r"mask|boolean|data.dependent|shape|nonzero",
            line_of="y[y > 0]")


# --------------------------------------------------------------------------
# Runtime control flow that cannot be typed
# --------------------------------------------------------------------------

def branch_shapes(x):
    if x.sum() > 0:                 # E: the if
        y = x                       # E: or a branch assignment
    else:
        y = x[:2]                   # E
    return y


def test_branches_give_different_shapes():
    _expect(branch_shapes, (_r(4),), match=r"shape|branch|\by\b", line_of="# E")


def branch_dtypes(x):
    if x.sum() > 0:                 # E: the if
        y = x                       # E: int32
    else:
        y = x * 1.5                 # E: float64
    return y


def test_branches_give_different_dtypes():
    x = np.arange(4, dtype=np.int32)
    _expect(branch_dtypes, (x,), match=r"dtype|type|branch|\by\b|int32|float64", line_of="# E")


def loop_grows(x):
    while x.sum() < 100:                    # E: the loop
        x = np.concatenate([x, x])          # E: or the assignment
    return x


def test_loop_changes_shape():
    _expect(loop_grows, (np.ones(2),), match=r"shape|loop|iteration|\bx\b", line_of="# E")


def one_branch_var(x):
    if x.sum() > 0:                 # E: the if
        y = x * 2
    return y                        # E: or the use


def test_variable_defined_in_one_branch():
    _expect(one_branch_var, (np.ones(3),),
            match=r"\by\b|undefined|unbound|not defined|branch", line_of="# E")


def append_in_loop(x, n):
    xs = []
    for i in range(n):
        xs.append(x * i)
    return xs


def test_list_append_in_runtime_loop():
    _expect(append_in_loop, (_r(3), np.array(4)),
            match=r"append|list|mutat|side.effect|loop", line_of="xs.append")


# --------------------------------------------------------------------------
# Values that must be static but depend on runtime data
# --------------------------------------------------------------------------

def int_of_runtime_in_range(x):
    y = x * 2
    total = 0.0
    for i in range(int(y.sum())):
        total = total + i
    return total


def test_int_of_runtime_value_as_loop_bound_is_a_runtime_loop():
    # Not an error in tpucc: int() of an array is a runtime int, so the loop
    # becomes an HLO While.
    from conftest import check, count_hlo, hlo
    f = check(int_of_runtime_in_range, np.ones(3))
    assert count_hlo(hlo(f, np.ones(3)), "while") >= 1


def int_of_runtime_as_shape(x):
    y = x + 1
    return np.zeros(int(y[0]))


def test_int_of_runtime_value_as_shape():
    _expect(int_of_runtime_as_shape, (np.full(3, 2.0),),
            match=r"static|runtime|compile.time|data.dependent|concrete|shape|int\(",
            line_of="np.zeros(int(")


def float_of_runtime_static(x):
    y = x * 2
    return np.ones(math.floor(float(y.max())))


def test_float_of_runtime_value_used_statically():
    _expect(float_of_runtime_static, (np.full(3, 2.0),),
            match=r"static|runtime|compile.time|data.dependent|concrete|float|floor",
            line_of="math.floor(float(")


# --------------------------------------------------------------------------
# Errors raised by the user's own code at compile time
# --------------------------------------------------------------------------

def static_raise(x):
    if x.ndim != 2:
        raise ValueError("expected a matrix")
    return x.sum()


def test_raise_reached_statically():
    _expect(static_raise, (_r(3),), match=r"expected a matrix", line_of="raise ValueError")


def static_assert(x):
    y = x + 1
    assert y.shape[0] == 4, "need four rows"
    return y


def test_failing_static_assert():
    _expect(static_assert, (_r((3, 2)),), match=r"need four rows", line_of="assert y.shape")


def test_errors_are_tpucc_errors():
    # the base class carries a location object with file and line
    err = _expect(mask_index, (_r(6),), line_of="y[y > 0]")
    assert isinstance(err, tpucc.TpuccError)
    assert err.loc.file.endswith("test_errors.py")
