import numpy as np
CFG = {"scale": 2.0}

def w_break_in_try(x, n):
    i = 0
    while i < n:
        i += 1
        try:
            x = x + CFG["missing"]
            break
        except KeyError:
            x = x - 1
    return x

def w_return_in_try(x, n):
    i = 0
    while i < n:
        i += 1
        try:
            return x + CFG["missing"]
        except KeyError:
            x = x - 1
    return x

def w_static_break_in_try(x):
    i = 0
    while i < 3:
        i += 1
        try:
            x = x + CFG["missing"]
            break
        except KeyError:
            x = x - 1
    return x

def w_static_continue_in_try(x):
    i = 0
    while i < 3:
        i += 1
        try:
            x = x + CFG["missing"]
            continue
        except KeyError:
            x = x - 1
    return x

def w_retry_until(x, n):
    # retry loop: runtime bound, the success path breaks
    i = 0
    keys = ["missing"]
    while i < n:
        i += 1
        try:
            v = CFG[keys[0]]
            break
        except KeyError:
            x = x * 0.5
    return x
