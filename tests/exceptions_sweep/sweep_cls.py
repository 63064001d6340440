import math
import numpy as np

def overflow_pow(x):
    try:
        v = 2.0 ** 10000
    except OverflowError:
        v = -1.0
    return x * v

def overflow_math_exp(x):
    try:
        v = math.exp(1000)
    except OverflowError:
        v = -1.0
    return x * v

def overflow_round_inf(x):
    try:
        v = round(float("inf"))
    except OverflowError:
        v = -1
    return x * v

def lookup_codec(x):
    try:
        "a".encode("no-such-codec")
        v = 1.0
    except LookupError:
        v = 2.0
    return x * v

def import_from_missing(x):
    try:
        from math import no_such_name
        v = 1.0
    except ImportError:
        v = 2.0
    return x * v

def recursion_static(x):
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)
    try:
        d = depth(100000)
    except RecursionError:
        d = -1
    return x * d

def not_implemented_method(x):
    class_ = Base()
    try:
        v = class_.scale()
    except NotImplementedError:
        v = 3.0
    return x * v

class Base:
    def scale(self):
        raise NotImplementedError

def unicode_err(x):
    try:
        b"\xff".decode("utf-8")
        v = 1.0
    except UnicodeDecodeError:
        v = 2.0
    return x * v

def static_np_overflow_int(x):
    try:
        v = np.int8(1000)
    except OverflowError:
        v = np.int8(1)
    return x * v

def float_conversion_overflow(x):
    try:
        v = float(10 ** 400)
    except OverflowError:
        v = 1.0
    return x * v

def static_stopiteration(x):
    try:
        v = next(iter([]))
    except StopIteration:
        v = 2.0
    return x * v
