"""Programs for test_exceptions_sweep.py (plain module: pytest must not rewrite `assert`)."""
from __future__ import annotations

import contextlib
import math

import numpy as np

import tpucc

CFG = {"scale": 2.0, "shift": 0.5, "layers": 3}


class ConfigError(Exception):
    pass


class CodeError(ValueError):
    def __init__(self, code):
        super().__init__(f"code {code}")
        self.code = code


class SubCodeError(CodeError):
    pass


# ---------------------------------------------------------------- loops + try

def p_static_loop_break_in_try_finally(x):
    out = x.copy()
    n = 0
    for k in ["scale", "shift", "layers"]:
        try:
            out = out + CFG[k]
            if k == "shift":
                break
        finally:
            n += 1
    return out, n


def p_static_loop_continue_in_finally(x):
    out = x
    n = 0
    for k in ["scale", "missing", "shift"]:
        try:
            out = out * CFG[k]
        finally:
            n += 1
            continue
    return out, n


def p_return_in_except_in_loop(x):
    out = x
    for k in ["scale", "missing", "shift"]:
        try:
            out = out + CFG[k]
        except KeyError:
            return out * 10, k
    return out, None


def p_finally_return_swallows(x):
    try:
        y = x * CFG["missing"]
    finally:
        return x - 1


def p_finally_break_swallows(x):
    out = x
    for k in ["scale", "missing", "shift"]:
        try:
            out = out * CFG[k]
        finally:
            break
    return out


def p_try_in_runtime_while_break_in_except(x, n):
    i = 0
    while i < n:
        x = x + 1
        try:
            x = x * CFG["missing"]
        except KeyError:
            break
        i += 1
    return x, i


def p_try_in_runtime_while_continue_in_except(x, n):
    i = 0
    while i < n:
        i += 1
        try:
            x = x * CFG["missing"]
        except KeyError:
            x = x + 1
            continue
        x = x * 100
    return x


def p_try_in_runtime_for_finally(x, n):
    acc = x
    for i in range(n):
        try:
            acc = acc + CFG["scale"]
        finally:
            acc = acc * 0.5
    return acc


def p_try_runtime_for_range_except(x, n):
    acc = x
    for i in range(n):
        try:
            acc = acc + CFG["missing"]
        except KeyError as e:
            acc = acc + len(e.args[0])
    return acc


def p_try_runtime_while_break_in_try_finally(x, n):
    i = 0
    cnt = 0.0
    while i < n:
        try:
            if x.sum() > 100:
                break
            x = x * 2
        finally:
            cnt = cnt + 1
        i += 1
    return x, cnt


def p_runtime_while_continue_in_try_finally(x, n):
    i = 0
    while i < n:
        i += 1
        try:
            x = x + 1
            if x[0] > 3:
                continue
            x = x * 2
        finally:
            x = x - 0.5
    return x


def p_try_around_runtime_while_break(x, n):
    try:
        i = 0
        while True:
            if i >= n:
                break
            x = x + 1
            i += 1
        y = CFG["missing"]
    except KeyError:
        y = -1.0
    return x * y


def p_while_true_static_retry(x):
    keys = ["a", "b", "scale"]
    i = 0
    while True:
        try:
            v = CFG[keys[i]]
            break
        except KeyError:
            i += 1
    return x * v, i


def p_long_static_list_index_error(x):
    vals = [float(i) for i in range(50)]
    i = 0
    out = x
    try:
        while True:
            out = out + vals[i]
            i += 1
    except IndexError:
        pass
    return out, i


def p_long_range_try_counted(x):
    acc = x
    for i in range(100):
        try:
            acc = acc + CFG["missing"]
        except KeyError:
            acc = acc + 0.01
    return acc


def p_for_else_with_try(x):
    for k in ["a", "b"]:
        try:
            v = CFG[k]
            break
        except KeyError:
            continue
    else:
        v = -3.0
    return x * v


# ---------------------------------------------------------------- callees, methods

def _deep3(d):
    return d["missing"] + 1


def _deep2(d):
    return _deep3(d) * 2


def _deep1(d):
    return _deep2(d) - 1


def p_deep_callee(x):
    try:
        v = _deep1(CFG)
    except KeyError as e:
        v = len(str(e))
    return x + v


class Net:
    def __init__(self):
        self.w = np.float32(2.0)
        self.calls = 0

    def act(self, name):
        try:
            return getattr(np, name)
        except AttributeError:
            self.calls += 1
            raise ConfigError(f"no activation {name}")

    def forward(self, x, name):
        try:
            f = self.act(name)
        except ConfigError:
            f = np.tanh
        return f(x * self.w)


