"""The n-queens completion threshold (OEIS A374013): the largest a(n) such that every placement of a(n) or
fewer mutually non-attacking queens on an n x n board extends to a solution, with its evidence.

``completion_threshold(n)`` sweeps k = 1, 2, ... (``nqcsp.studies.queen_sets``): every class of k-sets
covered by a witness or decided, until the first k with a blocked class; then a(n) = k - 1. Before each
level's sweep from k = 2 on it may search for a blocked set (``search_first``: the k-queens solutions
placed as blocks, then annealing), which ends the run at that level without its sweep. ``up_to`` stops after
sweeping that level: a(n) >= up_to, proven, when no blocked set of one more queen was found.

Each level's sweep shares a cover cache (``cover_cache.cover_cache``): a witness found for one class covers
the classes of every later task, so the evidence keeps tens of thousands of witnesses where each task
kept its own (2.3 million at n = 22). The evidence (``nqcsp.studies.evidence``: the claim, the blocked set
and its certificate, every level's count of sets, the witnesses) is what ``check_threshold`` and
``nqcsp check-threshold`` re-check, with code the sweep does not use.
"""

from __future__ import annotations

import contextlib
import pathlib
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from nqcsp.board.problem import Cell, as_board_size
from nqcsp.board.result import Certificate, InternalSolverError, Status
from nqcsp.runtime.paths import make_directory
from nqcsp.runtime.values import as_seconds
from nqcsp.studies.evidence import (
    CERTIFICATE_FIELDS,
    CheckReport,
    DerivedWitnesses,
    Evidence,
    check_evidence,
    evidence_from_json,
)
from nqcsp.studies.level_sweep import BlockedClass, LevelAccount, SweptLevel, UndecidedClass

if TYPE_CHECKING:
    from nqcsp.studies.blockade_search import SearchReport

ENGINES = ("classes", "rows")
Account = TypeVar("Account", bound=LevelAccount[Any])
Progress = Callable[[int, LevelAccount[Any]], None]     # after each task: the level and its account


class UndecidedError(RuntimeError):
    """Some class could not be decided (a time limit, or no second complete backend installed), so the
    threshold is not known."""


@dataclass
class Level:
    """The account of the sets of ``k`` queens: every class covered by a witness or decided by search."""

    k: int
    classes: int
    ksets: int
    covered: int
    searched: int
    tasks: int
    seconds: float
    witnesses: int = 0
    engine: str = "classes"

    def to_json(self) -> dict[str, Any]:
        """``covered_by_witnesses`` and ``decided_by_search`` count classes for the class sweep, sets for
        the sweep by row combinations (``engine``)."""
        return {"k": self.k, "classes": self.classes, "ksets": self.ksets,
                "covered_by_witnesses": self.covered, "decided_by_search": self.searched,
                "tasks": self.tasks, "seconds": round(self.seconds, 3), "witnesses": self.witnesses,
                "engine": self.engine}


@dataclass
class Threshold:
    """a(n) (``value``) with its evidence. ``exact``: a(n) = value, with ``blocked`` (a(n) + 1 queens, no
    solution, ``certificate`` checked); else a(n) >= value, proven by the levels alone (``search`` says
    what the search for a blocked set of value + 1 queens spent). ``levels``: k = 0..value, every class
    completable; ``witnesses``: the solutions that cover them all."""

    n: int
    value: int
    blocked: tuple[Cell, ...]
    certificate: Certificate | None
    levels: list[Level] = field(default_factory=list)
    witnesses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.uint8))
    blocked_level: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    exact: bool = True
    search: dict[str, Any] = field(default_factory=dict)
    derived: DerivedWitnesses | None = None

    @property
    def witness_count(self) -> int:
        """The witnesses stored and derived."""
        return len(self.witnesses) + (0 if self.derived is None else len(self.derived.positions))

    def evidence(self) -> Evidence:
        return Evidence(self.n, self.value, self.exact, self.blocked if self.exact else (),
                        self.certificate if self.exact else None, tuple(level.ksets for level in self.levels),
                        self.witnesses, self.derived)

    def to_json(self) -> dict[str, Any]:
        """The evidence document ``check_threshold`` (``nqcsp check-threshold FILE``) re-checks."""
        return self.evidence().to_json()

    def run_json(self) -> dict[str, Any]:
        """What the run did (not evidence: nothing of it is re-checked)."""
        return {"n": self.n, "value": self.value, "exact": self.exact, "seconds": round(self.seconds, 3),
                "levels": [level.to_json() for level in self.levels], "blocked_level": self.blocked_level,
                "search": self.search, "witnesses": self.witness_count,
                **({} if self.derived is None else {"derived_witnesses": len(self.derived.positions)})}


