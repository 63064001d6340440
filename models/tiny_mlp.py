"""A tiny two-layer MLP classifier in plain Python + NumPy, with two
ahead-of-time entry points:

    tpucc build models/tiny_mlp.py --out build/
    # -> build/predict.tpucc/ and build/fit.tpucc/

`predict(params, x)` gives class probabilities; `fit(params, x, labels)` runs
gradient descent until the loss drops below TOL (a runtime `while`) and
returns the new parameters, the loss and the number of steps taken.  The
input normalization MEAN is a global array: the artifact stores its
build-time value (captured.npz).
"""
from __future__ import annotations

import numpy as np

from tpucc.aot import entry

N_IN, N_HIDDEN, N_OUT = 4, 16, 3
BATCH = 8
LR = 0.5
TOL = 0.05
MAX_STEPS = 500
MEAN = np.array([0.5, -0.25, 0.0, 1.0], np.float32)


def init_params(seed=0):
    rng = np.random.default_rng(seed)
    return {"w1": (rng.standard_normal((N_IN, N_HIDDEN)) * 0.5).astype(np.float32),
            "b1": np.zeros(N_HIDDEN, np.float32),
            "w2": (rng.standard_normal((N_HIDDEN, N_OUT)) * 0.5).astype(np.float32),
            "b2": np.zeros(N_OUT, np.float32)}


def example_batch(seed=1):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, N_IN)).astype(np.float32)
    labels = rng.integers(0, N_OUT, BATCH)
    return x, labels


def softmax(logits):
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@entry(init_params, f"f32[{BATCH},{N_IN}]")
def predict(params, x):
    h = np.maximum((x - MEAN) @ params["w1"] + params["b1"], 0)
    return softmax(h @ params["w2"] + params["b2"])


@entry(init_params, f"f32[{BATCH},{N_IN}]", f"i64[{BATCH}]")
def fit(params, x, labels):
    w1, b1, w2, b2 = params["w1"], params["b1"], params["w2"], params["b2"]
    x = x - MEAN
    onehot = (labels[:, None] == np.arange(N_OUT)).astype(np.float32)
    loss = np.float32(np.inf)
    steps = 0
    while loss > TOL and steps < MAX_STEPS:          # a runtime while loop
        h = np.maximum(x @ w1 + b1, 0)
        p = softmax(h @ w2 + b2)
        loss = -(onehot * np.log(p + 1e-7)).sum() / BATCH
        d_logits = (p - onehot) / BATCH
        d_h = (d_logits @ w2.T) * (h > 0)
        w2 = w2 - LR * (h.T @ d_logits)
        b2 = b2 - LR * d_logits.sum(axis=0)
        w1 = w1 - LR * (x.T @ d_h)
        b1 = b1 - LR * d_h.sum(axis=0)
        steps += 1
    return {"w1": w1, "b1": b1, "w2": w2, "b2": b2}, loss, steps
