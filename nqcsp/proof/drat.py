"""Independent DRAT proof checking with ``dratify``: its pure-Python engine (the default that always works)
or its native Rust engine (registered by the optional ``cdclkit[native]``, about 15x faster), used when
installed. ``checked_by`` names the engine: "dratify-python" or "dratify-native".

The checker shares no code with the SAT solver that wrote the proof: it replays the proof forwards, checks
every added clause by reverse unit propagation (RUP) and, failing that, as a resolution asymmetric tautology
(RAT), and accepts only when the empty clause is derived. ``check_drat`` never raises on a bad proof or a
broken checker: it answers a ``DratVerdict`` whose ``reason`` says why it did not accept.

Neither engine can be interrupted, so under a deadline ``check_within`` runs the check in a forked child
that is killed at the deadline (``OutOfTime("check")``), after refusing at once a proof whose estimated
check time or memory cannot fit. ``recheck_drat`` is what ``nqcsp.proof.certify`` runs on a ``drat``
certificate: the evidence CNF must be exactly the reference statement of the problem
(``nqcsp.proof.statement``), rebuilt here, or the proof proves nothing about the problem and is not checked.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from nqcsp.runtime.limits import Limits, OutOfTime, time_limit_reason

CHECKER = "dratify"
ENGINES = ("python", "native")
# Check time per proof byte, measured on the full-grid commander CNF of random_completion(300, 260, s)
# (1.07 M clauses, 9.9 MB proofs) on the loaded 2-core machine: python 4.4-5.1 us, native 2.8-3.3 us
# (the native engine's gain is eaten by dratify's Python-side formula building and step conversion at
# this size). Pessimistic figures decide whether a child process is worth its fork; optimistic ones (a
# third) refuse only checks that clearly cannot end in time.
SECONDS_PER_PROOF_BYTE = {"python": 5e-6, "native": 3e-6}
SECONDS_PER_CNF_BYTE = 1e-6
# Checker memory per byte of CNF and proof text (clause objects, watches, the parsed steps).
CHECK_BYTES_PER_BYTE = 60
# Below this pessimistic estimate the check runs in this process: a fork costs more than it saves.
IN_PROCESS_S = 0.05


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
    except Exception:
        return None


def native_available() -> bool:
    """Whether dratify's native engine is usable; importing ``cdclkit`` is what registers it."""
    try:
        import dratify
    except ImportError:
        return False
    if not dratify.native_available():
        with contextlib.suppress(Exception):  # a broken optional extra only means "python engine"
            import cdclkit  # noqa: F401
    return dratify.native_available()


def resolve_engine(engine: str) -> str:
    """"auto" (native when installed, else python), "python" or "native"; ValueError otherwise."""
    if engine == "auto":
        return "native" if native_available() else "python"
    if engine not in ENGINES:
        raise ValueError(f"unknown DRAT checker engine {engine!r}; known: auto, {', '.join(ENGINES)}")
    return engine


def checker_name(engine: str) -> str:
    return f"{CHECKER}-{engine}"


def proof_text(proof: str | bytes | Iterable[str]) -> str:
    """A proof as text: DRAT lines as PySAT's ``get_proof()`` gives them, or the text of a .drat file."""
    if isinstance(proof, bytes):
        return proof.decode("ascii")
    if isinstance(proof, str):
        return proof
    return "".join(line if line.endswith("\n") else line + "\n" for line in proof)


