import numpy as np
CFG = {"scale": 2.0}

def guarded_break_then_raise(x):
    try:
        for k in ["scale", "missing"]:
            if x.sum() > 10:
                break
            x = x + CFG[k]
    except KeyError:
        x = -x
    return x

def guarded_continue_then_raise(x):
    try:
        for k in ["scale", "missing"]:
            if x.sum() > 10:
                continue
            x = x + CFG[k]
    except KeyError:
        x = -x
    return x

def _helper(x):
    for k in ["scale", "missing"]:
        if x.sum() > 10:
            return x * 3
        x = x + CFG[k]
    return x

def guarded_return_then_raise(x):
    try:
        y = _helper(x)
    except KeyError:
        y = -x
    return y

def guarded_break_no_try(x):
    for k in ["scale", "missing"]:
        if x.sum() > 10:
            break
        x = x + CFG[k]
    return x

def runtime_while_static_raise_after_break(x, n):
    # raise after a runtime loop that may exit early
    i = 0
    while i < n:
        if x.sum() > 10:
            break
        x = x + 1
        i += 1
    try:
        y = CFG["missing"]
    except KeyError:
        y = 0.5
    return x * y
