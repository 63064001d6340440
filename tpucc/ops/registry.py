"""The op registry: one entry per op carrying its name, its abstract
evaluation (shape rule + dtype rule), its lowering to jax and its NumPy
reference.  Families of ops are rows built from the combinators below.

`NUMPY` maps NumPy functions (np.add, np.sum, ...) and `METHODS` maps array
method names to the functions that implement them on Arrays at compile time.
"""
from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import operator
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import jax
import numpy as np
from jax import lax

from ..errors import ShapeError
from ..ir import AVal

_INT64_MAX = int(np.iinfo(np.int64).max)
_WEAK_KEY = {"b": np.dtype(bool), "i": int, "u": int, "f": float, "c": complex}


@dataclass(frozen=True)
class LowerCtx:
    in_avals: tuple
    out_avals: tuple
    attrs: dict
    # In a vjp rule: which operands need a cotangent (the others get None).
    active: tuple | None = None
    # Per operand: (op name, attrs, the op's own operands) of the registry op
    # of the same region that made it, else None.  A lowering may read
    # through its producer (a product with a transposed matrix).
    made_by: tuple | None = None

    def wants(self, k: int) -> bool:
        return self.active is None or self.active[k]

    def producer(self, k: int):
        return self.made_by[k] if self.made_by is not None else None


@dataclass(frozen=True)
class OpDef:
    name: str
    abstract: Callable      # (avals, **attrs) -> AVal | tuple[AVal, ...]
    lower: Callable         # (LowerCtx, *jax values) -> jax value | tuple
    numpy: Callable | None = None   # (*ndarrays, **attrs) -> ndarray, the reference
    # How the op lowers on operands kept in another physical layout (see
    # lower/layout.py): None (it needs logical operands), "elementwise" (any
    # layout, operands broadcast and permuted alike), or a function
    # (LowerCtx, values, perms, **attrs) -> (value, perm) | None.
    layout: Callable | str | None = None
    # Physical layouts the op reads an operand fastest in, {operand index:
    # perm}: an array that outlives the call (a weight kept on the device,
    # see driver.cached_input_layouts) and is read only there is stored so.
    stored_layouts: dict | None = None
    # Reverse mode (lower/reverse.py): (LowerCtx, operands, perms, result,
    # cotangent, **attrs) -> one cotangent per operand (None: zero), or
    # NotImplemented; None: jax.vjp of the lowering.
    vjp: Callable | None = None
    # Range analysis (infer/builder.py emit): (avals, bounds, **attrs) ->
    # (lo, hi) that every element of an integer result lies in, or None;
    # `bounds` holds each operand's (lo, hi) (values.int_bounds), or None
    # where nothing is known.  A runtime index known in range needs no
    # bounds check, and x[j:j + k] with such a j has a static length.
    value_range: Callable | None = None
    # How many small ops (an add, a slice) XLA's compile of one copy of this
    # op is worth: the unroll budget (infer/loops.py) weighs a loop body by
    # it.  A decomposition or solver is an SVD/QR/LU expansion or a solver
    # call that XLA compiles hundreds of times slower than an add (32 steps
    # of 4 np.linalg.lstsq each, unrolled: 30 s of XLA; one While: 2 s).
    # Or a function of the op, for ops that weigh more for some dtypes.
    compile_weight: int | Callable = 1


# OpDef.compile_weight of the matrix decompositions and solvers: each is
# worth a whole unrolled iteration's ops (loops.OPS_PER_UNROLLED_TRIP), so
# a static loop with one per step becomes a counted While, not 32 copies.
SOLVER_WEIGHT = 40

# OpDef.compile_weight of a complex division, reciprocal or square root:
# NumPy's exact algorithms (Smith's division, C99's csqrt) expand into
# selects between branches that share their operands, and XLA:CPU's fusion
# copies the shared work into each consumer, so a chain of them costs more
# than its length: 16 unrolled steps of `x = x / (x + z)` after a complex
# product took 3.3 s of XLA (jax.jit's one native division: 0.2 s), about
# 200 small ops a step.  At this weight such a loop of 16 or more steps is
# one While (0.2 s); shorter chains stay unrolled.
COMPLEX_EXPANSION_WEIGHT = 80

