"""Minimal reproducers from the adversarial stale-result sweep (sweep19).

Run from the repository root:
    JAX_PLATFORMS=cpu PYTHONPATH=. .venv/bin/python tests/known_gaps_session19.py
(session 19 fixed the sets, deques, OrderedDict views, slots, partial, ModuleList
__iter__/__len__/__getitem__/__bool__, np.stack of outside lists, hashable argument
types, the capture-reader crash and subclass missing keys; session 20 the IntEnum
dtype (tests/test_fixes.py) and the nested containers of section 8
(tests/test_nested_guards.py); session 21 the user dunders of section 7, the
reassigned __class__ of section 13 and the replaced functions of section 16
(tests/test_user_dunders.py); the rest print BUG)
Each case returns True when tpucc is correct (a clear TpuccError refusal also
counts as correct); False = stale/wrong value, or a crash (non-tpucc exception).
"""
import os, sys, collections, dataclasses, functools, copy, json, enum, warnings
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np
import tpucc

X = np.arange(4, dtype=np.float32)
XI = np.arange(4, dtype=np.int32)


def check(fn, mutate, args=(X,), steps=1):
    """Compile fn, call, mutate(), call again; compare each call with eager fn."""
    cf = tpucc.compile(fn)
    try:
        for i in range(steps + 1):
            if i:
                mutate()
            got, exp = cf(*args), fn(*args)
            got, exp = np.asarray(got), np.asarray(exp)
            if got.dtype != exp.dtype or got.shape != exp.shape or not np.allclose(got, exp):
                print(f"    call {i}: got {got!r}, eager {exp!r}")
                return False
        return True
    except tpucc.TpuccError as e:
        if isinstance(e, tpucc.InternalError):
            print("    InternalError:", e); return False
        return True     # a refusal is acceptable
    except Exception as e:     # noqa: BLE001
        print(f"    CRASH {type(e).__name__}: {e}")
        return False


def check_args(fn, calls):
    """The same compiled function called with different arguments."""
    cf = tpucc.compile(fn)
    for args in calls:
        got, exp = np.asarray(cf(*args)), np.asarray(fn(*args))
        if got.dtype != exp.dtype or not np.allclose(got, exp):
            print(f"    args {args[1:]!r}: got {got!r}, eager {exp!r}")
            return False
    return True


# --- 1. sets (and frozensets held mutably) are never guarded ---------------
# guard_contents (infer/calls.py) and ContentsGuardView (infer/contents.py)
# only handle list/dict; static_items() does `tuple(v)` for a set with no guard,
# contains() calls guard_contents (a no-op for a set), len() likewise.
def set_len():
    S = {1, 2}
    return check(lambda x: x * len(S), lambda: S.add(3))

def set_in():
    S = {"relu"}
    return check(lambda x: np.tanh(x) if "tanh" in S else x, lambda: S.add("tanh"))

def set_iterate():
    S = {1.0, 2.0}
    def f(x):
        for v in S:
            x = x + v
        return x
    return check(f, lambda: S.add(5.0))


# --- 2. collections.deque: not guarded, its arrays folded as constants -----
def deque_iterate():
    DQ = collections.deque([1.0, 2.0])
    def f(x):
        for v in DQ:
            x = x + v
        return x
    return check(f, lambda: DQ.append(3.0))

def deque_of_arrays_in_place():
    # static_items -> tuple(v): the raw np.ndarray is used as a constant, not captured
    DQ = collections.deque([np.ones(4, np.float32)])
    def f(x):
        for w in DQ:
            x = x * w
        return x
    def m(): DQ[0][:] = 4.0
    return check(f, m)


# --- 3. OrderedDict .items()/.values()/.keys() views -----------------------
# static_items recognises type names "dict_items"/"dict_values"/"dict_keys";
# OrderedDict returns odict_items/odict_values/odict_keys -> tuple(v), no
# guard, arrays read raw (constant-folded).
def odict_values_change():
    OD = collections.OrderedDict(a=1.0, b=2.0)
    def f(x):
        for v in OD.values():
            x = x * v
        return x
    return check(f, lambda: OD.__setitem__("a", 5.0))

