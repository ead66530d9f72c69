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
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Generator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell, as_board_size
from nqcsp.board.result import InternalSolverError, Status
from nqcsp.runtime.limits import as_time_limit
from nqcsp.runtime.scratch import process_file, release
from nqcsp.runtime.values import Fields, as_int

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
    def from_json(cls, data: object, n: int, k: int, where: str = "a blocked class") -> BlockedClass:
        """What ``to_json`` wrote, each field's type and range checked (ValueError naming the field)."""
        fields = Fields(data, where)
        return cls(_queens_of(fields, n, k), fields.integer("size", 1, 8), fields.text("solver"),
                   fields.record("certificate").data, fields.seconds("seconds"))


@dataclass
class UndecidedClass:
    """A class that no method decided in the time allowed: neither open nor blocked."""

    queens: tuple[Cell, ...]
    size: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"queens": [list(c) for c in self.queens], "size": self.size, "reason": self.reason}

    @classmethod
    def from_json(cls, data: object, n: int, k: int, where: str = "an undecided class") -> UndecidedClass:
        """What ``to_json`` wrote, each field's type and range checked (ValueError naming the field)."""
        fields = Fields(data, where)
        return cls(_queens_of(fields, n, k), fields.integer("size", 1, 8), fields.text("reason"))


def _queens_of(fields: Fields, n: int, k: int) -> tuple[Cell, ...]:
    """The ``queens`` field: k cells [row, col] on the n x n board."""
    cells = fields.items("queens")
    if len(cells) != k or not all(isinstance(cell, list) and len(cell) == 2 and all(
            isinstance(x, int) and not isinstance(x, bool) and 0 <= x < n for x in cell) for cell in cells):
        raise ValueError(f"{fields.where}: queens must be {k} cells [row, col] on the {n} x {n} board, "
                         f"got {str(cells)[:80]}")
    return tuple((row, col) for row, col in cells)


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


# --- the sets known covered, shared by the tasks of a sweep --------------------------------------------

# Bytes of the bit per k-set of the board above which a sweep keeps no cover cache.
COVER_CACHE_MAX_BYTES = 2 << 30
_ATTACHED: dict[str, np.ndarray] = {}


def cover_cache_bytes(n: int, k: int) -> int:
    """Bytes of a bit per k-set of the n x n board's cells (colex rank)."""
    return math.comb(n * n, k) // 8 + 1


@dataclass(frozen=True)
class CoverCache:
    """The k-sets known to extend to a solution, shared by the tasks of one sweep: a bit per k-set of the
    board, set for every k-subset of every witness found so far. A task skips the classes one of whose
    images it finds set, so a witness found by one task covers the classes of every later task: the
    sweep keeps far fewer witnesses. Only the driver sets bits, for the witnesses of tasks it has checked
    and recorded. The bits live in shared memory that the sweep holds (``path`` opens it), mapped by every
    process of a local pool or cluster; a process that cannot open it (a worker on another
    machine) sees none, and its tasks cover their own classes as without a cache. A bit is never set
    without a witness of the account, and the evidence is re-checked on its own."""

    n: int
    k: int
    path: str | None = None
    # The memory's identity (device and inode): a descriptor's path names another file once the sweep has
    # closed it, and the next level's cache may be given the same descriptor number. A worker that kept
    # the earlier level's bits under that path read them as this level's (a Dask threshold's evidence
    # missed 388 sets of 3 queens), so a cache is known by its identity, and one that opens as another
    # file is not used.
    identity: str = ""

    def bits(self) -> np.ndarray:
        key = self.identity or f"private-{self.n}-{self.k}"
        if key not in _ATTACHED:
            size = cover_cache_bytes(self.n, self.k)
            bits = None
            if self.path is not None:
                try:
                    with open(self.path, "r+b") as handle:
                        if _identity(handle.fileno()) == self.identity:
                            bits = np.memmap(handle, dtype=np.uint8, mode="r+", shape=(size,))
                except (OSError, ValueError):
                    bits = None       # another machine's cache: this process keeps its own
            _ATTACHED.clear()         # one sweep at a time: an earlier level's bits are not needed
            _ATTACHED[key] = bits if bits is not None else np.zeros(size, dtype=np.uint8)
        return _ATTACHED[key]

    def binom(self) -> np.ndarray:
        return colex_table(self.n * self.n, self.k)


