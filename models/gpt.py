"""A small GPT (decoder-only transformer) trained with Adam, in plain Python +
NumPy.  The parameters are a nested dict / list of NumPy arrays, as a JAX
or PyTorch user would hold them; `adam_step` is forward + backward
(`tpucc.value_and_grad` over the whole tree) + global-norm gradient clipping
+ an Adam update of every parameter and of the optimizer state, in place.
Compiled by tpucc it is ONE executable; eagerly it is ordinary NumPy.

    params = init_params(GPTConfig(), seed=0)
    state = adam_state(params)
    step = tpucc.compile(adam_step)
    loss, grad_norm = step(params, state, tokens, targets, lr=3e-4)

It exercises what VGG19 does not: integer gathers (token embeddings), a
causal mask, batched attention matmuls over reshaped/transposed heads, layer
norm, GELU, gradients of nested containers, and a runtime step counter.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import tpucc
from tpucc import nn


@dataclass(frozen=True)
class GPTConfig:
    vocab: int = 64
    context: int = 16
    width: int = 32
    heads: int = 4
    layers: int = 2


def init_params(cfg: GPTConfig, seed=0, dtype=np.float32) -> dict:
    """Token and position embeddings and one dict per transformer block."""
    rng = np.random.default_rng(seed)

    def normal(*shape, std=0.02):
        return (rng.standard_normal(shape) * std).astype(dtype)
    d = cfg.width
    blocks = [{"ln1_g": np.ones(d, dtype), "ln1_b": np.zeros(d, dtype),
               "qkv": normal(d, 3 * d), "proj": normal(d, d),
               "ln2_g": np.ones(d, dtype), "ln2_b": np.zeros(d, dtype),
               "up": normal(d, 4 * d), "down": normal(4 * d, d)}
              for _ in range(cfg.layers)]
    return {"tokens": normal(cfg.vocab, d), "positions": normal(cfg.context, d),
            "blocks": blocks}


def layer_norm(x, gain, bias, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gain + bias


def gelu(x):
    """GELU, tanh approximation (as GPT-2)."""
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def attention(block, x, mask, heads):
    """Causal multi-head self-attention of x (batch, time, width)."""
    batch, time, width = x.shape
    size = width // heads
    qkv = layer_norm(x, block["ln1_g"], block["ln1_b"]) @ block["qkv"]
    q, k, v = [qkv[..., i * width:(i + 1) * width]
               .reshape(batch, time, heads, size).transpose(0, 2, 1, 3) for i in range(3)]
    scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size))
    weights = nn.softmax(np.where(mask, scores, np.float32(-1e9)), axis=-1)
    out = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, time, width)
    return out @ block["proj"]


def logits(params, tokens, heads):
    """(batch, time) int tokens -> (batch, time, vocab) logits; the output
    layer shares the token embedding."""
    time = tokens.shape[1]
    x = params["tokens"][tokens] + params["positions"][:time]
    mask = np.tril(np.ones((time, time), dtype=bool))
    for block in params["blocks"]:
        x = x + attention(block, x, mask, heads)
        x = x + gelu(layer_norm(x, block["ln2_g"], block["ln2_b"]) @ block["up"]) @ block["down"]
    return x @ params["tokens"].T


def loss(params, tokens, targets, heads):
    """Mean next-token cross-entropy."""
    out = logits(params, tokens, heads)
    return nn.cross_entropy(out.reshape(-1, out.shape[-1]), targets.reshape(-1))


def leaves(tree) -> list:
    """The arrays of a nested dict / list, in a fixed order."""
    if isinstance(tree, dict):
        return [leaf for key in tree for leaf in leaves(tree[key])]
    if isinstance(tree, list):
        return [leaf for item in tree for leaf in leaves(item)]
    return [tree]


def adam_state(params) -> dict:
    zeros = [np.zeros_like(p) for p in leaves(params)]
    return {"m": zeros, "v": [z.copy() for z in zeros], "step": np.zeros((), np.int64)}


def adam_step(params, state, tokens, targets, lr=3e-4, heads=4, clip=1.0,
              beta1=0.9, beta2=0.999, eps=1e-8):
    """One training step, updating `params` and `state` in place; returns
    (loss, gradient norm before clipping)."""
    value, grads = tpucc.value_and_grad(loss)(params, tokens, targets, heads)
    grads = leaves(grads)
    norm = np.sqrt(sum((g * g).sum() for g in grads))
    scale = np.minimum(np.float32(1), np.float32(clip) / (norm + np.float32(1e-6)))
    state["step"] += 1
    t = state["step"]
    for p, g, m, v in zip(leaves(params), grads, state["m"], state["v"]):
        g = g * scale
        m *= beta1
        m += (1 - beta1) * g
        v *= beta2
        v += (1 - beta2) * g * g
        p -= lr * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps)
    return value, norm


def copy_task(cfg: GPTConfig, batch, seed=0):
    """A batch of random sequences whose second half repeats the first (the
    `__main__` demo trains on this one batch, which the model memorizes)."""
    rng = np.random.default_rng(seed)
    half = rng.integers(0, cfg.vocab, (batch, cfg.context // 2 + 1))
    seq = np.concatenate([half, half], axis=1)[:, :cfg.context + 1]
    return seq[:, :-1], seq[:, 1:]


if __name__ == "__main__":
    import time
    cfg = GPTConfig()
    params, tokens_targets = init_params(cfg), copy_task(cfg, batch=16)
    state = adam_state(params)
    step = tpucc.compile(adam_step)
    t0 = time.perf_counter()
    for i in range(201):
        value, norm = step(params, state, *tokens_targets, 3e-3, cfg.heads)
        if i % 50 == 0:
            print(f"step {i:4d}: loss {float(value):.3f}, grad norm {float(norm):.3f}")
    print(f"{time.perf_counter() - t0:.2f} s (one executable per step, compile included)")
