"""Python ints held as NumPy integers on some runtime paths.

A variable that is a Python int on one runtime path and a NumPy integer on
another (`x = 250`, then `x = b[0]` of a uint8 `b` under a runtime `if`, or
in a loop) has one type in compiled code: the NumPy dtype (state.merged_dtype:
the NumPy path's scalar must stay what it is).  Eager Python keeps the int on
its path: `x + 10` is 260 there, where uint8 wraps to 4, and the caller gets
an int.  So such a value carries a runtime bool, `Array.held_int`, True where
the path taken left the Python int:

- a runtime `if` (control.merge_arms) and a loop (loops.py) carry it, as they
  carry a RuntimeKind;
- a Python operator on it (ops/elementwise.py) whose result NumPy would
  compute otherwise for the int computes the int's result too, and the call
  raises (OverflowError, E910) where the path held the int and the two
  differ; its result, a Python int on that path (`x + 10`, `-x`, `x // 2`),
  carries the bool on;
- the caller gets a Python int where the bool is true (infer._finish, driver),
  as an attribute, argument item or global written back (infer.HeldNumber).

Where the bool is true the value equals the Python int: a static int the
dtype cannot hold is refused (state.refuse_unfit_numbers), a runtime one is
checked to fit (control.require_python_int_fits), and the results above are
checked.  So comparisons, and arithmetic with NumPy values that gives the same
dtype either way, need nothing: the common `best = 0; if x[i] > best: best =
x[i]` emits no more than the carried bool.

A Python float (or int) held as a NumPy float works the same way (`scale =
min(1.0, c / norm)` of a float64 `norm`; `t = 1.0`, then `t = t *
np.float64(0.5)` in a loop that may not run): NumPy keeps a float32 array
float32 times the Python float, and makes it float64 times np.float64, so
`g * scale` raises where the path held the Python number and the dtypes
differ, and the caller gets a Python float where the bool is true.  NumPy
makes an array of a Python number in its own dtype (np.array([x, scale]),
np.full, np.stack ...: float64, int64), not as a ufunc's weak scalar, so
where that differs those raise there too (require_numpy_dtype).  Which
Python type the paths hold is static: `Array.held_type` (hold()).

A Python bool held as a NumPy bool works the same way, its dtype telling it
apart: a tuple comparison `(t[j], j) < (t[0], 0)` is np.bool_ where the
runtime items decide and a Python bool where they tie and the static ones
(or the lengths) do (python_truth), and a bool slot merges the two
(needs_flag).  Python's operators on it give Python's types on its path
(`count += cmp` a Python int, `cmp & flag` a Python bool), as for held
ints, and the caller gets a Python bool where the bool is true.  The bool
is an `and` of the ties, which XLA drops where the comparison is only
tested (`if`, min(), a heap's sift): only a returned, counted or merged
comparison pays for it.

The other Python numbers merged into NumPy dtypes work the same way: the
ints 0 and 1 merged with NumPy bools stay a bool slot (state.merged_dtype),
holding a Python int where the bool is true (`r = 0`, then `r = x[1] > 3`:
the caller gets 0, `r + 1` is a Python int there), and a Python bool merged
with NumPy integers (`r = x[0]`, then `r = True`) is an integer slot
holding a Python bool, and one merged with NumPy floats a float slot
holding it.  One bool tells two types apart: a slot whose paths hold a
Python bool beside a Python int (or float) and the slot's own type (`r =
np.int64(0)`, then `r = 1` or `r = True` under runtime `if`s) holds the int
by its bool (held_python_type) and the bool by a second one,
`Array.held_bool`, true where the path left the Python bool
(needs_bool_flag; a runtime `if`, a loop and a stacked list carry it as
they carry the first).  The caller, print(), isinstance() and `is True`
read it; Python's operators give the int's result there (True + 1 is 1 +
1) but for & | ^ of Python bools, a Python bool (the result's second
bool), and where NumPy's promotion of the bool differs from the int's
(`mask + r` of a bool `mask`), the call raises on the bool's path (E910).

A Python bool in a Python int slot (`r = 0`, then `r = True` under a
runtime `if`; `n = flag` in a loop) is the one held value that is not held
in a NumPy dtype: the slot is a runtime Python int (weak int64, True as 1),
and its bool is true where the path left the Python bool (python_type: a
weak value's held type is bool).  Python's arithmetic gives the same
int for True as for 1 (`r + 1`, `-r`, `~r`, `r * 2.0`), so only what
tells the types apart needs the bool: the caller's result, isinstance(),
`r is True`, and & | ^ of two Python bools, a Python bool on their path
(bool_operator).

A Python int in a Python float slot (`r = 0`, then `r = 0.5` under a
runtime `if`; the common `best = 0`, then `best = float(v)` in a loop) is
held the same way: the slot is a runtime Python float (weak float64, which
holds the int's value), and its bool is true where the path left the Python
int (python_type: a weak float's held type is int; a bool's where the
paths hold a Python bool and no int, `r = 0.5`, then `r = True`; both: the
bool by the second bool, as above).  Python's operators
that keep ints ints (+ - * // % **, unary - + abs()) give an int where
every operand is one, so their result carries the bool on (int_operator);
/ and a float operand give a float.  Beside NumPy values, where NumPy's
promotion of the int differs from the float's (`a + r` of an int64 array is
int64 for 0, float64 for 0.0), the call raises on the int's path (E910).
(float64 holds ints exactly up to 2**53: a held int beyond that is rounded,
the merge's price, as for a Python int held as a NumPy float.)
"""
from __future__ import annotations

