"""Session 47, sweep F: Python's and NumPy's operator protocols where a
number meets a user object.

- A runtime Python number (`float(x[0])`, `int(n)`) or a NumPy scalar
  (`x[0]`, `x.min() - 1`) on the left of an operator with a user object was
  refused (E210 "used as an array operand"): Python's int/float methods
  return NotImplemented for an object, and a NumPy scalar computes in an
  object array, which applies Python's operator to its .item(): either way
  the object's reflected method runs, given a Python number.
- `ndarray += obj` whose class sets `__array_ufunc__ = None` fell back to
  obj.__radd__ and rebound the array: NumPy's in-place (and reflected)
  operators never defer, they raise TypeError.
"""
import numpy as np
import pytest

import tpucc
from tpucc import errors as E
from conftest import raises_at, same, same_with_objects


class Vec:
    def __init__(self, d):
        self.d = d

    def __rmul__(self, s):
        return Vec(s * self.d)

    def __radd__(self, s):
        return Vec(self.d + s)

    def __rsub__(self, s):
        return Vec(s - self.d)

    def __gt__(self, o):
        return bool((self.d > o).all())

    def __le__(self, o):
        return bool((self.d <= o).all())


class Tagged:
    """Reports the Python kind of what its reflected method was given."""
    def __rmul__(self, s):
        return isinstance(s, float), isinstance(s, np.generic), s * 2

    def __radd__(self, s):
        return isinstance(s, int), isinstance(s, np.generic), s + 1


class Plain:
    pass


# --- bug_02: runtime numbers on the left of a user object ---------------------

def test_runtime_python_float_times_object_calls_its_rmul():
    def f(x):
        s = float(x[0])
        return (s * Vec(x)).d, (s + Vec(x)).d, (s - Vec(x)).d
    same(f, np.array([2.0, 1.0]))
    same(f, np.array([2.0, 1.0], np.float32))     # a Python float keeps float32 data float32


def test_runtime_python_int_and_bool_on_the_left():
    def f(x):
        n = int(x[0])
        b = bool(x[1])
        return (n * Vec(x)).d, (n + Vec(x)).d, (b * Vec(x)).d
    same(f, np.array([3, 1, 2]))
    same(f, np.array([3, 0, 2], np.int8))


def test_numpy_scalar_times_object_calls_rmul_with_its_python_item():
    def f(x):
        return (x[0] * Vec(x)).d, (x.sum() + Vec(x)).d, (x.max() - Vec(x)).d
    same(f, np.array([2.0, 1.0]))
    same(f, np.array([2.0, 1.0], np.float32))     # x[0] is np.float32; __rmul__ gets a float
    same(f, np.array([4, 1], np.int16))


def test_what_the_reflected_method_is_given():
    def f(x):
        return Tagged().__class__, x[0] * Tagged(), float(x[1]) * Tagged(), \
            x.astype(np.int32)[0] + Tagged(), int(x[0]) + Tagged()
    out = same_with_objects(f, np.array([2.0, 3.0]))
    assert out[1][:2] == (True, False) and out[3][:2] == (True, False)


def test_static_numpy_scalar_gives_the_object_a_python_float():
    def f(x):
        return (np.float64(2.0) * Vec(x)).d, (np.int64(3) + Vec(x)).d
    same(f, np.array([2.0, 1.0], np.float32))     # eager: float32 (np.float64's .item())


def test_runtime_scalars_compared_with_an_object_call_its_reflected_comparison():
    def f(x):
        return x.min() - 1 < Vec(x), float(x[1]) >= Vec(x), x[0] < Vec(x)
    same(f, np.array([2.0, 1.0]))
    same(f, np.array([5, 3], np.int32))


def test_runtime_number_equal_to_an_object_without_eq_is_identity():
    def f(x):
        return float(x[0]) == Plain(), x[0] != Plain()
    same(f, np.array([2.0, 1.0]))


def test_numpy_scalar_inplace_operator_rebinds_to_the_reflected_result():
    def f(x):
        s = x[0]
        s *= Vec(x)
        t = float(x[1])
        t += Vec(x)
        return s.d, t.d
    same(f, np.array([2.0, 1.0]))


def test_object_with_array_priority_is_given_the_numpy_scalar():
    class Prioritized:
        __array_priority__ = 10

        def __rmul__(self, s):
            return isinstance(s, np.float64), s * 3
    def f(x):
        return x[0] * Prioritized()
    same(f, np.array([2.0, 1.0]))


def test_numpy_scalar_converts_an_object_with_array():
    class AsArray:
        def __init__(self, d):
            self.d = d

        def __array__(self, dtype=None, copy=None):
            return self.d
    def f(x):
        return x[0] * AsArray(x)
    same(f, np.array([2.0, 1.0]))


