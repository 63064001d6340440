"""Input specs of an entry point: what `@entry(...)` says about each argument.

Grammar of a spec string (whitespace is ignored):

    spec  := dtype "[" dims "]"
    dims  := ""  |  int ("," int)*           -- "" is a 0-d array (a scalar)
    dtype := bool | i8 | i16 | i32 | i64 | u8 | u16 | u32 | u64
           | f16 | f32 | f64 | c64 | c128
           | any NumPy dtype name (float32, int64, ...)

    "f32[8,3,224,224]"   a float32 array of that shape
    "i64[]"              a 0-d int64 array (np.int64 scalars are accepted too)

An argument's spec is a spec string, a pytree (tuple, named tuple, list, dict
with str or int keys) of specs, a NumPy array or jax.ShapeDtypeStruct (only its dtype and
shape matter), a Python scalar / None (a static value, fixed at build time),
or a zero-argument callable returning the example argument (e.g. a model's
`init_params`: its arrays give dtypes and shapes; its values are not kept).
Strings inside a callable's result are static values, not specs.
"""
from __future__ import annotations

import re

import numpy as np

from ..errors import Loc
from .errors import BuildError

SHORT_DTYPES = {"bool": "bool", "i8": "int8", "i16": "int16", "i32": "int32",
                "i64": "int64", "u8": "uint8", "u16": "uint16", "u32": "uint32",
                "u64": "uint64", "f16": "float16", "f32": "float32",
                "f64": "float64", "c64": "complex64", "c128": "complex128"}
_SHORT_OF = {v: k for k, v in SHORT_DTYPES.items()}
_SPEC = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[([^\]]*)\]$")
GRAMMAR = ('a spec is DTYPE[DIMS], e.g. "f32[8,3,224,224]" or "i64[]" (a scalar); '
           "DTYPE is one of " + " ".join(SHORT_DTYPES) + " or a NumPy dtype name")


# NumPy has no bfloat16; ml_dtypes' arithmetic on it is not NumPy's to follow.
BFLOAT16 = ("bfloat16 arrays are not supported (NumPy has no bfloat16 type); pass "
            "float32, and matmul_precision='default' lets an accelerator use bf16 passes")


def dtype_of(name: str) -> np.dtype:
    """The NumPy dtype named `name` (short or NumPy name); TypeError saying
    why when compiled code cannot hold it."""
    name = SHORT_DTYPES.get(name, name)
    if name in ("bf16", "bfloat16"):
        raise TypeError(BFLOAT16)
    try:
        dt = np.dtype(name)
    except TypeError:
        dt = None
    if dt is None or dt.kind not in "biufc":
        raise TypeError(f"unknown dtype {name!r}")
    if not dt.isnative:                 # (names cannot say so; a manifest's text can)
        raise TypeError(f"dtype {name!r} is not in this machine's byte order")
    # longdouble / float128 / complex256: XLA's numbers are 64-bit at most
    # (where longdouble is float64, it is accepted as that).
    if dt.itemsize > 8 * (1 + (dt.kind == "c")):
        also = f" ({dt})" if dt.name != name else ""
        raise TypeError(f"dtype {name!r}{also} is wider than compiled code can hold "
                        "(numbers of at most 64 bits)")
    return dt


def short_name(dtype) -> str:
    name = np.dtype(dtype).name
    return _SHORT_OF.get(name, name)


def aval_text(dtype, shape) -> str:
    return f"{short_name(dtype)}[{','.join(map(str, shape))}]"


def parse(text: str) -> tuple[np.dtype, tuple[int, ...]]:
    """(dtype, shape) of a spec string; ValueError saying what is wrong."""
    m = _SPEC.match(re.sub(r"\s+", "", text))
    if m is None:
        raise ValueError("expected DTYPE[DIMS]")
    try:
        dtype = dtype_of(m.group(1))
    except TypeError as e:
        raise ValueError(str(e)) from None
    dims = m.group(2)
    shape = []
    for d in (dims.split(",") if dims else []):
        if not d.isdigit():
            raise ValueError(f"dimension {d!r} is not a non-negative integer")
        shape.append(int(d))
    return dtype, tuple(shape)


