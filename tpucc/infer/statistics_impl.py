"""The statistics module's means and spreads of runtime numbers.

statistics.mean, variance, stdev and their kin add exact fractions of the
values (float.as_integer_ratio) and round once; fmean adds with math.fsum,
exactly rounded too.  Compiled code holds runtime numbers as float64 and
cannot do either, and NumPy's sums round differently (the last digit may
differ), so these are refused at the program's call, naming NumPy's form.
Of static numbers they are the module's own business: its code runs now.
statistics.median, median_low, median_high and quantiles sort and pick, and
compile as the Python code they are.
"""
from __future__ import annotations

import statistics

from ..errors import UnsupportedError
from .builtins_impl import BUILTINS, holds_array
from .iterators import SeqIter

_NUMPY_FORM = {
    statistics.mean: "np.mean(np.array(values))",
    statistics.fmean: "float(np.mean(np.array(values, dtype=float)))",
    statistics.geometric_mean: "float(np.exp(np.mean(np.log(np.array(values)))))",
    statistics.harmonic_mean: "len(values) / np.sum(1 / np.array(values))",
    statistics.variance: "np.var(np.array(values), ddof=1)",
    statistics.pvariance: "np.var(np.array(values))",
    statistics.stdev: "float(np.std(np.array(values), ddof=1))",
    statistics.pstdev: "float(np.std(np.array(values)))",
}


def _exact_statistic(fn, numpy_form: str):
    def call(interp, data, *rest, **kwargs):
        if isinstance(data, SeqIter):       # a generator of the program's: its items now
            data = tuple(interp.static_items(data))
        if holds_array(data) or holds_array(rest) or holds_array(kwargs):
            raise UnsupportedError(
                f"statistics.{fn.__name__}() of runtime numbers is not supported in compiled "
                "code: it sums them exactly (as fractions, or with math.fsum), which float64 "
                "arithmetic at run time cannot", hint=f"use NumPy: {numpy_form} (its sums may round the last "
                                    "digit differently)")
        return interp.inline(fn, [data, *rest], kwargs)
    return call


for _fn, _form in _NUMPY_FORM.items():
    BUILTINS[_fn] = _exact_statistic(_fn, _form)
