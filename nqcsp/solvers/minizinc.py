"""MiniZinc backend: the solver-independent CP model ``models/nqueens.mzn``, solved by a MiniZinc solver
(Gecode by default) through the ``minizinc`` binary.

The binary runs in its own process group, against the call's deadline: MiniZinc is given the remaining
time as its own ``--time-limit`` (flattening included), and the group is killed when the deadline passes
whatever MiniZinc does, so a call keeps its time limit even when a solver ignores its own. The answer is
read from MiniZinc's machine-readable output (``--json-stream``, one JSON message per line: ``solution``,
``status``, ``error``; with ``--output-mode json`` a solution holds the model's variables, ``q`` among
them, as JSON), never by matching text. An UNSAT is MiniZinc's claim (``Certificate("minizinc-unsat")``,
unchecked); only the portfolio's agreement of two complete backends can confirm it. A solver name MiniZinc
does not know is bad input (``InputError``) naming it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from nqcsp.board.problem import Problem
from nqcsp.board.result import Certificate, InputError, InternalSolverError, Result, Status, columns_array
from nqcsp.runtime.limits import Limits, OutOfTime, time_limit_reason
from nqcsp.solvers.base import REASON, SOLVE_S, STAGE, Clock

BINARY = "minizinc"
MODEL_NAME = "nqueens.mzn"
# Gecode keeps a copy of every domain on each choice point it may return to: about n bytes per row at
# depth n, plus MiniZinc's own start-up. An estimate, to refuse boards that cannot fit before starting.
_BASE_BYTES = 64 << 20
# Seconds MiniZinc needs to start and flatten even a tiny model; less than this left means no answer.
_START_S = 0.15
# MiniZinc's words for a solver name it has no configuration for ("no solver with tag X found").
_NO_SUCH_SOLVER = "no solver with tag"
_SOLVER_ID = re.compile(r"[A-Za-z0-9_.\-]+")


def check_solver_id(value: Any) -> str:
    """A MiniZinc solver tag or id (``gecode``, ``org.gecode.gecode``, ``chuffed``, ...)."""
    if not isinstance(value, str):
        raise TypeError(f"option mzn_solver must be a MiniZinc solver name (str), got {value!r}")
    if not _SOLVER_ID.fullmatch(value):
        raise ValueError(f"option mzn_solver must be a MiniZinc solver id such as 'gecode', got {value!r}")
    return value


def model_path() -> Path:
    """The CP model: shipped inside the package when installed, else the checkout's ``models/``."""
    candidates = [Path(str(resources.files("nqcsp"))) / "models" / MODEL_NAME,
                  Path(__file__).resolve().parents[2] / "models" / MODEL_NAME]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"the MiniZinc model {MODEL_NAME} is not installed; looked in "
                            f"{', '.join(str(c.parent) for c in candidates)}")


def dzn_text(problem: Problem) -> str:
    """The instance in the data format of ``models/example.dzn``."""
    rows = ", ".join(str(r) for r, _ in problem.queens)
    cols = ", ".join(str(c) for _, c in problem.queens)
    return f"n = {problem.n};\nm = {len(problem.queens)};\nmrow = [{rows}];\nmcol = [{cols}];\n"


def estimated_bytes(n: int) -> int:
    return _BASE_BYTES + n * n


