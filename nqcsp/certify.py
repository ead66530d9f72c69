"""Re-checking UNSAT certificates: whether a certificate is checked is decided here, never by a backend.

A backend hands over a certificate with its evidence and ``checked_by`` empty (whatever it wrote there is
ignored). ``recheck`` runs the check that fits the kind, from the problem itself:

- ``attack``: two mandatory queens attack each other; recomputed from the problem.
- ``empty-line``: a free row or column where every cell is attacked or taken; recomputed cell by cell.
- ``drat``: a DRAT proof; only when the CNF in the evidence is exactly the problem's reference statement
  (``nqcsp.statement``, rebuilt here) is the proof checked, by dratify (native engine when installed),
  within the call's deadline and memory (``nqcsp.drat.recheck_drat``).
- ``lrat``: an LRAT proof (the backtracker's search tree); the evidence CNF must be byte for byte the
  reference statement rebuilt here, and the proof is checked in linear time by ``nqcsp.lrat``, after its
  estimated time and memory were found to fit what is left of the call's limits.

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

from nqcsp.limits import Limits, OutOfTime
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
    elif certificate.kind == "lrat":
        checked_by, why = _recheck_lrat(problem, certificate, limits)
    if not checked_by:
        return replace(claimed, details={**certificate.details, "unchecked": why})
    details = {**certificate.details, CHECK_S: time.perf_counter() - started}
    return replace(certificate, checked_by=checked_by, details=details)


def _recheck_lrat(problem: Problem, certificate: Certificate, limits: Limits) -> tuple[tuple[str, ...], str]:
    """Check an ``lrat`` certificate against the problem's own statement: the checker's name, or () and
    why it is unchecked. OutOfTime/OutOfMemory("check") with the figures when the check cannot fit."""
    from nqcsp import lrat
    from nqcsp.cnf import REFERENCE_BYTES_PER_CLAUSE, REFERENCE_SECONDS_PER_CLAUSE, reference_size
    from nqcsp.limits import format_bytes
    from nqcsp.residual import residual_within
    from nqcsp.statement import reference_cnf

    cnf, proof = certificate.details.get("cnf"), certificate.details.get("proof")
    if not isinstance(cnf, bytes) or not isinstance(proof, (bytes, bytearray)):
        return (), "the certificate does not hold its CNF and proof as bytes"
    if problem.attack is not None:
        return (), "the mandatory queens attack each other: an LRAT proof has no reference statement"
    _, clauses = reference_size(residual_within(problem, limits, "check"))
    size = f"{format_bytes(len(proof))} LRAT proof"
    limits.need_memory("check", REFERENCE_BYTES_PER_CLAUSE * clauses
                       + lrat.estimated_bytes(len(cnf), len(proof)), f"checking the {size}")
    seconds = REFERENCE_SECONDS_PER_CLAUSE * clauses + lrat.estimated_seconds(len(cnf), len(proof))
    remaining = limits.remaining()
    if remaining is not None and seconds > remaining:
        raise OutOfTime("check", f"the {size}'s check needs ~{seconds:.2g} s, {remaining:.2g} s left")
    if reference_cnf(problem).dimacs() != cnf:
        return (), f"the certificate's CNF is not the reference statement of {problem}"
    verdict = lrat.check_lrat(cnf, proof)
    if not verdict.ok:
        return (), f"the LRAT proof was rejected: {verdict.reason}"
    return (lrat.CHECKER,), ""


# --- evidence a user can keep ----------------------------------------------------------------------------

STATEMENT_FILE = "statement.cnf"
PROOF_FILES = {"drat": "proof.drat", "lrat": "proof.lrat"}


def _evidence(kind: str, details: dict[str, Any]) -> dict[str, bytes]:
    """The byte evidence of a certificate of ``kind`` by file name, looking inside an agreement's claims
    when it has none itself."""
    found = {}
    for key, name in (("cnf", STATEMENT_FILE), ("proof", PROOF_FILES.get(kind, "proof.drat"))):
        value = details.get(key)
        if isinstance(value, str):
            value = value.encode("ascii")
        if isinstance(value, (bytes, bytearray)) and value:
            found[name] = bytes(value)
    claims = details.get("claims")
    for claim in claims if isinstance(claims, list) and not found else []:
        if isinstance(claim, dict) and (found := _evidence(str(claim.get("kind")), claim)):
            break
    return found


def write_certificate(certificate: Certificate, directory: str | pathlib.Path) -> list[pathlib.Path]:
    """Write the certificate to ``directory`` (created if missing): ``certificate.json`` always, and its
    ``statement.cnf`` and proof (``proof.drat`` or ``proof.lrat``) when it holds them. ``nqcsp check-proof
    statement.cnf proof.lrat`` checks the pair again; the JSON's sha256 values name the exact bytes.
    Returns the paths."""
    folder = pathlib.Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    evidence = _evidence(certificate.kind, certificate.details)
    for name, data in evidence.items():
        path = folder / name
        path.write_bytes(data)
        written.append(path)
    path = folder / "certificate.json"
    document = certificate.to_json()
    document["files"] = {name: evidence_json(data) for name, data in evidence.items()}
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    written.append(path)
    return written
