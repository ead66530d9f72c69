"""SAT backend (complete): the residual board (``nqcsp.board.residual``) searched by a fast CNF, UNSAT proven
on the reference statement (``nqcsp.proof.statement``).

- **search**: the residual board under a fast cardinality encoding (native at-most-ones in minicard by
  default, or any encoding of ``nqcsp.solvers.cnf``), guided by a hint: the closed-form solution with the
  mandatory queens swapped in, its unattacked free-row queens as assumptions minus a random sample of
  rows it may re-place; the sample grows until no assumption is left, which is the plain, complete call.
  A model is lifted back to the full board with ``Residual.lift``.
- **proof**: a proof-producing solver (CaDiCaL 1.9.5 by default) on the reference CNF of the residual
  board itself, with no auxiliary variables: the statement a reader can audit. Its DRAT proof goes into a
  ``Certificate("drat", ...)`` with the CNF and proof bytes; the backend does not check it:
  ``nqcsp.proof.certify`` does, once, after rebuilding the reference CNF from the problem.

``proof="auto"`` (default) searches first and proves only an UNSAT. If the reference CNF then has a model,
the fast encoder was wrong: that is raised as ``InternalSolverError`` naming both (the project's rule for
two complete methods that disagree), never answered as UNSAT. ``proof=True`` goes straight to the proof
(``encoding`` is then refused: the proof is always on the reference CNF); ``proof=False`` never proves,
so an UNSAT claim becomes UNKNOWN.

Every stage checks the call's ``Limits``: the formula's size is estimated before it is built ("build"),
the search and the proof run against the deadline ("search", "prove"; CaDiCaL cannot be interrupted, so
it runs in growing conflict budgets with the clock checked between them).
"""

from __future__ import annotations

import gc
import importlib.util
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.construction import permutation_near
from nqcsp.board.problem import Problem
from nqcsp.board.residual import RESIDUAL_S_PER_CELL, Residual, need_residual_memory, residual_of
from nqcsp.board.result import Certificate, InputError, InternalSolverError, Result, Status, columns_array
from nqcsp.proof.certify import attack_certificate, empty_line_certificate
from nqcsp.proof.statement import (
    REFERENCE_BYTES_PER_CLAUSE,
    REFERENCE_SECONDS_PER_CLAUSE,
    VERSION,
    reference_clauses_at_least,
    reference_cnf,
    reference_size,
)
from nqcsp.runtime.lazy import MissingDependency, pip_extra
from nqcsp.runtime.limits import Limits, OutOfTime, time_limit_reason
from nqcsp.solvers.base import BUILD_S, PROVE_S, REASON, SEARCH_S, SOLVE_S, Clock
from nqcsp.solvers.cnf import (
    BYTES_PER_LITERAL,
    LOAD_S_PER_LITERAL,
    NATIVE,
    SECONDS_PER_LITERAL,
    Formula,
    encode_residual,
    residual_literals,
)

SEARCH_SOLVER = "minicard"
SEARCH_ENCODING = NATIVE
CLAUSAL_SEARCH_ENCODING = "commander"
NATIVE_SOLVERS = ("minicard", "gluecard3", "gluecard4")
PROOF_SOLVER = "cadical195"
# Solvers whose DRAT proofs dratify accepted on every blockade cell up to n = 12 (benchmarks/sat.py).
PROOF_SOLVERS = ("cadical103", "cadical153", "cadical195", "cadical300", "ergo", "gluecard3", "gluecard4",
                 "glucose3", "glucose4", "glucose42", "lingeling", "maplechrono")
# Proofs that exist but are wrong, found on the blockade cells of n = 4 and 6.
BROKEN_PROOF_SOLVERS = {
    "maplesat": "its DRAT proofs are broken (they name the wrong variables)",
    "maplecm": "its DRAT proofs are broken (about half stop before the empty clause)",
}
# Solvers that PySAT reaches through a Python package of their own, with the extra that installs it. PySAT
# only asserts that the package is there when the solver is made (an AssertionError, which would be
# reported as a bug), so the option's check asks first.
SOLVER_PACKAGES = {"cryptosat": ("pycryptosat", "field")}
# Solvers that ignore assumptions, so the hint cannot guide them.
NO_ASSUMPTIONS = ("kissat404",)
# Solvers that PySAT can run only once (Kissat aborts the whole process on a second call: "incremental
# solving not supported"): each conflict budget then runs on a fresh copy of the formula.
SINGLE_SHOT = ("kissat404",)
# Rows the hint leaves free at first, besides its attacked queens; the sample grows this factor per try.
REPAIR_FIRST_SAMPLE = 32
REPAIR_GROWTH = 4
# Counting the reference CNF's clauses: a few numpy passes over the residual's cells.
SIZE_S_PER_CELL = 6e-8
# Literals of a clausal search encoding relative to the native one (commander and the counters add
# auxiliary variables; totalizers more).
CLAUSAL_FACTOR = 4


