"""The auditable statement: the reference CNF of the residual board, the formula every DRAT proof refutes.

Deliberately plain Python (no numpy, no encoder shared with the search), short enough to read in full:
a proof checked against this formula says exactly "these mandatory queens have no completion". Its size
(``reference_size``) is counted with numpy from the residual board, so that every stage that builds or
checks it can be sized before it starts.

Variables: the allowed cells of the residual board, numbered 1, 2, ... row-major (free rows ascending,
then free columns ascending), skipping cells a mandatory queen attacks. A free row or column with no
allowed cell gives an empty clause. Constraints, diagonals numbered on the full board:
every free row and free column exactly one (at-least-one + pairwise at-most-one), every diagonal
``r + c`` and anti-diagonal ``r - c`` pairwise at-most-one. A model's true variables, lifted to their
cells, plus the mandatory queens are a solution, and every solution arises so.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

from nqcsp.board.problem import Cell, Problem

if TYPE_CHECKING:
    from nqcsp.board.residual import Residual

VERSION = "reference CNF of the residual board, v1"
# The statement in plain Python: per clause, its tuple, the solver's copy, the DIMACS text and the
# checker's arrays; and the seconds per clause to build, write and load it.
REFERENCE_BYTES_PER_CLAUSE = 600
REFERENCE_SECONDS_PER_CLAUSE = 8e-6


@dataclass(frozen=True)
class Line:
    """One line of the statement and where its clauses stand: for a free row or column (``kind`` "row",
    "col") its at-least-one clause, then for every line its pairwise at-most-one clauses ``(-a, -b)``
    in ``itertools.combinations`` order of ``variables``; ``first_clause`` is the 1-based DIMACS clause
    number of the first of them (proof producers name clauses by these numbers)."""

    kind: str
    index: int
    variables: tuple[int, ...]
    first_clause: int


@dataclass(frozen=True)
class Statement:
    """The reference CNF: ``cells[v - 1]`` is the board cell of variable v; ``lines`` in clause order."""

    problem: Problem
    cells: tuple[Cell, ...]
    lines: tuple[Line, ...]
    clauses: tuple[tuple[int, ...], ...]

    @property
    def num_vars(self) -> int:
        return len(self.cells)

    def comments(self) -> list[str]:
        queens = " ".join(f"{r},{c}" for r, c in self.problem.queens) or "none"
        return [f"nqcsp {VERSION}", f"n {self.problem.n}", f"queens {queens}",
                "variables: the unattacked cells of free rows x free columns, row-major, numbered from 1",
                "vars " + " ".join(f"{v}={r},{c}" for v, (r, c) in enumerate(self.cells, 1))]

    def dimacs(self) -> bytes:
        head = "".join(f"c {line}\n" for line in self.comments())
        body = "".join(" ".join(map(str, clause)) + " 0\n" for clause in self.clauses)
        return f"{head}p cnf {self.num_vars} {len(self.clauses)}\n{body}".encode("ascii")


def reference_cnf(problem: Problem) -> Statement:
    """The reference CNF of ``problem`` (whose mandatory queens must not attack each other)."""
    if problem.attack is not None:
        raise ValueError(f"{problem}: the mandatory queens attack each other; there is no residual board")
    n, queens = problem.n, problem.queens
    taken_rows, taken_cols = {r for r, _ in queens}, {c for _, c in queens}
    sums, diffs = {r + c for r, c in queens}, {r - c for r, c in queens}
    rows = [r for r in range(n) if r not in taken_rows]
    cols = [c for c in range(n) if c not in taken_cols]
    cells = tuple((r, c) for r in rows for c in cols if r + c not in sums and r - c not in diffs)
    lines: dict[tuple[str, int], list[int]] = {}
    for key in [("row", r) for r in rows] + [("col", c) for c in cols]:
        lines[key] = []  # every free line is present, so an empty one becomes the empty clause
    for var, (r, c) in enumerate(cells, 1):
        for key in (("row", r), ("col", c), ("diag", r + c), ("anti", r - c)):
            lines.setdefault(key, []).append(var)
    clauses: list[tuple[int, ...]] = []
    placed: list[Line] = []
    for (kind, index), line in lines.items():
        placed.append(Line(kind, index, tuple(line), len(clauses) + 1))
        if kind in ("row", "col"):
            clauses.append(tuple(line))
        clauses.extend((-a, -b) for a, b in combinations(line, 2))
    return Statement(problem, cells, tuple(placed), tuple(clauses))


_NUMBER = r"(?:0|[1-9][0-9]{0,19})"  # within 20 digits: a board index beyond that is no board
_N_LINE = re.compile(rf"n ({_NUMBER})")
_QUEENS_LINE = re.compile(rf"queens (none|{_NUMBER},{_NUMBER}(?: {_NUMBER},{_NUMBER})*)")


def named_problem(comments: tuple[str, ...] | list[str]) -> tuple[int, list[Cell]] | None:
    """n and the mandatory queens that a statement's first comments name (as ``Statement.comments``
    writes them), or None when they name none. Only what ``comments`` writes is read: the statement
    is then rebuilt and compared whole, comments included."""
    if len(comments) < 3 or comments[0] != f"nqcsp {VERSION}":
        return None
    n_line, queens_line = _N_LINE.fullmatch(comments[1]), _QUEENS_LINE.fullmatch(comments[2])
    if n_line is None or queens_line is None:
        return None
    cells = queens_line.group(1)
    queens = [] if cells == "none" else [(int(r), int(c)) for r, c in (q.split(",") for q in cells.split())]
    return int(n_line.group(1)), queens


# --- its size, known before it is built (numpy, from the residual board) ------------------------------


def reference_size(residual: Residual) -> tuple[int, int]:
    """Variables and clauses of ``reference_cnf`` for this residual, without building it."""
    import numpy as np

    allowed = residual.allowed
    line_counts = [allowed.sum(axis=1, dtype=np.int64), allowed.sum(axis=0, dtype=np.int64)]
    i, j = np.nonzero(allowed)
    if len(i):
        r, c = residual.rows[i], residual.cols[j]
        n = residual.n
        line_counts += [np.bincount(r + c), np.bincount(r - c + n)]
    clauses = len(residual.rows) + len(residual.cols)
    for counts in line_counts:
        clauses += int((counts * (counts - 1) // 2).sum())
    return len(i), clauses


def reference_clauses_at_least(residual: Residual) -> int:
    """A lower bound on the reference CNF's clauses from the cell count alone, at once: a line's pairs
    grow with the square of its cells, so its rows and columns hold the fewest when the cells are spread
    evenly. Diagonals are left out."""
    lines = max(residual.size, 1)
    per_line = residual.cell_count / lines
    return 2 * lines + max(0, math.floor(2 * lines * per_line * (per_line - 1) / 2) - 1)