def odict_values_array_in_place():
    OD = collections.OrderedDict(w=np.ones(4, np.float32))
    def f(x):
        for w in OD.values():
            x = x * w
        return x
    def m(): OD["w"][:] = 3.0
    return check(f, m)

def odict_keys_add():
    OD = collections.OrderedDict(a=1.0)
    def f(x):
        t = 0
        for k in OD.keys():
            t += len(k)
        return x * t
    return check(f, lambda: OD.__setitem__("ccc", 1.0))


# --- 4. ChainMap (not a dict): no guard ------------------------------------
def chainmap():
    CM = collections.ChainMap({"a": 1.0}, {"b": 2.0})
    return check(lambda x: x * CM["b"], lambda: CM.maps[0].__setitem__("b", 10.0))


# --- 5. __slots__ attributes are never guarded -----------------------------
# calls._guard_attr: `if not isinstance(found, types.MemberDescriptorType)`
# skips the slot descriptor and guards nothing else (no instance __dict__).
def slots_attr():
    class C:
        __slots__ = ("k",)
        def __init__(self): self.k = 2.0
    c = C()
    return check(lambda x: x * c.k, lambda: setattr(c, "k", 3.0))


# --- 6. functools.partial: keywords unguarded, arrays folded ---------------
# calls.Interpreter.call: `self.call(fn.func, list(fn.args) + ..., {**fn.keywords, ...})`
# reads fn.keywords without a contents guard, and passes raw np.ndarrays
# from fn.args/fn.keywords (never capture()d -> constants).
def partial_keywords():
    P = functools.partial(lambda x, a: x * a, a=2.0)
    return check(lambda x: P(x), lambda: P.keywords.__setitem__("a", 5.0))

def partial_array_in_place():
    W = np.ones(4, np.float32)
    P = functools.partial(lambda x, w: x * w, w=W)
    def m(): W[:] = 5.0
    return check(lambda x: P(x), m)


# --- 7. user special methods invoked implicitly run natively, unguarded ----
# len(obj), iter(obj)/for, `in`, obj[i], bool(obj)/`if obj`, ==, sorted (__lt__),
# str/f-string (__str__), float(obj), slicing with __index__, obj * x (__mul__),
# __getattr__, __getattribute__, custom descriptors: CPython calls the user's
# method at trace time; the attributes it reads get no guard.  Only __call__ and
# properties are inlined (calls.Interpreter.call / getattr).  The realistic case
# is a ModuleList-like container of layers:
def modulelist_iter():
    class Scale:
        def __init__(self, s): self.s = s
        def __call__(self, x): return x * self.s
    class ModuleList:
        def __init__(self, mods): self._mods = list(mods)
        def __iter__(self): return iter(self._mods)
    layers = ModuleList([Scale(2.0)])
    def f(x):
        for layer in layers:
            x = layer(x)
        return x
    return check(f, lambda: layers._mods.append(Scale(3.0)))

def user_len():
    class L:
        def __init__(self): self.items = [1, 2]
        def __len__(self): return len(self.items)
    o = L()
    return check(lambda x: x * len(o), lambda: o.items.append(3))

def user_getitem():
    class L:
        def __init__(self): self.items = [1.0]
        def __getitem__(self, i): return self.items[i]
    o = L()
    return check(lambda x: x * o[0], lambda: o.items.__setitem__(0, 9.0))

def user_bool():
    class B:
        on = True
        def __bool__(self): return self.on
    b = B()
    return check(lambda x: x * 2 if b else x, lambda: setattr(b, "on", False))

def user_str_dispatch():
    class Act:
        def __init__(self): self.n = "relu"
        def __str__(self): return self.n
    a = Act()
    return check(lambda x: np.maximum(x - 1, 0) if str(a) == "relu" else x,
                 lambda: setattr(a, "n", "id"))

def dataclass_eq():
    @dataclasses.dataclass
    class Cfg:
        a: float = 1.0
    c = Cfg()
    return check(lambda x: x * (c == Cfg(1.0)), lambda: setattr(c, "a", 2.0))

