"""Explicit O(n) construction (incomplete): one closed-form solution per n, its 8 symmetries, and shifts.

The closed form (Hoffman, Loessi & Moore 1969; the "evens then odds" rule) solves n = 1 and every n >= 4.
A mandatory queen is met when one of the 8 board symmetries of that solution covers it, or, when
gcd(n, 6) = 1, by the modular family q[r] = (2r + s) mod n, which covers every cell. Otherwise UNKNOWN.
Everything is vectorised with numpy: no Python loop over n.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nqcsp.limits import Limits
from nqcsp.problem import Problem
from nqcsp.result import Result, Status, queens_array
from nqcsp.solvers.base import Clock

# A board symmetry as (transpose, flip rows, flip columns), applied in that order to each (row, col).
SYMMETRIES: tuple[tuple[bool, bool, bool], ...] = tuple(
    (t, fr, fc) for t in (False, True) for fr in (False, True) for fc in (False, True)
)


def _index_dtype(n: int) -> type[np.signedinteger]:
    return np.int32 if n < 2**31 else np.int64


def closed_form(n: int) -> np.ndarray:
    """Columns by row of the closed-form solution for n = 1 or n >= 4 (0-based).

    1-based, the rule is: the even numbers, then the odd ones; when n mod 6 = 2, swap 1 and 3 and move 5
    to the end; when n mod 6 = 3, move 2 to the end of the evens and 1, 3 to the end of the odds.
    Built in place in one array, since at n = 10^8 every extra pass over memory costs a tenth of a second.
    """
    if n == 1:
        return np.zeros(1, dtype=_index_dtype(n))
    if n < 4:
        raise ValueError(f"no closed form for n = {n}: the board has no solution")
    evens = n // 2
    cols = np.arange(n, dtype=_index_dtype(n))
    head, tail = cols[:evens], cols[evens:]
    head *= 2
    head += 1          # 0-based 1, 3, 5, ...: the 1-based evens
    tail -= evens
    tail *= 2          # 0-based 0, 2, 4, ...: the 1-based odds
    rest = n % 6
    if rest == 2:
        tail[2:-1] = tail[3:].copy()
        tail[:2] = (2, 0)
        tail[-1] = 4
    elif rest == 3:
        head[:] = np.roll(head, -1)
        tail[:] = np.roll(tail, -2)
    return cols


def modular(n: int, shift: int) -> np.ndarray:
    """q[r] = (2r + shift) mod n, a solution exactly when gcd(n, 6) = 1."""
    dtype = np.int64 if 3 * n >= 2**31 else np.int32
    cols = np.arange(n, dtype=dtype)
    cols *= 2
    cols += shift % n
    cols %= n
    return cols.astype(_index_dtype(n), copy=False)


def covers(base: np.ndarray, symmetry: tuple[bool, bool, bool], cell: tuple[int, int]) -> bool:
    """Whether the image of ``base`` under ``symmetry`` has a queen on ``cell`` (O(1))."""
    n = len(base)
    transpose, flip_rows, flip_cols = symmetry
    row, col = cell
    if flip_rows:
        row = n - 1 - row
    if flip_cols:
        col = n - 1 - col
    if transpose:
        row, col = col, row
    return int(base[row]) == col


def transform(base: np.ndarray, symmetry: tuple[bool, bool, bool]) -> np.ndarray:
    """The image of a solution under a board symmetry, as columns by row."""
    n = len(base)
    transpose, flip_rows, flip_cols = symmetry
    if transpose:
        image = np.empty(n, dtype=base.dtype)
        image[base] = np.arange(n, dtype=base.dtype)
    else:
        image = base.copy()
    if flip_rows:
        image = image[::-1].copy()
    if flip_cols:
        np.subtract(n - 1, image, out=image)
    return image


def permutation_near(problem: Problem) -> np.ndarray:
    """A permutation holding every mandatory queen and close to a solution: a hint for complete backends.

    The closed-form solution (the identity for n = 2, 3), then for each mandatory queen (r, c) rows r and
    "the row holding c" swap columns; only the few queens moved can attack each other. Never trusted.
    """
    n = problem.n
    cols = closed_form(n).astype(np.int64) if n == 1 or n >= 4 else np.arange(n, dtype=np.int64)
    row_of_col = np.empty(n, dtype=np.int64)
    row_of_col[cols] = np.arange(n)
    for row, col in problem.queens:
        other_row, other_col = row_of_col[col], cols[row]
        cols[row], cols[other_row] = col, other_col
        row_of_col[col], row_of_col[other_col] = row, other_row
    return cols


class ConstructSolver:
    name = "construct"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              **options: Any) -> Result:
        clock = Clock(limits)
        n, mandatory = problem.n, problem.queens
        if n in (2, 3):
            return self._unknown(problem, clock, "no closed form for n = 2, 3")
        base = closed_form(n)
        for index, symmetry in enumerate(SYMMETRIES):
            if all(covers(base, symmetry, cell) for cell in mandatory):
                cols = base if index == 0 else transform(base, symmetry)
                return self._found(problem, clock, cols, f"closed form, symmetry {index}")
        if math.gcd(n, 6) == 1:
            row, col = mandatory[0]
            shift = (col - 2 * row) % n
            if all((2 * r + shift) % n == c for r, c in mandatory):
                return self._found(problem, clock, modular(n, shift), f"2r + {shift} mod n")
        return self._unknown(problem, clock, "no symmetry or shift of the construction covers the queens")

    def _found(self, problem: Problem, clock: Clock, cols: np.ndarray, how: str) -> Result:
        return Result(problem, Status.SAT, self.name, queens=queens_array(cols, problem.n),
                      stats={"construction": how, "solve_s": clock.elapsed()})

    def _unknown(self, problem: Problem, clock: Clock, why: str) -> Result:
        return Result(problem, Status.UNKNOWN, self.name, stats={"reason": why, "solve_s": clock.elapsed()})
