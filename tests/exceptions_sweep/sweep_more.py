import numpy as np
CFG = {"scale": 2.0}

class ConfigError(Exception):
    pass

def finally_runtime_if_state(x, st):
    # a cleanup that conditionally records, while a static KeyError is pending
    try:
        try:
            y = x * CFG["lr"]
        finally:
            if x.max() > 3:
                st["clipped"] = st["clipped"] + 1.0
    except KeyError:
        y = x * 0.1
    return y

class CondExit:
    def __init__(self, st, x):
        self.st, self.x = st, x
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        if self.x.max() > 3:
            self.st["clipped"] = self.st["clipped"] + 1.0
        return False

def with_exit_runtime_if_exc_pending(x, st):
    try:
        with CondExit(st, x):
            y = x * CFG["lr"]
    except KeyError:
        y = x * 0.1
    return y

class TbExit:
    def __init__(self):
        self.had_tb = None
    def __enter__(self):
        return self
    def __exit__(self, et, ev, tb):
        self.had_tb = tb is not None
        return True

def exit_gets_traceback(x):
    m = TbExit()
    with m:
        y = x * CFG["lr"]
    return x, m.had_tb

def raised_traceback(x):
    try:
        raise ConfigError("x")
    except ConfigError as e:
        t = e.__traceback__ is not None
    return x, t

def exit_gets_same_exc_object(x):
    m = Keep()
    try:
        with m:
            raise ConfigError("k")
    except ConfigError as e:
        same = e is m.ev
    return x, same

class Keep:
    def __enter__(self):
        return self
    def __exit__(self, et, ev, tb):
        self.ev = ev
        return False


def inplace_in_runtime_loop_before_raise(x, n):
    i = 0
    while i < n:
        try:
            x[0] += 1
            x *= 2
            v = CFG["missing"]
        except KeyError as e:
            x[1] -= len(e.args)
        i += 1
    return x.sum()


def inplace_static_loop_partial_then_caught(x):
    try:
        for k in ["scale", "missing", "scale"]:
            x[2] += CFG.get(k, 0.0)
            x[0] = x[0] * CFG[k]
    except KeyError:
        x[1] = 100.0
    return x


def nested_try_in_runtime_for_in_runtime_while(x, n):
    i = 0
    while i < n:
        for j in range(n):
            try:
                try:
                    x = x + CFG["missing"]
                finally:
                    x = x * 0.5
            except KeyError:
                x = x + 1
        i += 1
    return x