def user_mul():
    class Sc:
        v = 2.0
        def __mul__(self, o): return o * self.v
    s = Sc()
    return check(lambda x: s * x, lambda: setattr(s, "v", 6.0))

def getattr_hook():
    class AttrDict(dict):
        def __getattr__(self, k): return self[k]
    cfg = AttrDict(s=2.0)
    return check(lambda x: x * cfg.s, lambda: cfg.__setitem__("s", 3.0))

def custom_descriptor():
    class Twice:
        def __get__(self, obj, typ=None): return obj._v * 2
    class H:
        v = Twice()
        def __init__(self): self._v = 1.0
    h = H()
    return check(lambda x: x * h.v, lambda: setattr(h, "_v", 4.0))

def index_slice():
    class N:
        v = 2
        def __index__(self): return self.v
    n = N()
    return check(lambda x: x[:n], lambda: setattr(n, "v", 3))


# --- 8. nested containers handed to native code: only the outer level guarded
# guard_contents guards the identity of the outer list's/dict's items; the
# inner lists' contents are read natively (np.array, str, json, max, ==, in,
# dict |, keys() &) without a guard.
def np_array_of_nested_list():
    LOL = [[1.0, 2.0], [3.0, 4.0]]
    def m(): LOL[1][1] = 40.0
    return check(lambda x: x[:2] @ np.asarray(LOL, np.float32), m)

def fstring_of_nested():
    N = [[1.0]]
    return check(lambda x: x * len(f"{N}"), lambda: N[0].append(10.0))

def json_dumps_nested():
    J = {"a": [1, 2]}
    return check(lambda x: x * len(json.dumps(J)), lambda: J["a"].append(333))

def eq_dict_of_list():
    D = {"a": [1.0]}
    return check(lambda x: x * (D == {"a": [1.0]}), lambda: D["a"].append(2.0))

def max_of_nested():
    LL = [[1.0], [2.0]]
    return check(lambda x: x + max(max(LL)), lambda: LL[0].__setitem__(0, 99.0))

def set_inside_dict():
    ST = {"a": {1, 2}}
    return check(lambda x: x * len(ST["a"]), lambda: ST["a"].add(3))

def dict_or_operator():
    DV = {"a": 1.0}
    return check(lambda x: x * (DV | {"c": 1.0})["a"], lambda: DV.__setitem__("a", 60.0))

def dict_keys_and():
    DV = {"a": 1.0}
    return check(lambda x: x * len(DV.keys() & {"a", "q"}), lambda: DV.__setitem__("q", 1.0))


# --- 9. NumPy functions over outside lists/tuples of arrays: constant-folded
# calls._numpy_call: _any_runtime() is False (the list holds np.ndarrays, not
# Arrays) -> _library_call evaluates np.stack/np.concatenate/np.sum at trace
# time; the arrays are never captured, so in-place updates are not seen.
def np_stack_outside_list():
    WL = [np.ones(4, np.float32), np.ones(4, np.float32)]
    def m(): WL[0][:] = 5.0
    return check(lambda x: x + np.stack(WL).sum(0), m)

def np_sum_attr_tuple():
    class H: pass
    h = H(); h.ws = (np.ones(4, np.float32), np.ones(4, np.float32))
    def m(): h.ws[0][:] = 7.0
    return check(lambda x: x + np.sum(h.ws, axis=0), m)


# --- 10. argument signature keyed by equality for hashable objects ---------
# driver._key: `("S", type(x), x)` for namedtuples (excluded from the tuple
# branch by `_fields`), frozen dataclasses, frozensets: P(1, 2) == P(1.0, 2)
# so the int program is reused for a float field -> wrong dtype (int32
# instead of float64).
def namedtuple_arg_int_vs_float():
    P = collections.namedtuple("P", "a b")
    return check_args(lambda x, p: x * p.a, [(XI, P(1, 2)), (XI, P(1.0, 2))])

def frozen_dataclass_arg_int_vs_float():
    @dataclasses.dataclass(frozen=True)
    class C:
        a: float
    return check_args(lambda x, c: x * c.a, [(XI, C(1)), (XI, C(1.0))])

