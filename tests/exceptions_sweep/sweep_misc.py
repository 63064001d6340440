import numpy as np
import contextlib
CFG = {"scale": 2.0}

def use_e_after_except(x):
    try:
        CFG["m"]
    except KeyError as e:
        pass
    return x, str(e)

def optional_import(x):
    try:
        import not_a_real_module_xyz as m
        s = 1.0
    except ImportError:
        s = 2.0
    return x * s

def zip_strict(x):
    try:
        pairs = list(zip([1, 2], [1], strict=True))
    except ValueError:
        pairs = []
    return x * len(pairs)

def counter_int_in_runtime_loop(x, n):
    misses = 0
    i = 0
    while i < n:
        try:
            x = x + CFG["missing"]
        except KeyError:
            misses += 1
        i += 1
    return x, misses

def nonlocal_in_except(x):
    count = 0
    def get(k):
        nonlocal count
        try:
            return CFG[k]
        except KeyError:
            count += 1
            return 1.0
    y = x * get("a") * get("scale") * get("b")
    return y, count

class EnterArr:
    def __init__(self, x):
        self.x = x
    def __enter__(self):
        return self.x * 2
    def __exit__(self, *a):
        self.x = None
        return False

def enter_returns_array(x):
    m = EnterArr(x)
    with m as y:
        z = y + 1
    return z, m.x is None

class ExitRaisesAlways:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        raise ValueError("exit")

def exit_raises_in_runtime_while(x, n):
    i = 0
    while i < n:
        try:
            with ExitRaisesAlways():
                x = x + 1
        except ValueError:
            x = x * 2
        i += 1
    return x

def local_alias_linalgerror(a):
    err = np.linalg.LinAlgError
    try:
        L = np.linalg.cholesky(a)
    except err:
        L = np.zeros_like(a)
    return L

def with_tuple_target(x):
    with contextlib.nullcontext((1.0, 2.0)) as (a, b):
        y = x * a + b
    return y

def str_mul_runtime(x, n):
    try:
        s = "ab" * n
    except TypeError:
        s = "?"
    return x, s

def exception_group_plain_except(x):
    try:
        raise ExceptionGroup("g", [KeyError("k")])
    except ExceptionGroup as eg:
        n = len(eg.exceptions)
    return x * n

def except_base_exception(x):
    try:
        CFG["m"]
    except BaseException as e:
        t = type(e).__name__
    return x, t

def keyboard_interrupt_passthrough(x):
    try:
        try:
            raise KeyboardInterrupt
        except Exception:
            t = "exception"
    except BaseException:
        t = "base"
    return x, t

def raise_non_exception(x):
    try:
        raise 5
    except TypeError as e:
        return x, str(e)

def except_non_class(x):
    try:
        try:
            CFG["m"]
        except "KeyError":
            pass
    except TypeError as e:
        return x, str(e)
    return x, "none"

def raise_in_genexpr_in_try_caught_inside_callee(x):
    def total():
        try:
            return sum(CFG[k] for k in ["scale", "m"])
        except KeyError:
            return -1.0
    return x * total()

def retry_static_while_true(x):
    attempts = 0
    keys = ["a", "b", "scale"]
    while True:
        try:
            v = CFG[keys[attempts]]
        except KeyError:
            attempts += 1
            continue
        else:
            break
        finally:
            x = x + 1
    return x * v, attempts
