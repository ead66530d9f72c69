"""The one reader of run records (the runner's resume, the judge, the comparisons): every line of a
results file read by the strict JSON reader (``nqcsp.runtime.values.parse_json``) and checked against
the record's schema before anything is scored. A record the judge cannot trust is refused with
``RecordError``, naming the file, the line and the field: a line that is not a JSON object, a missing or
unknown key, a status the runner never writes, a time or a memory figure that is not a finite number
>= 0 (NaN, Infinity, -1), a board size that is not a non-negative integer. Commands catch
``RecordError`` and print its one line (exit 2), never a traceback.

Duplicates are not refused here: the same engine, instance, seed, time limit and repetition recorded
twice are both judged (``benchmarks.judging.truth``), and a wrong copy is wrong whatever the other says.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from nqcsp.runtime.values import parse_json

Record = dict[str, Any]

# What the runner (benchmarks.harness.runner) writes: the keys every record has, and the ones some have.
REQUIRED = ("suite", "solver", "config", "instance", "family", "n", "m", "timeout", "status")
OPTIONAL = ("options", "mandatory", "expected", "generator", "task", "seed", "repetition", "date", "versions",
            "machine", "wall_s", "cpu_s", "cpu_wait_s", "peak_rss_mb", "child_peak_rss_mb", "warmup_s",
            "overshoot_s", "kept_limit", "answered_by", "stats", "certificate", "verified", "verify_s",
            "queens", "error", "traceback", "exit_code", "warm_job", "measured_by", "rerun", "disturbed",
            "load", "value", "unsat_checked", "core")
KNOWN = frozenset(REQUIRED + OPTIONAL)
STATUSES = frozenset({"SAT", "UNSAT", "UNKNOWN", "TIMEOUT", "MEMOUT", "CRASH", "ERROR", "WRONG", "SKIPPED",
                      "DONE"})
# Seconds and MiB: finite and never negative. The overshoot past the limit is a signed difference.
NON_NEGATIVE = ("timeout", "wall_s", "cpu_s", "cpu_wait_s", "peak_rss_mb", "child_peak_rss_mb", "warmup_s",
                "verify_s")
SIGNED = ("overshoot_s",)
# A run that answered (or was killed at its deadline) has a wall time: the scores need it.
TIMED = frozenset({"SAT", "UNSAT", "UNKNOWN", "TIMEOUT", "DONE", "WRONG"})


# The longest line a record may take: the published records' longest is 3.6 KB, and one that keeps a
# solution of 10^6 columns (--keep-queens) about 7 MB; a line past this is no record the runner wrote.
MAX_LINE_BYTES = 64 << 20


class RecordError(ValueError):
    """A record the judge refuses: its message is one line naming the file, the line and the field."""


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_record(record: object, where: str) -> Record:
    """The record when it fits the schema, else ``RecordError`` naming ``where`` and the field."""
    if not isinstance(record, dict):
        raise RecordError(f"{where}: a record is a JSON object, not {type(record).__name__}")
    missing = [key for key in REQUIRED if key not in record]
    if missing:
        raise RecordError(f"{where}: missing key {', '.join(map(repr, missing))}")
    unknown = sorted(set(record) - KNOWN)
    if unknown:
        raise RecordError(f"{where}: unknown key {', '.join(map(repr, unknown))}")
    for key in ("suite", "solver", "config", "instance", "family", "status"):
        if not isinstance(record[key], str) or not record[key]:
            raise RecordError(f"{where}: {key} must be a non-empty string, not {record[key]!r}")
    if record["status"] not in STATUSES:
        raise RecordError(f"{where}: status {record['status']!r} is none of {', '.join(sorted(STATUSES))}")
    for key in ("n", "m"):
        value = record[key]
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise RecordError(f"{where}: {key} must be an integer >= 0, not {value!r}")
    for key in (*NON_NEGATIVE, *SIGNED):
        if key not in record or record[key] is None and key != "timeout":
            continue
        value = record[key]
        if not _number(value) or not math.isfinite(value):
            raise RecordError(f"{where}: {key} must be a finite number, not {value!r}")
        if key in NON_NEGATIVE and value < 0:
            raise RecordError(f"{where}: {key} must be >= 0, not {value!r}")
    if record["status"] in TIMED and not _number(record.get("wall_s")):
        raise RecordError(f"{where}: a {record['status']} run must have its wall_s")
    if "verified" in record and record["verified"] not in (True, False, None):
        raise RecordError(f"{where}: verified must be true, false or null, not {record['verified']!r}")
    certificate = record.get("certificate")
    if certificate is not None and (not isinstance(certificate, dict)
                                    or not isinstance(certificate.get("checked_by", []), list)):
        raise RecordError(f"{where}: certificate must be an object whose checked_by is a list")
    return record


def read_records(paths: Iterable[Path]) -> list[Record]:
    """Every record of the files, in order, each checked (``RecordError`` on the first that fails). A file
    is read a line at a time, each line at most ``MAX_LINE_BYTES``: a line longer than any record the
    runner writes is refused by its length before it is held or parsed."""
    records = []
    for path in paths:
        try:
            with open(path, "rb") as handle:
                for number, line in enumerate(iter(lambda h=handle: h.readline(MAX_LINE_BYTES + 1), b""), 1):
                    where = f"{path}:{number}"
                    if len(line) > MAX_LINE_BYTES:
                        raise RecordError(f"{where}: a line of more than {MAX_LINE_BYTES} bytes is no record")
                    if not line.strip():
                        continue
                    try:
                        value = parse_json(line, where)
                    except ValueError as exc:
                        raise RecordError(str(exc).splitlines()[0]) from None
                    records.append(check_record(value, where))
        except OSError as exc:
            raise RecordError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    return records
