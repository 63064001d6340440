"""Session 17's sweep: stateful programs written the way a NumPy user writes
them, keeping Python numbers (step counters, decayed learning rates, best
losses, flags) and arrays between calls in objects, closures and dict or
list arguments.  test_user_programs_session17.py runs each scenario eagerly
and compiled and compares the results and the state left behind.  Kept out
of the test module because some hold `assert`s, which pytest would rewrite.

A scenario is `scenario(wrap)`: it builds fresh state, wraps the function
under test with `wrap` (the identity, or tpucc.compile), calls it several
times and returns (results, state)."""
import math

import numpy as np

import tpucc

F32 = np.float32


def params(seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return {"w": rng.standard_normal((3, 4)).astype(dtype),
            "b": rng.standard_normal(4).astype(dtype)}


def quadratic_grads(p):
    return {k: 2.0 * (v - 0.5) for k, v in p.items()}


# --- optimizers as classes ------------------------------------------------------------------

class SGDMomentum:
    """SGD with (optionally Nesterov) momentum and an exponentially decayed
    learning rate: self.lr is a float rebound at every step."""

    def __init__(self, shapes, lr=0.1, momentum=0.9, nesterov=False, decay=0.95):
        self.lr, self.momentum, self.nesterov, self.decay = lr, momentum, nesterov, decay
        self.velocity = {k: np.zeros(s) for k, s in shapes.items()}
        self.steps = 0

    def step(self, p, grads):
        for k in p:
            v = self.velocity[k]
            v *= self.momentum
            v -= self.lr * grads[k]
            if self.nesterov:
                p[k] += self.momentum * v - self.lr * grads[k]
            else:
                p[k] += v
        self.steps += 1
        self.lr *= self.decay
        return self.lr


def sgd_scenario(nesterov):
    def scenario(wrap):
        p = params()
        opt = SGDMomentum({k: v.shape for k, v in p.items()}, nesterov=nesterov)
        step = wrap(SGDMomentum.step)
        outs = [step(opt, p, quadratic_grads(p)) for _ in range(4)]
        return outs, (opt, p)
    return scenario


class AdamW:
    """Adam with decoupled weight decay, a linear warmup and bias correction;
    moments in dicts of float32 arrays."""

    def __init__(self, p, lr=1e-2, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, warmup=3):
        self.base_lr, self.lr = lr, 0.0
        self.b1, self.b2 = betas
        self.eps, self.wd, self.warmup = eps, weight_decay, warmup
        self.t = 0
        self.m = {k: np.zeros_like(v) for k, v in p.items()}
        self.v = {k: np.zeros_like(v) for k, v in p.items()}

    def update(self, p, grads):
        self.t += 1
        self.lr = self.base_lr * min(1.0, self.t / self.warmup)
        c1 = 1 - self.b1 ** self.t
        c2 = 1 - self.b2 ** self.t
        for k in p:
            g = grads[k]
            self.m[k][...] = self.b1 * self.m[k] + (1 - self.b1) * g
            self.v[k][...] = self.b2 * self.v[k] + (1 - self.b2) * g * g
            p[k] *= 1 - self.lr * self.wd
            p[k] -= self.lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + self.eps)
        return self.lr


def adamw_scenario(wrap):
    p = params(dtype=F32)
    opt = AdamW(p)
    update = wrap(opt.update)          # a bound method
    outs = [update(p, quadratic_grads(p)) for _ in range(5)]
    return outs, (opt, p)


class RMSprop:
    def __init__(self, p, lr=1e-2, alpha=0.99, eps=1e-8):
        self.lr, self.alpha, self.eps = lr, alpha, eps
        self.square_avg = {k: np.zeros_like(v) for k, v in p.items()}
        self.step_count = 0

    def step(self, p, grads):
        self.step_count += 1
        for k, g in grads.items():
            self.square_avg[k] *= self.alpha
            self.square_avg[k] += (1 - self.alpha) * g ** 2
            p[k] -= self.lr * g / (np.sqrt(self.square_avg[k]) + self.eps)
        return sum(float(np.abs(g).sum()) for g in grads.values())


def rmsprop_scenario(wrap):
    p = params(1)
    opt = RMSprop(p)
    step = wrap(RMSprop.step)
    outs = [step(opt, p, quadratic_grads(p)) for _ in range(4)]
    return outs, (opt, p)


