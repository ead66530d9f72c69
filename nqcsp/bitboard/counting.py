"""Exact counting and enumeration of solutions with mandatory queens (bitboard DFS in numba).

``count`` folds the board's symmetry into the search where the mandatory queens allow it: with none (or a
set every symmetry keeps) only one board per symmetry class is searched and weighted by its class size;
with a mirror-symmetric set only the left half; otherwise every board. The work is split by the placements
of the first rows and shared between threads (the kernels release the GIL), or, given an Executor, run as
picklable ``CountTask``s of about a second each (``count_tasks``, ``run_count_task``: a process pool or a
Dask cluster). Every kernel leaf also counts as one symmetry class searched, which is ``count_unique``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from nqcsp.board.problem import Cell, Problem, Queens, as_problem
from nqcsp.board.symmetry import SYMMETRIES, Symmetry, cell_image
from nqcsp.runtime.lazy import load
from nqcsp.runtime.parallel import cpu_count

MAX_N = 64            # one uint64 per row
_BATCH = 64           # prefixes per kernel call when counting
_SOLUTION_BATCH = 4096
# Search steps per enumeration call: a few milliseconds.
_ENUMERATION_STEPS = 1 << 20


def _kernels() -> ModuleType:
    return load("nqcsp.bitboard.kernels")


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


# Symmetries as (transpose, flip rows, flip columns), see nqcsp.board.symmetry.
_MIRROR = (False, False, True)
_FLIP = (False, True, False)
_TRANSPOSE = (True, False, False)


def _image(cells: tuple[Cell, ...], n: int, symmetry: Symmetry) -> set[Cell]:
    return {cell_image(n, cell, symmetry) for cell in cells}


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
    mandatory = set(cells)
    if all(_image(cells, n, symmetry) == mandatory for symmetry in SYMMETRIES):
        return "full", _symmetry_class_slices(base, n)
    mirror = _image(cells, n, _MIRROR) == mandatory
    if not mirror and _image(cells, n, _FLIP) == mandatory:
        # Rows reversed is the column mirror of the transposed board, which has the same count.
        base = allowed_masks(Problem(n, sorted(_image(cells, n, _TRANSPOSE))))
        mirror = True
    if mirror:
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
    while not _enumeration_done(state, n):
        out = np.empty((_SOLUTION_BATCH, depth), dtype=np.int64)
        written = kernels.enumerate_batch(n, allowed, required, depth, state, out, _ENUMERATION_STEPS)
        chunks.append(out[:written])
    return np.concatenate(chunks) if chunks else np.empty((0, depth), dtype=np.int64)


def _enumeration_done(state: np.ndarray, n: int) -> bool:
    return bool(state[n, 0] == np.uint64(2**64 - 1))


@dataclass(frozen=True)
class CountTask:
    """A picklable unit of counting work: the completions of ``prefixes`` (first rows' columns) on the
    board ``allowed``/``required``, each leaf weighted ``weight`` (``edge``: see
    ``_symmetry_class_slices``)."""

    n: int
    allowed: np.ndarray
    required: np.ndarray
    prefixes: np.ndarray
    edge: int
    weight: int


def run_count_task(task: CountTask) -> tuple[int, int]:
    """(total weight, leaves) of a task: its share of the count, and of the symmetry classes searched
    (the fundamental solutions, when the whole board's symmetry is used)."""
    if task.n == 0:
        return 1, 1
    counts = np.zeros((len(task.prefixes), 2), dtype=np.int64)
    _kernels().count_many(task.n, task.allowed, task.required, task.prefixes, task.edge, counts)
    return int(counts[:, 0].sum()) * task.weight, int(counts[:, 1].sum())


# Kernel CPU seconds per search node, as estimated by ``kernels.estimate_nodes``: 12 to 18 ns across the
# slices of count(16) on this project's 2-core VM (2026-11). Only task sizes depend on it.
_SECONDS_PER_NODE = 15e-9
_PROBES = 32                      # random descents per prefix: the estimate costs under 1 ms at n = 16
_ESTIMATE_SEED = 0x9E3779B97F4A7C15
_MAX_PREFIXES = 200_000           # past this many, deeper prefixes cost more to build than they balance


def _estimated_nodes(n: int, allowed: np.ndarray, required: np.ndarray, prefixes: np.ndarray,
                     state: np.ndarray) -> np.ndarray:
    out = np.zeros(len(prefixes))
    if len(prefixes):
        _kernels().estimate_nodes(n, allowed, required, prefixes, _PROBES, state, out)
    return out


def _as_problem(n_or_problem: int | Problem, queens: Queens = ()) -> Problem:
    problem = as_problem(n_or_problem, queens)
    if problem.n > MAX_N:
        raise ValueError(f"n = {problem.n} is above {MAX_N}, the widest board the bitboard search handles")
    return problem


def _tasks(problem: Problem, symmetry: bool, depth: int | None, batch: int | None,
           target_s: float | None = None) -> list[CountTask]:
    """The count of ``problem`` as tasks of ``batch`` prefixes of ``depth`` rows each; with ``target_s``
    tasks of about that many CPU seconds instead, largest first."""
    n = problem.n
    if n == 0:
        empty = np.zeros(0, np.uint64)
        return [CountTask(0, empty, empty, np.zeros((1, 0), np.int64), 0, 1)]
    if problem.attack is not None:
        return []
    _, slices = subproblems(problem, symmetry)
    pieces = [(piece, required_masks(piece.allowed)) for piece in slices]
    if target_s is None:
        assert depth is not None and batch is not None
        depth = min(depth, n)
        tasks = []
        for piece, required in pieces:
            prefixes = _prefixes(piece.allowed, required, depth)
            for start in range(0, len(prefixes), batch):
                tasks.append(CountTask(n, piece.allowed, required, prefixes[start:start + batch], piece.edge,
                                       piece.weight))
        return tasks
    # Each prefix's share of the work is estimated (Knuth's random descents); prefixes get one row deeper
    # until none alone exceeds a task, then consecutive ones are packed into tasks of about ``target_s``.
    task_nodes = target_s / _SECONDS_PER_NODE
    depth = min(_prefix_depth(n), n)
    state = np.array([_ESTIMATE_SEED], dtype=np.uint64)
    while True:
        found = [_prefixes(piece.allowed, required, depth) for piece, required in pieces]
        sizes = [_estimated_nodes(n, piece.allowed, required, prefixes, state)
                 for (piece, required), prefixes in zip(pieces, found, strict=True)]
        largest = max((float(size.max()) for size in sizes if len(size)), default=0.0)
        # One row deeper multiplies the prefixes by up to n.
        if (largest <= task_nodes or depth >= max(1, n // 2)
                or sum(map(len, found)) * n > _MAX_PREFIXES):
            break
        depth += 1
    sized = []
    for (piece, required), prefixes, size in zip(pieces, found, sizes, strict=True):
        first, load = 0, 0.0
        for index in range(len(prefixes)):
            load += size[index]
            if load >= task_nodes or index == len(prefixes) - 1:
                sized.append((load, CountTask(n, piece.allowed, required, prefixes[first:index + 1],
                                              piece.edge, piece.weight)))
                first, load = index + 1, 0.0
    # Largest first: the last tasks to finish are then the small ones, and the workers finish together.
    sized.sort(key=lambda pair: -pair[0])
    return [task for _, task in sized]


def count_tasks(problem: int | Problem, symmetry: bool = True, target_s: float = 1.0) -> list[CountTask]:
    """The count of ``problem`` split into picklable tasks of about ``target_s`` CPU seconds each (for a
    cluster), largest first: ``sum(run_count_task(t)[0] for t in tasks)`` is ``count(problem)``. Each
    prefix's search is estimated by random descents (``kernels.estimate_nodes``, repeatable: the seed is
    fixed) and prefixes get deeper until none alone exceeds a task; an empty list means no solution."""
    if isinstance(target_s, bool) or not isinstance(target_s, (int, float)) or not target_s > 0:
        raise ValueError(f"target_s must be a positive number of seconds, got {target_s!r}")
    return _tasks(_as_problem(problem), symmetry, None, None, float(target_s))


def thread_tasks(problem: int | Problem, symmetry: bool = True) -> list[CountTask]:
    """The tasks ``count`` shares between its threads when it has no executor: batches of ``_BATCH``
    prefixes of the first ``_prefix_depth(n)`` rows, in search order."""
    problem = _as_problem(problem)
    return _tasks(problem, symmetry, _prefix_depth(problem.n), _BATCH)


def load_kernels() -> None:
    """Load the counting kernels into this process, as before forking workers that will count: the first
    numba kernel a process loads costs about 0.7 s of numba's own start-up."""
    for task in count_tasks(8):
        run_count_task(task)


def _count(problem: Problem, symmetry: bool, executor: Executor | None,
           progress: Callable[[int, int], None] | None) -> tuple[int, int]:
    """(solutions, leaves); leaves are the fundamental solutions when the full symmetry applies."""
    if executor is not None:
        from nqcsp.runtime.parallel import run_tasks

        tasks = count_tasks(problem, symmetry)
        total = leaves = 0
        for done, (_, (weight, found)) in enumerate(run_tasks(run_count_task, [(t,) for t in tasks],
                                                              executor=executor), start=1):
            total += weight
            leaves += found
            if progress is not None:
                progress(done, len(tasks))
        return total, leaves
    tasks = thread_tasks(problem, symmetry)
    prefixes = sum(len(task.prefixes) for task in tasks)
    prefixes_done = [0]

    def run(task: CountTask) -> tuple[int, int]:
        result = run_count_task(task)
        if progress is not None:
            prefixes_done[0] += len(task.prefixes)   # only read for display; a lost update leaves the count
            progress(prefixes_done[0], prefixes)
        return result

    if len(tasks) == 1:
        return run(tasks[0])
    pool = ThreadPoolExecutor(max_workers=cpu_count())
    try:
        results = list(pool.map(run, tasks))
    except BaseException:
        # Ctrl-C: the queued tasks are dropped at once (leaving the pool's context would run them all,
        # 19 s at n = 19); the running ones end with their task.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return sum(r[0] for r in results), sum(r[1] for r in results)


def count(n: int | Problem, queens: Queens = (), *, symmetry: bool = True, executor: Executor | None = None,
          progress: Callable[[int, int], None] | None = None) -> int:
    """The exact number of solutions of n queens containing the mandatory ``queens`` (n <= 64).

    Exact whenever the count fits in 64 bits, which covers every n that can be counted in practice.

    ``symmetry=False`` searches every board (for cross-checks). Without ``executor`` the work is shared
    by threads of this process (the kernels release the GIL); with one (a process pool, a Dask client's
    ``get_executor()``) it runs as ``count_tasks`` of about a second each. ``progress(done, total)`` is
    called as work completes (from worker threads on the thread path).
    """
    return _count(_as_problem(n, queens), symmetry, executor, progress)[0]


def count_unique(n: int, *, executor: Executor | None = None,
                 progress: Callable[[int, int], None] | None = None) -> int:
    """The number of fundamental solutions of n queens, one per class under the board's 8 symmetries
    (OEIS A002562; n <= 64). Each class is searched once, from its canonical board."""
    problem = _as_problem(n)
    return _count(problem, True, executor, progress)[1]


def solutions(n: int | Problem, queens: Queens = ()) -> Iterator[tuple[int, ...]]:
    """Every solution containing the mandatory ``queens``, as column tuples in lexicographic order.

    A generator: the search state is kept between batches, so memory stays small however many there are.
    """
    return _solutions(_as_problem(n, queens))


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
    while not _enumeration_done(state, n):
        # A bounded number of search steps per call: Python sees Ctrl-C between calls (the first solution
        # of n = 40 takes longer than anyone waits).
        written = kernels.enumerate_batch(n, allowed, required, n, state, out, _ENUMERATION_STEPS)
        yield from map(tuple, out[:written].tolist())
