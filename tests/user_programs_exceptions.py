"""Programs with `try`, `except`, `finally` and `with` for
tests/test_exceptions.py: compiled with tpucc and compared with running
them eagerly.  (A module of its own: compiled code containing `assert`
must not be in a test module, which pytest rewrites.)"""
from __future__ import annotations

import contextlib
import types

import numpy as np


class ConfigError(Exception):
    pass


SETTINGS = {"scale": 2.0, "shift": 0.5}


def lookup_default(x):
    try:
        dropout = SETTINGS["dropout"]
    except KeyError:
        dropout = 0.1
    return x * (1 - dropout) + SETTINGS["shift"]


def lookup_found(x):
    try:
        s = SETTINGS["scale"]
    except KeyError:
        s = 1.0
    else:
        s = s + 1.0
    return x * s


def except_as_reads_args(x):
    try:
        SETTINGS["nope"]
    except KeyError as e:
        key = e.args[0]
    return x + len(key)


def tuple_of_classes(x):
    try:
        n = int("not a number")
    except (TypeError, ValueError):
        n = 3
    return x * n


def clause_order(x):
    try:
        getattr(x, "no_such_attribute")
    except KeyError:
        return x - 1
    except AttributeError:
        return x + 1
    except Exception:
        return x * 0
    return x


def _check(cfg):
    if cfg.get("layers", 0) < 1:
        raise ConfigError(f"need layers, got {cfg.get('layers')}")
    return cfg["layers"]


def user_exception_from_callee(x):
    try:
        n = _check({"layers": 0})
    except ConfigError as e:
        n = len(str(e)) % 5 + 1
    return x * n


def finally_runs_on_return(x, state):
    state["calls"] = state["calls"] + 1
    try:
        return x * 2
    finally:
        state["last"] = 1.0


def nested_try(x):
    total = x
    try:
        try:
            total = total + SETTINGS["missing"]
        except AttributeError:
            total = total * 100
        finally:
            total = total + 1
    except KeyError:
        total = total - 10
    return total


def reraise(x):
    try:
        try:
            raise ConfigError("inner")
        except ConfigError:
            x = x + 1
            raise
    except ConfigError as e:
        return x * 10 + len(e.args)


def raise_from(x):
    try:
        try:
            SETTINGS["missing"]
        except KeyError as e:
            raise ValueError("no setting") from e
    except ValueError as e:
        return x + len(str(e))


def bare_except(x):
    try:
        y = [1, 2, 3][10]
    except:         # noqa: E722
        y = -1
    return x * y


def try_in_loop_continue(x, keys):
    total = np.zeros_like(x)
    for k in keys:
        try:
            w = SETTINGS[k]
        except KeyError:
            continue
        total = total + w * x
    return total


def try_around_loop(x):
    out = x.copy()
    try:
        for k in ["scale", "shift", "missing", "never"]:
            out += SETTINGS[k]
            out *= 2
    except KeyError:
        out = out - 1
    return out


def loop_partial_iteration(x):
    out = x.copy()
    try:
        for k in ["scale", "missing"]:
            out[0] = out[0] + 5          # done in the iteration that raises too
            out = out * SETTINGS[k]
    except KeyError:
        pass
    return out


def runtime_if_inside_try(x):
    try:
        scale = SETTINGS["scale"]
        if x.sum() > 0:
            y = x * scale
        else:
            y = x - scale
        z = SETTINGS["missing"]
    except KeyError:
        z = 0.5
        y = y + 1
    return y + z


def runtime_while_inside_try(x, n):
    try:
        i = 0
        while i < n:
            x = x * 0.5 + 1
            i += 1
        x = x + SETTINGS["missing"]
    except KeyError:
        x = x - 3
    return x


def try_under_runtime_if_in_helper(x):
    def safe_scale(v):
        try:
            return v * SETTINGS["missing"]
        except KeyError:
            return v * 3
    if x[0] > 0:
        return safe_scale(x)
    return x


def hasattr_style(x, obj):
    try:
        scale = obj.scale
    except AttributeError:
        scale = 1.5
    return x * scale