class Adagrad:
    """Adagrad with learning-rate decay lr / (1 + (t - 1) * lr_decay)."""

    def __init__(self, p, lr=0.1, lr_decay=0.01, eps=1e-10):
        self.lr, self.lr_decay, self.eps = lr, lr_decay, eps
        self.sum = {k: np.zeros_like(v) for k, v in p.items()}
        self.t = 0

    def step(self, p, grads):
        self.t += 1
        clr = self.lr / (1 + (self.t - 1) * self.lr_decay)
        for k in p:
            self.sum[k] += grads[k] * grads[k]
            p[k] = p[k] - clr * grads[k] / (np.sqrt(self.sum[k]) + self.eps)
        return clr


def adagrad_scenario(wrap):
    p = params(2)
    opt = Adagrad(p)
    step = wrap(Adagrad.step)
    outs = [step(opt, p, quadratic_grads(p)) for _ in range(4)]
    return outs, (opt, p)


# --- optimizers as functions over dict state ---------------------------------------------

def rmsprop_functional(p, grads, state, alpha=0.9, eps=1e-8):
    state["step"] += 1
    state["lr"] = state["lr"] * 0.9
    for k in p:
        state["sq"][k] = alpha * state["sq"][k] + (1 - alpha) * grads[k] ** 2
        p[k] = p[k] - state["lr"] * grads[k] / (np.sqrt(state["sq"][k]) + eps)
    return state["step"]


def rmsprop_functional_scenario(wrap):
    p = params(3)
    state = {"step": 0, "lr": 0.05, "sq": {k: np.zeros_like(v) for k, v in p.items()}}
    step = wrap(rmsprop_functional)
    outs = [step(p, quadratic_grads(p), state) for _ in range(4)]
    return outs, (state, p)


def sgd_kwargs_state(w, g, *, state, lr=0.1):
    """State passed by keyword; momentum buffer in a list."""
    state["t"] += 1
    state["buf"][0] = 0.9 * state["buf"][0] + g
    w -= lr / state["t"] * state["buf"][0]
    return np.linalg.norm(w)


def kwargs_state_scenario(wrap):
    w = np.arange(4.0)
    state = {"t": 0, "buf": [np.zeros(4)]}
    f = wrap(sgd_kwargs_state)
    outs = [f(w, w - 1.0, state=state) for _ in range(4)]
    return outs, (state, w)


# --- learning-rate schedules ---------------------------------------------------------------

class CosineSchedule:
    def __init__(self, base_lr=0.1, min_lr=0.001, total=10):
        self.base_lr, self.min_lr, self.total = base_lr, min_lr, total
        self.t = 0

    def step(self):
        self.t += 1
        progress = min(self.t, self.total) / self.total
        return self.min_lr + 0.5 * (self.base_lr - self.min_lr) * (1 + math.cos(math.pi * progress))


def cosine_scenario(wrap):
    s = CosineSchedule()
    step = wrap(s.step)
    outs = [step() for _ in range(12)]
    return outs, s


class StepDecay:
    """Halves the learning rate every `every` steps: `if self.t % every == 0`
    is a runtime condition once self.t is a runtime input."""

    def __init__(self, lr=0.8, every=3):
        self.lr, self.every = lr, every
        self.t = 0

    def apply(self, w, g):
        self.t += 1
        if self.t % self.every == 0:
            self.lr = self.lr * 0.5
        return w - self.lr * g


def step_decay_scenario(wrap):
    s = StepDecay()
    f = wrap(StepDecay.apply)
    w = np.ones(3)
    outs = []
    for _ in range(7):
        w = f(s, w, np.array([1.0, 2.0, 3.0]))
        outs.append(w)
    return outs, s


# --- moving averages -----------------------------------------------------------------------

class EMA:
    """An exponential moving average of weights with the warmup of its decay
    (min(decay, (1 + n) / (10 + n))) counted by self.num_updates."""

    def __init__(self, p, decay=0.99):
        self.decay = decay
        self.shadow = {k: v.copy() for k, v in p.items()}
        self.num_updates = 0

    def update(self, p):
        self.num_updates += 1
        decay = min(self.decay, (1 + self.num_updates) / (10 + self.num_updates))
        for k, v in p.items():
            self.shadow[k] -= (1 - decay) * (self.shadow[k] - v)
        return decay


