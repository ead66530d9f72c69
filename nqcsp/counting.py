"""Exact counting and enumeration of solutions with mandatory queens (bitboard DFS in numba).

``count`` folds the board's symmetry into the search where the mandatory queens allow it: with none (or a
set every symmetry keeps) only one board per symmetry class is searched and weighted by its class size;
with a mirror-symmetric set only the left half; otherwise every board. The work is split by the placements
of the first rows and shared between threads (the kernels release the GIL).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from nqcsp.problem import Cell, Problem

MAX_N = 64            # one uint64 per row
_BATCH = 64           # prefixes per kernel call when counting
_SOLUTION_BATCH = 4096


def _kernels():
    from nqcsp.solvers._kernels import backtrack

    return backtrack


def allowed_masks(problem: Problem) -> np.ndarray:
    """Per row, the cells a queen may take: a mandatory row keeps its one cell unless another mandatory
    queen attacks it; every other row loses the cells the mandatory queens attack."""
    n = problem.n
    if n > MAX_N:
        raise ValueError(f"n = {n} is above {MAX_N}, the widest board the bitboard search handles")
    full = (1 << n) - 1
    rows = [full] * n
    for mandatory_row, col in problem.queens:
        for row in range(n):
            if row == mandatory_row:
                rows[row] &= 1 << col
                continue
            distance = abs(row - mandatory_row)
            attacked = 1 << col
            if col + distance < n:
                attacked |= 1 << (col + distance)
            if col - distance >= 0:
                attacked |= 1 << (col - distance)
            rows[row] &= ~attacked
    return np.array(rows, dtype=np.uint64)


def required_masks(allowed: np.ndarray) -> np.ndarray:
    """Per row, the columns no later row allows, which must therefore be taken by that row at the latest."""
    n = len(allowed)
    full = (1 << n) - 1
    required = [0] * n
    later = 0
    for row in range(n - 1, -1, -1):
        required[row] = full & ~later
        later |= int(allowed[row])
    return np.array(required, dtype=np.uint64)


def _image(cells: tuple[Cell, ...], n: int, transform: Callable[[int, int], Cell]) -> set[Cell]:
    return {transform(r, c) for r, c in cells}


def _symmetries(n: int) -> dict[str, Callable[[int, int], Cell]]:
    last = n - 1
    return {
        "mirror": lambda r, c: (r, last - c),
        "flip": lambda r, c: (last - r, c),
        "transpose": lambda r, c: (c, r),
        "anti-transpose": lambda r, c: (last - c, last - r),
        "quarter": lambda r, c: (c, last - r),
    }


@dataclass(frozen=True)
class Subproblem:
    """A slice of the search: its row masks, the weight of each leaf, and the orbit check's edge (0: off)."""

    allowed: np.ndarray
    weight: int
    edge: int = 0


def subproblems(problem: Problem, symmetry: bool = True) -> tuple[str, list[Subproblem]]:
    """How to count ``problem``: the symmetry used and the slices whose weighted counts add up to it."""
    n = problem.n
    cells = problem.queens
    base = allowed_masks(problem)
    if not symmetry or n < 4:
        return "none", [Subproblem(base, 1)]
    maps = _symmetries(n)
    mandatory = set(cells)
    keeps = {name: _image(cells, n, f) == mandatory for name, f in maps.items()}
    if all(keeps.values()):
        return "full", _symmetry_class_slices(base, n)
    if keeps["flip"] and not keeps["mirror"]:
        # Rows reversed is the column mirror of the transposed board, which has the same count.
        base = allowed_masks(Problem(n, sorted(_image(cells, n, maps["transpose"]))))
        keeps["mirror"] = True
    if keeps["mirror"]:
        return "mirror", _mirror_slices(base, n)
    return "none", [Subproblem(base, 1)]


