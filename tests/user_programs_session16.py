"""Session 16's sweep: small programs written the way a NumPy user writes
them, each compiled whole and compared with eager NumPy by
test_user_programs_session16.py. Kept out of the test module because some
hold `assert`s, which pytest would rewrite into code of its own."""
import collections
import dataclasses
import functools
import itertools
import math
import operator

import numpy as np

import tpucc


# --- clustering and regression ------------------------------------------------------------

def kmeans(x, centers, tol=1e-6, max_iter=50):
    """Lloyd's algorithm until the centers stop moving (a runtime while)."""
    k = centers.shape[0]
    shift = np.inf
    it = 0
    while shift > tol and it < max_iter:
        d = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=-1)
        labels = np.argmin(d, axis=1)
        new = centers.copy()
        for j in range(k):
            members = labels == j
            if members.any():
                new[j] = x[members].mean(axis=0)
        shift = np.abs(new - centers).max()
        centers = new
        it += 1
    return centers, labels, it


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _logistic_loss(w, x, y):
    p = _sigmoid(x @ w)
    eps = 1e-12
    return -np.mean(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))


def logistic_regression(x, y, lr=0.5, tol=1e-4, max_steps=200):
    """Gradient descent with tpucc.grad, stopped early when the gradient is small."""
    w = np.zeros(x.shape[1], dtype=x.dtype)
    grad = tpucc.grad(_logistic_loss)
    for step in range(max_steps):
        g = grad(w, x, y)
        if np.linalg.norm(g) < tol:
            break
        w = w - lr * g
    return w, _logistic_loss(w, x, y), step


