"""The blockade sweep: for every cell of an n x n board, does one mandatory queen there leave a solution?

Every cell is covered up to the board's 8 symmetries: an open cell gets a verified witness, a blocked cell
a checked certificate from ``solve(..., solver="auto")``. A witness covers more than its own cell: each of
its n queens, and of its symmetric images', is an open cell. A task therefore solves only the cells that
its earlier witnesses left uncovered, which makes the sweep cost about n / 8 solves per board instead of
n^2 / 8 (n = 1000: 893 solves for 125,250 classes).

That reuse only works inside one task, so a board is never split: at n = 1000, cutting the board into 300
slices made each slice solve ~190 cells (57,600 solves instead of 893). Small boards are grouped instead,
so that every task (one board, or a run of small ones) costs about a second, the grain a cluster needs.
Tasks run through ``nqcsp.runtime.parallel`` on any ``concurrent.futures.Executor``; boards arrive as they
finish.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell, as_board_size
from nqcsp.board.result import InternalSolverError, Status
from nqcsp.board.symmetry import canonical, canonical_cells, canonical_codes, class_codes, orbit
from nqcsp.runtime.limits import as_time_limit

__all__ = ["BoardSweep", "CellVerdict", "blockades", "canonical", "canonical_cells", "decide_boards",
           "iter_sweep", "orbit", "plan_tasks", "sweep"]

# Target cost of one task, and the cost model it is planned with: a board costs about n^2 * 2e-6 s
# (measured on one core: n = 1000 in 1.4 s, n = 500 in 0.7 s, n = 200 in 0.4 s, where per-solve overhead
# dominates). Below _IN_PROCESS_S of estimated work no pool is started at all.
TASK_SECONDS = 1.0
_SECONDS_PER_CELL = 2e-6
_IN_PROCESS_S = 0.5


@dataclass
class CellVerdict:
    cell: Cell
    status: str
    solver: str
    seconds: float
    certificate: dict[str, Any] | None = None
    witness: tuple[int, ...] | None = None
    covered_by: Cell | None = None      # the cell whose solve found this witness, when not this one


@dataclass
class BoardOutcome:
    """What a task sends back for one board, compact enough for n = 1000 (125,250 classes)."""

    n: int
    codes: np.ndarray                 # class representatives as row * n + col, ascending
    witness_of: np.ndarray            # per class: index of its witness, -1 when not SAT
    witnesses: np.ndarray             # (W, n) columns by row
    sources: list[Cell]               # the cell each witness was solved for
    solvers: list[str]
    solve_seconds: list[float]
    others: list[tuple[int, str, str, float, dict[str, Any] | None]]  # (class, status, solver, s, cert)
    seconds: float                    # worker time spent on this board


@dataclass
class BoardSweep:
    """The answer for one n: every blocked cell, and how each class of cells was decided."""

    n: int
    blocked: list[Cell] = field(default_factory=list)
    blocked_classes: list[Cell] = field(default_factory=list)
    undecided_classes: list[Cell] = field(default_factory=list)
    witnesses_by_solver: dict[str, int] = field(default_factory=dict)
    proofs_by_kind: dict[str, int] = field(default_factory=dict)
    classes: int = 0
    solves: int = 0
    seconds: float = 0.0                # worker time spent on this board
    outcome: BoardOutcome | None = field(default=None, repr=False)

    @property
    def verdicts(self) -> list[CellVerdict]:
        """Every class's verdict (built on demand: a large board has n^2 / 8 of them)."""
        out = self.outcome
        if out is None:
            return []
        n = out.n
        others = {other[0]: other[1:] for other in out.others}
        solved_at = {source: k for k, source in enumerate(out.sources)}
        verdicts = []
        for index, code in enumerate(out.codes.tolist()):
            cell = divmod(code, n)
            k = int(out.witness_of[index])
            if k < 0:
                status, solver, seconds, cert = others[index]
                verdicts.append(CellVerdict(cell, status, solver, seconds, certificate=cert))
                continue
            witness = tuple(out.witnesses[k].tolist())
            if solved_at.get(cell) == k:
                verdicts.append(CellVerdict(cell, "SAT", out.solvers[k], out.solve_seconds[k],
                                            witness=witness))
            else:
                verdicts.append(CellVerdict(cell, "SAT", out.solvers[k], 0.0, witness=witness,
                                            covered_by=out.sources[k]))
        return verdicts

    def to_json(self, with_cells: bool = False) -> dict[str, Any]:
        out = {"n": self.n, "classes": self.classes, "blocked": [list(c) for c in self.blocked],
               "blocked_classes": [list(c) for c in self.blocked_classes],
               "undecided_classes": [list(c) for c in self.undecided_classes],
               "witnesses_by_solver": self.witnesses_by_solver, "proofs_by_kind": self.proofs_by_kind,
               "solves": self.solves, "seconds": round(self.seconds, 3)}
        if with_cells:
            out["cells"] = [{"cell": list(v.cell), "status": v.status, "solver": v.solver,
                             "certificate": v.certificate} for v in self.verdicts]
        return out


