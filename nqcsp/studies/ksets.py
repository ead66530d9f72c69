"""Sets of k mutually non-attacking queens on the n x n board, the words both level sweeps use: the boards
and levels the k-set kernels take (``check_size``), a set's cells from its key, its images under the
board's 8 symmetries, and its number of classes by Burnside's lemma (``burnside_classes``: the row sweep
counts sets where the class sweep names one canonical set per class)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell, as_board_size
from nqcsp.board.result import InternalSolverError
from nqcsp.runtime.values import as_int

MAX_N = 64                  # one uint64 per row in the kernels


def check_size(n: object, k: object) -> tuple[int, int]:
    """(n, k) as ints, or ValueError naming what the k-set machinery cannot take."""
    n = as_board_size(n)
    k = as_int(k, "k")
    if k < 1:
        raise ValueError(f"k must be at least 1 queen, got {k}")
    if k > n:
        raise ValueError(f"k = {k} queens do not fit on an {n} x {n} board without attacking")
    if n > MAX_N:
        raise ValueError(f"n = {n} is above {MAX_N}, the widest board the queen-set kernels take")
    if (n * n) ** k >= 2**63:
        raise ValueError(f"k = {k} queens on an {n} x {n} board: set keys would need more than 63 bits")
    return n, k


def cells_of(n: int, codes: Any) -> tuple[Cell, ...]:
    return tuple(divmod(int(code), n) for code in codes)


def key_cells(n: int, k: int, key: int) -> tuple[Cell, ...]:
    base = n * n
    codes = []
    for _ in range(k):
        key, code = divmod(int(key), base)
        codes.append(code)
    return cells_of(n, reversed(codes))


def orbit_of_set(n: int, cells: tuple[Cell, ...]) -> set[tuple[Cell, ...]]:
    """The images of a set of cells under the 8 symmetries, each as a sorted tuple."""
    m = n - 1
    maps = (lambda r, c: (r, c), lambda r, c: (c, r), lambda r, c: (m - r, c), lambda r, c: (r, m - c),
            lambda r, c: (m - r, m - c), lambda r, c: (c, m - r), lambda r, c: (m - c, r),
            lambda r, c: (m - c, m - r))
    return {tuple(sorted(image(r, c) for r, c in cells)) for image in maps}


def fixed_sets(n: int, k: int, symmetry: tuple[bool, bool, bool]) -> int:
    """Sets of k mutually non-attacking queens that ``symmetry`` (``nqcsp.board.symmetry``) maps onto
    themselves: unions of its orbits of cells, each orbit free of attacks within."""
    from nqcsp.board.symmetry import cell_image

    seen: set[Cell] = set()
    orbits: list[list[Cell]] = []
    for row, col in itertools.product(range(n), repeat=2):
        cell = (row, col)
        if cell in seen:
            continue
        orbit = [cell]
        while (image := cell_image(n, orbit[-1], symmetry)) != cell:
            orbit.append(image)
        seen.update(orbit)
        if len(orbit) <= k and not any(_attack(a, b) for a, b in itertools.combinations(orbit, 2)):
            orbits.append(orbit)
    sizes = [len(orbit) for orbit in orbits]
    peaceful = np.array([[not any(_attack(a, b) for a in x for b in y) for y in orbits] for x in orbits],
                        dtype=bool).reshape(len(orbits), len(orbits))

    def count(candidates: np.ndarray, left: int) -> int:
        if left == 0:
            return 1
        total = 0
        for position, orbit in enumerate(candidates.tolist()):
            if sizes[orbit] <= left:
                later = candidates[position + 1:]
                total += count(later[peaceful[orbit, later]], left - sizes[orbit])
        return total

    return count(np.arange(len(orbits)), k)


def _attack(a: Cell, b: Cell) -> bool:
    return a[0] == b[0] or a[1] == b[1] or a[0] + a[1] == b[0] + b[1] or a[0] - a[1] == b[0] - b[1]


def burnside_classes(n: int, k: int, sets: int) -> int:
    """Classes of the ``sets`` sets of k queens under the board's 8 symmetries: the mean number of sets
    each symmetry fixes (Burnside's lemma); the identity fixes them all."""
    from nqcsp.board.symmetry import SYMMETRIES

    fixed = sets + sum(fixed_sets(n, k, symmetry) for symmetry in SYMMETRIES if any(symmetry))
    if fixed % 8:
        raise InternalSolverError(f"n = {n}, k = {k}: {fixed} fixed sets over 8 symmetries is not a whole "
                                  "number of classes: the count of sets is wrong")
    return fixed // 8
