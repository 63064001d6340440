"""Per-op differential tests generated from tpucc's op registry.

Every NumPy function in `tpucc.ops.NUMPY`, every array method in
`tpucc.ops.METHODS` and every Python operator installed on Arrays (plain and
in-place), plus indexing, is tested here with arguments generated from its
*signature kind* (unary or binary elementwise, reduction, shape op with static
parameters, creation op, product, ...) over 0-d, empty and ordinary shapes and
the dtypes bool, uint8, int8, int32, int64, float16, float32 and float64.  A
newly registered function, method or operator is picked up automatically; its
test fails until it has an argument generator (or a line in SKIP saying why
it is not tested here).  `test_every_registered_op_is_exercised` does the same
for the IR ops in `tpucc.ops.OPS`.

Each case runs eagerly with NumPy first.  Where NumPy returns, the compiled
result must have the same dtype, the same shape and the same values (exact
for integers and bools, within a few ulps for floats, NaN where NumPy has
NaN).  Where NumPy raises, tpucc must raise a TpuccError, not an
InternalError, located at the user's line.

Speed: XLA compiles every distinct (op, dtype, shape) as its own kernel, at
~20 ms of CPU each, and every compilation has a fixed cost.  So (1) all the
returning cases of GROUP_SIZE neighbouring registry entries are compiled as
ONE program returning a tuple (each entry's test still reports only its own
cases; see `check_group`); only if it fails to compile are the entries
compiled one by one, and then the culprits found case by case (lowering
only, no XLA); error cases stop in inference and run one by one; (2) each
op meets every dtype and every shape variant, not their product, with a
pairing that rotates from op to op (see `rotating`).
"""
from __future__ import annotations

import os
import warnings
import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

import tpucc
from tpucc.errors import InternalError, TpuccError
from tpucc.ops import METHODS, NUMPY, OPS
from tpucc.ops import elementwise

from conftest import assert_same, check, count_hlo

# --- dtypes and inputs -------------------------------------------------------------------

CORE = tuple(np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64"))
EXTRA = tuple(np.dtype(d) for d in ("uint8", "int8", "float16"))
ALL_DTYPES = CORE + EXTRA

# A second dtype for each dtype, to test promotion between different dtypes
# without the cost of every pair.
PARTNER = {np.dtype(a): np.dtype(b) for a, b in [
    ("bool", "int32"), ("uint8", "int64"), ("int8", "float16"), ("int32", "float32"),
    ("int64", "float64"), ("float16", "bool"), ("float32", "uint8"), ("float64", "int8")]}

# Written into the first elements of arrays marked `specials` (sarr).
SPECIALS = [np.nan, np.inf, -np.inf, -0.0]


def int_specials(dtype):
    """Zero (x // 0, x % 0), -1 and the extremes (overflow, MIN // -1)."""
    info = np.iinfo(dtype)
    return [0, info.max] if dtype.kind == "u" else [0, -1, info.min, info.max]


def sample(rng, dtype, shape, lo=None, hi=None):
    """Deterministic, well-conditioned values: small integers, and floats on a
    grid of quarters (exact in float16, so sums and products do not depend on
    the order XLA adds them in)."""
    return np.asarray(_sample(rng, np.dtype(dtype), shape, lo, hi))    # 0-d: an array


def _sample(rng, dtype, shape, lo, hi):
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "u":
        return rng.integers(0 if lo is None else lo, 10 if hi is None else hi, shape).astype(dtype)
    if dtype.kind == "i":
        return rng.integers(-8 if lo is None else lo, 9 if hi is None else hi, shape).astype(dtype)
    lo4, hi4 = (-12 if lo is None else 4 * lo), (13 if hi is None else 4 * hi)
    return (rng.integers(lo4, hi4, shape) / 4).astype(dtype)


def rng_for(name: str):
    return np.random.default_rng(zlib.crc32(name.encode()))


# --- cases and the programs that run them --------------------------------------------------

@dataclass
class Case:
    """One call `fn(*args, **kwargs)`.  Array arguments are runtime inputs of
    the compiled program; Python scalars, tuples and kwargs are static."""
    label: str
    fn: Callable
    args: tuple
    kwargs: dict = field(default_factory=dict)
    compare_values: bool = True     # False where NumPy's values are undefined (np.empty)
    tpucc_refuses: bool = False     # a documented limitation: NumPy returns, tpucc raises
    loose: bool = False             # LAPACK / FFT results: LOOSE_TOLERANCE, complex too
    expected: object = None         # NumPy's result, or the exception it raised
    numpy_raises: bool = False

    def run_eagerly(self):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                self.expected = self.fn(*_copy(self.args), **self.kwargs)
            except Exception as e:  # noqa: BLE001 - any NumPy error is an error case
                self.expected, self.numpy_raises = e, True


def _copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else
                 tuple(_copy(a)) if isinstance(a, tuple) else a for a in args)


def batch_program(cases):
    """One function evaluating every case; tpucc unrolls the static loop."""
    fns = tuple(c.fn for c in cases)
    kwargs = tuple(c.kwargs for c in cases)

    def program(groups):
        return tuple(fn(*args, **kw) for fn, args, kw in zip(fns, groups, kwargs))
    return program, tuple(c.args for c in cases)


def tolerance(dtype):
    """(rtol, atol): a few ulps, where XLA's transcendentals differ from NumPy's
    libm and float16 reductions round intermediate results differently."""
    return {np.dtype("float16"): (2e-3, 1e-4), np.dtype("float32"): (1e-6, 1e-7),
            np.dtype("float64"): (1e-14, 1e-15)}.get(np.dtype(dtype), (0, 0))


# Decompositions and FFTs: LAPACK and FFT libraries differ from NumPy's in
# their last bits (eigenvalues of a float32 matrix in the 6th digit).
LOOSE_TOLERANCE = {np.dtype("float16"): (2e-3, 2e-3), np.dtype("float32"): (2e-4, 2e-5),
                   np.dtype("float64"): (1e-10, 1e-11)}


def mismatch(case, actual) -> str | None:
    """Why `actual` differs from NumPy's result, or None."""
    expected = case.expected
    if isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(expected):
            return f"expected a sequence of {len(expected)} results, got {type(actual).__name__}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            sub = Case(case.label, case.fn, (), expected=e, compare_values=case.compare_values,
                       loose=case.loose)
            why = mismatch(sub, a)
            if why:
                return f"[{i}] {why}"
        return None
    e, a = np.asarray(expected), np.asarray(actual)
    if e.dtype != a.dtype:
        return f"dtype {a.dtype}, expected {e.dtype}"
    if e.shape != a.shape:
        return f"shape {a.shape}, expected {e.shape}"
    if not case.compare_values:
        return None
    rtol, atol = (LOOSE_TOLERANCE.get(np.finfo(e.dtype).dtype, (0, 0)) if case.loose
                  and e.dtype.kind in "fc" else tolerance(e.dtype))
    try:
        if e.dtype.kind == "f" or (case.loose and e.dtype.kind == "c"):
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(a, e)
    except AssertionError as err:
        return "values differ:" + "\n".join(str(err).splitlines()[2:])
    return None


def run_compiled(cases):
    """Compiles and runs the cases; a warning (NumPy's, jax's) is an error:
    compiling must not print anything the user did not ask for."""
    program, groups = batch_program(cases)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return tpucc.compile(program)(groups)


def check_value_cases(entry_id, cases) -> list[str]:
    """Compiles all cases as one program and compares; if that program fails
    to compile, finds the failing cases by lowering each alone (no XLA) and
    compiles the others again as one program."""
    if not cases:
        return []
    try:
        results = run_compiled(cases)
    except Exception:  # noqa: BLE001 - located case by case below
        refused = {id(c): why for c in cases if (why := lowering_failure(c))}
        if not refused:     # each lowers alone: an XLA or run-time failure, run each alone
            return [why for c in cases if (why := check_value_case_alone(entry_id, c))]
        failures = [f"{entry_id} {c.label}: NumPy returns, tpucc raised {refused[id(c)]}"
                    for c in cases if id(c) in refused]
        return failures + check_value_cases(entry_id, [c for c in cases if id(c) not in refused])
    return [f"{entry_id} {c.label}: {why}" for c, r in zip(cases, results)
            if (why := mismatch(c, r))]


def check_value_case_alone(entry_id, case) -> str | None:
    try:
        (result,) = run_compiled([case])
    except Exception as e:  # noqa: BLE001
        return f"{entry_id} {case.label}: NumPy returns, tpucc raised {type(e).__name__}: {e}"
    why = mismatch(case, result)
    return why and f"{entry_id} {case.label}: {why}"


def lowering_failure(case) -> str | None:
    program, groups = batch_program([case])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tpucc.compile(program).lower(groups)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"
    return None


TPUCC_DIR = os.path.dirname(os.path.abspath(tpucc.__file__)) + os.sep


def check_error_case(entry_id, case) -> str | None:
    """NumPy raises (or tpucc documents a refusal): tpucc must raise a
    TpuccError that is not an InternalError and that names a line."""
    what = "refusal" if case.tpucc_refuses else f"NumPy raises {type(case.expected).__name__}"
    try:
        run_compiled([case])
    except InternalError as e:
        return f"{entry_id} {case.label}: {what}, tpucc raised an InternalError: {e}"
    except TpuccError as e:
        if e.loc is None or os.path.abspath(e.loc.file).startswith(TPUCC_DIR):
            return f"{entry_id} {case.label}: {what}, tpucc's error is not at the user's line: {e}"
        return None
    except Exception as e:  # noqa: BLE001
        return f"{entry_id} {case.label}: {what}, tpucc raised raw {type(e).__name__}: {e}"
    return f"{entry_id} {case.label}: {what} ({case.expected}), tpucc returned"


def check_cases(entry_id, cases) -> list[str]:
    for c in cases:
        c.run_eagerly()
    values = [c for c in cases if not c.numpy_raises and not c.tpucc_refuses]
    errors = [c for c in cases if c.numpy_raises or c.tpucc_refuses]
    failures = check_value_cases(entry_id, values)
    failures += [why for c in errors if (why := check_error_case(entry_id, c))]
    return failures


def shape_label(*xs) -> str:
    parts = []
    for x in xs:
        if isinstance(x, np.ndarray):
            parts.append(f"{x.dtype}{list(x.shape)}")
        elif isinstance(x, tuple) and any(isinstance(v, np.ndarray) for v in x):
            parts.append(shape_label(*x))
        else:
            parts.append(repr(x))
    return "(" + ", ".join(parts) + ")"


# --- signature kinds: variants and the rows that pair them with dtypes --------------------
#
# A signature kind is a list of *variants*: argument lists whose arrays are
# placeholders (`arr(3, 4)`: an array of the row's dtype with that shape).  A
# generator pairs variants with dtypes in max(#dtypes, #variants) rows, so each
# op meets every dtype and every variant, and an offset taken from the op's
# name rotates the pairing, so a family of ops (all unary ufuncs, ...) meets
# every (dtype, variant) pair.  The full product would cost ~10x more XLA time
# (every distinct shape and dtype is a separate kernel to compile).


class DtypeRef:
    """A dtype argument that follows the row: ROW is its dtype, OTHER its PARTNER."""
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


ROW, OTHER = DtypeRef("ROW"), DtypeRef("OTHER")


@dataclass(frozen=True)
class A:
    """An array argument: the row's dtype unless `dtype` says otherwise,
    values in [lo, hi) (default: the op's domain), and special values in its
    first elements if `specials` (see sarr)."""
    shape: tuple
    dtype: object = ROW
    lo: int | None = None
    hi: int | None = None
    specials: bool = False
    scalar: bool = False    # a NumPy scalar (np.float32(1.5)) rather than a 0-d array


def arr(*shape, **kw) -> A:
    return A(shape, **kw)


def sarr(*shape, **kw) -> A:
    """An array with special values first: NaN, inf, -inf and -0.0 if float,
    0, -1 and the extremes if integer."""
    return A(shape, specials=True, **kw)


def barr(*shape) -> A:
    return A(shape, dtype=np.dtype(bool))


@dataclass
class V:
    """A variant: the arguments of one call, with placeholders."""
    args: tuple
    kwargs: dict
    note: str = ""
    fn: Callable | None = None      # the callable, where it is not the entry's
    refused: bool = False           # a documented tpucc refusal (NumPy returns)
    compare_values: bool = True
    loose: bool = False             # see LOOSE_TOLERANCE

    def uses_dtype(self) -> bool:
        return _has_ref(self.args) or _has_ref(tuple(self.kwargs.values()))


def v(*args, note="", fn=None, refused=False, **kwargs) -> V:
    return V(args, kwargs, note, fn, refused)


def lv(*args, **kwargs) -> V:
    """A variant compared with LOOSE_TOLERANCE."""
    variant = v(*args, **kwargs)
    variant.loose = True
    return variant


def _has_ref(values) -> bool:
    return any(isinstance(x, (A, DtypeRef)) or isinstance(x, tuple) and _has_ref(x)
               for x in values)


class Materializer:
    """Turns placeholders into values for one row (a dtype) of one op."""
    def __init__(self, rng, dtype, name):
        self.rng, self.dtype, self.name, self.position = rng, dtype, name, 0

    def __call__(self, x):
        if isinstance(x, DtypeRef):
            return self.dtype if x is ROW else PARTNER[self.dtype]
        if isinstance(x, A):
            return self.array(x)
        if isinstance(x, tuple):
            return tuple(self(i) for i in x)
        return x

    def array(self, a: A):
        dtype, position = np.dtype(self(a.dtype)), self.position
        if a.lo is None and a.hi is None:
            x, free = operand(self.rng, self.name, dtype, a.shape, position)
        else:
            x, free = sample(self.rng, dtype, a.shape, a.lo, a.hi), False
        if a.specials and free and dtype.kind in "fiu" and x.size:
            values = SPECIALS if dtype.kind == "f" else int_specials(dtype)
            values = values if position % 2 == 0 else values[::-1]     # pairs differ
            flat = x.reshape(-1)    # a view: writes into x
            flat[:len(values)] = values[:flat.size]
        return x[()] if a.scalar else x