def _as_threshold_size(n: object) -> int:
    size = as_board_size(n)
    if size < 4:
        raise ValueError(f"n must be at least 4 (OEIS A374013 starts at n = 4: smaller boards have no "
                         f"solution or only trivial ones), got {size}")
    return size


@contextlib.contextmanager
def _executor(n: int, executor: Executor | None, jobs: int | None) -> Iterator[Executor]:
    from nqcsp.runtime.parallel import InProcess, owned_pool

    if executor is not None:
        yield executor
        return
    if n <= 10:
        yield InProcess()        # a whole run under a second: no pool to start (and spawn-safe)
        return
    with owned_pool(jobs) as pool:
        yield pool


def completion_threshold(n: int, *, executor: Executor | None = None, jobs: int | None = None,
                         seed: int = 0, checkpoint_dir: str | None = None, search_first: float = 0.0,
                         up_to: int | None = None, memory_limit: int | None = None,
                         progress: Callable[[int, Any], None] | None = None,
                         engine: str = "classes", derived: bool = False) -> Threshold:
    """a(n) of OEIS A374013 with its evidence (see the module's doc). ``checkpoint_dir`` keeps each level's
    finished tasks (``n{n}-k{k}.jsonl``), so that a rerun resumes; ``progress(k, account)`` is called after
    each task. Raises ``UndecidedError`` when a class stays undecided (a backend missing, say).

    ``search_first``: seconds of search for a blocked set of k queens (``nqcsp.studies.blockade_search``:
    the k-queens solutions placed as blocks, then one annealing chain per worker) before each level's sweep
    from k = 2 on; a certified blocked set it finds ends the run at that level without the sweep (whose
    first blocked class can be hours away on large boards: 5 queens at n = 20). The levels below are swept
    whole either way. ``up_to``: sweep no level past it; with no blocked set found by then, the answer is
    the proven bound a(n) >= up_to (``exact`` False). ``memory_limit``: bytes for the cover caches
    (default: the memory available). ``engine``: how the levels from k = 2 on are swept, "classes" (one
    canonical set per class, ``nqcsp.studies.queen_sets``) or "rows" (every set by row combinations,
    ``nqcsp.studies.row_sweep``: the level of 5 queens at n = 24 and beyond, whose classes no cover
    cache holds); with "rows" each level starts from the witnesses of the levels below. ``derived`` (with
    "rows" only): the witnesses of the top level's randomised search are stored as the positions of their
    sets, derived again by the re-check (evidence version 3, a third of the size or less; see
    ``nqcsp.studies.evidence``)."""
    from nqcsp.api import solve
    from nqcsp.runtime.limits import as_memory_limit

    n = _as_threshold_size(n)
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    if derived and engine != "rows":
        raise ValueError(f"derived witnesses come from the sweep by rows (engine='rows'), not {engine!r}")
    if search_first != 0:
        search_first = as_seconds(search_first, "search_first")
    folder = None if checkpoint_dir is None else make_directory(checkpoint_dir, "checkpoint directory")
    if up_to is not None and (isinstance(up_to, bool) or not isinstance(up_to, int) or not 0 <= up_to < n):
        raise ValueError(f"up_to must be a level from 0 to n - 1 = {n - 1}, got {up_to!r}")
    memory = as_memory_limit(memory_limit)
    started = time.perf_counter()
    first = solve(n, solver="auto", seed=seed)
    if first.status is not Status.SAT:
        raise InternalSolverError(f"n = {n} has solutions, but auto answered {first.status}")
    levels = [Level(0, 1, 1, 1, 0, 0, first.stats.get("wall_s", 0.0), 1)]
    witnesses = [np.asarray(first.columns, dtype=np.int64).reshape(1, n)]
    searched: dict[str, Any] = {}
    # A derived sweep's positions by level, with the checkpoint they were resumed from (None: this run's).
    hints: dict[int, tuple[np.ndarray, str | None]] = {}

    def result(value: int, exact: bool, blocked: tuple[Cell, ...] = (),
               certificate: Certificate | None = None, how: dict[str, Any] | None = None) -> Threshold:
        kept = np.unique(np.concatenate(witnesses).astype(np.uint8), axis=0)
        found = None
        if value in hints and len(hints[value][0]):
            found, kept = _derived_part(n, value, *hints[value], seed, kept)
        return Threshold(n, value, blocked, certificate, levels[:value + 1], kept, how or {},
                         time.perf_counter() - started, exact, searched, found)

    def finish(k: int, blocked: Sequence[BlockedClass], how: dict[str, Any]) -> Threshold:
        """a(n) = k - 1: the least blocked class found, its certificate kept whole."""
        least = min(blocked, key=lambda b: b.queens)
        return result(k - 1, True, least.queens, certified_blocked(n, least.queens, seed), {"k": k, **how})

    with _executor(n, executor, jobs) as pool:
        for k in range(1, n + 1):
            if search_first > 0 and k >= 2:
                report = _search(n, k, search_first, seed, pool)
                searched = {"k": k, **report.to_json()}
                if report.blocked:
                    return finish(k, report.blocked, {"found_by": "search", "search_seconds": search_first,
                                                      "classes_decided_before_stop": report.decided})
            if up_to is not None and k > up_to:
                return result(up_to, False, how={"k": k, "found_by": None})
            if engine == "rows" and k >= 2:
                swept, kept, hints[k] = _row_level(n, k, pool, seed, folder, witnesses, progress, derived)
            else:
                swept, kept = _class_level(n, k, pool, seed, folder, witnesses, progress, memory)
            if swept.blocked:        # the evidence keeps the witnesses of the levels below only
                return finish(k, swept.blocked, {"found_by": "sweep", **swept.stopped})
            _refuse_undecided(n, k, swept.undecided)
            levels.append(Level(k, classes=swept.classes, ksets=swept.sets, covered=swept.covered,
                                searched=swept.searched, tasks=swept.tasks, seconds=swept.seconds,
                                witnesses=swept.witnesses, engine=swept.engine))
            witnesses[:] = kept
    raise InternalSolverError(f"n = {n}: every set of queens completes, which no board allows")