def decide_board(n: int, seed: int = 0, time_limit: float | None = None) -> BoardOutcome:
    """Decide every class of board n, reusing every witness for all the classes it covers."""
    from nqcsp.api import solve

    started = time.perf_counter()
    codes = class_codes(n)
    witness_of = np.full(len(codes), -1, dtype=np.int64)
    witnesses: list[np.ndarray] = []
    sources: list[Cell] = []
    solvers: list[str] = []
    solve_seconds: list[float] = []
    others = []
    rows = np.arange(n, dtype=np.int64)
    for index, code in enumerate(codes.tolist()):
        if witness_of[index] >= 0:
            continue
        cell = divmod(code, n)
        began = time.perf_counter()
        result = solve(n, [cell], solver="auto", seed=seed + 7919 * cell[0] + cell[1], time_limit=time_limit)
        seconds = time.perf_counter() - began
        if result.status is Status.SAT:
            witness = np.asarray(result.columns, dtype=np.int64)
            # Each queen of the witness, turned by the symmetry that takes it to its class representative,
            # makes the witness (so turned) a witness for that class.
            covered = np.searchsorted(codes, canonical_codes(n, rows, witness))
            fresh = covered[witness_of[covered] < 0]
            witness_of[fresh] = len(witnesses)
            witnesses.append(witness)
            sources.append(cell)
            solvers.append(result.solver)
            solve_seconds.append(seconds)
        else:
            cert = result.certificate.to_json() if result.certificate is not None else None
            others.append((index, result.status.value, result.solver, seconds, cert))
    stacked = np.array(witnesses, dtype=np.int64).reshape(len(witnesses), n)
    return BoardOutcome(n, codes, witness_of, stacked, sources, solvers, solve_seconds, others,
                        time.perf_counter() - started)


def decide_boards(ns: tuple[int, ...], seed: int = 0, time_limit: float | None = None) -> list[BoardOutcome]:
    """One task: a board, or a run of small boards that together cost about ``TASK_SECONDS``."""
    return [decide_board(n, seed, time_limit) for n in ns]


def load_solvers() -> None:
    """Load what a sweep's tasks use (construction, backtrack, sat and its proof check) into this process,
    as before forking workers that will sweep."""
    for n in (6, 12, 40):
        decide_board(n)


def estimated_seconds(n: int) -> float:
    return _SECONDS_PER_CELL * n * n + 1e-4


def plan_tasks(sizes: Iterable[int], task_seconds: float = TASK_SECONDS) -> list[tuple[int, ...]]:
    """Boards grouped into tasks of about ``task_seconds``, largest first so the slowest do not start last."""
    tasks: list[tuple[int, ...]] = []
    group: list[int] = []
    cost = 0.0
    for n in sorted(set(sizes), reverse=True):
        group.append(n)
        cost += estimated_seconds(n)
        if cost >= task_seconds:
            tasks.append(tuple(group))
            group, cost = [], 0.0
    if group:
        tasks.append(tuple(group))
    return tasks


def _check(board: BoardSweep, out: BoardOutcome) -> None:
    """The sweep's own acceptance test of a worker's answer, independent of the worker."""
    from nqcsp.proof.verifier import find_violation

    n = out.n
    expected = class_codes(n)
    if not np.array_equal(out.codes, expected):
        raise InternalSolverError(f"n = {n}: the task answered for other cells than the board's classes")
    for k, witness in enumerate(out.witnesses):
        violation = find_violation(n, witness)
        if violation is not None:
            raise InternalSolverError(f"n = {n}: the witness found for {out.sources[k]} is not a solution: "
                                      f"{violation}")
    has = out.witness_of >= 0
    if has.any():
        rows, cols = np.divmod(out.codes[has], n)
        boards = out.witnesses[out.witness_of[has]]
        m = n - 1
        hit = np.zeros(len(rows), dtype=bool)
        for r, c in ((rows, cols), (cols, rows), (m - rows, cols), (rows, m - cols), (m - rows, m - cols),
                     (cols, m - rows), (m - cols, rows), (m - cols, m - rows)):
            hit |= boards[np.arange(len(rows)), r] == c
        if not hit.all():
            missed = divmod(int(out.codes[has][~hit][0]), n)
            raise InternalSolverError(f"n = {n}: the witness for {missed} misses its class")
    decided = set(np.flatnonzero(has).tolist())
    for index, status, _, _, cert in out.others:
        if index in decided:
            raise InternalSolverError(f"n = {n}: class {index} has two verdicts")
        decided.add(index)
        if status == "UNSAT" and not (cert or {}).get("checked_by"):
            raise InternalSolverError(f"n = {n}: {divmod(int(out.codes[index]), n)} is UNSAT without a "
                                      "checked certificate")
    if len(decided) != len(out.codes):
        raise InternalSolverError(f"n = {n}: {len(out.codes) - len(decided)} classes have no verdict")


