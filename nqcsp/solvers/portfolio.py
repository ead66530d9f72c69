"""``solver="auto"``: the guaranteed path.

1. Trivial cases (in ``nqcsp.api``): attacking mandatory queens, an empty free line, n = 0.
2. ``construct``: O(n), answers most problems with no or one mandatory queen at once.
3. Local search (``qs4``) with a budget scaled to n, where it is the fastest way to a witness.
4. Complete backends decide, chosen by capability from the registry (complete, installed, able to take a
   residual board of this size). An UNSAT counts only when its certificate was re-checked by
   ``nqcsp.proof.certify`` (a DRAT proof of the reference statement), or when a second complete backend that
   the portfolio ran itself agrees. A SAT after an UNSAT raises: one of the two backends has a bug.

Every stage runs against the call's one ``Limits``; UNKNOWN is answered only when they run out.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from nqcsp.board.problem import Problem
from nqcsp.board.residual import need_residual_memory
from nqcsp.board.result import Certificate, InternalSolverError, Result, Status
from nqcsp.runtime.limits import Limits, Unfinished, time_limit_reason
from nqcsp.solvers import get_solver, is_installed, options_for, specs
from nqcsp.solvers.base import REASON, STAGE, STAGES
from nqcsp.solvers.contract import run_backend

AGREEMENT = "agreement"


@dataclass(frozen=True)
class Policy:
    """Which backends the portfolio runs, chosen from the benchmarks (see docs/backends.md, "auto")."""

    local_search: str = "qs4"
    # Local search is skipped where complete search is faster anyway: small boards, and completion
    # problems with few free rows, whose search space collapses under propagation.
    local_search_from_n: int = 40
    local_search_min_free_rows: int = 40
    # Seconds of local search before a complete backend takes over: a base plus a per-queen share.
    local_search_base_s: float = 0.2
    local_search_per_queen_s: float = 2e-6
    # Complete backends in the order asked; the first answers, the next confirm an UNSAT claim. The
    # residual bitboard search is fastest on small residuals and on completion boards (a few ms at 30 to
    # 50 free rows under 95 to 425 mandatory queens) but can take seconds for a first solution of a nearly
    # empty board (n = 60, one queen: 3 s), where the guided SAT search takes 0.2 s.
    complete_order: tuple[str, ...] = ("backtrack", "sat", "cpsat")
    open_board_order: tuple[str, ...] = ("sat", "backtrack", "cpsat")
    backtrack_first_free_up_to: int = 20
    # CP-SAT is the last resort here: its AllDifferent model (on the residual board's free rows unless
    # that table would cost more to build than the whole board's model), never the Boolean model of the
    # full n x n grid, which at n = 5,000 would cost minutes to load. Its hint is the construction's:
    # local search has had its turn by then.
    backend_options: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {"cpsat": {"model": "alldiff", "hint": "construct"}})


POLICY = Policy()


def free_rows(problem: Problem) -> int:
    return problem.free_row_count


def complete_backends(problem: Problem, policy: Policy = POLICY) -> list[str]:
    """Installed complete backends that take this residual board, in the policy's order; never an
    outside engine, whose UNSAT nothing here can certify."""
    facts = {s.name: s for s in specs()}
    free = free_rows(problem)
    completion = free <= policy.backtrack_first_free_up_to or len(problem.queen_array) >= free
    preferred = policy.complete_order if completion else policy.open_board_order
    ordered = [name for name in preferred if name in facts]
    ordered += [s.name for s in specs() if s.complete and s.name not in ordered]
    return [name for name in ordered if facts[name].complete and not facts[name].outside
            and facts[name].takes(free) and is_installed(name)]


def local_search_budget(problem: Problem, policy: Policy = POLICY) -> float | None:
    """Seconds for local search, or None to skip it."""
    if (problem.n < policy.local_search_from_n or free_rows(problem) < policy.local_search_min_free_rows
            or not is_installed(policy.local_search)):
        return None
    return policy.local_search_base_s + policy.local_search_per_queen_s * problem.n


def solve_auto(problem: Problem, limits: Limits, seed: int | None, policy: Policy = POLICY) -> Result:
    stages: list[dict[str, Any]] = []

    def run(name: str, stage_limits: Limits) -> Result:
        options = options_for(name, policy.backend_options.get(name, {}))
        # Timed here, not taken from the backend's stats: not every backend reports its time, and a
        # stage's time includes the certificate check.
        began = time.perf_counter()
        result = run_backend(name, problem, stage_limits, seed, options)
        stages.append({"solver": name, "status": result.status.value,
                       "seconds": round(time.perf_counter() - began, 6),
                       **({REASON: result.stats[REASON]} if REASON in result.stats else {})})
        return result

    def finish(result: Result) -> Result:
        return result.with_stats({STAGES: stages})

    result = run("construct", limits)
    if result.status is Status.SAT:
        return finish(result)

    order = complete_backends(problem, policy)
    if order:
        try:
            need_residual_memory(problem, limits)
        except Unfinished as exc:
            # Every complete backend works on the residual board: none can start.
            stages.append({"solver": ", ".join(order), "status": "UNKNOWN", REASON: exc.reason})
            order = []
    budget = local_search_budget(problem, policy)
    if budget is not None:
        startup = getattr(get_solver(policy.local_search), "startup_s", None)
        budget += startup() if startup is not None else 0.0
        result = run(policy.local_search, limits if not order else limits.within(budget))
        if result.status is Status.SAT:
            return finish(result)

    claims: list[Result] = []
    for name in order:
        if limits.expired():
            break
        result = run(name, limits)
        if result.status is Status.UNKNOWN:
            continue
        if result.status is Status.SAT:
            if claims:
                raise InternalSolverError(_disagreement(problem, claims, result))
            return finish(result)
        if result.certificate is not None and result.certificate.checked:
            return finish(result)
        claims.append(result)
        if len(claims) >= 2:
            return finish(_agreement(problem, claims))
    reason = _why_undecided(limits, claims, stages)
    return finish(Result(problem, Status.UNKNOWN, "auto",
                         stats={REASON: reason, STAGE: "search" if not claims else "confirm"}))


def _agreement(problem: Problem, claims: list[Result]) -> Result:
    """Two complete backends that the portfolio ran both claim UNSAT: each claim is the other's check."""
    certificate = Certificate(
        AGREEMENT,
        checked_by=tuple(r.solver for r in claims),
        details={"claims": [{"solver": r.solver, "kind": r.certificate.kind if r.certificate else None,
                             **(r.certificate.details if r.certificate else {})} for r in claims]},
    )
    return Result(problem, Status.UNSAT, "+".join(r.solver for r in claims), certificate=certificate,
                  stats=dict(claims[-1].stats))


