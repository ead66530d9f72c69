"""The residual board: what is left to decide once the mandatory queens stand.

Free rows, free columns, and the cells of their cross product that no mandatory queen attacks. Every
complete backend works on this board, not on the whole grid: a completion of a 1000-board with 73 free
rows is a 73 x 73 problem. A solution of the residual (one allowed cell per free row, one per free column,
no two on a diagonal of the full board) together with the mandatory queens is a solution of the problem,
and every solution of the problem arises so.

Diagonals keep their full-board identity: cell (r, c) is on diagonal ``r - c`` and anti-diagonal ``r + c``
of the original board, so the residual's diagonal constraints are exactly the board's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from nqcsp.board.problem import Problem
from nqcsp.runtime.limits import Limits

# Bytes per cross-product cell while the residual is built (the bool mask plus index temporaries).
BYTES_PER_CELL = 24
# Seconds per cell of the n_free x n_free cross product to build it (0.9 s measured for the 25 M cells of
# n = 5000 with one queen; rounded up).
RESIDUAL_S_PER_CELL = 5e-8


@dataclass(frozen=True, eq=False)
class Residual:
    """Free rows and columns (sorted) and ``allowed[i, j]``: cell (rows[i], cols[j]) is unattacked."""

    problem: Problem
    rows: np.ndarray
    cols: np.ndarray
    allowed: np.ndarray

    @property
    def n(self) -> int:
        return self.problem.n

    @property
    def size(self) -> int:
        """Free rows, which equals free columns when the mandatory queens do not attack each other."""
        return len(self.rows)

    @property
    def cell_count(self) -> int:
        return int(np.count_nonzero(self.allowed))

    def cells(self) -> np.ndarray:
        """The allowed cells as (row, col) pairs of the full board, row-major, shape (cells, 2)."""
        i, j = np.nonzero(self.allowed)
        return np.column_stack((self.rows[i], self.cols[j])).astype(np.int64)

    def empty_line(self) -> tuple[str, int] | None:
        """A free row or column without an allowed cell, as ("row", r) or ("column", c): then no solution."""
        row_has = self.allowed.any(axis=1)
        if not row_has.all():
            return "row", int(self.rows[np.flatnonzero(~row_has)[0]])
        col_has = self.allowed.any(axis=0)
        if not col_has.all():
            return "column", int(self.cols[np.flatnonzero(~col_has)[0]])
        return None

    def lift(self, residual_cols: np.ndarray) -> np.ndarray:
        """The full solution: the mandatory queens plus ``residual_cols[i]``, the column of free row i."""
        n = self.n
        full = np.empty(n, dtype=np.int64)
        queens = self.problem.queen_array
        full[queens[:, 0]] = queens[:, 1]
        full[self.rows] = np.asarray(residual_cols, dtype=np.int64)
        return full


def estimated_bytes(problem: Problem) -> int:
    free = problem.free_row_count
    return BYTES_PER_CELL * free * free + 64 * problem.n


def need_residual_memory(problem: Problem, limits: Limits, stage: str = "residual") -> None:
    """Raise OutOfMemory when the residual board of ``problem`` would not fit in the memory budget."""
    free = problem.free_row_count
    limits.need_memory(stage, estimated_bytes(problem), f"the {free} x {free} residual board")


def residual_within(problem: Problem, limits: Limits, stage: str = "residual") -> Residual:
    """``residual_of(problem)`` after checking that building it fits in the memory budget."""
    need_residual_memory(problem, limits, stage)
    return residual_of(problem)


@lru_cache(maxsize=4)
def residual_of(problem: Problem) -> Residual:
    """The residual board of a problem whose mandatory queens do not attack each other.

    Cached: the portfolio's backends and the certificate check all ask for the same one. Callers estimate
    the memory first with ``estimated_bytes``.
    """
    if problem.attack is not None:
        raise ValueError(f"{problem}: the mandatory queens attack each other; there is no residual board")
    n = problem.n
    taken_rows = np.zeros(n, dtype=bool)
    taken_cols = np.zeros(n, dtype=bool)
    anti_diagonal = np.zeros(max(2 * n - 1, 0), dtype=bool)  # r + c
    diagonal = np.zeros(max(2 * n - 1, 0), dtype=bool)       # r - c + n - 1
    queen_rows, queen_cols = problem.queen_array[:, 0], problem.queen_array[:, 1]
    taken_rows[queen_rows] = taken_cols[queen_cols] = True
    anti_diagonal[queen_rows + queen_cols] = True
    diagonal[queen_rows - queen_cols + n - 1] = True
    rows = np.flatnonzero(~taken_rows).astype(np.int64)
    cols = np.flatnonzero(~taken_cols).astype(np.int64)
    allowed = ~anti_diagonal[rows[:, None] + cols[None, :]]
    allowed &= ~diagonal[rows[:, None] - cols[None, :] + (n - 1)]
    for array in (rows, cols, allowed):
        array.setflags(write=False)
    return Residual(problem, rows, cols, allowed)