def summarise(out: BoardOutcome) -> BoardSweep:
    n = out.n
    board = BoardSweep(n, classes=len(out.codes), seconds=out.seconds, outcome=out)
    _check(board, out)
    by_solver: Counter[str] = Counter()
    for k, count in enumerate(np.bincount(out.witness_of[out.witness_of >= 0], minlength=len(out.solvers))):
        by_solver[out.solvers[k]] += int(count)
    by_kind: Counter[str] = Counter()
    blocked: set[Cell] = set()
    for index, status, _, _, cert in sorted(out.others):
        cell = divmod(int(out.codes[index]), n)
        if status == "UNSAT":
            if cert is None:
                raise InternalSolverError(f"n = {n}, cell {cell}: UNSAT without a certificate")
            by_kind[cert["kind"]] += 1
            board.blocked_classes.append(cell)
            blocked |= orbit(n, cell)
        else:
            board.undecided_classes.append(cell)
    board.solves = len(out.sources) + len(out.others)
    board.blocked = sorted(blocked)
    board.witnesses_by_solver = dict(sorted(by_solver.items()))
    board.proofs_by_kind = dict(sorted(by_kind.items()))
    return board


def iter_sweep(ns: Iterable[int], *, executor: Executor | None = None, jobs: int | None = None, seed: int = 0,
               time_limit: float | None = None) -> Generator[BoardSweep, None, None]:
    """Yield each board's sweep as soon as it is finished and checked (largest boards are started first).

    Without ``executor``, work estimated under half a second runs in this process (no pool to start: this
    is what makes ``nqcsp.blockades(6)`` work from an unguarded script under the spawn start method), and
    anything bigger on a process pool of ``jobs`` processes. Closing the generator, or an interrupt,
    cancels the pending tasks at once.
    """
    from nqcsp.runtime.parallel import InProcess, run_tasks

    sizes = sorted({as_board_size(n) for n in ns})
    time_limit = as_time_limit(time_limit)
    tasks = plan_tasks(sizes)
    if executor is None and sum(map(estimated_seconds, sizes)) < _IN_PROCESS_S:
        executor = InProcess()
    work = [(group, seed, time_limit) for group in tasks]
    with contextlib.closing(run_tasks(decide_boards, work, executor=executor, jobs=jobs)) as results:
        for _, outcomes in results:
            for out in outcomes:
                yield summarise(out)


def sweep(ns: Iterable[int], *, executor: Executor | None = None, jobs: int | None = None, seed: int = 0,
          time_limit: float | None = None, progress: Callable[[int], None] | None = None) -> list[BoardSweep]:
    """Decide every cell class of every board size in ``ns``, in order of n; any Executor runs the tasks.

    ``progress(k)`` is called with the number of classes of each board as it finishes.
    """
    boards = []
    with contextlib.closing(iter_sweep(ns, executor=executor, jobs=jobs, seed=seed,
                                       time_limit=time_limit)) as finished:
        for board in finished:
            boards.append(board)
            if progress is not None:
                progress(board.classes)
    return sorted(boards, key=lambda board: board.n)


def blockades(n: int, k: int = 1, *, executor: Executor | None = None) -> list[Cell] | list[tuple[Cell, ...]]:
    """Every cell where one mandatory queen leaves no solution, each proven with a checked certificate;
    with ``k`` > 1, every set of k mutually non-attacking queens that leaves none, as sorted tuples of
    cells (``nqcsp.studies.queen_sets``: classes up to symmetry, witnesses first, certificates for the
    blocked)."""
    from nqcsp.runtime.values import as_int

    if as_int(k, "k") != 1:
        from nqcsp.studies.queen_sets import set_sweep

        account = set_sweep(n, k, executor=executor)
        if account.undecided:
            raise InternalSolverError(f"n = {n}, k = {k}: classes {[u.queens for u in account.undecided]} "
                                      "undecided without a time limit")
        return account.blocked_sets()
    board = sweep([n], executor=executor)[0]
    if board.undecided_classes:
        raise InternalSolverError(f"n = {n}: cells {board.undecided_classes} undecided without a time limit")
    return board.blocked
