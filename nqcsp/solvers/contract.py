"""Running one backend under the protocol. Both ``nqcsp.solve`` and the portfolio call backends only here.

What a backend answers is checked for form (a ``Result`` of this problem, queens a 1-D integer array of
length n, UNSAT only from a complete backend and only with a certificate, UNKNOWN with a reason); a broken
form is an ``InternalSolverError`` naming the backend, never "bad input". UNSAT certificates are re-checked
by ``nqcsp.proof.certify``; a backend that writes its proof as it searches writes it into a ``ProofChannel``
opened here for the call, whose verdict and evidence are certify's, not the backend's. SAT answers are
verified once, by ``nqcsp.solve``, after this. An exception from a backend is a bug
(``InternalSolverError``), except ``InputError``: bad input only the backend could see.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import numpy as np

from nqcsp.board.problem import Problem
from nqcsp.board.result import InputError, InternalSolverError, Result, Status
from nqcsp.proof.certify import ProofChannel, recheck_with
from nqcsp.runtime.limits import Limits, Unfinished
from nqcsp.solvers import get_solver, spec
from nqcsp.solvers.base import REASON, SOLVE_S, STAGE


def unfinished_result(problem: Problem, solver: str, exc: Unfinished, **stats: Any) -> Result:
    return Result(problem, Status.UNKNOWN, solver, stats={REASON: exc.reason, STAGE: exc.stage, **stats})


def run_backend(name: str, problem: Problem, limits: Limits, seed: int | None,
                options: dict[str, Any]) -> Result:
    """One backend's answer, its form enforced and its certificate re-checked; UNKNOWN when a stage
    could not finish within ``limits``. ``options`` are already resolved against the backend's schema."""
    backend = get_solver(name)
    channel = ProofChannel(problem, limits) if spec(name).writes_proofs else None
    started = time.perf_counter()
    try:
        try:
            result = backend.solve(problem, limits=limits, seed=seed, **options,
                                   **({"proofs": channel} if channel is not None else {}))
        except Unfinished as exc:
            return unfinished_result(problem, name, exc, solve_s=time.perf_counter() - started)
        except (InputError, KeyboardInterrupt, InternalSolverError):
            raise
        except MemoryError:
            # The backend's estimate before allocating was too low: a defect to fix, but still no answer.
            return Result(problem, Status.UNKNOWN, name,
                          stats={REASON: f"memory: {name} ran out of memory although its estimate fitted",
                                 STAGE: "search"})
        except Exception as exc:
            raise InternalSolverError(
                f"solver {name!r} failed on {problem}: {type(exc).__name__}: {exc}") from exc
        return enforce(name, problem, result, limits, channel)
    finally:
        if channel is not None:
            channel.release()


def enforce(name: str, problem: Problem, result: object, limits: Limits,
            channel: ProofChannel | None = None) -> Result:
    if not isinstance(result, Result):
        raise InternalSolverError(f"solver {name!r} answered {type(result).__name__}, not a Result")
    if result.problem != problem:
        raise InternalSolverError(f"solver {name!r} answered for {result.problem}, not for {problem}")
    if result.status is Status.SAT:
        queens = result.columns
        if not isinstance(queens, np.ndarray) or queens.ndim != 1 or queens.dtype.kind not in "iu" \
                or len(queens) != problem.n:
            raise InternalSolverError(f"solver {name!r} answered SAT without one integer column per row "
                                      f"(got {type(queens).__name__} {getattr(queens, 'shape', '')})")
        return result
    if result.status is Status.UNSAT:
        if not spec(name).complete:
            raise InternalSolverError(f"incomplete solver {name!r} answered UNSAT for {problem}")
        if result.certificate is None:
            raise InternalSolverError(f"solver {name!r} answered UNSAT without a certificate for {problem}")
        try:
            certificate = recheck_with(problem, result.certificate, limits, channel)
        except Unfinished as exc:
            # Still a complete backend's claim (a second one may confirm it), with why it is not checked:
            # what the decision took and what the check would need.
            decided = result.stats.get(SOLVE_S)
            took = f" in {decided:.2g} s" if isinstance(decided, (int, float)) else ""
            why = f"{name} decided UNSAT{took}; {exc.reason}"
            certificate = replace(result.certificate, checked_by=(),
                                  details={**result.certificate.details, "unchecked": why})
            return Result(problem, Status.UNSAT, result.solver, certificate=certificate,
                          stats={**result.stats, REASON: why, STAGE: exc.stage})
        return Result(problem, Status.UNSAT, result.solver, certificate=certificate, stats=result.stats)
    if result.status is Status.UNKNOWN:
        return result if REASON in result.stats else result.with_stats({REASON: "gave up"})
    raise InternalSolverError(f"solver {name!r} answered the status {result.status!r}")