def build_case(fn, rng, dtype, variant: V, name) -> Case:
    m = Materializer(rng, dtype, name)
    args = []
    for m.position, x in enumerate(variant.args):   # domains depend on the position
        args.append(m(x))
    kwargs = {k: m(x) for k, x in variant.kwargs.items()}
    case = make_case(variant.fn or fn, *args, note=variant.note, **kwargs)
    case.tpucc_refuses, case.compare_values = variant.refused, variant.compare_values
    case.loose = variant.loose
    return case


def make_case(fn, *args, note="", **kwargs) -> Case:
    extra = "".join(f", {k}={v!r}" for k, v in kwargs.items())
    label = shape_label(*args)[:-1] + extra + ")" + (f" {note}" if note else "")
    return Case(label, fn, args, kwargs)


def rotating(*variants, once=()):
    """A generator (fn, dtypes, name) -> [Case]: the rows described above,
    plus `once` variants (errors and dtype-independent calls) on one row."""
    def gen(fn, dtypes, name):
        rng, offset = rng_for(name), zlib.crc32(name.encode())
        n = max(len(dtypes), len(variants))
        rows = [(dtypes[i % len(dtypes)], variants[(i + offset) % len(variants)])
                for i in range(n)]
        rows += [(dtypes[offset % len(dtypes)], var) for var in once]
        seen, cases = set(), []
        for dtype, var in rows:
            if not var.uses_dtype():    # the same call on every row: once is enough
                if id(var) in seen:
                    continue
                seen.add(id(var))
            cases.append(build_case(fn, rng, dtype, var, name))
        return cases
    return gen


def operand(rng, name, dtype, shape, position):
    """Inputs in the domain where NumPy's result is defined without runtime
    errors and without C undefined behaviour: integer powers need non-negative
    exponents (NumPy raises on negative ones at run time, which a compiler
    cannot reproduce); NumPy's integer reciprocal of 0 casts inf to an
    integer (INT_MIN on x86), so integers there are non-zero.  Returns the
    values and whether the domain is free (special values may be added)."""
    kind = np.dtype(dtype).kind
    if name in ("power", "pow", "ipow") and position == 1 and kind in "iu":
        return sample(rng, dtype, shape, 0, 5), False
    if name == "reciprocal" and kind in "biu":
        return (sample(rng, dtype, shape, 1, 9) if kind != "b" else np.ones(shape, bool)), False
    return sample(rng, dtype, shape), True


# --- elementwise ----------------------------------------------------------------------------

gen_unary = rotating(v(sarr(3, 4)), v(sarr(5)), v(arr()), v(arr(2, 0)), v(sarr(2, 1, 3)))

BINARY_VARIANTS = [
    v(sarr(3, 4), sarr(3, 4)), v(sarr(3, 1), sarr(1, 4)), v(arr(), arr(2, 3)), v(arr(), arr()),
    v(arr(0, 3), arr(3)), v(arr(2, 3), arr(2, 3, dtype=OTHER), note="promotion"),
    v(arr(2, 3, dtype=OTHER), arr(2, 3), note="promotion"),
    # NEP 50: Python scalars are weak; out-of-range ints raise in NumPy 2 (except comparisons)
    v(arr(2, 3), 3, note="weak int"), v(2.5, arr(2, 3), note="weak float"),
    v(arr(2, 3), A((), dtype=OTHER, scalar=True), note="numpy scalar")]   # bools: operators
BINARY_ONCE = [v(arr(2, dtype=np.dtype("int8")), 300, note="weak int out of range"),
               v(-1, arr(2, dtype=np.dtype("uint8")), note="weak int out of range")]
gen_binary = rotating(*BINARY_VARIANTS, once=BINARY_ONCE)
# Operators share the ufuncs' ops; what is theirs is the dispatch: reflected
# operands, Python and NumPy scalars on either side.
gen_binary_operator = rotating(
    v(sarr(3, 4), sarr(3, 4)), v(arr(2, 3), 3, note="weak int"),
    v(2.5, arr(2, 3), note="weak float, reflected"),
    v(True, arr(2, 3), note="weak bool, reflected"),
    v(A((), dtype=OTHER, scalar=True), arr(2, 3), note="numpy scalar, reflected"),
    once=BINARY_ONCE)


def gen_astype(fn, dtypes, name):
    """Every dtype to every dtype (convert is behind every cast tpucc makes),
    on values where NumPy defines the conversion: float -> integer of NaN, inf
    or out-of-range values is C undefined behaviour, so those get finite
    non-negative values; NaN/inf/-0 go to bool and float."""
    rng = rng_for(name)
    cases = []
    for dt in dtypes:
        for to in ALL_DTYPES:
            x = sample(rng, dt, (3, 4), 0) if dt.kind == "f" and to.kind in "iu" else sample(
                rng, dt, (3, 4))
            if dt.kind == "f" and to.kind in "fb":
                x.reshape(-1)[:4] = SPECIALS
            cases.append(make_case(fn, x, to))
    return cases + [make_case(fn, sample(rng, dtypes[0], ()), np.float32),
                    make_case(fn, sample(rng, dtypes[-1], (0, 2)), np.int8)]


def gen_view(fn, dtypes, name):
    """Each dtype seen as every other numeric dtype of its item size (a
    bitcast); NaN and inf among the floats' bits."""
    rng = rng_for(name)
    cases = []
    for dt in dtypes:
        x = sample(rng, dt, (3, 4))
        if dt.kind == "f":
            x.reshape(-1)[:4] = SPECIALS
        for to in ALL_DTYPES:
            if to.itemsize == dt.itemsize and to != dt and "b" not in (to.kind, dt.kind):
                cases.append(make_case(fn, x, to))
    return cases


gen_round = rotating(
    v(sarr(3, 4)), v(sarr(3, 4), 1), v(arr(3, 4, lo=-60, hi=60), -1), v(arr()), v(arr(0, 2)),
    v(arr(5), 2), once=[v(arr(3, 4), 1.0)])
gen_copy = rotating(v(arr()), v(arr(0, 3)), v(arr(2, 3)))
gen_asarray = rotating(     # non-negative: float -> unsigned of negatives is C UB
    v(arr(2, 3, lo=0)), v(arr(2, 3, lo=0), dtype=OTHER), v(arr(2, 3), dtype=ROW),
    v(arr(), dtype=np.float32))

# --- reductions ----------------------------------------------------------------------------

REDUCTION_VARIANTS = [
    v(arr(3, 4)), v(arr(3, 4), axis=0), v(arr(3, 4), axis=-1), v(arr(2, 3, 4), axis=(0, 2)),
    v(arr(2, 3, 4), axis=-2, keepdims=True), v(arr(3, 4), keepdims=True), v(arr()),
    v(arr(), axis=0), v(arr(0)), v(arr(2, 0, 3), axis=1),
    v(arr(2, 0, 3), axis=(0, 2), keepdims=True), v(sarr(8), note="nan/inf/-0")]
# NumPy takes axes, dimensions and counts through operator.index: 1.0 and True are errors
REDUCTION_ONCE = [v(arr(3, 4), axis=2), v(arr(3, 4), axis=(0, 0)), v(arr(3, 4), axis=(1, -1)),
                  v(arr(), axis=1), v(arr(), axis=(0,)), v(arr(3, 4), axis=1.0),
                  v(arr(3, 4), axis=True)]
gen_reduction = rotating(*REDUCTION_VARIANTS, once=REDUCTION_ONCE)
# sum, prod, mean, var, std also take dtype=; var and std take ddof=
ACCUMULATING = [v(arr(3, 4), axis=0, dtype=np.dtype("float64")),
                v(arr(3, 4), dtype=np.dtype("int32"))]
gen_accumulating = rotating(*REDUCTION_VARIANTS, *ACCUMULATING, once=REDUCTION_ONCE)
# var and std share sum's handling of axes: fewer axis variants, plus ddof
gen_variance = rotating(
    v(arr(3, 4)), v(arr(2, 3, 4), axis=(0, 2), keepdims=True), v(arr(3, 4), axis=-1), v(arr()),
    v(arr(2, 0, 3), axis=1), v(sarr(8), note="nan/inf/-0"), *ACCUMULATING,
    v(arr(3, 4), axis=1, ddof=1), v(arr(3, 4), ddof=20), once=REDUCTION_ONCE)
gen_arg_reduction = rotating(
    v(arr()), v(arr(3, 4)), v(arr(3, 4), axis=0), v(arr(2, 3, 4), axis=-1),
    v(arr(2, 3, 4), axis=1, keepdims=True), v(arr(3, 4), keepdims=True), v(sarr(8)),
    v(arr(), axis=0), v(arr(0, 3), axis=1),
    once=[v(arr(0)), v(arr(0, 3), axis=0), v(arr(3, 4), axis=2), v(arr(3, 4), axis=(0, 1)),
          v(arr(3, 4), axis=1.0)])
gen_cumulative = rotating(
    v(arr()), v(arr(0, 2), axis=1), v(arr(3, 4)), v(arr(3, 4), axis=0), v(arr(3, 4), axis=-1),
    v(arr(3, 4), axis=1, dtype=np.dtype("float64")), v(sarr(8)), v(arr(), axis=0),
    once=[v(arr(3, 4), axis=2), v(arr(), axis=1), v(arr(3, 4), axis=1.0)])

# --- shape ops -------------------------------------------------------------------------------

gen_reshape = rotating(
    v(arr(2, 3), (3, 2)), v(arr(2, 3), (-1,)), v(arr(2, 3), (1, -1, 1)), v(arr(), (1, 1)),
    v(arr(1, 1), ()), v(arr(0, 3), (3, 0)), v(arr(0, 3), (-1, 3)), v(arr(2, 3), 6),
    v(arr(2, 3), 3, 2),     # np.reshape(a, 3, 2) is an error; a.reshape(3, 2) is not
    once=[v(arr(2, 3), (4, 2)), v(arr(2, 3), (-1, -1)), v(arr(0, 3), (-1, 0)),
          v(arr(2, 3), (3.0, 2))])
gen_ravel = rotating(v(arr()), v(arr(0, 2)), v(arr(2, 3, 2)))
gen_expand_dims = rotating(
    v(arr(), 0), v(arr(2, 3), -1), v(arr(2, 3), (0, 3)), v(arr(0), 1),
    once=[v(arr(2, 3), 3), v(arr(2, 3), (0, 0)), v(arr(2, 3), 1.0)])
gen_squeeze = rotating(
    v(arr()), v(arr(1, 3, 1)), v(arr(1, 3, 1), axis=-1), v(arr(1, 0, 1), axis=(0, 2)),
    once=[v(arr(1, 3), axis=1), v(arr(1, 3), axis=2), v(arr(1, 3), axis=0.0)])
gen_transpose = rotating(
    v(arr()), v(arr(2, 3)), v(arr(2, 0, 4), (2, 0, 1)), v(arr(2, 3, 4), (-1, 0, 1)),
    v(arr(2, 3), 1, 0),     # np.transpose(a, 1, 0) is an error; a.transpose(1, 0) is not
    once=[v(arr(2, 3), (0,)), v(arr(2, 3), (0, 0)), v(arr(2, 3), (1.0, 0))])
gen_swapaxes = rotating(v(arr(2, 3), 0, 1), v(arr(2, 0, 4), -1, 0), v(arr(2, 3), 1, 1),
                        once=[v(arr(2, 3), 0, 2), v(arr(2, 3), 0, 1.0)])
gen_moveaxis = rotating(v(arr(2, 3, 4), 0, -1), v(arr(2, 0, 4), (0, 1), (2, 0)),
                        once=[v(arr(2, 3), 2, 0), v(arr(2, 3, 4), (0, 0), (1, 2)),
                              v(arr(2, 3), 0.0, 1)])
gen_rollaxis = rotating(v(arr(2, 3, 4), 2), v(arr(2, 3, 4), 0, 3), v(arr(2, 0, 4), -1, 1),
                        v(arr(2, 3), 1, 1),
                        once=[v(arr(2, 3), 2), v(arr(2, 3), 0, 4), v(arr(2, 3), 0, -3),
                              v(arr(2, 3), 1.0)])
gen_broadcast_to = rotating(
    v(arr(), (2, 3)), v(arr(3), (2, 3)), v(arr(1, 3), (0, 3)), v(arr(3), 3),
    once=[v(arr(3), (4,)), v(arr(2, 3), (3,)), v(arr(3), (2.0, 3))])
gen_concatenate = rotating(
    v((arr(2, 3), arr(1, 3))), v((arr(2, 3), arr(2, 2, dtype=OTHER)), axis=1),
    v((arr(2, 0), arr(2, 3)), axis=-1), v((arr(2, 3), arr(3)), axis=None), v((arr(3),)),
    v((arr(2, 3), arr(1, 3)), dtype=np.dtype("float32")),
    once=[v((arr(), arr())), v((arr(2, 3), arr(2, 2))), v((arr(2, 3), arr(3))),
          v((arr(2, 3),), axis=2), v((arr(2, 3), arr(2, 3)), axis=1.0)])
gen_stack = rotating(
    v((arr(2, 3), arr(2, 3, dtype=OTHER))), v((arr(2, 3), arr(2, 3)), axis=-1),
    v((arr(), arr())), v((arr(0, 2),), axis=1),
    once=[v((arr(2, 3), arr(3, 2))), v((arr(2),), axis=2), v((arr(2), arr(2)), axis=1.0)])
gen_vhstack = rotating(
    v((arr(3), arr(3, dtype=OTHER))), v((arr(2, 3), arr(2, 3))), v((arr(), arr())),
    v((arr(2, 3, 1), arr(2, 3, 1))), v((arr(0, 3), arr(0, 3))),
    once=[v((arr(2, 3), arr(3, 2)))])
gen_flip = rotating(v(arr()), v(arr(2, 3)), v(arr(2, 3), 1), v(arr(2, 0, 3), (0, -1)),
                    once=[v(arr(2, 3), 2), v(arr(2, 3), 1.0)])
gen_flip_2d = rotating(v(arr(2, 3)), v(arr(3, 2, 2)), v(arr(0, 3)), once=[v(arr()), v(arr(3))])
gen_roll = rotating(
    v(arr(2, 3), 2), v(arr(2, 3), -1, axis=1), v(arr(2, 3), 7, axis=0),
    v(arr(2, 3), (1, -2), axis=(0, 1)), v(arr(2, 3), 1, axis=(0, 1)), v(arr(), 3),
    v(arr(0, 3), 1, axis=1), v(arr(2, 3), 1.0), once=[v(arr(2, 3), 1, axis=2)])
