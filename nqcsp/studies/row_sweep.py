"""The level sweep by row combinations: every set of k mutually non-attacking queens on the n x n board
covered by a witness (a solution containing it, or one of its 8 images) or decided, for levels whose
classes are too many to name one by one (5 queens at n = 24: 1.5 x 10^10 classes of 1.2 x 10^11 sets,
where the class sweep's cover cache would need a bit per 5-set of the board's cells, 64 GB).

A set of k queens lies on k distinct rows. For each k-combination R of rows (only R up to its row mirror
n - 1 - R: the witnesses' images are closed under the board's symmetries, so the sets on the mirror are the
mirror images of those on R), a worker clears a block of bits, one per column tuple up to its column mirror
(``nqcsp.bitboard.row_sweep_kernels``: half a megabyte at n = 24, k = 5), marks the tuples that every image
of every known witness places on R, then enumerates every tuple of non-attacking queens on R and tests its
bit. An unmarked tuple gets a randomised search for a solution (tens of microseconds at n = 24); a solution
becomes a new witness, marked at once. A search that gives up goes to the residual engine and, exhausted,
to ``nqcsp.solve(..., solver="auto")`` for a certificate (``queen_sets.settle_open_set``): a certified set
is a blocked set of k queens, which ends the threshold at a(n) = k - 1.

The witnesses of a sweep live in one file, appended to by the driver only, after it has verified them:
``n`` bytes a witness (the column of each row). A sweep first fills it with randomised solutions (about as
many as there are sets on one row combination: each covers 8 sets of every combination, so that little is
left to search per combination), then runs batches of consecutive combinations on any Executor; a worker
reads the witnesses the file holds whenever it starts a combination, so the witnesses one worker finds
serve the others once the driver has appended them. With a checkpoint (``checkpoint`` names its JSON-lines
file; the witnesses go to ``checkpoint + ".witnesses"``) every finished batch is recorded after its
witnesses are appended and synced, with the number of witnesses the file then holds: a run killed at any
moment resumes with the batches recorded, the witness file cut back to the last record, and nothing lost
but the batches in flight or counted twice. Which witnesses a batch saw depends on timing, so two runs keep
different witnesses; the evidence is re-checked on its own (``nqcsp.studies.evidence``), with code that
shares nothing with this sweep.

What a resumed checkpoint says is checked for its form and its arithmetic (each batch's sets are the sum
of its covered, found, searched, blocked and undecided ones; every task named is one of the plan) and every
witness of its file is verified, but a batch's coverage is not swept again (that is the sweep's whole
cost, where the class sweep re-decides each record's few classes): the claim of a resumed run, like any
run's, stands on the evidence's re-check (``check_threshold``), which marks every set again.

This module is the row sweep's driver and its account, on the skeleton both level sweeps share
(``level_sweep``: the records, the resume check, the account); the tasks are ``row_tasks``', the witness
file ``witness_file``'s. The names callers take from here are re-exported (``__all__``).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import uuid
from collections.abc import Generator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.runtime.limits import as_time_limit
from nqcsp.runtime.values import as_int
from nqcsp.studies.ksets import burnside_classes
from nqcsp.studies.level_sweep import LevelAccount, LevelRecords, SweptLevel
from nqcsp.studies.row_tasks import (
    RowOutcome,
    cached_plan,
    check_row_sweep_size,
    combination_weights,
    plan_combinations,
    random_solutions,
    sets_per_combination,
    sweep_combos,
)
from nqcsp.studies.witness_file import WitnessFile, verified_rows, witness_path

__all__ = ["RowOutcome", "RowSweep", "WitnessFile", "burnside_classes", "check_row_sweep_size",
           "checkpoint_header", "combination_weights", "iter_row_sweep", "plan_combinations",
           "sets_per_combination", "sweep_combos"]

BATCH_COMBOS = 64            # row combinations per task: a second or two at n = 24, k = 5
RANDOM_BATCH = 20_000        # randomised solutions per task of the first phase
_FORMAT = 1


@dataclass
class RowSweep(LevelAccount[RowOutcome]):
    """The account of one level swept by row combinations (``LevelAccount``: the tasks, the blocked and
    undecided classes), in sets: ``sets`` = ``covered`` (by witnesses known when reached) + ``found`` (new
    witnesses of the randomised search) + ``searched`` (witnesses of the residual engine) +
    ``blocked_sets`` + ``undecided_sets``. ``witnesses``: every witness of the sweep, filled in when it has
    finished."""

    combos: int = 0
    sets: int = 0
    covered: int = 0
    found: int = 0
    searched: int = 0
    blocked_sets: int = 0
    undecided_sets: int = 0
    witness_count: int = 0
    initial: int = 0
    random: int = 0
    cpu_seconds: float = 0.0
    witnesses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.uint8))
    hint_parts: list[np.ndarray] = field(default_factory=list, repr=False)

    @property
    def hints(self) -> np.ndarray:
        """A derived sweep's positions so far, ascending: one for each witness its randomised search found
        (``nqcsp.bitboard.derived_witnesses``)."""
        if not self.hint_parts:
            return np.zeros(0, dtype=np.int64)
        return np.sort(np.concatenate(self.hint_parts))

    def count(self, outcome: RowOutcome) -> None:
        self.hint_parts.append(outcome.hints)
        self.combos += outcome.hi - outcome.lo
        self.sets += outcome.sets
        self.covered += outcome.covered
        self.found += outcome.found
        self.searched += outcome.searched
        self.blocked_sets += outcome.blocked_sets
        self.undecided_sets += outcome.undecided_sets
        self.cpu_seconds += outcome.cpu_seconds

    def level(self) -> SweptLevel:
        """The classes are counted by Burnside's lemma from the sets (none when the sweep stopped at a
        blocked set: its sets are not all counted)."""
        classes = 0 if self.blocked else burnside_classes(self.n, self.k, self.sets)
        return SweptLevel(self.k, "rows", classes, self.sets, covered=self.covered + self.found,
                          searched=self.searched, tasks=self.tasks_done, seconds=self.seconds,
                          witnesses=self.witness_count, blocked=tuple(self.blocked),
                          undecided=tuple(self.undecided),
                          stopped={"sets_decided_before_stop": self.sets, "tasks_done": self.tasks_done})

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "k": self.k, "sets": self.sets, "covered_by_witnesses": self.covered,
                "found_by_randomised_search": self.found, "decided_by_search": self.searched,
                "blocked_sets": self.blocked_sets, "undecided_sets": self.undecided_sets,
                "blocked_classes": len(self.blocked), "undecided_classes": len(self.undecided),
                "tasks": self.tasks, "tasks_done": self.tasks_done, "combinations": self.combos,
                "witnesses": self.witness_count, "initial_witnesses": self.initial,
                "random_witnesses": self.random, "resumed_tasks": self.resumed,
                "finished": self.finished, "seconds": round(self.seconds, 3),
                "cpu_seconds": round(self.cpu_seconds, 3),
                "blocked": [b.to_json() for b in sorted(self.blocked, key=lambda b: b.queens)],
                "undecided": [u.to_json() for u in self.undecided]}


def checkpoint_header(n: int, k: int, seed: int, stop_at_blocked: bool, batch: int,
                      derived: bool = False) -> dict[str, Any]:
    # "derived" only when set: the checkpoints of sweeps that keep their witnesses read as before.
    return {"kind": "queen-sets-by-rows", "format": _FORMAT, "n": n, "k": k, "seed": seed,
            "stop_at_blocked": stop_at_blocked, "batch": batch, **({"derived": True} if derived else {})}


def iter_row_sweep(n: int, k: int, *, executor: Executor | None = None, jobs: int | None = None,
                   seed: int = 0, time_limit: float | None = None, stop_at_blocked: bool = False,
                   checkpoint: str | None = None, initial: np.ndarray | None = None,
                   random_witnesses: int | None = None, batch: int = BATCH_COMBOS,
                   derived: bool = False) -> Generator[RowSweep, None, None]:
    """Sweep the level (n, k) by row combinations (see the module), yielding the running account after
    each task. ``initial``: witnesses to start from (those of the levels below, say), verified first;
    ``random_witnesses``: how many randomised solutions to add before the combinations (default: about
    the sets of one combination, less ``initial``); ``checkpoint``: a JSON-lines file (and its
    ``.witnesses``) that a rerun resumes from. With ``stop_at_blocked`` the sweep ends at the first
    certified blocked set. Closing the generator, or an interrupt, cancels the pending tasks at once.

    ``derived``: each witness of the randomised search can be derived again from its set's position
    (``nqcsp.bitboard.derived_witnesses``; the account's ``hints``), so that the evidence stores 2 or 3
    bytes for it instead of 9. No randomised solutions are made first then (``random_witnesses`` defaults
    to 0): solutions made for no set in particular cover the sets that are hard to reach no better, and
    would be stored whole."""
    from nqcsp.runtime.parallel import InProcess, run_tasks

    n, k = check_row_sweep_size(n, k)
    time_limit = as_time_limit(time_limit)
    batch = as_int(batch, "batch")
    if batch < 1:
        raise ValueError(f"batch must be at least 1 row combination, got {batch}")
    if random_witnesses is not None:
        random_witnesses = as_int(random_witnesses, "random_witnesses")
        if random_witnesses < 0:
            raise ValueError(f"random_witnesses must be 0 or more, got {random_witnesses}")
    combos = cached_plan(n, k)
    if derived and len(combos) * n ** k >= 2 ** 63:
        raise ValueError(f"k = {k} queens on an {n} x {n} board: positions of sets would need more than 63 "
                         "bits, too many to derive witnesses from")
    bounds = list(range(0, len(combos), batch)) + [len(combos)]
    spans = list(itertools.pairwise(bounds))
    account = RowSweep(n, k, tasks=len(spans))
    if executor is None and n <= 8:
        executor = InProcess()
    run = uuid.uuid4().hex        # the workers' copies of the witness file are of this run only
    store = LevelRecords(checkpoint, checkpoint_header(n, k, seed, stop_at_blocked, batch, derived))
    records = store.done
    with witness_path(checkpoint) as path:
        file = WitnessFile(path, n)
        if records:
            file.cut(max(record.integer("witnesses", 0) for record in records.values()))
            verified_rows(n, file.read(), f"witness file {str(path)!r}")
        else:
            file.cut(0)          # a witness file whose checkpoint recorded nothing: start afresh

        def commit(task: str, rows: np.ndarray, record: dict[str, Any]) -> None:
            """Append a task's witnesses, verified, then record it: a kill between the two leaves
            witnesses past the last record, cut off on resume."""
            count = file.append(verified_rows(n, rows, f"task {task}")) if len(rows) else file.count()
            store.record(task, {"witnesses": count, **record})
            account.witness_count = count

        if "initial" in records:
            account.initial = records["initial"].integer("initial", 0)
            wanted = records["initial"].integer("random", 0)
        else:
            rows = np.zeros((0, n), dtype=np.uint8) if initial is None else np.asarray(initial)
            account.initial = len(rows)
            wanted = random_witnesses if random_witnesses is not None else 0 if derived else \
                max(0, math.ceil(sets_per_combination(n, k)) - len(rows))
            commit("initial", rows, {"initial": len(rows), "random": wanted})
        account.random = wanted
        account.witness_count = file.count()
        pieces = {f"random:{i}": (n, min(RANDOM_BATCH, wanted - i * RANDOM_BATCH), seed, i)
                  for i in range(-(-wanted // RANDOM_BATCH))}
        store.check_planned({"initial", *pieces, *(f"combos:{lo}:{hi}" for lo, hi in spans)},
                            f"n = {n}, k = {k} by rows")
        # The randomised solutions first.
        making = [(task, args) for task, args in pieces.items() if task not in records]
        with contextlib.closing(run_tasks(random_solutions, [args for _, args in making], executor=executor,
                                          jobs=jobs)) as made:
            for index, rows in made:
                commit(making[index][0], rows, {})
        # Then the combinations.
        for lo, hi in spans:
            record = records.get(f"combos:{lo}:{hi}")
            if record is not None:
                account.add(RowOutcome.from_json(record.record("outcome").data, lo, hi, n, k,
                                                 f"{record.where}: outcome"))
                account.resumed += 1
        work = [(str(path), run, n, k, lo, hi, seed, time_limit, stop_at_blocked, derived) for lo, hi in spans
                if f"combos:{lo}:{hi}" not in records]
        if not work or (stop_at_blocked and account.blocked):
            account.witnesses = file.read()
            yield account
            return
        if account.resumed:
            yield account
        # A derived sweep starts from no witness: its first task runs alone, so that the others start from
        # its witnesses instead of each finding as many of its own (at n = 26, 3.5 million a task).
        alone = 1 if derived and not account.witness_count else 0
        for phase in (work[:alone], work[alone:]):
            with contextlib.closing(run_tasks(sweep_combos, phase, executor=executor, jobs=jobs)) as results:
                for _, outcome in results:
                    commit(outcome.ident, outcome.witnesses, {"outcome": outcome.to_json()})
                    account.add(outcome)
                    stop = stop_at_blocked and bool(outcome.blocked)
                    if account.finished or stop:
                        account.witnesses = file.read()
                    yield account
                    if stop:
                        return