def canonical_solver_name(name: object) -> str:
    """The PySAT solver called ``name`` (aliases such as ``g4`` accepted); ValueError names unknown ones,
    MissingDependency the extra of one whose package is not installed (CryptoMiniSat's)."""
    from pysat.solvers import SolverNames

    if not isinstance(name, str):
        raise TypeError(f"sat_solver must be a PySAT solver name (str), got {name!r}")
    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and name.lower() in (canonical, *aliases):
            package, extra = SOLVER_PACKAGES.get(canonical, (None, ""))
            if package is not None and importlib.util.find_spec(package) is None:
                raise MissingDependency(f"SAT solver {name!r} needs the Python package {package!r}, which is "
                                        f"not installed: {pip_extra(extra)}")
            # PySAT's own key is not always one of the names its Solver takes (CryptoMiniSat's
            # "cryptosat" is not): then its last alias, which it takes.
            return canonical if canonical in aliases else aliases[-1]
    known = ", ".join(k for k in vars(SolverNames) if not k.startswith("_"))
    raise ValueError(f"unknown SAT solver {name!r}; PySAT knows: {known}")


def check_proof_solver(name: str) -> None:
    if name in BROKEN_PROOF_SOLVERS:
        raise InputError(f"SAT solver {name!r} cannot prove UNSAT here: {BROKEN_PROOF_SOLVERS[name]}; "
                         f"use one of {', '.join(PROOF_SOLVERS)}")
    if name not in PROOF_SOLVERS:
        raise InputError(f"SAT solver {name!r} gives no checkable DRAT proof; "
                         f"use one of {', '.join(PROOF_SOLVERS)} (or proof=False)")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Millions of small clause lists make the cyclic GC rescan them again and again; none form cycles."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def new_solver(name: str, clauses: Sequence[Sequence[int]], formula: Formula | None,
               with_proof: bool = False) -> Any:
    """A PySAT solver loaded with ``clauses`` (and the native at-most-ones of ``formula``)."""
    from pysat.solvers import NoSuchSolverError, Solver

    extra = {"with_proof": True} if with_proof else {}
    try:
        with gc_paused():
            solver = Solver(name=name, bootstrap_with=clauses, **extra)
    except NoSuchSolverError:
        raise InputError(f"SAT solver {name!r} is not built into this PySAT installation") from None
    except NotImplementedError as exc:
        raise InputError(f"SAT solver {name!r}: {exc}") from None
    if formula is not None and not formula.clausal:
        try:
            for line in formula.atmosts():
                solver.add_atmost(line, 1)
        except NotImplementedError:
            solver.delete()
            raise InputError(f"SAT solver {name!r} has no native cardinality constraints "
                             f"(encoding 'native'); use minicard, gluecard3 or gluecard4") from None
    return solver


def run_solver(solver: Any, assumptions: Sequence[int], clock: Clock,
               renew: Callable[[], Any] | None = None) -> bool | None:
    """True, False, or None when the time limit ran out first. ``renew`` (for a solver of SINGLE_SHOT)
    returns a fresh solver loaded with the same formula, for each conflict budget after the first."""
    remaining = clock.remaining()
    if remaining is None:
        return solver.solve(assumptions=assumptions)
    if remaining <= 0:
        return None
    try:
        solver.clear_interrupt()
    except NotImplementedError:
        return run_with_budget(solver, assumptions, clock, renew)
    timer = threading.Timer(remaining, solver.interrupt)
    timer.start()
    try:
        return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        timer.cancel()
        solver.clear_interrupt()


