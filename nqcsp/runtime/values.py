"""Plain values from outside the process, checked once: the one integer check every layer uses, the one
check of a number of seconds (every time limit of the API and of every command), and the one reader of
JSON records that other runs wrote (checkpoint lines), which checks each field's exact type and names the
field it refuses."""

from __future__ import annotations

import math
import numbers
from typing import Any


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


class Fields:
    """A JSON object read from a file another run wrote, field by field: each read checks the field's
    exact type (a bool is not an integer, a float is not a count, a string is not a list) and raises
    ValueError naming where the object came from (``where``) and the field."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise ValueError(f"{where} must be a JSON object, got {_shown(data)}")
        self.data: dict[str, Any] = data
        self.where = where

    def only(self, *keys: str) -> Fields:
        """Refuse any field but ``keys`` (a document whose every field is checked, or refused)."""
        unknown = sorted(set(self.data) - set(keys))
        if unknown:
            raise ValueError(f"{self.where}: {unknown[0]!r} is not one of its fields ({', '.join(keys)})")
        return self

    def _field(self, key: str) -> Any:
        if key not in self.data:
            raise ValueError(f"{self.where}: the field {key!r} is missing")
        return self.data[key]

    def _refuse(self, key: str, wanted: str) -> ValueError:
        return ValueError(f"{self.where}: {key} must be {wanted}, got {_shown(self.data[key])}")

    def integer(self, key: str, low: int | None = None, high: int | None = None) -> int:
        value = self._field(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._refuse(key, "an integer")
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"{'' if low is None else low}..{'' if high is None else high}"
            raise self._refuse(key, f"an integer in {bounds}")
        return value

    def number(self, key: str, low: float = 0.0) -> float:
        """A finite real number >= ``low`` (an integer is a number here)."""
        value = self._field(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) \
                or not math.isfinite(value) or value < low:
            raise self._refuse(key, f"a finite number >= {low:g}")
        return float(value)

    def text(self, key: str) -> str:
        value = self._field(key)
        if not isinstance(value, str):
            raise self._refuse(key, "a string")
        return value

    def flag(self, key: str) -> bool:
        value = self._field(key)
        if not isinstance(value, bool):
            raise self._refuse(key, "true or false")
        return value

    def items(self, key: str) -> list[Any]:
        value = self._field(key)
        if not isinstance(value, list):
            raise self._refuse(key, "a list")
        return value

    def record(self, key: str) -> Fields:
        value = self._field(key)
        if not isinstance(value, dict):
            raise self._refuse(key, "a JSON object")
        return Fields(value, f"{self.where}: {key}")

    def records(self, key: str) -> list[Fields]:
        """A list of JSON objects, each a ``Fields`` named by its index."""
        return [Fields(item, f"{self.where}: {key}[{index}]") for index, item in enumerate(self.items(key))]