gen_where = rotating(
    v(barr(2, 3), arr(2, 3), arr(2, 3)), v(barr(3, 1), arr(4), arr(dtype=OTHER)),
    v(barr(2, 3), arr(2, 3), 0, note="weak"), v(barr(2, 3), 1.5, arr(3), note="weak"),
    v(arr(2, 3), arr(2, 3), arr(2, 3), note="non-bool condition"), v(barr(), arr(), arr()),
    v(barr(0), arr(0), arr(1)), v(barr(2, 3), arr(2, 3), 300, note="weak, out of range"),
    once=[v(barr(2, 3), arr(2, 3), arr(2)),
          v(barr(3), note="one argument: data-dependent shape", refused=True)])
gen_clip = rotating(
    v(arr(3, 4), 0, 3), v(arr(3, 4), None, 1), v(arr(3, 4), -1, None), v(arr(3, 4), 0.5, 2.5),
    v(arr(3, 4), arr(4), arr(3, 1)), v(arr(), arr(dtype=OTHER), 2), v(arr(0, 2), 0, 1),
    v(arr(3, 4), 3, 0), v(arr(3, 4), None, None), v(arr(3, 4), -300, 300),
    v(sarr(8), -1, 2, note="nan/inf/-0"), v(arr(3, 4), np.nan, 1.0),
    once=[v(arr(3, 4), arr(5), 1)])
gen_pad = rotating(
    v(arr(2, 3), 1), v(arr(2, 3), (1, 2)), v(arr(2, 3), ((0, 1), (2, 0)), constant_values=5),
    v(arr(3), 2, constant_values=2.5), v(arr(0, 2), 1), v(arr(), 1),
    v(arr(2, 3), (1, 2), mode="maximum", stat_length=1), v(arr(3, 2), 2, mode="mean"),
    v(arr(2, 3), ((0, 1), (2, 1)), mode="linear_ramp", end_values=1),
    once=[v(arr(2, 3), ((1, 1), (1, 1), (1, 1))), v(arr(3), -1), v(arr(3), 1.0),
          v(arr(3, 3), 1, mode="median", stat_length=(1, 2)), v(arr(0, 2), 1, mode="minimum")])
gen_tile = rotating(v(arr(2, 3), 2), v(arr(2, 3), (2, 1, 2)), v(arr(3), (2, 2)), v(arr(), 3),
                    v(arr(2, 3), 0), v(arr(0, 3), (2, 2)), once=[v(arr(2, 3), 2.0)])
gen_resize = rotating(v(arr(5), 12), v(arr(2, 3), (3, 3)), v(arr(2, 3), (2, 2)), v(arr(), (2, 2)),
                      v(arr(0), 3), v(arr(3), 0), v(arr(3), (2, 0)),
                      once=[v(arr(3), -1), v(arr(3), (2, 1.5))])
gen_sliding_window = rotating(
    v(arr(6), 3), v(arr(3, 4), (2, 2)), v(arr(3, 4), 2, axis=0), v(arr(3, 4), (2, 3), axis=(1, 0)),
    v(arr(4), 4),
    once=[v(arr(4), 5), v(arr(3, 4), 2), v(arr(3, 4), 2, axis=2),
          v(arr(4), 2, writeable=True)])
gen_repeat = rotating(
    v(arr(2, 3), 2), v(arr(2, 3), 3, axis=0), v(arr(2, 3), 2, axis=-1), v(arr(), 3),
    v(arr(2, 3), 0, axis=1), v(arr(0, 3), 2, axis=0), v(arr(2, 3), [1, 0, 2], axis=1),
    v(arr(3), (2, 1, 0)),
    once=[v(arr(2, 3), 2, axis=2), v(arr(2, 3), -1), v(arr(3), [1, 2]),
          v(arr(2, 3), np.int64(2), refused=True, note="a NumPy scalar count is a runtime value")])

# --- creation ---------------------------------------------------------------------------------

FILL_ONCE = [v(()), v(0), v((2, 3)), v((2, -1)), v((2.0, 3)), v(2.0)]
gen_fill = rotating(v((2, 3), dtype=ROW), v((), dtype=ROW), v(3, dtype=ROW),
                    v((2, 0), dtype=ROW), once=FILL_ONCE)
gen_empty = rotating(*(V(x.args, x.kwargs, compare_values=False) for x in (
    v((2, 3), dtype=ROW), v((), dtype=ROW), v(3, dtype=ROW), *FILL_ONCE)))
gen_full = rotating(
    v((2, 3), 3, dtype=ROW), v((), 2.5, dtype=ROW), v(3, arr(), note="runtime fill"),
    v((2, 3), arr(), dtype=np.dtype("float32"), note="runtime fill"),
    once=[v((2, 3), 7), v((), 2.5), v(0, True), v((2,), -1, dtype=np.dtype("uint8")),
          v((2,), 300, dtype=np.dtype("int8")), v((2.0,), 1)])
LIKE_VARIANTS = [v(arr(2, 3)), v(arr()), v(arr(0, 3), dtype=OTHER), v(arr(2), shape=(3, 1))]
gen_like = rotating(*LIKE_VARIANTS)
gen_empty_like = rotating(*(V(x.args, x.kwargs, compare_values=False) for x in LIKE_VARIANTS))
gen_full_like = rotating(
    v(arr(2, 3), 3), v(arr(), 1.5), v(arr(0, 3), 1, dtype=OTHER),
    v(arr(2), arr(dtype=OTHER), shape=(3, 1)),
    once=[v(arr(2, dtype=np.dtype("int8")), 300, note="out of range")])
gen_arange = rotating(
    v(2, dtype=ROW), v(1, 7, 2, dtype=ROW),     # bool: NumPy refuses more than 2 values
    once=[v(5), v(2, 10, 3), v(10, 2, -2), v(0.5, 3.0, 0.5), v(3, 3), v(5, 2), v(-3),
          v(1.0, -1.0, -0.3), v(1, 2, 0)])
gen_eye = rotating(v(3, dtype=ROW), v(2, 4, 1, dtype=ROW),
                   once=[v(3), v(2, 4), v(3, 3, 1), v(3, 4, -1), v(0), v(2, k=5), v(-1),
                         v(2.0), v(2, k=1.0)])
gen_identity = rotating(v(2, dtype=ROW), once=[v(3), v(0), v(-1)])
gen_window = rotating(v(6), once=[v(5), v(1), v(0), v(-2), v(4.0)])
gen_kaiser = rotating(v(6, 5.0), once=[v(5, 0.0), v(1, 3.0), v(0, 1.0), v(7, 14)])

# --- products ---------------------------------------------------------------------------------


def product_kind(good, bad):
    return rotating(*(v(arr(*a), arr(*b)) for a, b in good),
                    v(arr(2, 3), arr(3, 2, dtype=OTHER), note="promotion"),
                    once=[v(arr(*a), arr(*b)) for a, b in bad])


gen_matmul = product_kind(
    [((2, 3), (3, 4)), ((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 2, 3), (3, 4)),
     ((2, 1, 2, 3), (3, 3, 1)), ((0, 3), (3, 2)), ((2, 0), (0, 3))],
    [((2, 3), (4, 2)), ((), (3,)), ((2, 2, 3), (3, 3, 1))])
gen_dot = product_kind(
    [((2, 3), (3, 4)), ((3,), (3,)), ((), (2, 3)), ((2, 3), ()), ((2, 3, 4), (4,)),
     ((2, 3, 4), (5, 4, 2)), ((0, 3), (3, 2))],
    [((2, 3), (2, 3))])
gen_inner = product_kind([((3,), (3,)), ((2, 3), (4, 3)), ((), (2, 3)), ((2, 0), (3, 0))],
                         [((2, 3), (3, 2))])
gen_outer = product_kind([((3,), (4,)), ((2, 2), (3,)), ((), (2,)), ((0,), (3,))], [])
gen_vdot = product_kind([((3,), (3,)), ((2, 3), (3, 2)), ((0,), (0,))], [((3,), (4,))])
gen_tensordot = rotating(
    v(arr(2, 3, 4), arr(3, 4, 5)), v(arr(2, 3, 4), arr(3, 4, 5), axes=([1, 2], [0, 1])),
    v(arr(2, 3), arr(3, 2, dtype=OTHER), axes=1), v(arr(2), arr(3), axes=0),
    once=[v(arr(2, 3, 4), arr(3, 4, 5), axes=([0], [0]))])
gen_einsum = rotating(
    v("ij,jk->ik", arr(2, 3), arr(3, 4)), v("ii->i", arr(3, 3)), v("ij->", arr(2, 3)),
    v("bij,bjk->bik", arr(2, 2, 3), arr(2, 3, 2, dtype=OTHER)), v("i,j->ij", arr(0), arr(2)),
    once=[v("ij,jk->ik", arr(2, 3), arr(4, 4))])

# --- tpucc.nn ops (NCHW images, OIHW weights) ---------------------------------------------------

gen_conv2d = rotating(
    v(arr(2, 3, 5, 5), arr(4, 3, 3, 3)),
    v(arr(2, 3, 5, 5), arr(4, 3, 3, 3), arr(4), stride=2, padding=1),
    v(arr(2, 3, 5, 5), arr(6, 1, 3, 3), groups=3, padding="SAME"),
    v(arr(2, 3, 5, 5), arr(4, 3, 3, 3), dilation=2),
    once=[v(arr(2, 3, 5, 5), arr(4, 2, 3, 3))])
gen_pool = rotating(v(arr(2, 3, 6, 5), 2), v(arr(2, 3, 6, 5), 3, stride=2, padding=1),
                    v(arr(2, 3, 6, 5), (2, 3), stride=1), once=[v(arr(2, 3, 6, 5), 7)])

# --- indexing: x[key] and x[key] = v ------------------------------------------------------------


def getter(key):
    def getitem(a):
        return a[key]
    return getitem


def setter(key):
    def setitem(a, v):
        a = a.copy()
        a[key] = v
        return a
    return setitem


def index_getitem(a, i):
    return a[i]


def index_getitem_mixed(a, i, j):
    return a[i, 1:, j]


def index_setitem(a, i, v):
    a = a.copy()
    a[i] = v
    return a


def get(x, key, **kw):
    return v(x, note=f"key={key!r}", fn=getter(key), **kw)


def put(x, key, value, note=""):
    return v(x, value, note=f"key={key!r} {note}".rstrip(), fn=setter(key))


gen_getitem = rotating(
    *(get(arr(3, 4, 5), k) for k in [
        1, -1, (0, 2), slice(1, None), slice(None, None, -1), slice(None, None, 2),
        (Ellipsis, 1), (None, 1), (slice(1, 3), None, -2), (), Ellipsis,
        (slice(-1, None, -2), Ellipsis, slice(5, 0))]),
    *(get(arr(), k) for k in [(), Ellipsis, None]),
    get(arr(0, 3), (slice(None), 1)), get(arr(0, 3), slice(1, None)),
    v(arr(3, 4, 5), np.array([0, 2, -1]), fn=index_getitem),
    v(arr(3, 4, 5), np.array([[0], [2]], np.int32), fn=index_getitem),
    v(arr(3, 4, 5), np.zeros((0,), np.int64), fn=index_getitem),
    v(arr(3, 4, 5), np.array([[0], [1]]), np.array([1, 2, 4]), fn=index_getitem_mixed),
    once=[get(arr(3, 4, 5), k) for k in [3, -4, (0, 0, 0, 0), 1.5, (0, 4)]] + [
        get(arr(), 0), v(arr(3, 4, 5), np.array([0.0, 1.0]), fn=index_getitem),
        v(arr(3, 4), barr(3, 4), fn=index_getitem, refused=True, note="bool mask")])
gen_setitem = rotating(
    *(put(arr(3, 4), k, arr()) for k in [1, (slice(None), -1), (slice(None, None, 2),
                                                                  slice(1, 3)), Ellipsis, (0, 0)]),
    put(arr(3, 4), 0, arr(4, dtype=OTHER)), put(arr(3, 4), 0, 7, "weak int"),
    put(arr(3, 4), Ellipsis, arr(4)), put(arr(), (), arr()), put(arr(3, 4), slice(0, 0), arr(1, 4)),
    v(arr(3, 4), np.array([2, 0]), arr(2, 1), fn=index_setitem),
    v(arr(3, 4), barr(3, 4), 1, fn=index_setitem, note="bool mask"),
    once=[put(arr(3, 4), 0, arr(5)), put(arr(3, 4), 3, 1),
          put(arr(3, 4, dtype=np.dtype("int8")), 0, 300, "out of range"),
          v(arr(3, 4), barr(3, 4), arr(3, 4), fn=index_setitem, refused=True,
            note="bool mask, array of values")])



# --- manipulation, matrices, sorting, NaN reductions, in-place writes, solvers -------------------

gen_split = rotating(
    v(arr(6), 2), v(arr(6), [1, 4]), v(arr(4, 6), 3, axis=1), v(arr(4, 6), [2, 10, 1], axis=-1),
    v(arr(0, 3), 1), v(arr(2, 3), [], axis=1),
    once=[v(arr(6), 4), v(arr(), 1), v(arr(6), 2, axis=1), v(arr(6), 0)])
gen_array_split = rotating(
    v(arr(7), 3), v(arr(2, 7), 4, axis=1), v(arr(6), [2, 100, 1, -1]), v(arr(0), 2),
    once=[v(arr(6), 0), v(arr(6), -1), v(arr(), 2)])
gen_hsplit = rotating(v(arr(6), 3), v(arr(2, 4), [1, 3]), v(arr(2, 4, 2), 2),
                      once=[v(arr(), 1), v(arr(5), 2)])
gen_vsplit = rotating(v(arr(4, 2), 2), v(arr(4, 2, 3), [1]), once=[v(arr(4), 2)])
gen_dsplit = rotating(v(arr(2, 2, 4), 2), v(arr(1, 2, 4), [1, 3]), once=[v(arr(2, 4), 2)])
gen_atleast = rotating(v(arr()), v(arr(3)), v(arr(2, 3)), v(arr(2, 1, 3)), v(arr(0)),
                       v(arr(3), arr(2, 2)))