def run_with_budget(solver: Any, assumptions: Sequence[int], clock: Clock,
                    renew: Callable[[], Any] | None = None) -> bool | None:
    """For solvers that cannot be interrupted (CaDiCaL): growing conflict budgets, the clock between.

    Each budget doubles the last but is capped by the conflicts the last one's rate fits into half the
    time left, so the final, uninterruptible round cannot run far past the deadline. A solver without
    budgets either (Lingeling) runs to the end: the time limit cannot stop it.
    """
    budget = 1000
    first = True
    while not clock.expired():
        started = time.perf_counter()
        if not first and renew is not None:
            solver = renew()
        first = False
        try:
            solver.conf_budget(budget)
            # CryptoMiniSat takes a time limit too, and refuses a call without one.
            time_budget = getattr(getattr(solver, "solver", None), "time_budget", None)
            if time_budget is not None:
                time_budget(max(clock.remaining() or 0.0, 1e-3))
            status = solver.solve_limited(assumptions=assumptions)
        except NotImplementedError:
            return solver.solve(assumptions=assumptions)
        if status is not None:
            return status
        rate = budget / max(time.perf_counter() - started, 1e-6)
        budget = int(max(100, min(2 * budget, rate * (clock.remaining() or 0.0) / 2)))
    return None


def attacked_rows(cols: np.ndarray) -> np.ndarray:
    """Rows whose queen shares a diagonal with another queen of the permutation ``cols``."""
    n = len(cols)
    rows = np.arange(n)
    attacked = np.zeros(n, dtype=bool)
    for key in (cols + rows, cols - rows + n):
        attacked |= np.bincount(key, minlength=2 * n)[key] > 1
    return np.flatnonzero(attacked)


@dataclass
class SatAnswer:
    """What one SAT solver run (the search, or the proof on the reference statement) concluded: True,
    False or None (gave up), the full board's queens, and measurements."""

    status: bool | None
    queens: np.ndarray | None
    stats: dict[str, Any] = field(default_factory=dict)
    certificate: Certificate | None = None


def sized_reference(residual: Residual, limits: Limits, stage: str, bytes_per_clause: float,
                    seconds_per_clause: float) -> tuple[int, int]:
    """``reference_size``, counted only after a lower bound known at once (at n = 4000 the count takes
    seconds, while the formula would need terabytes) and the count itself fit the limits."""
    at_least = reference_clauses_at_least(residual)
    what = f"the reference CNF of the {residual.size}-row residual board (at least {at_least} clauses)"
    limits.need_memory(stage, bytes_per_clause * at_least, what)
    limits.need_time(stage, seconds_per_clause * at_least)
    limits.need_time(stage, SIZE_S_PER_CELL * residual.cell_count)
    return reference_size(residual)


def search_estimate(residual: Residual, encoding: str, limits: Limits) -> int:
    """Literals of the search formula, estimated before it is built."""
    if encoding == "pairwise":
        # Two literals per clause.
        return 2 * sized_reference(residual, limits, "build", 2 * BYTES_PER_LITERAL,
                                   2 * SECONDS_PER_LITERAL)[1]
    return residual_literals(residual) * (1 if encoding == NATIVE else CLAUSAL_FACTOR)


def lift_model(residual: Residual, model: Sequence[int]) -> np.ndarray:
    """The full board's columns from a model whose variables 1..cells are ``residual.cells()``."""
    cells = residual.cells()
    values = np.asarray(model[: len(cells)], dtype=np.int64)
    true_cells = cells[values > 0]
    if len(true_cells) != residual.size or not np.array_equal(true_cells[:, 0], residual.rows):
        raise InternalSolverError(f"a SAT model places {len(true_cells)} queens on the {residual.size} free "
                                  f"rows of {residual.problem}, not one per row")
    return residual.lift(true_cells[:, 1])


