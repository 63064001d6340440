"""A random program generator for differential fuzzing of tpucc.

`generate(seed)` writes a random, valid NumPy-style Python function as source
text: arithmetic across bool/int32/int64/float32/float64 arrays and Python
scalars with broadcasting, reductions, static and runtime `if`/`elif`/`else`,
runtime `while` loops and `for` over static and runtime ranges with
`break`/`continue`/early `return`, in-place updates, helper functions, tuples
and lists, `np.where`, `np.maximum`, `.astype`, NumPy scalar literals
(`np.float32(1.5)`), `**`, `@`, `np.dot`/`np.outer`/`np.concatenate`/`np.stack`,
cumulative sums, reversals, rounding and more reductions (argmin, std, var).

Types are tracked by evaluating every generated expression with NumPy itself
on "dummy" values (arrays of ones of the right shape and dtype), so the dtype
rules are NumPy's own.  Every variable keeps one shape and dtype: a
reassignment is coerced (`np.broadcast_to(...)`, `.astype(...)`) to the
variable's type.  Programs of category "merge" deliberately break that rule in
a runtime branch and are expected to raise `tpucc.MergeError`.

A program is a tree of `Stmt`s so the shrinker in run.py can delete
statements and flatten branches; `Program.source()` renders it."""
from __future__ import annotations

import copy
import itertools
import os
import random
import types
import tempfile
import warnings
from dataclasses import dataclass, field

import numpy as np

DTYPES = ("bool", "int32", "int64", "float32", "float64")
SHAPES = ((3,), (2, 3), (1, 3), ())
ALLOWED = {np.dtype(d) for d in DTYPES}
_counter = itertools.count()


# ---------------------------------------------------------------------------
# Program tree
# ---------------------------------------------------------------------------

@dataclass
class Stmt:
    """One statement: `head` is a line (`x = ...`, `if c:`, `while c:`);
    a compound statement has `body` and, for `if`, `orelse` (a list of
    statements, or a single nested `if` Stmt rendered as `elif`)."""
    head: str | None
    body: list | None = None
    orelse: list | None = None
    pinned: bool = False          # never removed by the shrinker (loop counters)

    def render(self, out: list, ind: str, kw: str = ""):
        if self.head is None:                 # a group: body at this level
            _render_block(self.body, out, ind)
            return
        out.append(ind + kw + self.head)
        if self.body is not None:
            _render_block(self.body, out, ind + "    ")
        if not self.orelse:
            return
        first = self.orelse[0]
        if len(self.orelse) == 1 and (first.head or "").startswith("if ") and first.body is not None:
            first.render(out, ind, "el")         # an elif chain
        else:
            out.append(ind + "else:")
            _render_block(self.orelse, out, ind + "    ")


def _render_block(stmts, out, ind):
    if not stmts:
        out.append(ind + "pass")
    for s in stmts:
        s.render(out, ind)


@dataclass
class Function:
    name: str
    params: list
    body: list
    ret: str                       # the final `return ...` line (without "return ")

    def render(self) -> str:
        out = [f"def {self.name}({', '.join(self.params)}):"]
        _render_block(self.body, out, "    ")
        out.append(f"    return {self.ret}")
        return "\n".join(out) + "\n"


@dataclass
class Program:
    seed: int
    helpers: list
    main: Function
    args: list                     # argument values (NumPy arrays)
    category: str = "valid"        # "valid" or "merge"
    expect_compile: bool = True
    expect_error: str | None = None    # name of the tpucc error class expected
    uses_float32: bool = False
    fn: object = field(default=None, repr=False)
    path: str | None = None

    def source(self) -> str:
        parts = ["import numpy as np", "", "", "class Box:", "    pass", "", ""]
        for h in self.helpers:
            parts += [h.render(), ""]
        parts.append(self.main.render())
        return "\n".join(parts)

    def build(self, directory: str | None = None):
        """Writes the source to a temp .py file, compiles it with that file
        name (so tracebacks and tpucc's error lines work) and execs it."""
        src = self.source()
        directory = directory or os.path.join(tempfile.gettempdir(), "tpucc_fuzz")
        os.makedirs(directory, exist_ok=True)
        self.path = os.path.join(directory, f"prog_{self.seed}_{os.getpid()}_{next(_counter)}.py")
        with open(self.path, "w") as f:
            f.write(src)
        ns = {"__name__": f"tpucc_fuzz_{self.seed}"}
        exec(compile(src, self.path, "exec"), ns)
        self.fn = ns[self.main.name]
        return self.fn

    def copy(self) -> "Program":
        p = copy.deepcopy(Program(self.seed, self.helpers, self.main, self.args,
                                  self.category, self.expect_compile, self.expect_error,
                                  self.uses_float32))
        return p


