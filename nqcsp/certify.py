"""Re-checking UNSAT certificates: whether a certificate is checked is decided here, never by a backend.

A backend hands over a certificate with its evidence and ``checked_by`` empty (whatever it wrote there is
ignored). ``recheck`` runs the check that fits the kind, from the problem itself:

- ``attack``: two mandatory queens attack each other; recomputed from the problem.
- ``empty-line``: a free row or column where every cell is attacked or taken; recomputed cell by cell.
- ``drat``: a DRAT proof; re-checked by the independent checker against the CNF in the evidence, and only
  when that CNF is the problem's reference statement (``nqcsp.cnf``) does the check count.

Any other kind (``exhaustive``, ``cpsat-infeasible``) is a claim: it stays unchecked, and only the
portfolio's ``agreement`` of two complete backends that it ran itself can confirm it.
"""

from __future__ import annotations

import time
from dataclasses import replace

from nqcsp.limits import Limits
from nqcsp.problem import Cell, Problem, find_attack
from nqcsp.result import Certificate

ATTACK_CHECKER = "attack-check"
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
    if certificate.kind == "attack":
        pair = certificate.details.get("queens")
        cells: list[Cell] = [tuple(q) for q in pair] if isinstance(pair, list) else []  # type: ignore[misc]
        if len(cells) == 2 and all(cell in problem.queens for cell in cells) and find_attack(cells):
            checked_by = (ATTACK_CHECKER,)
    elif certificate.kind == "empty-line":
        kind, index = certificate.details.get("line"), certificate.details.get("index")
        if isinstance(kind, str) and isinstance(index, int) and _line_is_empty(problem, kind, index):
            checked_by = (LINE_CHECKER,)
    elif certificate.kind == "drat":
        from nqcsp.drat import recheck_drat

        checked_by = recheck_drat(problem, certificate, limits)
    if not checked_by:
        return claimed
    details = {**certificate.details, "check_s": time.perf_counter() - started}
    return replace(certificate, checked_by=checked_by, details=details)
