"""The one problem representation: board size and mandatory queens, validated once at the edge."""

from __future__ import annotations

import gc
import itertools
import numbers
from collections.abc import Iterable, Iterator, Sequence
from functools import cached_property
from typing import TypeAlias

import numpy as np

from nqcsp.runtime.values import as_int

Cell = tuple[int, int]
# Mandatory queens as every public call takes them: (row, col) pairs (tuples or lists of ints or numpy
# integers), a (k, 2) integer array, or None for none. ``queen_array`` checks each value at run time.
Queens: TypeAlias = Iterable[Sequence[int]] | np.ndarray | None


def as_board_size(n: object) -> int:
    size = as_int(n, "n")
    if size < 0:
        raise ValueError(f"n must be >= 0, got {size}")
    return size


def as_cell(cell: object, n: int) -> Cell:
    """Validate one ``(row, col)`` pair against an n x n board."""
    if isinstance(cell, (str, bytes)) or not isinstance(cell, Iterable):
        raise TypeError(f"a queen must be a (row, col) pair, got {cell!r}")
    parts = tuple(cell)
    if len(parts) != 2:
        raise ValueError(f"a queen must be a (row, col) pair, got {cell!r}")
    row = as_int(parts[0], f"row of queen {cell!r}")
    col = as_int(parts[1], f"column of queen {cell!r}")
    if not (0 <= row < n and 0 <= col < n):
        raise ValueError(f"queen {(row, col)!r} is off the {n}x{n} board (rows and columns are 0..{n - 1})")
    return row, col


def queen_array(queens: Queens, n: int) -> np.ndarray:
    """Mandatory queens validated against an n x n board, as a read-only (k, 2) int64 array sorted by
    (row, col), identical duplicates merged.

    Vectorised: 10^6 queens take a fraction of a second (a list of pairs or a (k, 2) integer array). Only
    input that fails the fast checks walks cell by cell, to name the first bad value.
    """
    if queens is None:
        return _frozen(np.empty((0, 2), dtype=np.int64))
    if isinstance(queens, np.ndarray):
        cells = _array_cells(queens)
    else:
        if isinstance(queens, (str, bytes)) or not isinstance(queens, Iterable):
            raise TypeError(f"queens must be a sequence of (row, col) pairs, got {queens!r}")
        items = list(queens)
        # A bare pair such as (0, 3) is a common slip for [(0, 3)]; say so instead of a confusing message.
        if len(items) == 2 and all(isinstance(x, numbers.Integral) and not isinstance(x, bool)
                                   for x in items):
            raise TypeError(f"queens must be a sequence of (row, col) pairs, got the single pair {queens!r}; "
                            f"write [{tuple(items)!r}]")
        cells = _list_cells(items, n)
    if len(cells) and (int(cells.min()) < 0 or int(cells.max()) >= n):
        bad = int(np.flatnonzero(((cells < 0) | (cells >= n)).any(axis=1))[0])
        row, col = (int(v) for v in cells[bad])
        raise ValueError(f"queen {(row, col)!r} is off the {n}x{n} board (rows and columns are 0..{n - 1})")
    return _frozen(_sorted_unique(cells))


def _list_cells(items: list[object], n: int) -> np.ndarray:
    """Pairs of Python or numpy integers as a (k, 2) array; anything else is checked cell by cell."""
    if all(type(cell) in (tuple, list) and len(cell) == 2 for cell in items):  # type: ignore[arg-type]
        kinds = set(map(type, itertools.chain.from_iterable(items)))  # type: ignore[arg-type]
        if all(kind is int or issubclass(kind, np.integer) for kind in kinds):
            try:
                flat: Iterator[int] = itertools.chain.from_iterable(items)  # type: ignore[arg-type]
                return np.fromiter(flat, dtype=np.int64, count=2 * len(items)).reshape(-1, 2)
            except OverflowError:
                pass  # a value beyond int64: the walk below names it
    walked = np.array([as_cell(cell, n) for cell in items], dtype=object).reshape(-1, 2)
    try:
        return walked.astype(np.int64)
    except OverflowError:
        raise ValueError(f"a queen of the {n}x{n} board is beyond the 64-bit rows nqcsp can index") from None


def _array_cells(queens: np.ndarray) -> np.ndarray:
    if queens.dtype.kind not in "iu" or queens.ndim != 2 or queens.shape[1] != 2:
        if queens.size == 0:
            return np.empty((0, 2), dtype=np.int64)
        raise TypeError(f"queens as an array must be (k, 2) integers, "
                        f"got shape {queens.shape} of {queens.dtype}")
    if queens.dtype.kind == "u" and len(queens) and int(queens.max()) >= 2**63:
        raise ValueError(f"a queen's row or column {int(queens.max())} is off every board nqcsp can index")
    return queens.astype(np.int64)