import functools

import numpy as np

from ..errors import MergeError
from ..ir import AVal, Value
from ..ops.registry import PYTHON_BOOL_KEEPING, const_aval, loop_keys, ufunc_loop
from . import builder
from .values import Array, array_like

PYTHON_INT = AVal(np.dtype(np.int64), (), True)     # (control.PYTHON_INT: a runtime Python int)
PYTHON_FLOAT = AVal(np.dtype(np.float64), (), True)
PYTHON_BOOL = AVal(np.dtype(bool), (), True)
FLAG = AVal(np.dtype(bool), (), False)

HINT = ("the variable is a Python int on this runtime path and a NumPy integer on others (a "
        "runtime `if` or loop merged them), so compiled code holds it in the NumPy dtype; "
        "give it one type on every path: a Python int (`x = int(b[i])`), or a NumPy integer "
        "wide enough (`x = b[i].astype(np.int64)`, or `x = np.uint8(250)` for arithmetic "
        "that wraps as uint8's does)")
FLOAT_HINT = ("the variable is a Python number on this runtime path and a NumPy float on "
              "others (a runtime `if`, loop, min() or max() merged them), so compiled code "
              "holds it as the NumPy float; NumPy keeps a float32 array float32 beside a "
              "Python float but not beside np.float64: give it one type on every path, a "
              "Python float (`scale = float(min(1.0, c / norm))`) to keep the arrays' "
              "dtype, or a NumPy one (`np.float64(1.0)`) to promote them")

BOOL_HINT = ("the value is a Python bool on this runtime path (a tuple comparison that tied "
             "items left to static ones, a comparison of Python numbers) and a NumPy bool on "
             "others, so compiled code holds it as a NumPy bool, for which + - * give a bool; "
             "give it one type: `int(a < b)` or `bool(a < b)` to count, `np.bool_(a < b)` for "
             "NumPy's bool arithmetic")

INT_BESIDE_FLOAT_HINT = ("give the variable fewer kinds: a float where it takes the int (1.0 "
                         "rather than 1), or a Python float on every path (`float(x[i])`), or a "
                         "NumPy one (`np.float64(2.5)`)")

BOOL_IN_INT_HINT = ("the variable is a Python bool on this runtime path and a Python int on "
                    "others (a runtime `if` or loop merged them), so compiled code holds it as "
                    "the int; give it one type on every path: `r = int(flag)` where it takes "
                    "the bool, or `r = bool(n)` where it takes the int")

BOOL_IN_NUMPY_INT_HINT = ("the variable is a Python bool on this runtime path and a NumPy "
                          "integer on others (a runtime `if` or loop merged them), so compiled "
                          "code holds it in the NumPy dtype; give it one type on every path: "
                          "`r = int(x[0])` where it takes the NumPy integer, or "
                          "`r = np.int64(True)` where it takes the bool")

INT_IN_NUMPY_BOOL_HINT = ("the variable is a Python int on this runtime path and a NumPy bool "
                          "on others (a runtime `if` or loop merged them), so compiled code "
                          "holds it as the NumPy bool; give it one type on every path: "
                          "`r = False` (or `np.False_`) where it takes the int, or "
                          "`r = int(x[1] > 3)` where it takes the comparison")

BOOL_IN_FLOAT_HINT = ("the variable is a Python bool on this runtime path and a Python float "
                      "on others (a runtime `if` or loop merged them), so compiled code holds "
                      "it as the float; give it one type on every path: `r = float(flag)` "
                      "where it takes the bool, or write `float(r)` where NumPy uses it")

INT_IN_FLOAT_HINT = ("the variable is a Python int on this runtime path and a Python float on "
                     "others (a runtime `if` or loop merged them), so compiled code holds it "
                     "as the float; give it one type on every path: start it as a float "
                     "(`r = 0.0`), or write `float(r)` where NumPy uses it")

# Python's operators whose result is an int where every operand is one
# (int_operator); `/` gives a float, comparisons a bool.
_INT_KEEPING = frozenset({"add", "subtract", "multiply", "floor_divide", "remainder",
                          "power", "negative", "positive", "absolute"})


