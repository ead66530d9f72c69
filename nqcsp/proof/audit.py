"""Auditing a certificate from outside: does a proof show that the board its statement names has no solution?

The library form of ``nqcsp check-proof``. The statement's bytes are read once, by ``nqcsp.proof.dimacs``; the
clauses that reading gave are compared with the reference statement (``nqcsp.proof.statement``) of the problem
its comments name, and the proof is then checked against the statement *rebuilt here*, never a second
reading of the user's bytes (with ``any_cnf``, against the clauses that one reading gave). LRAT is
checked by ``nqcsp.proof.lrat``, DRAT by dratify (given the same clauses, never text), and every outside
checker given (``nqcsp.proof.outside``) must accept as well.

``proven`` (exit 0 of ``check-proof``) means exactly: the CNF is the reference statement of the problem
its comments name, and every checker accepted the proof of that statement.
"""

from __future__ import annotations

import mmap
from collections.abc import Sequence
from dataclasses import dataclass, field

from nqcsp.board.problem import Problem
from nqcsp.proof.dimacs import Cnf, read_bytes_needed, read_dimacs
from nqcsp.proof.outside import OutsideChecker, check_outside
from nqcsp.proof.statement import VERSION, Statement, named_problem, reference_cnf
from nqcsp.runtime.lazy import MissingDependency, pip_extra
from nqcsp.runtime.limits import Limits, format_bytes

FORMATS = ("lrat", "drat")
# The residual board that a header may name is sized within this many bytes per byte of the formula
# (plus a floor): a real statement is never many times smaller than its residual board.
_SIZING_BYTES_PER_LITERAL = 256
_SIZING_FLOOR = 64 << 20


@dataclass(frozen=True)
class Audit:
    """What ``audit`` found. ``proven``: the board ``problem`` has no solution, proven. ``valid``: every
    checker accepted the proof of the clauses checked. ``lines``: what ``check-proof`` prints."""

    proven: bool
    valid: bool
    problem: Problem | None
    lines: tuple[str, ...] = field(default=())


def identify(cnf: Cnf, limits: Limits) -> tuple[Statement | None, str]:
    """The reference statement that ``cnf`` is, and the line saying so; or None and why it is not.

    The problem its comments name is sized first, and its statement is built only when that size is the
    formula's own, so a forged header cannot make this allocate more than the formula read."""
    from nqcsp.board.residual import estimated_bytes, residual_within
    from nqcsp.proof.statement import reference_size

    named = named_problem(cnf.comments)
    if named is None:
        return None, "statement: not an nqcsp reference statement (its comments name no problem)"
    try:
        problem = Problem(*named)
    except (ValueError, TypeError) as exc:
        return None, f"statement: the comments name no valid problem ({exc})"
    if problem.attack is not None:
        return None, f"statement: the comments name {problem}, whose mandatory queens attack each other"
    free = problem.n - len(problem.queens)
    if cnf.num_clauses < 2 * free:
        return None, (f"statement: NOT the reference CNF of {problem}, which its comments name (its {free} "
                      f"free rows and columns need {2 * free} clauses, not {cnf.num_clauses})")
    own = _SIZING_BYTES_PER_LITERAL * (len(cnf.literals) + cnf.num_clauses) + _SIZING_FLOOR
    board_bytes = estimated_bytes(problem)
    if board_bytes > own:
        return None, (f"statement: NOT the reference CNF of {problem}: its residual board "
                      f"({format_bytes(board_bytes)}) is far larger than a formula of "
                      f"{cnf.num_clauses} clauses")
    size = reference_size(residual_within(problem, limits, "check"))
    if size != (cnf.num_vars, cnf.num_clauses):
        return None, (f"statement: NOT the reference CNF of {problem}, which its comments name ({size[0]} "
                      f"variables and {size[1]} clauses, the file {cnf.num_vars} and {cnf.num_clauses})")
    limits.check_time("check")
    statement = reference_cnf(problem)
    if cnf.comments != tuple(statement.comments()):
        return None, f"statement: NOT the reference CNF of {problem}: its comments are not the statement's"
    if not cnf.same_clauses(statement.clauses):
        return None, f"statement: NOT the reference CNF of {problem}, which its comments name"
    return statement, f"statement: {problem}, the {VERSION}"


