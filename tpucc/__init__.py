"""tpucc: a whole-program ahead-of-time compiler for Python + NumPy to XLA."""
from . import ops  # noqa: F401  (registers every op)
from . import nn  # noqa: F401  (tpucc.nn: conv2d, pooling, softmax, ...)
from .api import compile, CompiledFunction, Lowered
from .aot import load  # tpucc.load: an ahead-of-time artifact -> a callable
from .autodiff import grad, value_and_grad
from .errors import (TpuccError, UnsupportedError, ShapeError, DTypeError, MergeError,
                     StaticValueError, SideEffectError, LimitError, UserCodeError, InternalError,
                     GradError, RuntimeIndexError, RuntimeRaiseError, OptionError)
from .infer.loops import UnrollWarning
from .infer.scalar_state import RecompileWarning

__version__ = "0.1.0"

__all__ = ["compile", "grad", "value_and_grad", "load", "CompiledFunction", "Lowered",
           "TpuccError", "UnsupportedError", "ShapeError", "DTypeError", "MergeError",
           "StaticValueError", "SideEffectError", "LimitError", "UserCodeError",
           "InternalError", "GradError", "RuntimeIndexError", "RuntimeRaiseError", "OptionError",
           "RecompileWarning", "UnrollWarning", "__version__"]
