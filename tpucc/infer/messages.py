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

import re
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
        """FORMAT_VALUE of runtime `value`: a marker, in place of its text."""
        if _MARK.search(spec):
            raise StaticValueError("a format spec computed from runtime values needs its "
                                   "value at compile time")
        self.found.append(Field(value, _CONVERSIONS.get(conversion), spec))
        return f"\ue000{len(self.found) - 1}\ue001"

    def texts_as_messages(self, values) -> list | None:
        """`values` (print()'s arguments) with each str holding markers as a
        Message; None unless the markers are every field once, in order:
        a field's text used otherwise (compared, measured, repeated) would
        not be what the run formats."""
        numbers = [int(n) for v in values if isinstance(v, str) for n in _MARK.findall(v)]
        if numbers != list(range(len(self.found))):
            return None
        return [self._split(v) if isinstance(v, str) and _MARK.search(v) else v
                for v in values]

    def _split(self, text: str):
        pieces = _MARK.split(text)      # text, field number, text, ...
        parts = [self.found[int(p)] if k % 2 else p for k, p in enumerate(pieces)]
        return Message(tuple(p for p in parts if p != ""))

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


def holds_marker(value) -> bool:
    """Whether a str holds a field's marker (Fields.format)."""
    return isinstance(value, str) and _MARK.search(value) is not None
