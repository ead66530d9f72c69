"""Re-checking UNSAT certificates: whether a certificate is checked is decided here, never by a backend.

A backend hands over a certificate with its evidence and ``checked_by`` empty (whatever it wrote there is
ignored). ``recheck`` runs the check that fits the kind, from the problem itself:

- ``attack``: two mandatory queens attack each other; recomputed from the problem.
- ``empty-line``: a free row or column where every cell is attacked or taken; recomputed cell by cell.
- ``drat``: a DRAT proof; only when the CNF in the evidence is exactly the problem's reference statement
  (``nqcsp.statement``, rebuilt here) is the proof checked, by dratify (native engine when installed),
  within the call's deadline and memory (``nqcsp.drat.recheck_drat``).

An unchecked certificate says why in ``details["unchecked"]``. ``Certificate.to_json`` and
``write_certificate`` keep the evidence a user can take away: JSON holds each byte string's size and
sha256, the files hold the bytes (``statement.cnf``, ``proof.drat``, ``certificate.json``).

Any other kind (``exhaustive``, ``cpsat-infeasible``) is a claim: it stays unchecked, and only the
portfolio's ``agreement`` of two complete backends that it ran itself can confirm it.
"""

from __future__ import annotations

import json
import pathlib
import time
from dataclasses import replace
from typing import Any

from nqcsp.limits import Limits
from nqcsp.problem import Cell, Problem, find_attack
from nqcsp.result import Certificate, evidence_json
from nqcsp.solvers.base import CHECK_S

ATTACK_CHECKER = "attack-check"
# The empty-line check walks the line in plain Python: about 0.3 us a cell, with margin.
LINE_CHECK_S_PER_CELL = 1e-6
LINE_CHECKER = "line-check"


def attack_certificate(problem: Problem) -> Certificate | None:
    attack = problem.attack
    if attack is None:
        return None
    (r1, c1), (r2, c2) = attack
    return Certificate("attack", (), {"queens": [[r1, c1], [r2, c2]]})


def empty_line_certificate(line: tuple[str, int]) -> Certificate:
    kind, index = line
    return Certificate("empty-line", (), {"line": kind, "index": index})


def _line_is_empty(problem: Problem, kind: str, index: int) -> bool:
    """Plain re-computation: every cell of the line is on a taken row/column or a mandatory diagonal."""
    n = problem.n
    if not 0 <= index < n or kind not in ("row", "column"):
        return False
    rows_taken = {r for r, _ in problem.queens}
    cols_taken = {c for _, c in problem.queens}
    sums = {r + c for r, c in problem.queens}
    diffs = {r - c for r, c in problem.queens}
    if (index in rows_taken) if kind == "row" else (index in cols_taken):
        return False  # the line is not free: a mandatory queen stands on it
    for other in range(n):
        r, c = (index, other) if kind == "row" else (other, index)
        if c not in cols_taken and r not in rows_taken and r + c not in sums and r - c not in diffs:
            return False
    return True


def recheck(problem: Problem, certificate: Certificate, limits: Limits) -> Certificate:
    """The certificate with ``checked_by`` set by this module's own check (empty when it cannot check)."""
    started = time.perf_counter()
    claimed = replace(certificate, checked_by=())
    checked_by: tuple[str, ...] = ()
    why = f"a {certificate.kind!r} certificate is a claim nqcsp cannot re-check by itself"
    if certificate.kind == "attack":
        pair = certificate.details.get("queens")
        cells: list[Cell] = [tuple(q) for q in pair] if isinstance(pair, list) else []
        if len(cells) == 2 and all(cell in problem.queens for cell in cells) and find_attack(cells):
            checked_by = (ATTACK_CHECKER,)
        why = "the named queens are not two attacking mandatory queens of the problem"
    elif certificate.kind == "empty-line":
        kind, index = certificate.details.get("line"), certificate.details.get("index")
        limits.need_time("check", LINE_CHECK_S_PER_CELL * problem.n)  # a Python loop along the line
        if isinstance(kind, str) and isinstance(index, int) and _line_is_empty(problem, kind, index):
            checked_by = (LINE_CHECKER,)
        why = "the named line is not a free line without an unattacked cell"
    elif certificate.kind == "drat":
        from nqcsp.drat import recheck_drat

        checked_by, why = recheck_drat(problem, certificate, limits)
    if not checked_by:
        return replace(claimed, details={**certificate.details, "unchecked": why})
    details = {**certificate.details, CHECK_S: time.perf_counter() - started}
    return replace(certificate, checked_by=checked_by, details=details)


# --- evidence a user can keep ----------------------------------------------------------------------------

EVIDENCE_FILES = {"cnf": "statement.cnf", "proof": "proof.drat"}


def _evidence(details: dict[str, Any]) -> dict[str, bytes]:
    """The byte evidence of a certificate, looking inside an agreement's claims when it has none itself."""
    found = {}
    for key in EVIDENCE_FILES:
        value = details.get(key)
        if isinstance(value, str):
            value = value.encode("ascii")
        if isinstance(value, (bytes, bytearray)) and value:
            found[key] = bytes(value)
    claims = details.get("claims")
    for claim in claims if isinstance(claims, list) and not found else []:
        if isinstance(claim, dict) and (found := _evidence(claim)):
            break
    return found


def write_certificate(certificate: Certificate, directory: str | pathlib.Path) -> list[pathlib.Path]:
    """Write the certificate to ``directory`` (created if missing): ``certificate.json`` always, and its
    ``statement.cnf`` and ``proof.drat`` when it holds them. ``nqcsp check-proof statement.cnf
    proof.drat`` checks the pair again; the JSON's sha256 values name the exact bytes. Returns the paths."""
    folder = pathlib.Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for key, data in _evidence(certificate.details).items():
        path = folder / EVIDENCE_FILES[key]
        path.write_bytes(data)
        written.append(path)
    path = folder / "certificate.json"
    document = certificate.to_json()
    document["files"] = {EVIDENCE_FILES[key]: evidence_json(data)
                         for key, data in _evidence(certificate.details).items()}
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    written.append(path)
    return written
