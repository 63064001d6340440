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
