"""functools.cache / lru_cache applied inside compiled code: the memoized
recursion of a top-down dynamic program (`@functools.cache def go(i, j)`
defined in the function).  Such a cache is made at every call and dies
with it, so nothing outlives the call; functools' own code, whose C wrapper
gets attributes set on it, is not interpreted: a LocalCache stands for it.

With static arguments, the function is interpreted once per distinct
arguments and its answer reused, as the cache does eagerly (the same object
for equal arguments; fib(30) interprets 31 calls, not 1.6 million).  An
answer is reused only inside the runtime branch or loop body that computed
it, or one nested in it: elsewhere the values it holds do not exist, and
another path may have other static state.  With runtime arguments each
call is traced anew (equal values), as a module-level cache's are.

maxsize only bounds memory eagerly: a call computes the same answers
whatever it is, so it is ignored."""
from __future__ import annotations

import functools
import inspect

from ..errors import UserCodeError
from . import builder
from .values import NeedsStatic

_LRU_CACHE = inspect.signature(functools.lru_cache)


class LocalCache:
    """What functools.cache(fn) or lru_cache(...)(fn) gives in compiled code."""

    def __init__(self, fn, typed: bool = False):
        self.fn, self.typed = fn, typed
        self.answers = {}       # key -> (the region builder that computed it, the answer)
        functools.update_wrapper(self, fn)      # __wrapped__, __name__, __doc__

    def cache_clear(self):
        self.answers.clear()


def is_cache_maker(fn) -> bool:
    return fn is functools.cache or fn is functools.lru_cache


def make(fn, args, kwargs):
    """functools.cache(f), lru_cache(f), lru_cache(maxsize, typed): a
    LocalCache, or the decorator that makes one."""
    if fn is functools.cache:
        return LocalCache(*args, **kwargs)
    bound = _LRU_CACHE.bind(*args, **kwargs)
    bound.apply_defaults()
    maxsize, typed = bound.arguments["maxsize"], bound.arguments["typed"]
    if callable(maxsize) and isinstance(typed, bool):      # @lru_cache without parentheses
        return LocalCache(maxsize, typed)
    if maxsize is not None and not isinstance(maxsize, int):
        raise UserCodeError("TypeError: Expected first argument to be an integer, a callable, "
                            "or None")
    return functools.partial(functools.lru_cache, typed=typed)


def call(interp, cache: LocalCache, args, kwargs, runtime: bool):
    """cache(*args, **kwargs); `runtime`: whether an argument is a runtime value."""
    if runtime:
        return interp.call(cache.fn, args, kwargs)
    key = _key(args, kwargs, cache.typed)
    regions = builder.ctx().regions
    try:
        found = cache.answers.get(key)
    except NeedsStatic:         # (an argument whose __hash__ reads a runtime value)
        return interp.call(cache.fn, args, kwargs)
    except TypeError as e:      # an unhashable argument, as eagerly
        raise UserCodeError(f"TypeError: {e}") from None
    if found is not None and any(r is found[0] for r in regions):
        return found[1]
    answer = interp.call(cache.fn, args, kwargs)
    cache.answers[key] = (regions[-1], answer)
    return answer


def _key(args, kwargs, typed: bool) -> tuple:
    """The arguments as functools' cache tells them apart: equal values
    share an answer (1 and 1.0 too, unless typed)."""
    key = (*args, *((object, *kwargs.items()) if kwargs else ()))
    if typed:
        key += tuple(type(v) for v in (*args, *kwargs.values()))
    return key
