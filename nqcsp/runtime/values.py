"""Plain values from outside the process, checked once: the one integer check every layer uses, the one
check of a number of seconds (every time limit of the API and of every command), the one parser of JSON
from outside (``parse_json``: RFC 8259 strictly, its memory estimated before it parses), and the one reader
of JSON records that other runs wrote (checkpoint lines, evidence), which checks each field's exact type
and names the field it refuses. ``Fields.keys`` is the one schema check of a JSON object from outside (a
queens file, a batch line, a checkpoint's header, evidence): its required keys present and no other key,
a near miss named (``did_you_mean``, also the one "did you mean" of option, keyword and solver names)."""

from __future__ import annotations

import difflib
import json
import math
import numbers
from collections.abc import Iterable, Sequence
from typing import Any

# Python objects a JSON text becomes, per structural character (measured with tracemalloc by
# tests/runtime/test_values.py, which fails when a shape of document needs more): a '{' is a dict, a ':' one
# entry of it (json builds the pairs as tuples first, then the dict; the key a string of its own), a '['
# a list, a ',' one more slot and a small value. The text is held again as a str while it is parsed, and
# its strings again once parsed: a byte a character for ASCII text without \u escapes, up to 4 bytes a
# character for the rest (one character beyond U+FFFF makes a whole string 4 bytes a character).
_JSON_OBJECT_BYTES = 320
_JSON_ENTRY_BYTES = 200
_JSON_LIST_BYTES = 96
_JSON_ITEM_BYTES = 72
_JSON_FIXED_BYTES = 1 << 16
# The longest duration a record of a run may state (31 years): a total of a billion of them is finite.
MAX_RECORDED_SECONDS = 1e9


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def close_names(word: object, known: Iterable[str]) -> list[str]:
    """The names of ``known`` that ``word`` is a near miss of (difflib's ratio of 0.6 or more), the
    closest first and only those as close as it; [] for none."""
    if not isinstance(word, str):
        return []
    close = difflib.get_close_matches(word, list(dict.fromkeys(known)), n=3)

    def ratio(name: str) -> float:
        return difflib.SequenceMatcher(None, word, name).ratio()

    return [name for name in close if ratio(name) == ratio(close[0])]


def did_you_mean(word: object, known: Iterable[str], shown: str = "{!r}") -> str:
    """``"; did you mean 'X'?"`` when ``word`` is a near miss of ``known`` (``close_names``), else ``""``:
    for the end of a message refusing ``word``. ``shown`` formats each name (``"--{}"`` for a flag)."""
    names = close_names(word, known)
    if not names:
        return ""
    return f"; did you mean {' or '.join(shown.format(name) for name in names)}?"


def format_bytes(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(nbytes) < 1024 or unit == "PiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    raise AssertionError("unreachable")


def json_bytes_needed(text: bytes | str) -> int:
    """Memory that parsing ``text`` takes at most, from its length and its structural characters (each
    counted in one pass of C code, strings included: an upper bound)."""
    if isinstance(text, bytes):
        objects, entries, lists, items = (text.count(mark) for mark in (b"{", b":", b"[", b","))
        narrow = text.isascii() and b"\\u" not in text
    else:
        objects, entries, lists, items = (text.count(mark) for mark in ("{", ":", "[", ","))
        narrow = text.isascii() and "\\u" not in text
    copies = 2 if narrow else 8
    return (copies * len(text) + _JSON_OBJECT_BYTES * objects + _JSON_ENTRY_BYTES * entries
            + _JSON_LIST_BYTES * lists + _JSON_ITEM_BYTES * items + _JSON_FIXED_BYTES)


def parse_json(text: bytes | str, where: str, memory: int | None = None, held: int = 0) -> Any:
    """The one parser of JSON read from outside the process (files, lines, options), RFC 8259 strictly:
    ValueError naming ``where`` for text that is not JSON, nests too deeply, says NaN or Infinity, holds
    a number beyond a double (1e400), or names a key twice in one object (which reading would otherwise
    settle silently, the last one winning). With ``memory`` (bytes, the budget; ``held`` of it taken
    already), a text whose objects would need more (``json_bytes_needed``) is refused before it is parsed."""
    if memory is not None:
        needed = held + json_bytes_needed(text)
        if needed > memory:
            raise ValueError(f"{where} would take about {format_bytes(needed)} to read "
                             f"({format_bytes(len(text))} of JSON), over the memory limit of "
                             f"{format_bytes(memory)}")
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float,
                          object_pairs_hook=_keys_once)
    except RecursionError:
        raise ValueError(f"{where} is not JSON: it is nested too deeply") from None
    except _NotJson as exc:
        raise ValueError(f"{where} is not JSON: {exc}") from None
    except json.JSONDecodeError as exc:
        raise JsonSyntaxError(f"{where} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") \
            from None
    except UnicodeDecodeError:
        raise ValueError(f"{where} is not JSON: it is not UTF-8 text") from None


class JsonSyntaxError(ValueError):
    """Text that breaks JSON's grammar (cut short, a stray character), as a line torn by a crash does; not
    raised for JSON that is well formed but refused (NaN, a key twice, too large)."""


class _NotJson(ValueError):
    """Raised inside json's parse by the hooks below (JSONDecodeError would be taken for the parser's own)."""


def _no_constant(name: str) -> None:
    raise _NotJson(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJson(f"the number {text[:40]} is beyond the range of a double")
    return value


def _keys_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _NotJson(f"the key {_shown(key)} is given twice in one object")
            seen.add(key)
    return found


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
        return self.keys((), keys)

    def keys(self, required: Sequence[str], optional: Sequence[str] = (), listed: str | None = None) \
            -> Fields:
        """Hold the object to its schema before any field is read: a key outside ``required`` and
        ``optional`` is refused (with a near miss named: ``{"queen": ...}`` is not read as no queens), then
        a missing required key; ValueError naming ``where`` and the key. ``listed`` says what the fields
        are where naming each would be too long."""
        allowed = tuple(dict.fromkeys((*required, *optional)))
        unknown = [key for key in self.data if key not in allowed]
        if unknown:
            key = unknown[0]
            raise ValueError(f"{self.where}: {_shown(key)} is not one of its fields "
                             f"({listed or ', '.join(allowed) or 'none'}){did_you_mean(key, allowed)}")
        missing = [key for key in required if key not in self.data]
        if missing:
            raise ValueError(f"{self.where}: the field {missing[0]!r} is missing")
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

    def seconds(self, key: str) -> float:
        """A duration a run recorded: finite, 0 to ``MAX_RECORDED_SECONDS``, so that a total of such
        records stays finite however many are added."""
        value = self.number(key)
        if value > MAX_RECORDED_SECONDS:
            raise self._refuse(key, f"a number of seconds up to {MAX_RECORDED_SECONDS:g}")
        return value

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