def holds_python_int(v) -> bool:
    """A Python int (not a bool): static, runtime (a weak int), or a NumPy
    value that is one on some runtime paths."""
    if type(v) is int:
        return True
    return isinstance(v, Array) and not v.shape and (
        _held_in_numpy(v, int) or v.weak and v.dtype.kind in "iu")


def holds_python_bool(v) -> bool:
    """A Python bool: static, runtime (a weak bool), or a NumPy value that
    is one on some runtime paths."""
    if type(v) is bool:
        return True
    return isinstance(v, Array) and not v.shape and (
        _held_in_numpy(v, bool) or v.weak and v.dtype.kind == "b")


def _held_in_numpy(v: Array, pytype: type) -> bool:
    return v.held_int is not None and not v.weak and python_type(v) is pytype


def python_truth(v):
    """Whether the truth value `v` (a comparison's result) is a Python bool:
    True, False (a NumPy bool), or, for a held bool, its runtime bool."""
    if isinstance(v, Array) and not v.shape and _held_in_numpy(v, bool):
        return Array(v.held_int)
    return holds_python_bool(v)


def python_type(v: Array) -> type:
    """The Python type a held value is where its bool is true: hold() says
    (Array.held_type), else its dtype: a bool's in a NumPy bool, an int's in
    a NumPy number; of a weak one, a Python int's or float's, a bool in the
    int, an int in the float (module docstring)."""
    if v.held_type is not None:
        return v.held_type
    if v.weak:
        return int if v.dtype.kind == "f" else bool
    return bool if v.dtype.kind == "b" else int


def held_python_type(values, aval: AVal) -> type:
    """The Python type a 0-d slot of type `aval` holds by its bool, taking
    `values` on its paths: a float where one is (NumPy gives a float array
    the same dtype beside an int as beside a float), an int beside NumPy
    bools, a bool beside NumPy integers (or floats) where no path holds an
    int; in a Python int, a bool; in a Python float, an int, else a bool
    (the slot's one bool tells two types apart, a bool beside them has a
    second: module docstring)."""
    if aval.weak:
        return int if aval.dtype.kind == "f" and any(map(may_be_python_int, values)) else bool
    if any(map(holds_python_float, values)):
        return float
    ints, bools = any(map(holds_python_int, values)), any(map(holds_python_bool, values))
    if aval.dtype.kind == "b":
        return int if ints else bool
    return bool if bools and not ints else int


def may_be_python_bool(v) -> bool:
    """Whether `v` is a Python bool on some runtime paths: static, runtime
    (a weak bool), or a value that holds one by its bool (held_int, of
    python_type bool) or by its second bool (held_bool)."""
    if type(v) is bool:
        return True
    if not isinstance(v, Array) or v.shape:
        return False
    if v.weak and v.dtype.kind == "b" or v.held_bool is not None:
        return True
    return v.held_int is not None and python_type(v) is bool


def may_be_python_int(v) -> bool:
    """Whether `v` is a Python int (not a bool) on some runtime paths:
    static, runtime (a weak int, also one that is a bool on other paths), or
    a value that holds one by its bool."""
    if type(v) is int:
        return True
    if not isinstance(v, Array) or v.shape:
        return False
    if v.weak and v.dtype.kind in "iu":
        return True
    return v.held_int is not None and python_type(v) is int


def needs_bool_flag(values, aval: AVal) -> bool:
    """Whether a slot that needs_flag, whose bool tells a Python int (or
    float) from the slot's own type, takes a Python bool on some paths too:
    a third type, told by a second bool (Array.held_bool), true where the
    path holds the bool (`r = np.int64(0)`, then `r = 1` or `r = True` under
    runtime `if`s; `r = 0.5`, then `r = 1` or `r = True`)."""
    return needs_flag(values, aval) and held_python_type(values, aval) is not bool \
        and any(map(may_be_python_bool, values))


def bool_flag_of(v) -> Value:
    """The second bool of a value on its path (read inside that path's
    region), in a slot that needs_bool_flag: whether it is a Python bool
    there."""
    if isinstance(v, Array) and not v.shape:
        if v.held_bool is not None:
            return v.held_bool
        if v.held_int is not None and python_type(v) is bool:
            return v.held_int
    return builder.const_value(np.bool_(may_be_python_bool(v)))


def third_type_bool(v) -> Array | None:
    """Where the held value `v` is a Python bool beside the Python int (or
    float) its bool tells (its second bool, Array.held_bool; None: it holds
    no third type)."""
    return Array(v.held_bool) if isinstance(v, Array) and v.held_bool is not None else None


def _python_types(values) -> set:
    """The Python number types (int, float) that `values` are on some path."""
    return ({float} if any(map(holds_python_float, values)) else set()) | (
        {int} if any(map(may_be_python_int, values)) else set())


