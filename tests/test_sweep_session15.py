"""Found by session 15's sweep of ordinary programs: a runtime `raise` or
`assert` whose f-string message formats a runtime variable."""
import numpy as np
import pytest

import tpucc


from runtime_raise_programs import not_positive, too_big  # noqa: E402  (pytest would rewrite their asserts)


def test_a_runtime_value_in_the_message_compiles_and_is_shown():
    """It was refused at compile time (E400); then the check compiled with
    the runtime value as <runtime value>; now the value is shown
    (test_raise_values.py)."""
    f = tpucc.compile(too_big)
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 4.0])
    with pytest.raises(ValueError, match=r"^\[E910\] too big: 11.00 "
                                         r"\(limit 10, shape \(2,\)\)") as info:
        f(np.array([11.0, 2.0]))
    assert isinstance(info.value, tpucc.errors.RuntimeRaiseError)
    assert "<runtime value>" not in str(info.value)
    g = tpucc.compile(not_positive)
    np.testing.assert_array_equal(g(np.ones(2)), np.ones(2))
    with pytest.raises(AssertionError, match="sum -2.0 not positive"):
        g(-np.ones(2))
