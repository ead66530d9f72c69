"""Plain values from outside the process, checked once: the one integer check every layer uses."""

from __future__ import annotations

import numbers


def as_int(value: object, what: str) -> int:
    """Return ``value`` as a Python int; bools, floats and strings are rejected by name."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)