def hold_merged(arr: Array, flag, values, bool_flag=None) -> None:
    """hold() for a runtime `if`'s merge, refusing paths that hold a Python
    int, a Python float and a NumPy float (refuse_int_beside_float).  (min()
    and max() keep plain hold(): refusing there too refused programs that
    compiled before, min(t, limit) then max(m, 0); the int still comes back
    as a float on that path, a known gap.)"""
    if flag is not None:
        refuse_int_beside_float(_python_types(values), arr.aval)
    hold(arr, flag, values, bool_flag)


def refuse_int_beside_float(types, aval: AVal) -> None:
    """A NumPy float slot holds its Python numbers by one bool, as one type:
    a float where some path holds one (held_python_type).  A Python int on
    another path (`v = 1`, then `v = 2.5` or `v = x[0]` under runtime ifs)
    would reach the caller as a float, which no bool tells apart: refused,
    rather than handing back 1.0 for eager Python's 1."""
    if aval.weak or aval.shape or not {int, float} <= set(types):
        return
    raise MergeError(
        f"this variable is a Python int on some runtime paths, a Python float on others "
        f"and a NumPy {aval.dtype} on others: compiled code tells only two of those kinds "
        f"apart, and would give the int back as a float",
        hint=INT_BESIDE_FLOAT_HINT)


def widest_held_type(types) -> type:
    """The type a slot holds whose paths were found holding `types` (a loop's
    trials): held_python_type's choice among them."""
    types = set(types)
    return float if float in types else int if int in types else bool


def holds_python_float(v) -> bool:
    """A Python float: static, runtime (a weak float), or an Array that is
    one on some runtime paths."""
    if type(v) is float:
        return True
    return isinstance(v, Array) and not v.shape and (
        _held_in_numpy(v, float) or v.weak and v.dtype.kind == "f")


def holds_python_number(v) -> bool:
    return holds_python_int(v) or holds_python_float(v)


def needs_flag(values, aval: AVal) -> bool:
    """Whether a 0-d slot of type `aval` taking `values` on its paths holds a
    Python int or bool in a NumPy integer or bool dtype, or a Python int,
    float or bool in a NumPy float dtype, or a Python bool in a Python int,
    or a Python int or bool in a Python float, on some of them."""
    if aval.shape:
        return False
    if aval.weak:
        return any(held_in_python_slot(v, aval) for v in values)
    if aval.dtype.kind in "iub":
        return any(holds_python_int(v) or holds_python_bool(v) for v in values)
    return aval.dtype.kind == "f" and any(
        holds_python_number(v) or holds_python_bool(v) for v in values)


def python_bool_in_int_slot(v) -> bool:
    """Whether `v`, a value a Python int slot takes on one path, is (or, on
    some runtime paths, may be) a Python bool there: static, runtime (a weak
    bool), or one merged into a Python int earlier."""
    if type(v) is bool:
        return True
    return isinstance(v, Array) and v.weak and not v.shape and (
        v.dtype.kind == "b" or v.dtype.kind in "iu" and v.held_int is not None)


def python_int_in_float_slot(v) -> bool:
    """Whether `v`, a value a Python float slot takes on one path, is (or,
    on some runtime paths, may be) a Python int or bool there: static,
    runtime (a weak int or bool), or one merged into a Python float earlier.
    (The slot holds the int where one path does, and a bool beside it by its
    second bool: needs_bool_flag.)"""
    if type(v) in (int, bool):
        return True
    return isinstance(v, Array) and v.weak and not v.shape and (
        v.dtype.kind in "biu" or v.dtype.kind == "f" and v.held_int is not None)


def held_in_python_slot(v, aval: AVal) -> bool:
    """Whether `v` is, on its path, the Python type that a Python number
    slot of type `aval` holds by its bool: a bool in an int, an int in a
    float."""
    if aval.dtype.kind in "iu":
        return python_bool_in_int_slot(v)
    return aval.dtype.kind == "f" and python_int_in_float_slot(v)


def python_slot(avals) -> AVal:
    """The Python number slot that Python numbers of `avals` merge into (an
    int beside a float: the float)."""
    return AVal(np.result_type(*(a.dtype for a in avals)), (), True)


def hold(arr: Array, flag, values, bool_flag=None) -> None:
    """Marks `arr`, a slot's merged value, as holding a Python number where
    the runtime bool `flag` is true (None: nowhere), of the type that
    held_python_type chooses for `values` (its paths'), and a Python bool
    where `bool_flag` is (needs_bool_flag; None: nowhere)."""
    arr.held_int = flag
    arr.held_type = None if flag is None else held_python_type(values, arr.aval)
    arr.held_bool = bool_flag if flag is not None and arr.held_type is not bool else None