# ---------------------------------------------------------------------------
# Typing by evaluation on dummies
# ---------------------------------------------------------------------------

def _dummy(shape, dtype):
    return np.ones(shape, dtype=dtype)


def _typeof(src, env, ns):
    """Evaluates `src` on dummy values; returns the dummy result or None if
    NumPy rejects it or it leaves the dtypes we test."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            v = eval(src, ns, dict(env))
    except Exception:
        return None
    if isinstance(v, (bool, int, float)) and not isinstance(v, np.generic):
        return v
    if isinstance(v, (np.ndarray, np.generic)):
        if v.dtype in ALLOWED and v.size <= 64:
            return v
    return None


def _snap(src):
    """Float source rounded to 4 decimals before a cast to int or bool: the
    cast is a cliff (truncation, zero or not) and XLA's float results may be
    an ulp off NumPy's (it divides by a constant as a multiply by the
    reciprocal: np.var of equal values is 4e-14, not 0, seed 179188).  The
    generator's values are quarters, so the rounding changes nothing else."""
    return f"np.round({src}, 4)"


def _is_arr(v):
    return isinstance(v, (np.ndarray, np.generic))


def _dt(v):
    return np.asarray(v).dtype


def _lit(rng, kind=None):
    kind = kind or rng.choice(["int", "int", "float", "float", "bool"])
    if kind == "int":
        return str(rng.randint(-3, 4))
    if kind == "float":
        return repr(rng.choice([0.5, 1.5, 2.0, -0.25, 0.75, 3.0, -1.5, 0.125]))
    return rng.choice(["True", "False"])


# ---------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------