def _last_account(running: Generator[Account, None, None], n: int, k: int, progress: Progress | None,
                  what: str) -> Account:
    """A sweep's account once it has ended, each one it yields on the way shown to ``progress``."""
    account = None
    with contextlib.closing(running):
        for account in running:
            if progress is not None:
                progress(k, account)
    if account is None:
        raise InternalSolverError(f"n = {n}, k = {k}: {what} planned no task")
    return account


def _refuse_undecided(n: int, k: int, undecided: Sequence[UndecidedClass]) -> None:
    if undecided:
        raise UndecidedError(f"n = {n}: {len(undecided)} classes of {k} queens undecided, such as "
                             f"{undecided[0].queens} ({undecided[0].reason})")


def _class_level(n: int, k: int, pool: Executor, seed: int, folder: pathlib.Path | None,
                 witnesses: list[np.ndarray], progress: Progress | None,
                 memory: int) -> tuple[SweptLevel, list[np.ndarray]]:
    """Level k swept by classes with a cover cache: (what the sweep says, the witnesses so far and its
    own)."""
    from nqcsp.studies.cover_cache import cover_cache
    from nqcsp.studies.queen_sets import iter_set_sweep

    path = None if folder is None else str(folder / f"n{n}-k{k}.jsonl")
    with cover_cache(n, k, memory) as cache:
        account = _last_account(iter_set_sweep(n, k, executor=pool, seed=seed, stop_at_blocked=True,
                                                checkpoint=path, keep_witnesses=True, cover=cache),
                                n, k, progress, "the sweep")
    return account.level(), [*witnesses, *account.witnesses]


def _row_level(n: int, k: int, pool: Executor, seed: int, folder: pathlib.Path | None,
               witnesses: list[np.ndarray], progress: Progress | None,
               derived: bool) -> tuple[SweptLevel, list[np.ndarray], tuple[np.ndarray, str | None]]:
    """Level k swept by row combinations, from the witnesses so far: (what the sweep says, its witnesses,
    which include those given, the positions of a derived sweep's with the checkpoint that some of them
    were read from). A derived sweep starts from none where
    every level below extends upward (``extends_upward``: the evidence then needs no witness of them)."""
    from nqcsp.studies.evidence import extends_upward
    from nqcsp.studies.row_sweep import iter_row_sweep

    suffix = "-derived" if derived else ""
    path = None if folder is None else str(folder / f"n{n}-k{k}-rows{suffix}.jsonl")
    start = np.unique(np.concatenate(witnesses).astype(np.uint8), axis=0)
    if derived and all(extends_upward(n, below) for below in range(k)):
        start = start[:0]
    running = iter_row_sweep(n, k, executor=pool, seed=seed, stop_at_blocked=True, checkpoint=path,
                             initial=start, derived=derived)
    account = _last_account(running, n, k, progress, "the sweep by rows")
    return account.level(), [account.witnesses], (account.hints, path if account.resumed else None)


