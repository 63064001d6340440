"""Session 39a's fixes, each checked against eager NumPy or for its message."""
import warnings

import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import check, raises_at


# --- max()/min()/sorted() of static NumPy scalars among runtime ones (builtins_impl) ------

def _running_max(scores):
    best = np.float32(0)
    for s in scores:
        best = max(best, s)
    return best


def _running_max_runtime_first(scores):
    best = np.float32(0)
    for s in scores:
        best = max(s, best)
    return best


def test_max_of_a_static_numpy_scalar_and_runtime_ones_compiles():
    # (refused: "max() with runtime keys ... the items must be arrays or numbers")
    x = np.array([0.3, 0.7, 0.6], np.float32)
    check(_running_max, x)
    check(_running_max_runtime_first, x)
    check(lambda x: min(np.float32(1), x.max()), x)
    check(lambda i: max(i[1], np.int64(0), i[0]), np.array([3, -5, 2]))


def test_sorted_of_a_static_numpy_scalar_among_runtime_ones_compiles():
    x = np.array([0.3, 0.7, 0.6], np.float32)
    check(lambda x: sorted([np.float32(0.5), x[0], x[1]]), x)
    check(lambda x: sorted([x[0], np.float32(0.5), x[1]], reverse=True), x)


def test_max_of_numpy_scalars_of_other_dtypes_stays_refused():
    # (which one is returned, and so its dtype, depends on the data)
    raises_at(lambda x: max(np.float64(0), x[0]), (np.ones(2, np.float32),), E.MergeError,
              match="different types", line_of="max(")


# --- a runtime value given for a NumPy parameter that must be static (static_arguments) ---

_STATIC_PARAMETERS = [
    (lambda x, h: np.rot90(x, int(h.argmax())), "`k` of np.rot90"),
    (lambda x, h: np.pad(x, int(h.argmax())), "`pad_width` of np.pad"),
    (lambda x, h: np.pad(x, ((int(h.argmax()), 0), (0, 0))), "`pad_width` of np.pad"),
    (lambda x, h: np.split(x, int(h.argmax()) + 1, axis=1)[0],
     "`indices_or_sections` of np.split"),
    (lambda x, h: x.reshape(int(h.argmax()) + 3, -1), "`shape` of x.reshape()"),
    (lambda x, h: np.linspace(0, 1, int(h.argmax()) + 2), "`num` of np.linspace"),
    (lambda x, h: np.swapaxes(x, int(h.argmax()), 0), "`axis1` of np.swapaxes"),
    (lambda x, h: np.moveaxis(x, int(h.argmax()), 0), "`source` of np.moveaxis"),
    (lambda x, h: np.flip(x, int(h.argmax())), "`axis` of np.flip"),
    (lambda x, h: x.sum(axis=int(h.argmax())), "`axis` of x.sum()"),
]


@pytest.mark.parametrize("fn, parameter", _STATIC_PARAMETERS)
def test_a_runtime_value_for_a_static_numpy_parameter_is_named(fn, parameter):
    # (was: "an integer index taken from an array", "converting a traced array to a
    # NumPy array" or "the truth value of an array ... is needed at compile time")
    err = raises_at(fn, (np.arange(12.0).reshape(3, 4), np.array([0.0, 1.0])),
                    E.StaticValueError, line_of="lambda")
    assert err.message == ("a runtime value is given where NumPy needs a static one (an axis, "
                           "a shape, a count of repetitions): " + parameter
                           + " must be known at compile time"), err.message
    assert "traced" not in str(err) and "np.select" in err.hint


# (np.triu's k, once the example here, takes a runtime value since session 43)
def _rot90_by_runtime_k(x, h):
    return np.rot90(x, int(h.argmax()))


def _rot90_as_the_hint_says(x, h):
    k = int(h.argmax())
    return np.select([k == 0, k == 1, k == 2], [np.rot90(x, 0), np.rot90(x, 1), np.rot90(x, 2)])


def test_the_hint_for_a_runtime_static_parameter_compiles():
    x, h = np.arange(16.0).reshape(4, 4), np.array([0.0, 3.0, 1.0])
    raises_at(_rot90_by_runtime_k, (x, h), E.StaticValueError, line_of="np.rot90")
    check(_rot90_as_the_hint_says, x, h)
    assert np.array_equal(_rot90_as_the_hint_says(x, h), _rot90_by_runtime_k(x, h))


def _rot90_by(x, k):
    return np.rot90(x, k)


def test_the_recompile_warning_names_the_static_parameter():
    compiled = tpucc.compile(_rot90_by)
    x = np.arange(16.0).reshape(4, 4)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in (1, 2, 3):     # (the number changing between calls is promoted, then kept static)
            assert np.array_equal(compiled(x, k), _rot90_by(x, k))
    texts = [str(w.message) for w in caught if issubclass(w.category, tpucc.RecompileWarning)]
    assert len(texts) == 1 and "NumPy needs a static one" in texts[0] \
        and "`k` of np.rot90" in texts[0], texts