# OpDef.compile_weight of a concatenation (np.stack, np.array of runtime
# scalars, np.concatenate): XLA:CPU fuses elementwise chains into one
# kernel, but a concatenation read by several consumers (a state vector
# built by np.stack([v, -np.sin(x)]) and sliced again by the next stage)
# ends a fusion, and XLA:CPU's compile time goes by the kernels: the 4 stacks
# of an RK4 step made 4 kernels at about 40 ms each (20 unrolled steps: 3.5 s
# of XLA, 80 kernels; the same steps on two separate arrays fuse into 2
# kernels, 0.2 s); 32 growing np.concatenate, one kernel each, about 14 ms.
# So a loop that stacks in every iteration becomes a counted While sooner.
CONCATENATE_WEIGHT = 24


def heavier_when_complex(op) -> int:
    """compile_weight of an elementwise op that NumPy computes with a
    branching algorithm for complex numbers only."""
    complex_out = any(np.dtype(v.aval.dtype).kind == "c" for v in op.outputs)
    return COMPLEX_EXPANSION_WEIGHT if complex_out else 1

OPS: dict[str, OpDef] = {}

# Ops that compute each element of their result from the elements at the
# same position of their (broadcast) operands alone, beside those that say so
# by lowering in any layout (layout="elementwise"): the ones whose lowering
# reads more than dtypes, and the ones that make values (const, full) or
# spread an operand over a shape (broadcast_to).  A NumPy function built from
# these only (np.round, np.nan_to_num, np.isclose) is elementwise, so on a
# mask selection fn(x[mask]) is fn(x)[mask] (masked.py).
_ALSO_ELEMENTWISE = frozenset({"convert", "round", "real", "imag", "complex", "erf", "frexp",
                               "modular_power", "const", "full", "broadcast_to"})


def maps_elements(name: str) -> bool:
    """Whether op `name` is elementwise (see _ALSO_ELEMENTWISE)."""
    return name in _ALSO_ELEMENTWISE or name in OPS and OPS[name].layout == "elementwise"
NUMPY: dict[object, Callable] = {}
METHODS: dict[str, Callable] = {}
# Functions and methods that are a ufunc underneath (np.clip calls NumPy's
# `clip` ufunc): like ufuncs, they write their result into out=.
WRITES_OUT_FUNCTIONS = (np.clip,)
WRITES_OUT_METHODS = ("clip",)


def writes_out(fn) -> bool:
    """Whether NumPy's `fn` stores its result into its out= argument."""
    return isinstance(fn, np.ufunc) or any(fn is f for f in WRITES_OUT_FUNCTIONS)


def register(name, abstract, lower, numpy=None, layout=None, stored_layouts=None,
             compile_weight=1) -> OpDef:
    assert name not in OPS, f"op {name} registered twice"
    OPS[name] = OpDef(name, abstract, lower, numpy, layout, stored_layouts,
                      compile_weight=compile_weight)
    return OPS[name]


def define_vjp(name: str, rule: Callable):
    """Give op `name` its reverse-mode rule (see OpDef.vjp)."""
    OPS[name] = dataclasses.replace(OPS[name], vjp=rule)


def define_range(name: str, rule: Callable):
    """Give op `name` its range rule (see OpDef.value_range)."""
    OPS[name] = dataclasses.replace(OPS[name], value_range=rule)


def implements(*targets, method: str | tuple | None = None):
    """Decorator: the function implements these NumPy functions (and array
    methods) when an argument is a runtime Array."""
    def deco(fn):
        for t in targets:
            NUMPY[t] = fn
        for m in ((method,) if isinstance(method, str) else method or ()):
            METHODS[m] = fn
        return fn
    return deco


# --- dtype helpers -----------------------------------------------------------

def weak_key(aval: AVal):
    """What NumPy's dtype resolution should see for this operand: a dtype, or
    the Python type of a weak scalar (NEP 50)."""
    return _WEAK_KEY[aval.dtype.kind] if aval.weak else aval.dtype