def p_method_exception(x, net):
    a = net.forward(x, "relu_xx")
    b = net.forward(x, "exp")
    return a + b, net.calls


# ---------------------------------------------------------------- comprehensions, lambdas

def p_listcomp_raises(x):
    try:
        vals = [CFG[k] for k in ["scale", "missing"]]
    except KeyError:
        vals = [1.0]
    return x * sum(vals)


def p_listcomp_inner_try_helper(x):
    def get(k):
        try:
            return CFG[k]
        except KeyError:
            return 0.0
    vals = [get(k) for k in ["scale", "missing", "shift"]]
    return x * sum(vals)


def p_genexpr_raises(x):
    try:
        s = sum(CFG[k] for k in ["scale", "missing"])
    except KeyError:
        s = -1.0
    return x * s


def _gen(keys):
    for k in keys:
        yield CFG[k]


def p_generator_partial_consume(x):
    out = []
    try:
        for v in _gen(["scale", "shift", "missing"]):
            out.append(v)
    except KeyError:
        pass
    return x * len(out), out


def _gen_try(keys):
    for k in keys:
        try:
            yield CFG[k]
        except KeyError:
            yield 0.0


def p_try_inside_generator(x):
    return x * sum(_gen_try(["scale", "missing", "shift"]))


def p_sorted_key_raises(x):
    try:
        ks = sorted(["scale", "missing"], key=lambda k: CFG[k])
    except KeyError:
        ks = ["none"]
    return x * len(ks), ks


def p_map_lambda_raises(x):
    try:
        vals = list(map(lambda k: CFG[k], ["scale", "zzz"]))
    except KeyError as e:
        vals = [e.args[0]]
    return x, vals


def p_dictcomp_default(x):
    try:
        d = {k: CFG[k] for k in ["scale", "q"]}
    except KeyError:
        d = {"scale": 1.0}
    return x * d["scale"]


def p_max_empty(x):
    try:
        m = max([])
    except ValueError:
        m = 0.5
    return x + m


def p_next_stopiteration(x):
    g = _gen(["scale"])
    a = next(g)
    try:
        b = next(g)
    except StopIteration:
        b = -1.0
    return x * a + b


# ---------------------------------------------------------------- runtime if arms

def p_try_in_else_arm(x):
    if x.sum() > 0:
        y = x * 2
    else:
        try:
            y = x * CFG["missing"]
        except KeyError as e:
            y = x + len(e.args)
    return y


def p_except_body_runtime_if(x):
    try:
        y = x * CFG["missing"]
    except KeyError:
        if x[0] > 0:
            y = x + 1
        else:
            y = x - 1
    return y


def p_finally_runtime_if(x, state):
    try:
        y = x * CFG["scale"]
    finally:
        if x.sum() > 0:
            state["w"] = state["w"] * 2
    return y


def p_runtime_if_in_callee_inside_try(x):
    def helper(v):
        if v.sum() > 0:
            return v * 2
        return v
    try:
        y = helper(x)
        z = CFG["nope"]
    except KeyError:
        z = 1.0
    return y + z


# ---------------------------------------------------------------- re-raise patterns

def p_raise_e(x):
    try:
        try:
            CFG["missing"]
        except KeyError as e:
            x = x + 1
            raise e
    except KeyError as e2:
        return x, e2.args
    return x, None


def p_raise_from_cause(x):
    try:
        try:
            CFG["missing"]
        except KeyError as e:
            raise ValueError("bad cfg") from e
    except ValueError as e:
        return x, type(e.__cause__).__name__, e.__cause__.args
    return x, None, None


def p_context_implicit(x):
    try:
        try:
            CFG["missing"]
        except KeyError:
            raise ValueError("bad cfg")
    except ValueError as e:
        return x, type(e.__context__).__name__
    return x, None


def p_raise_from_none(x):
    try:
        try:
            CFG["missing"]
        except KeyError:
            raise ValueError("bad") from None
    except ValueError as e:
        return x, e.__suppress_context__, e.__cause__ is None
    return x, None, None


def p_raise_type_of_e(x):
    try:
        try:
            int("abc")
        except ValueError as e:
            raise type(e)("wrapped: " + str(e))
    except ValueError as e:
        return x, str(e)


def p_stored_exception_raised_later(x):
    err = None
    for k in ["scale", "missing"]:
        try:
            x = x * CFG[k]
        except KeyError as e:
            err = e
    try:
        if err is not None:
            raise err
    except KeyError as e:
        return x, e is err
    return x, False