class MiniZincSolver:
    name = "minizinc"

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              mzn_solver: str = "gecode", **options: Any) -> Result:
        clock = Clock(limits)
        n = problem.n
        if n == 0:
            return Result(problem, Status.SAT, self.name, columns=columns_array([], 0), stats={SOLVE_S: 0.0})
        binary = shutil.which(BINARY)
        if binary is None:
            raise InternalSolverError(f"solver 'minizinc' needs the {BINARY!r} binary on PATH")
        limits.need_memory("build", estimated_bytes(n), f"MiniZinc's model of a {n} x {n} board")
        limits.need_time("build", _START_S)
        # Machine-readable output: JSON messages, the model's variables as JSON in each solution.
        command = [binary, "--json-stream", "--output-mode", "json", "--solver", mzn_solver,
                   str(model_path())]
        remaining = limits.remaining()
        if remaining is not None:
            command[1:1] = ["--time-limit", str(max(1, int(remaining * 1000)))]
        if seed is not None:
            command[1:1] = ["--random-seed", str(seed % 2**31)]
        with tempfile.TemporaryDirectory(prefix="nqcsp-mzn-") as tmp:
            data = Path(tmp) / "instance.dzn"
            data.write_text(dzn_text(problem))
            out, err, code = _run(command + [str(data)], limits)
        stats: dict[str, Any] = {"mzn_solver": mzn_solver, "minizinc_s": clock.elapsed()}
        if out is None:
            raise OutOfTime("search", time_limit_reason("search", limits.time_limit))
        stats[SOLVE_S] = clock.elapsed()
        stream = read_stream(out)
        errors = "\n".join([*stream.errors, err.strip()]).strip()
        if _NO_SUCH_SOLVER in errors:
            raise InputError(f"option mzn_solver: MiniZinc has no solver {mzn_solver!r} here "
                             "(`minizinc --solvers` lists them)")
        if "UNSATISFIABLE" in stream.statuses:
            claim = Certificate("minizinc-unsat", (), {"mzn_solver": mzn_solver, "model": MODEL_NAME})
            return Result(problem, Status.UNSAT, self.name, certificate=claim, stats=stats)
        if stream.solution is not None:
            return Result(problem, Status.SAT, self.name, columns=solution_columns(stream.solution, n),
                          stats=stats)
        if "UNKNOWN" in stream.statuses or (code == 0 and not stream.errors and not stream.statuses):
            # MiniZinc stopped at its own time limit (the remaining time of this call) without an answer.
            stats[REASON] = time_limit_reason("search", limits.time_limit) if limits.time_limit else \
                "MiniZinc stopped without an answer"
            stats[STAGE] = "search"
            return Result(problem, Status.UNKNOWN, self.name, stats=stats)
        if "bad_alloc" in errors or "out of memory" in errors.lower():
            stats[REASON] = f"memory: MiniZinc ran out of memory on n = {n}"
            stats[STAGE] = "search"
            return Result(problem, Status.UNKNOWN, self.name, stats=stats)
        raise InternalSolverError(f"minizinc ({mzn_solver}) exited with code {code} without an answer for "
                                  f"{problem}: {errors[-500:] or out.strip()[-500:]}")


@dataclass
class Stream:
    """What MiniZinc's ``--json-stream`` said: the first solution's variables, the final statuses, the
    error messages (``what: message``)."""

    solution: dict[str, Any] | None = None
    statuses: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def read_stream(out: str) -> Stream:
    """Parse MiniZinc's JSON lines. A line that is not a JSON object (a solver logging on stdout) carries no
    answer and is skipped; a solution without the model's variables as JSON is a broken answer."""
    stream = Stream()
    for line in out.splitlines():
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(message, dict):
            continue
        kind = message.get("type")
        if kind == "solution" and stream.solution is None:
            output = message.get("output")
            variables = output.get("json") if isinstance(output, dict) else None
            if not isinstance(variables, dict):
                raise InternalSolverError(f"minizinc gave a solution without its variables as JSON: "
                                          f"{line[:300]}")
            stream.solution = variables
        elif kind == "status" and isinstance(message.get("status"), str):
            stream.statuses.append(message["status"])
        elif kind == "error":
            stream.errors.append(f"{message.get('what', 'error')}: {message.get('message', '')}")
    return stream


def solution_columns(variables: dict[str, Any], n: int) -> Any:
    """The model's ``q`` as a columns array; a missing or malformed ``q`` is MiniZinc's (or the model's)
    defect, never an answer. Its validity is checked afterwards by ``nqcsp.solve``, as for any backend."""
    q = variables.get("q")
    if not isinstance(q, list) or len(q) != n or not all(type(x) is int for x in q):
        raise InternalSolverError(f"minizinc's solution has no list of {n} integers q: {str(q)[:300]}")
    return columns_array(q, n)


def _run(command: list[str], limits: Limits) -> tuple[str | None, str, int]:
    """MiniZinc's stdout, stderr and exit code; stdout None when the deadline passed and the group was
    killed. Its own process group, so the solver it starts (fzn-gecode) dies with it."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=limits.remaining())
    except subprocess.TimeoutExpired:
        _kill(proc)
        return None, "", -signal.SIGKILL
    except BaseException:
        # Ctrl-C or any other interruption must not leave MiniZinc running on its own.
        _kill(proc)
        raise
    return out, err, proc.returncode


def _kill(proc: subprocess.Popen[str]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    # Collect the killed process and close its pipes; SIGKILL cannot be ignored, so this is quick.
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.communicate(timeout=1.0)