def test_runtime_number_with_an_object_lacking_the_method_is_pythons_type_error():
    def f(x):
        s = float(x[0])
        return s * Plain()
    raises_at(f, (np.array([2.0]),), E.UserCodeError,
              r"unsupported operand type\(s\) for \*: 'float' and 'Plain'", line_of="s * Plain()",
              cache=False)

    def g(x):
        return x[0] < Plain()
    raises_at(g, (np.array([2.0]),), E.UserCodeError,
              r"'<' not supported between instances of 'float' and 'Plain'",
              line_of="x[0] < Plain()", cache=False)


# --- bug_12: __array_ufunc__ = None on the right of an ndarray operator --------

class NoUfuncs:
    __array_ufunc__ = None

    def __init__(self, d):
        self.d = d

    def __radd__(self, o):
        return NoUfuncs(o + self.d)

    def __add__(self, o):
        return NotImplemented

    def __gt__(self, o):
        return "gt"


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_inplace_array_operator_with_an_object_opting_out_of_ufuncs_raises(dtype):
    def f(x):
        x += NoUfuncs(x)
        return x
    raises_at(f, (np.arange(3, dtype=dtype),), E.UserCodeError,
              r"TypeError: operand 'NoUfuncs' does not support ufuncs \(__array_ufunc__=None\)",
              line_of="x += NoUfuncs(x)", cache=False)

    def g(x):
        x *= NoUfuncs(x)            # (no __rmul__ either: the same TypeError)
        return x
    raises_at(g, (np.arange(3, dtype=dtype),), E.UserCodeError,
              r"operand 'NoUfuncs' does not support ufuncs", line_of="x *= NoUfuncs(x)",
              cache=False)


def test_reflected_array_operator_with_an_object_opting_out_of_ufuncs_raises():
    def f(x):
        return NoUfuncs(x) + x      # NoUfuncs.__add__ declines; ndarray.__radd__ raises
    raises_at(f, (np.arange(3.0),), E.UserCodeError,
              r"operand 'NoUfuncs' does not support ufuncs", line_of="NoUfuncs(x) + x",
              cache=False)


def test_forward_array_operators_still_defer_to_the_object():
    def f(x):
        return (x + NoUfuncs(x)).d, x < NoUfuncs(x)
    same(f, np.arange(3.0))


def test_numpy_scalar_inplace_operator_defers_to_an_object_opting_out_of_ufuncs():
    class Kind:
        __array_ufunc__ = None

        def __radd__(self, o):
            return isinstance(o, np.float64), o + 1
    def f(x):
        s = x[0]
        s += Kind()                 # a NumPy scalar has no __iadd__: s + Kind() defers
        return s
    same(f, np.arange(3.0))


# --- bug_07: a subclass of float/int/complex made from a runtime number ---------
# Its instance holds the number itself, which compiled code would need while
# compiling: refused naming the construction (it said "float() of an array",
# which the user never wrote), with the attribute-holding class to write instead.

class Meters(float):
    def to_km(self):
        return float(self) / 1000.0


class Count(int):
    pass


class Tagged2(complex):
    pass


class Unit(float):
    def __new__(cls, value, unit="m"):
        made = super().__new__(cls, value)
        made.unit = unit
        return made


def _from_python_float(x):
    return Meters(float(x[0])).to_km()


def _from_numpy_scalar(x):
    return Meters(x[0])


def _int_subclass(x):
    return Count(int(x[0])) + 1


def _complex_subclass(x):
    return Tagged2(x[0])


def _with_a_python_new(x):
    return Unit(x.sum(), unit="km")


@pytest.mark.parametrize("f, name, base", [
    (_from_python_float, "Meters", "float"), (_from_numpy_scalar, "Meters", "float"),
    (_int_subclass, "Count", "int"), (_complex_subclass, "Tagged2", "complex"),
    (_with_a_python_new, "Unit", "float"),
])
def test_number_subclass_of_a_runtime_value_is_refused_naming_the_class(f, name, base):
    err = raises_at(f, (np.array([1.5]),), E.StaticValueError,
                    rf"{name}\(\) of a runtime value: an instance of a subclass of {base}",
                    line_of=f"{name}(", cache=False)
    assert "self.value = value" in err.hint


def test_number_subclass_of_a_static_value_and_the_suggested_class_compile():
    class MetersHeld:
        def __init__(self, value):
            self.value = value

        def __float__(self):
            return self.value

        def to_km(self):
            return float(self) / 1000.0

    def f(x):
        return Meters(2.5).to_km() * x, MetersHeld(float(x[0])).to_km(), Count(3) + 1

    same(f, np.array([1.5, 2.0]))


def test_a_number_subclass_passed_in_keeps_working():
    def f(x, m):
        return m.to_km() * x, isinstance(m, float)
    same(f, np.array([1.5, 2.0]), Meters(1500.0))
