"""Guards on the whole contents of a list, dict or set from outside the call.

A trace that iterates `self.layers`, takes `len(CONFIG)`, slices a list or
tests `x in NAMES` depended on how many items there are and on every one of
them, not on one slot: appending a layer after the first call must compile
again.  Reading one item guards that slot alone (calls._guard_item); these
guards cover the rest.  The arrays a container holds are runtime inputs
re-read at every call (calls.capture), and so are the numbers a trace
promoted or rebinds (scalar_state): their slots are left out of the
identity check, or a training loop would compile at every step."""
from __future__ import annotations

import array
import collections
import operator

SAME = object()     # what a view answers for a key that still describes it

# Mutable sequences of numbers that make a new item object at each read
# (array.array's floats): compared by value, with a copy made by the trace.
BY_VALUE = (bytearray, array.array)
# Mappings guarded as dicts are: their keys in order, then each value.
MAPPINGS = (dict, collections.ChainMap)


class ContentsGuardView:
    """A list, dict or set seen through `.get(key, default)`, the one method
    guards use (driver.runner), answering SAME while `key` holds:

    ("len", n): it has n items;
    ("items", slots, skipped): its slots are `slots` (a list's length, a
    dict's keys in order), and each item but the skipped slots' is the
    object it held when the view was made (a set's: equal items).

    tpucc.snapshot makes the view again in another process from the live
    container, whose contents the world digest matched."""
    __slots__ = ("container", "expected", "_key", "_check", "_stored")

    def __init__(self, container):
        self.container = container
        self._stored = _storage_reader(type(container))
        container = self.stored()
        self.expected = dict(container) if isinstance(container, MAPPINGS) else \
            set(container) if isinstance(container, set) else \
            container[:] if isinstance(container, BY_VALUE) else list(container)
        self._key = self._check = None

    def stored(self):
        """The container, or for a subclass of list or dict (whose __len__,
        __iter__ or __getitem__ may be the user's) a copy of what it
        stores: its length, items and keys then agree."""
        return self.container if self._stored is None else self._stored(self.container)

    def get(self, key, default=None):
        if key is not self._key:    # (one key per view and trace: made once)
            self._key, self._check = key, self._make_check(key)
        return SAME if self._check(self.stored()) else default

    def _make_check(self, key):
        if key[0] == "len":
            n = key[1]
            return lambda c: len(c) == n
        _, slots, skipped = key
        if isinstance(self.expected, (set, *BY_VALUE)):     # compared by value
            expected_values = self.expected
            return lambda c: c == expected_values
        n = slots if isinstance(slots, int) else len(slots)
        skip = set(skipped)
        kept = [s for s in (range(slots) if isinstance(slots, int) else slots) if s not in skip]
        expected = tuple(self.expected[s] for s in kept)
        if isinstance(slots, int) and not skip:
            same_items = lambda c: all(map(operator.is_, c, expected))  # noqa: E731
        elif kept:
            items = operator.itemgetter(*kept) if len(kept) > 1 else \
                (lambda c, k=kept[0]: (c[k],))
            same_items = lambda c: all(map(operator.is_, items(c), expected))  # noqa: E731
        else:
            same_items = lambda c: True  # noqa: E731
        if isinstance(slots, int):
            return lambda c: len(c) == n and same_items(c)
        order = list(slots)
        return lambda c: len(c) == n and list(c) == order and same_items(c)

    def key(self, whole: bool, read_each_call) -> tuple:
        """The key for what a trace read: the length only, or the items too,
        skipping the slots `read_each_call(slot)` says the compiled program
        re-reads at every call."""
        c = self.stored()
        if not whole:
            return ("len", len(c))
        slots = tuple(c) if isinstance(c, MAPPINGS) else len(c)
        skipped = () if isinstance(c, (set, *BY_VALUE)) else tuple(
            s for s in (c if isinstance(c, MAPPINGS) else range(slots)) if read_each_call(s))
        return ("items", slots, skipped)



_READERS = ("__len__", "__iter__", "__getitem__", "keys", "values", "items")


def _storage_reader(cls):
    """list.copy or dict.copy (which read the storage, not overridable
    methods) for a subclass of list or dict that overrides how it is read
    in Python; else None."""
    base = list if issubclass(cls, list) else dict if issubclass(cls, dict) else None
    if base is None or not any(getattr(cls, name, None) is not getattr(base, name, None)
                               and callable(getattr(cls, name, None))
                               and hasattr(getattr(cls, name), "__code__") for name in _READERS):
        return None
    return base.copy
