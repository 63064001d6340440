"""tpucc's environment variables, read in one place: a value tpucc does not
understand is named in one warning, not ignored without a word."""
from __future__ import annotations

import functools
import os
import warnings


class EnvironmentWarning(UserWarning):
    """An environment variable of tpucc's holds a value it does not take."""


def words(name: str, known: tuple) -> frozenset:
    """The comma-separated words of `name` (case and spaces ignored), those
    in `known`; a warning names the others."""
    return _words(name, os.environ.get(name, ""), known)


@functools.lru_cache(maxsize=None)
def _words(name, value, known) -> frozenset:
    given = {w.strip().lower() for w in value.split(",") if w.strip()}
    unknown = sorted(given - set(known))
    if unknown:
        warnings.warn(f"tpucc: {name}={value!r}: {', '.join(map(repr, unknown))} "
                      f"{'is' if len(unknown) == 1 else 'are'} not among "
                      f"{', '.join(known)} (ignored)", EnvironmentWarning, stacklevel=2)
    return frozenset(given & set(known))


def number(name: str, default: float) -> float:
    return _number(name, os.environ.get(name), default)


@functools.lru_cache(maxsize=None)
def _number(name, value, default) -> float:
    if value is None or not value.strip():
        return default
    try:
        return float(value)
    except ValueError:
        warnings.warn(f"tpucc: {name}={value!r} is not a number; using {default}",
                      EnvironmentWarning, stacklevel=2)
        return default


FALSE = ("0", "false", "no", "off")
TRUE = ("1", "true", "yes", "on")


def flag(name: str, default: bool) -> bool:
    """An on/off variable: 1/true/yes/on or 0/false/no/off (case and spaces
    ignored); unset or empty is `default`, anything else warns and is too."""
    return _flag(name, os.environ.get(name), default)


@functools.lru_cache(maxsize=None)
def _flag(name, value, default) -> bool:
    word = (value or "").strip().lower()
    if word in TRUE or word in FALSE:
        return word in TRUE
    if word:
        warnings.warn(f"tpucc: {name}={value!r} is not one of {', '.join(TRUE + FALSE)}; "
                      f"using {int(default)}", EnvironmentWarning, stacklevel=2)
    return default
