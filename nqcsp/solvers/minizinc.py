"""MiniZinc backend: the solver-independent CP model ``models/nqueens.mzn``, solved by a MiniZinc solver
(Gecode by default) through the ``minizinc`` binary.

The binary runs in its own process group, against the call's deadline: MiniZinc is given the remaining
time as its own ``--time-limit`` (flattening included), and the group is killed when the deadline passes
whatever MiniZinc does, so a call keeps its time limit even when a solver ignores its own. The answer is
read from the model's output item (``q = [...]``) and MiniZinc's status lines. An UNSAT is MiniZinc's claim
(``Certificate("minizinc-unsat")``, unchecked); only the portfolio's agreement of two complete backends
can confirm it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from nqcsp.limits import Limits, OutOfTime, time_limit_reason
from nqcsp.problem import Problem
from nqcsp.result import Certificate, InternalSolverError, Result, Status, columns_array
from nqcsp.solvers.base import REASON, SOLVE_S, STAGE, Clock

BINARY = "minizinc"
MODEL_NAME = "nqueens.mzn"
# Gecode keeps a copy of every domain on each choice point it may return to: about n bytes per row at
# depth n, plus MiniZinc's own start-up. An estimate, to refuse boards that cannot fit before starting.
_BASE_BYTES = 64 << 20
# Seconds MiniZinc needs to start and flatten even a tiny model; less than this left means no answer.
_START_S = 0.15
_SOLUTION = re.compile(r"q = \[([^\]]*)\];")
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
        command = [binary, "--solver", mzn_solver, str(model_path())]
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
        if "=====UNSATISFIABLE=====" in out:
            claim = Certificate("minizinc-unsat", (), {"mzn_solver": mzn_solver, "model": MODEL_NAME})
            return Result(problem, Status.UNSAT, self.name, certificate=claim, stats=stats)
        found = _SOLUTION.search(out)
        if found is not None and "----------" in out:
            cols = [int(x) for x in found.group(1).split(",")]
            return Result(problem, Status.SAT, self.name, columns=columns_array(cols, n), stats=stats)
        if "=====UNKNOWN=====" in out or (code == 0 and not out.strip()):
            # MiniZinc stopped at its own time limit (the remaining time of this call) without an answer.
            stats[REASON] = time_limit_reason("search", limits.time_limit) if limits.time_limit else \
                "MiniZinc stopped without an answer"
            stats[STAGE] = "search"
            return Result(problem, Status.UNKNOWN, self.name, stats=stats)
        if "bad_alloc" in err or "out of memory" in err.lower():
            stats[REASON] = f"memory: MiniZinc ran out of memory on n = {n}"
            stats[STAGE] = "search"
            return Result(problem, Status.UNKNOWN, self.name, stats=stats)
        raise InternalSolverError(f"minizinc ({mzn_solver}) exited with code {code} without an answer for "
                                  f"{problem}: {err.strip()[-500:] or out.strip()[-500:]}")


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
