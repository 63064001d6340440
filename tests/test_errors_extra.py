"""More refusals: each is a tpucc error naming the user's line (or the
offending argument), never a raw traceback."""
import numpy as np
import pytest

import tpucc
from conftest import raises_at


def returns_none_on_one_path(x):
    if x.sum() > 0:
        return x


def test_return_none_on_one_runtime_path():
    raises_at(returns_none_on_one_path, (np.ones(2),), tpucc.MergeError,
              match="return value incompatible values: an array f64\\[2\\] and NoneType",
              line_of="if x.sum() > 0")


def recurse_forever(x, n):
    return recurse_forever(x, n)


def test_unbounded_recursion_stops_with_its_line():
    raises_at(recurse_forever, (np.ones(2), 3), tpucc.LimitError, match="nested more than",
              line_of="return recurse_forever")


def adds_one(x):
    return x + 1


def test_object_array_argument_is_named():
    with pytest.raises(tpucc.DTypeError, match="argument x has dtype object"):
        tpucc.compile(adds_one)(np.array([1, "a"], dtype=object))


def bad_keyword(x):
    return np.sum(x, axes=0)


def test_unknown_numpy_keyword():
    # a keyword NumPy does not take either: NumPy's TypeError, as eagerly
    raises_at(bad_keyword, (np.ones(2),), TypeError,
              match="TypeError: sum\\(\\) got an unexpected keyword argument 'axes'",
              line_of="np.sum(x, axes=0)")


def changes_dtype_in_branch(x):
    y = x
    if x.sum() > 0:
        y = x.astype(np.int32)
    return y


def test_branch_changes_dtype():
    raises_at(changes_dtype_in_branch, (np.ones(2),), tpucc.MergeError,
              match="different dtypes: i32\\[2\\] and f64\\[2\\]", line_of="if x.sum() > 0")


def test_unknown_compile_option():
    with pytest.raises(TypeError, match="unknown option unrol") as e:     # an OptionError
        tpucc.compile(adds_one, unrol=3)
    assert e.value.code == "E050" and "unroll" in e.value.hint


@pytest.mark.parametrize("options, message", [
    ({"unroll": "8"}, "unroll must be an int, 0 or more"),
    ({"unroll": -1}, "unroll must be an int, 0 or more"),
    ({"matmul_precision": "fast"}, 'matmul_precision must be "highest" or "high" or "default"'),
    ({"runtime_args": 5}, "runtime_args must be a tuple of parameter names"),
    ({"prints": "no"}, "prints must be True or False"),
])
def test_compile_options_are_checked(options, message):
    with pytest.raises(tpucc.errors.OptionError, match=message):
        tpucc.compile(adds_one, **options)


def test_runtime_args_may_be_one_name_or_any_name_with_kwargs():
    f = tpucc.compile(lambda x, lr: x * lr, runtime_args="lr")
    assert f.options["runtime_args"] == ("lr",)
    tpucc.compile(lambda x, **kw: x, runtime_args=("anything",))
    with pytest.warns(UserWarning, match="runtime_args names nope, which is not a parameter"):
        tpucc.compile(adds_one, runtime_args=("nope",))
