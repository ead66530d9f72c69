"""The 8 symmetries of the square board, in one place: images of cells and of solutions, cell orbits.

A symmetry is (transpose, flip rows, flip columns), applied in that order to each (row, col).
"""

from __future__ import annotations

import numpy as np

Cell = tuple[int, int]
Symmetry = tuple[bool, bool, bool]

SYMMETRIES: tuple[Symmetry, ...] = tuple(
    (t, fr, fc) for t in (False, True) for fr in (False, True) for fc in (False, True)
)


def cell_image(n: int, cell: Cell, symmetry: Symmetry) -> Cell:
    """Where the symmetric image of a board keeps the queen that ``cell`` holds in the image."""
    transpose, flip_rows, flip_cols = symmetry
    row, col = cell
    if flip_rows:
        row = n - 1 - row
    if flip_cols:
        col = n - 1 - col
    if transpose:
        row, col = col, row
    return row, col


def covers(base: np.ndarray, symmetry: tuple[bool, bool, bool], cell: tuple[int, int]) -> bool:
    """Whether the image of ``base`` under ``symmetry`` has a queen on ``cell`` (O(1))."""
    row, col = cell_image(len(base), cell, symmetry)
    return int(base[row]) == col


def covers_all(base: np.ndarray, symmetry: Symmetry, cells: np.ndarray) -> bool:
    """Whether the image of ``base`` under ``symmetry`` has a queen on every cell of a (k, 2) array."""
    rows, cols = cell_image(len(base), (cells[:, 0], cells[:, 1]), symmetry)  # type: ignore[arg-type]
    return bool(np.all(base[rows] == cols))


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




def orbit(n: int, cell: Cell) -> set[Cell]:
    """The images of a cell under the 8 symmetries of the board."""
    r, c = cell
    m = n - 1
    return {(r, c), (c, r), (m - r, c), (r, m - c), (m - r, m - c), (c, m - r), (m - c, r), (m - c, m - r)}


def canonical(n: int, cell: Cell) -> Cell:
    return min(orbit(n, cell))


def canonical_cells(n: int) -> list[Cell]:
    """One representative per symmetry class of cells: r <= c <= n - 1 - r, the board's 1/8 wedge."""
    return [(r, c) for r in range((n + 1) // 2) for c in range(r, n - r) if canonical(n, (r, c)) == (r, c)]


def canonical_codes(n: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``canonical`` for many cells at once, as row * n + col: the least of the 8 images, which is the
    lexicographic least since col < n (a test compares it with ``nqcsp.board.symmetry.canonical``)."""
    r = np.asarray(rows, dtype=np.int64)
    c = np.asarray(cols, dtype=np.int64)
    m = n - 1
    images = ((r, c), (c, r), (m - r, c), (r, m - c), (m - r, m - c), (c, m - r), (m - c, r), (m - c, m - r))
    least: np.ndarray = np.minimum.reduce([a * n + b for a, b in images])
    return least


def class_codes(n: int) -> np.ndarray:
    """``canonical_cells(n)`` as ascending codes row * n + col, computed over the 1/8 wedge at once."""
    half = (n + 1) // 2
    rows, cols = np.divmod(np.arange(half * n, dtype=np.int64), n)
    keep = (cols >= rows) & (cols <= n - 1 - rows)
    rows, cols = rows[keep], cols[keep]
    codes = rows * n + cols
    canonical: np.ndarray = codes[canonical_codes(n, rows, cols) == codes]
    return canonical


def class_count(n: int) -> int:
    """How many symmetry classes of cells an n x n board has: m(m + 1) / 2 with m = ceil(n / 2)."""
    m = (n + 1) // 2
    return m * (m + 1) // 2