def colex_table(cells: int, k: int) -> np.ndarray:
    """``table[i, m]`` = C(m, i) for i <= k and m < cells: the colex rank of a set is the sum of
    ``table[i + 1, c_i]`` over its ascending codes."""
    table = np.zeros((k + 1, cells), dtype=np.int64)
    for i in range(k + 1):
        table[i] = [math.comb(m, i) for m in range(cells)]
    return table


@contextlib.contextmanager
def cover_cache(n: int, k: int, memory: int) -> Generator[CoverCache | None, None, None]:
    """A cover cache for a sweep of (n, k), in shared memory that goes with the sweep however it ends; None
    when k < 2, when its bits would take over a quarter of ``memory`` (or ``COVER_CACHE_MAX_BYTES``), or
    when no memory or folder has room for them (the sweep is then right as without a cache, keeping more
    witnesses)."""
    size = cover_cache_bytes(n, k)
    fits = k >= 2 and size <= min(memory // 4, COVER_CACHE_MAX_BYTES)
    reserved = process_file(f"nqcsp-cover-{n}-{k}", size, in_memory=True) if fits else None
    if reserved is None:
        yield None
        return
    path, handle = reserved
    cache = CoverCache(n, k, path, _identity(handle))
    try:
        yield cache
    finally:
        _ATTACHED.pop(cache.identity, None)
        release(path, handle)


def _identity(descriptor: int) -> str:
    info = os.fstat(descriptor)
    return f"{info.st_dev}-{info.st_ino}"


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


def settle_open_set(n: int, cells: tuple[Cell, ...], size: int, seed: int, time_limit: float | None,
                    exhausted: bool) -> tuple[np.ndarray | None, BlockedClass | None, UndecidedClass | None]:
    """A set of queens no witness covers and the randomised search did not complete: (a solution with
    those queens, as a (1, n) witness, None, None) from the residual engine (``first_solution``) unless
    the randomised search ``exhausted`` it; else (None, the set certified blocked by
    ``nqcsp.solve(..., solver="auto")``, None), or (None, None, the set undecided) when no method decides it
    within ``time_limit`` seconds. ``size``: the set's class size, kept with it."""
    from nqcsp.api import solve
    from nqcsp.bitboard.residual_search import first_solution
    from nqcsp.board.problem import Problem
    from nqcsp.board.residual import residual_within
    from nqcsp.runtime.limits import Limits

    if not exhausted:
        limits = Limits.start(time_limit)
        found = first_solution(residual_within(Problem(n, cells), limits), limits)
        if found.solution is not None:
            return np.asarray(found.solution, dtype=np.int64).reshape(1, n), None, None
        if not found.exhausted:
            return None, None, UndecidedClass(cells, size, "the residual search ran out of time")
    began = time.perf_counter()
    result = solve(n, cells, solver="auto", seed=seed, time_limit=time_limit)
    if result.status is Status.SAT:
        raise InternalSolverError(f"n = {n}: {cells} was searched exhaustively without a solution, "
                                  f"but {result.solver} found one")
    certificate = result.certificate
    if result.status is Status.UNSAT and certificate is not None and certificate.checked:
        return None, BlockedClass(cells, size, result.solver, certificate.to_json(),
                                  time.perf_counter() - began), None
    return None, None, UndecidedClass(cells, size, str(result.stats.get(
        "reason", "UNSAT without a checked certificate")))


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


def recorded_outcome(task: SetTask, record: object, where: str) -> TaskOutcome:
    """The outcome a checkpoint line records for ``task``, its form checked (``TaskOutcome.from_json``) and
    its task the one it is filed under; ValueError naming ``where`` (the file and line) otherwise. What it
    says is still to be recomputed (``recheck_outcome``)."""
    outcome = TaskOutcome.from_json(Fields(record, where).record("outcome").data, f"{where}: outcome")
    if outcome.task != task:
        said = outcome.task
        raise ValueError(f"{where}: the outcome is of task {said.ident} (n = {said.n}, k = {said.k}), "
                         f"not of the task {task.ident} it is filed under")
    return outcome


def recheck_outcome(outcome: TaskOutcome, where: str, seed: int = 0, time_limit: float | None = None,
                    stop_at_blocked: bool = False, cover: CoverCache | None = None) -> TaskOutcome:
    """``outcome`` as far as it is true, recomputed from its task and its witnesses alone (and, with
    ``cover``, the witnesses of the other records, verified and marked there by the driver): the task's
    classes and k-sets enumerated again, every witness verified as a solution (``nqcsp.verify``), the
    classes they cover counted again and matched with ``covered`` and ``searched``, every blocked and
    undecided class one of the task's classes that no witness of its own covers (with its class size), the
    account whole; and every blocked class decided again by ``nqcsp.solve(..., solver="auto")``, whose
    fresh certificate replaces the recorded one (a class it cannot decide within ``time_limit`` becomes
    undecided). ValueError naming ``where`` for anything false: a record that was edited, or belongs to
    another task, counts nothing."""
    from nqcsp.api import solve
    from nqcsp.proof.verifier import find_violation

    kernels = _kernels()
    task = outcome.task
    n, k = task.n, task.k
    args = (n, k, task.first, task.second_lo, task.second_hi)

    def false(what: str) -> ValueError:
        return ValueError(f"{where}: the record of task {task.ident} is false: {what}")

    keys, sizes = kernels.task_classes(*args)
    ksets = int(sizes.sum(dtype=np.int64))
    if (outcome.classes, outcome.ksets) != (len(keys), ksets):
        raise false(f"it says {outcome.classes} classes and {outcome.ksets} sets, the task has {len(keys)} "
                    f"and {ksets}")
    for index, witness in enumerate(outcome.witnesses):
        violation = find_violation(n, witness)
        if violation is not None:
            raise false(f"witness {index} is not a solution: {violation}")
    state = np.zeros(len(keys), dtype=np.int8)
    gains = np.zeros(len(outcome.witnesses), dtype=np.int64)
    kernels.cover_many(*args, keys, state, np.ascontiguousarray(outcome.witnesses), gains)
    scratch = np.empty(k, dtype=np.int64)
    seen: set[int] = set()
    named_classes: list[BlockedClass | UndecidedClass] = [*outcome.blocked, *outcome.undecided]
    for named in named_classes:
        codes = np.array(sorted(r * n + c for r, c in named.queens), dtype=np.int64)
        least, own, size = kernels.class_of(n, codes, k, scratch)
        index = int(np.searchsorted(keys, least))
        if least != own or index >= len(keys) or keys[index] != least:
            raise false(f"{named.queens} is not a class of this task in its canonical form")
        if state[index] == kernels.WITNESSED:
            raise false(f"{named.queens} is listed undecided or blocked, but a witness completes it")
        if int(least) in seen or named.size != int(sizes[index]):
            raise false(f"{named.queens} is listed twice, or with a class size other than {sizes[index]}")
        seen.add(int(least))
        state[index] = kernels.EXHAUSTED      # named: not to be taken as covered by the cache below
    if cover is not None:
        kernels.take_known(n, k, keys, cover.binom(), cover.bits(), state)
    witnessed = int(np.count_nonzero(state == kernels.WITNESSED))
    by_search = outcome.searched - len(outcome.blocked)
    if by_search < 0 or outcome.covered + by_search != witnessed:
        raise false(f"its witnesses cover {witnessed} classes, it says {outcome.covered} covered and "
                    f"{by_search} solved by search")
    settled = witnessed + len(seen)
    stopped = stop_at_blocked and outcome.blocked
    if settled > len(keys) or (settled != len(keys) and (outcome.complete or not stopped)) \
            or (not outcome.complete and not stopped):
        raise false(f"{settled} of its {len(keys)} classes are accounted for "
                    f"({'complete' if outcome.complete else 'stopped at a blocked class'})")
    blocked: list[BlockedClass] = []
    undecided = list(outcome.undecided)
    for recorded in outcome.blocked:
        began = time.perf_counter()
        result = solve(n, list(recorded.queens), solver="auto", seed=seed, time_limit=time_limit)
        if result.status is Status.SAT:
            raise false(f"{recorded.queens} is listed blocked, but it has a solution")
        certificate = result.certificate
        if result.status is Status.UNSAT and certificate is not None and certificate.checked:
            blocked.append(BlockedClass(recorded.queens, recorded.size, result.solver, certificate.to_json(),
                                        time.perf_counter() - began))
        else:
            undecided.append(UndecidedClass(recorded.queens, recorded.size, str(result.stats.get(
                "reason", "UNSAT without a checked certificate"))))
    return TaskOutcome(task, outcome.classes, outcome.ksets, outcome.covered, by_search + len(blocked),
                       blocked, undecided, outcome.witnesses, outcome.complete, outcome.seconds)


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
                   checkpoint: str | None = None, keep_witnesses: bool = False,
                   cover: CoverCache | None = None) -> Generator[SetSweep, None, None]:
    """Run the sweep of (n, k), yielding the running account after each task (checked, and recorded in
    ``checkpoint`` when given: a rerun with the same file resumes where it stopped). ``cover``: the
    sweep's cover cache (``cover_cache``), filled first with the witnesses of resumed tasks.

    With ``stop_at_blocked`` the sweep ends at the first certified blocked class (what the threshold
    needs). Closing the generator, or an interrupt, cancels the pending tasks at once.
    """
    from nqcsp.runtime.checkpoint import Checkpoint
    from nqcsp.runtime.parallel import InProcess, run_tasks

    n, k = check_size(n, k)
    time_limit = as_time_limit(time_limit)
    tasks = plan_set_tasks(n, k)
    account = SetSweep(n, k, tasks=len(tasks))
    store = None if checkpoint is None else Checkpoint(checkpoint, checkpoint_header(n, k, seed,
                                                                                     stop_at_blocked))
    resumed, pending = [], []
    if store is not None:
        planned = {task.ident for task in tasks}
        for ident in store.done:
            if ident not in planned:
                raise ValueError(f"{store.where(ident)}: {ident!r} is not a task of the sweep of n = {n}, "
                                 f"k = {k}")
    for task in tasks:
        if store is not None and task.ident in store.done:
            where = store.where(task.ident)
            resumed.append((recorded_outcome(task, store.done[task.ident], where), where, seed, time_limit,
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
                _verified_witnesses(outcome, where)
                _remember(cover, outcome)
        rechecks = [(*item, cover) for item in resumed]
        with contextlib.closing(run_tasks(recheck_outcome, rechecks, executor=executor,
                                          jobs=jobs)) as checked:
            for _, outcome in checked:
                check_outcome(outcome)
                account.add(outcome, keep_witnesses)
                account.resumed += 1
        yield account
    if stop_at_blocked and account.blocked:
        return
    work = [(task, seed, time_limit, stop_at_blocked, cover) for task in pending]
    with contextlib.closing(run_tasks(decide_task, work, executor=executor, jobs=jobs)) as results:
        for _, outcome in results:
            check_outcome(outcome)
            if store is not None:
                store.record(outcome.task.ident, {"outcome": outcome.to_json()})
            account.add(outcome, keep_witnesses)
            _remember(cover, outcome)
            yield account
            if stop_at_blocked and outcome.blocked:
                return


def _verified_witnesses(outcome: TaskOutcome, where: str) -> None:
    """Every witness of a recorded outcome a solution (ValueError naming ``where``), before it may mark
    the cover cache."""
    from nqcsp.proof.verifier import find_violation

    for index, witness in enumerate(outcome.witnesses):
        violation = find_violation(outcome.task.n, witness)
        if violation is not None:
            raise ValueError(f"{where}: the record of task {outcome.task.ident} is false: witness {index} is "
                             f"not a solution: {violation}")


def _remember(cover: CoverCache | None, outcome: TaskOutcome) -> None:
    """A checked and recorded task's witnesses into the cover cache: only those, so that a class a task
    skips is always covered by a witness of the account (a witness of a task still running could be lost
    with it on an interrupt, and a resumed sweep would then miss it)."""
    if cover is not None and len(outcome.witnesses):
        _kernels().mark_known(cover.n, cover.k, outcome.witnesses, cover.binom(), cover.bits())


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

