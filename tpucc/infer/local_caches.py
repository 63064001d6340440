"""functools.cache / lru_cache applied inside compiled code: the memoized
recursion of a top-down dynamic program (`@functools.cache def go(i, j)`
defined in the function).  Such a cache is made at every call and dies
with it, so nothing outlives the call; functools' own code, whose C wrapper
gets attributes set on it, is not interpreted: a LocalCache stands for it.

With static arguments, the function is interpreted once per distinct
arguments and its answer reused, as the cache does eagerly (the same object
for equal arguments; fib(30) interprets 31 calls, not 1.6 million), and
maxsize evicts the least recently used answer, as eagerly.  An answer is
reused only inside the region that computed it, or one nested in it: the
iterations of an unrolled loop are spliced into the code around them, so
their answers live on there; a runtime branch or loop body's values exist
only on its path.  With runtime arguments each call is traced anew (equal
values), as a module-level cache's are.

Computing an answer again where Python's cache would answer (on a path
where a runtime branch computed it, in a later iteration of a runtime loop,
with runtime arguments) gives equal values, but runs the function's side
effects again: where it has some (`nonlocal n; n += 1`, `log.append(k)`),
such a call is refused, since only run time knows whether Python's cache
holds the answer."""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ..errors import SideEffectError, StaticValueError, UnsupportedError, UserCodeError
from . import builder, generator_runs
from .values import Array, NeedsStatic

_LRU_CACHE = inspect.signature(functools.lru_cache)


class LocalCache:
    """What functools.cache(fn) or lru_cache(...)(fn) gives in compiled code."""

    def __init__(self, fn, maxsize: int | None = None, typed: bool = False):
        self.fn, self.typed = fn, typed
        self.maxsize = None if maxsize is None else max(maxsize, 0)    # (as functools reads it)
        # key -> (the region that computed it, the answer), least recently used first
        self.answers = {}
        self.hits = self.misses = 0
        # Whether every call so far was a hit or a miss at compile time (none
        # under a runtime branch or loop, none with runtime arguments).
        self.counts_known = True
        # Whether the answers held may differ from Python's cache on some
        # path: a runtime branch or loop evicted or cleared some.
        self.paths_differ = False
        self.made_depth = builder.ctx().runtime_depth
        functools.update_wrapper(self, fn)      # __wrapped__, __name__, __doc__

    def cache_clear(self):
        if builder.ctx().runtime_depth > self.made_depth:
            self.paths_differ = True        # (cleared only on the path that runs it)
        self.answers.clear()
        self.hits = self.misses = 0

    def cache_parameters(self):
        return {"maxsize": self.maxsize, "typed": self.typed}

    def cache_info(self):
        if not self.counts_known:
            raise UnsupportedError(
                "cache_info() of a functools cache called under a runtime `if` or loop, or "
                "with runtime arguments, is not supported: whether each call found its answer "
                "is known only at run time", hint="count the calls yourself in a variable")
        return functools._CacheInfo(self.hits, self.misses, self.maxsize, len(self.answers))

    def __getattr__(self, name):        # (only for names the wrapper lacks)
        raise AttributeError(f"'functools._lru_cache_wrapper' object has no attribute '{name}'")


class CacheDecorator:
    """What lru_cache(maxsize, typed) gives: applied to a function, a LocalCache."""

    def __init__(self, maxsize: int | None, typed: bool):
        self.maxsize, self.typed = maxsize, typed


def is_cache_maker(fn) -> bool:
    return fn is functools.cache or fn is functools.lru_cache or isinstance(fn, CacheDecorator)


def make(fn, args, kwargs):
    """functools.cache(f), lru_cache(f), lru_cache(maxsize, typed): a
    LocalCache, or the decorator that makes one."""
    if fn is functools.cache:
        return LocalCache(*args, **kwargs)
    if isinstance(fn, CacheDecorator):
        return LocalCache(*args, **kwargs, maxsize=fn.maxsize, typed=fn.typed)
    bound = _LRU_CACHE.bind(*args, **kwargs)
    bound.apply_defaults()
    maxsize, typed = bound.arguments["maxsize"], bound.arguments["typed"]
    if callable(maxsize) and isinstance(typed, bool):      # @lru_cache without parentheses
        return LocalCache(maxsize, 128, typed)
    if maxsize is not None and not isinstance(maxsize, int):
        raise UserCodeError("TypeError: Expected first argument to be an integer, a callable, "
                            "or None")
    return CacheDecorator(maxsize, typed)


def method(cache: LocalCache, name: str, args, kwargs):
    """cache.cache_info(), cache.cache_clear(), cache.cache_parameters():
    run as they are (static), not interpreted."""
    return getattr(cache, name)(*args, **kwargs)


