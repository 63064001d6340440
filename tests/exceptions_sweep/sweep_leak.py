import numpy as np
NAMES = ("relu", "tanh", "gelu")
SCALES = [1.0, 2.0, 3.0]

def fstring_runtime(x):
    try:
        s = f"{float(x[0]):.2f}"
    except Exception:
        s = "?"
    return x, s

def str_runtime(x):
    try:
        s = str(x.sum())
    except Exception:
        s = "?"
    return x, s

def tuple_index_runtime(x, i):
    try:
        name = NAMES[i]
    except Exception:
        name = "?"
    return x, name

def list_index_runtime(x, i):
    try:
        s = SCALES[i]
    except TypeError:
        s = -1.0
    return x * s

def dict_key_runtime(x, i):
    d = {0: 1.0, 1: 2.0}
    try:
        s = d[i]
    except (KeyError, TypeError):
        s = -1.0
    return x * s

def list_mul_runtime(x, n):
    try:
        xs = [1.0] * n
    except TypeError:
        xs = [2.0]
    return x * len(xs)

def range_float(x):
    try:
        r = list(range(2.5))
    except TypeError:
        r = [0]
    return x * len(r)

def hash_array(x):
    try:
        d = {x: 1}
    except TypeError:
        d = {}
    return x, len(d)

def bool_of_array(x):
    try:
        if x:
            y = 1.0
        else:
            y = 2.0
    except ValueError:
        y = 3.0
    return x * y

def int_of_array(x):
    try:
        n = int(x)
    except TypeError:
        n = 7
    return x * n

def len_of_scalar(x):
    try:
        n = len(x.sum())
    except TypeError:
        n = 5
    return x * n

def isinstance_runtime_bool(x):
    try:
        v = {True: 1.0, False: 2.0}[bool(x.sum() > 0)]
    except KeyError:
        v = 3.0
    return x * v

def min_of_mixed(x):
    try:
        m = min(x.sum(), 1.0)
    except TypeError:
        m = 0.0
    return x * m

def iter_runtime_scalar(x):
    try:
        for v in x.sum():
            pass
        y = 1.0
    except TypeError:
        y = 2.0
    return x * y

def runtime_int_list_index(x, i):
    xs = [x, x * 2, x * 3]
    try:
        y = xs[int(i)]
    except IndexError:
        y = x
    return y

def runtime_str_compare(x):
    try:
        ok = x.sum() < "a"
    except TypeError:
        ok = False
    return x, ok