gen_broadcast_arrays = rotating(
    v(arr(3), arr(2, 1, dtype=OTHER)), v(arr(2, 3), arr(2, 3)), v(arr(), arr(0, 2)),
    once=[v(arr(3), arr(4))])
gen_column_stack = rotating(
    v((arr(3), arr(3, dtype=OTHER))), v((arr(3, 2), arr(3))), v((arr(), arr())),
    v((arr(0), arr(0, 2))), once=[v((arr(3), arr(4)))])
gen_dstack = rotating(v((arr(3), arr(3, dtype=OTHER))), v((arr(2, 3), arr(2, 3, 2))),
                      v((arr(), arr())), once=[v((arr(2), arr(3)))])
gen_meshgrid = rotating(
    v(arr(3), arr(2, dtype=OTHER)), v(arr(3), arr(2), indexing="ij"),
    v(arr(2), arr(3), arr(0), sparse=True), v(arr(2, 2), arr(3)), v(arr(3)),
    once=[v(arr(3), indexing="yx")])
gen_kron = rotating(v(arr(2, 3), arr(2, 2)), v(arr(3), arr(2, 2, dtype=OTHER)), v(arr(), arr(2)),
                    v(arr(2, 0), arr(3)))
gen_rot90 = rotating(
    v(arr(2, 3)), v(arr(2, 3), 2), v(arr(2, 3), -1), v(arr(2, 3, 4), 1, (2, 0)), v(arr(0, 3), 3),
    v(arr(2, 3), 4), once=[v(arr(2, 3), 1, (0, 0)), v(arr(3), 1), v(arr(2, 3), 1, (0, 1, 2))])
gen_diff = rotating(
    v(sarr(8)), v(arr(3, 4), 2), v(arr(3, 4), axis=0), v(arr(3, 4), 6), v(arr(0, 3)),
    v(arr(3, 4), prepend=0, append=arr(3, 1)), once=[v(arr()), v(arr(3), -1), v(arr(3), axis=1)])
gen_triangle = rotating(v(arr(3, 4)), v(arr(4, 4), 1), v(arr(2, 3, 3), -1), v(arr(3), 2),
                        v(arr(0, 2)), v(arr(3, 3), 10), once=[v(arr())])
gen_diagonal = rotating(
    v(arr(3, 4)), v(arr(3, 4), 1), v(arr(2, 3, 4), -1, 2, 0), v(arr(3, 4), 10), v(arr(0, 3)),
    once=[v(arr(3)), v(arr(3, 3), 0, 1, 1)])
gen_diag = rotating(v(arr(3)), v(arr(3), 2), v(arr(3), -1), v(arr(3, 4)), v(arr(3, 4), -2),
                    v(arr(0)), once=[v(arr()), v(arr(2, 2, 2))])
gen_trace = rotating(v(arr(3, 4)), v(arr(3, 4), 1), v(arr(2, 3, 4), 0, 1, 2),
                     v(arr(3, 3), dtype=np.dtype("float32")), v(arr(0, 2)), once=[v(arr(3))])
gen_norm = rotating(
    v(sarr(6)), v(arr(6), 1), v(arr(6), np.inf), v(arr(6), -np.inf), v(arr(6), 0), v(arr(6), 3),
    v(arr(3, 4)), v(arr(3, 4), "fro"), v(arr(3, 4), 1), v(arr(3, 4), -np.inf),
    v(arr(2, 3, 4), axis=1), v(arr(2, 3, 4), 1, axis=(2, 0), keepdims=True),
    v(arr(0, 3), np.inf, axis=(0, 1)), v(arr()),
    once=[lv(arr(3, 3), 2), lv(arr(3, 4), -2), lv(arr(2, 3, 4), "nuc", axis=(0, 2)),
          v(arr(2, 2, 2), 1),
          v(arr(3, 3), 3, axis=(0, 1)), v(arr(3, 3), axis=(1, 1))])
gen_sort = rotating(
    v(arr(3, 4)), v(sarr(9)), v(arr(3, 4), axis=0), v(arr(2, 3, 4), axis=None), v(arr(0, 3)),
    v(arr(), axis=None), v(arr(3, 4), kind="stable"),
    once=[v(arr()), v(arr(3, 4), axis=2), v(arr(3), kind="bogus"), v(arr(3), order="x")])
# NumPy's default argsort orders ties as it likes; kind="stable" is what tpucc's always is
gen_argsort = rotating(
    v(arr(3, 4), kind="stable"), v(sarr(9), kind="stable"), v(arr(3, 4), axis=0, kind="stable"),
    v(arr(2, 3, 4), axis=None, kind="stable"), v(arr(0, 3), kind="stable"),
    v(arr(), kind="stable"), v(arr(3, 4), stable=True),
    once=[v(arr(3, 4), axis=2), v(arr(3), kind="bogus")])


def sorted_copy(a, *args, **kwargs):
    a = a.copy()
    a.sort(*args, **kwargs)
    return a


gen_sort_method = rotating(
    v(arr(3, 4), fn=sorted_copy), v(sarr(9), fn=sorted_copy),
    v(arr(3, 4), axis=0, fn=sorted_copy), v(arr(0, 3), fn=sorted_copy),
    once=[v(arr(3, 4), axis=None, fn=sorted_copy), v(arr(), fn=sorted_copy)])
gen_take = rotating(
    v(arr(3, 4), 5), v(arr(3, 4), [0, -1]), v(arr(3, 4), np.array([[1, 2]]), axis=1),
    v(arr(3, 4), 1, axis=0), v(arr(3, 4), [5, -7], axis=1, mode="wrap"),
    v(arr(3, 4), [5, -7], axis=0, mode="clip"), v(arr(), 0), v(arr(0, 3), [], axis=0),
    v(arr(3, 4), np.array([2, 0]), axis=1, mode="wrap"),
    once=[v(arr(3, 4), [4], axis=1), v(arr(3, 4), 1, axis=2), v(arr(0), [1], mode="wrap")])
gen_take_along_axis = rotating(
    v(arr(3, 4), np.array([[0], [3], [1]]), 1), v(arr(3, 4), np.array([[2, 0, 1, 1]]), 0),
    v(arr(3, 4), np.array([5, 0]), None), v(arr(2, 3, 2), np.zeros((2, 1, 2), np.int64), 1),
    once=[v(arr(3, 4), np.array([0]), 0), v(arr(3, 4), np.array([[0.0]]), 0),
          v(arr(3, 4), np.array([[0, 1]]), 0)])
gen_isclose = rotating(
    v(sarr(3, 4), sarr(3, 4)), v(arr(3, 4), arr(4, dtype=OTHER)), v(arr(2, 3), 1),
    v(2.5, arr(2, 3)), v(arr(), arr()), v(sarr(8), sarr(8), equal_nan=True),
    v(arr(2, 3), arr(2, 3), rtol=0.1, atol=0.0), v(arr(0), arr(0)))
gen_allclose = rotating(v(arr(3, 4), arr(3, 4)), v(sarr(5), sarr(5), equal_nan=True),
                        v(arr(2, 3), arr(3)), v(arr(), 1.5), once=[v(arr(3), arr(4))])
gen_count_nonzero = rotating(
    v(sarr(3, 4)), v(arr(3, 4), axis=0), v(arr(2, 3, 4), axis=(0, 2)),
    v(arr(3, 4), axis=-1, keepdims=True), v(arr()), v(arr(0, 3), axis=1),
    once=[v(arr(3, 4), axis=2)])
NAN_REDUCTION_VARIANTS = [
    v(sarr(3, 4)), v(sarr(3, 4), axis=0), v(sarr(2, 3, 4), axis=(0, 2), keepdims=True), v(arr()),
    v(arr(0, 3), axis=0), v(sarr(8), keepdims=True)]
gen_nan_extreme = rotating(
    *NAN_REDUCTION_VARIANTS,
    once=[v(arr(0)), v(arr(3, 4), axis=2), v(arr(3), out=arr(), refused=True)])
gen_nan_accumulating = rotating(
    *NAN_REDUCTION_VARIANTS, v(sarr(3, 4), axis=1, dtype=np.dtype("float64")),
    once=[v(arr(3, 4), axis=2), v(arr(3), where=barr(3), refused=True)])
gen_median = rotating(
    v(sarr(3, 4)), v(arr(3, 4), axis=0), v(sarr(2, 3, 4), axis=(0, 2), keepdims=True), v(arr()),
    v(arr(5), axis=-1), v(sarr(8), keepdims=True),
    once=[v(arr(3, 4), axis=2), v(arr(3), out=arr(), refused=True)])

gen_percentile = rotating(
    v(sarr(3, 4), q=50), v(arr(3, 4), q=[10, 90], axis=0), v(sarr(2, 3, 4), q=37.5, axis=(0, 2),
                                                              keepdims=True),
    v(arr(5), q=[0, 100.0], axis=-1), v(sarr(8), q=25, keepdims=True),
    once=[v(arr(3), q=101), v(arr(3), q=50, out=arr(), refused=True)])
gen_quantile = rotating(
    v(sarr(3, 4), q=0.5), v(arr(3, 4), q=[0.1, 0.9], axis=0), v(sarr(2, 3, 4), q=1, axis=(0, 2)),
    v(arr(5), q=[0, 1], axis=-1), v(sarr(8), q=0.25, keepdims=True),
    once=[v(arr(3), q=-0.5), v(arr(3), q=0.5, method="nearest", refused=True)])


# Index arithmetic: indices of the row's dtype (floats raise TypeError in NumPy).
gen_unravel_index = rotating(
    v(arr(4, lo=0, hi=12), (3, 4)), v(arr(2, 3, lo=0, hi=12), (3, 4), order="F"),
    v(arr(lo=0, hi=6), (2, 3)), v(arr(0), (2, 3)), v(arr(3, lo=0, hi=24), (2, 3, 4)),
    once=[v(arr(3, lo=12, hi=13), (3, 4)), v(arr(2, lo=0, hi=2), (3, 4), order="K")])
gen_ravel_multi_index = rotating(
    v((arr(3, lo=0, hi=3), arr(3, lo=0, hi=4)), (3, 4)),
    v((arr(2, 1, lo=0, hi=3), arr(3, lo=0, hi=4)), (3, 4), order="F"),
    v((arr(4, lo=-5, hi=9), arr(4, lo=-5, hi=9)), (3, 4), mode="wrap"),
    v((arr(lo=-5, hi=9), arr(lo=-5, hi=9)), (3, 4), mode=("clip", "wrap")),
    once=[v((arr(2, lo=3, hi=4), arr(2, lo=0, hi=1)), (3, 4)),
          v((arr(2, lo=0, hi=1),), (3, 4))])


def sorted_first(fn, reverse=False):
    """fn with its second (bins) or first (a) array sorted, as NumPy requires."""
    def call(a, b, **kwargs):
        if fn is np.digitize:
            b = np.sort(b)[::-1] if reverse else np.sort(b)
        else:
            a = np.sort(a)
        return fn(a, b, **kwargs)
    call.__name__ = getattr(fn, "__name__", "sorted_first")
    return call


def gen_searchsorted(fn, dtypes, name):
    s = sorted_first(fn)
    return rotating(
        v(sarr(9), sarr(3, 4), fn=s), v(arr(8), arr(5, dtype=OTHER), side="right", fn=s),
        v(arr(5), arr(), fn=s), v(arr(0), arr(3), fn=s), v(arr(6), 2.5, fn=s),
        v(arr(7), arr(0), side="right", fn=s),
        once=[v(arr(2, 2), arr(2), fn=s), v(arr(3), arr(2), side="middle", fn=s)],
    )(fn, dtypes, name)


def gen_digitize(fn, dtypes, name):
    up, down = sorted_first(fn), sorted_first(fn, reverse=True)
    return rotating(
        v(sarr(3, 4), sarr(5), fn=up), v(sarr(7), arr(4, dtype=OTHER), fn=down),
        v(arr(6), arr(5), right=True, fn=up), v(arr(), arr(3), right=True, fn=down),
        v(arr(4), arr(0), fn=up),
        once=[v(arr(4), np.array([1.0, 3.0, 2.0])), v(arr(3), arr(2, 2))],
    )(fn, dtypes, name)

gen_cov = rotating(
    v(arr(3, 5)), v(arr(5, 3), rowvar=False), v(arr(2, 6), bias=True), v(arr(6), ddof=0),
    v(arr(2, 4), arr(4, dtype=OTHER)), v(arr(0, 3)), v(arr(4, 2), arr(4), rowvar=False),
    once=[v(arr(2, 2, 2)), v(arr(3, 4), fweights=np.ones(4, np.int64), refused=True)])


gen_average = rotating(
    v(arr(3, 4)), v(arr(3, 4), axis=0), v(arr(3, 4), weights=arr(3, 4, lo=1, hi=4)),
    v(arr(3, 4), axis=1, weights=arr(4, lo=1, hi=3, dtype=OTHER), returned=True),
    v(arr(2, 3, 4), axis=(0, 2), keepdims=True), v(arr()), v(sarr(6), returned=True),
    once=[v(arr(3, 4), weights=arr(4)), v(arr(3, 4), axis=0, weights=arr(4))])


def selected(c1, c2, x, y, **kwargs):
    return np.select([c1, c2], [x, y], **kwargs)


gen_select = rotating(
    v(barr(3, 4), barr(3, 4), arr(3, 4), arr(3, 4), fn=selected),
    v(barr(3, 1), barr(4), arr(4), arr(dtype=OTHER), default=2, fn=selected),
    v(barr(3), barr(3), arr(3), 1.5, default=arr(), fn=selected),
    v(barr(), barr(), arr(), arr(), fn=selected),
    once=[v(arr(3, dtype=np.dtype("int64")), barr(3), arr(3), arr(3), fn=selected)])
gen_trapezoid = rotating(
    v(arr(3, 4)), v(arr(3, 4), dx=0.5), v(arr(3, 4), x=arr(4), axis=1), v(arr(3, 4), axis=0),
    v(arr(5), x=arr(5, dtype=OTHER)), once=[v(arr())])
