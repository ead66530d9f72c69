"""The class sweep's tasks (``queen_sets``): the plan, a task of the canonical k-sets whose first cell is
one class of cells and whose second lies in a range, of about ``TASK_SETS`` k-sets each; a task's account
(``TaskOutcome``, as its checkpoint line records it); and how a task is decided (``decide_task``: the
randomised search's witnesses, then ``settle_open_set`` for each class they leave)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.result import InternalSolverError
from nqcsp.runtime.values import Fields
from nqcsp.studies.cover_cache import CoverCache
from nqcsp.studies.ksets import MAX_N, check_size, key_cells
from nqcsp.studies.level_sweep import NODES_PER_ROW, BlockedClass, UndecidedClass, settle_open_set

TASK_SETS = 3_000_000       # k-sets enumerated per task: about a second of one core
WITNESS_BATCH = 512


def _kernels() -> Any:
    from nqcsp.bitboard import queen_set_kernels

    return queen_set_kernels


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
    def from_json(cls, data: object, where: str = "a task's outcome") -> TaskOutcome:
        """What ``to_json`` wrote, the form of every field checked (ValueError naming the field): the task
        a board nqcsp sweeps, counts that are counts, k cells per class, witnesses n integer columns each.
        Whether what it says is true is ``recheck_outcome``'s question."""
        fields = Fields(data, where)
        n, k = fields.integer("n", 1, MAX_N), fields.integer("k", 1, MAX_N)
        try:
            n, k = check_size(n, k)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        cells = n * n
        task = SetTask(n, k, fields.integer("first", 0, cells - 1), fields.integer("second_lo", 0, cells),
                       fields.integer("second_hi", 0, cells))
        classes, ksets, covered, searched = (fields.integer(name, 0)
                                             for name in ("classes", "ksets", "covered", "searched"))
        blocked = [BlockedClass.from_json(entry.data, n, k, entry.where)
                   for entry in fields.records("blocked")]
        undecided = [UndecidedClass.from_json(entry.data, n, k, entry.where)
                     for entry in fields.records("undecided")]
        witnesses = _witness_array(fields.items("witnesses"), n, f"{where}: witnesses")
        return cls(task, classes, ksets, covered, searched, blocked, undecided, witnesses,
                   fields.flag("complete"), fields.seconds("seconds"))


def _witness_array(rows: list[Any], n: int, where: str) -> np.ndarray:
    """Rows of n integer columns as an (W, n) int64 array; floats, bools, strings, ragged rows and
    integers beyond 64 bits are refused (a float column is not truncated into one)."""
    if not rows:
        return np.zeros((0, n), dtype=np.int64)
    try:
        array = np.array(rows)
    except (ValueError, TypeError, OverflowError, RecursionError):
        array = np.zeros(0, dtype=object)
    if array.dtype.kind not in "iu" or array.ndim != 2 or array.shape[1] != n:
        raise ValueError(f"{where} must be a list of rows of {n} integer columns, got "
                         f"{str(rows[0])[:80]} ...")
    if array.size and (array.min() < 0 or array.max() >= n):
        raise ValueError(f"{where}: a column is off the {n} x {n} board")
    return array.astype(np.int64)


def _rng(seed: int, task: SetTask) -> np.ndarray:
    mixed = (seed * 0x9E3779B97F4A7C15 + task.first * 1_000_003 + task.second_lo * 7919 + task.k) % 2**64
    return np.array([mixed or 1], dtype=np.uint64)


def decide_task(task: SetTask, seed: int = 0, time_limit: float | None = None,
                stop_at_blocked: bool = False, cover: CoverCache | None = None) -> TaskOutcome:
    """Decide every class of ``task`` (``time_limit``: seconds per candidate class, None for none). With
    ``cover``, classes that a witness of a task already finished (and recorded) contains are covered at
    once; the driver, not the task, puts this task's witnesses there once it has recorded them."""
    kernels = _kernels()
    started = time.perf_counter()
    n, k = task.n, task.k
    args = (n, k, task.first, task.second_lo, task.second_hi)
    keys, sizes = kernels.task_classes(*args)
    state = np.zeros(len(keys), dtype=np.int8)
    rng = _rng(seed, task)
    kept: list[np.ndarray] = []
    known = (cover.bits(), cover.binom()) if cover is not None else None
    if known is not None:
        kernels.take_known(n, k, keys, known[1], known[0], state)
    index = 0
    while index < len(keys):
        batch = np.empty((WITNESS_BATCH, n), dtype=np.int64)
        gains = np.zeros(WITNESS_BATCH, dtype=np.int64)
        index, written, conflict = kernels.witness_pass(*args, keys, state, index, len(keys),
                                                        NODES_PER_ROW * n, rng, batch, gains)
        if conflict:
            raise InternalSolverError(f"{task}: a solution contains a class the search exhausted")
        kept.append(batch[:written][gains[:written] > 0])
        if known is not None:
            # Tasks finished meanwhile may cover more of the classes left.
            kernels.take_known(n, k, keys[index:], known[1], known[0], state[index:])
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
        witness, blocked, undecided = settle_open_set(n, cells, size, seed, time_limit,
                                                      exhausted=state[index] == kernels.EXHAUSTED)
        if witness is not None:
            gains = np.zeros(1, dtype=np.int64)
            kernels.cover_many(*args, keys, state, witness, gains)
            if gains[0] < 0 or state[index] != kernels.WITNESSED:
                raise InternalSolverError(f"{task}: the residual search's solution for {cells} "
                                          "does not cover it, or contains an exhausted class")
            kept.append(witness)
            searched_sat += 1
        if blocked is not None:
            outcome.blocked.append(blocked)
        if undecided is not None:
            outcome.undecided.append(undecided)
    outcome.covered = int(np.count_nonzero(state == kernels.WITNESSED)) - searched_sat
    outcome.searched = searched_sat + len(outcome.blocked)
    outcome.witnesses = np.concatenate(kept) if kept else np.zeros((0, n), dtype=np.int64)
    outcome.seconds = time.perf_counter() - started
    return outcome
