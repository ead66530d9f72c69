"""Re-checking UNSAT certificates: whether a certificate is checked is decided here, never by a backend.

A backend hands over a certificate with its evidence and ``checked_by`` empty (whatever it wrote there is
ignored). ``recheck`` runs the check that fits the kind, from the problem itself:

- ``attack``: two mandatory queens attack each other; recomputed from the problem.
- ``empty-line``: a free row or column where every cell is attacked or taken; recomputed cell by cell.
- ``drat``: a DRAT proof; only when the CNF in the evidence is exactly the problem's reference statement
  (``nqcsp.proof.statement``, rebuilt here) is the proof checked, by dratify (native engine when installed),
  within the call's deadline and memory (``nqcsp.proof.drat.recheck_drat``).
- ``lrat``: an LRAT proof (the backtracker's search tree), checked in linear time by ``nqcsp.proof.lrat``
  against the reference statement rebuilt here (the evidence CNF must be byte for byte that statement),
  after its estimated time and memory were found to fit what is left of the call's limits. A proof
  written while the search runs goes to a ``ProofChannel`` that ``nqcsp.solvers.contract`` opened for the
  call: the statement, the checking thread and the verdict are this module's, and the backend only writes
  bytes. Nothing a backend puts in its certificate is taken as a verdict.

An unchecked certificate says why in ``details["unchecked"]``. ``Certificate.to_json`` and
``write_certificate`` keep the evidence a user can take away: JSON holds each byte string's size and
sha256, the files hold the bytes (``statement.cnf``, ``proof.drat``, ``certificate.json``).

Any other kind (``exhaustive``, ``cpsat-infeasible``) is a claim: it stays unchecked, and only the
portfolio's ``agreement`` of two complete backends that it ran itself can confirm it.
"""

from __future__ import annotations

import pathlib
import queue
import tempfile
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from nqcsp.board.problem import Cell, Problem, find_attack
from nqcsp.board.result import Certificate, ProofFile
from nqcsp.runtime.limits import Limits, OutOfTime, format_bytes

if TYPE_CHECKING:
    from nqcsp.proof.dimacs import Cnf
    from nqcsp.proof.lrat import LratStream, LratVerdict
    from nqcsp.proof.statement import Statement

ATTACK_CHECKER = "attack-check"
# The details key of the seconds a certificate's check took.
CHECK_S = "check_s"
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
        from nqcsp.proof.drat import recheck_drat

        checked_by, why = recheck_drat(problem, certificate, limits)
    elif certificate.kind == "lrat":
        checked_by, why = _recheck_lrat(problem, certificate, limits)
    if not checked_by:
        return replace(claimed, details={**certificate.details, "unchecked": why})
    details = {**certificate.details, CHECK_S: time.perf_counter() - started}
    return replace(certificate, checked_by=checked_by, details=details)


def recheck_with(problem: Problem, certificate: Certificate, limits: Limits,
                 channel: ProofChannel | None) -> Certificate:
    """``recheck``, where the backend was given ``channel`` for its proof: the channel's own verdict
    and evidence count, whatever the certificate holds."""
    if channel is None or channel.check is None or certificate.kind != "lrat":
        return recheck(problem, certificate, limits)
    if channel.problem != problem:
        raise ValueError(f"the proof channel is for {channel.problem}, not {problem}")
    started = time.perf_counter()
    verdict = channel.close()
    details = {key: value for key, value in certificate.details.items() if key not in _CHANNEL_KEYS}
    details.update(channel.evidence())
    if verdict is None:
        # Not decided as it was written (the deadline came while the check was behind, or the check
        # failed): the channel's evidence is checked again from scratch, when that fits.
        if channel.failure:
            details["streamed_check"] = channel.failure
        return recheck(problem, replace(certificate, details=details), limits)
    details[STREAMED] = dict(verdict.stats)
    if not verdict.ok:
        why = f"the LRAT proof was rejected as it was written: {verdict.reason}"
        return replace(certificate, checked_by=(), details={**details, "unchecked": why})
    from nqcsp.proof.lrat import CHECKER

    details[CHECK_S] = time.perf_counter() - started
    return replace(certificate, checked_by=(CHECKER,), details=details)


