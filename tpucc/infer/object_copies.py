"""copy.copy and copy.deepcopy of instances of the user's classes.

The copy module's own code asks native functions about each object
(`cls.__reduce_ex__(4)`, id()), which would hand tpucc's stand-ins for
runtime arrays to native code.  For a plain object, whose state is its
__dict__ and __slots__ (a dataclass, a class with an __init__), what that
code does is simple, and done here on the interpreter's values:

- copy.copy: a new object of the same class, `__init__` not run, holding
  the very same attribute values;
- copy.deepcopy: the same, each attribute value deep-copied with the one
  memo of the whole deepcopy call (what the original shares, its copy
  shares; an object that holds itself is copied once);
- a class's own __copy__ / __deepcopy__(memo), interpreted like any
  method, wins, as in the copy module.

A class that changes how it is pickled (__reduce__, __reduce_ex__,
__getstate__, __setstate__, __getnewargs__, its own __new__) or extends
a built-in type is left to the copy module (`copied_object` returns
NOT_HANDLED)."""
from __future__ import annotations

import copyreg

from .values import set_item

NOT_HANDLED = object()

# What the copy module would call instead of copying __dict__ and __slots__.
_PICKLING_HOOKS = ("__reduce_ex__", "__reduce__", "__getstate__", "__setstate__",
                   "__getnewargs__", "__getnewargs_ex__")


def copied_object(interp, x, deep_copy=None, memo=None):
    """copy.copy(x) (deep_copy None) or copy.deepcopy(x, memo) (deep_copy:
    the deep copy of one attribute value, given the memo), for an instance
    of a user class; NOT_HANDLED for other objects."""
    from . import calls     # (not at import: calls imports builtins_impl, which imports this)
    cls = type(x)
    if calls.is_library_class(cls) or isinstance(x, type):
        return NOT_HANDLED
    own = interp.user_dunder(x, "__copy__" if deep_copy is None else "__deepcopy__")
    if own is not None:
        made = interp.inline(own, [x] if deep_copy is None else [x, memo], {})
        if memo is not None:
            memo[id(x)] = made
        return made
    if not _copied_as_plain_state(interp, cls):
        return NOT_HANDLED
    made = interp.fresh(cls.__new__(cls))
    if memo is not None:
        memo[id(x)] = made          # (before its attributes: an object that holds itself)
    serial = interp.fresh_ids[id(made)][1]
    for name in _state_names(interp, x):
        value = interp.getattr(x, name)
        if deep_copy is not None:
            value = deep_copy(value)
        set_item(interp._attributes_of(made, name), name, value, serial)
    return made


def _copied_as_plain_state(interp, cls) -> bool:
    """Whether the copy module copies an instance of cls as `cls.__new__`
    and its __dict__ and __slots__ (copyreg.__reduce_ex__ protocol 4)."""
    from . import calls
    for name in _PICKLING_HOOKS:
        interp.guard_lookup(cls, name)
        if calls.class_attribute(cls, name) is not calls.class_attribute(object, name):
            return False
    interp.guard_lookup(cls, "__new__")
    return calls.class_attribute(cls, "__new__") is object.__new__ and all(
        klass is object or not calls.is_library_class(klass) for klass in cls.__mro__)


def _state_names(interp, x) -> list:
    """The attributes x holds: its __dict__'s (those the program rebound
    on an object from outside too) and its filled __slots__."""
    from . import calls
    names = list(calls.instance_dict(x) or {})
    names += [key[1] for key in interp.shadow
              if key[0] == id(x) and isinstance(key[1], str) and key[1] not in names]
    for name in copyreg._slotnames(type(x)):
        if name not in ("__dict__", "__weakref__") and name not in names:
            try:
                interp.getattr(x, name)
            except AttributeError:
                continue            # an empty slot stays empty
            names.append(name)
    return names