def flag_of(v, aval: AVal) -> Value:
    """The bool of a value on its path (read inside that path's region) in
    a slot of type `aval`: whether it is a Python number (or bool) there, in
    a NumPy dtype; whether it is a Python bool there, in a Python int; an
    int, in a Python float."""
    if aval.weak:
        if isinstance(v, Array) and v.weak and v.held_int is not None and v.dtype == aval.dtype:
            return v.held_int
        # (a Python bool held in a Python int is the int in a Python float)
        return builder.const_value(np.bool_(held_in_python_slot(v, aval)))
    if isinstance(v, Array) and v.held_int is not None and not v.weak:
        return v.held_int
    return builder.const_value(np.bool_(holds_python_number(v) or holds_python_bool(v)))


def checked_operator(ufname: str, operands: tuple, result, python_operator: bool = True):
    """`result` of the Python operator `ufname` on `operands` (else of the
    NumPy function: `python_operator` False), where one holds a Python int on
    some runtime paths: checked against what NumPy gives for that int
    (module docstring), and, where that is a Python int, carrying the bool
    on.  (NumPy functions give NumPy scalars: np.add(250, 10) is an int64.)"""
    if isinstance(result, Array) and result.weak:
        if not python_operator:
            return result
        return int_operator(ufname, operands, result) if result.dtype.kind == "f" else \
            bool_operator(ufname, operands, result)
    if isinstance(result, Array):
        _check_bools_in_int_slots(ufname, operands, result)
    held = [x for x in operands if isinstance(x, Array) and x.held_int is not None
            and not x.weak]     # (a Python bool in a Python int slot: just above)
    if not held or not isinstance(result, Array):
        return result
    on_int_path = functools.reduce(lambda a, b: builder.emit("logical_and", a, b),
                                   [Array(x.held_int) for x in held])
    as_ints = tuple(as_python_number(x) if any(x is h for h in held) else
                    x if isinstance(x, (Array, bool, int, float, complex)) else array_like(x)
                    for x in operands)
    if python_operator and ufname not in PYTHON_BOOL_KEEPING and \
            all(map(holds_python_bool, as_ints)):
        as_ints = tuple(map(_bool_as_int, as_ints))     # (Python's True + True is 2)
    dtype = _int_path_dtype(ufname, as_ints)
    if dtype is None:
        return result
    python_number = python_operator and all(_is_python_number(x) for x in as_ints)
    if python_number and dtype.kind == "b" and result.dtype.kind == "b":
        # a Python bool on that path (`cmp & flag`, `x > 0` of a held int)
        result.held_int, result.held_type = on_int_path.var, bool
    elif python_number and dtype.kind in "iu" and result.dtype.kind in "iu":
        if result.dtype.itemsize < 8:       # (int64 holds what compiled Python ints hold)
            _require_same(ufname, on_int_path, result, builder.emit(ufname, *as_ints))
        result.held_int, result.held_type = on_int_path.var, int
    elif python_number and dtype.kind in "iuf" and result.dtype.kind == "f":
        # a Python number on that path (`scale * 2.0`, `max(1, s) * 2`), held
        # in the NumPy float dtype (float32's rounding of it is the merge's
        # documented price)
        result.held_int = on_int_path.var
        result.held_type = float if dtype.kind == "f" else int
    elif dtype != result.dtype:
        _refuse_on_int_path(ufname, on_int_path, dtype, result.dtype, python_number, held)
    _held_bools_operator(ufname, operands, as_ints, result, python_operator)
    return result


def _held_bools_operator(ufname: str, operands: tuple, as_ints: tuple, result: Array,
                         python_operator: bool) -> None:
    """`result` of `ufname`, where an operand holds a Python bool beside
    the Python int (or float) its bool tells (held_bool): checked_operator
    computed the int's result, which Python gives for the bool too (True +
    1 is 1 + 1), but for & | ^ of Python bools, a Python bool (which the
    result then holds by its second bool), and for NumPy's promotion, which
    can differ (`mask + r` of a bool `mask` is a bool array for True, an
    int64 one for 1): where the paths hold the bool and the dtypes differ,
    the call raises."""
    on_bool = [third_type_bool(x) for x in operands if isinstance(x, Array)]
    on_bool = [b for b in on_bool if b is not None]
    if not on_bool:
        return
    as_bools = tuple(True if third_type_bool(x) is not None else a
                     for x, a in zip(operands, as_ints))
    python_number = python_operator and all(map(_is_python_number, as_bools))
    if python_number and ufname not in PYTHON_BOOL_KEEPING:
        return
    if python_number:
        flags = [_python_bool_path(x) for x in operands]
        if result.held_int is not None and all(f is not False for f in flags):
            arrays = [f for f in flags if f is not True]
            result.held_bool = functools.reduce(
                lambda a, b: builder.emit("logical_and", a, b), arrays).var
        return
    dtype = _int_path_dtype(ufname, as_bools)
    if dtype is None or dtype == result.dtype:
        return
    from . import checks        # (only here: checks imports control, which imports us)
    on_bool_path = functools.reduce(lambda a, b: builder.emit("logical_and", a, b), on_bool)
    checks.require(builder.emit("logical_not", on_bool_path),
                   f"a Python bool held beside a Python int ({_symbol(ufname)}): on this path "
                   f"the value is the Python bool, for which NumPy gives {dtype}, where "
                   f"compiled code computes {result.dtype}, as for the Python int",
                   hint=BOOL_IN_NUMPY_INT_HINT, raises="TypeError", tpucc_limit=True)


