"""Standard-library functions that are C code (bisect's, heapq's), run as
the pure-Python versions the same modules ship: each module loaded once
more without its C accelerator (`from _bisect import *` then fails, as it
would on a Python without it), its functions interpreted as the program's
own code, so they read runtime values native code cannot.  Registered in
builtins_impl."""
from __future__ import annotations

import importlib
import importlib.util
import sys
import types

MODULES = ("bisect", "heapq", "statistics")     # (statistics: NormalDist.inv_cdf)


def _without_accelerator(name: str) -> types.ModuleType:
    spec = importlib.util.find_spec(name)
    module = importlib.util.module_from_spec(spec)
    accelerator = "_" + name
    missing = object()
    saved = sys.modules.get(accelerator, missing)
    sys.modules[accelerator] = None         # (an import of it raises ImportError)
    try:
        spec.loader.exec_module(module)
    finally:
        if saved is missing:
            del sys.modules[accelerator]
        else:
            sys.modules[accelerator] = saved
    return module


def python_versions() -> dict:
    """{C function: its pure-Python version} for the MODULES."""
    versions = {}
    for name in MODULES:
        native, pure = importlib.import_module(name), _without_accelerator(name)
        for attr, fn in vars(native).items():
            python = getattr(pure, attr, None)
            if isinstance(fn, types.BuiltinFunctionType) and isinstance(python, types.FunctionType):
                versions[fn] = python
    return versions



_PURE: dict = {}


def python_function(module: str, name: str):
    """The function `name` of the MODULE loaded without its accelerator: a
    Python function (heapq.nsmallest) as another object than the module's
    own, so that registering a wrapper of the module's own does not make
    the wrapper call itself."""
    if module not in _PURE:
        _PURE[module] = _without_accelerator(module)
    return getattr(_PURE[module], name)


_EXHAUSTED = object()


def heapq_merge(*iterables, key=None, reverse=False):
    """heapq.merge as heapq.py writes it, but holding each iterator where
    heapq.py holds its bound `it.__next__`, and asking next(it, default)
    where it catches StopIteration: compiled code calls next() on the
    iterators it makes (not their methods), and runs a generator to its
    end, so no StopIteration can be caught inside one.  Same order, ties
    to the earlier iterable."""
    import heapq
    h = []
    if reverse:
        _heapify, _heappop, _heapreplace = heapq._heapify_max, heapq._heappop_max, \
            heapq._heapreplace_max
        direction = -1
    else:
        _heapify, _heappop, _heapreplace = heapq.heapify, heapq.heappop, heapq.heapreplace
        direction = 1
    order = 0
    for iterable in iterables:
        it = iter(iterable)
        value = next(it, _EXHAUSTED)
        if value is not _EXHAUSTED:
            h.append([value if key is None else key(value), order * direction, value, it])
        order += 1
    _heapify(h)
    while len(h) > 1:
        s = h[0]
        yield s[2]
        value = next(s[3], _EXHAUSTED)
        if value is _EXHAUSTED:
            _heappop(h)                     # remove the empty iterator
        else:
            s[0] = value if key is None else key(value)
            s[2] = value
            _heapreplace(h, s)              # restore the heap condition
    if h:
        yield h[0][2]
        yield from h[0][3]