def p_exception_attrs(x):
    try:
        raise SubCodeError(7)
    except CodeError as e:
        return (x * e.code, str(e), e.args, type(e).__name__, e.__class__.__name__,
                isinstance(e, ValueError), isinstance(e, SubCodeError),
                type(e) is SubCodeError, issubclass(type(e), LookupError))


def p_keyerror_str_repr(x):
    try:
        CFG["missing"]
    except LookupError as e:
        return x, str(e), repr(e), e.args


def p_except_order_subclass(x):
    out = []
    for exc in (SubCodeError(1), CodeError(2), KeyError("k"), IndexError(0)):
        try:
            raise exc
        except SubCodeError:
            out.append("sub")
        except CodeError as e:
            out.append(e.code)
        except (KeyError, IndexError) as e:
            out.append(type(e).__name__)
    return x, out


def p_raise_class_not_instance(x):
    try:
        raise ConfigError
    except ConfigError as e:
        return x, e.args, str(e)


def p_exception_in_else(x):
    try:
        try:
            v = CFG["scale"]
        except KeyError:
            v = 0.0
        else:
            v = v + CFG["missing"]
    except KeyError:
        v = -5.0
    return x * v


def p_raise_in_finally_replaces(x):
    try:
        try:
            CFG["missing"]
        finally:
            raise ValueError("from finally")
    except KeyError:
        return x, "key"
    except ValueError as e:
        return x, str(e), type(e.__context__).__name__


def p_exception_in_except_body(x):
    try:
        try:
            CFG["missing"]
        except KeyError:
            CFG["other"]
    except KeyError as e:
        return x, e.args, type(e.__context__).__name__


def p_as_name_deleted(x):
    e = 5
    try:
        CFG["missing"]
    except KeyError as e:
        pass
    try:
        return x, e
    except NameError:
        return x, "deleted"
    except UnboundLocalError:
        return x, "unbound"


def p_explicit_del_e(x):
    try:
        CFG["missing"]
    except KeyError as e:
        n = len(e.args)
        del e
    return x * n


def p_static_assert_caught(x):
    try:
        assert x.ndim == 3, "need 3d"
        y = x
    except AssertionError as e:
        y = x.reshape(1, 1, -1)
        msg = str(e)
    return y, msg


def p_add_note(x):
    try:
        try:
            CFG["missing"]
        except KeyError as e:
            e.add_note("while loading")
            raise
    except KeyError as e:
        return x, e.__notes__


# ---------------------------------------------------------------- in-place state

def p_inplace_before_raise(x):
    try:
        x[0] = 5
        x *= 2
        raise ConfigError("after write")
    except ConfigError:
        x[1] = -1
    return x


def p_dict_arg_mutated_try_finally(x, st):
    st["n"] = st["n"] + 1
    try:
        st["w"] += x
        y = st["w"] * CFG["missing"]
    except KeyError:
        st["n"] = st["n"] + 10
        y = st["w"]
    finally:
        st["w"] *= 2
    return y


def p_obj_state_in_except(x, net):
    for k in ["a", "scale", "b"]:
        try:
            net.w = net.w * CFG[k]
        except KeyError:
            net.calls += 1
    return x * net.w


def p_counter_in_runtime_while_except(x, n, net):
    i = 0
    while i < n:
        try:
            x = x * CFG["missing"]
        except KeyError:
            net.calls += 1
            x = x + 1
        i += 1
    return x


def p_global_list_append_in_except(x):
    try:
        CFG["missing"]
    except KeyError:
        LOG.append("miss")
    return x + len(LOG)


LOG = []


# ---------------------------------------------------------------- with

class Rec:
    def __init__(self, log, name="m", suppress=False, fail_enter=False, fail_exit=False):
        self.log, self.name = log, name
        self.suppress, self.fail_enter, self.fail_exit = suppress, fail_enter, fail_exit

    def __enter__(self):
        self.log.append("enter " + self.name)
        if self.fail_enter:
            raise ConfigError("enter " + self.name)
        return self

    def __exit__(self, et, ev, tb):
        self.log.append(f"exit {self.name} {et.__name__ if et else None}")
        if self.fail_exit:
            raise ValueError("exit " + self.name)
        return self.suppress


def p_with_enter_raises(x):
    log = []
    return _p_with_enter_raises(x, log), log


def _p_with_enter_raises(x, log):
    try:
        with Rec(log, "a", fail_enter=True):
            x = x + 1
    except ConfigError as e:
        log.append(str(e))
    return x


def p_with_multi_second_enter_raises(x):
    log = []
    return _p_with_multi_second_enter_raises(x, log), log


def _p_with_multi_second_enter_raises(x, log):
    try:
        with Rec(log, "a"), Rec(log, "b", fail_enter=True):
            x = x + 1
    except ConfigError as e:
        log.append(str(e))
    return x