def _recheck_lrat(problem: Problem, certificate: Certificate, limits: Limits) -> tuple[tuple[str, ...], str]:
    """Check an ``lrat`` certificate's evidence against the problem's own statement: the checker's name,
    or () and why it is unchecked; OutOfTime/OutOfMemory ("check") with the figures when the check cannot
    fit."""
    from nqcsp.board.residual import residual_within
    from nqcsp.proof import lrat
    from nqcsp.proof.dimacs import Cnf
    from nqcsp.proof.statement import (
        REFERENCE_BYTES_PER_CLAUSE,
        REFERENCE_SECONDS_PER_CLAUSE,
        reference_cnf,
        reference_size,
    )
    from nqcsp.runtime.limits import format_bytes

    if problem.attack is not None:
        return (), "the mandatory queens attack each other: an LRAT proof has no reference statement"
    cnf, proof = certificate.details.get("cnf"), certificate.details.get("proof")
    if not isinstance(cnf, bytes) or not isinstance(proof, (bytes, bytearray, ProofFile)):
        return (), "the certificate does not hold its CNF and proof as bytes"
    _, clauses = reference_size(residual_within(problem, limits, "check"))
    size = f"{format_bytes(len(proof))} LRAT proof"
    memory = REFERENCE_BYTES_PER_CLAUSE * clauses + lrat.estimated_bytes(len(cnf), len(proof))
    limits.need_memory("check", memory, f"checking the {size}")
    seconds = REFERENCE_SECONDS_PER_CLAUSE * clauses + lrat.estimated_seconds(len(cnf), len(proof))
    remaining = limits.remaining()
    if remaining is not None and seconds > remaining:
        raise OutOfTime("check", f"the {size}'s check needs ~{seconds:.2g} s, {remaining:.2g} s left")
    statement = reference_cnf(problem)
    if statement.dimacs() != cnf:
        return (), f"the certificate's CNF is not the reference statement of {problem}"
    # The proof is checked against the statement rebuilt here, never a reading of the evidence's bytes.
    formula = Cnf.of_clauses(statement.num_vars, statement.clauses)
    verdict = lrat.check_lrat(formula, proof.view() if isinstance(proof, ProofFile) else proof, limits.memory)
    if not verdict.ok:
        return (), f"the LRAT proof was rejected: {verdict.reason}"
    return (lrat.CHECKER,), ""


# The details key under which a proof checked as it was written reports its check (a report: nothing
# reads it back as a verdict).
STREAMED = "checked_as_written"
# What a certificate checked through a channel takes from the channel, never from the backend.
_CHANNEL_KEYS = ("cnf", "proof", STREAMED, "proof_not_kept", "streamed_check", "unchecked", CHECK_S)
# Pieces the producer may write ahead of the checker (4 MB each from backtrack) before it waits.
PIECES_AHEAD = 8
_WAIT_S = 0.05


class ProofChannel:
    """The certifying side's end of an LRAT proof that a backend writes while it searches, opened by
    ``nqcsp.solvers.contract`` for one call of a backend on one problem (or by the backend itself when called
    directly, when only its evidence leaves it). The reference statement is built here, on demand (the
    backend numbers its clauses by it); ``open`` starts the check on a thread of this module; the
    backend writes pieces into what ``open`` returns, and ``recheck_with`` takes the verdict and the
    evidence from here."""

    def __init__(self, problem: Problem, limits: Limits) -> None:
        self.problem = problem
        self.limits = limits
        self.check: ConcurrentLratCheck | None = None
        self.closed = False
        self._statement: Statement | None = None

    def statement(self) -> Statement:
        if self._statement is None:
            from nqcsp.proof.statement import reference_cnf

            self._statement = reference_cnf(self.problem)
        return self._statement

    def open(self, in_memory: int, keep: int) -> ProofSink:
        """Start checking a proof of the statement: the sink to write it into."""
        if self.check is not None:
            raise RuntimeError("a proof channel takes one proof")
        from nqcsp.proof.dimacs import Cnf

        statement = self.statement()
        formula = Cnf.of_clauses(statement.num_vars, statement.clauses)
        self.check = ConcurrentLratCheck(formula, self.limits, in_memory, keep)
        return ProofSink(self.check)

    @property
    def failure(self) -> str:
        return self.check.failure if self.check is not None else ""

    def close(self) -> LratVerdict | None:
        """The verdict, once every piece is read; None when the deadline came first or the check failed."""
        self.closed = True
        return self.check.close() if self.check is not None else None

    def release(self) -> None:
        """The end of the call: a check nobody closed (the backend found a solution, gave up, or never
        said) stops, so its thread ends."""
        if self.check is not None and not self.closed:
            self.check.abandon()

    def evidence(self) -> dict[str, Any]:
        """The statement and the proof written (bytes kept by this side), as certificate details."""
        if self.check is None:
            return {}
        out: dict[str, Any] = {"cnf": self.statement().dimacs(), "proof": self.check.proof()}
        if not self.check.kept:
            out["proof_not_kept"] = (f"the {format_bytes(self.check.size)} proof was checked as it was "
                                     f"written, and not kept past its share of the memory budget")
        return out


