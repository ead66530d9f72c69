"""The one DIMACS reader: every CNF that nqcsp takes from outside the process is read here, once.

What it reads is what every checker then checks: the clauses come out as arrays (``Cnf``), and no other
code of nqcsp reads DIMACS text. A checker that reads text itself (an outside one, given by path) is fed
``Cnf.dimacs()``, the canonical text written from those arrays, never the user's bytes.

The grammar is strict so that no two readers can see different formulas in one file:

- the bytes are printable ASCII (0x20 to 0x7E), tab, line feed, and carriage return only directly before
  a line feed; any other byte (NUL, vertical tab, form feed, the separators 0x1C to 0x1E, a byte-order mark
  or any non-ASCII byte) is refused, since some reader somewhere ends a line at it;
- a line ends at a line feed (the last one may lack it); a line whose first byte is ``c`` is a comment; a
  line of spaces and tabs only is blank;
- one header line ``p cnf VARIABLES CLAUSES``, before the first clause;
- every other line holds integers separated by spaces or tabs, ``0`` or ``-?[1-9][0-9]*`` (no sign on
  zero, no ``+``, no leading zeros); read one after another they are the clauses, each ended by ``0``, so
  a clause may span lines and a line may hold several clauses;
- the header's clause count is the number of clauses; every literal is within its variable count, which
  is at most ``MAX_VARIABLES`` (the checkers store literals in 32 bits).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

# Literals are stored as int32 by the LRAT checker: a variable past this would wrap.
MAX_VARIABLES = 2**31 - 1
# Memory while reading, per byte of text: the lines, the tokens and their integers (measured about 25
# bytes at 10^6 clauses), with margin.
READ_BYTES_PER_BYTE = 40

_NOT_ALLOWED = re.compile(rb"[^\t\n\r\x20-\x7e]|\r(?!\n)")
_HEADER = re.compile(rb"p[ \t]+cnf[ \t]+(0|[1-9][0-9]*)[ \t]+(0|[1-9][0-9]*)[ \t]*")
# The longest literal within MAX_VARIABLES: a sign and 10 digits.
_LONGEST_LITERAL = 11


@dataclass(frozen=True, eq=False)
class Cnf:
    """A CNF as arrays: clause ``i`` (0-based) is ``literals[offsets[i]:offsets[i + 1]]``.

    ``comments`` are the comment lines before the header, each without its ``c`` and the white space
    around its text. Build one with ``read_dimacs`` (text from outside) or ``Cnf.of_clauses`` (clauses
    nqcsp made itself)."""

    num_vars: int
    literals: np.ndarray  # int32
    offsets: np.ndarray   # int64, one more than the clauses
    comments: tuple[str, ...] = ()

    @property
    def num_clauses(self) -> int:
        return len(self.offsets) - 1

    def clause(self, index: int) -> tuple[int, ...]:
        return tuple(self.literals[self.offsets[index]:self.offsets[index + 1]].tolist())

    def clauses(self) -> list[list[int]]:
        """The clauses as lists of Python ints (what a SAT solver or dratify takes)."""
        flat = self.literals.tolist()
        bounds = self.offsets.tolist()
        return [flat[bounds[i]:bounds[i + 1]] for i in range(self.num_clauses)]

    def same_clauses(self, clauses: Sequence[Sequence[int]]) -> bool:
        """Whether these are exactly ``clauses``, in order, literal for literal."""
        if len(clauses) != self.num_clauses:
            return False
        other = Cnf.of_clauses(self.num_vars, clauses)
        return bool(np.array_equal(self.offsets, other.offsets)
                    and np.array_equal(self.literals, other.literals))

    def dimacs(self) -> bytes:
        """The canonical text of these clauses: the header, then one clause a line, no comments."""
        lines = [b"p cnf %d %d\n" % (self.num_vars, self.num_clauses)]
        flat = self.literals.tolist()
        bounds = self.offsets.tolist()
        for i in range(self.num_clauses):
            lines.append(" ".join(map(str, flat[bounds[i]:bounds[i + 1]] + [0])).encode("ascii") + b"\n")
        return b"".join(lines)

    @classmethod
    def of_clauses(cls, num_vars: int, clauses: Iterable[Sequence[int]],
                   comments: Sequence[str] = ()) -> Cnf:
        """Clauses nqcsp built itself (a statement it rebuilt), as arrays; ValueError when a literal is
        0 or beyond ``num_vars``, or ``num_vars`` beyond ``MAX_VARIABLES``."""
        if not 0 <= num_vars <= MAX_VARIABLES:
            raise ValueError(f"{num_vars} variables: a CNF here has 0 to {MAX_VARIABLES}")
        clauses = clauses if isinstance(clauses, Sequence) else list(clauses)
        lengths = np.fromiter(map(len, clauses), dtype=np.int64, count=len(clauses))
        offsets = np.zeros(len(clauses) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        literals = np.fromiter(chain.from_iterable(clauses), dtype=np.int64, count=int(offsets[-1]))
        if len(literals) and (not literals.all() or np.abs(literals).max() > num_vars):
            raise ValueError(f"a literal is 0 or beyond the {num_vars} variables")
        return cls(num_vars, literals.astype(np.int32), offsets, tuple(comments))


def read_bytes_needed(size: int) -> int:
    """Memory to read ``size`` bytes of DIMACS text (the text itself not counted)."""
    return READ_BYTES_PER_BYTE * size


def read_dimacs(data: bytes | bytearray | memoryview | str) -> Cnf:
    """The CNF of DIMACS text under the module's grammar; ValueError naming the line and what is wrong.

    ``str`` is taken only when it is ASCII. Callers that read a file check ``read_bytes_needed`` against
    their memory budget first."""
    if isinstance(data, str):
        try:
            data = data.encode("ascii")
        except UnicodeEncodeError as exc:
            raise ValueError(f"not DIMACS: character {exc.start} ({data[exc.start]!r}) is not "
                             f"ASCII") from None
    data = bytes(data)
    refused = _NOT_ALLOWED.search(data)
    if refused is not None:
        at = refused.start()
        number = data.count(b"\n", 0, at) + 1
        raise ValueError(f"line {number}: byte {data[at:at + 1]!r} (offset {at}) is not allowed in DIMACS "
                         f"here (printable ASCII, tab, and line feeds, CR only before LF)")
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    headers = [at for at, line in enumerate(lines) if line[:1] == b"p"]
    if not headers:
        raise ValueError("no 'p cnf VARIABLES CLAUSES' header")
    if len(headers) > 1:
        raise ValueError(f"line {headers[1] + 1}: a second header {_shown(lines[headers[1]])}")
    head = headers[0]
    match = _HEADER.fullmatch(lines[head])
    if match is None:
        raise ValueError(f"line {head + 1}: a bad header {_shown(lines[head])} (expected 'p cnf VARIABLES "
                         f"CLAUSES')")
    num_vars, declared = int(match.group(1)), int(match.group(2))
    if num_vars > MAX_VARIABLES:
        raise ValueError(f"line {head + 1}: {num_vars} variables: a CNF here has at most {MAX_VARIABLES}")
    comments = []
    for at, line in enumerate(lines[:head]):
        if line[:1] == b"c":
            comments.append(line[1:].decode("ascii").strip())
        elif line.strip(b" \t"):
            raise ValueError(f"line {at + 1}: {_shown(line)} comes before the 'p cnf' header")
    text = b" ".join([line for line in lines[head + 1:] if line[:1] != b"c"]).replace(b"\t", b" ")
    wrong = _first_malformed(text)
    if wrong is not None:
        raise ValueError(_malformed_line(lines, head, wrong))
    tokens = text.split()
    if tokens and max(map(len, tokens)) > _LONGEST_LITERAL:
        longest = max(tokens, key=len)
        raise ValueError(f"literal {_shown(longest)} is beyond the {num_vars} declared variables")
    numbers = np.array(tokens, dtype=np.int64) if tokens else np.zeros(0, dtype=np.int64)
    if len(numbers) and numbers[-1] != 0:
        raise ValueError("the last clause is not ended by 0")
    zeros = np.flatnonzero(numbers == 0)
    if len(zeros) != declared:
        raise ValueError(f"the header declares {declared} clauses, the file has {len(zeros)}")
    literals = numbers[numbers != 0]
    if len(literals) and np.abs(literals).max() > num_vars:
        beyond = int(literals[np.argmax(np.abs(literals) > num_vars)])
        raise ValueError(f"literal {beyond} is beyond the {num_vars} declared variables")
    offsets = np.zeros(len(zeros) + 1, dtype=np.int64)
    offsets[1:] = zeros - np.arange(len(zeros))
    return Cnf(num_vars, literals.astype(np.int32), offsets, tuple(comments))


_SPACE, _MINUS, _ZERO, _ONE, _NINE = 32, 45, 48, 49, 57


def _first_malformed(text: bytes) -> int | None:
    """The offset of the first byte of ``text`` (clause lines joined by spaces) that breaks the integer
    grammar, or None: only digits, minus signs and spaces; a minus only at a number's start and before
    a digit 1 to 9; no 0 that starts a number followed by a digit."""
    chars = np.frombuffer(text, dtype=np.uint8)
    if not len(chars):
        return None
    digit = (chars >= _ZERO) & (chars <= _NINE)
    minus = chars == _MINUS
    wrong = ~(digit | minus | (chars == _SPACE))
    starts = np.ones(len(chars), dtype=bool)  # a number may start here: after a space or at the text's start
    starts[1:] = chars[:-1] == _SPACE
    after = np.zeros(len(chars), dtype=np.uint8)
    after[:-1] = chars[1:]
    wrong |= minus & ~(starts & (after >= _ONE) & (after <= _NINE))
    number_start = starts | np.r_[False, minus[:-1]]
    wrong |= (chars == _ZERO) & number_start & (after >= _ZERO) & (after <= _NINE)
    return int(np.argmax(wrong)) if wrong.any() else None


def _malformed_line(lines: list[bytes], head: int, offset: int) -> str:
    """The message for the clause line holding ``offset`` of the joined text."""
    at = 0
    for number in range(head + 1, len(lines)):
        line = lines[number]
        if line[:1] == b"c":
            continue
        if offset < at + len(line) + 1:
            return (f"line {number + 1}: not a clause line: {_shown(line)} (integers: 0 or -?[1-9][0-9]*, "
                    f"separated by spaces or tabs)")
        at += len(line) + 1
    return "not a clause line"


def _shown(line: bytes, room: int = 60) -> str:
    text = line.decode("ascii", errors="backslashreplace")
    return repr(text if len(text) <= room else text[:room] + "...")
