"""``solver="auto"``: the guaranteed path.

1. Trivial cases and attack certificates (in ``nqcsp.api``, before any backend).
2. ``construct``: O(n), answers most problems with no or one mandatory queen at once.
3. Local search (``qs4``) with a budget scaled to n, where it is the fastest way to a witness.
4. A complete backend decides. Its UNSAT is accepted only when a second method checked it: a DRAT proof
   checked by an independent checker, or a second complete backend that agrees. A disagreement raises.

``time_limit`` covers all stages; UNKNOWN is answered only when it runs out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from nqcsp.api import checked
from nqcsp.problem import Problem
from nqcsp.result import Certificate, InternalSolverError, Result, Status
from nqcsp.solvers import get_solver, is_installed
from nqcsp.solvers.base import Stopwatch, reject_options


@dataclass(frozen=True)
class Policy:
    """Which backends the portfolio runs, chosen from the benchmarks (see README, "auto")."""

    local_search: str = "qs4"
    # Local search is skipped where complete search is faster anyway: small boards, and completion
    # problems with few free rows, whose search space collapses under propagation.
    local_search_from_n: int = 40
    local_search_min_free_rows: int = 40
    # Seconds of local search before a complete backend takes over: a base plus a per-queen share.
    local_search_base_s: float = 0.2
    local_search_per_queen_s: float = 2e-6
    # The exhaustive bitboard search answers first on boards up to this size.
    backtrack_up_to: int = 20
    # CP-SAT's fastest first solutions come from the Boolean grid (benchmarks/results/cpsat.md).
    backend_options: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {"cpsat": {"model": "boolean"}})


POLICY = Policy()


def complete_backends(problem: Problem, policy: Policy = POLICY) -> list[str]:
    """Complete backends in the order they are asked; the first answers, the next confirm an UNSAT."""
    small = problem.n <= policy.backtrack_up_to
    order = ["backtrack", "sat", "cpsat"] if small else ["sat", "cpsat", "backtrack"]
    # The bitboard search holds a row in 64 bits.
    return [name for name in order if is_installed(name) and not (name == "backtrack" and problem.n > 64)]


def local_search_budget(problem: Problem, policy: Policy = POLICY) -> float | None:
    """Seconds for local search, or None to skip it."""
    free_rows = problem.n - len({row for row, _ in problem.queens})
    if (problem.n < policy.local_search_from_n or free_rows < policy.local_search_min_free_rows
            or not is_installed(policy.local_search)):
        return None
    return policy.local_search_base_s + policy.local_search_per_queen_s * problem.n


def solve_auto(problem: Problem, *, time_limit: float | None, seed: int | None, **options: Any) -> Result:
    reject_options("auto", options)
    clock = Stopwatch(time_limit)
    stages: list[dict[str, Any]] = []

    def run(name: str, limit: float | None) -> Result:
        backend = get_solver(name)
        started = clock.elapsed()
        options = POLICY.backend_options.get(name, {})
        result = checked(backend.solve(problem, time_limit=limit, seed=seed, **options), backend.complete)
        stages.append({"solver": name, "status": result.status.value,
                       "seconds": round(clock.elapsed() - started, 6)})
        return result

    def finish(result: Result) -> Result:
        result.stats["stages"] = stages
        return result

    result = run("construct", clock.remaining())
    if result.status is Status.SAT:
        return finish(result)

    budget = local_search_budget(problem)
    if budget is not None:
        remaining = clock.remaining()
        if remaining is not None and not complete_backends(problem):
            budget = remaining
        elif remaining is not None:
            budget = min(budget, remaining)
        result = run(POLICY.local_search, budget)
        if result.status is Status.SAT:
            return finish(result)

    order = complete_backends(problem)
    if not order:
        raise ImportError("solver 'auto' needs a complete backend (backtrack, sat or cpsat) installed")
    decided: Result | None = None
    agreeing: list[Result] = []
    for name in order:
        if clock.expired():
            break
        result = run(name, clock.remaining())
        if result.status is Status.UNKNOWN:
            continue
        if result.status is Status.SAT:
            if agreeing:
                raise InternalSolverError(_disagreement(problem, agreeing, result))
            return finish(result)
        agreeing.append(result)
        if result.certificate is not None and result.certificate.checked:
            decided = result
            break
        if len(agreeing) >= 2:
            decided = result
            break
    if decided is None:
        unknown = Result(problem, Status.UNKNOWN, "auto",
                         stats={"reason": _why_undecided(clock, agreeing), "solve_s": clock.elapsed()})
        return finish(unknown)
    return finish(_certified_unsat(problem, agreeing))


def _certified_unsat(problem: Problem, agreeing: list[Result]) -> Result:
    last = agreeing[-1]
    if len(agreeing) == 1:
        return last
    certificate = Certificate(
        "agreement",
        checked_by=tuple(r.solver for r in agreeing),
        details={r.solver: r.certificate.to_json() for r in agreeing if r.certificate is not None},
    )
    return Result(problem, Status.UNSAT, "+".join(r.solver for r in agreeing), certificate=certificate,
                  stats=dict(last.stats))


def _disagreement(problem: Problem, unsat: list[Result], sat: Result) -> str:
    names = ", ".join(r.solver for r in unsat)
    return (f"backends disagree on {problem}: {names} answered UNSAT but {sat.solver} found a verified "
            f"solution {sat.queens.tolist() if sat.queens is not None and problem.n <= 64 else ''}")


def _why_undecided(clock: Stopwatch, agreeing: list[Result]) -> str:
    if agreeing:
        return (f"time limit: {agreeing[0].solver} answered UNSAT but no second method confirmed it "
                f"within {clock.time_limit} s")
    if clock.expired():
        return f"time limit of {clock.time_limit} s ran out"
    return "every complete backend gave up"
