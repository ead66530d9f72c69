"""The public entry point: validate, answer trivial cases, dispatch, and check every answer."""

from __future__ import annotations

import math
import numbers
import time
from typing import Any

from nqcsp.problem import Problem, as_int
from nqcsp.result import Certificate, InternalSolverError, Result, Status, queens_array
from nqcsp.verifier import find_violation


def as_problem(n_or_problem: int | Problem, queens: object = ()) -> Problem:
    if isinstance(n_or_problem, Problem):
        if queens:
            raise TypeError("give the queens inside the Problem, not as a second argument")
        return n_or_problem
    return Problem(n_or_problem, queens)  # type: ignore[arg-type]


def as_time_limit(time_limit: object) -> float | None:
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
        raise TypeError(f"time_limit must be a number of seconds, got {time_limit!r}")
    value = float(time_limit)
    if not value > 0 or math.isnan(value):
        raise ValueError(f"time_limit must be > 0 seconds, got {time_limit!r}")
    return value


def as_seed(seed: object) -> int | None:
    if seed is None:
        return None
    value = as_int(seed, "seed")
    if not 0 <= value < 2**63:
        raise ValueError(f"seed must be in 0..2**63-1, got {value}")
    return value


def trivial_answer(problem: Problem) -> Result | None:
    """Answers that need no search: attacking mandatory queens, and the empty board."""
    attack = problem.attack
    if attack is not None:
        (r1, c1), (r2, c2) = attack
        cert = Certificate("attack", ("attack-check",), {"queens": [[r1, c1], [r2, c2]]})
        return Result(problem, Status.UNSAT, "trivial", certificate=cert)
    if problem.n == 0:
        return Result(problem, Status.SAT, "trivial", queens=queens_array([], 0))
    return None


def checked(result: Result, backend_complete: bool) -> Result:
    """Enforce the protocol on a backend's answer; a violation raises, it is never returned."""
    problem = result.problem
    if result.status is Status.SAT:
        if result.queens is None:
            raise InternalSolverError(f"solver {result.solver!r} answered SAT without queens for {problem}")
        violation = find_violation(problem.n, result.queens, problem.queens)
        if violation is not None:
            raise InternalSolverError(
                f"solver {result.solver!r} returned an invalid solution for {problem}: {violation}")
    elif result.status is Status.UNSAT:
        if not backend_complete:
            raise InternalSolverError(f"incomplete solver {result.solver!r} answered UNSAT for {problem}")
        if result.certificate is None:
            raise InternalSolverError(f"solver {result.solver!r} answered UNSAT without a certificate")
    return result


def solve(n_or_problem: int | Problem, queens: object = (), *, solver: str = "auto",
          time_limit: float | None = None, seed: int | None = None, **options: Any) -> Result:
    """Place n non-attacking queens including the mandatory ``queens``.

    SAT answers are always verified; UNSAT answers always carry a certificate. ``solver="auto"`` is the
    guaranteed path: SAT or a checked UNSAT, and UNKNOWN only when ``time_limit`` runs out.
    """
    from nqcsp.solvers import get_solver

    started = time.perf_counter()
    problem = as_problem(n_or_problem, queens)
    limit = as_time_limit(time_limit)
    seed_value = as_seed(seed)
    if solver == "auto":
        from nqcsp.portfolio import solve_auto

        backend_solve, complete = solve_auto, True
    else:
        backend = get_solver(solver)
        backend_solve, complete = backend.solve, backend.complete
    result = trivial_answer(problem)
    if result is None:
        result = checked(backend_solve(problem, time_limit=limit, seed=seed_value, **options), complete)
    result.stats["wall_s"] = time.perf_counter() - started
    return result


def solve_n_queens(n: int, mandatory_coords: tuple[int, int]) -> str:
    """The Codewars n-Queens contract: board text, or "" only when a checked certificate says no solution.

    Never answers "" on a hunch: the guaranteed ``auto`` path decides, without a time limit.
    """
    result = solve(n, [mandatory_coords], solver="auto")
    if result.status is Status.SAT:
        return result.board()
    if result.status is Status.UNSAT and result.certificate is not None and result.certificate.checked:
        return ""
    raise InternalSolverError(f"auto left n = {n} with {mandatory_coords!r} undecided: {result.stats}")
