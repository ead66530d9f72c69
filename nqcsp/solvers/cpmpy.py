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
estimated before the model is sent (``estimated_bytes``).

An UNSAT is the engine's claim (``Certificate("claim")``, unchecked): nothing of it can be re-checked,
so ``nqcsp solve`` exits 5, ``auto`` (which never runs an outside engine) decides with a certified
answer, and the benchmarks compare each claim with a certified one.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any

from nqcsp.board.problem import Problem
from nqcsp.board.residual import estimated_bytes as residual_bytes
from nqcsp.board.residual import residual_of
from nqcsp.board.result import Certificate, InternalSolverError, Result, Status, columns_array
from nqcsp.runtime.lazy import MissingDependency
from nqcsp.runtime.limits import Limits, OutOfTime, time_limit_reason
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
# Bytes of a fresh child (Python, CPMpy, numpy and an engine loaded), and per cell of the model: a CP
# engine keeps domains (a few words a cell); an engine CPMpy encodes (HiGHS, Exact, Z3, PySAT) gets a
# Boolean per cell with the sums over it, as Python objects first. Estimates, to refuse what cannot fit.
CHILD_BYTES = 300 << 20
CP_BYTES_PER_CELL = 64
ENCODED_BYTES_PER_CELL = 4096
CP_ENGINES = ("ortools", "choco", "pumpkin")
# Bytes per row of the whole board's model in a CP engine: its interval domains and CPMpy's expressions.
CP_BYTES_PER_ROW = 4096
STDERR_TAIL = 800
# The stats name of the seconds a call waited for its engine's child to start (0 when it was warm).
START_WAITED_S = "start_waited_s"


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
    encoded = engine.split(":", 1)[0] not in CP_ENGINES
    if free <= RESIDUAL_MAX_FREE:
        limits.need_memory("build", residual_bytes(problem), f"the {free} x {free} residual board")
        residual = residual_of(problem)
        cells = residual.cell_count
        per_cell = ENCODED_BYTES_PER_CELL if encoded else CP_BYTES_PER_CELL
        limits.need_memory("build", CHILD_BYTES + per_cell * cells,
                           f"{engine}'s model of {cells} cells in its child process")
        domains = [residual.cols[residual.allowed[i]].tolist() for i in range(residual.size)]
        return {"model": "residual", "rows": residual.rows.tolist(), "domains": domains}, residual
    n = problem.n
    need = CHILD_BYTES + (ENCODED_BYTES_PER_CELL * n * n if encoded else CP_BYTES_PER_ROW * n)
    limits.need_memory("build", need, f"{engine}'s model of the whole {n} x {n} board in its child process")
    return {"model": "board", "n": n, "queens": problem.queen_array.tolist()}, None


def worker_command(engine: str) -> list[str]:
    """The child process of ``engine``: ``nqcsp.solvers.cpmpy_worker`` under this interpreter."""
    return [sys.executable, "-m", "nqcsp.solvers.cpmpy_worker", engine]


