"""A search for blocked sets of k queens on boards too large to sweep (``nqcsp blockades N --queens K
--search --time-limit S``).

Simulated annealing over sets of k mutually non-attacking queens: a move takes one queen to another cell
that the others leave open; a set is scored by how constrained its residual board is, the logarithm of
Knuth's estimate of its number of solutions (``estimate_completions``: random descents filling the most
constrained row first). Every set that looks constrained (an estimate under ``DECIDE_BELOW``) is decided
exactly, once per symmetry class: a randomised search for a solution, then the residual engine, and a set
with none is certified by ``nqcsp.solve(..., solver="auto")`` like every blocked class of the sweep. The
search proves nothing by failing: it reports how many classes it decided, in how long.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.result import InternalSolverError, Status
from nqcsp.runtime.values import as_seconds
from nqcsp.studies.queen_sets import BlockedClass, UndecidedClass, check_size, key_cells

KERNELS = "nqcsp.bitboard.queen_set_kernels"
PROBES = 32
DECIDE_BELOW = 1.0          # estimated solutions under which a set is decided exactly
RESTART_AFTER = 2_000       # moves without a new best before a fresh random start
NODES_PER_ROW = 2_000
NEAR = 3                    # rows and columns of a local move
NEAR_SHARE = 0.5
_START_T = 2.0
_COOLING = 0.999


@dataclass
class SearchReport:
    """What a search did: moves, classes decided exactly (completable or blocked), the blocked ones with
    checked certificates, and any it could not decide in the time left."""

    n: int
    k: int
    seconds: float = 0.0
    moves: int = 0
    restarts: int = 0
    decided: int = 0
    completable: int = 0
    best_estimate: float = math.inf
    blocked: list[BlockedClass] = field(default_factory=list)
    undecided: list[UndecidedClass] = field(default_factory=list)
    chains: int = 1
    idle: str = ""              # why a chain did not search at all (its limit shorter than its start-up)

    def merge(self, other: SearchReport) -> None:
        self.moves += other.moves
        self.restarts += other.restarts
        self.decided += other.decided
        self.completable += other.completable
        self.best_estimate = min(self.best_estimate, other.best_estimate)
        known = {b.queens for b in self.blocked}
        self.blocked.extend(b for b in other.blocked if b.queens not in known)
        self.undecided.extend(other.undecided)
        self.seconds = max(self.seconds, other.seconds)
        self.chains += other.chains
        self.idle = self.idle or other.idle

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "k": self.k, "seconds": round(self.seconds, 3), "chains": self.chains,
                "moves": self.moves, "restarts": self.restarts, "decided": self.decided,
                "completable": self.completable,
                "best_estimate": None if math.isinf(self.best_estimate) else self.best_estimate,
                "blocked": [b.to_json() for b in self.blocked],
                "undecided": [u.to_json() for u in self.undecided],
                **({"idle": self.idle} if self.idle else {})}


class _Board:
    """Scratch arrays of the kernels for one board size."""

    def __init__(self, n: int, k: int, seed: int) -> None:
        self.n, self.k = n, k
        self.allowed = np.empty(n, dtype=np.uint64)
        self.work = np.empty(n, dtype=np.uint64)
        self.placed = np.empty(n, dtype=np.bool_)
        self.scratch = np.empty(k, dtype=np.int64)
        self.rng = np.array([(seed * 0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D) % 2**64 or 1], dtype=np.uint64)
        self.masks = [np.empty(n, dtype=np.uint64) for _ in range(4)]
        self.columns = np.empty(n, dtype=np.int64)


def _attack(n: int, a: int, b: int) -> bool:
    ra, ca = divmod(a, n)
    rb, cb = divmod(b, n)
    return ra == rb or ca == cb or ra + ca == rb + cb or ra - ca == rb - cb


def _random_cell(n: int, others: list[int], rng: np.random.Generator) -> int | None:
    """A random cell that none of ``others`` attacks: anywhere on the board, or, half of the time, within
    ``NEAR`` rows and columns of one of them. The blocked sets found on boards up to 19 are mostly tight
    clusters of 3 or 4 queens (plus one anywhere), which local moves reach and global ones seldom do."""
    if others and rng.random() < NEAR_SHARE:
        row, col = divmod(int(others[int(rng.integers(len(others)))]), n)
        for _ in range(32):
            r = row + int(rng.integers(-NEAR, NEAR + 1))
            c = col + int(rng.integers(-NEAR, NEAR + 1))
            cell = r * n + c
            if 0 <= r < n and 0 <= c < n and cell not in others \
                    and not any(_attack(n, cell, o) for o in others):
                return cell
    cells = rng.permutation(n * n)
    for cell in cells.tolist():
        if cell not in others and not any(_attack(n, cell, o) for o in others):
            return cell
    return None


def _decide(n: int, k: int, cells: list[int], board: _Board, report: SearchReport, decided: set[int],
            deadline: float, seed: int) -> None:
    """Decide the class of ``cells`` exactly, once: a randomised search for a solution, then the residual
    engine, and a set with none certified by ``nqcsp.solve(..., solver="auto")``; the outcome goes into
    ``report``."""
    from nqcsp.api import solve
    from nqcsp.bitboard import queen_set_kernels as kernels
    from nqcsp.bitboard.residual_search import first_solution
    from nqcsp.board.problem import Problem
    from nqcsp.board.residual import residual_within
    from nqcsp.runtime.limits import Limits

    codes = np.array(cells, dtype=np.int64)
    least, _, size = kernels.class_of(n, codes, k, board.scratch)
    if int(least) in decided:
        return
    decided.add(int(least))
    queens = key_cells(n, k, int(least))
    kernels.allowed_rows(n, codes, k, board.allowed)
    found = kernels.random_solution(n, board.allowed, NODES_PER_ROW * n, board.rng, board.columns,
                                    *board.masks)
    report.decided += 1
    if found == 1:
        report.completable += 1
        return
    left = deadline - time.perf_counter()
    if found == 0:
        problem = Problem(n, queens)
        limits = Limits.start(max(left, 0.01))
        outcome = first_solution(residual_within(problem, limits), limits)
        if outcome.solution is not None:
            report.completable += 1
            return
        if not outcome.exhausted:
            report.undecided.append(UndecidedClass(queens, int(size), "the residual search ran out of time"))
            return
    began = time.perf_counter()
    result = solve(n, list(queens), solver="auto", seed=seed, time_limit=max(left, 0.05))
    if result.status is Status.SAT:
        raise InternalSolverError(f"n = {n}: {queens} was searched exhaustively without a solution, "
                                  f"but {result.solver} found one")
    certificate = result.certificate
    if result.status is Status.UNSAT and certificate is not None and certificate.checked:
        report.blocked.append(BlockedClass(queens, int(size), result.solver, certificate.to_json(),
                                           time.perf_counter() - began))
    else:
        report.undecided.append(UndecidedClass(queens, int(size), str(result.stats.get("reason", ""))))


def block_placements(n: int, k: int) -> list[list[int]]:
    """Every solution of the k-queens problem placed as a k x k block anywhere on the n x n board (as cell
    codes), the blocks nearest the centre first: every blocked 4- and 5-set found by the sweeps and the
    annealing up to n = 23 is one of these."""
    from nqcsp.bitboard import solutions

    small = [list(columns) for columns in solutions(k)]
    centre = (n - k) / 2
    offsets = sorted(((r, c) for r in range(n - k + 1) for c in range(n - k + 1)),
                     key=lambda rc: (max(abs(rc[0] - centre), abs(rc[1] - centre)), rc))
    return [[(r + row) * n + c + col for row, col in enumerate(columns)]
            for r, c in offsets for columns in small]


def window_sets(n: int, k: int, width: int, shifts: int = 1) -> list[list[int]]:
    """Every set of k non-attacking queens inside a ``width`` x ``width`` window near the centre (its corner
    within ``shifts`` rows and columns of the centred window's), as cell codes: the compact sets, where the
    blocked ones found so far lie."""
    corner = (n - width) // 2
    found: list[list[int]] = []
    for dr in range(-shifts, shifts + 1):
        for dc in range(-shifts, shifts + 1):
            r0, c0 = corner + dr, corner + dc
            if not (0 <= r0 <= n - width and 0 <= c0 <= n - width):
                continue
            cells = [(r0 + r) * n + c0 + c for r in range(width) for c in range(width)]
            found.extend(list(chosen) for chosen in _peaceful_subsets(n, cells, k))
    return found


def _peaceful_subsets(n: int, cells: list[int], k: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []

    def extend(chosen: list[int], start: int) -> None:
        if len(chosen) == k:
            out.append(tuple(chosen))
            return
        for index in range(start, len(cells)):
            cell = cells[index]
            if all(not _attack(n, cell, other) for other in chosen):
                chosen.append(cell)
                extend(chosen, index + 1)
                chosen.pop()

    extend([], 0)
    return out


def search_blocks(n: int, k: int, time_limit: float, seed: int = 0,
                  stop_at_first: bool = False) -> SearchReport:
    """Decide the structured candidates one class at a time, for ``time_limit`` seconds at most: the
    k-queens solutions placed as blocks (``block_placements``), then every compact set of the (k + 2)-wide
    windows near the centre and of the centred (k + 3)-wide one (``window_sets``)."""
    n, k = check_size(n, k)
    started = time.perf_counter()
    deadline = started + time_limit
    report = SearchReport(n, k)
    board = _Board(n, k, seed)
    decided: set[int] = set()
    sources: list[Callable[[], list[list[int]]]] = [lambda: block_placements(n, k)]
    if n >= k + 2:
        sources.append(lambda: window_sets(n, k, k + 2))
    if n >= k + 3:
        sources.append(lambda: window_sets(n, k, k + 3, shifts=0))
    for cells in itertools.chain.from_iterable(source() for source in sources):
        if time.perf_counter() >= deadline or (stop_at_first and report.blocked):
            break
        report.moves += 1
        _decide(n, k, cells, board, report, decided, deadline, seed)
    report.seconds = time.perf_counter() - started
    return report


def search_blocked(n: int, k: int, time_limit: float, seed: int = 0, stop_at_first: bool = False,
                   until: float | None = None) -> SearchReport:
    """One annealing chain for ``time_limit`` seconds (see the module's doc), and not past ``until`` (a
    ``time.time()`` instant: the caller's deadline, which a worker that started late must keep too).

    A chain whose time left is shorter than loading its kernels here (numba's import included in a fresh
    worker: ``kernel_startup_s``) does not start: loading cannot be cut short, and would end past the
    deadline with nothing searched. Its report says so (``idle``)."""
    from nqcsp.runtime.lazy import kernel_startup_s

    n, k = check_size(n, k)
    time_limit = as_seconds(time_limit, "time_limit")
    started = time.perf_counter()
    if until is not None:
        time_limit = min(time_limit, until - time.time())
    deadline = started + max(time_limit, 0.0)
    report = SearchReport(n, k)
    startup = kernel_startup_s(KERNELS, "estimate_completions")
    if startup > time_limit:
        report.idle = (f"the time left, {max(time_limit, 0.0):.2g} s, is shorter than loading the search's "
                       f"kernels (about {startup:.2g} s): nothing searched")
        return report

    from nqcsp.bitboard import queen_set_kernels as kernels

    board = _Board(n, k, seed)
    rng = np.random.default_rng(seed)
    decided: set[int] = set()

    def estimate(cells: list[int]) -> float:
        codes = np.array(cells, dtype=np.int64)
        kernels.allowed_rows(n, codes, k, board.allowed)
        return float(kernels.estimate_completions(n, board.allowed, PROBES, board.rng, board.work,
                                                  board.placed))

    def decide(cells: list[int]) -> None:
        _decide(n, k, cells, board, report, decided, deadline, seed)

    def fresh() -> list[int]:
        cells: list[int] = []
        while len(cells) < k:
            cell = _random_cell(n, cells, rng)
            if cell is None:
                cells = []
                continue
            cells.append(cell)
        return cells

    cells = fresh()
    score = math.log1p(estimate(cells))
    best, since_best, temperature = score, 0, _START_T
    while time.perf_counter() < deadline and not (stop_at_first and report.blocked):
        index = int(rng.integers(k))
        others = cells[:index] + cells[index + 1:]
        cell = _random_cell(n, others, rng)
        report.moves += 1
        if cell is None:
            continue
        trial = others + [cell]
        value = estimate(trial)
        trial_score = math.log1p(value)
        if value < DECIDE_BELOW:
            decide(trial)
        report.best_estimate = min(report.best_estimate, value)
        if trial_score <= score or rng.random() < math.exp((score - trial_score) / temperature):
            cells, score = trial, trial_score
        temperature = max(0.05, temperature * _COOLING)
        if score < best:
            best, since_best = score, 0
        else:
            since_best += 1
        if since_best >= RESTART_AFTER:
            report.restarts += 1
            cells = fresh()
            score = math.log1p(estimate(cells))
            best, since_best, temperature = score, 0, _START_T
    report.seconds = time.perf_counter() - started
    return report


def search(n: int, k: int, time_limit: float, *, seed: int = 0, chains: int = 1,
           executor: Executor | None = None, stop_at_first: bool = False) -> SearchReport:
    """``chains`` independent chains (seeds ``seed``, ``seed + 1``, ...) on ``executor`` (here when None),
    merged: blocked classes once each."""
    from nqcsp.runtime.parallel import InProcess, run_tasks

    n, k = check_size(n, k)
    time_limit = as_seconds(time_limit, "time_limit")
    until = time.time() + time_limit       # workers that start late (a pool's start-up) keep it too
    tasks = [(n, k, time_limit, seed + chain, stop_at_first, until) for chain in range(max(1, chains))]
    merged: SearchReport | None = None
    for _, report in run_tasks(search_blocked, tasks, executor=executor or InProcess()):
        if merged is None:
            merged = report
        else:
            merged.merge(report)
    assert merged is not None
    return merged
