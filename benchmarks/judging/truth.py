"""The one judge of every suite: the truth of an instance and the verdict on each run, never a solver's word.

- An instance is **SAT** when some run's solution passed ``nqcsp.verify`` (``verified`` true) or brute force
  says so (``expected``), **UNSAT** when brute force says so or some run's certificate was re-checked by
  nqcsp (``checked_by`` non-empty), else unknown (None). A claim is never the truth: an UNSAT without a
  checked certificate, or a SAT without a verified solution, labels nothing. A verified solution beside a
  certified UNSAT raises ``Contradiction``: one of the two checks is broken, and no score means anything.
- A run's verdict: ``correct`` (a verified solution; an UNSAT on an instance known UNSAT; a task that
  matched its reference; a peer's SAT without a solution on an instance known SAT), ``wrong`` (an answer
  the truth contradicts, a solution that failed verification, an incomplete backend's UNSAT),
  ``unconfirmed`` (an answer nothing known confirms or refutes: an UNSAT claim on an instance of unknown
  truth), ``failed`` (the call broke: an exception or a crash) or ``unsolved`` (no answer in time).
"""

from __future__ import annotations

from collections.abc import Iterable

from benchmarks.harness.records import Record

# The statuses that are an answer (a task's DONE included); any other is no answer in time or a broken call.
DECIDED = ("SAT", "UNSAT", "DONE")
VERDICTS = ("correct", "wrong", "unconfirmed", "failed", "unsolved")
# The words of nqcsp's InternalSolverError when the answer itself was wrong (an invalid solution, two
# complete methods disagreeing, an incomplete backend saying UNSAT); any other broke the backend's call.
WRONG_ANSWER_WORDS = ("invalid solution", "disagree", "incomplete solver")


class Contradiction(ValueError):
    """A verified solution and a certified UNSAT recorded for one instance."""


def certified(record: Record) -> bool:
    """An UNSAT whose certificate nqcsp's own re-check accepted."""
    return record["status"] == "UNSAT" and bool((record.get("certificate") or {}).get("checked_by"))


def instance_truth(records: Iterable[Record]) -> dict[str, str | None]:
    """Per instance: "SAT", "UNSAT" or None, from verified solutions, checked certificates and brute force."""
    truth: dict[str, str | None] = {}
    for r in records:
        key = r["instance"]
        truth.setdefault(key, None)
        solved = (r["status"] == "SAT" and r.get("verified") is True) or r.get("expected") == "SAT"
        refuted = certified(r) or r.get("expected") == "UNSAT"
        if solved and refuted:
            raise Contradiction(f"{key}: one record says both SAT and UNSAT")
        if solved or refuted:
            found = "SAT" if solved else "UNSAT"
            if truth[key] not in (None, found):
                raise Contradiction(f"{key}: a verified solution and a certified UNSAT are both recorded")
            truth[key] = found
    return truth


def verdict(record: Record, truth: str | None) -> str:
    """One of ``VERDICTS`` for a run on an instance whose truth is ``truth``."""
    status = record["status"]
    if status == "WRONG":
        error = str(record.get("error", ""))
        return "wrong" if any(words in error for words in WRONG_ANSWER_WORDS) else "failed"
    if status in ("ERROR", "CRASH"):
        return "failed"
    if status == "DONE":
        return "correct" if record.get("verified") is True else "wrong"
    if status == "SAT":
        if record.get("verified") is True:
            return "correct"
        if "verified" in record and record["verified"] is None and truth != "UNSAT":
            # A peer that prints no solution (shiftqueens): its word is checked against the truth only.
            return "correct" if truth == "SAT" else "unconfirmed"
        return "wrong"
    if status == "UNSAT":
        if truth == "SAT":
            return "wrong"
        return "correct" if truth == "UNSAT" else "unconfirmed"
    return "unsolved"


def judged(records: list[Record]) -> list[Record]:
    """Each record with its ``verdict`` against the truth of its instance, the truth computed from all."""
    truth = instance_truth(records)
    return [{**r, "verdict": verdict(r, truth[r["instance"]])} for r in records]
