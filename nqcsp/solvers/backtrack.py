"""Complete backend ``backtrack``: bitboard depth-first search on the residual board (numba).

The mandatory queens are taken out first (``nqcsp.residual``): the search runs over the free rows and
free columns only, with multi-word bitboards, so a completion of a 10^4-board with 50 free rows is a
50 x 50 search. It branches on the free line, row or column, with the fewest candidate cells, and forward
checking ends a branch as soon as a free line has none left. It runs in chunks of nodes, so the deadline
is kept; an exhausted tree is an UNSAT answer with an "exhaustive" certificate naming the residual board
searched, which stays an unchecked claim (the portfolio confirms it with a second complete backend).
"""

from __future__ import annotations

from typing import Any

from nqcsp.bitboard.residual_search import first_solution, state_bytes
from nqcsp.certify import attack_certificate
from nqcsp.limits import Limits, format_bytes, time_limit_reason
from nqcsp.problem import Problem
from nqcsp.residual import residual_within
from nqcsp.result import Certificate, Result, Status, columns_array
from nqcsp.solvers import spec
from nqcsp.solvers.base import NODES, REASON, SEARCH_S, SOLVE_S, STAGE, Clock


class BacktrackSolver:
    name = "backtrack"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              **options: Any) -> Result:
        """``seed`` is accepted and unused: the search is deterministic."""
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
        outcome = first_solution(residual, limits)
        stats: dict[str, Any] = {NODES: outcome.nodes, "free": free, SEARCH_S: outcome.search_s,
                                 SOLVE_S: clock.elapsed()}
        if outcome.solution is not None:
            return Result(problem, Status.SAT, self.name, columns=columns_array(outcome.solution, problem.n),
                          stats=stats)
        if not outcome.exhausted:
            stats.update({REASON: time_limit_reason("search", limits.time_limit), STAGE: "search"})
            return Result(problem, Status.UNKNOWN, self.name, stats=stats)
        certificate = Certificate("exhaustive", (), {
            "search": "backtrack",
            "searched": "the residual board: free rows x free columns, cells no mandatory queen attacks, "
                        "full-board diagonals",
            "free_rows": residual.rows.tolist(),
            "free_cols": residual.cols.tolist(),
            "cells": residual.cell_count,
            "nodes": outcome.nodes,
        })
        return Result(problem, Status.UNSAT, self.name, certificate=certificate, stats=stats)
