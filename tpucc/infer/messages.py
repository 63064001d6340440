"""Messages of the program's own runtime raises that format runtime values.

`assert s > 0, f"sum {s} not positive"` under a runtime condition compiles
to a check (checks.py).  Its message is computed at compile time, as any
static message is, except that each runtime value formatted into it
(FORMAT_VALUE calls Fields.format) leaves a marker; the markers split the
text into a Message: literal text and Fields, each a runtime value with
its conversion (`!r`) and format spec.  The check carries the values out
of the executable (checks.require) and its record keeps the message as a
JSON template; when the check fails, `render` formats the values on the
host as eager Python formats them: the NumPy scalar, 0-d or n-d array, or
Python number the program's value is, with the same conversion and spec.
"""
from __future__ import annotations

import collections
import re
import sys
from dataclasses import dataclass

from ..errors import StaticValueError

# Where a runtime value cannot be shown (one too large to carry, or a
# message a marker did not survive): the error keeps this in its place.
RUNTIME_TEXT = "<runtime value>"
# Private-use characters around a field's number in the text being computed.
_MARK = re.compile("\ue000([0-9]+)\ue001")
_CONVERSIONS = {1: "s", 2: "r", 3: "a"}      # FORMAT_VALUE's flags & 3
_CONVERT = {"s": str, "r": repr, "a": ascii}


@dataclass(frozen=True)
class Field:
    value: object                   # the runtime Array formatted
    conversion: str | None          # "s", "r", "a" (`!s`, `!r`, `!a`), or None
    spec: str                       # the format spec (static), "" for none


@dataclass(frozen=True)
class Message:
    parts: tuple                    # str and Field, in order

    def text(self) -> str:
        """The message with RUNTIME_TEXT for its runtime values."""
        return "".join(p if isinstance(p, str) else RUNTIME_TEXT for p in self.parts)


class Fields:
    """The runtime values formatted into one message while it is computed."""
    def __init__(self):
        self.found: list[Field] = []

    def format(self, value, conversion: int, spec: str) -> str:
        """FORMAT_VALUE of runtime `value`: a marker, in place of its text.
        A RuntimeText (what a user __repr__ formatting runtime values gave,
        `f"{obj!r}"`): its text with a marker for each of its values."""
        if _MARK.search(spec):
            raise StaticValueError("a format spec computed from runtime values needs its "
                                   "value at compile time")
        if isinstance(value, RuntimeText):
            if spec or conversion not in (0, 1):    # (padding or repr() needs its text)
                refuse_use()
            return "".join(self._marked(p) for p in value.message.parts)
        return self._marked(Field(value, _CONVERSIONS.get(conversion), spec))

    def _marked(self, part) -> str:
        if isinstance(part, str):
            return part
        self.found.append(part)
        return f"\ue000{len(self.found) - 1}\ue001"

    def message(self, text: str):
        """`text` as computed: itself when no runtime value went into it,
        else a Message."""
        if not self.found:
            return text
        pieces = _MARK.split(text)      # text, field number, text, ...
        numbers = [int(n) for n in pieces[1::2]]
        if numbers != list(range(len(self.found))):
            # A marker lost or moved by a conversion of a string holding it
            # (f"{f'{x}'!r}"): those values are not shown.
            return _MARK.sub(RUNTIME_TEXT, text)
        parts = [self.found[int(p)] if k % 2 else p for k, p in enumerate(pieces)]
        return Message(tuple(p for p in parts if p != ""))


# --- on the host, when a check failed ------------------------------------------------

def template_field(output: int, weak: str | None, scalar: bool, field: Field) -> dict:
    """A field of a check record's template (JSON): the executable output
    holding the value, how to rebuild the user's value from it (driver.
    to_user_value's `weak` type name and `scalar`), conversion and spec."""
    return {"output": output, "weak": weak, "scalar": scalar,
            "conversion": field.conversion, "spec": field.spec}