def ema_scenario(wrap):
    p = params(4)
    ema = EMA(p)
    update = wrap(EMA.update)
    outs = []
    for i in range(4):
        p = {k: v + i for k, v in p.items()}
        outs.append(update(ema, p))
    return outs, ema


class RunningLoss:
    """The mean loss so far, kept as Python floats."""

    def __init__(self):
        self.total = 0.0
        self.count = 0

    def __call__(self, pred, target):
        loss = float(((pred - target) ** 2).mean())
        self.total += loss
        self.count += 1
        return self.total / self.count


def running_loss_scenario(wrap):
    meter = RunningLoss()
    f = wrap(RunningLoss.__call__)
    target = np.zeros(5)
    outs = [f(meter, np.arange(5.0) * i, target) for i in range(4)]
    return outs, meter


class Welford:
    """Online mean and variance of a stream of batches (Chan et al.)."""

    def __init__(self, dim):
        self.n = 0
        self.mean = np.zeros(dim)
        self.m2 = np.zeros(dim)

    def update(self, batch):
        nb = batch.shape[0]
        mb = batch.mean(axis=0)
        delta = mb - self.mean
        total = self.n + nb
        self.mean = self.mean + delta * nb / total
        self.m2 = self.m2 + ((batch - mb) ** 2).sum(axis=0) + delta ** 2 * self.n * nb / total
        self.n = total
        return self.m2 / max(self.n - 1, 1)


def welford_scenario(wrap):
    rng = np.random.default_rng(5)
    w = Welford(3)
    f = wrap(w.update)
    outs = [f(rng.standard_normal((4, 3))) for _ in range(4)]
    return outs, w


# --- layers with running statistics --------------------------------------------------------

class BatchNorm:
    def __init__(self, dim, momentum=0.1, eps=1e-5):
        self.gamma, self.beta = np.ones(dim, F32), np.zeros(dim, F32)
        self.running_mean, self.running_var = np.zeros(dim, F32), np.ones(dim, F32)
        self.momentum, self.eps = momentum, eps
        self.num_batches_tracked = 0
        self.training = True

    def __call__(self, x):
        if self.training:
            mean, var = x.mean(axis=0), x.var(axis=0)
            self.num_batches_tracked += 1
            self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * mean
            n = x.shape[0]
            self.running_var = ((1 - self.momentum) * self.running_var
                                + self.momentum * var * n / (n - 1))
        else:
            mean, var = self.running_mean, self.running_var
        return self.gamma * (x - mean) / np.sqrt(var + self.eps) + self.beta


class Linear:
    def __init__(self, n_in, n_out, seed):
        rng = np.random.default_rng(seed)
        self.w = (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(F32)
        self.b = np.zeros(n_out, F32)

    def __call__(self, x):
        return x @ self.w + self.b


class MLP:
    def __init__(self):
        self.layers = [Linear(4, 8, 0), BatchNorm(8), Linear(8, 8, 1), BatchNorm(8),
                       Linear(8, 2, 2)]
        self.forward_calls = 0

    def forward(self, x):
        self.forward_calls += 1
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0)
        return x


def mlp_batchnorm_scenario(wrap):
    rng = np.random.default_rng(6)
    model = MLP()
    forward = wrap(model.forward)
    outs = [forward(rng.standard_normal((6, 4)).astype(F32)) for _ in range(3)]
    for layer in model.layers[1::2]:
        layer.training = False          # evaluation mode: another trace
    outs += [forward(rng.standard_normal((6, 4)).astype(F32)) for _ in range(2)]
    return outs, model


# --- early stopping, flags -----------------------------------------------------------------

class EarlyStopping:
    def __init__(self, patience=2, min_delta=0.01):
        self.patience, self.min_delta = patience, min_delta
        self.best = float("inf")
        self.bad_epochs = 0
        self.stop = False

    def __call__(self, val_pred, val_y):
        loss = float(np.mean((val_pred - val_y) ** 2))
        if loss < self.best - self.min_delta:
            self.best = loss
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
            if self.bad_epochs >= self.patience:
                self.stop = True
        return loss


