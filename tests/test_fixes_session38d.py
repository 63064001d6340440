"""Session 38d's fixes: a slice bound that is not an integer (x[:n / 2])
raises NumPy's TypeError at compile time, at the user's line, with the `//`
hint, static or runtime, read or assigned, of an array, a.flat or a list."""
import numpy as np
import pytest

from conftest import check, raises_at

SLICE_INDICES = "slice indices must be integers or None or have an __index__ method"


def _runtime_sum(a, k):
    return a[:k / 2].sum()   # <- here


def _runtime_window_set(a, k):
    a[k / 2:k / 2 + 2] = 0.0   # <- here
    return a


def _runtime_window(a, k):
    return a[k / 2:k / 2 + 2]   # <- here


def _static_half(a, k):
    return a[:len(a) / 2]   # <- here


def _static_step(a, k):
    return a.reshape(2, 3)[0, ::2.0]   # <- here


def _flat_set(a, k):
    a.flat[:len(a) / 2] = 1.0   # <- here
    return a


def _list_slice(a, k):
    return a[0] + sum([1.0, 2.0, 3.0][:k / 2])   # <- here


@pytest.mark.parametrize("fn", [_runtime_sum, _runtime_window_set, _runtime_window,
                                _static_half, _static_step, _flat_set, _list_slice])
def test_a_float_slice_bound_is_numpys_type_error_with_the_floor_division_hint(fn):
    a, k = np.arange(6.0), np.int64(3)
    with pytest.raises(TypeError, match=SLICE_INDICES):
        fn(a.copy(), k)                                         # eager
    err = raises_at(fn, (a, k), TypeError, SLICE_INDICES, line_of="<- here")
    assert "`//`" in str(err) and "data-dependent" not in str(err)


def test_the_hints_forms_compile():
    def floor(a, k):
        return a[:k // 2].sum() + a[:len(a) // 2].sum() + a[:int(k / 2)].sum()

    def window_set(a, k):
        a[k // 2:k // 2 + 2] = 0.0
        return a
    check(floor, np.arange(6.0), np.int64(3))
    check(window_set, np.arange(6.0), np.int64(3))


def test_the_program_catches_the_type_error():
    def halves(a):
        try:
            return a[:len(a) / 2]
        except TypeError:
            return a[:len(a) // 2]
    check(halves, np.arange(5.0))


def test_an_array_slice_bound_is_numpys_scalar_index_error():
    def bound_array(a, k):
        return a[:np.full(1, k)].sum()   # <- here

    def bool_scalar(a, k):
        return a[:np.True_]   # <- here
    a, k = np.arange(6.0), np.int64(3)
    raises_at(bound_array, (a, k), TypeError, "only integer scalar arrays", line_of="<- here")
    raises_at(bool_scalar, (a, k), TypeError, SLICE_INDICES, line_of="<- here")