def render(template: list, outs) -> str:
    """A record's message with the values of the executable's outputs
    `outs` formatted into it as eager Python formats them.  Formatting
    may raise as it would in eager code (a spec NumPy refuses for an
    array: TypeError)."""
    from ..driver import to_user_value
    from ..aot.tree import WEAK_TYPES
    text = []
    for part in template:
        if isinstance(part, str):
            text.append(part)
            continue
        weak = WEAK_TYPES[part["weak"]] if part["weak"] else None
        value = to_user_value(outs[part["output"]], weak, part["scalar"])
        if part["conversion"]:
            value = _CONVERT[part["conversion"]](value)
        text.append(format(value, part["spec"]))
    return "".join(text)



# --- f-strings of runtime values printed by print() ----------------------------------

class RuntimeText(str):
    """A string of runtime values made for print() (`print(f"loss={loss:.4f}")`,
    `print(str(x))`): its `message` (a Message) is formatted when the program
    runs (builtins_impl.print_).  Its own text has RUNTIME_TEXT in place of
    each value, so every other use (compared, measured, sliced, formatted
    again, a str method) needs the real text now: E400 (refuse_use)."""

    def __new__(cls, message: Message):
        self = super().__new__(cls, message.text())
        self.message = message
        return self


def refuse_use(*args, **kwargs):
    raise StaticValueError("formatting a runtime value into a string needs its value at "
                           "compile time", hint="print(f\"...{x}...\") prints runtime values "
                           "when the program runs; a string made of them cannot be used "
                           "otherwise (keep the numbers, or print them)")


# Everything of str's but what Python and tpucc need to hold, show or copy one.
_KEPT = {"__new__", "__init__", "__getattribute__", "__setattr__", "__delattr__", "__class__",
         "__repr__", "__str__", "__reduce__", "__reduce_ex__", "__getnewargs__",
         "__init_subclass__", "__subclasshook__", "__dir__", "__sizeof__", "__doc__",
         "__getstate__"}
for _name in dir(str):
    if _name not in _KEPT and callable(getattr(str, _name)):
        setattr(RuntimeText, _name, refuse_use)


def ascii_of(text: str) -> str:
    """What ascii() makes of repr's `text`: its non-ASCII characters escaped.
    A RuntimeText's runtime values are numbers and arrays, shown in ASCII:
    only its literal text could need escaping, which is refused."""
    if isinstance(text, RuntimeText):
        if not str.isascii(text):
            refuse_use()
        return text
    return text.encode("ascii", "backslashreplace").decode("ascii")


def _concatenated(a, b):
    """a + b of strings, one of them a RuntimeText: another one."""
    if not isinstance(a, str) or not isinstance(b, str):
        refuse_use()
    parts = [q for p in (a, b) for q in (p.message.parts if isinstance(p, RuntimeText) else (p,))]
    return runtime_text(parts)


RuntimeText.__add__ = _concatenated
RuntimeText.__radd__ = lambda self, other: _concatenated(other, self)


def text_parts(value, conversion: str | None, spec: str, render=None):
    """The Message parts of `format(value, spec)` after `conversion`, where
    value is a runtime Array or a static container holding some (as str()
    shows it: repr of its items); None for a container with a format spec.
    `render(value, convert)`: str(), repr() of another value as the program
    computes it (a user class's __repr__ interpreted), or None for Python's."""
    from .values import Array
    if isinstance(value, Array):
        return [Field(value, conversion, spec)]
    if spec:
        return None
    if isinstance(value, RuntimeText):
        return list(value.message.parts) if conversion in (None, "s") else None
    if isinstance(value, _FORMATTED_CONTAINERS) and _formats_items(type(value)):
        return _container_parts(value, render)
    text = render(value, conversion) if render is not None else None
    if isinstance(text, RuntimeText):
        return list(text.message.parts)
    if text is not None:
        return [text]
    if isinstance(value, _FORMATTED_CONTAINERS):    # (its own __repr__, not the program's)
        from .builtins_impl import holds_array
        if holds_array(list(value) if isinstance(value, collections.deque) else value):
            return None
    return [format(value, spec) if conversion is None else _CONVERT[conversion](value)]