def early_stopping_scenario(wrap):
    es = EarlyStopping()
    f = wrap(EarlyStopping.__call__)
    y = np.zeros(4)
    outs = []
    for scale in [3.0, 2.0, 2.0, 1.0, 1.0, 1.0, 1.0]:
        outs.append(f(es, np.full(4, scale), y))
        outs.append(es.stop)
    return outs, es


class Warmup:
    """A bool flag set in a runtime `if`: self.warmed_up."""

    def __init__(self, steps=2):
        self.steps, self.t, self.warmed_up = steps, 0, False

    def scale(self, g):
        self.t += 1
        if self.t >= self.steps:
            self.warmed_up = True
        return g * (1.0 if self.warmed_up else 0.1)


def warmup_scenario(wrap):
    w = Warmup()
    f = wrap(w.scale)
    outs = [(f(np.ones(2)), w.warmed_up) for _ in range(4)]
    return outs, w


class LossScaler:
    """Dynamic loss scaling for mixed precision: halves the scale and skips
    the step on overflow, doubles it after `interval` good steps."""

    def __init__(self, scale=2.0 ** 8, interval=2):
        self.scale, self.interval = scale, interval
        self.good_steps = 0
        self.skipped = 0

    def step(self, w, scaled_grad):
        g = scaled_grad / self.scale
        if not np.isfinite(g).all():
            self.scale /= 2
            self.skipped += 1
            self.good_steps = 0
            return w
        self.good_steps += 1
        if self.good_steps % self.interval == 0:
            self.scale *= 2
        return w - 0.1 * g


def loss_scaler_scenario(wrap):
    s = LossScaler()
    f = wrap(LossScaler.step)
    w = np.ones(3, F32)
    outs = []
    for g in ([1, 2, 3], [np.inf, 1, 1], [1, 1, 1], [2, 2, 2], [np.nan, 0, 0], [1, 0, 1]):
        w = f(s, w, np.array(g, F32) * 256)
        outs.append(w)
    return outs, s


class GradAccumulator:
    """Accumulates `k` gradients, then takes a step: a runtime condition on
    the counter, which is reset in one branch."""

    def __init__(self, dim, k=3):
        self.k = k
        self.count = 0
        self.buf = np.zeros(dim)
        self.updates = 0

    def add(self, w, g):
        self.buf = self.buf + g
        self.count += 1
        if self.count == self.k:
            w = w - 0.1 * self.buf / self.k
            self.buf = np.zeros_like(self.buf)
            self.count = 0
            self.updates += 1
        return w


def grad_accumulator_scenario(wrap):
    acc = GradAccumulator(2)
    f = wrap(GradAccumulator.add)
    w = np.zeros(2)
    outs = []
    for i in range(7):
        w = f(acc, w, np.array([1.0, -1.0]) * (i + 1))
        outs.append(w)
    return outs, acc


class EpsilonGreedy:
    """An exploration rate decayed with max(); the step counter and the
    number of greedy choices as ints."""

    def __init__(self):
        self.epsilon, self.eps_min, self.decay = 1.0, 0.2, 0.7
        self.steps = 0
        self.greedy = 0

    def act(self, q, u):
        self.steps += 1
        if u > self.epsilon:
            self.greedy += 1
            a = int(np.argmax(q))
        else:
            a = 0
        self.epsilon = max(self.eps_min, self.epsilon * self.decay)
        return a


def epsilon_greedy_scenario(wrap):
    agent = EpsilonGreedy()
    f = wrap(EpsilonGreedy.act)
    q = np.array([0.1, 0.5, 0.2])
    outs = [f(agent, q, np.float64(u)) for u in (0.9, 0.5, 0.3, 0.6, 0.1, 0.4)]
    return outs, agent


# --- closures, globals, several instances --------------------------------------------------

def make_counted_loss():
    calls = 0
    worst = 0.0

    def loss(pred, y):
        nonlocal calls, worst
        calls += 1
        value = float(np.abs(pred - y).max())
        worst = max(worst, value)
        return value * calls

    def read():
        return calls, worst
    return loss, read


def closure_scenario(wrap):
    loss, read = make_counted_loss()
    f = wrap(loss)
    y = np.zeros(3)
    outs = [f(np.array([1.0, -4.0, 2.0]) / (i + 1), y) for i in range(4)]
    return outs, read()


class Stats:
    def __init__(self):
        self.seen = 0
        self.loss_sum = 0.0


STATS = Stats()