def _disagreement(problem: Problem, unsat: list[Result], sat: Result) -> str:
    names = ", ".join(r.solver for r in unsat)
    return (f"backends disagree on {problem}: {names} answered UNSAT but {sat.solver} found a "
            f"solution {sat.columns.tolist() if sat.columns is not None and problem.n <= 64 else ''}")


def _why_undecided(limits: Limits, claims: list[Result], stages: list[dict[str, Any]]) -> str:
    if claims:
        first = claims[0]
        details = first.certificate.details if first.certificate is not None else {}
        # The claim's own account (what the decision took, why its proof went unchecked), then the
        # stages that tried to confirm it.
        said = [str(details.get("unchecked") or f"{first.solver} answered UNSAT")]
        if details.get("no_proof"):
            said.append(f"no proof: {details['no_proof']}")
        claimed_at = next((at for at, stage in enumerate(stages)
                           if stage["solver"] == first.solver and stage["status"] == "UNSAT"), len(stages))
        said += [f"{stage['solver']}: {stage[REASON]}" for stage in stages[claimed_at + 1:]
                 if REASON in stage]
        tail = f" ({time_limit_reason('confirm', limits.time_limit)})" if limits.expired() else ""
        return "; ".join(said) + "; no second method confirmed it" + tail
    if limits.expired():
        return time_limit_reason("search", limits.time_limit)
    said = [f"{stage['solver']}: {stage[REASON]}" for stage in stages if REASON in stage]
    return "; ".join(said) if said else "no complete backend is installed that takes this board"