# The __repr__ of the containers whose items are formatted here; another
# subclass's own __repr__ is the program's (`render`).
_CONTAINER_REPRS = frozenset((tuple.__repr__, list.__repr__, dict.__repr__,
                              collections.OrderedDict.__repr__,
                              collections.defaultdict.__repr__,
                              collections.deque.__repr__))
_FORMATTED_CONTAINERS = (tuple, list, dict, collections.deque)
_NAMEDTUPLE_REPR = collections.namedtuple("Sample", "").__repr__.__code__


def _formats_items(cls) -> bool:
    return cls.__repr__ in _CONTAINER_REPRS or \
        getattr(cls.__repr__, "__code__", None) is _NAMEDTUPLE_REPR


def _container_parts(value, render):
    """repr() of a tuple, list or dict (or of namedtuple, OrderedDict,
    defaultdict: what their own __repr__ writes), each item's repr in
    turn; None where one has no parts."""
    if isinstance(value, dict):
        pairs = [(text_parts(k, "r", "", render), text_parts(v, "r", "", render))
                 for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        items = [[*k, ": ", *v] for k, v in pairs]
        if isinstance(value, collections.OrderedDict) and sys.version_info < (3, 12):
            items = [["(", *k, ", ", *v, ")"] for k, v in pairs]   # OrderedDict([(k, v)])
            return [type(value).__name__, "(", *(["[", *_joined(items), "]"] if items else []),
                    ")"]
        inner = ["{", *_joined(items), "}"]
        if isinstance(value, collections.OrderedDict):
            return [type(value).__name__, "(", *(inner if items else []), ")"]
        if isinstance(value, collections.defaultdict):
            return [type(value).__name__, "(", repr(value.default_factory), ", ", *inner, ")"]
        return inner
    items = [text_parts(v, "r", "", render) for v in value]
    if any(i is None for i in items):
        return None
    if getattr(type(value).__repr__, "__code__", None) is _NAMEDTUPLE_REPR:
        # a namedtuple: NT(a=1, b=2)
        items = [[f"{name}=", *item] for name, item in zip(type(value)._fields, items)]
        return [type(value).__name__, "(", *_joined(items), ")"]
    if isinstance(value, collections.deque):     # deque([1, 2], maxlen=3)
        maxlen = "" if value.maxlen is None else f", maxlen={value.maxlen}"
        return [type(value).__name__, "([", *_joined(items), "]", maxlen, ")"]
    opening, closing = ("(", ",)" if len(value) == 1 else ")") if isinstance(value, tuple) \
        else ("[", "]")
    return [opening, *_joined(items), closing]


def _joined(items) -> list:
    out = []
    for k, item in enumerate(items):
        if k:
            out.append(", ")
        out.extend(item)
    return out


def runtime_text(parts) -> RuntimeText:
    """A RuntimeText of these parts (adjacent texts merged)."""
    merged = []
    for p in parts:
        if isinstance(p, str) and merged and isinstance(merged[-1], str):
            merged[-1] = str.__add__(merged[-1], p)
        elif not (isinstance(p, str) and p == ""):
            merged.append(p)
    return RuntimeText(Message(tuple(merged)))


def concatenated(pieces) -> str:
    """"".join(pieces) of strings, a RuntimeText where one of them is."""
    if not any(isinstance(p, RuntimeText) for p in pieces):
        return "".join(pieces)
    return runtime_text([q for p in pieces
                         for q in (p.message.parts if isinstance(p, RuntimeText) else (p,))])


def holds_runtime_text(value) -> bool:
    if isinstance(value, RuntimeText):
        return True
    return isinstance(value, (list, tuple)) and any(isinstance(v, RuntimeText) for v in value)


def text_method(method, args, kwargs):
    """A method of a plain str given RuntimeTexts: `sep.join(...)` of
    strings to print is one; any other needs their text now."""
    if method.__name__ != "join" or kwargs or len(args) != 1 or \
            not all(isinstance(v, str) for v in args[0]):
        refuse_use()
    parts = []
    for k, v in enumerate(args[0]):
        if k:
            parts.append(method.__self__)
        parts.extend(v.message.parts if isinstance(v, RuntimeText) else (v,))
    return runtime_text(parts)
