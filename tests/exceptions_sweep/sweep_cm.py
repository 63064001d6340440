"""@contextlib.contextmanager in compiled code."""
import contextlib
import numpy as np

CFG = {"scale": 2.0}


@contextlib.contextmanager
def scaled(log, s):
    log["enter"] = log["enter"] + 1
    try:
        yield s
    finally:
        log["exit"] = log["exit"] + 1


@contextlib.contextmanager
def swallow(kind):
    try:
        yield
    except kind:
        pass


@contextlib.contextmanager
def convert():
    try:
        yield
    except KeyError as e:
        raise ValueError("converted") from e


@contextlib.contextmanager
def no_try(log):
    log["enter"] = log["enter"] + 1
    yield 3.0
    log["exit"] = log["exit"] + 1          # skipped when the body raises


def cm_basic(x, log):
    with scaled(log, 3.0) as s:
        y = x * s
    return y


def cm_body_raises_finally(x, log):
    try:
        with scaled(log, 3.0) as s:
            y = x * CFG["missing"]
    except KeyError:
        y = x - 1
    return y


def cm_swallow(x):
    y = x
    with swallow(KeyError):
        y = y + 1
        y = y * CFG["missing"]
    return y


def cm_swallow_other_kind(x):
    try:
        with swallow(ValueError):
            y = x * CFG["missing"]
    except KeyError:
        y = x * 0
    return y


def cm_convert(x):
    try:
        with convert():
            y = x * CFG["missing"]
    except ValueError as e:
        y = x + len(str(e))
    return y


def cm_no_try_body_raises(x, log):
    try:
        with no_try(log) as s:
            y = x * CFG["missing"]
    except KeyError:
        y = x
    return y


def cm_in_runtime_while(x, n, log):
    i = 0
    while i < n:
        with scaled(log, 0.5) as s:
            x = x * s + 1
        i += 1
    return x


def cm_in_static_loop_break(x, log):
    for k in ["a", "b", "c"]:
        with scaled(log, 2.0) as s:
            if k == "b":
                break
            x = x * s
    return x


def cm_return_inside(x, log):
    with scaled(log, 2.0) as s:
        return x * s


def cm_nested(x, log):
    with scaled(log, 2.0) as a, scaled(log, 3.0) as b:
        y = x * a + b
    return y


@contextlib.contextmanager
def yields_twice():
    yield 1
    yield 2


def cm_yields_twice(x):
    try:
        with yields_twice() as v:
            y = x * v
    except RuntimeError as e:
        y = x * 0 + len(str(e))
    return y


@contextlib.contextmanager
def runtime_if_inside(x):
    if x.sum() > 0:
        x = x * 2
    yield x


def cm_runtime_if_before_yield(x):
    with runtime_if_inside(x) as y:
        z = y + 1
    return z


@contextlib.contextmanager
def suppress_runtime(flag):
    try:
        yield
    except KeyError:
        if flag.sum() > 100:
            raise


def cm_reraise_under_runtime_if(x):
    try:
        with suppress_runtime(x):
            y = x * CFG["missing"]
        y = x
    except KeyError:
        y = -x
    return y


@contextlib.contextmanager
def gen_raises_before_yield():
    raise ConnectionError("no")
    yield


def cm_raises_before_yield(x):
    try:
        with gen_raises_before_yield():
            y = x + 1
    except ConnectionError:
        y = x - 1
    return y


def cm_as_decorator(x):
    @swallow(KeyError)
    def f():
        return CFG["missing"]
    r = f()
    return x, r
