import numpy as np
CFG = {"scale": 2.0}

def bare_raise_in_runtime_if(x):
    try:
        y = CFG["missing"]
    except KeyError:
        if x.sum() > 0:
            raise
        y = 1.0
    return x * y

def bare_raise_in_runtime_if_outer(x):
    try:
        try:
            y = CFG["missing"]
        except KeyError:
            if x.sum() > 100:
                raise
            y = 1.0
    except KeyError:
        y = -1.0
    return x * y

def raise_e_in_runtime_if_outer(x):
    try:
        try:
            y = CFG["missing"]
        except KeyError as e:
            if x.sum() > 100:
                raise e
            y = 1.0
    except KeyError:
        y = -1.0
    return x * y

class RuntimeSuppress:
    def __init__(self, flag):
        self.flag = flag
    def __enter__(self):
        return self
    def __exit__(self, et, ev, tb):
        return self.flag.sum() > 100

def exit_runtime_bool_outer(x):
    try:
        with RuntimeSuppress(x):
            y = x * CFG["missing"]
        y = x
    except KeyError:
        y = -x
    return y

def finally_runtime_if_after_exc(x):
    # finally with a runtime if, exception pending, caught outside
    try:
        try:
            y = x * CFG["missing"]
        finally:
            if x.sum() > 100:
                x = x * 2
    except KeyError:
        y = x
    return y

def return_in_runtime_if_in_finally_swallow(x):
    def inner(v):
        try:
            return v * CFG["missing"]
        finally:
            if v.sum() > 100:
                return v * 2
    try:
        y = inner(x)
    except KeyError:
        y = -x
    return y

def break_in_runtime_if_in_finally(x):
    out = x
    try:
        for k in ["scale", "missing"]:
            try:
                out = out * CFG[k]
            finally:
                if x.sum() > 100:
                    break
    except KeyError:
        out = -out
    return out
