"""Naive pure-Python references the tests compare everything with. Deliberately slow and obvious."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def naive_is_solution(n: int, queens: Iterable[int], mandatory: Iterable[tuple[int, int]] = ()) -> bool:
    """O(n^2): every pair of queens checked for a shared column or diagonal."""
    cols = [int(c) for c in queens]
    if len(cols) != n or any(not 0 <= c < n for c in cols):
        return False
    for r1 in range(n):
        for r2 in range(r1 + 1, n):
            if cols[r1] == cols[r2] or abs(cols[r1] - cols[r2]) == r2 - r1:
                return False
    return all(cols[r] == c for r, c in mandatory)


def naive_solutions(n: int, mandatory: Iterable[tuple[int, int]] = ()) -> Iterator[tuple[int, ...]]:
    """All solutions in lexicographic order, by plain recursion over rows."""
    mandatory = list(mandatory)
    fixed = dict(mandatory)
    cols: list[int] = []

    def place(row: int) -> Iterator[tuple[int, ...]]:
        if row == n:
            # Checked again in full: two mandatory queens in one row collapse in `fixed`.
            if all(cols[r] == c for r, c in mandatory):
                yield tuple(cols)
            return
        for c in ([fixed[row]] if row in fixed else range(n)):
            if all(c != pc and abs(c - pc) != row - pr for pr, pc in enumerate(cols)):
                cols.append(c)
                yield from place(row + 1)
                cols.pop()

    yield from place(0)


def naive_count(n: int, mandatory: Iterable[tuple[int, int]] = ()) -> int:
    return sum(1 for _ in naive_solutions(n, mandatory))


def naive_has_solution(n: int, mandatory: Iterable[tuple[int, int]] = ()) -> bool:
    return next(naive_solutions(n, mandatory), None) is not None


def naive_unique(n: int) -> int:
    """Classes of solutions under the 8 board symmetries: every solution turned and mirrored as cells,
    the smallest image kept."""
    classes = set()
    for cols in naive_solutions(n):
        cells = [(r, c) for r, c in enumerate(cols)]
        images = []
        for _ in range(4):
            cells = [(c, n - 1 - r) for r, c in cells]                  # a quarter turn
            for board in (cells, [(r, n - 1 - c) for r, c in cells]):   # and its mirror image
                images.append(tuple(c for _, c in sorted(board)))
        classes.add(min(images))
    return len(classes)
