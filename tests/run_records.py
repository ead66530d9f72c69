"""Hand-made run records, as the benchmark runner writes them, for the tests of the judge and the reports."""

from __future__ import annotations

from typing import Any


def run_record(config: str, instance: str, status: str, wall: float, *, verified: bool | None = None,
               checked: bool = False, expected: str | None = None, family: str = "peak",
               solver: str | None = None, timeout: float = 10.0, **extra: Any) -> dict[str, Any]:
    """One run of ``config`` on ``instance`` (n = 8, one mandatory queen); an UNSAT carries a certificate
    that nqcsp re-checked when ``checked``, else an unchecked claim."""
    record: dict[str, Any] = {"suite": "field", "config": config, "solver": solver or config.split("/")[0],
                              "instance": instance, "family": family, "n": 8, "m": 1, "expected": expected,
                              "timeout": timeout, "status": status, "wall_s": wall,
                              "date": "2026-11-27T00:00:00+00:00", "versions": {}, "machine": {}}
    if verified is not None:
        record["verified"] = verified
    if status == "UNSAT":
        record["certificate"] = {"kind": "lrat" if checked else "claim",
                                 "checked_by": ["nqcsp-lrat"] if checked else []}
    record.update(extra)
    return record
