"""Explicit O(n) construction (incomplete): one closed-form solution per n, its 8 symmetries, and shifts.

A mandatory queen is met when one of the 8 board symmetries of the closed-form solution covers it, or, when
gcd(n, 6) = 1, by the modular family q[r] = (2r + s) mod n, which covers every cell. Otherwise UNKNOWN.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nqcsp.board.construction import (
    BYTES_PER_QUEEN,
    CLOSED_FORM_S_PER_QUEEN,
    IMAGE_S_PER_QUEEN,
    MODULAR_S_PER_QUEEN,
    closed_form,
    modular,
)
from nqcsp.board.problem import Problem
from nqcsp.board.result import Result, Status, columns_array
from nqcsp.board.symmetry import SYMMETRIES, covers_all, transform
from nqcsp.runtime.limits import Limits
from nqcsp.solvers.base import REASON, SOLVE_S, Clock


class ConstructSolver:
    name = "construct"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              **options: Any) -> Result:
        clock = Clock(limits)
        n, mandatory = problem.n, problem.queen_array
        if n in (2, 3):
            return self._unknown(problem, clock, "no closed form for n = 2, 3")
        limits.need_memory("construct", BYTES_PER_QUEEN * n, f"the {n}-queen construction")
        limits.need_time("construct", CLOSED_FORM_S_PER_QUEEN * n)
        base = closed_form(n)
        for index, symmetry in enumerate(SYMMETRIES):
            if covers_all(base, symmetry, mandatory):
                if index:
                    limits.need_time("construct", IMAGE_S_PER_QUEEN * n)
                cols = base if index == 0 else transform(base, symmetry)
                return self._found(problem, clock, cols, f"closed form, symmetry {index}")
        if math.gcd(n, 6) == 1:
            row, col = (int(v) for v in mandatory[0])
            shift = (col - 2 * row) % n
            if np.all(((2 * mandatory[:, 0]) % n + shift) % n == mandatory[:, 1]):
                limits.need_time("construct", MODULAR_S_PER_QUEEN * n)
                return self._found(problem, clock, modular(n, shift), f"2r + {shift} mod n")
        return self._unknown(problem, clock, "no symmetry or shift of the construction covers the queens")

    def _found(self, problem: Problem, clock: Clock, cols: np.ndarray, how: str) -> Result:
        return Result(problem, Status.SAT, self.name, columns=columns_array(cols, problem.n),
                      stats={"construction": how, SOLVE_S: clock.elapsed()})

    def _unknown(self, problem: Problem, clock: Clock, why: str) -> Result:
        return Result(problem, Status.UNKNOWN, self.name, stats={REASON: why, SOLVE_S: clock.elapsed()})