def _python_bool_path(x):
    """Where the operand `x` is a Python bool: True (everywhere), False
    (nowhere), or a runtime bool."""
    if isinstance(x, Array) and not x.shape:
        if x.held_bool is not None:
            return Array(x.held_bool)
        if x.held_int is not None and python_type(x) is bool:
            return Array(x.held_int)
        return bool(x.weak and x.dtype.kind == "b")
    return type(x) is bool


def bool_operator(ufname: str, operands: tuple, result: Array) -> Array:
    """`result`, a Python int, of the Python operator `ufname` on Python
    numbers of which one is a Python bool in a Python int slot on some
    runtime paths: where every operand is a Python bool, & | ^ give a
    Python bool, so the result carries the bool on (True + True, ~True
    and the rest give the int that 1 + 1, ~1 give: nothing to carry)."""
    if ufname not in PYTHON_BOOL_KEEPING or result.shape or result.dtype.kind not in "iu" \
            or not any(isinstance(x, Array) and x.held_int is not None for x in operands):
        return result
    flags = []
    for x in operands:
        is_bool = python_bool_in_int_slot(x)
        if is_bool is False:
            return result           # (an int operand: an int on every path)
        if isinstance(x, Array) and x.held_int is not None:
            flags.append(Array(x.held_int))
    on_bool_path = functools.reduce(lambda a, b: builder.emit("logical_and", a, b), flags)
    result.held_int = on_bool_path.var
    return result


def int_operator(ufname: str, operands: tuple, result: Array) -> Array:
    """`result`, a Python float, of the Python operator `ufname` on Python
    numbers of which one is a Python int in a Python float slot on some
    runtime paths: where every operand is a Python int, + - * // % ** and
    unary - + abs() give a Python int (of the value the float computed), so
    the result carries the bool on; a float operand or `/` gives a float."""
    if ufname not in _INT_KEEPING or result.shape:
        return result
    flags = []
    for x in operands:
        if _int_in_float_slot(x):
            flags.append(Array(x.held_int))
        elif not _python_int_everywhere(x):
            return result           # (a float operand: a float on every path)
    if not flags:
        return result
    if ufname == "power":           # (an int to a negative int power is a float)
        exponent = operands[1]
        if type(exponent) in (int, bool) and exponent < 0:
            return result
        if isinstance(exponent, Array):
            flags.append(builder.emit("greater_equal", exponent, 0))
    on_int_path = functools.reduce(lambda a, b: builder.emit("logical_and", a, b), flags)
    result.held_int = on_int_path.var
    return result


def _int_in_float_slot(x) -> bool:
    return isinstance(x, Array) and x.weak and not x.shape and x.dtype.kind == "f" \
        and x.held_int is not None


def _python_int_everywhere(x) -> bool:
    """A Python int (or bool) on every runtime path."""
    if type(x) in (int, bool):
        return True
    return isinstance(x, Array) and x.weak and not x.shape and x.dtype.kind in "biu"


def _check_bools_in_int_slots(ufname: str, operands: tuple, result: Array) -> None:
    """`result`, a NumPy value, of `ufname` on operands of which some are
    a Python bool in a Python int slot (or an int in a float) on some
    runtime paths: NumPy's promotion of a Python bool can differ from a
    Python int's (`mask + r` of a bool `mask` is a bool array for True, an
    int64 one for 1; `a + r` of an int64 `a` is int64 for 1, float64 for
    1.0), so where the paths hold them and the dtypes differ the call raises.
    Only beside a NumPy operand: tpucc's own uses of NumPy's functions on
    Python numbers (round() of a Python int is rint's) give what Python
    gives, the same for True as for 1."""
    held = [x for x in operands if isinstance(x, Array) and x.weak and x.held_int is not None]
    if not held or all(map(_is_python_number, operands)):
        return
    as_bools = tuple(python_type(x)(1) if any(x is h for h in held) else
                     x if isinstance(x, (Array, bool, int, float, complex)) else array_like(x)
                     for x in operands)
    dtype = _int_path_dtype(ufname, as_bools)
    if dtype is None or dtype == result.dtype:
        return
    from . import checks        # (only here: checks imports control, which imports us)
    on_bool_path = functools.reduce(lambda a, b: builder.emit("logical_and", a, b),
                                    [Array(x.held_int) for x in held])
    held_type = python_type(held[0]).__name__
    slot_type = "float" if held[0].dtype.kind == "f" else "int"
    checks.require(builder.emit("logical_not", on_bool_path),
                   f"a Python {held_type} held in a Python {slot_type} ({_symbol(ufname)}): on "
                   f"this path the value is the Python {held_type}, for which NumPy gives "
                   f"{dtype}, where compiled code computes {result.dtype}, as for a Python "
                   f"{slot_type}",
                   hint=(BOOL_IN_FLOAT_HINT if held_type == "bool" else INT_IN_FLOAT_HINT)
                   if slot_type == "float" else BOOL_IN_INT_HINT,
                   raises="TypeError", tpucc_limit=True)


