"""Threshold evidence (OEIS A374013): the document ``nqcsp threshold`` writes, its one reader, and its
re-check, which shares no code with the sweep that produced it.

A document says a(n) = value (``exact``: a set of value + 1 queens with a certificate that it has no
solution) or a(n) >= value (no such set known), and carries witnesses: solutions whose k-subsets, and
their symmetric images, are every set of k non-attacking queens for every k <= value, so that every such
set extends to a solution. Version 2, JSON (``.json``, or xz-compressed ``.json.xz``)::

    {"format": "nqcsp-threshold", "version": 2, "n": 22, "value": 4, "exact": true,
     "blocked": {"queens": [[7, 10], ...], "certificate": {"kind": "lrat",
                 "details": {"cnf": {"base64": ...}, "proof": {"base64": ...}}}},
     "levels": [{"k": 0, "sets": 1}, {"k": 1, "sets": 484}, ...],
     "witnesses": {"count": 123, "data": BASE64}}

``blocked`` is null when not ``exact``. ``levels[k].sets`` is the number of sets of k non-attacking queens;
``witnesses.data`` is ``count`` solutions, n bytes each (the column of each row), or, with
``"encoding": "ranks"``, the solutions sorted and written as the differences of their ranks among the
permutations (``nqcsp.bitboard.permutation_ranks``: a third smaller once compressed, for the millions of
witnesses of a level of 5 queens).

Version 3 adds witnesses that the re-check derives (a sweep with ``derived``; ``witnesses.count`` may
then be 0)::

     "witnesses": {"count": 42, "data": BASE64,
                   "derived": {"count": 8000000, "seed": 0, "budget": 52000, "data": BASE64}}

``derived.data`` is ``count`` positions of sets of ``value`` queens, ascending, as LEB128 differences; each
one's witness is the solution that ``nqcsp.bitboard.derived_witnesses.derive`` finds for it from ``seed``
within ``budget`` nodes, about 2.5 bytes a witness where a rank takes 9. Derived witnesses are verified
and counted as the others are; a position that derives none fails the check.

Every field is checked and any other refused, with sizes bounded before
any work (``read_evidence``); the re-check (``check_evidence``) counts the sets of each level (cliques of
the board's non-attack graph), marks the sets of the top level that the witnesses cover with
``nqcsp.bitboard.coverage`` (parallel over ranges of row combinations, on any Executor; the levels below
follow, see ``extends_upward``), re-checks the certificate with ``nqcsp.proof.certify``, and verifies
every witness (the derived ones once derived, in parallel too), all within one time and memory budget.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import lzma
import math
import os
import pathlib
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell, find_attack
from nqcsp.board.result import Certificate, ProofFile
from nqcsp.runtime.limits import Limits, OutOfTime, as_memory_limit, format_bytes, time_limit_reason
from nqcsp.runtime.values import Fields, parse_json

FORMAT = "nqcsp-threshold"
VERSION = 2            # written when no witness is derived, so such files read as before
DERIVED_VERSION = 3    # version 2 with derived witnesses
VERSIONS = (VERSION, DERIVED_VERSION)
# A derived witness's node budget at most: it bounds the re-check's worst case.
MAX_DERIVATION_BUDGET = 1 << 24
MIN_N, MAX_N = 4, 64
# Certificate kinds whose evidence nqcsp.proof.certify re-checks from the bytes alone, and their fields.
CERTIFICATE_FIELDS = {"lrat": ("cnf", "proof"), "drat": ("cnf", "proof"), "attack": ("queens",),
                      "empty-line": ("line", "index")}
# How the witnesses may be written: n bytes each, or as differences of their ranks (permutation_ranks);
# write_evidence takes ranks for witnesses of more than RANKS_FROM bytes as columns.
WITNESS_ENCODINGS = ("columns", "ranks")
RANKS_FROM = 16 << 20
# Bounds checked before a document is decoded or checked: its size at most, and the share of the memory
# budget its text may take (the text, its copy as a str while parsed, and the parsed strings).
MAX_DOCUMENT_BYTES = 1 << 30
DOCUMENT_SHARE = 4
XZ_MAGIC = b"\xfd7zXZ\x00"
# The re-check's costs, measured on this project's 2-core VM: marking a covered set (one witness image on
# one row combination) about 2 ns, clearing and counting a block about 0.5 ns a bit; numpy's clique count
# about 12 ns a set of k queens.
MARK_S = 2e-9
BLOCK_S_PER_BIT = 5e-10
COUNT_S_PER_SET = 1.2e-8
DERIVE_S = 2e-5        # deriving one witness at n = 26 (10 to 30 microseconds)
DERIVE_PIECE = 1 << 16     # positions a derivation task takes between looks at the deadline
# Work of one coverage task, in marks: a few seconds, so that the deadline is seen often.
TASK_MARKS = 1 << 30


@dataclass(frozen=True, eq=False)
class DerivedWitnesses:
    """Witnesses the re-check derives (``nqcsp.bitboard.derived_witnesses``): ``positions``, ascending, each
    naming a set of ``value`` queens whose witness the search from ``seed`` finds within ``budget``
    nodes."""

    seed: int
    budget: int
    positions: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class Evidence:
    """A threshold claim and its evidence, as read or about to be written (see the module)."""

    n: int
    value: int
    exact: bool
    blocked: tuple[Cell, ...]
    certificate: Certificate | None
    levels: tuple[int, ...]
    witnesses: np.ndarray = field(repr=False)
    derived: DerivedWitnesses | None = None

    @property
    def witness_count(self) -> int:
        """The witnesses stored and derived."""
        return len(self.witnesses) + (0 if self.derived is None else len(self.derived.positions))

    def to_json(self, encoding: str = "columns") -> dict[str, Any]:
        """The document; ``encoding`` of the witnesses: "columns" (n bytes each) or "ranks" (sorted, as
        differences of their ranks among the permutations: about 8 bytes each once xz-compressed where
        columns take 12, for millions of witnesses; ``nqcsp.bitboard.permutation_ranks``)."""
        blocked = None
        if self.exact and self.certificate is not None:
            details = {key: _field_json(self.certificate.details[key])
                       for key in CERTIFICATE_FIELDS[self.certificate.kind]}
            blocked = {"queens": [list(cell) for cell in self.blocked],
                       "certificate": {"kind": self.certificate.kind, "details": details}}
        rows = np.asarray(self.witnesses, dtype=np.uint8)
        if encoding not in WITNESS_ENCODINGS:
            raise ValueError(f"encoding must be one of {', '.join(WITNESS_ENCODINGS)}, got {encoding!r}")
        witnesses: dict[str, Any] = {"count": len(rows)}
        if encoding == "ranks":
            from nqcsp.bitboard.permutation_ranks import encode

            rows = np.unique(rows, axis=0)
            witnesses = {"count": len(rows), "encoding": "ranks"}
            data = encode(rows)
        else:
            data = rows.tobytes()
        witnesses["data"] = base64.b64encode(data).decode("ascii")
        version = VERSION
        if self.derived is not None:
            from nqcsp.bitboard.derived_witnesses import encode_positions

            version = DERIVED_VERSION
            witnesses["derived"] = {"count": len(self.derived.positions), "seed": self.derived.seed,
                                    "budget": self.derived.budget,
                                    "data": base64.b64encode(encode_positions(self.derived.positions))
                                    .decode("ascii")}
        return {"format": FORMAT, "version": version, "n": self.n, "value": self.value, "exact": self.exact,
                "blocked": blocked, "levels": [{"k": k, "sets": sets} for k, sets in enumerate(self.levels)],
                "witnesses": witnesses}

    @property
    def claim(self) -> str:
        return f"a({self.n}) {'=' if self.exact else '>='} {self.value}"


def _field_json(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray, ProofFile)):    # ProofFile: a proof kept in a temporary file
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, tuple):
        return [_field_json(item) for item in value]
    if isinstance(value, list):
        return [_field_json(item) for item in value]
    return value


# --- the one reader --------------------------------------------------------------------------------------


def _cell(value: object, where: str, n: int) -> Cell:
    if not isinstance(value, list) or len(value) != 2 or any(
            isinstance(x, bool) or not isinstance(x, int) for x in value):
        raise ValueError(f"{where} must be a [row, column] pair of integers, got {_shown(value)}")
    row, col = value
    if not (0 <= row < n and 0 <= col < n):
        raise ValueError(f"{where}: {value} is off the {n} x {n} board")
    return row, col


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bytes(fields: Fields, key: str) -> bytes:
    try:
        return base64.b64decode(fields.record(key).only("base64").text("base64"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"{fields.where}: {key}.base64 is not base64") from None


def _certificate(fields: Fields, n: int) -> Certificate:
    kind = fields.only("kind", "details").text("kind")
    if kind not in CERTIFICATE_FIELDS:
        raise ValueError(f"{fields.where}: kind {kind!r} cannot be re-checked from the file; expected one of "
                         f"{', '.join(CERTIFICATE_FIELDS)}")
    details = fields.record("details").only(*CERTIFICATE_FIELDS[kind])
    read: dict[str, Any]
    if kind in ("lrat", "drat"):
        read = {"cnf": _bytes(details, "cnf"), "proof": _bytes(details, "proof")}
    elif kind == "attack":
        pair = details.items("queens")
        if len(pair) != 2:
            raise ValueError(f"{details.where}: queens must be two cells, got {_shown(pair)}")
        read = {"queens": [list(_cell(cell, f"{details.where}: queens[{i}]", n))
                           for i, cell in enumerate(pair)]}
    else:
        line = details.text("line")
        if line not in ("row", "column"):
            raise ValueError(f"{details.where}: line must be 'row' or 'column', got {line!r}")
        read = {"line": line, "index": details.integer("index", 0, n - 1)}
    return Certificate(kind, (), read)


def evidence_from_json(document: object, where: str = "the evidence") -> Evidence:
    """The evidence a decoded JSON document holds, every field checked and any other refused (ValueError
    naming ``where`` the document came from, a file, and the field). The header ("format", "version") is
    checked first, so that another file or another version is named as that, not as its first odd field."""
    if not isinstance(document, dict):
        raise ValueError(f"{where} is not nqcsp threshold evidence: it is not a JSON object")
    if "format" not in document or document["format"] != FORMAT:
        said = f"its format is {_shown(document['format'])}" if "format" in document else \
            "the field 'format' is missing"
        raise ValueError(f"{where} is not nqcsp threshold evidence (\"format\": \"{FORMAT}\"): {said}")
    if "version" not in document:
        raise ValueError(f"{where}: the field 'version' is missing; this nqcsp reads versions {VERSION} and "
                         f"{DERIVED_VERSION}")
    version = document["version"]
    if type(version) is not int or version not in VERSIONS:     # 2.0 and true are not the version 2
        raise ValueError(f"{where}: version {_shown(version)}; this nqcsp reads versions {VERSION} and "
                         f"{DERIVED_VERSION} (older evidence: run 'nqcsp threshold' again)")
    top = Fields(document, where).keys(("format", "version", "n", "value", "exact", "blocked", "levels",
                                        "witnesses"))
    n = top.integer("n", MIN_N, MAX_N)
    value = top.integer("value", 0, n - 1)
    exact = top.flag("exact")
    blocked: tuple[Cell, ...] = ()
    certificate = None
    if exact:
        block = top.record("blocked").only("queens", "certificate")
        queens = block.items("queens")
        if len(queens) != value + 1:
            raise ValueError(f"{block.where}: queens must be value + 1 = {value + 1} cells, got "
                             f"{len(queens)}")
        blocked = tuple(_cell(cell, f"{block.where}: queens[{i}]", n) for i, cell in enumerate(queens))
        if len(set(blocked)) != len(blocked):
            raise ValueError(f"{block.where}: queens lists a cell twice")
        certificate = _certificate(block.record("certificate"), n)
    elif top.data["blocked"] is not None:
        raise ValueError(f"{where}: blocked must be null when exact is false")
    levels = top.records("levels")
    if len(levels) != value + 1:
        raise ValueError(f"{where}: levels must be value + 1 = {value + 1} levels, got {len(levels)}")
    counts = []
    for k, level in enumerate(levels):
        level.only("k", "sets").integer("k", k, k)
        counts.append(level.integer("sets", 1, math.comb(n * n, k)))
    derived_version = version == DERIVED_VERSION
    stored = top.record("witnesses").keys(("count", "data", *(("derived",) if derived_version else ())),
                                          ("encoding",))
    derived = _derived(stored.record("derived"), n, value) if derived_version else None
    # "encoding" is optional (documented in the module): written only for ranks.
    encoding = stored.text("encoding") if "encoding" in stored.data else "columns"
    if encoding not in WITNESS_ENCODINGS:
        raise ValueError(f"{stored.where}: encoding must be one of {', '.join(WITNESS_ENCODINGS)}, got "
                         f"{_shown(encoding)}")
    width = n if encoding == "columns" else _rank_bytes(n)
    data = stored.text("data")
    count = stored.integer("count", 0 if derived_version else 1, 3 * len(data) // (4 * width) + 1)
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"{stored.where}: data is not base64") from None
    if len(raw) != count * width:
        raise ValueError(f"{stored.where}: data holds {len(raw)} bytes, not count x {width} = "
                         f"{count * width}")
    if encoding == "ranks":
        from nqcsp.bitboard.permutation_ranks import decode

        witnesses, wrong = decode(raw, count, n)
        if wrong is not None:
            raise ValueError(f"{stored.where}: data is not the ranks of sorted, distinct permutations: "
                             f"{wrong}")
    else:
        witnesses = np.frombuffer(raw, dtype=np.uint8).reshape(count, n)
    if witnesses.size and int(witnesses.max()) >= n:
        raise ValueError(f"{stored.where}: data puts a column off the {n} x {n} board")
    return Evidence(n, value, exact, blocked, certificate, tuple(counts), witnesses, derived)


def position_limit(n: int, k: int) -> int:
    """Positions of sets of k queens (``nqcsp.bitboard.derived_witnesses``): row combinations up to their
    mirror, times n ** k column tuples."""
    return _mirrored_combinations(n, k) * n ** k


def _derived(fields: Fields, n: int, value: int) -> DerivedWitnesses:
    from nqcsp.bitboard.derived_witnesses import decode_positions

    fields.only("count", "seed", "budget", "data")
    limit = position_limit(n, value)
    if limit >= 2 ** 63:
        raise ValueError(f"{fields.where}: positions of sets of {value} queens on the {n} x {n} board need "
                         "more than 63 bits; no sweep derives witnesses there")
    data = fields.text("data")
    count = fields.integer("count", 1, 3 * len(data) // 4 + 1)
    seed = fields.integer("seed", 0, 2 ** 64 - 1)
    budget = fields.integer("budget", 1, MAX_DERIVATION_BUDGET)
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"{fields.where}: data is not base64") from None
    try:
        positions = decode_positions(raw, count, limit)
    except ValueError as exc:
        raise ValueError(f"{fields.where}: data is not {count} increasing positions: {exc}") from None
    return DerivedWitnesses(seed, budget, positions)


def read_evidence(data: bytes, memory: int | None = None, where: str = "the evidence") -> Evidence:
    """Evidence from a file's bytes (JSON, or xz-compressed JSON), every size bounded before it is read:
    the document decompressed within ``MAX_DOCUMENT_BYTES`` and a share of ``memory`` (bytes; default:
    the memory available), its JSON parsed only when its objects fit what is left (``parse_json``).
    ValueError naming ``where`` (the file: ``"evidence 'a24.json.xz'"``) and what is wrong."""
    budget = as_memory_limit(memory)
    if data.startswith(XZ_MAGIC):
        limit = min(MAX_DOCUMENT_BYTES, budget // DOCUMENT_SHARE)
        bound = "the most a document may hold" if limit == MAX_DOCUMENT_BYTES else \
            f"the share of the memory limit of {format_bytes(budget)} that its text may take"
        text = _decompressed(data, limit, bound, where)
    else:
        text = data
    if len(text) > MAX_DOCUMENT_BYTES:
        raise ValueError(f"{where} is larger than {format_bytes(MAX_DOCUMENT_BYTES)}")
    held = len(data) + (len(text) if text is not data else 0)
    return evidence_from_json(parse_json(text, where, budget, held), where)


def _decompressed(data: bytes, limit: int, bound: str, where: str) -> bytes:
    """The xz file ``data`` decompressed, all of its streams (as ``xz -d`` reads them, stream padding
    included), at most ``limit`` bytes of it (``bound`` says why): ValueError when it holds more, is cut
    short, or is not xz."""
    pieces: list[bytes] = []
    held = 0
    rest = data
    while True:
        decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        try:
            piece = decompressor.decompress(rest, max_length=limit - held + 1)
        except lzma.LZMAError as exc:
            raise ValueError(f"{where} is not valid xz data ({exc})") from None
        held += len(piece)
        pieces.append(piece)
        if held > limit:
            raise ValueError(f"{where} decompresses to more than {format_bytes(limit)}, {bound}")
        if not decompressor.eof:
            raise ValueError(f"{where}: its xz data is cut short: it ends inside a stream")
        padded = decompressor.unused_data
        rest = padded.lstrip(b"\0")
        if (len(padded) - len(rest)) % 4:
            raise ValueError(f"{where}: its xz data has stream padding that is not a multiple of 4 bytes")
        if not rest:
            return pieces[0] if len(pieces) == 1 else b"".join(pieces)
        if not rest.startswith(XZ_MAGIC):
            raise ValueError(f"{where} has bytes after its xz data that are not another xz stream")


def _rank_bytes(n: int) -> int:
    from nqcsp.bitboard.permutation_ranks import rank_bytes

    return rank_bytes(n)


def write_evidence(evidence: Evidence, path: str | pathlib.Path) -> None:
    """Write the document to ``path`` (xz-compressed when it ends in .xz), whole or not at all
    (``nqcsp.runtime.paths.write_whole``; ValueError naming a path that cannot be written). Witnesses
    beyond ``RANKS_FROM`` bytes of columns are written as ranks."""
    from nqcsp.runtime.paths import write_whole

    encoding = "ranks" if evidence.witnesses.size > RANKS_FROM else "columns"
    text = (json.dumps(evidence.to_json(encoding), separators=(",", ":")) + "\n").encode("ascii")
    if str(path).endswith(".xz"):
        text = lzma.compress(text, format=lzma.FORMAT_XZ, preset=9)
    with write_whole(path, "evidence file", follow_link=True) as handle:
        handle.write(text)


# --- the re-check ----------------------------------------------------------------------------------------


@dataclass
class CheckReport:
    ok: bool
    lines: list[str]
    seconds: float = 0.0


def extends_upward(n: int, k: int) -> bool:
    """Whether every set of k non-attacking queens on the n x n board extends to a set of k + 1: a queen
    takes its cell and attacks at most 4(n - 1) others, so k queens leave a cell free when
    k (4n - 3) < n^2. Then every set of k queens lies in a set of k + 1, and witnesses that cover every set
    of k + 1 queens cover every set of k."""
    return k * (4 * n - 3) < n * n


def marked_levels(n: int, value: int) -> list[int]:
    """The levels whose coverage the re-check marks: the top one (``value``), and each level below from
    which the sets do not all extend upward (none on the boards of A374013 so far)."""
    return [k for k in range(value + 1) if k == value or not extends_upward(n, k)]


def count_sets(n: int, k: int) -> int:
    """Sets of k mutually non-attacking queens on the n x n board (cliques of the non-attack graph,
    ``nqcsp.bitboard.coverage.count_cliques``)."""
    from nqcsp.bitboard.coverage import count_sets_from

    return count_sets_from(n, k, np.arange(n * n))


def _count_task(n: int, k: int, firsts: list[int], deadline: float | None) -> tuple[int, bool]:
    """The sets of k queens whose first cell is one of ``firsts``, stopping at the (wall-clock) deadline:
    (count, finished)."""
    from nqcsp.bitboard.coverage import count_sets_from, peaceful_later

    later = peaceful_later(n)
    total = 0
    for first in firsts:
        if deadline is not None and time.time() >= deadline:
            return total, False
        total += count_sets_from(n, k, np.array([first]), later)
    return total, True


def _cover_task(n: int, k: int, witnesses: np.ndarray, lo: int, hi: int,
                deadline: float | None) -> tuple[int, bool]:
    """Sets of k queens on the row combinations lo..hi - 1 (``mirrored_row_combinations``) and their mirrors
    that the witnesses cover: (count, finished)."""
    from nqcsp.bitboard.coverage import block_words, covered_sets, mirrored_row_combinations

    turns = _turns(witnesses)
    rows_of, weights = mirrored_row_combinations(n, k)
    if not 0 <= lo <= hi <= len(rows_of):
        raise ValueError(f"row combinations {lo}..{hi} are not within the {len(rows_of)} of k = {k}")
    block = np.zeros(block_words(n, k), dtype=np.uint64)
    step = max(1, TASK_MARKS // (4 * max(1, len(witnesses)) + n ** k // 2))
    total = 0
    for start in range(lo, hi, step):
        if deadline is not None and time.time() >= deadline:
            return total, False
        total += int(covered_sets(n, k, turns, rows_of, weights, start, min(hi, start + step), block))
    return total, True


_TURNS: dict[bytes, np.ndarray] = {}


def _turns(witnesses: np.ndarray) -> np.ndarray:
    """The witnesses' quarter turns, made once per process for the tasks of one check."""
    import hashlib

    from nqcsp.bitboard.coverage import quarter_turns

    key = hashlib.sha256(np.ascontiguousarray(witnesses).tobytes()).digest()
    if key not in _TURNS:
        _TURNS.clear()
        _TURNS[key] = quarter_turns(witnesses)
    return _TURNS[key]