def global_stats_step(x, y):
    """State found through a global."""
    STATS.seen += x.shape[0]
    STATS.loss_sum += float(((x - y) ** 2).sum())
    return STATS.loss_sum / STATS.seen


def global_scenario(wrap):
    global STATS
    STATS = Stats()
    f = wrap(global_stats_step)
    outs = [f(np.arange(4.0) + i, np.ones(4)) for i in range(4)]
    return outs, STATS


class Counter:
    def __init__(self, start):
        self.n = start
        self.scale = 1.0

    def tick(self, x):
        self.n += 1
        self.scale = self.scale * 0.5
        return x * self.n * self.scale


def two_instances_scenario(wrap):
    a, b = Counter(0), Counter(10)
    f = wrap(Counter.tick)
    x = np.ones(2)
    outs = []
    for _ in range(3):
        outs += [f(a, x), f(b, x)]
    return outs, (a, b)


class Trainer:
    """A method calling helper methods that bump the counters."""

    def __init__(self):
        self.w = np.zeros(3)
        self.global_step = 0
        self.epoch = 0
        self.last_loss = 0.0

    def _log(self, loss):
        self.last_loss = float(loss)

    def _tick(self):
        self.global_step += 1

    def train_step(self, x, y):
        pred = x @ self.w
        err = pred - y
        self.w = self.w - 0.1 * x.T @ err / len(y)
        self._tick()
        self._log((err ** 2).mean())
        return self.global_step


def trainer_scenario(wrap):
    rng = np.random.default_rng(7)
    t = Trainer()
    f = wrap(t.train_step)
    x = rng.standard_normal((8, 3))
    y = x @ np.array([1.0, -2.0, 0.5])
    outs = [f(x, y) for _ in range(4)]
    return outs, t


# --- dict and list arguments ----------------------------------------------------------------

def fit_until(w, x, y, stats, tol=1e-3, max_iter=50):
    """A training loop in a runtime while, counting in a dict argument."""
    loss = np.mean((x @ w - y) ** 2)
    while loss > tol and stats["iters"] < max_iter:
        w = w - 0.1 * x.T @ (x @ w - y) / len(y)
        loss = np.mean((x @ w - y) ** 2)
        stats["iters"] += 1
    stats["calls"] += 1
    stats["last_loss"] = float(loss)
    return w


def fit_until_scenario(wrap):
    rng = np.random.default_rng(8)
    x = rng.standard_normal((10, 2))
    stats = {"iters": 0, "calls": 0, "last_loss": 0.0}
    f = wrap(fit_until)
    w = np.zeros(2)
    outs = []
    for scale in (1.0, 2.0, 0.5):
        w = f(w, x, x @ np.array([1.0, -1.0]) * scale, stats)
        outs.append(w)
    return outs, stats


def nested_state_step(x, state):
    """Nested dicts and lists of Python numbers and arrays."""
    opt = state["opt"]
    opt["t"] += 1
    opt["lr"] *= 0.5
    state["hist"][0] += float(x.sum())
    state["hist"][1] = max(state["hist"][1], float(x.max()))
    state["layers"][1]["w"] = state["layers"][1]["w"] - opt["lr"] * x
    return state["layers"][1]["w"].sum() * opt["t"]


def nested_state_scenario(wrap):
    state = {"opt": {"t": 0, "lr": 1.0}, "hist": [0.0, -np.inf],
             "layers": [{"w": np.zeros(3)}, {"w": np.ones(3)}]}
    f = wrap(nested_state_step)
    outs = [f(np.array([1.0, 2.0, 3.0]) * i, state) for i in range(4)]
    return outs, state


def some_paths(x, state):
    """State written on some paths of runtime ifs only."""
    if x.sum() > 0:
        state["pos"] += 1
        if x.max() > 2:
            state["big"] = state["big"] + 1
    else:
        state["neg_total"] += float(x.sum())
    return x * state["pos"]


def some_paths_scenario(wrap):
    state = {"pos": 0, "big": 0, "neg_total": 0.0}
    f = wrap(some_paths)
    outs = [f(np.array(v), state) for v in ([1.0, 3.0], [-1.0, -2.0], [1.0, 1.0], [0.5, 4.0])]
    return outs, state