class EngineWorker:
    """One engine's child process: started once, asked one request at a time, killed at a deadline."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.owner = os.getpid()
        self.lock = threading.Lock()
        # Kept open as long as the child lives (its crash report reads it); closed by ``kill``.
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self.proc = subprocess.Popen(worker_command(engine),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     start_new_session=True)
        self.buffer = b""
        self.ready: dict[str, Any] | None = None

    def alive(self) -> bool:
        return self.proc.poll() is None

    def read_line(self, deadline: float | None) -> dict[str, Any] | None:
        """The child's next message; None when ``deadline`` (perf_counter seconds) passed first. A child
        that ends without a message is a crash."""
        assert self.proc.stdout is not None
        while b"\n" not in self.buffer:
            wait = None if deadline is None else deadline - time.perf_counter()
            if wait is not None and wait <= 0:
                return None
            with selectors.DefaultSelector() as selector:
                selector.register(self.proc.stdout, selectors.EVENT_READ)
                if not selector.select(wait):
                    return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            if not chunk:
                raise InternalSolverError(self.crash_text())
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        message = json.loads(line)
        if not isinstance(message, dict):
            raise InternalSolverError(f"engine {self.engine!r} answered {line[:200]!r}, not a JSON object")
        return message

    def wait_ready(self, deadline: float | None) -> bool:
        if self.ready is None:
            message = self.read_line(deadline)
            if message is None:
                return False
            if "error" in message:
                self.kill()
                raise InternalSolverError(f"engine {self.engine!r} did not start: {message['error']}")
            self.ready = message
        return True

    def ask(self, request: dict[str, Any], deadline: float | None) -> dict[str, Any] | None:
        """The engine's answer to ``request``; None when the deadline passed (the child is then killed)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise InternalSolverError(self.crash_text()) from None
        answer = self.read_line(None if deadline is None else deadline + HARD_STOP_S)
        if answer is None:
            self.kill()
        return answer

    def crash_text(self) -> str:
        code = self.proc.wait()
        how = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
        self.stderr.seek(0)
        # One line: the CLI reports an error as one line on stderr.
        tail = " ".join(self.stderr.read().decode(errors="replace").split())[-STDERR_TAIL:]
        return f"engine {self.engine!r} crashed: its process {how}" + (f"; it said: {tail}" if tail else "")

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        self.stderr.close()


_workers: dict[str, EngineWorker] = {}
_WORKERS_LOCK = threading.Lock()


def worker_for(engine: str) -> EngineWorker:
    """This process's worker for ``engine``, started when there is none or the last one ended. A worker
    inherited through fork belongs to the parent and is left alone."""
    with _WORKERS_LOCK:
        worker = _workers.get(engine)
        if worker is None or worker.owner != os.getpid() or not worker.alive():
            if worker is not None and worker.owner == os.getpid():
                worker.kill()
            worker = _workers[engine] = EngineWorker(engine)
        return worker


def drop(worker: EngineWorker) -> None:
    with _WORKERS_LOCK:
        if _workers.get(worker.engine) is worker:
            del _workers[worker.engine]
    worker.kill()


@atexit.register
def stop_workers() -> None:
    """Every engine child this process started ends with it."""
    with _WORKERS_LOCK:
        mine = [w for w in _workers.values() if w.owner == os.getpid()]
        _workers.clear()
    for worker in mine:
        worker.kill()


class CpmpySolver:
    name = "cpmpy"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              engine: str = DEFAULT_ENGINE, **options: Any) -> Result:
        clock = Clock(limits)
        request, residual = request_for(problem, limits, engine)
        # No child is started for a call whose time is already spent: it would load for nobody.
        limits.check_time("start")
        worker = worker_for(engine)
        wait = limits.remaining()
        if not worker.lock.acquire(timeout=-1 if wait is None else wait):
            raise OutOfTime("start", time_limit_reason("start", limits.time_limit))
        try:
            answer = self._ask(worker, problem, request, limits, seed)
        finally:
            worker.lock.release()
        stats: dict[str, Any] = {"engine": engine, "model": request["model"], SOLVE_S: clock.elapsed(),
                                 "start_s": worker.ready.get("start_s") if worker.ready else None,
                                 "versions": worker.ready.get("versions") if worker.ready else None,
                                 BUILD_S: answer.get("build_s"), SEARCH_S: answer.get("search_s"),
                                 "exit": answer.get("exit"), START_WAITED_S: answer.get("start_waited_s")}
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
    def _ask(worker: EngineWorker, problem: Problem, request: dict[str, Any], limits: Limits,
             seed: int | None) -> dict[str, Any]:
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
            drop(worker)
            raise
        except BaseException:
            # Ctrl-C or any other interruption mid-request: the child must not run on alone.
            if worker.ready is not None:
                drop(worker)
            raise
        if answer is None:
            drop(worker)
            # A fresh child loads now, while the caller goes on: the next call finds it warm.
            worker_for(worker.engine)
            raise OutOfTime("search", time_limit_reason(f"search ({worker.engine} stopped by the hard stop)",
                                                        limits.time_limit))
        if "error" in answer:
            raise InternalSolverError(f"engine {worker.engine!r} failed on {problem}: {answer['error']}")
        return {**answer, "start_waited_s": waited}
