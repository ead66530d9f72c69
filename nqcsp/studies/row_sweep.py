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
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import pathlib
import tempfile
import time
import uuid
from collections.abc import Generator, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell
from nqcsp.board.result import InternalSolverError
from nqcsp.runtime import limits
from nqcsp.runtime.limits import as_time_limit
from nqcsp.runtime.values import Fields, as_int, format_bytes
from nqcsp.studies.queen_sets import (
    NODES_PER_ROW,
    BlockedClass,
    UndecidedClass,
    check_size,
    settle_open_set,
)

BATCH_COMBOS = 64            # row combinations per task: a second or two at n = 24, k = 5
RANDOM_BATCH = 20_000        # randomised solutions per task of the first phase
SAMPLE_COMBOS = 64           # combinations scanned to estimate the sets per combination
_FORMAT = 1
_WITNESS_SUFFIX = ".witnesses"
# Copies of the witnesses a read holds at its peak: the bytes read, the whole witnesses cut from them and
# the driver's verified copy (a worker: its two tables by row). Estimated before the read, so that a
# witness file larger than memory is refused by its size instead of a MemoryError.
READ_COPIES = 3


def _kernels() -> Any:
    from nqcsp.bitboard import row_sweep_kernels

    return row_sweep_kernels


def plan_combinations(n: int, k: int) -> np.ndarray:
    """The k-combinations R of range(n) with R <= its row mirror (sorted n - 1 - R), lexicographically:
    shape (count, k), int64."""
    kept = [combo for combo in itertools.combinations(range(n), k)
            if combo <= tuple(sorted(n - 1 - r for r in combo))]
    return np.array(kept, dtype=np.int64).reshape(len(kept), k)


def combination_weights(n: int, combos: np.ndarray) -> np.ndarray:
    """2 for a combination whose row mirror is another one (its sets stand for the mirror's too), else 1."""
    mirrored = np.sort(n - 1 - combos, axis=1)
    return np.where((mirrored == combos).all(axis=1), 1, 2).astype(np.int64)


def check_row_sweep_size(n: int, k: int) -> tuple[int, int]:
    """(n, k) as ints that the row sweep takes, or ValueError naming what it cannot."""
    n, k = check_size(n, k)
    if n ** k >= 2 ** 62:
        raise ValueError(f"k = {k} queens on an {n} x {n} board: column tuples would need more than 62 bits")
    return n, k


# --- the witness file ------------------------------------------------------------------------------------


