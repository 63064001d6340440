"""Session 17b's sweep of the edges of state written back by compiled code
(properties, aliasing, NumPy scalar types, big ints).  Kept out of the test
module so that pytest does not rewrite it."""
import numpy as np


class ClampedLR:
    """`self.lr = v` through a property whose setter clamps the value."""

    def __init__(self):
        self._lr, self.t = 1.0, 0

    @property
    def lr(self):
        return self._lr

    @lr.setter
    def lr(self, v):
        self._lr = max(v, 0.1)

    def step(self, x):
        self.lr = self.lr * 0.5
        self.t += 1
        return x * self.lr


class Holder:
    pass


def aliased_write(holder):
    def f(state, x):
        state["t"] += 1
        holder.d["t"] += 10
        return x + holder.d["t"] + state["t"]
    return f


def aliased_read(holder):
    def f(state, x):
        state["t"] += 1
        return x + holder.d["t"]
    return f


def aliased_array_read(holder):
    def f(state, x):
        state["w"] += x             # in place on the argument's array
        return holder.d["w"] * 2    # the same array, through the attribute
    return f


def counter(holder):
    def f(x):
        holder.t = holder.t * 3 + 1
        return x + 1
    return f


def bool_plus_bool(holder):
    def f(x):
        holder.n = holder.n + True
        return x * holder.n
    return f


def f32_scalar_decay(holder):
    def f(x):
        holder.s = holder.s * 0.5 + 0.1
        return x * holder.s
    return f
