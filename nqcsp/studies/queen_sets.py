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
(``nqcsp.runtime.checkpoint``). With a cover cache (``cover_cache``: a bit per k-set of the board, in
shared memory) the witnesses of finished tasks cover the classes of later ones, so that a sweep that keeps
its witnesses (the threshold's evidence) keeps a few per cent of them.

This module is the class sweep's driver and its account, on the skeleton both level sweeps share
(``level_sweep``: the records, the resume check, the account); the tasks are ``set_tasks``', their re-check
``set_recheck``'s, the words for k-sets ``ksets``'. The names callers take from here are re-exported
(``__all__``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell
from nqcsp.runtime.limits import as_time_limit
from nqcsp.studies.cover_cache import CoverCache, cover_cache
from nqcsp.studies.ksets import check_size, key_cells, orbit_of_set
from nqcsp.studies.level_sweep import BlockedClass, LevelAccount, LevelRecords, SweptLevel, UndecidedClass
from nqcsp.studies.set_recheck import check_outcome, recheck_outcome, recorded_outcome, verified_witnesses
from nqcsp.studies.set_tasks import (
    TASK_SETS,
    SetTask,
    TaskOutcome,
    decide_task,
    plan_set_tasks,
    weighted_set_tasks,
)

__all__ = ["BlockedClass", "SetSweep", "SetTask", "TaskOutcome", "UndecidedClass", "check_outcome",
           "check_size", "checkpoint_header", "cover_cache", "decide_task", "iter_set_sweep", "key_cells",
           "load_queen_set_kernels", "orbit_of_set", "plan_set_tasks", "set_sweep", "weighted_set_tasks"]

_FORMAT = 1


@dataclass
class SetSweep(LevelAccount[TaskOutcome]):
    """The account of one (n, k) by classes (``LevelAccount``: the tasks, the blocked and undecided
    classes): the classes and k-sets of its tasks, those covered by witnesses and those decided by search;
    with ``keep_witnesses``, each task's witnesses."""

    classes: int = 0
    ksets: int = 0
    covered: int = 0
    searched: int = 0
    witnesses: list[np.ndarray] = field(default_factory=list)
    keep_witnesses: bool = False

    def count(self, outcome: TaskOutcome) -> None:
        self.classes += outcome.classes
        self.ksets += outcome.ksets
        self.covered += outcome.covered
        self.searched += outcome.searched
        if self.keep_witnesses and len(outcome.witnesses):
            self.witnesses.append(outcome.witnesses)

    def level(self) -> SweptLevel:
        return SweptLevel(self.k, "classes", self.classes, self.ksets, covered=self.covered,
                          searched=self.searched, tasks=self.tasks, seconds=self.seconds,
                          witnesses=sum(len(w) for w in self.witnesses), blocked=tuple(self.blocked),
                          undecided=tuple(self.undecided),
                          stopped={"classes_decided_before_stop": self.classes, "tasks_done": self.tasks_done,
                                   "tasks": self.tasks})

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
                   checkpoint: str | None = None, keep_witnesses: bool = False,
                   cover: CoverCache | None = None) -> Generator[SetSweep, None, None]:
    """Run the sweep of (n, k), yielding the running account after each task (checked, and recorded in
    ``checkpoint`` when given: a rerun with the same file resumes where it stopped). ``cover``: the
    sweep's cover cache (``cover_cache``), filled first with the witnesses of resumed tasks.

    With ``stop_at_blocked`` the sweep ends at the first certified blocked class (what the threshold
    needs). Closing the generator, or an interrupt, cancels the pending tasks at once.
    """
    from nqcsp.runtime.parallel import InProcess, run_tasks

    n, k = check_size(n, k)
    time_limit = as_time_limit(time_limit)
    tasks = plan_set_tasks(n, k)
    account = SetSweep(n, k, tasks=len(tasks), keep_witnesses=keep_witnesses)
    records = LevelRecords(checkpoint, checkpoint_header(n, k, seed, stop_at_blocked))
    records.check_planned({task.ident for task in tasks}, f"n = {n}, k = {k}")
    resumed, pending = [], []
    for task in tasks:
        record = records.done.get(task.ident)
        if record is not None:
            resumed.append((recorded_outcome(task, record.data, record.where), record.where, seed, time_limit,
                            stop_at_blocked))
        else:
            pending.append(task)
    if executor is None and n <= 8:
        executor = InProcess()
    if resumed:
        # The checkpoint's form is checked above, before any work; what it says is recomputed on the
        # executor like the tasks themselves (a fraction of a task's work), then accepted as any task's
        # answer is. With a cover cache, every resumed witness is verified and marked first: a record
        # counts the classes that witnesses of earlier records covered, and its re-check counts them too.
        if cover is not None:
            for outcome, where, *_ in resumed:
                verified_witnesses(outcome, where)
                cover.mark(outcome.witnesses)
        rechecks = [(*item, cover) for item in resumed]
        with contextlib.closing(run_tasks(recheck_outcome, rechecks, executor=executor,
                                          jobs=jobs)) as checked:
            for _, outcome in checked:
                check_outcome(outcome)
                account.add(outcome)
                account.resumed += 1
        yield account
    if stop_at_blocked and account.blocked:
        return
    work = [(task, seed, time_limit, stop_at_blocked, cover) for task in pending]
    with contextlib.closing(run_tasks(decide_task, work, executor=executor, jobs=jobs)) as results:
        for _, outcome in results:
            check_outcome(outcome)
            records.record(outcome.task.ident, {"outcome": outcome.to_json()})
            account.add(outcome)
            if cover is not None:
                cover.mark(outcome.witnesses)      # checked and recorded: see ``CoverCache.mark``
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

