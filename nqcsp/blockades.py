"""The blockade sweep: for every cell of an n x n board, does one mandatory queen there leave a solution?

Every cell is covered up to the board's 8 symmetries: an open cell gets a verified witness, a blocked cell
a checked certificate from ``solve(..., solver="auto")``. A witness covers more than its own cell: each of
its n queens, and of its symmetric images', is an open cell. A worker therefore solves only the cells that
its earlier witnesses left uncovered, which makes the sweep cost about n / 8 solves per board instead of
n^2 / 8. Work is spread over any ``concurrent.futures.Executor`` (a process pool by default).
"""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from nqcsp.problem import Cell, as_board_size
from nqcsp.result import InternalSolverError, Status
from nqcsp.symmetry import canonical, canonical_cells, orbit

# Cells per task: small enough to spread one large board over every worker, large enough that a task
# amortises its start-up (a worker's first solve loads compiled kernels).
_TASK_CELLS = 400


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
    seconds: float = 0.0                # solver time spent on this board, summed over workers
    verdicts: list[CellVerdict] = field(default_factory=list)

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


def decide_cells(n: int, cells: list[Cell], seed: int = 0,
                 time_limit: float | None = None) -> list[CellVerdict]:
    """Decide each cell (a class representative), reusing every witness for all the cells it covers."""
    from nqcsp.api import solve

    covered: dict[Cell, CellVerdict] = {}
    verdicts = []
    for cell in cells:
        if cell in covered:
            verdicts.append(covered[cell])
            continue
        started = time.perf_counter()
        result = solve(n, [cell], solver="auto", seed=seed + 7919 * cell[0] + cell[1], time_limit=time_limit)
        seconds = time.perf_counter() - started
        if result.status is Status.SAT:
            witness = result.column_tuple()
            verdict = CellVerdict(cell, "SAT", result.solver, seconds, witness=witness)
            for row, col in enumerate(witness):
                # The witness, turned by the symmetry that takes (row, col) to its class representative,
                # is a witness for that representative: recorded as solved by the same backend.
                rep = canonical(n, (row, col))
                covered.setdefault(rep, CellVerdict(rep, "SAT", result.solver, 0.0, witness=witness,
                                                    covered_by=cell))
            covered[cell] = verdict
        else:
            cert = result.certificate.to_json() if result.certificate is not None else None
            verdict = CellVerdict(cell, result.status.value, result.solver, seconds, certificate=cert)
        verdicts.append(verdict)
    return verdicts


def _check_verdict(n: int, verdict: CellVerdict, verified: set[tuple[int, ...]]) -> None:
    """The sweep's own acceptance test of a worker's answer, independent of the worker."""
    from nqcsp.verifier import verify

    if verdict.status == "SAT":
        witness = verdict.witness
        if witness is None or (witness not in verified and not verify(n, witness)):
            raise InternalSolverError(f"n = {n}: the witness for {verdict.cell} is not a solution")
        verified.add(witness)
        if not any(witness[r] == c for r, c in orbit(n, verdict.cell)):
            raise InternalSolverError(f"n = {n}: the witness for {verdict.cell} misses its class")
    elif verdict.status == "UNSAT" and not (verdict.certificate or {}).get("checked_by"):
        raise InternalSolverError(f"n = {n}: {verdict.cell} is UNSAT without a checked certificate")


def sweep(ns: Iterable[int], *, executor: Executor | None = None, seed: int = 0,
          time_limit: float | None = None, progress: Callable[[int], None] | None = None) -> list[BoardSweep]:
    """Decide every cell class of every board size in ``ns``; any Executor runs the tasks."""
    sizes = sorted({as_board_size(n) for n in ns})
    owned = executor is None
    pool = executor or ProcessPoolExecutor(max_workers=os.cpu_count() or 1)
    boards = {n: BoardSweep(n) for n in sizes}
    try:
        futures: dict[Future, int] = {}
        # Largest boards first so the slowest tasks do not start last.
        for n in reversed(sizes):
            cells = canonical_cells(n)
            boards[n].classes = len(cells)
            parts = max(1, -(-len(cells) // _TASK_CELLS))
            for part in range(parts):
                # Interleaved slices so each task sees cells from the whole wedge.
                futures[pool.submit(decide_cells, n, cells[part::parts], seed, time_limit)] = n
        for future in as_completed(futures):
            verdicts = future.result()
            boards[futures[future]].verdicts.extend(verdicts)
            if progress is not None:
                progress(len(verdicts))
    finally:
        if owned:
            pool.shutdown(cancel_futures=True)
    for board in boards.values():
        _summarise(board)
    return [boards[n] for n in sizes]


def _summarise(board: BoardSweep) -> None:
    n = board.n
    by_solver: Counter[str] = Counter()
    by_kind: Counter[str] = Counter()
    blocked: set[Cell] = set()
    verified: set[tuple[int, ...]] = set()
    board.verdicts.sort(key=lambda v: v.cell)
    for verdict in board.verdicts:
        _check_verdict(n, verdict, verified)
        board.seconds += verdict.seconds
        board.solves += verdict.covered_by is None
        if verdict.status == "SAT":
            by_solver[verdict.solver] += 1
        elif verdict.status == "UNSAT":
            by_kind[verdict.certificate["kind"]] += 1
            board.blocked_classes.append(verdict.cell)
            blocked |= orbit(n, verdict.cell)
        else:
            board.undecided_classes.append(verdict.cell)
    board.blocked = sorted(blocked)
    board.witnesses_by_solver = dict(sorted(by_solver.items()))
    board.proofs_by_kind = dict(sorted(by_kind.items()))


def blockades(n: int, *, executor: Executor | None = None) -> list[Cell]:
    """Every cell where one mandatory queen leaves no solution, each proven with a checked certificate."""
    board = sweep([n], executor=executor)[0]
    if board.undecided_classes:
        raise InternalSolverError(f"n = {n}: cells {board.undecided_classes} undecided without a time limit")
    return board.blocked