class WitnessFile:
    """The sweep's witnesses, ``n`` bytes each, appended by the driver (verified first) and read by the
    workers (``_Loaded``)."""

    def __init__(self, path: pathlib.Path, n: int) -> None:
        self.path = path
        self.n = n

    def count(self) -> int:
        try:
            return self.path.stat().st_size // self.n
        except FileNotFoundError:
            return 0

    def append(self, rows: np.ndarray) -> int:
        """Append ``rows`` (verified solutions), synced before returning the count now held."""
        data = np.ascontiguousarray(rows, dtype=np.uint8).tobytes()
        try:
            with open(self.path, "ab") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise ValueError(f"cannot write the witness file {str(self.path)!r}: {exc.strerror or exc}") \
                from None
        return self.count()

    def read(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Witnesses ``start .. stop - 1`` (to the last whole one when ``stop`` is None), (m, n) uint8;
        ValueError naming the size when their copies cannot fit in the memory available."""
        size = max(0, (self.count() if stop is None else stop) - start) * self.n
        available = limits.available_memory()
        if size * READ_COPIES > available:
            raise ValueError(f"the witness file {str(self.path)!r} holds {format_bytes(size)} of witnesses "
                             f"to read, {READ_COPIES} copies of which do not fit in the "
                             f"{format_bytes(available)} of memory available")
        with open(self.path, "rb") as handle:
            handle.seek(start * self.n)
            data = handle.read() if stop is None else handle.read((stop - start) * self.n)
        whole = len(data) // self.n
        return np.frombuffer(data[:whole * self.n], dtype=np.uint8).reshape(whole, self.n)

    def cut(self, count: int) -> None:
        """Keep the first ``count`` witnesses (what the checkpoint records): bytes of a batch that was
        being appended when the run was killed go."""
        if self.count() < count:
            raise ValueError(f"the witness file {str(self.path)!r} holds {self.count()} witnesses, but its "
                             f"checkpoint records {count}: it was truncated or replaced")
        try:
            with open(self.path, "ab") as handle:
                handle.truncate(count * self.n)
        except OSError as exc:
            raise ValueError(f"cannot write the witness file {str(self.path)!r}: {exc.strerror or exc}") \
                from None


def verified_rows(n: int, rows: np.ndarray, where: str) -> np.ndarray:
    """``rows`` as (m, n) uint8 if every one is a solution, else ValueError naming ``where`` and the first
    one that is not (with ``nqcsp.proof.verifier``'s reason). The driver's acceptance test of what its
    workers found, in bulk (millions of witnesses at n = 24: one call of the verifier each would cost
    minutes); the evidence's re-check verifies every witness again with code of its own."""
    from nqcsp.proof.verifier import find_violation

    rows = np.asarray(rows)
    if rows.ndim != 2 or rows.shape[1] != n or rows.dtype.kind not in "iu":
        raise ValueError(f"{where}: witnesses must be rows of {n} integer columns, got {rows.dtype} "
                         f"{rows.shape}")
    good = np.ones(len(rows), dtype=bool)
    line = np.arange(n)
    for start in range(0, len(rows), 1 << 16):
        part = rows[start:start + (1 << 16)].astype(np.int64)
        ok = (np.sort(part, axis=1) == line).all(axis=1)
        for diagonal in (part + line, part - line):
            ok &= (np.diff(np.sort(diagonal, axis=1), axis=1) != 0).all(axis=1)
        good[start:start + len(part)] = ok
    if not good.all():
        index = int(np.flatnonzero(~good)[0])
        raise ValueError(f"{where}: witness {index} is not a solution: {find_violation(n, rows[index])}")
    return rows.astype(np.uint8)


class _Loaded:
    """A worker's copy of the witness file, by row (``cols_t[row, w]``) with inverses: the file's first
    ``in_file`` witnesses, then those its task found (``count`` in all). One per process, kept between
    tasks of the same file and grown as the file grows."""

    def __init__(self, path: str, n: int) -> None:
        self.file = WitnessFile(pathlib.Path(path), n)
        self.n = n
        self.in_file = 0
        self.count = 0
        self.cols_t = np.zeros((n, 0), dtype=np.uint8)
        self.inverse_t = np.zeros((n, 0), dtype=np.uint8)

    def reserve(self, room: int) -> None:
        """Capacity for ``room`` more witnesses than held now."""
        need = self.count + room
        if need <= self.cols_t.shape[1]:
            return
        capacity = max(need, 2 * self.cols_t.shape[1], 1024)
        for name in ("cols_t", "inverse_t"):
            grown = np.zeros((self.n, capacity), dtype=np.uint8)
            grown[:, :self.count] = getattr(self, name)[:, :self.count]
            setattr(self, name, grown)

    def append(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        self.reserve(len(rows))
        stop = self.count + len(rows)
        self.cols_t[:, self.count:stop] = rows.T
        self.inverse_t[rows.T, np.arange(self.count, stop)[None, :]] = \
            np.arange(self.n, dtype=np.uint8)[:, None]
        self.count = stop

    def refresh(self, own: np.ndarray) -> None:
        """The witnesses appended to the file since the last look, then the task's ``own`` after them."""
        self.count = self.in_file
        self.append(self.file.read(self.in_file))
        self.in_file = self.count
        self.append(own)


_LOADED: dict[tuple[str, str], _Loaded] = {}


def _loaded(path: str, run: str, n: int) -> _Loaded:
    """This process's copy of the witness file of ``run``: a file is append-only during its run, but a
    resumed run cuts it back and appends other witnesses."""
    if (path, run) not in _LOADED:
        _LOADED.clear()          # one sweep at a time
        _LOADED[(path, run)] = _Loaded(path, n)
    return _LOADED[(path, run)]


# --- one task ---------------------------------------------------------------------------------------------


@dataclass
class RowOutcome:
    """A task's account, in sets (a set and its images on the mirrored rows and columns each count):
    ``sets`` on its combinations = ``covered`` by witnesses known when the scan reached them + ``found`` by
    new witnesses of the randomised search + ``searched`` by the residual engine's witnesses +
    ``blocked_sets`` + ``undecided_sets``; the blocked and undecided classes (each once, canonical, with
    its size); ``witnesses``: the new ones, (m, n) uint8. ``complete`` is False when the task stopped at a
    blocked set."""

    lo: int
    hi: int
    sets: int = 0
    covered: int = 0
    found: int = 0
    searched: int = 0
    blocked_sets: int = 0
    undecided_sets: int = 0
    blocked: list[BlockedClass] = field(default_factory=list)
    undecided: list[UndecidedClass] = field(default_factory=list)
    witnesses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.uint8))
    known: int = 0
    complete: bool = True
    seconds: float = 0.0
    cpu_seconds: float = 0.0

    @property
    def ident(self) -> str:
        return f"combos:{self.lo}:{self.hi}"

    def to_json(self) -> dict[str, Any]:
        return {"sets": self.sets, "covered": self.covered, "found": self.found, "searched": self.searched,
                "blocked_sets": self.blocked_sets, "undecided_sets": self.undecided_sets,
                "blocked": [b.to_json() for b in self.blocked],
                "undecided": [u.to_json() for u in self.undecided], "known": self.known,
                "complete": self.complete, "seconds": round(self.seconds, 4),
                "cpu_seconds": round(self.cpu_seconds, 4)}

    @classmethod
    def from_json(cls, data: object, lo: int, hi: int, n: int, k: int, where: str) -> RowOutcome:
        """What ``to_json`` wrote for the task ``lo .. hi - 1``, each field's form checked (ValueError naming
        ``where``); its witnesses are those the checkpoint's witness file holds."""
        fields = Fields(data, where)
        sets, covered, found, searched = (fields.integer(name, 0)
                                          for name in ("sets", "covered", "found", "searched"))
        # The first records of this format had no count of blocked and undecided sets: none were listed.
        blocked_sets, undecided_sets = (fields.integer(name, 0) if name in fields.data else 0
                                        for name in ("blocked_sets", "undecided_sets"))
        if covered + found + searched + blocked_sets + undecided_sets != sets:
            raise ValueError(f"{where}: its {sets} sets are not the sum of its covered, found, searched, "
                             "blocked and undecided ones")
        blocked = [BlockedClass.from_json(entry.data, n, k, entry.where)
                   for entry in fields.records("blocked")]
        undecided = [UndecidedClass.from_json(entry.data, n, k, entry.where)
                     for entry in fields.records("undecided")]
        return cls(lo, hi, sets, covered, found, searched, blocked_sets, undecided_sets, blocked, undecided,
                   np.zeros((0, n), dtype=np.uint8), fields.integer("known", 0), fields.flag("complete"),
                   fields.number("seconds"),
                   fields.number("cpu_seconds") if "cpu_seconds" in fields.data else 0.0)


_PLANS: dict[tuple[int, int], np.ndarray] = {}


def _plan(n: int, k: int) -> np.ndarray:
    if (n, k) not in _PLANS:
        _PLANS.clear()
        _PLANS[(n, k)] = plan_combinations(n, k)
    return _PLANS[(n, k)]


def _rng(seed: int, salt: int) -> np.ndarray:
    mixed = (seed * 0x9E3779B97F4A7C15 + salt * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) % 2**64
    return np.array([mixed or 1], dtype=np.uint64)


def _bit(block: np.ndarray, n: int, columns: np.ndarray) -> bool:
    """Whether the block marks the tuple ``columns`` (canonical: its index is at most its mirror's)."""
    index = 0
    for col in columns.tolist():
        index = index * n + col
    return bool(int(block[index >> 6]) >> (index & 63) & 1)


def _canonical_class(n: int, cells: tuple[Cell, ...]) -> tuple[tuple[Cell, ...], int]:
    """The class of ``cells``: its canonical set (least key) and its size."""
    from nqcsp.bitboard.queen_set_kernels import class_of
    from nqcsp.studies.queen_sets import key_cells

    codes = np.array(sorted(r * n + c for r, c in cells), dtype=np.int64)
    least, _, size = class_of(n, codes, len(codes), np.empty(len(codes), dtype=np.int64))
    return key_cells(n, len(cells), int(least)), int(size)


def sweep_combos(path: str, run: str, n: int, k: int, lo: int, hi: int, seed: int = 0,
                 time_limit: float | None = None, stop_at_blocked: bool = False) -> RowOutcome:
    """Combinations ``lo .. hi - 1`` of ``plan_combinations(n, k)`` swept against the witnesses of the
    file ``path`` of the sweep ``run`` (read again before each combination), those found here kept in
    ``witnesses``."""
    kernels = _kernels()
    started, cpu = time.perf_counter(), time.process_time()
    combos = _plan(n, k)
    weights = combination_weights(n, combos[lo:hi])
    loaded = _loaded(path, run, n)
    own = np.zeros((0, n), dtype=np.uint8)
    loaded.refresh(own)
    outcome = RowOutcome(lo, hi, known=loaded.in_file)
    block = np.zeros(kernels.block_words(n, k), dtype=np.uint64)
    rng = _rng(seed, lo)
    no_hard = np.zeros((0, k), dtype=np.int64)
    decided: dict[tuple[Cell, ...], BlockedClass | UndecidedClass] = {}   # classes blocked or undecided
    for offset, rows in enumerate(combos[lo:hi]):
        loaded.refresh(own)
        block[:] = 0
        kernels.mark_combo(n, k, rows, loaded.cols_t, loaded.inverse_t, 0, loaded.count, block)
        totals = np.zeros(4, dtype=np.int64)
        _, _, _, uncovered = kernels.scan_combo(n, k, rows, loaded.cols_t, loaded.inverse_t, loaded.count,
                                                block, False, 0, rng, no_hard, totals)
        searched = 0
        met: dict[tuple[Cell, ...], int] = {}      # sets of the classes in ``decided`` on these rows
        if uncovered:
            loaded.reserve(uncovered)
            hard = np.zeros((uncovered, k), dtype=np.int64)
            totals[:] = 0
            before = loaded.count
            status, loaded.count, hard_count, _ = kernels.scan_combo(
                n, k, rows, loaded.cols_t, loaded.inverse_t, before, block, True, NODES_PER_ROW * n, rng,
                hard, totals)
            if status != kernels.SCANNED:
                raise InternalSolverError(f"n = {n}, rows {rows.tolist()}: a solution found for a set of "
                                          "queens does not contain it")
            found = [loaded.cols_t[:, before:loaded.count].T]
            for columns in hard[:hard_count]:
                weight = 2 - int(k == 1 and n % 2 == 1 and columns[0] == (n - 1) // 2)
                totals[3] -= weight
                if _bit(block, n, columns):
                    searched += weight     # covered by the residual engine's witness for another set here
                    continue
                cells = tuple((int(r), int(c)) for r, c in zip(rows.tolist(), columns.tolist(), strict=True))
                queens, size = _canonical_class(n, cells)
                if queens in decided:
                    met[queens] = met.get(queens, 0) + weight
                    continue
                witness, blocked, undecided = settle_open_set(n, queens, size, seed, time_limit,
                                                              exhausted=False)
                if witness is not None:
                    rows_found = np.asarray(witness, dtype=np.uint8)
                    loaded.append(rows_found)
                    found.append(rows_found)
                    kernels.mark_combo(n, k, rows, loaded.cols_t, loaded.inverse_t, loaded.count - 1,
                                       loaded.count, block)     # the residual engine's witness
                    if not _bit(block, n, columns):
                        raise InternalSolverError(f"n = {n}: the residual engine's solution for {queens} "
                                                  f"covers no image of {cells}")
                    searched += weight
                    continue
                named = blocked if blocked is not None else undecided
                assert named is not None
                (outcome.blocked if blocked is not None else outcome.undecided).append(named)  # type: ignore[arg-type]
                decided[queens] = named
                met[queens] = weight
                if blocked is not None and stop_at_blocked:
                    outcome.complete = False
                    break
            own = np.concatenate([own, *found])
        multiple = int(weights[offset])
        for queens, spent in met.items():
            if isinstance(decided[queens], BlockedClass):
                outcome.blocked_sets += multiple * spent
            else:
                outcome.undecided_sets += multiple * spent
        outcome.sets += multiple * int(totals[0])
        outcome.covered += multiple * int(totals[1])
        outcome.found += multiple * int(totals[2])
        outcome.searched += multiple * searched
        if not outcome.complete:
            break
    outcome.witnesses = own
    outcome.seconds = time.perf_counter() - started
    outcome.cpu_seconds = time.process_time() - cpu
    return outcome


def random_solutions(n: int, how_many: int, seed: int, salt: int) -> np.ndarray:
    """``how_many`` solutions of the empty board by randomised search, (how_many, n) uint8."""
    kernels = _kernels()
    cols_t = np.zeros((n, how_many), dtype=np.uint8)
    inverse_t = np.zeros((n, how_many), dtype=np.uint8)
    kernels.random_witnesses(n, how_many, NODES_PER_ROW * n, _rng(seed, -1 - salt), cols_t, inverse_t, 0)
    return np.ascontiguousarray(cols_t.T)


def sets_per_combination(n: int, k: int, sample: int = SAMPLE_COMBOS) -> float:
    """The mean number of sets of k non-attacking queens on one combination of k rows, over ``sample``
    combinations spread over the plan (exact when the plan has no more)."""
    kernels = _kernels()
    combos = _plan(n, k)
    picked = np.unique(np.linspace(0, len(combos) - 1, min(sample, len(combos))).astype(np.int64))
    block = np.zeros(kernels.block_words(n, k), dtype=np.uint64)
    empty = np.zeros((n, 0), dtype=np.uint8)
    totals = np.zeros(4, dtype=np.int64)
    for rows in combos[picked]:
        kernels.scan_combo(n, k, rows, empty, empty, 0, block, False, 0, _rng(0, 0),
                           np.zeros((0, k), dtype=np.int64), totals)
    return float(totals[0]) / len(picked)


# --- the driver -------------------------------------------------------------------------------------------


@dataclass
class RowSweep:
    """The account of one level swept by row combinations, in sets: ``sets`` = ``covered`` (by witnesses
    known when reached) + ``found`` (new witnesses of the randomised search) + ``searched`` (witnesses of
    the residual engine) + ``blocked_sets`` + ``undecided_sets``; ``blocked`` and ``undecided`` name each
    class once. ``witnesses``: every witness of the sweep, filled in when it has finished."""

    n: int
    k: int
    tasks: int = 0
    tasks_done: int = 0
    combos: int = 0
    sets: int = 0
    covered: int = 0
    found: int = 0
    searched: int = 0
    blocked_sets: int = 0
    undecided_sets: int = 0
    blocked: list[BlockedClass] = field(default_factory=list)
    undecided: list[UndecidedClass] = field(default_factory=list)
    witness_count: int = 0
    initial: int = 0
    random: int = 0
    resumed: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    complete: bool = True
    witnesses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.uint8))

    def add(self, outcome: RowOutcome) -> None:
        self.tasks_done += 1
        self.combos += outcome.hi - outcome.lo
        self.sets += outcome.sets
        self.covered += outcome.covered
        self.found += outcome.found
        self.searched += outcome.searched
        self.blocked_sets += outcome.blocked_sets
        self.undecided_sets += outcome.undecided_sets
        known = {b.queens for b in self.blocked} | {u.queens for u in self.undecided}
        self.blocked.extend(b for b in outcome.blocked if b.queens not in known)
        self.undecided.extend(u for u in outcome.undecided if u.queens not in known)
        self.seconds += outcome.seconds
        self.cpu_seconds += outcome.cpu_seconds
        self.complete &= outcome.complete

    @property
    def finished(self) -> bool:
        return self.complete and self.tasks_done == self.tasks

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