HELD_ARRAY_HINT = ("the variable is a Python number on this runtime path and a NumPy scalar "
                   "on others (a runtime `if`, loop, min() or max() merged them), so compiled "
                   "code holds it in the NumPy dtype; NumPy makes an array of a Python number "
                   "in its own dtype (float64, int64, bool): give it one type on every path, "
                   "the NumPy one where it takes the Python number (`z = np.float32(0.5)`), "
                   "or a Python number where it takes the NumPy scalar (`z = float(a[1])`)")


def held_paths(v) -> list:
    """(Python type, runtime bool making it) for each Python type the 0-d
    value `v` holds on some runtime paths beside the type its dtype says:
    the type held by its bool (where no second bool says it is a bool
    there), and a bool by its second bool.  Empty for any other value."""
    if not isinstance(v, Array) or v.shape or v.held_int is None:
        return []
    held = Array(v.held_int)
    if v.held_bool is None:
        return [(python_type(v), lambda: held)]
    on_bool = Array(v.held_bool)
    return [(python_type(v), lambda: builder.emit("logical_and", held,
                                                  builder.emit("logical_not", on_bool))),
            (bool, lambda: on_bool)]


def require_numpy_dtype(values, dtype_with, compiled: np.dtype, what: str) -> None:
    """NumPy makes an array of `values` (np.array([x, z]), np.full(2, z),
    np.asarray(z)) where some hold a Python number on some runtime paths:
    unlike a ufunc's weak scalar, NumPy converts the number in its own
    dtype (float64 for 0.5, where the path holding np.float32 gives
    float32), and one array has one dtype, so the call raises where the
    path taken holds such a number and `dtype_with(i, sample)`, the dtype
    NumPy gives with values[i] a `sample` of that type, is not
    `compiled`."""
    from . import checks        # (only here: checks imports control, which imports us)
    failing = {}
    for i, v in enumerate(values):
        for pytype, on_path in held_paths(v):
            dtype = dtype_with(i, pytype(0))
            if dtype != compiled:
                failing.setdefault((pytype, dtype, _slot_name(v)), []).append(on_path())
    for (pytype, dtype, slot), paths in failing.items():
        on_any = functools.reduce(lambda a, b: builder.emit("logical_or", a, b), paths)
        checks.require(builder.emit("logical_not", on_any),
                       f"a Python {pytype.__name__} held in {slot} ({what}): on this path the "
                       f"value is a Python {pytype.__name__}, of which NumPy makes an array of "
                       f"{dtype}, where compiled code, holding it as {slot}, makes {compiled}",
                       hint=_held_array_hint(values, pytype), raises="TypeError",
                       tpucc_limit=True)


def _slot_name(v: Array) -> str:
    if v.weak:
        return f"a Python {'float' if v.dtype.kind == 'f' else 'int'}"
    return f"a NumPy {v.dtype}"


def _held_array_hint(values, pytype: type) -> str:
    weak = [v for v in values if isinstance(v, Array) and v.weak and v.held_int is not None]
    if not weak:
        return HELD_ARRAY_HINT
    if weak[0].dtype.kind != "f":
        return BOOL_IN_INT_HINT
    return BOOL_IN_FLOAT_HINT if pytype is bool else INT_IN_FLOAT_HINT


def numpy_array_of(v):
    """`v` as np.asarray makes it an array (registry.as_array_operand):
    checked where it holds a Python number (require_numpy_dtype), then no
    longer holding one (an array of it is no Python number)."""
    if not held_paths(v):
        return v
    require_numpy_dtype([v], lambda i, sample: np.asarray(sample).dtype,
                        v.dtype, "converted to an array")
    plain = Array(v.var)
    plain.immutable = v.immutable
    return plain


def as_sequence_index(key):
    """A subscript as a Python sequence (a list, tuple, str) reads it: a
    Python bool in a Python int slot is the int it equals (["a", "b"][True]
    is "b"), with no bool to carry (it would stop NumPy's indexing)."""
    if isinstance(key, Array) and key.weak and key.held_int is not None:
        return Array(key.var)
    return key