gen_gradient = rotating(
    v(arr(3, 4)), v(arr(5), 0.5), v(arr(3, 4), axis=1, edge_order=2), v(arr(3, 4), 2.0, 1.0),
    v(arr(5), np.array([0.0, 0.5, 1.5, 2.0, 4.0])),
    v(arr(3, 4), np.linspace(0.0, 1.0, 3), np.array([0, 1, 3, 6]), edge_order=2),
    v(arr(4), arr(4, dtype=OTHER)),
    once=[v(arr(1)), v(arr(3), edge_order=3), v(arr(3, 4), 1.0, 2.0, 3.0),
          v(arr(3), np.zeros((3, 1))), v(arr(3), np.arange(4.0))])
gen_ediff1d = rotating(v(arr(3, 4)), v(arr(5), to_begin=arr(2)), v(arr(0)),
                       v(arr(4), to_end=arr(), to_begin=0))
gen_unpackbits = rotating(
    v(arr(2, 3, dtype=np.uint8)), v(arr(2, 3, dtype=np.uint8), axis=1),
    v(arr(4, dtype=np.uint8), count=-3, bitorder="little"), v(arr(3, dtype=np.uint8), count=30),
    v(arr(dtype=np.uint8)), v(arr(0, dtype=np.uint8)),
    once=[v(arr(3)), v(arr(2, dtype=np.uint8), count=-17), v(arr(2, dtype=np.uint8), bitorder="lx"),
          v(arr(2, dtype=np.uint8), bitorder="B")])
gen_packbits = rotating(v(arr(11)), v(arr(3, 5), axis=1), v(arr(10, 2), axis=0, bitorder="little"),
                        v(arr(8)), v(arr()), v(arr(2, 0), axis=0),
                        once=[v(arr(3), bitorder="bigx"), v(arr(3), bitorder="b")])
gen_unwrap = rotating(v(arr(6)), v(arr(3, 4), axis=0), v(arr(5), period=6),
                      v(arr(5), discont=4.0), once=[v(arr())])


def interp_increasing(x, xp, fp, **kwargs):
    """np.interp on strictly increasing sample points, as NumPy requires."""
    return np.interp(x, np.cumsum(np.abs(xp) + 1), fp, **kwargs)


gen_interp = rotating(
    v(sarr(3, 4), arr(5), arr(5), fn=interp_increasing),
    v(arr(6), arr(4), arr(4, dtype=OTHER), left=-1.5, right=2, fn=interp_increasing),
    v(arr(), arr(3), arr(3), fn=interp_increasing),
    v(arr(5), arr(4), arr(4), period=3, fn=interp_increasing),
    once=[v(arr(3), arr(3), arr(2), fn=interp_increasing),
          v(arr(3), arr(3), arr(3), period=0, fn=interp_increasing)])
gen_cross = rotating(
    v(arr(3), arr(3)), v(arr(2, 3), arr(3, dtype=OTHER)), v(arr(3, 2), arr(3, 4), axis=0),
    v(arr(4, 2), arr(4, 3)), v(arr(2), arr(2)),
    once=[v(arr(4), arr(4)), v(arr(), arr(3))])
gen_vander = rotating(v(arr(4)), v(arr(3), 5), v(arr(5), 3), v(arr(3), 2, increasing=True),
                      v(arr(3), 4, increasing=True), v(arr(0)),
                      once=[v(arr(2, 2)), v(arr(3), -1)])
gen_polyval = rotating(v(arr(4), arr(3, 2)), v(arr(3), arr()), v(arr(2), arr(4, dtype=OTHER)),
                       v(arr(0), arr(3)), v(arr(3, 2), arr(2)),
                       once=[v(arr(), arr(3)), v(arr(2, 3, 2), arr(4, 1, 1))])
gen_poly = rotating(v(arr(3)), v(arr(1)), v(arr(4)), v(arr(0)),
                    once=[v(arr()), v(arr(2, 3)), v(arr(0, 0))])
gen_sort_complex = rotating(v(arr(5)), v(arr(3, 4)), v(arr(0)), once=[v(arr())])
gen_polyder = rotating(v(arr(4)), v(arr(5), 2), v(arr(3), 0), v(arr(2), 4), v(arr(1)),
                      once=[v(arr(3), -1), v(arr())])
gen_polyint = rotating(v(arr(4)), v(arr(3), 2), v(arr(3), 0), v(arr(3), 2, k=[1, 2]),
                       v(arr(2), 3, k=arr()), v(arr(4), k=1.5),
                       once=[v(arr(3), -1), v(arr(3), 3, k=[1, 2]), v(arr())])
gen_polyadd = rotating(v(arr(4), arr(2)), v(arr(2), arr(4, dtype=OTHER)), v(arr(3), arr(3)),
                       v(arr(3), 2.5), v(arr(), arr(3)))
gen_convolve = rotating(
    v(arr(6), arr(3)), v(arr(4), arr(5), mode="same"), v(arr(6), arr(2, dtype=OTHER), mode="valid"),
    v(arr(), arr(3)), v(arr(7), arr(4), mode="same"),
    once=[v(arr(3), arr(0)), v(arr(3), arr(2), mode="bogus")])
gen_isin = rotating(
    v(arr(3, 4), arr(5)), v(arr(4), arr(2, 2, dtype=OTHER)), v(arr(), arr(3), invert=True),
    v(arr(0), arr(3)), v(sarr(6), sarr(3)), once=[v(arr(3), arr(3), kind="bogus")])
gen_lexsort = rotating(
    v((arr(6), arr(6))), v((arr(2, 3), arr(2, 3, dtype=OTHER)), axis=0), v(arr(3, 5)),
    v(arr(4)), once=[v((arr(3), arr(4))), v(())])


gen_histogram = rotating(
    v(arr(20)), v(arr(4, 5), bins=4, range=(0, 3)), v(arr(12), bins=3, density=True),
    v(arr(10), bins=5, weights=arr(10, dtype=OTHER)), v(arr(0)), v(arr(6), bins=2, range=(1, 1)),
    v(arr(12), bins=[-2, 0, 0.5, 3], note="edges"), v(arr(3, 4), bins=(-1, 1, 2), density=True),
    v(arr(10), bins=[-3, 0, 3], weights=arr(10, dtype=OTHER), note="edges, weights"),
    once=[v(arr(5), bins=0), v(arr(5), range=(2, 1)), v(arr(5), bins=[1, 0, 2]),
          v(arr(5), bins="auto", refused=True, note="bins from the data: a runtime count")])
gen_histogram_bin_edges = rotating(
    v(arr(20)), v(arr(4, 5), bins=4, range=(0, 3)), v(arr(12), 3), v(arr(0)),
    v(arr(6), bins=[0, 1, 2.5]),
    once=[v(arr(5), bins=0), v(arr(5), range=(2, 1))])


# Refused with the reason (see tpucc/ops/searching.py).
gen_refused_partition = rotating(v(arr(5), 2, refused=True), once=[v(arr(3, 4), 1, refused=True)])
gen_refused_bincount = rotating(v(arr(5, lo=0, hi=4), refused=True),
                                v([0, 2, 2, 1], arr(4, dtype=OTHER)),
                                v([1, 0, 3], arr(3), minlength=5))
gen_refused_data_dependent = rotating(v(arr(5), refused=True), once=[v(arr(2, 3), refused=True)])
gen_refused_trim_zeros = rotating(v(arr(5), refused=True))
gen_refused_set_operation = rotating(v(arr(5), arr(4), refused=True),
                                     once=[v(arr(2, 3), arr(3), refused=True)])


def complex_part(part):
    """np.real / np.imag / np.angle of a complex array the program makes (the
    generated arguments are real), and of the real arguments themselves."""
    def of_complex(a, b, **kwargs):
        return part(a + 1j * b, **kwargs)
    return of_complex


def written_part(part):
    """A write into np.real(z) / np.imag(z), views of z (np.angle's result is
    a new array: z stays as it is)."""
    def write(a, b):
        z = a + 1j * b
        view = part(z)
        view[...] = a * 2
        return z
    return write


def gen_complex_part(fn, dtypes, name):
    return rotating(v(arr(3, 4), arr(3, 4), fn=complex_part(fn)), v(arr(2, 3)), v(arr()),
                    v(arr(5), arr(5, dtype=OTHER), fn=complex_part(fn)),
                    v(arr(2, 3), arr(2, 3), fn=written_part(fn)))(fn, dtypes, name)


gen_nan_to_num = rotating(v(sarr(3, 4)), v(sarr(5), nan=1.5, posinf=2), v(arr()),
                          v(sarr(4), copy=False), v(arr(0, 2)))


def copied_into(dst, src, **kwargs):
    dst = dst.copy()
    np.copyto(dst, src, **kwargs)
    return dst


def filled(a, value):
    a = a.copy()
    a.fill(value)
    return a


def diagonal_filled(a, val, **kwargs):
    a = a.copy()
    np.fill_diagonal(a, val, **kwargs)
    return a


gen_fill_diagonal = rotating(
    v(arr(4, 4), 2.5, fn=diagonal_filled), v(arr(5, 3), arr(2, dtype=OTHER), fn=diagonal_filled),
    v(arr(5, 3), arr(), wrap=True, fn=diagonal_filled), v(arr(3, 3, 3), True, fn=diagonal_filled),
    v(arr(0, 2), 1, fn=diagonal_filled),
    once=[v(arr(3), 1, fn=diagonal_filled), v(arr(2, 3, 3), 1, fn=diagonal_filled),
          v(arr(2, 2, dtype=np.dtype("int8")), 300, fn=diagonal_filled)])
gen_copyto = rotating(
    v(arr(3, 4), arr(4, dtype=OTHER), fn=copied_into), v(arr(3, 4), 1.5, fn=copied_into),
    v(arr(2, 3), arr(2, 3), where=barr(2, 3), fn=copied_into), v(arr(), arr(), fn=copied_into),
    v(arr(3), True, fn=copied_into),
    once=[v(arr(3), arr(2), fn=copied_into),
          v(arr(3, dtype=np.dtype("int8")), 300, fn=copied_into)])
gen_fill_method = rotating(
    v(arr(3, 4), 2.5, fn=filled), v(arr(3, 4), arr(dtype=OTHER), fn=filled),
    v(arr(), True, fn=filled), v(arr(0, 2), 1, fn=filled),
    once=[v(arr(3, dtype=np.dtype("int8")), 300, fn=filled), v(arr(3), arr(2), fn=filled)])
gen_item_method = rotating(
    v(arr(3, 4), 5), v(arr(3, 4), 1, 2), v(arr(1, 1)), v(arr()), v(arr(3, 4), (2, 3)),
    once=[v(arr(3, 4)), v(arr(3, 4), 12)])


def _dominant(a):
    """A diagonally dominant matrix (values in [0, 2)): far from singular."""
    return a + 8 * np.eye(a.shape[-1], dtype=a.dtype)


def inv_dominant(a):
    return np.linalg.inv(_dominant(a))


def det_dominant(a):
    return np.linalg.det(_dominant(a))


def solve_dominant(a, b):
    return np.linalg.solve(_dominant(a), b)


def cholesky_spd(a, **kwargs):
    return np.linalg.cholesky(_dominant(a @ np.swapaxes(a, -1, -2)), **kwargs)


def square_variants(fn):
    return [v(arr(3, 3, lo=0, hi=2), fn=fn), v(arr(2, 3, 3, lo=0, hi=2), fn=fn),
            v(arr(0, 0), fn=fn)]


gen_inv = rotating(*square_variants(inv_dominant), once=[v(arr(3)), v(arr(2, 3))])
gen_det = rotating(*square_variants(det_dominant), once=[v(arr(3)), v(arr(2, 3))])
gen_cholesky = rotating(*square_variants(cholesky_spd),
                        v(arr(3, 3, lo=0, hi=2), upper=True, fn=cholesky_spd),
                        once=[v(arr(2, 3))])
gen_solve = rotating(
    v(arr(3, 3, lo=0, hi=2), arr(3), fn=solve_dominant),
    v(arr(2, 3, 3, lo=0, hi=2), arr(3, 2, dtype=OTHER), fn=solve_dominant),
    v(arr(3, 3, lo=0, hi=2), arr(2, 3, 4), fn=solve_dominant),
    once=[v(arr(3, 3), arr(4)), v(arr(2, 3, 3), arr(2, 3))])


# Decompositions (tpucc/ops/decompositions.py): vectors are defined up to a
# sign or phase, so the programs return what does not depend on it.
def _hermitian(a):
    return a + np.swapaxes(a, -1, -2)


def eigh_checked(a, **kwargs):
    s = _hermitian(a)
    w, vectors = np.linalg.eigh(s, **kwargs)
    return w, s @ vectors - vectors * w[..., None, :]


def eigvalsh_symmetric(a, **kwargs):
    return np.linalg.eigvalsh(_hermitian(a), **kwargs)


def svd_checked(a, **kwargs):
    u, sv, vh = np.linalg.svd(a, full_matrices=False, **kwargs)
    return sv, (u * sv[..., None, :]) @ vh


def svd_full_shapes(a):
    u, sv, vh = np.linalg.svd(a)
    return u.shape, sv, vh.shape


def svd_hermitian(a):
    return svd_checked(_hermitian(a), hermitian=True)


def qr_checked(a, **kwargs):
    q, r = np.linalg.qr(a, **kwargs)
    return q @ r, np.abs(r)


def qr_r(a):
    return np.abs(np.linalg.qr(a, mode="r"))


def slogdet_dominant(a):
    return np.linalg.slogdet(_dominant(a))


def eig_of_complex(a, b):
    z = a + 1j * b
    w, vectors = np.linalg.eig(z)
    return z @ vectors - vectors * w[..., None, :], np.abs(np.linalg.eigvals(z)).sum(-1)


def power_dominant(a, n):
    return np.linalg.matrix_power(_dominant(a), n)


def lstsq_full_rank(a, b, **kwargs):
    """A full-rank a (M > N: else lstsq raises at run time, see decompositions.py)."""
    return np.linalg.lstsq(a + 8 * np.eye(*a.shape[-2:], dtype=a.dtype), b, **kwargs)


def pinv_hermitian(a):
    return np.linalg.pinv(_hermitian(a), hermitian=True)


def rank_hermitian(a):
    return np.linalg.matrix_rank(_hermitian(a), hermitian=True)


def cond_dominant(a, *p):
    return np.linalg.cond(_dominant(a), *p)


