"""Complete backend ``backtrack``: depth-first search over bitboards with forward checking (numba).

It branches on the open row with the fewest free cells (mandatory rows first, since they have one) and
tries columns from the middle outwards. The search runs in chunks of nodes so that ``time_limit`` is
checked from Python between chunks; an exhausted tree is an UNSAT answer with an "exhaustive" certificate.
Boards wider than 64 columns do not fit its bitboards: it answers UNKNOWN for them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nqcsp.counting import MAX_N, allowed_masks
from nqcsp.limits import Limits
from nqcsp.problem import Problem
from nqcsp.result import Certificate, Result, Status, columns_array
from nqcsp.solvers.base import Clock

_NODES_PER_CHUNK = 1 << 16


def middle_out(n: int) -> np.ndarray:
    """Columns ordered by distance from the middle: middle columns leave the most room to other rows."""
    return np.array(sorted(range(n), key=lambda c: (abs(2 * c - (n - 1)), c)), dtype=np.int64)


class BacktrackSolver:
    name = "backtrack"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              **options: Any) -> Result:
        """``seed`` is accepted and unused: the search is deterministic."""
        clock = Clock(limits)
        n = problem.n
        if n > MAX_N:
            return Result(problem, Status.UNKNOWN, self.name,
                          stats={"reason": f"n = {n} is above {MAX_N}, the widest bitboard",
                                 "solve_s": clock.elapsed()})
        if n == 0:
            return Result(problem, Status.SAT, self.name, columns=columns_array([], 0),
                          stats={"nodes": 0, "solve_s": clock.elapsed()})
        from nqcsp.solvers._kernels import backtrack as kernels

        order = middle_out(n)
        free = np.zeros((n + 1, n), dtype=np.uint64)
        chosen_row = np.full(n, -1, dtype=np.int64)
        tried = np.zeros(n, dtype=np.int64)
        state = np.zeros(3, dtype=np.int64)   # depth, nodes, outcome
        kernels.start_first_solution(n, allowed_masks(problem), free, chosen_row, tried, state)
        while state[2] == 0:
            if clock.expired():
                return Result(problem, Status.UNKNOWN, self.name,
                              stats={"reason": "time limit", "nodes": int(state[1]),
                                     "solve_s": clock.elapsed()})
            kernels.first_solution(n, order, free, chosen_row, tried, state, _NODES_PER_CHUNK)
        stats = {"nodes": int(state[1]), "solve_s": clock.elapsed()}
        if state[2] < 0:
            cert = Certificate("exhaustive", (), {"nodes": int(state[1]), "search": "backtrack"})
            return Result(problem, Status.UNSAT, self.name, certificate=cert, stats=stats)
        cols = np.empty(n, dtype=np.int64)
        # The value tried last at each depth is the queen placed there.
        cols[chosen_row] = order[tried - 1]
        return Result(problem, Status.SAT, self.name, columns=columns_array(cols, n), stats=stats)
