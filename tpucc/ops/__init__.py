"""The op registry and the NumPy functions it implements (see registry.py).
Importing this package registers every op family."""
from . import registry
from . import elementwise, reductions, shape, creation, linalg, indexing, debug, nn  # noqa: F401
from . import manipulation, matrix, sorting, logic, assign, solvers, masked, checks  # noqa: F401
from . import statistics, ufuncs, searching, special, calculus, polynomial  # noqa: F401
from . import histograms, decompositions, fft, boxes, testing  # noqa: F401
from .registry import OPS, NUMPY, METHODS

elementwise._install_operators()
linalg.install_operators()
masked.install_operators()
boxes.install_operators()

__all__ = ["OPS", "NUMPY", "METHODS", "registry"]
