"""The one problem representation: board size and mandatory queens, validated once at the edge."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass, field

Cell = tuple[int, int]


def as_int(value: object, what: str) -> int:
    """Return ``value`` as a Python int; bools, floats and strings are rejected by name."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an integer, got {value!r} ({type(value).__name__})")
    return int(value)


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


def as_cells(queens: object, n: int) -> tuple[Cell, ...]:
    """Validate mandatory queens; identical duplicates merge, the result is sorted."""
    if queens is None:
        return ()
    if isinstance(queens, (str, bytes)) or not isinstance(queens, Iterable):
        raise TypeError(f"queens must be a sequence of (row, col) pairs, got {queens!r}")
    items = list(queens)
    # A bare pair such as (0, 3) is a common slip for [(0, 3)]; say so instead of a confusing message.
    if len(items) == 2 and all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in items):
        raise TypeError(f"queens must be a sequence of (row, col) pairs, got the single pair {queens!r}; "
                        f"write [{tuple(items)!r}]")
    return tuple(sorted({as_cell(cell, n) for cell in items}))


def find_attack(queens: Iterable[Cell]) -> tuple[Cell, Cell] | None:
    """First pair of the given queens that share a row, column or diagonal, else None."""
    seen: list[dict[int, Cell]] = [{}, {}, {}, {}]
    for row, col in queens:
        for lines, key in zip(seen, (row, col, row + col, row - col), strict=True):
            other = lines.get(key)
            if other is not None and other != (row, col):
                return other, (row, col)
            lines[key] = (row, col)
    return None


@dataclass(frozen=True, init=False)
class Problem:
    """``n`` queens on an n x n board, with mandatory queens as 0-based ``(row, col)``, row 0 on top."""

    n: int
    queens: tuple[Cell, ...] = field(default=())

    def __init__(self, n: int, queens: Iterable[Cell] = ()) -> None:
        # Any iterable of pairs goes in; what is stored is validated, merged and sorted.
        size = as_board_size(n)
        object.__setattr__(self, "n", size)
        object.__setattr__(self, "queens", as_cells(queens, size))

    @property
    def attack(self) -> tuple[Cell, Cell] | None:
        """Two mandatory queens that attack each other, if any: the problem is then UNSAT."""
        return find_attack(self.queens)

    def __str__(self) -> str:
        queens = " ".join(f"{r},{c}" for r, c in self.queens)
        return f"n={self.n}" + (f" queens={queens}" if queens else "")


def as_problem(n_or_problem: object, queens: object = ()) -> Problem:
    """A ``Problem`` given as one, or as ``n`` and mandatory queens (the two forms the API takes)."""
    if isinstance(n_or_problem, Problem):
        if queens:
            raise TypeError("give the queens inside the Problem, not as a second argument")
        return n_or_problem
    return Problem(n_or_problem, queens)  # type: ignore[arg-type]