def p_with_exit_raises(x):
    log = []
    return _p_with_exit_raises(x, log), log


def _p_with_exit_raises(x, log):
    try:
        with Rec(log, "a", fail_exit=True):
            x = x + CFG["missing"]
    except ValueError as e:
        log.append(str(e))
        log.append(type(e.__context__).__name__)
    except KeyError:
        log.append("key")
    return x


def p_with_exit_raises_no_body_exc(x):
    log = []
    return _p_with_exit_raises_no_body_exc(x, log), log


def _p_with_exit_raises_no_body_exc(x, log):
    try:
        with Rec(log, "a", fail_exit=True):
            x = x + 1
    except ValueError as e:
        log.append(str(e))
    return x


def p_with_suppress_nested(x):
    log = []
    return _p_with_suppress_nested(x, log), log


def _p_with_suppress_nested(x, log):
    with Rec(log, "outer"):
        with Rec(log, "inner", suppress=True):
            x = x * 2
            x = x + CFG["missing"]
            x = x * 100
        x = x + 1
    return x


def p_with_in_try_in_with(x):
    log = []
    return _p_with_in_try_in_with(x, log), log


def _p_with_in_try_in_with(x, log):
    with Rec(log, "o"):
        try:
            with Rec(log, "i"):
                x = x + CFG["missing"]
        except KeyError:
            log.append("caught")
            x = x - 1
    return x


def p_with_return_in_loop(x):
    log = []
    return _p_with_return_in_loop(x, log), log


def _p_with_return_in_loop(x, log):
    for k in ["a", "b", "c"]:
        with Rec(log, k):
            if k == "b":
                return x, k
            x = x + 1
    return x, None


def p_with_break_continue(x):
    log = []
    return _p_with_break_continue(x, log), log


def _p_with_break_continue(x, log):
    for k in ["a", "b", "c", "d"]:
        with Rec(log, k):
            if k == "a":
                continue
            if k == "c":
                break
            x = x * 2
    return x


class Count:
    def __init__(self):
        self.n_enter = 0
        self.n_exit = 0

    def __enter__(self):
        self.n_enter += 1
        return self

    def __exit__(self, *exc):
        self.n_exit += 1
        return False


def p_with_in_runtime_while_break(x, n):
    log = 0
    i = 0
    m = Count()
    while i < n:
        with m:
            if x.sum() > 50:
                break
            x = x * 2
        i += 1
    return x, m.n_enter, m.n_exit


class Truthy:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return 1          # truthy non-bool: suppresses


def p_exit_truthy_nonbool(x):
    with Truthy():
        x = x + CFG["missing"]
    return x


class RuntimeSuppress:
    def __init__(self, flag):
        self.flag = flag

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        return self.flag.sum() > 0


def p_exit_runtime_bool(x):
    with RuntimeSuppress(x):
        y = x * CFG["missing"]
    return x


def p_exit_runtime_bool_no_exc(x):
    with RuntimeSuppress(x):
        y = x * CFG["scale"]
    return y


class ExitArgs:
    def __init__(self):
        self.got = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.got = tuple(a is None for a in args)
        return False


def p_exit_args_normal(x):
    m = ExitArgs()
    with m:
        y = x + 1
    return y, m.got


def p_with_as_tuple_unpack(x):
    log = []
    return _p_with_as_tuple_unpack(x, log), log


def _p_with_as_tuple_unpack(x, log):
    with Rec(log, "a") as a, Rec(log, "b") as b:
        x = x + len(a.name + b.name)
    return x


class Resource:
    """enter returns a different object; exit restores state even on exception."""
    def __init__(self, model):
        self.model = model

    def __enter__(self):
        self.prev = self.model.training
        self.model.training = False
        return self.model

    def __exit__(self, *exc):
        self.model.training = self.prev


class M:
    def __init__(self):
        self.training = True
        self.w = np.float32(3.0)


def p_eval_mode_with_exception(x, m):
    try:
        with Resource(m) as mm:
            y = x * mm.w
            if not mm.training:
                raise ConfigError("eval")
    except ConfigError:
        y = y + 1
    return y, m.training


def p_suppress_multiple(x):
    y = x
    with contextlib.suppress(KeyError, IndexError):
        y = y + [1.0][3]
    with contextlib.suppress(LookupError):
        y = y + CFG["q"]
    return y


def p_nullcontext_exc(x):
    try:
        with contextlib.nullcontext(5) as v:
            y = x * v + CFG["missing"]
    except KeyError:
        y = x
    return y