def adam(params, grads_fn, state, steps, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    """Adam with its moments in a dict, over a runtime step count: the
    Python int `state["t"]` and the rebound moments are written back into
    the caller's dict (refused before session 17; see adam_in_place)."""
    for _ in range(steps):
        grads = grads_fn(params)
        state["t"] += 1
        t = state["t"]
        for name in params:
            g = grads[name]
            state["m"][name] = b1 * state["m"][name] + (1 - b1) * g
            state["v"][name] = b2 * state["v"][name] + (1 - b2) * g * g
            mhat = state["m"][name] / (1 - b1 ** t)
            vhat = state["v"][name] / (1 - b2 ** t)
            params[name] -= lr * mhat / (np.sqrt(vhat) + eps)
    return params["w"].sum() + params["b"].sum()


def quadratic_grads(target):
    def grads_fn(params):
        return {"w": 2 * (params["w"] - target), "b": 2 * params["b"]}
    return grads_fn


# --- neural-network pieces ------------------------------------------------------------------

def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def masked_attention(q, k, v, lengths):
    """Causal attention with padding: masked scores are -inf before the softmax."""
    t, d = q.shape[-2], q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(d)
    causal = np.tril(np.ones((t, t), dtype=bool))
    valid = np.arange(t)[None, :] < lengths[:, None]        # (batch, t)
    mask = causal[None] & valid[:, None, :]
    scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return layer_norm(w @ v, np.ones(d, q.dtype), np.zeros(d, q.dtype))


def gru_sequence(xs, n, h, wz, wr, wh):
    """A GRU cell unrolled over the first `n` steps (n a runtime 0-d array)."""
    for t in range(n):
        xh = np.concatenate([xs[t], h])
        z = _sigmoid(wz @ xh)
        r = _sigmoid(wr @ xh)
        cand = np.tanh(wh @ np.concatenate([xs[t], r * h]))
        h = (1 - z) * h + z * cand
    return h


def lstm_last(xs, n, params):
    """An LSTM over a runtime length with (h, c) state in a tuple."""
    w, b = params
    hidden = b.shape[0] // 4
    state = (np.zeros(hidden, xs.dtype), np.zeros(hidden, xs.dtype))
    t = 0
    while t < n:
        h, c = state
        gates = w @ np.concatenate((xs[t], h)) + b
        i, f, g, o = np.split(gates, 4)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        state = (h, c)
        t += 1
    return state


class Dense:
    def __init__(self, w, b, act=None):
        self.w, self.b, self.act = w, b, act

    def __call__(self, x):
        y = x @ self.w + self.b
        return self.act(y) if self.act is not None else y


class Sequential:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def num_params(self):
        return sum(l.w.size + l.b.size for l in self.layers)


def mlp_predict(model, x):
    logits = model(x)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    return probs.argmax(axis=1), probs, model.num_params()


def cross_entropy(logits, labels):
    """Per-example loss by fancy indexing `logp[np.arange(n), labels]`."""
    n = logits.shape[0]
    m = logits.max(axis=1, keepdims=True)
    logp = logits - m - np.log(np.exp(logits - m).sum(axis=1, keepdims=True))
    loss = -logp[np.arange(n), labels]
    acc = (logits.argmax(axis=1) == labels).mean()
    return loss.mean(), acc


# --- simulations and numerics -------------------------------------------------------------------

def mandelbrot(c, max_iter):
    """Escape counts: iterate only while some point is still bounded."""
    z = np.zeros_like(c)
    counts = np.zeros(c.shape, dtype=np.int32)
    alive = np.ones(c.shape, dtype=bool)
    i = 0
    while alive.any() and i < max_iter:
        z = np.where(alive, z * z + c, z)
        escaped = alive & (np.abs(z) > 2.0)
        counts[alive] += 1
        alive &= ~escaped
        i += 1
    return counts, i


def game_of_life(board, steps):
    for _ in range(steps):
        neighbours = sum(np.roll(np.roll(board, dy, axis=0), dx, axis=1)
                         for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                         if (dy, dx) != (0, 0))
        board = ((neighbours == 3) | (board & (neighbours == 2))).astype(board.dtype)
    return board, board.sum()


def nbody_leapfrog(pos, vel, mass, dt, steps, soft=0.1):
    def accel(p):
        diff = p[None, :, :] - p[:, None, :]
        dist3 = (np.sum(diff ** 2, axis=-1) + soft ** 2) ** 1.5
        return np.einsum("ijk,ij,j->ik", diff, 1.0 / dist3, mass)

    a = accel(pos)
    for _ in range(steps):
        vel += 0.5 * dt * a
        pos += dt * vel
        a = accel(pos)
        vel += 0.5 * dt * a
    energy = 0.5 * np.sum(mass[:, None] * vel ** 2)
    return energy


def newton_sqrt(a, tol=1e-12):
    x = np.maximum(a, 1.0)
    steps = 0
    while np.max(np.abs(x * x - a)) > tol * np.max(a):
        x = 0.5 * (x + a / x)
        steps += 1
    return x, steps


def bisect(f, lo, hi, tol=1e-10):
    """Root of f on [lo, hi]; f a lambda closing over an array."""
    flo = f(lo)
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        fm = f(mid)
        if np.sign(fm) == np.sign(flo):
            lo, flo = mid, fm
        else:
            hi = mid
    return 0.5 * (lo + hi)


def jacobi_heat(u, tol, max_iter=500):
    """Laplace's equation by Jacobi sweeps, the boundary held fixed."""
    err = tol + 1
    n = 0
    while err > tol and n < max_iter:
        new = u.copy()
        new[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        err = np.abs(new - u).max()
        u = new
        n += 1
    return u, n


def running_stats(batches):
    """Welford's running mean/variance with in-place updates."""
    count = 0
    mean = np.zeros(batches[0].shape[1])
    m2 = np.zeros_like(mean)
    for b in batches:
        for row in b:
            count += 1
            delta = row - mean
            mean += delta / count
            m2 += delta * (row - mean)
    return mean, m2 / (count - 1), count


def power_iteration(a, tol=1e-9, max_iter=1000):
    v = np.ones(a.shape[0]) / math.sqrt(a.shape[0])
    lam = 0.0
    for i in range(max_iter):
        w = a @ v
        new_lam = v @ w
        v = w / np.linalg.norm(w)
        if abs(new_lam - lam) < tol:
            break
        lam = new_lam
    return new_lam, v, i


def conjugate_gradient(a, b, tol=1e-10):
    x = np.zeros_like(b)
    r = b - a @ x
    p = r.copy()
    rs = r @ r
    k = 0
    while np.sqrt(rs) > tol and k < len(b):
        ap = a @ p
        alpha = rs / (p @ ap)
        x += alpha * p
        r -= alpha * ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        k += 1
    return x, k, np.allclose(a @ x, b, atol=1e-8)


def rk4(f, y0, t0, t1, n):
    h = (t1 - t0) / n
    y, t = y0, t0
    for _ in range(n):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return y


# --- data handling ------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Config:
    clip: float = 3.0
    scale: float = 2.0
    bins: int = 4
    names: tuple = ("a", "b")


def standardize_and_bucket(x, cfg=Config()):
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    z = np.clip(z * cfg.scale, -cfg.clip, cfg.clip)
    edges = np.linspace(-cfg.clip, cfg.clip, cfg.bins + 1)
    buckets = np.searchsorted(edges[1:-1], z)
    return {name: buckets[:, i] for i, name in enumerate(cfg.names)}, z


def top_k_rank(scores, k=3):
    order = np.argsort(-scores, axis=1)[:, :k]
    top = np.take_along_axis(scores, order, axis=1)
    ranks = np.empty_like(order)
    ranks[:, :] = np.arange(1, k + 1)
    cum = np.cumsum(np.sort(scores, axis=1)[:, ::-1], axis=1)
    return order, top, ranks, cum[:, k - 1]


def embed_and_pool(table, ids, mask):
    """Embedding lookup (fancy indexing) then masked mean pooling."""
    e = table[ids]                              # (batch, seq, dim)
    w = mask[..., None].astype(e.dtype)
    pooled = (e * w).sum(axis=1) / np.maximum(w.sum(axis=1), 1)
    return pooled, table[ids[:, 0]].sum()


def masked_sums(x, threshold):
    big = x > threshold
    return x[big].sum(), x[~big].mean(), np.count_nonzero(big)


def stack_features(xs, ws):
    feats = [np.tanh(x @ w) for x, w in zip(xs, ws)]
    for i, f in enumerate(feats):
        feats[i] = f * (i + 1)
    cat = np.concatenate(feats, axis=1)
    st = np.stack([f.mean(axis=1) for f in feats], axis=-1)
    return cat, st, np.vstack(feats).shape


def make_scaler(factor, shift=1.0):
    scale = lambda v, p=2: factor * v ** p + shift
    def apply(xs, op=np.sum):
        return [op(scale(x)) for x in xs]
    return apply


def use_closures(a, b):
    f = make_scaler(0.5)
    g = make_scaler(2.0, shift=-1.0)
    return f([a, b]), g([a], op=np.max), sorted([3, 1, 2], key=lambda v: -v)


def brighten_uint8(img, delta):
    """uint8 arithmetic wraps; the saturating version goes through int16."""
    wrapped = img + np.uint8(delta)
    saturated = np.clip(img.astype(np.int16) + delta, 0, 255).astype(np.uint8)
    halved = img // 2 + img // 3
    return wrapped, saturated, halved, (img > 200).sum(), img.mean()


def int8_accumulate(x):
    acc = np.zeros(x.shape[1], dtype=np.int8)
    for row in x:
        acc += row                               # wraps as int8
    wide = x.sum(axis=0)                        # NumPy sums int8 in int64
    return acc, wide, x.astype(np.int32).prod(axis=0), -x


def mixed_precision(h, f):
    """float16 and float32 with Python scalars (NEP 50: the scalar is weak)."""
    a = h * 2.5 + 1
    b = f * 0.1 + h
    c = h / 3
    d = np.float32(2.0) * h
    e = h.sum() + 1.0
    return a, b, c, d, e, (h > 0.5).mean(), h.astype(np.float32).mean()


def dft_and_filter(x):
    """A hand-written DFT with complex exponentials, compared with np.fft."""
    n = x.shape[0]
    k = np.arange(n)
    m = np.exp(-2j * np.pi * np.outer(k, k) / n)
    spec = m @ x
    spec[n // 4: n - n // 4 + 1] = 0
    back = np.fft.ifft(spec)
    return spec, back.real, np.abs(spec).max(), np.angle(spec[1]), np.conj(spec).imag.sum()


def ridge(x, y, lam):
    gram = np.einsum("ni,nj->ij", x, x) + lam * np.eye(x.shape[1])
    w = np.linalg.solve(gram, x.T @ y)
    resid = y - x @ w
    return w, float(resid @ resid)


def viterbi(log_start, log_trans, log_emit, obs):
    """Max-product decoding with a backtrace over a runtime-indexed table."""
    t_len = obs.shape[0]
    n = log_start.shape[0]
    score = log_start + log_emit[:, obs[0]]
    back = np.zeros((t_len, n), dtype=np.int64)
    for t in range(1, t_len):
        cand = score[:, None] + log_trans
        back[t] = cand.argmax(axis=0)
        score = cand.max(axis=0) + log_emit[:, obs[t]]
    path = np.zeros(t_len, dtype=np.int64)
    path[-1] = score.argmax()
    for t in range(t_len - 1, 0, -1):
        path[t - 1] = back[t, path[t]]
    return path, score.max()


def bubble_sort(x):
    x = x.copy()
    n = len(x)
    swapped = True
    passes = 0
    while swapped:
        swapped = False
        for i in range(n - 1):
            if x[i] > x[i + 1]:
                x[i], x[i + 1] = x[i + 1], x[i]
                swapped = True
        passes += 1
    return x, passes


def binary_search(sorted_x, target):
    lo, hi = 0, len(sorted_x)
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_x[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def checked_normalize(x, axis=0):
    s = x.sum(axis=axis, keepdims=True)
    assert x.ndim == 2, f"expected a matrix, got {x.ndim} dims"
    assert np.all(s > 0), f"column sums must be positive (shape {x.shape})"
    return x / s


def sieve(n_max, limit):
    """Sieve of Eratosthenes with a runtime stride."""
    is_prime = np.ones(n_max, dtype=bool)
    is_prime[:2] = False
    i = 2
    while i * i < limit:
        if is_prime[i]:
            is_prime[i * i::i] = False
        i += 1
    return is_prime


# --- more algorithms ------------------------------------------------------------------------------

def adam_in_place(params, grads_fn, state, steps, lr=1e-2, b1=0.9, b2=0.999, eps=1e-8):
    """As `adam` with every change in place, as compiled code can write it
    back: the step count a 0-d array, the moments updated with `*=`, `+=`
    and `[...] =`."""
    for _ in range(steps):
        grads = grads_fn(params)
        state["t"] += 1
        for name in params:
            g = grads[name]
            state["m"][name] *= b1
            state["m"][name] += (1 - b1) * g
            state["v"][name][...] = b2 * state["v"][name] + (1 - b2) * g * g
            mhat = state["m"][name] / (1 - b1 ** state["t"])
            vhat = state["v"][name] / (1 - b2 ** state["t"])
            params[name] -= lr * mhat / (np.sqrt(vhat) + eps)
    return params["w"].sum()


def fft_recursive(x):
    """Radix-2 Cooley-Tukey, recursion on the static size."""
    n = x.shape[0]
    if n == 1:
        return x.astype(np.complex128)
    even = fft_recursive(x[::2])
    odd = fft_recursive(x[1::2])
    tw = np.exp(-2j * np.pi * np.arange(n // 2) / n) * odd
    return np.concatenate([even + tw, even - tw])


def gauss_pivot(a, b):
    """Gaussian elimination with partial pivoting (runtime row swaps)."""
    a = a.astype(float)
    b = b.astype(float)
    n = a.shape[0]
    for k in range(n - 1):
        p = np.argmax(np.abs(a[k:, k])) + k
        a[[k, p]] = a[[p, k]]
        b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            a[i, k:] -= f * a[k, k:]
            b[i] -= f * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - a[i, i + 1:] @ x[i + 1:]) / a[i, i]
    return x


def floyd_warshall(d):
    d = d.copy()
    for k in range(d.shape[0]):
        d = np.minimum(d, d[:, k, None] + d[None, k, :])
    return d


def dijkstra(w, src):
    n = w.shape[0]
    dist = np.full(n, np.inf)
    dist[src] = 0.0
    done = np.zeros(n, dtype=bool)
    while not done.all():
        u = np.argmin(np.where(done, np.inf, dist))
        if np.isinf(dist[u]):
            break
        done[u] = True
        dist = np.minimum(dist, dist[u] + w[u])
    return dist


def xorshift_uniform(seed, n, rounds):
    """A hand-written xorshift64 generator on uint64 arrays, used for Monte Carlo pi."""
    s = np.arange(1, n + 1, dtype=np.uint64) * np.uint64(seed)
    inside = 0
    for _ in range(rounds):
        s ^= s << np.uint64(13)
        s ^= s >> np.uint64(7)
        s ^= s << np.uint64(17)
        u = (s >> np.uint64(11)).astype(np.float64) / 2.0 ** 53
        v = np.roll(u, 1)
        inside += int(np.count_nonzero(u * u + v * v < 1.0))
    return 4.0 * inside / (n * rounds), s


def lcg_hash(x):
    h = x.astype(np.uint32)
    h = h * np.uint32(2654435761)
    h ^= h >> 16
    return h, (h % 7).astype(np.int8), h.astype(np.int32)


def levenshtein(a, b):
    n, m = len(a), len(b)
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    d[:, 0] = np.arange(n + 1)
    d[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[n, m]


def kalman_1d(zs, q=1e-3, r=0.1):
    x, p = 0.0, 1.0
    out = np.empty_like(zs)
    for i, z in enumerate(zs):
        p = p + q
        k = p / (p + r)
        x = x + k * (z - x)
        p = (1 - k) * p
        out[i] = x
    return out, x, p


def moving_average(x, w=3):
    c = np.concatenate(([0.0], np.cumsum(x)))
    ma = (c[w:] - c[:-w]) / w
    return ma, np.convolve(x, np.ones(w) / w, mode="valid"), np.diff(x, n=2)


def max_pool_2x2(img):
    h, w = img.shape
    return img.reshape(h // 2, 2, w // 2, 2).max(axis=(1, 3)), img[::2, ::2].T.copy()


def radial_profile(n, center):
    yy, xx = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    r = np.hypot(yy - center[0], xx - center[1])
    ring = np.floor(r).astype(np.int64)
    total = np.zeros(n * 2, dtype=np.float64)
    np.add.at(total, ring, r)
    return total


class Shape:
    def __init__(self, scale):
        self.scale = scale

    @property
    def factor(self):
        return self.scale * 2

    def area(self):
        raise NotImplementedError

    @classmethod
    def unit(cls):
        return cls(1.0)

    @staticmethod
    def describe(x):
        return np.round(x, 2)


class Square(Shape):
    def __init__(self, side, scale=1.0):
        super().__init__(scale)
        self.side = side

    def area(self):
        return self.side ** 2 * self.factor


class Circle(Shape):
    def __init__(self, r):
        super().__init__(0.5)
        self.r = r

    def area(self):
        return np.pi * self.r ** 2 * self.factor


def total_area(sides, radii):
    shapes = [Square(s) for s in sides] + [Circle(r) for r in radii] + [Square.unit()]
    areas = {type(s).__name__ + str(i): s.area() if hasattr(s, "side") or isinstance(s, Circle) else 0.0
             for i, s in enumerate(shapes)}
    return Shape.describe(sum(areas.values())), len(areas)


def generator_batches(x, size):
    def batches():
        for i in range(0, len(x), size):
            yield x[i:i + size]
    first, *rest = list(batches())
    return first.sum(), [b.mean() for b in rest], sum(b.max() for b in batches())


def early_return_search(x, target):
    """A runtime return from a runtime loop, with a slice up to the runtime index."""
    for i in range(x.shape[0]):
        if x[i] == target:
            return i, x[:i].sum()
    return -1, x.sum()


def dtype_dispatch(x):
    if np.issubdtype(x.dtype, np.floating):
        out = np.round(x * 10) / 10
    elif x.dtype == np.bool_:
        out = x.astype(np.int64)
    else:
        out = x // 3 - x % 3
    if isinstance(x, np.ndarray) and x.ndim == 2:
        out = out.T
    return out


def int_div_edge_cases(a, b):
    return a // b, a % b, np.floor_divide(-a, 4), np.fmod(a, 3), divmod(a, 5)


def runtime_scalar_python_min(a, b):
    s = min(a.sum(), b.sum())
    t = max(a.max(), 0.0)
    return s, t, abs(a - b), np.array([s, t, 1.0]), round(float(s), 3)


def trapezoid_and_interp(x, y, xq):
    area = np.trapezoid(y, x)
    yq = np.interp(xq, x, y)
    p = np.polyfit(x, y, 2)
    return area, yq, np.polyval(p, xq)


def gram_schmidt(a):
    q = np.zeros_like(a)
    r = np.zeros((a.shape[1], a.shape[1]))
    for j in range(a.shape[1]):
        v = a[:, j].copy()
        for i in range(j):
            r[i, j] = q[:, i] @ a[:, j]
            v -= r[i, j] * q[:, i]
        r[j, j] = np.linalg.norm(v)
        q[:, j] = v / r[j, j]
    return q, r


def gaussian_loglik(x, mu, cov):
    l = np.linalg.cholesky(cov)
    z = np.linalg.solve(l, (x - mu).T)
    sign, logdet = np.linalg.slogdet(cov)
    d = x.shape[1]
    return -0.5 * (np.sum(z ** 2, axis=0) + logdet + d * np.log(2 * np.pi)), sign


def csr_matvec(data, indices, indptr, x):
    """CSR sparse matrix times a vector, row by row (runtime slice bounds)."""
    n = len(indptr) - 1
    y = np.zeros(n)
    for i in range(n):
        lo, hi = indptr[i], indptr[i + 1]
        y[i] = data[lo:hi] @ x[indices[lo:hi]]
    return y


def csr_matvec_repeat(data, indices, indptr, x):
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    y = np.zeros(len(indptr) - 1)
    np.add.at(y, rows, data * x[indices])
    return y


def csr_matvec_searchsorted(data, indices, indptr, x):
    """As the refusal of csr_matvec_repeat suggests: each element's row by a
    search in indptr, then a scatter-add."""
    rows = np.searchsorted(indptr, np.arange(len(data)), side="right") - 1
    y = np.zeros(len(indptr) - 1)
    np.add.at(y, rows, data * x[indices])
    return y


def float16_edges(h):
    big = h * 1e5
    tiny = h / 1e8
    return big, tiny, np.isinf(big).sum(), h.astype(np.float64) * 1e5, np.float16(65504) + h


def complex_ops(z, w):
    zc = z.astype(np.complex64)
    return (zc * 2j, zc + 1.5, np.abs(zc), z @ w.conj(), np.exp(1j * np.angle(z)),
            z.real ** 2 + z.imag ** 2, np.sqrt(z), (z * w).sum())


def histogram_equalize(img):
    hist = np.zeros(256, dtype=np.int64)
    np.add.at(hist, img.ravel(), 1)
    cdf = hist.cumsum()
    cdf_min = cdf[cdf > 0].min()
    lut = np.round((cdf - cdf_min) / (img.size - cdf_min) * 255).clip(0, 255).astype(np.uint8)
    return lut[img]


def sort_list_of_scalars(a, b, c):
    vals = [a.sum(), b.sum(), c.sum()]
    return sorted(vals), sorted(a, reverse=True), max(vals)


def sort_by_runtime_key(xs):
    return sorted(xs, key=lambda v: v.sum())


def sliding_windows(x, img):
    from numpy.lib.stride_tricks import sliding_window_view
    smooth = sliding_window_view(x, 3).mean(axis=-1)
    pooled = sliding_window_view(img, (2, 2)).max(axis=(-1, -2))
    return smooth, pooled


# --- Python features -------------------------------------------------------------------------------

Stats = collections.namedtuple("Stats", "mean std count")

ACTIVATIONS = {"relu": lambda v: np.maximum(v, 0), "tanh": np.tanh, "id": lambda v: v}


def describe(x, act="relu"):
    y = ACTIVATIONS[act](x)
    flat = y.ravel()
    return Stats(flat.mean(), flat.std(ddof=1), flat.size), float(y.max()), int(np.argmax(y)), \
        y.sum().item(), np.float32(y.min())


def scalar_kinds(x):
    s = x.sum()
    z = np.zeros(())
    z += s
    a = x[0] * 2          # NumPy scalar
    b = x[...] * 2        # array
    c = np.asarray(s)
    return s, z, a, b, c, np.sqrt(s), abs(s), -s, s > 0, bool(s > 0)


def integer_semantics(i8, u8, i32):
    return (np.cumsum(i8), np.cumsum(i8, dtype=np.int8), u8 - u8[::-1], np.uint8(5) - u8,
            np.abs(i8), -7 // i32, i32 % -3, (i32 * 1.7).astype(np.int32), np.round(i32 / 2),
            i8.sum(), i8.mean(), u8 * u8, u8 << 3, i32 ** 2, np.power(i32, 3))


def bool_semantics(a, b):
    return a + b, a * b, ~a, a ^ b, a.sum(), a.mean(), np.sum(a & b), a.astype(np.float32) - b, \
        np.where(a, 1, 0.5), a.any(), np.logical_xor(a, b).all()


def dtype_mixing(f32, f64, i64):
    return (f32 + 1.5, f32 + np.float64(1.5), f32 * i64, f32 + np.int32(2), i64 / 2, i64 // 2.0,
            f32 ** 2, np.float32(3) * 2.5, f64.astype(np.float32) + f32, np.maximum(f32, 2),
            np.where(f32 > 0, f32, 0.0), np.clip(i64, 0.5, 2.5))


def linspace_arange(n):
    a = np.linspace(0, 1, 5, endpoint=False)
    b = np.linspace(0, 10, 4, dtype=int)
    c = np.arange(0, 1, 0.1)
    d = np.arange(5, dtype=np.float32) * n
    e = np.logspace(0, 2, 3)
    return a, b, c, d, e


def nested_control(x, limit):
    """A runtime for inside a runtime while, with break and continue."""
    total = 0.0
    rounds = 0
    while total < limit:
        rounds += 1
        for i in range(x.shape[0]):
            if x[i] < 0:
                continue
            total += x[i] * rounds
            if total > 2 * limit:
                break
        if rounds > 20:
            break
    return total, rounds


def classify(v):
    """Returns from several runtime branches, a label with each: the label
    is a runtime choice among the strings (classify_code: a number)."""
    if v.sum() > 10:
        return "big", v * 2
    elif v.min() < 0:
        return "negative", -v
    return "small", v


def classify_code(v):
    if v.sum() > 10:
        return 2, v * 2
    elif v.min() < 0:
        return 1, -v
    return 0, v


class Dataset:
    def __init__(self, x, y, batch):
        self.x, self.y, self.batch = x, y, batch

    def __len__(self):
        return self.x.shape[0] // self.batch

    def __getitem__(self, i):
        sl = slice(i * self.batch, (i + 1) * self.batch)
        return self.x[sl], self.y[sl]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


@dataclasses.dataclass
class TrainState:
    w: np.ndarray
    lr: float = 0.1
    history: list = dataclasses.field(default_factory=list)


def train_epoch(x, y, w0):
    """Linear regression by minibatch SGD over a Dataset class."""
    state = TrainState(w0.copy())
    data = Dataset(x, y, 4)
    for xb, yb in data:
        err = xb @ state.w - yb
        state.w -= state.lr * xb.T @ err / len(xb)
        state.history.append(float((err ** 2).mean()))
    return state.w, state.history, len(data)


def functional_tools(xs):
    total = functools.reduce(operator.add, xs)
    prods = [a * b for a, b in itertools.combinations(xs, 2)]
    scaled = list(map(functools.partial(np.multiply, 2.0), xs))
    pairs = {f"{i}{j}": (xs[i] - xs[j]).sum() for i, j in itertools.product(range(2), repeat=2)}
    get = operator.itemgetter(0, -1)
    return total, sum(prods), scaled, pairs, get(xs)


def string_dispatch(x, mode):
    ops = {"sum": np.sum, "max": np.max, "l2": lambda v: np.sqrt((v ** 2).sum())}
    name = mode.lower().strip()
    if name.startswith("l"):
        label = f"norm-{name}"
    else:
        label = name.upper()
    return label, getattr(np, "mean")(x), ops[name](x)


def namedtuple_helper(x):
    """Refused: collections.namedtuple builds its class with eval(), which
    compiled code cannot run; the error is at this line.  (A
    functools.lru_cache made here was the example once: it compiles now.)"""
    Point = collections.namedtuple("Point", "x y")
    p = Point(x, 2 * x)
    return p.x + p.y


def print_progress(x, steps):
    for i in range(steps):
        x = 0.5 * x + 1
        if i % 2 == 0:
            print(f"step {i}", x.sum())
    return x


def sum_of_squares_while_true(x):
    i = 0
    acc = np.zeros_like(x[0])
    while True:
        if i >= x.shape[0]:
            break
        if x[i].sum() < 0:
            return acc, i
        acc = acc + x[i] ** 2
        i += 1
    return acc, -1


def argsort_ranks(x):
    order = np.argsort(x, kind="stable")
    ranks = np.empty_like(order)
    ranks[order] = np.arange(len(x))
    sorted_x = x[order]
    med = np.median(x)
    q = np.percentile(x, [25, 75])
    return ranks, sorted_x, med, q, np.searchsorted(sorted_x, med)


def outer_products(a, b):
    return (np.einsum("i,j->ij", a, b), np.einsum("ij,ij->", np.outer(a, b), np.outer(a, b)),
            np.einsum("bi,bj->bij", a[None], b[None]).shape, np.tensordot(a, b, 0).sum(),
            np.einsum("ii->i", np.outer(a, a)), np.einsum("ij->ji", np.outer(a, b)))


def complex_mixed(z64, x32):
    return (z64 * x32, z64 + 1j, z64 * np.complex128(1j), np.abs(z64), z64.real.dtype == np.float32,
            np.conj(z64) * z64, (z64 * 2.5).dtype, np.exp(z64), z64 / (1 + 1j), z64 ** 2,
            np.angle(z64, deg=True))


# --- edge semantics inside ordinary programs -------------------------------------------------------

def out_arguments(a, b):
    np.multiply(a, b, out=a)
    np.add(a, 1, out=a)
    c = np.empty_like(b)
    np.sqrt(np.abs(b), out=c)
    b.sort()
    return a, c


def repeated_index_writes(x, idx):
    y = x.copy()
    y[idx] += 1          # NumPy does not accumulate repeated indices
    z = np.zeros(5)
    z[[0, 0, 1]] = [1.0, 2.0, 3.0]
    w = x.copy()
    w[idx] = np.arange(len(idx), dtype=x.dtype)
    return y, z, w


def nan_and_ties(x):
    return (np.argmax(x), np.argmin(x), np.max(x), np.nanmax(x), np.maximum(x, 0.0),
            np.fmax(x, 0.0), np.sort(x), np.argsort(x), np.nanargmax(x), np.nanargmin(x))


def rounding_and_mod(x, y):
    return (np.round(x), np.round(x, 1), np.floor(x), np.trunc(x), x % y, np.fmod(x, y),
            x // y, np.remainder(x, 0.0), np.divmod(x, y), np.rint(x), np.around(-0.5))


def shifts_and_bits(i8, u16):
    return (np.left_shift(i8, 3), i8 >> 1, u16 >> 4, np.left_shift(u16, np.uint16(9)),
            np.bitwise_and(i8, 0x0F), i8 ^ -1, np.invert(u16), u16 | 1, np.bitwise_count(u16),
            np.bitwise_count(i8))


def clip_and_misc(x):
    return (np.clip(x, 2, 1), np.clip(x, None, 0.5), np.diff(x > 0), np.cumsum(x > 0),
            np.var(x + 1j * x), (x > 0).astype(np.float16).mean(), np.linalg.norm(x.reshape(2, -1), axis=1),
            x.astype(bool), np.median(x), np.ptp(x), np.count_nonzero(x, axis=0))


def swap_in_loop(a, b, n):
    for _ in range(n):
        a, b = b, a + b
    return a, b


def fill_by_runtime_index(x, n):
    out = np.zeros((5, x.shape[0]))
    i = 0
    while i < n:
        out[i] = x * i
        out[-1 - i, 0] += i
        i += 1
    return out


def copyto_where(dst, src):
    np.copyto(dst, src, where=src > 0)
    dst[dst < -1] = -1
    return dst.sum()


def softmax_f16(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True), np.float16(1) / 3, x.mean(), x.var()


# --- gradients ---------------------------------------------------------------------------------

def attention_loss(params, x, lengths):
    q, k, v = x @ params["wq"], x @ params["wk"], x @ params["wv"]
    out = masked_attention(q, k, v, lengths)
    return (out ** 2).mean()


def attention_grads(params, x, lengths):
    loss, g = tpucc.value_and_grad(attention_loss)(params, x, lengths)
    return loss, g


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.where(a < delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))


def robust_fit(x, y, steps, lr=0.1):
    """Huber regression by gradient descent, stopping when the loss stalls."""
    def loss(w):
        return huber(x @ w - y).mean()
    w = np.zeros(x.shape[1])
    prev = np.inf
    for step in range(steps):
        cur, g = tpucc.value_and_grad(loss)(w)
        if prev - cur < 1e-9:
            break
        w -= lr * g
        prev = cur
    return w, cur, step


@dataclasses.dataclass
class Linear:
    w: np.ndarray
    b: np.ndarray
    scale: float = 1.0

    def __call__(self, x):
        return self.scale * (x @ self.w) + self.b


def object_grad(layer, x, y):
    def loss(m):
        p = m(x)
        return ((p - y) ** 2).sum() if m.scale > 0 else (p ** 2).sum()
    g = tpucc.grad(loss)(layer)
    return g.w, g.b, g.scale


def cond_in_grad(w, x):
    def loss(w):
        s = (x @ w).sum()
        if s > 0:                     # a runtime branch inside the differentiated function
            return s ** 2
        return -s
    return tpucc.grad(loss)(w), loss(w)


def scan_rnn_grad(w, xs):
    """Backprop through a static-length loop longer than the unroll budget."""
    def loss(w):
        h = np.zeros(w.shape[0])
        for t in range(40):
            h = np.tanh(w @ h + xs[t])
        return (h ** 2).sum()
    return tpucc.value_and_grad(loss)(w)