def loop_keys(avals) -> tuple:
    """Operands as NumPy's dtype resolution should see them.  When every
    operand is a weak Python scalar, Python semantics apply, which for our
    purposes are the default dtypes (NumPy would pick object loops)."""
    if all_weak(avals):
        return tuple(a.dtype for a in avals)
    return tuple(weak_key(a) for a in avals)


@lru_cache(maxsize=None)
def ufunc_loop(ufunc: np.ufunc, keys: tuple) -> tuple:
    """The (inputs..., output) dtypes NumPy 2 would use for this call."""
    return ufunc.resolve_dtypes(keys + (None,) * ufunc.nout)


def result_type(*avals: AVal) -> np.dtype:
    """np.result_type with weak Python scalars, as NumPy 2 promotes them."""
    strong = [a.dtype for a in avals if not a.weak]
    weak = [_WEAK_SAMPLE[a.dtype.kind] for a in avals if a.weak]
    return np.result_type(*strong, *weak)


# Python's bool is an int: True + True is 2 and ~True is -2, where NumPy's
# bool loops give True and False; only &, | and ^ keep two bools bools.
PYTHON_BOOL_KEEPING = frozenset({"bitwise_and", "bitwise_or", "bitwise_xor"})

_WEAK_SAMPLE = {"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}


def all_weak(avals) -> bool:
    return bool(avals) and all(a.weak for a in avals)


def as_array_operand(x):
    """NumPy functions that are not ufuncs (np.dot, np.stack, ...) convert a
    Python scalar argument with np.asarray: int64/float64, not weak (NEP 50),
    also when the scalar is a runtime value (a loop counter)."""
    if type(x) in (bool, int, float, complex):
        return np.asarray(x)
    if getattr(x, "held_int", None) is not None:
        # (a Python number on some runtime paths: in its own dtype there)
        from ..infer.held_ints import numpy_array_of
        x = numpy_array_of(x)
    aval = getattr(x, "aval", None)
    if isinstance(aval, AVal) and aval.weak:
        return emit("convert", x, dtype=aval.dtype)
    return x


def const_aval(x) -> AVal:
    """The abstract value of a static scalar or ndarray used as an operand.
    NumPy scalars (np.float64 subclasses float!) are strong; Python's are weak,
    but not their subclasses (an IntEnum member): NEP 50 makes only exact
    int, float and complex weak."""
    if isinstance(x, (np.generic, np.ndarray)):
        return AVal(x.dtype, np.shape(x), False)
    if type(x) is bool:
        return AVal(np.dtype(bool), (), True)
    if type(x) is int:
        # 2**63 <= x < 2**64 fits only uint64 (`uint64_array < 2**63`); weak either way.
        return AVal(np.dtype(np.uint64 if x > _INT64_MAX else np.int64), (), True)
    if type(x) is float:
        return AVal(np.dtype(np.float64), (), True)
    if type(x) is complex:
        return AVal(np.dtype(np.complex128), (), True)
    arr = np.asarray(x)
    return AVal(arr.dtype, arr.shape, False)


def broadcast(*avals: AVal) -> tuple:
    return broadcast_shapes(*(a.shape for a in avals))


def broadcast_shapes(*shapes: tuple) -> tuple:
    """np.broadcast_shapes of int tuples, without NumPy's array machinery
    (which was 6% of VGG19's type inference).  Shapes that do not broadcast
    (or have a negative size) go to NumPy, for its error; a size that is
    not an integer raises TypeError, as in NumPy."""
    first = shapes[0]
    if any(d < 0 for shape in shapes for d in shape):
        return np.broadcast_shapes(*shapes)
    if all(s == first for s in shapes):
        return tuple(map(operator.index, first))
    out = []
    for axis in range(-max(map(len, shapes)), 0):
        size = 1
        for shape in shapes:
            if len(shape) >= -axis and shape[axis] != 1:
                if size != 1 and shape[axis] != size:
                    return np.broadcast_shapes(*shapes)
                size = shape[axis]
        out.append(operator.index(size))
    return tuple(out)


def static_index(x) -> int:
    """An axis, dimension or count as NumPy reads it (operator.index): a float
    such as 1.0 or a bool raises TypeError (the interpreter reports it as the
    user's error) instead of being truncated."""
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"an integer is required, got {x!r}")
    return operator.index(x)