def p_errstate_exception_inside(x):
    try:
        with np.errstate(divide="ignore"):
            y = x / 0
            z = CFG["missing"]
    except KeyError:
        z = 1.0
    return y, z


# ---------------------------------------------------------------- grad

def _loss_try(w, x):
    try:
        s = CFG["missing"]
    except KeyError:
        s = 3.0
    finally:
        pass
    return ((x @ w) * s).sum()


def p_grad_try(w, x):
    return tpucc.grad(_loss_try)(w, x)


def _loss_raise(w, x):
    return (x @ w).sum() * CFG["missing"]


def p_grad_raise_caught_outside(w, x):
    try:
        g = tpucc.grad(_loss_raise)(w, x)
    except KeyError:
        g = w * 0
    return g


def _loss_with(w, x):
    log = []
    with Rec(log, "g"):
        y = (x @ w).sum()
    return y * len(log)


def p_grad_with(w, x):
    return tpucc.grad(_loss_with)(w, x)


# ---------------------------------------------------------------- misc static errors

def p_static_errors_catalog(x):
    out = []
    for kind in range(9):
        try:
            if kind == 0:
                int("x")
            elif kind == 1:
                [].pop()
            elif kind == 2:
                {}.popitem()
            elif kind == 3:
                1 // 0
            elif kind == 4:
                math.sqrt(-1.0)
            elif kind == 5:
                [1, 2].index(3)
            elif kind == 6:
                a, b = [1, 2, 3]
            elif kind == 7:
                "abc" + 1
            else:
                None.foo
        except Exception as e:
            out.append(type(e).__name__)
    return x, out


def p_static_shape_error(x):
    try:
        y = x.reshape(4, 4)
    except ValueError:
        y = x
    return y


def p_matmul_shape_fallback(a, b):
    try:
        y = a @ b
    except ValueError:
        y = a @ b.T
    return y


def p_getattr_default_property(x, obj):
    return x * getattr(obj, "scale", 0.5)


class PropRaises:
    @property
    def scale(self):
        raise AttributeError("no scale yet")


class GetattrFallback:
    def __getattr__(self, name):
        if name.startswith("s"):
            return 7.0
        raise AttributeError(name)


def p_getattr_fallback(x, obj):
    a = getattr(obj, "scale", 1.0)
    b = getattr(obj, "zzz", 2.0)
    return x * a + b, hasattr(obj, "shift"), hasattr(obj, "q")


def p_hasattr_prop_keyerror(x, obj):
    try:
        h = hasattr(obj, "val")
    except KeyError:
        h = "keyerror"
    return x, h


class PropKeyError:
    @property
    def val(self):
        return CFG["missing"]


class LayerN:
    def __init__(self, n):
        if n < 0:
            raise CodeError(n)
        self.n = n


def p_class_init_raises(x):
    Layer = LayerN
    layers = []
    for n in [2, -1, 3]:
        try:
            layers.append(Layer(n))
        except CodeError as e:
            layers.append(Layer(-e.code))
    return x * sum(l.n for l in layers)


def p_exception_class_var(x):
    errs = (KeyError, IndexError)
    try:
        CFG["missing"]
    except errs as e:
        return x, type(e).__name__


def p_global_exception_instance(x):
    try:
        raise GLOBAL_ERR
    except ConfigError as e:
        return x, e is GLOBAL_ERR


GLOBAL_ERR = ConfigError("global")


def p_return_str_of_exc(x):
    try:
        int("12a")
    except ValueError as e:
        s = str(e)
    return x, s


def p_nested_func_closure_exc(x):
    errors = []

    def safe(k):
        try:
            return CFG[k]
        except KeyError as e:
            errors.append(e.args[0])
            return 0.0
    y = x * safe("scale") + safe("a") + safe("b")
    return y, errors


def p_try_except_else_finally_order(x):
    order = []
    for k in ["scale", "missing"]:
        try:
            order.append("try " + k)
            v = CFG[k]
        except KeyError:
            order.append("except")
        else:
            order.append("else")
            x = x * v
        finally:
            order.append("finally")
    return x, order


def p_return_in_try_and_finally_mutation(x, st):
    def inner():
        try:
            return st["a"]
        finally:
            st["a"] = st["a"] + 1
    v = inner()
    return x * v, st["a"]


def p_finally_overrides_exception_return(x):
    def inner():
        try:
            raise ConfigError("x")
        finally:
            return 4.0
    return x * inner()


# ---------------------------------------------------------------- runtime checks refused / wrong
def p_except_valueerror_linalg(a):
    try:
        L = np.linalg.cholesky(a)
    except ValueError:
        L = np.eye(a.shape[0], dtype=a.dtype)
    return L


