"""Blockades of k queens: which sets of k mutually non-attacking queens leave no solution, proven.

Every set is covered up to the board's 8 symmetries: one canonical set per class (the least key, see
``nqcsp.bitboard.queen_set_kernels``), with its class size, so that the totals count every k-set exactly.
A class is decided as cheaply as it can be:

1. **Witnesses.** A solution completes every k-subset of itself and of its 8 images. For each class not
   yet covered, a randomised search (numba, a node budget) looks for a solution with its queens placed;
   each solution found marks every class of the task that it contains.
2. **Search.** A class the randomised search gave up on goes to the residual engine
   (``nqcsp.bitboard.residual_search.first_solution``): a solution covers it (and others), exhaustion
   makes it a candidate.
3. **Certificates.** Only candidates are certified, by ``nqcsp.solve(..., solver="auto")``: a blocked class
   carries a checked certificate (a checked proof, or two complete backends that agree); a solution there
   means two searches disagree (a bug); no answer in the time allowed leaves the class *undecided*, which
   is reported as such, never counted as open or blocked.

The work is split into tasks by the first cell of the canonical set and a range of its second cell, of
about ``TASK_SETS`` k-sets each; tasks run on any Executor and can be checkpointed
(``nqcsp.runtime.checkpoint``).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Generator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell, as_board_size
from nqcsp.board.result import InternalSolverError, Status
from nqcsp.runtime.limits import as_time_limit
from nqcsp.runtime.values import as_int

MAX_N = 64                  # one uint64 per row in the kernels
TASK_SETS = 3_000_000       # k-sets enumerated per task: about a second of one core
WITNESS_BATCH = 512
NODES_PER_ROW = 2_000       # the randomised search's budget per class: NODES_PER_ROW * n nodes
_FORMAT = 1


def _kernels():
    from nqcsp.bitboard import queen_set_kernels

    return queen_set_kernels


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


@dataclass(frozen=True)
class SetTask:
    """The canonical k-sets whose first cell is ``first`` and second cell in ``second_lo .. second_hi-1``
    (codes row * n + col; the range is unused for k = 1)."""

    n: int
    k: int
    first: int
    second_lo: int = 0
    second_hi: int = 0

    @property
    def ident(self) -> str:
        return f"{self.first}:{self.second_lo}:{self.second_hi}"


def plan_set_tasks(n: int, k: int, task_sets: int = TASK_SETS) -> list[SetTask]:
    """Tasks of about ``task_sets`` k-sets each (estimated), largest first."""
    return [task for _, task in weighted_set_tasks(n, k, task_sets)]


def weighted_set_tasks(n: int, k: int, task_sets: int = TASK_SETS) -> list[tuple[float, SetTask]]:
    """``plan_set_tasks`` with each task's estimated number of k-sets (an upper bound: canonical or not)."""
    from nqcsp.board.symmetry import class_codes

    n, k = check_size(n, k)
    firsts = class_codes(n).tolist()
    if k == 1:
        return [(1.0, SetTask(n, 1, first)) for first in firsts]
    m = n - 1
    rows, cols = np.divmod(np.arange(n * n, dtype=np.int64), n)
    tasks: list[tuple[float, SetTask]] = []
    for first in firsts:
        r0, c0 = divmod(first, n)
        inside = (rows >= r0) & (rows <= m - r0) & (cols >= r0) & (cols <= m - r0) & (rows > r0)
        safe = inside & (cols != c0) & (rows + cols != r0 + c0) & (rows - cols != r0 - c0)
        seconds = np.flatnonzero(safe)
        if len(seconds) == 0:
            continue
        # Sets with this prefix: choose k - 2 more among the later cells that attack neither queen.
        later = safe[None, :] & (np.arange(n * n)[None, :] > seconds[:, None])
        rs, cs = rows[seconds][:, None], cols[seconds][:, None]
        later &= (cols[None, :] != cs) & (rows[None, :] != rs) & (rows[None, :] + cols[None, :] != rs + cs) \
            & (rows[None, :] - cols[None, :] != rs - cs)
        free = later.sum(axis=1)
        weight = np.array([math.comb(int(f), k - 2) for f in free], dtype=float)
        start, load = 0, 0.0
        for index in range(len(seconds)):
            load += weight[index]
            if load >= task_sets or index == len(seconds) - 1:
                hi = int(seconds[index + 1]) if index + 1 < len(seconds) else n * n
                tasks.append((load, SetTask(n, k, first, int(seconds[start]), hi)))
                start, load = index + 1, 0.0
    tasks.sort(key=lambda pair: -pair[0])
    return tasks