def _mirror_slices(base: np.ndarray, n: int) -> list[Subproblem]:
    """A board and its mirror image differ in the first row whose queen is off the middle column; keep
    the one where that queen is in the left half."""
    left_half = np.uint64((1 << (n // 2)) - 1)
    slices = []
    first_left = base.copy()
    first_left[0] &= left_half
    slices.append(Subproblem(first_left, 2))
    if n % 2:
        middle_first = base.copy()
        middle_first[0] &= np.uint64(1 << (n // 2))
        middle_first[1] &= left_half
        slices.append(Subproblem(middle_first, 2))
    return slices


def _symmetry_class_slices(base: np.ndarray, n: int) -> list[Subproblem]:
    """One search per symmetry class, as in the fastest known counters.

    A corner queen: turn the board so it is top left; of the board and its transpose keep the one whose
    row-1 queen is nearer the left than the column-1 queen is to the top; classes have 8 boards.
    No corner queen: turn the board so the edge queen nearest a corner is on the top row, at distance
    ``edge`` from the left, every other edge queen at least as far from its corners; the leaf check keeps
    the smallest of the rotations that also qualify and weighs it by its class size.
    """
    last = n - 1
    slices = []
    for row1_col in range(2, last):
        allowed = base.copy()
        allowed[0] &= np.uint64(1)
        allowed[1] &= np.uint64(1 << row1_col)
        allowed[2:row1_col] &= ~np.uint64(2)
        slices.append(Subproblem(allowed, 8))
    sides = np.uint64(1 | (1 << last))
    for edge in range(1, (n - 1) // 2 + (n - 1) % 2):
        if edge >= last - edge:
            break
        allowed = base.copy()
        allowed[0] &= np.uint64(1 << edge)
        allowed[:edge] &= ~sides
        allowed[last - edge + 1:] &= ~sides
        allowed[last] &= np.uint64(((1 << (last - edge + 1)) - 1) & ~((1 << edge) - 1))
        slices.append(Subproblem(allowed, 1, edge))
    return slices


def _prefix_depth(n: int) -> int:
    """Rows fixed per task: enough tasks to balance two threads, few enough to keep calls cheap."""
    if n <= 10:
        return 1
    return 2 if n <= 14 else 3


def _prefixes(allowed: np.ndarray, required: np.ndarray, depth: int) -> np.ndarray:
    kernels = _kernels()
    n = len(allowed)
    state = np.zeros((n + 1, 5), dtype=np.uint64)
    kernels.start_enumeration(n, allowed, required, state)
    chunks = []
    while True:
        out = np.empty((_SOLUTION_BATCH, depth), dtype=np.int64)
        written = kernels.enumerate_batch(n, allowed, required, depth, state, out)
        chunks.append(out[:written])
        if written < len(out):
            break
    return np.concatenate(chunks)


def _workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def count(n: int, queens: object = (), *, symmetry: bool = True,
          progress: Callable[[int, int], None] | None = None) -> int:
    """The exact number of solutions of n queens containing the mandatory ``queens`` (n <= 64).

    Exact whenever the count fits in 64 bits, which covers every n that can be counted in practice.

    ``symmetry=False`` searches every board (for cross-checks). ``progress(done, total)`` is called after
    each batch of subproblems, from worker threads.
    """
    problem = Problem(n, queens)  # type: ignore[arg-type]
    if problem.n == 0:
        return 1   # the empty board: one solution, and no queen can be mandatory on it
    if problem.attack is not None:
        return 0
    _, slices = subproblems(problem, symmetry)
    kernels = _kernels()
    n = problem.n
    depth = min(_prefix_depth(n), n)
    tasks = []
    for piece in slices:
        required = required_masks(piece.allowed)
        prefixes = _prefixes(piece.allowed, required, depth)
        for start in range(0, len(prefixes), _BATCH):
            tasks.append((piece, required, prefixes[start:start + _BATCH]))
    done = [0]

    def run(task: tuple[Subproblem, np.ndarray, np.ndarray]) -> int:
        piece, required, batch = task
        counts = np.zeros(len(batch), dtype=np.int64)
        kernels.count_many(n, piece.allowed, required, batch, piece.edge, counts)
        if progress is not None:
            done[0] += len(batch)   # only read for display; a lost update does not touch the count
            progress(done[0], total)
        return int(counts.sum()) * piece.weight

    total = sum(len(batch) for _, _, batch in tasks)
    with ThreadPoolExecutor(max_workers=_workers()) as pool:
        return sum(pool.map(run, tasks))


def solutions(n: int, queens: object = ()) -> Iterator[tuple[int, ...]]:
    """Every solution containing the mandatory ``queens``, as column tuples in lexicographic order.

    A generator: the search state is kept between batches, so memory stays small however many there are.
    """
    problem = Problem(n, queens)  # type: ignore[arg-type]
    if problem.n > MAX_N:
        raise ValueError(f"n = {problem.n} is above {MAX_N}, the widest board the bitboard search handles")
    return _solutions(problem)


def _solutions(problem: Problem) -> Iterator[tuple[int, ...]]:
    n = problem.n
    if n == 0:
        yield ()
        return
    if problem.attack is not None:
        return
    kernels = _kernels()
    allowed = allowed_masks(problem)
    required = required_masks(allowed)
    state = np.zeros((n + 1, 5), dtype=np.uint64)
    kernels.start_enumeration(n, allowed, required, state)
    out = np.empty((_SOLUTION_BATCH, n), dtype=np.int64)
    while True:
        written = kernels.enumerate_batch(n, allowed, required, n, state, out)
        yield from map(tuple, out[:written].tolist())
        if written < len(out):
            return