def _mirrored_combinations(n: int, k: int) -> int:
    """The row combinations up to their mirror: (C(n, k) + the self-mirrored ones) / 2."""
    selves = math.comb(n // 2, k // 2) if k % 2 == 0 or n % 2 == 1 else 0
    return (math.comb(n, k) + selves) // 2


def _coverage_tasks(n: int, k: int, workers: int) -> list[tuple[int, int]]:
    """Ranges of row combinations, two a worker: each task carries the witnesses, so they are few."""
    combos = _mirrored_combinations(n, k)
    bounds = np.linspace(0, combos, min(combos, 2 * workers) + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def estimated_seconds(evidence: Evidence) -> float:
    """The re-check's CPU seconds from the sizes (the certificate's check not counted)."""
    n, count = evidence.n, evidence.witness_count
    total = 0.0 if evidence.derived is None else DERIVE_S * len(evidence.derived.positions)
    for k in marked_levels(n, evidence.value):
        combos = _mirrored_combinations(n, k)
        total += MARK_S * 4 * count * combos + BLOCK_S_PER_BIT * combos * n ** k / 2
    return total + COUNT_S_PER_SET * sum(evidence.levels)


def _derive_task(n: int, k: int, positions: np.ndarray, seed: int, budget: int,
                 deadline: float | None) -> tuple[np.ndarray, int, bool]:
    """The witnesses of ``positions`` (``nqcsp.bitboard.derived_witnesses.derive``), stopping at the
    (wall-clock) deadline: (rows, the index of the first position that derives none or -1, finished)."""
    from nqcsp.bitboard.coverage import mirrored_row_combinations
    from nqcsp.bitboard.derived_witnesses import NOT_DERIVED, derive

    combinations, _ = mirrored_row_combinations(n, k)
    rows = np.zeros((len(positions), n), dtype=np.uint8)
    for lo in range(0, len(positions), DERIVE_PIECE):
        if deadline is not None and time.time() >= deadline:
            return rows, -1, False
        hi = min(len(positions), lo + DERIVE_PIECE)
        failed = int(derive(n, k, combinations, positions[lo:hi], np.uint64(seed), budget, rows[lo:hi]))
        if failed != NOT_DERIVED:
            return rows, lo + failed, True
    return rows, -1, True


def _derived_witnesses(evidence: Evidence, runner: Executor, workers: int, deadline: float | None,
                       limits: Limits) -> tuple[bool, str, np.ndarray]:
    """The derived witnesses, in parallel: (all derived, what to say, the rows)."""
    from nqcsp.runtime.parallel import run_tasks

    derived = evidence.derived
    assert derived is not None
    positions = derived.positions
    bounds = np.linspace(0, len(positions), min(len(positions), 4 * workers) + 1).astype(np.int64)
    spans = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    work = [("derive", evidence.n, evidence.value, positions[a:b], derived.seed, derived.budget, deadline)
            for a, b in spans]
    rows = np.zeros((len(positions), evidence.n), dtype=np.uint8)
    failures = []
    for index, (part, failed, finished) in run_tasks(_run_check_task, work, executor=runner):
        if not finished:
            raise OutOfTime("check", time_limit_reason("check", limits.time_limit))
        start = spans[index][0]
        rows[start:start + len(part)] = part
        if failed >= 0:
            failures.append(start + failed)
    if failures:
        first = min(failures)
        return (False, f"derived witnesses: position #{first} ({int(positions[first])}) derives no solution "
                       f"from seed {derived.seed} within {derived.budget} nodes", rows[:0])
    return (True, f"{len(positions)} witnesses derived from the positions of their sets of "
                  f"{evidence.value} queens (seed {derived.seed}, at most {derived.budget} nodes each)", rows)


def check_evidence(evidence: Evidence, *, limits: Limits | None = None, executor: Executor | None = None,
                   jobs: int | None = None, outside: Sequence[Any] = ()) -> CheckReport:
    """Re-check ``evidence`` (see the module): a report whose lines say what held and what did not.
    OutOfTime/OutOfMemory ("check") when it cannot end within ``limits``."""
    from nqcsp.bitboard.coverage import block_words
    from nqcsp.runtime.parallel import InProcess, owned_pool, run_tasks

    limits = limits or Limits.unlimited()
    started = time.perf_counter()
    n = evidence.n
    lines: list[str] = []
    ok = True

    def say(good: bool, text: str) -> None:
        nonlocal ok
        ok &= good
        lines.append(("ok    " if good else "FAIL  ") + text)

    if evidence.exact:
        say(*_check_blocked(evidence, limits, outside))
    if outside and not (evidence.exact and evidence.certificate and evidence.certificate.kind == "lrat"):
        # Asked for, and not given: said, so that no one reads the report as a second opinion.
        what = f"its certificate is {evidence.certificate.kind}" if evidence.exact and evidence.certificate \
            else f"it claims {evidence.claim}, with no blocked set"
        names = ", ".join(checker.name for checker in outside)
        lines.append(f"note  {names}: nothing to check, the evidence has no LRAT proof ({what})")
    marked = marked_levels(n, evidence.value)
    count = evidence.witness_count
    # Per task: a block, the witnesses and their quarter turns (5 bytes a queen), pickled once more; the
    # derived witnesses are held twice while they come back from their tasks.
    per_task = max(8 * block_words(n, k) + 8 * math.comb(n, k) * k for k in marked) + 6 * count * n \
        + (64 << 20)
    derived = 0 if evidence.derived is None else len(evidence.derived.positions)
    limits.need_memory("check", 2 * per_task + 2 * derived * (n + 8), f"the coverage of {count} witnesses")
    workers_here = jobs or os.cpu_count() or 1
    cpu_seconds = estimated_seconds(evidence)
    limits.need_time("check", cpu_seconds / workers_here / 3)  # clearly too long: refused now
    remaining = limits.remaining()
    deadline = None if remaining is None else time.time() + remaining
    wall = time.perf_counter()
    local = executor is None and cpu_seconds < 1.0
    pool = InProcess() if local else executor
    with owned_pool(jobs) if pool is None else contextlib.nullcontext(pool) as runner:
        workers = getattr(runner, "max_workers", None) or jobs or os.cpu_count() or 1
        witnesses = evidence.witnesses
        if evidence.derived is not None:
            good, text, rows = _derived_witnesses(evidence, runner, workers, deadline, limits)
            say(good, text)      # a position that derives nothing adds no witness below
            witnesses = np.concatenate([witnesses.reshape(-1, n), rows])
        good, text, witnesses = _check_witnesses(n, witnesses, limits)
        say(good, text)   # only the witnesses that are solutions count below
        work: list[tuple[Any, ...]] = []
        owners: list[tuple[str, int]] = []
        for k in marked:
            for lo, hi in _coverage_tasks(n, k, workers):
                work.append(("cover", n, k, witnesses, lo, hi, deadline))
                owners.append(("cover", k))
        for k in range(len(evidence.levels)):
            cells = np.arange(n * n)
            pieces = max(1, min(len(cells), 4 * workers)) if k >= 2 else 1
            for part in range(pieces):
                # Interleaved first cells: the early ones have the most sets after them.
                work.append(("count", n, k, cells[part::pieces].tolist(), deadline))
                owners.append(("count", k))
        sums = {(kind, k): 0 for kind in ("cover", "count") for k in range(len(evidence.levels))}
        for index, (count, finished) in run_tasks(_run_check_task, work, executor=runner):
            if not finished:
                raise OutOfTime("check", time_limit_reason("check", limits.time_limit))
            sums[owners[index]] += count
    for k, recorded in enumerate(evidence.levels):
        counted, covered = sums[("count", k)], sums[("cover", k)]
        if k in marked:
            say(counted == recorded == covered,
                f"k = {k}: {counted} sets of {k} non-attacking queens (counted here), {covered} of them in "
                f"the witnesses' {k}-subsets and their images" + ("" if recorded == counted else
                                                                  f"; the evidence records {recorded}"))
        else:
            say(counted == recorded,
                f"k = {k}: {counted} sets of {k} non-attacking queens (counted here), each in a set of "
                f"{k + 1} ({k} x (4n - 3) < n^2), so covered" + ("" if recorded == counted else
                                                                 f"; the evidence records {recorded}"))
    lines.append(f"      checked in {time.perf_counter() - started:.2f} s "
                 f"({time.perf_counter() - wall:.2f} s for the levels)")
    return CheckReport(ok, lines, time.perf_counter() - started)


def _run_check_task(kind: str, *args: Any) -> Any:
    if kind == "derive":
        return _derive_task(*args)
    return _cover_task(*args) if kind == "cover" else _count_task(*args)


def _check_blocked(evidence: Evidence, limits: Limits, outside: Sequence[Any]) -> tuple[bool, str]:
    from nqcsp.board.problem import Problem
    from nqcsp.proof.certify import recheck

    assert evidence.certificate is not None
    named = " ".join(f"{r},{c}" for r, c in evidence.blocked)
    if find_attack(evidence.blocked) is not None:
        return False, f"blocked set {named}: two of its queens attack each other (it proves nothing)"
    problem = Problem(evidence.n, evidence.blocked)
    checked = recheck(problem, evidence.certificate, limits)
    if not checked.checked:
        return False, (f"blocked set {named}: its certificate ({evidence.certificate.kind}) is rejected: "
                       f"{checked.details.get('unchecked', 'the check failed')}")
    said = ", ".join(checked.checked_by)
    if outside and evidence.certificate.kind == "lrat":
        from nqcsp.proof.audit import audit

        found = audit(evidence.certificate.details["cnf"], evidence.certificate.details["proof"], "lrat",
                      limits=limits, outside=outside)
        if not (found.proven and found.problem == problem):
            return False, f"blocked set {named}: an outside checker rejects its proof: {found.lines[-1]}"
        said += ", " + ", ".join(checker.name for checker in outside)
    return True, (f"blocked set: {len(evidence.blocked)} non-attacking queens {named}, no solution: "
                  f"{evidence.certificate.kind} re-checked by {said}")


def _check_witnesses(n: int, witnesses: np.ndarray, limits: Limits) -> tuple[bool, str, np.ndarray]:
    """Every witness a solution: a permutation with one queen on each diagonal at most (plain numpy); the
    witnesses that are."""
    piece = 1 << 18          # witnesses at a time: 48 bytes a queen of work space each
    limits.need_memory("check", 48 * n * min(len(witnesses), piece), f"verifying {len(witnesses)} witnesses")
    index = np.arange(n)
    bad = np.zeros(len(witnesses), dtype=bool)
    for lo in range(0, len(witnesses), piece):
        limits.check_time("check")
        rows = witnesses[lo:lo + piece].astype(np.int64)
        for lines in (rows, rows + index, rows - index):
            ordered = np.sort(lines, axis=1)
            bad[lo:lo + piece] |= (np.diff(ordered, axis=1) == 0).any(axis=1)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        return (False, f"{int(bad.sum())} of {len(witnesses)} witnesses are not solutions (the first: "
                       f"#{first})", witnesses[~bad])
    return True, f"{len(witnesses)} witnesses, each a solution of the {n} x {n} board", witnesses
