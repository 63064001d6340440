"""Session 26's sweep: complex(real, imag) of runtime parts; the attributes
and methods of runtime Python numbers are Python's (not ndarray's); print()
of objects, dataclasses, namedtuples and OrderedDicts shows what eager
Python shows."""
import collections
import dataclasses
import reprlib

import numpy as np
import pytest

import tpucc
from conftest import check, raises_at

X = np.array([0.5, 6.37, 11.0, -2.5, np.inf])
N = np.array([0, 5, -8, 2 ** 62, -2 ** 63])


# --- complex(real, imag) ------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda x: complex(x[1], 2),
    lambda x: complex(x[1], x[2]),
    lambda x: complex(3.0, x[2]),
    lambda x: complex(real=x[1], imag=x[2]),
    lambda x: complex(imag=x[2]),
    lambda x: complex(x[1] + 1j, x[2] * 1j),     # complex parts mix in as real + imag*1j
    lambda x: complex(int(x[1]), -0.0),
    lambda x: complex(x[4], x[3]),               # an infinite part stays one (no NaN)
    lambda x: complex(x[1]),
])
def test_complex_of_runtime_parts(fn):
    check(fn, X)


def test_complex_of_a_string_and_a_runtime_part_is_pythons_type_error():
    def f(x):
        return complex("1", x[0])
    raises_at(f, (X,), match="can't take second arg if first is a string",
              line_of='complex("1"')


# --- attributes and methods of runtime Python numbers ---------------------------------

@pytest.mark.parametrize("fn", [
    lambda x, n: float(x[1]).imag,
    lambda x, n: float(x[1]).real,
    lambda x, n: float(x[1]).conjugate(),
    lambda x, n: [float(x[k]).is_integer() for k in (1, 2, 4)],
    lambda x, n: float(x[1]).__round__(1),
    lambda x, n: float(x[3]).__round__(),
    lambda x, n: (float(x[3]).__abs__(), float(x[3]).__neg__(), float(x[3]).__trunc__(),
                  float(x[3]).__floor__(), float(x[3]).__ceil__()),
    lambda x, n: [int(n[k]).bit_length() for k in range(5)],
    lambda x, n: [int(n[k]).bit_count() for k in range(4)],
    lambda x, n: (int(n[2]).real, int(n[2]).imag, int(n[2]).conjugate(),
                  int(n[2]).numerator, int(n[2]).denominator, int(n[2]).as_integer_ratio()),
    lambda x, n: (bool(n[1]).real, bool(n[1]).conjugate()),      # ints, as Python's
    lambda x, n: (int(n[1]).__invert__(), int(n[1]).__index__()),
    lambda x, n: (complex(x[1], x[3]).real, complex(x[1], x[3]).imag,
                  complex(x[1], x[3]).conjugate()),
    lambda x, n: x[1].item().imag,
    lambda x, n: hasattr(float(x[1]), "shape"),
    lambda x, n: (x[1].imag, x[1].conjugate()),  # a NumPy scalar's stay NumPy's
])
def test_runtime_python_number_methods_are_pythons(fn):
    check(fn, X, N)


def test_a_python_float_has_no_array_attributes():
    def f(x):
        return float(x[1]).shape
    raises_at(f, (X,), match="'float' object has no attribute 'shape'", line_of=".shape")


def test_a_runtime_float_method_tpucc_does_not_compute_is_refused_by_name():
    def f(x):
        return float(x[1]).hex()
    raises_at(f, (X,), tpucc.UnsupportedError, match=r"`\.hex\(\)` of a Python float",
              line_of=".hex()")


def test_assigning_a_python_numbers_part_is_pythons_attribute_error():
    def f(x):
        v = float(x[1])
        v.real = 2.0
        return v
    raises_at(f, (X,), match="attribute 'real' of 'float' objects is not writable",
              line_of="v.real =")


# --- print() of objects ---------------------------------------------------------------

class Shown:
    def __init__(self, a):
        self.a = a

    def __repr__(self):
        return f"Shown({self.a})"


class Described:
    def __init__(self, a):
        self.a = a

    def __str__(self):
        return f"<{self.a:.2f}>"


class Guarded:
    def __init__(self, a):
        self.a = a

    @reprlib.recursive_repr()
    def __repr__(self):
        return f"Guarded({self.a!r})"


@dataclasses.dataclass
class Record:
    w: object
    k: int = 2


Pair = collections.namedtuple("Pair", "a b")


def _prints_as_eager(capfd, fn, *args):
    fn(*args)
    expected = capfd.readouterr().out
    tpucc.compile(fn)(*args)
    assert capfd.readouterr().out == expected


@pytest.mark.parametrize("fn", [
    lambda x: print(Shown(x), Shown(2)),
    lambda x: print([Shown(x), x], (Shown(x.sum()),), {"k": Shown(x.sum())}),
    lambda x: print(Described(x.sum()), Described(1.5)),
    lambda x: print(Record(x.sum()), Record(3), [Record(x.sum())]),
    lambda x: print(f"{Record(x.sum())}", f"[{[Shown(x.sum())]}]"),
    lambda x: print(Guarded(x.sum()), Guarded(1)),
    lambda x: print(str(Shown(x))),
], ids=["repr", "in-containers", "str", "dataclass", "fstring", "recursive-repr", "str()"])
def test_print_of_an_object_formats_its_runtime_values(capfd, fn):
    _prints_as_eager(capfd, fn, np.arange(3.0))


def test_repr_of_a_dataclass_compiles():
    def f(x):
        return repr(Record(3)), f"{Record(4)}", str(Record(5)), f"{Record(6)!r}"
    check(f, X)


@pytest.mark.parametrize("fn", [
    lambda x: print(Pair(x.sum(), [x.sum()]), Pair(1, 2)),
    lambda x: print(collections.OrderedDict(), collections.OrderedDict(a=x.sum(), b=2)),
    lambda x: print(collections.defaultdict(list, a=x.sum())),
], ids=["namedtuple", "OrderedDict", "defaultdict"])
def test_print_of_a_container_subclass_is_its_own_repr(capfd, fn):
    _prints_as_eager(capfd, fn, np.arange(3.0))


def test_str_of_a_namedtuple_compiles():
    def f(x):
        return str(Pair(2.0, 1)), repr(Pair(1, "b")), f"{Pair(2, 3)}", "%s" % (Pair(1, 2),)
    check(f, X)
