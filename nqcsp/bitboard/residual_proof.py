"""Clause numbers of the reference statement, laid out for the search kernel that writes LRAT lemmas.

The backtracker's proof refutes ``nqcsp.proof.statement.reference_cnf`` of the residual board, so its hints
must name that formula's clauses by their DIMACS numbers. The statement says where each line's clauses
stand (``Statement.lines``); this module turns that into arrays indexed by free row and free column, and
nothing here decides what the clauses are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nqcsp.board.residual import Residual
from nqcsp.proof.statement import Statement

# The kernel's relation of two cells on one line: the same row, column, r + c (the statement's "diag")
# or r - c ("anti").
RELATIONS = {"row": 0, "col": 1, "diag": 2, "anti": 3}


@dataclass(frozen=True, eq=False)
class ProofTables:
    """``cells[i, j]``: the variable of cell (free row i, free column j), then for each relation its
    statement line and then its position on that line (-1 where the cell is attacked); ``pairs[line]``:
    the number of the line's first at-most-one clause and the line's size; ``alo[l]``: the at-least-one
    clause of free line l (free rows, then free columns); ``clauses``: the statement's clause count."""

    cells: np.ndarray
    pairs: np.ndarray
    alo: np.ndarray
    clauses: int


def proof_tables(residual: Residual, statement: Statement) -> ProofTables:
    k = residual.size
    row_of = {int(r): i for i, r in enumerate(residual.rows)}
    col_of = {int(c): j for j, c in enumerate(residual.cols)}
    cells = np.full((k, k, 9), -1, dtype=np.int64)
    pairs = np.zeros((len(statement.lines), 2), dtype=np.int64)
    alo = np.zeros(2 * k, dtype=np.int64)
    for number, line in enumerate(statement.lines):
        relation = RELATIONS[line.kind]
        at_least_one = line.kind in ("row", "col")
        pairs[number] = line.first_clause + at_least_one, len(line.variables)
        if line.kind == "row":
            alo[row_of[line.index]] = line.first_clause
        elif line.kind == "col":
            alo[k + col_of[line.index]] = line.first_clause
        for position, var in enumerate(line.variables):
            r, c = statement.cells[var - 1]
            i, j = row_of[r], col_of[c]
            cells[i, j, 0] = var
            cells[i, j, 1 + relation] = number
            cells[i, j, 5 + relation] = position
    return ProofTables(cells, pairs, alo, len(statement.clauses))
