"""Found by session 15's sweep of ordinary programs: a runtime `raise` or
`assert` whose f-string message formats a runtime variable."""
import numpy as np
import pytest

import tpucc


from runtime_raise_programs import not_positive, too_big  # noqa: E402  (pytest would rewrite their asserts)


def test_a_runtime_value_in_the_message_compiles_and_shows_as_a_placeholder():
    """It was refused at compile time (E400); now the check compiles and the
    message keeps its static text, the runtime value as <runtime value>."""
    f = tpucc.compile(too_big)
    np.testing.assert_array_equal(f(np.array([1.0, 2.0])), [2.0, 4.0])
    with pytest.raises(ValueError, match=r"^\[E910\] too big: <runtime value> "
                                         r"\(limit 10, shape \(2,\)\)") as info:
        f(np.array([11.0, 2.0]))
    assert isinstance(info.value, tpucc.errors.RuntimeRaiseError)
    assert "runtime values in its message show as <runtime value>" in str(info.value)
    g = tpucc.compile(not_positive)
    np.testing.assert_array_equal(g(np.ones(2)), np.ones(2))
    with pytest.raises(AssertionError, match="sum <runtime value> not positive"):
        g(-np.ones(2))
