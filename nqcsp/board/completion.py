"""Random n-Queens completion instances by the method of CSPLib prob079 (Gent, Jefferson & Nightingale).

Repeatedly pick a random free row and a random free column and place a queen there when both of its
diagonals are free, until m queens stand. The queens never attack each other, but the completion may or
may not exist: near n = 0.19 * (n - m)^2 about half of them are solvable, and they are hardest there.
"""

from __future__ import annotations

import random

from nqcsp.board.problem import Cell, as_board_size
from nqcsp.runtime.values import as_int

_MAX_RESTARTS = 1000


def random_completion(n: int, m: int, seed: int | None = None) -> list[Cell]:
    """``m`` mutually non-attacking queens on an n x n board, sorted by row."""
    size = as_board_size(n)
    count = as_int(m, "m")
    if not 0 <= count <= size:
        raise ValueError(f"m must be in 0..n = 0..{size}, got {count}")
    rng = random.Random(seed)
    for _ in range(_MAX_RESTARTS):
        placed = _place(size, count, rng)
        if placed is not None:
            return sorted(placed)
    raise ValueError(f"could not place {count} non-attacking queens on a {size}x{size} board "
                     f"in {_MAX_RESTARTS} random tries")


def _place(n: int, m: int, rng: random.Random) -> list[Cell] | None:
    free_rows, free_cols = list(range(n)), list(range(n))
    used_sums: set[int] = set()
    used_diffs: set[int] = set()
    queens: list[Cell] = []
    while len(queens) < m:
        row_i, col_i = rng.randrange(len(free_rows)), rng.randrange(len(free_cols))
        row, col = free_rows[row_i], free_cols[col_i]
        if row + col in used_sums or row - col in used_diffs:
            # The random pick failed; if no free cell can take a queen any more, this try is dead.
            if not any(r + c not in used_sums and r - c not in used_diffs
                       for r in free_rows for c in free_cols):
                return None
            continue
        queens.append((row, col))
        used_sums.add(row + col)
        used_diffs.add(row - col)
        free_rows[row_i] = free_rows[-1]
        free_rows.pop()
        free_cols[col_i] = free_cols[-1]
        free_cols.pop()
    return queens
