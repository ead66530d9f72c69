"""Independent DRAT proof checking, with the pure-Python checker of the PyPI package ``dratify``.

The checker shares no code with the SAT solver that wrote the proof: it replays the proof forwards, checks
every added clause by reverse unit propagation (RUP) and, failing that, as a resolution asymmetric tautology
(RAT), and accepts only when the empty clause is derived. ``check_drat`` never raises on a bad proof or a
broken checker: it answers a ``DratVerdict`` whose ``reason`` says why it did not accept.

A proof whose every lemma was RUP (``rat_steps == 0``) is correct whatever the deletion semantics: RUP
lemmas are implied by the formula, so the checker ignoring unit deletions (as drat-trim does) cannot let a
wrong lemma through. The verdict records the count so callers can see which rule was needed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

CHECKER = "dratify"


@dataclass(frozen=True)
class DratVerdict:
    """Whether a DRAT proof refutes a CNF, and why not when it does not."""

    ok: bool
    reason: str
    stats: dict[str, Any]
    malformed: bool = False  # the proof or formula could not be read at all

    def __bool__(self) -> bool:
        return self.ok


def checker_version() -> str | None:
    try:
        from importlib.metadata import version

        return version(CHECKER)
    except Exception:  # noqa: BLE001 - a missing or broken install only means "no checker"
        return None


def proof_text(proof: str | bytes | Iterable[str]) -> str:
    """A proof as text: DRAT lines as PySAT's ``get_proof()`` gives them, or the text of a .drat file."""
    if isinstance(proof, bytes):
        return proof.decode("ascii")
    if isinstance(proof, str):
        return proof
    return "".join(line if line.endswith("\n") else line + "\n" for line in proof)


def check_drat(clauses: Sequence[Sequence[int]], proof: str | bytes | Iterable[str],
               num_vars: int | None = None) -> DratVerdict:
    """Check that ``proof`` (text DRAT) refutes the CNF ``clauses`` (DIMACS literals).

    The clauses must be exactly those the solver was given, unit clauses included. The answer is never an
    exception for bad input: a malformed proof, a missing checker or a checker crash give ``ok=False``.
    """
    try:
        import dratify
    except ImportError:
        return DratVerdict(False, f"the DRAT checker {CHECKER!r} is not installed", {})
    try:
        text = proof_text(proof)
        formula = dratify.CNF(int(num_vars or 0))
        for clause in clauses:
            formula.add_dimacs(int(lit) for lit in clause)
        result = dratify.check_proof(formula, text, check_rat=True, apply_deletions=True, engine="python")
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        return DratVerdict(False, f"malformed proof or formula: {exc}", {}, malformed=True)
    except Exception as exc:  # noqa: BLE001 - a checker crash must never turn into an UNSAT answer
        return DratVerdict(False, f"the DRAT checker failed: {type(exc).__name__}: {exc}", {})
    stats = {
        "checker": f"{CHECKER} {checker_version()}",
        "steps": result.steps,
        "rup_steps": result.rup_steps,
        "rat_steps": result.rat_steps,
        "deletions": result.deletions,
        "ignored_deletions": result.ignored_deletions,
    }
    if result.ok:
        return DratVerdict(True, result.reason, stats)
    reason = result.reason
    if result.failed_clause is not None:
        lemma = " ".join(str(dratify.to_dimacs(lit)) for lit in result.failed_clause)
        reason = f"{reason} (step {result.failed_step}: {lemma} 0)"
    return DratVerdict(False, reason, stats)


def recheck_drat(problem: Any, certificate: Any, limits: Any) -> tuple[str, ...]:
    """Re-check a ``drat`` certificate's proof against its CNF; the checker's name when it is valid."""
    from nqcsp.cnf import parse_dimacs

    cnf, proof = certificate.details.get("cnf"), certificate.details.get("proof")
    if not isinstance(cnf, (bytes, str)) or not isinstance(proof, (bytes, str)):
        return ()
    try:
        num_vars, clauses = parse_dimacs(cnf.decode("ascii") if isinstance(cnf, bytes) else cnf)
    except (ValueError, UnicodeDecodeError):
        return ()
    return (CHECKER,) if check_drat(clauses, proof, num_vars).ok else ()