class Gen:
    def __init__(self, rng: random.Random):
        self.rng = rng
        self.ns = {"np": np}
        self.names = itertools.count()
        self.helpers: list = []
        self.helper_sigs: list = []   # (name, [param dummies], result dummy)
        self.stmt_budget = 0
        self.cnt_by_closure = False     # generate() decides, for main only

    # ------------------------------------------------------------ expressions
    def vars_of(self, env, pred=lambda v: True):
        return [k for k, v in env.items() if not k.startswith("_") and pred(v)]

    def targets(self, env, pred):
        """Variables a statement may assign to (not the loop bound `n`)."""
        return [k for k in self.vars_of(env, pred) if k != "n"]

    def expr(self, env, depth=2):
        """Random expression: returns (src, dummy), typed bottom-up."""
        return self._expr(env, depth)

    def arr_expr(self, env, depth=2, min_ndim=0):
        for _ in range(20):
            src, d = self.expr(env, depth)
            if _is_arr(d) and np.ndim(d) >= min_ndim:
                return src, d
        a = self.rng.choice(self.vars_of(env, lambda v: _is_arr(v) and np.ndim(v) >= min_ndim)
                            or self.vars_of(env, _is_arr))
        return a, env[a]

    def atom(self, env):
        r = self.rng
        arrs = self.vars_of(env, _is_arr)
        if len(arrs) > 1 and "n" in arrs and r.random() < 0.8:
            arrs.remove("n")
        lists = self.vars_of(env, lambda v: isinstance(v, list) and v)
        if lists and r.random() < 0.15:         # an item of a list (items may be rebound)
            name = r.choice(lists)
            i = r.randrange(len(env[name]))
            return f"{name}[{i}]", env[name][i]
        if arrs and r.random() < 0.8:
            a = r.choice(arrs)
            return a, env[a]
        scal = self.vars_of(env, lambda v: not _is_arr(v) and not isinstance(
            v, (list, tuple, types.SimpleNamespace)))
        if scal and r.random() < 0.5:
            a = r.choice(scal)
            return a, env[a]
        lit = _lit(r)
        if r.random() < 0.15:           # a NumPy scalar: strong dtype, NEP 50 promotion
            lit = f"np.{r.choice(['float32', 'float64', 'int32', 'int64'])}({lit})"
        return lit, eval(lit)

    def _expr(self, env, depth):
        if depth <= 0 or self.rng.random() < 0.2:
            return self.atom(env)
        for _ in range(8):
            src = self._composite(env, depth)
            if src is None:
                continue
            d = _typeof(src, env, self.ns)
            if d is not None:
                return src, d
        return self.atom(env)

    def _composite(self, env, depth):
        r = self.rng
        sub = lambda: self._expr(env, depth - 1)
        k = r.random()
        if k < 0.27:
            op = r.choice(["+", "-", "*", "+", "*", "<", ">", "==", "<=", "&", "|", "^"])
            return f"({sub()[0]} {op} {sub()[0]})"
        if k < 0.30:
            return self._combine(sub)
        if k < 0.38:
            op = r.choice(["/", "//", "%"])
            return f"({sub()[0]} {op} (np.abs({sub()[0]}) + 1))"
        if k < 0.50:
            a, d = sub()
            kind = _dt(d).kind
            f = r.choice(["np.abs({})", "np.clip({}, -2, 2)", "np.square({})"]
                         # `~` on a Python bool is deprecated (3.12): logical_not for those
                         + (["-{}"] if kind != "b" else ["(~{})"] if _is_arr(d)
                            else ["np.logical_not({})"])
                         + (["np.tanh({})", "np.sqrt(np.abs({}) + 1)", "np.exp(np.tanh({}))",
                             "np.log(np.abs({}) + 1)", "np.sign({})", "np.cumsum({}, axis=0)",
                             "np.sin({})", "np.floor({})", "np.ceil({})", "np.round({})"]
                            if kind in "fi" else []))
            return f.format(a)
        if k < 0.58:
            return f"np.where({sub()[0]} > {_lit(r, 'int')}, {sub()[0]}, {sub()[0]})"
        if k < 0.65:
            return f"np.{r.choice(['maximum', 'minimum'])}({sub()[0]}, {sub()[0]})"
        if k < 0.72:
            dt = r.choice(DTYPES)
            inner, d = sub()
            if dt in ("int32", "int64") and _dt(d).kind == "f":
                inner = f"np.clip({inner}, -100, 100)"
            if not _is_arr(d):
                return None
            return f"({inner}).astype(np.{dt})"
        if k < 0.84:
            a, d = sub()
            return self._reduction(a, d) if _is_arr(d) else None
        if k < 0.90 and self.helper_sigs:
            return self._call(env)
        if k < 0.95:
            seqs = self.vars_of(env, lambda v: isinstance(v, (list, tuple)))
            if seqs:
                s = r.choice(seqs)
                return f"{s}[{r.randrange(len(env[s]))}]"
        a, d = sub()
        return self._index(a) if isinstance(d, np.ndarray) and d.ndim >= 1 else None

    def _combine(self, sub):
        """Two operands combined beyond elementwise operators (shapes are
        checked by evaluating on dummies, so invalid pairs are retried)."""
        r = self.rng
        a, b = sub()[0], sub()[0]
        return r.choice([f"({a}) ** {r.choice([2, 3])}", f"np.power(np.clip({a}, -2, 2), 2)",
                         f"({a} @ {b})", f"np.concatenate([{a}, {b}], axis=0)",
                         f"np.stack([{a}, {b}])", f"np.dot({a}, {b})",
                         f"np.outer({a}, {b})", f"np.hstack([{a}, {b}])"])

    def _reduction(self, a, d):
        r = self.rng
        red = r.choice(["sum", "max", "min", "mean", "prod", "any", "all", "argmax", "argmin",
                        "std", "var"])
        if red == "prod":
            a = f"np.clip({a}, -2, 2)"
        if np.ndim(d) >= 1 and r.random() < 0.6:
            axis = r.choice([0, -1] + ([1] if np.ndim(d) == 2 else []))
            kd = r.choice(["", ", keepdims=True"]) if not red.startswith("arg") else ""
            return f"np.{red}({a}, axis={axis}{kd})"
        return f"({a}).{red}()"

    def _index(self, a):
        r = self.rng
        # `.T`, reshape and np.flip are copied: tpucc makes them copies, not
        # views (README, known gaps), so in-place updates would not show
        return r.choice([f"{a}[0]", f"{a}[-1]", f"{a}[1:]", f"{a}[::2]",
                         f"{a}[..., 0]", f"{a}[None]", f"{a}.T.copy()", f"{a}[0:2]",
                         f"{a}[::-1]", f"{a}.reshape(-1).copy()", f"np.flip({a}, axis=0).copy()"])

    def _call(self, env):
        name, params, _ = self.rng.choice(self.helper_sigs)
        args = []
        for p in params:
            cands = [k for k in self.vars_of(env, _is_arr)
                     if np.shape(env[k]) == np.shape(p) and _dt(env[k]) == _dt(p)
                     and type(env[k]) is type(p)]
            if not cands:
                return self.atom(env)
            args.append(self.rng.choice(cands))
        return f"{name}({', '.join(args)})"

    # ---------------------------------------------------------- coercion
    def coerce(self, src, d, t):
        """Source for `src` (dummy `d`) converted to the type of dummy `t`."""
        shape, dt = np.shape(t), _dt(t)
        if np.shape(d) != shape:
            try:
                ok = np.broadcast_shapes(np.shape(d), shape) == shape
            except ValueError:
                ok = False
            if not ok:
                src = f"np.sum({src})"
            if _dt(d).kind == "f" and dt.kind in "iub":
                src = f"np.clip({_snap(src)}, -100, 100)"
            return f"np.broadcast_to({src}, {shape}).astype(np.{dt})"
        if _dt(d) != dt or not _is_arr(d):
            if _dt(d).kind == "f" and dt.kind in "iu":
                src = f"np.clip({_snap(src)}, -100, 100)"
            elif _dt(d).kind == "f" and dt.kind == "b":
                src = _snap(src)
            if not _is_arr(d):
                return f"np.asarray({src}).astype(np.{dt})"
            return f"({src}).astype(np.{dt})"
        return src

    def bound(self, src, d):
        """Keeps assigned values small: clip integers and floats."""
        if not _is_arr(d) or self.rng.random() < 0.3:
            return src
        k = _dt(d).kind
        if k in "iu":
            return f"np.clip({src}, -1000, 1000)"
        if k == "f":
            return f"np.clip({src}, -1000.0, 1000.0)"
        return src

    # ---------------------------------------------------------- conditions
    def runtime_cond(self, env):
        r = self.rng
        a, d = self.arr_expr(env, 1)
        c = _lit(r, r.choice(["int", "float"]))
        form = r.choice(["({}).sum() > {}", "({}).max() < {}", "np.any({} > {})",
                         "({}).mean() >= {}", "np.all({} != {})", "({}).min() <= {}"])
        cond = form.format(a, c)
        if _typeof(cond, env, self.ns) is None:
            # e.g. min() of an empty slice: NumPy raises, so would tpucc even
            # on a path not taken; conditions are validated like expressions
            return self.runtime_cond(env)
        if r.random() < 0.15:
            b, _ = self.arr_expr(env, 1)
            cond = f"{cond} {r.choice(['and', 'or'])} ({b}).sum() < {_lit(r, 'int')}"
        elif r.random() < 0.1:
            cond = f"not {cond}"
        return cond

    def static_cond(self, env):
        r = self.rng
        arrs = [k for k in self.vars_of(env, lambda v: isinstance(v, np.ndarray))]
        opts = [f"{r.randint(0, 3)} < {r.randint(0, 3)}"]
        if arrs:
            a = r.choice(arrs)
            opts += [f"{a}.ndim == {r.randint(0, 2)}", f"{a}.shape[-1] > {r.randint(1, 3)}"
                     if np.ndim(env[a]) else f"{a}.size == 1"]
        if "_j" in env:
            opts.append(f"{env['_j']} % 2 == {r.randint(0, 1)}")
        return r.choice(opts)

    # ---------------------------------------------------------- statements
    def new_name(self, prefix="v"):
        return f"{prefix}{next(self.names)}"

    def block(self, env, ctx, n=None):
        n = n if n is not None else self.rng.randint(1, 3)
        out = []
        for _ in range(n):
            if self.stmt_budget <= 0:
                break
            out.append(self.stmt(env, ctx))
        return out

    def stmt(self, env, ctx):
        """ctx: dict(depth, in_loop, ret_types, runtime_region, fn)."""
        r = self.rng
        self.stmt_budget -= 1
        depth = ctx["depth"]
        choices = [("assign", 5), ("reassign", 4), ("aug", 3), ("setitem", 2),
                   ("tuple", 1), ("counter", 1), ("item", 1)]
        if depth < 3:
            choices += [("if", 3), ("static_if", 1)]
            if ctx["fn"] == "main":
                choices += [("for_static", 1), ("for_runtime", 2), ("while", 2)]
        if ctx["in_loop"]:
            choices += [("break", 1), ("continue", 1)]
        if ctx["ret_types"] is not None and depth > 0:
            choices += [("return", 1)]
        kinds, weights = zip(*choices)
        kind = r.choices(kinds, weights)[0]
        return getattr(self, "s_" + kind)(env, ctx) or self.s_assign(env, ctx)

    def s_assign(self, env, ctx):
        src, d = self.expr(env, self.rng.randint(1, 3))
        name = self.new_name()
        src = self.bound(src, d)
        d = _typeof(src, env, self.ns)
        env[name] = d
        return Stmt(f"{name} = {src}")

    def s_reassign(self, env, ctx):
        targets = self.targets(env, lambda v: _is_arr(v))
        if not targets:
            return None
        t = self.rng.choice(targets)
        src = self._value_like(env, env[t])
        return None if src is None else Stmt(f"{t} = {src}")

    def _value_like(self, env, like):
        """Source of a new value of the same type as the dummy `like`, or None."""
        src, d = self.expr(env, self.rng.randint(1, 3))
        src = self.coerce(self.bound(src, d), d, like)
        new = _typeof(src, env, self.ns)
        if new is None:
            return None
        # keep NumPy's scalar/0-d array distinction too: `x += v` rebinds a
        # NumPy scalar (with promotion) but updates a 0-d array in place, so
        # a variable that is one or the other by path changes dtype by path
        if isinstance(like, np.ndarray) and not isinstance(new, np.ndarray):
            src = f"np.asarray({src})"
        elif isinstance(like, np.generic) and isinstance(new, np.ndarray):
            src = f"({src})[()]"
        return src

    def s_item(self, env, ctx):
        """Rebinds an item of a list (`L3[1] = ...`), also inside runtime
        loops and branches: the list stays one object."""
        lists = [k for k in self.vars_of(env, lambda v: isinstance(v, list))]
        if not lists:
            return None
        name = self.rng.choice(lists)
        i = self.rng.randrange(len(env[name]))
        src = self._value_like(env, env[name][i])
        return None if src is None else Stmt(f"{name}[{i}] = {src}")

    def s_aug(self, env, ctx):
        targets = self.targets(env, lambda v: _is_arr(v))
        if not targets:
            return None
        t = self.rng.choice(targets)
        for _ in range(10):
            op = self.rng.choice(["+=", "-=", "*=", "|=", "&=", "+="])
            src, d = self.expr(env, 1)
            if op == "*=":
                src = f"np.clip({src}, -2, 2)"
            if self._aug_ok(env, t, op, src):
                return Stmt(f"{t} {op} {src}")
        return None

    def _aug_ok(self, env, t, op, src):
        code = f"_t = _copy({t})\n_t {op} {src}"
        loc = dict(env, _copy=copy.copy)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                exec(code, self.ns, loc)
        except Exception:
            return False
        res, orig = loc["_t"], env[t]
        return _is_arr(res) and _dt(res) == _dt(orig) and np.shape(res) == np.shape(orig)

    def s_setitem(self, env, ctx):
        targets = self.targets(env, lambda v: isinstance(v, np.ndarray) and v.ndim >= 1)
        if not targets:
            return None
        t = self.rng.choice(targets)
        shp = env[t].shape
        r = self.rng
        idx = r.choice(["0", "-1", "1:", ":2", "..., 0", "::2"] +
                       (["0, 1", ":, 1:"] if len(shp) == 2 else []))
        try:
            view = env[t][eval(f"np.s_[{idx}]")]
        except Exception:
            return None
        op = r.choice(["=", "+=", "="])
        for _ in range(10):
            src, d = self.expr(env, 1)
            if op == "=":
                if np.shape(d) != np.shape(view) and not self._bcast(d, view):
                    src = f"np.sum({src})"
                    d = _typeof(src, env, self.ns)
                    if d is None:
                        continue
                if _dt(d).kind == "f" and _dt(view).kind in "iub":
                    src = f"np.clip({src}, -100, 100)"
                return Stmt(f"{t}[{idx}] = {src}")
            if self._aug_ok(dict(env, _v=view), "_v", "+=", src) and self._bcast(d, view):
                return Stmt(f"{t}[{idx}] += {src}")
        return None

    @staticmethod
    def _bcast(d, view):
        try:
            return np.broadcast_shapes(np.shape(d), np.shape(view)) == np.shape(view)
        except ValueError:
            return False

    def s_tuple(self, env, ctx):
        a, da = self.expr(env, 1)
        b, db = self.expr(env, 1)
        if ctx["depth"] == 0 and self.rng.random() < 0.5:
            name = self.new_name("L")
            kind = self.rng.choice(["list", "tuple"])
            env[name] = [da, db] if kind == "list" else (da, db)
            src = f"[{a}, {b}]" if kind == "list" else f"({a}, {b})"
            return Stmt(f"{name} = {src}")
        n1, n2 = self.new_name(), self.new_name()
        env[n1], env[n2] = da, db
        return Stmt(f"{n1}, {n2} = {a}, {b}")

    def s_counter(self, env, ctx):
        if "cnt" not in env:
            return None
        step = self.rng.randint(1, 3)
        # `bump` rebinds cnt from an inner function (nonlocal): cnt is then
        # carried by main's runtime loops and merged by its branches all the same
        return Stmt(f"bump({step})" if self.cnt_by_closure else f"cnt += {step}")

    def _scoped(self, env, ctx, n=None, **over):
        """A nested block whose new variables do not escape it."""
        inner = dict(env)
        c = dict(ctx, depth=ctx["depth"] + 1, **over)
        body = self.block(inner, c, n)
        return body

    def s_if(self, env, ctx):
        r = self.rng
        head = f"if {self.runtime_cond(env)}:"
        body = self._scoped(env, ctx)
        orelse = None
        k = r.random()
        if k < 0.3:
            orelse = [Stmt(f"if {self.runtime_cond(env)}:", self._scoped(env, ctx),
                           self._scoped(env, ctx) if r.random() < 0.5 else None)]
        elif k < 0.7:
            orelse = self._scoped(env, ctx)
        return Stmt(head, body, orelse)

    def s_static_if(self, env, ctx):
        head = f"if {self.static_cond(env)}:"
        return Stmt(head, self._scoped(env, ctx),
                    self._scoped(env, ctx) if self.rng.random() < 0.5 else None)

    def s_for_static(self, env, ctx):
        j = self.new_name("j")
        inner_env = dict(env)
        inner_env[j] = 1
        inner_env["_j"] = j
        body = self.block(inner_env, dict(ctx, depth=ctx["depth"] + 1, in_loop=True))
        return Stmt(f"for {j} in range({self.rng.randint(1, 4)}):", body)

    def s_for_runtime(self, env, ctx):
        i = self.new_name("i")
        inner_env = dict(env)
        inner_env[i] = 1
        body = self.block(inner_env, dict(ctx, depth=ctx["depth"] + 1, in_loop=True))
        rng = self.rng.choice(["range(n)", "range(n)", "range(1, n)", "range(n, 4)"])
        return Stmt(f"for {i} in {rng}:", body)

    def s_while(self, env, ctx):
        k = self.new_name("k")
        bound = self.rng.choice(["n", "3", "n + 1"])
        cond = f"{k} < {bound}"
        if self.rng.random() < 0.3:
            cond += f" and ({self.runtime_cond(env)})"     # parenthesized: it may hold `or`
        inner_env = dict(env)
        inner_env[k] = 1
        body = [Stmt(f"{k} += 1", pinned=True)]
        body += self.block(inner_env, dict(ctx, depth=ctx["depth"] + 1, in_loop=True))
        # the counter's init and the loop form one unit for the shrinker
        return Stmt(None, [Stmt(f"{k} = 0", pinned=True), Stmt(f"while {cond}:", body)])

    def s_break(self, env, ctx):
        kw = self.rng.choice(["break", "continue"])
        return Stmt(f"if {self.runtime_cond(env)}:", [Stmt(kw)])

    s_continue = s_break

    def s_return(self, env, ctx):
        return Stmt(f"if {self.runtime_cond(env)}:",
                    [Stmt("return " + self.ret_expr(env, ctx["ret_types"]))])

    def ret_expr(self, env, ret_types):
        parts = []
        for t in ret_types:
            src, d = self.expr(env, 1)
            parts.append(self.coerce(src, d, t))
        return "(" + ", ".join(parts) + ",)"

    # ---------------------------------------------------------- functions
    def helper(self, arg_dummies):
        name = f"h{len(self.helpers)}"
        nparams = self.rng.randint(1, 2)
        params = self.rng.sample(arg_dummies, nparams) if len(arg_dummies) >= nparams \
            else arg_dummies[:1]
        env = {f"a{i}": p for i, p in enumerate(params)}
        self.stmt_budget = self.rng.randint(1, 4)
        ctx = dict(depth=1, in_loop=False, ret_types=None, fn="helper")
        body = self.block(env, ctx, self.rng.randint(1, 3))
        src, d = self.arr_expr(env, 2)
        fn = Function(name, list(env)[:len(params)], body, src)
        try:
            exec(fn.render(), self.ns)
            res = self.ns[name](*[copy.copy(p) for p in params])
        except Exception:
            return
        if not _is_arr(res) or _dt(res) not in ALLOWED:
            return
        self.helpers.append(fn)
        self.helper_sigs.append((name, params, res))


