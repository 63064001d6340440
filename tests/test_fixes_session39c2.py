"""Session 39c2's fixes, each checked against eager NumPy."""
import numpy as np
import pytest

import tpucc
from conftest import check


# --- an argument's item that held an array, rebound to a number (infer._argument_item_writebacks)

def _rebind_to_constant(d):
    d["y"] = 3.5


def _rebind_to_numpy_constant(d):
    d["y"] = np.float64(2.5)


def _rebind_list_item(xs):
    xs[0] = 2.0


@pytest.mark.parametrize("fn, arg", [(_rebind_to_constant, {"y": np.ones(2)}),
                                     (_rebind_to_numpy_constant, {"y": np.ones(2)}),
                                     (_rebind_list_item, [np.ones(2)])])
def test_an_array_item_rebound_to_a_constant_number_is_written_back(fn, arg):
    # (was silently not written back: the caller's container kept the array)
    check(fn, arg)


def _to_float(d):
    d["y"] = float(d["y"][0])


def _to_int(d):
    d["y"] = int(d["y"][0])


def _to_bool(d):
    d["y"] = bool(d["y"][0])


def _to_complex(d):
    d["y"] = complex(d["y"][0])


def _chosen(d):
    d["y"] = 2.0 if d["y"][0] > 0 else 3.0


@pytest.mark.parametrize("fn", [_to_float, _to_int, _to_bool, _to_complex, _chosen])
def test_an_array_item_rebound_to_a_runtime_python_number_is_one(fn):
    # (was written back as a 0-d array, or np.float64 through a runtime choice)
    for start in (np.ones(2), -np.ones(2)):
        eager, compiled = {"y": start.copy()}, {"y": start.copy()}
        fn(eager)
        tpucc.compile(fn)(compiled)
        # (exact types: check's comparison takes an np.float64 for a float)
        assert type(compiled["y"]) is type(eager["y"]) and compiled["y"] == eager["y"]
