"""The public entry point: validate, answer trivial cases, dispatch, and verify every answer once."""

from __future__ import annotations

import time
from typing import Any

from nqcsp.board.problem import Problem, Queens, as_problem
from nqcsp.board.residual import need_residual_memory, residual_of
from nqcsp.board.result import InputError, InternalSolverError, Result, Status, columns_array
from nqcsp.proof.certify import attack_certificate, empty_line_certificate, recheck
from nqcsp.proof.verifier import VerificationTimeout, find_violation, marks_bytes
from nqcsp.proof.verifier import startup_s as verifier_startup_s
from nqcsp.runtime.lazy import MissingDependency
from nqcsp.runtime.limits import Limits, OutOfTime, Unfinished, time_limit_reason
from nqcsp.runtime.values import as_int
from nqcsp.solvers import option_owners, options_for, require_installed
from nqcsp.solvers.base import VERIFY_S, WALL_S, resolve_options
from nqcsp.solvers.contract import run_backend, unfinished_result

# The verifier's chunk buffers (int64 rows, columns and line indices of 2^20 queens); its marks:
# ``marks_bytes``.
VERIFY_CHUNK_BYTES = 5 * 8 << 20
# A Problem whose n exceeds this is refused outright: no array of that many queens can be indexed.
MAX_N = 2**62
# The `solver` of an answer the pre-check gave before any backend ran (attacking queens, an empty free
# line, n = 0, every row taken), whichever solver was asked for.
TRIVIAL = "trivial"
# The keywords of ``solve`` besides a backend's options: a near miss of one (``timelimit``) is named.
SOLVE_KEYWORDS = ("queens", "solver", "time_limit", "seed", "memory_limit")


def indexable_problem(n_or_problem: int | Problem, queens: Queens = ()) -> Problem:
    problem = as_problem(n_or_problem, queens)
    if problem.n > MAX_N:
        raise ValueError(f"n = {problem.n} is beyond {MAX_N}, the largest board nqcsp can index")
    return problem


def as_seed(seed: object) -> int | None:
    if seed is None:
        return None
    value = as_int(seed, "seed")
    if not 0 <= value < 2**63:
        raise ValueError(f"seed must be in 0..2**63-1, got {value}")
    return value


def residual_fits(problem: Problem, limits: Limits) -> bool:
    """Whether the dense residual board fits the memory budget. The empty-line pre-check is only a
    shortcut: without room for the residual, local search on the full board still can answer."""
    try:
        need_residual_memory(problem, limits)
    except Unfinished:
        return False
    return True


def trivial_answer(problem: Problem, limits: Limits) -> Result | None:
    """Answers that need no search: attacking mandatory queens, the empty board, a complete placement,
    and a free row or column that the mandatory queens leave without a cell."""
    certificate = attack_certificate(problem)
    if certificate is None and problem.n > 0:
        free = problem.n - len(problem.queen_array)
        # Each mandatory queen attacks at most two free cells of another row (its column is not free):
        # a free line can be empty only when 2 * queens >= free lines.
        if free == 0:
            return Result(problem, Status.SAT, TRIVIAL, columns=columns_array(
                problem.queen_array[:, 1], problem.n))
        if 2 * len(problem.queen_array) >= free and residual_fits(problem, limits):
            line = residual_of(problem).empty_line()
            if line is not None:
                certificate = empty_line_certificate(line)
    if certificate is not None:
        return Result(problem, Status.UNSAT, TRIVIAL, certificate=recheck(problem, certificate, limits))
    if problem.n == 0:
        return Result(problem, Status.SAT, TRIVIAL, columns=columns_array([], 0))
    return None