def search(residual: Residual, encoding: str, sat_solver: str, hint: bool, limits: Limits,
           seed: int | None) -> SatAnswer:
    """Decide the residual board with a fast encoding; no proof."""
    started = time.perf_counter()
    literals = search_estimate(residual, encoding, limits)
    what = f"the {encoding} CNF of the {residual.size}-row residual board ({literals} literals)"
    limits.need_memory("build", BYTES_PER_LITERAL * literals, what)
    limits.need_time("build", SECONDS_PER_LITERAL * literals)
    formula = encode_residual(residual, encoding)
    limits.check_time("build")
    with gc_paused():
        clauses = formula.clauses()
    loaded = sum(map(len, clauses)) + sum(lines.size for lines in formula.atmost_lines)
    limits.need_time("build", LOAD_S_PER_LITERAL * loaded)
    current = [new_solver(sat_solver, clauses, formula)]

    def renew() -> Any:
        current[0].delete()
        current[0] = new_solver(sat_solver, clauses, formula)
        return current[0]

    if sat_solver not in SINGLE_SHOT:
        del clauses  # the solver holds its copy; only a single-shot solver needs them again
    stats: dict[str, Any] = {"encoding": encoding, "sat_solver": sat_solver, "cnf_vars": formula.num_vars,
                             "cnf_clauses": formula.num_clauses,
                             "native_atmost": sum(len(lines) for lines in formula.atmost_lines)}
    try:
        limits.check_time("build")
        stats[BUILD_S] = time.perf_counter() - started
        clock = Clock(limits)
        status = None
        if hint and residual.size >= 4 and sat_solver not in NO_ASSUMPTIONS:
            status, stats["hint_tries"] = repair_hint(residual, current[0], clock, seed)
        if status is None:
            status = run_solver(current[0], [], clock, renew if sat_solver in SINGLE_SHOT else None)
        queens = lift_model(residual, current[0].get_model()) if status else None
        stats.update(solver_stats(current[0]))
    finally:
        current[0].delete()
    stats[SEARCH_S] = clock.elapsed()
    if status is None:
        raise OutOfTime("search", time_limit_reason("search", limits.time_limit))
    return SatAnswer(status, queens, stats)


def repair_hint(residual: Residual, solver: Any, clock: Clock, seed: int | None) -> tuple[bool | None, int]:
    """Solve under the hint's unattacked free-row queens as assumptions, freeing more rows after each
    failure. True when a solution was found, None otherwise (a failure under assumptions proves nothing)."""
    problem = residual.problem
    n = problem.n
    full = permutation_near(problem)
    cells = residual.cells()
    keys = cells[:, 0] * n + cells[:, 1]  # row-major cells: ascending keys
    wanted = residual.rows * n + full[residual.rows]
    where = np.searchsorted(keys, wanted)
    found = (where < len(keys)) & (keys[np.minimum(where, len(keys) - 1)] == wanted)
    keep_rows = found.copy()
    keep_rows[np.isin(residual.rows, attacked_rows(full))] = False
    variables = where + 1
    rng = np.random.default_rng(seed)
    size = residual.size
    sample = REPAIR_FIRST_SAMPLE
    tries = 0
    while sample < size and not clock.expired():
        tries += 1
        keep = keep_rows.copy()
        keep[rng.choice(size, size=sample, replace=False)] = False
        if run_solver(solver, variables[keep].tolist(), clock):
            return True, tries
        sample *= REPAIR_GROWTH
    return None, tries


def solver_stats(solver: Any) -> dict[str, Any]:
    try:
        native = solver.accum_stats() or {}
    except (NotImplementedError, AttributeError):
        return {}
    wanted = ("conflicts", "decisions", "propagations", "restarts")
    return {key: native[key] for key in wanted if key in native}


def prove(residual: Residual, sat_solver: str, limits: Limits) -> SatAnswer:
    """Run a proof-producing solver on the reference CNF: a model (True, lifted), or UNSAT with a ``drat``
    certificate holding the statement and the proof, unchecked (``nqcsp.proof.certify`` checks it)."""
    problem = residual.problem
    started = time.perf_counter()
    num_vars, num_clauses = sized_reference(residual, limits, "prove", REFERENCE_BYTES_PER_CLAUSE,
                                            REFERENCE_SECONDS_PER_CLAUSE)
    limits.need_memory("prove", REFERENCE_BYTES_PER_CLAUSE * num_clauses,
                       f"the reference CNF ({num_vars} variables, {num_clauses} clauses)")
    limits.need_time("prove", REFERENCE_SECONDS_PER_CLAUSE * num_clauses)
    statement = reference_cnf(problem)
    cnf = statement.dimacs()
    limits.check_time("prove")
    solver = new_solver(sat_solver, statement.clauses, None, with_proof=True)
    stats: dict[str, Any] = {"proof_sat_solver": sat_solver}
    try:
        status = run_solver(solver, [], Clock(limits))
        model = solver.get_model() if status else None
        proof = solver.get_proof() if status is False else None
        stats.update({f"proof_{k}": v for k, v in solver_stats(solver).items()})
    finally:
        solver.delete()
    stats[PROVE_S] = time.perf_counter() - started
    if status is None:
        raise OutOfTime("prove", time_limit_reason("prove", limits.time_limit))
    if status:
        if model is None:
            raise InternalSolverError(f"{sat_solver} answered SAT on the reference statement without a model")
        return SatAnswer(True, lift_model(residual, model), stats)
    if proof is None:
        stats[REASON] = f"{sat_solver} answered UNSAT but gave no proof"
        return SatAnswer(None, None, stats)
    proof_bytes = "".join(line + "\n" for line in proof).encode("ascii")
    details = {
        "statement": VERSION,
        "problem": str(problem),
        "n": problem.n,
        "queens": [list(cell) for cell in problem.queens],
        "cnf": cnf,
        "proof": proof_bytes,
        "sat_solver": sat_solver,
        "cnf_vars": num_vars,
        "cnf_clauses": num_clauses,
        "proof_lines": len(proof),
    }
    return SatAnswer(False, None, stats, Certificate("drat", (), details))