def check_drat(clauses: Sequence[Sequence[int]], proof: str | bytes | Iterable[str],
               num_vars: int | None = None, engine: str = "python") -> DratVerdict:
    """Check that ``proof`` (text DRAT) refutes the CNF ``clauses`` (DIMACS literals), with ``engine``.

    The clauses must be exactly those the solver was given, unit clauses included. The answer is never an
    exception for bad input: a malformed proof, a missing checker or a checker crash give ``ok=False``.
    """
    try:
        import dratify
    except ImportError:
        return DratVerdict(False, f"the DRAT checker {CHECKER!r} is not installed", {})
    engine = resolve_engine(engine)
    if engine == "native" and not native_available():
        return DratVerdict(False, "the native DRAT engine is not installed (pip install 'cdclkit[native]')",
                           {})
    try:
        text = proof_text(proof)
        formula = dratify.CNF(int(num_vars or 0))
        for clause in clauses:
            formula.add_dimacs(int(lit) for lit in clause)
        result = dratify.check_proof(formula, text, check_rat=True, apply_deletions=True, engine=engine)
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        return DratVerdict(False, f"malformed proof or formula: {exc}", {}, malformed=True)
    except Exception as exc:
        return DratVerdict(False, f"the DRAT checker failed: {type(exc).__name__}: {exc}", {})
    stats = {
        "checker": f"{CHECKER} {checker_version()} ({engine})",
        "engine": engine,
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


def _child(conn: Any, clauses: Sequence[Sequence[int]], proof: str | bytes, num_vars: int,
           engine: str) -> None:
    verdict = check_drat(clauses, proof, num_vars, engine)
    conn.send((verdict.ok, verdict.reason, verdict.stats, verdict.malformed))
    conn.close()


def check_within(clauses: Sequence[Sequence[int]], proof: str | bytes, num_vars: int, limits: Limits,
                 engine: str = "auto", cnf_bytes: int = 0) -> DratVerdict:
    """``check_drat`` against the call's deadline and memory budget: OutOfTime("check") when the check
    cannot end in time (refused at once on its estimate, or its child process killed at the deadline),
    OutOfMemory("check") when its estimated memory does not fit."""
    engine = resolve_engine(engine)
    size = len(proof) + cnf_bytes
    limits.need_memory("check", CHECK_BYTES_PER_BYTE * size, f"checking a {size}-byte DRAT proof and CNF")
    pessimistic = SECONDS_PER_PROOF_BYTE[engine] * len(proof) + SECONDS_PER_CNF_BYTE * cnf_bytes
    limits.need_time("check", pessimistic / 3)
    remaining = limits.remaining()
    # A daemonic process (a multiprocessing.Pool or Dask worker) may not start children: it checks in
    # place, and its own deadline rests on the estimate above.
    daemonic = multiprocessing.current_process().daemon
    can_fork = "fork" in multiprocessing.get_all_start_methods() and not daemonic
    if remaining is None or pessimistic < min(IN_PROCESS_S, remaining / 4) or not can_fork:
        return check_drat(clauses, proof, num_vars, engine)
    # Fork, not spawn: the child starts at once with the formula already in memory (copy-on-write).
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, clauses, proof, num_vars, engine), daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(max(0.0, limits.remaining() or 0.0)):
            if child.is_alive():
                raise OutOfTime("check", time_limit_reason("check", limits.time_limit))
            return DratVerdict(False, f"the DRAT checker process died (exit code {child.exitcode})", {})
        try:
            ok, reason, stats, malformed = receive.recv()
        except EOFError:
            return DratVerdict(False, f"the DRAT checker process died (exit code {child.exitcode})", {})
        return DratVerdict(ok, reason, stats, malformed)
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        receive.close()


def recheck_drat(problem: Any, certificate: Any, limits: Limits,
                 engine: str = "auto") -> tuple[tuple[str, ...], str]:
    """Check a ``drat`` certificate from the problem: the checker's name, or () and why it is unchecked.
    The evidence CNF must be byte for byte the reference statement rebuilt here, and the proof is checked
    against the rebuilt statement's clauses: the evidence's bytes are compared, never read."""
    from nqcsp.board.residual import residual_within
    from nqcsp.proof.statement import REFERENCE_BYTES_PER_CLAUSE, reference_cnf, reference_size

    cnf, proof = certificate.details.get("cnf"), certificate.details.get("proof")
    if not isinstance(cnf, (bytes, str)) or not isinstance(proof, (bytes, str)):
        return (), "the certificate does not hold its CNF and proof"
    if problem.attack is not None:
        return (), "the mandatory queens attack each other: a DRAT proof has no reference statement"
    ref_vars, ref_clauses = reference_size(residual_within(problem, limits, "check"))
    limits.need_memory("check", REFERENCE_BYTES_PER_CLAUSE * ref_clauses, "the reference CNF")
    limits.check_time("check")
    statement = reference_cnf(problem)
    if (cnf.encode("ascii", errors="replace") if isinstance(cnf, str) else cnf) != statement.dimacs():
        return (), (f"the certificate's CNF is not the reference statement of {problem} ({ref_vars} "
                    f"variables, {ref_clauses} clauses)")
    limits.check_time("check")
    verdict = check_within(statement.clauses, proof, statement.num_vars, limits, engine, len(cnf))
    if not verdict.ok:
        return (), f"the DRAT proof was rejected: {verdict.reason}"
    return (checker_name(verdict.stats.get("engine", resolve_engine(engine))),), ""
