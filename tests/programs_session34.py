"""Programs for tests/test_sweep_session34.py whose annotations must be
objects, not the strings `from __future__ import annotations` makes them."""
import functools


def dispatched_inside(x):
    @functools.singledispatch
    def describe(v):
        return "generic"

    @describe.register
    def _(v: float):
        return v * 2
    return describe(float(x[0])), describe("text")