def _arg_value(rng: random.Random, shape, dtype):
    nprng = np.random.default_rng(rng.randrange(2**32))
    if dtype == "bool":
        return nprng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith("int"):
        return nprng.integers(-3, 4, size=shape).astype(dtype)
    return (nprng.integers(-8, 9, size=shape) / 4).astype(dtype)


def generate(seed: int, merge_fraction: float = 0.05) -> Program:
    """A random program from `seed` (deterministic)."""
    rng = random.Random(seed)
    g = Gen(rng)
    nargs = rng.randint(1, 3)
    shapes = [rng.choice(SHAPES) for _ in range(nargs)]
    dtypes = [rng.choice(DTYPES) for _ in range(nargs)]
    if rng.random() < 0.6:             # at least one float array
        dtypes[0] = rng.choice(["float32", "float64"])
        shapes[0] = rng.choice([(3,), (2, 3)])
    args = [_arg_value(rng, s, d) for s, d in zip(shapes, dtypes)]
    params = [f"x{i}" for i in range(nargs)]
    # a 0-d argument is a NumPy scalar (np.float32(...)): its dummy is one too,
    # so that `x += ...` is typed as NumPy types it (a rebinding, not in place)
    dummies = [_dummy(s, d) if isinstance(a, np.ndarray) else _dummy(s, d)[()]
               for s, d, a in zip(shapes, dtypes, args)]
    for _ in range(rng.randint(0, 2)):
        g.helper(dummies)

    env = dict(zip(params, dummies))
    env["n"] = np.ones((), np.int64)
    main_body = []
    use_cnt = rng.random() < 0.4
    # Drawn from a generator of its own: the main stream (and so every
    # program seen before this option) stays as it was.
    g.cnt_by_closure = use_cnt and random.Random(seed * 7919 + 1).random() < 0.5
    if use_cnt:
        env["cnt"] = 1
        main_body.append(Stmt("cnt = 0"))
    if g.cnt_by_closure:
        main_body.append(Stmt("def bump(k):", [Stmt("nonlocal cnt"), Stmt("cnt += k")],
                              pinned=True))
    early = rng.random() < 0.3
    ret_types = None
    if early:
        ret_types = [env[p] for p in rng.sample(params, rng.randint(1, nargs))]
        if rng.random() < 0.5:
            ret_types.append(np.ones((), rng.choice(["float64", "int64", "float32"])))
    # A list of arrays whose items the body may rebind (s_item), returned at the end.
    use_list = random.Random(seed * 7919 + 2).random() < 0.35
    if use_list:
        (a, da), (b, db) = g.expr(env, 1), g.expr(env, 1)
        env["hs"] = [da, db]
        main_body.append(Stmt(f"hs = [{a}, {b}]"))
    # An object made inside whose attribute `st.v` the body reads and rebinds
    # (a pseudo-variable to the generator), returned at the end.
    use_obj = random.Random(seed * 7919 + 3).random() < 0.3
    if use_obj:
        a, da = g.expr(env, 1)
        env["st"], env["st.v"] = types.SimpleNamespace(v=da), da
        main_body += [Stmt("st = Box()"), Stmt(f"st.v = {a}")]
    g.stmt_budget = rng.randint(4, 12)
    ctx = dict(depth=0, in_loop=False, ret_types=ret_types, fn="main")
    main_body += g.block(env, ctx, rng.randint(3, 7))

    prog = Program(seed, g.helpers, None, args + [np.array(rng.randint(0, 4), np.int64)])
    if rng.random() < merge_fraction:
        _make_merge(g, env, main_body, prog)
    if ret_types is not None:
        ret = g.ret_expr(env, ret_types)
    else:
        outs = g.vars_of(env, _is_arr)
        outs = [o for o in outs if o != "n"]
        picked = rng.sample(outs, min(len(outs), rng.randint(1, 3)))
        if prog.category == "merge":
            picked.append(prog._merge_var)
        if use_cnt:
            picked.append("cnt")
        if use_list:
            picked.append("hs")
        if use_obj:
            picked.append("st.v")
        ret = ", ".join(picked) + ("," if len(picked) == 1 else "")
        ret = f"({ret})"
    prog.main = Function("f", params + ["n"], main_body, ret)
    prog.uses_float32 = "float32" in prog.source() or any(
        a.dtype == np.float32 for a in prog.args)
    return prog


def _make_merge(g: Gen, env, body, prog):
    """Deliberately gives a variable a different dtype or shape in one
    runtime branch: tpucc must refuse with MergeError."""
    arrs = [k for k in g.vars_of(env, lambda v: isinstance(v, np.ndarray)) if k != "n"]
    if not arrs:
        return
    t = g.rng.choice(arrs)
    d = env[t]
    other = [x for x in DTYPES if np.dtype(x) != d.dtype and x != "bool"]
    if g.rng.random() < 0.5 or d.ndim == 0:
        new = f"({t} + 1).astype(np.{g.rng.choice(other)})"
    else:
        new = f"({t}).sum()"
    v = g.new_name("m")
    body.append(Stmt(f"{v} = {t}.copy()"))
    # a condition on an argument, so that it is a runtime one
    body.append(Stmt(f"if np.sum(x0) > {_lit(g.rng, 'int')}:", [Stmt(f"{v} = {new}")]))
    # read after the join (a variable nothing reads after it needs no merge)
    body.append(Stmt(f"{v} = {v}.copy()"))
    prog.category = "merge"
    prog.expect_compile = False
    prog.expect_error = "MergeError"
    prog._merge_var = v