def call(interp, cache: LocalCache, args, kwargs, runtime: bool):
    """cache(*args, **kwargs); `runtime`: whether an argument is a runtime value."""
    c = builder.ctx()
    if runtime:
        return _traced_anew_by(interp, cache, args, kwargs)
    if c.runtime_depth > cache.made_depth:
        cache.counts_known = False
    key = _key(args, kwargs, cache.typed)
    try:
        found = cache.answers.get(key)
    except NeedsStatic:         # (an argument whose __hash__ reads a runtime value)
        return _traced_anew_by(interp, cache, args, kwargs)
    except TypeError as e:      # an unhashable argument, as eagerly
        raise UserCodeError(f"TypeError: {e}") from None
    if found is not None and _holds(c.regions, found[0]):
        cache.hits += 1
        cache.answers[key] = cache.answers.pop(key)     # (now the most recently used)
        return found[1]
    cache.misses += 1
    # Python's cache may hold the answer where this call runs: computing it
    # again runs the function's side effects where Python's would not.
    unsure = (cache.paths_differ or any(c.runtime_loops[cache.made_depth:])
              or found is not None and _computed_on_another_path(c.regions, found[0]))
    answer = _computed(interp, cache.fn, args, kwargs, unsure)
    if cache.maxsize == 0:
        return answer
    cache.answers.pop(key, None)
    cache.answers[key] = (c.regions[-1], answer)
    if cache.maxsize is not None and len(cache.answers) > cache.maxsize:
        del cache.answers[next(iter(cache.answers))]        # the least recently used
        if c.runtime_depth > cache.made_depth:
            cache.paths_differ = True       # (evicted only on the path that runs this)
    return answer


def _traced_anew_by(interp, cache: LocalCache, args, kwargs):
    answer = traced_anew(interp, cache.fn, args, kwargs, cache, cache.typed)
    cache.counts_known = False
    cache.paths_differ = True       # (Python's cache now holds an answer tracing did not)
    return answer


def traced_anew(interp, fn, args, kwargs, cache=None, typed: bool = False):
    """A cached function called with runtime arguments: traced, its answer
    computed at every call, as Python's cache would only on a miss.  An
    array argument is unhashable, as eagerly.  `cache`: the cache object
    (fn's functools wrapper, or a LocalCache), whose earlier runtime calls
    this one may hit."""
    _refuse_unhashable(args, kwargs)
    _unroll_for_static_arguments(args, kwargs)
    answer = _computed(interp, fn, args, kwargs, unsure=True)
    if cache is None or typed:
        return answer
    return _as_python_cache_answers(cache, _key(args, kwargs, typed), answer)


def _as_python_cache_answers(cache, key: tuple, answer):
    """Tracing anew gives the answer Python's cache would hold, equal values
    for equal arguments, but not always of the same type: an earlier call
    with float(x[0]) and this one with x[0] (np.float64) are one key where
    the values are equal, and Python then returns the earlier answer, a
    Python float, where this call computes an np.float64.  So where an
    earlier answer is a number of another type, the answer is the earlier
    one where the keys are equal at run time (the first such call's, as
    Python's cache keeps the first), held in one runtime value (held_ints);
    an answer of another kind (an array, a container) is refused."""
    c = builder.ctx()
    calls = c.cache_calls.setdefault(id(cache), (cache, []))[1]
    result = answer
    for earlier_key, region, earlier in reversed(calls):
        if _answer_type(earlier) == _answer_type(answer) or not _may_equal(earlier_key, key):
            continue
        here = _holds(c.regions, region)
        if not here and not _computed_on_another_path(c.regions, region):
            continue        # (a trial given up: that call never ran)
        if not (here and _is_number(earlier) and _is_number(answer)):
            raise _other_type_refusal(cache, earlier, answer)
        from .builtins_impl import either_number
        hit = _keys_equal(earlier_key, key)
        result = earlier if hit is True else either_number(
            hit, earlier, result, f"the functools cache of `{_name(cache)}`")
    calls.append((key, c.regions[-1], result))
    return result


def _is_number(v) -> bool:
    """A number the program holds as one runtime value of either type."""
    if isinstance(v, Array):
        return v.shape == () and (v.weak or v.immutable is True) and v.dtype.kind in "biuf"
    return isinstance(v, _NUMBERS) and not isinstance(v, (complex, np.complexfloating))


def _keys_equal(a, b):
    """Whether two cache keys that _may_equal are equal, as a runtime bool
    (Python's == of their numbers: NumPy's, in their promoted dtype)."""
    from ..ops.registry import NUMPY
    if isinstance(a, tuple) and isinstance(b, tuple):
        parts = [_keys_equal(x, y) for x, y in zip(a, b)]
        runtime = [p for p in parts if isinstance(p, Array)]
        return functools.reduce(NUMPY[np.logical_and], runtime) if runtime else True
    if isinstance(a, Array) or isinstance(b, Array):
        return NUMPY[np.equal](a, b)
    return True         # (static parts: equal, or _may_equal would have said no)


def _name(cache) -> str:
    return getattr(cache, "__qualname__", "the cached function")


def _other_type_refusal(cache, earlier, answer) -> StaticValueError:
    return StaticValueError(
        f"the functools cache of `{_name(cache)}` may answer this call with an earlier "
        f"call's answer ({_type_shown(earlier)}), where computing it gives "
        f"{_type_shown(answer)}: the arguments of the two calls are equal for the cache "
        "when their values are, which is known only at run time",
        hint="call it with arguments of the same types each time (e.g. float(v) at every "
             "call), or drop the cache")