def normalize_axis(axis: int, ndim: int) -> int:
    axis = static_index(axis)
    if not -ndim <= axis < ndim:
        raise ShapeError(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def normalize_axes(axis, ndim: int) -> tuple | None:
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    normalized = tuple(sorted(normalize_axis(a, ndim) for a in axes))
    if len(set(normalized)) != len(normalized):
        raise ShapeError(f"duplicate value in 'axis': {axis}")
    return normalized


def cast(x, dtype):
    """lax.convert_element_type(x, dtype), skipping the no-op: lowering casts
    nearly every operand to its loop dtype, and even a no-op convert costs
    jax a bind.  A NumPy constant of the right dtype stays NumPy (jax makes
    it a literal where it is used).  A NumPy constant is cast by NumPy where
    both round alike (jax's convert of a constant binds a primitive: 36 of
    them were 8% of VGG19's lowering); from a float or complex to an integer
    or a real the two differ (NaN, overflow), so that stays XLA's."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        if aval.dtype == dtype and not aval.weak_type:
            return x
    elif type(x) is np.ndarray:
        if x.dtype == dtype:
            return x
        if x.dtype.kind in "biu" or (x.dtype.kind == "f" and np.dtype(dtype).kind in "fc"):
            with np.errstate(over="ignore"):    # (1e300 as float32 is inf, as XLA's is)
                return x.astype(dtype)
    return convert(x, dtype)


def convert(x, dtype):
    """lax.convert_element_type(x, dtype), a float64 to float16 rounded once
    as NumPy rounds it: XLA converts through float32, and a value just above a
    float16 halfway point (1 + 2**-11 + 2**-40) loses its excess in float32
    and then ties to even the wrong way."""
    if isinstance(x, (np.ndarray, np.generic)) and np.dtype(dtype).kind in "fc" and \
            x.dtype.kind in "biuf":
        # A constant (b[1] = 1e40 into float32): cast by NumPy, as jax would,
        # but quietly: jax's RuntimeWarning on overflow would name its own
        # line, not the program's.
        with np.errstate(over="ignore"):
            return np.asarray(x).astype(dtype)
    if np.dtype(dtype) == np.float16 and getattr(x, "dtype", None) == np.float64:
        x = _to_float32_rounding_to_odd(x)
    return lax.convert_element_type(x, dtype)


def _to_float32_rounding_to_odd(x):
    """float64 x truncated to float32, its last bit set where that was
    inexact.  Rounding this to float16 (13 bits fewer) rounds x correctly:
    the odd bit stands for everything float32 dropped, so no tie is made
    where there was none."""
    nearest = lax.convert_element_type(x, np.float32)
    bits = lax.bitcast_convert_type(nearest, np.int32)
    back = lax.convert_element_type(nearest, np.float64)
    one = np.ones((), np.int32)
    # (the bit pattern less one is the float32 of the next smaller magnitude)
    bits = lax.select(lax.gt(lax.abs(back), lax.abs(x)), lax.sub(bits, one), bits)
    bits = lax.select(lax.ne(back, x), lax.bitwise_or(bits, one), bits)
    return lax.bitcast_convert_type(bits, np.float32)


_NARROWER_THAN_DOUBLE = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.complex64))


def cast_operand(x, aval: AVal, dtype):
    """cast(x, dtype) of an operand whose abstract value is `aval`: a Python
    int (weak) becomes a float narrower than float64 through a C double, as
    NumPy converts it (PyFloat first, then float32: two roundings, where an
    int64 converts straight; 2**60 + 2**36 + 1 differs by an ulp).  XLA
    folds convert(convert(i64 -> f64) -> f32) into one convert, an
    optimization_barrier between them included, so the second rounding is
    reduce_precision's, in float64."""
    dtype = np.dtype(dtype)
    if aval.weak and aval.dtype.kind in "iu" and dtype in _NARROWER_THAN_DOUBLE:
        x = cast(x, np.dtype(np.float64))
        if not isinstance(x, (np.ndarray, np.generic)):     # (a constant: NumPy casts it)
            info = np.finfo(dtype)
            x = lax.reduce_precision(x, exponent_bits=info.nexp, mantissa_bits=info.nmant)
    return cast(x, dtype)


def unsafe_cast_operand(x, aval: AVal, dst):
    """unsafe_cast of an operand by its abstract value: a Python int into a
    float32 (np.float32(k), a[i] = k) through a double, as cast_operand."""
    if aval.weak and aval.dtype.kind in "iu":
        return cast_operand(x, aval, np.dtype(dst))
    return unsafe_cast(x, aval.dtype, np.dtype(dst))


def unsafe_cast(x, src, dst):
    """x (of dtype `src`) converted to `dst` as NumPy's unsafe casting
    converts (x.astype(dst), a[...] = x): to bool, nonzero is True; a
    complex number to a real type keeps its real part; floats to integers
    truncate toward zero, and wrap (float_to_int)."""
    if dst == np.bool_ and src != np.bool_:
        return x != 0
    if src.kind == "c" and dst.kind != "c":
        x = lax.real(x)
        src = x.dtype
    if dst.kind in "iu" and src.kind == "f":
        return float_to_int(trunc(x), dst)
    return convert(x, dst)


def trunc(x):
    """Rounded toward zero (jnp.trunc, without its nested jit)."""
    return lax.select(x < 0, lax.ceil(x), lax.floor(x))


def float_to_int(x, dst):
    """Whole floats to an integer type as NumPy converts them on x86 (the C
    cast; ARM saturates instead), where XLA's convert would saturate: to a
    signed type, or an unsigned one of up to 16 bits, through int32 (int64
    for int64), where NaN and values out of range become its minimum
    ("integer indefinite"), then wrapped into the target (300.7 -> uint8 44,
    -1.0 -> uint8 255, NaN -> int32 -2**31).  To uint32 and uint64 as
    NumPy's loops convert: below 2**31 (2**63) or NaN as to int32 (int64),
    from there 2**31 (2**63) less, the top bit then flipped (inf -> 0)."""
    if dst in (np.uint32, np.uint64):
        return _to_unsigned(x, dst)
    if dst.itemsize <= 4:
        return lax.convert_element_type(_indefinite(x, np.dtype(np.int32)), dst)
    return _indefinite(x, dst)


def _to_unsigned(x, dst):
    signed = np.dtype(f"int{dst.itemsize * 8}")
    if x.dtype == np.float16:       # NumPy: to float, then C's cast (uint32 through int64)
        x = lax.convert_element_type(x, np.float32)
        if dst == np.uint32:
            return lax.convert_element_type(_indefinite(x, np.dtype(np.int64)), dst)
    top = np.asarray(2.0 ** (dst.itemsize * 8 - 1), x.dtype)
    low = lax.convert_element_type(_indefinite(x, signed), dst)
    high = lax.bitwise_xor(lax.convert_element_type(_indefinite(lax.sub(x, top), signed), dst),
                           np.asarray(1 << (dst.itemsize * 8 - 1), dst))
    return lax.select(lax.ge(x, top), high, low)


def _indefinite(x, wide):
    """x converted to the signed type `wide`, NaN and values out of its
    range giving its minimum, as x86's conversion instructions do."""
    bound = 2.0 ** (8 * wide.itemsize - 1)
    limit = np.asarray(bound if float(np.finfo(x.dtype).max) > bound else np.inf, x.dtype)
    in_range = (x >= -limit) & (x < limit)
    return lax.select(in_range, lax.convert_element_type(x, wide),
                      lax.full_like(x, np.iinfo(wide).min, wide))


def broadcast_value(x, shape: tuple):
    """x (a jax value or NumPy constant) broadcast to `shape`, NumPy-aligned."""
    if np.shape(x) == shape:
        return x
    return lax.broadcast_in_dim(x, shape, tuple(range(len(shape) - np.ndim(x), len(shape))))


def divide(x, y):
    """x / y for floating-point operands of one dtype, rounded as IEEE
    division rounds, which is what NumPy computes.  XLA's algebraic
    simplifier rewrites divisions into other roundings: by a broadcast or
    constant divisor into a multiplication by its reciprocal, one ulp off in
    about a third of the elements (x / 3.0, np.mean, np.round(x, 2) giving
    1.2300001 for 1.23, np.var of three equal values 6e-17 instead of 0);
    (a / b) / c into a / (b * c); a / sqrt(b) into a * rsqrt(b).  Behind an
    optimization barrier both operands are opaque values of the result's
    shape, divided as they are.  XLA:CPU drops the barrier right after
    simplifying, so the division still fuses with its operands (measured:
    one fusion).  XLA:GPU keeps barriers until after fusion, where one would
    cost a kernel and a pass over memory per division: on accelerators the
    division is XLA's (one ulp, like its exp or tanh)."""
    shape = broadcast_shapes(np.shape(x), np.shape(y))
    x, y = broadcast_value(x, shape), broadcast_value(y, shape)
    if target_platforms() != ("cpu",):
        return lax.div(x, y)
    return lax.div(*lax.optimization_barrier((x, y)))


def hidden_from_simplifier(values: list) -> list:
    """`values` (jax values or NumPy constants) behind one optimization
    barrier on the CPU, so that XLA's algebraic simplifier cannot see what
    computed them.  Some of its rewrites are not IEEE-exact and change
    NumPy's results at NaN, inf, overflow and integer wrap-around: log(exp(x))
    into x and exp(a) * exp(b) into exp(a + b) (finite where exp overflows),
    x * float(mask) into a select (0 where inf * 0 is NaN), and abs(x) >= 0,
    x * x < 0 into constants (wrong for NaN, for int8 abs(-128) and for a
    square that wraps: an overflow check `(x * x < 0).any()` never fired).
    XLA:CPU drops the barrier right after simplifying (see `divide`), so the
    op still fuses with its operands; on accelerators, which keep barriers
    until after fusion, the result is XLA's."""
    if target_platforms() != ("cpu",):
        return values
    return list(lax.optimization_barrier(tuple(values)))


def unfolded(op):
    """`op` (lax.add, sub, mul or pow) of floats with its constant operands
    hidden from XLA's algebraic simplifier, which folds the constants of two
    such operations into one: (x + 0.05) - 0.1 into x + -0.05, (x * 3.0) *
    7.0 into x * 21.0, each another rounding than NumPy's (90% of the
    elements of the first differ); and makes x ** 3.0 x * x * x (26% one ulp
    off NumPy's pow).  As for `divide`, the barrier is dropped after
    simplifying on the CPU, and kept on accelerators (which get XLA's)."""
    def apply(x, y):
        if target_platforms() != ("cpu",):
            return op(x, y)
        return op(*(v if isinstance(v, jax.core.Tracer) else lax.optimization_barrier(v)
                    for v in (x, y)))
    return apply


_DIFFERENTIATED = contextvars.ContextVar("tpucc_differentiated", default=False)


def differentiated() -> bool:
    """Whether the op being lowered is inside a region that jax differentiates
    (a `grad` op).  A lowering with a custom gradient (jax.custom_vjp costs a
    nested trace) needs it only there."""
    return _DIFFERENTIATED.get()


@contextlib.contextmanager
def differentiating():
    token = _DIFFERENTIATED.set(True)
    try:
        yield
    finally:
        _DIFFERENTIATED.reset(token)


_TARGET_PLATFORMS = contextvars.ContextVar("tpucc_target_platforms", default=None)


def target_platforms() -> tuple:
    """The platforms the program being lowered will run on: jax's default
    backend, or the targets of an export (`lowering_for`).  Lowerings may
    pick the formulation each platform's XLA runs fastest; results agree."""
    return _TARGET_PLATFORMS.get() or (jax.default_backend(),)


@contextlib.contextmanager
def lowering_for(platforms):
    token = _TARGET_PLATFORMS.set(tuple(platforms))
    try:
        yield
    finally:
        _TARGET_PLATFORMS.reset(token)


def matmul_precision() -> str:
    """The compile option for products and convolutions ("highest" matches
    NumPy's float32 results on every backend)."""
    return ctx().options.get("matmul_precision", "highest")


# Bound last: these modules import this one.  (A function-level import
# costs ~2.6 us at every call; a trace makes a thousand of them.)
from ..infer.builder import ctx, emit  # noqa: E402