class SatSolver:
    """Options: ``encoding`` (search only, see ``nqcsp.solvers.cnf.ENCODINGS``), ``sat_solver`` (a PySAT
    name), ``proof`` (``"auto"``, True, False), ``hint`` (bool, search only). ``seed`` drives the hint's row
    sample; the SAT solvers themselves are deterministic.
    """

    name = "sat"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              **options: Any) -> Result:
        proof, hint = options["proof"], options["hint"]
        encoding, sat_solver = options["encoding"], options["sat_solver"]
        if proof is True:
            if encoding is not None:
                raise InputError(f"encoding {encoding!r} applies to the search; proof=True proves on the "
                                 f"reference CNF of the residual board, which has no encoding to choose")
            if sat_solver is not None:
                check_proof_solver(sat_solver)
        started = time.perf_counter()
        certificate = attack_certificate(problem)
        if certificate is not None:
            return Result(problem, Status.UNSAT, self.name, certificate=certificate)
        need_residual_memory(problem, limits)
        free = problem.free_row_count
        limits.need_time("residual", RESIDUAL_S_PER_CELL * free * free)
        residual = residual_of(problem)
        line = residual.empty_line()
        if line is not None:
            return Result(problem, Status.UNSAT, self.name, certificate=empty_line_certificate(line))
        limits.check_time("build")
        if residual.size == 0:
            return self.result(problem, SatAnswer(True, residual.lift(residual.cols)), started)
        proof_solver = sat_solver if sat_solver in PROOF_SOLVERS else PROOF_SOLVER
        if proof is True:
            return self.result(problem, prove(residual, proof_solver, limits), started)

        search_solver = sat_solver or SEARCH_SOLVER
        # A solver without native cardinality constraints searches the commander encoding by default.
        default_encoding = SEARCH_ENCODING if search_solver in NATIVE_SOLVERS else CLAUSAL_SEARCH_ENCODING
        outcome = search(residual, encoding or default_encoding, search_solver, hint, limits, seed)
        if outcome.status is not False:
            return self.result(problem, outcome, started)
        if proof is False:
            outcome.stats[REASON] = (f"{outcome.stats['sat_solver']} answered UNSAT; no proof was asked "
                                     f"for (proof=False)")
            outcome.status = None
            return self.result(problem, outcome, started)
        proven = prove(residual, proof_solver, limits)
        if proven.status:
            raise InternalSolverError(
                f"the {outcome.stats['encoding']} search CNF of {problem} is wrong: "
                f"{outcome.stats['sat_solver']} found it unsatisfiable, {proof_solver} found a solution "
                f"of the reference CNF")
        proven.stats = {**outcome.stats, **proven.stats}
        return self.result(problem, proven, started)

    def result(self, problem: Problem, outcome: SatAnswer, started: float) -> Result:
        stats = dict(outcome.stats)
        stats[SOLVE_S] = time.perf_counter() - started
        if outcome.status is True:
            return Result(problem, Status.SAT, self.name, columns=columns_array(outcome.queens, problem.n),
                          stats=stats)
        if outcome.status is False:
            return Result(problem, Status.UNSAT, self.name, certificate=outcome.certificate, stats=stats)
        stats.setdefault(REASON, "gave up")
        return Result(problem, Status.UNKNOWN, self.name, stats=stats)