def _derived_part(n: int, k: int, positions: np.ndarray, checkpoint: str | None, seed: int,
                  rows: np.ndarray) -> tuple[DerivedWitnesses, np.ndarray]:
    """The witnesses of a derived sweep (``rows``, distinct) split into those its positions derive and the
    others, kept whole: each position derived here as the re-check will, and its solution found among the
    sweep's. Where they disagree, the positions read back from ``checkpoint`` were altered (ValueError
    naming it); without one, the sweep and the derivation disagree (InternalSolverError)."""
    from nqcsp.bitboard.derived_witnesses import NOT_DERIVED, derive
    from nqcsp.studies.level_sweep import NODES_PER_ROW
    from nqcsp.studies.row_tasks import cached_plan

    budget = NODES_PER_ROW * n
    derived = np.zeros((len(positions), n), dtype=np.uint8)
    failed = derive(n, k, cached_plan(n, k), positions, np.uint64(seed % 2 ** 64), budget, derived)
    found, made = (np.ascontiguousarray(a).view(np.dtype((np.void, n))).ravel() for a in (rows, derived))
    if failed != NOT_DERIVED or not np.isin(made, found).all():
        wrong = f"position {int(positions[failed])} derives no solution" if failed != NOT_DERIVED else \
            "a position derives a solution the sweep did not find"
        if checkpoint is not None:
            raise ValueError(f"checkpoint {checkpoint!r}: {wrong}: its records of positions were altered or "
                             "come from another nqcsp")
        raise InternalSolverError(f"n = {n}: {wrong}")
    return DerivedWitnesses(seed % 2 ** 64, budget, positions), rows[~np.isin(found, made)]


def _search(n: int, k: int, seconds: float, seed: int, pool: Executor) -> SearchReport:
    """The search for a blocked set of k queens: the k-queens solutions placed as blocks first (in this
    process), then annealing chains on the pool for what is left of ``seconds``."""
    from nqcsp.studies.blockade_search import search, search_blocks

    began = time.perf_counter()
    report = search_blocks(n, k, seconds, seed=seed, stop_at_first=True)
    left = seconds - (time.perf_counter() - began)
    if report.blocked or left <= 0.05:
        return report
    more = search(n, k, left, seed=seed, chains=getattr(pool, "max_workers", 1), executor=pool,
                  stop_at_first=True)
    more.merge(report)
    more.seconds = time.perf_counter() - began
    return more


def settled_by(evidence: Evidence, queens: tuple[Cell, ...], seed: int = 0) -> Evidence:
    """The bound a(n) >= v of ``evidence`` made exact, a(n) = v, by a blocked set of v + 1 queens found
    apart from the run (a structured search, say): certified here (``certified_blocked``), with the same
    levels and witnesses. ValueError when the evidence is exact already or the queens are not v + 1
    non-attacking cells of the board; InternalSolverError when they have a solution."""
    from nqcsp.board.problem import Problem, find_attack

    n, value = evidence.n, evidence.value
    queens = Problem(n, queens).queens
    if evidence.exact:
        raise ValueError(f"the evidence says {evidence.claim} already")
    if len(set(queens)) != value + 1 or find_attack(queens) is not None:
        raise ValueError(f"a blocked set for {evidence.claim} is {value + 1} non-attacking queens, got "
                         f"{' '.join(f'{r},{c}' for r, c in queens)}")
    return Evidence(n, value, True, tuple(queens), certified_blocked(n, tuple(queens), seed), evidence.levels,
                    evidence.witnesses, evidence.derived)


def certified_blocked(n: int, queens: tuple[Cell, ...], seed: int) -> Certificate:
    """The blocked set decided again here, for a certificate whose evidence (proof bytes) is kept whole and
    can be re-checked from the file: auto's, or else backtrack's LRAT proof, or the SAT backend's DRAT."""
    from nqcsp.api import solve

    for solver in ("auto", "backtrack", "sat"):
        result = solve(n, list(queens), solver=solver, seed=seed)
        certificate = result.certificate
        if result.status is Status.SAT:
            raise InternalSolverError(f"n = {n}: {queens} was certified blocked, but {result.solver} found "
                                      "a solution")
        if certificate is not None and certificate.checked and certificate.kind in CERTIFICATE_FIELDS:
            return certificate
    raise InternalSolverError(f"n = {n}: {queens} was certified blocked in its task, but no backend gives "
                              "a certificate that can be re-checked from the evidence file")


def check_threshold(evidence: dict[str, Any] | Evidence, time_limit: float | None = None, *,
                    memory_limit: int | None = None, executor: Executor | None = None,
                    jobs: int | None = None, outside: tuple[Any, ...] = ()) -> CheckReport:
    """Re-check an evidence document (``Threshold.to_json()``, or an ``Evidence``) without the sweep, within
    ``time_limit`` seconds for the whole check (OutOfTime("check") when it cannot end in time) and
    ``memory_limit`` bytes; ValueError naming the field when the document is not valid evidence."""
    from nqcsp.runtime.limits import Limits

    limits = Limits.start(time_limit, memory_limit)
    read = evidence if isinstance(evidence, Evidence) else evidence_from_json(evidence)
    return check_evidence(read, limits=limits, executor=executor, jobs=jobs, outside=outside)