def require_int_index(x: Array) -> None:
    """`a[x]` of an x that is a Python bool in a Python int slot on some
    runtime paths: NumPy reads a[True] as a[None, ...] (a new axis, not the
    item at 1), a shape compiled code cannot choose at run time, so the call
    raises where the path holds the bool."""
    from . import checks
    checks.require(builder.emit("logical_not", Array(x.held_int)),
                   "an array indexed by a Python bool held in a Python int: on this path the "
                   "index is the Python bool, for which NumPy adds an axis (a[True] is "
                   "a[None]), where compiled code takes the item at 1, as for the Python int 1",
                   hint=BOOL_IN_INT_HINT, raises="IndexError", tpucc_limit=True)


def as_python_number(x: Array) -> Array:
    """The held value as the Python number (or bool) it is on its paths."""
    aval = {bool: PYTHON_BOOL, float: PYTHON_FLOAT, int: PYTHON_INT}[python_type(x)]
    (v,) = builder.emit_op("convert", (x.var,), {"dtype": aval.dtype}, (aval,))
    return Array(v)


def _bool_as_int(x):
    if type(x) is bool:
        return int(x)
    (v,) = builder.emit_op("convert", (x.var,), {"dtype": PYTHON_INT.dtype}, (PYTHON_INT,))
    return Array(v)


def _is_python_number(x) -> bool:
    if isinstance(x, Array):
        return x.weak and not x.shape
    return type(x) in (bool, int, float, complex)


def _int_path_dtype(ufname: str, operands) -> np.dtype | None:
    """The dtype NumPy's rules give the ufunc on `operands` (None: no loop),
    but for a Python int to a static negative int power: a Python float
    (2 ** -1 is 0.5, where NumPy's integer power refuses)."""
    if ufname == "power" and type(operands[1]) is int and operands[1] < 0 and \
            holds_python_int(operands[0]):
        return np.dtype(np.float64)
    avals = [x.aval if isinstance(x, Array) else const_aval(x) for x in operands]
    try:
        return np.dtype(ufunc_loop(getattr(np, ufname), loop_keys(avals))[-1])
    except (TypeError, AttributeError):
        return None


def _require_same(ufname: str, on_int_path: Array, result: Array, exact: Array) -> None:
    """Where the path holds the Python int, the narrow result must be its exact one."""
    from . import checks, messages      # (only here: checks imports control, which imports us)
    wide = builder.emit("convert", result, dtype=np.dtype(np.int64))
    ok = builder.emit("logical_or", builder.emit("logical_not", on_int_path),
                      builder.emit("equal", wide, exact))
    message = messages.Message((
        f"Python int arithmetic held in {result.dtype} ({_symbol(ufname)}): on this path the "
        "value is a Python int, whose result ", messages.Field(exact, None, ""),
        f" {result.dtype} does not hold (compiled code computed it in {result.dtype})"))
    checks.require(ok, message, hint=HINT, raises="OverflowError",
                   tpucc_limit=True)


def _refuse_on_int_path(ufname, on_int_path: Array, dtype, compiled_dtype, python_number,
                        held: list):
    from . import checks
    ok = builder.emit("logical_not", on_int_path)
    gives = "a Python int" if python_number and dtype.kind in "iu" else \
        "a Python float" if python_number and dtype.kind == "f" else str(dtype)
    types = {python_type(x) for x in held}
    number = "float" if float in types else "bool" if types == {bool} else "int"
    in_float = any(x.dtype.kind == "f" for x in held)
    in_bool = all(x.dtype.kind == "b" for x in held)
    held_in = "float" if in_float else "bool" if in_bool else "integer"
    hint = FLOAT_HINT if in_float else (BOOL_HINT if in_bool else BOOL_IN_NUMPY_INT_HINT) \
        if number == "bool" else INT_IN_NUMPY_BOOL_HINT if in_bool else HINT
    checks.require(ok, f"Python {number} arithmetic held in a NumPy {held_in} "
                       f"({_symbol(ufname)}): on this path the value is a Python {number}, for "
                       f"which {'Python' if python_number else 'NumPy'} gives {gives}, where "
                       f"compiled code computes {compiled_dtype}",
                   hint=hint, raises="TypeError" if in_float else "OverflowError",
                   tpucc_limit=True)


_SYMBOLS = {"add": "+", "subtract": "-", "multiply": "*", "true_divide": "/",
            "floor_divide": "//", "remainder": "%", "power": "**", "left_shift": "<<",
            "right_shift": ">>", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^",
            "negative": "unary -", "positive": "unary +", "invert": "~", "absolute": "abs()"}


def _symbol(ufname: str) -> str:
    return _SYMBOLS.get(ufname, ufname)