def polyfit_on_grid(y, deg, **kwargs):
    return np.polyfit(np.arange(y.shape[0]) * 0.5 - 1, y, deg, **kwargs)


gen_eigh = rotating(lv(arr(3, 3), fn=eigh_checked), lv(arr(2, 3, 3), fn=eigh_checked),
                    lv(arr(4, 4), UPLO="U", fn=eigh_checked), lv(arr(0, 0), fn=eigh_checked),
                    once=[v(arr(2, 3)), v(arr(3))])
gen_eigvalsh = rotating(lv(arr(3, 3), fn=eigvalsh_symmetric), lv(arr(2, 4, 4)),
                        lv(arr(3, 3), UPLO="U"), once=[v(arr(2, 3)), v(arr(3, 3), "X")])
gen_svd = rotating(lv(arr(3, 3), fn=svd_checked), lv(arr(4, 2), fn=svd_checked),
                   lv(arr(2, 3, 5), fn=svd_checked), lv(arr(4, 3), compute_uv=False),
                   lv(arr(2, 5, 3), fn=svd_full_shapes), lv(arr(3, 3), fn=svd_hermitian),
                   lv(arr(0, 3), fn=svd_full_shapes), once=[v(arr(3))])
gen_qr = rotating(lv(arr(3, 3), fn=qr_checked), lv(arr(4, 2), fn=qr_checked),
                  lv(arr(2, 3, 5), mode="complete", fn=qr_checked), lv(arr(4, 3), fn=qr_r),
                  once=[v(arr(3)), v(arr(3, 3), mode="raw", refused=True),
                        v(arr(3, 3), mode="x")])
gen_slogdet = rotating(*square_variants(slogdet_dominant), lv(arr(3, 3)),
                       once=[v(arr(2, 3))])
gen_eig = rotating(v(arr(3, 3), refused=True, note="real: a dtype known at run time"),
                   lv(arr(3, 3, lo=0, hi=2), arr(3, 3, lo=0, hi=2), fn=eig_of_complex),
                   lv(arr(2, 2, 2, lo=0, hi=2), arr(2, 2, 2, lo=0, hi=2), fn=eig_of_complex),
                   once=[v(arr(2, 3))])
gen_matrix_power = rotating(
    v(arr(3, 3, lo=0, hi=2), 0), v(arr(3, 3), 1), v(arr(2, 3, 3, lo=0, hi=2), 2),
    lv(arr(3, 3, lo=0, hi=2), 3), lv(arr(3, 3, lo=0, hi=1), 5),
    lv(arr(2, 3, 3, lo=0, hi=2), -1, fn=power_dominant),
    lv(arr(3, 3, lo=0, hi=2), -2, fn=power_dominant),
    once=[v(arr(3, 3), 0.5), v(arr(2, 3), 2), v(arr(3, 3), 2.0)])
gen_lstsq = rotating(
    lv(arr(5, 3), arr(5), fn=lstsq_full_rank), lv(arr(3, 5), arr(3, 2), fn=lstsq_full_rank),
    lv(arr(3, 3), arr(3), fn=lstsq_full_rank), lv(arr(4, 2), arr(4, 3), rcond=1e-3,
                                                   fn=lstsq_full_rank),
    once=[v(arr(2, 3, 3), arr(2, 3)), v(arr(3, 3), arr(4))])
gen_pinv = rotating(lv(arr(3, 3)), lv(arr(4, 2)), lv(arr(2, 3, 4), rcond=0.1),
                    lv(arr(3, 3), rtol=None), lv(arr(3, 3), fn=pinv_hermitian),
                    lv(arr(0, 3)), once=[v(arr(3)), v(arr(3, 3), 0.1, rtol=0.1)])
gen_matrix_rank = rotating(lv(arr(3, 3)), lv(arr(2, 4, 3)), lv(arr(3, 3), tol=0.5),
                           lv(arr(3, 4), rtol=0.1), lv(arr(3, 3), fn=rank_hermitian),
                           v(arr(4)), once=[v(arr(3, 3), 0.5, rtol=0.1)])
gen_cond = rotating(*(lv(arr(3, 3, lo=0, hi=2), p, fn=cond_dominant)
                      for p in (2, -2, "fro", "nuc", 1, -1, np.inf, -np.inf)),
                    lv(arr(2, 3, 3, lo=0, hi=2), fn=cond_dominant), lv(arr(4, 2)),
                    once=[v(arr(0, 0)), v(arr(3, 4), 1), v(arr(3, 3), 3)])
gen_polyfit = rotating(lv(arr(6), 1, fn=polyfit_on_grid), lv(arr(7), 2, fn=polyfit_on_grid),
                       lv(arr(6, 2), 2, fn=polyfit_on_grid),
                       lv(arr(6), 1, w=np.arange(6) + 1.0, fn=polyfit_on_grid),
                       lv(arr(6), 1, full=True, fn=polyfit_on_grid),
                       once=[v(arr(6), -1, fn=polyfit_on_grid),
                             lv(arr(6), 1, cov=True, fn=polyfit_on_grid),
                             lv(arr(6, 2), 2, cov="unscaled", fn=polyfit_on_grid),
                             v(arr(4), arr(5), 1)])

# np.fft: every kind, lengths, axes and norms.
FFT_ONCE = [v(arr(4), 0), v(arr(0)), v(arr()), v(arr(4), norm="sideways"), v(arr(4), axis=1)]
gen_fft_1d = rotating(lv(arr(8)), lv(arr(3, 5), 4, 0), lv(arr(2, 6), norm="ortho"),
                      lv(arr(5), 8, norm="forward"), lv(arr(2, 3, 4), axis=1, norm="backward"),
                      once=FFT_ONCE)
gen_fft_nd = rotating(lv(arr(3, 4)), lv(arr(2, 3, 4), axes=(0, 2), norm="ortho"),
                      lv(arr(3, 4), s=(4, 6), axes=(0, 1)), lv(arr(2, 3, 4), norm="forward"),
                      lv(arr(3, 5), s=(-1, 4), axes=(1, 0)),
                      once=[v(arr(3, 4), s=(2, 2), axes=(0,)), v(arr(3, 4), s=(0, 2),
                                                                   axes=(0, 1))])
gen_fftshift = rotating(v(arr(3, 4)), v(arr(5)), v(arr(2, 3, 4), axes=1),
                        v(arr(2, 3, 4), axes=(0, 2)))
gen_fftfreq = rotating(v(7, arr()), v(8, arr()), v(1, arr(), note="one point"),
                       once=[v(2.5, arr())])

# Facts known at compile time: the results are Python values, not arrays.
gen_static_fact = rotating(v(arr(3, 4)), v(arr()), v(arr(0, 2)), v(arr(2, 3, 4)),
                           v(arr(scalar=True)))
gen_size = rotating(v(arr(3, 4)), v(arr()), v(arr(0, 2), 1), v(arr(2, 3, 4), -1),
                    once=[v(arr(3), 1)])
gen_result_type = rotating(
    v(arr(3), arr(2, dtype=OTHER)), v(arr(3), 1.5), v(arr(), 1), v(arr(2), np.dtype("int8")),
    v(arr(scalar=True), True), v(arr(2, 2), np.float32, 1j))
# Answered from the dtypes alone (NEP 50): static results.  A Python number
# as can_cast's from_, and bool arrays in common_type, make NumPy raise.
gen_can_cast = rotating(
    v(arr(3), np.dtype("int8")), v(arr(), np.float32, casting="same_kind"),
    v(arr(2), OTHER), v(arr(scalar=True), np.dtype("int64"), "unsafe"),
    once=[v(arr(2), np.zeros(2))])
gen_common_type = rotating(v(arr(3)), v(arr(3), arr(2, dtype=OTHER)), v(arr()),
                           v(arr(scalar=True), arr(2, 2, dtype=np.dtype("float16"))))

# The methods of ufuncs (np.add.reduce, np.maximum.accumulate, np.subtract.outer,
# np.add.at).  `at` updates its first argument in place: the program returns it.
def updated_at(ufunc):
    def at(a, indices, b):
        a = a.copy()
        ufunc.at(a, indices, b)
        return a
    at.__name__ = f"{ufunc.__name__}_at"
    return at


gen_ufunc_reduce = rotating(
    v(sarr(3, 4)), v(arr(3, 4), axis=1), v(arr(2, 3, 4), axis=(0, 2), keepdims=True),
    v(arr(3, 4), axis=None), v(arr(0, 3)), once=[v(arr(3, 4), axis=2)])
gen_ufunc_accumulate = rotating(v(sarr(3, 4)), v(arr(3, 4), axis=1), v(arr(2, 0, 3), axis=-1),
                                once=[v(arr()), v(arr(3), axis=1)])
gen_ufunc_reduceat = rotating(
    v(sarr(6), [0, 2, 5]), v(arr(3, 4), (0, 2), axis=1), v(arr(6), [0, 4, 1]),
    v(arr(2, 5), [3], axis=-1),
    once=[v(arr(4), [0, 9]), v(arr(4), [-1]), v(arr(4), np.array([0, 2]), refused=True)])
gen_ufunc_outer = rotating(v(arr(3), arr(4)), v(arr(2, 3), arr(2, dtype=OTHER)), v(arr(), arr(2)),
                           v(arr(0), arr(3)))


def gen_ufunc_at(fn, dtypes, name):
    at = updated_at(fn.__self__)
    index = np.array([0, 2, 2, -1])
    return rotating(
        v(arr(5), index, arr(4), fn=at), v(arr(3, 2), np.array([1, 1]), arr(2), fn=at),
        v(arr(3, 2), (np.array([0, 0, 2]), 1), 2, fn=at), v(arr(4), [3, 3], arr(), fn=at),
        once=[v(arr(3), np.array([0, 1]), arr(3), fn=at), v(arr(3), np.array([3]), 1, fn=at)],
    )(fn, dtypes, name)


NONBOOL_DTYPES = tuple(d for d in ALL_DTYPES if d != np.dtype(bool))


def ufunc_method_kind(ufunc, method):
    if method == "reduce":
        return gen_ufunc_reduce, ALL_DTYPES
    if method == "accumulate":
        return gen_ufunc_accumulate, ALL_DTYPES
    if method == "reduceat":
        return gen_ufunc_reduceat, ALL_DTYPES
    if method == "outer":   # the ufunc itself is tested with every dtype: a light pass
        return light((gen_ufunc_outer, ALL_DTYPES))
    if method == "at":
        return gen_ufunc_at, NONBOOL_DTYPES
    return None


# --- the registry's surface: functions, methods, operators -----------------------------------

NN_DTYPES = tuple(np.dtype(d) for d in ("float32", "float64"))

