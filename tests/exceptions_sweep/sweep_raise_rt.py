import numpy as np
CFG = {"scale": 2.0}

class ConfigError(Exception):
    pass

def _check(cfg):
    if "lr" not in cfg:
        raise ConfigError("no lr")
    return cfg["lr"]

def raise_in_try_in_runtime_while(x, n):
    i = 0
    while i < n:
        try:
            lr = _check(CFG)
        except ConfigError:
            lr = 0.1
        x = x - lr
        i += 1
    return x

def raise_in_try_in_runtime_if(x):
    if x.sum() > 0:
        try:
            raise ValueError("static")
        except ValueError:
            y = x + 1
    else:
        y = x
    return y

def raise_in_try_in_runtime_for(x, n):
    for i in range(n):
        try:
            raise KeyError("k")
        except KeyError:
            x = x * 2
    return x

def raise_custom_in_try_in_runtime_for(x, n):
    for i in range(n):
        try:
            raise ConfigError("k")
        except ConfigError:
            x = x * 2
    return x

def assert_static_in_try_in_runtime_while(x, n):
    i = 0
    while i < n:
        try:
            assert x.ndim == 2, "need 2d"
        except AssertionError:
            x = x + 1
        i += 1
    return x

def local_alias_linalgerror(a):
    err = np.linalg.LinAlgError
    try:
        L = np.linalg.cholesky(a)
    except err:
        L = np.zeros_like(a)
    return L