def verified(result: Result, limits: Limits) -> Result:
    """The one place a SAT answer is verified; an invalid one is a bug and raises."""
    if result.status is not Status.SAT:
        return result
    problem = result.problem
    n = problem.n
    if result.columns is None:
        raise InternalSolverError(f"solver {result.solver!r} answered SAT for {problem} without a solution")
    # The columns stay alive while they are checked: the call's peak is theirs plus the verifier's marks.
    limits.need_memory("verify", marks_bytes(n) + VERIFY_CHUNK_BYTES + result.columns.nbytes,
                       f"checking {n} queens")
    # The check itself looks at the deadline as it goes, so it is not refused on a guess of its speed
    # (a constructed board at 10^8 is checked in 0.4 s, a random one in up to 3 s); only loading its
    # kernel cannot be interrupted.
    limits.need_time("verify", verifier_startup_s(n))
    started = time.perf_counter()
    try:
        violation = find_violation(n, result.columns, problem.queen_array, deadline=limits.deadline)
    except VerificationTimeout:
        raise OutOfTime("verify", time_limit_reason("verification", limits.time_limit)) from None
    if violation is not None:
        raise InternalSolverError(f"solver {result.solver!r} returned an invalid solution for {problem}: "
                                  f"{violation}")
    return result.with_stats({VERIFY_S: time.perf_counter() - started})


def solve(n_or_problem: int | Problem, queens: Queens = (), *, solver: str = "auto",
          time_limit: float | None = None, seed: int | None = None, memory_limit: int | None = None,
          **options: Any) -> Result:
    """Place n non-attacking queens including the mandatory ``queens``.

    SAT answers are always verified; UNSAT answers always carry a certificate, ``certificate.checked``
    when a second method confirmed it. ``solver="auto"`` is the guaranteed path: SAT or a checked UNSAT,
    and UNKNOWN only when ``time_limit`` or ``memory_limit`` (bytes; default: the memory available now)
    does not allow an answer, with ``stats["reason"]`` naming the stage and the figure.

    Bad input raises ValueError or TypeError (a named solver that is not installed: MissingDependency, an
    ImportError) before any work. Once the input is accepted, any other exception is a bug in nqcsp or a
    backend and raises InternalSolverError, never ValueError: only ``InputError`` (bad input that a backend
    can only see while it runs) passes through as the ValueError it is.

    Examples:
        >>> import nqcsp
        >>> r = nqcsp.solve(8, [(0, 3)])
        >>> r.status, r.columns.tolist()
        (<Status.SAT: 'SAT'>, [3, 1, 7, 5, 0, 2, 4, 6])
        >>> u = nqcsp.solve(6, [(0, 0)], time_limit=10)
        >>> u.status, u.certificate.checked
        (<Status.UNSAT: 'UNSAT'>, True)
        >>> nqcsp.solve(8, [(8, 0)])
        Traceback (most recent call last):
        ...
        ValueError: queen (8, 0) is off the 8x8 board (rows and columns are 0..7)
    """
    started = time.perf_counter()
    limits = Limits.start(time_limit, memory_limit)
    problem = indexable_problem(n_or_problem, queens)
    seed_value = as_seed(seed)
    if solver == "auto":
        resolve_options("auto", (), options, SOLVE_KEYWORDS, option_owners())
    else:
        options = options_for(solver, options, SOLVE_KEYWORDS)
        require_installed(solver)
    try:
        result = trivial_answer(problem, limits)
        if result is None:
            if solver == "auto":
                from nqcsp.solvers.portfolio import solve_auto

                result = solve_auto(problem, limits, seed_value)
            else:
                result = run_backend(solver, problem, limits, seed_value, options)
        result = verified(result, limits)
    except Unfinished as exc:
        result = unfinished_result(problem, solver, exc)
    except (InputError, InternalSolverError, MissingDependency, MemoryError):
        raise
    except Exception as exc:
        # The input was accepted above: whatever fails now (a certificate a backend built wrongly, a backend
        # module that cannot be imported, ...) is a defect, and must not reach the caller as "bad input".
        raise InternalSolverError(f"solving {problem} with {solver!r} failed: {type(exc).__name__}: {exc}") \
            from exc
    return result.with_stats({WALL_S: time.perf_counter() - started})


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