# NumPy functions that are not ufuncs -> (generator, dtypes).  Ufuncs get
# gen_unary / gen_binary from their `nin`.  Pure data movement (reshape,
# flip, ...) uses the CORE dtypes; the others all eight.
FUNCTION_KINDS = {
    **{n: (gen_reduction, ALL_DTYPES) for n in ("max", "min", "amax", "amin", "any", "all")},
    **{n: (gen_accumulating, ALL_DTYPES) for n in ("sum", "prod", "mean")},
    "var": (gen_variance, ALL_DTYPES), "std": (gen_variance, ALL_DTYPES),
    "argmax": (gen_arg_reduction, ALL_DTYPES), "argmin": (gen_arg_reduction, ALL_DTYPES),
    "nanargmax": (gen_arg_reduction, ALL_DTYPES), "nanargmin": (gen_arg_reduction, ALL_DTYPES),
    "cumsum": (gen_cumulative, ALL_DTYPES), "cumprod": (gen_cumulative, ALL_DTYPES),
    "reshape": (gen_reshape, CORE), "ravel": (gen_ravel, CORE),
    "expand_dims": (gen_expand_dims, CORE), "squeeze": (gen_squeeze, CORE),
    "transpose": (gen_transpose, CORE), "swapaxes": (gen_swapaxes, CORE),
    "moveaxis": (gen_moveaxis, CORE), "rollaxis": (gen_rollaxis, CORE),
    "broadcast_to": (gen_broadcast_to, CORE),
    "concatenate": (gen_concatenate, ALL_DTYPES), "stack": (gen_stack, ALL_DTYPES),
    "vstack": (gen_vhstack, CORE), "hstack": (gen_vhstack, CORE),
    "flip": (gen_flip, CORE), "fliplr": (gen_flip_2d, CORE), "flipud": (gen_flip_2d, CORE),
    "roll": (gen_roll, CORE), "where": (gen_where, ALL_DTYPES), "clip": (gen_clip, ALL_DTYPES),
    "pad": (gen_pad, ALL_DTYPES), "tile": (gen_tile, CORE), "repeat": (gen_repeat, CORE),
    "resize": (gen_resize, ALL_DTYPES),
    "sliding_window_view": (gen_sliding_window, CORE),
    "round": (gen_round, ALL_DTYPES), "around": (gen_round, CORE), "copy": (gen_copy, CORE),
    "asarray": (gen_asarray, ALL_DTYPES), "array": (gen_asarray, CORE),
    "asanyarray": (gen_asarray, CORE), "ascontiguousarray": (gen_asarray, CORE),
    "asfortranarray": (gen_asarray, CORE),
    **{n: (gen_window, CORE) for n in ("hanning", "hamming", "blackman", "bartlett")},
    "kaiser": (gen_kaiser, CORE),
    "zeros": (gen_fill, ALL_DTYPES), "ones": (gen_fill, ALL_DTYPES), "empty": (gen_empty, CORE),
    "full": (gen_full, ALL_DTYPES), "zeros_like": (gen_like, ALL_DTYPES),
    "ones_like": (gen_like, ALL_DTYPES), "empty_like": (gen_empty_like, CORE),
    "full_like": (gen_full_like, ALL_DTYPES), "arange": (gen_arange, ALL_DTYPES),
    "eye": (gen_eye, ALL_DTYPES), "identity": (gen_identity, CORE),
    "matmul": (gen_matmul, ALL_DTYPES), "dot": (gen_dot, ALL_DTYPES),
    "inner": (gen_inner, ALL_DTYPES), "outer": (gen_outer, ALL_DTYPES),
    "vdot": (gen_vdot, ALL_DTYPES), "tensordot": (gen_tensordot, ALL_DTYPES),
    "einsum": (gen_einsum, ALL_DTYPES),
    "conv2d": (gen_conv2d, NN_DTYPES), "max_pool2d": (gen_pool, NN_DTYPES),
    "avg_pool2d": (gen_pool, NN_DTYPES), "relu": (gen_unary, ALL_DTYPES),
    "split": (gen_split, CORE), "array_split": (gen_array_split, CORE),
    "hsplit": (gen_hsplit, CORE), "vsplit": (gen_vsplit, CORE), "dsplit": (gen_dsplit, CORE),
    **{n: (gen_atleast, CORE) for n in ("atleast_1d", "atleast_2d", "atleast_3d")},
    "broadcast_arrays": (gen_broadcast_arrays, CORE), "column_stack": (gen_column_stack, CORE),
    "dstack": (gen_dstack, CORE), "meshgrid": (gen_meshgrid, CORE), "kron": (gen_kron, ALL_DTYPES),
    "rot90": (gen_rot90, CORE), "diff": (gen_diff, ALL_DTYPES), "tril": (gen_triangle, CORE),
    "triu": (gen_triangle, CORE), "diagonal": (gen_diagonal, CORE), "diag": (gen_diag, CORE),
    "trace": (gen_trace, ALL_DTYPES), "norm": (gen_norm, ALL_DTYPES),
    "sort": (gen_sort, ALL_DTYPES), "argsort": (gen_argsort, ALL_DTYPES),
    "take": (gen_take, CORE), "take_along_axis": (gen_take_along_axis, CORE),
    "isclose": (gen_isclose, ALL_DTYPES), "allclose": (gen_allclose, ALL_DTYPES),
    "count_nonzero": (gen_count_nonzero, ALL_DTYPES),
    **{n: (gen_nan_extreme, ALL_DTYPES) for n in ("nanmax", "nanmin")},
    **{n: (gen_nan_accumulating, ALL_DTYPES) for n in ("nansum", "nanprod", "nanmean")},
    "nan_to_num": (gen_nan_to_num, ALL_DTYPES), "copyto": (gen_copyto, ALL_DTYPES),
    "fill_diagonal": (gen_fill_diagonal, ALL_DTYPES),
    "median": (gen_median, ALL_DTYPES),
    "unravel_index": (gen_unravel_index, CORE), "ravel_multi_index": (gen_ravel_multi_index, CORE),
    "searchsorted": (gen_searchsorted, ALL_DTYPES), "digitize": (gen_digitize, ALL_DTYPES),
    "cov": (gen_cov, ALL_DTYPES), "corrcoef": (gen_cov, ALL_DTYPES),
    "partition": (gen_refused_partition, CORE), "argpartition": (gen_refused_partition, CORE),
    "bincount": (gen_refused_bincount, (np.dtype("int64"),)),
    **{n: (gen_refused_data_dependent, CORE)
       for n in ("unique", "nonzero", "argwhere", "flatnonzero", "unique_values",
                 "unique_counts", "unique_inverse", "unique_all")},
    "trim_zeros": (gen_refused_trim_zeros, CORE),
    **{n: (gen_refused_set_operation, CORE)
       for n in ("intersect1d", "union1d", "setdiff1d", "setxor1d")},
    "percentile": (gen_percentile, ALL_DTYPES), "quantile": (gen_quantile, ALL_DTYPES),
    "real": (gen_complex_part, CORE), "imag": (gen_complex_part, CORE),
    "angle": (gen_complex_part, CORE),
    "inv": (gen_inv, ALL_DTYPES), "det": (gen_det, ALL_DTYPES),
    "cholesky": (gen_cholesky, ALL_DTYPES), "solve": (gen_solve, ALL_DTYPES),
    "eigh": (gen_eigh, ALL_DTYPES), "eigvalsh": (gen_eigvalsh, ALL_DTYPES),
    "svd": (gen_svd, ALL_DTYPES), "qr": (gen_qr, ALL_DTYPES), "slogdet": (gen_slogdet, ALL_DTYPES),
    "eig": (gen_eig, ALL_DTYPES), "eigvals": (gen_eig, ALL_DTYPES),
    "matrix_power": (gen_matrix_power, ALL_DTYPES), "lstsq": (gen_lstsq, ALL_DTYPES),
    "pinv": (gen_pinv, ALL_DTYPES), "matrix_rank": (gen_matrix_rank, ALL_DTYPES),
    "cond": (gen_cond, ALL_DTYPES), "polyfit": (gen_polyfit, ALL_DTYPES),
    **{n: (gen_fft_1d, ALL_DTYPES) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")},
    **{n: (gen_fft_nd, ALL_DTYPES) for n in ("fft2", "ifft2", "rfft2", "irfft2", "fftn",
                                             "ifftn", "rfftn", "irfftn")},
    "fftshift": (gen_fftshift, CORE), "ifftshift": (gen_fftshift, CORE),
    "fftfreq": (gen_fftfreq, ALL_DTYPES), "rfftfreq": (gen_fftfreq, ALL_DTYPES),
    **{n: (gen_static_fact, CORE) for n in ("shape", "ndim", "iscomplexobj", "isrealobj",
                                              "iterable", "isscalar")},
    "size": (gen_size, CORE), "result_type": (gen_result_type, ALL_DTYPES),
    "can_cast": (gen_can_cast, ALL_DTYPES), "common_type": (gen_common_type, ALL_DTYPES),
    "sinc": (gen_unary, ALL_DTYPES), "i0": (gen_unary, ALL_DTYPES),
    "ptp": (gen_reduction, ALL_DTYPES), "average": (gen_average, ALL_DTYPES),
    "nanvar": (gen_nan_accumulating, ALL_DTYPES), "nanstd": (gen_nan_accumulating, ALL_DTYPES),
    "nancumsum": (gen_cumulative, ALL_DTYPES), "nancumprod": (gen_cumulative, ALL_DTYPES),
    "select": (gen_select, ALL_DTYPES),
    "trapezoid": (gen_trapezoid, ALL_DTYPES), "gradient": (gen_gradient, ALL_DTYPES),
    "packbits": (gen_packbits, ALL_DTYPES), "unpackbits": (gen_unpackbits, CORE),
    "ediff1d": (gen_ediff1d, ALL_DTYPES), "unwrap": (gen_unwrap, ALL_DTYPES),
    "interp": (gen_interp, ALL_DTYPES), "cross": (gen_cross, ALL_DTYPES),
    "vander": (gen_vander, ALL_DTYPES), "polyval": (gen_polyval, ALL_DTYPES),
    "poly": (gen_poly, ALL_DTYPES), "sort_complex": (gen_sort_complex, ALL_DTYPES),
    "polyder": (gen_polyder, ALL_DTYPES), "polyint": (gen_polyint, ALL_DTYPES),
    "polyadd": (gen_polyadd, ALL_DTYPES), "polysub": (gen_polyadd, NONBOOL_DTYPES),
    "convolve": (gen_convolve, ALL_DTYPES), "isin": (gen_isin, ALL_DTYPES),
    "lexsort": (gen_lexsort, ALL_DTYPES),
    "histogram": (gen_histogram, ALL_DTYPES),
    "histogram_bin_edges": (gen_histogram_bin_edges, ALL_DTYPES),
    "fix": (gen_unary, ALL_DTYPES), "isposinf": (gen_unary, ALL_DTYPES),
    "isneginf": (gen_unary, ALL_DTYPES),
    "isreal": (gen_unary, ALL_DTYPES), "iscomplex": (gen_unary, ALL_DTYPES),
}

# Methods take the kind of the function of the same name, except these.
METHOD_KINDS = {"astype": (gen_astype, ALL_DTYPES), "flatten": (gen_ravel, CORE),
                "sort": (gen_sort_method, CORE), "fill": (gen_fill_method, ALL_DTYPES),
                "item": (gen_item_method, ALL_DTYPES), "tolist": (gen_ravel, ALL_DTYPES),
                "view": (gen_view, ALL_DTYPES)}

# An entry whose implementation is another entry's (np.amax is np.max's, the
# method a.sum is np.sum's) gets a light pass: a quarter of its cases, on two
# dtypes, which checks the dispatch and the argument conventions.
LIGHT_DTYPES = tuple(np.dtype(d) for d in ("int64", "float32"))


def light(kind):
    gen = kind[0]
    return (lambda fn, dtypes, name: gen(fn, dtypes, name)[::4]), LIGHT_DTYPES


# Registry entries deliberately not tested here, with the reason.
_SESSION25 = "tested in tests/test_numpy_additions_session25.py (dtypes, edge shapes, errors)"
SKIP = {f"np.{name}": _SESSION25 for name in (
    "array_equal", "array_equiv", "append", "insert", "delete", "block", "correlate",
    "multi_dot", "vecdot", "matrix_transpose", "vector_norm", "matrix_norm", "cumulative_sum",
    "cumulative_prod", "astype", "unstack", "diagflat", "triu_indices_from",
    "tril_indices_from", "choose")}
_SESSION27 = "tested in tests/test_numpy_gaps_session27.py (dtypes, views, errors)"
SKIP.update({name: _SESSION27 for name in (
    "np.put", "method.put", "np.putmask", "np.put_along_axis", "np.compress",
    "method.compress", "np.ix_", "np.nanmedian", "np.nanpercentile", "np.nanquantile",
    "np.histogram2d")})
SKIP["np.histogramdd"] = ("histogram2d's code for D samples; tested in "
                          "tests/test_fixes_session46C2.py (shapes, bins, range, weights)")
SKIP.update({name: "an in-place write / a mask selection (compiles where x[mask] does); tested "
             "in tests/test_fixes_session40e2.py" for name in ("np.place", "np.extract")})
SKIP.update({name: "NumPy 2.2 gufuncs (matmul's dtype rule); tested in "
             "tests/test_fixes_session46B2.py" for name in ("np.matvec", "np.vecmat")})
SKIP["np.ndenumerate"] = ("a static sequence of (index, element) pairs; tested in "
                          "tests/test_sweep_session24.py")
SKIP["np.linspace"] = ("its runtime-endpoint form; tested bit for bit in "
                       "tests/test_sweep_session27.py (0-d endpoints) and "
                       "tests/test_fixes_session45B.py (array endpoints)")
SKIP.update({f"np.polynomial.{name}": "series of a runtime length's coefficients; tested in "
             "tests/test_fixes_session39k.py" for name in (
                 "polynomial.polyval", "chebyshev.chebval", "legendre.legval")})
SKIP.update({f"np.testing.{name}": "an assertion (None, or AssertionError at run time); "
             "tested in tests/test_fixes_session41n.py" for name in (
                 "assert_allclose", "assert_array_equal", "assert_array_almost_equal")})
SKIP.update({name: "needs only a shape / np.choose's implementation; tested in "
             "tests/test_fixes_session43c.py" for name in ("np.diag_indices_from", "method.choose",
                                                        "np.broadcast")})
SKIP["np.linalg.matrix_transpose"] = ("np.matrix_transpose's implementation; tested in "
                                      "tests/test_sweep_session25.py")


def qualname(fn) -> str:
    name = getattr(fn, "__name__", repr(fn))
    if isinstance(getattr(fn, "__self__", None), np.ufunc):    # np.add.at
        return f"np.{fn.__self__.__name__}.{name}"
    if (getattr(fn, "__module__", None) or "").startswith("tpucc.nn"):
        return f"nn.{name}"
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("numpy.testing"):           # np.testing.assert_allclose
        return f"np.testing.{name}"
    if module.startswith("numpy.polynomial."):       # np.polynomial.polynomial.polyval
        return f"np.polynomial.{module.rsplit('.', 1)[1]}.{name}"     # besides np.polyval
    if getattr(fn, "__module__", None) == "numpy.linalg" and getattr(np, name, None) is not None \
            and getattr(np, name) is not fn:
        return f"np.linalg.{name}"      # np.linalg.matrix_transpose besides np.matrix_transpose
    return f"np.{name}"


def function_kind(fn):
    if isinstance(fn, np.ufunc):
        return (gen_unary if fn.nin == 1 else gen_binary), ALL_DTYPES
    if isinstance(getattr(fn, "__self__", None), np.ufunc):
        return ufunc_method_kind(fn.__self__, fn.__name__)
    return FUNCTION_KINDS.get(getattr(fn, "__name__", None))


def method_caller(name):
    def call(a, *args, **kwargs):
        return getattr(a, name)(*args, **kwargs)
    call.__name__ = name
    return call


def method_kind(name):
    if name in METHOD_KINDS:
        return METHOD_KINDS[name]
    fn = getattr(np, name, None)
    return function_kind(fn) if fn in NUMPY else None


# Python operators, written as operator syntax so that tpucc compiles
# BINARY_OP / COMPARE_OP / UNARY_*; keyed by the dunder stems that
# tpucc.ops.elementwise installs on Arrays.
OPERATOR_FNS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "pow": lambda a, b: a ** b, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b, "lshift": lambda a, b: a << b, "rshift": lambda a, b: a >> b,
    "matmul": lambda a, b: a @ b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b, "neg": lambda a: -a, "pos": lambda a: +a, "abs": lambda a: abs(a),
    "invert": lambda a: ~a,
}


# In-place operators: `a op= b` must update the array object itself, so the
# program returns the name that still refers to it (an alias), not `a`.
INPLACE_SYMBOLS = {
    "add": "+=", "sub": "-=", "mul": "*=", "truediv": "/=", "floordiv": "//=", "mod": "%=",
    "pow": "**=", "and": "&=", "or": "|=", "xor": "^=", "lshift": "<<=", "rshift": ">>=",
    "matmul": "@="}


def inplace_fn(stem):
    """The function `a = a.copy(); alias = a; a op= b; return alias` (written
    with exec: augmented assignment cannot be a lambda)."""
    if stem not in INPLACE_SYMBOLS:
        return None
    source = (f"def inplace_{stem}(a, b):\n    a = a.copy()\n    alias = a\n"
              f"    a {INPLACE_SYMBOLS[stem]} b\n    return alias\n")
    namespace = {}
    exec(compile(source, f"<inplace {stem}>", "exec"), namespace)
    return namespace[f"inplace_{stem}"]


