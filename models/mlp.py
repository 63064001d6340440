"""A small MLP trained until its loss falls below a threshold, in plain Python
+ NumPy.  `train_until` is a `while` on a runtime value around a whole
training step (forward, `tpucc.value_and_grad`, SGD update in place):
compiled by tpucc it is ONE executable whose HLO is a While containing the
forward and backward passes; eagerly it is an ordinary Python loop.

    model = MLP([2, 16, 16, 1], seed=0)
    x, y = two_moons(256)
    step = tpucc.compile(train_until)
    loss, steps = step(model, x, y, threshold=0.05, lr=0.1, max_steps=5000)

`numpy_loss_and_grads` is the same gradient by hand-written backpropagation
in NumPy: the reference the tests compare tpucc's AD with.
"""
from __future__ import annotations

import numpy as np

import tpucc


class Dense:
    """y = x @ weight + bias, weight stored (in, out), Glorot-initialized."""

    def __init__(self, n_in, n_out, rng, dtype=np.float32):
        limit = np.sqrt(6.0 / (n_in + n_out))
        self.weight = rng.uniform(-limit, limit, (n_in, n_out)).astype(dtype)
        self.bias = np.zeros(n_out, dtype)

    def __call__(self, x):
        return x @ self.weight + self.bias


class MLP:
    """Dense layers with tanh between them; the last layer is linear."""

    def __init__(self, sizes, seed=0, dtype=np.float32):
        rng = np.random.default_rng(seed)
        self.layers = [Dense(a, b, rng, dtype) for a, b in zip(sizes[:-1], sizes[1:])]

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = np.tanh(layer(x))
        return self.layers[-1](x)

    def loss(self, x, y):
        """Mean squared error against targets y of shape (N, outputs)."""
        return np.mean((self.forward(x) - y) ** 2)


def sgd_step(model, x, y, lr):
    """One step of gradient descent, updating the weights in place."""
    loss, grads = tpucc.value_and_grad(MLP.loss)(model, x, y)
    for layer, g in zip(model.layers, grads.layers):
        layer.weight -= lr * g.weight
        layer.bias -= lr * g.bias
    return loss


def train_until(model, x, y, threshold, lr, max_steps):
    """Trains until the loss is below `threshold` (a runtime condition) or
    `max_steps` steps have run; returns (last loss, steps taken)."""
    loss = model.loss(x, y)
    steps = 0
    while loss > threshold and steps < max_steps:
        loss = sgd_step(model, x, y, lr)
        steps += 1
    return loss, steps


def two_moons(n, seed=0, dtype=np.float32):
    """A classic 2-D toy problem: two interleaved half circles, labels +-1."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    upper = np.arange(n) % 2 == 0
    x = np.where(upper[:, None], np.stack([np.cos(t), np.sin(t)], 1),
                 np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1))
    x = x + rng.normal(0, 0.05, x.shape)
    y = np.where(upper, 1.0, -1.0)[:, None]
    return x.astype(dtype), y.astype(dtype)


def numpy_loss_and_grads(model, x, y):
    """(loss, [(d weight, d bias) per layer]) by backpropagation in NumPy."""
    activations, h = [x], x
    for layer in model.layers[:-1]:
        h = np.tanh(layer(h))
        activations.append(h)
    out = model.layers[-1](h)
    loss = np.mean((out - y) ** 2)
    g = 2 * (out - y) / out.size
    grads = []
    for i in range(len(model.layers) - 1, -1, -1):
        layer, a = model.layers[i], activations[i]
        grads.append((a.T @ g, g.sum(0)))
        if i > 0:
            g = (g @ layer.weight.T) * (1 - a ** 2)      # through tanh
    return loss, grads[::-1]


if __name__ == "__main__":
    import time
    x, y = two_moons(256)
    model = MLP([2, 32, 32, 1])
    train = tpucc.compile(train_until)
    t0 = time.perf_counter()
    loss, steps = train(model, x, y, 0.05, 0.2, 20_000)
    print(f"tpucc: loss {loss:.4f} after {steps} steps in {time.perf_counter() - t0:.2f} s "
          "(one executable, compile included)")