@dataclass
class BlockedClass:
    """A class of k-sets with no solution: its canonical set, class size and checked certificate."""

    queens: tuple[Cell, ...]
    size: int
    solver: str
    certificate: dict[str, Any]
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"queens": [list(c) for c in self.queens], "size": self.size, "solver": self.solver,
                "certificate": self.certificate, "seconds": round(self.seconds, 4)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BlockedClass:
        return cls(tuple(tuple(c) for c in data["queens"]), int(data["size"]), data["solver"],
                   data["certificate"], float(data.get("seconds", 0.0)))


@dataclass
class UndecidedClass:
    """A class that no method decided in the time allowed: neither open nor blocked."""

    queens: tuple[Cell, ...]
    size: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"queens": [list(c) for c in self.queens], "size": self.size, "reason": self.reason}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UndecidedClass:
        return cls(tuple(tuple(c) for c in data["queens"]), int(data["size"]), data["reason"])


@dataclass
class TaskOutcome:
    """One task's account. Every class is in exactly one of: covered by a witness, decided by the
    residual search (a solution of its own, or blocked), undecided; ``complete`` is False when the task
    stopped at its first blocked class (``stop_at_blocked``) and left the rest."""

    task: SetTask
    classes: int = 0
    ksets: int = 0
    covered: int = 0
    searched: int = 0
    blocked: list[BlockedClass] = field(default_factory=list)
    undecided: list[UndecidedClass] = field(default_factory=list)
    witnesses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    complete: bool = True
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        t = self.task
        return {"n": t.n, "k": t.k, "first": t.first, "second_lo": t.second_lo, "second_hi": t.second_hi,
                "classes": self.classes, "ksets": self.ksets, "covered": self.covered,
                "searched": self.searched, "blocked": [b.to_json() for b in self.blocked],
                "undecided": [u.to_json() for u in self.undecided], "witnesses": self.witnesses.tolist(),
                "complete": self.complete, "seconds": round(self.seconds, 4)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskOutcome:
        task = SetTask(data["n"], data["k"], data["first"], data["second_lo"], data["second_hi"])
        witnesses = np.array(data["witnesses"], dtype=np.int64).reshape(-1, task.n)
        return cls(task, data["classes"], data["ksets"], data["covered"], data["searched"],
                   [BlockedClass.from_json(b) for b in data["blocked"]],
                   [UndecidedClass.from_json(u) for u in data["undecided"]], witnesses,
                   bool(data["complete"]), float(data["seconds"]))


def _rng(seed: int, task: SetTask) -> np.ndarray:
    mixed = (seed * 0x9E3779B97F4A7C15 + task.first * 1_000_003 + task.second_lo * 7919 + task.k) % 2**64
    return np.array([mixed or 1], dtype=np.uint64)


def decide_task(task: SetTask, seed: int = 0, time_limit: float | None = None,
                stop_at_blocked: bool = False) -> TaskOutcome:
    """Decide every class of ``task`` (``time_limit``: seconds per candidate class, None for none)."""
    from nqcsp.api import solve
    from nqcsp.bitboard.residual_search import first_solution
    from nqcsp.board.problem import Problem
    from nqcsp.board.residual import residual_within
    from nqcsp.runtime.limits import Limits

    kernels = _kernels()
    started = time.perf_counter()
    n, k = task.n, task.k
    args = (n, k, task.first, task.second_lo, task.second_hi)
    keys, sizes = kernels.task_classes(*args)
    state = np.zeros(len(keys), dtype=np.int8)
    rng = _rng(seed, task)
    kept: list[np.ndarray] = []
    index = 0
    while index < len(keys):
        batch = np.empty((WITNESS_BATCH, n), dtype=np.int64)
        gains = np.zeros(WITNESS_BATCH, dtype=np.int64)
        index, written, conflict = kernels.witness_pass(*args, keys, state, index, len(keys),
                                                        NODES_PER_ROW * n, rng, batch, gains)
        if conflict:
            raise InternalSolverError(f"{task}: a solution contains a class the search exhausted")
        kept.append(batch[:written][gains[:written] > 0])
    outcome = TaskOutcome(task, classes=len(keys), ksets=int(sizes.sum(dtype=np.int64)))
    searched_sat = 0
    for index in np.flatnonzero(state != kernels.WITNESSED).tolist():
        if state[index] == kernels.WITNESSED:
            continue        # covered meanwhile by a witness of the residual search
        cells = key_cells(n, k, int(keys[index]))
        size = int(sizes[index])
        if outcome.blocked and stop_at_blocked:
            outcome.complete = False
            break
        problem = Problem(n, cells)
        if state[index] == kernels.BUDGET:
            limits = Limits.start(time_limit)
            found = first_solution(residual_within(problem, limits), limits)
            if found.solution is not None:
                witness = np.asarray(found.solution, dtype=np.int64).reshape(1, n)
                gains = np.zeros(1, dtype=np.int64)
                kernels.cover_many(*args, keys, state, witness, gains)
                if gains[0] < 0 or state[index] != kernels.WITNESSED:
                    raise InternalSolverError(f"{task}: the residual search's solution for {cells} "
                                              "does not cover it, or contains an exhausted class")
                kept.append(witness)
                searched_sat += 1
                continue
            if not found.exhausted:
                outcome.undecided.append(UndecidedClass(cells, size, "the residual search ran out of time"))
                continue
        began = time.perf_counter()
        result = solve(n, cells, solver="auto", seed=seed, time_limit=time_limit)
        if result.status is Status.SAT:
            raise InternalSolverError(f"n = {n}: {cells} was searched exhaustively without a solution, "
                                      f"but {result.solver} found one")
        certificate = result.certificate
        if result.status is Status.UNSAT and certificate is not None and certificate.checked:
            outcome.blocked.append(BlockedClass(cells, size, result.solver, certificate.to_json(),
                                                time.perf_counter() - began))
        else:
            outcome.undecided.append(UndecidedClass(cells, size, str(result.stats.get(
                "reason", "UNSAT without a checked certificate"))))
    outcome.covered = int(np.count_nonzero(state == kernels.WITNESSED)) - searched_sat
    outcome.searched = searched_sat + len(outcome.blocked)
    outcome.witnesses = np.concatenate(kept) if kept else np.zeros((0, n), dtype=np.int64)
    outcome.seconds = time.perf_counter() - started
    return outcome


def check_outcome(outcome: TaskOutcome) -> None:
    """The driver's own acceptance test of a task's answer: every witness is a solution (``verify``), every
    blocked class is k non-attacking queens with a checked certificate, and the account adds up."""
    from nqcsp.board.problem import find_attack
    from nqcsp.proof.verifier import find_violation

    task = outcome.task
    n, k = task.n, task.k
    for witness in outcome.witnesses:
        violation = find_violation(n, witness)
        if violation is not None:
            raise InternalSolverError(f"{task}: a witness is not a solution: {violation}")
    for blocked in outcome.blocked:
        if len(set(blocked.queens)) != k or find_attack(blocked.queens) is not None:
            raise InternalSolverError(f"{task}: {blocked.queens} is not a set of {k} non-attacking queens")
        if not blocked.certificate.get("checked_by"):
            raise InternalSolverError(f"{task}: {blocked.queens} is blocked without a checked certificate")
    settled = outcome.covered + outcome.searched + len(outcome.undecided)
    if outcome.complete and settled != outcome.classes:
        raise InternalSolverError(f"{task}: {outcome.classes} classes but {settled} accounted for")


@dataclass
class SetSweep:
    """The account of one (n, k): totals over its tasks, the blocked and undecided classes."""

    n: int
    k: int
    tasks: int = 0
    tasks_done: int = 0
    classes: int = 0
    ksets: int = 0
    covered: int = 0
    searched: int = 0
    blocked: list[BlockedClass] = field(default_factory=list)
    undecided: list[UndecidedClass] = field(default_factory=list)
    witnesses: list[np.ndarray] = field(default_factory=list)
    resumed: int = 0
    seconds: float = 0.0
    complete: bool = True

    def add(self, outcome: TaskOutcome, keep_witnesses: bool) -> None:
        self.tasks_done += 1
        self.classes += outcome.classes
        self.ksets += outcome.ksets
        self.covered += outcome.covered
        self.searched += outcome.searched
        self.blocked.extend(outcome.blocked)
        self.undecided.extend(outcome.undecided)
        self.seconds += outcome.seconds
        self.complete &= outcome.complete
        if keep_witnesses and len(outcome.witnesses):
            self.witnesses.append(outcome.witnesses)

    @property
    def finished(self) -> bool:
        """Every class of every task has a verdict (possibly 'undecided')."""
        return self.complete and self.tasks_done == self.tasks

    def blocked_sets(self) -> list[tuple[Cell, ...]]:
        """Every blocked k-set (the orbits of the blocked classes), sorted."""
        found: set[tuple[Cell, ...]] = set()
        for blocked in self.blocked:
            found |= orbit_of_set(self.n, blocked.queens)
        return sorted(found)

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "k": self.k, "classes": self.classes, "ksets": self.ksets,
                "covered_by_witnesses": self.covered, "decided_by_search": self.searched,
                "blocked_classes": len(self.blocked),
                "blocked_ksets": sum(b.size for b in self.blocked),
                "undecided_classes": len(self.undecided), "tasks": self.tasks, "tasks_done": self.tasks_done,
                "finished": self.finished, "seconds": round(self.seconds, 3),
                "blocked": [b.to_json() for b in sorted(self.blocked, key=lambda b: b.queens)],
                "undecided": [u.to_json() for u in self.undecided]}


