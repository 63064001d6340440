"""An Elman RNN over sequences whose length is a runtime value, in plain
Python + NumPy.

- `forward(xs, length)` runs `for t in range(length)`: with `length` a
  runtime value, tpucc compiles it to one While, and one executable serves
  every length up to the padded size.
- `generate(x0, max_len, stop)` feeds the output back as input until it
  fades below `stop`: a `while` on array values, writing each step into a
  preallocated array in place.
- `loss` / `train_step` are differentiable.  XLA's While has no reverse mode,
  so the gradient goes through `forward_masked`: a loop over all the padded
  steps (static trip count: a scan) that keeps the state unchanged past
  `length`.  This is the recipe for differentiating a runtime-length loop.

    rnn = RNN(n_in=4, n_hidden=32, n_out=4, seed=0)
    run = tpucc.compile(rnn.forward, runtime_args=("length",))
    y = run(xs, 17)                  # xs: (T, batch, n_in); any length <= T
"""
from __future__ import annotations

import numpy as np

import tpucc


class RNN:
    def __init__(self, n_in, n_hidden, n_out, seed=0, dtype=np.float32):
        rng = np.random.default_rng(seed)
        scale = 1.0 / np.sqrt(n_hidden)
        self.w_xh = rng.uniform(-scale, scale, (n_in, n_hidden)).astype(dtype)
        self.w_hh = rng.uniform(-scale, scale, (n_hidden, n_hidden)).astype(dtype)
        self.b_h = np.zeros(n_hidden, dtype)
        self.w_hy = rng.uniform(-scale, scale, (n_hidden, n_out)).astype(dtype)
        self.b_y = np.zeros(n_out, dtype)

    def cell(self, x, h):
        """One step: the new hidden state from input x (N, n_in) and state h."""
        return np.tanh(x @ self.w_xh + h @ self.w_hh + self.b_h)

    def initial_state(self, batch, dtype):
        return np.zeros((batch, self.w_hh.shape[0]), dtype)

    def forward(self, xs, length):
        """Output after the first `length` steps of xs (T, N, n_in)."""
        h = self.initial_state(xs.shape[1], xs.dtype)
        for t in range(length):
            h = self.cell(xs[t], h)
        return h @ self.w_hy + self.b_y

    def forward_masked(self, xs, length):
        """forward(xs, length) as a loop over all T steps (differentiable)."""
        h = self.initial_state(xs.shape[1], xs.dtype)
        for t in range(xs.shape[0]):
            h = np.where(t < length, self.cell(xs[t], h), h)
        return h @ self.w_hy + self.b_y

    def loss(self, xs, length, targets):
        return np.mean((self.forward_masked(xs, length) - targets) ** 2)

    def generate(self, x0, max_len, stop):
        """Feeds each output back as the next input (n_out == n_in) until its
        largest entry falls below `stop`, at most max_len steps; returns the
        outputs (max_len, N, n_out), zero after the last step, and the count."""
        outputs = np.zeros((max_len,) + x0.shape, x0.dtype)
        h = self.initial_state(x0.shape[0], x0.dtype)
        x, steps = x0, 0
        while steps < max_len and np.abs(x).max() > stop:
            h = self.cell(x, h)
            x = h @ self.w_hy + self.b_y
            outputs[steps] = x
            steps += 1
        return outputs, steps


def train_step(model, xs, length, targets, lr):
    """Forward, backward through time and an SGD update in place."""
    loss, grads = tpucc.value_and_grad(RNN.loss)(model, xs, length, targets)
    for name in ("w_xh", "w_hh", "b_h", "w_hy", "b_y"):
        param = getattr(model, name)
        param -= lr * getattr(grads, name)
    return loss