def example(spec, path: str, entry_name: str, loc: Loc | None):
    """The example argument described by `spec` (arrays are zeros that take
    no memory: only their dtype and shape are used by tracing)."""
    if callable(spec) and not isinstance(spec, type):
        try:
            return spec()
        except Exception as e:  # noqa: BLE001 - the user's init function failed
            raise BuildError(f"entry {entry_name!r}: the example function for {path} "
                             f"raised {type(e).__name__}: {e}", loc) from None
    if isinstance(spec, str):
        try:
            dtype, shape = parse(spec)
        except ValueError as e:
            raise BuildError(f"entry {entry_name!r}: the spec {spec!r} of {path} is "
                             f"malformed: {e}", loc, hint=GRAMMAR) from None
        return _zeros(dtype, shape, repr(spec), path, entry_name, loc)
    if isinstance(spec, tuple) and hasattr(spec, "_fields"):   # (P("f32[2]", "f32[]"))
        return type(spec)._make(example(s, f"{path}.{k}", entry_name, loc)
                                for k, s in zip(spec._fields, spec))
    if isinstance(spec, tuple):
        return tuple(example(s, f"{path}[{i}]", entry_name, loc) for i, s in enumerate(spec))
    if isinstance(spec, list):
        return [example(s, f"{path}[{i}]", entry_name, loc) for i, s in enumerate(spec)]
    if isinstance(spec, dict):
        return {k: example(s, f"{path}[{k!r}]", entry_name, loc) for k, s in spec.items()}
    if isinstance(spec, (np.ndarray, np.generic)) or _is_shape_struct(spec):
        dtype = np.dtype(spec.dtype)
        try:
            dtype_of(dtype.name)
        except TypeError as e:
            raise BuildError(f"entry {entry_name!r}: the example array of {path} has a dtype "
                             f"compiled code cannot hold: {e}", loc) from None
        return _zeros(dtype, tuple(spec.shape), _describe(spec), path, entry_name, loc)
    if spec is None or isinstance(spec, (bool, int, float, complex)):
        return spec
    raise BuildError(f"entry {entry_name!r}: {path} has a spec of type "
                     f"{type(spec).__name__}", loc, hint=GRAMMAR +
                     "; pytrees (tuple, named tuple, list, dict) of specs, arrays, Python scalars "
                     "and zero-argument callables are accepted too")


def _zeros(dtype, shape, spec, path, entry_name, loc):
    """An example array of zeros; tracing reads only its dtype and shape.
    np.zeros touches no page (calloc), but the OS may refuse to reserve an
    array larger than its memory (a model meant for a TPU slice): then the
    zeros are a private mapping the OS does not reserve either, still a
    contiguous, writeable array as an argument would be."""
    try:
        return np.zeros(shape, dtype)
    except MemoryError:
        pass
    except ValueError:      # more bytes than a 64-bit size can count
        raise BuildError(f"entry {entry_name!r}: the spec {spec} of {path} is larger than "
                         "this machine can address (its size in bytes passes 2**63)",
                         loc) from None
    try:
        return _unreserved_zeros(dtype, shape)
    except (OSError, ValueError, OverflowError, AttributeError) as e:
        raise BuildError(f"entry {entry_name!r}: the spec {spec} of {path} is larger than "
                         f"this machine can address ({e})", loc,
                         hint="build on a machine with more memory or address space") from None


def _unreserved_zeros(dtype, shape) -> np.ndarray:
    """Zeros in an anonymous private mapping that commits no memory until
    a page is written (tracing writes none): writeable with MAP_NORESERVE,
    else read-only (a mapping no one can write is never committed either).
    The array keeps the mapping alive."""
    import math
    import mmap
    nbytes = math.prod(shape) * np.dtype(dtype).itemsize
    private = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
    noreserve = getattr(mmap, "MAP_NORESERVE", _LINUX_MAP_NORESERVE)   # (Python >= 3.12)
    if noreserve:
        buffer = mmap.mmap(-1, nbytes, flags=private | noreserve)
    else:
        buffer = mmap.mmap(-1, nbytes, flags=private, prot=mmap.PROT_READ)
    return np.frombuffer(buffer, dtype).reshape(shape)


def _linux_map_noreserve() -> int:
    """MAP_NORESERVE where Linux gives it its generic value (asm-generic/
    mman.h); 0 (unknown) elsewhere."""
    import platform
    import sys
    generic = ("x86_64", "amd64", "aarch64", "arm64", "riscv64", "s390x")
    return 0x4000 if sys.platform == "linux" and platform.machine().lower() in generic else 0


_LINUX_MAP_NORESERVE = _linux_map_noreserve()


def _describe(spec) -> str:
    """An array or ShapeDtypeStruct spec in the spec grammar's words."""
    return aval_text(spec.dtype, tuple(spec.shape))


def _is_shape_struct(x) -> bool:
    return type(x).__name__ == "ShapeDtypeStruct" and hasattr(x, "shape")
