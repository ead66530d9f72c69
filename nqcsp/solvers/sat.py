"""SAT backend (complete): the CNF of ``nqcsp.cnf`` solved by any PySAT solver; DRAT proofs on UNSAT.

Two configurations, chosen from ``benchmarks/results/sat.md``:

- **search** (finding a solution): native at-most-one constraints in minicard, guided by a hint. The hint
  is the closed-form solution with the mandatory queens swapped in; it has a few attacked queens. The
  solver is called with the unattacked hint queens as assumptions, minus a random sample of rows it may
  re-place; when that fails, the sample grows until no assumption is left, which is the plain, complete
  call. Only that last call may conclude UNSAT.
- **proof** (a certified UNSAT): a clausal encoding in a proof-producing solver (CaDiCaL 1.9.5 by default),
  one call without assumptions, its DRAT proof checked by ``nqcsp.drat.check_drat`` against exactly the
  clauses the solver was given. No check, no UNSAT: a rejected proof gives UNKNOWN with the reason.

``proof="auto"`` (default) searches first and, only when the search answers UNSAT, proves it in proof
configuration. ``proof=True`` goes straight to the proof configuration; ``proof=False`` never proves, so
an UNSAT claim becomes UNKNOWN.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

from nqcsp.cnf import NATIVE, Formula, check_encoding, clauses_dimacs, encode
from nqcsp.construction import permutation_near
from nqcsp.limits import Limits
from nqcsp.problem import Problem
from nqcsp.result import Certificate, InputError, InternalSolverError, Result, Status, columns_array
from nqcsp.solvers.base import Clock

SEARCH_SOLVER = "minicard"
SEARCH_ENCODING = NATIVE
PROOF_SOLVER = "cadical195"
PROOF_ENCODING = "commander"
# Solvers whose DRAT proofs dratify accepted on every blockade cell up to n = 12 (benchmarks/sat.py).
PROOF_SOLVERS = ("cadical103", "cadical153", "cadical195", "cadical300", "ergo", "gluecard3", "gluecard4",
                 "glucose3", "glucose4", "glucose42", "lingeling", "maplechrono")
# Proofs that exist but are wrong, found on the blockade cells of n = 4 and 6.
BROKEN_PROOF_SOLVERS = {
    "maplesat": "its DRAT proofs are broken (they name the wrong variables)",
    "maplecm": "its DRAT proofs are broken (about half stop before the empty clause)",
}
# Solvers that ignore assumptions, so the hint cannot guide them.
NO_ASSUMPTIONS = ("kissat404",)
# Rows the hint leaves free at first, besides its attacked queens; the sample grows this factor per try.
REPAIR_FIRST_SAMPLE = 32
REPAIR_GROWTH = 4


def canonical_solver_name(name: object) -> str:
    """The PySAT solver called ``name`` (aliases such as ``g4`` accepted); ValueError names unknown ones."""
    from pysat.solvers import SolverNames

    if not isinstance(name, str):
        raise TypeError(f"sat_solver must be a PySAT solver name (str), got {name!r}")
    for canonical, aliases in vars(SolverNames).items():
        if not canonical.startswith("_") and name.lower() in aliases:
            return canonical
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


def new_solver(name: str, clauses: list[list[int]], formula: Formula, with_proof: bool = False) -> Any:
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
    if not formula.clausal:
        try:
            for line in formula.atmosts():
                solver.add_atmost(line, 1)
        except NotImplementedError:
            solver.delete()
            raise InputError(f"SAT solver {name!r} has no native cardinality constraints "
                             f"(encoding 'native'); use minicard, gluecard3 or gluecard4") from None
    return solver


def run_solver(solver: Any, assumptions: Sequence[int], clock: Clock) -> bool | None:
    """True, False, or None when the time limit ran out first."""
    remaining = clock.remaining()
    if remaining is None:
        return solver.solve(assumptions=assumptions)
    if remaining <= 0:
        return None
    try:
        solver.clear_interrupt()
    except NotImplementedError:
        return run_with_budget(solver, assumptions, clock)
    timer = threading.Timer(remaining, solver.interrupt)
    timer.start()
    try:
        return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        timer.cancel()
        solver.clear_interrupt()


def run_with_budget(solver: Any, assumptions: Sequence[int], clock: Clock) -> bool | None:
    """For solvers that cannot be interrupted (CaDiCaL): growing conflict budgets, the clock between.

    A solver without budgets either (Lingeling) runs to the end: the time limit cannot stop it.
    """
    budget = 1000
    while not clock.expired():
        try:
            solver.conf_budget(budget)
            status = solver.solve_limited(assumptions=assumptions)
        except NotImplementedError:
            return solver.solve(assumptions=assumptions)
        if status is not None:
            return status
        budget *= 2
    return None


def queens_of_model(model: Sequence[int], n: int) -> np.ndarray:
    """Columns by row from the true cell variables of a model."""
    cells = np.asarray(model[: n * n], dtype=np.int64)
    true_cells = cells[cells > 0] - 1
    if len(true_cells) != n:
        raise InternalSolverError(f"SAT model places {len(true_cells)} queens on an n = {n} board")
    cols = np.full(n, -1, dtype=np.int64)
    cols[true_cells // n] = true_cells % n
    return cols


def attacked_rows(cols: np.ndarray) -> np.ndarray:
    """Rows whose queen shares a diagonal with another queen of the permutation ``cols``."""
    n = len(cols)
    rows = np.arange(n)
    attacked = np.zeros(n, dtype=bool)
    for key in (cols + rows, cols - rows + n):
        attacked |= np.bincount(key, minlength=2 * n)[key] > 1
    return np.flatnonzero(attacked)


@dataclass
class Outcome:
    """What one configuration concluded: True/False/None (gave up), the queens, and measurements."""

    status: bool | None
    queens: np.ndarray | None
    stats: dict[str, Any]
    certificate: Certificate | None = None


def search(problem: Problem, encoding: str, sat_solver: str, hint: bool, clock: Clock,
           seed: int | None) -> Outcome:
    """The search configuration: decide satisfiability, no proof."""
    n = problem.n
    stats: dict[str, Any] = {"encoding": encoding, "sat_solver": sat_solver}
    formula = encode(problem, encoding)
    with gc_paused():
        clauses = formula.clauses()
    stats.update(cnf_vars=formula.num_vars, cnf_clauses=formula.num_clauses,
                 native_atmost=sum(len(lines) for lines in formula.atmost_lines), encode_s=clock.elapsed())
    solver = new_solver(sat_solver, clauses, formula)
    del clauses
    stats["load_s"] = clock.elapsed() - stats["encode_s"]
    try:
        status = None
        if hint and n >= 4 and sat_solver not in NO_ASSUMPTIONS:
            status, tries = repair_hint(problem, solver, clock, seed)
            stats["hint_tries"] = tries
        if status is None and not clock.expired():
            status = run_solver(solver, [], clock)
        queens = queens_of_model(solver.get_model(), n) if status else None
        stats.update(solver_stats(solver))
    finally:
        solver.delete()
    stats["solve_s"] = clock.elapsed() - stats["encode_s"] - stats["load_s"]
    return Outcome(status, queens, stats)


def repair_hint(problem: Problem, solver: Any, clock: Clock, seed: int | None) -> tuple[bool | None, int]:
    """Solve under the hint's unattacked queens as assumptions, freeing more rows after each failure.

    Answers True when a solution was found, None otherwise (a failure under assumptions proves nothing).
    """
    n = problem.n
    cols = permutation_near(problem)
    rng = np.random.default_rng(seed)
    attacked = attacked_rows(cols)
    keep_rows = np.ones(n, dtype=bool)
    keep_rows[[row for row, _ in problem.queens]] = False  # unit clauses already
    sample = REPAIR_FIRST_SAMPLE
    tries = 0
    while sample < n and not clock.expired():
        tries += 1
        keep = keep_rows.copy()
        keep[attacked] = False
        keep[rng.choice(n, size=sample, replace=False)] = False
        rows = np.flatnonzero(keep)
        assumptions = (rows * n + cols[rows] + 1).tolist()
        if run_solver(solver, assumptions, clock):
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


def prove(problem: Problem, encoding: str, sat_solver: str, clock: Clock) -> Outcome:
    """The proof configuration: one call of a proof-producing solver; UNSAT only with a checked proof."""
    from nqcsp.drat import check_drat

    n = problem.n
    stats: dict[str, Any] = {"proof_encoding": encoding, "proof_sat_solver": sat_solver}
    started = clock.elapsed()
    formula = encode(problem, encoding)
    clauses = formula.clauses()
    solver = new_solver(sat_solver, clauses, formula, with_proof=True)
    try:
        status = run_solver(solver, [], clock)
        queens = queens_of_model(solver.get_model(), n) if status else None
        proof = solver.get_proof() if status is False else None
        stats.update({f"proof_{k}": v for k, v in solver_stats(solver).items()})
    finally:
        solver.delete()
    stats["proof_solve_s"] = clock.elapsed() - started
    if status is not False:
        return Outcome(status, queens, stats)
    if proof is None:
        stats["reason"] = f"{sat_solver} answered UNSAT but gave no proof"
        return Outcome(None, None, stats)
    verdict = check_drat(clauses, proof, formula.num_vars)
    stats["check_s"] = clock.elapsed() - started - stats["proof_solve_s"]
    if not verdict.ok:
        stats["reason"] = f"{sat_solver} answered UNSAT but its DRAT proof was rejected: {verdict.reason}"
        return Outcome(None, None, stats)
    proof_bytes = "".join(line + "\n" for line in proof).encode("ascii")
    details = {
        "cnf": clauses_dimacs(clauses, formula.num_vars).encode("ascii"),
        "proof": proof_bytes,
        "encoding": encoding,
        "sat_solver": sat_solver,
        "cnf_vars": formula.num_vars,
        "cnf_clauses": len(clauses),
        "proof_lines": len(proof),
        "proof_bytes": len(proof_bytes),
        **verdict.stats,
    }
    return Outcome(False, None, stats, Certificate("drat", ("dratify",), details))


class SatSolver:
    """Options: ``encoding`` (see ``nqcsp.cnf.ENCODINGS``), ``sat_solver`` (a PySAT name), ``proof``
    (``"auto"``, True, False), ``hint`` (bool, search configuration only). ``seed`` drives the hint's
    row sample; the SAT solvers themselves are deterministic.
    """

    name = "sat"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              **options: Any) -> Result:
        proof, hint = options["proof"], options["hint"]
        encoding, sat_solver = options["encoding"], options["sat_solver"]
        clock = Clock(limits)

        if proof is True:
            proof_solver, proof_encoding = self.proof_configuration(encoding, sat_solver, strict=True)
            outcome = prove(problem, proof_encoding, proof_solver, clock)
            return self.result(problem, outcome, clock)

        outcome = search(problem, encoding or SEARCH_ENCODING, sat_solver or SEARCH_SOLVER, hint, clock, seed)
        if outcome.status is not False:
            return self.result(problem, outcome, clock)
        if proof is False:
            outcome.stats["reason"] = (f"{outcome.stats['sat_solver']} answered UNSAT; no proof was asked "
                                       f"for (proof=False)")
            outcome.status = None
            return self.result(problem, outcome, clock)
        proof_solver, proof_encoding = self.proof_configuration(encoding, sat_solver, strict=False)
        proven = prove(problem, proof_encoding, proof_solver, clock)
        if proven.status:
            raise InternalSolverError(f"{outcome.stats['sat_solver']} answered UNSAT for {problem}, "
                                      f"{proof_solver} found a solution")
        proven.stats = {**outcome.stats, **proven.stats}
        return self.result(problem, proven, clock)

    @staticmethod
    def proof_configuration(encoding: str | None, sat_solver: str | None, strict: bool) -> tuple[str, str]:
        """Solver and encoding for a proof. ``strict``: the caller's choices must be fit for proofs;
        otherwise unfit ones (chosen for the search) are replaced by the proof defaults."""
        if strict:
            if sat_solver is not None:
                check_proof_solver(sat_solver)
            if encoding == NATIVE:
                raise InputError("encoding 'native' gives no DRAT proof; choose a clausal encoding "
                                 "(or proof=False)")
        solver = sat_solver if sat_solver in PROOF_SOLVERS else PROOF_SOLVER
        clausal = encoding if encoding not in (None, NATIVE) else PROOF_ENCODING
        return solver, clausal

    def result(self, problem: Problem, outcome: Outcome, clock: Clock) -> Result:
        stats = dict(outcome.stats)
        stats["total_s"] = clock.elapsed()
        if outcome.status is True:
            return Result(problem, Status.SAT, self.name, columns=columns_array(outcome.queens, problem.n),
                          stats=stats)
        if outcome.status is False:
            return Result(problem, Status.UNSAT, self.name, certificate=outcome.certificate, stats=stats)
        stats.setdefault("reason", "time limit reached")
        return Result(problem, Status.UNKNOWN, self.name, stats=stats)


# --- enumeration ----------------------------------------------------------------------------------------


def enumerate_solutions(problem: Problem, encoding: str = "seqcounter", sat_solver: str = PROOF_SOLVER,
                        limit: int | None = None) -> Iterator[np.ndarray]:
    """Every solution once, by blocking each found one (its n true cells) with a clause.

    Complete: the enumeration ends when the solver answers UNSAT for the formula plus blocking clauses.
    """
    n = problem.n
    if problem.attack is not None:
        return
    if n == 0:
        yield np.zeros(0, dtype=np.int64)
        return
    formula = encode(problem, check_encoding(encoding))
    solver = new_solver(canonical_solver_name(sat_solver), formula.clauses(), formula)
    found = 0
    try:
        while (limit is None or found < limit) and solver.solve():
            cols = queens_of_model(solver.get_model(), n)
            found += 1
            yield cols
            solver.add_clause((-(np.arange(n) * n + cols + 1)).tolist())
    finally:
        solver.delete()


def count_solutions(problem: Problem, encoding: str = "seqcounter", sat_solver: str = PROOF_SOLVER) -> int:
    return sum(1 for _ in enumerate_solutions(problem, encoding, sat_solver))
