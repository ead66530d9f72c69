"""Complete backend ``backtrack``: bitboard depth-first search on the residual board (numba).

The mandatory queens are taken out first (``nqcsp.board.residual``): the search runs over the free rows and
free columns only, with multi-word bitboards, so a completion of a 10^4-board with 50 free rows is a
50 x 50 search. It branches on the free line, row or column, with the fewest candidate cells, and forward
checking ends a branch as soon as a free line has none left. It runs in chunks of nodes, so the deadline
is kept.

An exhausted tree is an UNSAT answer. With ``proof`` (the default) the search writes its own refutation
of the reference statement (``nqcsp.proof.statement``) as it goes: a failed node is the clause "not all of
this node's decisions", implied by unit propagation from the statement's binary clauses, its children's
clauses and one at-least-one clause, and written with those as LRAT hints; a node whose line was forced
(one cell left) writes no clause, its hints join its parent's; the root's clause is the empty clause.
Nothing else prunes the search (no symmetry breaking), so nothing needs more justification. The
certificate is ``lrat`` (statement and binary LRAT proof). The proof goes, as it is written, into the
``nqcsp.proof.certify.ProofChannel`` that the caller opened (``nqcsp.solvers.contract`` opens one per call, so
certify owns the statement, the check on its second thread and the verdict; called directly, the backend opens
its own, and only the evidence leaves with its certificate): on two cores the check costs little more
than the search, and the proof is never held in memory for it. A statement too large to build leaves an
``exhaustive`` claim, which only a second complete backend can confirm.
"""

from __future__ import annotations

from typing import Any

from nqcsp.bitboard.residual_proof import ProofTables
from nqcsp.bitboard.residual_search import first_solution, proof_room, state_bytes
from nqcsp.board.problem import Problem
from nqcsp.board.residual import Residual, residual_within
from nqcsp.board.result import Certificate, Result, Status, columns_array
from nqcsp.proof.certify import PIECES_AHEAD, ProofChannel, attack_certificate
from nqcsp.proof.statement import Statement
from nqcsp.runtime.limits import Limits, format_bytes, time_limit_reason
from nqcsp.solvers import spec
from nqcsp.solvers.base import NODES, REASON, SEARCH_S, SOLVE_S, STAGE, Clock

# The statement is built in plain Python (REFERENCE_SECONDS_PER_CLAUSE, REFERENCE_BYTES_PER_CLAUSE of
# nqcsp.solvers.cnf); above this many clauses a proof of it is not attempted (about 2 s and 600 MB to build).
PROOF_MAX_CLAUSES = 1_000_000
KEEP_PROOF_BYTES = 16 << 20


def _proof_plan(residual: Residual, limits: Limits,
                channel: ProofChannel) -> tuple[tuple[Statement, ProofTables] | None, str]:
    """The statement (the channel's) and its clause tables when a proof can be written, else None and
    why not."""
    from nqcsp.proof.statement import REFERENCE_BYTES_PER_CLAUSE, REFERENCE_SECONDS_PER_CLAUSE, reference_size

    _, clauses = reference_size(residual)
    if clauses > PROOF_MAX_CLAUSES:
        return None, f"the reference statement has {clauses} clauses, above {PROOF_MAX_CLAUSES} for a proof"
    # The statement, the kernel's buffer and the pieces queued for the checker (the proof kept in memory
    # is a sixteenth of the budget at most).
    if REFERENCE_BYTES_PER_CLAUSE * clauses + (1 + PIECES_AHEAD) * proof_room(residual.size) \
            > limits.memory // 4:
        return None, f"the reference statement ({clauses} clauses) needs over a quarter of the memory"
    remaining = limits.remaining()
    if remaining is not None and REFERENCE_SECONDS_PER_CLAUSE * clauses > remaining / 4:
        return None, f"building the reference statement ({clauses} clauses) needs over a quarter of the time"
    from nqcsp.bitboard.residual_proof import proof_tables

    statement = channel.statement()
    return (statement, proof_tables(residual, statement)), ""


class BacktrackSolver:
    name = "backtrack"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None, proof: bool = True,
              proofs: ProofChannel | None = None, **options: Any) -> Result:
        """``seed`` is accepted and unused: the search is deterministic. ``proof``: write an LRAT
        refutation on UNSAT (see the module), into ``proofs`` (the caller's channel) when given."""
        clock = Clock(limits)
        attack = attack_certificate(problem)
        if attack is not None:
            return Result(problem, Status.UNSAT, self.name, certificate=attack,
                          stats={SOLVE_S: clock.elapsed()})
        free = problem.n - len(problem.queens)
        max_free = spec(self.name).max_free
        if max_free is not None and free > max_free:
            return Result(problem, Status.UNKNOWN, self.name,
                          stats={REASON: f"{free} free rows: above {max_free}, the largest residual board "
                                         f"the bitboard search takes", STAGE: "search",
                                 SOLVE_S: clock.elapsed()})
        residual = residual_within(problem, limits)
        span = int(residual.cols[-1] - residual.cols[0] + 1) if free else 0
        limits.need_memory("search", state_bytes(free, span),
                           f"the search state of {free} free lines ({format_bytes(state_bytes(free, span))})")
        channel = proofs if proofs is not None else ProofChannel(problem, limits)
        plan, no_proof = _proof_plan(residual, limits, channel) if proof and free else (None, "not asked for")
        # The proof stays in memory up to a sixteenth of the budget (16 MiB at most), past that in a
        # temporary file, up to a quarter of the budget; the check itself holds only what is live.
        sink = channel.open(min(KEEP_PROOF_BYTES, limits.memory // 16), limits.memory // 4) if plan else None
        try:
            outcome = first_solution(residual, limits, proof=plan[1] if plan else None,
                                     sink=sink.write if sink else None)
        except BaseException:
            if sink is not None:
                sink.abandon()
            raise
        stats: dict[str, Any] = {NODES: outcome.nodes, "free": free, SEARCH_S: outcome.search_s,
                                 SOLVE_S: clock.elapsed()}
        if outcome.solution is not None or not outcome.exhausted:
            if sink is not None:
                sink.abandon()
            if outcome.solution is not None:
                return Result(problem, Status.SAT, self.name,
                              columns=columns_array(outcome.solution, problem.n), stats=stats)
            stats.update({REASON: time_limit_reason("search", limits.time_limit), STAGE: "search"})
            return Result(problem, Status.UNKNOWN, self.name, stats=stats)
        if plan is not None and sink is not None and outcome.proof_bytes:
            # Evidence only: whether the proof counts is decided by nqcsp.proof.certify, from its channel.
            details: dict[str, Any] = {"search": "backtrack", "format": "binary", "nodes": outcome.nodes,
                                       **channel.evidence()}
            return Result(problem, Status.UNSAT, self.name, certificate=Certificate("lrat", (), details),
                          stats=stats)
        if plan is not None:
            no_proof = "the proof was given up: the deadline came while its check was behind"
        certificate = Certificate("exhaustive", (), {
            "no_proof": no_proof,
            "search": "backtrack",
            "searched": "the residual board: free rows x free columns, cells no mandatory queen attacks, "
                        "full-board diagonals",
            "free_rows": residual.rows.tolist(),
            "free_cols": residual.cols.tolist(),
            "cells": residual.cell_count,
            "nodes": outcome.nodes,
        })
        return Result(problem, Status.UNSAT, self.name, certificate=certificate, stats=stats)