class ProofSink:
    """What a backend holds of a ``ProofChannel``: it writes pieces, or gives the proof up."""

    def __init__(self, check: ConcurrentLratCheck) -> None:
        self._check = check

    def write(self, piece: memoryview) -> bool:
        return self._check.write(piece)

    def abandon(self) -> None:
        self._check.abandon()


class ConcurrentLratCheck:
    """An LRAT proof checked by ``nqcsp.proof.lrat`` on a second thread while its producer writes it:
    ``write`` each piece (the producer's sink), then ``close``. The check's time hides behind the search's
    on a second core (the checker's kernel even loads there), and its memory is the checker's live clauses,
    not the proof. The pieces are also kept, as the certificate's evidence: in memory up to
    ``in_memory`` bytes, beyond that in an anonymous temporary file (``ProofFile``), up to ``keep``
    bytes (past that the evidence goes, the check goes on)."""

    def __init__(self, formula: Cnf, limits: Limits, in_memory: int, keep: int) -> None:
        self.stream: LratStream | None = None
        self.size = 0
        self.kept: bool = True
        self.failure = ""
        self._formula = formula
        self._in_memory = in_memory
        self._keep = keep
        self._limits = limits
        self._spool: Any = tempfile.SpooledTemporaryFile(max_size=in_memory)  # noqa: SIM115 - the evidence
        self._pieces: queue.Queue[bytes | None] = queue.Queue(maxsize=PIECES_AHEAD)
        self._abandoned = False
        self._thread = threading.Thread(target=self._check, name="nqcsp-lrat-check", daemon=True)
        self._thread.start()

    def _check(self) -> None:
        try:
            from nqcsp.proof import lrat

            if not self._abandoned:   # a solution found at once: the formula need not be read
                self.stream = lrat.LratStream(self._formula, self._limits.memory)
        except Exception as exc:  # the check is lost, never the search: it drains on
            self.failure, self._abandoned = f"the checker could not start: {exc!r}", True
        while (piece := self._pieces.get()) is not None:
            if self._abandoned or self.stream is None:
                continue
            try:
                self.stream.feed(piece)
            except Exception as exc:  # memory for its tables, say
                self.failure, self._abandoned = f"the check failed: {exc!r}", True

    def write(self, piece: memoryview) -> bool:
        """Queue ``piece`` for the checker (waiting while it is ``PIECES_AHEAD`` behind); False, the proof
        given up, when the deadline comes while waiting."""
        data = bytes(piece)
        self.size += len(data)
        if self.kept:
            try:
                self._spool.write(data)
            except OSError:
                self.kept = False
            if self.size > self._keep or not self.kept:
                self.kept = False
                self._spool.close()
        while True:
            try:
                self._pieces.put(data, timeout=_WAIT_S)
                return True
            except queue.Full:
                if self._limits.expired():
                    self.abandon()
                    return False

    def abandon(self) -> None:
        """Stop checking (a solution was found, or the deadline came): the thread drains and ends."""
        self._abandoned = True
        self._spool.close()
        self._finish_queue()

    def _finish_queue(self) -> None:
        while True:
            try:
                self._pieces.put(None, timeout=_WAIT_S)
                return
            except queue.Full:
                continue

    def close(self) -> LratVerdict | None:
        """The verdict once the checker has read every piece; None when the deadline comes first or the
        check failed (``failure`` says how)."""
        self._finish_queue()
        while self._thread.is_alive():
            self._thread.join(_WAIT_S)
            if self._thread.is_alive() and self._limits.expired():
                self._abandoned = True
                return None
        if self.failure or self.stream is None or self._abandoned:
            return None
        return self.stream.finish()

    def proof(self) -> bytes | ProofFile | None:
        """The proof written, from memory or from its temporary file; None when it was not kept."""
        if not self.kept:
            return None
        if self.size <= self._in_memory:
            self._spool.seek(0)
            return bytes(self._spool.read())
        self._spool.flush()
        return ProofFile(self._spool, self.size)


# --- evidence a user can keep ----------------------------------------------------------------------------

def write_certificate(certificate: Certificate, directory: str | pathlib.Path) -> list[pathlib.Path]:
    """``certificate.save(directory)``: its files, as ``nqcsp solve --proof-dir`` writes them."""
    return certificate.save(directory)