def p_except_exception_linalg(a):
    try:
        L = np.linalg.inv(a)
    except Exception:
        L = np.zeros_like(a)
    return L


def p_except_arith_errstate(x):
    try:
        with np.errstate(divide="raise"):
            y = 1.0 / x
    except ArithmeticError:
        y = np.zeros_like(x)
    return y


def p_zero_div_runtime_int(x, n):
    try:
        q = 10 // int(n)
    except ZeroDivisionError:
        q = -1
    return x * q


def p_math_domain_runtime(x):
    try:
        r = math.sqrt(float(x[0]))
    except ValueError:
        r = -1.0
    return x * r


def p_int_nan_runtime(x):
    try:
        n = int(x.sum())
    except ValueError:
        n = -1
    return x * n


def p_runtime_check_outside_try_ok(x, i):
    v = x[i]
    try:
        w = CFG["missing"]
    except KeyError:
        w = 1.0
    return v * w


# ================================================================ batch 2

def p_generator_accumulate(x):
    total = x
    try:
        for v in _gen(["scale", "shift", "missing"]):
            total = total + v
    except KeyError:
        pass
    return total


class PropUnsupported:
    @property
    def val(self):
        return np.random.rand()


def p_hasattr_swallows_refusal(x, obj):
    return x, hasattr(obj, "val")


class PropAttrErr:
    @property
    def val(self):
        raise AttributeError("val")


def p_getattr_default_prop(x, obj):
    return x * getattr(obj, "val", 2.0)


def p_hasattr_prop_attrerror(x, obj):
    return x, hasattr(obj, "val")


def p_latch_continue_in_try(x, n):
    i = 0
    while i < n:
        i += 1
        try:
            x = x + CFG["scale"]
            if i > 100:
                pass
            continue
        except KeyError:
            x = x - 1
    return x


def p_latch_continue_in_try_raising(x, n):
    i = 0
    while i < n:
        i += 1
        try:
            x = x + CFG["missing"]
            continue
        except KeyError:
            x = x - 1
    return x


def p_latch_for_continue_in_try(x, n):
    for i in range(n):
        try:
            x = x * CFG["missing"]
        except KeyError:
            x = x + 1
            continue
        finally:
            x = x * 0.5
    return x


def p_latch_for_try_body_last(x, n):
    for i in range(n):
        try:
            x = x + 1
            x = x * CFG["missing"]
        except KeyError:
            pass
    return x


def p_while_try_at_body_start(x, n):
    i = np.int64(0)
    while i < n:
        try:
            x = x * CFG["missing"]
        except KeyError:
            x = x + 2
        finally:
            i += 1
    return x


def p_static_while_becomes_runtime_try(x):
    i = 0
    while i < 40:
        try:
            x = x + CFG["missing"]
        except KeyError:
            x = x + 1
        i += 1
    return x


def p_static_for_40_keys(x):
    keys = [("scale" if j % 3 else "missing") for j in range(40)]
    misses = 0
    for k in keys:
        try:
            x = x + CFG[k]
        except KeyError:
            misses += 1
    return x, misses


def p_raising_iteration_runtime_if(x):
    try:
        for k in ["scale", "missing"]:
            if x.sum() > 0:
                x = x * 2
            else:
                x = x - 1
            x = x + CFG[k]
    except KeyError:
        pass
    return x


def p_return_under_runtime_if_in_finally_try(x, st):
    try:
        if x.sum() > 0:
            return x * 2
        y = x - 1
    finally:
        st["n"] = st["n"] + 1
    return y


def p_return_under_runtime_if_in_with(x):
    m = Count()
    y = _ret_in_with(x, m)
    return y, m.n_enter, m.n_exit


def _ret_in_with(x, m):
    with m:
        if x.sum() > 0:
            return x * 2
        y = x - 1
    return y


def p_global_counter_finally(x):
    global CALLS
    try:
        return x * CFG["missing"]
    except KeyError:
        return x
    finally:
        CALLS += 1


CALLS = 0


def _loss_runtime_if_try(w, x):
    s = (x @ w).sum()
    if s > 0:
        try:
            f = CFG["missing"]
        except KeyError:
            f = 2.0
        s = s * f
    return s * s


def p_grad_try_in_runtime_if(w, x):
    return tpucc.value_and_grad(_loss_runtime_if_try)(w, x)


class SuppressAll:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def _loss_suppress(w, x):
    y = (x @ w).sum()
    with SuppressAll():
        y = y * 2
        y = y + CFG["missing"]
    return y


def p_grad_suppress(w, x):
    return tpucc.grad(_loss_suppress)(w, x)


def p_sorted_mixed_types(x):
    try:
        s = sorted([3, "a", 1])
    except TypeError as e:
        s = [0]
    return x * len(s)


