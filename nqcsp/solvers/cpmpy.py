"""The ``cpmpy`` backend: the field's engines (Choco, Exact, Z3, Pumpkin, HiGHS, OR-Tools, PySAT) through
CPMpy's one model, each in a child process of its own.

The model is the project's CP model: a variable q per row, AllDifferent on q, q + r and q - r. On the
residual board (``nqcsp.board.residual``: the free rows, each with the free columns no mandatory queen
attacks) when it has at most ``RESIDUAL_MAX_FREE`` free rows, else on the whole board with the mandatory
queens as fixed values. CPMpy carries it to the engine; for HiGHS it linearises it, for PySAT it encodes
it into CNF (its sums need the ``pypblib`` and ``pindakaas`` packages).

A third-party native engine runs in ``nqcsp.solvers.cpmpy_worker``, a child process in a process group of
its own, kept between calls (a warm call costs the model and the search, not the imports): the engine
gets what is left of the call's time limit as CPMpy's own ``time_limit``, and the group is killed when
the deadline passes by ``HARD_STOP_S`` whatever the engine does, so a call keeps its limit even when an
engine ignores it. A crash of the engine (the child dies, or says the engine raised) is an
``InternalSolverError`` naming the engine, and the next call starts a fresh child. The child's memory is
estimated before the model is built (``request_for``): a board too big is UNKNOWN naming its size.

The child is a ``nqcsp.runtime.warm_child.WarmChild``: it lives as long as this process, whichever thread
started it. Threads calling one engine at once take turns on its child (``Engine``), each waiting no
longer than its own deadline; a process forked from this one starts children of its own.

An UNSAT is the engine's claim (``Certificate("claim")``, unchecked): nothing of it can be re-checked,
so ``nqcsp solve`` exits 5, ``auto`` (which never runs an outside engine) decides with a certified
answer, and the benchmarks compare each claim with a certified one.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import subprocess
import sys
import threading
import time
from typing import Any

from nqcsp.board.problem import Problem
from nqcsp.board.residual import estimated_bytes as residual_bytes
from nqcsp.board.residual import residual_of
from nqcsp.board.result import Certificate, InternalSolverError, Result, Status, columns_array
from nqcsp.runtime.lazy import MissingDependency
from nqcsp.runtime.limits import Limits, OutOfTime, time_limit_reason
from nqcsp.runtime.warm_child import ChildCrashed, WarmChild
from nqcsp.solvers.base import BUILD_S, SEARCH_S, SOLVE_S, Clock

FIELD_EXTRA = "pip install 'nqcsp[field]'"
# CPMpy's engine names that nqcsp runs, and the Python modules each needs besides CPMpy. PySAT reaches
# its SAT solvers as "pysat:NAME" (any PySAT solver name); the model's sums need PBLib and pindakaas there.
ENGINES: dict[str, tuple[str, ...]] = {
    "ortools": ("ortools",),
    "choco": ("pychoco",),
    "exact": ("exact",),
    "z3": ("z3",),
    "pumpkin": ("pumpkin_solver",),
    "highs": ("highspy",),
    "pysat": ("pysat", "pypblib", "pindakaas"),
}
DEFAULT_ENGINE = "ortools"
# The kind of an engine's UNSAT: a claim nqcsp cannot re-check.
CLAIM = "claim"
# The residual model up to this many free rows (its domains travel to the child as JSON, free^2 numbers at
# most), the whole board's model above.
RESIDUAL_MAX_FREE = 1000
# Seconds past the deadline before the child's group is killed: the engine's own time limit stops it
# first when it keeps it; this bounds the call when it does not (the promise allows max(10%, 0.5 s)).
HARD_STOP_S = 0.25
# Bytes of a fresh child (Python, CPMpy, numpy and an engine loaded), and per cell of the residual model:
# a CP engine keeps domains (a few words a cell); an engine CPMpy encodes (HiGHS, Exact, Z3, PySAT) gets
# a Boolean per cell with the sums over it, as Python objects first. Estimates, to refuse what cannot fit.
CHILD_BYTES = 300 << 20
CP_BYTES_PER_CELL = 64
ENCODED_BYTES_PER_CELL = 4096
# The whole board's model in a CP engine's child, as bytes per row and per cell (n^2), from the child's
# peak RSS on empty boards (2026-12-01): OR-Tools 3.8 KB a row once CPMpy handed it the model (10^4 and
# 10^5 rows) but 27 KB a row after 184 s of search at 10^5 rows (2.7 GB); Choco 38 KB a row at 2,500 and
# 5,000 rows but 86 KB at 20,000 (1.8 GB, 47 s): its memory grows faster than the rows; Pumpkin 1.0 GB at
# 2,500 rows (48 s), 166 bytes a cell: its model grows with the square of the rows. So n = 10^6 needs
# 32 GB on OR-Tools, and far more on the others.
CP_BOARD_BYTES = {"ortools": (32 << 10, 0), "choco": (48 << 10, 8), "pumpkin": (4 << 10, 256)}
# The stats name of the seconds a call waited for its engine's child to start (0 when it was warm).
START_WAITED_S = "start_waited_s"
# The stats name of the seconds a call waited for its turn on the child (other threads' calls before it).
QUEUED_S = "queued_s"


def engine_modules(engine: str) -> tuple[str, ...]:
    return ENGINES[engine.split(":", 1)[0]]


def engine_installed(engine: str) -> bool:
    return all(importlib.util.find_spec(module) is not None for module in ("cpmpy", *engine_modules(engine)))


def installed_engines() -> list[str]:
    """The engine names whose Python packages are installed here."""
    return [name for name in ENGINES if engine_installed(name)]


def check_engine(value: Any) -> str:
    """A CPMpy engine name nqcsp runs: one of ``ENGINES``, or ``pysat:NAME`` with a PySAT solver name.

    ValueError for an unknown name (listing the installed ones), MissingDependency naming the pip extra
    for a known engine that is not installed.
    """
    if not isinstance(value, str):
        raise TypeError(f"option engine must be a CPMpy engine name (str), got {value!r}")
    base, _, sub = value.partition(":")
    if base not in ENGINES or (sub and base != "pysat") or value.endswith(":"):
        installed = ", ".join(installed_engines()) or "none (" + FIELD_EXTRA + ")"
        raise ValueError(f"option engine: unknown engine {value!r}; installed here: {installed}; "
                         f"known: {', '.join(ENGINES)}, pysat:NAME")
    if not engine_installed(value):
        missing = [m for m in ("cpmpy", *engine_modules(value)) if importlib.util.find_spec(m) is None]
        raise MissingDependency(f"engine {value!r} needs the Python package(s) {', '.join(missing)}, which "
                                f"are not installed: {FIELD_EXTRA}")
    if sub:
        from nqcsp.solvers.sat import canonical_solver_name

        return f"pysat:{canonical_solver_name(sub)}"
    return value


def request_for(problem: Problem, limits: Limits, engine: str) -> tuple[dict[str, Any], Any]:
    """The model to send, and the residual board its values are of (None for the whole board's model).
    The child's memory is estimated first."""
    free = problem.free_row_count
    # An engine CPMpy encodes pays per cell on either model; a CP engine's whole board has interval domains.
    per_row, per_cell = CP_BOARD_BYTES.get(engine, (0, ENCODED_BYTES_PER_CELL))
    if free <= RESIDUAL_MAX_FREE:
        limits.need_memory("build", residual_bytes(problem), f"the {free} x {free} residual board")
        residual = residual_of(problem)
        cells = residual.cell_count
        limits.need_memory("build", CHILD_BYTES + per_row * free + max(per_cell, CP_BYTES_PER_CELL) * cells,
                           f"{engine}'s model of {cells} cells in its child process")
        domains = [residual.cols[residual.allowed[i]].tolist() for i in range(residual.size)]
        return {"model": "residual", "rows": residual.rows.tolist(), "domains": domains}, residual
    n = problem.n
    # Refused here, before anything is built or sent, when it cannot fit.
    limits.need_memory("build", CHILD_BYTES + per_row * n + per_cell * n * n,
                       f"{engine}'s model of the whole {n} x {n} board in its child process")
    return {"model": "board", "n": n, "queens": problem.queen_array.tolist()}, None


def worker_command(engine: str) -> list[str]:
    """The child process of ``engine``: ``nqcsp.solvers.cpmpy_worker`` under this interpreter."""
    return [sys.executable, "-m", "nqcsp.solvers.cpmpy_worker", engine]


class EngineWorker:
    """One engine's warm child (``nqcsp.runtime.warm_child``), with the message it said when ready.
    Used by one caller at a time: its engine's ``Engine.lock`` is held around every use."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.child = WarmChild.start(worker_command(engine), name=f"engine {engine!r}")
        self.ready: dict[str, Any] | None = None

    @property
    def proc(self) -> subprocess.Popen[bytes]:
        return self.child.proc

    def alive(self) -> bool:
        return self.child.alive()

    def wait_ready(self, deadline: float | None) -> bool:
        """Whether the child has said it is ready (waiting until ``deadline`` for it)."""
        if self.ready is None:
            message = self._receive(deadline)
            if message is None:
                return False
            if "error" in message:
                self.kill()
                raise InternalSolverError(f"engine {self.engine!r} did not start: {message['error']}")
            self.ready = message
        return True

    def ask(self, request: dict[str, Any], deadline: float | None) -> dict[str, Any] | None:
        """The engine's answer to ``request``; None when the deadline passed by ``HARD_STOP_S`` (the child
        is then killed)."""
        try:
            self.child.send(request)
        except ChildCrashed as exc:
            raise InternalSolverError(str(exc)) from None
        answer = self._receive(None if deadline is None else deadline + HARD_STOP_S)
        if answer is None:
            self.kill()
        return answer

    def _receive(self, deadline: float | None) -> dict[str, Any] | None:
        try:
            return self.child.receive(deadline)
        except ChildCrashed as exc:
            raise InternalSolverError(str(exc)) from None

    def kill(self) -> None:
        self.child.close()


class Engine:
    """One engine's place in this process: its warm child, and the lock its callers queue on.

    Calls from many threads take turns on the one child, each waiting no longer than its own deadline:
    a child costs hundreds of megabytes (``CHILD_BYTES``) and seconds to start, and the field times one
    engine's search at a time, so a child per thread would buy a shared machine's cores at the price of
    memory and start-ups. Only the holder of ``lock`` touches ``worker``, so no call can write to a child
    another call has killed and replaced."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.lock = threading.Lock()
        self.worker: EngineWorker | None = None

    def current(self) -> EngineWorker:
        """The warm child, started when there is none or the last one ended (``lock`` held)."""
        if self.worker is None or not self.worker.alive():
            if self.worker is not None:
                self.worker.kill()
            self.worker = EngineWorker(self.engine)
        return self.worker

    def drop(self) -> None:
        """Kill the child (``lock`` held); the next call starts a fresh one."""
        worker, self.worker = self.worker, None
        if worker is not None:
            worker.kill()