def frozenset_arg_int_vs_float():
    return check_args(lambda x, s: x * sum(s), [(XI, frozenset({1})), (XI, frozenset({1.0}))])


# --- 11. unhashable non-list/dict arguments keyed by id, mutations unseen ---
# driver._key falls back to ("O", id(x)) for a set, a deque, or a dict whose
# keys are not all str/int (tuple or float keys); the trace registers it in
# argument_containers, whose reads are never guarded ("in the signature").
def set_argument_mutated():
    S = {1, 2}
    cf, f = None, (lambda x, s: x * len(s))
    return check(f, lambda: S.add(3), args=(XI, S))

def tuple_key_dict_argument_mutated():
    D = {(0, 1): 2.0}
    return check(lambda x, d: x * d[(0, 1)], lambda: D.__setitem__((0, 1), 5.0), args=(XI, D))

def deque_argument_mutated():
    DQ = collections.deque([1.0])
    return check(lambda x, d: x * d[0], lambda: DQ.__setitem__(0, 4.0), args=(XI, DQ))


# --- 12. CRASH: captured array replaced by a same-shape non-array ----------
# driver._capture_reader.read: `np.dtype(current.dtype)` on a list/tuple/float
# whose np.shape equals the traced shape -> AttributeError (should RECOMPILE).
def captured_replaced_by_list():
    G = {"w": np.ones(4, np.float32)}
    return check(lambda x: x + G["w"], lambda: G.__setitem__("w", [1.0, 2.0, 3.0, 4.0]))

def captured_0d_replaced_by_float():
    G = {"z": np.array(3.0, np.float32)}
    return check(lambda x: x + G["z"], lambda: G.__setitem__("z", 4.0))


# --- 13. obj.__class__ reassignment not guarded ------------------------------
# _guard_attr guards vars(obj) and the namespaces of the old MRO; nothing
# checks type(obj).  (isinstance(obj, C1) is stale likewise.)
def class_reassigned():
    class C1:
        def f(self, x): return x * 2
    class C2:
        def f(self, x): return x - 5
    o = C1()
    return check(lambda x: o.f(x), lambda: setattr(o, "__class__", C2))


# --- 14. dict/list SUBCLASS: missing key / index past end not guarded -------
# calls._guard_absent_key requires `type(obj) is dict` / `type(obj) is list`.
def odict_keyerror_except():
    OD = collections.OrderedDict()
    def f(x):
        try:
            return x * OD["s"]
        except KeyError:
            return x
    return check(f, lambda: OD.__setitem__("s", 4.0))

def list_subclass_indexerror_except():
    class LS(list): pass
    L = LS([1.0])
    def f(x):
        try:
            return x * L[1]
        except IndexError:
            return x
    return check(f, lambda: L.append(5.0))


# --- 15. other mutable sequences: array.array, bytearray ---------------------
def bytearray_len():
    B = bytearray(b"ab")
    return check(lambda x: x * len(B), lambda: B.append(99))

def array_array_item():
    import array
    A = array.array("d", [1.0, 2.0])
    return check(lambda x: x * A[0], lambda: A.__setitem__(0, 5.0))


# --- 16. function defaults / code replaced (rare) ----------------------------
def kwdefaults_mutated():
    def helper(x, *, s=2.0): return x * s
    def m(): helper.__kwdefaults__["s"] = 8.0
    return check(lambda x: helper(x), m)

def defaults_replaced():
    def helper(x, s=2.0): return x * s
    def m(): helper.__defaults__ = (6.0,)
    return check(lambda x: helper(x), m)

def code_replaced():
    def helper(x): return x * 2
    def m(): helper.__code__ = (lambda x: x * 3).__code__
    return check(lambda x: helper(x), m)


CASES = [v for k, v in list(globals().items()) if callable(v) and getattr(v, "__module__", "") == __name__
         and k not in ("check", "check_args") and not k.startswith("_")]

if __name__ == "__main__":
    warnings.simplefilter("ignore")
    bad = 0
    for case in CASES:
        ok = case()
        bad += not ok
        print(f"{'ok  ' if ok else 'BUG '} {case.__name__}", flush=True)
    print(f"{bad} of {len(CASES)} cases wrong")