def _sorted_unique(cells: np.ndarray) -> np.ndarray:
    if len(cells) < 2:
        return cells
    rows, cols = cells[:, 0], cells[:, 1]
    ordered = (rows[1:] > rows[:-1]) | ((rows[1:] == rows[:-1]) & (cols[1:] > cols[:-1]))
    if ordered.all():
        return cells
    cells = cells[np.lexsort((cols, rows))]
    keep = np.ones(len(cells), dtype=bool)
    keep[1:] = (cells[1:] != cells[:-1]).any(axis=1)
    return cells[keep]


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def as_cells(queens: Queens, n: int) -> tuple[Cell, ...]:
    """Validate mandatory queens; identical duplicates merge, the result is sorted."""
    return cell_tuple(queen_array(queens, n))


def cell_tuple(cells: np.ndarray) -> tuple[Cell, ...]:
    # Collection passes while a million small tuples are made would triple the cost.
    paused = gc.isenabled()
    gc.disable()
    try:
        return tuple(zip(cells[:, 0].tolist(), cells[:, 1].tolist(), strict=True))
    finally:
        if paused:
            gc.enable()


# Line families a queen sits on, in the order an attack is reported: row, column, r + c, r - c.
def _line_keys(cells: np.ndarray) -> tuple[np.ndarray, ...]:
    rows, cols = cells[:, 0], cells[:, 1]
    return rows, cols, rows + cols, rows - cols


def _may_repeat(keys: np.ndarray) -> bool:
    """False when no key repeats, found by counting (a few ms at 10^6 keys) where the range allows."""
    low, high = int(keys.min()), int(keys.max())
    if high - low > 4 * len(keys) + (1 << 20):
        return True
    return bool(np.bincount(keys - low).max() > 1)


def find_attack(queens: Iterable[Cell] | np.ndarray) -> tuple[Cell, Cell] | None:
    """Two distinct given queens that share a row, column or diagonal, else None.

    Of the queens in (row, col) order, the first that shares a line with an earlier one, after that
    earlier one. Vectorised: one sort per family of lines.
    """
    cells = queens if isinstance(queens, np.ndarray) else np.array(list(queens), dtype=np.int64)
    cells = _sorted_unique(cells.reshape(-1, 2).astype(np.int64))
    if len(cells) < 2:
        return None
    best: tuple[int, int] | None = None  # (index of the later queen, index of the earlier one)
    for keys in _line_keys(cells):
        if not _may_repeat(keys):
            continue
        order = np.argsort(keys, kind="stable")
        same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
        if len(same):
            later = order[same + 1]
            first = int(np.argmin(later))
            candidate = (int(later[first]), int(order[same[first]]))
            if best is None or candidate[0] < best[0]:
                best = candidate
    if best is None:
        return None
    second, first_seen = best
    earlier = (int(cells[first_seen, 0]), int(cells[first_seen, 1]))
    return earlier, (int(cells[second, 0]), int(cells[second, 1]))


class Problem:
    """``n`` queens on an n x n board, with mandatory queens as 0-based ``(row, col)``, row 0 on top.

    Immutable and validated once. The queens are kept as a sorted (k, 2) array (``queen_array``), which
    every pass over many queens uses; ``queens``, the tuple of pairs, is built on first use (10^6 Python
    pairs cost about a second, more than a whole solve with a short time limit).
    """

    def __init__(self, n: int, queens: Queens = ()) -> None:
        size = as_board_size(n)
        object.__setattr__(self, "n", size)
        object.__setattr__(self, "queen_array", queen_array(queens, size))

    n: int
    queen_array: np.ndarray

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Problem is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a Problem is immutable: cannot delete {name!r}")

    @cached_property
    def queens(self) -> tuple[Cell, ...]:
        """The mandatory queens as ``(row, col)`` pairs, sorted."""
        return cell_tuple(self.queen_array)

    @cached_property
    def _key(self) -> tuple[int, bytes]:
        return self.n, self.queen_array.tobytes()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Problem):
            return NotImplemented
        return self is other or self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self) -> tuple[type, tuple[int, np.ndarray]]:
        return Problem, (self.n, self.queen_array)

    def __repr__(self) -> str:
        return f"Problem(n={self.n}, queens={self.queens!r})"

    @cached_property
    def attack(self) -> tuple[Cell, Cell] | None:
        """Two mandatory queens that attack each other, if any: the problem is then UNSAT."""
        return find_attack(self.queen_array)

    @cached_property
    def free_row_count(self) -> int:
        """Rows without a mandatory queen."""
        rows = self.queen_array[:, 0]  # sorted
        return self.n - (int(np.count_nonzero(rows[1:] != rows[:-1])) + 1 if len(rows) else 0)

    def __str__(self) -> str:
        if len(self.queen_array) > 20:
            return f"n={self.n} with {len(self.queen_array)} queens"
        queens = " ".join(f"{r},{c}" for r, c in self.queens)
        return f"n={self.n}" + (f" queens={queens}" if queens else "")


def as_problem(n_or_problem: object, queens: Queens = ()) -> Problem:
    """A ``Problem`` given as one, or as ``n`` and mandatory queens (the two forms the API takes)."""
    if isinstance(n_or_problem, Problem):
        if queens:
            raise TypeError("give the queens inside the Problem, not as a second argument")
        return n_or_problem
    return Problem(n_or_problem, queens)  # type: ignore[arg-type]