def read_cnf(data: bytes, limits: Limits) -> Cnf:
    """The one reading of a CNF's bytes, within the memory budget; ValueError when it is not DIMACS."""
    limits.need_memory("read", read_bytes_needed(len(data)), f"reading a {format_bytes(len(data))} CNF")
    return read_dimacs(data)


def audit(cnf_data: bytes, proof: bytes | bytearray | memoryview | mmap.mmap, proof_format: str, *,
          limits: Limits, engine: str = "auto", any_cnf: bool = False,
          outside: Sequence[OutsideChecker] = ()) -> Audit:
    """Check ``proof`` (``proof_format`` "lrat" or "drat") of the CNF ``cnf_data``. ValueError for input
    that cannot be read (the CNF is not DIMACS, the DRAT proof is malformed, an outside checker for DRAT);
    OutOfTime/OutOfMemory ("check", "read") when the check cannot fit ``limits``."""
    if proof_format not in FORMATS:
        raise ValueError(f"unknown proof format {proof_format!r}; known: {', '.join(FORMATS)}")
    if outside and proof_format != "lrat":
        names = ", ".join(checker.name for checker in outside)
        raise ValueError(f"the outside checkers ({names}) check LRAT proofs only")
    cnf = read_cnf(cnf_data, limits)
    statement, line = identify(cnf, limits)
    lines = [line]
    # The clauses checked: the statement rebuilt here, or (not a statement) the clauses read.
    formula = cnf if statement is None else Cnf.of_clauses(statement.num_vars, statement.clauses)
    if proof_format == "lrat":
        ok, reason, said = _check_lrat(formula, proof, limits)
    else:
        ok, reason, said = _check_drat(formula, proof, engine, limits)
    verdicts = [(ok, reason, said)]
    for checker in outside:
        verdict = check_outside(checker, formula, proof, limits)
        verdicts.append((verdict.ok, verdict.reason, f"{checker.name}, {verdict.seconds:.3g} s"))
    rejected = [(reason, said) for ok, reason, said in verdicts if not ok]
    if rejected:
        lines += [f"rejected: {reason} ({said})" for reason, said in rejected]
        return Audit(False, False, statement.problem if statement else None, tuple(lines))
    said = "; ".join(said for _, _, said in verdicts)
    if statement is None and not any_cnf:
        lines.append(f"rejected: the proof is valid ({said}) but refutes a CNF that is not the reference "
                     "statement of the board its comments name, so it proves nothing about a board "
                     "(--any-cnf accepts it)")
        return Audit(False, True, None, tuple(lines))
    lines.append(f"valid: {reason} ({said})")
    return Audit(statement is not None, True, statement.problem if statement else None, tuple(lines))


def _check_lrat(formula: Cnf, proof: bytes | bytearray | memoryview | mmap.mmap,
                limits: Limits) -> tuple[bool, str, str]:
    from nqcsp.proof import lrat

    limits.need_time("check", lrat.estimated_seconds(0, len(proof)) / 3)
    stream = lrat.LratStream(formula, limits.memory)
    view = memoryview(proof)
    piece = 1 << 24
    for at in range(0, len(view), piece):
        limits.check_time("check")
        if not stream.feed(view[at:at + piece]):
            break
    verdict = stream.finish()
    said = f"{verdict.stats.get('lemmas', 0)} lemmas, {verdict.stats.get('hints', 0)} hints, {lrat.CHECKER}"
    return verdict.ok, verdict.reason, said


def _check_drat(formula: Cnf, proof: bytes | bytearray | memoryview | mmap.mmap, engine: str,
                limits: Limits) -> tuple[bool, str, str]:
    from nqcsp.proof.drat import CHECK_BYTES_PER_BYTE, check_within, native_available

    if engine == "native" and not native_available():
        raise MissingDependency(f"the native DRAT engine needs cdclkit: {pip_extra('native')}")
    limits.need_memory("check", CHECK_BYTES_PER_BYTE * len(proof), f"checking a {len(proof)}-byte DRAT proof")
    text = bytes(proof)
    verdict = check_within(formula.clauses(), text, formula.num_vars, limits, engine,
                           4 * len(formula.literals))
    if verdict.malformed:
        raise ValueError(f"the DRAT proof is malformed: {verdict.reason}")
    engine_used = verdict.stats.get("engine", engine)
    return verdict.ok, verdict.reason, f"{verdict.stats.get('steps', 0)} steps, " \
                                       f"{formula.num_clauses} clauses, dratify-{engine_used}"