def metrics_update(logits, labels, metrics):
    """Accuracy counters as ints, a loss sum as a float, in a dict argument."""
    pred = np.argmax(logits, axis=1)
    metrics["correct"] += int((pred == labels).sum())
    metrics["seen"] += len(labels)
    shifted = logits - logits.max(axis=1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    metrics["loss_sum"] += float(-logp[np.arange(len(labels)), labels].sum())
    return metrics["correct"] / metrics["seen"]


def metrics_scenario(wrap):
    rng = np.random.default_rng(9)
    metrics = {"correct": 0, "seen": 0, "loss_sum": 0.0}
    f = wrap(metrics_update)
    outs = [f(rng.standard_normal((5, 3)), rng.integers(0, 3, 5), metrics) for _ in range(4)]
    return outs, metrics


def list_state_step(x, state):
    """State in a list argument: [step, lr, momentum buffer]."""
    state[0] += 1
    state[1] = state[1] * 0.9
    state[2] = 0.5 * state[2] + x
    return x - state[1] * state[2]


def list_state_scenario(wrap):
    state = [0, 1.0, np.zeros(3)]
    f = wrap(list_state_step)
    outs = [f(np.arange(3.0) + i, state) for i in range(4)]
    return outs, state


def kalman_step(z, kf):
    """A 1-D constant-velocity Kalman filter whose state is a dict argument
    (arrays) and a step counter."""
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    x = F @ kf["x"]
    P = F @ kf["P"] @ F.T + kf["q"] * np.eye(2)
    S = H @ P @ H.T + kf["r"]
    K = P @ H.T / S
    kf["x"] = x + (K * (z - H @ x)).ravel()
    kf["P"] = (np.eye(2) - K @ H) @ P
    kf["k"] += 1
    return kf["x"][0]


def kalman_scenario(wrap):
    kf = {"x": np.zeros(2), "P": np.eye(2), "q": 0.01, "r": 0.5, "k": 0}
    f = wrap(kalman_step)
    outs = [f(np.array([z]), kf) for z in (1.0, 2.1, 2.9, 4.2)]
    return outs, kf


# --- numbers that change type ---------------------------------------------------------------

class TypeChanges:
    def __init__(self):
        self.value = 0            # an int that becomes a float
        self.level = 1.5          # a float that becomes an int
        self.count = 0

    def observe(self, x):
        self.value = float(x.mean())
        self.level = int(self.level * 2)
        self.count += True        # int + bool: an int
        return x - self.value


def type_changes_scenario(wrap):
    tc = TypeChanges()
    f = wrap(TypeChanges.observe)
    outs = []
    for i in range(3):
        outs.append(f(tc, np.arange(3.0) * i))
        outs.append((type(tc.value), type(tc.level)))
    return outs, tc


def int_to_float_item(x, state):
    state["scale"] = state["scale"] / 2       # int / int: a float from the first call
    state["n"] += 1
    return x * state["scale"]


def int_to_float_item_scenario(wrap):
    state = {"scale": 8, "n": 0}
    f = wrap(int_to_float_item)
    outs = [f(np.ones(2), state) for _ in range(4)]
    return outs, state


# --- tpucc.grad ----------------------------------------------------------------------------

def _mse(w, x, y):
    return np.mean((x @ w - y) ** 2)


class GradTrainer:
    """A training step differentiating the loss with tpucc.grad; the step
    counter and the running loss are bumped outside the differentiated
    function."""

    def __init__(self, dim):
        self.w = np.zeros(dim)
        self.step = 0
        self.avg_loss = 0.0

    def train(self, x, y, lr=0.1):
        g = tpucc.grad(_mse)(self.w, x, y)
        self.w = self.w - lr * g
        self.step += 1
        loss = float(_mse(self.w, x, y))
        self.avg_loss += (loss - self.avg_loss) / self.step
        return loss


def grad_trainer_scenario(wrap):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((12, 3))
    y = x @ np.array([0.5, -1.0, 2.0])
    t = GradTrainer(3)
    f = wrap(GradTrainer.train)
    outs = [f(t, x, y) for _ in range(4)]
    return outs, t


def value_and_grad_step(w, x, y, state):
    loss, g = tpucc.value_and_grad(_mse)(w, x, y)
    state["step"] += 1
    state["best"] = min(state["best"], float(loss))
    w -= 0.1 * g
    return loss


def value_and_grad_scenario(wrap):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((12, 3))
    y = x @ np.array([0.5, -1.0, 2.0])
    w = np.zeros(3)
    state = {"step": 0, "best": math.inf}
    f = wrap(value_and_grad_step)
    outs = [f(w, x, y, state) for _ in range(4)]
    return outs, (state, w)


class LossMeter:
    """A loss sum kept as what NumPy makes of it: 0.0 + np.float64 is an
    np.float64, and so is every later sum."""

    def __init__(self):
        self.total = 0.0
        self.n = 0

    def add(self, pred, y):
        self.total += np.mean((pred - y) ** 2)
        self.n += 1
        return self.total / self.n


def numpy_scalar_state_scenario(wrap):
    m = LossMeter()
    f = wrap(LossMeter.add)
    outs = [f(m, np.arange(3.0) * i, np.ones(3)) for i in range(4)]
    return outs, m


def numpy_scalar_items(x, log):
    log["loss"] = np.mean(x ** 2)           # a float becomes an np.float64
    log["peak"] = np.maximum(log["peak"], x.max())
    log["steps"] += 1
    return log["loss"] * 2


def numpy_scalar_items_scenario(wrap):
    log = {"loss": 0.0, "peak": np.zeros(()), "steps": 0}
    f = wrap(numpy_scalar_items)
    outs = [f(np.arange(3.0) - i, log) for i in range(4)]
    return outs, log


class GroupSGD:
    """A PyTorch-style optimizer over parameter groups passed as a list of
    dicts, each with its own lr and step count."""

    def __init__(self, momentum=0.5):
        self.momentum = momentum

    def step(self, groups, grads):
        for group, gs in zip(groups, grads):
            group["step"] += 1
            group["lr"] = group["lr"] * group["gamma"]
            for i, (w, g) in enumerate(zip(group["params"], gs)):
                group["buf"][i] = self.momentum * group["buf"][i] + g
                w -= group["lr"] * group["buf"][i]
        return [g["lr"] for g in groups]


def param_groups_scenario(wrap):
    opt = GroupSGD()
    groups = [{"params": [np.ones(3), np.ones(2)], "buf": [np.zeros(3), np.zeros(2)],
               "lr": 0.1, "gamma": 0.9, "step": 0},
              {"params": [np.zeros(4)], "buf": [np.zeros(4)], "lr": 0.01, "gamma": 1.0,
               "step": 0}]
    f = wrap(opt.step)
    outs = []
    for i in range(3):
        grads = [[np.full(3, 1.0 + i), np.full(2, -1.0)], [np.arange(4.0)]]
        outs.append(f(groups, grads))
    return outs, groups


class LineSearch:
    """Backtracking line search counting function evaluations in a runtime
    while (self.evals), the accepted steps after it."""

    def __init__(self):
        self.evals = 0
        self.accepted = 0
        self.last_step = 1.0

    def step(self, w, g):
        t = 1.0
        f0 = np.sum((w - 3.0) ** 2)
        while np.sum((w - t * g - 3.0) ** 2) > f0 - 0.5 * t * np.sum(g * g):
            t = t * 0.5
            self.evals += 1
        self.accepted += 1
        self.last_step = t
        return w - t * g


def line_search_scenario(wrap):
    ls = LineSearch()
    f = wrap(LineSearch.step)
    w = np.zeros(3)
    outs = []
    for _ in range(3):
        w = f(ls, w, 2 * (w - 3.0) * 1.5)
        outs.append(w)
    return outs, ls


def make_polyak(dim):
    """Polyak averaging in a closure: a running mean of the iterates and
    their count, both nonlocal."""
    avg = np.zeros(dim)
    n = 0

    def update(w):
        nonlocal avg, n
        n += 1
        avg = avg + (w - avg) / n
        return avg

    def read():
        return avg, n
    return update, read


def polyak_scenario(wrap):
    update, read = make_polyak(2)
    f = wrap(update)
    outs = [f(np.array([1.0, 2.0]) * i) for i in range(4)]
    return outs, read()


class Toggle:
    """A bool flipped at every call (`self.even = not self.even`)."""

    def __init__(self):
        self.even = True
        self.calls = 0

    def run(self, x):
        self.calls += 1
        self.even = not self.even
        return x * 2 if self.even else x


def toggle_scenario(wrap):
    t = Toggle()
    f = wrap(Toggle.run)
    outs = [f(t, np.arange(2.0)) for _ in range(5)]
    return outs, t


SCENARIOS = {
    "sgd_momentum": sgd_scenario(False),
    "sgd_nesterov": sgd_scenario(True),
    "adamw": adamw_scenario,
    "rmsprop": rmsprop_scenario,
    "adagrad": adagrad_scenario,
    "rmsprop_functional": rmsprop_functional_scenario,
    "kwargs_state": kwargs_state_scenario,
    "cosine_schedule": cosine_scenario,
    "step_decay": step_decay_scenario,
    "ema": ema_scenario,
    "running_loss": running_loss_scenario,
    "welford": welford_scenario,
    "mlp_batchnorm": mlp_batchnorm_scenario,
    "early_stopping": early_stopping_scenario,
    "warmup_flag": warmup_scenario,
    "loss_scaler": loss_scaler_scenario,
    "grad_accumulator": grad_accumulator_scenario,
    "epsilon_greedy": epsilon_greedy_scenario,
    "closure_counter": closure_scenario,
    "global_stats": global_scenario,
    "two_instances": two_instances_scenario,
    "trainer_helpers": trainer_scenario,
    "fit_until": fit_until_scenario,
    "nested_state": nested_state_scenario,
    "some_paths": some_paths_scenario,
    "metrics": metrics_scenario,
    "list_state": list_state_scenario,
    "kalman": kalman_scenario,
    "type_changes": type_changes_scenario,
    "int_to_float_item": int_to_float_item_scenario,
    "grad_trainer": grad_trainer_scenario,
    "value_and_grad": value_and_grad_scenario,
    "numpy_scalar_state": numpy_scalar_state_scenario,
    "numpy_scalar_items": numpy_scalar_items_scenario,
    "param_groups": param_groups_scenario,
    "line_search": line_search_scenario,
    "polyak_closure": polyak_scenario,
    "toggle_flag": toggle_scenario,
}


# --- refused: each names the user's line ----------------------------------------------------

class SGDRebindsOutsideDict:
    """`self.velocity[k] = v` on a dict held by the optimizer: rebound in
    that dict after each call (refused until the end of session 17)."""

    def __init__(self):
        self.velocity = {"w": np.zeros(3)}

    def step(self, p, g):
        for k in p:
            v = 0.9 * self.velocity[k] - 0.1 * g[k]
            self.velocity[k] = v
            p[k] += v
        return p["w"].sum()


class TorchStyleState:
    """A step count in a dict held by the optimizer (torch's
    `self.state[p]["step"] += 1`)."""

    def __init__(self):
        self.state = {"step": 0}

    def step(self, w, g):
        self.state["step"] += 1
        return w - 0.1 * g


def history_in_argument(x, state):
    state["history"].append(float(x.sum()))       # <- refused
    return x


def new_key_in_argument(x, state):
    state["t"] += 1
    state["last"] = x.sum()                       # <- refused
    return x


class StatusString:
    def __init__(self):
        self.status = "idle"
        self.calls = 0

    def run(self, x):
        self.calls += 1
        self.status = "running"                     # <- refused
        return x


class RebindsMomentsDict:
    def __init__(self):
        self.m = {"w": np.zeros(2)}

    def update(self, g):
        self.m = {k: 0.9 * v + g for k, v in self.m.items()}   # <- refused
        return self.m["w"]


class CountsInLoss:
    def __init__(self):
        self.evals = 0

    def loss(self, w, x):
        self.evals += 1                             # <- refused
        return np.sum((x @ w) ** 2)

    def step(self, w, x):
        return w - 0.1 * tpucc.grad(self.loss)(w, x)


def make_counting_loss():
    evals = 0

    def loss(w):
        nonlocal evals
        evals += 1                                  # <- refused
        return np.sum(w ** 2)
    return loss


def _loss_counting_in_argument(w, stats):
    stats["evals"] += 1                           # <- refused
    return np.sum(w ** 2)


def grad_counting_in_argument(w, stats):
    return tpucc.grad(_loss_counting_in_argument)(w, stats)


class Buffer:
    """A size that grows at every call: needed at compile time."""

    def __init__(self):
        self.size = 1

    def grow(self, x):
        self.size += 1
        return np.zeros(self.size) + x.sum()