def p_parse_ints(x):
    n = 0
    bad = []
    for s in ["1", "x", "3", "4.5"]:
        try:
            n += int(s)
        except ValueError:
            bad.append(s)
    return x * n, bad


def p_nested_get(x):
    cfg = {"opt": {"lr": 0.1}}
    try:
        mom = cfg["opt"]["momentum"]
    except KeyError as e:
        mom = 0.9 if e.args[0] == "momentum" else 0.0
    return x * mom


def p_local_dict_del(x):
    d = {"a": 1.0}
    try:
        del d["b"]
    except KeyError:
        d["b"] = 2.0
    try:
        v = d.pop("c")
    except KeyError:
        v = d.pop("a")
    return x * v, d


def p_list_remove(x):
    xs = [1.0, 2.0]
    try:
        xs.remove(5.0)
    except ValueError:
        xs.append(7.0)
    return x * sum(xs), xs


class StrErr(Exception):
    def __str__(self):
        return "custom!"


def p_custom_str(x):
    try:
        raise StrErr(1, 2)
    except StrErr as e:
        return x, str(e), e.args, repr(e)


class NoSuperInit(Exception):
    def __init__(self, v):
        self.v = v


def p_no_super_init(x):
    try:
        raise NoSuperInit(3)
    except NoSuperInit as e:
        return x * e.v, e.args


def p_multi_args(x):
    try:
        raise ValueError("bad", 3)
    except ValueError as e:
        return x * e.args[1], str(e)


def p_exc_info(x):
    import sys
    try:
        CFG["missing"]
    except KeyError:
        t = sys.exc_info()[0]
    return x, t is KeyError


def p_traceback_not_none(x):
    try:
        CFG["missing"]
    except KeyError as e:
        tb = e.__traceback__ is not None
    return x, tb


def p_with_exit_raises_in_loop(x):
    done = 0
    try:
        for k in ["a", "b", "c"]:
            with Rec([], k, fail_exit=(k == "b")):
                x = x + 1
            done += 1
    except ValueError:
        pass
    return x, done


def p_enter_raises_nested_outer_exit(x):
    log = []
    try:
        with Rec(log, "outer"):
            with Rec(log, "inner", fail_enter=True):
                x = x + 100
    except ConfigError:
        log.append("caught")
    return x, log


def p_manager_init_raises(x):
    try:
        with BadInit():
            x = x + 1
    except TypeError:
        x = x - 1
    return x


class BadInit:
    def __init__(self):
        raise TypeError("no")

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def p_try_else_break(x):
    n = 0
    for k in ["missing", "scale", "shift"]:
        try:
            v = CFG[k]
        except KeyError:
            n += 1
        else:
            x = x * v
            break
    return x, n


def p_three_deep_order(x):
    order = []
    try:
        try:
            try:
                order.append(1)
                CFG["missing"]
            finally:
                order.append(2)
        except ValueError:
            order.append(3)
        finally:
            order.append(4)
    except KeyError:
        order.append(5)
    else:
        order.append(6)
    finally:
        order.append(7)
    return x, order


def p_bare_except_reraise_other(x):
    try:
        try:
            int("q")
        except KeyError:
            pass
        except:            # noqa: E722
            raise
    except ValueError as e:
        return x, str(e)


def p_return_try_else(x):
    try:
        v = CFG["scale"]
    except KeyError:
        return x
    else:
        return x * v
    finally:
        x = x + 100


def p_swallow_exc_and_mutation(x, st):
    for k in ["a", "scale"]:
        try:
            st["hits"] += 1
            st["w"] = st["w"] * CFG[k]
        except KeyError:
            st["miss"] += 1
    return x * st["w"]


def p_inplace_arr_arg_then_raise_finally(x, acc):
    try:
        acc[0] += 10
        acc *= 2
        y = acc * CFG["missing"]
    except KeyError:
        acc[-1] = -1
        y = acc.sum()
    finally:
        acc += 1
    return y


def p_exception_in_property_caught(x, obj):
    try:
        v = obj.val
    except KeyError:
        v = 1.5
    return x * v


def p_partial_call_raises(x):
    import functools
    f = functools.partial(_lookup_scale, CFG)
    try:
        v = f("missing")
    except KeyError:
        v = f("scale")
    return x * v


def _lookup_scale(cfg, k):
    return cfg[k]


def p_exception_in_runtime_loop_callee(x, n):
    def step(v):
        try:
            return v * CFG["missing"]
        except KeyError:
            return v + 1
    i = 0
    while i < n:
        x = step(x)
        i += 1
    return x


