"""np.vectorize(f)(x) in compiled code: f called on each element.

NumPy runs a vectorized function through an object ufunc (np.frompyfunc),
which compiled code has no counterpart for.  Its meaning is a loop, which
the interpreter runs as Python like the user's own (a counted While over
the elements when there are more than the unroll budget):

- the arguments are broadcast together; each call gets one element of
  each as a Python number, as the object ufunc gives them;
- without `otypes`, the result's dtype is that of f on the first elements,
  given as NumPy scalars (NumPy calls f on them once more for that, and
  refuses size-0 inputs); where a runtime branch of f decides that dtype
  (`return 0.0` on one path, `return v` of an int on another) it is known
  only at run time, and refused (E300);
- the result has the broadcast shape (0-d for scalars: an array, as NumPy's).

One output only, without `signature` or `excluded` (calls.call refuses
the rest with a hint).
"""
from __future__ import annotations

import numpy as np


def vectorized_call(pyfunc, otypes, *args):
    arrays = np.broadcast_arrays(*[np.asarray(a) for a in args])
    shape = arrays[0].shape
    flats = [a.ravel() for a in arrays]
    size = flats[0].shape[0]
    if otypes:
        dtype = np.dtype(otypes[0])
    elif size == 0:
        raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
    else:
        dtype = first_result_dtype(pyfunc, [flat[0] for flat in flats])
    out = np.empty(size, dtype)
    for i in range(size):
        out[i] = pyfunc(*[flat[i].item() for flat in flats])
    return out.reshape(shape)


def first_result_dtype(pyfunc, firsts):
    """The dtype of f's result on the first elements (NumPy scalars), which
    NumPy gives the output.  The interpreter runs its own version
    (builtins_impl), which refuses a result whose dtype a runtime branch
    chose."""
    return np.asarray(pyfunc(*firsts)).dtype