gen_inplace = rotating(
    v(sarr(3, 4), sarr(3, 4)), v(arr(3, 4), arr(4)), v(arr(), arr()),
    v(arr(2, 3), arr(2, 3, dtype=OTHER), note="same_kind casting"),
    v(arr(2, 3), 3, note="weak int"), v(arr(2, 3), 2.5, note="weak float"),
    v(arr(2, 3), True, note="weak bool"),
    once=[v(arr(3, 1), arr(1, 4), note="output shape"),
          v(arr(2, dtype=np.dtype("int8")), 300, note="weak int out of range")])
gen_inplace_matmul = rotating(v(arr(3, 3), arr(3, 3)), v(arr(2, 3), arr(3, 3)),
                              v(arr(2, 2), arr(2, 2, dtype=OTHER), note="same_kind casting"),
                              once=[v(arr(2, 3), arr(3, 2)), v(arr(3), arr(3))])


def inplace_kind(stem):
    if stem not in INPLACE_SYMBOLS:
        return None
    return (gen_inplace_matmul if stem == "matmul" else gen_inplace), ALL_DTYPES


def operator_kind(stem):
    ufname = {**elementwise.OPERATORS, **elementwise.COMPARISONS,
              **elementwise.UNARY_OPERATORS}[stem]
    if ufname is None:      # @ is a product, not a ufunc
        return gen_matmul, ALL_DTYPES
    return (gen_binary_operator if getattr(np, ufname).nin == 2 else gen_unary), CORE


# --- the entries: one test per function, method, operator -------------------------------------

@dataclass(frozen=True)
class Entry:
    id: str             # np.add, method.sum, operator.add, index.getitem
    fn: Callable        # what the generated programs call
    kind: tuple | None  # (generator, dtypes), or None: no generator known
    name: str           # the op's name: seeds its inputs

    def cases(self):
        gen, dtypes = self.kind
        cases = gen(self.fn, dtypes, self.name)
        seen = {}
        for c in cases:     # unique labels, so that KNOWN_BUGS can name one case
            seen[c.label] = seen.get(c.label, 0) + 1
            if seen[c.label] > 1:
                c.label += f" #{seen[c.label]}"
        return cases


def all_entries():
    tested = set()      # ids of the implementations that already have a full pass

    def unless_shared(impl, kind):
        if kind is None or id(impl) not in tested:
            tested.add(id(impl))
            return kind
        return light(kind)

    entries = [Entry(qualname(fn), fn, unless_shared(impl, function_kind(fn)), qualname(fn)[3:])
               for fn, impl in NUMPY.items()]
    entries += [Entry(f"method.{m}", method_caller(m), unless_shared(impl, method_kind(m)), m)
                for m, impl in METHODS.items()]
    stems = {**elementwise.OPERATORS, **elementwise.COMPARISONS, **elementwise.UNARY_OPERATORS}
    entries += [Entry(f"operator.{s}", OPERATOR_FNS.get(s),
                      OPERATOR_FNS.get(s) and operator_kind(s), s) for s in stems]
    entries += [Entry(f"operator.i{s}", inplace_fn(s), inplace_kind(s), f"i{s}")
                for s in elementwise.OPERATORS]
    entries += [Entry("index.getitem", None, (gen_getitem, CORE), "getitem"),
                Entry("index.setitem", None, (gen_setitem, CORE), "setitem")]
    return sorted(entries, key=lambda e: e.id)


ENTRIES = all_entries()

# Cases that fail because of bugs in files this test does not own, each with
# its reproducer; they run in test_known_bug, marked xfail(strict=True), so a
# fix makes that test fail until the line is removed here.
KNOWN_BUGS = {}


def test_entries_are_unique():
    ids = [e.id for e in ENTRIES]
    assert len(ids) == len(set(ids))


# Entries whose value cases are compiled together, as one program: a fixed
# partition of the tested entries (the same whichever tests run), so each
# XLA compile's fixed cost is paid once per GROUP_SIZE entries.
GROUP_SIZE = 3
TESTED = [e for e in ENTRIES if e.id not in SKIP and e.kind is not None]
GROUP_OF = {e.id: TESTED[i - i % GROUP_SIZE:i - i % GROUP_SIZE + GROUP_SIZE]
            for i, e in enumerate(TESTED)}
# entry id -> (its failures, its number of cases), or the exception its
# cases raised; set by check_group, taken by test_op
_OUTCOMES: dict = {}


def check_group(group):
    """check_cases for each entry of `group`, its returning cases of every
    entry compiled as one program; if that program fails to compile or to
    run, each entry's are checked as check_cases does (one program each,
    then case by case).  Each entry's failures name only its own cases."""
    prepared = {}
    for entry in group:
        try:
            cases = [c for c in entry.cases() if (entry.id, c.label) not in KNOWN_BUGS]
            for c in cases:
                c.run_eagerly()
        except Exception as e:  # noqa: BLE001 - reported by the entry's own test
            _OUTCOMES[entry.id] = e
            continue
        prepared[entry.id] = cases
    values = {eid: [c for c in cases if not c.numpy_raises and not c.tpucc_refuses]
              for eid, cases in prepared.items()}
    everything = [c for cases in values.values() for c in cases]
    try:
        results = run_compiled(everything) if everything else ()
    except Exception:  # noqa: BLE001 - located entry by entry below
        results = None
    at = 0
    for eid, cases in prepared.items():
        if results is None:
            failures = check_value_cases(eid, values[eid])
        else:
            mine, at = results[at:at + len(values[eid])], at + len(values[eid])
            failures = [f"{eid} {c.label}: {why}" for c, r in zip(values[eid], mine)
                        if (why := mismatch(c, r))]
        failures += [why for c in cases if (c.numpy_raises or c.tpucc_refuses)
                     and (why := check_error_case(eid, c))]
        _OUTCOMES[eid] = failures, len(cases)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_op(entry):
    if entry.id in SKIP:
        pytest.skip(SKIP[entry.id])
    assert entry.kind is not None, (
        f"{entry.id} is registered but has no argument generator: add its signature kind to "
        "FUNCTION_KINDS / METHOD_KINDS / OPERATOR_FNS / INPLACE_SYMBOLS in "
        "tests/test_ops_generated.py, or a line to SKIP with the reason")
    if entry.id not in _OUTCOMES:
        check_group(GROUP_OF[entry.id])
    outcome = _OUTCOMES.pop(entry.id)
    if isinstance(outcome, BaseException):
        raise outcome
    failures, n = outcome
    assert not failures, f"{len(failures)} of {n} cases fail:\n" + "\n".join(failures)


@pytest.mark.parametrize("entry_id, label", [
    pytest.param(eid, label, marks=pytest.mark.xfail(strict=True, reason=why), id=f"{eid} {label}")
    for (eid, label), why in KNOWN_BUGS.items()])
def test_known_bug(entry_id, label):
    (entry,) = [e for e in ENTRIES if e.id == entry_id]
    cases = [c for c in entry.cases() if c.label == label]
    assert len(cases) == 1, f"no case {label!r} in {entry_id}"
    assert not check_cases(entry_id, cases)


# IR ops no generated program reaches, with the reason.
OP_SKIP = {"print": "a side effect on stdout, not a value; see tests/test_straightline.py",
           "erf": "math.erf of a runtime float (NumPy has no erf); see tests/test_math_module.py",
           "roll_by": "np.roll by a runtime shift; see tests/test_checks_sweep_session27.py",
           "fold_add": "sum() of a loop's rows; see tests/test_generator_sums.py",
           "fold_add_compensated": "sum() of a loop's rows of Python floats under Python "
                                   "3.12+; see tests/test_fixes_session49G.py",
           "python_round": "round(x, n) of a runtime Python float (CPython's, not NumPy's "
                           "np.round); see tests/test_sweep_session33.py",
           "modular_power": "pow(b, e, m) of Python ints with a runtime exponent (NumPy has "
                            "none); see tests/test_fixes_session36c.py",
           "unchecked": "a runtime check whose value the program never reads (lstsq's "
                        "residuals); see tests/test_fixes_session36e.py",
           "python_int_true_divide": "int / int of runtime Python ints (CPython's exact "
                                     "quotient; NumPy has none); see "
                                     "tests/test_fixes_session40g.py",
           "python_int_comb": "math.comb of runtime Python ints (NumPy has none); see "
                              "tests/test_fixes_session44P.py",
           "python_int_perm": "math.perm of runtime Python ints (NumPy has none); see "
                              "tests/test_fixes_session44P.py"}


def test_every_registered_op_is_exercised():
    """Every op in tpucc.ops.OPS appears in the IR of some generated program,
    so a newly registered op cannot go untested.  Runs inference only."""
    from tpucc.api import DEFAULT_OPTIONS
    from tpucc.driver import run_infer
    from tpucc.ir import walk_ops
    reached = set()
    for entry in ENTRIES:
        if entry.kind is None or entry.id in SKIP:
            continue
        cases = entry.cases()
        for c in cases:
            c.run_eagerly()
        cases = [c for c in cases if not (c.numpy_raises or c.tpucc_refuses)]
        for batch in [cases] + [[c] for c in cases]:    # one by one if the batch fails
            program, groups = batch_program(batch)
            try:
                traced = run_infer(program, (groups,), {}, dict(DEFAULT_OPTIONS))
            except TpuccError:
                continue    # test_op reports it
            reached |= {op.name for op in walk_ops(traced.program)}
            if batch is cases:
                break
    missing = set(OPS) - reached - set(OP_SKIP)
    assert not missing, f"registered ops no generated case reaches: {sorted(missing)}"


def zero_d_makers(x):
    return (np.zeros(()), x.reshape(()), np.copy(x), x[...], np.full((), 2.5),
            np.asarray(x, dtype=np.float32), x + x, np.sum(x))


def test_zero_d_results_are_arrays_where_numpy_gives_arrays():
    """Not compared in test_op (values, dtypes and shapes are): the kind of a
    0-d result, ndarray or NumPy scalar, which decides e.g. whether
    `r[...] = 1` works on it."""
    x = np.array(1.5)
    expected = zero_d_makers(x)
    actual = tpucc.compile(zero_d_makers)(x)
    assert [type(r).__name__ for r in actual] == [type(r).__name__ for r in expected]


def zero_d_through_control_flow(x, n):
    s = x.sum()                       # a NumPy scalar
    a = np.zeros(())                  # a 0-d array
    if x[0] > 0:                      # runtime branch: both arms keep the kinds
        s = s + 1
        a = a.reshape(())
    else:
        s = s * 2
        a = np.full((), 3.0)
    k = x.max()
    while k < n:                      # runtime loop carrying a NumPy scalar
        k = k + 1
    return s, a, k


def test_zero_d_kinds_survive_branches_and_loops():
    for x in (np.array([1.0, 2.0]), np.array([-1.0, 2.0])):
        expected = zero_d_through_control_flow(x, 5.0)
        actual = tpucc.compile(zero_d_through_control_flow)(x, np.float64(5.0))
        assert [type(r) for r in actual] == [type(r) for r in expected]
        assert [float(r) for r in actual] == [float(r) for r in expected]


def zero_d_kinds_of_functions(x, s):
    return (np.where(x > 0, x, 0.0), s.astype(np.float32), x.astype(np.float32),
            np.clip(x, 0, 1), x[()], x[...], np.squeeze(x.reshape(1)))


def test_zero_d_kinds_of_functions():
    x, s = np.array(1.5), np.float64(2.5)
    expected = zero_d_kinds_of_functions(x, s)
    actual = tpucc.compile(zero_d_kinds_of_functions)(x, s)
    assert [type(r) for r in actual] == [type(r) for r in expected]


def disagreeing_kinds(x):
    if x.sum() > 0:
        r = np.zeros(())            # a 0-d array on this path
    else:
        r = x.sum()                 # a NumPy scalar on this one
    return r


def nested_disagreeing_kinds(x, y):
    if x.sum() > 0:
        if y.sum() > 0:
            r = x[0, ...]           # a 0-d view
        else:
            r = y.sum()
    else:
        r = np.float32(3) * x[0]
    return r, [r, 2 * r], {"r": r}


@pytest.mark.parametrize("x", [[-1.0], [1.0]])
def test_runtime_branches_that_disagree_on_the_kind_follow_the_path_taken(x):
    """The kind is a runtime output (one bool) when runtime branches disagree."""
    f = tpucc.compile(disagreeing_kinds)
    expected = disagreeing_kinds(np.array(x))
    assert type(f(np.array(x))) is type(expected)
    assert_same(expected, f(np.array(x)))


@pytest.mark.parametrize("x,y", [([1.0], [2.0]), ([1.0], [-2.0]), ([-1.0], [2.0])])
def test_nested_branches_that_disagree_on_the_kind(x, y):
    check(nested_disagreeing_kinds, np.array(x), np.array(y))


def disagreeing_kinds_in_a_loop(x, n):
    r = x.sum()
    for _ in range(n):              # a runtime bound: a While
        if r > 0:
            r = np.zeros(())
        else:
            r = x.sum()
    return r


def kind_set_by_the_first_iteration(x, n):
    r = np.zeros(())                # a 0-d array if the loop never runs
    i = 0
    while i < n:
        r = r + x.sum()             # a NumPy scalar after any iteration
        i += 1
    return r


def kind_of_the_last_iteration(x, n):
    r = x.sum()
    k = 0
    while k < n:
        if (x * k).sum() > 1:       # which kind depends on the iteration
            r = x[0, ...] * 1.0     # a 0-d array
        else:
            r = r + 1.0             # a NumPy scalar (from a scalar or a 0-d array)
        k += 1
    return r, r * 2


def kind_kept_on_some_paths(x, n):
    r = np.ones(())
    for k in range(n):
        if (x * k).sum() > 2:
            r = r * 2               # scalar from here on
    return r


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("fn", [disagreeing_kinds_in_a_loop, kind_set_by_the_first_iteration,
                                kind_of_the_last_iteration, kind_kept_on_some_paths])
def test_runtime_loops_carry_the_kind_of_0d_values(fn, n):
    """A While carries a 0-d value's kind (one bool) when an iteration can
    change it: after the loop the value has the kind the iterations that ran
    gave it, as in NumPy (conftest's comparison checks every 0-d kind)."""
    f = tpucc.compile(fn, runtime_args=("n",))
    assert count_hlo(f.lower(np.array([1.0]), n).as_text(), "while") == 1
    for x in ([1.0], [-1.0], [0.75]):
        assert_same(fn(np.array(x), n), f(np.array(x), n))