def p_runtime_index_in_else(x, i):
    try:
        v = CFG["scale"]
    except KeyError:
        v = 0.0
    else:
        v = x[i] * v
    return v


def p_runtime_index_in_except_body(x, i):
    try:
        v = CFG["missing"]
    except KeyError:
        v = x[i]
    return v


def p_runtime_index_in_callee_in_try(x, i):
    def get(a, j):
        return a[j]
    try:
        v = get(x, i)
    except IndexError:
        v = x[0]
    return v


def p_custom_suppress_runtime_index(x, i):
    v = x[0]
    with SuppressAll():
        v = x[i]
    return v


def p_custom_suppress_runtime_assert(x):
    y = x
    with SuppressAll():
        assert x.sum() > 100, "small"
        y = x * 2
    return y


def p_exit_returns_runtime_array(x):
    with RuntimeSuppress(x):
        y = x + 1
    return y


def p_with_suppress_indexerror_runtime(x, i):
    v = x[0]
    with contextlib.suppress(IndexError):
        v = x[i]
    return v


def p_with_cm_in_runtime_for_suppress(x, n):
    for i in range(n):
        with SuppressAll():
            x = x + 1
            x = x * CFG["missing"]
    return x


def p_uncaught_through_exit_location(x):
    with Count():
        y = x * CFG["missing"]
    return y


def p_uncaught_from_except_body(x):
    try:
        CFG["missing"]
    except KeyError:
        y = x * CFG["other"]
    return y


def p_bare_raise_location(x):
    try:
        y = x * CFG["missing"]
    except KeyError:
        raise
    return y


def p_raise_no_active(x):
    raise


def p_finally_continue_in_runtime_for(x, n):
    for i in range(n):
        try:
            x = x * CFG["missing"]
        finally:
            x = x + 1
            continue
    return x


def p_try_in_runtime_if_return_in_except(x):
    if x.sum() > 0:
        try:
            y = x * CFG["missing"]
        except KeyError:
            return x * 3
    else:
        y = x
    return y - 1


def p_isinstance_tuple_exc(x):
    out = []
    for f in (lambda: CFG["m"], lambda: [][1], lambda: int("z")):
        try:
            f()
        except Exception as e:
            out.append((isinstance(e, LookupError), isinstance(e, (KeyError, ValueError))))
    return x, out


def p_exc_in_dict_values(x):
    errs = {}
    for k in ["a", "scale", "b"]:
        try:
            CFG[k]
        except KeyError as e:
            errs[k] = e
    return x * len(errs), sorted(errs), [type(v).__name__ for v in errs.values()]


def p_exc_equality(x):
    try:
        raise GLOBAL_ERR
    except ConfigError as e:
        a = e
    try:
        raise GLOBAL_ERR
    except ConfigError as e:
        b = e
    return x, a is b


def p_exception_args_modified(x):
    try:
        try:
            CFG["missing"]
        except KeyError as e:
            e.args = ("renamed",)
            raise
    except KeyError as e:
        return x, e.args


def p_try_finally_in_method_loop(x, net):
    for _ in range(3):
        net.forward_safe = True
        try:
            x = x * net.w
            net.calls += 1
        finally:
            net.forward_safe = False
    return x


def p_loop_over_exceptions_classes(x):
    caught = []
    for cls in (KeyError, ValueError, ConfigError):
        try:
            raise cls("m")
        except (KeyError, ConfigError) as e:
            caught.append(cls.__name__)
        except Exception:
            caught.append("other")
    return x, caught


def p_exception_from_np_static(x):
    out = []
    try:
        np.zeros(3).reshape(4)
    except ValueError:
        out.append("reshape")
    try:
        np.concatenate([np.zeros(2), np.zeros((2, 2))])
    except ValueError:
        out.append("concat")
    try:
        np.dtype("zzz")
    except TypeError:
        out.append("dtype")
    return x, out


def p_np_int_static(x):
    try:
        v = int(np.float64("nan"))
    except ValueError:
        v = 3
    return x * v


def p_exception_in_lambda_default(x):
    f = lambda k, d=CFG: d[k]   # noqa: E731
    try:
        v = f("missing")
    except KeyError:
        v = f("shift")
    return x + v


def p_exc_in_map_lazy(x):
    m = map(lambda k: CFG[k], ["scale", "missing"])
    out = []
    try:
        for v in m:
            out.append(v)
    except KeyError:
        pass
    return x, out


def p_exc_in_zip_gen(x):
    out = []
    try:
        for a, b in zip([1.0, 2.0, 3.0], _gen(["scale", "missing", "shift"])):
            out.append(a * b)
    except KeyError:
        pass
    return x, out