class Holder:
    scale = 4.0


class Plain:
    pass


def numpy_static_error(x):
    try:
        np.dtype("not_a_dtype")
    except TypeError:
        return x + 7
    return x


def finally_restores_flag(model, x):
    model.training = False
    try:
        y = model.forward(x)
    finally:
        model.training = True
    return y


class Model:
    def __init__(self):
        self.training = True
        self.w = np.float32(1.5)

    def forward(self, x):
        if self.training:
            return x * self.w + 1
        return x * self.w


# --- with ---------------------------------------------------------------------------

class Scaled:
    """A context manager written in Python: __enter__ and __exit__ traced."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log["entered"] = self.log["entered"] + 1
        return 3.0

    def __exit__(self, exc_type, exc, tb):
        self.log["exited"] = self.log["exited"] + 1
        return False


def with_user_manager(x, log):
    with Scaled(log) as s:
        y = x * s
    return y


def with_return_inside(x, log):
    with Scaled(log) as s:
        if x.shape[0] > 2:
            return x * s
        y = x + s
    return y


def with_runtime_if_inside(x, log):
    with Scaled(log) as s:
        if x.sum() > 0:
            y = x * s
        else:
            y = x - s
    return y


class Swallow:
    def __init__(self, kind):
        self.kind = kind
        self.seen = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.seen = exc_type
        return exc_type is not None and issubclass(exc_type, self.kind)


def with_suppressing_manager(x):
    y = x + 1
    with Swallow(KeyError) as sw:
        y = y * 2
        y = y + SETTINGS["missing"]
    return y if sw.seen is KeyError else -y


def with_suppress(x):
    y = x
    with contextlib.suppress(KeyError):
        y = y + SETTINGS["missing"]
    with contextlib.suppress(KeyError):
        y = y + SETTINGS["scale"]
    return y


def with_not_suppressed_then_caught(x):
    try:
        with Swallow(ValueError):
            x = x + SETTINGS["missing"]
    except KeyError:
        x = x * 5
    return x


def nested_with(x, log):
    with Scaled(log) as a, Scaled(log) as b:
        y = x * a + b
    with np.errstate(divide="ignore"):
        y = y / 2
    return y


class Timer:
    """A manager whose __exit__ returns None (most do)."""

    def __init__(self):
        self.depth = 0

    def __enter__(self):
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1


TIMER = Timer()


def with_global_manager(x):
    with TIMER:
        y = x * 2
    return y, TIMER.depth


def exception_in_with_caught_outside(x, log):
    try:
        with Scaled(log):
            x = x + SETTINGS["missing"]
    except KeyError:
        x = x - 1
    return x


def runtime_assert_in_try(x):
    try:
        assert x.sum() > 0, "negative"
        y = x
    except AssertionError:
        y = -x
    return y


def runtime_raise_in_try_caught_by_base_class(x):
    try:
        if x.sum() > 100:
            raise ValueError("too big")
        y = x
    except Exception:
        y = -x
    return y


def try_inside_runtime_while(x, n):
    i = 0
    while i < n:
        try:
            x = x * SETTINGS["missing"]
        except KeyError:
            x = x * 0.5 + 1
        i += 1
    return x


def try_inside_runtime_if(x):
    if x.sum() > 0:
        try:
            y = x * SETTINGS["missing"]
        except KeyError:
            y = x + 10
    else:
        y = x - 10
    return y


def with_inside_runtime_while(x, n, log):
    i = 0
    while i < n:
        with Scaled(log) as s:
            x = x * 0.5 + s
        i += 1
    return x


def _scaled_loss(w, x):
    try:
        factor = SETTINGS["missing"]
    except KeyError:
        factor = 2.0
    return ((x @ w) * factor).sum() ** 2


def try_inside_grad(w, x):
    import tpucc
    return tpucc.grad(_scaled_loss)(w, x)


def _sum_settings(keys):
    total = 0.0
    for k in keys:
        total += SETTINGS[k]
    return total


def exception_from_callee_loop(x):
    try:
        s = _sum_settings(["scale", "shift", "missing"])
    except KeyError as e:
        s = -1.0 * len(e.args)
    return x * s


class Layer:
    def __init__(self, w, act=None):
        self.w = w
        self.act = act

    def __call__(self, x):
        y = x @ self.w
        try:
            return getattr(np, self.act)(y)
        except TypeError:           # act is None: getattr(np, None)
            return y


def layers_with_optional_activation(x, layers):
    for layer in layers:
        x = layer(x)
    return x


def finally_return_overrides(x):
    try:
        return x + 1
    finally:
        x = x * 3


def loop_break_in_finally_body(x):
    out = x
    for k in ["scale", "missing", "shift"]:
        try:
            out = out + SETTINGS[k]
        except KeyError:
            break
        finally:
            out = out * 2
    return out


# --- @contextlib.contextmanager --------------------------------------------------------

@contextlib.contextmanager
def evaluation(model):
    was = model.training
    model.training = False
    try:
        yield model
    finally:
        model.training = was


def contextmanager_restores_flag(model, x):
    with evaluation(model) as m:
        y = m.forward(x)
    return y + model.forward(x)


@contextlib.contextmanager
def scaled_by(x, factor):
    yield x * factor


def contextmanager_yields_a_runtime_value(x):
    with scaled_by(x, 3.0) as y:
        z = y + 1
    return z


@contextlib.contextmanager
def swallowing(kind, log):
    try:
        yield
    except kind:
        log["swallowed"] = log["swallowed"] + 1


def contextmanager_catches_the_body_exception(x, log):
    with swallowing(KeyError, log):
        x = x + 1
        x = x * SETTINGS["missing"]
    with swallowing(KeyError, log):
        x = x * 2
    return x


def contextmanager_does_not_catch_other_class(x, log):
    try:
        with swallowing(ValueError, log):
            x = x + SETTINGS["missing"]
    except KeyError:
        x = x - 100
    return x


def contextmanager_in_runtime_loop(x, n):
    i = 0
    while i < n:
        with scaled_by(x, 0.5) as half:
            x = half + 1
        i += 1
    return x


@contextlib.contextmanager
def counted(state):
    state["depth"] = state["depth"] + 1
    yield state["depth"]
    state["depth"] = state["depth"] - 1


def nested_contextmanagers(x, state):
    with counted(state) as a:
        with counted(state) as b:
            y = x * a + b
    return y


# --- what a program found missing outside is guarded ----------------------------------

OPTIONS = {"scale": 2.0}


class Options:
    pass


OPTS = Options()


def reads_missing_key(x):
    try:
        d = OPTIONS["dropout"]
    except KeyError:
        d = 0.1
    return x * d


def reads_missing_attribute(x):
    try:
        s = OPTS.scale
    except AttributeError:
        s = 1.0
    return x * s


def dict_get_default(x):
    return x * OPTIONS.get("dropout", 0.1)


def key_in_dict(x):
    return x * 2 if "dropout" in OPTIONS else x


def has_attribute(x):
    return x * OPTS.scale if hasattr(OPTS, "scale") else x


def getattr_default(x):
    return x * getattr(OPTS, "scale", 1.0)


class Defaults:
    training = True
    scale = 4.0

    def forward(self, x):
        return x * self.scale if self.training else x


def class_default_read(model, x):
    return model.forward(x)


class Gain:
    pass


# A module of the program's (not a library's), whose attributes can appear later.
contextlib_free_module = types.ModuleType("user_settings")


def local_instance_missing_attribute(x):
    k = Gain()                      # made in the call: its class is what is guarded
    try:
        return x * k.gain
    except AttributeError:
        return x - 100.0


def module_missing_attribute(x):
    try:
        return x * contextlib_free_module.EXTRA
    except AttributeError:
        return x - 1.0


def import_from_missing(x):
    try:
        from user_programs_exceptions import LATE_IMPORT
    except ImportError:
        LATE_IMPORT = 1.0
    return x * LATE_IMPORT


def name_error_global(x):
    try:
        return x * LATE_GLOBAL      # noqa: F821  (defined later by the test)
    except NameError:
        return x - 1.0
