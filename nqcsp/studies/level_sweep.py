"""The skeleton of a level sweep, which the class sweep (``queen_sets``: one canonical set per class of
k-sets) and the row sweep (``row_sweep``: every set, by row combinations) fill in:

- **the plan's records**: ``LevelRecords``, the checkpoint a rerun resumes from, with the resume check
  that every task it records is one of this run's plan (before any work: a checkpoint of another level, or
  one edited, counts nothing);
- **the account**: ``LevelAccount``, the running totals that every finished task adds to, whichever sweep
  ran it (the blocked and undecided classes, each named once, the seconds, whether every task ran whole),
  and ``SweptLevel``, what a level sweep says once it has ended, by name: what the threshold records of the
  level and the blocked classes it stopped at;
- **a set no witness covers**: ``settle_open_set`` gives it the residual engine, then ``auto``'s
  certificate, and the two records of what that can end in, ``BlockedClass`` and ``UndecidedClass``.

Each sweep plans its own tasks, runs them and adds its own counts (``LevelAccount.count``: classes for the
class sweep, sets for the row sweep); what is the same in both is here, once.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import numpy as np

from nqcsp.board.problem import Cell
from nqcsp.board.result import InternalSolverError, Status
from nqcsp.runtime.values import Fields

NODES_PER_ROW = 2_000       # the randomised search's budget per set: NODES_PER_ROW * n nodes


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


class TaskAccount(Protocol):
    """What every task of a level sweep answers, beside its sweep's own counts."""

    blocked: list[BlockedClass]
    undecided: list[UndecidedClass]
    seconds: float
    complete: bool


Outcome = TypeVar("Outcome", bound=TaskAccount)


@dataclass(frozen=True)
class SweptLevel:
    """A level sweep's answer once it has ended (or stopped at a blocked class), by name. ``covered`` and
    ``searched`` count what ``engine`` counts: classes for "classes", sets for "rows" (``classes`` is then
    Burnside's count, 0 when the sweep stopped); ``witnesses``: how many the level keeps; ``stopped``:
    what the sweep had decided when it stopped at ``blocked``, for the run's record."""

    k: int
    engine: str
    classes: int
    sets: int
    covered: int
    searched: int
    tasks: int
    seconds: float
    witnesses: int
    blocked: tuple[BlockedClass, ...]
    undecided: tuple[UndecidedClass, ...]
    stopped: dict[str, Any]


@dataclass
class LevelAccount(Generic[Outcome]):
    """The running account of one level (n, k): ``tasks`` planned, ``tasks_done`` added (``resumed`` of
    them read back from a checkpoint), every blocked and undecided class once (a class the row sweep meets
    on several row combinations is named by each of their tasks), the tasks' seconds, and ``complete``
    False once a task stopped at a blocked class. A sweep's account adds its own counts (``count``)."""

    n: int
    k: int
    tasks: int = 0
    tasks_done: int = 0
    blocked: list[BlockedClass] = field(default_factory=list)
    undecided: list[UndecidedClass] = field(default_factory=list)
    resumed: int = 0
    seconds: float = 0.0
    complete: bool = True
    _named: set[tuple[Cell, ...]] = field(default_factory=set, init=False, repr=False, compare=False)

    def add(self, outcome: Outcome) -> None:
        """One finished task, checked by the driver."""
        self.tasks_done += 1
        self.count(outcome)
        self.blocked.extend(b for b in outcome.blocked if self._first(b.queens))
        self.undecided.extend(u for u in outcome.undecided if self._first(u.queens))
        self.seconds += outcome.seconds
        self.complete &= outcome.complete

    def _first(self, queens: tuple[Cell, ...]) -> bool:
        """Whether the class of ``queens`` is named here for the first time (then it is, from now on)."""
        if queens in self._named:
            return False
        self._named.add(queens)
        return True

    def count(self, outcome: Outcome) -> None:
        """The sweep's own counts of ``outcome``."""
        raise NotImplementedError

    def level(self) -> SweptLevel:
        """What the sweep says of its level, once it has ended."""
        raise NotImplementedError

    @property
    def finished(self) -> bool:
        """Every set of every task has a verdict (possibly 'undecided')."""
        return self.complete and self.tasks_done == self.tasks


class LevelRecords:
    """A level sweep's checkpoint (``nqcsp.runtime.checkpoint``): ``done``, the tasks an earlier run
    recorded (task id -> its record's fields, which name the file and line), and ``record``, each task as
    it finishes. With no checkpoint, nothing is read back and nothing kept."""

    def __init__(self, checkpoint: str | None, header: dict[str, Any]) -> None:
        from nqcsp.runtime.checkpoint import Checkpoint

        self.store = None if checkpoint is None else Checkpoint(checkpoint, header)
        self.done: dict[str, Fields] = {} if self.store is None else {
            task: Fields(record, self.store.where(task)) for task, record in self.store.done.items()}

    def check_planned(self, planned: Collection[str], sweep: str) -> None:
        """The resume check: every recorded task is one of ``planned`` (ValueError naming its line and
        ``sweep``, what the plan is of)."""
        for task, record in self.done.items():
            if task not in planned:
                raise ValueError(f"{record.where}: {task!r} is not a task of the sweep of {sweep}")

    def record(self, task: str, record: dict[str, Any]) -> None:
        """``task`` finished: its record written and synced before it counts."""
        if self.store is not None:
            self.store.record(task, record)
