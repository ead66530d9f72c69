"""Plain values from outside the process, checked once: the one integer check every layer uses, and the
one check of a number of seconds (every time limit of the API and of every command)."""

from __future__ import annotations

import math
import numbers


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_int(value: object, what: str) -> int:
    """Return ``value`` as a Python int; bools, floats and strings are rejected by name."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)


def as_seconds(value: object, what: str) -> float:
    """A number of seconds: finite and > 0. A limit is a promise to return by then, so infinity (a limit
    that is none: use None, or leave the flag out), NaN, zero and negative numbers are refused by name."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a number of seconds, got {_shown(value)} ({type(value).__name__})")
    try:
        seconds = float(value)
    except OverflowError:       # an int beyond a double: as infinite as inf
        seconds = math.inf
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{what} must be a finite number of seconds > 0, got {_shown(value)}")
    return seconds