def checkpoint_header(n: int, k: int, seed: int, stop_at_blocked: bool, batch: int) -> dict[str, Any]:
    return {"kind": "queen-sets-by-rows", "format": _FORMAT, "n": n, "k": k, "seed": seed,
            "stop_at_blocked": stop_at_blocked, "batch": batch}


@contextlib.contextmanager
def _witness_path(checkpoint: str | None) -> Iterator[pathlib.Path]:
    """The checkpoint's witness file, or a scratch file that goes with the sweep however it ends
    (``nqcsp.runtime.scratch``: a SIGKILL left the temporary file of a sweep without a checkpoint)."""
    from nqcsp.runtime.paths import file_to_append
    from nqcsp.runtime.scratch import process_file, release

    if checkpoint is not None:
        yield file_to_append(str(checkpoint) + _WITNESS_SUFFIX, "witness file")
        return
    scratch = process_file("nqcsp-witnesses")
    if scratch is None:
        raise ValueError(f"no room for the sweep's witness file in the temporary folder "
                         f"{tempfile.gettempdir()!r}")
    name, handle = scratch
    try:
        yield pathlib.Path(name)
    finally:
        release(name, handle)


def iter_row_sweep(n: int, k: int, *, executor: Executor | None = None, jobs: int | None = None,
                   seed: int = 0, time_limit: float | None = None, stop_at_blocked: bool = False,
                   checkpoint: str | None = None, initial: np.ndarray | None = None,
                   random_witnesses: int | None = None,
                   batch: int = BATCH_COMBOS) -> Generator[RowSweep, None, None]:
    """Sweep the level (n, k) by row combinations (see the module), yielding the running account after
    each task. ``initial``: witnesses to start from (those of the levels below, say), verified first;
    ``random_witnesses``: how many randomised solutions to add before the combinations (default: about
    the sets of one combination, less ``initial``); ``checkpoint``: a JSON-lines file (and its
    ``.witnesses``) that a rerun resumes from. With ``stop_at_blocked`` the sweep ends at the first
    certified blocked set. Closing the generator, or an interrupt, cancels the pending tasks at once."""
    from nqcsp.runtime.checkpoint import Checkpoint
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
    combos = _plan(n, k)
    bounds = list(range(0, len(combos), batch)) + [len(combos)]
    spans = list(itertools.pairwise(bounds))
    account = RowSweep(n, k, tasks=len(spans))
    if executor is None and n <= 8:
        executor = InProcess()
    run = uuid.uuid4().hex        # the workers' copies of the witness file are of this run only
    store = None if checkpoint is None else Checkpoint(checkpoint, checkpoint_header(
        n, k, seed, stop_at_blocked, batch))
    with _witness_path(checkpoint) as path:
        file = WitnessFile(path, n)
        records = {} if store is None else {task: Fields(record, store.where(task))
                                             for task, record in store.done.items()}
        if records:
            file.cut(max(record.integer("witnesses", 0) for record in records.values()))
            verified_rows(n, file.read(), f"witness file {str(path)!r}")
        else:
            file.cut(0)          # a witness file whose checkpoint recorded nothing: start afresh

        def commit(task: str, rows: np.ndarray, record: dict[str, Any]) -> None:
            """Append a task's witnesses, verified, then record it: a kill between the two leaves
            witnesses past the last record, cut off on resume."""
            count = file.append(verified_rows(n, rows, f"task {task}")) if len(rows) else file.count()
            if store is not None:
                store.record(task, {"witnesses": count, **record})
            account.witness_count = count

        if "initial" in records:
            account.initial = records["initial"].integer("initial", 0)
            wanted = records["initial"].integer("random", 0)
        else:
            rows = np.zeros((0, n), dtype=np.uint8) if initial is None else np.asarray(initial)
            account.initial = len(rows)
            wanted = random_witnesses if random_witnesses is not None else \
                max(0, math.ceil(sets_per_combination(n, k)) - len(rows))
            commit("initial", rows, {"initial": len(rows), "random": wanted})
        account.random = wanted
        account.witness_count = file.count()
        pieces = {f"random:{i}": (n, min(RANDOM_BATCH, wanted - i * RANDOM_BATCH), seed, i)
                  for i in range(-(-wanted // RANDOM_BATCH))}
        planned = {"initial", *pieces, *(f"combos:{lo}:{hi}" for lo, hi in spans)}
        for task in records:
            if task not in planned:
                raise ValueError(f"{records[task].where}: {task!r} is not a task of the sweep of n = {n}, "
                                 f"k = {k} by rows")
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
        work = [(str(path), run, n, k, lo, hi, seed, time_limit, stop_at_blocked) for lo, hi in spans
                if f"combos:{lo}:{hi}" not in records]
        if not work or (stop_at_blocked and account.blocked):
            account.witnesses = file.read()
            yield account
            return
        if account.resumed:
            yield account
        with contextlib.closing(run_tasks(sweep_combos, work, executor=executor, jobs=jobs)) as results:
            for _, outcome in results:
                commit(outcome.ident, outcome.witnesses, {"outcome": outcome.to_json()})
                account.add(outcome)
                stop = stop_at_blocked and bool(outcome.blocked)
                if account.finished or stop:
                    account.witnesses = file.read()
                yield account
                if stop:
                    return


# --- classes by Burnside's lemma ------------------------------------------------------------------------


def fixed_sets(n: int, k: int, symmetry: tuple[bool, bool, bool]) -> int:
    """Sets of k mutually non-attacking queens that ``symmetry`` (``nqcsp.board.symmetry``) maps onto
    themselves: unions of its orbits of cells, each orbit free of attacks within."""
    from nqcsp.board.symmetry import cell_image

    seen: set[Cell] = set()
    orbits: list[list[Cell]] = []
    for row, col in itertools.product(range(n), repeat=2):
        cell = (row, col)
        if cell in seen:
            continue
        orbit = [cell]
        while (image := cell_image(n, orbit[-1], symmetry)) != cell:
            orbit.append(image)
        seen.update(orbit)
        if len(orbit) <= k and not any(_attack(a, b) for a, b in itertools.combinations(orbit, 2)):
            orbits.append(orbit)
    sizes = [len(orbit) for orbit in orbits]
    peaceful = np.array([[not any(_attack(a, b) for a in x for b in y) for y in orbits] for x in orbits],
                        dtype=bool).reshape(len(orbits), len(orbits))

    def count(candidates: np.ndarray, left: int) -> int:
        if left == 0:
            return 1
        total = 0
        for position, orbit in enumerate(candidates.tolist()):
            if sizes[orbit] <= left:
                later = candidates[position + 1:]
                total += count(later[peaceful[orbit, later]], left - sizes[orbit])
        return total

    return count(np.arange(len(orbits)), k)


def _attack(a: Cell, b: Cell) -> bool:
    return a[0] == b[0] or a[1] == b[1] or a[0] + a[1] == b[0] + b[1] or a[0] - a[1] == b[0] - b[1]


def burnside_classes(n: int, k: int, sets: int) -> int:
    """Classes of the ``sets`` sets of k queens under the board's 8 symmetries: the mean number of sets
    each symmetry fixes (Burnside's lemma); the identity fixes them all."""
    from nqcsp.board.symmetry import SYMMETRIES

    fixed = sets + sum(fixed_sets(n, k, symmetry) for symmetry in SYMMETRIES if any(symmetry))
    if fixed % 8:
        raise InternalSolverError(f"n = {n}, k = {k}: {fixed} fixed sets over 8 symmetries is not a whole "
                                  "number of classes: the count of sets is wrong")
    return fixed // 8