def _may_equal(a, b) -> bool:
    """Whether two cache keys may be equal at run time: their static parts
    equal, and each runtime number beside a number (1 == 1.0 == True)."""
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(map(_may_equal, a, b))
    if isinstance(a, Array) or isinstance(b, Array):
        return all(isinstance(v, _NUMBERS) or isinstance(v, Array) and v.shape == ()
                   for v in (a, b))
    try:
        return bool(a == b)
    except Exception:               # (an object whose == cannot answer now)
        return True


_NUMBERS = (bool, int, float, complex, np.number, np.bool_)


def _answer_type(v):
    """What the program can tell of an answer without its values: Python
    type, and an array's dtype and shape, through tuples and lists."""
    from .builtins_impl import python_sample
    if isinstance(v, Array):
        return type(python_sample(v)), v.dtype, v.shape
    if isinstance(v, (tuple, list)):
        return type(v), tuple(map(_answer_type, v))
    return type(v)


def _type_shown(v) -> str:
    from .calls import python_type_name
    shown = python_type_name(v)
    if isinstance(v, Array) and shown == "numpy.ndarray":
        shown += f" of {v.dtype}{list(v.shape)}"
    return f"{'an' if shown[0] in 'aeiou' else 'a'} {shown}"


def _unroll_for_static_arguments(args, kwargs) -> None:
    """Inside a static loop being tried as one runtime loop (a While over its
    counter), a cached function given the counter (`for k in range(n): t +=
    s(k)`, a top-down DP's loop over choices) would be traced anew at every
    call, its recursion never ending on a static condition: the loop is
    unrolled instead (loops._try_counted), where the cache answers."""
    if not builder.ctx().growths:
        return
    for v in (*args, *kwargs.values()):
        if isinstance(v, Array) and v.span is not None:
            raise NeedsStatic("the argument of a cached function", v)


def _computed(interp, fn, args, kwargs, unsure: bool):
    """fn(*args, **kwargs) interpreted; `unsure`: whether Python's cache
    might have answered instead, so side effects are refused."""
    if not unsure:
        return interp.call(fn, args, kwargs)
    with generator_runs.watching_effects(interp) as run:
        answer = interp.call(fn, args, kwargs)
    if run.effect_after >= 0:
        name = getattr(fn, "__qualname__", "the cached function")
        raise SideEffectError(
            f"calling the cached function `{name}`, which changes outside state (a `nonlocal` "
            "or global variable, a list, a dict, an attribute or an array), with runtime "
            "arguments, inside a runtime loop, or after a runtime `if` that may have called "
            "it, is not supported: whether Python's cache answers (so its changes do not run "
            "again) is known only at run time",
            hint="make the cached function pure (return what it computes, and make the "
                 "changes where it is called), or drop the cache")
    return answer


def _holds(regions, region) -> bool:
    """Whether the values of `region` exist at the current point."""
    region = builder.living(region)
    return any(r is region for r in regions)


def _computed_on_another_path(regions, region) -> bool:
    """Whether `region`, not around the current point, is a runtime branch or
    loop body whose code was kept (Python's cache then holds the answer on
    the paths that ran it); else it was a trial given up (an unrolled
    iteration not kept): its answer never existed."""
    region = builder.living(region)
    while region is not None and not any(r is region for r in regions):
        if not region.runtime:
            return False        # (a region given up: kept ones are spliced)
        region = region.parent and builder.living(region.parent)
    return region is not None


def _refuse_unhashable(args, kwargs) -> None:
    """TypeError where Python's cache could not hash an argument: a NumPy
    array (not a scalar), a list, a dict or a set, itself or in a tuple."""
    stack = list(args) + list(kwargs.values())
    while stack:
        v = stack.pop()
        if isinstance(v, Array) and not (v.weak or v.immutable):
            raise UserCodeError("TypeError: unhashable type: 'numpy.ndarray'")
        if isinstance(v, (list, dict, set, bytearray)):
            raise UserCodeError(f"TypeError: unhashable type: '{type(v).__name__}'")
        if type(v) is tuple:
            stack.extend(v)


def _key(args, kwargs, typed: bool) -> tuple:
    """The arguments as functools' cache tells them apart: equal values
    share an answer (1 and 1.0 too, unless typed), but for functools'
    shortcut: one positional argument that is exactly an int or a str is
    its own key, never equal to the tuple key of another type's (f(2) and
    then f(2.0) compute twice)."""
    if not typed and not kwargs and len(args) == 1 and _int_or_str(args[0]):
        return (_OWN_KEY, args[0])
    key = (*args, *((object, *kwargs.items()) if kwargs else ()))
    if typed:
        key += tuple(type(v) for v in (*args, *kwargs.values()))
    return key


_OWN_KEY = object()     # (the mark of an argument that is its own key: _key)


def _int_or_str(v) -> bool:
    """Exactly a Python int or str (not a bool, not a NumPy integer)."""
    return type(v) in (int, str) or isinstance(v, Array) and v.weak and v.shape == () \
        and v.dtype.kind in "iu"