def checkpoint_header(n: int, k: int, seed: int, stop_at_blocked: bool) -> dict[str, Any]:
    return {"kind": "queen-sets", "format": _FORMAT, "n": n, "k": k, "seed": seed,
            "stop_at_blocked": stop_at_blocked, "task_sets": TASK_SETS}


def load_queen_set_kernels() -> None:
    """Load the kernels into this process, as before forking workers (see ``nqcsp.runtime.parallel``)."""
    for task in plan_set_tasks(5, 2)[:1]:
        decide_task(task)


def iter_set_sweep(n: int, k: int, *, executor: Executor | None = None, jobs: int | None = None,
                   seed: int = 0, time_limit: float | None = None, stop_at_blocked: bool = False,
                   checkpoint: str | None = None,
                   keep_witnesses: bool = False) -> Generator[SetSweep, None, None]:
    """Run the sweep of (n, k), yielding the running account after each task (checked, and recorded in
    ``checkpoint`` when given: a rerun with the same file resumes where it stopped).

    With ``stop_at_blocked`` the sweep ends at the first certified blocked class (what the threshold
    needs). Closing the generator, or an interrupt, cancels the pending tasks at once.
    """
    from nqcsp.runtime.checkpoint import Checkpoint
    from nqcsp.runtime.parallel import InProcess, run_tasks

    n, k = check_size(n, k)
    time_limit = as_time_limit(time_limit)
    tasks = plan_set_tasks(n, k)
    account = SetSweep(n, k, tasks=len(tasks))
    store = Checkpoint(checkpoint, checkpoint_header(n, k, seed, stop_at_blocked)) if checkpoint else None
    pending = []
    for task in tasks:
        record = store.done.get(task.ident) if store is not None else None
        if record is None:
            pending.append(task)
            continue
        outcome = TaskOutcome.from_json(record["outcome"])
        check_outcome(outcome)
        account.add(outcome, keep_witnesses)
        account.resumed += 1
    if account.resumed:
        yield account
    if stop_at_blocked and account.blocked:
        return
    if executor is None and n <= 8:
        executor = InProcess()
    work = [(task, seed, time_limit, stop_at_blocked) for task in pending]
    with contextlib.closing(run_tasks(decide_task, work, executor=executor, jobs=jobs)) as results:
        for _, outcome in results:
            check_outcome(outcome)
            if store is not None:
                store.record(outcome.task.ident, {"outcome": outcome.to_json()})
            account.add(outcome, keep_witnesses)
            yield account
            if stop_at_blocked and outcome.blocked:
                return


def set_sweep(n: int, k: int, *, executor: Executor | None = None, jobs: int | None = None, seed: int = 0,
              time_limit: float | None = None, stop_at_blocked: bool = False, checkpoint: str | None = None,
              keep_witnesses: bool = False, progress: Callable[[SetSweep], None] | None = None) -> SetSweep:
    """The whole account of (n, k) (see ``iter_set_sweep``); ``progress(account)`` after each task."""
    account = SetSweep(*check_size(n, k))
    with contextlib.closing(iter_set_sweep(n, k, executor=executor, jobs=jobs, seed=seed,
                                           time_limit=time_limit, stop_at_blocked=stop_at_blocked,
                                           checkpoint=checkpoint, keep_witnesses=keep_witnesses)) as running:
        for account in running:
            if progress is not None:
                progress(account)
    return account