_engines: dict[str, Engine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_slot(engine: str) -> Engine:
    """This process's place for ``engine``."""
    with _ENGINES_LOCK:
        slot = _engines.get(engine)
        if slot is None:
            slot = _engines[engine] = Engine(engine)
        return slot


def worker_for(engine: str) -> EngineWorker:
    """This process's warm child for ``engine``, started when there is none (waiting for its turn)."""
    slot = engine_slot(engine)
    with slot.lock:
        return slot.current()


def _forget_engines() -> None:
    """In a forked process: the parent's children and locks are the parent's (a lock may have been held by
    one of its threads at the fork). Close this process's copies of their pipes, kill nothing, and start
    afresh, so that a call here starts a child of its own and never writes into the parent's."""
    global _engines, _ENGINES_LOCK
    for slot in _engines.values():
        if slot.worker is not None:
            slot.worker.child.forget()
    _engines, _ENGINES_LOCK = {}, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_engines)


@atexit.register
def stop_workers() -> None:
    """Every engine child this process started ends with it."""
    with _ENGINES_LOCK:
        slots = list(_engines.values())
        _engines.clear()
    for slot in slots:
        if slot.worker is not None and slot.worker.child.owner == os.getpid():
            slot.worker.kill()
        slot.worker = None


class CpmpySolver:
    name = "cpmpy"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              engine: str = DEFAULT_ENGINE, **options: Any) -> Result:
        clock = Clock(limits)
        request, residual = request_for(problem, limits, engine)
        # No child is started for a call whose time is already spent: it would load for nobody.
        limits.check_time("start")
        slot = engine_slot(engine)
        wait = limits.remaining()
        queued = time.perf_counter()
        # Another thread's call holds the child: wait for the turn, never past this call's deadline.
        if not slot.lock.acquire(timeout=-1 if wait is None else wait):
            raise OutOfTime("queue", time_limit_reason(f"the wait for {engine}'s child, busy with another "
                                                       "call", limits.time_limit))
        queued = time.perf_counter() - queued
        try:
            worker = slot.current()
            answer = self._ask(slot, worker, problem, request, limits, seed)
        finally:
            slot.lock.release()
        stats: dict[str, Any] = {"engine": engine, "model": request["model"], SOLVE_S: clock.elapsed(),
                                 "start_s": worker.ready.get("start_s") if worker.ready else None,
                                 "versions": worker.ready.get("versions") if worker.ready else None,
                                 BUILD_S: answer.get("build_s"), SEARCH_S: answer.get("search_s"),
                                 "exit": answer.get("exit"), START_WAITED_S: answer.get("start_waited_s"),
                                 QUEUED_S: queued}
        status = answer.get("status")
        if status == "SAT":
            values = answer.get("values")
            size = len(request["rows"]) if residual is not None else problem.n
            if not isinstance(values, list) or len(values) != size or not all(type(v) is int for v in values):
                raise InternalSolverError(f"engine {engine!r} answered SAT without {size} integer columns")
            columns = residual.lift(values) if residual is not None else values
            return Result(problem, Status.SAT, self.name, columns=columns_array(columns, problem.n),
                          stats=stats)
        if status == "UNSAT":
            claim = Certificate(CLAIM, (), {"engine": engine, "model": request["model"]})
            return Result(problem, Status.UNSAT, self.name, certificate=claim, stats=stats)
        if status == "UNKNOWN":
            stage = answer.get("stage", "search")
            if limits.time_limit is None:
                stats["reason"] = f"engine {engine!r} stopped without an answer ({answer.get('exit')})"
                stats["stage"] = stage
                return Result(problem, Status.UNKNOWN, self.name, stats=stats)
            raise OutOfTime(stage, time_limit_reason(stage, limits.time_limit))
        raise InternalSolverError(f"engine {engine!r} answered {str(answer)[:300]}")

    @staticmethod
    def _ask(slot: Engine, worker: EngineWorker, problem: Problem, request: dict[str, Any], limits: Limits,
             seed: int | None) -> dict[str, Any]:
        """The child's answer (``slot.lock`` held); a child that crashed, hung or was interrupted is
        killed, and after a hard stop a fresh one starts loading at once, for the next call."""
        deadline = limits.deadline
        started = time.perf_counter()
        try:
            if not worker.wait_ready(deadline):
                # Still starting: it goes on loading for the next call, which then finds it warm.
                raise OutOfTime("start", time_limit_reason(f"{worker.engine}'s start", limits.time_limit))
            waited = time.perf_counter() - started
            remaining = limits.remaining()
            answer = worker.ask({**request, "time_limit": remaining, "seed": seed}, deadline)
        except InternalSolverError:
            slot.drop()
            raise
        except BaseException:
            # Ctrl-C or any other interruption mid-request: the child must not run on alone.
            if worker.ready is not None:
                slot.drop()
            raise
        if answer is None:
            slot.drop()
            # A fresh child loads now, while the caller goes on: the next call finds it warm.
            slot.current()
            raise OutOfTime("search", time_limit_reason(f"search ({worker.engine} stopped by the hard stop)",
                                                        limits.time_limit))
        if "error" in answer:
            raise InternalSolverError(f"engine {worker.engine!r} failed on {problem}: {answer['error']}")
        return {**answer, "start_waited_s": waited}
